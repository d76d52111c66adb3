"""The Dungeon Foury kernel's data layout: state vector, decisions, options, codes.

This is also the user-facing policy API: a policy reads ``state[S_...]`` and the option
rows ``options[i, O_...]`` described here and returns the index of an option.
"""

from __future__ import annotations

from .icons import MAX_FOES, N_ICONS
from .outputs import OUTPUTS as _OUTPUTS  # outputs.py does not import the layout

# --- resource tracks (character sheet) ------------------------------------------------------
HEARTS, SHIELD, CLOVER, WEAPON, SHOVEL, CHEST, CORNU = 0, 1, 2, 3, 4, 5, 6
N_TRACKS = 7
N_TRAITS = 5  # tracks marked at character creation, bought and exchanged at the market
TRACK_NAMES = ("hearts", "shield", "clover", "weapon", "shovel", "chest", "cornucopia")

# --- state vector (int64[STATE_SIZE]) -------------------------------------------------------
S_CAP = 7  # caps: state[S_CAP + track]
S_ROUND = 14  # rounds completed so far (0..4); the round being played has index state[S_ROUND]
S_SECTOR = 15  # sector of the round being played (0..3 = A..D)
S_PHASE = 16  # 0 seeking the requirement, 1 Oracle awake, 2 Oracle visited: heading for an exit
S_REQ_DONE = 17
S_REQ_NEED = 18
S_KILLS_ROUND = 19
S_KILLS_TOTAL = 20
S_POS = 21  # current room (cell index r*cols+c)
S_DIR = 22  # direction of the last step (0..3 = N,E,S,W)
S_TURN = 23  # turns played in the whole game
S_ROUND_TURN = 24  # turns played in this round
S_COINS_LEFT = 25
S_HERO = 26  # hero id (H_FREE, H_KAEL, ...)
S_BONUS = 27  # monster bonus of this round
S_CHESTV = 28  # chest value of this round
S_DEAD = 29
S_CAUSE = 30
S_DONE_MASK = 31  # bit s set when the round of sector s is completed
S_ENTRY_ARROW = 32
S_ELY_USED = 33
S_RAND = 34  # 31 fresh random bits for every decision (policy randomness, its own stream)
S_CTX_FOE = 35  # combat context: foe icon, its strength bonus, my die, its die, weapon added, damage
S_CTX_STR = 36
S_CTX_MY = 37
S_CTX_EN = 38
S_CTX_ADD = 39
S_CTX_DMG = 40
S_N_ROOMS = 41
S_TRACE_N = 42
S_COINS_USED = 43
S_WIN = 44
S_DEATH_ROUND = 45  # first death: round number 1..4 (0 = never died)
S_DEATH_CELL = 46
S_DEATH_SECTOR = 47
S_DEATH_CAUSE = 48
S_RESERVED = 49  # cornucopias set aside for the Waterways' requirement
S_MARKET_VALUE = 50  # chest value at the market being visited
S_BAD_CHOICE = 51  # count of invalid option indices returned by a user policy
S_TURNS_R = 52  # turns of the 1st..4th completed round: state[S_TURNS_R + k]
S_ORDER = 56  # sectors in the order played, as digits 1..4 (e.g. 1243)
S_CHESTS_GAINED = 57
S_ORACLE = 58  # the Oracle's cell
S_EXTRA = 59  # pending extra move
S_DEATH_TURN = 60  # turn of the first death (0 = never died)
# -- state slots 61..71: any-die clover (ruleset rulings.clover_dice)
# Context of a D_REROLL decision (a die the player rolled outside combat, before it takes effect):
S_RR_KIND = 61  # which roll: RR_ROOM, RR_EXIT, RR_DIE or RR_SPAWN (0 = no reroll decision yet)
S_RR_TABLE = 62  # room/exit roll: the event table (sector 0..3); else -1
S_RR_FACE = 63  # the face showing now
S_RR_EFFECT = 64  # what it does: event bits (EV_*), a DIE_* outcome, or the foe icon spawned
S_RR_OPEN = 65  # room/exit roll: open sides of the room once the event is applied; spawn: the foe's strength
S_RR_CELL = 66  # the room the roll is for
# Policy memory kept by the kernel (any policy may read it; built-in policies use it not to loop):
S_JUMP_FROM = 67  # room of the last stairs or magic-circle jump this round (-1 none)
S_JUMP_TO = 68  # room where that jump arrived (-1 none)
S_PROGRESS_TURN = 69  # game turn of the last progress (a new room explored, a requirement element, a phase)
S_JUMPS_IDLE = 70  # stairs/circle jumps since the last progress
S_ROUND_NEW = 71  # rooms explored this round

# -- state slots 72..87: upper level, unwinnable states
S_UNWIN_TURN = 72  # first turn at which the game could no longer be won (0 = never)
S_UNWIN_CAUSE = 73  # why: UW_* below
S_UP_TURNS = 74  # turns spent travelling on the upper level (whole game)
UW_NONE, UW_EXIT, UW_ARROWS, UW_SEALED = 0, 1, 2, 3
UNWIN_NAMES = ("", "no arrows left, right after an exit", "no arrows left", "sealed in, no coin left")

# -- state slots 88..103: declared behaviours and rulings
S_DIE_GOAL = 88  # D_USE_DIE context: 1 when a cornucopia from the die would count for this round's requirement

# -- state slots 104..111: per-round monster strength
S_STR_ROW = 104  # strength row of the round being played: 4 x round index (play order, 0..3) + sector (0..3)

# -- state slots 112..119: the search policy (foury_sim/search.py)
S_SEARCH_FAULT = 112  # after a search game: forced decisions whose replay differed from their record (always 0)

S_CROSSED = 120  # 1 while a turn's crossing (a dig, a climb, a circle) is made: its step follows, no other crossing
# -- state slots 121..127: free
S_ARROW0 = 128  # state[S_ARROW0 + a] = 1 when arrow a is used (entered or exited)
MAX_ARROWS = 32

# -- state slots 160..191: the 2-player mode (two_player.players = 2; docs/rules.md "2-player mode"). Each player
# has a state vector of their own; these slots of it show the player's seat and what they see of the opponent
# (refreshed at the start of each of their turns and after a duel). All 0 in a 1-player game.
S_P2_ON = 160  # 1 in a 2-player game
S_P2_SEAT = 161  # this player's seat: 1 moves first, 2 second
S_P2_OPP_POS = 162  # the opponent's room (-1 not on the map yet)
S_P2_OPP_DIST = 163  # moves of a free walk over explored, cleared rooms to the opponent's room (-1 none: no duel)
S_P2_OPP_TRACK = 164  # slots 164..170: the opponent's tracks (hearts, shield, clover, weapon, shovel, chest, cornu)
S_P2_OPP_TURN = 171  # the opponent's turns (hourglass marks)
S_P2_OPP_PHASE = 172  # the opponent's phase (2: heading for an exit)
S_P2_OPP_SECTOR = 173  # the opponent's sector (their starting side)
S_P2_OPP_HERO = 174  # the opponent's hero id
S_P2_OPP_DONE = 175  # 0 playing, 1 exited with the treasures, 2 dead
S_P2_DONE = 176  # this player: 0 playing, 1 exited with the treasures, 2 dead
S_P2_ENTRY = 177  # the arrow this player chose to enter by (-1 before the choice)
S_P2_DUELS = 178  # duels this player started
S_P2_DUELS_WON = 179  # duels this player won (as attacker or defender)
S_P2_LOOTED = 180  # chests this player took from the opponent in duels
S_P2_OPP_SEEN = 181  # 1 once the opponent's position has been filled in
S_P2_ORACLE = 182  # 1 once the Oracle gave this player its treasure (it may be visited in phase 2 in this mode)
# -- state slots 183..191: free
# -- state slots 192..239: campaigns (docs/rules.md, "Campaigns")
S_POTION_STEPS = 192  # free steps a coloured potion gave that are still to take (potions.coloured_step)
S_TURN_MARKET = 193  # 1 while the end-of-turn market is open (rulings.market_every_turn)
# -- state slots 194..208: The Slaughter of Monsters (docs/rules.md "The Slaughter of Monsters")
S_FURY_USED = 194  # Fury boxes blacked out so far (irreversible)
S_FURY_TRACK = 195  # D_FURY context: the track the loss would take (HEARTS, WEAPON, a stolen track)
S_FURY_LOSS = 196  # D_FURY context: how much of it (the boxes blacking out would take, at most the boxes left)
S_FURY_SITE = 197  # D_FURY context: where the loss comes from (FS_* below)
S_SL_ENEMIES = 198  # monsters met so far: printed on the map at the start, then every one that appeared
S_SL_END = 199  # how the game ended (SLE_* below; 0 while playing or in another game)
S_FURY_KILLS = 200  # monsters the full Fury track erased
S_FURY_BOXES = 201  # boxes of the Fury track (R_FURY_BOXES; 0: none): S_FURY_BOXES - S_FURY_USED are left
# -- state slots 209..223: Santa Crash'n Foury ([santa] on; docs/rules.md "Santa Crash'n Foury")
S_SANTA_GOT = 209  # 209..213: collected, by kind SK_* below (reindeer, Rudolph, green and blue packages, sleigh)
S_SANTA_CANES = 214  # candy canes held
S_SANTA_STEPS = 215  # free steps of a star still to take
S_SANTA_MARKS = 216  # hourglass spaces marked (one per turn)
S_SANTA_HOME = 217  # 1 once heading for the XMas Safe Zone (a D_SANTA_HOME answer; the goal search's target)
S_SANTA_SAFE_DIST = 218  # D_SANTA_HOME context: steps from here to the Safe Zone over the map as drawn (-1 none)
S_SANTA_END = 219  # how the campaign ended: SE_* below, + 8 if the collection goal is met, + 16 if the full grid
S_SANTA_WRATH = 220  # hearts lost to Santa's Wrath
S_SANTA_LOST = 221  # packages the Grinch and the Yeti destroyed
S_SANTA_CANES_GIVEN = 222  # candy canes given to the Grinch or the Yeti
S_SANTA_LEFT = 223  # hourglass spaces still unmarked (D_SANTA_HOME context)
# -- state slots 224..239: Discovering the Kraken (kraken.on; docs/rules.md "Discovering the Kraken"); 0 otherwise
S_KR_ON = 224  # 1 in a Kraken game
S_KR_NEXT_FLOOD = 225  # game turn at which the flood front spreads next (every kraken.flood_every turns)
S_KR_SWIMS = 226  # swims in a row (moves ending in a flooded room); more than kraken.swim_max drowns
S_KR_SWIM_LEFT = 227  # swims still allowed before drowning (kraken.swim_max - S_KR_SWIMS, at least 0)
S_KR_FOE = 228  # the Kraken's foe icon (a swim option into the Kraken's water shows it in O_FOE)
S_KR_WATER = 229  # rooms of the Kraken's water (flooded rooms connected to the Kraken's room, its own included)
S_KR_FIGHTS = 230  # times the hero faced the Kraken
S_KR_MARKET = 231  # the rate of the one market visit (0: not visited yet)
S_KR_REQS = 232  # requirements completed (areas), 0..4
S_KR_EXIT_SECTOR = 233  # the side to exit by once every requirement is done (opposite the last area); -1 before
S_KR_RATE = 234  # D_KR_MARKET context: the rate a visit now would have (requirements done)
STATE_SIZE = 240

# --- decisions (kind) and their options ----------------------------------------------------
D_TRAIT = 0  # options: [track, current, cap]
D_ROUND = 1  # options: [arrow, sector, cell, static distance to the Oracle]
D_MOVE = 2  # options: move rows (O_* columns)
D_WEAPON = 3  # options: [0 keep it, 1 add the weapon]; context S_CTX_*
D_CLOVER = 4  # options: [action, die, value]: action 0 none, 1 reroll, 2 set value (Melyra); die 0 mine 1 foe
D_SHIELD = 5  # options: [0 take the hit, 1 block]
D_FIGHT_ON = 6  # options: [0 flee, 1 fight on]
D_CORNU = 7  # options: [track] (-1 = keep the cornucopia)
D_MARKET = 8  # options: [op, a, b, units]; op M_DONE, M_BUY (a chest -> track a), M_SWAP (a -> b), M_REDEEM
D_STEAL = 9  # options: [track] the bandit takes
D_EXTRA = 10  # options: move rows: the one extra space (no roll)
D_PLACE = 11  # options: move rows: where to stand after the Oracle
D_ELYDION = 12  # options: [0 no, 1 visit the market now at next round's value]
# -- decision 13: any-die clover
D_REROLL = 13  # options: [action, value, effect, open]: action 0 keep, 1 reroll (a clover), 2 set the face to
# value (Melyra, a clover); effect and open describe the face (as S_RR_EFFECT, S_RR_OPEN; -1 unknown for a reroll)

# -- decisions 14..17: declared behaviours and rulings
D_USE_DIE = 14  # options: [1 roll on the DIE table, 0 leave the die icon in the room]; context S_DIE_GOAL
# -- decision 17: the 2-player mode
D_DUEL = 17  # options: [0 play the turn as usual, 1 walk along the explored line to the opponent and face them];
# offered at the start of a turn when S_P2_OPP_DIST >= 0 (the state's S_P2_* slots describe the opponent)

# -- decision 18: The Slaughter of Monsters
D_FURY = 18  # options: [0 take the loss, 1 black out Fury boxes instead]; context S_FURY_TRACK, S_FURY_LOSS,
# S_FURY_SITE, S_FURY_USED (boxes blacked out) and R_FURY_BOXES (the track's length)

# -- decisions 20..21: Santa Crash'n Foury
D_SANTA_CANE = 20  # options: [0 fight, 1 give a candy cane]: the Grinch or the Yeti (context S_CTX_FOE, S_CTX_STR)
D_SANTA_HOME = 21  # options: [0 keep collecting, 1 head for the XMas Safe Zone now] (irreversible); context
# S_SANTA_LEFT, S_SANTA_SAFE_DIST, S_SANTA_GOT..; asked at the start of every turn

# -- decisions 22..23: Discovering the Kraken
D_KR_MARKET = 22  # options: [0 not now, 1 visit the market now]: standing on an exit, once a game, at the rate
# S_KR_RATE (requirements done)
D_KR_AREA = 23  # options: [sector, sector, -1, distance]: the area whose requirement to pursue next (laid out as
# D_ROUND's options: column 1 the sector, column 3 the distance (rows + columns) from here to its nearest room)

N_DECISIONS = 24
DECISION_NAMES = ("trait", "round", "move", "weapon", "clover", "shield", "fight_on", "cornucopia",
                  "market", "steal", "extra_move", "place", "elydion_market",
                  "reroll", "use_die", "unused15", "unused16", "duel", "fury", "unused19", "santa_cane",
                  "santa_home", "kraken_market", "kraken_area")

M_DONE, M_BUY, M_SWAP, M_REDEEM = 0, 1, 2, 3

# move option columns
# O_KIND move kind; O_FROM where the free walk ends; O_TO the destination; O_DIR direction of the last step
# (-1 for stairs and circles); O_PATH explored rooms walked first; O_GOAL steps from O_TO to the nearest goal
# (requirement element, then the Oracle, then a legal exit) over the map as drawn now; O_SECTOR; O_FOE foe icon
# in O_TO (-1 none) and O_FOE_STR its bonus; O_ITEMS items there; O_REQ 1 if O_TO holds a requirement element
# (for stairs: levers the climb reaches); O_NEW 1 if unexplored; O_EXIT 1 if a legal exit; O_ORACLE 1 if the
# Oracle's room; O_ODIST printed-map distance to the Oracle; O_OPEN open sides of O_TO besides the way in.
O_KIND, O_FROM, O_TO, O_DIR, O_PATH, O_GOAL, O_SECTOR, O_FOE, O_FOE_STR, O_ITEMS, O_REQ, O_NEW, O_EXIT, \
    O_ORACLE, O_ODIST, O_OPEN = range(16)
# stairs only: O_UPPER turns travelled on the upper level; O_UPMASK bit p set for each upper-level place p
# (T_UP_PLACES) whose levers the trip reaches (O_REQ is their count, capped at what the round still needs)
O_UPPER = 16
O_UPMASK = 17
# Discovering the Kraken only (kraken.on; -1 in every other game; docs/rules.md "Discovering the Kraken", "What a
# Kraken policy sees"): O_KR_FRONT turns from now until the flood front can first reach O_TO (0: O_TO is in the
# Kraken's water; KR_FAR: the front can never reach it): (S_KR_NEXT_FLOOD - S_TURN) + (spreads - 1) x
# kraken.flood_every, spreads counted breadth-first from the water as the front floods (through sides that are not
# printed walls, into rooms not collapsed), the earliest it can come since each spread floods one neighbour per
# water room; O_KR_DRY moves from O_TO to the nearest room that is not flooded (0: O_TO is dry; KR_FAR: none), so a
# swim into O_TO can be finished when O_KR_DRY <= S_KR_SWIM_LEFT
O_KR_FRONT = 18
O_KR_DRY = 19
KR_FAR = 999
N_OCOL = 20
# move kinds
MK_STEP, MK_SHOVEL, MK_GOTO, MK_STAIRS, MK_CIRCLE, MK_SWIM = range(6)
MOVE_NAMES = ("step", "shovel", "go to", "stairs", "magic circle", "swim")

# --- room array columns (int64[n, RM_COLS] per game) ---------------------------------------
RM_STATE = 0  # bits: EXPLORED, COLLAPSED, FLOODED
#: The foes and the items in the room: the sums of its foe slots and of its item icons (``icons.ALL_ITEMS``), kept by
#: every change of an icon count (``kernel.add_icon``; ``ruleset.icon_sums`` for a map's starting rooms), so that the
#: move menu's "a foe here?" (``first_foe``) and "items here?" (``item_count``) read one column, not 12 and 18.
RM_FOES = 1
RM_ITEMS = 2
#: The kinds of goal icon the room holds now, a bit each (``KIND_*``: bit k for foe slot k, then a cornucopia and a
#: die), kept by ``kernel.add_icon`` (``ruleset.icon_sums`` for a map's starting rooms), so that ``mark_goals`` asks a
#: room for every wanted kind at one look.
RM_KINDS = 3
KIND_CORNUCOPIA, KIND_DIE = MAX_FOES, MAX_FOES + 1  # (foe slot k: bit k)
RM_WALL = 4  # 4 columns: sides N,E,S,W: 0 open, 1 printed wall, 2 collapsed wall
RM_ICON = 8  # N_ICONS columns of icon counts
RM_RETURNER = RM_ICON + N_ICONS  # the icon of the room's returning foe (read only while RM_RETURNS > 0)
RM_RETURNS = RM_RETURNER + 1  # returns left of the room's returning foe (trait "returns", e.g. the troll)
RM_FLAG = RM_RETURNER + 2  # bits: F_FACED (temple goal faced this round), F_LEVER (lever reached), F_RETURNER_DOWN,
#: F_IMP_DONE (an imp here has erased: it erases when it appears, not at each fight)
#: The goal search's bit masks of the map (``kernel.goal_masks``), kept by the functions that write walls and room
#: states: RM_BITS_COLS columns of which only the first ``R_ROWS`` rows are used, row r for the map's grid row r (bit
#: c: the room in column c; a map has at most 64 columns): + s (sides N,E,S,W) the rooms whose side s is open, + 4 + s
#: those whose side s is a collapsed wall, + RB_FLOODED the flooded rooms, + RB_COLLAPSED the collapsed ones.
#: Row 0's RB_ICONS and RB_ICONS + 1, on a map of at most 128 cells (and fewer than 64 columns): bit x & 63 of the
#: (x >> 6)-th for every room x that can hold a foe, a cornucopia or a die (printed there, or added by the game: a
#: spawned foe, the Slaughter's finds), the rooms ``mark_goals`` looks at. Row 0's RB_DIRTY: 1 when the row words
#: changed since the goal search last made its map-wide words from them (``kernel.goal_masks2``; set by ``row_bits``,
#: ``set_wall`` and ``add_state``).
RM_BITS = RM_FLAG + 1
RB_FLOODED, RB_COLLAPSED, RB_ICONS, RB_DIRTY, RM_BITS_COLS = 8, 9, 10, 12, 13
RM_COLS = RM_BITS + RM_BITS_COLS
EXPLORED, COLLAPSED, FLOODED = 1, 2, 4
F_FACED, F_LEVER, F_RETURNER_DOWN = 1, 2, 4
F_IMP_DONE = 8
W_OPEN, W_PRINTED, W_COLLAPSED = 0, 1, 2

# --- event effects (bits of a room-event table entry) --------------------------------------
EV_MONSTER, EV_CHEST, EV_EXTRA, EV_PREV_COLLAPSE, EV_PREV_FLOOD = 1, 2, 4, 8, 16
EV_LEFT, EV_RIGHT, EV_FRONT, EV_BEHIND = 32, 64, 128, 256
EVENT_WORDS = {"monster": EV_MONSTER, "chest": EV_CHEST, "extra_move": EV_EXTRA,
               "room_behind_collapses": EV_PREV_COLLAPSE, "room_behind_floods": EV_PREV_FLOOD, "nothing": 0}
SIDE_WORDS = {"left": EV_LEFT, "right": EV_RIGHT, "front": EV_FRONT, "behind": EV_BEHIND}

# DIE table outcomes
DIE_NOTHING, DIE_MONSTER, DIE_LOSE_HEART, DIE_CHEST, DIE_POTION, DIE_SHOVEL, DIE_WEAPON, DIE_SHIELD, \
    DIE_CLOVER, DIE_CORNU = range(10)
DIE_WORDS = ("nothing", "monster", "lose_heart", "chest", "potion", "shovel", "weapon", "shield", "clover",
             "cornucopia")

# causes of death
CAUSE_NONE, CAUSE_STUCK, CAUSE_TIMEOUT, CAUSE_DIE_TABLE = 0, 1, 2, 3
CAUSE_DUEL = 4  # the 2-player mode: beaten by the other player in a duel
CAUSE_FURY = 5  # The Slaughter of Monsters: the Fury track is full (the game ends; not a death)
CAUSE_SANTA = 20  # Santa Crash'n Foury: killed by Santa's Wrath
CAUSE_DROWNED = 24  # Discovering the Kraken: swam more than kraken.swim_max spaces
CAUSE_HOURGLASS = 25  # Discovering the Kraken: the hourglass ran out (kraken.hourglass turns)
CAUSE_FOE = 100  # + foe icon
CAUSE_NAMES = {0: "", 1: "stuck", 2: "lost in the dungeon (turn cap)", 3: "die table", 4: "beaten in a duel",
               5: "the Fury prevailed (track full)", 20: "Santa's Wrath", 24: "drowned", 25: "the hourglass ran out"}
# how a Kraken game ended (the kr_end column)
KRE_WON, KRE_DROWNED, KRE_KRAKEN, KRE_HOURGLASS, KRE_OTHER = 0, 1, 2, 3, 4
KRE_NAMES = ("won", "drowned", "killed by the Kraken", "the hourglass ran out", "other death")

# heroes
H_FREE, H_KAEL, H_MELYRA, H_THALINDRA, H_ELYDION = 0, 1, 2, 3, 4
HERO_KEYS = ("free", "kael", "melyra", "thalindra", "elydion")

# --- scalar rules (int64[R_SIZE]) ----------------------------------------------------------
(R_ROUNDS, R_COINS, R_MAX_TURNS, R_NEED_A, R_NEED_B, R_NEED_C, R_NEED_D, R_TRAIT_MARKS, R_MIN_HEARTS,
 R_POTION, R_PRIZE_EVERY, R_PRIZE, R_BANDIT_PRIZE, R_TROLL_RETURNS, R_EXCHANGE, R_MAX_MARKET_OPS,
 R_WEAR_PER_ROLLOFF, R_CLOVER_ON_TIE, R_STEAL_RANDOM, R_IMP_ONE, R_ORACLE_BLOCKED, R_ORACLE_TABLE_DEST,
 R_FREE_MOVE_TURNS, R_SWIM_ALL, R_EXIT_ROLL_ALWAYS, R_UPPER_SECTOR, R_REQ_ANYWHERE, R_D_NEW_CORNU,
 R_RESERVE_ENTRIES, R_HERO, R_KAEL_FOE_ICON, R_THAL_BANDIT, R_N_ARROWS, R_ROWS, R_COLS) = range(35)
# -- rules 40..47: any-die clover
R_CLOVER_ANY = 40  # 1: a clover may reroll any die the player rolls (rulings.clover_dice = "any")

# -- rules 48..59: upper level, unwinnable states
R_UPPER_PLACES = 48  # rulings.upper_level: 1 "places" (levers reached by travelling), 0 "network"
R_RESERVE_ROUNDS = 49  # rulings.reserve_entries = "rounds": entries and exits keep every remaining round playable

# -- rules 60..79: declared behaviours and rulings
R_DIE_OPTIONAL = 60  # rulings.die_icon = "optional": rolling a DIE icon is the player's choice
R_ROLL_AFTER_JUMP = 61  # rulings.roll_after_jump: an unexplored room reached by stairs or circle is rolled
R_ROLL_AFTER_SWIM = 62  # rulings.roll_after_swim: an unexplored flooded room swum into is rolled
R_ORACLE_IMMUNE = 63  # rulings.oracle_immune: the Oracle's room never collapses or floods
R_FLEE_BACK = 64  # rulings.flee_to = "back": fleeing, you step back into the room you came from
R_KAEL_MONSTERS_ONLY = 65  # rulings.kael_skips_roll = "monster_only": statues do not count as enemies
R_SHIELD_ONE = 66  # rulings.shield_blocks = "one_heart": a shield takes 1 heart off a hit
R_COIN_NEW_GAME = 67  # rulings.insert_coin = "new_game": a continue starts the whole game again
# -- rules 68..79: printed numbers of the base game (docs/rules.md; each one's key in data/rules.toml)
R_WEAPON_WEAR = 68  # combat.wear: weapon points lost after a combat it was used in (or a roll-off: rulings)
R_THEFT = 69  # combat.theft: resources a foe that steals (the bandit) takes each time it hurts you
R_ORACLE_CHESTS = 70  # oracle.chests: chests gained on reaching the awakened Oracle
R_KEEP_HEARTS = 71  # market.keep_hearts: hearts that cannot be exchanged away at the market
R_ITEM_CHEST = 72  # items.chest: chests one chest icon (or a room event's chest) gives
R_ITEM_SHOVEL = 73  # items.shovel: shovels one shovel icon gives
R_ITEM_WEAPON = 74  # items.weapon: weapon points one weapon icon gives
R_ITEM_SHIELD = 75  # items.shield: shields one shield icon gives
R_ITEM_CLOVER = 76  # items.clover: clovers one clover icon gives
R_ITEM_CORNU = 77  # items.cornucopia: cornucopias one cornucopia icon gives
R_REDEEM = 78  # market.redeem: resources a cornucopia redeemed gives (when gained, or at the market)
R_CROSSING_IN_TURN = 79  # rulings.crossing_in_turn: a dig, climb or circle belongs to a turn with a step (1)

# -- rules 80..95: foes from the ruleset's [enemies] table
R_N_FOES = 80  # foe kinds: icons FOE_FIRST .. FOE_FIRST + R[R_N_FOES] - 1 (icons.py)
# -- rules 81..95: free
# -- rules 96..111: the 2-player mode ([two_player] in data/rules.toml; docs/rules.md "2-player mode")
R_P2_PLAYERS = 96  # two_player.players: 1 (the solo game) or 2
R_P2_HERO = 97  # the second player's hero id (two_player.opponent; "same" = the run's hero)
R_P2_CAP = 98  # 98..102: the second player's caps of the N_TRAITS tracks (their sheet)
R_P2_START = 103  # 103..107: the second player's printed sheet (unused for the free character)
R_P2_FIRST = 108  # two_player.first: 1 the run's hero moves (and chooses a side) first, 2 the opponent does
R_P2_TREASURES = 109  # two_player.treasures: chests held before the exit opens (5)
R_P2_LOOT = 110  # two_player.duel_loot: chests the winner of a duel takes from the loser
R_P2_FLAGS = 111  # bits P2F_* below (the on/off rulings of [two_player])
P2F_FINISH_ROUND, P2F_CAP_TREASURES, P2F_SWAP, P2F_DUELS = 1, 2, 4, 8
# -- rules 112..159: campaigns (docs/rules.md, "Campaigns"); every one is 0 in the base game
R_HERO_CAPS_SCALE = 112  # rulings.hero_caps = "scale": a hero's caps are the scale's top (character.cap)
R_MARKET_EVERY_TURN = 113  # rulings.market_every_turn != "off": the market opens at the end of every turn of a round
R_POTION_YELLOW = 114  # potions.yellow: hearts healed by a yellow potion (Cicisbeo Juice)
R_POTION_PURPLE = 115  # potions.purple: hearts healed by a purple potion (Dragon's Blood)
R_POTION_STEP = 116  # potions.coloured_step: a coloured potion also gives one free step (no roll)
R_TURN_MARKET_SWAPS = 117  # rulings.market_every_turn = "all": the end-of-turn market also offers swaps
# -- rules 118..131: The Slaughter of Monsters ([slaughter] in the campaign file; docs/rules.md)
R_SL_ON = 118  # slaughter.on: one endless game from the start triangle, no rounds, no exits; score = kills
R_SL_START = 119  # the start room (the map's black start triangle, icons.START); -1 none
R_FURY_BOXES = 120  # slaughter.fury_boxes: boxes of the Fury track (0: no Fury track)
R_SL_MAX_ENEMIES = 121  # slaughter.max_enemies: monsters that can be met in a game (48)
R_SL_FURY_COUNTS = 122  # slaughter.fury_kills_count: the monsters a full Fury track erases count as kills
R_SL_FIND = 123  # 123..128: slaughter.find_table: the item icon found on each face of the find roll (-1 nothing)
R_SL_CAN_SPAWN = 129  # 1 when a monster can still appear (the DIE table has a monster face)
# --- Fury: where a loss comes from (S_FURY_SITE) and how a Slaughter game ended (S_SL_END, slaughter_end)
FS_HIT, FS_WEAR, FS_STEAL, FS_DIE_TABLE = 1, 2, 3, 4
FURY_SITE_NAMES = ("", "a hit", "weapon wear", "the bandit's theft", "the DIE table")
SLE_DEAD, SLE_FURY, SLE_STUCK, SLE_CLEARED, SLE_CAP = 1, 2, 3, 4, 5
SL_END_NAMES = ("", "died", "the Fury prevailed", "stuck", "every monster slain", "turn cap")
# -- rules 132..145: Santa Crash'n Foury ([santa] in data/rules.toml; docs/rules.md "Santa Crash'n Foury")
R_SANTA = 132  # santa.on: one continuous game from Santa's room under the hourglass (0 = the base game)
R_SANTA_HOURGLASS = 133  # santa.hourglass: hourglass spaces (turns)
R_SANTA_STAR_STEPS = 134  # santa.star_steps: free steps a star gives
R_SANTA_SAFE = 135  # the XMas Safe Zone's cell (the map's icon, found by the ruleset; -1 none)
R_SANTA_GRINCH = 136  # foe icon of santa.grinch (a green package lost per hit); -1 none
R_SANTA_YETI = 137  # foe icon of santa.yeti (a blue package lost per hit); -1 none
R_SANTA_GOAL = 138  # santa.goal, packed: 8 bits per kind SK_* (santa_count(R[R_SANTA_GOAL], k))
R_SANTA_FULL = 139  # santa.full (the collection grid), packed the same way
R_SANTA_WRATH_TURNS = 140  # santa.wrath_turns: Santa's attacks after the hourglass
R_SANTA_WRATH_STR = 141  # santa.wrath_strength: added to Santa's d6
R_SANTA_LOSS = 142  # santa.packages_per_hit: packages the Grinch / the Yeti destroy per hit landed
R_SANTA_DIE_STAR = 143  # santa.die_star: the DIE table face (1..6) that gives a star instead (0 none)
R_SANTA_WRATH_GOAL = 144  # santa.wrath_after_collection: 1 = the collection goal does not spare you the Wrath
R_SANTA_FLAGS = 145  # bits SF_* below: the campaign's two-valued rulings
SF_IMP_ALL = 1  # santa.imp_erases = "all": an imp erases the campaign's collectibles too (not only resources)
SF_STUCK_HOURGLASS = 2  # santa.stuck = "hourglass": stuck, the hourglass runs out where you stand (not a death)
# -- rules 146..159: Discovering the Kraken ([kraken] in data/rules.toml; docs/rules.md "Discovering the Kraken")
R_KR_ON = 146  # kraken.on: one continuous game for all four requirements, the Kraken, the flood, the hourglass
R_KR_FLOOD_EVERY = 147  # kraken.flood_every: turns between two spreads of the flood front
R_KR_HOURGLASS = 148  # kraken.hourglass: hourglass boxes (turns); the game is lost when they run out
R_KR_WALK_MAX = 149  # kraken.walk_max: explored rooms a move may retrace (free walking)
R_KR_SWIM_MAX = 150  # kraken.swim_max: swims in a row allowed; one more is death (drowned)
R_KR_FOE = 151  # the Kraken's foe icon (kraken.foe names the enemy)
R_KR_OPPOSITE = 152  # 152..155: the side opposite each area A..D (kraken.opposite), a sector 0..3
R_KR_MARKET = 156  # kraken.market_once: the market opens once, at an exit, at the rate of requirements done
R_SIZE = 160

# --- tables (int64[T_ROWS, T_COLS]) --------------------------------------------------------
T_EVENTS = 0  # rows 0..3: the room-event table of sectors A..D (6 faces)
T_SPAWN = 4  # 6 faces -> monster icon
T_DIE = 5  # 6 faces -> DIE_* outcome
T_EN_BASE = 6  # per foe icon: base and mult of the ruleset (the default strength table: base + mult x monster bonus)
T_EN_MULT = 7  # (the kernel reads the strength table T_EN_STR, built from them and the enemies' strength cells)
T_BONUS = 8  # per round
T_CHESTV = 9  # per round
T_CAP = 10  # per track (the hero's caps)
T_START = 11  # per track (the hero's sheet; unused for the free character)
T_SCORE = 12  # per track, then col 7 = per kill
T_STAIRS = 13  # col 0: how many staircases, then their cells
T_CIRCLES = 14  # the same for magic circles
T_LEVERS = 15  # the same for levers
# -- table rows 16..23: upper level
T_UP_PLACES = 16  # col 0: how many upper-level places (rooms with a staircase or a lever), then their cells
T_UP_DIST = 17  # rows 17..23: turns of travel between places p and q at flat index p * places + q
UP_MAX_PLACES = 21  # 21 * 21 <= 7 rows * 64 columns
UP_MAX_LEVER_PLACES = 8

# -- table row 24: foes from the ruleset's [enemies] table
T_EN_TRAITS = 24  # per foe icon: FT_* bits below
# -- table rows 25..31: free
# -- table rows 32..47: per-round monster strength (ruleset enemies.X.strength, docs/rules.md "Monster strength")
T_EN_STR = 32  # row T_EN_STR + 4 k + s, per foe icon: its strength in the (k+1)-th round played when that round is
# played in sector s (0..3 = A..D); the kernel reads row T_EN_STR + state[S_STR_ROW]
T_ROWS, T_COLS = 48, 64

# --- foe traits (bits of T[T_EN_TRAITS, foe]; the words are the ruleset's, docs/rules.md explains each) ---------
FT_TRAP = 1  # not a monster (the statue, "a trap"): beating it is no kill; Kael's monster_only ignores it; not spawned
FT_TEMPLE_GOAL = 2  # facing it counts for the Temple's requirement (once per room and round)
FT_STEALS = 4  # each hit it lands, it steals one resource (rulings.bandit_steals)
FT_CAMP_PRIZE = 8  # beating it gives kills.bandit_cornucopias cornucopias (its camp's loot)
FT_RETURNS = 16  # beaten, it comes back in its room at the end of the round, kills.troll_returns times
FT_DESTROYS_ITEMS = 32  # as the fight starts it erases the room's items (rulings.imp_destroys)
FOE_TRAIT_WORDS = {"trap": FT_TRAP, "temple_goal": FT_TEMPLE_GOAL, "steals": FT_STEALS, "camp_prize": FT_CAMP_PRIZE,
                   "returns": FT_RETURNS, "destroys_items": FT_DESTROYS_ITEMS}

# --- per-game output columns ---------------------------------------------------------------
# Declared once, with labels and summaries, in outputs.py; the kernel's index constants (OUT_WIN, OUT_CLEAN, ...:
# each column's ``index``) are derived from that declaration's order. N_OUT columns per game in ``out[k, :]``.

globals().update(_OUTPUTS.kernel_indices())
OUT_COLUMNS = tuple(_OUTPUTS.kernel_names())
N_OUT = len(OUT_COLUMNS)
# Discovering the Kraken's own columns (kr_end, kr_requirements, kr_flood, kr_fights, kr_market): present only in a
# Kraken game (their ``only``), where they follow the N_OUT columns every game has (no 2-player columns then)
KR_OUT = N_OUT

# --- trace event codes (int64 rows [code, a, b, c, d, e]) ----------------------------------
(TR_CREATE, TR_ROUND, TR_MOVE, TR_ROLL, TR_WALL, TR_PREV_COLLAPSE, TR_FLOOD, TR_SPAWN, TR_FIGHT, TR_ROLLOFF,
 TR_CLOVER, TR_WIN, TR_TIE, TR_HIT, TR_BLOCK, TR_STEAL, TR_FLEE, TR_GAIN, TR_LOSE, TR_DIE_TABLE, TR_REQ,
 TR_AWAKE, TR_ORACLE, TR_EXIT, TR_MARKET, TR_DEATH, TR_COIN, TR_LEVER, TR_IMP, TR_TROLL_BACK, TR_KAEL,
 TR_END, TR_WEAPON_WEAR, TR_FACED, TR_EXTRA, TR_CAPPED, TR_MARKET_OPEN, TR_KILL_PRIZE, TR_WALK, TR_JUMP) = range(40)
# -- trace codes 40..44: any-die clover
TR_REROLL = 40  # [roll kind, old face, new face, action (1 reroll, 2 set), new effect]
# roll kinds of a D_REROLL decision (S_RR_KIND, TR_REROLL)
RR_ROOM, RR_EXIT, RR_DIE, RR_SPAWN = 1, 2, 3, 4
RR_NAMES = ("", "room roll", "exit roll", "DIE table roll", "spawn roll")

# -- trace codes 45..49: upper level, unwinnable states
TR_UPPER = 45  # a climb: [staircase up, staircase down, turns travelled, levers reached, places mask]
TR_UNWINNABLE = 46  # [cause UW_*, turn]

# -- trace codes 50..59: declared behaviours and rulings
TR_FLEE_BACK = 50  # [from, to]: fleeing, step back into the room you came from
TR_DIE_LEFT = 51  # [cell, dice left]: the DIE icon is left unused in the room

# -- trace codes 60..61: the search policy (a traced replay of a search game, docs/search.md)
TR_SEARCH = 60  # [decision kind, options, rollouts per option, the base policy's choice, the option taken]
TR_SEARCH_OPT = 61  # [option, rollouts won, mean value x 1000, mean paired difference from the base's choice
#                     x 1000, flags: 1 taken, 2 the base's choice]

# -- trace codes 80..84: the 2-player mode
TR_P2_TURN = 80  # [seat, hero, turn, room, chests]: a player's turn begins (every row until the next is theirs)
TR_P2_SIDE = 81  # [seat, arrow, sector, cell, 0]: a player chooses the side they start from
TR_P2_DUEL = 82  # [attacker seat, room, walk length, 0, 0]: a duel between the players
TR_P2_DUEL_ROLL = 83  # [attacker die, attacker weapon added, defender die, defender weapon added, 0]
TR_P2_DUEL_END = 84  # [winner seat (0 tie), damage, hearts left of the loser, chests taken, shield used]
TR_P2_END = 85  # [winner seat (0 draw), how the game ended (P2E_*), turns of seat 1, turns of seat 2, 0]
# how a 2-player game ended (TR_P2_END, the p2_end column)
P2E_NONE, P2E_EXIT, P2E_SURVIVED, P2E_BOTH_EXIT, P2E_BOTH_DEAD, P2E_CAP = 0, 1, 2, 3, 4, 5
P2E_NAMES = ("", "exited with the treasures", "outlived the opponent", "both exited in the same round of turns",
             "both died in the same round of turns", "turn cap")
# -- trace codes 74, 75, 90..93: Santa Crash'n Foury
TR_SANTA_START = 74  # [start room, hourglass spaces, Santa's room, Safe Zone, 0]
TR_SANTA_GET = 75  # [kind SK_* (N_SANTA_KINDS: a candy cane), count now, cell, change (+1, or -k), foe icon or -1]:
# a reindeer, Rudolph, a package, the sleigh, a candy cane collected; or packages the Grinch / the Yeti destroyed
TR_SANTA_CANE = 90  # [foe icon, cell, canes left, 0, 0]: a candy cane given: the foe leaves the map
TR_SANTA_HOME = 91  # [hourglass spaces left, steps to the Safe Zone, 0, 0, 0]: the hero heads for the Safe Zone;
# [attacks, Santa's strength, 1, 0, 0]: Santa's Wrath begins
TR_SANTA_STAR = 92  # [cell, steps, from: 0 the map's star, 1 the DIE table, 0]; a star's step: [-1, from, to, left, 0]
TR_SANTA_END = 93  # [how SE_*, hourglass marks, wrath turns survived or -1, hearts lost to the wrath, goal met]
PH_SANTA = 3  # S_PHASE of Santa Crash'n Foury: no round, no requirement, no Oracle, no exit
# kinds of collectible (S_SANTA_GOT + k, santa.goal / santa.full keys)
SK_REINDEER, SK_RUDOLPH, SK_GREEN, SK_BLUE, SK_SLEIGH = range(5)
N_SANTA_KINDS = 5
SANTA_KIND_KEYS = ("reindeer", "rudolph", "green", "blue", "sleigh")
SANTA_KIND_NAMES = ("reindeer", "Rudolph", "green package", "blue package", "sleigh")
# how the campaign ended (S_SANTA_END, the santa_end column)
SE_NONE, SE_SAFE, SE_COLLECTION, SE_WRATH_SURVIVED, SE_WRATH_KILLED, SE_DIED = range(6)
SE_NAMES = ("", "won: reached the XMas Safe Zone", "won: collection goal met when the hourglass ran out",
            "lost: survived Santa's Wrath", "lost: killed by Santa's Wrath", "lost: died in the dungeon")
# -- trace codes 70..79: campaigns
TR_POTION_STEP = 70  # [from, to, steps still pending]: a coloured potion's free step
TR_TURN_MARKET = 71  # [turn, chest value]: the end-of-turn market opens (rulings.market_every_turn)
# The Slaughter of Monsters: 72, 73, 86..89
TR_FURY = 72  # [track, amount, boxes used now, boxes of the track, site FS_*]: Fury boxes blacked out instead
TR_FURY_FULL = 73  # [sector, monsters erased, counted as kills (1/0), kills now, 0]: the Fury prevails
TR_SL_FIND = 86  # [cell, face, item icon (-1 nothing), 0, 0]: a room roll finds an item instead of a monster
TR_SL_START = 87  # [cell, monsters on the map, Fury boxes, 0, 0]: the game starts at the black triangle
TR_SL_END = 88  # [how SLE_*, kills, Fury boxes used, turns, 0]: the end of a Slaughter game
TR_SL_CAP = 89  # [cell, monsters met, 0, 0, 0]: no monster appears: the most that can be met are met
# -- trace codes 76..79, 94..97: Discovering the Kraken
TR_KR_FLOOD = 76  # [turn, rooms flooded by this spread, rooms of the Kraken's water, 1 if the water reached you]
TR_KR_FIGHT = 77  # [why: KRF_SWIM or KRF_REACHED, room, swims in a row]: the Kraken attacks
TR_KR_AREA = 78  # [area done, requirements done, next area (-1: none), exit side (-1: not yet)]
TR_KR_MARKET = 79  # [rate, chests]: the one market visit, at an exit
TR_KR_DROWN = 94  # [room, swims in a row]: one swim too many
TR_KR_HOURGLASS = 95  # [turn]: the hourglass has run out
KRF_SWIM, KRF_REACHED = 1, 2

TRACE_COLS = 6
