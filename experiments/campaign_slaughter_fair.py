"""How many Fury boxes make The Slaughter of Monsters fair? Reads the study's cells (``foury-sim sweep
experiments/campaign_slaughter.toml`` -> results/campaign_slaughter/cells/*.json) and writes
results/campaign_slaughter/fair.md: the score (monsters killed) by Fury track length, policy and hero, medians and
means with their 95 % intervals (the run summary's ``slaughter_score``: order-statistic interval of the median,
t interval of the mean), and the verdict.

FAIR (README): a median game of the free character played by greedy kills at least half of the map's 48 monsters
(24): the smallest track whose median's 95 % interval lies at or above 24 is "fair for sure", the smallest whose
median reaches 24 "fair at the point estimate".

    python experiments/campaign_slaughter_fair.py [results/campaign_slaughter]
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

TARGET = 24  # half of the 48 monsters of the map


def load(folder: Path) -> list[dict]:
    cells = []
    for f in sorted((folder / "cells").glob("cell_*.json")):
        d = json.loads(f.read_text())
        s = d["summary"]
        s = ast.literal_eval(s) if isinstance(s, str) else s
        p = d["params"]
        sc = {k.removeprefix("score_"): v for k, v in s["slaughter_score"].items()}
        cells.append({"hero": p["hero"], "policy": p["policy"], "boxes": int(p["slaughter.fury_boxes"]),
                      "games": d["games"], **sc, "ends": s.get("slaughter_end", {})})
    return cells


def main(folder: str = "results/campaign_slaughter") -> None:
    root = Path(folder)
    cells = load(root)
    boxes = sorted({c["boxes"] for c in cells})
    lines = ["# The Slaughter of Monsters: score by Fury track, policy and hero", "",
             f"{cells[0]['games']:,} games per cell, the same game indices in every cell (paired). Score = monsters "
             "killed (of 48). Median [95 % interval] / mean [95 % interval]; `fury` = boxes blacked out (mean).", ""]
    for pol in ("greedy", "cautious", "random"):
        lines += [f"## {pol}", "", "| hero | " + " | ".join(f"{b} boxes" for b in boxes) + " |",
                  "|---|" + "---|" * len(boxes)]
        for hero in ("free", "kael", "melyra", "thalindra", "elydion"):
            row = []
            for b in boxes:
                c = next((c for c in cells if c["hero"] == hero and c["policy"] == pol and c["boxes"] == b), None)
                row.append("-" if c is None else f"{c['median']:g} [{c['median_lo']:g}, {c['median_hi']:g}] / "
                           f"{c['mean']:.1f} [{c['mean_lo']:.1f}, {c['mean_hi']:.1f}]; fury {c['fury_used']:.1f}")
            lines.append(f"| {hero} | " + " | ".join(row) + " |")
        lines.append("")
    ref = sorted((c for c in cells if c["hero"] == "free" and c["policy"] == "greedy"), key=lambda c: c["boxes"])
    sure = next((c["boxes"] for c in ref if c["median_lo"] >= TARGET), None)
    point = next((c["boxes"] for c in ref if c["median"] >= TARGET), None)
    lines += ["## Verdict", "",
              f"Fair = the free character's median greedy game kills at least {TARGET} of the 48 monsters.",
              f"- smallest track whose median reaches {TARGET}: "
              f"{point if point is not None else 'none of ' + str(boxes)}",
              f"- smallest track whose median's 95 % interval lies at or above {TARGET}: "
              f"{sure if sure is not None else 'none of ' + str(boxes)}", "",
              "How the games ended (free, greedy): " + "; ".join(f"{c['boxes']} boxes: {c['ends']}" for c in ref), ""]
    (root / "fair.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main(*sys.argv[1:])
