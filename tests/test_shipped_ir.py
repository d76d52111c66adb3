"""The engine's shipped IR (``foury_sim/shipped_ir.py``): fresh for every game, free of this CPU, seeded once into
an empty cache, and the games played from it are the games compiled from source (on this CPU and on another)."""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from foury_sim import config, shipped_ir
from foury_sim.registry import games

ROOT = Path(__file__).resolve().parent.parent
STALE = "stale: run python tools/ship_ir.py {game} (after any change to the engine or the core it compiles)"


@pytest.mark.parametrize("game", games())
def test_every_game_ships_ir_made_from_its_sources_for_this_numba(game):
    package = f"games/{game}"
    bundle = shipped_ir.read(package)
    assert bundle is not None, STALE.format(game=game)
    meta = bundle["meta"]
    assert meta["sources"] == config._source_hash((package,)), STALE.format(game=game)
    assert meta["environment"] == shipped_ir.environment(), STALE.format(game=game)
    assert shipped_ir.applies(package) == ""
    assert bundle["entries"], game
    assert len(meta["functions"]) == len(bundle["entries"])


@pytest.mark.parametrize("game", games())
def test_the_shipped_ir_holds_nothing_of_the_cpu_it_was_made_on(game):
    """Bitcode only (no machine code), no target CPU or features, no intrinsic of a CPU feature: any x86-64
    machine translates it for itself."""
    from llvmlite import binding as ll

    for e in shipped_ir.read(f"games/{game}")["entries"]:
        name, kind, data = pickle.loads(e.data)[0]
        assert kind == "bitcode", (game, e.name)
        text = str(ll.parse_bitcode(data))
        assert not re.search(r'"target-(cpu|features)"', text), (game, e.name)
        # x86's own intrinsics only for lock-prefixed integer arithmetic (every x86-64 has it: NRT's reference counts)
        assert set(re.findall(r"@llvm\.x86\.[\w.]+", text)) <= {"@llvm.x86.atomic.sub.cc.i64"}, (game, e.name)
        assert "x86_64" in ll.parse_bitcode(data).triple


def test_applies_says_why_not(monkeypatch):
    monkeypatch.setattr(shipped_ir, "SHIPPED_IR", False)
    assert shipped_ir.applies("games/rooms") == "FOURY_SIM_SHIPPED_IR=0"
    monkeypatch.setattr(shipped_ir, "SHIPPED_IR", True)
    monkeypatch.setattr(config, "_source_hash", lambda packages: "0" * 16)
    assert "python tools/ship_ir.py rooms" in shipped_ir.applies("games/rooms")
    monkeypatch.undo()
    real = shipped_ir.environment()
    monkeypatch.setattr(shipped_ir, "environment", lambda: dict(real, numba="0.1.0"))
    assert shipped_ir.applies("games/rooms") == f"made for another numba ({real['numba']}, here 0.1.0)"


def test_seed_writes_each_function_once_under_this_machines_key_and_leaves_a_kept_index_alone(tmp_path, monkeypatch):
    from numba.core.registry import cpu_target

    monkeypatch.setenv("FOURY_SIM_CACHE_DIR", str(tmp_path))
    package = "games/rooms"
    entries = shipped_ir.read(package)["entries"]
    kept = entries[0]
    folder = shipped_ir._index_dir(config._cache_dir(package), kept.file)
    os.makedirs(folder)
    Path(folder, kept.index).write_bytes(b"numba's own")
    assert not shipped_ir.seeded(package)
    n = shipped_ir.seed(package)
    assert shipped_ir.seeded(package)
    same_index = [e for e in entries if (e.file, e.index) == (kept.file, kept.index)]
    assert n == len(entries) - len(same_index)
    assert Path(folder, kept.index).read_bytes() == b"numba's own"
    magic = cpu_target.target_context.codegen().magic_tuple()
    for e in entries:
        if e in same_index:
            continue
        path = Path(shipped_ir._index_dir(config._cache_dir(package), e.file), e.index)
        with open(path, "rb") as f:
            import numba

            assert pickle.load(f) == numba.__version__
            stamp, overloads = pickle.loads(f.read())
        assert overloads[(e.sig, magic, e.code)] == e.name
        assert Path(path.parent, e.name).read_bytes() == e.data
    assert shipped_ir.seed(package) == 0  # once


def test_a_cache_that_cannot_be_written_is_not_seeded_and_the_run_goes_on(tmp_path, monkeypatch):
    monkeypatch.setenv("FOURY_SIM_CACHE_DIR", str(tmp_path))

    def refuse(path, data):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(shipped_ir, "_put", refuse)
    assert shipped_ir.seed("games/rooms") == 0
    assert not shipped_ir.seeded("games/rooms")


def test_a_damaged_bundle_is_not_used_and_the_run_goes_on(tmp_path, monkeypatch):
    monkeypatch.setenv("FOURY_SIM_CACHE_DIR", str(tmp_path / "cache"))
    damaged = tmp_path / "engine_ir.xz"
    damaged.write_bytes(b"version https://git-lfs.github.com/spec/v1\n")
    monkeypatch.setattr(shipped_ir, "bundle_path", lambda package: damaged)
    assert shipped_ir.applies("games/rooms").startswith("its file cannot be read (LZMAError")
    assert shipped_ir.seed("games/rooms") == 0
    assert not shipped_ir.seeded("games/rooms")


_PLAY = """
import json, sys
from foury_sim import config, shipped_ir
loaded = shipped_ir.record_loads()
if sys.argv[2:] == ["cached"]:  # a start from a filled cache must not read the bundle
    def read(package):
        raise AssertionError("the shipped IR was read on a cached start")
    shipped_ir.read = read
import importlib.util
spec = importlib.util.spec_from_file_location("game_hashes", sys.argv[1])
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)
hashes = tool.game_hashes(2000, 1, only=["rooms"])
from numba.core.registry import cpu_target
cpu = cpu_target.target_context.codegen().magic_tuple()[1]
import hashlib, os, pickle, struct
def section(obj, name):  # an ELF64 object's section, by name
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    size, n, names = struct.unpack_from("<HHH", obj, 0x3A)
    head = lambda i: struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * size)
    base = head(names)[4]
    for i in range(n):
        h = head(i)
        if obj[base + h[0]:obj.index(b"\\0", base + h[0])].decode() == name:
            return obj[h[4]:h[4] + h[5]]
code = {}
for folder, _, files in os.walk(config._cache_dir("games/rooms")):
    for f in files:
        if f.endswith(".nbc"):
            lib = pickle.loads(open(os.path.join(folder, f), "rb").read())[0]
            if lib[1] == "object":
                code[f] = hashlib.sha1(section(lib[2][0], ".ltext") or b"").hexdigest()
print(json.dumps({"hashes": hashes["rooms"], "loaded": loaded, "seeded": shipped_ir.seeded("games/rooms"),
                  "compile_s": config.FIRST_USE["compile_s"], "cpu": cpu, "code": code}))
"""


def _play_rooms(cache: Path, *args: str, **env) -> dict:
    out = subprocess.run([sys.executable, "-c", _PLAY, str(ROOT / "tools" / "game_hashes.py"), *args],
                         env=dict(os.environ, FOURY_SIM_CACHE_DIR=str(cache), **env), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _recorded_rooms() -> dict:
    doc = json.loads((ROOT / "tests" / "data" / "game_hashes.json").read_text())
    assert doc["seed"] == 1
    return doc["runs"]["2000"]["rooms"]


def test_rooms_from_its_shipped_ir_on_another_cpu_plays_the_recorded_games(tmp_path):
    """An empty cache on a machine that names another CPU (``NUMBA_CPU_NAME=generic``: another key in numba's
    index, machine code without this CPU's features): the shipped IR is seeded and loaded, only the entry point
    compiles, and every hero and policy plays the recorded games."""
    got = _play_rooms(tmp_path, NUMBA_CPU_NAME="generic", FOURY_SIM_SHIPPED_IR="1")
    assert got["cpu"] == "generic"
    assert got["seeded"]
    bundled = {e.name for e in shipped_ir.read("games/rooms")["entries"]}
    assert bundled & set(got["loaded"])  # the engine's tree came from the shipped IR (warm's extra steps' need not)
    assert got["compile_s"] > 0
    assert got["hashes"] == _recorded_rooms()


def test_rooms_from_its_shipped_ir_and_from_source_is_the_same_machine_code(tmp_path):
    """On this CPU, the engine compiled from the shipped IR and the engine compiled from source
    (``FOURY_SIM_SHIPPED_IR=0``: the whole tree, nothing seeded) are the same machine code, byte for byte (the entry
    point's ``.ltext``), and play the recorded games."""
    ir = _play_rooms(tmp_path / "ir", FOURY_SIM_SHIPPED_IR="1")
    source = _play_rooms(tmp_path / "source", FOURY_SIM_SHIPPED_IR="0")
    assert ir["seeded"] and not source["seeded"]
    assert ir["code"] and ir["code"] == source["code"]
    assert ir["hashes"] == source["hashes"] == _recorded_rooms()
    again = _play_rooms(tmp_path / "ir", "cached", FOURY_SIM_SHIPPED_IR="1")  # the bundle is not read again
    assert again["compile_s"] == 0 and again["hashes"] == ir["hashes"]
