"""Exact Tactics combat odds beside the engine's measured frequencies (``foury-sim odds tactics``).

* :func:`exact_rolloff`: one roll-off, the player's k d6 + mod against the monster's m d6 + mod, by convolution
  of the dice sums: P(win), P(tie), P(lose) under ``rulings.ties``.
* :func:`exact_exchange`: what one melee exchange does (``combat.exchange``): win, tie, lose (the ogre's blow
  included), and the special results: the mage staff's chicken, the ogre's three-sixes blow. The dice are
  convolved as (sum, sixes) pairs per side, so the specials are exact too.
* :func:`kill_chance`: the chance to kill a monster of H HP before losing K HP in straight melee (no AP limit):
  a Markov chain over (monster HP, HP the player may still lose), solved by first-step analysis with the
  self-loops (ties, zero-damage results) divided out; a chicken-making exchange continues against a chicken.
* :func:`odds_report`: per monster x weapon x armour, the exact figures beside the frequencies of the engine's
  own ``combat.exchange`` and ``combat.fight`` (:func:`measure`, the same functions the kernel calls).

Exact figures are ``fractions.Fraction`` (``exact=True``) or floats (the report).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
from numba import types

from ...config import CompiledOnFirstUse
from ...errors import InputError
from ...lazy import pd
from ...oddstable import OddsTable
from ...registry import GameOption
from ...rng import seed_stream
from . import combat as C
from .ruleset import (
    C_KIND_CHICKEN,
    M_HP,
    R_HP,
    R_TIES,
    RULINGS,
    TIES_MONSTER,
    TIES_PLAYER,
    TIES_REROLL,
    TacticsRules,
)

OUTCOMES = ("win", "tie", "lose", "chicken", "blow")

#: The options of ``foury-sim odds tactics`` (keyword arguments of :func:`odds_report`), for the GameSpec's
#: ``options``.
ODDS_OPTIONS = (
    GameOption("monster", ("odds",), "Monsters of the odds table, a comma list (default: every monster).", str),
    GameOption("weapon", ("odds",), "Weapons of the odds table, a comma list ('bare hands' = none; default: all).",
               str),
    GameOption("armor", ("odds",), "Armour of the odds table, a comma list ('no armour' = none; default: all).", str),
    GameOption("hp", ("odds",), "HP the player may lose before a straight-melee fight is lost (default: player.hp).",
               int, None, 1, 100),
    GameOption("might", ("odds",), "Shrine of Might bonus added to the player's attacks.", int, 0, 0, 10),
    GameOption("berserk", ("odds",), "1: the player rolls the Berserk Potion's dice (magic.berserk_dice).", int, 0,
               0, 1),
)


@cache
def dice_sums(n: int) -> dict[int, Fraction]:
    """The distribution of the sum of ``n`` d6 (convolution, one die at a time)."""
    dist = {0: Fraction(1)}
    for _ in range(n):
        nxt: dict[int, Fraction] = {}
        for s, p in dist.items():
            for f in range(1, 7):
                nxt[s + f] = nxt.get(s + f, Fraction(0)) + p / 6
        dist = nxt
    return dist


@cache
def dice_sums_sixes(n: int) -> dict[tuple[int, int], int]:
    """The joint distribution of (sum, number of sixes) of ``n`` d6, as counts of the 6 ** n ordered rolls."""
    dist = {(0, 0): 1}
    for _ in range(n):
        nxt: dict[tuple[int, int], int] = {}
        for (s, k), c in dist.items():
            for f in range(1, 7):
                key = (s + f, k + (f == 6))
                nxt[key] = nxt.get(key, 0) + c
        dist = nxt
    return dist


def _resolve_ties(win: Fraction, tie: Fraction, lose: Fraction, ties: int) -> tuple[Fraction, Fraction, Fraction]:
    if ties == TIES_PLAYER:
        return win + tie, Fraction(0), lose
    if ties == TIES_MONSTER:
        return win, Fraction(0), lose + tie
    if ties == TIES_REROLL:
        rest = win + lose
        return win / rest, Fraction(0), lose / rest
    return win, tie, lose


def exact_rolloff(p_dice: int, p_mod: int, m_dice: int, m_mod: int, ties: int = 0) -> tuple[Fraction, Fraction,
                                                                                              Fraction]:
    """(P win, P tie, P lose) of the player's ``p_dice`` d6 + ``p_mod`` against ``m_dice`` d6 + ``m_mod`` under
    the tie ruling ``ties`` (a ``TIES_*`` code), as ``combat.rolloff`` plays it."""
    pd_, md = dice_sums(p_dice), dice_sums(m_dice)
    win = tie = lose = Fraction(0)
    for a, pa in pd_.items():
        for b, pb in md.items():
            d = (a + p_mod) - (b + m_mod)
            if d > 0:
                win += pa * pb
            elif d < 0:
                lose += pa * pb
            else:
                tie += pa * pb
    return _resolve_ties(win, tie, lose, ties)


def exact_exchange(terms: Any, ties: int = 0) -> dict[str, Fraction]:
    """The outcome of one ``combat.exchange`` (MELEE) with ``terms`` (``combat.combat_terms``): disjoint
    probabilities of win, tie, lose (the blow included), chicken, and blow (the part of lose that is the blow)."""
    t = [int(x) for x in terms]
    # counted in ordered rolls of all the dice (integers over 6 ** dice), one fraction a result at the end
    pd_, md = dice_sums_sixes(t[C.T_P_DICE]), dice_sums_sixes(t[C.T_M_DICE])
    raw = dict.fromkeys(("win", "tie", "lose", "chicken", "blow"), 0)
    raw_tie = 0  # tied totals (what "reroll" rolls again)
    for (a, a6), pa in pd_.items():
        for (b, b6), pb in md.items():
            p = pa * pb
            d = (a + t[C.T_P_MOD]) - (b + t[C.T_M_MOD])
            if d == 0 and ties == TIES_REROLL:
                raw_tie += p
                continue
            res = "win" if d > 0 else "lose" if d < 0 else {TIES_PLAYER: "win", TIES_MONSTER: "lose"}.get(ties, "tie")
            if t[C.T_CHICKEN] and a6 >= t[C.T_CHICKEN_SIXES]:
                raw["chicken"] += p
            elif t[C.T_TRIPLE] and b6 >= t[C.T_TRIPLE_SIXES]:
                raw["lose"] += p
                raw["blow"] += p
            else:
                raw[res] += p
    rolls = 6 ** (t[C.T_P_DICE] + t[C.T_M_DICE])
    return {k: Fraction(v, rolls - raw_tie) for k, v in raw.items()}  # (raw_tie is 0 but under "reroll")



def kill_chance(terms: Any, hp: int, budget: int, ties: int = 0, chicken_terms: Any = None, chicken_hp: int = 1,
                exact: bool = True) -> Fraction | float:
    """The chance that the player kills a monster of ``hp`` HP before losing ``budget`` HP, fighting straight
    melee exchanges with ``terms`` (as ``combat.fight``). A Markov chain over (h, k): h the monster's HP, k the HP
    the player may still lose; V(h <= 0, k) = 1, V(h > 0, k <= 0) = 0, and

        V(h, k) = [P_win V(h - d_p, k) + P_lose V(h, k - d_m) + P_blow V(h, k - d_blow) + P_chicken W(k)] / (1 - S)

    where S is the probability of the results that change nothing (a tie; a win or loss dealing 0) and W(k) is the
    same chain against the chicken from its full HP. A fight nobody can lose (S = 1) is not a kill (0)."""
    num = (lambda x: x) if exact else float

    def chain(tm: Any, start_hp: int, other: dict[int, Any] | None) -> dict[tuple[int, int], Any]:
        """V over h = 1..start_hp, k = 1..budget. ``other[k]``: where a chicken result goes (the chicken chain's
        value); None: this IS the chicken chain, whose chicken result restarts it at (start_hp, k): for each k
        every V(h, k) is kept as a + b X with X = V(start_hp, k) unknown until h = start_hp is reached."""
        o = {key: num(val) for key, val in exact_exchange(tm, ties).items()}
        dp, dm, db = int(tm[C.T_P_DMG]), int(tm[C.T_M_DMG]), int(tm[C.T_BLOW])
        moves = ((o["win"], dp, 0), (o["lose"] - o["blow"], 0, dm), (o["blow"], 0, db))
        zero, one = num(0), num(1)
        V: dict[tuple[int, int], Any] = {}
        for k in range(1, budget + 1):
            pair: dict[int, tuple[Any, Any]] = {}

            def at(h: int, kk: int, pair: dict = pair, k: int = k) -> tuple[Any, Any]:
                if h <= 0:
                    return one, zero
                if kk <= 0:
                    return zero, zero
                return pair[h] if kk == k else (V[(h, kk)], zero)

            for h in range(1, start_hp + 1):
                stay, a, b = o["tie"], zero, zero
                for p, dh, dk in moves:
                    if dh == 0 and dk == 0:
                        stay += p
                    else:
                        pa, pb = at(h - dh, k - dk)
                        a += p * pa
                        b += p * pb
                if other is not None:
                    a += o["chicken"] * other[k]
                elif h == start_hp:
                    stay += o["chicken"]
                else:
                    b += o["chicken"]
                pair[h] = (zero, zero) if stay == one else (a / (one - stay), b / (one - stay))
            a, b = pair[start_hp]
            x = zero if b == one else a / (one - b)  # X = a + b X at h = start_hp
            for h in range(1, start_hp + 1):
                V[(h, k)] = pair[h][0] + pair[h][1] * x
        return V

    chicken_at: dict[int, Any] = {}
    if terms[C.T_CHICKEN]:
        if chicken_terms is None:
            raise ValueError("a chicken-making weapon needs chicken_terms")
        cv = chain(chicken_terms, chicken_hp, None)
        chicken_at = {k: cv[(chicken_hp, k)] for k in range(1, budget + 1)}
    else:
        chicken_at = dict.fromkeys(range(1, budget + 1), num(0))
    if hp <= 0:
        return num(1)
    if budget <= 0:
        return num(0)
    return chain(terms, hp, chicken_at)[(hp, budget)]


def _measure(terms, chicken_terms, chicken_hp, ties, hp, budget, seed, trials, counts):
    """``measure``'s trials (its entry point, ``_ENTRIES["measure"]``)."""
    rs = np.zeros(4, dtype=np.uint64)
    script = np.zeros(0, dtype=np.int64)
    out = np.zeros(C.X_SIZE, dtype=np.int64)
    for i in range(trials):
        seed_stream(rs, seed, i)
        res = C.exchange(rs, script, terms, ties, C.MELEE, 0, out)
        if out[C.X_CHICKEN]:
            counts[3] += 1
        elif res == C.RO_WIN:
            counts[0] += 1
        elif res == C.RO_TIE:
            counts[1] += 1
        else:
            counts[2] += 1
            if out[C.X_BLOW]:
                counts[4] += 1
    for i in range(trials):
        seed_stream(rs, seed + np.uint64(1), i)
        counts[5] += C.fight(rs, script, terms, chicken_terms, chicken_hp, ties, hp, budget, out)


def _terms(rules, monsters, weapons, armors, mon, weapon, armor, might, berserk, terms):
    C.combat_terms(rules, monsters, weapons, armors, mon, weapon, armor, might, berserk, terms)


_I1, _I2, _INT = types.int64[::1], types.int64[:, ::1], types.int64
#: The odds' entry points, built on first use (``config.CompiledOnFirstUse``: shipped as machine code with the
#: engine's, so a first ``foury-sim odds tactics`` compiles nothing).
_ENTRIES = {
    "measure": CompiledOnFirstUse(__name__, types.void(_I1, _I1, _INT, _INT, _INT, _INT, types.uint64, _INT, _I1),
                                  _measure, part="odds (measured fights)"),
    "terms": CompiledOnFirstUse(__name__, types.void(_I1, _I2, _I2, _I2, _INT, _INT, _INT, _INT, _INT, _I1), _terms,
                                part="odds (combat terms)"),
}


def measure(terms: np.ndarray, chicken_terms: np.ndarray, chicken_hp: int, ties: int, hp: int, budget: int,
            seed: int, trials: int, counts: np.ndarray) -> None:
    """The engine's frequencies: ``trials`` exchanges (``combat.exchange``, MELEE) counted in ``counts[0..4]``
    (win, tie, lose, chicken, blow; as :func:`exact_exchange`) and ``trials`` straight-melee fights
    (``combat.fight``) in ``counts[5]`` (kills). Game i's dice: stream (seed, i) and (seed + 1, i)."""
    _ENTRIES["measure"]()(terms, chicken_terms, int(chicken_hp), int(ties), int(hp), int(budget), np.uint64(seed),
                          int(trials), counts)


def terms_for(ruleset: TacticsRules, mon: int, weapon: int, armor: int, might: int = 0,
              berserk: bool = False) -> np.ndarray:
    """``combat.combat_terms`` for a monster row, weapon row and armour row of ``ruleset``."""
    t = C.new_terms()
    _ENTRIES["terms"]()(ruleset.rules, ruleset.monsters, ruleset.weapons, ruleset.armors, int(mon), int(weapon),
                        int(armor), int(might), int(berserk), t)
    return t


def _pick(value: str | None, names: tuple[str, ...], option: str, what: str) -> list[int]:
    if value is None or value == "all":
        return list(range(len(names)))
    out = []
    for v in str(value).split(","):
        v = v.strip()
        if v not in names:
            raise InputError(f"unknown {what} {v!r} (known: {', '.join(names)})", option)
        if names.index(v) in out:  # (its rows were computed and printed twice)
            raise InputError(f"{what} {v!r} is given twice: give it once", option)
        out.append(names.index(v))
    return out


def _chicken(ruleset: TacticsRules, weapon: int, armor: int, might: int, berserk: bool) -> tuple[np.ndarray, int]:
    row = int(ruleset.charts[C_KIND_CHICKEN])
    if row < 0:
        return C.new_terms(), 1
    return terms_for(ruleset, row, weapon, armor, might, berserk), int(ruleset.monsters[row, M_HP])


def odds_frame(ruleset: TacticsRules, trials: int = 20_000, seed: int = 1, monster: str | None = None,
               weapon: str | None = None, armor: str | None = None, hp: int | None = None, might: int = 0,
               berserk: int = 0) -> pd.DataFrame:
    """One row per monster x weapon x armour: exact figures (``exact_*``) and the engine's (``measured_*``)."""
    ties = int(ruleset.rules[R_TIES])
    budget = int(ruleset.rules[R_HP]) if hp is None else int(hp)
    if not 1 <= budget <= 100:
        raise InputError(f"--hp must be 1..100, not {budget}", "--hp")
    if not 0 <= might <= 10:
        raise InputError(f"--might must be 0..10, not {might}", "--might")
    if trials < 1:
        raise InputError("--trials must be at least 1", "--trials")
    if berserk not in (0, 1, True, False):
        raise InputError(f"--berserk must be 0 or 1, not {berserk}", "--berserk")
    mons = _pick(monster, ruleset.monster_names, "--monster", "monster")
    weps = _pick(weapon, ruleset.weapon_names, "--weapon", "weapon")
    arms = _pick(armor, ruleset.armor_names, "--armor", "armour")
    rows = []
    # A row's figures depend on its combat terms, its chicken's and the monster's HP alone, and every row's trials
    # play the same dice streams: rows alike (490 rows, 116 kinds in the shipped rules) are computed once.
    alike: dict[tuple, tuple[dict[str, float], float, np.ndarray]] = {}
    for m in mons:
        mhp = int(ruleset.monsters[m, M_HP])
        for w in weps:
            for a in arms:
                t = terms_for(ruleset, m, w, a, might, berserk)
                ct, chp = _chicken(ruleset, w, a, might, berserk)
                key = (t.tobytes(), ct.tobytes(), chp, mhp)
                if key not in alike:
                    counts = np.zeros(6, dtype=np.int64)
                    measure(t, ct, chp, ties, mhp, budget, np.uint64(seed), trials, counts)
                    alike[key] = ({k: float(v) for k, v in exact_exchange(t, ties).items()},
                                  float(kill_chance(t, mhp, budget, ties, ct, chp)),  # in fractions: a sure kill is 1
                                  counts)
                ex, kill, counts = alike[key]
                row: dict[str, Any] = {"monster": ruleset.monster_names[m], "weapon": ruleset.weapon_names[w],
                                       "armor": ruleset.armor_names[a], "monster_hp": mhp, "hp": budget,
                                       "dice": f"{int(t[C.T_P_DICE])}d6{int(t[C.T_P_MOD]):+d} vs "
                                               f"{int(t[C.T_M_DICE])}d6{int(t[C.T_M_MOD]):+d}"}
                for i, name in enumerate(OUTCOMES):
                    row[f"exact_{name}"] = ex[name]
                    row[f"measured_{name}"] = counts[i] / trials
                row["exact_kill"] = kill
                row["measured_kill"] = counts[5] / trials
                row["trials"] = trials
                rows.append(row)
    return pd.DataFrame(rows)


def measured_table(exact: pd.DataFrame, counts: np.ndarray, trials: int) -> pd.DataFrame:
    """Put measured counts from elsewhere (the engine's games: ``counts[row] = (win, tie, lose, chicken, blow,
    kills)``) beside exact figures of :func:`odds_frame` rows (for the engine helper's own measurements)."""
    df = exact.copy()
    for i, name in enumerate((*OUTCOMES, "kill")):
        df[f"measured_{name}"] = counts[:, i] / trials
    df["trials"] = trials
    return df


def odds_report(ruleset: TacticsRules, trials: int = 20_000, seed: int = 1, monster: str | None = None,
                weapon: str | None = None, armor: str | None = None, hp: int | None = None, might: int = 0,
                berserk: int = 0, conf: float = 0.95) -> OddsTable:
    """``foury-sim odds tactics``: per monster x weapon x armour (each may be narrowed to a comma list), the
    exact exchange and straight-melee kill odds beside the engine's frequencies (:func:`odds_frame`). The table
    gives no interval, so ``conf`` (the ``GameSpec.odds`` hook's) only sets the CLI's verdict."""
    df = odds_frame(ruleset, trials, seed, monster, weapon, armor, hp, might, berserk)
    ties = RULINGS["ties"][1][int(ruleset.rules[R_TIES])]
    modifier = ruleset.rulings.get("modifier", "roll")
    legend = {
        "monster": "the monster (rules.toml [monsters])",
        "weapon": "the player's weapon (bare hands: none)",
        "armor": "the player's armour",
        "monster_hp": "the monster's HP (what a kill takes)",
        "hp": "HP the player may lose before the fight counts as lost (--hp; default the player's HP)",
        "dice": "the roll-off: the player's dice + modifier vs the monster's dice + modifier (rulings.modifier)",
        "exact_win": "exact chance one exchange is won (the monster loses HP), by convolution of the dice",
        "exact_tie": "exact chance of a tie (nobody hurt; 0 unless rulings.ties = nobody)",
        "exact_lose": "exact chance the player loses the exchange (the ogre's blow included)",
        "exact_chicken": "exact chance the mage staff's sixes (abilities.chicken_sixes) make the monster a chicken",
        "exact_blow": "exact chance of the ogre's massive blow (abilities.triple_six_sixes sixes)",
        "exact_kill": "exact chance to kill the monster before losing `hp` HP in straight melee (Markov chain)",
        "trials": "exchanges and fights the engine played for the row (--trials each)",
    }
    for name in (*OUTCOMES, "kill"):
        legend[f"measured_{name}"] = f"share of the engine's {'fights' if name == 'kill' else 'exchanges'} " \
                                     f"({'combat.fight' if name == 'kill' else 'combat.exchange'}) with this result"
    title = (f"Tactics combat odds: exact (convolution, Markov chain) beside the engine's frequencies; ties "
             f"{ties}, modifier {modifier}, might {might}{', berserk' if berserk else ''}, {trials:,} trials per "
             f"row, seed {seed}")
    notes = ("Straight melee: exchanges until one side is done, no AP limit, no movement, no items; a chicken-making "
             "exchange goes on against a chicken at its full HP.",)
    compared = tuple((f"exact_{n}", f"measured_{n}") for n in (*OUTCOMES, "kill"))
    return OddsTable(title, df, legend, compared, keys=("monster", "weapon", "armor"), notes=notes)


def kill_matrix(ruleset: TacticsRules, by: str = "weapon", hp: int | None = None) -> pd.DataFrame:
    """Exact straight-melee kill chances (:func:`kill_chance`), one row per monster and one column per weapon
    (``by="weapon"``, no armour) or per armour (``by="armor"``, bare hands): the exact half of the monster
    difficulty study."""
    ties = int(ruleset.rules[R_TIES])
    budget = int(ruleset.rules[R_HP]) if hp is None else int(hp)
    names = ruleset.weapon_names if by == "weapon" else ruleset.armor_names
    rows = {}
    for m, mname in enumerate(ruleset.monster_names):
        mhp = int(ruleset.monsters[m, M_HP])
        row = {}
        for i, iname in enumerate(names):
            w, a = (i, 0) if by == "weapon" else (0, i)
            ct, chp = _chicken(ruleset, w, a, 0, False)
            row[iname] = float(kill_chance(terms_for(ruleset, m, w, a), mhp, budget, ties, ct, chp))
        rows[mname] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def kill_matrix_markdown(ruleset: TacticsRules, by: str = "weapon") -> str:
    """:func:`kill_matrix` as a markdown table (percent, one decimal), as docs/rules-tactics.md shows it."""
    df = kill_matrix(ruleset, by)
    lines = ["| monster | " + " | ".join(df.columns) + " |", "|---" * (len(df.columns) + 1) + "|"]
    for name, row in df.iterrows():
        lines.append(f"| {name} | " + " | ".join(f"{100 * v:.1f}" for v in row) + " |")
    return "\n".join(lines) + "\n"
