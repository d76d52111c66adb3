"""Delve's optimal push-your-luck policy, by dynamic programming (the built-in ``optimal``).

The decision: at each regroup, retire (XP = level) or go on. The objective: the chance of a win, a final
score >= ``score.win_rank``'s threshold after the last delve (not the expected score: a win is what the
toolkit measures, and the best retire point depends on how far the score is from the target and how many
delves are left, which an expected-score policy cannot see).

The model (docs/delve-optimal.md) is Delve reduced to its dice:

* state at a regroup: delve d, score s so far (capped at the target), hero side (novice/master), level L,
  dice in the Lair, and the party dice in hand as a multiset (every party of up to ``game.party_dice``
  dice, ranked as in ``kernel.party_rank``);
* chance: the next level's dungeon roll, enumerated as a multiset with its exact multinomial probability;
* the fight: the engine's own solver (``solver.best_fight`` keeping a dragon set when the dragon comes,
  then ``solver.dragon_rows``), spent with the engine's ``spend``: the party after the level is exactly
  the one the built-in policies would keep when no token, scroll or ultimate is used;
* a level that cannot be cleared is a flight (the delve ends with the score it had);
* loot, abstracted: every chest rolled on a cleared level is one point if the party left can open it
  (a die that opens every chest, or one chest per other companion die), and costs no die; potions
  revive nothing; a slain dragon gives ``dragon.xp`` + ``dragon.treasures`` points;
* treasures are their points only (never used; Dragon Scales pairs earn nothing extra), no scrolls, no
  ultimates, no Town Portals, no Mercenary reroll when forming; the master side is taken once the score
  (not only the XP) reaches ``xp.master_at``.

What is exact: the dice, the dungeon roll, the solver's allocation, the Lair and the dragon, fleeing, the
retire XP and the three-delve win target. What is approximated: everything treasure- and power-related
listed above. The gap (the model's P(win) vs the engine's measured win rate under the policy) is in
docs/delve-optimal.md.

The table handed to the kernel (appended to the clear table, see ``kernel.dp_advice``): ``C[d, s, side, L,
lair, party]`` (P(win) if the adventurer goes on from the regroup after level L), then ``W[d, s, side]``
(P(win) at the start of delve d with score s; d = delves: the game is over).
"""

from __future__ import annotations

import functools
import os
import sys
import time
import zipfile
from fractions import Fraction
from math import factorial

import numpy as np
from numba import njit, types

from ...config import CACHE, JIT_DISABLED, CompiledOnFirstUse, _cache_dir, package_of
from . import layout as A
from .kernel import SCRATCH, _compositions, advice, dragon_need, load_units, party_rank, scratch, spend
from .ruleset import (
    R_DELVES,
    R_DRAGON_AT,
    R_DRAGON_TREASURES,
    R_DRAGON_XP,
    R_DUNGEON_DICE,
    R_DUNGEON_FACES,
    R_DUNGEON_SIDES,
    R_HERO,
    R_LEVEL_DICE,
    R_LEVELS,
    R_MASTER_AT,
    R_OPENS_ALL,
    R_PARTY_DICE,
    R_PARTY_FACES,
    R_PARTY_SIDES,
    R_RETIRE_XP,
    R_WIN_SCORE,
)
from .solver import best_fight, dragon_rows


@njit(cache=CACHE)
def party_list(total):
    """Every party of at most ``total`` dice (counts of the 6 faces), row = its ``party_rank`` (also the parties
    of the risk policy's clear table, ``odds._clear_table``)."""
    npart = _compositions(total, A.N_FACES + 1)
    out = np.zeros((npart, A.N_FACES), dtype=np.int64)
    party = np.zeros(A.N_FACES, dtype=np.int64)
    code = 0
    while code < (total + 1) ** A.N_FACES:
        x = code
        size = 0
        for f in range(A.N_FACES):
            party[f] = x % (total + 1)
            x //= total + 1
            size += party[f]
        code += 1
        if size <= total:
            out[party_rank(party, total)] = party
    return out


@njit(cache=CACHE)
def after_level(rules, side, party, g, s, o, dragon, w, opts, st, trace):
    """The party left after defeating g goblins, s skeletons, o oozes (and the dragon if ``dragon``) with the
    engine's solver and ``spend``, written into ``st``'s party; False if the level cannot be cleared."""
    st[:] = 0
    st[A.S_MASTER] = side
    st[A.S_ULT_USED] = 1  # no ultimate in the model
    for f in range(A.N_FACES):
        st[A.S_PARTY + f] = party[f]
    st[A.S_DUN] = g
    st[A.S_DUN + 1] = s
    st[A.S_DUN + 2] = o
    need = dragon_need(rules, st) if dragon else 0
    if g + s + o > 0:
        load_units(rules, st, np.int64(A.PH_MONSTER), w)
        c, ok = best_fight(w, need, opts, SCRATCH)
        if c < 0 or (dragon and ok == 0):
            return False
        spend(st, opts, SCRATCH, trace, w)
        st[A.S_DUN] = 0
        st[A.S_DUN + 1] = 0
        st[A.S_DUN + 2] = 0
    if dragon:
        load_units(rules, st, np.int64(A.PH_DRAGON), w)
        if dragon_rows(w, need, opts, 0, 1) == 0:
            return False
        spend(st, opts, 0, trace, w)
    return True


@njit(cache=CACHE)
def transitions(rules, parties, trans):
    """``trans[side, party, g, s, o, dragon]``: the rank of the party left after the level (-1: no way to
    clear it)."""
    total = rules[R_PARTY_DICE]
    nd = rules[R_DUNGEON_DICE]
    w = scratch(rules)
    opts = np.zeros((A.MAX_OPTIONS + 1, A.N_OCOLS), dtype=np.int64)
    st = np.zeros(A.STATE_SIZE, dtype=np.int64)
    trace = np.zeros((0, A.TRACE_COLS), dtype=np.int64)
    for side in range(2):
        for r in range(parties.shape[0]):
            for g in range(nd + 1):
                for s in range(nd + 1 - g):
                    for o in range(nd + 1 - g - s):
                        for dragon in range(2):
                            if after_level(rules, side, parties[r], g, s, o, dragon == 1, w, opts, st, trace):
                                trans[side, r, g, s, o, dragon] = party_rank(st[A.S_PARTY : A.S_PARTY + A.N_FACES],
                                                                             total)
                            else:
                                trans[side, r, g, s, o, dragon] = -1


@njit(cache=CACHE)
def chest_points(rules, side, party, chests):
    """Chests the party left can open (model: one per companion die, all with a die that opens every chest)."""
    if chests == 0:
        return 0
    h = R_HERO + side * A.H_COLS
    ones = 0
    for f in range(A.N_FACES):
        if party[f] == 0:
            continue
        mask = rules[h + A.H_ACT + f]
        for r in range(A.N_ROLES):
            if mask & (1 << r):
                if rules[R_OPENS_ALL + r] == 1:
                    return chests
        if mask != 0:
            ones += party[f]
    return min(chests, ones)


@njit(cache=CACHE)
def solve(rules, parties, trans, fresh, hero, cont, win):
    """Fill ``cont[d, s, side, L, lair, party]`` (P(win) going on from the regroup after level L of delve d
    with score s) and ``win[d, s, side]`` (P(win) at the start of delve d; ``win[delves]``: the game is over,
    0 for every s < target). Scores >= the target are won (value 1) and not stored. ``hero`` 1: the side
    turns master once the score reaches ``xp.master_at`` (the plain game's two sides are the same)."""
    delves = rules[R_DELVES]
    levels = rules[R_LEVELS]
    nd = rules[R_DUNGEON_DICE]
    at = rules[R_DRAGON_AT]
    target = rules[R_WIN_SCORE]
    rx = rules[R_RETIRE_XP]
    master_at = rules[R_MASTER_AT]
    dgain = rules[R_DRAGON_XP] + rules[R_DRAGON_TREASURES]
    npart = parties.shape[0]
    sides = rules[R_DUNGEON_SIDES]
    q = np.zeros(6)
    for i in range(sides):
        q[rules[R_DUNGEON_FACES + i]] += 1.0 / sides
    fact = np.ones(nd + 1)
    for i in range(1, nd + 1):
        fact[i] = fact[i - 1] * i
    # the dungeon outcomes of n dice: (probability, goblins, skeletons, oozes, chests, dragons), potions the rest
    nout = np.zeros(nd + 1, dtype=np.int64)
    outs = np.zeros((nd + 1, _compositions(nd, 6), 6))
    for n in range(nd + 1):
        k = 0
        for g in range(n + 1):
            for s_ in range(n + 1 - g):
                for o in range(n + 1 - g - s_):
                    for ch in range(n + 1 - g - s_ - o):
                        for dr in range(n + 1 - g - s_ - o - ch):
                            rest = n - g - s_ - o - ch - dr
                            pr = (fact[n] / (fact[g] * fact[s_] * fact[o] * fact[ch] * fact[dr] * fact[rest])
                                  * q[A.GOBLIN] ** g * q[A.SKELETON] ** s_ * q[A.OOZE] ** o
                                  * q[A.CHEST] ** ch * q[A.DRAGON] ** dr * q[A.POTION] ** rest)
                            if pr == 0.0:
                                continue
                            outs[n, k, 0] = pr
                            outs[n, k, 1] = g
                            outs[n, k, 2] = s_
                            outs[n, k, 3] = o
                            outs[n, k, 4] = ch
                            outs[n, k, 5] = dr
                            k += 1
        nout[n] = k
    # the points a level's chests give to the party left (its rank), by side and chest count
    maxch = nd
    chests = np.zeros((2, npart, maxch + 1), dtype=np.int64)
    for side in range(2):
        for r in range(npart):
            for ch in range(maxch + 1):
                chests[side, r, ch] = chest_points(rules, side, parties[r], ch)
    # after[side, lair, party, s2]: P(win) after a cleared level from the regroup it leads to (the better of
    # retiring and going on), by the score s2 the level left (1 from the target on), for the level being solved;
    # contiguous in s2, so that a level's outcome adds one run of it to the row of scores
    width = max(target, 1) + maxch + dgain
    after = np.ones((2, at, npart, width))
    acc = np.zeros(max(target, 1))
    for d in range(delves - 1, -1, -1):
        for lv in range(levels - 1, -1, -1):
            lv2 = lv + 1
            for side in range(2):
                for lair3 in range(at):
                    for nxt in range(npart):
                        for s2 in range(target):
                            side2 = 1 if side == 1 or (hero > 0 and s2 >= master_at) else 0
                            s3 = s2 + lv2 * rx
                            if s3 >= target:
                                v = 1.0
                            else:
                                side3 = 1 if side2 == 1 or (hero > 0 and s3 >= master_at) else 0
                                v = win[d + 1, s3, side3]
                            if lv2 < levels:
                                c = cont[d, s2, side2, lv2, lair3, nxt]
                                if c > v:
                                    v = c
                            after[side, lair3, nxt, s2] = v
            for side in range(2):
                for lair in range(at if lv > 0 else 1):
                    n = min(rules[R_LEVEL_DICE + lv], nd - lair)  # level lv + 1 rolls level_dice.(lv+1)
                    for r in range(npart):
                        acc[:] = 0.0
                        for k in range(nout[n]):
                            pr = outs[n, k, 0]
                            g = int(outs[n, k, 1])
                            s_ = int(outs[n, k, 2])
                            o = int(outs[n, k, 3])
                            ch = int(outs[n, k, 4])
                            dr = int(outs[n, k, 5])
                            lair2 = lair + dr
                            dragon = 1 if lair2 >= at else 0
                            nxt = trans[side, r, g, s_, o, dragon]
                            if nxt < 0:  # flee: the delve ends with the score it had
                                for s in range(target):
                                    acc[s] += pr * win[d + 1, s, side]
                                continue
                            gain = chests[side, nxt, ch] + dragon * dgain
                            lair3 = 0 if dragon == 1 else lair2
                            for s in range(target):  # (a score at the target or past it: 1, so pr itself)
                                acc[s] += pr * after[side, lair3, nxt, s + gain]
                        for s in range(target):
                            cont[d, s, side, lv, lair, r] = acc[s]
        for s in range(target):
            for side in range(2):
                v = 0.0
                for r in range(npart):
                    if fresh[side, r] > 0.0:
                        v += fresh[side, r] * cont[d, s, side, 0, 0, r]
                win[d, s, side] = v


def _parties(total):
    return party_list(total)


def _tables(rules, parties, trans, fresh, hero, cont, win):
    transitions(rules, parties, trans)
    solve(rules, parties, trans, fresh, hero, cont, win)


_F6 = types.float64[:, :, :, :, :, ::1]
#: The DP's entry points, built on first use (``config.CompiledOnFirstUse``: shipped as machine code with the
#: engine's, so a first ``optimal`` run computes its table without compiling the DP).
_ENTRIES = {
    "parties": CompiledOnFirstUse(__name__, types.int64[:, ::1](types.int64), _parties, part="optimal policy"),
    "tables": CompiledOnFirstUse(__name__, types.void(types.int64[::1], types.int64[:, ::1],
                                                      types.int64[:, :, :, :, :, ::1], types.float64[:, ::1],
                                                      types.int64, _F6, types.float64[:, :, ::1]),
                                 _tables, part="optimal policy"),
}


def fresh_parties(rules: np.ndarray, parties: np.ndarray) -> np.ndarray:
    """``[side, party rank]``: the chance of each freshly formed party (the hero's forming transform
    applied; the Mercenary's forming reroll is not modelled)."""
    total = int(rules[R_PARTY_DICE])
    sides = int(rules[R_PARTY_SIDES])
    q = [Fraction(0)] * A.N_FACES
    for i in range(sides):
        q[int(rules[R_PARTY_FACES + i])] += Fraction(1, sides)
    out = np.zeros((2, parties.shape[0]))
    rank = ranks(parties)
    for side in range(2):
        h = R_HERO + side * A.H_COLS
        a, b = int(rules[h + A.H_FORM_FROM]), int(rules[h + A.H_FORM_TO])
        for c in parties:
            if int(c.sum()) != total:
                continue
            p = Fraction(factorial(total))
            for k, qk in zip(c, q):
                p = p / factorial(int(k)) * qk ** int(k)
            c2 = c.copy()
            if a >= 0:
                c2[b] += c2[a]
                c2[a] = 0
            out[side, rank[tuple(c2.tolist())]] += float(p)
    return out


def ranks(parties: np.ndarray) -> dict[tuple[int, ...], int]:
    """``{party: its party_rank}`` from ``parties`` (row r is the party of rank r): Python's lookup, so that no
    jitted function is compiled for it outside the shipped entry points."""
    return {tuple(row): r for r, row in enumerate(parties.tolist())}


class Solution:
    """The DP's tables for one rules array (with its hero): ``cont``, ``win`` and the parties."""

    def __init__(self, rules: np.ndarray):
        total, nd = int(rules[R_PARTY_DICE]), int(rules[R_DUNGEON_DICE])
        self.rules = rules
        self.parties = _ENTRIES["parties"]()(total)
        trans = np.zeros((2, len(self.parties), nd + 1, nd + 1, nd + 1, 2), dtype=np.int64)
        self.trans = trans
        delves, levels, at = int(rules[R_DELVES]), int(rules[R_LEVELS]), int(rules[R_DRAGON_AT])
        self.target = int(rules[R_WIN_SCORE])
        self.cont = np.zeros((delves, max(self.target, 1), 2, levels, at, len(self.parties)))
        self.win = np.zeros((delves + 1, max(self.target, 1), 2))
        self.fresh = fresh_parties(rules, self.parties)
        _ENTRIES["tables"]()(np.ascontiguousarray(rules, dtype=np.int64), self.parties, trans, self.fresh, 1, self.cont,
                             self.win)  # (transitions, then solve)

    @functools.cached_property
    def rank(self) -> dict[tuple[int, ...], int]:
        """``{party: its row in the tables}`` (``ranks``; also for a solution read back from disk)."""
        return ranks(self.parties)

    def p_win(self) -> float:
        """The model's P(win) of a whole game under the optimal policy (score 0, novice side, delve 1)."""
        return 1.0 if self.target <= 0 else float(self.win[0, 0, 0])

    def retire_value(self, delve: int, score: int, side: int, level: int) -> float:
        """P(win) if the adventurer retires after ``level`` of ``delve`` (1-based) with ``score``."""
        s = score + level * int(self.rules[R_RETIRE_XP])
        if s >= self.target:
            return 1.0
        if int(self.rules[R_MASTER_AT]) <= s:
            side = 1
        return float(self.win[delve, s, side])

    def go_value(self, delve: int, score: int, side: int, level: int, lair: int, party) -> float:
        """P(win) if the adventurer goes on after ``level`` of ``delve`` (1-based) with ``party`` in hand."""
        if score >= self.target:
            return 1.0
        r = self.rank[tuple(int(k) for k in party)]
        return float(self.cont[delve - 1, score, side, level, lair, r])

    def retires(self, delve: int, score: int, side: int, level: int, lair: int, party) -> bool:
        """The optimal decision at a regroup (ties retire)."""
        if level >= int(self.rules[R_LEVELS]):
            return True
        return self.retire_value(delve, score, side, level) >= self.go_value(delve, score, side, level, lair, party)


_SOLUTIONS: dict[bytes, Solution] = {}
#: What a solution stores on disk (the rules array is its key).
_SAVED = ("parties", "trans", "cont", "win", "fresh")


def disk_path(rules: np.ndarray, folder: str = "dp") -> str | None:
    """Where the tables of ``rules`` are kept between processes: a file in ``folder`` of the Delve kernels' cache
    folder, which is keyed by the sources (a change to the DP or the engine starts afresh); None when the cache is
    off or numba is (the un-jitted run recomputes, so it checks the same numbers). ``folder``: ``dp`` (this
    module's tables), ``odds`` (``odds.clear_table``)."""
    if not CACHE or JIT_DISABLED:
        return None
    import hashlib

    key = hashlib.sha256(str(rules.dtype).encode() + rules.tobytes()).hexdigest()[:32]
    return os.path.join(_cache_dir(package_of(__name__)), folder, f"{key}.npz")


#: The entry of a kept file that names the integer arrays stored narrower than their own type (``name=dtype``).
_DTYPES = "_dtypes"
#: At most this many files in a folder of kept tables (one a rules array and hero: about 6 MB for the DP, 0.3 MB
#: for a clear table); past it the least recently used are removed (a sweep over many rulesets stays bounded).
KEEP_FILES = 64


def kept_arrays(path: str | None, names: tuple[str, ...]) -> dict[str, np.ndarray] | None:
    """The arrays ``names`` of a file written by ``keep_arrays``, each in its own type again; None if there is
    none or it is damaged (the caller computes them again and rewrites the file)."""
    if path is None or not os.path.isfile(path):
        return None
    try:
        os.utime(path)  # recently used: the last to be removed (``keep_arrays``)
    except OSError:
        pass
    try:
        with np.load(path) as z:
            own = dict(t.split("=", 1) for t in z[_DTYPES].tolist()) if _DTYPES in z.files else {}
            return {k: z[k].astype(own[k]) if k in own else z[k] for k in names}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None


def _narrow(a: np.ndarray) -> np.ndarray:
    """An integer array in the narrowest signed type that holds its values (the same values); others as they are."""
    if a.dtype.kind not in "iu" or a.size == 0:
        return a
    lo, hi = int(a.min()), int(a.max())
    for t in (np.int8, np.int16, np.int32, np.int64):
        if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max:
            return a if np.dtype(t).itemsize >= a.dtype.itemsize else a.astype(t)
    return a


def _prune(folder: str) -> None:
    """Remove the least recently used ``.npz`` files of ``folder`` beyond the newest ``KEEP_FILES``."""
    try:
        with os.scandir(folder) as it:
            files = [(e.stat().st_mtime, e.path) for e in it if e.name.endswith(".npz") and e.is_file()]
    except OSError:
        return
    for _, old in sorted(files, reverse=True)[KEEP_FILES:]:
        try:
            os.remove(old)
        except OSError:
            pass


def keep_arrays(path: str | None, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` atomically (a temporary file renamed: a second process reads a whole file or
    none), zlib-compressed and each integer array in the narrowest type that holds it (``kept_arrays`` gives
    back its own type): the DP of one rules array is 4-6 MB on disk, not 68 MB. The folder keeps the
    ``KEEP_FILES`` most recently used files. A read-only or full cache folder only leaves them unkept."""
    if path is None:
        return
    stored = {k: _narrow(a) for k, a in arrays.items()}
    own = [f"{k}={a.dtype.str}" for k, a in arrays.items() if stored[k].dtype != a.dtype]
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **stored, **{_DTYPES: np.array(own, dtype=str)})
        os.replace(tmp, path)
        _prune(os.path.dirname(path))
    except OSError:
        try:
            os.remove(tmp)
        except OSError:
            pass


def _load(rules: np.ndarray, path: str | None) -> Solution | None:
    arrays = kept_arrays(path, _SAVED)
    if arrays is None:
        return None
    sol = Solution.__new__(Solution)
    sol.rules, sol.target = rules, int(rules[R_WIN_SCORE])
    for k, v in arrays.items():
        setattr(sol, k, v)
    return sol


def _save(sol: Solution, path: str | None) -> None:
    keep_arrays(path, {k: getattr(sol, k) for k in _SAVED})


def solution(rules: np.ndarray, note: bool = True) -> Solution:
    """The DP for a rules array (with its hero), computed once per process and kept on disk beside the Delve
    kernels (``disk_path``); a note on stderr if computing it took more than two seconds."""
    key = rules.tobytes()
    if key not in _SOLUTIONS:
        path = disk_path(rules)
        sol = _load(rules, path)
        if sol is None:
            t0 = time.perf_counter()
            sol = Solution(rules)
            dt = time.perf_counter() - t0
            if note and dt > 2.0:
                print(f"delve optimal policy: dynamic programming table computed in {dt:.1f} s", file=sys.stderr)
            _save(sol, path)
        _SOLUTIONS[key] = sol
    return _SOLUTIONS[key]


def dp_table(rules: np.ndarray) -> np.ndarray:
    """The kernel's part of the table (appended after ``odds.clear_table``): ``cont`` then ``win``, flat, as the
    kernel reads them (``kernel.advice``)."""
    sol = solution(rules)
    return np.concatenate([advice(sol.cont.ravel()), advice(sol.win.ravel())])
