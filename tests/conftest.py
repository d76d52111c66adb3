"""Suite plumbing: with pytest-xdist (``python -m pytest -n 2``), compile every game once, in parallel, first.

A cold compile costs each game a minute or more, and the first test of a game pays it. With two test processes
both would compile the same game at the same time (twice the work). So before the test processes start, the
main process runs ``foury-sim warm GAME`` for each registered game, ``-n`` of them at a time, into the suite's
kernel cache; the tests then load the engines from the cache (about a second). The longest compile starts first
(each free slot takes the longest game left, by the seconds last measured in ``tests/data/warm_seconds.toml``; a
game not listed there counts as the longest), so that the slowest compile is not the one left running alone at
the end. The summary after the tests prints each game's slot, start and end (the schedule) and its seconds.
Without ``-n`` (one process) nothing changes: each game compiles on its first test, as before.
``FOURY_SIM_TEST_WARM=0`` switches the warm-up off. Reports draw their figures in the test's process
(``FOURY_SIM_REPORT_WORKERS=0`` unless set).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

#: Each game's warm-up seconds as last measured (data: the order of the warm-up, longest first).
WARM_SECONDS = Path(__file__).parent / "data" / "warm_seconds.toml"


def _workers(config) -> int:
    n = getattr(config.option, "numprocesses", None)
    if n in (None, 0):
        return 0
    if n in ("auto", "logical"):
        return os.cpu_count() or 1
    return int(n)


def warm_order(games: list[str], seconds: dict[str, float]) -> list[str]:
    """``games`` longest first by ``seconds`` (a game missing there first of all, in registry order): handed to
    a pool of N slots in this order, each free slot takes the longest game left (greedy longest-first)."""
    longest = max(seconds.values(), default=0.0)
    return sorted(games, key=lambda g: -seconds.get(g, longest + 1.0))  # stable: ties keep registry order


def _warm_all(n: int) -> list[str]:
    from foury_sim.registry import games

    seconds = tomllib.loads(WARM_SECONDS.read_text()) if WARM_SECONDS.is_file() else {}
    order = warm_order(games(), seconds)
    t_start = time.perf_counter()
    slots = threading.local()
    counter = iter(range(1_000_000))

    def one(game: str) -> str:
        if not hasattr(slots, "n"):
            slots.n = next(counter)
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "foury_sim", "warm", game], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"foury-sim warm {game} failed (exit {r.returncode}):\n{r.stderr}")
        t1 = time.perf_counter()
        last = seconds.get(game)
        was = f"; {last:.0f} s in {WARM_SECONDS.name}" if last else f"; not in {WARM_SECONDS.name}"
        return (f"{r.stdout.strip()} [{t1 - t0:.0f} s with start-up{was}; slot {slots.n + 1}, "
                f"{t0 - t_start:.0f} .. {t1 - t_start:.0f} s]")

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(one, order))


def pytest_configure(config) -> None:
    # The test processes fill the CPUs already: reports draw their figures in the test's own process (the drawing
    # workers have their own tests in test_report.py, which ask for them by name).
    os.environ.setdefault("FOURY_SIM_REPORT_WORKERS", "0")
    if hasattr(config, "workerinput"):  # an xdist test process: the main process warmed the cache
        return
    n = _workers(config)
    if n < 2 or os.environ.get("FOURY_SIM_TEST_WARM", "1") == "0" or os.environ.get("NUMBA_DISABLE_JIT", "0") != "0":
        return
    t0 = time.perf_counter()
    lines = _warm_all(n)
    config._foury_warm = (time.perf_counter() - t0, lines)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    warm = getattr(config, "_foury_warm", None)
    if warm:
        terminalreporter.write_line(f"kernels warmed before the tests in {warm[0]:.0f} s:")
        for line in warm[1]:
            terminalreporter.write_line(f"  {line}")
