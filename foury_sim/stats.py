"""Statistics for simulated games: intervals, paired comparisons, multiple testing, precision targets.

The distributions come from the field's libraries: ``scipy.stats`` (normal, Student t, binomial,
exact binomial test, paired t test; the normal, t and binomial values a run's summary needs are read from
the same ``scipy.special`` functions directly, bit for bit, which spares a short command the import of
``scipy.stats``) and ``statsmodels`` (Wilson interval, Holm and
Benjamini-Hochberg adjustments). Hand-written here is only what no library offers: Newcombe's
paired interval for two proportions (method 10), the design-effect (effective sample size) Wilson
interval for cells pooled over shared dice, and the sequential-precision rules. Both libraries are
imported lazily (the command line starts faster). Conventions:

* ``conf`` is always a two-sided confidence level in (0, 1), e.g. 0.95.
* Quantile functions take a probability: ``norm_ppf(0.975) == z_value(0.95) == 1.95996...``;
  ``t_ppf(0.975, 5) == t_value(0.95, 5) == 2.5706...``.
* Paired comparisons use ``diff = b - a``: positive means variant ``b`` does better.

Formulas, references and the checks behind them are in ``docs/statistics.md``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .errors import InputError

__all__ = [
    "norm_cdf",
    "norm_ppf",
    "z_value",
    "t_sf",
    "t_ppf",
    "t_value",
    "wilson",
    "wilson_arrays",
    "wilson_coverage",
    "ci_width",
    "needed_games",
    "mean_ci",
    "ratio_ci",
    "ratio_ci_sums",
    "quantile_ci",
    "binomial_two_sided_p",
    "binomial_two_sided_p_array",
    "mcnemar_p",
    "paired_rate_diff",
    "paired_mean_diff",
    "paired_beyond_p",
    "adjust_pvalues",
    "pooled_rate_ci",
    "pooled_rate_ci_bound",
    "pair_counts",
    "pairwise_rate_tests",
    "PrecisionTarget",
    "min_batch",
    "simulate_precision_stopping",
    "cells_to_continue",
    "summarize_rate",
    "summarize_numeric",
    "binom_z",
    "check_frequency",
]

MIN_BATCH_FACTOR = 40.0  #: min_batch = ceil(MIN_BATCH_FACTOR * z / width); see docs/statistics.md


def _sps() -> Any:
    import scipy.stats

    return scipy.stats


#: The ``scipy.special`` functions this module calls: in ``scipy.special._ufuncs`` they are the very objects
#: ``scipy.special`` exports.
_SPECIAL = ("ndtr", "ndtri", "stdtr", "stdtrit")


@functools.cache
def _sc() -> Any:
    """``scipy.special``'s compiled functions (``scipy.special._ufuncs``): the functions behind
    ``scipy.stats.norm`` and ``scipy.stats.t`` (``ndtr``, ``ndtri``, ``stdtr``, ``stdtrit``), called directly where
    only those are needed: the same values, bit for bit (``tests/test_stats.py`` checks them against
    ``scipy.stats``), without importing ``scipy.stats``, a second of a short command's start-up. Imported by its
    name, so that in a command line's process, where ``scipy.special`` itself is deferred (``lazy.DEFERRED``: its
    import wraps and documents hundreds of functions), only the compiled module loads; a scipy whose module lacks
    one of them gives ``scipy.special``."""
    import importlib

    ufuncs = importlib.import_module("scipy.special._ufuncs")
    if all(hasattr(ufuncs, name) for name in _SPECIAL):
        return ufuncs
    return importlib.import_module("scipy.special")  # pragma: no cover - another scipy


def _check_conf(conf: float) -> float:
    conf = float(conf)
    if not 0.0 < conf < 1.0:
        raise ValueError(f"conf must be strictly between 0 and 1, got {conf}")
    return conf


def _check_prob(p: float, name: str = "p") -> float:
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {p}")
    return p


# --------------------------------------------------------------------------- normal and t (scipy.stats)


def norm_cdf(x: float) -> float:
    """Standard normal CDF Φ(x) (``scipy.stats.norm.cdf``)."""
    return float(_sc().ndtr(float(x)))


def norm_ppf(p: float) -> float:
    """Standard normal quantile Φ⁻¹(p) for 0 < p < 1 (``scipy.stats.norm.ppf``)."""
    p = float(p)
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, got {p}")
    return float(_sc().ndtri(p))


def z_value(conf: float = 0.95) -> float:
    """Two-sided normal critical value: ``Φ⁻¹(1 - (1-conf)/2)`` (1.959964 for 0.95)."""
    return _norm_isf(0.5 * (1.0 - _check_conf(conf)))


def _check_df(df: float) -> float:
    df = float(df)
    if not df > 0:
        raise ValueError(f"df must be > 0, got {df}")
    return df


def t_sf(t: float, df: float) -> float:
    """Student t survival function P(T > t) with ``df`` > 0 degrees of freedom (may be fractional or inf)."""
    t, df = float(t), _check_df(df)
    if math.isinf(df):
        return float(_sc().ndtr(-t))
    return float(_sc().stdtr(df, -t))


def t_ppf(p: float, df: float) -> float:
    """Student t quantile: t with P(T <= t) = p (``df`` > 0, may be fractional or ``inf``)."""
    p, df = float(p), _check_df(df)
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, got {p}")
    if math.isinf(df):
        return norm_ppf(p)
    return float(_sc().stdtrit(df, p))


def t_value(conf: float, df: float) -> float:
    """Two-sided Student t critical value: ``t_ppf(1 - (1-conf)/2, df)`` (2.5706 for 0.95, df=5)."""
    conf, df = _check_conf(conf), _check_df(df)
    if math.isinf(df):
        return z_value(conf)
    return float(-_sc().stdtrit(df, 0.5 * (1.0 - conf)))


def _binom_kernel(name: str) -> Any:
    """scipy's own binomial ufunc ``name`` (``scipy.special._ufuncs``: Boost's binomial, what ``scipy.stats.binom``
    calls), or None in a scipy without it."""
    import importlib

    try:
        scu = importlib.import_module("scipy.special._ufuncs")  # (by name: see ``_sc``)
    except ImportError:  # pragma: no cover - another scipy
        return None
    return getattr(scu, name, None)


def _binom_cdf_sf(j: np.ndarray, n: int | np.ndarray, q: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(scipy.stats.binom.cdf(j, n, q), scipy.stats.binom.sf(j - 1, n, q))`` for integer ``j`` and 0 < q < 1:
    scipy's own kernels (``scipy.special._ufuncs._binom_cdf``/``_binom_sf``, Boost's binomial) with the edge values
    of ``scipy.stats.rv_discrete`` (below the support: cdf 0, sf 1; at or past ``n``: cdf 1, sf 0), bit for bit
    (``tests/test_stats.py``), without importing ``scipy.stats``; a scipy without those kernels goes through
    ``scipy.stats``. ``n`` and ``q`` may be arrays of ``j``'s shape (one test an element)."""
    cdf_k, sf_k = _binom_kernel("_binom_cdf"), _binom_kernel("_binom_sf")
    if cdf_k is None or sf_k is None:  # pragma: no cover - another scipy
        return _sps().binom.cdf(j, n, q), _sps().binom.sf(j - 1, n, q)
    j = np.asarray(j, dtype=np.int64)
    k = (j - 1).astype(float)
    inner = (j >= 0) & (j < n)
    cdf = np.where(j < 0, 0.0, np.where(j >= n, 1.0, cdf_k(np.where(inner, j, 0).astype(float), n, q)))
    inner = (k >= 0) & (k < n)
    sf = np.where(k < 0, 1.0, np.where(k >= n, 0.0, sf_k(np.where(inner, k, 0.0), n, q)))
    return cdf, sf


# --------------------------------------------------------------------------- binomial rates


def wilson_arrays(k: ArrayLike, n: ArrayLike, conf: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised Wilson score interval (lo, hi) for k successes in n trials; n == 0 gives (0, 1).

    ``statsmodels.stats.proportion.proportion_confint(method="wilson")`` (the same operations, bit for bit,
    without importing statsmodels: seconds of a short command's start-up), with exact ends at k == 0
    and k == n (no rounding residue) and clipped to [0, 1].
    """
    conf = _check_conf(conf)
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("need 0 <= k <= n")
    return _wilson_alpha(k, n, 1.0 - conf)


def _wilson_alpha(k: np.ndarray, n: ArrayLike, alpha: float, remember: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """:func:`wilson_arrays` at level ``1 - alpha`` (checked inputs; ``alpha`` down to what a float holds;
    ``remember=False``: the critical value is not kept in :func:`_norm_isf`'s cache, for a search over levels)."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    safe_n = np.where(n > 0, n, 1.0)
    lo, hi = _wilson_statsmodels(np.where(n > 0, k, 0.0), safe_n, alpha, remember)
    lo = np.clip(np.asarray(lo, dtype=float), 0.0, 1.0)
    hi = np.clip(np.asarray(hi, dtype=float), 0.0, 1.0)
    lo = np.where(k == 0, 0.0, lo)
    hi = np.where(k == n, 1.0, hi)
    lo = np.where(n == 0, 0.0, lo)
    hi = np.where(n == 0, 1.0, hi)
    return lo, hi


@functools.lru_cache(maxsize=64)
def _norm_isf(q: float) -> float:
    """``scipy.stats.norm.isf(q)`` (``-ndtri(q)``, as scipy computes it), remembered per ``q`` (a report asks for
    the same level hundreds of times)."""
    return float(-_sc().ndtri(q))


def _wilson_statsmodels(count: np.ndarray, nobs: np.ndarray, alpha: float,
                        remember: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``proportion_confint(count, nobs, alpha, method="wilson")`` of statsmodels 0.14, operation for operation
    (``tests/test_stream.py`` checks the bits against statsmodels)."""
    q_ = count / nobs
    alpha = alpha / 2.0
    crit = _norm_isf(alpha) if remember else float(-_sc().ndtri(alpha))
    crit2 = crit**2
    denom = 1 + crit2 / nobs
    center = (q_ + crit2 / (2 * nobs)) / denom
    dist = crit * np.sqrt(q_ * (1.0 - q_) / nobs + crit2 / (4.0 * nobs**2))
    dist /= denom
    return np.clip(center - dist, 0, 1), np.clip(center + dist, 0, 1)


def wilson(k: int, n: int, conf: float = 0.95) -> tuple[float, float]:
    """Wilson score interval (lo, hi) for a binomial rate k/n; n == 0 gives (0.0, 1.0)."""
    lo, hi = wilson_arrays(k, n, conf)
    return float(lo), float(hi)


def wilson_coverage(p: float, n: int, conf: float = 0.95) -> float:
    """Exact coverage of the Wilson interval: P(lo(K) <= p <= hi(K)) for K ~ Binomial(n, p).

    A sum over the n + 1 outcomes (no simulation); used for the coverage table in docs/statistics.md.
    """
    p, n = _check_prob(p), int(n)
    k = np.arange(n + 1)
    lo, hi = wilson_arrays(k, np.full(k.shape, n), conf)
    pmf = _sps().binom.pmf(k, n, p)
    return float(pmf[(lo <= p) & (p <= hi)].sum())


def ci_width(k: int, n: int, conf: float = 0.95) -> float:
    """Full width hi - lo of the Wilson interval for k/n (1.0 when n == 0)."""
    lo, hi = wilson_arrays(k, n, conf)
    return float(hi - lo)


def _wilson_width_at(p: float, n: float, z: float) -> float:
    """Wilson full width with observed rate exactly p after n games (k = p*n need not be whole)."""
    z2 = z * z
    return 2.0 * z / (n + z2) * math.sqrt(n * p * (1.0 - p) + 0.25 * z2)


def needed_games(p: float, width: float, conf: float = 0.95) -> int:
    """Smallest n whose Wilson interval at observed rate p has full width <= ``width``.

    The width is largest at p = 0.5, so ``needed_games(0.5, width)`` is the worst case.
    """
    p = _check_prob(p)
    width = float(width)
    if not 0.0 < width < 1.0:
        raise ValueError(f"width must be strictly between 0 and 1, got {width}")
    z = z_value(conf)
    z2 = z * z
    a = p * (1.0 - p)
    # Solve width(n) = w: with m = n + z², w²m² - 4z²a·m + z⁴(4a - 1) = 0 (width decreases in n).
    m = z2 * (2.0 * a + math.sqrt(4.0 * a * a + width * width * (1.0 - 4.0 * a))) / (width * width)
    n = max(1, math.ceil(m - z2))
    while n > 1 and _wilson_width_at(p, n - 1, z) <= width:
        n -= 1
    while _wilson_width_at(p, n, z) > width:
        n += 1
    return n


def _binom_pmf(x: np.ndarray, n: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``scipy.stats.binom.pmf(x, n, q)`` for whole ``0 <= x <= n`` and 0 < q < 1: scipy's own kernel
    (``scipy.special._ufuncs._binom_pmf``, clipped to [0, 1] as ``rv_discrete.pmf`` does), bit for bit
    (``tests/test_stats.py``); a scipy without it goes through ``scipy.stats``."""
    pmf = _binom_kernel("_binom_pmf")
    if pmf is None:  # pragma: no cover - another scipy
        return np.asarray(_sps().binom.pmf(x, n, q), dtype=float)
    return np.clip(pmf(np.asarray(x, dtype=float), n, q), 0.0, 1.0)


def binomial_two_sided_p_array(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> np.ndarray:
    """Exact two-sided binomial test p-values, element by element: ``scipy.stats.binomtest(k, n, p).pvalue``,
    bit for bit (``tests/test_stats.py`` compares them over a grid), computed for a whole array at once.

    scipy's algorithm, step for step: the probability ``d`` of ``k``; a binary search on the other side of the mode
    for the last outcome no more likely than ``d * (1 + 1e-7)``; the p-value is the two tails' sum, capped at 1.
    ``binomtest`` runs that search in Python through ``binom.pmf``'s argument checks (about 4 ms a test: the odds
    tables' thousands of comparisons took seconds); here every test's search moves in step, one vectorised
    ``pmf`` call a halving. ``p`` of 0 or 1: 1 if ``k`` is the only possible outcome, else 0; ``n == 0``: 1.
    """
    k, n, p = np.broadcast_arrays(np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64),
                                  np.asarray(p, dtype=float))
    k, n, p = k.ravel(), n.ravel(), p.ravel()
    if np.any(n < 0) or np.any(k < 0) or np.any(k > n):
        raise ValueError("need 0 <= k <= n")
    if np.any(~((p >= 0.0) & (p <= 1.0))):
        raise ValueError("p must be in [0, 1]")
    out = np.ones(k.shape, dtype=float)
    edge = (p == 0.0) | (p == 1.0)
    out[edge] = np.where(np.where(p[edge] == 0.0, k[edge] == 0, k[edge] == n[edge]), 1.0, 0.0)
    live = ~edge & (n > 0) & (k != p * n)
    if not live.any():
        return out
    k, n, p = k[live].astype(float), n[live].astype(float), p[live]
    d = _binom_pmf(k, n, p)
    rerr = 1 + 1e-7
    low = k < p * n  # k below the mode's side: search above it for -pmf; else below it for pmf
    sign = np.where(low, -1.0, 1.0)
    target = sign * d * rerr
    lo = np.where(low, np.ceil(p * n), 0.0)
    hi = np.where(low, n, np.floor(p * n))
    found = np.full(k.shape, np.nan)
    going = lo < hi
    while going.any():
        mid = lo + (hi - lo) // 2
        midval = sign * _binom_pmf(mid, n, p)
        below, above = going & (midval < target), going & (midval > target)
        hit = going & ~below & ~above
        found[hit] = mid[hit]
        lo = np.where(below, mid + 1, lo)
        hi = np.where(above, mid - 1, hi)
        going = going & ~hit & (lo < hi)
    ix = np.where(np.isnan(found), np.where(sign * _binom_pmf(lo, n, p) <= target, lo, lo - 1), found)
    y_low = n - ix + (d * rerr == _binom_pmf(ix, n, p))
    j_cdf = np.where(low, k, ix)  # binom.cdf(k) (low) or binom.cdf(y - 1) with y = ix + 1
    j_sf = np.where(low, n - y_low, k - 1)  # binom.sf(n - y) (low) or binom.sf(k - 1)
    n_int = n.astype(np.int64)
    cdf, _ = _binom_cdf_sf(j_cdf.astype(np.int64), n_int, p)
    _, sf = _binom_cdf_sf(j_sf.astype(np.int64) + 1, n_int, p)  # (its second is sf(j - 1))
    out[live] = np.minimum(1.0, cdf + sf)
    return out


def binomial_two_sided_p(k: int, n: int, p: float = 0.5) -> float:
    """Exact two-sided binomial test p-value of k successes in n trials against rate p.

    ``scipy.stats.binomtest(k, n, p).pvalue``: the sum of the probabilities of all outcomes no
    more likely than k (R's ``binom.test``); for p = 0.5 this is twice the smaller tail.
    (``binomial_two_sided_p_array`` of one test.)
    """
    k, n, p = int(k), int(n), _check_prob(p)
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    return float(binomial_two_sided_p_array(k, n, p)[0])


def mcnemar_p(a_only: ArrayLike, b_only: ArrayLike) -> np.ndarray | float:
    """Exact McNemar p-value(s): two-sided binomial test of ``b_only`` out of ``a_only + b_only`` at 1/2.

    Vectorised (``scipy.stats.binom.cdf`` through ``_binom_cdf_sf``, the same bits without importing
    ``scipy.stats``: at 1/2 the two-sided exact test is twice the smaller tail, capped at 1); 1.0 where no game
    flipped. Same as ``statsmodels.stats.contingency_tables.mcnemar(table, exact=True)``.
    """
    a = np.asarray(a_only, dtype=np.int64)
    b = np.asarray(b_only, dtype=np.int64)
    m = a + b
    p = np.minimum(1.0, 2.0 * _binom_cdf_sf(np.minimum(a, b), np.maximum(m, 1), 0.5)[0])
    p = np.where(m == 0, 1.0, p)
    return float(p) if p.ndim == 0 else p


# --------------------------------------------------------------------------- numeric outcomes


def mean_ci(x: ArrayLike, conf: float = 0.95) -> tuple[float, float, float]:
    """Mean and its Student t interval (mean, lo, hi); bounds are nan when n < 2.

    Constant data give a zero-width interval (lo == hi == mean).
    """
    conf = _check_conf(conf)
    x = np.asarray(x, dtype=float).ravel()
    n = x.size
    if n == 0:
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    if n < 2:
        return m, math.nan, math.nan
    sd = float(x.std(ddof=1))
    half = t_value(conf, n - 1) * sd / math.sqrt(n)
    return m, m - half, m + half


def ratio_ci(a: ArrayLike, b: ArrayLike, conf: float = 0.95) -> tuple[float, float, float]:
    """A ratio of sums ``R = sum(a) / sum(b)`` over independent units (games: unit i gives ``a[i]`` and ``b[i]``,
    e.g. a game's damage and its fights) and its interval by the delta method (the linearised ratio estimator):
    ``R ± t_{n-1} * se`` with ``se = sqrt(sum((a_i - R b_i)^2) / ((n - 1) n)) / mean(b)`` (W. G. Cochran, *Sampling
    Techniques*, 3rd ed. 1977, §6.3-6.4, without the finite-population correction). Returns (R, lo, hi); R is nan
    when ``sum(b)`` is 0, the bounds are nan when n < 2 (as ``mean_ci``). Whole-number data are summed exactly
    (:func:`ratio_ci_sums`)."""
    x, y = np.asarray(a).ravel(), np.asarray(b).ravel()
    if x.shape != y.shape:
        raise ValueError(f"a and b must have the same length, got {x.size} and {y.size}")
    if x.size and np.issubdtype(x.dtype, np.integer) and np.issubdtype(y.dtype, np.integer):
        xi, yi = [int(v) for v in x], [int(v) for v in y]
        return ratio_ci_sums(len(xi), sum(xi), sum(yi), sum(v * v for v in xi), sum(u * v for u, v in zip(xi, yi)),
                             sum(v * v for v in yi), conf)
    x, y = x.astype(float), y.astype(float)
    return ratio_ci_sums(x.size, float(x.sum()), float(y.sum()), float(x @ x), float(x @ y), float(y @ y), conf)


def ratio_ci_sums(n: int, sa: float, sb: float, saa: float, sab: float, sbb: float,
                  conf: float = 0.95) -> tuple[float, float, float]:
    """:func:`ratio_ci` from the sums over the ``n`` units: ``sa = sum(a)``, ``sb = sum(b)``, ``saa = sum(a^2)``,
    ``sab = sum(a b)``, ``sbb = sum(b^2)`` (what a run streamed chunk by chunk keeps: integers give the same interval
    whatever the chunks). With ``R = sa / sb`` the residuals' sum of squares is ``saa - 2 R sab + R^2 sbb``, taken
    in exact fractions when every sum is an integer."""
    conf = _check_conf(conf)
    n = int(n)
    if n == 0 or sb == 0:
        return math.nan, math.nan, math.nan
    exact = all(isinstance(v, (int, np.integer)) for v in (sa, sb, saa, sab, sbb))
    r = Fraction(int(sa), int(sb)) if exact else sa / sb
    if n < 2:
        return float(r), math.nan, math.nan
    if exact:
        sa, sb, saa, sab, sbb = (int(v) for v in (sa, sb, saa, sab, sbb))
        # var(R) = sum(d^2) / ((n - 1) n) / (sb / n)^2, sum(d^2) = (sb^2 saa - 2 sa sb sab + sa^2 sbb) / sb^2
        var = float(Fraction((sb * sb * saa - 2 * sa * sb * sab + sa * sa * sbb) * n, (n - 1) * sb ** 4))
    else:
        var = max(saa - 2 * r * sab + r * r * sbb, 0.0) * n / ((n - 1) * sb * sb)
    half = t_value(conf, n - 1) * math.sqrt(var)
    rf = float(r)
    return rf, rf - half, rf + half


def _order_stat_ranks(n: int, q: float, conf: float, exact: bool | None = None) -> tuple[int, int]:
    """1-based ranks (l, u) of the order statistics bounding the q-quantile with coverage >= conf.

    With B ~ Binomial(n, q) the number of observations below the true quantile,
    P(x_(l) <= ξ_q <= x_(u)) >= P(l <= B <= u-1); l is the largest rank with P(B <= l-1) <= α/2 and
    u the smallest with P(B >= u) <= α/2. l == 0 / u == n+1 mean "no finite bound at this n".
    Exact (``scipy.stats.binom``) unless ``exact=False`` (continuity-corrected normal ranks).
    """
    alpha = 1.0 - conf
    if exact is None:
        exact = True
    if exact and n > RANK_WINDOW_FROM:
        return _order_stat_ranks_window(n, q, alpha)
    if exact:
        j = np.arange(n + 1)
        cdf, sf = _binom_cdf_sf(j, n, q)  # P(B <= j), P(B >= j)
        l = int(np.count_nonzero(cdf <= alpha / 2.0))
        above = np.nonzero(sf[1:] <= alpha / 2.0)[0]  # candidates u = 1..n
        u = int(above[0]) + 1 if above.size else n + 1
        return l, u
    z = z_value(conf)
    mean, sd = n * q, math.sqrt(n * q * (1.0 - q))
    l = math.floor(mean + 0.5 - z * sd)
    u = math.ceil(mean + 0.5 + z * sd)
    return max(l, 0), min(u, n + 1)


#: From this many observations the exact ranks are found by bisection in a window of the binomial around ``n q``
#: (``WINDOW_SD`` standard deviations each side) instead of evaluating all ``n + 1`` values: the same ranks (the cdf
#: is monotone and is at most 1e-40 below the window and 1 - 1e-40 above it), in a few dozen evaluations whatever
#: ``n`` (a run of 2,000,000 games: five quantiles in a few milliseconds, where the window's 40,000 values took
#: about 50 ms each).
RANK_WINDOW_FROM = 100_000
WINDOW_SD = 14.0


def _first(pred: Callable[[int], bool], lo: int, hi: int) -> int:
    """The smallest ``j`` in ``lo .. hi`` with ``pred(j)`` (``pred`` false then true as ``j`` grows); ``hi + 1`` if
    none."""
    while lo <= hi:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid - 1
        else:
            lo = mid + 1
    return lo


def _order_stat_ranks_window(n: int, q: float, alpha: float) -> tuple[int, int]:
    """``_order_stat_ranks`` (exact) found by bisection on ``j`` in a window around ``n q``: every ``j`` below the
    window has ``P(B <= j) <= alpha / 2`` (counted into l) and u lies inside it; a window that does not reach those
    tails (never at the usual levels) falls back to the full range. ``l`` is the count of ``j`` with
    ``P(B <= j) <= alpha / 2`` (a prefix: the cdf grows with ``j``) and ``u`` the first ``j >= 1`` with
    ``P(B >= j) <= alpha / 2`` (the sf falls with ``j``): the values the full arrays give, read at fewer points."""

    def cdf(j: int) -> float:
        return float(_binom_cdf_sf(np.array([j]), n, q)[0][0])

    def sf(j: int) -> float:
        return float(_binom_cdf_sf(np.array([j]), n, q)[1][0])

    sd = math.sqrt(n * q * (1.0 - q))
    a = max(0, int(math.floor(n * q - WINDOW_SD * sd)) - 1)
    b = min(n, int(math.ceil(n * q + WINDOW_SD * sd)) + 1)
    half = alpha / 2.0
    if (a > 0 and not cdf(a) <= half) or (b < n and not sf(b) <= half):  # a window too narrow: the full range
        a, b = 0, n
    l = _first(lambda j: not cdf(j) <= half, a, b)  # every j < a has cdf <= cdf(a) <= alpha/2
    u = _first(lambda j: sf(j) <= half, max(a, 1), b)
    return l, (u if u <= b else n + 1)  # sf is decreasing: none in the window, none at all


def quantile_ci(x: ArrayLike, q: float, conf: float = 0.95) -> tuple[float, float, float]:
    """Sample q-quantile and a distribution-free interval for it from order statistics.

    Returns (value, lo, hi): value is ``np.quantile(x, q)`` (linear interpolation); lo and hi are
    order statistics x_(l), x_(u) whose coverage is at least ``conf`` for any continuous
    distribution (exact binomial ranks from ``scipy.stats.binom``). A side that the sample is too
    small to bound is returned as -inf / +inf.
    """
    conf = _check_conf(conf)
    q = float(q)
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must be strictly between 0 and 1, got {q}")
    xs = np.sort(np.asarray(x, dtype=float).ravel())
    n = xs.size
    if n == 0:
        return math.nan, math.nan, math.nan
    l, u = _order_stat_ranks(n, q, conf)
    lo = float(xs[l - 1]) if l >= 1 else -math.inf
    hi = float(xs[u - 1]) if u <= n else math.inf
    return float(np.quantile(xs, q)), lo, hi


# --------------------------------------------------------------------------- paired comparisons


def _as_binary(x: ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(x).ravel()
    if arr.dtype != bool:
        if arr.size and not np.all((arr == 0) | (arr == 1)):
            raise ValueError(f"{name} must contain only 0/1 (or booleans)")
        arr = arr == 1
    return arr


def paired_rate_diff(a: ArrayLike, b: ArrayLike, conf: float = 0.95) -> dict[str, Any]:
    """Compare two 0/1 outcome arrays from the same game streams (game i of ``a`` and ``b`` share dice).

    ``diff = mean(b) - mean(a)`` with Newcombe's (1998) method 10 interval for paired proportions
    (Wilson limits of each rate combined with the continuity-adjusted phi correlation; hand-written:
    neither scipy nor statsmodels has it. R. G. Newcombe, Statistics in Medicine 17:2635-2650), the
    exact McNemar p-value (:func:`mcnemar_p`),
    and the positions of the games that flipped. ``significant`` is ``p_value < 1 - conf`` AND the
    interval excludes 0 (both must agree). ``lo_a``/``hi_a`` and ``lo_b``/``hi_b``: each rate's own Wilson interval.
    """
    conf = _check_conf(conf)
    wa, wb = _as_binary(a, "a"), _as_binary(b, "b")
    if wa.shape != wb.shape:
        raise ValueError(f"a and b must have the same length, got {wa.size} and {wb.size}")
    w2l = np.flatnonzero(wa & ~wb).astype(np.int64)
    l2w = np.flatnonzero(~wa & wb).astype(np.int64)
    both = int(np.count_nonzero(wa & wb))
    return paired_rate_counts(int(wa.size), both, int(w2l.size), int(l2w.size), conf, w2l, l2w)


def paired_rate_counts(n: int, both: int, a_only: int, b_only: int, conf: float = 0.95,
                       flipped_win_to_loss: ArrayLike | None = None,
                       flipped_loss_to_win: ArrayLike | None = None) -> dict[str, Any]:
    """:func:`paired_rate_diff` from the counts of ``n`` paired games (won under both, under A only, under B only)
    and the positions of the flipped games that were kept (all of them, or the first ones: :class:`PairedRate`)."""
    conf = _check_conf(conf)
    w2l = np.asarray([] if flipped_win_to_loss is None else flipped_win_to_loss, dtype=np.int64)
    l2w = np.asarray([] if flipped_loss_to_win is None else flipped_loss_to_win, dtype=np.int64)
    neither = n - both - a_only - b_only
    out: dict[str, Any] = {
        "n": n,
        "both": both,
        "a_only": a_only,
        "b_only": b_only,
        "neither": neither,
        "flipped_win_to_loss": w2l,
        "flipped_loss_to_win": l2w,
        "conf": conf,
    }
    if n == 0:
        out.update(
            rate_a=math.nan, rate_b=math.nan, lo_a=0.0, hi_a=1.0, lo_b=0.0, hi_b=1.0, diff=math.nan, lo=-1.0, hi=1.0,
            phi=0.0, p_value=1.0, significant=False
        )
        return out
    ka, kb = both + a_only, both + b_only
    pa, pb = ka / n, kb / n
    diff = pb - pa
    lo, hi, phi, (la, ua), (lb, ub) = _newcombe(n, both, a_only, b_only, 1.0 - conf)
    p_value = float(mcnemar_p(a_only, b_only))
    out.update(
        rate_a=pa,
        rate_b=pb,
        lo_a=la,
        hi_a=ua,
        lo_b=lb,
        hi_b=ub,
        diff=diff,
        lo=lo,
        hi=hi,
        phi=phi,
        p_value=p_value,
        significant=bool(p_value < 1.0 - conf and (lo > 0.0 or hi < 0.0)),
    )
    return out


def _newcombe(n: int, both: int, a_only: int, b_only: int, alpha: float, remember: bool = True
              ) -> tuple[float, float, float, tuple[float, float], tuple[float, float]]:
    """Newcombe's method 10 interval of ``rate_b - rate_a`` at level ``1 - alpha`` (n > 0): (lo, hi, phi,
    Wilson interval of a, Wilson interval of b). ``alpha`` may be as small as a float allows (no conf check:
    :func:`paired_beyond_p` inverts the interval)."""
    ka, kb = both + a_only, both + b_only
    neither = n - both - a_only - b_only
    pa, pb = ka / n, kb / n
    diff = pb - pa
    (la, lb), (ua, ub) = (tuple(float(x) for x in v) for v in _wilson_alpha(np.array([ka, kb], dtype=float),
                                                                            float(n), alpha, remember))
    # Newcombe's phi: 0 when a margin is empty; A = both*neither - a_only*b_only; if A > 0 it is
    # shrunk by n/2 (floored at 0) before dividing by sqrt of the product of the margins.
    margins = ka * (n - ka) * kb * (n - kb)
    cross = both * neither - a_only * b_only
    if margins == 0:
        phi = 0.0
    elif cross > 0:
        phi = max(cross - 0.5 * n, 0.0) / math.sqrt(margins)
    else:
        phi = cross / math.sqrt(margins)
    dl = math.sqrt(max((pb - lb) ** 2 - 2.0 * phi * (pb - lb) * (ua - pa) + (ua - pa) ** 2, 0.0))
    du = math.sqrt(max((ub - pb) ** 2 - 2.0 * phi * (ub - pb) * (pa - la) + (pa - la) ** 2, 0.0))
    return max(-1.0, diff - dl), min(1.0, diff + du), phi, (la, ua), (lb, ub)


def paired_beyond_p(d: dict[str, Any], tolerance: float) -> float:
    """p-value of "the difference is within the tolerance" (H0: ``|diff| <= tolerance``) for a result of
    :func:`paired_rate_diff` / :func:`paired_rate_counts` (a rate) or :func:`paired_mean_diff` /
    :func:`paired_mean_sums` (a mean): the smallest ``alpha`` at which the two-sided ``1 - alpha`` interval
    lies wholly beyond the tolerance (above ``+tolerance`` or below ``-tolerance``; each side is a one-sided
    test at ``alpha / 2``). So ``p < a`` exactly when the interval at level ``1 - a`` excludes
    ``[-tolerance, tolerance]``, and a family of them can be Holm-adjusted like any p-values.

    * tolerance 0: the result's own ``p_value`` (the test of no difference: exact McNemar, paired t);
    * a point estimate within the tolerance: 1;
    * a mean: ``2 P(T > (|diff| - tolerance) / se)`` with n - 1 degrees of freedom (the t interval, inverted);
    * a rate: Newcombe's interval inverted by bisection on ``log(alpha)`` (floored at 1e-300).
    """
    tol = float(tolerance)
    if not (math.isfinite(tol) and tol >= 0.0):
        raise ValueError(f"tolerance must be a finite number >= 0, got {tolerance}")
    if tol == 0.0:
        return float(d["p_value"])
    diff, n = float(d["diff"]), int(d["n"])
    if not math.isfinite(diff):
        return math.nan
    if abs(diff) <= tol:
        return 1.0
    if "both" not in d:  # a mean
        sd = float(d.get("sd_diff", math.nan))
        if n < 2 or not math.isfinite(sd):
            return math.nan
        if sd == 0.0:  # every game moved by the same amount, beyond the tolerance
            return 0.0
        return float(min(1.0, 2.0 * t_sf((abs(diff) - tol) / (sd / math.sqrt(n)), n - 1)))
    counts = (n, int(d["both"]), int(d["a_only"]), int(d["b_only"]))

    def beyond(alpha: float) -> bool:
        lo, hi = _newcombe(*counts, alpha, remember=False)[:2]
        return lo > tol or hi < -tol

    lo_e, hi_e = -300.0, 0.0  # log10(alpha): beyond at 10**hi_e (the interval at level 0 is the point)
    if beyond(10.0**lo_e):
        return 10.0**lo_e
    for _ in range(60):
        mid = 0.5 * (lo_e + hi_e)
        if beyond(10.0**mid):
            hi_e = mid
        else:
            lo_e = mid
    return float(min(1.0, 10.0**hi_e))


class PairedRate:
    """:func:`paired_rate_diff` streamed: pairs of 0/1 outcome arrays added chunk by chunk (in game order) keep
    only the counts and the positions of the first ``keep`` flipped games each way (memory does not grow with
    games). ``result`` is :func:`paired_rate_diff` of the whole arrays, with the flipped lists cut at ``keep``."""

    def __init__(self, keep: int = 1000):
        self.keep = keep
        self.n = self.both = self.a_only = self.b_only = 0
        self.w2l: list[int] = []
        self.l2w: list[int] = []

    def add(self, a: ArrayLike, b: ArrayLike) -> None:
        wa, wb = _as_binary(a, "a"), _as_binary(b, "b")
        if wa.shape != wb.shape:
            raise ValueError(f"a and b must have the same length, got {wa.size} and {wb.size}")
        w2l, l2w = np.flatnonzero(wa & ~wb), np.flatnonzero(~wa & wb)
        self.both += int(np.count_nonzero(wa & wb))
        self.a_only += int(w2l.size)
        self.b_only += int(l2w.size)
        self.w2l += (w2l[: max(self.keep - len(self.w2l), 0)] + self.n).tolist()
        self.l2w += (l2w[: max(self.keep - len(self.l2w), 0)] + self.n).tolist()
        self.n += int(wa.size)

    def result(self, conf: float = 0.95) -> dict[str, Any]:
        return paired_rate_counts(self.n, self.both, self.a_only, self.b_only, conf, self.w2l, self.l2w)


class PairedMean:
    """:func:`paired_mean_diff` streamed: pairs of numeric outcome arrays added chunk by chunk keep n and the sums
    of a, b, d = b - a and d² (exact Python integers for integer outcomes). ``result``: the same n, means and
    diff as :func:`paired_mean_diff`; sd, interval, t and p from the exact sums (the same up to the last bits)."""

    def __init__(self) -> None:
        self.n = 0
        self.sums: list[Any] = [0, 0, 0, 0]

    def add(self, a: ArrayLike, b: ArrayLike) -> None:
        xa, xb = np.asarray(a).ravel(), np.asarray(b).ravel()
        if xa.shape != xb.shape:
            raise ValueError(f"a and b must have the same length, got {xa.size} and {xb.size}")
        exact = np.issubdtype(xa.dtype, np.integer) and np.issubdtype(xb.dtype, np.integer) or \
            xa.dtype == bool and xb.dtype == bool
        if exact:
            ia, ib = xa.astype(object), xb.astype(object)  # Python integers: no overflow, exact
            d = ib - ia
            parts = [sum(ia), sum(ib), sum(d), sum(d * d)]
        else:
            fa, fb = xa.astype(float), xb.astype(float)
            d = fb - fa
            parts = [math.fsum(fa), math.fsum(fb), math.fsum(d), math.fsum(d * d)]
        self.sums = [s + int(p) if exact else s + p for s, p in zip(self.sums, parts)]
        self.n += int(xa.size)

    def result(self, conf: float = 0.95) -> dict[str, Any]:
        return paired_mean_sums(self.n, *self.sums, conf=conf)


def paired_mean_sums(n: int, sum_a: Any, sum_b: Any, sum_d: Any, sum_d2: Any, conf: float = 0.95) -> dict[str, Any]:
    """:func:`paired_mean_diff` from n and the sums of a, b, d = b - a and d²: the t interval of the mean of d
    and the two-sided t test of mean d = 0 with n - 1 degrees of freedom."""
    conf = _check_conf(conf)
    if n == 0:
        return {"n": 0, "mean_a": math.nan, "mean_b": math.nan, "diff": math.nan, "lo": math.nan, "hi": math.nan,
                "conf": conf, "sd_diff": math.nan, "t": math.nan, "p_value": math.nan, "significant": False}
    diff = sum_d / n
    out: dict[str, Any] = {"n": n, "mean_a": sum_a / n, "mean_b": sum_b / n, "diff": diff, "lo": math.nan,
                           "hi": math.nan, "conf": conf}
    if n < 2:
        out.update(sd_diff=math.nan, t=math.nan, p_value=math.nan, significant=False)
        return out
    if isinstance(sum_d, int) and isinstance(sum_d2, int):
        var = (n * sum_d2 - sum_d * sum_d) / (n * (n - 1))  # exact numerator, one rounding
    else:
        var = max((sum_d2 - sum_d * sum_d / n) / (n - 1), 0.0)
    sd = math.sqrt(var)
    half = t_value(conf, n - 1) * sd / math.sqrt(n)
    lo, hi = diff - half, diff + half
    if sd == 0.0:
        t = 0.0 if diff == 0.0 else math.copysign(math.inf, diff)
        p_value = 1.0 if diff == 0.0 else 0.0
    else:
        t = diff / (sd / math.sqrt(n))
        p_value = float(min(1.0, 2.0 * t_sf(abs(t), n - 1)))
    out.update(lo=lo, hi=hi, sd_diff=sd, t=t, p_value=p_value,
               significant=bool(p_value < 1.0 - conf and (lo > 0.0 or hi < 0.0)))
    return out


def paired_mean_diff(a: ArrayLike, b: ArrayLike, conf: float = 0.95) -> dict[str, Any]:
    """Compare numeric per-game outcomes from the same game streams: paired t on ``d = b - a``.

    The test is ``scipy.stats.ttest_rel``'s arithmetic (its p-value from ``scipy.special.stdtr``, as scipy's
    own; importing ``scipy.stats`` would cost a report 1.4-1.9 s); the interval is the matching t interval of the
    mean of d.

    Returns n, mean_a, mean_b, diff (mean of d), lo, hi (t interval), sd_diff, t, p_value
    (two-sided t test of mean d = 0) and ``significant`` (p < 1 - conf AND interval excludes 0;
    for the t test the two always agree). With n < 2 the interval and p-value are nan.
    """
    conf = _check_conf(conf)
    xa = np.asarray(a, dtype=float).ravel()
    xb = np.asarray(b, dtype=float).ravel()
    if xa.shape != xb.shape:
        raise ValueError(f"a and b must have the same length, got {xa.size} and {xb.size}")
    d = xb - xa
    n = int(d.size)
    diff, lo, hi = mean_ci(d, conf)
    out: dict[str, Any] = {
        "n": n,
        "mean_a": float(xa.mean()) if n else math.nan,
        "mean_b": float(xb.mean()) if n else math.nan,
        "diff": diff,
        "lo": lo,
        "hi": hi,
        "conf": conf,
    }
    if n < 2:
        out.update(sd_diff=math.nan, t=math.nan, p_value=math.nan, significant=False)
        return out
    sd = float(d.std(ddof=1))
    if sd == 0.0:  # every game moved by exactly the same amount
        t = 0.0 if diff == 0.0 else math.copysign(math.inf, diff)
        p_value = 1.0 if diff == 0.0 else 0.0
    else:  # scipy.stats.ttest_rel(xb, xa), step for step (bit for bit: tests/test_stats.py), without its import
        m = np.mean(d)
        var = np.mean((d - m) ** 2) * (n / (n - 1))
        t = float(m / np.sqrt(var / n))
        p_value = float(min(1.0, 2.0 * _sc().stdtr(float(n - 1), -abs(t))))
    out.update(
        sd_diff=sd,
        t=t,
        p_value=p_value,
        significant=bool(p_value < 1.0 - conf and (lo > 0.0 or hi < 0.0)),
    )
    return out


# --------------------------------------------------------------------------- many comparisons, pooled cells


def adjust_pvalues(p_values: ArrayLike, method: str = "holm") -> np.ndarray:
    """Family-wise adjusted p-values, as ``statsmodels.stats.multitest.multipletests`` gives them.

    ``method="holm"`` controls the chance of any false "differs" claim in the family (use it for
    "this cell differs from that one"); ``"fdr_bh"`` (Benjamini-Hochberg) controls the expected share
    of false claims in a list of discoveries. nan entries stay nan and are not counted. Holm's step-down
    and Benjamini-Hochberg's step-up adjustments are the few lines below, the same arithmetic as
    ``multipletests`` (its Holm branch runs ``gc.collect()`` on every call, about 0.3 s in a large
    process, and a report adjusts many families; importing it imports ``scipy.stats``, 1.4-1.9 s of every
    report on a 2 GHz core); the tests check both against ``multipletests``, bit for bit. Other methods go
    to ``multipletests``.
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if not ok.any():
        return out
    q = np.clip(p[ok], 0.0, 1.0)
    if method in ("holm", "fdr_bh"):
        order = np.argsort(q, kind="stable")
        if method == "holm":  # sorted p_(i) * (m - i), running maximum, capped at 1
            adj = np.minimum(1.0, np.maximum.accumulate(q[order] * np.arange(q.size, 0, -1)))
        else:  # sorted p_(i) / (i / m), running minimum from the largest, capped at 1
            raw = q[order] / (np.arange(1, q.size + 1) / float(q.size))
            adj = np.minimum(1.0, np.minimum.accumulate(raw[::-1])[::-1])
        res = np.empty_like(q)
        res[order] = adj
        out[ok] = res
        return out
    from statsmodels.stats.multitest import multipletests

    out[ok] = multipletests(q, alpha=0.05, method=method)[1]
    return out


def pooled_rate_ci(wins: ArrayLike, conf: float = 0.95) -> dict[str, float | int]:
    """Win rate pooled over cells that play the SAME game indices (shared dice), with a valid interval.

    ``wins`` is a (cells, games) 0/1 matrix, column g = game index g in every cell. The games are
    not independent across cells, so the pool is NOT ``sum(wins)`` Bernoulli trials. Per game index
    first: y_g = mean over cells of wins[:, g] (independent across g); the rate is mean(y). The
    interval is Wilson's at the effective number of games n_eff = G · r(1-r) / var(y) (the design
    effect of Kish; Korn & Graubard 1998), clipped to [G, cells·G]: G when the cells always agree,
    cells·G when they are independent. Returns rate, lo, hi, n_eff, games (G), cells.
    """
    w = np.asarray(wins, dtype=float)
    if w.ndim == 1:
        w = w[None, :]
    m, g = w.shape
    if g == 0:
        return {"rate": math.nan, "lo": 0.0, "hi": 1.0, "n_eff": 0.0, "games": 0, "cells": m}
    y = w.mean(axis=0)
    r = float(y.mean())
    var = float(y.var(ddof=1)) if g > 1 else 0.0
    if r <= 0.0 or r >= 1.0:
        n_eff = float(g)  # every cell lost (or won) every game: no more information than one cell
    elif var <= 0.0:
        n_eff = float(m * g)
    else:
        n_eff = float(np.clip(g * r * (1.0 - r) / var, g, m * g))
    lo, hi = wilson(r * n_eff, n_eff, conf)
    return {"rate": r, "lo": lo, "hi": hi, "n_eff": n_eff, "games": int(g), "cells": int(m)}


def pooled_rate_ci_bound(k: ArrayLike, n: ArrayLike, conf: float = 0.95) -> dict[str, float | int]:
    """Pooled rate of cells whose per-game results are not available: valid whatever the pairing.

    The rate is the mean of the cells' rates; the interval is the mean of their Wilson bounds. The
    standard error of a mean of estimates is at most the mean of their standard errors (equality when
    they are perfectly correlated), so this interval is conservative for cells that share dice.
    """
    k = np.asarray(k, dtype=float).ravel()
    n = np.asarray(n, dtype=float).ravel()
    lo, hi = wilson_arrays(k, n, conf)
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.where(n > 0, k / np.where(n > 0, n, 1.0), np.nan)
    return {"rate": float(np.nanmean(rates)) if np.isfinite(rates).any() else math.nan,
            "lo": float(lo.mean()), "hi": float(hi.mean()), "n_eff": math.nan, "games": int(n.min()),
            "cells": int(k.size)}


def pair_counts(wins: ArrayLike) -> np.ndarray:
    """``both[i, j]``: the games won by both cell i and cell j of a (cells, games) 0/1 matrix (``w @ w.T``,
    exact), counted on packed bits (``packbits``, ``bitwise_count``): no BLAS call, whose threads make a small
    product tens of times slower on a machine whose cores are busy (a test suite, a sweep beside others)."""
    w = np.asarray(wins) != 0
    m = w.shape[0]
    b = np.packbits(w, axis=1)
    pad = -b.shape[1] % 8
    if pad:
        b = np.concatenate([b, np.zeros((m, pad), dtype=np.uint8)], axis=1)
    u = np.ascontiguousarray(b).view(np.uint64)
    both = np.empty((m, m), dtype=np.int64)
    for r in range(m):
        both[r] = np.bitwise_count(u[r] & u).sum(axis=1, dtype=np.int64)
    return both


def pairwise_rate_tests(wins: ArrayLike | None = None, k: ArrayLike | None = None, n: ArrayLike | None = None,
                        conf: float = 0.95) -> dict[str, np.ndarray]:
    """Two-sided tests of "cell i and cell j have the same win rate" for every pair i < j.

    With ``wins`` (a (cells, games) 0/1 matrix on shared game indices): the exact McNemar test on the
    games that flipped between the two cells (paired; the concordant games carry no information).
    Without it (only counts ``k`` of ``n``, e.g. results saved before per-game wins were kept): a
    normal test whose standard error is the SUM of the two cells' standard errors (taken from their
    Wilson intervals), valid whatever the correlation between the cells (conservative).
    Returns ``i``, ``j`` (index arrays), ``diff`` (rate_j - rate_i), ``p`` and ``paired`` (bool).
    """
    if wins is not None:
        w = np.asarray(wins) != 0
        m = w.shape[0]
        ks = w.sum(axis=1)
        both = pair_counts(w)
        i, j = np.triu_indices(m, 1)
        a_only = ks[i] - both[i, j]
        b_only = ks[j] - both[i, j]
        p = np.asarray(mcnemar_p(np.rint(a_only), np.rint(b_only)), dtype=float).reshape(-1)
        diff = (b_only - a_only) / max(w.shape[1], 1)
        return {"i": i, "j": j, "diff": diff, "p": p, "paired": np.ones(i.size, dtype=bool)}
    if k is None or n is None:
        raise ValueError("give either wins or k and n")
    kk = np.asarray(k, dtype=float).ravel()
    nn = np.asarray(n, dtype=float).ravel()
    lo, hi = wilson_arrays(kk, nn, conf)
    se = (hi - lo) / (2.0 * z_value(conf))
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(nn > 0, kk / np.where(nn > 0, nn, 1.0), np.nan)
    i, j = np.triu_indices(kk.size, 1)
    diff = rate[j] - rate[i]
    s = se[i] + se[j]
    with np.errstate(divide="ignore", invalid="ignore"):
        zs = np.where(s > 0, np.abs(diff) / np.where(s > 0, s, 1.0), np.where(diff == 0, 0.0, np.inf))
    p = 2.0 * _sps().norm.sf(zs)
    p = np.where(np.isfinite(diff), np.minimum(p, 1.0), np.nan)
    return {"i": i, "j": j, "diff": diff, "p": p, "paired": np.zeros(i.size, dtype=bool)}


# --------------------------------------------------------------------------- sequential sampling


def min_batch(width: float, conf: float = 0.95) -> int:
    """Smallest batch (games added per look) allowed for a precision target of full width ``width``.

    Stopping when the Wilson width is small enough is optional stopping: the width grows with the
    observed rate (below 50 %), so cells that happened to win little stop earlier and the final
    rate is biased low (-17 % relative at p = 0.01 with batches of 100 and width 0.02). The bias is
    worst for the rate that stops at about the first look, and shrinks as the wins seen there grow.
    ``ceil(40 z / width)`` games per batch (3920 for width 0.02 at 95 %) give that rate at least
    about 400 wins at its first look; measured with :func:`simulate_precision_stopping`, the
    relative bias then stays below 1 % for every rate from 1 % to 50 % (docs/statistics.md).
    """
    return int(math.ceil(MIN_BATCH_FACTOR * z_value(conf) / float(width)))


@dataclass(frozen=True)
class PrecisionTarget:
    """Keep simulating a cell until its Wilson interval is at most ``width`` wide (full width).

    Games are added ``batch`` at a time (default and minimum: :func:`min_batch`, or ``max_games``
    if that is smaller); a cell stops at ``max_games`` whatever its width. Stopping depends on the
    observed rate through the width (a low rate gives a narrower interval), so it is optional
    stopping with a small downward bias; the minimum batch keeps it below 1 % relative for rates
    of 1 % and more (see :func:`min_batch`).
    """

    width: float
    conf: float = 0.95
    max_games: int = 1_000_000
    batch: int | None = None

    def __post_init__(self) -> None:
        if self.batch is None:
            try:
                b = min(min_batch(self.width, self.conf), int(self.max_games))
            except (ValueError, ZeroDivisionError, OverflowError):
                b = 1  # validate() reports the bad width/conf
            object.__setattr__(self, "batch", max(1, b))

    @property
    def min_batch(self) -> int:
        """The smallest allowed batch for this target (never more than ``max_games``)."""
        return min(min_batch(self.width, self.conf), int(self.max_games))

    def validate(self, where: str | None = None) -> PrecisionTarget:
        """Raise InputError if the target is malformed, unreachable or its batch too small; return self."""
        if not 0.0 < self.width < 1.0:
            raise InputError(f"precision width must be strictly between 0 and 1, got {self.width}", where)
        if not 0.0 < self.conf < 1.0:
            raise InputError(f"confidence level must be strictly between 0 and 1, got {self.conf}", where)
        if int(self.max_games) != self.max_games or self.max_games < 1:
            raise InputError(f"max_games must be a positive integer, got {self.max_games}", where)
        if int(self.batch) != self.batch or self.batch < 1:
            raise InputError(f"batch must be a positive integer, got {self.batch}", where)
        best = ci_width(0, int(self.max_games), self.conf)  # narrowest possible: a rate of exactly 0
        if best > self.width:
            need = needed_games(0.0, self.width, self.conf)
            raise InputError(
                f"precision width {self.width:g} cannot be reached within max_games={self.max_games}: "
                f"even a rate of 0 gives width {best:.4g} there; it needs at least {need} games "
                f"({needed_games(0.5, self.width, self.conf)} for a rate near 0.5)",
                where,
            )
        if self.batch < self.min_batch:
            raise InputError(
                f"batch {self.batch} is too small for precision {self.width:g} at {100 * self.conf:g} %: "
                f"stopping on the interval width after small batches biases low rates downwards; "
                f"use batch >= {self.min_batch} (keeps the bias below 1 % relative for rates >= 1 %)",
                where,
            )
        return self

    def done(self, k: int, n: int) -> bool:
        """True when the interval for k/n is narrow enough or n has reached ``max_games``."""
        return bool(n >= self.max_games or (n > 0 and ci_width(k, n, self.conf) <= self.width))

    def next_batch(self, n: int) -> int:
        """Games to add to a cell that has n games so far (0 once ``max_games`` is reached)."""
        return int(max(0, min(int(self.batch), self.max_games - n)))


def simulate_precision_stopping(p: float, target: PrecisionTarget, reps: int = 20_000,
                                seed: int = 0) -> dict[str, float]:
    """Run the stopping rule of ``target`` on Bernoulli(p) draws ``reps`` times (numpy only).

    Returns the mean estimate, its relative bias ``mean/p - 1`` with a standard error, the coverage
    of the final Wilson interval and the mean number of games. Used to measure the optional-stopping
    bias and to test coverage at rare rates.
    """
    rng = np.random.default_rng(seed)
    k = np.zeros(reps, dtype=np.int64)
    n = np.zeros(reps, dtype=np.int64)
    active = np.ones(reps, dtype=bool)
    while active.any():
        idx = np.flatnonzero(active)
        step = np.minimum(int(target.batch), target.max_games - n[idx])
        k[idx] += rng.binomial(step, p)
        n[idx] += step
        active[idx] = cells_to_continue(k[idx], n[idx], target)
    est = k / n
    lo, hi = wilson_arrays(k, n, target.conf)
    return {"p": p, "mean": float(est.mean()), "rel_bias": float(est.mean() / p - 1.0) if p > 0 else math.nan,
            "rel_bias_se": float(est.std(ddof=1) / p / math.sqrt(reps)) if p > 0 else math.nan,
            "coverage": float(np.mean((lo <= p) & (p <= hi))), "mean_games": float(n.mean())}


def cells_to_continue(ks: ArrayLike, ns: ArrayLike, target: PrecisionTarget) -> np.ndarray:
    """Boolean mask of cells that still need games (interval too wide and below ``max_games``)."""
    ns_arr = np.asarray(ns)
    lo, hi = wilson_arrays(ks, ns_arr, target.conf)
    return np.asarray(((hi - lo) > target.width) & (ns_arr < target.max_games), dtype=bool)


# --------------------------------------------------------------------------- summaries


def summarize_rate(k: int, n: int, conf: float = 0.95) -> dict[str, float | int]:
    """dict(rate, lo, hi, n, conf) with the Wilson interval at ``conf``; rate is nan when n == 0."""
    lo, hi = wilson(k, n, conf)
    return {"rate": k / n if n else math.nan, "lo": lo, "hi": hi, "n": int(n), "conf": float(conf)}


def summarize_numeric(x: ArrayLike, conf: float = 0.95) -> dict[str, float | int]:
    """Mean (t interval), median (order-statistic interval), sd, min, max and n of a sample."""
    arr = np.asarray(x, dtype=float).ravel()
    n = int(arr.size)
    mean, mean_lo, mean_hi = mean_ci(arr, conf)
    if n:
        median, median_lo, median_hi = quantile_ci(arr, 0.5, conf)
        lo_x, hi_x = float(arr.min()), float(arr.max())
    else:
        median = median_lo = median_hi = lo_x = hi_x = math.nan
    return {
        "mean": mean,
        "mean_lo": mean_lo,
        "mean_hi": mean_hi,
        "median": median,
        "median_lo": median_lo,
        "median_hi": median_hi,
        "sd": float(arr.std(ddof=1)) if n >= 2 else math.nan,
        "min": lo_x,
        "max": hi_x,
        "n": n,
    }


# --------------------------------------------------------------------------- testing a simulator


def summarize_counts(values: ArrayLike, counts: ArrayLike, conf: float = 0.95) -> dict[str, float | int]:
    """``summarize_numeric`` of the sample in which ``values[i]`` occurs ``counts[i]`` times (``values`` sorted,
    distinct): the summary of a column from its histogram, in memory that does not grow with the number of games
    (a run's summary, streamed chunk by chunk or from the whole table: the same figures). Integer values: mean and
    sd from exact integer sums (the sd correctly rounded); the median and its order-statistic interval as
    ``quantile_ci`` (linear interpolation, exact binomial ranks)."""
    conf = _check_conf(conf)
    v = np.asarray(values)
    c = np.asarray(counts, dtype=np.int64)
    keep = c > 0
    v, c = v[keep], c[keep]
    n = int(c.sum())
    nan = math.nan
    if n == 0:
        return {"mean": nan, "mean_lo": nan, "mean_hi": nan, "median": nan, "median_lo": nan, "median_hi": nan,
                "sd": nan, "min": nan, "max": nan, "n": 0}
    if np.issubdtype(v.dtype, np.integer):
        vi = [int(x) for x in v]
        ci = [int(x) for x in c]
        s1 = sum(a * k for a, k in zip(vi, ci))
        s2 = sum(a * a * k for a, k in zip(vi, ci))
        mean = s1 / n  # correctly rounded (Python's int / int)
        var = Fraction(n * s2 - s1 * s1, n * (n - 1)) if n >= 2 else None
        sd = math.sqrt(float(var)) if var is not None else nan
    else:
        vf = v.astype(float)
        mean = float(np.dot(vf, c) / n)
        sd = math.sqrt(float(np.dot((vf - mean) ** 2, c)) / (n - 1)) if n >= 2 else nan
    if n >= 2:
        half = t_value(conf, n - 1) * sd / math.sqrt(n)
        mean_lo, mean_hi = mean - half, mean + half
    else:
        mean_lo = mean_hi = nan
    cum = np.cumsum(c)

    def order(r: int) -> float:  # the r-th smallest (1-based)
        return float(v[int(np.searchsorted(cum, r))])

    h = 0.5 * (n - 1)
    f = int(math.floor(h))
    a = order(f + 1)
    median = float(np.quantile(np.array([a, order(min(f + 2, n))]), h - f))
    lr, ur = _order_stat_ranks(n, 0.5, conf)
    return {
        "mean": mean,
        "mean_lo": mean_lo,
        "mean_hi": mean_hi,
        "median": median,
        "median_lo": order(lr) if lr >= 1 else -math.inf,
        "median_hi": order(ur) if ur <= n else math.inf,
        "sd": sd,
        "min": float(v[0]),
        "max": float(v[-1]),
        "n": n,
    }


def binom_z(k: int, n: int, p: float) -> float:
    """Standardized difference (k - n p) / sqrt(n p (1-p)); ±inf if p is 0 or 1 and k disagrees."""
    p = _check_prob(p)
    diff = k - n * p
    var = n * p * (1.0 - p)
    if var == 0.0:
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)
    return diff / math.sqrt(var)


def check_frequency(k: int, n: int, p: float, alpha: float = 1e-6) -> bool:
    """True when k successes in n trials are consistent with the exact probability p.

    Two-sided exact binomial test at level ``alpha`` (``scipy.stats.binomtest``, any n).
    """
    k, n, p = int(k), int(n), _check_prob(p)
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    return binomial_two_sided_p(k, n, p) >= alpha
