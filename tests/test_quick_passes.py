"""quick_passes: numba's live-variable analysis, flag hashing and SSA reconstruction, the same answers as numba's."""

from __future__ import annotations

import copy
import io
import random
from contextlib import redirect_stdout

import pytest

from foury_sim import config, quick_passes

pytestmark = pytest.mark.skipif(config.JIT_DISABLED, reason="replaces numba compiler passes: nothing to compile")


def _numbas() -> dict:
    """numba's own functions (``install`` keeps them: with numba's SSA helpers left in place, numba's ``_run_ssa``
    runs as numba wrote it)."""
    quick_passes.install()
    return quick_passes.NUMBAS


def test_installed_on_the_numba_it_was_checked_against():
    import numba

    installed = quick_passes.install()
    if numba.__version__ == "0.68.1":  # the sources recorded in _NUMBA_SOURCES
        assert installed == ["compute_live_map", "TargetConfig", "ssa"]


def _random_cfg(rng: random.Random):
    from numba.core.controlflow import CFGraph

    n = rng.randint(1, 40)
    g = CFGraph()
    for i in range(n):
        g.add_node(i)
    for i in range(n):
        for _ in range(rng.randint(0, 2)):
            g.add_edge(i, rng.randrange(n))  # loops, joins, dead blocks
    g.set_entry_point(0)
    g.process()
    names = [f"hearts{k}" for k in range(50)]
    use = {i: set(rng.sample(names, rng.randint(0, 8))) for i in range(n)}
    defs = {i: set(rng.sample(names, rng.randint(0, 8))) for i in range(n)}
    return g, {i: None for i in range(n)}, use, defs


def test_live_map_matches_numbas_on_random_control_flow():
    numbas = _numbas()["compute_live_map"]
    rng = random.Random(4)
    for _ in range(400):
        cfg, blocks, use, defs = _random_cfg(rng)
        assert quick_passes.compute_live_map(cfg, blocks, use, defs) == numbas(cfg, blocks, use, defs)


def _game_functions():
    import importlib

    from numba.core.registry import CPUDispatcher

    fns = []
    for game in ("delve", "foury", "rooms", "tactics"):
        kernel = importlib.import_module(f"foury_sim.games.{game}.kernel")
        fns += [v.py_func for v in vars(kernel).values() if isinstance(v, CPUDispatcher)]
    return fns


def test_live_map_matches_numbas_on_every_game_function():
    from numba.core import analysis as live
    from numba.core.compiler import run_frontend

    numbas = _numbas()["compute_live_map"]
    fns = _game_functions()
    assert len(fns) > 150
    for fn in fns:
        blocks = run_frontend(fn).blocks
        cfg = live.compute_cfg_from_blocks(blocks)
        ud = live.compute_use_defs(blocks)
        assert quick_passes.compute_live_map(cfg, blocks, ud.usemap, ud.defmap) == numbas(
            cfg, blocks, ud.usemap, ud.defmap), fn.__qualname__


def _dump(func_ir) -> str:
    buf = io.StringIO()
    with redirect_stdout(buf):
        func_ir.dump()
    return buf.getvalue()


def _untyped(fn):
    """``fn``'s IR as the nopython pipeline has it before SSA: its ``inline=`` callees inlined."""
    from numba.core import compiler
    from numba.core import inline_closurecall as icc
    from numba.core.registry import cpu_target

    flags = compiler.Flags()
    flags.nrt = True
    worker = icc.InlineWorker(cpu_target.typing_context, cpu_target.target_context, {}, compiler.Compiler, flags,
                              validator=icc.callee_ir_validator)
    return worker.run_untyped_passes(fn)


def test_ssa_rewrites_to_the_same_ir_as_numbas():
    """One IR, copied, reconstructed once each way: the same dump (names, phis, their incoming order)."""
    from numba.core import ssa

    numbas = _numbas()["_run_ssa"]
    assert ssa._run_ssa is not numbas  # installed
    from foury_sim.games.delve import kernel as delve
    from foury_sim.games.tactics import kernel as tactics

    checked = 0
    for fn in (delve.play_delve.py_func, delve.play_game.py_func, tactics.player_turn.py_func):
        func_ir = _untyped(fn)
        twin, memo = func_ir.copy(), {}  # (numba's inliner copies IR so: its blocks share one scope)
        twin.blocks = {label: copy.deepcopy(block, memo) for label, block in func_ir.blocks.items()}
        ssa.reconstruct_ssa(func_ir)  # the blocks that do not name the variable copied as they are
        twin.blocks = numbas(twin.blocks)  # numba's: every block rewritten for every variable
        assert _dump(func_ir) == _dump(twin), fn.__qualname__
        checked += len(func_ir.blocks)
    assert checked > 600  # play_delve alone has hundreds of blocks


def test_flags_hash_and_equality_are_numbas():
    from numba.core.compiler import Flags
    from numba.core.cpu import ParallelOptions

    quick_passes.install()
    a, b, c = Flags(), Flags(), Flags()
    c.nrt = True
    d = Flags()
    d.nrt = False  # set to its default explicitly: equal to one never set
    e = Flags()
    e.auto_parallel = ParallelOptions(True)
    for f in (a, c, d, e):
        assert hash(f) == hash(tuple(sorted(f.values())))  # numba's formula
    assert a == b and a == d and d == a
    assert a != c and c != a and a != e
    assert len({(a, 1), (b, 1), (c, 1), (d, 1)}) == 2
