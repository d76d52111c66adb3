"""Rooms throughput: games/s on the shipped dungeon with ``optimal_reroll`` (fights by the exact reroll table), with
all threads and with 1, the un-jitted speed per core, and cold and cached start-up.

    python benchmarks/bench_rooms.py [--games N] [--policy optimal_reroll] [--hero ranger] [--dungeon NAME]
                                     [--skip-cold] [--write]

Median of 5 timed runs after a warm-up; the un-jitted figure comes from a subprocess with NUMBA_DISABLE_JIT=1 on
fewer games. Per-core figures are also given per CPU second (process time), which other processes on a shared
machine disturb less than wall-clock time; the speed-up per core compares CPU seconds. Start-up runs
``python -m foury_sim run rooms`` (this tree's code) with an empty kernel cache (cold: compiles) and then with it
filled (cached; median of 5). Prints the figures; writes benchmarks/results/rooms.json only with ``--write``.
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
from startup import startup_times

OUT = Path(__file__).parent / "results" / "rooms.json"
ROOT = Path(__file__).resolve().parent.parent
GAME = "rooms"


def _setup(dungeon: str | None, policy: str) -> tuple[Any, Any, Any]:
    from foury_sim.policy import make_policy
    from foury_sim.registry import get_game

    spec = get_game(GAME)
    rs = spec.load_ruleset(None, None, dungeon)
    return spec, rs, make_policy(policy, spec.policies)


def games_per_s(dungeon: str | None, policy: str, hero: str, games: int, repeats: int = 5) -> tuple[float, float]:
    """Median games per wall-clock second, and per CPU second of the whole process."""
    spec, rs, pol = _setup(dungeon, policy)
    spec.simulate(rs, hero, pol, 0, 0, min(games, 2000))  # warm-up (compile or cache load, the fight tables)
    wall, cpu = [], []
    for i in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        spec.simulate(rs, hero, pol, i + 1, 0, games)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return games / statistics.median(wall), games / statistics.median(cpu)


def unjitted(dungeon: str | None, policy: str, hero: str, games: int) -> float:
    """Games per CPU second of the same code with numba off (a subprocess)."""
    code = (
        "import time, sys; sys.path.insert(0, 'benchmarks'); import bench_rooms as B;"
        f"spec, rs, p = B._setup({dungeon!r}, {policy!r}); h = {hero!r};"
        "spec.simulate(rs, h, p, 0, 0, 2); t = time.process_time();"
        f"spec.simulate(rs, h, p, 1, 0, {games}); print({games} / (time.process_time() - t))"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    return float(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--nojit-games", type=int, default=20)
    ap.add_argument("--policy", default="optimal_reroll")
    ap.add_argument("--hero", default="ranger")
    ap.add_argument("--dungeon", default=None, help="a dungeon of data/dungeons (default: the ruleset's)")
    ap.add_argument("--skip-cold", action="store_true", help="skip the start-up times (the cold one compiles)")
    ap.add_argument("--write", action="store_true", help=f"write {OUT.relative_to(ROOT)}")
    args = ap.parse_args()
    import numba

    threads = numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(threads)
        all_threads, _ = games_per_s(args.dungeon, args.policy, args.hero, args.games)
        numba.set_num_threads(1)
        one, one_cpu = games_per_s(args.dungeon, args.policy, args.hero, args.games // 2)
    finally:
        numba.set_num_threads(before)
    slow = unjitted(args.dungeon, args.policy, args.hero, args.nojit_games)
    res: dict[str, Any] = {
        "game": GAME,
        "dungeon": args.dungeon or "default",
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
        cmd = ["run", GAME, "--games", "1000", "--threads", "1", "--policy", args.policy, "--hero", args.hero]
        if args.dungeon:
            cmd += ["--map", args.dungeon]
        cold, cached = startup_times(cmd)
        res["startup_cold_s"] = round(cold, 2)
        res["startup_cached_s"] = round(statistics.median(cached), 2)
    print(f"{'measure':<32}{'value':>14}")
    for k, v in res.items():
        if k.startswith(("games_per", "speedup", "thread_scaling", "load_average", "startup")):
            print(f"{k:<32}{v!s:>14}")
    if args.write:
        write_result(OUT, res)
        print(f"written {OUT}")


if __name__ == "__main__":
    main()
