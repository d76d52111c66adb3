"""Tactics against its printed rule text (shared/seeds/003_2bce2fb6f2947a05.txt), sentence by sentence: the text
audit of session 65. Each test asserts what the *text* says, quoted in its docstring with its approximate line.

The tests marked "FOUND" were findings: the engine contradicted the text there (each failed on the engine before
session 65's fix, which its docstring names); the rest pin rules that no scripted test checked before.

Helpers and dice order as tests/test_tactics_rules.py: a roll-off rolls the player's dice, then the monster's;
the DM's turn starts with its spawn roll (6 = nothing by default).
"""

from __future__ import annotations

import pytest
from test_tactics_rules import DOWN, RIGHT, STILL, has, move, play, turn_lines

from foury_sim.games import tactics as T
from foury_sim.games.tactics import layout as A
from foury_sim.policy import make_policy

DECLINING_DM = "tests/data/tactics_text_audit_policies.py:declines_spawns"


@pytest.fixture(scope="module")
def scripted():
    return make_policy("tests/data/tactics_policies.py:scripted", T.POLICIES)


# --- findings: failed on the engine before ---------------------------------------------------------------------
def test_the_fire_golem_does_not_walk_onto_lava(scripted, tmp_path):
    """FOUND (fixed: ``rulings.lava_walk``, default "flyers").

    Text, THE ENVIRONMENT (line 37): "Orange Tile: Lava ( Impassable to
    non-flying monsters and the player, can be fired over, instantaneous death if pushed into unless immune. )";
    the fire golem (line 190) is "Resistant to Lava" but does not fly (only the cacodemon "Can fly over Lava").
    "Resistant" is the "unless immune" of being pushed in, not a licence to walk: lava stays impassable to it.

    The golem (range set to 0 so that it walks rather than shoots) stands two tiles right of the player with lava
    between; its only non-lava step is down to row 3, column 5. The engine walked it onto the lava (row 2,
    column 4): `lava_ok` (kernel.py) lets the `lava_immune` ability walk on lava in `mon_field`, `advance`,
    `can_rest`, and `combat.monster_move_cost` prices the step."""
    row, lines = play(scripted, tmp_path, "#######\n#@.=F.#\n#.....#\n#>#####\n#######", [6],
                      sets=("game.turn_cap=1", "dm.ap=2", "monsters.fire_golem.range=0"))
    assert not any("steps to row 2, column 4" in line for line in lines), "\n".join(lines)
    has(lines, "the fire golem (monster 0) steps to row 3, column 5: 2 AP, 0 left")


def test_a_storm_golem_advancing_into_water_electrifies_it_at_once(scripted, tmp_path):
    """FOUND (fixed: ``advance`` electrifies).

    Text, Storm Golem (line 180): "If a Storm Golem moves into a water tile, all
    adjacent water tiles and subsequent adjacent water tiles deal damage to the player and monsters alike in the
    form of -1 HP once the Storm Golem has moved into the water, and at the start of each turn the Storm Golem is
    in the water." COMBAT (line 96): a monster shot from range "advances one tile towards the player".

    The adventurer steps into the water (2 AP) and shoots the storm golem with the bow (2 + 1 to 12: lost, no
    damage from range); the golem advances one tile, into the water the adventurer stands in: the current strikes
    at once (-1 HP, before the DM's turn), and again at the start of the DM's turn (the golem is in the water):
    10 - 2 = 8 HP. The engine struck only at the DM's turn (9 HP): `advance` moves the golem without the
    `electrify` call that `dm_turn` makes after a DM step into water."""
    row, lines = play(scripted, tmp_path, "#######\n#@~~~Z#\n#>#####\n#######", [1, 1, 6, 6, 6],
                      [move(RIGHT), (A.A_ATTACK, 0)], sets=STILL + ("player.weapon=bow",))
    turn = turn_lines(lines)
    has(turn, "the storm golem (monster 0) advances to row 2, column 5",
        "the storm golem (monster 0) electrifies its water: the adventurer takes 1")
    assert row["hp_left"] == 8


def test_the_dungeon_master_may_decline_to_spawn(scripted, tmp_path):
    """FOUND (fixed: ``rulings.spawn_optional``, default true).

    Text, MONSTER SPAWNING (line 126): "they must roll a 1D6 and consult the
    monster spawn chart. Once the result is determined, the dungeon master may spawn one monster from the
    designated category." The roll is a must, the spawn a may: the DM may decline. docs/rules-tactics.md records
    no ruling; the engine's `spawn` always spawned (the DM only picks the kind, `D_SPAWN_KIND`, and the point).

    A DM policy that declines whenever the spawn question offers "no monster" (a row with `O_ARG` -1): the spawn
    roll 1 (undead) then spawns nothing. The engine offered no such row, so a skeleton spawned. The built-in DMs
    are not offered it (both always spawn: their games are unchanged)."""
    row, lines = play(scripted, tmp_path, "#######\n#@..>*#\n#######", [1], sets=STILL, dm=DECLINING_DM)
    has(lines, "spawn roll: 1: undead")
    assert not any("spawns at" in line for line in lines), "\n".join(lines)
    assert row["spawned"] == 0


# --- rules the engine plays as printed, with no scripted test before -------------------------------------------
def test_a_looted_mummy_comes_back_with_one_hp_less_than_its_full_four(scripted, tmp_path):
    """Text, Resurrection (line 225): "If the player rolls a 6 the monster comes back to life with 1 less HP than
    they normally have at full health"; the mummy (line 154) has 4 HP. Four won roll-offs slay it; the loot die
    shows 6: it comes back with 4 - 1 = 3 HP (the tests before checked the 2-HP skeleton only)."""
    row, lines = play(scripted, tmp_path, "######\n#@M.>#\n######", [6, 5, 1, 1] * 4 + [6],
                      [(A.A_ATTACK, 0)] * 4, sets=STILL)
    has(lines, "loot chance (monster): the die shows 6: nothing", "the mummy (monster 0) comes back to life with 3 HP")
    assert row["resurrections"] == 1


def test_a_slain_undead_boss_never_comes_back_and_its_six_is_magic_loot(scripted, tmp_path):
    """Text, LOOT CHANCE (line 213): "Boss Monsters: ... Rolling a 6 will give you magic loot"; Resurrection
    (line 225): "Boss Monsters will never come back to life". The necromancer is an undead boss (line 136): slain
    (three won roll-offs, 3 HP), its loot die shows 6: magic loot (the chart's 1: the Berserk Potion), and it
    stays dead."""
    row, lines = play(scripted, tmp_path, "######\n#@N.>#\n######", [6, 5, 1, 1] * 3 + [6, 1],
                      [(A.A_ATTACK, 0)] * 3, sets=STILL)
    has(lines, "loot chance (boss): the die shows 6: magic", "found Berserk Potion (magic item): kept")
    assert not any("comes back to life" in line for line in lines)
    assert row["resurrections"] == 0 and row["kills"] == 1


@pytest.mark.parametrize("walk", ["flyers", "immune_too"])
def test_an_awake_fire_golem_on_lava_still_forbids_a_rest(scripted, tmp_path, walk):
    """A lava-immune monster a level puts on lava (the forge's fire golem) steps off it under the text's
    ``rulings.lava_walk = "flyers"``, so it has a way to the player: resting is refused while it is awake
    (``rulings.advancing = "awake_with_path"``), as under "immune_too". Before (session 65's review), its own
    tile was not in the walkers' field, so the rest was taken and the DM's turn skipped."""
    grid = "########\n#@....=#\n#.####.#\n#......#\n#>######\n########"
    row, lines = play(scripted, tmp_path, grid, [], [move(DOWN), move(DOWN), (A.A_REST, 0)],
                      sets=("dm.ap=0", "game.turn_cap=1", "monsters.fire_golem.range=0", f"rulings.lava_walk={walk}"),
                      extra="monster: fire_golem 2,7", bad=1)
    assert row["rests"] == 0
