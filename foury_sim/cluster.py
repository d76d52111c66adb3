"""Chunks of games on a Dask cluster (``--cluster ADDRESS``): the same numbers, bit for bit, as a local run.

A run (a sweep cell, a compare arm, a tune candidate) is a list of chunks ``(seed, start, count)``
(``chunks.plan_chunks``); a game's result never depends on the split, and the caller reduces the chunk
results in chunk order, so a cluster gives the local numbers whatever worker plays which chunk and in what
order they finish. ``dask_executor(address)`` is an ``Executor`` (``chunks.Executor``): it takes the
function that plays one chunk (``functools.partial(chunks.play_chunk, job)``: a plain picklable job, never a
jitted function; workers import the game by name, a user policy file travels by content and is compiled
there) and the chunks, and yields one ``ChunkResult`` per chunk as the tasks finish.

What breaks in practice, and what this module does about it:

- numba's on-disk cache on workers: each worker process points ``FOURY_SIM_CACHE_DIR`` at a directory on a
  local disk before its first kernel call (``worker_cache_dir``: the worker's own setting or the default
  cache when they are local, else a directory under the node's temporary directory; never a cache on a network
  filesystem, where numba's index files race between nodes). A warm-up task per worker loads (or compiles)
  the game's kernel and measures the worker's speed before any game counts.
- task size: scheduling a task costs the scheduler and the worker a few milliseconds; a task plays at most
  ``TASK_S`` and at least ``MIN_TASK_S`` seconds of games (from the speed the warm-up measured), so that cost
  stays under 5 %, and a caller's small chunks are grouped into one task. A run is at least ``TASKS_PER_SLOT``
  tasks per worker thread, in a multiple of the threads: a worker slowed by the node's other work takes fewer
  (with one task a thread, the slowest worker set the run's time: +17 % to +29 % wall on 2 cores).
- different code on the workers: the warm-up compares each worker's foury-sim sources with the caller's
  (``code_digest``); a worker with other code would give other numbers, so the run stops in one line.
- a worker that dies: Dask plays its tasks again elsewhere (``distributed.scheduler.allowed-failures``
  times); the chunks are the same, so the numbers are too.

Dask is an optional extra (``pip install -e ".[cluster]"``): nothing here imports it until a cluster is asked
for, and asking without it is one line (exit 2).
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import hashlib
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from .errors import InputError

#: The environment variable naming the cluster when ``--cluster`` is not given.
ENV = "FOURY_SIM_CLUSTER"
#: Seconds of games a task plays at most when the run is long (scheduling a task costs a few ms: under 1 % of that).
TASK_S = 2.0
#: Smallest task when a short run is spread over the workers (a few ms of overhead is still under 5 %).
MIN_TASK_S = 0.25
#: Tasks a worker thread gets at least (when each still plays ``MIN_TASK_S``): the tasks are handed out as threads
#: free up, so a worker slowed by other work on its node plays fewer of them instead of holding the run up.
TASKS_PER_SLOT = 4
#: Games of the warm-up probe on every worker (played twice: the first call loads the kernel, the second is timed;
#: doubled until the timed call takes ``PROBE_S``). Its results are thrown away.
PROBE_GAMES = 32
PROBE_S = 0.05
#: Seconds to wait for the scheduler to answer.
CONNECT_TIMEOUT_S = 20
#: ``--cluster local`` / ``local:N``: a Dask cluster on this machine (N worker processes of one thread each).
LOCAL = "local"
#: Filesystem types of /proc/mounts that are shared between machines (no numba cache there).
NETWORK_FS = frozenset({
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "lustre", "gpfs", "beegfs", "glusterfs", "fuse.glusterfs", "ceph",
    "fuse.ceph", "fuse.ceph-fuse", "afs", "panfs", "wekafs", "fuse.sshfs", "9p", "fuse.gcsfuse", "fuse.s3fs",
    "fuse.juicefs", "orangefs", "pvfs2", "quobyte", "fuse.quobyte",
})

INSTALL_HINT = 'pip install -e ".[cluster]"'


def config_file() -> Path:
    """The user's configuration file: ``$XDG_CONFIG_HOME/foury-sim/config.toml`` (``~/.config/...``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "foury-sim" / "config.toml"


def cluster_place(option: str | None) -> str:
    """Where the cluster's address came from, for an error line: ``--cluster``, ``FOURY_SIM_CLUSTER`` or the
    configuration file's ``cluster`` (the order of ``cluster_address``)."""
    if option is not None:
        return "--cluster"
    if os.environ.get(ENV) is not None:
        return ENV
    return f"{config_file()}: cluster"


def cluster_address(option: str | None) -> str | None:
    """The cluster to run on: ``--cluster`` if given, else ``FOURY_SIM_CLUSTER``, else ``cluster = "..."`` in
    the configuration file (``config_file``); None (or an empty value): run on this machine."""
    if option is not None:
        return _address(option, "--cluster")
    env = os.environ.get("FOURY_SIM_CLUSTER")
    if env is not None:
        return _address(env, ENV)
    path = config_file()
    if not path.is_file():
        return None
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read the configuration file: {e}", str(path)) from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"not valid TOML: {e}", str(path)) from None
    value = data.get("cluster")
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(f"cluster must be a text (a scheduler address such as \"tcp://host:8786\"), not {value!r}",
                         f"{path}: cluster")
    return _address(value, f"{path}: cluster")


def _address(text: str, where: str) -> str | None:
    text = text.strip()
    if not text:
        return None
    if text == LOCAL or text.startswith(LOCAL + ":"):
        local_workers(text, where)
        return text
    if any(c.isspace() for c in text):
        raise InputError(f"a scheduler address has no spaces: {text!r}", where)
    return text


def local_workers(text: str, where: str = "--cluster") -> int:
    """Workers of ``local`` (2) or ``local:N`` (N from 1 to 256)."""
    _, _, n = text.partition(":")
    if not n:
        return 2
    if not n.isdigit() or not 1 <= int(n) <= 256:
        raise InputError(f"local:N takes a number of workers from 1 to 256, not {n!r}", where)
    return int(n)


def need_dask(where: str = "--cluster") -> Any:
    """The ``distributed`` module, or one line saying how to install it (at ``where``, the address's place)."""
    try:
        import distributed
    except ImportError:
        raise InputError(f"running on a cluster needs Dask, which is not installed: {INSTALL_HINT}",
                         where) from None
    return distributed


_CLIENTS: dict[str, Any] = {}


def client_for(address: str, where: str = "--cluster") -> Any:
    """A Dask client of ``address`` (one per address and process, closed at exit); ``local`` / ``local:N``
    starts a cluster of N worker processes with one thread each on this machine. An address that cannot be
    reached is one line at ``where`` (the place the address came from, ``cluster_place``)."""
    if address in _CLIENTS:
        return _CLIENTS[address]
    distributed = need_dask(where)
    try:
        if address == LOCAL or address.startswith(LOCAL + ":"):
            import dask

            # no statistical profiler sampling every worker thread, and the event loops' blocked-loop check once a
            # second, not every 20 ms (half of an idle local cluster's CPU: 0.27 against 0.55 CPU-s in 6.7 s, 2 workers)
            quiet = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s"}
            with dask.config.set(quiet):
                cluster = distributed.LocalCluster(n_workers=local_workers(address), threads_per_worker=1,
                                                   processes=True, dashboard_address=None)
            # results straight from the workers, not through the scheduler (on this machine every worker is
            # reachable; a remote scheduler's workers may not be, so Dask's default stays there)
            client = distributed.Client(cluster, direct_to_workers=True)
            client._foury_owned_cluster = cluster
        else:
            client = distributed.Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError(f"cannot reach the Dask scheduler at {address!r}: {_one_line(e)}", where) from None
    _CLIENTS[address] = client
    if len(_CLIENTS) == 1:
        atexit.register(close_clients)
    return client


def close_clients() -> None:
    """Close the clients (and the local clusters) this process opened."""
    import contextlib

    while _CLIENTS:
        _, client = _CLIENTS.popitem()
        cluster = getattr(client, "_foury_owned_cluster", None)
        with contextlib.suppress(Exception):
            client.close()
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text[:300]


# --- on the workers -------------------------------------------------------------------------------------------

def fs_type(path: str, mounts: str | None = None) -> str:
    """The filesystem type of ``path`` from ``/proc/mounts`` (the longest mount point above it); "" when
    unknown (no /proc: not Linux)."""
    if mounts is None:
        try:
            mounts = Path("/proc/mounts").read_text()
        except OSError:
            return ""
    path = os.path.abspath(path)
    best, kind = "", ""
    for line in mounts.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        point = parts[1].replace("\\040", " ")
        if (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
            best, kind = point, parts[2]
    return kind


def is_network_fs(path: str, mounts: str | None = None) -> bool:
    """Whether ``path`` lies on a filesystem shared between machines (``NETWORK_FS``)."""
    return fs_type(path, mounts) in NETWORK_FS


def worker_cache_dir(env: dict[str, str] | None = None, mounts: str | None = None,
                     tmp: str | None = None) -> tuple[str, str]:
    """Where a worker keeps its compiled kernels, and why: the worker's ``FOURY_SIM_CACHE_DIR``, else the
    default cache (``$XDG_CACHE_HOME`` or ``~/.cache``, then ``foury-sim``), when that is on a local disk; else
    ``foury-sim-cache-UID`` under the node's temporary directory (``tmp``; default ``$TMPDIR``, else ``/tmp``).
    A cache on a network filesystem is shared by the workers of every node: numba's index files race there."""
    env = dict(os.environ) if env is None else env
    given = env.get("FOURY_SIM_CACHE_DIR")
    home = env.get("HOME") or os.path.expanduser("~")
    default = given or os.path.join(env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "foury-sim")
    what = "FOURY_SIM_CACHE_DIR" if given else "the default cache"
    kind = fs_type(default, mounts)
    if kind not in NETWORK_FS:
        return default, f"{what} (local)"
    tmp = tmp or tempfile.gettempdir()
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tmp, f"foury-sim-cache-{uid}"), f"{what} is on {kind}: a local directory instead"


_PREPARED: dict[str, str] = {}


def prepare_worker() -> dict[str, str]:
    """Once per worker process, before its first kernel: the local cache directory (``worker_cache_dir``)."""
    if not _PREPARED:
        path, why = worker_cache_dir()
        os.makedirs(path, exist_ok=True)
        os.environ["FOURY_SIM_CACHE_DIR"] = path
        _PREPARED.update(cache_dir=path, why=why)
    return _PREPARED


@functools.cache
def code_digest() -> str:
    """A digest of foury-sim's Python sources and data files (a worker with another digest plays other games)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha1()
    for p in sorted(root.rglob("*")):
        if p.suffix in (".py", ".toml", ".map") and "__pycache__" not in p.parts:
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def warm_up(play: Callable[[Any], Any], chunk: Any) -> dict[str, Any]:
    """On a worker: prepare it, load (or compile) the kernel by playing a few games of ``chunk``'s stream, then
    time them again until the call takes ``PROBE_S``: the worker's games per second. The games are thrown away."""
    from . import config
    from .runner import numba_threads

    info: dict[str, Any] = dict(prepare_worker())
    with numba_threads(1):
        return _warm_up(play, chunk, info, config)


def _warm_up(play: Callable[[Any], Any], chunk: Any, info: dict[str, Any], config: Any) -> dict[str, Any]:
    first = dict(config.FIRST_USE)
    t0 = time.perf_counter()
    n = max(1, min(PROBE_GAMES, chunk.count))
    play(dataclasses.replace(chunk, count=n))
    info["first_s"] = time.perf_counter() - t0
    info["compile_s"] = config.FIRST_USE["compile_s"] - first["compile_s"]
    info["load_s"] = config.FIRST_USE["load_s"] - first["load_s"]
    while True:
        t0 = time.perf_counter()
        play(dataclasses.replace(chunk, count=n))
        dt = time.perf_counter() - t0
        if dt >= PROBE_S or n >= chunk.count or n >= 1 << 20:
            break
        n = min(2 * n, chunk.count)
    info.update(rate=n / max(dt, 1e-9), pid=os.getpid(), digest=code_digest(), python=sys.version.split()[0])
    return info


def play_task(play: Callable[[Any], Any], pieces: list[Any]) -> list[Any]:
    """One Dask task: the pieces of one group, in order (the worker prepared first), on one numba thread: the
    cluster's parallelism is its worker threads (a kernel's ``prange`` over all the node's cores in every worker
    process would put cores x workers threads on the node's cores)."""
    from .runner import numba_threads

    prepare_worker()
    with numba_threads(1):
        return [play(c) for c in pieces]


# --- a run given by its built objects (sweep cells, compare arms, tune candidates) ------------------------------
# One job type (``chunks.ChunkJob``) for the command line's runs and for games whose ruleset was built in the caller
# (``chunks.job_of``: the ruleset travels pickled, the policy by name, exact parameters and file content).

def job_of(spec: Any, ruleset: Any, hero: str, policy: Any, keep_rows: bool = True) -> Any:
    """``chunks.job_of`` (kept here for callers of the Dask executor)."""
    from .chunks import job_of as _job_of

    return _job_of(spec, ruleset, hero, policy, keep_rows)


def play_games_with(executor: Any, spec: Any, ruleset: Any, hero: str, policy: Any, seed: int, start: int,
                    count: int, progress: Any = None, size: int | None = None) -> tuple[Any, dict[str, Any]]:
    """``runner.play_games`` through an executor: games ``start .. start+count-1`` as chunks of ``size`` games
    (default: the game's ``GameSpec.batch``) on the chunk path (``chunks.stream_rows``), put back in order: the
    per-game table (with the derived columns) and the extras, the same as in this process."""
    from .chunks import stream_rows

    return stream_rows(spec, ruleset, hero, policy, seed, start, count, size=size, progress=progress,
                       executor=executor)


# --- on the caller --------------------------------------------------------------------------------------------

def task_count(rate: float, games: int, slots: int, task_s: float = TASK_S, min_task_s: float = MIN_TASK_S,
               per_slot: int = TASKS_PER_SLOT) -> int:
    """Tasks for ``games`` games on ``slots`` worker threads at ``rate`` games per second each: at least ``per_slot``
    a thread and enough that none plays over ``task_s`` seconds of games, rounded up to a multiple of ``slots``
    (equal tasks: none left over for one thread at the end); but fewer when a task would play under about
    ``min_task_s`` seconds of games, and never more than the games."""
    slots = max(slots, 1)
    tasks = max(math.ceil(games / max(rate * task_s, 1.0)), per_slot * slots)
    tasks = math.ceil(tasks / slots) * slots
    most = max(1, round(games / max(rate * min_task_s, 1.0)))
    return max(1, min(tasks, most, games))


def cut_tasks(chunks: Iterable[Any], tasks: int) -> list[list[tuple[Any, Any]]]:
    """The games of ``chunks`` (in order, as one sequence) cut into ``tasks`` runs of consecutive games as equal as
    whole games allow: each task a list of (chunk, piece) pairs, a piece being the part of a chunk inside the task
    (a chunk across a cut is played in pieces, joined again into its result by ``join_results``)."""
    chunks = [c for c in chunks if c.count > 0]
    total = sum(c.count for c in chunks)
    tasks = max(1, min(tasks, total))
    ends = [i * total // tasks for i in range(1, tasks + 1)]
    groups: list[list[tuple[Any, Any]]] = [[] for _ in range(tasks)]
    done, t = 0, 0
    for c in chunks:
        s, left = c.start, c.count
        while left:
            take = min(left, ends[t] - done)
            groups[t].append((c, c if take == c.count else dataclasses.replace(c, start=s, count=take)))
            s, left, done = s + take, left - take, done + take
            if done == ends[t]:
                t += 1
    return [g for g in groups if g]


def join_results(chunk: Any, results: list[Any]) -> Any:
    """A chunk's result from the results of its pieces (in order): partials merged keeping every row (the
    caller's reduction applies its own limit), per-game tables concatenated, extras added: what playing the
    chunk whole gives."""
    if len(results) == 1 and results[0].chunk == chunk:
        return results[0]
    results = sorted(results, key=lambda r: r.chunk.start)
    part = results[0].partial
    for r in results[1:]:
        part = part.merge(r.partial, limit=sys.maxsize)
    rows = None
    if all(r.rows is not None for r in results):
        import pandas as pd

        if isinstance(results[0].rows, tuple):  # a comparison's chunk: the tables of A and of B
            rows = tuple(pd.concat([r.rows[i] for r in results], ignore_index=True)
                         for i in range(len(results[0].rows)))
        else:
            rows = pd.concat([r.rows for r in results], ignore_index=True)
    extras: dict[str, Any] = {}
    for r in results:
        for k, v in r.extras.items():
            extras[k] = extras[k] + v if k in extras else v
    return type(results[0])(chunk, part, rows, extras)


class DaskExecutor:
    """An ``Executor`` on a Dask cluster: ``executor(play, chunks)`` yields one result per chunk as its task
    finishes (in any order: the caller reduces them in chunk order). ``last`` holds what the latest call saw:
    the workers' warm-up records, games per task (the largest), tasks. ``task_s`` / ``min_task_s``: see
    ``task_count``."""

    def __init__(self, address: str, task_s: float = TASK_S, min_task_s: float = MIN_TASK_S,
                 games_per_task: int | None = None, where: str = "--cluster") -> None:
        self.address = address
        #: where the address came from (``cluster_place``): the place of an error about the cluster
        self.where = where
        self.task_s, self.min_task_s = task_s, min_task_s
        #: Games per task instead of the size chosen from the measured speed (``task_count``).
        self.games_per_task = games_per_task
        self.client = client_for(address, where)
        self.last: dict[str, Any] = {}
        self._warmed: dict[Any, tuple[frozenset[str], list[dict[str, Any]]]] = {}

    def workers(self) -> dict[str, int]:
        """Worker address -> threads."""
        info = self.client.scheduler_info(n_workers=-1) if _takes_n_workers(self.client) else \
            self.client.scheduler_info()
        return {addr: int(w.get("nthreads", 1)) for addr, w in info.get("workers", {}).items()}

    def warm(self, play: Callable[[Any], Any], chunk: Any) -> list[dict[str, Any]]:
        """The warm-up task on every worker (``warm_up``); a worker with other foury-sim code stops the run."""
        workers = self.workers()
        if not workers:
            self.client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
            workers = self.workers()
        futures = [self.client.submit(warm_up, play, chunk, workers=[w], allow_other_workers=False, pure=False,
                                      key=f"foury-sim-warm-up-{w}-{time.monotonic_ns()}") for w in workers]
        records = self._gather(futures)
        mine = code_digest()
        for w, r in zip(workers, records):
            r["worker"], r["threads"] = w, workers[w]
            if r["digest"] != mine:
                raise InputError(f"the worker at {w} runs other foury-sim code (sources {r['digest']}, here {mine}):"
                                 " its games would differ; install the same version on every worker", self.where)
        return records

    def _gather(self, futures: list[Any]) -> list[Any]:
        try:
            return self.client.gather(futures)
        except BaseException:
            self.client.cancel(futures)
            raise

    def __call__(self, play: Callable[[Any], Any], chunks: list[Any]) -> Iterator[Any]:
        chunks = list(chunks)
        if not chunks:
            return
        distributed = need_dask()
        key = warm_key(play)
        seen = self._warmed.get(key)
        if seen is not None and seen[0] == frozenset(self.workers()):
            records = seen[1]
        else:
            records = self.warm(play, chunks[0])
            self._warmed[key] = (frozenset(r["worker"] for r in records), records)
        rates = sorted(r["rate"] for r in records)
        rate = rates[len(rates) // 2]
        slots = sum(r["threads"] for r in records)
        games = sum(c.count for c in chunks)
        tasks = max(1, round(games / self.games_per_task)) if self.games_per_task else \
            task_count(rate, games, slots, self.task_s, self.min_task_s)
        groups = cut_tasks(chunks, tasks)
        self.last = {"workers": records, "task_games": math.ceil(games / max(len(groups), 1)), "tasks": len(groups),
                     "rate": rate}
        stamp = time.monotonic_ns()
        futures = {self.client.submit(play_task, play, [p for _, p in g], pure=False,
                                      key=f"foury-sim-chunks-{stamp}-{i}"): g for i, g in enumerate(groups)}
        pending: dict[Any, list[Any]] = {}  # a chunk played in pieces -> the results of its pieces so far
        wanted = {c: 0 for c in chunks}
        for g in groups:
            for c, _ in g:
                wanted[c] += 1
        try:
            for fut in distributed.as_completed(list(futures)):
                group, results = futures.pop(fut), fut.result()
                fut.release()  # the worker may forget the result now (its rows can be large)
                for (c, _), r in zip(group, results):
                    got = pending.setdefault(c, [])
                    got.append(r)
                    if len(got) == wanted[c]:
                        del pending[c]
                        yield join_results(c, got)
        finally:
            if futures:  # stopped early (an error, Ctrl-C): the tasks not yet run are dropped
                self.client.cancel(list(futures))


def warm_key(play: Any) -> Any:
    """What a warm-up stands for: the game, hero and policy of a ``partial(play_chunk, job)`` (the cells of a
    sweep or the candidates of a tune share one warm-up: same kernel, about the same speed), else the function."""
    job = play.args[0] if isinstance(play, functools.partial) and play.args else None
    while isinstance(job, functools.partial) and job.args:  # a comparison's pair: the job of variant A
        job = job.args[0]
    if job is None:
        return play
    pol = getattr(job, "policy", None)
    return (getattr(play.func, "__qualname__", repr(play.func)), getattr(job, "game", None),
            getattr(job, "hero", None), getattr(pol, "name", repr(pol)))


def _takes_n_workers(client: Any) -> bool:
    import inspect

    try:
        return "n_workers" in inspect.signature(client.scheduler_info).parameters
    except (TypeError, ValueError):
        return False


def dask_executor(address: str, **kw: Any) -> DaskExecutor:
    """The ``Executor`` of the Dask scheduler at ``address`` (``tcp://host:8786``, or ``local`` / ``local:N``)."""
    return DaskExecutor(address, **kw)


def executor_for(option: str | None) -> DaskExecutor | None:
    """The executor of ``--cluster`` / ``FOURY_SIM_CLUSTER`` / the configuration file (``cluster_address``),
    None to run on this machine. Checks that Dask is installed before any work."""
    address = cluster_address(option)
    if address is None:
        return None
    where = cluster_place(option)
    need_dask(where)
    return dask_executor(address, where=where)
