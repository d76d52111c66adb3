"""Built-in Tactics policies, with the same inputs as a user's ``decide(kind, state, options, n, params)``.

They read the kernel's advice columns (``O_GOAL``, ``O_LOOT``, ``O_VALUE``; ``layout``).

The adventurer (``D_ACTION``):

* ``random``: a uniformly random legal option (drawn in the kernel from the game's own dice stream).
* ``rush`` (heal_below, fight_adjacent, equip): eat or drink when HP <= heal_below; wield a weapon / wear an
  armour found while bare (equip = 1); then the option that brings the player closest to the goal (the exit, or
  the key that opens the way), moves before interactions before attacks, so it fights only a monster that
  stands in the way (or any awake neighbour with fight_adjacent = 1); with nothing to gain, rest if allowed,
  else end the turn.
* ``thorough`` (heal_below, loot, hunt, gamble): heal as rush; equip anything better than what is worn; attack the
  weakest monster within reach (awake ones, or sleeping ones too with hunt = 1); loot every thing on the way
  (loot = 1: walk to the nearest crate, chest, sarcophagus, shrine or key and open it); then as rush.

Both adventurers, inside a rule: the Shrine of Freedom (``D_FREEDOM``) opens the door nearest the player (grid
steps through walls; ties: the first in reading order); the Gambler's Die (``D_GAMBLE``) rerolls the first loot
chance that gives nothing, and with thorough's gamble = 1 the first roll of any kind that is not worth keeping (a
trap or a monster, the food category, a duplicate or an item over its stack).

The Dungeon Master (``D_SPAWN_KIND``, ``D_SPAWN_AT``, ``D_DM_ACT``):

* ``by_the_book``: random choices within the rolled category and among free spawn points (drawn in the
  kernel); monsters act in slot order, each attacking when adjacent, shooting when in range, else stepping
  along its bee-line (option 0 of the menu).
* ``ruthless`` (spawn_near, focus): spawns the strongest kind (HP x dice) at the spawn point nearest the player
  (spawn_near = 1; 0: farthest); attacks first with the monster rolling most dice (focus = 1), then shots,
  revivals, then the step that ends nearest the player.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...config import CACHE
from . import layout as A

RUSH_PARAMS = {"heal_below": 4.0, "fight_adjacent": 0.0, "equip": 1.0}
THOROUGH_PARAMS = {"heal_below": 5.0, "loot": 1.0, "hunt": 0.0, "gamble": 0.0}
BY_THE_BOOK_PARAMS: dict[str, float] = {}
RUTHLESS_PARAMS = {"spawn_near": 1.0, "focus": 1.0}


@njit(cache=CACHE, inline="always", _nrt=False)
def _find(opts, n, action):
    for i in range(n):
        if opts[i, A.O_ACTION] == action:
            return i
    return -1


@njit(cache=CACHE, _nrt=False)
def _heal(state, opts, n, below):
    """The healing item that restores the most HP (health potion before food on a tie), -1 if none or HP is
    above ``below``."""
    if state[A.S_HP] > below:
        return -1
    best = -1
    for i in range(n):
        if opts[i, A.O_ACTION] == A.A_USE and (opts[i, A.O_ARG] == A.U_HEALTH or opts[i, A.O_ARG] == A.U_FOOD):
            if opts[i, A.O_VALUE] > 0 and (best < 0 or opts[i, A.O_VALUE] > opts[best, A.O_VALUE]):
                best = i
    return best


@njit(cache=CACHE, _nrt=False)
def _progress(state, opts, n):
    """The option nearest the goal, strictly nearer than the player now (moves first, then interactions, then
    attacks); -1 if none."""
    here = state[A.S_GOAL]
    best = -1
    best_key = 0
    for i in range(n):
        act = opts[i, A.O_ACTION]
        if act != A.A_MOVE and act != A.A_INTERACT and act != A.A_ATTACK and not (
                act == A.A_USE and opts[i, A.O_ARG] == A.U_TELEPORT):
            continue
        g = opts[i, A.O_GOAL]
        if g < 0 or (here >= 0 and g >= here):
            continue
        rank = 0 if act == A.A_MOVE else (1 if act == A.A_INTERACT else (2 if act == A.A_ATTACK else 3))
        if act == A.A_ATTACK and opts[i, A.O_CELL] == -1:
            continue
        key = g * 4 + rank
        if best < 0 or key < best_key:
            best = i
            best_key = key
    return best


@njit(cache=CACHE, _nrt=False)
def _attack(state, opts, n, awake_only, adjacent_only):
    """The attack on the monster with the fewest HP (awake ones only with ``awake_only``), -1 if none."""
    best = -1
    for i in range(n):
        if opts[i, A.O_ACTION] != A.A_ATTACK:
            continue
        m = opts[i, A.O_MON]
        if awake_only and state[A.S_MON + m * A.MC + A.MF_STATE] != A.MS_AWAKE:
            continue
        if adjacent_only:
            cols = state[A.S_COLS]
            a = state[A.S_CELL]
            b = opts[i, A.O_CELL]
            if abs(a // cols - b // cols) + abs(a % cols - b % cols) != 1:
                continue
        if best < 0 or opts[i, A.O_VALUE] < opts[best, A.O_VALUE]:
            best = i
    return best


@njit(cache=CACHE, _nrt=False)
def _equip(opts, n, only_when_bare):
    for i in range(n):
        if opts[i, A.O_ACTION] == A.A_EQUIP:
            if only_when_bare:
                if opts[i, A.O_GOAL] == 0 and opts[i, A.O_VALUE] > 0:
                    return i
            elif opts[i, A.O_VALUE] > opts[i, A.O_GOAL]:
                return i
    return -1


@njit(cache=CACHE, _nrt=False)
def _finish(opts, n):
    """Nothing to gain this turn: rest if allowed, else end the turn."""
    i = _find(opts, n, A.A_REST)
    return i if i >= 0 else max(_find(opts, n, A.A_END), 0)


@njit(cache=CACHE, _nrt=False)
def rush(state, opts, n, params):
    i = _heal(state, opts, n, params[0])
    if i >= 0:
        return i
    if params[2] > 0:
        i = _equip(opts, n, np.bool_(True))
        if i >= 0:
            return i
    if params[1] > 0:
        i = _attack(state, opts, n, np.bool_(True), np.bool_(True))
        if i >= 0:
            return i
    i = _progress(state, opts, n)
    if i >= 0:
        return i
    i = _attack(state, opts, n, np.bool_(True), np.bool_(True))  # cornered: fight back rather than stand still
    if i >= 0:
        return i
    return _finish(opts, n)


@njit(cache=CACHE, _nrt=False)
def thorough(state, opts, n, params):
    i = _heal(state, opts, n, params[0])
    if i >= 0:
        return i
    i = _equip(opts, n, np.bool_(False))
    if i >= 0:
        return i
    i = _attack(state, opts, n, params[2] <= 0, np.bool_(False))
    if i >= 0:
        return i
    if params[1] > 0:
        for j in range(n):
            if opts[j, A.O_ACTION] == A.A_INTERACT and opts[j, A.O_LOOT] == 0 and opts[j, A.O_ARG] != A.X_DOOR:
                return j
        here = state[A.S_LOOT_DIST]
        best = -1
        for j in range(n):  # the step nearer the loot: a move, else a door to open or a monster in the way
            act = opts[j, A.O_ACTION]
            if act == A.A_MOVE or act == A.A_INTERACT or act == A.A_ATTACK:
                d = opts[j, A.O_LOOT]
                if d >= 0 and (here < 0 or d < here) and (best < 0 or d < opts[best, A.O_LOOT]):
                    best = j
        if best >= 0:
            return best
    i = _progress(state, opts, n)
    if i >= 0:
        return i
    return _finish(opts, n)


@njit(cache=CACHE, _nrt=False)
def ruthless(kind, state, opts, n, params):
    if kind == A.D_SPAWN_KIND:
        best = 0
        for i in range(1, n):
            if opts[i, A.O_VALUE] > opts[best, A.O_VALUE]:
                best = i
        return best
    if kind == A.D_SPAWN_AT:
        best = 0
        near = params[0] > 0
        for i in range(1, n):
            v = opts[i, A.O_VALUE]
            if (near and v < opts[best, A.O_VALUE]) or (not near and v > opts[best, A.O_VALUE]):
                best = i
        return best
    best = -1
    best_key = 0
    for i in range(n):
        act = opts[i, A.O_ACTION]
        if act == A.A_DM_END:
            continue
        if act == A.A_M_ATTACK:
            key = 0 - (opts[i, A.O_VALUE] if params[1] > 0 else 0)
        elif act == A.A_M_SHOOT:
            key = 100 - opts[i, A.O_VALUE]
        elif act == A.A_M_REVIVE:
            key = 200
        else:
            key = 300 + opts[i, A.O_GOAL]
        if best < 0 or key < best_key:
            best = i
            best_key = key
    return best if best >= 0 else n - 1


@njit(cache=CACHE, _nrt=False)
def freedom_door(opts, n):
    """``D_FREEDOM``: the door nearest the player (``O_VALUE``; ties: the first row, in reading order)."""
    best = 0
    for i in range(1, n):
        if opts[i, A.O_VALUE] < opts[best, A.O_VALUE]:
            best = i
    return best


@njit(cache=CACHE, _nrt=False)
def gamble_choice(opts, picky):
    """``D_GAMBLE`` (row 0 keep, row 1 reroll): reroll a loot chance that gave nothing; with ``picky`` any roll
    not worth keeping."""
    worth = opts[0, A.O_GOAL]
    if worth == A.GB_NOTHING and opts[0, A.O_ARG] == A.GB_CHANCE:
        return 1
    return 1 if picky > 0 and worth != A.GB_GOOD else 0


@njit(cache=CACHE, _nrt=False)
def builtin_decide(pid, kind, state, opts, n, params):
    """The adventurer's rush and thorough, the DM's by_the_book (menu order) and ruthless."""
    if kind == A.D_FREEDOM:
        return freedom_door(opts, n)
    if kind == A.D_GAMBLE:
        return gamble_choice(opts, params[3] if pid == A.P_THOROUGH else 0.0)
    if pid == A.P_RUSH:
        return rush(state, opts, n, params)
    if pid == A.P_THOROUGH:
        return thorough(state, opts, n, params)
    if pid == A.P_RUTHLESS:
        return ruthless(kind, state, opts, n, params)
    return 0
