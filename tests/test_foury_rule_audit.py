"""Dungeon Foury rules and rulings of docs/rules.md (its 2-player and campaign sections) that no test checked (the
rule audit of session 61): one scripted-dice test each, with tests/foury_helpers.py.

Every expected value follows from the doc's words (the section is named in each docstring). The maps are the
test maps of tests/data/foury, some with one line of rooms changed (``variant``: written to the test's tmp_path),
and two small 2-player maps drawn in their tests (``small_map``).
The 2-player players are free characters with ``character.trait_marks = 1``: one heart each, so one lost roll-off
kills. A roll-off rolls the player's d6, then the foe's.
"""

from __future__ import annotations

from foury_helpers import DATA, DONE, QUIET_EVENTS, TRACKS, move, play, reroll

from foury_sim.games.foury import icons as I
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
             overrides={**TWO, "game.max_turns": 3, "rulings.crossing_in_turn": False},  # (the circle is the move)
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
             overrides={**TWO, "game.max_turns": 3, "requirements.kills": 0, "rulings.crossing_in_turn": False},
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


def small_map(tmp_path, grid: str) -> str:
    """A small test map written to tmp_path (``grid``: its border and room lines)."""
    p = tmp_path / "audit_small.map"
    p.write_text(f"name: audit small\n\n{grid}")
    return str(p)


def moves_offered(d) -> list[tuple]:
    """A move decision's options as sorted (kind, from, to, rooms walked) tuples."""
    return sorted((m["kind"], m["from"], m["to"], m["path"]) for m in d.moves())


#: top row: cells 0 (A, a circle), 1 (A), 2 (B), 3 (B, a circle); below 1 and 2 the rooms 5 (A) and 6 (B), the
#: Oracle (7) below 3; arrows: 0 above cell 1 (A), 1 west of cell 0 (A), 2 east of cell 3 (B)
ONE_MAP = """\
+---+vvv+---+---+
>Ao. A.. B.. Bo.<
+---+   +   +   +
|#..|A..|B..|O..|
+---+---+---+---+
"""


def test_one_map_collapses_walls_and_spawns_drawn_by_one_seat_are_the_others(tmp_path):
    """2-player mode, rulings, "What happens to the other player's map events?": "walls, collapses and floods one
    player draws are there for both ... a monster one spawns stands for both" (ONE_MAP). Turn 1: seat 1 enters
    cell 0, seat 2 cell 3 (rolls 1, 1). Turn 2: seat 1 steps to 1, rolls 2 (table A: the room behind, 0,
    collapses; a monster: spawn roll 1, a goblin), ties 3 against 3 and flees (it stays in 1 with the goblin); seat
    2 is offered no circle move into the collapsed room 0, steps to 2 and rolls 2 (table B: its left wall, the south
    side of 2, collapses). Turn 3: seat 1 may walk over seat 2's rooms 2 and 3 (to the Oracle) but is offered no
    step into 6 behind seat 2's wall; it steps to 5 (roll 1). Seat 2 goes to 1 and faces seat 1's goblin there (no
    roll: seat 1 explored it), 6 against 1: beaten. The turn cap (3) ends the game (a draw)."""
    ev = {"events.A": ["nothing", "room_behind_collapses+monster", "nothing", "nothing", "nothing", "nothing"],
          "events.B": ["nothing", "collapse_left", "nothing", "nothing", "nothing", "nothing"],
          "enemies.spawn_table": ["goblin"] * 6}
    g = play(small_map(tmp_path, ONE_MAP), script=[1, 1, 2, 1, 3, 3, 2, 1, 6, 1],
             overrides={**TWO, **ev, "game.max_turns": 3},
             queues={"round": [1], "move": [1, 2, 5, move(1, L.MK_GOTO)], "fight_on": [0], "duel": [0]})
    goblin = g.rules.icons.names.index("goblin")
    step, goto, circle = L.MK_STEP, L.MK_GOTO, L.MK_CIRCLE
    assert [r[0] for r in g.rows(L.TR_P2_TURN)] == [1, 2, 1, 2, 1, 2]
    assert g.rows(L.TR_PREV_COLLAPSE) == [(0, 0, 0, 0, 0)] and g.room_state(0) & L.COLLAPSED  # seat 1's collapse
    assert g.rows(L.TR_SPAWN) == [(1, goblin, 1, 0, 0)]  # seat 1's goblin, in cell 1
    assert g.rows(L.TR_WALL) == [(2, 2, 0, 0, 0)]  # seat 2's wall: the south side of cell 2
    s1_t2, s2_t2, s1_t3, s2_t3 = g.decisions("move")
    assert (circle, 0, 3, 0) in moves_offered(s1_t2)  # the circles link 0 and 3 ...
    assert moves_offered(s2_t2) == [(step, 3, 2, 0), (step, 3, 7, 0)]  # ... but not into seat 1's collapsed room
    assert moves_offered(s1_t3) == [(step, 1, 5, 0), (step, 3, 7, 2), (goto, 1, 1, 0)]  # no (step, 2, 6, 1)
    assert moves_offered(s2_t3) == [(step, 3, 7, 1), (goto, 2, 1, 0)]  # seat 1's goblin, in the way to 1
    seat2_t3 = [i for i, c in enumerate(g.codes()) if c == L.TR_P2_TURN][-1]
    rest = g.codes()[seat2_t3:]
    assert L.TR_FIGHT in rest and L.TR_WIN in rest and L.TR_SPAWN not in rest and L.TR_ROLL not in rest
    assert g.rows(L.TR_FIGHT) == [(goblin, 0, 1, 0, 0)] * 2 and g.rows(L.TR_WIN) == [(goblin, 1, 0, 0, 0)]
    assert g.icons(1, goblin) == 0 and g.rows(L.TR_P2_END) == [(0, L.P2E_CAP, 3, 3, 0)]


def test_one_map_a_flood_drawn_by_one_seat_is_swum_by_the_other(tmp_path):
    """2-player mode, rulings, "What happens to the other player's map events?": "walls, collapses and floods one
    player draws are there for both". Top row: cells 0, 1 (A), 2 (a flooded tunnel, D), 3 (D); below 0 and 1 the
    rooms 4, 5 (A), the Oracle (7) below 3. Seat 1 (A) enters cell 1 from the north, rolls 3 (table A: its left,
    east, wall collapses, between 1 and 2); seat 2 (the Waterways, D: it swims, rules.md "In which rounds can you
    swim?") enters 3 (roll 1). Turn 2: seat 1 steps to 0, rolls 4 (table A: the room behind, 1, floods); seat 2
    swims into the tunnel 2 (no roll). Turn 3: seat 1 steps to 4 (roll 1); seat 2 (duel declined) is offered room
    5 across seat 1's collapsed wall, between two flooded rooms (2 and seat 1's 1), and takes it: it walks over 1
    and steps into 5 (roll 1)."""
    grid = """\
+---+vvv+---+---+
>A.. A.. D~. D..<
+   +   +---+   +
|A..|A..|#..|O..|
+---+---+---+---+
"""
    ev = {"events.A": ["nothing", "nothing", "collapse_left", "room_behind_floods", "nothing", "nothing"]}
    g = play(small_map(tmp_path, grid), script=[3, 1, 4, 1, 1], overrides={**TWO, **ev, "game.max_turns": 3},
             queues={"round": [0], "move": [0, 2, 4, 5], "duel": [0]})
    assert [r[0] for r in g.rows(L.TR_P2_TURN)] == [1, 2, 1, 2, 1, 2]
    assert g.rows(L.TR_WALL) == [(1, 1, 0, 0, 0)] and g.walls(1)[1] == L.W_COLLAPSED  # seat 1's: 1's east side
    assert g.rows(L.TR_FLOOD) == [(1, 0, 0, 0, 0)]  # seat 1's flood
    s2_t3 = g.decisions("move")[-1]
    assert s2_t3.snap["pos"] == 2
    assert moves_offered(s2_t3) == [(L.MK_STEP, 1, 5, 1), (L.MK_STEP, 3, 7, 1)]
    assert g.rows(L.TR_WALK)[-1] == (2, 1, 1, 0, 0) and g.rows(L.TR_MOVE)[-1][:2] == (1, 5)
    assert g.room_state(1) & L.FLOODED and g.room_state(2) & L.FLOODED


def test_both_exit_in_one_round_of_turns_fewer_hourglass_marks_wins(tmp_path):
    """2-player mode, rulings, "Who wins, and 'in fewer turns'?": "With finish_round the other still plays that round
    of turns: if they exit too, fewer hourglass marks wins, equal is a draw (p2_end 3)"; the hourglass: "stairs
    travel adds its turns". four_tables with a staircase in cells 0 (A) and 1 (B), a walkway of 2 turns between
    them; no treasure needed. Turn 1: seat 1 enters 0 (A), seat 2 enters 3 (C). Turn 2: seat 1 climbs at 0 and
    comes down at 1, on B's arrow (1 + 2 + 1 = 4 marks), rolls 1 (a move ending on an unused exit is rolled) and
    exits first; seat 2 still plays its turn 2, steps to 2 (D's arrow) and exits with 2 marks: seat 2 wins. The
    same game with seat 1 stepping to 1 instead: both exit with 2 marks, a draw."""
    path = variant(tmp_path, "four_tables", ">A.. B.. D.. C..|", ">AS. BS. D.. C..|")
    with open(path, "a") as f:
        f.write("\nupper: 1,1 1,2 2\n")

    def game(seat1_move):
        return play(path, script=[1, 1, 1, 1], overrides={**TWO, "two_player.treasures": 0},
                    queues={"round": [3, 2], "move": [seat1_move, 2]})

    g = game(move(1, L.MK_STAIRS))
    assert g.rows(L.TR_UPPER) == [(0, 1, 2, 0, 0)]
    assert [r[:2] for r in g.rows(L.TR_EXIT)] == [(1, 1), (2, 3)]  # seat 1 by B's arrow, then seat 2 by D's
    assert g.rows(L.TR_P2_END) == [(2, L.P2E_BOTH_EXIT, 4, 2, 0)]
    assert (col(g, "p2_winner"), col(g, "p2_end"), col(g, "p2_turns_first"), col(g, "p2_turns_second")) == (2, 3, 4, 2)
    assert g.out[L.OUT_WIN] == 0 and col(g, "opponent_win") == 1
    even = game(1)
    assert even.rows(L.TR_UPPER) == [] and len(even.rows(L.TR_EXIT)) == 2
    assert even.rows(L.TR_P2_END) == [(0, L.P2E_BOTH_EXIT, 2, 2, 0)]
    assert (col(even, "p2_winner"), even.out[L.OUT_WIN], col(even, "opponent_win")) == (0, 0, 0)


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


def test_a_coloured_potions_step_is_lost_when_the_hero_dies(tmp_path):
    """In and Out, rulings, "A coloured potion is drunk when it is picked up": "Its step is taken once the room is
    resolved (after the room event's extra move, if both) ... The step is lost if ... the hero dies; none is
    carried into the next round." The potions map with a yellow potion in cell 1 and a goblin in cell 2, 1 heart,
    the base game's continue. In at 0 (roll 1); to 1 (roll 6: table A's extra move): the potion heals 2 (1 -> 3
    hearts), the extra move goes first, into 2: 1 against the goblin's 6, a hit of 5, dead with the potion's step
    pending. The continue (a fresh sheet, the round again) enters at 0 (explored: no roll) and takes no potion
    step there (a step still pending would be taken on entering it, to 1); the turn cap (3) ends the game."""
    path = variant(tmp_path, "potions", ">Ay. Av. Ac. A..|", ">A.. Ay. Ag. A..|")
    g = play(path, script=[1, 6, 1, 6],
             overrides={**QUIET_EVENTS, "events.A": ["nothing"] * 5 + ["extra_move"], "character.trait_marks": 1,
                        "max_turns": 3}, queues={"extra_move": [2]})
    assert g.rows(L.TR_GAIN)[0] == (L.HEARTS, 2, 3, 0, 0) and g.rows(L.TR_EXTRA) == [(2, 0, 0, 0, 0)]
    assert g.rows(L.TR_DEATH)[0][1:3] == (2, 1)  # killed in cell 2, in round 1
    assert len(g.rows(L.TR_COIN)) == 1
    assert [r[:2] for r in g.rows(L.TR_MOVE)] == [(-1, 0), (0, 1), (1, 2), (-1, 0)]  # the last: the continue's entry
    assert g.rows(L.TR_POTION_STEP) == [] and g[L.S_POTION_STEPS] == 0 and g[L.S_POS] == 0


def test_a_coloured_potions_step_is_lost_at_the_oracles_own_step(tmp_path):
    """In and Out, rulings: a coloured potion's step "is lost if the round ends in that room (an exit, the Oracle's
    own step)". The potions map with a yellow potion in cell 3, beside the Oracle (cell 7), 2 hearts. (a) The room
    roll in 3 is a 6 (table A's extra move): the potion heals 2, the extra move goes first, into the Oracle (+1
    chest), whose own step leads back to 3: the potion's step is lost there (it was taken from 3, to 2). (b) Two
    yellow potions in cell 3 (two steps): the first step goes into the Oracle, the second is lost at its own step
    (it was taken from 3 after it)."""
    a = variant(tmp_path, "potions", ">Ay. Av. Ac. A..|", ">A.. A.. A.. Ay.|")
    g = play(a, script=[1, 1, 1, 6], sheet={"hearts": 2},
             overrides={**QUIET_EVENTS, "events.A": ["nothing"] * 5 + ["extra_move"], "max_turns": 4,
                        "game.insert_coins": 0}, queues={"extra_move": [7]})
    assert g.rows(L.TR_GAIN)[0] == (L.HEARTS, 2, 4, 0, 0) and g.rows(L.TR_EXTRA) == [(7, 0, 0, 0, 0)]
    assert len(g.rows(L.TR_ORACLE)) == 1 and g[L.CHEST] == 1
    assert [r[:2] for r in g.rows(L.TR_MOVE)] == [(-1, 0), (0, 1), (1, 2), (2, 3), (3, 7), (7, 3)]
    assert g.rows(L.TR_POTION_STEP) == [] and g[L.S_POTION_STEPS] == 0
    b = variant(tmp_path, "potions", ">Ay. Av. Ac. A..|", ">A.. A.. A.. Ayy|")
    g = play(b, script=[1, 1, 1, 1], sheet={"hearts": 2},
             overrides={**QUIET_EVENTS, "max_turns": 4, "game.insert_coins": 0},
             queues={"extra_move": [7]})
    assert g.rows(L.TR_POTION_STEP) == [(3, 7, 1, 0, 0)] and len(g.rows(L.TR_ORACLE)) == 1
    assert [r[:2] for r in g.rows(L.TR_MOVE)] == [(-1, 0), (0, 1), (1, 2), (2, 3), (3, 7), (7, 3)]
    assert g[L.S_POTION_STEPS] == 0


def test_a_coloured_potions_step_into_the_awakened_oracles_room_goes_on_from_there(tmp_path):
    """In and Out, rulings: a coloured potion's step "is taken once the room is resolved". The Oracle's room entered
    again after it spoke (no own step now) is resolved like any other: a step still pending is taken from it. The
    potions map with two yellow potions in cell 6, beside the Oracle (cell 7, the only way into 6): in at 0, along
    to 3 and down into the Oracle (+1 chest), whose own step goes to 6: two potions, two steps; the first back into
    the Oracle's room, the second from there to 3 (it was carried to the next turn's room)."""
    path = variant(tmp_path, "potions", ">Ay. Av. Ac. A..|", ">A.. A.. A.. A..|")
    text = open(path).read()
    assert "|#..|#..|#..|O..|" in text
    open(path, "w").write(text.replace("|#..|#..|#..|O..|", "|#..|#..|Ayy O..|"))
    g = play(path, script=[1, 1, 1, 1], sheet={"hearts": 2},
             overrides={**QUIET_EVENTS, "max_turns": 5, "game.insert_coins": 0},
             queues={"extra_move": [3], "place": [6]})
    assert len(g.rows(L.TR_ORACLE)) == 1 and g[L.CHEST] == 1
    assert [r[:2] for r in g.rows(L.TR_MOVE)] == [(-1, 0), (0, 1), (1, 2), (2, 3), (3, 7), (7, 6), (6, 7), (7, 3)]
    assert g.rows(L.TR_POTION_STEP) == [(6, 7, 1, 0, 0), (7, 3, 0, 0, 0)] and g[L.S_POTION_STEPS] == 0
    assert g[L.HEARTS] == 6


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


# ============================================================================ The Slaughter of Monsters (more)
def test_the_fury_spares_the_monsters_of_a_collapsed_room(tmp_path):
    """The Slaughter of Monsters, rulings, "The Fury's sector": "the colour sector of the room where the track fills;
    monsters in collapsed rooms stay (no one can roam there)". The slaughter map with the A goblin moved to the B
    room 2 (B: cells 2, 3, 6, 7; a goblin in 2, a bandit in 3, an orc in 6, a goblin in 7), table B: face 2 "the room
    behind collapses". Out to 1 (roll 1); into 2 (roll 1): a tie (3, 3) with its goblin, fled; on to 3 (roll 2):
    room 2 collapses with its goblin; the bandit wins a roll-off 6 against 1, a hit of 5 filling the 3 boxes: the
    Fury erases the bandit, the orc and the goblin of 7 (3 kills) and not the goblin of the collapsed room 2."""
    path = variant(tmp_path, "slaughter", "|O1. A.. Ag. Bb.|", "|O1. A.. Bg. Bb.|")
    g = play(path, script=[1, 1, 3, 3, 2, 1, 6], sheet={"hearts": 8},
             queues={"fight_on": [0], "move": [3], "fury": [1]},
             overrides={**SL, "slaughter.fury_boxes": 3,
                        "events.B": ["nothing", "room_behind_collapses", "nothing", "nothing", "nothing", "nothing"]})
    assert g.room_state(2) & L.COLLAPSED and g.rows(L.TR_FURY) == [(L.HEARTS, 3, 3, 3, L.FS_HIT)]
    goblin = g.rules.icons.names.index("goblin")
    assert g.rows(L.TR_FURY_FULL) == [(1, 3, 1, 3, 0)]  # sector B, 3 erased, counted: 3 kills
    assert g.icons(2, goblin) == 1
    assert sum(g.icons(c, i) for c in (3, 6, 7) for i in range(I.FOE_FIRST, I.CAMPAIGN_FIRST)) == 0
    assert g.out[L.OUT_FURY_KILLS] == 3 and g.out[L.OUT_SL_END] == L.SLE_FURY


def test_the_fury_erases_no_monster_at_the_colourless_centre(tmp_path):
    """The Slaughter of Monsters, rulings, "The Fury's sector": "at the colourless centre it erases none". The
    slaughter_one map with its DIE icon moved into the start room (a goblin in cell 2 of sector A); a DIE table of
    "lose_heart" faces and a track of 1 box: the start room's DIE roll (1) costs a heart, the box is blacked out
    instead and fills the track there, at the centre: 0 monsters erased, the goblin stays, the game ends (the Fury
    prevailed) with no kill."""
    path = variant(tmp_path, "slaughter_one", "|O1. Ad. Ag.|", "|O1d A.. Ag.|")
    g = play(path, script=[1], sheet={"hearts": 8}, queues={"use_die": [1], "fury": [1]},
             overrides={**SL, "slaughter.fury_boxes": 1, "die_table.faces": ["lose_heart"] * 6})
    assert g[L.S_POS] == 0 and g[L.HEARTS] == 8 and g[L.S_FURY_USED] == 1
    assert g.rows(L.TR_FURY_FULL)[0][1:] == (0, 1, 0, 0)  # 0 erased (the centre's sector code first)
    assert g.icons(2, g.rules.icons.names.index("goblin")) == 1
    assert g.out[L.OUT_FURY_KILLS] == 0 and g[L.S_KILLS_TOTAL] == 0 and g.out[L.OUT_SL_END] == L.SLE_FURY


def test_a_beaten_troll_stays_beaten_in_the_slaughter(tmp_path):
    """The Slaughter of Monsters, rulings, "No rounds": "a troll beaten stays beaten (it "reappears at the end of the
    adventure", and this one has no end)". slaughter_one with a troll as its only monster (cell 2): out to 1 (roll
    1), into 2 (roll 1), the troll beaten (6 against 1). The DIE table has no monster face (as the campaign's), so
    none can appear; the troll does not come back, so no monster is left: the game ends at once ("every monster
    slain"), score 1, after 2 turns."""
    path = variant(tmp_path, "slaughter_one", "|O1. Ad. Ag.|", "|O1. A.. At.|")
    g = play(path, script=[1, 1, 6, 1], sheet={"hearts": 5}, overrides={**SL, "die_table.faces": ["potion"] * 6})
    assert g.rows(L.TR_TROLL_BACK) == [] and g.icons(2, g.rules.icons.names.index("troll")) == 0
    assert g.out[L.OUT_SL_END] == L.SLE_CLEARED and g[L.S_KILLS_TOTAL] == 1 and g[L.S_TURN] == 2


def test_the_find_roll_is_not_offered_to_a_clover():
    """The Slaughter of Monsters, rulings, "The find roll": "it is not offered to a clover reroll (it only picks an
    item)", while the room roll is (`rulings.clover_dice = "any"`, the default). One clover held, table A all
    "monster": the step into cell 1 rolls 4 (a monster: a find roll), offered to the clover once (kept: options
    keep 4 or reroll); the find roll 3 (a shield) is not offered: the clover is still held, the shield collected."""
    g = play("slaughter", script=[4, 3], sheet={"hearts": 5, "clover": 1}, queues={"reroll": [reroll(0, 4)]},
             overrides={**SL, "events.A": ["monster"] * 6, "game.max_turns": 1})
    asks = g.decisions("reroll")
    assert len(asks) == 1 and asks[0].keys == [4, 10]  # the room roll's: keep its 4, or spend the clover
    assert g.rows(L.TR_SL_FIND) == [(1, 3, g.rules.icons.names.index("shield"), 0, 0)]
    assert g[L.CLOVER] == 1 and g[L.SHIELD] == 1


# ============================================================================ Santa Crash'n Foury
#: the campaign's rules on tiny maps (as tests/test_foury_santa.py): a goblin and an orc stand in for the Grinch and
#: the Yeti; no Wrath and an empty collection goal unless a test says otherwise
SANTA = {**QUIET_EVENTS, "santa.on": True, "santa.grinch": "goblin", "santa.yeti": "orc", "santa.wrath_turns": 0,
         "santa.goal": {k: 0 for k in L.SANTA_KIND_KEYS}, "kills.prize_every": 0}
#: table A's face 3 draws a wall behind you (the other faces do nothing)
WALL_BEHIND_ON_3 = {"events.A": ["nothing", "nothing", "collapse_behind", "nothing", "nothing", "nothing"]}


def santa_map(tmp_path, row: str) -> str:
    """A one-line Santa map (``row``: its room line, Santa's room ``O``, the Safe Zone ``X``)."""
    border = "+---" * ((len(row) - 1) // 4) + "+"
    p = tmp_path / "santa_audit.map"
    p.write_text(f"name: santa audit\n\n{border}\n{row}\n{border}\n")
    return str(p)


def test_a_stars_steps_that_cannot_be_taken_are_lost(tmp_path):
    """Santa Crash'n Foury, rulings, "A star": "its 4 steps are taken at once after the room is resolved ... and
    steps that cannot be taken (no open side) are lost". Santa's room is cell 1; the Safe Zone cell 0; the star in
    the dead end cell 3. Start in cell 2 (roll 1: nothing, turn 1); turn 2 steps into cell 3 (roll 3: a wall drawn
    behind, the only open side): the star gives 4 steps, none can be taken. Turn 3 digs back through that wall
    with the shovel into cell 2: the 4 steps are not carried over (no step taken there), the hourglass (3) runs out
    in cell 2."""
    g = play(santa_map(tmp_path, ">AX. O.. A.. Ax.|"), script=[1, 3], sheet={"hearts": 5, "shovel": 1},
             queues={"place": [2], "move": [3], "santa_home": [0, 0]},
             overrides={**SANTA, **WALL_BEHIND_ON_3, "santa.hourglass": 3, "rulings.crossing_in_turn": False})
    assert g.rows(L.TR_SANTA_STAR) == [(3, 4, 0, 0, 0)]  # the star's 4 steps granted, no step row
    assert g.walls(3)[3] == L.W_OPEN and g[L.SHOVEL] == 0  # the collapsed west wall of cell 3 was dug through
    assert g[L.S_SANTA_STEPS] == 0 and g[L.S_POS] == 2 and g[L.S_TURN] == 3 and g[L.S_SANTA_MARKS] == 3


def test_passing_the_safe_zone_on_a_stars_steps_is_no_stop(tmp_path):
    """Santa Crash'n Foury, rulings, "When the game ends": "At the Safe Zone (a turn that ends there: passing
    through it on a star's steps is not a stop)". Santa's room cell 1, the star cell 3, the Safe Zone cell 4, two
    rooms beyond it; the star gives 2 steps; the goal is 1 green package (none on the map), no Wrath attack. Start
    in cell 2 (turn 1); turn 2 steps onto the star (cell 3), its steps go 3 -> 4 (the Safe Zone) -> 5: the turn
    ends in cell 5, so the game goes on; turn 3 steps into cell 6 and marks the last hourglass space (3) without
    the goal: a loss (the Wrath, 0 attacks, survived), not the Safe Zone's win."""
    g = play(santa_map(tmp_path, ">A.. O.. A.. Ax. AX. A.. A..|"), script=[1, 1, 1], sheet={"hearts": 5},
             queues={"place": [2], "move": [3, 6], "santa_home": [0, 0], "extra_move": [4, 5]},
             overrides={**SANTA, "santa.hourglass": 3, "santa.star_steps": 2,
                        "santa.goal": {**SANTA["santa.goal"], "green": 1}})
    assert [r[1:3] for r in g.rows(L.TR_SANTA_STAR)[1:]] == [(3, 4), (4, 5)]
    assert g[L.S_TURN] == 3 and g[L.S_SANTA_MARKS] == 3 and g[L.S_POS] == 6
    assert g[L.S_SANTA_END] & 7 == L.SE_WRATH_SURVIVED and g[L.S_WIN] == 0


def test_stuck_the_hourglass_runs_out_where_you_stand(tmp_path):
    """Santa Crash'n Foury, ``santa.stuck = "hourglass"``: "Stuck (no move left): the hourglass runs out where you
    stand (then the goal or the Wrath)". Start in cell 2 (roll 1, turn 1); turn 2 steps into the dead end cell 3
    (roll 3: a wall drawn behind it), no shovel: turn 3 has no move. The hourglass (10) runs out there, after 2
    turns: with the goal (1 green package) not met, the Wrath (1 attack: 6 against 1 + 1, nothing lost); with the
    goal met (empty goal), the collection's win, no attack rolled."""
    path = santa_map(tmp_path, ">AX. O.. A.. A..|")
    over = {**SANTA, **WALL_BEHIND_ON_3, "santa.hourglass": 10, "santa.wrath_turns": 1, "santa.wrath_strength": 1,
            "santa.stuck": "hourglass"}  # (the default since session 67 is death: test_stuck_is_a_death)
    g = play(path, script=[1, 3, 6, 1], sheet={"hearts": 5}, queues={"place": [2], "move": [3], "santa_home": [0, 0]},
             overrides={**over, "santa.goal": {**SANTA["santa.goal"], "green": 1}})
    assert g[L.S_POS] == 3 and g[L.S_TURN] == 2 and g[L.S_SANTA_MARKS] == 10
    assert g[L.S_SANTA_END] & 7 == L.SE_WRATH_SURVIVED and g[L.HEARTS] == 5 and g[L.S_DEAD] == 0
    won = play(path, script=[1, 3], sheet={"hearts": 5}, queues={"place": [2], "move": [3], "santa_home": [0, 0]},
               overrides=over)
    assert won[L.S_POS] == 3 and won[L.S_SANTA_MARKS] == 10
    assert won[L.S_SANTA_END] & 7 == L.SE_COLLECTION and won[L.S_WIN] == 1


# ============================================================================ Discovering the Kraken
KR = str(DATA / "kraken_rules.toml")


def test_a_free_step_into_the_krakens_water_is_no_swim():
    """Discovering the Kraken, rulings, "What brings the Kraken": "every move that ends in its water ... Free steps
    (an extra move, a coloured potion's step) into water are not swims." kr_pool: cell 1 is a flooded tunnel of the
    Kraken's water (beside the Kraken, cell 2). In at cell 0 (room roll 6: table A's extra move), the extra move's
    one room is cell 1: the hero stands in the Kraken's water with no Kraken fight and no swim counted."""
    g = play("kr_pool", script=[6], sheet={"hearts": 3}, rules_file=KR,
             overrides={**QUIET_EVENTS, "events.A": ["nothing"] * 5 + ["extra_move"], "game.max_turns": 1})
    assert g.rows(L.TR_EXTRA) == [(1, 0, 0, 0, 0)] and g[L.S_POS] == 1 and g.room_state(1) & L.FLOODED
    assert g.rows(L.TR_KR_FIGHT) == [] and g.rows(L.TR_FIGHT) == [] and g[L.S_KR_SWIMS] == 0


def test_a_coloured_potions_step_into_the_krakens_water_is_no_swim(tmp_path):
    """Discovering the Kraken, rulings, "What brings the Kraken": "every move that ends in its water ... Free steps
    (an extra move, a coloured potion's step) into water are not swims." kr_pool with a yellow potion in cell 0,
    beside cell 1 (a flooded tunnel of the Kraken's water, beside the Kraken in cell 2). In at cell 0 (room roll 1:
    nothing): the potion heals 2 (3 -> 5 hearts) and its step (the only room beside: 1) ends in the Kraken's water
    with no Kraken fight and no swim counted."""
    path = variant(tmp_path, "kr_pool", ">A.. A~. O.. A.. A..<", ">Ay. A~. O.. A.. A..<")
    g = play(path, script=[1], sheet={"hearts": 3}, rules_file=KR,
             overrides={**QUIET_EVENTS, "game.max_turns": 1})
    assert g.rows(L.TR_GAIN) == [(L.HEARTS, 2, 5, 0, 0)] and g.rows(L.TR_POTION_STEP) == [(0, 1, 0, 0, 0)]
    assert g[L.S_POS] == 1 and g.room_state(1) & L.FLOODED
    assert g.rows(L.TR_KR_FIGHT) == [] and g.rows(L.TR_FIGHT) == [] and g[L.S_KR_SWIMS] == 0 and g[L.HEARTS] == 5


def test_no_market_after_the_winning_exit():
    """Discovering the Kraken, rulings, "The market": "at the end of a turn spent on any arrow's room ... The exit
    that wins ends the game: no market after it." kr_exit (one area, A; its requirement met at once): turn 2 takes
    the chest of cell 1, turn 3 exits by cell 2's arrow (the side opposite A) and wins, holding the chest with a
    requirement done (everything the market asks for; on the same path with another side opposite, the market is
    offered there: test_one_market_visit_at_an_exit_at_the_rate_of_requirements_done): no market, the chest is kept."""
    g = play("kr_exit", script=[1, 1, 1], queues={"move": [1, 2]}, sheet={"hearts": 3}, rules_file=KR,
             overrides=QUIET_EVENTS, strict=False)
    assert g[L.S_BAD_CHOICE] == 0
    assert g.rows(L.TR_EXIT)[0][0] == 2 and g[L.S_WIN] == 1 and g.out[L.KR_OUT] == L.KRE_WON
    assert g.decisions("kraken_market") == [] and g.rows(L.TR_KR_MARKET) == [] and g.rows(L.TR_MARKET_OPEN) == []
    assert g[L.CHEST] == 1 and g[L.S_KR_MARKET] == 0


def test_a_stars_remaining_steps_end_in_santas_room(tmp_path):
    """Santa Crash'n Foury, rulings, "The start": "Santa's room itself may be walked through later ...; a star's or an
    extra move's remaining steps end there". Santa's room is cell 1, the star cell 2 (the start, roll 1: nothing),
    the Safe Zone cell 4. The star's first step goes into Santa's room (3 steps left): they end there, nothing
    carries over. Turn 2 walks back over cell 2 into cell 3 (roll 1) and takes no step: the hourglass (2) runs out
    in cell 3. (The engine kept the 3 steps and took them the next turn, 3 -> 4 -> 3 -> 4, ending at the Safe
    Zone: found by the session-61 audit.)"""
    g = play(santa_map(tmp_path, ">A.. O.. Ax. A.. AX.|"), script=[1, 1], sheet={"hearts": 5},
             queues={"place": [2], "extra_move": [1], "move": [3], "santa_home": [0]},
             overrides={**SANTA, "santa.hourglass": 2})
    assert g.rows(L.TR_SANTA_STAR) == [(2, 4, 0, 0, 0), (-1, 2, 1, 3, 0)]  # granted; one step, into Santa's room
    assert g[L.S_SANTA_STEPS] == 0 and g[L.S_POS] == 3 and g[L.S_TURN] == 2 and g[L.S_SANTA_MARKS] == 2
