"""The move menu's goal search (``kernel.goal_distances``: a bit-parallel breadth-first search, a grid row a word, or
the whole map in two words when it has at most 128 cells) against a naive one (a queue, ``passable`` side by side, as
the rules say it) through many random states of the shipped maps and of random grids up to 64 rooms wide: the same
O_GOAL for every option, its map-wide words made afresh or kept from the last search of the same rooms. And the masks
it reads (``RM_BITS``), kept by the kernel as walls collapse and rooms collapse or flood, match the rooms after whole
games; the rooms ``mark_goals`` looks at hold every foe, cornucopia and die."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from foury_sim.games.foury import GAME, play_one
from foury_sim.games.foury import icons as I
from foury_sim.games.foury import kernel as K
from foury_sim.games.foury import layout as L
from foury_sim.games.foury.maps import builtin_maps
from foury_sim.games.foury.ruleset import icon_sums, load_ruleset, row_bits
from foury_sim.policy import make_policy

BIG = K.BIG


def naive_passable(R, st, rm, x, d, y):
    """``kernel.passable`` restated: walk (or swim) from x through side d into y."""
    if rm[y, L.RM_STATE] & L.COLLAPSED:
        return False
    w = rm[x, L.RM_WALL + d]
    if w == L.W_OPEN:
        return True
    flooded = (rm[x, L.RM_STATE] & L.FLOODED) and (rm[y, L.RM_STATE] & L.FLOODED)
    return bool(w == L.W_COLLAPSED and flooded and (R[L.R_SWIM_ALL] == 1 or st[L.S_SECTOR] == 3))


def naive_goal(R, st, rm, geo, goal, wanted):
    """Every wanted room's steps to the nearest goal (BIG: none); the unexplored rooms are goals too when no wanted
    room reaches one. The Kraken's search avoids water."""
    n = geo.shape[0]
    for attempt in range(2):
        dist = np.full(n, BIG)
        q = deque()
        for x in range(n):
            if goal[x] or (attempt == 1 and geo[x, 4] >= 0 and not rm[x, L.RM_STATE] & (L.COLLAPSED | L.EXPLORED)):
                dist[x] = 0
                q.append(x)
        while q:
            x = q.popleft()
            for d in range(4):
                y = geo[x, d]
                if y >= 0 and dist[y] == BIG and naive_passable(R, st, rm, y, (d + 2) % 4, x) and (
                        R[L.R_KR_ON] == 0 or not rm[y, L.RM_STATE] & L.FLOODED):
                    dist[y] = dist[x] + 1
                    q.append(y)
        if any(dist[x] < BIG for x in wanted):
            break
    return {x: int(dist[x]) for x in wanted}


def grid_geo(rows, cols, sector):
    geo = np.full((rows * cols, 6), -1, np.int64)
    for x in range(rows * cols):
        r, c = divmod(x, cols)
        for d, (dr, dc) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
            if 0 <= r + dr < rows and 0 <= c + dc < cols:
                geo[x, d] = (r + dr) * cols + c + dc
        geo[x, 4] = sector[x]
    return geo


def random_state(rng, R, geo, rm0):
    """Collapsed (and a few printed) walls on both sides, explored, collapsed and flooded rooms."""
    rm = rm0.copy()
    n = geo.shape[0]
    for x in range(n):
        for d in (1, 2):
            y = geo[x, d]
            if y >= 0 and rm[x, L.RM_WALL + d] == L.W_OPEN and rng.random() < 0.25:
                w = L.W_COLLAPSED if rng.random() < 0.8 else L.W_PRINTED
                rm[x, L.RM_WALL + d] = rm[y, L.RM_WALL + (d + 2) % 4] = w
        state = rm[x, L.RM_STATE]
        state |= L.EXPLORED if rng.random() < 0.6 else 0
        state |= L.COLLAPSED if rng.random() < 0.08 else 0
        state |= L.FLOODED if rng.random() < 0.3 else 0
        rm[x, L.RM_STATE] = state
    row_bits(rm, R[L.R_ROWS], R[L.R_COLS])
    return rm


def scratch(n):
    """The search scratch, the options and a state for a map of ``n`` rooms."""
    return (np.zeros((K.SC_ROWS, K.scratch_cols(n)), np.int64), np.zeros((K.option_rows(n), L.N_OCOL), np.int64),
            np.zeros(L.STATE_SIZE, np.int64))


def search_once(rng, R0, swim, geo, rm, rooms, sc, opts, st):
    """One search from random options to random goals (swimming ``swim``, now and then the Kraken's water, a random
    sector), against the naive search."""
    n = geo.shape[0]
    R = R0.copy()
    R[L.R_SWIM_ALL] = swim
    R[L.R_KR_ON] = rng.random() < 0.2
    st[L.S_SECTOR] = rng.integers(4)
    goal = np.zeros(n, bool)
    goal[rng.choice(rooms, rng.integers(0, 4))] = True
    sc[K.SC_MASK, :n] = goal
    k = int(rng.integers(1, 12))
    to = rng.choice(rooms, k)  # (a room may be the destination of several options)
    opts[:k, L.O_TO] = to
    K.goal_distances(K.Board(R, np.zeros((L.T_ROWS, L.T_COLS), np.int64), geo, np.zeros((0, 3), np.int64)),
                     st, rm, sc, opts, k)
    want = naive_goal(R, st, rm, geo, goal, set(to.tolist()))
    assert [int(v) for v in opts[:k, L.O_GOAL]] == [want[x] for x in to]
    assert not sc[K.SC_WANT].any()


def check(rng, R0, geo, rm0, rooms, trials):
    sc, opts, st = scratch(geo.shape[0])
    for _ in range(trials):
        rm = random_state(rng, R0, geo, rm0)
        for _again in range(2):  # the same rooms twice: the second search reuses the map's words (goal_masks2)
            search_once(rng, R0, rng.integers(2), geo, rm, rooms, sc, opts, st)


def change_map(rng, R, geo, rm, rooms):
    """A few changes as the kernel makes them (``set_wall`` on both sides of a wall, ``add_state``): walls collapsed
    and dug open, rooms flooded, now and then one collapsed; rooms explored."""
    for _ in range(int(rng.integers(0, 4))):
        x = int(rng.choice(rooms))
        kind = rng.choice(4, p=[0.4, 0.2, 0.3, 0.1])
        if kind <= 1:
            d = int(rng.integers(4))
            y = geo[x, d]
            if y >= 0 and rm[x, L.RM_WALL + d] != L.W_PRINTED:
                w = L.W_COLLAPSED if kind == 0 else L.W_OPEN
                K.set_wall(R, rm, x, d, w)
                K.set_wall(R, rm, y, (d + 2) % 4, w)
        elif kind == 2:
            K.add_state(R, rm, x, L.FLOODED, L.RB_FLOODED)
        else:
            K.add_state(R, rm, x, L.COLLAPSED, L.RB_COLLAPSED)
        rm[int(rng.choice(rooms)), L.RM_STATE] |= L.EXPLORED


def check_changing(rng, R0, geo, rm0, rooms, steps):
    """``check`` on one map changed a little between searches, as a game changes it: ``goal_masks2`` keeps its
    map-wide words until the changes mark the rows' words changed (``RB_DIRTY``), and every search must still be the
    naive one's."""
    sc, opts, st = scratch(geo.shape[0])
    rm = random_state(rng, R0, geo, rm0)
    two = R0[L.R_ROWS] * R0[L.R_COLS] <= 128 and R0[L.R_COLS] < 64  # (else goal_masks: every row at every search)
    changed = 0
    for _ in range(steps):
        change_map(rng, R0, geo, rm, rooms)
        changed += int(rm[0, L.RM_BITS + L.RB_DIRTY]) != 0
        search_once(rng, R0, rng.random() < 0.7, geo, rm, rooms, sc, opts, st)
        if two:
            assert rm[0, L.RM_BITS + L.RB_DIRTY] == 0
    assert not two or steps // 3 < changed < steps  # searches on changed rooms, and searches that keep the words


@pytest.mark.parametrize("campaign, name", [(None, "base"), ("kraken", None), ("inout", None)])
def test_goal_search_follows_the_map_changed_between_searches(campaign, name):
    r = load_ruleset(campaign=campaign, map_path=str(builtin_maps()[name]) if name else None)
    rooms = np.flatnonzero(r.geo[:, 4] >= 0)
    check_changing(np.random.default_rng(23), r.R, r.geo, r.rm0, rooms, 400)


@pytest.mark.parametrize("campaign, name", [(None, "base"), (None, "base_12arrows"), ("inout", None), ("kraken", None),
                                            ("santa", None), ("slaughter", None)])
def test_goal_search_matches_the_naive_search_on_the_shipped_maps(campaign, name):
    r = load_ruleset(campaign=campaign, map_path=str(builtin_maps()[name]) if name else None)
    rooms = np.flatnonzero(r.geo[:, 4] >= 0)
    check(np.random.default_rng(17), r.R, r.geo, r.rm0, rooms, 300)


@pytest.mark.parametrize("rows, cols", [(1, 5), (3, 64), (64, 2), (7, 63), (5, 11), (2, 63), (4, 32), (11, 11),
                                        (12, 11), (3, 43), (128, 1)])
def test_goal_search_matches_the_naive_search_on_random_grids(rows, cols):
    rng = np.random.default_rng(rows * 100 + cols)
    n = rows * cols
    sector = np.where(rng.random(n) < 0.1, -1, rng.integers(0, 4, n))
    geo = grid_geo(rows, cols, sector)
    rm0 = np.zeros((n, L.RM_COLS), np.int64)
    for x in range(n):
        for d in range(4):
            y = geo[x, d]
            rm0[x, L.RM_WALL + d] = L.W_OPEN if y >= 0 and sector[x] >= 0 and sector[y] >= 0 else L.W_PRINTED
    rm0[:, L.RM_WALL + 1] = np.where(rng.random(n) < 0.2, L.W_PRINTED, rm0[:, L.RM_WALL + 1])
    for x in range(n):  # printed walls on both sides
        if geo[x, 1] >= 0:
            rm0[geo[x, 1], L.RM_WALL + 3] = rm0[x, L.RM_WALL + 1]
    R = np.zeros(L.R_SIZE, np.int64)
    R[L.R_ROWS], R[L.R_COLS] = rows, cols
    row_bits(rm0, rows, cols)
    check(rng, R, geo, rm0, np.flatnonzero(sector >= 0), 200)
    check_changing(rng, R, geo, rm0, np.flatnonzero(sector >= 0), 200)


@pytest.mark.parametrize("campaign", [None, "kraken", "inout"])
def test_the_kept_masks_match_the_rooms_after_whole_games(campaign):
    """Collapsed walls, dug walls, collapsed and flooded rooms: the masks the kernel kept are those of the rooms."""
    r = load_ruleset(campaign=campaign)
    pol = make_policy("greedy", GAME.policies)
    for game in range(40):
        out, st, rm, tr = play_one(r, "free", pol, 5, game)
        words = slice(L.RM_BITS, L.RM_BITS + L.RB_ICONS)  # the row words (then the icons' rooms, the dirty flag)
        kept = rm[:, words].copy()
        row_bits(rm, r.map.rows, r.map.cols)
        assert (rm[:, words] == kept).all(), game


#: The icons ``mark_goals`` looks for in rooms: every foe slot, the cornucopia and the die.
GOAL_ICONS = [L.RM_ICON + k for k in (*range(I.FOE_FIRST, I.CAMPAIGN_FIRST), I.CORNUCOPIA, I.DIE)]


def kept_icon_rooms(rm):
    """The rooms in row 0's ``RM_BITS + RB_ICONS`` words."""
    words = [int(v) % 2**64 for v in rm[0, L.RM_BITS + L.RB_ICONS:L.RM_BITS + L.RB_ICONS + 2]]
    return {x for x in range(128) if words[x >> 6] >> (x & 63) & 1}


def holding(rm):
    return set(np.flatnonzero((rm[:, GOAL_ICONS] > 0).any(axis=1)).tolist())


@pytest.mark.parametrize("campaign", [None, "kraken", "inout", "santa", "slaughter"])
def test_mark_goals_looks_at_every_room_that_holds_a_foe_a_cornucopia_or_a_die(campaign):
    """The rooms kept in ``RM_BITS + RB_ICONS`` are the printed ones at the start, and after whole games they still
    hold every foe, cornucopia and die (a spawn, a returning troll, the Slaughter's finds add theirs); over them
    ``mark_goals`` marks what it marks looking at every room (a map of 64 columns or more), in every sector."""
    r = load_ruleset(campaign=campaign)
    assert kept_icon_rooms(r.rm0) == holding(r.rm0) != set()
    n = r.geo.shape[0]
    every = r.R.copy()
    every[L.R_COLS] = 64  # (mark_goals then looks at every room)
    boards = [K.Board(R, r.T, r.geo, r.arrows) for R in (r.R, every)]
    sc = np.zeros((K.SC_ROWS, K.scratch_cols(n)), np.int64)
    pol = make_policy("greedy", GAME.policies)
    added = 0
    for game in range(40):
        out, st, rm, tr = play_one(r, "free", pol, 5, game)
        assert holding(rm) <= kept_icon_rooms(rm), game
        added += len(kept_icon_rooms(rm) - kept_icon_rooms(r.rm0))
        for sector in range(4):
            st[L.S_PHASE], st[L.S_SECTOR] = 0, sector
            marks = []
            for board in boards:
                K.mark_goals(board, st, rm, sc)
                marks.append(sc[K.SC_MASK, :n].copy())
            assert (marks[0] == marks[1]).all(), (game, sector)
    assert added > 0  # games did add rooms (spawned foes)


@pytest.mark.parametrize("campaign", [None, "kraken", "inout", "santa", "slaughter"])
def test_every_room_keeps_its_sums_of_foes_and_items(campaign):
    """``RM_FOES`` and ``RM_ITEMS`` (the walk's one look at a room's foes and items) are the sums of the room's foe
    slots and item icons, and ``RM_KINDS`` (``mark_goals``' one look) the bits of its foe slots, cornucopias and dice
    held, at the start and after whole games, every change of an icon having gone through ``add_icon`` (spawns, kills,
    collected and erased items, the Kraken's fights, returning trolls, finds)."""
    r = load_ruleset(campaign=campaign)
    want = r.rm0.copy()
    icon_sums(want)
    assert (r.rm0 == want).all()
    assert r.rm0[:, L.RM_FOES].sum() > 0 and r.rm0[:, L.RM_ITEMS].sum() > 0 and (r.rm0[:, L.RM_KINDS] != 0).any()
    x = int(np.flatnonzero(r.rm0[:, L.RM_KINDS])[0])
    kinds = [k for k in range(I.MAX_FOES) if r.rm0[x, L.RM_ICON + I.FOE_FIRST + k] > 0]
    kinds += [b for b, ic in ((L.KIND_CORNUCOPIA, I.CORNUCOPIA), (L.KIND_DIE, I.DIE)) if r.rm0[x, L.RM_ICON + ic] > 0]
    assert r.rm0[x, L.RM_KINDS] == sum(1 << k for k in kinds)  # the bits, spelt out for one room
    pol = make_policy("greedy", GAME.policies)
    moved = kinds_moved = 0
    for game in range(40):
        out, st, rm, tr = play_one(r, "free", pol, 5, game)
        want = rm.copy()
        icon_sums(want)
        cols = [L.RM_FOES, L.RM_ITEMS, L.RM_KINDS]
        assert (rm[:, cols] == want[:, cols]).all(), game
        moved += int((rm[:, cols] != r.rm0[:, cols]).sum())
        kinds_moved += int((rm[:, L.RM_KINDS] != r.rm0[:, L.RM_KINDS]).sum())
    assert moved > 0 and kinds_moved > 0  # games did change them


def test_the_goal_search_makes_its_map_words_again_for_other_rooms():
    """``goal_masks2`` keeps the map-wide words it made from one ``rm`` while that rm's row words stay the same; handed
    another rm (its dirty flag clear: a scratch shared by two sheets, or reused from a test), it makes them again."""
    r = load_ruleset()
    n = r.geo.shape[0]
    board = K.Board(r.R, r.T, r.geo, r.arrows)
    st = np.zeros(L.STATE_SIZE, np.int64)
    sc = np.zeros((K.SC_ROWS, K.scratch_cols(n)), np.int64)
    a, b = r.rm0.copy(), r.rm0.copy()
    x, side = next((x, s) for x in range(n) for s in range(4)
                   if r.geo[x, s] >= 0 and a[x, L.RM_WALL + s] == L.W_OPEN)
    K.set_wall(r.R, b, x, side, L.W_COLLAPSED)
    assert b[0, L.RM_BITS + L.RB_DIRTY] == 1
    words = {}
    for name, rm in (("a", a), ("b", b), ("a again", a), ("b again", b)):
        K.goal_masks2(board, st, rm, sc)
        assert rm[0, L.RM_BITS + L.RB_DIRTY] == 0
        words[name] = sc[K.SC_BITS, :K.L_GOAL].copy()  # the sides' masks and the collapsed rooms
    assert (words["a"] != words["b"]).any()
    assert (words["a again"] == words["a"]).all() and (words["b again"] == words["b"]).all()


def test_low_bit_is_the_column_of_the_lowest_set_bit():
    """``low_bit`` (one ``tzcnt`` compiled; ``py_trailing_zeros`` under NUMBA_DISABLE_JIT) against the column counted
    in Python: every single bit, the sign bit among them, and random words with higher bits set."""
    rng = np.random.default_rng(5)
    words = [np.int64(np.uint64(1) << np.uint64(c)) for c in range(64)]
    words += [np.int64(w) for w in rng.integers(1, 2**63 - 1, 300, dtype=np.int64)]
    words += [np.int64(-w) for w in rng.integers(1, 2**63 - 1, 100, dtype=np.int64)]
    for w in words:
        u = int(w) & (2**64 - 1)
        want = next(c for c in range(64) if (u >> c) & 1)
        assert K.low_bit(w) == want, hex(u)
        assert K.py_trailing_zeros(w) == want, hex(u)
    assert K.py_trailing_zeros(np.int64(0)) == 64


def test_first_foe_is_the_first_ruleset_foe_in_the_room():
    """``first_foe`` (the room's sum of foes ``RM_FOES`` first, then the scan) against the scan alone: no foe, one,
    several, and a spare slot's count (past the ruleset's foes), which is not a foe of the ruleset."""
    r = load_ruleset()
    nf = int(r.R[L.R_N_FOES])
    assert nf < I.MAX_FOES  # a spare slot exists to test
    rng = np.random.default_rng(9)
    rm = r.rm0.copy()
    cases = [(), (0,), (nf - 1,), (2, 5), (nf,), (nf, 3), (I.MAX_FOES - 1,)]
    cases += [tuple(rng.choice(I.MAX_FOES, rng.integers(0, 4), replace=False)) for _ in range(50)]
    for slots in cases:
        rm[0, L.RM_ICON + I.FOE_FIRST: L.RM_ICON + I.FOE_FIRST + I.MAX_FOES] = 0
        for s in slots:
            rm[0, L.RM_ICON + I.FOE_FIRST + s] = 1 + s % 2
        icon_sums(rm)
        want = min((I.FOE_FIRST + s for s in slots if s < nf), default=-1)
        assert K.first_foe(r.R, rm, 0) == want, slots
