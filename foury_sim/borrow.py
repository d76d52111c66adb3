"""Borrowed array views for a kernel's per-chunk arrays, shared by the games whose kernels pass them on.

Numba increfs and decrefs every array argument of every call with atomic operations; in a game whose rules are
cheap per call that costs more than the rules themselves (in one shipped game about 55 % of the time, measured
with perf). A kernel passes ``borrow(a)`` views instead and keeps the owners alive until its chunk is done
(``keep_alive``). Under ``NUMBA_DISABLE_JIT`` a view is the array itself.
"""

from __future__ import annotations

from numba import njit
from numba.core import cgutils
from numba.extending import intrinsic

from .config import CACHE, JIT_DISABLED

if JIT_DISABLED:

    def borrow(a):
        return a

else:

    @intrinsic
    def borrow(typingctx, arr):
        """A view of ``arr`` without its reference count (meminfo NULL): the caller keeps ``arr`` alive."""

        def codegen(context, builder, sig, args):
            src = context.make_array(sig.args[0])(context, builder, value=args[0])
            dst = context.make_array(sig.return_type)(context, builder)
            dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
            dst.parent = cgutils.get_null_value(dst.parent.type)
            dst.nitems = src.nitems
            dst.itemsize = src.itemsize
            dst.data = src.data
            dst.shape = src.shape
            dst.strides = src.strides
            return dst._getvalue()

        return arr(arr), codegen


@njit(cache=CACHE, _nrt=False)
def keep_alive(a, b, c, d, e, f, g, h):
    """Nothing: the arrays passed here (owners of borrowed views) live until this call."""
    return a.shape[0] + b.shape[0] + c.shape[0] + d.shape[0] + e.shape[0] + f.shape[0] + g.shape[0] + h.shape[0]
