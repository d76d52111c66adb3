"""Compiled kernels are cached under a directory keyed by the hash of their sources.

Numba checks only the timestamp of a cached function's own file; a kernel cached elsewhere would
be reused after an edit to a rule it calls in another file (a stale kernel)."""

from __future__ import annotations

from pathlib import Path

import pytest

from foury_sim.config import _cache_dir


def _keyed_dir(package: str) -> Path:
    return Path(_cache_dir(package))


def test_delve_kernel_cache_is_keyed_by_sources():
    from foury_sim.games.delve.kernel import entry

    assert Path(entry("simulate")._cache._cache_path).parent == _keyed_dir("games/delve")


def test_foury_kernels_cache_is_keyed_by_sources():
    from foury_sim.games.foury import kernel as K

    for name in ("simulate", "play_one"):
        assert Path(K.entry(name)._cache._cache_path).parent == _keyed_dir("games/foury")


def test_importing_the_games_compiles_nothing():
    """Entry points with signatures compile on first use: a Delve run never waits for Foury's."""
    import subprocess
    import sys

    code = (
        "import foury_sim.games.foury as F, foury_sim.games.delve as D\n"
        "from foury_sim.games.foury import kernel as K, combat as C\n"
        "from foury_sim.games.delve import kernel as E\n"
        "assert not any(e.compiled for e in K._ENTRIES.values())\n"
        "assert not C._trials_kernel.compiled and not E._ENTRIES['simulate'].compiled\n"
        # no other numba function of the package is compiled or loaded at import either (the built-in policies'
        # stand-in for a first-class policy argument, ``policy.PLACEHOLDER``, is never compiled: a native function's
        # address); the user policies' guard (``userpolicy._guarded_call``, 10 s to compile on a fresh install)
        # waits for a user policy
        "import sys, foury_sim.games.rooms, foury_sim.games.tactics, foury_sim.userpolicy as U, foury_sim.registry\n"
        "from numba.core.dispatcher import Dispatcher\n"
        "done = {(n, k) for n, m in list(sys.modules.items()) if n.startswith('foury_sim')\n"
        "        for k, v in vars(m).items() if isinstance(v, Dispatcher) and v.overloads}\n"
        "assert not done, done\n"
        "assert 'numba.np.arraymath' not in sys.modules  # (numba's CPU target is set up by a first compile or load)\n"
        "assert U._guarded_call_compiled.cache_info().currsize == 0\n"
        "from foury_sim.registry import get_game\n"
        "spec = get_game('tactics')\n"
        "spec.load_ruleset(None, None, None)  # (its DM policy made and checked: nothing compiled for it yet)\n"
        "assert 'numba.np.arraymath' not in sys.modules\n"
        "from foury_sim.policy import PLACEHOLDER, placeholder\n"
        "assert placeholder() is PLACEHOLDER and not hasattr(PLACEHOLDER, 'signatures')\n"
        "assert 'numba.np.arraymath' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_cold_compile_is_detected_and_announced(tmp_path, monkeypatch):
    """Before compiling, an entry point checks the source-keyed cache; a cold compile (minutes)
    is announced on a terminal's stderr, a cached start (a second) is not."""
    from foury_sim.config import CompiledOnFirstUse
    from foury_sim.games.delve import kernel as E

    monkeypatch.setenv("FOURY_SIM_CACHE_DIR", str(tmp_path))
    entry = CompiledOnFirstUse(E.__name__, E.KERNEL_SIG, E._kernel, parallel=True)
    assert not entry.cached()
    assert entry.notice().startswith("foury-sim: compiling the delve engine")
    index = Path(_cache_dir("games/delve")) / "delve_0123" / "kernel._kernel-1174.py311.nbi"
    index.parent.mkdir(parents=True)
    index.write_bytes(b"")
    assert not entry.cached()  # an index numba cannot read is no cache


def test_the_cache_counts_only_what_numba_would_load_for_this_checkout(tmp_path, monkeypatch):
    """Two clones of the same sources share the source-keyed folder, but numba keeps one index per source path:
    a kernel compiled from one clone is no cache for the other (which compiles: it must be announced), and an
    edited file's old index counts no more."""
    import importlib.util
    import os
    import subprocess
    import sys

    import numba

    from foury_sim.config import cache_holds

    text = "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n"
    for clone in ("one", "two"):
        (tmp_path / clone).mkdir()
        (tmp_path / clone / "tiny_kernel.py").write_text(text)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tmp_path / "one"))
    subprocess.run([sys.executable, "-c", "import tiny_kernel\nassert tiny_kernel.twice(21) == 42\n"], check=True,
                   env=env, cwd=tmp_path)
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))

    def probe(clone: str):
        spec = importlib.util.spec_from_file_location("tiny_kernel", tmp_path / clone / "tiny_kernel.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)  # the decorator makes the dispatcher; nothing compiles
        return mod.twice

    assert cache_holds(probe("one"), (numba.int64,))
    assert not cache_holds(probe("one"), (numba.float64,))  # another signature
    assert not cache_holds(probe("two"), (numba.int64,))  # another checkout
    (tmp_path / "one" / "tiny_kernel.py").write_text(text.replace("2 * x", "x + x"))
    assert not cache_holds(probe("one"), (numba.int64,))  # an edit


@pytest.mark.parametrize("shared", ["grid.py", "search.py"])
def test_an_edit_of_a_shared_module_compiled_into_kernels_changes_every_key(tmp_path, shared):
    """``grid.py`` (paths and line of sight) and ``search.py`` (the search hooks) are compiled into game
    kernels: an edit to either must give every game a new cache directory, or a stale kernel would be reused."""
    import importlib.util
    import shutil

    import foury_sim
    from foury_sim.registry import games

    src = Path(foury_sim.__file__).resolve().parent
    copy = tmp_path / "foury_sim"
    shutil.copytree(src, copy, ignore=shutil.ignore_patterns("__pycache__", "data"))

    def keys() -> dict[str, str]:
        spec = importlib.util.spec_from_file_location(f"config_copy_{shared[:-3]}", copy / "config.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return {g: mod._source_hash((f"games/{g}",)) for g in games()}

    assert shared in __import__("foury_sim.config").config.KERNEL_CORE
    before = keys()
    assert keys() == before  # the key depends on the sources only
    path = copy / shared
    path.write_text(path.read_text() + "\n# an edit\n")
    after = keys()
    assert all(after[g] != before[g] for g in before), (before, after)
