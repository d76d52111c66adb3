"""Tile grids shared by every game with a square board: paths, line of sight, and reading grid files.

Kernels and Python use the same functions. A grid of ``rows x cols`` tiles is a flat array indexed by the
**cell** ``r * cols + c`` (0-based); in words and errors rows and columns are 1-based (``cell_words``).
Moves are 4-neighbour; the neighbours of a cell are always visited up, right, down, left.

* ``distance_field``: breadth-first steps from a cell over passable tiles (-1 unreachable).
* ``distance_field_w``: the same with a cost to *enter* each tile (Dijkstra over small integers).
* ``first_step``: the neighbour a bee-line takes towards the source of a distance field.
* ``line_of_sight``: symmetric Bresenham line of sight with no peeking through a corner between two
  opaque tiles (a game's rules doc writes the rulings out for its players).

The Python half reads a grid file's text with one-line errors (``read_grid_text``, ``split_lines``) and its
``key: value`` header with comments (``header_lines``), the way every board file of the toolkit is written.
Nothing here names a game.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from .config import CACHE
from .errors import InputError

# ------------------------------------------------------------------------------------------- kernels


@njit(cache=CACHE, inline="always", _nrt=False)
def neighbour(rows, cols, cell, k):
    """The ``k``-th 4-neighbour of ``cell`` (k = 0 up, 1 right, 2 down, 3 left), -1 off the grid."""
    r = cell // cols
    c = cell - r * cols
    if k == 0:
        return cell - cols if r > 0 else -1
    if k == 1:
        return cell + 1 if c < cols - 1 else -1
    if k == 2:
        return cell + cols if r < rows - 1 else -1
    return cell - 1 if c > 0 else -1


@njit(cache=CACHE, _nrt=False)
def distance_field(passable, rows, cols, src, out):
    """``out[cell]`` = fewest 4-neighbour steps from ``src`` to ``cell`` over cells with ``passable != 0``,
    -1 where unreachable. ``src`` itself is 0 whether or not it is passable (a monster's field is taken from
    the player's tile); a ``src`` off the grid leaves every cell -1.

    Breadth-first, allocating nothing (kernels may run without numba's runtime): the queue is a linked list
    threaded through ``out`` itself. A queued cell holds ``-2 - next`` (``next = n``: none), a reached cell its
    distance, an unseen cell -1. When no edge tile is passable and ``src`` is off the edge (a walled map), every
    neighbour the sweep looks at is on the grid: it takes them without bounds checks or divisions."""
    n = rows * cols
    for i in range(n):
        out[i] = -1
    if src < 0 or src >= n:
        return
    walled = enclosed(passable, rows, cols, src)
    none = -2 - n
    out[src] = none
    head = src
    tail = src
    last = src  # the last queued cell of the current layer
    d = 0
    while head != n:
        nxt = -2 - out[head]
        out[head] = d
        for k in range(4):
            if walled:
                nb = head - cols if k == 0 else (head + 1 if k == 1 else (head + cols if k == 2 else head - 1))
            else:
                nb = neighbour(rows, cols, head, k)
                if nb < 0:
                    continue
            if passable[nb] == 0 or out[nb] != -1:
                continue
            out[nb] = none
            if nxt == n:
                nxt = nb
            else:
                out[tail] = -2 - nb
            tail = nb
        if head == last:
            d += 1
            last = tail
        head = nxt


@njit(cache=CACHE, inline="always", _nrt=False)
def edge_within(a, rows, cols, lo, hi):
    """Whether every edge tile of the grid has ``lo <= a[tile] <= hi`` (the test of a sweep's unchecked path: no
    tile it looks at is on the edge, so no neighbour is off the grid). Inlined: callers pass constants."""
    for x in range(cols):
        v = a[x]
        w = a[(rows - 1) * cols + x]
        if v < lo or v > hi or w < lo or w > hi:
            return False
    for r in range(rows):
        v = a[r * cols]
        w = a[r * cols + cols - 1]
        if v < lo or v > hi or w < lo or w > hi:
            return False
    return True


@njit(cache=CACHE, _nrt=False)
def enclosed(passable, rows, cols, src):
    """Whether no edge tile of the grid is passable and ``src`` is off the edge (then a 4-neighbour sweep from
    ``src`` never leaves the grid)."""
    if rows < 3 or cols < 3 or src < 0 or src >= rows * cols:
        return False
    r0 = src // cols
    x0 = src - r0 * cols
    if r0 == 0 or r0 == rows - 1 or x0 == 0 or x0 == cols - 1:
        return False
    return edge_within(passable, rows, cols, 0, 0)


#: ``distance_field_w`` queues tiles whose costs are at most this (water, plate mail: 2 to 8); larger costs
#: make it sweep.
MAX_QUEUED_COST = 64


@njit(cache=CACHE, _nrt=False)
def distance_field_w(cost, rows, cols, src, out):
    """``out[cell]`` = least total cost from ``src`` to ``cell``, paying ``cost[x]`` to *enter* each tile ``x``
    on the way (``cost <= 0``: impassable), -1 where unreachable; ``src`` is 0 whatever its own cost.

    Every step into a tile costs the same whichever neighbour it comes from, so the first time a tile is
    reached from the nearest finished neighbour its distance is final: the breadth-first queue of
    ``distance_field`` works if a tile of cost k waits k - 1 extra rounds in it. The queue again lives in
    ``out`` (a queued tile holds ``-2 - (next + (n + 1) * rounds_left)``), so nothing is allocated; the work
    grows with the sum of the costs. A cost above ``MAX_QUEUED_COST`` (or too large to pack) takes relaxation
    sweeps instead, whose work does not depend on the costs."""
    n = rows * cols
    top = 1
    for i in range(n):
        out[i] = -1
        if cost[i] > top:
            top = cost[i]
    if src < 0 or src >= n:
        return
    if top > MAX_QUEUED_COST or (n + 1) * np.int64(top) + n + 2 >= 2147483647:
        _sweeps(cost, rows, cols, src, out)
        return
    m = n + 1
    none = n
    out[src] = -2 - none
    head = src
    tail = src
    last = src
    d = 0
    while head != none:
        v = -2 - out[head]
        nxt = v % m
        wait = v // m
        if wait > 0:  # still wading in: back to the end of the queue, one round less to wait
            out[head] = -2 - (none + m * (wait - 1))
            if nxt == none:
                nxt = head
            else:
                t = -2 - out[tail]
                out[tail] = -2 - (head + m * (t // m))
            tail = head
        else:
            out[head] = d
            for k in range(4):
                nb = neighbour(rows, cols, head, k)
                if nb < 0 or cost[nb] <= 0 or out[nb] != -1:
                    continue
                out[nb] = -2 - (none + m * (cost[nb] - 1))
                if nxt == none:
                    nxt = nb
                else:
                    t = -2 - out[tail]
                    out[tail] = -2 - (nb + m * (t // m))
                tail = nb
        if head == last:
            d += 1
            last = tail
        head = nxt


@njit(cache=CACHE, _nrt=False)
def _sweeps(cost, rows, cols, src, out):
    """``distance_field_w`` by relaxation sweeps over the grid, forwards then backwards, until nothing changes
    (Bellman-Ford in raster order): slower, but for any costs. ``out`` is all -1 on entry."""
    n = rows * cols
    out[src] = 0
    changed = True
    while changed:
        changed = False
        for j in range(2 * n):
            i = j if j < n else 2 * n - 1 - j
            step = cost[i]
            if i == src or step <= 0:
                continue
            best = out[i]
            for k in range(4):
                nb = neighbour(rows, cols, i, k)
                if nb >= 0 and out[nb] >= 0 and (best < 0 or out[nb] + step < best):
                    best = out[nb] + step
            if best != out[i]:
                out[i] = best
                changed = True


@njit(cache=CACHE, _nrt=False)
def first_step(dist_to_target, rows, cols, cell, blocked):
    """The neighbour of ``cell`` a bee-line towards the source of ``dist_to_target`` takes: the one with the
    smallest distance (ties: up, right, down, left), skipping unreachable (-1) and ``blocked != 0`` neighbours,
    and, when ``cell`` itself is on the field (distance >= 0), any neighbour that is not strictly closer (a
    bee-line never steps sideways or back: a monster whose way is blocked waits). -1 if there is none."""
    here = dist_to_target[cell]
    best = -1
    best_d = -1
    for k in range(4):
        nb = neighbour(rows, cols, cell, k)
        if nb < 0:
            continue
        d = dist_to_target[nb]
        if d < 0 or blocked[nb] != 0:
            continue
        if here >= 0 and d >= here:
            continue
        if best < 0 or d < best_d:
            best = nb
            best_d = d
    return best


@njit(cache=CACHE, inline="always", _nrt=False)
def _clear_line(opaque, cols, r0, c0, r1, c1):
    """Whether the Bresenham line (r0, c0) -> (r1, c1) passes no opaque cell strictly between its ends and no
    diagonal step squeezes between two opaque cells (the corner rule)."""
    dc = abs(c1 - c0)
    dr = -abs(r1 - r0)
    sc = 1 if c0 < c1 else -1
    sr = 1 if r0 < r1 else -1
    err = dc + dr
    r = r0
    c = c0
    while True:
        if r == r1 and c == c1:
            return True
        e2 = 2 * err
        nr = r
        nc = c
        if e2 >= dr:
            err += dr
            nc += sc
        if e2 <= dc:
            err += dc
            nr += sr
        if nr != r and nc != c and opaque[r * cols + nc] != 0 and opaque[nr * cols + c] != 0:
            return False
        r = nr
        c = nc
        if r == r1 and c == c1:
            return True
        if opaque[r * cols + c] != 0:
            return False


@njit(cache=CACHE, _nrt=False)
def line_of_sight(opaque, rows, cols, a, b):
    """Whether cells ``a`` and ``b`` see each other: the Bresenham line a->b *or* b->a passes no cell with
    ``opaque != 0`` strictly between them (the ends never block), where a diagonal step between two opaque
    cells that touch its corner is blocked (no peeking through a corner). Symmetric by construction;
    a cell sees itself and its four neighbours. Along a row, a column or a diagonal both lines pass the same
    cells (and corners), so the way back is not walked again."""
    if a == b:
        return True
    ra = a // cols
    ca = a - ra * cols
    rb = b // cols
    cb = b - rb * cols
    if _clear_line(opaque, cols, ra, ca, rb, cb):
        return True
    if ra == rb or ca == cb or abs(ra - rb) == abs(ca - cb):
        return False
    return _clear_line(opaque, cols, rb, cb, ra, ca)


# ------------------------------------------------------------------------------------------- Python side


def cell_words(cell: int, cols: int) -> str:
    """A cell in words, rows and columns counted from 1 at the top left: ``"row 3, column 7"``."""
    r, c = divmod(int(cell), int(cols))
    return f"row {r + 1}, column {c + 1}"


def where(path: str | Path, line: int, col: int) -> str:
    """The ``file:line:column`` of an error."""
    return f"{path}:{line}:{col}"


#: A grid file is read no further than this many bytes.
MAX_FILE_BYTES = 1 << 20
#: 'key: value' lines before a grid (comments not counted), and characters of one such line.
MAX_HEADER_LINES = 100
MAX_HEADER_CHARS = 1000

HEADER_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(.*)$")
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]")


def read_grid_text(path: str | Path, where_: str = "--map", noun: str = "map", max_bytes: int = MAX_FILE_BYTES,
                   hint: str = "") -> str:
    """A grid file's text: refused in one line (at ``where_``, the option or key that named it) if it is not a
    file or cannot be read, and at ``file:line:column`` if it is larger than ``max_bytes`` (read no further)
    or not UTF-8 (the first bad byte). ``noun`` names the kind of file in the messages (``map``, ``level``);
    ``hint`` follows the size message (why a file of that kind is never that large)."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{p} is a folder, not a {noun} file", where_)
    if not p.is_file():
        raise InputError(f"{p} is not a regular file" if p.exists() else f"{noun} file not found: {p}", where_)
    try:
        with open(p, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise InputError(f"cannot read {noun} file {p}: {e.strerror or e}", where_) from e

    def at(offset: int) -> str:
        start = data.rfind(b"\n", 0, offset) + 1
        col = len(data[start:offset].decode("utf-8", errors="replace")) + 1
        return where(p, data.count(b"\n", 0, offset) + 1, col)

    if len(data) > max_bytes:
        raise InputError(f"{noun} file is larger than {max_bytes} bytes" + (f" {hint}" if hint else ""), at(max_bytes))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text: byte 0x{data[e.start]:02x} cannot be read (save the {noun} as UTF-8)",
                         at(e.start)) from None


def split_lines(text: str, path: str | Path, noun: str = "map") -> list[str]:
    """The lines of a grid file without their ends: a leading byte-order mark and CRLF ends are accepted; any
    other control character (a lone carriage return, a stray byte-order mark, ...) is refused at its
    ``file:line:column``. Tabs are left for the grid reader to refuse (a header may hold them)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    for k, raw in enumerate(lines):
        if raw.endswith("\r"):
            raw = lines[k] = raw[:-1]
        bad = CONTROL_RE.search(raw)
        if bad:
            ch = bad.group()
            if ch == "\r":
                msg = "carriage return inside a line: end lines with LF or CRLF (an old Mac file?)"
            elif ch == "\ufeff":
                msg = "byte-order mark inside the file: it may only stand at its very start"
            else:
                msg = f"control character {ch!r} (U+{ord(ch):04X}): a {noun} file holds printable text only"
            raise InputError(msg, where(path, k + 1, bad.start() + 1))
    return lines


def is_comment(line: str, comment: str = "#") -> bool:
    """A comment line: its first character that is not a space is ``comment``."""
    return line.lstrip().startswith(comment)


@dataclass
class Header:
    """The ``key: value`` lines at the top of a grid file (keys lower-cased, values stripped)."""

    values: dict[str, str] = field(default_factory=dict)
    line_of: dict[str, int] = field(default_factory=dict)  #: 1-based file line of each key
    end: int = 0  #: index (0-based) of the first line after the header: the stop line, or len(lines)
    text: str = ""  #: the file's text before ``end`` (its ``assume-KEY:`` lines: ``assumptions.from_map``)

    def where(self, path: str | Path, key: str) -> str:
        """``file:line:1`` of a key's line (``file:1:1`` for a key that is not there)."""
        return where(path, self.line_of.get(key, 1), 1)


def header_lines(lines: list[str], path: str | Path, stop: Callable[[str], bool], *, start: int = 0,
                 comment: str = "#", expected: str = "the grid", example: str = "name: ...",
                 max_lines: int = MAX_HEADER_LINES, max_chars: int = MAX_HEADER_CHARS) -> Header:
    """Read ``key: value`` header lines from ``lines[start:]`` up to the first line for which ``stop(line)`` is
    true (that line is ``Header.end``; without one, ``end`` is ``len(lines)``). Blank lines and comment lines
    are skipped. A line that is neither, a key given twice, more than ``max_lines`` keys or a line longer than
    ``max_chars`` is an ``InputError`` at ``file:line:column`` (``expected`` names what may stop the header and
    ``example`` shows a header line, for the message)."""
    h = Header()
    i = start
    while i < len(lines):
        raw = lines[i]
        if stop(raw):
            break
        if len(raw) > max_chars:
            raise InputError(f"line is too long: {len(raw)} characters; a header or comment line has at most "
                             f"{max_chars}", where(path, i + 1, max_chars + 1))
        if not raw.strip() or is_comment(raw, comment):
            i += 1
            continue
        m = HEADER_RE.match(raw.strip())
        col = len(raw) - len(raw.lstrip()) + 1
        if not m:
            raise InputError(f"expected a 'key: value' header line (e.g. '{example}') or {expected}, found "
                             f"{raw.strip()[:30]!r}", where(path, i + 1, col))
        key = m.group(1).lower()
        if key in h.values:
            raise InputError(f"header key '{key}' given twice (first at line {h.line_of[key]})",
                             where(path, i + 1, col))
        if len(h.values) == max_lines:
            raise InputError(f"too many header lines: at most {max_lines} 'key: value' lines",
                             where(path, i + 1, col))
        h.values[key] = m.group(2).strip()
        h.line_of[key] = i + 1
        i += 1
    h.end = i
    h.text = "\n".join(lines[:i])
    return h


__all__ = [
    "distance_field", "distance_field_w", "first_step", "line_of_sight", "cell_words", "where", "read_grid_text",
    "split_lines", "is_comment", "header_lines", "Header", "MAX_FILE_BYTES", "MAX_HEADER_LINES", "MAX_HEADER_CHARS",
]
