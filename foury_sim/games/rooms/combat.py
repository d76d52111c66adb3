"""STUB (replaced at merge): the fight side of the Rooms engine, owned by rcombat. It keeps the interface of the
real ``combat.py`` (``Fight``, ``pack_fight``, ``hero_start``, ``fight``, ``builtin_fight``) so that the engine
compiles and runs; its fight is a scripted exchange: each round the hero deals 4 to the first living monster
(5 on a d6 of 6) and each living monster deals (d6 - 1) // 2, until one side is down.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...config import CACHE
from ...rng import d6
from ...tracing import trace_row
from . import layout as L


class Fight(NamedTuple):
    combat: np.ndarray
    hero: np.ndarray
    faces: np.ndarray
    abilities: np.ndarray
    monsters: np.ndarray
    keep: np.ndarray
    value: np.ndarray
    code_index: np.ndarray


def _rules_of(ruleset):
    return getattr(ruleset, "dice_rules", ruleset)


def pack_fight(ruleset, hero: str) -> Fight:  # STUB (replaced at merge)
    rules = _rules_of(ruleset)
    h = rules.heroes[hero]
    mons = np.stack([m.row for m in rules.monsters.values()]).astype(np.int64)
    return Fight(rules.combat.copy(), h.row.copy(), h.faces.copy(), h.abilities.copy(), mons,
                 np.zeros((1, 1, 1), np.int64), np.zeros((1, 1), np.float64), np.zeros(1, np.int64))


@njit(cache=CACHE, _nrt=True)
def hero_start(fx, st):  # STUB (replaced at merge)
    st[L.S_HP] = fx.hero[L.H_HP]
    st[L.S_HP_MAX] = fx.hero[L.H_HP]


@njit(cache=CACHE, _nrt=True)
def fight(fx, st, mons, n_mon, opts, dice, pol, decide):  # STUB (replaced at merge)
    st[L.S_FIGHTS] += 1
    hp = st[100:100 + L.MAX_ROOM_MONSTERS]  # the stub's scratch slots in the fight section
    for i in range(n_mon):
        hp[i] = fx.monsters[mons[i], L.M_HP]
    left = n_mon
    for _ in range(50):
        for i in range(n_mon):
            if hp[i] > 0:
                hit = 5 if d6(dice.rs, dice.script) == 6 else 4
                dealt = min(hit, hp[i])
                hp[i] -= dealt
                st[L.S_DEALT_TOTAL] += dealt
                st[L.S_FIRED + 0] += 1
                if hp[i] <= 0:
                    left -= 1
                break
        if left == 0:
            st[L.S_FIGHTS_WON] += 1
            trace_row(dice.trace, st, L.S_NTRACE, 1, 12, (np.int64(0), st[L.S_HP], np.int64(0), np.int64(0),
                                                         np.int64(0), np.int64(0), np.int64(0)))
            return L.FIGHT_WON
        for i in range(n_mon):
            if hp[i] > 0:
                dmg = (d6(dice.rs, dice.script) - 1) // 2
                st[L.S_HP] -= dmg
                st[L.S_TAKEN_TOTAL] += dmg
        if st[L.S_HP] <= 0:
            trace_row(dice.trace, st, L.S_NTRACE, 1, 13, (np.int64(0), st[L.S_HP], np.int64(0), np.int64(0),
                                                         np.int64(0), np.int64(0), np.int64(0)))
            return L.FIGHT_DIED
    return L.FIGHT_DIED


@njit(cache=CACHE, _nrt=True)
def builtin_fight(pid, kind, st, opts, n, params, fx):  # STUB (replaced at merge)
    return 0
