"""Prototype: record a cold compile of GAME's simulate: each compile's self cost, order, and the call graph."""
import base64, importlib, json, pickle, sys, time
game = sys.argv[1]; out = sys.argv[2]
k = importlib.import_module(f"foury_sim.games.{game}.kernel")
from numba.core import event, dispatcher, sigutils
def key(d, args):
    f = d.py_func
    try: a = base64.b64encode(pickle.dumps(tuple(args))).decode()
    except Exception: a = None
    return f"{f.__module__}:{f.__qualname__}", a
nodes = {}; order = []; stack = []; edges = set()
class L(event.Listener):
    def on_start(self, ev):
        stack.append([key(ev.data['dispatcher'], ev.data['args']), time.process_time(), 0.0])
    def on_end(self, ev):
        kk, t0, child = stack.pop(); incl = time.process_time() - t0
        if stack: stack[-1][2] += incl
        nodes[json.dumps(kk)] = dict(name=kk[0], args=kk[1], self=incl - child, incl=incl, depth=len(stack) + 1)
        order.append(json.dumps(kk))
event.register("numba:compile", L())
orig = dispatcher.Dispatcher.compile
def compile(self, sig):
    if stack:
        try: args = sigutils.normalize_signature(sig)[0]
        except Exception: args = sig
        edges.add((json.dumps(stack[-1][0]), json.dumps(key(self, args))))
    return orig(self, sig)
dispatcher.Dispatcher.compile = compile
t = time.perf_counter(); k._ENTRIES["simulate"](); print(game, "compiled", round(time.perf_counter() - t, 1), "s", len(order), "compiles", file=sys.stderr)
json.dump(dict(order=order, nodes=nodes, edges=sorted(edges)), open(out, "w"))
