"""Dungeon Foury map icons and sectors: the codes shared by the map files, the rules and the plots.

Items and fixtures are fixed icons (their rules are code). Foes are data: every entry of the
ruleset's ``[enemies]`` table takes one slot of the foe range ``FOE_FIRST .. FOE_FIRST + MAX_FOES``
in table order (the order foes in one room are faced in), with its map character, strength and
traits (``ruleset.py`` validates them). The foe names below are the shipped ruleset's, for code
that has no ruleset at hand (the ``map`` verbs, the play report); a ruleset's own table is
``FouryRules.icons``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

# Sectors (room colours). The Oracle's room is its own sector; VOID is solid rock (no room).
VOID = -1
SECTOR_A, SECTOR_B, SECTOR_C, SECTOR_D, ORACLE = 0, 1, 2, 3, 4
SECTOR_CHARS = "ABCDO"
SECTOR_NAMES = ("The Temple", "The Palace Rooms", "The Castle Cliff", "The Waterways", "The Oracle")

# Directions of travel and room sides.
N, E, S, W = 0, 1, 2, 3
DIR_NAMES = ("north", "east", "south", "west")
DR = (-1, 0, 1, 0)
DC = (0, 1, 0, -1)

# Icons. Items are collected (and removed) after a won encounter; fixtures stay; foes are fought.
CHEST, POTION, SHOVEL, WEAPON, SHIELD, CLOVER, CORNUCOPIA, DIE = 0, 1, 2, 3, 4, 5, 6, 7
CIRCLE, STAIRS, LEVER, TUNNEL = 8, 9, 10, 11
ITEMS = (CHEST, POTION, SHOVEL, WEAPON, SHIELD, CLOVER, CORNUCOPIA, DIE)
FIXTURES = (CIRCLE, STAIRS, LEVER, TUNNEL)
FIXED_CHARS = "cpswhfudoSL~"
FIXED_NAMES = ("chest", "potion", "shovel", "weapon", "shield", "four-leaf clover", "cornucopia", "die",
               "magic circle", "stone staircase", "lever", "flooded tunnel")
FIXED_KEYS = ("chest", "potion", "shovel", "weapon", "shield", "clover", "cornucopia", "die",
              "circle", "stairs", "lever", "tunnel")
#: Characters a map uses for something else: no icon, the Oracle's decoration.
RESERVED_CHARS = ". *"

# Foe slots: the ruleset's [enemies] in table order; unused slots stay empty on every map.
FOE_FIRST = len(FIXED_CHARS)
MAX_FOES = 12
NO_CHAR = "\0"  # the map character of an unused foe slot (never in a map file)

# Campaign items (docs/rules.md, "Campaigns"): after the foe slots, so that no icon number of the base game
# moves. The coloured potions of "In and Out with Your Strength" (and of the Slaughter and the Kraken): healed
# hearts by ruleset (potions.yellow, potions.purple), then one free step (potions.coloured_step).
CAMPAIGN_FIRST = FOE_FIRST + MAX_FOES
YELLOW_POTION, PURPLE_POTION = CAMPAIGN_FIRST, CAMPAIGN_FIRST + 1
# The Slaughter of Monsters: the black start triangle at the centre of its map (a fixture: never collected).
START = CAMPAIGN_FIRST + 2
# Santa Crash'n Foury (santa.on): a star (free steps), the collectibles (reindeer, Rudolph, green and blue
# packages, the sleigh), candy canes, and the XMas Safe Zone (a place, not an item: the ruleset takes its cell).
STAR, REINDEER, RUDOLPH, GREEN_PACKAGE, BLUE_PACKAGE, SLEIGH, CANDY_CANE, SAFE_ZONE = range(
    CAMPAIGN_FIRST + 3, CAMPAIGN_FIRST + 11)
SANTA_ICONS = (STAR, REINDEER, RUDOLPH, GREEN_PACKAGE, BLUE_PACKAGE, SLEIGH, CANDY_CANE, SAFE_ZONE)
#: campaign icons that are items (collected, erased by an imp); the Safe Zone never lies on a played map (its
#: cell is a rule), the start triangle is a fixture
CAMPAIGN_ITEMS = (YELLOW_POTION, PURPLE_POTION, *SANTA_ICONS)
#: every item icon (collected, erased by an imp; a room's ``RM_ITEMS`` counts them): the base game's, the campaigns'
ALL_ITEMS = (*ITEMS, *CAMPAIGN_ITEMS)
CAMPAIGN_CHARS = "yv" + "1" + "xkRGBKJX"
CAMPAIGN_NAMES = ("yellow potion", "purple potion") + ("start triangle",) + (
    "star", "reindeer", "Rudolph", "green package", "blue package", "sleigh", "candy cane", "XMas Safe Zone")
CAMPAIGN_KEYS = ("yellow_potion", "purple_potion") + ("start",) + (
    "star", "reindeer", "rudolph", "green_package", "blue_package", "sleigh", "candy_cane", "safe_zone")
CAMPAIGN_GLYPHS = ("Yellow", "Purple") + ("Start",) + (  #: labels drawn in a room (``map render``)
    "Star", "Reindeer", "Rudolph", "Green", "Blue", "Sleigh", "Cane", "SAFE")
N_ICONS = CAMPAIGN_FIRST + len(CAMPAIGN_CHARS)


def is_foe(icon: int) -> bool:
    return FOE_FIRST <= icon < CAMPAIGN_FIRST


@dataclass(frozen=True)
class IconTable:
    """Per icon (N_ICONS entries): map character, name in reports, ruleset key.

    A spare foe slot has no character (NO_CHAR), no key and a placeholder name (for reports that name
    icons from the shipped table while a ruleset adds enemies: they then say "enemy of slot 19").
    """

    chars: str
    names: tuple[str, ...]
    keys: tuple[str, ...]

    @classmethod
    def with_foes(cls, foes: list[tuple[str, str, str]]) -> IconTable:
        """From the foes' (key, char, name) in slot order."""
        spare = range(FOE_FIRST + len(foes), CAMPAIGN_FIRST)
        return cls(FIXED_CHARS + "".join(c for _, c, _ in foes) + NO_CHAR * len(spare) + CAMPAIGN_CHARS,
                   FIXED_NAMES + tuple(n for _, _, n in foes) + tuple(f"enemy of slot {i}" for i in spare)
                   + CAMPAIGN_NAMES,
                   FIXED_KEYS + tuple(k for k, _, _ in foes) + ("",) * len(spare) + CAMPAIGN_KEYS)

    def foe(self, key: str) -> int:
        """The icon of the foe with ruleset key ``key``."""
        return self.keys.index(key, FOE_FIRST, CAMPAIGN_FIRST)

    @property
    def used(self) -> list[int]:
        """Icons that have a map character (fixed icons and the foes of this table)."""
        return [i for i in range(N_ICONS) if self.chars[i] != NO_CHAR]

    @property
    def shown_chars(self) -> str:
        return " ".join(self.chars[i] for i in self.used)


def _shipped_foes() -> list[tuple[str, str, str]]:
    """(key, char, name) of the shipped ruleset's enemies, in table order (validated by ruleset.py)."""
    with open(Path(__file__).parent / "data" / "rules.toml", "rb") as f:
        enemies = tomllib.load(f)["enemies"]
    return [(k, v["char"], v.get("name", k)) for k, v in enemies.items() if isinstance(v, dict)]


SHIPPED = IconTable.with_foes(_shipped_foes())
#: One character per icon in map files (NO_CHAR for an unused foe slot).
ICON_CHARS = SHIPPED.chars
ICON_NAMES = SHIPPED.names
#: Short keys used in ruleset files.
ICON_KEYS = SHIPPED.keys
assert len(ICON_CHARS) == N_ICONS == len(ICON_NAMES) == len(ICON_KEYS)
