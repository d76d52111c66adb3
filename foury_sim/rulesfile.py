"""Ruleset files: TOML with documented defaults, ``--set key=value`` overrides, precise errors.

Every game keeps its numbers in a TOML ruleset. This module is the shared boundary: it reads the
file (syntax errors become ``file:line:column``), merges a user's ``--rules`` file over the shipped
defaults (``load_ruleset_file``: one behaviour for every game), applies overrides, and finds the
line a key stands on so a game's validation can point at it. Games validate the values themselves
and turn them into the plain arrays their kernels read.
"""

from __future__ import annotations

import copy
import difflib
import functools
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
        #: tables a user's table replaces whole (``merge``'s ``whole_tables``), kept for ``apply_overrides``
        self.whole_tables: dict[str, str] = {}

    @property
    def shipped(self) -> RuleFile:
        """The shipped defaults this ruleset was merged over (itself for a plain file)."""
        return self.layers[0] if self.layers else self

    @property
    def users(self) -> list[RuleFile]:
        """The user's files merged over the defaults (``--rules``), in order."""
        return self.layers[1:]

    def where(self, dotted: str) -> str:
        """``file:line:column`` of a dotted key, or the ``--set KEY=VALUE`` that changed it (or a table it
        lies in, or a key inside it)."""
        if dotted in self.overridden:
            return f"--set {dotted}={self.overridden[dotted]}"
        for k, shown in self.overridden.items():
            if (dotted.startswith((k + ".", k + "[")) or k.startswith((dotted + ".", dotted + "["))
                    or dotted.split("[", 1)[0] == k):
                return f"--set {k}={shown}"
        for src in reversed(self.layers or [self]):
            at = locate(src.text, dotted)
            if at:
                return f"{src.path}:{at[0]}:{at[1]}"
        for src in reversed(self.layers or [self]):  # a table only its keys or sub-tables spell out
            at = locate_within(src.text, dotted)
            if at:
                return f"{src.path}:{at[0]}:{at[1]}"
        return self.path

    def blame(self, *dotted: str) -> str:
        """Where a check between several keys points: the first of them a ``--set`` changed, else the first
        a user's file set, else the first (so an error caused by the user never blames the shipped file)."""
        places = [self.where(k) for k in dotted]
        for p in places:
            if p.startswith("--set"):
                return p
        shipped = self.shipped.path
        for p in places:
            if not p.startswith(shipped):
                return p
        return places[0]

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
    if p.is_dir():
        raise InputError(f"ruleset file {str(path)!r} is a directory, not a file", "--rules")
    if not p.is_file():
        from .inputs import not_a_file

        raise InputError(f"ruleset file {str(path)!r} {not_a_file(p)}", "--rules")
    data, text = read_toml(p)
    return RuleFile(data, text, str(p))


def whole_marker(dotted: str, whole_tables: dict[str, str]) -> str | None:
    """The marker key of the whole table ``dotted`` stands for (a pattern of ``whole_tables``, ``*`` one part:
    ``monsters.*.attack``), else None."""
    parts = dotted.split(".")
    for pat, marker in whole_tables.items():
        pp = pat.split(".")
        if len(pp) == len(parts) and all(a in ("*", b) for a, b in zip(pp, parts, strict=True)):
            return marker
    return None


def merge(base: dict[str, Any], over: dict[str, Any], user: RuleFile, open_tables: tuple[str, ...] = (),
          path: str = "", whole_tables: dict[str, str] | None = None) -> None:
    """Deep-merge ``over`` (the data of ``user``) into ``base``. A key the defaults do not have is an
    error at its ``file:line``, except inside ``open_tables`` (top-level tables where a user's file may
    add entries: new heroes, new treasure kinds, its own assumptions). ``whole_tables`` (a dotted pattern,
    ``*`` one part -> its marker key): a table whose keys depend on its marker (a kind of attack with its own
    keys) is replaced whole by a user's table that gives the marker, not merged key by key (the shipped
    table's other keys would be left over)."""
    whole_tables = whole_tables or {}
    for k, v in over.items():
        dotted = f"{path}.{k}" if path else k
        if k not in base and path.split(".", 1)[0] not in open_tables:
            raise InputError(f"unknown ruleset key {dotted!r}{nearest(k, base)}", user.where(dotted))
        if k in base and isinstance(base[k], dict) != isinstance(v, dict):
            what = "a table of keys" if isinstance(base[k], dict) else "a single value, not a table"
            raise InputError(f"{dotted} must be {what}", user.where(dotted))
        marker = whole_marker(dotted, whole_tables) if isinstance(v, dict) else None
        if isinstance(v, dict) and isinstance(base.get(k), dict) and not (marker and marker in v):
            merge(base[k], v, user, open_tables, dotted, whole_tables)
        else:
            base[k] = copy.deepcopy(v)


def load_ruleset_file(defaults: str | Path, rules_path: str | Path | None = None,
                      overrides: list[str] | dict[str, Any] | None = None,
                      open_tables: tuple[str, ...] = (), whole_tables: dict[str, str] | None = None) -> RuleFile:
    """The ruleset a run plays, the same way for every game: the shipped ``defaults``, a user's
    ``--rules`` file deep-merged over them (a partial file changes only what it names; see ``merge``
    for unknown keys and the ``whole_tables`` a user's table replaces whole), then ``--set`` overrides.
    The result remembers where each key came from (``where``), and its ``shipped`` defaults and ``users``
    files (for the assumptions)."""
    shipped = load(defaults)
    if rules_path is None:
        rf = RuleFile(shipped.data, shipped.text, shipped.path, [shipped])
    else:
        user = load(rules_path)
        data = copy.deepcopy(shipped.data)
        merge(data, user.data, user, open_tables, whole_tables=whole_tables)
        rf = RuleFile(data, user.text, user.path, [shipped, user])
    rf.whole_tables = dict(whole_tables or {})
    return apply_overrides(rf, overrides)


def line_col(raw: bytes, offset: int) -> str:
    """``line:column`` (1-based, column in characters of the valid text before it) of a byte offset: where a file's
    first byte that is not UTF-8 stands (rules files, a game's board files)."""
    before = raw[:offset]
    line = before.count(b"\n") + 1
    last = before.rsplit(b"\n", 1)[-1]
    return f"{line}:{len(last.decode('utf-8', errors='replace')) + 1}"


#: The start of a ``key = value`` statement (looser than ``_KEY``: any quotes and blanks in the key).
_KEY_START = r"""[A-Za-z0-9_"'-][A-Za-z0-9_.\s"'-]*="""
#: A line that starts a ``key = value`` statement or a ``[table]`` header (never an array's element).
_STATEMENT = re.compile(rf"""\s*(\[\[?[A-Za-z0-9_.\s"'-]+\]\]?\s*(#.*)?$|{_KEY_START})""")


def _end_of_content_before(text: str, line: int) -> tuple[int, int] | None:
    """(line, column) just after the last character of the nearest line above ``line`` (1-based) that holds more
    than blanks and a comment (a trailing comment outside quotes left out): where a missing ``]`` or ``,`` stood."""
    lines = text.splitlines()
    for k in range(min(line, len(lines) + 1) - 2, -1, -1):
        raw = _before_comment(lines[k])
        if raw.strip():
            return k + 1, len(raw.rstrip()) + 1
    return None


def _before_comment(row: str) -> str:
    """A TOML line without its trailing comment: the first ``#`` outside a string (``"Hero's #1"`` is not one)."""
    quote = ""
    escaped = False
    for i, ch in enumerate(row):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return row[:i]
    return row


def toml_error(e: tomllib.TOMLDecodeError, text: str, path: str | Path) -> InputError:
    """tomllib's syntax error in ``text`` (the file ``path``) as one ``InputError`` at ``file:line:column``. An error
    tomllib places only "at end of document" (a value, a closing bracket or quote missing when the file ends) is at
    the end of the file's last line that is not empty (it had no line). An array left open (``x = [1, 2`` then the
    next key) is placed where its ``]`` is missing, at the end of its last line: tomllib names the first character
    after the blanks that follow, the start of the next line that holds anything."""
    m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
    msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
    if m:
        line, column = int(m.group(1)), int(m.group(2))
        rows = text.splitlines()
        starts_line = line <= len(rows) and not rows[line - 1][:column - 1].strip(" \t[")  # ('[t]': read as [t)
        if starts_line and (msg == "Unclosed array" or (msg == "Invalid value" and _STATEMENT.match(rows[line - 1]))):
            before = _end_of_content_before(text, line)
            row = rows[line - 1]
            after = next((r for r in rows[line:] if _before_comment(r).strip()), "")
            if (before is not None and msg != "Unclosed array" and row[:1] in (" ", "\t") and row.lstrip()[:1] == "["
                    and _before_comment(rows[before[0] - 1]).rstrip()[-1:] in (",", "[")
                    and not re.match(rf"\s*{_KEY_START}", after)):
                before = None  # (an indented ``[foo]`` after a ',' or '[' and before no key: an array's bad element)
            if before is not None:  # (a key or table inside an array: the array above was never closed)
                line, column = before
                msg = "Unclosed array (a ']' or ',' is missing at the end of this line)"
        return InputError(f"malformed TOML: {msg}", f"{path}:{line}:{column}")
    if "(at end of document)" in msg:
        body = text.rstrip("\r\n")
        line = body.count("\n") + 1
        column = len(body) - (body.rfind("\n") + 1) + 1
        msg = msg.replace("(at end of document)", "(at the end of the file)")
        return InputError(f"malformed TOML: {msg}", f"{path}:{line}:{column}")
    return InputError(f"malformed TOML: {msg}", str(path))


def read_toml(p: Path) -> tuple[dict[str, Any], str]:
    """Parse a TOML file: (data, text). Every problem is one ``InputError`` naming the file: a syntax error
    or a byte that is not UTF-8 at ``file:line:column``, an unreadable, empty or binary file. A UTF-8
    byte-order mark is accepted (and dropped)."""
    try:
        raw = p.read_bytes()
    except IsADirectoryError:
        raise InputError("is a directory, not a ruleset file", str(p)) from None
    except OSError as e:
        raise InputError(f"cannot read the ruleset file: {e.strerror or e}", str(p)) from None
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise InputError("is a binary file, not a TOML ruleset (it holds a NUL byte)", f"{p}:{line_col(raw, nul)}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"is not UTF-8 text: byte 0x{raw[e.start]:02x} cannot be read (save the file as UTF-8)",
                         f"{p}:{line_col(raw, e.start)}") from None
    text = text.removeprefix("\ufeff")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise toml_error(e, text, p) from None
    except ValueError as e:  # e.g. an integer with thousands of digits (Python's int limit)
        raise InputError(f"malformed TOML: {e}", str(p)) from None
    if not data:
        raise InputError("the ruleset file is empty (it sets no key)", str(p))
    return data, text


def locate_key(text: str, dotted: str) -> int | None:
    """Line number (1-based) where ``dotted`` is defined in TOML ``text``, if found."""
    at = locate(text, dotted)
    return at[0] if at else None


def locate(text: str, dotted: str) -> tuple[int, int] | None:
    """(line, column), 1-based, where ``dotted`` is defined in TOML ``text``: the table header, or the key
    (inside an inline table, the innermost key found on the line), if found.

    The first line that matches, as a scan of the lines would find it, read from an index of the text built once
    (``_key_index``): a ruleset's validation asks where each of its hundreds of keys stands, and rescanning the
    text for every key cost most of a large ruleset's load (``tests/test_rulesfile.py`` checks it against that
    scan)."""
    parts = tuple(dotted.split("."))
    headers, keys = _key_index(text)
    best = headers.get(parts)
    at_key = None
    for m in range(1, len(parts) + 1):
        hit = keys.get(parts[:m])
        if hit is not None and (best is None or hit[0] < best[0]):
            best, at_key = hit, m
    if best is None:
        return None
    if at_key is None:  # a table header
        return best[0], best[1] + 1
    i, indent, line = best
    col = 0
    for part in parts[at_key:]:
        inner = re.compile(rf'(?<![\w\-"])"?{re.escape(part)}"?\s*=').search(line, col + 1)
        if not inner:
            break
        col = inner.start()
    return i, indent + col + 1


def locate_within(text: str, dotted: str) -> tuple[int, int] | None:
    """(line, column), 1-based, of the first table header or key inside the table ``dotted`` when the text never
    names that table itself (``locate`` finds nothing): ``[monsters.imp]`` for ``monsters``, the dotted key
    ``monsters.imp.hp = 2`` for ``monsters.imp``; None if nothing in the text lies inside it."""
    parts = tuple(dotted.split("."))
    headers, keys = _key_index(text)
    inside = [(line, indent) for path, (line, indent) in headers.items() if path[:len(parts)] == parts]
    inside += [(line, indent) for path, (line, indent, _) in keys.items()
               if len(path) > len(parts) and path[:len(parts)] == parts]
    if not inside:
        return None
    line, indent = min(inside)
    return line, indent + 1


_HEADER = re.compile(r"^\[\[?\s*([^\]]+?)\s*\]\]?$")
_KEY = re.compile(r'^((?:"[^"]*"|[\w\-]+)(?:\s*\.\s*(?:"[^"]*"|[\w\-]+))*)\s*=')
_KEY_PART = re.compile(r'"([^"]*)"|([\w\-]+)')


def _key_parts(dotted: str) -> list[str]:
    """The parts of a dotted TOML key as written, as the dotted paths ``locate`` is asked for split them:
    ``"big imp".hp`` -> ``["big imp", "hp"]`` (a quoted part may hold spaces); a quoted part's dots split it too
    (``"score.win_rank"`` -> ``["score", "win_rank"]``: the path ``assumptions.score.win_rank`` names it)."""
    return [part for quoted, bare in _KEY_PART.findall(dotted) for part in (quoted.split(".") if quoted else [bare])]


@functools.lru_cache(maxsize=16)
def _key_index(text: str) -> tuple[dict[tuple[str, ...], tuple[int, int]], dict[tuple[str, ...], tuple[int, int, str]]]:
    """The first line of each table header (its path: (line, indent)) and of each key (its full path, table and
    key: (line, indent, the line without its comment)) in ``text``."""
    headers: dict[tuple[str, ...], tuple[int, int]] = {}
    keys: dict[tuple[str, ...], tuple[int, int, str]] = {}
    table: list[str] = []
    for i, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        indent = len(line) - len(line.lstrip())
        line = line.strip()
        m = _HEADER.match(line)
        if m:
            table = [t.strip().strip('"') for t in m.group(1).split(".")]
            headers.setdefault(tuple(table), (i, indent))
            continue
        m = _KEY.match(line)
        if m:
            keys.setdefault(tuple(table + _key_parts(m.group(1))), (i, indent, line))
    return headers, keys


#: How alike (difflib's ratio, 0..1) a known name must be to a misspelt one to be offered as "did you mean". One
#: letter wrong, missing, added or two swapped in a name of 4 letters or more is 0.75 or above; difflib's default,
#: 0.6, also offered unrelated words of a few shared letters ('shield' for 'seed', 'treasures' for 'threads').
CLOSE_CUTOFF = 0.7


def close_match(word: str, names: Any) -> str | None:
    """The known name nearest to a misspelt ``word`` (at least ``CLOSE_CUTOFF`` alike), else None."""
    close = difflib.get_close_matches(str(word), [str(n) for n in names], n=1, cutoff=CLOSE_CUTOFF)
    return close[0] if close else None


def nearest(key: str, known: Any) -> str:
    """``" (did you mean 'x'?)"`` for the known key nearest to a misspelt ``key`` (``close_match``), else the known
    keys."""
    names = [str(k) for k in known] if isinstance(known, dict) else []
    if not names:
        return ""
    close = close_match(key, names)
    if close:
        return f" (did you mean {close!r}?)"
    return f" (known: {', '.join(names[:20])}{', ...' if len(names) > 20 else ''})"


def _parse_value(text: str) -> Any:
    """A ``--set`` value: any TOML value, or a bare comma list / word."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        pass
    except ValueError:  # an integer beyond Python's digit limit: kept as text, refused by the key's check
        return text
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


def _all_paths(data: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for k, v in data.items():
        path = f"{prefix}.{k}" if prefix else str(k)
        if not path.startswith("assumptions"):
            out.append(path)
            if isinstance(v, dict):
                out += _all_paths(v, path)
    return out


#: ``round.monster_bonus[2]``: a list key and the index of one element (0-based: ``[0]`` is the first)
ELEMENT = re.compile(r"^(?P<key>[^\[\]]+)\[(?P<index>[^\[\]]*)\]$")


def split_element(key: str, where: str | None = None) -> tuple[str, int | None]:
    """``"round.monster_bonus[2]"`` -> ("round.monster_bonus", 2); a key without ``[i]`` -> (key, None). The
    index is 0-based (``[0]`` is the first element); a malformed one is one ``InputError`` at ``where``
    (default ``--set KEY``)."""
    if "[" not in key and "]" not in key:
        return key, None
    m = ELEMENT.match(key.strip())
    at = where or f"--set {key}"
    if not m:
        raise InputError(f"{key!r} is not KEY or KEY[INDEX] (e.g. round.monster_bonus[2], 0-based)", at)
    text = m.group("index").strip()
    if not text.isdigit():
        raise InputError(f"{key}: the index must be a whole number from 0 (0-based: [0] is the first element), "
                         f"not {text!r}", at)
    return m.group("key").strip(), int(text)


def check_element(data: dict[str, Any], path: str, index: int, at: str) -> list[Any]:
    """The list at ``path`` if ``index`` is one of its elements, else one ``InputError`` at ``at``."""
    node: Any = data
    for part in path.split("."):
        node = node[part] if isinstance(node, dict) else None
    if not isinstance(node, list):
        what = "a table" if isinstance(node, dict) else f"a single value ({show_value(node)})"
        raise InputError(f"{path} is {what}, not a list: it has no element [{index}]", at)
    if index >= len(node):
        raise InputError(f"{path} has {len(node)} element{'s' if len(node) != 1 else ''} ([0]..[{len(node) - 1}], "
                         f"0-based), not [{index}]", at)
    return node


def _check_whole(rf: RuleFile, key: str, value: Any, given: str) -> None:
    """A ``--set`` of a whole table's marker (``monsters.rat.attack.kind``) that changes it, or of a key the whole
    table has not (one of another kind's keys), is one error saying to give the whole table (``merge``'s
    ``whole_tables``): the table's other keys belong to its marker."""
    if "." not in key:
        return
    table, last = key.rsplit(".", 1)
    marker = whole_marker(table, rf.whole_tables)
    current = rf.get(table)
    if marker is None or not isinstance(current, dict):
        return
    if last == marker and value != current.get(marker):
        new = f'"{value}"' if isinstance(value, str) else show_value(value)
        raise InputError(f"{table}.{marker} decides which keys {table} has: give the whole table, e.g. "
                         f"--set '{table}={{{marker} = {new}, ...}}'", f"--set {given}")
    if last not in current:
        raise InputError(f"unknown ruleset key {key!r}: {table} has {', '.join(map(str, current))} (its "
                         f"{marker} = {show_value(current.get(marker))}); to change its {marker}, give the whole "
                         f"table, e.g. --set '{table}={{{marker} = ..., ...}}'", f"--set {given}")


def apply_overrides(rf: RuleFile, overrides: list[str] | dict[str, Any] | None) -> RuleFile:
    """Return a copy of ``rf`` with ``key=value`` overrides applied.

    A key is a dotted path (``round.monster_bonus``) or, when unambiguous, its last part
    (``monster_bonus``). Only keys that exist in the ruleset may be set; a table (``heroes.kael.start``)
    takes only a table (``{ hearts = 6, ... }``), a single value only a single value or a list. One element
    of a list is ``KEY[INDEX]``, 0-based (``round.monster_bonus[2]=3`` sets the third, the others stay); an
    index beyond the list or a key that is no list is refused; a whole table's marker (``whole_tables``) is
    changed only with the whole table (``_check_whole``). Every error names ``--set KEY``.
    """
    if not overrides:
        return rf
    items: list[tuple[str, Any, str]] = []
    if isinstance(overrides, dict):
        items = [(k, v, r if len(r := repr(v)) <= 40 else r[:37] + "...") for k, v in overrides.items()]
    else:
        for o in overrides:
            if "=" not in o:
                raise InputError(f"--set {o!r} is not KEY=VALUE", "--set")
            k, v = o.split("=", 1)
            shown = v.strip() if len(v.strip()) <= 40 else v.strip()[:37] + "..."
            same = next((x for x in items if x[0] == k.strip()), None)
            if same is not None and k.strip():  # (the last one won in silence)
                raise InputError(f"given twice ({same[2]} and {shown}): give it once", f"--set {k.strip()}")
            items.append((k.strip(), _parse_value(v.strip()), shown))
    out = RuleFile(copy.deepcopy(rf.data), rf.text, rf.path, rf.layers)
    out.overridden = dict(rf.overridden)
    out.whole_tables = dict(rf.whole_tables)
    done: dict[str, tuple[str, str]] = {}  # the key each --set changed: (as given, its value)

    def once(target: str, given: str, shown: str) -> None:
        """The same key given twice under two names (game.party_dice and party_dice): the last one won in silence."""
        if target in done and done[target][0] != given:
            raise InputError(f"{target} is given twice ({done[target][0]}={done[target][1]} and {given}={shown}): "
                             "give it once", f"--set {given}")
        done[target] = (given, shown)

    for given, value, shown in items:
        if not given:
            raise InputError("--set needs a key before '='", "--set")
        key, index = split_element(given)
        _check_whole(out, key, value, given)
        path = key
        if "." not in key or rf.get(key) is None:
            hits = find_key(out.data, key.split(".")[-1]) if "." not in key else []
            if len(hits) == 1:
                path = hits[0]
            elif len(hits) > 1:
                raise InputError(f"ruleset key {key!r} is ambiguous: {', '.join(hits)}", f"--set {given}")
            elif out.get(key) is None:
                if "." in key:
                    hint = nearest(key.rsplit(".", 1)[1], out.get(key.rsplit(".", 1)[0]))
                else:
                    names: dict[str, None] = {}
                    for dotted in _all_paths(out.data):
                        names[dotted.rsplit(".", 1)[-1]] = None
                    close = close_match(key, names)
                    hint = f" (did you mean {close!r}?)" if close else ""
                raise InputError(f"unknown ruleset key {key!r}{hint}", f"--set {given}")
        if index is not None:
            lst = check_element(out.data, path, index, f"--set {given}")
            if isinstance(value, (list, dict)):
                raise InputError(f"{path}[{index}] is one element: give a single value, not {show_value(value)}",
                                 f"--set {given}")
            once(f"{path}[{index}]", given, shown)
            lst[index] = value
            out.overridden[f"{path}[{index}]"] = shown
            continue
        node = out.data
        parts = path.split(".")
        for part in parts[:-1]:
            node = node[part]
        old = node[parts[-1]]
        if isinstance(old, dict) and not isinstance(value, dict):
            some = ", ".join(f"{path}.{k}" for k in list(old)[:4]) + (", ..." if len(old) > 4 else "")
            raise InputError(f"{path} is a table: set one of its keys ({some}) or give a table {{ ... }}",
                             f"--set {key}")
        if isinstance(value, dict) and not isinstance(old, dict):
            raise InputError(f"{path} is a single value, not a table", f"--set {key}")
        if isinstance(old, list) and not isinstance(value, list):
            value = [value]
        once(path, given, shown)
        node[parts[-1]] = value
        out.overridden[path] = shown
    return out


# ---------------------------------------------------------------------------- valid ranges --
#: A game's valid ranges: a dotted key pattern -> (lowest, highest) whole number. In a pattern ``*`` stands
#: for one part (``heroes.*.start.*``) and ``[]`` for every element of a list (``round.monster_bonus[]``,
#: ``heroes.*.*.specialty[].n``). The ranges are what the engine accepts (kept small enough that no legal
#: value can overflow the kernels' int64 arithmetic or make a game endless); what a rulebook makes
#: *plausible* is narrower (``assumptions``).
Ranges = dict[str, tuple[int, int]]


def _pattern_parts(key: str) -> list[str]:
    return re.sub(r"\[\d*\]", "[]", key).split(".")


def whole_numbers(node: Any, path: str = ""):
    """Every whole number of a ruleset's data (its ``[assumptions]`` left out): ``(dotted key, value)``, list
    elements as ``key[i]``; what a valid-ranges table must cover (``range_of``)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if not (path == "" and k == "assumptions"):
                yield from whole_numbers(v, f"{path}.{k}" if path else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from whole_numbers(v, f"{path}[{i}]")
    elif isinstance(node, int) and not isinstance(node, bool):
        yield path, node


def range_of(ranges: Ranges, key: str) -> tuple[int, int]:
    """The valid range of ``key`` (``heroes.kael.start.hearts``, ``round.monster_bonus[2]``)."""
    parts = _pattern_parts(key)
    for pat, rng in ranges.items():
        pp = pat.split(".")
        if len(pp) == len(parts) and all(a in ("*", b) for a, b in zip(pp, parts, strict=True)):
            return rng
    raise KeyError(f"no valid range declared for {key!r}")


def show_value(v: Any) -> str:
    """A short, safe form of a value for an error line (huge integers abbreviated)."""
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10**15:
        return f"{'-' if v < 0 else ''}a {len(str(abs(v))) if abs(v) < 10**4000 else 'many'}-digit number"
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def check_int(rf: RuleFile, key: str, ranges: Ranges, value: Any = ..., where: str | None = None) -> int:
    """``value`` (default: the ruleset's ``key``) if it is a whole number in the key's valid range, else one
    ``InputError`` at ``where`` (default: the key's ``file:line:column`` or ``--set``). Bools, floats (nan,
    inf, 2.7), strings ("3") and numbers beyond the range (also beyond 2**63) are refused."""
    lo, hi = range_of(ranges, key)
    v = rf.get(key) if value is ... else value
    at = where or rf.where(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"{key} must be a whole number in {lo}..{hi}, not {show_value(v)}", at)
    if v < lo:
        raise InputError(f"{key} = {show_value(v)} is below {lo} (valid range {lo}..{hi})", at)
    if v > hi:
        raise InputError(f"{key} = {show_value(v)} is above {hi} (valid range {lo}..{hi})", at)
    return v


def check_int_list(rf: RuleFile, key: str, ranges: Ranges, min_len: int = 1, max_len: int = 64) -> list[int]:
    """The list ``key`` if it has ``min_len`` .. ``max_len`` whole numbers, each in the range of ``key[]`` (the
    refusal says "a list of 4 whole numbers" when the two lengths are equal)."""
    v = rf.get(key)
    lo, hi = range_of(ranges, key + "[]")
    if not isinstance(v, list) or not min_len <= len(v) <= max_len:
        n = f"{min_len}" if min_len == max_len else f"{min_len}..{max_len}"
        noun = "whole number" if min_len == max_len == 1 else "whole numbers"
        raise InputError(f"{key} must be a list of {n} {noun} in {lo}..{hi}, not {show_value(v)}", rf.where(key))
    return [check_int(rf, f"{key}[{i}]", ranges, x, rf.where(key)) for i, x in enumerate(v)]


def ranges_markdown(ranges: Ranges) -> str:
    """The "Valid ranges" table of a rules doc (``tests`` check the doc holds exactly this)."""
    lines = ["| key | valid range |", "|---|---|"]
    lines += [f"| `{k}` | {lo} .. {hi} |" for k, (lo, hi) in ranges.items()]
    return "\n".join(lines) + "\n"
