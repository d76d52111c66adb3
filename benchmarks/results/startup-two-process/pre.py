"""Prototype (session 36): the helper process B. Compiles the functions of a ``record3.py`` recording that cost at
most T x the root's CPU seconds, last first, as callees (``lean_link``'s bitcode, as the process that plays would
compile them), into the same cache.

    python pre.py GAME RECORDING.json [T]
"""

import base64
import importlib
import json
import pickle
import sys
import time

game, plan = sys.argv[1], sys.argv[2]
T = float(sys.argv[3]) if len(sys.argv) > 3 else 0.25
importlib.import_module(f"foury_sim.games.{game}.kernel")

from numba.core.registry import CPUDispatcher  # noqa: E402 - after the game, as the engine imports numba

from foury_sim import config  # noqa: E402 - after the game, as above

with open(plan) as f:
    rec = json.load(f)
rows = [rec["nodes"][k] for k in rec["order"]]
top = max(r["incl"] for r in rows)
rows = [r for r in rows
        if r["name"].startswith("foury_sim.") and r["args"] and r["depth"] >= 2 and r["incl"] <= T * top]
t0, n = time.perf_counter(), 0
for r in reversed(rows):
    module, qualname = r["name"].split(":")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    if not isinstance(obj, CPUDispatcher):
        print("not a dispatcher:", r["name"], file=sys.stderr)
        continue
    args = pickle.loads(base64.b64decode(r["args"]))
    if tuple(args) in obj.overloads:
        continue
    config._COMPILING.depth = 1  # compiled as a callee is: lean bitcode, no machine code
    try:
        with config.use_cache(module):
            obj.compile(args)
    finally:
        config._COMPILING.depth = 0
    n += 1
    print(f"{time.perf_counter() - t0:7.1f} {qualname}", file=sys.stderr, flush=True)
print("pre done", n, round(time.perf_counter() - t0, 1), file=sys.stderr)
