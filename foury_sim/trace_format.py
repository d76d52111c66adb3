"""Trace rows to words, from a table each game declares once (the writer is ``tracing.trace_row``).

A game describes each of its trace codes as data, a :class:`TraceCode`: a name, the names of the row's
int fields in column order, and a ``str.format`` template over those names. ``{cell:room}`` formats a
field with the game's field formatter ``room`` (a function of the value and the formatting context, or
a tuple of names indexed by the value); any other spec is Python's (``{bonus:+d}``). A template may
span lines (``"\\n"``). Wording that depends on a field is either a template picked by that field's
value (``by``) or extra named values computed from the fields (``words``).

:class:`TraceTable` renders rows: one line (or several) per row, and for a code the table does not know
(or a value of ``by`` without a template) the fallback ``[trace code N: a b c ...]``, so no event
ever vanishes from a replay. A game may add one small hook for what needs state across rows (it sees
every row first; it may update the context or replace the row's lines).

Words that agree: :func:`a` puts the right article before a name ("an orc", "a goblin") and :func:`count`
the right number ("1 heart", "2 hearts"); a template says ``{foe:a icon}`` for the article before a field
formatter's name. Every game's trace words (and the summary's "killed by a ...") use these two.

A new trace code: its constant in the game's ``layout.py`` (``TR_*``, ``E_*``), the kernel's logging call
(``log``/``ev``, over ``tracing.trace_row``), and one ``TraceCode`` in the game's ``trace.py`` (a test checks
that every code of the layout has words).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: A field formatter: a function ``(value, ctx) -> str``, or names indexed by the value (a value out of
#: their range shows as ``<kind value>``).
FieldFormat = Callable[[int, Any], str] | Sequence[str]
#: The hook: ``(ctx, code, fields) -> lines or None`` (None: render the row from the table).
Hook = Callable[[Any, int, Mapping[str, int]], list[str] | None]


@dataclass(frozen=True)
class TraceCode:
    """The words of one trace code.

    ``fields`` names the row's int columns after the code (and after the table's ``common`` fields);
    ``template`` is one template, or a mapping from the value of field ``by`` to a template (key
    ``None``: any other value). ``words(fields, ctx)`` returns extra named values for the template.
    """

    name: str
    fields: tuple[str, ...]
    template: str | Mapping[int | None, str]
    by: str | None = None
    words: Callable[[Mapping[str, int], Any], Mapping[str, Any]] | None = None

    def templates(self) -> list[str]:
        return [self.template] if isinstance(self.template, str) else list(self.template.values())


#: words that start with a vowel letter but not a vowel sound, and the other way round
_A_BEFORE = ("uni", "use", "usu", "eu", "one", "once", "ewe")
_AN_BEFORE = ("hour", "honest", "honou", "heir")


def a(name: str) -> str:
    """``name`` with its indefinite article: "an orc", "an imp", "an elixir", "a goblin", "a unicorn"; a plural
    name takes "some" ("some dragon scales"); a name that already starts with an article or a number is
    returned as it is."""
    if not name:
        return name
    low = name.lower()
    first = low.split(" ", 1)[0]
    if first in ("a", "an", "the", "some") or first[0].isdigit():
        return name
    if low.endswith("s") and not low.endswith(("ss", "us")):
        return f"some {name}"
    vowel = low[0] in "aeiou"
    if low.startswith(_A_BEFORE):
        vowel = False
    elif low.startswith(_AN_BEFORE):
        vowel = True
    return f"{'an' if vowel else 'a'} {name}"


#: plurals that do not just add "s"
_PLURALS = {"die": "dice", "mouse": "mice", "man": "men", "staff": "staves", "thief": "thieves", "wolf": "wolves",
            "elf": "elves", "dwarf": "dwarves"}


def plural(noun: str) -> str:
    """The plural of a noun (the last word of ``noun``): "orc" -> "orcs", "ooze" -> "oozes", "box" -> "boxes",
    "fighter die" -> "fighter dice"; a noun already plural ("hearts") is kept."""
    head, _, last = noun.rpartition(" ")
    low = last.lower()
    if low in _PLURALS:
        word = _PLURALS[low]
    elif low.endswith("s") and not low.endswith(("ss", "us")):
        word = last  # already plural ("hearts")
    elif low.endswith(("s", "x", "z", "ch", "sh")):
        word = last + "es"
    elif low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        word = last[:-1] + "ies"
    else:
        word = last + "s"
    return f"{head} {word}" if head else word


def singular(noun: str) -> str:
    """``noun`` without a plain plural "s" ("hearts" -> "heart"); anything else is kept."""
    return noun[:-1] if noun.endswith("s") and not noun.endswith(("ss", "us")) else noun


def count(n: int, noun: str) -> str:
    """``n`` and the noun in the right number: "1 heart", "2 hearts", "0 shields" (``noun`` either way)."""
    one = singular(noun)
    return f"{n} {one if n == 1 else plural(one)}"


class _Formatter(string.Formatter):
    """``str.format`` where a spec naming a field formatter formats with it (``a KIND``: with its article)."""

    def __init__(self, kinds: Mapping[str, FieldFormat], ctx: Any) -> None:
        self.kinds, self.ctx = kinds, ctx

    def format_field(self, value: Any, spec: str) -> str:
        if spec.startswith("a ") and spec[2:] in self.kinds:
            return a(self.format_field(value, spec[2:]))
        kind = self.kinds.get(spec)
        if kind is None:
            return format(value, spec)
        if callable(kind):
            return kind(value, self.ctx)
        return kind[value] if 0 <= value < len(kind) else f"<{spec} {value}>"  # a name never wraps around


@dataclass
class TraceTable:
    """A game's trace codes and field formatters; ``format`` renders trace rows.

    ``common`` names the fields every row carries before its own (say, a stage and a level).
    """

    game: str
    codes: dict[int, TraceCode] = field(default_factory=dict)
    kinds: dict[str, FieldFormat] = field(default_factory=dict)
    common: tuple[str, ...] = ()
    hook: Hook | None = None

    def __post_init__(self) -> None:
        for code, spec in list(self.codes.items()):
            self._check(code, spec)

    def _check(self, code: int, spec: TraceCode) -> None:
        if spec.by is not None and spec.by not in self.common + spec.fields:
            raise ValueError(f"{self.game} trace code {code} ({spec.name}): 'by' field {spec.by!r} is not a field")
        if spec.by is None and not isinstance(spec.template, str):
            raise ValueError(f"{self.game} trace code {code} ({spec.name}): several templates need a 'by' field")
        for template in spec.templates():
            for _, name, spec_text, _ in string.Formatter().parse(template):
                if name is None:
                    continue
                if spec_text.startswith("a ") and spec_text[2:] in self.kinds:
                    continue
                if spec_text and spec_text not in self.kinds:
                    try:
                        format(0, spec_text)
                    except ValueError:
                        raise ValueError(f"{self.game} trace code {code} ({spec.name}): unknown field format "
                                         f"{spec_text!r} in {template!r}") from None
                if spec.words is None and name not in self.common + spec.fields:
                    raise ValueError(f"{self.game} trace code {code} ({spec.name}): {{{name}}} is not a field")

    def register(self, code: int, spec: TraceCode) -> None:
        """Add a trace code (a new rule's, or a test's); a code is declared once."""
        if code in self.codes:
            raise ValueError(f"{self.game} trace code {code} is already {self.codes[code].name!r}")
        self._check(code, spec)
        self.codes[code] = spec

    def unregister(self, code: int) -> None:
        del self.codes[code]

    def format(self, rows: Iterable[Sequence[int]], ctx: Any = None) -> list[str]:
        """The lines of ``rows`` (each: code, then the int fields), in order."""
        fmt = _Formatter(self.kinds, ctx)
        out: list[str] = []
        for row in rows:
            code, *values = (int(x) for x in row)
            spec = self.codes.get(code)
            names = self.common + (spec.fields if spec else ())
            fields = dict(zip(names, values))
            if self.hook is not None:
                lines = self.hook(ctx, code, fields)
                if lines is not None:
                    out.extend(lines)
                    continue
            template = None
            if spec is not None:
                template = spec.template
                if spec.by is not None:
                    template = template.get(fields[spec.by], template.get(None))
            if template is None:  # never lose an event: a code without words (a new rule's) is still shown
                out.append(fallback(code, values))
                continue
            named = dict(fields)
            if spec.words is not None:
                named.update(spec.words(fields, ctx))
            out.extend(fmt.format(template, **named).split("\n"))
        return out


def fallback(code: int, values: Sequence[int]) -> str:
    """The line of a trace row nobody has words for: its code and raw fields."""
    return f"  [trace code {code}: {' '.join(str(v) for v in values)}]"
