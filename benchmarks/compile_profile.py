"""Where a game's cold compile goes: the compile time of each numba function (inclusive of what it
compiles underneath, from numba's ``numba:compile`` events), for every entry point in the game's
``_ENTRIES``. Run with an empty cache to measure a cold compile:

    FOURY_SIM_CACHE_DIR=$(mktemp -d) python benchmarks/compile_profile.py delve
"""

from __future__ import annotations

import importlib
import resource
import sys
import time


def profile(game: str, top: int = 25) -> None:
    from numba.core import event

    kernel = importlib.import_module(f"foury_sim.games.{game}.kernel")
    for name, ent in kernel._ENTRIES.items():
        rec = event.RecordingListener()
        event.register("numba:compile", rec)
        cold = ent.cold()
        t0, c0 = time.perf_counter(), time.process_time()
        ent()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        event.unregister("numba:compile", rec)
        starts: dict[str, float] = {}
        times: dict[str, float] = {}
        sigs: dict[str, set[str]] = {}
        for ts, ev in rec.buffer:
            key = ev.data["dispatcher"].py_func.__qualname__
            sig = str(ev.data["args"])
            if ev.is_start:
                starts[key + sig] = ts
                sigs.setdefault(key, set()).add(sig)
            elif key + sig in starts:
                times[key] = times.get(key, 0.0) + ts - starts.pop(key + sig)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB -> GB (Linux)
        print(f"{game} {name}: {'cold' if cold else 'cached'} {wall:.1f} s wall, {cpu:.1f} CPU s, peak memory "
              f"{peak:.2f} GB, {len(times)} functions compiled")
        for k, v in sorted(times.items(), key=lambda kv: -kv[1])[:top]:
            n = len(sigs.get(k, ()))
            print(f"  {v:7.1f} s  {k}" + (f"  ({n} signatures)" if n > 1 else ""))
        sys.stdout.flush()


if __name__ == "__main__":
    for g in sys.argv[1:]:
        profile(g)
