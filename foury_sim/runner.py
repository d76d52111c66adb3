"""Run many games of any registered game: the library function behind ``foury-sim run``."""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import queue
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import assumptions, provenance
from .errors import InputError
from .files import atomic_write, to_jsonable, write_frame
from .inputs import check_conf, check_games, check_name, check_param_text, check_seed, check_threads
from .lazy import pd
from .policy import Policy
from .registry import GameSpec, get_game


@dataclass
class RunResult:
    """Per-game table, run-level extras (e.g. visit counts per room) and the summary."""

    game: str
    hero: str
    policy: Policy
    seed: int
    ruleset: Any
    df: pd.DataFrame | None
    extras: dict[str, np.ndarray] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    elapsed: float = 0.0
    #: the folder of the per-game parquet parts (``run(out=...)``), None when none were written
    parts: Path | None = None


@contextlib.contextmanager
def numba_threads(threads: int | None) -> Iterator[None]:
    """Run with ``threads`` numba threads, restoring the previous count afterwards (numba's count is per
    thread: ``in_worker`` hands the caller's count to its worker thread)."""
    if threads is None:
        yield
        return
    import numba

    check_threads(threads)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        yield
    finally:
        numba.set_num_threads(old)


class Progress:
    """The progress of a long job (games of a run, cells of a sweep, points of a robustness study) on stderr.

    ``enabled``: None (the default of every verb) shows a rich bar on a terminal once the job has taken
    ``LAZY_S`` seconds (a short job shows nothing) and nothing when stderr is not a terminal (a log, a pipe);
    True (``--progress``) shows the bar at once on a terminal and, elsewhere, a plain line every
    ``PLAIN_EVERY_S`` seconds and one at the end (no animation in logs); False shows nothing. While the bar is
    shown, the compile notice (``config.announce``) is printed above it."""

    #: Seconds before the automatic bar appears (a job shorter than that shows none).
    LAZY_S = 2.0
    #: Seconds between two plain progress lines when stderr is not a terminal and progress is forced.
    PLAIN_EVERY_S = 10.0

    def __init__(self, total: int, label: str = "games", enabled: bool | None = None, stream: Any = None):
        self.total = max(total, 1)
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        tty = _isatty(self.stream)
        self.mode = "off" if enabled is False else "bar" if tty else "lines" if enabled else "off"
        #: Whether anything may be shown (the runner then plays in batches, so that the bar moves).
        self.enabled = self.mode != "off"
        self.t0 = time.perf_counter()
        self.done = 0
        self._lock = threading.Lock()
        self._bar: Any = None
        self._task: Any = None
        self._closed = False
        self._last_line = self.t0
        self._last_done: int | None = None  # (the count the last plain line said)
        self._timer: threading.Timer | None = None
        if self.mode == "bar":
            if enabled is None and self.LAZY_S > 0:
                self._timer = threading.Timer(self.LAZY_S, self._start)
                self._timer.daemon = True
                self._timer.start()
            else:
                self._start()

    def _start(self) -> None:
        """Show the rich bar (at once, or from the timer after ``LAZY_S``)."""
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        from . import config

        with self._lock:
            if self._closed or self._bar is not None:
                return
            console = Console(file=self.stream, highlight=False)
            self._bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      TaskProgressColumn(), TextColumn("elapsed"), TimeElapsedColumn(),
                                      TextColumn("left"), TimeRemainingColumn(), console=console,
                                      redirect_stdout=False, redirect_stderr=False, transient=False)
            self._task = self._bar.add_task(self.label, total=self.total, completed=min(self.done, self.total))
            for task in self._bar.tasks:  # elapsed time counts from the start of the job, not of the bar
                if task.id == self._task and task.start_time is not None:
                    task.start_time -= time.perf_counter() - self.t0
            self._bar.start()
            config.NOTICE_SINK.append(lambda text: console.print(text, markup=False, highlight=False))

    def update(self, n: int) -> None:
        with self._lock:
            self.done += n
            if self._bar is not None:
                self._bar.update(self._task, completed=min(self.done, self.total))
            elif self.mode == "lines" and time.perf_counter() - self._last_line >= self.PLAIN_EVERY_S:
                self._line()

    def _line(self) -> None:
        el = time.perf_counter() - self.t0
        frac = min(self.done / self.total, 1.0)
        left = f", about {el / frac - el:.0f} s left" if 0 < frac < 1 else ""
        self.stream.write(f"foury-sim: {self.done:,} of {self.total:,} {self.label} ({100 * frac:.0f} %), "
                          f"{el:.0f} s{left}\n")
        self.stream.flush()
        self._last_line = time.perf_counter()
        self._last_done = self.done

    def close(self) -> None:
        from . import config

        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._bar is not None:
                self._bar.update(self._task, completed=min(self.done, self.total))
                self._bar.stop()
                if len(config.NOTICE_SINK) > 1:
                    config.NOTICE_SINK.pop()
            elif self.mode == "lines" and self._last_done != self.done:
                self._line()  # (not twice: the last update may have said the same, 100 % already)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send everything written to standard output inside the block to standard error: a user policy's
    ``print()`` (numba writes through the C level file descriptor 1 and Python's ``sys.stdout``) never mixes
    into the text or JSON a verb prints. Used around every call of a game's code (``in_worker``)."""
    for f in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            f.flush()
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no file descriptors (an embedding host): the Python level redirect still applies
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL(None).fflush(None)
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


#: Worker threads running a game's code that did not stop when asked (a policy in an endless loop inside a
#: kernel call): the command line then ends the process with ``os._exit`` after printing its line.
STUCK: list[threading.Thread] = []
#: Seconds a worker is given to finish its kernel call after Ctrl-C before it counts as stuck.
STOP_GRACE_S = 1.0


class Stop(Exception):
    """Raised in a worker between two kernel calls once the caller was interrupted."""


#: Seconds a user policy may go without answering any decision, once it has answered one, before the run is
#: stopped as stuck (an endless loop inside the policy); ``FOURY_SIM_DECISION_BUDGET_S`` changes it.
DECISION_BUDGET_S = 60.0


def decision_budget() -> float:
    """The decision budget in seconds (``DECISION_BUDGET_S``, or the ``FOURY_SIM_DECISION_BUDGET_S``
    environment variable: a number from 0.1 to 86400)."""
    text = os.environ.get("FOURY_SIM_DECISION_BUDGET_S")
    if text is None:
        return DECISION_BUDGET_S
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0.1 <= v <= 86400:
        raise InputError(f"must be a number of seconds from 0.1 to 86400, not {text!r}",
                         "FOURY_SIM_DECISION_BUDGET_S")
    return v


def policy_watch(policy: Policy) -> Any:
    """What ``in_worker`` watches while a user policy plays: its (decisions started, answered) counts; None
    for a built-in policy."""
    from .userpolicy import decision_counts

    return None if policy.errors is None else (lambda: (policy.name, decision_counts(policy)))


class _Worker:
    """A thread that runs ``in_worker``'s calls, one after another, kept between them: a new thread for every
    kernel call could get a malloc arena of its own (glibc gives a thread that starts while the last one is
    still ending another arena, up to eight a core), and each arena kept the freed pages of the chunks' arrays,
    so a streamed run's resident set grew with its chunks (20,000,000 games of a fast game: 375.5 MB against
    221.1 MB for 200,000, docs/speed.md "Session 52")."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._serve, name="foury-sim-kernel", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while (job := self.jobs.get()) is not None:
            job()

    def retire(self) -> None:
        """A worker whose call did not stop when asked: listed in ``STUCK``, its thread ends once the call returns."""
        self.jobs.put(None)
        STUCK.append(self.thread)


#: Workers waiting for a call (one per caller running at the same time; a call made inside a call takes another).
#: (A list's ``append`` and ``pop`` are atomic.) A forked child forgets them: their threads are not there.
_IDLE: list[_Worker] = []
os.register_at_fork(after_in_child=_IDLE.clear)


def in_worker(fn: Any, *args: Any, watch: Any = None, **kw: Any) -> Any:
    """``fn(*args, **kw)`` in a worker thread (numba's thread count of the caller; standard output sent to
    standard error), the calling thread waiting so that Ctrl-C reaches it within a fraction of a second even
    while a kernel runs (kernels release the GIL). On Ctrl-C the worker is asked to stop (``stop_requested``
    between kernel calls) and ``KeyboardInterrupt`` is raised in the caller; a worker still running after
    ``STOP_GRACE_S`` is listed in ``STUCK``. Exceptions of ``fn`` are raised in the caller. The worker thread is
    kept for the next call (``_Worker``: the chunks of a run are played by one thread).

    ``watch`` (``policy_watch``): once a user policy has started a decision, if its decision counts do not
    move for ``decision_budget()`` seconds the policy is stuck in one decision; the worker is listed in
    ``STUCK`` and an ``InputError`` naming the policy is raised (the command line then ends the process)."""
    import numba

    n_threads = numba.get_num_threads()
    box: dict[str, Any] = {}
    stop = threading.Event()
    done = threading.Event()

    def work() -> None:
        _STOP.event = stop
        try:
            numba.set_num_threads(n_threads)
            box["value"] = fn(*args, **kw)
        except BaseException as e:  # handed to the caller
            box["error"] = e
        finally:
            _STOP.event = None
            done.set()

    budget = decision_budget() if watch is not None else 0.0
    try:
        worker = _IDLE.pop()
    except IndexError:
        worker = _Worker()
    seen = watch()[1] if watch is not None else None
    armed, since = False, time.monotonic()
    with stdout_to_stderr():
        worker.jobs.put(work)
        try:
            while not done.wait(0.05):
                if watch is None:
                    continue
                name, now = watch()
                if now != seen:
                    armed, seen, since = True, now, time.monotonic()
                elif armed and time.monotonic() - since > budget and not done.is_set():
                    stop.set()
                    worker.retire()
                    raise InputError(f"policy {name!r} answered no decision for {budget:g} s (an endless loop "
                                     "inside the policy?); the run was stopped (the budget: "
                                     "FOURY_SIM_DECISION_BUDGET_S)", "--policy")
        except KeyboardInterrupt:
            stop.set()
            if not done.wait(STOP_GRACE_S):
                worker.retire()
            else:
                _IDLE.append(worker)
            raise
    _IDLE.append(worker)
    if "error" in box:
        raise box["error"]
    return box.get("value")


_STOP = threading.local()


def stop_requested() -> bool:
    """True in a worker of ``in_worker`` whose caller was interrupted (checked between kernel calls)."""
    ev = getattr(_STOP, "event", None)
    return ev is not None and ev.is_set()


#: Games per kernel call when the caller gives no batch (a game may set its own: ``GameSpec.kernel_batch``): small
#: enough that a call takes about a second or less (Ctrl-C is honoured between calls), large enough that the
#: calls cost nothing measurable.
KERNEL_BATCH = 50_000


#: Smallest kernel call while a progress bar may be shown.
PROGRESS_BATCH = 2_000

#: Most games of one kernel call of a policy with the trait ``slow`` (a search policy: a game costs the time of many):
#: a hundredth of the run, at least 1 and at most this, so that the bar moves (a search run of 1,000 games of the
#: flagship took 5 minutes in one call, its bar at 0 % all along).
SLOW_BATCH = 200


def simulate_games(spec: GameSpec, ruleset: Any, hero: str, policy: Policy, seed: int, start: int, count: int,
                   progress: Progress | None = None, batch: int | None = None) -> tuple[pd.DataFrame, dict]:
    """Games ``start .. start+count-1`` in batches (kernel calls of at most ``KERNEL_BATCH`` games, run by
    ``in_worker``); a game's result never depends on the batch split."""
    if batch is None:
        # about a hundred steps for a bar (kernel calls of 2,000 games or more cost nothing measurable)
        batch = chunk_size(count, progress, spec.batch, "slow" in policy.traits)
    batch = max(1, min(batch, spec.batch))
    return in_worker(_simulate_batches, spec, ruleset, hero, policy, seed, start, count, progress, batch,
                     watch=policy_watch(policy))


def _simulate_batches(spec: GameSpec, ruleset: Any, hero: str, policy: Policy, seed: int, start: int, count: int,
                      progress: Progress | None, batch: int) -> tuple[pd.DataFrame, dict]:
    frames: list[pd.DataFrame] = []
    extras: dict[str, np.ndarray] = {}
    done = 0
    while done < count:
        if stop_requested():
            raise Stop()
        k = min(batch, count - done)
        cols = spec.simulate(ruleset, hero, policy, seed, start + done, k)
        for key in [c for c in cols if c.startswith("_")]:
            v = cols.pop(key)
            extras[key[1:]] = extras[key[1:]] + v if key[1:] in extras else v
        frames.append(pd.DataFrame(cols))
        done += k
        if progress is not None:
            progress.update(k)
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return df, extras


#: The executor ``play_games`` plays through when given none (``executing``); None: this process.
_EXECUTOR: contextvars.ContextVar[Any] = contextvars.ContextVar("foury_sim_executor", default=None)


@contextlib.contextmanager
def executing(executor: Any) -> Iterator[None]:
    """Inside the block, ``play_games`` (every sweep cell, compare arm, tune candidate) plays its games through
    ``executor`` (``chunks.Executor``, e.g. ``cluster.dask_executor``); None: in this process."""
    token = _EXECUTOR.set(executor)
    try:
        yield
    finally:
        _EXECUTOR.reset(token)


def play_games(spec: GameSpec, ruleset: Any, hero: str, policy: Policy, seed: int, start: int, count: int,
               progress: Progress | None = None, batch: int | None = None,
               executor: Any = None) -> tuple[pd.DataFrame, dict]:
    """The per-game table every run, sweep cell and comparison reads: the game's columns
    (``simulate_games``) plus its derived columns (``Outputs.add_derived``, computed only here). ``executor``
    (default: the one of ``executing``, else this process): where the games are played
    (``cluster.play_games_with``: the same table)."""
    executor = executor if executor is not None else _EXECUTOR.get()
    if executor is not None:
        from .cluster import play_games_with

        return play_games_with(executor, spec, ruleset, hero, policy, seed, start, count, progress, batch)
    df, extras = simulate_games(spec, ruleset, hero, policy, seed, start, count, progress, batch)
    return spec.outputs.add_derived(df), extras


#: Share of games ending at the game's turn cap above which a run summary carries a warning.
CAP_WARN_SHARE = 0.01


def cap_summary(spec: GameSpec, df: pd.DataFrame) -> dict[str, Any]:
    """Games that ended at the game's safety cap on turns (``spec.outputs.turn_cap``): their count and
    share, and a warning when the share exceeds ``CAP_WARN_SHARE`` (a policy that loops)."""
    return cap_entries(spec.outputs.turn_cap_count(df), len(df))


def cap_entries(k: int | None, n: int) -> dict[str, Any]:
    """``cap_summary`` from the count ``k`` of games at the cap (None: the game has no cap) among ``n``."""
    if k is None:
        return {}
    out: dict[str, Any] = {"turn_cap_games": k, "turn_cap_share": k / n if n else 0.0}
    if n and k / n > CAP_WARN_SHARE:
        out["warnings"] = [f"WARNING: {100 * k / n:.1f} % of games ended at the turn cap (more than "
                           f"{100 * CAP_WARN_SHARE:g} %): the policy probably loops, and its win rate understates "
                           f"what a player would reach"]
    return out


def summarize(spec: GameSpec, df: pd.DataFrame, ruleset: Any = None, conf: float = 0.95) -> dict[str, Any]:
    """Win rate with its Wilson interval, the share of games at the turn cap, the declared columns' rates
    (Wilson), means (t intervals) and category counts, and the game's own entries (``spec.summarize``): the
    summary a streamed run computes chunk by chunk (``chunks.summary`` of the table's ``chunks.Partial``)."""
    from .chunks import Partial, summary

    df = spec.outputs.add_derived(df)
    return summary(spec, Partial.of(spec.outputs, df), ruleset, conf)


def run_options(spec: GameSpec, command: str, options: dict[str, Any] | None) -> dict[str, Any]:
    """The game's options of ``command`` (``spec.options``) with their defaults; an option the game does not
    take for that command is an ``InputError``."""
    known = {o.name: o for o in spec.options if command in o.commands}
    given = dict(options or {})
    for name in given:
        if name not in known:
            raise InputError(f"{spec.name} {command} takes no option --{name.replace('_', '-')}",
                             f"--{name.replace('_', '-')}")
    return {name: given.get(name, o.default) for name, o in known.items()}


def check_streamed_games(games: int, start: int = 0, where: str = "--games") -> int:
    """A number of games of a streamed run (no per-game table kept): 1 .. 2**63-1 with the last game index
    within the seeds' range (memory does not grow with the number of games)."""
    from .inputs import INDEX_MAX, check_int

    check_int(games, where, 1, INDEX_MAX)
    if start + games - 1 > INDEX_MAX:
        raise InputError(f"the last game index {start + games - 1} is beyond 2**63-1", where)
    return games


def chunk_size(games: int, progress: Progress | None, batch: int = KERNEL_BATCH, slow: bool = False,
               kept: bool = False) -> int:
    """Games per chunk of a local run: one kernel call of at most ``batch`` games (the game's
    ``GameSpec.batch``; about a hundred steps for a progress bar); ``slow`` (a policy with that trait): a hundredth
    of the run, 1 to ``SLOW_BATCH`` games, bar or not. ``kept``: the chunks are written as parts that a later run
    goes on from (``run --out``), so the plan is the bar's whether a bar is shown or not: a run interrupted on a
    terminal goes on from its parts in a pipe, and the other way round."""
    if slow:
        return max(1, min(games // 100, SLOW_BATCH, batch))
    steps = kept or (progress is not None and progress.enabled)
    size = max(PROGRESS_BATCH, games // 100) if steps else games
    return max(1, min(size, batch))


def run(game: str, *, hero: str | None = None, policy: str | None = None, params: str | None = None,
        games: int = 10_000, seed: int = 1, rules: str | None = None, sets: list[str] | None = None,
        map: str | None = None, threads: int | None = None, progress: bool | None = None,
        ruleset: Any = None, start: int = 0, options: dict[str, Any] | None = None,
        conf: float = 0.95, keep_rows: bool = True, out: str | Path | None = None, executor: Any = None,
        chunk: int | None = None) -> RunResult:
    """Simulate ``games`` games and summarize them (everything ``foury-sim run`` does, minus printing).

    ``options``: the game's own options of ``run`` (``GameSpec.options``), passed to its ``load_ruleset``;
    ``conf``: the level of every interval. ``summary["provenance"]`` records how the run was made: its
    overrides, policy parameters, seed, games, version, commit and the command that reproduces it
    (``provenance.run_record``).

    The games are played as chunks (``chunks.plan_chunks``, ``chunk`` games each) and the summary is streamed
    from them (``chunks.summary``: the same figures as ``summarize`` of the whole table). ``keep_rows``: the
    per-game table is kept in ``RunResult.df`` (False: ``df`` is None and memory does not grow with ``games``).
    ``out``: the per-game table is written chunk by chunk as parquet parts in ``out/games.parquet/`` (a re-run
    with the same settings goes on from the parts already written: ``chunks.PartWriter``). ``executor``: plays
    the chunks (``chunks.Executor``; None: in this process)."""
    from . import chunks as ch

    spec = get_game(game)
    if keep_rows:
        check_games(games, columns=len(spec.outputs.columns), start=start)
    else:
        check_streamed_games(games, start)
    check_seed(seed)
    check_threads(threads)
    check_conf(conf)
    decision_budget()  # (a bad FOURY_SIM_DECISION_BUDGET_S: one line before a policy file compiles)
    ch.keep_rows_bytes()  # (a bad FOURY_SIM_KEEP_ROWS_MB: one line before any game, read or not)
    check_name(hero, "--hero")
    check_name(policy, "--policy")
    check_param_text(params)
    spec.check_map(map)
    opts = run_options(spec, "run", options)
    given_ruleset = ruleset is not None
    if ruleset is None:
        ruleset = spec.load_ruleset(rules, sets, map, **opts)
    hero = spec.check_hero(ruleset, spec.default_hero if hero is None else hero)
    policy_name = spec.default_policy if policy is None else policy
    pol = spec.policy(policy_name, params)
    from . import config

    defaults = {o.name: o.default for o in spec.options if "run" in o.commands}
    record = provenance.run_record(
        game, hero=hero, policy=pol, params=params, games=games, seed=seed, conf=conf, rules=rules,
        sets=provenance.resolve_sets(sets, getattr(ruleset, "data", None)), map=map, options=opts,
        defaults=defaults, start=start, ruleset_given=given_ruleset, read_files=spec.read_files(ruleset))
    bar = Progress(games, enabled=progress) if progress is not False else None
    plan = ch.plan_chunks(seed, start, games, chunk if chunk is not None else chunk_size(
        games, bar, spec.batch, "slow" in pol.traits, kept=out is not None))
    rows_wanted = keep_rows or out is not None
    if executor is None:
        def fn(c: ch.Chunk) -> ch.ChunkResult:
            return ch.play_local(spec, ruleset, hero, pol, c, rows_wanted)

        execute = ch.local_executor(threads, bar, policy_watch(pol))
    else:
        if given_ruleset:
            raise InputError("a ruleset object cannot be sent to other processes: give rules/sets instead",
                             "ruleset")
        import functools

        fn = functools.partial(ch.play_chunk, ch.job_for(game, hero=hero, policy=policy_name, params=params,
                                                         rules=rules, sets=sets, map=map, options=opts,
                                                         keep_rows=rows_wanted))
        execute = ch.counting(executor, bar)  # the bar moves as each chunk's result comes back
    writer = ch.PartWriter(out, spec, ruleset, record, plan, resume=not keep_rows) if out is not None else None
    frames: list[pd.DataFrame] = []

    def on_result(r: ch.ChunkResult) -> None:
        if writer is not None:
            writer.write(r)
        if keep_rows and r.rows is not None:
            frames.append(r.rows)

    first = dict(config.FIRST_USE)
    t0 = time.perf_counter()
    try:
        loaded = writer.resumed() if writer is not None else []
        done = {r.chunk.start for r in loaded}
        todo = plan if not done else [c for c in plan if c.start not in done]  # (a plan is made as it is read)
        if bar is not None and loaded:
            bar.update(sum(r.chunk.count for r in loaded))
        import itertools

        part = ch.reduce(itertools.chain(loaded, execute(fn, todo) if todo else []), plan, on_result)
    except KeyboardInterrupt:
        kept = writer.kept() if writer is not None else 0
        if kept:
            from .errors import Interrupted

            raise Interrupted(f"{kept} of {len(plan)} parts kept in {writer.folder}; the same command goes on from "
                              "them", same_command=True) from None
        raise
    finally:
        if bar is not None:
            bar.close()
    # the time of compiling (or loading) the engine on its first use is not simulation time
    startup = {k: config.FIRST_USE[k] - first[k] for k in first}
    elapsed = max(time.perf_counter() - t0 - sum(startup.values()), 0.0)
    df = None
    if keep_rows:
        df = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    res = RunResult(game, hero, pol, seed, ruleset, df, part.extras, elapsed=elapsed)
    res.parts = writer.folder if writer is not None else None
    res.summary = ch.summary(spec, part, ruleset, conf)
    res.summary.update({"game": game, "title": spec.title_of(ruleset), "hero": hero, "policy": pol.describe(),
                        "seed": seed, "conf": conf,
                        "elapsed_s": round(elapsed, 3),
                        "games_per_s": round((games - sum(r.chunk.count for r in loaded)) / max(elapsed, 1e-9)),
                        "compile_s": round(startup["compile_s"], 3), "load_s": round(startup["load_s"], 3),
                        "assumptions": assumptions.records(ruleset, hero)})
    why = spec.no_win(ruleset) if spec.no_win is not None else ""
    if why:
        res.summary["no_win"] = why
    if writer is not None and writer.resumed_count:
        res.summary["resumed_chunks"] = writer.resumed_count
    res.summary["provenance"] = record
    return res


#: The files ``write_run`` writes beside a run's parts (the CSV, the summary, a board's visits): a run into a folder
#: starts by removing another run's (``cli``'s ``--out``).
RUN_FILES = ("games.csv", "summary.json", "visits.csv")


def write_run(res: RunResult, out_dir: str | Path) -> list[Path]:
    """``games.parquet``, ``games.csv`` and ``summary.json`` in ``out_dir`` (each written atomically). A run
    that wrote its parts there (``run(out=...)``) has ``games.parquet`` as that folder of parts, and the CSV is
    written from them a part at a time."""
    from .chunks import write_csv_from_parts

    out = Path(out_dir)
    csv, summary, visits = (out / name for name in RUN_FILES)
    paths = [out / "games.parquet", csv, summary]
    outputs = get_game(res.game).outputs  # the tables carry readable labels (Outputs.labelled)
    if res.parts is not None and Path(res.parts) == paths[0]:
        write_csv_from_parts(sorted(paths[0].glob("part-*.parquet")), paths[1])
    else:
        if res.df is None:
            raise ValueError("the run kept no per-game table: run it with keep_rows=True or out=...")
        write_frame(res.df, paths[0], outputs=outputs, ruleset=res.ruleset, made=res.summary.get("provenance"))
        write_frame(res.df, paths[1], outputs=outputs, ruleset=res.ruleset)
    atomic_write(paths[2], json.dumps(to_jsonable(res.summary), indent=2))
    if "visits" in res.extras:
        write_frame(pd.DataFrame({"cell": np.arange(len(res.extras["visits"])), "visits": res.extras["visits"]}),
                    visits)
        paths.append(visits)
    return paths
