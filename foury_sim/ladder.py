"""The skill ladder: how much better a stronger player does (``foury-sim ladder``; method in docs/ladder.md).

A ladder is a list of **rungs**, each a policy with its parameters (data: a TOML ``[[rung]]`` list, or the game's
built-in policies when a game is named): typically ``random``, the built-in heuristics at their defaults, a
**tuned** heuristic (its parameters optimised for win rate with CMA-ES on training seeds, then checked on held-out
seeds) and a search policy. Every (hero, rung) is a cell playing games ``0 .. n-1`` of the ladder's seed, so all
rungs of a hero play the same dice (paired): consecutive rungs are compared with McNemar's exact test (Holm over
every comparison of the ladder). A rung with fewer games plays the first games of the same seed (nested), and is
compared on those.

The **top** of a hero's ladder is the strongest player measured for it: the rung with the highest win rate (a
tie goes to the later rung), whichever rung that is (a search at a small budget may not beat a tuned heuristic;
picking the best of several estimates favours it, which the hard-to-play verdict corrects for). Two verdicts per
hero, stated only where the intervals support them (``unresolved`` otherwise):

* **weak**: the top rung's win rate is below the field (the median of every hero's top-rung rate) by more than
  ``weak_margin``. The field is an estimate too: every hero's top-rung interval is taken at ``1 - (1 - conf) / K``
  (K heroes, Bonferroni: all cover at once with probability >= ``conf``), the field's interval is the median of
  their lower bounds to the median of their upper bounds, and the verdict is ``yes`` when the hero's interval lies
  below the field's low end minus ``weak_margin``, ``no`` when it lies at or above its high end minus
  ``weak_margin`` (all heroes' weak verdicts right together with probability >= ``conf``);
* **hard to play**: the top rung beats the best heuristic rung (rungs marked ``heuristic = true``) by more than
  ``hard_gap``: the paired interval of that difference lies above ``hard_gap`` (``yes``) or below it (``no``). Both
  rungs are picked by their rates, so the interval is taken at ``1 - (1 - conf) / k`` (``gap_conf``; k the
  (non-heuristic rung, heuristic rung) pairs they could have been: Bonferroni), and the verdict holds at ``conf``.

Usable from a notebook: ``load_ladder(path)`` / ``game_ladder(game, ...)``, then ``run_ladder(ladder, out)``;
``tune_policy`` is the tuner alone (any ``evaluate(params, seed, start, count) -> 0/1 array``).
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__, provenance, stats
from . import assumptions as assume
from .errors import InputError, Interrupted, did_you_mean, policy_given_at
from .files import WriteError, atomic_write, clean_temp, save_figure, to_jsonable, write_frame
from .inputs import check_conf, check_games, check_seed
from .lazy import pd
from .registry import GameSpec, get_game
from .runner import Progress, numba_threads, play_games

LADDER_KEYS = {"name", "title", "description", "game", "seed", "games", "heroes", "conf", "fixed", "tune",
               "verdict", "rung"}
RUNG_KEYS = {"label", "policy", "params", "tuned", "ranges", "heuristic", "games"}
TUNE_KEYS = {"seed", "games", "popsize", "generations", "sigma", "heldout_seed", "heldout_games"}
VERDICT_KEYS = {"weak_margin", "hard_gap"}

#: Default thresholds of the verdicts (win-rate fractions; ``--weak-margin``, ``--hard-gap``).
WEAK_MARGIN = 0.05
HARD_GAP = 0.05
#: Most parameters one tuned rung may search (CMA-ES needs roughly 4 + 3 ln(d) candidates per generation).
MAX_TUNED_PARAMS = 30


@dataclass
class Rung:
    """One rung: ``label`` (unique), ``policy`` (any policy name the game takes, or FILE.py:FUNCTION), fixed
    ``params``; ``tuned``: the parameters named in ``ranges`` are optimised (the others stay at ``params`` or the
    defaults); ``heuristic``: counts as a heuristic for the hard-to-play verdict; ``games``: fewer games than the
    ladder's (the first ones of the same seed), e.g. for a slow search policy."""

    label: str
    policy: str
    params: dict[str, float] = field(default_factory=dict)
    tuned: bool = False
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    heuristic: bool = False
    games: int | None = None


@dataclass
class TuneSettings:
    """CMA-ES budget and seeds: ``popsize`` candidates per generation, ``generations``, ``games`` per candidate on
    training ``seed`` (games 0 .. games-1, the same for every candidate: common dice), ``sigma`` the initial step
    as a share of each range; the best candidate and the defaults are then replayed on ``heldout_seed`` for
    ``heldout_games`` games (None: the ladder's seed and games)."""

    seed: int = 1001
    games: int = 2000
    popsize: int = 8
    generations: int = 8
    sigma: float = 0.3
    heldout_seed: int | None = None
    heldout_games: int | None = None


@dataclass
class Ladder:
    name: str
    game: str
    seed: int
    games: int
    heroes: list[str]
    rungs: list[Rung]
    tune: TuneSettings = field(default_factory=TuneSettings)
    conf: float = 0.95
    weak_margin: float = WEAK_MARGIN
    hard_gap: float = HARD_GAP
    fixed: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    description: str = ""
    path: str = ""
    text: str = ""
    skipped: list[str] = field(default_factory=list)

    @property
    def heldout_seed(self) -> int:
        return self.seed if self.tune.heldout_seed is None else self.tune.heldout_seed

    @property
    def heldout_games(self) -> int:
        return self.games if self.tune.heldout_games is None else self.tune.heldout_games

    def rung_games(self, r: Rung) -> int:
        return self.games if r.games is None else min(r.games, self.games)

    def normalised(self) -> dict[str, Any]:
        """Everything that changes the numbers (the results folder's identity)."""
        return {"game": self.game, "seed": self.seed, "games": self.games, "heroes": self.heroes,
                "rungs": [asdict(r) for r in self.rungs], "tune": asdict(self.tune), "conf": self.conf,
                "fixed": self.fixed}


# ------------------------------------------------------------------------------------------------ the tuner --
@dataclass
class TuneResult:
    """What ``tune_policy`` found: the candidates (train win rates), the best, and the held-out check."""

    names: list[str]
    defaults: dict[str, float]
    best: dict[str, float]
    train: dict[str, Any]
    heldout: dict[str, Any]
    candidates: list[dict[str, Any]]
    overfit: bool
    verdict: str

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(asdict(self))


def _rate(w: np.ndarray, conf: float) -> dict[str, Any]:
    k, n = int(np.sum(w)), int(len(w))
    return stats.summarize_rate(k, n, conf)


def gap_test(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p of a difference between two independent rates (pooled two-proportion z test)."""
    if n1 == 0 or n2 == 0:
        return 1.0
    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    z = (k1 / n1 - k2 / n2) / se
    return 2.0 * (1.0 - stats.norm_cdf(abs(z)))


def heldout_check(train_best: np.ndarray, held_best: np.ndarray, held_default: np.ndarray,
                  conf: float = 0.95) -> dict[str, Any]:
    """The overfitting check of a tuned candidate: its held-out gain over the defaults (paired: same held-out
    games; McNemar) must be significant at ``1 - conf``, and its train-vs-held-out gap must be within chance
    (independent seeds: two-proportion z test). ``overfit`` when either fails."""
    gain = stats.paired_rate_diff(held_default, held_best, conf)
    improved = bool(gain["significant"] and gain["diff"] > 0)
    kt, nt = int(np.sum(train_best)), len(train_best)
    kh, nh = int(np.sum(held_best)), len(held_best)
    p_gap = gap_test(kt, nt, kh, nh)
    gap = kt / max(nt, 1) - kh / max(nh, 1)
    gap_beyond = bool(p_gap < 1.0 - conf and gap > 0)
    reasons = []
    if not improved:
        reasons.append("held-out gain over the defaults not significant")
    if gap_beyond:
        reasons.append("train rate above held-out rate beyond chance")
    return {"gain": float(gain["diff"]), "gain_lo": float(gain["lo"]), "gain_hi": float(gain["hi"]),
            "gain_p": float(gain["p_value"]), "improved": improved, "train_minus_heldout": float(gap),
            "gap_p": float(p_gap), "gap_beyond_chance": gap_beyond, "overfit": bool(reasons),
            "verdict": "; ".join(reasons) if reasons else "improved on held-out seeds, gap within chance"}


Evaluate = Callable[[dict[str, float], int, int, int], np.ndarray]


def tune_policy(evaluate: Evaluate, ranges: dict[str, tuple[float, float]], defaults: dict[str, float],
                settings: TuneSettings, *, heldout_seed: int, heldout_games: int, conf: float = 0.95,
                progress: Progress | None = None) -> TuneResult:
    """Maximise the win rate over the box ``ranges`` with CMA-ES (``cma``), every candidate on the same training
    games (``evaluate(params, settings.seed, 0, settings.games)``), starting from ``defaults`` (evaluated first:
    the best must beat them on the training games to be chosen); then the best and the defaults on the held-out
    games (``heldout_check``). ``evaluate`` returns the 0/1 wins of games ``start .. start+count-1``."""
    import cma

    names = list(ranges)
    if not names:
        raise InputError("a tuned rung needs ranges = { NAME = [LO, HI], ... }", "ranges")
    lo = np.array([ranges[k][0] for k in names], dtype=float)
    hi = np.array([ranges[k][1] for k in names], dtype=float)
    width = hi - lo

    def params_of(z: np.ndarray) -> dict[str, float]:
        x = lo + np.clip(z[:len(names)], 0.0, 1.0) * width
        return defaults | {k: float(round(v, 6)) for k, v in zip(names, x)}

    seen: dict[tuple[float, ...], tuple[float, np.ndarray]] = {}
    candidates: list[dict[str, Any]] = []

    def score(p: dict[str, float], generation: int) -> float:
        key = tuple(p[k] for k in names)
        if key not in seen:
            w = np.asarray(evaluate(p, settings.seed, 0, settings.games), dtype=np.int8)
            seen[key] = (float(w.mean()) if len(w) else 0.0, w)
            candidates.append({"generation": generation, **{k: p[k] for k in names}, "train_rate": seen[key][0]})
        if progress is not None:
            progress.update(settings.games)
        return seen[key][0]

    z0 = np.clip((np.array([defaults[k] for k in names], dtype=float) - lo) / width, 0.0, 1.0)
    score(defaults, 0)
    dim_pad = 1 if len(names) == 1 else 0  # cma does not search one dimension: a dummy second coordinate
    es = cma.CMAEvolutionStrategy(
        np.concatenate([z0, np.full(dim_pad, 0.5)]), settings.sigma,
        {"bounds": [0.0, 1.0], "popsize": settings.popsize, "seed": settings.seed % (2**31 - 1) + 1,
         "verbose": -9, "verb_log": 0, "verb_disp": 0, "tolflatfitness": 10**9, "tolfun": 0, "tolx": 0})
    for g in range(1, settings.generations + 1):
        zs = es.ask()
        fs = [-score(params_of(np.asarray(z)), g) for z in zs]
        es.tell(zs, fs)
    best_key = max(seen, key=lambda k: seen[k][0])  # max keeps the first of equals: the defaults first
    best = defaults | dict(zip(names, best_key))
    train_best, train_default = seen[best_key][1], seen[tuple(defaults[k] for k in names)][1]
    held_best = np.asarray(evaluate(best, heldout_seed, 0, heldout_games), dtype=np.int8)
    held_default = held_best if best_key == tuple(defaults[k] for k in names) else \
        np.asarray(evaluate(defaults, heldout_seed, 0, heldout_games), dtype=np.int8)
    if progress is not None:
        progress.update(2 * heldout_games)
    check = heldout_check(train_best, held_best, held_default, conf)
    if best_key == tuple(defaults[k] for k in names):  # nothing beat the defaults: nothing to overfit
        check.update(overfit=False, verdict="no candidate beat the defaults on the training games (tuned = defaults)")
    train = {"seed": settings.seed, "games": settings.games, "best": _rate(train_best, conf),
             "defaults": _rate(train_default, conf), "candidates": len(candidates)}
    heldout = {"seed": heldout_seed, "games": heldout_games, "best": _rate(held_best, conf),
               "defaults": _rate(held_default, conf), **check}
    return TuneResult(names, dict(defaults), best, train, heldout, candidates, check["overfit"], check["verdict"])


def tune_games(settings: TuneSettings, n_params: int, heldout_games: int) -> int:
    """Games a tuning plays at most (for the progress bar)."""
    return settings.games * (1 + settings.popsize * settings.generations) + 2 * heldout_games


# ------------------------------------------------------------------------------------------ reading a ladder --
def _where(path: str, text: str, key: str) -> str:
    from .study import _where as w

    return w(path, text, key)


def _number(v: Any, what: str, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InputError(f"{what} must be a finite number, not {v!r}", where)
    return float(v)


def _int(v: Any, what: str, where: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise InputError(f"{what} must be a whole number from {lo:,} to {hi:,}, not {v!r}", where)
    return v


def check_rung(spec: GameSpec, r: Rung, where: str) -> None:
    """A rung's policy, parameters and ranges are ones the game takes (one line otherwise)."""

    if not isinstance(r.label, str) or not r.label.strip():
        raise InputError("a rung needs a label (a text)", where)
    try:
        pol = spec.policy(r.policy, _params_text(r.params))
    except InputError as e:
        raise InputError(f"rung {r.label!r}: {e.message}", where) from None
    if r.tuned:
        if not r.ranges:
            raise InputError(f"rung {r.label!r} is tuned: give ranges = {{ NAME = [LO, HI], ... }} (the box CMA-ES "
                             "searches; a parameter's valid range is far wider than a sensible search)", where)
        b = spec.policies.get(r.policy)
        if len(r.ranges) > MAX_TUNED_PARAMS:
            raise InputError(f"rung {r.label!r}: at most {MAX_TUNED_PARAMS} tuned parameters", where)
        for k, (lo, hi) in r.ranges.items():
            if k not in pol.param_names:
                raise InputError(f"rung {r.label!r}: policy {r.policy!r} has no parameter {k!r} (known: "
                                 f"{', '.join(pol.param_names) or 'none'})", where)
            if not lo < hi:
                raise InputError(f"rung {r.label!r}: range of {k} must be [LO, HI] with LO < HI", where)
            valid = (b.ranges.get(k) if b is not None else None)
            if valid is not None and not (valid[0] <= lo and hi <= valid[1]):
                raise InputError(f"rung {r.label!r}: range of {k} [{lo:g}, {hi:g}] leaves its valid range "
                                 f"{valid[0]:g} .. {valid[1]:g}", where)
            try:  # CMA-ES plays the values between the ends: the middle one stands for them (an on/off switch)
                spec.policy(r.policy, _params_text({**r.params, k: (lo + hi) / 2}))
            except InputError as e:
                raise InputError(f"rung {r.label!r}: range of {k} [{lo:g}, {hi:g}]: the tuning plays the values "
                                 f"between its ends, and {e.message}", where) from None
    elif r.ranges:
        raise InputError(f"rung {r.label!r}: ranges are for tuned rungs (add tuned = true)", where)


def _params_text(params: dict[str, float]) -> str | None:
    return ",".join(f"{k}={v!r}" for k, v in params.items()) or None


def _rung(spec: GameSpec, d: Any, i: int, where: str) -> Rung:
    if not isinstance(d, dict):
        raise InputError(f"rung {i + 1} must be a table ([[rung]])", where)
    unknown = set(d) - RUNG_KEYS
    if unknown:
        raise InputError(f"rung {i + 1}: unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(RUNG_KEYS))})",
                         where)
    if "policy" not in d or not isinstance(d["policy"], str):
        raise InputError(f"rung {i + 1} needs policy = NAME", where)
    params = d.get("params", {})
    ranges = d.get("ranges", {})
    if not isinstance(params, dict) or not isinstance(ranges, dict):
        raise InputError(f"rung {i + 1}: params and ranges are tables ({{ NAME = VALUE }})", where)
    rr = {}
    for k, v in ranges.items():
        if not isinstance(v, list) or len(v) != 2:
            raise InputError(f"rung {i + 1}: ranges.{k} must be [LO, HI]", where)
        rr[k] = (_number(v[0], f"ranges.{k}", where), _number(v[1], f"ranges.{k}", where))
    for key in ("tuned", "heuristic"):
        if not isinstance(d.get(key, False), bool):
            raise InputError(f"rung {i + 1}: {key} must be true or false", where)
    games = d.get("games")
    if games is not None:
        games = _int(games, f"rung {i + 1}: games", where, 1, 10_000_000)
    label = d.get("label", d["policy"])
    if not isinstance(label, str):
        raise InputError(f"rung {i + 1}: label must be a text", where)
    return Rung(label, d["policy"], {k: _number(v, f"params.{k}", where) for k, v in params.items()},
                bool(d.get("tuned", False)), rr, bool(d.get("heuristic", False)), games)


def _heroes(spec: GameSpec, ruleset: Any, heroes: Any, where: str) -> list[str]:
    known = spec.heroes(ruleset)
    if heroes in (None, "all"):
        return list(known)
    if isinstance(heroes, str):
        heroes = [h.strip() for h in heroes.split(",") if h.strip()]
    if not isinstance(heroes, list) or not heroes:
        raise InputError("heroes must be a list of hero names or \"all\"", where)
    for h in heroes:
        if h not in known:
            raise InputError(f"unknown hero {h!r} for {spec.name} ({did_you_mean(h, known)}known: "
                             f"{', '.join(known)})", where)
    return list(dict.fromkeys(heroes))


def _finish(lad: Ladder, spec: GameSpec, *, only: list[str] | None, skip_missing: bool, where: str,
            rung_at: list[str] | None = None) -> Ladder:
    """Select rungs (``only``: labels), drop rungs whose policy the game lacks (``skip_missing``), check them; a
    rung's fault is placed at ``rung_at[i]`` for the i-th rung (its ``[[rung]]`` line) where given, else at
    ``where``."""
    places = list(rung_at) if rung_at is not None and len(rung_at) == len(lad.rungs) else [where] * len(lad.rungs)
    place = {id(r): w for r, w in zip(lad.rungs, places, strict=True)}
    labels = [r.label for r in lad.rungs]
    dup = next((i for i, x in enumerate(labels) if x in labels[:i]), None)
    if dup is not None:  # (at the second rung of that label)
        raise InputError(f"two rungs are labelled {labels[dup]!r}", places[dup])
    if only:
        for i, x in enumerate(only):
            if x not in labels:
                raise InputError(f"no rung labelled {x!r} (rungs: {', '.join(labels)})", "--rungs")
            if x in only[:i]:
                raise InputError(f"names the rung {x!r} twice", "--rungs")
        lad.rungs = [r for r in lad.rungs if r.label in only]
        if len(lad.rungs) < 2:  # (the ladder's own rungs were not the fault: it said so at GAME or the file)
            raise InputError(f"a ladder needs at least two rungs, not {len(lad.rungs)}", "--rungs")
    if skip_missing:
        keep = []
        for r in lad.rungs:
            if r.policy in spec.policies or ".py" in r.policy:
                keep.append(r)
            else:
                lad.skipped.append(r.label)
        lad.rungs = keep
    if len(lad.rungs) < 2:
        raise InputError("a ladder needs at least two rungs", where)
    for r in lad.rungs:
        check_rung(spec, r, "--tune" if where == "GAME" and r.tuned else place[id(r)])  # (a --tune rung's: --tune)
    return lad


def override(lad: Ladder, *, train_seed: int | None = None, train_games: int | None = None,
             popsize: int | None = None, generations: int | None = None, weak_margin: float | None = None,
             hard_gap: float | None = None, conf: float | None = None) -> Ladder:
    """Command-line values over the file's (None: keep)."""
    for k, v in (("seed", train_seed), ("games", train_games), ("popsize", popsize), ("generations", generations)):
        if v is not None:
            setattr(lad.tune, k, v)
    for k, v in (("weak_margin", weak_margin), ("hard_gap", hard_gap), ("conf", conf)):
        if v is not None:
            setattr(lad, k, float(v))
    if lad.tune.heldout_seed is None and lad.tune.seed == lad.seed and any(r.tuned for r in lad.rungs):
        raise InputError("the training seed must differ from the ladder's seed (the held-out games)", "--train-seed")
    return lad


def load_ladder(path: str | Path, *, heroes: list[str] | None = None, rungs: list[str] | None = None,
                skip_missing: bool = False, games: int | None = None, seed: int | None = None) -> Ladder:
    """A ladder file (``experiments/ladder_*.toml``), read and checked completely before anything is played."""
    from .study import CellRunner, check_name, read_experiment

    data, text, ps, spec = read_experiment(path, LADDER_KEYS)

    def at(key: str) -> str:
        return _where(ps, text, key)

    name = check_name(data.get("name", Path(ps).stem), at("name"))
    quick = [f"{k}-{'+'.join(v) if isinstance(v, list) else v}" for k, v in
             (("games", games), ("heroes", heroes), ("rungs", rungs), ("seed", seed)) if v is not None]
    if quick:  # a quick look never shares the full ladder's folder
        from .study import NAME_FORBIDDEN

        raw = "-".join([name, "quick", *quick])
        name = "".join("_" if c in NAME_FORBIDDEN or c.isspace() else c for c in raw)[:100]
    seed = seed if seed is not None else _seed(data.get("seed", 1), at("seed"))
    n = games if games is not None else _int(data.get("games", 10_000), "games", at("games"), 1, 10_000_000)
    conf = data.get("conf", 0.95)
    try:
        check_conf(_number(conf, "conf", at("conf")))
    except InputError as e:
        raise InputError(e.message, at("conf")) from None
    fixed = data.get("fixed", {})
    if not isinstance(fixed, dict) or "hero" in fixed or "policy" in fixed:
        raise InputError("fixed is a table of ruleset settings (and map, rules); heroes and rungs are their own keys",
                         at("fixed"))
    ts = TuneSettings()
    tune = data.get("tune", {})
    if not isinstance(tune, dict) or set(tune) - TUNE_KEYS:
        bad = sorted(set(tune) - TUNE_KEYS)[0] if isinstance(tune, dict) else "tune"
        raise InputError(f"tune: unknown key {bad!r} (known: {', '.join(sorted(TUNE_KEYS))})", at("tune"))
    for k, v in tune.items():
        w = at(f"tune.{k}")  # (not at(k): the ladder's own seed and games have the same names)
        if k in ("seed", "heldout_seed"):
            try:
                setattr(ts, k, _seed(v, w))
            except InputError as e:
                raise InputError(f"tune.{k} {e.message.removeprefix('seed ')}", w) from None
        elif k == "sigma":
            s = _number(v, "tune.sigma", w)
            if not 0 < s <= 1:
                raise InputError("tune.sigma must be above 0 and at most 1 (a share of each range)", w)
            ts.sigma = s
        else:
            lim = {"games": (1, 1_000_000), "popsize": (2, 200), "generations": (1, 1000),
                   "heldout_games": (1, 10_000_000)}[k]
            setattr(ts, k, _int(v, f"tune.{k}", w, *lim))
    verdict = data.get("verdict", {})
    if not isinstance(verdict, dict) or set(verdict) - VERDICT_KEYS:
        raise InputError(f"verdict takes {', '.join(sorted(VERDICT_KEYS))}", at("verdict"))
    margins = {}
    for k, default in (("weak_margin", WEAK_MARGIN), ("hard_gap", HARD_GAP)):
        margins[k] = _number(verdict.get(k, default), f"verdict.{k}", at(f"verdict.{k}"))
        if not 0 <= margins[k] < 1:  # (as --weak-margin and --hard-gap)
            raise InputError(f"verdict.{k} is a win-rate fraction from 0 to below 1 (0.05: 5 points), "
                             f"not {margins[k]:g}", at(f"verdict.{k}"))
    rung_list = data.get("rung")
    if not isinstance(rung_list, list) or not rung_list:
        raise InputError("the ladder needs rungs: [[rung]] tables with label, policy (and params, tuned, ranges, "
                         "heuristic, games)", ps)
    rung_at = _rung_lines(ps, text, len(rung_list), at("rung"))
    rl = [_rung(spec, d, i, rung_at[i]) for i, d in enumerate(rung_list)]
    rs, _, _ = CellRunner(spec).resolve(dict(fixed), at("fixed"))
    hs = heroes if heroes is not None else data.get("heroes", "all")
    lad = Ladder(name, spec.name, seed, n, _heroes(spec, rs, hs, "--hero" if heroes is not None else at("heroes")),
                 rl, ts, float(conf), margins["weak_margin"], margins["hard_gap"], dict(fixed),
                 str(data.get("title", "")), str(data.get("description", "")), ps, text)
    if ts.heldout_seed is None and ts.seed == seed and any(r.tuned for r in rl):
        raise InputError("tune.seed must differ from the ladder's seed (the held-out games)", at("seed"))
    return _finish(lad, spec, only=rungs, skip_missing=skip_missing, where=ps,
                   rung_at=rung_at)


def _rung_lines(path: str, text: str, n: int, fallback: str) -> list[str]:
    """``file:line`` of each of the ``n`` rungs: its ``[[rung]]`` header, in order (``fallback`` for every rung when
    the headers are not ``n``: rungs written as an inline array, ``rung = [{...}, ...]``)."""
    lines = [k + 1 for k, raw in enumerate(text.splitlines()) if re.match(r"\s*\[\[\s*rung\s*\]\]", raw)]
    return [f"{path}:{k}" for k in lines] if len(lines) == n else [fallback] * n


def _seed(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"seed must be a whole number, not {v!r}", where)
    return check_seed(v, where)


def parse_tune_option(text: str) -> Rung:
    """``--tune POLICY:NAME=LO..HI,NAME=LO..HI`` -> a tuned rung labelled ``tuned POLICY``. The ranges are after the
    last ``:`` (names and numbers hold none), so POLICY may be a policy file, ``FILE.py:FUNCTION`` (its rung is
    labelled ``tuned FILENAME.py:FUNCTION``)."""
    if ":" not in text:
        raise InputError("give POLICY:NAME=LO..HI[,NAME=LO..HI] (e.g. threshold:retire_level=1..8, or "
                         "FILE.py:FUNCTION:NAME=LO..HI for a policy file)", "--tune")
    pol, rest = text.rsplit(":", 1)
    ranges = {}
    for item in rest.split(","):
        if "=" not in item or ".." not in item:
            raise InputError(f"{item!r} is not NAME=LO..HI", "--tune")
        k, v = item.split("=", 1)
        a, b = v.split("..", 1)
        try:
            ranges[k.strip()] = (float(a), float(b))
        except ValueError:
            raise InputError(f"{item!r}: LO and HI must be numbers", "--tune") from None
        if not all(math.isfinite(x) for x in ranges[k.strip()]):
            raise InputError(f"{item!r}: LO and HI must be finite", "--tune")
    pol = pol.strip()
    file, _, func = pol.rpartition(":")
    shown = f"{Path(file).name}:{func}" if ".py:" in pol else pol
    return Rung(f"tuned {shown}", pol, tuned=True, ranges=ranges)


def _game_name(game: str, heroes: list[str] | None, rungs: list[str] | None, games: int,
               tune: list[str] | None) -> str:
    """The results folder of a ladder named by its game (never a shipped ladder file's ``ladder_GAME``):
    ``ladder-GAME[-HEROES][-RUNGS]-gamesN[-tuned-DIGEST]``."""
    from .study import NAME_FORBIDDEN

    parts = ["ladder", game, "+".join(heroes or []), "+".join(rungs or []), f"games{games}"]
    if tune:
        parts.append("tuned-" + hashlib.sha256("|".join(tune).encode()).hexdigest()[:8])
    raw = "-".join(p for p in parts if p)
    out = "".join("_" if c in NAME_FORBIDDEN or c.isspace() else c for c in raw)
    return out if len(out) <= 100 else out[:91] + "-" + hashlib.sha256(out.encode()).hexdigest()[:8]


def game_ladder(game: str, *, heroes: list[str] | None = None, tune: list[str] | None = None, seed: int = 1,
                games: int = 10_000, rungs: list[str] | None = None, conf: float = 0.95,
                settings: TuneSettings | None = None, weak_margin: float = WEAK_MARGIN,
                hard_gap: float = HARD_GAP) -> Ladder:
    """The ladder of a game named on the command line: ``random``, then every other built-in policy at its
    defaults in the order the game lists them (those with parameters count as heuristics; the last rung is the
    top), then one tuned rung per ``--tune POLICY:NAME=LO..HI,...``. ``rungs`` keeps only the named ones, and
    every ``--tune`` rung whether named or not: asking for a tuning is asking for its rung (``--rungs`` dropped it
    without a word)."""
    from .study import CellRunner

    spec = get_game(game)
    check_games(games)
    check_seed(seed)
    check_conf(conf)
    names = sorted(spec.policies, key=lambda n: n != "random")  # random first, then as `foury-sim games` lists
    listed = [Rung(n, n, heuristic=bool(spec.policies[n].params)) for n in names]
    tuned = [parse_tune_option(t) for t in tune or []]
    rs, _, _ = CellRunner(spec).resolve({}, "GAME")
    ts = settings or TuneSettings()
    lad = Ladder(_game_name(spec.name, heroes, rungs, games, tune), spec.name, seed, games,
                 _heroes(spec, rs, heroes, "--hero"),
                 listed + tuned, ts, conf, weak_margin, hard_gap)
    only = None if rungs is None else rungs + [t.label for t in tuned if t.label not in rungs]
    return _finish(lad, spec, only=only, skip_missing=False, where="GAME")


# ------------------------------------------------------------------------------------------- running a ladder --
TUNED_FILE = "tuned.toml"


def _tune_key(lad: Ladder, hero: str, r: Rung, code: str) -> str:
    blob = json.dumps({"game": lad.game, "hero": hero, "policy": r.policy, "params": r.params, "ranges": r.ranges,
                       "tune": asdict(lad.tune), "heldout": [lad.heldout_seed, lad.heldout_games],
                       "fixed": lad.fixed, "conf": lad.conf, "code": code}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def read_tuned(path: Path) -> dict[str, Any]:
    """``tuned.toml``: ``{"HERO/LABEL": entry}`` (an unreadable file is refused in one line)."""
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise InputError(f"cannot read the tuned parameters ({str(e).splitlines()[0][:80]}); delete it or run with "
                         "--retune", str(path)) from None
    return {f"{e.get('hero')}/{e.get('rung')}": e for e in data.get("tuned", []) if isinstance(e, dict)}


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(float(v)) if isinstance(v, float) else str(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(str(v))


def write_tuned(path: Path, entries: dict[str, Any]) -> None:
    lines = ["# Tuned policy parameters of a skill ladder (foury-sim ladder): one entry per hero and tuned rung.",
             "# Reused by later runs of the same ladder (same key) unless --retune.", ""]
    for e in entries.values():
        lines.append("[[tuned]]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in e.items() if v is not None]
        lines.append("")
    atomic_write(path, "\n".join(lines))


def _cell_file(cdir: Path, i: int) -> Path:
    return cdir / f"cell_{i:04d}.json"


def _read_cell(f: Path, hero: str, r: Rung, params: dict[str, float], n: int) -> dict[str, Any] | None:
    from .study import _warn

    if not f.is_file():
        return None
    try:
        rec = json.loads(f.read_text(encoding="utf-8"))
        if rec.get("hero") != hero or rec.get("rung") != r.label or rec.get("games") != n or \
                rec.get("params") != params or not isinstance(rec.get("win_bits"), str):
            raise ValueError("written for other settings")
    except (OSError, ValueError, UnicodeDecodeError, AttributeError) as e:
        _warn(f"{f}: damaged cell file ({str(e)[:60]}); recomputing that cell")
        return None
    return rec


def ladder_files(lad: Ladder) -> dict[str, str]:
    """The user files a ladder reads, path -> sha256: its fixed settings' rules, campaign and map files, a map its
    rules file names, and its rungs' policy files (part of the results folder's ``experiment_id``)."""
    from .study import CellRunner, input_files

    rs = CellRunner(get_game(lad.game)).resolve(dict(lad.fixed), lad.path or lad.game)[0]
    return input_files([lad.fixed] + [{"policy": r.policy} for r in lad.rungs], lad.game, [rs])


def run_ladder(lad: Ladder, out_root: str | Path = "results", *, resume: bool = False, retune: bool = False,
               tuned_file: str | Path | None = None, progress: bool | None = None, threads: int | None = None,
               cmd_args: list[str] | None = None) -> Path:
    """Tune (or reuse) the tuned rungs, play every (hero, rung) cell on the ladder's seed and write
    ``OUT/NAME/``: ``ladder.csv``/``.parquet``, ``summary.json``, ``ladder.png``, ``README.md``, ``tuned.toml``,
    ``manifest.json`` and ``cells/``. Each cell and each tuning is written as soon as it is done; ``resume`` keeps
    the cells already written."""
    from .study import FolderLock, check_owner, code_version, experiment_id, open_results

    spec = get_game(lad.game)
    files = ladder_files(lad)
    ident = experiment_id("ladder", lad.normalised(), files)
    cmd = provenance.command("ladder", lad.path or lad.game, ["--resume", "--out", str(out_root), *(cmd_args or [])])
    out = open_results(out_root, lad.name)
    with FolderLock(out):
        old = check_owner(out, "ladder", ident, lad.path or lad.game, lad.text or json.dumps(lad.normalised()))
        code = code_version(lad.game)
        if resume and old is not None and old.get("code_version", code) != code:
            raise InputError("the rules code changed since those cells were computed; run without --resume", str(out))
        clean_temp(out)
        cdir = out / "cells"
        cdir.mkdir(exist_ok=True)
        if not resume:
            for f in cdir.glob("cell_*"):
                f.unlink()
        manifest = {"kind": "ladder", "experiment_id": ident, "code_version": code, "input_files": files,
                    "name": lad.name, "title": lad.title, "game": lad.game, "experiment_text": lad.text or
                    json.dumps(to_jsonable(lad.normalised())), "experiment_path": lad.path or None,
                    "ladder": lad.normalised(), "skipped_rungs": lad.skipped, "package_version": __version__,
                    "git_commit": provenance.git_commit(), "python": platform.python_version(),
                    "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        atomic_write(out / "manifest.json", json.dumps(to_jsonable(manifest), indent=2))
        tpath = Path(tuned_file) if tuned_file is not None else out / TUNED_FILE
        tuned = {} if retune else read_tuned(tpath)
        t0 = time.time()
        try:
            records = _play(lad, spec, out, cdir, tuned, code, resume, progress, threads)
        except KeyboardInterrupt:
            n = sum(1 for _ in cdir.glob("cell_*.json"))
            raise Interrupted(f"{n} of {len(lad.heroes) * len(lad.rungs)} cells written to {out}; resume with: "
                              f"{cmd}") from None
        except WriteError as e:
            raise WriteError(f"{e.message}; resume with: {cmd}", e.where) from None
        if any(r.tuned for r in lad.rungs):  # the folder keeps the parameters it played (also when read elsewhere)
            write_tuned(out / TUNED_FILE, tuned)
        res = analyse(lad, records)
        manifest.update(finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"), elapsed_s=round(time.time() - t0, 3))
        atomic_write(out / "manifest.json", json.dumps(to_jsonable(manifest), indent=2))
        try:
            write_results(lad, res, out, cmd.replace(" --resume", ""), tuned)
        except WriteError as e:  # (the ladder was computed: the CLI prints it all the same; every cell is kept)
            clean_temp(out)
            err = WriteError(f"{e.message}; the ladder above was not saved (its cells are): free space, then "
                             f"resume with: {cmd}", e.where)
            err.result = format_ladder(lad, res, tuned)
            raise err from None
        clean_temp(out)
    return out


def _play(lad: Ladder, spec: GameSpec, out: Path, cdir: Path, tuned: dict[str, Any], code: str, resume: bool,
          progress: bool | None, threads: int | None) -> list[dict[str, Any]]:
    from .study import CellRunner, cell_record

    runner = CellRunner(spec)
    base = dict(lad.fixed)
    todo_tune = [(h, r) for h in lad.heroes for r in lad.rungs if r.tuned and
                 tuned.get(f"{h}/{r.label}", {}).get("key") != _tune_key(lad, h, r, code)]
    total = sum(lad.rung_games(r) for r in lad.rungs) * len(lad.heroes) + \
        sum(tune_games(lad.tune, len(r.ranges), lad.heldout_games) for _, r in todo_tune)
    bar = Progress(total, label="games (tuning and rungs)", enabled=progress) if progress is not False else None
    records: list[dict[str, Any]] = []
    try:
        with numba_threads(threads):
            for h in lad.heroes:
                for j, r in enumerate(lad.rungs):
                    i = lad.heroes.index(h) * len(lad.rungs) + j
                    params = dict(r.params)
                    if r.tuned:
                        key = _tune_key(lad, h, r, code)
                        entry = tuned.get(f"{h}/{r.label}")
                        if entry is None or entry.get("key") != key:
                            entry = _tune(lad, spec, runner, base, h, r, key, bar)
                            tuned[f"{h}/{r.label}"] = entry
                            write_tuned(out / TUNED_FILE, tuned)
                        params = {k: float(v) for k, v in entry["params"].items()}
                    n = lad.rung_games(r)
                    rec = _read_cell(_cell_file(cdir, i), h, r, params, n) if resume else None
                    if rec is None:
                        settings = base | {"hero": h, "policy": r.policy} | {f"param.{k}": v for k, v in params.items()}
                        rs, hero, pol = runner.resolve(settings, f"rung {r.label!r}")
                        t0 = time.perf_counter()
                        with policy_given_at(lad.path or "GAME", f"rung {r.label!r}: "):
                            df, extras = play_games(spec, rs, hero, pol, lad.seed, 0, n, bar)
                        rec = cell_record(spec, i, settings, ["hero", "policy"], rs, df, extras,
                                          time.perf_counter() - t0, lad.conf)
                        rec.update(hero=h, rung=r.label, policy=r.policy, params=params,
                                   policy_text=pol.describe(),
                                   provenance=_cell_provenance(lad, h, r, pol, params, n, rs))
                        atomic_write(_cell_file(cdir, i), json.dumps(to_jsonable(rec)))
                    elif bar is not None:
                        bar.update(n)
                    records.append(rec)
    finally:
        if bar is not None:
            bar.close()
    return records


def _cell_provenance(lad: Ladder, hero: str, r: Rung, pol: Any, params: dict[str, float], n: int,
                     rs: Any = None) -> dict[str, Any]:
    """A cell's ``run`` record: the fixed settings as ``run`` takes them (the game's own options, such as a second
    side's policy, as their flags, not as ``--set``, which refused them); the files its ruleset ``rs`` read that a
    ruleset key named (``GameSpec.files_read``)."""
    from .study import run_option_settings

    spec = get_game(lad.game)
    options, plain = run_option_settings(spec, lad.fixed)
    sets = {k: v for k, v in plain.items() if k not in ("map", "rules")}
    return provenance.run_record(lad.game, hero=hero, policy=pol, params=_params_text(params), games=n,
                                 seed=lad.seed, conf=lad.conf, rules=lad.fixed.get("rules"), sets=sets or None,
                                 map=lad.fixed.get("map"), options=options,
                                 defaults={o.name: o.default for o in spec.options if "run" in o.commands},
                                 read_files=spec.read_files(rs))


def _tune(lad: Ladder, spec: GameSpec, runner: Any, base: dict[str, Any], hero: str, r: Rung, key: str,
          bar: Progress | None) -> dict[str, Any]:
    from .policy import make_policy

    defaults = dict(zip(*_defaults(spec, r)))

    def evaluate(p: dict[str, float], seed: int, start: int, count: int) -> np.ndarray:
        settings = base | {"hero": hero, "policy": r.policy} | {f"param.{k}": v for k, v in p.items()}
        rs, h, pol = runner.resolve(settings, f"rung {r.label!r}")
        with policy_given_at(lad.path or "GAME", f"rung {r.label!r}: "):
            df, _ = play_games(spec, rs, h, pol, seed, start, count, None)
        return df["win"].to_numpy().astype(np.int8)

    res = tune_policy(evaluate, r.ranges, defaults, lad.tune, heldout_seed=lad.heldout_seed,
                      heldout_games=lad.heldout_games, conf=lad.conf, progress=bar)
    pol = make_policy(r.policy, spec.policies, _params_text(res.best))
    return {"hero": hero, "rung": r.label, "policy": r.policy, "key": key, "params": res.best,
            "defaults": res.defaults, "ranges": {k: list(v) for k, v in r.ranges.items()},
            "train_seed": lad.tune.seed, "train_games": lad.tune.games, "popsize": lad.tune.popsize,
            "generations": lad.tune.generations, "candidates": res.train["candidates"],
            "train_rate": res.train["best"]["rate"], "train_default_rate": res.train["defaults"]["rate"],
            "heldout_seed": lad.heldout_seed, "heldout_games": lad.heldout_games,
            "heldout_rate": res.heldout["best"]["rate"], "heldout_default_rate": res.heldout["defaults"]["rate"],
            "heldout_gain": res.heldout["gain"], "heldout_gain_lo": res.heldout["gain_lo"],
            "heldout_gain_hi": res.heldout["gain_hi"], "heldout_gain_p": res.heldout["gain_p"],
            "gap_p": res.heldout["gap_p"], "overfit": res.overfit, "verdict": res.verdict,
            "policy_text": pol.describe(), "version": __version__, "git_commit": provenance.git_commit() or "",
            "tuned_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def _defaults(spec: GameSpec, r: Rung) -> tuple[list[str], list[float]]:
    from .policy import make_policy

    pol = make_policy(r.policy, spec.policies, _params_text(r.params))
    return list(pol.param_names), [float(v) for v in pol.params]


# ---------------------------------------------------------------------------------------------- the analysis --
@dataclass
class LadderResult:
    table: pd.DataFrame
    verdicts: pd.DataFrame
    field: float
    conf: float


def _wins(rec: dict[str, Any]) -> np.ndarray:
    from .study import read_win_bits

    return read_win_bits(rec["win_bits"], int(rec["games"]))


def joint_conf(conf: float, heroes: int) -> float:
    """The level of each hero's top-rung interval in the weak verdict: ``1 - (1 - conf) / heroes`` (Bonferroni), so
    that every hero's interval covers its rate at once with probability at least ``conf``, whatever the dice the
    heroes share (docs/ladder.md, "Verdicts")."""
    return 1.0 - (1.0 - float(conf)) / max(int(heroes), 1)


def gap_conf(conf: float, pairs: int) -> float:
    """The level of a hero's gap interval (top rung minus best heuristic) in the hard-to-play verdict: ``1 - (1 -
    conf) / pairs`` (Bonferroni), ``pairs`` the (rung, heuristic rung) pairs the top and the best heuristic are
    picked from (the top is the rung with the highest win rate; when that is a heuristic it is the best heuristic,
    and the gap is 0). If every such pair's interval covers its gap (probability at least ``conf``), so does the
    picked pair's: picking the highest rates does not inflate the verdict (docs/ladder.md, "Verdicts")."""
    return 1.0 - (1.0 - float(conf)) / max(int(pairs), 1)


def gap_pairs(rungs: int, heuristics: int) -> int:
    """The candidate (top, best heuristic) pairs of a hero: each non-heuristic rung with each heuristic rung."""
    return max(int(heuristics) * (int(rungs) - int(heuristics)), 1)


def verdicts(rows: pd.DataFrame, conf: float, weak_margin: float, hard_gap: float) -> tuple[pd.DataFrame, float]:
    """The two verdicts of each hero from its rungs' numbers (``rows``: one per hero and rung in ladder order with
    ``hero``, ``label``, ``heuristic``, ``games``, ``wins``, ``win_rate``, ``win_lo``, ``win_hi``; and for each hero's
    top rung ``top_gap``, ``top_gap_lo``, ``top_gap_hi``: top minus best heuristic, paired, at ``top_gap_conf``
    (``gap_conf`` over ``top_gap_pairs`` pairs; ``conf`` when absent)). See the module docstring.

    The field (the median of the K heroes' top-rung rates) is an estimate too: the weak verdict takes every top
    rung's Wilson interval at ``joint_conf(conf, K)`` (``joint_lo``, ``joint_hi``: all K cover together with
    probability >= ``conf``), and then the field's true value lies in ``[field_lo, field_hi]`` = [median of the lower
    bounds, median of the upper bounds] (a median never falls when one of its values rises). ``yes``: ``joint_hi <
    field_lo - weak_margin``; ``no``: ``joint_lo >= field_hi - weak_margin``; else ``unresolved``: every hero's weak
    verdict is right together with probability >= ``conf``."""
    if "is_top" in rows:  # the strongest player measured for each hero (``analyse``)
        tops = rows[rows["is_top"].fillna(False).astype(bool)].set_index("hero")
    else:
        tops = rows.groupby("hero", sort=False).tail(1).set_index("hero")
    field = float(np.median(tops["win_rate"])) if len(tops) > 1 else math.nan
    jconf = joint_conf(conf, len(tops))
    joint = {hero: stats.wilson(int(t["wins"]), int(t["games"]), jconf) for hero, t in tops.iterrows()}
    field_lo = float(np.median([lo for lo, _ in joint.values()])) if len(tops) > 1 else math.nan
    field_hi = float(np.median([hi for _, hi in joint.values()])) if len(tops) > 1 else math.nan
    out = []
    for hero, t in tops.iterrows():
        bar = field - weak_margin
        jlo, jhi = joint[hero]
        if math.isnan(field):
            weak = "n/a"
        elif jhi < field_lo - weak_margin:
            weak = "yes"
        elif jlo >= field_hi - weak_margin:
            weak = "no"
        else:
            weak = "unresolved"
        g, glo, ghi = t.get("top_gap", math.nan), t.get("top_gap_lo", math.nan), t.get("top_gap_hi", math.nan)
        gconf, gpairs = t.get("top_gap_conf", math.nan), t.get("top_gap_pairs", math.nan)
        if gconf is None or not math.isfinite(float(gconf)):
            gconf, gpairs = float(conf), 1
        if g is None or (isinstance(g, float) and math.isnan(g)):
            hard = "n/a"
        elif glo > hard_gap:
            hard = "yes"
        elif ghi < hard_gap:
            hard = "no"
        else:
            hard = "unresolved"
        out.append({"hero": hero, "top_rung": t["label"], "top_rate": t["win_rate"], "top_lo": t["win_lo"],
                    "top_hi": t["win_hi"], "joint_conf": jconf, "joint_lo": jlo, "joint_hi": jhi, "field": field,
                    "field_lo": field_lo, "field_hi": field_hi, "weak_below": bar,
                    "weak_yes_below": field_lo - weak_margin, "weak_no_from": field_hi - weak_margin, "weak": weak,
                    "best_heuristic": t.get("best_heuristic"), "gap": g, "gap_lo": glo, "gap_hi": ghi,
                    "gap_conf": float(gconf), "gap_pairs": int(gpairs), "hard_gap": hard_gap,
                    "hard_to_play": hard})
    return pd.DataFrame(out), field


def analyse(lad: Ladder, records: list[dict[str, Any]]) -> LadderResult:
    """The ladder table (one row per hero and rung, paired differences with the previous rung, Holm-adjusted over
    the whole ladder) and the verdicts."""
    rows = []
    wins = {}
    for rec in records:
        r = next(x for x in lad.rungs if x.label == rec["rung"])
        w = _wins(rec)
        wins[(rec["hero"], r.label)] = w
        lo, hi = stats.wilson(int(w.sum()), len(w), lad.conf)
        rows.append({"hero": rec["hero"], "rung": lad.rungs.index(r) + 1, "label": r.label, "policy": r.policy,
                     "tuned": r.tuned, "heuristic": r.heuristic, "params": rec.get("policy_text", r.policy),
                     "games": len(w), "wins": int(w.sum()), "win_rate": float(w.mean()), "win_lo": lo, "win_hi": hi,
                     "command": rec.get("provenance", {}).get("command")})
    df = pd.DataFrame(rows)
    for c in ("diff", "diff_lo", "diff_hi", "p", "p_holm", "paired_games", "top_gap", "top_gap_lo", "top_gap_hi",
              "top_gap_conf", "top_gap_pairs"):
        df[c] = np.nan
    df["significant"] = False
    df["best_heuristic"] = None
    df["is_top"] = False
    for hero in lad.heroes:
        idx = df.index[df["hero"] == hero].tolist()
        for a, b in zip(idx, idx[1:]):
            wa, wb = wins[(hero, df.at[a, "label"])], wins[(hero, df.at[b, "label"])]
            m = min(len(wa), len(wb))
            d = stats.paired_rate_diff(wa[:m], wb[:m], lad.conf)
            df.loc[b, ["diff", "diff_lo", "diff_hi", "p", "paired_games"]] = [d["diff"], d["lo"], d["hi"],
                                                                            d["p_value"], m]
        # the top of the ladder: the strongest player measured for this hero (highest win rate; a tie goes to
        # the later rung), whichever rung it is -- a search at a small budget may not beat a tuned heuristic
        top = max(idx, key=lambda i: (df.at[i, "win_rate"], i))
        df.at[top, "is_top"] = True
        heur = [i for i in idx if df.at[i, "heuristic"]]
        if heur:
            best = max(heur, key=lambda i: (df.at[i, "win_rate"], i))
            wa, wb = wins[(hero, df.at[best, "label"])], wins[(hero, df.at[top, "label"])]
            m = min(len(wa), len(wb))
            # the pair is picked by the rates it is measured on: its interval at the Bonferroni level over every
            # pair it could have been (``gap_conf``), so the verdict holds at ``conf`` for the pair picked
            k = gap_pairs(len(idx), len(heur))
            d = stats.paired_rate_diff(wa[:m], wb[:m], gap_conf(lad.conf, k))
            df.loc[top, ["top_gap", "top_gap_lo", "top_gap_hi", "top_gap_conf", "top_gap_pairs"]] = \
                [d["diff"], d["lo"], d["hi"], gap_conf(lad.conf, k), k]
            df.at[top, "best_heuristic"] = df.at[best, "label"]
    ok = df["p"].notna()
    df.loc[ok, "p_holm"] = stats.adjust_pvalues(df.loc[ok, "p"].to_numpy(), "holm")
    df.loc[ok, "significant"] = (df.loc[ok, "p_holm"] < 1 - lad.conf) & \
        ((df.loc[ok, "diff_lo"] > 0) | (df.loc[ok, "diff_hi"] < 0))
    v, field_ = verdicts(df, lad.conf, lad.weak_margin, lad.hard_gap)
    return LadderResult(df, v, field_, lad.conf)


# ------------------------------------------------------------------------------------------------- the output --
def _pct(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f} %"


def _pts(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:+.1f}"


def _p(p: float) -> str:
    return "<1e-15" if p < 1e-15 else f"={p:.2g}"


def format_ladder(lad: Ladder, res: LadderResult, tuned: dict[str, Any] | None = None) -> str:
    """The text table, the tuning checks and the verdicts."""
    pc = f"{100 * res.conf:g} %"
    lines = [f"Skill ladder: {lad.game}, seed {lad.seed}, games 0..n-1 of the same seed on every rung (paired); "
             f"{pc} intervals; 'vs previous' = paired difference, McNemar p Holm-adjusted over "
             f"{int(res.table['p'].notna().sum())} comparisons, * = significant at {100 * (1 - res.conf):g} %", ""]
    lw = min(max([18, *(len(str(x)) for x in res.table["label"])]), 40)  # (a policy file's label: tuned FILE:FUNC)
    head = f"{'hero':<12} {'rung':<{lw}} {'games':>7} {'win rate':>9} {'interval':>15} vs previous (pts, Holm p)"
    lines += [head, "-" * len(head)]
    for _, r in res.table.iterrows():
        vs = "" if math.isnan(r["diff"]) else (f"{_pts(r['diff'])} [{_pts(r['diff_lo'])}, {_pts(r['diff_hi'])}] "
                                              f"p{_p(r['p_holm'])}{' *' if r['significant'] else ''}")
        iv = f"[{100 * r['win_lo']:.1f}, {100 * r['win_hi']:.1f}]"
        lines.append(f"{r['hero']:<12} {r['label'][:lw]:<{lw}} {r['games']:>7,} {_pct(r['win_rate']):>9} {iv:>15} "
                     f"{vs}")
    if tuned:
        lines += ["", "Tuned rungs (CMA-ES on training seeds; best and defaults replayed on held-out seeds):"]
        for e in tuned.values():
            if e.get("hero") not in lad.heroes:
                continue
            lines.append(f"  {e['hero']:<12} {e['rung']}: train {_pct(e['train_rate'])} (defaults "
                         f"{_pct(e['train_default_rate'])}), held-out {_pct(e['heldout_rate'])} (defaults "
                         f"{_pct(e['heldout_default_rate'])}, gain {_pts(e['heldout_gain'])} pts "
                         f"[{_pts(e['heldout_gain_lo'])}, {_pts(e['heldout_gain_hi'])}]) -> "
                         f"{'OVERFIT: ' if e['overfit'] else ''}{e['verdict']}")
            lines.append(f"  {'':<12} {e['policy_text']}")
    vs = res.verdicts
    m = f"{100 * lad.weak_margin:g} pts"
    if len(vs) > 1 and not math.isnan(res.field):
        jc = f"{100 * float(vs['joint_conf'].iloc[0]):.4g} %"
        weak = (f"field = median top-rung rate {_pct(res.field)} [{_pct(vs['field_lo'].iloc[0])}, "
                f"{_pct(vs['field_hi'].iloc[0])}] (the medians of the tops' {jc} bounds); weak: yes when a top's {jc} "
                f"interval lies below the field's low end - {m}, no when it lies at or above its high end - {m} "
                f"({jc} each: Bonferroni over {len(vs)} heroes, so that all weak verdicts hold together at {pc})")
    else:
        weak = f"field = median top-rung rate {_pct(res.field)}; weak: n/a with one hero"
    known = vs[vs["hard_to_play"] != "n/a"] if len(vs) else vs
    levels = sorted({(float(c), int(k)) for c, k in zip(known["gap_conf"], known["gap_pairs"])}) if len(known) else []
    if len(levels) == 1 and levels[0][1] > 1:
        gc, k = f"{100 * levels[0][0]:.4g} %", levels[0][1]
        hard = (f"paired {gc} interval (Bonferroni over the {k} (non-heuristic rung, heuristic rung) pairs the top "
                f"and the best heuristic are picked from, so that the verdict holds at {pc} for the pair picked)")
    elif len(levels) == 1:
        hard = f"paired {100 * levels[0][0]:.4g} % interval"
    else:
        hard = (f"paired interval at 1 - {100 * (1 - res.conf):g} % / k (Bonferroni over the k (non-heuristic rung, "
                f"heuristic rung) pairs the top and the best heuristic are picked from; the level beside each gap)")
    lines += ["", f"Verdicts ({weak}; hard to play: top minus best heuristic, {hard} above "
                  f"{100 * lad.hard_gap:g} pts; 'unresolved' where the interval straddles the threshold):"]
    for _, v in vs.iterrows():
        lvl = "" if len(levels) == 1 else f" ({100 * v['gap_conf']:.4g} %)"
        gap = "" if v["hard_to_play"] == "n/a" else (f" (top - {v['best_heuristic']}: {_pts(v['gap'])} pts "
                                                     f"[{_pts(v['gap_lo'])}, {_pts(v['gap_hi'])}]{lvl})")
        joint = "" if v["weak"] == "n/a" else (f" ({100 * v['joint_conf']:.4g} %: [{_pct(v['joint_lo'])}, "
                                               f"{_pct(v['joint_hi'])}])")
        lines.append(f"  {v['hero']:<12} weak: {v['weak']:<10} hard to play: {v['hard_to_play']}{gap}; top "
                     f"{v['top_rung']} {_pct(v['top_rate'])} [{_pct(v['top_lo'])}, {_pct(v['top_hi'])}]{joint}")
    if lad.skipped:
        lines += ["", f"Skipped rungs (policy not in this build): {', '.join(lad.skipped)}"]
    return "\n".join(lines)


def ladder_figure(res: LadderResult, title: str) -> Any:
    """Win rate against rung, one line per hero, Wilson interval bars (Okabe-Ito colours as ``figures``)."""
    from .figures import _PALETTE, DPI, KNOWN_COLORS, _figure

    df = res.table
    labels = list(dict.fromkeys(df["label"]))
    heroes = list(dict.fromkeys(df["hero"]))
    fig = _figure(max(6.0, 1.1 * len(labels) + 2.5), 4.5)
    ax = fig.add_subplot(111)
    n = len(heroes)
    for k, h in enumerate(heroes):
        d = df[df["hero"] == h]
        x = np.array([labels.index(lbl) for lbl in d["label"]], dtype=float) + (k - (n - 1) / 2) * 0.06
        y = 100 * d["win_rate"].to_numpy()
        err = 100 * np.vstack([d["win_rate"] - d["win_lo"], d["win_hi"] - d["win_rate"]])
        ax.errorbar(x, y, yerr=err, marker="o", ms=4, lw=1.4, capsize=3,
                    color=KNOWN_COLORS.get(h, _PALETTE[k % len(_PALETTE)]), label=h)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=20, ha="right")
    ax.set_ylabel(f"win rate (%), {100 * res.conf:g} % Wilson intervals")
    ax.set_xlabel("rung (weaker to stronger player)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncol=2 if n > 5 else 1, frameon=False)
    fig.set_dpi(DPI)
    return fig


def figure_note(lad: Ladder, res: LadderResult) -> str:
    """How a ladder was made, at its figure's foot (``provenance.figure_note``): game, fixed settings, the policy
    (one per rung), seed, games per hero and rung, version and commit."""
    g = res.table["games"]
    per = f"{int(g.min()):,}" + (f" to {int(g.max()):,}" if g.nunique() > 1 else "")
    return provenance.figure_note(lad.game, fixed=lad.fixed, seed=lad.seed, swept=("hero", "policy"),
                                  varies="per rung", games=f"{per} games per hero and rung",
                                  made={"version": __version__, "git_commit": provenance.git_commit()})


def _assumptions(lad: Ladder) -> list[dict[str, Any]]:
    """The values no rulebook prints that every cell of the ladder rests on (``assumptions.records`` of the ruleset of
    its fixed settings, the heroes of the ladder's sheets only), as a run's and a sweep's records name them."""
    from .study import CellRunner

    rs, _, _ = CellRunner(get_game(lad.game)).resolve(dict(lad.fixed))
    kept = {r["key"] for h in lad.heroes for r in assume.records(rs, h)}
    return [r for r in assume.records(rs) if r["key"] in kept]


def write_results(lad: Ladder, res: LadderResult, out: Path, cmd: str, tuned: dict[str, Any]) -> list[Path]:
    text = format_ladder(lad, res, tuned)
    write_frame(res.table, out / "ladder.csv")
    write_frame(res.table, out / "ladder.parquet")
    write_frame(res.verdicts, out / "verdicts.csv")
    from .figures import made_footer

    fig = ladder_figure(res, lad.title or f"Skill ladder: {lad.game}")
    made_footer(fig, figure_note(lad, res))
    save_figure(fig, out / "ladder.png", dpi=120)
    summary = {"name": lad.name, "game": lad.game, "seed": lad.seed, "games": lad.games, "conf": lad.conf,
               "command": cmd, "rungs": [asdict(r) for r in lad.rungs], "skipped_rungs": lad.skipped,
               "tune": asdict(lad.tune) | {"heldout_seed": lad.heldout_seed, "heldout_games": lad.heldout_games},
               "weak_margin": lad.weak_margin, "hard_gap": lad.hard_gap, "field": res.field,
               "verdicts": res.verdicts.to_dict("records"), "table": res.table.to_dict("records"),
               "tuned": [e for e in tuned.values() if e.get("hero") in lad.heroes],
               "version": __version__, "git_commit": provenance.git_commit(), "assumptions": _assumptions(lad)}
    atomic_write(out / "summary.json", json.dumps(to_jsonable(summary), indent=2))
    atomic_write(out / "ladder.txt", text + "\n")
    rests = assume.summary_lines(summary["assumptions"])
    about = [lad.description.strip(), ""] if lad.description.strip() else []  # (no description: no blank lines)
    readme = [f"# {lad.title.strip() or 'Skill ladder: ' + lad.game}", "", *about, f"Made with: `{cmd}`", "",
              "Files: `ladder.csv`/`ladder.parquet` (one row per hero and rung: win rate, Wilson interval, paired "
              "difference with the previous rung, Holm-adjusted p, the `foury-sim run` command of the cell), "
              "`verdicts.csv`, `summary.json` (everything, with provenance), `ladder.png`, `tuned.toml` (tuned "
              "parameters, reused unless --retune), `cells/` (one record per hero and rung, with per-game wins). "
              "Method: docs/ladder.md.", "", "![win rate by rung](ladder.png)", "", "```", text,
              *(["", *rests] if rests else []), "```", ""]
    atomic_write(out / "README.md", "\n".join(readme))
    return [out / p for p in ("ladder.csv", "ladder.parquet", "verdicts.csv", "ladder.png", "summary.json",
                              "README.md")]
