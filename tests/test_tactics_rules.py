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
from plain import plain

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


def turn_lines(lines):
    """The player's turn-1 lines, up to the DM's turn."""
    return lines[:first(lines, "Dungeon Master's turn")]


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


def test_the_engine_plays_the_blow_on_the_sixes_the_ruleset_says(scripted, tmp_path):
    """``abilities.triple_six_sixes`` = 2 (printed: three): two sixes of the ogre's three dice are the massive blow."""
    row, lines = play(scripted, tmp_path, "######\n#@O.>#\n######", [1, 1, 6, 6, 1], [(A.A_ATTACK, 0)],
                      sets=(*STILL, "abilities.triple_six_sixes=2"))
    assert row["hp_left"] == 7
    has(lines, "the monster wins with a massive blow (two sixes): the adventurer loses 3 HP")
    row, lines = play(scripted, tmp_path, "######\n#@O.>#\n######", [1, 1, 6, 6, 1], [(A.A_ATTACK, 0)], sets=STILL)
    assert row["hp_left"] == 9  # the printed three: two sixes are a plain loss


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


def test_the_engine_makes_the_chicken_on_the_sixes_the_ruleset_says(scripted, tmp_path):
    """``abilities.chicken_sixes`` = 1 (printed: double sixes): one six among the player's dice makes the chicken."""
    sets = (*STILL, "player.weapon=mage_staff")
    row, lines = play(scripted, tmp_path, "######\n#@S.>#\n######", [6, 1, 1, 1], [(A.A_ATTACK, 0)],
                      sets=(*sets, "abilities.chicken_sixes=1"))
    has(lines, "one six: the skeleton (monster 0) turns into a chicken")
    row, lines = play(scripted, tmp_path, "######\n#@S.>#\n######", [6, 1, 1, 1], [(A.A_ATTACK, 0)], sets=sets)
    assert not any("chicken" in line for line in lines)  # the printed two: one six is a plain win


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


# --- every rule row of docs/rules-tactics.md: AP, monsters, loot, items, shrines, the HP cap -------------------
TWO = ("dm.ap=0", "game.turn_cap=2")  # the monsters do nothing; two rounds
END = (A.A_END, -1)


def test_armour_ap_adds_to_the_players_ap_each_turn(scripted, tmp_path):
    """Tattered robes (ap +2), worn on turn 1: turn 2 starts with 8 + 2 AP."""
    row, lines = play(scripted, tmp_path, "######\n#@c.>#\n######", [1, 2, 1, 6, 6],
                      [(A.A_INTERACT, A.X_CRATE), (A.A_EQUIP, A.EQ_ARMOR + 1), END], sets=TWO)
    has(lines, "found tattered robes (armour): kept", "now wears the tattered robes (6 AP left)",
        "== turn 2: the adventurer at row 2, column 2, 10 HP, 10 AP; 0 monsters awake ==")


def test_shrine_of_weakness_takes_two_from_the_maximum_ap(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#####\n#@.>#\n#_###\n#####", [5, 6, 6], [(A.A_INTERACT, A.X_SHRINE), END],
                      sets=TWO)
    has(lines, "the shrine's die shows 5: Shrine of Weakness",
        "== turn 2: the adventurer at row 2, column 2, 10 HP, 6 AP; 0 monsters awake ==")


def test_a_monster_step_costs_its_ap_move_twice_onto_water(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#######\n#@.~.S#\n#>#####\n#######", [6],
                      sets=("dm.ap=3", "game.turn_cap=1"))
    has(lines, "the skeleton (monster 0) steps to row 2, column 5: 1 AP, 2 left",
        "the skeleton (monster 0) steps to row 2, column 4: 2 AP, 0 left")


def test_an_awake_monster_bee_lines_around_lava(scripted, tmp_path):
    """The skeleton sees the player over the lava; its shortest walk goes down and around, not left into the
    dead end the straight line points at."""
    grid = "#######\n#@.=.S#\n#..=#.#\n#.....#\n#>#####\n#######"
    row, lines = play(scripted, tmp_path, grid, [6], sets=("dm.ap=1", "game.turn_cap=1"))
    has(lines, "the skeleton (monster 0) at row 2, column 6 sees the adventurer and wakes",
        "the skeleton (monster 0) steps to row 3, column 6: 1 AP, 0 left")


@pytest.mark.parametrize("grid, ruling", [("#######\n#@.=~C#\n#>#####\n#######", "flyers"),
                                          ("#######\n#@.=.F#\n#>#####\n#######", "immune_too")])
def test_the_cacodemon_flies_and_the_fire_golem_walks_over_lava(scripted, tmp_path, grid, ruling):
    """The cacodemon crosses lava and water at its ap_move (2, water not doubled); the fire golem walks on lava
    only with ``rulings.lava_walk = "immune_too"`` (the text's lava is impassable to non-flying monsters:
    test_text_audit_tactics.py::test_the_fire_golem_does_not_walk_onto_lava)."""
    row, lines = play(scripted, tmp_path, grid, [6], sets=("dm.ap=4", "game.turn_cap=1", "monsters.cacodemon.range=0",
                                                           "monsters.fire_golem.range=0",
                                                           f"rulings.lava_walk={ruling}"))
    has(lines, "(monster 0) steps to row 2, column 5: 2 AP, 2 left",
        "(monster 0) steps to row 2, column 4: 2 AP, 0 left")


@pytest.mark.parametrize("grid, name, dice", [("#######\n#@..C.#\n#>#####\n#######", "cacodemon", [6, 6, 6]),
                                              ("#######\n#@..F.#\n#>#####\n#######", "fire golem", [6, 6])])
def test_the_cacodemon_and_the_fire_golem_shoot_from_three_tiles(scripted, tmp_path, grid, name, dice):
    row, lines = play(scripted, tmp_path, grid, [6, 1, 1, *dice], sets=("dm.ap=1", "game.turn_cap=1"))
    assert row["hp_left"] == 9
    has(lines, "the DM decides (option 1 of 2): monster 0 shoots (1 AP)",
        f"ranged shot by the monster against the {name}: 2 to {6 * len(dice)}, the monster wins: the adventurer "
        "loses 1 HP")


def test_a_shooter_four_tiles_away_steps_closer_instead(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#######\n#@...C#\n#>#####\n#######", [6],
                      sets=("dm.ap=2", "game.turn_cap=1"))
    assert not any("shoots" in line for line in lines)
    has(lines, "the cacodemon (monster 0) steps to row 2, column 5: 2 AP, 0 left")


def test_berserk_potion_rolls_three_dice_on_the_players_turn_only(scripted, tmp_path):
    """3d6 in the turn it is drunk; 2d6 when the monster attacks on the DM's turn and on the next turn."""
    script = [1, 1, 2, 2, 2, 1, 1, 6, 1, 1, 6, 6, 3, 3, 1, 1, 2, 6]
    wishes = [(A.A_INTERACT, A.X_MAGIC_CHEST), (A.A_USE, A.U_BERSERK), (A.A_ATTACK, 0), END, (A.A_ATTACK, 0)]
    row, lines = play(scripted, tmp_path, "######\n#@S.>#\n#&####\n######", script, wishes,
                      sets=("dm.ap=1", "game.turn_cap=2"))
    has(lines, "found Berserk Potion (magic item): kept", "uses the Berserk Potion (+0): 10 HP, 6 AP")
    assert [line.strip() for line in lines if "the adventurer rolls" in line] == [
        "the adventurer rolls 2 + 2 + 2 = 6", "the adventurer rolls 1 + 1 = 2", "the adventurer rolls 3 + 3 = 6"]


def test_a_slain_boss_loots_magic_on_a_six(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#@N.>#\n######", [6, 6, 1, 1, 6, 4], [(A.A_ATTACK, 0)],
                      sets=STILL + ("monsters.necromancer.hp=1",))
    has(lines, "loot chance (boss): the die shows 6: magic", "found Scroll of Holy Bolt (magic item): kept")


@pytest.mark.parametrize("face, name", [(5, "mummy"), (6, "skeleton")])
def test_a_sarcophagus_springs_a_mummy_on_five_a_skeleton_on_six(scripted, tmp_path, face, name):
    row, lines = play(scripted, tmp_path, "######\n#@..>#\n#+.###\n######", [face],
                      [(A.A_INTERACT, A.X_SARCOPHAGUS)], sets=STILL)
    has(lines, f"loot chance (sarcophagus): the die shows {face}: spawn {name}",
        f"a {name} (monster 0) climbs out at row 3, column 3")


def test_a_duplicate_weapon_is_discarded(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#@c.>#\n#c####\n######", [1, 1, 1] * 2,
                      [(A.A_INTERACT, A.X_CRATE)] * 2, sets=STILL)
    has(lines, "found mace (weapon): kept", "found mace (weapon): a duplicate, discarded")
    assert row["loot_found"] == 2


def test_stamina_potion_gives_four_ap(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#@c.>#\n######", [1, 3, 3],
                      [(A.A_INTERACT, A.X_CRATE), (A.A_USE, A.U_STAMINA)], sets=STILL)
    has(lines, "found stamina potion (potion): kept", "uses the stamina potion (+4): 10 HP, 10 AP")


def test_mystery_potion_does_nothing_by_default(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#@c.>#\n#$####\n######", [6, 1, 3, 5],
                      [(A.A_INTERACT, A.X_CHEST), (A.A_INTERACT, A.X_CRATE), (A.A_USE, A.U_MYSTERY)], sets=STILL)
    has(lines, "found ??? potion (potion): kept", "uses the ??? potion (+0): 9 HP, 5 AP")


def test_food_heals_one(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#@c.>#\n#$####\n######", [6, 1, 4],
                      [(A.A_INTERACT, A.X_CHEST), (A.A_INTERACT, A.X_CRATE), (A.A_USE, A.U_FOOD)], sets=STILL)
    has(lines, "found some food (food): kept", "uses the food (+1): 10 HP, 5 AP")


def test_a_potion_over_its_stack_is_discarded(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#@c.>#\n#c####\n######", [1, 3, 1, 1, 3, 2],
                      [(A.A_INTERACT, A.X_CRATE)] * 2, sets=STILL + ("items.potion_stack=1",))
    has(lines, "found health potion (potion): kept", "found health potion (potion): over the stack, discarded")


def test_food_over_its_stack_is_discarded(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#@c.>#\n######", [1, 4], [(A.A_INTERACT, A.X_CRATE)],
                      sets=STILL + ("items.food_stack=0",))
    has(lines, "found some food (food): over the stack, discarded")


def test_teleport_scroll_jumps_a_locked_door_and_opens_it(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "##########\n#r@..R..>#\n##&#######\n##########", [1, 6],
                      [(A.A_INTERACT, A.X_KEY), (A.A_INTERACT, A.X_MAGIC_CHEST), (A.A_USE, A.U_TELEPORT)], sets=STILL)
    has(lines, "found Scroll of Teleportation (magic item): kept", "the red door at row 2, column 6 opens",
        "teleports from row 2, column 3 to row 2, column 9")
    assert row["win"] == 1 and row["ap_move"] == 0


def test_a_duplicate_magic_item_becomes_food(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "#####\n#@.>#\n#&&##\n#####", [1, 1, 1, 1],
                      [(A.A_INTERACT, A.X_MAGIC_CHEST), move(RIGHT), (A.A_INTERACT, A.X_MAGIC_CHEST)], sets=STILL)
    has(lines, "found Berserk Potion (magic item): a duplicate magic item: food instead",
        "found some food (food): kept")


SHRINE = "#######\n#.@..>#\n##_####\n#######"  # the player between two free tiles, the shrine below


def test_shrine_of_healing_overheals(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, SHRINE, [1], [(A.A_INTERACT, A.X_SHRINE)], sets=STILL)
    assert row["hp_left"] == 12
    has(lines, "the shrine's die shows 1: Shrine of Healing", "+2 HP (12 HP)")


def test_shrine_of_might_adds_one_to_the_players_roll(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, "######\n#@S.>#\n#_####\n######", [2, 3, 3, 2, 4],
                      [(A.A_INTERACT, A.X_SHRINE), (A.A_ATTACK, 0)], sets=STILL)
    has(lines, "Shrine of Might", "the adventurer rolls 3 + 3 = 6",
        "melee against the skeleton: 7 to 6, the adventurer wins")


def test_shrine_of_arms_rolls_the_weapon_chart(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, SHRINE, [3, 2], [(A.A_INTERACT, A.X_SHRINE)],
                      sets=STILL + ("loot.weapon=bow,bow,bow,bow,bow,bow",))
    has(lines, "the shrine's die shows 3: Shrine of Arms", "found bow (weapon): kept")


def test_shrine_of_doom_rings_the_player_with_awake_mummies(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, SHRINE, [6], [(A.A_INTERACT, A.X_SHRINE)], sets=STILL)
    has(lines, "a mummy (monster 0) appears at row 2, column 4 (Shrine of Doom)",
        "a mummy (monster 1) appears at row 2, column 2 (Shrine of Doom)",
        "the adventurer ends the turn (7 AP unused)", "-- the Dungeon Master's turn: 0 AP, 2 monsters awake --")


@pytest.mark.parametrize("decay, hp", [(0, 12), (1, 11)])
def test_overheal_lasts_until_lost_or_decays_by_the_ruling(scripted, tmp_path, decay, hp):
    row, lines = play(scripted, tmp_path, "#####\n#@.>#\n#_###\n#####", [1, 6, 6], [(A.A_INTERACT, A.X_SHRINE), END],
                      sets=TWO + (f"rulings.overheal_decay={decay}",))
    has(lines, f"== turn 2: the adventurer at row 2, column 2, {hp} HP, 8 AP; 0 monsters awake ==")


# --- the adventurer's choices inside a rule: the Shrine of Freedom, the Gambler's Die ---------------------------
DOORS = "##########\n#r@.R.bB>#\n##_#######\n##########"  # the red door 2 steps away, the blue one 5


@pytest.mark.parametrize("color, cell", [(-1, "row 2, column 5"), (2, "row 2, column 8")])
def test_shrine_of_freedom_opens_the_door_the_adventurer_chooses(scripted, tmp_path, color, cell):
    row, lines = play(scripted, tmp_path, DOORS, [4], [(A.A_INTERACT, A.X_SHRINE), (A.A_OPEN_DOOR, color)], sets=STILL)
    has(lines, "the shrine's die shows 4: Shrine of Freedom", f"door at {cell} opens")
    assert sum(" opens" in line for line in lines) == 1


def test_the_builtin_adventurers_free_the_nearest_door_the_first_on_a_tie():
    from foury_sim.games.tactics.policies import freedom_door

    opts = np.zeros((4, A.N_OCOLS), np.int64)
    opts[:, A.O_VALUE] = [5, 2, 7, 2]  # the doors' distances, in reading order
    assert plain(freedom_door)(opts, 4) == 1


@pytest.mark.parametrize("die, cell", [(1, "row 2, column 5"), (2, "row 2, column 8")])
def test_the_random_adventurer_frees_the_door_its_die_picks(tmp_path, die, cell):
    """random draws every choice from the game's dice: 2 (of 5 actions) opens the shrine, the shrine's 4 is
    Freedom, then the door die, then 4 (of 4) ends the turn, the DM's 6 spawns nothing."""
    row, lines = builtin(tmp_path, DOORS, "random", script=[2, 4, die, 4, 6])
    has(lines, "the shrine's die shows 4: Shrine of Freedom", f"(option {die} of 2): open the",
        f"door at {cell} opens")


GAMBLE = "######\n#@c.>#\n#&####\n######"  # the magic chest gives the Gambler's Die (1, 5), then the crate


@pytest.mark.parametrize("wish, found", [(A.A_REROLL, True), (A.A_KEEP, False)])
def test_the_gamblers_die_rerolls_a_loot_chance_when_the_adventurer_wishes(scripted, tmp_path, wish, found):
    row, lines = play(scripted, tmp_path, GAMBLE, [1, 5, 3, 1, 1, 1],
                      [(A.A_INTERACT, A.X_MAGIC_CHEST), (A.A_INTERACT, A.X_CRATE), (wish, A.GB_CHANCE)], sets=STILL)
    has(lines, "found Gambler's Die (magic item): kept", "loot chance (barrel or crate): the die shows 3: nothing")
    assert any("found mace" in line for line in lines) == found
    assert any("uses the Gambler's Die" in line for line in lines) == found
    assert row["items_used"] == int(found)


def test_the_gamblers_die_rerolls_the_category_or_the_item_once(scripted, tmp_path):
    """Food (normal chart 4) is kept, the category rerolled: a weapon (1), the mace (1) kept; the die is spent,
    so the item roll is not asked about."""
    wishes = [(A.A_INTERACT, A.X_MAGIC_CHEST), (A.A_INTERACT, A.X_CRATE), (A.A_KEEP, A.GB_CHANCE),
              (A.A_REROLL, A.GB_CATEGORY)]
    row, lines = play(scripted, tmp_path, GAMBLE, [1, 5, 1, 4, 1, 1], wishes, sets=STILL)
    has(lines, "reroll the loot category with the Gambler's Die", "found mace (weapon): kept")
    assert sum("Gambler's Die" in line for line in lines) == 3  # found, the reroll chosen, used
    assert not any("loot item" in line for line in lines) and row["items_used"] == 1


def test_the_builtin_gamble_rerolls_nothing_and_picky_anything_not_worth_keeping():
    from foury_sim.games.tactics.policies import gamble_choice

    def ask(roll, worth, picky):
        opts = np.zeros((2, A.N_OCOLS), np.int64)
        opts[:, A.O_ARG] = roll
        opts[:, A.O_GOAL] = worth
        return plain(gamble_choice)(opts, picky)

    assert ask(A.GB_CHANCE, A.GB_NOTHING, 0) == 1
    assert [ask(r, w, 0) for r, w in [(A.GB_CHANCE, A.GB_HARM), (A.GB_CATEGORY, A.GB_FOOD),
                                      (A.GB_ITEM, A.GB_NOTHING), (A.GB_CHANCE, A.GB_GOOD)]] == [0, 0, 0, 0]
    assert [ask(r, w, 1) for r, w in [(A.GB_CHANCE, A.GB_HARM), (A.GB_CATEGORY, A.GB_FOOD),
                                      (A.GB_ITEM, A.GB_NOTHING), (A.GB_CHANCE, A.GB_GOOD)]] == [1, 1, 1, 0]


# --- the engine's rulings ([rulings] rest_spawn, electric_turns, revive_lava) ------------------------------------
@pytest.mark.parametrize("ruling, rolled", [("skipped", False), ("rolled", True)])
def test_a_rest_skips_the_dm_turn_and_its_spawn_roll_by_the_ruling(scripted, tmp_path, ruling, rolled):
    row, lines = play(scripted, tmp_path, "#######\n#@..#*#\n#>#####\n#######", [1, 1], [(A.A_REST, 0)],
                      sets=("game.turn_cap=1", f"rulings.rest_spawn={ruling}"))
    assert row["rests"] == 1 and row["spawned"] == int(rolled)
    assert not any("Dungeon Master's turn" in line for line in lines)
    assert any("spawn roll: 1: undead" in line for line in lines) == rolled


@pytest.mark.parametrize("ruling, hp", [("dm", 8), ("every", 7)])
def test_electrified_water_strikes_at_the_turns_the_ruling_says(scripted, tmp_path, ruling, hp):
    """The player steps into the golem's water on turn 1; struck at each DM turn, and with "every" at the start of
    turn 2 too."""
    row, lines = play(scripted, tmp_path, "#######\n#@~~~~#\n#>#####\n#######", [6, 6], [move(RIGHT)],
                      sets=("dm.ap=0", "game.turn_cap=2", f"rulings.electric_turns={ruling}"),
                      extra="monster: storm_golem 2,6")
    assert row["hp_left"] == hp
    assert sum("the adventurer takes 1" in line for line in lines) == 10 - hp


@pytest.mark.parametrize("ruling, revived", [(False, False), (True, True)])
def test_a_skeleton_slain_in_lava_is_revived_only_by_the_ruling(scripted, tmp_path, ruling, revived):
    wishes = [(A.A_INTERACT, A.X_MAGIC_CHEST), (A.A_USE, A.U_RUNE)]
    row, lines = play(scripted, tmp_path, "########\n#>.@S=N#\n###&####\n########", [1, 3, 6], wishes,
                      sets=("dm.ap=4", "game.turn_cap=1", f"rulings.revive_lava={str(ruling).lower()}"), dm="ruthless")
    has(lines, "the skeleton (monster 0) is knocked into the lava at row 2, column 6 and dies")
    assert any("revives the skeleton (monster 0) at row 2, column 6" in line for line in lines) == revived
