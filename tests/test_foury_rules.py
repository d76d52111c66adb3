"""Dungeon Foury: one test per rule of the base game, with scripted dice and scripted choices.

Every game here runs through the engine's own ``play_one`` on a tiny map from ``tests/data/foury``
with forced dice (``script``) and the scripted policy ``tests/data/foury/scripted.py``; see
``tests/foury_helpers.py``. Most games end on purpose with ``game.max_turns`` (the turn cap ends the
game as soon as the moves under test are done, leaving the sheet as it is).

Map cells are numbered ``row * cols + col``; sides and headings are N, E, S, W = 0, 1, 2, 3.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from foury_helpers import (
    DONE,
    QUIET_EVENTS,
    clover,
    engine_loops,
    heuristic_decide,
    make_params,
    market,
    move,
    play,
    policy_fn,
    relative_side,
    reroll,
    rules,
)

from foury_sim.errors import InputError
from foury_sim.games.foury import icons as I
from foury_sim.games.foury import layout as L
from foury_sim.games.foury.ruleset import RULINGS
from foury_sim.games.foury.ruleset import load_ruleset as load_foury_ruleset
from foury_sim.stats import binom_z

# the shipped enemies' icons (slots of the ruleset's [enemies] table, in its order)
STATUE, GOBLIN, ORC, IMP, BANDIT, TROLL, MINOTAUR = (
    I.SHIPPED.foe(k) for k in ("statue", "goblin", "orc", "imp", "bandit", "troll", "minotaur"))
H, SH, CL, WP, SV, CH, CU = (L.HEARTS, L.SHIELD, L.CLOVER, L.WEAPON, L.SHOVEL, L.CHEST, L.CORNU)
N, E, S, W = 0, 1, 2, 3
DATA_DIR = Path(__file__).parent / "data" / "foury"
STEP, SHOVEL_MOVE, GOTO, STAIRS, CIRCLE, SWIM = (L.MK_STEP, L.MK_SHOVEL, L.MK_GOTO, L.MK_STAIRS, L.MK_CIRCLE,
                                                 L.MK_SWIM)
DEFAULT_RULES = rules("cross_A")  # the shipped rules.toml (plus the tiny-map switches)
DATA = DEFAULT_RULES.data


def bonus(k: int) -> int:
    return DATA["round"]["monster_bonus"][k]


def chest_value(k: int) -> int:
    return DATA["round"]["chest_value"][k]


def event_sides(text: str) -> list[str]:
    """The wall sides an event of the ruleset collapses ("collapse_left_front" -> left, front)."""
    sides: list[str] = []
    for part in text.split("+"):
        if part.startswith("collapse_"):
            sides += part[len("collapse_"):].split("_")
    return sides


def moves_into(decision, cell):
    return [m for m in decision.moves() if m["to"] == cell]


# =========================================================================== character creation
def test_character_creation_marks_within_caps():
    """12 marks placed freely, never beyond a track's cap (a capped track is no longer offered)."""
    cap_h = DATA["character"]["cap"]["hearts"]
    marks = DATA["character"]["trait_marks"]
    queue = [H] * cap_h + [SH] * (marks - cap_h)
    g = play("cross_A", script=[2], queues={"round": [2], "trait": queue}, overrides={"max_turns": 1})
    assert [g[t] for t in range(5)] == [cap_h, marks - cap_h, 0, 0, 0]
    assert sum(g[t] for t in range(5)) == marks == 12
    trait = g.decisions("trait")
    assert len(trait) == marks
    caps = [DATA["character"]["cap"][L.TRACK_NAMES[t]] for t in range(5)]
    for d in trait:  # exactly the tracks below their cap are offered
        assert d.keys == [t for t in range(5) if d.snap[L.TRACK_NAMES[t]] < caps[t]]
    assert H not in trait[cap_h].keys
    assert g.rows(L.TR_CREATE) == [(cap_h, marks - cap_h, 0, 0, 0)]
    assert [g[L.S_CAP + t] for t in range(L.N_TRACKS)] == [DATA["character"]["cap"][n] for n in L.TRACK_NAMES]


def test_character_creation_keeps_one_heart():
    """RULING min_hearts = 1: the last mark must go to hearts if none was placed there."""
    queue = [SH] * 4 + [CL] * 4 + [WP] * 4
    g = play("cross_A", script=[2], queues={"round": [2], "trait": queue}, overrides={"max_turns": 1},
             strict=False)
    assert [g[t] for t in range(5)] == [1, 4, 4, 3, 0]
    assert g.queue_left() == {"trait": 1}  # the 12th mark was not a choice: hearts was the only option
    assert g[L.S_BAD_CHOICE] == 0


@pytest.mark.parametrize("hero", ["kael", "melyra", "thalindra", "elydion"])
def test_hero_sheets(hero):
    """A hero copies the pre-filled sheet; blacked-out boxes are the caps."""
    g = play("cross_A", hero=hero, script=[2], queues={"round": [2]}, overrides={"max_turns": 1})
    sheet = DATA["heroes"][hero]
    assert [g[t] for t in range(5)] == [sheet["start"][n] for n in L.TRACK_NAMES[:5]]
    assert [g[L.S_CAP + t] for t in range(5)] == [sheet["cap"][n] for n in L.TRACK_NAMES[:5]]
    assert g[CH] == g[CU] == 0
    assert g.decisions("trait") == []
    assert g.rows(L.TR_CREATE) == [tuple(sheet["start"][n] for n in L.TRACK_NAMES[:5])]
    assert g[L.S_HERO] == L.HERO_KEYS.index(hero)


def test_resources_beyond_cap_are_lost():
    """A potion at full hearts is lost (the track is full)."""
    cap_h = DATA["character"]["cap"]["hearts"]
    g = play("items", script=[2, 2], sheet={"hearts": cap_h}, overrides={"max_turns": 2})
    assert g[H] == cap_h
    assert (H, DATA["potions"]["red"], 0, 0, 0) in g.rows(L.TR_CAPPED)
    assert g.icons(1, I.POTION) == 0


# ============================================================================ four rounds (ring4)
RING_SHEET = {"hearts": 6, "shield": 2, "clover": 1, "shovel": 3}
RING_QUEUES = {
    "round": [0, 3, 7],
    "move": [1, 4, 2, 4, 8, 4, 6, 4, 0],
    "cornucopia": [-1],
    "place": [5, 7, 5, 1],
    "market": [market(L.M_BUY, H), market(L.M_REDEEM, SH), DONE,
               market(L.M_BUY, WP), DONE,
               market(L.M_BUY, CL), market(L.M_SWAP, H, WP), DONE],
}
RING_DICE = [4, 4, 6, 1, 4, 6, 1, 4, 4, 4]


@pytest.fixture(scope="module")
def ring():
    """A whole four-round game on ring4.map (quiet room events; no requirements to meet).

    Round 1 A: in at cell 0, cornucopia kept in cell 1, the Oracle, stand in cell 5 (goblin), out at 2.
    Market x1: a chest buys 1 heart, the cornucopia redeemed for a shield.
    Round 2 B: in at cell 2, the Oracle, stand in cell 7 (orc), out at 8. Market x2: a chest buys 2 weapon.
    Round 3 C: in at cell 8, the Oracle, stand in 5, out at 6. Market x3: 3 clovers, 1 heart -> 1 weapon.
    Round 4 D: in at cell 6, the Oracle, stand in 1, out at 0.
    """
    ov = dict(QUIET_EVENTS)
    ov.update({"game.rounds": 4, "requirements.kills": 0, "requirements.cornucopias": 0})
    return play("ring4", script=RING_DICE, queues=RING_QUEUES, overrides=ov, sheet=RING_SHEET)


def round_of(g, code_index):
    """Round number (1..4) of the trace row at ``code_index``."""
    return sum(1 for r in g.tr[:code_index + 1] if r[0] == L.TR_ROUND)


def test_round_choice_closes_entry_arrow(ring):
    rnd = ring.decisions("round")
    assert rnd[0].keys == list(range(8))  # round 1: every arrow
    # round 2: arrow 0 (entered), 1 (exited) and 2 (its sector A is done) are gone
    assert rnd[1].keys == [3, 4, 5, 6, 7]
    assert rnd[2].keys == [4, 6, 7]  # round 3: also 3 (entered), 5 (exited) and sector B
    rounds = ring.rows(L.TR_ROUND)
    assert [(r[0], r[1], r[2]) for r in rounds] == [(1, 0, 0), (2, 1, 2), (3, 2, 8), (4, 3, 6)]
    entries = {0, 3, 7, 6}  # arrow 6 was the only one left for round 4 (no decision)
    exits = [r[2] for r in ring.rows(L.TR_EXIT)]
    assert exits == [1, 5, 4, 2]
    assert not entries & set(exits)
    assert all(ring[L.S_ARROW0 + a] == 1 for a in range(8))
    # round 3, heading out: cells 2 and 8 (both arrows used) are no exits; neither is cell 0 (arrow 2 unused):
    # leaving there would leave round 4 (D: arrows 4 and 6 only) without an exit (reserve_entries = "rounds")
    r3_move = [d for d in ring.decisions("move") if d.snap["round"] == 2 and d.snap["phase"] == 2][0]
    targets = {m["to"] for m in r3_move.moves() if m["kind"] == GOTO}
    assert 0 not in targets and 2 not in targets and 8 not in targets
    assert ring[L.S_UNWIN_TURN] == 0 and int(ring.out[L.OUT_UNWIN_TURN]) == 0


def test_round_choice_sector_only_option():
    """rulings.reserve_entries = "sector_only": in round 3 the A arrow in cell 0 is offered as an exit."""
    ov = dict(QUIET_EVENTS)
    ov.update({"game.rounds": 4, "requirements.kills": 0, "requirements.cornucopias": 0,
               "rulings.reserve_entries": "sector_only"})
    g = play("ring4", script=RING_DICE, queues=RING_QUEUES, overrides=ov, sheet=RING_SHEET)
    r3_move = [d for d in g.decisions("move") if d.snap["round"] == 2 and d.snap["phase"] == 2][0]
    assert 0 in {m["to"] for m in r3_move.moves() if m["kind"] == GOTO}


def test_round_start_bonus_and_kill_reset(ring):
    for k, r in enumerate(ring.rows(L.TR_ROUND)):
        assert r[3] == bonus(k) and r[4] == chest_value(k)
    fights = ring.rows(L.TR_FIGHT)
    assert fights == [(GOBLIN, 0, 5, 0, 0), (ORC, bonus(1), 7, 0, 0)]
    first_moves = {}
    for d in ring.decisions("move"):
        first_moves.setdefault(d.snap["round"], d.snap)
    assert first_moves[0]["kills_round"] == 0
    assert ring.decisions("market")[0].snap["kills_round"] == 1  # the goblin, round 1
    assert first_moves[1]["kills_round"] == 0  # reset when round 2 starts
    assert (first_moves[1]["bonus"], first_moves[1]["chestv"]) == (bonus(1), chest_value(1))
    assert ring[L.S_KILLS_TOTAL] == 2


def test_oracle_awake_gives_chest_then_leave_other_sector(ring):
    oracle = ring.rules.map.oracle
    assert len(ring.rows(L.TR_ORACLE)) == 4
    assert ring[L.S_CHESTS_GAINED] == 4  # one chest from the Oracle in each round
    gains = [r for r in ring.rows(L.TR_GAIN) if r[0] == CH]
    assert len(gains) == 4
    # no roll entering the Oracle's room, nor for the free placement next to it
    for i, r in enumerate(ring.tr):
        if r[0] == L.TR_MOVE and r[2] == oracle:
            assert ring.tr[i + 1][0] != L.TR_ROLL
    moves = ring.rows(L.TR_MOVE)
    placed = [m for m in moves if m[0] == oracle]
    assert [m[1] for m in placed] == [5, 7, 5, 1] and all(m[3] == 1 for m in placed)
    exit_sectors = [r[1] for r in ring.rows(L.TR_EXIT)]
    assert exit_sectors == [1, 2, 3, 0]  # never the round's own sector (A, B, C, D)
    # round 1, heading out from cell 5: cell 0's unused arrow 2 is of the round's own sector A: no exit there
    r1_out = [d for d in ring.decisions("move") if d.snap["round"] == 0 and d.snap["phase"] == 2][0]
    assert r1_out.snap["pos"] == 5 and all(m["kind"] != GOTO for m in r1_out.moves())


def test_exit_rolled_like_any_room_in_full_game(ring):
    """Every exit room was rolled, also cell 0 reached over explored rooms in round 4."""
    idx = [i for i, r in enumerate(ring.tr) if r[0] == L.TR_EXIT]
    for i in idx:
        cell = ring.tr[i, 1]
        j = max(k for k in range(i) if ring.tr[k, 0] == L.TR_MOVE)
        assert ring.tr[j, 2] == cell
        assert any(ring.tr[k, 0] == L.TR_ROLL and ring.tr[k, 4] == cell for k in range(j, i))


def test_market_buys_chest_value_units(ring):
    assert [r[0] for r in ring.rows(L.TR_MARKET_OPEN)] == [chest_value(0), chest_value(1), chest_value(2)]
    buys = [r for r in ring.rows(L.TR_MARKET) if r[0] == L.M_BUY]
    assert [(r[1], r[3]) for r in buys] == [(H, chest_value(0)), (WP, chest_value(1)), (CL, chest_value(2))]
    gains = ring.rows(L.TR_GAIN)
    for track, units in [(H, chest_value(0)), (WP, chest_value(1)), (CL, chest_value(2))]:
        assert any(r[0] == track and r[1] == units for r in gains)
    # each market decision offers to buy only while a chest is held
    for d in ring.decisions("market"):
        has_buy = any(k // 100 == L.M_BUY for k in d.keys)
        assert has_buy == (d.snap["chest"] > 0)


def test_market_exchange_one_for_one_and_redeem(ring):
    m = ring.rows(L.TR_MARKET)
    assert (L.M_REDEEM, SH, -1, chest_value(0), 0) in m
    assert (L.M_SWAP, H, WP, chest_value(2), 0) in m
    last_market = ring.decisions("market")[-1].snap  # after the swap
    before = ring.decisions("market")[-2].snap
    assert last_market["hearts"] == before["hearts"] - 1 and last_market["weapon"] == before["weapon"] + 1
    # the sheet at the end: start + market purchases, nothing else changed it
    assert [ring[t] for t in range(7)] == [6 + 1 - 1, 2 + 1, 1 + 3, 2 + 1, 3, 1, 0]


def test_four_rounds_win(ring):
    assert ring[L.S_WIN] == 1 and ring[L.S_ROUND] == 4 and ring[L.S_DEAD] == 0
    assert ring.out[L.OUT_WIN] == 1 and ring.out[L.OUT_CLEAN] == 1 and ring.out[L.OUT_ROUNDS] == 4
    assert ring[L.S_ORDER] == 1234
    assert len(ring.rows(L.TR_MARKET_OPEN)) == 3  # between rounds only: none after the fourth
    assert ring.rows(L.TR_END)[0][0] == 1 and ring.rows(L.TR_END)[0][3] == 4


def test_final_score(ring):
    sc = DATA["score"]
    expected = sum(ring[t] * sc[L.TRACK_NAMES[t]] for t in range(L.N_TRACKS)) + ring[L.S_KILLS_TOTAL] * sc["kill"]
    assert sc["chest"] == chest_value(3) == 4  # "treasures are worth 4 in this final turn"
    assert ring.out[L.OUT_SCORE] == expected == 6 + 3 + 4 + 3 + 3 + 4 * 1 + 2
    assert ring.rows(L.TR_END)[0][1] == expected


def test_turn_counter(ring):
    """A turn is a step into a room; free placement next to the Oracle and free walking cost none."""
    per_round = [0, 0, 0, 0]
    for i, r in enumerate(ring.tr):
        if r[0] == L.TR_MOVE and r[4] == 0:
            per_round[round_of(ring, i) - 1] += 1
    assert per_round == [4, 3, 3, 3]
    assert [ring[L.S_TURNS_R + k] for k in range(4)] == per_round
    assert ring[L.S_TURN] == ring.out[L.OUT_TURNS] == sum(per_round) == ring.rows(L.TR_END)[0][2]
    assert len(ring.rows(L.TR_WALK)) == 4  # walks over explored rooms happened, for free


# ======================================================================= requirements, tables
@pytest.mark.parametrize("anywhere", [True, False])
def test_requirements_only_for_current_round(anywhere):
    """Round A counts statues, not kills; round B counts kills, not statues."""
    ov = {"requirements.statues": 2, "requirements.kills": 2, "max_turns": 2,
          "rulings.requirements_anywhere": anywhere}
    # round A: in at cell 0 (statue, beaten), then cell 1 (goblin, killed)
    a = play("req", script=[2, 6, 1, 2, 6, 1], queues={"round": [0]}, sheet={"hearts": 5}, overrides=ov)
    assert a.rows(L.TR_REQ) == [(1, 2, 0, 0, 0)]
    assert a[L.S_REQ_DONE] == 1 and a[L.S_KILLS_ROUND] == 1
    # round B: in at cell 2 (a statue in a B room: beaten, not counted), then the goblin in cell 1 (an A room)
    b = play("req", script=[3, 6, 1, 3, 6, 1], queues={"round": [1]}, sheet={"hearts": 5}, overrides=ov)
    assert b.rows(L.TR_FACED) == []
    assert b[L.S_KILLS_ROUND] == 1
    if anywhere:
        assert b.rows(L.TR_REQ) == [(1, 2, 1, 0, 0)] and b[L.S_REQ_DONE] == 1
    else:  # RULING requirements_anywhere = false: only in the round's own sector
        assert b.rows(L.TR_REQ) == [] and b[L.S_REQ_DONE] == 0


def test_a_monster_in_a_palace_room_makes_it_where_the_round_wants_you_until_beaten():
    """The Palace's requirement is its monsters: a monster added to one of its rooms (a spawn) makes that room a goal
    of the move menu (``mark_goals``); beaten (its icon taken off), the room is a goal no more."""
    from foury_sim.games.foury import kernel as K

    r = load_foury_ruleset()
    n = r.geo.shape[0]
    board = K.Board(r.R, r.T, r.geo, r.arrows)
    rm = r.rm0.copy()
    st = np.zeros(L.STATE_SIZE, np.int64)
    st[L.S_PHASE], st[L.S_SECTOR] = 0, 1
    sc = np.zeros((K.SC_ROWS, K.scratch_cols(n)), np.int64)
    x = next(x for x in range(n) if r.geo[x, 4] == 1 and rm[x, L.RM_STATE] == 0 and rm[x, L.RM_FOES] == 0)
    marked = []
    for k in (0, 1, -1):
        if k:
            K.add_icon(rm, np.int64(x), np.int64(GOBLIN), np.int64(k))
        K.mark_goals(board, st, rm, sc)
        marked.append(int(sc[K.SC_MASK, x]))
    assert marked == [0, 1, 0]


def test_step_rolls_table_of_room_left():
    """Entering from outside rolls the round's table; each later step rolls the table of the room left."""
    g = play("four_tables", script=[2, 2, 6, 1], queues={"round": [3]}, sheet={"hearts": 5},
             overrides={"max_turns": 4})
    rolls = g.rows(L.TR_ROLL)
    assert [(r[0], r[1], r[3]) for r in rolls] == [(0, 2, 0), (0, 2, 1), (1, 6, 2), (3, 1, 3)]
    t = DATA["events"]
    assert t["B"][5] == "chest" and g[CH] == 1  # B's face 6 in the D room
    assert t["D"][0] == "room_behind_floods" and g.room_state(2) & L.FLOODED  # D's face 1: the D room floods
    assert g.rows(L.TR_FLOOD) == [(2, 0, 0, 0, 0)]


# =============================================================================== free movement
@pytest.mark.parametrize("costs_turn", [False, True])
@pytest.mark.parametrize("map_name, foe", [("line5", STATUE), ("line5_g", GOBLIN)])
def test_free_movement_over_explored_rooms(map_name, foe, costs_turn):
    """Walk any distance over explored rooms without rolling; a statue or an active monster stops the walk."""
    turns = 8 if costs_turn else 5
    g = play(map_name, script=[5, 2, 3, 3, 2, 2, 6, 1], queues={"move": [1, 3, 4], "fight_on": [0]},
             sheet={"hearts": 5},
             overrides={"max_turns": turns, "rulings.free_move_costs_turn": costs_turn})
    # entry into 2, step 2->1 (the foe: tie, flee), walk back over 2 and step into 3, step into 4,
    # then walk 4->3->2 and face the foe in 1 again
    assert [r[3] for r in g.rows(L.TR_ROLL)] == [2, 1, 3, 4]  # the walk back to the foe: no roll
    assert g.rows(L.TR_WALK) == [(1, 2, 1, 0, 0), (4, 2, 2, 0, 0)]
    assert g.rows(L.TR_MOVE)[-1] == (2, 1, W, 0, 0)
    at3 = [d for d in g.decisions("move") if d.snap["pos"] == 3][0]
    assert {"kind": GOTO, "from": 2, "to": 1, "path": 1} in at3.moves()
    assert moves_into(at3, 0) == []  # the room beyond the active foe cannot be walked to
    assert g.rows(L.TR_FIGHT) == [(foe, 0, 1, 0, 0)] * 2
    assert g.icons(1, foe) == 0  # beaten the second time
    assert g[L.S_TURN] == turns  # 5 steps (+1 +2 rooms walked when walking costs turns)


def test_step_after_walk_rolls_table_of_last_room(ring):
    """Round 3: walked from cell 5 (B) over 8 to 7 (C), then stepped into 6: table C is rolled."""
    i = [k for k, r in enumerate(ring.tr) if r[0] == L.TR_MOVE and r[2] == 6][0]
    walk = ring.tr[i - 1]
    assert walk[0] == L.TR_WALK and (walk[1], walk[2]) == (5, 7)
    assert ring.tr[i, 1] == 7 and ring.tr[i + 1, 0] == L.TR_ROLL and ring.tr[i + 1, 1] == 2


# ===================================================================== room events and directions
ENTRY_FACE = {"A": 2, "B": 3, "C": 5, "D": 5}  # faces that leave the way into the centre open
ARM = {1: S, 2: E, 3: W, 4: N}  # arrow -> heading into the centre
WALL_FACES = [("A", f) for f in (2, 3, 4, 5)] + [("B", f) for f in (3, 4, 5)] + \
             [("C", f) for f in (3, 4, 5)] + [("D", f) for f in (3, 4, 5)]


@pytest.mark.parametrize("arrow", [1, 2, 3, 4])
@pytest.mark.parametrize("sector, face", WALL_FACES)
def test_event_walls_relative_to_direction(sector, face, arrow):
    """The centre of a cross, open on all sides, entered heading N/E/S/W: the walls that collapse are
    the event's left/right/front/behind relative to the heading (the neighbours' sides too)."""
    heading = ARM[arrow]
    g = play(f"cross_{sector}", script=[ENTRY_FACE[sector], face], queues={"round": [arrow]},
             defaults={"move": 4}, sheet={"hearts": 5}, overrides={"max_turns": 2})
    assert g.rows(L.TR_MOVE)[-1][:3] == (g.rules.arrows[arrow, 0], 4, heading)
    text = DATA["events"][sector][face - 1]
    want = {relative_side(heading, w) for w in event_sides(text)}
    assert want  # these faces collapse walls
    walls = g.walls(4)
    for side in range(4):
        nb = g.rules.geo[4, side]
        if side in want:
            assert walls[side] == L.W_COLLAPSED and g.walls(nb)[(side + 2) % 4] == L.W_COLLAPSED
        else:
            assert walls[side] == L.W_OPEN
    assert {r[1] for r in g.rows(L.TR_WALL) if r[0] == 4} == want
    table = "ABCD".index(sector)
    assert g.rows(L.TR_ROLL)[-1][:4] == (table, face, g.rules.T[L.T_EVENTS + table, face - 1], 4)


def test_event_walls_literal_examples():
    """Heading east, "left and front" is north and east; heading north, "left and right" is west and east."""
    g = play("cross_A", script=[2, 3], queues={"round": [2]}, defaults={"move": 4}, sheet={"hearts": 5},
             overrides={"max_turns": 2})
    assert g.walls(4) == [2, 2, 0, 0]
    g = play("cross_A", script=[2, 2], queues={"round": [4]}, defaults={"move": 4}, sheet={"hearts": 5},
             overrides={"max_turns": 2})
    assert g.walls(4) == [0, 2, 0, 2]
    assert relative_side(N, "left") == W and relative_side(E, "right") == S and relative_side(S, "behind") == N


def test_event_walls_already_there_stay():
    """Entering the west arm heading east, "left and front": the printed north wall stays printed."""
    g = play("cross_A", script=[3], queues={"round": [2]}, sheet={"hearts": 5}, overrides={"max_turns": 1})
    assert g.walls(3) == [L.W_PRINTED, L.W_COLLAPSED, L.W_PRINTED, L.W_PRINTED]
    assert g.rows(L.TR_WALL) == [(3, E, 0, 0, 0)]


def test_room_behind_collapses():
    """B face 1: the room you came from collapses: impassable for good, even with a shovel."""
    # loop 0-1-4-3: in at 0; 0->1 (B2: wall 0|1 collapses + a goblin, beaten); 1->4 (B1: room 1
    # collapses); 4->3 (B5: the front wall, printed). From 3 a shovel could dig 0|1, but room 1 is gone.
    g = play("loop_b", script=[3, 2, 1, 6, 1, 1, 5], queues={"round": [1], "move": [1, 4, 3, 6]},
             sheet={"hearts": 5, "shovel": 1}, overrides={"max_turns": 5})
    assert g.rows(L.TR_PREV_COLLAPSE) == [(1, 0, 0, 0, 0)]
    assert g.room_state(1) & L.COLLAPSED
    at1 = [d for d in g.decisions("move") if d.snap["pos"] == 1][0]
    assert {"kind": SHOVEL_MOVE, "from": 1, "to": 0, "path": 0} in at1.moves()  # control: the shovel works
    assert g.walls(0)[E] == L.W_COLLAPSED and g.walls(4)[N] == L.W_OPEN
    at3 = g.decisions("move")[-1]
    assert at3.snap["pos"] == 3 and at3.snap["shovel"] == 1
    assert sorted(m["to"] for m in at3.moves()) == [5, 6]  # nothing into room 1: not from 0, not from 4
    assert g[SV] == 1


def test_room_behind_collapse_spares_the_oracle():
    """RULING: the Oracle's room never collapses (stepping from it into a new room rolling "the room you
    came from collapses": nothing happens)."""
    # ring4, round B: in at 2, 2->5 (goblin), the Oracle, stand in 5, then over the Oracle into 7 (orc)
    g = play("ring4", script=[3, 3, 6, 1, 1, 6, 1], queues={"round": [1], "move": [5, 4, 7], "place": [5]},
             sheet={"hearts": 5}, overrides={"max_turns": 4, "requirements.kills": 0})
    last = g.rows(L.TR_ROLL)[-1]
    assert last[3] == 7 and last[2] & L.EV_PREV_COLLAPSE  # table C (the room entered), face 1
    assert g.rows(L.TR_WALK)[-1] == (5, 4, 1, 0, 0)
    assert g.rows(L.TR_PREV_COLLAPSE) == []
    assert not g.room_state(4) & L.COLLAPSED


def test_flood_and_swim():
    """D face 1 floods the room left; flooded rooms are swum into without a roll, even across a
    collapsed wall between two flooded rooms."""
    # in at 0 (D5), 0->1 (D3: left+front: the wall 1|2 collapses), 1->5 (D1: room 1 floods), swim 5->1->2
    g = play("water", script=[5, 3, 1], queues={"round": [1], "move": [move(2, SWIM)]}, sheet={"hearts": 5},
             overrides={"max_turns": 4})
    assert g.rows(L.TR_FLOOD) == [(1, 0, 0, 0, 0)]
    assert g.walls(1)[E] == L.W_COLLAPSED
    assert g.room_state(1) & L.FLOODED and g.room_state(2) & L.FLOODED
    d = g.decisions("move")[-1]
    assert {"kind": SWIM, "from": 1, "to": 2, "path": 1} in d.moves()
    assert g.rows(L.TR_MOVE)[-1][:2] == (1, 2) and g[L.S_POS] == 2
    assert len(g.rows(L.TR_ROLL)) == 3  # the swim rolled nothing
    assert g.dice() == 3 and g[L.S_TURN] == 4
    # the replay says it is a swim (not a plain move into an unexplored room with no roll), and why no roll
    lines = g.report().splitlines()
    assert "  swim (1,2) -> (1,3), heading east (a swim through flooded rooms: swimming is free, no room roll)" in lines
    assert not any(ln.startswith("  move (1,2) -> (1,3)") for ln in lines)


def test_extra_move():
    """A face 6: resolve the room (the goblin), then one more space without rolling (no turn)."""
    g = play("line_g", script=[2, 6, 6, 1], queues={"extra_move": [2]}, sheet={"hearts": 5},
             overrides={"max_turns": 2})
    extra = g.decisions("extra_move")[0]
    assert sorted(m["to"] for m in extra.moves()) == [0, 2]
    assert g.rows(L.TR_WIN) == [(GOBLIN, 1, 0, 0, 0)]
    assert g.rows(L.TR_EXTRA) == [(2, 0, 0, 0, 0)]
    assert g.rows(L.TR_MOVE)[-1] == (1, 2, E, 1, 0)
    assert [r[3] for r in g.rows(L.TR_ROLL)] == [0, 1]  # room 2 entered without a roll
    assert g.room_state(2) & L.EXPLORED and g[L.S_POS] == 2 and g[L.S_TURN] == 2


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_spawned_monster(face):
    """"You encounter a monster": a second d6 on the spawn table chooses it; it stands in the room."""
    g = play("cross_A", script=[2, 1, face, 6, 1], queues={"round": [2]}, defaults={"move": 4},
             sheet={"hearts": 5}, overrides={"max_turns": 2})
    foe = I.ICON_KEYS.index(DATA["enemies"]["spawn_table"][face - 1])
    assert g.rows(L.TR_SPAWN) == [(4, foe, face, 0, 0)]
    assert g.rows(L.TR_FIGHT)[0][:3] == (foe, 0, 4)
    assert g.rows(L.TR_WIN) == [(foe, 4, 0, 0, 0)] and g.icons(4, foe) == 0 and g[L.S_KILLS_ROUND] == 1


def test_event_chest():
    g = play("cross_B", script=[3, 6], queues={"round": [2]}, defaults={"move": 4}, sheet={"hearts": 5},
             overrides={"max_turns": 2})
    assert DATA["events"]["B"][5] == "chest"
    assert g[CH] == 1 and g[L.S_CHESTS_GAINED] == 1
    assert (CH, 1, 1, 0, 0) in g.rows(L.TR_GAIN)


# ======================================================================================== statues
def test_statue_faced_counts_even_when_fleeing():
    g = play("temple", script=[2, 2, 3, 3], queues={"fight_on": [0]}, sheet={"hearts": 5},
             overrides={"requirements.statues": 1, "max_turns": 2})
    assert g.rows(L.TR_FACED) == [(1, 0, 0, 0, 0)]
    assert g.rows(L.TR_REQ) == [(1, 1, 0, 0, 0)] and g.rows(L.TR_AWAKE) == [(0, 0, 0, 0, 0)]
    assert g.rows(L.TR_TIE) and g.rows(L.TR_FLEE) == [(STATUE, 1, 0, 0, 0)]
    assert g.icons(1, STATUE) == 1 and g[H] == 5


def test_statue_faced_once_per_statue():
    """Facing the same statue again in the round does not count twice; beaten, it is erased."""
    g = play("temple", script=[2, 2, 3, 3, 2, 6, 1], queues={"fight_on": [0], "move": [2, move(1, GOTO)]},
             sheet={"hearts": 5}, overrides={"requirements.statues": 2, "max_turns": 4})
    assert g.rows(L.TR_FACED) == [(1, 0, 0, 0, 0)]
    assert g[L.S_REQ_DONE] == 1 and g[L.S_PHASE] == 0
    assert g.rows(L.TR_WIN) == [(STATUE, 1, 0, 0, 0)] and g.icons(1, STATUE) == 0
    assert g[L.S_KILLS_ROUND] == 0  # a statue is not a monster kill


def test_statue_d6_against_d6_and_damage():
    """A statue never gets the monsters' bonus; losing costs the difference in hearts."""
    g = play("temple", script=[2, 2, 2, 5], queues={"fight_on": [0]}, sheet={"hearts": 5},
             overrides={"round.monster_bonus": [3, 3, 3, 3], "max_turns": 2})
    assert g.rows(L.TR_FIGHT) == [(STATUE, 0, 1, 0, 0)]
    assert g.rows(L.TR_ROLLOFF) == [(2, 0, 5, 0, 0)]
    assert g.rows(L.TR_HIT) == [(3, 2, 0, 0, 0)] and g[H] == 5 - 3


# ========================================================================================= combat
def fight(foe, dice, *, sheet=None, queues=None, overrides=None, hero="free", bonus_all=2, imp_pick=2, **kw):
    """In at the arena's entry room (chest + potion): face 1 (a monster), the spawn table made of
    ``foe`` only, then ``dice`` for the fight. The game stops after that room.

    An imp (ruling imp_destroys = "one") first rolls which of the two items it erases: ``imp_pick``
    (1 the chest, 2 the potion)."""
    ov = {"enemies.spawn_table": [foe] * 6, "round.monster_bonus": [bonus_all] * 4, "max_turns": 1}
    ov.update(overrides or {})
    if hero == "free" and sheet is None:
        sheet = {"hearts": 8}
    pick = [imp_pick] if foe == "imp" and ov.get("rulings.imp_destroys", "one") == "one" else []
    return play("arena", script=[1, 1, *pick, *dice], sheet=sheet, queues=queues, overrides=ov, hero=hero, **kw)


def test_combat_higher_wins():
    g = fight("orc", [6, 3])  # 6 vs 3+2
    assert g.rows(L.TR_ROLLOFF) == [(6, 0, 3, 2, 0)]
    assert g.rows(L.TR_WIN) == [(ORC, 0, 0, 0, 0)]
    assert g.icons(0, ORC) == 0 and g[L.S_KILLS_ROUND] == 1 and g[L.S_KILLS_TOTAL] == 1 and g[H] == 8
    assert g[CH] == 1 and g.icons(0, I.CHEST) == 0  # items collected after the win


def test_combat_tie_nothing_then_fight_on():
    g = fight("orc", [4, 2, 5, 1], queues={"fight_on": [1]})  # 4 vs 2+2 tie, then 5 vs 1+2
    assert g.rows(L.TR_TIE) == [(0,) * 5]
    assert g[H] == 8 and len(g.decisions("fight_on")) == 1
    assert g.rows(L.TR_ROLLOFF) == [(4, 0, 2, 2, 0), (5, 0, 1, 2, 0)]
    assert g.rows(L.TR_WIN) and g[L.S_KILLS_ROUND] == 1


def test_combat_lower_loses_difference_then_flee():
    g = fight("orc", [1, 5], queues={"fight_on": [0]})  # 1 vs 5+2
    assert g.rows(L.TR_HIT) == [(6, 2, 0, 0, 0)] and g[H] == 2
    assert g.rows(L.TR_FLEE) == [(ORC, 0, 0, 0, 0)]
    assert g.icons(0, ORC) == 1 and g[L.S_KILLS_ROUND] == 0
    assert g[CH] == 0 and g.icons(0, I.CHEST) == 1  # fled: nothing collected


def test_combat_death_when_hearts_run_out():
    g = fight("orc", [1, 5], sheet={"hearts": 3}, overrides={"game.insert_coins": 0})
    assert g[L.S_DEAD] == 1 and g[H] == 0
    assert g[L.S_DEATH_CAUSE] == L.CAUSE_FOE + ORC
    assert g.rows(L.TR_DEATH) == [(L.CAUSE_FOE + ORC, 0, 1, 0, 0)]
    assert g.decisions("fight_on") == []


def test_combat_shield_blocks_hit():
    g = fight("orc", [1, 5], sheet={"hearts": 5, "shield": 1}, queues={"shield": [1], "fight_on": [0]})
    assert g.rows(L.TR_BLOCK) == [(6, 0, 0, 0, 0)]
    assert g[H] == 5 and g[SH] == 0 and g.rows(L.TR_HIT) == []
    assert g.icons(0, ORC) == 1  # the monster stays


def test_combat_shield_may_be_kept():
    g = fight("orc", [3, 5], sheet={"hearts": 5, "shield": 1}, queues={"shield": [0], "fight_on": [0]})
    assert g[H] == 5 - 4 and g[SH] == 1 and g.rows(L.TR_BLOCK) == []


@pytest.mark.parametrize("which", [0, 1])
def test_combat_clover_rerolls_either_die(which):
    """On a loss a clover rerolls one die of your choice (yours or the foe's), then compare again."""
    g = fight("orc", [4, 3, 6 if which == 0 else 1], sheet={"hearts": 5, "clover": 2},
              queues={"clover": [clover(1, which)]})  # 4 vs 3+2: a loss
    old, new = (4, 6) if which == 0 else (3, 1)
    assert g.rows(L.TR_CLOVER) == [(which, old, new, 1, 0)]
    d = g.decisions("clover")[0]
    assert d.keys == [clover(0), clover(1, 0), clover(1, 1)]
    mine, theirs = (6, 3) if which == 0 else (4, 1)
    # the roll-off as rolled (stage 0), then the clover, then the dice kept (stage 1)
    assert g.rows(L.TR_ROLLOFF) == [(4, 0, 3, 2, 0), (mine, 0, theirs, 2, 1)]
    seq = [c for c in g.codes() if c in (L.TR_ROLLOFF, L.TR_CLOVER)]
    assert seq == [L.TR_ROLLOFF, L.TR_CLOVER, L.TR_ROLLOFF]
    assert g.rows(L.TR_WIN) and g[CL] == 1 and g[H] == 5 + DATA["potions"]["red"]  # + the room's potion


def test_combat_clover_not_offered_on_win_or_tie():
    g = fight("orc", [4, 2, 6, 1], sheet={"hearts": 5, "clover": 2}, queues={"fight_on": [1]})
    assert g.decisions("clover") == [] and g[CL] == 2
    g = fight("orc", [4, 2, 6, 1], sheet={"hearts": 5, "clover": 2}, queues={"clover": [clover(0)], "fight_on": [1]},
              overrides={"rulings.clover_on": "loss_or_tie"})
    assert len(g.decisions("clover")) == 1  # RULING clover_on = loss_or_tie: a tie may be rerolled
    assert g.rows(L.TR_TIE) and g[CL] == 2


def test_combat_weapon_adds_and_wears_once_per_combat():
    g = fight("orc", [2, 2, 3, 1], sheet={"hearts": 5, "weapon": 2}, queues={"weapon": [1, 1], "fight_on": [1]})
    assert g.rows(L.TR_ROLLOFF) == [(2, 2, 2, 2, 0), (3, 2, 1, 2, 0)]  # tie 4-4, then 5 vs 3
    assert g.rows(L.TR_WEAPON_WEAR) == [(1, 0, 0, 0, 0)] and g[WP] == 1
    assert [d.snap["weapon"] for d in g.decisions("weapon")] == [2, 2]


def test_combat_weapon_wears_per_rolloff_ruling():
    g = fight("orc", [2, 2, 3, 1], sheet={"hearts": 5, "weapon": 2}, queues={"weapon": [1, 1], "fight_on": [1]},
              overrides={"rulings.weapon_wear": "per_rolloff"})
    assert g.rows(L.TR_ROLLOFF) == [(2, 2, 2, 2, 0), (3, 1, 1, 2, 0)]
    assert g.rows(L.TR_WEAPON_WEAR) == [(1, 0, 0, 0, 0), (0, 0, 0, 0, 0)] and g[WP] == 0


def test_combat_weapon_unused_does_not_wear():
    g = fight("orc", [6, 1], sheet={"hearts": 5, "weapon": 2}, queues={"weapon": [0]})
    assert g.rows(L.TR_ROLLOFF) == [(6, 0, 1, 2, 0)] and g[WP] == 2 and g.rows(L.TR_WEAPON_WEAR) == []


def test_combat_weapon_wears_even_when_losing():
    """"In any case, I have used the Weapon, so my Weapon value decreases by 1" (rulebook example)."""
    g = fight("orc", [2, 6], sheet={"hearts": 8, "weapon": 3}, queues={"weapon": [1], "fight_on": [0]},
              bonus_all=0)  # the example: 2 + weapon 3 = 5 against 6: lose 1 heart
    assert g.rows(L.TR_HIT) == [(1, 7, 0, 0, 0)] and g[WP] == 2


# ============================================================================ enemies' special rules
@pytest.mark.parametrize("foe, mult", [("goblin", 0), ("orc", 1), ("imp", 1), ("bandit", 1), ("troll", 1),
                                       ("minotaur", 2)])
def test_foe_strength_per_enemy(foe, mult):
    """d6 + round bonus; the goblin never gets the bonus, the minotaur doubles it."""
    b = 3
    g = fight(foe, [6, 1], bonus_all=b, queues={"cornucopia": [-1] if foe == "bandit" else []})
    assert g.rows(L.TR_FIGHT)[0][:2] == (I.ICON_KEYS.index(foe), mult * b)
    assert g.rows(L.TR_ROLLOFF)[0] == (6, 0, 1, mult * b, 0)


def test_goblin_no_bonus():
    g = fight("goblin", [4, 3], bonus_all=3)  # 4 vs 3: a win only without the bonus
    assert g.rows(L.TR_WIN) == [(GOBLIN, 0, 0, 0, 0)]


def test_orc_plain():
    g = fight("orc", [4, 1], bonus_all=3, queues={"fight_on": [0]})  # 4 vs 1+3: tie
    assert g.rows(L.TR_TIE) and g.rows(L.TR_WIN) == [] and g[CH] == 0 and g.rows(L.TR_IMP) == []


def test_minotaur_double_bonus():
    g = fight("minotaur", [6, 1], bonus_all=3, queues={"fight_on": [0]})  # 6 vs 1+6: lose 1
    assert g.rows(L.TR_HIT) == [(1, 7, 0, 0, 0)]


@pytest.mark.parametrize("ruling, pick, destroyed", [("one", 1, [I.CHEST]), ("one", 2, [I.POTION]),
                                                    ("all", None, [I.CHEST, I.POTION])])
def test_imp_destroys_items(ruling, pick, destroyed):
    """"If there is a Resource in the room where an Imp appears, erase it": RULING imp_destroys = "one"
    (default) erases one item, a die choosing among the items there (here a chest and a potion: 1 the
    chest, 2 the potion); "all" erases every item (no die)."""
    assert DATA["rulings"]["imp_destroys"] == "one"
    g = fight("imp", [6, 1], sheet={"hearts": 5}, overrides={"rulings.imp_destroys": ruling}, imp_pick=pick)
    assert [(r[0], r[1], r[2]) for r in g.rows(L.TR_IMP)] == [(0, ic, 1) for ic in destroyed]
    assert g.dice() == (5 if ruling == "one" else 4)  # room, spawn, [the imp's pick], the two combat dice
    assert g.rows(L.TR_WIN) == [(IMP, 0, 0, 0, 0)]
    assert g[CH] == (0 if I.CHEST in destroyed else 1)
    assert g[H] == (5 if I.POTION in destroyed else 5 + DATA["potions"]["red"])
    assert g.icons(0, I.CHEST) == g.icons(0, I.POTION) == 0


def test_imp_alone_item_needs_no_die():
    """One item in the imp's room: it is erased without a die (the die map: a DIE icon in the entry room)."""
    g = play("die", script=[1, 1, 6, 1], sheet={"hearts": 5},
             overrides={"enemies.spawn_table": ["imp"] * 6, "max_turns": 1})
    assert g.rows(L.TR_IMP) == [(0, I.DIE, 1, 0, 0)] and g.icons(0, I.DIE) == 0
    assert g.rows(L.TR_DIE_TABLE) == [] and g.dice() == 4


def test_bandit_steals_when_it_hurts():
    g = fight("bandit", [1, 4], sheet={"hearts": 6, "shield": 1, "clover": 1, "shovel": 1},
              queues={"clover": [clover(0)], "shield": [0], "steal": [CL], "fight_on": [0]}, bonus_all=0)
    assert g.rows(L.TR_HIT) == [(3, 3, 0, 0, 0)]
    assert g.decisions("steal")[0].keys == [SH, CL, SV]  # any other resource held (not hearts)
    assert g.rows(L.TR_STEAL) == [(CL, 0, 0, 0, 0)]
    assert [g[t] for t in (H, SH, CL, SV)] == [3, 1, 0, 1]


def test_bandit_blocked_steals_nothing():
    g = fight("bandit", [1, 4], sheet={"hearts": 6, "shield": 1, "shovel": 1},
              queues={"shield": [1], "fight_on": [0]}, bonus_all=0)
    assert g.rows(L.TR_STEAL) == [] and g[SV] == 1 and g[H] == 6 and g[SH] == 0


def test_bandit_steals_random_ruling():
    """RULING bandit_steals = random: the bandit takes one resource held, chosen by chance (no decision);
    how evenly: test_bandit_random_theft_is_uniform."""
    g = fight("bandit", [1, 4], sheet={"hearts": 6, "shield": 1, "clover": 1, "shovel": 1},
              queues={"clover": [clover(0)], "shield": [0], "fight_on": [0]}, bonus_all=0,
              overrides={"rulings.bandit_steals": "random"}, check_dice=False)
    assert g.decisions("steal") == []
    stolen = g.rows(L.TR_STEAL)
    assert len(stolen) == 1 and stolen[0][0] in (SH, CL, SV)
    assert [g[t] for t in (SH, CL, SV)] == [0 if t == stolen[0][0] else 1 for t in (SH, CL, SV)]
    assert g[H] == 3


def test_bandit_loot_cornucopia():
    g = fight("bandit", [6, 1], sheet={"hearts": 5}, queues={"cornucopia": [-1]})
    assert g[CU] == DATA["kills"]["bandit_cornucopias"] == 1
    assert (CU, 1, 1, 0, 0) in g.rows(L.TR_GAIN)


def test_troll_returns():
    """A beaten troll comes back in its room when the round ends, ``troll_returns`` times at most."""
    ov = dict(QUIET_EVENTS)
    ov.update({"game.rounds": 2, "requirements.kills": 0, "kills.troll_returns": 1})
    q = {"round": [0, 3], "move": [1, 4, 2, move(1, GOTO), 4, 8], "place": [5, 7]}
    # round 1: in at 0, the troll in 1 (beaten), the Oracle, out at 2; round 2: in at 2, back to the
    # troll (beaten again), the Oracle, out at 8
    g = play("ring_troll", script=[4, 4, 6, 1, 4, 6, 1, 4], queues=q, overrides=ov, sheet={"hearts": 6})
    assert g.rows(L.TR_TROLL_BACK) == [(1, 0, TROLL, 0, 0)]  # after round 1, none left to come back
    wins = [i for i, r in enumerate(g.tr) if r[0] == L.TR_WIN]
    back = [i for i, r in enumerate(g.tr) if r[0] == L.TR_TROLL_BACK][0]
    ends = [i for i, r in enumerate(g.tr) if r[0] == L.TR_EXIT]
    assert wins[0] < ends[0] < back < wins[1]  # it came back after round 1 ended
    assert g.icons(1, TROLL) == 0 and g[L.S_WIN] == 1 and g[L.S_KILLS_TOTAL] == 2


def test_troll_returns_three_times_by_default():
    assert DATA["kills"]["troll_returns"] == 3
    g = fight("troll", [6, 1], overrides={"max_turns": 1})
    assert g.rm[0, L.RM_RETURNS] == 3  # "write the number 3 in a corner of the space"
    assert g.rm[0, L.RM_FLAG] & L.F_RETURNER_DOWN


# ==================================================================== enemies are data ([enemies])
WRAITH_RULES = """
[enemies]
wraith = { char = "W", base = 2, mult = 0, traits = ["returns"] }  # a test-only enemy
"""
# ring_troll.map with the test-only wraith (char W) where the troll stands
WRAITH_RING = """name: ring with a wraith

+vvv+---+vvv+
>A.. AW. B..<
+   +   +   +
|D.. O.. B..|
+   +   +   +
>D.. C.. C..<
+^^^+---+^^^+
"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_enemy_added_in_data_only(tmp_path):
    """A new enemy is one line of [enemies]: a test-only wraith (strength 2, trait "returns") placed on a map by
    its character is fought with its strength, counted as a kill, and comes back after the round, like a troll."""
    rules_file = _write(tmp_path, "wraith.toml", WRAITH_RULES)
    ring = _write(tmp_path, "wraith_ring.map", WRAITH_RING)
    ov = dict(QUIET_EVENTS)
    ov.update({"game.rounds": 2, "requirements.kills": 0, "kills.troll_returns": 1})
    q = {"round": [0, 3], "move": [1, 4, 2, move(1, GOTO), 4, 8], "place": [5, 7]}
    # as test_troll_returns: round 1 beats the wraith in cell 1 (6 vs 1 + 2), round 2 beats it again
    g = play(ring, script=[4, 4, 6, 1, 4, 6, 1, 4], queues=q, overrides=ov, sheet={"hearts": 6},
             rules_file=rules_file)
    wraith = g.rules.icons.foe("wraith")
    assert wraith == I.FOE_FIRST + 7 and g.rules.R[L.R_N_FOES] == 8  # the slot after the shipped seven
    assert g.rules.map.icons[1, wraith] == 1 and g.rules.T[L.T_EN_TRAITS, wraith] == L.FT_RETURNS
    assert [r[:3] for r in g.rows(L.TR_FIGHT)] == [(wraith, 2, 1), (wraith, 2, 1)]  # base 2, no round bonus
    assert g.rows(L.TR_WIN) == [(wraith, 1, 0, 0, 0)] * 2
    assert g.rows(L.TR_TROLL_BACK) == [(1, 0, wraith, 0, 0)]  # it came back once (kills.troll_returns = 1)
    assert g[L.S_KILLS_TOTAL] == 2 and g.out[L.OUT_KILLS] == 2 and g[L.S_WIN] == 1
    assert g.icons(1, wraith) == 0


def test_enemy_added_in_data_spawns_and_steals(tmp_path):
    """A test-only enemy in the spawn table with trait "steals": it appears on a monster event and, having
    hit, takes a resource as the bandit does."""
    rules_file = _write(tmp_path, "thief.toml", '[enemies]\nthief = { char = "&", base = 1, mult = 0, '
                                               'traits = ["steals"] }\n')
    g = fight("thief", [1, 4], sheet={"hearts": 6, "shield": 1, "shovel": 1}, bonus_all=0, rules_file=rules_file,
              queues={"shield": [0], "steal": [SV], "fight_on": [0]})
    thief = g.rules.icons.foe("thief")
    assert g.rows(L.TR_SPAWN) == [(0, thief, 1, 0, 0)]
    assert g.rows(L.TR_ROLLOFF) == [(1, 0, 4, 1, 0)] and g.rows(L.TR_HIT) == [(4, 2, 0, 0, 0)]
    assert g.decisions("steal")[0].keys == [SH, SV]
    assert g.rows(L.TR_STEAL) == [(SV, 0, 0, 0, 0)] and g[SV] == 0 and g[SH] == 1
    assert g.rows(L.TR_FLEE) == [(thief, 0, 0, 0, 0)]


@pytest.mark.parametrize("toml, message, line", [
    ('wraith = { char = "W", base = 2, mult = 0, traits = ["flies"] }', "unknown trait 'flies'", 2),
    ('wraith = { char = "g", base = 2, mult = 0 }', "already the map character of enemies.goblin", 2),
    ('wraith = { char = "c", base = 2, mult = 0 }', "map character of the chest", 2),
    ('wraith = { char = ".", base = 2, mult = 0 }', "one printable character", 2),
    ('wraith = { base = 2, mult = 0 }', "must be { char", 2),
    ('wraith = { char = "W", base = 2, mult = 0, speed = 3 }', "enemies.wraith.speed: unknown field (known: base, "
     "char, mult, name, strength, traits)", "2:44"),
    ('[enemies.orc]\nbse = 3', "enemies.orc.bse: unknown field (did you mean 'base'? known:", 3),
    ('chest = { char = "W", base = 2, mult = 0 }', "name of an item or fixture", 2),
    ('wraith = { char = "W", base = 99, mult = 0 }', "enemies.wraith.base = 99 is above 20", "2:24"),
    ('spawn_table = ["goblin", "goblin", "statue", "orc", "orc", "imp"]', "(enemies that are not traps)", 2),
    ('spawn_table = ["goblin", "goblin", "wraith", "orc", "orc", "imp"]', "from goblin, orc, imp, bandit", 2),
])
def test_enemy_table_validation(tmp_path, toml, message, line):
    """Every problem of the [enemies] table is one InputError at the file and line of the enemy."""
    f = _write(tmp_path, "bad.toml", f"[enemies]\n{toml}\n")
    with pytest.raises(InputError, match=re.escape(message)) as e:
        rules("arena", rules_file=f)
    assert e.value.where == (f"{f}:{line}:1" if isinstance(line, int) else f"{f}:{line}")


def test_enemy_table_too_many_kinds(tmp_path):
    extra = "\n".join(f'e{k} = {{ char = "{c}", base = 0, mult = 0 }}' for k, c in enumerate("ACDEFH"))
    f = _write(tmp_path, "many.toml", f"[enemies]\n{extra}\n")
    with pytest.raises(InputError, match=f"at most {I.MAX_FOES} kinds") as e:
        rules("arena", rules_file=f)
    assert e.value.where == f"{f}:7:1"  # the 13th kind (the shipped seven, then e0..e5)


def test_enemy_char_unknown_to_the_ruleset_is_refused_in_maps(tmp_path):
    """A map using a character no enemy of the ruleset has is refused at its line and column."""
    ring = _write(tmp_path, "wraith_ring.map", WRAITH_RING)
    with pytest.raises(InputError, match="unknown icon character 'W'") as e:
        rules(ring)
    assert e.value.where == f"{ring}:4:7"


# ============================================================================ items and elements
@pytest.mark.parametrize("redeem", [1, 3, 0])
def test_a_cornucopia_redeemed_gives_market_redeem(redeem):
    """market.redeem: "CORNUCOPIA: acquire 1 Resource of your choice": the cornucopia of test_collect_items, redeemed
    for a weapon when gained, gives ``redeem`` weapon points (the weapon icon's 1 + redeem)."""
    assert DATA["market"]["redeem"] == 1
    g = play("items", script=[2] * 8 + [3], sheet={"hearts": 5}, queues={"cornucopia": [WP]},
             overrides={"max_turns": 8, "market.redeem": redeem})
    assert (L.M_REDEEM, WP, 0, 0, 0) in g.rows(L.TR_MARKET) and g[WP] == 1 + redeem


def test_collect_items():
    """Each item is collected (and erased) in its room: chest, potion, shovel, weapon, shield, clover,
    cornucopia (redeemed here for a weapon), die (face 3: a chest)."""
    g = play("items", script=[2] * 8 + [3], sheet={"hearts": 5}, queues={"cornucopia": [WP]},
             overrides={"max_turns": 8})
    assert DATA["die_table"]["faces"][2] == "chest"
    assert [g[t] for t in range(7)] == [5 + DATA["potions"]["red"], 1, 1, 1 + 1, 1, 2, 0]
    for cell, ic in enumerate([I.CHEST, I.POTION, I.SHOVEL, I.WEAPON, I.SHIELD, I.CLOVER, I.CORNUCOPIA, I.DIE]):
        assert g.icons(cell, ic) == 0
    assert g.rows(L.TR_DIE_TABLE) == [(3, L.DIE_CHEST, 0, 0, 0)]
    assert (L.M_REDEEM, WP, 0, 0, 0) in g.rows(L.TR_MARKET)
    d = g.decisions("cornucopia")[0]
    assert d.keys == [-1, H, SH, CL, WP, SV]  # keep it, or any resource below its cap


DIE_EFFECT = {"nothing": {}, "lose_heart": {H: -1}, "chest": {CH: 1}, "potion": {H: DATA["potions"]["red"]},
              "shovel": {SV: 1}, "weapon": {WP: 1}, "shield": {SH: 1}, "clover": {CL: 1}, "cornucopia": {CU: 1},
              "monster": {}}
OTHER_DIE_TABLE = ["shovel", "weapon", "shield", "nothing", "lose_heart", "monster"]


def test_cornucopia_with_full_track_still_gives_a_resource():
    """"CORNUCOPIA: acquire 1 Resource of your choice": with the cornucopia boxes full a cornucopia
    found can still be turned into a resource at once; it is not lost.

    Thalindra keeps the 4 cornucopias of two kill prizes (the track's cap), then finds one more."""
    cap = DATA["character"]["cap"]["cornucopia"]
    ov = dict(QUIET_EVENTS, max_turns=8)
    g = play("goblins_u", hero="thalindra", script=[1] + [1, 6, 1] * 6 + [1],
             queues={"cornucopia": [-1] * cap + [SH]}, overrides=ov, strict=False)
    assert g[CU] == cap == 4 and g[L.S_KILLS_ROUND] == 6
    assert g.icons(7, I.CORNUCOPIA) == 0
    assert len(g.decisions("cornucopia")) == cap + 1, g.report()
    assert g[SH] == DATA["heroes"]["thalindra"]["start"]["shield"] + 1


@pytest.mark.parametrize("faces, face", [(None, f) for f in range(1, 7)] + [(OTHER_DIE_TABLE, f) for f in (1, 2, 3, 4)])
def test_die_table(faces, face):
    """The DIE icon: roll 1d6 on the DIE table (the shipped one, then one with the other outcomes)."""
    ov = {"max_turns": 1}
    if faces:
        ov["die_table.faces"] = faces
    outcome = (faces or DATA["die_table"]["faces"])[face - 1]
    extra = [1, 6, 1] if outcome == "monster" else []  # the spawn die (a goblin), then beat it
    q = {"cornucopia": [-1]} if outcome == "cornucopia" else {}
    g = play("die", script=[2, face, *extra], sheet={"hearts": 5}, queues=q, overrides=ov)
    assert g.rows(L.TR_DIE_TABLE) == [(face, L.DIE_WORDS.index(outcome), 0, 0, 0)]
    start = [5, 0, 0, 0, 0, 0, 0]
    for t, dv in DIE_EFFECT[outcome].items():
        start[t] += dv
    assert [g[t] for t in range(7)] == start
    assert g.icons(0, I.DIE) == 0
    if outcome == "monster":
        assert g.rows(L.TR_SPAWN) == [(0, GOBLIN, 1, 0, 0)] and g[L.S_KILLS_ROUND] == 1
    else:
        assert g.rows(L.TR_SPAWN) == []


def test_die_table_last_heart_kills():
    g = play("die", script=[2, 2], sheet={"hearts": 1, "shield": 1}, overrides={"game.insert_coins": 0})
    assert DATA["die_table"]["faces"][1] == "lose_heart"
    assert g[L.S_DEAD] == 1 and g[L.S_CAUSE] == L.CAUSE_DIE_TABLE and g[H] == 0


def test_magic_circle():
    # (the circle alone: no step after it in its turn)
    g = play("circles", script=[2], queues={"move": [move(3, CIRCLE)]}, sheet={"hearts": 5},
             overrides={"max_turns": 2, "rulings.crossing_in_turn": False})
    d = g.decisions("move")[0]
    assert {"kind": CIRCLE, "from": 0, "to": 3, "path": 0} in d.moves()
    assert g.rows(L.TR_MOVE)[-1][:2] == (0, 3) and g[L.S_POS] == 3
    assert len(g.rows(L.TR_ROLL)) == 1  # no roll arriving by magic circle
    assert g.icons(0, I.CIRCLE) == 1 and g.icons(3, I.CIRCLE) == 1  # not removed


def test_stairs_and_levers():
    """Castle Cliff: climbing a staircase reaches the levers over the upper level; down at another one."""
    # (the climb alone)
    g = play("cliff", script=[5], queues={"round": [1], "move": [move(6, STAIRS)]}, sheet={"hearts": 5},
             overrides={"requirements.levers": 2, "max_turns": 2, "rulings.crossing_in_turn": False})
    d = g.decisions("move")[0]
    assert {"kind": STAIRS, "from": 0, "to": 6, "path": 0} in d.moves()
    assert sorted(r[0] for r in g.rows(L.TR_LEVER)) == [2, 4]
    assert g.rows(L.TR_REQ) == [(2, 2, 2, 0, 0)] and g[L.S_PHASE] == 1
    assert g.rows(L.TR_MOVE)[-1][:2] == (-1, 6) and g[L.S_POS] == 6
    assert len(g.rows(L.TR_ROLL)) == 1
    assert g.icons(0, I.STAIRS) == g.icons(6, I.STAIRS) == 1 and g.icons(2, I.LEVER) == 1


def test_stairs_not_climbed_after_fleeing():
    """"IF YOU SUCCEED, COLLECT ANY PRESENT ITEMS AND CLIMB ANY STAIRS": fleeing the statue that
    guards a staircase, you may not climb it in that turn."""
    g = play("cliff_statue", script=[5, 3, 3], queues={"round": [1], "fight_on": [0]}, defaults={"move": 1},
             sheet={"hearts": 5}, overrides={"requirements.levers": 2, "max_turns": 2}, check_dice=False)
    assert g.rows(L.TR_FLEE) == [(STATUE, 0, 0, 0, 0)]
    at0 = [d for d in g.decisions("move") if d.snap["pos"] == 0]
    assert [m for d in at0 for m in d.moves() if m["kind"] == STAIRS] == []
    assert g.rows(L.TR_LEVER) == []


def test_magic_circle_not_used_after_fleeing():
    """Like a staircase, a magic circle is an element used only after a won encounter."""
    g = play("circles", script=[1, 1, 3, 3], queues={"fight_on": [0]}, defaults={"move": 1}, sheet={"hearts": 5},
             overrides={"max_turns": 2}, check_dice=False)
    assert g.rows(L.TR_FLEE)[0] == (GOBLIN, 0, 0, 0, 0)
    at0 = [d for d in g.decisions("move") if d.snap["pos"] == 0]
    assert [m for d in at0 for m in d.moves() if m["kind"] == CIRCLE] == []
    assert g.rows(L.TR_MOVE)[1][:2] == (0, 1)


def test_shovel_through_collapsed_wall():
    # (the dig alone: no step after it in its turn)
    g = play("cross_A", script=[3], queues={"round": [2]}, sheet={"hearts": 5, "shovel": 2},
             overrides={"max_turns": 2, "rulings.crossing_in_turn": False})
    assert g.walls(3)[E] == L.W_OPEN and g.walls(4)[W] == L.W_OPEN  # dug out again
    assert g.rows(L.TR_WALL) == [(3, E, 0, 0, 0)]
    assert g.rows(L.TR_LOSE) == [(SV, 1, 1, 1, 0)] and g[SV] == 1
    assert g.rows(L.TR_MOVE)[-1][:3] == (3, 4, E)
    assert len(g.rows(L.TR_ROLL)) == 1 and g[L.S_POS] == 4


@pytest.mark.parametrize("in_turn", [True, False])
def test_a_dig_and_the_step_after_it_are_one_turn(in_turn):
    """"Use the shovel to open a collapsed wall and move beyond the wall ...; resume the sequence from the beginning"
    (rulings.crossing_in_turn): turn 2 digs from cell 3 into cell 4 and steps on to cell 1 (rolled: face 1) in the
    same turn; with the ruling off the dig is turn 2 on its own and the turn cap (2) ends the game in cell 4."""
    quiet_a = ["nothing", "nothing", "collapse_left_front", "nothing", "nothing", "nothing"]
    g = play("cross_A", script=[3, 1] if in_turn else [3], queues={"round": [2], "move": [1] if in_turn else []},
             sheet={"hearts": 5, "shovel": 2},
             overrides={"max_turns": 2, "rulings.crossing_in_turn": in_turn, "events.A": quiet_a})
    assert g[L.S_TURN] == 2 and g[SV] == 1
    moves = [r[:2] for r in g.rows(L.TR_MOVE)]
    assert moves == ([(-1, 3), (3, 4), (4, 1)] if in_turn else [(-1, 3), (3, 4)])
    assert g[L.S_POS] == (1 if in_turn else 4)


def test_one_crossing_a_turn():
    """After a magic circle (cell 0 -> cell 3) the turn's step is chosen from a menu without crossings: no circle
    back to cell 0; the step into cell 2 is turn 2's (rulings.crossing_in_turn)."""
    g = play("circles", script=[2, 1], queues={"move": [move(3, CIRCLE), 2]}, sheet={"hearts": 5},
             overrides={**QUIET_EVENTS, "max_turns": 2})
    first, after = g.decisions("move")[:2]
    assert {"kind": CIRCLE, "from": 0, "to": 3, "path": 0} in first.moves()
    assert all(m["kind"] != CIRCLE for m in after.moves()) and after.moves()
    assert g[L.S_TURN] == 2 and g[L.S_POS] == 2


@pytest.mark.parametrize("in_turn", [True, False])
def test_a_crossing_into_the_safe_zone_ends_santas_game_there(in_turn):
    """Santa Crash'n Foury: a magic circle from cell 0 into the Safe Zone (cell 4) ends the game there, won; the
    turn's step after a crossing (rulings.crossing_in_turn) is not taken out of it (map ``santa_circle``)."""
    none = {k: 0 for k in L.SANTA_KIND_KEYS}
    santa = {**QUIET_EVENTS, "santa.on": True, "santa.grinch": "goblin", "santa.yeti": "orc", "santa.wrath_turns": 0,
             "santa.goal": none, "kills.prize_every": 0, "santa.hourglass": 6, "rulings.crossing_in_turn": in_turn}
    g = play("santa_circle", script=[1], queues={"place": [0], "move": [move(4, CIRCLE)]}, sheet={"hearts": 5},
             overrides=santa)
    assert [r[:2] for r in g.rows(L.TR_MOVE)] == [(1, 0), (0, 4)]
    assert g[L.S_POS] == 4 and g[L.S_WIN] == 1 and g[L.S_SANTA_MARKS] == 2


def test_a_step_after_a_crossing_that_drowns_keeps_the_turn_counted():
    """Discovering the Kraken, ``kraken.swim_max = 0``: turn 2 circles from cell 0 to cell 3 and then (the turn's
    step, rulings.crossing_in_turn) swims into the tunnel of cell 4 and drowns: the death is turn 2's (the swim's
    death comes before any room is entered, which once left the crossing's turn uncounted: turn 1)."""
    g = play("kr_circle", rules_file=str(DATA_DIR / "kraken_rules.toml"), script=[1],
             queues={"move": [move(3, CIRCLE), 4]}, sheet={"hearts": 5},
             overrides={**QUIET_EVENTS, "kraken.swim_max": 0, "game.max_turns": 2}, strict=False, check_dice=False)
    assert [r[:2] for r in g.rows(L.TR_MOVE)] == [(-1, 0), (0, 3)] and g[L.S_DEAD] == 1
    assert g[L.S_TURN] == 2 and g[L.S_DEATH_TURN] == 2 and g.out[L.OUT_TURNS] == 2


def test_stuck_means_dead():
    """Walled in without a shovel: dead."""
    g = play("cross_A", script=[3], queues={"round": [2]}, sheet={"hearts": 5},
             overrides={"game.insert_coins": 0})
    assert g[L.S_DEAD] == 1 and g[L.S_CAUSE] == L.CAUSE_STUCK and g[L.S_DEATH_CELL] == 3
    assert g.rows(L.TR_DEATH) == [(L.CAUSE_STUCK, 3, 1, 0, 0)]
    assert g[H] == 5 and g[L.S_WIN] == 0


def test_stuck_in_collapsed_corridor_even_with_shovel():
    """A shovel cannot cross a collapsed room: stuck behind it, with a shovel in hand, is dead."""
    g = play("corridor_b", script=[3, 2, 1, 6, 1, 1], queues={"round": [1], "move": [1, 2]},
             sheet={"hearts": 5, "shovel": 1}, overrides={"game.insert_coins": 0})
    at1 = [d for d in g.decisions("move") if d.snap["pos"] == 1][0]
    assert {"kind": SHOVEL_MOVE, "from": 1, "to": 0, "path": 0} in at1.moves()
    assert g.room_state(1) & L.COLLAPSED
    assert g[L.S_CAUSE] == L.CAUSE_STUCK and g[L.S_DEATH_CELL] == 2 and g[SV] == 1


# ============================================================================== the Oracle, exits
def test_oracle_before_awake_nothing():
    g = play("oracle_line", script=[2, 2], sheet={"hearts": 5},
             overrides={"requirements.statues": 1, "max_turns": 3})
    assert g[L.S_PHASE] == 0 and g[CH] == 0 and g.rows(L.TR_ORACLE) == []
    rolls = g.rows(L.TR_ROLL)
    assert [r[3] for r in rolls] == [0, 2]  # none for the Oracle's room
    assert rolls[1][0] == 0  # RULING oracle_leave_table = destination: leaving it rolls the new room's table


def test_oracle_waterways_cornucopia_delivered():
    """In the Waterways the first cornucopia is set aside (not redeemable), awakens the Oracle and is
    handed to it."""
    g = play("water_oracle", script=[5], queues={"round": [1]}, sheet={"hearts": 5},
             overrides={"requirements.cornucopias": 1, "max_turns": 2})
    assert g.decisions("cornucopia") == []
    assert (CU, 1, 0, 1, 0) in g.rows(L.TR_GAIN)
    assert g.rows(L.TR_REQ) == [(1, 1, 3, 0, 0)] and g.rows(L.TR_AWAKE) == [(3, 0, 0, 0, 0)]
    assert g.rows(L.TR_ORACLE) == [(3, 1, 0, 0, 0)]
    assert g[L.S_RESERVED] == 0 and g[CU] == 0 and g[CH] == 1 and g[L.S_PHASE] == 2


def test_exit_rolled_like_any_room():
    """The exit is rolled like any room (here a goblin appears): fleeing it, the round is not over;
    coming back over explored rooms it is rolled again, the goblin beaten: the round is complete."""
    script = [2, 1, 1, 6, 1,  # in at 3; 3->4: a goblin, beaten
              1, 1, 3, 3,  # the Oracle, back in 4; 4->5 (exit): a goblin, tie, flee
              2,  # 5 -> 7 over 4
              2, 6, 1]  # back to 5 over 4: rolled again, the goblin beaten: out
    g = play("exit", script=script, queues={"round": [0], "move": [1, 5, 7], "fight_on": [0]},
             sheet={"hearts": 5})
    rolls5 = [r for r in g.rows(L.TR_ROLL) if r[3] == 5]
    assert len(rolls5) == 2
    assert g.rows(L.TR_FLEE) == [(GOBLIN, 5, 0, 0, 0)]
    assert g.rows(L.TR_EXIT) == [(5, 1, 1, 0, 0)]
    flee = [i for i, r in enumerate(g.tr) if r[0] == L.TR_FLEE][0]
    ex = [i for i, r in enumerate(g.tr) if r[0] == L.TR_EXIT][0]
    assert flee < ex and g[L.S_WIN] == 1


def test_fleeing_in_exit_room_is_not_stuck():
    """After fleeing a monster in the exit room you may walk to an explored neighbour and come back to
    face it again: you are not stuck (and so not dead)."""
    script = [2, 1, 1, 6, 1,  # in at 3; 3->4: a goblin, beaten
              2,  # 4->7
              1, 1, 3, 3]  # the Oracle (over 4), back in 4, 4->5 (exit): a goblin, tie, flee
    g = play("exit", script=script, queues={"round": [0], "move": [7, 1, 5], "fight_on": [0]},
             sheet={"hearts": 5}, overrides={"max_turns": 6, "game.insert_coins": 0}, strict=False,
             check_dice=False)
    assert g.rows(L.TR_FLEE)[0] == (GOBLIN, 5, 0, 0, 0)
    assert g[L.S_DEATH_CAUSE] != L.CAUSE_STUCK, g.report()


# ===================================================================== insert coin, kill prizes
def test_insert_coin():
    """Dead: one continue with a fresh sheet on the same map; the round starts over; a second death ends it."""
    sheet = {"hearts": 2}
    g = play("cross_A", script=[1, 1, 1, 6, 1, 1, 1, 6], queues={"round": [2, 1], "trait": [H, H]},
             sheet=sheet)
    deaths = g.rows(L.TR_DEATH)
    assert deaths == [(L.CAUSE_FOE + GOBLIN, 3, 1, 0, 0), (L.CAUSE_FOE + GOBLIN, 1, 1, 0, 0)]
    assert g.rows(L.TR_COIN) == [(1, 0, 0, 0, 0)]
    assert g.rows(L.TR_CREATE) == [(2, 0, 0, 0, 0)] * 2
    # RULING insert_coin: the round starts over, its entry arrow usable again
    assert g.decisions("round")[1].keys == [0, 1, 2, 3, 4]
    assert g[L.S_COINS_USED] == 1 and g[L.S_COINS_LEFT] == 0 and g.out[L.OUT_COINS] == 1
    assert g[L.S_DEATH_ROUND] == 1 and g[L.S_DEATH_CELL] == 3
    assert g[L.S_WIN] == 0 and g[L.S_ROUND] == 0
    assert g.room_state(3) & L.EXPLORED  # the map keeps what was drawn


def test_no_insert_coin():
    g = play("cross_A", script=[1, 1, 1, 6], queues={"round": [2]}, sheet={"hearts": 2},
             overrides={"game.insert_coins": 0})
    assert len(g.rows(L.TR_DEATH)) == 1 and g.rows(L.TR_COIN) == [] and g[L.S_COINS_USED] == 0


@pytest.mark.parametrize("hero, per_prize", [("free", 1), ("thalindra", 2)])
def test_kill_prize(hero, per_prize):
    """Every 3 kills in a round: a cornucopia (Thalindra: one more)."""
    ov = dict(QUIET_EVENTS)
    ov["max_turns"] = 7
    g = play("goblins", script=[1] + [1, 6, 1] * 6, queues={"cornucopia": [-1] * (2 * per_prize)},
             sheet={"hearts": 5} if hero == "free" else None, hero=hero, overrides=ov)
    assert g[L.S_KILLS_ROUND] == 6
    assert g.rows(L.TR_KILL_PRIZE) == [(3, per_prize, 0, 0, 0), (6, per_prize, 0, 0, 0)]
    assert g[CU] == 2 * per_prize


# ========================================================================================= heroes
def test_kael_skips_roll():
    g = play("line_g", hero="kael", script=[2, 6, 1], overrides={"max_turns": 2})
    assert [r[3] for r in g.rows(L.TR_ROLL)] == [0]  # the plain room is rolled, the goblin's room is not
    assert g.rows(L.TR_KAEL) == [(1, 0, 0, 0, 0)]
    assert g.rows(L.TR_WIN) == [(GOBLIN, 1, 0, 0, 0)]
    free = play("line_g", script=[2, 2, 6, 1], sheet={"hearts": 5}, overrides={"max_turns": 2})
    assert [r[3] for r in free.rows(L.TR_ROLL)] == [0, 1] and free.rows(L.TR_KAEL) == []


def test_melyra_sets_value():
    g = fight("orc", [1, 5], hero="melyra", bonus_all=0, queues={"weapon": [0], "clover": [clover(2, 0, 6)]})
    d = g.decisions("clover")[0]
    assert d.keys == [clover(0)] + [clover(2, die, v) for die in (0, 1) for v in range(1, 7)]
    assert g.rows(L.TR_CLOVER) == [(0, 1, 6, 2, 0)]
    assert g.rows(L.TR_ROLLOFF) == [(1, 0, 5, 0, 0), (6, 0, 5, 0, 1)] and g.rows(L.TR_WIN)
    start = DATA["heroes"]["melyra"]["start"]["clover"]
    assert g[CL] == start - 1
    assert g.dice() == 4  # the clover rolled no die


@pytest.mark.parametrize("thal_bandit, expected", [(True, 2), (False, 1)])
def test_thalindra_extra_cornucopia(thal_bandit, expected):
    """Beating a bandit: one more cornucopia for Thalindra (RULING thalindra_bandit); prizes: test_kill_prize."""
    g = fight("bandit", [6, 1], hero="thalindra", queues={"cornucopia": [-1] * expected},
              overrides={"rulings.thalindra_bandit": thal_bandit})
    assert g[CU] == expected


def test_elydion_midround_market():
    """Once per round, before a move: the market at the next round's chest value."""
    g = play("elydion", hero="elydion", script=[2, 2, 2, 2],
             queues={"elydion_market": [1], "market": [market(L.M_BUY, H), DONE]},
             overrides={"max_turns": 4, "game.rounds": 2})
    ely = g.decisions("elydion_market")
    assert len(ely) == 1
    assert g.rows(L.TR_MARKET_OPEN) == [(chest_value(1), 1, 0, 0, 0)]
    assert g.decisions("market")[0].snap["pos"] == 0  # after the chest of cell 0, before the first move
    assert g[H] == DATA["heroes"]["elydion"]["start"]["hearts"] + chest_value(1)  # 1 chest: 2 hearts
    assert g[CH] == 1  # the second chest (cell 2): no second mid-round market this round
    assert g[L.S_ELY_USED] == 1


# ====================================================================== combat statistics
def exact_rolloff(w: int, s: int) -> dict:
    """Exact probabilities of one roll-off d6 + w against d6 + s over the 36 outcomes."""
    p = {"win": 0, "tie": 0}
    for a, b in itertools.product(range(1, 7), repeat=2):
        m, t = a + w, b + s
        if m > t:
            p["win"] += 1
        elif m == t:
            p["tie"] += 1
        else:
            p[t - m] = p.get(t - m, 0) + 1
    return {k: v / 36 for k, v in p.items()}


COMBOS = [(0, "orc", 0), (2, "orc", 1), (1, "minotaur", 2), (3, "goblin", 3), (0, "statue", 3)]


@pytest.mark.parametrize("weapon, foe, b", COMBOS)
def test_combat_statistics_match_exact_odds(weapon, foe, b):
    """Random dice through the engine's own ``fight`` (one roll-off, weapon added, then flee): the
    frequencies of win, tie and each amount of damage match the exact odds over the 36 outcomes."""
    rolloffs, _ = engine_loops()
    r = rules("cross_A")
    R, T = r.for_hero("free")
    params = make_params(defaults={"weapon": 1, "fight_on": 0}, log_cap=0)
    n = 120_000
    out = np.zeros((n, 2), np.int64)
    ic = I.ICON_KEYS.index(foe)
    rolloffs(R, T, r.geo, r.rm0, params, policy_fn(), np.uint64(20240 + weapon + 7 * b), weapon, b, ic, 4, out)
    e = DATA["enemies"][foe]
    exact = exact_rolloff(weapon, e["base"] + e["mult"] * b)
    result, lost = out[:, 0], out[:, 1]
    assert set(np.unique(result)) <= {0, 1}
    counts = {"win": int((result == 1).sum()), "tie": int(((result == 0) & (lost == 0)).sum())}
    for dmg in range(1, 12):
        counts[dmg] = int((lost == dmg).sum())
    assert sum(counts.values()) == n
    for key, k in counts.items():
        p = exact.get(key, 0.0)
        if p == 0.0:
            assert k == 0, key
        else:
            assert abs(binom_z(k, n, p)) < 4.5, (key, k, n * p)
    assert (lost[result == 1] == 0).all()


def test_bandit_random_theft_is_uniform():
    """RULING bandit_steals = random: "lose 1 of any other resource" at random, so each resource
    held is taken equally often (here 1 shield, 1 clover, 1 weapon, 1 shovel: 1/4 each)."""
    _, steals = engine_loops()
    r = rules("arena", {"rulings.bandit_steals": "random"})
    R, _ = r.for_hero("free")
    held = np.array([SH, CL, WP, SV], np.int64)
    counts = np.zeros(L.N_TRACKS, np.int64)
    n = 60_000
    steals(R, make_params(log_cap=0), policy_fn(), np.uint64(77), held, n, counts)
    assert counts.sum() == n
    for t in held:
        assert abs(binom_z(int(counts[t]), n, 1 / len(held))) < 4.5, counts.tolist()


# =============================================== rulings against the literal text, declared behaviour
@pytest.mark.parametrize("swim_rounds", ["D", "all"])
def test_swim_only_in_the_waterways(swim_rounds):
    """"The Waterways ... Use the flooded tunnels to swim freely": RULING swim_rounds = "D" (default): in
    the Temple a flooded tunnel is an ordinary room (a step, rolled); "all": it is swum into without a roll."""
    assert DATA["rulings"]["swim_rounds"] == "D"
    swim = swim_rounds == "all"
    script = [2, 2] + ([] if swim else [2])
    g = play("water_a", script=script, queues={"move": [move(2, SWIM if swim else STEP)]}, sheet={"hearts": 5},
             overrides={**QUIET_EVENTS, "max_turns": 3, "rulings.swim_rounds": swim_rounds})
    at1 = g.decisions("move")[-1]
    assert {"kind": SWIM if swim else STEP, "from": 1, "to": 2, "path": 0} in at1.moves()
    assert [r[3] for r in g.rows(L.TR_ROLL)] == ([0, 1] if swim else [0, 1, 2])
    assert g[L.S_POS] == 2 and g.room_state(2) & L.EXPLORED


@pytest.mark.parametrize("roll", [False, True])
def test_roll_after_swim(roll):
    """Swimming into an unexplored flooded room: no roll ("swim freely ... without rolling the die", the
    default); RULING roll_after_swim = true rolls it, on the table of the room you swim from (D)."""
    assert DATA["rulings"]["roll_after_swim"] is False
    script = [5, 3, 1] + ([6] if roll else [])  # the last face (D6: an extra move) only when rolled
    q = {"round": [1], "move": [move(2, SWIM)]}
    g = play("water", script=script, queues=q, sheet={"hearts": 5},
             overrides={"max_turns": 4, "rulings.roll_after_swim": roll})
    rolls = g.rows(L.TR_ROLL)
    assert len(rolls) == (4 if roll else 3)
    swim = [ln for ln in g.report().splitlines() if ln.startswith("  swim ")]
    assert len(swim) == 1 and ("rolled, rulings.roll_after_swim" in swim[0]) == roll
    if roll:
        assert rolls[-1][:4] == (3, 6, L.EV_EXTRA, 2)
        assert g.rows(L.TR_EXTRA) == [(1, 0, 0, 0, 0)]
    assert g.room_state(2) & L.EXPLORED


@pytest.mark.parametrize("roll", [False, True])
def test_roll_after_magic_circle(roll):
    """Arriving by magic circle in an unexplored room: no roll (default); RULING roll_after_jump = true
    rolls it on the table of the sector you jump from."""
    assert DATA["rulings"]["roll_after_jump"] is False
    g = play("circles", script=[2] + ([2] if roll else []), queues={"move": [move(3, CIRCLE)]},
             sheet={"hearts": 5},
             overrides={"max_turns": 2, "rulings.roll_after_jump": roll, "rulings.crossing_in_turn": False})
    assert g[L.S_POS] == 3
    assert [(r[0], r[3]) for r in g.rows(L.TR_ROLL)] == ([(0, 0), (0, 3)] if roll else [(0, 0)])


@pytest.mark.parametrize("roll", [False, True])
def test_roll_after_stairs(roll):
    """Coming down a staircase into an unexplored room: no roll (default); roll_after_jump = true rolls
    it (table C, the sector of the staircase climbed)."""
    g = play("cliff", script=[5] + ([5] if roll else []), queues={"round": [1], "move": [move(6, STAIRS)]},
             sheet={"hearts": 5},
             overrides={"requirements.levers": 2, "max_turns": 2, "rulings.roll_after_jump": roll,
                        "rulings.crossing_in_turn": False})
    assert g[L.S_POS] == 6 and g[L.S_PHASE] == 1
    assert [(r[0], r[3]) for r in g.rows(L.TR_ROLL)] == ([(2, 0), (2, 6)] if roll else [(2, 0)])


@pytest.mark.parametrize("immune", [True, False])
def test_oracle_immune_ruling(immune):
    """RULING oracle_immune = true (default): "the room you came from collapses" never hits the Oracle's
    room; false: it does (the Oracle is then unreachable for good)."""
    assert DATA["rulings"]["oracle_immune"] is True
    g = play("ring4", script=[3, 3, 6, 1, 1, 6, 1], queues={"round": [1], "move": [5, 4, 7], "place": [5]},
             sheet={"hearts": 5},
             overrides={"max_turns": 4, "requirements.kills": 0, "rulings.oracle_immune": immune})
    assert g.rows(L.TR_ROLL)[-1][2] & L.EV_PREV_COLLAPSE
    assert g.rows(L.TR_PREV_COLLAPSE) == ([] if immune else [(4, 0, 0, 0, 0)])
    assert bool(g.room_state(4) & L.COLLAPSED) is not immune


@pytest.mark.parametrize("flee_to", ["stay", "back"])
def test_flee_stay_or_back(flee_to):
    """Fleeing: RULING flee_to = "stay" (default): you stay in the foe's room and may step on to any
    neighbour, past the foe; "back": you step back (free) into the room you came from, and the foe bars
    the way on."""
    assert DATA["rulings"]["flee_to"] == "stay"
    # in at 2 (entry roll), step 2->1 (roll), the goblin: tie, flee
    g = play("line5_g", script=[5, 2, 3, 3], queues={"fight_on": [0], "move": [1]}, defaults={"move": -100},
             sheet={"hearts": 5}, overrides={**QUIET_EVENTS, "max_turns": 3, "rulings.flee_to": flee_to},
             strict=False, check_dice=False)  # the step after is rolled at random
    assert g.rows(L.TR_FLEE) == [(GOBLIN, 1, 0, 0, 0)]
    after = g.decisions("move")[1]
    if flee_to == "stay":
        assert g.rows(L.TR_FLEE_BACK) == [] and after.snap["pos"] == 1
        assert {"kind": STEP, "from": 1, "to": 0, "path": 0} in after.moves()  # on past the goblin
    else:
        assert g.rows(L.TR_FLEE_BACK) == [(1, 2, 0, 0, 0)] and after.snap["pos"] == 2
        assert moves_into(after, 0) == []  # the goblin bars the way
        assert {"kind": GOTO, "from": 2, "to": 1, "path": 0} in after.moves()  # face it again
    assert after.snap["turn"] == 2  # fleeing back is free


def test_flee_back_not_through_a_jump():
    """flee_to = "back" after arriving by magic circle (rolled: roll_after_jump): the room you came from
    is not behind you, so you stay."""
    ov = {**QUIET_EVENTS, "events.A": ["monster"] + ["nothing"] * 5, "max_turns": 2, "rulings.flee_to": "back",
          "rulings.roll_after_jump": True, "rulings.crossing_in_turn": False}
    g = play("circles", script=[2, 1, 1, 3, 3], queues={"fight_on": [0], "move": [move(3, CIRCLE)]},
             sheet={"hearts": 5}, overrides=ov)
    assert g.rows(L.TR_FLEE) == [(GOBLIN, 3, 0, 0, 0)]
    assert g.rows(L.TR_FLEE_BACK) == [] and g[L.S_POS] == 3


@pytest.mark.parametrize("ruling", ["optional", "always"])
def test_die_icon_optional(ruling):
    """"DIE: You *can* obtain various things": RULING die_icon = "optional" (default): the player decides
    (here: leaves it); the die stays in the room. "always": it is rolled, no decision."""
    assert DATA["rulings"]["die_icon"] == "optional"
    q = {"use_die": [0]} if ruling == "optional" else {}
    g = play("die", script=[2] + ([] if ruling == "optional" else [3]), queues=q, sheet={"hearts": 5},
             overrides={"max_turns": 1, "rulings.die_icon": ruling})
    if ruling == "optional":
        assert [d.keys for d in g.decisions("use_die")] == [[1, 0]]  # roll it, leave it
        assert g.rows(L.TR_DIE_LEFT) == [(0, 1, 0, 0, 0)] and g.rows(L.TR_DIE_TABLE) == []
        assert g.icons(0, I.DIE) == 1 and g[CH] == 0
    else:
        assert g.decisions("use_die") == []
        assert g.rows(L.TR_DIE_TABLE) == [(3, L.DIE_CHEST, 0, 0, 0)] and g.icons(0, I.DIE) == 0 and g[CH] == 1


def test_die_icon_rolled_when_chosen():
    g = play("die", script=[2, 3], queues={"use_die": [1]}, sheet={"hearts": 5}, overrides={"max_turns": 1})
    assert len(g.decisions("use_die")) == 1 and g.rows(L.TR_DIE_LEFT) == []
    assert g.rows(L.TR_DIE_TABLE) == [(3, L.DIE_CHEST, 0, 0, 0)] and g.icons(0, I.DIE) == 0 and g[CH] == 1


@pytest.mark.parametrize("policy", ["greedy", "cautious"])
def test_builtin_policies_use_the_die_sensibly(policy):
    """Greedy and cautious leave a die when hearts are low (it can cost a heart or bring a monster), roll
    it otherwise, and always when it is the Waterways' way to a cornucopia (leaving it would bring them back)."""
    from foury_sim.games.foury.policies import CAUTIOUS, GREEDY

    p = GREEDY if policy == "greedy" else CAUTIOUS
    params = np.array(list(p.values()), np.float64)
    st = np.zeros(L.STATE_SIZE, np.int64)
    opts = np.zeros((2, L.N_OCOL), np.int64)
    opts[0, 0], opts[1, 0] = 1, 0
    low = int(p["flee_hearts"]) + 1
    for hearts, goal, use in [(low, 0, False), (low + 1, 0, True), (1, 1, True), (8, 0, True)]:
        st[L.HEARTS] = hearts
        st[L.S_DIE_GOAL] = goal
        assert heuristic_decide(L.D_USE_DIE, st, opts, 2, params) == (0 if use else 1), (hearts, goal)


@pytest.mark.parametrize("ruling", ["foe_icon", "monster_only", "off"])
def test_kael_skips_roll_options(ruling):
    """RULING kael_skips_roll: "foe_icon" (default) skips the roll for a statue's room and a monster's;
    "monster_only" only for a monster's (a statue is "a trap"); "off" never."""
    skip_statue = ruling == "foe_icon"
    skip_goblin = ruling != "off"
    ov = {"max_turns": 2, "rulings.kael_skips_roll": ruling}
    st = play("line5", hero="kael", script=[5, 6, 1] if skip_statue else [5, 2, 6, 1], overrides=ov,
              queues={"move": [1]})
    assert [r[3] for r in st.rows(L.TR_ROLL)] == ([2] if skip_statue else [2, 1])
    assert st.rows(L.TR_KAEL) == ([(1, 0, 0, 0, 0)] if skip_statue else [])
    gb = play("line_g", hero="kael", script=[2, 6, 1] if skip_goblin else [2, 2, 6, 1], overrides=ov)
    assert [r[3] for r in gb.rows(L.TR_ROLL)] == ([0] if skip_goblin else [0, 1])
    assert gb.rows(L.TR_WIN) == [(GOBLIN, 1, 0, 0, 0)]


@pytest.mark.parametrize("ruling", ["hit", "one_heart"])
def test_shield_blocks_ruling(ruling):
    """"Blocks the hit": RULING shield_blocks = "hit" (default) negates the whole damage; "one_heart"
    takes only 1 heart off it."""
    g = fight("orc", [1, 4], sheet={"hearts": 8, "shield": 1}, queues={"shield": [1], "fight_on": [0]},
              overrides={"rulings.shield_blocks": ruling})  # 1 vs 4+2: 5 damage
    if ruling == "hit":
        assert g.rows(L.TR_BLOCK) == [(5, 0, 0, 0, 0)] and g.rows(L.TR_HIT) == [] and g[H] == 8
    else:
        assert g.rows(L.TR_BLOCK) == [(1, 0, 0, 0, 0)] and g.rows(L.TR_HIT) == [(4, 4, 0, 0, 0)] and g[H] == 4
    assert g[SH] == 0


def test_shield_one_heart_bandit_steals_only_when_hurt():
    """shield_blocks = "one_heart": a 1-damage bandit hit fully absorbed steals nothing; 2 damage hurts: it steals."""
    ov = {"rulings.shield_blocks": "one_heart"}
    g = fight("bandit", [1, 2], sheet={"hearts": 6, "shield": 1, "shovel": 1}, bonus_all=0,
              queues={"shield": [1], "fight_on": [0]}, overrides=ov)
    assert g.rows(L.TR_HIT) == [] and g.rows(L.TR_STEAL) == [] and g[SV] == 1
    g = fight("bandit", [1, 3], sheet={"hearts": 6, "shield": 1, "shovel": 1}, bonus_all=0,
              queues={"shield": [1], "fight_on": [0]}, overrides=ov)
    assert g.rows(L.TR_HIT) == [(1, 5, 0, 0, 0)] and g.rows(L.TR_STEAL) == [(SV, 0, 0, 0, 0)]


def test_insert_coin_new_game():
    """RULING insert_coin = "new_game": the continue starts the whole game again on a fresh map (the goblin
    that killed you and the room you died in are gone from the sheet); "restart_round": test_insert_coin."""
    g = play("cross_A", script=[1, 1, 1, 6, 1, 1, 1, 6], queues={"round": [2, 1], "trait": [H, H]},
             sheet={"hearts": 2}, overrides={"rulings.insert_coin": "new_game"})
    assert g.rows(L.TR_COIN) == [(1, 1, 0, 0, 0)]
    assert g.decisions("round")[1].keys == [0, 1, 2, 3, 4]
    assert g.rows(L.TR_DEATH)[0][:2] == (L.CAUSE_FOE + GOBLIN, 3)
    assert not g.room_state(3) & L.EXPLORED and g.icons(3, GOBLIN) == 0  # a fresh map
    assert g.room_state(1) & L.EXPLORED and g.icons(1, GOBLIN) == 1  # the second life's death
    assert g[L.S_COINS_USED] == 1 and g[L.S_WIN] == 0


@pytest.mark.parametrize("ruling", ["restart_round", "new_game"])
def test_insert_coin_completed_rounds(ruling):
    """ring4, two rounds: round 1 (A) won with a goblin killed, then killed by the orc in round 2 (B).
    "restart_round" (default): round 1 stays completed, B is played again (its arrow reopened);
    "new_game": every round and arrow is open again, the kills are gone, the map is fresh."""
    assert DATA["rulings"]["insert_coin"] == "restart_round"
    new = ruling == "new_game"
    ov = dict(QUIET_EVENTS)
    ov.update({"game.rounds": 2, "requirements.kills": 0, "max_turns": 7, "rulings.insert_coin": ruling})
    script = [4, 4, 6, 1, 4,  # round 1: in at 0, 0->1, the Oracle, stand in 5 (the goblin beaten), out at 2
              1, 6]  # round 2: in at 2, over 5 to the Oracle, stand in 7: the orc hits 6 (7 vs 1)
    g = play("ring4", script=script + ([4] if new else []),  # new game: the entry room is unexplored again
             queues={"round": [0, 3], "move": [1, 4, 2, 4], "place": [5, 7], "cornucopia": [-1]},
             sheet={"hearts": 6}, overrides=ov)
    assert g.rows(L.TR_DEATH)[0][:2] == (L.CAUSE_FOE + ORC, 7)
    assert g.rows(L.TR_COIN) == [(1 if new else 2, int(new), 0, 0, 0)]  # the round played next
    assert g.decisions("round")[2].keys == (list(range(8)) if new else [3, 4, 5, 6, 7])
    assert g[L.S_ROUND] == (0 if new else 1) and g[L.S_DONE_MASK] == (0 if new else 1)
    assert g[L.S_KILLS_TOTAL] == (0 if new else 1)
    assert g.icons(5, GOBLIN) == (1 if new else 0)  # the goblin of round 1 is back on a fresh map


# ================================================================ every ruling has a real alternative
RULES_MD = (Path(__file__).parent.parent / "docs" / "rules.md").read_text()


@pytest.mark.parametrize("name", sorted(RULINGS))
def test_every_ruling_option_parses_and_differs(name):
    """Each ``rulings.<key>`` accepts at least two values, each value loads and sets the kernel's rule
    vector differently (so the option flips something), a wrong value is refused, and docs/rules.md
    names the option in its rulings table."""
    allowed = RULINGS[name][0]
    assert len(allowed) >= 2, name
    assert DATA["rulings"][name] in allowed
    vectors = set()
    for v in allowed:
        r = rules("cross_A", {f"rulings.{name}": v})
        vectors.add(tuple(int(x) for x in r.R))
    assert len(vectors) == len(allowed), name
    with pytest.raises(InputError, match=f"rulings.{name}"):
        rules("cross_A", {f"rulings.{name}": "no such value"})
    assert f"`rulings.{name}" in RULES_MD, name


def test_oracle_before_awake_blocked_ruling():
    """RULING oracle_before_awake = "blocked": the sleeping Oracle's room cannot be entered (the corridor's
    only way on leads through it: stuck); the default "pass": test_oracle_before_awake_nothing."""
    g = play("oracle_line", script=[2], sheet={"hearts": 5},
             overrides={"requirements.statues": 1, "game.insert_coins": 0, "rulings.oracle_before_awake": "blocked"})
    assert g.decisions("move") == []
    assert g[L.S_CAUSE] == L.CAUSE_STUCK and g[L.S_DEATH_CELL] == 0 and g.room_state(1) & L.EXPLORED == 0


def test_oracle_leave_table_none_ruling():
    """RULING oracle_leave_table = "none": stepping from the Oracle's room into a new room is not rolled
    (default "destination": test_oracle_before_awake_nothing rolls it)."""
    g = play("oracle_line", script=[2], sheet={"hearts": 5},
             overrides={"requirements.statues": 1, "max_turns": 3, "rulings.oracle_leave_table": "none"})
    assert [r[3] for r in g.rows(L.TR_ROLL)] == [0]
    assert g[L.S_POS] == 2 and g.room_state(2) & L.EXPLORED


def test_exit_roll_new_only_ruling():
    """RULING exit_roll = "new_only": an explored exit reached again is not rolled; the goblin left there
    is faced at once (default "always": test_exit_rolled_like_any_room)."""
    script = [2, 1, 1, 6, 1,  # in at 3; 3->4: a goblin, beaten
              1, 1, 3, 3,  # the Oracle, back in 4; 4->5 (exit): a goblin, tie, flee
              2,  # 5 -> 7 over 4
              6, 1]  # back to 5 over 4: no roll, the goblin beaten: out
    g = play("exit", script=script, queues={"round": [0], "move": [1, 5, 7], "fight_on": [0]},
             sheet={"hearts": 5}, overrides={"rulings.exit_roll": "new_only"})
    assert len([r for r in g.rows(L.TR_ROLL) if r[3] == 5]) == 1
    assert g.rows(L.TR_EXIT) == [(5, 1, 1, 0, 0)] and g[L.S_WIN] == 1


@pytest.mark.parametrize("reserve", ["rounds", "sector_only", "none"])
def test_reserve_entries_ruling(reserve):
    """Two rounds, the Palace has one arrow: RULING reserve_entries = "sector_only" forbids leaving the
    Temple through it (the Palace could never be entered); "none" allows it (and the game is then lost);
    "rounds" (default) sees the game is unwinnable from the start (the Palace needs an entry and a different
    exit) and lets the exit through."""
    ov = {**QUIET_EVENTS, "game.rounds": 2, "requirements.kills": 0, "max_turns": 4, "game.insert_coins": 0,
          "rulings.reserve_entries": reserve}
    g = play("exit1", script=[2, 2, 2], queues={"round": [0], "move": [4, 1, 5]}, sheet={"hearts": 5},
             overrides=ov, strict=False)
    if reserve == "rounds":  # the Palace round can never be played (one arrow: entry and exit): already
        # unwinnable before the exit, so the exact check lets it through and records why
        assert g[L.S_UNWIN_TURN] >= 1 and g[L.S_UNWIN_CAUSE] != L.UW_EXIT
        assert g.rows(L.TR_EXIT) == [(5, 1, 1, 0, 0)]
    elif reserve == "sector_only":
        assert g.rows(L.TR_EXIT) == [] and g[L.S_POS] == 5 and g[L.S_ROUND] == 0
    else:
        assert g.rows(L.TR_EXIT) == [(5, 1, 1, 0, 0)] and g[L.S_ROUND] == 1
        assert g[L.S_CAUSE] == L.CAUSE_STUCK  # round 2: no arrow left into the Palace


@pytest.mark.parametrize("new_only", [True, False])
def test_d_new_cornucopia_ruling(new_only):
    """ring4: a cornucopia kept from round 1 (A). RULING d_new_cornucopia = true (default): the Waterways
    need one gained in their round; false: the kept one is set aside at once and awakens the Oracle."""
    ov = {**QUIET_EVENTS, "game.rounds": 2, "requirements.kills": 0, "requirements.cornucopias": 1,
          "max_turns": 5, "rulings.d_new_cornucopia": new_only}
    g = play("ring4", script=[4, 4, 6, 1, 4, 4], sheet={"hearts": 5},
             queues={"round": [0, 4], "move": [1, 4, 2], "place": [5], "cornucopia": [-1]}, overrides=ov)
    assert g.rows(L.TR_ROUND)[1][:2] == (2, 3)  # round 2: the Waterways
    if new_only:
        assert g[CU] == 1 and g[L.S_RESERVED] == 0 and g[L.S_PHASE] == 0
    else:
        assert g[CU] == 0 and g[L.S_RESERVED] == 1 and g[L.S_PHASE] == 1
        assert g.rows(L.TR_REQ)[-1] == (1, 1, 3, 0, 0)


def test_market_exchange_rate_option():
    """market.exchange_rate = 2: one resource swapped gives two (Elydion's mid-round market)."""
    g = play("elydion", hero="elydion", script=[2, 2],
             queues={"elydion_market": [1], "market": [market(L.M_SWAP, H, WP), DONE]},
             overrides={"max_turns": 2, "market.exchange_rate": 2})
    start = DATA["heroes"]["elydion"]["start"]
    assert [r[:3] for r in g.rows(L.TR_MARKET)] == [(L.M_SWAP, H, WP)]
    assert g[H] == start["hearts"] - 1 and g[WP] == start["weapon"] + 2


# ------------------------------------------------------------------ the upper level (issue 9, 1.3)
# upper.map: staircases in cells 0 and 4, levers in cells 1 and 3, walkways 0 -1- 1 -2- 3 -1- 4; the staircase
# with a lever in cell 5 has no walkway. Upper-level places (cell order): 0, 1, 3, 4, 5 -> mask bits 0..4.
UPPER_OV = {"requirements.levers": 2, "max_turns": 2}


def climb(to, overrides=None):
    ov = dict(UPPER_OV)
    ov.update(overrides or {})
    # (the climb alone: no step after it)
    return play("upper", script=[1], queues={"round": [0], "move": [move(to, STAIRS)]}, sheet={"hearts": 5},
                overrides={**QUIET_EVENTS, "rulings.crossing_in_turn": False, **ov})


def stairs_moves(g):
    return [(m["from"], m["to"]) for m in g.decisions("move")[0].moves() if m["kind"] == STAIRS]


def test_upper_level_places_reach_only_the_levers_travelled_to():
    """"Climb to the UPPER LEVEL and TRAVEL THROUGH it to reach the LEVERS": down at the same staircase
    after 1 + 1 turns, the climb reaches the lever in cell 1 only (the cheapest trip first)."""
    g = climb(0)
    assert sorted(stairs_moves(g)) == [(0, 0), (0, 0), (0, 4)]  # 1 lever (2 turns), 2 levers (6); to 4: 2 levers
    assert (0, 5) not in stairs_moves(g)  # no walkway to the staircase in cell 5
    assert g.rows(L.TR_UPPER) == [(0, 0, 2, 1, 0b10)]
    assert g.rows(L.TR_LEVER) == [(1, 0, 0, 0, 0)]
    assert g[L.S_REQ_DONE] == 1 and g[L.S_PHASE] == 0
    assert g[L.S_TURN] == 1 + 2 + 1 and g[L.S_UP_TURNS] == 2  # entry, travel, coming down
    assert len(g.rows(L.TR_ROLL)) == 1  # no room roll up there or coming down


def test_upper_level_trip_over_two_levers_costs_its_walkways():
    g = climb(4)
    assert g.rows(L.TR_UPPER) == [(0, 4, 1 + 2 + 1, 2, 0b110)]
    assert sorted(r[0] for r in g.rows(L.TR_LEVER)) == [1, 3]
    assert g[L.S_PHASE] == 1 and g[L.S_POS] == 4
    assert g[L.S_TURN] == 1 + 4 + 1 and g[L.S_UP_TURNS] == 4


def test_upper_level_places_cannot_reach_other_walkways():
    """Three levers needed: from cell 0 at most the two on its walkways."""
    g = climb(4, {"requirements.levers": 3})
    assert (0, 5) not in stairs_moves(g)
    assert g.rows(L.TR_UPPER) == [(0, 4, 4, 2, 0b110)] and g[L.S_REQ_DONE] == 2 and g[L.S_PHASE] == 0


def test_upper_level_network_reaches_every_lever():
    """rulings.upper_level = "network": one climb reaches every lever and staircase, no travel."""
    g = climb(5, {"requirements.levers": 3, "rulings.upper_level": "network"})
    assert sorted(stairs_moves(g)) == [(0, 0), (0, 4), (0, 5)]
    assert g.rows(L.TR_UPPER) == [(0, 5, 0, 3, 0b10110)]
    assert sorted(r[0] for r in g.rows(L.TR_LEVER)) == [1, 3, 5]
    assert g[L.S_PHASE] == 1 and g[L.S_TURN] == 2 and g[L.S_UP_TURNS] == 0


# ------------------------------------------------------- no unwinnable games by construction (1.2)
# arrows3.map: arrows 0 (A, cell 0), 1 (B, cell 2), 2 (A, cell 0), 3 (B, cell 2), 4 and 5 (C, cell 3).
def board(R, arrows):
    """The kernel's Board bundle for the arrow checks (they read only R and the arrows)."""
    from foury_sim.games.foury import kernel as K

    return K.Board(R, np.zeros((1, 1), np.int64), np.zeros((1, 6), np.int64), np.ascontiguousarray(arrows))


def exit_state(reserve):
    """Round 2 of 3 (B) heading out; round 1 (A) in at arrow 0, out at 1; round 2 in at 3."""
    from foury_sim.games.foury import kernel as K

    r = rules("arrows3", {"game.rounds": 3, "rulings.reserve_entries": reserve})
    R, _ = r.for_hero("free")
    st = np.zeros(L.STATE_SIZE, np.int64)
    st[L.S_ROUND], st[L.S_DONE_MASK], st[L.S_SECTOR], st[L.S_PHASE] = 1, 0b1, 1, 2
    for a in (0, 1, 3):
        st[L.S_ARROW0 + a] = 1
    return K, R, r.arrows, st, r.rm0.copy()


def test_exit_keeps_every_remaining_round_playable():
    """Leaving round 2 by the A arrow in cell 0 would leave round 3 (C) an entry but no exit elsewhere."""
    K, R, arrows, st, rm = exit_state("rounds")
    assert K.legal_exit(board(R, arrows), st, rm, 0) == -1
    assert K.legal_exit(board(R, arrows), st, rm, 3) == 4  # C arrow 4: arrow 5 enters round 3, arrow 2 exits it
    assert K.arrows_feasible(board(R, arrows), st, rm, 1, 1)


def test_exit_check_sector_only_option():
    """rulings.reserve_entries = "sector_only" (the old check): the A exit is allowed (sector A is done)."""
    K, R, arrows, st, rm = exit_state("sector_only")
    assert K.legal_exit(board(R, arrows), st, rm, 0) == 2
    st[L.S_ARROW0 + 2] = 1
    assert not K.arrows_feasible(board(R, arrows), st, rm, 1, 2)  # and round 3 could no longer be won
    _, R0, _, st0, _ = exit_state("none")
    st0[L.S_ARROW0 + 4] = 1  # "none" reserves nothing: even the last C arrow may be used as an exit
    assert K.legal_exit(board(R0, arrows), st0, rm, 3) == 5


def test_exit_check_when_already_lost_allows_any_exit():
    """A collapsed arrow room made the game unwinnable: the check no longer holds the hero in the dungeon."""
    K, R, arrows, st, rm = exit_state("rounds")
    rm[3, L.RM_STATE] |= L.COLLAPSED  # both C arrows gone
    assert not K.arrows_feasible(board(R, arrows), st, rm, 1, 1)
    assert K.legal_exit(board(R, arrows), st, rm, 0) == 2


def _feasible_brute(counts, done, rounds_done, cur, mode, rounds):
    """Try every choice of sectors still to play and every assignment of distinct arrows."""
    arrows = [s for s in range(4) for _ in range(counts[s])]
    if mode == 2:
        done |= 1 << cur
    later = rounds - rounds_done - (1 if mode else 0)
    cand = [s for s in range(4) if not (done >> s) & 1 and not (mode == 1 and s == cur)]
    for chosen in itertools.combinations(cand, max(later, 0)):
        slots = [("in", s) for s in chosen] + [("out", s) for s in chosen]
        if mode == 1:
            slots.append(("out", cur))
        if len(slots) > len(arrows):
            continue
        for pick in itertools.permutations(range(len(arrows)), len(slots)):
            if all((arrows[i] == s) == (kind == "in") for (kind, s), i in zip(slots, pick, strict=True)):
                return True
    return False


def test_arrows_feasible_is_exact():
    """The counting check equals a brute-force search over rounds and arrow assignments."""
    from foury_sim.games.foury import kernel as K

    rng = np.random.default_rng(9)
    for _ in range(400):
        counts = rng.integers(0, 3, 4)
        arrows = np.array([[0, 0, s] for s in range(4) for _ in range(counts[s])] or np.zeros((0, 3)), np.int64)
        arrows = np.ascontiguousarray(arrows.reshape(-1, 3))
        rounds = int(rng.integers(1, 5))
        rounds_done = int(rng.integers(0, rounds))
        done = int(rng.choice(np.flatnonzero([bin(m).count("1") == rounds_done for m in range(16)])))
        open_ = [s for s in range(4) if not (done >> s) & 1]
        cur = int(rng.choice(open_))
        mode = int(rng.integers(0, 3))
        R = np.zeros(L.R_SIZE, np.int64)
        R[L.R_ROUNDS] = rounds
        st = np.zeros(L.STATE_SIZE, np.int64)
        st[L.S_ROUND], st[L.S_DONE_MASK] = rounds_done, done
        rm = np.zeros((1, L.RM_COLS), np.int64)
        got = K.arrows_feasible(board(R, arrows), st, rm, cur, mode)
        assert got == _feasible_brute(list(counts), done, rounds_done, cur, mode, rounds), (counts, done, cur, mode)


def _legal_exit_restated(K, b, st, rm, cell):
    """``legal_exit`` as it read before the usable arrows were counted once (``usable_arrows``): each candidate arrow
    marked used in the state, ``arrows_feasible`` asked, the mark taken back."""
    R, arrows = b.R, b.arrows
    before = -1
    for a in range(arrows.shape[0]):
        if arrows[a, 0] != cell or st[L.S_ARROW0 + a] != 0 or arrows[a, 2] == st[L.S_SECTOR]:
            continue
        s = arrows[a, 2]
        if R[L.R_RESERVE_ROUNDS] == 1 and st[L.S_ROUND] + 1 < R[L.R_ROUNDS]:
            st[L.S_ARROW0 + a] = 1
            ok = K.arrows_feasible(b, st, rm, st[L.S_SECTOR], 2)
            st[L.S_ARROW0 + a] = 0
            if not ok:
                if before < 0:
                    before = 1 if K.arrows_feasible(b, st, rm, st[L.S_SECTOR], 1) else 0
                if before == 1:
                    continue
        elif R[L.R_RESERVE_ENTRIES] == 1 and (st[L.S_DONE_MASK] >> s) & 1 == 0 and st[L.S_ROUND] + 1 < R[L.R_ROUNDS]:
            left = sum(1 for c in range(arrows.shape[0]) if arrows[c, 2] == s and st[L.S_ARROW0 + c] == 0
                       and not rm[arrows[c, 0], L.RM_STATE] & L.COLLAPSED)
            if left <= 1:
                continue
        return a
    return -1


@pytest.mark.parametrize("reserve", ["rounds", "sector_only"])
def test_legal_exit_counts_the_usable_arrows_once(reserve):
    """``legal_exit`` counts the usable arrows once (``usable_arrows``) and takes a candidate's own one off, and
    ``mark_goals`` counts them once for every room it asks: the same exits as marking each candidate used and
    counting again, over random used arrows, collapsed arrow rooms, rounds and sectors of the shipped map."""
    from foury_sim.games.foury import kernel as K

    r = load_foury_ruleset(overrides=[f"rulings.reserve_entries={reserve}"])
    R, _ = r.for_hero("free")
    b = K.Board(R, r.T, r.geo, r.arrows)
    cells = sorted(set(r.arrows[:, 0].tolist()))
    rng = np.random.default_rng(31)
    exits = 0
    for _ in range(300):
        st = np.zeros(L.STATE_SIZE, np.int64)
        rm = r.rm0.copy()
        st[L.S_ROUND] = rng.integers(0, R[L.R_ROUNDS])
        st[L.S_DONE_MASK] = int(rng.choice(np.flatnonzero([bin(m).count("1") == st[L.S_ROUND] for m in range(16)])))
        st[L.S_SECTOR] = rng.choice([q for q in range(4) if not (st[L.S_DONE_MASK] >> q) & 1])
        st[L.S_PHASE] = 2
        st[L.S_ARROW0:L.S_ARROW0 + len(r.arrows)] = rng.random(len(r.arrows)) < 0.3
        for x in cells:
            if rng.random() < 0.1:
                rm[x, L.RM_STATE] |= L.COLLAPSED
        packed = K.usable_arrows(st, rm, b.arrows)
        for a in range(len(r.arrows)):
            used = st.copy()
            used[L.S_ARROW0 + a] = 1
            for mode in (1, 2):
                assert K.feasible_counts(R, st, packed - (K.arrow_usable(st, rm, b.arrows, a)
                                                          << K.arrow_shift(b.arrows, a)), st[L.S_SECTOR], mode) == \
                    K.arrows_feasible(b, used, rm, st[L.S_SECTOR], mode)
        for x in cells:
            want = _legal_exit_restated(K, b, st, rm, x)
            assert K.legal_exit(b, st, rm, x) == want
            assert K.legal_exit_p(b, st, rm, x, packed) == want
            exits += want >= 0
    assert exits > 100


def test_unwinnable_after_exit_recorded(ring):
    """The whole ring game stays winnable (column 0); see test_round_choice_closes_entry_arrow."""
    assert int(ring.out[L.OUT_UNWIN_TURN]) == 0 and int(ring.out[L.OUT_UNWIN_CAUSE]) == 0


# ============================================================ four-leaf clover on any die (clover_dice)
def _ev(sector: str, face: int) -> int:
    from foury_sim.games.foury.ruleset import parse_event
    return parse_event(DATA["events"][sector][face - 1], "")


def test_clover_rerolls_the_room_roll():
    """"Consume 1 Four-leaf clover to reroll a die of your choice": the room roll too (clover_dice = any).
    In at the west arm (roll 2, kept), east into the centre: roll 1 (a monster) is rerolled to 2."""
    g = play("cross_A", script=[2, 1, 2], queues={"round": [2], "reroll": [reroll(0, 2), reroll(1)]},
             defaults={"move": 4}, sheet={"hearts": 5, "clover": 1}, overrides={"max_turns": 2})
    assert DATA["rulings"]["clover_dice"] == "any"
    assert g.rows(L.TR_ROLL) == [(0, 2, _ev("A", 2), 3, 0), (0, 1, L.EV_MONSTER, 4, 0)]
    assert g.rows(L.TR_REROLL) == [(L.RR_ROOM, 1, 2, 1, _ev("A", 2))]
    codes = g.codes()
    assert codes[codes.index(L.TR_REROLL) - 1] == L.TR_ROLL  # the roll is logged first, then the clover
    first, second = g.decisions("reroll")
    assert first.keys == [reroll(0, 2), reroll(1)] and second.keys == [reroll(0, 1), reroll(1)]
    assert second.snap["clover"] == 1 and g[CL] == 0
    assert g.rows(L.TR_SPAWN) == [] and g.rows(L.TR_FIGHT) == []  # the monster never came
    assert g.walls(4)[N] == L.W_COLLAPSED and g.walls(4)[S] == L.W_COLLAPSED  # heading east: left N, right S
    assert g[L.S_RR_KIND] == L.RR_ROOM and g[L.S_RR_FACE] == 1 and g[L.S_RR_EFFECT] == L.EV_MONSTER
    assert g[L.S_RR_OPEN] == 4  # the context of the monster face: the centre keeps its four open sides
    assert "clover on the room roll: 1 rerolled to 2 -> " in g.report()


def test_clover_reroll_is_repeatable_while_clovers_last():
    g = play("cross_A", script=[2, 1, 1, 2], queues={"round": [2], "reroll": [reroll(0, 2), reroll(1), reroll(1)]},
             defaults={"move": 4}, sheet={"hearts": 5, "clover": 2}, overrides={"max_turns": 2})
    assert g.rows(L.TR_REROLL) == [(L.RR_ROOM, 1, 1, 1, L.EV_MONSTER), (L.RR_ROOM, 1, 2, 1, _ev("A", 2))]
    assert g[CL] == 0 and len(g.decisions("reroll")) == 3  # no clover left: not asked a fourth time


def test_melyra_sets_the_room_roll():
    """Melyra's clover sets the face instead of rerolling: no die is rolled."""
    g = play("cross_A", script=[2, 1], queues={"round": [2], "reroll": [reroll(0, 2), reroll(2, 3)]},
             defaults={"move": 4}, hero="melyra", overrides={"max_turns": 2})
    d = g.decisions("reroll")[1]
    assert d.keys == [reroll(0, 1)] + [reroll(2, v) for v in range(2, 7)]
    assert g.rows(L.TR_REROLL) == [(L.RR_ROOM, 1, 3, 2, _ev("A", 3))]
    assert g.dice() == 2
    assert g[CL] == DATA["heroes"]["melyra"]["start"]["clover"] - 1
    assert g.walls(4)[N] == L.W_COLLAPSED and g.walls(4)[E] == L.W_COLLAPSED  # collapse_left_front, heading east
    assert g.rows(L.TR_SPAWN) == []


def test_clover_rerolls_the_die_table_roll():
    """The DIE table roll: "lose a heart" rerolled to a chest."""
    g = play("die", script=[2, 2, 3], sheet={"hearts": 5, "clover": 1},
             queues={"reroll": [reroll(0, 2), reroll(1)]}, overrides={"max_turns": 1})
    assert DATA["die_table"]["faces"][1:3] == ["lose_heart", "chest"]
    assert g.rows(L.TR_DIE_TABLE) == [(2, L.DIE_LOSE_HEART, 0, 0, 0)]
    assert g.rows(L.TR_REROLL) == [(L.RR_DIE, 2, 3, 1, L.DIE_CHEST)]
    assert g[H] == 5 and g[CH] == 1 and g[CL] == 0 and g.rows(L.TR_HIT) == []
    assert g.decisions("reroll")[1].keys == [reroll(0, 2), reroll(1)]


def test_clover_rerolls_the_spawn_roll():
    """The spawn roll: an imp rerolled to a goblin, which is then fought."""
    g = play("cross_A", script=[2, 1, 5, 2, 6, 1], sheet={"hearts": 5, "clover": 1},
             queues={"round": [2], "reroll": [reroll(0, 2), reroll(0, 1), reroll(1)]}, defaults={"move": 4},
             overrides={"max_turns": 2})
    assert DATA["enemies"]["spawn_table"][4] == "imp" and DATA["enemies"]["spawn_table"][1] == "goblin"
    assert g.rows(L.TR_SPAWN) == [(4, IMP, 5, 0, 0)]
    assert g.rows(L.TR_REROLL) == [(L.RR_SPAWN, 5, 2, 1, GOBLIN)]
    assert g.rows(L.TR_FIGHT)[0][:3] == (GOBLIN, 0, 4) and g[L.S_KILLS_ROUND] == 1 and g[CL] == 0
    assert g.icons(4, IMP) == 0 and g.icons(4, GOBLIN) == 0


def test_clover_dice_combat_asks_no_reroll():
    """RULING clover_dice = "combat" (the old reading): a clover only rerolls a losing combat roll-off."""
    g = play("cross_A", script=[2, 2], queues={"round": [2]}, defaults={"move": 4},
             sheet={"hearts": 5, "clover": 1}, overrides={"max_turns": 2, "rulings.clover_dice": "combat"})
    assert g.decisions("reroll") == [] and g.rows(L.TR_REROLL) == [] and g[CL] == 1
    g = play("die", script=[2, 2], sheet={"hearts": 5, "clover": 1},
             overrides={"max_turns": 1, "rulings.clover_dice": "combat"})
    assert g.decisions("reroll") == [] and g[H] == 4 and g[CL] == 1


def test_no_reroll_decision_without_a_clover():
    g = play("cross_A", script=[2, 1, 2, 6, 1], queues={"round": [2]}, defaults={"move": 4},
             sheet={"hearts": 5}, overrides={"max_turns": 2})
    assert g.decisions("reroll") == [] and g.rows(L.TR_SPAWN)


def _rr_options(rows):
    opts = np.zeros((8, L.N_OCOL), np.int64)
    for i, r in enumerate(rows):
        opts[i, :4] = r
    return opts


@pytest.mark.parametrize("policy", ["greedy", "cautious"])
def test_builtin_policies_reroll_sensibly(policy):
    """Greedy and cautious spend a clover on a room roll that walls them in, on a lost heart at their last
    heart and on a monster when hearts are low; they keep a harmless face; Melyra picks the best face."""
    from foury_sim.games.foury.policies import POLICIES
    params = np.array(list(POLICIES[policy].params.values()), np.float64)
    st = np.zeros(L.STATE_SIZE, np.int64)
    st[H], st[CL], st[L.S_SECTOR] = 5, 2, 0

    def choose(kind, rows):
        st[L.S_RR_KIND] = kind
        return heuristic_decide(L.D_REROLL, st, _rr_options(rows), len(rows), params)

    walled = L.EV_LEFT | L.EV_RIGHT | L.EV_FRONT
    assert choose(L.RR_ROOM, [(0, 4, walled, 0), (1, 0, -1, -1)]) == 1  # sealed in, no shovel: reroll
    assert choose(L.RR_EXIT, [(0, 4, walled, 0), (1, 0, -1, -1)]) == 0  # leaving anyway: keep
    assert choose(L.RR_ROOM, [(0, 6, L.EV_CHEST, 2), (1, 0, -1, -1)]) == 0
    st[SV] = 1
    assert choose(L.RR_ROOM, [(0, 4, walled, 0), (1, 0, -1, -1)]) == 0  # a shovel digs out: keep
    st[SV] = 0
    st[H] = 1
    assert choose(L.RR_DIE, [(0, 2, L.DIE_LOSE_HEART, 0), (1, 0, -1, -1)]) == 1  # it would kill
    assert choose(L.RR_ROOM, [(0, 1, L.EV_MONSTER, 3), (1, 0, -1, -1)]) == 1  # a monster at 1 heart
    assert choose(L.RR_SPAWN, [(0, 6, BANDIT, 3), (1, 0, -1, -1)]) == 1
    st[H] = 5
    # Melyra: the best face (a chest) over a walled-in monster
    rows = [(0, 1, L.EV_MONSTER | walled, 0)] + [(2, v, L.EV_CHEST if v == 5 else walled, 0 if v != 5 else 3)
                                                  for v in range(2, 7)]
    assert rows[choose(L.RR_ROOM, rows)][1] == 5


# ============================================================= rules pinned for the mutation check
# (tools/mutation_check.py: each test here kills a one-line mutant that no other rule test caught)
def test_combat_death_at_exactly_zero_hearts():
    """A hit that takes the last heart kills: 1 vs 5+2 costs 6 hearts of 6."""
    g = fight("orc", [1, 5], sheet={"hearts": 6}, overrides={"game.insert_coins": 0})
    assert g.rows(L.TR_HIT) == [(6, 0, 0, 0, 0)]
    assert g[L.S_DEAD] == 1 and g[H] == 0 and g[L.S_DEATH_CAUSE] == L.CAUSE_FOE + ORC
    assert g.decisions("fight_on") == []


def test_kael_skips_roll_for_any_enemy():
    """RULING kael_skips_roll = foe_icon: a statue is an enemy too. Kael enters the statue's room (cell 1)
    without the room roll, then faces the statue (6 against 1)."""
    g = play("line5", hero="kael", script=[3, 6, 1], queues={"move": [1]},
             overrides={**QUIET_EVENTS, "max_turns": 2})
    assert [r[3] for r in g.rows(L.TR_ROLL)] == [2]  # the entry room only
    assert g.rows(L.TR_KAEL) == [(1, 0, 0, 0, 0)]
    assert g.rows(L.TR_FIGHT) == [(STATUE, 0, 1, 0, 0)] and g.rows(L.TR_WIN) == [(STATUE, 1, 0, 0, 0)]


@pytest.mark.parametrize("hero", ["free", "melyra", "thalindra", "elydion"])
def test_only_kael_skips_the_roll(hero):
    """Every other hero rolls the room die in the goblin's room (cell 1) before the fight."""
    g = play("line_g", hero=hero, script=[2, 2, 6, 1], sheet={"hearts": 5} if hero == "free" else None,
             overrides={"max_turns": 2})
    assert [(r[0], r[1], r[3]) for r in g.rows(L.TR_ROLL)] == [(0, 2, 0), (0, 2, 1)]
    assert g.rows(L.TR_KAEL) == []
    assert g.rows(L.TR_ROLLOFF) == [(6, 0, 1, 0, 0)] and g.rows(L.TR_WIN) == [(GOBLIN, 1, 0, 0, 0)]


def test_no_exit_by_an_arrow_of_the_rounds_own_sector():
    """Leave "through an unused exit of a different sector": in round B (the last round, so no arrow is
    reserved for a round to come) the hero is placed next to the Oracle on the unused B arrow of cell 7,
    which does not end the round; the game then stops at the turn cap."""
    ov = {**QUIET_EVENTS, "requirements.kills": 0, "max_turns": 4, "game.insert_coins": 0}
    g = play("cross_B", script=[1, 1, 1], queues={"round": [1], "move": [7, 6]}, sheet={"hearts": 5}, overrides=ov)
    assert [m[1] for m in g.rows(L.TR_MOVE)] == [1, 4, 7, 6, 7]  # in at the north arm ... placed in cell 7
    assert len(g.rows(L.TR_ORACLE)) == 1 and g[L.S_PHASE] == 2 and g[L.S_POS] == 7
    assert g.rows(L.TR_EXIT) == [] and g[L.S_WIN] == 0 and g[L.S_CAUSE] == L.CAUSE_TIMEOUT


# --- issue 11: unknown keys under [heroes.*], huge numbers -------------------------------------------------------
@pytest.mark.parametrize("toml, message, where", [
    ("[heroes.kael]\nspeed = 3\n", "heroes.kael has unknown key 'speed'", "2:1"),
    ("[heroes.free]\nstart = { hearts = 9, shield = 1, clover = 1, weapon = 1, shovel = 1 }\n",
     "heroes.free has unknown key 'start' (known: label, name)", "2:1"),
    ("[heroes.kael]\nstart = { hearts = 6, shield = 2, clover = 1, weapon = 2, shovle = 1 }\n",
     "heroes.kael.start has unknown track 'shovle' (did you mean 'shovel'?)", "2:59"),
    ("[heroes.kael]\nname = 3\n", "heroes.kael.name must be a text", "2:1"),
    ("[heroes.kael]\ncap = { hearts = 99999999999999999999, shield = 4, clover = 3, weapon = 4, shovel = 3 }\n",
     "heroes.kael.cap.hearts = a 20-digit number is above 99", "2:9"),
    ("[round]\nchest_value = [1, 2, 3, 4000000000000000000]\n", "round.chest_value[3] = a 19-digit number is above 20",
     "2:1"),
    ("[round]\nmonster_bonus = [0, 1, 2, 3, 4]\n", "must be a list of 4 whole numbers", "2:1"),
    ("[game]\nmap = 5\n", "game.map must be a shipped map name or a map file path, not 5", "2:1"),
    ("[character]\nmin_hearts = 9\n", "character.min_hearts = 9 is above character.cap.hearts = 8", "2:1"),
])
def test_foury_refuses_unknown_hero_keys_and_out_of_range_numbers(tmp_path, toml, message, where):
    f = _write(tmp_path, "mine.toml", toml)
    with pytest.raises(InputError, match=re.escape(message)) as e:
        load_foury_ruleset(f)
    assert e.value.where == f"{f}:{where}"


# ================================================= printed numbers as ruleset keys (combat, items, oracle, market)
@pytest.mark.parametrize("wear, ruling, rolloffs, weapon", [
    (1, "per_combat", [(2, 3, 3, 2, 0), (4, 3, 1, 2, 0)], 2),
    (2, "per_combat", [(2, 3, 3, 2, 0), (4, 3, 1, 2, 0)], 1),
    (0, "per_combat", [(2, 3, 3, 2, 0), (4, 3, 1, 2, 0)], 3),
    (2, "per_rolloff", [(2, 3, 3, 2, 0), (4, 1, 1, 2, 0)], 0),  # 3 -> 1, then 1 -> 0 (never below 0)
])
def test_combat_wear_is_what_the_weapon_loses(wear, ruling, rolloffs, weapon):
    """combat.wear: "After the combat, reduce the Weapon Value by 1": a weapon used loses combat.wear (after
    every roll-off it was used in under rulings.weapon_wear = "per_rolloff"), never below 0."""
    assert DATA["combat"]["wear"] == 1
    g = fight("orc", [2, 3, 4, 1], sheet={"hearts": 5, "weapon": 3}, queues={"weapon": [1, 1], "fight_on": [1]},
              overrides={"combat.wear": wear, "rulings.weapon_wear": ruling})  # 2+3 vs 3+2 tie, then a win
    assert g.rows(L.TR_ROLLOFF) == rolloffs and g.rows(L.TR_WIN)
    assert g[WP] == weapon
    assert len(g.rows(L.TR_WEAPON_WEAR)) == (0 if wear == 0 else 1 if ruling == "per_combat" else 2)


@pytest.mark.parametrize("theft, stolen", [(0, []), (1, [CL]), (2, [CL, SV])])
def test_combat_theft_is_what_the_bandit_takes(theft, stolen):
    """combat.theft: a bandit that hurts you takes combat.theft resources ("they also lose 1 of any other
    resource"), each chosen as rulings.bandit_steals says (here the player's choice)."""
    assert DATA["combat"]["theft"] == 1
    g = fight("bandit", [1, 4], sheet={"hearts": 6, "shield": 1, "clover": 1, "shovel": 1},
              queues={"clover": [clover(0)], "shield": [0], "steal": stolen, "fight_on": [0]}, bonus_all=0,
              overrides={"combat.theft": theft})
    assert g.rows(L.TR_HIT) == [(3, 3, 0, 0, 0)]
    assert [r[0] for r in g.rows(L.TR_STEAL)] == stolen
    assert [g[t] for t in (SH, CL, SV)] == [1, 0 if CL in stolen else 1, 0 if SV in stolen else 1]
    assert [d.keys for d in g.decisions("steal")] == [[SH, CL, SV], [SH, SV]][:theft]


def test_items_give_what_their_keys_say():
    """items.*: what one item icon gives ("CHEST: acquire 1 chest", "WEAPON: Increase your Weapon's strength by 1",
    "Gain 1"); the DIE table's chest (face 3) gives items.chest too. Two cornucopias: a weapon and a shield."""
    assert all(DATA["items"][k] == 1 for k in ("chest", "shovel", "weapon", "shield", "clover", "cornucopia"))
    ov = {"max_turns": 8, "items.chest": 2, "items.shovel": 3, "items.weapon": 2, "items.shield": 2, "items.clover": 3,
          "items.cornucopia": 2}
    g = play("items", script=[2] * 8 + [3], sheet={"hearts": 5}, queues={"cornucopia": [WP, SH]}, overrides=ov)
    assert [g[t] for t in range(7)] == [5 + DATA["potions"]["red"], 2 + 1, 3, 2 + 1, 3, 2 + 2, 0]
    assert [r[:2] for r in g.rows(L.TR_MARKET)] == [(L.M_REDEEM, WP), (L.M_REDEEM, SH)]
    assert g.rows(L.TR_DIE_TABLE) == [(3, L.DIE_CHEST, 0, 0, 0)]


def test_event_chest_gives_items_chest():
    """"You find a chest" (the Palace's face 6) gives items.chest chests."""
    g = play("cross_B", script=[3, 6], queues={"round": [2]}, defaults={"move": 4}, sheet={"hearts": 5},
             overrides={"max_turns": 2, "items.chest": 3})
    assert g[CH] == 3 and (CH, 3, 3, 0, 0) in g.rows(L.TR_GAIN)


@pytest.mark.parametrize("chests, need", [(1, 1), (3, 2), (0, 1)])
def test_oracle_chests_and_the_cornucopias_handed_over(chests, need):
    """oracle.chests: "If you have awakened the Oracle, first gain 1 CHEST"; the Waterways' cornucopias set aside
    (requirements.cornucopias of them; here one cornucopia icon gives items.cornucopia = need) are handed over."""
    assert DATA["oracle"]["chests"] == 1
    g = play("water_oracle", script=[5], queues={"round": [1]}, sheet={"hearts": 5},
             overrides={"requirements.cornucopias": need, "items.cornucopia": need, "oracle.chests": chests,
                        "max_turns": 2})
    assert g.rows(L.TR_REQ) == [(k, need, 3, 0, 0) for k in range(1, need + 1)]
    assert g.rows(L.TR_ORACLE) == [(3, chests, 0, 0, 0)] and g[L.S_PHASE] == 2
    assert g[L.S_RESERVED] == 0 and g[CU] == 0 and g[CH] == chests == g[L.S_CHESTS_GAINED]
    word = {0: "+0 chests", 1: "+1 chest", 3: "+3 chests"}[chests]  # (the trace said "+1 chest" whatever the key)
    assert f"the Oracle speaks ({word}); now leave through another sector" in g.report()


def test_kept_cornucopias_set_aside_are_as_many_as_the_waterways_need():
    """rulings.d_new_cornucopia = false with requirements.cornucopias = 2: two kept cornucopias (one icon giving
    items.cornucopia = 2 in round 1) are both set aside as the Waterways' round starts, and awaken the Oracle."""
    ov = {**QUIET_EVENTS, "game.rounds": 2, "requirements.kills": 0, "requirements.cornucopias": 2,
          "items.cornucopia": 2, "max_turns": 5, "rulings.d_new_cornucopia": False}
    g = play("ring4", script=[4, 4, 6, 1, 4, 4], sheet={"hearts": 5},
             queues={"round": [0, 4], "move": [1, 4, 2], "place": [5], "cornucopia": [-1, -1]}, overrides=ov)
    assert g.rows(L.TR_ROUND)[1][:2] == (2, 3)  # round 2: the Waterways
    assert g[CU] == 0 and g[L.S_RESERVED] == 2 and g[L.S_PHASE] == 1
    assert g.rows(L.TR_REQ)[-1] == (2, 2, 3, 0, 0)


@pytest.mark.parametrize("keep", [1, 5, 6])
def test_market_keep_hearts(keep):
    """market.keep_hearts (RULING, 1: the last heart cannot be exchanged away): a heart is offered for a swap only
    while the hero has more than market.keep_hearts (Elydion's mid-round market, 6 hearts)."""
    assert DATA["market"]["keep_hearts"] == 1
    g = play("elydion", hero="elydion", script=[2, 2], queues={"elydion_market": [1], "market": [DONE]},
             overrides={"max_turns": 2, "market.keep_hearts": keep})
    d = g.decisions("market")[0]
    assert d.snap["hearts"] == DATA["heroes"]["elydion"]["start"]["hearts"] == 6
    from_hearts = [k for k in d.keys if k // 100 == L.M_SWAP and (k // 10) % 10 == H + 1]
    assert len(from_hearts) == (0 if keep >= 6 else 4)  # hearts -> shield, clover, weapon, shovel


@pytest.mark.parametrize("key, bad, message", [
    ("combat.wear", "-1", "combat.wear = -1 is below 0 (valid range 0..20)"),
    ("combat.theft", "-1", "combat.theft = -1 is below 0"),
    ("combat.theft", "1.5", "combat.theft must be a whole number in 0..20, not 1.5"),
    ("oracle.chests", "-1", "oracle.chests = -1 is below 0"),
    ("items.chest", "-1", "items.chest = -1 is below 0"),
    ("items.shovel", "21", "items.shovel = 21 is above 20"),
    ("items.weapon", "-2", "items.weapon = -2 is below 0"),
    ("items.shield", "-1", "items.shield = -1 is below 0"),
    ("items.clover", "-1", "items.clover = -1 is below 0"),
    ("items.cornucopia", "-1", "items.cornucopia = -1 is below 0"),
    ("market.keep_hearts", "0", "market.keep_hearts = 0 is below 1 (valid range 1..99)"),
    ("market.redeem", "-1", "market.redeem = -1 is below 0 (valid range 0..20)"),
])
def test_printed_number_keys_refuse_bad_values(tmp_path, key, bad, message):
    """A bad value of a printed number's key is one line naming the key, at its file:line or its --set."""
    table, name = key.split(".")
    f = _write(tmp_path, "bad.toml", f"[{table}]\n{name} = {bad}\n")
    with pytest.raises(InputError, match=re.escape(message)) as e:
        load_foury_ruleset(f)
    assert e.value.where == f"{f}:2:1" and "\n" not in str(e.value)
    with pytest.raises(InputError, match=re.escape(message)) as e:
        load_foury_ruleset(overrides=[f"{key}={bad}"])
    assert e.value.where == f"--set {key}={bad}" and "\n" not in str(e.value)
