"""Dungeon Foury rules and rulings of docs/rules.md (its 2-player and campaign sections) that no test checked (the
rule audit of session 61): one scripted-dice test each, with tests/foury_helpers.py.

Every expected value follows from the doc's words (the section is named in each docstring). The maps are the
2-player test maps of tests/data/foury with a goblin added (written to the test's tmp_path). The players are free
characters with ``character.trait_marks = 1``: one heart each, so one lost roll-off kills. A roll-off rolls the
player's d6, then the foe's.
"""

from __future__ import annotations

from foury_helpers import DATA, QUIET_EVENTS, play

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
