"""The trace writer every game's kernel logs through (the display side is ``trace_format``).

A trace is an int64 array, one row per event: the event's code, then a fixed number of int fields
(the game's ``TRACE_COLS - 1``). Tracing is off when the array has fewer than two rows (the parallel
run passes a single row, or none), so a logging call in a simulation costs one comparison. Where the
number of rows written is kept is the game's choice: ``count[at]`` (a state slot, or the trace's own
first row), rows filled from ``first``; a full trace drops the rows that do not fit.
"""

from __future__ import annotations

from numba import njit

from .config import CACHE


@njit(cache=CACHE, inline="always", _nrt=False)
def trace_row(tr, count, at, first, code, fields):
    """Append the row ``(code, *fields)`` to ``tr`` (``fields``: a tuple of int64) and count it in
    ``count[at]``; nothing when tracing is off or the trace is full."""
    if tr.shape[0] > 1:
        i = first + count[at]
        if i < tr.shape[0]:
            tr[i, 0] = code
            for j in range(len(fields)):
                tr[i, 1 + j] = fields[j]
            count[at] += 1
