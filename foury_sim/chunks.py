"""Runs as chunks of games, and the summary of a run streamed chunk by chunk in bounded memory.

A run (and a sweep cell, a compare arm, a tune candidate) is a list of :class:`Chunk` s ``(seed, start,
count)``: games ``start .. start+count-1`` of the dice stream keyed by ``seed``. A game's result never depends
on the split. Each chunk is played by :func:`play_chunk` (everything it needs is in a picklable
:class:`ChunkJob`: the game by name, what rebuilds the ruleset and the policy) or, in this process, by
:func:`play_local` (the objects already built), and gives a :class:`ChunkResult`: a :class:`Partial` (counts,
exact histograms of every summarised column, the extras such as visit counts, and the per-game rows while the
run is small enough to keep them for the game's own summary entries) and, when asked (``keep_rows``), the
chunk's per-game table. Partials merge (:meth:`Partial.merge`, in chunk order: :class:`Reducer`) into the run's
partial, and :func:`summary` turns it into the run summary: the same dict as ``runner.summarize`` of the whole
table (which computes it the same way), in memory that does not grow with the number of games.

An :data:`Executor` plays a list of chunks and yields their results (in any order): :func:`local_executor`
is today's path (in this process, kernel calls in a worker thread with numba's threads); ``cluster.py`` adds one
for Dask.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .lazy import pd
from .outputs import merge_histograms

#: Bytes of per-game rows a streamed run keeps for the game's own summary entries when the game computes them from
#: the whole table (``GameSpec.summarize``: a game without ``summarize_hists``; every shipped game has it); past
#: that, the rows are dropped and those entries are left out of the summary (with a warning), so that memory does
#: not grow with the number of games. ``FOURY_SIM_KEEP_ROWS_MB`` changes it.
KEEP_ROWS_BYTES = 64 << 20


def keep_rows_bytes() -> int:
    text = os.environ.get("FOURY_SIM_KEEP_ROWS_MB")
    if text is None:
        return KEEP_ROWS_BYTES
    try:
        mb = float(text)
    except ValueError:
        mb = float("nan")
    if not 0 <= mb < 2**40:  # (a negative or NaN value was taken as 0)
        from .errors import InputError

        raise InputError(f"must be a number of megabytes from 0, not {text!r}", "FOURY_SIM_KEEP_ROWS_MB")
    return int(mb * (1 << 20))


@dataclass(frozen=True)
class Chunk:
    """Games ``start .. start+count-1`` of the stream keyed by ``seed``."""

    seed: int
    start: int
    count: int


class ChunkPlan(Sequence):
    """``games`` games from ``start`` as chunks of ``size`` games (the last one shorter), in order: a sequence
    whose chunks are made when read, so that a plan of any size (2**63-1 games: 10**14 chunks) takes no memory
    (a list of them grew by about 600 bytes a chunk)."""

    def __init__(self, seed: int, start: int, games: int, size: int):
        self.seed, self.start, self.games, self.size = seed, start, games, max(1, int(size))

    def __len__(self) -> int:
        return -(-self.games // self.size)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self)
        if not -n <= i < n:
            raise IndexError("chunk index out of range")
        s = self.start + (i % n) * self.size
        return Chunk(self.seed, s, min(self.size, self.start + self.games - s))

    def __iter__(self) -> Iterator[Chunk]:
        for s in range(self.start, self.start + self.games, self.size):
            yield Chunk(self.seed, s, min(self.size, self.start + self.games - s))

    def position(self, start: int) -> int:
        """The position of the chunk that begins at game ``start`` (a ``ValueError`` if none does)."""
        k, r = divmod(start - self.start, self.size)
        if r or not 0 <= k < len(self):
            raise ValueError(f"no chunk of the plan starts at game {start}")
        return k

    def __eq__(self, other: object) -> bool:  # (the chunks it holds, as a list of them compares)
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        return f"ChunkPlan(seed={self.seed}, start={self.start}, games={self.games}, size={self.size})"


def plan_chunks(seed: int, start: int, games: int, size: int) -> ChunkPlan:
    """``games`` games from ``start`` as chunks of ``size`` games (the last one shorter), in order
    (``ChunkPlan``: made when read)."""
    return ChunkPlan(seed, start, games, size)


@dataclass(frozen=True)
class RulesetSource:
    """What rebuilds a ruleset in another process: ``spec.load_ruleset(rules, sets, map, **options)``.
    ``rules_text``: the content of the ``--rules`` file (a worker without the file writes it to a temp file
    of the same name)."""

    rules: str | None = None
    sets: tuple[str, ...] = ()
    map: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    rules_text: str | None = None


@dataclass(frozen=True)
class PolicySource:
    """A policy by name and parameters (``policy.make_policy``); a user policy file ``FILE.py:FUNCTION`` also by
    its file's content (``file_text``), written to a temp folder under its own name where the file is missing."""

    name: str
    params: str | None = None
    file_text: str | None = None


@dataclass(frozen=True)
class BuiltRuleset:
    """A ruleset built in the caller (a sweep cell's, a compare arm's, a tune candidate's), pickled: plain arrays and
    values, no numba objects. Two are the same when their digests are (the bytes are not compared)."""

    data: bytes = field(compare=False, repr=False)
    digest: str = ""

    @classmethod
    def of(cls, ruleset: Any) -> BuiltRuleset:
        import hashlib
        import pickle

        data = pickle.dumps(ruleset, protocol=pickle.HIGHEST_PROTOCOL)
        return cls(data, hashlib.sha1(data).hexdigest())


@dataclass(frozen=True)
class ChunkJob:
    """Everything a process needs to play chunks of a run (picklable: no numba objects): the game by name, the
    ruleset by what rebuilds it (``RulesetSource``: the command line's rules, sets and options) or built
    (``BuiltRuleset``), the hero, the policy by name, parameters and file content (``PolicySource``). The one job
    type of this process, of a local pool and of Dask workers (``play_chunk``).

    ``keep_rows``: the result carries the chunk's per-game table (only ``columns`` of it, when given: what a
    tune candidate or a robust cell reads); ``game_rows``: the partial keeps the rows for the game's own summary
    entries (``Partial.rows``); ``summary``: the partial has the histograms and the board's numbers (False: only
    n and the extras, for a caller that reads the rows: a comparison, a tune candidate, a robust cell)."""

    game: str
    ruleset_source: RulesetSource | BuiltRuleset
    hero: str
    policy: PolicySource
    keep_rows: bool = False
    game_rows: bool = True
    columns: tuple[str, ...] | None = None
    summary: bool = True


def _file_part(spec: str) -> str:
    return spec.split(".py:")[0] + ".py" if ".py:" in spec else spec


def job_for(game: str, *, hero: str, policy: str, params: str | None, rules: str | None, sets: Iterable[str] | None,
            map: str | None, options: dict[str, Any] | None, keep_rows: bool = False) -> ChunkJob:
    """The job of a run given as on the command line (file contents read here, to be shipped by content)."""
    rules_text = Path(rules).read_text(encoding="utf-8") if rules else None
    file_text = None
    if policy.endswith(".py") or ".py:" in policy:
        file_text = Path(_file_part(policy)).read_text(encoding="utf-8")
    return ChunkJob(game, RulesetSource(rules, tuple(sets or ()), map, tuple(sorted((options or {}).items())),
                                        rules_text),
                    hero, PolicySource(policy, params, file_text), keep_rows)


def policy_source(policy: Any) -> PolicySource:
    """What rebuilds a built ``policy`` elsewhere: its name, its parameter values written exactly (``repr`` of a
    float reads back to the same float) and, for a user policy file, the file's text."""
    params = ",".join(f"{k}={float(v)!r}" for k, v in zip(policy.param_names, policy.params)) or None
    text = None
    if policy.errors is not None:  # a user policy: FILE.py:FUNCTION
        text = Path(_file_part(policy.name)).read_text(encoding="utf-8")
    return PolicySource(policy.name, params, text)


def job_of(spec: Any, ruleset: Any, hero: str, policy: Any, keep_rows: bool = True, game_rows: bool = False,
           columns: Iterable[str] | None = None, summary: bool = True) -> ChunkJob:
    """The job of games whose ruleset and policy were built here (the ruleset travels pickled)."""
    return ChunkJob(spec.name, BuiltRuleset.of(ruleset), hero, policy_source(policy), keep_rows, game_rows,
                    tuple(columns) if columns is not None else None, summary)


def _materialise(path: str, text: str | None, key: str) -> str:
    """``path`` itself when it exists here with the shipped ``text``, else ``text`` written (atomically: workers of
    one node may do it at once) to a private folder named by the text's digest, under the same file name: a worker
    never runs another file that happens to stand at the same path."""
    import hashlib

    if text is None or (Path(path).is_file() and Path(path).read_text(encoding="utf-8") == text):
        return path
    folder = Path(tempfile.gettempdir()) / f"foury-sim-{key}-{hashlib.sha1(text.encode()).hexdigest()[:16]}"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / Path(path).name
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    return str(target)


@functools.lru_cache(maxsize=8)
def _objects(game: str, rs: RulesetSource | BuiltRuleset, ps: PolicySource) -> tuple[Any, Any, Any]:
    """(spec, ruleset, policy) of a job, built once per process."""
    from .policy import make_policy
    from .registry import get_game

    spec = get_game(game)
    if isinstance(rs, BuiltRuleset):
        import pickle

        ruleset = pickle.loads(rs.data)
    else:
        rules = _materialise(rs.rules, rs.rules_text, "rules") if rs.rules else None
        ruleset = spec.load_ruleset(rules, list(rs.sets) or None, rs.map, **dict(rs.options))
    name = ps.name
    if ps.file_text is not None:
        path = _file_part(name)
        name = _materialise(path, ps.file_text, "policy") + name[len(path):]
    return spec, ruleset, make_policy(name, spec.policies, ps.params)


@dataclass
class Partial:
    """What a run's summary needs from some of its games, mergeable in any grouping: the number of games,
    the exact histogram of every summarised column (``Outputs.histograms``), the extras (summed), and the
    per-game rows while they fit in ``keep_rows_bytes()`` (for the game's own ``summarize``; None once dropped)."""

    n: int = 0
    hists: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    extras: dict[str, np.ndarray] = field(default_factory=dict)
    rows: list[pd.DataFrame] | None = field(default_factory=list)
    #: the board's per-cell numbers of these games (``board_record``: visits, deaths per cell), summed per chunk
    #: so that a study's heat maps need no per-game rows; None for a game without a board
    board: dict[str, Any] | None = None
    #: the bytes of each of ``rows`` (``memory_usage(index=False)``), remembered: a run's reduction checks the
    #: kept rows against the limit at every merge (recomputed when it does not match ``rows``)
    row_sizes: list[int] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, outputs: Any, df: pd.DataFrame, extras: dict[str, np.ndarray] | None = None,
           rows: bool = True, board: dict[str, Any] | None = None) -> Partial:
        """The partial of a per-game table or a dict of its columns (derived columns already added)."""
        return cls(n_rows(df), outputs.histograms(df), dict(extras or {}), [df] if rows else None, board)

    @property
    def rows_bytes(self) -> int:
        return sum(self._row_sizes())

    def _row_sizes(self) -> list[int]:
        if self.rows is None:
            return []
        if self.row_sizes is None or len(self.row_sizes) != len(self.rows):
            self.row_sizes = [int(d.memory_usage(index=False, deep=False).sum()) for d in self.rows]
        return self.row_sizes

    def merge(self, other: Partial, limit: int | None = None) -> Partial:
        """This partial and ``other`` (the games after it) together; rows beyond ``limit`` bytes are dropped."""
        hists = dict(self.hists)
        for k, h in other.hists.items():
            hists[k] = merge_histograms(hists[k], h) if k in hists else h
        extras = dict(self.extras)
        for k, v in other.extras.items():
            extras[k] = extras[k] + v if k in extras else v
        rows = None if self.rows is None or other.rows is None else self.rows + other.rows
        out = Partial(self.n + other.n, hists, extras, rows, merge_board(self.board, other.board),
                      None if rows is None else self._row_sizes() + other._row_sizes())
        if rows is not None and out.rows_bytes > (keep_rows_bytes() if limit is None else limit):
            out.rows = None
        return out

    def table(self) -> pd.DataFrame | None:
        """The kept per-game rows as one table (None when they were dropped)."""
        if self.rows is None:
            return None
        if not self.rows:
            return pd.DataFrame()
        return self.rows[0] if len(self.rows) == 1 else pd.concat(self.rows, ignore_index=True)


def n_rows(df: Any) -> int:
    """The games of a per-game table or of a dict of its columns."""
    return len(next(iter(df.values()), ())) if isinstance(df, dict) else len(df)


def board_record(spec: Any, ruleset: Any, df: pd.DataFrame, extras: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """The board's per-cell numbers of some games (``spec.board.cell_record``: visits, deaths per cell; None for a
    game without a board). The numbers are counts: the record of a run is the sum of its chunks' (``merge_board``)."""
    if spec.board is None or not n_rows(df):
        return None
    return spec.board.cell_record(ruleset, df, extras)


def merge_board(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any] | None:
    """Two board records of disjoint games: the per-cell lists added cell by cell, the rest (the map) kept."""
    if a is None or b is None:
        return a if b is None else b
    out = dict(a)
    for k, v in b.items():
        if isinstance(v, list) and isinstance(a.get(k), list):
            out[k] = [x + y for x, y in zip(a[k], v)]
        elif k not in out:
            out[k] = v
    return out


@dataclass
class ChunkResult:
    """A played chunk: its partial, its per-game table when the job keeps rows, and its extras."""

    chunk: Chunk
    partial: Partial
    rows: pd.DataFrame | None = None
    extras: dict[str, np.ndarray] = field(default_factory=dict)


def play_local(spec: Any, ruleset: Any, hero: str, policy: Any, chunk: Chunk, keep_rows: bool = False,
               game_rows: bool = True, columns: Iterable[str] | None = None, summary: bool = True) -> ChunkResult:
    """One chunk in this process (one kernel call): the game's columns, its derived columns, the partial (with
    the board's per-cell numbers). ``game_rows``: the partial keeps the rows for the game's own summary entries
    (never for a game that has them from the histograms, ``GameSpec.summarize_hists``);
    ``keep_rows``: the result carries the per-game table (only ``columns`` of it, when given); ``summary``: False
    leaves the histograms and the board out of the partial (a caller that reads the rows)."""
    cols = spec.simulate(ruleset, hero, policy, chunk.seed, chunk.start, chunk.count)
    extras = {key[1:]: cols.pop(key) for key in [c for c in cols if c.startswith("_")]}
    game_rows = game_rows and spec.own_entries_need_rows
    # a table only for rows kept (the summary reads the columns: pandas is not imported for a run's summary alone)
    df = spec.outputs.add_derived(pd.DataFrame(cols, copy=False) if keep_rows or game_rows else dict(cols))
    if summary:
        part = Partial.of(spec.outputs, df, extras, rows=game_rows, board=board_record(spec, ruleset, df, extras))
    else:
        part = Partial(n_rows(df), {}, dict(extras), [df] if game_rows else None)
    rows = None
    if keep_rows:
        rows = df if columns is None else df[list(columns)]
    return ChunkResult(chunk, part, rows, extras)


def play_chunk(job: ChunkJob, chunk: Chunk) -> ChunkResult:
    """One chunk of a job, in any process: the game, ruleset and policy are rebuilt from the job (once per
    process) and the chunk played (``play_local``)."""
    spec, ruleset, pol = _objects(job.game, job.ruleset_source, job.policy)
    return play_local(spec, ruleset, job.hero, pol, chunk, job.keep_rows, job.game_rows, job.columns, job.summary)


def job_objects(job: ChunkJob) -> tuple[Any, Any, Any]:
    """(spec, ruleset, policy) of a job as ``play_chunk`` builds them in this process."""
    return _objects(job.game, job.ruleset_source, job.policy)


Executor = Callable[[Callable[[Chunk], ChunkResult], list[Chunk]], Iterator[ChunkResult]]


def local_executor(threads: int | None = None, progress: Any = None, watch: Any = None) -> Executor:
    """Today's path: every chunk in this process, one after the other, each kernel call in a worker thread
    (``runner.in_worker``: Ctrl-C honoured between calls, a stuck user policy stopped) with ``threads`` numba
    threads; ``progress`` (``runner.Progress``) moves by each chunk's games."""

    def execute(fn: Callable[[Chunk], ChunkResult], chunks: list[Chunk]) -> Iterator[ChunkResult]:
        from .runner import in_worker, numba_threads

        with numba_threads(threads):
            for chunk in chunks:
                res = in_worker(fn, chunk, watch=watch)
                if progress is not None:
                    progress.update(chunk.count)
                yield res

    return execute


def in_order(results: Iterable[ChunkResult], chunks: list[Chunk]) -> Iterator[ChunkResult]:
    """The results of ``chunks`` in chunk order (by ``start``), whatever order they arrive in (those ahead of the
    next expected chunk wait); a chunk without a result is an error."""
    order = sorted(chunks, key=lambda c: c.start)
    waiting: dict[int, ChunkResult] = {}
    i = 0
    for r in results:
        waiting[r.chunk.start] = r
        while i < len(order) and order[i].start in waiting:
            yield waiting.pop(order[i].start)
            i += 1
    if i < len(order):
        raise RuntimeError(f"{len(order) - i} chunk(s) of the run gave no result")


def current_executor() -> Executor | None:
    """The executor of ``runner.executing`` (a verb's ``--cluster``), None: this process."""
    from .runner import _EXECUTOR

    return _EXECUTOR.get()


def stream(spec: Any, ruleset: Any, hero: str, policy: Any, chunks: list[Chunk], *, executor: Executor | None = None,
           progress: Any = None, keep_rows: bool = True, game_rows: bool = False,
           columns: Iterable[str] | None = None, summary: bool = True,
           play: Callable[[Chunk], ChunkResult] | None = None,
           job_play: Callable[[Chunk], ChunkResult] | None = None, weight: int = 1) -> Iterator[ChunkResult]:
    """The chunk path of every verb: ``chunks`` of games played where ``executor`` plays them (None: the one of
    ``runner.executing``, else this process: ``local_executor``), yielded in chunk order; ``progress``
    (``runner.Progress``) moves by each chunk's games (times ``weight``) as its result arrives, whatever the
    executor. In this process a chunk is ``play_local`` of the objects given; elsewhere ``play_chunk`` of their job
    (``job_of``: the ruleset pickled, the policy by name and content). ``play`` / ``job_play``: other functions of
    a chunk (the pair of a comparison), here and elsewhere."""
    from .runner import policy_watch

    executor = executor if executor is not None else current_executor()
    if executor is None:
        fn = play or functools.partial(_play_here, spec, ruleset, hero, policy, keep_rows, game_rows, columns,
                                       summary)
        execute = local_executor(None, None, policy_watch(policy))
    else:
        fn = job_play or functools.partial(play_chunk, job_of(spec, ruleset, hero, policy, keep_rows, game_rows,
                                                              columns, summary))
        execute = executor

    return in_order(counting(execute, progress, weight)(fn, list(chunks)), chunks)


def counting(execute: Executor, progress: Any, weight: int = 1) -> Executor:
    """``execute`` with ``progress`` (``runner.Progress``, on stderr) moved by each chunk's games (times ``weight``)
    as its result arrives: the bar of a run on Dask or a pool, as of one in this process."""
    if progress is None:
        return execute

    def run(fn: Callable[[Chunk], ChunkResult], chunks: list[Chunk]) -> Iterator[ChunkResult]:
        for r in execute(fn, chunks):
            progress.update(weight * r.chunk.count)
            yield r

    return run


def _play_here(spec: Any, ruleset: Any, hero: str, policy: Any, keep_rows: bool, game_rows: bool,
               columns: Iterable[str] | None, summary: bool, chunk: Chunk) -> ChunkResult:
    return play_local(spec, ruleset, hero, policy, chunk, keep_rows, game_rows, columns, summary)


def stream_rows(spec: Any, ruleset: Any, hero: str, policy: Any, seed: int, start: int, count: int, *,
                columns: Iterable[str] | None = None, size: int | None = None, progress: Any = None,
                executor: Executor | None = None) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """Games ``start .. start+count-1`` through the chunk path (``stream``, chunks of ``size`` games, default
    the game's ``GameSpec.batch``): their per-game table (only ``columns``, when given: a tune candidate's metric, a
    robust cell's wins) and extras, the same as ``runner.play_games`` gives."""
    plan = plan_chunks(seed, start, count, size or spec.batch)
    frames: list[pd.DataFrame] = []
    extras: dict[str, np.ndarray] = {}
    for r in stream(spec, ruleset, hero, policy, plan, executor=executor, progress=progress, columns=columns,
                    summary=False):
        frames.append(r.rows)
        for k, v in r.extras.items():
            extras[k] = extras[k] + v if k in extras else v
    df = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return df, extras


@dataclass
class Paired:
    """What a comparison's statistics need from some paired games (game i played under A and under B on the same
    dice), mergeable in chunk order: the win counts (both, A only, B only), the first ``keep`` flipped games each
    way (game indices), and per numeric outcome n and the sums of a, b, d = b - a and d² (exact Python integers
    for integer outcomes: ``stats.PairedMean``). ``win``/``means`` give ``stats.paired_rate_diff`` /
    ``paired_mean_diff`` of the whole arrays (the mean rows from the exact sums)."""

    keep: int = 1000
    n: int = 0
    both: int = 0
    a_only: int = 0
    b_only: int = 0
    w2l: list[int] = field(default_factory=list)
    l2w: list[int] = field(default_factory=list)
    sums: dict[str, list[Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, a: pd.DataFrame, b: pd.DataFrame, columns: Iterable[str], keep: int) -> Paired:
        """The paired partial of the same games under A (``a``) and B (``b``), in game order."""
        from . import stats

        wa, wb = a["win"].to_numpy().astype(bool), b["win"].to_numpy().astype(bool)
        games = a["game"].to_numpy()
        w2l, l2w = np.flatnonzero(wa & ~wb), np.flatnonzero(~wa & wb)
        sums: dict[str, list[Any]] = {}
        for col in columns:
            if col in a and col in b:
                sums[col] = _paired_sums(a[col].to_numpy(), b[col].to_numpy(), stats)
        return cls(keep, len(a), int(np.count_nonzero(wa & wb)), int(w2l.size), int(l2w.size),
                   games[w2l[:keep]].tolist(), games[l2w[:keep]].tolist(), sums)

    def merge(self, other: Paired, limit: int | None = None) -> Paired:
        """These games and ``other`` (the games after them) together."""
        sums = dict(self.sums)
        for k, v in other.sums.items():
            sums[k] = [x + y for x, y in zip(sums[k], v)] if k in sums else list(v)
        return Paired(self.keep, self.n + other.n, self.both + other.both, self.a_only + other.a_only,
                      self.b_only + other.b_only, (self.w2l + other.w2l)[:self.keep],
                      (self.l2w + other.l2w)[:self.keep], sums)

    def win(self, conf: float = 0.95) -> dict[str, Any]:
        from . import stats

        return stats.paired_rate_counts(self.n, self.both, self.a_only, self.b_only, conf, self.w2l, self.l2w)

    def means(self, conf: float = 0.95) -> dict[str, dict[str, Any]]:
        from . import stats

        return {col: stats.paired_mean_sums(self.n, *s, conf=conf) for col, s in self.sums.items()}


def _paired_sums(a: np.ndarray, b: np.ndarray, stats: Any) -> list[Any]:
    """The sums of a, b, d = b - a and d² of one chunk: ``stats.PairedMean``'s (exact Python integers for integer
    outcomes), in numpy's int64 when no sum can pass 2**63 (the same integers, without a Python object per game)."""
    ints = (np.issubdtype(a.dtype, np.integer) or a.dtype == bool) and (np.issubdtype(b.dtype, np.integer)
                                                                        or b.dtype == bool)
    if ints and len(a):
        ia, ib = a.astype(np.int64), b.astype(np.int64)
        top = max(int(np.abs(ia).max()), int(np.abs(ib).max()))
        if len(a) * (2 * top + 1) ** 2 < 2**62:
            d = ib - ia
            return [int(ia.sum()), int(ib.sum()), int(d.sum()), int((d * d).sum())]
    m = stats.PairedMean()
    m.add(a, b)
    return m.sums


def play_pair(a: Callable[[Chunk], ChunkResult], b: Callable[[Chunk], ChunkResult], chunk: Chunk, *,
              columns: tuple[str, ...], keep: int, keep_rows: bool) -> ChunkResult:
    """One chunk of a comparison, in any process: the chunk played under A (``a``: ``play_chunk`` of its job, or
    ``play_local`` here) and under B, reduced to its ``Paired`` partial (the per-chunk sums of the paired
    differences); the two per-game tables travel back only when ``keep_rows``."""
    ra, rb = a(chunk), b(chunk)
    part = Paired.of(ra.rows, rb.rows, columns, keep)
    return ChunkResult(chunk, part, (ra.rows, rb.rows) if keep_rows else None)


class Reducer:
    """Merges chunk results in chunk order (by ``start``), whatever order they arrive in: the same numbers for
    any executor. Results ahead of the next expected chunk wait in a buffer. ``on_rows``: called with each
    result, in order (e.g. writes its rows as a parquet part). ``initial``: the empty partial (``Partial()``;
    a comparison's ``Paired``)."""

    def __init__(self, chunks: Sequence[Chunk], on_result: Callable[[ChunkResult], None] | None = None,
                 initial: Any = None):
        self.order = chunks if isinstance(chunks, ChunkPlan) else sorted(chunks, key=lambda c: c.start)
        self.next = 0
        self.waiting: dict[int, ChunkResult] = {}
        self.partial = initial if initial is not None else Partial()
        self.on_result = on_result

    def add(self, res: ChunkResult) -> None:
        self.waiting[res.chunk.start] = res
        while self.next < len(self.order) and self.order[self.next].start in self.waiting:
            r = self.waiting.pop(self.order[self.next].start)
            if self.on_result is not None:
                self.on_result(r)
            self.partial = self.partial.merge(r.partial)
            self.next += 1

    @property
    def done(self) -> bool:
        return self.next == len(self.order)


def reduce(results: Iterable[ChunkResult], chunks: list[Chunk],
           on_result: Callable[[ChunkResult], None] | None = None, initial: Any = None) -> Any:
    """The run's partial from its chunk results (merged in chunk order)."""
    red = Reducer(chunks, on_result, initial)
    for r in results:
        red.add(r)
    if not red.done:
        raise RuntimeError(f"{len(red.order) - red.next} chunk(s) of the run gave no result")
    return red.partial


def summary(spec: Any, part: Partial, ruleset: Any = None, conf: float = 0.95) -> dict[str, Any]:
    """The run summary from a partial: games, win (Wilson), turn cap, the declared columns' entries (from the
    histograms) and the game's own entries (``spec.summarize_hists`` of the histograms, or ``spec.summarize`` of
    the kept rows: left out, with a warning, when the rows were dropped). ``runner.summarize`` of a whole table is
    this of ``Partial.of`` that table."""
    from . import stats
    from .runner import cap_entries

    n = part.n
    h = part.hists.get("win")
    k = int(h[1][h[0] != 0].sum()) if h is not None else 0
    out: dict[str, Any] = {"games": n, "win": stats.summarize_rate(k, n, conf)}
    out.update(cap_entries(spec.outputs.turn_cap_count_hists(part.hists), n))
    out.update({key: v for key, v in spec.outputs.summarize_hists(part.hists, n, ruleset, conf).items()
                if key != "win"})
    if not spec.own_entries_need_rows:
        out.update(spec.summarize_hists(part.hists, n, ruleset, conf))
    elif (table := part.table()) is not None:
        out.update(spec.summarize(table, ruleset, conf))
    else:
        keys = ", ".join(k.key for k in spec.outputs.summary_keys) or "none declared"
        out.setdefault("warnings", []).append(
            f"NOTE: the game's own entries ({keys}) need every game's row; this run of {n:,} games kept them "
            f"only up to {keep_rows_bytes() >> 20} MB (FOURY_SIM_KEEP_ROWS_MB), so they are left out")
    from .outputs import SHARE_INTERVALS, share_intervals

    own = out.get(SHARE_INTERVALS)  # (intervals a game's own summary gave: a share of something else than games)
    out[SHARE_INTERVALS] = share_intervals(out, spec.outputs, n, conf) | (own if isinstance(own, dict) else {})
    return out


#: The folder of a run's per-game parts inside ``--out``, and the names of its files: ``part-START.parquet``
#: (the chunk's games, labelled as ``files.write_frame`` writes a table), ``_part-START.pkl`` (its partial: a
#: chunk is finished when both exist) and ``_run.json`` (the settings of the run the parts belong to). Readers
#: (``pandas.read_parquet``, pyarrow, Dask, DuckDB) read the folder as one table and skip the ``_`` files.
PARTS_FOLDER = "games.parquet"
PART_DIGITS = 19


class PartWriter:
    """Writes a run's per-game table chunk by chunk as parquet parts (each atomic) with each chunk's partial;
    ``resumed`` gives back the chunks a previous, interrupted run with the same settings (``record``, the game's
    code and the chunk plan) finished, so that a re-run goes on from them. Parts of other settings (or all parts,
    when ``resume`` is False: a run that keeps its table in memory plays every chunk) are removed."""

    def __init__(self, out: str | Path, spec: Any, ruleset: Any, record: dict[str, Any], plan: Sequence[Chunk],
                 resume: bool = True):
        import hashlib
        import json
        import shutil

        from .files import WriteError, atomic_write, clean_temp, to_jsonable
        from .study import code_version

        self.folder = Path(out) / PARTS_FOLDER
        self.spec, self.ruleset, self.plan, self.record = spec, ruleset, plan, record
        settings = {k: v for k, v in record.items() if k not in ("package_version", "git_commit")}
        ident = hashlib.sha256(json.dumps(to_jsonable({"run": settings, "code": code_version(spec.name),
                                                       "chunks": [len(plan), plan[0].count if plan else 0]}),
                                          sort_keys=True, default=str).encode()).hexdigest()[:16]
        self.ident = ident
        manifest = self.folder / "_run.json"
        same = False
        if resume and self.folder.is_dir() and manifest.is_file():
            try:
                same = json.loads(manifest.read_text(encoding="utf-8")).get("run_id") == ident
            except (OSError, ValueError):
                same = False
        try:
            if self.folder.is_file():
                self.folder.unlink()
            elif self.folder.is_dir() and not same:
                shutil.rmtree(self.folder)
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise WriteError(f"cannot prepare the parts folder: {e.strerror}", str(self.folder)) from None
        clean_temp(self.folder)
        atomic_write(manifest, json.dumps({"run_id": ident, "chunks": len(plan),
                                           "chunk_games": plan[0].count if plan else 0}, indent=2))
        self.written = 0
        self.resumed_count = 0
        self._resumed: set[int] = set()
        self._row_bytes = 0
        self._rows_kept = True

    def part(self, chunk: Chunk) -> Path:
        return self.folder / f"part-{chunk.start:0{PART_DIGITS}d}.parquet"

    def sidecar(self, chunk: Chunk) -> Path:
        return self.folder / f"_part-{chunk.start:0{PART_DIGITS}d}.pkl"

    def resumed(self) -> list[ChunkResult]:
        """The chunks already finished (part and partial written), in order, as results without rows."""
        import pickle

        out: list[ChunkResult] = []
        for c in self._on_disk():
            side = self.sidecar(c)
            if not (side.is_file() and self.part(c).is_file()):
                continue
            try:
                part = pickle.loads(side.read_bytes())
            except Exception:  # a damaged partial: the chunk is played again
                continue
            if not isinstance(part, Partial) or part.n != c.count:
                continue
            out.append(ChunkResult(c, part, None, part.extras))
            self._resumed.add(c.start)
        self.resumed_count = len(out)
        self.written = len(out)
        return out

    def _on_disk(self) -> list[Chunk]:
        """The chunks of the plan whose partial is in the folder, in order (a look at the folder, not at every
        chunk of the plan: a plan may hold 10**14 of them)."""
        if not self.folder.is_dir():
            return []
        starts = []
        for f in self.folder.iterdir():
            name = f.name
            if name.startswith("_part-") and name.endswith(".pkl") and name[6:-4].isdigit():
                starts.append(int(name[6:-4]))
        if not isinstance(self.plan, ChunkPlan):  # (a plan given as a list)
            by_start = {c.start: c for c in self.plan}
            return [by_start[st] for st in sorted(starts) if st in by_start]
        out = []
        for st in sorted(starts):
            try:
                out.append(self.plan[self.plan.position(st)])
            except ValueError:  # (a part of another plan: not this run's)
                continue
        return out

    def write(self, r: ChunkResult) -> None:
        """Write a played chunk's part and partial (in chunk order; a resumed chunk is already on disk). The
        partial keeps the rows while the run's rows fit in ``keep_rows_bytes()``, as the reduction does."""
        import pickle

        from .files import atomic_write, write_frame

        if r.chunk.start in self._resumed:
            if r.partial.rows is None:
                self._rows_kept = False
            return
        if r.rows is None:
            raise RuntimeError("a chunk without its rows cannot be written as a part")
        write_frame(r.rows, self.part(r.chunk), outputs=self.spec.outputs, ruleset=self.ruleset, made=self.record)
        part = r.partial
        if self._rows_kept and part.rows is not None:
            self._row_bytes += part.rows_bytes
            self._rows_kept = self._row_bytes <= keep_rows_bytes()
        if not self._rows_kept or part.rows is None:
            part = dataclasses.replace(part, rows=None, row_sizes=None)  # (the board's per-cell numbers stay)
        atomic_write(self.sidecar(r.chunk), pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))
        self.written += 1

    def parts(self) -> list[Path]:
        return [self.part(c) for c in self.plan]

    def kept(self) -> int:
        """The chunks of this run kept on disk (part and partial), counted in the folder: ``written`` misses a
        chunk whose partial was renamed into place just before an interruption landed."""
        return sum(1 for c in self._on_disk() if self.part(c).is_file())


def write_csv_from_parts(parts: list[Path], path: str | Path) -> None:
    """One CSV of the per-game table from its parquet parts, a part at a time (written atomically)."""
    from .files import _guarded

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            for i, p in enumerate(parts):
                pd.read_parquet(p).to_csv(f, index=False, header=i == 0)
            f.flush()
            os.fsync(f.fileno())

    _guarded(Path(path), write)
