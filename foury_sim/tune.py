"""``foury-sim tune``: which value of one setting gives a target win rate (or any summary metric).

The search is written over an evaluation function ``evaluate(value, start, count) -> per-game metric values``
(games ``start .. start+count-1``), so it can be checked on a synthetic response with a known root without
simulating a game (``tests/test_tune.py``); ``tune`` builds that function over a registered game.

Method (docs/tune.md):

* **Common dice.** Every candidate value plays the same game indices (game i on stream (seed, i)): a candidate
  with n games has played games 0 .. n-1, and more games extend that prefix. Neighbouring candidates are
  paired, so their differences are measured with far less noise than their levels.
* **First look.** A coarse grid over the range (``points`` values, integers for an integer setting), each with
  a small number of games; the direction (increasing or decreasing) is read from the paired difference of the
  two ends, and adjacent pairs whose paired difference goes significantly against that direction (Holm over the
  pairs) mark the response as not monotone in the range.
* **Bracketing with sequential intervals.** The target is bracketed between two neighbouring candidates; a new
  candidate goes inside the bracket (the linear-interpolation root, kept in the middle half of the bracket: a
  safeguarded regula falsi; for an integer setting, an integer strictly inside). The candidate nearest the
  target gets more games (doubling) until its interval (Wilson for a rate, Student t for a mean) lies inside the
  band ``target ± tolerance`` or clearly outside it. Games go only to candidates near the target.
* **Answer.** The chosen value is a measured candidate (its rate and interval are measured, not interpolated);
  the values consistent with the target are those a monotone response does not rule out of the band
  ``target ± tolerance`` (``band_interval``: between the last candidate whose interval lies wholly on the near
  side of the band and the first wholly beyond it), so a chosen value shown within the band is one of them.
  For an integer setting with no integer in the band, the two neighbours that bracket the target are reported
  with their rates and intervals.

A whole list is tuned either element by element to a curve of targets (``search_vector``) or, as a one-scalar
family, through one number ``s`` (``schedule = base + s x step``, ``search_family``: the scalar search over ``s``,
or over the distinct schedules along ``s`` when a whole-number list is rounded).
"""

from __future__ import annotations

import json
import math
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import stats
from .errors import InputError, policy_given_at
from .lazy import pd
from .outputs import MEAN, RATE
from .provenance import number_text

Evaluate = Callable[[float, int, int], np.ndarray]

#: outcome of a search (``TuneResult.status``)
HIT = "hit"  #: the chosen value's interval lies inside the band
BETWEEN = "between"  #: integer setting: no integer is in the band; the two neighbours bracket the target
BUDGET = "budget"  #: the game budget ran out before a value was shown to be in the band (or between)
EDGE = "edge"  #: the chosen value's narrow interval straddles an edge of the band: it sits on the edge
NOT_REACHED = "not_reached"  #: the target lies beyond what the range reaches
FLAT = "flat"  #: the setting does not move the metric detectably in the range
STATUSES = (HIT, BETWEEN, EDGE, BUDGET, NOT_REACHED, FLAT)


@dataclass
class Candidate:
    """One value tried and its per-game metric values (games 0 .. n-1 of the common streams)."""

    value: float
    x: np.ndarray

    @property
    def n(self) -> int:
        return int(self.x.size)


@dataclass
class TuneResult:
    """What a search found (``to_dict`` for the JSON record)."""

    param: str
    metric: str
    kind: str  #: RATE or MEAN
    target: float
    tolerance: float
    conf: float
    lo: float
    hi: float
    integer: bool
    status: str
    value: float | None  #: the chosen value (a measured candidate)
    direction: int  #: the direction the search followed: +1 rising, -1 falling, 0 none (see ``detected``)
    monotone: bool
    interval: tuple[float, float] | None  #: values whose calibration band contains the target
    neighbours: list[float] = field(default_factory=list)  #: integer setting: the two values bracketing the target
    table: pd.DataFrame = field(default_factory=pd.DataFrame)  #: one row per candidate
    games: int = 0
    warnings: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    #: the direction is shown, not only followed: the paired difference of the two ends is significant at ``conf``
    #: (else ``direction`` is the sign of the least-squares slope, a point estimate the words do not claim)
    detected: bool = True

    def row(self, value: float) -> dict[str, Any]:
        t = self.table[self.table["value"] == value]
        return t.iloc[0].to_dict()

    def to_dict(self) -> dict[str, Any]:
        from .files import to_jsonable

        return to_jsonable({
            "param": self.param, "metric": self.metric, "kind": self.kind, "target": self.target,
            "tolerance": self.tolerance, "conf": self.conf, "range": [self.lo, self.hi], "integer": self.integer,
            "status": self.status, "value": self.value, "direction": self.direction,
            "direction_detected": self.detected, "monotone": self.monotone,
            "interval": list(self.interval) if self.interval else None, "neighbours": self.neighbours,
            "games": self.games, "answer": answer_line(self), "warnings": self.warnings, "settings": self.settings,
            "candidates": self.table.to_dict(orient="records"), **self.extra,
        })


# ------------------------------------------------------------------------------------------ statistics --
def estimate(x: np.ndarray, kind: str, conf: float) -> tuple[float, float, float]:
    """(estimate, lo, hi): a rate with its Wilson interval, or a mean with its t interval."""
    n = x.size
    if kind == RATE:
        k = int(np.count_nonzero(x))
        lo, hi = stats.wilson(k, n, conf)
        return (k / n if n else math.nan), lo, hi
    m, lo, hi = stats.mean_ci(x, conf)
    if math.isnan(lo):
        return m, -math.inf, math.inf
    return m, lo, hi


def paired_p(a: np.ndarray, b: np.ndarray, kind: str, conf: float) -> tuple[float, float]:
    """(b - a, p-value) on the games both played (a common prefix of the streams)."""
    n = min(a.size, b.size)
    if n < 2:
        return float(b.mean() - a.mean()) if n else 0.0, 1.0
    if kind == RATE:
        d = stats.paired_rate_diff(a[:n], b[:n], conf)
    elif np.ptp(b[:n] - a[:n]) <= 1e-9 * max(1.0, float(np.abs(b[:n] - a[:n]).max())):
        diff = float(b[0] - a[0])  # the same difference in every game: no spread to test against
        return diff, (0.0 if diff else 1.0)
    else:
        d = stats.paired_mean_diff(a[:n], b[:n], conf)
    p = d["p_value"]
    return float(d["diff"]), (1.0 if p is None or math.isnan(p) else float(p))


def games_for_halfwidth(kind: str, target: float, half: float, conf: float, sd: float | None = None) -> int:
    """Games for an interval half as wide as ``half`` at the target (normal approximation)."""
    z = stats.z_value(conf)
    if kind == RATE:
        p = min(max(target, 0.05), 0.95)
        var = p * (1 - p)
    else:
        var = (sd if sd and sd > 0 else 1.0) ** 2
    return max(2, math.ceil(z * z * var / (half * half)))


def band_interval(values: np.ndarray, lo: np.ndarray, hi: np.ndarray, target: float, integer: bool,
                  direction: int, tolerance: float = 0.0) -> tuple[float, float] | None:
    """The values consistent with the target, the band ``target ± tolerance`` (the values a tuning may answer
    with; ``tolerance`` 0: the target alone), for a response monotone in ``direction`` (+1 rising, -1 falling):
    between the last candidate whose interval lies wholly on the near side of the band and the first whose
    interval lies wholly beyond it (a monotone response between two candidates stays between their intervals,
    so nothing narrower is honest without more candidates). An end of the range whose interval meets the band is
    the interval's end (the truth may lie beyond the range). For an integer setting, the integers strictly
    between (None if there are none: the band falls between two neighbours). ``direction`` 0: the hull of the
    candidates whose interval meets the band. A candidate whose own interval meets the band is always inside:
    the chosen value of a tuning that hit the band (its interval inside the band) is one of the values reported
    as consistent with it."""
    order = np.argsort(values)
    v, lo, hi = np.asarray(values, float)[order], np.asarray(lo, float)[order], np.asarray(hi, float)[order]
    below, above = target - tolerance, target + tolerance
    meets = (lo <= above) & (hi >= below)
    if direction == 0:
        return (float(v[meets].min()), float(v[meets].max())) if meets.any() else None
    neg = hi < below if direction > 0 else lo > above  # wholly on the near side (below a rising response)
    pos = lo > above if direction > 0 else hi < below  # wholly beyond
    b_i = int(np.argmax(pos)) if pos.any() else len(v) - 1
    before = np.flatnonzero(neg[:b_i + 1])
    a_i = int(before.max()) if before.size else 0
    a, b = float(v[a_i]), float(v[b_i])
    if integer:
        a = a + 1 if neg[a_i] else a
        b = b - 1 if pos[b_i] else b
    if meets.any():  # (a candidate against the monotone order, by chance: it is consistent all the same)
        a, b = min(a, float(v[meets].min())), max(b, float(v[meets].max()))
    if integer:
        return (a, b) if a <= b else None
    return a, b


# ------------------------------------------------------------------------------------------- the search --

#: A rate's tolerance of 1 or more: a band holding every rate (any value would answer).
RATE_TOLERANCE = "a rate's tolerance is a fraction below 1 (2 points is 0.02; 1 or more holds every rate), not {:g}"


def check_band(tolerance: float, lo: float, hi: float, integer: bool) -> None:
    """The tolerance and the search range every tuning takes (one line each: ``--tolerance``, ``--range``)."""
    if not tolerance > 0 or not math.isfinite(tolerance):
        raise InputError(f"must be a positive number, not {tolerance}", "--tolerance")
    if not lo < hi:
        raise InputError(f"needs LO < HI, not {lo:g},{hi:g}", "--range")
    if integer and (lo != int(lo) or hi != int(hi)):
        raise InputError(f"an integer setting needs whole-number ends, not {lo:g},{hi:g}", "--range")


def check_budget(max_games: int | None = None, points: int | None = None, first_games: int | None = None) -> None:
    """The game budget every tuning takes (one line each: ``--max-games``, ``--points``, ``--first-games``);
    None: not given."""
    from .inputs import check_games

    if max_games is not None:
        check_games(max_games, "--max-games")
        if max_games < 100:
            raise InputError(f"must be at least 100, not {max_games}", "--max-games")
    if points is not None and not 2 <= points <= 50:
        raise InputError(f"must be from 2 to 50, not {points}", "--points")
    if first_games is not None and not 2 <= first_games <= max_games:
        raise InputError(f"must be from 2 to --max-games ({max_games:,}), not {first_games}", "--first-games")

def search(evaluate: Evaluate, *, target: float, tolerance: float, lo: float, hi: float, integer: bool = False,
           kind: str = RATE, conf: float = 0.95, max_games: int = 200_000, first_games: int | None = None,
           points: int = 5, param: str = "value", metric: str = "win",
           progress: Callable[[int], None] | None = None) -> TuneResult:
    """Find a value in ``[lo, hi]`` whose metric is within ``tolerance`` of ``target`` (module docstring).

    ``evaluate(value, start, count)``: the per-game metric values of games ``start .. start+count-1`` under
    ``value`` (0/1 for a rate); the same game index must mean the same dice for every value. ``max_games``:
    games over all candidates; ``first_games``: games per value of the first look (default: enough for an
    interval about four tolerances wide)."""
    if kind not in (RATE, MEAN):
        raise ValueError(f"kind must be {RATE!r} or {MEAN!r}")
    check_band(tolerance, lo, hi, integer)
    if kind == RATE and not 0 <= target <= 1:
        raise InputError(f"a rate's target is a fraction from 0 to 1 (30 % is 0.30), not {target:g}", "--target")
    if kind == RATE and tolerance >= 1:
        raise InputError(RATE_TOLERANCE.format(tolerance), "--tolerance")
    points = max(2, points)
    band = (target - tolerance, target + tolerance)
    cands: dict[float, Candidate] = {}
    spent = 0

    def play(v: float, n: int) -> None:
        nonlocal spent
        v = float(int(round(v))) if integer else float(v)
        c = cands.get(v)
        have = 0 if c is None else c.n
        if n <= have:
            return
        x = np.asarray(evaluate(int(v) if integer else v, have, n - have), dtype=float).ravel()
        if x.size != n - have:
            raise ValueError(f"evaluate returned {x.size} values for {n - have} games")
        cands[v] = Candidate(v, x if c is None else np.concatenate([c.x, x]))
        spent += n - have
        if progress is not None:
            progress(n - have)

    if integer:
        grid = sorted({float(round(g)) for g in np.linspace(lo, hi, points)})
    else:
        grid = [float(g) for g in np.linspace(lo, hi, points)]
    # first look: enough games per value for an interval about four tolerances wide (at least 100)
    n_tol = games_for_halfwidth(kind, target, tolerance / 2, conf)
    if kind == MEAN:  # a mean's spread is unknown until some games are played
        look = max(2, min(200, max_games // (2 * len(grid) + 4)))
        play(grid[0], look)
        play(grid[-1], look)
        sd = float(np.std(np.concatenate([cands[grid[0]].x, cands[grid[-1]].x]), ddof=1)) or 1.0
        n_tol = games_for_halfwidth(kind, target, tolerance / 2, conf, sd)
    n0 = first_games or max(100, n_tol // 16)
    n0 = max(2, min(n0, max_games // (len(grid) + 2)))
    for g in grid:
        play(g, n0)

    def est(c: Candidate) -> tuple[float, float, float]:
        return estimate(c.x, kind, conf)

    def refine(v: float) -> str:
        """Double the games of ``v``: "ok"; EDGE when its interval straddles an edge of the band and lies within a
        quarter of the tolerance of that edge (the value sits on the edge: more games would not settle it soon);
        BUDGET when the doubling would pass ``max_games``."""
        m, lo_v, hi_v = est(cands[v])
        for edge in band:
            if lo_v < edge < hi_v and edge - tolerance / 4 <= lo_v and hi_v <= edge + tolerance / 4:
                return EDGE
        if spent + cands[v].n > max_games:
            return BUDGET
        play(v, 2 * cands[v].n)
        return "ok"

    warnings: list[str] = []
    direction = 0
    monotone = True
    neighbours: list[float] = []
    xtol = (hi - lo) * 1e-4

    def nearest(among: Any) -> float:
        """The candidate whose estimate is nearest the target (ties: the one with more games)."""
        return min(among, key=lambda v: (abs(est(cands[v])[0] - target), -cands[v].n))

    def shown(v: float) -> bool:
        """``v``'s interval lies inside the band (shown within the tolerance)."""
        _, lo_v, hi_v = est(cands[v])
        return band[0] <= lo_v and hi_v <= band[1]

    while True:  # (again when a neighbour of the value the search stopped on turns out nearer the target)
        status = BUDGET
        for _ in range(200):
            vs = sorted(cands)
            e = {v: est(cands[v]) for v in vs}
            # direction from the two ends (paired), monotonicity from the adjacent pairs (paired, Holm)
            d_end, p_end = paired_p(cands[vs[0]].x, cands[vs[-1]].x, kind, conf)
            diffs = [paired_p(cands[a].x, cands[b].x, kind, conf) for a, b in zip(vs[:-1], vs[1:])]
            direction = int(np.sign(d_end)) if p_end < 1 - conf else 0
            if direction == 0:  # ends alike: the sign of the slope over every candidate (least squares)
                ms = np.array([e[v][0] for v in vs])
                slope = np.polyfit(vs, ms, 1)[0] if len(vs) > 1 else 0.0
                direction = int(np.sign(slope))
            padj = stats.adjust_pvalues(np.array([p for _, p in diffs]), "holm") if diffs else np.array([])
            against = [(a, b) for (a, b), (d, _), p in zip(zip(vs[:-1], vs[1:]), diffs, padj)
                       if p < 1 - conf and direction and np.sign(d) == -direction]
            monotone = not against
            g = {v: direction * (e[v][0] - target) for v in vs}  # > 0: beyond the target in the rising direction
            # the best candidate: estimate nearest the target
            best = min(vs, key=lambda v: (abs(e[v][0] - target), -cands[v].n))
            b_est, b_lo, b_hi = e[best]
            if band[0] <= b_lo and b_hi <= band[1]:
                status = HIT
                break
            crossings = [(a, b) for a, b in zip(vs[:-1], vs[1:]) if (g[a] <= 0 < g[b]) or (g[b] <= 0 < g[a])]
            near = [v for v in vs if e[v][1] <= band[1] and e[v][2] >= band[0]]  # interval meets the band
            if not crossings:
                if all(g[v] > 0 for v in vs) or all(g[v] <= 0 for v in vs):
                    if not near:  # every interval is on one side of the band
                        status = FLAT if direction == 0 or p_end >= 1 - conf else NOT_REACHED
                        break
            # integer: the target between two adjacent integers
            if integer:
                adj = [(a, b) for a, b in crossings if b - a == 1]
                if adj and not any(band[0] <= e[v][0] <= band[1] for v in vs):
                    a, b = adj[0]
                    undecided = [v for v in (a, b) if e[v][1] < band[1] and e[v][2] > band[0]]
                    if not undecided:
                        status = BETWEEN
                        neighbours = [a, b]
                        break
                    v = min(undecided, key=lambda v: cands[v].n)
                    got = refine(v)
                    if got != "ok":
                        status, neighbours = got, [a, b]
                        break
                    continue
            # refine the best candidate while its estimate is in the middle half of the band (a candidate near an
            # edge of the band is not refined: a value nearer the target is sought in its bracket instead)
            in_band = abs(b_est - target) <= tolerance / 2 or (integer and band[0] <= b_est <= band[1])
            if in_band or (not crossings and best in near):
                got = refine(best)
                if got != "ok":
                    status = got
                    break
                continue
            if not crossings:
                # every estimate on one side, some interval still meets the band: more games there (the fewest first)
                got = refine(min(near, key=lambda v: cands[v].n) if near else best)
                if got != "ok":
                    status = got
                    break
                continue
            a, b = min(crossings, key=lambda ab: min(abs(e[ab[0]][0] - target), abs(e[ab[1]][0] - target)))
            n_ab = max(cands[a].n, cands[b].n)
            short = [v for v in (a, b) if cands[v].n < n_ab]
            if short:  # compare the bracket's ends on the same games (common dice), then split it
                if spent + n_ab - cands[short[0]].n > max_games:
                    break
                play(short[0], n_ab)
                continue
            if integer and b - a <= 1:
                # estimates bracket the target between adjacent integers but one sits in the band: refine it
                got = refine(best)
                if got != "ok":
                    status = got
                    break
                continue
            if not integer and b - a < xtol:
                got = refine(best)
                if got != "ok":
                    status = got
                    break
                continue
            ma, mb = e[a][0], e[b][0]
            root = a + (target - ma) * (b - a) / (mb - ma) if mb != ma else (a + b) / 2
            w = b - a
            root = min(max(root, a + 0.25 * w), b - 0.25 * w)
            if integer:
                root = float(min(max(round(root), a + 1), b - 1))
            n_new = max(n0, n_ab)
            if spent + n_new > max_games:
                break
            play(root, n_new)
        if not (integer and status in (HIT, EDGE)):
            break
        # the chosen integer's neighbours (for the answer line) are played before the choice is made: when one
        # of them lands nearer the target, the search goes on from it (more games there) instead of stopping on
        # a value that is no longer the nearest
        best = nearest(cands)
        c = int(best)
        n_side = max(n0, cands[float(c)].n // 4)
        played = False
        for v in (c - 1, c + 1):
            if lo <= v <= hi and float(v) not in cands and spent + n_side <= max_games:
                play(v, n_side)
                played = True
        if not played or nearest(cands) == best:
            break
    # the chosen value, once every value is played: among the values shown within the tolerance (the claim a
    # hit makes), the one whose estimate is nearest the target; if none is, the nearest estimate. A value whose
    # estimate is nearer only on fewer games (a budget cut the search short) is not preferred to one shown in
    # the band: its nearer estimate is within its own noise.
    inside = [v for v in cands if shown(v)]
    best = nearest(inside or cands)
    ends = sorted(cands)
    detected = bool(direction) and paired_p(cands[ends[0]].x, cands[ends[-1]].x, kind, conf)[1] < 1 - conf
    if inside and status in (EDGE, BUDGET):
        status = HIT  # (a value was shown within the band after all)
    vs = sorted(cands)
    rows = []
    for v in vs:
        m, lo_i, hi_i = est(cands[v])
        rows.append({"value": int(v) if integer else v, "games": cands[v].n, "estimate": m, "lo": lo_i,
                     "hi": hi_i, "in_band": bool(band[0] <= lo_i and hi_i <= band[1])})
    table = pd.DataFrame(rows)
    if status in (NOT_REACHED, FLAT):
        interval = None
    else:
        interval = band_interval(table["value"].to_numpy(float), table["lo"].to_numpy(float),
                                 table["hi"].to_numpy(float), target, integer, direction if monotone else 0,
                                 tolerance)
    if integer and status != HIT and not neighbours:
        g_now = {v: direction * (est(cands[v])[0] - target) for v in vs}
        adj = [(a, b) for a, b in zip(vs[:-1], vs[1:]) if b - a == 1 and (g_now[a] <= 0 < g_now[b]
                                                                          or g_now[b] <= 0 < g_now[a])]
        if adj:
            neighbours = list(adj[0])
    if not monotone:
        warnings.append(f"the {metric} is not monotone in {param} over {lo:g}..{hi:g}: it goes significantly "
                        f"against the overall direction between {', '.join(f'{a:g} and {b:g}' for a, b in against)}"
                        "; the answer holds near the chosen value only")
    if status == BUDGET:
        warnings.append(f"the game budget ({max_games:,}) ran out before a value was shown to be within "
                        f"{tolerance:g} of the target: raise --max-games")
    if status == NOT_REACHED:
        ends = (f"{fmt_metric(est(cands[vs[0]])[0], kind)} at {vs[0]:g} to "
                f"{fmt_metric(est(cands[vs[-1]])[0], kind)} at {vs[-1]:g}")
        warnings.append(f"the target is out of reach in {lo:g}..{hi:g} (the {metric} runs from {ends}): widen --range")
    if status == EDGE:
        edge = target - tolerance if est(cands[best])[0] < target else target + tolerance
        warnings.append(f"the chosen value sits on an edge of the band: its {metric} is about "
                        f"{fmt_metric(edge, kind)}; widen --tolerance a little, or take a neighbour")
    if status == FLAT:
        warnings.append(f"{param} does not move the {metric} detectably over {lo:g}..{hi:g}")
    return TuneResult(param=param, metric=metric, kind=kind, target=target, tolerance=tolerance, conf=conf, lo=lo,
                      hi=hi, integer=integer, status=status, value=(int(best) if integer else best),
                      direction=direction, monotone=monotone, interval=interval,
                      neighbours=[int(v) for v in neighbours] if integer else neighbours, table=table,
                      games=spent, warnings=warnings, detected=detected)


# ------------------------------------------------------------------------------------------------ words --
def fmt_metric(v: float, kind: str) -> str:
    return f"{100 * v:.1f} %" if kind == RATE else f"{v:.2f}"


def fmt_interval(lo: float, hi: float, kind: str) -> str:
    if kind == RATE:
        return f"[{100 * lo:.1f}, {100 * hi:.1f}]"
    return f"[{lo:.2f}, {hi:.2f}]"


def fmt_value(v: float, integer: bool) -> str:
    return f"{int(v)}" if integer else f"{v:.4g}"


def answer_line(r: TuneResult) -> str:
    """``enemies.orc.base = 3 gives win 30.4 % [29.1, 31.7] (target 30 ± 2 %); 2 gives 35.2 %, 4 gives
    26.0 %; 84,000 games``."""
    if r.kind == RATE:
        tgt = f"target {100 * r.target:g} ± {100 * r.tolerance:g} %"
    else:
        tgt = f"target {r.target:g} ± {r.tolerance:g}"
    lvl = f"{100 * r.conf:g} %"
    if r.status in (NOT_REACHED, FLAT) or r.value is None:
        t = r.table
        ends = (f"{fmt_value(t['value'].iloc[0], r.integer)} gives {fmt_metric(t['estimate'].iloc[0], r.kind)}, "
                f"{fmt_value(t['value'].iloc[-1], r.integer)} gives {fmt_metric(t['estimate'].iloc[-1], r.kind)}")
        why = "out of reach" if r.status == NOT_REACHED else "not moved by the setting"
        return f"{r.param}: no value in {r.lo:g}..{r.hi:g} gives {r.metric} {tgt.split(' ', 1)[1]} ({why}: {ends}); " \
               f"{r.games:,} games"
    row = r.row(r.value)
    parts = [f"{r.param} = {fmt_value(r.value, r.integer)} gives {r.metric} {fmt_metric(row['estimate'], r.kind)} "
             f"{fmt_interval(row['lo'], row['hi'], r.kind)} ({tgt})"]
    if r.status == BETWEEN:
        a, b = r.neighbours
        ra, rb = r.row(a), r.row(b)
        parts = [f"{r.param}: no integer gives {r.metric} {tgt.split(' ', 1)[1]}; {a} gives "
                 f"{fmt_metric(ra['estimate'], r.kind)} {fmt_interval(ra['lo'], ra['hi'], r.kind)}, {b} gives "
                 f"{fmt_metric(rb['estimate'], r.kind)} {fmt_interval(rb['lo'], rb['hi'], r.kind)}"]
    elif r.integer:
        others = [v for v in (r.value - 1, r.value + 1) if v in set(r.table["value"])]
        if others:
            parts.append(", ".join(f"{v} gives {fmt_metric(r.row(v)['estimate'], r.kind)}" for v in others))
    if r.interval is not None and not r.integer:
        parts.append(f"values consistent with the target ({lvl}): {r.interval[0]:.4g} to {r.interval[1]:.4g}")
    elif r.interval is not None and r.integer and r.status != BETWEEN:
        a, b = r.interval
        parts.append(f"consistent with the target ({lvl}): {int(a)}" + (f" to {int(b)}" if b != a else ""))
    parts.append(f"{r.games:,} games")
    if r.status == BUDGET:
        parts.append("NOT shown within the tolerance (budget ran out)")
    if r.status == EDGE:
        parts.append("on the edge of the band (its interval straddles the edge, within a quarter of the "
                     "tolerance of it)")
    return "; ".join(parts)


def format_result(r: TuneResult) -> str:
    """The text ``foury-sim tune`` prints: the answer line, the candidates table, the warnings."""
    lines = [answer_line(r), ""]
    unit = " (%)" if r.kind == RATE else ""
    lines.append(f"{'value':>10s}  {'games':>8s}  {r.metric + unit:>10s}  {'interval':>18s}  in band")
    for _, row in r.table.iterrows():
        mark = "  <- chosen" if row["value"] == r.value else ""
        lines.append(f"{fmt_value(row['value'], r.integer):>10s}  {int(row['games']):>8,}  "
                     f"{fmt_metric(row['estimate'], r.kind):>10s}  {fmt_interval(row['lo'], row['hi'], r.kind):>18s}  "
                     f"{'yes' if row['in_band'] else 'no':7s}{mark}".rstrip())
    d = {1: "rises with", -1: "falls with", 0: "does not detectably move with"}[r.direction if r.detected else 0]
    band = f"{fmt_metric(r.target - r.tolerance, r.kind)} to {fmt_metric(r.target + r.tolerance, r.kind)}"
    lines += ["", f"status: {r.status}; the {r.metric} {d} {r.param}"
              f"{'' if r.monotone else ' (NOT monotone in the range)'}; intervals at {100 * r.conf:g} %; "
              f"in band: the whole interval within {band} (an estimate inside it is not enough)"]
    lines += [f"WARNING: {w}" for w in r.warnings]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- figure --
def calibration_figure(r: TuneResult, axis_label: str | None = None) -> Any:
    """The calibration curve: the metric against the value with its interval band, the target band shaded,
    the chosen value marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scale = 100.0 if r.kind == RATE else 1.0
    t = r.table.sort_values("value")
    fig, ax = plt.subplots(figsize=(7, 4.2))
    x = t["value"].to_numpy(float)
    ax.axhspan(scale * (r.target - r.tolerance), scale * (r.target + r.tolerance), color="tab:green", alpha=0.18,
               label=f"target band ({fmt_metric(r.target, r.kind)} ± {fmt_metric(r.tolerance, r.kind)})")
    ax.axhline(scale * r.target, color="tab:green", lw=1)
    lo = np.clip(t["lo"].to_numpy(float), -1e12, 1e12)
    hi = np.clip(t["hi"].to_numpy(float), -1e12, 1e12)
    ax.fill_between(x, scale * lo, scale * hi, color="tab:blue", alpha=0.2,
                    label=f"{100 * r.conf:g} % interval band")
    ax.plot(x, scale * t["estimate"].to_numpy(float), "o-", color="tab:blue", ms=4, label="measured")
    for v, n, m in zip(x, t["games"], t["estimate"]):
        ax.annotate(f"{int(n):,}", (v, scale * m), textcoords="offset points", xytext=(0, 6), fontsize=7,
                    ha="center", color="0.35")
    if r.interval is not None:
        pad = 0.5 if r.integer else 0.0  # an integer's span is its unit cell
        ax.axvspan(r.interval[0] - pad, r.interval[1] + pad, color="tab:orange", alpha=0.12,
                   label="values consistent with target")
    if r.value is not None and r.status not in (NOT_REACHED, FLAT):
        row = r.row(r.value)
        ax.axvline(r.value, color="tab:red", ls="--", lw=1)
        ax.plot([r.value], [scale * row["estimate"]], "*", color="tab:red", ms=13,
                label=f"chosen: {fmt_value(r.value, r.integer)}")
    ax.set_xlabel(f"{r.param} (value of the setting{', whole numbers' if r.integer else ''})")
    ax.set_ylabel(axis_label or (f"{r.metric} (% of games)" if r.kind == RATE else f"{r.metric} (mean per game)"))
    ax.set_title(f"Calibration of {r.param}: {r.metric} against its value ({r.games:,} games)", fontsize=10)
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    _made_footer(fig, r, f"{r.games:,} games in all over {len(t)} values")
    return fig


def _made_footer(fig: Any, r: TuneResult | VectorResult, games: str) -> None:
    """How a tuning was made, at its figure's foot (``figures.made_footer``): game, fixed settings, policy, seed,
    games, version and commit; nothing for a search that names no game (``search`` called alone)."""
    if "game" not in r.extra:
        return
    from .figures import made_footer
    from .provenance import figure_note

    made_footer(fig, figure_note(r.extra["game"], fixed=r.settings, seed=r.extra.get("seed", "?"), games=games,
                                 made=made()))


# ---------------------------------------------------------------------------------- over a registered game --
def parse_target(text: str) -> tuple[str, float]:
    """``"win=0.30"`` -> ("win", 0.30)."""
    if "=" not in str(text):
        raise InputError(f"{text!r} is not METRIC=VALUE (e.g. win=0.30, score=20)", "--target")
    m, v = (s.strip() for s in str(text).split("=", 1))
    try:
        val = float(v)
    except ValueError:
        raise InputError(f"{v!r} is not a number", "--target") from None
    if not math.isfinite(val):
        raise InputError(f"{v!r} is not a finite number", "--target")
    return m, val


def parse_range(text: str) -> tuple[float, float, bool]:
    """``"0,6"`` -> (0, 6, integer=True); ``"0.5,3"`` -> (0.5, 3, False)."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2:
        raise InputError(f"{text!r} is not LO,HI (e.g. 0,6)", "--range")
    vals = []
    for p in parts:
        try:
            vals.append(float(p))
        except ValueError:
            raise InputError(f"{p!r} is not a number", "--range") from None
    if not all(math.isfinite(v) for v in vals):
        raise InputError(f"{text!r}: the ends must be finite numbers", "--range")
    if not vals[0] < vals[1]:
        raise InputError(f"needs LO < HI, not {text}", "--range")
    integer = all(("." not in p and "e" not in p.lower()) for p in parts)
    return vals[0], vals[1], integer


def metric_kind(spec: Any, metric: str) -> str:
    """RATE or MEAN of one of the game's per-game columns (refused in one line otherwise)."""
    col = spec.outputs.column(metric)
    usable = [c.name for c in spec.outputs.columns if c.summary in (RATE, MEAN)]
    if col is None or col.summary not in (RATE, MEAN):
        raise InputError(f"{spec.name} has no rate or mean column {metric!r} (known: {', '.join(usable)})",
                         "--target")
    return col.summary


SPECIAL_KEYS = ("hero", "policy", "map", "rules")


def engine_evaluator(spec: Any, param: str, metric: str, fixed: dict[str, Any], seed: int,
                     threads: int | None = None) -> Evaluate:
    """``evaluate(value, start, count)`` over the game: games ``start .. start+count-1`` of stream ``seed``
    with ``fixed`` settings and ``param = value`` (``study.CellRunner``; the same game indices for every value:
    common dice)."""
    from .chunks import stream_rows
    from .runner import numba_threads
    from .study import CellRunner

    cells = CellRunner(spec)

    def evaluate(value: float, start: int, count: int) -> np.ndarray:
        settings = dict(fixed)
        settings[param] = value
        rs, hero, pol = cells.resolve(settings, "--param")
        with numba_threads(threads):  # the chunk path: only the metric's column comes back
            with policy_given_at("--fixed"):
                df, _ = stream_rows(spec, rs, hero, pol, seed, start, count, columns=(metric,))
        return df[metric].to_numpy(float)

    return evaluate


def check_setting(spec: Any, param: str, fixed: dict[str, Any], values: list[float], integer: bool = True) -> None:
    """Every end of the range must be a value the game takes (refused in one line before simulating); a search
    of every number between them (not ``integer``) also the middle one (a policy's on/off switch takes 0 or 1)."""
    from .study import CellRunner

    if param in SPECIAL_KEYS:
        raise InputError(f"{param} is not a number: tune a ruleset key (e.g. enemies.orc.base) or a policy "
                         "parameter (param.NAME)", "--param")
    if param in fixed:
        raise InputError(f"{param} is both tuned and fixed", "--fixed")
    cells = CellRunner(spec)
    if "[" in param or "]" in param:  # one element of a list: the key and the index first, naming --param
        from .rulesfile import check_element, find_key, split_element

        key, index = split_element(param, "--param")
        rs, _, _ = cells.resolve(dict(fixed), "--fixed")
        data = getattr(rs, "data", None)
        if isinstance(data, dict) and index is not None:
            hits = find_key(data, key) if "." not in key else [key]
            if len(hits) != 1 or rs.data is None:
                raise InputError(f"unknown ruleset key {key!r}" if not hits else
                                 f"ruleset key {key!r} is ambiguous: {', '.join(hits)}", "--param")
            node: Any = data
            for part in hits[0].split("."):
                node = node.get(part) if isinstance(node, dict) else None
            if node is None:
                raise InputError(f"unknown ruleset key {key!r}", "--param")
            check_element(data, hits[0], index, "--param")
    check_known(spec, param, fixed, cells)
    ends = list(values)
    for v in values if integer else [*values, (values[0] + values[1]) / 2]:
        between = "" if v in ends else (f"the search plays the values between {ends[0]:g} and {ends[1]:g}, and ")
        try:
            cells.resolve(dict(fixed) | {param: v})
        except InputError as e:
            if not integer and float(v).is_integer() and "whole number" in e.message:
                try:  # (a whole-number key searched as any number: it said "-2 is refused ... not -2.0")
                    cells.resolve(dict(fixed) | {param: int(v)})
                except InputError:
                    pass
                else:
                    raise InputError(f"{param} takes whole numbers only: search it with whole-number ends of "
                                     f"--range and without --continuous, not {range_text(*ends, False)}",
                                     "--range") from None
            raise InputError(f"{between}{param} = {v:g} is refused: {e.where + ': ' if e.where else ''}{e.message}",
                             "--range") from None


def rests_on(spec: Any, fixed: dict[str, Any], param: str, value: Any) -> dict[str, Any]:
    """What a tuning's record names besides its command, as a run's and a sweep's do: ``files``, the sha256 of each
    file its settings read (``study.input_files``), and ``assumptions``, the values no rulebook prints that the
    answer rests on (the ruleset of the fixed settings with the tuned setting at the value chosen, if any)."""
    from . import assumptions
    from .study import CellRunner, input_files

    settings = dict(fixed) | ({param: value} if value is not None else {})
    rs, hero, _ = CellRunner(spec).resolve(settings)
    return {"files": input_files([fixed], spec.name, [rs]), "assumptions": assumptions.records(rs, hero)}


def range_text(lo: float, hi: float, integer: bool) -> str:
    """``--range LO,HI`` as the command recorded gives it: whole numbers for an integer setting, else every digit
    (``provenance.number_text``)."""
    return f"{int(lo)},{int(hi)}" if integer else f"{number_text(lo)},{number_text(hi)}"


def fixed_args(fixed: dict[str, Any]) -> list[str]:
    """``--fixed KEY=VALUE`` of a tune command, each value as ``--fixed`` reads it back (``provenance.setting_words``:
    ``false`` for False, ``"1"`` for the word 1), so the command recorded plays the same candidates again."""
    from .provenance import setting_words

    return [w for word in setting_words(fixed) for w in ("--fixed", word)]


def check_known(spec: Any, param: str, fixed: dict[str, Any], cells: Any) -> None:
    """A tuned setting the game does not have (a misspelt ruleset key or policy parameter) is one line at
    ``--param``, before any value of the range is tried (it was refused as a value at ``--range``)."""
    from .rulesfile import RuleFile, apply_overrides

    if param.startswith("param."):
        pol = spec.policies.get(str(fixed.get("policy") or spec.default_policy))
        if pol is not None and param[6:] not in pol.params:
            known = ", ".join(f"param.{k}" for k in pol.params) or "none"
            raise InputError(f"policy {pol.name!r} has no parameter {param[6:]!r} (known: {known})", "--param")
        return
    if "[" in param or any(o.name == param for o in spec.options):  # (an element: checked above; an option)
        return
    rs, _, _ = cells.resolve(dict(fixed), "--fixed")
    data = getattr(rs, "data", None)
    if isinstance(data, dict):
        try:  # the --set lookup of the key (a short name, a table, an unknown key), on the ruleset's own data
            apply_overrides(RuleFile(data, "", ""), [f"{param}=0"])
        except InputError as e:
            raise InputError(e.message, "--param") from None


def tune(game: str, param: str, target_metric: str, target: float, tolerance: float, *,
         fixed: dict[str, Any] | None = None, lo: float, hi: float, integer: bool = True, seed: int = 1,
         conf: float = 0.95, max_games: int = 200_000, first_games: int | None = None, points: int = 5,
         threads: int | None = None, progress: bool | None = None) -> TuneResult:
    """Tune ``param`` of ``game`` so that ``target_metric`` is within ``tolerance`` of ``target`` (``search``
    over the game's engine with common dice)."""
    from .inputs import check_conf, check_seed, check_threads
    from .provenance import command, settings_args
    from .registry import get_game
    from .runner import Progress

    spec = get_game(game)
    check_seed(seed)
    check_conf(conf)
    check_threads(threads)
    check_budget(max_games, points, first_games)
    kind = metric_kind(spec, target_metric)
    fixed = dict(fixed or {})
    check_setting(spec, param, fixed, [int(lo), int(hi)] if integer else [lo, hi], integer)
    ev = engine_evaluator(spec, param, target_metric, fixed, seed, threads)
    bar = Progress(max_games, label="games (budget)", enabled=progress) if progress is not False else None
    try:
        r = search(ev, target=target, tolerance=tolerance, lo=lo, hi=hi, integer=integer, kind=kind, conf=conf,
                   max_games=max_games, first_games=first_games, points=points, param=param, metric=target_metric,
                   progress=bar.update if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    r.settings = fixed
    rng = range_text(lo, hi, integer)
    args = ["--param", param, "--target", f"{target_metric}={number_text(target)}", "--tolerance",
            number_text(tolerance), "--range", rng, "--seed", str(seed), "--conf", number_text(conf), "--max-games",
            str(max_games), "--points", str(points)]
    args += ["--first-games", str(first_games)] if first_games is not None else []
    args += fixed_args(fixed)
    if not integer and all(float(x).is_integer() for x in (lo, hi)):
        args.append("--continuous")
    r.extra = {"game": game, "seed": seed, "command": command("tune", game, args),
               **rests_on(spec, fixed, param, r.value),
               "chosen_settings_args": settings_args(fixed | {param: r.value}, game) if r.value is not None else None}
    col = spec.outputs.column(target_metric)
    if col is not None:
        r.extra["axis_label"] = f"{col.label} (% of games)" if kind == RATE else col.axis_label
    return r


def write_tune(r: TuneResult, out: str | Path) -> list[Path]:
    """``tune.json`` (the record with its provenance), ``candidates.csv`` and ``calibration.png`` in ``out``."""
    from .files import atomic_write, save_figure, write_frame

    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    paths = [d / "tune.json", d / "candidates.csv", d / "calibration.png"]
    rec = r.to_dict() | made()
    atomic_write(paths[0], json.dumps(rec, indent=2))
    write_frame(r.table, paths[1])
    fig = calibration_figure(r, r.extra.get("axis_label"))
    save_figure(fig, paths[2], dpi=120)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return paths


def default_range(spec: Any, param: str, fixed: dict[str, Any]) -> tuple[float, float, bool]:
    """No setting carries a search range of its own (a policy parameter's valid range is far wider than any
    sensible search): ``--range`` is asked for in one line, after an unknown policy parameter is named."""
    if param.startswith("param."):
        pol = spec.policies.get(str(fixed.get("policy") or spec.default_policy))
        name = param[6:]
        if pol is not None and name not in pol.params:
            known = ", ".join(f"param.{k}" for k in pol.params) or "none"
            raise InputError(f"policy {pol.name!r} has no parameter {name!r} (known: {known})", "--param")
    raise InputError(f"give the values to search between: --range LO,HI (e.g. --range 0,6; whole numbers "
                     f"search whole numbers) for {param}", "--range")


# ------------------------------------------------------------------------------ several tunings from a file --
TUNE_KEYS = {"name", "title", "description", "game", "seed", "param", "target", "tolerance", "range", "integer",
             "conf", "max_games", "first_games", "points", "fixed", "sweep", "monotone"}


@dataclass
class TuneFile:
    """A tuning file (``experiments/tune_*.toml``): one tuning per cell of ``[sweep]`` (every combination of its
    lists, e.g. one per hero), the other settings in ``[fixed]``."""

    path: str
    name: str
    game: str
    param: str
    metric: str
    target: float
    tolerance: float
    lo: float
    hi: float
    integer: bool
    seed: int = 1
    conf: float = 0.95
    max_games: int = 200_000
    first_games: int | None = None
    points: int = 5
    fixed: dict[str, Any] = field(default_factory=dict)
    cells: list[dict[str, Any]] = field(default_factory=list)
    swept: list[str] = field(default_factory=list)
    title: str = ""
    text: str = ""
    overridden: dict[str, Any] = field(default_factory=dict)  #: command-line values that replaced the file's
    vector: str | None = None  #: a whole list tuned element by element: the target text (COLUMN OP i=T0,...)
    monotone: str = "increasing"


def override_tune_file(tf: TuneFile, *, seed: int | None = None, conf: float | None = None,
                       max_games: int | None = None, points: int | None = None) -> TuneFile:
    """``tf`` with ``--seed``/``--conf``/``--max-games``/``--points`` from the command line in place of the file's
    values (each checked as on the command line; recorded in ``overridden`` and printed)."""
    import dataclasses

    from .inputs import check_conf, check_seed

    new: dict[str, Any] = {}
    if seed is not None:
        new["seed"] = check_seed(seed)
    if conf is not None:
        check_conf(conf)
        new["conf"] = float(conf)
    check_budget(max_games, points)
    if max_games is not None:
        new["max_games"] = max_games
    if points is not None:
        new["points"] = points
    if not new:
        return tf
    was = {k: getattr(tf, k) for k in new}
    return dataclasses.replace(tf, **new, overridden=dict(tf.overridden) | {k: {"file": was[k], "used": v}
                                                                            for k, v in new.items()})


def made() -> dict[str, Any]:
    """How a tuning was made that its record keeps besides its game, seed and command: the version and commit (in
    ``tune.json`` of every form, a tuning on the command line and a tuning file alike)."""
    from . import __version__
    from .provenance import git_commit

    return {"version": __version__, "git_commit": git_commit()}


def with_out(cmd: str, out: str | Path | None) -> str:
    """A tuning's command with the ``--out`` its results were written to (``out``; None: printed only), so that the
    command pasted from its ``tune.json`` or its text writes the same folder again, not nowhere."""
    return cmd if out is None else f"{cmd} --out {shlex.quote(str(out))}"


def tune_file_command(tf: TuneFile, out: str | Path | None = None) -> str:
    """The ``foury-sim tune FILE`` command that runs ``tf`` again: its file, the values the command line put in
    place of the file's (``overridden``: ``--seed``, ``--conf``, ``--max-games``, ``--points``) and the results root
    ``--out`` (``with_out``)."""
    from .provenance import command

    args: list[str] = []
    for k, d in tf.overridden.items():
        v = d["used"]
        args += [f"--{k.replace('_', '-')}", str(v) if isinstance(v, int) else number_text(v)]
    return with_out(command("tune", tf.path, args), out)


def file_record(tf: TuneFile, results: list[Any], out: str | Path | None = None) -> dict[str, Any]:
    """A tuning file's ``tune.json``: its name, file and text, the provenance a tuning on the command line records
    (game, seed, the command that runs it again, with its results root ``out``, version, commit), the replaced
    values and every tuning's record."""
    from .files import to_jsonable

    return to_jsonable({"name": tf.name, "file": tf.path, "file_text": tf.text, "game": tf.game, "seed": tf.seed,
                        "command": tune_file_command(tf, out), **made(), "overridden": tf.overridden,
                        "tunings": [r.to_dict() for r in results]})


def load_tune_file(path: str | Path) -> TuneFile:
    """Read and check a tuning file completely (every cell's ends of the range resolved) before simulating."""
    import itertools

    from .study import CellRunner, _where, _where_value, check_name, read_experiment

    data, text, ps, spec = read_experiment(path, TUNE_KEYS)

    def need(key: str) -> Any:
        if key not in data:
            raise InputError(f"a tuning file needs {key} (known keys: {', '.join(sorted(TUNE_KEYS))})", ps)
        return data[key]

    def at(key: str) -> str:
        return _where_value(ps, text, key)

    name = check_name(data.get("name", Path(ps).stem), at("name") if "name" in data else ps)
    param = need("param")
    if not isinstance(param, str) or not param:
        raise InputError("param must be a setting's key (e.g. enemies.orc.base)", at("param"))
    tgt = need("target")
    fixed0 = data.get("fixed", {}) if isinstance(data.get("fixed", {}), dict) else {}
    try:
        vector = list_setting(spec, param, dict(fixed0)) if isinstance(param, str) and param else None
    except InputError as e:
        raise InputError(e.message, _where(ps, text, "fixed")) from None
    monotone = data.get("monotone", "increasing")
    if "monotone" in data and vector is None:
        raise InputError(f"monotone orders the elements of a list; {param} is a single number", at("monotone"))
    try:
        check_monotone(monotone)
        if vector is not None:
            em, targets = parse_vector_target(tgt)
            if len(targets) != len(vector[1]):
                raise InputError(f"{vector[0]} has {len(vector[1])} elements: give {len(vector[1])} targets "
                                 f"(- keeps an element), not {len(targets)}", "--target")
            metric, target, kind = em.name(), math.nan, RATE
        else:
            metric, target = parse_target(tgt)
            kind = metric_kind(spec, metric)
    except InputError as e:
        raise InputError(e.message, at("monotone" if e.where == "--monotone" else "target")) from None
    tol = need("tolerance")
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not math.isfinite(tol) or tol <= 0:
        raise InputError(f"tolerance must be a positive number, not {tol!r}", at("tolerance"))
    rng = need("range")
    if (not isinstance(rng, list) or len(rng) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in rng)
            or not rng[0] < rng[1]):
        raise InputError(f"range must be [LO, HI] with LO < HI, not {rng!r}", at("range"))
    integer = data.get("integer", all(isinstance(v, int) for v in rng))
    if not isinstance(integer, bool):
        raise InputError("integer must be true or false", at("integer"))
    if kind == RATE and vector is None and not 0 <= target <= 1:
        raise InputError(f"a rate's target is a fraction from 0 to 1 (30 % is 0.30), not {target:g}", at("target"))
    if kind == RATE and tol >= 1:
        raise InputError(RATE_TOLERANCE.format(tol), at("tolerance"))
    from .inputs import check_seed

    try:
        seed = check_seed(data.get("seed", 1))
    except InputError as e:
        raise InputError(f"seed {e.message}", at("seed")) from None
    conf = data.get("conf", 0.95)
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0.5 <= conf < 1.0:
        raise InputError("conf must be a confidence level between 0.5 and 1 (e.g. 0.95)", at("conf"))
    ints = {}
    for key, default, low in (("max_games", 200_000, 100), ("first_games", None, 2), ("points", 5, 2)):
        v = data.get(key, default)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < low or v > 10_000_000):
            raise InputError(f"{key} must be a whole number from {low} to 10,000,000, not {v!r}", at(key))
        ints[key] = v
    fixed = data.get("fixed", {})
    sweep = data.get("sweep", {})
    for key, table in (("fixed", fixed), ("sweep", sweep)):
        if not isinstance(table, dict):
            raise InputError(f"[{key}] must be a table", _where(ps, text, key))
    for k, v in sweep.items():
        if not isinstance(v, list) or not v:
            raise InputError(f"sweep.{k} must be a non-empty list of values", _where(ps, text, f"sweep.{k}"))
    if param in fixed or param in sweep:
        raise InputError(f"{param} is the tuned setting: it cannot also be fixed or swept", _where(ps, text, param))
    swept = list(sweep)
    cells = [dict(zip(swept, combo)) for combo in itertools.product(*(sweep[k] for k in swept))] or [{}]
    if len(cells) > 1000:
        raise InputError(f"{len(cells):,} tunings: at most 1,000 per file", _where(ps, text, "sweep"))
    lo, hi = float(rng[0]), float(rng[1])
    if integer and (lo != int(lo) or hi != int(hi)):
        raise InputError("an integer setting needs whole-number ends", at("range"))
    runner = CellRunner(spec)
    for k, values in sweep.items():  # each swept value on its own first: its fault at its own line
        for v in values:
            runner.resolve(dict(fixed) | {k: v}, _where(ps, text, f"sweep.{k}"))
    for cell in cells:
        try:
            if vector is not None:
                check_vector_setting(spec, vector[0], len(vector[1]), dict(fixed) | cell, lo, hi, integer, monotone)
                continue
            check_setting(spec, param, dict(fixed) | cell, [int(lo), int(hi)] if integer else [lo, hi], integer)
        except InputError as e:  # (each swept value is taken on its own: the range's ends are refused, or param)
            if e.where == "--param":
                raise InputError(e.message, at("param")) from None
            raise InputError(e.message + (f" (with {', '.join(f'{k} = {v!r}' for k, v in cell.items())})"
                                          if cell else ""), at("range")) from None
    return TuneFile(ps, name, spec.name, param, metric, float(target), float(tol), lo, hi, integer, seed,
                    float(conf), ints["max_games"], ints["first_games"], ints["points"], dict(fixed), cells, swept,
                    str(data.get("title", "")), text, vector=str(tgt) if vector is not None else None,
                    monotone=monotone)


def _policy_line(tf: TuneFile, cell: dict[str, Any]) -> str:
    """Where a tuning file gives the policy of ``cell``: its ``[sweep]`` or ``[fixed]`` line (else the file)."""
    from .study import _where

    return _where(tf.path, tf.text, "sweep.policy" if "policy" in cell else "fixed.policy" if "policy" in tf.fixed
                  else "fixed")


def run_tune_file(tf: TuneFile, out_root: str | Path | None = None, *, threads: int | None = None,
                  progress: bool | None = None) -> tuple[pd.DataFrame, list[TuneResult]]:
    """One tuning per cell; the table of answers (one row per cell). With ``out_root``: ``OUT/NAME/`` gets
    ``answers.csv``, ``tune.json`` (every record, the file's text) and ``CELL/calibration.png`` per cell."""
    if tf.vector is not None:
        return run_vector_file(tf, out_root, threads=threads, progress=progress)
    results: list[TuneResult] = []
    rows = []
    for cell in tf.cells:
        with policy_given_at(_policy_line(tf, cell)):
            r = tune(tf.game, tf.param, tf.metric, tf.target, tf.tolerance, fixed=dict(tf.fixed) | cell, lo=tf.lo,
                     hi=tf.hi, integer=tf.integer, seed=tf.seed, conf=tf.conf, max_games=tf.max_games,
                     first_games=tf.first_games, points=tf.points, threads=threads, progress=progress)
        results.append(r)
        row: dict[str, Any] = dict(cell)
        chosen = r.row(r.value) if r.value is not None and r.status not in (NOT_REACHED, FLAT) else None
        row |= {"status": r.status, tf.param: r.value if chosen is not None else None,
                "estimate": chosen["estimate"] if chosen else None, "lo": chosen["lo"] if chosen else None,
                "hi": chosen["hi"] if chosen else None,
                "consistent_lo": r.interval[0] if r.interval else None,
                "consistent_hi": r.interval[1] if r.interval else None,
                "neighbours": ",".join(map(str, r.neighbours)), "games": r.games, "monotone": r.monotone,
                "answer": answer_line(r)}
        rows.append(row)
    table = pd.DataFrame(rows)
    if out_root is not None:
        write_tune_file(tf, table, results, out_root)
    return table, results


def write_tune_file(tf: TuneFile, table: pd.DataFrame, results: list[Any], out_root: str | Path) -> Path:
    """A tuning file's answers in ``OUT/NAME/`` (``run_tune_file``, ``run_vector_file``): ``answers.csv``,
    ``tune.json``, a calibration figure per cell (and ``elements.csv`` for a list). Kept apart from the tuning so
    that the CLI prints the answers before a folder that cannot be written is named."""
    from .files import atomic_write, save_figure, write_frame

    d = Path(out_root) / tf.name
    d.mkdir(parents=True, exist_ok=True)
    write_frame(table, d / "answers.csv")
    if tf.vector is not None:
        write_frame(pd.concat([v.table().assign(**dict(cell)) for cell, v in zip(tf.cells, results)],
                              ignore_index=True), d / "elements.csv")
    atomic_write(d / "tune.json", json.dumps(file_record(tf, results, out_root), indent=2))
    import matplotlib.pyplot as plt

    for i, (cell, r) in enumerate(zip(tf.cells, results)):
        label = "_".join(f"{v}" for v in cell.values()) or "all"
        label = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in label)
        if tf.vector is not None:
            fig = vector_figure(r)
            if cell:
                fig.suptitle(f"{', '.join(f'{k}={x}' for k, x in cell.items())}: " + fig._suptitle.get_text(),
                             fontsize=9)
        else:
            fig = calibration_figure(r, r.extra.get("axis_label"))
            fig.axes[0].set_title(f"{', '.join(f'{k}={v}' for k, v in cell.items()) or tf.name}: "
                                  f"{r.metric} against {r.param}", fontsize=10)
        save_figure(fig, d / f"{i:02d}_{label}_calibration.png", dpi=110)
        plt.close(fig)
    return d


def format_answers(tf: TuneFile, table: pd.DataFrame) -> str:
    """The table of answers ``foury-sim tune FILE.toml`` prints: one line per tuning."""
    what = (f"{tf.param} ({tf.monotone}, elements 0-based) for {tf.vector} ± {tf.tolerance:g}" if tf.vector else
            f"{tf.param} for {tf.metric} = {tf.target:g} ± {tf.tolerance:g}")
    lines = [f"{tf.title or tf.name}: {what} (seed {tf.seed}, {100 * tf.conf:g} % intervals)"]
    if tf.overridden:
        lines.append("from the command line, in place of the file's values: " + ", ".join(
            f"--{k.replace('_', '-')} {d['used']:g} (file: {d['file']:g})" for k, d in tf.overridden.items()))
    lines.append("")
    for _, row in table.iterrows():
        who = ", ".join(f"{k}={row[k]}" for k in tf.swept) or "all"
        lines.append(f"{who}: {row['answer']}")
    lines.append("")
    lines.append(f"{int(table['games'].sum()):,} games in all")
    return "\n".join(lines)


# ------------------------------------------------------------------------- a vector: a per-round schedule --
#: ``--monotone``: the order a schedule's elements must keep (``strictly-``: integers differ by at least 1)
MONOTONE = ("none", "increasing", "decreasing", "strictly-increasing", "strictly-decreasing")
CONSTRAINED = "constrained"  #: the target lies before the previous element: the constraint binds, value = the bound
PINNED = "pinned"  #: the constraint leaves one value (or none) in the range: the bound is taken and measured
KEPT = "kept"  #: no target for this element ("-"): it keeps its value (lifted only to keep the order)
VECTOR_STATUSES = (*STATUSES, CONSTRAINED, PINNED, KEPT)

VEvaluate = Callable[[int, list[float], int, int], np.ndarray]

_ELEMENT_METRIC = re.compile(r"^\s*(?P<col>[A-Za-z_]\w*)\s*(?P<op>>=|<=|==|>|<)\s*i\s*(?:(?P<sign>[+-])\s*"
                             r"(?P<off>\d+))?\s*=(?P<values>.*)$")
_OPS: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    ">=": lambda x, k: x >= k, ">": lambda x, k: x > k, "<=": lambda x, k: x <= k, "<": lambda x, k: x < k,
    "==": lambda x, k: x == k}


@dataclass(frozen=True)
class ElementMetric:
    """A per-element rate: element ``i`` (0-based) of the schedule is tuned on the share of games with
    ``column OP i + offset`` (``rounds_completed >= i+1``: element 0 is judged on "completed round 1")."""

    column: str
    op: str
    offset: int

    def name(self, i: int | None = None) -> str:
        if i is None:
            return f"{self.column}{self.op}i{'+' if self.offset > 0 else '-' if self.offset < 0 else ''}" \
                   f"{abs(self.offset) if self.offset else ''}"
        return f"{self.column}{self.op}{i + self.offset}"

    def values(self, df: pd.DataFrame, i: int) -> np.ndarray:
        return _OPS[self.op](df[self.column].to_numpy(float), i + self.offset).astype(float)


def parse_vector_target(text: str) -> tuple[ElementMetric, list[float | None]]:
    """``"rounds_completed>=i+1=0.9,0.8,0.7,0.6"`` -> (the per-element metric, one target per element; ``-``
    keeps an element as it is). ``i`` is the element's 0-based index."""
    m = _ELEMENT_METRIC.match(str(text))
    if not m:
        raise InputError(f"{text!r} is not COLUMN OP i[+K]=T0,T1,... for a list setting (e.g. "
                         "rounds_completed>=i+1=0.9,0.8,0.7,0.6; i is the element's 0-based index, - keeps one)",
                         "--target")
    off = int(m.group("off") or 0) * (-1 if m.group("sign") == "-" else 1)
    targets: list[float | None] = []
    for part in m.group("values").split(","):
        part = part.strip()
        if part == "-":
            targets.append(None)
            continue
        try:
            v = float(part)
        except ValueError:
            raise InputError(f"{part!r} is not a number (or - to keep the element)", "--target") from None
        if not (math.isfinite(v) and 0 <= v <= 1):
            raise InputError(f"a rate's target is a fraction from 0 to 1, not {part}", "--target")
        targets.append(v)
    if all(t is None for t in targets):
        raise InputError("every element is kept (-): give at least one target", "--target")
    return ElementMetric(m.group("col"), m.group("op"), off), targets


def check_monotone(text: str) -> str:
    if text not in MONOTONE:
        raise InputError(f"must be one of {', '.join(MONOTONE)}, not {text!r}", "--monotone")
    return text


@dataclass
class VectorResult:
    """What a schedule search found: one ``TuneResult`` per tuned element (None for a kept one)."""

    param: str
    metric: str  #: the per-element metric's pattern (``rounds_completed>=i+1``)
    targets: list[float | None]
    tolerance: float
    conf: float
    lo: float
    hi: float
    integer: bool
    monotone: str
    base: list[float]  #: the schedule before tuning
    schedule: list[float]  #: the chosen schedule
    statuses: list[str]
    elements: list[TuneResult | None]
    bounds: list[tuple[float, float]]  #: each element's search range (after the monotone constraint)
    games: int = 0
    warnings: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        rows = []
        for i, (r, st) in enumerate(zip(self.elements, self.statuses)):
            row = {"element": i, "key": f"{self.param}[{i}]", "metric": r.metric if r else "",
                   "target": self.targets[i], "value": self.schedule[i], "status": st,
                   "search_lo": self.bounds[i][0], "search_hi": self.bounds[i][1],
                   "estimate": None, "lo": None, "hi": None, "consistent_lo": None, "consistent_hi": None,
                   "games": r.games if r else 0}
            if r is not None and self.schedule[i] in set(r.table["value"]):
                c = r.row(self.schedule[i])
                row |= {"estimate": c["estimate"], "lo": c["lo"], "hi": c["hi"]}
            if r is not None and r.interval is not None:
                row |= {"consistent_lo": r.interval[0], "consistent_hi": r.interval[1]}
            rows.append(row)
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        from .files import to_jsonable

        return to_jsonable({
            "param": self.param, "metric": self.metric, "index": "0-based", "targets": self.targets,
            "tolerance": self.tolerance, "conf": self.conf, "range": [self.lo, self.hi], "integer": self.integer,
            "monotone": self.monotone, "base": self.base, "schedule": self.schedule, "statuses": self.statuses,
            "games": self.games, "answer": vector_answer_line(self), "warnings": self.warnings,
            "settings": self.settings, "elements_table": self.table().to_dict(orient="records"),
            "elements": [r.to_dict() if r is not None else None for r in self.elements], **self.extra})


def lift(schedule: list[float], i: int, monotone: str, integer: bool) -> list[float]:
    """``schedule`` with the elements after ``i`` moved just enough to keep the order after element ``i``
    (the elements before are the chosen ones; an element is only ever moved towards the order)."""
    out = list(schedule)
    step = 1.0 if monotone.startswith("strictly") and integer else 0.0
    for j in range(i + 1, len(out)):
        if monotone.endswith("increasing"):
            out[j] = max(out[j], out[j - 1] + step)
        elif monotone.endswith("decreasing"):
            out[j] = min(out[j], out[j - 1] - step)
    return out


def search_vector(evaluate: VEvaluate, *, targets: list[float | None], tolerance: float, lo: float, hi: float,
                  base: list[float], integer: bool = True, monotone: str = "increasing", conf: float = 0.95,
                  max_games: int = 200_000, first_games: int | None = None, points: int = 5,
                  param: str = "schedule", metric: ElementMetric | str = "metric",
                  progress: Callable[[int], None] | None = None) -> VectorResult:
    """Tune a schedule element by element, in order (0, 1, ...), each with ``search`` on its own target.

    ``evaluate(i, schedule, start, count)``: the per-game values (0/1) of element ``i``'s metric for games
    ``start .. start+count-1`` played with the whole ``schedule`` (the same game index, the same dice, for every
    schedule: common dice throughout). While element ``i`` is tuned the elements before it are the chosen ones,
    and the ones after it keep their values, moved only as far as the order needs (``lift``). With a monotone
    constraint element ``i`` searches from the previous element's value (``increasing``: ``[max(lo, prev),
    hi]``; strictly, for integers: from ``prev + 1``). When the target is not reached in that range and its
    constrained end is the nearer to the target, the unconstrained answer lies beyond the previous element:
    the constraint binds and the bound is reported (status ``constrained``). ``max_games`` is shared: each element
    gets the games left divided by the elements left to tune."""
    check_monotone(monotone)
    n = len(base)
    if len(targets) != n:
        raise InputError(f"{param} has {n} elements: give {n} targets (or - to keep one), not {len(targets)}",
                         "--target")
    mname = metric.name if isinstance(metric, ElementMetric) else (lambda i=None: str(metric))
    sched = [float(v) for v in base]
    statuses: list[str] = []
    elements: list[TuneResult | None] = []
    bounds: list[tuple[float, float]] = []
    warnings: list[str] = []
    spent = 0
    step = 1.0 if monotone.startswith("strictly") and integer else 0.0
    inc, dec = monotone.endswith("increasing"), monotone.endswith("decreasing")
    for i in range(n):
        sched = lift(sched, i - 1, monotone, integer) if i else sched
        lo_i, hi_i = lo, hi
        if i and inc:
            lo_i = max(lo, sched[i - 1] + step)
        if i and dec:
            hi_i = min(hi, sched[i - 1] - step)
        bounds.append((lo_i, hi_i))
        if targets[i] is None:
            statuses.append(KEPT)  # kept as it is (moved only by the order: ``lift`` above), even outside the range
            elements.append(None)
            continue
        left = sum(1 for t in targets[i:] if t is not None)
        budget = max(100, (max_games - spent) // left)

        def ev(v: float, start: int, count: int, i: int = i, now: tuple[float, ...] = tuple(sched)) -> np.ndarray:
            s = list(now)
            s[i] = float(v)
            s = lift(s, i, monotone, integer)
            return evaluate(i, [int(x) if integer else x for x in s], start, count)

        name_i = f"{param}[{i}]"
        if not lo_i < hi_i:  # the constraint leaves one value in the range, or none
            v = lo_i if inc else hi_i
            n0 = first_games or max(100, games_for_halfwidth(RATE, targets[i], tolerance / 2, conf) // 4)
            n0 = max(2, min(n0, budget))
            x = np.asarray(ev(v, 0, n0), float)
            if progress is not None:
                progress(n0)
            m, l_, h_ = estimate(x, RATE, conf)
            t = pd.DataFrame([{"value": int(v) if integer else v, "games": n0, "estimate": m, "lo": l_, "hi": h_,
                               "in_band": bool(targets[i] - tolerance <= l_ and h_ <= targets[i] + tolerance)}])
            r = TuneResult(param=name_i, metric=mname(i), kind=RATE, target=targets[i], tolerance=tolerance,
                           conf=conf, lo=v, hi=v, integer=integer, status=PINNED, value=int(v) if integer else v,
                           direction=0, monotone=True, interval=None, table=t, games=n0)
            spent += n0
            sched[i] = v
            statuses.append(PINNED)
            elements.append(r)
            warnings.append(f"{name_i}: the {monotone} order leaves only {fmt_value(v, integer)} in the range "
                            f"{lo:g}..{hi:g}: taken as it is ({mname(i)} {fmt_metric(m, RATE)})")
            continue
        r = search(ev, target=targets[i], tolerance=tolerance, lo=lo_i, hi=hi_i, integer=integer, kind=RATE,
                   conf=conf, max_games=budget, first_games=first_games, points=points, param=name_i,
                   metric=mname(i), progress=progress)
        spent += r.games
        status = r.status
        value = r.value
        if r.status in (NOT_REACHED, FLAT):
            t = r.table
            near = t.loc[(t["estimate"] - targets[i]).abs().idxmin()]
            value = int(near["value"]) if integer else float(near["value"])
            bound = lo_i if inc else hi_i if dec else None
            if r.status == NOT_REACHED and i and bound is not None and value == bound:
                status = CONSTRAINED
                prev = fmt_value(sched[i - 1], integer)
                r.warnings = [f"the target is reached only before the previous element ({prev}): the {monotone} "
                              f"order binds and {name_i} = {fmt_value(value, integer)} is the nearest allowed value"]
        sched[i] = float(value)
        statuses.append(status)
        elements.append(r)
        warnings += [f"{name_i}: {w}" for w in r.warnings]
    sched = lift(sched, n - 1, monotone, integer)
    schedule = [int(v) if integer else v for v in sched]
    return VectorResult(param=param, metric=metric.name() if isinstance(metric, ElementMetric) else str(metric),
                        targets=targets, tolerance=tolerance, conf=conf, lo=lo, hi=hi, integer=integer,
                        monotone=monotone, base=[int(v) if integer else v for v in base], schedule=schedule,
                        statuses=statuses, elements=elements, bounds=bounds, games=spent, warnings=warnings)


def vector_answer_line(v: VectorResult) -> str:
    """``round.monster_bonus = [0, 1, 3, 4] (increasing; was [0, 1, 2, 3]): [0] ..., [1] ...; 24,000 games``."""
    parts = []
    for i, (r, st) in enumerate(zip(v.elements, v.statuses)):
        val = fmt_value(v.schedule[i], v.integer)
        if r is None:
            parts.append(f"[{i}] = {val} kept")
            continue
        shown = r.value if r.value is not None else v.schedule[i]
        if shown in set(r.table["value"]) and float(shown) == float(v.schedule[i]):
            c = r.row(shown)
            meas = f"{r.metric} {fmt_metric(c['estimate'], RATE)} {fmt_interval(c['lo'], c['hi'], RATE)}"
        else:
            meas = r.metric
        tail = "" if st == HIT else f", {st}"
        if st == BETWEEN and len(r.neighbours) == 2:  # the other integer neighbour of the target
            other = r.neighbours[1] if float(r.neighbours[0]) == float(v.schedule[i]) else r.neighbours[0]
            tail += f"; {other} gives {fmt_metric(r.row(other)['estimate'], RATE)}"
        parts.append(f"[{i}] = {val}: {meas} (target {100 * v.targets[i]:g} %{tail})")
    sched = ", ".join(fmt_value(x, v.integer) for x in v.schedule)
    base = ", ".join(fmt_value(x, v.integer) for x in v.base)
    order = "" if v.monotone == "none" else f"{v.monotone}; "
    return (f"{v.param} = [{sched}] ({order}was [{base}]; ± {100 * v.tolerance:g} %, 0-based): "
            + "; ".join(parts) + f"; {v.games:,} games")


def format_vector(v: VectorResult) -> str:
    """The text ``foury-sim tune`` prints for a list setting: the answer, one line per element, the warnings."""
    lines = [vector_answer_line(v), ""]
    lines.append(f"{'element':>9s}  {'metric':>22s}  {'target':>7s}  {'value':>6s}  {'search':>9s}  "
                 f"{'rate (%)':>8s}  {'interval':>14s}  {'consistent':>10s}  {'games':>8s}  status")
    for _, row in v.table().iterrows():
        tgt = "-" if row["target"] is None or pd.isna(row["target"]) else f"{100 * row['target']:.0f} %"
        rate = "" if row["estimate"] is None or pd.isna(row["estimate"]) else fmt_metric(row["estimate"], RATE)
        iv = "" if row["lo"] is None or pd.isna(row["lo"]) else fmt_interval(row["lo"], row["hi"], RATE)
        cons = ""
        if row["consistent_lo"] is not None and not pd.isna(row["consistent_lo"]):
            a, b = row["consistent_lo"], row["consistent_hi"]
            cons = fmt_value(a, v.integer) + ("" if a == b else f"..{fmt_value(b, v.integer)}")
        search_rng = f"{fmt_value(row['search_lo'], v.integer)}..{fmt_value(row['search_hi'], v.integer)}"
        lines.append(f"{'[' + str(row['element']) + ']':>9s}  {row['metric'] or '-':>22s}  {tgt:>7s}  "
                     f"{fmt_value(row['value'], v.integer):>6s}  {search_rng:>9s}  {rate:>8s}  {iv:>14s}  "
                     f"{cons:>10s}  {int(row['games']):>8,}  {row['status']}")
    lines += ["", f"elements are 0-based ([0] is the first); each searched from the previous one's value "
              f"({v.monotone}); intervals at {100 * v.conf:g} %; common dice (games 0, 1, ... of one seed) "
              "for every candidate"]
    lines += [f"WARNING: {w}" for w in v.warnings]
    return "\n".join(lines)


def vector_figure(v: VectorResult) -> Any:
    """One calibration panel per tuned element (``calibration_figure``'s content), side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tuned = [(i, r) for i, r in enumerate(v.elements) if r is not None]
    cols = min(4, len(tuned))
    rows = math.ceil(len(tuned) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 3.2 * rows), squeeze=False, sharey=True)
    for ax in axes.ravel()[len(tuned):]:
        ax.set_visible(False)
    for ax, (i, r) in zip(axes.ravel(), tuned):
        t = r.table.sort_values("value")
        x = t["value"].to_numpy(float)
        ax.axhspan(100 * (r.target - r.tolerance), 100 * (r.target + r.tolerance), color="tab:green", alpha=0.18)
        ax.axhline(100 * r.target, color="tab:green", lw=1)
        ax.fill_between(x, 100 * t["lo"].to_numpy(float), 100 * t["hi"].to_numpy(float), color="tab:blue",
                        alpha=0.2)
        ax.plot(x, 100 * t["estimate"].to_numpy(float), "o-", color="tab:blue", ms=3)
        lo_i, hi_i = v.bounds[i]
        pad = 0.5 if v.integer else 0.0
        if v.monotone.endswith("increasing") and lo_i > v.lo:
            ax.axvspan(v.lo - pad, lo_i - pad, color="0.5", alpha=0.15)
        elif v.monotone.endswith("decreasing") and hi_i < v.hi:
            ax.axvspan(hi_i + pad, v.hi + pad, color="0.5", alpha=0.15)
        val = v.schedule[i]
        if val in set(r.table["value"]):
            c = r.row(val)
            ax.plot([val], [100 * c["estimate"]], "*", color="tab:red", ms=11)
        ax.axvline(val, color="tab:red", ls="--", lw=1)
        ax.set_title(f"[{i}] = {fmt_value(val, v.integer)} ({v.statuses[i]}; {r.games:,} games)", fontsize=9)
        ax.set_xlabel(f"{v.param}[{i}]", fontsize=8)
        ax.grid(alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel(f"{v.metric} (% of games; i = element)", fontsize=8)
    fig.suptitle(f"Calibration per element of {v.param} ({v.monotone}; grey: excluded by the order; green: "
                 f"target ± tolerance; {v.games:,} games)", fontsize=9)
    fig.tight_layout()
    _made_footer(fig, v, f"{v.games:,} games in all")
    return fig


def write_vector(v: VectorResult, out: str | Path) -> list[Path]:
    """``tune.json``, ``elements.csv``, ``candidates.csv`` (every element's candidates) and ``calibration.png``."""
    from .files import atomic_write, save_figure, write_frame

    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    paths = [d / "tune.json", d / "elements.csv", d / "candidates.csv", d / "calibration.png"]
    atomic_write(paths[0], json.dumps(v.to_dict() | made(), indent=2))
    write_frame(v.table(), paths[1])
    cands = [r.table.assign(element=i) for i, r in enumerate(v.elements) if r is not None]
    write_frame(pd.concat(cands, ignore_index=True)[["element", *cands[0].columns[:-1]]], paths[2])
    fig = vector_figure(v)
    save_figure(fig, paths[3], dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return paths


def list_setting(spec: Any, param: str, fixed: dict[str, Any]) -> tuple[str, list[Any]] | None:
    """(dotted key, its list) when ``param`` names a whole list of numbers in the game's ruleset (a short key
    is resolved as ``--set`` resolves it), else None."""
    from .rulesfile import find_key
    from .study import CellRunner

    if param in SPECIAL_KEYS or param.startswith("param.") or "[" in param:
        return None
    try:
        rs, _, _ = CellRunner(spec).resolve(dict(fixed), "--fixed")
    except InputError:
        raise
    data = getattr(rs, "data", None)
    if not isinstance(data, dict):
        return None
    path = param
    if "." not in param:
        hits = find_key(data, param)
        path = hits[0] if len(hits) == 1 else param
    node: Any = data
    for part in path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, list) and node and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                               for x in node):
        return path, list(node)
    return None


def tune_vector(game: str, param: str, target: str, tolerance: float, *, fixed: dict[str, Any] | None = None,
                lo: float, hi: float, integer: bool = True, monotone: str = "increasing", seed: int = 1,
                conf: float = 0.95, max_games: int = 200_000, first_games: int | None = None, points: int = 5,
                threads: int | None = None, progress: bool | None = None) -> VectorResult:
    """Tune the list setting ``param`` of ``game`` element by element (``search_vector`` over the engine, common
    dice): ``target`` is ``COLUMN OP i[+K]=T0,T1,...`` (``rounds_completed>=i+1=0.9,0.8,0.7,0.6``)."""
    from .chunks import stream_rows
    from .inputs import check_conf, check_games, check_seed, check_threads
    from .provenance import command, settings_args
    from .registry import get_game
    from .runner import Progress, numba_threads
    from .study import CellRunner

    spec = get_game(game)
    check_seed(seed)
    check_conf(conf)
    check_threads(threads)
    check_games(max_games, "--max-games")
    check_monotone(monotone)
    check_budget(max_games, points)
    check_band(tolerance, lo, hi, integer)
    fixed = dict(fixed or {})
    if param in fixed:
        raise InputError(f"{param} is both tuned and fixed", "--fixed")
    found = list_setting(spec, param, fixed)
    if found is None:
        raise InputError(f"{param} is not a list of numbers in {game}'s ruleset: a vector target (COLUMN OP i=...) "
                         "tunes a list such as round.monster_bonus", "--param")
    path, base = found
    em, targets = parse_vector_target(target)
    col = spec.outputs.column(em.column)
    if col is None or col.repeat is not None or col.driver:  # any per-game number: a count, a mean, a code
        usable = [c.name for c in spec.outputs.columns if c.repeat is None and not c.driver]
        raise InputError(f"{spec.name} has no per-game column {em.column!r} (known: {', '.join(usable)})",
                         "--target")
    if len(targets) != len(base):
        raise InputError(f"{path} has {len(base)} elements ([0]..[{len(base) - 1}]): give {len(base)} targets "
                         f"(- keeps an element), not {len(targets)}", "--target")
    cells = CellRunner(spec)
    check_vector_setting(spec, path, len(base), fixed, lo, hi, integer, monotone, cells)

    def evaluate(i: int, schedule: list[float], start: int, count: int) -> np.ndarray:
        rs, hero, pol = cells.resolve(fixed | {path: list(schedule)}, "--param")
        with numba_threads(threads):  # the chunk path: only the metric's column comes back
            with policy_given_at("--fixed"):
                df, _ = stream_rows(spec, rs, hero, pol, seed, start, count, columns=(em.column,))
        return em.values(df, i)

    bar = Progress(max_games, label="games (budget)", enabled=progress) if progress is not False else None
    try:
        v = search_vector(evaluate, targets=targets, tolerance=tolerance, lo=lo, hi=hi, base=base, integer=integer,
                          monotone=monotone, conf=conf, max_games=max_games, first_games=first_games,
                          points=points, param=path, metric=em, progress=bar.update if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    v.settings = fixed
    rng = range_text(lo, hi, integer)
    args = ["--param", path, "--target", target.replace(" ", ""), "--tolerance", number_text(tolerance), "--range", rng,
            "--monotone", monotone, "--seed", str(seed), "--conf", number_text(conf), "--max-games", str(max_games),
            "--points", str(points)] + (["--first-games", str(first_games)] if first_games is not None else [])
    args += fixed_args(fixed)
    v.extra = {"game": game, "seed": seed, "command": command("tune", game, args),
               **rests_on(spec, fixed, path, v.schedule),
               "chosen_settings_args": settings_args(fixed | {path: v.schedule}, game)}
    return v


def check_vector_setting(spec: Any, path: str, n: int, fixed: dict[str, Any], lo: float, hi: float, integer: bool,
                         monotone: str, cells: Any = None) -> None:
    """The schedules at both ends of the range (the lowest kept in order) must be ones the game takes."""
    from .study import CellRunner

    cells = cells or CellRunner(spec)
    for ends in (lift([lo] * n, 0, monotone, integer), lift([hi] * n, 0, monotone, integer)):
        sched = [int(x) if integer else x for x in ends]
        try:
            cells.resolve(dict(fixed) | {path: sched})
        except InputError as e:
            raise InputError(f"{path} = {sched} is refused: {e.where + ': ' if e.where else ''}{e.message}",
                             "--range") from None


def run_vector_file(tf: TuneFile, out_root: str | Path | None = None, *, threads: int | None = None,
                    progress: bool | None = None) -> tuple[pd.DataFrame, list[VectorResult]]:
    """``run_tune_file`` for a whole list: one schedule per cell; ``OUT/NAME/`` gets ``answers.csv``,
    ``elements.csv`` (every cell's elements), ``tune.json`` and ``CELL_calibration.png`` per cell."""
    results: list[VectorResult] = []
    rows = []
    for cell in tf.cells:
        with policy_given_at(_policy_line(tf, cell)):
            v = tune_vector(tf.game, tf.param, str(tf.vector), tf.tolerance, fixed=dict(tf.fixed) | cell, lo=tf.lo,
                            hi=tf.hi, integer=tf.integer, monotone=tf.monotone, seed=tf.seed, conf=tf.conf,
                            max_games=tf.max_games, first_games=tf.first_games, points=tf.points, threads=threads,
                            progress=progress)
        results.append(v)
        rows.append(dict(cell) | {"schedule": ",".join(fmt_value(x, tf.integer) for x in v.schedule),
                                  "statuses": ",".join(v.statuses), "games": v.games,
                                  "answer": vector_answer_line(v)})
    table = pd.DataFrame(rows)
    if out_root is not None:
        write_tune_file(tf, table, results, out_root)
    return table, results


# ------------------------------------------------------------------------------- one-scalar schedule family --
@dataclass(frozen=True)
class Family:
    """A schedule as a function of one number ``s``: element i = ``base[i] + s * step[i]``, rounded to the
    nearest whole number (halves away from zero) when the list holds whole numbers (``integer``)."""

    text: str  #: as given (``shift``, ``scale``, ``shape=0,1,2,3``, ``step=...``, ``base=...;step=...``)
    base: tuple[float, ...]
    step: tuple[float, ...]
    integer: bool

    def schedule(self, s: float) -> list[float]:
        out = [b + s * d for b, d in zip(self.base, self.step)]
        if self.integer:
            return [int(math.copysign(math.floor(abs(x) + 0.5), x)) for x in out]
        return out

    def pieces(self, lo: float, hi: float) -> list[tuple[float, float, list[float]]]:
        """For a whole-number list: the distinct schedules along ``s`` in ``[lo, hi]``, in order, each with the
        ``s`` interval that gives it (``[a, b)``; the last one closed). The rounding makes the schedule a step
        function of ``s``: it changes only where an element crosses a half (``base + s * step = k + 1/2``)."""
        cuts = set()
        for b, d in zip(self.base, self.step):
            if d == 0:
                continue
            x_lo, x_hi = sorted((b + lo * d, b + hi * d))
            for m in range(math.floor(x_lo) - 1, math.ceil(x_hi) + 1):  # the halves m + 1/2 between the ends
                c = (m + 0.5 - b) / d
                if lo < c < hi:
                    cuts.add(c)
        edges = [lo, *sorted(cuts), hi]
        out: list[tuple[float, float, list[float]]] = []
        for a, z in zip(edges[:-1], edges[1:]):
            sched = self.schedule((a + z) / 2)
            if out and out[-1][2] == sched:
                out[-1] = (out[-1][0], z, sched)
            else:
                out.append((a, z, sched))
        return out

    def formula(self) -> str:
        def nums(v: tuple[float, ...]) -> str:
            return "[" + ", ".join(f"{x:g}" for x in v) + "]"

        rounded = " rounded to whole numbers" if self.integer else ""
        return f"base {nums(self.base)} + s x step {nums(self.step)}{rounded}"


FAMILY_HELP = ("shift (the current list + s), scale (s x the current list), shape=V0,V1,... (s x that shape), "
               "step=V0,V1,... (the current list + s x that step) or base=B0,B1,...;step=V0,V1,...")


def parse_family(text: str, current: list[float] | None) -> Family:
    """``--family``: the schedule as ``base + s * step`` (``Family``); refused in one line when it is not one of
    the spellings in ``FAMILY_HELP`` or a list has the wrong length. ``current`` None: the spelling only (before
    the list is known; the lengths are not checked, the family returned is not for use)."""
    spelling_only = current is None
    current = [] if current is None else current
    n = len(current)
    integer = all(float(x).is_integer() for x in current)
    spelled = str(text).strip()

    def numbers(part: str, what: str) -> tuple[float, ...]:
        items = [x.strip() for x in part.split(",")]
        try:
            vals = tuple(float(x) for x in items)
        except ValueError:
            raise InputError(f"{what}={part!r}: not a list of numbers", "--family") from None
        if not all(math.isfinite(v) for v in vals):
            raise InputError(f"{what}={part!r}: the numbers must be finite", "--family")
        if len(vals) != n and not spelling_only:
            raise InputError(f"{what} has {len(vals)} numbers; the list has {n}", "--family")
        return vals

    cur = tuple(float(x) for x in current)
    if spelled == "shift":
        base, step = cur, (1.0,) * n
    elif spelled == "scale":
        base, step = (0.0,) * n, cur
    else:
        given: dict[str, tuple[float, ...]] = {}
        for part in spelled.split(";"):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or key not in ("base", "step", "shape"):
                raise InputError(f"{spelled!r} is not a family: {FAMILY_HELP}", "--family")
            if key in given:
                raise InputError(f"{key} is given twice", "--family")
            given[key] = numbers(value, key)
        if "shape" in given and len(given) > 1:
            raise InputError("shape=... is a whole family (s x shape): give it alone, or base=...;step=...",
                             "--family")
        if "shape" in given:
            base, step = (0.0,) * n, given["shape"]
        elif "step" in given:
            base, step = given.get("base", cur), given["step"]
        else:
            raise InputError(f"{spelled!r} gives no step: {FAMILY_HELP}", "--family")
    if not any(step) and not (spelling_only and spelled in ("shift", "scale")):
        raise InputError(f"{spelled!r}: every step is 0, so s moves nothing", "--family")
    return Family(spelled, base, step, integer)


def family_answer_line(r: TuneResult) -> str:
    """The scalar answer (``s = 2 gives win ...``) followed by the schedule(s) it means."""
    fam = r.extra["family"]
    path = fam["param"]
    text = answer_line(r)

    def sched(v: float) -> str:
        row = r.row(v)
        return f"{path} = [{row['schedule'].replace(',', ', ')}] (s {row['s']})"

    if r.status == BETWEEN:
        a, b = r.neighbours
        return f"{text}; {sched(a)} or {sched(b)}"
    if r.value is None or r.status in (NOT_REACHED, FLAT):
        return text
    return f"{text}; {sched(r.value)}"


def format_family(r: TuneResult) -> str:
    """``format_result`` with the family's formula first and each candidate's ``s`` and schedule."""
    fam = r.extra["family"]
    lo, hi = fam["s_range"]
    head = f"{fam['param']} = {fam['formula']} (was {fam['was']}); s searched in {lo:g}..{hi:g}"
    if fam["indexed"]:
        head += (f"; the rounding makes {fam['pieces']} distinct schedules along s, numbered k = 0 .. "
                 f"{fam['pieces'] - 1} in the order of s, and k is searched as a whole number")
    lines = [head, family_answer_line(r), ""]
    body = format_result(r).splitlines()[2:]
    table_end = body.index("") if "" in body else len(body)
    for i, line in enumerate(body):
        if 0 < i < table_end:
            row = r.table.iloc[i - 1]
            line = f"{line:<72s}  {row['s']:>18s}  [{row['schedule'].replace(',', ', ')}]"
        elif i == 0:
            line = f"{line:<72s}  {'s':>18s}  schedule"
        lines.append(line)
    return "\n".join(lines)


FEvaluate = Callable[[list[float], int, int], np.ndarray]


def search_family(evaluate: FEvaluate, fam: Family, *, target: float, tolerance: float, lo: float, hi: float,
                  integer: bool = False, kind: str = RATE, conf: float = 0.95, max_games: int = 200_000,
                  first_games: int | None = None, points: int = 5, param: str = "schedule", was: Any = None,
                  metric: str = "win", progress: Callable[[int], None] | None = None) -> TuneResult:
    """Find ``s`` in ``[lo, hi]`` whose schedule ``fam.schedule(s)`` puts the metric within ``tolerance`` of
    ``target``: the scalar ``search`` over ``s`` (``integer``: whole numbers). ``evaluate(schedule, start,
    count)``: the per-game metric values of games ``start .. start+count-1`` under ``schedule`` (common dice).

    A whole-number list with a continuous ``s`` is a step function of ``s`` (``Family.pieces``): the search then
    runs over the number ``k`` of the distinct schedules along ``s``, as an integer setting, so that no games
    are spent telling apart values of ``s`` that give the same schedule, and the two neighbouring schedules are
    reported when none hits the band. The result's ``value`` is ``s`` (or ``k``); its table has each
    candidate's ``s`` (or ``s`` interval) and ``schedule``; ``extra["family"]`` the formula."""
    check_band(tolerance, lo, hi, integer)
    pieces = fam.pieces(lo, hi) if fam.integer and not integer else []
    if fam.integer and not integer and len(pieces) < 2:
        raise InputError(f"s in {lo:g}..{hi:g} gives one schedule only ({pieces[0][2]}): widen --range",
                         "--range")

    def schedule_of(v: float) -> list[float]:
        return pieces[int(v)][2] if pieces else fam.schedule(v)

    def s_text(v: float) -> str:
        if pieces:
            a, z, _ = pieces[int(v)]
            return f"{a:.4g} to {z:.4g}"
        return fmt_value(v, integer)

    r = search(lambda v, start, count: evaluate(schedule_of(v), start, count), target=target, tolerance=tolerance,
               lo=0 if pieces else lo, hi=len(pieces) - 1 if pieces else hi, integer=integer or bool(pieces),
               kind=kind, conf=conf, max_games=max_games, first_games=first_games,
               points=min(points, len(pieces)) if pieces else points, param="k" if pieces else "s", metric=metric,
               progress=progress)
    if pieces:  # say the range of s the k range stands for
        r.warnings = [w.replace(f"in 0..{len(pieces) - 1}", f"in k 0..{len(pieces) - 1} (s {lo:g}..{hi:g})")
                      for w in r.warnings]
    r.table = r.table.assign(s=[s_text(v) for v in r.table["value"]],
                             schedule=[",".join(f"{x:g}" for x in schedule_of(v)) for v in r.table["value"]])
    chosen = schedule_of(r.value) if r.value is not None and r.status not in (NOT_REACHED, FLAT) else None
    r.extra = {"family": {"param": param, "text": fam.text, "formula": fam.formula(), "was": was,
                          "base": list(fam.base), "step": list(fam.step), "schedule": chosen,
                          "indexed": bool(pieces), "pieces": len(pieces), "s_range": [lo, hi],
                          "s_of_k": [[a, z] for a, z, _ in pieces]}}
    return r


def tune_family(game: str, param: str, family: str, target_metric: str, target: float, tolerance: float, *,
                fixed: dict[str, Any] | None = None, lo: float, hi: float, integer: bool = True, seed: int = 1,
                conf: float = 0.95, max_games: int = 200_000, first_games: int | None = None, points: int = 5,
                threads: int | None = None, progress: bool | None = None) -> TuneResult:
    """Tune the list setting ``param`` of ``game`` through one number ``s`` (``search_family`` over the game's
    engine, common dice): the schedule is ``parse_family(family)`` at ``s``, found so that ``target_metric`` is
    within ``tolerance`` of ``target``."""
    from .chunks import stream_rows
    from .inputs import check_conf, check_seed, check_threads
    from .provenance import command, settings_args
    from .registry import get_game
    from .runner import Progress, numba_threads
    from .study import CellRunner

    spec = get_game(game)
    check_seed(seed)
    check_conf(conf)
    check_threads(threads)
    check_budget(max_games, points, first_games)
    check_band(tolerance, lo, hi, integer)
    kind = metric_kind(spec, target_metric)
    fixed = dict(fixed or {})
    if param in fixed:
        raise InputError(f"{param} is both tuned and fixed", "--fixed")
    parse_family(family, None)  # the spelling first: a bad one is named before the setting is looked up
    found = list_setting(spec, param, fixed)
    if found is None:
        raise InputError(f"{param} is not a list of numbers in {game}'s ruleset: --family tunes a list such as "
                         "round.monster_bonus through one number", "--param")
    path, was = found
    fam = parse_family(family, was)
    cells = CellRunner(spec)
    for s in (lo, hi):
        sched = fam.schedule(s)
        try:
            cells.resolve(fixed | {path: sched})
        except InputError as e:
            raise InputError(f"s = {s:g} gives {path} = {sched}, which is refused: "
                             f"{e.where + ': ' if e.where else ''}{e.message}", "--range") from None

    def evaluate(schedule: list[float], start: int, count: int) -> np.ndarray:
        rs, hero, pol = cells.resolve(fixed | {path: schedule}, "--param")
        with numba_threads(threads):  # the chunk path: only the metric's column comes back
            with policy_given_at("--fixed"):
                df, _ = stream_rows(spec, rs, hero, pol, seed, start, count, columns=(target_metric,))
        return df[target_metric].to_numpy(float)

    bar = Progress(max_games, label="games (budget)", enabled=progress) if progress is not False else None
    try:
        r = search_family(evaluate, fam, target=target, tolerance=tolerance, lo=lo, hi=hi, integer=integer,
                          kind=kind, conf=conf, max_games=max_games, first_games=first_games, points=points,
                          param=path, was=was, metric=target_metric,
                          progress=bar.update if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    r.settings = fixed
    rng = range_text(lo, hi, integer)
    args = ["--param", path, "--family", fam.text, "--target", f"{target_metric}={number_text(target)}", "--tolerance",
            number_text(tolerance), "--range", rng, "--seed", str(seed), "--conf", number_text(conf), "--max-games",
            str(max_games), "--points", str(points)] + (
        ["--first-games", str(first_games)] if first_games is not None else [])
    args += fixed_args(fixed)
    if not integer and all(float(x).is_integer() for x in (lo, hi)):
        args.append("--continuous")
    chosen = r.extra["family"]["schedule"]
    r.extra |= {"game": game, "seed": seed, "command": command("tune", game, args),
               **rests_on(spec, fixed, path, chosen),
                "chosen_settings_args": settings_args(fixed | {path: chosen}, game) if chosen is not None else None}
    col = spec.outputs.column(target_metric)
    if col is not None:
        r.extra["axis_label"] = f"{col.label} (% of games)" if kind == RATE else col.axis_label
    return r
