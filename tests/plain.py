"""A numba kernel's plain-Python twin, for tests that run a rule both ways."""

from __future__ import annotations


def plain(f):
    """``f.py_func`` (the Python function behind a numba dispatcher), or ``f`` itself under ``NUMBA_DISABLE_JIT=1``
    (numba then returns the plain function, which has no ``py_func``)."""
    return getattr(f, "py_func", f)
