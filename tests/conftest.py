"""Suite plumbing: with pytest-xdist (``python -m pytest -n 2``), compile every game once, in parallel, first.

A cold compile costs each game a minute or more, and the first test of a game pays it. With two test processes
both would compile the same game at the same time (twice the work). So before the test processes start, the
main process runs ``foury-sim warm GAME`` for each registered game, ``-n`` of them at a time (in the
registry's order), into the suite's kernel cache; the tests then load the engines from the cache (about a second).
Without ``-n`` (one process) nothing changes: each game compiles on its first test, as before.
``FOURY_SIM_TEST_WARM=0`` switches the warm-up off.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def _workers(config) -> int:
    n = getattr(config.option, "numprocesses", None)
    if n in (None, 0):
        return 0
    if n in ("auto", "logical"):
        return os.cpu_count() or 1
    return int(n)


def _warm_all(n: int) -> list[str]:
    from foury_sim.registry import games

    def one(game: str) -> str:
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "foury_sim", "warm", game], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"foury-sim warm {game} failed (exit {r.returncode}):\n{r.stderr}")
        return f"{r.stdout.strip()} [{time.perf_counter() - t0:.0f} s with start-up]"

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(one, games()))


def pytest_configure(config) -> None:
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
