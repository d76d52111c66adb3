"""Prototype: record the callee compiles of a game's simulate, in completion order."""
import base64, importlib, json, pickle, sys, time
game = sys.argv[1]; out = sys.argv[2]
from numba.core import event
rows = []; depth = [0]; starts = []
class L(event.Listener):
    def on_start(self, ev):
        depth[0] += 1; starts.append(time.process_time())
    def on_end(self, ev):
        d = ev.data['dispatcher']; f = d.py_func
        rows.append(dict(module=f.__module__, qualname=f.__qualname__, depth=depth[0],
                         cpu=time.process_time() - starts.pop(), at=time.process_time(),
                         args=base64.b64encode(pickle.dumps(tuple(ev.data['args']))).decode()))
        depth[0] -= 1
event.register("numba:compile", L())
k = importlib.import_module(f"foury_sim.games.{game}.kernel")
t = time.perf_counter(); k._ENTRIES["simulate"](); print(game, "compiled", time.perf_counter() - t, "s", len(rows), "compiles")
json.dump(rows, open(out, "w"), indent=0)
