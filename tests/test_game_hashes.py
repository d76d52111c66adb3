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


def _row_of(node):
    """The ``W_*`` row named by ``w.wl[W_X]``, ``w.wl[W_X, i]`` or ``w.wl[W_X][i]`` (Work's packed rows), else None."""
    import ast

    if not isinstance(node, ast.Subscript):
        return None
    if isinstance(node.value, ast.Subscript):
        return _row_of(node.value)
    if not (isinstance(node.value, ast.Attribute) and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "w"):
        return None
    first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
    return first.id if isinstance(first, ast.Name) and first.id.startswith("W_") else None


def _work_uses(fn, readers=frozenset()):
    """``(row, how)`` for every row of Work (``w.wl[W_TH, c] = ...``) that ``fn`` writes, directly or through a name
    bound to the row (``d = w.wi[W_DG]``; ``d[c] = ...``), or hands to a call (``f(w.wi[W_DG], ...)``) of a function
    not in ``readers`` (functions that only read every argument they are given)."""
    import ast

    alias = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            for v in (node.value.body, node.value.orelse) if isinstance(node.value, ast.IfExp) else (node.value,):
                if _row_of(v) and not isinstance(v.value, ast.Subscript) and not isinstance(v.slice, ast.Tuple):
                    alias.setdefault(node.targets[0].id, set()).add(_row_of(v))
    uses = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign | ast.AugAssign):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if _row_of(t):
                    uses.add((_row_of(t), "write"))
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in alias:
                    uses |= {(r, "write") for r in alias[t.value.id]}
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in readers):
            for a in node.args:
                if _row_of(a):
                    uses.add((_row_of(a), "call"))
                elif isinstance(a, ast.Name) and a.id in alias:
                    uses |= {(r, "call") for r in alias[a.id]}
    return uses


def _only_reads(fn, k: int) -> bool:
    """Whether ``fn``'s ``k``-th parameter is only read: never written into (``p[i] = ...``) nor handed on."""
    import ast

    p = fn.args.args[k].arg
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign | ast.AugAssign):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == p:
                    return False
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == p for a in node.args):
            return False
    return True


def test_work_uses_sees_every_kind_of_row_write():
    """The scan below finds writes to Work's packed rows in each form the kernel uses (a check of the check)."""
    import ast

    fn = ast.parse("""
def f(w, st, c):
    w.wl[W_TH, c] = 0
    w.wb[W_OPQ][c] = 1
    d = w.wi[W_ML] if lava else w.wi[W_MG]
    d[c] = 2
    sweep(w.wi[W_DG], c)
    e = w.wi[W_DL]
    return e[c] + w.wi[W_D1, c]
""").body[0]
    assert _work_uses(fn) == {("W_TH", "write"), ("W_OPQ", "write"), ("W_ML", "write"), ("W_MG", "write"),
                              ("W_DG", "call")}


def test_tactics_field_caches_are_marked_dirty_by_every_map_change():
    """The cached fields (route_fields: the goal's field W_DG, the loot field W_DL, the passability copy W_D2;
    mon_field: W_MG, W_ML) are only written by their owners and are valid while the map version they were made on
    is: every function that changes a tile's thing (``W_TH``) or its opacity (``W_OPQ``) bumps ``S_MAPV`` (the same
    games: a missed mark would replay stale advice, which the hash cells catch only if a hashed game meets it)."""
    import ast

    fns = _kernel_functions()
    owners = {"W_D2": "route_fields", "W_DG": "route_fields", "W_DL": "route_fields", "W_MG": "mon_field",
              "W_ML": "mon_field"}
    grid = {f.name: f for f in ast.walk(ast.parse((ROOT / "foury_sim" / "grid.py").read_text()))
            if isinstance(f, ast.FunctionDef)}
    readers = {"first_step": (0, 4)}  # functions that only read the arrays they are given (checked here)
    assert all(_only_reads(grid[r], k) for r, ks in readers.items() for k in ks)
    seen = set()
    for name, fn in fns.items():
        uses = _work_uses(fn, readers)
        seen |= {f for f, _ in uses}
        for field, how in uses:
            if field in owners:
                assert name == owners[field], f"{name} {how}s {field}, a cache of {owners[field]}"
        writes_map = {f for f, how in uses if how == "write"} & {"W_TH", "W_OPQ"}
        if writes_map and name != "setup":  # setup starts a game: S_MAPV and the cache keys are reset there
            bumps = [n for n in ast.walk(fn) if isinstance(n, ast.AugAssign) and "S_MAPV" in ast.unparse(n.target)]
            assert bumps, f"{name} changes {'/'.join(sorted(writes_map))} without bumping S_MAPV"
    assert set(owners) | {"W_TH", "W_OPQ"} <= seen  # the scan still finds the rows it guards (not a test of nothing)
    writers = {n for n, fn in fns.items() if {("W_TH", "write"), ("W_OPQ", "write")} & _work_uses(fn, readers)}
    assert {"open_door", "interact", "setup"} <= writers
    assert "S_RC_V] = -1" in ast.unparse(fns["setup"]) and "S_MC_G] = -1" in ast.unparse(fns["setup"])
