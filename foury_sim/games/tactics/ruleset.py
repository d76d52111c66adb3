"""Tactics rulesets: read ``data/rules.toml`` (a user's ``--rules`` file merged over it, then ``--set``
overrides: ``rulesfile.load_ruleset_file``), validate, and flatten it into the plain int64 arrays the kernel
reads: the scalars ``rules`` (``R_*``), the monster table (``M_*``), weapons (``W_*``), armour (``A_*``) and
the d6 charts (``C_*``); with the level (``--map``, ``level.load_level`` / ``pack_level``). Validation lives
here, never in kernels. The names are the Tactics contract (docs/rules-tactics.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ... import assumptions as assume
from ...errors import InputError
from ...rulesfile import Ranges, RuleFile, check_int, load_ruleset_file, nearest, range_of

DEFAULT_RULES = Path(__file__).with_name("data") / "rules.toml"
#: The level played when ``--map`` is not given.
DEFAULT_LEVEL = "crypt"
#: Tables where a user's ``--rules`` file may add entries: monsters, weapons, armour, its own assumptions.
OPEN_TABLES = ("monsters", "weapons", "armors", "assumptions")
#: Tactics has one adventurer (``GameSpec.heroes``).
HEROES = ("adventurer",)

# --- the scalars: offsets in ``rules`` -----------------------------------------------------------
R_HP = 0
R_AP = 1
R_DM_AP = 2
R_PLAYER_DICE = 3
R_TURN_CAP = 4
R_MOVE = 5
R_MOVE_COMBAT = 6
R_ATTACK = 7
R_INTERACT = 8
R_USE = 9
R_FOOD_HEAL = 10
R_FOOD_STACK = 11
R_POTION_STACK = 12
R_HEALTH_POTION = 13
R_STAMINA_POTION = 14
R_REVIVE_AP = 15
R_RESURRECT_FACE = 16
R_TRAP_DAMAGE = 17
R_OGRE_BLOW = 18
R_HOLY_BOLT = 19
R_TELEPORT_RANGE = 20
R_BERSERK_DICE = 21
R_SHRINE_HEAL = 22
R_WEAKNESS_AP = 23
R_MIGHT = 24
R_ELECTRIC = 25
R_STORM_DRAIN = 26  # AP the storm golem drains (abilities.storm_drain_ap)
R_RUNE_SMALL = 27  # Rune of Repulsion knock-back, small / large monsters
R_RUNE_LARGE = 28
R_RESURRECT_LOSS = 29  # a resurrected undead comes back with full HP minus this
R_GAMBLE_HP = 30  # the "gamble" mystery potion's +/- HP
R_CHICKEN_SIXES = 31  # sixes among the player's dice that make a chicken (a chicken weapon; abilities.chicken_sixes)
# rulings (codes below)
R_WATER = 32
R_TIES = 33
R_MODIFIER = 34
R_SPAWN6 = 35
R_MYSTERY = 36
R_ADVANCING = 37
R_MON_BLOCK = 38
R_OVERHEAL_DECAY = 39
R_RANGED_ADJ = 40
R_PLATE_WATER = 41  # AP to move in water in armour with move_pct > 100 under water = "plate_printed" (8)
R_WINS_ON_EXIT = 42
# the engine's rulings (docs/rules-tactics.md "Rulings made in the engine"; codes below)
R_REST_SPAWN = 43  # REST_SPAWN_*: does a rest skip the DM's spawn roll with the rest of its turn
R_ELECTRIC_TURNS = 44  # ELECTRIC_*: at the start of which turns a storm golem in water electrifies it
R_REVIVE_LAVA = 45  # 1: a skeleton slain on lava leaves a body the necromancer may revive
R_START_WEAPON = 46  # weapon row the player starts wielding (player.weapon; 0 = bare hands)
R_START_ARMOR = 47  # armour row the player starts wearing (player.armor; 0 = none)
R_LAVA_WALK = 48  # LAVA_WALK_*: which monsters may step onto lava (the text: flyers only)
R_SPAWN_OPTIONAL = 49  # 1: the DM may decline the rolled spawn (the text's "may spawn"; a DM policy file is asked)
R_TRIPLE_SIXES = 50  # sixes among a triple_six monster's dice that make its massive blow (abilities.triple_six_sixes)
N_R = 51  # every slot in use: a new scalar grows N_R
#: The word of ``player.weapon`` / ``player.armor`` for no starting weapon / armour.
NO_ITEM = "none"

# --- ruling codes (the value's index in its RULINGS entry) --------------------------------------
WATER_DOUBLE, WATER_PLATE_PRINTED = 0, 1
TIES_NOBODY, TIES_REROLL, TIES_PLAYER, TIES_MONSTER = 0, 1, 2, 3
MOD_ROLL, MOD_DAMAGE = 0, 1
SPAWN6_NOTHING, SPAWN6_ANY, SPAWN6_REROLL = 0, 1, 2
MYSTERY_DUD, MYSTERY_HEALTH, MYSTERY_STAMINA, MYSTERY_GAMBLE = 0, 1, 2, 3
ADV_AWAKE_WITH_PATH, ADV_IN_SIGHT_ONLY = 0, 1
RANGED_ADJ_MELEE, RANGED_ADJ_RANGED = 0, 1
REST_SPAWN_SKIPPED, REST_SPAWN_ROLLED = 0, 1
ELECTRIC_DM_TURNS, ELECTRIC_EVERY_TURN = 0, 1
LAVA_WALK_FLYERS, LAVA_WALK_IMMUNE_TOO = 0, 1

#: Every ruling: (ruleset key, rules slot, the allowed values in code order; None = a whole number / bool).
RULINGS: dict[str, tuple[int, tuple[str, ...] | None]] = {
    "water": (R_WATER, ("double", "plate_printed")),
    "ties": (R_TIES, ("nobody", "reroll", "player", "monster")),
    "modifier": (R_MODIFIER, ("roll", "damage")),
    "spawn6": (R_SPAWN6, ("nothing", "any", "reroll")),
    "mystery_potion": (R_MYSTERY, ("dud", "health", "stamina", "gamble")),
    "advancing": (R_ADVANCING, ("awake_with_path", "in_sight_only")),
    "monsters_block": (R_MON_BLOCK, None),
    "overheal_decay": (R_OVERHEAL_DECAY, None),
    "ranged_adjacent": (R_RANGED_ADJ, ("melee", "ranged")),
    # the engine's rulings
    "rest_spawn": (R_REST_SPAWN, ("skipped", "rolled")),
    "electric_turns": (R_ELECTRIC_TURNS, ("dm", "every")),
    "revive_lava": (R_REVIVE_LAVA, None),
    "lava_walk": (R_LAVA_WALK, ("flyers", "immune_too")),
    "spawn_optional": (R_SPAWN_OPTIONAL, None),
}

# --- monsters --------------------------------------------------------------------------------------
M_HP, M_DICE, M_AP_MOVE, M_AP_ATTACK, M_KIND, M_LARGE, M_BOSS, M_RANGE = range(8)
M_FLY, M_LAVA_IMMUNE, M_REVIVER, M_TRIPLE_SIX, M_STORM, M_SPAWN_CAT, M_ATTACK_MOD, M_RESURRECTS = range(8, 16)
M_COLS = 16
K_UNDEAD, K_DEMON, K_GOLEM, K_HUMANOID, K_BEAST = range(5)
KIND_NAMES = ("undead", "demon", "golem", "humanoid", "beast")
SIZE_NAMES = ("small", "large")
#: Each ability name and the monster column it sets to 1.
ABILITIES = {"boss": M_BOSS, "reviver": M_REVIVER, "flies": M_FLY, "lava_immune": M_LAVA_IMMUNE,
             "triple_six": M_TRIPLE_SIX, "storm": M_STORM, "resurrects": M_RESURRECTS}
MONSTER_FIELDS = ("hp", "dice", "ap_move", "ap_attack", "kind", "size", "range", "attack_mod", "spawns", "abilities")
MAX_MONSTERS = 32
#: Monsters the charts and the mage staff name (they must be in the table).
MUMMY, SKELETON, CHICKEN = "mummy", "skeleton", "chicken"

# --- weapons and armour ----------------------------------------------------------------------------
W_BONUS, W_VS_KIND, W_VS_BONUS, W_REACH, W_CHICKEN = range(5)
W_COLS = 5
WEAPON_FIELDS = ("bonus", "vs", "vs_bonus", "reach", "chicken")
A_AP, A_DEF, A_MOVE_PCT = range(3)
A_COLS = 3
ARMOR_FIELDS = ("ap", "defense", "move_pct")
N_ITEMS = 7  # rows of the weapon and armour tables: 0 = bare hands / none, then at most 6 kinds

# --- the d6 charts: offsets in ``charts`` (6 faces each, face 1 first) ------------------------------
C_LOOT_MONSTER = 0
C_LOOT_BOSS = 6
C_LOOT_BARREL = 12  # barrels and crates
C_LOOT_CHEST = 18
C_LOOT_MAGIC_CHEST = 24
C_LOOT_SARCOPHAGUS = 30
C_NORMAL = 36
C_POTION = 42
C_MAGIC = 48
C_SHRINE = 54
C_SPAWN = 60
C_WEAPON = 66  # face -> weapon row (1..)
C_ARMOR = 72  # face -> armour row (1..)
C_KIND_MUMMY = 78  # monster table rows the charts and the staff name
C_KIND_SKELETON = 79
C_KIND_CHICKEN = 80
N_C = 81
#: Loot chance codes (``loot.monster`` ... ``loot.sarcophagus``).
LOOT_NOTHING, LOOT_NORMAL, LOOT_MAGIC, LOOT_TRAP, LOOT_SPAWN_MUMMY, LOOT_SPAWN_SKELETON = range(6)
LOOT_NAMES = ("nothing", "normal", "magic", "trap", "spawn_mummy", "spawn_skeleton")
LOOT_SOURCES = {"monster": C_LOOT_MONSTER, "boss": C_LOOT_BOSS, "barrel": C_LOOT_BARREL, "chest": C_LOOT_CHEST,
                "magic_chest": C_LOOT_MAGIC_CHEST, "sarcophagus": C_LOOT_SARCOPHAGUS}
N_WEAPON, N_ARMOR, N_POTION, N_FOOD = range(4)
NORMAL_NAMES = ("weapon", "armor", "potion", "food")
PO_HEALTH, PO_STAMINA, PO_MYSTERY = range(3)
POTION_NAMES = ("health", "stamina", "mystery")
MG_BERSERK, MG_AMULET, MG_RUNE, MG_HOLY_BOLT, MG_GAMBLER, MG_TELEPORT = range(6)
MAGIC_NAMES = ("berserk", "amulet", "rune", "holy_bolt", "gamblers_die", "teleport")
SH_HEALING, SH_MIGHT, SH_ARMS, SH_FREEDOM, SH_WEAKNESS, SH_DOOM = range(6)
SHRINE_NAMES = ("healing", "might", "arms", "freedom", "weakness", "doom")
#: Spawn chart codes besides a category K_*: nothing, any category (the DM's choice), roll again.
SPAWN_NOTHING, SPAWN_ANY, SPAWN_REROLL = -1, -2, -3

#: The valid range of every number of the ruleset (docs/rules-tactics.md "Valid ranges" is this table).
RANGES: Ranges = {
    "game.turn_cap": (1, 1000),
    "player.hp": (1, 100),
    "player.ap": (1, 50),
    "player.dice": (1, 6),
    "dm.ap": (0, 50),
    "ap.move": (1, 20),
    "ap.move_combat": (1, 20),
    "ap.attack": (1, 20),
    "ap.interact": (1, 20),
    "ap.use": (0, 20),
    "ap.plate_in_water": (1, 50),
    "ap.revive": (1, 50),
    "items.food_heal": (0, 20),
    "items.food_stack": (0, 50),
    "items.potion_stack": (0, 20),
    "items.health_potion": (0, 20),
    "items.stamina_potion": (0, 50),
    "items.gamble_hp": (0, 20),
    "magic.berserk_dice": (1, 6),
    "magic.holy_bolt": (0, 100),
    "magic.teleport_range": (1, 40),
    "magic.rune_small": (0, 40),
    "magic.rune_large": (0, 40),
    "shrines.heal": (0, 20),
    "shrines.might": (0, 10),
    "shrines.weakness_ap": (0, 50),
    "abilities.triple_six_damage": (0, 100),
    "abilities.triple_six_sixes": (1, 6),
    "abilities.chicken_sixes": (1, 6),
    "abilities.storm_drain_ap": (0, 50),
    "abilities.electric_damage": (0, 100),
    "abilities.trap_damage": (0, 100),
    "abilities.resurrect_face": (1, 6),
    "abilities.resurrect_loss": (0, 100),
    "monsters.*.hp": (1, 100),
    "monsters.*.dice": (1, 6),
    "monsters.*.ap_move": (1, 50),
    "monsters.*.ap_attack": (1, 50),
    "monsters.*.range": (0, 40),
    "monsters.*.attack_mod": (-10, 10),
    "weapons.*.bonus": (-10, 10),
    "weapons.*.vs_bonus": (-10, 10),
    "weapons.*.reach": (0, 40),
    "armors.*.ap": (-20, 20),
    "armors.*.defense": (-10, 10),
    "armors.*.move_pct": (50, 400),
    "rulings.overheal_decay": (0, 100),
}


@dataclass
class TacticsRules:
    """A validated Tactics ruleset: the kernel's arrays, their names, the level, and the assumptions."""

    rules: np.ndarray  # int64[N_R]
    monsters: np.ndarray  # int64[n_kinds, M_COLS]
    monster_names: tuple[str, ...]
    kind_index: dict[str, int]
    weapons: np.ndarray  # int64[N_ITEMS, W_COLS], row 0 = bare hands
    weapon_names: tuple[str, ...]  # row order, "bare hands" first
    armors: np.ndarray  # int64[N_ITEMS, A_COLS], row 0 = none
    armor_names: tuple[str, ...]
    charts: np.ndarray  # int64[N_C]
    level: Any  # level.Level, or None when the level module is not available
    lv: np.ndarray  # int64[] (level.pack_level)
    source: str
    rulings: dict[str, Any] = field(default_factory=dict)  # ruling name -> value in use
    overrides: dict[str, str] = field(default_factory=dict)
    assumptions: list[assume.Assumption] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)  # the ruleset as read (after overrides)
    hero_names: tuple[str, ...] = HEROES
    options: dict[str, Any] = field(default_factory=dict)  # the game's own run options (e.g. dm), as given


def _int(rf: RuleFile, key: str, value: Any = ..., where: str | None = None) -> int:
    """The whole number ``key`` within its valid range (``RANGES``); the place of an error (``rf.where``, a scan
    of the file) is looked up only when there is one."""
    v = rf.get(key) if value is ... else value
    if isinstance(v, int) and not isinstance(v, bool):
        lo, hi = range_of(RANGES, key)
        if lo <= v <= hi:
            return v
    return check_int(rf, key, RANGES, v, where)


def _bool(rf: RuleFile, key: str, value: Any = ...) -> int:
    v = rf.get(key) if value is ... else value
    if not isinstance(v, bool):
        raise InputError(f"{key} must be true or false, got {v!r}", rf.where(key))
    return int(v)


def _name(rf: RuleFile, key: str, value: Any, names: tuple[str, ...] | list[str], what: str,
          where_key: str | None = None) -> int:
    """The index of ``value`` in ``names``; else one line at the place of ``where_key`` (default ``key``)."""
    if not isinstance(value, str) or value not in names:
        hint = nearest(str(value), dict.fromkeys(names))
        raise InputError(f"{key}: unknown {what} {value!r}{hint}", rf.where(where_key or key))
    return list(names).index(value)


def _only(rf: RuleFile, key: str, table: Any, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise InputError(f"{key} must be a table ({', '.join(allowed)})", rf.where(key))
    for k in table:
        if k not in allowed:
            raise InputError(f"{key} has unknown key {k!r}{nearest(k, dict.fromkeys(allowed))}",
                             rf.where(f"{key}.{k}"))
    for k in allowed:
        if k not in table:
            raise InputError(f"{key} lacks {k!r} (a monster, weapon or armour names every one of: "
                             f"{', '.join(allowed)})", rf.where(key))
    return table


def _kinds(rf: RuleFile, key: str, most: int, what: str) -> dict[str, Any]:
    """The table ``key`` (monsters, weapons, armours) if it has 1..``most`` kinds; else one line at the table, or at
    the first kind beyond ``most`` (a user's file adds kinds as tables of their own: it never names the table)."""
    table = rf.get(key)
    if isinstance(table, dict) and 1 <= len(table) <= most:
        return table
    if isinstance(table, dict) and len(table) > most:
        extra = list(table)[most]
        raise InputError(f"{key}: a table of 1..{most} {what}, not {len(table)} ({extra!r} is kind {most + 1})",
                         rf.where(f"{key}.{extra}"))
    raise InputError(f"{key}: a table of 1..{most} {what}", rf.where(key))


def _monsters(rf: RuleFile) -> tuple[np.ndarray, tuple[str, ...]]:
    table = _kinds(rf, "monsters", MAX_MONSTERS, "monsters")
    names = tuple(table)
    out = np.zeros((len(names), M_COLS), dtype=np.int64)
    for i, name in enumerate(names):
        key = f"monsters.{name}"
        m = _only(rf, key, table[name], MONSTER_FIELDS)
        row = out[i]
        for col, f in ((M_HP, "hp"), (M_DICE, "dice"), (M_AP_MOVE, "ap_move"), (M_AP_ATTACK, "ap_attack"),
                       (M_RANGE, "range"), (M_ATTACK_MOD, "attack_mod")):
            row[col] = _int(rf, f"{key}.{f}")
        row[M_KIND] = _name(rf, f"{key}.kind", m["kind"], KIND_NAMES, "monster kind")
        row[M_LARGE] = _name(rf, f"{key}.size", m["size"], SIZE_NAMES, "size")
        abilities = m["abilities"]
        if not isinstance(abilities, list):
            raise InputError(f"{key}.abilities must be a list of abilities (known: {', '.join(ABILITIES)})",
                             rf.where(f"{key}.abilities"))
        for a in abilities:
            _name(rf, f"{key}.abilities", a, tuple(ABILITIES), "ability")
            row[ABILITIES[a]] = 1
        spawns = _bool(rf, f"{key}.spawns")
        if spawns and row[M_BOSS]:
            raise InputError(f"{key}: a boss monster never spawns (spawns must be false)",
                             rf.blame(f"{key}.spawns", f"{key}.abilities"))
        row[M_SPAWN_CAT] = row[M_KIND] if spawns else -1
    return out, names


def _items(rf: RuleFile, table_key: str, fields: tuple[str, ...], cols: int) -> tuple[np.ndarray, tuple[str, ...]]:
    table = _kinds(rf, table_key, N_ITEMS - 1, "kinds (the chart is a d6)")
    out = np.zeros((N_ITEMS, cols), dtype=np.int64)
    out[0] = 0
    if table_key == "weapons":
        out[0, W_VS_KIND] = -1
    else:
        out[0, A_MOVE_PCT] = 100
    for i, name in enumerate(table, 1):
        key = f"{table_key}.{name}"
        t = _only(rf, key, table[name], fields)
        if table_key == "weapons":
            out[i, W_BONUS] = _int(rf, f"{key}.bonus")
            vs = t["vs"]
            out[i, W_VS_KIND] = -1 if vs == "" else _name(rf, f"{key}.vs", vs, KIND_NAMES, "monster kind")
            out[i, W_VS_BONUS] = _int(rf, f"{key}.vs_bonus")
            out[i, W_REACH] = _int(rf, f"{key}.reach")
            out[i, W_CHICKEN] = _bool(rf, f"{key}.chicken")
        else:
            out[i, A_AP] = _int(rf, f"{key}.ap")
            out[i, A_DEF] = _int(rf, f"{key}.defense")
            out[i, A_MOVE_PCT] = _int(rf, f"{key}.move_pct")
    first = "bare hands" if table_key == "weapons" else "no armour"
    return out, (first, *table)


def _chart(rf: RuleFile, key: str, names: tuple[str, ...] | list[str], what: str) -> list[int]:
    v = rf.get(key)
    if not isinstance(v, list) or len(v) != 6:
        raise InputError(f"{key} must list 6 entries, one per face of the d6 (known: {', '.join(names)})",
                         rf.where(key))
    return [_name(rf, f"{key}[{i}]", x, names, what, key) for i, x in enumerate(v)]


def _charts(rf: RuleFile, monsters: np.ndarray, names: tuple[str, ...], weapon_names: tuple[str, ...],
            armor_names: tuple[str, ...], spawn6: int) -> np.ndarray:
    c = np.zeros(N_C, dtype=np.int64)
    for source, at in LOOT_SOURCES.items():
        c[at : at + 6] = _chart(rf, f"loot.{source}", LOOT_NAMES, "loot chance")
    c[C_NORMAL : C_NORMAL + 6] = _chart(rf, "loot.normal", NORMAL_NAMES, "normal loot")
    c[C_POTION : C_POTION + 6] = _chart(rf, "loot.potion", POTION_NAMES, "potion")
    c[C_MAGIC : C_MAGIC + 6] = _chart(rf, "loot.magic", MAGIC_NAMES, "magic loot")
    c[C_SHRINE : C_SHRINE + 6] = _chart(rf, "loot.shrine", SHRINE_NAMES, "shrine")
    c[C_WEAPON : C_WEAPON + 6] = [i + 1 for i in _chart(rf, "loot.weapon", weapon_names[1:], "weapon")]
    c[C_ARMOR : C_ARMOR + 6] = [i + 1 for i in _chart(rf, "loot.armor", armor_names[1:], "armour")]
    spawn_words = (*KIND_NAMES, "nothing", "any", "unspecified")
    six = {SPAWN6_NOTHING: SPAWN_NOTHING, SPAWN6_ANY: SPAWN_ANY, SPAWN6_REROLL: SPAWN_REROLL}[spawn6]
    spawnable = {int(k) for k in monsters[:, M_SPAWN_CAT] if k >= 0}
    # a category none can spawn: the chart's face, or what the user changed that left the category empty (a
    # monster's spawns or kind), never the shipped chart's line for the user's change
    causes = [f"monsters.{n}.{f}" for f in ("spawns", "kind") for n in names]
    for i, code in enumerate(_chart(rf, "loot.spawn", spawn_words, "spawn category")):
        word = spawn_words[code]
        if code < len(KIND_NAMES):
            if code not in spawnable:
                raise InputError(f"loot.spawn[{i}] (face {i + 1}): no monster of category {word!r} can spawn "
                                 f"(monsters with kind = {word!r} and spawns = true)",
                                 rf.blame("loot.spawn", *(c for c in causes
                                                          if word in (rf.get(c.rsplit(".", 1)[0] + ".kind"),
                                                                      rf.shipped.get(c.rsplit(".", 1)[0] + ".kind")))))
            c[C_SPAWN + i] = code
        else:
            c[C_SPAWN + i] = {"nothing": SPAWN_NOTHING, "any": SPAWN_ANY, "unspecified": six}[word]
    if (c[C_SPAWN : C_SPAWN + 6] == SPAWN_REROLL).all():
        raise InputError("loot.spawn: every face rolls again (unspecified with rulings.spawn6 = \"reroll\"): at least "
                         "one face must name a category or nothing", rf.blame("loot.spawn", "rulings.spawn6"))
    if SPAWN_ANY in c[C_SPAWN : C_SPAWN + 6] and not spawnable:
        raise InputError("loot.spawn: 'any' needs at least one monster with spawns = true",
                         rf.blame("loot.spawn", *(c for c in causes if c.endswith(".spawns"))))
    for slot, mname in ((C_KIND_MUMMY, MUMMY), (C_KIND_SKELETON, SKELETON), (C_KIND_CHICKEN, CHICKEN)):
        c[slot] = names.index(mname) if mname in names else -1
    needs = ((c[C_KIND_MUMMY], "loot", LOOT_SPAWN_MUMMY, MUMMY), (c[C_KIND_SKELETON], "loot", LOOT_SPAWN_SKELETON,
                                                                   SKELETON))
    for kind, _, code, mname in needs:
        if kind < 0:
            for source, at in LOOT_SOURCES.items():
                if code in c[at : at + 6]:
                    raise InputError(f"loot.{source}: spawn_{mname} needs a monster named {mname!r}",
                                     rf.where(f"loot.{source}"))
    if c[C_KIND_MUMMY] < 0 and SH_DOOM in c[C_SHRINE : C_SHRINE + 6]:
        raise InputError("loot.shrine: the Shrine of Doom needs a monster named 'mummy'", rf.where("loot.shrine"))
    return c


def _rulings(rf: RuleFile, r: np.ndarray) -> dict[str, Any]:
    table = rf.get("rulings")
    if not isinstance(table, dict):
        raise InputError("rulings must be a table", rf.where("rulings"))
    used: dict[str, Any] = {}
    for name, (slot, values) in RULINGS.items():
        key = f"rulings.{name}"
        v = rf.get(key)
        if values is None:
            r[slot] = _bool(rf, key) if isinstance(RULING_DEFAULT_TYPES[name], bool) else _int(rf, key)
        else:
            if not isinstance(v, str) or v not in values:
                raise InputError(f"{key}: unknown value {v!r} (known: {', '.join(values)})", rf.where(key))
            r[slot] = values.index(v)
        used[name] = v
    return used


#: The type of each number/bool ruling (the others are words).
RULING_DEFAULT_TYPES = {"monsters_block": True, "overheal_decay": 0, "revive_lava": False, "spawn_optional": True}


def load_ruleset(rules: str | Path | None = None, sets: list[str] | None = None,
                 level: str | Path | None = None, **options: Any) -> TacticsRules:
    """The shipped rules, a user's file merged over them, ``--set`` overrides, and the level (``--map``: a
    shipped level name or a level file; None = ``DEFAULT_LEVEL``); validated (``InputError`` with
    ``file:line:column``, ``--set KEY`` or ``--map`` if bad). ``options``: the game's own ``run`` options
    (``GameSpec.options``, e.g. ``dm``; the runner passes them here), kept in ``TacticsRules.options`` for the
    engine, which declares and checks them."""
    rf = load_ruleset_file(DEFAULT_RULES, rules, sets, OPEN_TABLES)
    r = np.zeros(N_R, dtype=np.int64)
    for slot, key in ((R_HP, "player.hp"), (R_AP, "player.ap"), (R_PLAYER_DICE, "player.dice"), (R_DM_AP, "dm.ap"),
                      (R_TURN_CAP, "game.turn_cap"), (R_MOVE, "ap.move"), (R_MOVE_COMBAT, "ap.move_combat"),
                      (R_ATTACK, "ap.attack"), (R_INTERACT, "ap.interact"), (R_USE, "ap.use"),
                      (R_PLATE_WATER, "ap.plate_in_water"), (R_REVIVE_AP, "ap.revive"),
                      (R_FOOD_HEAL, "items.food_heal"), (R_FOOD_STACK, "items.food_stack"),
                      (R_POTION_STACK, "items.potion_stack"), (R_HEALTH_POTION, "items.health_potion"),
                      (R_STAMINA_POTION, "items.stamina_potion"), (R_GAMBLE_HP, "items.gamble_hp"),
                      (R_BERSERK_DICE, "magic.berserk_dice"), (R_HOLY_BOLT, "magic.holy_bolt"),
                      (R_TELEPORT_RANGE, "magic.teleport_range"), (R_RUNE_SMALL, "magic.rune_small"),
                      (R_RUNE_LARGE, "magic.rune_large"), (R_SHRINE_HEAL, "shrines.heal"),
                      (R_MIGHT, "shrines.might"), (R_WEAKNESS_AP, "shrines.weakness_ap"),
                      (R_OGRE_BLOW, "abilities.triple_six_damage"), (R_TRIPLE_SIXES, "abilities.triple_six_sixes"),
                      (R_CHICKEN_SIXES, "abilities.chicken_sixes"), (R_STORM_DRAIN, "abilities.storm_drain_ap"),
                      (R_ELECTRIC, "abilities.electric_damage"), (R_TRAP_DAMAGE, "abilities.trap_damage"),
                      (R_RESURRECT_FACE, "abilities.resurrect_face"),
                      (R_RESURRECT_LOSS, "abilities.resurrect_loss")):
        r[slot] = _int(rf, key)
    r[R_WINS_ON_EXIT] = _bool(rf, "game.wins_on_exit")
    used = _rulings(rf, r)
    monsters, names = _monsters(rf)
    weapons, weapon_names = _items(rf, "weapons", WEAPON_FIELDS, W_COLS)
    armors, armor_names = _items(rf, "armors", ARMOR_FIELDS, A_COLS)
    charts = _charts(rf, monsters, names, weapon_names, armor_names, int(r[R_SPAWN6]))
    for slot, key, table, what in ((R_START_WEAPON, "player.weapon", weapon_names, "weapon"),
                                   (R_START_ARMOR, "player.armor", armor_names, "armour")):
        r[slot] = _name(rf, key, rf.get(key), (NO_ITEM, *table[1:]), what)
    if weapons[:, W_CHICKEN].any() and charts[C_KIND_CHICKEN] < 0:
        bad = weapon_names[int(np.flatnonzero(weapons[:, W_CHICKEN])[0])]
        raise InputError(f"weapons.{bad}.chicken needs a monster named 'chicken'", rf.where(f"weapons.{bad}.chicken"))
    kind_index = {n: i for i, n in enumerate(names)}
    lava_ok = {n for n, i in kind_index.items() if monsters[i, M_FLY] or monsters[i, M_LAVA_IMMUNE]}
    lvl, lv = _level(level, kind_index, lava_ok)
    found = assume.check_plausible_within_valid(assume.from_ruleset(rf, rf.shipped, rf.users), RANGES)
    if lvl is not None:
        found += list(getattr(lvl, "assumptions", []) or [])
    return TacticsRules(r, monsters, names, kind_index, weapons, weapon_names, armors, armor_names, charts, lvl, lv,
                        rf.path, used, dict(rf.overridden), found, rf.data, HEROES, dict(options))


def _level(level: str | Path | None, kind_index: dict[str, int], lava_ok: set[str]) -> tuple[Any, np.ndarray]:
    """The level (``--map``) checked against the monster table (its names; a placed monster on lava must fly or
    ignore lava: ``lava_ok``) and packed with the table's rows (``level.py``)."""
    from .level import check_lava, load_level, pack_level

    lvl = load_level(DEFAULT_LEVEL if level is None else level, set(kind_index), where="--map")
    check_lava(lvl, lava_ok)
    return lvl, pack_level(lvl, kind_index)


def heroes(ruleset: TacticsRules) -> list[str]:
    """Tactics has one adventurer."""
    return list(HEROES)
