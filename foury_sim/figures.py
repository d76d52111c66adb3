"""Figures for balance studies, drawn for game designers (matplotlib ``Figure`` objects, no pyplot).

Every function takes data already loaded from a results folder (the cells table, cell JSON records
or a comparison's outcome rows) and returns a :class:`matplotlib.figure.Figure` at dpi 120. When the
data a figure needs is absent (a game without a board or death records, say) the function
raises :class:`NoData`, which :mod:`foury_sim.report` catches to skip the figure.

Win rates are shown in percent with Wilson intervals at the study's confidence level (``conf``,
default 0.95). Several cells that share a plotted setting (because other settings were swept too)
are pooled. Pooled cells play the same game indices, so their games are NOT independent: with the
per-game wins (``wins``, a cells x games 0/1 matrix) the pooled interval is computed per game index
first (:func:`foury_sim.stats.pooled_rate_ci`); without them, a bound that holds whatever the
pairing (:func:`foury_sim.stats.pooled_rate_ci_bound`). Whiskers show each value's own uncertainty;
whether two values differ is decided by the paired tests of the report, not by overlap.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from . import stats
from .lazy import pd

__all__ = [
    "DPI",
    "MAX_LINES",
    "NoData",
    "category_colors",
    "is_numeric",
    "ordered_values",
    "pool",
    "spread_pick",
    "win_rate_vs",
    "difficulty_bars",
    "heat_map",
    "survival_by_round",
    "survival_by_turn",
    "distributions",
    "paired_difference",
    "made_footer",
    "footer_text",
]

DPI = 120
MAX_LINES = 8  #: at most this many cells in one line figure

#: Fixed colours for the shipped heroes and policies, so they look the same in every figure. Colour-blind
#: safe: the Okabe–Ito palette (heroes: vermillion, blue, bluish green, reddish purple; policies:
#: orange, sky blue, near-black), grey for the free character.
KNOWN_COLORS = {
    "free": "#8c8c8c",
    "kael": "#D55E00",
    "melyra": "#0072B2",
    "thalindra": "#009E73",
    "elydion": "#CC79A7",
    "random": "#3a3a3a",
    "greedy": "#E69F00",
    "cautious": "#56B4E9",
}
#: Okabe–Ito (without yellow, too pale on white) then Paul Tol's "muted" scheme: colour-blind safe, and
#: dark enough to read as thin lines on white.
_PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#332288",
    "#882255",
    "#117733",
    "#44AA99",
    "#999933",
    "#AA4499",
    "#88CCEE",
    "#DDCC77",
    "#3a3a3a",
)


class NoData(ValueError):
    """The data a figure needs is missing (the report skips that figure)."""


# ------------------------------------------------------------------------------------ helpers


#: The ``gid`` of the text ``made_footer`` adds (for a reader, or a test, to find it among the figure's texts).
FOOTER_GID = "foury_sim_made"


def made_footer(fig: Figure, text: str) -> None:
    """Add ``text`` (how the figure was made: ``provenance.figure_note``) in small grey type at the figure's foot.

    The figure grows by a strip for it (one line or a few, wrapped to the width) below everything drawn, which keeps
    its size and place (what reached past the figure's lower edge, a board's long legend, comes into view above the
    strip). Call it last: a constrained layout is done now and kept as it is (the layout engine is then off, so a
    later change does not move anything into the strip).
    """
    import textwrap

    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    if not hasattr(fig.canvas, "get_renderer"):  # a Figure() made without a canvas to draw on (a board's picture)
        FigureCanvasAgg(fig)
    engine = fig.get_layout_engine()
    if engine is not None and not isinstance(engine, PlaceHolderLayoutEngine):
        fig.draw_without_rendering()  # the layout, at this size
        fig.set_layout_engine("none")
    w, h = (float(x) for x in fig.get_size_inches())
    lines = textwrap.wrap(text, max(40, int(w * 16)), break_on_hyphens=False) or [""]
    below = max(0.0, -float(fig.get_tightbbox(fig.canvas.get_renderer()).y0))  # inches drawn below the edge
    strip = below + 0.1 + 0.13 * len(lines)  # inches (7-point type)
    k, off = h / (h + strip), strip / (h + strip)
    for ax in fig.get_axes():
        if ax.get_axes_locator() is None:  # inset axes follow their parent
            pos = ax.get_position()
            ax.set_position([pos.x0, off + pos.y0 * k, pos.width, pos.height * k])
    for t in fig.texts:  # (the suptitle and the supxlabel among them)
        if t.get_transform() in (fig.transFigure, fig.transSubfigure):
            x, y = t.get_position()
            t.set_position((x, off + y * k))
    fig.set_size_inches(w, h + strip)
    fig.text(0.01, 0.05 / (h + strip), "\n".join(lines), ha="left", va="bottom", fontsize=7, color="#666666",
             gid=FOOTER_GID)


def footer_text(fig: Figure) -> str | None:
    """The text ``made_footer`` added to ``fig`` (None if it has none)."""
    return next((t.get_text() for t in fig.texts if t.get_gid() == FOOTER_GID), None)


def heat_scale(heat: Any, n: int) -> tuple[np.ndarray, Any, Any]:
    """A board's heat layer as floats (a ``ValueError`` unless one value a cell of ``n``), with the colour scale
    every board draws it in: its finite values from lowest to highest (0..1 with none; a constant layer spans
    one unit), yellow to red."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    heat = np.asarray(heat, dtype=float)
    if heat.shape != (n,):
        raise ValueError(f"heat must have shape ({n},), got {heat.shape}")
    finite = heat[np.isfinite(heat)]
    lo, hi = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 1.0)
    if hi <= lo:
        hi = lo + 1.0
    return heat, Normalize(lo, hi), colormaps["YlOrRd"]


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _titles(fig: Figure, main: str, sub: str | None = None) -> None:
    """A bold title stating what is shown, and a smaller grey line explaining how to read it.

    With one Axes the explanation goes just under the title, otherwise at the foot of the figure.
    Call it last (after the legend), so the explanation is wrapped to the room the Axes really has.
    """
    import textwrap

    width = float(fig.get_size_inches()[0])
    main = "\n".join(textwrap.fill(x, max(30, int(width * 8.5))) for x in main.split("\n"))
    if sub:  # wrapped so that no line is cut at the edges: over one Axes (a legend may take half the width)
        # it is centred on that Axes (measured after the layout, legend drawn), else along the figure's foot
        axes = fig.get_axes()
        room = width
        if len(axes) == 1:
            fig.draw_without_rendering()
            room = axes[0].get_position().width * width
        sub = "\n".join(textwrap.fill(x, max(40, int(room * 14))) for x in sub.split("\n"))
    fig.suptitle(main, fontsize=13, fontweight="bold")
    if sub:
        axes = fig.get_axes()
        if len(axes) == 1:
            axes[0].set_title(sub, fontsize=9, color="#555555")
        else:
            fig.supxlabel(sub, fontsize=9, color="#555555")


def outcome_label(key: str, outputs: Any = None) -> str:
    """Axis label (with unit) of an outcome column, from the game's output declaration (``outputs``; by
    default the first registered game that declares the column); else the key itself."""
    col = outputs.column(key) if outputs is not None else None
    if col is None:
        from .registry import games, get_game

        col = next((c for c in (get_game(g).outputs.column(key) for g in games()) if c is not None), None)
    return col.axis_label if col is not None else key.replace("_", " ").capitalize()


def fmt_value(v: Any) -> str:
    """A setting value as a designer writes it: ``2`` not ``2.0``; a policy file by its name, ``mine.py:bold``, not
    the folders before it (a long path squeezed the bars to nothing; the tables keep the whole path)."""
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(v):
            return str(v)
        return f"{int(v)}" if float(v).is_integer() else f"{v:g}"
    if isinstance(v, (np.integer,)):
        return str(int(v))
    return _POLICY_FOLDERS.sub("", str(v))


#: The folders before a policy file's name in a value (``/home/me/my policies/mine.py:bold``): up to the last
#: separator before ``NAME.py:``, from the value's start or after ``=``, ``,`` or a space that opens the path.
_POLICY_FOLDERS = re.compile(r"(?:(?<=^)|(?<=[=,]))[^=,]*[/\\](?=[^/\\=,]+\.py:)")


def is_numeric(s: pd.Series) -> bool:
    """True when every value of a swept column is a number (bools and "0,1,2,3" lists are not)."""
    if pd.api.types.is_bool_dtype(s):
        return False
    if pd.api.types.is_numeric_dtype(s):
        return True
    vals = s.dropna()
    if vals.empty or any(isinstance(v, bool) for v in vals):
        return False
    return bool(pd.to_numeric(vals, errors="coerce").notna().all())


def ordered_values(s: pd.Series) -> list[Any]:
    """Distinct values of a column: ascending if numeric, else in order of first appearance."""
    vals = list(dict.fromkeys(s.dropna().tolist()))
    if is_numeric(s):
        vals.sort(key=float)
    return vals


def category_colors(values: Sequence[Any]) -> dict[str, str]:
    """``str(value) -> colour``: fixed colours for known heroes/policies, a palette for the rest."""
    out: dict[str, str] = {}
    names = [fmt_value(v) for v in values]
    for name in names:
        if name.lower() in KNOWN_COLORS:
            out[name] = KNOWN_COLORS[name.lower()]
    free = [c for c in _PALETTE if c not in out.values()]
    i = 0
    for name in names:
        if name not in out:
            out[name] = free[i % len(free)]
            i += 1
    return out


def pool(cells: pd.DataFrame, keys: Sequence[str], *, conf: float = 0.95,
         wins: Sequence[np.ndarray | None] | None = None) -> pd.DataFrame:
    """One row per combination of ``keys``: the cells sharing it pooled, with an interval valid for shared dice.

    Columns: the keys, ``games``, ``wins`` (sums), ``n_cells``, ``win_rate``, ``win_lo``, ``win_hi``
    and ``interval`` ("wilson" for a single cell; "paired" when the per-game wins of the pooled cells
    are given (``wins[i]`` for row i of ``cells``) and they played the same games: interval per game
    index first; "bound" otherwise: the mean of the cells' Wilson bounds, valid whatever the pairing).
    A pooled ``win_rate`` is the mean of the cells' rates (the pooled rate when they played equally
    many games).
    """
    keys = list(dict.fromkeys(keys))
    for k in [*keys, "games", "wins"]:
        if k not in cells:
            raise NoData(f"the cells table has no column {k!r}")
    df = cells[[*keys, "games", "wins"]].reset_index(drop=True)
    # the groups in order of first appearance (groupby(sort=False)), their rows read from numpy arrays: a group per
    # cell is the usual case (a report pools each swept key), where pandas' per-group frames cost most of the time
    codes = df.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    order = np.argsort(codes, kind="stable")
    members = np.split(order, np.flatnonzero(np.diff(codes[order])) + 1) if len(order) else []
    first = [int(m[0]) for m in members]
    key_values = list(zip(*(df[k].iloc[first].tolist() for k in keys), strict=True)) if first else []
    k_all, n_all = df["wins"].to_numpy(int), df["games"].to_numpy(int)
    single = [j for j, m in enumerate(members) if len(m) == 1]
    lo_1, hi_1 = stats.wilson_arrays(k_all[[first[j] for j in single]], n_all[[first[j] for j in single]], conf)
    one = {j: (float(lo_1[i]), float(hi_1[i])) for i, j in enumerate(single)}
    rows = []
    for j, rows_j in enumerate(members):
        row: dict[str, Any] = dict(zip(keys, key_values[j], strict=True))
        k, n = k_all[rows_j], n_all[rows_j]
        row.update(games=int(n.sum()), wins=int(k.sum()), n_cells=len(rows_j))
        w = [wins[i] if wins is not None and i < len(wins) else None for i in rows_j]
        if len(rows_j) == 1:
            lo, hi = one[j]
            r = {"rate": k[0] / n[0] if n[0] else math.nan, "lo": lo, "hi": hi}
            how = "wilson"
        elif all(x is not None for x in w) and len({len(x) for x in w}) == 1 and len(w[0]) == n[0]:
            r, how = stats.pooled_rate_ci(np.vstack(w), conf), "paired"
        else:
            r, how = stats.pooled_rate_ci_bound(k, n, conf), "bound"
        row.update(win_rate=r["rate"], win_lo=r["lo"], win_hi=r["hi"], interval=how)
        rows.append(row)
    out = pd.DataFrame(rows)
    out["games"] = out["games"].astype(int)
    out["wins"] = out["wins"].astype(int)
    return out


def conf_label(conf: float) -> str:
    """"95 %" for 0.95: the level shown in every interval label."""
    return f"{100 * float(conf):g} %"


def spread_pick(metric: Sequence[float], k: int) -> list[int]:
    """Indices of at most ``k`` items whose ``metric`` values spread evenly from lowest to highest.

    The lowest and highest are always kept; the rest are the items nearest to evenly spaced values
    in between, so near-identical items are not all shown while distinct ones are left out.
    """
    metric = np.asarray(metric, dtype=float)
    n = len(metric)
    if n <= k:
        return list(range(n))
    m = np.where(np.isfinite(metric), metric, np.nanmin(metric) if np.isfinite(metric).any() else 0.0)
    order = np.argsort(m, kind="stable")
    picks: list[int] = [int(order[0]), int(order[-1])]
    for t in np.linspace(m[order[0]], m[order[-1]], k)[1:-1]:
        rest = [i for i in order if i not in picks]
        picks.append(int(min(rest, key=lambda i: (abs(m[i] - t), i))))
    return sorted(picks)


def _pct_axis(ax: Any, axis: str = "y") -> None:
    fmt = FuncFormatter(lambda v, _pos: f"{v:g}%")
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(fmt)


def _rate_ylim(ax: Any, lo: float, hi: float, target: float | None = None) -> None:
    """A y range in percent around the data (and target), clipped to 0..100."""
    vals = [lo, hi] + ([target * 100] if target is not None else [])
    a, b = min(vals), max(vals)
    pad = max(3.0, 0.12 * (b - a))
    ax.set_ylim(max(0.0, a - pad), min(100.0, b + pad) if b + pad < 100 else 101.0)


def _legend(ax: Any, title: str | None = None, handles_from: Any = None) -> None:
    """Legend to the right of ``ax``, outside the data (``handles_from``: take the entries from another Axes)."""
    handles, labels = (handles_from or ax).get_legend_handles_labels()
    if not handles:
        return
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, title=title,
              fontsize=9, title_fontsize=9, frameon=False, alignment="left", handlelength=2.6)


def _hist(cell_json: dict[str, Any], key: str) -> tuple[np.ndarray, np.ndarray] | None:
    h = (cell_json.get("hist") or {}).get(key)
    if not isinstance(h, dict) or "values" not in h or "counts" not in h:
        return None
    v = np.asarray(h["values"], dtype=float)
    c = np.asarray(h["counts"], dtype=float)
    if v.shape != c.shape or c.sum() <= 0:
        return None
    order = np.argsort(v)
    return v[order], c[order]


def _cell_series(
    cell_jsons: Sequence[dict[str, Any]],
    labels: Sequence[str] | None,
    key: str,
    colors: Sequence[Any] | None,
    linestyles: Sequence[str] | None = None,
) -> list[tuple[str, np.ndarray, np.ndarray, Any, str]]:
    """(label, values, counts, colour, line style) of every cell that has ``hist[key]``."""
    for name, seq in (("labels", labels), ("colors", colors), ("linestyles", linestyles)):
        if seq is not None and len(seq) != len(cell_jsons):
            raise ValueError(f"{name} must have one entry per cell record")
    out = []
    for i, cj in enumerate(cell_jsons):
        h = _hist(cj, key)
        if h is None:
            continue
        lab = labels[i] if labels is not None else str(cj.get("label", f"cell {cj.get('cell', i)}"))
        col = colors[i] if colors is not None else _PALETTE[i % len(_PALETTE)]
        out.append((lab, h[0], h[1], col, linestyles[i] if linestyles is not None else "-"))
    if not out:
        raise NoData(f"no cell records a per-game histogram of {key!r}")
    return out


def _panels(n: int, panels: Sequence[str] | None, max_lines: int) -> list[tuple[str | None, list[int]]]:
    """(panel title, series indices) of a line figure: every series is drawn, none is left out.

    ``panels`` names each series' panel (small multiples, e.g. one per policy); without it, more than
    ``max_lines`` series are split in order into panels of about equal size.
    """
    if panels is not None and len(dict.fromkeys(panels)) > 1:
        return [(name, [i for i in range(n) if panels[i] == name]) for name in dict.fromkeys(panels)]
    if n <= max_lines:
        return [(panels[0] if panels else None, list(range(n)))]
    k = math.ceil(n / max_lines)
    size = math.ceil(n / k)
    return [(f"cells {a + 1}–{min(n, a + size)} of {n}", list(range(a, min(n, a + size)))) for a in range(0, n, size)]


def _kept_panels(cell_jsons: Sequence[dict[str, Any]], key: str, panels: Sequence[str] | None) -> list[str] | None:
    """``panels`` of the cells that have ``hist[key]`` (the series :func:`_cell_series` returns)."""
    if panels is None:
        return None
    if len(panels) != len(cell_jsons):
        raise ValueError("panels must have one entry per cell record")
    return [str(pn) for pn, cj in zip(panels, cell_jsons) if _hist(cj, key) is not None]


# ------------------------------------------------------------------------------ win rate figures


def win_rate_vs(
    cells: pd.DataFrame,
    x: str,
    hue: str | None = None,
    target: float | None = None,
    *,
    title: str | None = None,
    conf: float = 0.95,
    wins: Sequence[np.ndarray | None] | None = None,
) -> Figure:
    """Win rate against a swept setting ``x``, one line (or marker series) per value of ``hue``.

    Numeric ``x``: lines with the ``conf`` interval as a shaded band. Categorical ``x``: points
    with error bars. ``target`` (a rate, e.g. 0.4) is drawn as a dashed line. Pooled points use
    :func:`pool` (``wins``: per-game wins of each cell, for intervals that respect the shared dice).
    """
    if x not in cells:
        raise NoData(f"the cells table has no column {x!r}")
    if hue is not None and (hue not in cells or hue == x):
        hue = None
    keys = [hue, x] if hue else [x]
    p = pool(cells, keys, conf=conf, wins=wins)
    pooled = bool((p["n_cells"] > 1).any())
    numeric = is_numeric(cells[x])
    groups = ordered_values(cells[hue]) if hue else [None]
    colors = category_colors(groups) if hue else {"None": "#1f77b4"}
    xs_all = ordered_values(cells[x])
    fig = _figure(8.6 if hue else 7.6, 4.8)
    ax = fig.add_subplot()
    width = 0.7 / max(1, len(groups))
    for gi, g in enumerate(groups):
        sub = p[p[hue] == g] if hue else p
        if sub.empty:
            continue
        color = colors[fmt_value(g)] if hue else colors["None"]
        name = fmt_value(g) if hue else "win rate"
        r, lo, hi = (sub[c].to_numpy(float) * 100 for c in ("win_rate", "win_lo", "win_hi"))
        if numeric:
            xv = pd.to_numeric(sub[x]).to_numpy(float)
            o = np.argsort(xv)
            xv, r, lo, hi = xv[o], r[o], lo[o], hi[o]
            ax.fill_between(xv, lo, hi, color=color, alpha=0.18, lw=0)
            ax.plot(xv, r, marker="o", ms=5, lw=2, color=color, label=name)
        else:
            pos = np.array([xs_all.index(v) for v in sub[x]], dtype=float)
            pos += (gi - (len(groups) - 1) / 2) * width
            ax.errorbar(pos, r, yerr=[r - lo, hi - r], fmt="o", ms=6, capsize=4, lw=1.6, color=color, label=name)
    if target is not None:
        ax.axhline(target * 100, ls="--", lw=1.3, color="black", label=f"target {target * 100:g}%")
    if numeric:
        xv = [float(v) for v in xs_all]
        if len(xv) <= 15:
            ax.set_xticks(xv, [fmt_value(v) for v in xs_all])
    else:
        ax.set_xticks(range(len(xs_all)), [fmt_value(v) for v in xs_all])
        ax.set_xlim(-0.6, len(xs_all) - 0.4)
        if max(len(fmt_value(v)) for v in xs_all) * len(xs_all) > 60:
            ax.tick_params(axis="x", labelrotation=30)
    _pct_axis(ax)
    _rate_ylim(ax, float(p["win_lo"].min() * 100), float(p["win_hi"].max() * 100), target)
    ax.set_xlabel(x)
    ax.set_ylabel("Win rate (% of games)")
    ax.grid(alpha=0.3)
    main = title or f"Win rate by {x}" + (f", one line per {hue}" if hue else "")
    how = "shaded band" if numeric else "bars"
    sub_t = f"{_games_text(p)}; {how} = {conf_label(conf)} interval of each point on its own"
    if pooled:
        sub_t += ("; cells that differ only in other swept settings are pooled (interval per game index: "
                  "they share dice)" if (p["interval"] == "paired").all() else
                  "; cells that differ only in other swept settings are pooled (wide bound: they share dice)")
    if hue or target is not None:
        _legend(ax, title=hue)
    _titles(fig, main, sub_t)
    return fig


def difficulty_bars(
    cells: pd.DataFrame,
    by: str,
    hue: str | None = None,
    target: float | None = None,
    *,
    title: str | None = None,
    conf: float = 0.95,
    wins: Sequence[np.ndarray | None] | None = None,
) -> Figure:
    """Win-rate bars with ``conf`` intervals: one bar per value of ``by``, grouped side by side by ``hue``.

    ``by="label"`` gives one bar per cell. Long names switch to horizontal bars. The whiskers are each
    bar's own interval; overlap is not a test (the report's paired, Holm-adjusted tests are).
    """
    if by not in cells:
        raise NoData(f"the cells table has no column {by!r}")
    if hue is not None and (hue not in cells or hue == by):
        hue = None
    p = pool(cells, [by, hue] if hue else [by], conf=conf, wins=wins)
    pooled = bool((p["n_cells"] > 1).any())
    cats = ordered_values(cells[by])
    groups = ordered_values(cells[hue]) if hue else [None]
    colors = category_colors(groups if hue else cats)
    names = [fmt_value(c) for c in cats]
    horizontal = len(cats) > 10 or max(len(n) for n in names) > 14
    n_bars = len(cats) * len(groups)
    if horizontal:
        fig = _figure(8.6, min(14.0, 1.6 + 0.32 * n_bars + 0.15 * len(cats)))
    else:
        fig = _figure(max(6.0, min(14.0, 2.5 + 0.55 * n_bars)), 4.8)
    ax = fig.add_subplot()
    width = 0.8 / len(groups)
    top = 0.0
    for gi, g in enumerate(groups):
        sub = p[p[hue] == g] if hue else p
        if sub.empty:
            continue
        pos = np.array([cats.index(v) for v in sub[by]], dtype=float) + (gi - (len(groups) - 1) / 2) * width
        r, lo, hi = (sub[c].to_numpy(float) * 100 for c in ("win_rate", "win_lo", "win_hi"))
        col = [colors[fmt_value(g)]] * len(sub) if hue else [colors[fmt_value(v)] for v in sub[by]]
        err = [r - lo, hi - r]
        label = fmt_value(g) if hue else None
        if horizontal:
            ax.barh(pos, r, height=width * 0.9, color=col, xerr=err, capsize=3, ecolor="#333333", label=label)
            for yy, rr, hh in zip(pos, r, hi):
                ax.annotate(_bar_pct(rr), (hh, yy), xytext=(3, 0), textcoords="offset points", va="center",
                            ha="left", fontsize=8)
        else:
            ax.bar(pos, r, width=width * 0.9, color=col, yerr=err, capsize=3, ecolor="#333333", label=label)
            narrow = n_bars > 12  # labels side by side would overlap: write them upwards
            for xx, rr, hh in zip(pos, r, hi):
                ax.annotate(_bar_pct(rr), (xx, hh), xytext=(0, 3), textcoords="offset points", va="bottom",
                            ha="center", fontsize=7 if narrow else 8, rotation=90 if narrow else 0)
        top = max(top, float(hi.max()))
    if target is not None:
        line = ax.axvline if horizontal else ax.axhline
        line(target * 100, ls="--", lw=1.3, color="black", label=f"target {target * 100:g}%")
        top = max(top, target * 100)
    lim = (0.0, min(100.0, top * (1.25 if n_bars > 12 else 1.15) + 0.3) if top < 80 else 108.0)
    if horizontal:
        ax.set_yticks(range(len(cats)), names)
        ax.invert_yaxis()
        ax.set_xlim(*lim)
        _pct_axis(ax, "x")
        ax.set_xlabel("Win rate (% of games)")
        ax.set_ylabel("" if by == "label" else by)
        ax.grid(axis="x", alpha=0.3)
    else:
        ax.set_xticks(range(len(cats)), names)
        if sum(len(n) for n in names) > 60:
            ax.tick_params(axis="x", labelrotation=30)
        ax.set_ylim(*lim)
        _pct_axis(ax)
        ax.set_ylabel("Win rate (% of games)")
        ax.set_xlabel("" if by == "label" else by)
        ax.grid(axis="y", alpha=0.3)
    what = "cell" if by == "label" else by
    main = title or f"Win rate by {what}" + (f" and {hue}" if hue else "")
    sub_t = (f"{_games_text(p)}; black whiskers = {conf_label(conf)} interval of each bar on its own; whether "
             "two bars differ: see the tests in the report")
    if pooled:
        sub_t += ("\ncells that differ only in other swept settings are pooled (interval per game index: "
                  "they share dice)" if (p["interval"] == "paired").all() else
                  "\ncells that differ only in other swept settings are pooled (wide bound: they share dice)")
    if hue or target is not None:
        _legend(ax, title=hue)
    _titles(fig, main, sub_t)
    return fig


def _games_text(p: pd.DataFrame) -> str:
    """"40,000 games per point" (or "1,000 to 5,000 games per point") of a pooled table."""
    g = p["games"].astype(int)
    return (f"{int(g.iloc[0]):,} games per point" if g.nunique() == 1 else
            f"{int(g.min()):,} to {int(g.max()):,} games per point")


def _cells_games(cell_jsons: Sequence[dict[str, Any]]) -> str:
    """"; 40,000 games per cell" from the cell records (empty when they do not say)."""
    g = {int(cj["games"]) for cj in cell_jsons if isinstance(cj.get("games"), (int, float))}
    if not g:
        return ""
    return f"; {min(g):,} games per cell" if len(g) == 1 else f"; {min(g):,} to {max(g):,} games per cell"


def _bar_pct(r: float) -> str:
    """A bar's label (``r`` in percent): 1 win in 40,000 reads 0.0025%, not 0.00%."""
    if 0 < r < 0.005:
        return f"{r:.2g}%"
    return f"{r:.1f}%" if r >= 1 or r == 0 else f"{r:.2f}%"


# ----------------------------------------------------------------------------------- map heat


def heat_map(
    cell_json: dict[str, Any],
    kind: Literal["deaths", "visits"] = "deaths",
    title: str | None = None,
    *,
    map_data: Any = None,
    board: Any = None,
) -> Figure:
    """Per-room heat over the board's picture: first deaths per 1000 games, or room visits per game.

    ``board``: the game's board hook (``registry.Board``; default: the board of the game the record's
    ``board_cells`` names, else of the default game). ``map_data`` saves resolving ``board_cells["map"]`` again.
    """
    if kind not in ("deaths", "visits"):
        raise ValueError(f"kind must be 'deaths' or 'visits', not {kind!r}")
    rec = cell_json.get("board_cells")
    if not isinstance(rec, dict) or not isinstance(rec.get(kind), list):
        raise NoData(f"the cell record has no per-room {kind}")
    board = board if board is not None else board_of(rec.get("game"))
    m = map_data if map_data is not None else resolve_cell_map(rec.get("map"), board)
    vals = np.asarray(rec[kind], dtype=float)
    is_room = np.asarray(board.heat_cells(m), dtype=bool)
    if vals.shape != is_room.shape:
        raise NoData(f"per-room {kind} has {vals.size} entries but map {m.name!r} has {is_room.size} cells")
    games = cell_json.get("games") or 0
    if not games:
        h = next((x for x in (_hist(cell_json, k) for k in (cell_json.get("hist") or {})) if x), None)
        games = int(h[1].sum()) if h else 0
    if games <= 0:
        raise NoData("the cell record does not say how many games it played")
    if kind == "deaths":
        heat = vals / games * 1000.0
        label = "first deaths per 1000 games"
        main = "Where heroes die"
    else:
        heat = vals / games
        label = "visits per game"
        main = "Where heroes go"
    heat[~is_room] = np.nan
    who = str(cell_json.get("label", ""))
    if title is None:
        title = f"{main}: {label}\n{who} ({games:,} games)" if who else f"{main}: {label} ({games:,} games)"
    fig = board.draw(m, heat=heat, heat_label=label, title=title)
    fig.set_dpi(DPI)
    _grow_top(fig, 0.3 * title.count("\n"))
    return fig


def board_of(game: str | None) -> Any:
    """The board hook of ``game`` (None: the default game); ``NoData`` if that game has no board."""
    from .errors import InputError
    from .registry import DEFAULT_GAME, get_game

    try:
        spec = get_game(game or DEFAULT_GAME)
    except InputError as e:
        raise NoData(str(e)) from None
    if spec.board is None:
        raise NoData(f"{spec.name} has no board")
    return spec.board


def _grow_top(fig: Figure, inches: float) -> None:
    """Add ``inches`` of room above everything (for a title of several lines), keeping Axes sizes."""
    if inches <= 0:
        return
    w, h = fig.get_size_inches()
    k = h / (h + inches)
    for ax in fig.get_axes():
        if ax.get_axes_locator() is None:  # inset axes follow their parent
            pos = ax.get_position()
            ax.set_position([pos.x0, pos.y0 * k, pos.width, pos.height * k])
    fig.set_size_inches(w, h + inches)


def resolve_cell_map(name_or_path: Any, board: Any = None) -> Any:
    """The board of a cell record: its path, else a shipped board of the same name, else the default board
    (``board``: the game's board hook; default: the default game's)."""
    from pathlib import Path

    from .errors import InputError

    board = board if board is not None else board_of(None)
    if not name_or_path:
        return board.resolve(None)
    try:
        return board.resolve(name_or_path)
    except InputError:
        stem = Path(str(name_or_path)).stem
        if stem in board.builtin():
            return board.resolve(stem)
        raise


# ----------------------------------------------------------------------------------- survival


def _n_rounds(series: list[tuple[str, np.ndarray, np.ndarray, Any, str]], cell_jsons: Sequence[dict[str, Any]]) -> int:
    top = max(int(v.max()) for _, v, _, _, _ in series)
    for cj in cell_jsons:
        h = _hist(cj, "rounds_completed")
        if h is not None:
            top = max(top, int(h[0].max()))
    return max(top, 1)


def _facet_title(main: str, groups: list[tuple[str | None, list[int]]], facet: str | None) -> str:
    if len(groups) < 2:
        return main
    return main + (f"\none panel per {facet}" if facet else f"\n{len(groups)} panels, every cell shown")


def _survival_panels(groups: list[tuple[str, list[int]]], panel_height: float) -> tuple[Figure, list[Any], bool]:
    """The figure of a survival curve: one Axes, or one panel per group stacked on a shared x axis."""
    one = len(groups) == 1
    fig = _figure(10.5, 4.8) if one else _figure(10.5, 1.3 + panel_height * len(groups))
    axes = [fig.add_subplot()] if one else list(fig.subplots(len(groups), 1, sharex=True, sharey=True).ravel())
    return fig, axes, one


def _survival_axes(ax: Any, name: str, one: bool, xlabel: str) -> None:
    """The y axis, grid, panel title and legend every survival panel shares."""
    ax.set_ylim(0, 102)
    _pct_axis(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Games with no\ndeath yet (%)" if not one else "Games with no death yet (%)")
    ax.grid(alpha=0.3)
    if name and not one:
        ax.set_title(name, fontsize=10, loc="left", fontweight="bold")
    _legend(ax, title=name if one and name else "cell")


def survival_by_round(
    cell_jsons: Sequence[dict[str, Any]],
    labels: Sequence[str] | None = None,
    *,
    colors: Sequence[Any] | None = None,
    linestyles: Sequence[str] | None = None,
    max_lines: int = MAX_LINES,
    n_rounds: int | None = None,
    title: str | None = None,
    key: str = "death_round",
    panels: Sequence[str] | None = None,
    facet: str | None = None,
) -> Figure:
    """Share of games with no death yet at the start of each round and at the end (``hist[key]``: the round
    of the first death, as the game's output declaration names it in ``Outputs.figures``).

    ``death_round`` 0 means the hero never died. Every cell is drawn: ``panels`` (one name per record,
    e.g. ``"policy=greedy"``; ``facet`` names what they split, for the title) draws one panel per name;
    without it more than ``max_lines`` cells are split into panels of about equal size.
    """
    series = _cell_series(cell_jsons, labels, key, colors, linestyles)
    groups = _panels(len(series), _kept_panels(cell_jsons, key, panels), max_lines)
    R = n_rounds or _n_rounds(series, cell_jsons)
    xs = np.arange(1, R + 2)
    curves = []
    for lab, v, c, col, ls in series:
        n = c.sum()
        alive = [c[(v == 0) | (v >= r)].sum() / n * 100 for r in range(1, R + 1)] + [c[v == 0].sum() / n * 100]
        curves.append((lab, np.array(alive), col, ls))
    fig, axes, one = _survival_panels(groups, 2.7)
    for ax, (name, idx) in zip(axes, groups):
        for i in sorted(idx, key=lambda j: -curves[j][1][-1]):
            lab, a, col, ls = curves[i]
            ax.plot(xs, a, marker="o", ms=4 if not one else 5, lw=2, color=col, ls=ls,
                    label=f"{lab}: {a[-1]:.0f}% never die")
        ax.set_xticks(xs, [f"start of\nround {r}" for r in range(1, R + 1)] + ["end of\ngame"])
        _survival_axes(ax, name, one, "Point of the game (the first death counts)")
    for ax in axes[:-1]:
        ax.set_xlabel("")
    main = title or "Survival by round: share of games where the hero has not died yet"
    _titles(fig, _facet_title(main, groups, facet),
            "a death is the first time the hero's hearts run out (a continue may follow)" + _cells_games(cell_jsons))
    return fig


def survival_by_turn(
    cell_jsons: Sequence[dict[str, Any]],
    labels: Sequence[str] | None = None,
    *,
    colors: Sequence[Any] | None = None,
    linestyles: Sequence[str] | None = None,
    max_lines: int = MAX_LINES,
    title: str | None = None,
    key: str = "death_turn",
    panels: Sequence[str] | None = None,
    facet: str | None = None,
) -> Figure:
    """Share of games with no death yet after each turn: a step curve from ``hist[key]`` (the turn of the
    first death, 0 = never). Every cell is drawn, in panels as :func:`survival_by_round` does."""
    series = _cell_series(cell_jsons, labels, key, colors, linestyles)
    groups = _panels(len(series), _kept_panels(cell_jsons, key, panels), max_lines)
    curves = []
    last = 1
    for lab, v, c, col, ls in series:
        n = c.sum()
        died = v > 0
        t = np.concatenate([[0.0], v[died]])
        alive = 100.0 * (1.0 - np.concatenate([[0.0], np.cumsum(c[died])]) / n)
        curves.append((lab, t, alive, col, ls))
        if died.any():  # the turn by which 99.5 % of this cell's deaths have happened
            cum = np.cumsum(c[died]) / c[died].sum()
            last = max(last, int(v[died][np.searchsorted(cum, 0.995)]))
    xmax = last + 1
    fig, axes, one = _survival_panels(groups, 2.5)
    for ax, (name, idx) in zip(axes, groups):
        for i in sorted(idx, key=lambda j: -curves[j][2][-1]):
            lab, t, a, col, ls = curves[i]
            t = np.append(t, max(xmax, t[-1]))
            a = np.append(a, a[-1])
            ax.step(t, a, where="post", lw=2, color=col, ls=ls, label=f"{lab}: {a[-1]:.0f}% never die")
        ax.set_xlim(0, xmax)
        _survival_axes(ax, name, one, "Turn (one turn = one move of the hero)")
    for ax in axes[:-1]:
        ax.set_xlabel("")
    main = title or "Survival by turn: share of games where the hero has not died yet"
    _titles(fig, _facet_title(main, groups, facet), f"x axis ends at turn {xmax}: 99.5% of first deaths happen by then"
            + _cells_games(cell_jsons))
    return fig


# ------------------------------------------------------------------------------- distributions


def distributions(
    cell_jsons: Sequence[dict[str, Any]],
    labels: Sequence[str] | None = None,
    key: str = "score",
    *,
    colors: Sequence[Any] | None = None,
    linestyles: Sequence[str] | None = None,
    max_lines: int = MAX_LINES,
    title: str | None = None,
    outputs: Any = None,
    panels: Sequence[str] | None = None,
    facet: str | None = None,
) -> Figure:
    """Distribution of a per-game outcome (``hist[key]``), one line per cell (axis label from the game's
    output declaration ``outputs``).

    Left: share of games per value (step histogram; wide ranges are binned). Right: the cumulative
    share of games at or below each value, which compares many cells more easily. Every cell is
    drawn: one row of the two panels per ``panels`` name (or per group of at most ``max_lines`` cells).
    """
    series = _cell_series(cell_jsons, labels, key, colors, linestyles)
    groups = _panels(len(series), _kept_panels(cell_jsons, key, panels), max_lines)
    means = [float((v * c).sum() / c.sum()) for _, v, c, _, _ in series]
    allv = np.concatenate([x[1] for x in series])
    allc = np.concatenate([x[2] / x[2].sum() for x in series])  # every cell weighs the same
    o = np.argsort(allv)
    allv, allc = allv[o], allc[o]
    cum = np.cumsum(allc) / allc.sum()
    lo = float(allv[0])
    hi = float(allv[min(np.searchsorted(cum, 0.995), len(allv) - 1)])  # cut a long tail (e.g. the turn cap)
    hi = max(hi, lo + 1)
    w = max(1, math.ceil((hi - lo + 1) / 40))
    edges = np.arange(lo - 0.5, hi + w + 0.5, w)
    rows = len(groups)
    fig = _figure(12.0, 4.6 if rows == 1 else 1.4 + 2.6 * rows)
    grid = np.atleast_2d(fig.subplots(rows, 2, sharex=True))
    xl = outcome_label(key, outputs)
    beyond = 0.0
    for (name, idx), (ax_h, ax_c) in zip(groups, grid):
        for i in sorted(idx, key=lambda j: means[j]):
            lab, v, c, col, ls = series[i]
            n = c.sum()
            share, _ = np.histogram(v, bins=edges, weights=c)
            ax_h.stairs(share / n * 100, edges, lw=1.8, color=col, ls=ls, label=f"{lab} (mean {means[i]:.1f})")
            ax_c.step(np.concatenate([[v[0]], v]), np.concatenate([[0.0], np.cumsum(c) / n * 100]), where="post",
                      lw=1.8, color=col, ls=ls)
            beyond = max(beyond, float(c[v > edges[-1]].sum() / n * 100))
        ax_h.set_ylabel("Share of games (%)" + (f",\nbins of {w}" if w > 1 else ""))
        ax_h.set_xlim(edges[0], edges[-1])
        ax_h.set_ylim(bottom=0)
        ax_c.set_ylabel(f"Games with {key.replace('_', ' ')}\nat or below (%)")
        ax_c.set_ylim(0, 102)
        for ax in (ax_h, ax_c):
            ax.set_xlabel(xl)
            ax.grid(alpha=0.3)
        _pct_axis(ax_h)
        _pct_axis(ax_c)
        if name and rows > 1:
            ax_h.set_title(name, fontsize=10, loc="left", fontweight="bold")
        _legend(ax_c, title="cell" if rows == 1 or not name else name, handles_from=ax_h)
    for ax in grid[:-1].ravel():
        ax.set_xlabel("")
    notes = []
    if beyond > 0:
        notes.append(f"x axis cut at {edges[-1] - 0.5:g}: up to {beyond:.1f}% of a cell's games lie beyond")
    notes.append("left: share of games at each value; right: share at or below it (further right = higher)"
                 + _cells_games(cell_jsons))
    main = title or f"Distribution of {xl[0].lower() + xl[1:]} per game"
    _titles(fig, _facet_title(main, groups, facet), "\n".join(notes))
    return fig


# ---------------------------------------------------------------------------------- comparison

_RATE_WORDS = ("win", "rate", "share")


def _is_rate(outcome: str) -> bool:
    return any(w in outcome.lower() for w in _RATE_WORDS)


def paired_difference(
    diff_rows: pd.DataFrame,
    *,
    title: str | None = None,
    a_label: str = "A",
    b_label: str = "B",
    conf: float = 0.95,
    setup: str | None = None,
) -> Figure:
    """Forest plot of paired differences b − a, one row per outcome on its own scale.

    ``diff_rows`` has ``outcome``, ``diff``, ``lo``, ``hi``, ``significant`` (optionally ``a``, ``b``).
    Rates ("win rate", ...) are shown in percentage points. ``setup`` (a line or two: what A and B are,
    the settings they share, games, seed) is printed under the title.
    """
    need = ("outcome", "diff", "lo", "hi")
    missing = [c for c in need if c not in diff_rows]
    if missing:
        raise NoData(f"comparison rows lack {', '.join(missing)}")
    rows = diff_rows.reset_index(drop=True)
    if rows.empty:
        raise NoData("no outcomes to compare")
    n = len(rows)
    if setup:  # long settings wrap within the figure's width
        import textwrap

        setup = "\n".join(w for line in setup.splitlines() for w in textwrap.wrap(line, 95) or [""])
    fig = _figure(9.0, 1.15 + 0.85 * n + (0.2 * (setup.count("\n") + 1) if setup else 0.0))
    axes = np.atleast_1d(fig.subplots(n, 1))
    if setup:
        axes[0].set_title(setup, loc="left", fontsize=9.5, color="#222222")
    for ax, (_, r) in zip(axes, rows.iterrows()):
        name = str(r["outcome"])
        rate = _is_rate(name)
        k = 100.0 if rate else 1.0
        unit = " pp" if rate else ""
        d, lo, hi = float(r["diff"]) * k, float(r["lo"]) * k, float(r["hi"]) * k
        sig = bool(r.get("significant", (lo > 0) or (hi < 0)))
        col = "#c0392b" if sig else "#7f7f7f"
        ax.axvline(0, color="black", lw=1)
        if math.isfinite(lo) and math.isfinite(hi):
            ax.plot([lo, hi], [0, 0], color=col, lw=3, solid_capstyle="butt")
        ax.plot([d], [0], "o", color=col, ms=9)
        span = max(abs(v) for v in (d, lo, hi) if math.isfinite(v)) if any(
            math.isfinite(v) for v in (d, lo, hi)) else 1.0
        span = span * 1.25 if span > 0 else 1.0
        ax.set_xlim(-span, span)
        ax.set_ylim(-1, 1)
        shown = "Win rate" if name.lower() in ("win", "win rate", "win_rate") else outcome_label(name)
        ax.set_yticks([0], [shown + (" (pp)" if rate else "")], fontsize=10)
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(axis="x", alpha=0.3)
        txt = f"{d:+.2f}{unit}  [{lo:+.2f}, {hi:+.2f}]  " + ("significant" if sig else "not significant")
        if "a" in rows and "b" in rows:
            fa = (lambda x: f"{x * 100:.1f}%") if rate else (lambda x: f"{x:.2f}")
            txt = f"{a_label} {fa(float(r['a']))} → {b_label} {fa(float(r['b']))}:  " + txt
        ax.text(1.02, 0.5, txt, transform=ax.transAxes, va="center", ha="left", fontsize=9, color=col)
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
    main = title or f"Paired differences {b_label} − {a_label} (same dice), with {conf_label(conf)} intervals"
    holm = "p_adjusted" in rows
    _titles(fig, main, f"right of the black line: higher under {b_label}; red = significant"
            + (" (Holm-adjusted over the outcomes)" if holm else "") + ", grey = not; pp = percentage points")
    return fig
