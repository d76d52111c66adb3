"""Combat measured with the engine's own ``fight``: the measured half of ``foury-sim odds foury``."""

from __future__ import annotations

import numpy as np
from numba import types

from ...config import CompiledOnFirstUse
from ...policy import POLICY_TYPE, placeholder
from ...rng import seed_stream
from . import icons as I
from .kernel import Board, Dice, Pol, add_icon, fight
from .layout import (
    HEARTS,
    N_OCOL,
    R_SIZE,
    RM_COLS,
    RM_ICON,
    S_BONUS,
    S_CAP,
    STATE_SIZE,
    T_COLS,
    T_EN_BASE,
    T_EN_MULT,
    T_EN_STR,
    T_ROWS,
    TRACE_COLS,
    WEAPON,
)
from .policies import GREEDY, HEURISTIC_PARAMS, POL_GREEDY

FOE = I.FOE_FIRST  # a foe slot with no traits: strength only (T_EN_TRAITS stays 0)

I1 = types.int64[::1]
I2 = types.int64[:, ::1]
_SIG = types.void(I1, I2, types.float64[::1], types.int64, types.int64, types.int64, types.uint64, POLICY_TYPE, I1,
                  I1, I2, I2, I2, types.uint64[::1], types.uint64[::1], I1, I2)


def _trials(R, T, params, weapon, hearts, n, seed, fn, counts, st, geo, rm, opts, rs, ps, script, tr):
    """counts[0..2]: first roll-off won/tied/lost; counts[3]: fights won when fought to the end.

    Arrays come in with the kernel's types so the already compiled ``fight`` is reused.
    """
    board = Board(R, T, geo, np.zeros((0, 3), np.int64))  # one room, no arrows
    dice = Dice(rs, ps, script, tr)
    pol = Pol(POL_GREEDY, params, fn, np.zeros(0, np.int64), rs)  # the search hooks off
    for mode in range(2):
        params[6] = 1e9 if mode == 0 else -1.0  # flee_hearts: flee after one roll-off, or never
        for i in range(n):
            seed_stream(rs, seed + mode, i)
            seed_stream(ps, seed + mode, i)
            for j in range(STATE_SIZE):
                st[j] = 0
            st[HEARTS] = 1000 if mode == 0 else hearts
            st[S_CAP + HEARTS] = 1000
            st[WEAPON] = weapon
            st[S_BONUS] = 0
            add_icon(rm, 0, FOE, 1 - rm[0, RM_ICON + FOE])
            r = fight(board, st, rm, opts, dice, pol, 0, FOE)
            if mode == 0:
                if r == 1:
                    counts[0] += 1
                elif st[HEARTS] == 1000:
                    counts[1] += 1
                else:
                    counts[2] += 1
            elif r == 1:
                counts[3] += 1


#: ``_trials_kernel()``: ``_trials`` compiled on first use (see ``config.CompiledOnFirstUse``).
_trials_kernel = CompiledOnFirstUse(__name__, _SIG, _trials)


def combat_trials(weapon: int, strength: int, hearts: int, n: int, seed: int = 1) -> np.ndarray:
    """Run ``n`` single roll-offs and ``n`` whole fights (no shield, no clover) through ``fight``."""
    R = np.zeros(R_SIZE, np.int64)
    T = np.zeros((T_ROWS, T_COLS), np.int64)
    T[T_EN_BASE, FOE] = strength
    T[T_EN_MULT, FOE] = 0
    T[T_EN_STR, FOE] = strength  # the strength row of every trial (state[S_STR_ROW] = 0)
    params = np.array([GREEDY[k] for k in HEURISTIC_PARAMS], dtype=np.float64)
    params[HEURISTIC_PARAMS.index("weapon_below")] = 6.0
    counts = np.zeros(4, np.int64)
    geo = np.full((1, 6), -1, np.int64)
    geo[0, 4] = 0
    trials = _trials_kernel()
    trials(R, T, params, weapon, hearts, n, np.uint64(seed), placeholder(), counts, np.zeros(STATE_SIZE, np.int64),
           geo, np.zeros((1, RM_COLS), np.int64), np.zeros((16, N_OCOL), np.int64), np.zeros(4, np.uint64),
           np.zeros(4, np.uint64), np.zeros(0, np.int64), np.zeros((1, TRACE_COLS), np.int64))
    return counts

