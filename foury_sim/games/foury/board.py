"""Dungeon Foury's board hook (``registry.Board``): maps for ``foury-sim map check/render`` and the
heat maps of a study report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...registry import Board, deaths_per_cell
from . import icons as I
from .maps import MapData, builtin_maps, render_map, resolve_map

#: how rooms are named in every text (replays, summaries, tables) and labelled on the rendered map
ROOM_CONVENTION = "B (2,8) is the room of sector B at row 2, column 8, counted from 1 at the top left"


def room_name(cell: int, cols: int, sectors: Sequence[int] | None = None) -> str:
    """A room as it is found on the rendered map (``foury-sim map render``, the heat maps): its sector's letter
    and (row, column), both counted from 1 at the top left: ``"B (2,8)"`` (``"(2,8)"`` without ``sectors``)."""
    r, c = divmod(int(cell), cols)
    where = f"({r + 1},{c + 1})"
    if sectors is None or not 0 <= cell < len(sectors) or not 0 <= int(sectors[cell]) < len(I.SECTOR_CHARS):
        return where
    return f"{I.SECTOR_CHARS[int(sectors[cell])]} {where}"


def load(name_or_path: str, rules: str | None = None, sets: list[str] | None = None,
         campaign: str | None = None) -> MapData:
    """The map as ``foury-sim run`` takes it: the ruleset (the shipped one, or ``rules``/``sets``, under the
    ``campaign``'s rules if given) is loaded with this map, so ``map check`` refuses exactly what ``run`` refuses,
    with the same line (``parse_map``: format and size limits; ``maps.check_map``: what the ruleset needs;
    ``ruleset.check_campaign_map``: what the campaign asks of its map)."""
    from .ruleset import load_ruleset

    return load_ruleset(rules, sets, name_or_path, campaign=campaign).map


def check(m: MapData) -> list[str]:
    """What ``foury-sim map check`` prints: size, rooms, arrows, and the icons the map holds."""
    total = m.icons.sum(axis=0)
    rooms = int((m.sector >= 0).sum())
    return [f"{m.name}: {m.rows}x{m.cols}, {rooms} rooms, {len(m.arrow_cell)} arrows",
            ", ".join(f"{m.table.names[i]} {int(total[i])}" for i in range(len(total)) if total[i])]


def draw(m: MapData, heat: np.ndarray | None = None, heat_label: str = "", title: str | None = None) -> Any:
    return render_map(m, heat=heat, heat_label=heat_label, title=title if title is not None else m.name)


def rooms(m: MapData) -> np.ndarray:
    return np.asarray(m.sector) != I.VOID


def cell_record(rules: Any, df: Any, extras: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """Room visits (run extra ``visits``) and first deaths (``death_cell``) of a sweep cell, per map cell."""
    if "visits" not in extras or "death_cell" not in df:
        return None
    m = getattr(rules, "map", None)
    return {"map": getattr(m, "path", None) or getattr(m, "name", "base"), "visits": extras["visits"].tolist(),
            "deaths": deaths_per_cell(df, len(extras["visits"]))}


BOARD = Board(resolve=resolve_map, builtin=lambda: list(builtin_maps()), check=check, draw=draw, heat_cells=rooms,
              cell_record=cell_record, load=load)
