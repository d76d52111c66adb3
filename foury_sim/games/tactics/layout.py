"""The user-facing Tactics policy API: decision kinds, state vector, option columns, action codes, trace codes.

Both sides are policies with the one signature ``decide(kind, state, options, n_options, params) -> int``
(``foury_sim.policy``): the adventurer answers the player's kinds (``D_ACTION``), the Dungeon Master the DM's
kinds (``D_SPAWN_KIND``, ``D_SPAWN_AT``, ``D_DM_ACT``). Everything a policy can read is named here. All values
are plain ints so numba freezes them as constants.

Options carry the kernel's advice: ``O_GOAL`` (steps from the option's target tile to the player's goal: the
exit, or the key that opens the way to it), ``O_LOOT`` (steps to the nearest thing still to loot), ``O_VALUE``
(what the option is worth by its own measure: HP healed, an item's bonus, a monster's HP), so a built-in
policy is a few comparisons.
"""

from __future__ import annotations

from .level import (  # noqa: F401  (re-exported: the kernel and policies read them from here)
    COLOR_NAMES,
    LV_COLS,
    LV_EXIT,
    LV_N_MON,
    LV_N_SPAWN,
    LV_ROWS,
    LV_START,
    LV_TELE_A,
    LV_TELE_B,
    T_EXIT,
    T_FLOOR,
    T_LAVA,
    T_SPAWN,
    T_START,
    T_TELEPORT,
    T_WALL,
    T_WATER,
    THING_NAMES,
    X_BARREL,
    X_CHEST,
    X_CRATE,
    X_DOOR,
    X_KEY,
    X_MAGIC_CHEST,
    X_NONE,
    X_SARCOPHAGUS,
    X_SHRINE,
    X_USED,
)
from .outputs import OUTPUTS as _OUTPUTS  # outputs.py does not import the layout

#: A thing that has been used but stays on its tile (a looted chest, a used shrine) is ``X_* + X_USED``
#: (``level.X_USED``).

# --- the state vector (int64[STATE_SIZE]) -------------------------------------------------------------
S_TURN = 0  # player turn number, 1-based
S_HP = 1  # the player's HP
S_HP_CAP = 2  # the HP cap (healing stops there; the Shrine of Healing may overheal)
S_AP = 3  # AP left this turn (the player's, during the DM's turn the DM's)
S_AP_PENALTY = 4  # maximum AP lost for the level (Shrine of Weakness)
S_CELL = 5  # the player's tile (r * cols + c)
S_WEAPON = 6  # weapon row equipped (0 bare hands)
S_ARMOR = 7  # armour row worn (0 none)
S_WEAPONS = 8  # bit w: weapon row w held
S_ARMORS = 9  # bit a: armour row a held
S_FOOD = 10  # food items
S_POTIONS = 11  # 3: health, stamina, mystery potions held
S_MAGIC = 14  # bit m: magic item MG_m held (unused yet)
S_MAGIC_FOUND = 15  # bit m: magic item MG_m found this game (unique: a second one becomes food)
S_KEYS = 16  # bit c: key of colour c held
S_MIGHT = 17  # bonus of the Shrine of Might
S_BERSERK = 18  # 1 while the Berserk Potion lasts (this turn)
S_WON = 19  # 1 once the exit is reached
S_DEAD = 20  # 1 once the player is dead for good
S_CAUSE = 21  # how the game ended (CAUSE_*)
S_KILLER = 22  # monster table row that dealt the last blow (-1)
S_DEATH_CELL = 23  # tile of the death (-1)
S_N_MON = 24  # monster slots in use
S_KILLS = 25  # monsters slain by the player
S_LOOT = 26  # items found (kept or not)
S_USED = 27  # items used (consumed, equipped, magic)
S_AP_BY = 28  # 5: AP the player spent by action kind (AK_*)
S_RES = 33  # undead resurrected when looted
S_SPAWNED = 34  # monsters the DM spawned
S_BAD = 35  # out-of-range answers (taken as option 0)
S_NDEC = 36  # decisions taken (both sides)
S_PHASE = 37  # 0 the player's turn, 1 the DM's
S_FAULT = 38  # choices the kernel has no rule for (always 0)
S_AWAKE = 39  # awake monsters alive
S_CAN_REST = 40  # 1 if resting is allowed now
S_GOAL = 41  # the player's tile's distance to the goal (-1: no way)
S_GOAL_CELL = 42  # the goal: the exit, or the key that opens the way
S_ROWS = 43
S_COLS = 44
S_EXIT = 45
S_AP_MAX = 46  # the player's AP at the start of a turn now
S_RESTS = 47  # turns rested
S_REVIVED = 48  # skeletons the necromancer revived
S_ELECTRIC = 49  # HP the player lost to electrified water
S_LOOT_DIST = 50  # steps from the player to the nearest thing to loot (-1 none)
S_NACT = 51  # the player's decisions so far this game (every kind of the adventurer's, forced ones included)
S_MAPV = 52  # the map's version: +1 whenever a thing is used up or a key taken (the kernel's field caches)
S_RC_V = 53  # the map version of the cached route fields (-1 none)
S_MC_G = 54  # the key (map version, player tile) of the cached walking monsters' field (-1 none)
S_MC_L = 55  # ... of the flying / lava-immune monsters' field
S_PASV = 56  # the player's passability's version: +1 whenever it may change (a key taken, a door opened)
S_RC_PASV = 57  # the passability version the route fields were last computed over
S_D1_V = 58  # the passability version the player's field d1 (route_fields) was swept over
S_D1_SRC = 59  # the tile d1 was swept from (-1 none)
S_MPASV = 60  # the monsters' passability's version: +1 whenever a tile's thing goes (a crate, barrel or key taken, a
#               door opened; a used chest, sarcophagus or shrine stays in the way): the key of the monsters' fields
S_KILLS_KIND = 64  # MAX_KINDS: kills by monster table row
MAX_KINDS = 32
S_MON = S_KILLS_KIND + MAX_KINDS  # the monster slots, MC words each
# monster slot fields
MF_KIND = 0  # monster table row
MF_CELL = 1  # tile
MF_HP = 2  # HP left
MF_STATE = 3  # MS_*
MF_RESURRECTED = 4  # 1: came back once (never loots, never comes back again)
MF_CORPSE = 5  # 1: a dead skeleton a necromancer may revive
MC = 6
MAX_MON = 48
STATE_SIZE = S_MON + MAX_MON * MC
#: monster slot states
MS_DEAD, MS_ASLEEP, MS_AWAKE = 0, 1, 2

#: AP by action kind (``S_AP_BY``)
AK_MOVE, AK_ATTACK, AK_INTERACT, AK_USE, AK_OTHER = range(5)
AK_NAMES = ("move", "attack", "interact", "use", "other")

#: How a game ended (``S_CAUSE``, output ``death_cause``)
CAUSE_NONE, CAUSE_MONSTER, CAUSE_TRAP, CAUSE_ELECTRIC, CAUSE_TURN_CAP, CAUSE_LAVA, CAUSE_POTION = range(7)

# --- decision kinds ------------------------------------------------------------------------------------
D_ACTION = 0  # the player's next action (move, attack, interact, use, equip, rest, end the turn)
D_SPAWN_KIND = 1  # the DM: which monster of the rolled category spawns
D_SPAWN_AT = 2  # the DM: at which free spawn point
D_DM_ACT = 3  # the DM: which monster acts how (or end the DM's turn)
D_FREEDOM = 4  # the adventurer: which locked door the Shrine of Freedom opens (rows: the closed doors)
D_GAMBLE = 5  # the adventurer: keep a loot roll or reroll it with the Gambler's Die (rows: keep, reroll)
N_DECISIONS = 6
KIND_NAMES = ("action", "spawn kind", "spawn point", "dm action", "freedom door", "gamble")
#: The DM's decision kinds are D_FIRST_DM .. D_LAST_DM (they go to the DM's policy); every other kind is the
#: adventurer's.
D_FIRST_DM = D_SPAWN_KIND
D_LAST_DM = D_DM_ACT

# --- option rows (int64[MAX_OPTIONS, N_OCOLS]) ------------------------------------------------------------
O_ACTION = 0  # A_* code
O_ARG = 1  # direction (moves: 0 up, 1 right, 2 down, 3 left, 4 teleporter), monster slot, item (U_*), row
O_CELL = 2  # the target tile (-1 none)
O_COST = 3  # AP the option spends
O_GOAL = 4  # steps from the target tile to the goal (-1: none or not on the way); A_EQUIP: the worth of
#             what is worn or wielded now (compare with O_VALUE)
O_LOOT = 5  # steps from the target tile to the nearest thing to loot (-1: none)
O_VALUE = 6  # the option's worth: HP healed, an item's worth, the monster's HP or dice, a distance (DM rows);
#             a Scroll of Teleportation row: its direction
O_MON = 7  # monster slot concerned (-1 none)
N_OCOLS = 8
MAX_OPTIONS = 64

# player actions
A_MOVE, A_ATTACK, A_INTERACT, A_USE, A_EQUIP, A_REST, A_END = range(1, 8)
# DM actions
A_M_MOVE, A_M_ATTACK, A_M_SHOOT, A_M_REVIVE, A_DM_END, A_SPAWN_KIND, A_SPAWN_AT = range(10, 17)
ACTION_NAMES = {A_MOVE: "move", A_ATTACK: "attack", A_INTERACT: "interact", A_USE: "use", A_EQUIP: "equip",
                A_REST: "rest", A_END: "end the turn", A_M_MOVE: "monster moves", A_M_ATTACK: "monster attacks",
                A_M_SHOOT: "monster shoots", A_M_REVIVE: "revive", A_DM_END: "end the DM's turn",
                A_SPAWN_KIND: "spawn", A_SPAWN_AT: "spawn at"}
DIR_NAMES = ("up", "right", "down", "left", "through the teleporter")
#: what ``A_USE`` uses (``O_ARG``)
U_FOOD, U_HEALTH, U_STAMINA, U_MYSTERY, U_BERSERK, U_RUNE, U_HOLY_BOLT, U_TELEPORT, U_GAMBLER = range(9)
USE_NAMES = ("food", "health potion", "stamina potion", "??? potion", "Berserk Potion", "Rune of Repulsion",
             "Scroll of Holy Bolt", "Scroll of Teleportation", "Gambler's Die")
#: ``A_EQUIP`` arguments: a weapon row, or ``EQ_ARMOR + armour row``
EQ_ARMOR = 10

# --- built-in policy ids -------------------------------------------------------------------------------
P_RANDOM, P_RUSH, P_THOROUGH = 0, 1, 2  # the adventurer's
P_BY_THE_BOOK, P_RUTHLESS = 10, 11  # the Dungeon Master's

# --- trace events: [code, turn, a0..a7] (kernel ``ev``; their words: ``trace.py``) --------------------------
E_TURN, E_DECISION, E_MOVE, E_WAKE, E_DICE, E_ROLLOFF, E_KILL, E_LOOT_ROLL = range(1, 9)
E_ITEM, E_USE, E_RESURRECT, E_SPAWN_ROLL, E_SPAWN, E_MON_MOVE, E_DM_TURN, E_DOOR = range(9, 17)
E_KEY, E_TRAP, E_REST, E_END_TURN, E_END, E_AMULET, E_SHRINE, E_ELECTRIC = range(17, 25)
E_EQUIP, E_KNOCK, E_BOLT, E_TELEPORT, E_REVIVE, E_HEAL, E_NO_SPAWN, E_CHICKEN = range(25, 33)
TRACE_COLS = 10
#: E_ITEM categories (a0) and what became of it (a2)
IT_WEAPON, IT_ARMOR, IT_POTION, IT_FOOD, IT_MAGIC = range(5)
GOT_KEPT, GOT_DUPLICATE, GOT_FULL, GOT_FOOD_INSTEAD = range(4)
#: E_LOOT_ROLL sources (a0)
SRC_MONSTER, SRC_BOSS, SRC_BARREL, SRC_CHEST, SRC_MAGIC_CHEST, SRC_SARCOPHAGUS = range(6)
SOURCE_NAMES = ("monster", "boss", "barrel or crate", "chest", "magic chest", "sarcophagus")

# --- per-game output columns (int64[count, N_OUT]): the index constants derive from outputs.py's order ------
globals().update(_OUTPUTS.kernel_indices())

# --- the adventurer's choices inside a rule: the Shrine of Freedom and the Gambler's Die -----------------------
#: ``D_FREEDOM`` rows (one per locked door still closed, in reading order): ``O_ACTION`` = ``A_OPEN_DOOR``,
#: ``O_ARG`` the door's colour (``COLOR_NAMES``), ``O_CELL`` its tile, ``O_VALUE`` its distance from the player in
#: grid steps through walls (rows, plus columns), ``O_COST`` 0, ``O_GOAL``/``O_LOOT``/``O_MON`` -1.
#: ``D_GAMBLE`` rows (asked after each loot roll while the Gambler's Die is held: the loot chance, the normal
#: loot chart's category, the item of the weapon, armour, potion or magic chart): row 0 ``A_KEEP``, row 1
#: ``A_REROLL`` (uses the die up), both with ``O_ARG`` the roll (``GB_CHANCE``, ``GB_CATEGORY``, ``GB_ITEM``),
#: ``O_VALUE`` what it gave (the loot chance's code, the category, the weapon or armour row, the potion kind, the
#: magic item), ``O_GOAL`` what it is worth (``GB_GOOD``, ``GB_NOTHING``: nothing gained, a duplicate or a full
#: stack; ``GB_HARM``: a trap or a monster; ``GB_FOOD``: the food category), ``O_LOOT`` the source (``SRC_*``),
#: ``O_CELL`` the looted tile, ``O_COST`` 0, ``O_MON`` -1.
A_OPEN_DOOR, A_KEEP, A_REROLL = 20, 21, 22
ACTION_NAMES.update({A_OPEN_DOOR: "open a door (Shrine of Freedom)", A_KEEP: "keep the roll",
                     A_REROLL: "reroll (Gambler's Die)"})
GB_CHANCE, GB_CATEGORY, GB_ITEM = range(3)
GAMBLE_ROLLS = ("loot chance", "loot category", "loot item")
GB_GOOD, GB_NOTHING, GB_HARM, GB_FOOD = range(4)
