"""Numba settings in one place (read by every kernel module)."""

from __future__ import annotations

import os

#: Cache compiled kernels on disk so a second process starts fast.
CACHE: bool = os.environ.get("FOURY_SIM_NO_CACHE", "") == ""
#: Kernels never use fastmath: results must not depend on the compiler's reassociation.
FASTMATH: bool = False
#: True when numba is switched off (``NUMBA_DISABLE_JIT=1``): the slow, debuggable baseline.
JIT_DISABLED: bool = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
#: Games handed to one ``prange`` iteration; scratch state is allocated once per chunk.
CHUNK: int = 256
