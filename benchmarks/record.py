"""How a benchmark's result file was made, written beside its figures (``made_by``), and the file's atomic write.

Every ``benchmarks/results/*.json`` a benchmark writes carries ``made_by``: the command as typed (to run it again),
the commit (``-dirty`` with uncommitted changes to tracked files), foury-sim's version, Python, numba and numpy, the
CPU, the cores, the UTC time, the load average when it was written, and where each game's engine in this checkout's
cache came from (``engines``: the shipped machine code, or compiled here, which a user's first run does not load:
docs/speed.md, session 53).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _commit() -> str | None:
    def git(*args: str) -> str:
        r = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD")
    if not head:
        return None
    return head + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def made_by(argv: list[str] | None = None) -> dict[str, Any]:
    """The command (``python benchmarks/NAME.py ARGS``), commit, versions, machine and time of this process."""
    import numba
    import numpy

    from foury_sim import __version__

    argv = sys.argv if argv is None else argv
    script = Path(argv[0]).resolve()
    shown = script.relative_to(ROOT).as_posix() if script.is_relative_to(ROOT) else argv[0]
    return {"command": shlex.join(["python", shown, *argv[1:]]), "commit": _commit(), "foury_sim": __version__,
            "python": platform.python_version(), "numba": numba.__version__, "numpy": numpy.__version__,
            "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "load_average_1min": round(os.getloadavg()[0], 2), "engines": engines()}


def engines() -> dict[str, str]:
    """For each game with an engine in the cache folder of its current sources here: "shipped machine code" when the
    shipped bundles were seeded into it and their machine code applies on this machine, else "compiled here" and why.
    A folder without a cache index (``.nbi``) holds no engine: numba makes a module's folder when it is imported."""
    from foury_sim import config, shipped_ir
    from foury_sim.registry import games

    out = {}
    for game in games():
        package = f"games/{game}"
        folder = config._cache_dir(package)
        if not any(f.endswith(".nbi") for _, _, files in os.walk(folder) for f in files):
            continue
        why = shipped_ir.code_applies(package)
        if not why and not shipped_ir.seeded(package):
            why = "the cache held it before the shipped code was seeded"
        out[game] = f"compiled here ({why})" if why else "shipped machine code"
    return out


def write_result(path: str | Path, res: dict[str, Any], indent: int = 2) -> None:
    """``res`` with ``made_by`` as JSON at ``path`` (its folder made if needed), atomically."""
    from foury_sim.files import atomic_write

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps({**res, "made_by": made_by()}, indent=indent) + "\n")
