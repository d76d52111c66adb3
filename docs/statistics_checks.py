"""Recompute the measured numbers quoted in docs/statistics.md (numpy/scipy only, no game simulation).

Run from the repository root:  python docs/statistics_checks.py [--quick]
Takes a few minutes (--quick: fewer repeats, rougher numbers).
"""

from __future__ import annotations

import sys

import numpy as np

from foury_sim import stats

QUICK = "--quick" in sys.argv


def wilson_coverage_table() -> None:
    print("## Exact coverage of the 95 % Wilson interval (sum over the binomial)")
    mults = (0.05, 0.1, 0.15, 0.17, 0.5, 1, 2, 5)
    print("| n | " + " | ".join(f"p = {m:g}/n" for m in mults) + " | minimum over p in (0, 5/n] |")
    print("|---:|" + "---:|" * (len(mults) + 1))
    for n in (20, 100, 1000, 40000):
        cov = [stats.wilson_coverage(m / n, n) for m in mults]
        grid = np.linspace(0.001 / n, 5.0 / n, 2000)
        allc = np.array([stats.wilson_coverage(p, n) for p in grid])
        k = int(allc.argmin())
        print(f"| {n:,} | " + " | ".join(f"{c:.3f}" for c in cov)
              + f" | {allc[k]:.3f} at p = {grid[k] * n:.3f}/n |")


def sequential_bias() -> None:
    print("\n## Optional-stopping bias of precision targets (relative bias of the final rate)")
    reps = 8000 if QUICK else 30000
    ps = (0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2, 0.3, 0.5)
    print("| width | batch | " + " | ".join(f"p = {p:g}" for p in ps) + " |")
    print("|---:|---:|" + "---:|" * len(ps))
    for w, b in ((0.02, 100), (0.02, 1000), (0.02, None), (0.05, None), (0.1, None), (0.01, None)):
        t = stats.PrecisionTarget(width=w, max_games=400_000, batch=b)
        row = []
        for p in ps:
            r = stats.simulate_precision_stopping(p, t, reps=reps, seed=int(p * 1e4) + 3)
            row.append(f"{100 * r['rel_bias']:+.2f} %")
        print(f"| {w:g} | {t.batch:,}{'' if b else ' (min)'} | " + " | ".join(row) + " |")
    print("\ncoverage of the final 95 % interval (width 0.02, minimum batch):")
    t = stats.PrecisionTarget(width=0.02, max_games=400_000)
    for p in (0.01, 0.03, 0.3):
        r = stats.simulate_precision_stopping(p, t, reps=reps, seed=11)
        print(f"  p = {p}: coverage {r['coverage']:.3f}, mean games {r['mean_games']:,.0f}")


def _shared(rng: np.random.Generator, cells: int, games: int, p: float, share: float = 0.7) -> np.ndarray:
    u = rng.random(games)
    return np.array([np.where(rng.random(games) < share, u, rng.random(games)) < p for _ in range(cells)],
                    dtype=np.int8)


def pooled_coverage() -> None:
    print("\n## Pooled intervals over cells that share dice (6 cells x 2000 games, p = 0.3, 70 % shared luck)")
    rng = np.random.default_rng(1)
    runs = 300 if QUICK else 2000
    hit = {"naive Wilson on summed games": 0, "per game index (pooled_rate_ci)": 0,
           "bound (pooled_rate_ci_bound)": 0}
    for _ in range(runs):
        w = _shared(rng, 6, 2000, 0.3)
        lo, hi = stats.wilson(int(w.sum()), w.size)
        hit["naive Wilson on summed games"] += lo <= 0.3 <= hi
        r = stats.pooled_rate_ci(w)
        hit["per game index (pooled_rate_ci)"] += r["lo"] <= 0.3 <= r["hi"]
        r = stats.pooled_rate_ci_bound(w.sum(axis=1), np.full(6, 2000))
        hit["bound (pooled_rate_ci_bound)"] += r["lo"] <= 0.3 <= r["hi"]
    for k, v in hit.items():
        print(f"  {k}: coverage {v / runs:.3f} (nominal 0.95)")


def null_sweeps() -> None:
    print("\n## Null sweeps: 50 identical cells x 1000 games, share of repeats claiming a difference")
    runs = 60 if QUICK else 200
    for share in (0.0, 0.7):
        rng = np.random.default_rng(7)
        old = paired = bound = 0
        for _ in range(runs):
            w = _shared(rng, 50, 1000, 0.3, share)
            k = w.sum(axis=1)
            lo, hi = stats.wilson_arrays(k, np.full(50, 1000))
            e, h = int(k.argmax()), int(k.argmin())
            old += bool(lo[e] > hi[h])  # the old rule: easiest and hardest 95 % intervals do not overlap
            t = stats.pairwise_rate_tests(w)
            paired += bool((stats.adjust_pvalues(t["p"], "holm") < 0.05).any()
                           or (stats.adjust_pvalues(t["p"], "fdr_bh") < 0.05).any())
            t = stats.pairwise_rate_tests(k=k, n=np.full(50, 1000))
            bound += bool((stats.adjust_pvalues(t["p"], "holm") < 0.05).any()
                          or (stats.adjust_pvalues(t["p"], "fdr_bh") < 0.05).any())
        print(f" shared luck {share:.0%}:")
        print(f"  old rule (non-overlapping intervals of easiest and hardest): {old / runs:.1%}")
        print(f"  paired McNemar, Holm or BH at 5 %: {paired / runs:.1%}")
        print(f"  correlation-free bound test, Holm or BH at 5 %: {bound / runs:.1%}")
    print(f"  six independent outcomes each tested at 5 %, no adjustment: {1 - 0.95 ** 6:.1%} (compare before)")


def ratio_coverage() -> None:
    """The coverage quoted under "Ratios of sums" (the same draws as tests/test_stats.py)."""
    print("\n## Delta-method interval of a ratio of sums over games (100 games of 1-6 fights, a game-wide bonus)")
    rng = np.random.default_rng(3)
    reps = 500 if QUICK else 2000
    cover = 0
    for _ in range(reps):
        fights = rng.integers(1, 7, 100)
        bonus = rng.integers(0, 4, 100)
        damage = np.array([int(rng.integers(1, 7, f).sum()) + int(b) * int(f) for f, b in zip(fights, bonus)])
        _, lo, hi = stats.ratio_ci(damage, fights)
        cover += lo <= 5.0 <= hi
    print(f"  coverage of the 95 % interval of damage / fights (true 5.0), {reps} runs: {cover / reps:.1%}")


if __name__ == "__main__":
    ratio_coverage()
    wilson_coverage_table()
    pooled_coverage()
    null_sweeps()
    sequential_bias()
