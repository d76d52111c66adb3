"""Sweep overhead: a 50-cell sweep against one run of the same total number of games.

Run:  python benchmarks/bench_sweep.py [--games-per-cell 10000] [--repeats 3]
The sweep sweeps the score of a kill over 50 values: every cell builds and validates its own
ruleset and writes its results atomically, while the games played are the same as in the single
run, so the difference is the per-cell overhead. No figures are built (`foury-sim report` is
separate). Writes benchmarks/results/sweep.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from record import write_result

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games-per-cell", type=int, default=10_000)
    ap.add_argument("--cells", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    from foury_sim.runner import run
    from foury_sim.study import run_sweep

    total = a.games_per_cell * a.cells
    run("foury", games=2000, progress=False)  # load the compiled kernel
    singles, sweeps = [], []
    for r in range(a.repeats):
        t = time.perf_counter()
        run("foury", games=total, seed=r, progress=False)
        singles.append(time.perf_counter() - t)
        with tempfile.TemporaryDirectory() as tmp:
            exp = Path(tmp) / "bench.toml"
            exp.write_text(f'name = "bench"\ngame = "foury"\nseed = {r}\ngames = {a.games_per_cell}\n'
                           f'[sweep]\n"score.kill" = {{ range = [0, {a.cells - 1}, 1] }}\n')
            t = time.perf_counter()
            out = run_sweep(exp, Path(tmp) / "results", progress=False, report=False)
            sweeps.append(time.perf_counter() - t)
            assert len(json.loads((out / "manifest.json").read_text())["cells"]) == a.cells
    res = {"cells": a.cells, "games_per_cell": a.games_per_cell, "total_games": total,
           "single_run_s": statistics.median(singles), "sweep_s": statistics.median(sweeps),
           "runs_single_s": singles, "runs_sweep_s": sweeps}
    res["ratio"] = res["sweep_s"] / res["single_run_s"]
    write_result(HERE / "results" / "sweep.json", res)
    print(f"{a.cells}-cell sweep of {a.games_per_cell:,} games each: {res['sweep_s']:.2f} s; one run of {total:,} "
          f"games: {res['single_run_s']:.2f} s; ratio {res['ratio']:.2f} (target <= 1.3; medians of {a.repeats})")


if __name__ == "__main__":
    main()
