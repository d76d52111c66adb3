"""Tactics combat as the engine plays it: the one roll-off, the one exchange, the one move cost.

The kernel (``kernel.py``) and the exact odds (``odds.py``) both call these functions, so the measured
frequencies of ``foury-sim odds tactics`` are the engine's own rule, not a copy of it.

* :func:`combat_terms` turns (monster, weapon, armour, might, berserk) into the numbers of a roll-off under
  ``rulings.modifier``: "roll" adds weapon, might and the monster's attack_mod to the totals and subtracts the
  armour's defence from the monster's total (a win deals 1); "damage" compares bare dice and a win deals
  ``1 + bonus`` (the player) or ``max(0, 1 + attack_mod - defence)`` (the monster).
* :func:`rolloff`: player dice first, then the monster's (the order scripted dice follow), totals compared,
  ties by ``rulings.ties`` ("reroll" rolls both sides again).
* :func:`exchange`: one roll-off and what it does: damage to the loser (only the target's side can be hurt by
  a ranged shot: ``PLAYER_RANGED`` / ``MONSTER_RANGED``), the mage staff's chicken (``abilities.chicken_sixes``,
  two, sixes among the player's dice, with a chicken weapon: the monster turns into a chicken, no damage either
  way), the ogre's massive blow (``abilities.triple_six_sixes``, three, sixes among its dice: the monster wins the
  roll-off whatever the totals and deals ``abilities.triple_six_damage``), the storm golem's AP drain (the player
  lost on their own turn).
* :func:`move_cost`: AP to step onto a tile (combat, armour ``move_pct`` rounded up, water by ``rulings.water``);
  :func:`monster_move_cost` the same for a monster (water doubles it unless it flies; lava only for flyers, and the
  lava-immune with ``rulings.lava_walk`` = "immune_too").
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...config import CACHE
from ...rng import d6
from .ruleset import (
    A_DEF,
    A_MOVE_PCT,
    LAVA_WALK_IMMUNE_TOO,
    M_AP_MOVE,
    M_ATTACK_MOD,
    M_DICE,
    M_FLY,
    M_KIND,
    M_LAVA_IMMUNE,
    M_STORM,
    M_TRIPLE_SIX,
    MOD_ROLL,
    R_BERSERK_DICE,
    R_CHICKEN_SIXES,
    R_LAVA_WALK,
    R_MODIFIER,
    R_MOVE,
    R_MOVE_COMBAT,
    R_OGRE_BLOW,
    R_PLATE_WATER,
    R_PLAYER_DICE,
    R_STORM_DRAIN,
    R_TRIPLE_SIXES,
    R_WATER,
    TIES_MONSTER,
    TIES_PLAYER,
    TIES_REROLL,
    W_BONUS,
    W_CHICKEN,
    W_VS_BONUS,
    W_VS_KIND,
    WATER_PLATE_PRINTED,
)

#: Roll-off results (the player's point of view).
RO_WIN, RO_TIE, RO_LOSE = 1, 0, -1
#: Exchange modes: a melee roll-off (the loser takes damage), the player's ranged shot (only the monster can be
#: hurt), a monster's ranged shot (only the player can be hurt).
MELEE, PLAYER_RANGED, MONSTER_RANGED = 0, 1, 2
MAX_DICE = 6  # dice a side may roll (player.dice, magic.berserk_dice, monsters.*.dice are 1..6)
MAX_REROLLS = 1000  # rulings.ties = "reroll": a safety bound no real roll-off reaches (P(tie) <= 1/6 per roll)

# combat_terms: the numbers of a roll-off
T_P_DICE, T_P_MOD, T_M_DICE, T_M_MOD, T_P_DMG, T_M_DMG, T_BLOW, T_CHICKEN, T_TRIPLE, T_DRAIN = range(10)
T_CHICKEN_SIXES, T_TRIPLE_SIXES = 10, 11  # sixes that make the chicken / the blow (abilities.*_sixes)
T_SIZE = 12

# rolloff / exchange: what happened (``out``)
X_RESULT = 0  # RO_WIN / RO_TIE / RO_LOSE after the tie ruling and the blow
X_P_SUM, X_M_SUM = 1, 2  # the dice alone
X_P_TOTAL, X_M_TOTAL = 3, 4  # with the roll modifiers
X_P_SIXES, X_M_SIXES = 5, 6
X_REROLLS = 7  # tied roll-offs rolled again (rulings.ties = "reroll")
X_DMG_MON, X_DMG_PLAYER = 8, 9  # HP the exchange takes
X_CHICKEN = 10  # 1: the monster turns into a chicken
X_BLOW = 11  # 1: the ogre's massive blow
X_AP_LOST = 12  # AP the storm golem drains
X_P_DICE = 13  # the player's dice (MAX_DICE slots, 0 = not rolled)
X_M_DICE = X_P_DICE + MAX_DICE
X_SIZE = X_M_DICE + MAX_DICE


@njit(cache=CACHE)
def combat_terms(rules, monsters, weapons, armors, mon, weapon, armor, might, berserk, terms):
    """Fill ``terms`` for a roll-off of the player (``weapon``, ``armor`` rows, ``might`` bonus, ``berserk``
    0/1) against a monster of table row ``mon``, under ``rulings.modifier``."""
    kind = monsters[mon, M_KIND]
    bonus = weapons[weapon, W_BONUS] + might
    if weapons[weapon, W_VS_KIND] == kind:
        bonus += weapons[weapon, W_VS_BONUS]
    defence = armors[armor, A_DEF]
    attack = monsters[mon, M_ATTACK_MOD]
    terms[T_P_DICE] = rules[R_BERSERK_DICE] if berserk else rules[R_PLAYER_DICE]
    terms[T_M_DICE] = monsters[mon, M_DICE]
    if rules[R_MODIFIER] == MOD_ROLL:
        terms[T_P_MOD] = bonus
        terms[T_M_MOD] = attack - defence
        terms[T_P_DMG] = 1
        terms[T_M_DMG] = 1
        terms[T_BLOW] = rules[R_OGRE_BLOW]
    else:
        terms[T_P_MOD] = 0
        terms[T_M_MOD] = 0
        terms[T_P_DMG] = max(0, 1 + bonus)
        terms[T_M_DMG] = max(0, 1 + attack - defence)
        terms[T_BLOW] = max(0, rules[R_OGRE_BLOW] + attack - defence)
    terms[T_CHICKEN] = weapons[weapon, W_CHICKEN]
    terms[T_TRIPLE] = monsters[mon, M_TRIPLE_SIX]
    terms[T_DRAIN] = rules[R_STORM_DRAIN] if monsters[mon, M_STORM] else 0
    terms[T_CHICKEN_SIXES] = rules[R_CHICKEN_SIXES]
    terms[T_TRIPLE_SIXES] = rules[R_TRIPLE_SIXES]


@njit(cache=CACHE)
def _roll_side(rs, script, n, slot, out):
    total = 0
    sixes = 0
    for i in range(MAX_DICE):
        out[slot + i] = 0
    for i in range(n):
        f = d6(rs, script)
        if i < MAX_DICE:
            out[slot + i] = f
        total += f
        if f == 6:
            sixes += 1
    return total, sixes


@njit(cache=CACHE)
def rolloff(rs, script, p_dice, p_mod, m_dice, m_mod, ties, out):
    """One roll-off: the player's ``p_dice`` d6 + ``p_mod`` against the monster's ``m_dice`` d6 + ``m_mod``;
    the higher total wins. A tie by ``ties`` (a TIES_* code): nobody (RO_TIE), reroll (both sides roll again),
    the player or the monster wins. Returns RO_WIN / RO_TIE / RO_LOSE; ``out`` holds the dice (X_*)."""
    out[X_REROLLS] = 0
    while True:
        ps, p6 = _roll_side(rs, script, p_dice, np.int64(X_P_DICE), out)
        ms, m6 = _roll_side(rs, script, m_dice, np.int64(X_M_DICE), out)
        out[X_P_SUM] = ps
        out[X_M_SUM] = ms
        out[X_P_SIXES] = p6
        out[X_M_SIXES] = m6
        out[X_P_TOTAL] = ps + p_mod
        out[X_M_TOTAL] = ms + m_mod
        if out[X_P_TOTAL] > out[X_M_TOTAL]:
            return RO_WIN
        if out[X_P_TOTAL] < out[X_M_TOTAL]:
            return RO_LOSE
        if ties == TIES_PLAYER:
            return RO_WIN
        if ties == TIES_MONSTER:
            return RO_LOSE
        if ties != TIES_REROLL or out[X_REROLLS] >= MAX_REROLLS:
            return RO_TIE
        out[X_REROLLS] += 1


@njit(cache=CACHE)
def exchange(rs, script, terms, ties, mode, players_turn, out):
    """One roll-off with ``terms`` (:func:`combat_terms`) and its effects in ``out`` (X_DMG_MON, X_DMG_PLAYER,
    X_CHICKEN, X_BLOW, X_AP_LOST). ``mode``: MELEE, PLAYER_RANGED or MONSTER_RANGED; ``players_turn``: 1 during
    the player's turn (the storm golem drains AP then). Returns the result (RO_*; a blow is RO_LOSE)."""
    res = rolloff(rs, script, terms[T_P_DICE], terms[T_P_MOD], terms[T_M_DICE], terms[T_M_MOD], ties, out)
    out[X_DMG_MON] = 0
    out[X_DMG_PLAYER] = 0
    out[X_CHICKEN] = 0
    out[X_BLOW] = 0
    out[X_AP_LOST] = 0
    if terms[T_CHICKEN] != 0 and out[X_P_SIXES] >= terms[T_CHICKEN_SIXES]:
        out[X_CHICKEN] = 1
        out[X_RESULT] = res
        return res
    if terms[T_TRIPLE] != 0 and out[X_M_SIXES] >= terms[T_TRIPLE_SIXES]:
        out[X_BLOW] = 1
        res = RO_LOSE
    if res == RO_WIN and mode != MONSTER_RANGED:
        out[X_DMG_MON] = terms[T_P_DMG]
    elif res == RO_LOSE and mode != PLAYER_RANGED:
        out[X_DMG_PLAYER] = terms[T_BLOW] if out[X_BLOW] else terms[T_M_DMG]
    if res == RO_LOSE and players_turn != 0:
        out[X_AP_LOST] = terms[T_DRAIN]
    out[X_RESULT] = res
    return res


@njit(cache=CACHE)
def move_cost(rules, armors, armor, combat, water):
    """AP to step onto a tile: ``ap.move`` (``ap.move_combat`` when moving away from or during combat), times
    the armour's ``move_pct`` rounded up; onto water twice that (``rulings.water`` = "double"), or with
    "plate_printed" ``ap.plate_in_water`` in an armour whose ``move_pct`` is above 100."""
    base = rules[R_MOVE_COMBAT] if combat else rules[R_MOVE]
    pct = armors[armor, A_MOVE_PCT]
    cost = (base * pct + 99) // 100
    if water:
        if rules[R_WATER] == WATER_PLATE_PRINTED and pct > 100:
            return rules[R_PLATE_WATER]
        return 2 * cost
    return cost


@njit(cache=CACHE, inline="always", _nrt=False)
def lava_walker(rules, monsters, mon):
    """Monster row ``mon`` may step onto lava: it flies ("impassable to non-flying monsters"), or it is lava-immune
    and ``rulings.lava_walk`` is "immune_too"."""
    immune = monsters[mon, M_LAVA_IMMUNE] != 0
    return monsters[mon, M_FLY] != 0 or (rules[R_LAVA_WALK] == LAVA_WALK_IMMUNE_TOO and immune)


@njit(cache=CACHE)
def monster_move_cost(rules, monsters, mon, water, lava):
    """DM AP for monster row ``mon`` to step onto a tile: its ``ap_move``, twice that onto water (as the player's
    "double"; a flying monster crosses water "with no negative effects"); onto lava -1 (it cannot) unless it flies
    or (``rulings.lava_walk`` = "immune_too") ignores lava, then ``ap_move``."""
    cost = monsters[mon, M_AP_MOVE]
    if lava:
        return cost if lava_walker(rules, monsters, mon) else -1
    if water and not monsters[mon, M_FLY]:
        return 2 * cost
    return cost


@njit(cache=CACHE)
def fight(rs, script, terms, chicken_terms, chicken_hp, ties, hp, budget, out):
    """Straight melee to the end: exchanges until the monster (``hp``) dies (returns 1) or the player has lost
    ``budget`` HP (returns 0); no AP limit, nothing else happens. A chicken-making roll-off carries the fight on
    against a chicken (``chicken_terms``, ``chicken_hp`` HP). An endless fight (nobody can be hurt) returns 0
    after 100,000 exchanges."""
    h = hp
    k = budget
    t = terms
    for _ in range(100_000):
        exchange(rs, script, t, ties, np.int64(MELEE), np.int64(0), out)
        if out[X_CHICKEN]:
            h = chicken_hp
            t = chicken_terms
            continue
        h -= out[X_DMG_MON]
        k -= out[X_DMG_PLAYER]
        if h <= 0:
            return 1
        if k <= 0:
            return 0
    return 0


def new_terms() -> np.ndarray:
    return np.zeros(T_SIZE, dtype=np.int64)


def new_out() -> np.ndarray:
    return np.zeros(X_SIZE, dtype=np.int64)
