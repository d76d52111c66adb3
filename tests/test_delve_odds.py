"""Exact odds of the next level (enumeration) against the engine's frequencies."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from foury_sim.games import delve as D
from foury_sim.games.delve import layout as A
from foury_sim.games.delve.kernel import p_clear
from foury_sim.games.delve.odds import clear_table, exact_level, parse_party

TRIALS = 100_000


@pytest.mark.parametrize(
    "hero, party, level, lair, master",
    [
        ("none", None, 3, 0, False),
        ("none", "fighter,cleric,mage,thief,champion,scroll,scroll", 5, 2, False),
        ("spellsword", "F,F,C,S", 4, 1, False),
        ("knight", None, 6, 2, True),
        ("mercenary", "F,T,S", 2, 0, True),
    ],
)
def test_engine_frequencies_match_exact_odds(hero, party, level, lair, master):
    df = D.odds(D.load_ruleset(), hero=hero, party=party, level=level, lair=lair, master=master, trials=TRIALS, seed=11)
    assert len(df) == 3 and set(df["event"]) == {"dragon comes", "monsters defeated", "level cleared"}
    assert np.all(np.abs(df["z"]) < 4.5), df
    assert np.all(df["exact"].between(0, 1))


def test_dragon_odds_are_binomial():
    rules = D.load_ruleset().with_hero("none")
    for level, lair in ((1, 2), (4, 0), (5, 1), (9, 2)):
        n = min(level, 7 - lair)
        need = 3 - lair
        p = sum(comb(n, k) * (1 / 6) ** k * (5 / 6) ** (n - k) for k in range(need, n + 1))
        dragon, _, _ = exact_level(rules, 0, (1, 1, 1, 1, 1, 1), level, lair)
        assert float(dragon) == pytest.approx(p, abs=1e-12)


def test_a_lone_champion_clears_a_single_die():
    rules = D.load_ruleset().with_hero("none")
    _, mons, clear = exact_level(rules, 0, parse_party("champion"), 1, 0)
    assert mons == 1 and clear == 1
    _, mons, _ = exact_level(rules, 0, parse_party("scroll"), 1, 0)
    assert mons == 0.5  # chest, potion or dragon


def test_the_risk_table_is_the_exact_odds():
    rules = D.load_ruleset().with_hero("occultist")
    table = clear_table(rules)
    st = np.zeros(A.STATE_SIZE, dtype=np.int64)
    for party, level, lair in (((2, 1, 0, 1, 1, 0), 4, 1), ((0, 0, 3, 0, 0, 2), 6, 0), ((1, 1, 1, 0, 0, 0), 3, 2)):
        st[A.S_LAIR] = lair
        p = p_clear(rules, table, st, np.array(party, dtype=np.int64), level)
        _, _, exact = exact_level(rules, 0, party, level, lair)
        assert p == round(float(exact) * 1e6)


def test_odds_input_errors():
    from foury_sim.errors import InputError

    rs = D.load_ruleset()
    with pytest.raises(InputError):
        D.odds(rs, party="F,F,X", level=1)
    with pytest.raises(InputError):
        D.odds(rs, level=1, lair=3)
