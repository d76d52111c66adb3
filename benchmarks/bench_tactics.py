"""Tactics throughput: games/s on the crypt level, player policy x DM policy (``thorough`` vs ``by_the_book``
by default), with all threads and with 1, the un-jitted speed, and cold and cached start-up.

    python benchmarks/bench_tactics.py [--games N] [--policy thorough] [--dm by_the_book] [--level crypt]
                                       [--skip-cold]

Median of 5 timed runs after a warm-up; the un-jitted figure comes from a subprocess with NUMBA_DISABLE_JIT=1
on fewer games. Per-core figures are also given per CPU second (process time), which other processes on a
shared machine disturb less than wall-clock time; the speed-up per core compares CPU seconds. Two figures say
why threads scale as they do, and hold under load: ``cpu_per_game_all_vs_1`` (CPU seconds a game takes with all
threads over those on 1 thread: above 1 when threads contend or spin) and ``nrt_allocations_per_game`` (numba's
allocator, which takes a lock, per game on all threads: the kernel allocates its scratch per chunk of games, so
this should stay well below 1; counted with ``NUMBA_NRT_STATS``, set here). Floors (issue 14):
at least 20,000 games/s with all threads and at least 100x the un-jitted speed per core. Writes
benchmarks/results/tactics.json.

Import-safe: the game is looked up through the registry only when the benchmark runs, so this file imports (and
``--help`` works) before the Tactics engine is registered; until then running it says so in one line.
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
from typing import Any

from record import write_result

os.environ.setdefault("NUMBA_NRT_STATS", "1")  # numba's allocation counts (read before numba is imported)

OUT = Path(__file__).parent / "results" / "tactics.json"
GAME = "tactics"


def _spec() -> Any:
    from foury_sim.errors import InputError
    from foury_sim.registry import get_game

    try:
        return get_game(GAME)
    except InputError as e:
        raise SystemExit(f"bench_tactics: the {GAME} engine is not registered in this tree yet ({e})") from None


def _setup(level: str, policy: str, dm: str) -> tuple[Any, Any, Any]:
    from foury_sim.policy import make_policy

    spec = _spec()
    rs = spec.load_ruleset(None, None, level, dm=dm)
    return spec, rs, make_policy(policy, spec.policies)


def games_per_s(level: str, policy: str, dm: str, games: int, repeats: int = 5) -> tuple[float, float]:
    """Median games per wall-clock second, and per CPU second of the whole process."""
    spec, rs, pol = _setup(level, policy, dm)
    hero = spec.default_hero
    spec.simulate(rs, hero, pol, 0, 0, min(games, 2000))  # warm-up (compile or cache load)
    wall, cpu = [], []
    for i in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        spec.simulate(rs, hero, pol, i + 1, 0, games)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return games / statistics.median(wall), games / statistics.median(cpu)


def allocations_per_game(level: str, policy: str, dm: str, games: int) -> float:
    """numba's allocations (NRT) per game in one call of ``games`` games (on the threads set now)."""
    from numba.core.runtime import rtsys

    spec, rs, pol = _setup(level, policy, dm)
    spec.simulate(rs, spec.default_hero, pol, 0, 0, 2)  # warm-up
    before = rtsys.get_allocation_stats().alloc
    spec.simulate(rs, spec.default_hero, pol, 9, 0, games)
    return (rtsys.get_allocation_stats().alloc - before) / games


def unjitted(level: str, policy: str, dm: str, games: int) -> float:
    code = (
        "import time, sys; sys.path.insert(0, 'benchmarks'); import bench_tactics as B;"
        f"spec, rs, p = B._setup({level!r}, {policy!r}, {dm!r}); h = spec.default_hero;"
        "spec.simulate(rs, h, p, 0, 0, 2); t = time.process_time();"
        f"spec.simulate(rs, h, p, 1, 0, {games}); print({games} / (time.process_time() - t))"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    root = Path(__file__).resolve().parent.parent
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=root)
    return float(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--nojit-games", type=int, default=100)
    ap.add_argument("--policy", default="thorough")
    ap.add_argument("--dm", default="by_the_book")
    ap.add_argument("--level", default="crypt")
    ap.add_argument("--skip-cold", action="store_true", help="skip the cold-compile start-up (slow)")
    args = ap.parse_args()
    import numba

    _spec()  # one line and exit 1 if the engine is not there yet
    threads = numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(threads)
        all_threads, all_cpu = games_per_s(args.level, args.policy, args.dm, args.games)
        allocs = allocations_per_game(args.level, args.policy, args.dm, args.games)
        numba.set_num_threads(1)
        one, one_cpu = games_per_s(args.level, args.policy, args.dm, args.games // 2)
    finally:
        numba.set_num_threads(before)
    slow = unjitted(args.level, args.policy, args.dm, args.nojit_games)
    res = {
        "game": GAME,
        "level": args.level,
        "policy": args.policy,
        "dm": args.dm,
        "games": args.games,
        "threads": threads,
        "games_per_s_all_threads": round(all_threads),
        "games_per_s_1_thread": round(one),
        "games_per_cpu_s_1_thread": round(one_cpu),
        "games_per_cpu_s_unjitted": round(slow, 1),
        "speedup_per_core": round(one_cpu / slow, 1),
        "thread_scaling": round(all_threads / one, 2),
        "cpu_per_game_all_vs_1": round(one_cpu / all_cpu, 3),
        "nrt_allocations_per_game": round(allocs, 4),
        "floor_all_threads_20000": all_threads >= 20_000,
        "floor_speedup_100x": one_cpu / slow >= 100,
        "load_average": os.getloadavg()[0],
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus",
        "numba": numba.__version__,
    }
    if not args.skip_cold:
        from startup import startup_times

        cmd = ["run", GAME, "--games", "1000", "--threads", "1", "--policy", args.policy, "--map", args.level,
               "--dm", args.dm]
        cold, cached = startup_times(cmd)
        res["startup_cold_s"] = round(cold, 2)
        res["startup_cached_s"] = round(statistics.median(cached), 2)
    write_result(OUT, res)
    print(f"{'measure':<32}{'value':>14}")
    for k, v in res.items():
        if k.startswith(("games_per", "speedup", "thread_scaling", "cpu_per", "nrt", "floor", "load_average",
                         "startup")):
            print(f"{k:<32}{v!s:>14}")
    print(f"written {OUT}")


if __name__ == "__main__":
    main()
