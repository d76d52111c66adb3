"""The user-facing Delve policy API: decision kinds, state vector, option columns, action codes.

A Delve policy is ``decide(kind, state, options, n_options, params) -> int`` (see
``foury_sim.policy``). Everything it can read is named here; ``docs/rules-delve.md`` has the
table. All values are plain ints so numba freezes them as constants.

Options come best-first: the kernel annotates every row with its advice (``O_COST``, ``O_OK``,
``O_P``) and sorts fights by cost, so ``return 0`` is always legal and rarely foolish.
"""

from __future__ import annotations

from .outputs import OUTPUTS as _OUTPUTS  # outputs.py does not import the layout

# --- faces ---------------------------------------------------------------------------------
#: Party die faces (companion types); roles 0..4 are companions, SCROLL defeats nothing.
FIGHTER, CLERIC, MAGE, THIEF, CHAMPION, SCROLL = range(6)
N_FACES = 6
N_ROLES = 5
FACE_NAMES = ("fighter", "cleric", "mage", "thief", "champion", "scroll")
#: Dungeon die faces. GOBLIN..OOZE are monsters.
GOBLIN, SKELETON, OOZE, CHEST, POTION, DRAGON = range(6)
N_MONSTER_TYPES = 3
DUNGEON_NAMES = ("goblin", "skeleton", "ooze", "chest", "potion", "dragon")

# --- treasures -----------------------------------------------------------------------------
#: Phase bits (treasure, scroll and ultimate ``phases``).
PH_MONSTER, PH_LOOT, PH_DRAGON = 1, 2, 4
PHASE_BITS = {"monster": PH_MONSTER, "loot": PH_LOOT, "dragon": PH_DRAGON}
MAX_TREASURES = 12  # treasure kinds a ruleset may define
#: Treasure effects (``effect`` in rules.toml): the one list. The ruleset refuses any other name, and
#: the kernel dispatches on each constant explicitly (``kernel.use_treasure``, ``load_units``...).
TE_COMPANION, TE_SCROLL, TE_RING, TE_SCALES, TE_ELIXIR, TE_BAIT, TE_PORTAL, TE_PLAIN = range(8)
TREASURE_EFFECTS = ("companion", "scroll", "ring", "scales", "elixir", "bait", "portal", "plain")
#: The phases each effect can be used in (a token's ``phases`` must be among them), by effect.
TREASURE_PHASES = (
    PH_MONSTER | PH_LOOT | PH_DRAGON,  # companion: acts as its companion
    PH_MONSTER | PH_DRAGON,  # scroll: a reroll
    PH_DRAGON,  # ring: the Lair empties
    0,  # scales: points only
    PH_MONSTER | PH_LOOT | PH_DRAGON,  # elixir: one die back from the Graveyard
    PH_MONSTER,  # bait: monsters to the Lair
    PH_MONSTER | PH_DRAGON,  # portal: instead of fleeing
    0,  # plain: points only
)

# --- units: everything that can act as a companion --------------------------------------------
#: unit u: 0..5 party dice by face, 6..11 temporary companions (monsters turned companions) by
#: face, 12..23 companion treasures by treasure kind, 24 the hero itself (an ultimate).
U_PARTY = 0
U_TEMP = 6
U_TOKEN = 12
U_HERO = U_TOKEN + MAX_TREASURES
N_UNITS = U_HERO + 1

# --- hero power table (one row per side: 0 novice, 1 master) ---------------------------------
H_ACT = 0  # 6 columns: role mask (bit r = may act as role r) of each party face
H_EXTRA = 6  # 5 columns: extra monsters of any type a companion used in role r defeats
H_FORM_REROLL = 11  # rerolls of any party dice when forming the party
H_FORM_FROM = 12  # when forming, every die showing this face ...
H_FORM_TO = 13  # ... turns to this face (-1: no transform)
H_DRAGON_TYPES = 14  # different companion types the dragon needs (0: the ruleset's)
H_LOOT_IN_MONSTER = 15  # 1: may open chests and quaff potions during the monster phase
H_ULT = 16  # ultimate power code (ULT_*)
H_ULT_N = 17  # how many (monsters defeated / transformed, treasures discarded)
H_ULT_MASK = 18  # faces (hero_companion), monster types (transform, defeat), what (discard)
H_ULT_TO = 19  # transform target: a party face, or TO_POTION
H_ULT_PHASES = 20  # phase bits the ultimate may be used in
H_COLS = 21
TO_POTION = 6
#: Ultimate powers (``power`` of an ultimate in rules.toml).
ULT_NONE, ULT_HERO_COMPANION, ULT_DISCARD, ULT_DEFEAT, ULT_REROLL, ULT_TO_LAIR, ULT_TRANSFORM, ULT_SACRIFICE = range(8)
ULT_POWERS = ("none", "hero_companion", "discard", "defeat", "reroll", "monsters_to_lair", "transform", "sacrifice")
#: ``discard`` targets (bits of H_ULT_MASK).
DISCARD_BITS = {"monsters": 1, "chests": 2, "potions": 4, "lair": 8}

# --- the state vector (int64[STATE_SIZE]) -------------------------------------------------------
S_DELVE = 0  # delve number, 1-based
S_LEVEL = 1  # current level, 1-based
S_PHASE = 2  # PH_* bit of the phase being played (0 forming / regroup)
S_XP = 3  # experience earned so far (score without treasures)
S_MASTER = 4  # 1 once the hero has turned to its master side
S_ULT_USED = 5  # 1 once the ultimate has been used this delve
S_NDEC = 6  # decisions taken so far this game
S_HERO = 7  # hero index (0 = no hero)
S_PARTY = 8  # 6: active party dice by face
S_GRAVE = 14  # party dice in the Graveyard
S_TEMP = 15  # 6: temporary companions by face (discarded at regroup)
S_DUN = 21  # 5: dungeon dice showing goblin, skeleton, ooze, chest, potion
S_LAIR = 26  # dice in the Dragon's Lair
S_TREASURE = 27  # 12: treasure tokens held, by kind
S_POOL = 39  # 12: tokens left in the pool, by kind
S_POOL_LEFT = 51  # tokens left in the pool
S_PICK = 52  # 11: dice picked for a reroll so far (6 party faces, then 5 dungeon faces)
S_REROLL_SRC = 63  # what the reroll being picked comes from (SRC_*)
S_REVIVE_LEFT = 64  # dice still to revive (D_REVIVE)
S_SLAIN = 65  # dragons slain this game
S_FLED = 66  # delves ended by fleeing
S_PORTALS = 67  # delves ended through a Town Portal
S_CHESTS = 68  # chests opened this game
S_FACED = 69  # dragons faced this game
S_SCORE = 70  # the score if the game ended now
S_RETIRED = 71  # delves ended by retiring
S_NDEC_KIND = 72  # 6: decisions taken so far this game, by kind
S_DELVE_LEVEL = 78  # 8: level reached in each delve
S_TREASURES_WON = 86  # treasure tokens gained this game
S_DRAGON_NEED = 87  # different companion types the dragon needs now
S_LEVELS = 88  # levels in the dungeon (ruleset)
S_DELVES = 89  # delves in the game (ruleset)
S_DELVE_XP = 90  # experience earned in this delve so far
S_P_NEXT = 91  # chance x 1e6 of clearing the next level with the party in hand (-1: not computed;
#               a user policy file asks for it with POLICY_TRAITS = ("needs_odds",))
S_RETIRE_XP = 92  # XP per level for retiring (ruleset)
S_PORTAL_FALLBACK = 93  # net points a held Town Portal saves if the next level fails (0: none held)
S_BAD = 94  # out-of-range answers of the policy (taken as option 0)
S_PLAN = 95  # 11: the kernel's advised reroll (same layout as S_PICK)
S_FULL_MENU = 106  # 1: menus list every fight, not only the best (the policy's ``full_menu`` trait)
S_FAULT = 107  # choices the kernel has no rule for (an action or treasure effect no branch handles): always 0
S_DP_GO = 108  # P(win) x 1e6 if the adventurer goes on at the coming regroup, by the optimal policy's dynamic
#               programme (games/delve/dp.py; -1: not computed; a user policy asks with POLICY_TRAITS = ("needs_dp",))
S_DP_RETIRE = 109  # P(win) x 1e6 if the adventurer retires at the coming regroup (same model; -1: not computed)
S_SEARCH_FAULT = 110  # after a search game: forced decisions whose replay differed from their record (always 0)
STATE_SIZE = 112
MAX_DELVES = 8
N_PICK = 11
SRC_FORM, SRC_SCROLL, SRC_ULTIMATE = 0, 1, 2

# --- decision kinds ------------------------------------------------------------------------
D_MONSTER = 0  # monster phase: fight, scroll, ultimate, treasure, (loot), portal or flee
D_REROLL = 1  # pick the next die to reroll, or DONE
D_LOOT = 2  # loot phase: open chests, quaff potions, use an Elixir, or DONE
D_REVIVE = 3  # face of a die brought back from the Graveyard
D_DRAGON = 4  # dragon phase: fight, Ring, ultimate, scroll, portal or flee
D_REGROUP = 5  # retire or seek glory
N_DECISIONS = 6
KIND_NAMES = ("monster", "reroll", "loot", "revive", "dragon", "regroup")

# --- option rows (int64[MAX_OPTIONS, N_OCOLS]) -----------------------------------------------
O_ACTION = 0  # A_* code
O_ARG = 1  # unit (fight/open/quaff/scroll), treasure kind, face, pick index, ultimate variant
O_N = 2  # chests opened, dice revived, monsters affected
O_COST = 3  # advice: what the option spends (dice and tokens weighted; lower is cheaper)
O_OK = 4  # advice: 1 if the phase can be won after it (fights: monsters and any dragon)
O_P = 5  # advice: chance x 1e6 of clearing the next level after it (-1: not computed)
O_MON = 6  # 3: monsters by type the option defeats or transforms (-1 in fights: swept by unit)
O_USE = 9  # N_UNITS: units the option spends, by unit
N_OCOLS = O_USE + N_UNITS
MAX_OPTIONS = 64

A_FIGHT, A_SCROLL, A_ULTIMATE, A_TREASURE, A_PORTAL, A_FLEE, A_OPEN, A_QUAFF = range(1, 9)
A_DONE, A_PICK, A_FACE, A_RETIRE, A_CONTINUE = range(9, 14)
ACTION_NAMES = (
    "",
    "fight",
    "scroll",
    "ultimate",
    "treasure",
    "portal",
    "flee",
    "open",
    "quaff",
    "done",
    "pick",
    "face",
    "retire",
    "continue",
)

# --- built-in policy ids ---------------------------------------------------------------------
#: What a built-in does beyond its id is declared as traits in its ``PolicySpec`` (``__init__.POLICIES``).
P_RANDOM, P_THRESHOLD, P_RISK, P_OPTIMAL = 0, 1, 2, 3
P_SEARCH = 50  # the search policy (foury_sim/search.py): rollouts over a base policy

# --- trace events: [code, delve, level, a0..a7] (kernel ``ev``; their words: ``trace.py``) --------
E_DELVE, E_PARTY, E_DUNGEON, E_DECISION, E_USE, E_DRAW, E_XP, E_REVIVE = range(1, 9)
E_DRAGON, E_SLAIN, E_ULTIMATE, E_TREASURE, E_FLEE, E_PORTAL, E_RETIRE, E_MASTER = range(9, 17)
E_END, E_TRANSFORM, E_CLEARED, E_OPEN, E_QUAFF, E_REROLL = range(17, 23)
#: The search policy's rows in a traced replay (docs/search.md): a searched decision [kind, options, rollouts
#: per option, the base policy's choice, the option taken], then per option [option, rollouts won, mean value
#: x 1000, mean paired difference from the base's choice x 1000, flags: 1 taken, 2 the base's choice].
E_SEARCH, E_SEARCH_OPT = 23, 24
TRACE_COLS = 11
#: XP reasons (E_XP a1)
XP_RETIRE, XP_DRAGON, XP_EMPTY_POOL, XP_PORTAL = range(4)
#: fleeing causes (E_FLEE a0)
FLEE_MONSTERS, FLEE_DRAGON = 0, 1

# --- per-game output columns (the kernel's int64[N_OUT, count]: out[OUT_..., g]) -------------------
# Declared once, with labels and summaries, in outputs.py; the index constants (OUT_GAME, OUT_WIN, ...: each
# column's ``index``) are derived from that declaration's order. OUT_DELVE_LEVEL is the first of one column
# per delve.

globals().update(_OUTPUTS.kernel_indices())
