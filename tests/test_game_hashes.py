"""The same games, bit for bit: per-game output hashes of every game, hero and built-in policy against the
recorded baseline (``tools/game_hashes.py``; a moved hash is a rules change and needs its ruling)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("game_hashes", ROOT / "tools" / "game_hashes.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _recorded() -> dict:
    return json.loads((ROOT / "tests" / "data" / "game_hashes.json").read_text())


def test_every_registered_game_has_recorded_hashes():
    from foury_sim.registry import games

    assert set(_recorded()["runs"]["2000"]) == set(games())


@pytest.mark.parametrize("game", sorted(_recorded()["runs"]["2000"]))
def test_every_game_hero_and_policy_plays_the_recorded_games(game):
    """One test per game (the suite's two processes share the games' hashing, about a minute in all)."""
    tool = _tool()
    doc = json.loads(tool.BASELINE.read_text())
    cells = doc["runs"]["2000"][game]
    got = tool.game_hashes(2000, doc["seed"], only=[game])
    assert set(got) == {game}
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


def _kernel_functions():
    import ast

    src = (ROOT / "foury_sim" / "games" / "tactics" / "kernel.py").read_text()
    return {f.name: f for f in ast.walk(ast.parse(src)) if isinstance(f, ast.FunctionDef)}


def _work_uses(fn):
    """``(field, how)`` for every ``w.field`` in ``fn`` that is written (``w.f[i] = ...``) or handed to a call."""
    import ast

    uses = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign | ast.AugAssign):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute) and isinstance(
                        t.value.value, ast.Name) and t.value.value.id == "w":
                    uses.add((t.value.attr, "write"))
        if isinstance(node, ast.Call):
            for a in node.args:
                if isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == "w":
                    uses.add((a.attr, "call"))
    return uses


def test_tactics_field_caches_are_marked_dirty_by_every_map_change():
    """The cached fields (route_fields: dg, the key field d1, the passability copy d2; mon_field: mg, ml) are
    only written by their owners and are valid while ``S_MAPV`` is: every function that changes a tile's thing
    (``w.th``) or its opacity (``w.opq``) bumps ``S_MAPV`` (the same games: a missed mark would replay stale
    advice, which the hash cells catch only if a hashed game meets it)."""
    import ast

    fns = _kernel_functions()
    owners = {"d1": "route_fields", "d2": "route_fields", "dg": "route_fields", "mg": "mon_field", "ml": "mon_field"}
    for name, fn in fns.items():
        for field, how in _work_uses(fn):
            if field in owners:
                assert name == owners[field], f"{name} {how}s w.{field}, a cache of {owners[field]}"
        writes_map = {f for f, how in _work_uses(fn) if how == "write"} & {"th", "opq"}
        if writes_map and name != "setup":  # setup starts a game: S_MAPV and the cache keys are reset there
            bumps = [n for n in ast.walk(fn) if isinstance(n, ast.AugAssign) and "S_MAPV" in ast.unparse(n.target)]
            assert bumps, f"{name} changes w.{'/'.join(sorted(writes_map))} without bumping S_MAPV"
    assert "S_RC_V] = -1" in ast.unparse(fns["setup"]) and "S_MC_G] = -1" in ast.unparse(fns["setup"])
