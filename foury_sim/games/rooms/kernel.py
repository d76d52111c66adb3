"""The Rooms engine: the navigation chapter (every rule of the seed) as small numba functions over plain arrays,
the turn loop, and the parallel kernel. Fights are ``combat.fight``'s; every choice goes through
``policies.decide``.

One game (``play_game``): ``setup`` deals the dungeon (``deal``: the deck shuffled by the game's own stream, the
dealt cells filled in reading order), then turns until the boss falls, the hero dies or ``navigation.turn_cap``.
A turn: up to ``navigation.moves`` moves (``boots_moves`` with the Speed Boots); each action is a D_ACT choice
(``act_menu``): end the turn, step through a side (``step``: a locked door takes a key, a wall a bomb, or 1 HP
instead: D_PASS), warp between warp rooms (not counted), the Magic Mirror to any room, resolve a function of
the room the hero stands in, drink a potion. Entering a room (``enter``) turns its card face up, puts a token
"elsewhere" on it, resolves a hazard at once and offers the other rooms' functions (D_RESOLVE; the menu offers
them again later). Rule -> code -> test: docs/rules-rooms.md, "Navigation".
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange, types

from ...config import CACHE, CHUNK
from ...policy import POLICY_TYPE
from ...rng import d6, roll, seed_stream
from . import layout as L
from .combat import Fight, ev_write, fight, hero_start, register_decide
from .policies import decide

_SEAT_KEYS = np.array(L.SEAT_KEYS, dtype=np.uint64)  #: the race's seat streams (layout.SEAT_KEYS)
MAX_ACTIONS = 200  #: actions in one turn at most (a safety bound: a turn-back is an action too)
MAX_DECK = 200


# Every rule function is compiled without numba's reference counting (``_nrt=False``, as ``combat._jit``): none
# allocates, and the arrays it reads are the kernel's (per chunk) or the ruleset's, alive for the whole run.


class Game(NamedTuple):
    """The ruleset's arrays (read only): navigation numbers, card table, deck, dungeon cells."""

    nav: np.ndarray  # int64[N_SIZE]
    cards: np.ndarray  # int64[n_cards, CD_COLS]
    deck: np.ndarray  # int64[deck size]: card indices
    dungeon: np.ndarray  # int64[rows * cols, 2]: (card, DEALT -2 or none -1; quarter turns)


class Work(NamedTuple):
    opts: np.ndarray  # int64[MAX_OPTIONS, N_OCOLS]
    pile: np.ndarray  # int64[MAX_DECK]: the game's shuffled deck
    q: np.ndarray  # int64[MAX_CELLS]: the distance search's queue


class Pol(NamedTuple):
    pid: int
    params: np.ndarray
    user_fn: Any
    fx: Any  # combat.Fight of the hero (the built-in fight answers read its tables)


register_decide(Pol, decide)


class Dice(NamedTuple):
    rs: np.ndarray
    script: np.ndarray
    trace: np.ndarray


@njit(cache=CACHE, inline="always")
def ev(dice, st, code, a, b, c, d, e, f, g):
    """One navigation event row (code, 7 ints) in the game's trace (nothing when tracing is off): inlined is only
    the test, the writing is ``combat.ev_write`` (one signature for every call site)."""
    if dice.trace.shape[0] > 1:
        ev_write(dice.trace, st, np.int64(code), np.int64(a), np.int64(b), np.int64(c), np.int64(d), np.int64(e),
                 np.int64(f), np.int64(g))


# --- the dungeon ----------------------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def neighbour(st, cell, side):
    """The cell beyond ``side`` (0 N, 1 E, 2 S, 3 W) of ``cell`` if a room lies there, else -1."""
    rows = st[L.S_ROWS]
    cols = st[L.S_COLS]
    r = cell // cols + (-1 if side == 0 else (1 if side == 2 else 0))
    c = cell % cols + (1 if side == 1 else (-1 if side == 3 else 0))
    if r < 0 or r >= rows or c < 0 or c >= cols:
        return -1
    to = r * cols + c
    return to if st[L.S_CARD + to] >= 0 else -1


@njit(cache=CACHE, _nrt=False)
def door(g, st, cell, side):
    """What the card in ``cell`` shows on ``side`` as it lies (turned ``S_ROT`` quarter turns clockwise)."""
    return g.cards[st[L.S_CARD + cell], L.CD_DOOR + (side - st[L.S_ROT + cell]) % 4]


@njit(cache=CACHE, _nrt=False)
def barrier(g, st, to, side):
    """What stands in the way of the hero's step through ``side`` into ``to``: open when that room holds a
    navigation token (the seed: "as if there was an open passage"), else the side of the entered card facing the
    hero, or with ``navigation.barrier = "both"`` the harder of it and the hero's own card's side (wall, locked
    door, open)."""
    if st[L.S_TOKEN + to] & L.TK_ENTERED:
        return L.DOOR_OPEN
    b = door(g, st, to, (side + 2) % 4)
    if g.nav[L.N_BARRIER_BOTH]:
        b = max(b, door(g, st, st[L.S_CELL], side))
    return b


@njit(cache=CACHE, _nrt=False)
def kind_of(g, st, cell):
    return g.cards[st[L.S_CARD + cell], L.CD_KIND]


@njit(cache=CACHE, _nrt=False)
def n_functions(kind):
    if kind == L.K_START:
        return 0
    if kind == L.K_BLACKSMITH or kind == L.K_WARP:
        return 2
    return 1


@njit(cache=CACHE, _nrt=False)
def deal(g, w, st, dice):
    """Lay the dungeon: placed cards as the file says; the dealt cells, in reading order, get the first cards of
    the deck shuffled by the game's stream (a partial Fisher-Yates), as printed or turned by a d4
    (``navigation.orientation``)."""
    n = g.dungeon.shape[0]
    size = g.deck.shape[0]
    for i in range(size):
        w.pile[i] = g.deck[i]
    k = 0
    for cell in range(n):
        card = g.dungeon[cell, 0]
        st[L.S_TOKEN + cell] = 0
        if card == -2:
            j = k + roll(dice.rs, dice.script, size - k) - 1
            t = w.pile[k]
            w.pile[k] = w.pile[j]
            w.pile[j] = t
            st[L.S_CARD + cell] = w.pile[k]
            st[L.S_ROT + cell] = roll(dice.rs, dice.script, np.int64(4)) - 1 if g.nav[L.N_ROTATE] else 0
            k += 1
        else:
            st[L.S_CARD + cell] = card
            st[L.S_ROT + cell] = g.dungeon[cell, 1]
    ev(dice, st, L.EV_DEAL, k, size, 0, 0, 0, 0, 0)


@njit(cache=CACHE, _nrt=False)
def distances(g, w, st):
    """Steps from every room to the goal room over neighbouring rooms (doors ignored): the policies' advice."""
    n = g.dungeon.shape[0]
    for c in range(n):
        st[L.S_DIST + c] = -1
    goal = st[L.S_GOAL]
    st[L.S_DIST + goal] = 0
    w.q[0] = goal
    head = 0
    tail = 1
    while head < tail:
        c = w.q[head]
        head += 1
        for s in range(4):
            to = neighbour(st, c, s)
            if to >= 0 and st[L.S_DIST + to] < 0:
                st[L.S_DIST + to] = st[L.S_DIST + c] + 1
                w.q[tail] = to
                tail += 1


@njit(cache=CACHE, _nrt=False)
def setup(g, w, st, pol, dice):
    """A new game: the state cleared (the trace count kept), the hero's sheet, the starting kit, the dungeon."""
    for i in range(1, st.shape[0]):
        st[i] = 0
    hero_start(pol.fx, st)
    st[L.S_KEYS] = g.nav[L.N_KEYS]
    st[L.S_BOMBS] = g.nav[L.N_BOMBS]
    st[L.S_POTIONS] = g.nav[L.N_POTIONS]
    st[L.S_GOLD] = g.nav[L.N_GOLD]
    st[L.S_ROWS] = g.nav[L.N_ROWS]
    st[L.S_COLS] = g.nav[L.N_COLS_]
    st[L.S_DEATH_KIND] = -1
    st[L.S_DEATH_CELL] = -1
    for c in range(L.MAX_CELLS):
        st[L.S_CARD + c] = -1
    deal(g, w, st, dice)
    for c in range(g.dungeon.shape[0]):
        if st[L.S_CARD + c] >= 0:
            k = kind_of(g, st, c)
            if k == L.K_START:
                st[L.S_CELL] = c
                st[L.S_TOKEN + c] = L.TK_SEEN | L.TK_ENTERED | L.TK_FN_A | L.TK_FN_B
            elif k == L.K_BOSS:
                st[L.S_GOAL] = c
                st[L.S_TOKEN + c] = L.TK_SEEN  # the goal lies face up
    distances(g, w, st)


# --- hit points and items ---------------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def die(g, st, cause):
    st[L.S_DEAD] = 1
    st[L.S_CAUSE] = cause
    st[L.S_DEATH_KIND] = kind_of(g, st, st[L.S_CELL])
    st[L.S_DEATH_CELL] = st[L.S_CELL]


@njit(cache=CACHE, _nrt=False)
def heal(st, hp):
    """HP back, up to the most HP; returns the HP gained."""
    got = min(hp, st[L.S_HP_MAX] - st[L.S_HP])
    if got < 0:
        got = 0
    st[L.S_HP] += got
    return got


@njit(cache=CACHE, _nrt=False)
def gain(g, st, dice, item, source):
    """The hero gets ``item`` (from a chest, a shop or a cache: ``source`` is the room kind)."""
    amount = 1
    if item == L.IT_KEY:
        st[L.S_KEYS] += 1
        held = st[L.S_KEYS]
    elif item == L.IT_BOMB:
        st[L.S_BOMBS] += 1
        held = st[L.S_BOMBS]
    elif item == L.IT_POTION:
        st[L.S_POTIONS] += 1
        held = st[L.S_POTIONS]
    elif item == L.IT_ARMOR:
        st[L.S_ARMOR] += 1
        st[L.S_HP_MAX] += g.nav[L.N_ARMOR_HP]
        st[L.S_HP] += g.nav[L.N_ARMOR_HP]
        held = st[L.S_ARMOR]
    elif item == L.IT_BOOTS:
        st[L.S_BOOTS] = 1  # a second pair adds nothing
        held = 1
    elif item == L.IT_MIRROR:
        amount = g.nav[L.N_MIRROR_USES]
        st[L.S_MIRROR] += amount
        held = st[L.S_MIRROR]
    else:
        amount = g.nav[L.N_TREASURE_GOLD]
        st[L.S_GOLD] += amount
        held = st[L.S_GOLD]
    ev(dice, st, L.EV_GAIN, item, amount, held, source, 0, 0, 0)


# --- resolving a room -------------------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def resolvable(g, st, cell, f):
    """Whether function ``f`` (0 = A, 1 = B) of the room in ``cell`` can be resolved now (not done yet; gold for
    the Blacksmith and the shop; warp travel is a move, not a resolution)."""
    k = kind_of(g, st, cell)
    if f >= n_functions(k) or st[L.S_TOKEN + cell] & (L.TK_FN_A << f):
        return False
    if k == L.K_WARP and f == 0:
        return False
    if k == L.K_BLACKSMITH:
        return st[L.S_GOLD] >= (g.nav[L.N_FORGE_COST] if f == 0 else g.nav[L.N_MEND_COST])
    if k == L.K_SHOP:  # offered only when the hero can afford an item
        for it in range(L.N_ITEMS):
            if g.nav[L.N_PRICE + it] > 0 and g.nav[L.N_PRICE + it] <= st[L.S_GOLD]:
                return True
        return False
    return True


@njit(cache=CACHE, _nrt=False)
def room_fight(g, w, st, pol, dice, cell):
    """The card's monsters fight the hero (``combat.fight``); gold for winning."""
    card = st[L.S_CARD + cell]
    n = g.cards[card, L.CD_N_MON]
    ev(dice, st, L.EV_ROOM_FIGHT, cell, g.cards[card, L.CD_KIND], n, g.cards[card, L.CD_MON],
       g.cards[card, L.CD_MON + 1], g.cards[card, L.CD_MON + 2], 0)
    won = fight(pol.fx, st, g.cards[card, L.CD_MON:L.CD_MON + L.MAX_ROOM_MONSTERS], n, w.opts, dice, pol)
    st[L.S_MOST_DEALT] = max(st[L.S_MOST_DEALT], st[L.S_DEALT])  # the fight's own damage (outputs per fight)
    st[L.S_MOST_TAKEN] = max(st[L.S_MOST_TAKEN], st[L.S_TAKEN])
    if g.cards[card, L.CD_KIND] == L.K_BOSS:
        st[L.S_BOSS_TAKEN] = st[L.S_TAKEN]
    if won != L.FIGHT_WON or st[L.S_HP] <= 0:
        die(g, st, L.CAUSE_FIGHT)
        return False
    st[L.S_GOLD] += g.cards[card, L.CD_GOLD]
    return True


@njit(cache=CACHE, _nrt=False)
def trap(g, st, dice, cell):
    """A trap: a d6 of at least ``trap_dodge`` avoids its damage (the card's value); completing it gives
    ``trap_keys`` keys."""
    roll6 = d6(dice.rs, dice.script)
    dmg = 0 if roll6 >= g.nav[L.N_TRAP_DODGE] else g.cards[st[L.S_CARD + cell], L.CD_VALUE]
    st[L.S_HP] -= dmg
    ev(dice, st, L.EV_TRAP, roll6, g.nav[L.N_TRAP_DODGE], dmg, st[L.S_HP], 0, 0, 0)
    if st[L.S_HP] <= 0:
        die(g, st, L.CAUSE_TRAP)
        return False
    st[L.S_KEYS] += g.nav[L.N_TRAP_KEYS]
    if g.nav[L.N_TRAP_KEYS]:
        ev(dice, st, L.EV_GAIN, L.IT_KEY, g.nav[L.N_TRAP_KEYS], st[L.S_KEYS], L.K_TRAP, 0, 0, 0)
    return True


@njit(cache=CACHE, _nrt=False)
def shop(g, w, st, pol, dice):
    """One purchase (D_SHOP): leave, or an item the hero can afford (``items.prices``; 0 = not sold)."""
    o = w.opts
    o[0, L.O_ACTION] = -1
    o[0, L.O_ARG] = 0
    o[0, L.O_CELL] = st[L.S_CELL]
    n = np.int64(1)
    for it in range(L.N_ITEMS):
        price = g.nav[L.N_PRICE + it]
        if price > 0 and price <= st[L.S_GOLD]:
            o[n, L.O_ACTION] = it
            o[n, L.O_ARG] = price
            o[n, L.O_CELL] = st[L.S_CELL]
            o[n, L.O_KIND] = L.K_SHOP
            o[n, L.O_COST] = 0
            o[n, L.O_DIST] = 0
            o[n, L.O_VALUE] = price
            n += 1
    c = decide(L.D_SHOP, st, o, n, pol, dice)
    if c == 0:
        return False
    st[L.S_GOLD] -= o[c, L.O_ARG]
    gain(g, st, dice, o[c, L.O_ACTION], L.K_SHOP)
    return True


@njit(cache=CACHE, _nrt=False)
def resolve(g, w, st, pol, dice, cell, f):
    """Resolve function ``f`` of the room in ``cell`` (the hero stands there): its rule, then a navigation token
    over that function (a shop left without buying stays unresolved)."""
    k = kind_of(g, st, cell)
    card = st[L.S_CARD + cell]
    amount = 0
    done = True
    if k == L.K_MONSTER or k == L.K_BOUNTY or k == L.K_BOSS:
        if not room_fight(g, w, st, pol, dice, cell):
            return
        if k == L.K_BOSS:
            st[L.S_WON] = 1
    elif k == L.K_TRAP:
        if not trap(g, st, dice, cell):
            return
    elif k == L.K_TREASURE:
        face = d6(dice.rs, dice.script)
        amount = face
        gain(g, st, dice, g.nav[L.N_TREASURE + face - 1], k)
    elif k == L.K_FOUNTAIN:
        amount = heal(st, g.cards[card, L.CD_VALUE])
    elif k == L.K_BLACKSMITH:
        if f == 0:
            st[L.S_GOLD] -= g.nav[L.N_FORGE_COST]
            gain(g, st, dice, L.IT_ARMOR, k)
        else:
            st[L.S_GOLD] -= g.nav[L.N_MEND_COST]
            amount = heal(st, g.nav[L.N_MEND_HEAL])
    elif k == L.K_WARP:
        gain(g, st, dice, g.cards[card, L.CD_VALUE], k)
    elif k == L.K_SHOP:
        done = shop(g, w, st, pol, dice)
    if done:
        st[L.S_TOKEN + cell] |= L.TK_FN_A << f
        st[L.S_RESOLVED_BY + k] += 1
    ev(dice, st, L.EV_RESOLVE, cell, k, f, amount, st[L.S_HP], int(done), 0)


@njit(cache=CACHE, inline="always")
def option(o, n, action, arg, cell, kind, cost, dist, value):
    """Option row ``n`` of the menu ``o`` (nothing past ``MAX_OPTIONS``); returns the new count. Inlined: its
    callers pass constants (0, -1) in every mix, and a compiled ``option`` was compiled once per mix."""
    if n >= L.MAX_OPTIONS:
        return n
    o[n, L.O_ACTION] = action
    o[n, L.O_ARG] = arg
    o[n, L.O_CELL] = cell
    o[n, L.O_KIND] = kind
    o[n, L.O_COST] = cost
    o[n, L.O_DIST] = dist
    o[n, L.O_VALUE] = value
    return n + 1


@njit(cache=CACHE, _nrt=False)
def enter(g, w, st, pol, dice, cell):
    """The hero enters ``cell``: the card face up, a token on it ("entered"); a hazard (red outline): each of its
    functions that can be resolved now (``resolvable``) resolved at once, no question; another room's functions
    offered (D_RESOLVE: leave for later = option 0)."""
    tok = st[L.S_TOKEN + cell]
    first = (tok & L.TK_ENTERED) == 0
    k = kind_of(g, st, cell)
    if (tok & L.TK_SEEN) == 0:
        reveal(g, st, dice, cell)
    st[L.S_TOKEN + cell] |= L.TK_SEEN | L.TK_ENTERED
    st[L.S_CELL] = cell
    if first:
        st[L.S_ENTERED] += 1
    hazard = g.cards[st[L.S_CARD + cell], L.CD_HAZARD]
    ev(dice, st, L.EV_ENTER, cell, k, int(first), hazard, st[L.S_TOKEN + cell], 0, 0)
    if hazard:  # (a warp room's cache, not its travel; a blacksmith's forge and mend only with their gold)
        for f in range(2):
            if resolvable(g, st, cell, f):
                resolve(g, w, st, pol, dice, cell, np.int64(f))
        return
    n = option(w.opts, 0, -1, -1, cell, k, 0, st[L.S_DIST + cell], 0)
    for f in range(2):
        if resolvable(g, st, cell, f):
            n = option(w.opts, n, L.A_RESOLVE, f, cell, k, 0, st[L.S_DIST + cell], 0)
    if n > 1:
        c = decide(L.D_RESOLVE, st, w.opts, n, pol, dice)
        if c > 0:
            resolve(g, w, st, pol, dice, cell, w.opts[c, L.O_ARG])


@njit(cache=CACHE, _nrt=False)
def reveal(g, st, dice, cell):
    """Turn the card in ``cell`` face up (it stays face up)."""
    st[L.S_TOKEN + cell] |= L.TK_SEEN
    card = st[L.S_CARD + cell]
    code = 0
    mul = 1
    for s in range(4):
        code += door(g, st, cell, s) * mul
        mul *= 3
    ev(dice, st, L.EV_REVEAL, cell, card, g.cards[card, L.CD_KIND], st[L.S_ROT + cell], code,
       g.cards[card, L.CD_HAZARD], 0)


# --- moving ---------------------------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def step(g, w, st, pol, dice, side):
    """A step through ``side``: the card beyond is turned face up (if it was not); a locked door takes a key, a
    wall a bomb, or ``navigation.hp_cost`` (1) HP instead of either when the hero has none (``navigation.hp_instead``;
    with one in hand too: ``navigation.hp_with_item``), or the hero turns back (D_PASS; the move is not spent and
    this side of this room is not offered again this turn: ``S_REFUSED`` per cell). A room with a token is entered
    freely."""
    here = st[L.S_CELL]
    to = neighbour(st, here, side)
    if (st[L.S_TOKEN + to] & L.TK_SEEN) == 0:
        reveal(g, st, dice, to)
    b = barrier(g, st, to, side)
    paid = -1
    if b != L.DOOR_OPEN:
        o = w.opts
        n = option(o, 0, L.PASS_BACK, b, to, kind_of(g, st, to), b, st[L.S_DIST + to], 0)
        held = (b == L.DOOR_LOCKED and st[L.S_KEYS] > 0) or (b == L.DOOR_WALL and st[L.S_BOMBS] > 0)
        if held:
            n = option(o, n, L.PASS_ITEM, b, to, kind_of(g, st, to), b, st[L.S_DIST + to], 0)
        if g.nav[L.N_HP_INSTEAD] and (not held or g.nav[L.N_HP_WITH_ITEM]):  # "if a player does not have" one
            n = option(o, n, L.PASS_HP, b, to, kind_of(g, st, to), b, st[L.S_DIST + to], g.nav[L.N_HP_COST])
        c = decide(L.D_PASS, st, o, n, pol, dice)
        paid = o[c, L.O_ACTION]
        if paid == L.PASS_BACK:
            st[L.S_REFUSED + here] |= 1 << side
            ev(dice, st, L.EV_BACK, here, to, side, b, 0, 0, 0)
            return
        if paid == L.PASS_ITEM:
            if b == L.DOOR_LOCKED:
                st[L.S_KEYS] -= 1
                st[L.S_KEYS_SPENT] += 1
            else:
                st[L.S_BOMBS] -= 1
                st[L.S_BOMBS_SPENT] += 1
        else:
            st[L.S_HP] -= g.nav[L.N_HP_COST]
            st[L.S_HP_SPENT] += g.nav[L.N_HP_COST]
            if st[L.S_HP] <= 0:
                ev(dice, st, L.EV_STEP, here, to, side, b, paid, st[L.S_MOVES_LEFT], st[L.S_HP])
                die(g, st, L.CAUSE_HP_PAID)
                return
    st[L.S_MOVES_LEFT] -= 1
    st[L.S_MOVES] += 1
    ev(dice, st, L.EV_STEP, here, to, side, b, paid, st[L.S_MOVES_LEFT], st[L.S_HP])
    enter(g, w, st, pol, dice, to)


@njit(cache=CACHE, _nrt=False)
def act_menu(g, w, st):
    """The D_ACT options where the hero stands (option 0: end the turn)."""
    o = w.opts
    here = st[L.S_CELL]
    n = option(o, 0, L.A_END, 0, here, kind_of(g, st, here), 0, st[L.S_DIST + here], 0)
    if st[L.S_POTIONS] > 0 and st[L.S_HP] < st[L.S_HP_MAX]:
        n = option(o, n, L.A_POTION, 0, here, kind_of(g, st, here), 0, st[L.S_DIST + here], g.nav[L.N_POTION_HEAL])
    for f in range(2):
        if resolvable(g, st, here, f):
            n = option(o, n, L.A_RESOLVE, f, here, kind_of(g, st, here), 0, st[L.S_DIST + here], 0)
    moves = st[L.S_MOVES_LEFT]
    if moves > 0:
        for s in range(4):
            to = neighbour(st, here, s)
            if to < 0 or st[L.S_REFUSED + here] & (1 << s):
                continue
            seen = st[L.S_TOKEN + to] & L.TK_SEEN
            n = option(o, n, L.A_MOVE, s, to, kind_of(g, st, to) if seen else -1,
                       barrier(g, st, to, s) if seen else -1, st[L.S_DIST + to], 0)
    if kind_of(g, st, here) == L.K_WARP and (moves > 0 or not g.nav[L.N_WARP_COUNTS]):
        for c in range(g.dungeon.shape[0]):
            if c != here and st[L.S_CARD + c] >= 0 and st[L.S_TOKEN + c] & L.TK_ENTERED and \
                    kind_of(g, st, c) == L.K_WARP:
                n = option(o, n, L.A_WARP, 0, c, L.K_WARP, 0, st[L.S_DIST + c], 0)
    if st[L.S_MIRROR] > 0 and (moves > 0 or not g.nav[L.N_MIRROR_COUNTS]):
        for c in range(g.dungeon.shape[0]):
            if c != here and st[L.S_CARD + c] >= 0:
                seen = st[L.S_TOKEN + c] & L.TK_SEEN
                n = option(o, n, L.A_MIRROR, 0, c, kind_of(g, st, c) if seen else -1, 0, st[L.S_DIST + c],
                           st[L.S_MIRROR])
    return n


@njit(cache=CACHE, _nrt=False)
def act(g, w, st, pol, dice):
    """One action of the hero's turn; False when the turn ends."""
    n = act_menu(g, w, st)
    c = decide(L.D_ACT, st, w.opts, n, pol, dice)
    a = w.opts[c, L.O_ACTION]
    arg = w.opts[c, L.O_ARG]
    to = w.opts[c, L.O_CELL]
    here = st[L.S_CELL]
    if a == L.A_END:
        return False
    if a == L.A_POTION:
        st[L.S_POTIONS] -= 1
        st[L.S_POTIONS_USED] += 1
        got = heal(st, g.nav[L.N_POTION_HEAL])
        ev(dice, st, L.EV_POTION, got, st[L.S_HP], st[L.S_POTIONS], 0, 0, 0, 0)
    elif a == L.A_RESOLVE:
        resolve(g, w, st, pol, dice, here, arg)
    elif a == L.A_MOVE:
        step(g, w, st, pol, dice, arg)
    elif a == L.A_WARP:
        if g.nav[L.N_WARP_COUNTS]:
            st[L.S_MOVES_LEFT] -= 1
            st[L.S_MOVES] += 1
        st[L.S_WARPS] += 1
        if (st[L.S_TOKEN + here] & L.TK_FN_A) == 0:  # the warp function's token, after its first use
            st[L.S_TOKEN + here] |= L.TK_FN_A
            st[L.S_RESOLVED_BY + L.K_WARP] += 1
        ev(dice, st, L.EV_WARP, here, to, g.nav[L.N_WARP_COUNTS], 0, 0, 0, 0)
        enter(g, w, st, pol, dice, to)
    elif a == L.A_MIRROR:
        st[L.S_MIRROR] -= 1
        st[L.S_MIRRORS_USED] += 1
        if g.nav[L.N_MIRROR_COUNTS]:
            st[L.S_MOVES_LEFT] -= 1
            st[L.S_MOVES] += 1
        ev(dice, st, L.EV_MIRROR, here, to, st[L.S_MIRROR], g.nav[L.N_MIRROR_COUNTS], 0, 0, 0)
        enter(g, w, st, pol, dice, to)
    return not (st[L.S_DEAD] or st[L.S_WON])


@njit(cache=CACHE, _nrt=False)
def turn(g, w, st, pol, dice):
    st[L.S_MOVES_LEFT] = g.nav[L.N_BOOTS_MOVES] if st[L.S_BOOTS] else g.nav[L.N_MOVES]
    for c in range(g.dungeon.shape[0]):
        st[L.S_REFUSED + c] = 0
    ev(dice, st, L.EV_NAV_TURN, st[L.S_TURN], st[L.S_MOVES_LEFT], st[L.S_HP], st[L.S_KEYS], st[L.S_BOMBS],
       st[L.S_POTIONS], st[L.S_GOLD])
    for i in range(MAX_ACTIONS):
        st[L.S_NACT] = i
        going = act(g, w, st, pol, dice)
        st[L.S_ACTS] += 1
        if not going:
            break


@njit(cache=CACHE, _nrt=False)
def finish(st, dice):
    """The end of a game (a seat's game in the race): how it ended, the EV_END row."""
    if st[L.S_WON]:
        st[L.S_CAUSE] = L.CAUSE_WON
    elif not st[L.S_DEAD]:
        st[L.S_CAUSE] = L.CAUSE_TURN_CAP
    ev(dice, st, L.EV_END, st[L.S_WON], st[L.S_CAUSE], st[L.S_HP], st[L.S_TURN], st[L.S_DEATH_KIND], 0, 0)


@njit(cache=CACHE, _nrt=False)
def play_game(g, w, st, pol, dice):
    """A whole game; the result stays in ``st``."""
    setup(g, w, st, pol, dice)
    for t in range(1, g.nav[L.N_TURN_CAP] + 1):
        st[L.S_TURN] = t
        turn(g, w, st, pol, dice)
        if st[L.S_WON] or st[L.S_DEAD]:
            break
    finish(st, dice)


# --- the race (race.players = 2..4; docs/rules-rooms.md "The race") ------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def race_score(g, st):
    """The tie-break score: race.score_hp x HP left + race.score_gold x gold + race.score_rooms x room functions
    resolved."""
    rooms = 0
    for k in range(L.N_KINDS):
        rooms += st[L.S_RESOLVED_BY + k]
    return g.nav[L.N_RACE_W_HP] * max(st[L.S_HP], 0) + g.nav[L.N_RACE_W_GOLD] * st[L.S_GOLD] + \
        g.nav[L.N_RACE_W_ROOMS] * rooms


@njit(cache=CACHE, _nrt=False)
def seat_in(dice, sts, rss, cur, s):
    """Hand the dice from seat ``cur`` to seat ``s`` (0-based): each seat rolls its own stream (words 0, 1 and the
    roll count 3 saved in ``rss``); the script position (forced dice) and the trace count are the game's, used in
    play order."""
    if cur == s:
        return
    rss[cur, 0] = dice.rs[0]
    rss[cur, 1] = dice.rs[1]
    rss[cur, 3] = dice.rs[3]
    dice.rs[0] = rss[s, 0]
    dice.rs[1] = rss[s, 1]
    dice.rs[3] = rss[s, 3]
    sts[s, L.S_NTRACE] = sts[cur, L.S_NTRACE]


@njit(cache=CACHE, _nrt=False)
def judge(g, sts, t, last, race):
    """After round ``t``: is the race decided? The seats that defeated their boss in this round finished; one of
    them wins (race.finish_round: the best score, the same best score no winner; else the first in seat order, the
    later seats' turn ``t`` not counted). No finisher: every player dead, or ``last`` (the turn cap), ends it with no
    winner. Fills ``race`` (RC_*) and returns True when decided."""
    players = g.nav[L.N_RACE_PLAYERS]
    nfin = 0
    alive = 0
    first = -1
    lastf = -1
    best = -1
    wbest = -1
    nbest = 0
    for s in range(players):
        if sts[s, L.S_WON] and sts[s, L.S_TURN] == t:
            nfin += 1
            if first < 0:
                first = s
            lastf = s
            sc = race_score(g, sts[s])
            if sc > best:
                best = sc
                wbest = s
                nbest = 1
            elif sc == best:
                nbest += 1
        elif not sts[s, L.S_DEAD]:
            alive += 1
    order = g.nav[L.N_RACE_FINISH_ROUND] == 0
    winner = 0
    swapped = 0
    if nfin == 0:
        if alive == 0:
            end = L.RE_ALL_OUT
        elif last:
            end = L.RE_CAP
        else:
            return False
    elif order:
        winner = first + 1
        swapped = players - lastf  # reversed seats: the last finisher in this order plays first
        end = L.RE_FIRST if nfin == 1 else L.RE_ORDER
    else:
        end = L.RE_FIRST if nfin == 1 else (L.RE_SCORE if nbest == 1 else L.RE_TIE)
        if nfin == 1 or nbest == 1:
            winner = wbest + 1
            swapped = players + 1 - winner
    for i in range(L.RACE_COLS):
        race[i] = 0
    race[L.RC_WINNER] = winner
    race[L.RC_END] = end
    race[L.RC_SWAPPED] = swapped
    race[L.RC_TURN] = t
    for s in range(players):
        turns = sts[s, L.S_TURN]
        if order and 0 <= first < s and turns == t:  # its turn t came after the race was won: not counted
            turns = t - 1
            state = L.SEAT_RACING
        elif sts[s, L.S_DEAD]:
            state = L.SEAT_DEAD
        elif sts[s, L.S_WON]:
            state = L.SEAT_FINISHED
        elif end == L.RE_CAP:
            state = L.SEAT_CAP
        else:
            state = L.SEAT_RACING
        race[L.RC_TURNS + s] = turns
        race[L.RC_SEAT + s] = state
        race[L.RC_SCORE + s] = race_score(g, sts[s])
    return True


@njit(cache=CACHE, _nrt=False)
def play_race(g, w, sts, pol, dice, rss, seed, game, race):
    """The race of ``race.players`` seats: each seat's dungeon dealt from its own stream (seat 1's is the solo
    game's: stream (seed, game); seat s's (seed XOR SEAT_KEYS[s], game)), then rounds: each seat still in plays its
    turn ``t`` in seat order (the solo game's turn, on its own state ``sts[s]``); after the round ``judge`` says
    whether the race is decided. Then seat 1 plays on alone to its game's end (its per-game columns are the solo
    game's, the same dice); ``race`` holds the race's outcome (RC_*)."""
    players = g.nav[L.N_RACE_PLAYERS]
    cap = g.nav[L.N_TURN_CAP]
    for s in range(players):
        if s > 0:
            sts[s, L.S_NTRACE] = sts[s - 1, L.S_NTRACE]
            for j in range(4):
                rss[s - 1, j] = dice.rs[j]
            pos = dice.rs[2]
            seed_stream(dice.rs, seed ^ _SEAT_KEYS[s], game)
            dice.rs[2] = pos
        st = sts[s]
        ev(dice, st, L.EV_SEAT, s + 1, players, 0, 0, 0, 0, 0)
        setup(g, w, st, pol, dice)
        st[L.S_SEAT] = s + 1
        st[L.S_PLAYERS] = players
    for j in range(4):
        rss[players - 1, j] = dice.rs[j]
    cur = players - 1
    decided = False
    for t in range(1, cap + 1):
        for s in range(players):
            if decided and s > 0:
                break
            if sts[s, L.S_WON] or sts[s, L.S_DEAD]:
                continue
            seat_in(dice, sts, rss, cur, s)
            cur = s
            st = sts[s]
            st[L.S_TURN] = t
            if not decided:
                ev(dice, st, L.EV_SEAT, s + 1, players, t, st[L.S_HP], 0, 0, 0)
            turn(g, w, st, pol, dice)
            if st[L.S_WON] or st[L.S_DEAD]:
                finish(st, dice)
        if not decided:
            decided = judge(g, sts, t, t == cap, race)
            if decided:
                ev(dice, sts[cur], L.EV_RACE_END, race[L.RC_WINNER], race[L.RC_END], t, race[L.RC_SWAPPED],
                   race[L.RC_SCORE + race[L.RC_WINNER] - 1] if race[L.RC_WINNER] > 0 else 0,
                   int(not (sts[0, L.S_WON] or sts[0, L.S_DEAD])), 0)
        if decided and (sts[0, L.S_WON] or sts[0, L.S_DEAD]):
            break
    if not (sts[0, L.S_WON] or sts[0, L.S_DEAD]):
        seat_in(dice, sts, rss, cur, np.int64(0))
        finish(sts[0], dice)


@njit(cache=CACHE, _nrt=False)
def write_out(g, st, out, r, game):
    """Game ``r``'s outcome into row ``r`` of ``out`` (columns as declared in outputs.py)."""
    out[r, L.OUT_GAME] = game
    out[r, L.OUT_WIN] = st[L.S_WON]
    out[r, L.OUT_TURNS] = st[L.S_TURN]
    out[r, L.OUT_HP_LEFT] = max(st[L.S_HP], 0)
    out[r, L.OUT_CAUSE] = st[L.S_CAUSE]
    out[r, L.OUT_DEATH_KIND] = st[L.S_DEATH_KIND]
    out[r, L.OUT_ENTERED] = st[L.S_ENTERED]
    out[r, L.OUT_MOVES] = st[L.S_MOVES]
    out[r, L.OUT_WARPS] = st[L.S_WARPS]
    out[r, L.OUT_MIRRORS] = st[L.S_MIRRORS_USED]
    out[r, L.OUT_KEYS_SPENT] = st[L.S_KEYS_SPENT]
    out[r, L.OUT_BOMBS_SPENT] = st[L.S_BOMBS_SPENT]
    out[r, L.OUT_HP_SPENT] = st[L.S_HP_SPENT]
    out[r, L.OUT_POTIONS_USED] = st[L.S_POTIONS_USED]
    out[r, L.OUT_GOLD] = st[L.S_GOLD]
    out[r, L.OUT_FIGHTS] = st[L.S_FIGHTS]
    out[r, L.OUT_FIGHTS_WON] = st[L.S_FIGHTS_WON]
    out[r, L.OUT_DEALT] = st[L.S_DEALT_TOTAL]
    out[r, L.OUT_TAKEN] = st[L.S_TAKEN_TOTAL]
    out[r, L.OUT_FIGHT_TURNS] = st[L.S_TURNS_TOTAL]
    out[r, L.OUT_MOST_DEALT] = st[L.S_MOST_DEALT]
    out[r, L.OUT_MOST_TAKEN] = st[L.S_MOST_TAKEN]
    out[r, L.OUT_BOSS_TAKEN] = st[L.S_BOSS_TAKEN]
    out[r, L.OUT_DEATH_CELL] = st[L.S_DEATH_CELL]
    out[r, L.OUT_BAD] = st[L.S_BAD]
    out[r, L.OUT_DECISIONS] = st[L.S_NDEC]
    for k in range(L.N_KINDS):
        out[r, L.OUT_RESOLVED + k] = st[L.S_RESOLVED_BY + k]
    nf = out.shape[1] - L.OUT_FIRED - L.HIDDEN_COLS - (L.RACE_COLS if g.nav[L.N_RACE_PLAYERS] > 1 else 0)
    for a in range(nf):
        out[r, L.OUT_FIRED + a] = st[L.S_FIRED + a]
    lo = 0
    hi = 0
    for c in range(g.dungeon.shape[0]):  # the cells entered (the run's visits per cell: board.cell_record)
        if st[L.S_TOKEN + c] & L.TK_ENTERED:
            if c < 32:
                lo |= 1 << c
            else:
                hi |= 1 << (c - 32)
    out[r, L.OUT_FIRED + nf] = lo
    out[r, L.OUT_FIRED + nf + 1] = hi


@njit(cache=CACHE, _nrt=False)
def write_race(out, r, race):
    """The race's block (RC_*) into the last RACE_COLS columns of row ``r``."""
    base = out.shape[1] - L.RACE_COLS
    for j in range(L.RACE_COLS):
        out[r, base + j] = race[j]


def _kernel(nav, cards, deck, dungeon, f_combat, f_hero, f_faces, f_abilities, f_monsters, f_keep, f_value,
            f_code, f_menu, ctl, params, user_fn, seed, script, out, trace):
    """Games ``ctl[1] .. ctl[1]+ctl[2]-1`` of stream ``seed`` (``ctl[0]``: the policy id). One ``prange``
    iteration per CHUNK of games, scratch allocated once per chunk; game ``i`` draws from its own stream
    (seed, start + i), so results never depend on threads or batches."""
    pid = ctl[0]
    start = ctl[1]
    count = ctl[2]
    nchunks = (count + CHUNK - 1) // CHUNK
    for c in prange(nchunks):
        g = Game(nav, cards, deck, dungeon)
        w = Work(np.zeros((L.MAX_OPTIONS, L.N_OCOLS), np.int64), np.zeros(MAX_DECK, np.int64),
                 np.zeros(L.MAX_CELLS, np.int64))
        fx = Fight(f_combat, f_hero, f_faces, f_abilities, f_monsters, f_keep, f_value, f_code, f_menu)
        pol = Pol(pid, params.copy(), user_fn, fx)
        st = np.zeros(L.S_SIZE, np.int64)
        rs = np.zeros(4, np.uint64)
        tr = trace if trace.shape[0] > 1 else np.zeros((0, L.TRACE_COLS), np.int64)
        dice = Dice(rs, script.copy(), tr)
        players = nav[L.N_RACE_PLAYERS]
        sts = np.zeros((L.MAX_SEATS if players > 1 else 1, L.S_SIZE), np.int64)
        rss = np.zeros((L.MAX_SEATS, 4), np.uint64)
        race = np.zeros(L.RACE_COLS, np.int64)
        for i in range(c * CHUNK, min(count, (c + 1) * CHUNK)):
            seed_stream(rs, seed, start + i)
            if players > 1:  # the race (a runtime option: the same compiled kernel)
                play_race(g, w, sts, pol, dice, rss, seed, start + i, race)
                write_out(g, sts[0], out, i, start + i)
                write_race(out, i, race)
            else:
                play_game(g, w, st, pol, dice)
                write_out(g, st, out, i, start + i)


#: The fight's arrays (``combat.Fight``) as numba types. ``combat.fight`` asks ``policies.decide``, registered for
#: ``Pol`` below (``combat.register_decide``: a direct call resolved when the kernel compiles, so it stays cacheable).
FIGHT_TYPES = (types.int64[::1], types.int64[::1], types.int64[:, ::1], types.int64[:, ::1], types.int64[:, ::1],
               types.int64[:, :, ::1], types.float64[:, ::1], types.int64[::1], types.int64[:, ::1])

KERNEL_SIG = types.void(
    types.int64[::1],  # nav
    types.int64[:, ::1],  # cards
    types.int64[::1],  # deck
    types.int64[:, ::1],  # dungeon
    *FIGHT_TYPES,  # combat, hero, faces, abilities, monsters, keep tables, value table, code index, keep menus
    types.int64[::1],  # ctl
    types.float64[::1],  # params
    POLICY_TYPE,
    types.uint64,
    types.int64[::1],  # script
    types.int64[:, ::1],  # out
    types.int64[:, ::1],  # trace
)
TRACE_COLS = L.TRACE_COLS


def _entries():
    from ...config import CompiledOnFirstUse

    return {"simulate": CompiledOnFirstUse(__name__, KERNEL_SIG, _kernel, parallel=True)}


_ENTRIES = _entries()


def entry(name: str):
    """The compiled entry point ``"simulate"`` (parallel, many games; one game with a trace when ``count`` is 1
    and the trace has rows)."""
    return _ENTRIES[name]()
