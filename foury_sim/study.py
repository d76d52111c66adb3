"""Balance studies: parameter sweeps on common dice streams, and paired comparisons.

An experiment file (TOML) names the game, the fixed settings, the swept settings and how many
games each cell plays. Every cell plays the same game indices of the same seed, so cells differ
only by the settings: differences between cells are paired (common random numbers).

Setting keys, in experiment files and in ``compare``:

* ``hero``, ``policy``, ``map``, ``rules`` (a ruleset file);
* ``param.NAME``: a parameter of the policy;
* the game's own options of ``run`` by their names (``GameSpec.options``, e.g. a Dungeon Master's ``dm``, ``dm_param``:
  ``dm = "ruthless"``), checked like their command-line flags (``run_option_settings``);
* any ruleset key, dotted (``round.monster_bonus``) or short when unambiguous (``monster_bonus``).
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import json
import math
import os
import platform
import re
import shlex
import sys
import time
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__, assumptions, provenance, stats
from .config import KERNEL_CORE
from .errors import InputError, Interrupted
from .files import WriteError, atomic_write, clean_temp, save_figure, to_jsonable, write_frame
from .inputs import check_seed
from .lazy import pd
from .outputs import MEAN, RATE
from .registry import DEFAULT_GAME, GameSpec, get_game
from .rulesfile import locate_key, toml_error
from .runner import Progress, play_games

SPECIAL = ("hero", "policy", "map", "rules")

#: Documented size limits (docs/robustness.md, "Results folders, resume and limits"): checked when an
#: experiment file is read, before anything is built or simulated.
MAX_CELLS = 10_000  #: cells of one sweep (product of the axis lengths, or the zip length)
MAX_GAMES = 10_000_000  #: games per cell (games, max_games) when the cell's per-game table is kept (``per_game``)
#: games per cell of a sweep without ``per_game``: a cell streams (``CellStream``: histograms, counts, rows only up
#: to ``FOURY_SIM_KEEP_ROWS_MB``); what still grows is its win bits, 1 bit per game (125 MB at this limit)
MAX_STREAMED_GAMES = 1_000_000_000
#: games per chunk of a streamed sweep cell (one ``play_games`` call each)
CELL_CHUNK = 50_000
#: flipped games kept each way by a streamed ``compare`` (the record shows 50, the replays use the first)
FLIPPED_KEEP = 1000
MAX_NAME = 100  #: characters of a study's name (the results folder's name)
#: characters a study name may not hold (path separators, and what some file systems refuse)
NAME_FORBIDDEN = set('/\\:*?"<>|')
TOP_KEYS = {"name", "title", "description", "game", "seed", "games", "precision", "max_games", "batch", "per_game",
            "mode", "fixed", "sweep", "conf", "report"}


@dataclass
class Experiment:
    """A parsed and validated experiment file."""

    name: str
    game: str
    seed: int
    cells: list[dict[str, Any]]
    swept: list[str]
    fixed: dict[str, Any]
    games: int | None = None
    precision: stats.PrecisionTarget | None = None
    conf: float = 0.95
    per_game: bool = False
    title: str = ""
    description: str = ""
    text: str = ""
    path: str = ""
    rulesets: list[Any] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)
    #: command-line options that changed the experiment, as typed (shell-quoted; repeated in the reproduce and
    #: resume commands: ``sweep_command``)
    cli_args: str = ""
    #: quick-look overrides of the command line (``sweep --games/--heroes/--policies``), in the manifest
    overrides: dict[str, Any] = field(default_factory=dict)
    #: the file's own name, of which a quick look's folder name is made (``quick_name``)
    file_name: str = ""


def _where(path: str, text: str, key: str) -> str:
    line = locate_key(text, key)
    return f"{path}:{line}" if line else path


def _where_value(path: str, text: str, key: str) -> str:
    """``file:line:column`` of the value of ``key`` (just after its ``=``), or ``file:line``, or ``file``."""
    line = locate_key(text, key)
    if not line:
        return path
    raw = text.splitlines()[line - 1]
    eq = raw.find("=")
    if eq < 0:
        return f"{path}:{line}"
    col = eq + 1 + (len(raw[eq + 1:]) - len(raw[eq + 1:].lstrip())) + 1
    return f"{path}:{line}:{col}"


def _seed(v: Any, where: str) -> int:
    try:
        return check_seed(v, where)
    except InputError as e:
        raise InputError(f"seed {e.message}", where) from None


def check_name(name: Any, where: str) -> str:
    """A study's name: a plain folder name under ``--out`` (no path parts, no control characters, not
    hidden, at most ``MAX_NAME`` characters)."""
    if not isinstance(name, str):
        raise InputError(f"name must be a text (a folder name), not {name!r}", where)
    bad = "" if name and name == name.strip() else "empty or with spaces around it"
    if not bad and len(name) > MAX_NAME:
        bad = f"longer than {MAX_NAME} characters"
    elif not bad and name.startswith("."):
        bad = "starting with '.'"
    elif not bad and any(c in NAME_FORBIDDEN for c in name):
        bad = f"holding {next(c for c in name if c in NAME_FORBIDDEN)!r}"
    elif not bad and any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 for c in name):
        bad = "holding control characters"
    if bad:
        shown = name if len(name) <= 40 else name[:37] + "..."
        raise InputError(f"name {shown!r} is not a plain folder name ({bad}); the study is written to "
                         f"OUT/NAME, so use letters, digits, '-', '_' or '.'", where)
    return name


def _count_range(values: Any, key: str, where: str) -> int:
    """The number of values a swept setting gives, computed without building them."""
    if isinstance(values, dict):
        if set(values) != {"range"} or not isinstance(values["range"], list) or len(values["range"]) != 3:
            raise InputError(f"sweep.{key} must be a list or {{ range = [start, stop, step] }}", where)
        a, b, s = values["range"]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (a, b, s)) \
                or s <= 0:
            raise InputError(f"sweep.{key}: range needs finite numbers and a step > 0", where)
        q = (b - a) / s
        if not math.isfinite(q) or q > 1e15:
            raise InputError(f"sweep.{key}: the range gives more than {MAX_CELLS:,} values (the limit of cells "
                             "per sweep)", where)
        return max(int(math.floor(q + 1e-9)) + 1, 0)
    return len(values) if isinstance(values, list) else 1


def _expand(values: Any, key: str, where: str) -> list[Any]:
    """A swept value: a list, or ``{range = [start, stop, step]}`` (stop included)."""
    if isinstance(values, dict):
        if set(values) != {"range"} or not isinstance(values["range"], list) or len(values["range"]) != 3:
            raise InputError(f"sweep.{key} must be a list or {{ range = [start, stop, step] }}", where)
        a, b, s = values["range"]
        n = _count_range(values, key, where)
        out = [a + i * s for i in range(max(n, 0))]
        if all(isinstance(v, int) for v in (a, b, s)):
            out = [int(v) for v in out]
        else:
            out = [round(float(v), 10) for v in out]
        values = out
    if not isinstance(values, list):
        raise InputError(f"sweep.{key} must be a list of values, not {values!r}", where)
    if not values:
        raise InputError(f"sweep.{key} is empty", where)
    return values


def split_settings(settings: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, float]]:
    """(special settings, ruleset overrides, policy parameters) of one cell."""
    special = {k: v for k, v in settings.items() if k in SPECIAL}
    params = {k[6:]: v for k, v in settings.items() if k.startswith("param.")}
    rules = {k: v for k, v in settings.items() if k not in SPECIAL and not k.startswith("param.")}
    return special, rules, params


def run_option_settings(spec: GameSpec, settings: dict[str, Any], where: str = "") -> tuple[dict[str, Any],
                                                                                          dict[str, Any]]:
    """(the game's ``run`` options among ``settings``, checked like their flags and completed with their
    defaults; the other settings). A bad value is one line at ``where`` (default: the setting's name)."""
    known = {o.name: o for o in spec.options if "run" in o.commands}
    given: dict[str, Any] = {}
    for k, v in settings.items():
        if k not in known:
            continue
        opt = known[k]
        if isinstance(v, (dict, list)) or isinstance(v, bool) or (opt.type is str and not isinstance(v, str)):
            raise InputError(f"{k} takes {'a text' if opt.type is str else 'a number'} (the option {opt.flag}), "
                             f"not {v!r}", where or k)
        try:
            given[k] = opt.parse(str(v))
        except InputError as e:
            raise InputError(f"{k} {e.message}", where or k) from None
    options = {o.name: given.get(o.name, o.default) for o in known.values()}
    return options, {k: v for k, v in settings.items() if k not in known}


def label(params: dict[str, Any], keys: list[str]) -> str:
    def show(v: Any) -> str:
        return ",".join(str(x) for x in v) if isinstance(v, list) else str(v)

    return ", ".join(f"{k.split('.')[-1] if k.startswith('param.') else k}={show(params[k])}" for k in keys) or "all"


def check_names(settings: dict[str, Any], where: str = "") -> None:
    """The hero, policy, map and rules of a cell's settings are non-empty texts (None: the default): an empty name
    played the game's default in silence under that name, and a number or a list was a traceback."""
    for k in SPECIAL:
        if settings.get(k) is not None and not (isinstance(settings[k], str) and settings[k].strip()):
            raise InputError(f"setting {k!r} must be a name or a path (a non-empty text), not {settings[k]!r}",
                             where or k)


class CellRunner:
    """Builds rulesets and policies for cells, caching what repeats (maps, rulesets)."""

    def __init__(self, spec: GameSpec):
        self.spec = spec
        self._rules: dict[str, Any] = {}

    def resolve(self, settings: dict[str, Any], where: str = "") -> tuple[Any, str, Any]:
        check_names(settings, where)
        options, settings = run_option_settings(self.spec, settings, where)
        special, rules, params = split_settings(settings)
        key = json.dumps([special.get("rules"), special.get("map"), rules, options], sort_keys=True, default=str)
        if key not in self._rules:
            overrides = {k: v for k, v in rules.items()}
            flags = {o.flag: o.name for o in self.spec.options if "run" in o.commands}
            try:
                self._rules[key] = self.spec.load_ruleset(special.get("rules"), overrides or None, special.get("map"),
                                                          **options)
            except InputError as e:  # an option's fault names the setting (the flag is the command line's)
                raise _named(e, where, flags.get(e.where, e.where)) from None
        rs = self._rules[key]
        try:
            hero = self.spec.check_hero(rs, special.get("hero") or self.spec.default_hero)
            ptxt = ",".join(f"{k}={v}" for k, v in params.items()) or None
            pol = self.spec.policy(special.get("policy") or self.spec.default_policy, ptxt)
        except InputError as e:
            raise _named(e, where, e.where) from None
        return rs, hero, pol


def _named(e: InputError, where: str, fallback: str | None, detail: str = "") -> InputError:
    """An error of a variant's settings, named where a designer finds it: a fault inside a file the settings name
    (a map, a rules file, a policy file: ``FILE:LINE[:COL]``) stays at that place, with the setting that named the
    file (``where``: ``--a``, or the experiment file's line) after the message; any other fault names ``where``
    (else ``fallback``). ``detail`` (e.g. the sweep's cell) follows the message in brackets."""
    if e.where and not e.where.startswith("-") and (re.search(r":\d+(:\d+)?$", e.where)
                                                     or Path(e.where).suffix in (".toml", ".map", ".txt", ".py")):
        said = ", ".join(x for x in (f"named by {where}" if where else "", detail) if x)
        return InputError(f"{e.message} ({said})" if said else e.message, e.where)
    return InputError(f"{e.message} ({detail})" if detail else e.message, where or fallback)


def read_experiment_text(p: Path) -> tuple[dict[str, Any], str]:
    """An experiment file's TOML data and text: UTF-8 (a leading BOM is allowed), not empty; a bad byte is
    refused at ``file:line:column``."""
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read the experiment file: {e.strerror}", str(p)) from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise InputError(f"not UTF-8 text (byte 0x{raw[e.start]:02x}); save the file as UTF-8",
                         f"{p}:{line}:{col}") from None
    if "\x00" in text:
        i = text.index("\x00")
        raise InputError("holds a NUL character (a binary file?)",
                         f"{p}:{text.count(chr(10), 0, i) + 1}:{i - (text.rfind(chr(10), 0, i) + 1) + 1}")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise toml_error(e, text, p) from None
    if not data:
        raise InputError("the experiment file is empty (see experiments/ for examples)", str(p))
    bad = _find_datetime(data)
    if bad is not None:
        line = locate_key(text, bad)
        raise InputError(f"{bad}: a date or time is not a setting (quote it if it is a name)",
                         f"{p}:{line}" if line else str(p))
    return data, text


def _find_datetime(node: Any, key: str = "") -> str | None:
    """The dotted key of the first TOML date/time value in ``node`` (no setting takes one)."""
    import datetime as dt

    if isinstance(node, (dt.date, dt.time)):
        return key or "value"
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, v in items:
        found = _find_datetime(v, f"{key}.{k}" if key and isinstance(node, dict) else (key or str(k)))
        if found is not None:
            return found
    return None


def read_experiment(path: str | Path, top_keys: set[str]) -> tuple[dict[str, Any], str, str, GameSpec]:
    """An experiment file's data, text and path, with its top-level keys and its game checked."""
    p = Path(path)
    if p.is_dir():
        raise InputError("is a folder, not an experiment file (TOML)", str(p))
    if not p.is_file():
        from .inputs import not_a_file

        raise InputError(f"experiment file {str(path)!r} {not_a_file(p)}", "EXPERIMENT")
    data, text = read_experiment_text(p)
    ps = str(p)
    unknown = set(data) - top_keys
    if unknown:
        k = sorted(unknown)[0]
        raise InputError(f"unknown experiment key {k!r} (known: {', '.join(sorted(top_keys))})", _where(ps, text, k))
    game = data.get("game", DEFAULT_GAME)
    if not isinstance(game, str):  # (a list or table: a traceback in the registry's lookup)
        raise InputError(f"game must be a game's name (a text), not {game!r}", _where(ps, text, "game"))
    try:
        spec = get_game(game)
    except InputError as e:
        raise InputError(e.message, _where(ps, text, "game")) from None
    return data, text, ps, spec


#: The quick-look options of ``sweep``: option -> the setting it overrides.
QUICK_AXES = {"--heroes": "hero", "--policies": "policy"}


def _quick_axis(flag: str, values: list[str], fixed: dict[str, Any], sweep: dict[str, Any], mode: str) -> None:
    """Apply ``--heroes``/``--policies`` to the parsed ``[fixed]``/``[sweep]`` tables: a swept axis takes the
    given list instead of the file's; a fixed value is replaced (by one value) or becomes a swept axis (by
    several, grid sweeps only); an experiment with neither is refused (it plays the game's default)."""
    key = QUICK_AXES[flag]
    if not values or any(not v for v in values):
        raise InputError("give one or more names separated by commas, e.g. kael,melyra", flag)
    if key in sweep:
        if mode == "zip":
            raise InputError(f"the experiment zips {key} with its other swept settings (mode = 'zip'); "
                             f"{flag} works with grid sweeps only", flag)
        sweep[key] = list(values)
    elif key in fixed:
        if len(values) == 1:
            fixed[key] = values[0]
        elif mode == "zip":
            raise InputError(f"the experiment fixes {key} and zips its axes (mode = 'zip'); {flag} takes one "
                             "value there", flag)
        else:
            del fixed[key]
            sweep[key] = list(values)
    else:
        raise InputError(f"the experiment has no {key} setting ([sweep] or [fixed]): every cell plays the game's "
                         f"default {key}, so {flag} does not apply; add {key} to the file", flag)


def quick_name(name: str, overrides: dict[str, Any]) -> str:
    """The results folder of a quick look: ``NAME-quick-games1000-heroes-kael+melyra`` (never the full
    study's ``NAME``, so a quick look and the full study never share a folder); a robustness study's
    ``NAME-quick-games200-points8`` (``robust.load_robust``); a quick look at a ``--precision`` (and ``--max-games``,
    ``--batch`` when given) names them too: ``NAME-quick-heroes-kael-precision0.05-maxgames50000``, so that a quick
    look at another precision is not refused as another experiment in the same folder."""
    parts = [name, "quick"]
    for key in ("games", "points"):
        if key in overrides:
            parts.append(f"{key}{overrides[key]}")
    for flag, key in QUICK_AXES.items():
        if key in overrides:
            parts.append(f"{flag[2:]}-{'+'.join(overrides[key])}")
    for key, word in (("precision", "precision"), ("max_games", "maxgames"), ("batch", "batch")):
        if overrides.get(key) is not None:
            parts.append(f"{word}{overrides[key]:g}")
    out = "".join("_" if c in NAME_FORBIDDEN or ord(c) < 32 else c for c in "-".join(parts))
    if len(out) > MAX_NAME:
        digest = hashlib.sha256(out.encode()).hexdigest()[:8]
        out = f"{out[:MAX_NAME - 9]}-{digest}"
    return out


def load_experiment(path: str | Path, *, games: int | None = None, heroes: list[str] | None = None,
                    policies: list[str] | None = None) -> Experiment:
    """Parse and validate an experiment file completely, before anything is simulated.

    ``games``, ``heroes``, ``policies`` (``sweep --games/--heroes/--policies``): a quick look that overrides
    the file (see ``_quick_axis``); its results go to the folder ``quick_name(...)``, not the study's own."""
    p = Path(path)
    data, text, ps, spec = read_experiment(p, TOP_KEYS)
    game = spec.name
    name = check_name(data.get("name", p.stem), _where_value(ps, text, "name") if "name" in data else ps)
    quick_games = games
    most = cell_games_max(data.get("per_game", False) is True)
    if quick_games is not None and not 1 <= quick_games <= most:
        raise InputError(f"must be a whole number between 1 and {most:,} (per cell), not {quick_games}",
                         "--games")
    seed = _seed(data.get("seed", 1), _where_value(ps, text, "seed"))
    for k in ("title", "description"):
        if not isinstance(data.get(k, ""), str):
            raise InputError(f"{k} must be a text", _where_value(ps, text, k))
    if not isinstance(data.get("per_game", False), bool):
        raise InputError("per_game must be true or false", _where_value(ps, text, "per_game"))
    if not isinstance(data.get("report", {}), dict):
        raise InputError("[report] must be a table", _where(ps, text, "report"))
    games = data.get("games")
    conf = data.get("conf", 0.95)
    if not isinstance(conf, (int, float)) or isinstance(conf, bool) or not 0.5 <= conf < 1.0:
        raise InputError("conf must be a confidence level between 0.5 and 1 (e.g. 0.95); it sets every "
                         "interval and test of the study", _where(ps, text, "conf"))
    conf = float(conf)
    precision = None
    if "precision" in data and "games" in data:  # (games was ignored: the cells played until their width)
        raise InputError("games and precision both set: a cell plays either a fixed number of games or until its "
                         "interval is that narrow (max_games bounds it); give one", _where(ps, text, "games"))
    if "precision" in data:
        w = data["precision"]
        if not isinstance(w, (int, float)) or isinstance(w, bool):
            raise InputError(f"precision must be a number (full width of the {100 * conf:g} % interval)",
                             _where(ps, text, "precision"))
        if not math.isfinite(w):
            raise InputError("precision must be a finite number", _where_value(ps, text, "precision"))
        mg = data.get("max_games", 200_000)
        batch = data.get("batch")
        for k, v in (("max_games", mg), ("batch", batch)):
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= most):
                raise InputError(f"{k} must be a whole number between 1 and {most:,}",
                                 _where_value(ps, text, k))
        precision = stats.PrecisionTarget(float(w), conf, max_games=mg, batch=batch)
        try:
            precision.validate(_where(ps, text, "precision"))
        except InputError as e:
            key = "batch" if "batch" in e.message and "batch" in data else "precision"
            raise InputError(e.message, _where(ps, text, key)) from None
    elif games is None:
        games = 10_000
    if games is not None and precision is None and (not isinstance(games, int) or isinstance(games, bool)
                                                    or not 1 <= games <= most):
        raise InputError(f"games must be a whole number between 1 and {most:,} (per cell)",
                         _where_value(ps, text, "games"))
    fixed = data.get("fixed", {})
    sweep = data.get("sweep", {})
    if not isinstance(fixed, dict) or not isinstance(sweep, dict):
        raise InputError("[fixed] and [sweep] must be tables", ps)
    mode = data.get("mode", "grid")
    if mode not in ("grid", "zip"):
        raise InputError(f"mode must be 'grid' or 'zip', not {mode!r}", _where(ps, text, "mode"))
    fixed = _flatten(fixed)
    sweep = _flatten(sweep)
    for k in fixed:
        if k in sweep:  # (the swept values won in silence)
            raise InputError(f"{k} is both fixed and swept: give it in one of [fixed] and [sweep]",
                             _where(ps, text, f"fixed.{k}"))
    overrides: dict[str, Any] = {}
    if quick_games is not None:
        overrides["games"] = quick_games
        games, precision = quick_games, None
    for flag, values in (("--heroes", heroes), ("--policies", policies)):
        if values is not None:
            _quick_axis(flag, values, fixed, sweep, mode)
            overrides[QUICK_AXES[flag]] = list(values)
    swept = list(sweep)
    sizes = [_count_range(sweep[k], k, _where(ps, text, f"sweep.{k}")) for k in swept]
    n_cells = (max(sizes) if mode == "zip" else math.prod(sizes)) if sizes else 1
    if n_cells > MAX_CELLS:
        what = " x ".join(f"{k} {n:,}" for k, n in zip(swept, sizes))
        raise InputError(f"the sweep has {n_cells:,} cells ({what}), more than the limit of {MAX_CELLS:,}; "
                         "split it into several experiments", _where(ps, text, f"sweep.{swept[0]}"))
    values = [_expand(sweep[k], k, _where(ps, text, f"sweep.{k}")) for k in swept]
    if mode == "zip":
        lens = {len(v) for v in values}
        if len(lens) > 1:
            raise InputError(f"mode = 'zip' needs equally long lists, got lengths {sorted(lens)}",
                             _where(ps, text, "mode"))
        combos = list(zip(*values)) if values else [()]
    else:
        combos = list(itertools.product(*values)) if values else [()]
    cells = [dict(fixed) | dict(zip(swept, c)) for c in combos]
    seen_cells: dict[str, int] = {}
    for i, cell in enumerate(cells):  # (two cells of the same settings play the same games twice)
        j = seen_cells.setdefault(json.dumps(cell, sort_keys=True, default=str), i)
        if j != i:
            raise InputError(f"cells {j} and {i} have the same settings ({label(cell, swept)}): a value is listed "
                             "twice", _where(ps, text, f"sweep.{swept[0]}") if swept else ps)
    runner = CellRunner(spec)
    rulesets = []
    for i, cell in enumerate(cells):
        where = _where(ps, text, f"sweep.{swept[0]}") if swept else ps
        for k in cell:
            if k not in SPECIAL and not k.startswith("param.") and isinstance(cell[k], dict):
                raise InputError(f"setting {k!r} has a table value", _where(ps, text, k))
        try:
            rulesets.append(runner.resolve(cell, ""))
        except InputError as e:
            culprit = _culprit(e, cell, swept, fixed)
            loc = _where(ps, text, (f"sweep.{culprit}" if culprit in swept else f"fixed.{culprit}")) if culprit \
                else where
            flag = next((f for f, k in QUICK_AXES.items() if k == culprit and k in overrides), None)
            raise _named(e, flag or loc, None, f"cell {i}: {label(cell, swept)}") from None
    report = data.get("report", {})
    exp = Experiment(name, game, seed, cells, swept, fixed, games, precision, conf, bool(data.get("per_game", False)),
                     data.get("title", name), data.get("description", ""), text, ps, rulesets, report)
    if overrides:
        args = "".join(f" --{k} {v}" if k == "games" else f" --{'heroes' if k == 'hero' else 'policies'} "
                       f"{shlex.quote(','.join(v))}" for k, v in overrides.items())
        exp.name = quick_name(name, overrides)
        exp.overrides = overrides
        exp.file_name = name
        exp.text += f"\n# command line (quick look):{args}\n"
        exp.cli_args = args
    return exp


def set_precision(exp: Experiment, width: float, max_games: int | None = None, batch: int | None = None) -> None:
    """Switch an experiment to sequential sampling (``--precision`` on the command line)."""
    old = exp.precision
    mg = max_games if max_games is not None else (old.max_games if old else 200_000)
    most = cell_games_max(exp.per_game)
    for name, v in (("--max-games", mg), ("--batch", batch)):
        if v is not None and not 1 <= v <= most:
            raise InputError(f"must be between 1 and {most:,}, not {v}", name)
    if not math.isfinite(width):
        raise InputError(f"must be a finite number, not {width}", "--precision")
    target = stats.PrecisionTarget(float(width), exp.conf, max_games=mg, batch=batch)
    target.validate("--batch" if batch is not None and batch < target.min_batch else "--precision")
    exp.precision = target
    exp.games = None
    exp.text += f"\n# command line: --precision {width} --max-games {mg} --batch {target.batch}\n"
    exp.cli_args += f" --precision {width} --max-games {mg} --batch {target.batch}"
    if exp.overrides:  # a quick look: its folder names the precision (another one is another quick look)
        exp.name = quick_name(exp.file_name, {**exp.overrides, "precision": width, "max_games": max_games,
                                              "batch": batch})


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{param = {foe_avoid = 1}}`` -> ``{"param.foe_avoid": 1}``; ``{range = ...}`` stays a value."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and set(v) != {"range"}:
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _culprit(e: InputError, cell: dict[str, Any], swept: list[str], fixed: dict[str, Any]) -> str | None:
    w = f"{e.where or ''} {e.message}"
    # "policy parameter NAME=..." / "unknown policy parameter 'NAME'": its param.NAME key, before the word
    # "policy" matches the policy's own key
    m = re.search(r"policy parameter '?([A-Za-z_]\w*)", e.message)
    if m and f"param.{m[1]}" in cell:
        return f"param.{m[1]}"
    for k in list(cell):
        short = k.split(".")[-1]
        if k in w or short in w:
            return k
    if "hero" in w:
        return "hero" if "hero" in cell else None
    if "policy" in w:
        return "policy" if "policy" in cell else None
    return None


# ------------------------------------------------------------------------------- results --
def cell_games_max(per_game: bool) -> int:
    """Most games of one sweep cell: ``MAX_GAMES`` when the cell's per-game table is kept (``per_game``),
    else ``MAX_STREAMED_GAMES`` (the cell streams)."""
    return MAX_GAMES if per_game else MAX_STREAMED_GAMES


class CellStream:
    """A sweep cell's games merged chunk by chunk (chunks of games 0, 1, ... in order), in memory that does not
    grow with games but for its win bits (1 bit per game): the run summary's ``chunks.Partial`` (histograms of
    the summarised columns, extras; rows only up to ``limit`` bytes, default ``chunks.keep_rows_bytes()``), exact
    histograms of ``hist_columns``, the packed win bits, and the per-game table only when ``keep_table``."""

    def __init__(self, spec: GameSpec, keep_table: bool = False, limit: int | None = None, ruleset: Any = None):
        from .chunks import Partial

        self.spec = spec
        self.ruleset = ruleset  # the board's per-cell numbers are reduced chunk by chunk under it (heat maps)
        self.limit = limit
        self.partial = Partial()
        self.hist: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.frames: list[pd.DataFrame] | None = [] if keep_table else None
        self.n = 0
        self.wins = 0
        self._packed: list[bytes] = []
        self._tail = np.zeros(0, dtype=bool)
        self._bits = True

    def add(self, df: pd.DataFrame, extras: dict[str, np.ndarray] | None = None) -> None:
        """The next games (the table ``play_games`` gives, derived columns added) and their extras."""
        from .chunks import Partial, board_record
        from .outputs import merge_histograms

        board = board_record(self.spec, self.ruleset, df, extras or {}) if self.ruleset is not None else None
        part = Partial.of(self.spec.outputs, df, extras, rows=self.spec.own_entries_need_rows, board=board)
        self.partial = self.partial.merge(part, self.limit)
        for c in hist_columns(self.spec):
            if c in df and pd.api.types.is_integer_dtype(df[c]):
                h = np.unique(np.asarray(df[c].to_numpy(), dtype=np.int64), return_counts=True)
                self.hist[c] = merge_histograms(self.hist[c], h) if c in self.hist else h
        if self._bits and "win" in df and "game" in df:
            order = np.argsort(df["game"].to_numpy(), kind="stable")
            if np.array_equal(df["game"].to_numpy()[order], np.arange(self.n, self.n + len(df))):
                w = np.concatenate([self._tail, df["win"].to_numpy()[order].astype(bool)])
                full = len(w) // 8 * 8
                self._packed.append(np.packbits(w[:full]).tobytes())
                self._tail = w[full:]
            else:
                self._bits = False
        else:
            self._bits = False
        if "win" in df:
            self.wins += int(df["win"].sum())
        if self.frames is not None:
            self.frames.append(df)
        self.n += len(df)

    def win_bits(self) -> str | None:
        """``win_bits`` of the games so far (None when they are not exactly games 0..n-1 with a win column)."""
        import base64

        if not self._bits:
            return None
        return base64.b64encode(b"".join(self._packed) + np.packbits(self._tail).tobytes()).decode("ascii")

    def table(self) -> pd.DataFrame | None:
        """The per-game table (``keep_table`` only)."""
        if self.frames is None:
            return None
        return self.frames[0] if len(self.frames) == 1 else pd.concat(self.frames, ignore_index=True)


def cell_record(spec: GameSpec, i: int, cell: dict[str, Any], swept: list[str], ruleset: Any, df: pd.DataFrame,
                extras: dict[str, np.ndarray], elapsed: float, conf: float = 0.95) -> dict[str, Any]:
    """Everything a report needs about one cell, without the per-game table (every row kept)."""
    stream = CellStream(spec, limit=2**62, ruleset=ruleset)
    stream.add(spec.outputs.add_derived(df), extras)
    return stream_record(spec, i, cell, swept, ruleset, stream, elapsed, conf)


def stream_record(spec: GameSpec, i: int, cell: dict[str, Any], swept: list[str], ruleset: Any,
                  stream: CellStream, elapsed: float, conf: float = 0.95) -> dict[str, Any]:
    """:func:`cell_record` of a streamed cell: the same record, but for the entries that need every game's row
    (the game's own summary entries, the board's ``board_cells``), left out with a note when the cell's rows passed
    ``FOURY_SIM_KEEP_ROWS_MB`` (``summary["warnings"]``, ``board_cells_left_out``)."""
    from .chunks import keep_rows_bytes, summary

    rec: dict[str, Any] = {"cell": i, "label": label(cell, swept), "params": cell, "games": stream.n,
                           "elapsed_s": round(elapsed, 4), "summary": summary(spec, stream.partial, ruleset, conf)}
    why = spec.no_win(ruleset) if spec.no_win is not None else ""
    if why:  # a variant with no victory (GameSpec.no_win): its win rate is no figure (cells_table, the report)
        rec["summary"]["no_win"] = why
    rec["hist"] = {c: {"values": v.tolist(), "counts": k.tolist()} for c, (v, k) in stream.hist.items()}
    rec["conf"] = float(conf)
    bits = stream.win_bits()
    if bits is not None:
        rec["win_bits"] = bits
    if spec.board is not None and stream.partial.board is not None:  # reduced chunk by chunk: no rows needed
        rec["board_cells"] = {"game": spec.name, **stream.partial.board}
    elif spec.board is not None:
        table = stream.partial.table()
        if table is None:
            rec["board_cells_left_out"] = (
                f"the board's heat maps need every game's row; this cell of {stream.n:,} games "
                f"kept them only up to {keep_rows_bytes() >> 20} MB (FOURY_SIM_KEEP_ROWS_MB)")
        else:
            per_cell = spec.board.cell_record(ruleset, table, stream.partial.extras)
            if per_cell is not None:
                rec["board_cells"] = {"game": spec.name, **per_cell}
    if "board_cells" in rec:  # (a shipped map by its name, a project's file relative to it: no checkout's folder)
        from .files import portable_board_cells

        rec["board_cells"] = portable_board_cells(rec["board_cells"], spec.board.builtin())
    return rec


def hist_columns(spec: GameSpec) -> list[str]:
    """Columns whose per-game histogram a cell record keeps (integer ones only): the means, the distributions
    and the columns of the figures the game declares (``spec.outputs``)."""
    o = spec.outputs
    cols = [*o.mean_columns, *(c.name for c in o.columns if c.distribution), *(col for _, col in o.figures)]
    return list(dict.fromkeys(cols))


def win_bits(df: pd.DataFrame) -> str | None:
    """The per-game wins of a cell, game index 0..n-1 in order, as base64 of ``numpy.packbits``.

    A few kB per cell (5 kB for 40,000 games); the report's paired tests and pooled intervals need
    them, because cells share game indices. None when the games are not exactly 0..n-1.
    """
    if "win" not in df or "game" not in df:
        return None
    order = np.argsort(df["game"].to_numpy(), kind="stable")
    games = df["game"].to_numpy()[order]
    if not np.array_equal(games, np.arange(len(df))):
        return None
    return pack_win_bits(df["win"].to_numpy()[order])


def pack_win_bits(wins: np.ndarray) -> str:
    """The text of :func:`win_bits` for the 0/1 wins of games 0..n-1 (in game order)."""
    import base64

    return base64.b64encode(np.packbits(np.asarray(wins).astype(bool)).tobytes()).decode("ascii")


def read_win_bits(text: str, n: int) -> np.ndarray:
    """Inverse of :func:`win_bits`: the 0/1 wins (int8) of games 0..n-1."""
    import base64

    raw = np.frombuffer(base64.b64decode(text), dtype=np.uint8)
    return np.unpackbits(raw, count=n).astype(np.int8)


def cells_table(records: list[dict[str, Any]], swept: list[str], spec: GameSpec) -> pd.DataFrame:
    rows = []
    for r in records:
        s = r["summary"]
        row: dict[str, Any] = {"cell": r["cell"], "label": r["label"]}
        for k in swept:
            v = r["params"][k]
            row[k] = ",".join(str(x) for x in v) if isinstance(v, list) else v
        row.update({"games": r["games"], "wins": int(round(s["win"]["rate"] * s["win"]["n"])),
                    "win_rate": s["win"]["rate"], "win_lo": s["win"]["lo"], "win_hi": s["win"]["hi"],
                    "conf": s["win"].get("conf", r.get("conf", 0.95))})
        for c in spec.outputs.of(RATE):  # the game's other rates (declared in its outputs)
            v = s.get(c.summary_key)
            if c.summary_key != "win" and isinstance(v, dict) and "rate" in v:
                row[f"{c.summary_key}_rate"] = v["rate"]
        for c in spec.outputs.of(MEAN):
            v = s.get(c.summary_key)
            if isinstance(v, dict) and "mean" in v:
                row[f"{c.name}_mean"] = v["mean"]
                row[f"{c.name}_lo"] = v["mean_lo"]
                row[f"{c.name}_hi"] = v["mean_hi"]
        rows.append(row)
    if any(r["summary"].get("no_win") for r in records):  # cells without a victory say so (GameSpec.no_win)
        for row, r in zip(rows, records):
            row["no_win"] = r["summary"].get("no_win", "")
    return pd.DataFrame(rows)


def git_commit() -> str | None:
    """The package's git commit (``provenance.git_commit``: ``+dirty`` when tracked files were changed)."""
    return provenance.git_commit()


# ------------------------------------------------------------------- results folders --
#: the keys every study manifest holds (a manifest without them is damaged or foreign)
MANIFEST_KEYS = ("name", "game", "experiment_text")
LOCK_NAME = ".lock"


def _file_digest(value: Any) -> tuple[str, str] | None:
    """(path, sha256 of its bytes) when a setting names an existing file (``FILE.py:FUNCTION`` too)."""
    if not isinstance(value, str) or not value:
        return None
    path = value.split(".py:", 1)[0] + ".py" if ".py:" in value else value
    p = Path(path)
    try:
        if p.is_file():
            return str(p), hashlib.sha256(p.read_bytes()).hexdigest()
    except OSError:
        return None
    return None


def input_files(cells: list[dict[str, Any]], game: str | None = None, rulesets: Iterable[Any] = ()) -> dict[str, str]:
    """The user files the cells read (rules, maps, policies; with ``game``, those its own options name, as a second
    side's policy file or a campaign file, and those a ruleset key of the cells' ``rulesets`` named, as a map a rules
    file names: ``GameSpec.files_read``): path -> sha256 of its contents."""
    keys = (*SPECIAL, *provenance.game_option_keys(game))
    named = [cell.get(k) for cell in cells for k in keys]
    rulesets = list(rulesets)
    if game and rulesets:
        spec = get_game(game)
        named += [path for rs in rulesets for path in spec.read_files(rs).values()]
    out: dict[str, str] = {}
    for value in named:
        d = _file_digest(value)
        if d:
            out[d[0]] = d[1]
    return out


#: Shared modules outside the kernels that still make a run's numbers: the chunks of games and their streamed
#: summary, the per-game outputs and summary entries, the intervals, the run itself, the rules files' reading and
#: user policies (``code_version`` hashes them with ``config.KERNEL_CORE`` and the game's package; kept here, not in
#: config.py, which is itself kernel core: an edit there would move every kernel's cache key).
NUMBERS_CORE = ("chunks.py", "outputs.py", "stats.py", "runner.py", "rulesfile.py", "userpolicy.py")


def code_files(game: str) -> list[Path]:
    """The files whose contents make a game's numbers: its package's code and data, then the shared modules the
    kernels are built from (``config.KERNEL_CORE``) and those that chunk, summarise and read rules
    (``NUMBERS_CORE``)."""
    spec = get_game(game)
    pkg = Path(__file__).resolve().parent
    root = pkg / "games" / spec.name
    files = []
    if root.is_dir():
        files = [f for f in sorted(root.rglob("*"))
                 if f.is_file() and f.suffix in (".py", ".toml", ".txt", ".json") and "__pycache__" not in f.parts]
    return files + [pkg / f for f in (*KERNEL_CORE, *NUMBERS_CORE)]


def code_version(game: str) -> str:
    """A hash of the package version and of every file that makes the game's numbers (``code_files``): a
    change to the shared summary or dice code moves it as a change to the game's rules does."""
    h = hashlib.sha256(__version__.encode())
    pkg = Path(__file__).resolve().parent
    for f in code_files(game):
        h.update(f.relative_to(pkg).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def experiment_id(kind: str, normalised: dict[str, Any], files: dict[str, str]) -> str:
    """The identity of an experiment: a hash of everything that changes its numbers (the normalised
    experiment and the contents of the files it reads)."""
    blob = json.dumps({"kind": kind, "experiment": to_jsonable(normalised), "files": files}, sort_keys=True,
                      default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def read_manifest(path: Path) -> dict[str, Any]:
    """A results folder's manifest; a damaged one (empty, truncated, not JSON, missing keys) is refused."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read the manifest: {e.strerror}", str(path)) from None
    try:
        m = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        what = "empty" if not raw.strip() else f"not valid JSON ({str(e).split(':')[0]})"
        raise InputError(f"the manifest is damaged ({what}); delete the results folder {str(path.parent)!r} and "
                         "run again", str(path)) from None
    if not isinstance(m, dict) or any(k not in m for k in MANIFEST_KEYS):
        miss = next((k for k in MANIFEST_KEYS if not isinstance(m, dict) or k not in m), "?")
        raise InputError(f"the manifest is damaged (no {miss!r}); delete the results folder {str(path.parent)!r} "
                         "and run again", str(path))
    return m


class FolderLock:
    """An exclusive lock on a results folder while a run writes it: ``OUT/NAME/.lock`` holding the writer's pid,
    made whole and then linked into place (``os.link`` fails when the lock exists; a file system without hard
    links: ``O_EXCL``, the pid written after). A lock whose process is gone (a crash, kill -9) is stale and taken
    over; a live one refuses the second run in one line."""

    def __init__(self, folder: Path):
        self.path = folder / LOCK_NAME
        self.held = False
        self._seen: str | None = None

    def __enter__(self) -> FolderLock:
        for _ in range(5):
            if self._create():
                self.held = True
                return self
            pid = self._owner()
            if pid is not None and (pid == 0 or _alive(pid)):
                who = "another run" if pid == 0 else f"another run (pid {pid})"
                raise InputError(f"{who} is writing this results folder; wait for it to finish, or delete "
                                 f"{str(self.path)!r} if that process is gone", str(self.path.parent)) from None
            self._take_over()
        raise InputError("cannot take the lock of this results folder", str(self.path))

    def _create(self) -> bool:
        """Create the lock with this process's pid in it; False when a lock is there already."""
        text = f"{os.getpid()}\n{platform.node()}\n"
        whole = self.path.with_name(f"{LOCK_NAME}.{os.getpid()}.new")
        try:
            whole.write_text(text)
            try:
                os.link(whole, self.path)
                return True
            except FileExistsError:
                return False
            except OSError:  # no hard links here (some network or FAT file systems)
                pass
        except OSError as e:
            raise WriteError(f"cannot create the lock file: {e.strerror}", str(self.path)) from None
        finally:
            whole.unlink(missing_ok=True)
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        except OSError as e:
            raise WriteError(f"cannot create the lock file: {e.strerror}", str(self.path)) from None
        with os.fdopen(fd, "w") as f:
            f.write(text)
        return True

    def _take_over(self) -> None:
        """Remove the stale lock ``_owner`` read (its process gone; or unreadable, or empty and old). It is moved
        aside first (one run's rename wins); a lock moved aside that is not the one read (another run took over in
        between and made its own) is put back."""
        aside = self.path.with_name(f"{LOCK_NAME}.{os.getpid()}.stale")
        try:
            os.rename(self.path, aside)
        except FileNotFoundError:  # another run took it over first
            return
        except OSError as e:
            raise WriteError(f"cannot take over a stale lock: {e.strerror}", str(self.path)) from None
        try:
            if self._seen is not None and aside.read_text(errors="replace") != self._seen:
                try:
                    os.link(aside, self.path)  # another run's live lock: back in place
                except OSError:
                    pass
        except OSError:
            pass
        finally:
            aside.unlink(missing_ok=True)

    def _owner(self) -> int | None:
        """The pid in the lock (kept as read in ``_seen``); 0 for a lock being written (empty and younger than
        10 s: live, its pid not known yet); None when it is stale whatever its process (empty and old, unreadable)."""
        try:
            self._seen = self.path.read_text(errors="replace")
        except OSError:
            self._seen = None
            return None
        txt = self._seen.split()
        if not txt:
            # being written right now (a file system without hard links), or left empty by a crash
            try:
                return 0 if time.time() - self.path.stat().st_mtime < 10 else None
            except OSError:
                return None
        try:
            pid = int(txt[0])
        except ValueError:
            return None
        if len(txt) > 1 and txt[1] != platform.node():
            return pid  # another machine's run (shared folder): cannot check, assume live
        return pid

    def __exit__(self, *exc: Any) -> None:
        if self.held:
            try:
                self.path.unlink()
            except OSError:
                pass
            self.held = False


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError as e:
        return e.errno != errno.ESRCH
    return True


def open_results(out_root: str | Path, name: str) -> Path:
    """``OUT/NAME``, created if needed, after checking it is ours to write: it must be empty, or hold the
    results of this same experiment (same identity). Call with the folder's lock held."""
    out = Path(out_root) / name
    root = Path(out_root)
    if root.exists() and not root.is_dir():
        raise InputError(f"{str(root)!r} is a file, not a folder", "--out")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(f"{str(out)!r} is a file, not a folder; give another --out or name", "--out") from None
    except OSError as e:
        raise WriteError(f"cannot create the results folder: {e.strerror}", str(out)) from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise WriteError("cannot write the results folder: permission denied", str(out))
    return out


def _leftover(p: Path) -> bool:
    """Whether ``p`` is what a run interrupted before it wrote its manifest leaves behind: the lock, a temporary
    file of an atomic write (``.NAME.tmpPID``), or a folder holding only such things (the empty ``cells/`` a
    sweep makes first)."""
    if p.name == LOCK_NAME or (p.name.startswith(".") and ".tmp" in p.name):
        return True
    try:
        return p.is_dir() and all(_leftover(q) for q in p.iterdir())
    except OSError:
        return False


def check_owner(out: Path, kind: str, ident: str, exp_path: str, text: str) -> dict[str, Any] | None:
    """The folder's manifest if it holds this experiment's results; None if it holds nothing yet. A
    different experiment's results (or files that are no study's results) are refused in one line."""
    manifest_path = out / "manifest.json"
    if not manifest_path.exists():  # (what a run interrupted before its manifest leaves is nothing: _leftover)
        others = [p.name for p in out.iterdir() if not _leftover(p)]
        if others:
            raise InputError(f"the folder holds files that are no study's results ({', '.join(sorted(others)[:3])}"
                             "); give another name or --out", str(out))
        return None
    old = read_manifest(manifest_path)
    old_kind = old.get("kind", "sweep")
    same = old.get("experiment_id") == ident if "experiment_id" in old else old.get("experiment_text") == text
    if old_kind != kind or not same:
        src = old.get("experiment_path") or "?"
        raise InputError(f"the folder holds the results of another experiment ({old_kind} of {src}, "
                         f"id {old.get('experiment_id', 'unknown')}); this one ({kind} of {exp_path}, id {ident}) "
                         "would mix with them: give it another name or --out, or delete the folder to replace "
                         "them", str(out))
    return old


def _warn(message: str) -> None:
    print(f"foury-sim: warning: {message}", file=sys.stderr, flush=True)


def say(message: str) -> None:
    """What a long verb is doing now (after its progress bar): one line on stderr."""
    print(f"foury-sim: {message}", file=sys.stderr, flush=True)


CELL_KEYS = ("cell", "label", "params", "games", "summary", "elapsed_s")


def _read_cell(f: Path, exp: Experiment) -> dict[str, Any] | None:
    """A cell record written by an earlier run, or None (with a warning) if it is damaged."""
    try:
        i = int(f.stem.split("_", 1)[1])
        rec = json.loads(f.read_text(encoding="utf-8"))
        if not isinstance(rec, dict) or any(k not in rec for k in CELL_KEYS):
            raise ValueError("missing keys")
        if rec["cell"] != i or not 0 <= i < len(exp.cells):
            raise ValueError("wrong cell number")
        if not isinstance(rec["summary"], dict) or not isinstance(rec["summary"].get("win"), dict):
            raise ValueError("no win summary")
        if exp.per_game:
            pq = f.with_suffix(".parquet")
            if not pq.is_file():
                raise ValueError("its per-game table is missing")
            pd.read_parquet(pq, columns=["win"])
    except (OSError, ValueError, IndexError, UnicodeDecodeError, TypeError) as e:
        reason = "empty" if f.exists() and f.stat().st_size == 0 else str(e).split("\n")[0][:80] or "unreadable"
        _warn(f"{f}: damaged cell file ({reason}); recomputing that cell")
        for g in (f, f.with_suffix(".parquet")):
            try:
                g.unlink()
            except OSError:
                pass
        return None
    return rec


def sweep_command(exp: Experiment, *extra: str) -> str:
    """The ``foury-sim sweep`` command of ``exp`` as it would be typed again: its file, ``extra`` (``--resume --out
    OUT``) and the command-line options that changed its cells (a quick look's ``--games``/``--heroes``/
    ``--policies``, ``--precision``/``--max-games``/``--batch``). Without ``extra``: the command that reproduces its
    cells (where they go, ``--out``, and how many threads play them change no number)."""
    return provenance.command("sweep", str(exp.path), [*extra, *shlex.split(exp.cli_args)])


def _sweep_normalised(exp: Experiment) -> dict[str, Any]:
    return {"game": exp.game, "seed": exp.seed, "cells": exp.cells, "swept": exp.swept, "games": exp.games,
            "conf": exp.conf, "per_game": exp.per_game,
            "precision": None if exp.precision is None else [exp.precision.width, exp.precision.conf,
                                                             exp.precision.max_games, exp.precision.batch]}


def run_sweep(exp: Experiment | str | Path, out_root: str | Path = "results", *, resume: bool = False,
              progress: bool | None = None, threads: int | None = None, report: bool = True,
              executor: Any = None) -> Path:
    """Run every cell (on the same game streams) and write ``out_root/NAME/``; returns that folder.
    ``executor``: where the games are played (``runner.executing``; None: this process).

    Each cell is written atomically as it completes; ``resume`` skips cells already written
    (they hold exactly the numbers an uninterrupted run gives) and recomputes damaged ones. The folder
    belongs to one experiment (``experiment_id`` in the manifest) and is locked while the run writes.
    """
    if not isinstance(exp, Experiment):
        exp = load_experiment(exp)
    files = input_files(exp.cells, exp.game, [r[0] for r in exp.rulesets])
    ident = experiment_id("sweep", _sweep_normalised(exp), files)
    cmd = sweep_command(exp, "--resume", "--out", str(out_root))
    out = open_results(out_root, exp.name)
    from .runner import executing

    with FolderLock(out), executing(executor):
        return _run_sweep_locked(exp, out, ident, files, cmd, resume, progress, threads, report)


def _run_sweep_locked(exp: Experiment, out: Path, ident: str, files: dict[str, str], cmd: str, resume: bool,
                      progress: bool | None, threads: int | None, report: bool) -> Path:
    from .runner import numba_threads

    spec = get_game(exp.game)
    old = check_owner(out, "sweep", ident, exp.path, exp.text)
    code = code_version(exp.game)
    if resume and old is not None and old.get("code_version", code) != code:
        raise InputError("the rules code changed since those cells were computed (code version "
                         f"{old.get('code_version')} -> {code}); run without --resume", str(out))
    clean_temp(out)
    cdir = out / "cells"
    manifest_path = out / "manifest.json"
    try:
        cdir.mkdir(exist_ok=True)
    except OSError as e:
        raise WriteError(f"cannot create the cells folder: {e.strerror}", str(cdir)) from None
    if not resume:
        for f in cdir.glob("cell_*"):
            f.unlink()
    t_start = time.time()
    manifest = {
        "kind": "sweep", "experiment_id": ident, "code_version": code, "input_files": files,
        "name": exp.name, "title": exp.title, "description": exp.description, "game": exp.game, "seed": exp.seed,
        "swept": exp.swept, "fixed": exp.fixed, "cells": exp.cells, "games": exp.games, "conf": exp.conf,
        "precision": None if exp.precision is None else {"width": exp.precision.width, "conf": exp.precision.conf,
                                                          "max_games": exp.precision.max_games,
                                                          "batch": exp.precision.batch},
        "package_version": __version__, "git_commit": git_commit(), "python": platform.python_version(),
        "numba": _numba_version(), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "experiment_text": exp.text,
        "experiment_path": exp.path, "report": exp.report, "overrides": exp.overrides,
        "command": sweep_command(exp), "assumptions": assumptions.across_cells([r[0] for r in exp.rulesets],
                                                                                  [r[1] for r in exp.rulesets]),
    }
    atomic_write(manifest_path, json.dumps(to_jsonable(manifest), indent=2))
    records: dict[int, dict[str, Any]] = {}
    if resume:
        for f in sorted(cdir.glob("cell_*.json")):
            rec = _read_cell(f, exp)
            if rec is not None:
                records[int(rec["cell"])] = rec
    todo = [i for i in range(len(exp.cells)) if i not in records]
    if records and progress is not False:  # (a resumed sweep printed what a fresh one prints: nothing said so)
        say(f"resumed: {len(records)} of {len(exp.cells)} cells were written before in {out}; playing the other "
            f"{len(todo)}")
    per_cell = exp.games if exp.precision is None else exp.precision.max_games
    bar = Progress(per_cell * len(todo), label="games (all cells)", enabled=progress) if progress is not False \
        else None

    def kept() -> str:
        n = sum(1 for _ in cdir.glob("cell_*.json"))
        return f"{n} of {len(exp.cells)} cells written to {out}"

    try:
        with numba_threads(threads):
            if exp.precision is None:
                for i in todo:
                    records[i] = _run_cell(spec, exp, i, 0, exp.games, bar, cdir)
            else:
                _run_adaptive(spec, exp, todo, records, bar, cdir)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        raise Interrupted(f"{kept()}; resume with: {cmd}") from None
    except WriteError as e:
        if bar is not None:
            bar.close()
        clean_temp(out)
        err = WriteError(f"{e.message}; {kept()}: free space, then resume with: {cmd}", e.where)
        # (the cells computed, the CLI prints them all the same)
        err.result = cells_table([records[i] for i in sorted(records)], exp.swept, spec) if records else None
        raise err from None
    finally:
        if bar is not None:
            bar.close()  # also after any other error (closing twice is harmless)
    table = cells_table([records[i] for i in sorted(records)], exp.swept, spec)
    try:
        write_frame(table, out / "cells.parquet", made=study_made(exp, ident))
        write_frame(table, out / "cells.csv")
        manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        manifest["elapsed_s"] = round(time.time() - t_start, 3)
        manifest["cell_elapsed_s"] = {str(i): records[i]["elapsed_s"] for i in sorted(records)}
        atomic_write(manifest_path, json.dumps(to_jsonable(manifest), indent=2))
        if report:
            from .report import build_report

            if progress is not False:
                say(f"building the report (figures, report.md, report.html) in {out} ...")
            t0 = time.perf_counter()
            written = build_report(out, threads=threads)
            if progress is not False:
                n_fig = sum(1 for p in written if p.suffix == ".png")
                say(f"report built: {n_fig} figure{'s' * (n_fig != 1)}, report.md and report.html "
                    f"({time.perf_counter() - t0:.1f} s)")
    except WriteError as e:
        clean_temp(out)
        err = WriteError(f"{e.message}; all {len(exp.cells)} cells are kept in {out}: free space, then "
                         f"finish with: {cmd}", e.where)
        err.result = table  # (every cell computed: the CLI prints their table all the same)
        raise err from None
    clean_temp(out)
    return out


def _numba_version() -> str:
    import numba

    return numba.__version__


def _cell_fault(e: InputError, exp: Experiment, i: int) -> InputError:
    """A fault found while cell ``i`` plays (a user policy's answers, said at ``--policy``, a DM policy's at
    ``--dm``: options a sweep does not have), named at the experiment's line of the setting that chose it, with the
    cell."""
    if not (e.where or "").startswith("-"):
        return e
    cell = exp.cells[i]
    culprit = _culprit(e, cell, exp.swept, exp.fixed)
    loc = _where(exp.path, exp.text, f"sweep.{culprit}" if culprit in exp.swept else f"fixed.{culprit}") \
        if culprit else exp.path
    return _named(e, loc, None, f"cell {i}: {label(cell, exp.swept)}")


def _run_cell(spec: GameSpec, exp: Experiment, i: int, start: int, count: int, bar: Progress | None,
              cdir: Path) -> dict[str, Any]:
    rs, hero, pol = exp.rulesets[i]
    t0 = time.perf_counter()
    stream = CellStream(spec, keep_table=exp.per_game, ruleset=rs)
    for s in range(start, start + count, CELL_CHUNK):
        try:
            df, extras = play_games(spec, rs, hero, pol, exp.seed, s, min(CELL_CHUNK, start + count - s), bar)
        except InputError as e:
            raise _cell_fault(e, exp, i) from None
        stream.add(df, extras)
    rec = stream_record(spec, i, exp.cells[i], exp.swept, rs, stream, time.perf_counter() - t0, exp.conf)
    _write_cell(rec, stream.table(), cdir, spec.outputs, rs, study_made(exp))
    return rec


def study_made(exp: Experiment, ident: str | None = None) -> dict[str, Any]:
    """How a sweep's tables were made (kept in its parquet files: ``files.write_frame``'s ``made``): the study, its
    game, seed, games, level, file, overrides, the command that reproduces it, version and commit (``manifest.json``
    says the rest)."""
    out = {"kind": "sweep", "name": exp.name, "game": exp.game, "seed": exp.seed, "games": exp.games,
           "conf": exp.conf, "experiment_path": exp.path, "overrides": exp.overrides,
           "command": sweep_command(exp), "version": __version__, "git_commit": git_commit()}
    return out if ident is None else {**out, "experiment_id": ident}


def _write_cell(rec: dict[str, Any], df: pd.DataFrame | None, cdir: Path, outputs: Any = None,
                ruleset: Any = None, made: dict[str, Any] | None = None) -> None:
    if df is not None:  # per-game table with readable labels (Outputs.labelled)
        write_frame(df, cdir / f"cell_{rec['cell']:04d}.parquet", outputs=outputs, ruleset=ruleset,
                    made=None if made is None else {**made, "cell": rec["cell"], "params": rec["params"]})
    atomic_write(cdir / f"cell_{rec['cell']:04d}.json", json.dumps(to_jsonable(rec)))


def _run_adaptive(spec: GameSpec, exp: Experiment, todo: list[int], records: dict[int, dict[str, Any]],
                  bar: Progress | None, cdir: Path) -> None:
    """Add batches to the cells whose interval is still too wide; decided cells stop early."""
    target = exp.precision
    assert target is not None
    streams = {i: CellStream(spec, keep_table=exp.per_game, ruleset=exp.rulesets[i][0]) for i in todo}
    elapsed = {i: 0.0 for i in todo}
    active = list(todo)
    while active:
        for i in active:
            rs, hero, pol = exp.rulesets[i]
            st = streams[i]
            step = target.next_batch(st.n)
            t0 = time.perf_counter()
            for s in range(st.n, st.n + step, CELL_CHUNK):
                try:
                    df, ex = play_games(spec, rs, hero, pol, exp.seed, s, min(CELL_CHUNK, st.n + step - s), bar)
                except InputError as e:
                    raise _cell_fault(e, exp, i) from None
                st.add(df, ex)
            elapsed[i] += time.perf_counter() - t0
        still = []
        for i in active:
            st = streams[i]
            if target.done(st.wins, st.n):
                streams.pop(i)
                rs = exp.rulesets[i][0]
                rec = stream_record(spec, i, exp.cells[i], exp.swept, rs, st, elapsed[i], target.conf)
                _write_cell(rec, st.table(), cdir, spec.outputs, rs, study_made(exp))
                records[i] = rec
                if bar is not None:
                    bar.update(target.max_games - st.n)  # games this cell no longer needs
            else:
                still.append(i)
        active = still


# ---------------------------------------------------------------------------- comparisons --
def parse_settings(items: list[str] | None, where: str, raw: tuple[str, ...] | set[str] = ()) -> dict[str, Any]:
    """``["hero=kael", "monster_bonus=0,1,2,3"]`` -> settings dict; the keys in ``raw`` (a game's own ``run``
    options, e.g. ``dm_param=spawn_near=0,focus=1``) keep their text as typed."""
    from .rulesfile import _parse_value

    out: dict[str, Any] = {}
    for item in items or []:
        for part in item.split(";"):
            part = part.strip()
            if not part:
                continue
            if "=" not in part:
                raise InputError(f"{part!r} is not KEY=VALUE", where)
            k, v = (s.strip() for s in part.split("=", 1))
            if not k:
                raise InputError(f"{part!r} has no key before '='", where)
            if k in out:  # (the last one won in silence)
                raise InputError(f"{k} is given twice ({out[k]!r} and {v!r}): give it once", where)
            if not v and (k in SPECIAL or k in raw):
                raise InputError(f"{k}= has no value", where)
            out[k] = v if k in SPECIAL or k in raw else _parse_value(v)
    return out


def check_variants(a: dict[str, Any], b: dict[str, Any], fixed: dict[str, Any]) -> None:
    """A comparison's settings are not contradictory: a key ``--fixed`` sets for both variants is not set again by
    one of them (``--fixed hero=kael --a hero=melyra`` ran with melyra and said both were kael)."""
    for k in fixed:
        for flag, v in (("--a", a), ("--b", b)):
            if k in v:
                raise InputError(f"{k} is set by --fixed (for both variants) and by {flag}: set it in one place",
                                 flag)


@dataclass
class Comparison:
    a: dict[str, Any]
    b: dict[str, Any]
    games: int
    seed: int
    win: dict[str, Any]
    outcomes: pd.DataFrame
    #: the per-game tables of the two variants (None when the comparison streamed: ``compare(keep_rows=False)``)
    df_a: pd.DataFrame | None
    df_b: pd.DataFrame | None
    conf: float = 0.95
    #: the assumptions both variants rest on (``overridden_in_cells``: 0 = A, 1 = B)
    assumptions: list[dict[str, Any]] = field(default_factory=list)
    game: str = DEFAULT_GAME
    #: the settings both variants share (``--fixed``); variant A plays ``fixed | a``, B ``fixed | b``
    fixed: dict[str, Any] = field(default_factory=dict)
    #: the user files the variants read (rules, maps, policies): path -> sha256 when compared
    files: dict[str, str] = field(default_factory=dict)
    #: the game's outputs and the two rulesets: the written games_a/b tables carry readable labels
    outputs: Any = None
    rulesets: tuple[Any, Any] = (None, None)
    #: the folders of the per-game parts of A and B written during the comparison (``compare(out=...)``)
    parts: tuple[Path, Path] | None = None
    #: who played A and B: hero, policy and every parameter value (the defaults a variant did not name too)
    players: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
    #: the variants that have no victory (``GameSpec.no_win``): "a" / "b" -> why; then no win rate is compared
    no_win: dict[str, str] = field(default_factory=dict)

    def settings(self, variant: str) -> dict[str, Any]:
        """Every setting of variant ``"a"`` or ``"b"``: the fixed ones, then its own."""
        return dict(self.fixed) | (self.a if variant == "a" else self.b)

    def command(self) -> str:
        """The ``foury-sim compare`` command that plays this comparison again."""
        return compare_command(self.game, self.a, self.b, self.fixed, self.games, self.seed, self.conf)

    def replays(self) -> dict[str, dict[str, Any]]:
        """For the first game flipped each way: its index and the ``foury-sim replay`` command of each
        variant (every setting of that variant: fixed, then its own)."""
        out: dict[str, dict[str, Any]] = {}
        if self.no_win:  # no victory under a variant: no game flips between a win and a loss
            return out
        for key in ("flipped_win_to_loss", "flipped_loss_to_win"):
            flipped = self.win.get(key) or []
            if flipped:
                g = int(flipped[0])
                out[key] = {"game": g, **{v: provenance.replay_command(self.game, self.seed, g, self.settings(v))
                                          for v in ("a", "b")}}
        return out

    def provenance(self) -> dict[str, Any]:
        return {"command": self.command(), "files": self.files, "version": provenance.version(),
                "git_commit": provenance.git_commit()}

    def to_dict(self) -> dict[str, Any]:
        w = {k: v for k, v in self.win.items() if not k.startswith("flipped")}
        return to_jsonable({
            "game": self.game, "a": self.a, "b": self.b, "fixed": self.fixed,
            "settings_a": self.settings("a"), "settings_b": self.settings("b"),
            "played_a": self.players[0], "played_b": self.players[1],
            "games": self.games, "seed": self.seed, "conf": self.conf, "provenance": self.provenance(),
            "multiple_testing": "Holm over the outcomes (p_adjusted); significant means p_adjusted < 1 - conf",
            "win": w,
            "flipped_win_to_loss": self.win["flipped_win_to_loss"][:50],
            "flipped_loss_to_win": self.win["flipped_loss_to_win"][:50],
            "n_flipped_win_to_loss": int(self.win["a_only"]),
            "n_flipped_loss_to_win": int(self.win["b_only"]),
            "replay": self.replays(),
            **({"no_win": self.no_win} if self.no_win else {}),
            "outcomes": self.outcomes.to_dict(orient="records"),
            "assumptions": self.assumptions,
        })


def compare(game: str, a: dict[str, Any], b: dict[str, Any], *, fixed: dict[str, Any] | None = None,
            games: int = 10_000, seed: int = 1, conf: float = 0.95, threads: int | None = None,
            progress: bool | None = None, executor: Any = None, keep_rows: bool = True,
            out: str | Path | None = None, allow_same: bool = True) -> Comparison:
    """Play the same games (same streams) under variants a and b; paired differences b - a. ``executor``: where
    the games are played (``runner.executing``; None: this process). ``allow_same``: False refuses (``InputError``
    at ``--b``) two variants that resolve to the same play (``same_variant``), as ``foury-sim compare`` does; a
    variant compared with itself differs in no game (a check of the pairing).

    The games are played as chunks (``CELL_CHUNK`` games; ``chunks.play_pair``: a chunk under A and under B, in
    one task wherever it plays) reduced to ``chunks.Paired`` partials in chunk order: win counts, the first
    ``FLIPPED_KEEP`` flipped games each way, and per numeric outcome the sums of a, b, d and d² (exact integers for
    integer outcomes), so memory does not grow with games. The statistics come from those sums whether or not the
    per-game tables are kept: a kept and a streamed comparison give the same numbers. ``keep_rows``: the per-game
    tables are kept (``df_a``, ``df_b``); ``out``: they are written chunk by chunk as parquet parts in
    ``out/games_a.parquet/`` and ``out/games_b.parquet/`` (``Comparison.parts``) instead.

    One row per outcome (win rate: Newcombe interval and exact McNemar test; numeric outcomes: paired
    t). The outcomes form one family of tests: ``p_adjusted`` is Holm's adjustment over all of them,
    and ``significant`` means ``p_adjusted < 1 - conf`` (for the win rate the interval must also
    exclude 0), so the chance of any false "significant" among the outcomes stays below 1 - conf.
    """
    import functools

    from . import chunks as ch
    from .runner import KERNEL_BATCH, PROGRESS_BATCH, numba_threads

    spec = get_game(game)
    if games < 2:
        raise InputError(f"must be at least 2, not {games}", "--games")
    runner = CellRunner(spec)
    fixed = fixed or {}
    check_variants(a, b, fixed)
    va, vb = dict(fixed) | a, dict(fixed) | b
    try:
        ra = runner.resolve(va, "--a")
    except InputError as e:  # a fault of the shared settings is --fixed's, when they alone have it too
        if fixed and e.where == "--a":
            try:
                runner.resolve(dict(fixed), "--fixed")
            except InputError as alone:
                if alone.message == e.message:
                    raise alone from None
        raise
    rb = runner.resolve(vb, "--b")
    if not allow_same and same_variant(ra, rb):
        raise InputError(f"--a and --b give the same variant (hero {ra[1]}, policy {ra[2].name} with the same "
                         "parameters, the same rules): every game would be played the same under both; change --a "
                         "or --b", "--b")
    conf = float(conf)
    if not 0.5 <= conf < 1.0:
        raise InputError(f"must be between 0.5 and 1, not {conf}", "--conf")
    bar = Progress(2 * games, enabled=progress) if progress is not False else None
    size = CELL_CHUNK if bar is None or not bar.enabled else min(CELL_CHUNK, max(PROGRESS_BATCH, games // 100))
    plan = ch.plan_chunks(seed, 0, games, min(size, KERNEL_BATCH))
    columns = tuple(spec.outputs.mean_columns)
    rows_wanted = keep_rows or out is not None
    executor = executor if executor is not None else ch.current_executor()
    pair = functools.partial(ch.play_pair, columns=columns, keep=FLIPPED_KEEP, keep_rows=rows_wanted)
    if executor is None:
        play = functools.partial(pair, functools.partial(ch._play_here, spec, *ra, True, False, None, False),
                                 functools.partial(ch._play_here, spec, *rb, True, False, None, False))
        job_play = None
    else:
        play = None
        job_play = functools.partial(pair, functools.partial(ch.play_chunk, ch.job_of(spec, *ra, summary=False)),
                                     functools.partial(ch.play_chunk, ch.job_of(spec, *rb, summary=False)))
    parts = _comparison_parts(out, plan) if out is not None else None
    frames: list[tuple[pd.DataFrame, pd.DataFrame]] = []
    made = {"game": spec.name, "a": dict(a), "b": dict(b), "fixed": dict(fixed or {}), "games": games, "seed": seed,
            "conf": conf, "command": compare_command(spec.name, a, b, fixed, games, seed, conf),
            "version": provenance.version(), "git_commit": provenance.git_commit()}
    # each variant's table says which variant it holds and every setting it was played with
    made_of = [{**made, "variant": v, "settings": dict(fixed) | own} for v, own in (("a", a), ("b", b))]

    def on_result(r: ch.ChunkResult) -> None:
        if parts is not None:
            for rows, folder, rs, m in zip(r.rows, parts, (ra[0], rb[0]), made_of):
                write_frame(rows, folder / f"part-{r.chunk.start:0{ch.PART_DIGITS}d}.parquet", outputs=spec.outputs,
                            ruleset=rs, made=m)
        if keep_rows:
            frames.append(r.rows)

    try:
        with numba_threads(threads):
            results = ch.stream(spec, ra[0], ra[1], ra[2], plan, executor=executor, progress=bar, play=play,
                                job_play=job_play, weight=2)
            paired = ch.reduce(results, plan, on_result, initial=ch.Paired(FLIPPED_KEEP))
    except InputError as e:  # a user policy's answers (said at --policy, --dm: options compare does not have)
        if not (e.where or "").startswith("-"):
            raise
        named = [flag for flag, r, own in (("--a", ra, a), ("--b", rb, b)) if repr(r[2].name) in e.message
                 or any(str(v) in e.message for v in own.values() if isinstance(v, str) and v)]
        raise _named(e, named[0] if len(named) == 1 else "--fixed" if fixed else "--a", None) from None
    finally:
        if bar is not None:
            bar.close()
    da = db = None
    if keep_rows:
        da = frames[0][0] if len(frames) == 1 else pd.concat([f[0] for f in frames], ignore_index=True)
        db = frames[0][1] if len(frames) == 1 else pd.concat([f[1] for f in frames], ignore_index=True)
    win = paired.win(conf)
    win["flipped_win_to_loss"] = win["flipped_win_to_loss"].tolist()
    win["flipped_loss_to_win"] = win["flipped_loss_to_win"].tolist()
    results = paired.means(conf)
    # a variant with no victory (GameSpec.no_win: a campaign scored otherwise) has no win rate to compare
    no_win = {v: why for v, r in (("a", ra), ("b", rb))
              if spec.no_win is not None and (why := spec.no_win(r[0]))}
    rows = [] if no_win else [{"outcome": "win rate", "a": win["rate_a"], "b": win["rate_b"], "diff": win["diff"],
                               "lo": win["lo"], "hi": win["hi"], "p_value": win["p_value"], "test": "exact McNemar"}]
    for col, d in results.items():
        rows.append({"outcome": col, "a": d["mean_a"], "b": d["mean_b"], "diff": d["diff"], "lo": d["lo"],
                     "hi": d["hi"], "p_value": d["p_value"], "test": "paired t"})
    table = pd.DataFrame(rows)
    table["p_adjusted"] = stats.adjust_pvalues(table["p_value"].to_numpy(float), "holm")
    alpha = 1.0 - conf
    sig = (table["p_adjusted"] < alpha).to_numpy(copy=True)
    if not no_win:
        sig[0] = bool(sig[0] and (win["lo"] > 0.0 or win["hi"] < 0.0))
    table["significant"] = sig
    win["p_adjusted"] = None if no_win else float(table["p_adjusted"].iloc[0])
    win["significant"] = False if no_win else bool(sig[0])
    rests_on = assumptions.across_cells([ra[0], rb[0]], [ra[1], rb[1]])
    return Comparison(a, b, games, seed, win, table, da, db, conf, rests_on,
                      game=spec.name, fixed=dict(fixed), files=input_files([va, vb], spec.name, [ra[0], rb[0]]),
                      outputs=spec.outputs, rulesets=(ra[0], rb[0]), parts=parts, players=(_player(ra), _player(rb)),
                      no_win=no_win)


def same_variant(ra: tuple[Any, str, Any], rb: tuple[Any, str, Any]) -> bool:
    """Whether two resolved variants (``CellRunner.resolve``'s ruleset, hero, policy) play the same games: the same
    ruleset (one ``CellRunner`` gives the same object for the same rules file, map, ruleset settings and game
    options), hero, policy and parameter values. Settings that differ in words only (a ruleset key set to its
    shipped value on one side) count as different."""
    (rs_a, hero_a, pol_a), (rs_b, hero_b, pol_b) = ra, rb
    return (rs_a is rs_b and hero_a == hero_b and pol_a.name == pol_b.name
            and tuple(pol_a.param_names) == tuple(pol_b.param_names)
            and np.array_equal(np.asarray(pol_a.params), np.asarray(pol_b.params)))


def compare_command(game: str, a: dict[str, Any], b: dict[str, Any], fixed: dict[str, Any], games: int, seed: int,
                    conf: float) -> str:
    """The ``foury-sim compare`` command that plays a comparison again."""
    args: list[str] = []
    for flag, settings in (("--a", a), ("--b", b), ("--fixed", fixed)):
        for word in provenance.setting_words(settings, game):
            args += [flag, word]
    args += ["--games", str(games), "--seed", str(seed)]
    args += ["--conf", provenance.number_text(conf)] if conf != 0.95 else []
    return provenance.command("compare", game, args)


def _player(resolved: tuple[Any, str, Any]) -> dict[str, Any]:
    """Who plays a variant (``runner.resolve``'s ruleset, hero, policy): hero, policy and every parameter value."""
    _, hero, pol = resolved
    return {"hero": hero, "policy": pol.name,
            "policy_params": dict(zip(pol.param_names, provenance.map_floats(pol.params)))}


#: The folders of a comparison's per-game parts inside ``--out`` (read as one table each, as a run's games.parquet).
COMPARISON_PARTS = ("games_a.parquet", "games_b.parquet")


def _comparison_parts(out: str | Path, plan: list[Any]) -> tuple[Path, Path]:
    """Empty folders for the per-game parts of variants A and B (whatever stood there before is removed)."""
    import shutil

    from .files import WriteError, clean_temp

    folders = tuple(Path(out) / name for name in COMPARISON_PARTS)
    for f in folders:
        try:
            if f.is_file() or f.is_symlink():
                f.unlink()
            elif f.is_dir():
                shutil.rmtree(f)
            f.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise WriteError(f"cannot prepare the parts folder: {e.strerror}", str(f)) from None
        clean_temp(f)
    return folders[0], folders[1]


def _p(p: float) -> str:
    """A p-value in 8 characters; one too small for a double (it underflows to 0) as ``<1e-300``, not ``0``."""
    return f"{p:8.2g}" if p > 0 else f"{'<1e-300':>8s}"


def _outcome_label(outputs: Any, outcome: str) -> str:
    """An outcome of a comparison as ``run``'s summary names it (``Column.text_label``: ``rounds completed`` for the
    column ``rounds_completed``); ``outcomes.csv`` and ``comparison.json`` keep the column's name."""
    col = outputs.column(outcome) if outputs is not None and outcome != "win rate" else None
    return col.text_label.strip() if col is not None else outcome.replace("_", " ")


def format_comparison(c: Comparison) -> str:
    def show(s: dict[str, Any]) -> str:
        return provenance.describe(s) if s else "(defaults)"

    def played(k: int) -> str:  # the hero and policy a variant played, named even when it left them at their defaults
        p = c.players[k]
        return f"  (played: hero {p['hero']}, policy {p['policy']})" if p else ""

    lvl = f"{100 * c.conf:g} %"
    n_out = len(c.outcomes)
    prov = c.provenance()
    lines = [f"A: {show(c.a)}{played(0)}", f"B: {show(c.b)}{played(1)}",
             f"both (--fixed): {show(c.fixed)}",
             f"{c.games:,} games of {c.game} on the same dice streams (seed {c.seed}); "
             f"differences are B - A, paired {lvl} intervals",
             f"reproduce: {prov['command']}",
             f"made with: {provenance.made_with(prov)}",
             f"p: {'paired t' if c.no_win else 'exact McNemar (win rate) or paired t'}; p adj: Holm over the "
             f"{n_out} outcomes. A difference is "
             f"called significant when p adj < {1 - c.conf:.3g}.",
             ""]
    names = {o: _outcome_label(c.outputs, o) for o in c.outcomes["outcome"]}
    wide = max([18, *map(len, names.values())])
    lines.append(f"{'outcome':{wide}s} {'A':>10s} {'B':>10s} {'B - A':>10s}  {lvl + ' interval':>22s}  {'p':>8s} "
                 f"{'p adj':>8s}")
    for _, r in c.outcomes.iterrows():
        pct = r["outcome"] == "win rate"
        f = (lambda x: f"{100 * x:9.2f}%") if pct else (lambda x: f"{x:10.3f}")
        sig = "significant" if r["significant"] else "not significant"
        lines.append(f"{names[r['outcome']]:{wide}s} {f(r['a'])} {f(r['b'])} {f(r['diff'])}  "
                     f"[{f(r['lo']).strip():>9s}, {f(r['hi']).strip():>9s}]  {_p(r['p_value'])} "
                     f"{_p(r['p_adjusted'])}  {sig}")
    w2l, l2w = c.win["flipped_win_to_loss"], c.win["flipped_loss_to_win"]
    if c.no_win:  # (GameSpec.no_win) no win rate, no game won under one variant and lost under the other
        for v in ("a", "b"):
            if v in c.no_win:
                lines.append(f"win rate of {v.upper()}: none: {c.no_win[v]}")
            elif f"lo_{v}" in c.win:
                rate, lo, hi = (100 * c.win[f"{k}_{v}"] for k in ("rate", "lo", "hi"))
                lines.append(f"win rate of {v.upper()}: {rate:.2f} % [{lo:.2f}, {hi:.2f}] ({lvl} Wilson interval)")
        lines.append("(no win rate compared: a variant has no victory)")
        if c.assumptions:
            lines += [""] + assumptions.summary_lines(c.assumptions)
        return "\n".join(lines)
    if "lo_a" in c.win:
        lines.append(f"win rate of each: A {100 * c.win['rate_a']:.2f} % [{100 * c.win['lo_a']:.2f}, "
                     f"{100 * c.win['hi_a']:.2f}], B {100 * c.win['rate_b']:.2f} % [{100 * c.win['lo_b']:.2f}, "
                     f"{100 * c.win['hi_b']:.2f}] ({lvl} Wilson intervals)")
    lines.append("")
    lines.append(f"games won under A but lost under B: {c.win['a_only']}"
                 + (f" (e.g. {', '.join(map(str, w2l[:8]))})" if w2l else ""))
    lines.append(f"games lost under A but won under B: {c.win['b_only']}"
                 + (f" (e.g. {', '.join(map(str, l2w[:8]))})" if l2w else ""))
    for key, what in (("flipped_win_to_loss", "won under A, lost under B"),
                      ("flipped_loss_to_win", "lost under A, won under B")):
        r = c.replays().get(key)
        if r is not None:
            lines += [f"replay game {r['game']} ({what}):", f"  under A: {r['a']}", f"  under B: {r['b']}"]
    if c.assumptions:
        lines += [""] + assumptions.summary_lines(c.assumptions, cells=["A", "B"])
    return "\n".join(lines)


def comparison_setup(c: Comparison) -> str:
    """What a comparison's figure compares, in three lines: A and B, the settings both share, games, seed,
    level and the game's title."""
    title = get_game(c.game).title
    both = provenance.describe(c.fixed) if c.fixed else "defaults otherwise"
    return (f"A: {provenance.describe(c.a)}    B: {provenance.describe(c.b)}\nboth: {both}\n"
            f"{title}, {c.games:,} games on the same dice (seed {c.seed}), {100 * c.conf:g} % intervals")


def comparison_note(c: Comparison) -> str:
    """How a comparison was made, at its figure's foot (``provenance.figure_note``): game, A and B, the settings both
    share, the policy, seed, games, version and commit."""
    return provenance.figure_note(c.game, fixed=c.fixed, seed=c.seed, made=c.provenance(),
                                  games=f"{c.games:,} games under A and under B, on the same dice",
                                  variants={"A": c.a, "B": c.b})


def write_comparison(c: Comparison, out: str | Path) -> list[Path]:
    out = Path(out)
    paths = [out / "comparison.json", out / "outcomes.csv", out / "games_a.parquet", out / "games_b.parquet"]
    atomic_write(paths[0], json.dumps(c.to_dict(), indent=2))
    t = c.outcomes.copy()
    t.insert(int(t.columns.get_loc("hi")) + 1, "conf", c.conf)  # the level of lo/hi (1 - conf: the Holm level)
    write_frame(t, paths[1])
    if c.parts is not None and all(Path(p).resolve() == q.resolve() for p, q in zip(c.parts, paths[2:])):
        pass  # written chunk by chunk as parquet parts while the games were played
    elif c.df_a is None or c.df_b is None:  # a streamed comparison keeps no per-game tables
        paths = paths[:2]
    else:
        write_frame(c.df_a, paths[2], outputs=c.outputs, ruleset=c.rulesets[0])
        write_frame(c.df_b, paths[3], outputs=c.outputs, ruleset=c.rulesets[1])
    from .figures import made_footer, paired_difference

    fig = paired_difference(c.outcomes, conf=c.conf, setup=comparison_setup(c))
    made_footer(fig, comparison_note(c))
    p = out / "comparison.png"
    save_figure(fig, p, dpi=120)
    paths.append(p)
    return paths
