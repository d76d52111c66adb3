"""Companion allocation: defeat every monster (and keep a dragon-beating set) at the least cost.

Every companion defeats one monster of any type; some *sweep* (defeat all monsters of a type).
So an allocation is: a sweeper (or none) for each monster type present, then enough single kills
from the other units; ``extra_defeat`` powers add kills. The search enumerates every sweeper
assignment and fills the kills cheapest-first, which is exact for feasibility (every unit can
kill any monster singly). When the dragon is coming, every distinct-type dragon set is reserved
first (``_kills_beside_dragon``), so "clear the monsters AND beat the dragon" is found whenever
it exists. ``tests/test_delve_solver.py`` checks this against a brute force over all assignments.

Units (``api.U_*``) have a count and a role mask (bit r: may act as companion type r). Everything
lives in rows of one scratch array ``w`` (``W_*``): numba increfs every array argument of every call,
so few array arguments keep the solver fast.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...config import CACHE
from . import layout as A

#: What spending one unit costs, in the built-in preference order: temporary companions are free
#: (discarded at regroup anyway), a scroll die used as a companion is the least useful die,
#: champions and thieves are the most useful, tokens cost end-game points, the hero costs its
#: ultimate. Policies see these as ``O_COST``.
UNIT_COST = np.array([4, 4, 4, 5, 6, 3] + [1] * 6 + [9] * A.MAX_TREASURES + [12], dtype=np.int64)
#: Units in increasing cost, the order single kills are taken in.
UNIT_ORDER = np.argsort(UNIT_COST, kind="stable").astype(np.int64)


#: Rows of the scratch array ``w`` (int64[W_ROWS, W_COLS]).
W_SWEEPER, W_USE, W_DSET, W_TAKEN, W_WORK, W_AVAIL, W_CAND = 0, 1, 2, 3, 4, 5, 6  # W_CAND: 3 rows
W_CNT, W_MASK, W_EXTRA, W_SWEEP, W_MON = 9, 10, 11, 12, 13  # the inputs: filled by kernel.load_units
W_CAP, W_ACT = 14, 15  # active units (cost order) and their kill capacity
W_NCAND, W_LIST, W_CHOICE = 16, 17, 18  # candidates per type; the engine's units held; a stack
W_TARGET = 19  # the engine's scratch: targets of an ultimate, a saved dungeon
W_LOW, W_PART = 20, 21  # the dragon search's lower bounds: cheapest unit per role, cost so far
W_LIVE, W_LIVE_ID = 22, 23  # the units that can ever be held, in cost order and in unit order
W_RANK = 24  # the engine's party ranks (6 rows: ``kernel.party_index``)
W_ROWS, W_COLS = 30, 40
LIVE_N = W_COLS - 1  # w[W_LIVE, LIVE_N]: how many


@njit(cache=CACHE, _nrt=False)
def set_live(w, live):
    """Only units with ``live[u]`` != 0 can ever be held (the others keep count 0): list them in
    ``w[W_LIVE]`` (cost order) and ``w[W_LIVE_ID]`` (unit order), so loops skip the others."""
    n = 0
    for i in range(A.N_UNITS):
        u = UNIT_ORDER[i]
        if live[u] != 0:
            w[W_LIVE, n] = u
            n += 1
    w[W_LIVE, LIVE_N] = n
    n = 0
    for u in range(A.N_UNITS):
        if live[u] != 0:
            w[W_LIVE_ID, n] = u
            n += 1
    w[W_LIVE_ID, LIVE_N] = n


@njit(cache=CACHE)
def new_scratch():
    """A scratch array ``w`` in which every unit may be held (for the solver on its own)."""
    w = np.zeros((W_ROWS, W_COLS), dtype=np.int64)
    set_live(w, np.ones(A.N_UNITS, dtype=np.int64))
    return w


@njit(cache=CACHE, inline="always", _nrt=False)
def _active(w):
    """List the units present (count > 0, some role) in cost order, with their kill capacity
    (1 + the most extra kills any of their roles brings); returns how many. The list is built
    without a branch per unit (each unit is written, then kept or overwritten)."""
    k = np.int64(0)  # typed: numba types a loop-carried literal 0 as Literal[int](0) first, and compiles the
    # callees this count reaches (``_kills_beside_dragon``, ``_insert``, ``_best_plain``) for it too
    for i in range(w[W_LIVE, LIVE_N]):
        u = w[W_LIVE, i]
        w[W_ACT, k] = u
        w[W_CAP, k] = 1
        k += (w[W_CNT, u] > 0) & (w[W_MASK, u] != 0)
    extra = 0
    for r in range(A.N_ROLES):
        extra |= w[W_EXTRA, r]
    if extra != 0:
        for j in range(k):
            m = w[W_MASK, w[W_ACT, j]]
            best = 0
            for r in range(A.N_ROLES):
                if (m >> r) & 1 and w[W_EXTRA, r] > best:
                    best = w[W_EXTRA, r]
            w[W_CAP, j] = 1 + best
    return k


@njit(cache=CACHE, inline="always", _nrt=False)
def _cheapest_kills(w, kills, na, out):
    """Units for ``kills`` single kills, cheapest first, from ``w[W_AVAIL] - w[W_TAKEN]`` into
    ``w[out]``; returns their cost plus the cost of ``w[W_TAKEN]``, or -1 if they fall short."""
    c = 0
    for j in range(na):
        u = w[W_ACT, j]
        w[out, u] = 0
        c += w[W_TAKEN, u] * UNIT_COST[u]
        free = w[W_AVAIL, u] - w[W_TAKEN, u]
        if kills > 0 and free > 0:
            cap = w[W_CAP, j]
            take = min(free, kills if cap == 1 else (kills + cap - 1) // cap)  # no division for 1
            w[out, u] = take
            kills -= take * cap
            c += take * UNIT_COST[u]
    return c if kills <= 0 else -1


def _mask_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Role masks by number of roles (ascending within each count), and the roles of each mask."""
    by_need = np.full((A.N_ROLES + 1, 1 << A.N_ROLES), -1, dtype=np.int64)
    n_by_need = np.zeros(A.N_ROLES + 1, dtype=np.int64)
    roles = np.zeros((1 << A.N_ROLES, A.N_ROLES), dtype=np.int64)
    for m in range(1 << A.N_ROLES):
        rs = [r for r in range(A.N_ROLES) if (m >> r) & 1]
        roles[m, : len(rs)] = rs
        by_need[len(rs), n_by_need[len(rs)]] = m
        n_by_need[len(rs)] += 1
    return by_need, n_by_need, roles


#: MASKS[k, :N_MASKS[k]]: role masks with k roles, ascending; MASK_ROLES[m, :k]: their roles.
MASKS, N_MASKS, MASK_ROLES = _mask_tables()
#: N_BITS[m]: roles in mask m.
N_BITS = np.array([bin(m).count("1") for m in range(1 << A.N_ROLES)], dtype=np.int64)
BIG = 1 << 40  # "no unit can play this role"


@njit(cache=CACHE, inline="always", _nrt=False)
def _next_unit(w, choice, roles, d, na):
    """One step of the dragon-set searches: release the unit chosen for role ``roles[d]`` (if any)
    and return the next one (cost order) still available that can play it, or ``na``."""
    if choice[d] >= 0:
        w[W_TAKEN, w[W_ACT, choice[d]]] -= 1
    i = choice[d] + 1
    while i < na:
        u = w[W_ACT, i]
        if w[W_AVAIL, u] - w[W_TAKEN, u] > 0 and (w[W_MASK, u] >> roles[d]) & 1:
            return i
        i += 1
    return na


@njit(cache=CACHE, _nrt=False)
def _kills_beside_dragon(w, kills, need, only, na):
    """Cheapest single kills (into ``w[W_USE]``) from ``w[W_AVAIL]`` that leave a dragon set of
    ``need`` types (into ``w[W_DSET]``). ``only`` >= 0 restricts the dragon's types to that role
    mask. Returns the cost of the kills plus the dragon set, or -1.

    The search visits role masks in ascending order and, for each role, units in cost order; the
    first cheapest plan wins. Branches whose lower bound (cheapest unit per remaining role, plus
    the kills' cost from the whole pool when every unit kills one) cannot beat the best plan found
    are skipped, which changes nothing but the time taken."""
    best = -1
    for i in range(na):
        u = w[W_ACT, i]
        w[W_USE, u] = 0
        w[W_DSET, u] = 0
        w[W_TAKEN, u] = 0
    if need <= 0:  # no dragon set to keep: the kills alone
        return _cheapest_kills(w, kills, na, W_USE)
    if need > A.N_ROLES:
        return -1
    # lower bounds: the cheapest unit able to play each role, and the kills from the whole pool
    low = w[W_LOW]
    for r in range(A.N_ROLES):
        low[r] = BIG
    for i in range(na - 1, -1, -1):
        u = w[W_ACT, i]
        if w[W_AVAIL, u] > 0:
            m = w[W_MASK, u]
            for r in range(A.N_ROLES):
                if (m >> r) & 1:
                    low[r] = UNIT_COST[u]
    kills_low = 0
    total_low = 0  # no plan costs less than the cheapest need + kills units of the pool
    if _unit_caps(w, na):
        total_low = _cheapest_kills(w, kills + need, na, W_WORK)
        if total_low < 0:
            return -1  # not even the whole pool has enough units
        if kills > 0:
            kills_low = _cheapest_kills(w, kills, na, W_WORK)
    choice = w[W_CHOICE]
    part = w[W_PART]  # part[d]: cost of the units chosen for roles 0..d-1, plus the bounds after
    for mi in range(N_MASKS[need]):
        m = MASKS[need, mi]
        if only >= 0 and m != only:
            continue
        roles = MASK_ROLES[m]
        bound = kills_low
        for j in range(need):
            bound += low[roles[j]]
        if bound >= BIG or (best >= 0 and max(bound, total_low) >= best):
            continue
        d = 0
        choice[0] = -1
        part[0] = 0
        while d >= 0:
            i = _next_unit(w, choice, roles, d, na)
            rest = kills_low
            for j in range(d + 1, need):
                rest += low[roles[j]]
            # units come in cost order: once this one cannot beat the best, no later one can
            if i < na and best >= 0 and part[d] + UNIT_COST[w[W_ACT, i]] + rest >= best:
                i = na
            if i >= na:
                choice[d] = -1
                d -= 1
                continue
            choice[d] = i
            w[W_TAKEN, w[W_ACT, i]] += 1
            if d < need - 1:
                part[d + 1] = part[d] + UNIT_COST[w[W_ACT, i]]
                d += 1
                choice[d] = -1
                continue
            # a leaf: a dragon set is reserved in W_TAKEN; kill the rest cheapest first
            c = _cheapest_kills(w, kills, na, W_WORK)
            if c >= 0 and (best < 0 or c < best):
                best = c
                for j in range(na):
                    v = w[W_ACT, j]
                    w[W_USE, v] = w[W_WORK, v]
                    w[W_DSET, v] = w[W_TAKEN, v]
                if best <= total_low:  # nothing can be cheaper: done
                    for j in range(na):
                        w[W_TAKEN, w[W_ACT, j]] = 0
                    return best
    return best


@njit(cache=CACHE, inline="always", _nrt=False)
def fight_rows(w, need, opts, n0, cap):
    """``_fight_rows`` with its numbers cast to int64 (inlined: every caller, the engine's, the odds', the
    DP's and the tests', calls the one compiled signature, whatever constants it passes)."""
    return _fight_rows(w, np.int64(need), opts, np.int64(n0), np.int64(cap))


@njit(cache=CACHE, _nrt=False)
def _fight_rows(w, need, opts, n0, cap):
    """Append to ``opts`` (from row ``n0``, at most ``cap`` rows, best first) every fight plan for
    the units and monsters in ``w`` (``W_CNT``, ``W_MASK``, ``W_EXTRA``, ``W_SWEEP``, ``W_MON``).

    One plan per sweeper assignment: single kills cheapest first, keeping a dragon set of ``need``
    types if that is possible (``O_OK`` = 1), else without (``O_OK`` = 0; only when need > 0).
    Returns the new row count.
    """
    na = _active(w)
    ncand = w[W_NCAND]
    swept = 0  # monster types worth a sweeper (2 or more of them)
    for t in range(A.N_MONSTER_TYPES):
        ncand[t] = 1
        w[W_CAND + t, 0] = -1
        if w[W_MON, t] >= 2:
            swept |= 1 << t
    for t in range(A.N_MONSTER_TYPES):  # sweepers in cost order, per type
        if (swept >> t) & 1:
            roles = 0  # the roles that sweep this type
            for r in range(A.N_ROLES):
                roles |= ((w[W_SWEEP, r] >> t) & 1) << r
            if roles != 0:
                for i in range(na):
                    u = w[W_ACT, i]
                    if w[W_MASK, u] & roles:
                        w[W_CAND + t, ncand[t]] = u
                        ncand[t] += 1
    if cap == 1 and _unit_caps(w, na):
        if need <= 0:
            return _best_plain(w, opts, n0, na, np.int64(1))
        covered = 0
        for i in range(na):
            covered |= w[W_MASK, w[W_ACT, i]]
        if N_BITS[covered] < need:  # no dragon set whatever is spent: every plan has O_OK 0
            return _best_plain(w, opts, n0, na, np.int64(0))
    n = n0
    for i0 in range(ncand[0]):
        for i1 in range(ncand[1]):
            for i2 in range(ncand[2]):
                for i in range(na):
                    w[W_SWEEPER, w[W_ACT, i]] = 0
                kills = np.int64(0)  # typed (see ``_active``)
                valid = True
                for t in range(A.N_MONSTER_TYPES):
                    u = w[W_CAND + t, i0 if t == 0 else (i1 if t == 1 else i2)]
                    if u < 0:
                        kills += w[W_MON, t]
                        continue
                    w[W_SWEEPER, u] += 1
                    if w[W_SWEEPER, u] > w[W_CNT, u]:
                        valid = False
                    bonus = 0
                    for r in range(A.N_ROLES):
                        if (w[W_MASK, u] >> r) & 1 and (w[W_SWEEP, r] >> t) & 1 and w[W_EXTRA, r] > bonus:
                            bonus = w[W_EXTRA, r]
                    kills -= bonus
                if not valid:
                    continue
                for i in range(na):
                    u = w[W_ACT, i]
                    w[W_AVAIL, u] = w[W_CNT, u] - w[W_SWEEPER, u]
                top_ok = 0
                if cap == 1 and n > n0:  # only a strictly better plan can take the single row
                    top_ok = opts[n0, A.O_OK]
                    low = _kills_low(w, kills, na)
                    if low < 0:
                        continue
                    for i in range(na):
                        u = w[W_ACT, i]
                        low += w[W_SWEEPER, u] * UNIT_COST[u]
                    if low >= opts[n0, A.O_COST] + 1000 * (1 - top_ok):
                        continue
                ok = 1
                c = _kills_beside_dragon(w, kills, need, np.int64(-1), na)
                if c < 0 and need > 0:
                    if top_ok == 1:  # a plan without a dragon set cannot beat one with
                        continue
                    ok = 0
                    c = _kills_beside_dragon(w, kills, np.int64(0), np.int64(-1), na)
                if c < 0:
                    continue
                cost = np.int64(0)
                for i in range(na):
                    u = w[W_ACT, i]
                    w[W_USE, u] += w[W_SWEEPER, u]
                    cost += w[W_USE, u] * UNIT_COST[u]
                n = _insert(opts, n0, n, cap, w, np.int64(W_USE), cost, ok, w[W_CAND, i0], w[W_CAND + 1, i1],
                            w[W_CAND + 2, i2], na)
    return n


@njit(cache=CACHE, _nrt=False, inline="always")
def _unit_caps(w, na):
    """Whether every active unit kills one monster (no extra defeats)."""
    for i in range(na):
        if w[W_CAP, i] != 1:
            return False
    return True


@njit(cache=CACHE, inline="always", _nrt=False)
def _best_plain(w, opts, n0, na, ok):
    """``fight_rows`` for one row, with no dragon set to keep (``ok``: its O_OK) and every unit
    killing one: the same plan (the first cheapest sweeper assignment), each costed in one pass."""
    best = -1
    b0 = b1 = b2 = -1
    mon0 = w[W_MON, 0]
    mon1 = w[W_MON, 1]
    mon2 = w[W_MON, 2]
    for i0 in range(w[W_NCAND, 0]):
        s0 = w[W_CAND, i0]
        for i1 in range(w[W_NCAND, 1]):
            s1 = w[W_CAND + 1, i1]
            for i2 in range(w[W_NCAND, 2]):
                s2 = w[W_CAND + 2, i2]
                kills = 0
                cost = 0
                if s0 < 0:
                    kills += mon0
                else:
                    cost += UNIT_COST[s0]
                if s1 < 0:
                    kills += mon1
                else:
                    cost += UNIT_COST[s1]
                if s2 < 0:
                    kills += mon2
                else:
                    cost += UNIT_COST[s2]
                valid = True
                for j in range(na):
                    u = w[W_ACT, j]
                    free = w[W_CNT, u] - (1 if s0 == u else 0) - (1 if s1 == u else 0) - (1 if s2 == u else 0)
                    if free < 0:
                        valid = False
                        break
                    if kills > 0 and free > 0:
                        take = min(free, kills)
                        kills -= take
                        cost += take * UNIT_COST[u]
                if valid and kills <= 0 and (best < 0 or cost < best):
                    best = cost
                    b0 = s0
                    b1 = s1
                    b2 = s2
    if best < 0:
        return n0
    kills = (mon0 if b0 < 0 else 0) + (mon1 if b1 < 0 else 0) + (mon2 if b2 < 0 else 0)
    for i in range(w[W_LIVE, LIVE_N]):  # the other units' columns are never set
        opts[n0, A.O_USE + w[W_LIVE, i]] = 0
    used = 0
    for j in range(na):
        u = w[W_ACT, j]
        sw = (1 if b0 == u else 0) + (1 if b1 == u else 0) + (1 if b2 == u else 0)
        take = min(w[W_CNT, u] - sw, kills) if kills > 0 else 0
        kills -= take
        opts[n0, A.O_USE + u] = take + sw
        used += take + sw
    _fight_row(opts, n0, used, best, ok, b0, b1, b2)
    return n0 + 1


@njit(cache=CACHE, inline="always", _nrt=False)
def _kills_low(w, kills, na):
    """A lower bound of the cost of ``kills`` single kills from ``w[W_AVAIL]`` whatever is kept
    aside: their cost from the whole pool when every unit kills one (-1: too few units), else 0."""
    if not _unit_caps(w, na):
        return 0
    for i in range(na):
        w[W_TAKEN, w[W_ACT, i]] = 0
    return _cheapest_kills(w, kills, na, W_WORK)


@njit(cache=CACHE, _nrt=False)
def _insert(opts, n0, n, cap, w, row, cost, ok, s0, s1, s2, na):
    """Insert a fight row (units ``w[row]``) keeping rows n0..n-1 sorted by (not ok, cost) and free
    of duplicates. ``s0..s2``: the unit sweeping each monster type (-1: single kills), in ``O_MON``."""
    key = cost + (1 - ok) * 1000
    for i in range(n0, n):
        same = True
        for j in range(na):
            u = w[W_ACT, j]
            if opts[i, A.O_USE + u] != w[row, u]:
                same = False
                break
        if same:
            return n
    pos = n
    while pos > n0 and opts[pos - 1, A.O_COST] + (1 - opts[pos - 1, A.O_OK]) * 1000 > key:
        pos -= 1
    if pos - n0 >= cap:
        return n
    last = min(n, n0 + cap - 1)
    for i in range(last, pos, -1):
        for j in range(A.N_OCOLS):
            opts[i, j] = opts[i - 1, j]
    for i in range(w[W_LIVE, LIVE_N]):  # the other units' columns are never set
        opts[pos, A.O_USE + w[W_LIVE, i]] = 0
    used = 0
    for j in range(na):
        u = w[W_ACT, j]
        opts[pos, A.O_USE + u] = w[row, u]
        used += w[row, u]
    _fight_row(opts, pos, used, cost, ok, s0, s1, s2)
    return min(n + 1, n0 + cap)


@njit(cache=CACHE, inline="always", _nrt=False)
def _fight_row(opts, pos, used, cost, ok, s0, s1, s2):
    """The columns of fight row ``pos`` besides the units it spends (``O_USE``, set by the caller)."""
    opts[pos, A.O_ACTION] = A.A_FIGHT
    opts[pos, A.O_ARG] = -1
    opts[pos, A.O_N] = used
    opts[pos, A.O_COST] = cost
    opts[pos, A.O_OK] = ok
    opts[pos, A.O_P] = -1
    opts[pos, A.O_MON] = s0
    opts[pos, A.O_MON + 1] = s1
    opts[pos, A.O_MON + 2] = s2


@njit(cache=CACHE, inline="always", _nrt=False)
def _dragon_setup(w):
    """Dragon sets ignore extra kills and use every unit present (``W_AVAIL``; 0 for the others)."""
    for r in range(A.N_ROLES):
        w[W_EXTRA, r] = 0
    for i in range(w[W_LIVE, LIVE_N]):  # the other units are never held
        u = w[W_LIVE, i]
        w[W_AVAIL, u] = 0
        w[W_DSET, u] = 0
    na = _active(w)
    for i in range(na):
        u = w[W_ACT, i]
        w[W_AVAIL, u] = w[W_CNT, u]
    return na


@njit(cache=CACHE, inline="always", _nrt=False)
def _dragon_set(w, need, na, out):
    """Whether ``w[W_AVAIL]`` holds ``need`` units of different companion types; the first set found
    (role masks ascending, units in cost order) goes to ``w[out]``."""
    if need <= 0:
        return True
    if need > A.N_ROLES:
        return False
    covered = 0
    for i in range(na):
        u = w[W_ACT, i]
        w[W_TAKEN, u] = 0
        if w[W_AVAIL, u] > 0:
            covered |= w[W_MASK, u]
    if N_BITS[covered] < need:
        return False
    choice = w[W_CHOICE]
    for mi in range(N_MASKS[need]):
        m = MASKS[need, mi]
        if m & covered != m:
            continue
        roles = MASK_ROLES[m]
        d = 0
        choice[0] = -1
        while d >= 0:
            i = _next_unit(w, choice, roles, d, na)
            if i >= na:
                choice[d] = -1
                d -= 1
                continue
            choice[d] = i
            w[W_TAKEN, w[W_ACT, i]] += 1
            if d < need - 1:
                d += 1
                choice[d] = -1
                continue
            for j in range(na):
                v = w[W_ACT, j]
                w[out, v] = w[W_TAKEN, v]
                w[W_TAKEN, v] = 0
            return True
    return False


@njit(cache=CACHE, _nrt=False)
def dragon_setup(w, need):
    """Prepare the dragon checks below for the units in ``w[W_CNT]``: returns (units active, whether
    a set of ``need`` types exists). The set found stays in ``w[W_DSET]``. Clears ``w[W_EXTRA]``."""
    na = _dragon_setup(w)
    return na, _dragon_set(w, need, na, W_DSET)


@njit(cache=CACHE, inline="always", _nrt=False)
def dragon_left(w, need, na, base, u):
    """After ``dragon_setup(w, n >= need)`` gave ``base``: whether a set of ``need`` types is left
    once one unit ``u`` is spent."""
    if need <= 0:
        return True
    if base and w[W_DSET, u] < w[W_AVAIL, u]:
        return True  # the set found does not need this one
    w[W_AVAIL, u] -= 1
    ok = _dragon_set(w, need, na, W_WORK)
    w[W_AVAIL, u] += 1
    return ok


@njit(cache=CACHE, inline="always", _nrt=False)
def dragon_can(w, need):
    """Whether the units in ``w[W_CNT]`` hold a set of ``need`` different types. Clears ``w[W_EXTRA]``."""
    return need <= 0 or dragon_setup(w, need)[1]


@njit(cache=CACHE, inline="always", _nrt=False)
def dragon_rows(w, need, opts, n0, cap):
    """Append one row per set of ``need`` companion types that can face the dragon (cheapest first).
    Clears ``w[W_EXTRA]``. Inlined: casts to int64 and calls the one compiled ``_dragon_rows``."""
    return _dragon_rows(w, np.int64(need), opts, np.int64(n0), np.int64(cap))


@njit(cache=CACHE, _nrt=False)
def _dragon_rows(w, need, opts, n0, cap):
    """``dragon_rows``."""
    one, none = np.int64(1), np.int64(-1)  # typed, not constants: one signature of each callee (numba types a
    # constant argument by its value, ``Literal[int](-1)``, and compiles the callee once per value)
    na = _dragon_setup(w)
    n = n0
    if cap == 1 or need <= 0:  # the cheapest set over all masks (first found on ties, as below)
        c = _kills_beside_dragon(w, np.int64(0), need, none, na)
        if c >= 0:
            n = _insert(opts, n0, n, cap, w, np.int64(W_DSET), c, one, none, none, none, na)
        return n
    for mi in range(N_MASKS[need] if need <= A.N_ROLES else 0):
        c = _kills_beside_dragon(w, np.int64(0), need, MASKS[need, mi], na)
        if c >= 0:
            n = _insert(opts, n0, n, cap, w, np.int64(W_DSET), c, one, none, none, none, na)
    return n


@njit(cache=CACHE, inline="always", _nrt=False)
def best_fight(w, need, opts, row):
    """Cost and O_OK of the best fight, computed in ``opts[row]`` (scratch); cost -1 if none. Inlined (a
    few lines): the compiled part is ``_fight_rows``, one signature for every caller (``fight_rows``)."""
    n = fight_rows(w, need, opts, row, 1)
    if n == row:
        return -1, 0
    return opts[row, A.O_COST], opts[row, A.O_OK]
