"""Built-in Delve policies, with the same inputs as a user's ``decide(kind, state, options, n, params)``.

They read the kernel's advice columns (``O_COST``, ``O_OK``, ``O_N``, ``O_P``); the allocation
itself comes from the solver, whose best fight is always option 0 of a fight menu.

* ``threshold`` (retire_level, min_companions): retire when the level reached is >= retire_level
  or fewer than min_companions companion dice remain.
* ``risk`` (margin, bonus, min_companions): retire unless p x (XP if the next level is cleared +
  bonus) + (1 - p) x (XP a Town Portal would save) > XP now + margin, with p the exact chance of
  clearing the next level (``O_P``, from ``odds.clear_table``).
* ``optimal`` (no parameters): retire when the exact dynamic programme over Delve reduced to its dice
  (``dp.py``: delve, score, side, level, Lair, party in hand) says retiring wins at least as often as going
  on (``S_DP_RETIRE`` >= ``S_DP_GO``); every other choice is risk's (the solver's fight, the same loot rule).
* ``random`` (no parameters): a uniformly random legal option (drawn in the kernel, from the game's
  own dice stream).
"""

from __future__ import annotations

from numba import njit

from ...config import CACHE
from . import layout as A

#: Parameters (name -> default) of each built-in policy, in the order of the params vector. The
#: defaults are the best of a small grid on the plain game (20,000 games each): threshold wins 50%,
#: risk 52% (the "bonus" stands for what surviving a level is worth beyond its XP: loot, later levels).
THRESHOLD_PARAMS = {"retire_level": 5.0, "min_companions": 2.0}
RISK_PARAMS = {"margin": 0.0, "bonus": 5.0, "min_companions": 1.0}


@njit(cache=CACHE, inline="always", _nrt=False)
def _find(opts, n, action):
    for i in range(n):
        if opts[i, A.O_ACTION] == action:
            return i
    return -1


@njit(cache=CACHE, inline="always", _nrt=False)
def _companions(state):
    c = 0
    for f in range(A.N_ROLES):
        c += state[A.S_PARTY + f]
    return c


@njit(cache=CACHE, inline="always", _nrt=False)
def wants_retire(pid, state, params):
    """Whether the policy would retire at the coming regroup, by its own rule: threshold's, or risk's
    (which reads ``S_P_NEXT``). A built-in without a retire rule here seeks glory to the last level
    (it never reads another policy's parameters)."""
    level = state[A.S_LEVEL]
    if level >= state[A.S_LEVELS]:
        return True
    if pid == A.P_THRESHOLD:
        return level >= params[0] or _companions(state) < params[1]
    if pid == A.P_RISK:
        return _risk_retires(state, params)
    if pid == A.P_OPTIMAL:
        return _optimal_retires(state)
    return False


@njit(cache=CACHE, inline="always", _nrt=False)
def _optimal_retires(state):
    """Optimal: retire when the dynamic programme's P(win) of retiring is at least that of going on
    (``S_DP_RETIRE`` >= ``S_DP_GO``; games/delve/dp.py). Without a table: the threshold defaults."""
    go = state[A.S_DP_GO]
    if go < 0:
        return state[A.S_LEVEL] >= 5 or _companions(state) < 2
    return state[A.S_DP_RETIRE] >= go


@njit(cache=CACHE, inline="always", _nrt=False)
def _risk_retires(state, params):
    """Risk: retire unless p x (XP next + bonus) + (1 - p) x (what a held portal saves) > XP now + margin."""
    level = state[A.S_LEVEL]
    if _companions(state) < params[2]:
        return True
    p = state[A.S_P_NEXT]
    if p < 0:  # no table: fall back to the threshold defaults
        return level >= 5
    xp_now = level * state[A.S_RETIRE_XP]
    xp_next = (level + 1) * state[A.S_RETIRE_XP]
    fallback = state[A.S_PORTAL_FALLBACK]
    pf = p / 1e6
    return pf * (xp_next + params[1]) + (1.0 - pf) * fallback <= xp_now + params[0]


@njit(cache=CACHE, inline="always", _nrt=False)
def _loot_choice(pid, state, opts, n, params):
    """Open chests and quaff potions when it pays: always when retiring, cheaply when going on."""
    retiring = wants_retire(pid, state, params)
    chests = state[A.S_DUN + A.CHEST]
    best = 0
    best_v = -1.0e9
    for i in range(n):
        act = opts[i, A.O_ACTION]
        cost = opts[i, A.O_COST]
        v = 0.0
        if act == A.A_OPEN:
            v = 10.0 * opts[i, A.O_N] - (0.0 if retiring else 3.0 * cost)
        elif act == A.A_QUAFF:
            if retiring:
                v = 6.0 * opts[i, A.O_N] - cost if chests > 0 else -1.0
            else:
                v = 6.0 * opts[i, A.O_N] - cost
        elif act == A.A_TREASURE:
            v = -4.0
        v += 100.0 * opts[i, A.O_OK]
        if v > best_v:
            best_v = v
            best = i
    return best


@njit(cache=CACHE, inline="always", _nrt=False)
def builtin_decide(pid, kind, state, opts, n, params):
    """The threshold, risk and optimal policies (they differ only in when to retire: ``wants_retire``)."""
    if kind == A.D_REGROUP:
        i = _find(opts, n, A.A_RETIRE if wants_retire(pid, state, params) else A.A_CONTINUE)
        return max(i, 0)
    if kind == A.D_LOOT:
        return _loot_choice(pid, state, opts, n, params)
    if kind == A.D_REROLL:
        for i in range(n):
            if opts[i, A.O_ACTION] == A.A_PICK and opts[i, A.O_OK] == 1:
                return i
        return max(_find(opts, n, A.A_DONE), 0)
    best = 0
    best_key = opts[0, A.O_COST] + 1000 * (1 - opts[0, A.O_OK])
    for i in range(1, n):
        key = opts[i, A.O_COST] + 1000 * (1 - opts[i, A.O_OK])
        if key < best_key:
            best_key = key
            best = i
    return best
