"""Prototype (session 36): record a cold compile of GAME's ``simulate``: every compile in order, with its own and
inclusive CPU seconds, its nesting depth, its pickled signature, and every call between dispatchers.

    FOURY_SIM_CACHE_DIR=$(mktemp -d) python record3.py GAME OUT.json
"""

import base64
import importlib
import json
import pickle
import sys
import time

from numba.core import dispatcher, event, sigutils

game, out = sys.argv[1], sys.argv[2]
kernel = importlib.import_module(f"foury_sim.games.{game}.kernel")
nodes: dict = {}
order: list = []
stack: list = []  # [key, CPU s at the start, CPU s of the compiles nested in it]
edges: set = set()


def key(disp, args) -> str:
    f = disp.py_func
    try:
        sig = base64.b64encode(pickle.dumps(tuple(args))).decode()
    except Exception:  # noqa: BLE001 - a numba type that does not pickle (numba's own overloads)
        sig = None
    return json.dumps((f"{f.__module__}:{f.__qualname__}", sig))


class Recorder(event.Listener):
    def on_start(self, ev) -> None:
        stack.append([key(ev.data["dispatcher"], ev.data["args"]), time.process_time(), 0.0])

    def on_end(self, ev) -> None:
        k, t0, nested = stack.pop()
        incl = time.process_time() - t0
        if stack:
            stack[-1][2] += incl
        name, sig = json.loads(k)
        nodes[k] = dict(name=name, args=sig, self=incl - nested, incl=incl, depth=len(stack) + 1)
        order.append(k)


event.register("numba:compile", Recorder())
numba_compile = dispatcher.Dispatcher.compile


def compile_and_record_call(self, sig):
    if stack:
        try:
            args = sigutils.normalize_signature(sig)[0]
        except Exception:  # noqa: BLE001 - recorded as given
            args = sig
        edges.add((stack[-1][0], key(self, args)))
    return numba_compile(self, sig)


dispatcher.Dispatcher.compile = compile_and_record_call
t = time.perf_counter()
kernel._ENTRIES["simulate"]()
print(game, "compiled", round(time.perf_counter() - t, 1), "s,", len(order), "compiles", file=sys.stderr)
with open(out, "w") as f:
    json.dump(dict(order=order, nodes=nodes, edges=sorted(edges)), f)
