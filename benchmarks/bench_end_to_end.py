"""Delve end to end, and the memory of a streamed run.

    python benchmarks/bench_end_to_end.py [--games 2000000] [--repeats 3]      # kernel vs the command
    python benchmarks/bench_end_to_end.py --memory [--small 200000] [--large 20000000]
    python benchmarks/bench_end_to_end.py --memory --verb compare [--small 200000] [--large 20000000]
    python benchmarks/bench_end_to_end.py --memory --game foury [--small 200000] [--large 2000000]

End to end: the kernel alone (``simulate`` of ``--games`` games in one call) against the command a user types,
``foury-sim run delve --games N --format json`` in a fresh process (wall and CPU seconds of the whole process:
start-up, cache load, kernel calls, summary, JSON), in ``--repeats`` alternating pairs (the ratio taken within each
pair, the median of the pairs reported: the machine's speed drifts from one minute to the next), and the run's own
``games_per_s`` (its summary: the games over the time after the engine was loaded). Memory: the peak resident
set of the same command at ``--small`` and ``--large`` games (each in its own process) and their ratio (issue 17:
within 1.5x). ``--verb compare``: the same for ``foury-sim compare delve --a hero=none --b hero=spellsword --games N
--format json`` (both variants: twice the games; the figures go under ``compare`` in memory.json, the run's stay).
``--game G`` (with ``--memory``): ``foury-sim run G`` instead of Delve (the figures go under ``run_G``).
Every figure is printed with games per CPU second and the load average (the machine may be shared).
``--bytecode``: the command with Python's default of keeping each module's compiled bytecode (``__pycache__``;
``PYTHONDONTWRITEBYTECODE`` unset, one run first to write it), as on a machine that does not set it; without it the
command inherits this environment (the project's machine sets ``PYTHONDONTWRITEBYTECODE=1``, so every start
compiles foury-sim's modules from source, about 0.3 s; each result says which).
Writes benchmarks/results/end_to_end.json (or memory.json).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from record import write_result

OUT = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parents[1]


def kernel(games: int, repeats: int) -> dict:
    from foury_sim.policy import make_policy
    from foury_sim.registry import get_game

    spec = get_game("delve")
    rs = spec.load_ruleset(None, None, None)
    pol = make_policy(spec.default_policy, spec.policies)
    spec.simulate(rs, spec.default_hero, pol, 0, 0, 2000)  # compile or load, outside the timing
    wall, cpu = [], []
    for i in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        spec.simulate(rs, spec.default_hero, pol, i + 1, 0, games)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    w, c = statistics.median(wall), statistics.median(cpu)
    return {"wall_s": round(w, 3), "cpu_s": round(c, 3), "games_per_s": round(games / w),
            "games_per_cpu_s": round(games / c), "load_avg": os.getloadavg()[0]}


CHILD = ("import json, resource, subprocess, sys, time\n"
         "t = time.perf_counter()\n"
         "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
         "wall = time.perf_counter() - t\n"
         "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
         "print(json.dumps({'rc': r.returncode, 'wall_s': wall, 'cpu_s': u.ru_utime + u.ru_stime, "
         "'max_rss_kb': u.ru_maxrss, 'stdout': r.stdout, 'stderr': r.stderr[-2000:]}))\n")


#: The comparison whose memory ``--verb compare`` measures (two heroes of Delve on the same dice).
COMPARE = ["compare", "delve", "--a", "hero=none", "--b", "hero=spellsword"]


def command(games: int, verb: str = "run", game: str = "delve", bytecode: bool = False) -> dict:
    """``foury-sim run GAME --games N --format json`` (or the ``COMPARE`` comparison) in a fresh process: wall,
    CPU, peak RSS, its summary. ``bytecode``: with ``PYTHONDONTWRITEBYTECODE`` unset (Python's default)."""
    args = ["run", game] if verb == "run" else COMPARE
    cmd = [sys.executable, "-m", "foury_sim", *args, "--games", str(games), "--format", "json"]
    env = {k: v for k, v in os.environ.items() if not (bytecode and k == "PYTHONDONTWRITEBYTECODE")}
    load = os.getloadavg()[0]
    r = json.loads(subprocess.run([sys.executable, "-c", CHILD, *cmd], capture_output=True, text=True,
                                  check=True, cwd=ROOT, env=env).stdout)
    if r["rc"] != 0:
        raise SystemExit(f"the command failed: {r['stderr']}")
    s = json.loads(r["stdout"])
    if verb != "run":  # a comparison plays every game under both variants
        return {"games": games, "games_played": 2 * games, "wall_s": round(r["wall_s"], 3),
                "cpu_s": round(r["cpu_s"], 3), "games_per_s": round(2 * games / r["wall_s"]),
                "games_per_cpu_s": round(2 * games / r["cpu_s"]), "peak_rss_mb": round(r["max_rss_kb"] / 1024, 1),
                "win_diff": s["win"]["diff"], "load_avg": round((load + os.getloadavg()[0]) / 2, 2)}
    return {"games": games, "wall_s": round(r["wall_s"], 3), "cpu_s": round(r["cpu_s"], 3),
            "games_per_s": round(games / r["wall_s"]), "games_per_cpu_s": round(games / r["cpu_s"]),
            "run_games_per_s": s["games_per_s"], "run_elapsed_s": s["elapsed_s"], "load_s": s["load_s"],
            "compile_s": s["compile_s"], "peak_rss_mb": round(r["max_rss_kb"] / 1024, 1),
            "load_avg": round((load + os.getloadavg()[0]) / 2, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--memory", action="store_true", help="measure the memory of a small and a large run")
    ap.add_argument("--small", type=int, default=200_000)
    ap.add_argument("--large", type=int, default=20_000_000)
    ap.add_argument("--verb", choices=("run", "compare"), default="run", help="with --memory: the command measured")
    ap.add_argument("--game", default="delve", help="with --memory --verb run: the game run (default delve)")
    ap.add_argument("--bytecode", action="store_true",
                    help="the command keeps Python's compiled bytecode (PYTHONDONTWRITEBYTECODE unset)")
    a = ap.parse_args()
    meta = {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M"),
            "bytecode_kept": a.bytecode or not os.environ.get("PYTHONDONTWRITEBYTECODE")}
    if a.memory and a.verb == "compare":
        small, large = command(a.small, "compare"), command(a.large, "compare")
        path = OUT / "memory.json"
        res = json.loads(path.read_text()) if path.is_file() else {}
        res["compare"] = {**meta, "command": " ".join(["foury-sim", *COMPARE, "--games N --format json"]),
                          "small": small, "large": large,
                          "rss_ratio": round(large["peak_rss_mb"] / small["peak_rss_mb"], 3)}
        print(f"compare peak RSS: {a.small:,} games {small['peak_rss_mb']} MB, {a.large:,} games "
              f"{large['peak_rss_mb']} MB (ratio {res['compare']['rss_ratio']}); the large one "
              f"{large['games_per_s']:,} games/s wall, load {large['load_avg']}")
    elif a.memory and a.game != "delve":
        small, large = command(a.small, "run", a.game), command(a.large, "run", a.game)
        path = OUT / "memory.json"
        res = json.loads(path.read_text()) if path.is_file() else {}
        res[f"run_{a.game}"] = {**meta, "command": f"foury-sim run {a.game} --games N --format json",
                                "small": small, "large": large,
                                "rss_ratio": round(large["peak_rss_mb"] / small["peak_rss_mb"], 3)}
        print(f"{a.game} peak RSS: {a.small:,} games {small['peak_rss_mb']} MB, {a.large:,} games "
              f"{large['peak_rss_mb']} MB (ratio {res[f'run_{a.game}']['rss_ratio']}); the large run "
              f"{large['games_per_s']:,} games/s wall, load {large['load_avg']}")
    elif a.memory:
        small, large = command(a.small), command(a.large)
        path = OUT / "memory.json"
        kept = json.loads(path.read_text()) if path.is_file() else {}
        res = {**meta, "small": small, "large": large,
               "rss_ratio": round(large["peak_rss_mb"] / small["peak_rss_mb"], 3),
               **{k: v for k, v in kept.items() if k == "compare" or k.startswith("run_")}}  # the others' stay
        print(f"peak RSS: {a.small:,} games {small['peak_rss_mb']} MB, {a.large:,} games {large['peak_rss_mb']} MB "
              f"(ratio {res['rss_ratio']}); the large run {large['games_per_s']:,} games/s wall, "
              f"{large['games_per_cpu_s']:,} per CPU-s, load {large['load_avg']}")
    else:
        # Alternating pairs (the kernel, then the command, ``--repeats`` times): this machine's speed drifts by 20 %
        # from one minute to the next, so a ratio is taken within each pair and the median of the pairs reported.
        pairs = []
        if a.bytecode:
            command(1, bytecode=True)  # (writes the bytecode the timed runs read)
        for i in range(a.repeats):
            k = kernel(a.games, 1)
            c = command(a.games, bytecode=a.bytecode)
            pairs.append({"kernel": k, "command": c, "wall_ratio": round(c["wall_s"] / k["wall_s"], 3),
                          "cpu_ratio": round(c["cpu_s"] / k["cpu_s"], 3)})
            print(f"pair {i + 1}: kernel {k['wall_s']:.2f} s ({k['games_per_s']:,} games/s), command "
                  f"{c['wall_s']:.2f} s (the run itself {c['run_elapsed_s']:.2f} s): {pairs[-1]['wall_ratio']}x wall, "
                  f"{pairs[-1]['cpu_ratio']}x CPU, load {c['load_avg']}", flush=True)
        k = min((p["kernel"] for p in pairs), key=lambda x: x["wall_s"])
        c = min((p["command"] for p in pairs), key=lambda x: x["wall_s"])
        res = {**meta, "games": a.games, "pairs": pairs, "kernel_fastest": k, "command_fastest": c,
               "command_over_kernel_wall": round(statistics.median(p["wall_ratio"] for p in pairs), 3),
               "command_over_kernel_cpu": round(statistics.median(p["cpu_ratio"] for p in pairs), 3),
               "fastest_over_fastest_wall": round(c["wall_s"] / k["wall_s"], 3)}
        path = OUT / "end_to_end.json"
        print(f"kernel (fastest of {a.repeats}):  {k['games_per_s']:,} games/s ({k['games_per_cpu_s']:,} per CPU-s)")
        print(f"command (fastest of {a.repeats}): {c['games_per_s']:,} games/s ({c['games_per_cpu_s']:,} per CPU-s) "
              f"for the whole process, the run itself {c['run_games_per_s']:,} games/s")
        print(f"command / kernel, median of {a.repeats} pairs: {res['command_over_kernel_wall']}x wall, "
              f"{res['command_over_kernel_cpu']}x CPU (fastest / fastest: {res['fastest_over_fastest_wall']}x wall)")
    write_result(path, res)


if __name__ == "__main__":
    main()
