"""A test-only stand-in for the engine's decision dispatcher (``policies.decide``) and ``Dice`` tuple, so that the
fight tests run on this branch alone. STUB (replaced at merge): once the engine lands, the tests may call its
``decide``; this one stays a test helper."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from foury_sim import rng
from foury_sim.games.rooms import combat as C
from foury_sim.games.rooms import layout as L

#: A scripted player: answers[i] is the O_ACTION wanted at the i-th decision asked (the first option if absent).
P_SCRIPT = 99
ST_SIZE = 160
N_OPT_ROWS = 64


class Dice(NamedTuple):
    rs: np.ndarray
    script: np.ndarray
    trace: np.ndarray


class Pol(NamedTuple):
    pid: int
    params: np.ndarray
    fx: C.Fight
    answers: np.ndarray  # int64: O_ACTION wanted, in the order the decisions are asked (P_SCRIPT)
    asked: np.ndarray  # int64[k, 2]: (kind, n options) of each decision asked
    pos: np.ndarray  # int64[2]: decisions asked, scripted answers not found among the options


@njit
def decide(kind, st, opts, n, pol, dice):  # STUB (replaced at merge)
    i = pol.pos[0]
    if i < pol.asked.shape[0]:
        pol.asked[i, 0] = kind
        pol.asked[i, 1] = n
    pol.pos[0] = i + 1
    if pol.pid == P_SCRIPT:
        if i < pol.answers.shape[0]:
            for j in range(n):
                if opts[j, L.O_ACTION] == pol.answers[i]:
                    return j
            pol.pos[1] += 1
        return 0
    if pol.pid == L.P_RANDOM:
        return rng.roll(dice.rs, dice.script, n) - 1
    return C.builtin_fight(pol.pid, kind, st, opts, n, pol.params, pol.fx)


def make_pol(fx, pid=P_SCRIPT, answers=(), params=None):
    from foury_sim.games.rooms.dice import GREEDY_PARAMS

    p = np.array(list(GREEDY_PARAMS.values())) if params is None else np.asarray(params, dtype=np.float64)
    return Pol(pid, p, fx, np.array(answers, dtype=np.int64), np.zeros((400, 2), dtype=np.int64),
               np.zeros(2, dtype=np.int64))


def run_fight(fx, mons, script=(), answers=(), pid=P_SCRIPT, seed=1, game=0, st=None, trace_rows=300):
    """One fight; returns (result, st, pol, dice)."""
    if st is None:
        st = np.zeros(ST_SIZE, dtype=np.int64)
        C.hero_start(fx, st)
    dice = Dice(rng.stream(seed, game), np.array(script, dtype=np.int64),
                np.zeros((max(trace_rows, 1), 8), dtype=np.int64))
    pol = make_pol(fx, pid, answers)
    opts = np.zeros((N_OPT_ROWS, 2), dtype=np.int64)
    mons = np.array(mons, dtype=np.int64)
    res = C.fight(fx, st, mons, len(mons), opts, dice, pol, decide)
    return res, st, pol, dice


def events(dice, st, code=None):
    rows = dice.trace[1: 1 + st[L.S_NTRACE]]
    return [tuple(int(x) for x in r) for r in rows if code is None or r[0] == code]
