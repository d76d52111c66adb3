"""Per-game dice streams: xoroshiro128++ seeded by SplitMix64 from (master seed, game index).

Every game owns a small state array ``rs`` (uint64[4]): two words of xoroshiro128++ state,
the read position in an optional *script* of forced dice, and a count of dice rolled.
A game's dice therefore depend only on (seed, game index): never on threads, batch split,
order, or whether numba is switched on. Tests force exact dice through the script: while
``rs[2] < len(script)`` the next die is ``script[rs[2]]`` instead of a random one.

Bounded integers use Lemire's multiply-and-reject method, so every face is exactly equally
likely (no modulo bias).
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from .config import CACHE, JIT_DISABLED

if JIT_DISABLED:  # pure-Python uint64 arithmetic wraps exactly like numba's, but numpy warns
    import warnings

    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_MASK32 = np.uint64(0xFFFFFFFF)

RNG_WORDS = 4
NO_SCRIPT = np.zeros(0, dtype=np.int64)


@njit(cache=CACHE, inline="always", _nrt=False)
def _splitmix64(x):
    """One SplitMix64 output for input state ``x`` (already advanced)."""
    z = uint64(x)
    z = (z ^ (z >> uint64(30))) * _M1
    z = (z ^ (z >> uint64(27))) * _M2
    return z ^ (z >> uint64(31))


@njit(cache=CACHE, inline="always", _nrt=False)
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(cache=CACHE, _nrt=False)
def seed_stream(rs, master_seed, game_index):
    """Key ``rs`` to (master seed, game index); reset the script position and the roll count."""
    k = _splitmix64(uint64(master_seed) * _GOLDEN + uint64(0x632BE59BD9B4E019))
    k = _splitmix64(k ^ (uint64(game_index) * _M2 + _GOLDEN))
    s0 = _splitmix64(k + _GOLDEN)
    s1 = _splitmix64(k + _GOLDEN + _GOLDEN)
    if s0 == uint64(0) and s1 == uint64(0):
        s1 = uint64(1)
    rs[0] = s0
    rs[1] = s1
    rs[2] = uint64(0)
    rs[3] = uint64(0)


@njit(cache=CACHE, inline="always", _nrt=False)
def next_u64(rs):
    """Next 64 random bits (xoroshiro128++)."""
    s0 = rs[0]
    s1 = rs[1]
    result = _rotl(s0 + s1, 17) + s0
    s1 ^= s0
    rs[0] = _rotl(s0, 49) ^ s1 ^ (s1 << uint64(21))
    rs[1] = _rotl(s1, 28)
    return result


@njit(cache=CACHE, _nrt=False)
def below(rs, n):
    """Unbiased integer in [0, n) for 1 <= n < 2**32 (Lemire's method). The rejection threshold
    (2**32 mod n, a division) is computed only when the low word falls below n, which is rare."""
    nn = uint64(n)
    m = (next_u64(rs) >> uint64(32)) * nn
    if (m & _MASK32) < nn:
        threshold = (uint64(0x100000000) - nn) % nn  # 2**32 mod n (< n)
        while (m & _MASK32) < threshold:
            m = (next_u64(rs) >> uint64(32)) * nn
    return np.int64(m >> uint64(32))


@njit(cache=CACHE, _nrt=False)
def roll(rs, script, sides):
    """Roll one die with ``sides`` faces (1..sides): scripted if the script has dice left."""
    rs[3] += uint64(1)
    if script.shape[0] > 0:
        pos = rs[2]
        if pos < uint64(script.shape[0]):
            rs[2] = pos + uint64(1)
            return np.int64(script[np.int64(pos)])
    return below(rs, sides) + 1


@njit(cache=CACHE, _nrt=False)
def d6(rs, script):
    """Roll 1d6."""
    return roll(rs, script, 6)


def new_state() -> np.ndarray:
    """A fresh, unseeded state array."""
    return np.zeros(RNG_WORDS, dtype=np.uint64)


def stream(master_seed: int, game_index: int) -> np.ndarray:
    """The state array of game ``game_index`` under ``master_seed`` (for tests and notebooks)."""
    rs = new_state()
    seed_stream(rs, np.uint64(master_seed % 2**64), np.uint64(game_index))
    return rs
