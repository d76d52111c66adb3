"""Built-in Dungeon Foury policies: random-legal, greedy and cautious.

Greedy and cautious are the same heuristic player with different named parameters: both head
for the round's requirement, then the Oracle, then an exit; cautious walks around foes, flees
earlier and spends shields and clovers on any hit. ``greedy_decide`` has the policy signature,
so a user's policy can call it for the decisions it does not want to change (see README).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...config import CACHE
from ...policy import PolicySpec
from .layout import (
    D_CLOVER,
    D_CORNU,
    D_ELYDION,
    D_EXTRA,
    D_FIGHT_ON,
    D_MARKET,
    D_MOVE,
    D_PLACE,
    D_ROUND,
    D_SHIELD,
    D_STEAL,
    D_TRAIT,
    D_USE_DIE,
    D_WEAPON,
    HEARTS,
    M_BUY,
    M_DONE,
    M_REDEEM,
    MK_CIRCLE,
    MK_SHOVEL,
    MK_STAIRS,
    N_TRAITS,
    O_EXIT,
    O_FOE,
    O_FOE_STR,
    O_GOAL,
    O_ITEMS,
    O_KIND,
    O_NEW,
    O_ODIST,
    O_OPEN,
    O_ORACLE,
    O_PATH,
    O_REQ,
    O_UPPER,
    S_CAP,
    S_CTX_ADD,
    S_CTX_DMG,
    S_CTX_EN,
    S_CTX_MY,
    S_CTX_STR,
    S_DIE_GOAL,
    S_PHASE,
    S_RAND,
    S_REQ_DONE,
    S_REQ_NEED,
    SHOVEL,
    WEAPON,
)

POL_RANDOM, POL_GREEDY, POL_CAUTIOUS = 0, 1, 2

#: Parameter names of the heuristic player, in the order of the params vector.
HEURISTIC_PARAMS = (
    "trait_hearts", "trait_shield", "trait_clover", "trait_weapon", "trait_shovel",
    "foe_avoid", "flee_hearts", "shield_min", "clover_min", "weapon_below", "market_need",
    "round_order", "shovel_cost", "dead_end",
)
(P_TRAIT0, _, _, _, _, P_FOE_AVOID, P_FLEE_HEARTS, P_SHIELD_MIN, P_CLOVER_MIN, P_WEAPON_BELOW, P_MARKET_NEED,
 P_ROUND_ORDER, P_SHOVEL_COST, P_DEAD_END) = range(len(HEURISTIC_PARAMS))

GREEDY = dict(zip(HEURISTIC_PARAMS, (5, 2, 1, 1, 3, 0.5, 1, 2, 2, 6, 0.5, 1234, 2, 1.5)))
CAUTIOUS = dict(zip(HEURISTIC_PARAMS, (6, 2, 1, 1, 2, 3.0, 3, 1, 1, 6, 0.3, 1234, 2, 3.0)))

POLICIES = {
    "random": PolicySpec("random", POL_RANDOM, "picks uniformly among the legal options (its own random stream)"),
    "greedy": PolicySpec("greedy", POL_GREEDY, "heads for the requirement, the Oracle and an exit; fights through",
                         {k: float(v) for k, v in GREEDY.items()}),
    "cautious": PolicySpec("cautious", POL_CAUTIOUS, "the same route-finder, but avoids foes and protects its hearts",
                           {k: float(v) for k, v in CAUTIOUS.items()}),
}

#: Greedy's parameters as an array, for user policies that delegate to ``greedy_decide``.
GREEDY_PARAMS = np.array(list(GREEDY.values()), dtype=np.float64)

# how much a unit of each track is worth to the heuristic (hearts, shield, clover, weapon, shovel)
_NEED_WEIGHT = np.array([3.0, 2.0, 1.5, 1.5, 0.7])
_KEEP_WEIGHT = np.array([9.0, 3.0, 2.0, 2.0, 1.0, 3.0, 3.0])


@njit(cache=CACHE, _nrt=False)
def _need(state, r):
    cap = state[S_CAP + r]
    if cap <= 0 or state[r] >= cap:
        return 0.0
    return (cap - state[r]) / cap * _NEED_WEIGHT[r]


@njit(cache=CACHE, _nrt=False)
def _move_cost(state, options, i, params):
    cost = options[i, O_PATH] + 1.0 + options[i, O_GOAL]
    foe = options[i, O_FOE]
    if foe >= 0 and options[i, O_REQ] == 0:
        danger = options[i, O_FOE_STR] + 3.5 - state[WEAPON] - 3.5 + 3.0
        if danger < 1.0:
            danger = 1.0
        scale = 1.0 + max(0.0, params[P_FLEE_HEARTS] + 2.0 - state[HEARTS])
        cost += params[P_FOE_AVOID] * danger * scale
    if options[i, O_KIND] == MK_SHOVEL:
        cost += params[P_SHOVEL_COST]
    if options[i, O_KIND] == MK_STAIRS or options[i, O_KIND] == MK_CIRCLE:
        cost += params[P_SHOVEL_COST] if options[i, O_REQ] == 0 else -50.0
    if options[i, O_KIND] == MK_STAIRS:
        # the upper level: its turns are safe (no room roll), each further lever saves a climb; a trip that
        # completes the requirement is followed by the way to the Oracle, not to the next staircase
        cost += 0.3 * options[i, O_UPPER]
        if options[i, O_REQ] > 1:
            cost -= 20.0 * (options[i, O_REQ] - 1)
        if options[i, O_REQ] > 0 and options[i, O_REQ] >= state[S_REQ_NEED] - state[S_REQ_DONE]:
            cost += options[i, O_ODIST] - options[i, O_GOAL]
    if options[i, O_EXIT] == 1 or (options[i, O_ORACLE] == 1 and state[S_PHASE] == 1):
        cost -= 100.0
    cost -= 0.3 * options[i, O_ITEMS]
    if options[i, O_NEW] == 1 and options[i, O_OPEN] <= 1 and state[SHOVEL] == 0:
        cost += params[P_DEAD_END] * (2 - options[i, O_OPEN])
    return cost


@njit(cache=CACHE, _nrt=False)
def _argmin_move(state, options, n, params):
    best = 0
    best_cost = 1e18
    for i in range(n):
        c = _move_cost(state, options, i, params)
        if c < best_cost:
            best_cost = c
            best = i
    return best


@njit(cache=CACHE, _nrt=False)
def _best_track(state, options, n, col, first):
    """Option (from ``first``) whose track in column ``col`` is most needed; -1 if none is needed."""
    best = -1
    best_need = 0.0
    for i in range(first, n):
        r = options[i, col]
        if 0 <= r < N_TRAITS:
            v = _need(state, r)
            if v > best_need:
                best_need = v
                best = i
    return best


@njit(cache=CACHE, _nrt=False)
def heuristic_decide(kind, state, options, n, params):
    """The greedy/cautious player (all decisions)."""
    if kind == D_MOVE or kind == D_EXTRA or kind == D_PLACE:
        return _argmin_move(state, options, n, params)
    if kind == D_WEAPON:
        return 1 if state[S_CTX_MY] <= params[P_WEAPON_BELOW] else 0
    if kind == D_CLOVER:
        mine = state[S_CTX_MY] + state[S_CTX_ADD]
        theirs = state[S_CTX_EN] + state[S_CTX_STR]
        if theirs - mine < params[P_CLOVER_MIN] and theirs - mine < state[HEARTS]:
            return 0
        if options[1, 0] == 2:  # Melyra chooses the value: the best one
            best = 0
            best_margin = mine - theirs
            for i in range(1, n):
                if options[i, 1] == 0:
                    m = options[i, 2] + state[S_CTX_ADD] - theirs
                else:
                    m = mine - options[i, 2] - state[S_CTX_STR]
                if m > best_margin:
                    best_margin = m
                    best = i
            return best
        return 1 if state[S_CTX_MY] <= 7 - state[S_CTX_EN] else 2
    if kind == D_SHIELD:
        dmg = state[S_CTX_DMG]
        return 1 if (dmg >= params[P_SHIELD_MIN] or dmg >= state[HEARTS]) else 0
    if kind == D_FIGHT_ON:
        return 0 if state[HEARTS] <= params[P_FLEE_HEARTS] else 1
    if kind == D_CORNU:
        b = _best_track(state, options, n, 0, 1)
        return b if b >= 0 else 0
    if kind == D_MARKET:
        for i in range(n):  # cornucopias first: they do not grow in value
            if options[i, 0] == M_REDEEM and _best_track(state, options, n, 1, 0) == i:
                return i
        b = _best_track(state, options, n, 1, 0)
        if b >= 0 and options[b, 0] == M_BUY and _need(state, options[b, 1]) >= params[P_MARKET_NEED]:
            return b
        for i in range(n):
            if options[i, 0] == M_DONE:
                return i
        return 0
    if kind == D_STEAL:
        best = 0
        for i in range(1, n):
            if _KEEP_WEIGHT[options[i, 0]] < _KEEP_WEIGHT[options[best, 0]]:
                best = i
        return best
    if kind == D_TRAIT:
        best = 0
        best_gap = -1e9
        for i in range(n):
            r = options[i, 0]
            gap = params[P_TRAIT0 + r] - options[i, 1]
            if gap > best_gap:
                best_gap = gap
                best = i
        return best
    if kind == D_ROUND:
        order = int(params[P_ROUND_ORDER])
        best = 0
        best_key = 1e18
        for i in range(n):
            rank = 9
            o = order
            pos = 4
            while o > 0:
                if o % 10 == options[i, 1] + 1:
                    rank = pos
                pos -= 1
                o //= 10
            key = rank * 1000.0 + options[i, 3]
            if key < best_key:
                best_key = key
                best = i
        return best
    if kind == D_ELYDION:
        return 1 if state[HEARTS] <= params[P_FLEE_HEARTS] + 1 else 0
    if kind == D_USE_DIE:
        # the DIE table can cost a heart or bring a monster: leave the die when hearts are low, unless it is
        # this round's way to a cornucopia (the Waterways: leaving it would only bring you back to it)
        return 0 if state[S_DIE_GOAL] == 1 or state[HEARTS] > params[P_FLEE_HEARTS] + 1 else 1
    return 0


#: The greedy/cautious player, callable from a user's policy with any parameter vector
#: (e.g. ``greedy_decide(kind, state, options, n_options, GREEDY_PARAMS)``).
greedy_decide = heuristic_decide


@njit(cache=CACHE, _nrt=False)
def builtin_decide(pid, kind, state, options, n, params):
    """Dispatch to a built-in policy by id."""
    if pid == POL_RANDOM:
        return state[S_RAND] % n
    return heuristic_decide(kind, state, options, n, params)


__all__ = ["POLICIES", "GREEDY_PARAMS", "greedy_decide", "builtin_decide", "HEURISTIC_PARAMS"]
