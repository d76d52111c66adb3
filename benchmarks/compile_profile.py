"""Where a game's cold compile goes: the compile time of each numba function (inclusive of what it
compiles underneath, from numba's ``numba:compile`` events), for every entry point in the game's
``_ENTRIES``. Run with an empty cache to measure a cold compile:

    FOURY_SIM_CACHE_DIR=$(mktemp -d) python benchmarks/compile_profile.py delve
    FOURY_SIM_CACHE_DIR=$(mktemp -d) python benchmarks/compile_profile.py --progress foury > tree.txt

Each function's time is given in wall seconds and in CPU seconds of the process (on a shared machine the
CPU seconds are the steadier figure), with the number of signatures it was compiled for when more than one.
``--progress`` also prints one line per function as its compile ends (``done``, with the process's CPU
seconds so far), so that two trees compiled side by side can be compared function by function before either
has finished; a compile stopped early (Ctrl-C, SIGTERM) still prints the table of what it had compiled.
After the table, the exclusive CPU seconds of the costliest functions (each compile minus the compiles it
started: a function near the root pays for the whole tree under it once more, as numba links and optimises its
callees' code into its library; ``docs/startup.md``, "Dungeon Foury, session 30").
``--signatures`` also lists, after the table, every function compiled for more than one signature, with its
argument types (a constant argument shows as ``Literal[int](3)``: one compile per value).

``--untyped GAME:FUNCTION...`` times numba's untyped passes alone (the frontend and the inlining of every
``inline=`` callee, before any typing) for functions of a game's kernel, with the size of the IR they leave:

    python benchmarks/compile_profile.py --untyped delve:play_delve delve:play_game

numba inlines by deep-copying the callee's IR block by block, each block with the whole variable scope, so this
cost grows with blocks x variables of what is inlined (``docs/startup.md``, "Delve, session 29").
"""

from __future__ import annotations

import importlib
import resource
import signal
import sys
import time


def profile(game: str, top: int = 25, progress: bool = False, signatures: bool = False) -> None:
    from numba.core import event

    class Listener(event.Listener):
        def __init__(self) -> None:
            self.starts: dict[str, tuple[float, float]] = {}
            self.wall: dict[str, float] = {}
            self.cpu: dict[str, float] = {}
            self.sigs: dict[str, set[str]] = {}
            self.own: dict[str, float] = {}  # exclusive CPU s: a compile minus the compiles it started
            self.stack: list[float] = []  # CPU s of the nested compiles of each compile under way

        def on_start(self, ev) -> None:
            key, sig = ev.data["dispatcher"].py_func.__qualname__, str(ev.data["args"])
            self.starts[key + sig] = (time.perf_counter(), time.process_time())
            self.sigs.setdefault(key, set()).add(sig)
            self.stack.append(0.0)

        def on_end(self, ev) -> None:
            key, sig = ev.data["dispatcher"].py_func.__qualname__, str(ev.data["args"])
            if key + sig not in self.starts:
                return
            w0, c0 = self.starts.pop(key + sig)
            w, c = time.perf_counter() - w0, time.process_time() - c0
            nested = self.stack.pop() if self.stack else 0.0
            if self.stack:
                self.stack[-1] += c
            self.own[key] = self.own.get(key, 0.0) + c - nested
            self.wall[key] = self.wall.get(key, 0.0) + w
            self.cpu[key] = self.cpu.get(key, 0.0) + c
            if progress:
                print(f"done {time.process_time():8.1f} CPU s  {key}  {w:.1f} s wall, {c:.1f} CPU s  {sig}",
                      flush=True)

    kernel = importlib.import_module(f"foury_sim.games.{game}.kernel")
    for name, ent in kernel._ENTRIES.items():
        rec = Listener()
        event.register("numba:compile", rec)
        cold = ent.cold()
        t0, c0 = time.perf_counter(), time.process_time()
        stopped = False
        try:
            ent()
        except KeyboardInterrupt:
            stopped = True
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        event.unregister("numba:compile", rec)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB -> GB (Linux)
        print(f"{game} {name}: {'cold' if cold else 'cached'} {wall:.1f} s wall, {cpu:.1f} CPU s, peak memory "
              f"{peak:.2f} GB, {len(rec.wall)} functions compiled ({sum(map(len, rec.sigs.values()))} signatures)"
              + (" (STOPPED before the end)" if stopped else ""))
        for k, v in sorted(rec.wall.items(), key=lambda kv: -kv[1])[:top]:
            n = len(rec.sigs.get(k, ()))
            print(f"  {v:7.1f} s  {rec.cpu[k]:7.1f} CPU s  {k}" + (f"  ({n} signatures)" if n > 1 else ""))
        print("  exclusive CPU s (a function's compiles minus the compiles they started: its own typing, lowering,\n"
              "  and the LLVM passes and code generation of its library, which links its whole callee tree):")
        for k, v in sorted(rec.own.items(), key=lambda kv: -kv[1])[:top]:
            print(f"  {v:7.1f} CPU s  {k}")
        if signatures:
            for k, sigs in sorted(rec.sigs.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                if len(sigs) > 1:
                    print(f"  {k}: {len(sigs)} signatures, {rec.cpu.get(k, 0.0):.1f} CPU s")
                    for sig in sorted(sigs):
                        print(f"      {sig}")
        sys.stdout.flush()
        if stopped:
            return


def untyped(specs: list[str]) -> None:
    """CPU seconds of numba's untyped passes for each ``GAME:FUNCTION`` (see the module's docstring)."""
    from numba.core import compiler
    from numba.core import inline_closurecall as icc
    from numba.core.registry import cpu_target

    for spec in specs:
        game, fn = spec.split(":")
        disp = getattr(importlib.import_module(f"foury_sim.games.{game}.kernel"), fn)
        flags = compiler.Flags()
        flags.nrt = True
        worker = icc.InlineWorker(cpu_target.typing_context, cpu_target.target_context, {}, compiler.Compiler, flags,
                                  validator=icc.callee_ir_validator)
        c0 = time.process_time()
        ir = worker.run_untyped_passes(disp.py_func)
        cpu = time.process_time() - c0
        scope = next(iter(ir.blocks.values())).scope
        print(f"{spec}: untyped passes {cpu:.1f} CPU s, {len(ir.blocks)} blocks, {len(scope.localvars._con)} variables",
              flush=True)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # a stopped compile still prints its table
    args = sys.argv[1:]
    if not args or "-h" in args or "--help" in args:
        print(__doc__)
        sys.exit(0)
    if "--untyped" in args:
        untyped([a for a in args if a != "--untyped"])
        sys.exit(0)
    for g in [a for a in args if a not in ("--progress", "--signatures")]:
        profile(g, progress="--progress" in args, signatures="--signatures" in args)
