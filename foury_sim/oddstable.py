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
family-wise error of 5 %). A correct engine still shows such a disagreement on about 5 % of seeds, so a
table that disagrees is measured again on fresh dice (``foury-sim odds`` plays it once more on the next seed:
independent streams) and only the comparisons that differ again, Holm over those flagged at the same level, are
a disagreement: a correct engine is then called wrong on at most about (1 - conf)**2 of seeds (0.25 % at 95 %),
while a real error, which persists on any dice, is found again. ``z`` is
``(measured - exact) / sqrt(exact (1 - exact) / trials)`` (shown for size; a row with several pairs shows its
largest in size); an exact 0 or 1 that the engine misses gives an infinite ``z``.
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
    #: The first look's tests by level (``_first_look``), kept once made: ``foury-sim odds`` asks for them twice
    #: (``needs_confirming``, then the verdict it prints). A table is not changed once its verdict is asked for.
    _looks: dict[float, Any] = field(default_factory=dict, init=False, repr=False, compare=False)


@dataclass(frozen=True)
class Verdict:
    """The agreement of an odds table's engine and exact figures. ``flagged``: the comparisons the first look
    found different (Holm at ``1 - conf``); ``disagreements``: those that differ again on the fresh dice of
    ``confirm_seed`` (without a second look: the flagged ones)."""

    agree: bool
    conf: float
    comparisons: int
    max_abs_z: float
    largest: str
    disagreements: tuple[str, ...]
    text: str
    flagged: tuple[str, ...] = ()
    confirm_seed: int | None = None


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


def _comparisons(table: OddsTable) -> tuple[list[str], list[int], list[int], list[float], list[float]]:
    """Every compared pair of every row: its name (the row, the measured and exact figures), successes, trials,
    exact probability and z, in row order then pair order."""
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
    return names, ks, ns, ps, zs


def _shown(names: Sequence[str], p_adj: Sequence[float]) -> str:
    """Up to five comparisons with their Holm-adjusted p-values."""
    items = [f"{nm} (p adj {p:.2g})" for nm, p in zip(names, p_adj)]
    return "; ".join(items[:5]) + (f"; ... ({len(items) - 5} more)" if len(items) > 5 else "")


def _first_look(table: OddsTable, conf: float) -> tuple[Any, ...]:
    """Every comparison of the table (``_comparisons``) with its Holm-adjusted p-value (exact binomial tests) and the
    indices of those flagged at family-wise level ``1 - conf``; made once per table and level (``OddsTable._looks``)."""
    look = table._looks.get(conf)
    if look is None:
        names, ks, ns, ps, zs = _comparisons(table)
        pvals = binomial_two_sided_p_array(ks, ns, ps) if ks else np.zeros(0)  # (scipy's binomtest, all at once)
        p_adj = adjust_pvalues(pvals, "holm") if ks else pvals  # (as every family of the project)
        look = table._looks[conf] = (names, ks, ns, ps, zs, p_adj, np.flatnonzero(p_adj <= 1 - conf))
    return look


def verdict(table: OddsTable, conf: float = ODDS_CONF, confirm: OddsTable | None = None,
            confirm_seed: int | None = None) -> Verdict:
    """Do the engine's frequencies agree with the exact odds? Holm over every compared pair (exact
    binomial tests) at family-wise level ``1 - conf``. ``confirm``: the same table measured on fresh dice (seed
    ``confirm_seed``); the comparisons the first look flags are tested again on it (Holm over those flagged, at
    the same level), and only those that differ in both are a disagreement. Without ``confirm`` the flagged ones
    are the disagreements."""
    names, ks, ns, ps, zs, p_adj, flag = _first_look(table, conf)
    alpha = 1 - conf
    m = len(ks)
    if m == 0:
        return Verdict(True, conf, 0, 0.0, "", (), "nothing compared")
    absz = np.abs(np.array(zs))
    i = int(np.argmax(absz))
    flagged = tuple(names[j] for j in flag)
    lvl = level_text(conf)
    largest = f"largest |z| {absz[i]:.2f} ({names[i]})"
    first = f"at the {lvl} family-wise level (exact binomial tests, Holm)"
    if not len(flag):
        text = f"engine and exact odds agree: none of the {m} comparisons differs {first}; {largest}"
        return Verdict(True, conf, m, float(absz[i]), names[i], (), text)
    if confirm is None:
        text = (f"ENGINE AND EXACT ODDS DISAGREE: {len(flag)} of {m} comparisons differ {first}: "
                f"{_shown(flagged, p_adj[flag])}")
        return Verdict(False, conf, m, float(absz[i]), names[i], flagged, text, flagged)
    names2, ks2, ns2, ps2, _ = _comparisons(confirm)
    if len(names2) != m or ps2 != ps:
        raise ValueError("the confirming odds table does not compare the same figures")
    p2 = binomial_two_sided_p_array([ks2[j] for j in flag], [ns2[j] for j in flag], [ps[j] for j in flag])
    p2_adj = adjust_pvalues(p2, "holm")
    again = [k for k in range(len(flag)) if p2_adj[k] <= alpha]
    bad = tuple(names[flag[k]] for k in again)
    fresh = f"fresh dice (seed {confirm_seed})" if confirm_seed is not None else "fresh dice"
    look = f"the first look flagged {len(flag)} of {m} comparisons {first}: {_shown(flagged, p_adj[flag])}"
    if not bad:
        text = (f"engine and exact odds agree: {look}; none differs again on {fresh} (Holm over those flagged): "
                f"a chance deviation, as a correct engine shows on about {100 * alpha:.3g} % of seeds; {largest}")
        return Verdict(True, conf, m, float(absz[i]), names[i], (), text, flagged, confirm_seed)
    text = (f"ENGINE AND EXACT ODDS DISAGREE: {len(bad)} of {m} comparisons differ {first} and again on {fresh} "
            f"(Holm over the {len(flag)} flagged): "
            + _shown([names2[flag[k]] for k in again], [p2_adj[k] for k in again]))
    return Verdict(False, conf, m, float(absz[i]), names[i], bad, text, flagged, confirm_seed)


def needs_confirming(table: OddsTable, conf: float = ODDS_CONF) -> bool:
    """Whether a first look at the table (or one of its sections) flags a comparison: ``foury-sim odds`` then
    measures the table again on fresh dice (``verdict``'s ``confirm``)."""
    return (bool(table.compared) and not verdict(table, conf).agree) or any(
        needs_confirming(sub, conf) for sub in table.sections)


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


def format_odds(table: OddsTable, conf: float = ODDS_CONF, confirm: OddsTable | None = None,
                confirm_seed: int | None = None, header: Sequence[str] = ()) -> str:
    """The text of ``foury-sim odds``: title, ``header`` (how it was made), table (with z), what each column
    means, notes, verdict (``confirm``: the table measured again on fresh dice, see ``verdict``)."""
    df = with_z(table)
    v = verdict(table, conf, confirm, confirm_seed) if table.compared else None
    with pd.option_context("display.max_rows", 500, "display.width", 250, "display.float_format", "{:.4f}".format):
        body = df.to_string(index=False)
    leg = legend(table)
    width = max(len(c) for c in leg)
    lines = [table.title, *header, "", body, "", "Columns:"]
    wrap = max(40, LINE_WIDTH - width - 4)
    for c, text in leg.items():  # long meanings wrap under themselves
        parts = textwrap.wrap(text, wrap) or [""]
        lines += [f"  {c:{width}s}  {parts[0]}"] + [f"  {'':{width}s}  {p}" for p in parts[1:]]
    if table.notes:
        lines += [""] + [x for note in table.notes for x in textwrap.wrap(note, LINE_WIDTH)]
    if v is not None:
        lines += ["", f"Verdict: {v.text}"]
    for k, sub in enumerate(table.sections):
        lines += ["", "", format_odds(sub, conf, confirm.sections[k] if confirm is not None else None, confirm_seed)]
    return "\n".join(lines)


def odds_json(table: OddsTable, conf: float = ODDS_CONF, confirm: OddsTable | None = None,
              confirm_seed: int | None = None, provenance: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON of ``foury-sim odds --format json``: the same title, legend and verdict, the rows, and how it was
    made (``provenance``)."""
    from .files import to_jsonable

    df = with_z(table)
    out: dict[str, Any] = {"title": table.title, "columns": legend(table), "notes": list(table.notes), "conf": conf}
    if table.compared:
        v = verdict(table, conf, confirm, confirm_seed)
        out["verdict"] = {"agree": v.agree, "text": v.text, "comparisons": v.comparisons, "max_abs_z": v.max_abs_z,
                          "largest": v.largest, "disagreements": list(v.disagreements),
                          "flagged": list(v.flagged), "confirm_seed": v.confirm_seed,
                          "method": "exact two-sided binomial test per comparison, Holm over the table; the "
                                    "comparisons flagged tested again on fresh dice (Holm over those flagged)"}
    out["rows"] = df.to_dict(orient="records")
    if table.sections:
        out["sections"] = [odds_json(sub, conf, confirm.sections[k] if confirm is not None else None, confirm_seed)
                           for k, sub in enumerate(table.sections)]
    if provenance is not None:
        out["provenance"] = provenance
    return to_jsonable(out)


def columns_in(frame: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """``frame`` with ``order``'s columns first (in that order), then the rest."""
    first = [c for c in order if c in frame.columns]
    return frame[first + [c for c in frame.columns if c not in first]]


__all__ = ["OddsTable", "Verdict", "ODDS_CONF", "z_scores", "with_z", "verdict", "needs_confirming", "legend",
           "format_odds", "odds_json", "columns_in"]
