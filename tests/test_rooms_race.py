"""Rooms' race for 2-4 players (``race.players``; docs/rules-rooms.md "The race"): scripted races on a two-room
dungeon (start, then the boss's lair behind its locked west door; the dragon at 1 HP, no defensive roll, so the
scripted 1 2 3 4 5 kills it at once: the fight answers are option 0, the first ability made, Volley), each seat's
wishes through the seat-aware ``race_scripted`` policy of tests/data/rooms_policies.py; and, on dealt dungeons, the
seats' streams: seat 1 is the solo game. Then the per-fight and per-cell outputs on the same dungeon.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from foury_sim.errors import InputError
from foury_sim.games import rooms as R
from foury_sim.games.rooms import layout as L
from foury_sim.games.rooms import outputs as O
from foury_sim.policy import make_policy

E = 1
TWO_ROOMS = "start  dragon_lair\n"
# (and the 1 HP answer with the seed's key in hand, so that one seat may pay HP where the other spends its key)
WEAK_BOSS = ("monsters.dragon.hp=1", "monsters.dragon.defense.dice=0", "navigation.hp_with_item=true")
STRAIGHT = [1, 2, 3, 4, 5]  # three arrows (Volley, 4 damage, the first ability on the sheet) and a large straight
KEY = (L.A_MOVE, E, L.PASS_ITEM, -1)  # step east into the lair, spending the key
HP = (L.A_MOVE, E, L.PASS_HP, -1)  # the same, paying 1 HP instead
WAIT = (L.A_END, 0, 0, -1)  # end the turn where one stands


@pytest.fixture(scope="module")
def seated():
    return make_policy("tests/data/rooms_policies.py:race_scripted", R.POLICIES)


def race(seated, tmp_path, seats, script=(), sets=(), bad=0):
    """One race; ``seats``: each seat's wishes (tuples of 4 numbers, one per action)."""
    p = tmp_path / "two.txt"
    p.write_text(TWO_ROOMS)
    given = {s.split("=", 1)[0] for s in sets}  # (a --set key may be given once: a test's own replaces the default)
    rs = R.load_ruleset(None, [f"race.players={len(seats)}", *(w for w in WEAK_BOSS if w.split("=", 1)[0] not in given),
                               *sets], str(p))
    size = 4 * max(len(s) for s in seats) + 4
    params = [float(size)]
    for wishes in seats:
        flat = [x for w in wishes for x in w]
        params += flat + [0.0] * (size - len(flat))
    row, lines = R.play_one(rs, "ranger", replace(seated, params=np.array(params)), 0, 0, list(script))
    assert row["bad_answers"] == bad, "\n".join(lines)
    return row, lines


def has(lines, *texts):
    for t in texts:
        assert any(t in line for line in lines), f"{t!r} not in:\n" + "\n".join(lines)


def test_first_to_finish_wins_and_player_one_plays_on(seated, tmp_path):
    """Seat 1 waits a turn, seat 2 walks in and kills the boss on turn 1: seat 2 wins after round 1; seat 1 plays
    on alone and wins its own game on turn 2 (its per-game columns are its whole game)."""
    row, lines = race(seated, tmp_path, [[WAIT, KEY], [KEY]], STRAIGHT + STRAIGHT)
    assert (row["race_winner"], row["race_end"], row["race_turn"]) == (2, L.RE_FIRST, 1)
    assert (row["race_turns1"], row["race_turns2"]) == (1, 1)
    assert (row["race_seat1"], row["race_seat2"]) == (L.SEAT_RACING, L.SEAT_FINISHED)
    assert row["race_winner_swapped"] == 1  # the same player, now in seat 1
    assert (row["win"], row["turns"], row["keys_spent"]) == (1, 2, 1)  # player 1's own game, played out
    has(lines, "==== Player 1 of 2: their own dungeon is laid", "==== Player 2's turn 1 (30 HP)",
        "==== the race is decided after round 1: player 2 wins (one player finished first); with the seats "
        "reversed, player 1 wins. Player 1 plays on alone", "== the boss is defeated on turn 2: WON")


def test_same_round_finishers_are_parted_by_the_score(seated, tmp_path):
    """Both finish in round 1; seat 1 paid 1 HP instead of the key: 29 HP against 30, seat 2 wins on the score."""
    row, lines = race(seated, tmp_path, [[HP], [KEY]], STRAIGHT + STRAIGHT)
    assert (row["race_winner"], row["race_end"]) == (2, L.RE_SCORE)
    assert (row["race_seat1"], row["race_seat2"]) == (L.SEAT_FINISHED, L.SEAT_FINISHED)
    assert row["race_score2"] - row["race_score1"] == 1  # 1 HP; the same gold and rooms resolved
    assert row["win"] == 1 and row["hp_left"] == 29  # seat 1 did defeat its own boss


def test_score_weights_are_data(seated, tmp_path):
    """With race.score_hp = 0 the HP no longer count: the same score, a tie, no winner."""
    row, _ = race(seated, tmp_path, [[HP], [KEY]], STRAIGHT + STRAIGHT, sets=("race.score_hp=0",))
    assert (row["race_winner"], row["race_end"], row["race_winner_swapped"]) == (0, L.RE_TIE, 0)
    assert row["race_score1"] == row["race_score2"]


def test_first_in_seat_order_wins_without_playing_the_round_out(seated, tmp_path):
    """race.finish_round = false: both would finish in round 1, seat 1 plays first and wins at once; seat 2's turn
    1 does not count; reversed, seat 2's player would have played first and won: the first seat's edge is 2."""
    row, _ = race(seated, tmp_path, [[KEY], [KEY]], STRAIGHT + STRAIGHT, sets=("race.finish_round=false",))
    assert (row["race_winner"], row["race_end"], row["race_winner_swapped"]) == (1, L.RE_ORDER, 1)
    assert (row["race_turns1"], row["race_turns2"]) == (1, 0)
    assert (row["race_seat1"], row["race_seat2"]) == (L.SEAT_FINISHED, L.SEAT_RACING)
    df = __import__("pandas").DataFrame([row])
    assert O._first_seat_edge(df).tolist() == [2]


def test_every_player_dead_is_no_winner(seated, tmp_path):
    """At 1 HP, paying 1 HP for the locked door kills: both players die in round 1."""
    row, lines = race(seated, tmp_path, [[HP], [HP]], sets=("heroes.ranger.hp=1",))
    assert (row["race_winner"], row["race_end"], row["race_turn"]) == (0, L.RE_ALL_OUT, 1)
    assert (row["race_seat1"], row["race_seat2"]) == (L.SEAT_DEAD, L.SEAT_DEAD)
    assert (row["win"], row["death_cause"]) == (0, L.CAUSE_HP_PAID)


def test_turn_cap_is_no_winner(seated, tmp_path):
    row, _ = race(seated, tmp_path, [[WAIT], [WAIT], [WAIT]], sets=("navigation.turn_cap=1",))
    assert (row["race_winner"], row["race_end"], row["race_turn"]) == (0, L.RE_CAP, 1)
    assert [row[f"race_seat{s}"] for s in (1, 2, 3)] == [L.SEAT_CAP] * 3
    assert [row[f"race_turns{s}"] for s in (1, 2, 3)] == [1, 1, 1]
    assert row["death_cause"] == L.CAUSE_TURN_CAP


def test_a_dead_player_is_out_and_the_others_race_on(seated, tmp_path):
    """Seat 1 dies paying its last HP in round 1; seat 2 waits, then wins in round 2 (three seats: seat 3 waits)."""
    row, lines = race(seated, tmp_path, [[HP], [WAIT, KEY], [WAIT, WAIT]], STRAIGHT,
                      sets=("heroes.ranger.hp=1",))
    assert (row["race_winner"], row["race_end"], row["race_turn"]) == (2, L.RE_FIRST, 2)
    assert [row[f"race_seat{s}"] for s in (1, 2, 3)] == [L.SEAT_DEAD, L.SEAT_FINISHED, L.SEAT_RACING]
    assert [row[f"race_turns{s}"] for s in (1, 2, 3)] == [1, 2, 2]
    assert row["race_winner_swapped"] == 2  # 3 seats reversed: seat 2 stays seat 2


def test_race_columns_only_in_the_race():
    solo = R.load_ruleset()
    three = R.load_ruleset(None, ["race.players=3"])
    assert not any(c.startswith("race_") for c in R.columns(solo))
    names = R.columns(three)
    assert names[:len(R.columns(solo))] == R.columns(solo)
    assert [n for n in names if n.startswith("race_turns")] == ["race_turns1", "race_turns2", "race_turns3"]
    assert O.RACE_END_LABELS == L.RACE_END_NAMES and O.SEAT_STATE_LABELS == L.SEAT_STATE_NAMES


def test_bad_race_settings_are_refused():
    with pytest.raises(InputError, match="race.players = 5 is above 4"):
        R.load_ruleset(None, ["race.players=5"])
    with pytest.raises(InputError, match="race.finish_round must be true or false"):
        R.load_ruleset(None, ["race.finish_round=2"])


def test_seat_one_is_the_solo_game_and_seat_two_its_own_stream():
    """On the dealt dungeon, random policy: seat 1's per-game columns are the solo game's (same seed and game), and
    seat 2's game is the solo game of stream (seed XOR SEAT_KEYS[1], game): where seat 2's game ended before the race
    was decided, its turns are that solo game's."""
    pol = make_policy("random", R.POLICIES)
    solo = R.load_ruleset(None, ["navigation.turn_cap=6"])
    duo = R.load_ruleset(None, ["navigation.turn_cap=6", "race.players=2"])
    a = R.simulate(solo, "berserker", pol, 7, 0, 6)
    b = R.simulate(duo, "berserker", pol, 7, 0, 6)
    for k in a:
        assert np.array_equal(a[k], b[k]), k
    seat2 = R.simulate(solo, "berserker", pol, 7 ^ L.SEAT_KEYS[1], 0, 6)
    over = (b["race_seat2"] == L.SEAT_DEAD) | (b["race_seat2"] == L.SEAT_FINISHED)
    assert np.array_equal(b["race_turns2"][over], seat2["turns"][over])
    assert np.array_equal(b["race_seat2"] == L.SEAT_DEAD, (seat2["death_cause"] != L.CAUSE_WON) &
                          (seat2["death_cause"] != L.CAUSE_TURN_CAP) & (seat2["turns"] <= b["race_turn"]))


# --- the per-fight and per-cell outputs (the solo game: one seat) -----------------------------------------------------
def test_damage_per_fight_columns(seated, tmp_path):
    """A 10 HP dragon: 3 4 5 6 6 makes Running Fire alone (6 damage), the dragon's 3 d6 roll 6 6 6 (4 + 4 + 4), the
    ranger's defensive roll 1 1 blocks nothing: 12 HP lost; Running Fire again kills it (4 HP dealt)."""
    script = [3, 4, 5, 6, 6] + [6, 6, 6] + [1, 1] + [3, 4, 5, 6, 6]
    row, lines = race(seated, tmp_path, [[KEY]], script, sets=("monsters.dragon.hp=10",))
    assert "race_winner" not in row  # one seat: the solo game
    assert (row["win"], row["fights"], row["fight_turns"]) == (1, 1, 2)
    assert (row["damage_dealt"], row["most_dealt_fight"]) == (10, 10)
    assert (row["damage_taken"], row["most_taken_fight"], row["boss_taken"], row["hp_left"]) == (12, 12, 12, 18)
    assert row["death_cell"] == -1
    df = __import__("pandas").DataFrame([row, {**row, "fights": 0, "damage_dealt": 0, "damage_taken": 0,
                                              "fight_turns": 0}])
    assert R.summarize(df)["per_fight"] == {"dealt": 10.0, "taken": 12.0, "hero turns": 2.0, "fights/game": 0.5}


def test_death_cell_and_room(seated, tmp_path):
    """At 1 HP the ranger's 4 4 4 5 6 makes nothing; the dragon's 6 6 6 kills it in the lair (row 1, column 2)."""
    row, _ = race(seated, tmp_path, [[KEY]], [4, 4, 4, 5, 6, 6, 6, 6, 1, 1], sets=("heroes.ranger.hp=1",))
    assert (row["win"], row["death_cell"], row["death_cause"], row["death_room"]) == (0, 1, L.CAUSE_FIGHT, L.K_BOSS)
    # the hero's damage taken counts the whole attack, below 0 HP too (combat's S_TAKEN; monsters' has no overkill)
    assert (row["most_taken_fight"], row["boss_taken"], row["damage_dealt"]) == (12, 12, 0)


def test_visits_and_deaths_per_cell(seated, tmp_path):
    """The run's per-cell numbers (``board.cell_record``): the entered masks of each game summed by cell, deaths by
    ``death_cell``; on a fixed dungeon the record names its file; the report's heat map draws them."""
    from foury_sim.figures import heat_map
    from foury_sim.games.rooms.board import BOARD

    p = tmp_path / "three.txt"
    p.write_text("start  dragon_lair\n.      fountain\n")
    rs = R.load_ruleset(None, list(WEAK_BOSS), str(p))
    params = np.array([8.0, *KEY, 0, 0, 0, 0], dtype=np.float64)
    out, _ = R._run(rs, "ranger", replace(seated, params=params), 0, 0, 3, np.array(STRAIGHT))
    assert R.visits(out, rs).tolist() == [3, 3, 0, 0]  # start and lair entered in each of the 3 games
    df = __import__("pandas").DataFrame({"death_cell": [-1, 1, 1, 3]})
    rec = BOARD.cell_record(rs, df, {"visits": np.array([4, 3, 0, 1])})
    assert rec == {"map": str(p), "deaths": [0, 2, 0, 1], "visits": [4, 3, 0, 1]}
    assert BOARD.cell_record(R.load_ruleset(), df, {})["map"] == "dealt"
    fig = heat_map({"board_cells": {**rec, "map": "crossroads", "deaths": [0] * 20, "visits": [1] * 20},
                    "games": 4, "label": "x"}, "visits", board=BOARD)
    assert any(a.get_gid() == "heat" for a in fig.axes[0].get_images())
