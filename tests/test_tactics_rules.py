"""Tactics rules, one scripted-dice test each, on tiny levels drawn here: forced dice (``script``: d6 faces in
the order the kernel rolls them) and forced choices (the ``scripted`` user policy in tests/data/tactics_policies.py:
the adventurer's i-th action takes the wished option, then every turn ends at once).

Dice order: a roll-off rolls the player's dice, then the monster's; the DM's turn starts with the spawn roll
(6 = nothing by default). ``dm.ap = 0`` keeps the monsters still, ``game.turn_cap = 1`` ends the game after
one round.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from foury_sim.errors import InputError
from foury_sim.games import tactics as T
from foury_sim.games.tactics import layout as A
from foury_sim.policy import make_policy

STILL = ("dm.ap=0", "game.turn_cap=1")  # the monsters do nothing; one round
UP, RIGHT, DOWN, LEFT, TELE = range(5)


@pytest.fixture(scope="module")
def scripted():
    return make_policy("tests/data/tactics_policies.py:scripted", T.POLICIES)


def level(tmp_path, grid: str, extra: str = "") -> str:
    p = tmp_path / "level.txt"
    p.write_text("name: test level\n\ngrid:\n" + grid.strip("\n") + "\n" + (f"\n{extra}\n" if extra else ""))
    return str(p)


def play(scripted, tmp_path, grid, script=(), wishes=(), sets=(), dm="by_the_book", extra="", bad=0):
    rs = T.load_ruleset(None, list(sets), level(tmp_path, grid, extra), dm=dm)
    params = np.array([x for w in wishes for x in w], dtype=np.float64)
    row, lines = T.play_one(rs, "adventurer", replace(scripted, params=params), 0, 0, list(script))
    assert row["bad_answers"] == bad, "a wish matched no option:\n" + "\n".join(lines)
    return row, lines


def has(lines, *texts):
    for t in texts:
        assert any(t in line for line in lines), f"{t!r} not in:\n" + "\n".join(lines)


def first(lines, text):
    return next(i for i, line in enumerate(lines) if text in line)


def move(d):
    return (A.A_MOVE, d)


# --- moving ----------------------------------------------------------------------------------------------
def test_start_on_the_start_tile_and_win_on_the_exit(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#####\n#@.>#\n#####", wishes=[move(RIGHT), move(RIGHT)])
    assert row["win"] == 1 and row["turns"] == 1 and row["hp_left"] == 10 and row["ap_move"] == 2
    assert lines[0] == "== turn 1: the adventurer at row 2, column 2, 10 HP, 8 AP; 0 monsters awake =="
    has(lines, "moves right to row 2, column 4: 1 AP, 6 left", "== end: the adventurer reaches the exit with 10 HP")


def test_entering_water_costs_twice(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#####\n#@~>#\n#####", wishes=[move(RIGHT), move(RIGHT)])
    assert row["ap_move"] == 3
    has(lines, "moves right to row 2, column 3: 2 AP, 6 left")


def test_moving_away_from_combat_costs_two(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#>.@S#\n######", wishes=[move(LEFT), move(LEFT)], sets=STILL)
    assert row["win"] == 1 and row["ap_move"] == 3
    has(lines, "moves left to row 2, column 3: 2 AP, 6 left", "moves left to row 2, column 2: 1 AP, 5 left")


def test_teleporter_pair_is_one_move(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#######\n#@^#^>#\n#######", wishes=[move(RIGHT), move(TELE), move(RIGHT)])
    assert row["win"] == 1 and row["ap_move"] == 3
    has(lines, "moves through the teleporter to row 2, column 5: 1 AP, 6 left")


def test_turn_cap_is_a_loss_reported_apart(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#####\n#@.>#\n#####", sets=("game.turn_cap=2",))
    assert row["win"] == 0 and row["turns"] == 2 and row["death_cause"] == A.CAUSE_TURN_CAP
    has(lines, "== end: the turn cap is reached with 10 HP (a loss)")


# --- combat ----------------------------------------------------------------------------------------------
CORRIDOR = "######\n#@S.>#\n######"


def test_roll_off_winner_deals_one_and_a_kill_is_looted(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, CORRIDOR, [6, 5, 1, 1, 6, 6, 1, 1, 2],
                      [(A.A_ATTACK, 0), (A.A_ATTACK, 0), move(RIGHT), move(RIGHT), move(RIGHT)], sets=STILL)
    assert row["win"] == 1 and row["kills"] == 1 and row["kills_kind1"] == 1 and row["ap_attack"] == 2
    has(lines, "the adventurer rolls 6 + 5 = 11", "the monster rolls 1 + 1 = 2",
        "melee against the skeleton: 11 to 2, the adventurer wins: the skeleton loses 1 HP",
        "the skeleton (monster 0) is slain at row 2, column 3",
        "loot chance (monster): the die shows 2: nothing")


def test_tie_deals_no_damage_by_default(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, CORRIDOR, [3, 3, 2, 4], [(A.A_ATTACK, 0)], sets=STILL)
    has(lines, "6 to 6, a tie: no damage")
    assert row["hp_left"] == 10


def test_tie_ruling_player_wins_ties(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, CORRIDOR, [3, 3, 2, 4], [(A.A_ATTACK, 0)],
                      sets=STILL + ("rulings.ties=player",))
    has(lines, "6 to 6, the adventurer wins: the skeleton loses 1 HP")


def test_monster_attacks_on_the_dm_turn_and_kills(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, CORRIDOR, [6, 1, 1, 6, 6], sets=("player.hp=1", "game.turn_cap=1"))
    assert row["win"] == 0 and row["death_cause"] == A.CAUSE_MONSTER and row["killer"] == 0
    assert row["death_cell"] == 1 * 6 + 1 and row["hp_left"] == 0
    has(lines, "-- the Dungeon Master's turn: 8 AP, 1 monster awake --", "spawn roll: 6: nothing",
        "the DM decides (option 1 of 2): monster 0 attacks (1 AP)",
        "the adventurer is slain by the skeleton at row 2, column 2")


def test_undead_resurrects_when_looted_on_a_six_once(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, CORRIDOR, [6, 5, 1, 1, 6, 6, 1, 1, 6, 6, 6, 1, 1],
                      [(A.A_ATTACK, 0)] * 3 + [move(RIGHT)] * 3, sets=STILL)
    assert row["resurrections"] == 1 and row["kills"] == 2 and row["win"] == 1
    has(lines, "the skeleton (monster 0) comes back to life with 1 HP")
    assert sum("loot chance" in line for line in lines) == 1  # slain again: never looted


def test_ogre_three_sixes_is_a_massive_blow(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#@O.>#\n######", [1, 1, 6, 6, 6], [(A.A_ATTACK, 0)],
                      sets=STILL)
    assert row["hp_left"] == 7
    has(lines, "the monster wins with a massive blow (three sixes): the adventurer loses 3 HP")


def test_storm_golem_drains_ap_when_it_wins_on_the_players_turn(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#@Z.>#\n######", [1, 1, 6, 6], [(A.A_ATTACK, 0)], sets=STILL)
    assert row["hp_left"] == 9
    has(lines, "the adventurer ends the turn (6 AP unused)")


def test_electrified_water_hurts_the_player(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#######\n#@~~~~#\n#>#####\n#######", [6], [move(RIGHT)], sets=STILL,
                      extra="monster: storm_golem 2,6")
    assert row["hp_left"] == 9
    has(lines, "the storm golem (monster 0) electrifies its water: the adventurer takes 1, 0 monsters hit")


def test_ranged_shot_then_the_monster_advances(scripted, tmp_path):
    wishes = [(A.A_INTERACT, A.X_CRATE), (A.A_EQUIP, 5), move(RIGHT), move(RIGHT), (A.A_ATTACK, 0)]
    row, lines = play(scripted, tmp_path, "########\n#@c...S#\n#>######\n########", [1, 1, 5, 1, 1, 6, 6],
                      wishes, sets=STILL)
    has(lines, "found bow (weapon): kept", "wields the bow",
        "ranged shot by the adventurer against the skeleton: 3 to 12, the monster wins: no damage",
        "the skeleton (monster 0) advances to row 2, column 6")
    assert row["hp_left"] == 10


def test_mage_staff_double_six_makes_a_chicken(scripted, tmp_path):
    wishes = [(A.A_INTERACT, A.X_CRATE), (A.A_EQUIP, 6), (A.A_ATTACK, 0)]
    row, lines = play(scripted, tmp_path, "#######\n#@S...#\n#c#####\n#>#####\n#######",
                      [1, 1, 6, 6, 6, 1, 1], wishes, sets=STILL)
    has(lines, "found mage staff (weapon): kept", "double sixes: the skeleton (monster 0) turns into a chicken")


# --- things ------------------------------------------------------------------------------------------------
def test_crate_gives_normal_loot_and_equipping_costs_one(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#@c.>#\n######", [1, 1, 1],
                      [(A.A_INTERACT, A.X_CRATE), (A.A_EQUIP, 1), move(RIGHT), move(RIGHT), move(RIGHT)])
    assert row["loot_found"] == 1 and row["items_used"] == 1 and row["ap_interact"] == 1 and row["ap_use"] == 1
    has(lines, "loot chance (barrel or crate): the die shows 1: normal", "found mace (weapon): kept",
        "now wields the mace (6 AP left)")


def test_chest_trap_on_a_six(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#####\n#@.>#\n#$###\n#####", [6],
                      [(A.A_INTERACT, A.X_CHEST), move(RIGHT), move(RIGHT)])
    assert row["hp_left"] == 9 and row["win"] == 1
    has(lines, "a trap springs: -1 HP (9 left)")


def test_health_potion_heals_up_to_the_cap(scripted, tmp_path):
    wishes = [(A.A_INTERACT, A.X_CHEST), (A.A_INTERACT, A.X_CRATE), (A.A_USE, A.U_HEALTH)]
    row, lines = play(scripted, tmp_path, "######\n#@c.>#\n#$####\n######", [6, 1, 3, 1], wishes, sets=STILL)
    has(lines, "found health potion (potion): kept", "uses the health potion (+1): 10 HP")


def test_key_opens_its_door_and_sight_wakes_the_monster_behind(scripted, tmp_path):
    wishes = [(A.A_INTERACT, A.X_KEY), move(RIGHT), (A.A_INTERACT, A.X_DOOR)]
    row, lines = play(scripted, tmp_path, "#########\n#@rR..S>#\n#########", [], wishes, sets=STILL)
    has(lines, "takes the red key", "the red door at row 2, column 4 opens")
    assert first(lines, "opens") < first(lines, "sees the adventurer and wakes")


def test_rest_skips_the_dm_turn(scripted, tmp_path):
    wishes = [(A.A_REST, 0), move(RIGHT), move(RIGHT)]
    row, lines = play(scripted, tmp_path, "#####\n#@.>#\n#####", [], wishes)
    assert row["rests"] == 1 and row["turns"] == 2 and row["win"] == 1
    assert not any("spawn roll" in line for line in lines)


def test_rest_refused_with_a_monster_in_sight(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#######\n#@..S>#\n#######", [], [(A.A_REST, 0)], sets=STILL, bad=1)
    assert row["rests"] == 0


def test_spawn_roll_spawns_in_the_category_at_a_spawn_point(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#######\n#@..#*#\n#>#####\n#######", [1, 1], sets=("game.turn_cap=1",))
    assert row["spawned"] == 1
    has(lines, "spawn roll: 1: undead", "a skeleton (monster 0) spawns at row 2, column 6, asleep")


def test_magic_chest_rune_knocks_into_lava(scripted, tmp_path):
    wishes = [(A.A_INTERACT, A.X_MAGIC_CHEST), (A.A_USE, A.U_RUNE)]
    row, lines = play(scripted, tmp_path, "########\n#>.@S=.#\n###&####\n########", [1, 3], wishes, sets=STILL)
    assert row["kills"] == 1
    has(lines, "found Rune of Repulsion (magic item): kept",
        "the skeleton (monster 0) is knocked into the lava at row 2, column 6 and dies")


def test_holy_bolt_hits_the_first_undead_in_line(scripted, tmp_path):
    wishes = [(A.A_INTERACT, A.X_MAGIC_CHEST), (A.A_USE, A.U_HOLY_BOLT)]
    row, lines = play(scripted, tmp_path, "#######\n#>@..M#\n##&####\n#######", [1, 4, 2], wishes, sets=STILL)
    has(lines, "the holy bolt strikes the mummy: 4 damage", "the mummy (monster 0) is slain at row 2, column 6")


def test_amulet_brings_the_player_back_at_the_start(scripted, tmp_path):
    wishes = [(A.A_INTERACT, A.X_MAGIC_CHEST)]
    row, lines = play(scripted, tmp_path, "######\n#@S.>#\n#&####\n######", [1, 2, 6, 1, 1, 6, 6],
                      wishes, sets=("player.hp=1", "game.turn_cap=1", "dm.ap=1"))
    assert row["hp_left"] == 1 and row["death_cause"] == A.CAUSE_TURN_CAP and row["items_used"] == 1
    has(lines, "the Amulet of Resurrection brings the adventurer back at row 2, column 2 with 1 HP")


def test_necromancer_revives_a_skeleton_in_sight(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "########\n#@S..N.#\n#>######\n########",
                      [6, 5, 1, 1, 6, 6, 1, 1, 2, 6], [(A.A_ATTACK, 0), (A.A_ATTACK, 0)],
                      sets=("dm.ap=4", "game.turn_cap=1"), dm="ruthless")
    has(lines, "monster 1 revives the skeleton (monster 0) at row 2, column 3 (0 AP left)")


def test_unknown_dm_policy_is_one_line():
    with pytest.raises(InputError) as e:
        T.load_ruleset(None, None, "tutorial", dm="nasty")
    assert e.value.where == "--dm" and "unknown Dungeon Master policy 'nasty'" in e.value.message
    with pytest.raises(InputError) as e:
        T.load_ruleset(None, None, "tutorial", dm="ruthless", dm_param="cruelty=2")
    assert e.value.where == "--dm-param"


# --- the built-in adventurers ------------------------------------------------------------------------------
def builtin(tmp_path, grid, policy, sets=STILL, script=()):
    rs = T.load_ruleset(None, list(sets), level(tmp_path, grid))
    return T.play_one(rs, "adventurer", make_policy(policy, T.POLICIES), 0, 0, list(script))


def test_rush_leaves_the_chest_thorough_opens_it(tmp_path):
    grid = "######\n#@..>#\n#.$###\n######"
    row, lines = builtin(tmp_path, grid, "rush")
    assert row["win"] == 1 and row["ap_interact"] == 0 and row["ap_move"] == 3
    row, lines = builtin(tmp_path, grid, "thorough", script=[2, 4])
    assert row["win"] == 1 and row["ap_interact"] == 1
    has(lines, "open the chest at row 3, column 3", "found some food (food): kept")


def test_thorough_opens_the_door_on_its_way_to_the_loot(tmp_path):
    row, lines = builtin(tmp_path, "#######\n#@gG.c#\n#>#####\n#######", "thorough", ("dm.ap=0",), [6])
    has(lines, "takes the green key", "the green door at row 2, column 4 opens",
        "loot chance (barrel or crate): the die shows 6: nothing", "reaches the exit")
    assert row["ap_interact"] == 3 and row["win"] == 1 and row["turns"] == 2
