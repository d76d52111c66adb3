"""The engine's shipped IR (``foury_sim/shipped_ir.py``): fresh for every game, free of this CPU, seeded once into
an empty cache, and the games played from it are the games compiled from source (on this CPU and on another)."""

from __future__ import annotations

import hashlib
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
    assert meta["cpu"] == shipped_ir.CODE_CPU, STALE.format(game=game)  # (any machine makes the same IR)
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
    monkeypatch.setattr(config, "SHIPPED_IR", False)
    assert shipped_ir.applies("games/rooms") == "FOURY_SIM_SHIPPED_IR=0"
    monkeypatch.setattr(config, "SHIPPED_IR", True)
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
    if shipped_ir.code_applies(package) == "":  # the entry point's machine code too
        entries = entries + shipped_ir.read(package, code=True)["entries"]
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
if "odds" in sys.argv[2:]:  # and the odds' entry point
    from foury_sim.registry import get_game
    rooms = get_game("rooms")
    rooms.odds(rooms.load_ruleset(None, None, None), trials=200, seed=1)
from numba.core.registry import cpu_target
cpu = cpu_target.target_context.codegen().magic_tuple()[1]
import hashlib, os, pickle
code = {}
for folder, _, files in os.walk(config._cache_dir("games/rooms")):
    for f in files:
        if f.endswith(".nbc"):
            lib = pickle.loads(open(os.path.join(folder, f), "rb").read())[0]
            if lib[1] == "object":
                code[f] = hashlib.sha1(shipped_ir.text_section(lib[2][0])).hexdigest()
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


def test_rooms_from_its_shipped_ir_and_from_source_is_the_shipped_machine_code(tmp_path):
    """An empty cache on a machine that names the CPU of the shipped code (``NUMBA_CPU_NAME=x86-64-v3``, no
    features: so the shipped machine code is not loaded): the shipped IR is seeded and loaded, only the entry point
    compiles, and it is the machine code compiled from source (``FOURY_SIM_SHIPPED_IR=0``: the whole tree, nothing
    seeded) and the shipped one, byte for byte (the entry point's ``.ltext``), on any machine (the bundles were
    made for that CPU, not the one of the machine that made them); both play the recorded games of every hero and
    policy. Byte for byte: the engine's entry point (the kernel). The table helpers' entry points (session 47) are
    compiled after others in the process, and numba numbers the functions a process compiles (a ``v`` tag in each
    symbol): from the IR fewer functions compile first, so their tags differ from a compile from source, and LLVM
    may then choose a register differently (seen once for ``dice._tables``, at one place of 19 kB)."""
    cpu = {"NUMBA_CPU_NAME": shipped_ir.CODE_CPU, "NUMBA_CPU_FEATURES": ""}
    ir = _play_rooms(tmp_path / "ir", FOURY_SIM_SHIPPED_IR="1", **cpu)
    assert ir["cpu"] == shipped_ir.CODE_CPU and ir["seeded"]
    bundled = {e.name for e in shipped_ir.read("games/rooms")["entries"]}
    assert bundled & set(ir["loaded"])  # the engine's tree came from the shipped IR (warm's extra steps' need not)
    assert not {e.name for e in shipped_ir.read("games/rooms", code=True)["entries"]} & set(ir["loaded"])
    assert ir["compile_s"] > 0  # a CPU named by the user: compiled, not the shipped code loaded
    source = _play_rooms(tmp_path / "source", FOURY_SIM_SHIPPED_IR="0", **cpu)
    assert source["cpu"] == shipped_ir.CODE_CPU and not source["seeded"]
    shipped = {e.name: hashlib.sha1(e.machine_code()).hexdigest()
               for e in shipped_ir.read("games/rooms", code=True)["entries"]}
    assert ir["code"].keys() == source["code"].keys() >= {name for name in shipped if not name.startswith("odds.")}
    kernel = [name for name in shipped if name.startswith("kernel._kernel-")]
    assert kernel and all(ir["code"][name] == source["code"][name] == shipped[name] for name in kernel)
    assert ir["hashes"] == source["hashes"] == _recorded_rooms()
    again = _play_rooms(tmp_path / "ir", "cached", FOURY_SIM_SHIPPED_IR="1", **cpu)
    assert again["compile_s"] == 0 and again["hashes"] == ir["hashes"]  # (the bundle is not read again)


def _ship_ir():
    import importlib.util

    spec = importlib.util.spec_from_file_location("ship_ir", ROOT / "tools" / "ship_ir.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def _entry_points(game: str) -> list[str]:
    return _ship_ir().entry_points(game)


def test_shipping_removes_an_engine_compiled_here_and_keeps_a_seeded_one(tmp_path, monkeypatch):
    """After ``tools/ship_ir.py``, the next run must load the shipped code, not code compiled here from the same
    sources before the bundle was written (numba loads whatever its cache holds for them)."""
    monkeypatch.setenv("FOURY_SIM_CACHE_DIR", str(tmp_path))
    package = "games/rooms"
    tool = _ship_ir()
    assert tool.drop_compiled_here(package) == ""  # no folder: nothing to do
    folder = Path(config._cache_dir(package))
    (folder / "kernel").mkdir(parents=True)
    (folder / "kernel" / "kernel._kernel-1.py311.nbi").write_bytes(b"compiled here")
    assert tool.drop_compiled_here(package) == str(folder)
    assert not folder.exists()
    assert shipped_ir.seed(package) > 0  # what a first run does: the bundles written, with this checkout's marker
    assert tool.drop_compiled_here(package) == ""
    assert shipped_ir.seeded(package)


@pytest.mark.parametrize("game", games())
def test_every_game_ships_its_entry_points_machine_code_made_from_its_shipped_ir(game):
    """Machine code (made for ``CODE_CPU``) of every entry point a first run compiles, and of nothing else, for
    the sources and environment of the shipped IR."""
    package = f"games/{game}"
    code = shipped_ir.read(package, code=True)
    assert code is not None, STALE.format(game=game)
    meta = code["meta"]
    assert meta["sources"] == shipped_ir.read(package)["meta"]["sources"], STALE.format(game=game)
    assert meta["environment"] == shipped_ir.environment() and meta["cpu"] == shipped_ir.CODE_CPU == "x86-64-v3"
    prefixes = _entry_points(game)
    assert sorted({e.index.split("-", 1)[0] + "-" for e in code["entries"]}) == prefixes
    for e in code["entries"]:
        name, kind, data = pickle.loads(e.data)[0]
        assert kind == "object", (game, e.name)
        assert data[0][:4] == b"\x7fELF", (game, e.name)


def test_code_applies_says_why_not(monkeypatch):
    import numba
    from llvmlite import binding as ll

    host = ll.get_host_cpu_features()
    lacking = sorted(f for f in shipped_ir.CODE_FEATURES if not host.get(f, False))
    assert shipped_ir.code_applies("games/rooms") == (f"this CPU lacks {', '.join(lacking)} (x86-64-v3)" if lacking
                                                      else "")
    monkeypatch.setattr(shipped_ir, "CODE_FEATURES", shipped_ir.CODE_FEATURES | {"no-such-feature"})
    assert shipped_ir.code_applies("games/rooms").startswith("this CPU lacks ")
    assert "no-such-feature" in shipped_ir.code_applies("games/rooms")
    monkeypatch.undo()
    monkeypatch.setattr(numba.config, "CPU_NAME", "generic")
    assert shipped_ir.code_applies("games/rooms") == "NUMBA_CPU_NAME or NUMBA_CPU_FEATURES is set"
    monkeypatch.undo()
    monkeypatch.setattr(config, "SHIPPED_IR", False)  # no IR, no code
    assert shipped_ir.code_applies("games/rooms") == "FOURY_SIM_SHIPPED_IR=0"
    monkeypatch.setattr(config, "SHIPPED_CODE", False)
    assert shipped_ir.code_applies("games/rooms") == "FOURY_SIM_SHIPPED_CODE=0 (or FOURY_SIM_SHIPPED_IR=0)"


def test_shipped_code_off_has_a_cache_folder_of_its_own(monkeypatch):
    on = config._cache_dir("games/rooms")
    monkeypatch.setattr(config, "SHIPPED_CODE", False)
    assert config._cache_dir("games/rooms") == on + "-native"


def test_a_first_run_loads_the_shipped_machine_code_and_plays_the_recorded_games(tmp_path):
    """An empty cache, nothing set: on a CPU with the x86-64-v3 features the entry points' shipped machine code is
    seeded and loaded (nothing compiles, no notice: every entry point of the bundle, the odds' too), and every hero
    and policy plays the recorded games; on one without them, the entry points compile from the IR (the other
    tests)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FOURY_SIM_SHIPPED", "NUMBA_CPU"))}
    out = subprocess.run([sys.executable, "-c", _PLAY, str(ROOT / "tools" / "game_hashes.py"), "odds"],
                         env=dict(env, FOURY_SIM_CACHE_DIR=str(tmp_path)), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    code = {e.name for e in shipped_ir.read("games/rooms", code=True)["entries"]}
    assert got["seeded"] and got["hashes"] == _recorded_rooms()
    if shipped_ir.code_applies("games/rooms") == "":
        assert code <= set(got["loaded"])
        assert got["compile_s"] == 0
        assert "compiling" not in out.stderr
    else:
        assert not code & set(got["loaded"]) and got["compile_s"] > 0


def test_a_second_checkout_sharing_the_cache_folder_is_seeded_too(tmp_path):
    """Two checkouts of the same sources share one source-keyed cache folder, but numba keeps its indexes per
    source path: each checkout is seeded into its own (``shipped_ir._marker``), so the second's first run loads the
    shipped machine code as the first's did (before session 46 it compiled from the IR: the folder was marked)."""
    import shutil

    other = tmp_path / "other"
    shutil.copytree(ROOT / "foury_sim", other / "foury_sim", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FOURY_SIM_SHIPPED", "NUMBA_CPU"))}
    expect_compile = shipped_ir.code_applies("games/rooms") != ""  # (no v3 features: each compiles from the IR)
    for tree, first_run in ((ROOT, True), (other, True), (ROOT, False)):
        out = subprocess.run([sys.executable, "-c", "import foury_sim, json, sys; from foury_sim.cli import main; "
                              "sys.argv = ['foury-sim', 'run', 'rooms', '--games', '200', '--format', 'json']; "
                              "print(json.dumps(foury_sim.__file__)); main()"],
                             env=dict(env, FOURY_SIM_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tree)),
                             cwd=tree, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-3000:]
        first, rest = out.stdout.split("\n", 1)
        assert json.loads(first).startswith(str(tree))  # this checkout's package, not the installed one
        summary = json.loads(rest)
        compiled = expect_compile and first_run  # (a checkout's later run loads what its first one left)
        assert (summary["compile_s"] > 0) == compiled, (tree, out.stderr)
        said = [line for line in out.stderr.splitlines() if "compiling" in line]
        assert bool(said) == compiled, (tree, out.stderr)  # (a fresh copy compiles nothing more: session 66)
        assert [p.name for p in (tree / "foury_sim").rglob("*.nb[ic]")] == [] or tree == ROOT  # (nor writes there)
    markers = sorted(p.name for p in (tmp_path / "cache").glob("games_rooms-*/shipped-ir-*"))
    assert len(markers) == 2, markers



def test_the_shipped_ir_compiled_for_this_machines_cpu_plays_the_recorded_games(tmp_path):
    """The path of a machine the shipped machine code does not fit (a CPU without the x86-64-v3 features, or
    ``FOURY_SIM_SHIPPED_CODE=0``): an empty cache is seeded with the shipped IR, the entry points compile from it
    for this machine's own CPU (not ``CODE_CPU``), and they play the recorded games of every Rooms hero and
    policy."""
    if config.JIT_DISABLED:
        pytest.skip("compiled code only: nothing is compiled with NUMBA_DISABLE_JIT=1")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FOURY_SIM_SHIPPED", "NUMBA_CPU"))}
    out = subprocess.run([sys.executable, "-c", _PLAY, str(ROOT / "tools" / "game_hashes.py")],
                         env=dict(env, FOURY_SIM_CACHE_DIR=str(tmp_path), FOURY_SIM_SHIPPED_CODE="0"),
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    native = json.loads(out.stdout.strip().splitlines()[-1])
    from numba.core.registry import cpu_target

    assert native["cpu"] == cpu_target.target_context.codegen().magic_tuple()[1]  # this machine's, as numba names it
    assert native["seeded"] and native["compile_s"] > 0
    assert {e.name for e in shipped_ir.read("games/rooms")["entries"]} & set(native["loaded"])  # (from the IR)
    assert not {e.name for e in shipped_ir.read("games/rooms", code=True)["entries"]} & set(native["loaded"])
    assert native["hashes"] == _recorded_rooms()
