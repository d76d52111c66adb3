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

    def step(x, t: float) -> float:  # one process reaches ``x`` at CPU s ``t``: loads it, or compiles it
        if x in done and done[x] <= t:
            return t + load_cost
        t += nodes[x]["self"]
        done[x] = min(done.get(x, 1e9), t)
        return t

    ia = ib = 0
    ta, tb = 0.0, delay
    while ia < len(order):
        if ib < len(seq_b) and tb < ta:
            tb, ib = step(seq_b[ib], tb), ib + 1
        else:
            ta, ia = step(order[ia], ta), ia + 1
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
