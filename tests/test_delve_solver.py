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
from foury_sim.games.delve import kernel as E
from foury_sim.games.delve import layout as A
from foury_sim.games.delve import solver as S
from foury_sim.games.delve.ruleset import R_DRAGON_TYPES, R_HERO
from foury_sim.games.delve.solver import W_CNT, W_EXTRA, W_LIVE, W_MASK, W_MON, W_SWEEP, best_fight, new_scratch
from foury_sim.policy import make_policy

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


SCRATCH = E.SCRATCH  # a global, as in the kernel: numba passes it as the constant it is (Literal[int](64))


@njit
def solve_all(parties, mons, masks, extra, sweep, need, out, used):
    """``best_fight`` for every party and monster set, as the engine calls it (its options array, the fight
    computed in the spare row ``SCRATCH``): the same argument types, so ``best_fight`` and what it calls load from
    the kernel cache ``foury-sim warm delve`` wrote instead of compiling again for row 0 (a literal argument)."""
    opts = np.zeros((A.MAX_OPTIONS + 1, A.N_OCOLS), dtype=np.int64)
    w = new_scratch()
    for i in range(parties.shape[0]):
        for j in range(mons.shape[0]):
            w[:W_LIVE, :] = 0  # keep the live-unit lists
            for f in range(A.N_FACES):
                w[W_CNT, f] = parties[i, f]
                w[W_MASK, f] = masks[f]
            for r in range(A.N_ROLES):
                w[W_EXTRA, r] = extra[r]
                w[W_SWEEP, r] = sweep[r]
            for t in range(3):
                w[W_MON, t] = mons[j, t]
            c, ok = best_fight(w, need, opts, SCRATCH)
            out[i, j] = -1 if c < 0 else ok
            for f in range(A.N_FACES):
                used[i, j, f] = opts[SCRATCH, A.O_USE + f] if c >= 0 else 0


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


# --- the shortcuts give the plans of the full search -----------------------------------------------

UNIT_COST = [int(c) for c in S.UNIT_COST]


def _cheapest_plan_cost(avail: dict[int, int], masks: dict[int, int], kills: int, need: int) -> int:
    """Brute force: the least cost(dragon set) + cost(single kills, cheapest first) over every set of
    ``need`` units of different types (-1 if none), every unit killing one."""
    best = -1
    units = [u for u in avail if avail[u] > 0]
    for roles in itertools.combinations(range(A.N_ROLES), need):
        for pick in itertools.product(*[[u for u in units if (masks[u] >> r) & 1] for r in roles]):
            left = dict(avail)
            ok = True
            for u in pick:
                left[u] -= 1
                ok &= left[u] >= 0
            if not ok:
                continue
            pool = sorted(UNIT_COST[u] for u in left for _ in range(left[u]))
            if len(pool) < kills:
                continue
            c = sum(UNIT_COST[u] for u in pick) + sum(pool[:kills])
            best = c if best < 0 else min(best, c)
    return best


@njit
def _kbd(w, kills, need):
    na = S._active(w)
    for i in range(na):
        u = w[S.W_ACT, i]
        w[S.W_AVAIL, u] = w[S.W_CNT, u]
    return S._kills_beside_dragon(w, kills, need, np.int64(-1), na)  # the engine's types: loaded from its cache


def _random_units(rng: np.random.Generator, w: np.ndarray) -> tuple[dict[int, int], dict[int, int]]:
    w[: S.W_LIVE, :] = 0  # keep the live-unit lists
    units = rng.choice(A.N_UNITS, size=rng.integers(2, 8), replace=False)
    avail, masks = {}, {}
    for u in units:
        avail[int(u)] = int(rng.integers(1, 3))
        masks[int(u)] = int(rng.integers(1, 1 << A.N_ROLES)) if rng.random() < 0.3 else 1 << int(rng.integers(5))
        w[S.W_CNT, u] = avail[int(u)]
        w[S.W_MASK, u] = masks[int(u)]
    return avail, masks


def test_pruned_dragon_search_finds_the_cheapest_plan():
    """The dragon-set search skips branches by lower bounds and stops at the cheapest possible
    cost; its plan costs what the brute force's cheapest does."""
    rng = np.random.default_rng(3)
    w = S.new_scratch()
    for _ in range(400):
        avail, masks = _random_units(rng, w)
        kills, need = int(rng.integers(0, 5)), int(rng.integers(1, 4))
        assert _kbd(w, kills, need) == _cheapest_plan_cost(avail, masks, kills, need), (avail, masks, kills, need)


@njit
def _best_row(w, need, opts, cap):
    opts[:, :] = 0
    n = S.fight_rows(w, need, opts, 0, cap)
    return n


def test_single_plan_shortcuts_match_the_full_menu():
    """With one row asked (built-in policies) the solver takes shortcuts (one-pass costing without
    a dragon to keep, no dragon search when the types are missing, bounds between sweeper choices);
    the row is the first row of the full menu, column for column."""
    rng = np.random.default_rng(5)
    w = S.new_scratch()
    one = np.zeros((2, A.N_OCOLS), dtype=np.int64)
    full = np.zeros((A.MAX_OPTIONS, A.N_OCOLS), dtype=np.int64)
    sweep = [sum(1 << t for t in SWEEPS[r]) for r in range(A.N_ROLES)]
    checked = 0
    for _ in range(600):
        _random_units(rng, w)
        for r in range(A.N_ROLES):
            w[S.W_SWEEP, r] = sweep[r]
        for t in range(3):
            w[S.W_MON, t] = rng.integers(0, 4)
        need = int(rng.choice([0, 0, 2, 3]))
        w1 = w.copy()
        n1 = _best_row(w1, need, one, 1)
        n2 = _best_row(w.copy(), need, full, A.MAX_OPTIONS // 2)
        assert (n1 == 0) == (n2 == 0)
        if n1:
            assert one[0].tolist() == full[0].tolist()
            checked += 1
    assert checked > 300


@njit
def _dragon_checks(w, need, out):
    """out[0]: dragon_can; out[1 + u]: a set left once one unit u is spent (dragon_left)."""
    cnt = w[S.W_CNT].copy()
    out[0] = 1 if S.dragon_can(w, need) else 0
    w[S.W_CNT, :] = cnt
    na, base = S.dragon_setup(w, need)
    for u in range(A.N_UNITS):
        out[1 + u] = 1 if S.dragon_left(w, need, na, base, u) else 0


def test_yes_no_dragon_checks_match_brute_force():
    """The O_OK advice of loot and revive options: whether a dragon set exists, and whether one is
    left after spending one unit (the first set found is reused when it does not need that unit)."""
    rng = np.random.default_rng(11)
    w = S.new_scratch()
    out = np.zeros(1 + A.N_UNITS, dtype=np.int64)
    for _ in range(400):
        avail, masks = _random_units(rng, w)
        need = int(rng.integers(1, 4))
        _dragon_checks(w, need, out)
        dice = tuple(masks[u] for u in avail for _ in range(avail[u]))
        assert out[0] == dragon_ok(dice, need)
        for u in avail:
            left = dict(avail)
            left[u] -= 1
            dice = tuple(masks[v] for v in left for _ in range(left[v]))
            assert out[1 + u] == dragon_ok(dice, need), (avail, masks, need, u)


COMPANION_TOKENS = ("vorpal_sword", "talisman", "scepter_of_power", "thieves_tools")


@pytest.mark.parametrize(
    "hero, extra",
    [
        ("none", set()),
        ("spellsword", {A.U_HERO}),  # novice ultimate: the hero acts as a companion
        ("crusader", {A.U_HERO}),
        ("half_goblin", {A.U_TEMP + A.THIEF}),  # transforms goblins into temporary thieves
        ("occultist", {A.U_TEMP + A.FIGHTER}),  # transforms skeletons into temporary fighters
        ("enchantress", set()),  # transforms monsters into potions: no temporaries
    ],
)
def test_solver_loops_over_the_units_a_hero_can_hold(hero, extra):
    """The solver's loops skip units that can never be held (``kernel.init_scratch``): the live
    lists hold the party dice, the companion tokens and what the hero's powers add, in unit order
    and in cost order."""
    rs = D.load_ruleset()
    w = E.scratch(rs.with_hero(hero))
    tokens = {A.U_TOKEN + rs.treasure_names.index(name) for name in COMPANION_TOKENS}
    expect = set(range(A.N_FACES)) | tokens | extra
    assert w[S.W_LIVE_ID, : w[S.W_LIVE_ID, S.LIVE_N]].tolist() == sorted(expect)
    assert w[S.W_LIVE, : w[S.W_LIVE, S.LIVE_N]].tolist() == [u for u in S.UNIT_ORDER.tolist() if u in expect]


@pytest.mark.parametrize(
    "hero, unit",
    [("occultist", "temporary fighter"), ("half_goblin", "temporary thief"), ("spellsword", "the hero")],
)
def test_units_added_by_powers_are_spent_in_games(hero, unit):
    """Temporary companions and a hero companion take part in fights in real games (they are in the
    live lists, so the solver sees them)."""
    rs = D.load_ruleset()
    pol = make_policy("threshold", D.POLICIES)
    spent = [line for g in range(20) for line in D.play_one(rs, hero, pol, 0, g)[1]
             if line.strip().startswith(("spends 1 " + unit, "spends " + unit))]
    assert spent
