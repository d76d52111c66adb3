"""Simulate two processes compiling one game: A in its recorded order, B a suffix of it (forward or reversed),
each function compiled once by whichever gets there first (its own cost, from record3.py). Usage: python sched.py G.json"""
import json, sys
def load(path):
    d = json.load(open(path))
    order, nodes = d["order"], d["nodes"]
    pos = {k: i for i, k in enumerate(order)}
    kids = {k: [] for k in order}
    for a, b in d["edges"]:
        if a in kids and b in pos: kids[a].append(b)
    for k in kids: kids[k].sort(key=pos.get)
    return order, nodes, kids, pos
def closure(y, kids, seen=None):
    out = []; seen = set() if seen is None else seen
    def go(x):
        if x in seen: return
        seen.add(x)
        for c in kids[x]: go(c)
        out.append(x)
    go(y); return out
def simulate(order, nodes, kids, targets, delay=2.5, load_cost=0.02):
    done = {}  # node -> time finished
    # A: sequence = order; B: sequence = concat closures of targets
    seqB = []; seen = set()
    for t in targets: seqB += closure(t, kids, seen)
    ia = ib = 0; ta = 0.0; tb = delay
    while ia < len(order):
        if ib < len(seqB) and tb < ta:
            x = seqB[ib]; ib += 1
            if x in done and done[x] <= tb: tb += load_cost; continue
            tb += nodes[x]["self"]; done[x] = min(done.get(x, 1e9), tb)
        else:
            x = order[ia]; ia += 1
            if x in done and done[x] <= ta: ta += load_cost; continue
            ta += nodes[x]["self"]; done[x] = min(done.get(x, 1e9), ta)
    return ta, tb
g = sys.argv[1]  # a file written by record3.py
order, nodes, kids, pos = load(g)
base, _ = simulate(order, nodes, kids, [])
ok = [k for k in order[:-1] if nodes[k]["name"].startswith("foury_sim.") and nodes[k]["args"]]
best = (base, None, None)
for m in range(len(order)):
    suf = [k for k in ok if pos[k] >= m]
    for mode, tg in (("rev", suf[::-1]), ("fwd", suf)):
        ta, tb = simulate(order, nodes, kids, tg)
        if ta < best[0]: best = (ta, m, mode, tb, len(tg))
print(g, "alone", round(base, 1), "best", [round(x, 1) if isinstance(x, float) else x for x in best])
# lower bound: entry's own plus what must be serial
