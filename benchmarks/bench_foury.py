"""Dungeon Foury speed: games/s (1 thread, all threads), games per CPU second, turns per game and the cost
of a turn, the load average beside each figure, the un-jitted baseline, cold and cached start-up.

Run:  python benchmarks/bench_foury.py [--games 200000] [--repeats 5]
Writes benchmarks/results/foury.json and prints a table. Medians of the repeats are reported.
Campaigns: python benchmarks/bench_foury.py --campaigns [--games 50000] [--repeats 5] plays the base game and each
shipped campaign (docs/rules.md "Campaigns"; `--campaign NAME`: only that one) alternately in one process (1
thread, the same seeds), so that the ratio of each pair holds under any load; writes
benchmarks/results/foury_campaigns.json (foury_campaigns_NAME.json for one; the target: every campaign at least
half the base game's games/s).
Sizes are data: change them on the command line, not in the code.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

from record import write_result
from startup import startup_times

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _games_per_s(threads: int, games: int, repeats: int, hero: str, policy: str) -> dict[str, list[float]]:
    """Per repeat: games/s (wall), games per CPU second (all threads' CPU time), the 1-minute load average
    when it ended; and the mean game turns of the games played."""
    code = f"""
import json, os, time, numba
from foury_sim.games.foury import GAME
from foury_sim.policy import make_policy
numba.set_num_threads({threads})
r = GAME.load_ruleset(); p = make_policy({policy!r}, GAME.policies)
GAME.simulate(r, {hero!r}, p, 1, 0, 2000)
out = {{"wall": [], "cpu": [], "load": [], "turns": []}}
for i in range({repeats}):
    t, c = time.perf_counter(), time.process_time()
    res = GAME.simulate(r, {hero!r}, p, 100 + i, 0, {games})
    out["wall"].append({games} / (time.perf_counter() - t))
    out["cpu"].append({games} / (time.process_time() - c))
    out["load"].append(os.getloadavg()[0])
    out["turns"].append(float(res["turns"].mean()))
print(json.dumps(out))
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def _two_player(games: int, repeats: int, hero: str, policy: str) -> dict[str, list[float]]:
    """The 2-player mode against the solo game, interleaved in one process (1 thread): per repeat, solo games/s,
    2-player game indices/s (each played twice, seats swapped: ``two_player.swap_seats``) and 2-player games/s
    (one seating)."""
    code = f"""
import json, time, numba
from foury_sim.games.foury import GAME
from foury_sim.policy import make_policy
numba.set_num_threads(1)
p = make_policy({policy!r}, GAME.policies)
rs = {{"solo": GAME.load_ruleset(), "pair": GAME.load_ruleset(None, ["two_player.players=2"]),
      "one": GAME.load_ruleset(None, ["two_player.players=2", "two_player.swap_seats=false"])}}
for r in rs.values():
    GAME.simulate(r, {hero!r}, p, 1, 0, 500)
out = {{k: [] for k in rs}}
for i in range({repeats}):
    for k, r in rs.items():
        t = time.perf_counter()
        GAME.simulate(r, {hero!r}, p, 100 + i, 0, {games})
        out[k].append({games} / (time.perf_counter() - t))
print(json.dumps(out))
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def _unjitted(games: int, hero: str, policy: str) -> float:
    code = f"""
import time
from foury_sim.games.foury import GAME
from foury_sim.policy import make_policy
r = GAME.load_ruleset(); p = make_policy({policy!r}, GAME.policies)
t = time.perf_counter(); GAME.simulate(r, {hero!r}, p, 1, 0, {games}); print({games} / (time.perf_counter() - t))
"""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    return float(res.stdout.strip().splitlines()[-1])


def _campaign_ratios(games: int, repeats: int, hero: str, policy: str, only: list[str] | None = None) -> dict:
    """Per shipped campaign: games/s of the base game and of the campaign, played alternately (A/B, 1 thread,
    same seeds), and the median of the per-pair ratios campaign / base."""
    code = f"""
import json, os, time, numba
from foury_sim.games.foury import GAME
from foury_sim.games.foury.ruleset import builtin_campaigns
from foury_sim.policy import make_policy
numba.set_num_threads(1)
p = make_policy({policy!r}, GAME.policies)
base = GAME.load_ruleset()
GAME.simulate(base, {hero!r}, p, 1, 0, 2000)
out = {{}}
for name in {only!r} or builtin_campaigns():
    camp = GAME.load_ruleset(campaign=name)
    runs = {{"base": [], "campaign": [], "ratio": [], "load": [], "turns_base": [], "turns_campaign": []}}
    for i in range({repeats}):
        speed = {{}}
        for tag, r in (("base", base), ("campaign", camp)):
            t = time.perf_counter()
            res = GAME.simulate(r, {hero!r}, p, 100 + i, 0, {games})
            speed[tag] = {games} / (time.perf_counter() - t)
            runs[tag].append(speed[tag])
            runs["turns_" + tag].append(float(res["turns"].mean()))
        runs["ratio"].append(speed["campaign"] / speed["base"])
        runs["load"].append(os.getloadavg()[0])
    out[name] = runs
print(json.dumps(out))
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def campaigns_main(a: argparse.Namespace) -> None:
    runs = _campaign_ratios(a.games, a.repeats, a.hero, a.policy, a.campaign)
    res = {"games": a.games, "repeats": a.repeats, "hero": a.hero, "policy": a.policy, "threads": 1,
           "campaigns": {n: {"ratio_median": statistics.median(r["ratio"]),
                             "base_games_per_s": statistics.median(r["base"]),
                             "campaign_games_per_s": statistics.median(r["campaign"]),
                             "turns_base": statistics.median(r["turns_base"]),
                             "turns_campaign": statistics.median(r["turns_campaign"]), "runs": r}
                         for n, r in runs.items()}}
    name = "foury_campaigns" + "".join(f"_{c}" for c in a.campaign or [])
    write_result(HERE / "results" / f"{name}.json", res)
    print(f"Dungeon Foury campaigns vs the base game, hero {a.hero}, policy {a.policy}, {a.games:,} games x "
          f"{a.repeats}, alternating, 1 thread (medians)")
    for n, c in res["campaigns"].items():
        print(f"  {n:12s} {c['campaign_games_per_s']:>10,.0f} games/s vs base {c['base_games_per_s']:>10,.0f}: "
              f"ratio {c['ratio_median']:.2f} (target >= 0.5); turns {c['turns_campaign']:.1f} vs "
              f"{c['turns_base']:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--unjitted-games", type=int, default=200)
    ap.add_argument("--hero", default="free")
    ap.add_argument("--policy", default="greedy")
    ap.add_argument("--skip-cold", action="store_true", help="skip the cold-compile start-up (slow)")
    ap.add_argument("--campaigns", action="store_true", help="only the campaigns' A/B speed ratios vs the base game")
    ap.add_argument("--campaign", action="append", help="with --campaigns: only this campaign (repeatable; results "
                    "in foury_campaigns_NAME.json)")
    ap.add_argument("--two-player", action="store_true",
                    help="only the 2-player mode against the solo game, interleaved (docs/rules.md '2-player mode')")
    a = ap.parse_args()
    if a.campaigns:
        campaigns_main(a)
        return
    if a.two_player:
        tp = _two_player(a.games, a.repeats, a.hero, a.policy)
        med = {k: statistics.median(v) for k, v in tp.items()}
        res2 = {"games": a.games, "hero": a.hero, "policy": a.policy, "load": os.getloadavg()[0], "runs": tp,
                "solo_games_per_s": med["solo"], "two_player_indices_per_s": med["pair"],
                "two_player_games_per_s": med["one"], "ratio_indices": med["pair"] / med["solo"],
                "ratio_games": med["one"] / med["solo"]}
        write_result(HERE / "results" / "foury_2p.json", res2)
        print(f"Dungeon Foury 2-player vs solo, hero {a.hero}, policy {a.policy}, {a.games:,} games x {a.repeats}, "
              f"1 thread, interleaved (medians)")
        print(f"  solo {med['solo']:,.0f} games/s; 2-player {med['one']:,.0f} games/s (x{res2['ratio_games']:.2f}), "
              f"{med['pair']:,.0f} game indices/s played both ways (x{res2['ratio_indices']:.2f})")
        return
    import numba

    cores = numba.config.NUMBA_NUM_THREADS
    one = _games_per_s(1, a.games, a.repeats, a.hero, a.policy)
    allt = _games_per_s(cores, a.games, a.repeats, a.hero, a.policy)
    slow = _unjitted(a.unjitted_games, a.hero, a.policy)
    turns = statistics.median(one["turns"])
    cpu1 = statistics.median(one["cpu"])
    res = {
        "machine": {"cores": cores, "python": platform.python_version(), "numba": numba.__version__,
                    "cpu": platform.processor() or platform.machine()},
        "games": a.games, "hero": a.hero, "policy": a.policy,
        "games_per_s_1_thread": statistics.median(one["wall"]),
        "games_per_s_all_threads": statistics.median(allt["wall"]),
        "games_per_cpu_s_1_thread": cpu1, "games_per_cpu_s_all_threads": statistics.median(allt["cpu"]),
        "turns_per_game": turns, "us_per_turn_cpu": 1e6 / (cpu1 * turns),
        "load_1_thread": one["load"], "load_all_threads": allt["load"],
        "runs_1_thread": one["wall"], "runs_all_threads": allt["wall"],
        "cpu_runs_1_thread": one["cpu"], "cpu_runs_all_threads": allt["cpu"],
        "games_per_s_unjitted": slow,
    }
    res["speedup_per_core_vs_unjitted"] = res["games_per_s_1_thread"] / slow
    res["thread_scaling"] = res["games_per_s_all_threads"] / res["games_per_s_1_thread"]
    if not a.skip_cold:
        cold, cached = startup_times(["run", "foury", "--games", "1000", "--threads", "1"], a.repeats)
        res["startup_cold_s"] = cold
        res["startup_cached_s"] = statistics.median(cached)
        res["startup_cached_runs_s"] = cached
    write_result(HERE / "results" / "foury.json", res)
    print(f"Dungeon Foury, hero {a.hero}, policy {a.policy}, {a.games:,} games x {a.repeats} (medians)")
    print(f"  1 thread         {res['games_per_s_1_thread']:>12,.0f} games/s  "
          f"{res['games_per_cpu_s_1_thread']:>9,.0f} per CPU-s  load {statistics.median(one['load']):.1f}")
    print(f"  {cores} threads        {res['games_per_s_all_threads']:>12,.0f} games/s  "
          f"{res['games_per_cpu_s_all_threads']:>9,.0f} per CPU-s  load {statistics.median(allt['load']):.1f}  "
          f"(x{res['thread_scaling']:.2f})")
    print(f"  {turns:.1f} turns a game: {res['us_per_turn_cpu']:.2f} CPU-us a turn (1 thread)")
    print(f"  NUMBA_DISABLE_JIT {slow:>11,.0f} games/s  -> jit is x{res['speedup_per_core_vs_unjitted']:.0f} per core")
    if "startup_cold_s" in res:
        print(f"  start-up `foury-sim run foury --games 1000`: cold {res['startup_cold_s']:.1f} s, "
              f"cached {res['startup_cached_s']:.2f} s")


if __name__ == "__main__":
    main()
