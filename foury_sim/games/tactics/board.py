"""Tactics' board hook (``registry.Board``): levels for ``foury-sim map check/render --game tactics`` and the
heat maps of deaths in a study report.

The picture colours the tiles as the rule text does (green start, white exit, blue water, orange lava, red
teleporters, black spawn points), draws walls dark, things as their legend characters on small tokens (keys
and doors in their colour), monsters as lettered discs, rows and columns numbered from 1, and an optional heat
layer (deaths per tile) with its colour bar. Every artist carries a ``gid`` (``tile``, ``thing``, ``monster``,
``heat``) so that tests can count what was drawn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...registry import Board, deaths_per_cell
from . import level as L
from .level import Level, builtin_levels, load_level

#: Tile colours (rule text, "The environment"); floor is a pale stone, walls dark.
TILE_COLORS = {L.T_FLOOR: "#e8e2d4", L.T_WALL: "#3a3a3a", L.T_START: "#3cb043", L.T_EXIT: "#ffffff",
               L.T_WATER: "#3d7fd9", L.T_LAVA: "#f08a24", L.T_TELEPORT: "#d62828", L.T_SPAWN: "#000000"}
KEY_COLORS = {L.COLOR_RED: "#c1121f", L.COLOR_BLUE: "#1d4ed8", L.COLOR_GREEN: "#15803d", L.COLOR_YELLOW: "#eab308"}
THING_COLORS = {L.X_CRATE: "#a0703c", L.X_BARREL: "#7a4a1e", L.X_CHEST: "#d4a017", L.X_MAGIC_CHEST: "#8e44ad",
                L.X_SARCOPHAGUS: "#8a8a8a", L.X_SHRINE: "#f5f5f5"}
MONSTER_EDGE = "#8b0000"
#: Characters drawn on the special tiles (as in the level file) and their ink.
_TILE_MARKS = {L.T_START: ("@", "white"), L.T_EXIT: (">", "black"), L.T_TELEPORT: ("^", "white"),
               L.T_SPAWN: ("*", "white")}
_CHAR_OF_THING = {v: ch for ch, v in L.THING_CHARS.items()}
_CHAR_OF_MONSTER = {name: ch for ch, name in L.MONSTER_CHARS.items()}


def resolve(name_or_path: str | None) -> Level:
    """A shipped level by name (None: the default level) or a level file, checked against the default
    monster kinds (``map render``; ``map check`` uses ``load``, under the ruleset's kinds)."""
    return load_level(name_or_path, None, "--map")


def load(name_or_path: str, rules: str | None = None, sets: list[str] | None = None) -> Level:
    """The level as ``foury-sim run`` takes it: the ruleset (the shipped one, or ``rules``/``sets``) is loaded
    with this level, so ``map check`` refuses exactly what ``run`` refuses, with the same line."""
    from .ruleset import load_ruleset

    return load_ruleset(rules, sets, name_or_path).level


def check(m: Level) -> list[str]:
    """What ``foury-sim map check`` prints: size, start and exit, and what the level holds."""
    out = [f"{m.name}: {m.rows} x {m.cols} tiles, start at {m.words(m.start)}, exit at {m.words(m.exit)}"]
    terrain = [f"{L.TILE_NAMES[t]} {int((m.tile == t).sum())}" for t in range(L.N_TILES) if (m.tile == t).any()]
    out.append("terrain: " + ", ".join(terrain))
    things = []
    for ch, (x, color) in L.THING_CHARS.items():
        k = int(((m.thing == x) & (m.color == color)).sum())
        if k:
            things.append(f"{dict(L.legend())[ch]} {k}")
    out.append("things: " + (", ".join(things) or "none"))
    kinds: dict[str, int] = {}
    for name, _ in m.monsters:
        kinds[name] = kinds.get(name, 0) + 1
    out.append("monsters: " + (", ".join(f"{k.replace('_', ' ')} {v}" for k, v in kinds.items()) or "none"))
    out += [f"assumed: {a.key} = {a.value} ({a.reason})" for a in m.assumptions]
    out += [f"warning: {w}" for w in m.warnings]
    return out


def rooms(m: Level) -> np.ndarray:
    """The tiles heat is drawn on: every tile but walls."""
    return np.asarray(m.tile) != L.T_WALL


def cell_record(rules: Any, df: Any, extras: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """Deaths per tile of a sweep cell (the per-game column ``death_cell``, -1 for none), and the tile visits
    when the run gives them (extra ``visits``). None without a ``death_cell`` column."""
    m = getattr(rules, "level", None)
    if m is None or "death_cell" not in df:
        return None
    rec: dict[str, Any] = {"map": m.path or m.name, "deaths": deaths_per_cell(df, m.n)}
    if "visits" in extras:
        rec["visits"] = np.asarray(extras["visits"]).tolist()
    return rec


_MARGIN = 0.9  # tiles of margin round the grid (row and column numbers)
_LEGEND_IN = 1.35  # inches of legend below the grid


def draw(m: Level, heat: np.ndarray | None = None, heat_label: str = "", title: str | None = None) -> Any:
    """The level as a matplotlib Figure (no pyplot state): tiles, things, monsters, numbers, legend, and the
    ``heat`` layer (float per tile, NaN = none) with a colour bar labelled ``heat_label``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.cm import ScalarMappable
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyBboxPatch, Rectangle

    from ...figures import heat_scale

    rows, cols = m.rows, m.cols
    if heat is not None:
        heat, norm, cmap = heat_scale(heat, m.n)
    tile_in = min(0.42, 9.0 / max(rows, cols))
    cbar_in = 1.1 if heat is not None else 0.0
    map_w, map_h = (cols + 2 * _MARGIN) * tile_in, (rows + 2 * _MARGIN) * tile_in
    fig_w = max(map_w + cbar_in + 0.3, 6.5)
    fig_h = map_h + _LEGEND_IN + 0.5
    fig = Figure(figsize=(fig_w, fig_h), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_axes([(fig_w - map_w - cbar_in) / 2 / fig_w, (_LEGEND_IN + 0.05) / fig_h, map_w / fig_w,
                       map_h / fig_h])
    ax.set_xlim(-_MARGIN, cols + _MARGIN)
    ax.set_ylim(rows + _MARGIN, -_MARGIN)
    ax.set_aspect("equal")
    ax.axis("off")
    fs = 11.0 * tile_in / 0.42
    on_tile = {int(c) for _, c in m.monsters}

    for cell in range(m.n):
        r, c = divmod(cell, cols)
        t = int(m.tile[cell])
        edge, lw = ("#3a3a3a", 0.4) if t == L.T_WALL else ("black", 1.6) if t == L.T_EXIT else ("#999999", 0.4)
        ax.add_patch(Rectangle((c, r), 1, 1, facecolor=TILE_COLORS[t], edgecolor=edge, lw=lw, zorder=1, gid="tile"))
        if t in _TILE_MARKS and cell not in on_tile:  # the tile's own character, for readers who cannot tell colours
            ax.text(c + 0.5, r + 0.55, _TILE_MARKS[t][0], fontsize=fs * 0.9, ha="center", va="center",
                    color=_TILE_MARKS[t][1], fontweight="bold", zorder=4, gid="mark")
    if heat is not None:
        for cell in np.flatnonzero(np.isfinite(heat)):
            r, c = divmod(int(cell), cols)
            ax.add_patch(Rectangle((c + 0.1, r + 0.1), 0.8, 0.8, facecolor=cmap(norm(heat[cell])), alpha=0.85,
                                   edgecolor="none", zorder=2, gid="heat"))
        cax = ax.inset_axes([1.02, 0.12, 0.03, 0.76])
        cb = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), cax=cax)
        cb.set_label(heat_label, fontsize=9)
        cb.ax.tick_params(labelsize=8)

    for cell in np.flatnonzero(m.thing != L.X_NONE):
        r, c = divmod(int(cell), cols)
        x, color = int(m.thing[cell]), int(m.color[cell])
        ch = _CHAR_OF_THING[(x, color)]
        if x == L.X_DOOR:
            ax.add_patch(Rectangle((c + 0.05, r + 0.05), 0.9, 0.9, facecolor=KEY_COLORS[color], edgecolor="black",
                                   lw=1.2, zorder=3, gid="thing"))
            ax.text(c + 0.5, r + 0.52, ch, fontsize=fs, ha="center", va="center", color="white", fontweight="bold",
                    zorder=4)
            continue
        face = KEY_COLORS[color] if x == L.X_KEY else THING_COLORS[x]
        ax.add_patch(FancyBboxPatch((c + 0.2, r + 0.2), 0.6, 0.6, boxstyle="round,pad=0.02", facecolor=face,
                                    edgecolor="black", lw=0.8, zorder=3, gid="thing"))
        ink = "black" if x in (L.X_SHRINE, L.X_CHEST) or color == L.COLOR_YELLOW else "white"
        ax.text(c + 0.5, r + 0.52, ch, fontsize=fs * 0.85, ha="center", va="center", color=ink, fontweight="bold",
                zorder=4)
    for name, cell in m.monsters:
        r, c = divmod(int(cell), cols)
        ax.add_patch(Circle((c + 0.5, r + 0.5), 0.38, facecolor="white", edgecolor=MONSTER_EDGE, lw=1.6, zorder=5,
                            gid="monster"))
        ax.text(c + 0.5, r + 0.53, _CHAR_OF_MONSTER.get(name, name[:1].upper()), fontsize=fs, ha="center",
                va="center", color=MONSTER_EDGE, fontweight="bold", zorder=6)

    lab_fs = max(5.5, fs * 0.7)
    for r in range(rows):
        ax.text(-0.3, r + 0.5, str(r + 1), fontsize=lab_fs, ha="right", va="center", color="#333333")
    for c in range(cols):
        ax.text(c + 0.5, -0.25, str(c + 1), fontsize=lab_fs, ha="center", va="bottom", color="#333333")
    ax.set_title(m.name if title is None else title, fontsize=12, fontweight="bold", pad=4)
    _draw_legend(fig, fig_w, fig_h)
    return fig


def _draw_legend(fig: Any, fig_w: float, fig_h: float) -> None:
    """Tile colours, then every grid character with its meaning, below the grid."""
    from matplotlib.patches import Rectangle

    lg = fig.add_axes([0.02, 0.02, 0.96, _LEGEND_IN / fig_h])
    lg.set_xlim(0, 100)
    lg.set_ylim(4.2, -0.1)
    lg.axis("off")
    x = 0.0
    for t, name in enumerate(L.TILE_NAMES):
        lg.add_patch(Rectangle((x, 0.1), 2.0, 0.7, facecolor=TILE_COLORS[t], edgecolor="black", lw=0.5))
        lg.text(x + 2.6, 0.45, name, fontsize=7, va="center")
        x += 12.5
    things = [f"{ch} {meaning}" for ch, meaning in L.legend() if ch in L.THING_CHARS]
    monsters = [f"{ch} {meaning}" for ch, meaning in L.legend() if ch in L.MONSTER_CHARS]
    lg.text(0, 1.5, "things: " + ", ".join(things), fontsize=6.5, va="center")
    lg.text(0, 2.4, "monsters (discs): " + ", ".join(monsters), fontsize=6.5, va="center", color=MONSTER_EDGE)
    lg.text(0, 3.3, "rows and columns are numbered from 1 at the top left: texts name a tile 'row 3, column 7'",
            fontsize=6.5, va="center", color="#333333")


BOARD = Board(resolve=resolve, builtin=lambda: list(builtin_levels()), check=check, draw=draw, heat_cells=rooms,
              cell_record=cell_record, noun="level", load=load)
