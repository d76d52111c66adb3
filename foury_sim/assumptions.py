"""Assumptions: values the toolkit fills in because no rulebook prints them, marked in the data.

A ruleset declares them in an ``[assumptions]`` table keyed by the dotted ruleset key::

    [assumptions]
    "enemies.spawn_table" = { alternatives = [[...], [...]], reason = "the rulebook prints no spawn table" }
    "game.max_turns" = { range = [200, 1000], vary = false, reason = "safety cap" }

Each entry has a ``reason`` and a ``range = [lo, hi]`` (numbers) or ``alternatives`` (other plausible
values, the default excluded), or neither when no alternative is known. ``vary = false`` keeps it
out of a robustness study by default (safety caps, values that change no outcome). A map declares
its own in header lines (``assume-arrows: 8 | alternatives = 12 (base_12arrows) | reason = ...``).

This module is shared by every game: it validates the table (a key that is not in the ruleset is an
error at ``file:line``), records each assumption's value in use and whether ``--set``/``--rules``
changed it, and formats the list for summaries, manifests and reports.
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .errors import InputError
from .rulesfile import Ranges, RuleFile, locate_key, range_of

ENTRY_FIELDS = {"range", "alternatives", "reason", "vary", "when"}
#: ``when = "KEY OP VALUE"``: the comparisons an assumption's condition may use.
WHEN_OPS = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
            "!=": lambda a, b: a != b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}
_WHEN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(>=|<=|==|!=|>|<)\s*(\S.*?)\s*$")


@dataclass
class Assumption:
    """One guessed input: where it lives, its value in use, and what else it could plausibly be."""

    key: str
    value: Any
    reason: str
    default: Any = None
    range: list[float] | None = None
    alternatives: list[Any] = field(default_factory=list)
    vary: bool = True
    where: str = ""
    overridden: bool = False
    when: str = ""

    def applies(self, data: dict[str, Any]) -> bool:
        """Whether the value is in play under the effective ruleset ``data``: always, unless ``when`` (a
        condition ``KEY OP VALUE``, e.g. ``two_player.players >= 2``) is false there (the mode it belongs to
        is off, so no number rests on it)."""
        return not self.when or _when_holds(self.when, data)

    def levels(self) -> list[Any]:
        """The default then its alternatives (what a study picks from when there is no range)."""
        return [self.default, *self.alternatives]

    def variable(self) -> bool:
        return self.range is not None or bool(self.alternatives)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _get(data: dict[str, Any], dotted: str) -> tuple[bool, Any]:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _parse_when(text: Any, key: str, data: dict[str, Any], where: str) -> tuple[str, str, Any]:
    """``when = "KEY OP VALUE"`` of assumption ``key``, checked: KEY a ruleset key, OP a comparison, VALUE a TOML
    literal of a comparable type."""
    m = _WHEN.match(text) if isinstance(text, str) else None
    if m is None:
        raise InputError(f"assumption {key!r}: when must read 'KEY OP VALUE' with OP one of "
                         f"{' '.join(WHEN_OPS)} (e.g. 'two_player.players >= 2'), not {text!r}", where)
    ckey, op, raw = m.groups()
    found, value = _get(data, ckey)
    if not found:
        raise InputError(f"assumption {key!r}: when names {ckey!r}, which is not a key of this ruleset", where)
    try:
        want = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        raise InputError(f"assumption {key!r}: when compares with {raw!r}, which is not a TOML value "
                         "(strings need quotes)", where) from None
    numbers = (int, float)
    same_kind = (isinstance(value, numbers) and isinstance(want, numbers)
                 and not isinstance(value, bool) and not isinstance(want, bool)) or type(value) is type(want)
    if not same_kind or (op not in ("==", "!=") and not isinstance(want, numbers)):
        raise InputError(f"assumption {key!r}: when compares {ckey} ({value!r}) with {want!r} by {op}, which "
                         "cannot be compared", where)
    return ckey, op, want


def _when_holds(text: str, data: dict[str, Any]) -> bool:
    m = _WHEN.match(text)
    ckey, op, raw = m.groups()
    return bool(WHEN_OPS[op](_get(data, ckey)[1], tomllib.loads(f"v = {raw}")["v"]))


def _entry_where(rf: RuleFile, key: str) -> str:
    """``file:line`` of ``"key" = {...}`` inside ``[assumptions]``, or of its own table ``[assumptions."key"]``
    (read from an index of the text built once, ``_entry_lines``; a key with a quote in it is looked for by a scan
    of the lines, ``_entry_where_by_scan``)."""
    if '"' not in key:
        i = _entry_lines(rf.text).get(key)
        if i is not None:
            return f"{rf.path}:{i}"
        line_no = locate_key(rf.text, "assumptions")
        return f"{rf.path}:{line_no}" if line_no else rf.path
    return _entry_where_by_scan(rf, key)


_ENTRY_TABLE = re.compile(r'^\[\s*assumptions\s*\.\s*"([^"]*)"\s*\]$')
_ENTRY_KEY = re.compile(r'^"([^"]*)"\s*=')


@functools.lru_cache(maxsize=16)
def _entry_lines(text: str) -> dict[str, int]:
    """The first line of each assumption entry of ``text`` without a quote in its key: ``"key" = ...`` inside
    ``[assumptions]`` or its own table ``[assumptions."key"]``, whichever comes first."""
    out: dict[str, int] = {}
    in_table = False
    for i, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        m = _ENTRY_TABLE.match(line)
        if m:
            out.setdefault(m.group(1), i)
        if line.startswith("["):
            in_table = line.strip("[] ") == "assumptions"
            continue
        m = _ENTRY_KEY.match(line) if in_table else None
        if m:
            out.setdefault(m.group(1), i)
    return out


def _entry_where_by_scan(rf: RuleFile, key: str) -> str:
    """``_entry_where`` as a scan of every line (the reference the index is tested against)."""
    in_table = False
    for i, raw in enumerate(rf.text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if re.match(rf'^\[\s*assumptions\s*\.\s*"{re.escape(key)}"\s*\]$', line):
            return f"{rf.path}:{i}"
        if line.startswith("["):
            in_table = line.strip("[] ") == "assumptions"
            continue
        if in_table and re.match(rf'^"{re.escape(key)}"\s*=', line):
            return f"{rf.path}:{i}"
    line_no = locate_key(rf.text, "assumptions")
    return f"{rf.path}:{line_no}" if line_no else rf.path


def parse_table(table: Any, where_of: Any, data: dict[str, Any], defaults: dict[str, Any]) -> list[Assumption]:
    """Validate an ``[assumptions]`` table against the ruleset ``data`` it describes.

    ``where_of(key)`` gives the ``file:line`` of an entry; ``defaults`` is the shipped ruleset (the
    value an assumption has when nobody changed it).
    """
    if table is None:
        return []
    if not isinstance(table, dict):
        raise InputError("[assumptions] must be a table of 'key = { reason = ..., range/alternatives = ... }'",
                         where_of("assumptions"))
    out: list[Assumption] = []
    for key, entry in table.items():
        where = where_of(key)
        if key == "assumptions" or key.startswith("assumptions."):
            raise InputError("an assumption cannot name the [assumptions] table itself", where)
        found, value = _get(data, key)
        if not found:
            raise InputError(f"assumption names {key!r}, which is not a key of this ruleset", where)
        if not isinstance(entry, dict):
            raise InputError(f"assumption {key!r} must be a table {{ reason = ..., range/alternatives = ... }}",
                             where)
        unknown = set(entry) - ENTRY_FIELDS
        if unknown:
            raise InputError(f"assumption {key!r} has unknown field {sorted(unknown)[0]!r} "
                             f"(known: {', '.join(sorted(ENTRY_FIELDS))})", where)
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise InputError(f"assumption {key!r} needs a reason (why this value was chosen)", where)
        has_default, default = _get(defaults, key)
        default = default if has_default else value
        rng = entry.get("range")
        alts = entry.get("alternatives", [])
        if rng is not None and alts:
            raise InputError(f"assumption {key!r}: give a range or alternatives, not both", where)
        if rng is not None:
            ok = (isinstance(rng, list) and len(rng) == 2
                  and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in rng) and rng[0] <= rng[1])
            if not ok:
                raise InputError(f"assumption {key!r}: range must be [low, high] numbers, not {rng!r}", where)
            if isinstance(default, bool) or not isinstance(default, (int, float)):
                raise InputError(f"assumption {key!r}: a range needs a number value, the ruleset has {default!r}",
                                 where)
            if not rng[0] <= default <= rng[1]:
                raise InputError(f"assumption {key!r}: the value {default!r} is outside its range {rng!r}", where)
        if not isinstance(alts, list):
            raise InputError(f"assumption {key!r}: alternatives must be a list of values", where)
        for a in alts:
            if _same(a, default):
                raise InputError(f"assumption {key!r}: the alternative {a!r} is the value itself", where)
        vary = entry.get("vary", True)
        if not isinstance(vary, bool):
            raise InputError(f"assumption {key!r}: vary must be true or false", where)
        when = entry.get("when", "")
        if when != "":
            _parse_when(when, key, data, where)
        out.append(Assumption(key, value, reason.strip(), default, rng, list(alts), vary, where,
                              not _same(value, default), when.strip()))
    return out


def from_ruleset(rf: RuleFile, shipped: RuleFile, extra_tables: list[RuleFile] | None = None) -> list[Assumption]:
    """The assumptions of the effective ruleset ``rf`` (after ``--rules`` and ``--set``).

    Declarations come from the shipped file and from any user file in ``extra_tables`` (later ones
    add or replace entries); each key must exist in ``rf.data``. ``overridden`` marks a value that
    differs from the shipped one.
    """
    out: dict[str, Assumption] = {}
    for src in [shipped, *(extra_tables or [])]:
        table = src.data.get("assumptions")
        for a in parse_table(table, lambda k, s=src: _entry_where(s, k), rf.data, shipped.data):
            out[a.key] = a
    for a in out.values():
        if a.key in rf.overridden:
            a.where = f"--set {a.key}={rf.overridden[a.key]}"
    # a --set on a part of an assumed table (heroes.kael.start.shovel) overrides it too
    for a in out.values():
        if any(k.startswith(a.key + ".") for k in rf.overridden):
            a.overridden = True
    return [a for a in out.values() if a.applies(rf.data)]


def check_plausible_within_valid(found: list[Assumption], ranges: Ranges) -> list[Assumption]:
    """Refuse an assumption whose plausible ``range`` reaches outside the key's valid range (what the engine
    accepts, the game's ``RANGES``): a robustness study must never pick a value the engine refuses."""
    for a in found:
        if a.range is None:
            continue
        try:
            lo, hi = range_of(ranges, a.key)
        except KeyError:
            continue  # not a whole-number key: parse_table already requires a number value
        if a.range[0] < lo or a.range[1] > hi:
            raise InputError(f"assumption {a.key!r}: the plausible range {a.range!r} reaches outside the valid "
                             f"range {lo}..{hi}", a.where)
    return found


# ----------------------------------------------------------------------------------- maps --
_MAP_HEADER = re.compile(r"^assume-([A-Za-z][A-Za-z0-9_]*)\s*:\s*(.*)$")


def from_map(meta_text: str, path: str, measured: dict[str, Any], prefix: str = "map") -> list[Assumption]:
    """Assumptions declared in a map file's header lines ``assume-KEY: VALUE | field = ... | reason = ...``.

    ``measured`` holds what the parsed map really has (``layout``: its name, ``arrows``: arrow count,
    icon counts, ...): an unknown KEY, or a VALUE that differs from the map, is an error at the line.
    """
    out = []
    for i, raw in enumerate(meta_text.splitlines(), 1):
        if raw.lstrip().startswith("+") or raw.lstrip().startswith("|"):
            break
        m = _MAP_HEADER.match(raw.strip())
        if not m:
            continue
        where = f"{path}:{i}"
        key, rest = m.group(1), m.group(2)
        parts = [p.strip() for p in rest.split("|")]
        value_txt, fields = parts[0], {}
        for p in parts[1:]:
            if "=" not in p:
                raise InputError(f"map assumption {key!r}: expected 'field = value', found {p!r}", where)
            f, v = (s.strip() for s in p.split("=", 1))
            if f not in ("range", "alternatives", "reason"):
                raise InputError(f"map assumption {key!r}: unknown field {f!r} (range, alternatives, reason)", where)
            fields[f] = v
        if key not in measured:
            raise InputError(f"map assumption names {key!r}, which the map does not have "
                             f"(known: {', '.join(sorted(measured))})", where)
        if str(measured[key]) != value_txt:
            raise InputError(f"map assumption {key!r} says {value_txt!r} but the map has {measured[key]!r}", where)
        if not fields.get("reason"):
            raise InputError(f"map assumption {key!r} needs a reason", where)
        rng = None
        if "range" in fields:
            lo, _, hi = fields["range"].partition("..")
            try:
                rng = [int(lo), int(hi)]
            except ValueError:
                raise InputError(f"map assumption {key!r}: range must be LOW..HIGH, not {fields['range']!r}",
                                 where) from None
            if rng[0] > rng[1]:  # (as a ruleset's [assumptions]: an empty range was kept)
                raise InputError(f"map assumption {key!r}: range must be LOW..HIGH with LOW <= HIGH, not "
                                 f"{fields['range']!r}", where)
            value = measured[key]
            if isinstance(value, (int, float)) and not isinstance(value, bool) and not rng[0] <= value <= rng[1]:
                raise InputError(f"map assumption {key!r}: the map's {value!r} is outside its range "
                                 f"{fields['range']!r}", where)
        alts = [a.strip() for a in fields.get("alternatives", "").split(",") if a.strip()]
        out.append(Assumption(f"{prefix}.{key}", measured[key], fields["reason"], measured[key], rng, alts,
                              False, where, False))
    return out


def map_text(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return ""


# ----------------------------------------------------------------------------- reporting --
def show(v: Any, width: int = 60) -> str:
    """A compact one-line form of a value (tables as ``k=v`` lists)."""
    if isinstance(v, dict):
        s = " ".join(f"{k}={show(x)}" for k, x in v.items())
    elif isinstance(v, list):
        s = ",".join(show(x) for x in v)
    elif isinstance(v, bool):
        s = str(v).lower()
    else:
        s = str(v)
    return s if len(s) <= width else s[: width - 3] + "..."


def of(ruleset: Any) -> list[Assumption]:
    """The assumptions a game's ruleset object carries (empty if the game declares none)."""
    return list(getattr(ruleset, "assumptions", None) or [])


def heroes_in_play(ruleset: Any, hero: str) -> set[str]:
    """The heroes a run of ``hero`` plays with: ``hero``, and in a game of more players the opponent's (a
    ruleset whose game seats one says so: ``players`` above 1 and ``opponent(hero)``, the other seat's hero)."""
    out = {hero}
    opponent = getattr(ruleset, "opponent", None)
    if callable(opponent) and int(getattr(ruleset, "players", 1) or 1) > 1:
        out.add(str(opponent(hero)))
    return out


def records(ruleset: Any, hero: str | None = None) -> list[dict[str, Any]]:
    """For summaries and manifests: key, value in use, default, overridden, and the plausible values.

    With ``hero``, the sheet of a hero nobody plays (``heroes.<other>.*``) is left out: the run does not rest on it
    (an opponent's sheet is kept: :func:`heroes_in_play`).
    """
    out = []
    playing = heroes_in_play(ruleset, hero) if hero is not None else set()
    for a in of(ruleset):
        parts = a.key.split(".")
        if hero is not None and parts[0] == "heroes" and len(parts) > 1 and parts[1] not in playing:
            continue
        r: dict[str, Any] = {"key": a.key, "value": a.value, "overridden": a.overridden}
        if a.overridden:
            r["default"] = a.default
        if a.range is not None:
            r["range"] = a.range
        if a.alternatives:
            r["alternatives"] = a.alternatives
        r["reason"] = a.reason
        out.append(r)
    return out


def across_cells(rulesets: list[Any], heroes: list[str] | None = None) -> list[dict[str, Any]]:
    """For a sweep manifest (and a comparison, cells 0 = A and 1 = B): every assumption any cell rests on (a
    campaign's or a map's own ones hold in its cells only), with its value, or ``"varies by cell"`` and
    ``values`` (each value with the cells that have it); ``in_cells`` when it holds in some cells only;
    ``overridden_in_cells`` and ``default`` when a cell changed it. ``heroes``: the hero each cell plays, whose sheet
    alone (with an opponent's) it rests on, as :func:`records` keeps for a run (None: every hero's sheet)."""
    per_cell = [{r["key"]: r for r in records(rs, heroes[i] if heroes is not None else None)}
                for i, rs in enumerate(rulesets)]
    keys: list[str] = []
    for recs in per_cell:  # the union: a cell's new key after the key it follows there and the earlier cells' own ones
        at = -1
        for k in recs:
            if k in keys:
                at = keys.index(k)
                continue
            at += 1
            while at < len(keys) and keys[at] not in recs:
                at += 1
            keys.insert(at, k)
    out = []
    for key in keys:
        holding = [i for i, recs in enumerate(per_cell) if key in recs]
        r = {k: v for k, v in per_cell[holding[0]][key].items() if k != "default"}
        groups: dict[str, dict[str, Any]] = {}
        for i in holding:
            v = per_cell[i][key]["value"]
            groups.setdefault(json.dumps(v, sort_keys=True, default=str), {"value": v, "cells": []})["cells"].append(i)
        cells = [i for i in holding if per_cell[i][key]["overridden"]]
        r["overridden"] = bool(cells)
        if cells:
            r["overridden_in_cells"] = cells
            r["default"] = per_cell[cells[0]][key]["default"]
        if len(holding) < len(per_cell):
            r["in_cells"] = holding
        if len(groups) > 1:
            r["value"] = "varies by cell"
            r["values"] = list(groups.values())
        out.append(r)
    return out


def _cells(cells: list[int], names: list[str] | None = None, most: int = 12) -> str:
    """``cell 2`` / ``cells 1, 3`` (``A`` / ``B`` with names)."""
    if names is not None:
        return " and ".join(names[i] if i < len(names) else str(i) for i in cells)
    shown = ", ".join(map(str, cells[:most])) + (" ..." if len(cells) > most else "")
    return f"cell{'s' if len(cells) > 1 else ''} {shown}"


def _where_held(r: dict[str, Any], names: list[str] | None, width: int, code: str = "") -> str:
    """What a record of :func:`across_cells` adds: each value with its cells when they differ, and the cells an
    assumption holds in when not in all."""
    parts = []
    if r.get("values"):
        parts.append("; ".join(f"{code}{show(g['value'], width)}{code} in {_cells(g['cells'], names)}"
                               for g in r["values"][:12]) + ("; ..." if len(r["values"]) > 12 else ""))
    elif r.get("in_cells") is not None:
        parts.append(f"in {_cells(r['in_cells'], names)} only")
    return f" ({parts[0]})" if parts else ""


def summary_lines(recs: list[dict[str, Any]], width: int = 60, cells: list[str] | None = None) -> list[str]:
    """The block a text summary prints: one line per assumption, overridden ones marked; for the records of
    :func:`across_cells`, the cells an assumption holds in (when not in all) and each cell's value (when they
    differ), the cells named by ``cells`` (e.g. ``["A", "B"]``) when given."""
    if not recs:
        return []
    n_over = sum(1 for r in recs if r.get("overridden"))
    lines = [f"rests on {len(recs)} assumptions (values no rulebook prints; {n_over} overridden here; "
             "`foury-sim assumptions GAME` explains each):"]
    for r in recs:
        mark = f"  OVERRIDDEN (default {show(r.get('default'), width)})" if r.get("overridden") else ""
        lines.append(f"  {r['key']} = {show(r['value'], width)}{mark}{_where_held(r, cells, 30)}")
    return lines


def markdown_items(recs: list[dict[str, Any]]) -> list[str]:
    """Bullet items for a report: ``key = value`` with overridden ones marked (and, for the records of
    :func:`across_cells`, each cell's value when they differ, the cells it holds in when not in all)."""
    out = []
    for r in recs:
        item = f"`{r['key']} = {show(r['value'], 80)}`"
        if r.get("overridden"):
            cells = r.get("overridden_in_cells")
            at = f" in cells {', '.join(map(str, cells[:12]))}{' ...' if len(cells) > 12 else ''}" if cells else ""
            item += f" **(overridden{at}; default `{show(r.get('default'), 80)}`)**"
        out.append(item + _where_held(r, None, 40, "`"))
    return out


def table(assumptions: list[Assumption]) -> list[dict[str, str]]:
    """Rows for ``foury-sim assumptions``: key, value, plausible values, varied, reason, where."""
    rows = []
    for a in assumptions:
        if a.range is not None:
            plaus = f"{a.range[0]:g}..{a.range[1]:g}"
        elif a.alternatives:
            plaus = " / ".join(show(x, 46) for x in a.alternatives)
        else:
            plaus = "-"
        rows.append({"key": a.key, "value": show(a.value, 46) + (" (overridden)" if a.overridden else ""),
                     "plausible": plaus, "vary": "yes" if a.vary and a.variable() else "no",
                     "reason": a.reason, "where": a.where})
    return rows
