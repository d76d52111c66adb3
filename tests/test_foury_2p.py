"""Dungeon Foury's 2-player mode (docs/rules.md "2-player mode"): one test per rule, scripted dice and choices.

Both players are played by the scripted policy (``tests/data/foury/scripted.py``): its queues are consumed in
the order the game asks, seat 1's and seat 2's decisions interleaved as the turns alternate. The maps:
``four_tables`` (A, B, D, C rooms in a row, an arrow on each; exits possible) and ``two_sides`` (A rooms west,
B rooms east, a chest at each end; no exit is ever legal, so a game ends by a death or the turn cap).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from foury_helpers import QUIET_EVENTS, play, rules

from foury_sim.errors import InputError
from foury_sim.games import foury
from foury_sim.games.foury import layout as L
from foury_sim.games.foury.outputs import OUTPUTS
from foury_sim.policy import make_policy

TWO = {**QUIET_EVENTS, "two_player.players": 2, "rulings.clover_dice": "combat", "two_player.swap_seats": False}
# (swap_seats off: the scripted queues are consumed once, by the seated game alone)
A_ARROW, C_ARROW = 3, 2  # four_tables: arrow 3 enters cell 0 (A), arrow 2 cell 3 (C)


def col(g, name: str) -> int:
    """A 2-player output column of a scripted game."""
    return int(g.out[OUTPUTS.kernel_names(g.rules).index(name)])


def turns(g) -> list[tuple[int, int]]:
    """(seat, turn) of every TR_P2_TURN row, in order."""
    return [(r[0], r[2]) for r in g.rows(L.TR_P2_TURN)]


# =========================================================================== sides, turns, exits
def test_sides_differ_and_turns_alternate_one_hourglass_mark_each():
    """Seat 1 chooses a side first; seat 2 is offered only arrows of the other sides; turns alternate 1, 2, 1, 2
    and each turn is one hourglass mark. With no treasure needed both exit in turn 2: a draw (equal turns)."""
    g = play("four_tables", hero="kael", script=[1] * 4, overrides={**TWO, "two_player.treasures": 0},
             queues={"round": [A_ARROW, C_ARROW], "move": [2]})
    first, second = g.decisions("round")
    assert A_ARROW in first.keys and A_ARROW not in second.keys and C_ARROW in second.keys
    assert g.rows(L.TR_P2_SIDE) == [(1, A_ARROW, 0, 0, 0), (2, C_ARROW, 2, 3, 0)]  # sectors A, C = 0, 2
    assert turns(g) == [(1, 1), (2, 1), (1, 2), (2, 2)]
    assert [r[0] for r in g.rows(L.TR_EXIT)] == [1, 2]  # cell 1 (sector B's arrow), cell 2 (sector D's arrow)
    assert g.rows(L.TR_P2_END) == [(0, L.P2E_BOTH_EXIT, 2, 2, 0)]
    assert (col(g, "p2_winner"), col(g, "p2_end"), g.out[L.OUT_WIN], col(g, "opponent_win")) == (0, 3, 0, 0)
    assert (col(g, "p2_turns_first"), col(g, "p2_turns_second")) == (2, 2)


def test_second_player_is_offered_no_arrow_of_the_first_players_side():
    """two_sides has two A arrows: seat 1 enters by one, and seat 2 is not offered the other (a different side):
    B's arrow is its only option, so it is not even asked."""
    g = _duel_game([], {}, **{"game.max_turns": 2})
    assert len(g.decisions("round")) == 1 and set(g.decisions("round")[0].keys) == {0, 1, 2}
    assert g.rows(L.TR_P2_SIDE) == [(1, 1, 0, 0, 0), (2, 2, 1, 3, 0)]


def test_first_to_exit_wins_at_once_without_finish_round():
    """two_player.finish_round = false: seat 1's exit ends the game; seat 2 does not play turn 2."""
    g = play("four_tables", hero="kael", script=[1] * 3,
             overrides={**TWO, "two_player.treasures": 0, "two_player.finish_round": False},
             queues={"round": [A_ARROW, C_ARROW]})
    assert turns(g) == [(1, 1), (2, 1), (1, 2)]
    assert g.rows(L.TR_P2_END) == [(1, L.P2E_EXIT, 2, 1, 0)]
    assert g.out[L.OUT_WIN] == 1 and col(g, "opponent_win") == 0


def test_exit_needs_the_treasures():
    """An exit stays closed until the player holds two_player.treasures chests: no exit, the turn cap ends it,
    a draw (cap_tiebreak = "draw")."""
    g = play("four_tables", hero="kael", script=[1] * 4,
             overrides={**TWO, "two_player.treasures": 1, "game.max_turns": 2},
             queues={"round": [A_ARROW, C_ARROW], "move": [2]})
    assert g.rows(L.TR_EXIT) == []
    assert g.rows(L.TR_P2_END) == [(0, L.P2E_CAP, 2, 2, 0)]
    assert g[L.CHEST] == 0 and g[L.S_PHASE] != 2


@pytest.mark.parametrize("treasures", [5, 1])
def test_oracle_phase_still_needs_the_treasures(treasures):
    """After the Oracle (its chest counts) a player heads for an exit, but the exit opens only with the treasures:
    seat 1 (C) visits the Oracle (1 chest) and steps onto D's arrow in turn 3: no exit with 5 needed, an exit
    with 1."""
    g = play("four_tables", hero="kael", script=[1] * 5,
             overrides={**TWO, "two_player.treasures": treasures, "two_player.duels": False, "game.max_turns": 3},
             queues={"round": [C_ARROW, A_ARROW], "move": [7, 2]}, strict=False, check_dice=False)
    assert g.rows(L.TR_ORACLE) and g[L.CHEST] == 1 and g[L.S_PHASE] == 2
    assert g.rows(L.TR_EXIT) == ([] if treasures == 5 else [(2, 3, 1, 0, 0)])
    assert (col(g, "p2_end"), g.out[L.OUT_WIN]) == ((L.P2E_CAP, 0) if treasures == 5 else (L.P2E_EXIT, 1))


def test_seat_order_option():
    """two_player.first = "opponent": the opponent's hero chooses a side and moves first."""
    g = play("four_tables", hero="kael", script=[1] * 3,
             overrides={**TWO, "two_player.treasures": 0, "two_player.finish_round": False,
                        "two_player.opponent": "melyra", "two_player.first": "opponent"},
             queues={"round": [A_ARROW, C_ARROW]})
    heroes = [(r[0], r[1]) for r in g.rows(L.TR_P2_TURN)]
    assert heroes[0] == (1, L.HERO_KEYS.index("melyra")) and heroes[1] == (2, L.HERO_KEYS.index("kael"))
    assert g.rows(L.TR_CREATE)[0] == tuple(g.rules.data["heroes"]["melyra"]["start"][n] for n in L.TRACK_NAMES[:5])
    assert g.out[L.OUT_WIN] == 0 and col(g, "opponent_win") == 1  # the opponent (seat 1) exited first
    assert g[L.S_P2_SEAT] == 2  # the returned state is the run's hero's


# =========================================================================== duels
def _duel_game(dice, queues, **over):
    """two_sides: both enter at the ends (and take the chest there), step inwards, then may duel from turn 3."""
    return play("two_sides", hero="kael", script=[1, 1, 1, 1, *dice],
                overrides={**TWO, "game.max_turns": 3, **over},
                queues={"round": [1], **queues})  # seat 1 enters at cell 0


def test_duel_kills_and_loots():
    """A duel: one roll-off, each player's d6 plus the weapon they add (it wears by 1); the lower loses the
    difference in hearts; the winner takes duel_loot chests. Dead: the other player wins (outlived)."""
    g = _duel_game([6, 1], {"duel": [1], "weapon": [1, 0], "shield": [0]})
    kael = g.rules.data["heroes"]["kael"]["start"]
    assert g.rows(L.TR_P2_DUEL) == [(1, 2, 1, 0, 0)]  # seat 1 walks 1 explored room to cell 2
    assert g.rows(L.TR_P2_DUEL_ROLL) == [(6, kael["weapon"], 1, 0, 0)]
    dmg = 6 + kael["weapon"] - 1
    assert g.rows(L.TR_P2_DUEL_END) == [(1, dmg, 0, 1, 0)]
    assert g[L.WEAPON] == kael["weapon"] - 1 and g[L.CHEST] == 2
    assert (col(g, "p2_chests_first"), col(g, "p2_chests_second")) == (2, 0)
    assert g.rows(L.TR_P2_END) == [(1, L.P2E_SURVIVED, 3, 2, 0)]
    assert g.rows(L.TR_DEATH)[0][:2] == (L.CAUSE_DUEL, 2)
    assert col(g, "p2_duels") == 1 and g[L.S_P2_DUELS_WON] == 1 and g[L.S_P2_LOOTED] == 1


@pytest.mark.parametrize("tiebreak, winner", [("draw", 0), ("treasures", 2)])
def test_duel_tie_shield_and_turn_cap(tiebreak, winner):
    """A tied duel does nothing; a shield blocks the hit (the loot is still taken); both alive at the turn
    cap: a draw, or the player with more chests (cap_tiebreak = "treasures")."""
    g = _duel_game([3, 3, 6, 1], {"duel": [1, 1], "weapon": [0, 0, 1, 0], "shield": [1]},
                   **{"two_player.cap_tiebreak": tiebreak})
    kael = g.rules.data["heroes"]["kael"]["start"]
    assert [r[0] for r in g.rows(L.TR_P2_DUEL)] == [1, 2]
    assert g.rows(L.TR_P2_DUEL_END) == [(0, 0, 0, 0, 0), (2, 0, kael["hearts"], 1, 1)]
    assert g[L.HEARTS] == kael["hearts"] and g[L.SHIELD] == kael["shield"] - 1 and g[L.CHEST] == 0
    assert g.rows(L.TR_P2_END) == [(winner, L.P2E_CAP, 3, 3, 0)]


def test_no_duel_offered_when_duels_are_off():
    """two_player.duels = false: the duel decision never comes."""
    g = play("two_sides", hero="kael", script=[1] * 6,
             overrides={**TWO, "game.max_turns": 3, "two_player.duels": False},
             queues={"round": [1]}, check_dice=False)
    assert g.decisions("duel") == [] and g.rows(L.TR_P2_DUEL) == []
    assert turns(g) == [(1, 1), (2, 1), (1, 2), (2, 2), (1, 3), (2, 3)]  # turn 3: ordinary turns


# =========================================================================== ruleset, determinism, seats
def test_two_player_ruleset_checks():
    r = rules("four_tables", TWO)
    assert r.players == 2 and int(r.R[L.R_ROUNDS]) == 1 and int(r.R[L.R_COINS]) == 0
    with pytest.raises(InputError, match="two_player.opponent"):
        rules("four_tables", {**TWO, "two_player.opponent": "nobody"})
    with pytest.raises(InputError, match="two_player.first"):
        rules("four_tables", {**TWO, "two_player.first": "youngest"})
    with pytest.raises(InputError, match="two_player.players"):
        rules("four_tables", {**TWO, "two_player.players": 3})
    with pytest.raises(InputError, match="at least two sides"):
        rules("arena", TWO)
    assert OUTPUTS.kernel_names(rules("four_tables")) == OUTPUTS.kernel_names()  # the solo game: no new column


def test_search_policy_refused():
    r = foury.load_ruleset(None, ["two_player.players=2"])
    with pytest.raises(InputError, match="search"):
        foury.simulate(r, "kael", make_policy("search", foury.POLICIES), 1, 0, 1)


def _run(sets, n=6, hero="kael"):
    r = foury.load_ruleset(None, ["two_player.players=2", *sets])
    cols = foury.simulate(r, hero, make_policy("greedy", foury.POLICIES), 7, 0, n)
    cols.pop("_visits")
    return cols


def test_seat_swap_is_paired_and_games_replay_alone():
    """The swapped game of a run (hero first) is the seated game of the run with the opponent first, on the
    same dice; a game replays alone as in the run; the same run twice gives the same games."""
    a = _run(["two_player.opponent=thalindra"])
    b = _run(["two_player.opponent=thalindra", "two_player.first=opponent"])
    np.testing.assert_array_equal(a["p2_winner_swapped"], b["p2_winner"])
    np.testing.assert_array_equal(b["p2_winner_swapped"], a["p2_winner"])
    again = _run(["two_player.opponent=thalindra"])
    for k in a:
        np.testing.assert_array_equal(a[k], again[k])
    r = foury.load_ruleset(None, ["two_player.players=2", "two_player.opponent=thalindra"])
    out, st, rm, tr = foury.play_one(r, "kael", make_policy("greedy", foury.POLICIES), 7, 3)
    names = OUTPUTS.kernel_names(r)
    for i, name in enumerate(names):
        assert out[i] == a[name][3], name
    assert ((a["win"] == 1) == (a["p2_winner"] == 1)).all()  # the hero is seat 1
    assert ((a["opponent_win"] == 1) == (a["p2_winner"] == 2)).all()


# =========================================================================== golden replay
def test_golden_two_player_replay():
    """A whole 2-player game in words (both players' turns and their duels), pinned: Kael (seat 1) against
    Melyra, greedy, seed 16, game 4 (a race won by an exit, with duels)."""
    r = foury.load_ruleset(None, ["two_player.players=2", "two_player.opponent=melyra"])
    text = "\n".join(foury.replay(r, "kael", make_policy("greedy", foury.POLICIES), 16, 4)) + "\n"
    path = Path(__file__).parent / "golden" / "foury_2p_seed16_game4_kael_melyra_greedy.txt"
    if os.environ.get("FOURY_SIM_REGEN_GOLDEN") == "1" or not path.exists():
        path.write_text(text)
    assert text == path.read_text(), f"replay differs from {path.name}; regenerate with FOURY_SIM_REGEN_GOLDEN=1"
    assert "-- Player 1 (Kael)" in text and "-- Player 2 (Melyra)" in text and "DUEL" in text


def test_the_run_legend_says_what_win_means_in_the_2_player_mode():
    """docs/rules.md "2-player mode": one adventure each, no continue; `win` is the run's hero's. The legend of a
    2-player run says so (not the solo game's "completed all four rounds (continues allowed)")."""
    from foury_sim.outputs import LEGEND_HEADING, legend_lines
    from foury_sim.runner import run

    res = run("foury", hero="kael", games=20, seed=2, progress=False, sets=["two_player.players=2"])
    lines = legend_lines(res.summary, OUTPUTS)
    assert lines[0] == LEGEND_HEADING
    win = next(x for x in lines if x.strip().startswith("win rate"))
    clean = next(x for x in lines if x.strip().startswith("without continue"))
    assert "the run's hero won" in win and "no continue" in win and "four rounds" not in win
    assert "continues allowed" not in win and "no continue" in clean and "inserting a coin" not in clean
    solo = run("foury", hero="kael", games=20, seed=2, progress=False)
    lines = legend_lines(solo.summary, OUTPUTS)
    assert "completed all four rounds" in next(x for x in lines if x.strip().startswith("win rate"))
    assert "inserting a coin" in next(x for x in lines if x.strip().startswith("without continue"))


def test_the_search_policy_in_the_2_player_mode_is_refused_at_policy():
    """The search policy's refusal under the 2-player mode named no place ("foury-sim: error: the search policy
    ..."): it names ``--policy`` (a sweep names its line and cell, compare the variant)."""
    from inproc import cli

    r = cli("run", "foury", "--policy", "search", "--set", "two_player.players=2", "--games", "10")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == ("foury-sim: error: --policy: the search policy plays the solo game only: choose another "
                        "policy for two_player.players = 2\n")


# =========================================================== the treasures, the requirement and the Oracle (session 67)
def test_a_treasure_taken_in_an_exit_room_opens_that_exit_at_once():
    """"Collect at least 5 treasures and then exit": seat 1 (A) steps in turn 2 onto sector B's unused arrow, whose
    room holds a chest; with ``two_player.treasures = 1`` that chest opens the exit there and then ("Have you
    survived? CONGRATULATIONS"), not only once the turn is over (map ``p2_exit_chest``)."""
    g = play("p2_exit_chest", hero="kael", script=[1] * 6,
             overrides={**TWO, "two_player.treasures": 1, "game.max_turns": 2},
             queues={"round": [1, 2], "move": [1, 2]}, strict=False, check_dice=False)
    assert g.rows(L.TR_EXIT) == [(1, 1, 0, 0, 0)]  # (room 1, sector B, arrow 0)
    assert (col(g, "p2_end"), g.out[L.OUT_WIN]) == (L.P2E_EXIT, 1)
    assert g.out[L.OUT_ROUNDS] == 1  # the one round of a 2-player game, completed (it read 0 for every game)


def test_the_oracle_still_gives_its_treasure_once_the_treasures_are_held():
    """"You still have the option to fulfill the requirement of the Round you are playing and visit the Oracle to
    gain an extra treasure": seat 1 holds the one treasure needed after turn 1 (the chest of its entry room), so it
    heads for an exit; the Oracle (awake: the Temple asks for nothing here) still gives its chest in turn 2, once."""
    g = play("p2_oracle", hero="kael", script=[1] * 6,
             overrides={**TWO, "two_player.treasures": 1, "game.max_turns": 2, "requirements.statues": 0},
             queues={"round": [1, 0], "move": [1, 3]}, strict=False, check_dice=False)
    oracle = g.rows(L.TR_ORACLE)
    assert len(oracle) == 1 and oracle[0][1] == 1
    assert g[L.S_P2_ORACLE] == 1


def test_the_requirement_still_counts_while_heading_for_an_exit():
    """The round's requirement is still met on the way out: with the treasure in hand (phase 2) from turn 1, the
    statue faced in turn 2 counts for the Temple and wakes the Oracle (it used to be lost once the phase was 2)."""
    g = play("p2_oracle_statue", hero="kael", script=[1, 1, 6, 1, 1, 1, 1, 1],
             overrides={**TWO, "two_player.treasures": 1, "game.max_turns": 2, "requirements.statues": 1},
             queues={"round": [1, 0], "move": [1, 3]}, strict=False, check_dice=False)
    assert (1, 1, 0, 0, 0) in g.rows(L.TR_REQ)
    assert g.rows(L.TR_AWAKE) != []
