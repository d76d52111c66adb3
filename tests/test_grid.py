"""The shared grid kernels (``foury_sim.grid``): distance fields, the bee-line step and line of sight, on grids
drawn in this file, each run jitted and as plain Python (``plain(fn)``), plus the text helpers."""

from __future__ import annotations

import numpy as np
import pytest
from plain import plain

from foury_sim import grid as G
from foury_sim.errors import InputError

BOTH = pytest.mark.parametrize("py", [False, True], ids=["jit", "python"])


def fn(name: str, py: bool):
    f = getattr(G, name)
    return plain(f) if py else f


def parse(pic: str):
    """rows, cols, lines of a drawn grid (leading/trailing blank lines dropped)."""
    lines = pic.strip("\n").split("\n")
    assert len({len(x) for x in lines}) == 1, "a drawn grid is rectangular"
    return len(lines), len(lines[0]), lines


def find(lines, ch: str) -> int:
    cols = len(lines[0])
    return next(r * cols + c for r, row in enumerate(lines) for c, x in enumerate(row) if x == ch)


def draw_field(lines, out) -> str:
    """The field as text: distances 0-9 then a-z, '#' where the drawing has a wall, '-' unreachable."""
    rows, cols = len(lines), len(lines[0])
    res = []
    for r in range(rows):
        s = ""
        for c in range(cols):
            d = int(out[r * cols + c])
            s += "#" if lines[r][c] == "#" else "-" if d < 0 else "0123456789abcdefghijklmnopqrstuvwxyz"[d]
        res.append(s)
    return "\n".join(res)


# ----------------------------------------------------------------------------------------------- BFS

MAZE = """
S.#....
.##.##.
...#...
.#...#.
.#.#.#X
"""

MAZE_FIELD = """
01#fedc
1##g##b
234#89a
3#567#b
4#6#8#c
"""


@BOTH
def test_distance_field_maze(py):
    rows, cols, lines = parse(MAZE)
    passable = np.array([ch != "#" for row in lines for ch in row], np.uint8)
    out = np.zeros(rows * cols, np.int32)
    fn("distance_field", py)(passable, rows, cols, find(lines, "S"), out)
    assert draw_field(lines, out) == MAZE_FIELD.strip("\n")


@BOTH
def test_distance_field_unreachable_and_impassable_source(py):
    rows, cols, lines = parse("""
S#..
##..
....
""")
    passable = np.array([ch not in "#S" for row in lines for ch in row], np.uint8)  # the source itself is not
    out = np.zeros(rows * cols, np.int32)
    fn("distance_field", py)(passable, rows, cols, 0, out)
    assert draw_field(lines, out) == "0#--\n##--\n----"
    fn("distance_field", py)(passable, rows, cols, rows * cols, out)  # off the grid: nothing reached
    assert (out == -1).all()


@BOTH
def test_distance_field_single_row_and_column(py):
    for rows, cols in ((1, 5), (5, 1)):
        out = np.zeros(5, np.int32)
        fn("distance_field", py)(np.ones(5, np.uint8), rows, cols, 2, out)
        assert out.tolist() == [2, 1, 0, 1, 2]


def test_distance_field_matches_naive_bfs_on_random_grids():
    rng = np.random.default_rng(5)
    for _ in range(30):
        rows, cols = rng.integers(1, 12, 2)
        passable = (rng.random(rows * cols) > 0.3).astype(np.uint8)
        src = int(rng.integers(rows * cols))
        out = np.zeros(rows * cols, np.int32)
        G.distance_field(passable, rows, cols, src, out)
        assert out.tolist() == naive_field(np.where(passable != 0, 1, 0), rows, cols, src)


@BOTH
def test_distance_field_on_walled_grids_matches_naive_bfs(py):
    """The walled-map path (no edge tile passable, ``src`` off the edge: no bounds checks) and the checked path
    give the textbook numbers: random grids, open and walled borders, any source (also off the grid)."""
    rng = np.random.default_rng(30)
    walled = 0
    for trial in range(300 if py else 600):
        rows, cols = int(rng.integers(1, 10)), int(rng.integers(1, 10))
        n = rows * cols
        pas = (rng.random(n) < rng.uniform(0.3, 1.0)).astype(np.uint8)
        if trial % 2 and rows >= 3 and cols >= 3:
            for c in range(n):
                if c < cols or c >= n - cols or c % cols in (0, cols - 1):
                    pas[c] = 0
        src = int(rng.integers(-1, n + 1))
        got = np.full(n, 7, np.int32)
        fn("distance_field", py)(pas, rows, cols, src, got)
        want = naive_field(np.where(pas != 0, 1, 0), rows, cols, src) if 0 <= src < n else [-1] * n
        assert got.tolist() == want, (trial, rows, cols, src)
        walled += bool(fn("enclosed", py)(pas, rows, cols, src))
    assert walled > 25


@BOTH
def test_edge_within_reads_every_edge_tile_and_only_those(py):
    rng = np.random.default_rng(31)
    for _ in range(200):
        rows, cols = int(rng.integers(1, 8)), int(rng.integers(1, 8))
        a = rng.integers(-3, 4, rows * cols)
        lo, hi = sorted(int(v) for v in rng.integers(-3, 4, 2))
        edge = [r * cols + c for r in range(rows) for c in range(cols) if r in (0, rows - 1) or c in (0, cols - 1)]
        assert fn("edge_within", py)(a, rows, cols, lo, hi) == all(lo <= a[c] <= hi for c in edge), (rows, cols)


def naive_field(cost, rows, cols, src):
    """Dijkstra the textbook way (a list as the queue): the reference for both fields."""
    n = rows * cols
    dist = [-1] * n
    dist[src] = 0
    todo = {src}
    while todo:
        cell = min(todo, key=lambda x: dist[x])
        todo.remove(cell)
        r, c = divmod(cell, cols)
        for r2, c2 in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
            if 0 <= r2 < rows and 0 <= c2 < cols:
                nb = r2 * cols + c2
                if nb != src and cost[nb] > 0 and (dist[nb] < 0 or dist[cell] + cost[nb] < dist[nb]):
                    dist[nb] = dist[cell] + int(cost[nb])
                    todo.add(nb)
    return dist


# ------------------------------------------------------------------------------------------ weighted

# water '~' costs 2 to enter, a plate-mail wade '8' costs 8, floor 1, '#' impassable
POOL = """
S..~~~X
.#.~~~.
.#.....
"""

POOL_FIELD = """
0124689
1#35799
2#45678
"""


@BOTH
def test_distance_field_w_water_costs(py):
    rows, cols, lines = parse(POOL)
    cost = np.array([{"#": 0, "~": 2}.get(ch, 1) for row in lines for ch in row], np.int32)
    out = np.zeros(rows * cols, np.int32)
    fn("distance_field_w", py)(cost, rows, cols, 0, out)
    assert draw_field(lines, out) == POOL_FIELD.strip("\n")


@BOTH
def test_distance_field_w_goes_round_deep_water(py):
    rows, cols, lines = parse("""
S8X
...
""")
    cost = np.array([{"8": 8}.get(ch, 1) for row in lines for ch in row], np.int32)
    out = np.zeros(rows * cols, np.int32)
    fn("distance_field_w", py)(cost, rows, cols, 0, out)
    assert out.tolist() == [0, 8, 4, 1, 2, 3]  # the pool costs 8 to enter: X is 4 round it


@BOTH
def test_distance_field_w_matches_naive_on_random_grids(py):
    rng = np.random.default_rng(7)
    for k in range(40):
        rows, cols = rng.integers(1, 10, 2)
        costs = np.array([0, 1, 1, 1, 2, 8] if k % 2 else [0, 1, 3, 4, 64], np.int32)
        cost = rng.choice(costs, rows * cols)
        src = int(rng.integers(rows * cols))
        out = np.zeros(rows * cols, np.int32)
        fn("distance_field_w", py)(cost, rows, cols, src, out)
        assert out.tolist() == naive_field(cost, rows, cols, src)


@BOTH
def test_distance_field_w_huge_costs_fall_back_to_sweeps(py):
    """Costs above MAX_QUEUED_COST take the relaxation sweeps: the same answer."""
    rng = np.random.default_rng(8)
    for _ in range(10):
        rows, cols = rng.integers(2, 8, 2)
        cost = rng.choice(np.array([0, 1, 2, 200_000_000], np.int32), rows * cols)
        src = int(rng.integers(rows * cols))
        out = np.zeros(rows * cols, np.int32)
        fn("distance_field_w", py)(cost, rows, cols, src, out)
        assert out.tolist() == naive_field(cost, rows, cols, src)


def test_distance_field_w_with_unit_costs_is_the_bfs():
    rows, cols, lines = parse(MAZE)
    passable = np.array([ch != "#" for row in lines for ch in row], np.uint8)
    a, b = np.zeros(rows * cols, np.int32), np.zeros(rows * cols, np.int32)
    G.distance_field(passable, rows, cols, 0, a)
    G.distance_field_w(passable.astype(np.int32), rows, cols, 0, b)
    assert a.tolist() == b.tolist()


# ---------------------------------------------------------------------------------------- first step


@BOTH
def test_first_step_ties_up_right_down_left(py):
    rows, cols = 3, 3
    dist = np.array([1, 1, 1,
                     1, 2, 1,
                     1, 1, 1], np.int32)
    free = np.zeros(9, np.uint8)
    step = fn("first_step", py)
    assert step(dist, rows, cols, 4, free) == 1  # all four at 1: up first
    blocked = free.copy()
    blocked[1] = 1
    assert step(dist, rows, cols, 4, blocked) == 5  # up blocked: right
    blocked[5] = 1
    assert step(dist, rows, cols, 4, blocked) == 7  # then down
    blocked[7] = 1
    assert step(dist, rows, cols, 4, blocked) == 3  # then left
    blocked[3] = 1
    assert step(dist, rows, cols, 4, blocked) == -1  # boxed in


@BOTH
def test_first_step_takes_the_smallest_and_never_steps_sideways(py):
    rows, cols = 3, 3
    step = fn("first_step", py)
    free = np.zeros(9, np.uint8)
    dist = np.array([-1, 3, -1,
                     2, 3, 4,
                     -1, -1, -1], np.int32)
    assert step(dist, rows, cols, 4, free) == 3  # the one closer neighbour
    blocked = free.copy()
    blocked[3] = 1
    assert step(dist, rows, cols, 4, blocked) == -1  # up is as far as here: a bee-line waits
    dist[4] = -1  # off the field (a cell the field did not cover): the smallest reachable neighbour
    assert step(dist, rows, cols, 4, blocked) == 1
    assert step(np.array([0, 1, 2], np.int32), 1, 3, 0, np.zeros(3, np.uint8)) == -1  # at the target


def test_first_step_walks_the_maze_to_its_source():
    rows, cols, lines = parse(MAZE)
    passable = np.array([ch != "#" for row in lines for ch in row], np.uint8)
    dist = np.zeros(rows * cols, np.int32)
    G.distance_field(passable, rows, cols, find(lines, "S"), dist)
    cell, path = find(lines, "X"), []
    while dist[cell] > 0:
        cell = G.first_step(dist, rows, cols, cell, np.zeros(rows * cols, np.uint8))
        path.append(cell)
    assert len(path) == dist[find(lines, "X")] and path[-1] == 0


# --------------------------------------------------------------------------------------- line of sight
# Drawn cases: '#' wall and 'D' closed door are opaque; '~' water (and everything else) is not. '@' looks; the
# expected picture marks each other tile 'o' (seen) or '.' (hidden), and water '~' seen or 'w' hidden.


def seen_from(pic: str, py: bool = False) -> str:
    rows, cols, lines = parse(pic)
    opaque = np.array([ch in "#D" for row in lines for ch in row], np.uint8)
    me = find(lines, "@")
    los = fn("line_of_sight", py)
    out = []
    for r in range(rows):
        s = ""
        for c in range(cols):
            ch, seen = lines[r][c], los(opaque, rows, cols, me, r * cols + c)
            s += ch if ch in "#D@" else ("~" if seen else "w") if ch == "~" else "o" if seen else "."
        out.append(s)
    return "\n".join(out)


LOS_CASES = {
    "pillars in a hall": ("""
@.........
....#.....
..........
.......#..
..........
""", """
@ooooooooo
oooo#...oo
oooooo....
ooooooo#..
ooooooooo.
"""),
    "a closed door blocks, water does not": ("""
.....#....
..@..D....
.....#....
~~~~~~~~~~
..........
""", """
ooooo#....
oo@ooD....
ooooo#....
~~~~~~~www
ooooooooo.
"""),
    "round a corner": ("""
....#.....
..@.#.....
....##....
..........
""", """
oooo#.....
oo@o#.....
oooo##....
ooooo.....
"""),
    "no peeking through a corner between two walls": ("""
.#...
#@...
.....
""", """
.#ooo
#@ooo
ooooo
"""),
    "one wall at a corner does not block the diagonal": ("""
.#.
.@.
...
""", """
o#o
o@o
ooo
"""),
    "diagonal line through a pillar": ("""
@....
.....
..#..
.....
.....
""", """
@oooo
ooooo
oo#oo
ooo.o
oooo.
"""),
    "a diagonal row of pillars": ("""
@....
.#...
..#..
...#.
.....
""", """
@oooo
o#ooo
oo#.o
oo.#.
ooo..
"""),
}


@BOTH
@pytest.mark.parametrize("case", list(LOS_CASES))
def test_line_of_sight_drawn(case, py):
    pic, expected = LOS_CASES[case]
    assert seen_from(pic, py) == expected.strip("\n")


@BOTH
def test_line_of_sight_endpoints_never_block(py):
    opaque = np.array([1, 0, 1], np.uint8)  # a monster standing in a (hypothetical) opaque doorway is still seen
    los = fn("line_of_sight", py)
    assert los(opaque, 1, 3, 0, 2) and los(opaque, 1, 3, 0, 0)
    assert not los(np.array([0, 1, 0], np.uint8), 1, 3, 0, 2)


def test_line_of_sight_uses_either_direction():
    """A knight's-move line whose a->b Bresenham path is walled but whose b->a path is clear is seen both ways."""
    rows, cols = 2, 3
    a, b = 0, 5
    found = False
    for wall in range(rows * cols):
        if wall in (a, b):
            continue
        opaque = np.zeros(rows * cols, np.uint8)
        opaque[wall] = 1
        there = G._clear_line(opaque, cols, 0, 0, 1, 2)
        back = G._clear_line(opaque, cols, 1, 2, 0, 0)
        assert G.line_of_sight(opaque, rows, cols, a, b) == (there or back) == G.line_of_sight(opaque, rows, cols, b, a)
        found |= there != back
    assert found, "some wall blocks one direction only"


def test_line_of_sight_symmetric_over_random_grids():
    rng = np.random.default_rng(11)
    for _ in range(6):
        rows, cols = rng.integers(3, 9, 2)
        n = rows * cols
        opaque = (rng.random(n) < 0.25).astype(np.uint8)
        seen = np.array([[G.line_of_sight(opaque, rows, cols, a, b) for b in range(n)] for a in range(n)])
        assert (seen == seen.T).all()
        assert seen.diagonal().all()
        py = np.array([[plain(G.line_of_sight)(opaque, rows, cols, a, b) for b in range(n)] for a in range(n)])
        assert (seen == py).all()


def test_line_of_sight_is_either_direction_on_every_pair():
    """line_of_sight is exactly "the line a->b or the line b->a is clear" for every pair of cells, those along a
    row, a column or a diagonal (where it walks one line only) included, jitted and pure Python."""
    rng = np.random.default_rng(24)
    aligned = 0
    for _ in range(8):
        rows, cols = (int(x) for x in rng.integers(2, 9, 2))
        n = rows * cols
        opaque = (rng.random(n) < 0.3).astype(np.uint8)
        for a in range(n):
            for b in range(n):
                ra, ca, rb, cb = a // cols, a % cols, b // cols, b % cols
                want = a == b or bool(plain(G._clear_line)(opaque, cols, ra, ca, rb, cb)
                                      or plain(G._clear_line)(opaque, cols, rb, cb, ra, ca))
                assert G.line_of_sight(opaque, rows, cols, a, b) == want, (rows, cols, a, b)
                assert plain(G.line_of_sight)(opaque, rows, cols, a, b) == want, (rows, cols, a, b)
                aligned += not want and (ra == rb or ca == cb or abs(ra - rb) == abs(ca - cb))
    assert aligned > 100, "blocked aligned pairs are checked"


def test_line_of_sight_orthogonal_neighbours_always_seen():
    rows, cols = 4, 4
    opaque = np.ones(16, np.uint8)
    for a in range(16):
        for k in range(4):
            b = G.neighbour(rows, cols, a, k)
            if b >= 0:
                assert G.line_of_sight(opaque, rows, cols, a, b)


# ---------------------------------------------------------------------------------------- text helpers


def test_cell_words_and_where():
    assert G.cell_words(2 * 7 + 6, 7) == "row 3, column 7"
    assert G.where("a.txt", 3, 7) == "a.txt:3:7"


def test_header_lines_reads_keys_and_stops():
    lines = ["# a comment", "name: Crypt", "", "  Assume-rows: 15 | reason = r", "grid:", "#####"]
    h = G.header_lines(lines, "f.txt", lambda s: s.strip() == "grid:")
    assert h.values == {"name": "Crypt", "assume-rows": "15 | reason = r"}
    assert h.line_of == {"name": 2, "assume-rows": 4}
    assert h.end == 4 and h.text == "\n".join(lines[:4])
    assert h.where("f.txt", "assume-rows") == "f.txt:4:1"


@pytest.mark.parametrize("lines, where, words", [
    (["name: a", "name: b"], "f:2:1", "given twice (first at line 1)"),
    (["name: a", "  what is this"], "f:2:3", "expected a 'key: value' header line (e.g. 'name: ...') or the grid"),
    (["x" * 1001], "f:1:1001", "line is too long"),
])
def test_header_lines_errors(lines, where, words):
    with pytest.raises(InputError) as e:
        G.header_lines(lines, "f", lambda s: False)
    assert e.value.where == where and words in e.value.message


def test_header_lines_limit():
    with pytest.raises(InputError) as e:
        G.header_lines([f"k{i}: v" for i in range(4)], "f", lambda s: False, max_lines=3)
    assert e.value.where == "f:4:1" and "at most 3" in e.value.message


def test_split_lines_crlf_bom_and_control_characters():
    assert G.split_lines("\ufeffa\r\nb\n", "f") == ["a", "b", ""]
    with pytest.raises(InputError) as e:
        G.split_lines("ab\ncd\x07e", "f", noun="level")
    assert e.value.where == "f:2:3" and "a level file holds printable text only" in e.value.message
    with pytest.raises(InputError) as e:
        G.split_lines("ab\rcd", "f")
    assert e.value.where == "f:1:3" and "carriage return" in e.value.message


def test_read_grid_text_errors(tmp_path):
    with pytest.raises(InputError) as e:
        G.read_grid_text(tmp_path / "nope.txt", "--level", noun="level")
    assert e.value.where == "--level" and "level file not found" in e.value.message
    with pytest.raises(InputError) as e:
        G.read_grid_text(tmp_path, "--level", noun="level")
    assert "is a folder, not a level file" in e.value.message
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"name: x\nab\xffc\n")
    with pytest.raises(InputError) as e:
        G.read_grid_text(bad)
    assert e.value.where == f"{bad}:2:3" and "not UTF-8" in e.value.message
    big = tmp_path / "big.txt"
    big.write_bytes(b"a\n" * 20)
    with pytest.raises(InputError) as e:
        G.read_grid_text(big, max_bytes=11)
    assert e.value.where == f"{big}:6:2" and "larger than 11 bytes" in e.value.message
    ok = tmp_path / "ok.txt"
    ok.write_text("name: x\n", encoding="utf-8")
    assert G.read_grid_text(ok) == "name: x\n"


def test_kernels_allocate_nothing():
    """Callable from a kernel compiled without numba's runtime (``_nrt=False``, as Delve's are): no allocation."""
    from numba import njit

    @njit(_nrt=False)
    def use_all(passable, cost, rows, cols, out):
        G.distance_field(passable, rows, cols, 0, out)
        a = out[rows * cols - 1]
        G.distance_field_w(cost, rows, cols, 0, out)
        return a, out[rows * cols - 1], G.first_step(out, rows, cols, rows * cols - 1, passable), \
            G.line_of_sight(passable, rows, cols, 0, rows * cols - 1)

    out = np.zeros(6, np.int32)
    assert use_all(np.ones(6, np.uint8), np.full(6, 2, np.int32), 2, 3, out) == (3, 6, -1, False)
