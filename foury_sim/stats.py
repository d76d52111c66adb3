"""Statistics for simulated games: intervals, paired comparisons, precision targets.

Pure numpy + ``math`` (no scipy). Conventions:

* ``conf`` is always a two-sided confidence level in (0, 1), e.g. 0.95.
* Quantile functions take a probability: ``norm_ppf(0.975) == z_value(0.95) == 1.95996...``;
  ``t_ppf(0.975, 5) == t_value(0.95, 5) == 2.5706...``.
* Paired comparisons use ``diff = b - a``: positive means variant ``b`` does better.

Formulas and references are in ``docs/statistics.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
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
    "ci_width",
    "needed_games",
    "mean_ci",
    "quantile_ci",
    "binomial_two_sided_p",
    "paired_rate_diff",
    "paired_mean_diff",
    "PrecisionTarget",
    "cells_to_continue",
    "summarize_rate",
    "summarize_numeric",
    "binom_z",
    "check_frequency",
]

_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)
_EXACT_QUANTILE_MAX_N = 1000  # quantile_ci: exact binomial ranks up to this n, normal approximation above
_EXACT_FREQ_MAX_N = 100_000  # check_frequency: exact binomial test up to this n (or when skewed)


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


# --------------------------------------------------------------------------- normal distribution

# Acklam's rational approximation of the inverse normal CDF (relative error < 1.15e-9 before refinement).
_A = (
    -3.969683028665376e01,
    2.209460984245205e02,
    -2.759285104469687e02,
    1.383577518672690e02,
    -3.066479806614716e01,
    2.506628277459239e00,
)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01, -1.328068155288572e01)
_C = (
    -7.784894002430293e-03,
    -3.223964580411365e-01,
    -2.400758277161838e00,
    -2.549732539343734e00,
    4.374664141464968e00,
    2.938163982698783e00,
)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_P_LOW = 0.02425


def norm_cdf(x: float) -> float:
    """Standard normal CDF Φ(x), accurate in both tails (via ``erfc``)."""
    return 0.5 * math.erfc(-x / _SQRT2)


def _norm_ppf_lower(p: float) -> float:
    """Φ⁻¹(p) for 0 < p <= 0.5: Acklam's approximation plus one Halley step on ``erfc``."""
    if p < _P_LOW:
        q = math.sqrt(-2.0 * math.log(p))
        x = (((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / (
            (((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0
        )
    else:
        q = p - 0.5
        r = q * q
        x = (
            (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5])
            * q
            / (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)
        )
    e = norm_cdf(x) - p
    u = e * _SQRT2PI * math.exp(0.5 * x * x)
    return x - u / (1.0 + 0.5 * x * u)


def norm_ppf(p: float) -> float:
    """Standard normal quantile Φ⁻¹(p) for 0 < p < 1 (about 1e-15 relative error)."""
    p = float(p)
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, got {p}")
    return _norm_ppf_lower(p) if p <= 0.5 else -_norm_ppf_lower(1.0 - p)


def z_value(conf: float = 0.95) -> float:
    """Two-sided normal critical value: ``Φ⁻¹(1 - (1-conf)/2)`` (1.959964 for 0.95)."""
    return -_norm_ppf_lower(0.5 * (1.0 - _check_conf(conf)))


# --------------------------------------------------------------------------- Student t distribution


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float, y: float) -> float:
    """Regularized incomplete beta I_x(a, b), with ``y = 1 - x`` passed separately for accuracy."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, y) / b


def _t_upper(t: float, df: float) -> float:
    """P(T > t) for t >= 0: 0.5 * I_{df/(df+t²)}(df/2, 1/2)."""
    t2 = t * t
    return 0.5 * _betainc(0.5 * df, 0.5, df / (df + t2), t2 / (df + t2))


def _t_logpdf(t: float, df: float) -> float:
    return (
        math.lgamma(0.5 * (df + 1.0))
        - math.lgamma(0.5 * df)
        - 0.5 * math.log(df * math.pi)
        - 0.5 * (df + 1.0) * math.log1p(t * t / df)
    )


def t_sf(t: float, df: float) -> float:
    """Student t survival function P(T > t) with ``df`` > 0 degrees of freedom (may be fractional)."""
    t, df = float(t), float(df)
    if not df > 0:
        raise ValueError(f"df must be > 0, got {df}")
    if math.isnan(t):
        return math.nan
    if math.isinf(df):
        return norm_cdf(-t)
    return _t_upper(t, df) if t >= 0 else 1.0 - _t_upper(-t, df)


def _cornish_fisher(z: float, df: float) -> float:
    """t quantile from the normal quantile z (Abramowitz & Stegun 26.7.5, terms to df⁻⁴)."""
    z2 = z * z
    g1 = (z2 + 1.0) * z / 4.0
    g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0
    g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0
    g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def _t_isf(p: float, df: float) -> float:
    """t > 0 with P(T > t) = p, for 0 < p < 0.5."""
    if df == 1.0:
        return 1.0 / math.tan(math.pi * p)
    if df == 2.0:
        return (1.0 - 2.0 * p) / math.sqrt(2.0 * p * (1.0 - p))
    z = -_norm_ppf_lower(p)
    if df >= 1e4:  # the expansion's error is O(df⁻⁵): far below 1e-12 here
        return _cornish_fisher(z, df)
    # Safeguarded Newton on log P(T > t) (monotone, nearly linear in the tails).
    lo, hi = 0.0, math.inf
    t = max(_cornish_fisher(z, df), z)
    log_p = math.log(p)
    for _ in range(200):
        q = _t_upper(t, df)
        if q > p:
            lo = t
        else:
            hi = t
        if q == p:
            return t
        pdf = math.exp(_t_logpdf(t, df))
        t_new = t + (math.log(q) - log_p) * q / pdf if pdf > 0.0 and q > 0.0 else math.nan
        if not lo < t_new < hi:  # outside the bracket (or nan): bisect, or double while unbounded above
            t_new = 2.0 * t if math.isinf(hi) else 0.5 * (lo + hi)
        if abs(t_new - t) <= 1e-14 * max(1.0, t):
            return t_new
        t = t_new
    return t


def t_ppf(p: float, df: float) -> float:
    """Student t quantile: t with P(T <= t) = p (``df`` > 0, may be fractional or ``inf``).

    Relative accuracy about 1e-11 whenever the answer is below ~1e150 (any df >= 1).
    """
    p, df = float(p), float(df)
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, got {p}")
    if not df > 0:
        raise ValueError(f"df must be > 0, got {df}")
    if math.isinf(df):
        return norm_ppf(p)
    if p == 0.5:
        return 0.0
    return -_t_isf(p, df) if p < 0.5 else _t_isf(1.0 - p, df)


def t_value(conf: float, df: float) -> float:
    """Two-sided Student t critical value: ``t_ppf(1 - (1-conf)/2, df)`` (2.5706 for 0.95, df=5)."""
    conf = _check_conf(conf)
    df = float(df)
    if not df > 0:
        raise ValueError(f"df must be > 0, got {df}")
    if math.isinf(df):
        return z_value(conf)
    return _t_isf(0.5 * (1.0 - conf), df)


# --------------------------------------------------------------------------- binomial rates


def wilson_arrays(k: ArrayLike, n: ArrayLike, conf: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised Wilson score interval (lo, hi) for k successes in n trials; n == 0 gives (0, 1)."""
    z = z_value(conf)
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("need 0 <= k <= n")
    z2 = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n > 0, k / np.where(n > 0, n, 1.0), 0.5)
        denom = n + z2
        centre = (k + 0.5 * z2) / denom
        half = z / denom * np.sqrt(n * p * (1.0 - p) + 0.25 * z2)
    lo = np.clip(centre - half, 0.0, 1.0)
    hi = np.clip(centre + half, 0.0, 1.0)
    lo = np.where(k == 0, 0.0, lo)  # exact ends (no rounding residue)
    hi = np.where(k == n, 1.0, hi)
    lo = np.where(n == 0, 0.0, lo)
    hi = np.where(n == 0, 1.0, hi)
    return lo, hi


def wilson(k: int, n: int, conf: float = 0.95) -> tuple[float, float]:
    """Wilson score interval (lo, hi) for a binomial rate k/n; n == 0 gives (0.0, 1.0)."""
    lo, hi = wilson_arrays(k, n, conf)
    return float(lo), float(hi)


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


def _binom_logpmf(j: np.ndarray, n: int, p: float) -> np.ndarray:
    """log P(B = j) for B ~ Binomial(n, p), 0 < p < 1, exact via lgamma."""
    lg = np.vectorize(math.lgamma, otypes=[float])
    j = np.asarray(j, dtype=float)
    return math.lgamma(n + 1.0) - lg(j + 1.0) - lg(n - j + 1.0) + j * math.log(p) + (n - j) * math.log1p(-p)


def binomial_two_sided_p(k: int, n: int, p: float = 0.5) -> float:
    """Exact two-sided binomial test p-value of k successes in n trials against rate p.

    Sums the probabilities of all outcomes no more likely than k (the "minlike" rule of R's
    ``binom.test``, with relative tolerance 1e-7); for p = 0.5 this is twice the smaller tail.
    """
    k, n, p = int(k), int(n), _check_prob(p)
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 1.0
    if p == 0.0:
        return 1.0 if k == 0 else 0.0
    if p == 1.0:
        return 1.0 if k == n else 0.0
    mean, sd = n * p, math.sqrt(n * p * (1.0 - p))
    # Outside mean ± (|k - mean| + 40 sd + 50) every term is smaller than the ones kept by e^-800 or so.
    r = abs(k - mean) + 40.0 * sd + 50.0
    j = np.arange(max(0, math.floor(mean - r)), min(n, math.ceil(mean + r)) + 1)
    logpmf = _binom_logpmf(j, n, p)
    log_pk = float(_binom_logpmf(np.array([k]), n, p)[0])
    keep = logpmf <= log_pk + math.log1p(1e-7)
    if not np.any(keep):
        return 0.0
    lp = logpmf[keep]
    top = lp.max()
    return float(min(1.0, math.exp(top) * np.exp(lp - top).sum()))


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


def _order_stat_ranks(n: int, q: float, conf: float, exact: bool | None = None) -> tuple[int, int]:
    """1-based ranks (l, u) of the order statistics bounding the q-quantile with coverage >= conf.

    With B ~ Binomial(n, q) the number of observations below the true quantile,
    P(x_(l) <= ξ_q <= x_(u)) >= P(l <= B <= u-1); l is the largest rank with P(B <= l-1) <= α/2 and
    u the smallest with P(B >= u) <= α/2. l == 0 / u == n+1 mean "no finite bound at this n".
    """
    alpha = 1.0 - conf
    if exact is None:
        exact = n <= _EXACT_QUANTILE_MAX_N
    if exact:
        logpmf = _binom_logpmf(np.arange(n + 1), n, q)
        log_cdf = np.logaddexp.accumulate(logpmf)  # log P(B <= j)
        log_sf = np.logaddexp.accumulate(logpmf[::-1])[::-1]  # log P(B >= j)
        log_half = math.log(alpha / 2.0)
        l = int(np.count_nonzero(log_cdf <= log_half))
        above = np.nonzero(log_sf[1:] <= log_half)[0]  # candidates u = 1..n
        u = int(above[0]) + 1 if above.size else n + 1
        return l, u
    z = z_value(conf)
    mean, sd = n * q, math.sqrt(n * q * (1.0 - q))
    l = math.floor(mean + 0.5 - z * sd)  # continuity-corrected normal approximation
    u = math.ceil(mean + 0.5 + z * sd)
    return max(l, 0), min(u, n + 1)


def quantile_ci(x: ArrayLike, q: float, conf: float = 0.95) -> tuple[float, float, float]:
    """Sample q-quantile and a distribution-free interval for it from order statistics.

    Returns (value, lo, hi): value is ``np.quantile(x, q)`` (linear interpolation); lo and hi are
    order statistics x_(l), x_(u) whose coverage is at least ``conf`` for any continuous
    distribution (exact binomial ranks for n <= 1000, normal approximation above). A side
    that the sample is too small to bound is returned as -inf / +inf.
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
    (Wilson limits of each rate combined with the continuity-adjusted phi correlation), the exact
    McNemar p-value (two-sided binomial test of ``b_only`` out of ``a_only + b_only`` against 1/2),
    and the positions of the games that flipped. ``significant`` is ``p_value < 1 - conf`` AND the
    interval excludes 0 (both must agree).
    """
    conf = _check_conf(conf)
    wa, wb = _as_binary(a, "a"), _as_binary(b, "b")
    if wa.shape != wb.shape:
        raise ValueError(f"a and b must have the same length, got {wa.size} and {wb.size}")
    n = int(wa.size)
    w2l = np.flatnonzero(wa & ~wb).astype(np.int64)
    l2w = np.flatnonzero(~wa & wb).astype(np.int64)
    both = int(np.count_nonzero(wa & wb))
    a_only, b_only = int(w2l.size), int(l2w.size)
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
            rate_a=math.nan, rate_b=math.nan, diff=math.nan, lo=-1.0, hi=1.0, phi=0.0, p_value=1.0, significant=False
        )
        return out
    ka, kb = both + a_only, both + b_only
    pa, pb = ka / n, kb / n
    diff = pb - pa
    la, ua = wilson(ka, n, conf)
    lb, ub = wilson(kb, n, conf)
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
    lo, hi = max(-1.0, diff - dl), min(1.0, diff + du)
    p_value = binomial_two_sided_p(b_only, a_only + b_only, 0.5)
    out.update(
        rate_a=pa,
        rate_b=pb,
        diff=diff,
        lo=lo,
        hi=hi,
        phi=phi,
        p_value=p_value,
        significant=bool(p_value < 1.0 - conf and (lo > 0.0 or hi < 0.0)),
    )
    return out


def paired_mean_diff(a: ArrayLike, b: ArrayLike, conf: float = 0.95) -> dict[str, Any]:
    """Compare numeric per-game outcomes from the same game streams: paired t on ``d = b - a``.

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
    else:
        t = diff / (sd / math.sqrt(n))
        p_value = min(1.0, 2.0 * t_sf(abs(t), n - 1))
    out.update(
        sd_diff=sd,
        t=t,
        p_value=p_value,
        significant=bool(p_value < 1.0 - conf and (lo > 0.0 or hi < 0.0)),
    )
    return out


# --------------------------------------------------------------------------- sequential sampling


@dataclass(frozen=True)
class PrecisionTarget:
    """Keep simulating a cell until its Wilson interval is at most ``width`` wide (full width).

    Games are added ``batch`` at a time; a cell stops at ``max_games`` whatever its width.
    Stopping depends on the interval width only, never on the estimate.
    """

    width: float
    conf: float = 0.95
    max_games: int = 1_000_000
    batch: int = 1_000

    def validate(self, where: str | None = None) -> PrecisionTarget:
        """Raise InputError if the target is malformed or unreachable within ``max_games``; return self."""
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
        return self

    def done(self, k: int, n: int) -> bool:
        """True when the interval for k/n is narrow enough or n has reached ``max_games``."""
        return bool(n >= self.max_games or (n > 0 and ci_width(k, n, self.conf) <= self.width))

    def next_batch(self, n: int) -> int:
        """Games to add to a cell that has n games so far (0 once ``max_games`` is reached)."""
        return int(max(0, min(self.batch, self.max_games - n)))


def cells_to_continue(ks: ArrayLike, ns: ArrayLike, target: PrecisionTarget) -> np.ndarray:
    """Boolean mask of cells that still need games (interval too wide and below ``max_games``)."""
    ns_arr = np.asarray(ns)
    lo, hi = wilson_arrays(ks, ns_arr, target.conf)
    return np.asarray(((hi - lo) > target.width) & (ns_arr < target.max_games), dtype=bool)


# --------------------------------------------------------------------------- summaries


def summarize_rate(k: int, n: int, conf: float = 0.95) -> dict[str, float | int]:
    """dict(rate, lo, hi, n) with the Wilson interval; rate is nan when n == 0."""
    lo, hi = wilson(k, n, conf)
    return {"rate": k / n if n else math.nan, "lo": lo, "hi": hi, "n": int(n)}


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

    Two-sided test at level ``alpha``: the exact binomial test (``binomial_two_sided_p``) when
    n <= 100000 or the distribution is skewed (n p or n (1-p) below 1000), otherwise the normal
    approximation with continuity correction.
    """
    k, n, p = int(k), int(n), _check_prob(p)
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n <= _EXACT_FREQ_MAX_N or min(n * p, n * (1.0 - p)) < 1000:
        return binomial_two_sided_p(k, n, p) >= alpha
    z = max(abs(k - n * p) - 0.5, 0.0) / math.sqrt(n * p * (1.0 - p))
    return math.erfc(z / _SQRT2) >= alpha
