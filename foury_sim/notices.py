"""A notice on stderr whenever Python starts a compile (issue 17: never compile in silence).

The engines' entry points announce their own compiles (``config.CompiledOnFirstUse``). Everything else Python
calls that numba compiles on first use (a user's policy file, a study's helper, a test's function) is announced
here: a listener of numba's ``numba:compile`` event, which numba fires only when it compiles (not when it loads
from the on-disk cache), says once per function, at the outermost compile of its thread, what is being compiled.
Importing this module installs it; the policy interface (``foury_sim.policy``, which every engine and the registry
import) imports it first, so whatever a program imports of foury-sim, every compile it starts is said.
"""

from __future__ import annotations

import threading
import time

from . import config

_STATE = threading.local()  # how deep this thread is in numba's compiles
#: Seconds of the compiles said here (the outermost of a thread, not an engine's entry point, which counts its own
#: in ``config.FIRST_USE``): a user's policy, a game's helper called from Python (``foury-sim warm``'s "more").
COMPILE_S = [0.0]
_SAID: set[str] = set()  # the lines announced in this process
_INSTALLED: list[bool] = []


def notice(fn, cached: bool = True) -> str:
    """The line said when ``fn`` (a Python function numba compiles) starts compiling; ``cached``: whether its
    dispatcher keeps it in numba's cache (a user's policy file is compiled in every run: not cached)."""
    module = getattr(fn, "__module__", "") or ""
    name = getattr(fn, "__qualname__", repr(fn))
    parts = module.split(".")
    if module == "foury_sim.userpolicy":  # (compiled with a user's policy, whose own compile is said too)
        what = "foury-sim's guard around a user policy"
    elif module.startswith("foury_sim.games.") and len(parts) >= 4:
        what = f"the {parts[2]} engine's {parts[3]} code ({name})"
    elif module.startswith("foury_sim."):
        what = f"foury-sim's {parts[1]} code ({name})"
    else:  # a user's policy file, a notebook's function: its name and its file
        code = getattr(fn, "__code__", None)
        what = f"{getattr(fn, '__name__', name)} ({code.co_filename if code else module or 'your code'})"
    if not config.CACHE:
        return f"foury-sim: compiling {what} (FOURY_SIM_NO_CACHE is set: every run compiles it)..."
    if module == "foury_sim.userpolicy":  # (its type names the user's function: no cached copy ever fits)
        return f"foury-sim: compiling {what} (for each user policy, in every run: about a second)..."
    if not cached:
        return (f"foury-sim: compiling {what} (in every run: it is not kept in the cache; seconds on a 2-core "
                "machine)...")
    return (f"foury-sim: compiling {what} (first use after an install or code change: seconds to a minute on a "
            "2-core machine; later runs load it from the cache)...")


def _entry_function(fn) -> bool:
    """Whether ``fn`` is an engine's entry point (``config.CompiledOnFirstUse`` announces those itself)."""
    return any(e.fn is fn for e in config.ENTRY_POINTS)


def install() -> bool:
    """Listen to numba's compiles (once per process; False under ``NUMBA_DISABLE_JIT``, where nothing compiles)."""
    if _INSTALLED:
        return True
    if config.JIT_DISABLED:
        return False
    from numba.core import event

    class Notice(event.Listener):
        def on_start(self, ev) -> None:
            depth = getattr(_STATE, "depth", 0)
            _STATE.depth = depth + 1
            if depth:
                return
            _STATE.t0 = None
            disp = (ev.data or {}).get("dispatcher")
            fn = getattr(disp, "py_func", None)
            if fn is None or _entry_function(fn):
                return
            _STATE.t0 = time.perf_counter()
            from numba.core.caching import NullCache

            text = notice(fn, not isinstance(getattr(disp, "_cache", None), NullCache))
            if text not in _SAID:  # (once a function; the guard's two functions share one line)
                _SAID.add(text)
                config.announce(text)

        def on_end(self, ev) -> None:
            _STATE.depth = max(getattr(_STATE, "depth", 1) - 1, 0)
            t0 = getattr(_STATE, "t0", None)
            if _STATE.depth == 0 and t0 is not None:
                COMPILE_S[0] += time.perf_counter() - t0
                _STATE.t0 = None

    event.register("numba:compile", Notice())
    _INSTALLED.append(True)
    return True


install()  # (at import: ``registry`` imports this module before the policy module, whose import may compile)
