"""pandas imported when first used, not when foury-sim is: a run's summary needs none of it (its chunks are reduced
from plain arrays), and importing it is about 0.4 s of every command's start-up (session 49, docs/startup.md)."""

from __future__ import annotations

import importlib
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
