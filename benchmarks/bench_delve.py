"""Delve throughput: games/s (a game = 3 delves) with all threads and with 1, the un-jitted speed,
and cold and cached start-up.

    python benchmarks/bench_delve.py [--games N] [--policy threshold] [--hero none] [--skip-cold]

Median of 5 timed runs after a warm-up; the un-jitted figure comes from a subprocess with
NUMBA_DISABLE_JIT=1 on fewer games. Per-core figures are also given per CPU second (process time),
which other processes on a shared machine disturb less than wall-clock time; the speed-up per core
compares CPU seconds. Writes benchmarks/results/delve.json (another policy than threshold: delve_POLICY.json).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba
from record import write_result
from startup import startup_times

from foury_sim.games import delve as D
from foury_sim.policy import make_policy

OUT = Path(__file__).parent / "results" / "delve.json"


def games_per_s(hero: str, policy: str, games: int, repeats: int = 5) -> tuple[float, float]:
    """Median games per wall-clock second, and per CPU second of the whole process."""
    rs = D.load_ruleset()
    pol = make_policy(policy, D.POLICIES)
    D.simulate(rs, hero, pol, 0, 0, min(games, 2000))  # warm-up (compile or cache load, clear table)
    wall, cpu = [], []
    for i in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        D.simulate(rs, hero, pol, i + 1, 0, games)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return games / statistics.median(wall), games / statistics.median(cpu)


def unjitted(hero: str, policy: str, games: int) -> float:
    code = (
        f"import time; from foury_sim.games import delve as D; from foury_sim.policy import make_policy;"
        f"rs = D.load_ruleset(); p = make_policy({policy!r}, D.POLICIES);"
        f"D.simulate(rs, {hero!r}, p, 0, 0, 2); t = time.process_time();"
        f"D.simulate(rs, {hero!r}, p, 1, 0, {games}); print({games} / (time.process_time() - t))"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--nojit-games", type=int, default=300)
    ap.add_argument("--policy", default="threshold")
    ap.add_argument("--hero", default="none")
    ap.add_argument("--skip-cold", action="store_true", help="skip the cold-compile start-up (slow)")
    args = ap.parse_args()
    threads = numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(threads)
        all_threads, _ = games_per_s(args.hero, args.policy, args.games)
        numba.set_num_threads(1)
        one, one_cpu = games_per_s(args.hero, args.policy, args.games // 2)
    finally:
        numba.set_num_threads(before)
    slow = unjitted(args.hero, args.policy, args.nojit_games)
    res = {
        "game": "delve",
        "hero": args.hero,
        "policy": args.policy,
        "games": args.games,
        "threads": threads,
        "games_per_s_all_threads": round(all_threads),
        "games_per_s_1_thread": round(one),
        "games_per_cpu_s_1_thread": round(one_cpu),
        "games_per_cpu_s_unjitted": round(slow, 1),
        "speedup_per_core": round(one_cpu / slow, 1),
        "thread_scaling": round(all_threads / one, 2),
        "load_average": os.getloadavg()[0],
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus",
        "numba": numba.__version__,
    }
    if not args.skip_cold:
        cmd = ["run", "delve", "--games", "1000", "--threads", "1", "--policy", args.policy, "--hero", args.hero]
        cold, cached = startup_times(cmd)
        res["startup_cold_s"] = round(cold, 2)
        res["startup_cached_s"] = round(statistics.median(cached), 2)
    out = OUT if args.policy == "threshold" else OUT.with_name(f"delve_{args.policy}.json")
    write_result(out, res)
    print(f"{'measure':<32}{'value':>14}")
    for k in (
        "games_per_s_all_threads",
        "games_per_s_1_thread",
        "games_per_cpu_s_1_thread",
        "games_per_cpu_s_unjitted",
        "speedup_per_core",
        "thread_scaling",
        "load_average",
        "startup_cold_s",
        "startup_cached_s",
    ):
        if k in res:
            print(f"{k:<32}{res[k]:>14}")
    print(f"written {out}")


if __name__ == "__main__":
    main()
