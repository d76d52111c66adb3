"""``foury-sim ARGS`` run inside the test process: what ``subprocess.run([python, -m, foury_sim.cli, ...])``
returns (exit code, stdout, stderr), without starting a new interpreter.

A new interpreter costs about 3 CPU-seconds per command (importing numpy, pandas, numba and the game modules,
loading the engines from the cache) and the suite ran well over a hundred of them; here the same ``cli.main``
runs with ``sys.argv``, the working folder and both streams swapped in, and its exit code is the ``SystemExit``
it raises (0 when it returns). As in a fresh interpreter, Python's warnings go to the command's stderr under
Python's default filters (pytest's own warning capture does not swallow them), and the engines' thread count is
restored afterwards (``--threads``).

Use it where the command's output, exit code and files are what is tested. What only a real process shows keeps
a real process: the entry point itself (``python -m foury_sim``: ``tests/test_cli.py``'s
``test_the_real_entry_point_*``, the README's commands in ``tests/test_readme.py``), Ctrl-C and signals
(``tests/test_interrupt.py``, ``tests/test_study.py``), a stuck policy (the process ends with ``os._exit``),
and anything run under another environment (``NUMBA_DISABLE_JIT``, another cache folder).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import warnings
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path | str = ROOT, timeout: float | None = None) -> subprocess.CompletedProcess:
    """``foury-sim ARGS`` in folder ``cwd``, in this process: ``CompletedProcess(args, returncode, stdout,
    stderr)`` as ``subprocess.run(..., capture_output=True, text=True)`` gives it (``timeout`` is accepted
    for the same call's sake and not enforced: pytest's own timeout, if any, applies)."""
    import numba

    from foury_sim import cli as cli_module

    out, err = io.StringIO(), io.StringIO()
    argv, here, threads = sys.argv, os.getcwd(), numba.get_num_threads()
    code: int = 0
    try:
        sys.argv = ["foury-sim", *map(str, args)]
        os.chdir(cwd)
        with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings():
            warnings.resetwarnings()  # a fresh interpreter's filters: shown once per place, on stderr
            warnings.simplefilter("default")
            for cat in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
                warnings.simplefilter("ignore", cat)
            try:
                cli_module.main()
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
                if not isinstance(e.code, int | None):
                    print(e.code, file=sys.stderr)
    finally:
        sys.argv = argv
        os.chdir(here)
        numba.set_num_threads(threads)
    return subprocess.CompletedProcess(["foury-sim", *map(str, args)], code, out.getvalue(), err.getvalue())


def real_entry(*args: str, at_exit: str = "None", **kw: object) -> subprocess.CompletedProcess:
    """``foury-sim ARGS`` through the real entry point (``cli.entry``: the command line's deferrals, its exit without
    the interpreter's teardown) in a fresh interpreter, with the Python expression ``at_exit`` (a print to stderr of
    what the test reads) run by an exit handler; ``kw`` goes to ``subprocess.run`` (``env``, ``cwd``, ``timeout``)."""
    code = ("import atexit, sys\n"
            f"atexit.register(lambda: {at_exit})\n"
            "sys.argv = ['foury-sim', *sys.argv[1:]]\n"
            "from foury_sim.cli import entry\n"
            "entry()\n")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, **kw)
