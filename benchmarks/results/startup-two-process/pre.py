"""Prototype: compile a recorded plan's callees, last first, as callees (lean bitcode), into the same cache."""
import base64, importlib, json, pickle, sys, time
game, plan = sys.argv[1], sys.argv[2]
importlib.import_module(f"foury_sim.games.{game}.kernel")
from foury_sim import config
from numba.core.registry import CPUDispatcher
rows = json.load(open(plan))
T = float(sys.argv[3]) if len(sys.argv) > 3 else 0.25
top = max(r["cpu"] for r in rows)
rows = [r for r in rows if r["module"].startswith("foury_sim.") and r.get("args") and r["cpu"] <= T * top]
t0 = time.perf_counter(); n = 0
for r in reversed(rows):
    if r["depth"] < 2: continue
    obj = importlib.import_module(r["module"])
    try:
        for part in r["qualname"].split("."): obj = getattr(obj, part)
    except AttributeError: print("skip", r["qualname"], file=sys.stderr); continue
    if not isinstance(obj, CPUDispatcher): print("not a dispatcher", r["qualname"], type(obj), file=sys.stderr); continue
    args = pickle.loads(base64.b64decode(r["args"]))
    if tuple(args) in obj.overloads: continue
    config._COMPILING.depth = 1
    try:
        with config.use_cache(r["module"]):
            obj.compile(args)
    finally:
        config._COMPILING.depth = 0
    n += 1
    print(f"{time.perf_counter()-t0:7.1f} {r['qualname']}", file=sys.stderr, flush=True)
print("pre done", n, time.perf_counter() - t0, file=sys.stderr)
