"""The Delve rules as small numba functions over the state vector, and the parallel kernel.

One game: ``play_game``. Each rule is one function (``form_party``, ``roll_level``, ``monster_phase``,
``loot_phase``, ``dragon_phase``, ``regroup``...); every choice goes through ``decide`` (the policy
switch). Menus list the legal options with the kernel's advice (see ``api``). The trace, when the
``trace`` array has rows, logs every roll, decision and effect for ``trace.format_trace``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange, types

from ... import search as S
from ...borrow import borrow, keep_alive
from ...config import CACHE, CHUNK, CompiledOnFirstUse
from ...policy import POLICY_TYPE, USER_POLICY_ID
from ...rng import roll, seed_stream
from ...tracing import trace_row
from . import layout as A
from .layout import (  # the trace codes the kernel logs (trace.py gives them words)
    E_CLEARED,
    E_DECISION,
    E_DELVE,
    E_DRAGON,
    E_DRAW,
    E_DUNGEON,
    E_END,
    E_FLEE,
    E_MASTER,
    E_OPEN,
    E_PARTY,
    E_PORTAL,
    E_QUAFF,
    E_REROLL,
    E_RETIRE,
    E_REVIVE,
    E_SEARCH,
    E_SEARCH_OPT,
    E_SLAIN,
    E_TRANSFORM,
    E_TREASURE,
    E_ULTIMATE,
    E_USE,
    E_XP,
    FLEE_DRAGON,
    FLEE_MONSTERS,
    TRACE_COLS,
    XP_DRAGON,
    XP_EMPTY_POOL,
    XP_PORTAL,
    XP_RETIRE,
)
from .outputs import OUTPUTS
from .policies import builtin_decide
from .ruleset import (
    R_DELVES,
    R_DRAGON_AT,
    R_DRAGON_TREASURES,
    R_DRAGON_TYPES,
    R_DRAGON_XP,
    R_DUNGEON_DICE,
    R_DUNGEON_FACES,
    R_DUNGEON_SIDES,
    R_EFFECT_KINDS,
    R_EFFECT_N,
    R_EMPTY_MONSTER,
    R_EMPTY_POOL_DRAGON,
    R_EMPTY_POOL_XP,
    R_FLEE_KEEPS,
    R_HERO,
    R_HERO_DRAGON,
    R_LEVEL_DICE,
    R_LEVELS,
    R_MASTER_AT,
    R_MASTER_REFRESH,
    R_N_RANKS,
    R_N_TREASURES,
    R_OPENS_ALL,
    R_PARTY_DICE,
    R_PARTY_FACES,
    R_PARTY_SIDES,
    R_PORTAL_XP,
    R_RANKS,
    R_RETIRE_XP,
    R_SCALES_PAIR,
    R_SCALES_SET,
    R_SCROLL_PHASES,
    R_SPECIALTY_ALL,
    R_SWEEP,
    R_TREASURE,
    R_WIN_SCORE,
    T_COLS,
    T_COUNT,
    T_DICE,
    T_EFFECT,
    T_FACE,
    T_PHASES,
    T_POINTS,
)
from .solver import (
    LIVE_N,
    UNIT_COST,
    W_CNT,
    W_COLS,
    W_EXTRA,
    W_LIST,
    W_LIVE_ID,
    W_MASK,
    W_MON,
    W_RANK,
    W_ROWS,
    W_SWEEP,
    W_TARGET,
    best_fight,
    dragon_can,
    dragon_left,
    dragon_rows,
    dragon_setup,
    fight_rows,
    set_live,
)

# --- output columns ---------------------------------------------------------------------------
#: Output columns before the per-delve levels (declared in outputs.py; indices ``A.OUT_*``).
OUT_NAMES = tuple(c.name for c in OUTPUTS.kernel_columns if c.repeat is None)
OUT_DELVE = A.OUT_DELVE_LEVEL  # then one "delveN_level" column per delve

class Pol(NamedTuple):
    """Who decides: a built-in policy id and its parameters, or a user's policy function."""

    pid: int
    params: np.ndarray
    user_fn: Any
    #: The search hooks' control array (``search.py``); empty (every hook off) for every other policy.
    ctl: np.ndarray


class Dice(NamedTuple):
    """Chance and its record: the dice stream, forced dice (tests), the trace (rows only when replaying)."""

    rs: np.ndarray
    script: np.ndarray
    trace: np.ndarray


SCRATCH = A.MAX_OPTIONS  # a spare row of ``opts`` for what-if fights
#: How a phase ended the delve (0: the phase was won). REASON_FAULT: a choice no rule handles (counted in
#: ``S_FAULT``, which the tests check is always 0): the delve stops there, with nothing gained.
REASON_FLEE, REASON_PORTAL, REASON_FAULT = 1, 2, 3


@njit(cache=CACHE, inline="always", _nrt=False)
def ev(trace, st, code, a0, a1, a2, a3, a4, a5, a6, a7):
    """Log one event (only when replaying: ``trace`` has rows): [code, delve, level, a0..a7]; row 0
    holds the count. Inlined is only the test (a simulation pays one comparison); the writing is one
    function (``ev_write``, one signature: every field an int64) for the ~30 call sites, compiled once."""
    if trace.shape[0] > 1:
        ev_write(trace, st, np.int64(code), np.int64(a0), np.int64(a1), np.int64(a2), np.int64(a3), np.int64(a4),
                 np.int64(a5), np.int64(a6), np.int64(a7))


@njit(cache=CACHE, _nrt=False)
def ev_write(trace, st, code, a0, a1, a2, a3, a4, a5, a6, a7):
    """The row of ``ev``."""
    fields = (st[A.S_DELVE], st[A.S_LEVEL], np.int64(a0), np.int64(a1), np.int64(a2), np.int64(a3), np.int64(a4),
              np.int64(a5), np.int64(a6), np.int64(a7))
    trace_row(trace, trace, (0, 0), 1, code, fields)


@njit(cache=CACHE, _nrt=False)
def log_search(trace, st, ctl, v, kind):
    """The search rows of one searched decision (figures kept by ``search.commit`` at ``ctl[v]``): the
    decision, then one row per option."""
    n = ctl[v]
    ev(trace, st, E_SEARCH, kind, n, ctl[v + 1], ctl[v + 2], ctl[v + 3], 0, 0, 0)
    for i in range(n):
        flag = (1 if i == ctl[v + 3] else 0) + (2 if i == ctl[v + 2] else 0)
        ev(trace, st, E_SEARCH_OPT, i, ctl[v + 4 + 3 * i], ctl[v + 5 + 3 * i], ctl[v + 6 + 3 * i], flag, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def ev_party(trace, st):
    p = A.S_PARTY
    ev(trace, st, E_PARTY, st[p], st[p + 1], st[p + 2], st[p + 3], st[p + 4], st[p + 5], st[A.S_GRAVE], 0)


@njit(cache=CACHE, _nrt=False)
def ev_dungeon(trace, st, rolled, dragons):
    d = A.S_DUN
    ev(trace, st, E_DUNGEON, rolled, st[d], st[d + 1], st[d + 2], st[d + 3], st[d + 4], dragons, st[A.S_LAIR])


def inline_in(*callers: str):
    """Numba inline cost model: inline a function into the named (hot) callers only, which saves
    the call (dozens of words of array arguments) where it matters without compiling it into every
    caller (inlining is paid in compile time)."""

    def model(expr, caller_ir, callee_ir) -> bool:
        return caller_ir.func_id.func_name in callers

    return model


def inline_at(*funcs: str):
    """Numba inline cost model: inline a function at the call sites written inside the named functions of this
    module (by source line: a phase inlined into ``play_game`` keeps its own lines), and call it everywhere else.
    Unlike ``inline_in`` it tells apart the phases that end up in one caller (``play_game``)."""
    spans: list[tuple[int, int]] = []

    def model(expr, caller_ir, callee_ir) -> bool:
        if not spans:
            import inspect

            for name in funcs:
                lines, first = inspect.getsourcelines(globals()[name].py_func)
                spans.append((first, first + len(lines)))
        loc = expr.loc
        return loc.filename == __file__ and any(a <= loc.line < b for a, b in spans)

    return model


# --- small rules --------------------------------------------------------------------------------
@njit(cache=CACHE, inline="always", _nrt=False)
def hero_at(rules, st):
    """Offset of the hero's current side in ``rules``."""
    return R_HERO + st[A.S_MASTER] * A.H_COLS


@njit(cache=CACHE, inline="always", _nrt=False)
def dragon_need(rules, st):
    """Different companion types the dragon needs (the hero's ``dragon_types`` or the ruleset's)."""
    n = rules[hero_at(rules, st) + A.H_DRAGON_TYPES]
    return n if n > 0 else rules[R_DRAGON_TYPES]


@njit(cache=CACHE, inline="always", _nrt=False)
def monsters(st):
    return st[A.S_DUN + A.GOBLIN] + st[A.S_DUN + A.SKELETON] + st[A.S_DUN + A.OOZE]


@njit(cache=CACHE, inline="always", _nrt=False)
def ult_ready(rules, st, phase):
    """The hero's ultimate power code if it may be used now in ``phase``, else ULT_NONE."""
    h = hero_at(rules, st)
    if st[A.S_ULT_USED] == 1 or rules[h + A.H_ULT_PHASES] & phase == 0:
        return A.ULT_NONE
    return rules[h + A.H_ULT]


@njit(cache=CACHE, inline="always", _nrt=False)
def gain_xp(rules, st, xp, reason, trace):
    """Gain experience; the hero turns master as soon as it has ``xp.master_at``. Inlined: casts and calls
    the one compiled ``add_xp`` (the callers pass their reason as a constant, ``XP_DRAGON``...)."""
    add_xp(rules, st, np.int64(xp), np.int64(reason), trace)


@njit(cache=CACHE, _nrt=False)
def add_xp(rules, st, xp, reason, trace):
    """``gain_xp``."""
    if xp == 0:
        return
    st[A.S_XP] += xp
    st[A.S_DELVE_XP] += xp
    ev(trace, st, E_XP, xp, reason, st[A.S_XP], 0, 0, 0, 0, 0)
    check_master(rules, st, trace)


@njit(cache=CACHE, _nrt=False)
def check_master(rules, st, trace):
    """The hero turns to its master side as soon as it has ``xp.master_at`` experience."""
    if st[A.S_MASTER] == 0 and st[A.S_HERO] > 0 and st[A.S_XP] >= rules[R_MASTER_AT]:
        st[A.S_MASTER] = 1
        if rules[R_MASTER_REFRESH] == 1:
            st[A.S_ULT_USED] = 0
        ev(trace, st, E_MASTER, st[A.S_XP], 0, 0, 0, 0, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def draw_treasure(rules, st, dice, from_dragon):
    """Draw one token from the pool (``roll`` picks its position); 1 XP instead if it is empty."""
    rs, script, trace = dice
    left = st[A.S_POOL_LEFT]
    if left == 0:
        if from_dragon == 0 or rules[R_EMPTY_POOL_DRAGON] == 1:
            gain_xp(rules, st, rules[R_EMPTY_POOL_XP], XP_EMPTY_POOL, trace)
        return
    pos = roll(rs, script, left) - 1
    k = 0
    while pos >= st[A.S_POOL + k]:
        pos -= st[A.S_POOL + k]
        k += 1
    st[A.S_POOL + k] -= 1
    st[A.S_POOL_LEFT] -= 1
    st[A.S_TREASURE + k] += 1
    st[A.S_TREASURES_WON] += 1
    ev(trace, st, E_DRAW, k, st[A.S_POOL_LEFT], from_dragon, 0, 0, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def party_face(rules, dice):
    rs, script, trace = dice
    return rules[R_PARTY_FACES + roll(rs, script, rules[R_PARTY_SIDES]) - 1]


@njit(cache=CACHE, _nrt=False)
def score(rules, st):
    """XP + each unused token's points + ``score.scales_pair`` per pair (``score.scales_pair_size``, 2) of Dragon
    Scales."""
    s = st[A.S_XP]
    scales = 0
    for k in range(rules[R_N_TREASURES]):
        t = R_TREASURE + k * T_COLS
        s += st[A.S_TREASURE + k] * rules[t + T_POINTS]
        if rules[t + T_EFFECT] == A.TE_SCALES:
            scales += st[A.S_TREASURE + k]
    return s + (scales // rules[R_SCALES_SET]) * rules[R_SCALES_PAIR]


@njit(cache=CACHE, _nrt=False)
def rank(rules, s):
    r = 0
    for i in range(rules[R_N_RANKS]):
        if s >= rules[R_RANKS + i]:
            r = i
    return r


@njit(cache=CACHE, inline="always", _nrt=False)
def find_treasure(rules, st, effect, phase):
    """Kind of a held token with ``effect`` usable in ``phase`` (-1 if none; the first kind if several).
    Inlined: casts and calls the one compiled ``held_treasure`` (the callers pass constants, ``A.TE_RING``...)."""
    return held_treasure(rules, st, np.int64(effect), np.int64(phase))


@njit(cache=CACHE, _nrt=False)
def held_treasure(rules, st, effect, phase):
    """``find_treasure``."""
    for j in range(rules[R_EFFECT_N + effect]):
        k = rules[R_EFFECT_KINDS + effect * A.MAX_TREASURES + j]
        if st[A.S_TREASURE + k] > 0 and rules[R_TREASURE + k * T_COLS + T_PHASES] & phase:
            return k
    return -1


# --- units ----------------------------------------------------------------------------------------
@njit(cache=CACHE, inline=inline_in("loot_rows", "monster_menu", "revive"), _nrt=False)
def load_units(rules, st, phase, w):
    """Counts (``w[W_CNT]``) and role masks (``w[W_MASK]``) of every unit usable in ``phase``;
    extra kills and sweeps per role in ``w[W_EXTRA]``, ``w[W_SWEEP]``; monsters in ``w[W_MON]``."""
    h = hero_at(rules, st)
    all_ = rules[R_SPECIALTY_ALL] == 1
    for i in range(w[W_LIVE_ID, LIVE_N]):  # the other units are never held: their count stays 0
        u = w[W_LIVE_ID, i]
        if u < A.U_TEMP:
            w[W_CNT, u] = st[A.S_PARTY + u]
            w[W_MASK, u] = rules[h + A.H_ACT + u]
        elif u < A.U_TOKEN:
            f = u - A.U_TEMP
            w[W_CNT, u] = st[A.S_TEMP + f]
            w[W_MASK, u] = rules[h + A.H_ACT + f] if all_ else ((1 << f) if f < A.N_ROLES else 0)
        elif u < A.U_HERO:  # a companion token, if it may act in this phase
            k = u - A.U_TOKEN
            t = R_TREASURE + k * T_COLS
            if rules[t + T_PHASES] & phase:
                f = rules[t + T_FACE]
                w[W_CNT, u] = st[A.S_TREASURE + k]
                w[W_MASK, u] = rules[h + A.H_ACT + f] if all_ else 1 << f
            else:
                w[W_CNT, u] = 0
                w[W_MASK, u] = 0
        else:
            hero_ok = ult_ready(rules, st, phase) == A.ULT_HERO_COMPANION
            if phase == A.PH_DRAGON and rules[R_HERO_DRAGON] == 0:
                hero_ok = False
            w[W_CNT, u] = 1 if hero_ok else 0
            w[W_MASK, u] = rules[h + A.H_ULT_MASK] if hero_ok else 0
    for r in range(A.N_ROLES):
        w[W_EXTRA, r] = rules[h + A.H_EXTRA + r]
        w[W_SWEEP, r] = rules[R_SWEEP + r]
    for t in range(A.N_MONSTER_TYPES):
        w[W_MON, t] = st[A.S_DUN + t]


@njit(cache=CACHE, _nrt=False)
def init_scratch(rules, w):
    """Tell the solver which units this ruleset and hero can ever hold (``solver.set_live``):
    the party dice, companion tokens, a transform's temporary companions, a hero companion."""
    live = w[W_LIST]
    for u in range(A.N_UNITS):
        live[u] = 1 if u < A.U_TEMP else 0
    for side in range(2):
        h = R_HERO + side * A.H_COLS
        if rules[h + A.H_ULT] == A.ULT_TRANSFORM and rules[h + A.H_ULT_TO] != A.TO_POTION:
            live[A.U_TEMP + rules[h + A.H_ULT_TO]] = 1
        if rules[h + A.H_ULT] == A.ULT_HERO_COMPANION:
            live[A.U_HERO] = 1
    for j in range(rules[R_EFFECT_N + A.TE_COMPANION]):
        live[A.U_TOKEN + rules[R_EFFECT_KINDS + A.TE_COMPANION * A.MAX_TREASURES + j]] = 1
    set_live(w, live)
    for f in range(A.N_FACES):  # the terms of ``party_rank``, looked up by ``party_index``
        for x in range(rules[R_PARTY_DICE] + 1):
            w[W_RANK + f, x] = _compositions(x, A.N_FACES + 1 - f)


@njit(cache=CACHE)
def scratch(rules):
    """A scratch array ``w`` for ``rules`` (see ``init_scratch``)."""
    w = np.zeros((W_ROWS, W_COLS), dtype=np.int64)
    init_scratch(rules, w)
    return w


@njit(cache=CACHE, inline="always", _nrt=False)
def opens_all(rules):
    """The roles (bit mask) whose companions open every chest (thief and champion by default)."""
    m = 0
    for r in range(A.N_ROLES):
        m |= (rules[R_OPENS_ALL + r] & 1) << r
    return m


@njit(cache=CACHE, inline="always", _nrt=False)
def spend(st, opts, row, trace, w):
    """Spend the units of an option: party dice go to the Graveyard first, temporary companions are
    discarded, tokens return to the box, the hero's ultimate is used."""
    for i in range(w[W_LIVE_ID, LIVE_N]):  # the units that can be held, in unit order
        u = w[W_LIVE_ID, i]
        if opts[row, A.O_USE + u] > 0:
            use_unit(st, u, opts[row, A.O_USE + u], trace)


@njit(cache=CACHE, _nrt=False)
def use_unit(st, u, k, trace):
    """Spend ``k`` of unit ``u`` (see ``spend``)."""
    if u < A.U_TEMP:
        st[A.S_PARTY + u] -= k
        st[A.S_GRAVE] += k
    elif u < A.U_TOKEN:
        st[A.S_TEMP + u - A.U_TEMP] -= k
    elif u < A.U_HERO:
        st[A.S_TREASURE + u - A.U_TOKEN] -= k
    else:
        st[A.S_ULT_USED] = 1
    ev(trace, st, E_USE, u, k, 0, 0, 0, 0, 0, 0)


# --- exact chance of clearing the next level (risk policy; from odds.clear_table) --------------------
@njit(cache=CACHE, _nrt=False)
def _compositions(m, k):
    """Ways to write m as an ordered sum of k non-negative integers: C(m + k - 1, k - 1)."""
    if k <= 0:
        return 1 if m == 0 else 0
    c = 1
    for i in range(1, k):
        c = c * (m + i) // i
    return c


@njit(cache=CACHE, _nrt=False)
def party_rank(party, total):
    """Index of a party (counts of the 6 faces, sum <= total) among all such parties: the parties before it
    (the smaller first face, then the same first face and a smaller second...; each run summed at once)."""
    r = 0
    left = total
    for f in range(A.N_FACES):
        r += _compositions(left, A.N_FACES + 1 - f) - _compositions(left - party[f], A.N_FACES + 1 - f)
        left -= party[f]
    return r


@njit(cache=CACHE, inline="always", _nrt=False)
def party_index(w, party, total):
    """``party_rank`` with its terms looked up in ``w[W_RANK]`` (filled by ``init_scratch``)."""
    r = 0
    left = total
    for f in range(A.N_FACES):
        r += w[W_RANK + f, left] - w[W_RANK + f, left - party[f]]
        left -= party[f]
    return r


@njit(cache=CACHE, inline="always", _nrt=False)
def clear_size(rules, w):
    """Entries of the risk policy's clear table (``odds.clear_table``), where the DP's table starts."""
    return 2 * w[W_RANK, rules[R_PARTY_DICE]] * (rules[R_DUNGEON_DICE] + 1) * rules[R_DRAGON_AT]


@njit(cache=CACHE, inline="always", _nrt=False)
def clear_at(rules, st, level, w):
    """Where the clear table's chances for ``level`` and the current side and Lair start: party rank r's is at
    the returned offset + r x the returned stride."""
    at = rules[R_DRAGON_AT]
    lair = st[A.S_LAIR]
    n = min(rules[R_LEVEL_DICE + level - 1], rules[R_DUNGEON_DICE] - lair)
    stride = (rules[R_DUNGEON_DICE] + 1) * at
    return (st[A.S_MASTER] * w[W_RANK, rules[R_PARTY_DICE]] * stride + n * at + min(lair, at - 1)), stride


@njit(cache=CACHE, _nrt=False)
def p_clear(rules, ptable, st, party, level, w):
    """Chance x 1e6 of clearing ``level`` with ``party`` and the current Lair (-1: no table)."""
    if ptable.shape[0] == 0 or level > rules[R_LEVELS]:
        return -1
    off, stride = clear_at(rules, st, level, w)
    return np.int64(ptable[off + party_index(w, party, rules[R_PARTY_DICE]) * stride])


def advice(p: np.ndarray) -> np.ndarray:
    """Chances as the kernel reads them in ``ptable`` (the clear table, the DP's): x 1e6, rounded, in int32 (half
    the memory of the floats: the tables are read at random, and half of ``advise_p``'s samples waited on them)."""
    return (np.asarray(p, dtype=np.float64) * 1e6 + 0.5).astype(np.int32)


@njit(cache=CACHE, _nrt=False)
def dp_advice(rules, ptable, st, w):
    """``S_DP_GO``, ``S_DP_RETIRE``: P(win) x 1e6 of going on / retiring at the coming regroup, read from the
    optimal policy's table (``dp.dp_table``, after the clear table in ``ptable``; -1 when absent)."""
    levels = rules[R_LEVELS]
    at = rules[R_DRAGON_AT]
    total = rules[R_PARTY_DICE]
    npart = w[W_RANK, total]
    base = clear_size(rules, w)
    if ptable.shape[0] <= base:
        st[A.S_DP_GO] = -1
        st[A.S_DP_RETIRE] = -1
        return
    target = rules[R_WIN_SCORE]
    tt = max(target, 1)
    s = score(rules, st)
    level = st[A.S_LEVEL]
    if s >= target:
        st[A.S_DP_GO] = 1000000
        st[A.S_DP_RETIRE] = 1000000
        return
    d = st[A.S_DELVE] - 1
    side = st[A.S_MASTER]
    s3 = s + level * rules[R_RETIRE_XP]
    if s3 >= target:
        st[A.S_DP_RETIRE] = 1000000
    else:
        side3 = 1 if side == 1 or s3 >= rules[R_MASTER_AT] else 0
        wi = base + rules[R_DELVES] * tt * 2 * levels * at * npart + ((d + 1) * tt + s3) * 2 + side3
        st[A.S_DP_RETIRE] = ptable[wi]
    if level >= levels:
        st[A.S_DP_GO] = 0
        return
    lair = min(st[A.S_LAIR], at - 1)
    r = party_index(w, st[A.S_PARTY : A.S_PARTY + A.N_FACES], total)
    ci = base + ((((d * tt + s) * 2 + side) * levels + level) * at + lair) * npart + r
    st[A.S_DP_GO] = ptable[ci]


# --- decisions -------------------------------------------------------------------------------------
#: The policy switch (``decide``, every built-in policy inlined in it) is inlined where decisions are asked: at each
#: call site its kind is known, so the built-ins' switch on the kind can fold away (session 57: the regroup's
#: inlined x1.044, the dragon's, the reroll's and the revive's x1.023 more; each inlined copy costs compile time:
#: a first run from the IR 12.9 s against 10.9, from source 33.2 against 27.5).
DECIDERS = ("monster_phase", "loot_phase", "regroup", "dragon_phase", "reroll", "revive")


@njit(cache=CACHE, inline=inline_at(*DECIDERS), _nrt=False)
def decide(kind, st, opts, n, pol, dice):
    """Ask the policy (a forced choice, n <= 1, is not asked). As in every game, an answer outside
    0..n-1 is counted (``S_BAD``) and option 0 taken; ``policy.check_answers`` then refuses the run."""
    pid, params, user_fn, ctl = pol
    rs, script, trace = dice
    if n <= 1:
        c = 0
    else:
        if pid == USER_POLICY_ID:
            c = user_fn(kind, st, opts, n, params)
        elif pid == A.P_RANDOM:
            c = roll(rs, script, n) - 1
        else:  # threshold, risk, optimal: the advice-following built-ins (``policies.builtin_decide``)
            c = builtin_decide(pid, kind, st, opts, n, params)
        if c < 0 or c >= n:
            st[A.S_BAD] += 1
            c = 0
        f = S.forced(ctl, n)  # the search's hooks (off for every other policy)
        if f >= 0:
            c = f
        if S.chosen(ctl, kind, n, c, st, -1, opts):
            S.switch(rs, ctl)
        v = S.traced_search(ctl)
        if v >= 0:  # a traced replay of a search game: what the rollouts said at this decision
            log_search(trace, st, ctl, v, np.int64(kind))
        st[A.S_NDEC] += 1
        st[A.S_NDEC_KIND + kind] += 1
    ev(
        trace,
        st,
        E_DECISION,
        kind,
        c,
        n,
        opts[c, A.O_ACTION],
        opts[c, A.O_ARG],
        opts[c, A.O_N],
        opts[c, A.O_COST],
        opts[c, A.O_OK],
    )
    return c


@njit(cache=CACHE, inline="always", _nrt=False)
def add_row(opts, n, action, arg, count, cost, ok):
    """Append a non-fight option row; returns the new count (rows past MAX_OPTIONS are dropped)."""
    if n >= A.MAX_OPTIONS:
        return n
    if opts[n, A.O_ACTION] == A.A_FIGHT:  # only fight rows spend units (``O_USE``)
        for u in range(A.N_UNITS):
            opts[n, A.O_USE + u] = 0
    opts[n, A.O_MON] = 0
    opts[n, A.O_MON + 1] = 0
    opts[n, A.O_MON + 2] = 0
    opts[n, A.O_ACTION] = action
    opts[n, A.O_ARG] = arg
    opts[n, A.O_N] = count
    opts[n, A.O_COST] = cost
    opts[n, A.O_OK] = ok
    opts[n, A.O_P] = -1
    return n + 1


@njit(cache=CACHE, _nrt=False)
def what_if(rules, st, phase, opts, w):
    """Cost and O_OK of the best fight in the current state (the monsters and any dragon coming);
    cost 900 if there is none. Used to advise on options that change the dungeon first."""
    load_units(rules, st, np.int64(phase), w)
    need = dragon_need(rules, st) if st[A.S_LAIR] >= rules[R_DRAGON_AT] else 0
    c, ok = best_fight(w, need, opts, SCRATCH)
    if c < 0:
        return 900, 0
    return c, ok


@njit(cache=CACHE, _nrt=False)
def what_if_mass(rules, st, u, what, opts, w):
    """``what_if`` after a mass effect (``apply_mass``), with the dungeon and Lair restored after."""
    save = w[W_TARGET]
    for t in range(5):
        save[t] = st[A.S_DUN + t]
    save[5] = st[A.S_LAIR]
    apply_mass(rules, st, u, what)
    c, ok = what_if(rules, st, A.PH_MONSTER, opts, w)
    for t in range(5):
        st[A.S_DUN + t] = save[t]
    st[A.S_LAIR] = save[5]
    return c, ok


@njit(cache=CACHE, _nrt=False)
def ultimate_effect(rules, st, row_mon, arg, sign):
    """Apply (sign 1) or undo (sign -1) a targeted ultimate on the dungeon and temporary companions."""
    h = hero_at(rules, st)
    u = rules[h + A.H_ULT]
    total = 0
    for t in range(A.N_MONSTER_TYPES):
        st[A.S_DUN + t] -= sign * row_mon[t]
        total += row_mon[t]
    if u == A.ULT_DEFEAT:
        st[A.S_LAIR] -= sign * arg
    elif u == A.ULT_TRANSFORM:
        to = rules[h + A.H_ULT_TO]
        if to == A.TO_POTION:
            st[A.S_DUN + A.POTION] += sign * total
        else:
            st[A.S_TEMP + to] += sign * total


@njit(cache=CACHE, _nrt=False)
def targeted_rows(rules, st, opts, n, w):
    """Options of a ``defeat``/``transform`` ultimate: every choice of up to N allowed targets."""
    h = hero_at(rules, st)
    cap = rules[h + A.H_ULT_N]
    allowed = rules[h + A.H_ULT_MASK]
    dragons_ok = rules[h + A.H_ULT] == A.ULT_DEFEAT and (allowed >> 3) & 1
    mon = w[W_TARGET]
    for k0 in range(min(cap, st[A.S_DUN]) + 1 if allowed & 1 else 1):
        for k1 in range(min(cap - k0, st[A.S_DUN + 1]) + 1 if allowed & 2 else 1):
            for k2 in range(min(cap - k0 - k1, st[A.S_DUN + 2]) + 1 if allowed & 4 else 1):
                top = min(cap - k0 - k1 - k2, st[A.S_LAIR]) if dragons_ok else 0
                for kd in range(top + 1):
                    if k0 + k1 + k2 + kd == 0 or n >= A.MAX_OPTIONS:
                        continue
                    mon[0] = k0
                    mon[1] = k1
                    mon[2] = k2
                    ultimate_effect(rules, st, mon, kd, np.int64(1))
                    c, ok = what_if(rules, st, A.PH_MONSTER, opts, w)
                    ultimate_effect(rules, st, mon, kd, np.int64(-1))
                    n = add_row(opts, n, A.A_ULTIMATE, kd, k0 + k1 + k2 + kd, 40 + c, ok)
                    opts[n - 1, A.O_MON] = k0
                    opts[n - 1, A.O_MON + 1] = k1
                    opts[n - 1, A.O_MON + 2] = k2
    return n


@njit(cache=CACHE, inline=inline_at("loot_phase"), _nrt=False)
def loot_rows(rules, st, phase, opts, n, w):
    """Open chests (one per companion, all for thief/champion roles), quaff potions (any party die),
    use an Elixir. O_OK: a dragon coming can still be beaten after it."""
    load_units(rules, st, phase, w)
    need = dragon_need(rules, st) if st[A.S_LAIR] >= rules[R_DRAGON_AT] else 0
    na, base = dragon_setup(w, need) if need > 0 else (0, True)
    chests = st[A.S_DUN + A.CHEST]
    potions = st[A.S_DUN + A.POTION]
    every = opens_all(rules)  # companions of these roles open all chests, the others one
    units = w[W_LIST]  # the units held, in unit order (listed without a branch per unit)
    held = 0
    for i in range(w[W_LIVE_ID, LIVE_N] if chests > 0 else A.N_FACES):  # party dice come first
        u = w[W_LIVE_ID, i]
        units[held] = u
        held += w[W_CNT, u] != 0
    for j in range(held):
        u = units[j]
        if chests > 0 and w[W_MASK, u] != 0:
            ok = 1 if dragon_left(w, need, na, base, u) else 0
            k = chests if w[W_MASK, u] & every != 0 else 1
            n = add_row(opts, n, A.A_OPEN, u, k, UNIT_COST[u], ok)
        if potions > 0 and u < A.U_TEMP:
            revive = min(potions, st[A.S_GRAVE] + 1)
            ok = 1 if dragon_left(w, need - revive, na, base, u) else 0
            n = add_row(opts, n, A.A_QUAFF, u, revive, UNIT_COST[u], ok)
    k = find_treasure(rules, st, A.TE_ELIXIR, phase)
    if k >= 0 and st[A.S_GRAVE] > 0:
        back = min(rules[R_TREASURE + k * T_COLS + T_DICE], st[A.S_GRAVE])  # (the dice it brings back)
        ok = 1 if base or dragon_can(w, need - back) else 0
        n = add_row(opts, n, A.A_TREASURE, k, back, 20, ok)
    return n


@njit(cache=CACHE, _nrt=False)
def monster_menu(rules, st, opts, full, w):
    """Options of the monster phase: fights (best first), scrolls, the ultimate, Dragon Bait,
    (loot for heroes who may), and only when no fight exists, a Town Portal or fleeing. With no monster
    (``rulings.empty_monster_phase``): "done" first (cost 0, O_OK 1: whatever the phase offers against the Lair,
    the dragon phase offers too, after a free loot), then the scrolls, the ultimate and Dragon Bait; no loot (the
    loot phase comes next), no portal, no flight."""
    empty = monsters(st) == 0
    u = ult_ready(rules, st, A.PH_MONSTER)
    if not empty or u == A.ULT_DEFEAT or u == A.ULT_TRANSFORM or u == A.ULT_DISCARD:
        load_units(rules, st, A.PH_MONSTER, w)  # (the units: for fights and the ultimates that weigh them)
    if empty:
        n = add_row(opts, 0, A.A_DONE, 0, 0, 0, 1)
        fights = 1  # (no portal or flight below)
    else:
        need = dragon_need(rules, st) if st[A.S_LAIR] >= rules[R_DRAGON_AT] else 0
        n = fight_rows(w, need, opts, 0, A.MAX_OPTIONS // 2 if full else 1)
        fights = n
    if rules[R_SCROLL_PHASES] & A.PH_MONSTER and st[A.S_PARTY + A.SCROLL] > 0:
        n = add_row(opts, n, A.A_SCROLL, A.U_PARTY + A.SCROLL, 0, 500, 0)
    k = find_treasure(rules, st, A.TE_SCROLL, A.PH_MONSTER)
    if k >= 0:
        n = add_row(opts, n, A.A_SCROLL, A.U_TOKEN + k, 0, 509, 0)
    h = hero_at(rules, st)
    if u == A.ULT_DEFEAT or u == A.ULT_TRANSFORM:
        n = targeted_rows(rules, st, opts, n, w)
    elif u == A.ULT_DISCARD or (u == A.ULT_TO_LAIR and not empty):  # (with no monster Battlecry would do nothing)
        c, ok = what_if_mass(rules, st, u, rules[h + A.H_ULT_MASK], opts, w)
        n = add_row(opts, n, A.A_ULTIMATE, 0, monsters(st), 40 + c, ok)
    elif u == A.ULT_REROLL:
        n = add_row(opts, n, A.A_ULTIMATE, 0, 0, 540, 0)
    elif u == A.ULT_SACRIFICE:
        cost = rules[h + A.H_ULT_N]
        for k in range(rules[R_N_TREASURES]):
            if st[A.S_TREASURE + k] >= cost:
                n = add_row(opts, n, A.A_ULTIMATE, k, monsters(st), 60, 1)
    k = find_treasure(rules, st, A.TE_BAIT, A.PH_MONSTER)
    if k >= 0 and not empty:  # (nor Dragon Bait)
        c, ok = what_if_mass(rules, st, np.int64(A.ULT_TO_LAIR), np.int64(0), opts, w)
        n = add_row(opts, n, A.A_TREASURE, k, monsters(st), 20 + c, ok)
    if rules[hero_at(rules, st) + A.H_LOOT_IN_MONSTER] == 1 and not empty:
        n0 = n
        n = loot_rows(rules, st, np.int64(A.PH_MONSTER), opts, n, w)
        for i in range(n0, n):  # advice: only worth it when no fight exists yet
            opts[i, A.O_COST] += 800 if opts[i, A.O_ACTION] == A.A_QUAFF else 2000
            opts[i, A.O_OK] = 0
    if fights == 0:
        k = find_treasure(rules, st, A.TE_PORTAL, A.PH_MONSTER)
        if k >= 0:
            n = add_row(opts, n, A.A_PORTAL, k, st[A.S_LEVEL] * rules[R_PORTAL_XP], 2500, 0)
        n = add_row(opts, n, A.A_FLEE, 0, 0, 4000, 0)
    return n


@njit(cache=CACHE, _nrt=False)
def apply_mass(rules, st, u, what):
    """Discard (ULT_DISCARD, ``what`` bits: monsters, chests, potions, Lair) or send every monster to
    the Lair (ULT_TO_LAIR, also Dragon Bait)."""
    if u == A.ULT_TO_LAIR:
        st[A.S_LAIR] += monsters(st)
        for t in range(A.N_MONSTER_TYPES):
            st[A.S_DUN + t] = 0
        return
    if u != A.ULT_DISCARD:
        return
    if what & 1:
        for t in range(A.N_MONSTER_TYPES):
            st[A.S_DUN + t] = 0
    if what & 2:
        st[A.S_DUN + A.CHEST] = 0
    if what & 4:
        st[A.S_DUN + A.POTION] = 0
    if what & 8:
        st[A.S_LAIR] = 0


# --- rerolls (Scroll die or token, an ultimate, forming the party) ---------------------------------
@njit(cache=CACHE, _nrt=False)
def reroll_plan(rules, st, src, dungeon, opts, w):
    """The kernel's advice for a reroll (``S_PLAN``): when forming, scrolls and third-or-later
    copies of a face; in the monster phase, the monsters outside the largest set the party can
    defeat; in the dragon phase, repeated faces and scrolls."""
    for i in range(A.N_PICK):
        st[A.S_PLAN + i] = 0
    h = hero_at(rules, st)
    if src == A.SRC_FORM or not dungeon:
        keep = 2 if src == A.SRC_FORM else 1
        for f in range(A.N_FACES):
            c = st[A.S_PARTY + f]
            if f == A.SCROLL and rules[h + A.H_ACT + f] == 0:
                st[A.S_PLAN + f] = c
            elif c > keep:
                st[A.S_PLAN + f] = c - keep
        return
    g = st[A.S_DUN]
    s = st[A.S_DUN + 1]
    o = st[A.S_DUN + 2]
    best = -1
    for k0 in range(g, -1, -1):
        for k1 in range(s, -1, -1):
            for k2 in range(o, -1, -1):
                if k0 + k1 + k2 <= best:
                    continue
                st[A.S_DUN] = k0
                st[A.S_DUN + 1] = k1
                st[A.S_DUN + 2] = k2
                load_units(rules, st, np.int64(A.PH_MONSTER), w)
                c, ok = best_fight(w, 0, opts, SCRATCH)
                if c >= 0:
                    best = k0 + k1 + k2
                    st[A.S_PLAN + A.N_FACES] = g - k0
                    st[A.S_PLAN + A.N_FACES + 1] = s - k1
                    st[A.S_PLAN + A.N_FACES + 2] = o - k2
    st[A.S_DUN] = g
    st[A.S_DUN + 1] = s
    st[A.S_DUN + 2] = o


@njit(cache=CACHE, _nrt=False)
def reroll(rules, st, src, dungeon, pol, dice, opts, w):
    """Pick dice one at a time (D_REROLL) then reroll them: party dice first, face by face, then
    dungeon dice; rerolled dragons go to the Lair."""
    rs, script, trace = dice
    st[A.S_REROLL_SRC] = src
    for i in range(A.N_PICK):
        st[A.S_PICK + i] = 0
    reroll_plan(rules, st, src, dungeon, opts, w)
    while True:
        n = add_row(opts, 0, A.A_DONE, 0, 0, 0, 1)
        for i in range(A.N_PICK if dungeon else A.N_FACES):
            have = st[A.S_PARTY + i] if i < A.N_FACES else st[A.S_DUN + i - A.N_FACES]
            if have - st[A.S_PICK + i] > 0:
                ok = 1 if st[A.S_PICK + i] < st[A.S_PLAN + i] else 0
                n = add_row(opts, n, A.A_PICK, i, st[A.S_PICK + i], 0, ok)
                if ok == 1:
                    opts[0, A.O_OK] = 0
        c = decide(np.int64(A.D_REROLL), st, opts, n, pol, dice)
        act = opts[c, A.O_ACTION]
        if act == A.A_PICK:
            st[A.S_PICK + opts[c, A.O_ARG]] += 1
        elif act == A.A_DONE:
            break
        else:  # the menu offers no other action
            st[A.S_FAULT] += 1
            break
    for f in range(A.N_FACES):
        k = st[A.S_PICK + f]
        st[A.S_PARTY + f] -= k
        for _ in range(k):
            st[A.S_PARTY + party_face(rules, dice)] += 1
    # Typed zeros: numba types a loop-carried literal 0 as Literal[int](0) on its first pass and compiles the callee
    # it reaches (``ev_dungeon``) for that type too, then again for int64.
    rolled = np.int64(0)
    dragons = np.int64(0)
    for t in range(5):
        k = st[A.S_PICK + A.N_FACES + t]
        st[A.S_DUN + t] -= k
        for _ in range(k):
            face = rules[R_DUNGEON_FACES + roll(rs, script, rules[R_DUNGEON_SIDES]) - 1]
            rolled += 1
            if face == A.DRAGON:
                st[A.S_LAIR] += 1
                dragons += 1
            else:
                st[A.S_DUN + face] += 1
    ev(trace, st, E_REROLL, src, 0, 0, 0, 0, 0, 0, 0)
    ev_party(trace, st)
    if rolled > 0:
        ev_dungeon(trace, st, rolled, dragons)
    for i in range(A.N_PICK):
        st[A.S_PICK + i] = 0


# --- potions ---------------------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def revive(rules, st, count, pol, dice, opts, w):
    """Bring ``count`` dice back from the Graveyard, each with a face the policy chooses (D_REVIVE).
    Advice: faces that let a coming dragon be beaten (O_OK), champions first (O_COST)."""
    rs, script, trace = dice
    count = min(count, st[A.S_GRAVE])
    dragon = st[A.S_LAIR] >= rules[R_DRAGON_AT]
    need = dragon_need(rules, st) if dragon else 0
    for i in range(count):
        st[A.S_REVIVE_LEFT] = count - i
        k = need - (count - i - 1)  # the dice revived after this one can take any face
        base = k <= 0
        if not base:
            load_units(rules, st, A.PH_DRAGON, w)
            base = dragon_can(w, k)  # then any face will do
        n = np.int64(0)  # typed: a literal 0 would compile ``decide`` once more (see ``reroll``)
        for f in range(A.N_FACES):
            w[W_CNT, f] += 1
            ok = 1 if base or dragon_can(w, k) else 0
            w[W_CNT, f] -= 1
            pref = 0 if f == A.CHAMPION else (1 if f == A.THIEF else (8 if f == A.SCROLL else 2))
            n = add_row(opts, n, A.A_FACE, f, 1, pref + min(st[A.S_PARTY + f], 3), ok)
        c = decide(np.int64(A.D_REVIVE), st, opts, n, pol, dice)
        f = opts[c, A.O_ARG]
        st[A.S_GRAVE] -= 1
        st[A.S_PARTY + f] += 1
        ev(trace, st, E_REVIVE, f, st[A.S_GRAVE], 0, 0, 0, 0, 0, 0)
    st[A.S_REVIVE_LEFT] = 0


@njit(cache=CACHE, _nrt=False)
def use_treasure(rules, st, opts, c, pol, dice, w):
    """Use the token of an ``A_TREASURE`` option, by its effect: Dragon Bait (monsters to the Lair),
    Ring of Invisibility (the Lair empties), Elixir (one die back from the Graveyard). The other
    effects act otherwise (companions as units, scrolls, portals) or not at all (scales, plain): no
    menu offers them here, and if one did its token would be spent for nothing, counted in ``S_FAULT``
    and the delve stopped (returns REASON_FAULT; else 0) instead of running another effect."""
    rs, script, trace = dice
    k = opts[c, A.O_ARG]
    effect = rules[R_TREASURE + k * T_COLS + T_EFFECT]
    st[A.S_TREASURE + k] -= 1
    if effect == A.TE_BAIT:
        apply_mass(rules, st, np.int64(A.ULT_TO_LAIR), np.int64(0))
        ev(trace, st, E_TREASURE, k, 0, 0, 0, 0, 0, 0, 0)
        ev_dungeon(trace, st, np.int64(0), np.int64(0))
    elif effect == A.TE_RING:
        st[A.S_LAIR] = 0
        ev(trace, st, E_TREASURE, k, 0, 0, 0, 0, 0, 0, 0)
    elif effect == A.TE_ELIXIR:
        ev(trace, st, E_TREASURE, k, 0, 0, 0, 0, 0, 0, 0)
        revive(rules, st, rules[R_TREASURE + k * T_COLS + T_DICE], pol, dice, opts, w)  # treasures.*.dice
    else:
        st[A.S_FAULT] += 1
        return REASON_FAULT
    return 0


@njit(cache=CACHE, inline=inline_in("play_delve"), _nrt=False)
def apply_loot(rules, st, opts, c, pol, dice, w):
    """Open chests (one treasure each), quaff potions, or use a token (an Elixir: ``use_treasure``)."""
    rs, script, trace = dice
    act = opts[c, A.O_ACTION]
    if act == A.A_OPEN:
        k = opts[c, A.O_N]
        u = opts[c, A.O_ARG]
        use_unit(st, u, np.int64(1), trace)
        st[A.S_DUN + A.CHEST] -= k
        st[A.S_CHESTS] += k
        ev(trace, st, E_OPEN, u, k, 0, 0, 0, 0, 0, 0)
        for _ in range(k):
            draw_treasure(rules, st, dice, np.int64(0))
    elif act == A.A_QUAFF:
        u = opts[c, A.O_ARG]
        use_unit(st, u, np.int64(1), trace)
        p = st[A.S_DUN + A.POTION]
        st[A.S_DUN + A.POTION] = 0
        ev(trace, st, E_QUAFF, u, p, 0, 0, 0, 0, 0, 0)
        revive(rules, st, p, pol, dice, opts, w)
    elif act == A.A_TREASURE:
        use_treasure(rules, st, opts, c, pol, dice, w)
    else:  # the loot menus offer no other action
        st[A.S_FAULT] += 1


# --- phases ----------------------------------------------------------------------------------------
@njit(cache=CACHE, inline="always", _nrt=False)  # one caller
def form_party(rules, st, pol, dice, opts, w):
    """Roll every party die; then the hero's forming powers (rerolls, then face transforms)."""
    rs, script, trace = dice
    for f in range(A.N_FACES):
        st[A.S_PARTY + f] = 0
    st[A.S_GRAVE] = 0
    for _ in range(rules[R_PARTY_DICE]):
        st[A.S_PARTY + party_face(rules, dice)] += 1
    ev_party(trace, st)
    h = hero_at(rules, st)
    for _ in range(rules[h + A.H_FORM_REROLL]):
        reroll(rules, st, np.int64(A.SRC_FORM), np.bool_(False), pol, dice, opts, w)
    a = rules[h + A.H_FORM_FROM]
    if a >= 0 and st[A.S_PARTY + a] > 0:
        b = rules[h + A.H_FORM_TO]
        k = st[A.S_PARTY + a]
        st[A.S_PARTY + a] = 0
        st[A.S_PARTY + b] += k
        ev(trace, st, E_TRANSFORM, a, b, k, 0, 0, 0, 0, 0)
        ev_party(trace, st)


@njit(cache=CACHE, inline="always", _nrt=False)
def roll_level(rules, st, dice):
    """Level L rolls min(level_dice.L (by default L), dungeon dice not in the Lair); dragons go straight to the
    Lair."""
    rs, script, trace = dice
    for t in range(5):
        st[A.S_DUN + t] = 0
    n = min(rules[R_LEVEL_DICE + st[A.S_LEVEL] - 1], rules[R_DUNGEON_DICE] - st[A.S_LAIR])
    dragons = np.int64(0)  # typed (see ``reroll``)
    for _ in range(n):
        face = rules[R_DUNGEON_FACES + roll(rs, script, rules[R_DUNGEON_SIDES]) - 1]
        if face == A.DRAGON:
            st[A.S_LAIR] += 1
            dragons += 1
        else:
            st[A.S_DUN + face] += 1
    ev_dungeon(trace, st, n, dragons)


@njit(cache=CACHE, inline="always", _nrt=False)
def empty_phase_offers(rules, st):
    """Might the monster phase of a level with no monster left offer more than "done" (``monster_menu``'s scrolls
    and ultimate)? When not, nothing would be asked: the menu is not built."""
    if rules[R_SCROLL_PHASES] & A.PH_MONSTER and st[A.S_PARTY + A.SCROLL] > 0:
        return True
    if find_treasure(rules, st, A.TE_SCROLL, A.PH_MONSTER) >= 0:
        return True
    u = ult_ready(rules, st, A.PH_MONSTER)
    return (u == A.ULT_DEFEAT or u == A.ULT_TRANSFORM or u == A.ULT_DISCARD or u == A.ULT_REROLL
            or u == A.ULT_SACRIFICE)


@njit(cache=CACHE, inline="always", _nrt=False)  # one caller: saves passing ~70 words
def monster_phase(rules, st, pol, dice, opts, w):
    """Defeat every monster or flee (0 cleared, REASON_FLEE, REASON_PORTAL). A level without monsters still has
    the phase (``rulings.empty_monster_phase``): its scrolls and ultimate are offered, with "done", until done or
    nothing but "done" is left (then nothing is asked)."""
    rs, script, trace = dice
    full = st[A.S_FULL_MENU] == 1
    while monsters(st) > 0 or rules[R_EMPTY_MONSTER] == 1:
        if monsters(st) == 0 and not empty_phase_offers(rules, st):
            break  # (only "done" would be offered; the session 67 question cost Delve 10 % of its speed)
        n = monster_menu(rules, st, opts, full, w)
        if opts[0, A.O_ACTION] == A.A_DONE and n == 1:
            break
        c = decide(A.D_MONSTER, st, opts, n, pol, dice)
        act = opts[c, A.O_ACTION]
        if act == A.A_DONE:
            break
        if act == A.A_FIGHT:
            spend(st, opts, c, trace, w)
            for t in range(A.N_MONSTER_TYPES):
                st[A.S_DUN + t] = 0
            ev(trace, st, E_CLEARED, 0, 0, 0, 0, 0, 0, 0, 0)
            ev_party(trace, st)
        elif act == A.A_SCROLL:
            use_unit(st, opts[c, A.O_ARG], np.int64(1), trace)
            reroll(rules, st, np.int64(A.SRC_SCROLL), np.bool_(True), pol, dice, opts, w)
        elif act == A.A_ULTIMATE:
            use_ultimate(rules, st, opts, c, pol, dice, w)
        elif act == A.A_TREASURE:  # Dragon Bait; an Elixir for heroes who loot here
            if use_treasure(rules, st, opts, c, pol, dice, w) == REASON_FAULT:
                return REASON_FAULT
        elif act == A.A_OPEN or act == A.A_QUAFF:
            apply_loot(rules, st, opts, c, pol, dice, w)
        elif act == A.A_PORTAL:
            return use_portal(rules, st, opts[c, A.O_ARG], trace)
        elif act == A.A_FLEE:
            ev(trace, st, E_FLEE, FLEE_MONSTERS, 0, 0, 0, 0, 0, 0, 0)
            return REASON_FLEE
        else:  # the menu offers no other action
            st[A.S_FAULT] += 1
            return REASON_FAULT
    return 0


@njit(cache=CACHE, _nrt=False)
def use_portal(rules, st, k, trace):
    """Town Portal instead of fleeing: XP equal to the level (x xp.portal_per_level); the delve ends."""
    st[A.S_TREASURE + k] -= 1
    ev(trace, st, E_PORTAL, k, 0, 0, 0, 0, 0, 0, 0)
    gain_xp(rules, st, st[A.S_LEVEL] * rules[R_PORTAL_XP], XP_PORTAL, trace)
    return REASON_PORTAL


@njit(cache=CACHE, _nrt=False)
def use_ultimate(rules, st, opts, c, pol, dice, w):
    """The hero's ultimate (once per delve), from a monster- or dragon-phase option."""
    rs, script, trace = dice
    h = hero_at(rules, st)
    u = rules[h + A.H_ULT]
    st[A.S_ULT_USED] = 1
    ev(
        trace,
        st,
        E_ULTIMATE,
        u,
        opts[c, A.O_ARG],
        opts[c, A.O_MON],
        opts[c, A.O_MON + 1],
        opts[c, A.O_MON + 2],
        0,
        0,
        0,
    )
    if u == A.ULT_DEFEAT or u == A.ULT_TRANSFORM:
        ultimate_effect(rules, st, opts[c, A.O_MON : A.O_MON + 3], opts[c, A.O_ARG], np.int64(1))
    elif u == A.ULT_DISCARD or u == A.ULT_TO_LAIR:
        apply_mass(rules, st, u, rules[h + A.H_ULT_MASK])
    elif u == A.ULT_REROLL:
        dungeon = st[A.S_PHASE] == A.PH_MONSTER
        reroll(rules, st, np.int64(A.SRC_ULTIMATE), dungeon, pol, dice, opts, w)
        return
    elif u == A.ULT_SACRIFICE:  # discard treasures: defeat all, open all, quaff all, empty the Lair
        st[A.S_TREASURE + opts[c, A.O_ARG]] -= rules[h + A.H_ULT_N]
        for t in range(A.N_MONSTER_TYPES):
            st[A.S_DUN + t] = 0
        k = st[A.S_DUN + A.CHEST]
        st[A.S_DUN + A.CHEST] = 0
        st[A.S_CHESTS] += k
        for _ in range(k):
            draw_treasure(rules, st, dice, np.int64(0))
        p = st[A.S_DUN + A.POTION]
        st[A.S_DUN + A.POTION] = 0
        st[A.S_LAIR] = 0
        revive(rules, st, p, pol, dice, opts, w)
    ev_dungeon(trace, st, np.int64(0), np.int64(0))


@njit(cache=CACHE, inline="always", _nrt=False)  # one caller: saves passing ~70 words
def loot_phase(rules, st, ptable, pol, dice, opts, w):
    """Open chests and quaff potions as the policy likes; leftovers are discarded."""
    while True:
        if st[A.S_DUN + A.CHEST] == 0 and st[A.S_DUN + A.POTION] == 0:
            if st[A.S_GRAVE] == 0 or find_treasure(rules, st, A.TE_ELIXIR, A.PH_LOOT) < 0:
                break
        n = add_row(opts, 0, A.A_DONE, 0, 0, 0, 1)
        if st[A.S_LAIR] >= rules[R_DRAGON_AT]:
            load_units(rules, st, np.int64(A.PH_DRAGON), w)
            opts[0, A.O_OK] = 1 if dragon_can(w, dragon_need(rules, st)) else 0
        n = loot_rows(rules, st, np.int64(A.PH_LOOT), opts, n, w)
        if n == 1:
            break
        outlook(rules, st, ptable, w)
        if ptable.shape[0] > 0 and pol.pid == USER_POLICY_ID:  # the built-ins never read O_P (policies.py)
            advise_p(rules, st, ptable, opts, n, w)
        c = decide(A.D_LOOT, st, opts, n, pol, dice)
        if opts[c, A.O_ACTION] == A.A_DONE:
            break
        apply_loot(rules, st, opts, c, pol, dice, w)
        if st[A.S_FAULT] > 0:
            break
    st[A.S_DUN + A.CHEST] = 0
    st[A.S_DUN + A.POTION] = 0


@njit(cache=CACHE, _nrt=False)
def advise_p(rules, st, ptable, opts, n, w):
    """O_P of loot rows: the chance of clearing the next level with the party left after the row (``p_clear``;
    called after ``outlook``, whose ``S_P_NEXT`` is the party in hand's, -1 after the last level). For a user's
    policy only: no built-in reads it, and it cost about 8 % of the kernel under risk (session 34)."""
    for i in range(n):
        opts[i, A.O_P] = st[A.S_P_NEXT]
    if st[A.S_LEVEL] >= rules[R_LEVELS]:
        return
    party = st[A.S_PARTY : A.S_PARTY + A.N_FACES]
    total = rules[R_PARTY_DICE]
    off, stride = clear_at(rules, st, st[A.S_LEVEL] + 1, w)
    for i in range(n):
        u = opts[i, A.O_ARG]
        act = opts[i, A.O_ACTION]
        if (act == A.A_OPEN or act == A.A_QUAFF) and u < A.U_TEMP:
            party[u] -= 1
            opts[i, A.O_P] = ptable[off + party_index(w, party, total) * stride]
            party[u] += 1  # the view writes through to ``st``: restored


@njit(cache=CACHE, inline="always", _nrt=False)  # one caller: saves passing ~70 words
def dragon_phase(rules, st, pol, dice, opts, w):
    """With ``dragon.threshold`` dice in the Lair the dragon attacks: companions of ``need`` different
    types defeat it (1 treasure, 1 XP, the Lair empties); a Ring, or an ultimate (Bard Song, Arcane Fury, Divine
    Intervention when its phases name the dragon), sends it away; else flee."""
    rs, script, trace = dice
    st[A.S_FACED] += 1
    need = dragon_need(rules, st)
    ev(trace, st, E_DRAGON, st[A.S_LAIR], need, 0, 0, 0, 0, 0, 0)
    full = st[A.S_FULL_MENU] == 1
    while st[A.S_LAIR] >= rules[R_DRAGON_AT]:
        load_units(rules, st, np.int64(A.PH_DRAGON), w)
        n = dragon_rows(w, need, opts, 0, A.MAX_OPTIONS // 2 if full else 1)
        fights = n
        k = find_treasure(rules, st, A.TE_RING, A.PH_DRAGON)
        if k >= 0:
            n = add_row(opts, n, A.A_TREASURE, k, 0, 100, 1)
        k = find_treasure(rules, st, A.TE_ELIXIR, A.PH_DRAGON)
        if k >= 0 and st[A.S_GRAVE] > 0:
            back = min(rules[R_TREASURE + k * T_COLS + T_DICE], st[A.S_GRAVE])
            ok = 1 if fights > 0 or dragon_can(w, need - back) else 0
            n = add_row(opts, n, A.A_TREASURE, k, back, 50, ok)
        u = ult_ready(rules, st, A.PH_DRAGON)
        h = hero_at(rules, st)
        if u == A.ULT_DISCARD and rules[h + A.H_ULT_MASK] & 8:
            n = add_row(opts, n, A.A_ULTIMATE, 0, st[A.S_LAIR], 120, 1)
        elif u == A.ULT_REROLL:
            n = add_row(opts, n, A.A_ULTIMATE, 0, 0, 540, 0)
        elif u == A.ULT_SACRIFICE:  # Divine Intervention: N tokens of one kind for an empty Lair (after the Ring,
            cost = rules[h + A.H_ULT_N]  # which spends no ultimate; the cheaper kinds first)
            for k in range(rules[R_N_TREASURES]):
                if st[A.S_TREASURE + k] >= cost:
                    pts = rules[R_TREASURE + k * T_COLS + T_POINTS]
                    n = add_row(opts, n, A.A_ULTIMATE, k, st[A.S_LAIR], 130 + pts, 1)
        if rules[R_SCROLL_PHASES] & A.PH_DRAGON:
            if st[A.S_PARTY + A.SCROLL] > 0:
                n = add_row(opts, n, A.A_SCROLL, A.U_PARTY + A.SCROLL, 0, 500, 0)
            k = find_treasure(rules, st, A.TE_SCROLL, A.PH_DRAGON)
            if k >= 0:
                n = add_row(opts, n, A.A_SCROLL, A.U_TOKEN + k, 0, 509, 0)
        if fights == 0:
            k = find_treasure(rules, st, A.TE_PORTAL, A.PH_DRAGON)
            if k >= 0:
                n = add_row(opts, n, A.A_PORTAL, k, st[A.S_LEVEL] * rules[R_PORTAL_XP], 2500, 0)
            n = add_row(opts, n, A.A_FLEE, 0, 0, 4000, 0)
        c = decide(np.int64(A.D_DRAGON), st, opts, n, pol, dice)
        act = opts[c, A.O_ACTION]
        if act == A.A_FIGHT:
            spend(st, opts, c, trace, w)
            st[A.S_LAIR] = 0
            st[A.S_SLAIN] += 1
            ev(trace, st, E_SLAIN, 0, 0, 0, 0, 0, 0, 0, 0)
            gain_xp(rules, st, rules[R_DRAGON_XP], XP_DRAGON, trace)
            for _ in range(rules[R_DRAGON_TREASURES]):
                draw_treasure(rules, st, dice, np.int64(1))
        elif act == A.A_TREASURE:  # a Ring or an Elixir
            if use_treasure(rules, st, opts, c, pol, dice, w) == REASON_FAULT:
                return REASON_FAULT
        elif act == A.A_ULTIMATE:
            use_ultimate(rules, st, opts, c, pol, dice, w)
        elif act == A.A_SCROLL:
            use_unit(st, opts[c, A.O_ARG], np.int64(1), trace)
            reroll(rules, st, np.int64(A.SRC_SCROLL), np.bool_(False), pol, dice, opts, w)
        elif act == A.A_PORTAL:
            return use_portal(rules, st, opts[c, A.O_ARG], trace)
        elif act == A.A_FLEE:
            ev(trace, st, E_FLEE, FLEE_DRAGON, 0, 0, 0, 0, 0, 0, 0)
            return REASON_FLEE
        else:  # the menu offers no other action
            st[A.S_FAULT] += 1
            return REASON_FAULT
    return 0


@njit(cache=CACHE, inline="always", _nrt=False)
def outlook(rules, st, ptable, w):
    """What the next level holds: ``S_P_NEXT`` (chance x 1e6 of clearing it with the party in hand,
    -1 without a table), ``S_PORTAL_FALLBACK`` (net points a held Town Portal saves if it fails) and the DP's
    advice (``dp_advice``). Without the tables their columns keep the -1 ``play_game`` starts them at."""
    level = st[A.S_LEVEL]
    if ptable.shape[0] > 0:
        st[A.S_P_NEXT] = p_clear(rules, ptable, st, st[A.S_PARTY : A.S_PARTY + A.N_FACES], level + 1, w)
        if ptable.shape[0] > clear_size(rules, w):
            dp_advice(rules, ptable, st, w)
    k = find_treasure(rules, st, A.TE_PORTAL, A.PH_MONSTER | A.PH_DRAGON)
    fallback = 0
    if k >= 0:
        fallback = max((level + 1) * rules[R_PORTAL_XP] - rules[R_TREASURE + k * T_COLS + T_POINTS], 0)
    st[A.S_PORTAL_FALLBACK] = fallback


@njit(cache=CACHE, inline="always", _nrt=False)
def regroup(rules, st, ptable, pol, dice, opts, w):
    """Temporary companions leave; retire (True) or seek glory. After the last level: retire."""
    for f in range(A.N_FACES):
        st[A.S_TEMP + f] = 0
    level = st[A.S_LEVEL]
    if level >= rules[R_LEVELS]:
        return True
    outlook(rules, st, ptable, w)
    fallback = st[A.S_PORTAL_FALLBACK]
    n = add_row(opts, 0, A.A_RETIRE, 0, level * rules[R_RETIRE_XP], 0, 1)
    n = add_row(opts, n, A.A_CONTINUE, fallback, (level + 1) * rules[R_RETIRE_XP], 0, 1)
    opts[1, A.O_P] = st[A.S_P_NEXT]
    c = decide(np.int64(A.D_REGROUP), st, opts, n, pol, dice)
    return opts[c, A.O_ACTION] == A.A_RETIRE


@njit(cache=CACHE, _nrt=False)
def play_delve(rules, st, ptable, pol, dice, opts, w):
    """One delve: form the party, then levels until retiring, fleeing or a Town Portal.

    Called, not inlined into ``play_game`` (a call per delve costs nothing measurable): numba inlines a function
    by deep-copying its IR block by block, and each block's copy copies the whole variable scope, so inlining
    this one (every phase already inlined in it: 626 blocks, 7,000 variables) cost more CPU than the rest of the
    compile (``docs/startup.md``, "Delve, session 29")."""
    rs, script, trace = dice
    st[A.S_LEVEL] = 1
    st[A.S_PHASE] = 0
    st[A.S_ULT_USED] = 0
    st[A.S_LAIR] = 0
    st[A.S_DELVE_XP] = 0
    for f in range(A.N_FACES):
        st[A.S_TEMP + f] = 0
    ev(trace, st, E_DELVE, st[A.S_DELVE], st[A.S_XP], st[A.S_MASTER], 0, 0, 0, 0, 0)
    form_party(rules, st, pol, dice, opts, w)
    while True:
        roll_level(rules, st, dice)
        st[A.S_PHASE] = A.PH_MONSTER
        r = monster_phase(rules, st, pol, dice, opts, w)
        if r == 0:
            st[A.S_PHASE] = A.PH_LOOT
            loot_phase(rules, st, ptable, pol, dice, opts, w)
            if st[A.S_LAIR] >= rules[R_DRAGON_AT]:
                st[A.S_PHASE] = A.PH_DRAGON
                r = dragon_phase(rules, st, pol, dice, opts, w)
        st[A.S_PHASE] = 0
        if r == REASON_FLEE:
            st[A.S_FLED] += 1
            if rules[R_FLEE_KEEPS] == 0:
                st[A.S_XP] -= st[A.S_DELVE_XP]
            return
        if r == REASON_PORTAL:
            st[A.S_PORTALS] += 1
            return
        if r == REASON_FAULT or st[A.S_FAULT] > 0:
            return
        if regroup(rules, st, ptable, pol, dice, opts, w):
            st[A.S_RETIRED] += 1
            ev(trace, st, E_RETIRE, st[A.S_LEVEL], 0, 0, 0, 0, 0, 0, 0)
            gain_xp(rules, st, st[A.S_LEVEL] * rules[R_RETIRE_XP], XP_RETIRE, trace)
            return
        st[A.S_LEVEL] += 1


@njit(cache=CACHE, _nrt=False)
def play_game(rules, st, ptable, pol, dice, opts, w, hero, full_menu):
    """A whole game (``game.delves`` delves); the result stays in ``st``. ``full_menu``: 1 if the
    policy has the ``full_menu`` trait (menus list every fight)."""
    rs, script, trace = dice
    st[:] = 0
    st[A.S_HERO] = hero
    st[A.S_FULL_MENU] = full_menu
    st[A.S_LEVELS] = rules[R_LEVELS]
    st[A.S_DELVES] = rules[R_DELVES]
    st[A.S_RETIRE_XP] = rules[R_RETIRE_XP]
    st[A.S_P_NEXT] = -1
    st[A.S_DP_GO] = -1
    st[A.S_DP_RETIRE] = -1
    for k in range(rules[R_N_TREASURES]):
        st[A.S_POOL + k] = rules[R_TREASURE + k * T_COLS + T_COUNT]
        st[A.S_POOL_LEFT] += st[A.S_POOL + k]
    check_master(rules, st, trace)
    for d in range(rules[R_DELVES]):
        st[A.S_DELVE] = d + 1
        play_delve(rules, st, ptable, pol, dice, opts, w)
        st[A.S_DELVE_LEVEL + d] = st[A.S_LEVEL]
        if st[A.S_FAULT] > 0:  # a choice no rule handles: the game stops (the tests check it never happens)
            break
    s = score(rules, st)
    st[A.S_SCORE] = s
    ev(trace, st, E_END, s, st[A.S_XP], rank(rules, s), 0, 0, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def write_out(rules, st, out, g, game):
    """Game ``g``'s outcome into column ``g`` of ``out`` (one row per output, as declared in outputs.py: each
    output's games are contiguous, so a chunk's summary reads its columns without copying them out of rows)."""
    s = st[A.S_SCORE]
    out[A.OUT_GAME, g] = game
    out[A.OUT_WIN, g] = 1 if s >= rules[R_WIN_SCORE] else 0
    out[A.OUT_SCORE, g] = s
    out[A.OUT_XP, g] = st[A.S_XP]
    held = 0
    for k in range(rules[R_N_TREASURES]):
        held += st[A.S_TREASURE + k]
    out[A.OUT_TREASURES, g] = held
    out[A.OUT_RANK, g] = rank(rules, s)
    out[A.OUT_FLED, g] = st[A.S_FLED]
    out[A.OUT_PORTALS, g] = st[A.S_PORTALS]
    out[A.OUT_RETIRED, g] = st[A.S_RETIRED]
    out[A.OUT_SLAIN, g] = st[A.S_SLAIN]
    out[A.OUT_FACED, g] = st[A.S_FACED]
    out[A.OUT_CHESTS, g] = st[A.S_CHESTS]
    out[A.OUT_TREASURES_WON, g] = st[A.S_TREASURES_WON]
    out[A.OUT_MASTER, g] = st[A.S_MASTER]
    out[A.OUT_BAD, g] = st[A.S_BAD]
    out[A.OUT_DECISIONS, g] = st[A.S_NDEC]
    for d in range(rules[R_DELVES]):
        out[A.OUT_DELVE_LEVEL + d, g] = st[A.S_DELVE_LEVEL + d]


@njit(cache=CACHE, _nrt=False)
def search_game(rules, st, ptable, pol, dice, quiet, opts, w, hero, full_menu, seed, game, rollouts, kinds, margin,
                progress, acc):
    """One game played by the search policy (``search.py``): probes and rollouts on ``quiet`` dice (no
    trace), each a whole ``play_game`` with the prefix forced; the last probe is the real game. A rollout's
    value: win (score >= the win score) + progress x score / the win score. With a trace, the real game is
    played once more into it, with the search rows. Replay faults (``search.C_FAULT``) end in
    ``S_SEARCH_FAULT``."""
    ctl = pol.ctl
    rs = dice.rs
    win_score = rules[R_WIN_SCORE]
    S.begin(ctl, seed, game, kinds, A.N_DECISIONS)
    while True:
        S.probe(ctl)
        seed_stream(rs, seed, game)
        opts[:, :] = 0  # every play starts from the same options table: nothing left over from another play
        play_game(rules, st, ptable, pol, quiet, opts, w, hero, full_menu)
        n = ctl[S.C_N]
        if n == 0:
            break
        plen = ctl[S.C_PLEN]
        S.clear(acc, n)
        for r in range(rollouts):
            for i in range(n):
                S.rollout(ctl, plen, i, r)
                seed_stream(rs, seed, game)
                opts[:, :] = 0
                play_game(rules, st, ptable, pol, quiet, opts, w, hero, full_menu)
                S.score(acc, i, 1.0 if st[A.S_SCORE] >= win_score else 0.0, st[A.S_SCORE] / max(win_score, 1),
                        progress)
            S.paired(ctl, acc, n)
        S.commit(ctl, plen, acc, n, rollouts, margin)
    if dice.trace.shape[0] > 0:
        S.replay_final(ctl)
        seed_stream(rs, seed, game)
        opts[:, :] = 0
        play_game(rules, st, ptable, pol, dice, opts, w, hero, full_menu)
    st[A.S_SEARCH_FAULT] = ctl[S.C_FAULT]


def _kernel(rules, ptable, ctl, params, user_fn, seed, script, out, trace):
    """Games ``ctl[1] .. ctl[1]+ctl[2]-1`` of stream ``seed``; ``ctl`` = (policy id, start, count,
    hero index, full menu: 1 if the policy has the ``full_menu`` trait). One ``prange`` iteration per
    CHUNK of games, scratch allocated once per chunk."""
    pid = ctl[0]
    start = ctl[1]
    count = ctl[2]
    hero = ctl[3]
    full_menu = ctl[4]
    nchunks = (count + CHUNK - 1) // CHUNK
    # The search policy (``search.py``): params = (rollouts, base id, kinds, the base's parameters...).
    searching = pid == A.P_SEARCH
    base_pid, n_base, rollouts, kinds, margin, progress = S.settings(params, searching, pid)  # (before the loop)
    for c in prange(nchunks):
        # Thread-local copies, passed on as borrowed views (see ``borrow``).
        rl = rules.copy()
        pt = ptable  # read only and large (the DP's table is ~40 MB): shared, not copied per chunk
        pa = params[params.shape[0] - n_base :].copy()
        sctl = np.zeros((S.CTL_SIZE + (S.VALUE_ROOM if trace.shape[0] > 1 else 0)) if searching else 0,
                        dtype=np.int64)
        acc = np.zeros((S.ACC_ROWS, S.MAX_BRANCH if searching else 0), dtype=np.float64)
        quiet_tr = np.zeros((0, TRACE_COLS), dtype=np.int64)
        sc = script.copy()
        tr = trace if trace.shape[0] > 1 else np.zeros((0, TRACE_COLS), dtype=np.int64)
        rs = np.zeros(4, dtype=np.uint64)
        st = np.zeros(A.STATE_SIZE, dtype=np.int64)
        opts = np.zeros((A.MAX_OPTIONS + 1, A.N_OCOLS), dtype=np.int64)
        w = np.zeros((W_ROWS, W_COLS), dtype=np.int64)
        init_scratch(rl, w)
        b_rl = borrow(rl)
        b_pt = borrow(pt)
        b_pa = borrow(pa)
        b_sc = borrow(sc)
        b_tr = borrow(tr)
        b_rs = borrow(rs)
        b_st = borrow(st)
        b_opts = borrow(opts)
        b_w = borrow(w)
        b_out = borrow(out)
        b_sctl = borrow(sctl)
        pol = Pol(base_pid, b_pa, user_fn, b_sctl)
        dice = Dice(b_rs, b_sc, b_tr)
        for g in range(c * CHUNK, min(count, (c + 1) * CHUNK)):
            if searching:
                search_game(b_rl, b_st, b_pt, pol, dice, Dice(b_rs, b_sc, borrow(quiet_tr)), b_opts, b_w, hero,
                            full_menu, seed, start + g, rollouts, kinds, margin, progress, borrow(acc))
            else:
                seed_stream(b_rs, seed, start + g)
                play_game(b_rl, b_st, b_pt, pol, dice, b_opts, b_w, hero, full_menu)
            write_out(b_rl, b_st, b_out, g, start + g)
        keep_alive(rl, pt, pa, sc, rs, st, opts, w)
        keep_alive(tr, sctl, acc, quiet_tr, tr, tr, tr, tr)


KERNEL_SIG = types.void(
    types.int64[::1],
    types.int32[::1],
    types.int64[::1],
    types.float64[::1],
    POLICY_TYPE,
    types.uint64,
    types.int64[::1],
    types.int64[:, ::1],
    types.int64[:, ::1],
)
#: The compiled entry points, built on first use (see ``config.CompiledOnFirstUse``).
_ENTRIES = {"simulate": CompiledOnFirstUse(__name__, KERNEL_SIG, _kernel, parallel=True)}


def entry(name: str):
    """The compiled entry point ``"simulate"`` (parallel, many games; one game with a trace when
    ``count`` is 1 and the trace has rows)."""
    return _ENTRIES[name]()
