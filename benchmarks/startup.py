"""Start-up time of a CLI command: cold (empty kernel cache, so it compiles) and cached."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def startup_times(args: list[str], repeats: int = 5) -> tuple[float, list[float]]:
    """Wall seconds of ``foury-sim *args`` with a fresh kernel cache, then ``repeats`` times with it filled."""
    tmp = tempfile.mkdtemp(prefix="foury-sim-cache-")
    env = dict(os.environ, FOURY_SIM_CACHE_DIR=tmp)

    def once() -> float:
        t = time.perf_counter()
        subprocess.run(["foury-sim", *args], env=env, cwd=ROOT, check=True, capture_output=True)
        return time.perf_counter() - t

    try:
        cold = once()
        return cold, [once() for _ in range(repeats)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
