"""Exact combat odds for Dungeon Foury, beside frequencies measured with the engine's own ``fight``.

One roll-off: you roll d6 + weapon, the foe rolls d6 + strength; higher wins, a tie does nothing,
the lower side loses the difference. A fight fought to the end without items (no shield, no
clover; the weapon wears only after the combat, so it keeps its value throughout) is a Markov
chain on your hearts: ``f(h) = (p_win + sum_k p_lose_k f(h - k)) / (1 - p_tie)`` with f(h<=0) = 0.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...lazy import pd
from ...oddstable import OddsTable, columns_in
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


def odds_report(rules=None, *, hearts: int = 5, trials: int = 20_000, seed: int = 1, **kw) -> OddsTable:
    """``foury-sim odds foury``: the odds table with its title and what each column means."""
    df = odds_table(rules, hearts=hearts, trials=trials, seed=seed, **kw)
    fight, mfight = f"p_fight_won_{hearts}h", f"measured_fight_won_{hearts}h"
    df = columns_in(df, ["weapon", "strength", "p_win", "measured_win", "p_tie", "measured_tie", "p_lose",
                         "measured_lose", fight, mfight, "trials"])
    legend = {
        "weapon": "your weapon's value, added to your d6 in every roll-off",
        "strength": "the foe's strength in the fight (its cell of the strength table: by default its own plus the "
                    "round's `monster_bonus`), added to its d6",
        "p_win": "exact chance to win one roll-off (your d6 + weapon above the foe's d6 + strength; 36 outcomes)",
        "measured_win": "share of the row's single roll-offs (the engine's own `fight` code) won",
        "p_tie": "exact chance of a tie (nothing happens, roll again)",
        "measured_tie": "share of the row's single roll-offs tied",
        "p_lose": "exact chance to lose one roll-off (you lose the difference in hearts)",
        "measured_lose": "share of the row's single roll-offs lost",
        fight: f"exact chance to win a whole fight fought to the end from {hearts} hearts (no shield, no clover)",
        mfight: f"share of the row's whole fights from {hearts} hearts the engine won",
        "trials": "single roll-offs, and whole fights, the engine played for the row (--trials)",
    }
    title = (f"Dungeon Foury combat odds: exact (enumerated) beside the engine's frequencies; whole fights from "
             f"{hearts} hearts (--hearts), {trials:,} trials per row, seed {seed}")
    notes = ("Exact whole-fight odds: a fight fought on until one side falls, without items; the weapon wears only "
             "after the combat, so it keeps its value throughout.",)
    if rules is not None:  # the ruleset's strength table (docs/rules.md, "Monster strength by round")
        from .ruleset import strength_summary

        notes += (strength_summary(rules),)
    compared = (("p_win", "measured_win"), ("p_tie", "measured_tie"), ("p_lose", "measured_lose"), (fight, mfight))
    return OddsTable(title, df, legend, compared, keys=("weapon", "strength"), notes=notes)


__all__ = ["rolloff", "fight_to_the_end", "odds_table", "odds_report", "np"]
