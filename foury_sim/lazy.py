"""pandas imported when first used, not when foury-sim is: a run's summary needs none of it (its chunks are reduced
from plain arrays), and importing it is about 0.4 s of every command's start-up (session 49, docs/startup.md). And
numpy's submodules that a command never uses loaded when first used (``defer_numpy_extras``)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
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


#: numpy's submodules that scipy's array-API layer (``scipy._lib.array_api_compat.numpy``) imports only to copy
#: numpy's namespace, reading every name of it: scipy.linalg imports that layer, and numba imports scipy.linalg to
#: see whether BLAS is there when its CPU target is first set up. ``numpy.f2py`` (with ``charset_normalizer``),
#: ``numpy.testing`` and ``numpy.ma`` were about 0.1 s of every command's start-up (session 57, docs/startup.md).
NUMPY_EXTRAS = ("numpy.f2py", "numpy.testing", "numpy.ma")


def defer_numpy_extras() -> list[str]:
    """Make each of ``NUMPY_EXTRAS`` not yet imported a module that loads at its first attribute read
    (``importlib.util.LazyLoader``), set on numpy as numpy's own lazy import would; returns the ones deferred.
    Copying the reference (scipy's namespace copy) loads nothing; ``np.testing.assert_equal`` loads the module
    then, whole. Called by the command line's entry point only: a notebook's process is left as it is."""
    import numpy

    deferred = []
    for name in NUMPY_EXTRAS:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            continue
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)  # (LazyLoader: nothing runs until the first attribute read)
        setattr(numpy, name.rpartition(".")[2], module)  # (else numpy's __getattr__ would import it again)
        deferred.append(name)
    return deferred
