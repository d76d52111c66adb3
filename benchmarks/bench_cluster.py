"""Dask overhead: the same games locally with N numba threads and on a LocalCluster of N worker processes with one
thread each (``--cluster local:N``), same seed, same numbers (checked).

Run:  python benchmarks/bench_cluster.py [--games 400000] [--workers 2] [--repeats 7] [--game foury] [--keep-rows]
By default no run keeps its per-game rows, as ``foury-sim run --cluster`` plays; ``--keep-rows`` measures the
library's ``run(...).df`` instead, whose rows travel back from the workers (``cluster_rows.json``,
``cluster_GAME_rows.json``).
Both sides are warm (kernels loaded, the cluster's workers warmed up by a first run that is not timed). Each repeat is
a pair on one seed, local then cluster or cluster then local in turn (this machine's speed drifts by 20 % and more
within minutes); the overhead is the median of the pairs' ratios of wall time, minus 1 (the ratio of the medians is
printed beside it); games per CPU-second count the CPU time of
this process and of the workers (the scheduler and nannies, which take almost none, are left out). The load
average is printed beside every figure: on a loaded machine the wall times say little, the CPU-seconds more.
Writes benchmarks/results/cluster.json (Dungeon Foury) or cluster_GAME.json.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
from pathlib import Path

from record import write_result

HERE = Path(__file__).resolve().parent


def cpu_self() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _worker_cpu() -> float:
    import time as t

    return t.process_time()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=400_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--game", default="foury")
    ap.add_argument("--keep-rows", action="store_true",
                    help="keep every game's row (the library's run(...).df; the rows travel back from the workers); "
                         "default: none, as `foury-sim run --cluster` plays")
    a = ap.parse_args()
    from foury_sim import cluster
    from foury_sim.runner import run

    untimed = ("elapsed_s", "games_per_s", "compile_s", "load_s")
    run(a.game, games=2000, threads=a.workers, progress=False)  # load the compiled kernel here
    ex = cluster.dask_executor(f"local:{a.workers}")
    run(a.game, games=2000, progress=False, executor=ex)  # the workers' warm-up and kernels
    local, remote, local_cpu, remote_cpu, loads = [], [], [], [], []

    def play_local(r):
        c0, t0 = cpu_self(), time.perf_counter()
        out = run(a.game, games=a.games, seed=r, threads=a.workers, progress=False, keep_rows=a.keep_rows)
        local.append(time.perf_counter() - t0)
        local_cpu.append(cpu_self() - c0)
        return out

    def play_cluster(r):
        w0 = sum(ex.client.run(_worker_cpu).values())
        c0, t0 = cpu_self(), time.perf_counter()
        out = run(a.game, games=a.games, seed=r, progress=False, executor=ex, keep_rows=a.keep_rows)
        remote.append(time.perf_counter() - t0)
        remote_cpu.append(cpu_self() - c0 + sum(ex.client.run(_worker_cpu).values()) - w0)
        return out

    for r in range(a.repeats):  # pairs on the same seed, the order alternating (this machine's speed drifts)
        if r % 2 == 0:
            here, there = play_local(r), play_cluster(r)
        else:
            there, here = play_cluster(r), play_local(r)
        loads.append(os.getloadavg()[0])
        same = {k: v for k, v in here.summary.items() if k not in untimed} == \
            {k: v for k, v in there.summary.items() if k not in untimed}
        assert same, "the cluster gave other numbers"
    pairs = [c / h for c, h in zip(remote, local)]
    res = {"game": a.game, "games": a.games, "workers": a.workers, "repeats": a.repeats, "keep_rows": a.keep_rows,
           "local_s": statistics.median(local), "cluster_s": statistics.median(remote),
           "local_cpu_s": statistics.median(local_cpu), "cluster_cpu_s": statistics.median(remote_cpu),
           "runs_local_s": local, "runs_cluster_s": remote, "load_average_1min": loads,
           "task_games": ex.last["task_games"], "tasks": ex.last["tasks"],
           "worker_rate_games_per_s": ex.last["rate"], "cpu_count": os.cpu_count()}
    res["pair_ratios_wall"] = pairs
    res["overhead_wall"] = statistics.median(pairs) - 1  # the median of the pairs' ratios
    res["overhead_wall_of_medians"] = res["cluster_s"] / res["local_s"] - 1
    res["overhead_cpu"] = res["cluster_cpu_s"] / res["local_cpu_s"] - 1
    res["local_games_per_cpu_s"] = a.games / res["local_cpu_s"]
    res["cluster_games_per_cpu_s"] = a.games / res["cluster_cpu_s"]
    name = "cluster.json" if a.game == "foury" else f"cluster_{a.game}.json"  # one file per game measured
    name = name.replace(".json", "_rows.json") if a.keep_rows else name
    write_result(HERE / "results" / name, res)
    load = statistics.median(loads)
    print(f"{a.games:,} {a.game} games, {a.workers} threads locally vs a LocalCluster of {a.workers} worker "
          f"processes x 1 thread ({res['tasks']} tasks of {res['task_games']:,} games; {a.repeats} pairs; "
          f"load average {load:.1f} on {os.cpu_count()} cores; "
          f"{'per-game rows kept' if a.keep_rows else 'no per-game rows kept, as the command'})")
    print(f"  local:   {res['local_s']:.2f} s, {a.games / res['local_s']:,.0f} games/s, "
          f"{res['local_games_per_cpu_s']:,.0f} games per CPU-second")
    print(f"  cluster: {res['cluster_s']:.2f} s, {a.games / res['cluster_s']:,.0f} games/s, "
          f"{res['cluster_games_per_cpu_s']:,.0f} games per CPU-second")
    print(f"  overhead: {100 * res['overhead_wall']:+.1f} % wall (median of {a.repeats} pairs' ratios, "
          f"{100 * (min(pairs) - 1):+.1f} to {100 * (max(pairs) - 1):+.1f} %; of the medians "
          f"{100 * res['overhead_wall_of_medians']:+.1f} %), {100 * res['overhead_cpu']:+.1f} % CPU (target under 5 %)")
    cluster.close_clients()


if __name__ == "__main__":
    main()
