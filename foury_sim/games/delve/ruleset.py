"""Delve rulesets: read ``data/rules.toml`` (a user's ``--rules`` file merged over it, then ``--set``
overrides: ``rulesfile.load_ruleset_file``), validate, and flatten it into the one int64 array the kernels
read (``R_*`` offsets below). Validation lives here, never in kernels."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ... import assumptions as assume
from ...errors import InputError
from ...rulesfile import Ranges, RuleFile, check_int, check_int_list, load_ruleset_file, nearest
from . import layout as A

DEFAULT_RULES = Path(__file__).with_name("data") / "rules.toml"
#: Tables where a user's ``--rules`` file may add entries (``rulesfile.merge``): heroes, treasure kinds,
#: its own assumptions. Any other key the shipped rules.toml does not have is an error at its line.
OPEN_TABLES = ("heroes", "treasures", "assumptions")

# --- offsets in the rules array --------------------------------------------------------------
R_DELVES = 0
R_LEVELS = 1
R_PARTY_DICE = 2
R_DUNGEON_DICE = 3
R_DRAGON_AT = 4
R_DRAGON_TYPES = 5
R_DRAGON_XP = 6
R_DRAGON_TREASURES = 7
R_EMPTY_POOL_XP = 8
R_EMPTY_POOL_DRAGON = 9
R_RETIRE_XP = 10
R_PORTAL_XP = 11
R_FLEE_KEEPS = 12
R_MASTER_AT = 13
R_MASTER_REFRESH = 14
R_SCALES_PAIR = 15
R_WIN_SCORE = 16
R_N_RANKS = 17
R_RANKS = 18  # 8 thresholds
R_SCROLL_PHASES = 26
R_SPECIALTY_ALL = 27
R_HERO_DRAGON = 28
R_PARTY_SIDES = 29
R_PARTY_FACES = 30  # 12
R_DUNGEON_SIDES = 42
R_DUNGEON_FACES = 43  # 12
R_N_TREASURES = 55
R_TREASURE = 56  # MAX_TREASURES rows of T_COLS
T_COUNT, T_EFFECT, T_FACE, T_POINTS, T_PHASES, T_DICE = range(6)  # T_DICE: an Elixir's dice back (else 0)
T_COLS = 6
R_SWEEP = R_TREASURE + A.MAX_TREASURES * T_COLS  # 5 roles: monster-type mask swept
R_OPENS_ALL = R_SWEEP + 5  # 5 roles
R_HERO = R_OPENS_ALL + 5  # 2 sides x H_COLS (the chosen hero; filled per run)
# Derived from the treasure table (not set by users): the kinds with each effect, ascending.
R_EFFECT_N = R_HERO + 2 * A.H_COLS  # N_EFFECTS counts
R_EFFECT_KINDS = R_EFFECT_N + len(A.TREASURE_EFFECTS)  # N_EFFECTS rows of MAX_TREASURES kinds
R_LEVEL_DICE = R_EFFECT_KINDS + len(A.TREASURE_EFFECTS) * A.MAX_TREASURES  # MAX_LEVELS: dice rolled at level 1..
MAX_LEVELS = 30  #: game.levels at most (one level_dice key per level)
R_SCALES_SET = R_LEVEL_DICE + MAX_LEVELS  # Dragon Scales that make a scoring pair (score.scales_pair_size)
R_EMPTY_MONSTER = R_SCALES_SET + 1  # rulings.empty_monster_phase: a level without monsters has its monster phase
R_SIZE = R_EMPTY_MONSTER + 1
MAX_RANKS = 8
MAX_SIDES = 12

#: The valid range of every number of the ruleset (``rulesfile.Ranges``; docs/rules-delve.md "Valid ranges"
#: is generated from it): wide enough for any variant, small enough that scores stay far from int64 limits
#: (at most 12 kinds x 100 tokens x 100 points) and every loop of the kernels is bounded.
RANGES: Ranges = {
    "game.delves": (1, A.MAX_DELVES),
    "game.levels": (1, MAX_LEVELS),
    "game.party_dice": (1, 12),
    "game.dungeon_dice": (1, 12),
    "level_dice.*": (0, MAX_LEVELS),
    "dragon.threshold": (1, 12),
    "dragon.types_needed": (0, A.N_ROLES),
    "dragon.xp": (0, 100),
    "dragon.treasures": (0, 10),
    "xp.empty_pool": (0, 100),
    "xp.retire_per_level": (0, 100),
    "xp.portal_per_level": (0, 100),
    "xp.master_at": (0, 1000),
    "score.scales_pair": (0, 100),
    "score.scales_pair_size": (1, 100),
    "score.rank_thresholds[]": (0, 1_000_000),
    "treasures.*.count": (0, 100),
    "treasures.*.points": (0, 100),
    "treasures.*.dice": (1, 12),
    "heroes.*.*.specialty[].n": (1, A.N_ROLES),
    "heroes.*.*.ultimate.n": (1, 6),
}
#: The keys each table of an open table (heroes, treasures) may hold; anything else is refused at its place.
TREASURE_FIELDS = ("count", "effect", "face", "points", "phases", "dice")
#: The treasure keys only one effect takes (its number or companion type): ``face`` a companion, ``dice`` an elixir.
EFFECT_FIELDS = {"face": A.TE_COMPANION, "dice": A.TE_ELIXIR}
HERO_FIELDS = ("names", "novice", "master")
SIDE_FIELDS = ("specialty", "ultimate")
SPECIALTY_FIELDS = {
    "act_as": ("face", "as"),
    "form_reroll": (),
    "form_transform": ("face", "to"),
    "extra_defeat": ("face", "n"),
    "dragon_types": ("n",),
    "loot_in_monster_phase": (),
}
ULTIMATE_FIELDS = {
    "none": (),
    "hero_companion": ("faces",),
    "discard": ("what",),
    "defeat": ("n", "monsters"),
    "reroll": (),
    "monsters_to_lair": (),
    "transform": ("n", "monsters", "to"),
    "sacrifice": ("n",),
}

_ULT_PHASES = {  # where each ultimate power may be used (default and allowed)
    "none": 0,
    "hero_companion": A.PH_MONSTER | A.PH_LOOT | A.PH_DRAGON,
    "discard": A.PH_MONSTER | A.PH_DRAGON,
    "defeat": A.PH_MONSTER,
    "reroll": A.PH_MONSTER | A.PH_DRAGON,
    "monsters_to_lair": A.PH_MONSTER,
    "transform": A.PH_MONSTER,
    "sacrifice": A.PH_MONSTER | A.PH_DRAGON,  # the dragon phase: it empties the Lair (chests, potions are gone)
}


@dataclass
class DelveRules:
    """A validated Delve ruleset: the flat rules array (without a hero), hero tables and names."""

    rules: np.ndarray
    heroes: dict[str, np.ndarray]  # hero key -> int64[2, H_COLS]
    hero_names: dict[str, tuple[str, str]]
    ultimate_names: dict[str, tuple[str, str]]
    treasure_names: list[str]
    rank_names: list[str]
    source: str
    overrides: dict[str, str] = field(default_factory=dict)
    assumptions: list[assume.Assumption] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)  # the ruleset as read (after overrides)

    def with_hero(self, hero: str) -> np.ndarray:
        """The rules array with ``hero``'s power table filled in (what kernels receive)."""
        r = self.rules.copy()
        r[R_HERO : R_HERO + 2 * A.H_COLS] = self.heroes[hero].ravel()
        return r


def _int(rf: RuleFile, key: str) -> int:
    """The whole number ``key`` within its valid range (``RANGES``)."""
    return check_int(rf, key, RANGES)


def _layer(rf: RuleFile, dotted: str) -> int:
    """Which layer of the ruleset last gave ``dotted``: 0 the shipped file, 1.. the user's files in order, one more a
    ``--set`` (of the key or of a table holding it)."""
    layers = rf.layers or [rf]
    if any(dotted == k or dotted.startswith(k + ".") for k in rf.overridden):
        return len(layers)
    return max((i for i, f in enumerate(layers) if f.get(dotted) is not None), default=0)


def _only(rf: RuleFile, key: str, table: dict[str, Any], allowed: tuple[str, ...], where: str | None = None) -> None:
    """Refuse a key of ``table`` (the table ``key``) that is not in ``allowed``, at its place."""
    for k in table:
        if k not in allowed:
            hint = nearest(k, dict.fromkeys(allowed)) if allowed else " (this takes no other key)"
            raise InputError(f"{key} has unknown key {k!r}{hint}", where or rf.where(f"{key}.{k}"))


def _bool(rf: RuleFile, key: str) -> int:
    v = rf.get(key)
    if not isinstance(v, bool):
        raise InputError(f"{key} must be true or false, got {v!r}", rf.where(key))
    return int(v)


def _name(rf: RuleFile, key: str, value: Any, names: tuple[str, ...], what: str) -> int:
    if value not in names:
        raise InputError(f"{key}: unknown {what} {value!r} (known: {', '.join(names)})", rf.where(key))
    return names.index(value)


def _list(rf: RuleFile, key: str, value: Any) -> list:
    if not isinstance(value, list):
        raise InputError(f"{key} must be a list, got {value!r}", rf.where(key))
    return value


def _phases(rf: RuleFile, key: str, value: Any, allowed: int) -> int:
    mask = 0
    for p in _list(rf, key, value):
        if not isinstance(p, str) or p not in A.PHASE_BITS:
            raise InputError(f"{key}: unknown phase {p!r} (known: monster, loot, dragon)", rf.where(key))
        if not A.PHASE_BITS[p] & allowed:
            raise InputError(f"{key}: this cannot be used in the {p} phase", rf.where(key))
        mask |= A.PHASE_BITS[p]
    return mask


def _hero_side(rf: RuleFile, key: str, side: Any) -> tuple[np.ndarray, str]:
    row = np.zeros(A.H_COLS, dtype=np.int64)
    for f in range(A.N_FACES):
        row[A.H_ACT + f] = (1 << f) if f < A.N_ROLES else 0
    row[A.H_FORM_FROM] = row[A.H_FORM_TO] = -1
    if not isinstance(side, dict):
        raise InputError(f"{key} must be a table with specialty and ultimate", rf.where(key))
    _only(rf, key, side, SIDE_FIELDS)
    for i, p in enumerate(_list(rf, f"{key}.specialty", side.get("specialty", []))):
        k = f"{key}.specialty[{i}]"
        if not isinstance(p, dict) or "power" not in p:
            raise InputError(f"{k} must be a table with a power", rf.where(key))
        power = p["power"]
        if isinstance(power, str) and power in SPECIALTY_FIELDS:
            _only(rf, k, p, ("power", *SPECIALTY_FIELDS[power]), rf.where(f"{key}.specialty"))
        if power == "act_as":
            f = _name(rf, key, p.get("face"), A.FACE_NAMES, "face")
            for t in _list(rf, key, p.get("as")):
                r = _name(rf, key, t, A.FACE_NAMES[: A.N_ROLES], "companion type")
                row[A.H_ACT + f] |= 1 << r
        elif power == "form_reroll":
            row[A.H_FORM_REROLL] += 1
        elif power == "form_transform":
            row[A.H_FORM_FROM] = _name(rf, key, p.get("face"), A.FACE_NAMES, "face")
            row[A.H_FORM_TO] = _name(rf, key, p.get("to"), A.FACE_NAMES, "face")
        elif power == "extra_defeat":
            r = _name(rf, key, p.get("face"), A.FACE_NAMES[: A.N_ROLES], "companion type")
            row[A.H_EXTRA + r] = check_int(rf, f"{k}.n", RANGES, p.get("n", 1), rf.where(f"{key}.specialty"))
        elif power == "dragon_types":
            row[A.H_DRAGON_TYPES] = check_int(rf, f"{k}.n", RANGES, p.get("n"), rf.where(f"{key}.specialty"))
        elif power == "loot_in_monster_phase":
            row[A.H_LOOT_IN_MONSTER] = 1
        else:
            raise InputError(f"{k}: unknown specialty power {power!r}", rf.where(key))
    u = side.get("ultimate", {"power": "none"})
    if not isinstance(u, dict):
        raise InputError(f"{key}.ultimate must be a table", rf.where(key))
    power = u.get("power", "none")
    code = _name(rf, key, power, A.ULT_POWERS, "ultimate power")
    _only(rf, f"{key}.ultimate", u, ("name", "power", "phases", *ULTIMATE_FIELDS[power]))
    row[A.H_ULT] = code
    row[A.H_ULT_N] = check_int(rf, f"{key}.ultimate.n", RANGES, u.get("n", 1))
    if not isinstance(u.get("name", power), str):
        raise InputError(f"{key}.ultimate.name must be a text", rf.where(f"{key}.ultimate.name"))
    if power == "hero_companion":
        for t in _list(rf, key, u.get("faces")):
            row[A.H_ULT_MASK] |= 1 << _name(rf, key, t, A.FACE_NAMES[: A.N_ROLES], "companion type")
    elif power == "discard":
        for t in _list(rf, key, u.get("what")):
            if not isinstance(t, str) or t not in A.DISCARD_BITS:
                raise InputError(f"{key}.ultimate: unknown discard target {t!r}", rf.where(key))
            row[A.H_ULT_MASK] |= A.DISCARD_BITS[t]
    elif power in ("defeat", "transform"):
        for t in _list(rf, key, u.get("monsters", ["goblin", "skeleton", "ooze"])):
            allowed = A.DUNGEON_NAMES[:3] + (("dragon",) if power == "defeat" else ())
            i = _name(rf, key, t, allowed, "target")
            row[A.H_ULT_MASK] |= 1 << i
        if power == "transform":
            to = u.get("to")
            row[A.H_ULT_TO] = A.TO_POTION if to == "potion" else _name(rf, key, to, A.FACE_NAMES, "face")
    allowed = _ULT_PHASES[power]
    row[A.H_ULT_PHASES] = _phases(rf, key, u["phases"], allowed) if "phases" in u else allowed
    return row, str(u.get("name", power))


def load_ruleset(
    rules_path: str | Path | None = None, overrides: list[str] | None = None, map_path: str | Path | None = None
) -> DelveRules:
    """The shipped rules, a user's file merged over them, ``--set`` overrides; validated (``InputError``
    with ``file:line`` if bad). A partial user file changes only the keys it names."""
    if map_path is not None:
        raise InputError("Delve has no map: --map does not apply", "--map")
    rf = load_ruleset_file(DEFAULT_RULES, rules_path, overrides, OPEN_TABLES)
    r = np.zeros(R_SIZE, dtype=np.int64)
    r[R_DELVES] = _int(rf, "game.delves")
    r[R_LEVELS] = _int(rf, "game.levels")
    r[R_PARTY_DICE] = _int(rf, "game.party_dice")
    r[R_DUNGEON_DICE] = _int(rf, "game.dungeon_dice")
    levels = rf.get("level_dice")
    if not isinstance(levels, dict):
        raise InputError("level_dice must be a table: the dungeon dice rolled at each level (1 = 1, 2 = 2, ...)",
                         rf.where("level_dice"))
    for lv in range(1, MAX_LEVELS + 1):
        r[R_LEVEL_DICE + lv - 1] = _int(rf, f"level_dice.{lv}")
    r[R_DRAGON_AT] = _int(rf, "dragon.threshold")
    r[R_DRAGON_TYPES] = _int(rf, "dragon.types_needed")
    r[R_DRAGON_XP] = _int(rf, "dragon.xp")
    r[R_DRAGON_TREASURES] = _int(rf, "dragon.treasures")
    r[R_HERO_DRAGON] = _bool(rf, "dragon.hero_companion_counts")
    r[R_EMPTY_POOL_XP] = _int(rf, "xp.empty_pool")
    r[R_EMPTY_POOL_DRAGON] = _bool(rf, "xp.empty_pool_dragon")
    r[R_RETIRE_XP] = _int(rf, "xp.retire_per_level")
    r[R_PORTAL_XP] = _int(rf, "xp.portal_per_level")
    r[R_FLEE_KEEPS] = _bool(rf, "xp.flee_keeps_earned")
    r[R_MASTER_AT] = _int(rf, "xp.master_at")
    r[R_MASTER_REFRESH] = _bool(rf, "xp.master_refreshes_ultimate")
    r[R_SCALES_PAIR] = _int(rf, "score.scales_pair")
    r[R_SCALES_SET] = _int(rf, "score.scales_pair_size")
    r[R_SCROLL_PHASES] = _phases(
        rf, "rulings.scroll_phases", rf.get("rulings.scroll_phases"), A.PH_MONSTER | A.PH_DRAGON
    )
    r[R_SPECIALTY_ALL] = _bool(rf, "rulings.specialty_applies_to_all")
    r[R_EMPTY_MONSTER] = _bool(rf, "rulings.empty_monster_phase")

    ranks = _list(rf, "score.ranks", rf.get("score.ranks"))
    thresholds = _list(rf, "score.rank_thresholds", rf.get("score.rank_thresholds"))
    if not 1 <= len(ranks) <= MAX_RANKS or len(thresholds) != len(ranks):
        raise InputError(
            f"score.ranks and score.rank_thresholds need the same length (1..{MAX_RANKS})",
            rf.blame("score.rank_thresholds", "score.ranks"),
        )
    thresholds = check_int_list(rf, "score.rank_thresholds", RANGES, 1, MAX_RANKS)
    if sorted(thresholds) != thresholds:
        raise InputError("score.rank_thresholds must be increasing integers", rf.where("score.rank_thresholds"))
    if any(not isinstance(n, str) or not n for n in ranks) or len(set(ranks)) != len(ranks):
        raise InputError("score.ranks must be different texts", rf.where("score.ranks"))
    r[R_N_RANKS] = len(ranks)
    r[R_RANKS : R_RANKS + len(ranks)] = thresholds
    win = rf.get("score.win_rank")
    if win not in ranks:
        raise InputError(f"score.win_rank: unknown rank {win!r} (known: {', '.join(map(str, ranks))})",
                         rf.blame("score.win_rank", "score.ranks"))
    r[R_WIN_SCORE] = thresholds[ranks.index(win)]

    for key, names, base, sides in (
        ("dice.party", A.FACE_NAMES, R_PARTY_FACES, R_PARTY_SIDES),
        ("dice.dungeon", A.DUNGEON_NAMES, R_DUNGEON_FACES, R_DUNGEON_SIDES),
    ):
        faces = _list(rf, key, rf.get(key))
        if not 2 <= len(faces) <= MAX_SIDES:
            raise InputError(f"{key} must list 2..{MAX_SIDES} faces", rf.where(key))
        r[sides] = len(faces)
        for i, f in enumerate(faces):
            r[base + i] = _name(rf, key, f, names, "face")

    for ri, role in enumerate(A.FACE_NAMES[: A.N_ROLES]):
        key = f"companions.{role}"
        for m in _list(rf, f"{key}.sweeps", rf.get(f"{key}.sweeps", [])):
            r[R_SWEEP + ri] |= 1 << _name(rf, f"{key}.sweeps", m, A.DUNGEON_NAMES[:3], "monster")
        opens = rf.get(f"{key}.opens")
        if opens not in ("one", "all"):
            raise InputError(f'{key}.opens must be "one" or "all"', rf.where(f"{key}.opens"))
        r[R_OPENS_ALL + ri] = int(opens == "all")

    tre = rf.get("treasures")
    if not isinstance(tre, dict) or not 1 <= len(tre) <= A.MAX_TREASURES:
        raise InputError(f"treasures: 1..{A.MAX_TREASURES} kinds", rf.where("treasures"))
    r[R_N_TREASURES] = len(tre)
    for k, (name, t) in enumerate(tre.items()):
        key = f"treasures.{name}"
        if not isinstance(t, dict):
            raise InputError(f"{key} must be a table (count, effect, points, phases)", rf.where(key))
        base = R_TREASURE + k * T_COLS
        effect = t.get("effect")
        e = _name(rf, f"{key}.effect", effect, A.TREASURE_EFFECTS, "effect")
        # a field of another effect given before the effect was (a designer's `--set treasures.elixir.effect=plain`
        # leaves the shipped elixir's `dice`, or their copy's): ignored; one given with or after it: refused
        older = tuple(f for f in EFFECT_FIELDS if f in t and EFFECT_FIELDS[f] != e
                      and _layer(rf, f"{key}.{f}") < _layer(rf, f"{key}.effect"))
        _only(rf, key, t, tuple(f for f in TREASURE_FIELDS
                                if f not in EFFECT_FIELDS or EFFECT_FIELDS[f] == e or f in older))
        r[base + T_COUNT] = _int(rf, f"{key}.count")
        r[base + T_EFFECT] = e
        r[base + T_FACE] = -1
        if e == A.TE_COMPANION:
            r[base + T_FACE] = _name(rf, f"{key}.face", t.get("face"), A.FACE_NAMES[: A.N_ROLES], "companion type")
        r[base + T_POINTS] = _int(rf, f"{key}.points")
        if e == A.TE_ELIXIR:  # (no `dice`: the printed "1 die", as a treasure made an elixir by `--set` has it)
            r[base + T_DICE] = _int(rf, f"{key}.dice") if "dice" in t else 1
        r[base + T_PHASES] = _phases(rf, f"{key}.phases", t.get("phases", []), A.TREASURE_PHASES[e])
        r[R_EFFECT_KINDS + e * A.MAX_TREASURES + r[R_EFFECT_N + e]] = k
        r[R_EFFECT_N + e] += 1

    heroes: dict[str, np.ndarray] = {}
    hero_names: dict[str, tuple[str, str]] = {}
    ult_names: dict[str, tuple[str, str]] = {}
    hs = rf.get("heroes")
    if not isinstance(hs, dict) or "none" not in hs:
        raise InputError("heroes: a table with at least heroes.none", rf.where("heroes"))
    for name, h in hs.items():
        key = f"heroes.{name}"
        if not isinstance(h, dict):
            raise InputError(f"{key} must be a table (names, novice, master)", rf.where(key))
        _only(rf, key, h, HERO_FIELDS)
        names = h.get("names", [name, name])
        if not isinstance(names, list) or len(names) != 2 or not all(isinstance(x, str) for x in names):
            raise InputError(f"{key}.names must be [novice, master]", rf.where(key))
        rows = []
        ults = []
        for _s, side in enumerate(("novice", "master")):
            row, ult = _hero_side(rf, f"{key}.{side}", h.get(side))
            rows.append(row)
            ults.append(ult)
        heroes[name] = np.stack(rows)
        hero_names[name] = (str(names[0]), str(names[1]))
        ult_names[name] = (ults[0], ults[1])
    found = assume.check_plausible_within_valid(assume.from_ruleset(rf, rf.shipped, rf.users), RANGES)
    return DelveRules(r, heroes, hero_names, ult_names, list(tre), list(ranks), rf.path, dict(rf.overridden), found,
                      rf.data)


def heroes(ruleset: DelveRules) -> list[str]:
    """Hero keys of a ruleset ("none" = the plain game)."""
    return list(ruleset.heroes)
