"""Rooms' fights: one whole Dice-Throne-style fight of the hero against the monsters of a room, as small njit
functions over the packed tables of ``layout.py`` (docs/rules-rooms.md, "A fight").

A fight (``fight``): CP reset to ``combat.cp_start``, statuses cleared; then rounds of

1. **the hero's turn** (``hero_turn``): + ``cp_per_turn`` CP; a poison tick (``statuses.poison``); a stunned hero
   skips the rest; else the **offensive roll** (``offensive_roll``: roll every die, up to ``rolls - 1`` free
   rerolls of any subset (decision D_KEEP), then bought rerolls (D_BUY_REROLL, ``reroll_cost`` CP each, at most
   ``max_bought_rerolls``)), and **one ability** among those the final dice make (D_ABILITY) is fired
   (``fire``): its damage / unblockable / poison / stun hit one monster (D_TARGET when several live; the
   monster's defensive roll blocks damage, not unblockable), heal / block / cp go to the hero;
2. **the monsters' turn** (``monsters_turn``), each living monster in order: its poison tick, a stun skips its
   attack, else it attacks (dice or its fixed pattern); the hero's block token, then the hero's defensive roll
   (block and counter) meet the attack; a hit that costs HP inflicts the monster's poison / stun on the hero.

The fight ends when every monster is dead (FIGHT_WON) or the hero is (FIGHT_DIED). Every choice goes through
``ask(kind, st, opts, n, pol, dice) -> 0..n-1``, the decide registered for the class of ``pol``
(``register_decide``: the engine's dispatcher for its policy tuple); ``builtin_fight`` holds the
``greedy`` and ``optimal_reroll`` answers. Every number comes from the ruleset (``Fight``, ``pack_fight``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from ...config import CACHE, CompiledOnFirstUse, use_cache
from ...rng import roll
from ...tracing import trace_row
from . import dice as D
from . import layout as L


def _jit(fn):
    """``njit`` with the on-disk cache keyed by this game package's sources (``config.use_cache``), without numba's
    reference counting (``_nrt=False``): no function of a fight allocates, and every array it reads (the state,
    the options, the ``Fight`` tables, a row or slice of them) is owned by its caller for the whole call. Counted,
    each table read from a tuple and each view paid an atomic increment and decrement of the array's shared count
    (a sixth of a game's time, and a cache line the threads fought over)."""
    with use_cache(f"{__package__}.combat"):
        return njit(cache=CACHE, _nrt=False)(fn)


class Fight(NamedTuple):
    """Every array a fight reads for one (ruleset, hero): arrays, not constants, so one compile serves every hero."""

    combat: np.ndarray  # int64[C_COLS]: combat numbers and statuses
    hero: np.ndarray  # int64[H_COLS]: the hero row
    faces: np.ndarray  # int64[N_FACES, F_COLS]
    abilities: np.ndarray  # int64[n_abilities, AB_COLS]
    monsters: np.ndarray  # int64[n_monster_kinds, M_COLS]: the monster table (``mons`` index its rows)
    keep: np.ndarray  # int64[n_abilities + 1, MAX_REROLLS + 1, n_outcomes]: optimal keep masks (last: damage)
    value: np.ndarray  # float64[MAX_REROLLS + 1, n_outcomes]: expected damage under the damage-optimal keeps
    code_index: np.ndarray  # int64[N_CODES]: outcome index of a face-counts code
    menu: np.ndarray  # int64[n_outcomes, MENU_COLS]: each outcome's D_KEEP options (``keep_menus``), abilities made


_PACKED: dict[tuple, Fight] = {}


def _rules_of(ruleset):
    """The combat chapter of a ruleset: ``DiceRules`` itself or an object holding one (``dice_rules``)."""
    return getattr(ruleset, "dice_rules", ruleset)


def monster_keys(ruleset) -> list[str]:
    """Monster keys in the order of ``Fight.monsters`` rows."""
    return list(_rules_of(ruleset).monsters)


def pack_fight(ruleset, hero: str) -> Fight:
    """The ``Fight`` of ``hero`` under ``ruleset`` (its exact keep tables included), cached per (tables, hero)."""
    rules = _rules_of(ruleset)
    h = rules.heroes[hero]
    mons = np.stack([m.row for m in rules.monsters.values()]).astype(np.int64)
    key = (hero, rules.combat.tobytes(), h.faces.tobytes(), h.abilities.tobytes(), h.row.tobytes(), mons.tobytes())
    if key not in _PACKED:
        od = D.hero_odds(h, rules.dice)
        menu = keep_menus(rules.dice)
        n_ab = h.abilities.shape[0]
        menu[:, MENU_MADE] = (od.made.astype(np.int64) << np.arange(n_ab, dtype=np.int64)[:, None]).sum(axis=0)
        _PACKED[key] = Fight(rules.combat.copy(), h.row.copy(), h.faces.copy(), h.abilities.copy(), mons,
                             np.ascontiguousarray(od.keep), np.ascontiguousarray(od.value[-1]),
                             od.space.code_index.copy(), menu)
    return _PACKED[key]


#: Columns of ``Fight.menu``: the number of D_KEEP options, their masks (O_ACTION), their kept dice (O_ARG); then
#: the abilities the outcome makes (bit ab: ``dice.ability_made``, from the hero's ``dice.hero_odds``; the table
#: belongs to the sheet's requirements: a ``Fight`` with other abilities needs its own, ``pack_fight``).
MENU_N = 0
MENU_MASK = 1
MENU_KEPT = MENU_MASK + L.N_MASKS
MENU_MADE = MENU_KEPT + L.N_MASKS
MENU_COLS = MENU_MADE + 1
_MENUS: dict[int, np.ndarray] = {}


def keep_menus(n_dice: int) -> np.ndarray:
    """The D_KEEP options of every outcome of ``n_dice`` dice (``dice.space`` order), rows of ``keep_options``
    itself (the fight copies a row instead of enumerating the keeps at every reroll): int64[n_out, MENU_COLS]
    (MENU_MADE left 0: ``pack_fight`` fills it per hero). Built once per process."""
    if n_dice not in _MENUS:
        sp = D.space(n_dice)
        menu = np.zeros((sp.n_out, MENU_COLS), dtype=np.int64)
        _ENTRIES["keep_menus"]()(sp.outs, menu)
        _MENUS[n_dice] = menu
    return _MENUS[n_dice].copy()


def _keep_menus(outs, menu):
    """``keep_menus``' rows: ``keep_options`` of each outcome's dice, its masks and kept counts."""
    st = np.zeros(L.S_DICE + L.MAX_DICE, dtype=np.int64)
    opts = np.zeros((L.MIN_OPTIONS, 2), dtype=np.int64)
    keep = np.zeros(L.N_FACES, dtype=np.int64)
    for o in range(outs.shape[0]):
        n = keep_options(st, opts, outs[o], keep)
        menu[o, MENU_N] = n
        for i in range(n):
            menu[o, MENU_MASK + i] = opts[i, L.O_ACTION]
            menu[o, MENU_KEPT + i] = opts[i, L.O_ARG]


#: ``keep_menus``' entry point, built on first use (``config.CompiledOnFirstUse``: shipped as machine code with the
#: engine's, so a first run compiles nothing).
_ENTRIES = {
    "keep_menus": CompiledOnFirstUse(f"{__package__}.combat", types.void(types.int64[:, ::1], types.int64[:, ::1]),
                                     _keep_menus, part="keep menus"),
}


# --------------------------------------------------------------------------- the player --
#: The decide of each player class: ``{pol NamedTuple class: njit decide(kind, st, opts, n, pol, dice) -> 0..n-1}``.
_DECIDES: dict[type, object] = {}


def register_decide(pol_class: type, decide) -> None:
    """Fights whose ``pol`` is a ``pol_class`` ask ``decide`` (an njit function) every choice. The engine registers
    its dispatcher for its policy tuple (``policies.decide``); ``combat.ScriptPol`` and ``odds.OddsPol`` are
    registered here. Register before the first fight is compiled."""
    _DECIDES[pol_class] = decide


def ask(kind, st, opts, n, pol, dice):
    """The decide registered for ``type(pol)`` (compiled: resolved by the type of ``pol`` when a fight compiles,
    a direct call, so that every kernel playing fights stays cacheable)."""
    return _DECIDES[type(pol)](kind, st, opts, n, pol, dice)


@overload(ask)
def _ask(kind, st, opts, n, pol, dice):
    fn = _DECIDES.get(getattr(pol, "instance_class", None))
    if fn is None:
        raise TypeError(f"no decide registered for the player {pol} (combat.register_decide(PolClass, decide); "
                        "the player must be a NamedTuple)")

    def impl(kind, st, opts, n, pol, dice):
        return fn(kind, st, opts, n, pol, dice)

    return impl


# ------------------------------------------------------------------------------------ trace --
def _jit_inline(fn):
    """``_jit`` inlined into its callers (numba IR inlining)."""
    with use_cache(f"{__package__}.combat"):
        return njit(cache=CACHE, inline="always", _nrt=False)(fn)


@_jit_inline
def ev(dice, st, code, a, b, c, d, e, f, g):
    """One fight event row (code, 7 ints) in the game's trace (nothing when tracing is off). Inlined is only the
    test (a simulation pays one comparison); the writing is ``ev_write``, one signature for every call site."""
    if dice.trace.shape[0] > 1:
        ev_write(dice.trace, st, np.int64(code), np.int64(a), np.int64(b), np.int64(c), np.int64(d), np.int64(e),
                 np.int64(f), np.int64(g))


@_jit
def ev_write(trace, st, code, a, b, c, d, e, f, g):
    """The row of ``ev`` (and of the engine's navigation events): counted in ``st[S_NTRACE]``, rows from 1."""
    trace_row(trace, st, L.S_NTRACE, 1, code, (a, b, c, d, e, f, g))


@_jit
def _die(st, i):
    """Die i of the offensive roll (face index) or -1 past the dice rolled (for the trace)."""
    return st[L.S_DICE + i] if i < st[L.S_N_DICE] else -1


@_jit
def ev_roll(dice, st, number, mask):
    if dice.trace.shape[0] > 1:
        ev(dice, st, L.EV_ROLL, number, _die(st, np.int64(0)), _die(st, np.int64(1)), _die(st, np.int64(2)),
           _die(st, np.int64(3)), _die(st, np.int64(4)), mask)


# ------------------------------------------------------------------------------ hero state --
@_jit
def hero_start(fx, st):
    """The hero at the start of a game: full HP (the engine calls it; ``fight`` does if nobody has)."""
    st[L.S_HP] = fx.hero[L.H_HP]
    st[L.S_HP_MAX] = fx.hero[L.H_HP]


@_jit
def hero_loses(st, hp):
    """The hero loses ``hp`` (>= 0): HP and the damage-taken counters."""
    st[L.S_HP] -= hp
    st[L.S_TAKEN] += hp
    st[L.S_TAKEN_TOTAL] += hp


@_jit
def add_capped(st, slot, n, most):
    st[slot] = min(st[slot] + n, most)


@_jit
def mon(slot, col):
    """The state slot of column ``col`` of monster ``slot``."""
    return L.S_MON + slot * L.MON_COLS + col


@_jit
def monster_loses(dice, st, slot, hp):
    """Monster ``slot`` loses ``hp`` (>= 0; HP it has not are not counted as dealt); dies at 0."""
    left = st[mon(slot, L.MON_HP)]
    taken = min(hp, left)
    st[mon(slot, L.MON_HP)] = left - taken
    st[L.S_DEALT] += taken
    st[L.S_DEALT_TOTAL] += taken
    if left > 0 and left - taken <= 0:
        st[mon(slot, L.MON_POISON)] = 0
        st[mon(slot, L.MON_STUN)] = 0
        st[L.S_MON_LEFT] -= 1
        ev(dice, st, L.EV_MON_DEAD, slot, st[mon(slot, L.MON_ROW)], 0, 0, 0, 0, 0)
    return taken


# -------------------------------------------------------------------------- offensive roll --
@_jit
def keep_options(st, opts, counts, keep):
    """The D_KEEP options of the sorted dice ``st[S_DICE:]`` (face ``counts``): one row per distinct kept
    multiset, keep all first, then counting down (face 0 fastest) to keep none. Returns their number."""
    for f in range(L.N_FACES):
        keep[f] = counts[f]
    n = 0
    while True:
        kept = 0
        for f in range(L.N_FACES):
            kept += keep[f]
        opts[n, L.O_ACTION] = D.keep_mask(counts, keep)
        opts[n, L.O_ARG] = kept
        n += 1
        f = 0
        while f < L.N_FACES and keep[f] == 0:
            keep[f] = counts[f]
            f += 1
        if f == L.N_FACES:
            return n
        keep[f] -= 1


@_jit
def roll_dice(st, dice, nd):
    """Roll ``nd`` offensive dice into ``st[S_DICE:]`` (face indices, sorted)."""
    st[L.S_N_DICE] = nd
    for i in range(nd):
        st[L.S_DICE + i] = roll(dice.rs, dice.script, L.N_FACES) - 1
    D.sort_dice(st[L.S_DICE: L.S_DICE + nd], nd)


@_jit
def reroll_unkept(st, dice, nd, mask):
    """Reroll the dice whose bit is not in ``mask`` (sorted order), then sort again."""
    for i in range(nd):
        if not (mask >> i) & 1:
            st[L.S_DICE + i] = roll(dice.rs, dice.script, L.N_FACES) - 1
    D.sort_dice(st[L.S_DICE: L.S_DICE + nd], nd)


#: BASE ** face: a face's term in a face-counts code (``dice.counts_code``).
_POW = np.array([D.BASE**f for f in range(L.N_FACES)], dtype=np.int64)


@_jit
def dice_code(st, nd):
    """The face-counts code of the offensive dice ``st[S_DICE:S_DICE+nd]`` (``dice.counts_code`` of their counts)."""
    code = 0
    for i in range(nd):
        code += _POW[st[L.S_DICE + i]]
    return code


@_jit
def st_counts(st, counts):
    D.dice_counts(st[L.S_DICE: L.S_DICE + st[L.S_N_DICE]], st[L.S_N_DICE], counts)


@_jit
def offensive_roll(fx, st, opts, dice, pol, counts, keep):
    """Roll every die, then free rerolls (D_KEEP; keeping every die stops), then bought ones (D_BUY_REROLL, then
    D_KEEP). Leaves the final dice in ``st[S_DICE:]`` and their face counts in ``counts``."""
    nd = fx.hero[L.H_DICE]
    full = (1 << nd) - 1
    roll_dice(st, dice, nd)
    number = np.int64(1)
    ev_roll(dice, st, number, np.int64(-1))
    free = fx.combat[L.C_ROLLS] - 1
    bought = 0
    while True:
        if free > 0:
            st[L.S_REROLLS_LEFT] = free
        elif bought < fx.combat[L.C_MAX_BOUGHT] and st[L.S_CP] >= fx.combat[L.C_REROLL_COST]:
            opts[0, L.O_ACTION] = 0
            opts[0, L.O_ARG] = 0
            opts[1, L.O_ACTION] = 1
            opts[1, L.O_ARG] = fx.combat[L.C_REROLL_COST]
            st[L.S_REROLLS_LEFT] = 0
            if ask(L.D_BUY_REROLL, st, opts, 2, pol, dice) != 1:
                break
            st[L.S_CP] -= fx.combat[L.C_REROLL_COST]
            st[L.S_BOUGHT] += 1
            bought += 1
            ev(dice, st, L.EV_BUY, fx.combat[L.C_REROLL_COST], st[L.S_CP], 0, 0, 0, 0, 0)
            st[L.S_REROLLS_LEFT] = 1
        else:
            break
        st_counts(st, counts)
        for f in range(L.N_FACES):  # the scratch as keep_options leaves it (a user policy may read st)
            keep[f] = counts[f]
        o = fx.code_index[dice_code(st, nd)]  # the menu of these dice: keep_options' rows, copied
        n = fx.menu[o, MENU_N]
        for i in range(n):
            opts[i, L.O_ACTION] = fx.menu[o, MENU_MASK + i]
            opts[i, L.O_ARG] = fx.menu[o, MENU_KEPT + i]
        mask = opts[ask(L.D_KEEP, st, opts, n, pol, dice), L.O_ACTION]
        if mask == full:
            break
        reroll_unkept(st, dice, nd, mask)
        number += 1
        ev_roll(dice, st, number, mask)
        if free > 0:
            free -= 1
    st[L.S_REROLLS_LEFT] = 0
    st_counts(st, counts)


# ------------------------------------------------------------------------------ an ability --
@_jit
def choose_target(fx, st, opts, dice, pol):
    """The monster an ability hits: the only one alive, else decision D_TARGET (O_ACTION = slot, O_ARG = HP)."""
    n = 0
    for s in range(L.MAX_MONSTERS):
        if st[mon(s, L.MON_HP)] > 0:
            opts[n, L.O_ACTION] = s
            opts[n, L.O_ARG] = st[mon(s, L.MON_HP)]
            n += 1
    if n == 1:
        return opts[0, L.O_ACTION]
    return opts[ask(L.D_TARGET, st, opts, n, pol, dice), L.O_ACTION]


@_jit
def monster_defence(fx, dice, row):
    """The monster's defensive roll: M_DEF_DICE d6, each face blocking M_DEF_BLOCK[face - 1]."""
    b = 0
    for _ in range(fx.monsters[row, L.M_DEF_DICE]):
        b += fx.monsters[row, L.M_DEF_BLOCK + roll(dice.rs, dice.script, np.int64(6)) - 1]
    return b


@_jit
def fire(fx, st, ab, opts, dice, pol):
    """Fire ability ``ab``: damage (less the target's defensive roll), unblockable, poison and stun on one monster;
    heal (up to the hero's most HP), block and cp on the hero."""
    a = fx.abilities[ab]
    dmg = a[L.AB_EFFECT + L.E_DAMAGE]
    unbl = a[L.AB_EFFECT + L.E_UNBLOCKABLE]
    poison = a[L.AB_EFFECT + L.E_POISON]
    stun = a[L.AB_EFFECT + L.E_STUN]
    st[L.S_FIRED + ab] += 1
    target = -1
    blocked = 0
    total = 0
    dealt = 0
    if (dmg > 0 or unbl > 0 or poison > 0 or stun > 0) and st[L.S_MON_LEFT] > 0:
        target = choose_target(fx, st, opts, dice, pol)
        row = st[mon(target, L.MON_ROW)]
        if dmg > 0 and fx.monsters[row, L.M_DEF_DICE] > 0:
            blocked = min(dmg, monster_defence(fx, dice, row))
        total = dmg - blocked + unbl
        dealt = min(total, st[mon(target, L.MON_HP)]) if total > 0 else 0
    ev(dice, st, L.EV_FIRE, ab, target, dmg, blocked, unbl, dealt, 0)  # before the target's death, in the trace
    if target >= 0:
        if total > 0:
            monster_loses(dice, st, target, total)
        if st[mon(target, L.MON_HP)] > 0:
            add_capped(st, mon(target, L.MON_POISON), poison, fx.combat[L.C_POISON_MAX])
            add_capped(st, mon(target, L.MON_STUN), stun, fx.combat[L.C_STUN_MAX])
    heal = a[L.AB_EFFECT + L.E_HEAL]
    block = a[L.AB_EFFECT + L.E_BLOCK]
    cp = a[L.AB_EFFECT + L.E_CP]
    st[L.S_HP] = max(st[L.S_HP], min(st[L.S_HP] + heal, st[L.S_HP_MAX]))
    st[L.S_BLOCK] += block
    add_capped(st, L.S_CP, cp, fx.combat[L.C_CP_MAX])
    if heal or block or poison or stun or cp:
        ev(dice, st, L.EV_EFFECT, heal, block, poison, stun, cp, st[L.S_HP], 0)


@_jit
def ability_options(fx, st, opts, counts):
    """The D_ABILITY options: every ability the final dice make (O_ACTION = its index). Returns their number.
    Which abilities they make is looked up (``Fight.menu``, MENU_MADE: ``dice.ability_made`` of every outcome)."""
    made = fx.menu[fx.code_index[D.counts_code(counts)], MENU_MADE]
    n = 0
    for ab in range(fx.abilities.shape[0]):
        if (made >> ab) & 1:
            opts[n, L.O_ACTION] = ab
            opts[n, L.O_ARG] = D.ability_damage(fx.abilities, ab)
            n += 1
    return n


@_jit
def poison_tick(fx, st, slot):
    """The poisoned one's tick at the start of its turn: ``damage`` per stack, then ``decay`` stacks fall off.
    Returns the damage (0 when not poisoned)."""
    stacks = st[slot]
    if stacks <= 0:
        return 0
    st[slot] = max(0, stacks - fx.combat[L.C_POISON_DECAY])
    return stacks * fx.combat[L.C_POISON_DAMAGE]


@_jit
def hero_turn(fx, st, opts, dice, pol, counts, keep):
    """The hero's turn. Returns False when the hero died (of poison)."""
    add_capped(st, L.S_CP, fx.combat[L.C_CP_PER_TURN], fx.combat[L.C_CP_MAX])
    ev(dice, st, L.EV_TURN, st[L.S_FIGHT_TURN], st[L.S_HP], st[L.S_CP], st[L.S_POISON], st[L.S_STUN],
       st[L.S_BLOCK], 0)
    hurt = poison_tick(fx, st, L.S_POISON)
    if hurt > 0:
        hero_loses(st, hurt)
        ev(dice, st, L.EV_POISON_TICK, -1, hurt, st[L.S_POISON], st[L.S_HP], 0, 0, 0)
        if st[L.S_HP] <= 0:
            st[L.S_KILLER] = L.KILLED_BY_POISON
            return False
    if st[L.S_STUN] > 0:
        st[L.S_STUN] -= 1
        st[L.S_STUNNED] += 1
        ev(dice, st, L.EV_STUNNED, -1, st[L.S_STUN], 0, 0, 0, 0, 0)
        return True
    offensive_roll(fx, st, opts, dice, pol, counts, keep)
    n = ability_options(fx, st, opts, counts)
    if n == 0:
        st[L.S_NOTHING] += 1
        ev(dice, st, L.EV_NOTHING, 0, 0, 0, 0, 0, 0, 0)
        return True
    ab = opts[ask(L.D_ABILITY, st, opts, n, pol, dice) if n > 1 else 0, L.O_ACTION]
    fire(fx, st, ab, opts, dice, pol)
    return True


# ------------------------------------------------------------------------------- monsters --
@_jit
def monster_attack(fx, st, dice, slot):
    """The damage of monster ``slot``'s next attack: the sum of its dice's faces, or its pattern's next entry."""
    row = st[mon(slot, L.MON_ROW)]
    m = fx.monsters[row]
    k = st[mon(slot, L.MON_ATTACKS)]
    st[mon(slot, L.MON_ATTACKS)] = k + 1
    if m[L.M_ATK_KIND] == L.ATK_PATTERN:
        return m[L.M_PATTERN + k % m[L.M_PATTERN_LEN]]
    a = 0
    for _ in range(m[L.M_ATK_DICE]):
        a += m[L.M_ATK_FACE + roll(dice.rs, dice.script, np.int64(6)) - 1]
    return a


@_jit
def hero_defence(fx, st, dice, slot, attack):
    """The hero meets an attack of ``attack`` > 0 HP: the block token first (spent whole), then, if damage is left,
    the defensive roll (H_DEF_DICE hero dice: block and counter per face). Returns False when the hero died."""
    row = st[mon(slot, L.MON_ROW)]
    token = min(st[L.S_BLOCK], attack)
    st[L.S_BLOCK] = 0
    left = attack - token
    block = 0
    counter = np.int64(0)
    if left > 0 and fx.hero[L.H_DEF_DICE] > 0:
        code = 0  # the faces rolled, for the trace: sum (face + 1) * 8**i
        for i in range(fx.hero[L.H_DEF_DICE]):
            face = roll(dice.rs, dice.script, L.N_FACES) - 1
            code += (face + 1) << (3 * i)
            block += fx.hero[L.H_DEF_BLOCK + face]
            counter += fx.hero[L.H_DEF_COUNTER + face]
        ev(dice, st, L.EV_DEF_ROLL, -1, fx.hero[L.H_DEF_DICE], code, block, counter, 0, 0)
    lost = max(0, left - block)
    hero_loses(st, lost)
    ev(dice, st, L.EV_ATTACK, slot, attack, token, block, counter, lost, st[L.S_HP])
    if lost > 0:
        p = fx.monsters[row, L.M_POISON]
        s = fx.monsters[row, L.M_STUN]
        if p or s:
            add_capped(st, L.S_POISON, p, fx.combat[L.C_POISON_MAX])
            add_capped(st, L.S_STUN, s, fx.combat[L.C_STUN_MAX])
            ev(dice, st, L.EV_INFLICT, slot, p, s, st[L.S_POISON], st[L.S_STUN], 0, 0)
    if counter > 0:
        monster_loses(dice, st, slot, counter)
    if st[L.S_HP] <= 0:
        st[L.S_KILLER] = 1 + row
        return False
    return True


@_jit
def monsters_turn(fx, st, dice):
    """Each living monster in slot order: poison tick, stun (skips the attack), else attack. False: hero died."""
    for s in range(L.MAX_MONSTERS):
        if st[mon(s, L.MON_HP)] <= 0:
            continue
        hurt = poison_tick(fx, st, mon(s, L.MON_POISON))
        if hurt > 0:
            ev(dice, st, L.EV_POISON_TICK, s, hurt, st[mon(s, L.MON_POISON)], max(st[mon(s, L.MON_HP)] - hurt, 0),
               0, 0, 0)  # the tick before the death, in the trace
            monster_loses(dice, st, s, hurt)
            if st[mon(s, L.MON_HP)] <= 0:
                continue
        if st[mon(s, L.MON_STUN)] > 0:
            st[mon(s, L.MON_STUN)] -= 1
            ev(dice, st, L.EV_STUNNED, s, st[mon(s, L.MON_STUN)], 0, 0, 0, 0, 0)
            continue
        attack = monster_attack(fx, st, dice, s)
        if attack > 0 and not hero_defence(fx, st, dice, s, attack):
            return False
        if attack <= 0:
            ev(dice, st, L.EV_ATTACK, s, 0, 0, 0, 0, 0, st[L.S_HP])
    return True


# ---------------------------------------------------------------------------------- a fight --
@_jit
def start_fight(fx, st, mons, n_mon, dice):
    """CP to cp_start, hero statuses and the fight's counters cleared, the monsters ``mons[:n_mon]`` (rows of
    ``fx.monsters``; at most MAX_MONSTERS) in slots 0.. at full HP."""
    if st[L.S_HP_MAX] == 0:
        hero_start(fx, st)
    st[L.S_CP] = fx.combat[L.C_CP_START]
    st[L.S_POISON] = 0
    st[L.S_STUN] = 0
    st[L.S_BLOCK] = 0
    st[L.S_FIGHT_TURN] = 0
    st[L.S_DEALT] = 0
    st[L.S_TAKEN] = 0
    st[L.S_FIGHTS] += 1
    n = min(n_mon, L.MAX_MONSTERS)
    st[L.S_MON_LEFT] = n
    for s in range(L.MAX_MONSTERS):
        st[mon(s, L.MON_ROW)] = mons[s] if s < n else -1
        st[mon(s, L.MON_HP)] = fx.monsters[mons[s], L.M_HP] if s < n else 0
        st[mon(s, L.MON_POISON)] = 0
        st[mon(s, L.MON_STUN)] = 0
        st[mon(s, L.MON_ATTACKS)] = 0
    ev(dice, st, L.EV_FIGHT, n, mons[0] if n > 0 else -1, mons[1] if n > 1 else -1, mons[2] if n > 2 else -1,
       st[L.S_HP], st[L.S_CP], 0)


@_jit
def end_fight(dice, st, won):
    if won:
        st[L.S_FIGHTS_WON] += 1
        ev(dice, st, L.EV_WON, st[L.S_FIGHT_TURN], st[L.S_HP], st[L.S_DEALT], st[L.S_TAKEN], 0, 0, 0)
        return L.FIGHT_WON
    ev(dice, st, L.EV_DIED, st[L.S_FIGHT_TURN], st[L.S_KILLER], st[L.S_DEALT], st[L.S_TAKEN], 0, 0, 0)
    return L.FIGHT_DIED


@_jit
def fight(fx, st, mons, n_mon, opts, dice, pol, decide=None):
    """One whole fight of the hero (persistent state in ``st``) against the monsters ``mons[:n_mon]`` (rows of
    ``fx.monsters``): hero's turn, monsters' turn, until every monster or the hero is dead. Returns FIGHT_WON or
    FIGHT_DIED. Every choice goes through ``ask(kind, st, opts, n, pol, dice)``: the decide registered for the
    class of ``pol`` (``register_decide``). ``decide`` is ignored (the contract's first signature): pass nothing, as a
    jitted function passed as a value makes its caller's compiled code uncacheable (numba embeds its address)."""
    start_fight(fx, st, mons, n_mon, dice)
    counts = st[L.S_SCRATCH: L.S_SCRATCH + L.N_FACES]
    keep = st[L.S_SCRATCH + L.N_FACES: L.S_SCRATCH + 2 * L.N_FACES]
    while st[L.S_MON_LEFT] > 0:
        if st[L.S_FIGHT_TURN] >= fx.combat[L.C_MAX_FIGHT_TURNS]:
            ev(dice, st, L.EV_EXHAUSTED, st[L.S_FIGHT_TURN], 0, 0, 0, 0, 0, 0)
            hero_loses(st, max(st[L.S_HP], 0))
            return end_fight(dice, st, np.bool_(False))
        st[L.S_FIGHT_TURN] += 1
        st[L.S_TURNS_TOTAL] += 1
        if not hero_turn(fx, st, opts, dice, pol, counts, keep):
            return end_fight(dice, st, np.bool_(False))
        if st[L.S_MON_LEFT] <= 0:
            break
        if not monsters_turn(fx, st, dice):
            return end_fight(dice, st, np.bool_(False))
    return end_fight(dice, st, np.bool_(True))


# ------------------------------------------------------------------------ built-in answers --
@_jit
def find_action(opts, n, action):
    """The option whose O_ACTION is ``action`` (0 if none)."""
    for i in range(n):
        if opts[i, L.O_ACTION] == action:
            return i
    return 0


@_jit
def builtin_fight(pid, kind, st, opts, n, params, fx):
    """The ``greedy`` (P_GREEDY; ``params`` = dice.GREEDY_PARAMS) and ``optimal_reroll`` (P_OPTIMAL) answers to
    the fight decisions; other ids answer 0.

    * D_KEEP: greedy: ``dice.greedy_keep`` chasing damage; optimal: the damage-optimal table
      ``fx.keep[-1, rerolls left, outcome]`` (maximises the expected damage of the ability fired this turn).
    * D_BUY_REROLL: greedy: buy when its keep would reroll a die; optimal: buy when one more reroll raises the
      expected damage (``fx.value[1, o] > fx.value[0, o]``).
    * D_ABILITY: the most damage + unblockable (the first on the sheet among equals).
    * D_TARGET: the living monster with the least HP (the first slot among equals): focus fire.
    """
    if pid != L.P_GREEDY and pid != L.P_OPTIMAL:
        return 0
    if kind == L.D_KEEP or kind == L.D_BUY_REROLL:
        nd = st[L.S_N_DICE]
        full = (1 << nd) - 1
        if pid == L.P_GREEDY:
            counts = st[L.S_SCRATCH + 2 * L.N_FACES: L.S_SCRATCH + 3 * L.N_FACES]
            D.dice_counts(st[L.S_DICE: L.S_DICE + nd], nd, counts)
            keep = st[L.S_SCRATCH + 3 * L.N_FACES: L.S_SCRATCH + 4 * L.N_FACES]
            mask = D.greedy_keep(fx.faces, fx.abilities, np.int64(-1), counts, params, keep)
            if kind == L.D_BUY_REROLL:
                return 1 if mask != full and n > 1 else 0
            return find_action(opts, n, mask)
        o = fx.code_index[dice_code(st, nd)]
        if kind == L.D_BUY_REROLL:
            return 1 if fx.value[1, o] > fx.value[0, o] + 1e-9 and n > 1 else 0
        return find_action(opts, n, fx.keep[fx.keep.shape[0] - 1, st[L.S_REROLLS_LEFT], o])
    best = 0
    if kind == L.D_ABILITY:
        for i in range(1, n):
            if opts[i, L.O_ARG] > opts[best, L.O_ARG]:
                best = i
        return best
    if kind == L.D_TARGET:
        for i in range(1, n):
            if opts[i, L.O_ARG] < opts[best, L.O_ARG]:
                best = i
        return best
    return 0


# --------------------------------------------------------------------- a scripted player --
# Fights outside the engine (tests, the odds driver, a notebook) need a dice tuple and a player. They live here,
# not in tests/: numba's on-disk cache index of every function of this file records the types it was compiled
# for, and a type defined in a module only the tests can import would break loading that index elsewhere.
class FightDice(NamedTuple):
    """A fight's dice as the fight code reads them: the stream (``rng``), forced dice, the trace (rows when
    tracing, else one row)."""

    rs: np.ndarray
    script: np.ndarray
    trace: np.ndarray


#: ``ScriptPol.pid`` of the scripted player (other ids: the built-ins, P_RANDOM included).
P_SCRIPT = 99


class ScriptPol(NamedTuple):
    """A player for fights outside the engine: ``pid`` = P_SCRIPT answers ``answers[i]`` (the O_ACTION wanted) at
    the i-th decision asked (option 0 when absent; not found: counted in ``pos[1]``, option 0); P_RANDOM picks
    uniformly on the dice stream; P_GREEDY / P_OPTIMAL answer as ``builtin_fight``. ``asked[i]`` = (kind, n)."""

    pid: int
    params: np.ndarray
    fx: Fight
    answers: np.ndarray
    asked: np.ndarray
    pos: np.ndarray


@_jit
def script_decide(kind, st, opts, n, pol, dice):
    i = pol.pos[0]
    if i < pol.asked.shape[0]:
        pol.asked[i, 0] = kind
        pol.asked[i, 1] = n
    pol.pos[0] = i + 1
    if pol.pid == P_SCRIPT:
        if i < pol.answers.shape[0]:
            for j in range(n):
                if opts[j, L.O_ACTION] == pol.answers[i]:
                    return j
            pol.pos[1] += 1
        return 0
    if pol.pid == L.P_RANDOM:
        return roll(dice.rs, dice.script, n) - 1
    return builtin_fight(pol.pid, kind, st, opts, n, pol.params, pol.fx)


register_decide(ScriptPol, script_decide)


@_jit
def play_fight(fx, st, mons, n_mon, opts, dice, pol):
    """A fight of a ``ScriptPol`` player (``script_decide``) with ``FightDice``: a cacheable entry point."""
    return fight(fx, st, mons, n_mon, opts, dice, pol)
