"""Robustness studies: do a study's conclusions survive the assumptions it rests on?

``foury-sim robust EXPERIMENT.toml`` varies the assumptions a game declares (``[assumptions]`` in its
ruleset, see :mod:`foury_sim.assumptions`), first one at a time (each alternative, each end of each
range) and then jointly at the points of a space-filling design (scipy's Latin hypercube or Sobol
points). Every design point plays the same game indices of the same seed (common dice), so points
differ only by the assumptions. For each conclusion (the ranking of heroes and each pair's order, or
"these settings reach a target win rate") it reports the share of the joint points where the
conclusion holds, and which assumptions move it most: standardized regression coefficients and
Spearman rank correlations of the conclusion's margin on the joint points, and a tornado chart from
the one-at-a-time points.

A conclusion's *margin* is a number that is positive exactly when it holds: for a pair, the win-rate
gap in the order it has at the defaults; for the ranking, the smallest gap between neighbours in
that order; for a target, the win rate minus the target (the target minus the rate for ``at_most``).
"""

from __future__ import annotations

import html
import itertools
import json
import math
import platform
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__, provenance, stats
from . import assumptions as assume
from .chunks import stream_rows
from .errors import InputError, Interrupted, policy_given_at
from .files import WriteError, atomic_write, clean_temp, save_figure, to_jsonable, write_frame
from .lazy import pd
from .registry import get_game
from .rulesfile import locate_key
from .runner import Progress
from .study import (
    CELL_CHUNK,
    MAX_GAMES,
    SPECIAL,
    CellRunner,
    FolderLock,
    _flatten,
    _named,
    _seed,
    _warn,
    _where,
    _where_value,
    check_name,
    check_names,
    check_owner,
    code_version,
    experiment_id,
    git_commit,
    input_files,
    open_results,
    quick_name,
    read_experiment,
    run_option_settings,
    say,
)

#: Documented limits (docs/robustness.md): joint design points, and cell runs (design points x cells)
MAX_POINTS = 10_000
MAX_RUNS = 100_000

TOP_KEYS = {"name", "title", "description", "game", "seed", "games", "points", "design", "vary", "fixed", "factors",
            "conclusions", "conf"}


# ------------------------------------------------------------------------------ factors --
@dataclass
class Factor:
    """One varied input: a number over ``range`` or one of ``levels`` (the default first)."""

    key: str
    default: Any
    levels: list[Any] | None = None
    range: list[float] | None = None
    reason: str = ""

    @property
    def integer(self) -> bool:
        return self.range is not None and all(isinstance(x, int) for x in (*self.range, self.default))

    def value(self, u: float) -> Any:
        """The value at the unit-interval coordinate ``u`` (equal strata per level or per whole number)."""
        if self.levels is not None:
            k = len(self.levels)
            return self.levels[min(int(u * k), k - 1)]
        lo, hi = self.range  # type: ignore[misc]
        if self.integer:
            return int(lo + min(int(u * (hi - lo + 1)), hi - lo))
        return float(lo + u * (hi - lo))

    def code(self, v: Any) -> float:
        """A number for regressions: the value itself, or the level's position (0 = default)."""
        if self.levels is not None:
            return float(next(i for i, x in enumerate(self.levels) if _same(x, v)))
        return float(v)

    def oat(self) -> list[Any]:
        """The one-at-a-time values: each alternative, or both ends of the range (the default left out)."""
        if self.levels is not None:
            return self.levels[1:]
        return [v for v in dict.fromkeys(self.range) if not _same(v, self.default)]  # type: ignore[arg-type]

    def describe(self) -> str:
        if self.levels is not None:
            return " | ".join(assume.show(x, 50) for x in self.levels)
        return f"{self.range[0]:g}..{self.range[1]:g} (default {self.default:g})"  # type: ignore[index]


def _same_number(a: Any, b: Any) -> bool:
    """Two numbers of one value (a policy parameter's 3.0 and an alternative's 3)."""
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)) and a == b


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def factors_from(found: list[assume.Assumption], keys: list[str] | None) -> list[Factor]:
    """Factors for the declared assumptions: ``keys`` (any declared with a range or alternatives), or
    every one marked ``vary`` when ``keys`` is None."""
    by_key = {a.key: a for a in found}
    out = []
    for key in keys if keys is not None else [a.key for a in found if a.vary and a.variable()]:
        a = by_key[key]
        if a.range is not None:
            out.append(Factor(a.key, a.default, None, list(a.range), a.reason))
        else:
            out.append(Factor(a.key, a.default, a.levels(), None, a.reason))
    return out


def design_points(factors: list[Factor], n: int, seed: int, kind: str = "lhs") -> tuple[list[dict], np.ndarray]:
    """Baseline, one-at-a-time and joint points: (list of {kind, factor, values}, unit coordinates of
    the joint points). The joint points depend only on (number of factors, n, seed, kind)."""
    base = {f.key: f.default for f in factors}
    points: list[dict[str, Any]] = [{"kind": "baseline", "factor": "", "values": dict(base)}]
    for f in factors:
        for v in f.oat():
            points.append({"kind": "oat", "factor": f.key, "values": base | {f.key: v}})
    u = unit_design(len(factors), n, seed, kind)
    for row in u:
        points.append({"kind": kind, "factor": "", "values": {f.key: f.value(x) for f, x in zip(factors, row)}})
    return points, u


def unit_design(d: int, n: int, seed: int, kind: str = "lhs") -> np.ndarray:
    """``n`` points in [0, 1)^d: a Latin hypercube or scrambled Sobol points (scipy.stats.qmc)."""
    from scipy.stats import qmc

    if n < 1 or d < 1:
        return np.zeros((0, max(d, 0)))
    if kind == "lhs":
        return qmc.LatinHypercube(d=d, seed=seed).random(n)
    if kind == "sobol":
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # n not a power of 2: balance is slightly worse, still fine
            return qmc.Sobol(d=d, scramble=True, seed=seed).random(n)
    raise InputError(f"design must be 'lhs' or 'sobol', not {kind!r}", "design")


# ---------------------------------------------------------------------------- conclusions --
@dataclass
class Conclusion:
    """``ranking``: the order of the cells ``over = values``; ``target``: ``settings`` reach ``target``."""

    name: str
    kind: str
    cells: list[dict[str, Any]]
    over: str = ""
    values: list[Any] = field(default_factory=list)
    target: float = 0.0
    direction: str = "at_least"


def _cell_key(settings: dict[str, Any]) -> str:
    return json.dumps(settings, sort_keys=True, default=str)


@dataclass
class RobustExperiment:
    name: str
    game: str
    seed: int
    games: int
    points: int
    design: str
    fixed: dict[str, Any]
    factors: list[Factor]
    conclusions: list[Conclusion]
    assumptions: list[dict[str, Any]]
    title: str = ""
    description: str = ""
    conf: float = 0.95
    text: str = ""
    path: str = ""

    def cells(self) -> list[dict[str, Any]]:
        """The distinct cells every design point plays (the union over conclusions)."""
        seen: dict[str, dict[str, Any]] = {}
        for c in self.conclusions:
            for s in c.cells:
                seen.setdefault(_cell_key(s), s)
        return list(seen.values())


def load_robust(path: str | Path, *, games: int | None = None, points: int | None = None) -> RobustExperiment:
    """Parse and validate a robustness experiment file before anything is simulated.

    ``games``, ``points`` (``robust --games/--points``): a quick look where they differ from the file's (its own
    values, as ``robust_command`` writes them, are the full study). Its results go to the folder
    ``study.quick_name(...)`` (``NAME-quick-games200-points8``), never the full study's ``NAME``: they went there,
    where the full study's results refused them (another experiment), or they were taken for the full study's (the
    quick look run first, the folder then refused the full study)."""
    exp = _load_robust(path)
    overrides: dict[str, int] = {}
    for flag, key, value, lo in (("--games", "games", games, 2), ("--points", "points", points, 0)):
        if value is not None:
            if value < lo:
                raise InputError(f"must be at least {lo}, not {value}", flag)
            if value != getattr(exp, key):  # (the file's own value is no quick look: ``robust_command`` gives both)
                setattr(exp, key, value)
                overrides[key] = value
    if overrides:
        exp.name = quick_name(exp.name, overrides)
        exp.text += "\n# command line (quick look):" + "".join(f" --{k} {v}" for k, v in overrides.items()) + "\n"
    return exp


def _load_robust(path: str | Path) -> RobustExperiment:
    """The experiment file as it is (``load_robust``, without a quick look's overrides)."""
    p = Path(path)
    data, text, ps, spec = read_experiment(p, TOP_KEYS)
    game = spec.name

    def where(key: str) -> str:
        line = locate_key(text, key)
        return f"{ps}:{line}" if line else ps

    name = check_name(data.get("name", p.stem), _where_value(ps, text, "name") if "name" in data else ps)
    ints = {"seed": _seed(data.get("seed", 1), _where_value(ps, text, "seed"))}
    for k, default, lo, hi in (("games", 10_000, 2, MAX_GAMES), ("points", 64, 0, MAX_POINTS)):
        v = data.get(k, default)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise InputError(f"{k} must be a whole number between {lo} and {hi:,}", _where_value(ps, text, k))
        ints[k] = v
    for k in ("title", "description"):
        if not isinstance(data.get(k, ""), str):
            raise InputError(f"{k} must be a text", _where_value(ps, text, k))
    design = data.get("design", "lhs")
    if design not in ("lhs", "sobol"):
        raise InputError(f"design must be 'lhs' or 'sobol', not {design!r}", where("design"))
    conf = data.get("conf", 0.95)
    if not isinstance(conf, float) or not 0.5 <= conf < 1:
        raise InputError("conf must be a number between 0.5 and 1", where("conf"))
    fixed = data.get("fixed", {})
    if not isinstance(fixed, dict):
        raise InputError("[fixed] must be a table", where("fixed"))
    fixed = _flatten(fixed)
    check_names(fixed, where("fixed"))
    options, plain = run_option_settings(spec, fixed, where("fixed"))  # e.g. a campaign: its rules and assumptions
    try:
        base_rules = spec.load_ruleset(plain.get("rules"), {k: v for k, v in plain.items()
                                                            if k not in SPECIAL and not k.startswith("param.")} or None,
                                       plain.get("map"), **options)
    except InputError as e:  # a [fixed] setting's fault: its line (it named --set KEY, --map: never given)
        key = (e.where[len("--set "):].split("=", 1)[0] if e.where and e.where.startswith("--set ")
               else {"--map": "map", "--rules": "rules"}.get(e.where or ""))
        raise _named(e, where(f"fixed.{key}") if key and locate_key(text, f"fixed.{key}") else where("fixed"),
                     e.where) from None
    found = assume.of(base_rules)
    vary = data.get("vary", "all")
    declared = {a.key: a for a in found}
    if vary == "all":
        keys = None
    elif isinstance(vary, list) and all(isinstance(k, str) for k in vary):
        for k in vary:
            if k not in declared:
                raise InputError(f"vary names {k!r}, which is not a declared assumption of {game} "
                                 f"(see `foury-sim assumptions {game}`)", where("vary"))
            if not declared[k].variable():
                raise InputError(f"assumption {k!r} has no range or alternatives to vary", where("vary"))
        keys = list(vary)
    else:
        raise InputError('vary must be "all" or a list of assumption keys', where("vary"))
    factors = factors_from(found, keys)
    extra = data.get("factors", {})
    if not isinstance(extra, dict):
        raise InputError("[factors] must be a table of key = [alternatives] or { range = [lo, hi] }", where("factors"))
    places = [f"{ps}:{n}" for n in conclusion_lines(text)]  # (each [[conclusions]] table's line)
    conclusions = _conclusions(data.get("conclusions"), fixed, where, places, conclusion_key_lines(text))
    runner = CellRunner(spec)
    fixed_pol = runner.resolve(fixed, where("fixed"))[2]  # (its policy, its parameters)
    for i, c in enumerate(conclusions):  # each conclusion's cells at the defaults: a fault at its own line
        for cell in c.cells:
            runner.resolve(fixed | cell, places[i] if len(places) == len(conclusions) else where("conclusions"))
    for k, v in extra.items():
        at = where(f"factors.{k}")
        if any(f.key == k for f in factors):
            raise InputError(f"factor {k!r} is already varied as a declared assumption", at)
        setter = next((j for j, c in enumerate(conclusions) if any(k in cell for cell in c.cells)), None)
        if setter is not None:  # (a conclusion's cell sets it over every design point's value: it varied nothing)
            raise InputError(f"factor {k!r} is set by conclusion {setter + 1} (its over or settings), which overrides "
                             "it at every design point: vary another key", at)
        current = factor_default(spec, base_rules, fixed, fixed_pol, k)
        if isinstance(v, dict) and set(v) == {"range"} and isinstance(v["range"], list) and len(v["range"]) == 2:
            lo, hi = v["range"]
            if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in (lo, hi)) \
                    or not lo < hi:
                raise InputError(f"factor {k!r}: range must be [LO, HI], finite numbers with LO < HI, not "
                                 f"{v['range']!r}", at)
            if not isinstance(current, (int, float)) or isinstance(current, bool):
                raise InputError(f"factor {k!r} takes {{ range = [lo, hi] }} only for a number; its value at the "
                                 f"defaults is {current!r}: list its alternatives instead", at)
            factor = Factor(k, current, None, [lo, hi], "experiment factor")
        elif isinstance(v, list) and v:
            # the value at the defaults first (a [fixed] value, the policy's parameter, the game's default hero or
            # policy; None for rules and map: the shipped ones), then the alternatives
            levels = [current] + [x for x in v if not _same(x, current) and not _same_number(x, current)]
            factor = Factor(k, current, levels, None, "experiment factor")
        else:
            raise InputError(f"factor {k!r} must be a list of values or {{ range = [lo, hi] }}", at)
        for value in factor.oat():  # each alternative (or end) alone, at the factor's own line
            for cell in [{}] + [c for conc in conclusions for c in conc.cells]:
                try:
                    runner.resolve(fixed | {k: value} | cell, at)
                except InputError as e:
                    raise InputError(f"{e.message} (factor {k} = {assume.show(value, 40)})", e.where or at) from None
        factors.append(factor)
    if not factors:  # (an empty vary list and no [factors]: the study would run, then have nothing to report)
        raise InputError("nothing to vary: vary lists no assumption and [factors] names none", where("vary"))
    exp = RobustExperiment(name, game, ints["seed"], ints["games"], ints["points"], design, fixed, factors,
                           conclusions, assume.records(base_rules), data.get("title", name),
                           data.get("description", ""), conf, text, ps)
    check_limits(exp, where("points"))
    # every design point must give a valid ruleset: check the one-at-a-time values and every cell now
    pts, _ = design_points(factors, 0, exp.seed, design)
    for pt in pts:
        for cell in exp.cells():
            try:
                runner.resolve(fixed | pt["values"] | cell)
            except InputError as e:  # (a point's fault at its factor's line, not at --set or --param: never given)
                what = f"factor {pt['factor']}" if pt["factor"] else "the defaults"
                at = where(f"factors.{pt['factor']}") if pt["factor"] in extra else ps
                raise _named(e, at, None, f"at {what}, cell {_cell_label(cell)}") from None
    return exp


def check_limits(exp: RobustExperiment, where: str, where_games: str | None = None) -> None:
    """Refuse a study beyond the documented limits (points, games, design points x cells) before it runs."""
    if not 0 <= exp.points <= MAX_POINTS:
        raise InputError(f"points must be between 0 and {MAX_POINTS:,}, not {exp.points}", where)
    if not 2 <= exp.games <= MAX_GAMES:
        raise InputError(f"games must be between 2 and {MAX_GAMES:,}, not {exp.games}", where_games or where)
    n_points = 1 + sum(len(f.oat()) for f in exp.factors) + exp.points
    runs = n_points * len(exp.cells())
    if runs > MAX_RUNS:
        raise InputError(f"{n_points:,} design points x {len(exp.cells())} cells = {runs:,} cell runs, more than "
                         f"the limit of {MAX_RUNS:,}; use fewer points or factors", where)


def factor_default(spec: Any, rules: Any, fixed: dict[str, Any], policy: Any, key: str) -> Any:
    """A ``[factors]`` key's value at the study's defaults: its ``[fixed]`` value; a policy parameter's value in the
    fixed policy; the game's default hero or policy; None for ``rules`` and ``map`` (the shipped ones); a game
    option's default; else the ruleset's value (a short key or one element, ``KEY[i]``, as ``--set`` takes them).
    (The first alternative listed stood for the defaults before, so a study's \"defaults\" were not the defaults.)"""
    if key in fixed:
        return fixed[key]
    if key.startswith("param."):
        name = key[len("param."):]
        return float(policy.params[policy.param_names.index(name)]) if name in policy.param_names else None
    if key in ("hero", "policy"):
        return spec.default_hero if key == "hero" else spec.default_policy
    if key in ("rules", "map"):
        return None
    option = next((o for o in spec.options if o.name == key and "run" in o.commands), None)
    if option is not None:
        return option.default
    from .rulesfile import find_key, split_element

    try:
        path, index = split_element(key)
    except InputError:
        return None
    value = base_rules_value(rules, path)
    if value is None and "." not in path:
        data = getattr(rules, "data", None)
        hits = find_key(data, path) if isinstance(data, dict) else []
        value = base_rules_value(rules, hits[0]) if len(hits) == 1 else None
    if index is not None:
        return value[index] if isinstance(value, list) and -len(value) <= index < len(value) else None
    return value


def base_rules_value(rules: Any, key: str) -> Any:
    data = getattr(rules, "data", None)
    node: Any = data if isinstance(data, dict) else {}
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


#: The keys of a [[conclusions]] table, by its kind (any other was dropped in silence: ``metric = "score"`` judged
#: the win rate, ``over`` on a target was never read).
CONCLUSION_KEYS = {"ranking": ("kind", "name", "over", "values", "settings"),
                   "target": ("kind", "name", "settings", "target", "direction")}


def conclusion_lines(text: str) -> list[int]:
    """The line (1-based) of each ``[[conclusions]]`` header of an experiment's text, in order."""
    return [i for i, line in enumerate(text.splitlines(), 1)
            if re.match(r"^\s*\[\[\s*conclusions\s*\]\]\s*(#.*)?$", line)]


def conclusion_key_lines(text: str) -> list[dict[str, int]]:
    """For each ``[[conclusions]]`` header of ``text`` (as ``conclusion_lines``), the line (1-based) of each key
    written at the start of a line of its table (up to the next table header)."""
    lines = text.splitlines()
    out = []
    for head in conclusion_lines(text):
        keys: dict[str, int] = {}
        for n in range(head + 1, len(lines) + 1):
            line = lines[n - 1]
            if re.match(r"^\s*\[", line):
                break
            m = re.match(r'^\s*"?([A-Za-z_][\w\-]*)"?\s*=', line)
            if m:
                keys.setdefault(m[1], n)
        out.append(keys)
    return out


def _conclusions(raw: Any, fixed: dict[str, Any], where: Any, places: list[str] | None = None,
                 key_lines: list[dict[str, int]] | None = None) -> list[Conclusion]:
    """The conclusions of an experiment file (``places``: each one's ``file:line``, from ``conclusion_lines``;
    ``key_lines``: the line of each of its keys, from ``conclusion_key_lines``: a fault in a key at its line)."""
    if not isinstance(raw, list) or not raw:
        raise InputError("give at least one [[conclusions]] (kind = \"ranking\" or \"target\")", where("conclusions"))
    out = []
    for i, c in enumerate(raw):
        # (each [[conclusions]] at its own header, not the first's)
        own = bool(places) and len(places) == len(raw)
        head = places[i] if own else where("conclusions")
        keys = key_lines[i] if own and key_lines and len(key_lines) == len(raw) else {}
        file = head.rsplit(":", 1)[0]

        def at(*names: str, head: str = head, keys: dict[str, int] = keys, file: str = file) -> str:
            """The line of the first of ``names`` written in this conclusion's table, else its header."""
            return next((f"{file}:{keys[k]}" for k in names if k in keys), head)

        w = head
        if not isinstance(c, dict):
            raise InputError("each [[conclusions]] must be a table", w)
        kind = c.get("kind")
        if not isinstance(kind, str) or kind not in CONCLUSION_KEYS:
            raise InputError(f"conclusion {i + 1}: kind must be 'ranking' or 'target', not {kind!r}", at("kind"))
        unknown = [k for k in c if k not in CONCLUSION_KEYS[kind]]
        if unknown:
            raise InputError(f"conclusion {i + 1}: a {kind} takes {', '.join(CONCLUSION_KEYS[kind])}, not "
                             f"{unknown[0]!r}", at(unknown[0]))
        settings = c.get("settings", {})
        if not isinstance(settings, dict):
            raise InputError(f"conclusion {i + 1}: settings must be a table", at("settings"))
        if kind == "ranking":
            over, values = c.get("over"), c.get("values")
            if not isinstance(over, str) or not isinstance(values, list) or len(values) < 2:
                raise InputError(f"conclusion {i + 1}: a ranking needs over = KEY and values = [at least 2]",
                                 at("over") if not isinstance(over, str) else at("values"))
            twice = next((v for j, v in enumerate(values) if any(_same(v, x) for x in values[:j])), None)
            if twice is not None:
                raise InputError(f"conclusion {i + 1}: values lists {twice!r} twice (a ranking orders different "
                                 "values)", at("values"))
            cells = [dict(settings) | {over: v} for v in values]
            name = c.get("name", f"the ranking of {over} ({', '.join(map(str, values))})")
            out.append(Conclusion(name, "ranking", cells, over, list(values)))
        elif kind == "target":
            target, direction = c.get("target"), c.get("direction", "at_least")
            if not isinstance(target, (int, float)) or isinstance(target, bool) or not 0 <= target <= 1:
                raise InputError(f"conclusion {i + 1}: target must be a win rate between 0 and 1", at("target"))
            if direction not in ("at_least", "at_most"):
                raise InputError(f"conclusion {i + 1}: direction must be 'at_least' or 'at_most'", at("direction"))
            word = ">=" if direction == "at_least" else "<="
            name = c.get("name", f"{_cell_label(settings)} wins {word} {100 * target:g} %")
            out.append(Conclusion(name, "target", [dict(settings)], target=float(target), direction=direction))
        else:
            raise InputError(f"conclusion {i + 1}: kind must be 'ranking' or 'target', not {kind!r}", w)
    return out


def _cell_label(cell: dict[str, Any]) -> str:
    return ", ".join(f"{k}={assume.show(v, 30)}" for k, v in cell.items()) or "defaults"


# ------------------------------------------------------------------------------- running --
def play_points(exp: RobustExperiment, points: list[dict], progress: bool | None = None,
                threads: int | None = None) -> dict[tuple[int, str], np.ndarray]:
    """Wins (0/1 per game) of every cell at every point, all on games 0..games-1 of the seed."""
    from .runner import numba_threads

    spec = get_game(exp.game)
    runner = CellRunner(spec)
    cells = exp.cells()
    bar = Progress(exp.games * len(cells) * len(points), label="games (all points)", enabled=progress) \
        if progress is not False else None
    wins: dict[tuple[int, str], np.ndarray] = {}
    policy_at = (_where(exp.path, exp.text, "fixed.policy" if "policy" in exp.fixed else "fixed") if exp.path
                 else "--policy")  # (a user policy's fault: where the file gives it, not at --policy, never given)
    try:
        with numba_threads(threads), policy_given_at(policy_at):
            for i, pt in enumerate(points):
                for cell in cells:
                    rs, hero, pol = runner.resolve(exp.fixed | pt["values"] | cell)
                    # the chunk path (here, a pool or Dask): only the win column comes back
                    df, _ = stream_rows(spec, rs, hero, pol, exp.seed, 0, exp.games, columns=("win",),
                                        size=CELL_CHUNK, progress=bar)
                    wins[(i, _cell_key(cell))] = df["win"].to_numpy().astype(np.int8)
                if len(runner._rules) > 64:  # rulesets of earlier points are not needed again
                    runner._rules.clear()
    finally:
        if bar is not None:
            bar.close()
    return wins


def evaluate(exp: RobustExperiment, points: list[dict], wins: dict[tuple[int, str], np.ndarray]) -> pd.DataFrame:
    """One row per (conclusion, sub-conclusion, point): margin, holds, holds clearly, fails clearly."""
    rows = []
    for c in exp.conclusions:
        keys = [_cell_key(s) for s in c.cells]
        if c.kind == "target":
            for i in range(len(points)):
                w = wins[(i, keys[0])]
                k, n = int(w.sum()), len(w)
                lo, hi = stats.wilson(k, n, exp.conf)
                rate = k / n
                if c.direction == "at_least":
                    m, clear, fail = rate - c.target, lo > c.target, hi < c.target
                else:
                    m, clear, fail = c.target - rate, hi < c.target, lo > c.target
                rows.append(_row(c.name, c.name, i, points[i], m, clear, fail))
            continue
        base = np.array([wins[(0, k)].mean() for k in keys])
        order = list(np.argsort(-base, kind="stable"))
        labels = [str(c.values[j]) for j in order]
        pairs = list(itertools.combinations(range(len(order)), 2))
        # the ranking fails clearly when any of its pairs does: a claim drawn from every pair, so each pair is
        # tested for it at Bonferroni's level over the pairs (the chance of a false "fails clearly" stays below
        # 1 - conf); it holds clearly only when every neighbouring pair does, each at conf (an intersection of
        # claims: no adjustment needed)
        conf_any = 1.0 - (1.0 - exp.conf) / len(pairs)
        for i in range(len(points)):
            gaps, clears, fails_any = {}, {}, {}
            for a, b in pairs:
                wa, wb = wins[(i, keys[order[a]])], wins[(i, keys[order[b]])]
                d = stats.paired_rate_diff(wb, wa, exp.conf)  # diff = rate(a) - rate(b)
                gaps[(a, b)] = float(wa.mean() - wb.mean())
                clears[(a, b)] = bool(d["lo"] > 0)
                fails_any[(a, b)] = bool(d["hi"] < 0) and (
                    len(pairs) == 1 or bool(stats.paired_rate_diff(wb, wa, conf_any)["hi"] < 0))
                rows.append(_row(c.name, f"{labels[a]} > {labels[b]}", i, points[i], gaps[(a, b)], clears[(a, b)],
                                 bool(d["hi"] < 0), whole=False))
            adj = [(a, a + 1) for a in range(len(order) - 1)]
            rows.append(_row(c.name, "ranking " + " > ".join(labels), i, points[i], min(gaps[p] for p in adj),
                             all(clears[p] for p in adj), any(fails_any.values())))
    return pd.DataFrame(rows)


def _row(conclusion: str, claim: str, i: int, pt: dict, margin: float, clear: bool, fail: bool,
         whole: bool = True) -> dict[str, Any]:
    """``whole``: the conclusion itself (a ranking's full order, a target), not one of a ranking's pairs."""
    return {"conclusion": conclusion, "claim": claim, "point": i, "kind": pt["kind"], "factor": pt["factor"],
            "margin": margin, "holds": margin > 0, "holds_clearly": clear, "fails_clearly": fail, "whole": whole}


def share_summary(ev: pd.DataFrame, joint_kind: str, conf: float = 0.95) -> pd.DataFrame:
    """Per claim: at the defaults, and the share of the joint points where it holds (Wilson interval
    over the points), holds clearly, fails clearly."""
    rows = []
    for (conc, claim), g in ev.groupby(["conclusion", "claim"], sort=False):
        b = g[g["kind"] == "baseline"].iloc[0]
        j = g[g["kind"] == joint_kind]
        n, k = len(j), int(j["holds"].sum())
        lo, hi = stats.wilson(k, n, conf) if n else (math.nan, math.nan)
        o = g[g["kind"] == "oat"]
        rows.append({"conclusion": conc, "claim": claim, "margin_at_defaults": float(b["margin"]),
                     "holds_at_defaults": bool(b["holds"]), "points": n, "share_holds": k / n if n else math.nan,
                     "share_lo": lo, "share_hi": hi,
                     "share_holds_clearly": float(j["holds_clearly"].mean()) if n else math.nan,
                     "share_fails_clearly": float(j["fails_clearly"].mean()) if n else math.nan,
                     "oat_holds": f"{int(o['holds'].sum())}/{len(o)}", "whole": bool(b["whole"])})
    return pd.DataFrame(rows)


def sensitivity(ev: pd.DataFrame, points: list[dict], factors: list[Factor], joint_kind: str) -> pd.DataFrame:
    """Per claim and factor: standardized regression coefficient and Spearman correlation of the margin
    on the joint points, and the margin's lowest/highest change at the factor's one-at-a-time points."""
    from scipy.stats import spearmanr

    rows = []
    for (conc, claim), g in ev.groupby(["conclusion", "claim"], sort=False):
        base = float(g.loc[g["kind"] == "baseline", "margin"].iloc[0])
        j = g[g["kind"] == joint_kind]
        X = np.array([[f.code(points[int(i)]["values"][f.key]) for f in factors] for i in j["point"]], float)
        y = j["margin"].to_numpy(float)
        src = np.full(len(factors), np.nan)
        rho = np.full(len(factors), np.nan)
        r2 = math.nan
        if len(y) > len(factors) + 1 and y.std() > 0:
            sx = X.std(axis=0)
            ok = sx > 0
            Z = (X[:, ok] - X[:, ok].mean(axis=0)) / sx[ok]
            zy = (y - y.mean()) / y.std()
            coef, *_ = np.linalg.lstsq(np.column_stack([np.ones(len(y)), Z]), zy, rcond=None)
            src[ok] = coef[1:]
            r2 = float(1 - np.sum((zy - np.column_stack([np.ones(len(y)), Z]) @ coef) ** 2) / np.sum(zy ** 2))
            for t in np.flatnonzero(ok):
                rho[t] = float(spearmanr(X[:, t], y).statistic)
        o = g[g["kind"] == "oat"]
        for t, f in enumerate(factors):
            m = o.loc[o["factor"] == f.key, "margin"].to_numpy(float) - base
            rows.append({"conclusion": conc, "claim": claim, "factor": f.key, "src": src[t], "spearman": rho[t],
                         "r2": r2, "oat_low": float(min(m.min(), 0)) if len(m) else 0.0,
                         "oat_high": float(max(m.max(), 0)) if len(m) else 0.0})
    return pd.DataFrame(rows)


#: Joint points per assumption varied below which a study's SRCs are said to be weak.
SRC_POINTS_PER_FACTOR = 2


def weak_src_warning(points: int, factors: int) -> str | None:
    """The warning of a sensitivity fit on fewer than ``SRC_POINTS_PER_FACTOR`` joint points per assumption varied
    (e.g. 24 points, 16 assumptions): its coefficients are nearly as many as its points, so they follow the dice's
    noise and the design's chance layout as much as the assumptions. None when there are enough points, or too few
    for any fit (``sensitivity`` gives none: the report says n/a and why)."""
    if factors < 1 or points <= factors + 1 or points >= SRC_POINTS_PER_FACTOR * factors:
        return None
    return (f"the SRCs are weak: {points} joint points for {factors} assumptions varied (fewer than "
            f"{SRC_POINTS_PER_FACTOR} per assumption), so the linear fit has nearly as many coefficients as points "
            f"and follows the noise; trust the one-at-a-time changes, or raise --points to "
            f"{SRC_POINTS_PER_FACTOR * factors} or more")


def _robust_normalised(exp: RobustExperiment) -> dict[str, Any]:
    return {"game": exp.game, "seed": exp.seed, "games": exp.games, "points": exp.points, "design": exp.design,
            "fixed": exp.fixed, "conf": exp.conf,
            "factors": [[f.key, f.default, f.levels, f.range] for f in exp.factors],
            "conclusions": [[c.name, c.kind, c.cells, c.over, c.values, c.target, c.direction]
                            for c in exp.conclusions]}


def robust_command(exp: RobustExperiment, *extra: str) -> str:
    """The ``foury-sim robust`` command of ``exp`` as it would be typed again: its file, ``extra`` (``--out OUT``) and
    its games and points (``--games``/``--points``, whether the file or the command line gave them). Without
    ``extra``: the command that reproduces its results (where they go, ``--out``, and how many threads play them
    change no number)."""
    return provenance.command("robust", str(exp.path), [*extra, "--games", str(exp.games), "--points", str(exp.points)])


def robust_files(exp: RobustExperiment) -> dict[str, str]:
    """The user files a study reads (``study.input_files``): those of its cells at the defaults and with each
    level of each factor (the default first), so that a map or rules file a design point switches to is recorded too."""
    cells = [exp.fixed | c for c in exp.cells()]
    cells += [exp.fixed | {f.key: v} | c for f in exp.factors if f.levels for v in f.levels for c in exp.cells()]
    runner = CellRunner(get_game(exp.game))  # (their rulesets: a map their rules file names)
    return input_files(cells, exp.game, [runner.resolve(c)[0] for c in cells])


def run_robust(exp: RobustExperiment | str | Path, out_root: str | Path = "results", *, progress: bool | None = None,
               threads: int | None = None) -> Path:
    """Play every design point, evaluate the conclusions and write ``out_root/NAME/``.

    The folder belongs to one experiment (``experiment_id`` in the manifest) and is locked while the run
    writes; a run keeps nothing until it has played every point (an interrupted run is rerun whole)."""
    if not isinstance(exp, RobustExperiment):
        exp = load_robust(exp)
    check_limits(exp, "--points", "--games")
    files = robust_files(exp)
    ident = experiment_id("robust", _robust_normalised(exp), files)
    out = open_results(out_root, exp.name)
    cmd = robust_command(exp, "--out", str(out_root))
    with FolderLock(out):
        check_owner(out, "robust", ident, exp.path, exp.text)
        clean_temp(out)
        try:
            return _run_robust_locked(exp, out, ident, files, progress, threads)
        except KeyboardInterrupt:
            raise Interrupted(f"nothing kept (a robustness run writes its results only once every point is "
                              f"played); run it again with: {cmd}") from None
        except WriteError as e:
            clean_temp(out)
            err = WriteError(f"{e.message}; free space, then run again with: {cmd}", e.where)
            err.result = getattr(e, "result", None)  # (the verdicts, computed: the CLI prints them all the same)
            raise err from None


def _run_robust_locked(exp: RobustExperiment, out: Path, ident: str, files: dict[str, str],
                       progress: bool | None, threads: int | None) -> Path:
    import numba

    t0 = time.time()
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    points, u = design_points(exp.factors, exp.points, exp.seed, exp.design)
    manifest = {
        "kind": "robust", "experiment_id": ident, "code_version": code_version(exp.game), "input_files": files,
        "name": exp.name, "title": exp.title, "description": exp.description, "game": exp.game,
        "seed": exp.seed, "games": exp.games, "design": exp.design, "points": exp.points, "conf": exp.conf,
        "n_design_points": len(points), "fixed": exp.fixed,
        "factors": [{"key": f.key, "default": f.default, "levels": f.levels, "range": f.range, "reason": f.reason}
                    for f in exp.factors],
        "conclusions": [{"name": c.name, "kind": c.kind, "cells": c.cells, "target": c.target,
                         "direction": c.direction} for c in exp.conclusions],
        "assumptions": exp.assumptions, "package_version": __version__, "git_commit": git_commit(),
        "python": platform.python_version(), "numba": numba.__version__, "started": started,
        "finished": None, "elapsed_s": None,
        "experiment_text": exp.text, "experiment_path": exp.path, "command": robust_command(exp),
    }
    # written first (unfinished) so the folder is marked as this experiment's while it runs
    atomic_write(out / "manifest.json", json.dumps(to_jsonable(manifest), indent=2))
    wins = play_points(exp, points, progress, threads)
    if progress is not False:
        say(f"evaluating {len(exp.conclusions)} conclusion{'s' * (len(exp.conclusions) != 1)} at "
            f"{len(points)} design points and writing the tables and report.md in {out} ...")
    ev = evaluate(exp, points, wins)
    summ = share_summary(ev, exp.design, exp.conf)
    sens = sensitivity(ev, points, exp.factors, exp.design)
    weak = weak_src_warning(exp.points, len(exp.factors)) if sens["r2"].notna().any() else None
    if weak:
        _warn(f"{exp.name}: {weak} (said in report.md)")
    cells = exp.cells()
    crow = []
    for i, pt in enumerate(points):
        for cell in cells:
            w = wins[(i, _cell_key(cell))]
            crow.append({"point": i, "kind": pt["kind"], "factor": pt["factor"], "cell": _cell_label(cell),
                         "games": len(w), "wins": int(w.sum()), "win_rate": float(w.mean())})
    drow = []
    for i, pt in enumerate(points):
        r = {"point": i, "kind": pt["kind"], "factor": pt["factor"]}
        r.update({f.key: assume.show(pt["values"][f.key], 200) for f in exp.factors})
        j = i - (len(points) - len(u))
        if j >= 0:
            r.update({f"u:{f.key}": float(u[j, t]) for t, f in enumerate(exp.factors)})
        drow.append(r)
    try:
        write_frame(pd.DataFrame(drow), out / "design.csv")
        write_frame(pd.DataFrame(crow), out / "cells.csv")
        write_frame(ev, out / "conclusions.csv")
        write_frame(summ, out / "robustness.csv")
        write_frame(sens, out / "sensitivity.csv")
        manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        manifest["elapsed_s"] = round(time.time() - t0, 2)
        atomic_write(out / "manifest.json", json.dumps(to_jsonable(manifest), indent=2))
        write_report(out, manifest, summ, sens, pd.DataFrame(crow))
    except WriteError as e:  # (a full disk lost the verdicts of a whole study, printed only from the files)
        e.result = summ
        raise
    clean_temp(out)
    return out


# ------------------------------------------------------------------------------- report --
def _pct(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.0f} %"


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def figure_note(m: dict[str, Any]) -> str:
    """How a robustness study was made, at its figures' foot (``provenance.figure_note``), from its manifest: game,
    fixed settings, the policy, seed, games per cell and design points, version and commit."""
    varied = {k for c in m.get("conclusions") or [] for s in c.get("cells") or [] for k in s}
    varied |= {f["key"] for f in m.get("factors") or []}
    return provenance.figure_note(
        str(m.get("game", "?")), fixed=m.get("fixed") if isinstance(m.get("fixed"), dict) else {},
        seed=m.get("seed", "?"), swept=varied, varies="varied",
        games=f"{int(m['games']):,} games per cell at each of {int(m['n_design_points'])} design points",
        made={"version": m.get("package_version") or __version__, "git_commit": m.get("git_commit")})


def _figures(out: Path, summ: pd.DataFrame, sens: pd.DataFrame, m: dict[str, Any] | None = None
             ) -> list[tuple[str, str, Path]]:
    """The figures of the report, written to ``out/figures``: (heading, caption, path) of each. With a whole
    manifest ``m``, each says at its foot how the study was made (``figure_note``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    from matplotlib.ticker import PercentFormatter

    from .figures import made_footer

    m = m or {}
    note = figure_note(m) if {"game", "games", "n_design_points"} <= set(m) else ""
    where = (f"{int(m['n_design_points']) if 'n_design_points' in m else '?'} design points, "
             f"{int(m['games']):,} games per cell" if "games" in m else "")
    fig_dir = out / "figures"
    written = []
    main = summ[summ["whole"]]
    whole, part = "#0072B2", "#9ecae1"  # colour-blind safe blues: whole claims dark, their parts light
    fig, ax = plt.subplots(figsize=(9.5, 1.4 + 0.42 * len(summ)), layout="constrained")
    y = np.arange(len(summ))[::-1]
    ax.barh(y, 100 * summ["share_holds"], color=[whole if c in set(main["claim"]) else part for c in summ["claim"]])
    ax.errorbar(100 * summ["share_holds"], y, xerr=[100 * (summ["share_holds"] - summ["share_lo"]),
                                                    100 * (summ["share_hi"] - summ["share_holds"])],
                fmt="none", ecolor="#222222", capsize=3)
    for yy, v, hi in zip(y, summ["share_holds"], summ["share_hi"]):
        inside = v > 0.2  # short bars: the number goes right of the whisker
        ax.annotate(f"{100 * v:.0f}%", (1 if inside else 100 * hi, yy), xytext=(3 if inside else 5, 0),
                    textcoords="offset points", va="center", fontsize=8, color="white" if inside else "#222222")
    ax.set_yticks(y, [c if len(c) < 60 else c[:57] + "..." for c in summ["claim"]], fontsize=8)
    ax.set_xlim(0, 100)
    ax.xaxis.set_major_formatter(PercentFormatter())
    ax.set_xlabel("Share of the joint assumption points where the claim holds (%)")
    ax.set_ylabel("Claim")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(handles=[Patch(color=whole, label="a whole claim"), Patch(color=part, label="one part of a claim"),
                       plt.Line2D([], [], color="#222222", label=f"{100 * float(m.get('conf', 0.95)):g} % interval")],
              fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    fig.suptitle("How often each claim holds when the assumptions vary together", fontsize=12, fontweight="bold")
    ax.set_title("whiskers: interval over the design points (not over the dice)" + (f"; {where}" if where else ""),
                 fontsize=9, color="#555555")
    if note:
        made_footer(fig, note)
    p = fig_dir / "shares.png"
    save_figure(fig, p, dpi=110)
    plt.close(fig)
    written.append(("Where each claim holds", "Share of the space-filling design's points at which each claim holds "
                    "(dark: a whole claim, light: one of its parts; whiskers: interval over the design points, not "
                    "over the dice).", p))
    for k, (claim, g) in enumerate(sens[sens["claim"].isin(main["claim"])].groupby("claim", sort=False)):
        g = g.assign(span=g["oat_high"] - g["oat_low"]).sort_values("span")
        fig, ax = plt.subplots(figsize=(10, max(2.8, 1.4 + 0.35 * len(g))), layout="constrained")
        yy = np.arange(len(g))
        ax.barh(yy, 100 * g["oat_high"], color="#0072B2", label="margin grows (claim more true)")
        ax.barh(yy, 100 * g["oat_low"], color="#D55E00", label="margin shrinks (claim less true)")
        ax.axvline(0, color="k", lw=0.8)
        base = float(summ.loc[summ["claim"] == claim, "margin_at_defaults"].iloc[0])
        ax.axvline(-100 * base, color="k", ls="--", lw=1.0,
                   label=f"claim flips beyond this line\n(margin at the defaults {100 * base:+.1f} points)")
        ax.set_yticks(yy, g["factor"], fontsize=8)
        ax.set_ylabel("Assumption changed alone")
        ax.set_xlabel("Change of the claim's margin from the defaults (win-rate percentage points)")
        ax.grid(axis="x", alpha=0.3)
        fig.suptitle("Tornado: " + (claim if len(claim) < 90 else claim[:87] + "..."), fontsize=11, fontweight="bold")
        ax.set_title("each assumption alone at its other values (or both ends of its range), the rest at the defaults"
                     + (f"; {int(m['games']):,} games per cell" if "games" in m else ""), fontsize=9, color="#555555")
        lim = 100 * max(float(g["oat_high"].max()), -float(g["oat_low"].min()), abs(base), 0.005) * 1.1
        ax.set_xlim(-lim, lim)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
        if note:
            made_footer(fig, note)
        p = fig_dir / f"tornado_{k + 1}.png"
        save_figure(fig, p, dpi=110)
        plt.close(fig)
        written.append((f"Tornado: {claim}", "How far each assumption alone moves the claim's margin (its other "
                        "values, or both ends of its range); past the dashed line the claim no longer holds.", p))
    return written


def write_report(out: Path, m: dict[str, Any], summ: pd.DataFrame, sens: pd.DataFrame, cells: pd.DataFrame) -> None:
    """``report.md`` and ``report.html`` with the verdicts, sensitivities and figures."""
    from .report import _CSS, _inline_html, _md_cell

    figs = _figures(out, summ, sens, m)
    md: list[str] = [f"# {m['title']}\n"]
    if m.get("description"):
        md.append(str(m["description"]).strip() + "\n")
    n_oat = sum(1 for _ in cells.loc[cells["kind"] == "oat", "point"].unique())
    made = {"version": m.get("package_version") or __version__, "git_commit": m.get("git_commit")}
    md.append("## The study\n")
    md += [f"- Game `{m['game']}`, seed {m['seed']}, {m['games']:,} games per cell at every design point, all on "
           "the same game indices (common dice).",
           f"- Design: the defaults, {n_oat} one-at-a-time points, {m['points']} joint points "
           f"({'Latin hypercube' if m['design'] == 'lhs' else 'scrambled Sobol'}, scipy.stats.qmc, seed {m['seed']}); "
           f"{m['n_design_points']} points x {cells['cell'].nunique()} cells = {int(cells['games'].sum()):,} games "
           f"in {m['elapsed_s']:.0f} s.",
           "- Fixed: " + (", ".join(f"`{k}={assume.show(v)}`" for k, v in m["fixed"].items()) or "nothing") + ".",
           f"- Made with: {provenance.made_with(made)}; experiment `{m.get('experiment_path')}` (id "
           f"{m.get('experiment_id')})."]
    if isinstance(m.get("command"), str) and "`" not in m["command"]:  # (a manifest before it had no command)
        md.append(f"- Reproduce: `{m['command']}`")
    md.append("- Varied (the first value is the default):")
    md += [f"  - `{f['key']}`: " + (" / ".join(f"`{assume.show(x, 50)}`" for x in f["levels"]) if f["levels"]
                                   else f"{f['range'][0]:g}..{f['range'][1]:g} (default {f['default']:g})")
           for f in m["factors"]]
    md.append("")
    md.append("## Verdicts\n")
    md.append("A claim *holds* at a point when its margin is positive (point estimates); *clearly* when the "
              f"{100 * m['conf']:g} % interval (paired on the shared dice for a pair) excludes the other side; a "
              "ranking fails clearly when one of its pairs does at Bonferroni's level over all its pairs. "
              f"The share's {100 * m['conf']:g} % Wilson interval reflects the number of design points only.\n")
    md.append("| claim | at the defaults (margin) | holds at joint points | holds clearly | fails clearly "
              "| one-at-a-time | moved most by (SRC) |")
    md.append("|---|---:|---:|---:|---:|---:|---|")
    for _, r in summ.iterrows():
        s = sens[sens["claim"] == r["claim"]].copy()
        s = s.assign(key=s["src"].abs().fillna(0) + 1e-9 * (s["oat_high"] - s["oat_low"])).sort_values(
            "key", ascending=False)
        top = ", ".join(f"`{x.factor}` ({x.src:+.2f})" if not math.isnan(x.src) else f"`{x.factor}`"
                        for x in s.head(3).itertuples())
        md.append(f"| {_md_cell(r['claim'])} | {'yes' if r['holds_at_defaults'] else 'no'} "
                  f"({_pts(r['margin_at_defaults'])}) | {_pct(r['share_holds'])} [{_pct(r['share_lo'])}, "
                  f"{_pct(r['share_hi'])}] | {_pct(r['share_holds_clearly'])} | {_pct(r['share_fails_clearly'])} "
                  f"| {r['oat_holds']} | {top} |")
    n_joint = int(summ["points"].iloc[0]) if len(summ) else 0
    weak = weak_src_warning(n_joint, len(m["factors"])) if sens["r2"].notna().any() else None
    if weak:
        md.append(f"\n**Warning**: {weak} (see Sensitivity).")
    md.append("")
    md.append("## Win rates at the defaults\n")
    base = cells[cells["kind"] == "baseline"].sort_values("win_rate", ascending=False)
    md.append(f"| cell | win rate | {100 * m['conf']:g} % interval | lowest / highest over all points |")
    md.append("|---|---:|---:|---:|")
    for _, r in base.iterrows():
        allr = cells.loc[cells["cell"] == r["cell"], "win_rate"]
        w_lo, w_hi = stats.wilson(int(r["wins"]), int(r["games"]), m["conf"])
        md.append(f"| {_md_cell(r['cell'])} | {100 * r['win_rate']:.1f} % | {100 * w_lo:.1f}–{100 * w_hi:.1f} % | "
                  f"{100 * allr.min():.1f} % / {100 * allr.max():.1f} % |")
    md.append("")
    md.append("## Sensitivity\n")
    md.append("Per claim: standardized regression coefficient (SRC) and Spearman correlation of the margin on the "
              "joint points (alternatives coded by their position, 0 = default), and the margin's lowest and "
              "highest change (win-rate points) when the assumption alone takes its other values.\n")
    if weak:
        md.append(f"**Warning**: {weak}.\n")
    main = summ[summ["whole"]]["claim"]
    for claim in main:
        s = sens[sens["claim"] == claim].sort_values("src", key=lambda x: -x.abs().fillna(0))
        r2 = s["r2"].iloc[0]
        md.append(f"### {claim}\n")
        if not math.isnan(r2):
            md.append(f"Linear fit on the joint points: R² = {r2:.2f}.\n")
        else:  # (``sensitivity``: no fit with too few joint points, or a margin the same at every one)
            md.append(f"No SRC or Spearman correlation (n/a below): they need more joint points than the "
                      f"assumptions varied plus one ({n_joint} points, {len(s)} assumptions) and a margin that "
                      "changes between them; raise `--points`.\n")
        md.append("| assumption | SRC | Spearman | one-at-a-time change |")
        md.append("|---|---:|---:|---:|")
        for x in s.itertuples():
            md.append(f"| `{x.factor}` | {_coef(x.src)} | {_coef(x.spearman)} | {_pts(x.oat_low)} .. "
                      f"{_pts(x.oat_high)} |")
        md.append("")
    md.append("## Assumptions of the defaults\n")
    md += [f"- {x}" for x in assume.markdown_items(m["assumptions"])]
    md.append("")
    for title, cap, p in figs:
        md.append(f"## {title}\n\n![{title}](figures/{p.name})\n\n*{cap}*\n")
    md.append("## Experiment file\n")
    md.append(f"```toml\n{str(m.get('experiment_text', '')).strip()}\n```\n")
    md_text = "\n".join(md).replace("\n\n\n", "\n\n")
    atomic_write(out / "report.md", md_text)
    import base64

    body = []
    table: list[str] = []
    prev_blank = True
    for line in md_text.splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        if table:
            body.append(_html_table(table, _inline_html))
            table = []
        if line.startswith("#"):
            lvl = len(line) - len(line.lstrip("#"))
            body.append(f"<h{lvl}>{html.escape(line[lvl:].strip())}</h{lvl}>")
        elif line.startswith("!["):
            name = line[line.index("](") + 2:line.rindex(")")]  # (the alt text may hold parentheses)
            b64 = base64.b64encode((out / name).read_bytes()).decode("ascii")
            body.append(f'<img src="data:image/png;base64,{b64}" style="max-width:100%">')
        elif line.startswith("- ") or line.startswith("  - "):
            body.append(f"<li>{_inline_html(line.lstrip(' -'))}</li>")
        elif line.startswith("```"):
            body.append("<pre>" if "toml" in line else "</pre>")
        elif line.strip():
            if body and body[-1] == "<pre>" or (body and not body[-1].endswith(">")):
                body.append(html.escape(line))
            elif body and body[-1].startswith("<p>") and not prev_blank:  # the next line of one paragraph
                body[-1] = body[-1][:-4] + " " + _inline_html(line) + "</p>"
            else:
                body.append(f"<p>{_inline_html(line)}</p>")
        prev_blank = not line.strip()
    if table:
        body.append(_html_table(table, _inline_html))
    wrapped: list[str] = []
    for line in body:  # consecutive list items become one list
        if line.startswith("<li>") and (not wrapped or not wrapped[-1].endswith("</li>")):
            wrapped.append("<ul>")
        if not line.startswith("<li>") and wrapped and wrapped[-1].endswith("</li>"):
            wrapped.append("</ul>")
        wrapped.append(line)
    body = wrapped + (["</ul>"] if wrapped and wrapped[-1].endswith("</li>") else [])
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(m['title'])}"
            f"</title><style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
    atomic_write(out / "report.html", page)


def _coef(x: float) -> str:
    """A sensitivity coefficient, signed, or "n/a" where none was computed (never "+nan")."""
    return "n/a" if x is None or not math.isfinite(x) else f"{x:+.2f}"


def _num(cell: str) -> str:
    """The class of a table cell that holds numbers (right-aligned, never wrapped)."""
    return ' class="r"' if re.fullmatch(r"(yes|no)?\s*[-+(\d.\[\] %,/)]*", cell.strip()) and cell.strip() else ""


def _html_table(lines: list[str], inline: Any) -> str:
    rows = [[c.strip() for c in ln.strip("|").split(" | ")] for ln in lines if not set(ln) <= set("|-: ")]
    head, *rest = rows
    return ("<table><thead><tr>" + "".join(f"<th>{inline(h)}</th>" for h in head) + "</tr></thead><tbody>"
            + "".join("<tr>" + "".join(f"<td{_num(c)}>{inline(c)}</td>" for c in r) + "</tr>" for r in rest)
            + "</tbody></table>")


__all__ = ["Factor", "Conclusion", "RobustExperiment", "design_points", "unit_design", "load_robust", "evaluate",
           "share_summary", "sensitivity", "run_robust", "robust_command", "figure_note"]
