"""config.quick_inline: numba's inlining copies a callee's IR once per copy, not once per block; the same IR."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from foury_sim import config

pytestmark = pytest.mark.skipif(config.JIT_DISABLED, reason="compiles nothing without the JIT")

_SCRIPT = '''
import hashlib
from numba import njit
from numba.core import ir
from foury_sim import config

installed = config.quick_inline()
copies = [0]
numbas = ir.Var.__deepcopy__

def counted(self, memo):
    copies[0] += 1
    return numbas(self, memo)

ir.Var.__deepcopy__ = counted

@njit(inline="always")
def sector(hearts, clover):
    x = 0
    for i in range(hearts):
        if i % 3 == 0:
            x += clover
        elif i % 3 == 1:
            x -= 1
        else:
            x *= 2
    if x > 100:
        x = 100
    return x

@njit
def lair(a, b):
    return sector(a, b) + sector(b, a)

answer = lair(7, 3)
print(installed, copies[0], answer, hashlib.sha1(lair.inspect_llvm(lair.signatures[0]).encode()).hexdigest())
'''


def _compile(tmp_path, slow: str) -> list[str]:
    env = dict(os.environ, FOURY_SIM_SLOW_INLINE=slow, NUMBA_CACHE_DIR=str(tmp_path / f"cache{slow}"))
    return subprocess.run([sys.executable, "-c", _SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True,
                          check=True).stdout.split()


def test_an_inlined_callee_is_copied_once_per_copy_and_compiles_to_the_same_llvm_ir(tmp_path):
    quick, slow = _compile(tmp_path, ""), _compile(tmp_path, "1")
    assert quick[0] == "True" and slow[0] == "False"  # installed, or numba's copy kept
    assert 0 < int(quick[1]) * 3 < int(slow[1])  # numba copied every variable again for every block
    assert quick[2] == slow[2] == "27"
    assert quick[3] == slow[3]  # the same program
