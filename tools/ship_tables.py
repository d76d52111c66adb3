"""Compute the tables shipped with the games (data a first run would otherwise compile and compute).

Delve's risk policy: the clear table of every hero of the shipped rules (``foury_sim/games/delve/data/
clear_tables.npz``, with the hash of the sources it was computed from in ``clear_tables.toml``). Run it after a
change to those sources (``odds.TABLE_SOURCES``); ``tests/test_delve_odds.py`` fails until it is run:

    python tools/ship_tables.py
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # this checkout's foury_sim, even when another one is installed (a worktree, a CI clone)
    sys.path.insert(0, str(ROOT))


def main() -> None:
    odds = importlib.import_module("foury_sim.games.delve.odds")
    changed = odds.ship_clear_tables()
    print(f"delve clear tables: {'rewritten' if changed else 'unchanged'} ({odds.SHIPPED}); "
          f"sources {odds.table_sources()}")


if __name__ == "__main__":
    main()
