"""Dungeon Foury rules as small numba functions, and the parallel driver over games.

One implementation of every rule: the parallel run, the single-game replay with a trace, the
scripted-dice tests and ``NUMBA_DISABLE_JIT=1`` all go through these functions.

Arguments that recur (kept in this order); the arrays that travel together come bundled:

* ``board`` a :class:`Board`: ``R`` int64[R_SIZE] scalar rules, ``T`` int64[T_ROWS, T_COLS] tables
  (see ``layout``), ``geo`` int64[n, 6]: the four neighbours (N, E, S, W; -1 none), the sector, the
  static distance to the Oracle; ``arrows`` int64[k, 3]: cell, direction of travel, sector;
* ``st`` the state vector, ``rm`` int64[n, RM_COLS] the rooms as drawn on this sheet, ``sc``
  int64[SC_ROWS, n] scratch for searches, ``opts`` int64[option_rows(n), N_OCOL] decision options;
* ``dice`` a :class:`Dice`: ``rs`` the dice stream, ``ps`` the policy stream, ``script`` forced dice
  (tests), ``tr`` the trace (one row = no trace);
* ``pol`` a :class:`Pol`: ``pid`` built-in policy id, ``params`` its parameters, ``fn`` a user's
  policy function, ``ctl`` and ``rs``: the search policy's hooks (``search.py``; ``ctl`` empty: off).

A function that needs one or two members of a bundle takes them alone (``passable(R, ...)``,
``log(tr, ...)``); one that needs more takes the bundle and unpacks it on its first line.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange, types, uint64

from ... import search as S
from ...config import CACHE, CHUNK, JIT_DISABLED, CompiledOnFirstUse
from ...policy import POLICY_TYPE, USER_POLICY_ID
from ...rng import d6, next_u64, roll, seed_stream
from ...tracing import trace_row
from .icons import (
    ALL_ITEMS,
    BLUE_PACKAGE,
    CAMPAIGN_ITEMS,
    CANDY_CANE,
    CIRCLE,
    CORNUCOPIA,
    DIE,
    FOE_FIRST,
    GREEN_PACKAGE,
    LEVER,
    MAX_FOES,
    POTION,
    PURPLE_POTION,
    REINDEER,
    RUDOLPH,
    SAFE_ZONE,
    STAIRS,
    STAR,
    YELLOW_POTION,
)
from .icons import CHEST as I_CHEST
from .icons import CLOVER as I_CLOVER
from .icons import SHIELD as I_SHIELD
from .icons import SHOVEL as I_SHOVEL
from .icons import WEAPON as I_WEAPON
from .layout import *  # noqa: F403  (the layout is the kernel's vocabulary)
from .policies import POL_SEARCH, builtin_decide


class Board(NamedTuple):
    """The ruleset and the map: the same for every game of a run."""

    R: np.ndarray
    T: np.ndarray
    geo: np.ndarray
    arrows: np.ndarray


class Dice(NamedTuple):
    """Chance and its record: the dice stream, the policy stream, forced dice (tests), the trace."""

    rs: np.ndarray
    ps: np.ndarray
    script: np.ndarray
    tr: np.ndarray


class Pol(NamedTuple):
    """Who decides: a built-in policy id and its parameters, or a user's policy function."""

    pid: int
    params: np.ndarray
    fn: Any
    #: The search hooks (``search.py``): the control array (empty: every hook off) and the dice stream
    #: the hooks re-key at a rollout's switch (the same array as the game's ``Dice.rs``).
    ctl: np.ndarray
    rs: np.ndarray


_POLICY_SALT = np.uint64(0x5DEECE66D1234567)
BIG = 9999
SC_DIST, SC_PAR, SC_PDIR, SC_QUEUE, SC_GOAL, SC_MASK, SC_WANT = 0, 1, 2, 3, 4, 5, 6
SC_UP_DP, SC_UP_BEST, SC_UP_MASK, SC_UP_LEV = 7, 8, 9, 10  # upper-level trips: subset DP, best cost and places,
#                                                            mask per (place, levers), the lever places of the DP
SC_FOE = 11  # the move menu's walk: first_foe of every room walked to (read again by its go-to loop, option_columns)
SC_BITS = 12  # the goal search's bit masks (goal_masks)
SC_ROWS = 13
UP_DP_SIZE = (1 << UP_MAX_LEVER_PLACES) * UP_MAX_LEVER_PLACES


# ------------------------------------------------------------------------- small helpers --
@njit(cache=CACHE, inline="always", _nrt=False)
def log(tr, st, code, a, b, c, d, e):
    """Append one row to the trace (no-op when tracing is off); rows are counted in ``st[S_TRACE_N]``."""
    trace_row(tr, st, S_TRACE_N, 0, code, (np.int64(a), np.int64(b), np.int64(c), np.int64(d), np.int64(e)))


@njit(cache=CACHE, inline="always", _nrt=False)
def decide(kind, n, st, opts, dice, pol):
    """Ask the policy to pick one of the first ``n`` option rows (``ask_policy``, ``kind`` and ``n`` as int64).

    Inlined, so that every call site passes the same types to the one compiled ``ask_policy``: a constant
    argument (``D_WEAPON``, ``2``) is typed as its value (``Literal[int](3)``) and a call of a compiled
    function with it compiles that function, and the whole policy switch under it, once per value. A lone
    option is taken here, without the call (``ask_policy`` asks nothing then either).
    """
    if n <= 1:
        return np.int64(0)
    return ask_policy(np.int64(kind), np.int64(n), st, opts, dice, pol)


@njit(cache=CACHE, _nrt=False)
def ask_policy(kind, n, st, opts, dice, pol):
    """Ask the policy to pick one of the first ``n`` option rows (called through ``decide``)."""
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    if n <= 1:
        return 0
    st[S_RAND] = np.int64(next_u64(ps) >> uint64(33))
    if pid == USER_POLICY_ID:
        c = fn(kind, st, opts, n, params)
    else:
        c = builtin_decide(pid, kind, st, opts, n, params)
    if c < 0 or c >= n:
        st[S_BAD_CHOICE] += 1
        c = 0
    f = S.forced(sctl, n)  # the search's hooks (off for every other policy)
    if f >= 0:
        c = f
    if S.chosen(sctl, kind, n, c, st, S_TRACE_N, opts):
        S.switch(srs, sctl)
        S.switch_policy(ps, sctl)
    v = S.traced_search(sctl)
    if v >= 0:  # a traced replay of a search game: what the rollouts said at this decision
        log_search(tr, st, sctl, v, kind)
    return c


@njit(cache=CACHE, _nrt=False)
def log_search(tr, st, ctl, v, kind):
    """The search rows of one searched decision (figures kept by ``search.commit`` at ``ctl[v]``): the
    decision, then one row per option."""
    n = ctl[v]
    log(tr, st, TR_SEARCH, kind, n, ctl[v + 1], ctl[v + 2], ctl[v + 3])
    for i in range(n):
        flag = (1 if i == ctl[v + 3] else 0) + (2 if i == ctl[v + 2] else 0)
        log(tr, st, TR_SEARCH_OPT, i, ctl[v + 4 + 3 * i], ctl[v + 5 + 3 * i], ctl[v + 6 + 3 * i], flag)


@njit(cache=CACHE, inline="always", _nrt=False)
def gain(st, tr, track, amount):
    """Add ``amount`` of a track up to its cap; the excess is lost (``_gain``, ``track`` and ``amount`` as int64).

    Inlined, so that every call site passes the same types to the one compiled ``_gain``: a constant
    (``CHEST``, ``1``) is typed as its value, and a compiled callee is compiled once per value.
    """
    return _gain(st, tr, np.int64(track), np.int64(amount))


@njit(cache=CACHE, _nrt=False)
def _gain(st, tr, track, amount):
    """Add ``amount`` of a track up to its cap; the excess is lost (called through ``gain``)."""
    cap = st[S_CAP + track]
    new = st[track] + amount
    if new > cap:
        log(tr, st, TR_CAPPED, track, new - cap, 0, 0, 0)
        new = cap
    got = new - st[track]
    st[track] = new
    if got > 0:
        log(tr, st, TR_GAIN, track, got, st[track], 0, 0)
    if track == CHEST:
        st[S_CHESTS_GAINED] += got
    return got


@njit(cache=CACHE, _nrt=False)
def lose(st, tr, track, amount):
    take = min(st[track], amount)
    st[track] -= take
    if take > 0:
        log(tr, st, TR_LOSE, track, take, st[track], 0, 0)
    return take


@njit(cache=CACHE, inline="always", _nrt=False)
def first_foe(R, rm, cell):
    """The first foe icon in a room (in the order of the ruleset's [enemies] table), or -1. (The column is read at an
    unsigned index: no negative index's test and correction at every column; see _spread.)"""
    if rm[cell, RM_FOES] == 0:  # (the sum of every foe slot, spare ones too: 0 means no foe; else the scan decides)
        return -1
    for ic in range(FOE_FIRST, FOE_FIRST + R[R_N_FOES]):
        if rm[cell, np.uint64(RM_ICON + ic)] > 0:
            return ic
    return -1


@njit(cache=CACHE, inline="always", _nrt=False)
def foe_has(T, foe, trait):
    """Does this foe have the trait (an FT_* bit of the ruleset's [enemies] table)?"""
    return (T[T_EN_TRAITS, foe] & trait) != 0


#: every item icon (collected, erased by an imp): the base game's, then the campaigns' (icons.ALL_ITEMS)
_ITEM_ICONS = np.array(ALL_ITEMS, np.int64)
assert ALL_ITEMS == (*range(I_CHEST, DIE + 1), YELLOW_POTION, PURPLE_POTION, *range(STAR, SAFE_ZONE + 1))  # (add_icon)
#: the campaigns' item icons (not their fixtures, such as the Slaughter's start triangle)
_CAMPAIGN_ITEM_ICONS = np.array(CAMPAIGN_ITEMS, np.int64)


@njit(cache=CACHE, inline="always", _nrt=False)
def item_count(rm, cell):
    """Items in a room (every icon of ``_ITEM_ICONS``): its ``RM_ITEMS``."""
    return rm[cell, RM_ITEMS]


@njit(cache=CACHE, inline="always", _nrt=False)
def add_icon(rm, cell, ic, k):
    """``k`` more (or fewer, ``k`` < 0) of icon ``ic`` in a room: its count, and the room's sum of foes or of items
    (``RM_FOES``, ``RM_ITEMS``: every change of an icon count goes through here) and its kinds of goal icon
    (``RM_KINDS``); a room given one is noted for ``mark_goals`` (``icon_added``)."""
    if k > 0:
        icon_added(rm, cell)
    rm[cell, RM_ICON + ic] += k
    if FOE_FIRST <= ic < FOE_FIRST + MAX_FOES:
        rm[cell, RM_FOES] += k
    elif ic <= DIE or YELLOW_POTION <= ic <= PURPLE_POTION or STAR <= ic <= SAFE_ZONE:  # (_ITEM_ICONS' three runs)
        rm[cell, RM_ITEMS] += k
    b = goal_kind(ic)
    if b >= 0:
        on = np.int64(1) << b
        rm[cell, RM_KINDS] = (rm[cell, RM_KINDS] & ~on) | (on if rm[cell, RM_ICON + ic] > 0 else np.int64(0))


@njit(cache=CACHE, inline="always", _nrt=False)
def goal_kind(ic):
    """The bit of icon ``ic`` in a room's ``RM_KINDS``: foe slot k's is k, then ``KIND_CORNUCOPIA`` and ``KIND_DIE``;
    -1 for any other icon."""
    if FOE_FIRST <= ic < FOE_FIRST + MAX_FOES:
        return ic - FOE_FIRST
    if ic == CORNUCOPIA:
        return np.int64(KIND_CORNUCOPIA)
    if ic == DIE:
        return np.int64(KIND_DIE)
    return np.int64(-1)


@njit(cache=CACHE, inline="always", _nrt=False)
def foe_strength(T, st, foe):
    """Strength added to a foe's d6: its cell of the strength table for this round (its place in the play order
    and its sector; by default base + multiplier x the round's monster bonus)."""
    return T[T_EN_STR + st[S_STR_ROW], foe]


@njit(cache=CACHE, inline="always", _nrt=False)
def die(board, st, tr, cause, cell):
    """The hero dies (or is stuck): ``_die`` with ``cause`` and ``cell`` as int64 (one compiled signature)."""
    _die(board, st, tr, np.int64(cause), np.int64(cell))


@njit(cache=CACHE, _nrt=False)
def _die(board, st, tr, cause, cell):
    """The hero dies (or is stuck): remember the first death for the report (called through ``die``)."""
    R, T, geo, arrows = board
    st[S_DEAD] = 1
    st[S_CAUSE] = cause
    st[HEARTS] = 0 if cause >= CAUSE_FOE or cause == CAUSE_DIE_TABLE else st[HEARTS]
    if st[S_DEATH_ROUND] == 0:
        st[S_DEATH_ROUND] = st[S_ROUND] + 1
        st[S_DEATH_CELL] = cell
        st[S_DEATH_SECTOR] = geo[cell, 4] if cell >= 0 else -1
        st[S_DEATH_CAUSE] = cause
        st[S_DEATH_TURN] = max(st[S_TURN], 1)
    log(tr, st, TR_DEATH, cause, cell, st[S_ROUND] + 1, 0, 0)


@njit(cache=CACHE, _nrt=False)
def unwinnable(st, tr, cause):
    """Remember the first turn from which no sequence of legal moves could still win."""
    if st[S_UNWIN_TURN] == 0:
        st[S_UNWIN_TURN] = max(st[S_TURN], 1)
        st[S_UNWIN_CAUSE] = cause
        log(tr, st, TR_UNWINNABLE, cause, st[S_UNWIN_TURN], 0, 0, 0)


@njit(cache=CACHE, inline="always", _nrt=False)
def swim_ok(R, st):
    return R[R_SWIM_ALL] == 1 or st[S_SECTOR] == 3


@njit(cache=CACHE, inline="always", _nrt=False)
def passable(R, st, rm, x, d, y):
    """Can one walk (or swim) from room x through side d into its neighbour y?"""
    if rm[y, RM_STATE] & COLLAPSED:
        return False
    w = rm[x, RM_WALL + d]
    if w == W_OPEN:
        return True
    if w == W_COLLAPSED and (rm[x, RM_STATE] & FLOODED) and (rm[y, RM_STATE] & FLOODED):
        return swim_ok(R, st)
    return False


@njit(cache=CACHE, inline="always", _nrt=False)
def made_progress(st):
    """Policy memory: something new happened (a room explored, a requirement element, a phase)."""
    st[S_PROGRESS_TURN] = st[S_TURN]
    st[S_JUMPS_IDLE] = 0


@njit(cache=CACHE, _nrt=False)
def check_awake(st, tr):
    if st[S_PHASE] == 0 and st[S_REQ_DONE] >= st[S_REQ_NEED]:
        st[S_PHASE] = 1
        made_progress(st)
        log(tr, st, TR_AWAKE, st[S_SECTOR], 0, 0, 0, 0)


@njit(cache=CACHE, inline="always", _nrt=False)
def req_pending(R, st):
    """Is the round's requirement still to meet: phase 0, or, in the 2-player mode, heading for an exit with the
    treasures before meeting it ("you still have the option to fulfill the requirement of the Round")?"""
    return st[S_PHASE] == 0 or (R[R_P2_PLAYERS] == 2 and st[S_PHASE] == 2 and st[S_REQ_DONE] < st[S_REQ_NEED])


@njit(cache=CACHE, _nrt=False)
def req_counts(board, st, cell, sector_needed):
    """Does a requirement element in ``cell`` count for the round being played?"""
    R, T, geo, arrows = board
    if not req_pending(R, st) or st[S_SECTOR] != sector_needed:
        return False
    return R[R_REQ_ANYWHERE] == 1 or cell < 0 or geo[cell, 4] == sector_needed


@njit(cache=CACHE, _nrt=False)
def progress(st, tr, amount):
    was = st[S_REQ_DONE]
    st[S_REQ_DONE] += amount
    made_progress(st)
    log(tr, st, TR_REQ, st[S_REQ_DONE], st[S_REQ_NEED], st[S_SECTOR], 0, 0)
    if st[S_PHASE] == 2 and was < st[S_REQ_NEED] <= st[S_REQ_DONE]:  # 2-player, heading out: the Oracle wakes
        log(tr, st, TR_AWAKE, st[S_SECTOR], 0, 0, 0, 0)
    check_awake(st, tr)


# -------------------------------------------------------------------------- cornucopias --
@njit(cache=CACHE, _nrt=False)
def redeem_options(st, opts):
    n = 0
    for r in range(N_TRAITS):
        if st[r] < st[S_CAP + r]:
            opts[n, 0] = r
            n += 1
    return n


@njit(cache=CACHE, _nrt=False)
def gain_cornucopia(board, st, opts, dice, pol, count, cell):
    """Gain cornucopias: set aside for the Waterways' requirement, redeemed now, or kept."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    for _ in range(count):
        if req_counts(board, st, cell, np.int64(3)):
            st[S_RESERVED] += 1
            log(tr, st, TR_GAIN, CORNU, 1, st[CORNU], 1, 0)
            progress(st, tr, np.int64(1))
            continue
        held = gain(st, tr, CORNU, 1) == 1
        n = 0
        if held:  # keeping it is an option only while there is a free box on the track
            opts[0, 0] = -1
            n = 1
        n += redeem_options(st, opts[n:])
        if n == 0:
            continue
        c = decide(D_CORNU, n, st, opts, dice, pol)
        r = opts[c, 0]
        if r >= 0:
            if held:
                st[CORNU] -= 1
            log(tr, st, TR_MARKET, M_REDEEM, r, 0, 0, 0)
            gain(st, tr, r, R[R_REDEEM])


# ------------------------------------------------------------------------------- combat --
@njit(cache=CACHE, _nrt=False)
def steal(R, st, opts, dice, pol):
    """A bandit that hurt you takes 1 of any other resource, ``combat.theft`` times (each one chosen as the
    ruling ``bandit_steals`` says)."""
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    for _ in range(R[R_THEFT]):
        n = 0
        for r in range(SHIELD, N_TRACKS):
            if st[r] > 0:
                opts[n, 0] = r
                n += 1
        if n == 0:
            return
        if R[R_STEAL_RANDOM] == 1:
            c = roll(rs, script, n) - 1 if n > 1 else 0
        else:
            c = decide(D_STEAL, n, st, opts, dice, pol)
        r = opts[c, 0]
        st[r] -= 1
        log(tr, st, TR_STEAL, r, st[r], 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def destroy_items(R, st, rm, dice, cell):
    """An imp appears: "If there is a Resource in the room ..., erase it".

    Ruling ``imp_destroys``: "one" erases one item, chosen by a die among the items lying there (each
    equally likely; none rolled when only one lies there); "all" erases every item. In Santa Crash'n Foury
    (``santa.imp_erases = "resources"``) the campaign's stars, collectibles and candy canes are not Resources: they
    are neither erased nor counted for the die.
    """
    rs, ps, script, tr = dice
    k = item_count(rm, cell)
    if k == 0:
        return
    last = SAFE_ZONE  # the last icon of _ITEM_ICONS the imp may erase
    if R[R_SANTA] == 1 and (R[R_SANTA_FLAGS] & SF_IMP_ALL) == 0:  # santa.imp_erases = "resources"
        last = PURPLE_POTION  # the campaign's icons (stars, collectibles, canes) come last: no Resource
        for ic in range(STAR, SAFE_ZONE + 1):
            k -= rm[cell, RM_ICON + ic]
        if k == 0:
            return
    if R[R_IMP_ONE] == 0:
        for ic in _ITEM_ICONS:
            if ic > last:
                break
            if rm[cell, RM_ICON + ic] > 0:
                log(tr, st, TR_IMP, cell, ic, rm[cell, RM_ICON + ic], 0, 0)
                add_icon(rm, cell, ic, -rm[cell, RM_ICON + ic])
        return
    pick = roll(rs, script, k) if k > 1 else 1
    for ic in _ITEM_ICONS:
        pick -= rm[cell, RM_ICON + ic]
        if pick <= 0:
            add_icon(rm, cell, ic, np.int64(-1))
            log(tr, st, TR_IMP, cell, ic, 1, 0, 0)
            return


@njit(cache=CACHE, _nrt=False)
def clover_options(st, opts, mine, theirs):
    """Options for a clover: none, reroll either die, or (Melyra) choose either die's value."""
    opts[0, 0] = 0
    opts[0, 1] = -1
    opts[0, 2] = 0
    n = 1
    if st[S_HERO] == H_MELYRA:
        for dd in range(2):
            for v in range(1, 7):
                opts[n, 0] = 2
                opts[n, 1] = dd
                opts[n, 2] = v
                n += 1
    else:
        for dd in range(2):
            opts[n, 0] = 1
            opts[n, 1] = dd
            opts[n, 2] = 0
            n += 1
    return n


@njit(cache=CACHE, _nrt=False)
def kill_rewards(board, st, rm, opts, dice, pol, foe, cell):
    """A monster is defeated: kill counter, Palace requirement, prizes, a returning foe marked to come back."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    st[S_KILLS_ROUND] += 1
    st[S_KILLS_TOTAL] += 1
    if req_counts(board, st, cell, np.int64(1)):
        progress(st, tr, np.int64(1))
    extra = 1 if st[S_HERO] == H_THALINDRA else 0
    if R[R_PRIZE_EVERY] > 0 and st[S_KILLS_ROUND] % R[R_PRIZE_EVERY] == 0 and R[R_PRIZE] > 0:
        log(tr, st, TR_KILL_PRIZE, st[S_KILLS_ROUND], R[R_PRIZE] + extra, 0, 0, 0)
        gain_cornucopia(board, st, opts, dice, pol, R[R_PRIZE] + extra, cell)
    if foe_has(T, foe, FT_CAMP_PRIZE) and R[R_BANDIT_PRIZE] > 0:
        k = R[R_BANDIT_PRIZE] + (extra if R[R_THAL_BANDIT] == 1 else 0)
        gain_cornucopia(board, st, opts, dice, pol, k, cell)
    if foe_has(T, foe, FT_RETURNS) and rm[cell, RM_RETURNS] > 0 and rm[cell, RM_RETURNER] == foe:
        rm[cell, RM_FLAG] |= F_RETURNER_DOWN


@njit(cache=CACHE, _nrt=False)
def fight(board, st, rm, opts, dice, pol, cell, foe):
    """Face one foe: roll-offs until it is beaten (1), you flee (0) or you die (-1)."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    strength = foe_strength(T, st, foe)
    log(tr, st, TR_FIGHT, foe, strength, cell, 0, 0)
    if foe_has(T, foe, FT_DESTROYS_ITEMS) and (rm[cell, RM_FLAG] & F_IMP_DONE) == 0:
        rm[cell, RM_FLAG] |= F_IMP_DONE
        destroy_items(R, st, rm, dice, cell)
    if foe_has(T, foe, FT_TEMPLE_GOAL) and (rm[cell, RM_FLAG] & F_FACED) == 0 and req_counts(
            board, st, cell, np.int64(0)):
        rm[cell, RM_FLAG] |= F_FACED
        log(tr, st, TR_FACED, cell, 0, 0, 0, 0)
        progress(st, tr, np.int64(1))
    st[S_CTX_FOE] = foe
    st[S_CTX_STR] = strength
    weapon_used = False
    result = 0
    while True:
        my = d6(rs, script)
        add = 0
        st[S_CTX_MY] = my
        st[S_CTX_EN] = 0
        st[S_CTX_ADD] = 0
        if st[WEAPON] > 0:
            opts[0, 0] = 0
            opts[1, 0] = 1
            if decide(D_WEAPON, 2, st, opts, dice, pol) == 1:
                add = st[WEAPON]
                weapon_used = True
        en = d6(rs, script)
        st[S_CTX_ADD] = add
        # the roll-off is logged as rolled, then each clover (after the roll it changes), then the dice kept
        log(tr, st, TR_ROLLOFF, my, add, en, strength, 0)
        clovers = 0
        while st[CLOVER] > 0:
            mine = my + add
            theirs = en + strength
            if mine > theirs or (mine == theirs and R[R_CLOVER_ON_TIE] == 0):
                break
            st[S_CTX_MY] = my
            st[S_CTX_EN] = en
            n = clover_options(st, opts, mine, theirs)
            c = decide(D_CLOVER, n, st, opts, dice, pol)
            if opts[c, 0] == 0:
                break
            st[CLOVER] -= 1
            which = opts[c, 1]
            old = my if which == 0 else en
            new = opts[c, 2] if opts[c, 0] == 2 else d6(rs, script)
            if which == 0:
                my = new
            else:
                en = new
            log(tr, st, TR_CLOVER, which, old, new, opts[c, 0], 0)
            clovers += 1
        if clovers > 0:
            log(tr, st, TR_ROLLOFF, my, add, en, strength, 1)
        if add > 0 and R[R_WEAR_PER_ROLLOFF] == 1 and R[R_WEAPON_WEAR] > 0:
            if R[R_FURY_BOXES] > 0 and fury(board, st, rm, opts, dice, pol, np.int64(WEAPON),
                                            min(R[R_WEAPON_WEAR], st[WEAPON]), np.int64(FS_WEAR), cell):
                if st[S_DEAD] == 1:
                    break
            else:
                st[WEAPON] -= min(R[R_WEAPON_WEAR], st[WEAPON])
                log(tr, st, TR_WEAPON_WEAR, st[WEAPON], 0, 0, 0, 0)
        mine = my + add
        theirs = en + strength
        st[S_CTX_MY] = my
        st[S_CTX_EN] = en
        if mine > theirs:
            result = 1
            log(tr, st, TR_WIN, foe, cell, 0, 0, 0)
            break
        if mine == theirs:
            log(tr, st, TR_TIE, 0, 0, 0, 0, 0)
        else:
            dmg = theirs - mine
            st[S_CTX_DMG] = dmg
            blocked = False
            if st[SHIELD] > 0:
                opts[0, 0] = 0
                opts[1, 0] = 1
                if decide(D_SHIELD, 2, st, opts, dice, pol) == 1:
                    st[SHIELD] -= 1
                    saved = 1 if R[R_SHIELD_ONE] == 1 else dmg  # ruling shield_blocks: the hit, or one heart
                    dmg -= saved
                    blocked = dmg == 0
                    log(tr, st, TR_BLOCK, saved, st[SHIELD], 0, 0, 0)
            if not blocked and R[R_FURY_BOXES] > 0 and fury(board, st, rm, opts, dice, pol, np.int64(HEARTS), dmg,
                                                            np.int64(FS_HIT), cell):
                blocked = True  # the Slaughter: Fury boxes blacked out instead of the hearts
                if st[S_DEAD] == 1:
                    break  # the track is full: the Fury prevails
            if not blocked:
                st[HEARTS] -= dmg
                log(tr, st, TR_HIT, dmg, max(st[HEARTS], 0), 0, 0, 0)
                if st[HEARTS] <= 0:
                    st[HEARTS] = 0
                    result = -1
                    break
                if foe_has(T, foe, FT_STEALS) and not (R[R_FURY_BOXES] > 0 and fury(
                        board, st, rm, opts, dice, pol, np.int64(-1), R[R_THEFT], np.int64(FS_STEAL), cell)):
                    steal(R, st, opts, dice, pol)
                if R[R_SANTA] == 1:
                    santa_hit(R, st, tr, foe)
                if st[S_DEAD] == 1:
                    break  # the Slaughter: the Fury track filled up instead of the theft
        opts[0, 0] = 0
        opts[1, 0] = 1
        if decide(D_FIGHT_ON, 2, st, opts, dice, pol) == 0:
            log(tr, st, TR_FLEE, foe, cell, 0, 0, 0)
            result = 0
            break
    if weapon_used and R[R_WEAR_PER_ROLLOFF] == 0 and st[WEAPON] > 0 and R[R_FURY_BOXES] == 0 and R[R_WEAPON_WEAR] > 0:
        st[WEAPON] -= min(R[R_WEAPON_WEAR], st[WEAPON])
        log(tr, st, TR_WEAPON_WEAR, st[WEAPON], 0, 0, 0, 0)
    if result == 1:
        add_icon(rm, cell, foe, np.int64(-1))
        if foe_has(T, foe, FT_DESTROYS_ITEMS) and rm[cell, RM_ICON + foe] == 0:
            rm[cell, RM_FLAG] &= ~F_IMP_DONE  # (an imp left in the room has erased already: it appeared before)
        if not foe_has(T, foe, FT_TRAP):
            kill_rewards(board, st, rm, opts, dice, pol, foe, cell)
    elif result == -1:
        die(board, st, tr, CAUSE_FOE + foe, cell)
    if weapon_used and R[R_WEAR_PER_ROLLOFF] == 0 and R[R_FURY_BOXES] > 0:
        fury_wear(board, st, rm, opts, dice, pol, cell)  # the Slaughter: after the combat, wear or Fury
    return result


@njit(cache=CACHE, inline="always", _nrt=False)
def resolve_room(board, st, rm, opts, dice, pol, cell):
    """Face every foe in the room: 1 all beaten, 0 fled, -1 dead."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    while True:
        foe = first_foe(R, rm, cell)
        if foe < 0:
            return 1
        if R[R_SANTA] == 1 and santa_cane(board, st, rm, opts, dice, pol, cell, foe):
            continue
        r = fight(board, st, rm, opts, dice, pol, cell, foe)
        if r != 1:
            return r


@njit(cache=CACHE, inline="always", _nrt=False)  # two callers
def spawn(board, st, rm, opts, dice, pol, cell):
    """An event says "you encounter a monster": roll the spawn table, the monster stands here."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    if R[R_SL_ON] == 1 and not sl_may_spawn(R, st, tr, cell):
        return -1
    face = d6(rs, script)
    log(tr, st, TR_SPAWN, cell, T[T_SPAWN, face - 1], face, 0, 0)
    face = reroll(board, st, rm, opts, dice, pol, np.int64(RR_SPAWN), np.int64(-1), face, cell, np.int64(0),
                  np.int64(-1))
    foe = T[T_SPAWN, face - 1]
    add_icon(rm, cell, foe, np.int64(1))
    if foe_has(T, foe, FT_DESTROYS_ITEMS):
        rm[cell, RM_FLAG] &= ~F_IMP_DONE  # a new imp appears: it erases again
    if foe_has(T, foe, FT_RETURNS) and rm[cell, RM_RETURNS] == 0:
        rm[cell, RM_RETURNS] = R[R_TROLL_RETURNS]
        rm[cell, RM_RETURNER] = foe
    return foe


# ------------------------------------------------------------------- any-die clover --
@njit(cache=CACHE, _nrt=False)
def ways_out(board, st, rm, ev, cell, direction, prev):
    """Ways out of ``cell`` once room event ``ev`` is applied: open sides into rooms that stay
    standing, plus one for a staircase or magic circle in the room."""
    R, T, geo, arrows = board
    k = 0
    for d in range(4):
        y = geo[cell, d]
        if y < 0 or not passable(R, st, rm, cell, d, y):
            continue
        rel = (d - direction) % 4  # 0 front, 1 right, 2 behind, 3 left
        if rm[cell, RM_WALL + d] == W_OPEN and ((rel == 0 and ev & EV_FRONT) or (rel == 1 and ev & EV_RIGHT) or (
                rel == 2 and ev & EV_BEHIND) or (rel == 3 and ev & EV_LEFT)):
            continue
        if y == prev and prev != st[S_ORACLE] and ev & EV_PREV_COLLAPSE:
            continue
        k += 1
    if rm[cell, RM_ICON + STAIRS] > 0 or rm[cell, RM_ICON + CIRCLE] > 0:
        k += 1
    return k


@njit(cache=CACHE, _nrt=False)
def roll_effect(board, st, rm, rkind, table, face, cell, direction, prev, out):
    """What ``face`` of a roll would do: out[0] its effect (event bits, DIE outcome, foe icon), out[1]
    the ways out of the room after a room event, or the strength of the foe spawned (else 0)."""
    R, T, geo, arrows = board
    if rkind == RR_ROOM or rkind == RR_EXIT:
        ev = T[T_EVENTS + table, face - 1]
        out[0] = ev
        out[1] = ways_out(board, st, rm, ev, cell, direction, prev)
    elif rkind == RR_DIE:
        out[0] = T[T_DIE, face - 1]
        out[1] = 0
    else:
        out[0] = T[T_SPAWN, face - 1]
        out[1] = foe_strength(T, st, out[0])


@njit(cache=CACHE, inline="always", _nrt=False)
def reroll(board, st, rm, opts, dice, pol, rkind, table, face, cell, direction, prev):
    """RULING clover_dice = "any": after a die outside combat is rolled (and logged), the player may spend
    a clover to reroll it (Melyra: to set its face), again while clovers last. Returns the face kept.
    (Inlined: the call is made only when a clover could be spent.)"""
    R = board[0]
    if R[R_CLOVER_ANY] == 0 or st[CLOVER] <= 0:
        return face
    return clover_reroll(board, st, rm, opts, dice, pol, rkind, table, face, cell, direction, prev)


@njit(cache=CACHE, _nrt=False)
def clover_reroll(board, st, rm, opts, dice, pol, rkind, table, face, cell, direction, prev):
    """``reroll`` with a clover to spend."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    while st[CLOVER] > 0:
        st[S_RR_KIND] = rkind
        st[S_RR_TABLE] = table
        st[S_RR_FACE] = face
        st[S_RR_CELL] = cell
        roll_effect(board, st, rm, rkind, table, face, cell, direction, prev, opts[0, 2:4])
        st[S_RR_EFFECT] = opts[0, 2]
        st[S_RR_OPEN] = opts[0, 3]
        opts[0, 0] = 0
        opts[0, 1] = face
        n = 1
        if st[S_HERO] == H_MELYRA:
            for v in range(1, 7):
                if v != face:
                    opts[n, 0] = 2
                    opts[n, 1] = v
                    roll_effect(board, st, rm, rkind, table, v, cell, direction, prev, opts[n, 2:4])
                    n += 1
        else:
            opts[n, 0] = 1
            opts[n, 1] = 0
            opts[n, 2] = -1
            opts[n, 3] = -1
            n += 1
        c = decide(D_REROLL, n, st, opts, dice, pol)
        action = opts[c, 0]
        if action == 0:
            break
        st[CLOVER] -= 1
        old = face
        face = opts[c, 1] if action == 2 else d6(rs, script)
        roll_effect(board, st, rm, rkind, table, face, cell, direction, prev, opts[0, 2:4])
        log(tr, st, TR_REROLL, rkind, old, face, action, opts[0, 2])
    return face


# ---------------------------------------------------------------------------- the room --
@njit(cache=CACHE, _nrt=False)
def collapse_wall(R, geo, st, rm, tr, cell, side):
    if rm[cell, RM_WALL + side] == W_OPEN:
        set_wall(R, rm, cell, side, np.int64(W_COLLAPSED))
        nb = geo[cell, side]
        if nb >= 0:
            set_wall(R, rm, nb, (side + 2) % 4, np.int64(W_COLLAPSED))
        log(tr, st, TR_WALL, cell, side, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def set_wall(R, rm, x, side, w):
    """Room x's side is now ``w`` (W_OPEN or W_COLLAPSED), in its wall and in the goal search's masks (RM_BITS)."""
    rm[x, RM_WALL + side] = w
    r = x // R[R_COLS]
    b = np.int64(1) << (x - r * R[R_COLS])
    rm[r, RM_BITS + side] = (rm[r, RM_BITS + side] | b) if w == W_OPEN else (rm[r, RM_BITS + side] & ~b)
    rm[r, RM_BITS + 4 + side] = (rm[r, RM_BITS + 4 + side] | b) if w == W_COLLAPSED else (
        rm[r, RM_BITS + 4 + side] & ~b)
    rm[0, RM_BITS + RB_DIRTY] = 1


@njit(cache=CACHE, _nrt=False)
def add_state(R, rm, x, flag, k):
    """Room x is now ``flag`` (COLLAPSED or FLOODED) too, in its state and in the goal search's mask RM_BITS + k."""
    rm[x, RM_STATE] |= flag
    r = x // R[R_COLS]
    rm[r, RM_BITS + k] |= np.int64(1) << (x - r * R[R_COLS])
    rm[0, RM_BITS + RB_DIRTY] = 1


@njit(cache=CACHE, inline="always", _nrt=False)  # one caller
def apply_event(board, st, rm, opts, dice, pol, ev, cell, direction, prev):
    """Apply a room event relative to the direction of travel (walls already there stay)."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    if ev & EV_LEFT:
        collapse_wall(R, geo, st, rm, tr, cell, (direction + 3) % 4)
    if ev & EV_RIGHT:
        collapse_wall(R, geo, st, rm, tr, cell, (direction + 1) % 4)
    if ev & EV_FRONT:
        collapse_wall(R, geo, st, rm, tr, cell, direction)
    if ev & EV_BEHIND:
        collapse_wall(R, geo, st, rm, tr, cell, (direction + 2) % 4)
    if prev >= 0 and (prev != st[S_ORACLE] or R[R_ORACLE_IMMUNE] == 0):  # ruling oracle_immune
        if ev & EV_PREV_COLLAPSE:
            add_state(R, rm, prev, np.int64(COLLAPSED), np.int64(RB_COLLAPSED))
            log(tr, st, TR_PREV_COLLAPSE, prev, 0, 0, 0, 0)
        if ev & EV_PREV_FLOOD:
            add_state(R, rm, prev, np.int64(FLOODED), np.int64(RB_FLOODED))
            log(tr, st, TR_FLOOD, prev, 0, 0, 0, 0)
    if ev & EV_CHEST:
        gain(st, tr, CHEST, R[R_ITEM_CHEST])
    if ev & EV_MONSTER and R[R_SL_ON] == 1:
        sl_find(R, st, rm, dice, cell)  # the Slaughter: the roll finds an item instead of a monster
    elif ev & EV_MONSTER:
        spawn(board, st, rm, opts, dice, pol, cell)


@njit(cache=CACHE, _nrt=False)
def receive(board, st, opts, dice, pol, cell, icon):
    """Take one item (any item icon but the die): what it gives, up to the track's cap."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    if icon == I_CHEST:
        gain(st, tr, CHEST, R[R_ITEM_CHEST])
    elif icon == POTION:
        gain(st, tr, HEARTS, R[R_POTION])
    elif icon == I_SHOVEL:
        gain(st, tr, SHOVEL, R[R_ITEM_SHOVEL])
    elif icon == I_WEAPON:
        gain(st, tr, WEAPON, R[R_ITEM_WEAPON])
    elif icon == I_SHIELD:
        gain(st, tr, SHIELD, R[R_ITEM_SHIELD])
    elif icon == I_CLOVER:
        gain(st, tr, CLOVER, R[R_ITEM_CLOVER])
    elif icon == CORNUCOPIA:
        gain_cornucopia(board, st, opts, dice, pol, R[R_ITEM_CORNU], cell)
    elif icon == YELLOW_POTION or icon == PURPLE_POTION:
        coloured_potion(R, st, tr, icon)
    elif STAR <= icon <= CANDY_CANE:  # Santa Crash'n Foury
        santa_receive(R, st, tr, cell, icon)


# DIE-table outcomes that hand out an item: the item's icon (-1 for the others)
_DIE_ITEM = np.array([-1, -1, -1, I_CHEST, POTION, I_SHOVEL, I_WEAPON, I_SHIELD, I_CLOVER, CORNUCOPIA], np.int64)


@njit(cache=CACHE, _nrt=False)
def die_table(board, st, rm, opts, dice, pol, cell):
    """The DIE icon: roll 1d6 on the die table. Be careful what you wish for."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    face = d6(rs, script)
    log(tr, st, TR_DIE_TABLE, face, T[T_DIE, face - 1], R[R_SANTA_DIE_STAR], 0, 0)  # (the star's face: the words)
    face = reroll(board, st, rm, opts, dice, pol, np.int64(RR_DIE), np.int64(-1), face, cell, np.int64(0), np.int64(-1))
    if face == R[R_SANTA_DIE_STAR]:  # Santa Crash'n Foury: "roll a star with the die" (0 in the base game)
        santa_star(R, st, tr, cell, np.int64(1))
        return
    out = T[T_DIE, face - 1]
    if out == DIE_MONSTER:
        spawn(board, st, rm, opts, dice, pol, cell)
        resolve_room(board, st, rm, opts, dice, pol, cell)
    elif out == DIE_LOSE_HEART and R[R_FURY_BOXES] > 0 and fury(board, st, rm, opts, dice, pol, np.int64(HEARTS),
                                                               np.int64(1), np.int64(FS_DIE_TABLE), cell):
        pass  # the Slaughter: a Fury box instead of the heart
    elif out == DIE_LOSE_HEART:
        st[HEARTS] -= 1
        log(tr, st, TR_HIT, 1, max(st[HEARTS], 0), 1, 0, 0)
        if st[HEARTS] <= 0:
            die(board, st, tr, CAUSE_DIE_TABLE, cell)
    elif _DIE_ITEM[out] >= 0:
        receive(board, st, opts, dice, pol, cell, _DIE_ITEM[out])


@njit(cache=CACHE, _nrt=False)
def use_dice(board, st, rm, opts, dice, pol, cell):
    """The room's DIE icons: "You *can* obtain various things" (ruling ``die_icon``).

    "optional": before each die the player decides (D_USE_DIE) to roll it or leave it; a die left
    stays in the room (so do the ones after it). "always": every die is rolled.
    """
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    while rm[cell, RM_ICON + DIE] > 0 and st[S_DEAD] == 0 and first_foe(R, rm, cell) < 0:
        if R[R_DIE_OPTIONAL] == 1:
            st[S_DIE_GOAL] = 1 if req_counts(board, st, cell, np.int64(3)) else 0
            opts[0, 0] = 1
            opts[1, 0] = 0
            if decide(D_USE_DIE, 2, st, opts, dice, pol) == 1:
                log(tr, st, TR_DIE_LEFT, cell, rm[cell, RM_ICON + DIE], 0, 0, 0)
                return
        add_icon(rm, cell, np.int64(DIE), np.int64(-1))
        die_table(board, st, rm, opts, dice, pol, cell)


@njit(cache=CACHE, _nrt=False)
def collect_items(board, st, rm, opts, dice, pol, cell):
    """After a won encounter (or none), collect every item in the room; they are removed."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    for ic in range(I_CHEST, DIE):
        k = rm[cell, RM_ICON + ic]
        if k == 0:
            continue
        add_icon(rm, cell, ic, -k)  # (collected: erased from the room)
        for _ in range(k):
            receive(board, st, opts, dice, pol, cell, ic)
    for ic in _CAMPAIGN_ITEM_ICONS:  # the campaigns' items (none on a base map)
        k = rm[cell, RM_ICON + ic]
        if k > 0:
            add_icon(rm, cell, ic, -k)
            for _ in range(k):
                receive(board, st, opts, dice, pol, cell, ic)
    if rm[cell, RM_ICON + DIE] > 0:  # (only then: a call pushes every array of its arguments, over 100 words)
        use_dice(board, st, rm, opts, dice, pol, cell)


@njit(cache=CACHE, _nrt=False)
def arrows_feasible(board, st, rm, cur, mode):
    """Can every round still to play get an unused entry arrow in its own sector and a different unused
    exit arrow in another sector (arrows in collapsed rooms are unusable)?

    ``mode`` 0: between rounds (``st[S_ROUND]`` rounds done); 1: in the round of sector ``cur``, which still
    needs its exit; 2: the round of sector ``cur`` has just been completed. With ``game.rounds`` < 4 any
    choice of the sectors still to play will do. Exact: Hall's condition for this small matching (slots:
    an entry per round to start, an exit per round to finish; an entry slot takes arrows of its sector, an
    exit slot any other sector's) reduces to the three counts checked below.
    """
    R, T, geo, arrows = board
    if R[R_KR_ON] == 1:
        return True  # Discovering the Kraken: one entry and one exit, and no room ever collapses
    return feasible_counts(R, st, usable_arrows(st, rm, arrows), cur, mode)


@njit(cache=CACHE, inline="always", _nrt=False)
def arrow_usable(st, rm, arrows, a):
    """1 if arrow ``a`` is usable (not used, not in a collapsed room, in sector 0-3), else 0."""
    return np.int64(st[S_ARROW0 + a] != 1) & np.int64((rm[arrows[a, 0], RM_STATE] & COLLAPSED) == 0) & np.int64(
        (arrows[a, 2] >> 2) == 0)


@njit(cache=CACHE, inline="always", _nrt=False)
def arrow_shift(arrows, a):
    """Where ``usable_arrows`` counts arrow ``a``: its sector's 16 bits."""
    return (arrows[a, 2] & 3) << 4


@njit(cache=CACHE, inline="always", _nrt=False)
def usable_arrows(st, rm, arrows):
    """The usable arrows of each sector (``arrow_usable``), 16 bits a sector, counted without a branch (which arrow
    is usable and its sector are hard to predict)."""
    packed = np.int64(0)
    for a in range(arrows.shape[0]):
        packed += arrow_usable(st, rm, arrows, a) << arrow_shift(arrows, a)
    return packed


@njit(cache=CACHE, _nrt=False)
def feasible_counts(R, st, packed, cur, mode):
    """``arrows_feasible`` from the usable arrows' counts ``packed`` (``usable_arrows``)."""
    c0 = packed & 0xFFFF
    c1 = (packed >> 16) & 0xFFFF
    c2 = (packed >> 32) & 0xFFFF
    c3 = (packed >> 48) & 0xFFFF
    cs = (c0, c1, c2, c3)
    total = c0 + c1 + c2 + c3
    done = st[S_DONE_MASK]
    later = R[R_ROUNDS] - st[S_ROUND]
    xmask = 0  # the round being played: needs only its exit
    if mode == 1:
        later -= 1
        xmask = 1 << cur
    elif mode == 2:
        later -= 1
        done |= 1 << cur
    if later <= 0:
        return xmask == 0 or total - cs[cur] >= 1
    cand = 15 & ~done & ~xmask
    nc = 0
    for q in range(4):
        nc += (cand >> q) & 1
    if later == nc:  # every sector not played yet is still to play (game.rounds = 4): one choice of them
        return arrows_fit(cs, total, cand, xmask, later)
    for emask in range(16):
        if emask & ~cand:
            continue
        ne = 0
        for q in range(4):
            ne += (emask >> q) & 1
        if ne == later and arrows_fit(cs, total, emask, xmask, ne):
            return True
    return False


@njit(cache=CACHE, inline="always", _nrt=False)
def arrows_fit(cs, total, emask, xmask, ne):
    """``arrows_feasible`` for one choice of the sectors still to play (``emask``, ``ne`` of them) and the round
    being played (``xmask``): the counts of Hall's condition."""
    qx = emask | xmask
    nx = ne + (1 if xmask else 0)
    ok = total >= ne + nx
    for q in range(4):
        if not ok:
            break
        if (emask >> q) & 1 and cs[q] < 1:
            ok = False
        if (qx >> q) & 1 and total - cs[q] < 1 + ne - ((emask >> q) & 1):
            ok = False
    return ok


@njit(cache=CACHE, inline="always", _nrt=False)
def exit_arrow(st, arrows, a):
    """May arrow ``a`` be left by (``legal_exit``'s first test): not used yet, and to another sector."""
    return st[S_ARROW0 + a] == 0 and arrows[a, 2] != st[S_SECTOR]


@njit(cache=CACHE, inline="always", _nrt=False)
def legal_exit(board, st, rm, cell):
    """Index of an unused arrow in ``cell`` you may leave by now, or -1."""
    return legal_exit_p(board, st, rm, cell, np.int64(-1))


@njit(cache=CACHE, _nrt=False)
def legal_exit_p(board, st, rm, cell, packed):
    """``legal_exit`` given the usable arrows' counts ``packed`` (``usable_arrows``; -1: counted here if needed).
    Leaving by arrow a uses it: the counts less a's own one (as ``arrows_feasible`` counts them with a used)."""
    R, T, geo, arrows = board
    if R[R_KR_ON] == 1:
        return kr_exit(board, st, rm, cell)
    if R[R_P2_PLAYERS] == 2 and st[CHEST] < R[R_P2_TREASURES]:
        return -1  # the 2-player mode: "collect at least 5 treasures and then exit"
    before = -1  # is the game still winnable as it stands (computed only when needed)
    for a in range(arrows.shape[0]):
        if arrows[a, 0] != cell or not exit_arrow(st, arrows, a):
            continue
        s = arrows[a, 2]
        if R[R_RESERVE_ROUNDS] == 1 and st[S_ROUND] + 1 < R[R_ROUNDS]:
            # never leave a round still to play without an entry and a different exit (unless already lost)
            if packed < 0:
                packed = usable_arrows(st, rm, arrows)
            ok = feasible_counts(R, st, packed - (arrow_usable(st, rm, arrows, a) << arrow_shift(arrows, a)),
                                 st[S_SECTOR], np.int64(2))
            if not ok:
                if before < 0:
                    before = 1 if feasible_counts(R, st, packed, st[S_SECTOR], np.int64(1)) else 0
                if before == 1:
                    continue
        elif R[R_RESERVE_ENTRIES] == 1 and (st[S_DONE_MASK] >> s) & 1 == 0 and st[S_ROUND] + 1 < R[R_ROUNDS]:
            left = 0
            for b in range(arrows.shape[0]):
                if arrows[b, 2] == s and st[S_ARROW0 + b] == 0 and (rm[arrows[b, 0], RM_STATE] & COLLAPSED) == 0:
                    left += 1
            if left <= 1:
                continue
        return a
    return -1


# Thin levels over the whole game's tree, called from one place (or a few, with a small body), are inlined
# (``inline="always"``): ``arrive``, ``play_round``, ``search_play``, the 2-player ``p2_game``, the campaigns'
# ``santa_play``, ``santa_turn`` and ``slaughter_game``; ``resolve_room`` too (its two callers then call ``fight``
# themselves: the call of ``fight`` right after the call of ``resolve_room``, both pushing over 100 words of
# arguments, took 3.6 % of the samples, session 32). numba links the code of every compiled callee into its
# caller and optimises and compiles that whole tree again for each compiled function, so a four-line level over
# the game's tree cost as much as a big function. ``take_turn``, ``begin_round`` and ``p2_turn`` stay compiled:
# each inlined copy of a body is typed and optimised again, and two copies of them cost more than the level
# (docs/startup.md, "Dungeon Foury, session 30").
@njit(cache=CACHE, inline="always", _nrt=False)
def arrive(board, st, rm, opts, dice, pol, vis, cell, direction, prev, table, free_step):
    """End a move in ``cell`` and, if the room sends you one free space further, go on from there.

    Returns 1 when the round is completed.
    """
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    r = enter_room(board, st, rm, opts, dice, pol, vis, cell, direction, prev, table, free_step)
    while r >= 2:  # a free step (extra move, or stepping out of the Oracle's room), never rolled
        to = (r - 2) // 4
        d = (r - 2) % 4
        r = enter_room(board, st, rm, opts, dice, pol, vis, to, d, st[S_POS], np.int64(-1), np.bool_(True))
    return r


@njit(cache=CACHE, _nrt=False)
def kael_skips(board, st, rm, cell):
    """Kael: "when he enters a space with an enemy, he does not roll the die to determine the room".

    Ruling ``kael_skips_roll``: "foe_icon" any foe icon (statue or monster) in the room; "monster_only"
    only monsters (the rulebook's Enemies section lists monsters; a statue is "a trap"); "off" never.
    """
    R, T, geo, arrows = board
    if st[S_HERO] != H_KAEL or R[R_KAEL_FOE_ICON] == 0:
        return False
    for ic in range(FOE_FIRST, FOE_FIRST + R[R_N_FOES]):
        if rm[cell, RM_ICON + ic] > 0 and (R[R_KAEL_MONSTERS_ONLY] == 0 or not foe_has(T, ic, FT_TRAP)):
            return True
    return False


@njit(cache=CACHE, _nrt=False)
def flee_back(board, st, rm, tr, cell, direction, prev):
    """Ruling ``flee_to = "back"``: having fled, step back (free, no roll) into the room you came from,
    when it is the neighbour behind you and still passable; otherwise you stay. Returns True if moved."""
    R, T, geo, arrows = board
    if prev < 0 or direction < 0:
        return False
    back = (direction + 2) % 4
    if geo[cell, back] != prev or not passable(R, st, rm, cell, back, prev):
        return False
    st[S_POS] = prev
    st[S_DIR] = back
    log(tr, st, TR_FLEE_BACK, cell, prev, 0, 0, 0)
    return True


@njit(cache=CACHE, inline="always", _nrt=False)
def jump_table(board, rm, frm, to, flag):
    """The room table rolled on arriving at ``to`` by a jump (stairs, circle) or a swim: -1 (no roll) unless
    the ruling (``flag``: roll_after_jump / roll_after_swim) asks for it and ``to`` is unexplored; then the
    table of the sector you move from."""
    R, T, geo, arrows = board
    if R[flag] == 0 or (rm[to, RM_STATE] & EXPLORED):
        return -1
    return geo[frm, 4] if 0 <= geo[frm, 4] < 4 else geo[to, 4]


@njit(cache=CACHE, _nrt=False)
def enter_room(board, st, rm, opts, dice, pol, vis, cell, direction, prev, table, free_step):
    """Resolve one room: the room roll (``table`` >= 0), encounters, items, Oracle, exit, extra move.

    Returns 1 when the round is completed here, 2 + 4*cell + direction for a pending free step, else 0.
    """
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    st[S_POS] = cell
    st[S_DIR] = direction
    if R[R_SL_ON] == 1:  # the Slaughter: the monsters' strength is the first round's, in this room's sector
        st[S_STR_ROW] = geo[cell, 4] if 0 <= geo[cell, 4] < 4 else 0
    step = 0 if free_step or st[S_CROSSED] == 1 else 1  # (a turn's step after its crossing: counted by the crossing)
    st[S_TURN] += step
    st[S_ROUND_TURN] += step
    vis[cell] += 1
    log(tr, st, TR_MOVE, prev, cell, direction, 1 if free_step else 0, 0)
    if (rm[cell, RM_STATE] & EXPLORED) == 0:
        st[S_ROUND_NEW] += 1
        made_progress(st)
    rm[cell, RM_STATE] |= EXPLORED
    ev = 0
    if (table < 0 and prev != cell and st[S_PHASE] == 2 and R[R_EXIT_ROLL_ALWAYS] == 1
            and legal_exit(board, st, rm, cell) >= 0):
        # ending any move on an unused exit: "treat it like any other space: roll"
        table = geo[prev, 4] if prev >= 0 and 0 <= geo[prev, 4] < 4 else geo[cell, 4]
    if table >= 0:
        if kael_skips(board, st, rm, cell):
            log(tr, st, TR_KAEL, cell, 0, 0, 0, 0)
        else:
            face = d6(rs, script)
            log(tr, st, TR_ROLL, table, face, T[T_EVENTS + table, face - 1], cell, 0)
            if R[R_CLOVER_ANY] == 1 and st[CLOVER] > 0:
                rkind = RR_EXIT if st[S_PHASE] == 2 and legal_exit(board, st, rm, cell) >= 0 else RR_ROOM
                face = reroll(board, st, rm, opts, dice, pol, rkind, table, face, cell, direction, prev)
            ev = T[T_EVENTS + table, face - 1]
            if ev != 0:
                apply_event(board, st, rm, opts, dice, pol, ev, cell, direction, prev)
    res = resolve_room(board, st, rm, opts, dice, pol, cell)  # (inlined: it returns 1 at once with no foe)
    if res < 0 or st[S_DEAD] == 1:
        return 0
    if res == 1 and item_count(rm, cell) > 0:  # (only with items: a call pushes over 100 words)
        collect_items(board, st, rm, opts, dice, pol, cell)
        if st[S_DEAD] == 1:
            return 0
        if first_foe(R, rm, cell) >= 0:
            res = 0  # a foe an element brought (the DIE table) and not beaten: fled
    if (res == 0 or first_foe(R, rm, cell) >= 0) and R[R_FLEE_BACK] == 1 and flee_back(board, st, rm, tr, cell,
                                                                                       direction, prev):
        return 0
    if cell == st[S_ORACLE]:
        if (st[S_PHASE] == 1 or (R[R_P2_PLAYERS] == 2 and st[S_PHASE] == 2 and st[S_REQ_DONE] >= st[S_REQ_NEED]
                                 and st[S_P2_ORACLE] == 0)) and R[R_KR_ON] == 0:
            # (2-player: awake and not visited yet, also once the treasures send the player to an exit; the Kraken's
            # room stands in the Oracle's place and is no Oracle)
            st[S_P2_ORACLE] = 1 if R[R_P2_PLAYERS] == 2 else 0
            gain(st, tr, CHEST, R[R_ORACLE_CHESTS])
            st[S_RESERVED] -= min(st[S_RESERVED], R[R_NEED_D])  # the Waterways' set-aside cornucopias, handed over
            st[S_PHASE] = 2
            made_progress(st)
            log(tr, st, TR_ORACLE, st[S_SECTOR], R[R_ORACLE_CHESTS], 0, 0, 0)
            st[S_POTION_STEPS] = 0  # In and Out: a potion's pending step is lost at the Oracle's own step
            n = adjacent_options(board, st, rm, opts, cell)
            if n > 0:
                c = decide(D_PLACE, n, st, opts, dice, pol)
                return 2 + opts[c, O_TO] * 4 + opts[c, O_DIR]
        if R[R_SANTA] == 1:  # Santa's room (the Oracle's place): "a star's remaining steps end there"
            st[S_SANTA_STEPS] = 0
        if st[S_POTION_STEPS] > 0:  # the Oracle's room again (no own step): a potion's step is taken from here
            return potion_step(board, st, rm, opts, dice, pol, cell)
        return 0
    if R[R_P2_PLAYERS] == 2 and res == 1:
        p2_open_exit(R, st, tr)  # a treasure taken in this room opens its exit at once
    if st[S_PHASE] == 2 and res == 1:
        a = legal_exit(board, st, rm, cell)
        if a >= 0:
            before = st[S_UNWIN_TURN] == 0 and arrows_feasible(board, st, rm, st[S_SECTOR], np.int64(1))
            st[S_ARROW0 + a] = 1
            log(tr, st, TR_EXIT, cell, arrows[a, 2], a, 0, 0)
            if st[S_UNWIN_TURN] == 0 and not arrows_feasible(board, st, rm, st[S_SECTOR], np.int64(2)):
                unwinnable(st, tr, UW_EXIT if before else UW_ARROWS)
            return 1
    if ev & EV_EXTRA and not free_step:
        n = adjacent_options(board, st, rm, opts, cell)
        if n > 0:
            c = decide(D_EXTRA, n, st, opts, dice, pol)
            log(tr, st, TR_EXTRA, opts[c, O_TO], 0, 0, 0, 0)
            return 2 + opts[c, O_TO] * 4 + opts[c, O_DIR]
    if st[S_POTION_STEPS] > 0:  # campaigns: a coloured potion's free step
        return potion_step(board, st, rm, opts, dice, pol, cell)
    if st[S_SANTA_STEPS] > 0:  # Santa Crash'n Foury: a star's free steps
        return santa_step(board, st, rm, opts, dice, pol, cell)
    return 0


# --------------------------------------------------------------------------- movement --
@njit(cache=CACHE, inline="always", _nrt=False)
def icon_added(rm, cell):
    """Note a room the game added an icon to (``RM_BITS + RB_ICONS``): ``mark_goals`` looks at it from now on."""
    if cell < 128:
        rm[0, RM_BITS + RB_ICONS + (cell >> 6)] |= np.int64(1) << (cell & 63)


@njit(cache=CACHE, inline="always", _nrt=False)
def two_words(R):
    """Whether the map fits the goal search's two words: at most 128 cells, fewer than 64 columns (every shipped map:
    9 x 9); then ``mark_goals`` looks only at the rooms of ``RB_ICONS`` and the search runs on ``goal_masks2``."""
    return R[R_ROWS] * R[R_COLS] <= 128 and R[R_COLS] < 64


@njit(cache=CACHE, _nrt=False)
def _mark_rooms(board, rm, mask, kinds, s):
    """``mask[x] = 1`` for each room x of ``RM_BITS + RB_ICONS`` holding a goal icon of ``kinds`` (bits of
    ``RM_KINDS``) that may count for sector ``s`` (``req_room``), in increasing x."""
    for half in range(2):
        word = rm[0, RM_BITS + RB_ICONS + half]
        while word != 0:
            x = 64 * half + low_bit(word)
            if (rm[x, RM_KINDS] & kinds) != 0 and req_room(board, rm, x, s):
                mask[x] = 1
            word &= word - 1


@njit(cache=CACHE, _nrt=False)
def mark_goals(board, st, rm, sc):
    """Mark (sc[SC_MASK]) where the round wants you: requirement elements, the Oracle, legal exits."""
    R, T, geo, arrows = board
    mask = sc[SC_MASK]
    n = geo.shape[0]
    for x in range(n):
        mask[x] = 0
    if R[R_SL_ON] == 1:  # the Slaughter: every monster is a goal
        sl_goals(board, rm, mask)
        return
    ph = st[S_PHASE]
    if ph == PH_SANTA:
        santa_goals(board, st, rm, mask)
        return
    if ph == 1:
        mask[st[S_ORACLE]] = 1
        return
    if ph == 2:
        packed = usable_arrows(st, rm, arrows)  # (the same for every room asked: counted once)
        for a in range(arrows.shape[0]):
            x = arrows[a, 0]
            if R[R_KR_ON] == 0 and not exit_arrow(st, arrows, a):
                continue  # legal_exit would not leave by it (another arrow in its room asks for that room)
            if (rm[x, RM_STATE] & COLLAPSED) == 0 and legal_exit_p(board, st, rm, x, packed) >= 0:
                mask[x] = 1
        return
    s = st[S_SECTOR]
    if s == 2:
        for i in range(T[T_STAIRS, 0]):
            x = T[T_STAIRS, 1 + i]
            if (rm[x, RM_STATE] & COLLAPSED) == 0 and (R[R_REQ_ANYWHERE] == 1 or geo[x, 4] == s) \
                    and levers_reachable(board, st, rm, x):
                mask[x] = 1
        return
    # Temple (0): a temple goal not faced yet this round; Palace (1): a monster; otherwise: a cornucopia, a die or
    # a foe with a camp prize. On a map of two words, every wanted kind at one look a room (RM_KINDS); else one foe
    # kind at a time over every room (the Temple's and the camps' are one of seven).
    having = FT_TEMPLE_GOAL if s == 0 else (0 if s == 1 else FT_CAMP_PRIZE)
    lacking = FT_TRAP if s == 1 else 0
    if two_words(R):  # only the rooms that can hold such an icon (printed, or added in this game), at one look each
        kinds = np.int64(0)
        for ic in range(FOE_FIRST, FOE_FIRST + R[R_N_FOES]):
            if (T[T_EN_TRAITS, ic] & having) == having and (T[T_EN_TRAITS, ic] & lacking) == 0:
                kinds |= np.int64(1) << (ic - FOE_FIRST)
        if s != 0 and s != 1:
            kinds |= (np.int64(1) << KIND_CORNUCOPIA) | (np.int64(1) << KIND_DIE)
        if kinds != 0:
            _mark_rooms(board, rm, mask, kinds, s)
        return
    for ic in range(FOE_FIRST, FOE_FIRST + R[R_N_FOES]):
        if (T[T_EN_TRAITS, ic] & having) != having or (T[T_EN_TRAITS, ic] & lacking) != 0:
            continue
        for x in range(n):
            if rm[x, RM_ICON + ic] > 0 and req_room(board, rm, x, s):
                mask[x] = 1
    if s != 0 and s != 1:
        for x in range(n):
            if (rm[x, RM_ICON + CORNUCOPIA] > 0 or rm[x, RM_ICON + DIE] > 0) and req_room(board, rm, x, s):
                mask[x] = 1


@njit(cache=CACHE, _nrt=False)
def req_room(board, rm, x, s):
    """May room ``x`` hold an element of sector ``s``'s requirement (``mark_goals``)? Not collapsed, in the sector
    (unless anywhere counts) and, in the Temple, not faced yet this round."""
    R, T, geo, arrows = board
    if (rm[x, RM_STATE] & COLLAPSED) or (R[R_REQ_ANYWHERE] == 0 and geo[x, 4] != s):
        return False
    return s != 0 or (rm[x, RM_FLAG] & F_FACED) == 0


@njit(cache=CACHE, _nrt=False)
def goal_distances(board, st, rm, sc, opts, n):
    """O_GOAL of every option: steps from its destination to the nearest goal over the map as drawn now.

    A breadth-first search from the goals (marked by ``mark_goals``) that stops as soon as every
    destination is labelled. When no goal can be reached from any destination, unexplored rooms
    count as goals too (explore until something is found).
    """
    R, T, geo, arrows = board
    if n == 0:
        return
    dist = sc[SC_GOAL]
    want = sc[SC_WANT]
    pending = np.int64(0)  # a typed zero: a literal 0 reaching _spread would compile it once more
    two = two_words(R)
    w0, w1 = np.int64(0), np.int64(0)  # then the wanted cells as two words (goal_masks2's L_WANT)
    for i in range(n):
        to = opts[i, O_TO]
        if want[to] == 0:
            want[to] = 1
            dist[to] = BIG
            pending += 1
            if two:  # (a room is a cell of the map: to < rows x cols)
                if to < 64:
                    w0 |= np.int64(1) << to
                else:
                    w1 |= np.int64(1) << (to - 64)
    if two:
        goal_masks2(board, st, rm, sc)
        sc[SC_BITS, L_WANT] = w0  # (from the options, not a pass over every room's ``want``)
        sc[SC_BITS, L_WANT + 1] = w1
    else:
        goal_masks(board, st, rm, sc)
    for attempt in range(2):
        if attempt == 1:
            if two:
                unexplored_mask2(board, rm, sc)
            else:
                unexplored_mask(board, rm, sc)
        if two:
            left = _spread2(sc[SC_BITS], dist, R[R_COLS], attempt, pending)
        else:
            left = _spread(sc[SC_BITS], dist, R[R_ROWS], R[R_COLS], attempt, pending)
        if left < pending:
            break
    for i in range(n):
        opts[i, O_GOAL] = dist[opts[i, O_TO]]
    for i in range(n):
        want[opts[i, O_TO]] = 0


# The goal search's bit masks in sc[SC_BITS]: one int64 a grid row (as in RM_BITS), each ``rows`` words long, at
# these multiples of ``rows``.
B_INTO = 0  # 4 masks, one a side s: y may be entered from its neighbour across s (y's side s passable)
B_FALLEN, B_GOAL, B_NEW, B_WANT, B_SEEN, B_FRONT = 4, 5, 6, 7, 8, 9  # B_FRONT: two masks


@njit(cache=CACHE, inline="always", _nrt=False)
def _into_row(R, rm, r, h, swim):
    """Grid row r's four B_INTO words (a bit per column; ``goal_masks``): each side's open walls (RM_BITS), with
    ``swim`` a collapsed wall between two flooded rooms too, and no flooded room in the Kraken's search."""
    fl = rm[r, RM_BITS + RB_FLOODED]
    dry = ~fl if R[R_KR_ON] == 1 else np.int64(-1)
    n0, n1, n2, n3 = rm[r, RM_BITS], rm[r, RM_BITS + 1], rm[r, RM_BITS + 2], rm[r, RM_BITS + 3]
    if swim and fl != 0:  # a collapsed wall between two flooded rooms
        x0, x1, x2, x3 = _swim_row(rm, r, h)
        n0, n1, n2, n3 = n0 | x0, n1 | x1, n2 | x2, n3 | x3
    return n0 & dry, n1 & dry, n2 & dry, n3 & dry


@njit(cache=CACHE, inline="always", _nrt=False)
def _swim_row(rm, r, h):
    """Grid row r's four words of collapsed walls between two flooded rooms (``_into_row`` when one may swim)."""
    fl = rm[r, RM_BITS + RB_FLOODED]
    return (rm[r, RM_BITS + 4] & fl & (rm[r - 1, RM_BITS + RB_FLOODED] if r > 0 else 0),
            rm[r, RM_BITS + 5] & fl & (fl >> 1),
            rm[r, RM_BITS + 6] & fl & (rm[r + 1, RM_BITS + RB_FLOODED] if r + 1 < h else 0),
            rm[r, RM_BITS + 7] & fl & (fl << 1))


@njit(cache=CACHE, _nrt=False)
def goal_masks(board, st, rm, sc):
    """The goal search's masks (``B_*``) from the rooms' (RM_BITS), the goals (``sc[SC_MASK]``) and the wanted
    rooms (``sc[SC_WANT]``).

    Cells are numbered r * cols + c (``maps.MapData``). Entering y from its neighbour x across y's side s is
    ``passable(R, st, rm, y, s, x)``: x not collapsed (the search spreads from x only then), y's side open, or a
    collapsed wall between two flooded rooms when one may swim; the Kraken's goal search avoids water (no flooded
    y)."""
    R, T, geo, arrows = board
    h, w = R[R_ROWS], R[R_COLS]
    bits = sc[SC_BITS]
    mask = sc[SC_MASK]
    want = sc[SC_WANT]
    swim = swim_ok(R, st) and R[R_KR_ON] == 0
    x = 0
    for r in range(h):
        n0, n1, n2, n3 = _into_row(R, rm, r, h, swim)
        bits[B_INTO * h + r] = n0
        bits[(B_INTO + 1) * h + r] = n1
        bits[(B_INTO + 2) * h + r] = n2
        bits[(B_INTO + 3) * h + r] = n3
        bits[B_FALLEN * h + r] = rm[r, RM_BITS + RB_COLLAPSED]
        goal, wnt = np.int64(0), np.int64(0)
        for c in range(w):  # (both are 0 or 1; an unsigned index: contiguous reads, not a gather, as in _spread)
            goal |= mask[np.uint64(x + c)] << c
            wnt |= want[np.uint64(x + c)] << c
        x += w
        bits[B_GOAL * h + r] = goal
        bits[B_WANT * h + r] = wnt


@njit(cache=CACHE, _nrt=False)
def unexplored_mask(board, rm, sc):
    """The goal search's B_NEW: the rooms not explored yet and not collapsed (its second attempt's goals)."""
    R, T, geo, arrows = board
    h, w = R[R_ROWS], R[R_COLS]
    x = 0
    for r in range(h):
        new = np.int64(0)
        b = np.int64(1)
        for _c in range(w):
            new |= b if geo[x, 4] >= 0 and (rm[x, RM_STATE] & (COLLAPSED | EXPLORED)) == 0 else 0
            b = b << 1
            x += 1
        sc[SC_BITS, B_NEW * h + r] = new


# A map of at most 128 cells (and fewer than 64 columns) searches its masks as two words over the whole map, bit
# x & 63 of word x >> 6 for cell x = r * cols + c, at these places of sc[SC_BITS] (two words each): a level of the
# search is then a few shifts of two words (by 1 along a row, by ``cols`` across rows) for every row at once.
L_INTO = 0  # 4 masks, one a side s, as B_INTO; a side with no neighbour on the map cleared (no wrap along a row)
L_FALLEN, L_GOAL, L_NEW, L_WANT = 8, 10, 12, 14
# The map-wide words ``goal_masks2`` keeps while the rooms' row words stay the same (``_map_words``): L_BASE the four
# sides' open walls (as L_INTO, without swimming or the Kraken's water), L_SWIMX the collapsed walls between two
# flooded rooms (added when one may swim), L_FLOOD the flooded rooms; L_STAMP the address of the rooms they came from.
L_BASE, L_SWIMX, L_FLOOD, L_STAMP = 16, 24, 32, 34
#: every bit but the sign bit: a logical shift right by 1 of an int64 word
LOW63 = 0x7FFFFFFFFFFFFFFF


@njit(cache=CACHE, inline="always", _nrt=False)
def _put2(bits, at, off, w, v):
    """Row word ``v`` (``w`` bits) at bit ``off`` of the two-word mask at ``bits[at]``."""
    j = off >> 6
    sh = off & 63
    bits[np.uint64(at + j)] |= v << sh
    if sh + w > 64:  # (then sh > 0: the row's last columns go to the next word)
        bits[np.uint64(at + j + 1)] |= (v >> (64 - sh)) & ((np.int64(1) << sh) - 1)


@njit(cache=CACHE, inline="always", _nrt=False)
def _cells2(bits, at, cells, n):
    """The two-word mask at ``bits[at]`` of the 0/1 array ``cells`` (``n`` cells)."""
    lo, hi = np.int64(0), np.int64(0)
    for x in range(min(n, 64)):  # (branch-free, contiguous reads at unsigned indices)
        lo |= cells[np.uint64(x)] << x
    for x in range(64, n):
        hi |= cells[np.uint64(x)] << (x - 64)
    bits[at] = lo
    bits[at + 1] = hi


@njit(cache=CACHE, _nrt=False)
def _map_words(R, rm, bits, h, w):
    """``goal_masks2``'s words that depend on the rooms' row words alone (L_BASE, L_SWIMX, L_FLOOD, L_FALLEN), placed
    at bit r * cols of the map's words; a side with no neighbour on the map cleared (no wrap along a row)."""
    for k in range(L_BASE, L_STAMP):
        bits[k] = 0
    bits[L_FALLEN] = 0
    bits[L_FALLEN + 1] = 0
    first, last = np.int64(1), np.int64(1) << (w - 1)
    for r in range(h):
        off = r * w
        s0, s1, s2, s3 = _swim_row(rm, r, h)
        if r > 0:
            _put2(bits, L_BASE, off, w, rm[r, RM_BITS])
            _put2(bits, L_SWIMX, off, w, s0)
        _put2(bits, L_BASE + 2, off, w, rm[r, RM_BITS + 1] & ~last)
        _put2(bits, L_SWIMX + 2, off, w, s1 & ~last)
        if r + 1 < h:
            _put2(bits, L_BASE + 4, off, w, rm[r, RM_BITS + 2])
            _put2(bits, L_SWIMX + 4, off, w, s2)
        _put2(bits, L_BASE + 6, off, w, rm[r, RM_BITS + 3] & ~first)
        _put2(bits, L_SWIMX + 6, off, w, s3 & ~first)
        _put2(bits, L_FLOOD, off, w, rm[r, RM_BITS + RB_FLOODED])
        _put2(bits, L_FALLEN, off, w, rm[r, RM_BITS + RB_COLLAPSED])


@njit(cache=CACHE, _nrt=False)
def goal_masks2(board, st, rm, sc):
    """``goal_masks`` as two words over the whole map (``L_*``, a map of at most 128 cells): the same rows of
    RM_BITS, the same swim and Kraken rules, placed at bit r * cols of the map's words. The words that depend on the
    rooms alone are made again only when their row words changed (``RB_DIRTY``) or come from other rooms
    (``L_STAMP``: a scratch handed another ``rm``); this turn's swimming and the Kraken's water are applied to them."""
    R, T, geo, arrows = board
    h, w = R[R_ROWS], R[R_COLS]
    n = h * w
    bits = sc[SC_BITS]
    if rm[0, RM_BITS + RB_DIRTY] != 0 or bits[L_STAMP] != rm.ctypes.data:
        _map_words(R, rm, bits, h, w)
        rm[0, RM_BITS + RB_DIRTY] = 0
        bits[L_STAMP] = rm.ctypes.data
    swim = swim_ok(R, st) and R[R_KR_ON] == 0
    kraken = R[R_KR_ON] == 1
    for k in range(8):
        v = bits[L_BASE + k]
        if swim:
            v |= bits[L_SWIMX + k]
        if kraken:  # no flooded room in the Kraken's search
            v &= ~bits[L_FLOOD + (k & 1)]
        bits[L_INTO + k] = v
    _cells2(bits, L_GOAL, sc[SC_MASK], n)  # (L_WANT: goal_distances writes it from its options)


@njit(cache=CACHE, _nrt=False)
def unexplored_mask2(board, rm, sc):
    """``unexplored_mask`` as two words over the whole map (L_NEW)."""
    R, T, geo, arrows = board
    n = R[R_ROWS] * R[R_COLS]
    lo, hi = np.int64(0), np.int64(0)
    for x in range(n):
        new = np.int64(1) if geo[x, 4] >= 0 and (rm[x, RM_STATE] & (COLLAPSED | EXPLORED)) == 0 else np.int64(0)
        if x < 64:
            lo |= new << x
        else:
            hi |= new << (x - 64)
    sc[SC_BITS, L_NEW] = lo
    sc[SC_BITS, L_NEW + 1] = hi


@njit(cache=CACHE, _nrt=False)
def _spread2(bits, dist, w, attempt, left):
    """``_spread`` over the two-word masks of ``goal_masks2``: each level moves the whole front at once (shifted by
    1 along the rows, by ``w`` across them, each shift masked by the sides it crosses); the same levels, the same
    labels, the same count returned."""
    i00, i01 = bits[L_INTO], bits[L_INTO + 1]  # entered from the room above (across side 0)
    i10, i11 = bits[L_INTO + 2], bits[L_INTO + 3]  # from the room to the right (side 1)
    i20, i21 = bits[L_INTO + 4], bits[L_INTO + 5]  # from the room below (side 2)
    i30, i31 = bits[L_INTO + 6], bits[L_INTO + 7]  # from the room to the left (side 3)
    fa0, fa1 = bits[L_FALLEN], bits[L_FALLEN + 1]
    wa0, wa1 = bits[L_WANT], bits[L_WANT + 1]
    s0 = bits[L_GOAL] | (bits[L_NEW] if attempt == 1 else 0)
    s1 = bits[L_GOAL + 1] | (bits[L_NEW + 1] if attempt == 1 else 0)
    up = (np.int64(1) << (64 - w)) - 1  # a logical shift right by w: the bits that stay
    carry = (np.int64(1) << w) - 1  # the top w bits of the low word, moved to the high word's bottom
    seen0, seen1 = s0, s1
    f0, f1 = s0 & ~fa0, s1 & ~fa1  # a collapsed room is labelled but leads nowhere
    if s0 & wa0:
        left -= _label(dist, 0, s0 & wa0, np.int64(0))
    if s1 & wa1:
        left -= _label(dist, 64, s1 & wa1, np.int64(0))
    level = 0
    while left > 0 and (f0 | f1) != 0:
        level += 1
        y0 = ((f0 << 1) & i30) | ((((f0 >> 1) & LOW63) | (f1 << 63)) & i10) | ((f0 << w) & i00) | (
            (((f0 >> w) & up) | (f1 << (64 - w))) & i20)
        y1 = (((f1 << 1) | ((f0 >> 63) & 1)) & i31) | (((f1 >> 1) & LOW63) & i11) | (
            ((f1 << w) | ((f0 >> (64 - w)) & carry)) & i01) | (((f1 >> w) & up) & i21)
        y0 &= ~seen0
        y1 &= ~seen1
        seen0 |= y0
        seen1 |= y1
        f0, f1 = y0 & ~fa0, y1 & ~fa1
        h0, h1 = y0 & wa0, y1 & wa1
        if h0 != 0:
            left -= _label(dist, 0, h0, level)
        if h1 != 0:
            left -= _label(dist, 64, h1, level)
    return left


def py_trailing_zeros(word) -> np.int64:
    """numba's ``trailing_zeros`` of a 64-bit word, in Python (``NUMBA_DISABLE_JIT=1``; 64 for 0)."""
    w = int(word) & 0xFFFFFFFFFFFFFFFF
    return np.int64((w & -w).bit_length() - 1) if w else np.int64(64)


if JIT_DISABLED:
    _trailing_zeros = py_trailing_zeros
else:
    from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros


@njit(cache=CACHE, inline="always", _nrt=False)
def low_bit(word):
    """The column (0..63) of a word's lowest set bit (``word`` != 0): one ``tzcnt``, no table to read (a lookup
    table made the load of its entry a link in the chain of loads of the walk: the side, its neighbour, the room)."""
    return _trailing_zeros(word)


@njit(cache=CACHE, inline="always", _nrt=False)
def _label(dist, x0, hit, level):
    """dist[x0 + c] = level for every bit c of ``hit``; returns how many."""
    k = 0
    while hit != 0:
        dist[np.uint64(x0 + low_bit(hit))] = level
        hit &= hit - 1
        k += 1
    return k


@njit(cache=CACHE, _nrt=False)
def _spread(bits, dist, h, w, attempt, left):
    """Breadth-first spread from the goals (and, on the second attempt, the unexplored rooms) over the masks of
    ``goal_masks``, a grid row a word and a level at a time (over the rows ``lo``-1..``hi``+1 around the front),
    until the ``left`` wanted rooms are labelled (their ``dist``: the level); returns how many stay unlabelled.

    Its words are read at unsigned indices (``np.uint64``, never negative here): a signed index costs a test and a
    correction for a negative one at every read, a third of the row step's instructions."""
    cur, nxt = B_FRONT * h, (B_FRONT + 1) * h
    into0, into1, into2, into3 = B_INTO * h, (B_INTO + 1) * h, (B_INTO + 2) * h, (B_INTO + 3) * h
    fallen, seen, wanted = B_FALLEN * h, B_SEEN * h, B_WANT * h
    lo, hi = h, -1
    for r in range(h):
        seed = bits[np.uint64(B_GOAL * h + r)] | (bits[np.uint64(B_NEW * h + r)] if attempt == 1 else 0)
        bits[np.uint64(seen + r)] = seed
        front = seed & ~bits[np.uint64(fallen + r)]  # a collapsed room is labelled but leads nowhere
        bits[np.uint64(cur + r)] = front
        lo = min(lo, r if front != 0 else h)
        hi = r if front != 0 else hi
        hit = seed & bits[np.uint64(wanted + r)]
        if hit != 0:
            left -= _label(dist, r * w, hit, np.int64(0))
    level = 0
    while left > 0 and hi >= 0:
        level += 1
        nlo, nhi = h, -1
        for r in range(max(lo - 1, 0), min(hi + 2, h)):
            g = bits[np.uint64(cur + r)] if lo <= r <= hi else 0
            y = ((g << 1) & bits[np.uint64(into3 + r)]) | ((g >> 1) & bits[np.uint64(into1 + r)])
            if r > lo:
                y |= bits[np.uint64(cur + r - 1)] & bits[np.uint64(into0 + r)]
            if r < hi:
                y |= bits[np.uint64(cur + r + 1)] & bits[np.uint64(into2 + r)]
            was = bits[np.uint64(seen + r)]
            y &= ~was
            bits[np.uint64(seen + r)] = was | y
            front = y & ~bits[np.uint64(fallen + r)]
            bits[np.uint64(nxt + r)] = front
            nlo = min(nlo, r if front != 0 else h)  # (no branch: whether a row is reached is hard to predict)
            nhi = r if front != 0 else nhi
            hit = y & bits[np.uint64(wanted + r)]
            if hit != 0:
                left -= _label(dist, r * w, hit, level)
                if left == 0:
                    return 0
        lo, hi = nlo, nhi
        cur, nxt = nxt, cur
    return left


@njit(cache=CACHE, _nrt=False)
def add_option(opts, n, kind, frm, to, d, path):
    """A move option's row: who goes where (the rest of its columns are filled by ``option_columns``, once for
    every row, when the menu is complete: nothing they read changes while the menu is built). Few arguments:
    numba passes every array as its flattened struct, and this is called for every row."""
    if n >= opts.shape[0]:
        return n
    option_row(opts, n, kind, frm, to, d, path)
    return n + 1


@njit(cache=CACHE, inline="always", _nrt=False)
def option_row(opts, n, kind, frm, to, d, path):
    """Row ``n`` of a move option (``add_option``'s, without its count: the walk writes a row it may not keep)."""
    opts[n, O_KIND] = kind
    opts[n, O_FROM] = frm
    opts[n, O_TO] = to
    opts[n, O_DIR] = d
    opts[n, O_PATH] = path
    opts[n, O_UPPER] = 0  # (a climb's are set by stairs_options)
    opts[n, O_UPMASK] = 0


@njit(cache=CACHE, _nrt=False)
def option_columns(board, st, rm, sc, opts, n):
    """The move options' other columns, from their destination (rows of ``add_option``); a climb keeps the
    levers ``stairs_options`` gave it in O_REQ."""
    R, T, geo, arrows = board
    mask = sc[SC_MASK]
    walked = sc[SC_DIST]
    lut_swim = (1 << W_OPEN) | (1 << W_COLLAPSED) if swim_ok(R, st) else (1 << W_OPEN)
    for i in range(n):
        frm = opts[i, O_FROM]
        to = opts[i, O_TO]
        tu = np.uint64(to)  # (unsigned indices, see _spread)
        foe = sc[SC_FOE, tu] if walked[tu] >= 0 else first_foe(R, rm, tu)
        opts[i, O_GOAL] = BIG  # filled in by goal_distances once every option is known
        opts[i, O_SECTOR] = geo[tu, 4]
        opts[i, O_FOE] = foe
        opts[i, O_FOE_STR] = foe_strength(T, st, foe) if foe >= 0 else 0
        opts[i, O_ITEMS] = item_count(rm, tu)
        if opts[i, O_KIND] != MK_STAIRS:
            opts[i, O_REQ] = 1 if (st[S_PHASE] == 0 and mask[tu] == 1) else 0
        opts[i, O_NEW] = 0 if rm[tu, RM_STATE] & EXPLORED else 1
        opts[i, O_EXIT] = 1 if (st[S_PHASE] == 2 and mask[tu] == 1) else 0
        opts[i, O_ORACLE] = 1 if to == st[S_ORACLE] else 0
        opts[i, O_ODIST] = geo[tu, 5]
        # the sides passable from ``to`` to a room other than ``frm``: only the sides with an open wall, or a collapsed
        # one between two flooded rooms when one may swim, are looked at (as in move_options' walk)
        lut = lut_swim if rm[tu, RM_STATE] & FLOODED else (1 << W_OPEN)
        look = ((lut >> rm[tu, RM_WALL]) & 1) | (((lut >> rm[tu, RM_WALL + 1]) & 1) << 1) | (
            ((lut >> rm[tu, RM_WALL + 2]) & 1) << 2) | (((lut >> rm[tu, RM_WALL + 3]) & 1) << 3)
        # a side looked at leads on when its neighbour y is on the map, is not ``frm``, is not collapsed and, across
        # a collapsed wall (looked at only from a flooded room when one may swim), is flooded too (``passable``):
        # the four sides at once, without a branch (whether a side leads on is hard to predict)
        k = 0
        for d2 in range(4):
            y = geo[tu, d2]
            yu = np.uint64(max(y, 0))
            ys = rm[yu, RM_STATE]
            k += ((look >> d2) & 1) & (y >= 0) & (y != frm) & ((ys & COLLAPSED) == 0) & (
                (rm[tu, RM_WALL + d2] == W_OPEN) | ((ys & FLOODED) != 0))
        opts[i, O_OPEN] = k
        opts[i, O_KR_FRONT] = -1  # Discovering the Kraken only (kr_mark_options)
        opts[i, O_KR_DRY] = -1


@njit(cache=CACHE, inline="always", _nrt=False)
def up_dist(board, p, q):
    """Turns of travel on the upper level between places ``p`` and ``q`` (BIG: no walkway leads there).

    Under ``rulings.upper_level = "network"`` every place reaches every other at no cost.
    """
    R, T, geo, arrows = board
    if R[R_UPPER_PLACES] == 0 or p == q:
        return 0
    i = p * T[T_UP_PLACES, 0] + q
    return T[T_UP_DIST + i // T_COLS, i % T_COLS]


@njit(cache=CACHE, _nrt=False)
def up_place(T, cell):
    """The upper-level place of a room (a staircase or lever room), or -1."""
    for p in range(T[T_UP_PLACES, 0]):
        if T[T_UP_PLACES, 1 + p] == cell:
            return p
    return -1


@njit(cache=CACHE, inline="always", _nrt=False)
def lever_value(board, st, rm, x):
    """Levers in room ``x`` that would count now for the Castle Cliff (0 if reached already this round)."""
    R, T, geo, arrows = board
    if not req_pending(R, st) or st[S_SECTOR] != 2 or (rm[x, RM_FLAG] & F_LEVER):
        return 0
    if R[R_REQ_ANYWHERE] == 0 and geo[x, 4] != 2:
        return 0
    return rm[x, RM_ICON + LEVER]


@njit(cache=CACHE, _nrt=False)
def levers_reachable(board, st, rm, x):
    """Does a climb at staircase ``x`` reach any lever that would count now?"""
    R, T, geo, arrows = board
    px = up_place(T, x)
    if px < 0:
        return False
    for p in range(T[T_UP_PLACES, 0]):
        if lever_value(board, st, rm, T[T_UP_PLACES, 1 + p]) > 0 and up_dist(board, px, p) < BIG:
            return True
    return False


@njit(cache=CACHE, _nrt=False)
def upper_trips(board, st, rm, sc, x):
    """The cheapest climbs from staircase ``x``: for every place p and every lever count e (capped at
    what the round still needs), ``sc[SC_UP_BEST, p * E + e]`` turns of travel ending at p having reached
    e levers, and ``sc[SC_UP_MASK, p * E + e]`` the places whose levers it reaches. Returns E.

    A shortest-tour dynamic programme over the subsets of the (at most 8) lever rooms still to reach.
    """
    R, T, geo, arrows = board
    n_places = T[T_UP_PLACES, 0]
    px = up_place(T, x)
    need = st[S_REQ_NEED] - st[S_REQ_DONE] if (req_pending(R, st) and st[S_SECTOR] == 2) else 0
    if need < 0:
        need = 0
    E = need + 1
    best = sc[SC_UP_BEST]
    bmask = sc[SC_UP_MASK]
    for i in range(n_places * E):
        best[i] = BIG
        bmask[i] = 0
    if px < 0:
        return E
    dp = sc[SC_UP_DP]
    lev = sc[SC_UP_LEV]
    K = 0
    if need > 0:
        for p in range(n_places):
            if K < UP_MAX_LEVER_PLACES and lever_value(board, st, rm, T[T_UP_PLACES, 1 + p]) > 0 \
                    and up_dist(board, px, p) < BIG:
                lev[K] = p
                K += 1
    full = 1 << K
    for i in range(full * K):
        dp[i] = BIG
    for j in range(K):
        dp[(1 << j) * K + j] = up_dist(board, px, lev[j])
    for mask in range(1, full):
        for j in range(K):
            cur = dp[mask * K + j]
            if cur >= BIG or ((mask >> j) & 1) == 0:
                continue
            for j2 in range(K):
                if (mask >> j2) & 1:
                    continue
                nm = mask | (1 << j2)
                c = cur + up_dist(board, lev[j], lev[j2])
                if c < dp[nm * K + j2]:
                    dp[nm * K + j2] = c
    for z in range(n_places):
        if up_dist(board, px, z) >= BIG:
            continue
        for mask in range(full):
            if mask == 0:
                c = up_dist(board, px, z)
            else:
                c = BIG
                for j in range(K):
                    if (mask >> j) & 1 and dp[mask * K + j] < BIG:
                        c2 = dp[mask * K + j] + up_dist(board, lev[j], z)
                        if c2 < c:
                            c = c2
            if c >= BIG:
                continue
            e = 0
            pm = 0
            for j in range(K):
                if (mask >> j) & 1:
                    e += lever_value(board, st, rm, T[T_UP_PLACES, 1 + lev[j]])
                    pm |= 1 << lev[j]
            if e > need:
                e = need
            if c < best[z * E + e]:
                best[z * E + e] = c
                bmask[z * E + e] = pm
    return E


@njit(cache=CACHE, _nrt=False)
def adjacent_options(board, st, rm, opts, cell):
    """The rooms one free step away (extra move, leaving the Oracle)."""
    R, T, geo, arrows = board
    n = 0
    for d in range(4):
        y = geo[cell, d]
        if y < 0 or not passable(R, st, rm, cell, d, y):
            continue
        if y == st[S_ORACLE] and req_pending(R, st) and R[R_ORACLE_BLOCKED] == 1:
            continue
        opts[n, O_KIND] = MK_STEP
        opts[n, O_FROM] = cell
        opts[n, O_TO] = y
        opts[n, O_DIR] = d
        opts[n, O_PATH] = 0
        foe = first_foe(R, rm, y)
        opts[n, O_FOE] = foe
        opts[n, O_FOE_STR] = foe_strength(T, st, foe) if foe >= 0 else 0
        opts[n, O_GOAL] = geo[y, 5] if st[S_PHASE] == 1 else 0
        opts[n, O_SECTOR] = geo[y, 4]
        opts[n, O_ITEMS] = item_count(rm, y)
        opts[n, O_REQ] = 0
        opts[n, O_NEW] = 0 if rm[y, RM_STATE] & EXPLORED else 1
        opts[n, O_EXIT] = 1 if (st[S_PHASE] == 2 and legal_exit(board, st, rm, y) >= 0) else 0
        opts[n, O_ORACLE] = 1 if y == st[S_ORACLE] else 0
        opts[n, O_ODIST] = geo[y, 5]
        opts[n, O_OPEN] = 1
        opts[n, O_UPPER] = 0
        opts[n, O_UPMASK] = 0
        opts[n, O_KR_FRONT] = -1
        opts[n, O_KR_DRY] = -1
        n += 1
    return n


@njit(cache=CACHE, _nrt=False)
def stairs_options(board, st, rm, sc, opts, n, x, path):
    """Climbs at staircase ``x``: for each staircase to come down at, the cheapest trip for each number of
    levers reached (fewest levers first; a trip is offered only if it is cheaper than every trip reaching
    more). O_REQ levers reached, O_UPPER turns travelled, O_UPMASK the places reached."""
    R, T, geo, arrows = board
    E = upper_trips(board, st, rm, sc, x)
    offer = sc[SC_UP_LEV, UP_MAX_LEVER_PLACES:]
    for z in range(T[T_UP_PLACES, 0]):
        zc = T[T_UP_PLACES, 1 + z]
        if rm[zc, RM_ICON + STAIRS] == 0 or (rm[zc, RM_STATE] & COLLAPSED):
            continue
        cheaper = BIG
        for e in range(E - 1, -1, -1):
            c = sc[SC_UP_BEST, z * E + e]
            offer[e] = 1 if c < cheaper and not (e == 0 and zc == x) else 0
            if c < cheaper:
                cheaper = c
        for e in range(E):
            if offer[e] == 0:
                continue
            c = sc[SC_UP_BEST, z * E + e]
            n0 = n
            n = add_option(opts, np.int64(n), np.int64(MK_STAIRS), x, zc, np.int64(-1), path)
            if n > n0:
                opts[n0, O_REQ] = e
                opts[n0, O_UPPER] = c
                opts[n0, O_UPMASK] = sc[SC_UP_MASK, z * E + e]
    return n


@njit(cache=CACHE, _nrt=False)
def move_options(board, st, rm, sc, opts):
    """Every legal move from here: free walking over explored rooms, then one of the final moves.

    Walking stops at rooms with an active foe (you must face it: a "go to" option).
    """
    R, T, geo, arrows = board
    n_rooms = geo.shape[0]
    mark_goals(board, st, rm, sc)
    dist = sc[SC_DIST]
    par = sc[SC_PAR]
    pdir = sc[SC_PDIR]
    q = sc[SC_QUEUE]
    foes = sc[SC_FOE]
    for x in range(n_rooms):
        dist[x] = -1
    pos = st[S_POS]
    dist[pos] = 0
    par[pos] = -1
    q[0] = pos
    head = 0
    tail = 1
    n = 0
    oracle = st[S_ORACLE]
    cross = st[S_CROSSED] == 0  # (a turn's crossing made: its step only)
    dig = st[SHOVEL] > 0 and cross
    # a wall w is worth a look when bit w of this is set: an open one; a collapsed one too with a shovel, or to swim
    lut_any = (1 << W_OPEN) | ((1 << W_COLLAPSED) if dig else 0)
    swimmer = swim_ok(R, st)
    lut_swim = (1 << W_OPEN) | (1 << W_COLLAPSED) if swimmer else lut_any
    n_max = opts.shape[0]
    while head < tail:
        x = q[np.uint64(head)]
        xu = np.uint64(x)  # (unsigned indices: no test and correction for a negative one, see _spread)
        head += 1
        fx = first_foe(R, rm, x)
        foes[xu] = fx
        if x != pos and fx >= 0:
            continue
        if R[R_KR_ON] == 1 and dist[xu] > R[R_KR_WALK_MAX]:
            continue  # Kraken: a move retraces at most kraken.walk_max explored rooms
        # The sides that can give something, in order: a printed wall (or a collapsed one without a shovel or a swim)
        # gives nothing, nor the side back to the room walked from (walked to already).
        lut = lut_swim if rm[xu, RM_STATE] & FLOODED else lut_any
        look = ((lut >> rm[xu, RM_WALL]) & 1) | (((lut >> rm[xu, RM_WALL + 1]) & 1) << 1) | (
            ((lut >> rm[xu, RM_WALL + 2]) & 1) << 2) | (((lut >> rm[xu, RM_WALL + 3]) & 1) << 3)
        if x != pos:
            look &= ~(1 << ((pdir[xu] + 2) & 3))
        while look != 0:
            d = low_bit(look)
            look &= look - 1
            y = geo[xu, d]
            if y < 0:
                continue
            yu = np.uint64(y)
            if dist[yu] >= 0 or (rm[yu, RM_STATE] & COLLAPSED):
                continue  # (a room already walked to gives no move: a shovel's into it would be dropped below)
            if y == oracle and req_pending(R, st) and R[R_ORACLE_BLOCKED] == 1:
                continue
            if rm[xu, RM_WALL + d] != W_OPEN and not passable(R, st, rm, x, d, y):
                if rm[xu, RM_WALL + d] == W_COLLAPSED and dig:
                    n = add_option(opts, np.int64(n), np.int64(MK_SHOVEL), x, y, d, dist[xu])
                continue
            if R[R_KR_ON] == 1 and (rm[yu, RM_STATE] & FLOODED) and y != pos:  # Kraken: water is swum, a room a move
                n = add_option(opts, np.int64(n), np.int64(MK_SWIM), x, y, d, dist[xu])
                continue
            # An explored room is walked to next (queued), any other is a step (or a swim) into it: which one is
            # hard to predict, so both are written and one kept (a queue slot past the tail, a row past the menu's
            # end and an unqueued room's ``par``/``pdir`` are never read; its ``dist`` stays -1)
            ys = rm[yu, RM_STATE]
            ex = np.int64((ys & EXPLORED) != 0)
            dx = dist[xu]
            dist[yu] = ex * (dx + 2) - 1  # dx + 1 walked to, else -1 as it was (not walked to yet: tested above)
            par[yu] = x
            pdir[yu] = d
            q[np.uint64(tail)] = y
            tail += ex
            if n < n_max:
                option_row(opts, n, MK_SWIM if ((ys & FLOODED) != 0) & swimmer else MK_STEP, x, y, d, dx)
                n += 1 - ex
        if (x == pos and fx >= 0) or not cross:
            continue  # you fled from this room's foe: no stairs or circle here (only after a won encounter)
        if rm[x, RM_ICON + STAIRS] > 0:
            n = stairs_options(board, st, rm, sc, opts, np.int64(n), x, dist[x])
        if rm[x, RM_ICON + CIRCLE] > 0:
            for i in range(T[T_CIRCLES, 0]):
                z = T[T_CIRCLES, 1 + i]
                if z != x and (rm[z, RM_STATE] & COLLAPSED) == 0:
                    n = add_option(opts, np.int64(n), np.int64(MK_CIRCLE), x, z, np.int64(-1),
                                   dist[x])
    # shovel moves into rooms you can already walk to are pointless: drop them
    k = 0
    for i in range(n):
        if opts[i, O_KIND] == MK_SHOVEL and dist[opts[i, O_TO]] >= 0:
            continue
        if k != i:
            for j in range(N_OCOL):
                opts[k, j] = opts[i, j]
        k += 1
    n = k
    if foes[pos] >= 0:  # the foe you fled from: face it again
        n = add_option(opts, np.int64(n), np.int64(MK_GOTO), pos, pos, st[S_DIR], np.int64(0))
    # explored rooms worth walking to: foes to face, the Oracle, an exit, items left behind
    for i in range(1, tail):
        e = q[i]
        eu = np.uint64(e)
        if foes[eu] >= 0 or item_count(rm, eu) > 0 or (st[S_PHASE] > 0 and sc[SC_MASK, eu] == 1):
            n = add_option(opts, np.int64(n), np.int64(MK_GOTO), par[eu], e, pdir[eu], dist[eu] - 1)
    option_columns(board, st, rm, sc, opts, n)
    progress_left = False
    for i in range(n):
        if opts[i, O_KIND] != MK_STAIRS and opts[i, O_KIND] != MK_CIRCLE or opts[i, O_REQ] > 0:
            progress_left = True
            break
    if n > 0 and not progress_left and not can_progress(board, st, rm, sc):
        return 0
    goal_distances(board, st, rm, sc, opts, n)
    if R[R_KR_ON] == 1:
        kr_mark_options(board, st, rm, sc, opts, n)
    return n


@njit(cache=CACHE, _nrt=False)
def can_progress(board, st, rm, sc):
    """Stuck test: can walking, stairs and magic circles still bring you to anything new?

    Something new is an unexplored room, a collapsed wall you can dig, a foe, items, or a goal.
    """
    R, T, geo, arrows = board
    n_rooms = geo.shape[0]
    seen = sc[SC_PAR]
    q = sc[SC_QUEUE]
    for x in range(n_rooms):
        seen[x] = 0
    pos = st[S_POS]
    seen[pos] = 1
    q[0] = pos
    head = 0
    tail = 1
    while head < tail:
        x = q[head]
        head += 1
        if x != pos and (first_foe(R, rm, x) >= 0 or item_count(rm, x) > 0 or sc[SC_MASK, x] == 1):
            return True
        for d in range(4):
            y = geo[x, d]
            if y < 0 or (rm[y, RM_STATE] & COLLAPSED):
                continue
            if passable(R, st, rm, x, d, y):
                if (rm[y, RM_STATE] & EXPLORED) == 0:
                    return True
                if seen[y] == 0:
                    seen[y] = 1
                    q[tail] = y
                    tail += 1
            elif rm[x, RM_WALL + d] == W_COLLAPSED and st[SHOVEL] > 0:
                return True
        px = up_place(T, x) if rm[x, RM_ICON + STAIRS] > 0 else -1
        if px >= 0 or rm[x, RM_ICON + CIRCLE] > 0:
            for z in range(n_rooms):
                if seen[z] == 0 and (rm[z, RM_ICON + STAIRS] > 0 or rm[z, RM_ICON + CIRCLE] > 0) and (
                        rm[z, RM_STATE] & COLLAPSED) == 0:
                    by_stairs = px >= 0 and rm[z, RM_ICON + STAIRS] > 0 and up_dist(board, px, up_place(T, z)) < BIG
                    if by_stairs or (rm[x, RM_ICON + CIRCLE] > 0 and rm[z, RM_ICON + CIRCLE] > 0):
                        if (rm[z, RM_STATE] & EXPLORED) == 0:
                            return True
                        seen[z] = 1
                        q[tail] = z
                        tail += 1
    return False


@njit(cache=CACHE, _nrt=False)
def do_move(board, st, rm, sc, opts, dice, pol, vis, c):
    """Carry out move option ``c``. Returns 1 when the round is completed."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    if R[R_KR_ON] == 1 and kr_swim(board, st, rm, sc, opts, dice, pol, c) < 0:
        return 0  # Discovering the Kraken: drowned, or killed by the Kraken in the water
    kind = opts[c, O_KIND]
    frm = opts[c, O_FROM]
    to = opts[c, O_TO]
    d = opts[c, O_DIR]
    if R[R_FREE_MOVE_TURNS] == 1:
        st[S_TURN] += opts[c, O_PATH]
        st[S_ROUND_TURN] += opts[c, O_PATH]
    if kind == MK_STAIRS or kind == MK_CIRCLE:
        st[S_JUMP_FROM] = frm
        st[S_JUMP_TO] = to
        st[S_JUMPS_IDLE] += 1
    if opts[c, O_PATH] > 0:
        log(tr, st, TR_WALK, st[S_POS], frm, opts[c, O_PATH], 0, 0)
    if kind == MK_STEP:
        table = geo[frm, 4]
        if table == 4 or table < 0:  # stepping out of the Oracle's room
            table = geo[to, 4] if R[R_ORACLE_TABLE_DEST] == 1 else -1
        if to == st[S_ORACLE]:
            table = -1  # the Oracle's room: do not roll
        return arrive(board, st, rm, opts, dice, pol, vis, to, d, frm, table, np.bool_(False))
    if kind == MK_CIRCLE:
        log(tr, st, TR_JUMP, frm, to, MK_CIRCLE, 0, 0)
    if kind == MK_SWIM or kind == MK_CIRCLE:
        table = jump_table(board, rm, frm, to, R_ROLL_AFTER_SWIM if kind == MK_SWIM else R_ROLL_AFTER_JUMP)
        if kind == MK_SWIM:  # (the replay says it is a swim, and whether it is rolled)
            log(tr, st, TR_JUMP, frm, to, MK_SWIM, table, d if d >= 0 else st[S_DIR])
        return arrive(board, st, rm, opts, dice, pol, vis, to, d if d >= 0 else st[S_DIR], frm, table, np.bool_(False))
    if kind == MK_SHOVEL:
        st[SHOVEL] -= 1
        set_wall(R, rm, frm, d, np.int64(W_OPEN))
        set_wall(R, rm, to, (d + 2) % 4, np.int64(W_OPEN))
        log(tr, st, TR_LOSE, SHOVEL, 1, st[SHOVEL], 1, 0)
        return arrive(board, st, rm, opts, dice, pol, vis, to, d, frm, np.int64(-1), np.bool_(False))
    if kind == MK_STAIRS:
        log(tr, st, TR_JUMP, frm, to, MK_STAIRS, 0, 0)
        travel = opts[c, O_UPPER]
        pm = opts[c, O_UPMASK]
        st[S_TURN] += travel  # travelling on the upper level costs turns; no room roll up there
        st[S_ROUND_TURN] += travel
        st[S_UP_TURNS] += travel
        k = 0
        for p in range(T[T_UP_PLACES, 0]):
            if (pm >> p) & 1:
                x = T[T_UP_PLACES, 1 + p]
                k += lever_value(board, st, rm, x)
                rm[x, RM_FLAG] |= F_LEVER
                log(tr, st, TR_LEVER, x, 0, 0, 0, 0)
        log(tr, st, TR_UPPER, frm, to, travel, k, pm)
        if k > 0:
            progress(st, tr, k)
        return arrive(board, st, rm, opts, dice, pol, vis, to, st[S_DIR], np.int64(-1),
                      jump_table(board, rm, frm, to, R_ROLL_AFTER_JUMP), np.bool_(False))
    # MK_GOTO: walk to an explored room; only a legal exit is rolled again (ruling exit_roll)
    table = -1
    if frm != to and R[R_EXIT_ROLL_ALWAYS] == 1 and st[S_PHASE] == 2 and legal_exit(board, st, rm, to) >= 0:
        table = geo[frm, 4] if 0 <= geo[frm, 4] < 4 else geo[to, 4]
    return arrive(board, st, rm, opts, dice, pol, vis, to, d, frm, table, np.bool_(False))


@njit(cache=CACHE, _nrt=False)
def turn_moves(board, st, rm, sc, opts, dice, pol, vis, c):
    """The turn's move ``c``; when it is a crossing (a shovel's dig, a climb of stairs, a magic circle) and
    ``rulings.crossing_in_turn``, the turn's step follows it in the same turn, with no other crossing ("Simplified
    Sequence of Turn Actions": step, roll, face, collect and climb, dig, resume). The crossing counts the turn, the
    step after it does not; with no step left the turn ends there. Returns ``do_move``'s result."""
    R, T, geo, arrows = board
    kind = opts[c, O_KIND]
    r = do_move(board, st, rm, sc, opts, dice, pol, vis, c)
    if R[R_CROSSING_IN_TURN] == 0 or r != 0 or st[S_DEAD] == 1 or not (
            kind == MK_SHOVEL or kind == MK_STAIRS or kind == MK_CIRCLE) or (
            R[R_SANTA] == 1 and st[S_POS] == R[R_SANTA_SAFE]):  # (Santa: a crossing into the Safe Zone ends it there)
        return r
    st[S_CROSSED] = 1  # (read by move_options: no crossing; by enter_room: the step's room counts no turn)
    n = move_options(board, st, rm, sc, opts)
    if n > 0:
        c = decide(D_MOVE, n, st, opts, dice, pol)
        r = do_move(board, st, rm, sc, opts, dice, pol, vis, c)
    st[S_CROSSED] = 0
    return r


# ------------------------------------------------------------------------------ campaigns --
@njit(cache=CACHE, _nrt=False)
def coloured_potion(R, st, tr, icon):
    """A coloured potion (campaigns): "a label with 2 DOTS, meaning it heals you for 2 Life Points" (yellow;
    3 for purple), and "you can move 1 step without rolling dice" (``potions.coloured_step``): the step is kept
    pending and taken when the room is resolved (``potion_step``)."""
    gain(st, tr, HEARTS, R[R_POTION_YELLOW] if icon == YELLOW_POTION else R[R_POTION_PURPLE])
    if R[R_POTION_STEP] == 1:
        st[S_POTION_STEPS] += 1


@njit(cache=CACHE, _nrt=False)
def potion_step(board, st, rm, opts, dice, pol, cell):
    """Take one pending potion step: the policy picks an adjacent room (D_EXTRA, as the room event's extra move),
    entered without a roll. Returns ``enter_room``'s free-step code, or 0 when no room is reachable (the step is
    lost). Ruling: the step is taken at once (a step back to an explored room is always among the choices when
    the way in is open); a round that ends in the room drops it."""
    rs, ps, script, tr = dice
    st[S_POTION_STEPS] -= 1
    n = adjacent_options(board, st, rm, opts, cell)
    if n == 0:
        return 0
    c = decide(D_EXTRA, n, st, opts, dice, pol)
    log(tr, st, TR_POTION_STEP, cell, opts[c, O_TO], st[S_POTION_STEPS], 0, 0)
    return 2 + opts[c, O_TO] * 4 + opts[c, O_DIR]


@njit(cache=CACHE, _nrt=False)
def turn_market(board, st, opts, dice, pol):
    """"At the end of each turn, you can always purchase additional resources at the market"
    (``rulings.market_every_turn``): the market at this round's chest value, once per turn the round goes on.
    Ruling: it opens when there is something to purchase with (a chest or a cornucopia) and offers purchases
    (a chest for the round's value, a cornucopia redeemed); swaps only under ``market_every_turn = "all"``."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    if st[CHEST] == 0 and st[CORNU] == 0:
        return
    log(tr, st, TR_TURN_MARKET, st[S_TURN], st[S_CHESTV], 0, 0, 0)
    st[S_TURN_MARKET] = 1
    market(R, st, opts, dice, pol, st[S_CHESTV])
    st[S_TURN_MARKET] = 0


# ------------------------------------------------------------------ The Slaughter of Monsters --
# docs/rules.md "The Slaughter of Monsters": every rule below runs only under R[R_SL_ON] = 1 (R_FURY_BOXES > 0 for
# the Fury track); the base game never calls these functions.
@njit(cache=CACHE, _nrt=False)
def fury(board, st, rm, opts, dice, pol, track, amount, site, cell):
    """"Each time you are forced to sacrifice one or more resources you possess but do not want to, you can black
    out an equal number of Fury boxes" (irreversible): the policy decides (D_FURY). ``track`` is the resource the
    loss takes (-1: the bandit's theft, before it picks), ``amount`` how much. Ruling: with fewer boxes left than
    the loss, blacking out fills the track (the Fury prevails: ``fury_full``). Returns True when boxes were
    blacked out (the loss is not taken)."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    left = R[R_FURY_BOXES] - st[S_FURY_USED]
    if left <= 0 or amount <= 0 or st[S_DEAD] == 1:
        return False
    if track < 0:  # a theft: only when there is something to steal
        held = 0
        for r in range(SHIELD, N_TRACKS):
            held += st[r]
        if held == 0:
            return False
        amount = min(amount, held)  # (an equal number: a theft of 3 from 1 resource held takes 1)
    k = min(amount, left)
    st[S_FURY_TRACK] = track
    st[S_FURY_LOSS] = k
    st[S_FURY_SITE] = site
    opts[0, 0] = 0
    opts[1, 0] = 1
    if decide(D_FURY, 2, st, opts, dice, pol) == 0:
        return False
    st[S_FURY_USED] += k
    log(tr, st, TR_FURY, track, k, st[S_FURY_USED], R[R_FURY_BOXES], site)
    if st[S_FURY_USED] >= R[R_FURY_BOXES]:
        fury_full(board, st, rm, tr, cell)
    return True


@njit(cache=CACHE, _nrt=False)
def fury_wear(board, st, rm, opts, dice, pol, cell):
    """"I face a combat and use the Weapon ... I must remove 1 Weapon ... Instead of removing the Weapon, I black
    out one Fury space": the wear after a combat, taken after its outcome (so that a Fury filled by it erases the
    sector's monsters once the beaten foe is marked)."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    wear = R[R_WEAPON_WEAR]
    if st[WEAPON] > 0 and wear > 0 and not fury(board, st, rm, opts, dice, pol, np.int64(WEAPON),
                                                min(wear, st[WEAPON]), np.int64(FS_WEAR), cell):
        st[WEAPON] -= min(wear, st[WEAPON])
        log(tr, st, TR_WEAPON_WEAR, st[WEAPON], 0, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def fury_full(board, st, rm, tr, cell):
    """The track is full: "You are Furious! ... roam the sector (i.e., the colored area) you are in and erase every
    monster. Mark them on the counter." Ruling: every monster (not a statue) in a room of the sector of ``cell``
    that is not collapsed; they count as kills under ``slaughter.fury_kills_count``. The game ends."""
    R, T, geo, arrows = board
    s = geo[cell, 4] if cell >= 0 else -1
    k = 0
    for x in range(geo.shape[0]):
        if geo[x, 4] != s or (rm[x, RM_STATE] & COLLAPSED):
            continue
        for ic in range(FOE_FIRST, FOE_FIRST + R[R_N_FOES]):
            if rm[x, RM_ICON + ic] > 0 and not foe_has(T, ic, FT_TRAP):
                k += rm[x, RM_ICON + ic]
                add_icon(rm, x, ic, -rm[x, RM_ICON + ic])
    st[S_FURY_KILLS] = k
    if R[R_SL_FURY_COUNTS] == 1:
        st[S_KILLS_ROUND] += k
        st[S_KILLS_TOTAL] += k
    st[S_DEAD] = 1  # the game ends; not a death (S_DEATH_* stay as they are)
    st[S_CAUSE] = CAUSE_FURY
    st[S_SL_END] = SLE_FURY
    log(tr, st, TR_FURY_FULL, s, k, R[R_SL_FURY_COUNTS], st[S_KILLS_TOTAL], 0)


@njit(cache=CACHE, _nrt=False)
def sl_find(R, st, rm, dice, cell):
    """"Rolling the die will no longer lead to encountering enemies but instead to finding useful items": a room
    roll's monster becomes a find roll (1d6) on ``slaughter.find_table``; the item lies in the room and is
    collected like any other (after the room's encounters)."""
    rs, ps, script, tr = dice
    face = d6(rs, script)
    icon = R[R_SL_FIND + face - 1]
    log(tr, st, TR_SL_FIND, cell, face, icon, 0, 0)
    if icon >= 0:
        add_icon(rm, cell, icon, np.int64(1))


@njit(cache=CACHE, _nrt=False)
def sl_may_spawn(R, st, tr, cell):
    """"The maximum number of enemies you can encounter is 48": a monster appears (the DIE table, if a ruleset
    gives it one) only while fewer than ``slaughter.max_enemies`` were met (the map's count at the start)."""
    if st[S_SL_ENEMIES] >= R[R_SL_MAX_ENEMIES]:
        log(tr, st, TR_SL_CAP, cell, st[S_SL_ENEMIES], 0, 0, 0)
        return False
    st[S_SL_ENEMIES] += 1
    return True


@njit(cache=CACHE, _nrt=False)
def sl_monsters(board, rm, mask):
    """Monsters (not statues) standing in rooms that are not collapsed; marks their rooms in ``mask`` (if it has
    rows) and returns how many."""
    R, T, geo, arrows = board
    k = 0
    for x in range(geo.shape[0]):
        if rm[x, RM_STATE] & COLLAPSED:
            continue
        for ic in range(FOE_FIRST, FOE_FIRST + R[R_N_FOES]):
            if rm[x, RM_ICON + ic] > 0 and not foe_has(T, ic, FT_TRAP):
                k += rm[x, RM_ICON + ic]
                if mask.shape[0] > 0:
                    mask[x] = 1
    return k


@njit(cache=CACHE, _nrt=False)
def sl_goals(board, rm, mask):
    """Where the Slaughter wants you: every room with a monster (``mark_goals``)."""
    sl_monsters(board, rm, mask)


@njit(cache=CACHE, inline="always", _nrt=False)
def slaughter_game(board, st, rm, sc, opts, dice, pol, vis):
    """"Kill as many monsters as possible before dying": from the black start triangle at the centre, turns of the
    base game (step, room roll, encounters, items, shovel) with no round, no requirement and no exit, until death,
    a full Fury track, stuck, the turn cap, or no monster left to meet (ruling: the score can no longer change)."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    cell = R[R_SL_START]
    st[S_SECTOR] = -1  # no round: no requirement is collected anywhere
    st[S_PHASE] = 0
    st[S_REQ_NEED] = 1 << 40
    st[S_BONUS] = T[T_BONUS, 0]
    st[S_CHESTV] = T[T_CHESTV, 0]
    st[S_JUMP_FROM] = -1
    st[S_JUMP_TO] = -1
    st[S_PROGRESS_TURN] = 0
    st[S_FURY_BOXES] = R[R_FURY_BOXES]
    none = sc[SC_MASK, :0]
    st[S_SL_ENEMIES] = sl_monsters(board, rm, none)
    log(tr, st, TR_SL_START, cell, st[S_SL_ENEMIES], R[R_FURY_BOXES], 0, 0)
    arrive(board, st, rm, opts, dice, pol, vis, cell, np.int64(0), np.int64(-1), np.int64(-1),
           np.bool_(True))  # placed at the start: no roll, no turn
    while st[S_DEAD] == 0:
        if sl_monsters(board, rm, none) == 0 and (R[R_SL_CAN_SPAWN] == 0 or st[S_SL_ENEMIES] >= R[R_SL_MAX_ENEMIES]):
            st[S_SL_END] = SLE_CLEARED
            break
        take_turn(board, st, rm, sc, opts, dice, pol, vis)
    if st[S_SL_END] == 0:
        cause = st[S_CAUSE]
        st[S_SL_END] = SLE_STUCK if cause == CAUSE_STUCK else SLE_CAP if cause == CAUSE_TIMEOUT else SLE_DEAD
    log(tr, st, TR_SL_END, st[S_SL_END], st[S_KILLS_TOTAL], st[S_FURY_USED], st[S_TURN], 0)


# ------------------------------------------------------------------ Santa Crash'n Foury --
# One continuous game (docs/rules.md "Santa Crash'n Foury"): start beside Santa's room (the map's centre, the
# Oracle's place), a turn per hourglass space, collectibles picked up like items, stars, the Grinch and the Yeti,
# and at the end the Safe Zone, the collection goal or Santa's Wrath. Every function is reached only with
# R[R_SANTA] = 1 (0 in the base game).
@njit(cache=CACHE, inline="always", _nrt=False)
def santa_count(packed, k):
    """Kind ``k`` (SK_*) of a packed ``santa.goal`` / ``santa.full`` rule slot."""
    return (packed >> (8 * k)) & 255


@njit(cache=CACHE, _nrt=False)
def santa_has(st, packed):
    """Does the collection hold at least the packed counts (``R[R_SANTA_GOAL]`` or ``R[R_SANTA_FULL]``)?"""
    for k in range(N_SANTA_KINDS):
        if st[S_SANTA_GOT + k] < santa_count(packed, k):
            return False
    return True


@njit(cache=CACHE, _nrt=False)
def santa_star(R, st, tr, cell, src):
    """A star (landed on, ``src`` 0, or rolled on the DIE table, 1): "you can move freely for 4 additional spaces
    without rolling more dice", taken once the room is resolved (``santa_step``)."""
    st[S_SANTA_STEPS] += R[R_SANTA_STAR_STEPS]
    log(tr, st, TR_SANTA_STAR, cell, R[R_SANTA_STAR_STEPS], src, 0, 0)


@njit(cache=CACHE, _nrt=False)
def santa_receive(R, st, tr, cell, icon):
    """One of the campaign's items: "Green Reindeer, Rudolph in red, Packages, and the Sleigh are collected like any
    other object"; a candy cane is kept for the Grinch or the Yeti; a star gives its free steps."""
    if icon == STAR:
        santa_star(R, st, tr, cell, np.int64(0))
        return
    if icon == CANDY_CANE:
        st[S_SANTA_CANES] += 1
        log(tr, st, TR_SANTA_GET, N_SANTA_KINDS, st[S_SANTA_CANES], cell, 1, -1)
        return
    k = SK_SLEIGH
    if icon == REINDEER:
        k = SK_REINDEER
    elif icon == RUDOLPH:
        k = SK_RUDOLPH
    elif icon == GREEN_PACKAGE:
        k = SK_GREEN
    elif icon == BLUE_PACKAGE:
        k = SK_BLUE
    st[S_SANTA_GOT + k] += 1
    log(tr, st, TR_SANTA_GET, k, st[S_SANTA_GOT + k], cell, 1, -1)


@njit(cache=CACHE, _nrt=False)
def santa_step(board, st, rm, opts, dice, pol, cell):
    """One of a star's free steps: the policy picks an adjacent room (D_EXTRA), entered without a roll; a foe
    there is faced, its items collected. Returns ``enter_room``'s free-step code, or 0 when no room is reachable
    (the steps left are lost)."""
    rs, ps, script, tr = dice
    n = adjacent_options(board, st, rm, opts, cell)
    if n == 0:
        st[S_SANTA_STEPS] = 0
        return 0
    st[S_SANTA_STEPS] -= 1
    c = decide(D_EXTRA, n, st, opts, dice, pol)
    log(tr, st, TR_SANTA_STAR, -1, cell, opts[c, O_TO], st[S_SANTA_STEPS], 0)
    return 2 + opts[c, O_TO] * 4 + opts[c, O_DIR]


@njit(cache=CACHE, _nrt=False)
def santa_cane(board, st, rm, opts, dice, pol, cell, foe):
    """The Grinch or the Yeti, and a candy cane held: "you can give them a candy cane to distract them ... remove
    them from the map" (D_SANTA_CANE). Not a kill. Returns True when the cane was given."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    if st[S_SANTA_CANES] == 0 or (foe != R[R_SANTA_GRINCH] and foe != R[R_SANTA_YETI]):
        return False
    st[S_CTX_FOE] = foe
    st[S_CTX_STR] = foe_strength(T, st, foe)
    opts[0, 0] = 0
    opts[1, 0] = 1
    if decide(D_SANTA_CANE, 2, st, opts, dice, pol) == 0:
        return False
    st[S_SANTA_CANES] -= 1
    st[S_SANTA_CANES_GIVEN] += 1
    add_icon(rm, cell, foe, np.int64(-1))
    log(tr, st, TR_SANTA_CANE, foe, cell, st[S_SANTA_CANES], 0, 0)
    return True


@njit(cache=CACHE, _nrt=False)
def santa_hit(R, st, tr, foe):
    """A hit the Grinch (the Yeti) landed: "he will destroy a GREEN (BLUE) package you have collected"
    (``santa.packages_per_hit`` per hit that costs hearts)."""
    k = SK_GREEN if foe == R[R_SANTA_GRINCH] else (SK_BLUE if foe == R[R_SANTA_YETI] else -1)
    if k < 0:
        return
    take = min(st[S_SANTA_GOT + k], R[R_SANTA_LOSS])
    if take > 0:
        st[S_SANTA_GOT + k] -= take
        st[S_SANTA_LOST] += take
        log(tr, st, TR_SANTA_GET, k, st[S_SANTA_GOT + k], st[S_POS], -take, foe)


@njit(cache=CACHE, _nrt=False)
def santa_goals(board, st, rm, mask):
    """Where the goal search heads (``mark_goals``): the Safe Zone once heading for it (or when no collectible
    is left on the map), else every room with a star, a collectible or a candy cane."""
    R, T, geo, arrows = board
    if st[S_SANTA_HOME] == 0:
        found = False
        for x in range(geo.shape[0]):
            if rm[x, RM_STATE] & COLLAPSED:
                continue
            for ic in range(STAR, CANDY_CANE + 1):
                if rm[x, RM_ICON + ic] > 0:
                    mask[x] = 1
                    found = True
                    break
        if found:
            return
    if R[R_SANTA_SAFE] >= 0:
        mask[R[R_SANTA_SAFE]] = 1


@njit(cache=CACHE, _nrt=False)
def santa_safe_dist(board, st, rm, sc):
    """Steps from the hero's room to the Safe Zone over the map as drawn now (unexplored rooms by their printed
    walls), -1 when it cannot be reached. Uses the goal search's scratch rows (rebuilt by every move search)."""
    R, T, geo, arrows = board
    dist = sc[SC_GOAL]
    q = sc[SC_QUEUE]
    target = R[R_SANTA_SAFE]
    pos = st[S_POS]
    if target < 0 or pos < 0:
        return -1
    for x in range(geo.shape[0]):
        dist[x] = -1
    dist[pos] = 0
    q[0] = pos
    head = 0
    tail = 1
    while head < tail:
        x = q[head]
        head += 1
        if x == target:
            return dist[x]
        for d in range(4):
            y = geo[x, d]
            if y >= 0 and dist[y] < 0 and passable(R, st, rm, x, d, y):
                dist[y] = dist[x] + 1
                q[tail] = y
                tail += 1
    return -1


@njit(cache=CACHE, inline="always", _nrt=False)
def santa_turn(board, st, rm, sc, opts, dice, pol, vis):
    """One turn: the policy may turn for the Safe Zone (D_SANTA_HOME, until it does), then one move as in a
    round. Returns -1 when no move is left (stuck), else 0."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    st[S_SANTA_LEFT] = R[R_SANTA_HOURGLASS] - st[S_SANTA_MARKS]
    if st[S_SANTA_HOME] == 0:
        st[S_SANTA_SAFE_DIST] = santa_safe_dist(board, st, rm, sc)
        goal = 1 if santa_has(st, R[R_SANTA_GOAL]) else 0
        full = 1 if santa_has(st, R[R_SANTA_FULL]) else 0
        for i in range(2):
            opts[i, 0] = i
            opts[i, 1] = goal
            opts[i, 2] = full
        if decide(D_SANTA_HOME, 2, st, opts, dice, pol) == 1:
            st[S_SANTA_HOME] = 1
            made_progress(st)
            log(tr, st, TR_SANTA_HOME, st[S_SANTA_LEFT], st[S_SANTA_SAFE_DIST], 0, 0, 0)
    n = move_options(board, st, rm, sc, opts)
    if n == 0:
        return -1
    c = decide(D_MOVE, n, st, opts, dice, pol)
    turn_moves(board, st, rm, sc, opts, dice, pol, vis, c)
    return 0


@njit(cache=CACHE, _nrt=False)
def santa_wrath(board, st, opts, dice, pol):
    """"You will have to endure 10 turns of Santa's attack and lose the corresponding Life Points. Santa is
    immortal": each attack is one roll-off, your d6 against Santa's d6 + ``santa.wrath_strength``; when his is
    higher you lose the difference in hearts (a shield may block it, D_SHIELD); a tie or a higher roll of yours
    costs nothing. Returns the attacks survived (``santa.wrath_turns`` when all)."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    strength = R[R_SANTA_WRATH_STR]
    log(tr, st, TR_SANTA_HOME, R[R_SANTA_WRATH_TURNS], strength, 1, 0, 0)
    st[S_CTX_FOE] = -1
    st[S_CTX_STR] = strength
    st[S_CTX_ADD] = 0
    for t in range(R[R_SANTA_WRATH_TURNS]):
        my = d6(rs, script)
        en = d6(rs, script)
        st[S_CTX_MY] = my
        st[S_CTX_EN] = en
        log(tr, st, TR_ROLLOFF, my, 0, en, strength, 0)
        dmg = en + strength - my
        if dmg <= 0:
            continue
        st[S_CTX_DMG] = dmg
        if st[SHIELD] > 0:
            opts[0, 0] = 0
            opts[1, 0] = 1
            if decide(D_SHIELD, 2, st, opts, dice, pol) == 1:
                st[SHIELD] -= 1
                saved = 1 if R[R_SHIELD_ONE] == 1 else dmg
                dmg -= saved
                log(tr, st, TR_BLOCK, saved, st[SHIELD], 0, 0, 0)
        if dmg <= 0:
            continue
        lost = min(dmg, st[HEARTS])
        st[HEARTS] -= lost
        st[S_SANTA_WRATH] += lost
        log(tr, st, TR_HIT, dmg, st[HEARTS], 0, 0, 0)
        if st[HEARTS] <= 0:
            die(board, st, tr, CAUSE_SANTA, st[S_POS])
            return t
    return R[R_SANTA_WRATH_TURNS]


@njit(cache=CACHE, inline="always", _nrt=False)
def santa_play(board, st, rm, sc, opts, dice, pol, vis):
    """The whole campaign after character creation: the start beside Santa's room (D_PLACE among its accessible
    neighbours; the room is entered and rolled like a round's first room, the first hourglass space), one turn per
    hourglass space until the Safe Zone, death (stuck is one, ``santa.stuck``), or the last space; then the
    collection goal or Santa's Wrath."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    st[S_PHASE] = PH_SANTA
    st[S_SECTOR] = -1
    st[S_STR_ROW] = 0
    st[S_BONUS] = T[T_BONUS, 0]
    st[S_CHESTV] = T[T_CHESTV, 0]
    st[S_JUMP_FROM] = -1
    st[S_JUMP_TO] = -1
    safe = R[R_SANTA_SAFE]
    home = st[S_ORACLE]
    n = adjacent_options(board, st, rm, opts, home)
    survived = -1
    if n == 0:
        die(board, st, tr, CAUSE_STUCK, home)
    else:
        c = decide(D_PLACE, n, st, opts, dice, pol)
        cell = opts[c, O_TO]
        log(tr, st, TR_SANTA_START, cell, R[R_SANTA_HOURGLASS], home, safe, 0)
        table = geo[cell, 4] if 0 <= geo[cell, 4] < 4 else -1
        arrive(board, st, rm, opts, dice, pol, vis, cell, opts[c, O_DIR], home, table, np.bool_(False))
        st[S_SANTA_MARKS] = 1
        while st[S_DEAD] == 0 and st[S_POS] != safe and st[S_SANTA_MARKS] < R[R_SANTA_HOURGLASS]:
            if st[S_TURN] >= R[R_MAX_TURNS]:
                st[S_SANTA_MARKS] = R[R_SANTA_HOURGLASS]  # the turn cap: the hourglass runs out where you stand
                break
            if santa_turn(board, st, rm, sc, opts, dice, pol, vis) < 0:
                if (R[R_SANTA_FLAGS] & SF_STUCK_HOURGLASS) != 0:  # santa.stuck = "hourglass"
                    st[S_SANTA_MARKS] = R[R_SANTA_HOURGLASS]  # the hourglass runs out where you stand
                else:  # "If you get stuck... uh, you're dead"
                    die(board, st, tr, CAUSE_STUCK, st[S_POS])
                break
            st[S_SANTA_MARKS] += 1
    goal = santa_has(st, R[R_SANTA_GOAL])
    if st[S_DEAD] == 1:
        end = SE_DIED
    elif st[S_POS] == safe:
        end = SE_SAFE
    elif goal and R[R_SANTA_WRATH_GOAL] == 0:
        end = SE_COLLECTION
    else:
        survived = santa_wrath(board, st, opts, dice, pol)
        if st[S_DEAD] == 1:
            end = SE_WRATH_KILLED
        else:
            end = SE_COLLECTION if goal else SE_WRATH_SURVIVED
    full = santa_has(st, R[R_SANTA_FULL])
    st[S_SANTA_END] = end + (8 if goal else 0) + (16 if full else 0)  # how it ended, and the collection's bits
    st[S_WIN] = 1 if end == SE_SAFE or end == SE_COLLECTION else 0
    log(tr, st, TR_SANTA_END, end, st[S_SANTA_MARKS], survived, st[S_SANTA_WRATH], 1 if goal else 0)


@njit(cache=CACHE, _nrt=False)
def santa_out(st, out, k):
    """The campaign's output columns (0 in the base game, where they do not exist: ``outputs.py``)."""
    out[k, OUT_SANTA_END] = st[S_SANTA_END] & 7
    out[k, OUT_SANTA_GOAL] = (st[S_SANTA_END] >> 3) & 1
    out[k, OUT_SANTA_FULL] = (st[S_SANTA_END] >> 4) & 1
    for j in range(N_SANTA_KINDS):
        out[k, OUT_SANTA_REINDEER + j] = st[S_SANTA_GOT + j]
    out[k, OUT_SANTA_MARKS] = st[S_SANTA_MARKS]
    out[k, OUT_SANTA_WRATH] = st[S_SANTA_WRATH]
    out[k, OUT_SANTA_LOST] = st[S_SANTA_LOST]
    out[k, OUT_SANTA_CANES] = st[S_SANTA_CANES_GIVEN]


# ------------------------------------------------------------------ Discovering the Kraken --
# The campaign's rules (kraken.on; docs/rules.md "Discovering the Kraken"), called from a few call sites guarded
# by R[R_KR_ON] (0 in the base game and the other campaigns). The Kraken lives in the Oracle's room; its water is
# every flooded room connected to that room through sides that are not printed walls.
@njit(cache=CACHE, _nrt=False)
def kr_start(board, st, rm):
    """A Kraken game begins: the Kraken's room is its water, the flood's first spread is due."""
    R, T, geo, arrows = board
    st[S_KR_ON] = 1
    st[S_KR_NEXT_FLOOD] = R[R_KR_FLOOD_EVERY]
    st[S_KR_SWIM_LEFT] = R[R_KR_SWIM_MAX]
    st[S_KR_FOE] = R[R_KR_FOE]
    st[S_KR_EXIT_SECTOR] = -1
    add_state(R, rm, st[S_ORACLE], np.int64(FLOODED), np.int64(RB_FLOODED))
    st[S_KR_WATER] = 1


@njit(cache=CACHE, _nrt=False)
def kr_water(board, st, rm, mark, q):
    """Mark (``mark[x]`` = 1) the Kraken's water: the flooded rooms connected to its room through open or
    collapsed sides (a printed wall holds water back). ``q[:k]`` lists them in breadth-first order; returns k."""
    R, T, geo, arrows = board
    for x in range(geo.shape[0]):
        mark[x] = 0
    src = st[S_ORACLE]
    mark[src] = 1
    q[0] = src
    head = 0
    tail = 1
    while head < tail:
        x = q[head]
        head += 1
        for d in range(4):
            y = geo[x, d]
            if y < 0 or mark[y] == 1 or rm[x, RM_WALL + d] == W_PRINTED:
                continue
            if (rm[y, RM_STATE] & FLOODED) == 0 or (rm[y, RM_STATE] & COLLAPSED):
                continue
            mark[y] = 1
            q[tail] = y
            tail += 1
    return tail


@njit(cache=CACHE, _nrt=False)
def kr_spread(board, st, rm, sc, opts, dice, pol):
    """"Every 5 turns, starting from each flooded space connected to the Kraken, flood one adjacent space": each
    room of the Kraken's water (as it stood before this spread, in breadth-first order from the Kraken) floods one
    neighbour that is not flooded, not collapsed and not behind a printed wall; a die picks it when there are
    several. Water that reaches the hero's room brings the Kraken: the room flooded by this spread, or a flooded
    room the spread connects to the Kraken's water ("If the water reaches you"). Returns the fight's result (-1
    dead), else 1."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    mark = sc[SC_GOAL]
    q = sc[SC_QUEUE]
    k = kr_water(board, st, rm, mark, q)
    pos = st[S_POS]
    before = mark[pos] if pos >= 0 else 1  # already in the Kraken's water (met there when you swam in)
    added = 0
    reached = 0
    for i in range(k):
        x = q[i]
        m = 0
        for d in range(4):
            y = geo[x, d]
            if y >= 0 and rm[x, RM_WALL + d] != W_PRINTED and (rm[y, RM_STATE] & (FLOODED | COLLAPSED)) == 0:
                m += 1
        if m == 0:
            continue
        pick = roll(rs, script, m) if m > 1 else 1
        for d in range(4):
            y = geo[x, d]
            if y >= 0 and rm[x, RM_WALL + d] != W_PRINTED and (rm[y, RM_STATE] & (FLOODED | COLLAPSED)) == 0:
                pick -= 1
                if pick == 0:
                    add_state(R, rm, y, np.int64(FLOODED), np.int64(RB_FLOODED))
                    added += 1
                    break
    st[S_KR_WATER] = kr_water(board, st, rm, mark, q)
    if before == 0 and mark[pos] == 1:  # your room flooded, or its water now joins the Kraken's
        reached = 1
    log(tr, st, TR_KR_FLOOD, st[S_TURN], added, st[S_KR_WATER], reached, 0)
    if reached == 1:
        return kr_fight(board, st, rm, opts, dice, pol, pos, np.int64(KRF_REACHED))
    return 1


@njit(cache=CACHE, _nrt=False)
def kr_fight(board, st, rm, opts, dice, pol, cell, why):
    """Face the Kraken (strength 6, the enemy ``kraken.foe``): the base game's fight, roll-offs until you beat it
    (it is driven back, never removed: "it is immortal"), flee (after a tie or a lost roll-off) or die. It is
    "not a monster" (trait ``trap``): no kill, no prize. Returns the fight's result (1, 0 or -1)."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    foe = R[R_KR_FOE]
    st[S_KR_FIGHTS] += 1
    log(tr, st, TR_KR_FIGHT, why, cell, st[S_KR_SWIMS], 0, 0)
    saved = rm[cell, RM_ICON + foe]
    add_icon(rm, cell, foe, np.int64(1))
    r = fight(board, st, rm, opts, dice, pol, cell, foe)
    add_icon(rm, cell, foe, saved - rm[cell, RM_ICON + foe])
    return r


@njit(cache=CACHE, _nrt=False)
def kr_swim(board, st, rm, sc, opts, dice, pol, c):
    """Before move ``c`` is carried out: a move that ends in a flooded room is a swim ("you cannot ... swim
    through flooded terrain using any movement value you choose ... limited to a maximum of 5 spaces. Swimming
    beyond 5 spaces means death"): one more swim than ``kraken.swim_max`` in a row drowns you; a swim into the
    Kraken's water brings the Kraken. A move ending on dry land ends the swim. Returns -1 when dead, else 0."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    to = opts[c, O_TO]
    if (rm[to, RM_STATE] & FLOODED) == 0:
        st[S_KR_SWIMS] = 0
        st[S_KR_SWIM_LEFT] = R[R_KR_SWIM_MAX]
        return 0
    st[S_KR_SWIMS] += 1
    st[S_KR_SWIM_LEFT] = max(R[R_KR_SWIM_MAX] - st[S_KR_SWIMS], 0)
    if st[S_KR_SWIMS] > R[R_KR_SWIM_MAX]:
        log(tr, st, TR_KR_DROWN, to, st[S_KR_SWIMS], 0, 0, 0)
        die(board, st, tr, CAUSE_DROWNED, to)
        return -1
    if kr_water(board, st, rm, sc[SC_GOAL], sc[SC_QUEUE]) > 0 and sc[SC_GOAL, to] == 1:
        last = opts.shape[0] - 1  # the fight's decisions write option rows: keep the move's row
        for j in range(N_OCOL):
            opts[last, j] = opts[c, j]
        r = kr_fight(board, st, rm, opts, dice, pol, to, np.int64(KRF_SWIM))
        for j in range(N_OCOL):
            opts[c, j] = opts[last, j]
        if r < 0:
            return -1
    return 0


@njit(cache=CACHE, _nrt=False)
def kr_mark_options(board, st, rm, sc, opts, n):
    """The policies' view of the water: a move into the Kraken's water shows the Kraken as the foe there (O_FOE,
    O_FOE_STR), so that the goal search and the built-in policies weigh it like any foe. O_KR_FRONT: turns until
    the flood front can first reach O_TO (0: in the Kraken's water; KR_FAR: never); O_KR_DRY: moves from O_TO to
    the nearest room that is not flooded (0: O_TO is dry; KR_FAR: none), i.e. the swims a swim there commits to."""
    R, T, geo, arrows = board
    mark = sc[SC_GOAL]
    q = sc[SC_QUEUE]
    k = kr_water(board, st, rm, mark, q)
    for i in range(n):
        to = opts[i, O_TO]
        if mark[to] == 1 and opts[i, O_FOE] < 0:
            opts[i, O_FOE] = R[R_KR_FOE]
            opts[i, O_FOE_STR] = foe_strength(T, st, R[R_KR_FOE])
    # the front: spreads needed to reach each room (breadth-first from the water, as kr_spread floods: through
    # sides that are not printed walls, into rooms neither collapsed nor flooded yet; mark = spreads + 1)
    head = 0
    tail = k
    while head < tail:
        x = q[head]
        head += 1
        for d in range(4):
            y = geo[x, d]
            if y >= 0 and mark[y] == 0 and rm[x, RM_WALL + d] != W_PRINTED and (rm[y, RM_STATE] & COLLAPSED) == 0:
                mark[y] = mark[x] + 1
                q[tail] = y
                tail += 1
    soon = max(st[S_KR_NEXT_FLOOD] - st[S_TURN], 0)
    for i in range(n):
        m = mark[opts[i, O_TO]]
        opts[i, O_KR_FRONT] = KR_FAR if m == 0 else (0 if m == 1 else soon + (m - 2) * R[R_KR_FLOOD_EVERY])
    # dry land: moves from each flooded room to the nearest room that is not (breadth-first from every dry room,
    # through the sides a move can take; mark = moves + 1)
    tail = 0
    for x in range(geo.shape[0]):
        mark[x] = 0
        if (rm[x, RM_STATE] & (FLOODED | COLLAPSED)) == 0:
            mark[x] = 1
            q[tail] = x
            tail += 1
    head = 0
    while head < tail:
        x = q[head]
        head += 1
        for d in range(4):
            y = geo[x, d]
            if y >= 0 and mark[y] == 0 and passable(R, st, rm, y, (d + 2) % 4, x):  # (collapsed: not passable)
                mark[y] = mark[x] + 1
                q[tail] = y
                tail += 1
    for i in range(n):
        m = mark[opts[i, O_TO]]
        opts[i, O_KR_DRY] = KR_FAR if m == 0 else m - 1


@njit(cache=CACHE, _nrt=False)
def kr_exit(board, st, rm, cell):
    """The Kraken's exit: once every requirement is done, an unused arrow in ``cell`` on the side opposite the
    area of the last requirement ("exited from the side opposite to the area where the last requirement was
    completed"); -1 otherwise."""
    R, T, geo, arrows = board
    if st[S_KR_EXIT_SECTOR] < 0:
        return -1
    for a in range(arrows.shape[0]):
        if arrows[a, 0] == cell and st[S_ARROW0 + a] == 0 and arrows[a, 2] == st[S_KR_EXIT_SECTOR]:
            return a
    return -1


@njit(cache=CACHE, _nrt=False)
def kr_area_done(board, st, rm, opts, dice, pol):
    """The requirement of the area being played is met: one continuous game, so no Oracle and no exit. After the
    last one, head for the opposite side; otherwise the area is complete where you stand (its "round": turns,
    order, returning foes) and you choose the next area (D_KR_AREA), whose requirement counts from now on, with
    the next round's monster bonus and chest value."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    while st[S_PHASE] == 1 and st[S_DEAD] == 0:
        s = st[S_SECTOR]
        st[S_KR_REQS] += 1
        made_progress(st)
        if st[S_ROUND] + 1 >= R[R_ROUNDS]:
            st[S_PHASE] = 2
            st[S_KR_EXIT_SECTOR] = R[R_KR_OPPOSITE + s]
            log(tr, st, TR_KR_AREA, s, st[S_KR_REQS], -1, st[S_KR_EXIT_SECTOR], 0)
            return
        k = st[S_ROUND]
        st[S_TURNS_R + k] = st[S_ROUND_TURN]
        st[S_ORDER] = st[S_ORDER] * 10 + s + 1
        st[S_DONE_MASK] |= 1 << s
        st[S_ROUND] = k + 1
        end_of_round(R, st, rm, tr)
        cols = R[R_COLS]
        pos = st[S_POS]
        n = 0
        for t in range(4):
            if (st[S_DONE_MASK] >> t) & 1:
                continue
            best = BIG
            for x in range(geo.shape[0]):
                if geo[x, 4] == t:
                    dd = abs(x // cols - pos // cols) + abs(x % cols - pos % cols)
                    best = min(best, dd)
            opts[n, 0] = t
            opts[n, 1] = t
            opts[n, 2] = -1
            opts[n, 3] = best
            n += 1
        c = decide(D_KR_AREA, n, st, opts, dice, pol)
        nxt = opts[c, 1]
        log(tr, st, TR_KR_AREA, s, st[S_KR_REQS], nxt, -1, 0)
        k += 1
        st[S_SECTOR] = nxt
        st[S_PHASE] = 0
        st[S_REQ_DONE] = 0
        st[S_REQ_NEED] = R[R_NEED_A + nxt]
        st[S_KILLS_ROUND] = 0
        st[S_BONUS] = T[T_BONUS, k]
        st[S_STR_ROW] = 4 * k + nxt
        st[S_CHESTV] = T[T_CHESTV, k]
        st[S_ROUND_TURN] = 0
        st[S_ELY_USED] = 0
        st[S_JUMP_FROM] = -1
        st[S_JUMP_TO] = -1
        st[S_JUMPS_IDLE] = 0
        st[S_ROUND_NEW] = 0
        for x in range(geo.shape[0]):
            rm[x, RM_FLAG] &= ~(F_FACED | F_LEVER)
        log(tr, st, TR_ROUND, k + 1, nxt, pos, st[S_BONUS], st[S_CHESTV])
        kept = min(st[CORNU], R[R_NEED_D]) if nxt == 3 and R[R_D_NEW_CORNU] == 0 else 0
        if kept > 0:
            st[CORNU] -= kept
            st[S_RESERVED] += kept
            progress(st, tr, kept)
        check_awake(st, tr)


@njit(cache=CACHE, _nrt=False)
def kr_market(board, st, rm, opts, dice, pol):
    """"Can I still access the Market phase? Absolutely, but only once, by reaching an exit ... if you've completed
    1 requirement, x1; if you've completed 2, x2": standing on an arrow's room with a requirement done and
    something to spend (a chest or a cornucopia), the player may visit the market now (D_KR_MARKET) or keep the
    one visit for later, at a better rate."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    if R[R_KR_MARKET] == 0 or st[S_KR_MARKET] > 0 or st[S_KR_REQS] == 0 or (st[CHEST] == 0 and st[CORNU] == 0):
        return
    pos = st[S_POS]
    on_exit = False
    for a in range(arrows.shape[0]):
        if arrows[a, 0] == pos:
            on_exit = True
    if not on_exit:
        return
    st[S_KR_RATE] = st[S_KR_REQS]
    opts[0, 0] = 0
    opts[1, 0] = 1
    if decide(D_KR_MARKET, 2, st, opts, dice, pol) == 1:
        st[S_KR_MARKET] = st[S_KR_RATE]
        log(tr, st, TR_KR_MARKET, st[S_KR_RATE], st[CHEST], 0, 0, 0)
        market(R, st, opts, dice, pol, st[S_KR_RATE])


@njit(cache=CACHE, _nrt=False)
def kr_end_turn(board, st, rm, sc, opts, dice, pol, done):
    """After each turn of a Kraken game (``done`` as ``take_turn`` returns it): the flood front, the requirement
    met, the market, the hourglass. Returns ``done``, or -1 when the hourglass has run out."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    if done != 0 or st[S_DEAD] == 1:
        return done
    while st[S_TURN] >= st[S_KR_NEXT_FLOOD]:
        st[S_KR_NEXT_FLOOD] += R[R_KR_FLOOD_EVERY]
        if kr_spread(board, st, rm, sc, opts, dice, pol) < 0 or st[S_DEAD] == 1:
            return 0
    if st[S_PHASE] == 1:
        kr_area_done(board, st, rm, opts, dice, pol)
    kr_market(board, st, rm, opts, dice, pol)
    if st[S_TURN] >= R[R_KR_HOURGLASS]:
        log(tr, st, TR_KR_HOURGLASS, st[S_TURN], 0, 0, 0, 0)
        die(board, st, tr, CAUSE_HOURGLASS, st[S_POS])
        st[S_COINS_LEFT] = 0
        return -1
    return 0


@njit(cache=CACHE, _nrt=False)
def kr_end(st):
    """How a Kraken game ended (KRE_*; the kr_end column)."""
    if st[S_WIN] == 1:
        return KRE_WON
    c = st[S_CAUSE]
    if c == CAUSE_DROWNED:
        return KRE_DROWNED
    if c == CAUSE_FOE + st[S_KR_FOE]:
        return KRE_KRAKEN
    if c == CAUSE_HOURGLASS:
        return KRE_HOURGLASS
    return KRE_OTHER


# ------------------------------------------------------------------------ market, sheet --
@njit(cache=CACHE, _nrt=False)
def market(R, st, opts, dice, pol, value):
    """Spend chests (one chest = ``value`` units of one resource), swap resources, redeem cornucopias."""
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    st[S_MARKET_VALUE] = value
    log(tr, st, TR_MARKET_OPEN, value, st[CHEST], 0, 0, 0)
    for _ in range(R[R_MAX_MARKET_OPS]):
        n = 0
        opts[n, 0] = M_DONE
        opts[n, 1] = -1
        opts[n, 2] = -1
        opts[n, 3] = 0
        n += 1
        for r in range(N_TRAITS):
            if st[r] < st[S_CAP + r]:
                if st[CHEST] > 0:
                    opts[n, 0] = M_BUY
                    opts[n, 1] = r
                    opts[n, 2] = -1
                    opts[n, 3] = value
                    n += 1
                if st[CORNU] > 0:
                    opts[n, 0] = M_REDEEM
                    opts[n, 1] = r
                    opts[n, 2] = -1
                    opts[n, 3] = 1
                    n += 1
        for a in range(N_TRAITS):
            if st[a] <= (R[R_KEEP_HEARTS] if a == HEARTS else 0) or st[S_TURN_MARKET] > R[R_TURN_MARKET_SWAPS]:
                continue  # (the end-of-turn market of a campaign offers no swaps unless the ruling says so)
            for b in range(N_TRAITS):
                if b != a and st[b] < st[S_CAP + b]:
                    opts[n, 0] = M_SWAP
                    opts[n, 1] = a
                    opts[n, 2] = b
                    opts[n, 3] = R[R_EXCHANGE]
                    n += 1
        c = decide(D_MARKET, n, st, opts, dice, pol)
        op = opts[c, 0]
        if op == M_DONE:
            break
        a = opts[c, 1]
        log(tr, st, TR_MARKET, op, a, opts[c, 2], value, 0)
        if op == M_BUY:
            st[CHEST] -= 1
            gain(st, tr, a, value)
        elif op == M_REDEEM:
            st[CORNU] -= 1
            gain(st, tr, a, R[R_REDEEM])
        else:
            st[a] -= 1
            gain(st, tr, opts[c, 2], R[R_EXCHANGE])


@njit(cache=CACHE, _nrt=False)
def create_character(board, st, opts, dice, pol):
    """Point (1): a hero's printed sheet, or 12 trait marks placed freely within the caps."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    for t in range(N_TRACKS):
        st[t] = 0
        st[S_CAP + t] = T[T_CAP, t]
    st[S_RESERVED] = 0
    if st[S_HERO] != H_FREE:
        for t in range(N_TRAITS):
            st[t] = T[T_START, t]
    else:
        marks = R[R_TRAIT_MARKS]
        for m in range(marks):
            left = marks - m
            n = 0
            for t in range(N_TRAITS):
                if st[t] >= st[S_CAP + t]:
                    continue
                if t != HEARTS and left <= R[R_MIN_HEARTS] - st[HEARTS]:
                    continue
                opts[n, 0] = t
                opts[n, 1] = st[t]
                opts[n, 2] = st[S_CAP + t]
                n += 1
            if n == 0:
                break
            c = decide(D_TRAIT, n, st, opts, dice, pol)
            st[opts[c, 0]] += 1
    log(tr, st, TR_CREATE, st[HEARTS], st[SHIELD], st[CLOVER], st[WEAPON], st[SHOVEL])


@njit(cache=CACHE, _nrt=False)
def round_options(board, st, rm, opts):
    """Rounds still to play and their unused entry arrows. Under ``reserve_entries = "rounds"`` an entry
    that would leave this round without an exit, or a later round without an entry and an exit, is not
    offered (unless the game is already past saving)."""
    R, T, geo, arrows = board
    n = 0
    guard = R[R_RESERVE_ROUNDS] == 1 and arrows_feasible(board, st, rm, np.int64(0), np.int64(0))
    for a in range(arrows.shape[0]):
        s = arrows[a, 2]
        if st[S_ARROW0 + a] == 1 or (st[S_DONE_MASK] >> s) & 1 or (rm[arrows[a, 0], RM_STATE] & COLLAPSED):
            continue
        if guard:
            st[S_ARROW0 + a] = 1
            ok = arrows_feasible(board, st, rm, s, np.int64(1))
            st[S_ARROW0 + a] = 0
            if not ok:
                continue
        opts[n, 0] = a
        opts[n, 1] = s
        opts[n, 2] = arrows[a, 0]
        opts[n, 3] = geo[arrows[a, 0], 5]
        n += 1
    return n


@njit(cache=CACHE, inline="always", _nrt=False)
def play_round(board, st, rm, sc, opts, dice, pol, vis):
    """One adventure: choose a round and its entry, walk until an exit (1) or death (0)."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    if st[S_UNWIN_TURN] == 0 and not arrows_feasible(board, st, rm, np.int64(0), np.int64(0)):
        unwinnable(st, tr, np.int64(UW_ARROWS))
    n = round_options(board, st, rm, opts)
    if n == 0:
        die(board, st, tr, CAUSE_STUCK, st[S_POS])
        if st[S_COINS_LEFT] == 0:
            unwinnable(st, tr, np.int64(UW_ARROWS))
        return 0
    c = decide(D_ROUND, n, st, opts, dice, pol)
    done = begin_round(board, st, rm, opts, dice, pol, vis, opts[c, 0])
    while done == 0 and st[S_DEAD] == 0:
        done = take_turn(board, st, rm, sc, opts, dice, pol, vis)
    return max(done, 0)


@njit(cache=CACHE, _nrt=False)
def begin_round(board, st, rm, opts, dice, pol, vis, a):
    """Start the round of arrow ``a``'s sector there: the round's counters, then the first room (returns as
    ``arrive``)."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    s = arrows[a, 2]
    k = st[S_ROUND]
    st[S_ARROW0 + a] = 1
    st[S_ENTRY_ARROW] = a
    st[S_SECTOR] = s
    st[S_PHASE] = 0
    st[S_REQ_DONE] = 0
    st[S_REQ_NEED] = R[R_NEED_A + s]
    st[S_KILLS_ROUND] = 0
    st[S_BONUS] = T[T_BONUS, k]
    st[S_STR_ROW] = 4 * k + s
    st[S_CHESTV] = T[T_CHESTV, k]
    st[S_ROUND_TURN] = 0
    st[S_ELY_USED] = 0
    st[S_JUMP_FROM] = -1
    st[S_JUMP_TO] = -1
    st[S_JUMPS_IDLE] = 0
    st[S_PROGRESS_TURN] = st[S_TURN]
    st[S_ROUND_NEW] = 0
    st[S_POTION_STEPS] = 0
    for x in range(geo.shape[0]):
        rm[x, RM_FLAG] &= ~(F_FACED | F_LEVER)
    log(tr, st, TR_ROUND, k + 1, s, arrows[a, 0], st[S_BONUS], st[S_CHESTV])
    kept = min(st[CORNU], R[R_NEED_D]) if s == 3 and R[R_D_NEW_CORNU] == 0 else 0
    if kept > 0:  # rulings.d_new_cornucopia = false: kept cornucopias set aside, as many as the Waterways need
        st[CORNU] -= kept
        st[S_RESERVED] += kept
        progress(st, tr, kept)
    check_awake(st, tr)
    cell = arrows[a, 0]
    table = s if (rm[cell, RM_STATE] & EXPLORED) == 0 else -1
    return arrive(board, st, rm, opts, dice, pol, vis, cell, arrows[a, 1], np.int64(-1), table, np.bool_(False))


@njit(cache=CACHE, _nrt=False)
def take_turn(board, st, rm, sc, opts, dice, pol, vis):
    """One turn of a round under way: Elydion's market, then one move. Returns 1 when the round is completed
    (an exit), 0 when it goes on, -1 when it ends without an exit (turn cap, stuck)."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    k = st[S_ROUND]
    if st[S_TURN] >= R[R_MAX_TURNS]:
        die(board, st, tr, CAUSE_TIMEOUT, st[S_POS])
        st[S_COINS_LEFT] = 0
        return -1
    if R[R_MARKET_EVERY_TURN] == 1:  # campaigns: the market at the end of every turn
        turn_market(board, st, opts, dice, pol)
    if st[S_HERO] == H_ELYDION and st[S_ELY_USED] == 0:
        opts[0, 0] = 0
        opts[1, 0] = 1
        if decide(D_ELYDION, 2, st, opts, dice, pol) == 1:
            st[S_ELY_USED] = 1
            market(R, st, opts, dice, pol, T[T_CHESTV, min(k + 1, R[R_ROUNDS] - 1)])
    if R[R_SL_ON] == 0 and st[S_UNWIN_TURN] == 0 and not arrows_feasible(board, st, rm, st[S_SECTOR], np.int64(1)):
        unwinnable(st, tr, np.int64(UW_ARROWS))
    n = move_options(board, st, rm, sc, opts)
    if n == 0:
        die(board, st, tr, CAUSE_STUCK, st[S_POS])
        if st[S_COINS_LEFT] == 0 and R[R_SL_ON] == 0:  # (the Slaughter has nothing to win)
            unwinnable(st, tr, np.int64(UW_SEALED))
        return -1
    c = decide(D_MOVE, n, st, opts, dice, pol)
    if R[R_KR_ON] == 1:  # Discovering the Kraken: the flood, the next area, the market, the hourglass
        return kr_end_turn(board, st, rm, sc, opts, dice, pol, turn_moves(board, st, rm, sc, opts, dice, pol, vis, c))
    return turn_moves(board, st, rm, sc, opts, dice, pol, vis, c)


@njit(cache=CACHE, _nrt=False)
def end_of_round(R, st, rm, tr):
    """Returning foes (trait "returns", the troll) beaten this round come back in their rooms."""
    for x in range(rm.shape[0]):
        if rm[x, RM_FLAG] & F_RETURNER_DOWN:
            rm[x, RM_FLAG] &= ~F_RETURNER_DOWN
            if rm[x, RM_RETURNS] > 0 and (rm[x, RM_STATE] & COLLAPSED) == 0:
                rm[x, RM_RETURNS] -= 1
                add_icon(rm, x, rm[x, RM_RETURNER], np.int64(1))
                log(tr, st, TR_TROLL_BACK, x, rm[x, RM_RETURNS], rm[x, RM_RETURNER], 0, 0)


@njit(cache=CACHE, _nrt=False)
def final_score(T, st):
    s = st[S_KILLS_TOTAL] * T[T_SCORE, 7]
    for t in range(N_TRACKS):
        s += st[t] * T[T_SCORE, t]
    return s


@njit(cache=CACHE, _nrt=False)
def new_game_after_coin(arrows, rm0, st, rm):
    """Ruling ``insert_coin = "new_game"``: the continue starts the whole game again on a fresh map
    (every round and arrow open again, kills and round times cleared); only the turn counter and the
    first death's record go on."""
    for x in range(rm0.shape[0]):
        for j in range(rm0.shape[1]):
            rm[x, j] = rm0[x, j]
    for a in range(arrows.shape[0]):
        st[S_ARROW0 + a] = 0
    st[S_ROUND] = 0
    st[S_DONE_MASK] = 0
    st[S_ORDER] = 0
    st[S_KILLS_TOTAL] = 0
    for k in range(4):
        st[S_TURNS_R + k] = 0
    st[S_POS] = -1


@njit(cache=CACHE, _nrt=False)
def play_game(board, rm0, st, rm, sc, opts, dice, pol, vis):
    """A whole game on a fresh sheet: character, four rounds with markets, continues, score."""
    R, T, geo, arrows = board
    rs, ps, script, tr = dice
    pid, params, fn, sctl, srs = pol
    for i in range(st.shape[0]):
        st[i] = 0
    for x in range(rm0.shape[0]):
        for j in range(rm0.shape[1]):
            rm[x, j] = rm0[x, j]
    st[S_HERO] = R[R_HERO]
    st[S_COINS_LEFT] = R[R_COINS]
    st[S_N_ROOMS] = geo.shape[0]
    st[S_POS] = -1
    st[S_ENTRY_ARROW] = -1
    for x in range(geo.shape[0]):
        if geo[x, 4] == 4:
            st[S_ORACLE] = x
    if R[R_KR_ON] == 1:
        kr_start(board, st, rm)
    create_character(board, st, opts, dice, pol)
    if R[R_SL_ON] == 1:  # The Slaughter of Monsters: one endless game, no rounds
        slaughter_game(board, st, rm, sc, opts, dice, pol, vis)
        return
    if R[R_SANTA] == 1:  # Santa Crash'n Foury: one continuous game under the hourglass
        santa_play(board, st, rm, sc, opts, dice, pol, vis)  # (its own end row, TR_SANTA_END)
        return
    while st[S_ROUND] < R[R_ROUNDS]:
        done = play_round(board, st, rm, sc, opts, dice, pol, vis)
        if done == 1:
            k = st[S_ROUND]
            st[S_TURNS_R + k] = st[S_ROUND_TURN]
            st[S_ORDER] = st[S_ORDER] * 10 + st[S_SECTOR] + 1
            st[S_DONE_MASK] |= 1 << st[S_SECTOR]
            st[S_ROUND] = k + 1
            st[S_ENTRY_ARROW] = -1
            end_of_round(R, st, rm, tr)
            if st[S_ROUND] < R[R_ROUNDS]:
                market(R, st, opts, dice, pol, T[T_CHESTV, k])
            continue
        if st[S_COINS_LEFT] > 0:
            st[S_COINS_LEFT] -= 1
            st[S_COINS_USED] += 1
            st[S_DEAD] = 0
            st[S_CAUSE] = 0
            if st[S_ENTRY_ARROW] >= 0:  # the round starts again: its entry arrow is usable again
                st[S_ARROW0 + st[S_ENTRY_ARROW]] = 0
                st[S_ENTRY_ARROW] = -1
            if R[R_COIN_NEW_GAME] == 1:
                new_game_after_coin(arrows, rm0, st, rm)
            log(tr, st, TR_COIN, st[S_ROUND] + 1, R[R_COIN_NEW_GAME], 0, 0, 0)
            create_character(board, st, opts, dice, pol)
            continue
        break
    st[S_WIN] = 1 if st[S_ROUND] >= R[R_ROUNDS] else 0
    log(tr, st, TR_END, st[S_WIN], final_score(T, st), st[S_TURN], st[S_ROUND], 0)


# ---------------------------------------------------------------------- the 2-player mode --
# Two sheets on one map (docs/rules.md "2-player mode"): each player has a state vector and a board of their
# own (the same map and rules, their own hero's sheet); the rooms ``rm`` are shared. Turns alternate, each
# turn one ``take_turn`` (or the entry, or a duel) of the player to move, played by the same policy.
@njit(cache=CACHE, _nrt=False)
def p2_tables(board, R2, T2):
    """Fill the second player's rules and tables: the run's, with their hero's id and sheet (``R_P2_*``). The
    caller (NRT on) builds their ``Board(R2, T2, geo, arrows)``: a function compiled without NRT must not return
    arrays."""
    R, T, geo, arrows = board
    for i in range(R.shape[0]):
        R2[i] = R[i]
    for i in range(T.shape[0]):
        for j in range(T.shape[1]):
            T2[i, j] = T[i, j]
    R2[R_HERO] = R[R_P2_HERO]
    for t in range(N_TRAITS):
        T2[T_CAP, t] = R[R_P2_CAP + t]
        T2[T_START, t] = R[R_P2_START + t]


@njit(cache=CACHE, inline="always", _nrt=False)
def p2_pass(frm, to):
    """Hand the trace over from one player's state to the other's (one trace, its row count in each state)."""
    to[S_TRACE_N] = frm[S_TRACE_N]


@njit(cache=CACHE, _nrt=False)
def p2_init(board, st, seat):
    """A fresh sheet for the player in ``seat`` (as ``play_game`` starts one)."""
    R, T, geo, arrows = board
    for i in range(st.shape[0]):
        st[i] = 0
    st[S_HERO] = R[R_HERO]
    st[S_COINS_LEFT] = R[R_COINS]
    st[S_N_ROOMS] = geo.shape[0]
    st[S_POS] = -1
    st[S_ENTRY_ARROW] = -1
    for x in range(geo.shape[0]):
        if geo[x, 4] == 4:
            st[S_ORACLE] = x
    st[S_P2_ON] = 1
    st[S_P2_SEAT] = seat
    st[S_P2_ENTRY] = -1
    st[S_P2_OPP_POS] = -1
    st[S_P2_OPP_DIST] = -1


@njit(cache=CACHE, _nrt=False)
def p2_reach(board, st, rm, sc, frm, to):
    """Moves of a free walk from ``frm`` to ``to`` over explored rooms ("move freely along their line"), passing
    no room with a foe ("events along the way must be faced": such a way is walked by ordinary moves); -1 none."""
    R, T, geo, arrows = board
    if frm < 0 or to < 0 or first_foe(R, rm, to) >= 0:
        return -1
    dist = sc[SC_DIST]
    q = sc[SC_QUEUE]
    for x in range(geo.shape[0]):
        dist[x] = -1
    dist[frm] = 0
    q[0] = frm
    head = 0
    tail = 1
    while head < tail:
        x = q[head]
        head += 1
        if x == to:
            return dist[x]
        if x != frm and first_foe(R, rm, x) >= 0:
            continue
        for d in range(4):
            y = geo[x, d]
            if y < 0 or dist[y] >= 0 or (rm[y, RM_STATE] & EXPLORED) == 0 or not passable(R, st, rm, x, d, y):
                continue
            dist[y] = dist[x] + 1
            q[tail] = y
            tail += 1
    return -1


@njit(cache=CACHE, _nrt=False)
def p2_see(board, st, opp, rm, sc):
    """What the player sees of the opponent (state slots S_P2_OPP_*), and whether a duel is within reach."""
    R, T, geo, arrows = board
    st[S_P2_OPP_POS] = opp[S_POS]
    for t in range(N_TRACKS):
        st[S_P2_OPP_TRACK + t] = opp[t]
    st[S_P2_OPP_TURN] = opp[S_TURN]
    st[S_P2_OPP_PHASE] = opp[S_PHASE]
    st[S_P2_OPP_SECTOR] = opp[S_SECTOR] if opp[S_P2_ENTRY] >= 0 else -1
    st[S_P2_OPP_HERO] = opp[S_HERO]
    st[S_P2_OPP_DONE] = opp[S_P2_DONE]
    st[S_P2_OPP_SEEN] = 1
    st[S_P2_OPP_DIST] = -1
    if (R[R_P2_FLAGS] & P2F_DUELS) and opp[S_P2_DONE] == 0 and st[S_POS] >= 0 and opp[S_POS] >= 0:
        st[S_P2_OPP_DIST] = p2_reach(board, st, rm, sc, st[S_POS], opp[S_POS])


@njit(cache=CACHE, _nrt=False)
def p2_open_exit(R, st, tr):
    """With the treasures in hand the player heads for an exit (phase 2: exits open, ``legal_exit``)."""
    if st[S_PHASE] != 2 and st[CHEST] >= R[R_P2_TREASURES]:
        st[S_PHASE] = 2
        made_progress(st)


@njit(cache=CACHE, _nrt=False)
def p2_weapon(st, opts, dice, pol, die_face):
    """A duellist's choice to add their weapon to their die (decision D_WEAPON, S_CTX_FOE = -1: the other player)."""
    st[S_CTX_FOE] = -1
    st[S_CTX_STR] = 0
    st[S_CTX_MY] = die_face
    st[S_CTX_EN] = 0
    st[S_CTX_ADD] = 0
    if st[WEAPON] > 0:
        opts[0, 0] = 0
        opts[1, 0] = 1
        if decide(D_WEAPON, 2, st, opts, dice, pol) == 1:
            return st[WEAPON]
    return 0


@njit(cache=CACHE, _nrt=False)
def p2_duel(ba, sa, bb, sb, rm, opts, dice, pol, walk):
    """Player ``sa`` walks ``walk`` explored rooms to ``sb`` and faces them: one roll-off, each player's d6 plus
    the weapon if they add it (it wears by 1); the lower loses the difference in hearts (a shield blocks as
    against a monster), the higher takes ``two_player.duel_loot`` chests from the lower; a tie: nothing. The
    walk and the duel are the attacker's turn (one hourglass mark)."""
    rs, ps, script, tr = dice
    cell = sb[S_POS]
    sa[S_POS] = cell
    sa[S_TURN] += 1
    sa[S_ROUND_TURN] += 1
    sa[S_P2_DUELS] += 1
    log(tr, sa, TR_P2_DUEL, sa[S_P2_SEAT], cell, walk, 0, 0)
    a_die = d6(rs, script)
    a_add = p2_weapon(sa, opts, dice, pol, a_die)
    b_die = d6(rs, script)
    p2_pass(sa, sb)
    b_add = p2_weapon(sb, opts, dice, pol, b_die)
    p2_pass(sb, sa)
    log(tr, sa, TR_P2_DUEL_ROLL, a_die, a_add, b_die, b_add, 0)
    if a_add > 0:
        sa[WEAPON] -= min(ba.R[R_WEAPON_WEAR], sa[WEAPON])
    if b_add > 0:
        sb[WEAPON] -= min(bb.R[R_WEAPON_WEAR], sb[WEAPON])
    diff = (a_die + a_add) - (b_die + b_add)
    if diff == 0:
        log(tr, sa, TR_P2_DUEL_END, 0, 0, 0, 0, 0)
        return
    if diff > 0:
        p2_duel_hit(bb, sb, sa, rm, opts, dice, pol, diff, cell)
    else:
        p2_pass(sa, sb)
        p2_duel_hit(ba, sa, sb, rm, opts, dice, pol, -diff, cell)
        p2_pass(sa, sb)
        p2_pass(sb, sa)


@njit(cache=CACHE, _nrt=False)
def p2_duel_hit(bl, lo, win, rm, opts, dice, pol, dmg, cell):
    """The loser ``lo`` of a duel takes ``dmg`` (a shield may block), then the winner takes the loot. Traced on
    ``win``'s row count (the caller hands the trace over)."""
    R = bl.R
    rs, ps, script, tr = dice
    p2_pass(win, lo)
    shield = 0
    lo[S_CTX_DMG] = dmg
    if lo[SHIELD] > 0:
        opts[0, 0] = 0
        opts[1, 0] = 1
        if decide(D_SHIELD, 2, lo, opts, dice, pol) == 1:
            lo[SHIELD] -= 1
            shield = 1
            dmg -= 1 if R[R_SHIELD_ONE] == 1 else dmg
    lo[HEARTS] = max(lo[HEARTS] - dmg, 0)
    take = min(R[R_P2_LOOT], lo[CHEST])
    lo[CHEST] -= take
    log(tr, lo, TR_P2_DUEL_END, win[S_P2_SEAT], dmg, lo[HEARTS], take, shield)
    if lo[HEARTS] == 0:
        die(bl, lo, tr, CAUSE_DUEL, cell)
        lo[S_P2_DONE] = 2
    p2_pass(lo, win)
    gain(win, tr, CHEST, take)
    win[S_P2_LOOTED] += take
    win[S_P2_DUELS_WON] += 1
    p2_pass(win, lo)


@njit(cache=CACHE, _nrt=False)
def p2_turn(b, st, ob, opp, rm, sc, opts, dice, pol, vis):
    """One turn of the player ``st``: the entry (their first turn), a duel, or an ordinary turn."""
    R, T, geo, arrows = b
    rs, ps, script, tr = dice
    p2_pass(opp, st)
    p2_see(b, st, opp, rm, sc)
    log(tr, st, TR_P2_TURN, st[S_P2_SEAT], st[S_HERO], st[S_TURN] + 1, st[S_POS], st[CHEST])
    p2_open_exit(R, st, tr)
    done = 0
    if st[S_POS] < 0:
        done = begin_round(b, st, rm, opts, dice, pol, vis, st[S_P2_ENTRY])
    else:
        duel = 0
        if st[S_P2_OPP_DIST] >= 0:
            opts[0, 0] = 0
            opts[1, 0] = 1
            duel = decide(D_DUEL, 2, st, opts, dice, pol)
        if duel == 1:
            p2_duel(b, st, ob, opp, rm, opts, dice, pol, st[S_P2_OPP_DIST])
        else:
            done = take_turn(b, st, rm, sc, opts, dice, pol, vis)
    p2_open_exit(R, st, tr)
    if done == 1:
        st[S_P2_DONE] = 1
        st[S_ROUND] = 1  # the adventure's one round, completed (rounds_completed)
    elif st[S_DEAD] == 1:
        st[S_P2_DONE] = 2
    p2_pass(st, opp)


@njit(cache=CACHE, _nrt=False)
def p2_side(b, st, opp, rm, opts, dice, pol, taken):
    """The player chooses the entry arrow they start from (D_ROUND), on a side (sector) other than ``taken``."""
    R, T, geo, arrows = b
    rs, ps, script, tr = dice
    p2_pass(opp, st)
    n0 = round_options(b, st, rm, opts)
    n = 0
    for i in range(n0):
        if opts[i, 1] != taken:
            for j in range(4):
                opts[n, j] = opts[i, j]
            n += 1
    a = opts[decide(D_ROUND, n, st, opts, dice, pol), 0] if n > 0 else -1
    for x in range(arrows.shape[0]):  # no entry offered (the map leaves none): any unused arrow of another side
        if a < 0 and st[S_ARROW0 + x] == 0 and arrows[x, 2] != taken:
            a = x
    if a < 0:
        a = 0
    st[S_P2_ENTRY] = a
    opp[S_ARROW0 + a] = 1  # one map: an arrow one player entered by is closed to both
    log(tr, st, TR_P2_SIDE, st[S_P2_SEAT], a, arrows[a, 2], arrows[a, 0], 0)
    p2_pass(st, opp)
    return arrows[a, 2]


@njit(cache=CACHE, _nrt=False)
def p2_play(b1, s1, b2, s2, rm0, rm, sc, opts, dice, pol, vis):
    """A whole 2-player game, ``s1`` in seat 1 (chooses a side and moves first). Returns the winning seat (0 a
    draw) and how it ended (P2E_*)."""
    R, T, geo, arrows = b1
    rs, ps, script, tr = dice
    p2_init(b1, s1, np.int64(1))
    p2_init(b2, s2, np.int64(2))
    for x in range(rm0.shape[0]):
        for j in range(rm0.shape[1]):
            rm[x, j] = rm0[x, j]
    create_character(b1, s1, opts, dice, pol)
    p2_pass(s1, s2)
    create_character(b2, s2, opts, dice, pol)
    side = p2_side(b1, s1, s2, rm, opts, dice, pol, np.int64(-1))
    p2_side(b2, s2, s1, rm, opts, dice, pol, side)
    finish = (R[R_P2_FLAGS] & P2F_FINISH_ROUND) != 0
    while True:
        if s1[S_TURN] >= R[R_MAX_TURNS] or s2[S_TURN] >= R[R_MAX_TURNS]:
            break
        p2_turn(b1, s1, b2, s2, rm, sc, opts, dice, pol, vis)
        if (s1[S_P2_DONE] != 0 or s2[S_P2_DONE] != 0) and not finish:
            break
        if s2[S_P2_DONE] == 0:
            p2_turn(b2, s2, b1, s1, rm, sc, opts, dice, pol, vis)
        if s1[S_P2_DONE] != 0 or s2[S_P2_DONE] != 0:
            break
    e1 = s1[S_P2_DONE] == 1
    e2 = s2[S_P2_DONE] == 1
    winner = 0
    how = P2E_CAP
    if e1 and e2:
        how = P2E_BOTH_EXIT
        winner = 1 if s1[S_TURN] < s2[S_TURN] else (2 if s2[S_TURN] < s1[S_TURN] else 0)
    elif e1 or e2:
        how = P2E_EXIT
        winner = 1 if e1 else 2
    elif s1[S_P2_DONE] == 2 and s2[S_P2_DONE] == 2:
        how = P2E_BOTH_DEAD
    elif s1[S_P2_DONE] == 2 or s2[S_P2_DONE] == 2:
        how = P2E_SURVIVED
        winner = 2 if s1[S_P2_DONE] == 2 else 1
    elif R[R_P2_FLAGS] & P2F_CAP_TREASURES:
        winner = 1 if s1[CHEST] > s2[CHEST] else (2 if s2[CHEST] > s1[CHEST] else 0)
    s1[S_WIN] = 1 if winner == 1 else 0
    s2[S_WIN] = 1 if winner == 2 else 0
    p2_pass(s2, s1)
    log(tr, s1, TR_P2_END, winner, how, s1[S_TURN], s2[S_TURN], 0)
    p2_pass(s1, s2)
    return winner, how


@njit(cache=CACHE, inline="always", _nrt=False)
def p2_game(ba, bb, rm0, sa, sb, rm, sc, opts, dice, pol, vis, first):
    """A 2-player game of the run's hero (``sa``, board ``ba``) against the opponent (``sb``): ``first`` = 1 the
    hero is in seat 1, 2 in seat 2. Returns (winning seat, how it ended)."""
    if first == 1:
        return p2_play(ba, sa, bb, sb, rm0, rm, sc, opts, dice, pol, vis)
    return p2_play(bb, sb, ba, sa, rm0, rm, sc, opts, dice, pol, vis)


@njit(cache=CACHE, _nrt=False)
def p2_run(ba, bb, rm0, sa, sb, rm, sc, opts, dice, pol, vis, seed, pseed, game, out, k):
    """Game ``game`` of the 2-player mode: first with the seats swapped (two_player.swap_seats), then as seated,
    each on the game's own dice (the same streams); the states end as the seated game left them."""
    R = ba.R
    first = R[R_P2_FIRST]
    swapped = -1
    if R[R_P2_FLAGS] & P2F_SWAP:
        seed_stream(dice.rs, seed, game)
        seed_stream(dice.ps, pseed, game)
        swapped, how_s = p2_game(ba, bb, rm0, sa, sb, rm, sc, opts, dice, pol, vis, 3 - first)
    seed_stream(dice.rs, seed, game)
    seed_stream(dice.ps, pseed, game)
    winner, how = p2_game(ba, bb, rm0, sa, sb, rm, sc, opts, dice, pol, vis, first)
    if out.shape[1] > N_OUT:
        s1 = sa if first == 1 else sb
        s2 = sb if first == 1 else sa
        out[k, OUT_P2_WINNER] = winner
        out[k, OUT_P2_END] = how
        out[k, OUT_P2_TURNS1] = s1[S_TURN]
        out[k, OUT_P2_TURNS2] = s2[S_TURN]
        out[k, OUT_P2_CHESTS1] = s1[CHEST]
        out[k, OUT_P2_CHESTS2] = s2[CHEST]
        out[k, OUT_P2_DUELS] = s1[S_P2_DUELS] + s2[S_P2_DUELS]
        out[k, OUT_P2_OPP_WIN] = sb[S_WIN]
        out[k, OUT_P2_SWAPPED] = swapped


@njit(cache=CACHE, _nrt=False)
def write_out(T, st, rs, out, k):
    out[k, OUT_WIN] = st[S_WIN]
    out[k, OUT_CLEAN] = 1 if st[S_WIN] == 1 and st[S_COINS_USED] == 0 else 0
    out[k, OUT_ROUNDS] = st[S_ROUND]
    out[k, OUT_COINS] = st[S_COINS_USED]
    out[k, OUT_HEARTS] = st[HEARTS]
    out[k, OUT_TURNS] = st[S_TURN]
    out[k, OUT_SCORE] = st[S_KILLS_TOTAL] if st[S_SL_END] > 0 else final_score(T, st)  # the Slaughter's: kills
    out[k, OUT_KILLS] = st[S_KILLS_TOTAL]
    out[k, OUT_CHESTS] = st[S_CHESTS_GAINED]
    out[k, OUT_DEATH_ROUND] = st[S_DEATH_ROUND]
    out[k, OUT_DEATH_SECTOR] = st[S_DEATH_SECTOR] if st[S_DEATH_ROUND] > 0 else -1
    out[k, OUT_DEATH_CELL] = st[S_DEATH_CELL] if st[S_DEATH_ROUND] > 0 else -1
    out[k, OUT_DEATH_CAUSE] = st[S_DEATH_CAUSE]
    out[k, OUT_END_CAUSE] = st[S_CAUSE] if st[S_WIN] == 0 else 0
    out[k, OUT_ORDER] = st[S_ORDER]
    for r in range(4):
        out[k, OUT_TURNS_R1 + r] = st[S_TURNS_R + r]
    out[k, OUT_DICE] = np.int64(rs[3])
    out[k, OUT_BAD] = st[S_BAD_CHOICE]
    out[k, OUT_DEATH_TURN] = st[S_DEATH_TURN]
    out[k, OUT_UNWIN_TURN] = st[S_UNWIN_TURN]
    out[k, OUT_UNWIN_CAUSE] = st[S_UNWIN_CAUSE]
    out[k, OUT_SL_SCORE] = st[S_KILLS_TOTAL] if st[S_SL_END] > 0 else 0  # The Slaughter of Monsters (0 otherwise)
    out[k, OUT_FURY_USED] = st[S_FURY_USED]
    out[k, OUT_FURY_KILLS] = st[S_FURY_KILLS]
    out[k, OUT_SL_END] = st[S_SL_END]
    santa_out(st, out, k)
    if st[S_KR_ON] == 1 and out.shape[1] >= KR_OUT + 5:  # Discovering the Kraken's columns (only in its games)
        out[k, KR_OUT] = kr_end(st)
        out[k, KR_OUT + 1] = st[S_KR_REQS]
        out[k, KR_OUT + 2] = st[S_KR_WATER]
        out[k, KR_OUT + 3] = st[S_KR_FIGHTS]
        out[k, KR_OUT + 4] = st[S_KR_MARKET]


@njit(cache=CACHE, inline="always", _nrt=False)
def scratch_cols(n_rooms):
    """Columns of the search scratch ``sc``: one per room, and room for the upper level's trip planner; plus a
    pad of the rooms' width (in whole 64-byte lines), so that the rows are not a multiple of 4 KiB apart. Unpadded
    (2,048 columns: 16 KiB) every row's first rooms fell on the same few sets of the 8-way L1 cache, and a load of
    ``want[y]`` or ``dist[y]`` aliased (4K aliasing) the store of another row's ``[y]`` just before it."""
    return max(n_rooms, UP_DP_SIZE) + (n_rooms + 7) // 8 * 8


@njit(cache=CACHE, inline="always", _nrt=False)
def option_rows(n_rooms):
    """Rows of the options scratch: every side of every room, plus stairs and circles pairs."""
    return 6 * n_rooms + 64


@njit(cache=CACHE, inline="always", _nrt=False)
def search_play(board, rm0, st, rm, sc, opts, dice, pol, vis, seed, pseed, game):
    """One play of a search game from the start (the prefix forced): fresh streams and a cleared options
    table, so that a play depends on nothing but (seed, game, the control array): no row left over from
    another play can enter a decision's fingerprint."""
    opts[:, :] = 0
    seed_stream(dice.rs, seed, game)
    seed_stream(dice.ps, pseed, game)
    play_game(board, rm0, st, rm, sc, opts, dice, pol, vis)


@njit(cache=CACHE, _nrt=False)
def search_game(board, rm0, st, rm, sc, opts, dice, quiet, pol, vis, qvis, seed, pseed, game, rollouts, kinds,
                margin, progress, acc):
    """One game played by the search policy (``search.py``): probes and rollouts on ``quiet`` dice (no
    trace) and ``qvis`` (no visit counts), each a whole ``play_game`` with the prefix forced; then the
    real game (the prefix on the real dice) once more with the trace and the visits. A rollout's value:
    win + progress x rounds completed / rounds. Replay faults (``search.C_FAULT``) end in ``S_SEARCH_FAULT``."""
    ctl = pol.ctl
    rounds = board.R[R_ROUNDS]
    S.begin(ctl, seed, game, kinds, N_DECISIONS)
    while True:
        S.probe(ctl)
        search_play(board, rm0, st, rm, sc, opts, quiet, pol, qvis, seed, pseed, game)
        n = ctl[S.C_N]
        if n == 0:
            break
        plen = ctl[S.C_PLEN]
        S.clear(acc, n)
        for r in range(rollouts):
            for i in range(n):
                S.rollout(ctl, plen, i, r)
                search_play(board, rm0, st, rm, sc, opts, quiet, pol, qvis, seed, pseed, game)
                S.score(acc, i, st[S_WIN], st[S_ROUND] / rounds, progress)
            S.paired(ctl, acc, n)
        S.commit(ctl, plen, acc, n, rollouts, margin)
    S.replay_final(ctl)
    search_play(board, rm0, st, rm, sc, opts, dice, pol, vis, seed, pseed, game)
    st[S_SEARCH_FAULT] = ctl[S.C_FAULT]


I1 = types.int64[::1]
I2 = types.int64[:, ::1]
_SIG = types.void(I1, I2, I2, I2, I2, types.int64, types.float64[::1], POLICY_TYPE, types.uint64, types.int64,
                  types.int64, I2, I2)


@njit(cache=CACHE, inline="always")
def game_scratch(n_rooms):
    """The search scratch ``sc`` and the options table of a map of ``n_rooms`` rooms."""
    return np.zeros((SC_ROWS, scratch_cols(n_rooms)), np.int64), np.zeros((option_rows(n_rooms), N_OCOL), np.int64)


@njit(cache=CACHE, inline="always")
def chunk_scratch(rm0, n_rooms):
    """A chunk's own scratch (one per ``prange`` iteration): state, rooms, search scratch, options, the two
    streams and the dice (no script, no trace)."""
    st = np.zeros(STATE_SIZE, np.int64)
    rm = np.empty_like(rm0)
    sc, opts = game_scratch(n_rooms)
    rs = np.zeros(4, np.uint64)
    ps = np.zeros(4, np.uint64)
    return st, rm, sc, opts, rs, ps, Dice(rs, ps, np.zeros(0, np.int64), np.zeros((1, TRACE_COLS), np.int64))


# Two parallel entry points with one signature: the solo game (``simulate``) and the other drivers
# (``simulate_p2_search``: the 2-player mode's ``p2_run`` or the search policy's ``search_game``). Each compiles
# on first use, so a first solo run compiles neither driver (docs/startup.md, "Dungeon Foury, session 38").
def _simulate_kernel(R, T, geo, arrows, rm0, pid, params, fn, seed, start, count, out, visits):
    """Solo games ``start .. start+count-1``: chunks of games in parallel, each game on its own streams."""
    n_rooms = geo.shape[0]
    pseed = seed ^ _POLICY_SALT
    board = Board(R, T, geo, arrows)
    for ch in prange((count + CHUNK - 1) // CHUNK):
        st, rm, sc, opts, rs, ps, dice = chunk_scratch(rm0, n_rooms)
        vis = visits[ch]
        pol = Pol(pid, params.copy(), fn, np.zeros(0, np.int64), rs)
        for k in range(ch * CHUNK, min(count, ch * CHUNK + CHUNK)):
            g = start + k
            seed_stream(rs, seed, g)
            seed_stream(ps, pseed, g)
            play_game(board, rm0, st, rm, sc, opts, dice, pol, vis)
            write_out(T, st, rs, out, k)


def _simulate_p2_search_kernel(R, T, geo, arrows, rm0, pid, params, fn, seed, start, count, out, visits):
    """2-player games (``two_player.players = 2``: ``p2_run`` writes both players' columns), or games played by the
    search policy (``search.py``: params = (rollouts, base id, kinds, the base's parameters...))."""
    n_rooms = geo.shape[0]
    pseed = seed ^ _POLICY_SALT
    board = Board(R, T, geo, arrows)
    two = R[R_P2_PLAYERS] == 2
    searching = pid == POL_SEARCH
    base_pid, n_base, rollouts, kinds, margin, progress = S.settings(params, searching, pid)  # (before the loop)
    for ch in prange((count + CHUNK - 1) // CHUNK):
        st, rm, sc, opts, rs, ps, dice = chunk_scratch(rm0, n_rooms)
        vis = visits[ch]
        sctl = np.zeros(S.CTL_SIZE if searching else 0, np.int64)
        pol = Pol(base_pid, params[params.shape[0] - n_base:].copy(), fn, sctl, rs)
        acc = np.zeros((S.ACC_ROWS, S.MAX_BRANCH if searching else 0), np.float64)
        qvis = np.zeros(vis.shape[0] if searching else 0, np.int64)
        sb = np.zeros(STATE_SIZE if two else 0, np.int64)  # the opponent's state, on their own board
        R2 = R.copy()
        T2 = T.copy()
        p2_tables(board, R2, T2)
        bb = Board(R2, T2, geo, arrows)
        for k in range(ch * CHUNK, min(count, ch * CHUNK + CHUNK)):
            if two:
                p2_run(board, bb, rm0, st, sb, rm, sc, opts, dice, pol, vis, seed, pseed, start + k, out, k)
            else:
                search_game(board, rm0, st, rm, sc, opts, dice, dice, pol, vis, qvis, seed, pseed, start + k,
                            rollouts, kinds, margin, progress, acc)
            write_out(T, st, rs, out, k)


_ONE_SIG = types.void(I1, I2, I2, I2, I2, types.int64, types.float64[::1], POLICY_TYPE, types.uint64, types.int64,
                      I1, I1, I2, I2, I2, I1)


@njit(cache=CACHE, inline="always")
def one_scratch(n_rooms, seed, game, script, tr):
    """One game's scratch (``game_scratch``), its two streams, seeded, and its dice (forced faces ``script``, trace
    ``tr``)."""
    sc, opts = game_scratch(n_rooms)
    rs = np.zeros(4, np.uint64)
    ps = np.zeros(4, np.uint64)
    seed_stream(rs, seed, game)
    seed_stream(ps, seed ^ _POLICY_SALT, game)
    return sc, opts, rs, ps, Dice(rs, ps, script, tr)


# ``play_one`` and ``play_one_p2_search``: one game alone, with forced dice and a trace (``tr`` rows), for replays
# and rule tests; like ``simulate``, one entry point for the solo game and one for the other drivers. The
# policy's parameters are a view, not a copy: a scripted test policy writes its log into them, read back after the
# game.
def _play_one(R, T, geo, arrows, rm0, pid, params, fn, seed, game, script, st, rm, tr, out, vis):
    """One solo game alone."""
    sc, opts, rs, ps, dice = one_scratch(geo.shape[0], seed, game, script, tr)
    play_game(Board(R, T, geo, arrows), rm0, st, rm, sc, opts, dice, Pol(pid, params, fn, np.zeros(0, np.int64), rs),
              vis)
    write_out(T, st, rs, out, np.int64(0))


def _play_one_p2_search(R, T, geo, arrows, rm0, pid, params, fn, seed, game, script, st, rm, tr, out, vis):
    """One game of the search policy alone (its rollouts on quiet dice: no trace), or one 2-player game (``st``
    is the run's hero's state)."""
    sc, opts, rs, ps, dice = one_scratch(geo.shape[0], seed, game, script, tr)
    board = Board(R, T, geo, arrows)
    searching = pid == POL_SEARCH
    base_pid, n_base, rollouts, kinds, margin, progress = S.settings(params, searching, pid)
    pol = Pol(base_pid, params[params.shape[0] - n_base:], fn,
              np.zeros(S.CTL_SIZE + S.VALUE_ROOM if searching else 0, np.int64), rs)
    if searching:
        search_game(board, rm0, st, rm, sc, opts, dice, Dice(rs, ps, script, np.zeros((1, TRACE_COLS), np.int64)),
                    pol, vis, np.zeros(vis.shape[0], np.int64), seed, seed ^ _POLICY_SALT, game, rollouts, kinds,
                    margin, progress, np.zeros((S.ACC_ROWS, S.MAX_BRANCH), np.float64))
    else:
        R2 = R.copy()
        T2 = T.copy()
        p2_tables(board, R2, T2)
        p2_run(board, Board(R2, T2, geo, arrows), rm0, st, np.zeros(STATE_SIZE, np.int64), rm, sc, opts, dice, pol,
               vis, seed, seed ^ _POLICY_SALT, game, out, np.int64(0))  # (an int64 row: simulate's signature)
    write_out(T, st, rs, out, np.int64(0))


_DRIVERS = "2-player and search drivers"  # (what the compile notice of their entry points names)
#: The compiled entry points, built on first use (see ``config.CompiledOnFirstUse``).
_ENTRIES = {
    "simulate": CompiledOnFirstUse(__name__, _SIG, _simulate_kernel, parallel=True),
    "simulate_p2_search": CompiledOnFirstUse(__name__, _SIG, _simulate_p2_search_kernel, _DRIVERS, parallel=True),
    "play_one": CompiledOnFirstUse(__name__, _ONE_SIG, _play_one),
    "play_one_p2_search": CompiledOnFirstUse(__name__, _ONE_SIG, _play_one_p2_search, _DRIVERS),
}


def driver(R, pid) -> str:
    """The suffix of the entry points that play these games: ``""`` (the solo game) or ``"_p2_search"`` (the
    2-player mode, or the search policy; the 2-player mode refuses the search policy)."""
    return "_p2_search" if R[R_P2_PLAYERS] == 2 or pid == POL_SEARCH else ""


def entry(name: str):
    """The compiled entry point ``"simulate"`` (parallel, many games) or ``"play_one"`` (one game, traced), each
    with the suffix of its driver (``driver``)."""
    return _ENTRIES[name]()
