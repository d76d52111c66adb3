"""Exact odds of the next level, by enumeration, beside the engine's measured frequencies.

For a party in hand (or a freshly formed one), a level and a Lair: the chance that the dragon
comes, that every monster can be defeated, and that the level is cleared (monsters, and the dragon
if it comes). "Can be defeated" means by the party dice with the hero's specialty (no scrolls,
tokens or ultimate): the solver decides each dungeon outcome, and the outcomes are enumerated as
multisets with their exact multinomial probabilities (``fractions.Fraction``).

The same enumeration, in floats over every possible party, is the risk policy's table
(``clear_table``): the chance of clearing level L with the party in hand.
"""

from __future__ import annotations

import hashlib
import io
import tomllib
from fractions import Fraction
from functools import cache
from math import comb, factorial, gcd
from pathlib import Path

import numpy as np
from numba import njit, types

from ...config import CACHE, JIT_DISABLED, CompiledOnFirstUse
from ...errors import InputError, did_you_mean
from ...lazy import pd
from ...oddstable import ODDS_CONF, OddsTable, level_text, z_scores
from ...rng import seed_stream
from . import layout as A
from .dp import disk_path, keep_arrays, kept_arrays, party_list, solution
from .kernel import (
    SCRATCH,
    Dice,
    _compositions,
    advice,
    dragon_need,
    load_units,
    party_face,
    roll_level,
    scratch,
)
from .ruleset import (
    R_DRAGON_AT,
    R_DUNGEON_DICE,
    R_DUNGEON_FACES,
    R_DUNGEON_SIDES,
    R_HERO,
    R_LEVEL_DICE,
    R_LEVELS,
    R_PARTY_DICE,
    R_PARTY_FACES,
    R_PARTY_SIDES,
    R_RETIRE_XP,
    DelveRules,
)
from .solver import best_fight


@njit(cache=CACHE)
def feasible(rules, st, nmax, out, opts, w):
    """``out[0, g, s, o]``: the party in ``st`` defeats g goblins, s skeletons, o oozes;
    ``out[1, g, s, o]``: and beats the dragon with what is left. For g + s + o <= nmax."""
    st[A.S_ULT_USED] = 1  # no ultimate: the odds are about the dice
    need = dragon_need(rules, st)
    for g in range(nmax + 1):
        for s in range(nmax + 1 - g):
            for o in range(nmax + 1 - g - s):
                st[A.S_DUN] = g
                st[A.S_DUN + 1] = s
                st[A.S_DUN + 2] = o
                load_units(rules, st, np.int64(A.PH_MONSTER), w)
                c, ok = best_fight(w, 0, opts, SCRATCH)
                out[0, g, s, o] = 1 if c >= 0 else 0
                c, ok = best_fight(w, need, opts, SCRATCH)
                out[1, g, s, o] = 1 if c >= 0 and ok == 1 else 0


def _clear_table(rules, table):
    """Fill ``table`` (see ``kernel.p_clear`` for the layout) with P(clear level) for every side,
    party, number of dungeon dice rolled and Lair."""
    total = rules[R_PARTY_DICE]
    nd = rules[R_DUNGEON_DICE]
    at = rules[R_DRAGON_AT]
    npart = _compositions(total, A.N_FACES + 1)
    sides = rules[R_DUNGEON_SIDES]
    q = np.zeros(6)
    for i in range(sides):
        q[rules[R_DUNGEON_FACES + i]] += 1.0 / sides
    q_other = q[A.CHEST] + q[A.POTION]
    fact = np.ones(nd + 1)
    for i in range(1, nd + 1):
        fact[i] = fact[i - 1] * i
    st = np.zeros(A.STATE_SIZE, dtype=np.int64)
    opts = np.zeros((A.MAX_OPTIONS + 1, A.N_OCOLS), dtype=np.int64)
    w = scratch(rules)
    feas = np.zeros((2, nd + 1, nd + 1, nd + 1), dtype=np.int64)
    parties = party_list(total)  # row r is the party of rank r (the DP's enumeration)
    for side in range(2):
        for r in range(npart):
            st[:] = 0
            st[A.S_MASTER] = side
            for f in range(A.N_FACES):
                st[A.S_PARTY + f] = parties[r, f]
            feasible(rules, st, nd, feas, opts, w)
            base = (side * npart + r) * (nd + 1)
            for n in range(nd + 1):
                for lair in range(at):
                    p = 0.0
                    for g in range(n + 1):
                        for s in range(n + 1 - g):
                            for o in range(n + 1 - g - s):
                                for d in range(n + 1 - g - s - o):
                                    rest = n - g - s - o - d
                                    pr = (
                                        fact[n]
                                        / (fact[g] * fact[s] * fact[o] * fact[d] * fact[rest])
                                        * q[A.GOBLIN] ** g
                                        * q[A.SKELETON] ** s
                                        * q[A.OOZE] ** o
                                        * q[A.DRAGON] ** d
                                        * q_other**rest
                                    )
                                    p += pr * feas[1 if lair + d >= at else 0, g, s, o]
                    table[(base + n) * at + lair] = p


_TABLES: dict[bytes, np.ndarray] = {}

#: The clear tables of the shipped rules, one per hero, computed ahead (``ship_clear_tables``): a first run of the
#: default policy then does not compute them (``_clear_table``: since session 47 an entry point shipped as machine
#: code, so a ruleset of one's own computes its table without compiling). ``clear_tables.toml`` names the sources
#: they were computed from; a shipped table is used only while those are unchanged (``tests/test_delve_odds.py``
#: checks that they are, and that every shipped table is the computed one).
SHIPPED = Path(__file__).parent / "data" / "clear_tables.npz"
SHIPPED_SOURCES = SHIPPED.with_suffix(".toml")
#: This package's files the tables are computed from.
TABLE_SOURCES = ("odds.py", "kernel.py", "solver.py", "dp.py", "layout.py", "ruleset.py")
_SHIPPED: dict[bytes, np.ndarray] | None = None  # read on first use


def table_sources() -> str:
    """Hash of ``TABLE_SOURCES`` (line endings as in the repository)."""
    h = hashlib.sha1()
    for name in TABLE_SOURCES:
        h.update(name.encode())
        h.update((Path(__file__).parent / name).read_bytes().replace(b"\r\n", b"\n"))
    return h.hexdigest()[:16]


def shipped_table(rules: np.ndarray) -> np.ndarray | None:
    """The shipped clear table of ``rules`` (the shipped rules with one of their heroes), if the sources it was
    computed from are unchanged; None otherwise, or when numba is off (the un-jitted run computes its own)."""
    global _SHIPPED
    if JIT_DISABLED:
        return None
    if _SHIPPED is None:
        _SHIPPED = {}
        try:
            with open(SHIPPED_SOURCES, "rb") as f:
                same = tomllib.load(f).get("sources") == table_sources()
            with np.load(SHIPPED) as z:
                keys, tables = z["rules"], z["tables"]
        except (OSError, ValueError, KeyError, tomllib.TOMLDecodeError):
            same = False
        if same:
            for k, t in zip(keys, tables, strict=True):
                _SHIPPED[k.tobytes()] = t
    return _SHIPPED.get(rules.tobytes()) if rules.dtype == np.int64 else None


def compute_clear_table(rules: np.ndarray) -> np.ndarray:
    """The clear table of ``rules``, computed (``_clear_table``), as the kernel reads it."""
    p = np.zeros(_table_size(rules))
    _ENTRIES["clear_table"]()(np.array(rules, dtype=np.int64), p)  # (a copy: a key's array may be read-only)
    return advice(p)


def _table_size(rules: np.ndarray) -> int:
    """Entries of the clear table: side x party x dungeon dice rolled (0..n) x Lair."""
    total, nd, at = int(rules[R_PARTY_DICE]), int(rules[R_DUNGEON_DICE]), int(rules[R_DRAGON_AT])
    return 2 * _n_parties(total) * (nd + 1) * at


def clear_table(rules: np.ndarray) -> np.ndarray:
    """The risk policy's table for a rules array (with its hero), as the kernel reads it (``kernel.advice``: the
    chances x 1e6, rounded): shipped for the shipped rules (``shipped_table``), otherwise computed once and kept on
    disk beside the Delve kernels like the DP's tables (``dp.disk_path(rules, "odds")``)."""
    key = rules.tobytes()
    if key not in _TABLES:
        table = shipped_table(rules)
        if table is None:
            path = disk_path(rules, "odds")
            kept = kept_arrays(path, ("table",))
            if kept is not None and kept["table"].dtype == np.int32 and kept["table"].shape == (_table_size(rules),):
                table = kept["table"]
            else:  # none kept, or a damaged file: computed and (re)written
                table = compute_clear_table(rules)
                keep_arrays(path, {"table": table})
        _TABLES[key] = table
    return _TABLES[key]


def ship_clear_tables() -> bool:
    """Compute the clear table of every hero of the shipped rules into ``SHIPPED`` (rewritten only if a table
    changed) and the sources' hash into ``SHIPPED_SOURCES``; True if the tables changed."""
    from ...files import atomic_write  # (pandas: not at a Delve command's start-up)
    from .ruleset import load_ruleset

    rs = load_ruleset()
    keys = np.stack([rs.with_hero(h) for h in rs.heroes])
    tables = np.stack([compute_clear_table(k) for k in keys])
    try:
        with np.load(SHIPPED) as z:
            changed = not (np.array_equal(z["rules"], keys) and np.array_equal(z["tables"], tables))
    except (OSError, ValueError, KeyError):
        changed = True
    if changed:
        buf = io.BytesIO()
        np.savez_compressed(buf, rules=keys, tables=tables)
        atomic_write(SHIPPED, buf.getvalue())
    atomic_write(SHIPPED_SOURCES,
        "# The risk policy's clear tables of the shipped rules (clear_tables.npz: one row a hero, in rules.toml's\n"
        "# order) were computed from these sources (the hash of odds.TABLE_SOURCES). Written by\n"
        "# `python tools/ship_tables.py`; tests/test_delve_odds.py checks both are current.\n"
        f'sources = "{table_sources()}"\n'
    )
    global _SHIPPED
    _SHIPPED = None
    return changed


def _n_parties(total: int) -> int:
    """``kernel._compositions(total, N_FACES + 1)`` in Python (no jitted function compiled for a count)."""
    return comb(total + A.N_FACES, A.N_FACES)


def _measure(rules, side, party, level, lair, seed, samples, counts):
    """``measure``'s trials (its entry point, ``_ENTRIES["measure"]``)."""
    st = np.zeros(A.STATE_SIZE, dtype=np.int64)
    opts = np.zeros((A.MAX_OPTIONS + 1, A.N_OCOLS), dtype=np.int64)
    w = scratch(rules)
    rs = np.zeros(4, dtype=np.uint64)
    script = np.zeros(0, dtype=np.int64)
    trace = np.zeros((0, 11), dtype=np.int64)
    dice = Dice(rs, script, trace)
    h = R_HERO + side * A.H_COLS
    at = rules[R_DRAGON_AT]
    for i in range(samples):
        seed_stream(rs, seed, i)
        st[:] = 0
        st[A.S_MASTER] = side
        st[A.S_ULT_USED] = 1
        st[A.S_LEVEL] = level
        st[A.S_LAIR] = lair
        if party[0] < 0:
            for _ in range(rules[R_PARTY_DICE]):
                st[A.S_PARTY + party_face(rules, dice)] += 1
            a = rules[h + A.H_FORM_FROM]
            if a >= 0:
                st[A.S_PARTY + rules[h + A.H_FORM_TO]] += st[A.S_PARTY + a]
                st[A.S_PARTY + a] = 0
        else:
            for f in range(A.N_FACES):
                st[A.S_PARTY + f] = party[f]
        roll_level(rules, st, dice)
        load_units(rules, st, np.int64(A.PH_MONSTER), w)
        c, ok = best_fight(w, 0, opts, SCRATCH)
        dragon = st[A.S_LAIR] >= at
        counts[0] += 1 if dragon else 0
        counts[1] += 1 if c >= 0 else 0
        need = dragon_need(rules, st) if dragon else 0
        c, ok = best_fight(w, need, opts, SCRATCH)
        counts[2] += 1 if c >= 0 and ok == 1 else 0


def _party_table(rules, st, nmax, out, opts):
    """``feasible`` with a scratch of its own (the odds' call from Python)."""
    feasible(rules, st, nmax, out, opts, scratch(rules))


_I1, _I2 = types.int64[::1], types.int64[:, ::1]
#: The odds' entry points, built on first use (``config.CompiledOnFirstUse``: shipped as machine code with the
#: engine's, so a first ``foury-sim odds delve`` compiles nothing).
_ENTRIES = {
    "measure": CompiledOnFirstUse(__name__, types.void(_I1, types.int64, _I1, types.int64, types.int64, types.uint64,
                                                       types.int64, _I1), _measure, part="odds (measured levels)"),
    "party_table": CompiledOnFirstUse(__name__, types.void(_I1, _I1, types.int64, types.int64[:, :, :, ::1], _I2),
                                      _party_table, part="odds (party tables)"),
    "clear_table": CompiledOnFirstUse(__name__, types.void(_I1, types.float64[::1]), _clear_table,
                                      part="risk policy's clear table"),
}


def measure(rules: np.ndarray, side: int, party: np.ndarray, level: int, lair: int, seed: int, samples: int,
            counts: np.ndarray) -> None:
    """Roll the level with the engine's own code ``samples`` times: ``counts`` = (dragon came,
    monsters defeated, level cleared). ``party[0] < 0``: form a fresh party each time."""
    _ENTRIES["measure"]()(rules, int(side), party, int(level), int(lair), np.uint64(seed), int(samples), counts)


def _face_probs(rules: np.ndarray, base: int, sides_at: int) -> list[Fraction]:
    sides = int(rules[sides_at])
    q = [Fraction(0)] * 6
    for i in range(sides):
        q[int(rules[base + i])] += Fraction(1, sides)
    return q


@cache
def _multisets(n: int, k: int) -> list[tuple[int, ...]]:
    """All count vectors of length k summing to n."""
    if k == 1:
        return [(n,)]
    return [(i, *rest) for i in range(n + 1) for rest in _multisets(n - i, k - 1)]


def _multinomial(counts: tuple[int, ...], probs: list[Fraction]) -> Fraction:
    """The chance of the face counts ``counts`` on sum(counts) dice with face chances ``probs``: n! / prod(c!) x
    prod(q ** c), in integers, one fraction at the end (a fraction a step was most of ``odds delve``'s time)."""
    num, den = factorial(sum(counts)), 1
    for c, q in zip(counts, probs):
        if c:
            num *= q.numerator**c
            den *= factorial(c) * q.denominator**c
    return Fraction(num, den)


def _party_feasibility(rules: np.ndarray, side: int, party: tuple[int, ...], nmax: int) -> np.ndarray:
    st = np.zeros(A.STATE_SIZE, dtype=np.int64)
    st[A.S_MASTER] = side
    st[A.S_PARTY : A.S_PARTY + A.N_FACES] = party
    out = np.zeros((2, nmax + 1, nmax + 1, nmax + 1), dtype=np.int64)
    _ENTRIES["party_table"]()(rules, st, int(nmax), out, np.zeros((A.MAX_OPTIONS + 1, A.N_OCOLS), dtype=np.int64))
    return out


def exact_level(
    rules: np.ndarray,
    side: int,
    party: tuple[int, ...] | None,
    level: int,
    lair: int,
    cache: dict[tuple[int, ...], np.ndarray] | None = None,
) -> tuple[Fraction, Fraction, Fraction]:
    """Exact (P dragon comes, P monsters defeated, P level cleared) for ``level`` with ``lair``.

    ``cache`` keeps each party's feasibility table, and a fresh roll's parties, between calls (same rules and
    side)."""
    nd, at = int(rules[R_DUNGEON_DICE]), int(rules[R_DRAGON_AT])
    n = max(0, min(int(rules[R_LEVEL_DICE + level - 1]), nd - lair))  # level_dice.L (by default L)
    q = _face_probs(rules, R_DUNGEON_FACES, R_DUNGEON_SIDES)
    qd = [q[A.GOBLIN], q[A.SKELETON], q[A.OOZE], q[A.DRAGON], q[A.CHEST] + q[A.POTION]]
    cache = {} if cache is None else cache
    parties = _fresh_parties(rules, side, cache) if party is None else {tuple(party): Fraction(1)}
    outcomes = [(c, _multinomial(c, qd)) for c in _multisets(n, 5)]
    dragon = sum((pr for c, pr in outcomes if lair + c[3] >= at), Fraction(0))
    den, weight = _weights(rules, side, parties, nd, cache)
    mons = sum((pr * int(weight[0, g, s, o]) for (g, s, o, d, _), pr in outcomes), Fraction(0)) / den
    clear = sum((pr * int(weight[1 if lair + d >= at else 0, g, s, o]) for (g, s, o, d, _), pr in outcomes),
                Fraction(0)) / den
    return dragon, mons, clear


def _fresh_parties(rules: np.ndarray, side: int, cache: dict) -> dict[tuple[int, ...], Fraction]:
    """The parties a fresh roll forms (the hero's specialty applied) with their exact chances; kept in ``cache``
    (the same rules and side for every level)."""
    key = ("fresh parties",)
    if key not in cache:
        qp = _face_probs(rules, R_PARTY_FACES, R_PARTY_SIDES)
        h = R_HERO + side * A.H_COLS
        a, b = int(rules[h + A.H_FORM_FROM]), int(rules[h + A.H_FORM_TO])
        parties: dict[tuple[int, ...], Fraction] = {}
        for c in _multisets(int(rules[R_PARTY_DICE]), A.N_FACES):
            pr = _multinomial(c, qp)
            if pr == 0:
                continue
            c2 = list(c)
            if a >= 0:
                c2[b] += c2[a]
                c2[a] = 0
            parties[tuple(c2)] = parties.get(tuple(c2), Fraction(0)) + pr
        cache[key] = parties
    return cache[key]


def _weights(rules: np.ndarray, side: int, parties: dict[tuple[int, ...], Fraction], nd: int,
             cache: dict) -> tuple[int, np.ndarray]:
    """``(den, W)``: ``W[k, g, s, o] / den`` is the chance that the party (drawn from ``parties``) defeats g
    goblins, s skeletons, o oozes (k = 0) and also the dragon (k = 1): the parties' feasibility tables summed
    with their probabilities once, in exact integers over a common denominator (the same rationals as a sum over
    parties per outcome, hundreds of times fewer operations). Kept in ``cache`` with each party's table."""
    key = ("weights", tuple(sorted(parties.items())))
    if key not in cache:
        den = 1
        for pp in parties.values():
            den = den * pp.denominator // gcd(den, pp.denominator)
        weight = np.zeros((2, nd + 1, nd + 1, nd + 1), dtype=object)
        weight[...] = 0
        for p, pp in parties.items():
            if p not in cache:
                cache[p] = _party_feasibility(rules, side, p, nd)
            weight += cache[p].astype(object) * (pp.numerator * (den // pp.denominator))
        cache[key] = (den, weight)
    return cache[key]


def parse_party(text: str | None) -> tuple[int, ...] | None:
    """``"fighter,fighter,mage,..."`` (or F C M T Ch S initials) into face counts; None: a fresh roll."""
    if text is None or text in ("", "fresh", "roll"):
        return None
    short = {"f": 0, "c": 1, "m": 2, "t": 3, "ch": 4, "s": 5}
    counts = [0] * A.N_FACES
    for item in text.replace(" ", "").split(","):
        key = item.lower()
        if key in A.FACE_NAMES:
            counts[A.FACE_NAMES.index(key)] += 1
        elif key in short:
            counts[short[key]] += 1
        else:
            raise InputError(f"unknown party face {item!r} (fighter, cleric, mage, thief, champion, scroll)", "--party")
    return tuple(counts)


def odds(
    ruleset: DelveRules,
    hero: str = "none",
    party: str | None = None,
    level: int | None = None,
    lair: int = 0,
    master: bool = False,
    trials: int = 100_000,
    seed: int = 1,
) -> pd.DataFrame:
    """Exact chances for the next level beside the engine's frequencies over ``trials`` rolls.

    ``party``: the dice in hand (``"fighter,mage,thief"``; default a freshly formed party);
    ``level``: one level (default every level); ``lair``: dice already in the Lair.
    """
    if hero not in ruleset.heroes:
        raise InputError(f"unknown hero {hero!r} ({did_you_mean(hero, ruleset.heroes)}known: "
                         f"{', '.join(ruleset.heroes)})", "--hero")
    rules = ruleset.with_hero(hero)
    counts = parse_party(party)
    total = int(rules[R_PARTY_DICE])
    if counts is not None and sum(counts) > total:
        raise InputError(f"a party has at most {total} dice", "--party")
    at = int(rules[R_DRAGON_AT])
    if not 0 <= lair < at:
        raise InputError(f"--lair must be 0..{at - 1} (with {at} the dragon has already come)", "--lair")
    levels = [level] if level is not None else list(range(1, int(rules[R_LEVELS]) + 1))
    side = 1 if master else 0
    rows = []
    party_arr = np.array(counts if counts is not None else [-1] * A.N_FACES, dtype=np.int64)
    cache: dict[tuple[int, ...], np.ndarray] = {}
    for lv in levels:
        if not 1 <= lv <= int(rules[R_LEVELS]):
            raise InputError(f"--level must be 1..{int(rules[R_LEVELS])}", "--level")
        exact = exact_level(rules, side, counts, lv, lair, cache)
        measured = np.zeros(3, dtype=np.int64)
        measure(rules, side, party_arr, lv, lair, np.uint64(seed), trials, measured)
        for name, ex, m in zip(("dragon comes", "monsters defeated", "level cleared"), exact, measured):
            p = float(ex)
            f = m / trials
            rows.append(
                {
                    "level": lv,
                    "lair": lair,
                    "event": name,
                    "exact": p,
                    "measured": f,
                    "trials": trials,
                    "z": float(z_scores(p, f, trials)),
                }
            )
    return pd.DataFrame(rows)


#: What each event of the odds table means.
EVENTS = {
    "dragon comes": "the Dragon's Lair reaches the dragon's threshold (`dragon.threshold` dice) on this level",
    "monsters defeated": "the party dice (with the hero's specialty; no scrolls, tokens or ultimate) can defeat "
                         "every monster rolled",
    "level cleared": "the monsters are defeated and, if the dragon comes, it is slain too",
}


def odds_report(
    ruleset: DelveRules,
    hero: str = "none",
    party: str | None = None,
    level: int | None = None,
    lair: int = 0,
    master: bool = False,
    trials: int = 100_000,
    seed: int = 1,
    conf: float = ODDS_CONF,
) -> OddsTable:
    """``foury-sim odds delve``: the odds of the next level (:func:`odds`) with a title and what each column
    means; ``conf``: the level of the optimal policy's measured win rate's interval (``odds --conf``)."""
    df = odds(ruleset, hero=hero, party=party, level=level, lair=lair, master=master, trials=trials, seed=seed)
    df = df.drop(columns="z")  # the shared formatter adds z (the same formula)
    legend = {
        "level": "the dungeon level delved next (as many dungeon dice as the level, fewer once the Lair holds some)",
        "lair": "dungeon dice already in the Dragon's Lair before the level is rolled",
        "event": "; ".join(f"{k} = {v}" for k, v in EVENTS.items()),
        "exact": "exact chance of the event (every dungeon roll and party enumerated with its probability)",
        "measured": "share of the row's trials in which the event happened, rolled by the engine's own code",
        "trials": "levels the engine rolled for the row (--trials)",
    }
    who = f"hero {hero} ({'master' if master else 'novice'} side)"
    hand = f"party in hand {party}" if parse_party(party) is not None else "a freshly formed party"
    title = (f"Delve odds of the next level: exact (enumerated) beside the engine's frequencies; {who}, {hand}, "
             f"{trials:,} trials per row, seed {seed}")
    sections = dp_sections(ruleset, hero=hero, master=master, trials=trials, seed=seed, conf=conf)
    return OddsTable(title, df, legend, (("exact", "measured"),), keys=("level", "lair", "event"), sections=sections)


# ------------------------------------------------------------------------- the optimal policy's table --
def typical_party(rules: np.ndarray, side: int, size: int) -> tuple[int, ...]:
    """The most likely make-up of ``size`` party dice (the mode of the multinomial, built one die at a time on
    the face with the largest ``q_f / (count_f + 1)``; ties: the first face), with the hero's forming transform
    applied. With six equal faces: a balanced party, fighters first (7 dice: F F C M T Ch S)."""
    q = _face_probs(rules, R_PARTY_FACES, R_PARTY_SIDES)
    c = [0] * A.N_FACES
    for _ in range(size):
        f = max(range(A.N_FACES), key=lambda i: (q[i] / (c[i] + 1), -i))
        c[f] += 1
    h = R_HERO + side * A.H_COLS
    a, b = int(rules[h + A.H_FORM_FROM]), int(rules[h + A.H_FORM_TO])
    if a >= 0:
        c[b] += c[a]
        c[a] = 0
    return tuple(c)


def party_text(party: tuple[int, ...]) -> str:
    """``F F C M T Ch S``: a party by its faces' initials."""
    short = ("F", "C", "M", "T", "Ch", "S")
    return " ".join(short[f] for f in range(A.N_FACES) for _ in range(party[f])) or "no dice"


def dp_sizes(total: int) -> list[int]:
    """The party sizes the decision table shows: a full party, then two and four dice fewer, and one die."""
    return sorted({k for k in (total, total - 2, total - 4, 1) if k >= 1}, reverse=True)


def dp_decisions(rules: np.ndarray, delve: int = 1, score: int = 0, side: int = 0, lair: int = 0,
                 sizes: list[int] | None = None) -> tuple[pd.DataFrame, list[tuple[int, ...]]]:
    """The optimal policy's choice at the regroup after each level (``dp.Solution``): P(win | retire) (the same
    for every party), P(win | go on) for each typical party (``typical_party``) and the choice (``retire`` on a
    tie, as the policy does; always after the last level). Rows: level 1 .. levels."""
    sol = solution(rules)
    levels = int(rules[R_LEVELS])
    sizes = dp_sizes(int(rules[R_PARTY_DICE])) if sizes is None else sizes
    parties = [typical_party(rules, side, k) for k in sizes]
    rows = []
    for lv in range(1, levels + 1):
        row: dict[str, object] = {"level": lv, "retire": sol.retire_value(delve, score, side, lv)}
        choices = []
        for k, party in zip(sizes, parties):
            go = sol.go_value(delve, score, side, lv, lair, party) if lv < levels else float("nan")
            row[f"go on {k}"] = go
            choices.append("retire" if sol.retires(delve, score, side, lv, lair, party) else "go on")
        row["choice (" + "/".join(str(k) for k in sizes) + " dice)"] = " / ".join(choices)
        rows.append(row)
    return pd.DataFrame(rows), parties


def dp_sections(ruleset: DelveRules, hero: str = "none", master: bool = False, trials: int = 20_000,
                seed: int = 1, conf: float = ODDS_CONF) -> tuple[OddsTable, ...]:
    """The two tables ``odds delve`` prints after the next level's odds: the optimal policy's decision at every
    regroup of the first delve (``dp_decisions``) and the DP's P(win) of a whole game beside the engine's
    measured win rate of ``optimal`` over ``trials`` games (games 0 .. trials-1 of stream ``seed``)."""
    import time

    from ...policy import make_policy
    from ...stats import wilson
    from . import POLICIES, simulate

    rules = ruleset.with_hero(hero)
    side = 1 if master else 0
    t0 = time.perf_counter()
    sol = solution(rules, note=False)
    took = time.perf_counter() - t0
    when = f"table computed in {took:.1f} s" if took >= 0.05 else "table already computed in this process"
    table, parties = dp_decisions(rules, side=side)
    sizes = [sum(p) for p in parties]
    rx = int(rules[R_RETIRE_XP])
    legend = {
        "level": "the level just cleared (the regroup after it: retire, or go on to the next level)",
        "retire": f"P(win) if the adventurer retires now ({rx} XP per level, then the next delves played optimally)",
        **{f"go on {k}": f"P(win) if the adventurer goes on with {k} {'die' if k == 1 else 'dice'} in hand: "
           f"{party_text(p)} (the most likely make-up of {k} party {'die' if k == 1 else 'dice'}), then plays "
           "optimally"
           for k, p in zip(sizes, parties)},
        table.columns[-1]: "the optimal policy's choice for each party (the larger chance; a tie retires; after "
                           "the last level it always retires)",
    }
    decide = OddsTable(
        f"Delve optimal policy (dynamic programming, docs/delve-optimal.md): the regroup decision after each level "
        f"of the first delve, score 0, hero {hero} ({'master' if master else 'novice'} side), the Lair empty; "
        f"{when}", table, legend, (), keys=("level",))
    policy = make_policy("optimal", POLICIES)
    wins = int(np.asarray(simulate(ruleset, hero, policy, seed, 0, trials)["win"]).sum())
    p = sol.p_win()
    lo, hi = wilson(wins, trials, conf)
    f = wins / trials
    inside = "yes" if lo <= p <= hi else "no"
    overall = pd.DataFrame([{"hero": hero, "model": p, "measured": f, "trials": trials, "lo": lo, "hi": hi,
                             "z": float(z_scores(p, f, trials)), "model inside": inside}])
    legend2 = {
        "hero": "the hero played",
        "model": "the DP's own P(win) of a whole game under the optimal policy (its reduced model of Delve)",
        "measured": "the engine's win rate of the built-in `optimal` policy over the row's games",
        "trials": "games the engine played (--trials; games 0 .. N-1 of stream --seed)",
        "lo": f"lower end of the measured rate's {level_text(conf)} Wilson interval",
        "hi": f"upper end of the measured rate's {level_text(conf)} Wilson interval",
        "z": "(measured - model) / binomial standard error sqrt(model (1 - model) / trials)",
        "model inside": "whether the model's P(win) lies inside the measured rate's interval",
    }
    notes = ("The model is not exact: it reduces treasures, potions, scrolls and ultimates (docs/delve-optimal.md), "
             "so this row measures the reduction, not the engine; it carries no verdict. Without a hero the model "
             "is about 1.4 points pessimistic (53.1 % against 54.5 % [53.8, 55.2] over 20,000 games); with a hero "
             "the gap can be 20 points.",)
    whole = OddsTable(f"Delve optimal policy: the DP's P(win) of a whole game beside the engine's `optimal` win "
                      f"rate; hero {hero}, {trials:,} games, seed {seed}", overall, legend2, (), keys=("hero",),
                      notes=notes)
    return decide, whole

