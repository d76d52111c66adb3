"""typer's coercion of a command's options, without pydantic for the values that need none.

typer 0.29 coerces every option's value through a pydantic ``TypeAdapter`` built for the option when the command
runs (``typer.core._TyperParameter.get_runtime_param``), an option left unset included: importing pydantic and
building the adapters of ``foury-sim run``'s 17 options was about 0.07 s of every command's start-up (session 59,
docs/startup.md). Most values need nothing: an option left unset (None), a default already of its type, a ``str``
option's word, an ``int`` option's plain digits. Here those are given as pydantic would give them, and any other
value (a sign, a decimal point, a file, a list, a word that is no number) goes to typer's own coercion, built when
first needed, so its answers and its error messages are typer's (``tests/test_plain_options.py`` compares both on
every option of every command). ``FOURY_SIM_TYPER_COERCION=1`` keeps typer's for every value (to measure the trade);
a typer whose sources differ from the ones this was checked against is left as it is."""

from __future__ import annotations

import hashlib
import inspect
import os
import re
from typing import Any

#: ``FOURY_SIM_TYPER_COERCION=1`` keeps typer's own coercion (pydantic's) for every value.
PLAIN: bool = os.environ.get("FOURY_SIM_TYPER_COERCION", "") in ("", "0")

#: sha1 of the source of each typer function this relies on, as typer 0.29.2 ships it (another source: left as is).
_TYPER_SOURCES = {
    "_TyperParameter.get_runtime_param": "969fa943719d4ef4",
    "_TyperParameter.process_value": "d84505e121209a18",
    "RuntimeParam.coerce": "c4dc283fc8c3a7ec",
}

#: An ``int`` option's value given as pydantic gives it: up to 18 digits (an int64), no sign, no leading zero.
_DIGITS = re.compile(r"0|[1-9][0-9]{0,17}")

_INSTALLED: list[str] = []


class PlainRuntimeParam:
    """An option's coercion: the values that need none here, the others by typer's own (``typer_param``)."""

    __slots__ = ("param", "_typers")

    def __init__(self, param: Any) -> None:
        self.param = param
        self._typers: Any = None

    def typer_param(self) -> Any:
        """typer's own coercion of this option (pydantic's adapter), built once."""
        if self._typers is None:
            from typer._coercion import build_runtime_param

            self._typers = build_runtime_param(self.param.type_descriptor)
        return self._typers

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        multi = param.multiple or param.nargs == -1
        if value is None:
            return () if multi else None
        if not multi and self.plain(value):
            return int(value) if isinstance(value, str) and self.annotation is int else value
        return self.typer_param().coerce(value, param=param, ctx=ctx)

    @property
    def annotation(self) -> Any:
        return self.param.type_descriptor.annotation

    def plain(self, value: Any) -> bool:
        """Whether pydantic would give ``value`` back as it is (an ``int`` option's digits: as their int)."""
        desc = self.param.type_descriptor
        info = desc.parameter_info
        if (info.parser is not None or info.min is not None or info.max is not None or desc.file_annotation
                is not None or desc.is_path or desc.is_choice or desc.is_list or desc.is_tuple):
            return False
        ann = desc.annotation
        if ann is str:
            return type(value) is str
        if ann is int:
            return type(value) is int or (type(value) is str and _DIGITS.fullmatch(value) is not None)
        if ann is float:
            return type(value) is float
        return False


def _digest(fn: Any) -> str:
    return hashlib.sha1(inspect.getsource(fn).encode()).hexdigest()[:16]


def install() -> list[str]:
    """Give every typer option a ``PlainRuntimeParam``; returns ``["plain_options"]`` when installed (empty under
    ``FOURY_SIM_TYPER_COERCION=1``, or for a typer without these functions or whose sources differ)."""
    if _INSTALLED or not PLAIN:
        return _INSTALLED
    try:
        from typer import _coercion, core

        typers = {"_TyperParameter.get_runtime_param": core._TyperParameter.get_runtime_param,
                  "_TyperParameter.process_value": core._TyperParameter.process_value,
                  "RuntimeParam.coerce": _coercion.RuntimeParam.coerce}
        if any(_digest(fn) != _TYPER_SOURCES[name] for name, fn in typers.items()):
            return _INSTALLED
    except (ImportError, AttributeError, OSError, TypeError):
        return _INSTALLED

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            self._runtime_param = PlainRuntimeParam(self)
        return self._runtime_param

    core._TyperParameter.get_runtime_param = get_runtime_param
    _INSTALLED.append("plain_options")
    return _INSTALLED
