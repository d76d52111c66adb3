"""Tactics engine: the same per-game results whatever the threads, the batch split or numba being on; golden
replays; the DM's policy matters; the spec's shape; the layout agrees with the outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import inproc
import numba
import numpy as np
import pytest
from plain import plain

from foury_sim.games import tactics as T
from foury_sim.games.tactics import layout as A
from foury_sim.games.tactics.outputs import CAUSE_LABELS, CAUSE_TURN_CAP
from foury_sim.policy import make_policy

GOLDEN = Path(__file__).parent / "golden"
CASES = [("crypt", "thorough", "by_the_book", 3, 1), ("lava", "rush", "ruthless", 5, 0)]


@pytest.fixture(scope="module")
def rs():
    return T.load_ruleset()


def _sim(rs, policy, seed, start, count, **kw):
    return T.simulate(rs, "adventurer", make_policy(policy, T.POLICIES, kw.get("param")), seed, start, count)


def test_threads_do_not_change_results(rs):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _sim(rs, "thorough", 3, 0, 600)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = _sim(rs, "thorough", 3, 0, 600)
    finally:
        numba.set_num_threads(before)
    for k in one:
        assert np.array_equal(one[k], two[k]), k


def test_batch_split_does_not_change_results(rs):
    whole = _sim(rs, "rush", 9, 100, 600)
    parts = [_sim(rs, "rush", 9, 100 + a, b - a) for a, b in ((0, 300), (300, 301), (301, 600))]
    for k in whole:
        assert np.array_equal(whole[k], np.concatenate([p[k] for p in parts])), k
    assert np.array_equal(whole["game"], np.arange(100, 700))


_NOJIT = """
import json
from foury_sim.games import tactics as T
from foury_sim.policy import make_policy

out = {}
for policy, dm in (("thorough", "by_the_book"), ("rush", "ruthless"), ("random", "by_the_book")):
    rs = T.load_ruleset(None, None, None, dm=dm)
    r = T.simulate(rs, "adventurer", make_policy(policy, T.POLICIES), 21, 40, 3)
    out[policy + "/" + dm] = {k: v.tolist() for k, v in r.items()}
print(json.dumps(out))
"""


def test_jitted_equals_pure_python():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", _NOJIT], env=env, capture_output=True, text=True, timeout=600,
                         cwd=Path(__file__).parent.parent)
    assert res.returncode == 0, res.stderr[-3000:]
    slow = json.loads(res.stdout.strip().splitlines()[-1])
    for key, cols in slow.items():
        policy, dm = key.split("/")
        fast = T.simulate(T.load_ruleset(None, None, None, dm=dm), "adventurer", make_policy(policy, T.POLICIES),
                          21, 40, 3)
        for k, v in cols.items():
            assert fast[k].tolist() == v, (key, k)


@pytest.mark.parametrize("level, policy, dm, seed, game", CASES)
def test_golden_replays(level, policy, dm, seed, game):
    rs = T.load_ruleset(None, None, level, dm=dm)
    text = "\n".join(T.replay(rs, "adventurer", make_policy(policy, T.POLICIES), seed, game)) + "\n"
    path = GOLDEN / f"tactics_{level}_seed{seed}_game{game}_{policy}_{dm}.txt"
    if os.environ.get("FOURY_SIM_REGEN_GOLDEN") == "1":
        path.write_text(text)
    assert path.read_text() == text


def test_replay_is_the_simulated_game(rs):
    pol = make_policy("thorough", T.POLICIES)
    r = T.simulate(rs, "adventurer", pol, 4, 0, 10)
    for g in (0, 7):
        row, lines = T.play_one(rs, "adventurer", pol, 4, g)
        assert all(row[k] == r[k][g] for k in r)
        assert lines[-1].startswith("== end: ")


def test_the_dms_play_matters_and_is_recorded(rs):
    book = _sim(rs, "thorough", 2, 0, 1500)
    mean = T.load_ruleset(None, None, None, dm="ruthless", dm_param="spawn_near=1")
    hard = T.simulate(mean, "adventurer", make_policy("thorough", T.POLICIES), 2, 0, 1500)
    assert hard["win"].mean() < book["win"].mean()
    assert T.summarize(__import__("pandas").DataFrame(hard), mean)["dm_policy"] == "ruthless(spawn_near=1, focus=1)"


def test_every_game_ends_and_counts_agree(rs):
    r = _sim(rs, "random", 5, 0, 300)
    assert r["bad_answers"].sum() == 0
    capped = r["death_cause"] == CAUSE_TURN_CAP
    assert np.all(r["win"][capped] == 0) and np.all((r["death_cell"] >= 0) == ((r["win"] == 0) & ~capped))
    kinds = np.stack([r[f"kills_kind{k + 1}"] for k in range(len(rs.monster_names))])
    assert np.array_equal(kinds.sum(axis=0), r["kills"])


def test_registered_spec_and_layout():
    spec = T.GAME
    assert spec.name == "tactics" and spec.default_policy in spec.policies and spec.default_hero == "adventurer"
    assert set(spec.policies) == {"rush", "thorough", "random"} and set(T.DM_POLICIES) == {"by_the_book", "ruthless"}
    assert set(spec.options_of("run")) == {"--dm", "--dm-param"}
    assert CAUSE_LABELS[A.CAUSE_TURN_CAP] == "turn cap" and len(CAUSE_LABELS) == A.CAUSE_POTION + 1
    assert spec.board is not None and A.STATE_SIZE == A.S_MON + A.MAX_MON * A.MC


def test_replay_takes_the_dm_option_and_says_it():
    r = inproc.cli("replay", "tactics", "--seed", "2", "--map", "tutorial", "--dm", "ruthless", "--dm-param",
                   "spawn_near=0", cwd=Path(__file__).parent.parent)  # in this process (tests/inproc.py)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.splitlines()
    assert lines[0].endswith("Dungeon Master ruthless(spawn_near=0, focus=1)")
    assert lines[2] == ("Command: foury-sim replay tactics --seed 2 --game 0 --dm ruthless --dm-param spawn_near=0 "
                        "--map tutorial")


def test_the_loot_field_redone_for_gone_sources_equals_a_new_sweep():
    """kernel.unspread (route_fields' loot field when things went away over the same passability) gives the
    numbers of a new ``spread`` from the sources that stay: random grids, open and closed borders, teleporters,
    sources on impassable tiles, one or several sources gone, all gone."""
    from foury_sim.games.tactics import kernel as K

    spread, unspread = plain(K.spread), plain(K.unspread)
    rng = np.random.default_rng(14)
    for trial in range(400):
        rows, cols = int(rng.integers(1, 10)), int(rng.integers(1, 10))
        n = rows * cols
        pas = (rng.random(n) < rng.uniform(0.4, 1.0)).astype(np.uint8)
        if trial % 2 and rows >= 3 and cols >= 3:  # a closed border: the sweep's unchecked path
            for c in range(n):
                if c < cols or c >= n - cols or c % cols in (0, cols - 1):
                    pas[c] = 0
        ta, tb = (int(x) for x in rng.choice(n, 2, replace=False)) if n >= 2 and trial % 3 else (-1, -1)
        src = np.flatnonzero(rng.random(n) < 0.2)
        if len(src) == 0:
            continue
        out = np.full(n, -1, np.int32)
        q = np.zeros(n, np.int64)
        out[src] = 0
        q[: len(src)] = src
        spread(pas, rows, cols, ta, tb, out, q, len(src))
        gone = src[rng.random(len(src)) < (1.0 if trial % 7 == 0 else 0.4)]
        if len(gone) == 0:
            gone = src[:1]
        stay = np.setdiff1d(src, gone)
        want = np.full(n, -1, np.int32)
        want[stay] = 0
        q[: len(stay)] = stay
        spread(pas, rows, cols, ta, tb, want, q, len(stay))
        q[: len(gone)] = gone
        unspread(pas, rows, cols, ta, tb, out, q, np.zeros(n, np.int32), len(gone))
        assert np.array_equal(out, want), (trial, rows, cols, ta, tb, src, gone)


def test_rooms_are_the_clear_regions_and_sees_is_line_of_sight():
    """kernel.label_rooms numbers the 4-connected regions of clear tiles (-1 opaque; within an opaque border
    without bounds checks), kernel.sees (line of sight, the line skipped between clear tiles of different rooms)
    equals grid.line_of_sight on every pair, and kernel.in_line (a row or a column within reach, in sight: read
    from the row and column tables, a straight walk) equals the same test on grid.line_of_sight."""
    from collections import namedtuple

    from foury_sim.games.tactics import kernel as K
    from foury_sim.grid import line_of_sight

    W = namedtuple("W", "wl wi wb")  # the rows of kernel.Work that label_rooms and sees use
    rng = np.random.default_rng(24)
    split = 0
    for trial in range(24):
        rows, cols = (int(x) for x in rng.integers(1, 9, 2))
        n = rows * cols
        w = W(np.zeros((K.W_L_ROWS, n), np.int64), np.zeros((K.W_I_ROWS, n), np.int32),
              np.zeros((K.W_B_ROWS, n), np.uint8))
        w.wb[K.W_OPQ] = rng.random(n) < rng.uniform(0.1, 0.6)
        if trial % 2:  # an opaque border: label_rooms' unchecked path
            for c in range(n):
                if c < cols or c >= n - cols or c % cols in (0, cols - 1):
                    w.wb[K.W_OPQ, c] = 1
        w.wi[K.W_ROW] = np.arange(n) // cols
        w.wi[K.W_COL] = np.arange(n) % cols
        plain(K.label_rooms)(w, rows, cols)
        opq, room = w.wb[K.W_OPQ], w.wi[K.W_ROOM]
        st = np.zeros(A.STATE_SIZE, np.int64)
        st[A.S_ROWS], st[A.S_COLS] = rows, cols
        for a in range(n):
            assert (room[a] < 0) == (opq[a] != 0)
            for b in range(n):
                if opq[a] == 0 and opq[b] == 0 and abs(a // cols - b // cols) + abs(a % cols - b % cols) == 1:
                    assert room[a] == room[b]  # neighbours share a room: a room is a union of regions
                los = line_of_sight(opq, rows, cols, a, b)
                assert plain(K.sees)(w, st, a, b) == los, (rows, cols, a, b)
                steps = abs(a // cols - b // cols) + abs(a % cols - b % cols)
                straight = a // cols == b // cols or a % cols == b % cols
                for reach in (0, 3, 9):
                    want = reach > 0 and straight and steps <= reach and los
                    assert plain(K.in_line)(None, w, st, a, b, reach) == want, (rows, cols, a, b, reach)
                split += room[a] >= 0 and room[b] >= 0 and room[a] != room[b]
        # and one room per region: the number of rooms is the number of regions found by a flood fill
        seen = np.zeros(n, bool)
        regions = 0
        for c0 in range(n):
            if opq[c0] or seen[c0]:
                continue
            regions += 1
            stack = [c0]
            seen[c0] = True
            while stack:
                c = stack.pop()
                r, x = divmod(c, cols)
                for nb in (c - cols if r else -1, c + 1 if x < cols - 1 else -1, c + cols if r < rows - 1 else -1,
                           c - 1 if x else -1):
                    if nb >= 0 and not opq[nb] and not seen[nb]:
                        seen[nb] = True
                        stack.append(nb)
        assert room.max() + 1 == regions
    assert split > 100, "pairs in different rooms are checked"


def test_every_writer_of_opacity_relabels_the_rooms():
    """The rooms (``w.wi[W_ROOM]``: ``sees`` skips the line between rooms) stay true to the opacity
    (``w.wb[W_OPQ]``): every kernel function that writes the opacity calls ``label_rooms`` after its last write,
    and only ``label_rooms`` writes the rooms; no function keeps the opacity row under another name (a write
    through it would escape this test)."""
    import ast

    src = (Path(T.__file__).parent / "kernel.py").read_text()
    fns = {f.name: f for f in ast.walk(ast.parse(src)) if isinstance(f, ast.FunctionDef)}

    def writes(fn, row):
        return [t.lineno for n in ast.walk(fn) if isinstance(n, ast.Assign | ast.AugAssign)
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                if isinstance(t, ast.Subscript) and ast.unparse(t.value) in ("w.wb", "w.wi")
                and isinstance(t.slice, ast.Tuple) and ast.unparse(t.slice.elts[0]) == row]

    writers = [name for name, fn in fns.items() if writes(fn, "W_OPQ")]
    assert set(writers) >= {"setup", "open_door"}
    for name in writers:
        calls = [n.lineno for n in ast.walk(fns[name]) if isinstance(n, ast.Call)
                 and ast.unparse(n.func) == "label_rooms"]
        assert calls and max(calls) > max(writes(fns[name], "W_OPQ")), f"{name} writes the opacity, no label_rooms"
    for name, fn in fns.items():
        aliased = [n for n in ast.walk(fn) if isinstance(n, ast.Assign) and ast.unparse(n.value) == "w.wb[W_OPQ]"]
        assert not aliased, f"{name} keeps the opacity row under another name"
        if name != "label_rooms":
            assert not writes(fn, "W_ROOM"), f"{name} writes the rooms"
            assert "W_ROOM" not in ast.unparse(fn) or name in ("sees", "in_line"), f"{name} uses the rooms"


_FIELDS_FRESH = """
import numpy as np
from foury_sim.games import tactics as T
from foury_sim.games.tactics import kernel as K
from foury_sim.games.tactics import layout as A
from foury_sim.policy import make_policy

route_fields = K.route_fields
calls = [0]


def checked(g, w, st):
    route_fields(g, w, st)
    w2 = K.Work(*(a.copy() for a in w))
    st2 = st.copy()
    st2[A.S_RC_V] = -1  # nothing cached: the passability, d1, dg and the loot field all swept anew
    st2[A.S_D1_SRC] = -1
    w2.wl[K.W_SNAP, K.SN_FIELDS] = 0  # nor the chunk's copy of its first game's first computation
    route_fields(g, w2, st2)
    for s in (A.S_GOAL_CELL, A.S_GOAL, A.S_LOOT_DIST):
        assert st[s] == st2[s], (s, st[s], st2[s])
    for r in (K.W_DG, K.W_DL, K.W_D2):
        assert np.array_equal(w.wi[r], w2.wi[r]), r
    calls[0] += 1


K.route_fields = checked
for level, policy in (("crypt", "thorough"), ("crypt", "rush"), ("forge", "thorough"), ("lava", "random")):
    rs = T.load_ruleset(None, None, level)
    T.simulate(rs, "adventurer", make_policy(policy, T.POLICIES), 5, 0, 6)
print(calls[0])
"""


def test_route_fields_kept_across_map_versions_equal_new_ones():
    """route_fields keeps the passability while S_PASV stands (only a key taken or a door opened changes it) and
    skips the player's sweep d1 when the last one reaches the player and the exit or at most one key: at every
    computation of a played game (un-jitted, so the kernel calls the wrapper) the goal, its field, the loot field
    and the passability equal those of a computation with nothing cached."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", _FIELDS_FRESH], env=env, capture_output=True, text=True, timeout=600,
                         cwd=Path(__file__).parent.parent)
    assert res.returncode == 0, res.stderr[-3000:]
    assert int(res.stdout.strip().splitlines()[-1]) > 100


_MON_FRESH = """
import numpy as np
from foury_sim.games import tactics as T
from foury_sim.games.tactics import kernel as K
from foury_sim.games.tactics import layout as A
from foury_sim.policy import make_policy

mon_field = K.mon_field
calls = [0, 0]


def checked(g, w, st, lava):
    slot = A.S_MC_L if lava else A.S_MC_G
    kept = st[slot] == st[A.S_MPASV] * 4096 + st[A.S_CELL]
    mon_field(g, w, st, lava)
    w2 = K.Work(*(a.copy() for a in w))
    st2 = st.copy()
    st2[slot] = -1  # nothing cached: swept anew over the tiles as they are now
    mon_field(g, w2, st2, lava)
    row = K.W_ML if lava else K.W_MG
    assert np.array_equal(w.wi[row], w2.wi[row]), (lava, st[A.S_MPASV], st[A.S_MAPV])
    calls[0] += 1
    calls[1] += kept


K.mon_field = checked
K.mon_field_fresh = lambda st, lava: False  # every use goes through the wrapper (mon_field keeps a fresh field)
for level, policy, dm in (("crypt", "thorough", "by_the_book"), ("crypt", "rush", "ruthless"),
                          ("forge", "thorough", "ruthless"), ("lava", "random", "by_the_book")):
    rs = T.load_ruleset(None, None, level, dm=dm)
    T.simulate(rs, "adventurer", make_policy(policy, T.POLICIES), 5, 0, 6)
print(calls[0], calls[1])
"""


def test_monster_fields_kept_across_things_used_equal_new_ones():
    """The monsters' fields are kept while their passability's version (``S_MPASV``: a crate, barrel or key taken,
    a door opened) and the player's tile stand, through chests, sarcophagi and shrines used (which bump only the map
    version): at every use in played games (un-jitted, so the kernel calls the wrapper) the field equals one swept
    anew."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", _MON_FRESH], env=env, capture_output=True, text=True, timeout=600,
                         cwd=Path(__file__).parent.parent)
    assert res.returncode == 0, res.stderr[-3000:]
    total, kept = (int(x) for x in res.stdout.strip().splitlines()[-1].split())
    assert total > 100 and kept > 20, (total, kept)


def test_a_game_no_monster_ended_has_the_killer_no_monster(rs):
    """The killer column's -1 is every game a monster did not end (a win, a trap, water, lava, the ??? potion, the
    turn cap): it is labelled "no monster" (it said "none", which read as a monster's name beside them), and a game a
    monster ended names that monster."""
    from foury_sim.games.tactics.outputs import killer_label

    r = _sim(rs, "thorough", 3, 0, 2000)
    cause, killer = r["death_cause"], r["killer"]
    assert ((cause == A.CAUSE_MONSTER) == (killer >= 0)).all()
    assert (cause != A.CAUSE_MONSTER).any() and (cause == A.CAUSE_MONSTER).any()
    assert killer_label(-1, rs) == "no monster"
    k = int(killer[cause == A.CAUSE_MONSTER][0])
    assert killer_label(k, rs) == rs.monster_names[k].replace("_", " ")
