"""Dungeon Foury rules and rulings of docs/rules.md (its 2-player and campaign sections) that no test checked (the
rule audit of session 61): one scripted-dice test each, with tests/foury_helpers.py.

Every expected value follows from the doc's words (the section is named in each docstring). The maps are the
2-player test maps of tests/data/foury with a goblin added (written to the test's tmp_path). The players are free
characters with ``character.trait_marks = 1``: one heart each, so one lost roll-off kills. A roll-off rolls the
player's d6, then the foe's.
"""

from __future__ import annotations

from foury_helpers import DATA, DONE, QUIET_EVENTS, TRACKS, move, play

from foury_sim.games.foury import layout as L
from foury_sim.games.foury.outputs import OUTPUTS

TWO = {**QUIET_EVENTS, "two_player.players": 2, "rulings.clover_dice": "combat", "two_player.swap_seats": False,
       "character.trait_marks": 1}


def col(g, name: str) -> int:
    return int(g.out[OUTPUTS.kernel_names(g.rules).index(name)])


def variant(tmp_path, name: str, row: str, new_row: str) -> str:
    """A copy of the test map ``name`` with one line of rooms replaced (a goblin added)."""
    text = (DATA / f"{name}.map").read_text()
    assert row in text
    p = tmp_path / f"{name}_audit.map"
    p.write_text(text.replace(row, new_row))
    return str(p)


def goblins_between(tmp_path) -> str:
    """two_sides with a goblin in each middle room: seat 1 enters at the west end (cell 0), seat 2 at the east end
    (cell 3, the only arrow of the other side); each one's second turn steps onto a goblin."""
    return variant(tmp_path, "two_sides", ">Ac. A.. B.. Bc.<", ">Ac. Ag. Bg. Bc.<")


def test_both_players_dead_in_one_round_of_turns_is_a_draw(tmp_path):
    """2-player mode, "Who wins": "both dead in one round of turns: a draw (4)". Turn 1: both enter (rolls 1, 1).
    Turn 2: each steps onto a goblin (room roll 1: nothing), rolls 1 against its 6 and loses 5 hearts of 1."""
    g = play(goblins_between(tmp_path), script=[1, 1, 1, 1, 6, 1, 1, 6],
             overrides={**TWO, "game.max_turns": 3}, queues={"round": [1]})
    assert [r[0] for r in g.rows(L.TR_P2_TURN)] == [1, 2, 1, 2]
    assert len(g.rows(L.TR_DEATH)) == 2
    assert g.rows(L.TR_P2_END) == [(0, L.P2E_BOTH_DEAD, 2, 2, 0)]
    assert (col(g, "p2_winner"), col(g, "p2_end"), g.out[L.OUT_WIN], col(g, "opponent_win")) == (0, 4, 0, 0)


def test_a_death_ends_the_game_at_once_without_finish_round(tmp_path):
    """2-player mode, "Who wins" (`two_player.finish_round = false`: "the game ends at once, the first to exit or
    survive wins"): seat 1 dies in turn 2, so seat 2 wins without playing its turn 2 (it has 1 hourglass mark)."""
    g = play(goblins_between(tmp_path), script=[1, 1, 1, 1, 6],
             overrides={**TWO, "game.max_turns": 3, "two_player.finish_round": False}, queues={"round": [1]})
    assert [r[0] for r in g.rows(L.TR_P2_TURN)] == [1, 2, 1]
    assert g.rows(L.TR_P2_END) == [(2, L.P2E_SURVIVED, 2, 1, 0)]
    assert g.out[L.OUT_WIN] == 0 and col(g, "opponent_win") == 1


def test_an_exit_beats_a_death_in_the_same_round_of_turns(tmp_path):
    """2-player mode, "Who wins": "An exit beats a death in the same round of turns". four_tables with a goblin in
    D's arrow room: seat 1 (A) exits onto B's arrow in turn 2 (no treasure needed); seat 2 (C) then plays its turn
    2 (finish_round, the default), steps onto the goblin, rolls 1 against 6 and dies: seat 1 wins by its exit."""
    path = variant(tmp_path, "four_tables", ">A.. B.. D.. C..|", ">A.. B.. Dg. C..|")
    g = play(path, script=[1, 1, 1, 1, 1, 6], overrides={**TWO, "two_player.treasures": 0},
             queues={"round": [3, 2], "move": [2]})
    assert [r[0] for r in g.rows(L.TR_P2_TURN)] == [1, 2, 1, 2]
    assert len(g.rows(L.TR_EXIT)) == 1 and len(g.rows(L.TR_DEATH)) == 1
    assert g.rows(L.TR_P2_END) == [(1, L.P2E_EXIT, 2, 2, 0)]
    assert g.out[L.OUT_WIN] == 1 and col(g, "opponent_win") == 0


def circles_at_the_ends(tmp_path, row: str = ">Ao. A.. B.. Bo.<") -> str:
    """two_sides with a magic circle in each end room (cells 0 and 3), where the players enter: a circle move
    takes a player from their end room into the other's."""
    return variant(tmp_path, "two_sides", ">Ac. A.. B.. Bc.<", row)


def test_entering_the_opponents_room_by_a_move_is_no_duel(tmp_path):
    """2-player mode, rulings, "Sharing a room": "Entering the opponent's room by an ordinary move is no duel: a duel
    is the walk-and-face decision at the start of a turn (possible from the same room)". Turn 1: seat 1 enters at
    cell 0, seat 2 at cell 3 (rolls 1, 1). Turn 2: seat 1's move is the magic circle 0 -> 3 into seat 2's room (no
    roll, no duel: hearts kept). Seat 2's turn 2 starts in the same room: the duel is offered (walk 0) and taken:
    seat 2 rolls 4, seat 1 rolls 2, seat 1 loses 4 - 2 = 2 hearts of its 1 and dies; seat 2 outlived it."""
    g = play(circles_at_the_ends(tmp_path), script=[1, 1, 4, 2],
             overrides={**TWO, "game.max_turns": 3},
             queues={"round": [1], "move": [move(3, L.MK_CIRCLE)], "duel": [1]})
    assert g.rows(L.TR_MOVE)[2][:2] == (0, 3)  # seat 1's circle move, into seat 2's room (seat 2 entered at 3)
    duel = g.decisions("duel")
    assert len(duel) == 1 and duel[0].snap["pos"] == 3  # asked once: seat 2, standing in the shared room
    assert g.rows(L.TR_P2_DUEL) == [(2, 3, 0, 0, 0)]  # seat 2's duel, walk 0: the only duel
    assert g.rows(L.TR_P2_DUEL_ROLL) == [(4, 0, 2, 0, 0)]
    assert g.rows(L.TR_P2_DUEL_END) == [(2, 2, 0, 0, 0)]
    assert g.rows(L.TR_P2_END)[0][:2] == (2, L.P2E_SURVIVED)


def test_one_map_items_foes_and_explored_rooms_are_shared(tmp_path):
    """2-player mode, rulings, "What happens to the other player's map events?": "an item or foe one removes is gone
    for both ... a room one explored is explored for both (no roll on entering it, free walking over it)". Map: a
    circle in cell 0, a goblin in cell 1, a circle and a chest in cell 3. Turn 1: seat 1 enters 0, seat 2 enters 3
    and takes its chest. Turn 2: seat 1 circles into 3: no chest left for it; seat 2 (duel declined) steps to 2
    (roll). Turn 3: seat 1 walks over 2 (seat 2's room: no roll) into 1, beats the goblin (6 against 1); seat 2
    walks over 1 (no roll, no goblin) to the Oracle (cell 5; `requirements.kills` 0 opens it to sector B).
    Each room is rolled once: 0, 3, 2, 1."""
    g = play(circles_at_the_ends(tmp_path, ">Ao. Ag. B.. Boc<"), script=[1, 1, 1, 1, 6, 1],
             overrides={**TWO, "game.max_turns": 3, "requirements.kills": 0},
             queues={"round": [1], "duel": [0, 0, 0], "move": [move(3, L.MK_CIRCLE), 2, 1, 5]})
    assert [r[3] for r in g.rows(L.TR_ROLL)] == [0, 3, 2, 1]
    assert [r[:2] for r in g.rows(L.TR_MOVE)] == [(-1, 0), (-1, 3), (0, 3), (3, 2), (2, 1), (1, 5), (5, 1)]
    assert [r[2] for r in g.rows(L.TR_FIGHT)] == [1]  # one fight: seat 1's; seat 2 walked over the beaten goblin
    assert g.rows(L.TR_ORACLE) and g.icons(1, g.rules.icons.names.index("goblin")) == 0
    assert g[L.CHEST] == 0 and g.icons(3, g.rules.icons.names.index("chest")) == 0  # seat 1 found no chest in 3
    assert (col(g, "p2_chests_first"), col(g, "p2_chests_second")) == (0, 2)  # seat 2: room 3's and the Oracle's


def test_a_duel_is_not_offered_to_a_clover(tmp_path):
    """2-player mode, rulings, "What is a fight between players?": "One roll-off ... no clover". Both players hold
    1 heart and 1 clover (2 marks) and `rulings.clover_dice = "combat"`. two_sides: both enter (taking the end
    chests) and step inwards (rolls 1 x 4); in turn 3 seat 1 duels (walk 1): it rolls 1, seat 2 rolls 6, seat 1
    loses 6 - 1 = 5 hearts and dies with its clover unspent (no clover decision), seat 2 takes 1 chest."""
    g = play("two_sides", script=[1, 1, 1, 1, 1, 6],
             overrides={**TWO, "game.max_turns": 3, "character.trait_marks": 2},
             queues={"trait": [TRACKS["clover"]] * 2, "round": [1], "duel": [1]})
    assert g.rows(L.TR_P2_DUEL_ROLL) == [(1, 0, 6, 0, 0)]
    assert g.rows(L.TR_P2_DUEL_END) == [(2, 5, 0, 1, 0)]
    assert g.decisions("clover") == [] and g.decisions("reroll") == []
    assert g[L.CLOVER] == 1 and g[L.HEARTS] == 0
    assert g.rows(L.TR_P2_END)[0][:2] == (2, L.P2E_SURVIVED)


# ============================================================================ In and Out with Your Strength
INOUT = {**QUIET_EVENTS, "rulings.hero_caps": "scale", "rulings.market_every_turn": "purchases"}


def test_the_turn_market_does_not_open_after_the_turn_that_completes_the_round():
    """In and Out, rulings, "When the end-of-turn market opens": "After every turn that leaves the round going on
    (the turn that completes a round is followed by the usual between-rounds market ...)". The exit map, 2 rounds:
    in at cell 3 (turn 1), to 4 (turn 2), to the Oracle (turn 3: +1 chest, the free step back to 4): the turn
    market opens at the end of turn 3 (a chest held, x1). Turn 4 exits at cell 5 with the chest still held: no turn
    market after it, only the between-rounds market (round 1's value, x1). Round 2 enters at cell 8 (turn 5) and
    meets the turn cap (5)."""
    g = play("exit", script=[2, 2, 2, 2], sheet={"hearts": 5},
             overrides={**INOUT, "game.rounds": 2, "requirements.kills": 0, "max_turns": 5,
                        "game.insert_coins": 0, "rulings.reserve_entries": "none"},
             queues={"round": [0], "move": [1, 5], "market": [DONE, DONE]})
    assert g.rows(L.TR_TURN_MARKET) == [(3, 1, 0, 0, 0)]
    assert g.rows(L.TR_MARKET_OPEN) == [(1, 1, 0, 0, 0), (1, 1, 0, 0, 0)]  # the turn market's, the round's
    codes = g.codes()
    ex = codes.index(L.TR_EXIT)
    assert codes.index(L.TR_TURN_MARKET) < ex and codes[ex + 1:].count(L.TR_MARKET_OPEN) == 1
    assert L.TR_TURN_MARKET not in codes[ex:]
    assert g[L.S_ROUND] == 1 and g[L.CHEST] == 1


def test_the_turn_market_does_not_open_after_a_death(tmp_path):
    """In and Out, rulings, "When the end-of-turn market opens": "... none after a death". A chest in the entry
    room, a goblin next door, 1 heart, no continue: the market opens at the end of turn 1 (a chest held); turn 2
    meets the goblin (roll-off 1 against 6: 5 hearts lost) and dies holding the chest: no market after turn 2."""
    path = variant(tmp_path, "potions", ">Ay. Av. Ac. A..|", ">Ac. Ag. A.. A..|")
    g = play(path, script=[1, 1, 1, 6], overrides={**INOUT, "character.trait_marks": 1, "game.insert_coins": 0},
             queues={"market": [DONE]})
    assert g.rows(L.TR_TURN_MARKET) == [(1, 1, 0, 0, 0)]
    assert len(g.rows(L.TR_MARKET_OPEN)) == 1
    assert g[L.S_DEAD] == 1 and g[L.S_TURN] == 2 and g[L.CHEST] == 1


# ============================================================================ The Slaughter of Monsters
#: the Slaughter's rules on its test map (as tests/test_foury_slaughter.py), room rolls that do nothing
SL = {**QUIET_EVENTS, "slaughter.on": True, "game.insert_coins": 0, "slaughter.fury_boxes": 10,
      "slaughter.max_enemies": 48}


def test_a_hit_larger_than_the_fury_boxes_left_fills_the_track_and_is_absorbed():
    """The Slaughter of Monsters, rulings, "A loss larger than the boxes left": "the boxes are offered as long as one
    is free; blacking out then fills the track (the whole loss is absorbed: the Fury prevails)". A hit of 3 (as in
    test_fury_boxes_instead_of_the_hearts_of_a_hit) against 2 boxes: both blacked out, no heart lost (5), and the
    full track ends the game (the Fury prevailed, not a death)."""
    g = play("slaughter", script=[1, 1, 1, 4], queues={"fury": [1]}, sheet={"hearts": 5},
             overrides={**SL, "game.max_turns": 2, "slaughter.fury_boxes": 2})
    assert g[L.HEARTS] == 5 and g[L.S_FURY_USED] == 2
    assert g.out[L.OUT_SL_END] == L.SLE_FURY and g.rows(L.TR_DEATH) == []


def test_the_monsters_the_fury_erases_give_no_kill_prize():
    """The Slaughter of Monsters, rulings, "The Fury's sector": the erased monsters count as kills, but "No kill prize
    is given for them (the game is over)". The game of test_the_fury_track_full_erases_the_sectors_monsters_and_ends_
    the_game: 1 kill, then 3 erased (4 kills, past the prize at 3): no prize row, no cornucopia."""
    g = play("slaughter", script=[1, 1, 6, 1, 1, 1, 6], sheet={"hearts": 8}, queues={"fury": [1]},
             overrides={**SL, "slaughter.fury_boxes": 3})
    assert g[L.S_KILLS_TOTAL] == 4 and g.out[L.OUT_FURY_KILLS] == 3
    assert g.rules.data["kills"]["prize_every"] == 3  # a prize would come at the third kill
    assert g.rows(L.TR_KILL_PRIZE) == [] and g[L.CORNU] == 0


def test_a_coloured_potions_step_is_lost_when_the_round_ends_in_its_room(tmp_path):
    """In and Out, rulings, "A coloured potion is drunk when it is picked up": "The step is lost if the round ends in
    that room (an exit, ...); none is carried into the next round." The exit map with a yellow potion in the exit
    room (cell 5), 2 rounds: in at 3, to 4, to the Oracle (and its free step back to 4), then to 5: the potion heals
    2 (5 -> 7 hearts) and the round ends there by the exit: no potion step, none pending; round 2 enters at cell 8
    and takes none either (the turn cap, 5, ends it)."""
    path = variant(tmp_path, "exit", ">A.. A.. B..<", ">A.. A.. By.<")
    g = play(path, script=[2, 2, 2, 2], sheet={"hearts": 5},
             overrides={**QUIET_EVENTS, "game.rounds": 2, "requirements.kills": 0, "max_turns": 5,
                        "game.insert_coins": 0, "rulings.reserve_entries": "none"},
             queues={"round": [0], "move": [1, 5]})
    assert g.rows(L.TR_GAIN)[-1] == (L.HEARTS, 2, 7, 0, 0)
    assert g.rows(L.TR_EXIT)[0][0] == 5 and g[L.S_ROUND] == 1
    assert [r[:2] for r in g.rows(L.TR_MOVE)][-1] == (-1, 8)  # round 2's entry, the last move
    assert g.rows(L.TR_POTION_STEP) == [] and g[L.S_POTION_STEPS] == 0


def test_an_imp_erases_a_coloured_potion():
    """In and Out, rulings: "An imp erases a coloured potion like any other item" (base game: "If there is a
    Resource in the room where an Imp appears, erase it"). The potions map, entry room (cell 0) holding a yellow
    potion: room roll 1 (table A: a monster), spawn roll 1 (an imp, the only spawn here); the potion is the room's
    only item, so it is erased without a die; the imp is beaten (6 against 1). No heal (5 hearts), no free step."""
    g = play("potions", script=[1, 1, 6, 1], sheet={"hearts": 5},
             overrides={"enemies.spawn_table": ["imp"] * 6, "max_turns": 1})
    yellow = g.rules.icons.names.index("yellow potion")
    assert g.rows(L.TR_IMP) == [(0, yellow, 1, 0, 0)] and g.icons(0, yellow) == 0
    assert g[L.HEARTS] == 5 and g.rows(L.TR_POTION_STEP) == [] and g[L.S_POS] == 0
