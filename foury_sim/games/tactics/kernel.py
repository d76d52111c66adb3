"""The Tactics rules as small numba functions over plain arrays, and the parallel kernel.

One game: ``play_game`` (setup, then player turns and DM turns until the exit, death or the turn cap).
Every choice of either side goes through ``decide`` (the adventurer's policy for ``D_ACTION``, the Dungeon
Master's for the DM kinds). Menus list the legal options with the kernel's advice (``layout``). The one
roll-off, exchange and move cost are ``combat.py``'s; distances and line of sight are ``grid.py``'s. The
trace, when the ``trace`` array has rows, logs every AP spent and every die for ``trace.format_trace``.

Rulings made here (docs/rules-tactics.md, the coordinator's table): resting ends the player's turn and the DM
does not play it (AP comes back full at the next turn); things (crates, chests, shrines, keys, doors) block
movement until used up; keys stay held after opening a door; ranged attacks and shots go along a row or column
within reach and in line of sight; a monster killed by the player is looted at once (no AP) and a skeleton's
body stays for the necromancer (not one slain on lava, unless ``rulings.revive_lava``); spawned monsters start
asleep (they wake on seeing the player). The Shrine of Freedom's door and the Gambler's Die's reroll are the
adventurer's decisions (``D_FREEDOM``, ``D_GAMBLE``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange, types

from ...borrow import borrow, keep_alive
from ...config import CACHE, CHUNK
from ...grid import distance_field, edge_within, first_step, line_of_sight, neighbour
from ...policy import POLICY_TYPE, USER_POLICY_ID
from ...rng import d6, roll, seed_stream
from ...tracing import trace_row
from . import layout as A
from .combat import (
    MELEE,
    MONSTER_RANGED,
    PLAYER_RANGED,
    T_SIZE,
    X_AP_LOST,
    X_BLOW,
    X_CHICKEN,
    X_DMG_MON,
    X_DMG_PLAYER,
    X_M_DICE,
    X_M_TOTAL,
    X_P_DICE,
    X_P_TOTAL,
    X_SIZE,
    combat_terms,
    exchange,
    lava_walker,
    monster_move_cost,
    move_cost,
)
from .level import LV_HDR, lv_color, lv_mon, lv_spawn, lv_thing
from .policies import builtin_decide
from .ruleset import (
    A_AP,
    A_DEF,
    A_MOVE_PCT,
    ADV_AWAKE_WITH_PATH,
    C_ARMOR,
    C_KIND_CHICKEN,
    C_KIND_MUMMY,
    C_KIND_SKELETON,
    C_LOOT_BARREL,
    C_LOOT_BOSS,
    C_LOOT_CHEST,
    C_LOOT_MAGIC_CHEST,
    C_LOOT_MONSTER,
    C_LOOT_SARCOPHAGUS,
    C_MAGIC,
    C_NORMAL,
    C_POTION,
    C_SHRINE,
    C_SPAWN,
    C_WEAPON,
    ELECTRIC_EVERY_TURN,
    K_UNDEAD,
    LOOT_MAGIC,
    LOOT_NORMAL,
    LOOT_NOTHING,
    LOOT_SPAWN_MUMMY,
    LOOT_SPAWN_SKELETON,
    LOOT_TRAP,
    M_AP_ATTACK,
    M_BOSS,
    M_DICE,
    M_FLY,
    M_HP,
    M_KIND,
    M_LARGE,
    M_LAVA_IMMUNE,
    M_RANGE,
    M_RESURRECTS,
    M_REVIVER,
    M_SPAWN_CAT,
    M_STORM,
    MG_AMULET,
    MG_BERSERK,
    MG_GAMBLER,
    MG_HOLY_BOLT,
    MG_RUNE,
    MG_TELEPORT,
    MYSTERY_GAMBLE,
    MYSTERY_HEALTH,
    MYSTERY_STAMINA,
    N_ARMOR,
    N_FOOD,
    N_POTION,
    N_WEAPON,
    R_ADVANCING,
    R_AP,
    R_ATTACK,
    R_DM_AP,
    R_ELECTRIC,
    R_ELECTRIC_TURNS,
    R_FOOD_HEAL,
    R_FOOD_STACK,
    R_GAMBLE_HP,
    R_HEALTH_POTION,
    R_HOLY_BOLT,
    R_HP,
    R_INTERACT,
    R_MIGHT,
    R_MON_BLOCK,
    R_MYSTERY,
    R_OVERHEAL_DECAY,
    R_POTION_STACK,
    R_RANGED_ADJ,
    R_REST_SPAWN,
    R_RESURRECT_FACE,
    R_RESURRECT_LOSS,
    R_REVIVE_AP,
    R_REVIVE_LAVA,
    R_RUNE_LARGE,
    R_RUNE_SMALL,
    R_SHRINE_HEAL,
    R_SPAWN_OPTIONAL,
    R_STAMINA_POTION,
    R_START_ARMOR,
    R_START_WEAPON,
    R_TELEPORT_RANGE,
    R_TIES,
    R_TRAP_DAMAGE,
    R_TURN_CAP,
    R_USE,
    R_WEAKNESS_AP,
    R_WINS_ON_EXIT,
    RANGED_ADJ_MELEE,
    REST_SPAWN_ROLLED,
    SH_ARMS,
    SH_DOOM,
    SH_FREEDOM,
    SH_HEALING,
    SH_MIGHT,
    SH_WEAKNESS,
    SPAWN_ANY,
    SPAWN_NOTHING,
    SPAWN_REROLL,
    W_BONUS,
    W_REACH,
    W_VS_BONUS,
)

E = A  # trace codes live in the layout


class Game(NamedTuple):
    """The ruleset's arrays (read only): scalars, monster table, weapons, armour, charts, packed level."""

    rules: np.ndarray
    mons: np.ndarray
    weapons: np.ndarray
    armors: np.ndarray
    charts: np.ndarray
    lv: np.ndarray


class Work(NamedTuple):
    """Per-chunk scratch, as four arrays of rows (the W_* rows below): numba passes every field of a NamedTuple to
    each function that takes it (an array is seven machine words, nine in two dimensions), so one array per row
    (17 before session 27) made every call of a rule slower (``benchmarks/results/tactics-tfloor3.patch``)."""

    wl: np.ndarray  # int64[W_L_ROWS, max(n, T_SIZE, X_SIZE)]: things on tiles, the queue, combat terms and dice
    wi: np.ndarray  # int32[W_I_ROWS, n]: distance fields and rooms
    wb: np.ndarray  # uint8[W_B_ROWS, n]: opacity and passabilities
    opts: np.ndarray  # int64[MAX_OPTIONS, N_OCOLS]


# rows of ``Work.wl`` (int64)
W_TH = 0  # X_* on each tile now (X_USED added once used)
W_Q = 1  # the queue of the sweeps
W_TERMS = 2  # combat terms (T_SIZE entries)
W_XO = 3  # a roll-off's dice and effects (X_SIZE entries)
W_SNAP = 4  # the level's start, kept for the chunk's next games (SN_* entries; 0 = not yet)
W_L_ROWS = 5
# rows of ``Work.wi`` (int32)
W_D1 = 0  # the player's field (route_fields), the electrified water (electrify)
W_D2 = 1  # the passability the route fields were swept over
W_D3 = 2  # unspread's scratch, the connected water
W_DG = 3  # steps to the goal (cached per map version)
W_DL = 4  # steps to the nearest thing to loot (cached per map version)
W_MG = 5  # walking monsters' steps to the player (cached per map version and player tile)
W_ML = 6  # flying and lava-immune monsters' steps to the player (same)
W_ROOM = 7  # the clear tiles' rooms (``label_rooms``: kept by every write of the opacity), -1 opaque
W_ROW = 8  # each tile's row (``setup``): the menus' distances and lines without a division
W_COL = 9  # each tile's column (same)
W_ROOM0 = 10  # the rooms of the level's start (label_rooms, once per chunk: every game starts on the same map)
W_D1_0 = 11  # route_fields' first d1, d2, dg and dl of a game (once per chunk: the same map, tile and state)
W_D2_0 = 12
W_DG_0 = 13
W_DL_0 = 14
W_I_ROWS = 15
# rows of ``Work.wb`` (uint8)
W_OPQ = 0  # walls and closed doors
W_PAS = 1  # the player's passability (route_fields; kept while S_PASV stands)
W_BLK = 2  # tiles a monster's step is blocked by
W_MPAS = 3  # the monsters' passability (mon_field), water (electrify)
W_B_ROWS = 4
# entries of ``Work.wl[W_SNAP]``: the chunk's games all start on the same level (setup), so what the first game
# computes from the start (the row and column tables, the rooms, the first route fields) the next ones copy
SN_LEVEL = 0  # W_ROW, W_COL and W_ROOM0 hold the level's start
SN_FIELDS = 1  # W_D1_0 .. W_DL_0 and the entries below hold route_fields' first computation
SN_CELL = 2  # the player's tile it was made on
SN_GOAL_CELL = 3


class Pol(NamedTuple):
    """Who decides: the adventurer's policy (id, parameters, a user's function) and the DM's (id, parameters, a
    user's function)."""

    pid: int
    params: np.ndarray
    user_fn: Any
    dm_pid: int
    dm_params: np.ndarray
    dm_fn: Any


class Dice(NamedTuple):
    rs: np.ndarray
    script: np.ndarray
    trace: np.ndarray
    pol: Any  # the Pol of the game, for the adventurer's decisions inside a rule (``gamble``, ``shrine``)


MAX_ACTIONS = 400  # actions of one side in one turn: a safety bound (every action but a free one costs AP)


# --- small helpers -----------------------------------------------------------------------------------
@njit(cache=CACHE, inline="always", _nrt=False)
def ev(trace, st, code, a0, a1, a2, a3, a4, a5, a6, a7):
    """Log one event (only when replaying): [code, turn, a0..a7]; row 0 holds the count."""
    fields = (st[A.S_TURN], np.int64(a0), np.int64(a1), np.int64(a2), np.int64(a3), np.int64(a4), np.int64(a5),
              np.int64(a6), np.int64(a7))
    trace_row(trace, trace, (0, 0), 1, code, fields)


@njit(cache=CACHE, inline="always", _nrt=False)
def tile(g, cell):
    return g.lv[LV_HDR + cell]


@njit(cache=CACHE, inline="always", _nrt=False)
def walkable(t):
    return t != A.T_WALL and t != A.T_LAVA


@njit(cache=CACHE, inline="always", _nrt=False)
def mslot(i):
    return A.S_MON + i * A.MC


@njit(cache=CACHE, inline="always", _nrt=False)
def alive(st, i):
    return st[mslot(i) + A.MF_STATE] != A.MS_DEAD


@njit(cache=CACHE, inline="always", _nrt=False)
def dist1(cols, a, b):
    ra = a // cols
    rb = b // cols
    return abs(ra - rb) + abs((a - ra * cols) - (b - rb * cols))


@njit(cache=CACHE, inline="always", _nrt=False)
def nb_rc(w, rows, cols, c, k):
    """grid.neighbour (``k`` = 0 up, 1 right, 2 down, 3 left; -1 off the grid) read from the row and column tables
    (``W_ROW``, ``W_COL``): no division."""
    if k == 0:
        return c - cols if w.wi[W_ROW, c] > 0 else -1
    if k == 1:
        return c + 1 if w.wi[W_COL, c] < cols - 1 else -1
    if k == 2:
        return c + cols if w.wi[W_ROW, c] < rows - 1 else -1
    return c - 1 if w.wi[W_COL, c] > 0 else -1


@njit(cache=CACHE, _nrt=False)
def dist_rc(w, a, b):
    """``dist1`` read from the row and column tables (``W_ROW``, ``W_COL``): no division."""
    return abs(w.wi[W_ROW, a] - w.wi[W_ROW, b]) + abs(w.wi[W_COL, a] - w.wi[W_COL, b])


@njit(cache=CACHE, _nrt=False)
def in_line(g, w, st, a, b, reach):
    """Whether ``b`` is within ``reach`` steps of ``a`` along a row or a column, in line of sight: ``sees`` for
    a line along a row or a column, which walks the tiles strictly between (grid.line_of_sight's Bresenham line
    is that straight walk, with no diagonal step for the corner rule, and the line back passes the same tiles)."""
    if reach <= 0:
        return False
    ra = w.wi[W_ROW, a]
    rb = w.wi[W_ROW, b]
    ca = w.wi[W_COL, a]
    cb = w.wi[W_COL, b]
    if ra != rb and ca != cb:
        return False
    d = abs(ra - rb) + abs(ca - cb)
    if d > reach:
        return False
    ma = w.wi[W_ROOM, a]
    mb = w.wi[W_ROOM, b]
    if ma >= 0 and mb >= 0 and ma != mb:
        return False
    if d <= 1:
        return True
    if ra == rb:
        step = 1 if cb > ca else -1
    else:
        step = st[A.S_COLS] if rb > ra else -st[A.S_COLS]
    c = a + step
    while c != b:
        if w.wb[W_OPQ, c] != 0:
            return False
        c += step
    return True


@njit(cache=CACHE, _nrt=False)
def mon_at(st, cell):
    """The living monster standing on ``cell``, -1 none."""
    for i in range(st[A.S_N_MON]):
        b = mslot(i)
        if st[b + A.MF_STATE] != A.MS_DEAD and st[b + A.MF_CELL] == cell:
            return i
    return -1


@njit(cache=CACHE, _nrt=False)
def free_for_monster(g, w, st, cell):
    """A walkable tile with nothing on it, no monster and not the player's."""
    return (walkable(tile(g, cell)) and w.wl[W_TH, cell] == A.X_NONE and cell != st[A.S_CELL] and mon_at(st, cell) < 0)


@njit(cache=CACHE, _nrt=False)
def max_ap(g, st):
    return max(0, g.rules[R_AP] + g.armors[st[A.S_ARMOR], A_AP] - st[A.S_AP_PENALTY])


@njit(cache=CACHE, _nrt=False)
def bfs(pas, rows, cols, src, ta, tb, out, q):
    """Fewest steps from ``src`` over ``pas`` tiles, the teleporter pair ``ta``/``tb`` one step apart (the
    player's routes); -1 unreachable. ``src`` counts whatever it is."""
    n = rows * cols
    for i in range(n):
        out[i] = -1
    out[src] = 0
    q[0] = src
    spread(pas, rows, cols, ta, tb, out, q, np.int64(1))


@njit(cache=CACHE, inline="always", _nrt=False)
def _reach(pas, out, q, tail, nb, d):
    if out[nb] < 0 and pas[nb] != 0:
        out[nb] = d
        q[tail] = nb
        return tail + 1
    return tail


@njit(cache=CACHE, _nrt=False)
def spread(pas, rows, cols, ta, tb, out, q, tail):
    """The breadth-first sweep of ``bfs`` from the ``tail`` cells already queued in ``q`` (their ``out`` set,
    every other cell -1). Inside a closed border no bounds are checked, else each cell's row and column are
    worked out once, not once per neighbour (the distances do not depend on the order of the queue)."""
    # inside a closed border (no passable edge cell, no queued cell on the edge) every neighbour is on the grid
    last = cols - 1
    bottom = rows - 1
    inner = rows >= 3 and cols >= 3 and edge_within(pas, rows, cols, 0, 0)
    if inner:
        for i in range(tail):
            r = q[i] // cols
            x = q[i] - r * cols
            if r == 0 or r == bottom or x == 0 or x == last:
                inner = False
    head = 0
    if inner:
        while head < tail:
            c = q[head]
            head += 1
            d = out[c] + 1
            tail = _reach(pas, out, q, tail, c - cols, d)
            tail = _reach(pas, out, q, tail, c + 1, d)
            tail = _reach(pas, out, q, tail, c + cols, d)
            tail = _reach(pas, out, q, tail, c - 1, d)
            if c == ta and tb >= 0:
                tail = _reach(pas, out, q, tail, tb, d)
            elif c == tb and ta >= 0:
                tail = _reach(pas, out, q, tail, ta, d)
        return
    while head < tail:
        c = q[head]
        head += 1
        d = out[c] + 1
        r = c // cols
        x = c - r * cols
        if r > 0:
            tail = _reach(pas, out, q, tail, c - cols, d)
        if x < last:
            tail = _reach(pas, out, q, tail, c + 1, d)
        if r < bottom:
            tail = _reach(pas, out, q, tail, c + cols, d)
        if x > 0:
            tail = _reach(pas, out, q, tail, c - 1, d)
        if c == ta and tb >= 0:
            tail = _reach(pas, out, q, tail, tb, d)
        elif c == tb and ta >= 0:
            tail = _reach(pas, out, q, tail, ta, d)


@njit(cache=CACHE, inline="always", _nrt=False)
def _partner(c, ta, tb):
    """The teleporter tile ``spread`` joins to ``c`` (the same test as its sweep), -1 none."""
    if c == ta and tb >= 0:
        return tb
    if c == tb and ta >= 0:
        return ta
    return -1


@njit(cache=CACHE, _nrt=False)
def _nb5(rows, cols, c, k, inner, ta, tb):
    """``unspread``'s ``k``-th neighbour of ``c`` (0-3 as grid.neighbour, 4 the teleporter partner), -1 none; with
    ``inner`` (every cell it is asked about is off the grid's edge) without a division."""
    if k == 4:
        return _partner(c, ta, tb)
    if inner:
        return c - cols if k == 0 else (c + 1 if k == 1 else (c + cols if k == 2 else c - 1))
    return neighbour(rows, cols, c, k)


@njit(cache=CACHE, _nrt=False)
def unspread(pas, rows, cols, ta, tb, out, q, sd, gone):
    """``out`` (a field of ``spread`` over ``pas``) made the field of its sources but the ``gone`` ones (``q``
    holds them on entry, their ``out`` 0), over the same ``pas``: the same numbers as a new sweep, redone only
    on the tiles whose nearest source was one of them.

    Those tiles are found by a sweep from the gone sources through the tiles whose distance is one more at
    each step (a tile is one of them iff a gone source is among its nearest: every tile on a shortest way
    from it is). The others keep their distance (a nearest source of theirs stays, and sources only go away).
    The found tiles are cleared and swept again from their neighbours that keep a distance (``sd``), taken in
    order of distance, merged with the sweep's queue so that the queue stays in order of distance. ``sd``
    needs ``rows * cols`` entries. Every tile it looks at is passable or on the field (a source), so when no
    edge tile is either, no neighbour is off the grid (``inner``: no bounds checks, no divisions)."""
    inner = (rows >= 3 and cols >= 3 and edge_within(pas, rows, cols, 0, 0)
             and edge_within(out, rows, cols, -(1 << 62), -1))
    # 1. the tiles to redo: marked -2 - distance while found, q[0:tail] in the order found
    for i in range(gone):
        out[q[i]] = -2
    head = 0
    tail = gone
    while head < tail:
        c = q[head]
        head += 1
        d = -2 - out[c] + 1
        for k in range(5):
            nb = _nb5(rows, cols, c, k, inner, ta, tb)
            if nb >= 0 and out[nb] == d and pas[nb] != 0:
                out[nb] = -2 - d
                q[tail] = nb
                tail += 1
    for i in range(tail):
        out[q[i]] = -1
    # 2. their neighbours that keep a distance, once each (marked -2 - distance while listed)
    ns = 0
    for i in range(tail):
        c = q[i]
        for k in range(5):
            nb = _nb5(rows, cols, c, k, inner, ta, tb)
            if nb >= 0 and out[nb] >= 0:
                out[nb] = -2 - out[nb]
                sd[ns] = nb
                ns += 1
    for i in range(ns):
        out[sd[i]] = -2 - out[sd[i]]
    # in order of distance (insertion sort: few tiles)
    for i in range(1, ns):
        c = sd[i]
        d = out[c]
        j = i - 1
        while j >= 0 and out[sd[j]] > d:
            sd[j + 1] = sd[j]
            j -= 1
        sd[j + 1] = c
    # 3. the sweep from them, the listed tiles merged into the queue by distance
    i = 0
    head = 0
    tail = 0
    while True:
        if i < ns and (head >= tail or out[sd[i]] <= out[q[head]]):
            c = sd[i]
            i += 1
        elif head < tail:
            c = q[head]
            head += 1
        else:
            break
        d = out[c] + 1
        for k in range(5):
            nb = _nb5(rows, cols, c, k, inner, ta, tb)
            if nb >= 0:
                tail = _reach(pas, out, q, tail, nb, d)


@njit(cache=CACHE, inline="always", _nrt=False)
def add_row(opts, n, action, arg, cell, cost, goal, loot, value, mon):
    """Option row ``n`` (``_add_row``), every field cast to int64: one compiled signature for the two dozen calls,
    which pass literal 0s and -1s in every mix (numba would compile the callee once per mix)."""
    return _add_row(opts, np.int64(n), np.int64(action), np.int64(arg), np.int64(cell), np.int64(cost),
                    np.int64(goal), np.int64(loot), np.int64(value), np.int64(mon))


@njit(cache=CACHE, _nrt=False)
def _add_row(opts, n, action, arg, cell, cost, goal, loot, value, mon):
    if n >= A.MAX_OPTIONS:
        return n
    opts[n, A.O_ACTION] = action
    opts[n, A.O_ARG] = arg
    opts[n, A.O_CELL] = cell
    opts[n, A.O_COST] = cost
    opts[n, A.O_GOAL] = goal
    opts[n, A.O_LOOT] = loot
    opts[n, A.O_VALUE] = value
    opts[n, A.O_MON] = mon
    return n + 1


# --- decisions ---------------------------------------------------------------------------------------
@njit(cache=CACHE, inline="always", _nrt=False)
def _decide(kind, st, opts, n, dice):
    """Ask the side whose decision it is (a forced choice, n <= 1, is not asked). An answer outside 0..n-1 is
    counted (``S_BAD``) and option 0 taken, as in every game. The policies are ``dice.pol``'s. Written into the
    two callers of nearly every decision (``player_turn``, ``dm_turn``): a call passes about 60 machine words
    (``st``, ``opts``, ``dice``), as many stores as the rest of a decision by a built-in policy; the rare
    decisions inside rules call ``decide``."""
    pol = dice.pol
    if n <= 1:
        c = 0
    else:
        dm = kind >= A.D_FIRST_DM and kind <= A.D_LAST_DM
        if dm:
            pid = pol.dm_pid
            params = pol.dm_params
        else:
            pid = pol.pid
            params = pol.params
        if pid == USER_POLICY_ID:
            if dm:
                c = pol.dm_fn(kind, st, opts, n, params)
            else:
                c = pol.user_fn(kind, st, opts, n, params)
        elif pid == A.P_RANDOM or (pid == A.P_BY_THE_BOOK and kind != A.D_DM_ACT):
            c = roll(dice.rs, dice.script, n) - 1
        else:
            c = builtin_decide(pid, kind, st, opts, n, params)
        if c < 0 or c >= n:
            st[A.S_BAD] += 1
            c = 0
        st[A.S_NDEC] += 1
    if kind < A.D_FIRST_DM or kind > A.D_LAST_DM:
        st[A.S_NACT] += 1
    ev(dice.trace, st, A.E_DECISION, kind, c, n, opts[c, A.O_ACTION], opts[c, A.O_ARG], opts[c, A.O_CELL],
       opts[c, A.O_COST], opts[c, A.O_MON])
    return c


@njit(cache=CACHE, _nrt=False)
def decide(kind, st, opts, n, dice):
    """``_decide`` as a call (the decisions inside rules: ``gamble``, ``shrine``, ``spawn``)."""
    return _decide(kind, st, opts, n, dice)


# --- waking, damage, death -----------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def label_rooms(w, rows, cols, start=False):
    """``w.wi[W_ROOM]``: the 4-connected regions of clear tiles (``opq`` 0), numbered, -1 on opaque tiles. Two clear
    tiles in different rooms never see each other (grid.line_of_sight: every tile of a clear line is clear, and a
    diagonal step it allows has a clear corner), so ``sees`` skips their line. Redone by every writer of
    ``w.wb[W_OPQ]`` (``setup``, ``open_door``); uses ``w.wl[W_Q]``. With ``start`` (``setup``: the opacity of the
    level's start, the same for every game of the chunk) the rooms found by the chunk's first game are copied."""
    n = rows * cols
    room = w.wi[W_ROOM]
    q = w.wl[W_Q]
    if start and w.wl[W_SNAP, SN_LEVEL] != 0:
        for c in range(n):
            room[c] = w.wi[W_ROOM0, c]
        return
    for c in range(n):
        room[c] = -1
    # inside an opaque border no clear tile is on the edge: its neighbours need no bounds checks (``_nb5``)
    inner = rows >= 3 and cols >= 3 and edge_within(w.wb[W_OPQ], rows, cols, 1, 255)
    k = 0
    for c0 in range(n):
        if room[c0] >= 0 or w.wb[W_OPQ, c0] != 0:
            continue
        room[c0] = k
        q[0] = c0
        head = 0
        tail = 1
        while head < tail:
            c = q[head]
            head += 1
            for j in range(4):
                nb = _nb5(rows, cols, c, j, inner, np.int64(-1), np.int64(-1))
                if nb >= 0 and room[nb] < 0 and w.wb[W_OPQ, nb] == 0:
                    room[nb] = k
                    q[tail] = nb
                    tail += 1
        k += 1
    if start:
        for c in range(n):
            w.wi[W_ROOM0, c] = room[c]
        w.wl[W_SNAP, SN_LEVEL] = 1


@njit(cache=CACHE, inline="always", _nrt=False)
def sees(w, st, a, b):
    """grid.line_of_sight of ``a`` and ``b`` over ``w.wb[W_OPQ]``, without the line when both are clear tiles of
    different rooms (``label_rooms``: they cannot see each other)."""
    ra = w.wi[W_ROOM, a]
    rb = w.wi[W_ROOM, b]
    if ra >= 0 and rb >= 0 and ra != rb:
        return False
    return line_of_sight(w.wb[W_OPQ], st[A.S_ROWS], st[A.S_COLS], a, b)


@njit(cache=CACHE, _nrt=False)
def wake_all(g, w, st, dice):
    """Every sleeping monster that sees the player wakes."""
    p = st[A.S_CELL]
    for i in range(st[A.S_N_MON]):
        b = mslot(i)
        if st[b + A.MF_STATE] == A.MS_ASLEEP and sees(w, st, st[b + A.MF_CELL], p):
            st[b + A.MF_STATE] = A.MS_AWAKE
            st[A.S_AWAKE] += 1
            ev(dice.trace, st, A.E_WAKE, i, st[b + A.MF_KIND], st[b + A.MF_CELL], 0, 0, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def hurt_player(g, w, st, dice, dmg, cause, killer):
    """The player loses ``dmg`` HP; at 0 the Amulet of Resurrection brings them back at the start, or they die."""
    if dmg <= 0 or st[A.S_DEAD]:
        return
    st[A.S_HP] -= dmg
    if st[A.S_HP] > 0:
        return
    if st[A.S_MAGIC] & (1 << MG_AMULET):
        st[A.S_MAGIC] &= ~(1 << MG_AMULET)
        st[A.S_USED] += 1
        st[A.S_HP] = st[A.S_HP_CAP]
        start = g.lv[A.LV_START]
        m = mon_at(st, start)
        # (the tile the player comes back on: the start, or where they fell when a monster stands on the start)
        ev(dice.trace, st, A.E_AMULET, st[A.S_CELL], start if m < 0 else st[A.S_CELL], st[A.S_HP], 1 if m >= 0 else 0,
           0, 0, 0, 0)
        if m < 0:
            st[A.S_CELL] = start
        wake_all(g, w, st, dice)
        return
    st[A.S_HP] = 0
    st[A.S_DEAD] = 1
    st[A.S_CAUSE] = cause
    st[A.S_KILLER] = killer
    st[A.S_DEATH_CELL] = st[A.S_CELL]


@njit(cache=CACHE, _nrt=False)
def heal(st, hp):
    """Healing up to the cap (HP above it, from an overheal, stays as it is). Returns the HP gained."""
    before = st[A.S_HP]
    if before < st[A.S_HP_CAP]:
        st[A.S_HP] = min(st[A.S_HP_CAP], before + hp)
    return st[A.S_HP] - before


@njit(cache=CACHE, _nrt=False)
def add_mon(g, st, kind, cell, state):
    """A new monster (full HP) in a free slot; -1 if every slot is taken."""
    slot = -1
    if st[A.S_N_MON] < A.MAX_MON:
        slot = st[A.S_N_MON]
        st[A.S_N_MON] += 1
    else:
        for i in range(A.MAX_MON):
            b = mslot(i)
            if st[b + A.MF_STATE] == A.MS_DEAD and st[b + A.MF_CORPSE] == 0:
                slot = i
                break
    if slot < 0:
        return -1
    b = mslot(slot)
    st[b + A.MF_KIND] = kind
    st[b + A.MF_CELL] = cell
    st[b + A.MF_HP] = g.mons[kind, M_HP]
    st[b + A.MF_STATE] = state
    st[b + A.MF_RESURRECTED] = 0
    st[b + A.MF_CORPSE] = 0
    if state == A.MS_AWAKE:
        st[A.S_AWAKE] += 1
    return slot


@njit(cache=CACHE, _nrt=False)
def spawn_near(g, w, st, dice, kind, cell):
    """A monster (awake) on the first free neighbour of ``cell`` (up, right, down, left); none if all taken."""
    if kind < 0:
        return -1
    for k in range(4):
        nb = neighbour(st[A.S_ROWS], st[A.S_COLS], cell, k)
        if nb >= 0 and free_for_monster(g, w, st, nb):
            slot = add_mon(g, st, kind, nb, A.MS_AWAKE)
            if slot >= 0:
                ev(dice.trace, st, A.E_SPAWN, slot, kind, nb, 1, 0, 0, 0, 0)
            return slot
    ev(dice.trace, st, A.E_NO_SPAWN, kind, 1, 0, 0, 0, 0, 0, 0)
    return -1


# --- loot --------------------------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def gain_weapon(g, st, dice, row):
    got = A.GOT_DUPLICATE if st[A.S_WEAPONS] & (1 << row) else A.GOT_KEPT
    st[A.S_WEAPONS] |= 1 << row
    ev(dice.trace, st, A.E_ITEM, A.IT_WEAPON, row, got, 0, 0, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def gain_food(g, st, dice, got):
    if st[A.S_FOOD] < g.rules[R_FOOD_STACK]:
        st[A.S_FOOD] += 1
    else:
        got = A.GOT_FULL
    ev(dice.trace, st, A.E_ITEM, A.IT_FOOD, 0, got, st[A.S_FOOD], 0, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def gamble(g, w, st, dice, roll, value, worth, source, cell):
    """While the Gambler's Die is held, the adventurer keeps a loot roll (``roll``: ``GB_*``, which gave ``value``
    worth ``worth``) or rerolls it (``D_GAMBLE``: row 0 keep, row 1 reroll); a reroll uses the die up. True: roll
    again."""
    if not st[A.S_MAGIC] & (1 << MG_GAMBLER):
        return False
    opts = w.opts
    n = add_row(opts, 0, A.A_KEEP, roll, cell, 0, worth, source, value, -1)
    n = add_row(opts, n, A.A_REROLL, roll, cell, 0, worth, source, value, -1)
    if opts[decide(A.D_GAMBLE, st, opts, n, dice), A.O_ACTION] != A.A_REROLL:
        return False
    st[A.S_MAGIC] &= ~(1 << MG_GAMBLER)
    st[A.S_USED] += 1
    ev(dice.trace, st, A.E_USE, A.U_GAMBLER, 0, st[A.S_HP], st[A.S_AP], 0, 0, 0, 0)
    return True


@njit(cache=CACHE, _nrt=False)
def normal_loot(g, w, st, dice, source, cell):
    """The normal loot chart's category, then the item (the Gambler's Die may reroll either)."""
    st[A.S_LOOT] += 1
    f = d6(dice.rs, dice.script)
    cat = g.charts[C_NORMAL + f - 1]
    worth = A.GB_GOOD
    if cat == N_FOOD:
        worth = A.GB_FOOD if st[A.S_FOOD] < g.rules[R_FOOD_STACK] else A.GB_NOTHING
    if gamble(g, w, st, dice, A.GB_CATEGORY, cat, worth, source, cell):
        cat = g.charts[C_NORMAL + d6(dice.rs, dice.script) - 1]
    if cat == N_WEAPON:
        row = g.charts[C_WEAPON + d6(dice.rs, dice.script) - 1]
        if gamble(g, w, st, dice, A.GB_ITEM, row, A.GB_NOTHING if st[A.S_WEAPONS] & (1 << row) else A.GB_GOOD,
                  source, cell):
            row = g.charts[C_WEAPON + d6(dice.rs, dice.script) - 1]
        gain_weapon(g, st, dice, row)
    elif cat == N_ARMOR:
        row = g.charts[C_ARMOR + d6(dice.rs, dice.script) - 1]
        if gamble(g, w, st, dice, A.GB_ITEM, row, A.GB_NOTHING if st[A.S_ARMORS] & (1 << row) else A.GB_GOOD,
                  source, cell):
            row = g.charts[C_ARMOR + d6(dice.rs, dice.script) - 1]
        got = A.GOT_DUPLICATE if st[A.S_ARMORS] & (1 << row) else A.GOT_KEPT
        st[A.S_ARMORS] |= 1 << row
        ev(dice.trace, st, A.E_ITEM, A.IT_ARMOR, row, got, 0, 0, 0, 0, 0)
    elif cat == N_POTION:
        kind = g.charts[C_POTION + d6(dice.rs, dice.script) - 1]
        full = st[A.S_POTIONS + kind] >= g.rules[R_POTION_STACK]
        if gamble(g, w, st, dice, A.GB_ITEM, kind, A.GB_NOTHING if full else A.GB_GOOD, source, cell):
            kind = g.charts[C_POTION + d6(dice.rs, dice.script) - 1]
        got = A.GOT_KEPT
        if st[A.S_POTIONS + kind] < g.rules[R_POTION_STACK]:
            st[A.S_POTIONS + kind] += 1
        else:
            got = A.GOT_FULL
        ev(dice.trace, st, A.E_ITEM, A.IT_POTION, kind, got, st[A.S_POTIONS + kind], 0, 0, 0, 0)
    elif cat == N_FOOD:
        gain_food(g, st, dice, A.GOT_KEPT)


@njit(cache=CACHE, _nrt=False)
def magic_loot(g, w, st, dice, source, cell):
    st[A.S_LOOT] += 1
    m = g.charts[C_MAGIC + d6(dice.rs, dice.script) - 1]
    if gamble(g, w, st, dice, A.GB_ITEM, m, A.GB_FOOD if st[A.S_MAGIC_FOUND] & (1 << m) else A.GB_GOOD, source,
              cell):
        m = g.charts[C_MAGIC + d6(dice.rs, dice.script) - 1]
    if st[A.S_MAGIC_FOUND] & (1 << m):
        ev(dice.trace, st, A.E_ITEM, A.IT_MAGIC, m, A.GOT_FOOD_INSTEAD, 0, 0, 0, 0, 0)
        gain_food(g, st, dice, A.GOT_KEPT)
        return
    st[A.S_MAGIC_FOUND] |= 1 << m
    st[A.S_MAGIC] |= 1 << m
    ev(dice.trace, st, A.E_ITEM, A.IT_MAGIC, m, A.GOT_KEPT, 0, 0, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def loot_code(g, w, st, dice, code, source, cell):
    """What a loot chance face gives (LOOT_*)."""
    if code == LOOT_NORMAL:
        normal_loot(g, w, st, dice, source, cell)
    elif code == LOOT_MAGIC:
        magic_loot(g, w, st, dice, source, cell)
    elif code == LOOT_TRAP:
        ev(dice.trace, st, A.E_TRAP, g.rules[R_TRAP_DAMAGE], max(0, st[A.S_HP] - g.rules[R_TRAP_DAMAGE]), 0, 0, 0,
           0, 0, 0)
        hurt_player(g, w, st, dice, g.rules[R_TRAP_DAMAGE], A.CAUSE_TRAP, np.int64(-1))
    elif code == LOOT_SPAWN_MUMMY:
        spawn_near(g, w, st, dice, g.charts[C_KIND_MUMMY], cell)
    elif code == LOOT_SPAWN_SKELETON:
        spawn_near(g, w, st, dice, g.charts[C_KIND_SKELETON], cell)


@njit(cache=CACHE, _nrt=False)
def loot_roll(g, w, st, dice, chart, source, cell, slot):
    """Roll the loot chance of ``source`` (a chart offset); a looted resurrecting undead (``slot`` >= 0) comes
    back on ``abilities.resurrect_face`` instead. While the Gambler's Die is held the adventurer may reroll the
    chance (``gamble``)."""
    face = d6(dice.rs, dice.script)
    code = g.charts[chart + face - 1]
    ev(dice.trace, st, A.E_LOOT_ROLL, source, face, code, cell, 0, 0, 0, 0)
    if slot >= 0:
        b = mslot(slot)
        kind = st[b + A.MF_KIND]
        if (g.mons[kind, M_RESURRECTS] and not g.mons[kind, M_BOSS] and st[b + A.MF_RESURRECTED] == 0
                and face == g.rules[R_RESURRECT_FACE] and mon_at(st, cell) < 0):
            st[b + A.MF_STATE] = A.MS_AWAKE
            st[b + A.MF_HP] = max(1, g.mons[kind, M_HP] - g.rules[R_RESURRECT_LOSS])
            st[b + A.MF_RESURRECTED] = 1
            st[b + A.MF_CORPSE] = 0
            st[A.S_AWAKE] += 1
            st[A.S_RES] += 1
            ev(dice.trace, st, A.E_RESURRECT, slot, kind, st[b + A.MF_HP], 0, 0, 0, 0, 0)
            return
    worth = A.GB_GOOD
    if code == LOOT_NOTHING:
        worth = A.GB_NOTHING
    elif code == LOOT_TRAP or code == LOOT_SPAWN_MUMMY or code == LOOT_SPAWN_SKELETON:
        worth = A.GB_HARM
    if gamble(g, w, st, dice, A.GB_CHANCE, code, worth, source, cell):
        face = d6(dice.rs, dice.script)
        code = g.charts[chart + face - 1]
        ev(dice.trace, st, A.E_LOOT_ROLL, source, face, code, cell, 0, 0, 0, 0)
    loot_code(g, w, st, dice, code, source, cell)


@njit(cache=CACHE, _nrt=False)
def kill_mon(g, w, st, dice, slot, by_player, lootable):
    """Monster ``slot`` dies; slain by the player it counts as a kill and is looted at once (a resurrected
    undead never again). A skeleton leaves a body for the necromancer (on lava only with ``rulings.revive_lava``)."""
    b = mslot(slot)
    if st[b + A.MF_STATE] == A.MS_AWAKE:
        st[A.S_AWAKE] -= 1
    st[b + A.MF_STATE] = A.MS_DEAD
    st[b + A.MF_HP] = 0
    kind = st[b + A.MF_KIND]
    st[b + A.MF_CORPSE] = 1 if kind == g.charts[C_KIND_SKELETON] and (
        g.rules[R_REVIVE_LAVA] or tile(g, st[b + A.MF_CELL]) != A.T_LAVA) else 0
    ev(dice.trace, st, A.E_KILL, slot, kind, st[b + A.MF_CELL], by_player, 0, 0, 0, 0)
    if by_player:
        st[A.S_KILLS] += 1
        if kind < A.MAX_KINDS:
            st[A.S_KILLS_KIND + kind] += 1
        if lootable and st[b + A.MF_RESURRECTED] == 0:
            boss = g.mons[kind, M_BOSS]
            loot_roll(g, w, st, dice, C_LOOT_BOSS if boss else C_LOOT_MONSTER,
                      A.SRC_BOSS if boss else A.SRC_MONSTER, st[b + A.MF_CELL], slot)


@njit(cache=CACHE, _nrt=False)
def hurt_mon(g, w, st, dice, slot, dmg, by_player):
    if dmg <= 0:
        return
    b = mslot(slot)
    st[b + A.MF_HP] -= dmg
    if st[b + A.MF_HP] <= 0:
        kill_mon(g, w, st, dice, slot, by_player, np.bool_(True))


# --- the map changes ------------------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def open_door(g, w, st, dice, cell):
    st[A.S_MAPV] += 1
    st[A.S_PASV] += 1
    st[A.S_MPASV] += 1
    w.wl[W_TH, cell] = A.X_NONE
    w.wb[W_OPQ, cell] = 0
    label_rooms(w, st[A.S_ROWS], st[A.S_COLS], np.bool_(False))
    ev(dice.trace, st, A.E_DOOR, cell, g.lv[lv_color(g.lv) + cell], 0, 0, 0, 0, 0, 0)
    wake_all(g, w, st, dice)


@njit(cache=CACHE, _nrt=False)
def shrine(g, w, st, dice):
    f = d6(dice.rs, dice.script)
    s = g.charts[C_SHRINE + f - 1]
    ev(dice.trace, st, A.E_SHRINE, f, s, 0, 0, 0, 0, 0, 0)
    if s == SH_HEALING:
        st[A.S_HP] += g.rules[R_SHRINE_HEAL]
        ev(dice.trace, st, A.E_HEAL, g.rules[R_SHRINE_HEAL], st[A.S_HP], 1, 0, 0, 0, 0, 0)
    elif s == SH_MIGHT:
        st[A.S_MIGHT] += g.rules[R_MIGHT]
    elif s == SH_ARMS:
        gain_weapon(g, st, dice, g.charts[C_WEAPON + d6(dice.rs, dice.script) - 1])
    elif s == SH_FREEDOM:  # the adventurer chooses the door (D_FREEDOM: the closed doors in reading order)
        opts = w.opts
        cols = st[A.S_COLS]
        col0 = lv_color(g.lv)
        n = np.int64(0)
        for c in range(st[A.S_ROWS] * cols):
            if w.wl[W_TH, c] == A.X_DOOR:
                n = add_row(opts, n, A.A_OPEN_DOOR, g.lv[col0 + c], c, 0, -1, -1, dist1(cols, st[A.S_CELL], c), -1)
        if n > 0:
            open_door(g, w, st, dice, opts[decide(A.D_FREEDOM, st, opts, n, dice), A.O_CELL])
    elif s == SH_WEAKNESS:
        st[A.S_AP_PENALTY] += g.rules[R_WEAKNESS_AP]
    elif s == SH_DOOM:
        for k in range(4):
            nb = neighbour(st[A.S_ROWS], st[A.S_COLS], st[A.S_CELL], k)
            if nb >= 0 and free_for_monster(g, w, st, nb) and g.charts[C_KIND_MUMMY] >= 0:
                slot = add_mon(g, st, g.charts[C_KIND_MUMMY], nb, A.MS_AWAKE)
                if slot >= 0:
                    ev(dice.trace, st, A.E_SPAWN, slot, g.charts[C_KIND_MUMMY], nb, 2, 0, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def interact(g, w, st, dice, cell):
    st[A.S_MAPV] += 1
    t = w.wl[W_TH, cell]
    if t == A.X_CRATE or t == A.X_BARREL:
        w.wl[W_TH, cell] = A.X_NONE
        st[A.S_MPASV] += 1
        loot_roll(g, w, st, dice, np.int64(C_LOOT_BARREL), A.SRC_BARREL, cell, np.int64(-1))
    elif t == A.X_CHEST:
        w.wl[W_TH, cell] = t + A.X_USED
        loot_roll(g, w, st, dice, np.int64(C_LOOT_CHEST), A.SRC_CHEST, cell, np.int64(-1))
    elif t == A.X_MAGIC_CHEST:
        w.wl[W_TH, cell] = t + A.X_USED
        loot_roll(g, w, st, dice, np.int64(C_LOOT_MAGIC_CHEST), A.SRC_MAGIC_CHEST, cell, np.int64(-1))
    elif t == A.X_SARCOPHAGUS:
        w.wl[W_TH, cell] = t + A.X_USED
        loot_roll(g, w, st, dice, np.int64(C_LOOT_SARCOPHAGUS), A.SRC_SARCOPHAGUS, cell, np.int64(-1))
    elif t == A.X_SHRINE:
        w.wl[W_TH, cell] = t + A.X_USED
        shrine(g, w, st, dice)
    elif t == A.X_KEY:
        w.wl[W_TH, cell] = A.X_NONE
        color = g.lv[lv_color(g.lv) + cell]
        st[A.S_KEYS] |= 1 << color
        st[A.S_PASV] += 1
        st[A.S_MPASV] += 1
        ev(dice.trace, st, A.E_KEY, color, cell, 0, 0, 0, 0, 0, 0)
    elif t == A.X_DOOR:
        open_door(g, w, st, dice, cell)
    else:
        st[A.S_FAULT] += 1


@njit(cache=CACHE, _nrt=False)
def electrify(g, w, st, dice, golem):
    """A storm golem in water: every tile of the water connected to it deals ``abilities.electric_damage`` to
    whoever stands there (the player and the other monsters)."""
    b = mslot(golem)
    src = st[b + A.MF_CELL]
    if tile(g, src) != A.T_WATER:
        return
    n = st[A.S_ROWS] * st[A.S_COLS]
    for c in range(n):
        w.wb[W_MPAS, c] = 1 if tile(g, c) == A.T_WATER else 0
    distance_field(w.wb[W_MPAS], st[A.S_ROWS], st[A.S_COLS], src, w.wi[W_D3])
    dmg = g.rules[R_ELECTRIC]
    hit = 0
    pd = 0
    for i in range(st[A.S_N_MON]):
        if i != golem and alive(st, i) and w.wi[W_D3, st[mslot(i) + A.MF_CELL]] >= 0:
            hit += 1
            hurt_mon(g, w, st, dice, i, dmg, np.int64(0))
    if w.wi[W_D3, st[A.S_CELL]] >= 0:
        pd = dmg
        st[A.S_ELECTRIC] += dmg
    ev(dice.trace, st, A.E_ELECTRIC, golem, pd, hit, max(0, st[A.S_HP] - pd), 0, 0, 0, 0)
    hurt_player(g, w, st, dice, pd, A.CAUSE_ELECTRIC, st[b + A.MF_KIND])


@njit(cache=CACHE, _nrt=False)
def electrify_all(g, w, st, dice):
    """The start of a turn: each awake storm golem standing in water electrifies it (stops at the player's
    death)."""
    for i in range(st[A.S_N_MON]):
        b = mslot(i)
        if st[b + A.MF_STATE] == A.MS_AWAKE and g.mons[st[b + A.MF_KIND], M_STORM] and tile(
                g, st[b + A.MF_CELL]) == A.T_WATER:
            electrify(g, w, st, dice, i)
            if st[A.S_DEAD]:
                return


# --- combat ------------------------------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def log_dice(dice, st, xo, n_p, n_m):
    ev(dice.trace, st, A.E_DICE, 0, xo[X_P_DICE], xo[X_P_DICE + 1], xo[X_P_DICE + 2], xo[X_P_DICE + 3],
       xo[X_P_DICE + 4], xo[X_P_DICE + 5], n_p)
    ev(dice.trace, st, A.E_DICE, 1, xo[X_M_DICE], xo[X_M_DICE + 1], xo[X_M_DICE + 2], xo[X_M_DICE + 3],
       xo[X_M_DICE + 4], xo[X_M_DICE + 5], n_m)


@njit(cache=CACHE, _nrt=False)
def fight(g, w, st, dice, slot, mode, players_turn):
    """One roll-off between the player and monster ``slot`` (combat.exchange) and its effects."""
    b = mslot(slot)
    kind = st[b + A.MF_KIND]
    combat_terms(g.rules, g.mons, g.weapons, g.armors, kind, st[A.S_WEAPON], st[A.S_ARMOR], st[A.S_MIGHT],
                 st[A.S_BERSERK] if players_turn else 0, w.wl[W_TERMS])
    xo = w.wl[W_XO]
    res = exchange(dice.rs, dice.script, w.wl[W_TERMS], g.rules[R_TIES], mode, players_turn, xo)
    log_dice(dice, st, xo, w.wl[W_TERMS, 0], w.wl[W_TERMS, 2])
    ev(dice.trace, st, A.E_ROLLOFF, slot, kind, xo[X_P_TOTAL], xo[X_M_TOTAL], res, xo[X_DMG_MON], xo[X_DMG_PLAYER],
       mode + 4 * xo[X_BLOW])
    if xo[X_CHICKEN]:
        ck = g.charts[C_KIND_CHICKEN]
        if ck >= 0:
            st[b + A.MF_KIND] = ck
            st[b + A.MF_HP] = g.mons[ck, M_HP]
            st[b + A.MF_RESURRECTED] = 1  # a chicken is nobody's body: it never comes back
            ev(dice.trace, st, A.E_CHICKEN, slot, kind, 0, 0, 0, 0, 0, 0)
        return
    if xo[X_DMG_MON] > 0:
        hurt_mon(g, w, st, dice, slot, xo[X_DMG_MON], np.int64(1))
    if xo[X_DMG_PLAYER] > 0:
        hurt_player(g, w, st, dice, xo[X_DMG_PLAYER], A.CAUSE_MONSTER, kind)
    if xo[X_AP_LOST] > 0 and players_turn:
        st[A.S_AP] = max(0, st[A.S_AP] - xo[X_AP_LOST])


# --- monster movement ---------------------------------------------------------------------------------------
@njit(cache=CACHE, inline="always", _nrt=False)
def mon_field_fresh(st, lava):
    """Whether ``mon_field`` holds the field of this monsters' passability and player tile (its callers test this first:
    the call itself passes ``g`` and ``w``, about 90 machine words)."""
    return st[A.S_MC_L if lava else A.S_MC_G] == st[A.S_MPASV] * 4096 + st[A.S_CELL]


@njit(cache=CACHE, _nrt=False)
def mon_field(g, w, st, lava):
    """Steps from the player to every tile a monster can walk (``lava``: flying or lava-immune kinds) into
    ``w.wi[W_ML]`` or ``w.wi[W_MG]``, computed once per version of the monsters' passability (``S_MPASV``: only a
    thing taken away or a door opened changes it, not a chest, sarcophagus or shrine used, which bumps the map
    version) and player tile (grid.distance_field: in a profile it took less time than ``bfs``, which sweeps
    with a queue array and teleporters)."""
    key = st[A.S_MPASV] * 4096 + st[A.S_CELL]
    slot = A.S_MC_L if lava else A.S_MC_G
    out = w.wi[W_ML] if lava else w.wi[W_MG]
    if st[slot] != key:
        n = st[A.S_ROWS] * st[A.S_COLS]
        for c in range(n):
            t = tile(g, c)
            ok = t != A.T_WALL and (t != A.T_LAVA or lava) and w.wl[W_TH, c] == A.X_NONE
            w.wb[W_MPAS, c] = 1 if ok else 0
        distance_field(w.wb[W_MPAS], st[A.S_ROWS], st[A.S_COLS], st[A.S_CELL], out)
        st[slot] = key


@njit(cache=CACHE, inline="always", _nrt=False)
def mon_walks(g, w, c, lava):
    """Whether ``mon_field`` counts tile ``c`` as walkable."""
    t = tile(g, c)
    return t != A.T_WALL and (t != A.T_LAVA or lava) and w.wl[W_TH, c] == A.X_NONE


@njit(cache=CACHE, _nrt=False)
def mon_reaches(g, w, st, lava, cell):
    """Whether ``mon_field`` reaches ``cell`` (a monster there has a way to the player), without sweeping a
    new field while the cached one is of this passability (``S_MPASV``) and starts on a walkable tile the player
    can walk back to from a walkable tile: both fields then reach the same tiles (the fields are a pure function
    of the passability and the player's tile, so sweeping later gives the same numbers)."""
    out = w.wi[W_ML] if lava else w.wi[W_MG]
    key = st[A.S_MC_L if lava else A.S_MC_G]
    p = st[A.S_CELL]
    v = st[A.S_MPASV]
    fresh = False
    if key >= 0 and key // 4096 == v and key != v * 4096 + p:
        c0 = key - v * 4096
        fresh = out[p] >= 0 and mon_walks(g, w, c0, lava) and mon_walks(g, w, p, lava)
    if not fresh:
        mon_field(g, w, st, lava)
    if out[cell] >= 0 or mon_walks(g, w, cell, lava):
        return out[cell] >= 0
    # a monster on a tile it may not step onto (a lava-immune golem a level or the rune put on lava, under
    # ``rulings.lava_walk = "flyers"``) steps off it: it has a way when a neighbour has one
    for k in range(4):
        nb = neighbour(st[A.S_ROWS], st[A.S_COLS], cell, k)
        if nb >= 0 and out[nb] >= 0:
            return True
    return False


@njit(cache=CACHE, _nrt=False)
def set_blocked(g, w, st):
    n = st[A.S_ROWS] * st[A.S_COLS]
    for c in range(n):
        w.wb[W_BLK, c] = 0
    w.wb[W_BLK, st[A.S_CELL]] = 1
    if g.rules[R_MON_BLOCK]:
        for i in range(st[A.S_N_MON]):
            if alive(st, i):
                w.wb[W_BLK, st[mslot(i) + A.MF_CELL]] = 1


@njit(cache=CACHE, inline="always", _nrt=False)
def lava_ok(g, kind):
    """A monster of ``kind`` survives lava (knocked in by the rune): it flies or is immune."""
    return g.mons[kind, M_FLY] != 0 or g.mons[kind, M_LAVA_IMMUNE] != 0


@njit(cache=CACHE, inline="always", _nrt=False)
def lava_walk(g, kind):
    """A monster of ``kind`` may step onto lava (``combat.lava_walker``, which prices its step too)."""
    return lava_walker(g.rules, g.mons, kind)


@njit(cache=CACHE, _nrt=False)
def step_cost(g, kind, cell):
    """DM AP for a monster of ``kind`` to step onto ``cell`` (combat.monster_move_cost: water doubles it unless
    it flies)."""
    t = tile(g, cell)
    return monster_move_cost(g.rules, g.mons, kind, t == A.T_WATER, t == A.T_LAVA)


@njit(cache=CACHE, _nrt=False)
def advance(g, w, st, dice, slot):
    """A monster shot at from range advances one tile towards the player (free)."""
    b = mslot(slot)
    kind = st[b + A.MF_KIND]
    lava = lava_walk(g, kind)
    if not mon_field_fresh(st, lava):
        mon_field(g, w, st, lava)
    d = w.wi[W_ML] if lava else w.wi[W_MG]
    set_blocked(g, w, st)
    nxt = first_step(d, st[A.S_ROWS], st[A.S_COLS], st[b + A.MF_CELL], w.wb[W_BLK])
    if nxt >= 0:
        ev(dice.trace, st, A.E_MON_MOVE, slot, kind, st[b + A.MF_CELL], nxt, 0, 1, 0, 0)
        st[b + A.MF_CELL] = nxt
        if g.mons[kind, M_STORM] and tile(g, nxt) == A.T_WATER:  # "once the Storm Golem has moved into the water"
            electrify(g, w, st, dice, slot)


# --- the player's turn --------------------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def route_fields(g, w, st):
    """The advice fields, computed once per map version (monsters are ignored): ``dg`` steps to the goal (the
    exit, or the key nearest the player when the exit is shut), ``dl`` steps to the nearest thing still to loot
    (a crate, barrel, chest, magic chest, sarcophagus, shrine or key).

    Cheaper, same fields: the passability the fields were last computed over is kept in ``d2``; when a new
    map version leaves it as it was and the goal stays the same cell, ``dg`` is kept and only ``dl`` is redone.
    While the exit is the goal, whether it still is is read from the exit's own field (steps are symmetric, the
    teleporters included), so the player's field ``d1`` is only swept when the exit is shut."""
    rows = st[A.S_ROWS]
    cols = st[A.S_COLS]
    n = rows * cols
    ta = g.lv[A.LV_TELE_A]
    tb = g.lv[A.LV_TELE_B]
    # the rows of the scratch (``Work``) it reads and writes
    th = w.wl[W_TH]
    q = w.wl[W_Q]
    pas = w.wb[W_PAS]
    d1 = w.wi[W_D1]
    d2 = w.wi[W_D2]
    d3 = w.wi[W_D3]
    dg = w.wi[W_DG]
    dl = w.wi[W_DL]
    # a game's first computation (the level's start: no thing used, no key, no door opened) is the same for every
    # game of the chunk that asks from the same tile: the first one's is kept (W_SNAP) and copied
    first = st[A.S_RC_V] < 0 and st[A.S_MAPV] == 0 and st[A.S_PASV] == 0 and st[A.S_D1_SRC] < 0
    snap = w.wl[W_SNAP]
    if first and snap[SN_FIELDS] != 0 and snap[SN_CELL] == st[A.S_CELL]:
        for c in range(n):
            d1[c] = w.wi[W_D1_0, c]
            d2[c] = w.wi[W_D2_0, c]
            pas[c] = w.wi[W_D2_0, c]
            dg[c] = w.wi[W_DG_0, c]
            dl[c] = w.wi[W_DL_0, c]
        st[A.S_RC_PASV] = st[A.S_PASV]
        st[A.S_D1_SRC] = st[A.S_CELL]
        st[A.S_D1_V] = st[A.S_PASV]
        st[A.S_GOAL_CELL] = snap[SN_GOAL_CELL]
        st[A.S_RC_V] = st[A.S_MAPV]
    elif st[A.S_RC_V] != st[A.S_MAPV]:
        keys = st[A.S_KEYS]
        col0 = lv_color(g.lv)
        same = st[A.S_RC_V] >= 0  # fields of this game exist, over the passability in d2
        # Only a key taken or a door opened changes the passability (S_PASV): a crate or barrel was passable and
        # its tile is; a used chest, sarcophagus or shrine was not and is not. Otherwise pas and d2 stand.
        if not same or st[A.S_RC_PASV] != st[A.S_PASV]:
            for c in range(n):
                t = th[c]
                ok = walkable(tile(g, c)) and (t == A.X_NONE or t == A.X_CRATE or t == A.X_BARREL or t == A.X_KEY or (
                    t == A.X_DOOR and (keys >> g.lv[col0 + c]) & 1))
                v = 1 if ok else 0
                pas[c] = v
                if d2[c] != v:
                    same = False
                    d2[c] = v
            st[A.S_RC_PASV] = st[A.S_PASV]
        p = st[A.S_CELL]
        goal = st[A.S_EXIT]
        prev = st[A.S_GOAL_CELL]
        # The exit is reachable from p (the d1 test of the full sweep) iff p is the exit, or p and the exit are
        # both passable and the exit's field reaches p. The exit was the goal: keep its field if the passability
        # stands and it still reaches p, else sweep it first.
        have = prev if same else -1  # the cell whose field over this passability dg holds, -1 none
        open_way = False
        if st[A.S_RC_V] >= 0 and prev == goal and pas[p] != 0:
            if have != goal:
                bfs(pas, rows, cols, goal, ta, tb, dg, q)
                have = goal
            open_way = p == goal or (pas[goal] != 0 and dg[p] >= 0)
        if not open_way:
            # d1 swept from another tile of p's part over this passability reaches the same tiles: when it
            # reaches the exit, or one key or none, the goal is known without a new sweep from p
            src = st[A.S_D1_SRC]
            fresh = True
            best = -1
            if (src >= 0 and st[A.S_D1_V] == st[A.S_PASV] and pas[src] != 0 and pas[p] != 0 and d1[p] >= 0):
                fresh = False
                if d1[goal] < 0:
                    keys_in_reach = 0
                    for c in range(n):
                        if th[c] == A.X_KEY and d1[c] >= 0:
                            keys_in_reach += 1
                            if keys_in_reach == 1:
                                best = c
                    if keys_in_reach == 1:
                        goal = best
                    elif keys_in_reach > 1:
                        fresh = True
            if fresh:
                bfs(pas, rows, cols, p, ta, tb, d1, q)
                st[A.S_D1_SRC] = p
                st[A.S_D1_V] = st[A.S_PASV]
                if d1[goal] < 0:
                    best = -1
                    for c in range(n):
                        if th[c] == A.X_KEY and d1[c] >= 0 and (best < 0 or d1[c] < d1[best]):
                            best = c
                    if best >= 0:
                        goal = best
            if have != goal:
                bfs(pas, rows, cols, goal, ta, tb, dg, q)
        st[A.S_GOAL_CELL] = goal
        # every thing to loot is a source of the loot field; over the same passability (things only go
        # away), the field of the sources that went away is redone where they were the nearest
        tail = np.int64(0)
        if same:
            for c in range(n):
                if dl[c] == 0:
                    t = th[c]
                    if not (t != A.X_NONE and t != A.X_DOOR and t < A.X_USED):
                        q[tail] = c
                        tail += 1
            if tail > 0:
                unspread(pas, rows, cols, ta, tb, dl, q, d3, tail)
        else:
            for c in range(n):
                t = th[c]
                if t != A.X_NONE and t != A.X_DOOR and t < A.X_USED:
                    dl[c] = 0
                    q[tail] = c
                    tail += 1
                else:
                    dl[c] = -1
            spread(pas, rows, cols, ta, tb, dl, q, tail)
        st[A.S_RC_V] = st[A.S_MAPV]
        if first and st[A.S_D1_SRC] == p:
            for c in range(n):
                w.wi[W_D1_0, c] = d1[c]
                w.wi[W_D2_0, c] = d2[c]
                w.wi[W_DG_0, c] = dg[c]
                w.wi[W_DL_0, c] = dl[c]
            snap[SN_CELL] = p
            snap[SN_GOAL_CELL] = st[A.S_GOAL_CELL]
            snap[SN_FIELDS] = 1
    st[A.S_GOAL] = dg[st[A.S_CELL]]
    st[A.S_LOOT_DIST] = dl[st[A.S_CELL]]


@njit(cache=CACHE, _nrt=False)
def can_rest(g, w, st):
    """Resting is refused while an awake monster sees the player or (``rulings.advancing`` =
    "awake_with_path") has a way to them."""
    if st[A.S_AWAKE] == 0:
        return True
    p = st[A.S_CELL]
    path = g.rules[R_ADVANCING] == ADV_AWAKE_WITH_PATH
    for i in range(st[A.S_N_MON]):
        b = mslot(i)
        if st[b + A.MF_STATE] != A.MS_AWAKE:
            continue
        cell = st[b + A.MF_CELL]
        if sees(w, st, cell, p):
            return False
        if path:
            if mon_reaches(g, w, st, lava_walk(g, st[b + A.MF_KIND]), cell):
                return False
    return True


@njit(cache=CACHE, _nrt=False)
def weapon_worth(g, r):
    """A weapon's worth for the menus' advice: twice its bonus, plus its bonus against a kind, plus 1 for reach."""
    return 2 * g.weapons[r, W_BONUS] + g.weapons[r, W_VS_BONUS] + (1 if g.weapons[r, W_REACH] > 0 else 0)


@njit(cache=CACHE, _nrt=False)
def armor_worth(g, r):
    """An armour's worth for the menus' advice: twice its defence plus its AP, minus 3 if it slows moving."""
    return 2 * g.armors[r, A_DEF] + g.armors[r, A_AP] - (3 if g.armors[r, A_MOVE_PCT] > 100 else 0)


@njit(cache=CACHE, inline="always", _nrt=False)
def _pick4(k, a, b, c, d):
    return a if k == 0 else (b if k == 1 else (c if k == 2 else d))


@njit(cache=CACHE, _nrt=False)
def player_menu(g, w, st):
    """Every legal action of the player now, with the kernel's advice; the last row ends the turn."""
    opts = w.opts
    th = w.wl[W_TH]
    dg = w.wi[W_DG]
    dl = w.wi[W_DL]
    rows = st[A.S_ROWS]
    cols = st[A.S_COLS]
    p = st[A.S_CELL]
    ap = st[A.S_AP]
    # the calls only when they have work (an argument list of g, w, st is about 90 machine words)
    rest = st[A.S_AWAKE] == 0 or can_rest(g, w, st)
    st[A.S_CAN_REST] = 1 if rest else 0
    if st[A.S_RC_V] != st[A.S_MAPV]:
        route_fields(g, w, st)
    st[A.S_GOAL] = dg[p]
    st[A.S_LOOT_DIST] = dl[p]
    # the living monster on each neighbouring tile (mon_at of each, in one pass over the monsters)
    n0 = nb_rc(w, rows, cols, p, 0)
    n1 = nb_rc(w, rows, cols, p, 1)
    n2 = nb_rc(w, rows, cols, p, 2)
    n3 = nb_rc(w, rows, cols, p, 3)
    m0 = -1
    m1 = -1
    m2 = -1
    m3 = -1
    for i in range(st[A.S_N_MON]):
        b = mslot(i)
        if st[b + A.MF_STATE] != A.MS_DEAD:
            cell = st[b + A.MF_CELL]
            if cell == n0 and m0 < 0:
                m0 = i
            elif cell == n1 and m1 < 0:
                m1 = i
            elif cell == n2 and m2 < 0:
                m2 = i
            elif cell == n3 and m3 < 0:
                m3 = i
    combat = np.bool_(False)
    for k in range(4):
        m = _pick4(k, m0, m1, m2, m3)
        if m >= 0 and st[mslot(m) + A.MF_STATE] == A.MS_AWAKE:
            combat = np.bool_(True)
    block = g.rules[R_MON_BLOCK] != 0
    n = np.int64(0)
    # moves
    for k in range(5):
        if k < 4:
            dest = _pick4(k, n0, n1, n2, n3)
        elif p == g.lv[A.LV_TELE_A]:
            dest = g.lv[A.LV_TELE_B]
        elif p == g.lv[A.LV_TELE_B]:
            dest = g.lv[A.LV_TELE_A]
        else:
            dest = -1
        if dest < 0 or not walkable(tile(g, dest)) or th[dest] != A.X_NONE:
            continue
        if block and (mon_at(st, dest) if k == 4 else _pick4(k, m0, m1, m2, m3)) >= 0:
            continue
        cost = move_cost(g.rules, g.armors, st[A.S_ARMOR], combat, tile(g, dest) == A.T_WATER)
        if cost <= ap:
            n = add_row(opts, n, A.A_MOVE, k, dest, cost, dg[dest], dl[dest], 0, -1)
    # attacks
    reach = g.weapons[st[A.S_WEAPON], W_REACH]
    if g.rules[R_ATTACK] <= ap:
        for i in range(st[A.S_N_MON]):
            if not alive(st, i):
                continue
            b = mslot(i)
            cell = st[b + A.MF_CELL]
            if dist_rc(w, p, cell) == 1 or in_line(g, w, st, p, cell, reach):
                n = add_row(opts, n, A.A_ATTACK, i, cell, g.rules[R_ATTACK], dg[cell], dl[cell], st[b + A.MF_HP],
                            i)
    # interactions
    if g.rules[R_INTERACT] <= ap:
        for k in range(4):
            nb = _pick4(k, n0, n1, n2, n3)
            if nb < 0:
                continue
            t = th[nb]
            if t == A.X_NONE or t >= A.X_USED:
                continue
            if t == A.X_DOOR and not (st[A.S_KEYS] >> g.lv[lv_color(g.lv) + nb]) & 1:
                continue
            clears = t == A.X_CRATE or t == A.X_BARREL or t == A.X_KEY or t == A.X_DOOR
            goal = dg[nb] if clears else -1
            loot = 0 if t != A.X_DOOR else dl[nb]
            n = add_row(opts, n, A.A_INTERACT, t, nb, g.rules[R_INTERACT], goal, loot, 0, -1)
    # items
    use = g.rules[R_USE]
    if use <= ap:
        room = st[A.S_HP_CAP] - st[A.S_HP]
        if st[A.S_FOOD] > 0:
            n = add_row(opts, n, A.A_USE, A.U_FOOD, -1, use, -1, -1, min(room, g.rules[R_FOOD_HEAL]), -1)
        if st[A.S_POTIONS + 0] > 0:
            n = add_row(opts, n, A.A_USE, A.U_HEALTH, -1, use, -1, -1, min(room, g.rules[R_HEALTH_POTION]), -1)
        if st[A.S_POTIONS + 1] > 0:
            n = add_row(opts, n, A.A_USE, A.U_STAMINA, -1, use, -1, -1, g.rules[R_STAMINA_POTION] - use, -1)
        if st[A.S_POTIONS + 2] > 0:
            n = add_row(opts, n, A.A_USE, A.U_MYSTERY, -1, use, -1, -1, 0, -1)
        magic = st[A.S_MAGIC]
        if magic & (1 << MG_BERSERK) and st[A.S_BERSERK] == 0:
            n = add_row(opts, n, A.A_USE, A.U_BERSERK, -1, use, -1, -1, 0, -1)
        if magic & (1 << MG_RUNE):
            adj = 0
            for k in range(4):
                if _pick4(k, m0, m1, m2, m3) >= 0:
                    adj += 1
            if adj > 0:
                n = add_row(opts, n, A.A_USE, A.U_RUNE, -1, use, -1, -1, adj, -1)
        if magic & (1 << MG_HOLY_BOLT):
            for k in range(4):
                c = p
                while True:
                    c = nb_rc(w, rows, cols, c, k)
                    if c < 0 or w.wb[W_OPQ, c] != 0:
                        break
                    m = mon_at(st, c)
                    if m >= 0:
                        undead = g.mons[st[mslot(m) + A.MF_KIND], M_KIND] == K_UNDEAD
                        n = add_row(opts, n, A.A_USE, A.U_HOLY_BOLT, c, use, -1, -1,
                                    g.rules[R_HOLY_BOLT] if undead else 0, m)
                        break
        if magic & (1 << MG_TELEPORT):
            for k in range(4):
                best = -1
                c = p
                for _ in range(g.rules[R_TELEPORT_RANGE]):
                    c = nb_rc(w, rows, cols, c, k)
                    if c < 0:
                        break
                    if walkable(tile(g, c)) and th[c] == A.X_NONE and mon_at(st, c) < 0:
                        if best < 0 or (dg[c] >= 0 and (dg[best] < 0 or dg[c] < dg[best])):
                            best = c
                if best >= 0:
                    n = add_row(opts, n, A.A_USE, A.U_TELEPORT, best, use, dg[best], dl[best], k, -1)
        now = weapon_worth(g, st[A.S_WEAPON])
        for r in range(1, g.weapons.shape[0]):
            if st[A.S_WEAPONS] & (1 << r) and r != st[A.S_WEAPON]:
                n = add_row(opts, n, A.A_EQUIP, r, -1, use, now, -1, weapon_worth(g, r), -1)
        now = armor_worth(g, st[A.S_ARMOR])
        for r in range(1, g.armors.shape[0]):
            if st[A.S_ARMORS] & (1 << r) and r != st[A.S_ARMOR]:
                n = add_row(opts, n, A.A_EQUIP, A.EQ_ARMOR + r, -1, use, now, -1, armor_worth(g, r), -1)
    if rest and n < A.MAX_OPTIONS - 1:
        n = add_row(opts, n, A.A_REST, 0, -1, 0, -1, -1, 0, -1)
    if n >= A.MAX_OPTIONS:
        n = A.MAX_OPTIONS - 1
    n = add_row(opts, n, A.A_END, 0, -1, 0, -1, -1, 0, -1)
    return n


@njit(cache=CACHE, _nrt=False)
def spend(st, ap, kind):
    st[A.S_AP] -= ap
    st[A.S_AP_BY + kind] += ap


@njit(cache=CACHE, _nrt=False)
def use_item(g, w, st, dice, item, cell, arg_mon, value):
    rows = st[A.S_ROWS]
    cols = st[A.S_COLS]
    p = st[A.S_CELL]
    st[A.S_USED] += 1
    v = 0
    if item == A.U_FOOD:
        st[A.S_FOOD] -= 1
        v = heal(st, g.rules[R_FOOD_HEAL])
    elif item == A.U_HEALTH:
        st[A.S_POTIONS + 0] -= 1
        v = heal(st, g.rules[R_HEALTH_POTION])
    elif item == A.U_STAMINA:
        st[A.S_POTIONS + 1] -= 1
        st[A.S_AP] += g.rules[R_STAMINA_POTION]
        v = g.rules[R_STAMINA_POTION]
    elif item == A.U_MYSTERY:
        st[A.S_POTIONS + 2] -= 1
        mode = g.rules[R_MYSTERY]
        if mode == MYSTERY_HEALTH:
            v = heal(st, g.rules[R_HEALTH_POTION])
        elif mode == MYSTERY_STAMINA:
            st[A.S_AP] += g.rules[R_STAMINA_POTION]
            v = g.rules[R_STAMINA_POTION]
        elif mode == MYSTERY_GAMBLE:
            f = d6(dice.rs, dice.script)
            if f <= 3:
                v = heal(st, g.rules[R_GAMBLE_HP])
            else:
                v = -g.rules[R_GAMBLE_HP]
    elif item == A.U_BERSERK:
        st[A.S_MAGIC] &= ~(1 << MG_BERSERK)
        st[A.S_BERSERK] = 1
    elif item == A.U_RUNE:
        st[A.S_MAGIC] &= ~(1 << MG_RUNE)
    elif item == A.U_HOLY_BOLT:
        st[A.S_MAGIC] &= ~(1 << MG_HOLY_BOLT)
    elif item == A.U_TELEPORT:
        st[A.S_MAGIC] &= ~(1 << MG_TELEPORT)
    ev(dice.trace, st, A.E_USE, item, v, st[A.S_HP], st[A.S_AP], 0, 0, 0, 0)
    if item == A.U_MYSTERY and v < 0:
        hurt_player(g, w, st, dice, -v, A.CAUSE_POTION, np.int64(-1))
    elif item == A.U_RUNE:
        for k in range(4):
            nb = neighbour(rows, cols, p, k)
            m = mon_at(st, nb) if nb >= 0 else -1
            if m < 0:
                continue
            b = mslot(m)
            kind = st[b + A.MF_KIND]
            steps = g.rules[R_RUNE_LARGE] if g.mons[kind, M_LARGE] else g.rules[R_RUNE_SMALL]
            c = nb
            died = 0
            for _ in range(steps):
                nxt = neighbour(rows, cols, c, k)
                if nxt < 0 or tile(g, nxt) == A.T_WALL or w.wl[W_TH, nxt] != A.X_NONE or mon_at(st, nxt) >= 0:
                    break
                c = nxt
                if tile(g, c) == A.T_LAVA and not lava_ok(g, kind):
                    died = 1
                    break
            ev(dice.trace, st, A.E_KNOCK, m, kind, nb, c, died, 0, 0, 0)
            st[b + A.MF_CELL] = c
            if died:
                kill_mon(g, w, st, dice, m, np.int64(1), np.bool_(False))
    elif item == A.U_HOLY_BOLT:
        m = arg_mon
        if m >= 0 and alive(st, m):
            kind = st[mslot(m) + A.MF_KIND]
            dmg = g.rules[R_HOLY_BOLT] if g.mons[kind, M_KIND] == K_UNDEAD else 0
            ev(dice.trace, st, A.E_BOLT, m, kind, dmg, 0, 0, 0, 0, 0)
            hurt_mon(g, w, st, dice, m, dmg, np.int64(1))
    elif item == A.U_TELEPORT:
        c = p
        for _ in range(dist1(cols, p, cell)):
            c = neighbour(rows, cols, c, value)
            if w.wl[W_TH, c] == A.X_DOOR:
                open_door(g, w, st, dice, c)
        ev(dice.trace, st, A.E_TELEPORT, p, cell, 0, 0, 0, 0, 0, 0)
        st[A.S_CELL] = cell
        arrive(g, w, st, dice)


@njit(cache=CACHE, _nrt=False)
def arrive(g, w, st, dice):
    """The player stands on a new tile: the exit wins; sleeping monsters that see them wake."""
    if st[A.S_CELL] == st[A.S_EXIT] and g.rules[R_WINS_ON_EXIT]:
        st[A.S_WON] = 1
    wake_all(g, w, st, dice)


@njit(cache=CACHE, inline="always", _nrt=False)
def move(g, w, st, dice, c):
    """The player takes the move of menu row ``c`` (``A_MOVE``). Written into ``player_turn`` (the commonest
    action, without ``player_act``'s call of about 130 machine words)."""
    cell = w.opts[c, A.O_CELL]
    cost = w.opts[c, A.O_COST]
    spend(st, cost, A.AK_MOVE)
    ev(dice.trace, st, A.E_MOVE, st[A.S_CELL], cell, cost, st[A.S_AP], w.opts[c, A.O_ARG], 0, 0, 0)
    st[A.S_CELL] = cell
    arrive(g, w, st, dice)


@njit(cache=CACHE, _nrt=False)
def player_act(g, w, st, dice, c):
    """The player takes menu row ``c``: every action but a move (``player_turn`` takes those: ``move``), the end
    of the turn or a rest."""
    opts = w.opts
    act = opts[c, A.O_ACTION]
    arg = opts[c, A.O_ARG]
    cell = opts[c, A.O_CELL]
    cost = opts[c, A.O_COST]
    if act == A.A_ATTACK:
        spend(st, cost, A.AK_ATTACK)
        b = mslot(arg)
        if st[b + A.MF_STATE] == A.MS_ASLEEP:
            st[b + A.MF_STATE] = A.MS_AWAKE
            st[A.S_AWAKE] += 1
            ev(dice.trace, st, A.E_WAKE, arg, st[b + A.MF_KIND], cell, 1, 0, 0, 0, 0)
        adjacent = dist1(st[A.S_COLS], st[A.S_CELL], cell) == 1
        ranged_weapon = g.weapons[st[A.S_WEAPON], W_REACH] > 0
        mode = MELEE
        if not adjacent or (ranged_weapon and g.rules[R_RANGED_ADJ] != RANGED_ADJ_MELEE):
            mode = PLAYER_RANGED
        fight(g, w, st, dice, arg, mode, np.int64(1))
        if not adjacent and alive(st, arg) and not st[A.S_DEAD]:
            advance(g, w, st, dice, arg)
    elif act == A.A_INTERACT:
        spend(st, cost, A.AK_INTERACT)
        interact(g, w, st, dice, cell)
    elif act == A.A_USE:
        spend(st, cost, A.AK_USE)
        use_item(g, w, st, dice, arg, cell, opts[c, A.O_MON], opts[c, A.O_VALUE])
    elif act == A.A_EQUIP:
        spend(st, cost, A.AK_USE)
        st[A.S_USED] += 1
        if arg >= A.EQ_ARMOR:
            st[A.S_ARMOR] = arg - A.EQ_ARMOR
        else:
            st[A.S_WEAPON] = arg
        ev(dice.trace, st, A.E_EQUIP, arg, st[A.S_AP], 0, 0, 0, 0, 0, 0)
    else:
        st[A.S_FAULT] += 1


@njit(cache=CACHE, _nrt=False)
def player_turn(g, w, st, dice):
    """The player's turn: full AP, then actions until the AP runs out, they end the turn or rest (True:
    the DM's turn is skipped), win or die."""
    st[A.S_PHASE] = 0
    decay = g.rules[R_OVERHEAL_DECAY]
    if decay > 0 and st[A.S_HP] > st[A.S_HP_CAP]:
        st[A.S_HP] = max(st[A.S_HP_CAP], st[A.S_HP] - decay)
    st[A.S_AP_MAX] = max_ap(g, st)
    st[A.S_AP] = st[A.S_AP_MAX]
    ev(dice.trace, st, A.E_TURN, st[A.S_HP], st[A.S_AP], st[A.S_CELL], st[A.S_AWAKE], 0, 0, 0, 0)
    rested = False
    if g.rules[R_ELECTRIC_TURNS] == ELECTRIC_EVERY_TURN and st[A.S_AWAKE] > 0:  # (only awake golems shock)
        electrify_all(g, w, st, dice)
        if st[A.S_DEAD]:
            return rested
    for _ in range(MAX_ACTIONS):
        n = player_menu(g, w, st)
        c = _decide(A.D_ACTION, st, w.opts, n, dice)
        act = w.opts[c, A.O_ACTION]
        if act == A.A_END:
            ev(dice.trace, st, A.E_END_TURN, st[A.S_AP], 0, 0, 0, 0, 0, 0, 0)
            break
        if act == A.A_REST:
            st[A.S_RESTS] += 1
            ev(dice.trace, st, A.E_REST, st[A.S_AP], 0, 0, 0, 0, 0, 0, 0)
            rested = True
            break
        if act == A.A_MOVE:
            move(g, w, st, dice, c)
        else:
            player_act(g, w, st, dice, c)
        if st[A.S_WON] or st[A.S_DEAD]:
            break
    st[A.S_BERSERK] = 0
    return rested


# --- the Dungeon Master's turn ---------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def spawn(g, w, st, dice):
    """The spawn roll at the start of the DM's turn, and the spawned monster (asleep) at a free spawn point."""
    opts = w.opts
    face = d6(dice.rs, dice.script)
    code = g.charts[C_SPAWN + face - 1]
    ev(dice.trace, st, A.E_SPAWN_ROLL, face, code, 0, 0, 0, 0, 0, 0)
    for _ in range(100):
        if code != SPAWN_REROLL:
            break
        face = d6(dice.rs, dice.script)
        code = g.charts[C_SPAWN + face - 1]
        ev(dice.trace, st, A.E_SPAWN_ROLL, face, code, 1, 0, 0, 0, 0, 0)
    if code == SPAWN_NOTHING or code == SPAWN_REROLL:
        return
    s0 = lv_spawn(g.lv)
    free = 0
    for j in range(g.lv[A.LV_N_SPAWN]):
        cell = g.lv[s0 + j]
        if mon_at(st, cell) < 0 and cell != st[A.S_CELL]:
            free += 1
    if free == 0:
        ev(dice.trace, st, A.E_NO_SPAWN, -1, 0, 0, 0, 0, 0, 0, 0)
        return
    n = np.int64(0)
    for k in range(g.mons.shape[0]):
        cat = g.mons[k, M_SPAWN_CAT]
        if cat >= 0 and (cat == code or code == SPAWN_ANY) and not g.mons[k, M_BOSS]:
            n = add_row(opts, n, A.A_SPAWN_KIND, k, -1, 0, -1, -1, g.mons[k, M_HP] * g.mons[k, M_DICE], -1)
    if n == 0:
        return
    if g.rules[R_SPAWN_OPTIONAL] and dice.pol.dm_pid == USER_POLICY_ID:  # the DM "may spawn": "no monster" last
        n = add_row(opts, n, A.A_SPAWN_KIND, -1, -1, 0, -1, -1, 0, -1)  # (the built-in DMs always spawn)
    kind = opts[decide(A.D_SPAWN_KIND, st, opts, n, dice), A.O_ARG]
    if kind < 0:
        ev(dice.trace, st, A.E_NO_SPAWN, -1, 2, 0, 0, 0, 0, 0, 0)
        return
    n = np.int64(0)
    for j in range(g.lv[A.LV_N_SPAWN]):
        cell = g.lv[s0 + j]
        if mon_at(st, cell) < 0 and cell != st[A.S_CELL]:
            n = add_row(opts, n, A.A_SPAWN_AT, j, cell, 0, -1, -1, dist1(st[A.S_COLS], cell, st[A.S_CELL]), -1)
    cell = opts[decide(A.D_SPAWN_AT, st, opts, n, dice), A.O_CELL]
    slot = add_mon(g, st, kind, cell, A.MS_ASLEEP)
    if slot >= 0:
        st[A.S_SPAWNED] += 1
        ev(dice.trace, st, A.E_SPAWN, slot, kind, cell, 0, 0, 0, 0, 0)
        wake_all(g, w, st, dice)


@njit(cache=CACHE, _nrt=False)
def dm_menu(g, w, st, ap):
    """Every awake monster's options (attack, shoot, step, revive) the DM's AP affords; the last row ends."""
    opts = w.opts
    p = st[A.S_CELL]
    cols = st[A.S_COLS]
    n = np.int64(0)
    set_blocked(g, w, st)
    for i in range(st[A.S_N_MON]):
        b = mslot(i)
        if st[b + A.MF_STATE] != A.MS_AWAKE:
            continue
        kind = st[b + A.MF_KIND]
        cell = st[b + A.MF_CELL]
        adj = dist_rc(w, cell, p) == 1
        atk = g.mons[kind, M_AP_ATTACK]
        if adj and atk <= ap:
            n = add_row(opts, n, A.A_M_ATTACK, i, p, atk, 0, -1, g.mons[kind, M_DICE], i)
        if not adj and atk <= ap and in_line(g, w, st, cell, p, g.mons[kind, M_RANGE]):
            n = add_row(opts, n, A.A_M_SHOOT, i, p, atk, dist_rc(w, cell, p), -1, g.mons[kind, M_DICE], i)
        if not adj:
            lava = lava_walk(g, kind)
            if not mon_field_fresh(st, lava):
                mon_field(g, w, st, lava)
            d = w.wi[W_ML] if lava else w.wi[W_MG]
            nxt = first_step(d, st[A.S_ROWS], cols, cell, w.wb[W_BLK])
            if nxt >= 0:
                cost = step_cost(g, kind, nxt)
                if cost <= ap:
                    n = add_row(opts, n, A.A_M_MOVE, i, nxt, cost, d[nxt], -1, d[cell], i)
        if g.mons[kind, M_REVIVER] and g.rules[R_REVIVE_AP] <= ap:
            for j in range(st[A.S_N_MON]):
                bj = mslot(j)
                cj = st[bj + A.MF_CELL]
                if (st[bj + A.MF_STATE] == A.MS_DEAD and st[bj + A.MF_CORPSE] and mon_at(st, cj) < 0 and cj != p
                        and sees(w, st, cell, cj)):
                    n = add_row(opts, n, A.A_M_REVIVE, j, cj, g.rules[R_REVIVE_AP], dist1(cols, cj, p), -1,
                                g.mons[st[bj + A.MF_KIND], M_HP], i)
        if n >= A.MAX_OPTIONS - 1:
            n = A.MAX_OPTIONS - 1
            break
    n = add_row(opts, n, A.A_DM_END, 0, -1, 0, -1, -1, 0, -1)
    return n


@njit(cache=CACHE, _nrt=False)
def dm_turn(g, w, st, dice):
    st[A.S_PHASE] = 1
    ev(dice.trace, st, A.E_DM_TURN, g.rules[R_DM_AP], st[A.S_AWAKE], 0, 0, 0, 0, 0, 0)
    if st[A.S_AWAKE] > 0:  # only awake golems shock (the call passes about 130 machine words)
        electrify_all(g, w, st, dice)
    if st[A.S_DEAD]:
        return
    spawn(g, w, st, dice)
    ap = g.rules[R_DM_AP]
    for _ in range(MAX_ACTIONS):
        st[A.S_AP] = ap
        if st[A.S_AWAKE] == 0:  # dm_menu would list only the end (only awake monsters act)
            break
        n = dm_menu(g, w, st, ap)
        if n <= 1:
            break
        c = _decide(A.D_DM_ACT, st, w.opts, n, dice)
        act = w.opts[c, A.O_ACTION]
        i = w.opts[c, A.O_ARG]
        cost = w.opts[c, A.O_COST]
        cell = w.opts[c, A.O_CELL]
        if act == A.A_DM_END:
            break
        ap -= cost
        if act == A.A_M_ATTACK:
            fight(g, w, st, dice, i, np.int64(MELEE), np.int64(0))
        elif act == A.A_M_SHOOT:
            fight(g, w, st, dice, i, np.int64(MONSTER_RANGED), np.int64(0))
        elif act == A.A_M_MOVE:
            b = mslot(i)
            ev(dice.trace, st, A.E_MON_MOVE, i, st[b + A.MF_KIND], st[b + A.MF_CELL], cell, cost, 0, ap, 0)
            st[b + A.MF_CELL] = cell
            if g.mons[st[b + A.MF_KIND], M_STORM] and tile(g, cell) == A.T_WATER:
                electrify(g, w, st, dice, i)
        elif act == A.A_M_REVIVE:
            bj = mslot(i)
            st[bj + A.MF_STATE] = A.MS_AWAKE
            st[bj + A.MF_HP] = g.mons[st[bj + A.MF_KIND], M_HP]
            st[bj + A.MF_CORPSE] = 0
            st[A.S_AWAKE] += 1
            st[A.S_REVIVED] += 1
            ev(dice.trace, st, A.E_REVIVE, i, st[bj + A.MF_KIND], cell, w.opts[c, A.O_MON], ap, 0, 0, 0)
        else:
            st[A.S_FAULT] += 1
        if st[A.S_DEAD]:
            break


# --- one game ---------------------------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def setup(g, w, st):
    lv = g.lv
    st[:] = 0
    rows = lv[A.LV_ROWS]
    cols = lv[A.LV_COLS]
    st[A.S_ROWS] = rows
    st[A.S_COLS] = cols
    st[A.S_EXIT] = lv[A.LV_EXIT]
    st[A.S_CELL] = lv[A.LV_START]
    st[A.S_HP] = g.rules[R_HP]
    st[A.S_HP_CAP] = g.rules[R_HP]
    st[A.S_WEAPON] = g.rules[R_START_WEAPON]  # player.weapon / player.armor: held and in use (row 0: none)
    st[A.S_ARMOR] = g.rules[R_START_ARMOR]
    if st[A.S_WEAPON] > 0:
        st[A.S_WEAPONS] = 1 << st[A.S_WEAPON]
    if st[A.S_ARMOR] > 0:
        st[A.S_ARMORS] = 1 << st[A.S_ARMOR]
    st[A.S_KILLER] = -1
    st[A.S_DEATH_CELL] = -1
    st[A.S_GOAL] = -1
    st[A.S_RC_V] = -1
    st[A.S_MC_G] = -1
    st[A.S_MC_L] = -1
    st[A.S_D1_SRC] = -1
    if w.wl[W_SNAP, SN_LEVEL] == 0:  # the chunk's first game (label_rooms below marks the level's tables done)
        for r in range(rows):
            for x in range(cols):
                w.wi[W_ROW, r * cols + x] = r
                w.wi[W_COL, r * cols + x] = x
    t0 = lv_thing(lv)
    for c in range(rows * cols):
        w.wl[W_TH, c] = lv[t0 + c]
        w.wb[W_OPQ, c] = 1 if (lv[LV_HDR + c] == A.T_WALL or lv[t0 + c] == A.X_DOOR) else 0
    label_rooms(w, rows, cols, np.bool_(True))
    m0 = lv_mon(lv)
    for k in range(lv[A.LV_N_MON]):
        add_mon(g, st, lv[m0 + 2 * k], lv[m0 + 2 * k + 1], A.MS_ASLEEP)


@njit(cache=CACHE, _nrt=False)
def play_game(g, w, st, dice):
    """A whole game; the result stays in ``st``."""
    setup(g, w, st)
    wake_all(g, w, st, dice)
    for t in range(1, g.rules[R_TURN_CAP] + 1):
        st[A.S_TURN] = t
        rested = player_turn(g, w, st, dice)
        if st[A.S_WON] or st[A.S_DEAD] or st[A.S_FAULT]:
            break
        if not rested:
            dm_turn(g, w, st, dice)
            if st[A.S_DEAD] or st[A.S_FAULT]:
                break
        elif g.rules[R_REST_SPAWN] == REST_SPAWN_ROLLED:  # the rest skips the DM's turn but its spawn roll
            st[A.S_PHASE] = 1
            spawn(g, w, st, dice)
    if not st[A.S_WON] and not st[A.S_DEAD]:
        st[A.S_CAUSE] = A.CAUSE_TURN_CAP
    ev(dice.trace, st, A.E_END, st[A.S_WON], st[A.S_CAUSE], st[A.S_HP], st[A.S_KILLER], st[A.S_DEATH_CELL],
       st[A.S_KILLS], 0, 0)


@njit(cache=CACHE, _nrt=False)
def write_out(g, st, out, r, game):
    """Game ``r``'s outcome into row ``r`` of ``out`` (one column per output, as declared in outputs.py)."""
    out[r, A.OUT_GAME] = game
    out[r, A.OUT_WIN] = st[A.S_WON]
    out[r, A.OUT_TURNS] = st[A.S_TURN]
    out[r, A.OUT_HP_LEFT] = st[A.S_HP]
    out[r, A.OUT_DEATH_CAUSE] = st[A.S_CAUSE]
    out[r, A.OUT_KILLER] = st[A.S_KILLER]
    out[r, A.OUT_DEATH_CELL] = st[A.S_DEATH_CELL]
    out[r, A.OUT_KILLS] = st[A.S_KILLS]
    out[r, A.OUT_LOOT] = st[A.S_LOOT]
    out[r, A.OUT_USED] = st[A.S_USED]
    out[r, A.OUT_AP_MOVE] = st[A.S_AP_BY + A.AK_MOVE]
    out[r, A.OUT_AP_ATTACK] = st[A.S_AP_BY + A.AK_ATTACK]
    out[r, A.OUT_AP_INTERACT] = st[A.S_AP_BY + A.AK_INTERACT]
    out[r, A.OUT_AP_USE] = st[A.S_AP_BY + A.AK_USE]
    out[r, A.OUT_RES] = st[A.S_RES]
    out[r, A.OUT_SPAWNED] = st[A.S_SPAWNED]
    out[r, A.OUT_RESTS] = st[A.S_RESTS]
    out[r, A.OUT_BAD] = st[A.S_BAD] + 1000 * st[A.S_FAULT]
    out[r, A.OUT_DECISIONS] = st[A.S_NDEC]
    for k in range(g.mons.shape[0]):
        out[r, A.OUT_KILLS_KIND + k] = st[A.S_KILLS_KIND + k] if k < A.MAX_KINDS else 0


def _kernel(rules, mons, weapons, armors, charts, lv, ctl, params, dm_params, user_fn, dm_fn, seed, script, out,
            trace):
    """Games ``ctl[1] .. ctl[1]+ctl[2]-1`` of stream ``seed``; ``ctl`` = (player policy id, start, count, DM
    policy id). One ``prange`` iteration per CHUNK of games, scratch allocated once per chunk."""
    pid = ctl[0]
    start = ctl[1]
    count = ctl[2]
    dm_pid = ctl[3]
    n = lv[A.LV_ROWS] * lv[A.LV_COLS]
    nchunks = (count + CHUNK - 1) // CHUNK
    for c in prange(nchunks):
        # thread-local copies, passed on as borrowed views (see ``borrow``)
        ru = rules.copy()
        mo = mons.copy()
        we = weapons.copy()
        ar = armors.copy()
        ch = charts.copy()
        le = lv.copy()
        wl = np.zeros((W_L_ROWS, max(n, T_SIZE, X_SIZE)), np.int64)
        wi = np.zeros((W_I_ROWS, n), np.int32)
        wb = np.zeros((W_B_ROWS, n), np.uint8)
        opts = np.zeros((A.MAX_OPTIONS, A.N_OCOLS), np.int64)
        st = np.zeros(A.STATE_SIZE, np.int64)
        rs = np.zeros(4, np.uint64)
        sc = script.copy()
        tr = trace if trace.shape[0] > 1 else np.zeros((0, A.TRACE_COLS), np.int64)
        pa = params.copy()
        dpa = dm_params.copy()
        g = Game(borrow(ru), borrow(mo), borrow(we), borrow(ar), borrow(ch), borrow(le))
        w = Work(borrow(wl), borrow(wi), borrow(wb), borrow(opts))
        pol = Pol(pid, borrow(pa), user_fn, dm_pid, borrow(dpa), dm_fn)
        b_st = borrow(st)
        b_rs = borrow(rs)
        b_out = borrow(out)
        dice = Dice(b_rs, borrow(sc), borrow(tr), pol)
        for i in range(c * CHUNK, min(count, (c + 1) * CHUNK)):
            seed_stream(b_rs, seed, start + i)
            play_game(g, w, b_st, dice)
            write_out(g, b_st, b_out, i, start + i)
        keep_alive(ru, mo, we, ar, ch, le, wl, wi)
        keep_alive(wb, opts, st, rs, sc, tr, pa, dpa)


KERNEL_SIG = types.void(
    types.int64[::1],
    types.int64[:, ::1],
    types.int64[:, ::1],
    types.int64[:, ::1],
    types.int64[::1],
    types.int64[::1],
    types.int64[::1],
    types.float64[::1],
    types.float64[::1],
    POLICY_TYPE,
    POLICY_TYPE,
    types.uint64,
    types.int64[::1],
    types.int64[:, ::1],
    types.int64[:, ::1],
)
TRACE_COLS = A.TRACE_COLS


def _entries():
    from ...config import CompiledOnFirstUse

    return {"simulate": CompiledOnFirstUse(__name__, KERNEL_SIG, _kernel, parallel=True)}


_ENTRIES = _entries()


def entry(name: str):
    """The compiled entry point ``"simulate"`` (parallel, many games; one game with a trace when ``count`` is 1
    and the trace has rows)."""
    return _ENTRIES[name]()
