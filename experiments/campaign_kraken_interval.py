"""The designer's question of the Kraken study: which flood interval (kraken.flood_every) gives a 30 % win rate?

Reads the sweep's cells (results/campaign_kraken/cells.csv, `foury-sim sweep experiments/campaign_kraken.toml`) and,
per hero and policy, finds where the win rate crosses the target between two swept intervals: the point estimate
by linear interpolation of the win rates, its uncertainty by interpolating the Wilson interval's bounds (the
intervals whose band contains the target). The cells share their dice (same seed, same game indices), so the win
rate's curve is paired along the axis: its steps are not blurred by independent noise. Writes interval.csv beside
the cells and prints a table.

    python experiments/campaign_kraken_interval.py [results/campaign_kraken] [--target 0.30]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

AXIS = "kraken.flood_every"


def crossing(x: np.ndarray, y: np.ndarray, target: float) -> float:
    """The smallest x at which the piecewise-linear curve y(x) reaches ``target`` (nan if never; x[0] if at once)."""
    if y[0] >= target:
        return float(x[0])
    for i in range(1, len(x)):
        if y[i] >= target > y[i - 1]:
            return float(x[i - 1] + (target - y[i - 1]) * (x[i] - x[i - 1]) / (y[i] - y[i - 1]))
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", default="results/campaign_kraken")
    ap.add_argument("--target", type=float, default=0.30)
    a = ap.parse_args()
    cells = pd.read_csv(Path(a.folder) / "cells.csv")
    rows = []
    for (hero, policy), g in cells.groupby(["hero", "policy"], sort=False):
        g = g.sort_values(AXIS)
        x = g[AXIS].to_numpy(float)
        rows.append({"hero": hero, "policy": policy,
                     **{f"win@{int(v)}": round(w, 3) for v, w in zip(x, g["win_rate"], strict=True)},
                     "interval_for_target": crossing(x, g["win_rate"].to_numpy(), a.target),
                     "interval_lo": crossing(x, g["win_hi"].to_numpy(), a.target),
                     "interval_hi": crossing(x, g["win_lo"].to_numpy(), a.target)})
    out = pd.DataFrame(rows)
    out.to_csv(Path(a.folder) / "interval.csv", index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(f"flood interval (turns between spreads) giving a {a.target:.0%} win rate; nan = never reached "
              f"within the swept intervals")
        print(out.to_string(index=False, float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()
