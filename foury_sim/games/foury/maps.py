"""Dungeon Foury maps: the human-editable ASCII format, its parser/validator/writer, and a renderer.

A map file is ``key: value`` header lines (at least ``name``; ``centre`` names the 'O' room in a drawing,
"Oracle" when absent: a campaign's map puts its own centre there; lines starting with ``#`` are
comments), one blank line, then the grid. One room is 3 characters and every grid line is
``4*cols+1`` characters long; border lines and room lines alternate::

    name: Tiny

    +vvv+---+---+
    >ATc|Ac. B..|
    +   +   +---+
    |A..|O** Bg.<
    +---+---+^^^+

* Border lines: '+' at columns 0, 4, 8, ...; each slot between is '---' (printed wall), '   '
  (open, only between two rooms), 'vvv' (arrow on the top border) or '^^^' (on the bottom border).
* Room lines: separators '|' (wall), ' ' (open, only between two rooms), '>' (arrow on the left
  border), '<' (on the right border); each room is its sector (A B C D, O the Oracle, # rock)
  then two icon characters ('.' or ' ' for none; the same icon twice counts 2; '*' is a decoration
  allowed only in the Oracle's room): the items' and fixtures' characters of ``icons.FIXED_CHARS``
  and the enemies' characters of the ruleset's ``[enemies]`` table (the shipped one by default).

Arrows give the direction of travel *into* the map. Every problem raises :class:`InputError`
with ``where = "file:line:column"``: the format, the size limits ``MAX_*`` (checked before anything
large is built) and what the game state holds are ``parse_map``'s; what a ruleset needs of a map (an
arrow per played sector, statues, levers, the ``assume-KEY:`` header lines) is ``check_map``'s.
``foury-sim run`` and ``foury-sim map check`` both load the ruleset with the map, so both apply all of
them (docs/rules.md, "Map files: format, checks and limits").

After the grid (and a blank line) may come the upper level's walkways, one per line::

    upper: 6,6 6,8 3

links the rooms at row 6, column 6 and row 6, column 8 (counted from 1) by a walkway of 3 turns.
Both rooms must hold a staircase 'S' or a lever 'L'; every lever must be reachable over the
walkways from a staircase. A map without ``upper:`` lines has one network: every staircase and
lever reach each other at no cost (``rulings.upper_level`` then makes no difference).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from ... import assumptions as assume
from ...errors import InputError
from ...grid import header_lines, is_comment, read_grid_text, split_lines, where
from ...trace_format import a as with_article
from .icons import (
    CAMPAIGN_FIRST,
    CAMPAIGN_GLYPHS,
    CIRCLE,
    DC,
    DR,
    FIXTURES,
    LEVER,
    N_ICONS,
    NO_CHAR,
    ORACLE,
    SANTA_ICONS,
    SECTOR_CHARS,
    SECTOR_NAMES,
    SHIPPED,
    STAIRS,
    START,
    VOID,
    E,
    IconTable,
    N,
    S,
    W,
    is_foe,
)
from .layout import MAX_ARROWS, T_COLS, UP_MAX_LEVER_PLACES, UP_MAX_PLACES

#: Distance between rooms that are not connected (and to/from solid rock).
UNREACHABLE = 9999
MAPS_DIR = Path(__file__).parent / "data" / "maps"
DEFAULT_MAP = "base"

_ROCK = "#"
_NO_ICON = ". "
_ORACLE_DECOR = "*"
_OPP = (S, W, N, E)
# border slot tokens
_WALL, _OPEN, _ARROW_S, _ARROW_N = "---", "   ", "vvv", "^^^"
_UPPER_RE = re.compile(r"^upper\s*:")

# Size limits, checked before anything large is built (docs/rules.md, "Map files: format and limits"); a file's
# bytes and its header lines are ``grid``'s limits for every grid file (MAX_FILE_BYTES, MAX_HEADER_LINES,
# MAX_HEADER_CHARS).
MAX_ROWS = 64  #: rows of rooms
MAX_COLS = 64  #: rooms per row
MAX_CELLS = MAX_ROWS * MAX_COLS  #: cells (rooms and rock): every distance stays below UNREACHABLE
MAX_ICON_ROOMS = T_COLS - 1  #: rooms with a staircase, with a magic circle, with a lever (each)


@dataclass
class MapData:
    """A parsed, validated map. Cells are numbered ``r * cols + c``; sides are N, E, S, W."""

    name: str
    path: str
    rows: int
    cols: int
    sector: np.ndarray  #: int8[n]: VOID (-1) rock, 0..3 sectors A..D, 4 ORACLE
    wall: np.ndarray  #: int8[n, 4]: 1 printed wall (incl. outer border and rock), 0 open
    icons: np.ndarray  #: int8[n, N_ICONS]: icon counts
    arrow_cell: np.ndarray  #: int64[k]: room each entry/exit arrow leads into
    arrow_dir: np.ndarray  #: int64[k]: direction of travel into the map (N, E, S, W)
    arrow_sector: np.ndarray  #: int64[k]: sector of the arrow's room
    oracle: int  #: cell of the Oracle's room
    meta: dict[str, str] = field(default_factory=dict)  #: header keys other than ``name``
    #: the upper level's walkways (cell, cell, turns); None = one network of every staircase and lever, no travel
    upper: list[tuple[int, int, int]] | None = None
    #: the icons' map characters and names the map was read with (foes from a ruleset's [enemies])
    table: IconTable = SHIPPED
    grid_line: int = 1  #: file line of the grid's top border (room line of row r: grid_line + 2r + 1)
    header_text: str = ""  #: the file's text before the grid (its 'assume-KEY:' lines are checked by check_map)

    @property
    def n(self) -> int:
        """Number of cells (rooms and rock)."""
        return self.rows * self.cols

    def neighbor(self, cell: int, side: int) -> int:
        """The grid cell next to ``cell`` across ``side`` (possibly rock), or -1 off the map."""
        r, c = divmod(int(cell), self.cols)
        r2, c2 = r + DR[side], c + DC[side]
        if 0 <= r2 < self.rows and 0 <= c2 < self.cols:
            return r2 * self.cols + c2
        return -1

    def rc(self, cell: int) -> tuple[int, int]:
        """(row, column) of a cell."""
        return divmod(int(cell), self.cols)

    def distances_from(self, cell: int) -> np.ndarray:
        """int16[n]: shortest path from ``cell`` to every cell through open sides (UNREACHABLE otherwise)."""
        return _bfs(self.sector, self.wall, self.rows, self.cols, [int(cell)])

    @cached_property
    def dist(self) -> np.ndarray:
        """int16[n, n]: shortest path between every two cells through open sides (UNREACHABLE otherwise).

        Computed on first use (n breadth-first searches, n*n entries): checking and playing a map need only
        ``distances_from``."""
        return _all_distances(self.sector, self.wall, self.rows, self.cols)

    def room_at(self, cell: int) -> str:
        """``path:line:column`` of a room's sector character in the file."""
        r, c = divmod(int(cell), self.cols)
        return where(self.path, self.grid_line + 2 * r + 1, 4 * c + 2)

    def arrow_at(self, k: int) -> str:
        """``path:line:column`` of the ``k``-th arrow (file order) in the file."""
        r, c = divmod(int(self.arrow_cell[k]), self.cols)
        d = int(self.arrow_dir[k])
        if d == S:
            return where(self.path, self.grid_line, 4 * c + 2)
        if d == N:
            return where(self.path, self.grid_line + 2 * self.rows, 4 * c + 2)
        return where(self.path, self.grid_line + 2 * r + 1, 1 if d == E else 4 * self.cols + 1)


# ----------------------------------------------------------------------------------------------
# parsing


def _is_grid_line(line: str) -> bool:
    """The grid's first line (a border, or a room line drawn without its top border: refused there)."""
    return line[:1] in ("+", "|", ">")


def _sector_label(s: int) -> str:
    return f"{SECTOR_CHARS[s]} ({SECTOR_NAMES[s]})"


def parse_map(text: str, path: str = "<map>", table: IconTable = SHIPPED) -> MapData:
    """Parse and validate map text; raise :class:`InputError` ("path:line:col") on any problem.

    ``table`` gives the icons' map characters (the enemies' come from the ruleset). A leading byte-order
    mark and CRLF line ends are accepted; other control characters, tabs in the grid and anything beyond the
    size limits (``MAX_*``) are refused at their line and column before anything large is built.
    """
    chars = table.chars
    path = str(path)
    lines = split_lines(text, path, noun="map")  # (printable text, LF or CRLF line ends)

    def err(msg: str, line: int, col: int) -> InputError:
        return InputError(msg, where(path, line, col))

    # ---- header, up to the grid's first line
    h = header_lines(lines, path, _is_grid_line, expected="the grid's top border ('+---+...')",
                     example="name: My map")
    header, grid_start = h.values, h.end
    if grid_start == len(lines):
        if not any(ln.strip() and not is_comment(ln) for ln in lines):
            raise err("empty map file: expected a header ('name: ...') and a grid", 1, 1)
        last = max(k for k, ln in enumerate(lines) if ln.strip()) + 1
        raise err("no grid found after the header (the grid starts with a border line '+---+...')", last + 1, 1)
    if not header.get("name"):
        raise err("missing 'name: ...' header line (every map needs a name)", 1, 1)

    # ---- grid block: contiguous non-blank lines from grid_start
    end = grid_start
    while end < len(lines) and lines[end].strip() and not _UPPER_RE.match(lines[end]):
        end += 1
    grid = [ln.rstrip() for ln in lines[grid_start:end]]
    lno = [grid_start + 1 + k for k in range(len(grid))]  # 1-based file line numbers

    first = grid[0]
    if first[0] != "+":
        raise err("expected the grid's top border line ('+---+...') but found a room line", lno[0], 1)
    cols = max(1, (len(first) - 1 + 3) // 4)
    width = 4 * cols + 1
    if cols > MAX_COLS:
        raise err(f"the map is {cols} rooms wide (its top border is {len(first)} characters): at most {MAX_COLS} "
                  f"rooms per row, {4 * MAX_COLS + 1} characters", lno[0], 4 * MAX_COLS + 2)
    if len(grid) > 2 * MAX_ROWS + 1:
        raise err(f"the map has {(len(grid) - 1) // 2} rows of rooms: at most {MAX_ROWS}", lno[2 * MAX_ROWS + 1], 1)
    for j, line in enumerate(grid):  # (a border line missing inside the grid was reported at the grid's end)
        if line.startswith("+") != (j % 2 == 0) and j < len(grid) - 1:
            if j % 2 == 0:
                raise err(f"expected a border line ('+---+...') but found a room line starting with {line[:1]!r} "
                          "(border and room lines alternate: a border line missing before it?)", lno[j], 1)
            raise err("expected a room line but found a border line (border and room lines alternate: a room line "
                      "missing before it?)", lno[j], 1)
    if len(grid) % 2 == 0:
        raise err(
            "the grid ends with a room line: a border line ('+---+...') must follow it (a blank line ends the grid)",
            lno[-1] + 1,
            1,
        )
    if len(grid) < 3:
        raise err("the grid has no room lines: expected a room line after the top border", lno[0] + 1, 1)
    upper_lines: list[tuple[int, str]] = []  # (file line number, text) of the 'upper:' lines after the grid
    for k in range(end, len(lines)):
        if lines[k].strip() and not is_comment(lines[k]):
            if _UPPER_RE.match(lines[k]):
                upper_lines.append((k + 1, lines[k]))
                continue
            raise err(
                "unexpected text after the grid (the grid ends at the first blank line; "
                "blank lines are not allowed inside it; after it come only 'upper: ...' lines and comments)",
                k + 1,
                1,
            )
    rows = (len(grid) - 1) // 2
    n = rows * cols

    # ---- pass 1: characters, in file order
    border_tok: list[list[str]] = []  # [rows+1][cols]
    sep_tok: list[list[str]] = []  # [rows][cols+1]
    sector = np.full(n, VOID, dtype=np.int8)
    icons = np.zeros((n, N_ICONS), dtype=np.int8)
    for j, raw in enumerate(grid):
        ln = lno[j]
        if "\t" in raw:
            raise err("tab character in the grid: draw rooms and walls with spaces (a tab's width is unknown)",
                      ln, raw.index("\t") + 1)
        if len(raw) > width:
            raise err(
                f"line is too long: {len(raw)} characters, expected {width} (4*{cols}+1 for {cols} rooms "
                "per row, as set by the top border)",
                ln,
                width + 1,
            )
        s = raw.ljust(width)
        if j % 2 == 0:  # border line
            if s[0] != "+":
                raise err(f"expected a border line ('+---+...') but found a room line starting with {s[0]!r}", ln, 1)
            toks = []
            for c in range(cols + 1):
                if s[4 * c] != "+":
                    raise err(f"missing '+' at a room corner (found {s[4 * c]!r})", ln, 4 * c + 1)
                if c == cols:
                    break
                t = s[4 * c + 1 : 4 * c + 4]
                if t not in (_WALL, _OPEN, _ARROW_S, _ARROW_N):
                    for q, ch in enumerate(t):
                        if ch not in "- v^":
                            raise err(
                                f"bad border character {ch!r}: a border slot is '---' (wall), '   ' (open), "
                                "'vvv' or '^^^' (arrow)",
                                ln,
                                4 * c + 2 + q,
                            )
                    raise err(
                        f"bad border slot {t!r}: use '---' (wall), '   ' (open), 'vvv' or '^^^' (arrow)",
                        ln,
                        4 * c + 2,
                    )
                toks.append(t)
            border_tok.append(toks)
        else:  # room line
            r = j // 2
            if s[0] == "+":
                raise err("expected a room line but found a border line (border and room lines alternate)", ln, 1)
            seps = []
            for c in range(cols + 1):
                ch = s[4 * c]
                if c == cols and len(raw) <= 4 * c:  # (the last side, on the outer border, is never blank: a wall
                    raise err(f"room line is too short: {len(raw)} characters, expected {width} (4*{cols}+1 for "
                              f"{cols} rooms per row, as set by the top border)", ln, len(raw) + 1)  # or an arrow)
                if ch not in "| ><":
                    hint = " (a room line has no '+')" if ch == "+" else ""
                    raise err(
                        f"bad separator character {ch!r}{hint}: expected '|' (wall), ' ' (open), '>' or '<' (arrow)",
                        ln,
                        4 * c + 1,
                    )
                seps.append(ch)
                if c == cols:
                    break
                cell = r * cols + c
                sc = s[4 * c + 1]
                if sc == _ROCK:
                    sec = VOID
                elif sc in SECTOR_CHARS:
                    sec = SECTOR_CHARS.index(sc)
                elif sc == " " and len(raw) <= 4 * c + 1:
                    raise err(
                        f"room line is too short: {len(raw)} characters, expected {width} (4*{cols}+1 for {cols} "
                        "rooms per row, as set by the top border)",
                        ln,
                        4 * c + 2,
                    )
                else:
                    raise err(
                        f"unknown sector character {sc!r}: expected A, B, C, D (colour sectors), O (the Oracle) "
                        "or # (solid rock)",
                        ln,
                        4 * c + 2,
                    )
                sector[cell] = sec
                for q in (2, 3):
                    ic = s[4 * c + q]
                    if ic in _NO_ICON or (ic == _ORACLE_DECOR and sec == ORACLE):
                        continue
                    if sec == VOID:
                        raise err(f"solid rock '#' cannot hold icons (found {ic!r}): write '#..'", ln, 4 * c + q + 1)
                    if ic in "|<>":  # (a character missing in this room: the next wall shifted into its icons)
                        raise err(f"room {c + 1} of this line is short: a room is 3 characters (its sector and two "
                                  f"icons) between walls, and {ic!r} stands where an icon goes", ln, 4 * c + q + 1)
                    if ic not in chars or ic == NO_CHAR:
                        extra = " ('*' is only allowed in the Oracle's room)" if ic == _ORACLE_DECOR else ""
                        raise err(
                            f"unknown icon character {ic!r}{extra}: expected one of {table.shown_chars} "
                            "or '.' for none",
                            ln,
                            4 * c + q + 1,
                        )
                    icons[cell, chars.index(ic)] += 1
            sep_tok.append(seps)

    # ---- pass 2: walls and arrows against the rooms, in file order
    wall = np.ones((n, 4), dtype=np.int8)
    arrows: list[tuple[int, int]] = []

    def is_room(r: int, c: int) -> bool:
        return 0 <= r < rows and 0 <= c < cols and sector[r * cols + c] != VOID

    def arrow_target(r: int, c: int, ln: int, col: int, tok: str) -> int:
        if len(arrows) == MAX_ARROWS:
            raise err(f"too many arrows: at most {MAX_ARROWS} entry/exit arrows (the game state's arrow slots)",
                      ln, col)
        cell = r * cols + c
        if sector[cell] == VOID:
            raise err(f"arrow {tok!r} leads into solid rock: an arrow must lead into a room", ln, col)
        if sector[cell] == ORACLE:
            raise err(f"arrow {tok!r} leads into the Oracle's room: arrows must lead into a colour sector", ln, col)
        return cell

    for j in range(len(grid)):
        ln = lno[j]
        if j % 2 == 0:
            k = j // 2  # border between rows k-1 and k
            for c, t in enumerate(border_tok[k]):
                col = 4 * c + 2
                outer = k == 0 or k == rows
                if t == _OPEN:
                    if outer:
                        raise err("open side on the outer border: draw '---' (wall) or an arrow", ln, col)
                    if not (is_room(k - 1, c) and is_room(k, c)):
                        raise err("open side next to solid rock: only two rooms can be open to each other", ln, col)
                    wall[(k - 1) * cols + c, S] = 0
                    wall[k * cols + c, N] = 0
                elif t == _ARROW_S:
                    if k != 0:
                        raise err(
                            "arrow 'vvv' in the wrong place: it belongs on the top border "
                            "(use '^^^' on the bottom border)",
                            ln,
                            col,
                        )
                    arrows.append((arrow_target(0, c, ln, col, t), S))
                elif t == _ARROW_N:
                    if k != rows:
                        raise err(
                            "arrow '^^^' in the wrong place: it belongs on the bottom border "
                            "(use 'vvv' on the top border)",
                            ln,
                            col,
                        )
                    arrows.append((arrow_target(rows - 1, c, ln, col, t), N))
        else:
            r = j // 2
            for c, ch in enumerate(sep_tok[r]):
                col = 4 * c + 1
                if ch == " ":
                    if c == 0 or c == cols:
                        raise err("open side on the outer border: draw '|' (wall) or an arrow", ln, col)
                    if not (is_room(r, c - 1) and is_room(r, c)):
                        raise err("open side next to solid rock: only two rooms can be open to each other", ln, col)
                    wall[r * cols + c - 1, E] = 0
                    wall[r * cols + c, W] = 0
                elif ch == ">":
                    if c != 0:
                        raise err(
                            "arrow '>' in the wrong place: it belongs on the left border (use '<' on the right)",
                            ln,
                            col,
                        )
                    arrows.append((arrow_target(r, 0, ln, col, ch), E))
                elif ch == "<":
                    if c != cols:
                        raise err(
                            "arrow '<' in the wrong place: it belongs on the right border (use '>' on the left)",
                            ln,
                            col,
                        )
                    arrows.append((arrow_target(r, cols - 1, ln, col, ch), W))

    # ---- pass 3: global checks
    def room_where(cell: int) -> tuple[int, int]:
        r, c = divmod(cell, cols)
        return lno[2 * r + 1], 4 * c + 2

    oracles = np.flatnonzero(sector == ORACLE)
    if len(oracles) == 0:
        raise err("no Oracle room: exactly one room must have sector 'O'", lno[0], 1)
    if len(oracles) > 1:
        raise err("more than one Oracle room: exactly one room may have sector 'O'", *room_where(int(oracles[1])))
    oracle = int(oracles[0])

    arrow_cell = np.array([a[0] for a in arrows], dtype=np.int64)
    arrow_dir = np.array([a[1] for a in arrows], dtype=np.int64)
    arrow_sector = sector[arrow_cell].astype(np.int64) if len(arrows) else np.zeros(0, np.int64)
    # a map with the start triangle (The Slaughter of Monsters: "all the entrances and exits have collapsed")
    # starts there: it needs no arrow, and its rooms are reached from the triangle
    starts = np.flatnonzero((sector != VOID) & (icons[:, START] > 0))
    for sec in range(ORACLE):
        cells = np.flatnonzero(sector == sec)
        if len(cells) and not len(starts) and not np.any(arrow_sector == sec):
            raise err(
                f"sector {_sector_label(sec)} has no entry/exit arrow: put 'vvv', '^^^', '>' or '<' on the outer "
                "border next to one of its rooms",
                *room_where(int(cells[0])),
            )

    reach = _bfs(sector, wall, rows, cols, [*arrow_cell, *starts]) < UNREACHABLE
    if not reach[oracle]:
        raise err("the Oracle's room cannot be reached from any arrow through the printed walls", *room_where(oracle))
    lost = np.flatnonzero((sector != VOID) & ~reach)
    if len(lost):
        r, c = divmod(int(lost[0]), cols)
        more = f" (and {len(lost) - 1} more)" if len(lost) > 1 else ""
        raise err(
            f"room at row {r + 1}, column {c + 1} cannot be reached from any arrow through the printed walls{more}",
            *room_where(int(lost[0])),
        )

    # ---- what the game state holds: rooms with staircases, circles, levers; the upper level's places
    rooms_with = {icon: np.flatnonzero((sector != VOID) & (icons[:, icon] > 0)) for icon in (STAIRS, CIRCLE, LEVER)}
    for icon, cells in rooms_with.items():
        if len(cells) > MAX_ICON_ROOMS:
            raise err(f"too many rooms with {with_article(table.names[icon])}: at most {MAX_ICON_ROOMS}",
                      *room_where(int(cells[MAX_ICON_ROOMS])))
    places = upper_places(sector, icons)
    if len(places) > UP_MAX_PLACES:
        raise err(f"too many rooms with a staircase or a lever (the upper level's places): at most {UP_MAX_PLACES}",
                  *room_where(places[UP_MAX_PLACES]))
    levers = rooms_with[LEVER]
    if len(levers) > UP_MAX_LEVER_PLACES:
        raise err(f"too many rooms with a lever: at most {UP_MAX_LEVER_PLACES}",
                  *room_where(int(levers[UP_MAX_LEVER_PLACES])))

    upper = _parse_upper(upper_lines, sector, icons, rows, cols, err, room_where)
    meta = {k: v for k, v in header.items() if k != "name"}
    return MapData(
        name=header["name"],
        path=path,
        rows=rows,
        cols=cols,
        sector=sector,
        wall=wall,
        icons=icons,
        arrow_cell=arrow_cell,
        arrow_dir=arrow_dir,
        arrow_sector=arrow_sector,
        oracle=oracle,
        meta=meta,
        upper=upper,
        table=table,
        grid_line=lno[0],
        header_text=h.text,
    )


def _parse_upper(upper_lines, sector, icons, rows, cols, err, room_where) -> list[tuple[int, int, int]] | None:
    """The upper level's walkways: ``upper: ROW,COL ROW,COL TURNS`` lines -> [(cell, cell, turns)].

    ``None`` when the map has no such line (then every staircase and lever lie on one network, no travel).
    """
    if not upper_lines:
        return None
    links: list[tuple[int, int, int]] = []
    seen: set[tuple[int, int]] = set()
    for ln, text in upper_lines:
        body_at = text.index(":") + 1
        tokens = [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", text)][1:]  # (1-based column, token)
        if len(tokens) != 3:
            raise err(
                f"an upper-level line is 'upper: ROW,COL ROW,COL TURNS' (two rooms with a staircase or a lever, "
                f"rows and columns counted from 1, and the walkway's length in turns); found {len(tokens)} "
                "item(s) after 'upper:'",
                ln,
                body_at + 1,
            )
        cells = []
        for col, tok in tokens[:2]:
            m = re.fullmatch(r"([0-9]{1,6}),([0-9]{1,6})", tok)
            if not m:
                raise err(f"bad room {tok[:20]!r}: write ROW,COL (e.g. 6,6), counted from 1", ln, col)
            r, c = int(m.group(1)), int(m.group(2))
            if not (1 <= r <= rows and 1 <= c <= cols):
                raise err(f"room {tok} is off the map ({rows} rows, {cols} columns)", ln, col)
            cell = (r - 1) * cols + (c - 1)
            if sector[cell] == VOID or (icons[cell, STAIRS] == 0 and icons[cell, LEVER] == 0):
                raise err(
                    f"room {tok} has no staircase 'S' or lever 'L': the upper level links only those rooms", ln, col
                )
            cells.append(cell)
        col, tok = tokens[2]
        if not re.fullmatch(r"[0-9]{1,3}", tok) or int(tok) > 99:
            raise err(f"bad length {tok[:20]!r}: the walkway's length in turns is a whole number 0..99", ln, col)
        a, b = cells
        if a == b:
            raise err("a walkway must link two different rooms", ln, tokens[1][0])
        key = (min(a, b), max(a, b))
        if key in seen:
            raise err(f"walkway {tokens[0][1]} - {tokens[1][1]} given twice", ln, tokens[0][0])
        seen.add(key)
        links.append((a, b, int(tok)))
    # every lever must be reachable over the walkways from some staircase
    places = upper_places(sector, icons)
    adj: dict[int, set[int]] = {p: set() for p in places}
    for a, b, _ in links:
        adj[a].add(b)
        adj[b].add(a)
    reach: set[int] = set()
    todo = [p for p in places if icons[p, STAIRS] > 0]
    reach.update(todo)
    while todo:
        u = todo.pop()
        for v in adj[u]:
            if v not in reach:
                reach.add(v)
                todo.append(v)
    for p in places:
        if icons[p, LEVER] > 0 and p not in reach:
            r, c = divmod(p, cols)
            raise err(
                f"the lever at row {r + 1}, column {c + 1} cannot be reached over the upper level from any staircase: "
                "add an 'upper:' line linking it",
                *room_where(p),
            )
    return links


def upper_places(sector: np.ndarray, icons: np.ndarray) -> list[int]:
    """Rooms on the upper level: those with a staircase or a lever, in cell order."""
    return [int(x) for x in np.flatnonzero((sector != VOID) & ((icons[:, STAIRS] > 0) | (icons[:, LEVER] > 0)))]


def upper_distances(m: MapData) -> tuple[list[int], np.ndarray]:
    """The upper level's places and the turns of travel between them (``UNREACHABLE`` if not linked).

    A map without ``upper:`` lines has one network: every place reaches every other at no cost.
    """
    places = upper_places(m.sector, m.icons)
    k = len(places)
    if m.upper is None:
        return places, np.zeros((k, k), np.int64)
    idx = {p: i for i, p in enumerate(places)}
    d = np.full((k, k), UNREACHABLE, np.int64)
    np.fill_diagonal(d, 0)
    for a, b, t in m.upper:
        i, j = idx[a], idx[b]
        d[i, j] = d[j, i] = min(d[i, j], t)
    for w in range(k):  # Floyd-Warshall
        d = np.minimum(d, d[:, w:w + 1] + d[w:w + 1, :])
    return places, d


def _neighbors(sector: np.ndarray, wall: np.ndarray, rows: int, cols: int, cell: int) -> list[int]:
    """The rooms next to ``cell`` through its open sides."""
    r, c = divmod(cell, cols)
    out = []
    for side in range(4):
        if wall[cell, side] == 0:
            r2, c2 = r + DR[side], c + DC[side]
            if 0 <= r2 < rows and 0 <= c2 < cols and sector[r2 * cols + c2] != VOID:
                out.append(r2 * cols + c2)
    return out


def _bfs(sector: np.ndarray, wall: np.ndarray, rows: int, cols: int, sources: Any) -> np.ndarray:
    """int16[n]: shortest path from the nearest of ``sources`` (rooms) through open sides; UNREACHABLE otherwise."""
    row = np.full(rows * cols, UNREACHABLE, dtype=np.int16)
    q = deque()
    for s in sources:
        s = int(s)
        if sector[s] != VOID and row[s] == UNREACHABLE:
            row[s] = 0
            q.append(s)
    while q:
        u = q.popleft()
        du = row[u] + 1
        for v in _neighbors(sector, wall, rows, cols, u):
            if row[v] == UNREACHABLE:
                row[v] = du
                q.append(v)
    return row


def _all_distances(sector: np.ndarray, wall: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Breadth-first shortest paths between all rooms through open sides."""
    n = rows * cols
    dist = np.full((n, n), UNREACHABLE, dtype=np.int16)
    for src in range(n):
        if sector[src] != VOID:
            dist[src] = _bfs(sector, wall, rows, cols, [src])
    return dist


# ----------------------------------------------------------------------------------------------
# the checks a ruleset adds, and reading files


@dataclass(frozen=True)
class MapNeeds:
    """What a ruleset asks of a map (``ruleset.build`` fills it from the ruleset being loaded)."""

    rounds: int  #: game.rounds: sectors A.. that are played, each needs an entry arrow
    statues: int  #: requirements.statues: Temple goals the map must hold
    levers: int  #: requirements.levers: levers the map must hold (and then a staircase)
    goal_icons: tuple[int, ...] = ()  #: icons of the foes that count as Temple statues
    start: bool = False  #: The Slaughter of Monsters (slaughter.on): one start triangle, no arrows needed
    santa: bool = False  #: Santa Crash'n Foury (santa.on): its icons are played (else one on the map is refused)


def _refuse_unplayed(m: MapData, icons: tuple[int, ...], campaign: str, key: str) -> None:
    """A campaign's icon on a map the ruleset plays without that campaign is refused at its room (a typo such as
    ``Bx.`` for ``Bg.`` would be a dead item: nothing reads it)."""
    for cell in range(m.n):
        found = [i for i in icons if m.icons[cell, i] > 0]
        if found:
            r, c = m.rc(cell)
            i = found[0]
            raise InputError(f"'{m.table.chars[i]}' ({m.table.names[i]}) in the room at row {r + 1}, column {c + 1} "
                             f"is an icon of {campaign}, which these rules do not play ({key} = false): a typo? "
                             f"(play it with {key} = true or its --campaign)", where(m.path, m.grid_line + 2 * r + 1,
                                                                                      4 * c + 2))


def check_map(m: MapData, needs: MapNeeds) -> list[assume.Assumption]:
    """Every check a ruleset adds to a parsed map (``parse_map`` did the format and the size limits): a
    played sector without an arrow, too few statues or levers for a round's requirement, and the map's
    ``assume-KEY:`` header lines. Returns those assumptions; raises :class:`InputError` at ``file:line``.

    ``foury-sim run`` and ``foury-sim map check`` both come here through ``ruleset.build``.
    """
    at = where(m.path, m.grid_line, 1)
    if not needs.santa:
        _refuse_unplayed(m, SANTA_ICONS, "Santa Crash'n Foury", "santa.on")
    if not needs.start:
        _refuse_unplayed(m, (START,), "The Slaughter of Monsters", "slaughter.on")
    total = m.icons.sum(axis=0)
    with_arrows = {int(s) for s in m.arrow_sector}
    if needs.start:
        n_starts = int((m.icons[:, START] > 0).sum())
        if n_starts != 1:
            raise InputError(f"The Slaughter of Monsters starts at the black start triangle "
                             f"('{m.table.chars[START]}'): the map needs exactly one, it has {n_starts}", at)
    for s in range(0 if needs.start else needs.rounds):
        if s not in with_arrows:
            raise InputError(f"the map has no sector {_sector_label(s)} with an entry arrow, but game.rounds = "
                             f"{needs.rounds} plays it", at)
    goals = sum(int(total[i]) for i in needs.goal_icons)
    if needs.start:  # no round is played: no requirement needs statues or levers
        return map_assumptions(m)
    if goals < needs.statues:
        raise InputError(f"the Temple needs {needs.statues} statues (requirements.statues) but the map has {goals}",
                         at)
    if needs.levers > 0 and (total[LEVER] < needs.levers or total[STAIRS] == 0):
        raise InputError(f"the Castle Cliff needs {needs.levers} levers (requirements.levers) and a staircase; the "
                         f"map has {total[LEVER]} levers and {total[STAIRS]} staircases", at)
    return map_assumptions(m)


def map_assumptions(m: MapData) -> list[assume.Assumption]:
    """The ``assume-KEY:`` header lines of a map file, checked against what the map holds."""
    total = m.icons.sum(axis=0)
    measured: dict[str, Any] = {"layout": m.name, "arrows": len(m.arrow_cell),
                                "arrows_per_sector": ",".join(str(int((m.arrow_sector == s).sum())) for s in range(4)),
                                "upper_walkways": len(m.upper or [])}
    plural = {"stairs": "stairs", "die": "dice"}
    measured.update({plural.get(k, k + "s"): int(total[i]) for i, k in enumerate(m.table.keys) if k})
    return assume.from_map(m.header_text, m.path, measured)


def load_map(path: str | Path, table: IconTable = SHIPPED, where: str = "--map") -> MapData:
    """Read and parse a map file; a missing, unreadable, oversized or non-UTF-8 file is an ``InputError``."""
    return parse_map(read_grid_text(path, where, noun="map", hint=f"(1 MiB): a map has at most {MAX_ROWS} x "
                                   f"{MAX_COLS} rooms"), str(path), table)


def builtin_maps() -> dict[str, Path]:
    """The maps shipped in ``data/maps``: name (file stem) -> path."""
    return {p.stem: p for p in sorted(MAPS_DIR.glob("*.map"))}


def resolve_map(name_or_path: str | Path | None, table: IconTable = SHIPPED, where: str = "--map") -> MapData:
    """``None`` -> the base map; a built-in map name; or a map file path (read with ``table``'s characters).

    ``where`` names the place the map was given (``--map``, or a ruleset's ``game.map`` line)."""
    if name_or_path is None:
        name_or_path = DEFAULT_MAP
    if not isinstance(name_or_path, str | Path):
        raise InputError(f"a map is a shipped map name or a map file path, not {name_or_path!r}", where)
    builtins = builtin_maps()
    key = str(name_or_path)
    if key in builtins:
        return load_map(builtins[key], table, where)
    if Path(key).exists():
        return load_map(key, table, where)
    raise InputError(
        f"unknown map {key!r}: not a built-in map ({', '.join(builtins) or 'none'}) and no such file", where
    )


# ----------------------------------------------------------------------------------------------
# writing


def format_map(m: MapData) -> str:
    """Write a map in the file format; ``parse_map(format_map(m))`` reproduces ``m``'s arrays.

    Raises ``ValueError`` if ``m`` cannot be drawn (asymmetric walls, >2 icons in a room, ...).
    """
    rows, cols = m.rows, m.cols
    sec = m.sector
    arrows = {(int(c), int(d)) for c, d in zip(m.arrow_cell, m.arrow_dir, strict=True)}
    for cell, d in arrows:
        r, c = divmod(cell, cols)
        ok = {S: r == 0, N: r == rows - 1, E: c == 0, W: c == cols - 1}[d]
        if not ok:
            raise ValueError(f"arrow into cell {cell} travelling {d} is not on the matching outer border")

    def room(cell: int) -> bool:
        return sec[cell] != VOID

    def border_line(k: int) -> str:
        out = ["+"]
        for c in range(cols):
            if k == 0:
                t = _ARROW_S if (c, S) in arrows else _WALL
            elif k == rows:
                t = _ARROW_N if ((rows - 1) * cols + c, N) in arrows else _WALL
            else:
                a, b = (k - 1) * cols + c, k * cols + c
                if room(a) and room(b):
                    if m.wall[a, S] != m.wall[b, N]:
                        raise ValueError(f"walls of cells {a} and {b} disagree")
                    t = _WALL if m.wall[a, S] else _OPEN
                else:
                    t = _WALL
            out.append(t + "+")
        return "".join(out)

    def room_text(cell: int) -> str:
        if not room(cell):
            if m.icons[cell].any():
                raise ValueError(f"rock cell {cell} holds icons")
            return _ROCK + ".."
        chars = "".join(m.table.chars[i] * int(m.icons[cell, i]) for i in range(N_ICONS))
        if len(chars) > 2:
            raise ValueError(f"cell {cell} holds {len(chars)} icons; the format allows at most 2")
        pad = _ORACLE_DECOR if sec[cell] == ORACLE else "."
        return SECTOR_CHARS[sec[cell]] + chars.ljust(2, pad)

    def room_line(r: int) -> str:
        out = []
        for c in range(cols + 1):
            if c == 0:
                out.append(">" if (r * cols, E) in arrows else "|")
            elif c == cols:
                out.append("<" if (r * cols + cols - 1, W) in arrows else "|")
            else:
                a, b = r * cols + c - 1, r * cols + c
                if room(a) and room(b):
                    if m.wall[a, E] != m.wall[b, W]:
                        raise ValueError(f"walls of cells {a} and {b} disagree")
                    out.append("|" if m.wall[a, E] else " ")
                else:
                    out.append("|")
            if c < cols:
                out.append(room_text(r * cols + c))
        return "".join(out)

    text = [f"name: {m.name}"] + [f"{k}: {v}" for k, v in m.meta.items()] + [""]
    for r in range(rows):
        text.append(border_line(r))
        text.append(room_line(r))
    text.append(border_line(rows))
    if m.upper:
        text.append("")
        for a, b, t in m.upper:
            (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
            text.append(f"upper: {ra + 1},{ca + 1} {rb + 1},{cb + 1} {t}")
    return "\n".join(text) + "\n"


# ----------------------------------------------------------------------------------------------
# rendering

SECTOR_COLORS = ("#8fd17f", "#f4a3b4", "#efc48c", "#8fbbea", "#ffd21f")  # A B C D Oracle
ROCK_COLOR = "#4d4d4d"
#: Label drawn in a room for each icon (the legend maps it to the full name and map character).
FIXED_GLYPHS = (
    "Chest",
    "Potion",
    "Shovel",
    "Weapon",
    "Shield",
    "Clover",
    "Cornucopia",
    "Die",
    "Circle",
    "Stairs",
    "Lever",
    "Tunnel",
)


def icon_glyphs(table: IconTable) -> tuple[str, ...]:
    """Label drawn in a room for each icon: the fixed glyphs, then each foe's name capitalised, then the campaign
    items' glyphs."""
    foes = table.names[len(FIXED_GLYPHS):CAMPAIGN_FIRST]
    return FIXED_GLYPHS + tuple(n[:1].upper() + n[1:] for n in foes) + CAMPAIGN_GLYPHS


ICON_GLYPHS = icon_glyphs(SHIPPED)
assert len(ICON_GLYPHS) == N_ICONS
_ITEM_COLOR, _FIXTURE_COLOR, _FOE_COLOR = "#1c1c1c", "#1f3f9a", "#b00000"
_UPPER_COLOR = "#7b2fbf"  # upper-level walkways


def _icon_color(i: int) -> str:
    return _FOE_COLOR if is_foe(i) else _FIXTURE_COLOR if i in FIXTURES else _ITEM_COLOR


def render_map(
    m: MapData,
    out: str | Path | None = None,
    *,
    heat: np.ndarray | None = None,
    heat_label: str = "",
    title: str | None = None,
    ax: Any = None,
    state: Any = None,
) -> Any:
    """Draw the map (rooms by sector, printed walls, icons, arrows, legend) and return the Figure.

    ``heat`` (float[n], NaN = no data) is overlaid on the rooms with a colorbar labelled
    ``heat_label``. ``ax``: draw into an existing Axes (the legend goes below it, the colorbar to its
    right) instead of a new Figure. ``state`` is reserved for a later trace overlay and currently
    ignored. Saves a PNG (dpi 120) when ``out`` is given. No pyplot global state is used.
    """
    from matplotlib import patheffects as pe
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.cm import ScalarMappable
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Polygon, Rectangle

    from ...figures import heat_scale

    del state  # reserved for a later trace overlay
    rows, cols = m.rows, m.cols
    glyphs = icon_glyphs(m.table)
    centre = m.meta.get("centre", "Oracle")  # what the 'O' room is called: a campaign map's 'centre:' header line
    norm = cmap = None
    if heat is not None:
        heat, norm, cmap = heat_scale(heat, m.n)

    cell_in = min(0.75, 6.8 / max(rows, cols))  # inches per room
    if ax is None:
        pad = _MARGIN  # map margin in rooms (arrows and the row/column numbers live there)
        cbar_w = 1.0 if heat is not None else 0.0
        map_w, map_h = (cols + 2 * pad) * cell_in, (rows + 2 * pad) * cell_in
        fig_w = max(map_w + 2 * cbar_w + 0.3, _LEGEND_W_IN + 0.3)
        fig_h = map_h + _LEGEND_IN + 0.45
        fig = Figure(figsize=(fig_w, fig_h), dpi=120)
        FigureCanvasAgg(fig)
        ax = fig.add_axes([(fig_w - map_w) / 2 / fig_w, (_LEGEND_IN + 0.05) / fig_h, map_w / fig_w, map_h / fig_h])
    else:
        fig = ax.figure
    fs = 7.0 * cell_in / 0.75  # icon font size
    ax.set_xlim(-_MARGIN, cols + _MARGIN)
    ax.set_ylim(rows + _MARGIN, -_MARGIN)
    ax.set_aspect("equal")
    ax.axis("off")
    halo = [pe.withStroke(linewidth=3, foreground="white")] if heat is not None else None

    for cell in range(m.n):
        r, c = divmod(cell, cols)
        sec = int(m.sector[cell])
        if sec == VOID:
            ax.add_patch(Rectangle((c, r), 1, 1, facecolor=ROCK_COLOR, edgecolor="#777777", hatch="xx", lw=0, zorder=1))
            continue
        ax.add_patch(Rectangle((c, r), 1, 1, facecolor=SECTOR_COLORS[sec], edgecolor="none", zorder=1))
        if heat is not None and np.isfinite(heat[cell]):
            ax.add_patch(
                Rectangle(
                    (c + 0.12, r + 0.12),
                    0.76,
                    0.76,
                    facecolor=cmap(norm(heat[cell])),
                    alpha=0.9,
                    edgecolor="none",
                    zorder=2,
                )
            )
        ax.text(
            c + 0.06,
            r + 0.05,
            SECTOR_CHARS[sec],
            fontsize=fs * 0.85,
            color="#444444",
            ha="left",
            va="top",
            zorder=4,
            fontweight="bold",
        )
        if sec == ORACLE:
            ax.text(
                c + 0.5,
                r + 0.55,
                centre,
                fontsize=fs * 1.05,
                ha="center",
                va="center",
                fontweight="bold",
                color="#5a3d00",
                zorder=4,
                path_effects=halo,
            )
        labels = []
        for i in np.flatnonzero(m.icons[cell]):
            k = int(m.icons[cell, i])
            labels.append(((f"{k}×" if k > 1 else "") + glyphs[i], int(i)))
        if len(labels) == 1:
            ys = [0.57]
        else:
            ys = (
                list(np.linspace(0.42, 0.82, len(labels)))
                if len(labels) <= 3
                else list(np.linspace(0.3, 0.9, len(labels)))
            )
        if sec == ORACLE:
            ys = [y + 0.2 for y in ys]
        for (txt, i), y in zip(labels, ys, strict=True):
            ax.text(
                c + 0.5,
                r + y,
                txt,
                fontsize=fs,
                ha="center",
                va="center",
                color=_icon_color(i),
                fontweight="bold" if is_foe(i) else "normal",
                zorder=4,
                path_effects=halo,
            )

    # open sides as faint dashes, printed walls (incl. rock and border) as thick black lines
    segs_open, segs_wall = [], []
    for cell in range(m.n):
        r, c = divmod(cell, cols)
        for side, seg in ((S, ((c, r + 1), (c + 1, r + 1))), (E, ((c + 1, r), (c + 1, r + 1)))):
            nb = m.neighbor(cell, side)
            if nb < 0:
                continue
            printed = m.sector[cell] == VOID or m.sector[nb] == VOID or m.wall[cell, side]
            (segs_wall if printed else segs_open).append(seg)
    ax.add_collection(LineCollection(segs_open, colors="white", linewidths=0.8, linestyles=(0, (2, 2)), zorder=3))
    lw = 3.2 * cell_in / 0.75
    ax.add_collection(LineCollection(segs_wall, colors="black", linewidths=lw, capstyle="round", zorder=5))
    ax.add_patch(Rectangle((0, 0), cols, rows, fill=False, edgecolor="black", lw=lw * 1.3, joinstyle="miter", zorder=5))

    # arrows: triangles outside the border pointing into the map, labelled with the sector letter
    for cell, d, sec in zip(m.arrow_cell, m.arrow_dir, m.arrow_sector, strict=True):
        r, c = divmod(int(cell), cols)
        # (along, across) in the arrow's own frame: tip at 0.08 outside the border, base at 0.5
        if d in (S, N):
            x0, y0, sgn = c + 0.5, (0 if d == S else rows), (-1 if d == S else 1)
            pts = [(x0, y0 + sgn * 0.08), (x0 - 0.28, y0 + sgn * 0.5), (x0 + 0.28, y0 + sgn * 0.5)]
            lab = (x0, y0 + sgn * 0.34)
        else:
            x0, y0, sgn = (0 if d == E else cols), r + 0.5, (-1 if d == E else 1)
            pts = [(x0 + sgn * 0.08, y0), (x0 + sgn * 0.5, y0 - 0.28), (x0 + sgn * 0.5, y0 + 0.28)]
            lab = (x0 + sgn * 0.34, y0)
        ax.add_patch(Polygon(pts, closed=True, facecolor=SECTOR_COLORS[int(sec)], edgecolor="black", lw=1.0, zorder=6))
        ax.text(*lab, SECTOR_CHARS[int(sec)], fontsize=fs * 1.05, ha="center", va="center", fontweight="bold", zorder=7)

    # the upper level: walkways between staircase and lever rooms, labelled with their length in turns
    for a, b, t in m.upper or ():
        (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
        xa, ya, xb, yb = ca + 0.5, ra + 0.3, cb + 0.5, rb + 0.3
        ax.plot([xa, xb], [ya, yb], color=_UPPER_COLOR, lw=2.2, ls=(0, (4, 2)), alpha=0.85, zorder=8)
        ax.text((xa + xb) / 2, (ya + yb) / 2, str(t), fontsize=fs, ha="center", va="center", color="white",
                fontweight="bold", zorder=9,
                bbox={"boxstyle": "circle,pad=0.15", "facecolor": _UPPER_COLOR, "edgecolor": "none"})

    # row and column numbers (counted from 1 at the top left, as every text names a room: ``board.room_name``),
    # outside the arrows on all four sides
    lab_fs = max(6.0, fs * 0.95)
    for r in range(rows):
        for x, ha in ((-_LABEL_OFF, "right"), (cols + _LABEL_OFF, "left")):
            ax.text(x, r + 0.5, str(r + 1), fontsize=lab_fs, ha=ha, va="center", color=_LABEL_COLOR, zorder=7)
    for c in range(cols):
        for y, va in ((-_LABEL_OFF, "bottom"), (rows + _LABEL_OFF, "top")):
            ax.text(c + 0.5, y, str(c + 1), fontsize=lab_fs, ha="center", va=va, color=_LABEL_COLOR, zorder=7)

    ax.set_title(m.name if title is None else title, fontsize=13, fontweight="bold", pad=2)

    if heat is not None:
        cax = ax.inset_axes([1.0, 0.12, 0.03, 0.76])
        cb = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), cax=cax)
        cb.set_label(heat_label, fontsize=10)
        cb.ax.tick_params(labelsize=8)

    _draw_legend(ax, m.table)
    if out is not None:
        fig.savefig(out, dpi=120)
    return fig


_LEGEND_IN, _LEGEND_W_IN = 1.5, 7.5  # legend size below the map, inches
_MARGIN = 1.05  # map margin in rooms: the arrows (up to 0.5 outside the border), then the row/column numbers
_LABEL_OFF = 0.6  # row/column numbers: this far outside the border, in rooms
_LABEL_COLOR = "#333333"


def _draw_legend(ax: Any, table: IconTable = SHIPPED) -> None:
    """Legend below the map: sector colours, map symbols, and every icon glyph with its map char."""
    from matplotlib.patches import Rectangle

    fig_w, fig_h = ax.figure.get_size_inches()
    pos = ax.get_position()
    ax_w, ax_h = pos.width * fig_w, pos.height * fig_h
    frac = _LEGEND_W_IN / ax_w  # fixed width in inches, centred under the map
    lg = ax.inset_axes([0.5 - frac / 2, -_LEGEND_IN / ax_h, frac, _LEGEND_IN / ax_h])
    lg.set_xlim(0, 100)
    lg.set_ylim(7.2, -0.1)  # 7 text lines
    lg.axis("off")
    tf = 7.5
    items = [(SECTOR_COLORS[s], f"{SECTOR_CHARS[s]}  {SECTOR_NAMES[s]}") for s in range(5)]
    items.append((ROCK_COLOR, "#  solid rock"))
    widths = (15, 19, 18, 17, 15, 16)
    x = 0.0
    for (color, label), w in zip(items, widths, strict=True):
        lg.add_patch(Rectangle((x, 0.15), 2.4, 0.7, facecolor=color, edgecolor="black", lw=0.5))
        lg.text(x + 3.0, 0.5, label, fontsize=tf, va="center")
        x += w
    lg.text(
        0,
        1.5,
        "thick line = wall, dashes = open, triangle = entry/exit arrow, purple = upper-level walkway (turns); "
        "icons: black item, blue fixture, red foe; [x] = map char",
        fontsize=tf - 0.5,
        va="center",
        color="#333333",
    )
    lg.text(
        0,
        2.3,
        "numbers: rows (left, right) and columns (top, bottom) from 1; texts name a room B (2,8): sector B, "
        "row 2, column 8",
        fontsize=tf - 0.5,
        va="center",
        color="#333333",
    )
    ncol = 4
    used = table.used
    glyphs = icon_glyphs(table)
    per = -(-len(used) // ncol)
    for k, i in enumerate(used):
        col, row = divmod(k, per)
        name, glyph = table.names[i], glyphs[i]
        desc = "" if glyph.lower() == name else f" = {name}"
        lg.text(
            col * 25.0,
            3.2 + row * 0.95,
            f"{glyph}{desc}  [{table.chars[i]}]",
            fontsize=tf,
            va="center",
            color=_icon_color(i),
            fontweight="bold" if is_foe(i) else "normal",
        )
