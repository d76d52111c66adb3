"""Study reports: read a sweep's results folder, draw the figures that fit it, write report.md/.html.

``build_report("results/NAME")`` never simulates: it reads ``manifest.json``, ``cells.parquet``
(or ``cells.csv``) and ``cells/cell_NNNN.json``, then writes ``figures/*.png``, ``report.md``
(figures linked relatively) and a self-contained ``report.html`` (figures embedded as base64 PNG,
no external resources). Every file is written atomically (temp file, then ``os.replace``).
"""

from __future__ import annotations

import base64
import contextlib
import html
import io
import json
import math
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from . import figures as F
from . import stats
from .errors import InputError
from .files import atomic_write
from .lazy import pd

__all__ = ["Results", "load_results", "build_report", "report_workers", "ReportFigure", "cell_differences",
           "Differences"]

_REQUIRED = ("cell", "games")
_LINESTYLES = ("-", "--", ":", "-.")


# ------------------------------------------------------------------------------------- loading


@dataclass
class Results:
    """A sweep's saved results: the manifest, the cells table (sorted by ``cell``), the cell records."""

    path: Path
    manifest: dict[str, Any]
    cells: pd.DataFrame
    cell_jsons: list[dict[str, Any]]
    _wins: list[np.ndarray | None] | None = field(default=None, repr=False)

    @property
    def conf(self) -> float:
        """The study's confidence level: ``conf`` of the experiment file (0.95 when the manifest has none)."""
        for v in (self.manifest.get("conf"), (self.manifest.get("precision") or {}).get("conf")
                  if isinstance(self.manifest.get("precision"), dict) else None):
            if isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 < v < 1.0:
                return float(v)
        return 0.95

    @property
    def wins(self) -> list[np.ndarray | None]:
        """Per-game wins (0/1, games 0..n-1) of each row of ``cells``; None where the cell did not save them."""
        if self._wins is None:
            from .study import read_win_bits

            out: list[np.ndarray | None] = []
            for cj, n in zip(self.cell_jsons, self.cells["games"]):
                bits = cj.get("win_bits")
                try:
                    out.append(read_win_bits(bits, int(n)) if isinstance(bits, str) else None)
                except (ValueError, TypeError):
                    out.append(None)
            self._wins = out
        return self._wins

    @property
    def paired(self) -> bool:
        """True when every cell saved its per-game wins (paired tests and pooled intervals are possible)."""
        return bool(self.wins) and all(w is not None for w in self.wins)

    @property
    def title(self) -> str:
        return str(self.manifest.get("title") or self.manifest.get("name") or self.path.name)

    @property
    def swept(self) -> list[str]:
        """Swept keys (in experiment order) that are columns of the cells table."""
        return [k for k in self.manifest.get("swept") or [] if k in self.cells.columns]

    @property
    def varying(self) -> list[str]:
        """Swept keys that take more than one value."""
        return [k for k in self.swept if self.cells[k].nunique(dropna=False) > 1]

    @property
    def has_board_cells(self) -> bool:
        return any(isinstance(cj.get("board_cells"), dict) for cj in self.cell_jsons)

    @property
    def spec(self) -> Any:
        """The registered game of the study (its outputs, figures and board), or None if unknown here."""
        from .registry import get_game

        try:
            return get_game(str(self.manifest.get("game")))
        except InputError:
            return None


def _short(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return msg[0][:200] if msg else type(e).__name__


def _read_json(file: Path, hint: str) -> Any:
    if not file.is_file():
        raise InputError(f"{file.name} is missing ({hint})", str(file))
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(f"{file.name} is corrupt: not valid JSON ({e.msg})", f"{file}:{e.lineno}:{e.colno}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read {file.name}: {_short(e)}", str(file)) from None


def _read_cells(folder: Path) -> pd.DataFrame:
    pq, csv = folder / "cells.parquet", folder / "cells.csv"
    if pq.is_file():
        file = pq
        try:
            df = pd.read_parquet(pq)
        except Exception as e:  # pyarrow raises many types for a damaged file
            raise InputError(f"cells.parquet is corrupt or unreadable: {_short(e)}", str(pq)) from None
    elif csv.is_file():
        file = csv
        try:
            df = pd.read_csv(csv)
        except Exception as e:  # pandas parser errors, encoding errors, empty files
            raise InputError(f"cells.csv is corrupt or unreadable: {_short(e)}", str(csv)) from None
    else:
        raise InputError("the cells table is missing (neither cells.parquet nor cells.csv; did the sweep finish?)",
                         str(folder))
    missing = [c for c in _REQUIRED if c not in df.columns]
    if "win_rate" not in df.columns and "wins" not in df.columns:
        missing.append("win_rate")
    if missing:
        raise InputError(f"{file.name} lacks column(s) {', '.join(missing)}: not a sweep cells table", str(file))
    if df.empty:
        raise InputError(f"{file.name} has no cells", str(file))
    try:
        df["cell"] = df["cell"].astype(int)
        df["games"] = df["games"].astype(int)
        if "wins" not in df.columns:
            df["wins"] = np.rint(df["win_rate"].astype(float) * df["games"]).astype(int)
        df["wins"] = df["wins"].astype(int)
    except (TypeError, ValueError) as e:
        raise InputError(f"{file.name} has a non-numeric cell, games or wins entry: {_short(e)}", str(file)) from None
    if df["cell"].duplicated().any():
        raise InputError(f"{file.name} lists cell {int(df.loc[df['cell'].duplicated(), 'cell'].iloc[0])} twice",
                         str(file))
    if "win_rate" not in df.columns:
        df["win_rate"] = df["wins"] / df["games"].where(df["games"] > 0)
    if "win_lo" not in df.columns or "win_hi" not in df.columns:
        from .stats import wilson_arrays

        df["win_lo"], df["win_hi"] = wilson_arrays(df["wins"].to_numpy(), df["games"].to_numpy())
    if "label" not in df.columns:
        df["label"] = [f"cell {c}" for c in df["cell"]]
    if "no_win" in df.columns:  # cells of a variant with no victory (GameSpec.no_win): why; "" for the others
        df["no_win"] = df["no_win"].fillna("").astype(str)
    df["label"] = df["label"].astype(str)
    return df.sort_values("cell", kind="stable").reset_index(drop=True)


def load_results(path: str | Path) -> Results:
    """Read a sweep's results folder; any missing or corrupt part is an :class:`InputError`."""
    if not str(path).strip():  # (Path("") is the current folder: it was said to lack a manifest.json)
        raise InputError("is empty: give a study's results folder, e.g. results/NAME", "FOLDER")
    p = Path(path)
    if not p.exists():
        raise InputError(f"results folder {str(p)!r} does not exist (run `foury-sim sweep EXPERIMENT.toml` first)",
                         str(p))
    if not p.is_dir():
        raise InputError(f"{str(p)!r} is not a folder: give a study's results folder, e.g. results/NAME", str(p))
    manifest = _read_json(p / "manifest.json", "not a `foury-sim sweep` results folder?")
    if not isinstance(manifest, dict):
        raise InputError("manifest.json is corrupt: it does not hold a JSON object", str(p / "manifest.json"))
    for key, types, what in (("swept", (list, type(None)), "a list of keys"), ("conf", (int, float, type(None)),
                              "a number"), ("game", (str, type(None)), "a game's name"),
                             ("seed", (int, type(None)), "a whole number")):
        v = manifest.get(key)
        if not isinstance(v, types) or isinstance(v, bool) or (key == "swept" and not all(isinstance(k, str)
                                                                                          for k in v or [])):
            raise InputError(f"manifest.json is damaged: {key!r} is not {what}; delete the results folder and run "
                             "the study again", str(p / "manifest.json"))
    conf = manifest.get("conf")
    if conf is not None and not 0.5 <= conf < 1:
        raise InputError(f"manifest.json is damaged: 'conf' is {conf!r}, not a level from 0.5 below 1",
                         str(p / "manifest.json"))
    kind = manifest.get("kind", "sweep")
    if kind != "sweep":
        hint = " (its report.md and report.html are written by `foury-sim robust`)" if kind == "robust" else ""
        raise InputError(f"not a `foury-sim sweep` results folder: its manifest is of kind {str(kind)[:40]!r}{hint}",
                         str(p / "manifest.json"))
    cells = _read_cells(p)
    records: list[dict[str, Any]] = []
    for c in cells["cell"]:
        f = p / "cells" / f"cell_{int(c):04d}.json"
        rec = _read_json(f, f"the cells table lists cell {int(c)}; rerun the sweep with --resume")
        if not isinstance(rec, dict):
            raise InputError(f"{f.name} is corrupt: it does not hold a JSON object", str(f))
        rec.setdefault("cell", int(c))
        rec.setdefault("label", str(cells.loc[cells["cell"] == c, "label"].iloc[0]))
        records.append(rec)
    res = Results(p, manifest, cells, records)
    # every interval at the study's level (the saved table has it already unless it predates `conf`)
    cells["win_lo"], cells["win_hi"] = stats.wilson_arrays(cells["wins"].to_numpy(), cells["games"].to_numpy(),
                                                           res.conf)
    return res


# ------------------------------------------------------------------------------------ figures


@dataclass
class ReportFigure:
    """One planned figure: file name, heading, caption and how to draw it."""

    name: str
    heading: str
    caption: str
    make: Callable[[], Figure]
    #: how the study was made, drawn at the figure's foot (``figures.made_footer``; empty: none)
    footer: str = ""

    def figure(self) -> Figure:
        """The figure, with its footer."""
        fig = self.make()
        if self.footer:
            F.made_footer(fig, self.footer)
        return fig


def _target(res: Results, target: float | None) -> float | None:
    if target is None:
        rep = res.manifest.get("report")
        rep = rep if isinstance(rep, dict) else {}
        for key in ("target", "target_win_rate"):
            v = rep.get(key, res.manifest.get(key))
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                target = float(v)
                break
    if target is None or not math.isfinite(target):
        return None
    if 1.0 < target <= 100.0:  # given in percent
        target /= 100.0
    return target if 0.0 <= target <= 1.0 else None


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", s).strip("_").lower() or "x"


def _color_key(res: Results) -> tuple[str | None, list[str]]:
    """(the swept key that sets the colour of a cell's line, the other varying keys)."""
    cells, varying = res.cells, res.varying
    cat = [k for k in varying if not F.is_numeric(cells[k])]
    color_key = cat[0] if cat else (varying[0] if varying else None)
    return color_key, [k for k in varying if k != color_key]


def _facets(res: Results) -> tuple[list[str] | None, str | None, list[str]]:
    """(panel name per cell, the key the panels split, line label per cell) of the per-cell line figures.

    Up to :data:`figures.MAX_LINES` cells share one panel. With more and two swept keys, one panel
    per value of the key that does not set the colour (e.g. one per policy, a line per hero), each
    line labelled by the colour key; otherwise the figures split the cells in order. Every cell is drawn.
    """
    labels = list(res.cells["label"])
    color_key, rest = _color_key(res)
    if len(res.cells) <= F.MAX_LINES or color_key is None or len(rest) != 1:
        return None, None, labels
    facet = rest[0]
    c = res.cells
    panels = [f"{facet} = {F.fmt_value(v)}" for v in c[facet]]
    short = [", ".join(f"{k}={F.fmt_value(r[k])}" for k in res.varying if k != facet) for _, r in c.iterrows()]
    return panels, facet, short


def _cell_styles(res: Results, faceted: bool = False) -> tuple[list[Any], list[str]]:
    """Colour and line style per cell, so a hero (or policy) keeps its colour in every figure.

    Colour by the first categorical swept key (else the first swept key); a second swept key sets
    the line style (up to 4 values) or the shade (light = low value), unless ``faceted`` (the panels
    show it). With more swept keys every cell gets its own palette colour.
    """
    from matplotlib.colors import to_rgb

    cells = res.cells
    n = len(cells)
    color_key, rest = _color_key(res)
    if color_key is None or len(rest) > 1:
        palette = F.category_colors([f"cell {i}" for i in range(n)])
        return [palette[f"cell {i}"] for i in range(n)], ["-"] * n
    values = F.ordered_values(cells[color_key])
    if F.is_numeric(cells[color_key]) and len(values) > 2:
        from matplotlib import colormaps

        cmap = colormaps["viridis"]
        by_value = {F.fmt_value(v): to_rgb(cmap(0.85 * i / (len(values) - 1))) for i, v in enumerate(values)}
    else:
        by_value = {k: to_rgb(v) for k, v in F.category_colors(values).items()}
    colors: list[Any] = [by_value[F.fmt_value(v)] for v in cells[color_key]]
    styles = ["-"] * n
    if rest and not faceted:
        second = rest[0]
        svals = [F.fmt_value(v) for v in F.ordered_values(cells[second])]
        rank = [svals.index(F.fmt_value(v)) for v in cells[second]]
        if len(svals) <= len(_LINESTYLES):
            styles = [_LINESTYLES[r] for r in rank]
        else:  # lighter for low values, full colour for the highest
            colors = [tuple(1 - (1 - ch) * (0.35 + 0.65 * r / (len(svals) - 1)) for ch in col)
                      for col, r in zip(colors, rank)]
    return colors, styles


def _plan(res: Results, target: float | None) -> list[ReportFigure]:
    won = _with_victory(res)  # (no win-rate figure for the cells of a variant with no victory)
    plan = (_win_plan(won, target) if won is not None else []) + _other_plan(res)
    note = figure_note(res)
    for p in plan:
        p.footer = note
    return plan


def _win_plan(res: Results, target: float | None) -> list[ReportFigure]:
    """The win-rate figures (of the cells that have a victory)."""
    cells = res.cells
    varying = res.varying
    numeric = [k for k in varying if F.is_numeric(cells[k])]
    categorical = [k for k in varying if k not in numeric]
    plan: list[ReportFigure] = []
    tgt = f" The dashed line is the target win rate of {target * 100:g} %." if target is not None else ""
    conf, wins = res.conf, res.wins
    lvl = _lvl(conf)
    pooled_note = (" Pooled points (cells that differ only in other swept settings) have intervals computed per "
                   "game index, because those cells share their dice." if res.paired else
                   " Pooled points (cells that differ only in other swept settings) show a wide bound valid "
                   "whatever the shared dice do (these results lack per-game wins).")
    no_overlap = (" Intervals describe each point on its own; whether two differ is decided by the "
                  + ("paired, " if res.paired else "") + "multiplicity-adjusted tests under Key findings, not by "
                  "whether intervals overlap.")
    if numeric:
        hue = categorical[0] if categorical else None
        for k in numeric[:4]:
            plan.append(ReportFigure(
                f"win_rate_vs_{_slug(k)}.png", f"Win rate by {k}",
                f"Win rate (%) against {k}" + (f", one line per {hue}" if hue else "")
                + f"; the shaded band is the {lvl} interval." + no_overlap + pooled_note + tgt,
                lambda k=k, hue=hue: F.win_rate_vs(cells, k, hue, target, conf=conf, wins=wins)))
    elif len(categorical) in (1, 2) or (categorical and len(cells) > 40):
        by = categorical[0]
        hue = categorical[1] if len(categorical) > 1 else None
        plan.append(ReportFigure(
            f"difficulty_{_slug(by)}.png", f"Win rate by {by}" + (f" and {hue}" if hue else ""),
            f"One bar per {by}" + (f", grouped by {hue}" if hue else "")
            + f"; whiskers are {lvl} intervals." + no_overlap
            + (pooled_note if len(cells) > len(F.ordered_values(cells[by])) * (
                len(F.ordered_values(cells[hue])) if hue else 1) else "") + tgt,
            lambda: F.difficulty_bars(cells, by, hue, target, conf=conf, wins=wins)))
    else:
        order = cells.sort_values(["win_rate", "cell"], ascending=[False, True], kind="stable")
        ow = [wins[i] for i in order.index]
        plan.append(ReportFigure(
            "difficulty_cells.png", "Win rate of every cell",
            f"One bar per cell, easiest first; whiskers are {lvl} intervals." + no_overlap + tgt,
            lambda: F.difficulty_bars(order, "label", None, target, conf=conf, wins=ow)))
    return plan


def _other_plan(res: Results) -> list[ReportFigure]:
    """The figures of every cell (survival, the game's own, the board's)."""
    cells = res.cells
    plan: list[ReportFigure] = []
    panels, facet, labels = _facets(res)
    colors, styles = _cell_styles(res, faceted=panels is not None)
    cj = res.cell_jsons
    spec = res.spec
    outputs = spec.outputs if spec is not None else None
    every = (f" One panel per {facet}, every cell drawn." if facet else
             f" The {len(cells)} cells are split into panels of at most {F.MAX_LINES}, every cell drawn."
             if len(cells) > F.MAX_LINES else "")

    def lines(fn: Callable[..., Figure], **kw: Any) -> Callable[[], Figure]:
        return lambda: fn(cj, labels, colors=colors, linestyles=styles, panels=panels, facet=facet, **kw)

    figures = dict(outputs.figures) if outputs is not None else {}
    if "survival_by_round" in figures:
        plan.append(ReportFigure(
            "survival_by_round.png", "Survival by round",
            "Share of games in which the hero has not died yet at the start of each round and at the end of the "
            "game. A steep drop marks a deadly round." + every,
            lines(F.survival_by_round, key=figures["survival_by_round"])))
    if "survival_by_turn" in figures:
        plan.append(ReportFigure(
            "survival_by_turn.png", "Survival by turn",
            "Share of games in which the hero has not died yet after each turn." + every,
            lines(F.survival_by_turn, key=figures["survival_by_turn"])))
    for col in (c for c in (outputs.columns if outputs is not None else ()) if c.distribution):
        what = col.label[0].lower() + col.label[1:]
        plan.append(ReportFigure(
            f"distribution_{_slug(col.name)}.png", f"Distribution of the {what}",
            f"Left: share of games per value of the {what}; right: share of games at or below each value "
            "(curves further right mean higher values)." + every,
            lines(F.distributions, key=col.name, outputs=outputs)))

    if res.has_board_cells and spec is not None and spec.board is not None:
        plan.extend(_heat_plan(res, spec.board))
    return plan


def figure_note(res: Results) -> str:
    """The footer of the study's figures (``provenance.figure_note``): game, fixed settings, policy, seed, games per
    cell, version and commit, from the manifest."""
    from .provenance import figure_note as note

    m = res.manifest
    fixed = m.get("fixed") if isinstance(m.get("fixed"), dict) else {}
    return note(str(m.get("game", "?")), fixed=fixed, seed=m.get("seed", "?"),
                games=f"{_games_per_cell(res)} games per cell", swept=res.swept or list(m.get("swept") or []),
                made={"version": m.get("package_version", "?"), "git_commit": m.get("git_commit")})


def _heat_plan(res: Results, board: Any) -> list[ReportFigure]:
    cells = res.cells
    maps: dict[str, Any] = {}

    def map_of(cj: dict[str, Any]) -> Any:
        key = str((cj.get("board_cells") or {}).get("map") or "")
        if key not in maps:
            maps[key] = F.resolve_cell_map(key or None, board)
        return maps[key]

    games = cells["games"].to_numpy()
    roles: list[tuple[int, str]] = []
    if games.max() > games.min():
        roles.append((int(np.argmax(games)), "the cell with the most games"))
    else:
        roles.append((0, "the first cell"))
    if len(cells) > 1:
        rate = cells["win_rate"].to_numpy(float)
        k, n = cells["wins"].to_numpy(), cells["games"].to_numpy()
        # never / always won, or only a handful of games: not "hardest" or "easiest" (see _findings)
        floor = at_floor(k, n)
        if (~floor).sum() >= 2:
            rate = np.where(floor, np.nan, rate)
            both = f"with at least {FEW_GAMES} wins and {FEW_GAMES} losses"
            hard, easy = f"the hardest cell {both}", f"the easiest cell {both}"
        else:
            rate = np.where((k == 0) | (k == n), np.nan, rate)
            hard, easy = "the hardest cell that ever wins", "the easiest cell that ever loses"
        if np.isfinite(rate).sum() >= 2:
            roles.append((int(np.nanargmin(rate)), hard))
            roles.append((int(np.nanargmax(rate)), easy))
    seen: dict[int, list[str]] = {}
    for i, role in roles:
        seen.setdefault(i, []).append(role)
    plan = []
    for i, rs in seen.items():
        cj = res.cell_jsons[i]
        if not isinstance(cj.get("board_cells"), dict):
            continue
        who = f"{' and '.join(rs)} ({cells['label'].iloc[i]})"
        cid = int(cells["cell"].iloc[i])
        for kind, head, cap in (
            ("deaths", "Where heroes die", "first deaths per 1000 games in each room"),
            ("visits", "Where heroes go", "visits per game of each room"),
        ):
            plan.append(ReportFigure(
                f"heat_{kind}_cell{cid:04d}.png", f"{head}: {who}",
                f"The map with the {cap} for {who}; darker is more.",
                lambda cj=cj, kind=kind: F.heat_map(cj, kind, map_data=map_of(cj), board=board)))
    return plan


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=F.DPI)
    return buf.getvalue()


# ------------------------------------------------------------------------------------ findings


def _pct(x: float) -> str:
    """A rate in percent; a rate that is not exactly 0 or 1 never prints as "0.00 %" or "100.0 %"."""
    if x is None or not math.isfinite(float(x)):
        return "n/a"
    x = 100.0 * float(x)
    if 0 < x < 0.005:  # 1 win in 40,000 is 0.0025 %, not 0.00 %
        return f"{x:.2g} %"
    if 99.95 <= x < 100:  # 1 loss in 40,000 is 99.998 %, not 100.0 %
        d = 2
        while round(x, d) >= 100 and d < 9:
            d += 1
        return f"{x:.{d}f} %"
    return f"{x:.1f} %" if abs(x) >= 1 or x == 0 else f"{x:.2f} %"


#: A cell with fewer wins (or fewer losses) than this is at the floor (ceiling) of the scale: its rate
#: rests on a handful of lucky (unlucky) games and says "(almost) never wins", not how hard it is.
#: The usual rule of thumb for a rate estimate (at least 10 of each outcome).
FEW_GAMES = 10


def at_floor(wins: Any, games: Any) -> np.ndarray:
    """True where a cell never wins, always wins, or wins (loses) fewer than :data:`FEW_GAMES` games."""
    k = np.asarray(wins, dtype=np.int64)
    n = np.asarray(games, dtype=np.int64)
    return (k < FEW_GAMES) | (n - k < FEW_GAMES)


def _count(k: int, n: int) -> str:
    """"1 of 40,000 games" (the honest form of a rate near 0 or 1)."""
    return f"{int(k):,} of {int(n):,} games"


def _ci(lo: float, hi: float) -> str:
    d = 2 if hi < 0.01 else 1
    return f"{100 * lo:.{d}f}–{100 * hi:.{d}f} %"


def _rate_bracket(lo: Any, hi: Any) -> str:
    """`` [86.8, 87.4]``: a rate's interval in percent after its value in a table cell ("" when there is none)."""
    if not isinstance(lo, (int, float)) or not isinstance(hi, (int, float)) or not (
            math.isfinite(lo) and math.isfinite(hi)):
        return ""
    d = 2 if hi < 0.01 else 1
    return f" [{100 * lo:.{d}f}, {100 * hi:.{d}f}]"


def _lvl(conf: float) -> str:
    return f"{100 * float(conf):g} %"


def _rate_text(row: Any, conf: float = 0.95) -> str:
    return f"{_pct(row['win_rate'])} ({_lvl(conf)} interval {_ci(row['win_lo'], row['win_hi'])})"


def _bounds(lo: Any, hi: Any) -> str:
    """`` [lo, hi]`` in percent (as ``_pct`` writes a rate), or "" when either bound is missing or not finite."""
    if lo is None or hi is None or not (math.isfinite(float(lo)) and math.isfinite(float(hi))):
        return ""
    return f" [{_pct(lo)[:-2]}, {_pct(hi)[:-2]}]"


def _pooled_interval(row: Any) -> str:
    """A pooled win rate's interval (``figures.pool``'s ``win_lo``/``win_hi``), or ""."""
    return _bounds(row.get("win_lo"), row.get("win_hi"))


def _rate_or_count(row: Any) -> str:
    """A (pooled) win rate with its interval, and its count when the rate is at the floor or ceiling ("0.0010 %
    [0.00024, 0.0036], 2 of 200,000 games: practically never wins")."""
    k, n = int(row["wins"]), int(row["games"])
    text = _pct(row["win_rate"]) + _pooled_interval(row)
    if n and bool(at_floor(k, n)):
        mean = ("never wins" if k == 0 else "always wins" if k == n else
                "practically never wins" if k < FEW_GAMES else "practically always wins")
        text += f", {_count(k, n)} won: {mean}"
    return text


def _names(labels: list[str], limit: int = 6) -> str:
    shown = [f"`{x}`" for x in labels[:limit]]
    more = len(labels) - limit
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _p(p: float) -> str:
    """"p = 0.031" or "p < 0.0001" (Holm-adjusted p-values are written "Holm-adjusted " + this)."""
    return "p n/a" if not math.isfinite(p) else (f"p = {p:.2g}" if p >= 1e-4 else "p < 0.0001")


@dataclass
class Differences:
    """Every pairwise test between the rows of ``res.cells`` (one family), with its adjustments.

    ``paired``: exact McNemar tests on the shared games (per-game wins saved); otherwise the
    correlation-free bound test of :func:`foury_sim.stats.pairwise_rate_tests`. ``p_holm`` controls
    the chance of any false "differs" (family-wise); ``p_bh`` the false-discovery rate of a list.
    """

    conf: float
    paired: bool
    games: int  # games per pair (the common prefix when cells played different numbers)
    i: np.ndarray
    j: np.ndarray
    p: np.ndarray
    p_holm: np.ndarray
    p_bh: np.ndarray
    degenerate: list[int]  # rows whose rate is exactly 0 or 1
    k: np.ndarray | None = None  # wins of each row
    n: np.ndarray | None = None  # games of each row

    @property
    def alpha(self) -> float:
        return 1.0 - self.conf

    def apart(self, a: int, b: int) -> bool:
        """True when rows a and b differ clearly: Holm-adjusted p below ``1 - conf``.

        Never for a row with itself, for two rows that both never win (or both always win), nor for two
        rows with the same wins of the same games, whatever a test says: identical results are not apart.
        """
        if a == b:
            return False
        if self.k is not None and self.n is not None:
            ka, kb, na, nb = int(self.k[a]), int(self.k[b]), int(self.n[a]), int(self.n[b])
            if (ka == 0 and kb == 0) or (ka == na and kb == nb) or (ka == kb and na == nb):
                return False
        p = self.holm(a, b)
        return bool(math.isfinite(p) and p < self.alpha)

    def holm(self, a: int, b: int) -> float:
        """Holm-adjusted p of rows a and b (1.0 for a row with itself)."""
        if a == b:
            return 1.0
        a, b = min(a, b), max(a, b)
        k = np.flatnonzero((self.i == a) & (self.j == b))
        return float(self.p_holm[k[0]]) if k.size else math.nan

    @property
    def n_pairs(self) -> int:
        return int(self.p.size)

    @property
    def method(self) -> str:
        if self.paired:
            return (f"exact McNemar tests on the {self.games:,} games every cell played with the same dice")
        return ("tests that assume nothing about the shared dice (standard error = sum of the two cells'; "
                "these results were saved without per-game wins, rerun the sweep for sharper paired tests)")


def cell_differences(res: Results) -> Differences:
    """Pairwise tests between all cells of a study, adjusted over the family of all pairs."""
    c = res.cells
    k = c["wins"].to_numpy(int)
    n = c["games"].to_numpy(int)
    wins = res.wins
    if res.paired and len(c) > 1:
        g = int(min(len(w) for w in wins if w is not None))
        t = stats.pairwise_rate_tests(np.vstack([w[:g] for w in wins if w is not None]))
        paired = True
    else:
        g = int(n.min()) if len(n) else 0
        t = stats.pairwise_rate_tests(k=k, n=n, conf=res.conf)
        paired = False
    degenerate = [int(x) for x in np.flatnonzero((k == 0) | (k == n))]
    return Differences(res.conf, paired, g, t["i"], t["j"], t["p"], stats.adjust_pvalues(t["p"], "holm"),
                       stats.adjust_pvalues(t["p"], "fdr_bh"), degenerate, k, n)


def _marginal_tests(res: Results, keys: list[str]) -> dict[tuple[str, str, str], float]:
    """Holm-adjusted p for every pair of values of every key (one family), pooled over the other settings.

    Paired (per-game wins saved, equal games): paired t test on the per-game-index difference of the
    two values' mean wins. Otherwise a normal test whose standard error is the sum of the two pooled
    values' (from their correlation-free bound intervals).
    """
    c = res.cells
    wins = res.wins
    same_n = res.paired and len({len(w) for w in wins if w is not None}) == 1
    names: list[tuple[str, str, str]] = []
    pvals: list[float] = []
    z = stats.z_value(res.conf)
    for key in keys:
        vals = F.ordered_values(c[key])
        rows = {F.fmt_value(v): np.flatnonzero(c[key].map(F.fmt_value).to_numpy() == F.fmt_value(v)) for v in vals}
        pooled = F.pool(c, [key], conf=res.conf, wins=wins).set_index(key)
        pooled.index = [F.fmt_value(v) for v in pooled.index]
        names_v = list(rows)
        for a_i in range(len(names_v)):
            for b_i in range(a_i + 1, len(names_v)):
                va, vb = names_v[a_i], names_v[b_i]
                if same_n:
                    ya = np.mean([wins[r] for r in rows[va]], axis=0)
                    yb = np.mean([wins[r] for r in rows[vb]], axis=0)
                    p = float(stats.paired_mean_diff(ya, yb, res.conf)["p_value"])
                    if not math.isfinite(p):
                        p = 1.0
                else:
                    ra, rb = pooled.loc[va], pooled.loc[vb]
                    se = (ra["win_hi"] - ra["win_lo"] + rb["win_hi"] - rb["win_lo"]) / (2 * z)
                    d = abs(float(rb["win_rate"]) - float(ra["win_rate"]))
                    p = 1.0 if d == 0 else (0.0 if se <= 0 else 2 * float(stats._sps().norm.sf(d / se)))
                names.append((key, va, vb))
                pvals.append(p)
    adj = stats.adjust_pvalues(np.array(pvals), "holm") if pvals else np.array([])
    out: dict[tuple[str, str, str], float] = {}
    for (key, va, vb), q in zip(names, adj):
        out[(key, va, vb)] = float(q)
        out[(key, vb, va)] = float(q)
    return out


def _no_win_mask(cells: pd.DataFrame) -> np.ndarray:
    """True for the cells of a variant that has no victory (``GameSpec.no_win``: the ``no_win`` column says why)."""
    if "no_win" not in cells.columns:
        return np.zeros(len(cells), bool)
    return (cells["no_win"].fillna("").astype(str) != "").to_numpy()


def _with_victory(res: Results) -> Results | None:
    """``res`` without the cells that have no victory (their win rate is no figure to rank or draw); None if none
    is left."""
    mask = _no_win_mask(res.cells)
    if not mask.any():
        return res
    if mask.all():
        return None
    keep = ~mask
    return Results(res.path, res.manifest, res.cells[keep].reset_index(drop=True),
                   [cj for cj, k in zip(res.cell_jsons, keep) if k])


def _findings(res: Results, target: float | None, every: Results | None = None) -> list[str]:
    """The key findings on the win rates of ``res``'s cells, then the summaries' findings of ``every`` cell
    (default: ``res``'s)."""
    mask = _no_win_mask(res.cells)
    if mask.any():  # no win rate to state for them: say so, and find the rest among the cells that can win
        nowin = res.cells[mask]
        out = [f"No victory, so no win rate: {_names(list(nowin['label']))} ({'; '.join(sorted(set(nowin['no_win'])))}"
               "); left out of the win-rate findings and figures, listed last in the table."]
        rest = _with_victory(res)
        return out + (_findings(rest, target, res) if rest is not None else _summary_findings(res))
    c = res.cells
    conf = res.conf
    lvl = _lvl(conf)
    alpha = 1.0 - conf
    order = c.sort_values(["win_rate", "cell"], ascending=[False, True], kind="stable")
    pos = list(order.index)  # row positions of c, easiest first
    out: list[str] = []
    lab = {i: str(x) for i, x in zip(c.index, c["label"])}  # a row's label (``c.loc`` per cell is slow)
    d = cell_differences(res) if len(c) > 1 else None
    if d is None:
        r = c.iloc[0]
        out.append(f"`{r['label']}` wins {_rate_text(r, conf)} of {int(r['games']):,} games.")
    else:
        degen = set(d.degenerate)
        k_all, n_all = c["wins"].to_numpy(int), c["games"].to_numpy(int)
        floor = at_floor(k_all, n_all)
        never = [lab[i] for i in pos if i in degen and k_all[i] == 0]
        always = [lab[i] for i in pos if i in degen and k_all[i] > 0]
        few_w = [i for i in pos if floor[i] and i not in degen and k_all[i] < FEW_GAMES]
        few_l = [i for i in pos if floor[i] and i not in degen and k_all[i] >= FEW_GAMES]
        ok = [i for i in pos if not floor[i]]
        few_ranked = len(ok) < 2  # too few cells clear of the floor: rank every cell that wins and loses
        if few_ranked:
            ok = [i for i in pos if i not in degen]
        if never:
            out.append(f"Never won in any of their games: {_names(never)} (a setting or policy that cannot win, or "
                       "needs far more games; left out of the easiest/hardest comparison below).")
        if always:
            out.append(f"Won every game: {_names(always)} (left out of the easiest/hardest comparison below).")
        for rows_, what, mean in ((few_w, "Won", "practically never win"), (few_l, "Lost", "practically always win")):
            if rows_:
                counts = [(k_all[i] if what == "Won" else n_all[i] - k_all[i], n_all[i]) for i in rows_]
                listed = ", ".join(f"`{c.loc[i, 'label']}` ({what.lower()} {_count(*kn)})"
                                   for i, kn in zip(rows_[:6], counts)) + (
                    f" and {len(rows_) - 6} more" if len(rows_) > 6 else "")
                out.append(f"{what} fewer than {FEW_GAMES} games: {listed}. They {mean}; a rate resting on a handful "
                           "of games does not say how hard a cell is, so they are "
                           + ("ranked below all the same (fewer than two cells win and lose at least "
                              f"{FEW_GAMES} games)." if few_ranked else "left out of the easiest/hardest comparison "
                              "below."))
        if len(ok) >= 2:
            e, h = ok[0], ok[-1]
            re_, rh = c.loc[e], c.loc[h]
            among = ""
            if len(ok) < len(c):
                among = (f" (of the {len(ok)} cells that win and lose at least once)" if few_ranked else
                         f" (of the {len(ok)} cells that win and lose at least {FEW_GAMES} games)")
            out.append(f"Easiest{among}: `{re_['label']}` wins {_rate_text(re_, conf)}. Hardest: `{rh['label']}` "
                       f"wins {_rate_text(rh, conf)}.")
            gap = 100 * (re_["win_rate"] - rh["win_rate"])
            ph = d.holm(e, h)
            if d.apart(e, h):
                out.append(f"The gap between easiest and hardest ({gap:.1f} percentage points) is clear: "
                           f"Holm-adjusted {_p(ph)} over all {d.n_pairs} pairs of cells.")
            else:
                out.append(f"No clear gap between easiest and hardest: the {gap:.1f} percentage-point difference is "
                           f"within the simulation's uncertainty once all {d.n_pairs} pairs of cells are accounted "
                           f"for (Holm-adjusted {_p(ph)}); run more games to separate them.")
            tied_e = [lab[i] for i in ok[1:] if not d.apart(i, e)]
            tied_h = [lab[i] for i in ok[:-1] if not d.apart(i, h) and
                      lab[i] not in tied_e]
            if tied_e and len(ok) > 2:
                out.append(f"Not clearly harder than the easiest cell: {_names(tied_e)}.")
            if tied_h and len(ok) > 2:
                out.append(f"Not clearly easier than the hardest cell: {_names(tied_h)}.")
        elif len(ok) == 1:
            r = c.loc[ok[0]]
            out.append(f"The only cell that both wins and loses: `{r['label']}`, {_rate_text(r, conf)}.")
        else:
            out.append("No cell both wins and loses: there is no easiest or hardest cell to name.")
        found = int(np.count_nonzero(d.p_bh < alpha))
        if found:
            out.append(f"{found} of {d.n_pairs} pairs of cells differ (Benjamini–Hochberg, false discovery rate "
                       f"{100 * alpha:g} %), by {d.method}.")
        else:
            out.append(f"No pair of the {d.n_pairs} pairs of cells differs clearly (Benjamini–Hochberg, false "
                       f"discovery rate {100 * alpha:g} %), by {d.method}.")
        out.append(f"Each cell's {lvl} interval describes that cell alone: overlapping or separate intervals are "
                   "not the test; the tests above are (and they account for the number of comparisons).")
    varying = res.varying
    if len(c) > 1 and varying:
        single = all(c[k].map(F.fmt_value).value_counts().max() == 1 for k in varying)
        mt = {} if single else _marginal_tests(res, varying)
        for key in varying:
            p = F.pool(c, [key], conf=conf, wins=res.wins)
            vals = F.ordered_values(c[key])
            by_shown = dict(zip(p[key].map(F.fmt_value), p.to_dict("records"), strict=True))
            rates = [by_shown[F.fmt_value(v)] for v in vals]
            pooled = len(varying) > 1
            how = ("paired over the shared games" if res.paired else
                   "tested with a bound that assumes nothing about the shared dice")
            head = f"By `{key}`" + (f" (pooled over the other swept settings; {how})" if pooled else "")
            parts = ", ".join(f"{F.fmt_value(v)}: {_pct(r['win_rate'])}{_pooled_interval(r)}"
                              for v, r in zip(vals, rates))
            iv = {"paired": "per game index over the pooled cells", "bound": "a wide bound over the pooled cells",
                  "wilson": "Wilson"}
            kinds = sorted({iv.get(str(r.get("interval")), str(r.get("interval"))) for r in rates})
            parts += f" ({lvl} intervals: {', '.join(kinds)})"
            hi_i = max(range(len(rates)), key=lambda i: rates[i]["win_rate"])
            lo_i = min(range(len(rates)), key=lambda i: rates[i]["win_rate"])
            hi_r, lo_r = rates[hi_i], rates[lo_i]
            if hi_r["win_rate"] == lo_r["win_rate"]:  # a tie: nothing is highest, nothing differs
                same = ("no value ever wins a game" if hi_r["win_rate"] == 0 else
                        "every value wins every game" if hi_r["win_rate"] == 1 else
                        f"every value has the same estimated win rate, {_pct(hi_r['win_rate'])}")
                out.append(f"{head}: {same} (no difference to test). Values: {parts}.")
                continue
            if single and d is not None:
                shown = c[key].map(F.fmt_value).to_numpy()
                rows = {F.fmt_value(v): int(np.flatnonzero(shown == F.fmt_value(v))[0]) for v in vals}
                a, b = rows[F.fmt_value(vals[hi_i])], rows[F.fmt_value(vals[lo_i])]
                q, apart = d.holm(a, b), d.apart(a, b)
            else:
                q = mt.get((key, F.fmt_value(vals[hi_i]), F.fmt_value(vals[lo_i])), 1.0)
                apart = bool(math.isfinite(q) and q < alpha)
            clear = (f"clearly different, Holm-adjusted {_p(q)}" if apart
                     else f"no clear difference, Holm-adjusted {_p(q)}")
            hi_t, lo_t = _rate_or_count(hi_r), _rate_or_count(lo_r)
            if F.is_numeric(c[key]) and len(rates) > 2:
                dd = np.diff([r["win_rate"] for r in rates])
                if (dd >= 0).all():
                    trend = f"the estimated win rate rises with {key}"
                elif (dd <= 0).all():
                    trend = f"the estimated win rate falls as {key} grows"
                else:
                    trend = "the estimated win rate does not move steadily in one direction"
                trend += (f" ({_pct(rates[0]['win_rate'])} at {F.fmt_value(vals[0])}, {_pct(rates[-1]['win_rate'])} "
                          f"at {F.fmt_value(vals[-1])})")
                out.append(f"{head}: {trend}; highest {hi_t}, lowest {lo_t} ({clear}). Values: {parts}.")
            else:
                out.append(f"{head}: highest at {F.fmt_value(vals[hi_i])} ({hi_t}), lowest at "
                           f"{F.fmt_value(vals[lo_i])} ({lo_t}; {clear}). Values: {parts}.")
    s = c.loc[pos].reset_index(drop=True)
    if target is not None:
        on = [r["label"] for _, r in s.iterrows() if r["win_lo"] <= target <= r["win_hi"]]
        if on:
            out.append(f"On the {100 * target:g} % target (its {lvl} interval contains it): {_names(on)}.")
        else:
            k = int((s["win_rate"] - target).abs().to_numpy().argmin())
            r = s.iloc[k]
            out.append(f"No cell's {lvl} interval contains the {100 * target:g} % target; closest: `{r['label']}` at "
                       f"{_pct(r['win_rate'])}.")
    width = (s["win_hi"] - s["win_lo"]).to_numpy(float)
    if len(width):
        k = int(np.nanargmax(width))
        half = 50 * width[k]
        msg = f"The widest {lvl} interval is about ±{half:.1f} percentage points (`{s['label'].iloc[k]}`)"
        out.append(msg + (": add games to tell close cells apart." if half > 2.5 else "."))
    out.extend(_summary_findings(every if every is not None else res))
    return out


def _interval(summary: dict[str, Any], key: str) -> str:
    """`` [lo, hi]`` in percent: a cell's interval of a share (``share_intervals``), or "" (a cell before them)."""
    iv = (summary.get("share_intervals") or {}).get(key)
    return _bounds(*iv) if isinstance(iv, list) and len(iv) == 2 else ""


def _pooled_shares(cells: list[dict[str, Any]], conf: float, top: int = 3) -> str:
    """``stuck 51 % [50, 52], ...``: the labels most common over the cells (``{label: games}`` of each cell: e.g. its
    first deaths by cause), each as the mean of the cells' shares of what they count (a share of first deaths, as
    the finding names them) with the mean of their Wilson bounds (``figures.pool``'s "bound": valid whatever the
    cells' dice have in common)."""
    labels = sorted({str(k) for c in cells for k in c})
    k = np.array([[int(c.get(lb, 0)) if isinstance(c.get(lb, 0), (int, float)) else 0 for lb in labels]
                  for c in cells], dtype=np.int64)
    n = k.sum(axis=1)
    lo, hi = stats.wilson_arrays(k, n[:, None], conf)
    share, lo, hi = (k / n[:, None]).mean(axis=0), lo.mean(axis=0), hi.mean(axis=0)
    order = sorted(range(len(labels)), key=lambda j: (-share[j], labels[j]))[:top]
    return ", ".join(f"{labels[j]} {100 * share[j]:.0f} % [{100 * lo[j]:.0f}, {100 * hi[j]:.0f}]" for j in order)


def _mean_interval(cells: Any, name: str, row: int) -> str:
    """`` [lo, hi]``: a cell's t interval of a column's mean (the cells table's ``NAME_lo``/``NAME_hi``), or ""."""
    lo, hi = f"{name}_lo", f"{name}_hi"
    if lo in cells and hi in cells and math.isfinite(float(cells[lo].iloc[row])):
        return f" [{float(cells[lo].iloc[row]):.1f}, {float(cells[hi].iloc[row]):.1f}]"
    return ""


def _summary_findings(res: Results) -> list[str]:
    """Findings from the game's declared summary entries (``SummaryKey.finding``) and the ranges of the
    means of its distribution columns."""
    from .outputs import COUNTS, SHARE

    out: list[str] = []
    spec = res.spec
    if spec is None:
        return out
    level = f"{100 * res.conf:g} %"
    for sk in (k for k in spec.outputs.summary_keys if k.finding):
        if sk.kind == COUNTS:
            cells = [c for cj in res.cell_jsons if isinstance(c := (cj.get("summary") or {}).get(sk.key), dict)
                     and sum(v for v in c.values() if isinstance(v, (int, float))) > 0]
            if cells:
                out.append(f"{sk.finding}: {_pooled_shares(cells, res.conf)} ({level}; shares of what each cell "
                           "counts, e.g. its first deaths, meaned over the cells, each with a wide bound that holds "
                           "whatever dice the cells share).")
        elif sk.kind == SHARE:
            vals = [(float(v), str(cj.get("label", "")), _interval((cj.get("summary") or {}), sk.key))
                    for cj in res.cell_jsons if isinstance(v := (cj.get("summary") or {}).get(sk.key), (int, float))]
            if len(vals) > 1 and min(vals)[0] == max(vals)[0]:  # a tie: no cell is lowest or highest
                out.append(f"{sk.finding} {_pct(vals[0][0])} of games in every cell.")
            elif len(vals) > 1:
                lo, hi = min(vals), max(vals)
                out.append(f"{sk.finding} {_pct(lo[0])}{lo[2]} (`{lo[1]}`) to {_pct(hi[0])}{hi[2]} (`{hi[1]}`) of "
                           "games" + (f" ({level} intervals, each for its cell alone)." if lo[2] and hi[2] else "."))
            elif vals:
                out.append(f"{sk.finding} {_pct(vals[0][0])}{vals[0][2]} of games"
                           + (f" ({level} interval)." if vals[0][2] else "."))
    c = res.cells
    for colspec in (x for x in spec.outputs.columns if x.distribution):
        col = f"{colspec.name}_mean"
        unit = f" {colspec.unit}" if colspec.unit else ""
        if col in c and c[col].notna().any() and len(c) > 1:
            i, j = int(c[col].to_numpy(float).argmin()), int(c[col].to_numpy(float).argmax())
            what = colspec.label[0].lower() + colspec.label[1:]
            if f"{c[col].iloc[i]:.1f}" == f"{c[col].iloc[j]:.1f}":  # equal as printed: name no extreme cell
                out.append(f"The mean {what} is {c[col].iloc[i]:.1f}{unit} in every cell (to one decimal).")
                continue
            ci_i, ci_j = (_mean_interval(c, colspec.name, r) for r in (i, j))
            out.append(f"The mean {what} ranges from {c[col].iloc[i]:.1f}{ci_i}{unit} (`{c['label'].iloc[i]}`)"
                       f" to {c[col].iloc[j]:.1f}{ci_j}{unit} (`{c['label'].iloc[j]}`)"
                       + (f" ({level} intervals, each for its cell alone)." if ci_i and ci_j else "."))
    return out


# ---------------------------------------------------------------------------------- documents

def _table_columns(res: Results) -> list[tuple[str, str, str]]:
    """(source, key, heading) of the game's columns of the cells table, from its output declaration:
    ``summary`` entries with a report heading (a share per cell), the other rates, the means."""
    from .outputs import MEAN, RATE, SHARE

    spec = res.spec
    if spec is None:  # a game not registered here: every mean the table has
        return [("cells", col, f"{col[:-5].replace('_', ' ').capitalize()} (mean)")
                for col in res.cells.columns if col.endswith("_mean")]
    o = spec.outputs
    c = res.cells
    out = [("summary", k.key, k.report) for k in o.summary_keys if k.report and k.kind == SHARE
           and any(isinstance((cj.get("summary") or {}).get(k.key), (int, float)) for cj in res.cell_jsons)]
    out += [("cells", f"{col.summary_key}_rate", col.label) for col in o.of(RATE)
            if col.summary_key != "win" and f"{col.summary_key}_rate" in c]
    out += [("cells", f"{col.name}_mean", f"{col.label} (mean)") for col in o.of(MEAN)
            if col.report and f"{col.name}_mean" in c]
    return out


def _cells_table(res: Results) -> tuple[list[str], list[list[str]], list[str]]:
    c = res.cells
    nowin = _no_win_mask(c)
    s = c.assign(_nowin=nowin).sort_values(["_nowin", "win_rate", "cell"], ascending=[True, False, True],
                                           kind="stable")
    keys = res.swept
    cols = _table_columns(res)
    per_cell = {int(cj.get("cell", -1)): cj.get("summary") or {} for cj in res.cell_jsons}
    headers = ["Rank", "Cell"] + (keys or ["Settings"]) + ["Games", "Win rate", f"{_lvl(res.conf)} interval"]
    headers += [h for _, _, h in cols]
    aligns = ["r", "r"] + ["l"] * max(1, len(keys)) + ["r"] * (len(headers) - 2 - max(1, len(keys)))
    rows = []
    for rank, (_, r) in enumerate(s.iterrows(), 1):
        row = [str(rank) if not r["_nowin"] else "–", str(int(r["cell"]))]
        row += [F.fmt_value(r[k]) for k in keys] if keys else [str(r["label"])]
        row += [f"{int(r['games']):,}"] + (["none (no victory)", ""] if r["_nowin"] else
                                           [_pct(r["win_rate"]), _ci(r["win_lo"], r["win_hi"])])
        summ = per_cell.get(int(r["cell"]), {})
        for src, key, _ in cols:
            if src == "summary":  # a SHARE entry: its interval from the cell's ``share_intervals``
                v = summ.get(key)
                iv = (summ.get("share_intervals") or {}).get(key)
                row.append(_pct(v) + _rate_bracket(*(iv if isinstance(iv, (list, tuple)) and len(iv) == 2
                                                     else (None, None)))
                           if isinstance(v, (int, float)) else "")
            elif key.endswith("_rate"):  # a rate column: its Wilson interval from the cell's summary
                d = summ.get(key[:-5])
                row.append("" if pd.isna(r[key]) else _pct(r[key]) + (
                    _rate_bracket(d.get("lo"), d.get("hi")) if isinstance(d, dict) else ""))
            else:  # a mean: its t interval from the table
                base = key[:-5]
                lo, hi = r.get(f"{base}_lo"), r.get(f"{base}_hi")
                ok = lo is not None and hi is not None and not pd.isna(lo) and not pd.isna(hi)
                row.append("" if pd.isna(r[key]) else f"{float(r[key]):.2f}" + (
                    f" [{float(lo):.2f}, {float(hi):.2f}]" if ok else ""))
        rows.append(row)
    return headers, rows, aligns


def _games_per_cell(res: Results) -> str:
    """``400``, ``400 to 600``, with how an adaptive study chose them."""
    g = res.cells["games"]
    per = f"{int(g.iloc[0]):,}" if g.nunique() == 1 else f"{int(g.min()):,} to {int(g.max()):,}"
    prec = res.manifest.get("precision")
    if isinstance(prec, dict) and prec.get("width"):
        per += f" (adaptive: until the interval is at most {100 * float(prec['width']):g} points wide)"
    return per


def _meta(res: Results) -> list[str]:
    m, c = res.manifest, res.cells
    g = c["games"]
    per = _games_per_cell(res)
    items = [f"Game: `{m.get('game', '?')}`; seed {m.get('seed', '?')}; {len(c)} cells; games per cell: {per}; "
             f"{int(g.sum()):,} games in all."]
    fixed = m.get("fixed") or {}
    if isinstance(fixed, dict) and fixed:
        items.append("Fixed settings: " + ", ".join(f"`{k}={_show(v)}`" for k, v in fixed.items()) + ".")
    else:
        items.append("Fixed settings: none (the game's defaults).")
    swept = res.swept or list(m.get("swept") or [])
    if swept:
        parts = []
        for k in swept:
            vals = F.ordered_values(c[k]) if k in c else []
            parts.append(f"`{k}` ({', '.join(F.fmt_value(v) for v in vals)})")
        items.append("Swept: " + "; ".join(parts) + ". Every cell plays the same games on the same dice.")
    else:
        items.append("Swept: nothing (a single cell).")
    run = []
    if m.get("started"):
        run.append(f"started {m['started']}")
    if m.get("finished"):
        run.append(f"finished {m['finished']}")
    if isinstance(m.get("elapsed_s"), (int, float)):
        run.append(f"{m['elapsed_s']:.1f} s")
    ver = m.get("package_version")
    commit = m.get("git_commit")
    if ver or commit:
        run.append("foury-sim " + (str(ver) if ver else "") + (f" at commit `{str(commit)[:10]}`" if commit else ""))
    if run:
        items.append("Run: " + ", ".join(run) + ".")
    if isinstance(m.get("command"), str) and "`" not in m["command"]:  # (a manifest before it had no command)
        items.append(f"Reproduce: `{m['command']}`")
    return items


def _show(v: Any) -> str:
    return ",".join(str(x) for x in v) if isinstance(v, list) else F.fmt_value(v)


def _inline_html(text: str) -> str:
    t = html.escape(text)
    t = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", t)
    t = re.sub(r"(?<![\w*])\*([^*\s](?:[^*]*[^*\s])?)\*(?![\w*])", r"<em>\1</em>", t)  # *word*: italics
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", t)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #444;padding-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.9em;margin:1em 0}th,td{border:1px solid #ccc;padding:.25em .6em}
th{background:#f0f0f0;vertical-align:bottom}tr:nth-child(even) td{background:#fafafa}td.r,th.r{text-align:right}
td.r{white-space:nowrap;font-variant-numeric:tabular-nums}
code{background:#f3f3f3;padding:0 .25em;border-radius:3px}pre{background:#f6f6f6;padding:.8em;overflow:auto}
figure{margin:1.2em 0}figure img{max-width:100%;height:auto;border:1px solid #ddd}
figcaption{color:#444;font-size:.92em;margin-top:.4em}.desc{font-size:1.05em}
"""


def _documents(res: Results, written: list[tuple[ReportFigure, Path, bytes]], skipped: list[str],
               target: float | None) -> tuple[str, str]:
    """(Markdown, HTML) of the report."""
    md: list[str] = []
    ht: list[str] = []
    title = res.title
    md.append(f"# {title}\n")
    ht.append(f"<h1>{html.escape(title)}</h1>")
    desc = str(res.manifest.get("description") or "").strip()
    if desc:
        md.append(desc + "\n")
        ht.append(f'<p class="desc">{_inline_html(desc)}</p>')

    def bullets(items: list[str]) -> None:
        md.extend(f"- {x}" for x in items)
        md.append("")
        ht.append("<ul>" + "".join(f"<li>{_inline_html(x)}</li>" for x in items) + "</ul>")

    def heading(text: str, level: int = 2) -> None:
        md.append(f"{'#' * level} {text}\n")
        ht.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def para(text: str) -> None:
        md.append(text + "\n")
        ht.append(f"<p>{_inline_html(text)}</p>")

    heading("The study")
    bullets(_meta(res))
    recs = res.manifest.get("assumptions")
    if isinstance(recs, list) and recs:
        from .assumptions import markdown_items

        heading("Assumptions")
        para(f"The study rests on {len(recs)} values no rulebook prints (`foury-sim assumptions "
             f"{res.manifest.get('game', 'GAME')}` gives each one's range and reason; `foury-sim robust` tests "
             "conclusions against them):")
        bullets(markdown_items(recs))
    heading("Key findings")
    bullets(_findings(res, target))
    heading("Cells, easiest first")
    para(f"Win rates with {_lvl(res.conf)} Wilson intervals (each for its cell alone), sorted by win rate "
         "(highest first). The rank orders the estimates; it is not a claim that neighbouring cells differ. "
         f"The other rates and the means have their {_lvl(res.conf)} intervals in brackets (Wilson; Student t), "
         "where the saved results hold them.")
    headers, rows, aligns = _cells_table(res)
    md.append("| " + " | ".join(_md_cell(h) for h in headers) + " |")
    md.append("|" + "|".join("---:" if a == "r" else "---" for a in aligns) + "|")
    md.extend("| " + " | ".join(_md_cell(x) for x in row) + " |" for row in rows)
    md.append("")
    cls = [' class="r"' if a == "r" else "" for a in aligns]
    ht.append('<table class="cells"><thead><tr>' + "".join(f"<th{k}>{html.escape(h)}</th>" for h, k in
                                                          zip(headers, cls)) + "</tr></thead><tbody>")
    for row in rows:
        ht.append("<tr>" + "".join(f"<td{k}>{html.escape(x)}</td>" for x, k in zip(row, cls)) + "</tr>")
    ht.append("</tbody></table>")
    if written:
        heading("Figures")
        for spec, path, data in written:
            rel = f"figures/{path.name}"
            heading(spec.heading, 3)
            md.append(f"![{_md_cell(spec.heading)}]({rel})\n")
            md.append(f"*{spec.caption}*\n")
            b64 = base64.b64encode(data).decode("ascii")
            ht.append(f'<figure><img src="data:image/png;base64,{b64}" alt="{html.escape(spec.heading)}">'
                      f"<figcaption>{_inline_html(spec.caption)}</figcaption></figure>")
    if skipped:
        heading("Figures not drawn")
        bullets(skipped)
    text = str(res.manifest.get("experiment_text") or "").strip()
    if text:
        heading("Experiment file")
        fence = "~~~~" if "```" in text else "```"
        md.append(f"{fence}toml\n{text}\n{fence}\n")
        ht.append(f"<details><summary>Show the experiment file</summary><pre>{html.escape(text)}</pre></details>")
    md_text = "\n".join(md).rstrip() + "\n"
    html_text = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                 f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{html.escape(title)}"
                 f"</title><style>{_CSS}</style></head><body>\n" + "\n".join(ht) + "\n</body></html>\n")
    return md_text, html_text


# ------------------------------------------------------------------------------------ drawing

#: Environment variable: how many worker processes draw a report's figures beside this one (0: draw them here).
WORKERS_ENV = "FOURY_SIM_REPORT_WORKERS"
#: A worker process takes about 3 s to start (imports, then the results loaded) and a figure about 1 s to draw:
#: a worker is started for every this many figures beyond the first ones.
FIGURES_PER_WORKER = 3


def report_workers(n_figures: int, workers: int | None = None, threads: int | None = None) -> int:
    """How many worker processes draw ``n_figures`` beside this process.

    ``workers`` (or the environment's ``FOURY_SIM_REPORT_WORKERS``) is the answer if given; else one worker per
    :data:`FIGURES_PER_WORKER` figures beyond the first three, at most ``threads - 1`` (default: this process's
    CPUs).
    """
    if workers is None:
        env = os.environ.get("FOURY_SIM_REPORT_WORKERS", "").strip()  # WORKERS_ENV
        if env:
            try:
                workers = int(env)
            except ValueError:
                raise InputError(f"{WORKERS_ENV}={env!r} is not a whole number of worker processes") from None
    if workers is not None:
        return max(0, min(int(workers), n_figures - 1))
    cpus = threads or (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
    return max(0, min(cpus - 1, (n_figures - FIGURES_PER_WORKER) // FIGURES_PER_WORKER))


def _draw(spec: ReportFigure) -> bytes | str:
    """One figure as PNG bytes, or the line saying why it was skipped."""
    try:
        fig = spec.figure()
    except (F.NoData, InputError) as e:
        return f"{spec.heading}: {e}"
    return _png(fig)


_WORKER_PLAN: dict[str, ReportFigure] = {}


def _worker_rc() -> dict[str, Any]:
    """This process's matplotlib settings, for a drawing worker to use (not the backend)."""
    import matplotlib

    return {k: v for k, v in matplotlib.rcParams.items() if not k.startswith("backend")}


def _start_worker(path: str, target: float | None, rc: dict[str, Any]) -> None:
    """A drawing worker's start: this process's matplotlib settings, then the results and the figure plan."""
    import matplotlib

    matplotlib.rcParams.update(rc)
    res = load_results(path)
    _WORKER_PLAN.update((s.name, s) for s in _plan(res, _target(res, target)))


def _draw_named(name: str) -> bytes | str:
    return _draw(_WORKER_PLAN[name])


def _draw_all(res: Results, plan: list[ReportFigure], target: float | None, workers: int) -> list[bytes | str]:
    """Every planned figure (PNG bytes or a skip line), in plan order.

    With ``workers`` > 0, worker processes (spawned: they import the game and load the results themselves) draw
    from the end of the plan while this process draws from its start, each worker kept two figures ahead. A
    figure's bytes do not depend on the process that drew it (``tests/test_report.py``). A figure a worker failed
    to draw (a pool that breaks, a worker killed) is drawn here.
    """
    if workers <= 0:
        return [_draw(s) for s in plan]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    done: dict[int, bytes | str] = {}
    futures: dict[int, Any] = {}
    front, back = 0, len(plan)
    broken = False
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker, initargs=(str(res.path), target, _worker_rc()))
    try:
        while front < back:
            if not broken and sum(not f.done() for f in futures.values()) < 2 * workers:
                try:
                    with _plain_children():  # a submit may start a worker
                        futures[back - 1] = pool.submit(_draw_named, plan[back - 1].name)
                    back -= 1
                except BrokenProcessPool:
                    broken = True
                continue
            done[front] = _draw(plan[front])
            front += 1
        for i, f in futures.items():
            try:
                done[i] = f.result()
            except Exception:  # a broken pool, or the worker's own failure: drawn here (a figure's error is raised)
                done[i] = _draw(plan[i])
    except BaseException:  # Ctrl-C or an error here: the workers are stopped (their figures are not needed)
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            proc.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return [done[i] for i in range(len(plan))]


@contextlib.contextmanager
def _plain_children() -> Iterator[None]:
    """Processes spawned inside import only what their tasks name (``foury_sim.report``), not this program's main
    script: multiprocessing would run that script again in each worker, and a designer's script without an
    ``if __name__ == "__main__":`` guard would play its sweep again there (or fail, read from stdin). They also
    start with Ctrl-C (SIGINT) ignored: Ctrl-C stops the command, which says so in one line and stops them,
    instead of every worker printing its own traceback (in the main thread only)."""
    main = sys.modules.get("__main__")
    file = main.__dict__.pop("__file__", None) if main is not None else None
    spec = getattr(main, "__spec__", None)
    if main is not None:
        main.__spec__ = None
    old = None
    if threading.current_thread() is threading.main_thread():
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if old is not None:
            signal.signal(signal.SIGINT, old)
        if main is not None:
            main.__spec__ = spec
            if file is not None:
                main.__file__ = file


def build_report(path: str | Path, *, target: float | None = None, workers: int | None = None,
                 threads: int | None = None) -> list[Path]:
    """Draw the figures that fit the study, then write ``report.md`` and ``report.html``.

    ``target`` is a win rate to aim for (default: ``[report] target`` of the experiment file).
    Figures whose data the results lack (per-cell board records, death records, ...) are skipped and listed in the
    report. ``workers``: processes that draw figures beside this one (default :func:`report_workers` of
    ``threads``, the CPUs to use; 0 draws every figure here); the report is the same, byte for byte. Returns the
    written paths: the PNGs, then report.md and report.html.
    """
    res = load_results(path)
    target = _target(res, target)
    fig_dir = res.path / "figures"
    written: list[tuple[ReportFigure, Path, bytes]] = []
    skipped: list[str] = []
    plan = _plan(res, target)
    for spec, data in zip(plan, _draw_all(res, plan, target, report_workers(len(plan), workers, threads))):
        if isinstance(data, str):
            skipped.append(data)
            continue
        out = fig_dir / spec.name
        atomic_write(out, data)
        written.append((spec, out, data))
    md_text, html_text = _documents(res, written, skipped, target)
    md_path, html_path = res.path / "report.md", res.path / "report.html"
    atomic_write(md_path, md_text)
    atomic_write(html_path, html_text)
    return [p for _, p, _ in written] + [md_path, html_path]
