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
from ...search import RANGES as SEARCH_RANGES
from ...search import base_description
from .layout import (
    CHEST,
    D_CLOVER,
    D_CORNU,
    D_DUEL,
    D_ELYDION,
    D_EXTRA,
    D_FIGHT_ON,
    D_FURY,
    D_KR_AREA,
    D_KR_MARKET,
    D_MARKET,
    D_MOVE,
    D_PLACE,
    D_REROLL,
    D_ROUND,
    D_SANTA_CANE,
    D_SANTA_HOME,
    D_SHIELD,
    D_STEAL,
    D_TRAIT,
    D_USE_DIE,
    D_WEAPON,
    DIE_LOSE_HEART,
    DIE_MONSTER,
    DIE_NOTHING,
    DIE_POTION,
    EV_CHEST,
    EV_EXTRA,
    EV_MONSTER,
    EV_PREV_COLLAPSE,
    HEARTS,
    M_BUY,
    M_DONE,
    M_REDEEM,
    MK_CIRCLE,
    MK_SHOVEL,
    MK_STAIRS,
    MK_SWIM,
    N_TRAITS,
    O_EXIT,
    O_FOE,
    O_FOE_STR,
    O_GOAL,
    O_ITEMS,
    O_KIND,
    O_KR_DRY,
    O_KR_FRONT,
    O_NEW,
    O_ODIST,
    O_OPEN,
    O_ORACLE,
    O_PATH,
    O_REQ,
    O_TO,
    O_UPPER,
    RR_DIE,
    RR_ROOM,
    RR_SPAWN,
    S_CAP,
    S_CTX_ADD,
    S_CTX_DMG,
    S_CTX_EN,
    S_CTX_MY,
    S_CTX_STR,
    S_DIE_GOAL,
    S_FURY_BOXES,
    S_FURY_LOSS,
    S_FURY_TRACK,
    S_FURY_USED,
    S_JUMP_FROM,
    S_JUMPS_IDLE,
    S_KR_ON,
    S_KR_RATE,
    S_KR_SWIM_LEFT,
    S_P2_OPP_TRACK,
    S_PHASE,
    S_PROGRESS_TURN,
    S_RAND,
    S_REQ_DONE,
    S_REQ_NEED,
    S_RR_KIND,
    S_SANTA_LEFT,
    S_SANTA_SAFE_DIST,
    S_SECTOR,
    S_TURN,
    SHIELD,
    SHOVEL,
    WEAPON,
)

POL_RANDOM, POL_GREEDY, POL_CAUTIOUS, POL_KRAKEN = 0, 1, 2, 3
POL_SEARCH = 50  # the search policy (foury_sim/search.py): rollouts over a base policy

#: Parameter names of the heuristic player, in the order of the params vector.
HEURISTIC_PARAMS = (
    "trait_hearts", "trait_shield", "trait_clover", "trait_weapon", "trait_shovel",
    "foe_avoid", "flee_hearts", "shield_min", "clover_min", "weapon_below", "market_need",
    "round_order", "shovel_cost", "dead_end",
    "reroll_min", "reroll_hearts", "sealed_cost", "jump_idle", "patience", "set_min",
    "fury_hearts", "fury_reserve", "home_margin", "cane_hearts", "goal_home", "kraken_market_at",
    "front_margin", "front_cost", "swim_finish",
)
(P_TRAIT0, _, _, _, _, P_FOE_AVOID, P_FLEE_HEARTS, P_SHIELD_MIN, P_CLOVER_MIN, P_WEAPON_BELOW, P_MARKET_NEED,
 P_ROUND_ORDER, P_SHOVEL_COST, P_DEAD_END, P_REROLL_MIN, P_REROLL_HEARTS, P_SEALED_COST, P_JUMP_IDLE,
 P_PATIENCE, P_SET_MIN, P_FURY_HEARTS, P_FURY_RESERVE, P_HOME_MARGIN, P_CANE_HEARTS, P_GOAL_HOME,
 P_KRAKEN_MARKET_AT, P_FRONT_MARGIN, P_FRONT_COST, P_SWIM_FINISH) = range(len(HEURISTIC_PARAMS))

# reroll_min: how bad (face score below 0) a die outside combat must be to spend a clover on a blind reroll;
# set_min: how much better a face must be for Melyra to spend a clover setting it; reroll_hearts: at or below
# these hearts a monster (or a lost heart) weighs more; sealed_cost: the score of a room roll that walls you in
# (no way out and no shovel). Tuned on 10,000 games (seed 1): a lower reroll_min wastes the clovers a fight needs.
# Not looping (kernel memory S_JUMP_FROM, S_JUMPS_IDLE, S_PROGRESS_TURN): jump_idle is added to the cost of a
# staircase or circle for every jump made since the last progress (twice to jump straight back); after
# `patience` turns without progress, avoiding foes fades out over the next `patience` turns.
# The Slaughter of Monsters' Fury (D_FURY): fury_hearts: black out boxes instead of hearts when the hit would leave
# at most this many hearts (a lethal hit always, while boxes last); fury_reserve: black out a box instead of weapon
# wear or a theft only while more than this many boxes would stay free for hearts.
# Santa Crash'n Foury (docs/rules.md): home_margin: turn for the XMas Safe Zone when the hourglass spaces left are at
# most the steps to it + this margin; cane_hearts: give a candy cane to the Grinch or the Yeti at or below these
# hearts (99: always); goal_home: 1 = turn for the Safe Zone as soon as the collection goal is met (0: collect on).
# kraken_market_at (Discovering the Kraken): the one market visit is taken at an exit once this many requirements
# are done (the rate), or earlier when hearts are down to flee_hearts + 1.
# Discovering the Kraken's flood and swims (the option columns O_KR_FRONT, O_KR_DRY; 0 = off in greedy and cautious):
# front_margin, front_cost: a move whose room the flood front can reach within front_margin turns costs front_cost
# per turn short of the margin (the Kraken's water itself: front_margin x front_cost); swim_finish: 1 = never start
# a swim the swims left cannot finish (the nearest dry room further than S_KR_SWIM_LEFT moves).
GREEDY = dict(zip(HEURISTIC_PARAMS, (5, 2, 1, 1, 3, 0.5, 1, 2, 2, 6, 0.5, 1234, 2, 1.5, 3.0, 3, 10, 4, 15, 1.5,
                                     2, 4, 4, 99, 0, 3, 0, 0, 0)))
CAUTIOUS = dict(zip(HEURISTIC_PARAMS, (6, 2, 1, 1, 2, 3.0, 3, 1, 1, 6, 0.3, 1234, 2, 3.0, 7.0, 4, 10, 4, 15, 1.0,
                                       4, 6, 8, 99, 1, 3, 0, 0, 0)))

#: Valid range of each heuristic parameter (``--param`` outside it is refused): counts of hearts, boxes,
#: pips and turns are 0 .. 1e6; weights and costs -1e6 .. 1e6 (a negative weight seeks what it weighs);
#: round_order is up to eight sector digits.
_COUNTS = ("trait_hearts", "trait_shield", "trait_clover", "trait_weapon", "trait_shovel", "flee_hearts",
           "shield_min", "clover_min", "weapon_below", "reroll_hearts", "patience", "fury_hearts", "fury_reserve",
           "cane_hearts", "kraken_market_at", "front_margin")
HEURISTIC_RANGES = {k: ((0.0, 1e6) if k in _COUNTS else (-1e6, 1e6)) for k in HEURISTIC_PARAMS}
HEURISTIC_RANGES["round_order"] = (0.0, 99_999_999.0)
HEURISTIC_RANGES["goal_home"] = (0.0, 1.0)
HEURISTIC_RANGES["swim_finish"] = (0.0, 1.0)
#: The heuristic's on/off parameters: 0 or 1 only (``GameSpec.flags``; 0.5 was played as 0: ``>= 1`` is on).
FLAGS = frozenset({"goal_home", "swim_finish"})

POLICIES = {
    "random": PolicySpec("random", POL_RANDOM, "picks uniformly among the legal options (its own random stream)"),
    "greedy": PolicySpec("greedy", POL_GREEDY, "heads for the requirement, the Oracle and an exit; fights through",
                         {k: float(v) for k, v in GREEDY.items()}, ranges=HEURISTIC_RANGES),
    "cautious": PolicySpec("cautious", POL_CAUTIOUS, "the same route-finder, but avoids foes and protects its hearts",
                           {k: float(v) for k, v in CAUTIOUS.items()}, ranges=HEURISTIC_RANGES),
}
#: The Kraken player (Discovering the Kraken, docs/rules.md): greedy's route-finder with the flood and the swims in
#: mind (front_margin, front_cost, swim_finish), the nearest area next (round_order 0: no fixed order, D_KR_AREA by
#: distance) and the one market visit taken at the first exit with a requirement done (kraken_market_at 1).
KRAKEN = {**GREEDY, "round_order": 0, "front_margin": 6, "front_cost": 2.0, "swim_finish": 1, "kraken_market_at": 1}
POLICIES["kraken"] = PolicySpec(
    "kraken", POL_KRAKEN, "greedy for Discovering the Kraken: keeps ahead of the flood front, never starts a swim "
    "it cannot finish, takes the nearest area next and the one market visit early",
    {k: float(v) for k, v in KRAKEN.items()}, ranges=HEURISTIC_RANGES)
POLICIES["search"] = PolicySpec(
    "search", POL_SEARCH,
    "plays every decision by Monte Carlo rollouts: each option is played out `rollouts` times with the base "
    f"policy (base: {base_description(POLICIES)}; its default parameters) on common dice; a rollout is worth "
    "win + progress x rounds completed / rounds; the base's own choice is kept unless another option beats it "
    "by more than `margin` on average, paired rollout by rollout; kinds: a bit mask of the decision kinds "
    "searched (0: all). docs/search.md",
    {"rollouts": 8.0, "base": float(POL_GREEDY), "kinds": 0.0, "margin": 0.3, "progress": 1.0},
    traits=frozenset({"slow"}), ranges={**SEARCH_RANGES, "base": (0.0, 1e6)})

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


@njit(cache=CACHE, inline="always", _nrt=False)
def _boldness(state, params):
    """1 while the round makes progress; fades to 0 from `patience` to 2 x `patience` turns without it."""
    idle = state[S_TURN] - state[S_PROGRESS_TURN] - params[P_PATIENCE]
    if idle <= 0.0:
        return 1.0
    return max(0.0, 1.0 - idle / max(params[P_PATIENCE], 1.0))


@njit(cache=CACHE, inline="always", _nrt=False)
def _move_cost(state, options, i, params):
    cost = options[i, O_PATH] + 1.0 + options[i, O_GOAL]
    foe = options[i, O_FOE]
    if foe >= 0 and options[i, O_REQ] == 0:
        danger = options[i, O_FOE_STR] + 3.5 - state[WEAPON] - 3.5 + 3.0
        if danger < 1.0:
            danger = 1.0
        scale = 1.0 + max(0.0, params[P_FLEE_HEARTS] + 2.0 - state[HEARTS])
        cost += params[P_FOE_AVOID] * danger * scale * _boldness(state, params)
    # (the terms of a kind or a flag are added as 0.0 otherwise, which changes no sum: no branch to mispredict on
    # the options' mixed kinds)
    cost += params[P_SHOVEL_COST] if options[i, O_KIND] == MK_SHOVEL else 0.0
    if options[i, O_KIND] == MK_STAIRS or options[i, O_KIND] == MK_CIRCLE:
        cost += params[P_SHOVEL_COST] if options[i, O_REQ] == 0 else -50.0
        idle = state[S_JUMPS_IDLE]
        if options[i, O_TO] == state[S_JUMP_FROM]:
            idle = 2 * idle + 1  # straight back to where the last jump started
        cost += params[P_JUMP_IDLE] * idle
    if options[i, O_KIND] == MK_STAIRS:
        # the upper level: its turns are safe (no room roll), each further lever saves a climb; a trip that
        # completes the requirement is followed by the way to the Oracle, not to the next staircase
        cost += 0.3 * options[i, O_UPPER]
        if options[i, O_REQ] > 1:
            cost -= 20.0 * (options[i, O_REQ] - 1)
        if options[i, O_REQ] > 0 and options[i, O_REQ] >= state[S_REQ_NEED] - state[S_REQ_DONE]:
            cost += options[i, O_ODIST] - options[i, O_GOAL]
    if state[S_KR_ON] == 1:  # Discovering the Kraken
        if options[i, O_KIND] == MK_SWIM and state[S_KR_SWIM_LEFT] <= 0:
            cost += 1e6  # one more swim drowns
        if params[P_SWIM_FINISH] >= 1.0 and options[i, O_KR_DRY] > state[S_KR_SWIM_LEFT]:
            cost += 1e6  # a swim the swims left cannot finish
        front = options[i, O_KR_FRONT]
        if front >= 0 and front < params[P_FRONT_MARGIN]:
            cost += params[P_FRONT_COST] * (params[P_FRONT_MARGIN] - front)
    cost -= 100.0 if (options[i, O_EXIT] == 1) | ((options[i, O_ORACLE] == 1) & (state[S_PHASE] == 1)) else 0.0
    cost -= 0.3 * options[i, O_ITEMS]
    dead = (options[i, O_NEW] == 1) & (options[i, O_OPEN] <= 1) & (state[SHOVEL] == 0)
    cost += params[P_DEAD_END] * (2 - options[i, O_OPEN]) if dead else 0.0
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
def face_score(state, effect, ways, params):
    """How good a face of the roll in S_RR_KIND is for the player (0 = harmless), from its effect and
    its ways out / foe strength (the D_REROLL option columns)."""
    rk = state[S_RR_KIND]
    hearts = state[HEARTS]
    low = 1.0 + max(0.0, params[P_REROLL_HEARTS] - hearts)  # monsters weigh more when hearts are low
    s = 0.0
    if rk == RR_SPAWN:
        return -params[P_FOE_AVOID] * low * (1.0 + max(0.0, float(ways)))
    if rk == RR_DIE:
        if effect == DIE_LOSE_HEART:
            return -params[P_SEALED_COST] if hearts <= 1 else -1.0 * low
        if effect == DIE_MONSTER:
            return -params[P_FOE_AVOID] * low * 2.0 - 0.5
        if effect == DIE_NOTHING:
            return 0.0
        if effect == DIE_POTION and hearts <= params[P_REROLL_HEARTS]:
            return 2.0
        return 1.0
    # a room roll (or the exit roll: walls no longer matter once you leave)
    if rk == RR_ROOM:
        if ways == 0 and state[SHOVEL] == 0:
            s -= params[P_SEALED_COST]
        elif ways == 1 and state[SHOVEL] == 0:
            s -= 0.5
        if effect & EV_PREV_COLLAPSE:
            s -= 0.5
    if effect & EV_MONSTER:
        if state[S_SECTOR] == 1 and state[S_PHASE] == 0 and hearts > params[P_REROLL_HEARTS]:
            s += 0.5  # the Palace wants kills
        else:
            s -= params[P_FOE_AVOID] * low * 2.0
    if effect & EV_CHEST:
        s += 1.0
    if effect & EV_EXTRA:
        s += 0.5
    return s


@njit(cache=CACHE, _nrt=False)
def _reroll_choice(state, options, n, params):
    """Keep the die, or spend a clover when the face is bad enough (Melyra: set the best face)."""
    keep = face_score(state, options[0, 2], options[0, 3], params)
    best = 0
    best_gain = 0.0
    for i in range(1, n):
        if options[i, 0] == 2:
            g = face_score(state, options[i, 2], options[i, 3], params) - keep
            need = params[P_SET_MIN]
        else:  # a blind reroll: worth it when this face is bad enough
            g = -keep
            need = params[P_REROLL_MIN]
        if g >= need and g > best_gain:
            best_gain = g
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
        b = _best_track(state, options, n, np.int64(0), np.int64(1))
        return b if b >= 0 else 0
    if kind == D_MARKET:
        for i in range(n):  # cornucopias first: they do not grow in value
            if options[i, 0] == M_REDEEM and _best_track(state, options, n, np.int64(1), np.int64(0)) == i:
                return i
        b = _best_track(state, options, n, np.int64(1), np.int64(0))
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
    if kind == D_ROUND or kind == D_KR_AREA:  # (the Kraken's next area: the same option columns)
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
    if kind == D_REROLL:
        return _reroll_choice(state, options, n, params)
    if kind == D_FURY:  # the Slaughter: Fury boxes instead of a loss
        loss = state[S_FURY_LOSS]
        if state[S_FURY_TRACK] == HEARTS:
            return 1 if state[HEARTS] - loss <= params[P_FURY_HEARTS] else 0
        return 1 if state[S_FURY_BOXES] - state[S_FURY_USED] - loss > params[P_FURY_RESERVE] else 0
    if kind == D_SANTA_CANE:  # Santa Crash'n Foury: distract the Grinch / the Yeti with a candy cane
        return 1 if state[HEARTS] <= params[P_CANE_HEARTS] else 0
    if kind == D_SANTA_HOME:  # Santa Crash'n Foury: turn for the Safe Zone (options: [action, goal met, full])
        dist = state[S_SANTA_SAFE_DIST]
        if dist < 0:
            return 0
        if options[0, 1] == 1 and params[P_GOAL_HOME] >= 1.0:
            return 1
        return 1 if state[S_SANTA_LEFT] <= dist + params[P_HOME_MARGIN] else 0
    if kind == D_KR_MARKET:
        low = state[HEARTS] <= params[P_FLEE_HEARTS] + 1
        return 1 if state[S_KR_RATE] >= params[P_KRAKEN_MARKET_AT] or low else 0
    if kind == D_DUEL:  # the 2-player mode: face the other player when clearly stronger and there is loot or a kill
        opp = S_P2_OPP_TRACK
        mine = state[HEARTS] + state[WEAPON] + state[SHIELD]
        theirs = state[opp + HEARTS] + state[opp + WEAPON] + state[opp + SHIELD]
        worth = state[opp + CHEST] > 0 or state[opp + HEARTS] <= 2
        return 1 if worth and mine >= theirs + 2 and state[HEARTS] > params[P_FLEE_HEARTS] + 1 else 0
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
