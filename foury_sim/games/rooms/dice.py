"""Rooms' combat dice: the combo recognisers, the exact reroll programme, and the ``greedy`` heuristic.

A hero rolls ``combat.dice`` (5) identical dice of six faces, up to ``combat.rolls`` (3) times, keeping any
subset between rolls, then fires one ability the final dice make (docs/rules-rooms.md, "Combat dice").

* **Outcomes.** A roll is a multiset of face *indices* (0..5, the sheet's order), not of numbers: two faces
  with the same number but different symbols differ. Five dice give C(10, 5) = 252 outcomes (``Space``),
  stored as face counts; an outcome's dice are its faces in ascending order, and a *keep mask* (5 bits, 32
  subsets) names the kept positions of that sorted list.
* **Transitions.** Keeping a sub-multiset K of an outcome and rerolling the other m dice gives outcome o with
  probability m! / prod(r_f!) / 6^m, r = o - K (``Space.numer``/``Space.denom``: exact integers).
* **The programme.** For an objective v(o) on the final dice (1 if ability a is made, else 0; or the damage of
  the best ability made), V_0 = v and V_r(o) = max over the distinct K in o of sum_o' T[K, o'] V_{r-1}(o'):
  the best expected objective with r rerolls left. P(ability within 3 rolls) = sum_o T[{}, o] V_2(o). The argmax
  is stored as a canonical keep mask (keep the first dice of each face's run) per (objective, rerolls left,
  outcome); ties go to keeping more dice (then the first kept multiset in lexicographic order), so "keep all"
  = stop. Tables cover 0..``layout.MAX_REROLLS`` rerolls (bought rerolls included).
* **Greedy.** ``greedy_keep`` keeps the dice of the best partial combo (named parameters ``GREEDY_PARAMS``);
  its exact odds come from the same transition matrix (policy evaluation), so the gap to the optimum is exact.

The recognisers, the greedy keep, the table lookup and the Monte Carlo turn are ``@njit`` (the future kernel
calls them per game); the programme itself is numpy over the 462 x 252 transition matrix: 3-40 ms per hero, after
the outcome space is built once per process (about 0.8 s).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from dataclasses import dataclass
from math import factorial

import numpy as np
from numba import njit, types

from ...config import CACHE, CompiledOnFirstUse, use_cache
from ...errors import InputError, did_you_mean
from ...rng import roll, seed_stream
from . import layout as L
from .ruleset import DiceRules, HeroSheet, load_heroes

#: The code of a face-count vector: sum counts[f] * BASE**f (counts are 0..MAX_DICE).
BASE = L.MAX_DICE + 1
N_CODES = BASE**L.N_FACES
#: ``greedy``'s named parameters (float64 array in this order) and defaults.
#: Defaults: the pair with the smallest summed damage gap to the optimum over the four shipped heroes on a grid
#: (stop_at 0.3..1.0, progress_power 0.5..3; docs/rules-rooms.md).
GREEDY_PARAMS = {"stop_at": 0.7, "progress_power": 1.0}
G_STOP_AT, G_PROGRESS_POWER = range(2)
#: Objective index of "damage per turn" in the tables: after the abilities (objective a < n_abilities: ability a).
OBJ_DAMAGE = -1


def _jit(fn):
    """``njit`` with the on-disk cache keyed by this game package's sources (``config.use_cache``), without numba's
    reference counting (``_nrt=False``, as ``combat._jit``: these functions allocate nothing)."""
    with use_cache(f"{__package__}.dice"):  # __name__ is "__main__" under python -m
        return njit(cache=CACHE, _nrt=False)(fn)


def _jit_alloc(fn):
    """``_jit`` for the functions that allocate their scratch (numba's runtime on)."""
    with use_cache(f"{__package__}.dice"):
        return njit(cache=CACHE)(fn)


# ----------------------------------------------------------------------------- recognisers --
@_jit
def number_count(faces, counts, v):
    """Dice showing number ``v``."""
    s = 0
    for f in range(L.N_FACES):
        if faces[f, L.F_NUMBER] == v:
            s += counts[f]
    return s


@_jit
def symbol_count(faces, counts, sym):
    """Dice showing symbol ``sym`` (an index into the hero's symbols)."""
    s = 0
    for f in range(L.N_FACES):
        if faces[f, L.F_SYMBOL] == sym:
            s += counts[f]
    return s


@_jit
def _run(faces, counts, length):
    """Whether ``length`` numbers in a row (1..6) all show on some die."""
    for start in range(1, 8 - length):
        ok = True
        for v in range(start, start + length):
            if number_count(faces, counts, v) == 0:
                ok = False
                break
        if ok:
            return True
    return False


@_jit
def _groups(faces, counts, big, small, same_ok):
    """Whether one number shows on ``big`` dice and another on ``small`` (full house 3+2, two pair 2+2); with
    ``same_ok``, one number on ``big + small`` dice counts too (``[rulings]``)."""
    for v in range(1, 7):
        c = number_count(faces, counts, v)
        if same_ok == 1 and c >= big + small:
            return True
        if c >= big:
            for w in range(1, 7):
                if w != v and number_count(faces, counts, w) >= small:
                    return True
    return False


@_jit
def need_met(faces, kind, a, b, counts):
    """Whether the dice (face ``counts``) make one requirement (combo ``kind`` with parameters a, b)."""
    if kind == L.CK_KIND:
        for v in range(1, 7):
            if number_count(faces, counts, v) >= a:
                return True
        return False
    if kind == L.CK_SMALL_STRAIGHT:
        return _run(faces, counts, np.int64(4))
    if kind == L.CK_LARGE_STRAIGHT:
        return _run(faces, counts, np.int64(5))
    if kind == L.CK_FULL_HOUSE:
        return _groups(faces, counts, np.int64(3), np.int64(2), a)
    if kind == L.CK_TWO_PAIR:
        return _groups(faces, counts, np.int64(2), np.int64(2), a)
    if kind == L.CK_SYMBOL:
        return symbol_count(faces, counts, a) >= b
    return False


@_jit
def ability_made(faces, abilities, ab, counts):
    """Whether the dice make every requirement of ability ``ab``."""
    for q in range(abilities[ab, L.AB_N_REQ]):
        c = L.AB_REQ + q * L.RQ_COLS
        if not need_met(faces, abilities[ab, c + L.RQ_KIND], abilities[ab, c + L.RQ_A], abilities[ab, c + L.RQ_B],
                        counts):
            return False
    return True


@_jit
def ability_damage(abilities, ab):
    """What the damage objective counts of an ability: damage + unblockable."""
    return abilities[ab, L.AB_EFFECT + L.E_DAMAGE] + abilities[ab, L.AB_EFFECT + L.E_UNBLOCKABLE]


@_jit
def best_fire(faces, abilities, counts):
    """The ability with the most damage the dice make (the first on the sheet among equals); -1 if none."""
    best = -1
    best_d = -1
    for ab in range(abilities.shape[0]):
        d = ability_damage(abilities, ab)
        if d > best_d and ability_made(faces, abilities, ab, counts):
            best = ab
            best_d = d
    return best


# ------------------------------------------------------------------------------ the greedy --
@_jit
def _top_number(faces, counts, skip):
    """The number shown on most dice (the higher among equals), other than ``skip``; and its count."""
    best = 0
    best_c = -1
    for v in range(1, 7):
        if v == skip:
            continue
        c = number_count(faces, counts, v)
        if c >= best_c:
            best = v
            best_c = c
    return best, best_c


@_jit
def _keep_number(faces, counts, v, n, keep):
    """Add up to ``n`` dice showing number ``v`` to ``keep`` (face counts; a union: the larger count)."""
    left = n
    for f in range(L.N_FACES):
        if faces[f, L.F_NUMBER] == v and left > 0:
            take = min(counts[f], left)
            keep[f] = max(keep[f], take)
            left -= take


@_jit
def need_progress(faces, kind, a, b, counts, keep):
    """How far the dice are toward one requirement (0..1), adding the dice worth keeping for it to ``keep``:
    n of a kind: the most common number; straights: one die of each number of the fullest window; full house
    and two pair: the two most common numbers (3 + 2, 2 + 2); k of a symbol: the dice showing it."""
    if kind == L.CK_KIND:
        v, c = _top_number(faces, counts, np.int64(0))
        _keep_number(faces, counts, v, a, keep)
        return min(c, a) / a
    if kind == L.CK_SMALL_STRAIGHT or kind == L.CK_LARGE_STRAIGHT:
        length = 4 if kind == L.CK_SMALL_STRAIGHT else 5
        best_s = 1
        best_n = -1
        for s in range(1, 8 - length):
            n = 0
            for v in range(s, s + length):
                if number_count(faces, counts, v) > 0:
                    n += 1
            if n > best_n:
                best_s = s
                best_n = n
        for v in range(best_s, best_s + length):
            _keep_number(faces, counts, v, np.int64(1), keep)
        return best_n / length
    if kind == L.CK_FULL_HOUSE or kind == L.CK_TWO_PAIR:
        big = 3 if kind == L.CK_FULL_HOUSE else 2
        v, c = _top_number(faces, counts, np.int64(0))
        w, d = _top_number(faces, counts, v)
        _keep_number(faces, counts, v, big, keep)
        _keep_number(faces, counts, w, np.int64(2), keep)
        return (min(c, big) + min(d, 2)) / (big + 2)
    if kind == L.CK_SYMBOL:
        left = b
        for f in range(L.N_FACES):
            if faces[f, L.F_SYMBOL] == a and left > 0:
                take = min(counts[f], left)
                keep[f] = max(keep[f], take)
                left -= take
        return min(symbol_count(faces, counts, a), b) / b
    return 0.0


@_jit
def ability_progress(faces, abilities, ab, counts, keep):
    """The product of the progress of each requirement of ``ab``; ``keep`` gets the union of their dice."""
    p = 1.0
    for q in range(abilities[ab, L.AB_N_REQ]):
        c = L.AB_REQ + q * L.RQ_COLS
        p *= need_progress(faces, abilities[ab, c + L.RQ_KIND], abilities[ab, c + L.RQ_A], abilities[ab, c + L.RQ_B],
                           counts, keep)
    return p


@_jit
def keep_mask(counts, keep):
    """The canonical keep mask (bits of the sorted dice) keeping ``keep[f]`` dice of face f: the first of each run."""
    mask = 0
    pos = 0
    for f in range(L.N_FACES):
        for j in range(counts[f]):
            if j < keep[f]:
                mask |= 1 << pos
            pos += 1
    return mask


@_jit
def greedy_keep(faces, abilities, target, counts, params, keep):
    """The ``greedy`` heuristic's keep mask: chase one ability, keep the dice of its best partial combo.

    ``target`` >= 0 chases that ability (keep everything once it is made). ``target`` = -1 (damage): stop if an
    ability worth >= ``stop_at`` x the sheet's best damage is made; else chase the ability with the most
    damage x progress ** ``progress_power`` (a made one has progress 1: then stop). ``keep`` is scratch (int64[6]).
    """
    n = 0
    for f in range(L.N_FACES):
        keep[f] = 0
        n += counts[f]
    full = (1 << n) - 1
    if target >= 0:
        if ability_made(faces, abilities, target, counts):
            return full
        ability_progress(faces, abilities, target, counts, keep)
        return keep_mask(counts, keep)
    top = 0
    for ab in range(abilities.shape[0]):
        top = max(top, ability_damage(abilities, ab))
    fired = best_fire(faces, abilities, counts)
    if fired >= 0 and ability_damage(abilities, fired) >= params[G_STOP_AT] * top:
        return full
    chase = np.int64(-1)
    score = -1.0
    for ab in range(abilities.shape[0]):
        for f in range(L.N_FACES):
            keep[f] = 0
        p = ability_progress(faces, abilities, ab, counts, keep)
        s = ability_damage(abilities, ab) * p ** params[G_PROGRESS_POWER]
        if s > score:
            chase = ab
            score = s
    for f in range(L.N_FACES):
        keep[f] = 0
    if ability_made(faces, abilities, chase, counts):
        return full
    ability_progress(faces, abilities, chase, counts, keep)
    return keep_mask(counts, keep)


# ----------------------------------------------------------------------- outcomes and tables --
@_jit
def counts_code(counts):
    c = 0
    m = 1
    for f in range(L.N_FACES):
        c += counts[f] * m
        m *= BASE
    return c


@_jit
def sort_dice(dice, n):
    """Sort the first ``n`` dice (face indices) ascending, in place (insertion sort: n <= 5)."""
    for i in range(1, n):
        x = dice[i]
        j = i - 1
        while j >= 0 and dice[j] > x:
            dice[j + 1] = dice[j]
            j -= 1
        dice[j + 1] = x


@_jit
def dice_counts(dice, n, counts):
    for f in range(L.N_FACES):
        counts[f] = 0
    for i in range(n):
        counts[dice[i]] += 1


@_jit
def table_keep(keep_table, obj, rerolls_left, counts, code_index):
    """The ``optimal_reroll`` lookup: the keep mask of objective ``obj`` with ``rerolls_left`` for these dice."""
    return keep_table[obj, rerolls_left, code_index[counts_code(counts)]]


@_jit
def roll_unkept(rs, script, dice, n, mask):
    """Reroll the dice of the sorted ``dice`` whose bit is not in ``mask``; sort again."""
    for i in range(n):
        if not (mask >> i) & 1:
            dice[i] = roll(rs, script, L.N_FACES) - 1
    sort_dice(dice, n)


@_jit
def play_turn(rs, script, n, rerolls, faces, abilities, obj, keep_table, code_index, use_greedy, params, dice,
              counts, keep):
    """One offensive roll: roll ``n`` dice, then up to ``rerolls`` rerolls, each keeping what the policy says
    (the table ``keep_table[obj]`` or, with ``use_greedy``, ``greedy_keep`` for target ``obj``); a policy that
    keeps every die stops. Leaves the final dice in ``dice`` and their face counts in ``counts``."""
    for i in range(n):
        dice[i] = roll(rs, script, L.N_FACES) - 1
    sort_dice(dice, n)
    full = (1 << n) - 1
    for r in range(rerolls, 0, -1):
        dice_counts(dice, n, counts)
        if use_greedy:
            mask = greedy_keep(faces, abilities, obj, counts, params, keep)
        else:
            mask = table_keep(keep_table, obj if obj >= 0 else keep_table.shape[0] - 1, r, counts, code_index)
        if mask == full:
            break
        roll_unkept(rs, script, dice, n, mask)
    dice_counts(dice, n, counts)


@_jit_alloc
def simulate_turns(seed, start, count, n, rerolls, faces, abilities, obj, keep_table, code_index, use_greedy, params,
                   script, out):
    """Monte Carlo of ``count`` turns, turn g on the dice stream (seed, start + g): ``out[g]`` = 1.0 if ability
    ``obj`` is made (obj >= 0), or the damage of the best ability made (obj = -1)."""
    rs = np.zeros(4, dtype=np.uint64)
    dice = np.zeros(L.MAX_DICE, dtype=np.int64)
    counts = np.zeros(L.N_FACES, dtype=np.int64)
    keep = np.zeros(L.N_FACES, dtype=np.int64)
    for g in range(count):
        seed_stream(rs, np.uint64(seed), np.uint64(start + g))
        play_turn(rs, script, n, rerolls, faces, abilities, obj, keep_table, code_index, use_greedy, params, dice,
                  counts, keep)
        if obj >= 0:
            out[g] = 1.0 if ability_made(faces, abilities, obj, counts) else 0.0
        else:
            ab = best_fire(faces, abilities, counts)
            out[g] = ability_damage(abilities, ab) if ab >= 0 else 0.0


@_jit
def classify(faces, abilities, outs, made, fire, damage):
    """For every outcome: which abilities it makes, the one fired for most damage, and that damage."""
    for o in range(outs.shape[0]):
        c = outs[o]
        for ab in range(abilities.shape[0]):
            made[ab, o] = ability_made(faces, abilities, ab, c)
        fire[o] = best_fire(faces, abilities, c)
        damage[o] = ability_damage(abilities, fire[o]) if fire[o] >= 0 else 0.0


@_jit_alloc
def greedy_masks(faces, abilities, target, outs, params, masks):
    """``greedy_keep``'s mask for every outcome (the heuristic ignores how many rerolls are left)."""
    keep = np.zeros(L.N_FACES, dtype=np.int64)
    for o in range(outs.shape[0]):
        masks[o] = greedy_keep(faces, abilities, target, outs[o], params, keep)


def _choice_masks(outs, kept, choice_kept, choice_mask):
    """``choice_mask[o, j]``: ``keep_mask`` of outcome o keeping ``kept[choice_kept[o, j]]`` (j while >= 0)."""
    for o in range(outs.shape[0]):
        for j in range(choice_kept.shape[1]):
            k = choice_kept[o, j]
            if k < 0:
                break
            choice_mask[o, j] = keep_mask(outs[o], kept[k])


def _tables(faces, abilities, outs, params, made, fire, damage, greedy):
    """``classify`` of every outcome, then ``greedy_masks`` of every objective (``greedy[j]``; the last row: the
    damage objective): the jitted half of ``hero_odds``."""
    classify(faces, abilities, outs, made, fire, damage)
    n_ab = abilities.shape[0]
    for j in range(n_ab + 1):
        greedy_masks(faces, abilities, j if j < n_ab else OBJ_DAMAGE, outs, params, greedy[j])


_I1, _I2 = types.int64[::1], types.int64[:, ::1]
#: The exact tables' entry points (``hero_odds``, ``space``), built on first use (``config.CompiledOnFirstUse``:
#: shipped as machine code with the engine's, so a first run compiles nothing).
_ENTRIES = {
    "choice_masks": CompiledOnFirstUse(f"{__package__}.dice", types.void(_I2, _I2, _I2, _I2), _choice_masks,
                                       part="dice tables (keep masks)"),
    "tables": CompiledOnFirstUse(
        f"{__package__}.dice",
        types.void(_I2, _I2, _I2, types.float64[::1], types.boolean[:, ::1], _I1, types.float64[::1], _I2), _tables,
        part="dice tables (abilities, greedy keeps)"),
}


def sorted_dice(size: int) -> np.ndarray:
    """Every multiset of ``size`` face indices as its sorted dice (int64[n, size]), in lexicographic order."""
    rows = list(itertools.combinations_with_replacement(range(L.N_FACES), size))
    return np.array(rows, dtype=np.int64).reshape(len(rows), size)


def multisets(size: int) -> np.ndarray:
    """Every multiset of ``size`` face indices as face counts, in lexicographic order of the sorted dice."""
    return (sorted_dice(size)[:, :, None] == np.arange(L.N_FACES)).sum(axis=1, dtype=np.int64)


def _codes(counts: np.ndarray) -> np.ndarray:
    return counts @ (BASE ** np.arange(L.N_FACES, dtype=np.int64))


def multinomials(counts: np.ndarray) -> np.ndarray:
    """Orderings of each multiset (rows of face counts r): sum(r)! / prod(r_f!) (int64: at most 5 dice)."""
    fact = np.array([factorial(k) for k in range(L.MAX_DICE + 1)], dtype=np.int64)
    out = fact[counts.sum(axis=1)]
    for f in range(counts.shape[1]):
        out //= fact[counts[:, f]]
    return out


@dataclass(frozen=True)
class Space:
    """The outcomes of ``n_dice`` dice and the exact keep-and-reroll transitions between them."""

    n_dice: int
    outs: np.ndarray  # int64[n_out, 6]: face counts of each outcome
    code_index: np.ndarray  # int64[N_CODES]: outcome index of a counts code (-1: not an outcome)
    kept: np.ndarray  # int64[n_kept, 6]: every multiset of 0..n_dice faces (what a keep leaves), by size
    kept_index: np.ndarray  # int64[N_CODES]: kept index of a counts code
    numer: np.ndarray  # int64[n_kept, n_out]: orderings of the reroll that turn kept K into outcome o
    denom: np.ndarray  # int64[n_kept]: 6 ** (dice rerolled)
    prob: np.ndarray  # float64[n_kept, n_out] = numer / denom
    mask_kept: np.ndarray  # int64[n_out, 32]: kept index of each keep mask of each outcome (-1: mask too wide)
    choice_kept: np.ndarray  # int64[n_out, 32]: the distinct keeps of each outcome (keep all first), -1 padded
    choice_mask: np.ndarray  # int64[n_out, 32]: their canonical masks

    @property
    def n_out(self) -> int:
        return self.outs.shape[0]


_SPACES: dict[int, Space] = {}


def space(n_dice: int = L.MAX_DICE) -> Space:
    """The outcome space of ``n_dice`` (1..5) dice (built once per process, a few ms: ``tests/test_rooms_dice.py``
    checks it against the loop over every keep and reroll it replaces)."""
    if n_dice in _SPACES:
        return _SPACES[n_dice]
    if not 1 <= n_dice <= L.MAX_DICE:
        raise ValueError(f"n_dice must be 1..{L.MAX_DICE}")
    by_size = [multisets(k) for k in range(n_dice + 1)]
    outs = by_size[n_dice]
    kept = np.concatenate(by_size)
    code_index = np.full(N_CODES, -1, dtype=np.int64)
    code_index[_codes(outs)] = np.arange(len(outs))
    kept_index = np.full(N_CODES, -1, dtype=np.int64)
    kept_index[_codes(kept)] = np.arange(len(kept))
    numer = np.zeros((len(kept), len(outs)), dtype=np.int64)
    m_kept = n_dice - kept.sum(axis=1)  # dice rerolled after each keep
    denom = L.N_FACES**m_kept
    # keep K then reroll r: the outcome K + r, whose code is K's plus r's (codes are linear in the counts); for one
    # K the rerolls give different outcomes, so each row is set by one fancy-index add
    rerolls = [(_codes(r), multinomials(r)) for r in by_size]
    kept_codes = _codes(kept)
    for k in range(len(kept)):
        r_codes, r_ways = rerolls[m_kept[k]]
        numer[k, code_index[kept_codes[k] + r_codes]] += r_ways
    # the kept multiset of each keep mask of each outcome: bit i keeps the outcome's i-th die (sorted), so its code
    # is the sum of BASE ** face over the dice the mask keeps
    masks = np.arange(1 << n_dice)
    keeps = (masks[:, None] >> np.arange(n_dice)) & 1  # int64[2**n_dice, n_dice]
    mask_kept = np.full((len(outs), L.N_MASKS), -1, dtype=np.int64)
    mask_kept[:, : 1 << n_dice] = kept_index[(BASE ** sorted_dice(n_dice)) @ keeps.T]
    choice_kept = np.full((len(outs), L.N_MASKS), -1, dtype=np.int64)
    choice_mask = np.full((len(outs), L.N_MASKS), -1, dtype=np.int64)
    size = kept.sum(axis=1).tolist()
    for o in range(len(outs)):
        distinct = sorted(set(mask_kept[o, : 1 << n_dice].tolist()), key=lambda k: (-size[k], k))
        for j, k in enumerate(distinct):
            choice_kept[o, j] = k
    _ENTRIES["choice_masks"]()(outs, kept, choice_kept, choice_mask)
    s = Space(n_dice, outs, code_index, kept, kept_index, numer, denom, numer / denom[:, None], mask_kept,
              choice_kept, choice_mask)
    _SPACES[n_dice] = s
    return s


def optimise(sp: Space, final: np.ndarray, max_rerolls: int) -> tuple[np.ndarray, np.ndarray]:
    """The reroll programme for objective ``final`` (float[n_out], its value on the final dice): the best expected
    value V[r, o] with r = 0..max_rerolls rerolls left, and the keep mask reaching it (r = 0: keep all)."""
    n_out = sp.n_out
    value = np.zeros((max_rerolls + 1, n_out))
    masks = np.full((max_rerolls + 1, n_out), (1 << sp.n_dice) - 1, dtype=np.int64)
    value[0] = final
    valid = sp.choice_kept >= 0
    rows = np.arange(n_out)
    for r in range(1, max_rerolls + 1):
        w = sp.prob @ value[r - 1]
        cand = np.where(valid, w[np.maximum(sp.choice_kept, 0)], -np.inf)
        best = cand.max(axis=1)
        pick = np.argmax(cand >= best[:, None] - 1e-12, axis=1)  # the first choice within rounding of the best
        value[r] = cand[rows, pick]
        masks[r] = sp.choice_mask[rows, pick]
    return value, masks


def evaluate(sp: Space, final: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The exact expected value of a fixed keep table ``masks[r, o]`` (policy evaluation): V[r, o]."""
    value = np.zeros(masks.shape)
    value[0] = final
    rows = np.arange(sp.n_out)
    for r in range(1, masks.shape[0]):
        value[r] = (sp.prob @ value[r - 1])[sp.mask_kept[rows, masks[r]]]
    return value


def first_roll(sp: Space) -> np.ndarray:
    """P(outcome) of the first roll (keep nothing)."""
    return sp.prob[0]


@dataclass
class HeroOdds:
    """One hero's exact tables. Objective j < n_abilities: make ability j; j = n_abilities: damage per turn.

    ``keep[j, r, o]``: the optimal keep mask with r rerolls left (what ``optimal_reroll`` looks up);
    ``value[j, r, o]``: its P(made) or expected damage; ``greedy_*``: the same for ``greedy``."""

    hero: HeroSheet
    space: Space
    made: np.ndarray  # bool[n_abilities, n_out]
    fire: np.ndarray  # int64[n_out]: the ability fired for most damage, -1 if none
    damage: np.ndarray  # float64[n_out]
    keep: np.ndarray  # int64[n_obj, R + 1, n_out]
    value: np.ndarray
    greedy_keep: np.ndarray
    greedy_value: np.ndarray
    seconds: float

    def p(self, obj: int, rolls: int, greedy: bool = False) -> float:
        """P(ability ``obj`` made) or expected damage (obj = -1) within ``rolls`` rolls (1 + rerolls)."""
        v = self.greedy_value if greedy else self.value
        return float(first_roll(self.space) @ v[obj, rolls - 1])


def hero_odds(hero: HeroSheet, n_dice: int = L.MAX_DICE, params: np.ndarray | None = None) -> HeroOdds:
    """The exact reroll programme of every ability of ``hero`` and of its damage per turn, optimal and greedy."""
    t0 = time.perf_counter()
    sp = space(n_dice)
    n_ab = hero.abilities.shape[0]
    made = np.zeros((n_ab, sp.n_out), dtype=np.bool_)
    fire = np.zeros(sp.n_out, dtype=np.int64)
    damage = np.zeros(sp.n_out)
    pars = np.array(list(GREEDY_PARAMS.values())) if params is None else params
    gm = np.zeros((n_ab + 1, sp.n_out), dtype=np.int64)
    _ENTRIES["tables"]()(hero.faces, hero.abilities, sp.outs, np.ascontiguousarray(pars, dtype=np.float64), made, fire,
                         damage, gm)
    shape = (n_ab + 1, L.MAX_REROLLS + 1, sp.n_out)
    keep = np.zeros(shape, dtype=np.int64)
    value = np.zeros(shape)
    g_keep = np.zeros(shape, dtype=np.int64)
    g_value = np.zeros(shape)
    for j in range(n_ab + 1):
        final = made[j].astype(np.float64) if j < n_ab else damage
        value[j], keep[j] = optimise(sp, final, L.MAX_REROLLS)
        g_keep[j] = gm[j]
        g_keep[j, 0] = (1 << n_dice) - 1
        g_value[j] = evaluate(sp, final, g_keep[j])
    return HeroOdds(hero, sp, made, fire, damage, keep, value, g_keep, g_value, time.perf_counter() - t0)


# ------------------------------------------------------------------------------- the report --
def odds_lines(rules: DiceRules, hero_key: str) -> list[str]:
    """Per ability of the hero: exact P(made) on one roll, within ``combat.rolls`` rolls under the optimal and the
    greedy policy, and with the bought rerolls; then the expected damage per turn (max-damage objective)."""
    if hero_key not in rules.heroes:
        raise InputError(f"unknown hero {hero_key!r} ({did_you_mean(hero_key, rules.heroes)}known: "
                         f"{', '.join(rules.heroes)})", "--hero")
    h = rules.heroes[hero_key]
    od = hero_odds(h, rules.dice)
    rolls = rules.rolls
    extra = rolls + int(rules.combat[L.C_MAX_BOUGHT])
    w = max(len(n) for n in h.ability_names)
    cw = max(len(h.combo_text(a)) for a in range(len(h.ability_names)))
    head = (f"{'ability':<{w}}  {'combo':<{cw}}  {'1 roll':>7}  {f'{rolls} opt':>7}  {f'{rolls} greedy':>9}  "
            f"{'gap':>6}  {f'{extra} opt':>7}  effects")
    lines = [f"{h.name} ({hero_key}): {rules.dice} dice, faces "
             + " ".join(f"{n}{'/' + h.symbols[s] if s >= 0 else ''}" for n, s in h.faces),
             f"exact P(made) within the rolls (opt: the reroll policy maximising that ability's chance; greedy: "
             f"keep the best partial combo; {extra}: with {extra - rolls} bought reroll(s))",
             head, "-" * len(head)]
    for a, name in enumerate(h.ability_names):
        p1, po, pg, px = od.p(a, 1), od.p(a, rolls), od.p(a, rolls, greedy=True), od.p(a, extra)
        lines.append(f"{name:<{w}}  {h.combo_text(a):<{cw}}  {p1:7.2%}  {po:7.2%}  {pg:9.2%}  {po - pg:6.2%}  "
                     f"{px:7.2%}  {h.effect_text(a)}")
    d1, do, dg, dx = od.p(-1, 1), od.p(-1, rolls), od.p(-1, rolls, greedy=True), od.p(-1, extra)
    lines.append(f"{'damage/turn':<{w}}  {'best ability made':<{cw}}  {d1:7.3f}  {do:7.3f}  {dg:9.3f}  "
                 f"{do - dg:6.3f}  {dx:7.3f}  (damage + unblockable of the ability fired; max-damage policy)")
    # which ability the max-damage policy ends up firing (exact distribution over the final dice)
    sp = od.space
    dist = first_roll(sp).copy()
    rows = np.arange(sp.n_out)
    for r in range(rolls - 1, 0, -1):
        dist = dist @ sp.prob[sp.mask_kept[rows, od.keep[-1, r]]]
    shares = [float(dist[od.fire == a].sum()) for a in range(len(h.ability_names))]
    lines.append(defence_line(h))
    fired = ", ".join(f"{n} {s:.1%}" for n, s in zip(h.ability_names, shares, strict=True))
    lines.append(f"fired under the max-damage policy: {fired}, nothing {dist[od.fire < 0].sum():.1%}")
    return lines


def sum_distribution(n: int, per_face: np.ndarray) -> np.ndarray:
    """The exact distribution of the sum of ``n`` fair dice whose face f is worth ``per_face[f]`` (P[total])."""
    dist = np.zeros(1)
    dist[0] = 1.0
    for _ in range(n):
        nxt = np.zeros(len(dist) + int(per_face.max()))
        for v in per_face:
            nxt[int(v): int(v) + len(dist)] += dist / len(per_face)
        dist = nxt
    return dist


def defence_line(h: HeroSheet) -> str:
    """The hero's defensive roll in numbers: expected block and counter, P(nothing blocked)."""
    n = int(h.row[L.H_DEF_DICE])
    block = sum_distribution(n, h.row[L.H_DEF_BLOCK: L.H_DEF_BLOCK + L.N_FACES])
    counter = sum_distribution(n, h.row[L.H_DEF_COUNTER: L.H_DEF_COUNTER + L.N_FACES])
    mean = float(np.arange(len(block)) @ block)
    dice = "die" if n == 1 else "dice"
    return (f"defensive roll: {n} {dice}, expected block {mean:.2f} (nothing blocked {block[0]:.1%}, "
            f"at most {len(block) - 1}), expected counter {float(np.arange(len(counter)) @ counter):.2f}")


def monster_lines(rules: DiceRules) -> list[str]:
    """Each monster's exact attack per turn (mean, most, P(0)) and defensive roll (mean block)."""
    w = max(len(m.name) for m in rules.monsters.values())
    head = f"{'monster':<{w}}  {'hp':>4}  {'attack':<26}  {'mean':>5}  {'most':>4}  {'P(0)':>6}  {'block':>5}  inflicts"
    lines = [head, "-" * len(head)]
    for m in rules.monsters.values():
        r = m.row
        if r[L.M_ATK_KIND] == L.ATK_DICE:
            faces = r[L.M_ATK_FACE: L.M_ATK_FACE + L.N_FACES]
            atk = sum_distribution(int(r[L.M_ATK_DICE]), faces)
            what = f"{r[L.M_ATK_DICE]} d6: {' '.join(map(str, faces))}"
        else:
            pat = r[L.M_PATTERN: L.M_PATTERN + r[L.M_PATTERN_LEN]]
            atk = np.bincount(pat) / len(pat)
            what = f"pattern {', '.join(map(str, pat))}"
        block = sum_distribution(int(r[L.M_DEF_DICE]), r[L.M_DEF_BLOCK: L.M_DEF_BLOCK + L.N_FACES])
        inflicts = ", ".join(f"{k} {r[c]}" for k, c in (("poison", L.M_POISON), ("stun", L.M_STUN)) if r[c]) or "-"
        lines.append(f"{m.name:<{w}}  {r[L.M_HP]:>4}  {what:<26}  {float(np.arange(len(atk)) @ atk):5.2f}  "
                     f"{len(atk) - 1:>4}  {atk[0]:6.1%}  {float(np.arange(len(block)) @ block):5.2f}  {inflicts}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python -m foury_sim.games.rooms [--hero NAME | --monsters] [--rules FILE] [--set KEY=VALUE]``: the exact
    odds table of each hero (``foury-sim odds rooms`` sets them beside the engine's), or the monsters' attacks."""
    ap = argparse.ArgumentParser(prog="python -m foury_sim.games.rooms", description=main.__doc__)
    ap.add_argument("--hero", action="append", help="hero key (default: every hero)")
    ap.add_argument("--monsters", action="store_true", help="print the monsters' attack table instead")
    ap.add_argument("--rules", help="a rules file merged over the shipped one")
    ap.add_argument("--set", action="append", default=[], dest="sets", metavar="KEY=VALUE")
    args = ap.parse_args(argv)
    try:
        rules = load_heroes(args.rules, args.sets)
        if args.monsters:
            print("\n".join(monster_lines(rules)))
            return 0
        for i, key in enumerate(args.hero or list(rules.heroes)):
            t0 = time.perf_counter()
            lines = odds_lines(rules, key)
            if i:
                print()
            print("\n".join(lines))
            print(f"(programme: {time.perf_counter() - t0:.2f} s)", file=sys.stderr)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
