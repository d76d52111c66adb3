"""Rooms' decisions: ``decide`` (every choice of the hero, fight and navigation alike) and the built-in answers
to the navigation decisions (``layout``: D_ACT, D_PASS, D_RESOLVE, D_SHOP; options with advice columns).

* ``random``: a uniformly random legal option at every choice (drawn from the game's own dice stream).
* ``greedy`` and ``optimal_reroll``: the fight decisions are ``combat.builtin_fight``'s (a greedy keep or the
  exact reroll table); the navigation is the same heuristic for both (named parameters ``NAV_PARAMS``):

  - drink a potion at HP <= heal_below; resolve what helps where the hero stands (a fountain or the mend when
    hurt, a chest, the forge, a cache, the shop, a bounty when HP > pay_hp_above * 2 with loot = 1);
  - with the Magic Mirror and mirror_boss = 1, teleport to the boss room when the HP is at least heal_below * 2;
  - else the step (or warp) that brings the hero nearest the boss room: known open ways before face-down cards
    before locked doors before walls, never a side it turned back from this turn; at a locked door or a wall it
    spends the key or bomb, else pays the HP (``navigation.hp_cost``, c) when HP > c and HP - (c - 1) > pay_hp_above
    (at the printed 1 HP and pay_hp_above >= 1: HP > pay_hp_above), else it turns back;
  - in a shop: armour, else a potion, else a key, else the first item it can afford.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...config import CACHE
from ...policy import USER_POLICY_ID
from ...rng import roll
from ...tracing import trace_row
from . import layout as L
from .combat import builtin_fight
from .dice import GREEDY_PARAMS

# The answers are compiled without numba's reference counting (``_nrt=False``, as ``combat._jit``): they allocate
# nothing and read the caller's arrays.

#: Named parameters of the navigation heuristic (after the fight's ``dice.GREEDY_PARAMS`` in the array).
NAV_PARAMS = {"heal_below": 10.0, "pay_hp_above": 8.0, "loot": 1.0, "mirror_boss": 1.0}
POLICY_PARAMS = {**GREEDY_PARAMS, **NAV_PARAMS}
_P0 = len(GREEDY_PARAMS)
P_HEAL_BELOW, P_PAY_HP_ABOVE, P_LOOT, P_MIRROR_BOSS = _P0, _P0 + 1, _P0 + 2, _P0 + 3


@njit(cache=CACHE, _nrt=False)
def _find(opts, n, action, arg):
    for i in range(n):
        if opts[i, L.O_ACTION] == action and (arg < 0 or opts[i, L.O_ARG] == arg):
            return i
    return -1


@njit(cache=CACHE, _nrt=False)
def _worth(st, opts, i, params):
    """Whether resolving option ``i``'s function (kind in O_KIND, function in O_ARG) helps now."""
    kind = opts[i, L.O_KIND]
    hurt = st[L.S_HP] < st[L.S_HP_MAX]
    if kind == L.K_FOUNTAIN:
        return hurt
    if kind == L.K_BLACKSMITH:
        return opts[i, L.O_ARG] == 0 or hurt
    if kind == L.K_BOUNTY:
        return params[P_LOOT] > 0 and st[L.S_HP] > 2 * params[P_PAY_HP_ABOVE]
    return params[P_LOOT] > 0


@njit(cache=CACHE, _nrt=False)
def nav_act(st, opts, n, params):
    if st[L.S_HP] <= params[P_HEAL_BELOW]:
        i = _find(opts, n, L.A_POTION, -1)
        if i >= 0:
            return i
    for i in range(n):
        if opts[i, L.O_ACTION] == L.A_RESOLVE and _worth(st, opts, i, params):
            return i
    if params[P_MIRROR_BOSS] > 0 and st[L.S_HP] >= 2 * params[P_HEAL_BELOW]:
        for i in range(n):
            if opts[i, L.O_ACTION] == L.A_MIRROR and opts[i, L.O_CELL] == st[L.S_GOAL] and \
                    st[L.S_DIST + st[L.S_CELL]] > 2:
                return i
    best = 0
    best_key = 1 << 40
    here = st[L.S_DIST + st[L.S_CELL]]
    for i in range(n):
        act = opts[i, L.O_ACTION]
        if act != L.A_MOVE and act != L.A_WARP:
            continue
        cost = opts[i, L.O_COST]
        rank = 1 if cost < 0 else (0 if cost == L.DOOR_OPEN else cost + 1)
        if act == L.A_WARP and opts[i, L.O_DIST] >= here:
            continue
        key = opts[i, L.O_DIST] * 8 + rank
        if key < best_key:
            best = i
            best_key = key
    return best


@njit(cache=CACHE, _nrt=False)
def nav_builtin(pid, kind, st, opts, n, params):
    """The navigation heuristic of ``greedy`` and ``optimal_reroll`` (module docstring)."""
    if kind == L.D_ACT:
        return nav_act(st, opts, n, params)
    if kind == L.D_PASS:
        i = _find(opts, n, L.PASS_ITEM, -1)
        if i >= 0:
            return i
        i = _find(opts, n, L.PASS_HP, -1)  # (its price ``navigation.hp_cost``, O_VALUE: never paid to death)
        if i >= 0:
            price = opts[i, L.O_VALUE]
            if st[L.S_HP] > price and st[L.S_HP] - (price - 1) > params[P_PAY_HP_ABOVE]:
                return i
        return 0
    if kind == L.D_RESOLVE:
        for i in range(1, n):
            if _worth(st, opts, i, params):
                return i
        return 0
    if kind == L.D_SHOP:
        for item in (L.IT_ARMOR, L.IT_POTION, L.IT_KEY):
            i = _find(opts, n, item, -1)
            if i >= 0:
                return i
        return 1 if n > 1 else 0
    return 0


@njit(cache=CACHE, _nrt=False)
def decide(kind, st, opts, n, pol, dice):
    """Ask the hero's policy (a forced choice, n <= 1, is not asked): a user's function, ``random`` (a roll of the
    game's stream), or the built-ins (``combat.builtin_fight`` for kinds 0..7, ``nav_builtin`` after). An answer
    outside 0..n-1 is counted (``S_BAD``) and option 0 taken, as in every game."""
    if n <= 1:
        c = 0
    else:
        if pol.pid == USER_POLICY_ID:
            c = pol.user_fn(kind, st, opts, n, pol.params)
        elif pol.pid == L.P_RANDOM:
            c = roll(dice.rs, dice.script, n) - 1
        elif kind < L.D_ACT:
            c = builtin_fight(pol.pid, kind, st, opts, n, pol.params, pol.fx)
        else:
            c = nav_builtin(pol.pid, kind, st, opts, n, pol.params)
        if c < 0 or c >= n:
            st[L.S_BAD] += 1
            c = 0
        st[L.S_NDEC] += 1
    if kind >= L.D_ACT:
        trace_row(dice.trace, st, L.S_NTRACE, 1, L.EV_DECIDE, (
            np.int64(kind), np.int64(c), np.int64(n), opts[c, L.O_ACTION], opts[c, L.O_ARG], opts[c, L.O_CELL],
            np.int64(0)))
    return c
