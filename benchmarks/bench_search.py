"""Search policy throughput: games/s per budget (rollouts per option) for every game, at 1 and 2 threads.

    python benchmarks/bench_search.py [--budgets 1,4,16,64] [--threads 1,2] [--seconds 4] [--repeats 3]
                                      [--game foury --game delve] [--kinds foury=0 ...]

For each (game, budget, threads): a warm-up (compile or cache load), then ``--repeats`` timed runs of as many
games as take about ``--seconds`` (sized from the warm-up); the median games per wall-clock second. The base
policy alone is timed the same way (budget 0 in the table). Also the estimated time of a 1,000-game run.
Writes benchmarks/results/search.json and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

import numba
from record import write_result

from foury_sim.policy import make_policy
from foury_sim.registry import get_game
from foury_sim.runner import numba_threads

OUT = Path(__file__).parent / "results" / "search.json"


def _rate(spec, rs, hero, pol, games: int, repeats: int) -> float:
    wall = []
    for i in range(repeats):
        t = time.perf_counter()
        spec.simulate(rs, hero, pol, i + 1, 0, games)
        wall.append(time.perf_counter() - t)
    return games / statistics.median(wall)


def measure(game: str, budget: int, threads: int, seconds: float, repeats: int, kinds: int) -> dict:
    spec = get_game(game)
    rs = spec.load_ruleset(None, None, None)
    hero = spec.heroes(rs)[0]
    base = spec.policies["search"].params["base"]
    base_name = next(n for n, p in spec.policies.items() if p.policy_id == int(base) and n != "search")
    pol = (make_policy(base_name, spec.policies) if budget == 0
           else make_policy("search", spec.policies, f"rollouts={budget},kinds={kinds}"))
    with numba_threads(threads):
        probe = max(2 * threads, 2)
        t = time.perf_counter()
        spec.simulate(rs, hero, pol, 0, 0, probe)  # warm-up: compile or cache load
        t = time.perf_counter()
        spec.simulate(rs, hero, pol, 0, 0, probe)
        per_game = (time.perf_counter() - t) / probe
        games = int(max(probe, min(200_000, seconds / max(per_game, 1e-9))))
        rate = _rate(spec, rs, hero, pol, games, repeats)
    return {"game": game, "hero": hero, "policy": pol.describe(), "budget": budget, "threads": threads,
            "games": games, "games_per_s": rate, "seconds_per_1000_games": 1000 / rate}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", help="game to time (repeatable; default: foury and delve)")
    ap.add_argument("--budgets", default="1,4,16,64", help="rollouts per option to time (default 1,4,16,64)")
    ap.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    ap.add_argument("--seconds", type=float, default=4.0, help="about how long each timed run takes (default 4)")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per cell, median taken (default 3)")
    ap.add_argument("--kinds", action="append", default=[], help="GAME=MASK: decision kinds searched (default 0: all)")
    a = ap.parse_args()
    games = a.game or ["foury", "delve"]
    kinds = {k: int(v) for k, v in (s.split("=") for s in a.kinds)}
    budgets = [0] + [int(b) for b in a.budgets.split(",")]
    threads = [int(t) for t in a.threads.split(",")]
    rows = []
    print("| game | policy | threads | games/s | 1,000 games |")
    print("|---|---|---:|---:|---:|")
    for g in games:
        for b in budgets:
            for th in threads:
                r = measure(g, b, th, a.seconds, a.repeats, kinds.get(g, 0))
                rows.append(r)
                label = r["policy"].split("(")[0] if b == 0 else f"search, {b} rollouts"
                print(f"| {g} | {label} | {th} | {r['games_per_s']:,.1f} | {r['seconds_per_1000_games']:,.0f} s |",
                      flush=True)
    write_result(OUT, {"machine": platform.platform(), "cpus": numba.config.NUMBA_NUM_THREADS, "rows": rows},
                 indent=1)


if __name__ == "__main__":
    main()
