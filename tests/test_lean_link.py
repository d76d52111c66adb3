"""config.lean_link: LLVM's module passes and the machine code run once, for the entry point's module, not in every
callee's compile; the code generator's IR passes run before the module passes."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit
from numba.core import codegen

from foury_sim import config

pytestmark = pytest.mark.skipif(config.JIT_DISABLED, reason="compiles nothing without the JIT")


def _spy(monkeypatch) -> list[tuple[str, bool]]:
    """Record each library whose final module is optimised: (name, whether numba's module passes ran)."""
    assert config.lean_link()
    lean = codegen.CPUCodeLibrary._optimize_final_module
    numbas = lean.full
    seen: list[tuple[str, bool]] = []

    def full(self) -> None:
        seen[-1] = (seen[-1][0], True)
        numbas(self)

    def spy(self) -> None:
        seen.append((self.name, False))
        lean(self)

    monkeypatch.setattr(lean, "full", full)
    monkeypatch.setattr(codegen.CPUCodeLibrary, "_optimize_final_module", spy)
    return seen


def test_callees_skip_the_module_passes_and_the_entry_runs_them(monkeypatch):
    seen = _spy(monkeypatch)

    @njit
    def hearts_left(hearts, hit):
        return max(hearts - hit, 0)

    @njit
    def fight(hearts, hits):
        for h in hits:
            hearts = hearts_left(hearts, h)
        return hearts

    hits = np.array([1, 2, 0, 3], dtype=np.int64)
    assert fight(5, hits) == 0
    assert fight(9, hits) == 3
    ran = {name.rsplit(".", 1)[-1]: full for name, full in seen if "hearts_left" in name or "fight" in name}
    assert ran == {"hearts_left": False, "fight": True}


def test_a_function_compiled_from_python_is_an_entry(monkeypatch):
    seen = _spy(monkeypatch)

    @njit
    def clover(x):
        return 2 * x + 1

    assert clover(20) == 41
    assert [full for name, full in seen if name.endswith("clover")] == [True]


def test_the_code_generators_ir_passes_run_before_the_module_passes_of_an_entry_only(monkeypatch):
    assert config.lean_link()
    lean = codegen.CPUCodeLibrary._optimize_final_module
    prepare, full = lean.prepare, lean.full
    steps: list[tuple[str, str]] = []

    def step(name, numbas):
        def run(self) -> None:
            steps.append((self.name.rsplit(".", 1)[-1], name))
            numbas(self)
        return run

    monkeypatch.setattr(lean, "prepare", step("prepare", prepare))
    monkeypatch.setattr(lean, "full", step("module passes", full))

    @njit
    def lair_left(lair, slain):
        return max(lair - slain, 0)

    @njit
    def dragon(lair, slain):
        return lair_left(lair, slain) + lair_left(slain, lair)

    assert dragon(5, 2) == 3
    assert [s for s in steps if s[0] in ("lair_left", "dragon")] == [("dragon", "prepare"), ("dragon", "module passes")]


def test_full_link_keeps_numbas_default_and_its_own_cache_key():
    code = ("from foury_sim import config; from numba.core import codegen; "
            "before = codegen.CPUCodeLibrary._optimize_final_module; "
            "print(config.lean_link(), codegen.CPUCodeLibrary._optimize_final_module is before, "
            "config._source_hash(('games/delve',)))")
    out = {}
    for full in ("", "1"):
        env = dict(os.environ, FOURY_SIM_FULL_LINK=full)
        out[full] = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                   check=True).stdout.split()
    assert out[""][:2] == ["True", "False"]  # installed: numba's method replaced
    assert out["1"][:2] == ["False", "True"]  # left as numba has it
    assert out[""][2] != out["1"][2]  # a measure of the default never loads the lean kernels


def test_an_entrys_callees_are_internal_to_its_module_before_the_module_passes(monkeypatch):
    """``internal_callees``: the callees linked into an entry point's module are internal there (LLVM may then drop
    the arguments they never read and inline them), the entry itself stays external, and it computes the same."""
    from llvmlite import binding as ll

    assert config.lean_link() and config.INTERNAL_CALLEES
    lean = codegen.CPUCodeLibrary._optimize_final_module
    numbas = lean.full
    linkage: dict[str, set[str]] = {}

    def full(self) -> None:
        if self.name.endswith("hoard"):
            for fn in self._final_module.functions:
                if not fn.is_declaration:
                    name = next((k for k in ("loot_of", "hoard") if k in fn.name), fn.name)
                    linkage.setdefault(name, set()).add(str(fn.linkage))
        numbas(self)

    monkeypatch.setattr(lean, "full", full)

    @njit
    def loot_of(rooms, sheet, cell):
        return rooms[cell, 1] + sheet[0]  # reads two of the three arrays' data, none of their strides or counts

    @njit
    def hoard(rooms, sheet, unused):
        return loot_of(rooms, sheet, 0) + loot_of(rooms, sheet, 1) + unused.shape[0]

    rooms = np.arange(6, dtype=np.int64).reshape(2, 3)
    assert hoard(rooms, np.array([10], np.int64), np.zeros(3, np.int64)) == 1 + 10 + 4 + 10 + 3
    assert linkage["loot_of"] == {str(ll.Linkage.internal)} and linkage["hoard"] == {str(ll.Linkage.external)}


def test_linkonce_keeps_numbas_linkage_and_its_own_cache_key():
    code = ("from foury_sim import config; print(config.INTERNAL_CALLEES, config._source_hash(('games/delve',)))")
    out = {}
    for keep in ("", "1"):
        env = dict(os.environ, FOURY_SIM_LINKONCE=keep)
        out[keep] = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                   check=True).stdout.split()
    assert out[""][0] == "True" and out["1"][0] == "False"
    assert out[""][1] != out["1"][1]  # a measure of numba's linkage never loads the other kernels


def test_a_callee_gets_machine_code_only_when_python_calls_it():
    assert config.lean_link()

    @njit
    def sword(hearts):
        return max(hearts - 2, 0)

    @njit
    def duel(hearts, rounds):
        for _ in range(rounds):
            hearts = sword(hearts)
        return hearts

    assert duel(7, 2) == 3  # sword is linked into duel as IR: no machine code of its own
    (callee,) = sword.overloads.values()
    assert isinstance(callee.entry_point, config.LazyEntry) and callee.library._foury_lazy
    assert sword(5) == 3  # Python calls it: its machine code now, the same answer
    (callee,) = sword.overloads.values()
    assert not isinstance(callee.entry_point, config.LazyEntry) and not callee.library._foury_lazy
    assert sword(1) == 0 and duel(9, 3) == 3


_MODULE = '''
from numba import njit

@njit(cache=True)
def clover(x):
    return 3 * x + 1

@njit(cache=True)
def lair(x):
    return clover(x) + clover(x + 1)
'''


def test_a_lazy_callee_round_trips_through_the_cache(tmp_path):
    """Cached as bitcode by its caller's process; the first process that calls it from Python translates it and saves
    it again as object code, which the next one loads (numba's usual form)."""
    (tmp_path / "lazy_mod.py").write_text(_MODULE)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tmp_path))
    code = ("import sys; from foury_sim import config; config.lean_link(); from numba.core import codegen; "
            "kinds = []; u = codegen.CPUCodeLibrary._unserialize.__func__; "
            "codegen.CPUCodeLibrary._unserialize = classmethod(lambda c, g, s: (kinds.append(s[1]), u(c, g, s))[1]); "
            "import lazy_mod as m; f = getattr(m, sys.argv[1]); "
            "print(f(int(sys.argv[2])), f.stats.cache_hits.total(), ','.join(kinds) or '-')")

    def run(fn: str, x: int) -> list[str]:
        return subprocess.run([sys.executable, "-c", code, fn, str(x)], env=env, cwd=tmp_path, capture_output=True,
                              text=True, check=True).stdout.split()

    assert run("lair", 2) == ["17", "0", "-"]  # compiled; clover compiled inside it, cached as bitcode
    assert run("clover", 5) == ["16", "1", "bitcode"]  # its IR loaded, translated, saved again as object code
    assert run("clover", 6) == ["19", "1", "object"]
    assert run("lair", 4) == ["29", "1", "object"]


def test_a_prange_kernel_leaves_the_module_passes_to_its_parfors_libraries(monkeypatch):
    """The parfor's gufunc and numba's two wrappers each optimise the linked tree; the kernel's own library, which
    links the last wrapper, is translated without a fourth round (``parfor_entry``), and computes the same."""
    from numba import prange

    seen = _spy(monkeypatch)

    @njit(parallel=True)
    def sector_totals(rolls):
        out = np.zeros(rolls.shape[0], np.int64)
        for i in prange(rolls.shape[0]):
            out[i] = rolls[i].sum() * 2 + 1
        return out

    rolls = np.arange(24, dtype=np.int64).reshape(6, 4)
    assert sector_totals(rolls).tolist() == (rolls.sum(axis=1) * 2 + 1).tolist()
    roots = [(name, full) for name, full in seen if name.endswith("sector_totals") or name == "parallelgufuncwrapper"
             or name.startswith("__numba_parfor_gufunc") or "GufuncWrapper" in name]
    assert [full for _, full in roots] == [True, True, True, False], roots
    assert roots[-1][0].endswith("sector_totals")
