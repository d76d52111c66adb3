"""The same games, bit for bit: per-game output hashes of every game, hero and built-in policy against the
recorded baseline (``tools/game_hashes.py``; a moved hash is a rules change and needs its ruling)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("game_hashes", ROOT / "tools" / "game_hashes.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_game_hero_and_policy_plays_the_recorded_games():
    tool = _tool()
    doc = json.loads(tool.BASELINE.read_text())
    base = {"hashes": doc["runs"]["2000"]}
    got = tool.game_hashes(2000, doc["seed"])
    assert set(got) == set(base["hashes"])  # every registered game has a baseline
    for game, cells in base["hashes"].items():
        assert set(got[game]) == set(cells), game
        moved = {k: (v, got[game][k]) for k, v in cells.items() if got[game][k] != v}
        assert not moved, f"{game}: games changed (rerun tools/game_hashes.py and rule on it): {moved}"


def test_every_built_in_dungeon_master_has_hash_cells():
    """Tactics is hashed under each built-in DM policy, not only the default one (speed work on the DM's side)."""
    from foury_sim.games.tactics import DEFAULT_DM, DM_POLICIES, POLICIES

    tool = _tool()
    assert tool.RUN_VARIANTS["tactics"] == [{"dm": d} for d in DM_POLICIES if d != DEFAULT_DM]
    cells = json.loads(tool.BASELINE.read_text())["runs"]["2000"]["tactics"]
    for dm in DM_POLICIES:
        tag = "" if dm == DEFAULT_DM else f" dm={dm}"
        assert {f"adventurer/{p}{tag}" for p in POLICIES} <= set(cells), dm
