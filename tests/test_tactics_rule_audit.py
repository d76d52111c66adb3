"""Tactics rules and rulings of docs/rules-tactics.md that no test checked (the rule audit of session 61): one
scripted-dice test each, on tiny levels drawn here, with the helpers of tests/test_tactics_rules.py.

Every expected value follows from the doc's words (the section is named in each docstring); the dice are the
kernel's order: a roll-off rolls the player's dice, then the monster's; the DM's turn starts with its spawn roll.
"""

from __future__ import annotations

import pytest
from test_tactics_rules import RIGHT, STILL, first, has, move, play

from foury_sim.games import tactics as T
from foury_sim.games.tactics import layout as A
from foury_sim.policy import make_policy

CORRIDOR = "######\n#@S.>#\n######"


@pytest.fixture(scope="module")
def scripted():
    return make_policy("tests/data/tactics_policies.py:scripted", T.POLICIES)


# --- combat: ranged attacks and reach ------------------------------------------------------------------------------
@pytest.mark.parametrize("ruling, kind, hp", [("melee", "melee against the skeleton", 9),
                                              ("ranged", "ranged shot by the adventurer against the skeleton", 10)])
def test_a_bow_against_an_adjacent_monster_follows_the_ranged_adjacent_ruling(scripted, tmp_path, ruling, kind, hp):
    """Rulings, "Ranged weapon against an adjacent monster": "melee" (default) is a melee roll-off, the loser takes
    damage; "ranged" is a ranged shot, only the monster can be hurt. The bow (+1) rolls 1 + 1 + 1 = 3 against the
    skeleton's 12: in melee the adventurer loses 1 HP, as a shot nothing happens."""
    row, lines = play(scripted, tmp_path, CORRIDOR, [1, 1, 6, 6], [(A.A_ATTACK, 0)],
                      sets=STILL + ("player.weapon=bow", f"rulings.ranged_adjacent={ruling}"))
    has(lines, f"{kind}: 3 to 12, the monster wins")
    assert row["hp_left"] == hp


SPEAR = "#######\n#@.S..#\n#>#####\n#######"  # the skeleton two steps right of the player, one tile between


@pytest.mark.parametrize("dice, mon_dmg", [([6, 6, 1, 1], True), ([1, 1, 6, 6], False)])
def test_the_spear_reaches_two_steps_and_its_blow_is_a_ranged_one(scripted, tmp_path, dice, mon_dmg):
    """Rulings, "Spear's reach": reach 2 is a monster two steps away (one tile between). The game, "Ranged attacks":
    from range only the target can be hurt, and the monster advances one tile after the shot. Won (12 + 1 to 2):
    the skeleton loses 1 HP; lost (2 + 1 to 12): no damage to the adventurer; either way it advances to column 3."""
    row, lines = play(scripted, tmp_path, SPEAR, dice, [(A.A_ATTACK, 0)], sets=STILL + ("player.weapon=spear",))
    assert any("ranged shot by the adventurer against the skeleton" in line for line in lines)
    assert any("the skeleton loses 1 HP" in line for line in lines) == mon_dmg
    assert row["hp_left"] == 10
    has(lines, "the skeleton (monster 0) advances to row 2, column 3")


def test_the_literal_spear_reach_of_one_has_no_reach(scripted, tmp_path):
    """Rulings, "Spear's reach": the alternative `1` (the literal reading) is no reach at all: the skeleton two steps
    away cannot be attacked (the wish to attack matches no option)."""
    row, lines = play(scripted, tmp_path, SPEAR, [], [(A.A_ATTACK, 0)],
                      sets=STILL + ("player.weapon=spear", "weapons.spear.reach=1"), bad=1)
    assert not any("attack the monster" in line for line in lines)


def test_a_ranged_attack_needs_a_straight_row_or_column(scripted, tmp_path):
    """Rulings made in the engine: "Ranged attacks ... must be in a straight row or column, within range and in line
    of sight". The skeleton is 1 + 2 = 3 grid steps away (the bow's reach) and in sight (it wakes), but off the
    player's row and column: no attack is offered."""
    row, lines = play(scripted, tmp_path, "#######\n#@....#\n#>.S..#\n#######", [], [(A.A_ATTACK, 0)],
                      sets=STILL + ("player.weapon=bow",), bad=1)
    has(lines, "the skeleton (monster 0) at row 3, column 4 sees the adventurer and wakes")
    assert not any("attack the monster" in line for line in lines)


def test_a_storm_golem_tie_is_not_a_failure(scripted, tmp_path):
    """Rulings, "Storm golem 'fails their combat'": a tie under "nobody" is not a failure, so no AP is drained:
    6 to 6, no damage, and the turn ends with 8 - 1 (the attack) = 7 AP."""
    row, lines = play(scripted, tmp_path, "######\n#@Z.>#\n######", [3, 3, 3, 3], [(A.A_ATTACK, 0)], sets=STILL)
    has(lines, "melee against the storm golem: 6 to 6, a tie: no damage", "the adventurer ends the turn (7 AP unused)")
    assert row["hp_left"] == 10


@pytest.mark.parametrize("ties, dice, hp, mon", [("monster", [3, 3, 2, 4], 9, False),
                                                 ("reroll", [3, 3, 2, 4, 6, 6, 1, 1], 10, True)])
def test_a_tie_in_the_engine_follows_the_ties_ruling(scripted, tmp_path, ties, dice, hp, mon):
    """Rulings, "Tied roll-off": "monster" makes a tie the monster's win (the adventurer loses 1 HP); "reroll"
    rolls both sides again (here 12 to 2 after the 6 to 6: the skeleton loses 1 HP)."""
    row, lines = play(scripted, tmp_path, CORRIDOR, dice, [(A.A_ATTACK, 0)], sets=STILL + (f"rulings.ties={ties}",))
    assert row["hp_left"] == hp
    assert any("the skeleton loses 1 HP" in line for line in lines) == mon


def test_a_slain_chicken_is_not_looted(scripted, tmp_path):
    """Rulings, "The mage staff's chicken" and "The chicken" (1 HP, -2 on its roll), and "Rulings made in the
    engine" (not looted: a chicken). The staff's double six makes the skeleton a chicken with no damage; the next
    blow (11 + 2 to 1 - 2) slays it: one kill, no loot roll."""
    row, lines = play(scripted, tmp_path, CORRIDOR, [6, 6, 1, 1, 6, 5, 1], [(A.A_ATTACK, 0), (A.A_ATTACK, 0)],
                      sets=STILL + ("player.weapon=mage_staff",))
    has(lines, "double sixes: the skeleton (monster 0) turns into a chicken", "melee against the chicken: 13 to -1",
        "the chicken (monster 0) is slain at row 2, column 3")
    assert row["kills"] == 1 and row["hp_left"] == 10
    assert not any("loot chance" in line for line in lines)


# --- monsters blocking, moving ---------------------------------------------------------------------------------------
def test_monsters_block_the_player_unless_the_ruling_says_otherwise(scripted, tmp_path):
    """Rulings, "Monsters blocking": true (default), the player cannot pass a monster; false, the player may pass
    them. In the corridor the skeleton stands between the player and the exit: blocked (the wish to step onto it
    matches no option), and with `monsters_block = false` the player walks through and wins, the first step
    costing `ap.move_combat` = 2 (it starts next to the awake skeleton: "Moving during combat")."""
    row, lines = play(scripted, tmp_path, CORRIDOR, [], [move(RIGHT)], sets=STILL, bad=1)
    assert not any("moves right" in line for line in lines) and row["win"] == 0
    row, lines = play(scripted, tmp_path, CORRIDOR, [], [move(RIGHT)] * 3,
                      sets=STILL + ("rulings.monsters_block=false",))
    has(lines, "moves right to row 2, column 3: 2 AP, 6 left")
    assert row["win"] == 1


def test_a_step_beside_an_awake_monster_costs_the_combat_move_whichever_way(scripted, tmp_path):
    """Rulings made in the engine, "Moving during combat": a step that starts orthogonally next to an awake monster
    costs `ap.move_combat` (2) whichever way it goes (here sideways, not away); the next step, from a tile next
    to no monster, costs `ap.move` (1)."""
    row, lines = play(scripted, tmp_path, "######\n#.@..#\n#>S###\n######", [], [move(RIGHT), move(RIGHT)],
                      sets=STILL)
    has(lines, "moves right to row 2, column 4: 2 AP, 6 left", "moves right to row 2, column 5: 1 AP, 5 left")


def test_lava_is_impassable_to_the_player(scripted, tmp_path):
    """The game, "Moving": lava and walls are impassable: the step right onto the lava is not offered."""
    row, lines = play(scripted, tmp_path, "#####\n#@=.#\n#..>#\n#####", [], [move(RIGHT)], sets=STILL, bad=1)
    assert not any("moves right" in line for line in lines)


def test_a_monster_does_not_close_in_after_its_own_shot(scripted, tmp_path):
    """Rulings, "Monster ranged shots": only the player can be hurt, and the monster does not close in after its own
    shot (unlike the player's shot). The cacodemon three tiles away shoots twice with the DM's 2 AP (18 to 2,
    11 to 7): the adventurer loses 2 HP and the cacodemon neither advances nor steps."""
    row, lines = play(scripted, tmp_path, "#######\n#@..C.#\n#>#####\n#######", [6, 1, 1, 6, 6, 6, 1, 6, 5, 3, 3],
                      sets=("dm.ap=2", "game.turn_cap=1"))
    assert sum("ranged shot by the monster against the cacodemon" in line for line in lines) == 2
    assert row["hp_left"] == 8
    assert not any("advances" in line or "steps to" in line for line in lines)


# --- magic items ---------------------------------------------------------------------------------------------------
RUNE = [(A.A_INTERACT, A.X_MAGIC_CHEST), (A.A_USE, A.U_RUNE)]  # the magic chest's 1 (magic), the chart's 3 (rune)


@pytest.mark.parametrize("letter, name, to", [("S", "skeleton", 7), ("O", "ogre", 6)])
def test_the_rune_knocks_a_small_monster_two_tiles_and_a_large_one_one(scripted, tmp_path, letter, name, to):
    """The game, "Magic loot": the rune's knock-back is 2 tiles for a small monster, 1 for a large one (the ogre):
    from column 5 to column 7, or to column 6."""
    row, lines = play(scripted, tmp_path, f"#########\n#>.@{letter}...#\n###&#####\n#########", [1, 3], RUNE,
                      sets=STILL)
    has(lines, f"the {name} (monster 0) is knocked back to row 2, column {to}")


def test_the_rune_knocks_back_every_neighbour_and_walls_stop_them(scripted, tmp_path):
    """Rulings made in the engine, "The rune": every monster next to the player is knocked back, stopped by walls:
    both skeletons move one tile only (a wall behind each after one)."""
    row, lines = play(scripted, tmp_path, "########\n#>S@S.##\n#..&####\n########", [1, 3], RUNE, sets=STILL)
    has(lines, "the skeleton (monster 0) is knocked back to row 2, column 2",
        "the skeleton (monster 1) is knocked back to row 2, column 6")


def test_a_monster_knocked_into_lava_is_a_kill_with_no_loot(scripted, tmp_path):
    """Rulings made in the engine (the kill is looted, "Not looted: ... a monster knocked into lava by the rune
    (a kill, no loot)"): one kill, and the only loot roll is the magic chest's."""
    row, lines = play(scripted, tmp_path, "########\n#>.@S=.#\n###&####\n########", [1, 3], RUNE, sets=STILL)
    assert row["kills"] == 1
    assert [line.strip() for line in lines if "loot chance" in line] == ["loot chance (magic chest): the die shows 1: "
                                                                        "magic"]


def test_the_holy_bolt_is_stopped_by_the_first_monster_and_spares_a_non_undead(scripted, tmp_path):
    """Rulings made in the engine, "The holy bolt": it flies to the first monster in the row, and deals
    `magic.holy_bolt` to an undead, nothing to others: the stone golem in front takes 0, the mummy behind it is
    not struck (nobody is slain)."""
    row, lines = play(scripted, tmp_path, "########\n#>@.TM.#\n##&#####\n########", [1, 4],
                      [(A.A_INTERACT, A.X_MAGIC_CHEST), (A.A_USE, A.U_HOLY_BOLT)], sets=STILL)
    has(lines, "the holy bolt strikes the stone golem: 0 damage")
    assert not any("strikes the mummy" in line for line in lines)
    assert row["kills"] == 0


# --- potions -------------------------------------------------------------------------------------------------------
MYSTERY = "######\n#@c.>#\n#$####\n######"  # the chest's trap (6) leaves 9 HP; the crate's 1, 3, 5: the ??? potion
MYSTERY_WISHES = [(A.A_INTERACT, A.X_CHEST), (A.A_INTERACT, A.X_CRATE), (A.A_USE, A.U_MYSTERY)]


@pytest.mark.parametrize("ruling, extra, hp, ap", [("health", [], 10, 5), ("stamina", [], 9, 9),
                                                   ("gamble", [3], 10, 5), ("gamble", [4], 7, 5)])
def test_the_mystery_potion_follows_its_ruling(scripted, tmp_path, ruling, extra, hp, ap):
    """Rulings, "The '???' potion": "health" acts as the health potion (+2, up to the cap: 9 -> 10), "stamina" as
    the stamina potion (+4 AP: 5 -> 9), "gamble" rolls a d6: 1-3 +`items.gamble_hp` (2, capped: 10), 4-6 -2 (7).
    AP: 8 - 1 (chest) - 1 (crate) - 1 (the potion) = 5."""
    row, lines = play(scripted, tmp_path, MYSTERY, [6, 1, 3, 5, *extra], MYSTERY_WISHES,
                      sets=STILL + (f"rulings.mystery_potion={ruling}",))
    has(lines, "found ??? potion (potion): kept", "uses the ??? potion",
        f"the adventurer ends the turn ({ap} AP unused)")
    assert row["hp_left"] == hp
    used = next(line for line in lines if "uses the ??? potion" in line)
    assert used.endswith(f": {hp} HP, {ap} AP")  # (after the use: a gamble's loss included, it said 9 HP for 7)


# --- spawning ------------------------------------------------------------------------------------------------------
SPAWN = "#######\n#@..#*#\n#>#####\n#######"  # a spawn point out of the player's sight


@pytest.mark.parametrize("ruling, dice, said", [("reroll", [6, 1], "spawn roll: 6: roll again"),
                                                ("any", [6], "spawn roll: 6: any category (the DM's choice)")])
def test_the_spawn_charts_six_follows_the_spawn6_ruling(scripted, tmp_path, ruling, dice, said):
    """Rulings, "Spawn chart 6": "reroll" rolls the chart again (then a 1: undead), "any" lets the DM pick a
    category: either way a monster spawns at the spawn point, asleep ("Spawned monsters start asleep")."""
    row, lines = play(scripted, tmp_path, SPAWN, dice, sets=("game.turn_cap=1", f"rulings.spawn6={ruling}"))
    has(lines, said, "spawns at row 2, column 6, asleep")
    assert row["spawned"] == 1


def test_a_spawned_monster_that_sees_the_player_wakes_at_once(scripted, tmp_path):
    """Rulings made in the engine: "Spawned monsters start asleep, but wake at once if they see the player"."""
    row, lines = play(scripted, tmp_path, "#######\n#@...*#\n#>#####\n#######", [1],
                      sets=("game.turn_cap=1", "dm.ap=0"))
    i = first(lines, "a skeleton (monster 0) spawns at row 2, column 6, asleep")
    assert "the skeleton (monster 0) at row 2, column 6 sees the adventurer and wakes" in lines[i + 1]


def test_a_sarcophagus_monster_starts_awake(scripted, tmp_path):
    """Rulings made in the engine: "monsters from a sarcophagus ... start awake", on the first free neighbour of the
    sarcophagus (up is the player's tile, so right): the DM's turn counts 1 monster awake."""
    row, lines = play(scripted, tmp_path, "######\n#@..>#\n#+.###\n######", [5],
                      [(A.A_INTERACT, A.X_SARCOPHAGUS)], sets=STILL)
    has(lines, "a mummy (monster 0) climbs out at row 3, column 3",
        "-- the Dungeon Master's turn: 0 AP, 1 monster awake --")


# --- electrified water ---------------------------------------------------------------------------------------------
def test_electrified_water_hurts_every_monster_in_it_but_the_golem_and_its_kills_are_not_the_players(
        scripted, tmp_path):
    """Rulings made in the engine, "Electrified water": it hurts every monster in the water connected to the golem
    (fliers too), except the storm golem itself; monsters it kills are not the player's kills, nor looted. The
    skeleton (1 HP) and the cacodemon (a flier) stand in the golem's water, the player on dry floor: 2 monsters hit,
    the skeleton dies, 0 kills, 0 HP lost, no loot roll."""
    row, lines = play(scripted, tmp_path, "#######\n#@.~~~#\n#>#####\n#######", [6], [],
                      sets=STILL + ("monsters.skeleton.hp=1",),
                      extra="monster: storm_golem 2,6\nmonster: skeleton 2,5\nmonster: cacodemon 2,4")
    has(lines, "the skeleton (monster 1) dies at row 2, column 5",
        "the storm golem (monster 0) electrifies its water: the adventurer takes 0, 2 monsters hit")
    assert row["kills"] == 0 and row["hp_left"] == 10
    assert not any("loot chance" in line for line in lines)


def test_a_sleeping_storm_golem_does_not_electrify(scripted, tmp_path):
    """Rulings made in the engine, "Electrified water": "a sleeping golem does not electrify". The player steps
    into water connected to a storm golem round a corner, out of its sight: no strike on the DM's turn, 10 HP."""
    row, lines = play(scripted, tmp_path, "#######\n#@~~~~#\n#>###~#\n#####~#\n#######", [6], [move(RIGHT)],
                      sets=STILL, extra="monster: storm_golem 4,6")
    has(lines, "moves right to row 2, column 3: 2 AP, 6 left",
        "-- the Dungeon Master's turn: 0 AP, 0 monsters awake --")
    assert not any("electrifies" in line for line in lines) and row["hp_left"] == 10


# --- things and keys -----------------------------------------------------------------------------------------------
def test_a_key_opens_every_door_of_its_colour(scripted, tmp_path):
    """Rulings made in the engine: "Keys stay held after opening a door: a key opens every door of its colour".
    One red key opens both red doors; 8 AP: key 1, three steps, two doors, two steps to the exit."""
    wishes = [(A.A_INTERACT, A.X_KEY), move(RIGHT), (A.A_INTERACT, A.X_DOOR), move(RIGHT), move(RIGHT),
              (A.A_INTERACT, A.X_DOOR), move(RIGHT), move(RIGHT)]
    row, lines = play(scripted, tmp_path, "########\n#@rR.R>#\n########", [], wishes, sets=STILL)
    has(lines, "the red door at row 2, column 4 opens", "the red door at row 2, column 6 opens")
    assert row["win"] == 1


def test_a_used_shrine_keeps_blocking_an_opened_crate_is_gone(scripted, tmp_path):
    """Rulings made in the engine, "Things block movement until used up": a crate is gone once opened (the player
    steps onto its tile and on to the exit); a shrine stays on its tile, used, and keeps blocking."""
    row, lines = play(scripted, tmp_path, "######\n#@c.>#\n#....#\n######", [6],
                      [(A.A_INTERACT, A.X_CRATE), move(RIGHT), move(RIGHT), move(RIGHT)], sets=STILL)
    has(lines, "moves right to row 2, column 3: 1 AP, 6 left")
    assert row["win"] == 1
    row, lines = play(scripted, tmp_path, "######\n#@_.>#\n#....#\n######", [2],
                      [(A.A_INTERACT, A.X_SHRINE), move(RIGHT)], sets=STILL, bad=1)
    has(lines, "the shrine's die shows 2: Shrine of Might")
    assert not any("moves right" in line for line in lines)


def test_the_gamblers_die_is_never_offered_for_a_shrine_roll(scripted, tmp_path):
    """Rulings made in the engine, "The Gambler's Die": never for shrine or spawn rolls. Held (the magic chest's
    1, the chart's 5), it is not offered for the shrine's roll (1: healing, +2 HP) and stays unused."""
    row, lines = play(scripted, tmp_path, "######\n#@..>#\n#&_###\n######", [1, 5, 1, 6],
                      [(A.A_INTERACT, A.X_MAGIC_CHEST), move(RIGHT), (A.A_INTERACT, A.X_SHRINE)], sets=STILL)
    has(lines, "found Gambler's Die (magic item): kept", "the shrine's die shows 1: Shrine of Healing")
    assert sum("Gambler's Die" in line for line in lines) == 1 and row["items_used"] == 0 and row["hp_left"] == 12


# --- the mage staff's chicken: bosses too, and berserk's three dice ---------------------------------------------------
OGRE = "######\n#@O.>#\n######"  # the ogre: a boss (`abilities = ["boss", ...]`), 10 HP, 3 dice


def test_the_mage_staffs_chicken_is_made_of_a_boss_too(scripted, tmp_path):
    """Rulings, "The mage staff's chicken": two sixes among the player's dice in any roll-off with the staff: the
    monster becomes a chicken (full chicken HP), no damage either way; "bosses too". The staff (+2) rolls 6 + 6 + 2 =
    14 against the ogre's 1 + 1 + 1 = 3: no damage, the 10-HP ogre is a chicken. "The chicken": 1 HP, -2 on its
    roll (1 die): the next blow, 6 + 5 + 2 = 13 against 1 - 2 = -1, takes its 1 HP: one kill, 10 HP kept, and no
    loot roll (Rulings made in the engine: a chicken is not looted)."""
    row, lines = play(scripted, tmp_path, OGRE, [6, 6, 1, 1, 1, 6, 5, 1, 6], [(A.A_ATTACK, 0), (A.A_ATTACK, 0)],
                      sets=STILL + ("player.weapon=mage_staff",))
    has(lines, "melee against the ogre: 14 to 3, the adventurer wins: no damage",
        "double sixes: the ogre (monster 0) turns into a chicken", "melee against the chicken: 13 to -1",
        "the chicken (monster 0) is slain at row 2, column 3")
    assert row["kills"] == 1 and row["hp_left"] == 10
    assert not any("loot chance" in line for line in lines)


BERSERK_STAFF = "######\n#@S.>#\n#&####\n######"  # the magic chest's 1 (magic), the chart's 1: the Berserk Potion


@pytest.mark.parametrize("dice", [[6, 1, 6], [1, 6, 6]])
def test_berserk_makes_a_chicken_on_any_two_of_its_three_dice(scripted, tmp_path, dice):
    """Rulings, "The mage staff's chicken": "two sixes among the player's dice (berserk: any two of three)". With the
    Berserk Potion drunk (3 dice: The game, "Berserk Potion") the sixes on the first and third die, or on the second
    and third, make the skeleton a chicken: no damage (13 + 2 = 15 to 1 + 1 = 2, a win that deals nothing)."""
    row, lines = play(scripted, tmp_path, BERSERK_STAFF, [1, 1, *dice, 1, 1, 6],
                      [(A.A_INTERACT, A.X_MAGIC_CHEST), (A.A_USE, A.U_BERSERK), (A.A_ATTACK, 0)],
                      sets=STILL + ("player.weapon=mage_staff",))
    has(lines, "found Berserk Potion (magic item): kept",
        "the adventurer rolls {} + {} + {} = 13".format(*dice),
        "melee against the skeleton: 15 to 2, the adventurer wins: no damage",
        "double sixes: the skeleton (monster 0) turns into a chicken")


def test_berserk_with_one_six_of_three_is_a_plain_win(scripted, tmp_path):
    """Rulings, "The mage staff's chicken": it needs two sixes; one six among the berserk's three dice is a plain
    win (6 + 1 + 1 + 2 = 10 to 2): the skeleton (2 HP) loses 1 HP and stays a skeleton."""
    row, lines = play(scripted, tmp_path, BERSERK_STAFF, [1, 1, 6, 1, 1, 1, 1, 6],
                      [(A.A_INTERACT, A.X_MAGIC_CHEST), (A.A_USE, A.U_BERSERK), (A.A_ATTACK, 0)],
                      sets=STILL + ("player.weapon=mage_staff",))
    has(lines, "melee against the skeleton: 10 to 2, the adventurer wins: the skeleton loses 1 HP")
    assert not any("chicken" in line for line in lines)


# --- the Amulet of Resurrection -------------------------------------------------------------------------------------
def test_the_amulet_brings_the_player_back_where_they_fell_when_a_monster_stands_on_the_start(scripted, tmp_path):
    """Rulings made in the engine, "The Amulet of Resurrection": at 0 HP the player comes back with full HP (the cap)
    at the start tile, "where they fell if a monster stands on it", keeping every item. Turn 1: the magic chest's
    1 (magic) and the chart's 2 give the amulet; the player (1 HP) steps right off the start (column 3 to 4). The DM
    (2 AP) steps the skeleton from column 2 onto the start and attacks: 2 to 12, the player falls at column 4 and
    comes back there (the start is taken) with 1 HP. Turn 2 starts at column 4, and one step right (2 AP: next to
    the awake skeleton) reaches the exit at column 5: a win (the start is two steps from it)."""
    row, lines = play(scripted, tmp_path, "######\n#S@.>#\n##&###\n######", [1, 2, 6, 1, 1, 6, 6],
                      [(A.A_INTERACT, A.X_MAGIC_CHEST), move(RIGHT), (A.A_END, -1), move(RIGHT)],
                      sets=("player.hp=1", "game.turn_cap=2", "dm.ap=2"))
    has(lines, "the skeleton (monster 0) steps to row 2, column 3", "the adventurer loses 1 HP",
        "the Amulet of Resurrection brings the adventurer back at row 2, column 4 with 1 HP (where they fell: a "
        "monster stands on the start)",  # (it named the start, row 2, column 3)
        "== turn 2: the adventurer at row 2, column 4, 1 HP, 8 AP; 1 monster awake ==",
        "moves right to row 2, column 5: 2 AP, 6 left")
    assert row["win"] == 1 and row["turns"] == 2 and row["items_used"] == 1 and row["hp_left"] == 1


# --- the sarcophagus's free neighbour ---------------------------------------------------------------------------------
@pytest.mark.parametrize("grid, cell", [
    ("#####\n#@.>#\n#+###\n#.###\n#####", "row 4, column 2"),  # up: the player; right: a wall; down: free
    ("######\n#.@.>#\n#.+c##\n######", "row 3, column 2"),  # up: the player; right: a crate; down: a wall; left
])
def test_a_sarcophagus_monster_takes_the_first_free_neighbour_up_right_down_left(scripted, tmp_path, grid, cell):
    """Rulings made in the engine: "A sarcophagus's mummy or skeleton appears on the first free neighbour of the
    sarcophagus (up, right, down, left)". Up is the player's tile in both levels; with the right taken (a wall, or
    a crate: things block until used up) the mummy (the loot die's 5) climbs out below; with the right and below
    taken, on the left."""
    row, lines = play(scripted, tmp_path, grid, [5, 6], [(A.A_INTERACT, A.X_SARCOPHAGUS)], sets=STILL)
    has(lines, "loot chance (sarcophagus): the die shows 5: spawn mummy", f"a mummy (monster 0) climbs out at {cell}")


def test_a_sarcophagus_with_no_free_neighbour_springs_nothing(scripted, tmp_path):
    """Rulings made in the engine: the sarcophagus's monster appears on the first free neighbour, "none if all are
    taken". Up is the player, right, down and left are walls: the 6 (spawn skeleton) springs no monster, and the
    DM's turn counts 0 monsters awake."""
    row, lines = play(scripted, tmp_path, "#####\n#@.>#\n#+###\n#####", [6, 6], [(A.A_INTERACT, A.X_SARCOPHAGUS)],
                      sets=STILL)
    has(lines, "loot chance (sarcophagus): the die shows 6: spawn skeleton",
        "-- the Dungeon Master's turn: 0 AP, 0 monsters awake --")
    assert not any("climbs out" in line for line in lines)
