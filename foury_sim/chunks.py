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

import functools
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .outputs import merge_histograms

#: Bytes of per-game rows a streamed run keeps for the game's own summary entries (``GameSpec.summarize`` reads
#: the whole table); past that, the rows are dropped and those entries are left out of the summary (with a
#: warning), so that memory does not grow with the number of games. ``FOURY_SIM_KEEP_ROWS_MB`` changes it.
KEEP_ROWS_BYTES = 64 << 20


def keep_rows_bytes() -> int:
    text = os.environ.get("FOURY_SIM_KEEP_ROWS_MB")
    if text is None:
        return KEEP_ROWS_BYTES
    try:
        return max(0, int(float(text) * (1 << 20)))
    except ValueError:
        from .errors import InputError

        raise InputError(f"must be a number of megabytes, not {text!r}", "FOURY_SIM_KEEP_ROWS_MB") from None


@dataclass(frozen=True)
class Chunk:
    """Games ``start .. start+count-1`` of the stream keyed by ``seed``."""

    seed: int
    start: int
    count: int


def plan_chunks(seed: int, start: int, games: int, size: int) -> list[Chunk]:
    """``games`` games from ``start`` as chunks of ``size`` games (the last one shorter), in order."""
    size = max(1, int(size))
    return [Chunk(seed, s, min(size, start + games - s)) for s in range(start, start + games, size)]


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
class ChunkJob:
    """Everything a worker needs to play chunks of a run (picklable: no numba objects)."""

    game: str
    ruleset_source: RulesetSource
    hero: str
    policy: PolicySource
    keep_rows: bool = False


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


def _materialise(path: str, text: str | None, key: str) -> str:
    """``path`` itself when it exists here with the shipped ``text``, else ``text`` written to a temp folder under
    the same file name (a worker never runs another file that happens to stand at the same path)."""
    if text is None or (Path(path).is_file() and Path(path).read_text(encoding="utf-8") == text):
        return path
    folder = Path(tempfile.gettempdir()) / f"foury-sim-job-{abs(hash((key, text))):x}"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / Path(path).name
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return str(target)


@functools.lru_cache(maxsize=8)
def _objects(game: str, rs: RulesetSource, ps: PolicySource) -> tuple[Any, Any, Any]:
    """(spec, ruleset, policy) of a job, built once per process."""
    from .policy import make_policy
    from .registry import get_game

    spec = get_game(game)
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

    @classmethod
    def of(cls, outputs: Any, df: pd.DataFrame, extras: dict[str, np.ndarray] | None = None,
           rows: bool = True) -> Partial:
        """The partial of a per-game table (derived columns already added)."""
        return cls(len(df), outputs.histograms(df), dict(extras or {}), [df] if rows else None)

    @property
    def rows_bytes(self) -> int:
        return sum(int(d.memory_usage(index=False, deep=False).sum()) for d in self.rows or [])

    def merge(self, other: Partial, limit: int | None = None) -> Partial:
        """This partial and ``other`` (the games after it) together; rows beyond ``limit`` bytes are dropped."""
        hists = dict(self.hists)
        for k, h in other.hists.items():
            hists[k] = merge_histograms(hists[k], h) if k in hists else h
        extras = dict(self.extras)
        for k, v in other.extras.items():
            extras[k] = extras[k] + v if k in extras else v
        rows = None if self.rows is None or other.rows is None else self.rows + other.rows
        out = Partial(self.n + other.n, hists, extras, rows)
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


@dataclass
class ChunkResult:
    """A played chunk: its partial, its per-game table when the job keeps rows, and its extras."""

    chunk: Chunk
    partial: Partial
    rows: pd.DataFrame | None = None
    extras: dict[str, np.ndarray] = field(default_factory=dict)


def play_local(spec: Any, ruleset: Any, hero: str, policy: Any, chunk: Chunk, keep_rows: bool = False,
               game_rows: bool = True) -> ChunkResult:
    """One chunk in this process (one kernel call): the game's columns, its derived columns, the partial.
    ``game_rows``: the partial keeps the rows for the game's own summary entries."""
    cols = spec.simulate(ruleset, hero, policy, chunk.seed, chunk.start, chunk.count)
    extras = {key[1:]: cols.pop(key) for key in [c for c in cols if c.startswith("_")]}
    df = spec.outputs.add_derived(pd.DataFrame(cols, copy=False))
    part = Partial.of(spec.outputs, df, extras, rows=game_rows)
    return ChunkResult(chunk, part, df if keep_rows else None, extras)


def play_chunk(job: ChunkJob, chunk: Chunk) -> ChunkResult:
    """One chunk of a job, in any process: the game, ruleset and policy are rebuilt from the job (once per
    process) and the chunk played (``play_local``)."""
    spec, ruleset, pol = _objects(job.game, job.ruleset_source, job.policy)
    return play_local(spec, ruleset, job.hero, pol, chunk, job.keep_rows)


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


class Reducer:
    """Merges chunk results in chunk order (by ``start``), whatever order they arrive in: the same numbers for
    any executor. Results ahead of the next expected chunk wait in a buffer. ``on_rows``: called with each
    result, in order (e.g. writes its rows as a parquet part)."""

    def __init__(self, chunks: list[Chunk], on_result: Callable[[ChunkResult], None] | None = None):
        self.order = sorted(chunks, key=lambda c: c.start)
        self.next = 0
        self.waiting: dict[int, ChunkResult] = {}
        self.partial = Partial()
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
           on_result: Callable[[ChunkResult], None] | None = None) -> Partial:
    """The run's partial from its chunk results (merged in chunk order)."""
    red = Reducer(chunks, on_result)
    for r in results:
        red.add(r)
    if not red.done:
        raise RuntimeError(f"{len(red.order) - red.next} chunk(s) of the run gave no result")
    return red.partial


def summary(spec: Any, part: Partial, ruleset: Any = None, conf: float = 0.95) -> dict[str, Any]:
    """The run summary from a partial: games, win (Wilson), turn cap, the declared columns' entries (from the
    histograms) and the game's own entries (``spec.summarize`` of the kept rows; left out, with a warning, when
    the rows were dropped). ``runner.summarize`` of a whole table is this of ``Partial.of`` that table."""
    from . import stats
    from .runner import cap_entries

    n = part.n
    h = part.hists.get("win")
    k = int(h[1][h[0] != 0].sum()) if h is not None else 0
    out: dict[str, Any] = {"games": n, "win": stats.summarize_rate(k, n, conf)}
    out.update(cap_entries(spec.outputs.turn_cap_count_hists(part.hists), n))
    out.update({key: v for key, v in spec.outputs.summarize_hists(part.hists, n, ruleset, conf).items()
                if key != "win"})
    table = part.table()
    if table is not None:
        out.update(spec.summarize(table, ruleset))
    else:
        keys = ", ".join(k.key for k in spec.outputs.summary_keys) or "none declared"
        out.setdefault("warnings", []).append(
            f"NOTE: the game's own entries ({keys}) need every game's row; this run of {n:,} games kept them "
            f"only up to {keep_rows_bytes() >> 20} MB (FOURY_SIM_KEEP_ROWS_MB), so they are left out")
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

    def __init__(self, out: str | Path, spec: Any, ruleset: Any, record: dict[str, Any], plan: list[Chunk],
                 resume: bool = True):
        import hashlib
        import json
        import shutil

        from .files import WriteError, atomic_write, clean_temp, to_jsonable
        from .study import code_version

        self.folder = Path(out) / PARTS_FOLDER
        self.spec, self.ruleset, self.plan = spec, ruleset, plan
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
        for c in self.plan:
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
        write_frame(r.rows, self.part(r.chunk), outputs=self.spec.outputs, ruleset=self.ruleset)
        part = r.partial
        if self._rows_kept and part.rows is not None:
            self._row_bytes += part.rows_bytes
            self._rows_kept = self._row_bytes <= keep_rows_bytes()
        if not self._rows_kept or part.rows is None:
            part = Partial(part.n, part.hists, part.extras, None)
        atomic_write(self.sidecar(r.chunk), pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))
        self.written += 1

    def parts(self) -> list[Path]:
        return [self.part(c) for c in self.plan]


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
