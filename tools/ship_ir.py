"""Write each game's shipped IR and machine code (``foury_sim/games/NAME/data/engine_ir.xz`` and
``engine_code.xz``: ``foury_sim/shipped_ir.py``).

For each game, every compile for ``shipped_ir.CODE_CPU`` (``NUMBA_CPU_NAME``, no further features: the
per-function passes consult that CPU's cost model, not this machine's, so any machine makes the same bundles):
``warm`` compiles the game from source into an empty cache (every entry point, every built-in policy); its rule
functions' bitcode entries are collected and seeded into a second empty cache, where ``warm`` runs again and
records the entries the entry points load (the direct callees: each holds its whole tree); those are the bundle.
Then ``warm`` compiles the entry points from that IR once more into a third cache: their machine code is the second
bundle, checked to be the machine code compiled from source (``shipped_ir.text_section``). Run it after a change
to a game's engine or to the core modules it compiles (``tests/test_shipped_ir.py`` fails until it is run):

    python tools/ship_ir.py [GAME...]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # this checkout's foury_sim, even when another one is installed (a worktree)
    sys.path.insert(0, str(ROOT))

_WARM = """
import json, sys
from foury_sim import config, shipped_ir
loaded = shipped_ir.record_loads()
from foury_sim.warm import warm_game
report = warm_game(sys.argv[1])
print(json.dumps({"loaded": loaded, "compile_s": config.FIRST_USE["compile_s"], "seconds": report.seconds}))
"""


#: Compiles of the entry points from the IR tried before refusing. Numba names a ``prange`` kernel's parts after
#: addresses of the compiling process (``__numba_parfor_gufunc_0x7f...``) and numbers the functions a process
#: compiles (a ``v`` tag, fewer from the IR than from source), so no two processes give the same symbols, and LLVM
#: now and then chooses a register differently for other names (same games; seen for Rooms' ``dice._tables`` in
#: sessions 47 and 49, for Delve's odds entries in session 48): another process's compile usually matches.
ATTEMPTS = 3


def _warm(game: str, cache: str, shipped: bool, cpu: str | None = None) -> dict:
    env = dict(os.environ, FOURY_SIM_CACHE_DIR=cache, FOURY_SIM_SHIPPED_IR="1" if shipped else "0")
    env.pop("FOURY_SIM_SHIPPED_CODE", None)
    if cpu is not None:  # machine code for that CPU alone, not this one's features
        env.update(NUMBA_CPU_NAME=cpu, NUMBA_CPU_FEATURES="")
    out = subprocess.run([sys.executable, "-c", _WARM, game], env=env, cwd=ROOT, check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def ship(game: str) -> str:
    """Make and write the shipped IR of ``game``; a line saying what was written."""
    from foury_sim import config, shipped_ir

    package = f"games/{game}"
    prefixes = tuple(entry_points(game))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as full, tempfile.TemporaryDirectory() as seeded:
        cold = _warm(game, full, shipped=False, cpu=shipped_ir.CODE_CPU)
        key = f"{config._cache_name((package,))}-{config._source_hash((package,))}"
        cache_dir = os.path.join(full, f"{key}-native")  # (from source: no shipped code, a folder of its own)
        every = shipped_ir.collect(cache_dir, package)
        source = {e.index: e.machine_code() for e in shipped_ir.collect(cache_dir, package, kind="object")
                  if e.index.startswith(prefixes)}
        if not every:  # (the cache folder's key names this checkout's sources: another checkout's would be empty)
            raise SystemExit(f"{game}: the compile from source left no IR in {cache_dir} (nothing written)")
        path = shipped_ir.bundle_path(package)
        before = path.read_bytes() if path.exists() else None
        shipped_ir.write(package, every)
        try:
            again = _warm(game, seeded, shipped=True, cpu=shipped_ir.CODE_CPU)
        finally:  # the shipped one back (an interrupted run changes nothing; the same IR leaves it untouched)
            if before is not None:
                path.write_bytes(before)
            else:
                path.unlink()
        kept = shipped_ir.collect(cache_dir, package, set(again["loaded"]))
        if not kept:
            raise SystemExit(f"{game}: the entry points loaded none of the seeded IR (nothing written)")
        changed = shipped_ir.write(package, kept)
    refused, tries = None, []
    for _ in range(ATTEMPTS):  # (each process names a parallel kernel's parts by an address: see ATTEMPTS)
        with tempfile.TemporaryDirectory() as portable:
            made = _warm(game, portable, shipped=True, cpu=shipped_ir.CODE_CPU)
            code = [e for e in shipped_ir.collect(os.path.join(portable, key), package, kind="object")
                    if e.index.startswith(prefixes)]
        if len({e.index for e in code}) != len(prefixes):
            refused = f"{game}: machine code for {sorted(e.index for e in code)}, entry points {prefixes}"
            break
        from_ir = {e.index: e.machine_code() for e in code}
        differ = sorted(i for i in {*from_ir, *source} if from_ir.get(i) != source.get(i))
        tries.append(", ".join(differ))
        refused = None if not differ else (
            f"{game}: the machine code from the IR is not the one from source in {ATTEMPTS} compiles (differing: "
            f"{'; '.join(tries)}; see docs/startup.md, \"Session 49\")")
        if not differ:
            break
    if refused is not None:  # (the IR bundle written above put back: nothing written)
        if before is not None:
            path.write_bytes(before)
        else:
            path.unlink()
        raise SystemExit(f"{refused} (nothing written)")
    code_changed = shipped_ir.write(package, code, code=True)
    dropped = drop_compiled_here(package)
    cpath = shipped_ir.code_path(package)
    retried = f" (matched at compile {len(tries)}: before, {'; '.join(tries[:-1])} differed)" if len(tries) > 1 else ""
    return (f"{game}: {len(kept)} of {len(every)} functions' IR, {path.stat().st_size / 1e3:.0f} kB ({path}, "
            f"{'rewritten' if changed else 'unchanged'}); {len(code)} entry points' machine code for "
            f"{shipped_ir.CODE_CPU}, {cpath.stat().st_size / 1e3:.0f} kB "
            f"({'rewritten' if code_changed else 'unchanged'}); warm compiled {cold['compile_s']:.1f} s from source, "
            f"{again['compile_s']:.1f} s from the IR, "
            f"{made['compile_s']:.1f} s for {shipped_ir.CODE_CPU}{retried}; {time.perf_counter() - t0:.0f} s"
            + (f"; removed {dropped}, compiled here before this bundle" if dropped else ""))


def drop_compiled_here(package: str) -> str:
    """Remove this checkout's cache folder of ``package``'s sources when its engine was compiled here, not seeded from
    the bundles (the test suite's warm step after an engine edit, before this tool ran): numba would go on loading that
    code, made for this CPU, where a user loads the shipped code, and a benchmark would measure the wrong one
    (docs/speed.md, session 53). The folder's path, or "" when there is none or the bundles were seeded into it."""
    import shutil

    from foury_sim import config, shipped_ir

    path = config._cache_dir(package)
    if not os.path.isdir(path) or shipped_ir.seeded(package):
        return ""
    shutil.rmtree(path, ignore_errors=True)
    return path


def entry_points(game: str) -> list[str]:
    """The index-file prefixes (``MODULE.FUNCTION-``) of ``game``'s entry points: every ``CompiledOnFirstUse`` of
    its modules (``config.ENTRY_POINTS``; the ones a first run compiles, whose machine code is shipped)."""
    import importlib
    import pkgutil

    from foury_sim import config

    pkg = importlib.import_module(f"foury_sim.games.{game}")
    for mod in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"{pkg.__name__}.{mod.name}")
    return sorted({f"{e.fn.__module__.rsplit('.', 1)[-1]}.{e.fn.__qualname__}-" for e in config.ENTRY_POINTS
                   if e.fn.__module__.startswith(f"{pkg.__name__}.")})  # (not a test's, under a game's cache)


def main(argv: list[str]) -> None:
    from foury_sim.registry import games

    for game in argv or games():
        print(ship(game), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
