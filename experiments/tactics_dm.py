"""Tactics (issue 14): what the Dungeon Master's play is worth, level by level, paired on the same dice.

Every shipped level and built-in player policy is one paired `foury-sim compare` (``study.compare``): the
`by_the_book` DM (A) against the `ruthless` DM (B), on the same games of the same seed (game i plays on stream
(seed, i) under both DMs), so the difference B - A is paired: Newcombe's interval and the exact McNemar test,
Holm over the whole family of level x policy pairs. Each comparison is written as `foury-sim compare --out` writes
it (results/tactics_dm/LEVEL_POLICY/: comparison.json with the command that plays it again, outcomes.csv, the
figure; not the per-game tables), e.g.

    foury-sim compare tactics --a dm=by_the_book --b dm=ruthless --fixed map=crypt --fixed policy=rush \
        --games 20000 --seed 14 --out results/tactics_dm/crypt_rush

The same cells give the level-difficulty table under both DMs (experiments/tactics_levels.toml plays the
by_the_book half through `foury-sim sweep`; `dm` is a sweep setting too).

It also writes the exact monster-difficulty tables (unless --no-monsters): the chance to kill each monster in
straight melee before losing the player's 10 HP, for every weapon and armour (games/tactics/odds.py, beside the
engine's measured frequencies); the arena games per weapon and armour are experiments/tactics_monsters.toml.

    python experiments/tactics_dm.py --games 20000 --seed 14 --out results
"""

from __future__ import annotations

import argparse
import json
import shlex
import time
from pathlib import Path

import pandas as pd

from foury_sim import __version__, stats
from foury_sim.files import atomic_write, to_jsonable, write_frame
from foury_sim.registry import get_game
from foury_sim.study import compare, git_commit, write_comparison

GAME = "tactics"
LEVELS = ("tutorial", "lava", "crypt", "forge", "ogre")
POLICIES = ("rush", "thorough", "random")
DMS = ("by_the_book", "ruthless")  # A, B


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def dm_study(games: int, seed: int, levels: tuple[str, ...], policies: tuple[str, ...],
             out: Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One paired ``compare`` per level and player policy (written under ``out/LEVEL_POLICY`` when given)."""
    get_game(GAME)
    cells, pairs = [], []
    for level in levels:
        for pol_name in policies:
            t = time.perf_counter()
            c = compare(GAME, {"dm": DMS[0]}, {"dm": DMS[1]}, fixed={"map": level, "policy": pol_name},
                        games=games, seed=seed, progress=False)
            secs = time.perf_counter() - t
            if out is not None:  # as `compare --out` writes it, minus the per-game tables (the command replays them)
                for path in write_comparison(c, out / f"{level}_{pol_name}"):
                    if path.suffix == ".parquet":
                        path.unlink()
            for dm, df in zip(DMS, (c.df_a, c.df_b)):
                k = int(df["win"].sum())
                lo, hi = stats.wilson(k, games)
                cells.append({"level": level, "policy": pol_name, "dm": dm, "games": games, "wins": k,
                              "win_rate": k / games, "lo": lo, "hi": hi,
                              "turn_cap": float((df["death_cause"] == 4).mean()),
                              "hp_left": float(df["hp_left"].mean()), "turns": float(df["turns"].mean()),
                              "kills": float(df["kills"].mean()), "spawned": float(df["spawned"].mean()),
                              "seconds": secs / 2})
                print(f"{level:9s} {pol_name:9s} {dm:12s} {pct(k / games):>6s} % [{pct(lo)}, {pct(hi)}]", flush=True)
            d = c.win
            pairs.append({"level": level, "policy": pol_name, "games": games, "win_by_the_book": d["rate_a"],
                          "win_ruthless": d["rate_b"], "diff": d["diff"], "lo": d["lo"], "hi": d["hi"],
                          "won_only_by_the_book": d["a_only"],
                          "won_only_ruthless": d["b_only"], "p_value": d["p_value"],
                          "command": c.command()})
    pairs_df = pd.DataFrame(pairs)
    pairs_df["p_holm"] = stats.adjust_pvalues(pairs_df["p_value"].to_numpy(), "holm")
    pairs_df["significant_holm_5pct"] = pairs_df["p_holm"] < 0.05
    return pd.DataFrame(cells), pairs_df


def monster_tables(trials: int, seed: int) -> pd.DataFrame:
    from foury_sim.games.tactics.odds import odds_frame

    rs = get_game(GAME).load_ruleset(None, None, None)
    return odds_frame(rs, trials=trials, seed=seed)


def dm_markdown(cells: pd.DataFrame, pairs: pd.DataFrame) -> str:
    lines = ["| level | policy | by_the_book | ruthless | ruthless - by_the_book [95 % paired CI] | Holm p |",
             "|---|---|---|---|---|---|"]
    for r in pairs.itertuples():
        c = {dm: cells[(cells.level == r.level) & (cells.policy == r.policy) & (cells.dm == dm)].iloc[0]
             for dm in DMS}
        lines.append(f"| {r.level} | {r.policy} | {pct(c['by_the_book'].win_rate)} % [{pct(c['by_the_book'].lo)}, "
                     f"{pct(c['by_the_book'].hi)}] | {pct(c['ruthless'].win_rate)} % [{pct(c['ruthless'].lo)}, "
                     f"{pct(c['ruthless'].hi)}] | {100 * r.diff:+.1f} [{100 * r.lo:+.1f}, {100 * r.hi:+.1f}] | "
                     f"{f'{r.p_holm:.2g}' if r.p_holm > 0 else '< 1e-300'} |")
    return "\n".join(lines) + "\n"


def monster_markdown(df: pd.DataFrame) -> str:
    names = list(dict.fromkeys(df["monster"]))
    weapons = list(dict.fromkeys(df["weapon"]))
    armors = list(dict.fromkeys(df["armor"]))
    bare, plain = weapons[0], armors[0]
    out = [f"Exact chance to kill the monster in straight melee before losing 10 HP (rows: monster; columns: weapon, "
           f"armour {plain})", "", "| monster | " + " | ".join(weapons) + " |", "|---" * (len(weapons) + 1) + "|"]
    for m in names:
        sub = df[(df.monster == m) & (df.armor == plain)].set_index("weapon")
        out.append(f"| {m} | " + " | ".join(pct(sub.loc[w, "exact_kill"]) for w in weapons) + " |")
    out += ["", f"Exact chance to kill (columns: armour, weapon {bare})", "",
            "| monster | " + " | ".join(armors) + " |", "|---" * (len(armors) + 1) + "|"]
    for m in names:
        sub = df[(df.monster == m) & (df.weapon == bare)].set_index("armor")
        out.append(f"| {m} | " + " | ".join(pct(sub.loc[a, "exact_kill"]) for a in armors) + " |")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--trials", type=int, default=20_000, help="engine fights per row of the monster tables")
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--out", default="results")
    ap.add_argument("--no-monsters", action="store_true", help="skip the exact monster tables")
    args = ap.parse_args()
    out = Path(args.out)
    levels = tuple(args.levels.split(","))
    policies = tuple(args.policies.split(","))
    cmd = shlex.join(["python", "experiments/tactics_dm.py", "--games", str(args.games), "--seed", str(args.seed),
                      "--trials", str(args.trials), "--levels", args.levels, "--policies", args.policies,
                      "--out", args.out] + (["--no-monsters"] if args.no_monsters else []))
    meta = {"game": GAME, "games": args.games, "seed": args.seed, "version": __version__, "git_commit": git_commit(),
            "command": cmd}

    if not args.no_monsters:
        mons = monster_tables(args.trials, args.seed)
        mdir = out / "tactics_monsters_exact"
        write_frame(mons, mdir / "kill_odds.csv")
        atomic_write(mdir / "kill_odds.md", monster_markdown(mons))
        atomic_write(mdir / "manifest.json", json.dumps(to_jsonable(meta | {
            "trials": args.trials, "what": "exact straight-melee odds per monster x weapon x armour "
                                           "(games/tactics/odds.py: convolution and Markov chain) beside the "
                                           "engine's combat.fight frequencies"}), indent=2))
        print(monster_markdown(mons))

    ddir = out / "tactics_dm"
    cells, pairs = dm_study(args.games, args.seed, levels, policies, ddir)
    write_frame(cells, ddir / "cells.csv")
    write_frame(pairs, ddir / "paired.csv")
    text = dm_markdown(cells, pairs)
    atomic_write(ddir / "report.md", text)
    atomic_write(ddir / "manifest.json", json.dumps(to_jsonable(meta | {
        "levels": levels, "policies": policies, "dm_a": DMS[0], "dm_b": DMS[1],
        "test": "paired per (level, policy): Newcombe interval, exact McNemar, Holm over all rows"}), indent=2))
    print(text)


if __name__ == "__main__":
    main()
