"""Start-up time of a CLI command: cold (empty kernel cache, so it compiles) and cached; a first run from the
engine's shipped IR against one from source (`first-run`); what a start-up spends before the first game
(`load-split`); the compile trades (`compile`, `speed`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def startup_times(args: list[str], repeats: int = 5) -> tuple[float, list[float]]:
    """Wall seconds of ``foury-sim *args`` (run as ``python -m foury_sim`` from this tree, whatever the installed
    script points at) with a fresh kernel cache, then ``repeats`` times with it filled."""
    tmp = tempfile.mkdtemp(prefix="foury-sim-cache-")
    env = dict(os.environ, FOURY_SIM_CACHE_DIR=tmp, PYTHONPATH=str(ROOT))

    def once() -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "foury_sim", *args], env=env, cwd=ROOT, check=True,
                       capture_output=True)
        return time.perf_counter() - t

    try:
        cold = once()
        return cold, [once() for _ in range(repeats)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --- the compile trades (issue 17 section 3): cold compile CPU and kernel speed, one source tree each ---------
#
#     python benchmarks/startup.py compile TREE [--game delve] [--cache DIR]  # cold compile CPU s of TREE's kernel
#     python benchmarks/startup.py speed TREE CACHE TREE CACHE [--rounds 5] [--game delve]  # games per CPU s, A/B
#     ... speed ... --native K  # arm K (0: the first) compiles its entry points for this CPU, not the shipped code
#
# A TREE is a checkout of foury-sim (e.g. `git archive COMMIT | tar -x -C TREE`); numba keys its cache by the
# source path, so each tree compiles into its own cache directory and the speed runs load what it compiled.
# CPU seconds (not wall) are compared because the machine is shared: other processes stretch the wall time of
# a compile several times, much less its CPU time. The speed is games per CPU second of one thread (process
# time, which the load disturbs less than wall time), the best of 3 runs in a process, one process per tree
# and round, the trees alternated so that both see the same load, in the reverse order every other round (this
# machine gave the second of two processes about 1-1.5 % more whatever it ran: session 56); the ratio of the
# medians is the trade.

SPEED_CODE = """
import importlib, sys, time
import numba
from foury_sim.policy import make_policy
games, policy, game, hero = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
G = importlib.import_module("foury_sim.games." + game).GAME
rs, pol = G.load_ruleset(), make_policy(policy, G.policies)
numba.set_num_threads(1)
G.simulate(rs, hero, pol, 0, 0, 2000)
best = 0.0
for i in range(3):
    c = time.process_time()
    G.simulate(rs, hero, pol, i + 1, 0, games)
    best = max(best, games / (time.process_time() - c))
print(best)
"""

#: The hero and policy each game's speed is measured with (``speed --hero``, ``--policy`` override them): those of
#: the game's own benchmark (``bench_GAME.py``).
SPEED_HERO = {"delve": "none", "foury": "free", "tactics": "adventurer", "rooms": "ranger"}
SPEED_POLICY = {"delve": "threshold", "foury": "greedy", "tactics": "thorough", "rooms": "optimal_reroll"}


def _env(tree: str, cache: str, native: bool = False) -> dict[str, str]:
    path = os.pathsep.join([tree, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]])
    env = dict(os.environ, PYTHONPATH=path, FOURY_SIM_CACHE_DIR=cache)
    if native:  # the entry points compiled for this CPU from the shipped IR, not the shipped machine code
        env["FOURY_SIM_SHIPPED_CODE"] = "0"
    return env


def compile_cost(tree: str, game: str = "delve", cache: str | None = None) -> dict[str, float]:
    """Cold compile of ``game``'s entry points in ``tree`` (into ``cache``, which must be empty, and is kept for
    ``speed``; a temporary one when None): wall s, CPU s of the compiling process, and its peak memory (GB),
    from ``compile_profile.py``'s summary line."""
    import re
    import sys

    tmp = cache is None
    cache = cache or tempfile.mkdtemp(prefix="foury-sim-cold-")
    try:
        res = subprocess.run([sys.executable, str(Path(tree) / "benchmarks" / "compile_profile.py"), game],
                             env=_env(tree, cache), cwd=tree, check=True, capture_output=True, text=True)
    finally:
        if tmp:
            shutil.rmtree(cache, ignore_errors=True)
    m = re.search(r"cold ([\d.]+) s wall, ([\d.]+) CPU s, peak memory ([\d.]+) GB", res.stdout)
    assert m, res.stdout
    return {"wall_s": float(m[1]), "cpu_s": float(m[2]), "peak_gb": float(m[3])}


def speed_ab(trees: list[tuple[str, str]], games: int = 200_000, rounds: int = 5, policy: str | None = None,
             game: str = "delve", hero: str | None = None, native: tuple[int, ...] = ()) -> list[list[float]]:
    """Games per CPU second (1 thread) of each (tree, cache) in turn, ``rounds`` times, the order reversed every
    other round (a process's place in a round moved its speed by 1-1.5 % on this machine): one list per tree (the
    arms in ``native`` with their entry points compiled for this CPU: ``FOURY_SIM_SHIPPED_CODE=0``)."""
    hero = hero or SPEED_HERO[game]
    policy = policy or SPEED_POLICY[game]
    import sys

    out: list[list[float]] = [[] for _ in trees]
    for r in range(rounds):
        for i in range(len(trees)) if r % 2 == 0 else reversed(range(len(trees))):
            tree, cache = trees[i]
            res = subprocess.run([sys.executable, "-c", SPEED_CODE, str(games), policy, game, hero],
                                 env=_env(tree, cache, i in native), cwd=tree, check=True, capture_output=True,
                                 text=True)
            out[i].append(float(res.stdout.split()[-1]))
    return out


# --- a first run: the shipped machine code, the shipped IR, from source (sessions 39 and 45) ---------------------
#
#     python benchmarks/startup.py first-run [--game foury ...] [--rounds 2] [--write]
#
# ``foury-sim run GAME --format json`` in a fresh process and an empty cache, as a designer's first run after an
# install: with the shipped machine code (the default), from the shipped IR (``FOURY_SIM_SHIPPED_CODE=0``) and from
# source (``FOURY_SIM_SHIPPED_IR=0``), alternated round by round; each run's ``before_first_game_s`` (the wall
# seconds before the first game is played: issue 17's 30 s; its ``compile_s`` and ``load_s``, the run's own split:
# until session 49 the sum was recorded as ``compile_s``), the whole command's wall and CPU seconds and its peak
# memory. ``--write``: benchmarks/results/first_run.json.

#: What a first run starts from, and the settings that choose it.
FIRST_RUN_FROM = {"shipped code": {}, "shipped IR": {"FOURY_SIM_SHIPPED_CODE": "0"},
                  "source": {"FOURY_SIM_SHIPPED_IR": "0"}}


def first_run(game: str, start: str) -> dict:
    """One first run of ``game`` in an empty cache, from ``start`` (a key of ``FIRST_RUN_FROM``)."""
    import json

    with tempfile.TemporaryDirectory(prefix="foury-sim-cache-") as cache, tempfile.TemporaryFile("w+") as out:
        env = {k: v for k, v in os.environ.items() if k not in ("FOURY_SIM_SHIPPED_IR", "FOURY_SIM_SHIPPED_CODE")}
        env.update(FOURY_SIM_CACHE_DIR=cache, PYTHONPATH=str(ROOT), **FIRST_RUN_FROM[start])
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "foury_sim", "run", game, "--format", "json"], env=env,
                                cwd=ROOT, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own CPU time and peak memory
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise RuntimeError(f"foury-sim run {game} exited {proc.returncode}")
        out.seek(0)
        summary = json.load(out)
    compile_s, load_s = summary["compile_s"], summary.get("load_s", 0.0)
    return {"game": game, "from": start, "before_first_game_s": round(compile_s + load_s, 2),
            "compile_s": round(compile_s, 2), "load_s": round(load_s, 2),
            "wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_gb": round(usage.ru_maxrss / 1e6, 2), "load": round(os.getloadavg()[0], 2),
            "at": time.strftime("%H:%M:%S", time.gmtime())}


def first_runs(games: list[str], rounds: int, starts: list[str] | None = None) -> list[dict]:
    """``first_run`` of each game from each start (default: all of ``FIRST_RUN_FROM``), alternated, ``rounds``
    times."""
    runs = []
    for game in games:
        for _ in range(rounds):
            for start in starts or FIRST_RUN_FROM:
                runs.append(first_run(game, start))
                print(runs[-1], flush=True)
    return runs


# --- what a run's start-up spends before its first game (session 50) -------------------------------------------
#
#     python benchmarks/startup.py load-split [--game foury ...] [--rounds 3] [--write]
#
# In a fresh process with the game's cache filled (a first run fills it): importing foury-sim and the game and
# loading its ruleset; then the engine's first call, whose ``load_s`` is loading its machine code from the cache.
# A cached load no longer sets up numba's CPU target (``quick_passes.load_overload``, session 58): ``numba_set_up``
# says whether it was (its typing and lowering registries, and ``scipy.linalg`` for numba's BLAS check:
# ``FOURY_SIM_SLOW_PASSES=1`` keeps numba's way, whose set-up falls in ``first_call_s``). ``--write``:
# benchmarks/results/load_split.json.

LOAD_SPLIT_CODE = """
import importlib, json, sys, time
t0 = time.perf_counter()
from foury_sim import config
from foury_sim.policy import make_policy
game, hero, policy = sys.argv[1], sys.argv[2], sys.argv[3]
G = importlib.import_module("foury_sim.games." + game).GAME
rs, pol = G.load_ruleset(), make_policy(policy, G.policies)
t1 = time.perf_counter()
G.simulate(rs, hero, pol, 0, 0, 10)
t2 = time.perf_counter()
print(json.dumps({"imports_and_ruleset_s": t1 - t0, "first_call_s": t2 - t1,
                  "machine_code_load_s": config.FIRST_USE["load_s"], "compile_s": config.FIRST_USE["compile_s"],
                  "numba_set_up": "numba.np.arraymath" in sys.modules}))
"""


def load_split(games: list[str], rounds: int) -> list[dict]:
    """``LOAD_SPLIT_CODE`` for each game, ``rounds`` times alternated, each in a fresh process with the game's
    cache filled (one first run before, not counted); its seconds rounded to the ms."""
    import json

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for game in games:  # fill each game's cache (a first run loads the shipped code, or compiles)
        subprocess.run([sys.executable, "-c", LOAD_SPLIT_CODE, game, SPEED_HERO[game], SPEED_POLICY[game]],
                       env=env, cwd=ROOT, check=True, capture_output=True)
    runs = []
    for _ in range(rounds):
        for game in games:
            res = subprocess.run([sys.executable, "-c", LOAD_SPLIT_CODE, game, SPEED_HERO[game], SPEED_POLICY[game]],
                                 env=env, cwd=ROOT, check=True, capture_output=True, text=True)
            last = json.loads(res.stdout.strip().splitlines()[-1])
            row = {"game": game, **{k: round(v, 3) if isinstance(v, float) else v for k, v in last.items()},
                   "load": round(os.getloadavg()[0], 2), "at": time.strftime("%H:%M:%S", time.gmtime())}
            runs.append(row)
            print(row, flush=True)
    return runs


def main() -> None:
    import argparse
    import json
    import statistics

    ap = argparse.ArgumentParser(description="the compile trades: cold compile cost, A/B kernel speed")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("tree")
    c.add_argument("--game", default="delve")
    c.add_argument("--cache", help="an empty directory to compile into, kept (for `speed`)")
    s = sub.add_parser("speed")
    s.add_argument("pairs", nargs="+", help="TREE CACHE [TREE CACHE ...]; the first is the baseline")
    s.add_argument("--games", type=int, default=200_000)
    s.add_argument("--rounds", type=int, default=5)
    s.add_argument("--policy", help="the policy to play (default: threshold for Delve, greedy for Foury, thorough for "
                   "Tactics, optimal_reroll for Rooms)")
    s.add_argument("--game", default="delve")
    s.add_argument("--hero", help="the hero to play (default: none for Delve, free for Foury, adventurer for Tactics, "
                   "ranger for Rooms)")
    f = sub.add_parser("first-run")
    f.add_argument("--game", action="append", help="a game (repeatable; default every game)")
    f.add_argument("--rounds", type=int, default=2)
    f.add_argument("--write", action="store_true", help="write benchmarks/results/first_run.json")
    f.add_argument("--start", action="append", choices=list(FIRST_RUN_FROM),
                   help="what the first run starts from (repeatable; default all three)")
    s.add_argument("--native", type=int, action="append", default=[],
                   help="arm K (0: the first) compiles its entry points for this CPU (FOURY_SIM_SHIPPED_CODE=0)")
    ls = sub.add_parser("load-split")
    ls.add_argument("--game", action="append", help="a game (repeatable; default every game)")
    ls.add_argument("--rounds", type=int, default=3)
    ls.add_argument("--write", action="store_true", help="write benchmarks/results/load_split.json")
    args = ap.parse_args()
    if args.cmd == "load-split":
        from foury_sim.registry import games

        runs = load_split(args.game or games(), args.rounds)
        keys = [k for k in runs[0] if k.endswith("_s")]
        medians = {g: {k: round(statistics.median(r[k] for r in runs if r["game"] == g), 3) for k in keys}
                   for g in dict.fromkeys(r["game"] for r in runs)}
        print(json.dumps({"medians": medians}))
        if args.write:
            from record import write_result

            write_result(ROOT / "benchmarks" / "results" / "load_split.json", {"runs": runs, "medians": medians})
        return
    if args.cmd == "first-run":
        from foury_sim.registry import games

        runs = first_runs(args.game or games(), args.rounds, args.start)
        if args.write:
            from record import write_result

            write_result(ROOT / "benchmarks" / "results" / "first_run.json", {"runs": runs})
        return
    if args.cmd == "compile":
        print(json.dumps(compile_cost(args.tree, args.game, args.cache)))
        return
    pairs = list(zip(args.pairs[::2], args.pairs[1::2]))
    args.policy = args.policy or SPEED_POLICY[args.game]
    runs = speed_ab(pairs, args.games, args.rounds, args.policy, args.game, args.hero, tuple(args.native))
    base = statistics.median(runs[0])
    for (tree, _), r in zip(pairs, runs):
        med = statistics.median(r)
        pair = [x / b for x, b in zip(r, runs[0])]  # each round's ratio to the baseline run beside it
        print(json.dumps({"tree": tree, "game": args.game, "policy": args.policy,
                          "games_per_cpu_s": [round(x) for x in r], "median": round(med),
                          "ratio_to_first": round(med / base, 3), "pair_ratios": [round(x, 3) for x in pair],
                          "median_pair_ratio": round(statistics.median(pair), 3)}))


if __name__ == "__main__":
    main()
