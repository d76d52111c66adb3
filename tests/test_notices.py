"""Every compile Python starts is said on stderr (``notices``), and a first run or ``odds`` from the shipped machine
code compiles nothing (issue 17: a newcomer never waits in silence, and waits as little as the code allows)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from foury_sim import config, notices, shipped_ir
from foury_sim.rng import seed_stream

ROOT = Path(__file__).resolve().parent.parent


def test_a_function_python_compiles_is_announced_once(monkeypatch):
    said: list[str] = []
    monkeypatch.setattr(config, "NOTICE_SINK", [said.append])
    if config.JIT_DISABLED:  # (NUMBA_DISABLE_JIT=1: nothing compiles, nothing to listen to)
        assert notices.install() is False and said == []
        return
    assert notices.install()

    def doubled(a):
        return a * 2

    fn = njit(doubled)  # (no cache: compiled now, and in every run: said so; it said "later runs load it")
    assert fn(np.int64(3)) == 6
    assert said == [notices.notice(doubled, cached=False)]
    assert said[0] == (f"foury-sim: compiling doubled ({__file__}) (in every run: it is not kept in the cache; "
                       "seconds on a 2-core machine)...")
    assert notices.notice(doubled).startswith(f"foury-sim: compiling doubled ({__file__}) (first use after an install")
    assert fn(np.int64(4)) == 8 and fn(np.float64(1.5)) == 3.0  # a second signature: said once a function
    assert len(said) == 1


def test_an_entry_point_is_announced_by_its_own_notice_not_twice(monkeypatch):
    """``CompiledOnFirstUse`` says what it compiles (the engine and its part); the listener leaves it alone."""
    from numba import types

    said: list[str] = []
    monkeypatch.setattr(config, "NOTICE_SINK", [said.append])
    notices.install()

    def tripled(a):
        return a * 3

    monkeypatch.setattr(config, "ENTRY_POINTS", list(config.ENTRY_POINTS))  # (the entry joins a copy)
    entry = config.CompiledOnFirstUse("foury_sim.games.delve.notices_test", types.int64(types.int64), tripled,
                                      part="a test")
    monkeypatch.setattr(config, "CACHE", False)  # every call compiles: the entry point's own notice
    assert entry()(4) == 12
    if config.JIT_DISABLED:  # (a plain function: nothing compiled, nothing said)
        assert said == []
        return
    assert said == [entry.notice()]
    assert "the delve engine's a test" in said[0]


def test_the_notice_names_a_game_part_or_foury_sims_code():
    import importlib

    odds = importlib.import_module("foury_sim.games.delve.odds")  # (the package's ``odds`` is a function)
    dice = importlib.import_module("foury_sim.games.rooms.dice")

    def py(fn):
        return getattr(fn, "py_func", fn)  # (a plain function under NUMBA_DISABLE_JIT=1)

    assert "compiling the delve engine's odds code (feasible) (" in notices.notice(py(odds.feasible))
    assert "compiling the rooms engine's dice code (keep_mask) (" in notices.notice(py(dice.keep_mask))
    assert "compiling foury-sim's rng code (seed_stream) (" in notices.notice(py(seed_stream))


def test_the_policy_placeholder_compiles_nothing_and_writes_nothing_beside_the_sources(tmp_path):
    """``policy.PLACEHOLDER`` (what a kernel is passed for a built-in policy) is a native function's address
    (numba's wrapper-address protocol), not a function compiled at a first kernel call: a fresh copy's built-in
    policy, made and handed to a kernel, compiles nothing, says nothing and leaves no cache file in the copy's
    package. Before session 66, ``no_user_policy`` (``cache=True``) compiled there at every fresh checkout's
    first run, half a second and a compile notice, into ``foury_sim/__pycache__``, outside the cache directory."""
    import shutil

    if config.JIT_DISABLED:
        pytest.skip("compiled code only: nothing is compiled with NUMBA_DISABLE_JIT=1")
    shutil.copytree(ROOT / "foury_sim", tmp_path / "foury_sim", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "FOURY_SIM_NO_CACHE", "PYTHONPATH")}
    env["FOURY_SIM_CACHE_DIR"] = str(tmp_path / "cache")
    code = ("import foury_sim.policy as p; print(p.__file__)\n"
            "from foury_sim.policy import make_policy, PolicySpec, PLACEHOLDER, POLICY_SIG\n"
            "from numba import typeof\n"
            "pol = make_policy('any', {'any': PolicySpec('any', 1, 'a built-in', {})}, None)\n"
            "assert pol.kernel_fn is PLACEHOLDER and typeof(PLACEHOLDER).signature == POLICY_SIG\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith(str(tmp_path)), (out.stdout, out.stderr[-2000:])
    assert out.stderr == ""
    assert [p.name for p in (tmp_path / "foury_sim").rglob("*.nb[ic]")] == []


@pytest.mark.parametrize("game", ["foury", "delve", "rooms", "tactics"])
def test_a_first_run_and_odds_from_the_shipped_code_compile_nothing(game, tmp_path):
    """An empty cache, nothing set, a CPU with the x86-64-v3 features: ``run`` and ``odds`` load every function
    they compile from the shipped machine code (the notices would say any compile: none is said). Before session
    47, a first Rooms run compiled four table helpers (about 6 s) and a first ``odds`` of Delve, Rooms or Tactics
    compiled for 3-21 s, all of it in silence."""
    if config.JIT_DISABLED:
        pytest.skip("compiled code only: nothing is compiled with NUMBA_DISABLE_JIT=1")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FOURY_SIM_SHIPPED", "NUMBA_CPU"))}
    env["FOURY_SIM_CACHE_DIR"] = str(tmp_path)
    expect = shipped_ir.code_applies(f"games/{game}") == ""
    for args in (["run", game, "--games", "200"], ["odds", game, "--trials", "500"]):
        out = subprocess.run([sys.executable, "-m", "foury_sim", *args, "--format", "json"], env=env, cwd=ROOT,
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-3000:]
        json.loads(out.stdout)
        assert ("compiling" in out.stderr) == (not expect), (args, out.stderr)


def test_a_delve_ruleset_of_ones_own_computes_its_clear_table_from_the_shipped_code(tmp_path):
    """A rule changed with ``--set``: no shipped clear table for it, so the risk policy's table is computed on the
    first run, by the entry point's shipped code (before session 47: ``_clear_table`` compiled, about 18 s here)."""
    if config.JIT_DISABLED:
        pytest.skip("compiled code only: nothing is compiled with NUMBA_DISABLE_JIT=1")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FOURY_SIM_SHIPPED", "NUMBA_CPU"))}
    env["FOURY_SIM_CACHE_DIR"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-m", "foury_sim", "run", "delve", "--set", "dragon.threshold=4", "--games",
                          "200", "--format", "json"], env=env, cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout)["games"] == 200
    assert ("compiling" in out.stderr) == (shipped_ir.code_applies("games/delve") != ""), out.stderr
    assert list(tmp_path.glob("**/*odds*")), "the computed table is kept on disk beside the kernels"


def test_the_seconds_of_the_compiles_said_are_counted(monkeypatch):
    """``foury-sim warm`` said "compiled 0.0 s" after compiling a game's helper (only an engine's entry points were
    counted): the compiles this listener says are timed (``notices.COMPILE_S``)."""
    if config.JIT_DISABLED:  # (nothing compiles: no listener)
        assert not notices.install()
        return
    monkeypatch.setattr(config, "NOTICE_SINK", [lambda text: None])
    assert notices.install()

    def quadrupled(a):
        return a * 4

    before = notices.COMPILE_S[0]
    assert njit(quadrupled)(np.int64(2)) == 8
    assert notices.COMPILE_S[0] - before > 0.001


def test_a_policy_with_the_user_id_and_no_function_is_refused_not_played_as_option_0():
    """``Policy(..., USER_POLICY_ID)`` without a function of its own would have had the kernels call the placeholder,
    which answers option 0 at every decision: refused in one line instead (session 66's review)."""
    import numpy as np

    from foury_sim.errors import InputError
    from foury_sim.policy import PLACEHOLDER, USER_POLICY_ID, Policy

    with pytest.raises(InputError, match=r"^--policy: policy 'mine' has the user policies' id \(99\) but no function$"):
        _ = Policy("mine", USER_POLICY_ID, np.zeros(0), ()).kernel_fn
    assert Policy("greedy", 1, np.zeros(0), ()).kernel_fn is PLACEHOLDER
