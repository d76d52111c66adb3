"""Rooms' per-game outputs, declared once (see ``foury_sim.outputs``).

The kernel columns are listed in the order ``kernel.write_out`` fills them; ``layout`` derives the index
constants from this list. This module must not import the layout (the layout imports it).
"""

from __future__ import annotations

from typing import Any

from ...outputs import MEAN, RATE, Column, Outputs

#: ``death_cause`` codes (layout.CAUSE_*)
CAUSE_LABELS = ("none (won)", "a fight", "a trap", "HP paid for a door or wall", "turn cap")
CAUSE_TURN_CAP = 4
#: room kinds (layout.ROOM_KINDS), for ``death_room`` and the resolved columns
KIND_WORDS = ("start", "monster", "trap", "treasure", "fountain", "blacksmith", "warp", "bounty_hunter", "shop",
              "boss")


def _death_room(code: int, rules: Any = None) -> str:
    return "none" if int(code) < 0 else KIND_WORDS[int(code)].replace("_", " ")


def _abilities(rules: Any) -> int:
    return int(getattr(rules, "max_abilities", 12))


COLUMNS = (
    Column("game", "Game index", index="OUT_GAME", doc="Index of the game in the stream of the seed."),
    Column("win", "Won", summary=RATE, index="OUT_WIN", doc="1 if the hero defeated the boss before the turn cap.",
           legend="the hero defeats the boss in time"),
    Column("turns", "Turns played", "turns", summary=MEAN, index="OUT_TURNS", distribution=True,
           doc="Turns played (the last one included)."),
    Column("hp_left", "HP left", "HP", summary=MEAN, index="OUT_HP_LEFT", doc="The hero's HP at the end (0 dead)."),
    Column("death_cause", "How the game ended", index="OUT_CAUSE", summary="category", categories=CAUSE_LABELS,
           doc="0 won, 1 died in a fight, 2 died in a trap, 3 died paying HP for a door or wall, 4 the turn cap (a "
           "loss, reported apart)."),
    Column("death_room", "Room kind of the death", index="OUT_DEATH_KIND", summary="category",
           categories=_death_room, codes=lambda rules: range(-1, len(KIND_WORDS)),
           doc="Room kind (layout.ROOM_KINDS) where the hero died, -1 did not die."),
    Column("rooms_entered", "Rooms entered", "rooms", summary=MEAN, index="OUT_ENTERED",
           doc="Rooms entered at least once (the start room not counted)."),
    Column("moves", "Moves made", "moves", summary=MEAN, index="OUT_MOVES",
           doc="Steps from room to room (warp and Mirror travel not counted unless the rules say so)."),
    Column("warps", "Warp travels", "warps", index="OUT_WARPS"),
    Column("mirror_uses", "Magic Mirror teleports", "teleports", index="OUT_MIRRORS"),
    Column("keys_spent", "Keys spent", "keys", summary=MEAN, index="OUT_KEYS_SPENT"),
    Column("bombs_spent", "Bombs spent", "bombs", summary=MEAN, index="OUT_BOMBS_SPENT"),
    Column("hp_spent", "HP paid instead of a key or bomb", "HP", summary=MEAN, index="OUT_HP_SPENT"),
    Column("potions_used", "Potions drunk", "potions", index="OUT_POTIONS_USED"),
    Column("gold_left", "Gold left", "gold", index="OUT_GOLD"),
    Column("fights", "Fights", "fights", summary=MEAN, index="OUT_FIGHTS", doc="Fights started."),
    Column("fights_won", "Fights won", "fights", index="OUT_FIGHTS_WON"),
    Column("damage_dealt", "Damage dealt in fights", "HP", summary=MEAN, index="OUT_DEALT",
           doc="HP the monsters lost, every fight of the game."),
    Column("damage_taken", "Damage taken in fights", "HP", summary=MEAN, index="OUT_TAKEN",
           doc="HP the hero lost in fights (traps and HP paid not counted)."),
    Column("bad_answers", "Out-of-range policy answers", index="OUT_BAD",
           doc="Answers of a policy outside its options (taken as option 0)."),
    Column("decisions", "Decisions taken", "decisions", index="OUT_DECISIONS"),
    *(Column(f"resolved_{k}", f"{k.replace('_', ' ').capitalize()} functions resolved", "rooms",
             index="OUT_RESOLVED" if i == 0 else None,
             doc=f"Functions of {k.replace('_', ' ')} rooms resolved (a two-function room counts each).")
      for i, k in enumerate(KIND_WORDS)),
    Column("fired{n}", "Times an ability fired", "times", index="OUT_FIRED", repeat=_abilities,
           doc="Times the hero's ability n (sheet order) fired, every fight of the game (0 past the sheet)."),
)

OUTPUTS = Outputs(COLUMNS, (), turn_cap=("death_cause", CAUSE_TURN_CAP))

__all__ = ["OUTPUTS", "COLUMNS"]
