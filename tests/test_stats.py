"""Tests for foury_sim.stats against published values, scipy and statsmodels.

Reference numbers marked "scipy" were computed with scipy 1.17.1; the tests at the end also call
scipy.stats and statsmodels directly and compare.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from foury_sim import stats
from foury_sim.errors import InputError

# --------------------------------------------------------------------------- quantile functions


def test_normal_quantiles():
    assert stats.z_value(0.95) == pytest.approx(1.959963985, abs=1e-9)
    assert stats.norm_ppf(0.975) == pytest.approx(1.959963984540054, abs=1e-12)  # scipy
    assert stats.norm_ppf(0.025) == pytest.approx(-1.959963984540054, abs=1e-12)
    assert stats.norm_ppf(1e-10) == pytest.approx(-6.361340902404056, abs=1e-10)  # scipy
    assert stats.norm_ppf(0.5) == 0.0
    assert stats.z_value(0.99) == pytest.approx(2.5758293035489, abs=1e-9)
    for p in (1e-300, 1e-9, 0.01, 0.02425, 0.3, 0.77, 0.999):  # round trip through the CDF
        assert stats.norm_cdf(stats.norm_ppf(p)) == pytest.approx(p, rel=1e-12)


def test_normal_and_t_are_scipy_stats_bit_for_bit():
    """The quantiles and tails come from scipy.special directly (no scipy.stats import at start-up): the same
    floats as scipy.stats, bit for bit."""
    import scipy.stats as ss

    for p in (1e-300, 1e-12, 1e-6, 0.005, 0.025, 0.05, 0.1, 0.3, 0.5, 0.77, 0.95, 0.975, 0.995, 1 - 1e-12):
        assert stats.norm_ppf(p) == float(ss.norm.ppf(p))
        assert stats._norm_isf(p) == float(ss.norm.isf(p))
        for df in (0.7, 1, 2.5, 5, 30, 1000, 1e9):
            assert stats.t_ppf(p, df) == float(ss.t.ppf(p, df))
    for conf in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999):
        assert stats.z_value(conf) == float(ss.norm.isf(0.5 * (1 - conf)))
        for df in (0.7, 1, 2.5, 5, 30, 1000, 1e9):
            assert stats.t_value(conf, df) == float(ss.t.isf(0.5 * (1 - conf), df))
    for x in (-40.0, -8.0, -1.96, -0.3, 0.0, 0.3, 1.96, 8.0, 40.0):
        assert stats.norm_cdf(x) == float(ss.norm.cdf(x))
        assert stats.t_sf(x, math.inf) == float(ss.norm.sf(x))
        for df in (0.7, 3, 12, 400):
            assert stats.t_sf(x, df) == float(ss.t.sf(x, df))


@pytest.mark.parametrize("n", [0, 1, 2, 7, 100, 2_500, 250_000])
def test_binomial_cdf_sf_are_scipy_stats_bit_for_bit(n):
    """The order-statistic ranks read the binomial through scipy's own kernels with scipy.stats' edge values."""
    import scipy.stats as ss

    j = np.unique(np.concatenate([np.arange(-2, min(n, 60) + 3), np.arange(max(n - 60, 0), n + 3),
                                  np.linspace(0, n, 501).astype(np.int64)]))
    for q in (1e-9, 0.001, 0.025, 0.1, 0.25, 0.5, 0.9, 0.975, 0.999):
        cdf, sf = stats._binom_cdf_sf(j, n, q)
        assert np.array_equal(cdf, ss.binom.cdf(j, n, q))
        assert np.array_equal(sf, ss.binom.sf(j - 1, n, q))


def test_a_summary_does_not_import_scipy_stats():
    """Rates, means and quantile intervals (a run's summary) import only scipy.special: scipy.stats costs about a
    second of every short command's start-up (issue 17: Delve end to end)."""
    import subprocess
    import sys

    code = ("import sys, numpy as np; from foury_sim import stats as s;"
            "s.wilson(3, 10); s.t_value(0.95, 9); s.z_value(0.9); s.norm_cdf(1.0); s.t_sf(1.0, 4);"
            "s._order_stat_ranks(50, 0.5, 0.95); s._order_stat_ranks(300_000, 0.5, 0.95);"
            "s.mcnemar_p([3, 0, 40], [7, 0, 2]);"
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize(
    "df, q975, q995",
    [  # scipy.stats.t.ppf(0.975, df), t.ppf(0.995, df)
        (1, 12.706204736174694, 63.656741162871526),
        (2, 4.302652729749462, 9.924843200918287),
        (2.5, 3.5746548420036817, 7.163728138948783),
        (5, 2.5705818356363146, 4.032142983555228),
        (30, 2.0422724563012378, 2.7499956535672254),
        (1000, 1.9623390808264083, 2.580754698065951),
    ],
)
def test_t_quantiles(df, q975, q995):
    assert stats.t_value(0.95, df) == pytest.approx(q975, abs=1e-9)
    assert stats.t_value(0.99, df) == pytest.approx(q995, abs=1e-9)
    assert stats.t_ppf(0.975, df) == pytest.approx(q975, abs=1e-9)
    assert stats.t_ppf(0.025, df) == pytest.approx(-q975, abs=1e-9)


def test_t_textbook_values_and_limits():
    assert round(stats.t_value(0.95, 1), 4) == 12.7062
    assert round(stats.t_value(0.95, 5), 4) == 2.5706
    assert round(stats.t_value(0.95, 30), 4) == 2.0423
    assert stats.t_value(0.95, 1e9) == pytest.approx(stats.z_value(0.95), abs=1e-8)
    assert stats.t_value(0.95, math.inf) == stats.z_value(0.95)
    assert stats.t_sf(2.0, 10) == pytest.approx(0.03669401738537018, rel=1e-10)  # scipy
    assert stats.t_sf(0.0, 7) == pytest.approx(0.5)
    for df in (0.7, 3, 12, 400):  # round trip through the survival function
        for p in (1e-8, 0.01, 0.2):
            assert stats.t_sf(-stats.t_ppf(p, df), df) == pytest.approx(p, rel=1e-9)
    with pytest.raises(ValueError):
        stats.t_value(0.95, 0)
    with pytest.raises(ValueError):
        stats.z_value(1.0)


# --------------------------------------------------------------------------- Wilson


@pytest.mark.parametrize(
    "k, n, lo, hi",
    [  # Newcombe (1998, Stat Med 17:857) Table I, method 3 (Wilson score, no continuity correction)
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 10, 0.0, 0.2775),  # closed form at k = 0: hi = z² / (n + z²)
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_published(k, n, lo, hi):
    got = stats.wilson(k, n)
    assert got[0] == pytest.approx(lo, abs=5e-5)
    assert got[1] == pytest.approx(hi, abs=5e-5)


def test_wilson_zero_successes_closed_form():
    z2 = stats.z_value(0.95) ** 2
    assert stats.wilson(0, 10)[1] == pytest.approx(z2 / (10 + z2), rel=1e-14)


def test_wilson_edges_and_vectorised():
    assert stats.wilson(0, 0) == (0.0, 1.0)
    assert stats.wilson(10, 10)[1] == 1.0
    assert stats.wilson(0, 10)[0] == 0.0
    lo10, hi10 = stats.wilson(10, 10)
    lo0, hi0 = stats.wilson(0, 10)
    assert lo10 == pytest.approx(1 - hi0) and hi10 == pytest.approx(1 - lo0)  # symmetry
    ks = np.array([81, 15, 0, 0])
    ns = np.array([263, 148, 10, 0])
    lo, hi = stats.wilson_arrays(ks, ns)
    for i in range(4):
        assert (lo[i], hi[i]) == pytest.approx(stats.wilson(int(ks[i]), int(ns[i])))
    with pytest.raises(ValueError):
        stats.wilson(11, 10)


def test_wilson_coverage_simulation():
    rng = np.random.default_rng(20240611)
    p, n = 0.3, 200
    ks = rng.binomial(n, p, size=2000)
    lo, hi = stats.wilson_arrays(ks, np.full(ks.size, n), 0.95)
    coverage = np.mean((lo <= p) & (p <= hi))
    assert 0.93 <= coverage <= 0.97


def test_ci_width_and_needed_games():
    assert stats.ci_width(0, 0) == 1.0
    lo, hi = stats.wilson(30, 100)
    assert stats.ci_width(30, 100) == pytest.approx(hi - lo)
    z2 = stats.z_value(0.95) ** 2
    # p = 0.5: width = z / sqrt(n + z²) -> n = z²/w² - z² = 9600.0 for w = 0.02
    assert stats.needed_games(0.5, 0.02) == math.ceil(z2 / 0.02**2 - z2) == 9600
    # p = 0: width = z² / (n + z²) -> n = z² (1 - w) / w
    assert stats.needed_games(0.0, 0.01) == math.ceil(z2 * 0.99 / 0.01)
    for p, w in [(0.5, 0.02), (0.1, 0.02), (0.3, 0.05), (0.02, 0.01)]:
        n = stats.needed_games(p, w)
        assert stats.ci_width(p * n, n) <= w < stats.ci_width(p * (n - 1), n - 1)
        assert n <= stats.needed_games(0.5, w)  # 0.5 is the worst case
    with pytest.raises(ValueError):
        stats.needed_games(0.5, 0.0)


# --------------------------------------------------------------------------- exact binomial


def test_binomial_two_sided_p():
    assert stats.binomial_two_sided_p(1, 8) == pytest.approx(2 * 9 / 256, rel=1e-12)  # 2 P(X <= 1)
    assert stats.binomial_two_sided_p(4, 8) == pytest.approx(1.0, abs=1e-12)
    assert stats.binomial_two_sided_p(0, 0) == 1.0
    # R: binom.test(c(682, 243), p = 3/4) -> p-value = 0.3825 (scipy: 0.3824915595748517)
    assert stats.binomial_two_sided_p(682, 925, 0.75) == pytest.approx(0.3824915595748517, rel=1e-9)
    assert stats.binomial_two_sided_p(3, 20, 0.1) == pytest.approx(0.4446498494011033, rel=1e-9)  # scipy
    assert stats.binomial_two_sided_p(5, 5, 0.3) == pytest.approx(0.3**5, rel=1e-12)
    assert stats.binomial_two_sided_p(0, 5, 0.0) == 1.0
    assert stats.binomial_two_sided_p(1, 5, 0.0) == 0.0


def test_binomial_two_sided_p_array_is_scipy_binomtest_bit_for_bit():
    """The odds tables' p-values, every comparison at once, are scipy's ``binomtest`` to the last bit: small and
    large n, rates near 0, 1/2 and 1, k on both sides of the mode, at the mode (k == n p), at the ends, and
    draws as an odds table's rows make them (k ~ Binomial(n, p))."""
    from scipy.stats import binomtest

    rng = np.random.default_rng(17)
    ks, ns, ps = [], [], []
    for n in (1, 2, 3, 8, 10, 37, 100, 925, 20_000, 100_000):
        for p in (1e-5, 0.01, 0.1, 0.123456, 0.25, 0.3, 1 / 3, 0.5, 2 / 3, 0.75, 0.9, 0.99):
            mode = int(p * n)
            for k in {0, 1, n // 2, n, mode, mode + 1, max(mode - 1, 0), *rng.integers(0, n + 1, 3).tolist()}:
                if 0 <= k <= n:
                    ks.append(k), ns.append(n), ps.append(p)
    for _ in range(300):
        n, p = int(rng.choice([5_000, 20_000, 40_000])), float(rng.random())
        ks.append(int(rng.binomial(n, p))), ns.append(n), ps.append(p)
    ks.append(2), ns.append(4), ps.append(0.5)  # k == n p exactly: 1
    got = stats.binomial_two_sided_p_array(ks, ns, ps)
    want = np.array([binomtest(k, n, p).pvalue for k, n, p in zip(ks, ns, ps)])
    assert got.shape == want.shape
    assert np.array_equal(got, want), np.nonzero(got != want)[0][:5]
    # the edges binomtest gives too, and the ones it refuses (n == 0: nothing to test, 1)
    assert stats.binomial_two_sided_p_array([0, 1, 5, 4, 0], [5, 5, 5, 5, 0], [0.0, 0.0, 1.0, 1.0, 0.5]).tolist() \
        == [1.0, 0.0, 1.0, 0.0, 1.0]
    with pytest.raises(ValueError):
        stats.binomial_two_sided_p_array([6], [5], [0.5])
    with pytest.raises(ValueError):
        stats.binomial_two_sided_p_array([1], [5], [1.5])


def test_binom_z_and_check_frequency():
    assert stats.binom_z(60, 100, 0.5) == pytest.approx(2.0)
    assert stats.binom_z(0, 10, 0.0) == 0.0
    assert stats.binom_z(1, 10, 0.0) == math.inf
    assert stats.check_frequency(0, 10, 0.5)  # p = 2/1024
    assert not stats.check_frequency(0, 30, 0.5)  # p = 2/2^30 < 1e-6
    assert not stats.check_frequency(1, 10, 0.0)
    # normal branch (n > 100000): z = 4 gives p = 6.3e-5, z = 5 gives p = 5.7e-7 (scipy)
    n = 1_000_000
    assert stats.check_frequency(n // 2 + 4 * 500 + 1, n, 0.5)
    assert not stats.check_frequency(n // 2 + 5 * 500 + 1, n, 0.5)
    # a simulated fair d6
    rng = np.random.default_rng(7)
    sixes = int(np.count_nonzero(rng.integers(1, 7, size=60_000) == 6))
    assert stats.check_frequency(sixes, 60_000, 1 / 6)
    assert not stats.check_frequency(sixes, 60_000, 0.2)


# --------------------------------------------------------------------------- numeric summaries


def test_mean_ci():
    m, lo, hi = stats.mean_ci([1, 2, 3, 4, 5])
    half = 2.7764451051977934 * math.sqrt(2.5) / math.sqrt(5)  # t_{0.975,4} from scipy
    assert (m, lo, hi) == pytest.approx((3.0, 3.0 - half, 3.0 + half), abs=1e-10)
    m, lo, hi = stats.mean_ci([4.0])
    assert m == 4.0 and math.isnan(lo) and math.isnan(hi)
    assert all(math.isnan(v) for v in stats.mean_ci([]))
    assert stats.mean_ci([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)


def test_ratio_ci_by_hand():
    """sum(a) / sum(b) over 3 games a = 2, 4, 9 and b = 1, 2, 3: R = 15 / 6 = 2.5, residuals a - R b = -0.5, -1, 1.5,
    their sum of squares 3.5; var(R) = 3.5 / ((3 - 1) 3) / (6 / 3)^2 = 7/48; the 95 % interval R ± t_{0.975,2}
    sqrt(7/48), t_{0.975,2} = 4.302652729749464 (scipy)."""
    half = 4.302652729749464 * math.sqrt(7 / 48)
    r, lo, hi = stats.ratio_ci([2, 4, 9], [1, 2, 3])
    assert r == 2.5 and (lo, hi) == pytest.approx((2.5 - half, 2.5 + half), rel=1e-15)
    t = stats.t_value(0.95, 2)
    assert (lo, hi) == (2.5 - t * math.sqrt(7 / 48), 2.5 + t * math.sqrt(7 / 48))
    assert stats.ratio_ci([2.0, 4.0, 9.0], [1.0, 2.0, 3.0]) == pytest.approx((r, lo, hi), rel=1e-15)  # floats
    # the sums a streamed run keeps: n, sum a, sum b, sum a^2, sum ab, sum b^2
    assert stats.ratio_ci_sums(3, 15, 6, 101, 37, 14) == (r, lo, hi)
    # at 90 %: t_{0.95,2} = 2.919985580355516
    assert stats.ratio_ci([2, 4, 9], [1, 2, 3], 0.9)[1:] == pytest.approx(
        (2.5 - 2.919985580355516 * math.sqrt(7 / 48), 2.5 + 2.919985580355516 * math.sqrt(7 / 48)), rel=1e-15)
    assert stats.ratio_ci([3, 6, 9], [1, 2, 3]) == (3.0, 3.0, 3.0)  # every game at the same ratio: no spread
    r1, lo1, hi1 = stats.ratio_ci([5], [2])
    assert r1 == 2.5 and math.isnan(lo1) and math.isnan(hi1)  # one game: no interval
    assert all(math.isnan(v) for v in stats.ratio_ci([1, 2], [0, 0]))  # nothing to divide by
    with pytest.raises(ValueError):
        stats.ratio_ci([1, 2], [1])


def test_ratio_ci_covers_at_its_level_with_the_games_as_units():
    """Games of 1-6 fights (uneven), each fight's damage 1-6 plus a game-wide bonus shared by its fights (fights of a
    game are not independent): the 95 % interval of total damage / total fights covers the true ratio 5.0 in about
    95 % of 2,000 runs of 100 games."""
    rng = np.random.default_rng(3)
    cover = 0
    reps = 2000
    for _ in range(reps):
        fights = rng.integers(1, 7, 100)
        bonus = rng.integers(0, 4, 100)  # mean 1.5 a fight, the same for every fight of a game
        damage = np.array([int(rng.integers(1, 7, f).sum()) + int(b) * int(f) for f, b in zip(fights, bonus)])
        _, lo, hi = stats.ratio_ci(damage, fights)
        cover += lo <= 5.0 <= hi
    assert 0.935 <= cover / reps <= 0.965, cover / reps


def test_quantile_ci_order_statistics():
    # n = 10, median: P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024, so (x_(2), x_(9)), coverage 97.85%
    assert stats.quantile_ci(np.arange(1, 11), 0.5) == (5.5, 2.0, 9.0)
    # n = 20: the textbook pair (x_(6), x_(15)), coverage 95.86%
    x = np.array([3.1, 9.4, 2.2, 7.7, 5.0, 6.6, 1.9, 8.8, 4.4, 0.5, 2.9, 6.1, 7.2, 3.8, 5.5, 9.9, 1.1, 4.9, 8.1, 6.9])
    xs = np.sort(x)
    value, lo, hi = stats.quantile_ci(x, 0.5)
    assert value == pytest.approx(np.median(x))
    assert (lo, hi) == (xs[5], xs[14])
    # n = 5 cannot bound the median at 95% (P(B = 0) = 1/32 > 0.025)
    assert stats.quantile_ci([1, 2, 3, 4, 5], 0.5)[1:] == (-math.inf, math.inf)
    # 90th percentile of 1..50: ranks (41, 50)
    assert stats.quantile_ci(np.arange(1, 51), 0.9)[1:] == (41.0, 50.0)


def _binom_cdf(j: int, n: int, q: float) -> float:
    return sum(math.comb(n, i) * q**i * (1 - q) ** (n - i) for i in range(j + 1)) if j >= 0 else 0.0


@pytest.mark.parametrize("n, q", [(10, 0.5), (37, 0.25), (120, 0.9), (400, 0.5)])
def test_order_stat_ranks_are_optimal(n, q):
    l, u = stats._order_stat_ranks(n, q, 0.95, exact=True)
    assert _binom_cdf(l - 1, n, q) <= 0.025 < _binom_cdf(l, n, q)  # l is the largest valid rank
    assert 1 - _binom_cdf(u - 1, n, q) <= 0.025 < 1 - _binom_cdf(u - 2, n, q)  # u is the smallest
    assert _binom_cdf(u - 1, n, q) - _binom_cdf(l - 1, n, q) >= 0.95


def test_order_stat_ranks_normal_approximation_close_to_exact():
    for n in (1001, 5000):
        for q in (0.1, 0.5, 0.9):
            ex = stats._order_stat_ranks(n, q, 0.95, exact=True)
            ap = stats._order_stat_ranks(n, q, 0.95, exact=False)
            assert abs(ex[0] - ap[0]) <= 1 and abs(ex[1] - ap[1]) <= 1


def test_summaries():
    assert stats.summarize_rate(81, 263) == pytest.approx(
        {"rate": 81 / 263, "lo": stats.wilson(81, 263)[0], "hi": stats.wilson(81, 263)[1], "n": 263, "conf": 0.95}
    )
    empty = stats.summarize_rate(0, 0)
    assert math.isnan(empty["rate"]) and (empty["lo"], empty["hi"]) == (0.0, 1.0)
    s = stats.summarize_numeric(np.arange(1, 11))
    assert s["mean"] == 5.5 and s["median"] == 5.5
    assert (s["median_lo"], s["median_hi"]) == (2.0, 9.0)
    assert s["sd"] == pytest.approx(np.std(np.arange(1, 11), ddof=1))
    assert (s["min"], s["max"], s["n"]) == (1.0, 10.0, 10)
    assert s["mean_lo"] < 5.5 < s["mean_hi"]
    assert stats.summarize_numeric([])["n"] == 0


# --------------------------------------------------------------------------- paired comparisons


def _pairs(both: int, a_only: int, b_only: int, neither: int) -> tuple[np.ndarray, np.ndarray]:
    a = np.array([1] * both + [1] * a_only + [0] * b_only + [0] * neither)
    b = np.array([1] * both + [0] * a_only + [1] * b_only + [0] * neither)
    return a, b


def _newcombe10_bruteforce(e: int, f: int, g: int, h: int, z: float) -> tuple[float, float]:
    """Newcombe (1998, Stat Med 17:2635) method 10 written from the paper's table (e f / g h).

    Rate 1 = (e+f)/n, rate 2 = (e+g)/n, difference = (f-g)/n; Wilson limits from the closed-form
    quadratic roots; phi adjusted as in the paper (and in Fagerland, Lydersen & Laake's code).
    """
    n = e + f + g + h

    def wil(x: int) -> tuple[float, float]:
        p = x / n
        roots = [
            (2 * n * p + z * z + s * z * math.sqrt(z * z + 4 * n * p * (1 - p))) / (2 * (n + z * z)) for s in (-1, 1)
        ]
        return roots[0], roots[1]

    p1, p2 = (e + f) / n, (e + g) / n
    l1, u1 = wil(e + f)
    l2, u2 = wil(e + g)
    big_a = e * h - f * g
    denom = (e + f) * (g + h) * (e + g) * (f + h)
    if denom == 0:
        phi = 0.0
    elif big_a > n / 2:
        phi = (big_a - n / 2) / math.sqrt(denom)
    elif big_a >= 0:
        phi = 0.0
    else:
        phi = big_a / math.sqrt(denom)
    d = p1 - p2
    lower = d - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    upper = d + math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return max(-1.0, lower), min(1.0, upper)


def test_paired_rate_diff_published_example():
    # Cavo et al. (2012) complete response before/after consolidation, 2x2 = [[59, 6], [16, 80]].
    # Fagerland, Lydersen & Laake (2017), ch. 8, Newcombe square-and-add (method 10):
    # estimate -0.0621 (95% CI -0.1186 to -0.0046); exact conditional McNemar p = 0.052.
    # Test 1 (success in row 1) is our variant b, test 2 our variant a: diff = rate_b - rate_a.
    a, b = _pairs(both=59, a_only=16, b_only=6, neither=80)
    r = stats.paired_rate_diff(a, b)
    assert round(r["diff"], 4) == -0.0621
    assert round(r["lo"], 4) == -0.1186
    assert round(r["hi"], 4) == -0.0046
    assert r["p_value"] == pytest.approx(0.052478790283203125, rel=1e-10)  # 2 P(Bin(22, .5) <= 6)
    assert (r["n"], r["both"], r["a_only"], r["b_only"], r["neither"]) == (161, 59, 16, 6, 80)
    assert r["significant"] is False  # interval excludes 0 but McNemar p > 0.05: both are required


@pytest.mark.parametrize(
    "cells",
    [
        (59, 16, 6, 80),
        (1, 7, 1, 12),
        (0, 0, 0, 10),
        (5, 0, 0, 5),
        (30, 2, 14, 4),
        (0, 9, 3, 0),
        (12, 1, 1, 12),
        (40, 0, 7, 3),
    ],
)
def test_paired_rate_diff_matches_bruteforce(cells):
    both, a_only, b_only, neither = cells
    a, b = _pairs(both, a_only, b_only, neither)
    r = stats.paired_rate_diff(a, b, conf=0.95)
    # in the paper's table: e = both, f = b_only (rate 1 is b), g = a_only, h = neither
    lo, hi = _newcombe10_bruteforce(both, b_only, a_only, neither, stats.z_value(0.95))
    assert r["lo"] == pytest.approx(lo, abs=1e-12)
    assert r["hi"] == pytest.approx(hi, abs=1e-12)
    assert r["lo"] <= r["diff"] <= r["hi"]
    m = a_only + b_only
    exact_p = min(1.0, 2 * sum(math.comb(m, i) for i in range(min(a_only, b_only) + 1)) / 2**m) if m else 1.0
    assert r["p_value"] == pytest.approx(exact_p, rel=1e-12)


def test_mcnemar_exact_small_table():
    # Bentur et al. (2009): 1 discordant pair one way, 7 the other -> exact McNemar p = 18/256 = 0.0703
    a, b = _pairs(both=1, a_only=7, b_only=1, neither=12)
    r = stats.paired_rate_diff(a, b)
    assert r["p_value"] == pytest.approx(18 / 256, rel=1e-12)
    assert r["diff"] == pytest.approx(-6 / 21)


def test_mcnemar_p_is_scipy_stats_binom_bit_for_bit():
    """A comparison's McNemar p-values (every flipped-game count at once) are twice ``scipy.stats.binom.cdf`` of
    the smaller count, capped at 1, to the last bit; 1 where no game flipped."""
    import scipy.stats as ss

    rng = np.random.default_rng(5)
    a, b = rng.integers(0, 5_000, 2_000), rng.integers(0, 5_000, 2_000)
    a[:20], b[:20] = 0, 0
    a[20:40] = 0
    m = a + b
    want = np.where(m == 0, 1.0, np.minimum(1.0, 2.0 * ss.binom.cdf(np.minimum(a, b), np.maximum(m, 1), 0.5)))
    assert np.array_equal(stats.mcnemar_p(a, b), want)
    assert stats.mcnemar_p(1, 7) == 18 / 256 and stats.mcnemar_p(0, 0) == 1.0


def test_paired_rate_diff_flipped_indices():
    a = np.array([1, 1, 0, 0, 1, 0, 1, 0, 1, 1])
    b = np.array([1, 0, 1, 0, 0, 0, 1, 1, 1, 0])
    r = stats.paired_rate_diff(a, b)
    np.testing.assert_array_equal(r["flipped_win_to_loss"], [1, 4, 9])
    np.testing.assert_array_equal(r["flipped_loss_to_win"], [2, 7])
    assert r["flipped_win_to_loss"].dtype.kind == "i"
    assert (r["a_only"], r["b_only"], r["both"], r["neither"], r["n"]) == (3, 2, 3, 2, 10)
    assert r["diff"] == pytest.approx(-0.1)
    assert r["p_value"] == pytest.approx(1.0, abs=1e-12)  # 2 P(Bin(5, .5) <= 2) >= 1
    assert r["significant"] is False
    rb = stats.paired_rate_diff(a.astype(bool), b.astype(bool))
    assert rb["diff"] == r["diff"] and rb["lo"] == r["lo"]


def test_paired_rate_diff_significant_and_errors():
    a, b = _pairs(both=400, a_only=10, b_only=60, neither=530)
    r = stats.paired_rate_diff(a, b)
    assert r["lo"] > 0 and r["p_value"] < 1e-8 and r["significant"] is True
    identical = stats.paired_rate_diff(a, a)
    assert identical["diff"] == 0.0 and identical["p_value"] == 1.0 and not identical["significant"]
    with pytest.raises(ValueError):
        stats.paired_rate_diff([0, 1], [0, 1, 1])
    with pytest.raises(ValueError):
        stats.paired_rate_diff([0, 2], [0, 1])


def test_paired_mean_diff():
    a = np.array([10, 12, 9, 11, 14.0])
    b = np.array([11, 14, 9, 13, 15.0])
    r = stats.paired_mean_diff(a, b)
    # scipy.stats.ttest_rel(b, a): statistic 3.2071349029490923, pvalue 0.03267792333680301,
    # confidence_interval(0.95) = (0.16114936631643229, 2.2388506336835676)
    assert r["diff"] == pytest.approx(1.2)
    assert r["t"] == pytest.approx(3.2071349029490923, rel=1e-12)
    assert r["p_value"] == pytest.approx(0.03267792333680301, rel=1e-9)
    assert (r["lo"], r["hi"]) == pytest.approx((0.16114936631643229, 2.2388506336835676), rel=1e-9)
    assert r["significant"] is True
    assert not stats.paired_mean_diff(a, b, conf=0.99)["significant"]  # p = 0.033 > 0.01
    same = stats.paired_mean_diff(a, a + 2.0)
    assert (same["diff"], same["lo"], same["hi"], same["p_value"]) == (2.0, 2.0, 2.0, 0.0)
    equal = stats.paired_mean_diff(a, a)
    assert equal["p_value"] == 1.0 and not equal["significant"]
    one = stats.paired_mean_diff([1.0], [2.0])
    assert math.isnan(one["lo"]) and math.isnan(one["p_value"]) and not one["significant"]


# --------------------------------------------------------------------------- sequential sampling


def test_precision_target_validation():
    ok = stats.PrecisionTarget(width=0.02, conf=0.95, max_games=100_000, batch=4000)
    assert ok.validate() is ok
    for bad in (0.0, -0.1, 1.0, 1.5):
        with pytest.raises(InputError, match="width"):
            stats.PrecisionTarget(width=bad).validate()
    with pytest.raises(InputError, match="confidence"):
        stats.PrecisionTarget(width=0.1, conf=1.0).validate()
    with pytest.raises(InputError, match="max_games"):
        stats.PrecisionTarget(width=0.1, max_games=0).validate()
    with pytest.raises(InputError, match="batch"):
        stats.PrecisionTarget(width=0.1, batch=0).validate()
    # 1000 games at a rate of 0 give width z²/(1000 + z²) = 0.0038: 0.001 can never be reached
    with pytest.raises(InputError, match="cannot be reached") as info:
        stats.PrecisionTarget(width=0.001, max_games=1000).validate(where="--precision")
    assert info.value.where == "--precision"
    assert str(stats.needed_games(0.0, 0.001)) in info.value.message
    # reachable only for extreme rates: allowed (the cap then stops the cell)
    stats.PrecisionTarget(width=0.01, max_games=1000).validate()


def test_precision_target_done_and_cells():
    t = stats.PrecisionTarget(width=0.1, max_games=2000, batch=100)
    n_needed = stats.needed_games(0.5, 0.1)
    assert not t.done(0, 0)
    assert not t.done(n_needed // 2 - 50, n_needed - 100)
    assert t.done(n_needed // 2, n_needed)
    assert t.done(1000, 2000)  # the cap
    assert t.next_batch(0) == 100 and t.next_batch(1950) == 50 and t.next_batch(2000) == 0
    ks = np.array([0, 10, 5, 200, 50, 1000])  # widths 1, 0.119, 0.090, 0.097, 0.027, 0.044
    ns = np.array([0, 100, 100, 400, 1000, 2000])
    mask = stats.cells_to_continue(ks, ns, t)
    assert mask.dtype == bool
    np.testing.assert_array_equal(mask, [t.done(int(k), int(n)) is False for k, n in zip(ks, ns, strict=True)])
    np.testing.assert_array_equal(mask, [True, True, False, False, False, False])


def test_min_batch_is_enforced_and_the_default():
    assert stats.min_batch(0.02) == math.ceil(40 * stats.z_value(0.95) / 0.02) == 3920
    assert stats.min_batch(0.02, 0.99) > stats.min_batch(0.02, 0.95)
    t = stats.PrecisionTarget(width=0.02, max_games=100_000)
    assert t.batch == 3920 and t.validate() is t
    assert stats.PrecisionTarget(width=0.05, max_games=1000).batch == 1000  # capped by max_games
    with pytest.raises(InputError, match="batch >= 3920"):
        stats.PrecisionTarget(width=0.02, max_games=100_000, batch=100).validate()


def test_small_batches_bias_rare_rates_and_the_minimum_batch_fixes_it():
    # The measurement: batches of 100, width 0.02, p = 0.01 -> about -17 % relative.
    small = stats.PrecisionTarget(width=0.02, max_games=200_000, batch=100)  # not validated: too small
    r = stats.simulate_precision_stopping(0.01, small, reps=20_000, seed=1)
    assert -0.19 < r["rel_bias"] < -0.15
    ok = stats.PrecisionTarget(width=0.02, max_games=200_000).validate()
    for p in (0.01, 0.03, 0.12):  # 0.12 stops at about the first look: the worst rate for this batch
        r = stats.simulate_precision_stopping(p, ok, reps=20_000, seed=2)
        assert abs(r["rel_bias"]) < 0.01, (p, r)


@pytest.mark.parametrize("p", [0.01, 0.3])
def test_sequential_stopping_coverage_common_and_rare_rates(p):
    # Stop each run when the Wilson width reaches the target: coverage stays near the nominal level,
    # also at a rare rate (p = 0.01), where the Wilson interval's own coverage is least regular.
    target = stats.PrecisionTarget(width=0.02, max_games=50_000).validate()
    r = stats.simulate_precision_stopping(p, target, reps=4000, seed=99)
    assert 0.93 <= r["coverage"] <= 0.97, r
    assert abs(r["rel_bias"]) < 0.01 + 3 * r["rel_bias_se"]


def test_wilson_coverage_exact_sum_and_dip_near_zero():
    n, p = 30, 0.2
    lo, hi = stats.wilson_arrays(np.arange(n + 1), np.full(n + 1, n))
    brute = sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1) if lo[k] <= p <= hi[k])
    assert stats.wilson_coverage(p, n) == pytest.approx(brute, rel=1e-12)
    for n in (100, 10_000):  # the dip below nominal at p ~ 0.15/n (0.861) to 0.17/n (0.844)
        assert stats.wilson_coverage(0.15 / n, n) == pytest.approx(0.8607, abs=5e-4)
        assert stats.wilson_coverage(0.17 / n, n) == pytest.approx(0.8437, abs=5e-4)
        assert stats.wilson_coverage(2.0 / n, n) > 0.94


# --------------------------------------------------------------------------- pooled cells, many comparisons


def _shared_dice_cells(rng, cells, games, p=0.3, share=0.8):
    """0/1 wins of identical cells that play the same games: a shared latent luck per game index."""
    u = rng.random(games)
    out = np.empty((cells, games), dtype=np.int8)
    for i in range(cells):
        own = np.where(rng.random(games) < share, u, rng.random(games))
        out[i] = own < p
    return out


def test_pooled_interval_over_shared_dice_covers_and_naive_one_does_not():
    rng = np.random.default_rng(5)
    p, runs, hit_naive, hit_paired = 0.3, 400, 0, 0
    for _ in range(runs):
        w = _shared_dice_cells(rng, 6, 500, p)
        k, n = int(w.sum()), w.size
        lo, hi = stats.wilson(k, n)  # the old pooled interval: 3000 "independent" games
        hit_naive += lo <= p <= hi
        r = stats.pooled_rate_ci(w)
        hit_paired += r["lo"] <= p <= r["hi"]
        assr = stats.pooled_rate_ci_bound(w.sum(axis=1), np.full(6, 500))
        assert assr["hi"] - assr["lo"] >= r["hi"] - r["lo"] - 1e-12  # the bound is never narrower
    assert hit_naive / runs < 0.85
    assert 0.93 <= hit_paired / runs <= 0.98
    same = stats.pooled_rate_ci(np.zeros((4, 200)))  # cells that never win: one cell's Wilson interval
    assert (same["rate"], same["lo"], same["hi"]) == (0.0, 0.0, pytest.approx(stats.wilson(0, 200)[1]))


@pytest.mark.parametrize("cells, games", [(1, 1), (3, 7), (5, 64), (6, 65), (50, 1000), (4, 100_003), (0, 5), (3, 0)])
def test_pair_counts_are_the_matrix_product(cells, games):
    rng = np.random.default_rng(cells * 1000 + games)
    w = (rng.random((cells, games)) < 0.3).astype(np.int8)
    got = stats.pair_counts(w)
    assert got.dtype == np.int64 and got.shape == (cells, cells)
    assert np.array_equal(got, w.astype(np.int64) @ w.astype(np.int64).T)
    assert np.array_equal(stats.pair_counts(w.astype(bool)), got)


def test_pairwise_tests_match_paired_rate_diff_and_the_bound():
    rng = np.random.default_rng(8)
    w = _shared_dice_cells(rng, 5, 800, 0.25, 0.7)
    t = stats.pairwise_rate_tests(w)
    for i, j, p in zip(t["i"], t["j"], t["p"], strict=True):
        assert p == pytest.approx(stats.paired_rate_diff(w[i], w[j])["p_value"], rel=1e-9)
    b = stats.pairwise_rate_tests(k=w.sum(axis=1), n=np.full(5, 800))
    assert not b["paired"].any() and np.all(b["p"] >= t["p"] - 0.2)
    zero = stats.pairwise_rate_tests(k=[0, 0], n=[100, 100])
    assert zero["p"][0] == 1.0  # two cells at 0 % are never "apart"


def test_against_scipy_and_statsmodels():
    import scipy.stats as sps
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportion_confint

    assert stats.t_value(0.9, 7.5) == pytest.approx(sps.t.ppf(0.95, 7.5), rel=1e-12)
    assert stats.z_value(0.8) == pytest.approx(sps.norm.ppf(0.9), rel=1e-12)
    for k, n in ((0, 10), (3, 17), (81, 263), (40, 40)):
        lo, hi = proportion_confint(k, n, alpha=0.1, method="wilson")
        assert stats.wilson(k, n, 0.9) == pytest.approx((lo, hi), abs=1e-12)
        assert stats.binomial_two_sided_p(k, n, 0.3) == pytest.approx(sps.binomtest(k, n, 0.3).pvalue, rel=1e-12)
    table = np.array([[59, 6], [16, 80]])
    assert stats.mcnemar_p(6, 16) == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=60), rng.normal(0.3, 1, size=60)
    assert stats.paired_mean_diff(a, b)["p_value"] == pytest.approx(sps.ttest_rel(b, a).pvalue, rel=1e-12)
    for n in (2, 3, 10, 999, 20000):  # the paired t test is scipy's, bit for bit (floats, counts, 0/1 outcomes)
        for a, b in ((rng.normal(size=n), rng.normal(0.1, 2.0, size=n)),
                     (rng.integers(0, 40, n), rng.integers(0, 45, n)), (rng.random(n) < 0.3, rng.random(n) < 0.35)):
            r, ref = stats.paired_mean_diff(a, b), sps.ttest_rel(np.asarray(b, float), np.asarray(a, float))
            if r["sd_diff"] > 0.0:
                assert (r["t"], r["p_value"]) == (float(ref.statistic), float(min(1.0, ref.pvalue)))
    pv = [0.01, 0.04, 0.03, 0.2, np.nan]
    np.testing.assert_allclose(stats.adjust_pvalues(pv)[:4], multipletests(pv[:4], method="holm")[1])
    np.testing.assert_allclose(stats.adjust_pvalues(pv, "fdr_bh")[:4], multipletests(pv[:4], method="fdr_bh")[1])
    assert math.isnan(stats.adjust_pvalues(pv)[4])
    for size in (1, 2, 7, 300, 5000):  # the hand-written Holm step-down and BH step-up equal statsmodels' (ties,
        for q in (np.round(rng.random(size) ** 3, 3), rng.random(size) ** 8):  # 1.0 caps, zeros), bit for bit
            assert stats.adjust_pvalues(q).tolist() == multipletests(q, method="holm")[1].tolist()
            assert stats.adjust_pvalues(q, "fdr_bh").tolist() == multipletests(q, method="fdr_bh")[1].tolist()
    x = rng.exponential(size=300)
    v, lo, hi = stats.quantile_ci(x, 0.5)
    l, u = stats._order_stat_ranks(300, 0.5, 0.95)
    assert sps.binom.cdf(l - 1, 300, 0.5) <= 0.025 and sps.binom.sf(u - 1, 300, 0.5) <= 0.025
