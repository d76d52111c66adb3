"""quick_passes: numba's live-variable analysis, flag hashing, SSA reconstruction, inlining, error markup and cache
load, the same answers as numba's."""

from __future__ import annotations

import copy
import io
import random
from contextlib import redirect_stdout

import pytest
from numba import njit

from foury_sim import config, quick_passes

pytestmark = pytest.mark.skipif(config.JIT_DISABLED, reason="replaces numba compiler passes: nothing to compile")


def _numbas() -> dict:
    """numba's own functions (``install`` and ``install_compile`` keep them: with numba's SSA helpers left in place,
    numba's ``_run_ssa`` runs as numba wrote it)."""
    quick_passes.install()
    quick_passes.install_compile()
    return quick_passes.NUMBAS


def test_installed_on_the_numba_it_was_checked_against():
    import numba

    quick_passes.install()
    installed = quick_passes.install_compile()
    if numba.__version__ == "0.68.1":  # the sources recorded in _NUMBA_SOURCES
        assert sorted(installed) == sorted(["quick_load", "kept_nrt", "quick_object", "compute_live_map",
                                            "TargetConfig", "ssa", "untyped_once", "markup"])


def test_the_compile_replacements_are_installed_at_the_first_compile():
    """A game's import (``config.use_cache``) installs a load's replacements and leaves a compile's (quick_passes'
    and ``config.plain_indices`` and ``quick_inline``, with the numba modules they read) to numba's first compile:
    a process that only loads never checks them; its first compile installs them before any pass runs."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from foury_sim import config, quick_passes\n"
            "from foury_sim.games import delve\n"
            "first = list(quick_passes._INSTALLED)\n"
            "seen = ('numba.core.inline_closurecall' in sys.modules, config._PLAIN_INDICES, config._QUICK_INLINE)\n"
            "from numba import njit\n"
            "@njit\n"
            "def hearts(n):\n"
            "    return n + 1\n"
            "print(','.join(first), *seen, hearts(2), ','.join(quick_passes._INSTALLED[len(first):]),\n"
            "      config._PLAIN_INDICES, config._QUICK_INLINE)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    first, *seen, answer, later, plain, inline = out.stdout.split()
    assert set(first.split(",")) == {"quick_load", "kept_nrt", "quick_object"} and seen == ["False"] * 3
    assert answer == "3" and set(later.split(",")) == {"compute_live_map", "TargetConfig", "ssa", "untyped_once",
                                                       "markup"}
    assert plain == inline == "True"


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

    quick_passes.install_compile()
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


def test_flags_equality_is_numbas_on_random_settings():
    """Options set on one side, both, or neither, to their default or not: the same answer as numba's ``__eq__``."""
    from numba.core.compiler import Flags

    numbas = _numbas()["TargetConfig.__eq__"]
    names = [k for k, o in Flags.options.items() if o.type is bool]
    rng = random.Random(7)
    for _ in range(500):
        a, b = Flags(), Flags()
        for f in (a, b):
            for k in rng.sample(names, rng.randint(0, 4)):
                setattr(f, k, rng.random() < 0.5)
        assert (a == b) == numbas(a, b) and (b == a) == numbas(b, a), (a._values, b._values)


# An inlined callee called at three sites (and once more inside another inlined function).
_INLINED = """
@njit(inline="always")
def hearts(x):
    y = 0
    for k in range(x):
        y += k if k % 2 else -k
    return y


@njit(inline="always")
def clover(x):
    return hearts(x) * 2


@njit
def three_sites(a, b):
    return hearts(a) + hearts(b) + hearts(a + b) + clover(b)
"""


def _inlining(quick: bool) -> tuple[list[str], list[tuple[str, bool]], object]:
    """Compile a fresh copy of ``_INLINED``'s functions, numba's way or the quick one: the functions put through
    the untyped passes, and each inlining's callee with whether its IR was left as it was."""
    from numba.core import inline_closurecall as icc

    quick_passes.install_compile()
    quick_inline, numbas_inline_function = icc.InlineWorker.inline_function, _numbas()["InlineWorker.inline_function"]
    numbas_run, numbas_inline_ir = icc.InlineWorker.run_untyped_passes, icc.InlineWorker.inline_ir
    runs: list[str] = []
    kept: list[tuple[str, bool]] = []

    def run_untyped_passes(self, func, enable_ssa=False):
        runs.append(func.__name__)
        return numbas_run(self, func, enable_ssa)

    def inline_ir(self, caller_ir, block, i, callee_ir, freevars, arg_typs=None):
        before = _dump(callee_ir)
        out = numbas_inline_ir(self, caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
        kept.append((callee_ir.func_id.func_name, _dump(callee_ir) == before))
        return out

    space = {"njit": njit}
    exec(compile(_INLINED, "<inlined>", "exec"), space)
    icc.InlineWorker.run_untyped_passes, icc.InlineWorker.inline_ir = run_untyped_passes, inline_ir
    icc.InlineWorker.inline_function = quick_inline if quick else numbas_inline_function
    try:
        space["three_sites"].compile("(int64, int64)")
    finally:
        icc.InlineWorker.run_untyped_passes, icc.InlineWorker.inline_ir = numbas_run, numbas_inline_ir
        icc.InlineWorker.inline_function = quick_inline
    return runs, kept, space["three_sites"]


def test_an_inlined_function_runs_numbas_untyped_passes_once():
    """numba runs ``hearts``' untyped passes at each of its inlinings; the quick way once, with the same
    inlinings, each of a copy (the IR kept is left as it was), and the same results as the Python functions."""
    slow_runs, slow_kept, slow = _inlining(quick=False)
    runs, kept, fast = _inlining(quick=True)
    assert sorted(runs) == ["clover", "hearts"]
    assert slow_runs.count("hearts") == slow_kept.count(("hearts", True)) >= 4 and slow_runs.count("clover") == 1
    assert kept == slow_kept and all(k for _, k in kept)
    for a, b in ((0, 0), (3, 4), (7, 2), (-1, 9)):
        assert fast(a, b) == slow(a, b) == slow.py_func(a, b)


def test_typing_error_markup_is_numbas_text():
    """The markup of a typing error's parts: numba's text (colour codes and all), without colorama's wrapping."""
    import sys

    from numba.core import errors

    assert "markup" in quick_passes.install_compile()
    scheme = errors.termcolor()
    out, err = sys.stdout, sys.stderr
    text = scheme.errmsg("No implementation of function") + scheme.highlight("hearts")
    assert sys.stdout is out and sys.stderr is err
    from colorama import Fore, Style

    theme = errors.themes[errors.numba.core.config.COLOR_SCHEME]
    expect = ""
    for color, msg in ((theme["errmsg"], "No implementation of function"), (theme["highlight"], "hearts")):
        expect += (color or "") + Style.BRIGHT + msg + Style.RESET_ALL
    assert text == expect
    assert Fore  # (the themes' colours are colorama's)


#: The start of a child process's script: every refresh of numba's target counted in ``refreshes``.
_COUNT_REFRESHES = """
import numba.core.base as B
refreshes = []
numbas = B.BaseContext.refresh
B.BaseContext.refresh = lambda self: refreshes.append(1) or numbas(self)
"""

_COUNT_PARSES = """
import llvmlite.binding as ll
parses = []  # the IR parsed from bitcode (numba's loads parse an entry's IR; a quick one an empty module)
parse_bitcode = ll.parse_bitcode
ll.parse_bitcode = lambda data, context=None: ((len(data) > 4096 and parses.append(len(data)))
                                               or parse_bitcode(data, context))
"""

_LOAD_AND_PLAY = _COUNT_REFRESHES + _COUNT_PARSES + """
import hashlib, sys
from numba.core.runtime import nrtdynmod
nrt_compiles = []  # the NRT's own functions compiled (numba: in every process; a quick load: kept)
create_nrt_module = nrtdynmod.create_nrt_module
nrtdynmod.create_nrt_module = lambda ctx: nrt_compiles.append(1) or create_nrt_module(ctx)
from foury_sim.policy import make_policy
from foury_sim.registry import get_game
spec = get_game(sys.argv[1])
rules = spec.load_ruleset(None, None, None)
pol = make_policy(spec.default_policy, spec.policies)
cols = spec.simulate(rules, spec.default_hero, pol, 7, 0, 300)
digest = hashlib.sha1(b"".join(v.tobytes() for _, v in sorted(cols.items()))).hexdigest()
loaded = (len(refreshes), "numba.np.arraymath" in sys.modules, "scipy.linalg" in sys.modules, len(parses),
          len(nrt_compiles))
import numpy as np
from numba import njit

@njit
def later(a):  # compiled after the load: every registry there (a dict, a sort, a hash)
    d = {}
    for x in np.sort(a):
        d[x] = hash(x)
    return len(d)

print(digest, *loaded, later(np.array([3, 1, 3, 2])), len(refreshes) > 0)
"""


@pytest.mark.parametrize("game", ["delve", "foury"])
def test_a_cached_engine_loads_without_setting_up_numbas_compiler(game):
    """A load from the cache (``quick_passes.load_overload``) does not refresh numba's CPU target (no lowering
    registry, no ``scipy.linalg``), parse the engine's IR (``quick_object``) or compile the NRT's functions (kept by
    the first load: ``initialize_nrt``), and the engine plays the same games as after numba's refresh, parse and
    compile (``FOURY_SIM_SLOW_PASSES=1``); a function compiled afterwards in the same process (a dict: the NRT's
    functions linked) finds every registry."""
    import os
    import subprocess
    import sys

    from foury_sim.policy import make_policy
    from foury_sim.registry import get_game

    spec = get_game(game)  # the cache filled in this process first (loaded or compiled)
    spec.simulate(spec.load_ruleset(None, None, None), spec.default_hero,
                  make_policy(spec.default_policy, spec.policies), 7, 0, 10)
    runs = {}
    for slow in ("0", "0", "1"):  # (the first quick load may compile the NRT and keep it; the second loads it)
        env = dict(os.environ, FOURY_SIM_SLOW_PASSES=slow)
        out = subprocess.run([sys.executable, "-c", _LOAD_AND_PLAY, game], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-2000:]
        runs[slow] = out.stdout.split()
    quick, numbas = runs["0"], runs["1"]
    assert quick[0] == numbas[0]  # the same games
    assert quick[1:6] == ["0", "False", "False", "0", "0"]  # no refresh, lowering registry, BLAS check, IR, NRT compile
    assert numbas[1] != "0" and numbas[2] == "True" and numbas[4] != "0" and numbas[5] == "1"  # (told apart)
    assert quick[6:] == numbas[6:] == ["3", "True"]


def test_a_quick_load_links_what_numbas_refresh_would_have_registered(tmp_path):
    """Code that links to the NRT (an array made inside) and to the hash secret (a string's hash) loads from the cache
    in a fresh process where nothing else set numba up (``load_overload`` registers the NRT; unpickling the entry
    imports ``numba.cpython.hashing``, which registers the secret) and gives numba's answers."""
    import os
    import subprocess
    import sys

    (tmp_path / "hashed.py").write_text(
        "import numpy as np\n"
        "from numba import njit\n\n\n"
        "@njit(cache=True)\n"
        "def hearts(n):\n"
        "    a = np.arange(n)\n"
        "    return a.sum() + hash('hearts') % 1000\n"
    )
    code = (_COUNT_REFRESHES +
            "from foury_sim import quick_passes\n"
            "assert 'quick_load' in quick_passes.install()\n"
            "import hashed\n"
            "n = hashed.hearts(10)\n"
            "print(n, hash('hearts') % 1000 + 45, sum(hashed.hearts.stats.cache_hits.values()), len(refreshes) > 0)\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONHASHSEED="7")
    runs = [subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
            for _ in range(2)]  # (the module found in the folder ``python -c`` runs in)
    for out in runs:
        assert out.returncode == 0, out.stderr[-2000:]
    compiled, loaded = (out.stdout.split() for out in runs)
    assert compiled[0] == compiled[1] and compiled[2:] == ["0", "True"]  # compiled: numba's refresh ran
    assert loaded[0] == loaded[1] == compiled[0] and loaded[2:] == ["1", "False"]  # loaded without a refresh


def test_a_function_compiled_after_a_quick_load_links_the_loaded_one(tmp_path):
    """A function loaded from the cache without its IR parsed (``quick_object``) is linked by a function compiled
    later in the same process that calls it: the IR is parsed then (the library's ``_shared_module``), once, and
    the answers are numba's."""
    import os
    import subprocess
    import sys

    (tmp_path / "hearts.py").write_text(
        "import numpy as np\n"
        "from numba import njit\n\n\n"
        "@njit(cache=True)\n"
        "def hearts(n):\n"
        "    a = np.arange(n)\n"
        "    return a.sum() + n * np.int64(1000)\n"
    )
    code = (_COUNT_PARSES +
            "from foury_sim import quick_passes\n"
            "assert 'quick_object' in quick_passes.install()\n"
            "import hearts\n"
            "from numba import njit\n"
            "n = hearts.hearts(10)\n"
            "before = len(parses)\n"
            "@njit\n"
            "def twice(k):\n"
            "    return hearts.hearts(k) * 2 + hearts.hearts(k + 1)\n"
            "print(n, twice(10), sum(hearts.hearts.stats.cache_hits.values()), before, len(parses))\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
            for _ in range(2)]
    for out in runs:
        assert out.returncode == 0, out.stderr[-2000:]
    compiled, loaded = (out.stdout.split() for out in runs)
    assert compiled[:3] == ["10045", str(2 * 10045 + 11055), "0"]  # (45 + 10000, twice: 20090 + 55 + 11000)
    assert loaded[:3] == ["10045", compiled[1], "1"]  # loaded from the cache, then linked: the same answers
    assert loaded[3:] == ["0", "1"]  # its IR parsed only when ``twice`` linked it


@pytest.mark.parametrize("game", ["delve", "foury", "rooms", "tactics"])
def test_a_quick_object_load_registers_the_names_numbas_would(game):
    """The names a loaded engine defines, read from its machine code's symbol table (``elf_defined_symbols``), are
    the ones numba reads from its IR (every function and global that is not a declaration) that can be looked up:
    all but the private ones (constant strings, switch tables), which no object file names."""
    import subprocess
    import sys

    from foury_sim.policy import make_policy
    from foury_sim.registry import get_game

    spec = get_game(game)  # the cache filled in this process first (loaded or compiled)
    spec.simulate(spec.load_ruleset(None, None, None), spec.default_hero,
                  make_policy(spec.default_policy, spec.policies), 7, 0, 10)
    code = ("import importlib, sys\n"
            "import llvmlite.binding as ll\n"
            "from foury_sim import quick_passes\n"
            "from foury_sim.policy import make_policy\n"
            "from foury_sim.registry import get_game\n"
            "read = []  # the names read from each machine code loaded\n"
            "elf_defined_symbols = quick_passes.elf_defined_symbols\n"
            "quick_passes.elf_defined_symbols = lambda obj: read.append(elf_defined_symbols(obj)) or read[-1]\n"
            "spec = get_game(sys.argv[1])\n"
            "spec.simulate(spec.load_ruleset(None, None, None), spec.default_hero,\n"
            "              make_policy(spec.default_policy, spec.policies), 7, 0, 10)\n"
            "kernel = importlib.import_module(f'foury_sim.games.{sys.argv[1]}.kernel')\n"
            "n = 0\n"
            "for e in kernel._ENTRIES.values():\n"
            "    for cres in (e.dispatcher.overloads.values() if e.dispatcher else ()):\n"
            "        lib = cres.library\n"
            "        assert '_foury_shared_bitcode' in lib.__dict__  # loaded quick, its IR not parsed yet\n"
            "        m = lib._shared_module\n"
            "        defined = [g for gs in (m.functions, m.global_variables) for g in gs if not g.is_declaration]\n"
            "        numbas = {g.name for g in defined if g.linkage != ll.Linkage.private}\n"
            "        assert numbas in read, [sorted(numbas ^ r)[:5] for r in read]\n"
            "        assert numbas <= lib._codegen._engine._defined_symbols\n"
            "        n += len(numbas)\n"
            "print(n)\n")
    out = subprocess.run([sys.executable, "-c", code, game], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.split()[-1]) > 10


def test_the_nrt_kept_by_a_quick_load_is_loaded_and_a_damaged_one_compiled_again(tmp_path):
    """``initialize_nrt``: the first load compiles the NRT's functions as numba does and keeps their machine code in
    the cache's folder; the next process loads it (no compile) and code that makes and frees arrays gives numba's
    answers; a damaged file is compiled again and written whole."""
    import os
    import subprocess
    import sys

    (tmp_path / "hearts.py").write_text(
        "import numpy as np\n"
        "from numba import njit\n\n\n"
        "@njit(cache=True)\n"
        "def hearts(n):\n"
        "    t = 0\n"
        "    for k in range(n):\n"
        "        a = np.arange(k + 1)\n"
        "        t += a.sum()\n"
        "    return t\n"
    )
    code = ("from numba.core.runtime import nrtdynmod\n"
            "compiles = []\n"
            "create = nrtdynmod.create_nrt_module\n"
            "nrtdynmod.create_nrt_module = lambda ctx: compiles.append(1) or create(ctx)\n"
            "from foury_sim import quick_passes\n"
            "assert 'kept_nrt' in quick_passes.install()\n"
            "import hearts\n"
            "print(hearts.hearts(20), len(compiles))\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))

    def run() -> list[str]:
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout.split()

    answer = str(sum(k * (k + 1) // 2 for k in range(20)))
    assert run() == [answer, "1"]  # a cache miss: the function and the NRT compiled, the NRT's code kept
    kept = list((tmp_path / "cache").rglob("nrt-*.pkl"))
    assert len(kept) == 1
    assert run() == [answer, "0"]  # loaded: nothing compiled
    whole = kept[0].read_bytes()
    kept[0].write_bytes(whole[: len(whole) // 2])
    assert run() == [answer, "1"]  # damaged: compiled again ...
    assert kept[0].read_bytes() == whole  # ... and written again, whole (the same machine code)
    assert run() == [answer, "0"]
