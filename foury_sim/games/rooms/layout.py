"""Rooms' combat-dice layout: the columns of the packed hero, ability and monster tables, and the codes of
combo kinds and effects. Every constant the dice programme (``dice.py``) and the future kernel read lives
here, as plain ints so numba freezes them. ``ruleset.py`` fills the tables; docs/rules-rooms.md explains them.
"""

from __future__ import annotations

# --- dice ----------------------------------------------------------------------------------
N_FACES = 6  #: faces of a hero die (face index 0..5, in the order of the sheet's ``numbers``/``symbols``)
MAX_DICE = 5  #: dice a hero rolls at most (keep masks are 5 bits: 32 subsets)
N_MASKS = 1 << MAX_DICE
MAX_REROLLS = 4  #: rerolls left a table covers at most (2 free + bought ones); tables are [0..MAX_REROLLS]
MAX_SYMBOLS = 6  #: different symbols one hero's die may show
NO_SYMBOL = -1  #: a face without a symbol

# --- the face table: int64[N_FACES, F_COLS] -----------------------------------------------
F_NUMBER = 0  #: the number printed on the face, 1..6
F_SYMBOL = 1  #: the symbol's index in the hero's ``symbols`` list, or NO_SYMBOL
F_COLS = 2

# --- combo kinds: one requirement of an ability ---------------------------------------------
#: kind n (RQ_A = n): n dice show the same number; small_straight: 4 numbers in a row; large_straight: 5 in
#: a row; full_house: 3 of one number and 2 of another; two_pair: 2 of one number and 2 of another (for both,
#: RQ_A = 1 when one number on all their dice counts too: ``[rulings]``); symbol (RQ_A = symbol index, RQ_B = k): k
#: dice show the symbol.
CK_KIND, CK_SMALL_STRAIGHT, CK_LARGE_STRAIGHT, CK_FULL_HOUSE, CK_TWO_PAIR, CK_SYMBOL = range(6)
COMBO_KINDS = ("kind", "small_straight", "large_straight", "full_house", "two_pair", "symbol")
#: The keys each combo kind takes in a sheet (besides ``combo``).
COMBO_FIELDS = {
    "kind": ("n",),
    "small_straight": (),
    "large_straight": (),
    "full_house": (),
    "two_pair": (),
    "symbol": ("symbol", "k"),
}
#: Dice each combo kind needs at least (an ability a hero's dice count can never make is refused).
COMBO_MIN_DICE = (2, 4, 5, 5, 4, 1)

# --- effects of an ability (what the engine will apply; data only here) ----------------------
E_DAMAGE, E_UNBLOCKABLE, E_HEAL, E_BLOCK, E_POISON, E_STUN, E_CP = range(7)
#: damage: blocked by the target's block and defensive roll; unblockable: never blocked; heal: HP back (up to
#: the hero's hp); block: damage prevented from the next attack on the hero; poison: stacks on the target
#: (``statuses.poison``); stun: the target's next attacks skipped (``statuses.stun``); cp: combat points gained.
EFFECTS = ("damage", "unblockable", "heal", "block", "poison", "stun", "cp")
N_EFFECTS = len(EFFECTS)

# --- the ability table: int64[n_abilities, AB_COLS] -----------------------------------------
MAX_ABILITIES = 12  #: abilities on one hero sheet
MAX_REQS = 3  #: requirements of one ability (all must hold on the same five dice; a die may serve several)
RQ_KIND, RQ_A, RQ_B = range(3)
RQ_COLS = 3
AB_N_REQ = 0  #: requirements in use, 1..MAX_REQS
AB_REQ = 1  #: MAX_REQS rows of RQ_COLS: (combo kind, parameter a, parameter b); unused rows are -1
AB_EFFECT = AB_REQ + MAX_REQS * RQ_COLS  #: N_EFFECTS amounts, in EFFECTS order
AB_COLS = AB_EFFECT + N_EFFECTS

# --- the hero row: int64[H_COLS] --------------------------------------------------------------
H_HP = 0  #: starting (and most) hit points
H_DICE = 1  #: dice rolled on offence (combat.dice unless the sheet says otherwise)
H_DEF_DICE = 2  #: dice of the defensive roll
H_DEF_BLOCK = 3  #: N_FACES: damage each face blocks in the defensive roll
H_DEF_COUNTER = H_DEF_BLOCK + N_FACES  #: N_FACES: damage each face deals back (unblockable) in the defensive roll
H_COLS = H_DEF_COUNTER + N_FACES

# --- the monster row: int64[M_COLS] -----------------------------------------------------------
ATK_DICE, ATK_PATTERN = range(2)
ATTACK_KINDS = ("dice", "pattern")
MAX_PATTERN = 8  #: a fixed attack pattern's length at most (it repeats)
M_HP = 0
M_ATK_KIND = 1  #: ATK_DICE: roll M_ATK_DICE d6, each face deals M_ATK_FACE[face-1]; ATK_PATTERN: fixed cycle
M_ATK_DICE = 2
M_ATK_FACE = 3  #: N_FACES damage per d6 face
M_PATTERN_LEN = M_ATK_FACE + N_FACES
M_PATTERN = M_PATTERN_LEN + 1  #: MAX_PATTERN damages, turn 1, 2, ... then again
M_POISON = M_PATTERN + MAX_PATTERN  #: poison stacks an attack that deals damage inflicts
M_STUN = M_POISON + 1  #: stun an attack that deals damage inflicts
M_DEF_DICE = M_STUN + 1  #: d6 of the monster's defensive roll (0: none)
M_DEF_BLOCK = M_DEF_DICE + 1  #: N_FACES damage each d6 face blocks
M_COLS = M_DEF_BLOCK + N_FACES

# --- combat numbers: int64[C_COLS] (``[combat]`` and ``[statuses]``) --------------------------
C_DICE = 0  #: dice of an offensive roll
C_ROLLS = 1  #: rolls in a turn (the first roll and the rerolls)
C_CP_START = 2
C_CP_PER_TURN = 3
C_CP_MAX = 4
C_REROLL_COST = 5  #: CP an extra reroll costs
C_MAX_BOUGHT = 6  #: extra rerolls one turn may buy
C_POISON_DAMAGE = 7  #: damage per poison stack at the start of the poisoned one's turn
C_POISON_MAX = 8  #: poison stacks at most
C_POISON_DECAY = 9  #: stacks lost after each poison tick
C_STUN_MAX = 10  #: stun stacks at most (one stack skips one attack)
C_COLS = 11
