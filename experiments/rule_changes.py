"""Win-rate change of each rule change of issue 9, paired on the same dice.

For each changed default, every hero (free character and the four heroes) plays the same games
under the greedy policy twice: with the new default (B) and with the old behaviour (A), everything
else at the new defaults. Differences are B - A with paired (McNemar) tests, Holm-adjusted over the
whole family of comparisons printed.

    python experiments/rule_changes.py --games 40000 --seed 1 --out results/rule_changes
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path

import pandas as pd
from statsmodels.stats.multitest import multipletests

from foury_sim import __version__
from foury_sim.files import atomic_write, to_jsonable, write_frame
from foury_sim.study import compare, git_commit

HEROES = ("free", "kael", "melyra", "thalindra", "elydion")

#: (what changed, ruleset key, old behaviour A, new default B)
CHANGES: list[tuple[str, str, object, object]] = [
    ("clover rerolls any die (1.1)", "rulings.clover_dice", "combat", "any"),
    ("upper level as places (1.3)", "rulings.upper_level", "network", "places"),
    ("exit keeps every remaining round playable (1.2)", "rulings.reserve_entries", "sector_only", "rounds"),
    ("imp erases one resource (1.4)", "rulings.imp_destroys", "all", "one"),
    ("swimming only in the Waterways (1.4)", "rulings.swim_rounds", "all", "D"),
    ("the DIE icon is optional (1.5)", "rulings.die_icon", "always", "optional"),
]

#: The hero sheets before issue 9 (2.2: every sheet rebuilt to 12 marks by one written rule).
OLD_SHEETS = {
    "kael": {"start": {"hearts": 6, "shield": 2, "clover": 1, "weapon": 2, "shovel": 1},
             "cap": {"hearts": 9, "shield": 4, "clover": 3, "weapon": 4, "shovel": 2}},
    "melyra": {"start": {"hearts": 5, "shield": 1, "clover": 3, "weapon": 2, "shovel": 1},
               "cap": {"hearts": 7, "shield": 3, "clover": 5, "weapon": 4, "shovel": 2}},
    "thalindra": {"start": {"hearts": 5, "shield": 1, "clover": 1, "weapon": 4, "shovel": 1},
                  "cap": {"hearts": 7, "shield": 2, "clover": 2, "weapon": 6, "shovel": 2}},
    "elydion": {"start": {"hearts": 4, "shield": 1, "clover": 1, "weapon": 1, "shovel": 2},
                "cap": {"hearts": 6, "shield": 3, "clover": 3, "weapon": 3, "shovel": 3}},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--policy", default="greedy")
    ap.add_argument("--out", default="results/rule_changes")
    args = ap.parse_args()
    rows = []
    runs = [(label, key, old, new, hero, {key: old}, {key: new})
            for label, key, old, new in CHANGES for hero in HEROES]
    runs += [("hero sheets rebuilt to 12 marks (2.2)", f"heroes.{h}", "before issue 9", "rebuilt", h,
              {f"heroes.{h}.start": o["start"], f"heroes.{h}.cap": o["cap"]}, {}) for h, o in OLD_SHEETS.items()]
    for label, key, old, new, hero, a, b in runs:
        c = compare("foury", a, b, fixed={"hero": hero, "policy": args.policy},
                    games=args.games, seed=args.seed, progress=False)
        w = c.win
        rows.append({"change": label, "key": key, "A": old, "B": new, "hero": hero,
                     "win_A": w["rate_a"], "win_B": w["rate_b"], "diff": w["diff"], "lo": w["lo"],
                     "hi": w["hi"], "p_value": w["p_value"]})
        print(f"{label:48s} {hero:10s} {100 * w['rate_a']:6.2f} % -> {100 * w['rate_b']:6.2f} %  "
              f"diff {100 * w['diff']:+6.2f} [{100 * w['lo']:+.2f}, {100 * w['hi']:+.2f}]", flush=True)
    df = pd.DataFrame(rows)
    df["p_holm"] = multipletests(df["p_value"].fillna(1.0), method="holm")[1]
    df["significant_holm_5pct"] = df["p_holm"] < 0.05
    out = Path(args.out)
    write_frame(df, out / "rule_changes.csv")
    atomic_write(out / "manifest.json", json.dumps(to_jsonable(
        {"game": "foury", "policy": args.policy, "games": args.games, "seed": args.seed, "heroes": HEROES,
         "version": __version__, "git_commit": git_commit(),
         "command": shlex.join(["python", "experiments/rule_changes.py", "--games", str(args.games), "--seed",
                                str(args.seed), "--policy", args.policy, "--out", args.out]),
         "changes": [{"label": c[0], "key": c[1], "A": c[2], "B": c[3]} for c in CHANGES],
         "test": "paired McNemar per row, Holm over all rows"}), indent=2))
    lines = ["| change | hero | A (old) | B (new default) | B - A [95 % paired CI] | Holm p |",
             "|---|---|---|---|---|---|"]
    for r in df.itertuples():
        lines.append(f"| {r.change} | {r.hero} | {100 * r.win_A:.2f} % | {100 * r.win_B:.2f} % | "
                     f"{100 * r.diff:+.2f} [{100 * r.lo:+.2f}, {100 * r.hi:+.2f}] | {r.p_holm:.2g} |")
    atomic_write(out / "rule_changes.md", "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
