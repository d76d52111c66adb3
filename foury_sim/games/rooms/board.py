"""Rooms' dungeons: the dungeon file format, its validation, the picture, and the board hook (``registry.Board``:
``foury-sim map check/render --game rooms``).

A dungeon file is a grid of cells, one text line per row, cells separated by spaces:

* ``?``: a card dealt face down from the shuffled deck (``[deck]`` of rules.toml, ``count`` copies of each card),
  in reading order, each game its own shuffle (the game's dice stream);
* ``.``: no room (the grid has a hole there);
* ``NAME`` or ``NAME@N``: the deck card ``NAME`` placed there (face down unless it is the start or the goal),
  turned ``N`` quarter turns clockwise (0..3; default 0, as printed).

Exactly one card of kind ``start`` (the hero starts there, its room resolved) and one of kind ``boss`` (the goal:
face up, so the hero knows where to go) must be placed by name. ``#`` starts a comment. Every room must be
reachable from the start over neighbouring rooms (doors aside: a key, a bomb or 1 HP opens any side). Errors are
one line ``file:line:column: what is wrong``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import InputError
from ...registry import Board, deaths_per_cell
from ...rulesfile import line_col
from . import layout as L

DUNGEON_DIR = Path(__file__).with_name("data") / "dungeons"
DEALT = -2  #: a cell dealt from the deck
NO_ROOM = -1

KIND_COLORS = {L.K_START: "#3cb043", L.K_MONSTER: "#c0392b", L.K_TRAP: "#e67e22", L.K_TREASURE: "#d4a017",
               L.K_FOUNTAIN: "#3d7fd9", L.K_BLACKSMITH: "#7f8c8d", L.K_WARP: "#8e44ad", L.K_BOUNTY: "#a0522d",
               L.K_SHOP: "#16a085", L.K_BOSS: "#2c3e50"}
DEALT_COLOR = "#d9d2c3"
DOOR_COLORS = {L.DOOR_LOCKED: "#eab308", L.DOOR_WALL: "#1f1f1f"}


@dataclass
class Dungeon:
    """A checked dungeon: ``cells`` int64[rows * cols, 2] = (card index, DEALT or NO_ROOM; quarter turns)."""

    name: str
    path: str
    rows: int
    cols: int
    cells: np.ndarray
    card_names: tuple[str, ...]
    card_kinds: tuple[int, ...]

    @property
    def n(self) -> int:
        return self.rows * self.cols

    @property
    def dealt(self) -> int:
        return int((self.cells[:, 0] == DEALT).sum())

    def words(self, cell: int) -> str:
        r, c = divmod(int(cell), self.cols)
        return f"row {r + 1}, column {c + 1}"

    def cell_of_kind(self, kind: int) -> int:
        for i, (card, _) in enumerate(self.cells.tolist()):
            if card >= 0 and self.card_kinds[card] == kind:
                return i
        return -1


def builtin_dungeons() -> dict[str, Path]:
    return {p.stem: p for p in sorted(DUNGEON_DIR.glob("*.txt"))}


def rotated(doors: list[int] | np.ndarray, rot: int) -> list[int]:
    """The door sides (N, E, S, W) of a card turned ``rot`` quarter turns clockwise: the printed north side
    faces east after one turn."""
    return [int(doors[(s - rot) % 4]) for s in range(4)]


def parse_dungeon(text: str, path: str, card_names: tuple[str, ...], card_kinds: tuple[int, ...],
                  deck_size: int | None = None, deck_where: str | None = None) -> Dungeon:
    """Parse and check a dungeon's text against the deck's cards (names and kinds). ``deck_where``: where a deck
    too small for the dealt cells is the user's doing (the ``--rules`` line or ``--set`` that emptied it; the
    dungeon's line is then in the message), else the error is at the dungeon's cell."""

    def err(msg: str, line: int, col: int) -> InputError:
        return InputError(msg, f"{path}:{line}:{col}")

    rows: list[list[tuple[int, int]]] = []
    where: list[list[tuple[int, int]]] = []
    known = {n: i for i, n in enumerate(card_names)}
    for lno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0]
        if "\t" in line:
            raise err("tab character: separate cells with spaces", lno, line.index("\t") + 1)
        if not line.strip():
            continue
        row, at = [], []
        pos = 0
        for tok in line.split():
            col = line.index(tok, pos) + 1
            pos = col - 1 + len(tok)
            if tok == "?":
                row.append((DEALT, 0))
            elif tok == ".":
                row.append((NO_ROOM, 0))
            else:
                name, _, turn = tok.partition("@")
                if name not in known:
                    close = [k for k in card_names if k.startswith(name[:3])]
                    hint = f" (did you mean {close[0]!r}?)" if close else ""
                    raise err(f"unknown card {name!r}{hint}: a cell is '?', '.', or a [deck] card name", lno, col)
                if turn and turn not in ("0", "1", "2", "3"):
                    raise err(f"a card's turn is @0..@3 quarter turns clockwise, not @{turn}", lno, col)
                row.append((known[name], int(turn or 0)))
            at.append((lno, col))
        if len(row) > L.MAX_COLS:
            raise err(f"a row has {len(row)} cells: at most {L.MAX_COLS}", lno, at[L.MAX_COLS][1])
        if rows and len(row) != len(rows[0]):
            raise err(f"this row has {len(row)} cells, the first row {len(rows[0])}: every row has the same number",
                      lno, 1)
        rows.append(row)
        where.append(at)
    if not rows:
        raise err("the dungeon has no rows", 1, 1)
    if len(rows) > L.MAX_ROWS:
        raise err(f"the dungeon has {len(rows)} rows: at most {L.MAX_ROWS}", where[L.MAX_ROWS][0][0], 1)
    nr, nc = len(rows), len(rows[0])
    cells = np.array([c for r in rows for c in r], dtype=np.int64).reshape(nr * nc, 2)
    places = [p for r in where for p in r]
    for kind, word in ((L.K_START, "start"), (L.K_BOSS, "boss")):
        at = [i for i, (card, _) in enumerate(cells.tolist()) if card >= 0 and card_kinds[card] == kind]
        if len(at) != 1:
            ln, col = places[at[1]] if len(at) > 1 else (where[-1][0][0], 1)
            raise err(f"a dungeon holds exactly one card of kind {word!r}, this one {len(at)}", ln, col)
    if deck_size is not None and int((cells[:, 0] == DEALT).sum()) > deck_size:
        i = int(np.flatnonzero(cells[:, 0] == DEALT)[deck_size])
        dealt = int((cells[:, 0] == DEALT).sum())
        if deck_where is not None:
            raise InputError(f"the deck holds {deck_size} cards (deck.*.count) but {path}:{places[i][0]}:"
                             f"{places[i][1]} deals {dealt} cells ('?')", deck_where)
        raise err(f"{dealt} cells are dealt ('?') but the deck holds {deck_size} cards", *places[i])
    # every room reachable from the start
    room = cells[:, 0] != NO_ROOM
    start = next(i for i, (card, _) in enumerate(cells.tolist()) if card >= 0 and card_kinds[card] == L.K_START)
    seen = {start}
    todo = [start]
    while todo:
        c = todo.pop()
        r, k = divmod(c, nc)
        for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
            rr, kk = r + dr, k + dc
            if 0 <= rr < nr and 0 <= kk < nc and room[rr * nc + kk] and rr * nc + kk not in seen:
                seen.add(rr * nc + kk)
                todo.append(rr * nc + kk)
    for i in range(nr * nc):
        if room[i] and i not in seen:
            raise err("this room cannot be reached from the start (no neighbouring room leads there)", *places[i])
    return Dungeon(Path(path).stem, path, nr, nc, cells, tuple(card_names), tuple(card_kinds))


def load_dungeon(name_or_path: str, card_names: tuple[str, ...], card_kinds: tuple[int, ...],
                 deck_size: int | None, where: str, deck_where: str | None = None) -> Dungeon:
    """A shipped dungeon by name or a dungeon file (``InputError`` at ``where`` when neither or unreadable, else at
    ``file:line:column``: a byte that is not UTF-8, a bad cell; a deck too small at ``deck_where`` if given:
    ``parse_dungeon``). A leading byte-order mark is dropped."""
    shipped = builtin_dungeons()
    p = shipped.get(name_or_path)
    if p is None:
        p = Path(name_or_path)
        if not p.is_file():
            raise InputError(f"no dungeon {name_or_path!r}: a shipped one ({', '.join(shipped)}) or a dungeon file",
                             where)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read the dungeon file {str(p)!r}: {e.strerror or e}", where) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:  # (it named the byte's offset in the file, at --map)
        raise InputError(f"not UTF-8 text: byte 0x{raw[e.start]:02x} cannot be read (save the dungeon as UTF-8)",
                         f"{p}:{line_col(raw, e.start)}") from None
    # a byte-order mark (Notepad's UTF-8) is dropped, as in a rules file or a level: it was read as a card name
    return parse_dungeon(text.removeprefix("\ufeff"), str(p), card_names, card_kinds, deck_size, deck_where)


# ---------------------------------------------------------------------------------------------- board hook --
def _rules(rules: str | None = None, sets: list[str] | None = None, dungeon: str | None = None):
    from .ruleset import load_ruleset

    return load_ruleset(rules, sets, dungeon)


def resolve(name_or_path: str | None) -> Dungeon:
    """A shipped dungeon by name (None: the rules' default) or a dungeon file, under the shipped deck."""
    return _rules(None, None, name_or_path).dungeon


def load(name_or_path: str, rules: str | None = None, sets: list[str] | None = None) -> Dungeon:
    """The dungeon as ``run`` takes it under that ruleset (same refusals, same lines)."""
    return _rules(rules, sets, name_or_path).dungeon


def check(d: Dungeon) -> list[str]:
    rooms = int((d.cells[:, 0] != NO_ROOM).sum())
    out = [f"{d.name}: {d.rows} x {d.cols} cells, {rooms} rooms ({d.dealt} dealt from the deck), start at "
           f"{d.words(d.cell_of_kind(L.K_START))}, boss at {d.words(d.cell_of_kind(L.K_BOSS))}"]
    placed: dict[str, int] = {}
    for card, _ in d.cells.tolist():
        if card >= 0:
            placed[d.card_names[card]] = placed.get(d.card_names[card], 0) + 1
    out.append("placed cards: " + ", ".join(f"{k} {v}" for k, v in placed.items()))
    return out


def heat_cells(d: Dungeon) -> np.ndarray:
    return d.cells[:, 0] != NO_ROOM


def cell_record(ruleset: Any, df: Any, extras: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """Per-cell numbers of a sweep cell: deaths (per-game column ``death_cell``) and visits (games in which the hero
    entered the cell: the run extra ``visits``) by cell of the dungeon's grid. With a fixed dungeon (``--map
    crossroads``) a cell is a room; with dealt cells it is a position of the grid (another card lies there each
    game): where in the dungeon heroes go and die. None without a ``death_cell`` column."""
    d = getattr(ruleset, "dungeon", None)
    if d is None or "death_cell" not in df:
        return None
    rec: dict[str, Any] = {"map": d.path if d.name not in builtin_dungeons() else d.name,
                           "deaths": deaths_per_cell(df, d.n)}
    if "visits" in extras:
        rec["visits"] = np.asarray(extras["visits"]).tolist()
    return rec


def draw(d: Dungeon, heat: np.ndarray | None = None, heat_label: str = "", title: str | None = None,
         doors: np.ndarray | None = None):
    """The dungeon as cards: a card's colour is its kind (grey: dealt face down), locked sides yellow bars,
    walls black bars, the start and boss named. ``doors`` (int64[n_cards, 4], the deck's printed sides) draws the
    sides of placed cards. Artists carry a ``gid`` (``card``, ``door``, ``heat``)."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    fig = Figure(figsize=(1.4 * d.cols + 1.5, 1.4 * d.rows + 0.8), dpi=120)
    ax = fig.add_subplot(1, 1, 1)
    for i, (card, rot) in enumerate(d.cells.tolist()):
        r, c = divmod(i, d.cols)
        y = d.rows - 1 - r
        if card == NO_ROOM:
            continue
        color = DEALT_COLOR if card == DEALT else KIND_COLORS.get(d.card_kinds[card], "#cccccc")
        ax.add_patch(Rectangle((c + 0.05, y + 0.05), 0.9, 0.9, facecolor=color, edgecolor="#555555", gid="card"))
        label = "?" if card == DEALT else d.card_names[card].replace("_", "\n")
        ax.text(c + 0.5, y + 0.5, label, ha="center", va="center", fontsize=7,
                color="white" if card >= 0 else "#555555")
        if card >= 0 and doors is not None:
            for side, door in enumerate(rotated(doors[card], rot)):
                if door == L.DOOR_OPEN:
                    continue
                x0, y0, x1, y1 = {0: (0.1, 0.92, 0.9, 0.92), 1: (0.92, 0.1, 0.92, 0.9), 2: (0.1, 0.08, 0.9, 0.08),
                                  3: (0.08, 0.1, 0.08, 0.9)}[side]
                ax.plot([c + x0, c + x1], [y + y0, y + y1], color=DOOR_COLORS[door], linewidth=4, gid="door")
    if heat is not None:
        h = np.asarray(heat, dtype=float).reshape(d.rows, d.cols)[::-1]
        im = ax.imshow(np.ma.masked_invalid(h), extent=(0, d.cols, 0, d.rows), alpha=0.55, cmap="magma_r",
                       origin="lower", gid="heat")
        fig.colorbar(im, ax=ax, label=heat_label)
    ax.set_xlim(0, d.cols)
    ax.set_ylim(0, d.rows)
    ax.set_xticks([c + 0.5 for c in range(d.cols)], [str(c + 1) for c in range(d.cols)])
    ax.set_yticks([d.rows - 1 - r + 0.5 for r in range(d.rows)], [str(r + 1) for r in range(d.rows)])
    ax.set_aspect("equal")
    ax.set_title(title or f"Rooms dungeon {d.name}")
    return fig


def _draw(d: Dungeon, heat: np.ndarray | None = None, heat_label: str = "", title: str | None = None):
    from .ruleset import load_ruleset

    return draw(d, heat, heat_label, title, load_ruleset().cards[:, L.CD_DOOR:L.CD_DOOR + 4])


BOARD = Board(resolve=resolve, builtin=lambda: list(builtin_dungeons()), check=check, draw=_draw,
              heat_cells=heat_cells, cell_record=cell_record, noun="dungeon", load=load)
