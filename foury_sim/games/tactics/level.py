"""Tactics levels: the text format, its parser and checks, the writer, and the packed array the kernel reads.

A level file is ``key: value`` header lines (``name`` required; ``#`` starts a comment line), a line
``grid:``, then the grid, one character per tile, every row as long as the first (at most 40 x 40); a blank
line ends the grid. After it may come ``monster: NAME ROW,COL`` lines (rows and columns counted from 1) for
monsters standing on a special tile (water, lava, a spawn point, a teleporter) or for monster kinds of a
ruleset that have no letter::

    name: A corridor
    # a comment
    grid:
    #######
    #@.S.>#
    #######

    monster: skeleton 2,4

The legend (``LEGEND``; docs/tactics-levels.md draws it):

* terrain: ``.`` floor, ``#`` wall, ``@`` start (green), ``>`` exit (white), ``~`` water (blue), ``=`` lava
  (orange), ``^`` teleporter (red, none or two), ``*`` monster spawn point (black);
* things on a floor tile (at most one per tile): ``c`` crate, ``o`` barrel, ``$`` chest, ``&`` magic chest,
  ``+`` sarcophagus, ``_`` shrine, keys ``r b g y`` and locked doors ``R B G Y`` (red, blue, green, yellow);
* monsters on a floor tile (asleep at the start): ``S`` skeleton, ``N`` necromancer, ``H`` ghoul, ``M``
  mummy, ``C`` cacodemon, ``O`` ogre, ``T`` stone golem, ``Z`` storm golem, ``F`` fire golem, ``K`` chicken.

Monsters have no facing: they wake when they see the player from any side, and turning is free.
Every problem is an ``InputError`` at ``file:line:column`` (``load_level``'s docstring lists the checks).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from ... import assumptions as assume
from ...config import CACHE
from ...errors import InputError
from ...grid import cell_words, header_lines, is_comment, read_grid_text, split_lines, where

# ------------------------------------------------------------------------------------------ codes

T_FLOOR, T_WALL, T_START, T_EXIT, T_WATER, T_LAVA, T_TELEPORT, T_SPAWN = 0, 1, 2, 3, 4, 5, 6, 7
N_TILES = 8
TILE_NAMES = ("floor", "wall", "start", "exit", "water", "lava", "teleporter", "spawn point")

X_NONE, X_CRATE, X_BARREL, X_CHEST, X_MAGIC_CHEST, X_SARCOPHAGUS, X_SHRINE, X_KEY, X_DOOR = 0, 1, 2, 3, 4, 5, 6, 7, 8
N_THINGS = 9
THING_NAMES = ("nothing", "crate", "barrel", "chest", "magic chest", "sarcophagus", "shrine", "key", "door")
THING_PLURALS = ("", "crates", "barrels", "chests", "magic_chests", "sarcophagi", "shrines", "keys", "doors")

COLOR_NONE, COLOR_RED, COLOR_BLUE, COLOR_GREEN, COLOR_YELLOW = 0, 1, 2, 3, 4
COLOR_NAMES = ("", "red", "blue", "green", "yellow")

#: Tiles a walker may stand on (lava and walls never; a thing on the tile may still be in the way).
WALKABLE_TILES = (T_FLOOR, T_START, T_EXIT, T_WATER, T_TELEPORT, T_SPAWN)
#: Things that are gone once used, leaving floor: a smashed crate or barrel, a picked-up key, an opened door.
#: The others (chests, magic chests, sarcophagi, shrines) stay where they are, looted or not.
CLEARED_THINGS = (X_CRATE, X_BARREL, X_KEY, X_DOOR)
#: Opaque to line of sight: walls and closed doors (water, lava, things and monsters are not).
OPAQUE_TILES = (T_WALL,)
OPAQUE_THINGS = (X_DOOR,)

#: Size limits (checked before anything is built).
MAX_ROWS = 40
MAX_COLS = 40

TERRAIN_CHARS = {".": T_FLOOR, "#": T_WALL, "@": T_START, ">": T_EXIT, "~": T_WATER, "=": T_LAVA,
                 "^": T_TELEPORT, "*": T_SPAWN}
THING_CHARS = {"c": (X_CRATE, 0), "o": (X_BARREL, 0), "$": (X_CHEST, 0), "&": (X_MAGIC_CHEST, 0),
               "+": (X_SARCOPHAGUS, 0), "_": (X_SHRINE, 0),
               "r": (X_KEY, COLOR_RED), "b": (X_KEY, COLOR_BLUE), "g": (X_KEY, COLOR_GREEN),
               "y": (X_KEY, COLOR_YELLOW),
               "R": (X_DOOR, COLOR_RED), "B": (X_DOOR, COLOR_BLUE), "G": (X_DOOR, COLOR_GREEN),
               "Y": (X_DOOR, COLOR_YELLOW)}
MONSTER_CHARS = {"S": "skeleton", "N": "necromancer", "H": "ghoul", "M": "mummy", "C": "cacodemon", "O": "ogre",
                 "T": "stone_golem", "Z": "storm_golem", "F": "fire_golem", "K": "chicken"}
#: The monster kinds a level is checked against when no ruleset is given.
DEFAULT_MONSTERS = frozenset(MONSTER_CHARS.values())
#: Tiles a ``monster:`` line may place a monster on.
MONSTER_TILES = (T_FLOOR, T_WATER, T_LAVA, T_TELEPORT, T_SPAWN)

HEADER_KEYS = ("name", "description", "source", "invented")

LEVELS_DIR = Path(__file__).parent / "data" / "levels"
DEFAULT_LEVEL = "crypt"
SUFFIX = ".txt"


def legend() -> list[tuple[str, str]]:
    """(character, meaning) of every grid character, in the order docs and the renderer show them."""
    out = [(ch, TILE_NAMES[t]) for ch, t in TERRAIN_CHARS.items()]
    for ch, (x, color) in THING_CHARS.items():
        out.append((ch, f"{COLOR_NAMES[color]} {THING_NAMES[x]}" if color else THING_NAMES[x]))
    out += [(ch, name.replace("_", " ")) for ch, name in MONSTER_CHARS.items()]
    return out


# ------------------------------------------------------------------------------------------ the level


@dataclass
class Level:
    """A parsed, checked level. Cells are ``r * cols + c`` (0-based); words and errors count from 1."""

    name: str
    path: str
    rows: int
    cols: int
    tile: np.ndarray  #: int8[n]: T_* terrain
    thing: np.ndarray  #: int8[n]: X_* what stands on the tile
    color: np.ndarray  #: int8[n]: COLOR_* of a key or door, 0 otherwise
    monsters: list[tuple[str, int]] = field(default_factory=list)  #: (kind name, cell), file order
    assumptions: list[assume.Assumption] = field(default_factory=list)  #: the 'assume-KEY:' header lines
    meta: dict[str, str] = field(default_factory=dict)  #: header keys other than name and assume-*
    monster_where: list[str] = field(default_factory=list)  #: file:line:column of each monster
    grid_line: int = 1  #: file line of the grid's first row
    warnings: list[str] = field(default_factory=list)  #: harmless oddities ('map check' prints them)
    header_text: str = ""

    @property
    def n(self) -> int:
        return self.rows * self.cols

    def cells_of(self, tile: int) -> list[int]:
        return [int(c) for c in np.flatnonzero(self.tile == tile)]

    @property
    def start(self) -> int:
        return self.cells_of(T_START)[0]

    @property
    def exit(self) -> int:
        return self.cells_of(T_EXIT)[0]

    @property
    def teleporters(self) -> list[int]:
        return self.cells_of(T_TELEPORT)

    @property
    def spawns(self) -> list[int]:
        return self.cells_of(T_SPAWN)

    def at(self, cell: int) -> str:
        """``file:line:column`` of a cell's character."""
        r, c = divmod(int(cell), self.cols)
        return where(self.path, self.grid_line + r, c + 1)

    def words(self, cell: int) -> str:
        return cell_words(cell, self.cols)

    def opaque(self) -> np.ndarray:
        """uint8[n]: walls and closed doors (``grid.line_of_sight``'s ``opaque``)."""
        return (np.isin(self.tile, OPAQUE_TILES) | np.isin(self.thing, OPAQUE_THINGS)).astype(np.uint8)


# ------------------------------------------------------------------------------------------ parsing


def _is_grid_marker(line: str) -> bool:
    return line.strip().lower() == "grid:"


def parse_level(text: str, path: str = "<level>", monster_names: set[str] | frozenset[str] | None = None) -> Level:
    """Parse and check a level's text (``load_level`` reads the file). ``monster_names``: the monster kinds of
    the ruleset (None: ``DEFAULT_MONSTERS``)."""
    names = DEFAULT_MONSTERS if monster_names is None else frozenset(monster_names)
    path = str(path)
    lines = split_lines(text, path, noun="level")

    def err(msg: str, line: int, col: int) -> InputError:
        return InputError(msg, where(path, line, col))

    # ---- header, up to the 'grid:' line
    h = header_lines(lines, path, _is_grid_marker, expected="the line 'grid:' that starts the grid",
                     example="name: My level")
    if h.end == len(lines):
        if not any(ln.strip() and not is_comment(ln) for ln in lines):
            raise err("empty level file: expected a header ('name: ...'), a line 'grid:' and the grid", 1, 1)
        last = max(k for k, ln in enumerate(lines) if ln.strip()) + 1
        raise err("no line 'grid:' found: the grid of a level follows a line 'grid:' after the header", last + 1, 1)
    for key in h.values:
        if key not in HEADER_KEYS and not key.startswith("assume-"):
            raise err(f"unknown header key '{key}' (known: {', '.join(HEADER_KEYS)}, assume-KEY)", h.line_of[key], 1)
    if not h.values.get("name"):
        raise err("missing 'name: ...' header line (every level needs a name)", h.line_of.get("name", 1), 1)

    # ---- the grid: rows after 'grid:' up to a blank line
    first = h.end + 1
    end = first
    while end < len(lines) and lines[end].strip():
        end += 1
    rows_text = [ln.rstrip(" ") for ln in lines[first:end]]
    if not rows_text:
        raise err("the grid is empty: draw its rows right after the line 'grid:'", first + 1, 1)
    if len(rows_text) > MAX_ROWS:
        raise err(f"the level has {len(rows_text)} rows: at most {MAX_ROWS}", first + MAX_ROWS + 1, 1)
    cols = len(rows_text[0])
    if cols > MAX_COLS:
        raise err(f"the level is {cols} tiles wide: at most {MAX_COLS}", first + 1, MAX_COLS + 1)
    rows = len(rows_text)
    n = rows * cols
    tile = np.zeros(n, np.int8)
    thing = np.zeros(n, np.int8)
    color = np.zeros(n, np.int8)
    monsters: list[tuple[str, int]] = []
    monster_where: list[str] = []
    for r, raw in enumerate(rows_text):
        ln = first + 1 + r
        if "\t" in raw:
            raise err("tab character in the grid: one character per tile, no tabs", ln, raw.index("\t") + 1)
        if len(raw) != cols:
            long = len(raw) > cols
            raise err(f"row {r + 1} has {len(raw)} tiles but the first row has {cols}: every row is as long "
                      "as the first", ln, cols + 1 if long else len(raw) + 1)
        for c, ch in enumerate(raw):
            cell = r * cols + c
            if ch in TERRAIN_CHARS:
                tile[cell] = TERRAIN_CHARS[ch]
            elif ch in THING_CHARS:
                thing[cell], color[cell] = THING_CHARS[ch]
            elif ch in MONSTER_CHARS:
                name = MONSTER_CHARS[ch]
                if name not in names:
                    raise err(f"'{ch}' is the {name.replace('_', ' ')}, which the ruleset's monster table does "
                              f"not have (its monsters: {', '.join(sorted(names))})", ln, c + 1)
                monsters.append((name, cell))
                monster_where.append(where(path, ln, c + 1))
            else:
                raise err(f"unknown level character {ch!r}: see the legend in docs/tactics-levels.md "
                          f"({''.join(TERRAIN_CHARS)} terrain, {''.join(THING_CHARS)} things, "
                          f"{''.join(MONSTER_CHARS)} monsters)", ln, c + 1)

    # ---- after the grid: 'monster: NAME ROW,COL' lines and comments
    for k in range(end, len(lines)):
        raw = lines[k]
        if not raw.strip() or is_comment(raw):
            continue
        body = raw.strip()
        col0 = len(raw) - len(raw.lstrip()) + 1
        key, sep, rest = body.partition(":")
        if not sep or key.strip().lower() != "monster":
            raise err("unexpected text after the grid (the grid ends at the first blank line; after it come only "
                      "'monster: NAME ROW,COL' lines and comments)", k + 1, col0)
        parts = rest.split()
        at_col = col0 + body.index(":") + 1 + (len(rest) - len(rest.lstrip()))
        if len(parts) != 2:
            raise err(f"expected 'monster: NAME ROW,COL' (e.g. 'monster: storm_golem 4,7'), found {body[:40]!r}",
                      k + 1, at_col)
        name, pos = parts
        if name not in names:
            raise err(f"unknown monster {name!r} (the ruleset's monsters: {', '.join(sorted(names))})", k + 1,
                      at_col)
        pos_col = col0 + body.index(pos, body.index(name) + len(name))
        rc = pos.split(",")
        if len(rc) != 2 or not all(x.isascii() and x.isdigit() for x in rc):
            raise err(f"expected ROW,COL counted from 1 (e.g. 4,7), found {pos!r}", k + 1, pos_col)
        r, c = int(rc[0]) - 1, int(rc[1]) - 1
        if not (0 <= r < rows and 0 <= c < cols):
            raise err(f"row {r + 1}, column {c + 1} is outside the {rows} x {cols} grid", k + 1, pos_col)
        cell = r * cols + c
        if tile[cell] not in MONSTER_TILES:
            raise err(f"a monster cannot stand on the {TILE_NAMES[tile[cell]]} at row {r + 1}, column {c + 1}",
                      k + 1, pos_col)
        if thing[cell] != X_NONE:
            raise err(f"row {r + 1}, column {c + 1} holds a {THING_NAMES[thing[cell]]}: a tile holds one thing or "
                      "one monster", k + 1, pos_col)
        monsters.append((name, cell))
        monster_where.append(where(path, k + 1, pos_col))

    level = Level(name=h.values["name"], path=path, rows=rows, cols=cols, tile=tile, thing=thing, color=color,
                  monsters=monsters, meta={k: v for k, v in h.values.items() if k != "name" and
                                           not k.startswith("assume-")},
                  monster_where=monster_where, grid_line=first + 1, header_text=h.text)
    _check(level)
    level.assumptions = level_assumptions(level)
    return level


def _check(m: Level) -> None:
    """The checks of a level's content (the format is parse_level's): one start, one exit, no or two
    teleporters, one monster per tile, every door's colour has a key, every door's key and the exit reachable
    from the start. Adds warnings (a key with no door of its colour)."""
    seen: dict[int, int] = {}
    for k, (_, cell) in enumerate(m.monsters):
        if cell in seen:
            raise InputError(f"two monsters on {m.words(cell)} (the first at {m.monster_where[seen[cell]]})",
                             m.monster_where[k])
        seen[cell] = k
    for t, what in ((T_START, "start tile '@'"), (T_EXIT, "exit tile '>'")):
        cells = m.cells_of(t)
        if not cells:
            raise InputError(f"the level has no {what}", where(m.path, m.grid_line, 1))
        if len(cells) > 1:
            raise InputError(f"a second {what} (the first is at {m.words(cells[0])}): a level has exactly one",
                             m.at(cells[1]))
    tele = m.teleporters
    if len(tele) == 1:
        raise InputError("a lone teleporter '^': teleporters come as one pair (two tiles) or not at all", m.at(tele[0]))
    if len(tele) > 2:
        raise InputError(f"a third teleporter '^' (the pair is at {m.words(tele[0])} and {m.words(tele[1])}): a level "
                         "has at most one pair", m.at(tele[2]))
    keys = {int(m.color[c]) for c in np.flatnonzero(m.thing == X_KEY)}
    doors = np.flatnonzero(m.thing == X_DOOR)
    for d in doors:
        if int(m.color[d]) not in keys:
            raise InputError(f"a {COLOR_NAMES[m.color[d]]} door with no {COLOR_NAMES[m.color[d]]} key anywhere on the "
                             "level", m.at(int(d)))
    door_colors = {int(m.color[d]) for d in doors}
    for k in sorted(keys - door_colors):
        cell = int(np.flatnonzero((m.thing == X_KEY) & (m.color == k))[0])
        m.warnings.append(f"{m.at(cell)}: a {COLOR_NAMES[k]} key but no {COLOR_NAMES[k]} door")
    reach, held = reachable(m)
    for d in doors:
        if int(m.color[d]) not in held:
            raise InputError(f"this {COLOR_NAMES[m.color[d]]} door can never be opened: no {COLOR_NAMES[m.color[d]]} "
                             "key can be reached from the start without passing it", m.at(int(d)))
    if not reach[m.exit]:
        raise InputError(f"the exit at {m.words(m.exit)} cannot be reached from the start at {m.words(m.start)} "
                         "(walls, lava, locked doors without a reachable key, chests, magic chests, sarcophagi "
                         "and shrines block the way)", m.at(m.exit))


def check_lava(m: Level, lava_ok: set[str] | frozenset[str]) -> None:
    """Refuse a placed monster standing on lava unless its kind is in ``lava_ok`` (the ruleset's flying and
    lava-immune kinds): the level alone does not know who survives lava, so the ruleset calls this."""
    for k, (name, cell) in enumerate(m.monsters):
        if m.tile[cell] == T_LAVA and name not in lava_ok:
            ok = ", ".join(sorted(lava_ok)) or "none"
            raise InputError(f"a {name.replace('_', ' ')} cannot stand on lava (only monsters that fly or ignore "
                             f"lava can: {ok})", m.monster_where[k])


def reachable(m: Level) -> tuple[np.ndarray, set[int]]:
    """The tiles the player can reach from the start (bool[n]) and the key colours it can pick up: walking over
    walkable tiles, smashing crates and barrels, taking keys, opening a door once a key of its colour is held,
    and travelling between the teleporters. Monsters are not obstacles (they can be killed); chests, magic
    chests, sarcophagi and shrines are. A fixed point: each key found may open more doors."""
    walk = np.isin(m.tile, WALKABLE_TILES) & np.isin(m.thing, (X_NONE, X_CRATE, X_BARREL, X_KEY))
    held: set[int] = set()
    tele = m.teleporters
    while True:
        ok = walk | ((m.thing == X_DOOR) & np.isin(m.color, sorted(held)))
        seen = np.zeros(m.n, bool)
        stack = [m.start]
        seen[m.start] = True
        while stack:
            cell = stack.pop()
            r, c = divmod(cell, m.cols)
            nbs = [cell - m.cols if r > 0 else -1, cell + 1 if c < m.cols - 1 else -1,
                   cell + m.cols if r < m.rows - 1 else -1, cell - 1 if c > 0 else -1]
            if len(tele) == 2 and cell in tele:
                nbs.append(tele[1] if cell == tele[0] else tele[0])
            for nb in nbs:
                if nb >= 0 and not seen[nb] and ok[nb]:
                    seen[nb] = True
                    stack.append(nb)
        now = {int(m.color[c]) for c in np.flatnonzero(seen & (m.thing == X_KEY))}
        if now <= held:
            return seen, held
        held |= now


def level_assumptions(m: Level) -> list[assume.Assumption]:
    """The ``assume-KEY:`` header lines, checked against what the level holds (``assumptions.from_map``):
    KEY is ``layout`` (the name), ``rows``, ``cols``, ``monsters``, ``spawn_points``, ``teleporters``, a thing's
    plural (``THING_PLURALS``: ``crates``, ``sarcophagi``, ...) or a monster kind's name plus ``s``
    (``skeletons``, ``storm_golems``, ...)."""
    measured: dict[str, object] = {"layout": m.name, "rows": m.rows, "cols": m.cols, "monsters": len(m.monsters),
                                   "spawn_points": len(m.spawns), "teleporters": len(m.teleporters)}
    for x in range(1, N_THINGS):
        measured[THING_PLURALS[x]] = int((m.thing == x).sum())
    for name in sorted({k for k, _ in m.monsters} | set(MONSTER_CHARS.values())):
        measured[name + "s"] = sum(1 for k, _ in m.monsters if k == name)
    return assume.from_map(m.header_text, m.path, measured, prefix="level")


def load_level(name_or_path: str | Path | None, monster_names: set[str] | frozenset[str] | None = None,
               where: str = "--level") -> Level:
    """A shipped level by name (None: ``DEFAULT_LEVEL``) or a level file, parsed and checked.

    Refused in one line (``InputError``): at ``where`` an unknown name or a file that cannot be read; at
    ``file:line:column`` a file that is too large or not UTF-8, a bad header, an unknown character, a ragged
    or oversized grid, a bad ``monster:`` line, a monster the ruleset does not have (``monster_names``), two
    monsters on a tile or one on a wall, start or exit, no start or two, no exit or two, one or three
    teleporters, a door with no key of its colour, a door whose key cannot be reached without it, an exit the
    player cannot reach from the start, and an ``assume-KEY:`` line that does not match the level."""
    if name_or_path is None:
        name_or_path = DEFAULT_LEVEL
    if not isinstance(name_or_path, str | Path):
        raise InputError(f"a level is a shipped level name or a level file, not {name_or_path!r}", where)
    shipped = builtin_levels()
    key = str(name_or_path)
    if key in shipped:
        p = shipped[key]
    elif Path(key).exists():
        p = Path(key)
    else:
        raise InputError(f"unknown level {key!r}: not a shipped level ({', '.join(shipped) or 'none'}) and no "
                         "such file", where)
    return parse_level(read_grid_text(p, where, noun="level"), str(p), monster_names)


def builtin_levels() -> dict[str, Path]:
    """The levels shipped in ``data/levels``: name (file stem) -> path."""
    return {p.stem: p for p in sorted(LEVELS_DIR.glob("*" + SUFFIX))}


# ------------------------------------------------------------------------------------------ writing


def format_level(m: Level) -> str:
    """The level in the file format; ``parse_level(format_level(m))`` gives back the same arrays and monsters.
    Monsters on a floor tile with a letter are drawn in the grid, the others become ``monster:`` lines."""
    tile_ch = {t: ch for ch, t in TERRAIN_CHARS.items()}
    thing_ch = {v: ch for ch, v in THING_CHARS.items()}
    mon_ch = {name: ch for ch, name in MONSTER_CHARS.items()}
    grid = [[tile_ch[int(t)] for t in m.tile[r * m.cols:(r + 1) * m.cols]] for r in range(m.rows)]
    for cell in np.flatnonzero(m.thing != X_NONE):
        r, c = divmod(int(cell), m.cols)
        grid[r][c] = thing_ch[(int(m.thing[cell]), int(m.color[cell]))]
    extra = []
    for name, cell in m.monsters:
        r, c = divmod(int(cell), m.cols)
        if m.tile[cell] == T_FLOOR and name in mon_ch:
            grid[r][c] = mon_ch[name]
        else:
            extra.append(f"monster: {name} {r + 1},{c + 1}")
    head = [f"name: {m.name}"] + [f"{k}: {v}" for k, v in m.meta.items()]
    head += [ln for ln in m.header_text.splitlines() if ln.strip().lower().startswith("assume-")]
    text = "\n".join(head) + "\n\ngrid:\n" + "\n".join("".join(row) for row in grid) + "\n"
    if extra:
        text += "\n" + "\n".join(extra) + "\n"
    return text


#: A thing used up but still on its tile (an opened chest or sarcophagus, a used shrine) is ``X_* + X_USED`` in
#: the game's state; ``format_state`` draws it as ``USED_CHAR``.
X_USED = 16
USED_CHAR = "x"


def format_state(m: Level, thing: np.ndarray | None = None, color: np.ndarray | None = None,
                 monsters: list[tuple[str, int]] | None = None, player: int = -1) -> list[str]:
    """The level as it stands during a game, for replays: the level's characters with the current ``thing`` and
    ``color`` arrays (smashed crates, taken keys and opened doors gone, a used thing ``X_* + X_USED`` drawn as
    ``USED_CHAR``; default: the level's), the monsters where they are now (kind name, cell; default: the placed
    ones; a kind without a letter shows as ``?``), and the player as ``P``. Rows and columns are numbered from 1
    (columns by their last digit)."""
    thing = m.thing if thing is None else thing
    color = m.color if color is None else color
    monsters = m.monsters if monsters is None else monsters
    tile_ch = {t: ch for ch, t in TERRAIN_CHARS.items()}
    thing_ch = {v: ch for ch, v in THING_CHARS.items()}
    mon_ch = {name: ch for ch, name in MONSTER_CHARS.items()}
    grid = [[tile_ch[int(t)] for t in m.tile[r * m.cols:(r + 1) * m.cols]] for r in range(m.rows)]
    for cell in np.flatnonzero(np.asarray(thing) != X_NONE):
        r, c = divmod(int(cell), m.cols)
        x = int(thing[cell])
        grid[r][c] = USED_CHAR if x >= X_USED else thing_ch[(x, int(color[cell]))]
    for name, cell in monsters:
        r, c = divmod(int(cell), m.cols)
        grid[r][c] = mon_ch.get(name, "?")
    if player >= 0:
        r, c = divmod(int(player), m.cols)
        grid[r][c] = "P"
    width = len(str(m.rows))
    out = [" " * (width + 1) + "".join(str((c + 1) % 10) for c in range(m.cols))]
    out += [f"{r + 1:>{width}} " + "".join(row) for r, row in enumerate(grid)]
    return out


# ------------------------------------------------------------------------------------------ packed level
# int64[]: the header, then tile[n], thing[n], color[n], the spawn cells, the placed monsters (kind, cell).

LV_ROWS, LV_COLS, LV_START, LV_EXIT, LV_TELE_A, LV_TELE_B, LV_N_SPAWN, LV_N_MON, LV_HDR = 0, 1, 2, 3, 4, 5, 6, 7, 8


def pack_level(m: Level, kind_index: dict[str, int]) -> np.ndarray:
    """The level as the kernel reads it (offsets: ``lv_tile`` ... ``lv_mon``); ``kind_index``: monster kind
    name -> row of the ruleset's monster table."""
    n = m.n
    spawns, tele = m.spawns, m.teleporters
    lv = np.zeros(LV_HDR + 3 * n + len(spawns) + 2 * len(m.monsters), np.int64)
    lv[LV_ROWS], lv[LV_COLS], lv[LV_START], lv[LV_EXIT] = m.rows, m.cols, m.start, m.exit
    lv[LV_TELE_A], lv[LV_TELE_B] = (tele[0], tele[1]) if len(tele) == 2 else (-1, -1)
    lv[LV_N_SPAWN], lv[LV_N_MON] = len(spawns), len(m.monsters)
    lv[LV_HDR:LV_HDR + n] = m.tile
    lv[LV_HDR + n:LV_HDR + 2 * n] = m.thing
    lv[LV_HDR + 2 * n:LV_HDR + 3 * n] = m.color
    s = LV_HDR + 3 * n
    lv[s:s + len(spawns)] = spawns
    s += len(spawns)
    for k, (name, cell) in enumerate(m.monsters):
        if name not in kind_index:
            raise InputError(f"monster {name!r} is not in the ruleset's monster table "
                             f"({', '.join(kind_index)})", m.monster_where[k] if k < len(m.monster_where) else m.path)
        lv[s + 2 * k], lv[s + 2 * k + 1] = kind_index[name], cell
    return lv


@njit(cache=CACHE, inline="always", _nrt=False)
def lv_n(lv):
    """Number of tiles (rows * cols)."""
    return lv[LV_ROWS] * lv[LV_COLS]


@njit(cache=CACHE, inline="always", _nrt=False)
def lv_tile(lv):
    """Offset of ``tile[n]`` in a packed level."""
    return LV_HDR


@njit(cache=CACHE, inline="always", _nrt=False)
def lv_thing(lv):
    """Offset of ``thing[n]``."""
    return LV_HDR + lv[LV_ROWS] * lv[LV_COLS]


@njit(cache=CACHE, inline="always", _nrt=False)
def lv_color(lv):
    """Offset of ``color[n]``."""
    return LV_HDR + 2 * lv[LV_ROWS] * lv[LV_COLS]


@njit(cache=CACHE, inline="always", _nrt=False)
def lv_spawn(lv):
    """Offset of the ``lv[LV_N_SPAWN]`` spawn cells."""
    return LV_HDR + 3 * lv[LV_ROWS] * lv[LV_COLS]


@njit(cache=CACHE, inline="always", _nrt=False)
def lv_mon(lv):
    """Offset of the ``lv[LV_N_MON]`` placed monsters, pairs (kind index, cell)."""
    return LV_HDR + 3 * lv[LV_ROWS] * lv[LV_COLS] + lv[LV_N_SPAWN]
