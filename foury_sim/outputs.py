"""Per-game outputs, declared once: the columns a game writes for every game played, and the summary
entries the game adds to a run's summary.

A game declares an :class:`Outputs` in ``games/<name>/outputs.py``: its :class:`Column` s in the order
its kernel writes them (the kernel's index constants ``OUT_*`` are derived from that order), columns
derived in Python from the others (``derive``), and :class:`SummaryKey` s for the breakdowns its own
``summarize`` returns. The runner's summary, the command line's text summary, ``compare``, the
sweep tables, the study report and its figures all read the declaration, so adding a column is one
declaration (plus, for a kernel column, the line of the kernel's ``write_out`` that fills it).

``python -m foury_sim.outputs --markdown`` prints ``docs/outputs.md`` (every column of every game).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import stats
from .lazy import pd

#: How a column is summarised over a run's games.
RATE = "rate"  #: 0/1 per game: the share of games with 1, with a Wilson interval
MEAN = "mean"  #: a number per game: mean with a t interval, median with its order-statistic interval, range
CATEGORY = "category"  #: a code per game: games per category label
NONE = "none"  #: not summarised (bookkeeping such as ``game`` or ``dice_rolled``, or breakdowns the game makes)
SUMMARIES = (RATE, MEAN, CATEGORY, NONE)

#: How a game's own summary entry (``SummaryKey.kind``) is printed.
COUNTS = "counts"  #: {label: games}: printed as shares of all games
SHARES = "shares"  #: {label: fraction}: printed in percent
NUMBERS = "numbers"  #: {label: number}
SHARE = "share"  #: a fraction: printed in percent
NUMBER = "number"  #: a number
KINDS = (COUNTS, SHARES, NUMBERS, SHARE, NUMBER)
#: What a SHARE or SHARES entry is a share of (``SummaryKey.per``).
PERS = ("", "games", "lost games")

#: Width of the label column of the text summary.
LABEL_WIDTH = 19


@dataclass(frozen=True)
class Column:
    """One per-game output column.

    * ``name``: the column of the per-game table (``games.parquet``); a repeated column (``repeat``) has
      ``{n}`` in its name (``round{n}_turns`` -> ``round1_turns``, ``round2_turns``, ...).
    * ``label``, ``unit``, ``doc``: what a designer reads (figure axes, report headings, docs/outputs.md).
    * ``summary``: RATE, MEAN, CATEGORY or NONE (see the module constants).
    * ``categories``: labels of the codes of a code column: a sequence (code = index), a mapping, or a
      function ``(code, ruleset) -> label`` (for labels that depend on the ruleset). The written tables
      (``games.csv``/``.parquet``, a sweep's per-game cells, ``compare``'s tables) carry the labels
      (:meth:`Outputs.labelled`); the in-memory table keeps the codes.
    * ``ordered``: the labels have an order (rounds, sectors, ranks): an ordered categorical in parquet,
      its categories in the declared order (a mapping's or sequence's order, else by code).
    * ``codes``: ``ruleset -> codes``: every code of a function-labelled column (so a table lists every
      category, also those no game reached); otherwise the codes present in the table.
    * ``legend``: one short line after a run's printed figures saying what the figure means (what a
      "win" is, what a rate is per), or a function of the run's summary giving it (what a win is in the variant
      played); empty: no line.
    * ``index``: the kernel's constant for the column's position (``"OUT_WIN"``); None for a column the
      kernel does not write.
    * ``derive``: a function of the per-game table returning the column (a column computed in Python).
    * ``repeat``: ``ruleset -> count`` for a column written once per round, player, ... (the ruleset says how many)
    * ``key``: its entry in the run summary (default ``name``); ``text``: the label of its line in the
      printed summary (default ``name`` with spaces); ``note``: printed after a rate's interval.
    * ``report``: a MEAN column is a column of the study report's cells table; ``distribution``: the
      report draws its distribution per cell.
    * ``driver``: written by the game's Python driver around the kernel (e.g. ``game``), not by the kernel.
    * ``only``: ``ruleset -> bool``: the column exists only under rulesets where it is true (a mode's own
      outputs, e.g. a 2-player mode); absent without a ruleset. Kernel ones come after every other
      kernel column, so that the others keep their places.
    * ``histogram``: the game's own summary reads this column's exact histogram (``GameSpec.summarize_hists``),
      so a chunk's partial keeps it beside the summarised columns' (a streamed run needs no rows for it).
    """

    name: str
    label: str
    unit: str = ""
    summary: str = NONE
    doc: str = ""
    dtype: str = "int64"
    categories: Sequence[str] | Mapping[int, str] | Callable[[int, Any], str] | None = None
    index: str | None = None
    derive: Callable[[pd.DataFrame], Any] | None = None
    repeat: Callable[[Any], int] | None = None
    key: str | None = None
    text: str | None = None
    note: str = ""
    report: bool = True
    distribution: bool = False
    driver: bool = False
    ordered: bool = False
    codes: Callable[[Any], Sequence[int]] | None = None
    legend: str | Callable[[dict[str, Any]], str] = ""
    only: Callable[[Any], bool] | None = None
    histogram: bool = False
    #: ``derive`` reads its columns as numpy arrays (a dict of the kernel's columns serves as the table): a run's
    #: summary then needs no pandas; a ``derive`` without it is given a pandas table (its Series methods work)
    derive_arrays: bool = False

    def __post_init__(self) -> None:
        if self.summary not in SUMMARIES:
            raise ValueError(f"column {self.name!r}: summary must be one of {SUMMARIES}, not {self.summary!r}")
        if self.derive is not None and (self.index is not None or self.repeat is not None or self.driver):
            raise ValueError(f"column {self.name!r}: a derived column has no kernel index and no repeat")
        if (self.repeat is not None) != ("{n}" in self.name):
            raise ValueError(f"column {self.name!r}: a repeated column has {{n}} in its name, and only it")

    @property
    def summary_key(self) -> str:
        return self.key or self.name

    @property
    def text_label(self) -> str:
        return self.text if self.text is not None else self.name.replace("_", " ")

    @property
    def axis_label(self) -> str:
        """``label (unit)``: a figure axis."""
        return f"{self.label} ({self.unit})" if self.unit else self.label

    @property
    def kernel(self) -> bool:
        """Written by the kernel (not by the driver, not derived in Python)."""
        return self.derive is None and not self.driver

    @property
    def source(self) -> str:
        return "derived" if self.derive is not None else ("driver" if self.driver else "kernel")

    def names(self, ruleset: Any = None) -> list[str]:
        """The table columns this declaration stands for (several for a repeated column)."""
        if self.only is not None and (ruleset is None or not self.only(ruleset)):
            return []
        if self.repeat is None:
            return [self.name]
        if ruleset is None:
            return []
        return [self.name.format(n=i + 1) for i in range(int(self.repeat(ruleset)))]

    def category(self, code: int, ruleset: Any = None) -> str:
        """The label of a code (the code itself when it has none)."""
        c = self.categories
        code = int(code)
        if c is None:
            return str(code)
        if callable(c):
            return str(c(code, ruleset))
        if isinstance(c, Mapping):
            return str(c.get(code, code))
        return str(c[code]) if 0 <= code < len(c) else str(code)

    def declared_codes(self, ruleset: Any = None) -> list[int]:
        """Every code the declaration names, in its order (a mapping's or sequence's, or ``codes``)."""
        c = self.categories
        if self.codes is not None:
            return [int(x) for x in self.codes(ruleset)] if ruleset is not None else []
        if c is None or callable(c):
            return []
        return [int(k) for k in (c.keys() if isinstance(c, Mapping) else range(len(c)))]

    def labelled(self, values: Any, ruleset: Any = None) -> pd.Categorical:
        """The codes ``values`` as a categorical of their labels: categories in the declared order (then
        codes no declaration names, by code), ordered if the column is; two codes with the same label share it."""
        x = np.asarray(values)
        present, inverse = np.unique(x, return_inverse=True)
        declared = self.declared_codes(ruleset)
        known = set(declared)
        order = declared + [int(v) for v in present if int(v) not in known]
        cats: list[str] = []
        index: dict[str, int] = {}
        for code in order:
            label = self.category(code, ruleset)
            if label not in index:
                index[label] = len(cats)
                cats.append(label)
        of_present = np.array([index[self.category(int(v), ruleset)] for v in present], dtype=np.int64)
        return pd.Categorical.from_codes(of_present[inverse.reshape(-1)] if len(x) else np.zeros(0, np.int64),
                                         categories=cats, ordered=self.ordered)


@dataclass(frozen=True)
class SummaryKey:
    """An entry a game's own ``summarize(df, ruleset)`` adds to the run summary, and how it prints.

    ``kind``: COUNTS, SHARES, NUMBERS, SHARE or NUMBER. ``text``: a function ``(value, summary) -> str``
    replacing the printed value (``None``: the kind's format); ``hidden``: not printed on its own line
    (another entry's ``text`` shows it). ``report``: heading of a cells-table column of the study report
    (SHARE entries; "" = not shown). ``finding``: a sentence of the report's findings (COUNTS: the most
    common labels over all cells, e.g. "Most common causes of the first death"; SHARE: its range over the
    cells, e.g. "The hero dies at least once in"). ``legend``: one short line after a run's printed figures
    saying what the entry means (as ``Column.legend``). ``per``: what a SHARE or SHARES entry is a share of, for its
    Wilson interval (``share_intervals``): ``"games"`` (each game counted once), ``"lost games"`` (each lost game
    once), or "" (the game's ``summarize`` gives the entry's interval itself, or it has none). A COUNTS entry is
    always of games, each counted once.
    """

    key: str
    label: str
    kind: str
    doc: str = ""
    text: Callable[[Any, dict[str, Any]], str] | None = None
    hidden: bool = False
    report: str = ""
    finding: str = ""
    legend: str = ""
    per: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"summary key {self.key!r}: kind must be one of {KINDS}, not {self.kind!r}")
        if self.per not in PERS or (self.per and self.kind not in (SHARE, SHARES)):
            raise ValueError(f"summary key {self.key!r}: per must be one of {PERS} (a SHARE or SHARES entry), "
                             f"not {self.per!r}")


@dataclass(frozen=True)
class Outputs:
    """A game's outputs: its columns (kernel columns in the order the kernel writes them, then derived
    ones), its summary entries, the figures of a study report that fit it, and the turn cap.

    * ``figures``: ``(kind, column)`` pairs the study report draws per cell: ``("survival_by_round",
      "death_round")``, ``("survival_by_turn", "death_turn")`` (the column holds the round / turn of
      the first death, 0 = never). Distributions come from ``Column.distribution``; heat maps from the
      game's board (``GameSpec.board``).
    * ``turn_cap``: ``(column, code)``: games whose ``column`` is ``code`` ended at the game's safety cap
      on turns (the summary counts them and warns above ``runner.CAP_WARN_SHARE``).
    * ``joint``: ``(a, b)`` pairs of columns whose joint histogram the game's own summary reads (games counted
      by two columns at once, e.g. first deaths by cause: ``death_round`` > 0 and ``death_cause``), kept under
      :func:`joint_key` beside the single columns' (``histograms``), so a streamed run needs no rows for them.
    """

    columns: tuple[Column, ...]
    summary_keys: tuple[SummaryKey, ...] = ()
    figures: tuple[tuple[str, str], ...] = ()
    turn_cap: tuple[str, int] | None = None
    joint: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        names = [c.name for c in self.columns]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"columns declared twice: {', '.join(sorted(dup))}")
        given = [c for c in self.columns if c.derive is None]
        if any(c.derive is None for c in self.columns[len(given):]):
            raise ValueError("kernel (and driver) columns come first, in the order written; derived ones after")
        kernel = [c for c in self.columns if c.kernel]
        if any(c.repeat is not None for c in kernel[:-1]) and kernel[-1].repeat is None:
            raise ValueError("a repeated kernel column must be the last kernel column")
        if len([c for c in kernel if c.repeat is not None]) > 1:
            raise ValueError("at most one repeated kernel column")
        first_only = next((i for i, c in enumerate(kernel) if c.only is not None), len(kernel))
        if any(c.only is None and c.repeat is None for c in kernel[first_only:]):
            raise ValueError("kernel columns that exist only under some rulesets (only) come after the others")

    # ------------------------------------------------------------------------------ declaration
    @property
    def kernel_columns(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.kernel)

    def kernel_indices(self) -> dict[str, int]:
        """``{"OUT_WIN": 0, ...}``: the kernel's constants, derived from the declaration order."""
        return {c.index: i for i, c in enumerate(self.kernel_columns) if c.index}

    def n_kernel(self, ruleset: Any = None) -> int:
        """Columns of the kernel's output array (``(count, n_kernel)``)."""
        return len(self.kernel_names(ruleset))

    def kernel_names(self, ruleset: Any = None) -> list[str]:
        """Names of the kernel's output columns, in order (repeated columns expanded for ``ruleset``)."""
        return [n for c in self.kernel_columns for n in c.names(ruleset)]

    def column(self, name: str) -> Column | None:
        """The declaration of a column (also of one instance of a repeated column)."""
        for c in self.columns:
            if c.name == name or (c.repeat is not None and _matches(c.name, name)):
                return c
        return None

    def of(self, summary: str) -> list[Column]:
        return [c for c in self.columns if c.summary == summary]

    @property
    def mean_columns(self) -> tuple[str, ...]:
        """The MEAN columns (summary means with intervals, sweep-table means, compared in ``compare``)."""
        return tuple(c.name for c in self.of(MEAN))

    def summary_key(self, key: str) -> SummaryKey | None:
        return next((k for k in self.summary_keys if k.key == key), None)

    def plus(self, *columns: Column, summary_keys: Sequence[SummaryKey] = ()) -> Outputs:
        """A copy with more columns (derived ones, or kernel ones before the derived) and summary entries."""
        given = [c for c in columns if c.derive is None]
        derived = [c for c in columns if c.derive is not None]
        cols = (*(c for c in self.columns if c.derive is None), *given,
                *(c for c in self.columns if c.derive is not None), *derived)
        return dataclasses.replace(self, columns=cols, summary_keys=(*self.summary_keys, *summary_keys))

    # ------------------------------------------------------------------------------- per-game table
    def frame(self, out: np.ndarray, ruleset: Any = None, first: dict[str, np.ndarray] | None = None
              ) -> dict[str, np.ndarray]:
        """The kernel's output array ``(count, n_kernel)`` as named columns (after ``first``, e.g. ``game``)."""
        cols = dict(first or {})
        for i, name in enumerate(self.kernel_names(ruleset)):
            cols[name] = out[:, i]
        return cols

    def add_derived(self, df: Any) -> Any:
        """The per-game table (or a dict of its columns, which becomes a table for a derive without
        ``derive_arrays``) with the derived columns added (in declaration order; each may use the
        ones before it). The one place derived columns are computed: runs, sweeps and comparisons
        all take their tables from ``runner.play_games``, which calls this."""
        for c in self.columns:
            if c.derive is None or c.name in df:
                continue
            if isinstance(df, dict) and not c.derive_arrays:  # (a designer's derive may use pandas' methods)
                df = pd.DataFrame(df, copy=False)
            try:
                df[c.name] = np.asarray(c.derive(df)).astype(c.dtype, copy=False)
            except KeyError:  # a table without the columns it derives from (a made-up or older table)
                continue
        return df

    # ------------------------------------------------------------------------------------- summary
    def summarize(self, df: pd.DataFrame, ruleset: Any = None, conf: float = 0.95) -> dict[str, Any]:
        """Summary entries of the declared columns: rates (Wilson), means (t interval), category counts; computed
        from the columns' histograms (``summarize_hists``), as a streamed run computes them chunk by chunk."""
        return self.summarize_hists(self.histograms(df), len(df), ruleset, conf)

    def summarized_names(self, names: Any) -> list[str]:
        """The columns of a table (``names``) a summary reads: every declared RATE, MEAN and CATEGORY column,
        ``win``, the turn cap's column and the columns declared ``histogram`` (every instance of a repeated one)."""
        want = {c.name for c in self.columns if c.summary != NONE} | {"win"}
        if self.turn_cap is not None:
            want.add(self.turn_cap[0])
        hist = [c for c in self.columns if c.histogram]
        return [n for n in names if n in want or any(c.name == n or (c.repeat is not None and _matches(c.name, n))
                                                     for c in hist)]

    def histograms(self, cols: Any) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """``{column: (values, counts)}``: the exact histogram (distinct values in increasing order, and how
        many games have each) of every column a summary reads (``summarized_names``), and under
        ``joint_key(a, b)`` the joint one of each ``joint`` pair the table has (values: rows ``(a, b)``);
        ``cols`` is a table or a dict of arrays. Histograms of two chunks of games merge with
        :func:`merge_histograms`."""
        names = list(cols.keys())
        out = {name: histogram(np.asarray(cols[name])) for name in self.summarized_names(names)}
        for a, b in self.joint:
            if a in names and b in names:
                out[joint_key(a, b)] = histogram(np.stack([np.asarray(cols[a]), np.asarray(cols[b])], axis=1))
        return out

    def summarize_hists(self, hists: Mapping[str, tuple[np.ndarray, np.ndarray]], n: int, ruleset: Any = None,
                        conf: float = 0.95) -> dict[str, Any]:
        """The declared columns' summary entries from their histograms (``histograms``) over ``n`` games:
        rates (the share of games with a value other than 0, Wilson interval), means (``stats.summarize_counts``)
        and category counts (most games first, ties by code)."""
        out: dict[str, Any] = {}
        for c in self.columns:
            if c.summary == NONE or c.name not in hists:
                continue
            v, k = hists[c.name]
            if c.summary == RATE:
                out[c.summary_key] = stats.summarize_rate(int(k[v != 0].sum()), n, conf)
            elif c.summary == MEAN:
                out[c.summary_key] = stats.summarize_counts(v, k, conf)
            else:
                out[c.summary_key] = {c.category(code, ruleset): games for code, games in most_common(tally((v, k)))}
        return out

    def labelled(self, df: pd.DataFrame, ruleset: Any = None) -> pd.DataFrame:
        """A copy of the per-game table for writing: every code column (``Column.categories``) as a categorical
        of its labels (a parquet column of categories, ordered where the column is; words in a CSV). The
        in-memory table stays numeric: summaries, statistics and figures read the codes."""
        out = df.copy(deep=False)  # copy-on-write: replacing a column never touches df (nor copies the others)
        for name in df.columns:
            c = self.column(str(name))
            if c is None or c.categories is None or not pd.api.types.is_integer_dtype(df[name].dtype):
                continue
            out[name] = c.labelled(df[name].to_numpy(), ruleset)
        return out

    def turn_cap_count(self, df: pd.DataFrame) -> int | None:
        """Games that ended at the turn cap (None when the game has no cap or the table lacks its column)."""
        if self.turn_cap is None or self.turn_cap[0] not in df:
            return None
        col, code = self.turn_cap
        return int((df[col] == code).sum())

    def turn_cap_count_hists(self, hists: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> int | None:
        """``turn_cap_count`` from the histograms of a run (``histograms``)."""
        if self.turn_cap is None or self.turn_cap[0] not in hists:
            return None
        v, k = hists[self.turn_cap[0]]
        return int(k[v == self.turn_cap[1]].sum())


def joint_key(a: str, b: str) -> str:
    """The key of the joint histogram of columns ``a`` and ``b`` (``Outputs.joint``) among a run's histograms."""
    return f"{a}&{b}"


def histogram(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The exact histogram of a column: (distinct values increasing, counts as int64). Integer columns of a
    small range are counted with ``np.bincount`` (a pass over the games, no sort). ``x`` of shape (n, 2): the
    joint histogram of two columns (values: the distinct rows, in increasing order of the first column, then
    of the second)."""
    x = np.asarray(x)
    if x.ndim == 2:
        return _histogram2(x)
    x = x.ravel()
    if x.dtype == bool:
        x = x.view(np.uint8) if x.flags.c_contiguous else x.astype(np.uint8)
    if x.size and np.issubdtype(x.dtype, np.integer):
        lo, hi = int(x.min()), int(x.max())
        if hi - lo <= max(4 * x.size, 1 << 16):
            k = np.bincount((x - lo).astype(np.intp, copy=False) if lo else x.astype(np.intp, copy=False),
                            minlength=hi - lo + 1).astype(np.int64)
            nz = np.flatnonzero(k)
            return (nz + lo).astype(np.int64), k[nz]
    v, k = np.unique(x, return_counts=True)
    return v, k.astype(np.int64)


def _histogram2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``histogram`` of the rows of an (n, 2) integer array: each row a code of a small range counted with
    ``np.bincount`` (else ``np.unique`` over the rows)."""
    x = x.astype(np.int64, copy=False)
    if x.shape[0] == 0:
        return np.zeros((0, 2), np.int64), np.zeros(0, np.int64)
    lo = [int(v) for v in x.min(axis=0)]
    span = [int(v) - a + 1 for v, a in zip(x.max(axis=0), lo)]  # (Python ints: no int64 overflow over a wide range)
    if span[0] * span[1] <= max(4 * x.shape[0], 1 << 16):
        k = np.bincount((x[:, 0] - lo[0]) * span[1] + (x[:, 1] - lo[1]), minlength=span[0] * span[1])
        nz = np.flatnonzero(k)
        return np.stack([nz // span[1] + lo[0], nz % span[1] + lo[1]], axis=1).astype(np.int64), k[nz].astype(np.int64)
    v, k = np.unique(x, axis=0, return_counts=True)
    return v, k.astype(np.int64)


def merge_histograms(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The histogram of two samples from theirs (the same whatever the order; joint ones too)."""
    v = np.concatenate([a[0], b[0]])
    k = np.concatenate([a[1], b[1]])
    u, inv = np.unique(v, return_inverse=True, axis=0 if v.ndim == 2 else None)
    out = np.zeros(len(u), dtype=np.int64)
    np.add.at(out, inv.ravel(), k.astype(np.int64))
    return u, out


def hist_total(h: tuple[np.ndarray, np.ndarray]) -> int:
    """The exact sum of a column over the games from its histogram (an integer column)."""
    return sum(int(a) * int(b) for a, b in zip(h[0], h[1]))


def hist_count(h: tuple[np.ndarray, np.ndarray], keep: np.ndarray) -> int:
    """Games whose value passes ``keep`` (a boolean mask over the histogram's values, e.g. ``h[0] > 0``)."""
    return int(h[1][keep].sum())


def tally(h: tuple[np.ndarray, np.ndarray], keep: np.ndarray | None = None) -> dict[int, int]:
    """``{code: games}`` of a joint histogram's second column over the rows ``keep`` passes (every row: None),
    in increasing order of the code: e.g. first deaths by cause from ``death_round&death_cause`` with
    ``keep = h[0][:, 0] > 0``. A single column's histogram: its own codes."""
    v, k = h
    if keep is not None:
        v, k = v[keep], k[keep]
    codes = v[:, 1] if v.ndim == 2 else v
    out: dict[int, int] = {}
    for c, n in zip(codes.tolist(), k.tolist()):
        if n > 0:
            out[int(c)] = out.get(int(c), 0) + int(n)
    return dict(sorted(out.items()))


def most_common(counts: dict[int, int], top: int | None = None) -> list[tuple[int, int]]:
    """``(code, games)`` pairs, most games first, ties by code (a run's order, whatever the order of its games)."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]


def _matches(pattern: str, name: str) -> bool:
    head, _, tail = pattern.partition("{n}")
    mid = name[len(head): len(name) - len(tail)] if len(name) > len(head) + len(tail) else ""
    return name.startswith(head) and name.endswith(tail) and mid.isdigit()


# --------------------------------------------------------------------------------- text summary
def fmt_rate(r: dict[str, Any]) -> str:
    return f"{100 * r['rate']:6.2f} %  [{100 * r['lo']:.2f}, {100 * r['hi']:.2f}]"


def fmt_numeric(r: dict[str, Any]) -> str:
    """``mean 2.75 [2.73, 2.78]  median 3 [3, 3]  range 1..3``: the mean with its t interval and the median with its
    order-statistic interval (both at the run's level, ``summarize_counts``). A mean with no interval (one game: no
    spread to measure) says so instead of printing ``[nan, nan]``; a side of the median's interval that too few games
    cannot bound prints as ``-inf`` / ``inf`` (``null`` in the JSON: read as no bound; docs/statistics.md)."""
    iv = mean_bracket(r.get("mean_lo"), r.get("mean_hi"), r.get("n"))
    return (f"mean {r['mean']:8.2f} {iv}  median {r['median']:g}{median_bracket(r)}  "
            f"range {r['min']:g}..{r['max']:g}")


def mean_bracket(lo: Any, hi: Any, n: Any = None) -> str:
    """``[lo, hi]`` of a mean's interval (2 decimals); "(no interval from 1 game)" where there is none (one game: no
    spread to measure; ``None`` or NaN, as a summary read back from its JSON gives it)."""
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return f"(no interval from {n:,} game{'s' if n != 1 else ''})" if isinstance(n, int) else "(no interval)"
    return f"[{lo:.2f}, {hi:.2f}]"


def median_bracket(r: dict[str, Any], lo_key: str = "median_lo", hi_key: str = "median_hi") -> str:
    """`` [lo, hi]`` of a median's order-statistic interval (``:g``); a side the games cannot bound (``-inf`` /
    ``inf``, or ``None``: a summary read back from its JSON, which writes no bound as ``null``) prints as ``-inf`` /
    ``inf``; "" when the summary has no such interval (no key, or NaN: no games)."""
    if lo_key not in r or hi_key not in r:
        return ""
    lo, hi = r[lo_key], r[hi_key]
    lo = -math.inf if lo is None else lo
    hi = math.inf if hi is None else hi
    if not (_is_num(lo) and _is_num(hi)) or lo != lo or hi != hi:
        return ""
    return f" [{lo:g}, {hi:g}]"


def _shares(d: dict[Any, int], n: int, top: int = 8) -> str:
    """The ``top`` first labels' shares of ``n`` games, then how many labels more and their share together (the
    JSON has every label)."""
    if not n:
        return "-"
    items = list(d.items())
    text = ", ".join(f"{k}: {100 * v / n:.1f} %" for k, v in items[:top])
    if len(items) > top:
        text += f", {len(items) - top} more: {100 * sum(v for _, v in items[top:]) / n:.1f} %"
    return text


#: The summary entry of the intervals of the shares of games by label (``share_intervals``).
SHARE_INTERVALS = "share_intervals"

#: The summary entry of the intervals of a game's own figures (NUMBER and NUMBERS entries): the t interval of a mean
#: per game (``mean_interval``), the delta-method interval of a ratio of sums over games (``ratio_interval``):
#: ``{entry: [lo, hi]}`` for a NUMBER, ``{entry: {label: [lo, hi]}}`` for a NUMBERS entry, given by the game's
#: ``summarize_hists``.
MEAN_INTERVALS = "mean_intervals"


def mean_interval(h: tuple[np.ndarray, np.ndarray], conf: float) -> list[float]:
    """``[lo, hi]``: the t interval (at ``conf``) of the mean per game of a column from its histogram (the same
    interval as a declared mean column's, ``stats.summarize_counts``; NaN from fewer than 2 games)."""
    m = stats.summarize_counts(h[0], h[1], conf)
    return [float(m["mean_lo"]), float(m["mean_hi"])]


def ratio_interval(h: tuple[np.ndarray, np.ndarray], conf: float) -> list[float]:
    """``[lo, hi]``: the delta-method interval (at ``conf``) of ``sum(a) / sum(b)`` over the games from the joint
    histogram of two integer columns ``a``, ``b`` (``Outputs.joint``: rows ``(a, b)`` and how many games have each),
    the games being the independent units (``stats.ratio_ci``, from exact integer sums: a streamed run's is the
    whole table's). NaN when ``sum(b)`` is 0 or from fewer than 2 games."""
    v, k = h
    a = [int(x) for x in v[:, 0]] if len(k) else []
    b = [int(x) for x in v[:, 1]] if len(k) else []
    c = [int(x) for x in k]
    sums = [sum(x * m for x, m in zip(col, c)) for col in (a, b)]
    sq = [sum(x * y * m for x, y, m in zip(p, q, c)) for p, q in ((a, a), (a, b), (b, b))]
    _, lo, hi = stats.ratio_ci_sums(sum(c), sums[0], sums[1], sq[0], sq[1], sq[2], conf)
    return [float(lo), float(hi)]


def share_intervals(s: dict[str, Any], outputs: Outputs | None, n: int, conf: float) -> dict[str, Any]:
    """``{entry: {label: [lo, hi]}}`` (``[lo, hi]`` for a SHARE entry): the Wilson interval (at ``conf``) of each
    share of games, each for its label alone. Entries counting games by label (a CATEGORY column, one code a game;
    a game's COUNTS entry, each game under one label at most: first deaths by cause) are shares of all ``n`` games;
    a SHARE or SHARES entry is one of what its ``SummaryKey.per`` says (all games, or the lost ones). Other shares
    get their interval from the game's own summary (e.g. a share of rounds: the t interval of the per-game count
    over the rounds a game has), or none."""
    from . import stats

    if outputs is None or n <= 0:
        return {}
    out: dict[str, Any] = {}
    counts = [c.summary_key for c in outputs.of(CATEGORY)] + [k.key for k in outputs.summary_keys if k.kind == COUNTS]
    for key in dict.fromkeys(counts):
        v = s.get(key)
        if not isinstance(v, dict) or not v or not all(isinstance(g, (int, np.integer)) for g in v.values()):
            continue
        lo, hi = stats.wilson_arrays(np.array(list(v.values()), dtype=np.int64), n, conf)
        out[key] = {str(label): [float(a), float(b)] for label, a, b in zip(v, lo, hi)}
    if isinstance(s.get("turn_cap_games"), (int, np.integer)):  # the games that ended at the turn cap
        lo, hi = stats.wilson_arrays(int(s["turn_cap_games"]), n, conf)
        out["turn_cap_share"] = [float(lo), float(hi)]
    win = s.get("win")
    lost = n - round(win["rate"] * n) if isinstance(win, dict) and win.get("rate") == win.get("rate") else 0
    for k in outputs.summary_keys:
        v = s.get(k.key)
        d = n if k.per == "games" else lost if k.per == "lost games" else 0  # (the games the shares are of)
        if v is None or d <= 0:
            continue
        shares = v if isinstance(v, dict) else {"": v}
        if not all(_is_num(x) and 0 <= x <= 1 for x in shares.values()):
            continue
        lo, hi = stats.wilson_arrays(np.array([round(x * d) for x in shares.values()], dtype=np.int64), d, conf)
        iv = {str(label): [float(a), float(b)] for label, a, b in zip(shares, lo, hi)}
        out[k.key] = iv if isinstance(v, dict) else iv[""]
    return out


def _interval_suffix(s: dict[str, Any], key: str, kind: str, v: Any, n: int) -> str:
    """What a printed entry of ``kind`` ends with to give its intervals (``share_intervals``): the widest side of a
    breakdown's (COUNTS: ``{label: games}``; SHARES), a single share's ``[lo, hi]``; "" for the rest."""
    if kind == COUNTS:
        return _within(s, key, [(label, g / n) for label, g in list(v.items())[:8]] if n else [])
    if kind == SHARES:
        return _within(s, key, list(v.items())[:8])
    return interval_text(s, key) if kind == SHARE else ""


def _within(s: dict[str, Any], key: str, shown: list[tuple[Any, float]]) -> str:
    """`` (each ±w points or less, 95 %)``: the widest side of the intervals of the shares printed on a line
    (``shown``: label and share)."""
    iv = s.get(SHARE_INTERVALS, {}).get(key)
    if not isinstance(iv, dict) or not shown:
        return ""
    w = 0.0
    for label, p in shown:
        lo, hi = iv.get(str(label), (None, None))
        if lo is None:
            return ""
        w = max(w, p - lo, hi - p)
    return f"  (each ±{100 * w:.1f} points or less, {100 * s.get('conf', 0.95):g} %)"


def _line(label: str, text: str) -> str:
    return f"{label:{LABEL_WIDTH}s} {text}"


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def format_entry(kind: str, value: Any, n: int) -> str:
    """The printed value of a summary entry of ``kind`` (see ``KINDS``)."""
    if kind == COUNTS:
        return _shares(value, n)
    if kind == SHARES:
        return ", ".join(f"{k}: {100 * v:.1f} %" for k, v in value.items())
    if kind == NUMBERS:
        return ", ".join(f"{k}: {v:.3g}" for k, v in value.items())
    if kind == SHARE:
        return f"{100 * value:.1f} %"
    return f"{value:g}"


def _bracket(iv: Any) -> str:
    """`` [lo, hi]`` of a mean's interval (3 significant digits); `` (no interval)`` where the summary has one it
    could not give (NaN, or ``null`` read back from JSON: fewer than 2 games, as ``mean_bracket`` says it); "" where
    it has none."""
    if not (isinstance(iv, (list, tuple)) and len(iv) == 2):
        return ""
    if not all(_is_num(x) and x == x for x in iv):
        return " (no interval)"
    return f" [{iv[0]:.3g}, {iv[1]:.3g}]"


def entry_text(s: dict[str, Any], key: str, kind: str, v: Any, n: int) -> str:
    """The printed value of a game's own entry with its intervals: a NUMBER or NUMBERS entry's means each with
    its t interval (``MEAN_INTERVALS``), a share or breakdown with its Wilson ones (``_interval_suffix``)."""
    iv = s.get(MEAN_INTERVALS, {}).get(key)
    if kind == NUMBERS and isinstance(v, dict) and isinstance(iv, dict):
        return ", ".join(f"{k}: {x:.3g}{_bracket(iv.get(str(k)))}" for k, x in v.items())
    if kind == NUMBER and _is_num(v) and iv is not None:
        return f"{v:.3g}{_bracket(iv)}"
    return format_entry(kind, v, n) + _interval_suffix(s, key, kind, v, n)


def interval_text(s: dict[str, Any], key: str) -> str:
    """`` [lo, hi]`` in percent: the interval ``share_intervals`` gives a SHARE entry, or ""."""
    iv = s.get(SHARE_INTERVALS, {}).get(key)
    return f" [{100 * iv[0]:.1f}, {100 * iv[1]:.1f}]" if isinstance(iv, list) and len(iv) == 2 else ""


#: Run-level entries that are not printed as lines of their own.
#: Summary keys every run has, printed elsewhere (the header, the timing line) or not at all.
_RUN_KEYS = ("games", "seed", "elapsed_s", "games_per_s", "compile_s", "load_s", "conf", "turn_cap_games",
             "turn_cap_share", "win", "warnings", "hero", "policy", "game", "assumptions", "no_win", SHARE_INTERVALS,
             MEAN_INTERVALS)


def summary_lines(s: dict[str, Any], outputs: Outputs | None) -> list[str]:
    """The lines of a run summary between the win rate and the assumptions, in declaration order.

    Declared rates, then means, then the game's summary entries; entries nobody declared follow,
    formatted by their shape (so a game's new entry is never silently dropped)."""
    n = s["games"]
    lines: list[str] = []
    done = set(_RUN_KEYS)
    if outputs is not None:
        for c in outputs.of(RATE):
            v = s.get(c.summary_key)
            if c.summary_key in done or not isinstance(v, dict) or "rate" not in v:
                continue
            lines.append(_line(c.text_label, fmt_rate(v) + (f"  ({c.note})" if c.note else "")))
            done.add(c.summary_key)
    for key, val in s.items():
        if key not in done and isinstance(val, dict) and "mean" in val and "median" in val:
            col = outputs.column(key) if outputs is not None else None
            lines.append(_line(col.text_label if col is not None and col.summary_key == key
                               else key.replace("_", " "), fmt_numeric(val)))
            done.add(key)
    if outputs is not None:
        for c in outputs.of(CATEGORY):
            v = s.get(c.summary_key)
            if c.summary_key not in done and isinstance(v, dict) and v:
                ordered = dict(sorted(v.items(), key=lambda kv: -kv[1]))
                lines.append(_line(c.text_label, _shares(ordered, n) + _interval_suffix(s, c.summary_key, COUNTS,
                                                                                        ordered, n)))
                done.add(c.summary_key)
        for k in outputs.summary_keys:
            v = s.get(k.key)
            done.add(k.key)
            if v is None or k.hidden or (isinstance(v, dict) and not v):
                continue
            text = k.text(v, s) if k.text is not None else entry_text(s, k.key, k.kind, v, n)
            # (a text of its own gives its intervals itself)
            lines.append(_line(k.label, text))
    # entries no declaration names: rates, numbers, then tables of numbers
    for key, val in s.items():
        if key not in done and isinstance(val, dict) and "rate" in val and "lo" in val:
            lines.append(_line(key.replace("_", " "), fmt_rate(val)))
            done.add(key)
    for key, val in s.items():
        if key not in done and _is_num(val):
            lines.append(_line(key.replace("_", " "), f"{val:g}"))
    for key, val in s.items():
        if key in done or not isinstance(val, dict) or not val or not all(_is_num(v) for v in val.values()):
            continue
        if all(isinstance(v, (int, np.integer)) for v in val.values()):
            kind = COUNTS
        else:
            kind = SHARES if key.endswith("_share") else NUMBERS
        lines.append(_line(key.replace("_", " "), format_entry(kind, val, n) + _interval_suffix(s, key, kind, val, n)))
    legend = legend_lines(s, outputs)
    return lines + ([""] + legend if legend else [])


#: The heading of the legend block of a printed run summary.
LEGEND_HEADING = "What the figures mean:"


def legend_lines(s: dict[str, Any], outputs: Outputs | None) -> list[str]:
    """One short line per printed figure whose declaration has a ``legend`` (``Column.legend``,
    ``SummaryKey.legend``), in the order the figures are printed, under :data:`LEGEND_HEADING`."""
    if outputs is None:
        return []
    items: list[tuple[str, str]] = []
    cols = [c for c in outputs.columns if c.summary_key == "win"] + outputs.of(RATE) + outputs.of(MEAN) \
        + outputs.of(CATEGORY)
    seen: set[str] = set()
    for c in cols:
        if c.summary_key in seen or not c.legend or c.summary_key not in s:
            continue
        seen.add(c.summary_key)
        text = c.legend(s) if callable(c.legend) else c.legend  # a legend may depend on the run (a variant's)
        items.append(("win rate" if c.summary_key == "win" else c.text_label.strip(), text))
    for k in outputs.summary_keys:
        v = s.get(k.key)
        if k.legend and not k.hidden and v is not None and not (isinstance(v, dict) and not v):
            items.append((k.label, k.legend))
    if not items:
        return []
    return [LEGEND_HEADING] + [f"  {label:{LABEL_WIDTH - 2}s} {text}" for label, text in items]


# ---------------------------------------------------------------------------------------- docs
def markdown(games: Sequence[str] | None = None) -> str:
    """docs/outputs.md: every output column of every registered game, and its summary entries."""
    from .registry import games as all_games
    from .registry import get_game

    out = ["# Output columns", "",
           "Generated from the games' output declarations (`games/<name>/outputs.py`) by "
           "`python -m foury_sim.outputs --markdown > docs/outputs.md`; `tests/test_outputs.py` checks that this "
           "file is current (`foury-sim columns GAME --markdown` prints one game's table). One row per game played "
           "in `games.parquet` / `games.csv` (`foury-sim run --out`), `games_a.parquet` / `games_b.parquet` "
           "(`compare --out`) and `cells/cell_NNNN.parquet` (`per_game = true` in a sweep).", "",
           "**In the tables** says what a written table holds: a column with codes is written with its labels "
           "(words in the CSV; a pandas categorical in parquet, *ordered* where the labels have an order, e.g. "
           "rounds, sectors, ranks); the codes and what they mean are under *meaning*. The library's in-memory "
           "table (`runner.run(...).df`) keeps the codes. **unit**: what a number counts (0/1: a yes/no flag).", "",
           "Summary: **rate** = share of games with 1 (Wilson interval); **mean** = mean (t interval), median "
           "(order-statistic interval) and range, each interval at the run's level; **category** = games per "
           "label; **none** = not summarised by the runner. Every share of games (a "
           "category's labels, a *counts* entry's, a *share* or *shares* entry's) has its Wilson interval at the "
           "run's level in the summary's `share_intervals` (`{entry: {label: [lo, hi]}}`, `[lo, hi]` for a *share*); "
           "the printed line gives the widest side of its intervals. A game's own figure (a *number* or *numbers* "
           "entry: a mean per game, or a ratio of sums over games such as a figure per fight) has its interval (t "
           "for a mean, the delta method over games for a ratio) in `mean_intervals` (`{entry: [lo, hi]}`, "
           "`{entry: {label: [lo, hi]}}` for *numbers*), printed beside it. *derived* columns are "
           "computed in Python from the others (`Column.derive`); the others are written by the game's kernel "
           "(`write_out`), in this order.", ""]
    for name in games or all_games():
        spec = get_game(name)
        o = spec.outputs
        out += [f"## `{name}`: {spec.title}", "",
                "| column | type | unit | summary | in the tables | meaning |", "|---|---|---|---|---|---|"]
        for c in o.columns:
            meaning = c.doc or c.label + "."
            if c.categories is not None and not callable(c.categories):
                items = c.categories.items() if isinstance(c.categories, Mapping) else enumerate(c.categories)
                meaning += " Codes: " + "; ".join(f"{k} {v}" if v else f"{k} -" for k, v in items) + "."
            summ = c.summary + (f" (`{c.summary_key}`)" if c.summary_key != c.name and c.summary != NONE else "")
            kind = c.dtype + ("" if c.kernel else f", {c.source}")
            unit = c.unit or ("0/1" if c.summary == RATE else "")
            out.append(f"| `{c.name}` | {kind} | {unit} | {summ} | {_md(_in_tables(c))} | {_md(meaning)} |")
        if o.summary_keys:
            out += ["", f"Summary entries added by `{name}`'s `summarize`:", "",
                    "| entry | kind | meaning |", "|---|---|---|"]
            out += [f"| `{k.key}` | {k.kind}{f' (of {k.per})' if k.per else ''} | {_md(k.doc or k.label + '.')} |"
                    for k in o.summary_keys]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _in_tables(c: Column) -> str:
    """What a written table holds for the column (docs/outputs.md's *in the tables*)."""
    if c.categories is None:
        return "number"
    order = " (ordered)" if c.ordered else ""
    if callable(c.categories):
        return f"label{order} (words, see meaning)"
    labels = c.categories.values() if isinstance(c.categories, Mapping) else c.categories
    return f"label{order}: " + ", ".join(f"`{v}`" for v in dict.fromkeys(str(v) for v in labels))


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="The output columns of the registered games.")
    ap.add_argument("--markdown", action="store_true", help="print docs/outputs.md")
    ap.add_argument("games", nargs="*", help="only these games")
    a = ap.parse_args(argv)
    if a.markdown:
        print(markdown(a.games or None), end="")
        return 0
    from .registry import games as all_games
    from .registry import get_game

    for name in a.games or all_games():
        for c in get_game(name).outputs.columns:
            print(f"{name:8s} {c.name:22s} {c.summary:8s} {c.label}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
