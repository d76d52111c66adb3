"""Rooms rulesets (the combat-dice part so far): read ``data/rules.toml`` (a user's ``--rules`` file merged over
it, then ``--set`` overrides: ``rulesfile.load_ruleset_file``), validate every hero sheet and monster, and pack
them into the plain int64 tables of ``layout.py`` (face table, ability table, hero row, monster row, combat
row). Validation lives here, never in kernels: every refusal is one ``InputError`` at ``file:line:column``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ... import assumptions as assume
from ...errors import InputError
from ...rulesfile import Ranges, RuleFile, check_int, load_ruleset_file, nearest, show_value
from . import layout as L

DEFAULT_RULES = Path(__file__).with_name("data") / "rules.toml"
#: Tables where a user's ``--rules`` file may add entries: new heroes, new monsters, its own assumptions.
OPEN_TABLES = ("heroes", "monsters", "assumptions")
#: Tables a user's table replaces whole when it gives the marker key (``rulesfile.merge``): a monster's attack is
#: dice (``dice``, ``damage``) or a pattern (``pattern``), so an attack given with its ``kind`` is the whole attack.
WHOLE_TABLES = {"monsters.*.attack": "kind"}

#: The valid range of every whole number of the combat chapter (what the dice programme and the engine accept;
#: ``assumptions`` holds the plausible ones). The game's declared ranges are ``RANGES`` (below the navigation's):
#: this table and ``NAV_RANGES`` together.
COMBAT_RANGES: Ranges = {
    "combat.dice": (1, L.MAX_DICE),
    "combat.rolls": (1, L.MAX_REROLLS + 1),
    "combat.cp_start": (0, 100),
    "combat.cp_per_turn": (0, 100),
    "combat.cp_max": (0, 100),
    "combat.reroll_cost": (0, 100),
    "combat.max_bought_rerolls": (0, L.MAX_REROLLS),
    "statuses.poison.damage": (0, 20),
    "statuses.poison.max_stacks": (0, 20),
    "statuses.poison.decay": (0, 20),
    "statuses.stun.max_stacks": (0, 5),
    "combat.max_fight_turns": (1, 1000),
    "heroes.*.hp": (1, 200),
    "heroes.*.numbers[]": (1, 6),
    "heroes.*.defense.dice": (0, L.MAX_DICE),
    "heroes.*.defense.block[]": (0, 20),
    "heroes.*.defense.counter[]": (0, 20),
    "heroes.*.abilities.*.needs[].n": (2, L.MAX_DICE),
    "heroes.*.abilities.*.needs[].k": (1, L.MAX_DICE),
    **{f"heroes.*.abilities.*.{e}": (0, 100) for e in L.EFFECTS},
    "monsters.*.hp": (1, 1000),
    "monsters.*.attack.dice": (1, 10),
    "monsters.*.attack.damage[]": (0, 50),
    "monsters.*.attack.pattern[]": (0, 50),
    "monsters.*.inflicts.poison": (0, 20),
    "monsters.*.inflicts.stun": (0, 5),
    "monsters.*.defense.dice": (0, 10),
    "monsters.*.defense.block[]": (0, 20),
}
#: The rulings of the combat dice (true/false), read into the ability rows (``RQ_A`` of full house / two pair).
RULINGS = ("rulings.full_house_five_of_a_kind", "rulings.two_pair_four_of_a_kind")
HERO_FIELDS = ("name", "hp", "numbers", "symbols", "defense", "abilities")
ABILITY_FIELDS = ("name", "needs", *L.EFFECTS)
HERO_DEFENSE_FIELDS = ("dice", "block", "counter")
MONSTER_FIELDS = ("name", "hp", "attack", "inflicts", "defense")
#: The keys of a monster's attack, by its kind.
ATTACK_FIELDS = {"dice": ("kind", "dice", "damage"), "pattern": ("kind", "pattern")}
_SYMBOL = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


@dataclass
class HeroSheet:
    """One hero, packed: ``faces`` int64[N_FACES, F_COLS], ``abilities`` int64[n, AB_COLS], ``row`` int64[H_COLS]."""

    key: str
    name: str
    symbols: tuple[str, ...]
    faces: np.ndarray
    abilities: np.ndarray
    ability_keys: tuple[str, ...]
    ability_names: tuple[str, ...]
    row: np.ndarray

    def combo_text(self, a: int) -> str:
        """The needs of ability ``a`` in words (``3 arrow + small straight``)."""
        parts = []
        ab = self.abilities[a]
        for q in range(int(ab[L.AB_N_REQ])):
            kind, pa, pb = (int(x) for x in ab[L.AB_REQ + q * L.RQ_COLS: L.AB_REQ + (q + 1) * L.RQ_COLS])
            if kind == L.CK_KIND:
                parts.append(f"{pa} of a kind")
            elif kind == L.CK_SYMBOL:
                parts.append(f"{pb} {self.symbols[pa]}")
            else:
                parts.append(L.COMBO_KINDS[kind].replace("_", " "))
        return " + ".join(parts)

    def effect_text(self, a: int) -> str:
        ab = self.abilities[a]
        return ", ".join(f"{e} {ab[L.AB_EFFECT + i]}" for i, e in enumerate(L.EFFECTS) if ab[L.AB_EFFECT + i])


@dataclass
class MonsterSheet:
    key: str
    name: str
    row: np.ndarray  # int64[M_COLS]


@dataclass
class DiceRules:
    """The validated combat chapter: combat numbers (int64[C_COLS]), hero sheets and monsters."""

    combat: np.ndarray
    heroes: dict[str, HeroSheet]
    monsters: dict[str, MonsterSheet]
    source: str
    overrides: dict[str, str] = field(default_factory=dict)
    assumptions: list[assume.Assumption] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def dice(self) -> int:
        return int(self.combat[L.C_DICE])

    @property
    def rolls(self) -> int:
        return int(self.combat[L.C_ROLLS])


def _only(rf: RuleFile, key: str, table: dict[str, Any], allowed: tuple[str, ...], where: str | None = None) -> None:
    """Refuse a key of ``table`` (the table ``key``) that is not in ``allowed``, at its place."""
    for k in table:
        if k not in allowed:
            hint = nearest(k, dict.fromkeys(allowed)) if allowed else " (this takes no other key)"
            raise InputError(f"{key} has unknown key {k!r}{hint}", where or rf.where(f"{key}.{k}"))


def _table(rf: RuleFile, key: str, value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{key} must be a table ({what}), not {show_value(value)}", rf.where(key))
    return value


def _text(rf: RuleFile, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{key} must be a non-empty text, not {show_value(value)}", rf.where(key))
    return value


def _ints(rf: RuleFile, key: str, value: Any, n_min: int, n_max: int) -> list[int]:
    """A list of ``n_min``..``n_max`` whole numbers, each in the valid range of ``key[]``."""
    if not isinstance(value, list) or not n_min <= len(value) <= n_max:
        size = f"{n_min}" if n_min == n_max else f"{n_min}..{n_max}"
        raise InputError(f"{key} must be a list of {size} whole numbers, not {show_value(value)}", rf.where(key))
    return [check_int(rf, f"{key}[{i}]", RANGES, x, rf.where(key)) for i, x in enumerate(value)]


def _bool(rf: RuleFile, key: str) -> int:
    v = rf.get(key)
    if not isinstance(v, bool):
        raise InputError(f"{key} must be true or false, not {show_value(v)}", rf.where(key))
    return int(v)


def _combat(rf: RuleFile) -> np.ndarray:
    c = np.zeros(L.C_COLS, dtype=np.int64)
    for col, key in ((L.C_DICE, "combat.dice"), (L.C_ROLLS, "combat.rolls"), (L.C_CP_START, "combat.cp_start"),
                     (L.C_CP_PER_TURN, "combat.cp_per_turn"), (L.C_CP_MAX, "combat.cp_max"),
                     (L.C_REROLL_COST, "combat.reroll_cost"), (L.C_MAX_BOUGHT, "combat.max_bought_rerolls"),
                     (L.C_POISON_DAMAGE, "statuses.poison.damage"), (L.C_POISON_MAX, "statuses.poison.max_stacks"),
                     (L.C_POISON_DECAY, "statuses.poison.decay"), (L.C_STUN_MAX, "statuses.stun.max_stacks"),
                     (L.C_MAX_FIGHT_TURNS, "combat.max_fight_turns")):
        c[col] = check_int(rf, key, RANGES)
    if c[L.C_ROLLS] - 1 + c[L.C_MAX_BOUGHT] > L.MAX_REROLLS:
        raise InputError(f"combat.rolls - 1 + combat.max_bought_rerolls must be at most {L.MAX_REROLLS} rerolls "
                         f"(the reroll tables' size), not {c[L.C_ROLLS] - 1 + c[L.C_MAX_BOUGHT]}",
                         rf.blame("combat.max_bought_rerolls", "combat.rolls"))
    if c[L.C_CP_START] > c[L.C_CP_MAX]:
        raise InputError("combat.cp_start must not exceed combat.cp_max", rf.blame("combat.cp_start", "combat.cp_max"))
    return c


def _need(rf: RuleFile, key: str, i: int, need: Any, symbols: list[str], numbers: list[int],
          dice: int) -> tuple[int, int, int]:
    """One requirement ``needs[i]`` of an ability: (combo kind, parameter a, parameter b). A combo the faces can
    never make (a straight without its numbers) is refused; needs that exclude each other are not detected (the
    odds table shows 0%)."""
    where = rf.where(f"{key}.needs")
    k = f"{key}.needs[{i}]"
    if not isinstance(need, dict) or "combo" not in need:
        raise InputError(f"{k} must be a table with a combo ({', '.join(L.COMBO_KINDS)}), not {show_value(need)}",
                         where)
    combo = need["combo"]
    if combo not in L.COMBO_KINDS:
        raise InputError(f"{k}: unknown combo {combo!r}{nearest(str(combo), dict.fromkeys(L.COMBO_KINDS))}", where)
    _only(rf, k, need, ("combo", *L.COMBO_FIELDS[combo]), where)
    kind = L.COMBO_KINDS.index(combo)
    for f in L.COMBO_FIELDS[combo]:
        if f not in need:
            raise InputError(f"{k}: a {combo} combo needs {f!r}", where)
    too_few = rf.blame("combat.dice", f"{key}.needs")  # a --set of combat.dice is the cause, else the sheet
    if dice < L.COMBO_MIN_DICE[kind]:
        raise InputError(f"{k}: a {combo} needs {L.COMBO_MIN_DICE[kind]} dice, the hero rolls {dice} "
                         "(combat.dice)", too_few if too_few.startswith("--set") else where)
    shown = sorted(set(numbers))
    faces = rf.blame(f"{key}.needs", key.split(".abilities.")[0] + ".numbers")  # a --set of the faces is the cause
    runs = {L.CK_SMALL_STRAIGHT: 4, L.CK_LARGE_STRAIGHT: 5}
    if kind in runs and not any(set(range(v, v + runs[kind])) <= set(shown) for v in shown):
        raise InputError(f"{k}: a {combo} can never be made: the faces show the numbers "
                         f"{' '.join(map(str, shown))}", faces)
    if kind in (L.CK_FULL_HOUSE, L.CK_TWO_PAIR) and len(shown) < 2:
        raise InputError(f"{k}: a {combo} needs two different numbers, every face shows {shown[0]}", faces)
    a = b = -1
    if kind == L.CK_KIND:
        a = check_int(rf, f"{k}.n", RANGES, need["n"], where)
        if a > dice:
            raise InputError(f"{k}: {a} of a kind needs {a} dice, the hero rolls {dice} (combat.dice)",
                             too_few if too_few.startswith("--set") else where)
    elif kind == L.CK_FULL_HOUSE:
        a = _bool(rf, "rulings.full_house_five_of_a_kind")
    elif kind == L.CK_TWO_PAIR:
        a = _bool(rf, "rulings.two_pair_four_of_a_kind")
    elif kind == L.CK_SYMBOL:
        s = need["symbol"]
        if s not in symbols:
            raise InputError(f"{k}: unknown symbol {s!r} (this hero's dice show: {', '.join(symbols) or 'none'})",
                             where)
        a = symbols.index(s)
        b = check_int(rf, f"{k}.k", RANGES, need["k"], where)
        if b > dice:
            raise InputError(f"{k}: {b} {s} needs {b} dice, the hero rolls {dice} (combat.dice)",
                             too_few if too_few.startswith("--set") else where)
    return kind, a, b


def _ability(rf: RuleFile, key: str, ab: Any, symbols: list[str], numbers: list[int],
             dice: int) -> tuple[np.ndarray, str]:
    ab = _table(rf, key, ab, "name, needs and effects")
    _only(rf, key, ab, ABILITY_FIELDS)
    row = np.full(L.AB_COLS, -1, dtype=np.int64)
    needs = ab.get("needs")
    if not isinstance(needs, list) or not 1 <= len(needs) <= L.MAX_REQS:
        raise InputError(f"{key}.needs must be a list of 1..{L.MAX_REQS} combos, not {show_value(needs)}",
                         rf.where(f"{key}.needs") if "needs" in ab else rf.where(key))
    row[L.AB_N_REQ] = len(needs)
    for i, need in enumerate(needs):
        row[L.AB_REQ + i * L.RQ_COLS: L.AB_REQ + (i + 1) * L.RQ_COLS] = _need(rf, key, i, need, symbols, numbers, dice)
    for e, name in enumerate(L.EFFECTS):
        row[L.AB_EFFECT + e] = check_int(rf, f"{key}.{name}", RANGES, ab[name]) if name in ab else 0
    if not row[L.AB_EFFECT:].any():
        raise InputError(f"{key} has no effect (give one of: {', '.join(L.EFFECTS)})", rf.where(key))
    return row, _text(rf, f"{key}.name", ab.get("name", key.rsplit(".", 1)[1]))


def _hero(rf: RuleFile, name: str, h: Any, combat: np.ndarray) -> HeroSheet:
    key = f"heroes.{name}"
    h = _table(rf, key, h, "name, hp, numbers, symbols, defense, abilities")
    _only(rf, key, h, HERO_FIELDS)
    for f in ("hp", "numbers", "symbols", "abilities"):
        if f not in h:
            raise InputError(f"{key} needs {f!r}", rf.where(key))
    dice = int(combat[L.C_DICE])
    faces = np.zeros((L.N_FACES, L.F_COLS), dtype=np.int64)
    faces[:, L.F_NUMBER] = _ints(rf, f"{key}.numbers", h["numbers"], L.N_FACES, L.N_FACES)
    sym = h["symbols"]
    if not isinstance(sym, list) or len(sym) != L.N_FACES or not all(isinstance(s, str) for s in sym):
        raise InputError(f'{key}.symbols must be a list of {L.N_FACES} texts ("" for a face without one), not '
                         f"{show_value(sym)}", rf.where(f"{key}.symbols"))
    symbols: list[str] = []
    for i, s in enumerate(sym):
        if s == "":
            faces[i, L.F_SYMBOL] = L.NO_SYMBOL
            continue
        if not _SYMBOL.match(s):
            raise InputError(f"{key}.symbols[{i}]: {s!r} is not a symbol name (a letter, then letters, digits, _ "
                             "or -)", rf.where(f"{key}.symbols"))
        if s not in symbols:
            symbols.append(s)
        faces[i, L.F_SYMBOL] = symbols.index(s)
    if len(symbols) > L.MAX_SYMBOLS:
        raise InputError(f"{key}.symbols: {len(symbols)} different symbols, at most {L.MAX_SYMBOLS}",
                         rf.where(f"{key}.symbols"))
    row = np.zeros(L.H_COLS, dtype=np.int64)
    row[L.H_HP] = check_int(rf, f"{key}.hp", RANGES)
    row[L.H_DICE] = dice
    d = _table(rf, f"{key}.defense", h.get("defense", {"dice": 0}), "dice, block, counter")
    _only(rf, f"{key}.defense", d, HERO_DEFENSE_FIELDS)
    row[L.H_DEF_DICE] = check_int(rf, f"{key}.defense.dice", RANGES, d.get("dice", 0))
    for f, col in (("block", L.H_DEF_BLOCK), ("counter", L.H_DEF_COUNTER)):
        if f in d:
            row[col: col + L.N_FACES] = _ints(rf, f"{key}.defense.{f}", d[f], L.N_FACES, L.N_FACES)
    abs_ = _table(rf, f"{key}.abilities", h["abilities"], "one table per ability")
    if not 1 <= len(abs_) <= L.MAX_ABILITIES:
        raise InputError(f"{key}.abilities: 1..{L.MAX_ABILITIES} abilities, not {len(abs_)}",
                         rf.where(f"{key}.abilities"))
    rows, names = [], []
    for a, ab in abs_.items():
        r, n = _ability(rf, f"{key}.abilities.{a}", ab, symbols, faces[:, L.F_NUMBER].tolist(), dice)
        rows.append(r)
        names.append(n)
    return HeroSheet(name, _text(rf, f"{key}.name", h.get("name", name)), tuple(symbols), faces, np.stack(rows),
                     tuple(abs_), tuple(names), row)


def _monster(rf: RuleFile, name: str, m: Any) -> MonsterSheet:
    key = f"monsters.{name}"
    m = _table(rf, key, m, "name, hp, attack, inflicts, defense")
    _only(rf, key, m, MONSTER_FIELDS)
    for f in ("hp", "attack"):
        if f not in m:
            raise InputError(f"{key} needs {f!r}", rf.where(key))
    row = np.zeros(L.M_COLS, dtype=np.int64)
    row[L.M_HP] = check_int(rf, f"{key}.hp", RANGES)
    atk = _table(rf, f"{key}.attack", m["attack"], 'kind = "dice" or "pattern"')
    kind = atk.get("kind")
    if kind not in L.ATTACK_KINDS:
        raise InputError(f'{key}.attack.kind must be "dice" or "pattern", not {show_value(kind)}',
                         rf.where(f"{key}.attack"))
    row[L.M_ATK_KIND] = L.ATTACK_KINDS.index(kind)
    keys = ATTACK_FIELDS[kind]
    for k in atk:
        other = next((o for o, fields in ATTACK_FIELDS.items() if o != kind and k in fields), None)
        if k not in keys and other is not None:  # (a partial table merged over a shipped attack of the other kind)
            raise InputError(f'{key}.attack.{k} is a key of a {other} attack, this attack is kind = "{kind}": give '
                             f'the whole attack (attack = {{ kind = "{other}", '
                             f'{", ".join(f + " = ..." for f in ATTACK_FIELDS[other][1:])} }})',
                             rf.where(f"{key}.attack.{k}"))
    if kind == "dice":
        _only(rf, f"{key}.attack", atk, ATTACK_FIELDS["dice"])
        row[L.M_ATK_DICE] = check_int(rf, f"{key}.attack.dice", RANGES, atk.get("dice"))
        row[L.M_ATK_FACE: L.M_ATK_FACE + L.N_FACES] = _ints(rf, f"{key}.attack.damage", atk.get("damage"),
                                                           L.N_FACES, L.N_FACES)
    else:
        _only(rf, f"{key}.attack", atk, ATTACK_FIELDS["pattern"])
        pat = _ints(rf, f"{key}.attack.pattern", atk.get("pattern"), 1, L.MAX_PATTERN)
        row[L.M_PATTERN_LEN] = len(pat)
        row[L.M_PATTERN: L.M_PATTERN + len(pat)] = pat
    inf = _table(rf, f"{key}.inflicts", m.get("inflicts", {}), "poison, stun")
    _only(rf, f"{key}.inflicts", inf, ("poison", "stun"))
    row[L.M_POISON] = check_int(rf, f"{key}.inflicts.poison", RANGES, inf.get("poison", 0))
    row[L.M_STUN] = check_int(rf, f"{key}.inflicts.stun", RANGES, inf.get("stun", 0))
    d = _table(rf, f"{key}.defense", m.get("defense", {}), "dice, block")
    _only(rf, f"{key}.defense", d, ("dice", "block"))
    row[L.M_DEF_DICE] = check_int(rf, f"{key}.defense.dice", RANGES, d.get("dice", 0))
    if "block" in d:
        row[L.M_DEF_BLOCK: L.M_DEF_BLOCK + L.N_FACES] = _ints(rf, f"{key}.defense.block", d["block"], L.N_FACES,
                                                             L.N_FACES)
    elif row[L.M_DEF_DICE]:
        raise InputError(f"{key}.defense: a defensive roll needs block (damage blocked per face)",
                         rf.where(f"{key}.defense"))
    return MonsterSheet(name, _text(rf, f"{key}.name", m.get("name", name)), row)


def load_heroes(rules_path: str | Path | None = None, overrides: list[str] | None = None) -> DiceRules:
    """The combat chapter: the shipped rules, a user's file merged over them, ``--set`` overrides; validated
    (one ``InputError`` at ``file:line:column`` if bad) and packed into the tables of ``layout.py``."""
    rf = load_ruleset_file(DEFAULT_RULES, rules_path, overrides, OPEN_TABLES, WHOLE_TABLES)
    combat = _combat(rf)
    for k in RULINGS:
        _bool(rf, k)
    hs = rf.get("heroes")
    if not isinstance(hs, dict) or not hs:
        raise InputError("heroes: a table with at least one hero sheet", rf.where("heroes"))
    heroes = {name: _hero(rf, name, h, combat) for name, h in hs.items()}
    ms = rf.get("monsters")
    if not isinstance(ms, dict) or not ms:
        raise InputError("monsters: a table with at least one monster", rf.where("monsters"))
    monsters = {name: _monster(rf, name, m) for name, m in ms.items()}
    found = assume.check_plausible_within_valid(assume.from_ruleset(rf, rf.shipped, rf.users), RANGES)
    return DiceRules(combat, heroes, monsters, rf.path, dict(rf.overridden), found, rf.data)


# ============================================================================================ navigation ====
# The engine's part (rengine): [navigation], [items], [rooms.*], [deck.*] and the dungeon file, packed into the
# arrays of layout.py's navigation section, and the public ruleset object ``RoomsRules`` (``load_ruleset``).
OPEN_TABLES = (*OPEN_TABLES, "deck")  # a user's --rules file may add deck cards too
NAV_RANGES: Ranges = {
    "navigation.moves": (1, 10),
    "navigation.boots_moves": (1, 10),
    "navigation.turn_cap": (1, 200),
    "navigation.start_keys": (0, 20),
    "navigation.start_bombs": (0, 20),
    "navigation.start_potions": (0, 20),
    "navigation.start_gold": (0, 100),
    "navigation.mirror_uses": (1, 10),
    "navigation.trap_keys": (0, 5),
    "navigation.trap_dodge": (1, 7),
    "navigation.hp_cost": (1, 100),
    "items.potion_heal": (0, 100),
    "items.armor_hp": (0, 100),
    "items.forge_cost": (0, 100),
    "items.mend_heal": (0, 100),
    "items.mend_cost": (0, 100),
    "items.treasure_gold": (0, 100),
    "items.prices.*": (0, 100),
    "deck.*.count": (0, 20),
    "deck.*.gold": (0, 100),
    "deck.*.value": (0, 100),
    "race.players": (1, L.MAX_SEATS),
    "race.score_hp": (0, 100),
    "race.score_gold": (0, 100),
    "race.score_rooms": (0, 100),
}
#: The game's valid ranges, one table as every game declares (``rulesfile.range_of``, the rules-doc test, the
#: assumptions' check, ``tune`` and ``sweep`` through the loader): every number of the combat chapter, the
#: navigation, the items and the deck.
RANGES: Ranges = {**COMBAT_RANGES, **NAV_RANGES}
NAV_FIELDS = ("moves", "boots_moves", "turn_cap", "start_keys", "start_bombs", "start_potions", "start_gold",
              "hp_instead", "hp_with_item", "hp_cost", "mirror_uses", "orientation", "barrier", "warp_counts",
              "mirror_counts", "trap_keys", "trap_dodge", "dungeon")
ITEM_FIELDS = ("potion_heal", "armor_hp", "forge_cost", "mend_heal", "mend_cost", "treasure", "treasure_gold",
               "prices")
CARD_FIELDS = ("kind", "count", "doors", "hazard", "monsters", "gold", "value")
MAX_DECK = 200  #: cards in a deck at most (counts summed)


@dataclass
class RoomsRules:
    """A validated Rooms ruleset: the combat chapter (``dice_rules``), the navigation numbers (int64[N_SIZE]),
    the card table (int64[n_cards, CD_COLS]), the deck (card indices, ``count`` copies each), the dungeon."""

    dice_rules: DiceRules
    nav: np.ndarray
    cards: np.ndarray
    card_names: tuple[str, ...]
    deck: np.ndarray
    dungeon: Any  # board.Dungeon
    source: str
    overrides: dict[str, str] = field(default_factory=dict)
    assumptions: list[assume.Assumption] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def hero_names(self) -> tuple[str, ...]:
        return tuple(self.dice_rules.heroes)

    @property
    def monster_names(self) -> tuple[str, ...]:
        return tuple(self.dice_rules.monsters)

    @property
    def race_players(self) -> int:
        """Players in the race (``race.players``; 1 = the solo game)."""
        return int(self.nav[L.N_RACE_PLAYERS])

    @property
    def max_abilities(self) -> int:
        return max(len(h.ability_keys) for h in self.dice_rules.heroes.values())


def _flag(rf: RuleFile, key: str) -> int:
    v = rf.get(key)
    if not isinstance(v, bool):
        raise InputError(f"{key} must be true or false, not {show_value(v)}", rf.where(key))
    return int(v)


def _item(rf: RuleFile, key: str, v: Any, allowed: tuple[str, ...] = L.ITEMS) -> int:
    if v not in allowed:
        raise InputError(f"{key}: unknown item {show_value(v)} (items: {', '.join(allowed)})", rf.where(key))
    return allowed.index(v)


def _navigation(rf: RuleFile) -> np.ndarray:
    nav = np.zeros(L.N_SIZE, dtype=np.int64)
    for sect, fields in (("navigation", NAV_FIELDS), ("items", ITEM_FIELDS)):
        _only(rf, sect, _table(rf, sect, rf.get(sect), ", ".join(fields)), fields)
    for col, key in ((L.N_MOVES, "navigation.moves"), (L.N_BOOTS_MOVES, "navigation.boots_moves"),
                     (L.N_TURN_CAP, "navigation.turn_cap"), (L.N_KEYS, "navigation.start_keys"),
                     (L.N_BOMBS, "navigation.start_bombs"), (L.N_POTIONS, "navigation.start_potions"),
                     (L.N_GOLD, "navigation.start_gold"), (L.N_MIRROR_USES, "navigation.mirror_uses"),
                     (L.N_TRAP_KEYS, "navigation.trap_keys"), (L.N_TRAP_DODGE, "navigation.trap_dodge"),
                     (L.N_HP_COST, "navigation.hp_cost"),
                     (L.N_POTION_HEAL, "items.potion_heal"), (L.N_ARMOR_HP, "items.armor_hp"),
                     (L.N_FORGE_COST, "items.forge_cost"), (L.N_MEND_HEAL, "items.mend_heal"),
                     (L.N_MEND_COST, "items.mend_cost"), (L.N_TREASURE_GOLD, "items.treasure_gold")):
        nav[col] = check_int(rf, key, RANGES)
    for col, key in ((L.N_HP_INSTEAD, "navigation.hp_instead"), (L.N_HP_WITH_ITEM, "navigation.hp_with_item"),
                     (L.N_WARP_COUNTS, "navigation.warp_counts"), (L.N_MIRROR_COUNTS, "navigation.mirror_counts")):
        nav[col] = _flag(rf, key)
    ori = rf.get("navigation.orientation")
    if ori not in ("printed", "random"):
        raise InputError(f'navigation.orientation must be "printed" or "random", not {show_value(ori)}',
                         rf.where("navigation.orientation"))
    nav[L.N_ROTATE] = int(ori == "random")
    bar = rf.get("navigation.barrier")
    if bar not in ("entered", "both"):
        raise InputError(f'navigation.barrier must be "entered" or "both", not {show_value(bar)}',
                         rf.where("navigation.barrier"))
    nav[L.N_BARRIER_BOTH] = int(bar == "both")
    tr = rf.get("items.treasure")
    if not isinstance(tr, list) or len(tr) != 6:
        raise InputError(f"items.treasure must be a list of 6 items (a d6's faces), not {show_value(tr)}",
                         rf.where("items.treasure"))
    for i, v in enumerate(tr):
        nav[L.N_TREASURE + i] = _item(rf, "items.treasure", v)
    prices = _table(rf, "items.prices", rf.get("items.prices", {}), "item = price")
    _only(rf, "items.prices", prices, L.ITEMS[:-1])
    for k in prices:
        nav[L.N_PRICE + L.ITEMS.index(k)] = check_int(rf, f"items.prices.{k}", RANGES)
    return nav


def _card(rf: RuleFile, name: str, c: Any, monsters: tuple[str, ...]) -> np.ndarray:
    key = f"deck.{name}"
    c = _table(rf, key, c, ", ".join(CARD_FIELDS))
    _only(rf, key, c, CARD_FIELDS)
    row = np.zeros(L.CD_COLS, dtype=np.int64)
    kind = c.get("kind")
    if kind not in L.ROOM_KINDS:
        raise InputError(f"{key}.kind: unknown room kind {show_value(kind)}"
                         f"{nearest(str(kind), dict.fromkeys(L.ROOM_KINDS))}", rf.where(f"{key}.kind"))
    row[L.CD_KIND] = k = L.ROOM_KINDS.index(kind)
    doors = c.get("doors", "oooo")
    if not isinstance(doors, str) or len(doors) != 4 or any(ch not in L.DOOR_CHARS for ch in doors):
        raise InputError(f"{key}.doors must be 4 letters (north, east, south, west) of o (open), l (locked), "
                         f"w (wall), not {show_value(doors)}", rf.where(f"{key}.doors"))
    row[L.CD_DOOR:L.CD_DOOR + 4] = [L.DOOR_CHARS.index(ch) for ch in doors]
    hz = c.get("hazard", rf.get(f"rooms.{kind}.hazard", False))
    if not isinstance(hz, bool):
        raise InputError(f"{key}.hazard must be true or false, not {show_value(hz)}", rf.where(f"{key}.hazard"))
    row[L.CD_HAZARD] = int(hz)
    row[L.CD_GOLD] = check_int(rf, f"{key}.gold", RANGES, c.get("gold", 0))
    if k == L.K_WARP:
        row[L.CD_VALUE] = _item(rf, f"{key}.value", c.get("value", "bomb"))
    else:
        row[L.CD_VALUE] = check_int(rf, f"{key}.value", RANGES, c.get("value", 0))
    mons = c.get("monsters", [])
    fights = k in (L.K_MONSTER, L.K_BOUNTY, L.K_BOSS)
    # (the engine reads gold after a won fight and value in a trap, a fountain and a warp room only: given to
    # another kind of room, either was dropped in silence)
    if "gold" in c and not fights:
        raise InputError(f"{key}.gold: a {kind} room has no fight to win gold by (monster, bounty_hunter, boss rooms "
                         "do)", rf.where(f"{key}.gold"))
    if "value" in c and k not in (L.K_TRAP, L.K_FOUNTAIN, L.K_WARP):
        raise InputError(f"{key}.value: a {kind} room has no value (a trap's damage, a fountain's heal, a warp "
                         "room's cache item)", rf.where(f"{key}.value"))
    if not isinstance(mons, list) or len(mons) > L.MAX_ROOM_MONSTERS or (fights and not mons):
        raise InputError(f"{key}.monsters must be a list of 1..{L.MAX_ROOM_MONSTERS} monster keys for a {kind} "
                         f"room, not {show_value(mons)}", rf.where(f"{key}.monsters" if "monsters" in c else key))
    if mons and not fights:
        raise InputError(f"{key}.monsters: a {kind} room has no fight (monster, bounty_hunter, boss rooms do)",
                         rf.where(f"{key}.monsters"))
    row[L.CD_N_MON] = len(mons)
    row[L.CD_MON:L.CD_MON + L.MAX_ROOM_MONSTERS] = -1
    for i, m in enumerate(mons):
        if m not in monsters:
            raise InputError(f"{key}.monsters: unknown monster {show_value(m)}"
                             f"{nearest(str(m), dict.fromkeys(monsters))}", rf.where(f"{key}.monsters"))
        row[L.CD_MON + i] = monsters.index(m)
    return row


def _deck(rf: RuleFile, monsters: tuple[str, ...]) -> tuple[np.ndarray, tuple[str, ...], np.ndarray]:
    rooms = _table(rf, "rooms", rf.get("rooms", {}), "one table per room kind")
    _only(rf, "rooms", rooms, L.ROOM_KINDS)
    for k, v in rooms.items():
        _only(rf, f"rooms.{k}", _table(rf, f"rooms.{k}", v, "hazard"), ("hazard",))
        _flag(rf, f"rooms.{k}.hazard")
    d = rf.get("deck")
    if not isinstance(d, dict) or not d:
        raise InputError("deck: a table with at least one card", rf.where("deck"))
    rows = [_card(rf, n, c, monsters) for n, c in d.items()]
    names = tuple(d)
    deck = [i for i, n in enumerate(names) for _ in range(check_int(rf, f"deck.{n}.count", RANGES,
                                                                    d[n].get("count", 1)))]
    if len(deck) > MAX_DECK:
        raise InputError(f"deck: {len(deck)} cards, at most {MAX_DECK}", rf.where("deck"))
    return np.stack(rows), names, np.array(deck, dtype=np.int64)


def load_ruleset(rules_path: str | Path | None = None, overrides: list[str] | None = None,
                 dungeon: str | None = None, **options: Any) -> RoomsRules:
    """The whole Rooms ruleset: the combat chapter (``load_heroes``), the navigation numbers, the deck and the
    dungeon (``dungeon``: a shipped name or a file, else ``navigation.dungeon``); one ``InputError`` at
    ``file:line:column`` (or the option) when anything is wrong."""
    from .board import load_dungeon

    dice_rules = load_heroes(rules_path, overrides)
    rf = load_ruleset_file(DEFAULT_RULES, rules_path, overrides, OPEN_TABLES, WHOLE_TABLES)
    nav = _navigation(rf)
    cards, names, deck = _deck(rf, tuple(dice_rules.monsters))
    name = dungeon if dungeon else rf.get("navigation.dungeon")
    if not isinstance(name, str) or not name:
        raise InputError(f"navigation.dungeon must be a dungeon name or file, not {show_value(name)}",
                         rf.where("navigation.dungeon"))
    dg = load_dungeon(name, names, tuple(int(k) for k in cards[:, L.CD_KIND]), len(deck),
                      "--map" if dungeon else rf.where("navigation.dungeon"), _deck_where(rf, names, name))
    nav[L.N_ROWS] = dg.rows
    nav[L.N_COLS_] = dg.cols
    _race(rf, nav)
    found = assume.check_plausible_within_valid(dice_rules.assumptions, RANGES)
    return RoomsRules(dice_rules, nav, cards, names, deck, dg, rf.path, dict(rf.overridden), found, rf.data,
                      dict(options))


def _deck_where(rf: RuleFile, names: tuple[str, ...], dungeon: str) -> str | None:
    """Where a deck too small for a shipped dungeon's dealt cells is the user's doing: the first ``deck.*.count``
    a ``--set`` or the user's ``--rules`` file changed (None when the counts are the shipped ones, or the dungeon is
    the user's file: the error is then at the dungeon's cell)."""
    from .board import builtin_dungeons

    if dungeon not in builtin_dungeons() or not names:
        return None
    at = rf.blame(*(f"deck.{n}.count" for n in names))
    return None if at.startswith(rf.shipped.path) else at


def heroes(ruleset: RoomsRules) -> list[str]:
    return list(ruleset.hero_names)


# ================================================================================================= the race ====
RACE_FIELDS = ("players", "finish_round", "score_hp", "score_gold", "score_rooms")


def _race(rf: RuleFile, nav: np.ndarray) -> None:
    """``[race]`` into ``nav`` (docs/rules-rooms.md "The race"): players 1..4 (1 = the solo game), the deciding
    round played out or not, the tie-break score's weights."""
    _only(rf, "race", _table(rf, "race", rf.get("race"), ", ".join(RACE_FIELDS)), RACE_FIELDS)
    nav[L.N_RACE_PLAYERS] = check_int(rf, "race.players", RANGES)
    nav[L.N_RACE_FINISH_ROUND] = _flag(rf, "race.finish_round")
    for col, key in ((L.N_RACE_W_HP, "race.score_hp"), (L.N_RACE_W_GOLD, "race.score_gold"),
                     (L.N_RACE_W_ROOMS, "race.score_rooms")):
        nav[col] = check_int(rf, key, RANGES)
