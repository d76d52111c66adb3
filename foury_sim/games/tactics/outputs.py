"""Tactics' per-game outputs, declared once (see ``foury_sim.outputs``).

The kernel columns are listed in the order ``kernel.write_out`` fills them; ``layout`` derives the index
constants from this list. This module must not import the layout (the layout imports it).
"""

from __future__ import annotations

from typing import Any

from ...outputs import MEAN, NUMBER, NUMBERS, RATE, SHARES, Column, Outputs, SummaryKey

#: ``death_cause`` codes (layout.CAUSE_*; kept equal by tests/test_tactics_engine.py)
CAUSE_LABELS = ("none (won)", "monster", "chest trap", "electrified water", "turn cap", "lava", "??? potion")
CAUSE_TURN_CAP = 4


def killer_label(code: int, rules: Any = None) -> str:
    names = getattr(rules, "monster_names", None)
    if int(code) < 0:  # (a win, or a loss by another cause: ``death_cause`` says which)
        return "no monster"
    return str(names[int(code)]).replace("_", " ") if names is not None and int(code) < len(names) else str(code)


def _kinds(rules: Any) -> int:
    return len(rules.monster_names)


def _killer_codes(rules: Any) -> range:
    return range(-1, len(getattr(rules, "monster_names", ())))


COLUMNS = (
    Column("game", "Game index", index="OUT_GAME", doc="Index of the game in the stream of the seed."),
    Column("win", "Won", summary=RATE, index="OUT_WIN", doc="1 if the adventurer reached the exit.",
           legend="the adventurer reaches the exit tile alive"),
    Column("turns", "Player turns played", "turns", summary=MEAN, index="OUT_TURNS", distribution=True,
           doc="Player turns played (the last one included)."),
    Column("hp_left", "HP left", "HP", summary=MEAN, index="OUT_HP_LEFT", doc="The adventurer's HP at the end."),
    Column("death_cause", "How the game ended", index="OUT_DEATH_CAUSE", summary="category",
           categories=CAUSE_LABELS, doc="0 won, 1 slain by a monster, 2 a chest's trap, 3 electrified water, "
           "4 the turn cap (a loss, reported apart), 5 lava, 6 the gamble ??? potion.",
           legend="every game by how it ended: none (won), what took the adventurer's last HP, or the turn cap"),
    Column("killer", "Monster that dealt the last blow", index="OUT_KILLER", summary="category",
           categories=killer_label, codes=_killer_codes,
           doc="Monster table row of the killer (-1 no monster: won, or lost to a trap, water, lava, the ??? "
           "potion or the turn cap).",
           legend="every game by the monster that dealt the last blow (no monster: won, or lost another way)"),
    Column("death_cell", "Tile of the death", index="OUT_DEATH_CELL",
           doc="Tile (row * cols + column, 0-based) where the adventurer died, -1 none; the death heat map."),
    Column("kills", "Monsters slain", "monsters", summary=MEAN, index="OUT_KILLS"),
    Column("loot_found", "Items found", "items", summary=MEAN, index="OUT_LOOT",
           doc="Items rolled on the loot charts (kept, duplicate or over the stack)."),
    Column("items_used", "Items used", "items", summary=MEAN, index="OUT_USED",
           doc="Items consumed, equipped or used (magic)."),
    Column("ap_move", "AP spent moving", "AP", histogram=True, index="OUT_AP_MOVE"),
    Column("ap_attack", "AP spent attacking", "AP", histogram=True, index="OUT_AP_ATTACK"),
    Column("ap_interact", "AP spent interacting", "AP", histogram=True, index="OUT_AP_INTERACT"),
    Column("ap_use", "AP spent using and equipping items", "AP", histogram=True, index="OUT_AP_USE"),
    Column("resurrections", "Undead resurrected when looted", "monsters", index="OUT_RES"),
    Column("spawned", "Monsters the DM spawned", "monsters", summary=MEAN, index="OUT_SPAWNED"),
    Column("rests", "Turns rested", "turns", index="OUT_RESTS"),
    Column("bad_answers", "Out-of-range policy answers", index="OUT_BAD",
           doc="Answers of a policy outside its options (taken as option 0)."),
    Column("decisions", "Decisions taken", "decisions", index="OUT_DECISIONS", doc="Decisions of both sides."),
    Column("kills_kind{n}", "Monsters slain of a kind", "monsters", index="OUT_KILLS_KIND", repeat=_kinds,
           histogram=True, doc="Monsters of table row n (rules.toml order) slain by the adventurer."),
)

SUMMARY_KEYS = (
    SummaryKey("kills_by_kind", "kills by kind", NUMBERS, "Mean monsters slain per game, by kind."),
    SummaryKey("killed_by", "killed by", SHARES, "Share of lost games by the monster that dealt the last blow.",
               per="lost games",
               legend="lost games by the monster that dealt the last blow (other causes under `death cause`)"),
    SummaryKey("ap_by_action", "AP by action", NUMBERS, "Mean AP per game the adventurer spent, by action."),
    SummaryKey("dm_policy", "dungeon master", NUMBER, "The Dungeon Master's policy and its parameters (`--dm`).",
               text=lambda v, summary: str(v)),
)

OUTPUTS = Outputs(COLUMNS, SUMMARY_KEYS, turn_cap=("death_cause", CAUSE_TURN_CAP),
                  joint=(("win", "killer"),))  # killed_by: lost games by killer (``summarize_hists``)

__all__ = ["OUTPUTS", "COLUMNS", "SUMMARY_KEYS"]
