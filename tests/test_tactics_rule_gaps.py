"""Tactics rules the mutation check (tools/mutants.toml) found untested: one scripted test each.

Kept apart from the engine's and the ruleset's test files (their owners may fold them in)."""

from __future__ import annotations

import numpy as np
from test_tactics_rules import play, scripted  # noqa: F401  (scripted is a fixture)

from foury_sim.games.tactics import combat as C
from foury_sim.games.tactics import layout as A
from foury_sim.rng import stream


def test_staff_one_six_is_a_plain_win_not_a_chicken():
    """The mage staff makes a chicken on a double six only: one six is an ordinary roll-off."""
    out = C.new_out()
    t = C.new_terms()
    t[:] = (2, 0, 1, 0, 1, 1, 3, 1, 0, 0, 2, 3)  # player 2d6 against 1d6, staff (chicken, two sixes) on
    res = C.exchange(stream(1, 0), np.array([6, 5, 1], dtype=np.int64), t, 0, C.MELEE, 0, out)
    assert res == C.RO_WIN and out[C.X_CHICKEN] == 0 and out[C.X_DMG_MON] == 1 and out[C.X_DMG_PLAYER] == 0


def test_rest_refused_with_a_monster_in_sight_when_only_sight_counts(scripted, tmp_path):  # noqa: F811
    """rulings.advancing = in_sight_only: a path alone does not refuse resting, sight still does."""
    row, lines = play(scripted, tmp_path, "#######\n#@..S>#\n#######", [], [(A.A_REST, 0)],
                      sets=("dm.ap=0", "game.turn_cap=1", "rulings.advancing=in_sight_only"), bad=1)
    assert row["rests"] == 0
