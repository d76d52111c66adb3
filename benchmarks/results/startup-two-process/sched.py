"""Prototype (session 36): simulate two processes compiling one game. A compiles a ``record3.py`` recording in its
order; B a suffix of it (forward or reversed), each target with the callees it needs; each function is compiled once,
by whichever process gets there first, at its own recorded cost. Tries every cut and prints the best.

    python sched.py RECORDING.json
"""

import json
import sys


def load(path: str):
    with open(path) as f:
        d = json.load(f)
    order, nodes = d["order"], d["nodes"]
    pos = {k: i for i, k in enumerate(order)}
    kids: dict = {k: [] for k in order}
    for a, b in d["edges"]:
        if a in kids and b in pos:
            kids[a].append(b)
    for k in kids:
        kids[k].sort(key=pos.get)
    return order, nodes, kids, pos


def closure(y, kids, seen: set) -> list:
    """``y`` and the callees it needs that ``seen`` lacks, callees first."""
    out: list = []

    def go(x) -> None:
        if x in seen:
            return
        seen.add(x)
        for c in kids[x]:
            go(c)
        out.append(x)

    go(y)
    return out


def simulate(order, nodes, kids, targets, delay: float = 2.5, load_cost: float = 0.02) -> tuple[float, float]:
    """(A's finish, B's finish) in CPU s; B starts ``delay`` s late (its imports); a function cached is loaded."""
    done: dict = {}
    seen: set = set()
    seq_b = [x for t in targets for x in closure(t, kids, seen)]
    ia = ib = 0
    ta, tb = 0.0, delay
    while ia < len(order):
        if ib < len(seq_b) and tb < ta:
            x, ib = seq_b[ib], ib + 1
            if x in done and done[x] <= tb:
                tb += load_cost
                continue
            tb += nodes[x]["self"]
            done[x] = min(done.get(x, 1e9), tb)
        else:
            x, ia = order[ia], ia + 1
            if x in done and done[x] <= ta:
                ta += load_cost
                continue
            ta += nodes[x]["self"]
            done[x] = min(done.get(x, 1e9), ta)
    return ta, tb


if __name__ == "__main__":
    path = sys.argv[1]
    order, nodes, kids, pos = load(path)
    alone, _ = simulate(order, nodes, kids, [])
    ok = [k for k in order[:-1] if nodes[k]["name"].startswith("foury_sim.") and nodes[k]["args"]]
    best = (alone, None, None, None, None)
    for m in range(len(order)):
        suffix = [k for k in ok if pos[k] >= m]
        for mode, targets in (("rev", suffix[::-1]), ("fwd", suffix)):
            ta, tb = simulate(order, nodes, kids, targets)
            if ta < best[0]:
                best = (ta, m, mode, tb, len(targets))
    shown = [round(x, 1) if isinstance(x, float) else x for x in best]
    print(path, "alone", round(alone, 1), "best [A's finish, cut, order, B's finish, B's targets]", shown)
