"""Exact combat odds for Dungeon Foury, beside frequencies measured with the engine's own ``fight``.

One roll-off: you roll d6 + weapon, the foe rolls d6 + strength; higher wins, a tie does nothing,
the lower side loses the difference. A fight fought to the end without items (no shield, no
clover; the weapon wears only after the combat, so it keeps its value throughout) is a Markov
chain on your hearts: ``f(h) = (p_win + sum_k p_lose_k f(h - k)) / (1 - p_tie)`` with f(h<=0) = 0.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from .combat import combat_trials


def rolloff(weapon: int, strength: int) -> tuple[Fraction, Fraction, dict[int, Fraction]]:
    """Exact P(win), P(tie) and P(lose by k) of one roll-off, by enumerating the 36 outcomes."""
    win = tie = Fraction(0)
    lose: dict[int, Fraction] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            d = (a + weapon) - (b + strength)
            p = Fraction(1, 36)
            if d > 0:
                win += p
            elif d == 0:
                tie += p
            else:
                lose[-d] = lose.get(-d, Fraction(0)) + p
    return win, tie, lose


def fight_to_the_end(weapon: int, strength: int, hearts: int) -> Fraction:
    """Exact chance to beat the foe starting with ``hearts``, fighting on until one side falls."""
    win, tie, lose = rolloff(weapon, strength)
    if tie == 1:
        return Fraction(0)
    f = [Fraction(0)] * (hearts + 1)
    for h in range(1, hearts + 1):
        acc = win
        for k, p in lose.items():
            if h - k > 0:
                acc += p * f[h - k]
        f[h] = acc / (1 - tie)
    return f[hearts]


def odds_table(rules=None, *, weapons=range(0, 5), strengths=range(0, 7), hearts: int = 5, trials: int = 20_000,
               seed: int = 1) -> pd.DataFrame:
    """One row per (weapon, foe strength): exact and measured roll-off and whole-fight odds."""
    rows = []
    for w in weapons:
        for s in strengths:
            win, tie, lose = rolloff(w, s)
            fight = fight_to_the_end(w, s, hearts)
            row_seed = (int(seed) * 1000 + 10 * int(w) + int(s)) % 2**64  # any 63-bit seed; unchanged below 2**53
            m = combat_trials(int(w), int(s), int(hearts), int(trials), row_seed)
            rows.append({
                "weapon": w, "strength": s,
                "p_win": float(win), "p_tie": float(tie), "p_lose": float(sum(lose.values(), Fraction(0))),
                "measured_win": m[0] / trials, "measured_tie": m[1] / trials, "measured_lose": m[2] / trials,
                f"p_fight_won_{hearts}h": float(fight), f"measured_fight_won_{hearts}h": m[3] / trials,
                "trials": trials,
            })
    return pd.DataFrame(rows)


__all__ = ["rolloff", "fight_to_the_end", "odds_table", "np"]
