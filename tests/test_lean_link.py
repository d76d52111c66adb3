"""config.lean_link: LLVM's module passes run once, on the entry point's module, not in every callee's compile."""

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
