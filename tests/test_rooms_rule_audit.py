"""Rules of docs/rules-rooms.md that had no test of their own (the rule-coverage audit). Fights are played with every
die scripted through ``combat.play_fight`` (tests/rooms_fight_stub.py, as in tests/test_rooms_combat.py: a hand is
written as face indices, the script holds face + 1); navigation through whole scripted games on tiny fixed dungeons
(``play`` of tests/test_rooms_nav.py and its ``scripted`` policy). Every expected number is worked out in the
docstring from the rule as the doc writes it, citing its section."""

from __future__ import annotations

import numpy as np
import pytest
import test_rooms_combat
from rooms_fight_stub import ST_SIZE, events, run_fight
from test_rooms_combat import ALL, OGRE, RAIN, RAT, VOLLEY, asked, check_scripted, h, with_combat, with_monster
from test_rooms_nav import ONE_TURN, E, S, W, has, move, play

from foury_sim.games import rooms as R
from foury_sim.games.rooms import combat as C
from foury_sim.games.rooms import layout as L
from foury_sim.policy import make_policy

VOLLEY_HAND = [1, 2, 3, 4, 5]  # the ranger's 1 2 3 4 5: three arrows; Volley (4 damage) is the first ability made


# the heroes (``rules``) and the packed ranger (``ranger``): the fixtures of the fight tests, one definition
rules, ranger = test_rooms_combat.rules, test_rooms_combat.ranger


@pytest.fixture(scope="module")
def scripted():
    return make_policy("tests/data/rooms_policies.py:scripted", R.POLICIES)


# --- a fight -------------------------------------------------------------------------------------------------------
def test_an_attack_of_nothing_leaves_the_block_token(rules):
    """"A fight", Meeting an attack: "an attack of 0 does nothing (the block token stays); else the block token
    absorbs first and is spent whole". Paladin (34 HP) against a rat (6 HP; 1 d6: 0 1 1 1 2 2). Turn 1: 1 3 4 5 6
    (three shields) makes Shield Bash alone: 2 damage (rat 4 HP left), block 3. The rat rolls a 1: 0 damage, the
    token stays. Turn 2: 1 2 3 4 6 makes nothing; the rat rolls a 6: 2 damage, absorbed by the token (spent whole,
    no defensive roll: no dice rolled for it), 34 HP. Turn 3: 1 1 1 3 6 (three swords) makes Strike alone: 4
    damage kills the rat."""
    fx = C.pack_fight(rules, "paladin")
    script = h(0, 2, 3, 4, 5) + [1] + h(0, 1, 2, 3, 5) + [6] + h(0, 0, 0, 2, 5)
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL, ALL, ALL])
    check_scripted(st, pol, dice, script)
    assert events(dice, st, L.EV_ATTACK) == [(L.EV_ATTACK, 0, 0, 0, 0, 0, 0, 34), (L.EV_ATTACK, 0, 2, 2, 0, 0, 0, 34)]
    assert not events(dice, st, L.EV_DEF_ROLL)
    assert res == L.FIGHT_WON and st[L.S_HP] == 34 and st[L.S_BLOCK] == 0 and st[L.S_DEALT] == 6


def test_the_counter_hits_even_when_the_attack_kills_the_hero(rules):
    """"A turn of combat dice", Defensive roll: each face "deals counter[i] back (unblockable, even when the attack
    kills)"; Fight rulings: "its counter hits even when the attack kills the hero". Berserker at 1 HP (defence: 1
    die, block 0 0 0 0 1 1, counter 1 on a 5). Turn 1: 1 2 3 5 6 makes Hack alone, 3 damage: the rat has 3 HP
    left. The rat rolls a 6: 2 damage; the defence die shows 5: 1 blocked, 1 countered; the hero loses 1 and dies
    at 0 HP, and the counter still takes the rat to 2 HP: 3 + 1 = 4 HP dealt in the fight."""
    fx = C.pack_fight(rules, "berserker")
    st = np.zeros(ST_SIZE, dtype=np.int64)
    C.hero_start(fx, st)
    st[L.S_HP] = 1
    script = h(0, 1, 2, 4, 5) + [6] + h(4)
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL], st=st)
    check_scripted(st, pol, dice, script)
    assert res == L.FIGHT_DIED and st[L.S_HP] == 0 and st[L.S_KILLER] == 1 + RAT
    assert events(dice, st, L.EV_ATTACK) == [(L.EV_ATTACK, 0, 2, 0, 1, 1, 1, 0)]
    assert st[C.mon(0, L.MON_HP)] == 6 - 3 - 1 and st[L.S_DEALT] == 4


def test_a_fight_starts_without_the_last_fights_statuses(ranger):
    """"A fight", Start: "CP set to cp_start; the hero's poison, stun and block cleared; HP carry over"; Fight
    rulings: "CP, poison, stun and block end with the fight (HP do not)". The hero comes in at 25 HP with 10 CP, 2
    poison, 1 stun and a block token of 5 left over. None acts: turn 1 has no poison tick and is not skipped (the
    dice are rolled), CP read cp_start 2 + 1; the rat's 2 damage is not absorbed by a token, it meets the defensive
    roll (1 1: nothing blocked): 23 HP. Turn 2: Volley (4) kills the 4-HP rat."""
    fx = with_monster(ranger, RAT, M_HP=4)
    st = np.zeros(ST_SIZE, dtype=np.int64)
    C.hero_start(fx, st)
    st[L.S_HP] = 25
    st[L.S_CP] = 10
    st[L.S_POISON] = 2
    st[L.S_STUN] = 1
    st[L.S_BLOCK] = 5
    script = h(0, 1, 3, 3, 5) + [6] + h(0, 0) + h(0, 1, 2, 3, 3)
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL, ALL, VOLLEY], st=st)
    check_scripted(st, pol, dice, script)
    assert not events(dice, st, L.EV_POISON_TICK) and not events(dice, st, L.EV_STUNNED)
    assert events(dice, st, L.EV_ATTACK) == [(L.EV_ATTACK, 0, 2, 0, 0, 0, 2, 23)]
    assert [k for k, _ in asked(pol)][0] == L.D_KEEP  # turn 1 rolled its dice
    assert res == L.FIGHT_WON and st[L.S_HP] == 23 and st[L.S_CP] == 2 + 1 + 1
    assert (st[L.S_POISON], st[L.S_STUN], st[L.S_BLOCK]) == (0, 0, 0)


def test_poison_and_stun_land_only_on_a_monster_that_survives(ranger):
    """"A fight", Damage: "poison and stun land only on a monster that survives". Hawkeye (5 unblockable, stun 1) on
    a 5-HP rat kills it: no stun on its slot. On a 9-HP rat it survives at 4 HP with 1 stun, and its attack is
    skipped (Stun: "a stunned fighter skips its next attack")."""
    eyes = h(0, 1, 5, 5, 5)  # 1 2 6 6 6: three eyes, Hawkeye alone
    fx = with_monster(ranger, RAT, M_HP=5)
    res, st, pol, dice = run_fight(fx, [RAT], eyes, answers=[ALL])
    check_scripted(st, pol, dice, eyes)
    assert res == L.FIGHT_WON and st[C.mon(0, L.MON_STUN)] == 0 and st[C.mon(0, L.MON_HP)] == 0
    fx = with_monster(ranger, RAT, M_HP=9)
    res, st, pol, dice = run_fight(fx, [RAT], eyes + eyes, answers=[ALL, ALL])
    check_scripted(st, pol, dice, eyes + eyes)  # no die for a rat attack: it was stunned
    assert events(dice, st, L.EV_STUNNED) == [(L.EV_STUNNED, 0, 0, 0, 0, 0, 0, 0)] and not events(dice, st, L.EV_ATTACK)
    assert res == L.FIGHT_WON and st[L.S_HP] == 30


# --- room kinds ----------------------------------------------------------------------------------------------------
def test_a_monster_room_is_a_fight_at_once_and_pays_its_gold(scripted, tmp_path):
    """Navigation, room kinds: "monster ...: a fight against the card's monsters, gold for winning"; [rooms.monster]
    is a hazard (resolved on entry, no question). The rat den (2 rats, gold 2; rats at 1 HP here) is entered from
    the start: turn 1 Volley kills rat 1, rat 2 rolls a 1 (0 damage), turn 2 Volley kills rat 2. Won: 2 gold, 30
    HP, one fight won, the room resolved."""
    row, lines = play(scripted, tmp_path, "start  rat_den  dragon_lair", [move(E)], VOLLEY_HAND + [1] + VOLLEY_HAND,
                      sets=(*ONE_TURN, "monsters.rat.hp=1"))
    has(lines, "a fight in the monster room: rat, rat", "the fight is won in 2 fight turns")
    assert (row["gold_left"], row["hp_left"], row["fights"], row["fights_won"]) == (2, 30, 1, 1)
    assert row["resolved_monster"] == 1


def test_a_bounty_hunter_room_is_an_optional_fight_for_its_gold(scripted, tmp_path):
    """Navigation, room kinds: "monster and bounty hunter: a fight against the card's monsters, gold for winning";
    [rooms.bounty_hunter] is no hazard, so entering asks D_RESOLVE. Left for later: no fight, no gold. Resolved:
    the ogre (1 HP here) dies to Volley, the card's 6 gold are won."""
    grid = "bounty_hunter  start  dragon_lair"
    sets = (*ONE_TURN, "monsters.ogre.hp=1")
    row, lines = play(scripted, tmp_path, grid, [move(W, resolve=-1)], sets=sets)
    assert (row["fights"], row["gold_left"], row["resolved_bounty_hunter"]) == (0, 0, 0)
    has(lines, "- resolve: leave it for later")
    row, lines = play(scripted, tmp_path, grid, [move(W, resolve=0)], VOLLEY_HAND, sets=sets)
    has(lines, "a fight in the bounty hunter room: ogre")
    assert (row["fights_won"], row["gold_left"], row["resolved_bounty_hunter"]) == (1, 6, 1)


def test_the_shop_sells_one_item(scripted, tmp_path):
    """Navigation, room kinds: "shop: one purchase at items.prices". With 16 gold the hero buys a key (3 gold): 13
    gold left, 2 keys; the shop is resolved, so a second purchase is not offered (the wish to resolve it again
    matches no option: one bad answer)."""
    wishes = [move(E, L.IT_KEY, 0), (L.A_RESOLVE, 0, L.IT_BOMB, -1)]
    sets = (*ONE_TURN, "navigation.start_gold=16")
    row, lines = play(scripted, tmp_path, "start  shop  dragon_lair", wishes, sets=sets, bad=1)
    has(lines, "gets a key from the shop room (2 keys now)")
    assert (row["gold_left"], row["resolved_shop"]) == (13, 1)


# --- items ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("heal, hp", [(2, 27 + 2), (6, 30)])
def test_a_potion_is_drunk_as_an_action_and_heals_up_to_the_most_hp(scripted, tmp_path, heal, hp):
    """Items: "potions (items.potion_heal HP, drunk as an action)"; [items] potion_heal: "HP a potion gives back (up
    to the most HP)". The trap (d6 of 1, not dodged) takes 3 of 30 HP: 27. The starting potion heals 2 (29), or
    6 capped at the most HP (30). It is no move (1 move, the step into the trap)."""
    row, lines = play(scripted, tmp_path, "start  spike_trap  fountain  dragon_lair", [move(E), (L.A_POTION, 0, 0, -1)],
                      [1], sets=(*ONE_TURN, f"items.potion_heal={heal}"))
    has(lines, f"drinks a potion: +{hp - 27} HP, {hp} HP, 0 potions left")
    assert (row["hp_left"], row["potions_used"], row["moves"]) == (hp, 1, 1)


# --- the dungeon rulings ----------------------------------------------------------------------------------------------
def test_the_heros_own_card_never_bars_leaving(scripted, tmp_path):
    """The dungeon, "Which side bars a step": "the side of the card being entered that faces the hero; the hero's
    own card never bars leaving". The fountain (oowo: a wall on its south side) is left southwards into a shop
    whose north side is open: no pass decision, no bomb, no HP; 2 moves."""
    grid = "start  fountain  dragon_lair\n.      shop      .\n"
    row, lines = play(scripted, tmp_path, grid, [move(E), move(S, L.PASS_ITEM)])
    has(lines, "steps south from row 1, column 2 to row 2, column 2")
    assert not any("- pass:" in line for line in lines)
    assert (row["moves"], row["bombs_spent"], row["hp_spent"], row["rooms_entered"]) == (2, 0, 0, 2)


ONLY_A_FOUNTAIN = tuple(f"deck.{k}.count=0" for k in (
    "rat_den", "spider_nest", "goblin_camp", "crypt", "spike_trap", "treasure_chest", "blacksmith", "warp_room",
    "bounty_hunter", "shop")) + ("deck.fountain.count=1",)


def test_random_orientation_turns_a_dealt_card_by_a_d4(scripted, tmp_path):
    """The dungeon, Orientation: "printed" (default): "a dealt card lies as printed"; "random": "each dealt card is
    turned by a d4 of quarter turns". The one dealt card is a fountain (printed oowo: its wall south). Printed, the
    hero steps in from the west freely. Random, the four faces of the d4 give the four quarter turns: the wall lies
    on each side once, and on the west side (the side facing the hero, so a bomb is spent) for exactly one face."""
    grid = "start  ?  dragon_lair"
    row, lines = play(scripted, tmp_path, grid, [move(E, L.PASS_ITEM)], [1], sets=(*ONE_TURN, *ONLY_A_FOUNTAIN))
    has(lines, "turns face up: fountain room, north open, east open, south wall, west open")
    assert (row["bombs_spent"], row["moves"]) == (0, 1)
    walls, bombs = [], 0
    for face in (1, 2, 3, 4):
        row, lines = play(scripted, tmp_path, grid, [move(E, L.PASS_ITEM)], [1, face],
                          sets=(*ONE_TURN, *ONLY_A_FOUNTAIN, 'navigation.orientation="random"'))
        seen = next(line for line in lines if "turns face up: fountain room" in line)
        walls.append(next(side for side in ("north", "east", "south", "west") if f"{side} wall" in seen))
        assert seen.count("wall") == 1
        bombs += row["bombs_spent"]
        assert row["moves"] == 1
    assert sorted(walls) == ["east", "north", "south", "west"] and bombs == 1


def test_a_mirror_teleport_counts_as_a_move_when_the_rules_say_so(scripted, tmp_path):
    """Navigation, Magic Mirror: "not a move" by default, navigation.mirror_counts = true makes it one (the
    option column). 3 moves: a step into the shop (buying the Mirror), a teleport to column 3, then steps east.
    Not counted: 2 more steps (columns 4, 5), 3 moves. Counted: the teleport took a move, 1 step is left (to
    column 4, 0 moves left), so the second step is never offered (the turn ends there)."""
    line = "start  shop  shop  shop  shop  dragon_lair"
    wishes = [move(E, L.IT_MIRROR, 0), (L.A_MIRROR, 2, 0, -1), move(E), move(E)]
    row, lines = play(scripted, tmp_path, line, wishes, sets=(*ONE_TURN, "navigation.start_gold=8"))
    assert (row["mirror_uses"], row["moves"]) == (1, 3)
    has(lines, "steps east from row 1, column 3 to row 1, column 4, 1 move left",
        "steps east from row 1, column 4 to row 1, column 5, 0 moves left")
    row, lines = play(scripted, tmp_path, line, wishes, sets=(*ONE_TURN, "navigation.start_gold=8",
                                                              "navigation.mirror_counts=true"))
    assert (row["mirror_uses"], row["moves"]) == (1, 3)
    has(lines, "steps east from row 1, column 3 to row 1, column 4, 0 moves left")
    assert not any("to row 1, column 5" in line for line in lines)


# --- statuses above their shipped caps, and a monster's poison cap --------------------------------------------------
@pytest.mark.parametrize("cap, stacks, turns", [(1, 1, 3), (2, 2, 4)])
def test_a_hero_stun_of_two_stacks_skips_two_turns_when_the_cap_allows(ranger, cap, stacks, turns):
    """"A turn of combat dice", Stun: "a stunned fighter skips its next attack (the hero: its whole offensive roll;
    one stack per attack, at most statuses.stun.max_stacks)"; Monsters: `inflicts` stun "when an attack costs the
    hero HP". An ogre (9 HP, pattern 7, 0, 0, inflicts stun 2 here) against the ranger. Turn 1: 1 2 4 4 6 makes
    nothing; the ogre's 7 meets the defensive roll 1 1 (block 0 + 0): 30 - 7 = 23 HP, and it inflicts 2 stacks,
    kept to the cap: 1 (shipped) or 2 (max_stacks raised). Each stacked turn is skipped (no dice), one stack going
    each time, while the ogre's 0s cost nothing. Then 1 2 3 4 5 fires Rain of Arrows (9 damage): the ogre dies on
    fight turn 1 + 1 + 1 = 3 with one stack, 1 + 2 + 1 = 4 with two."""
    fx = with_combat(with_monster(ranger, OGRE, M_HP=9, M_STUN=2, M_PATTERN_LEN=3, M_PATTERN=[7, 0, 0]),
                     C_STUN_MAX=cap)
    script = h(0, 1, 3, 3, 5) + h(0, 0) + h(0, 1, 2, 3, 4)
    res, st, pol, dice = run_fight(fx, [OGRE], script, answers=[ALL, ALL, RAIN])
    check_scripted(st, pol, dice, script)
    assert events(dice, st, L.EV_INFLICT) == [(L.EV_INFLICT, 0, 0, 2, 0, stacks, 0, 0)]
    assert events(dice, st, L.EV_STUNNED) == [(L.EV_STUNNED, -1, left, 0, 0, 0, 0, 0) for left in range(stacks - 1,
                                                                                                      -1, -1)]
    assert [e[2] for e in events(dice, st, L.EV_ATTACK)] == [7] + [0] * stacks
    assert res == L.FIGHT_WON and st[L.S_HP] == 23 and st[L.S_FIGHT_TURN] == turns


def test_poison_on_a_monster_is_capped_at_max_stacks(rules):
    """"A turn of combat dice", Poison: "at the start of the poisoned one's turn: damage per stack, then decay
    stacks fall off; at most max_stacks" (statuses.poison: damage 1, max_stacks 3, decay 1), on a monster as on the
    hero. The alchemist's Toxin (1 3 3 4 5: three skulls; damage 2, poison 2) against a 15-HP rat, whose d6 shows 1
    (0 damage) each time. Turn 1: 15 - 2 = 13, 2 stacks; the rat's tick: 2 -> 11 HP, 1 stack left. Turn 2: 9 HP,
    1 + 2 = 3 stacks; tick 3 -> 6 HP, 2 left. Turn 3: 4 HP, 2 + 2 = 4 stacks kept to 3; tick 3 -> 1 HP, 2 left (4
    stacks would have killed it). Turn 4: Toxin's 2 kills it (1 HP dealt: 15 in all)."""
    fx = with_monster(C.pack_fight(rules, "alchemist"), RAT, M_HP=15)
    toxin = h(0, 2, 2, 3, 4)
    script = (toxin + [1]) * 3 + toxin
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL] * 4)
    check_scripted(st, pol, dice, script)
    assert events(dice, st, L.EV_POISON_TICK) == [(L.EV_POISON_TICK, 0, 2, 1, 11, 0, 0, 0),
                                                  (L.EV_POISON_TICK, 0, 3, 2, 6, 0, 0, 0),
                                                  (L.EV_POISON_TICK, 0, 3, 2, 1, 0, 0, 0)]
    assert res == L.FIGHT_WON and st[L.S_FIGHT_TURN] == 4 and st[L.S_DEALT] == 15 and st[L.S_HP] == 28


# --- dying in an ordinary monster room, the Mirror into a face-down card ---------------------------------------------
def test_dying_in_a_monster_room_ends_the_game_there(scripted, tmp_path):
    """Navigation, room kinds: a monster room is "a fight against the card's monsters" (a hazard: fought on entry);
    "victory": "death or the cap lose"; A fight, Death: the hero at 0 HP or less. Outputs: death_cell = row x
    columns + column, death_room the room kind. The ranger (1 HP here) steps east into the rat den (2 rats): 4 4 4
    5 6 makes nothing; rat 1's d6 shows 6 (2 damage), the defensive roll 1 1 blocks 0: 1 - 2 < 0, dead in its first
    fight turn, in the rat den's cell (the trace's row 1, column 2; counted from 0: 0 x 3 + 1 = 1), a monster room;
    the game is lost by a fight, with no gold won (the fight was not won)."""
    row, lines = play(scripted, tmp_path, "start  rat_den  dragon_lair", [move(E)], [4, 4, 4, 5, 6, 6, 1, 1],
                      sets=(*ONE_TURN, "heroes.ranger.hp=1"))
    has(lines, "a fight in the monster room: rat, rat")
    assert (row["win"], row["death_cause"], row["death_cell"], row["death_room"]) == (0, L.CAUSE_FIGHT, 1,
                                                                                        L.K_MONSTER)
    assert (row["fights"], row["fights_won"], row["gold_left"], row["hp_left"]) == (1, 0, 0, 0)


ONLY_A_CHEST = tuple(f"deck.{k}.count=0" for k in (
    "rat_den", "spider_nest", "goblin_camp", "crypt", "spike_trap", "fountain", "blacksmith", "warp_room",
    "bounty_hunter", "shop")) + ("deck.treasure_chest.count=1",)


def test_a_mirror_teleport_into_a_face_down_card_turns_it_face_up(scripted, tmp_path):
    """Navigation, Magic Mirror: "to any room, face down ones too"; The dungeon, Face down until entered: every card
    but the start and the boss's "is turned face up when the hero first steps towards it ... or teleports into it".
    The one dealt card (the deck holds only a treasure chest) lies face down below the start, the shop (bought the
    Mirror for 8 gold) east of it: the Mirror takes the hero into the face-down cell (row 2, column 1: cell 3), the
    card turns face up, and it is entered as a room (the chest, a room with no hazard, asks whether to resolve it:
    the d6 shows 1, a key: 1 + 1 = 2 keys). One move in all (the step into the shop; the Mirror is no move)."""
    grid = "start  shop  dragon_lair\n?      .     .\n"
    wishes = [move(E, L.IT_MIRROR, 0), (L.A_MIRROR, 3, 0, 0)]
    row, lines = play(scripted, tmp_path, grid, wishes, [1, 1], sets=(*ONE_TURN, "navigation.start_gold=8",
                                                                      *ONLY_A_CHEST))
    i = next(i for i, line in enumerate(lines) if "the Magic Mirror teleports the hero" in line)
    has(lines[i:], "row 2, column 1 turns face up: treasure chest", "gets a key from the treasure room (2 keys now)")
    assert "to row 2, column 1" in lines[i]
    assert (row["mirror_uses"], row["moves"], row["rooms_entered"], row["resolved_treasure"]) == (1, 1, 2, 1)
