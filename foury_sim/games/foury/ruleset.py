"""Dungeon Foury rulesets: read the TOML, validate it at the boundary, build the kernel's arrays."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ... import assumptions as assume
from ... import rulesfile
from ...errors import InputError
from . import icons as I
from .layout import (
    COLLAPSED,
    DIE_WORDS,
    EVENT_WORDS,
    FLOODED,
    FOE_TRAIT_WORDS,
    FT_RETURNS,
    FT_TEMPLE_GOAL,
    FT_TRAP,
    HERO_KEYS,
    N_TRACKS,
    N_TRAITS,
    P2F_CAP_TREASURES,
    P2F_DUELS,
    P2F_FINISH_ROUND,
    P2F_SWAP,
    R_BANDIT_PRIZE,
    R_CLOVER_ANY,
    R_CLOVER_ON_TIE,
    R_COIN_NEW_GAME,
    R_COINS,
    R_COLS,
    R_CROSSING_IN_TURN,
    R_D_NEW_CORNU,
    R_DIE_OPTIONAL,
    R_EXCHANGE,
    R_EXIT_ROLL_ALWAYS,
    R_FLEE_BACK,
    R_FREE_MOVE_TURNS,
    R_FURY_BOXES,
    R_HERO,
    R_HERO_CAPS_SCALE,
    R_IMP_ONE,
    R_ITEM_CHEST,
    R_ITEM_CLOVER,
    R_ITEM_CORNU,
    R_ITEM_SHIELD,
    R_ITEM_SHOVEL,
    R_ITEM_WEAPON,
    R_KAEL_FOE_ICON,
    R_KAEL_MONSTERS_ONLY,
    R_KEEP_HEARTS,
    R_KR_FLOOD_EVERY,
    R_KR_FOE,
    R_KR_HOURGLASS,
    R_KR_MARKET,
    R_KR_ON,
    R_KR_OPPOSITE,
    R_KR_SWIM_MAX,
    R_KR_WALK_MAX,
    R_MARKET_EVERY_TURN,
    R_MAX_MARKET_OPS,
    R_MAX_TURNS,
    R_MIN_HEARTS,
    R_N_ARROWS,
    R_N_FOES,
    R_NEED_A,
    R_ORACLE_BLOCKED,
    R_ORACLE_CHESTS,
    R_ORACLE_IMMUNE,
    R_ORACLE_TABLE_DEST,
    R_P2_CAP,
    R_P2_FIRST,
    R_P2_FLAGS,
    R_P2_HERO,
    R_P2_LOOT,
    R_P2_PLAYERS,
    R_P2_START,
    R_P2_TREASURES,
    R_POTION,
    R_POTION_PURPLE,
    R_POTION_STEP,
    R_POTION_YELLOW,
    R_PRIZE,
    R_PRIZE_EVERY,
    R_REDEEM,
    R_REQ_ANYWHERE,
    R_RESERVE_ENTRIES,
    R_RESERVE_ROUNDS,
    R_ROLL_AFTER_JUMP,
    R_ROLL_AFTER_SWIM,
    R_ROUNDS,
    R_ROWS,
    R_SANTA,
    R_SANTA_DIE_STAR,
    R_SANTA_FLAGS,
    R_SANTA_FULL,
    R_SANTA_GOAL,
    R_SANTA_GRINCH,
    R_SANTA_HOURGLASS,
    R_SANTA_LOSS,
    R_SANTA_SAFE,
    R_SANTA_STAR_STEPS,
    R_SANTA_WRATH_GOAL,
    R_SANTA_WRATH_STR,
    R_SANTA_WRATH_TURNS,
    R_SANTA_YETI,
    R_SHIELD_ONE,
    R_SIZE,
    R_SL_CAN_SPAWN,
    R_SL_FIND,
    R_SL_FURY_COUNTS,
    R_SL_MAX_ENEMIES,
    R_SL_ON,
    R_SL_START,
    R_STEAL_RANDOM,
    R_SWIM_ALL,
    R_THAL_BANDIT,
    R_THEFT,
    R_TRAIT_MARKS,
    R_TROLL_RETURNS,
    R_TURN_MARKET_SWAPS,
    R_UPPER_PLACES,
    R_WEAPON_WEAR,
    R_WEAR_PER_ROLLOFF,
    RB_DIRTY,
    RB_ICONS,
    RM_BITS,
    RM_COLS,
    RM_FOES,
    RM_ICON,
    RM_ITEMS,
    RM_KINDS,
    RM_RETURNER,
    RM_RETURNS,
    RM_STATE,
    RM_WALL,
    SANTA_KIND_KEYS,
    SF_IMP_ALL,
    SF_STUCK_HOURGLASS,
    SIDE_WORDS,
    T_BONUS,
    T_CAP,
    T_CHESTV,
    T_CIRCLES,
    T_COLS,
    T_DIE,
    T_EN_BASE,
    T_EN_MULT,
    T_EN_STR,
    T_EN_TRAITS,
    T_EVENTS,
    T_LEVERS,
    T_ROWS,
    T_SCORE,
    T_SPAWN,
    T_STAIRS,
    T_START,
    T_UP_DIST,
    T_UP_PLACES,
    TRACK_NAMES,
    W_COLLAPSED,
    W_OPEN,
)
from .maps import MapData, MapNeeds, builtin_maps, check_map, resolve_map, upper_distances

DEFAULT_RULES = Path(str(resources.files("foury_sim.games.foury") / "data" / "rules.toml"))
#: Tables where a user's ``--rules`` file may add entries (``rulesfile.merge``).
OPEN_TABLES = ("heroes", "assumptions", "enemies")

# ruling name -> (allowed values, R index, value that sets the flag to 1); for a ruling with more than two
# values: (allowed values, tuple of R indices, {value: the flags of those indices})
RULINGS: dict[str, tuple[tuple[Any, ...], Any, Any]] = {
    "weapon_wear": (("per_combat", "per_rolloff"), R_WEAR_PER_ROLLOFF, "per_rolloff"),
    "clover_on": (("loss", "loss_or_tie"), R_CLOVER_ON_TIE, "loss_or_tie"),
    "clover_dice": (("any", "combat"), R_CLOVER_ANY, "any"),
    "shield_blocks": (("hit", "one_heart"), R_SHIELD_ONE, "one_heart"),
    "bandit_steals": (("choice", "random"), R_STEAL_RANDOM, "random"),
    "imp_destroys": (("one", "all"), R_IMP_ONE, "one"),
    "oracle_before_awake": (("pass", "blocked"), R_ORACLE_BLOCKED, "blocked"),
    "oracle_leave_table": (("destination", "none"), R_ORACLE_TABLE_DEST, "destination"),
    "free_move_costs_turn": ((True, False), R_FREE_MOVE_TURNS, True),
    "crossing_in_turn": ((True, False), R_CROSSING_IN_TURN, True),
    "swim_rounds": (("D", "all"), R_SWIM_ALL, "all"),
    "exit_roll": (("always", "new_only"), R_EXIT_ROLL_ALWAYS, "always"),
    "upper_level": (("places", "network"), R_UPPER_PLACES, "places"),
    "requirements_anywhere": ((True, False), R_REQ_ANYWHERE, True),
    "d_new_cornucopia": ((True, False), R_D_NEW_CORNU, True),
    "reserve_entries": (("rounds", "sector_only", "none"), (R_RESERVE_ROUNDS, R_RESERVE_ENTRIES),
                        {"rounds": (1, 0), "sector_only": (0, 1), "none": (0, 0)}),
    "insert_coin": (("restart_round", "new_game"), R_COIN_NEW_GAME, "new_game"),
    "kael_skips_roll": (("foe_icon", "monster_only", "off"), (R_KAEL_FOE_ICON, R_KAEL_MONSTERS_ONLY),
                        {"foe_icon": (1, 0), "monster_only": (1, 1), "off": (0, 0)}),
    "thalindra_bandit": ((True, False), R_THAL_BANDIT, True),
    "die_icon": (("optional", "always"), R_DIE_OPTIONAL, "optional"),
    "roll_after_jump": ((True, False), R_ROLL_AFTER_JUMP, True),
    "roll_after_swim": ((True, False), R_ROLL_AFTER_SWIM, True),
    "oracle_immune": ((True, False), R_ORACLE_IMMUNE, True),
    "flee_to": (("stay", "back"), R_FLEE_BACK, "back"),
    "hero_caps": (("sheet", "scale"), R_HERO_CAPS_SCALE, "scale"),
    "market_every_turn": (("off", "purchases", "all"), (R_MARKET_EVERY_TURN, R_TURN_MARKET_SWAPS),
                          {"off": (0, 0), "purchases": (1, 0), "all": (1, 1)}),
}
ENEMY_FIELDS = {"char", "base", "mult", "traits", "name", "strength"}
#: Keys of an enemy's ``strength`` table (docs/rules.md, "Monster strength by round"): a sector letter names the
#: round played in that sector (A Temple, B Palace, C Castle Cliff, D Waterways), whatever its place in the play
#: order; a digit names the k-th round played, whatever its sector. One table uses one kind of key.
SECTOR_KEYS = ("A", "B", "C", "D")
ORDER_KEYS = ("1", "2", "3", "4")
SECTOR_NAMES = ("the Temple", "the Palace Rooms", "the Castle Cliff", "the Waterways")
_STRENGTH_SET = re.compile(r"^enemies\.([^.]+)\.strength(?:\.([^.]+))?$")
HERO_FIELDS = {"name", "label", "start", "cap"}  #: the free character takes only name and label
#: The ``[items]`` table: what one item icon gives, by key, and the kernel's rule slot of each
ITEM_KEYS = ("chest", "shovel", "weapon", "shield", "clover", "cornucopia")
ITEM_SLOTS = (R_ITEM_CHEST, R_ITEM_SHOVEL, R_ITEM_WEAPON, R_ITEM_SHIELD, R_ITEM_CLOVER, R_ITEM_CORNU)

#: The valid range of every number of the ruleset (``rulesfile.Ranges``; docs/rules.md "Valid ranges" is
#: generated from it). Wide enough for any variant a designer may try, small enough that no legal value can
#: overflow the kernel's arithmetic or make a game endless: tracks (caps, sheets) hold at most 99 (two
#: digits, far above any printed sheet's boxes), a chest is worth at most 20 (more fills any track anyway),
#: enemy strength stays within -66 .. 220 (base + mult x monster bonus, or a strength cell), every score weight
#: within +-100.
RANGES: rulesfile.Ranges = {
    "game.rounds": (1, 4),
    "game.insert_coins": (0, 10),
    "game.max_turns": (1, 100_000),
    "round.monster_bonus[]": (-6, 20),
    "round.chest_value[]": (0, 20),
    "requirements.*": (0, 50),
    "character.trait_marks": (1, 200),
    "character.cap.*": (0, 99),
    "character.min_hearts": (1, 99),
    "potions.red": (0, 20),
    "potions.yellow": (0, 20),
    "potions.purple": (0, 20),
    "items.*": (0, 20),
    "combat.wear": (0, 20),
    "combat.theft": (0, 20),
    "oracle.chests": (0, 20),

    "enemies.*.base": (-6, 20),
    "enemies.*.mult": (0, 10),
    "enemies.*.strength.*": (-66, 220),
    "enemies.*.strength[]": (-66, 220),
    "kills.prize_every": (0, 100),
    "kills.prize_cornucopias": (0, 10),
    "kills.bandit_cornucopias": (0, 10),
    "kills.troll_returns": (0, 100),
    "market.exchange_rate": (1, 10),
    "market.max_operations": (0, 1000),
    "market.keep_hearts": (1, 99),
    "market.redeem": (0, 20),
    "score.*": (-100, 100),
    "heroes.*.start.*": (0, 99),
    "heroes.*.cap.*": (0, 99),
    "santa.hourglass": (1, 1000),
    "santa.star_steps": (0, 20),
    "santa.packages_per_hit": (0, 16),
    "santa.die_star": (0, 6),
    "santa.wrath_turns": (0, 100),
    "santa.wrath_strength": (-6, 20),
    "santa.goal.*": (0, 200),
    "santa.full.*": (0, 200),
    "two_player.players": (1, 2),
    "two_player.treasures": (0, 99),
    "two_player.duel_loot": (0, 99),
    "slaughter.fury_boxes": (0, 99),
    "slaughter.max_enemies": (0, 4096),
    "kraken.flood_every": (1, 1000),
    "kraken.hourglass": (1, 100_000),
    "kraken.walk_max": (0, 1000),
    "kraken.swim_max": (0, 1000),
}
#: The on/off and two-valued rulings of ``[two_player]``: key -> (allowed values, the flag bit, the value that sets it).
TWO_PLAYER_FLAGS: dict[str, tuple[tuple[Any, ...], int, Any]] = {
    "finish_round": ((True, False), P2F_FINISH_ROUND, True),
    "cap_tiebreak": (("draw", "treasures"), P2F_CAP_TREASURES, "treasures"),
    "swap_seats": ((True, False), P2F_SWAP, True),
    "duels": ((True, False), P2F_DUELS, True),
}


@dataclass(frozen=True)
class Foe:
    """One kind of enemy of the ruleset's ``[enemies]`` table, in its icon slot."""

    key: str
    icon: int
    char: str
    name: str
    base: int
    mult: int
    traits: int  #: FT_* bits
    #: the ``strength`` cells the ruleset sets: ``("sector", {"C": 1})``, ``("order", {"3": 2})``; None: none
    strength: tuple[str, dict[str, int]] | None = None

    def has(self, trait: str) -> bool:
        return bool(self.traits & FOE_TRAIT_WORDS[trait])


@dataclass
class FouryRules:
    """A validated Dungeon Foury ruleset with its map, as kernel arrays."""

    data: dict[str, Any]
    map: MapData
    R: np.ndarray
    T: np.ndarray
    geo: np.ndarray
    arrows: np.ndarray
    rm0: np.ndarray
    sources: list[str] = field(default_factory=list)
    heroes: dict[str, dict[str, Any]] = field(default_factory=dict)
    assumptions: list[assume.Assumption] = field(default_factory=list)
    foes: list[Foe] = field(default_factory=list)  #: the [enemies] table in slot order
    icons: I.IconTable = I.SHIPPED  #: map characters and names of every icon, foes from this ruleset
    campaign: str = ""  #: the campaign played (``--campaign``: a shipped name or a file), "" for the base game
    campaign_title: str = ""  #: its title (``[campaign] title``)

    def for_hero(self, hero: str) -> tuple[np.ndarray, np.ndarray]:
        """R and T with the hero's id, sheet and caps filled in."""
        R = self.R.copy()
        T = self.T.copy()
        R[R_HERO] = HERO_KEYS.index(hero)
        h = self.heroes[hero]
        if "cap" in h and R[R_HERO_CAPS_SCALE] == 0:  # "scale": the caps stay character.cap (no extra slots)
            for t in range(N_TRAITS):
                T[T_CAP, t] = h["cap"][TRACK_NAMES[t]]
        if "start" in h:
            for t in range(N_TRAITS):
                T[T_START, t] = h["start"][TRACK_NAMES[t]]
        if R[R_P2_PLAYERS] == 2:  # the second player's sheet (the kernel builds their tables from these slots)
            other = self.opponent(hero)
            o = self.heroes[other]
            R[R_P2_HERO] = HERO_KEYS.index(other)
            for t in range(N_TRAITS):
                R[R_P2_CAP + t] = o["cap"][TRACK_NAMES[t]] if "cap" in o else self.T[T_CAP, t]
                R[R_P2_START + t] = o["start"][TRACK_NAMES[t]] if "start" in o else 0
        return R, T

    @property
    def santa(self) -> bool:
        """Santa Crash'n Foury is played (``santa.on``)."""
        return bool(self.R[R_SANTA])

    @property
    def players(self) -> int:
        """1 (the solo game) or 2 (``two_player.players = 2``)."""
        return int(self.R[R_P2_PLAYERS])

    def opponent(self, hero: str) -> str:
        """The second player's hero against ``hero`` (``two_player.opponent``; "same" = ``hero``)."""
        other = str((self.data.get("two_player") or {}).get("opponent", "same"))
        return hero if other == "same" else other


def _int(rf: rulesfile.RuleFile, key: str) -> int:
    """The whole number ``key`` within its valid range (``RANGES``)."""
    return rulesfile.check_int(rf, key, RANGES)


def parse_event(text: str, where: str) -> int:
    """``"collapse_behind+monster"`` -> event bits."""
    bits = 0
    for part in str(text).split("+"):
        part = part.strip()
        if part in EVENT_WORDS:
            bits |= EVENT_WORDS[part]
        elif part.startswith("collapse_"):
            sides = part[len("collapse_"):].split("_")
            for s in sides:
                if s not in SIDE_WORDS:
                    raise InputError(f"unknown wall side {s!r} in event {text!r} (left, right, front, behind)", where)
                bits |= SIDE_WORDS[s]
        else:
            words = ", ".join([*EVENT_WORDS, "collapse_<sides>"])
            raise InputError(f"unknown event effect {part!r} in {text!r} (known: {words})", where)
    return bits


def _tracks(rf: rulesfile.RuleFile, key: str, names: tuple[str, ...]) -> dict[str, int]:
    v = rf.get(key)
    if not isinstance(v, dict):
        raise InputError(f"{key} must be a table of {', '.join(names)}", rf.where(key))
    extra = [k for k in v if k not in names]
    if extra:
        raise InputError(f"{key} has unknown track {extra[0]!r}{rulesfile.nearest(extra[0], dict.fromkeys(names))}",
                         rf.where(f"{key}.{extra[0]}"))
    return {n: _int(rf, f"{key}.{n}") for n in names}


def load_ruleset(rules_path: str | Path | None = None, overrides: list[str] | dict | None = None,
                 map_path: str | None = None, campaign: str | None = None) -> FouryRules:
    """Read the default ruleset, merge a campaign's overlay (``--campaign``), a user's file and ``--set``
    overrides, validate, build arrays."""
    overrides, strength_sets = split_strength_sets(overrides)
    meta: dict[str, Any] = {}
    if campaign == BASE_CAMPAIGN:
        campaign = None
    if campaign:
        camp_path = campaign_file(campaign)
        rf, camp = load_campaign_file(camp_path, rules_path, overrides)
        meta = camp.data["campaign"]
    else:
        rf = rulesfile.load_ruleset_file(DEFAULT_RULES, rules_path, overrides, OPEN_TABLES)
    rf = apply_strength_sets(rf, strength_sets)
    sources = ([str(DEFAULT_RULES)] + ([str(camp_path)] if campaign else [])
               + ([str(rules_path)] if rules_path is not None else []))
    try:
        rules = build(rf, map_path, sources)
    except InputError as e:  # a shipped campaign's map played without its campaign: the fault is --map's
        if not (isinstance(map_path, str) and map_path != campaign and map_path in builtin_campaigns()
                and map_path in builtin_maps() and str(e.where).startswith(str(builtin_maps()[map_path]))):
            raise
        raise InputError(f"{map_path!r} is the map of the campaign {map_path!r}: play it with --campaign {map_path} "
                         f"(this game refuses it: {e.where}: {e.message})", "--map") from None
    if campaign:
        check_campaign_map(camp, rules)
        rules.campaign = campaign
        rules.campaign_title = meta["title"]
    found = assume.check_plausible_within_valid(assume.from_ruleset(rf, rf.shipped, rf.users), RANGES)
    rules.assumptions = found + rules.assumptions  # + the map's (``maps.check_map``)
    return rules


# ------------------------------------------------------------------------------ campaigns --
#: ``--campaign base``: the base game (The Ancient Story), the option's default
BASE_CAMPAIGN = "base"
CAMPAIGNS_DIR = Path(str(resources.files("foury_sim.games.foury") / "data" / "campaigns"))
#: keys of a campaign file's ``[campaign]`` table (the rest of the file is a ruleset overlay)
CAMPAIGN_FIELDS = {"title", "source", "map"}
CAMPAIGN_MAP_FIELDS = {"at_least", "at_most"}
#: valid ranges of a campaign file's own numbers (the rest of the file is checked with ``RANGES``)
CAMPAIGN_RANGES: rulesfile.Ranges = {"campaign.map.at_least.*": (0, 4096), "campaign.map.at_most.*": (0, 4096)}


def builtin_campaigns() -> dict[str, Path]:
    """The campaigns shipped in ``data/campaigns``: name (file stem) -> path."""
    return {p.stem: p for p in sorted(CAMPAIGNS_DIR.glob("*.toml"))}


def campaign_file(name: str) -> Path:
    """A shipped campaign's file by name, or a campaign file (``.toml``) a designer wrote."""
    shipped = builtin_campaigns()
    if name in shipped:
        return shipped[name]
    p = Path(name)
    if p.suffix == ".toml" and p.is_file():
        return p
    hint = " (a campaign file must end in .toml)" if p.is_file() else ""
    raise InputError(f"unknown campaign {name!r}: shipped campaigns are {', '.join(shipped)} ({BASE_CAMPAIGN!r}: the "
                     f"base game); or give a campaign file NAME.toml{hint}", "--campaign")


def load_campaign_file(path: Path, rules_path: str | Path | None,
                       overrides: list[str] | dict | None) -> tuple[rulesfile.RuleFile, rulesfile.RuleFile]:
    """The ruleset a campaign plays: the shipped defaults, the campaign file's overlay (every table but
    ``[campaign]``), a user's ``--rules`` file, then ``--set`` (``rulesfile.load_ruleset_file`` with one more
    layer). Returns (ruleset, the campaign file). A campaign file's ``game.map`` that is not a shipped map is a
    path relative to the campaign file."""
    shipped = rulesfile.load(DEFAULT_RULES)
    camp = rulesfile.load(path)
    meta = camp.data.get("campaign")
    if not isinstance(meta, dict) or not isinstance(meta.get("title"), str) or not meta["title"].strip():
        raise InputError("a campaign file needs a [campaign] table with a title = \"...\"", camp.where("campaign"))
    extra = [k for k in meta if k not in CAMPAIGN_FIELDS]
    if extra:
        raise InputError(f"campaign has unknown key {extra[0]!r} (known: {', '.join(sorted(CAMPAIGN_FIELDS))})",
                         camp.where(f"campaign.{extra[0]}"))
    need = meta.get("map", {})
    if not isinstance(need, dict) or any(k not in CAMPAIGN_MAP_FIELDS or not isinstance(v, dict)
                                         for k, v in need.items()):
        raise InputError("campaign.map must be a table of at_least = { ICON = N } and at_most = { ICON = N }",
                         camp.where("campaign.map"))
    overlay = {k: v for k, v in camp.data.items() if k != "campaign"}
    game = overlay.get("game")
    if isinstance(game, dict) and isinstance(game.get("map"), str) and game["map"] not in builtin_maps():
        beside = path.parent / game["map"]
        if beside.is_file():
            overlay = {**overlay, "game": {**game, "map": str(beside)}}
    data = copy.deepcopy(shipped.data)
    rulesfile.merge(data, overlay, camp, OPEN_TABLES)
    layers = [shipped, camp]
    if rules_path is not None:
        user = rulesfile.load(rules_path)
        rulesfile.merge(data, user.data, user, OPEN_TABLES)
        layers.append(user)
    rf = rulesfile.RuleFile(data, layers[-1].text, layers[-1].path, layers)
    return rulesfile.apply_overrides(rf, overrides), camp


def check_campaign_map(camp: rulesfile.RuleFile, rules: FouryRules) -> None:
    """The campaign's own demands on its map (``[campaign.map]``: at least / at most so many of an icon, by
    the icon's ruleset key: ``potion``, ``yellow_potion``, ``orc``...), refused at the map's grid line."""
    m = rules.map
    total = m.icons.sum(axis=0)
    keys = {k: i for i, k in enumerate(rules.icons.keys) if k}
    where = f"{m.path}:{m.grid_line}:1"
    for bound in ("at_least", "at_most"):
        for key, _ in (camp.get(f"campaign.map.{bound}") or {}).items():
            at = f"campaign.map.{bound}.{key}"
            if key not in keys:
                raise InputError(f"{at}: unknown icon {key!r}{rulesfile.nearest(key, dict.fromkeys(keys))}",
                                 camp.where(at))
            n = rulesfile.check_int(camp, at, CAMPAIGN_RANGES)
            have = int(total[keys[key]])
            if (have < n) if bound == "at_least" else (have > n):
                word = "at least" if bound == "at_least" else "at most"
                raise InputError(f"the campaign {camp.get('campaign.title')!r} wants {word} {n} "
                                 f"{rules.icons.names[keys[key]]} on its map ({at} in {camp.path}), the map has "
                                 f"{have}", where)


def build(rf: rulesfile.RuleFile, map_path: str | None, sources: list[str]) -> FouryRules:
    R = np.zeros(R_SIZE, np.int64)
    T = np.zeros((T_ROWS, T_COLS), np.int64)
    rounds = _int(rf, "game.rounds")
    R[R_ROUNDS] = rounds
    R[R_COINS] = _int(rf, "game.insert_coins")
    R[R_MAX_TURNS] = _int(rf, "game.max_turns")
    T[T_BONUS, :rounds] = rulesfile.check_int_list(rf, "round.monster_bonus", RANGES, rounds, 4)[:rounds]
    T[T_CHESTV, :rounds] = rulesfile.check_int_list(rf, "round.chest_value", RANGES, rounds, 4)[:rounds]
    for s, key in enumerate(("statues", "kills", "levers", "cornucopias")):
        R[R_NEED_A + s] = _int(rf, f"requirements.{key}")
    marks = _int(rf, "character.trait_marks")
    R[R_TRAIT_MARKS] = marks
    caps = _tracks(rf, "character.cap", TRACK_NAMES)
    for t in range(N_TRACKS):
        T[T_CAP, t] = caps[TRACK_NAMES[t]]
    if caps["hearts"] < 1:
        raise InputError("character.cap.hearts must be at least 1", rf.where("character.cap.hearts"))
    R[R_MIN_HEARTS] = _int(rf, "character.min_hearts")
    if R[R_MIN_HEARTS] > caps["hearts"]:
        raise InputError(f"character.min_hearts = {R[R_MIN_HEARTS]} is above character.cap.hearts = "
                         f"{caps['hearts']}", rf.blame("character.min_hearts", "character.cap.hearts"))
    if marks > sum(caps[TRACK_NAMES[t]] for t in range(N_TRAITS)):
        raise InputError(f"character.trait_marks = {marks} do not fit under the caps",
                         rf.blame("character.trait_marks", "character.cap"))
    R[R_POTION] = _int(rf, "potions.red")
    R[R_POTION_YELLOW] = _int(rf, "potions.yellow")
    R[R_POTION_PURPLE] = _int(rf, "potions.purple")
    step = rf.get("potions.coloured_step")
    if not isinstance(step, bool):
        raise InputError(f"potions.coloured_step = {step!r} is not one of true, false",
                         rf.where("potions.coloured_step"))
    R[R_POTION_STEP] = 1 if step else 0
    items = _tracks(rf, "items", ITEM_KEYS)
    for slot, key in zip(ITEM_SLOTS, ITEM_KEYS, strict=True):
        R[slot] = items[key]
    R[R_WEAPON_WEAR] = _int(rf, "combat.wear")
    R[R_THEFT] = _int(rf, "combat.theft")
    R[R_ORACLE_CHESTS] = _int(rf, "oracle.chests")
    foes = parse_enemies(rf)
    slaughter_on = _flag(rf, "slaughter.on")
    for f in foes:
        T[T_EN_BASE, f.icon] = f.base
        T[T_EN_MULT, f.icon] = f.mult
        T[T_EN_TRAITS, f.icon] = f.traits
        T[T_EN_STR:T_EN_STR + 16, f.icon] = strength_table(f, T[T_BONUS, :4]).reshape(-1)
    R[R_N_FOES] = len(foes)
    icon_table = I.IconTable.with_foes([(f.key, f.char, f.name) for f in foes])
    spawnable = [f.key for f in foes if not f.traits & FT_TRAP]
    spawn = rf.get("enemies.spawn_table")
    if not isinstance(spawn, list) or len(spawn) != 6 or any(s not in spawnable for s in spawn):
        raise InputError(f"enemies.spawn_table must list 6 monsters (enemies that are not traps) from "
                         f"{', '.join(spawnable)}", rf.blame("enemies.spawn_table", "enemies"))
    T[T_SPAWN, :6] = [icon_table.foe(s) for s in spawn]
    R[R_PRIZE_EVERY] = _int(rf, "kills.prize_every")
    R[R_PRIZE] = _int(rf, "kills.prize_cornucopias")
    R[R_BANDIT_PRIZE] = _int(rf, "kills.bandit_cornucopias")
    R[R_TROLL_RETURNS] = _int(rf, "kills.troll_returns")
    for s, sec in enumerate("ABCD"):
        table = rf.get(f"events.{sec}")
        where = rf.where(f"events.{sec}")
        if not isinstance(table, list) or len(table) != 6:
            raise InputError(f"events.{sec} must list 6 events (one per face of the d6)", where)
        T[T_EVENTS + s, :6] = [parse_event(t, where) for t in table]
    faces = rf.get("die_table.faces")
    if not isinstance(faces, list) or len(faces) != 6 or any(f not in DIE_WORDS for f in faces):
        raise InputError(f"die_table.faces must list 6 outcomes from {', '.join(DIE_WORDS)}",
                         rf.where("die_table.faces"))
    T[T_DIE, :6] = [DIE_WORDS.index(f) for f in faces]
    R[R_EXCHANGE] = _int(rf, "market.exchange_rate")
    R[R_MAX_MARKET_OPS] = _int(rf, "market.max_operations")
    R[R_KEEP_HEARTS] = _int(rf, "market.keep_hearts")
    R[R_REDEEM] = _int(rf, "market.redeem")
    for t, name in enumerate(TRACK_NAMES):
        T[T_SCORE, t] = _int(rf, f"score.{name}")
    T[T_SCORE, 7] = _int(rf, "score.kill")
    for name, (allowed, idx, one) in RULINGS.items():
        v = rf.get(f"rulings.{name}")
        if v not in allowed or isinstance(v, bool) != isinstance(allowed[0], bool):
            shown = ", ".join(str(a).lower() if isinstance(a, bool) else repr(a) for a in allowed)
            raise InputError(f"rulings.{name} = {v!r} is not one of {shown}", rf.where(f"rulings.{name}"))
        if isinstance(idx, tuple):
            for i, flag in zip(idx, one[v], strict=True):
                R[i] = flag
        elif idx is not None:
            R[idx] = 1 if v == one else 0
    heroes: dict[str, dict[str, Any]] = {}
    for key, h in (rf.get("heroes") or {}).items():
        if key not in HERO_KEYS:
            raise InputError(f"unknown hero {key!r}: heroes are {', '.join(HERO_KEYS)} (their actions are rules)",
                             rf.where(f"heroes.{key}"))
        if not isinstance(h, dict):
            raise InputError(f"heroes.{key} must be a table (name, label, start, cap)", rf.where(f"heroes.{key}"))
        fields = HERO_FIELDS if key != "free" else {"name", "label"}
        extra = [f for f in h if f not in fields]
        if extra:
            raise InputError(f"heroes.{key} has unknown key {extra[0]!r} (known: {', '.join(sorted(fields))})",
                             rf.where(f"heroes.{key}.{extra[0]}"))
        for f in ("name", "label"):
            if f in h and not isinstance(h[f], str):
                raise InputError(f"heroes.{key}.{f} must be a text", rf.where(f"heroes.{key}.{f}"))
        entry: dict[str, Any] = {"name": h.get("name", key), "label": h.get("label", "")}
        if key != "free":
            start = _tracks(rf, f"heroes.{key}.start", TRACK_NAMES[:N_TRAITS])
            cap = _tracks(rf, f"heroes.{key}.cap", TRACK_NAMES[:N_TRAITS])
            for t in TRACK_NAMES[:N_TRAITS]:
                if start[t] > cap[t]:
                    raise InputError(f"heroes.{key}: cap {t} = {cap[t]} is below the starting value {start[t]}",
                                     rf.blame(f"heroes.{key}.cap.{t}", f"heroes.{key}.start.{t}"))
            if start["hearts"] < 1:
                raise InputError(f"heroes.{key}.start.hearts must be at least 1",
                                 rf.where(f"heroes.{key}.start.hearts"))
            entry.update(start=start, cap=cap)
        heroes[key] = entry
    if "free" not in heroes:
        heroes["free"] = {"name": "Free character", "label": "any"}

    map_name = map_path if map_path is not None else rf.get("game.map")
    if map_path is None and (not isinstance(map_name, str) or not map_name.strip()):
        raise InputError(f"game.map must be a shipped map name or a map file path, not {map_name!r}",
                         rf.where("game.map"))
    m = resolve_map(map_name, icon_table, "--map" if map_path is not None else rf.where("game.map"))
    goals = tuple(f.icon for f in foes if f.traits & FT_TEMPLE_GOAL)
    try:
        map_assumed = check_map(m, MapNeeds(rounds, int(R[R_NEED_A]), int(R[R_NEED_A + 2]), goals,
                                            start=slaughter_on, santa=_flag(rf, "santa.on")))  # maps.py checks
    except InputError as e:  # a shipped map short of what a user's setting asks: the setting's fault, at its place
        key = next((k for k in ("requirements.statues", "requirements.levers", "game.rounds") if k in e.message), None)
        place = rf.where(key) if key else ""
        if not (key and str(map_name) in builtin_maps() and not place.startswith(str(DEFAULT_RULES))
                and not place.startswith(str(m.path))):
            raise
        raise InputError(f"{e.message} (the map {map_name})", place) from None
    geo, arrows, rm0 = map_arrays(m, R, T)
    slaughter(rf, R, T, m, foes, icon_table, slaughter_on)
    for row, icon in ((T_STAIRS, I.STAIRS), (T_CIRCLES, I.CIRCLE), (T_LEVERS, I.LEVER)):
        cells = np.flatnonzero(m.icons[:, icon] > 0)
        T[row, 0] = len(cells)
        T[row, 1:1 + len(cells)] = cells
    places, up = upper_distances(m)
    T[T_UP_PLACES, 0] = len(places)
    T[T_UP_PLACES, 1:1 + len(places)] = places
    flat = up.reshape(-1)
    for i, d in enumerate(flat):
        T[T_UP_DIST + i // T_COLS, i % T_COLS] = d
    two_player(rf, R, heroes)
    santa(rf, R, m, rm0, icon_table)
    icon_sums(rm0)
    icon_rooms(rm0, m.rows, m.cols)
    kraken(rf, R, icon_table)
    if R[R_P2_PLAYERS] == 2 and len(set(arrows[:, 2].tolist())) < 2:
        raise InputError("two_player.players = 2 needs a map with entry arrows on at least two sides (sectors): "
                         "each player starts from a different side", rf.where("two_player.players"))
    R[R_N_ARROWS] = arrows.shape[0]
    R[R_ROWS] = m.rows
    R[R_COLS] = m.cols
    return FouryRules(rf.data, m, R, T, geo, arrows, rm0, sources, heroes, assumptions=map_assumed, foes=foes,
                      icons=icon_table)


def _flag(rf: rulesfile.RuleFile, key: str) -> bool:
    v = rf.get(key)
    if not isinstance(v, bool):
        raise InputError(f"{key} = {v!r} is not one of true, false", rf.where(key))
    return v


def slaughter(rf: rulesfile.RuleFile, R: np.ndarray, T: np.ndarray, m: MapData, foes: list[Foe],
              icons: I.IconTable, on: bool) -> None:
    """``[slaughter]`` into ``R_SL_*`` (docs/rules.md "The Slaughter of Monsters"): every slot 0 when it is off,
    as in the base game. On, the map's start triangle is the start room, and the map may hold at most
    ``max_enemies`` monsters."""
    boxes = _int(rf, "slaughter.fury_boxes")
    most = _int(rf, "slaughter.max_enemies")
    counts = _flag(rf, "slaughter.fury_kills_count")
    items = {k: i for i, k in enumerate(icons.keys) if k and (i in I.ITEMS or i in I.CAMPAIGN_ITEMS) and i != I.DIE}
    table = rf.get("slaughter.find_table")
    if not isinstance(table, list) or len(table) != 6 or any(t != "nothing" and t not in items for t in table):
        raise InputError(f"slaughter.find_table must list 6 items (one per face of the d6) from "
                         f"{', '.join(items)}, or \"nothing\"", rf.where("slaughter.find_table"))
    if not on:
        return
    monsters = sum(int(m.icons[:, f.icon].sum()) for f in foes if not f.traits & FT_TRAP)
    if monsters > most:
        raise InputError(f"The Slaughter of Monsters: the map has {monsters} monsters, more than slaughter.max_enemies "
                         f"= {most} ('the maximum number of enemies you can encounter')",
                         f"{m.path}:{m.grid_line}:1")
    R[R_SL_ON] = 1
    R[R_SL_START] = int(np.flatnonzero(m.icons[:, I.START] > 0)[0])
    R[R_FURY_BOXES] = boxes
    R[R_SL_MAX_ENEMIES] = most
    R[R_SL_FURY_COUNTS] = 1 if counts else 0
    R[R_SL_FIND:R_SL_FIND + 6] = [items[t] if t != "nothing" else -1 for t in table]
    R[R_SL_CAN_SPAWN] = 1 if DIE_WORDS.index("monster") in T[T_DIE, :6] else 0


def two_player(rf: rulesfile.RuleFile, R: np.ndarray, heroes: dict[str, dict[str, Any]]) -> None:
    """``[two_player]`` into ``R_P2_*`` (docs/rules.md "2-player mode"). A 2-player game is one adventure per
    player (``R_ROUNDS`` = 1) with no continue (``R_COINS`` = 0): "survive longer than your opponent"."""
    R[R_P2_PLAYERS] = _int(rf, "two_player.players")
    R[R_P2_TREASURES] = _int(rf, "two_player.treasures")
    R[R_P2_LOOT] = _int(rf, "two_player.duel_loot")
    opp = rf.get("two_player.opponent")
    if opp != "same" and opp not in heroes:
        raise InputError(f"two_player.opponent = {opp!r} is not \"same\" or a hero ({', '.join(heroes)})",
                         rf.where("two_player.opponent"))
    first = rf.get("two_player.first")
    if first not in ("hero", "opponent"):
        raise InputError(f"two_player.first = {first!r} is not one of 'hero', 'opponent'",
                         rf.where("two_player.first"))
    R[R_P2_FIRST] = 1 if first == "hero" else 2
    flags = 0
    for name, (allowed, bit, one) in TWO_PLAYER_FLAGS.items():
        v = rf.get(f"two_player.{name}")
        if v not in allowed or isinstance(v, bool) != isinstance(allowed[0], bool):
            shown = ", ".join(str(a).lower() if isinstance(a, bool) else repr(a) for a in allowed)
            raise InputError(f"two_player.{name} = {v!r} is not one of {shown}", rf.where(f"two_player.{name}"))
        flags |= bit if v == one else 0
    R[R_P2_FLAGS] = flags
    if R[R_P2_PLAYERS] == 2:
        R[R_ROUNDS] = 1
        R[R_COINS] = 0


def _flag(rf: rulesfile.RuleFile, key: str) -> int:
    v = rf.get(key)
    if not isinstance(v, bool):
        raise InputError(f"{key} = {v!r} is not one of true, false", rf.where(key))
    return 1 if v else 0


def santa_pack(counts: dict[str, int]) -> int:
    """``santa.goal`` / ``santa.full`` as one rule slot: 8 bits per kind (``layout.SK_*`` order)."""
    return sum(min(int(counts[k]), 255) << (8 * i) for i, k in enumerate(SANTA_KIND_KEYS))


#: The two-valued rulings of ``[santa]``: key -> (allowed values, the flag bit of ``R_SANTA_FLAGS``, the value that
#: sets it).
SANTA_FLAGS: dict[str, tuple[tuple[Any, ...], int, Any]] = {
    "imp_erases": (("resources", "all"), SF_IMP_ALL, "all"),
    "stuck": (("dead", "hourglass"), SF_STUCK_HOURGLASS, "hourglass"),
}


def _santa_flags(rf: rulesfile.RuleFile) -> int:
    """``R_SANTA_FLAGS`` from ``SANTA_FLAGS`` (a value not allowed is a one-line error naming its key)."""
    flags = 0
    for name, (allowed, bit, one) in SANTA_FLAGS.items():
        v = rf.get(f"santa.{name}")
        if v not in allowed or isinstance(v, bool):
            shown = ", ".join(repr(a) for a in allowed)
            raise InputError(f"santa.{name} = {v!r} is not one of {shown}", rf.where(f"santa.{name}"))
        flags |= bit if v == one else 0
    return flags


def santa(rf: rulesfile.RuleFile, R: np.ndarray, m: MapData, rm0: np.ndarray, icons: I.IconTable) -> None:
    """``[santa]`` into ``R_SANTA_*`` (Santa Crash'n Foury; docs/rules.md). Off (``santa.on = false``): every slot 0
    and nothing else is read or checked. On: the map's XMas Safe Zone (exactly one ``X``) is a place, not an item
    (its icon is taken off the rooms' starting state); the Grinch and the Yeti are enemies of ``[enemies]``."""
    if not _flag(rf, "santa.on"):
        return
    if R[R_P2_PLAYERS] == 2:
        raise InputError("santa.on is a solo campaign: it cannot be played with two_player.players = 2",
                         rf.blame("santa.on", "two_player.players"))
    R[R_SANTA] = 1
    R[R_SANTA_HOURGLASS] = _int(rf, "santa.hourglass")
    R[R_SANTA_STAR_STEPS] = _int(rf, "santa.star_steps")
    R[R_SANTA_LOSS] = _int(rf, "santa.packages_per_hit")
    R[R_SANTA_DIE_STAR] = _int(rf, "santa.die_star")
    R[R_SANTA_WRATH_TURNS] = _int(rf, "santa.wrath_turns")
    R[R_SANTA_WRATH_STR] = _int(rf, "santa.wrath_strength")
    R[R_SANTA_WRATH_GOAL] = _flag(rf, "santa.wrath_after_collection")
    R[R_SANTA_FLAGS] = _santa_flags(rf)
    R[R_SANTA_GOAL] = santa_pack(_tracks(rf, "santa.goal", SANTA_KIND_KEYS))
    R[R_SANTA_FULL] = santa_pack(_tracks(rf, "santa.full", SANTA_KIND_KEYS))
    for slot, key in ((R_SANTA_GRINCH, "santa.grinch"), (R_SANTA_YETI, "santa.yeti")):
        v = rf.get(key)
        if v == "":
            R[slot] = -1
            continue
        if not isinstance(v, str) or v not in icons.keys[I.FOE_FIRST:I.CAMPAIGN_FIRST]:
            foes = [k for k in icons.keys[I.FOE_FIRST:I.CAMPAIGN_FIRST] if k]
            raise InputError(f"{key} = {v!r} is not an enemy of [enemies] ({', '.join(foes)}; \"\" = none)",
                             rf.where(key))
        R[slot] = icons.foe(v)
    safe = np.flatnonzero(m.icons[:, I.SAFE_ZONE] > 0)
    if len(safe) != 1:
        raise InputError(f"santa.on needs a map with exactly one XMas Safe Zone ('X'); {m.path} has {len(safe)}",
                         f"{m.path}:{m.grid_line}:1")
    R[R_SANTA_SAFE] = int(safe[0])
    rm0[:, RM_ICON + I.SAFE_ZONE] = 0


def kraken(rf: rulesfile.RuleFile, R: np.ndarray, icon_table: I.IconTable) -> None:
    """``[kraken]``: Discovering the Kraken's rules (``data/campaigns/kraken.toml`` turns them on; docs/rules.md
    "Discovering the Kraken"). Off, they are all 0 and the kernel plays the base game."""
    on = rf.get("kraken.on")
    if not isinstance(on, bool):
        raise InputError(f"kraken.on = {on!r} is not one of true, false", rf.where("kraken.on"))
    market = rf.get("kraken.market_once")
    if not isinstance(market, bool):
        raise InputError(f"kraken.market_once = {market!r} is not one of true, false", rf.where("kraken.market_once"))
    opposite = rf.get("kraken.opposite")
    if not isinstance(opposite, list) or len(opposite) != 4 or any(o not in SECTOR_KEYS for o in opposite):
        raise InputError("kraken.opposite must list 4 sectors (the side opposite A, B, C, D), each one of A, B, C, D",
                         rf.where("kraken.opposite"))
    foe = rf.get("kraken.foe")
    for key in ("flood_every", "hourglass", "walk_max", "swim_max"):
        _int(rf, f"kraken.{key}")  # checked even when off
    if not on:
        return
    if R[R_P2_PLAYERS] == 2:
        raise InputError("Discovering the Kraken is a solo campaign: kraken.on needs two_player.players = 1",
                         rf.blame("kraken.on", "two_player.players"))
    if not isinstance(foe, str) or foe not in icon_table.keys[I.FOE_FIRST:I.CAMPAIGN_FIRST]:
        raise InputError(f"kraken.foe = {foe!r} must name an enemy of [enemies] (the Kraken fights as it)",
                         rf.blame("kraken.foe", "enemies"))
    R[R_KR_ON] = 1
    R[R_KR_FLOOD_EVERY] = _int(rf, "kraken.flood_every")
    R[R_KR_HOURGLASS] = _int(rf, "kraken.hourglass")
    R[R_KR_WALK_MAX] = _int(rf, "kraken.walk_max")
    R[R_KR_SWIM_MAX] = _int(rf, "kraken.swim_max")
    R[R_KR_FOE] = icon_table.foe(foe)
    for s, o in enumerate(opposite):
        if o == SECTOR_KEYS[s]:  # (the exit goal after the last requirement would be the area itself)
            raise InputError(f"kraken.opposite[{s}] = {o!r}: the side opposite {SECTOR_KEYS[s]} cannot be "
                             f"{SECTOR_KEYS[s]} itself", rf.where("kraken.opposite"))
        R[R_KR_OPPOSITE + s] = SECTOR_KEYS.index(o)
    R[R_KR_MARKET] = 1 if market else 0


def parse_enemies(rf: rulesfile.RuleFile) -> list[Foe]:
    """The ``[enemies]`` table (every entry but ``spawn_table``), validated, in icon slots in table order."""
    table = rf.get("enemies")
    if not isinstance(table, dict):
        raise InputError("[enemies] must be a table of enemies", rf.where("enemies"))
    foes: list[Foe] = []
    chars: dict[str, str] = {}
    for key, e in table.items():
        if key == "spawn_table":
            continue
        at = f"enemies.{key}"
        where = rf.where(at)
        if isinstance(e, dict) and set(e) - ENEMY_FIELDS:  # a misspelt field, named at its line, with a hint
            bad = sorted(set(e) - ENEMY_FIELDS)[0]
            close = rulesfile.close_match(bad, sorted(ENEMY_FIELDS))
            hint = f"did you mean {close!r}? " if close else ""
            raise InputError(f"{at}.{bad}: unknown field ({hint}known: {', '.join(sorted(ENEMY_FIELDS))})",
                             rf.where(f"{at}.{bad}"))
        if not isinstance(e, dict) or not {"char", "base", "mult"} <= set(e):
            raise InputError(f"{at} must be {{ char = \"x\", base = N, mult = N, traits = [...] }} (name optional)",
                             where)
        if key in I.FIXED_KEYS + I.CAMPAIGN_KEYS:
            raise InputError(f"{at}: {key!r} is the name of an item or fixture", where)
        if len(foes) == I.MAX_FOES:
            raise InputError(f"too many enemies: at most {I.MAX_FOES} kinds (icons.MAX_FOES)", where)
        ch = e["char"]
        if not isinstance(ch, str) or len(ch) != 1 or not ch.isprintable() or ch in I.RESERVED_CHARS:
            raise InputError(f"{at}.char must be one printable character other than '.', ' ' and '*', not {ch!r}",
                             where)
        if ch in I.FIXED_CHARS + I.CAMPAIGN_CHARS:
            raise InputError(f"{at}.char {ch!r} is the map character of the "
                             f"{(I.FIXED_NAMES + I.CAMPAIGN_NAMES)[(I.FIXED_CHARS + I.CAMPAIGN_CHARS).index(ch)]}",
                             where)
        if ch in chars:
            raise InputError(f"{at}.char {ch!r} is already the map character of enemies.{chars[ch]}", where)
        chars[ch] = key
        words = e.get("traits", [])
        known = [isinstance(w, str) and w in FOE_TRAIT_WORDS for w in words] if isinstance(words, list) else [False]
        if not all(known):
            bad = words if not isinstance(words, list) else words[known.index(False)]
            raise InputError(f"{at}.traits: unknown trait {bad!r} (known: {', '.join(FOE_TRAIT_WORDS)})", where)
        name = e.get("name", key.replace("_", " "))
        if not isinstance(name, str) or not name:
            raise InputError(f"{at}.name must be a text", where)
        bits = 0
        for w in words:
            bits |= FOE_TRAIT_WORDS[w]
        foes.append(Foe(key, I.FOE_FIRST + len(foes), ch, name, _int(rf, f"{at}.base"), _int(rf, f"{at}.mult"),
                        bits, parse_strength(rf, key)))
    return foes


def parse_strength(rf: rulesfile.RuleFile, key: str) -> tuple[str, dict[str, int]] | None:
    """``enemies.KEY.strength``, validated: ``("sector", {"C": 1})`` for sector keys (A..D), ``("order", {"3": 2})``
    for play-order keys (1..4, or a list: the 1st, 2nd... round played); None when the enemy has no strength cell."""
    at = f"enemies.{key}.strength"
    v = rf.get(at)
    if v is None:
        return None
    rounds = int(rf.get("game.rounds"))
    if isinstance(v, list):
        if not 1 <= len(v) <= rounds:
            raise InputError(f"{at} as a list gives the strength in the 1st, 2nd... round played: 1..{rounds} whole "
                             f"numbers (game.rounds = {rounds}), not {rulesfile.show_value(v)}", rf.where(at))
        return "order", {str(i + 1): rulesfile.check_int(rf, f"{at}[{i}]", RANGES, x, rf.where(at))
                         for i, x in enumerate(v)}
    if not isinstance(v, dict) or not v:
        raise InputError(f"{at} must be a table by round, {{ C = 1 }} (sector A..D) or {{ 3 = 1 }} (the 3rd round "
                         f"played), or a list by play order, not {rulesfile.show_value(v)}", rf.where(at))
    for k in v:
        if str(k) not in SECTOR_KEYS + ORDER_KEYS:
            raise InputError(f"{at} has unknown round {str(k)!r}: A..D name the round played in that sector, 1..4 "
                             f"the k-th round played", rf.where(f"{at}.{k}"))
        if str(k) in ORDER_KEYS and int(k) > rounds:
            raise InputError(f"{at}.{k}: there is no round {k} to play (game.rounds = {rounds})",
                             rf.blame(f"{at}.{k}", "game.rounds"))
    kinds = {"sector" if str(k) in SECTOR_KEYS else "order" for k in v}
    if len(kinds) > 1:
        raise InputError(f"{at} mixes sector rounds (A..D) and play-order rounds (1..4): the round played in sector "
                         f"C may be any of the 1st..4th; give one kind", rf.where(at))
    return kinds.pop(), {str(k): _int(rf, f"{at}.{k}") for k in v}


def strength_table(foe: Foe, bonus: np.ndarray) -> np.ndarray:
    """The foe's strength in the (k+1)-th round played in sector s: ``table[k, s]``. By default base + mult x the
    monster bonus of the k-th round (``round.monster_bonus``, by play order); a sector cell sets the strength in
    that sector's round whatever its place in the order, a play-order cell the strength in that round whatever
    its sector."""
    table = np.repeat((foe.base + foe.mult * np.asarray(bonus, np.int64))[:, None], 4, axis=1)
    if foe.strength is not None:
        kind, cells = foe.strength
        for k, v in cells.items():
            if kind == "sector":
                table[:, SECTOR_KEYS.index(k)] = v
            else:
                table[ORDER_KEYS.index(k), :] = v
    return table


def strength_summary(rules: FouryRules) -> str:
    """The strength table in one line: ``orc 0/1/2/3`` by the 1st..4th round played, then a sector's cells
    (``orc 0/1/2/3, in C 1``) for an enemy whose ``strength`` names sectors (``foury-sim odds foury``)."""
    rounds = int(rules.R[R_ROUNDS])
    parts = []
    for f in rules.foes:
        t = rules.T[T_EN_STR:T_EN_STR + 16, f.icon].reshape(4, 4)[:rounds]
        sectors = f.strength[1] if f.strength is not None and f.strength[0] == "sector" else {}
        free = [s for s in range(4) if SECTOR_KEYS[s] not in sectors]
        by_order = "/".join(str(int(t[k, free[0]])) for k in range(rounds)) if free else ""
        cells = ", ".join(f"in {k} {v}" for k, v in sorted(sectors.items()))
        parts.append(f"{f.key} {', '.join(x for x in (by_order, cells) if x)}")
    return ("Monster strength (added to the foe's d6) by the 1st/2nd/... round played; 'in C' = in the round "
            f"played in sector C, whatever its place: {'; '.join(parts)}.")


def split_strength_sets(overrides: list[str] | dict | None) -> tuple[list[str] | dict | None, list[tuple]]:
    """Take the ``--set enemies.KIND.strength[.ROUND]=V`` items out of ``overrides`` (the shipped file has no
    strength cell to override: ``apply_strength_sets`` adds them): (the other overrides, [(key, kind, round or
    None, value, shown)])."""
    if not overrides:
        return overrides, []
    found: list[tuple] = []
    if isinstance(overrides, dict):
        rest_d: dict[str, Any] = {}
        for k, v in overrides.items():
            m = _STRENGTH_SET.match(str(k).strip())
            if m:
                r = repr(v)
                found.append((str(k).strip(), m.group(1), m.group(2), v, r if len(r) <= 40 else r[:37] + "..."))
            else:
                rest_d[k] = v
        return rest_d, found
    rest: list[str] = []
    for o in overrides:
        k, eq, v = o.partition("=")
        m = _STRENGTH_SET.match(k.strip())
        if m and eq:
            shown = v.strip() if len(v.strip()) <= 40 else v.strip()[:37] + "..."
            found.append((k.strip(), m.group(1), m.group(2), rulesfile._parse_value(v.strip()), shown))
        else:
            rest.append(o)
    return rest, found


def apply_strength_sets(rf: rulesfile.RuleFile, sets: list[tuple]) -> rulesfile.RuleFile:
    """``rf`` with the strength cells of ``split_strength_sets`` put in (a copy; errors name ``--set KEY``)."""
    if not sets:
        return rf
    out = rulesfile.RuleFile(copy.deepcopy(rf.data), rf.text, rf.path, rf.layers)
    out.overridden = dict(rf.overridden)
    enemies = out.data.get("enemies")
    for key, kind, rnd, value, shown in sets:
        e = enemies.get(kind) if isinstance(enemies, dict) and kind != "spawn_table" else None
        if not isinstance(e, dict):
            names = {k: None for k in (enemies or {}) if k != "spawn_table"}
            raise InputError(f"unknown enemy {kind!r}{rulesfile.nearest(kind, names)}", f"--set {key}")
        if rnd is None:
            if isinstance(value, dict) or isinstance(value, list):
                e["strength"] = value
            else:
                raise InputError(f"enemies.{kind}.strength is a table by round: set one round "
                                 f"(enemies.{kind}.strength.C) or give a table {{ C = 1 }} or a list",
                                 f"--set {key}")
        else:
            if isinstance(value, (dict, list)):
                raise InputError(f"enemies.{kind}.strength.{rnd} is a single value, not a table or list",
                                 f"--set {key}")
            old = e.get("strength")
            if isinstance(old, list):
                old = {str(i + 1): x for i, x in enumerate(old)}
            e["strength"] = dict(old or {}) | {rnd: value}
        out.overridden[key] = shown
    return out


def map_arrays(m: MapData, R: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """geo (neighbours, sector, distance to the Oracle), arrows, and the rooms' starting state."""
    n = m.rows * m.cols
    geo = np.full((n, 6), -1, np.int64)
    to_oracle = m.distances_from(m.oracle)
    for x in range(n):
        for d in range(4):
            geo[x, d] = m.neighbor(x, d)
        geo[x, 4] = m.sector[x]
        geo[x, 5] = to_oracle[x] if m.sector[x] >= 0 else 9999
    arrows = np.stack([m.arrow_cell, m.arrow_dir, m.arrow_sector], axis=1).astype(np.int64)
    rm0 = np.zeros((n, RM_COLS), np.int64)
    rm0[:, RM_WALL:RM_WALL + 4] = m.wall
    rm0[:, RM_ICON:RM_ICON + I.N_ICONS] = m.icons
    for i in reversed(range(I.FOE_FIRST, I.CAMPAIGN_FIRST)):  # the first returning foe of a room (slot order) returns
        if T[T_EN_TRAITS, i] & FT_RETURNS:
            here = m.icons[:, i] > 0
            rm0[here, RM_RETURNS] = R[R_TROLL_RETURNS]
            rm0[here, RM_RETURNER] = i
    rm0[:, RM_STATE] = np.where(m.icons[:, I.TUNNEL] > 0, FLOODED, 0)
    row_bits(rm0, m.rows, m.cols)
    return geo, np.ascontiguousarray(arrows), rm0


def icon_sums(rm: np.ndarray) -> None:
    """Every room's ``RM_FOES``, ``RM_ITEMS`` and ``RM_KINDS`` (layout.py) from its icon counts: once for a map's
    starting rooms (the kernel's ``add_icon`` keeps them from there)."""
    foes = rm[:, RM_ICON + I.FOE_FIRST:RM_ICON + I.FOE_FIRST + I.MAX_FOES]
    rm[:, RM_FOES] = foes.sum(axis=1)
    rm[:, RM_ITEMS] = rm[:, [RM_ICON + k for k in I.ALL_ITEMS]].sum(axis=1)
    held = np.concatenate([foes, rm[:, [RM_ICON + I.CORNUCOPIA, RM_ICON + I.DIE]]], axis=1) > 0  # (KIND_* order)
    rm[:, RM_KINDS] = (held.astype(np.int64) << np.arange(held.shape[1], dtype=np.int64)).sum(axis=1)


def icon_rooms(rm: np.ndarray, rows: int, cols: int) -> None:
    """The rooms whose printed icons hold a foe, a cornucopia or a die, as row 0's two words ``RM_BITS + RB_ICONS``
    (layout.py; the kernel adds the rooms a game adds such an icon to), so that ``mark_goals`` looks at those rooms
    instead of every room: the rooms whose ``RM_KINDS`` is not 0 (``icon_sums`` first). A map of more than 128 cells
    (or of 64 columns or more) keeps them 0: there it looks at every room."""
    rm[0, RM_BITS + RB_ICONS:RM_BITS + RB_ICONS + 2] = 0
    n = rows * cols
    if n > 128 or cols >= 64:
        return
    held = np.flatnonzero(rm[:n, RM_KINDS] != 0)
    for half in range(2):
        v = sum(1 << (int(x) - 64 * half) for x in held if 64 * half <= x < 64 * half + 64)
        rm[0, RM_BITS + RB_ICONS + half] = v - (1 << 64) if v >= 1 << 63 else v  # (bit 63: the int64's sign bit)


def row_bits(rm: np.ndarray, rows: int, cols: int) -> None:
    """Fill the goal search's bit masks (``RM_BITS``, layout.py) from the rooms' walls and states: once for the
    map's starting rooms (the kernel keeps them up to date from there)."""
    n = rows * cols
    cond = [rm[:n, RM_WALL + s] == W_OPEN for s in range(4)] + [rm[:n, RM_WALL + s] == W_COLLAPSED for s in range(4)]
    cond += [(rm[:n, RM_STATE] & FLOODED) != 0, (rm[:n, RM_STATE] & COLLAPSED) != 0]
    for k, on in enumerate(cond):
        for r in range(rows):
            v = sum(1 << c for c in range(cols) if on[r * cols + c])
            rm[r, RM_BITS + k] = v - (1 << 64) if v >= 1 << 63 else v  # (column 63: the int64's sign bit)
    rm[0, RM_BITS + RB_DIRTY] = 1  # (the goal search makes its map-wide words from them again)
