"""Dungeon Foury map icons and sectors: the codes shared by the map files, the rules and the plots."""

from __future__ import annotations

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
STATUE, GOBLIN, ORC, IMP, BANDIT, TROLL, MINOTAUR = 12, 13, 14, 15, 16, 17, 18
N_ICONS = 19

ITEMS = (CHEST, POTION, SHOVEL, WEAPON, SHIELD, CLOVER, CORNUCOPIA, DIE)
FIXTURES = (CIRCLE, STAIRS, LEVER, TUNNEL)
MONSTERS = (GOBLIN, ORC, IMP, BANDIT, TROLL, MINOTAUR)
FOES = (STATUE,) + MONSTERS

#: One character per icon in map files.
ICON_CHARS = "cpswhfudoSL~TgribtM"
ICON_NAMES = (
    "chest", "potion", "shovel", "weapon", "shield", "four-leaf clover", "cornucopia", "die",
    "magic circle", "stone staircase", "lever", "flooded tunnel",
    "statue", "goblin", "orc", "imp", "bandit", "troll", "minotaur",
)
#: Short keys used in ruleset files.
ICON_KEYS = (
    "chest", "potion", "shovel", "weapon", "shield", "clover", "cornucopia", "die",
    "circle", "stairs", "lever", "tunnel",
    "statue", "goblin", "orc", "imp", "bandit", "troll", "minotaur",
)
assert len(ICON_CHARS) == N_ICONS == len(ICON_NAMES) == len(ICON_KEYS)
