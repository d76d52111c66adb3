"""pandas imported when first used, not when foury-sim is: a run's summary needs none of it (its chunks are reduced
from plain arrays), and importing it is about 0.4 s of every command's start-up (session 49, docs/startup.md). And
modules that a command's libraries import but a command never uses, run when first used (``defer_unused``)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any


class LazyModule:
    """A module imported at its first attribute read (``pd.DataFrame``); the same module after that."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<module {self._name!r}, {state}>"


pd: Any = LazyModule("pandas")


#: Modules a command's libraries import, or read from numpy, but a command does not use:
#:
#: - numpy's submodules that scipy's array-API layer (``scipy._lib.array_api_compat.numpy``, imported by the
#:   summary's ``scipy.special``) reads only to copy numpy's namespace: ``numpy.f2py`` (with
#:   ``charset_normalizer``), ``numpy.testing`` and ``numpy.ma``, about 0.1 s (session 57, docs/startup.md);
#:   numba's ``typeof`` of an array reads ``np.ma.MaskedArray``, so ``numpy.ma`` runs at the first kernel call;
#: - ``yaml``, which ``numba.core.config`` imports in case a ``.numba_config.yaml`` is there (it is then read), and
#:   ``importlib.metadata`` (with ``email``), which numba's extension entry points and pydantic's plugins import and
#:   read only when they look for extensions (numba: at its first compile; pydantic: never under typer), about
#:   0.03 s (session 59);
#: - ``scipy.special``, whose import wraps and documents hundreds of functions for scipy's array API (about 0.05 s
#:   and more: it imports scipy's array-API layer); a run's summary needs only four of its compiled functions,
#:   which ``stats._sc`` imports from ``scipy.special._ufuncs`` by name (session 59);
#: - ``asyncio`` (with ``ssl``, about 0.01 s), whose ``coroutines`` submodule ``typing_extensions.deprecated`` reads
#:   when pydantic's schema module decorates its functions: the submodule loads, the package does not run
#:   (session 59).
DEFERRED = ("numpy.f2py", "numpy.testing", "numpy.ma", "yaml", "importlib.metadata", "scipy.special", "asyncio")

#: numba's modules a command's libraries import but a command that only loads its engine does not use, deferred
#: once numba is imported (``defer_unused_numba``, called by ``quick_passes.install``) in a command whose entry
#: point deferred ``DEFERRED``: ``numba.np.arrayobj`` (with numba's string and hashing modules, about 0.02 s),
#: which the engines' cached environments name (their globals are its namespace, filled when it runs) and which
#: numba's compiler imports for what running it registers, so it runs at numba's first compile (``run_deferred``,
#: called by ``quick_passes.install``'s hook before any pass), or at the first read of a name of it (session 59).
DEFERRED_NUMBA = ("numba.np.arrayobj",)

_WANTED = False  # (the command line's entry point deferred ``DEFERRED``)
_DEFERRED_NUMBA: list[ModuleType] = []


class _Deferred(ModuleType):
    """A module whose code runs at the first read of a name it does not have yet. Unlike
    ``importlib.util.LazyLoader``'s modules, its ``__spec__`` is read without running it, so an ``import`` statement
    for it (which reads ``__spec__``) does not run it either."""

    def __getattr__(self, attr: str) -> Any:
        _run(self)
        return getattr(self, attr)


_RUNNING = threading.RLock()  # (a second thread reading a deferred module waits until its code has run)


def _run(module: ModuleType) -> None:
    """Run a deferred module's code (into its own namespace), once."""
    with _RUNNING:
        if type(module) is _Deferred:
            module.__class__ = ModuleType
            module.__spec__.loader.exec_module(module)


def _defer(names: tuple[str, ...]) -> list[ModuleType]:
    """Make each of ``names`` not yet imported a ``_Deferred`` module, set on its parent as the import system
    would (``find_spec`` imports the parent)."""
    deferred = []
    for name in names:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            continue
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _Deferred
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)  # (else numpy's __getattr__ would import it again)
        deferred.append(module)
    return deferred


def defer_unused() -> list[str]:
    """Make each of ``DEFERRED`` not yet imported a module that runs at its first read of a name (``_Deferred``),
    and ``DEFERRED_NUMBA`` too once numba is imported (``defer_unused_numba``); returns the names deferred now.
    Importing it again or copying the reference (scipy's namespace copy) runs nothing; ``np.testing.assert_equal``
    runs the module then, whole. Called by the command line's entry point only: a notebook's process is left as
    it is."""
    global _WANTED
    _WANTED = True
    return [m.__name__ for m in _defer(DEFERRED)]


def defer_unused_numba() -> list[str]:
    """``DEFERRED_NUMBA`` deferred, in a process whose entry point called ``defer_unused`` (numba imported)."""
    if not _WANTED:
        return []
    deferred = _defer(DEFERRED_NUMBA)
    _DEFERRED_NUMBA.extend(deferred)
    return [m.__name__ for m in deferred]


def run_deferred() -> None:
    """Run the numba modules ``defer_unused_numba`` deferred that have not run yet (before a compile: numba's
    compiler imports ``numba.np.arrayobj`` only for what running it registers)."""
    for module in _DEFERRED_NUMBA:
        _run(module)
