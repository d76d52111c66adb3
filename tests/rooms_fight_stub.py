"""Fights outside the engine for the Rooms tests: ``combat.play_fight`` with its scripted player (``ScriptPol``),
which answers from a list where the engine's dispatcher (``policies.decide``) would ask a policy. ``ST_SIZE`` covers
the fight's state slots (1..127); the engine's own state is larger."""

from __future__ import annotations

import numpy as np

from foury_sim import rng
from foury_sim.games.rooms import combat as C
from foury_sim.games.rooms import layout as L

P_SCRIPT = C.P_SCRIPT
ST_SIZE = 160
N_OPT_ROWS = 64


def make_pol(fx, pid=P_SCRIPT, answers=(), params=None):
    from foury_sim.games.rooms.dice import GREEDY_PARAMS

    p = np.array(list(GREEDY_PARAMS.values())) if params is None else np.asarray(params, dtype=np.float64)
    return C.ScriptPol(pid, p, fx, np.array(answers, dtype=np.int64), np.zeros((400, 2), dtype=np.int64),
                       np.zeros(2, dtype=np.int64))


def run_fight(fx, mons, script=(), answers=(), pid=P_SCRIPT, seed=1, game=0, st=None, trace_rows=300):
    """One fight; returns (result, st, pol, dice)."""
    if st is None:
        st = np.zeros(ST_SIZE, dtype=np.int64)
        C.hero_start(fx, st)
    dice = C.FightDice(rng.stream(seed, game), np.array(script, dtype=np.int64),
                       np.zeros((max(trace_rows, 1), 8), dtype=np.int64))
    pol = make_pol(fx, pid, answers)
    opts = np.zeros((N_OPT_ROWS, 2), dtype=np.int64)
    mons = np.array(mons, dtype=np.int64)
    res = C.play_fight(fx, st, mons, len(mons), opts, dice, pol)
    return res, st, pol, dice


def events(dice, st, code=None):
    rows = dice.trace[1: 1 + st[L.S_NTRACE]]
    return [tuple(int(x) for x in r) for r in rows if code is None or r[0] == code]
