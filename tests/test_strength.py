"""Monster strength by round (issue 13, section 1): the Dungeon Foury strength table by enemy kind x round
(sector keys A..D, play-order keys 1..4) and Delve's dungeon dice per level (``level_dice``).

docs/rules.md "Monster strength by round", docs/rules-delve.md "Dice per level"."""

from __future__ import annotations

import numpy as np
import pytest
from foury_helpers import play
from plain import plain

from foury_sim.errors import InputError
from foury_sim.games.delve import ruleset as DR
from foury_sim.games.foury import icons as I
from foury_sim.games.foury import kernel as K
from foury_sim.games.foury import layout as L
from foury_sim.games.foury.ruleset import load_ruleset

ORC, MINOTAUR, GOBLIN = (I.SHIPPED.foe(k) for k in ("orc", "minotaur", "goblin"))


def table(rules, foe: int) -> np.ndarray:
    """The foe's strength table: [k, s] = its strength in the (k+1)-th round played, in sector s (0..3 = A..D)."""
    return rules.T[L.T_EN_STR:L.T_EN_STR + 16, foe].reshape(4, 4)


def kernel_strength(rules, foe: int, k: int, s: int) -> int:
    """What the kernel's ``foe_strength`` reads in the (k+1)-th round played in sector s."""
    st = np.zeros(L.STATE_SIZE, np.int64)
    st[L.S_STR_ROW] = 4 * k + s
    return int(plain(K.foe_strength)(rules.T, st, foe))


# ----------------------------------------------------------------------------------- the table
def test_default_table_is_base_plus_mult_times_bonus_by_play_order():
    """No strength cell: every sector of the k-th round played gets base + mult x monster_bonus[k]."""
    r = load_ruleset(overrides={"round.monster_bonus": [0, 2, 3, 5]})
    for f in r.foes:
        want = np.repeat((f.base + f.mult * np.array([0, 2, 3, 5]))[:, None], 4, axis=1)
        assert (table(r, f.icon) == want).all(), f.key
    assert table(r, MINOTAUR)[:, 0].tolist() == [0, 4, 6, 10] and table(r, GOBLIN).max() == 0
    assert kernel_strength(r, MINOTAUR, 3, 1) == 10 and kernel_strength(r, ORC, 1, 2) == 2


def test_sector_cell_sets_that_sector_in_every_place_of_the_order():
    """enemies.orc.strength.C = 1: the round played in the Castle Cliff, whether 1st or 4th; nothing else moves
    (other sectors, other enemies)."""
    base = load_ruleset()
    r = load_ruleset(overrides=["enemies.orc.strength.C=1"])
    assert table(r, ORC).tolist() == [[0, 0, 1, 0], [1, 1, 1, 1], [2, 2, 1, 2], [3, 3, 1, 3]]
    changed = np.argwhere(table(r, ORC) != table(base, ORC)).tolist()
    assert changed == [[0, 2], [2, 2], [3, 2]]  # the 2nd round played already had strength 1
    assert (np.delete(r.T, range(L.T_EN_STR, L.T_EN_STR + 16), 0) == np.delete(base.T, range(L.T_EN_STR,
                                                                                            L.T_EN_STR + 16), 0)).all()
    for foe in set(range(I.FOE_FIRST, I.N_ICONS)) - {ORC}:
        assert (table(r, foe) == table(base, foe)).all()
    assert [kernel_strength(r, ORC, k, 2) for k in range(4)] == [1, 1, 1, 1]
    assert [kernel_strength(r, ORC, k, 0) for k in range(4)] == [0, 1, 2, 3]


def test_play_order_cell_and_list_set_the_kth_round_played_in_every_sector():
    r = load_ruleset(overrides=["enemies.orc.strength.3=5"])
    assert table(r, ORC).tolist() == [[0] * 4, [1] * 4, [5] * 4, [3] * 4]
    r = load_ruleset(overrides=["enemies.minotaur.strength=7,6"])  # a list: 1st, 2nd round played
    assert table(r, MINOTAUR).tolist() == [[7] * 4, [6] * 4, [4] * 4, [6] * 4]
    r = load_ruleset(overrides={"enemies.orc.strength": {"B": 4, "D": -1}, "round.monster_bonus": [1, 1, 1, 1]})
    assert table(r, ORC).tolist() == [[1, 4, 1, -1]] * 4


def test_strength_cells_from_a_rules_file(tmp_path):
    f = tmp_path / "r.toml"
    f.write_text("[enemies.orc]\nstrength = { C = 2, A = 3 }\n")
    r = load_ruleset(f)
    assert table(r, ORC)[:, 0].tolist() == [3] * 4 and table(r, ORC)[:, 2].tolist() == [2] * 4
    f.write_text("[enemies.orc]\nstrength = { C = 2, 3 = 3 }\n")
    with pytest.raises(InputError) as e:
        load_ruleset(f)
    assert e.value.where == f"{f}:2:1" and "mixes sector rounds (A..D) and play-order rounds (1..4)" in e.value.message


@pytest.mark.parametrize("sets, where, message", [
    (["enemies.orcc.strength.C=1"], "--set enemies.orcc.strength.C", "unknown enemy 'orcc' (did you mean 'orc'?)"),
    (["enemies.orc.strength.E=1"], "--set enemies.orc.strength.E=1", "enemies.orc.strength has unknown round 'E': "
     "A..D name the round played in that sector, 1..4 the k-th round played"),
    (["enemies.orc.strength.c=1"], "--set enemies.orc.strength.c=1", "unknown round 'c'"),
    (["enemies.orc.strength.C=x"], "--set enemies.orc.strength.C=x",
     "enemies.orc.strength.C must be a whole number in -66..220, not 'x'"),
    (["enemies.orc.strength.C=2.5"], "--set enemies.orc.strength.C=2.5", "must be a whole number"),
    (["enemies.orc.strength.C=221"], "--set enemies.orc.strength.C=221",
     "enemies.orc.strength.C = 221 is above 220 (valid range -66..220)"),
    (["enemies.orc.strength.C=1", "enemies.orc.strength.3=1"], "--set enemies.orc.strength.C=1",
     "mixes sector rounds (A..D) and play-order rounds (1..4)"),
    (["enemies.orc.strength=3"], "--set enemies.orc.strength", "enemies.orc.strength is a table by round"),
    (["enemies.orc.strength.C=1,2"], "--set enemies.orc.strength.C", "is a single value, not a table or list"),
    (["game.rounds=2", "enemies.orc.strength.3=1"], "--set enemies.orc.strength.3=1",
     "enemies.orc.strength.3: there is no round 3 to play (game.rounds = 2)"),
    (["enemies.orc.strength=1,2,3,4,5"], "--set enemies.orc.strength=1,2,3,4,5", "1..4 whole numbers"),
])
def test_strength_set_errors(sets, where, message):
    with pytest.raises(InputError) as e:
        load_ruleset(overrides=sets)
    assert e.value.where == where and message in e.value.message
    assert "\n" not in e.value.message


# ------------------------------------------------------------------------- scripted dice, sector C
def orc_fight(overrides: dict):
    """Round 1 entered by the north arm of the C cross (a Castle Cliff room): face 2 of table C is a monster,
    the spawn roll gives an orc, then the roll-off 6 vs 3 + strength."""
    ov = {"enemies.spawn_table": ["orc"] * 6, "max_turns": 1, **overrides}
    return play("cross_C", script=[2, 1, 6, 3], queues={"round": [1]}, sheet={"hearts": 8}, overrides=ov)


def test_scripted_orc_in_round_c_fights_the_cell_set_for_c():
    """The roll-off target is the cell of (1st round played, sector C): 0 by default (monster bonus +0), 1 with
    strength.C = 1 or strength.1 = 1; a cell of another sector or another round changes nothing."""
    g = orc_fight({})
    assert g[L.S_SECTOR] == 2 and g[L.S_ROUND] in (0, 1) and g.rows(L.TR_ROLLOFF) == [(6, 0, 3, 0, 0)]
    assert g[L.S_STR_ROW] == 4 * 0 + 2
    assert orc_fight({"enemies.orc.strength.C": 1}).rows(L.TR_ROLLOFF) == [(6, 0, 3, 1, 0)]
    assert orc_fight({"enemies.orc.strength.C": 3}).rows(L.TR_HIT) == []  # 6 vs 3 + 3: a tie
    assert orc_fight({"enemies.orc.strength.1": 1}).rows(L.TR_ROLLOFF) == [(6, 0, 3, 1, 0)]
    for other in ({"enemies.orc.strength.A": 4}, {"enemies.orc.strength.D": 4},
                  {"enemies.minotaur.strength.C": 4}):
        assert orc_fight(other).rows(L.TR_ROLLOFF) == [(6, 0, 3, 0, 0)], other


def test_summary_names_the_cells_and_what_round_means():
    from foury_sim.games.foury import summarize
    from foury_sim.games.foury.outputs import OUTPUTS

    r = load_ruleset(overrides=["enemies.orc.strength.C=1", "enemies.minotaur.strength.4=5"])
    import pandas as pd

    df = pd.DataFrame({c: [0] for c in ("death_round", "rounds_completed", "coins_used", "death_sector",
                                        "death_cause", "end_cause", "win", "death_cell")})
    s = summarize(df, r)
    assert s["monster_strength"] == {"orc C": 1, "minotaur 4": 5}
    text = OUTPUTS.summary_key("monster_strength").text(s["monster_strength"], s)
    assert text == ("orc C=1, minotaur 4=5  (round A..D = the round played in that sector, whatever its place in "
                    "the order; 1..4 = the k-th round played, whatever its sector)")
    assert "monster_strength" not in summarize(df, load_ruleset())


# ----------------------------------------------------------------------------------------- Delve
def test_delve_level_dice_default_is_the_level():
    r = DR.load_ruleset()
    assert r.rules[DR.R_LEVEL_DICE:DR.R_LEVEL_DICE + DR.MAX_LEVELS].tolist() == list(range(1, 31))


def test_delve_level_dice_set_changes_exactly_that_level():
    base = DR.load_ruleset().rules
    r = DR.load_ruleset(None, ["level_dice.7=5"]).rules
    assert np.flatnonzero(r != base).tolist() == [DR.R_LEVEL_DICE + 6] and r[DR.R_LEVEL_DICE + 6] == 5
    for bad, msg in ((["level_dice.7=31"], "level_dice.7 = 31 is above 30"),
                     (["level_dice.31=1"], "unknown ruleset key 'level_dice.31'"),
                     (["level_dice=3"], "level_dice is a table")):
        with pytest.raises(InputError) as e:
            DR.load_ruleset(None, bad)
        assert msg in e.value.message and "--set" in e.value.where


@pytest.fixture(scope="module")
def delve_scripted():
    from foury_sim.games import delve as D
    from foury_sim.policy import make_policy

    return make_policy("tests/data/delve_policies.py:scripted", D.POLICIES)


def test_delve_scripted_level_dice_changes_exactly_that_level(delve_scripted):
    """level_dice.2 = 3 and level_dice.4 = 1: level 2 rolls 3 dice, level 4 one; levels 1 and 3 roll as published
    (L dice). Scripted dice: a party of champions, chests only; seek glory at the first three regroups."""
    from dataclasses import replace

    from foury_sim.games import delve as D
    from foury_sim.games.delve import layout as A

    champions, chest = [5] * 7, 4
    script = champions + [chest] + [chest] * 3 + [chest] * 3 + [chest]
    rs = D.load_ruleset(None, ["delves=1", "level_dice.2=3", "level_dice.4=1"])
    params = np.array([x for i in range(3) for x in (A.D_REGROUP, i, A.A_CONTINUE, -1, -1)], dtype=np.float64)
    row, lines = D.play_one(rs, "none", replace(delve_scripted, params=params), 0, 0, script)
    rolled = [line.strip() for line in lines if "the dungeon rolls" in line]
    assert rolled == ["Level 1, the dungeon rolls 1 die: 1 chest; 0 dragons to the Lair (0 dragons there)",
                      "Level 2, the dungeon rolls 3 dice: 3 chests; 0 dragons to the Lair (0 dragons there)",
                      "Level 3, the dungeon rolls 3 dice: 3 chests; 0 dragons to the Lair (0 dragons there)",
                      "Level 4, the dungeon rolls 1 die: 1 chest; 0 dragons to the Lair (0 dragons there)"]
    assert row["delve1_level"] == 4 and row["bad_answers"] == 0


def test_odds_note_shows_the_strength_table():
    from foury_sim.games.foury.ruleset import strength_summary

    head = ("Monster strength (added to the foe's d6) by the 1st/2nd/... round played; 'in C' = in the round played "
            "in sector C, whatever its place: ")
    assert strength_summary(load_ruleset()) == head + ("statue 0/0/0/0; goblin 0/0/0/0; orc 0/1/2/3; imp 0/1/2/3; "
                                                       "bandit 0/1/2/3; troll 0/1/2/3; minotaur 0/2/4/6.")
    r = load_ruleset(overrides=["enemies.orc.strength.C=1", "enemies.minotaur.strength.2=9"])
    assert "; orc 0/1/2/3, in C 1; " in strength_summary(r) and "; minotaur 0/9/4/6." in strength_summary(r)
    r = load_ruleset(overrides=["game.rounds=2", "enemies.orc.strength={ A = 1, B = 1, C = 1, D = 5 }"])
    assert "; orc in A 1, in B 1, in C 1, in D 5; imp 0/1; " in strength_summary(r)
