"""The allocation solver against a brute force over every way of using the dice.

Every party of up to 4 dice against every set of up to 4 monsters, with and without a dragon to
beat afterwards, for every distinct hero specialty: the solver must find a way whenever one exists,
and the way it finds must be legal."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest
from numba import njit

from foury_sim.games import delve as D
from foury_sim.games.delve import api as A
from foury_sim.games.delve.ruleset import R_DRAGON_TYPES, R_HERO
from foury_sim.games.delve.solver import W_CNT, W_COLS, W_EXTRA, W_MASK, W_MON, W_ROWS, W_SWEEP, best_fight

# The rules text: which monster type each companion defeats all of (else: one monster of any type).
SWEEPS = {A.FIGHTER: {0}, A.CLERIC: {1}, A.MAGE: {2}, A.THIEF: set(), A.CHAMPION: {0, 1, 2}}


def brute(masks: tuple[int, ...], mon: tuple[int, int, int], need: int, extra: tuple[int, ...]) -> bool:
    """Can dice with these role masks defeat ``mon`` and keep ``need`` different types for a dragon?"""

    @cache
    def solve(dice: tuple[int, ...], mon: tuple[int, int, int]) -> bool:
        if sum(mon) == 0:
            return dragon_ok(dice, need)
        for i in sorted(set(range(len(dice))), key=lambda i: dice[i]):
            rest = dice[:i] + dice[i + 1 :]
            for r in range(A.N_ROLES):
                if not (dice[i] >> r) & 1:
                    continue
                outcomes = set()
                for t in range(3):
                    if mon[t] == 0:
                        continue
                    left = list(mon)
                    left[t] = 0 if t in SWEEPS[r] else left[t] - 1
                    outcomes.add(tuple(left))
                for left in outcomes:
                    for more in itertools.product(range(extra[r] + 1), repeat=3):
                        if sum(more) <= extra[r] and all(m <= x for m, x in zip(more, left)):
                            after = tuple(x - m for x, m in zip(left, more))
                            if solve(tuple(sorted(rest)), after):
                                return True
        return False

    return solve(tuple(sorted(masks)), mon)


def dragon_ok(dice: tuple[int, ...], need: int) -> bool:
    if need <= 0:
        return True
    for chosen in itertools.combinations(dice, need):
        for roles in itertools.product(*[[r for r in range(A.N_ROLES) if (m >> r) & 1] for m in chosen]):
            if len(set(roles)) == need:
                return True
    return False


@njit
def solve_all(parties, mons, masks, extra, sweep, need, out, used):
    opts = np.zeros((2, A.N_OCOLS), dtype=np.int64)
    w = np.zeros((W_ROWS, W_COLS), dtype=np.int64)
    for i in range(parties.shape[0]):
        for j in range(mons.shape[0]):
            w[:, :] = 0
            for f in range(A.N_FACES):
                w[W_CNT, f] = parties[i, f]
                w[W_MASK, f] = masks[f]
            for r in range(A.N_ROLES):
                w[W_EXTRA, r] = extra[r]
                w[W_SWEEP, r] = sweep[r]
            for t in range(3):
                w[W_MON, t] = mons[j, t]
            c, ok = best_fight(w, need, opts, 0)
            out[i, j] = -1 if c < 0 else ok
            for f in range(A.N_FACES):
                used[i, j, f] = opts[0, A.O_USE + f] if c >= 0 else 0


def configs():
    """Each distinct (face masks, extra kills, dragon types) among the heroes' sides."""
    rs = D.load_ruleset()
    seen = {}
    for hero in D.heroes(rs):
        rules = rs.with_hero(hero)
        for side in range(2):
            h = R_HERO + side * A.H_COLS
            masks = tuple(int(x) for x in rules[h + A.H_ACT : h + A.H_ACT + A.N_FACES])
            extra = tuple(int(x) for x in rules[h + A.H_EXTRA : h + A.H_EXTRA + A.N_ROLES])
            need = int(rules[h + A.H_DRAGON_TYPES]) or int(rules[R_DRAGON_TYPES])
            seen.setdefault((masks, extra, need), f"{hero}/{('novice', 'master')[side]}")
    return [pytest.param(k, id=v) for k, v in seen.items()]


def multisets(size: int, kinds: int) -> list[tuple[int, ...]]:
    out = []
    for n in range(size + 1):
        for combo in itertools.combinations_with_replacement(range(kinds), n):
            out.append(tuple(combo.count(k) for k in range(kinds)))
    return out


@pytest.mark.parametrize("config", configs())
def test_solver_finds_a_way_whenever_one_exists(config):
    masks, extra, need_types = config
    parties = np.array(multisets(4, A.N_FACES), dtype=np.int64)
    mons = np.array(multisets(4, 3), dtype=np.int64)
    sweep = np.array([sum(1 << t for t in SWEEPS[r]) for r in range(A.N_ROLES)], dtype=np.int64)
    for need in (0, need_types):
        out = np.zeros((len(parties), len(mons)), dtype=np.int64)
        used = np.zeros((len(parties), len(mons), A.N_FACES), dtype=np.int64)
        solve_all(
            parties, mons, np.array(masks, dtype=np.int64), np.array(extra, dtype=np.int64), sweep, need, out, used
        )
        for i, p in enumerate(parties):
            dice = tuple(m for f, m in enumerate(masks) for _ in range(p[f]))
            for j, mon in enumerate(mons):
                mon_t = tuple(int(x) for x in mon)
                can_fight = brute(dice, mon_t, 0, extra)
                can_all = brute(dice, mon_t, need, extra)
                got = out[i, j]
                assert (got >= 0) == can_fight, (p, mon_t, need)
                assert (got == 1) == can_all, (p, mon_t, need)
                if got >= 0:  # the allocation found is legal: its dice defeat the monsters ...
                    u = used[i, j]
                    assert np.all(u <= p)
                    spent = tuple(m for f, m in enumerate(masks) for _ in range(u[f]))
                    assert brute(spent, mon_t, 0, extra)
                    if got == 1:  # ... and what is left beats the dragon
                        left = tuple(m for f, m in enumerate(masks) for _ in range(p[f] - u[f]))
                        assert dragon_ok(left, need)
