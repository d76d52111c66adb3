"""Per-game output hashes for every registered game, hero and built-in policy (principle 11).

A change that moves a hash changes the games played: it is a rules change and needs its ruling.
Speed work and refactors must keep every hash.

    python tools/game_hashes.py                 # print the hashes and compare with the baseline
    NUMBA_DISABLE_JIT=1 python tools/game_hashes.py --games 100   # without compiling (slow: it ran over 20 min here)
    python tools/game_hashes.py --write         # record a new baseline (after a ruled rules change)
    python tools/game_hashes.py --write --only rooms   # record one game's cells, keep the others' as they are

The baseline is ``tests/data/game_hashes.json`` (one entry per game count: 2000 and 100);
``tests/test_game_hashes.py`` checks the 2000-game entry.
Each (game, hero, policy) cell hashes every per-game column (name and int64 values, in name order)
and every run-level extra of ``--games`` games of stream ``--seed``, with the policy's default parameters.
A game with run options that pick another built-in opponent (Tactics' Dungeon Master, ``--dm``) or another
variant (Dungeon Foury's campaigns, ``--campaign``, and its 2-player mode, ``set=two_player.players=2``) also has
cells under each of those (``RUN_VARIANTS``), named ``hero/policy option=value`` (for Dungeon Foury's variants
the default hero only: ``VARIANTS_DEFAULT_HERO``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # this checkout's foury_sim, even when another one is installed
    sys.path.insert(0, str(ROOT))
BASELINE = ROOT / "tests" / "data" / "game_hashes.json"
#: Run options (``spec.load_ruleset`` keywords) hashed besides each game's defaults: every built-in opponent
#: policy that is not the default, so that speed work on the opponent's side is checked too.
RUN_VARIANTS: dict[str, list[dict[str, str]]] = {
    "tactics": [{"dm": "ruthless"}],  # the default Dungeon Master is by_the_book (tactics.DM_POLICIES)
    # Dungeon Foury's campaigns (``--campaign``) and its 2-player mode (``set``: a ruleset override, ``--set``)
    "foury": [{"campaign": c} for c in ("inout", "slaughter", "santa", "kraken")]
    + [{"set": "two_player.players=2"}],
}
#: Games whose variants are hashed for the default hero only (every built-in policy): the variant's own rules are
#: what they add, and a cell per hero would multiply the suite's time.
VARIANTS_DEFAULT_HERO = {"foury"}


def cell_hash(df, extras: dict[str, np.ndarray]) -> str:
    """sha1 of the per-game columns and run extras, independent of column order."""
    h = hashlib.sha1()
    for name in sorted(df.columns):
        h.update(name.encode())
        h.update(np.ascontiguousarray(df[name].to_numpy(), dtype=np.int64).tobytes())
    for name in sorted(extras):
        h.update(b"extra:" + name.encode())
        h.update(np.ascontiguousarray(extras[name], dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


def game_hashes(games: int = 2000, seed: int = 1, only: list[str] | None = None) -> dict[str, dict[str, str]]:
    """``{game: {"hero/policy": hash}}`` for every registered game (or ``only`` those)."""
    from foury_sim.policy import make_policy
    from foury_sim.registry import games as all_games
    from foury_sim.registry import get_game
    from foury_sim.runner import simulate_games

    out: dict[str, dict[str, str]] = {}
    for name in only or all_games():
        spec = get_game(name)
        cells: dict[str, str] = {}
        for variant in [{}, *RUN_VARIANTS.get(name, [])]:
            opts = {k: v for k, v in variant.items() if k != "set"}
            rs = spec.load_ruleset(None, [variant["set"]] if "set" in variant else None, None, **opts)
            tag = "".join(f" {k}={v}" for k, v in variant.items())
            heroes = spec.heroes(rs)
            if variant and name in VARIANTS_DEFAULT_HERO:
                heroes = [spec.default_hero]
            for hero in heroes:
                for pol in spec.policies:
                    if pol == "search":  # thousands of plays per game (docs/search.md): tests/test_search.py
                        continue
                    df, extras = simulate_games(spec, rs, hero, make_policy(pol, spec.policies), seed, 0, games)
                    cells[f"{hero}/{pol}{tag}"] = cell_hash(df, extras)
        out[name] = cells
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write", action="store_true", help="record these hashes as the baseline")
    ap.add_argument("--baseline", type=Path, default=BASELINE)
    ap.add_argument("--only", action="append", metavar="GAME", help="only this game (repeatable)")
    a = ap.parse_args(argv)
    if a.write:
        doc = {"seed": a.seed, "runs": {str(n): game_hashes(n, a.seed, a.only) for n in (100, 2000)}}
        if a.only and a.baseline.is_file():  # the other games' cells as recorded
            old = json.loads(a.baseline.read_text())
            if old["seed"] == a.seed:
                for n, cells in doc["runs"].items():
                    doc["runs"][n] = {**old["runs"].get(n, {}), **cells}
        a.baseline.write_text(json.dumps(doc, indent=2) + "\n")
        print(f"wrote {a.baseline}")
        return 0
    got = game_hashes(a.games, a.seed, a.only)
    for g, cells in got.items():
        for k, v in cells.items():
            print(f"{g:8s} {k:36s} {v}")
    if not a.baseline.is_file():
        return 0
    doc = json.loads(a.baseline.read_text())
    if doc["seed"] != a.seed or str(a.games) not in doc["runs"]:
        print(f"the baseline has --seed {doc['seed']} and --games {', '.join(doc['runs'])}: not compared")
        return 0
    base = {"hashes": doc["runs"][str(a.games)]}
    moved = [(g, k) for g, cells in base["hashes"].items() for k, v in cells.items()
             if (not a.only or g in a.only) and got.get(g, {}).get(k) != v]
    new = [(g, k) for g, cells in got.items() for k in cells if k not in base["hashes"].get(g, {})]
    for g, k in moved:
        print(f"MOVED  {g} {k}: {base['hashes'][g][k]} -> {got.get(g, {}).get(k)}")
    for g, k in new:
        print(f"NEW    {g} {k}")
    print(f"{sum(len(c) for c in got.values())} cells, {len(moved)} moved, {len(new)} new")
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
