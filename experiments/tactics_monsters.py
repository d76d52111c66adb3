"""Tactics (issue 14): the monster study's engine figures beside the exact odds.

Reads the sweep `foury-sim sweep experiments/tactics_monsters.toml` wrote (results/tactics_monsters/cells.csv: each
monster alone in its arena, per starting weapon x armour) and the exact straight-melee kill chances of
`python experiments/tactics_dm.py` (results/tactics_monsters_exact/kill_odds.csv), and writes
results/tactics_monsters/engine_vs_exact.csv and .md: per monster, weapon and armour the engine's win rate with its
interval, the mean HP left, and the exact chance to kill the monster before losing 10 HP in straight melee.

    python experiments/tactics_monsters.py --results results
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from foury_sim.files import atomic_write, write_frame

NONE = "none"


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def joined(results: Path) -> pd.DataFrame:
    cells = pd.read_csv(results / "tactics_monsters" / "cells.csv")
    exact = pd.read_csv(results / "tactics_monsters_exact" / "kill_odds.csv")
    exact = exact.assign(weapon=exact.weapon.where(exact.weapon != "bare hands", NONE),
                         armor=exact.armor.where(exact.armor != "no armour", NONE))
    df = cells.assign(monster=cells["map"].str.removeprefix("arena_"), weapon=cells["player.weapon"],
                      armor=cells["player.armor"])
    df = df.merge(exact[["monster", "weapon", "armor", "exact_kill"]], on=["monster", "weapon", "armor"], how="left")
    return df[["monster", "weapon", "armor", "games", "win_rate", "win_lo", "win_hi", "hp_left_mean", "hp_left_lo",
               "hp_left_hi", "exact_kill"]]


def markdown(df: pd.DataFrame) -> str:
    monsters = list(dict.fromkeys(df.monster))
    weapons = list(dict.fromkeys(df.weapon))
    armors = list(dict.fromkeys(df.armor))
    out = ["# Tactics: each monster alone in an arena, per starting weapon and armour", "",
           f"Engine win rate % [95 % Wilson interval] (mean HP left of 10) | exact straight-melee kill chance %; "
           f"{int(df.games.iloc[0]):,} games per cell, `rush` against `by_the_book`.", ""]

    def cell(r) -> str:
        ex = "" if pd.isna(r.exact_kill) else f" / {pct(r.exact_kill)}"
        return f"{pct(r.win_rate)} [{pct(r.win_lo)}, {pct(r.win_hi)}] ({r.hp_left_mean:.1f}){ex}"

    for title, axis, fixed_col, values in (("weapon (no armour)", "weapon", "armor", weapons),
                                           ("armour (bare hands)", "armor", "weapon", armors)):
        out += [f"## Per {title}", "", "| monster | " + " | ".join(values) + " |", "|---" * (len(values) + 1) + "|"]
        for m in monsters:
            sub = df[(df.monster == m) & (df[fixed_col] == NONE)].set_index(axis)
            out.append(f"| {m} | " + " | ".join(cell(sub.loc[v]) for v in values) + " |")
        out.append("")
    out += ["## Best pair per monster", "", "| monster | weapon | armour | win % | HP left |", "|---|---|---|---|---|"]
    for m in monsters:
        r = df[df.monster == m].sort_values(["win_rate", "hp_left_mean"], ascending=False).iloc[0]
        out.append(f"| {m} | {r.weapon} | {r.armor} | {pct(r.win_rate)} [{pct(r.win_lo)}, {pct(r.win_hi)}] | "
                   f"{r.hp_left_mean:.1f} |")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results")
    args = ap.parse_args()
    res = Path(args.results)
    df = joined(res)
    write_frame(df, res / "tactics_monsters" / "engine_vs_exact.csv")
    text = markdown(df)
    atomic_write(res / "tactics_monsters" / "engine_vs_exact.md", text)
    print(text)


if __name__ == "__main__":
    main()
