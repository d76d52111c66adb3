"""Dungeon Foury's 2-player mode (issue 16): the first player's advantage by hero pair, paired on the same dice.

Every pair of heroes {A, B} (the same hero twice included) plays ``--games`` game indices of one seed with the
2-player ruleset (``two_player.players = 2``, ``two_player.opponent = B``, ``--hero A``); the engine plays each
game index twice on the same dice streams, A in seat 1 and then B in seat 1 (``two_player.swap_seats``,
docs/rules.md "2-player mode"). A game's paired first-seat edge is (first-seat wins - second-seat wins) over its two
seatings, in -2..2; the first-player advantage is its mean / 2 = P(seat 1 wins) - P(seat 2 wins), with a t interval
over the game indices (independent), a two-sided t-test of "no advantage", and Holm's correction over the family of
pairs. Besides it: each seat's win rate (Wilson) and the draw rate over both seatings, and A's edge over B (wins of A
minus wins of B over the pair, both seats: which hero is stronger in a duel race), also Holm-corrected.

    python experiments/foury_2p_seats.py --games 4000 --seed 16 --out results/foury_2p_seats/greedy
    python experiments/foury_2p_seats.py --games 4000 --seed 16 --param round_order=2134 \
        --out results/foury_2p_seats/greedy_b_first

Greedy's default side choice follows its solo round order (A first): seat 1 takes the Temple's side and leaves the
Palace's (whose event table finds a chest) to seat 2. ``round_order=2134`` makes both players prefer the Palace, so
seat 1 takes it: the two runs separate the seat from the side.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from foury_sim import __version__, stats
from foury_sim.files import atomic_write, to_jsonable
from foury_sim.games import foury
from foury_sim.policy import make_policy
from foury_sim.study import git_commit

HEROES = ("free", "kael", "melyra", "thalindra", "elydion")


def paired_mean(x: np.ndarray, conf: float = 0.95) -> tuple[float, float, float, float]:
    """Mean, t interval and two-sided p of ``x`` (per-game paired values)."""
    n = len(x)
    m = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else 0.0
    if sd == 0.0:
        return m, m, m, 1.0 if m == 0 else 0.0
    half = float(sps.t.ppf(0.5 + conf / 2, n - 1)) * sd / np.sqrt(n)
    p = float(sps.ttest_1samp(x, 0.0).pvalue)
    return m, m - half, m + half, p


def pair_cell(a: str, b: str, games: int, seed: int, policy: str, param: str | None = None) -> dict:
    """One hero pair: per-game outcomes of both seatings and their paired summaries."""
    rules = foury.load_ruleset(None, ["two_player.players=2", f"two_player.opponent={b}", "two_player.first=hero",
                                      "two_player.swap_seats=true"])
    t = time.perf_counter()
    cols = foury.simulate(rules, a, make_policy(policy, foury.POLICIES, param), seed, 0, games)
    secs = time.perf_counter() - t
    w, ws = cols["p2_winner"], cols["p2_winner_swapped"]  # seated: A is seat 1; swapped: B is seat 1
    edge = ((w == 1).astype(int) - (w == 2) + (ws == 1) - (ws == 2)) / 2.0
    a_edge = ((w == 1).astype(int) - (w == 2) + (ws == 2) - (ws == 1)) / 2.0  # A's wins minus B's, both seats
    m, lo, hi, p = paired_mean(edge)
    am, alo, ahi, ap = paired_mean(a_edge)
    n2 = 2 * games
    first = stats.summarize_rate(int((w == 1).sum() + (ws == 1).sum()), n2)
    second = stats.summarize_rate(int((w == 2).sum() + (ws == 2).sum()), n2)
    draws = stats.summarize_rate(int((w == 0).sum() + (ws == 0).sum()), n2)
    ends = pd.Series(cols["p2_end"]).map(lambda c: foury.layout.P2E_NAMES[int(c)]).value_counts(normalize=True)
    return {"hero_a": a, "hero_b": b, "games": games, "seconds": round(secs, 1),
            "first_advantage": m, "first_lo": lo, "first_hi": hi, "first_p": p,
            "first_win_rate": first["rate"], "second_win_rate": second["rate"], "draw_rate": draws["rate"],
            "a_edge": am, "a_lo": alo, "a_hi": ahi, "a_p": ap,
            "mean_turns": float((cols["p2_turns_first"] + cols["p2_turns_second"]).mean() / 2),
            "duels_per_game": float(cols["p2_duels"].mean()),
            "end_exit": float(ends.get(foury.layout.P2E_NAMES[1], 0.0)),
            "end_outlived": float(ends.get(foury.layout.P2E_NAMES[2], 0.0))}


def study(games: int, seed: int, policy: str, heroes: tuple[str, ...], param: str | None = None) -> pd.DataFrame:
    rows = []
    for a, b in itertools.combinations_with_replacement(heroes, 2):
        rows.append(pair_cell(a, b, games, seed, policy, param))
        r = rows[-1]
        print(f"{a:>9s} vs {b:<9s} first-player advantage {100 * r['first_advantage']:+.1f} pts "
              f"[{100 * r['first_lo']:+.1f}, {100 * r['first_hi']:+.1f}]  ({r['seconds']} s)", file=sys.stderr)
    df = pd.DataFrame(rows)
    for p, col in (("first_p", "first_p_holm"), ("a_p", "a_p_holm")):
        df[col] = multipletests(df[p], method="holm")[1]
    df["first_significant"] = df["first_p_holm"] < 0.05
    df["a_significant"] = (df["a_p_holm"] < 0.05) & (df["hero_a"] != df["hero_b"])
    return df


def report(df: pd.DataFrame, games: int, seed: int, policy: str, param: str | None = None) -> str:
    def pts(x: float) -> str:
        return f"{100 * x:+.1f}"

    lines = [f"# First-player advantage in Dungeon Foury's 2-player mode ({policy}"
             f"{'(' + param + ')' if param else ''} plays both seats)", "",
             f"{games} game indices per hero pair, seed {seed}, each played in both seat orders on the same dice; "
             "advantage = P(seat 1 wins) - P(seat 2 wins) in points, 95 % t interval over the paired games, Holm "
             "over the pairs (* = significant at 5 % family-wise).", "",
             "| hero A | hero B | first-player advantage (pts) | seat 1 wins | seat 2 wins | draws | A's edge over B "
             "(pts) | turns | duels/game |", "|---|---|---|---|---|---|---|---|---|"]
    for r in df.itertuples():
        star = " *" if r.first_significant else ""
        astar = " *" if r.a_significant else ""
        a_edge = "—" if r.hero_a == r.hero_b else f"{pts(r.a_edge)} [{pts(r.a_lo)}, {pts(r.a_hi)}]{astar}"
        lines.append(f"| {r.hero_a} | {r.hero_b} | {pts(r.first_advantage)} [{pts(r.first_lo)}, "
                     f"{pts(r.first_hi)}]{star} | {100 * r.first_win_rate:.1f} % | {100 * r.second_win_rate:.1f} % | "
                     f"{100 * r.draw_rate:.1f} % | {a_edge} | {r.mean_turns:.1f} | {r.duels_per_game:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--policy", default="greedy")
    ap.add_argument("--param", default=None, help="the policy's parameters, e.g. round_order=2134 (B first)")
    ap.add_argument("--heroes", default=",".join(HEROES))
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    heroes = tuple(h.strip() for h in args.heroes.split(",") if h.strip())
    t = time.perf_counter()
    df = study(args.games, args.seed, args.policy, heroes, args.param)
    text = report(df, args.games, args.seed, args.policy, args.param)
    print(text)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write(args.out / "pairs.csv", df.to_csv(index=False))
        atomic_write(args.out / "report.md", text)
        command = "python experiments/foury_2p_seats.py " + shlex.join(argv if argv is not None else sys.argv[1:])
        manifest = {"study": "foury 2-player first-player advantage", "command": command,
                    "games": args.games, "seed": args.seed, "policy": args.policy, "param": args.param,
                    "heroes": list(heroes), "version": __version__, "commit": git_commit(),
                    "ruleset": "shipped rules.toml with two_player.players=2, two_player.opponent=B, "
                               "two_player.swap_seats=true", "map": "base",
                    "seconds": round(time.perf_counter() - t, 1)}
        atomic_write(args.out / "manifest.json", json.dumps(to_jsonable(manifest), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
