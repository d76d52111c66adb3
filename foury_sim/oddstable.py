"""Odds tables: exact figures beside the frequencies the engine's own code produces, printed alike for every
game (``foury-sim odds GAME``).

A game's ``odds.py`` builds an :class:`OddsTable`: a title, the table, what every column means
(``legend``), which columns are compared (``(exact, measured)`` pairs, each measured over the row's
``trials``), and the columns that name a row. This module adds the ``z`` column and the verdict, and
formats both as text and JSON.

The verdict is honest about the many comparisons of a table: each pair is an exact two-sided binomial
test of ``measured * trials`` successes against the exact probability (``stats.binomial_two_sided_p_array``:
scipy's ``binomtest``, the whole table at once), and the family is controlled with Holm's method
(``stats.adjust_pvalues``, the project's one Holm) at the level given (``conf``, default 95 %: a
family-wise error of 5 %). ``z`` is ``(measured - exact) / sqrt(exact (1 - exact) / trials)`` (shown for
size; a row with several pairs shows its largest in size); an exact 0 or 1 that the engine misses gives an
infinite ``z``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .lazy import pd
from .stats import adjust_pvalues, binomial_two_sided_p_array

#: The family-wise confidence level of an odds table's verdict (``foury-sim odds``).
ODDS_CONF = 0.95

Z = "z"

#: Width the column legend of a printed odds table wraps at.
LINE_WIDTH = 120


@dataclass(frozen=True)
class OddsTable:
    """What a game's odds function returns (``GameSpec.odds``).

    * ``title``: one line saying what the table is and with which settings (hearts, hero, trials, seed).
    * ``frame``: one row per case; ``legend``: ``{column: meaning}`` for every column of ``frame``.
    * ``compared``: ``(exact column, measured column)`` pairs; ``trials``: the column with each row's trials.
    * ``keys``: the columns that name a row in the verdict (``weapon 2, strength 3``).
    * ``notes``: lines printed after the legend (what the exact figures assume).
    * ``sections``: further tables printed after this one, each with its own title, legend, notes and (when it
      compares columns) its own z and verdict; a table comparing nothing (``compared`` empty) shows its columns
      as given, without a verdict (a model's figures beside the engine's, say, where a gap is expected).
    """

    title: str
    frame: pd.DataFrame
    legend: Mapping[str, str]
    compared: tuple[tuple[str, str], ...]
    keys: tuple[str, ...]
    trials: str = "trials"
    notes: tuple[str, ...] = field(default_factory=tuple)
    sections: tuple[OddsTable, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Verdict:
    """The agreement of an odds table's engine and exact figures."""

    agree: bool
    conf: float
    comparisons: int
    max_abs_z: float
    largest: str
    disagreements: tuple[str, ...]
    text: str


def z_scores(exact: Any, measured: Any, trials: Any) -> np.ndarray:
    """``(measured - exact) / sqrt(exact (1 - exact) / trials)``; an exact 0 or 1 gives 0 when the measured
    share equals it and an infinite z when it does not (the engine did what the exact odds rule out)."""
    p = np.asarray(exact, dtype=float)
    f = np.asarray(measured, dtype=float)
    n = np.asarray(trials, dtype=float)
    sd = np.sqrt(p * (1 - p) / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, (f - p) / np.where(sd > 0, sd, 1.0), np.where(np.isclose(f, p, rtol=0, atol=1e-12),
                                                                           0.0, np.sign(f - p) * np.inf))
    return z


def with_z(table: OddsTable) -> pd.DataFrame:
    """The table with its ``z`` column (the row's largest ``z`` in size over its compared pairs)."""
    df = table.frame.copy()
    if not table.compared:
        return df
    zs = np.column_stack([z_scores(df[e], df[m], df[table.trials]) for e, m in table.compared])
    pick = np.argmax(np.where(np.isnan(zs), -1.0, np.abs(zs)), axis=1)
    df[Z] = zs[np.arange(len(df)), pick] if len(df) else np.zeros(0)
    return df


def verdict(table: OddsTable, conf: float = ODDS_CONF) -> Verdict:
    """Do the engine's frequencies agree with the exact odds? Holm over every compared pair (exact
    binomial tests) at family-wise level ``1 - conf``."""
    df = table.frame
    names, ks, ns, ps, zs = [], [], [], [], []
    keys = [df[k].to_numpy() for k in table.keys]  # (columns read once: a row's ``iloc`` costs about 0.1 ms)
    trials = df[table.trials].to_numpy()
    pairs = [(e, m, df[e].to_numpy(dtype=float), df[m].to_numpy(dtype=float)) for e, m in table.compared]
    pair_z = [z_scores(ex, me, trials) for _, _, ex, me in pairs]
    for i in range(len(df)):
        n = int(trials[i])
        row = ", ".join(f"{k} {col[i]}" for k, col in zip(table.keys, keys))
        for (e, m, ex, me), z in zip(pairs, pair_z):
            p, f = float(ex[i]), float(me[i])
            k = int(round(f * n))
            names.append(f"{row}: {m} {f:.4f} vs {e} {p:.4f}")
            ks.append(k)
            ns.append(n)
            ps.append(p)
            zs.append(float(z[i]))
    alpha = 1 - conf
    m = len(ks)
    if m == 0:
        return Verdict(True, conf, 0, 0.0, "", (), "nothing compared")
    pvals = binomial_two_sided_p_array(ks, ns, ps)  # (scipy's binomtest, every comparison at once)
    reject = adjust_pvalues(pvals, "holm") <= alpha  # (as every family of the project: stats.adjust_pvalues)
    absz = np.abs(np.array(zs))
    i = int(np.argmax(absz))
    bad = tuple(nm for nm, r in zip(names, reject) if r)
    lvl = level_text(conf)
    largest = f"largest |z| {absz[i]:.2f} ({names[i]})"
    if not bad:
        text = (f"engine and exact odds agree: none of the {m} comparisons differs at the {lvl} family-wise level "
                f"(exact binomial tests, Holm); {largest}")
    else:
        shown = "; ".join(bad[:5]) + (f"; ... ({len(bad) - 5} more)" if len(bad) > 5 else "")
        text = (f"ENGINE AND EXACT ODDS DISAGREE: {len(bad)} of {m} comparisons differ at the {lvl} family-wise "
                f"level (exact binomial tests, Holm): {shown}")
    return Verdict(not bad, conf, m, float(absz[i]), names[i], bad, text)


def level_text(conf: float) -> str:
    """``95 %``: the level as used (never rounded up to 100 %)."""
    return f"{100 * conf:.12g} %"


def z_legend(table: OddsTable) -> str:
    several = len(table.compared) > 1
    return ("(measured - exact) / binomial standard error sqrt(exact (1 - exact) / trials)"
            + (f"; the row's largest in size of its {len(table.compared)} comparisons" if several else "")
            + "; the verdict weighs every comparison of the table together")


def legend(table: OddsTable) -> dict[str, str]:
    """``{column: meaning}`` for every printed column (the table's own and ``z``)."""
    out = {c: table.legend.get(c, "") for c in table.frame.columns}
    if table.compared:
        out[Z] = z_legend(table)
    return out


def format_odds(table: OddsTable, conf: float = ODDS_CONF) -> str:
    """The text of ``foury-sim odds``: title, table (with z), what each column means, notes, verdict."""
    df = with_z(table)
    v = verdict(table, conf) if table.compared else None
    with pd.option_context("display.max_rows", 500, "display.width", 250, "display.float_format", "{:.4f}".format):
        body = df.to_string(index=False)
    leg = legend(table)
    width = max(len(c) for c in leg)
    lines = [table.title, "", body, "", "Columns:"]
    wrap = max(40, LINE_WIDTH - width - 4)
    for c, text in leg.items():  # long meanings wrap under themselves
        parts = textwrap.wrap(text, wrap) or [""]
        lines += [f"  {c:{width}s}  {parts[0]}"] + [f"  {'':{width}s}  {p}" for p in parts[1:]]
    if table.notes:
        lines += [""] + [x for note in table.notes for x in textwrap.wrap(note, LINE_WIDTH)]
    if v is not None:
        lines += ["", f"Verdict: {v.text}"]
    for sub in table.sections:
        lines += ["", "", format_odds(sub, conf)]
    return "\n".join(lines)


def odds_json(table: OddsTable, conf: float = ODDS_CONF) -> dict[str, Any]:
    """The JSON of ``foury-sim odds --format json``: the same title, legend and verdict, and the rows."""
    from .files import to_jsonable

    df = with_z(table)
    out: dict[str, Any] = {"title": table.title, "columns": legend(table), "notes": list(table.notes), "conf": conf}
    if table.compared:
        v = verdict(table, conf)
        out["verdict"] = {"agree": v.agree, "text": v.text, "comparisons": v.comparisons, "max_abs_z": v.max_abs_z,
                          "largest": v.largest, "disagreements": list(v.disagreements),
                          "method": "exact two-sided binomial test per comparison, Holm over the table"}
    out["rows"] = df.to_dict(orient="records")
    if table.sections:
        out["sections"] = [odds_json(sub, conf) for sub in table.sections]
    return to_jsonable(out)


def columns_in(frame: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """``frame`` with ``order``'s columns first (in that order), then the rest."""
    first = [c for c in order if c in frame.columns]
    return frame[first + [c for c in frame.columns if c not in first]]


__all__ = ["OddsTable", "Verdict", "ODDS_CONF", "z_scores", "with_z", "verdict", "legend", "format_odds",
           "odds_json", "columns_in"]
