"""Rooms' navigation against its printed chapter (shared/seeds/002_44348e425b648400.txt), sentence by sentence: the
text audit of session 65. Each test asserts what the *text* says, quoted in its docstring with its line.

The test marked "FOUND" was a finding: it failed on the engine before session 65's fix (its docstring names it).
Helpers as tests/test_rooms_nav.py.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_rooms_nav import CHEST_ABOVE, FOUNTAIN_ABOVE, ONE_TURN, dungeon, has, move

from foury_sim.games import rooms as R
from foury_sim.games.rooms import layout as L
from foury_sim.policy import make_policy

N, E, S, W = range(4)


@pytest.fixture(scope="module")
def scripted():
    return make_policy("tests/data/rooms_policies.py:scripted", R.POLICIES)


def run(scripted, tmp_path, grid, wishes, sets=ONE_TURN):
    """One game; unlike test_rooms_nav.play, a wish matching no option is not an error here (it is the point)."""
    rs = R.load_ruleset(None, list(sets), dungeon(tmp_path, grid))
    params = np.array([x for w in wishes for x in w], dtype=np.float64)
    return R.play_one(rs, "ranger", replace(scripted, params=params), 0, 0, [])


@pytest.mark.parametrize("grid, item", [(CHEST_ABOVE, "key"), (FOUNTAIN_ABOVE, "bomb")])
def test_no_hp_instead_of_a_key_or_bomb_the_hero_holds(scripted, tmp_path, grid, item):
    """FOUND (fixed: ``navigation.hp_with_item``, default false).

    Text (line 7): "If a player does not have a key or bomb but wishes to use one,
    they may sacrifice one HP in lieu of a key or bomb at any time." The HP is the answer of a hero who has no
    key (no bomb); "at any time" says when (any turn, any door), not that the condition falls away.

    The hero starts with the seed's one key and one bomb (line 5); at the treasure chest's locked door (the
    fountain's wall) the wish to pay 1 HP must match no option: the answers are turn back or spend the key (the
    bomb). The engine's `step` (kernel.py) offered `PASS_HP` whenever `navigation.hp_instead` was true, key in
    hand or not; that reading is now ``navigation.hp_with_item = true``
    (tests/test_rooms_nav.py::test_one_hp_instead_of_a_key_in_hand_when_the_rules_say_so)."""
    row, lines = run(scripted, tmp_path, grid, [move(N, L.PASS_HP)])
    assert row["bad_answers"] == 1, f"1 HP was offered with a {item} in hand:\n" + "\n".join(lines)
    assert row["hp_spent"] == 0 and row["hp_left"] == 30


@pytest.mark.parametrize("grid, sets", [(CHEST_ABOVE, ("navigation.start_keys=0",)),
                                        (FOUNTAIN_ABOVE, ("navigation.start_bombs=0",))])
def test_one_hp_instead_when_the_hero_has_no_key_or_bomb(scripted, tmp_path, grid, sets):
    """Text (line 7), the case the sentence names: with no key (no bomb) the hero may pay 1 HP and passes: the
    step is made (one move) and 30 - 1 = 29 HP are left."""
    row, lines = run(scripted, tmp_path, grid, [move(N, L.PASS_HP)], sets=ONE_TURN + sets)
    assert row["bad_answers"] == 0
    assert (row["hp_spent"], row["hp_left"], row["moves"]) == (1, 29, 1)
    has(lines, "(pays 1 HP instead of a")
