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
C_MAX_FIGHT_TURNS = 11  #: hero turns a fight lasts at most; then the hero dies of exhaustion (a guard)
C_COLS = 12

# --- fight state, events, decisions (combat.py) ------------------------------------------------
#: The game state ``st`` (int64[S_SIZE], S_SIZE defined by the engine) holds the trace count at 0, the fight
#: section at 1..127 (this block), navigation from 128. A user policy reads these slots.
S_NTRACE = 0  #: trace rows written
S_HP = 1  #: the hero's hit points (persist between fights; navigation reads and spends them too)
S_HP_MAX = 2  #: the hero's most hit points (heal stops there); 0 until ``combat.hero_start``
S_CP = 3  #: combat points (reset to combat.cp_start at the start of each fight)
S_POISON = 4  #: poison stacks on the hero (end with the fight)
S_STUN = 5  #: stun stacks on the hero (end with the fight)
S_BLOCK = 6  #: damage the next attack on the hero loses (ability effect ``block``; ends with the fight)
S_REROLLS_LEFT = 7  #: during D_KEEP: rerolls left in this turn (free ones, or 1 for a bought reroll)
S_N_DICE = 8  #: dice in the current offensive roll
S_DICE = 9  #: MAX_DICE slots: the offensive dice as face indices 0..5, sorted ascending (the D_KEEP masks' order)
S_FIGHT_TURN = S_DICE + MAX_DICE  #: hero turns of the current fight (1 on the first)
S_DEALT = S_FIGHT_TURN + 1  #: HP monsters lost in this fight (abilities, counters, poison; overkill not counted)
S_TAKEN = S_DEALT + 1  #: HP the hero lost in this fight (attacks and poison)
S_DEALT_TOTAL = S_TAKEN + 1  #: the same, summed over every fight of the game
S_TAKEN_TOTAL = S_DEALT_TOTAL + 1
S_FIGHTS = S_TAKEN_TOTAL + 1  #: fights started
S_FIGHTS_WON = S_FIGHTS + 1
S_TURNS_TOTAL = S_FIGHTS_WON + 1  #: hero turns over every fight
S_NOTHING = S_TURNS_TOTAL + 1  #: offensive rolls that made no ability (or were stunned away: S_STUNNED counts those)
S_STUNNED = S_NOTHING + 1  #: hero turns skipped by stun
S_BOUGHT = S_STUNNED + 1  #: rerolls bought with CP (every fight)
S_KILLER = S_BOUGHT + 1  #: how the hero died: 0 alive, 1 + monster-table row of the killer, KILLED_BY_POISON
S_MON_LEFT = S_KILLER + 1  #: monsters alive in the current fight
S_MON = S_MON_LEFT + 1  #: MAX_MONSTERS blocks of MON_COLS: the monsters of the current fight (a user policy reads them)
MAX_MONSTERS = 6  #: monsters in one fight at most
MON_ROW, MON_HP, MON_POISON, MON_STUN, MON_ATTACKS = range(5)  #: monster-table row, HP (<= 0: dead), statuses,
MON_COLS = 5  #: attacks made (a pattern's position)
S_FIRED = S_MON + MAX_MONSTERS * MON_COLS  #: MAX_ABILITIES slots: times each ability of the sheet was fired
S_SCRATCH = S_FIRED + MAX_ABILITIES  #: 4 x N_FACES scratch slots (face counts and keeps of the fight and of the
#: built-in answers: views of ``st``, so that a fight allocates nothing)
S_FIGHT_END = S_SCRATCH + 4 * N_FACES  #: first slot after the fight section (<= 128)
KILLED_BY_POISON = 1000  #: S_KILLER when poison killed the hero

#: What ``combat.fight`` returns.
FIGHT_DIED, FIGHT_WON = 0, 1

#: Fight decisions (kind 0..7). Options are rows of ``opts`` (O_ACTION, O_ARG); option 0 is the first row.
#: D_KEEP: O_ACTION = keep mask over the sorted dice ``st[S_DICE:]`` (bit i keeps die i), one row per distinct
#: multiset of kept faces (canonical mask: the first dice of each face's run), option 0 = keep all = stop rolling,
#: then smaller keeps down to keep none; O_ARG = dice kept. D_BUY_REROLL: option 0 = no, 1 = pay
#: combat.reroll_cost CP for one more reroll (O_ACTION = 0 / 1). D_ABILITY: one row per ability the final dice
#: make (O_ACTION = its index on the sheet); never asked when none is made. D_TARGET: one row per living
#: monster (O_ACTION = its slot 0..MAX_MONSTERS-1 in ``st[S_MON:]``, O_ARG = its HP); asked when an ability
#: hits a monster and more than one lives.
D_KEEP, D_BUY_REROLL, D_ABILITY, D_TARGET = range(4)
FIGHT_DECISIONS = ("keep", "buy_reroll", "ability", "target")
O_ACTION = 0
O_ARG = 1
MIN_OPTIONS = N_MASKS + 1  #: rows of ``opts`` the fight needs at least

#: Built-in policies' ids for the fight decisions (the engine adds its navigation ids after these).
P_RANDOM, P_GREEDY, P_OPTIMAL = range(3)

#: Fight events (trace codes 1..31): each row = code + 7 ints (TRACE_COLS = 8 in the engine).
EV_FIGHT = 1  #: (n monsters, rows of the first three monsters (-1: none), hero HP, CP, 0)
EV_TURN = 2  #: (fight turn, hero HP, CP, poison, stun, block, 0)
EV_ROLL = 3  #: (roll number 1.., d1..d5 as face indices (-1: none), keep mask that led here (-1: first roll))
EV_BUY = 4  #: (CP paid, CP left, 0...)
EV_FIRE = 5  #: (ability, target slot (-1: none), damage asked, blocked by the defensive roll, unblockable, HP dealt, 0)
EV_NOTHING = 6  #: (0...): the final dice make no ability
EV_EFFECT = 7  #: (heal, block, poison, stun, cp, hero HP after, 0): the ability's effects on the hero / target
EV_POISON_TICK = 8  #: (who: -1 hero / monster slot, damage, stacks left, HP after, 0, 0, 0)
EV_STUNNED = 9  #: (who: -1 hero / monster slot, stacks left, 0...)
EV_ATTACK = 10  #: (monster slot, attack, block token used, defensive roll block, counter, HP lost, hero HP after)
EV_MON_DEAD = 11  #: (monster slot, monster row, 0...)
EV_WON = 12  #: (fight turns, hero HP, damage dealt, damage taken, 0, 0, 0)
EV_DIED = 13  #: (fight turns, killer (S_KILLER), damage dealt, damage taken, 0, 0, 0)
EV_DEF_ROLL = 14  #: (-1: the hero, dice rolled, faces as sum (face index + 1) * 8**i, block, counter, 0, 0)
EV_INFLICT = 15  #: (monster slot, poison added, stun added, hero poison, hero stun, 0, 0)
EV_EXHAUSTED = 16  #: (fight turns, 0...): combat.max_fight_turns reached

# --- navigation: the dungeon, the deck, the turn (kernel.py, board.py) ----------------------------------------
#: State slots of the engine (128..S_SIZE-1): a user policy reads these too.
S_TURN = 128  #: turn now (1..navigation.turn_cap)
S_MOVES_LEFT = 129  #: moves left in this turn
S_CELL = 130  #: the cell the hero stands in (row * cols + column)
S_KEYS = 131
S_BOMBS = 132
S_POTIONS = 133
S_ARMOR = 134  #: armour pieces worn (each raised the most HP by items.armor_hp)
S_BOOTS = 135  #: 1 with the Speed Boots
S_MIRROR = 136  #: Magic Mirror uses left (0: none)
S_GOLD = 137
S_WON = 138
S_DEAD = 139
S_CAUSE = 140  #: CAUSE_* once the game is over
S_DEATH_KIND = 141  #: room kind where the hero died (-1: did not die)
S_BAD = 142  #: out-of-range policy answers
S_NDEC = 143  #: decisions asked
S_KEYS_SPENT = 144
S_BOMBS_SPENT = 145
S_HP_SPENT = 146  #: HP paid instead of a key or a bomb
S_POTIONS_USED = 147
S_MOVES = 148  #: moves made (warp and mirror travel not counted)
S_WARPS = 149
S_MIRRORS_USED = 150
S_ENTERED = 151  #: rooms entered (first entries)
S_ROWS = 152
S_COLS = 153
S_GOAL = 154  #: the goal (boss) room's cell
S_NACT = 156  #: actions in this turn (a safety bound)
S_ACTS = 157  #: actions (D_ACT answers) so far in the game: the index of the action being chosen
S_SEAT = 158  #: the race: this player's seat 1..race.players (0: the solo game)
S_PLAYERS = 159  #: the race: players in the race (0: the solo game)
S_RESOLVED_BY = 160  #: N_KINDS slots: room functions resolved, by room kind
S_MOST_DEALT = 170  #: the most HP monsters lost in one fight of the game
S_MOST_TAKEN = 171  #: the most HP the hero lost in one fight of the game
S_BOSS_TAKEN = 172  #: HP the hero lost in the boss fight (0: not fought)
S_DEATH_CELL = 173  #: the cell where the hero died (-1: did not die)
MAX_ROWS = 8
MAX_COLS = 8
MAX_CELLS = MAX_ROWS * MAX_COLS
S_CARD = 176  #: MAX_CELLS slots: the deck card in each cell (-1: no room)
S_ROT = S_CARD + MAX_CELLS  #: quarter turns clockwise of each cell's card
S_TOKEN = S_ROT + MAX_CELLS  #: navigation tokens of each cell (TK_* bits)
S_DIST = S_TOKEN + MAX_CELLS  #: steps from each cell to the goal over the dungeon's rooms (doors ignored)
#: MAX_CELLS slots: the sides (bits) of each cell the hero turned back through in this turn (not offered from that
#: cell again this turn; from another cell the same direction is)
S_REFUSED = S_DIST + MAX_CELLS
S_SIZE = S_REFUSED + MAX_CELLS

#: Navigation tokens (bits of ``st[S_TOKEN + cell]``): seen = the card is face up; entered = a token "elsewhere"
#: on the card (free to re-enter, still resolvable); fn A / fn B = a token over that function's action symbols.
TK_SEEN, TK_ENTERED, TK_FN_A, TK_FN_B = 1, 2, 4, 8

#: Room kinds (``[rooms.KIND]`` of rules.toml; the kernel's rule for each).
K_START, K_MONSTER, K_TRAP, K_TREASURE, K_FOUNTAIN, K_BLACKSMITH, K_WARP, K_BOUNTY, K_SHOP, K_BOSS = range(10)
ROOM_KINDS = ("start", "monster", "trap", "treasure", "fountain", "blacksmith", "warp", "bounty_hunter", "shop",
              "boss")
N_KINDS = len(ROOM_KINDS)
#: Functions of each kind (two-function rooms track each apart): names of function A and B ("" = none).
KIND_FUNCTIONS = (("",), ("fight",), ("trap",), ("open the chest",), ("drink",), ("forge", "mend"),
                  ("warp", "cache"), ("bounty",), ("buy",), ("boss fight",))

#: Door sides of a card, as printed: north, east, south, west; each open, locked (a key) or wall (a bomb).
SIDES = ("north", "east", "south", "west")
DOOR_OPEN, DOOR_LOCKED, DOOR_WALL = range(3)
DOOR_CHARS = "olw"
DOOR_NAMES = ("open", "locked door", "wall")

#: The card table: int64[n_cards, CD_COLS] (``[deck.*]``).
MAX_ROOM_MONSTERS = 4
CD_KIND = 0
CD_DOOR = 1  #: 4 sides (N E S W as printed)
CD_HAZARD = 5  #: 1: red outline (resolved at once on entry)
CD_VALUE = 6  #: trap damage, fountain heal, cache item (ITEMS index), ...
CD_GOLD = 7  #: gold for winning the room's fight
CD_N_MON = 8
CD_MON = 9  #: MAX_ROOM_MONSTERS monster-table rows (-1: none)
CD_COLS = CD_MON + MAX_ROOM_MONSTERS

#: Items (``[items]``): what a chest, a shop or a cache gives.
IT_KEY, IT_BOMB, IT_POTION, IT_ARMOR, IT_BOOTS, IT_MIRROR, IT_GOLD = range(7)
ITEMS = ("key", "bomb", "potion", "armor", "speed_boots", "magic_mirror", "gold")
N_ITEMS = len(ITEMS)

#: Navigation numbers: int64[N_SIZE] (``[navigation]``, ``[items]``).
N_MOVES = 0
N_BOOTS_MOVES = 1
N_TURN_CAP = 2
N_KEYS = 3
N_BOMBS = 4
N_POTIONS = 5
N_GOLD = 6
N_HP_INSTEAD = 7  #: 1: 1 HP may be paid instead of a key or a bomb
N_MIRROR_USES = 8
N_ROTATE = 9  #: 1: a dealt card is turned by a die (d4 of quarter turns); 0: as printed
N_POTION_HEAL = 10
N_ARMOR_HP = 11
N_FORGE_COST = 12
N_MEND_HEAL = 13
N_MEND_COST = 14
N_TRAP_KEYS = 15  #: keys a completed trap gives
N_TRAP_DODGE = 16  #: a d6 at least this avoids the trap's damage (7: never)
N_WARP_COUNTS = 17  #: 1: warp travel counts as a move (the seed: it does not)
N_MIRROR_COUNTS = 18  #: 1: the Mirror's teleport counts as a move
N_TREASURE = 19  #: 6 items (ITEMS index) a d6 picks for a chest
N_TREASURE_GOLD = N_TREASURE + 6  #: gold a chest's gold face gives
N_PRICE = N_TREASURE_GOLD + 1  #: N_ITEMS prices in the shop (0: not sold)
N_ROWS = N_PRICE + N_ITEMS
N_COLS_ = N_ROWS + 1
#: The race (``[race]``; docs/rules-rooms.md "The race"): players (1 = the solo game), whether the deciding round
#: is played out, and the tie-break score's weights (HP left, gold, room functions resolved).
N_RACE_PLAYERS = N_COLS_ + 1
N_RACE_FINISH_ROUND = N_RACE_PLAYERS + 1
N_RACE_W_HP = N_RACE_FINISH_ROUND + 1
N_RACE_W_GOLD = N_RACE_W_HP + 1
N_RACE_W_ROOMS = N_RACE_W_GOLD + 1
#: 1: the 1 HP answer is offered also with a key or a bomb in hand (``navigation.hp_with_item``; the seed: only
#: "if a player does not have a key or bomb")
N_HP_WITH_ITEM = N_RACE_W_ROOMS + 1
N_HP_COST = N_HP_WITH_ITEM + 1  #: HP the hero sacrifices instead of a key or a bomb (``navigation.hp_cost``)
#: 1: a step into a room without a token is barred by the harder of the two facing sides (``navigation.barrier =
#: "both"``); 0: by the entered card's side only ("entered")
N_BARRIER_BOTH = N_HP_COST + 1
N_SIZE = N_BARRIER_BOTH + 1

#: Navigation decision kinds (8..31; fight kinds are 0..7). Options: O_ACTION, O_ARG, then the advice columns.
D_ACT, D_PASS, D_RESOLVE, D_SHOP = 8, 9, 10, 11
NAV_DECISIONS = ("act", "pass", "resolve", "shop")
O_CELL = 2  #: the cell the option leads to (-1: none)
O_KIND = 3  #: the room kind there if its card is face up, else -1
O_COST = 4  #: what stands in the way: DOOR_* (0 also for a room with a token), -1 unknown (face down)
O_DIST = 5  #: steps from O_CELL to the goal room (doors ignored)
O_VALUE = 6  #: a price, a heal, an item...
N_OCOLS = 7
MAX_OPTIONS = 72
#: D_ACT actions (O_ACTION): end the turn, step through a side (O_ARG), warp to O_CELL, the Mirror to O_CELL,
#: resolve a function of this room (O_ARG 0 = A, 1 = B), drink a potion.
A_END, A_MOVE, A_WARP, A_MIRROR, A_RESOLVE, A_POTION = range(6)
ACT_NAMES = ("end the turn", "move", "warp", "magic mirror", "resolve", "drink a potion")
#: D_PASS (a locked door or a wall): turn back, spend the key or bomb, pay ``navigation.hp_cost`` HP (O_VALUE) instead.
PASS_BACK, PASS_ITEM, PASS_HP = range(3)
#: D_RESOLVE (entering an optional room): leave it for later (0), or resolve a function (O_ARG).
#: D_SHOP: leave (O_ACTION -1) or buy the item O_ACTION (O_VALUE its price).

#: How a game ended (``death_cause``).
CAUSE_WON, CAUSE_FIGHT, CAUSE_TRAP, CAUSE_HP_PAID, CAUSE_TURN_CAP = range(5)
CAUSE_NAMES = ("none (won)", "a fight", "a trap", "HP paid for a door or wall", "turn cap")

#: Navigation events (trace codes 32..63): code + 7 ints.
EV_NAV_TURN = 32  #: (turn, moves, HP, keys, bombs, potions, gold)
EV_REVEAL = 33  #: (cell, card, kind, quarter turns, doors as n + 3e + 9s + 27w, hazard, 0)
EV_STEP = 34  #: (from, to, side, barrier DOOR_*, paid PASS_*, moves left, HP)
EV_BACK = 35  #: (from, to, side, barrier, 0, 0, 0)
EV_ENTER = 36  #: (cell, kind, first entry, hazard, tokens, 0, 0)
EV_RESOLVE = 37  #: (cell, kind, function, amount, HP, 0, 0)
EV_WARP = 38  #: (from, to, counted, 0, 0, 0, 0)
EV_MIRROR = 39  #: (from, to, uses left, counted, 0, 0, 0)
EV_POTION = 40  #: (heal, HP, potions left, 0, 0, 0, 0)
EV_GAIN = 41  #: (item, amount, now held, source kind, 0, 0, 0)
EV_DECIDE = 42  #: (kind, choice, n, O_ACTION, O_ARG, O_CELL, 0)
EV_TRAP = 43  #: (d6, dodge at, damage, HP, 0, 0, 0)
EV_ROOM_FIGHT = 44  #: (cell, kind, monsters, first three monster rows)
EV_END = 45  #: (won, cause, HP, turn, death room kind, 0, 0)
EV_DEAL = 46  #: (cells dealt, deck size, 0...)
EV_SEAT = 47  #: the race: (seat, players, turn (0: the seat's setup), HP, 0, 0, 0): the events after it are that seat's
EV_RACE_END = 48  #: the race: (winner seat (0: none), how (RE_*), turn, winner with the seats reversed, score,
#: 1 if player 1 plays on, 0)
TRACE_COLS = 8

# --- the race (race.players = 2..4; docs/rules-rooms.md "The race") -------------------------------------------------
MAX_SEATS = 4
#: Seat s (0-based) draws from the stream (master seed XOR SEAT_KEYS[s], game index): seat 1 is the solo game's.
SEAT_KEYS = (0, 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB)
#: How the race ended (``race_end``): one player finished first; several in the same round, the best score won; the
#: same best score (no winner); several in the same round, the first in seat order won (race.finish_round = false);
#: every player died; the turn cap.
RE_NONE, RE_FIRST, RE_SCORE, RE_TIE, RE_ORDER, RE_ALL_OUT, RE_CAP = range(7)
RACE_END_NAMES = ("not a race", "one player finished first", "same round, the best score won",
                  "same round and score: no winner", "same round, the first seat won", "every player died",
                  "turn cap")
#: Where each seat stood when the race was decided (``race_seat{n}``).
SEAT_RACING, SEAT_FINISHED, SEAT_DEAD, SEAT_CAP = range(4)
SEAT_STATE_NAMES = ("still racing", "finished", "dead", "turn cap")
#: The kernel's output array: the per-game columns (outputs.py), then HIDDEN_COLS columns the driver turns into the
#: run's extras (not per-game columns): the cells the hero entered in the game, as two 32-bit masks (cells 0..31,
#: 32..63; ``board.cell_record``'s visits), then the race's block (only when race.players >= 2).
HIDDEN_COLS = 2
#: The race's block of the kernel's output (after the per-game columns, only when race.players >= 2).
RC_WINNER, RC_END, RC_SWAPPED, RC_TURN = range(4)
RC_TURNS = 4  #: MAX_SEATS: turns each seat played in the race
RC_SEAT = RC_TURNS + MAX_SEATS  #: MAX_SEATS: SEAT_* of each seat
RC_SCORE = RC_SEAT + MAX_SEATS  #: MAX_SEATS: each seat's tie-break score when the race was decided
RACE_COLS = RC_SCORE + MAX_SEATS

#: The built-in policies (fight ids from the fight section; the same ids answer navigation).
KIND_NAMES = ("keep", "buy_reroll", "ability", "target", "", "", "", "") + NAV_DECISIONS

# --- per-game output columns (int64[count, n]): the index constants derive from outputs.py's order ------------
from .outputs import OUTPUTS as _OUTPUTS  # noqa: E402 (outputs.py does not import the layout)

globals().update(_OUTPUTS.kernel_indices())
OUT_GAME: int
OUT_FIRED: int
