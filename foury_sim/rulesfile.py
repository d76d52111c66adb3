"""Ruleset files: TOML with documented defaults, ``--set key=value`` overrides, precise errors.

Every game keeps its numbers in a TOML ruleset. This module is the shared boundary: it reads the
file (syntax errors become ``file:line:column``), merges a user's ``--rules`` file over the shipped
defaults (``load_ruleset_file``: one behaviour for every game), applies overrides, and finds the
line a key stands on so a game's validation can point at it. Games validate the values themselves
and turn them into the plain arrays their kernels read.
"""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

from .errors import InputError


class RuleFile:
    """A parsed ruleset: the data, the text it came from, and where each key stands.

    A merged ruleset (``load_ruleset_file``) keeps the files it was merged from in ``layers``
    (the shipped defaults first): ``where`` then names the file that set the key, the user's first.
    """

    def __init__(self, data: dict[str, Any], text: str, path: str, layers: list[RuleFile] | None = None):
        self.data = data
        self.text = text
        self.path = path
        self.layers: list[RuleFile] = list(layers or [])
        self.overridden: dict[str, str] = {}

    @property
    def shipped(self) -> RuleFile:
        """The shipped defaults this ruleset was merged over (itself for a plain file)."""
        return self.layers[0] if self.layers else self

    @property
    def users(self) -> list[RuleFile]:
        """The user's files merged over the defaults (``--rules``), in order."""
        return self.layers[1:]

    def where(self, dotted: str) -> str:
        """``file:line`` of a dotted key (or the ``--set`` that changed it)."""
        if dotted in self.overridden:
            return f"--set {dotted}={self.overridden[dotted]}"
        for src in reversed(self.layers or [self]):
            line = locate_key(src.text, dotted)
            if line:
                return f"{src.path}:{line}"
        return self.path

    def get(self, dotted: str, default: Any = None) -> Any:
        node: Any = self.data
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node


def load(path: str | Path) -> RuleFile:
    """Read a TOML ruleset; a syntax error is reported as ``file:line:column``."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"ruleset file {str(path)!r} does not exist", "--rules")
    data, text = read_toml(p)
    return RuleFile(data, text, str(p))


def merge(base: dict[str, Any], over: dict[str, Any], user: RuleFile, open_tables: tuple[str, ...] = (),
          path: str = "") -> None:
    """Deep-merge ``over`` (the data of ``user``) into ``base``. A key the defaults do not have is an
    error at its ``file:line``, except inside ``open_tables`` (top-level tables where a user's file may
    add entries: new heroes, new treasure kinds, its own assumptions)."""
    for k, v in over.items():
        dotted = f"{path}.{k}" if path else k
        if k not in base and path.split(".", 1)[0] not in open_tables:
            raise InputError(f"unknown ruleset key {dotted!r}", user.where(dotted))
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            merge(base[k], v, user, open_tables, dotted)
        else:
            base[k] = v


def load_ruleset_file(defaults: str | Path, rules_path: str | Path | None = None,
                      overrides: list[str] | dict[str, Any] | None = None,
                      open_tables: tuple[str, ...] = ()) -> RuleFile:
    """The ruleset a run plays, the same way for every game: the shipped ``defaults``, a user's
    ``--rules`` file deep-merged over them (a partial file changes only what it names; see ``merge``
    for unknown keys), then ``--set`` overrides. The result remembers where each key came from
    (``where``), and its ``shipped`` defaults and ``users`` files (for the assumptions)."""
    shipped = load(defaults)
    if rules_path is None:
        rf = RuleFile(shipped.data, shipped.text, shipped.path, [shipped])
    else:
        user = load(rules_path)
        data = copy.deepcopy(shipped.data)
        merge(data, user.data, user, open_tables)
        rf = RuleFile(data, user.text, user.path, [shipped, user])
    return apply_overrides(rf, overrides)


def read_toml(p: Path) -> tuple[dict[str, Any], str]:
    """Parse a TOML file: (data, text); a syntax error becomes ``InputError`` at ``file:line:column``."""
    text = p.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        where = f"{p}:{m.group(1)}:{m.group(2)}" if m else str(p)
        raise InputError(f"malformed TOML: {msg}", where) from None
    return data, text


def locate_key(text: str, dotted: str) -> int | None:
    """Line number (1-based) where ``dotted`` is defined in TOML ``text``, if found."""
    parts = dotted.split(".")
    table: list[str] = []
    for i, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        m = re.match(r"^\[\[?\s*([^\]]+?)\s*\]\]?$", line)
        if m:
            table = [t.strip().strip('"') for t in m.group(1).split(".")]
            if table == parts:
                return i
            continue
        m = re.match(r'^("?[\w\-]+"?(?:\s*\.\s*"?[\w\-]+"?)*)\s*=', line)
        if m:
            key = [k.strip().strip('"') for k in m.group(1).split(".")]
            if table + key == parts or (len(parts) > len(table) and table + key == parts[: len(table) + len(key)]):
                return i
    return None


def _parse_value(text: str) -> Any:
    """A ``--set`` value: any TOML value, or a bare comma list / word."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        pass
    if "," in text:
        return [_parse_value(t.strip()) for t in text.split(",")]
    return text


def find_key(data: dict[str, Any], key: str) -> list[str]:
    """All dotted paths in ``data`` whose last part is ``key`` (for short ``--set`` names)."""
    out: list[str] = []

    def walk(node: Any, prefix: list[str]) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                path = prefix + [k]
                if k == key:
                    out.append(".".join(path))
                walk(v, path)

    walk(data, [])
    return out


def apply_overrides(rf: RuleFile, overrides: list[str] | dict[str, Any] | None) -> RuleFile:
    """Return a copy of ``rf`` with ``key=value`` overrides applied.

    A key is a dotted path (``round.monster_bonus``) or, when unambiguous, its last part
    (``monster_bonus``). Only keys that exist in the ruleset may be set.
    """
    if not overrides:
        return rf
    items: list[tuple[str, Any, str]] = []
    if isinstance(overrides, dict):
        items = [(k, v, repr(v)) for k, v in overrides.items()]
    else:
        for o in overrides:
            if "=" not in o:
                raise InputError(f"--set {o!r} is not KEY=VALUE", "--set")
            k, v = o.split("=", 1)
            items.append((k.strip(), _parse_value(v.strip()), v.strip()))
    out = RuleFile(copy.deepcopy(rf.data), rf.text, rf.path, rf.layers)
    out.overridden = dict(rf.overridden)
    for key, value, shown in items:
        path = key
        if "." not in key or rf.get(key) is None:
            hits = find_key(out.data, key.split(".")[-1]) if "." not in key else []
            if len(hits) == 1:
                path = hits[0]
            elif len(hits) > 1:
                raise InputError(f"ruleset key {key!r} is ambiguous: {', '.join(hits)}", f"--set {key}")
            elif out.get(key) is None:
                raise InputError(f"unknown ruleset key {key!r}", f"--set {key}")
        node = out.data
        parts = path.split(".")
        for part in parts[:-1]:
            node = node[part]
        old = node[parts[-1]]
        if isinstance(old, list) and not isinstance(value, list):
            value = [value]
        node[parts[-1]] = value
        out.overridden[path] = shown
    return out
