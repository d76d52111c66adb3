"""Rooms' per-game outputs, declared once (see ``foury_sim.outputs``).

The kernel columns are listed in the order ``kernel.write_out`` fills them; ``layout`` derives the index
constants from this list. This module must not import the layout (the layout imports it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...outputs import (
    MEAN,
    NUMBERS,
    RATE,
    Column,
    Outputs,
    SummaryKey,
    hist_total,
    joint_key,
    mean_interval,
    ratio_interval,
)

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


def _race(rules: Any) -> bool:
    """The race's columns exist under ``race.players`` >= 2 only."""
    return rules is not None and int(getattr(rules, "race_players", 1)) > 1


def _seats(rules: Any) -> int:
    return int(getattr(rules, "race_players", 1))


#: The race (``layout.RE_*``, ``SEAT_*``; the layout imports this module, so the words are repeated here)
RACE_END_LABELS = ("not a race", "one player finished first", "same round, the best score won",
                   "same round and score: no winner", "same round, the first seat won", "every player died",
                   "turn cap")
SEAT_STATE_LABELS = ("still racing", "finished", "dead", "turn cap")


def _seat_label(code: int, rules: Any = None) -> str:
    return "no winner" if int(code) == 0 else f"seat {int(code)}"


def _first_seat_edge(df: Any) -> Any:
    """Over the race and its twin with the seats reversed (the same dice): wins of seat 1 minus wins of the last
    seat (-2..2)."""
    seats = sum(1 for c in df if str(c).startswith("race_turns"))  # (a table's columns or a dict's keys)
    w, ws = df["race_winner"], df["race_winner_swapped"]
    return (w == 1).astype("int64") + (ws == 1) - (w == seats) - (ws == seats)


#: The race's columns (``race.players`` >= 2; docs/rules-rooms.md "The race"): written by the kernel in a block
#: after the per-game columns (``layout.RC_*``), named by the driver (``race_frame``); the per-game columns above
#: describe seat 1's game (the solo game's dice, played to its end).
RACE_COLUMNS = (
    Column("race_winner", "Race winner (seat)", index=None, driver=True, only=_race, summary="category",
           categories=_seat_label, codes=lambda rules: range(0, _seats(rules) + 1),
           doc="Race: the seat that won (1..race.players), 0 no winner (every player dead, the turn cap, or a tie "
           "on the score)."),
    Column("race_end", "How the race ended", driver=True, only=_race, summary="category",
           categories=RACE_END_LABELS, doc="Race: 1 one player finished first, 2 several in the same round and the "
           "best score won, 3 the same best score (no winner), 4 several in the same round and the first seat won "
           "(race.finish_round = false), 5 every player died, 6 the turn cap."),
    Column("race_turn", "Round the race was decided", "turns", driver=True, only=_race, summary=MEAN,
           doc="Race: the round (turn number) after which the race was decided."),
    Column("race_winner_swapped", "Race winner with the seats reversed", driver=True, only=_race,
           categories=_seat_label, doc="Race: the seat that wins the same race (the same dungeons and dice) with "
           "the seat order reversed (computed from the same games: the players do not meet)."),
    Column("race_turns{n}", "Turns a seat played in the race", "turns", driver=True, only=_race, repeat=_seats,
           doc="Race: turns seat n played until the race was decided (its death turn if it died)."),
    Column("race_seat{n}", "Where a seat stood when the race was decided", driver=True, only=_race, repeat=_seats,
           categories=SEAT_STATE_LABELS, doc="Race: seat n when the race was decided: 0 still racing, 1 finished "
           "(defeated its boss in the deciding round), 2 dead, 3 the turn cap."),
    Column("race_score{n}", "A seat's tie-break score", "points", driver=True, only=_race, repeat=_seats,
           doc="Race: seat n's tie-break score when the race was decided (race.score_hp x HP + race.score_gold x "
           "gold + race.score_rooms x room functions resolved)."),
)

RACE_DERIVED = (
    Column("first_seat_edge", "First-seat edge over the reversed pair", summary=MEAN, only=_race,
           derive=_first_seat_edge, derive_arrays=True,
           doc="Race: over the race and its twin with the seats reversed (the same dice), "
           "wins of seat 1 minus wins of the last seat (-2..2); its mean / 2 is the first seat's edge."),
)


def race_frame(block: Any, rules: Any) -> dict[str, Any]:
    """The race's named columns from the kernel's race block (``layout.RC_*`` order: winner, end, swapped, turn,
    then 4 turns, 4 seat states, 4 scores)."""
    n = _seats(rules)
    cols = {"race_winner": block[:, 0], "race_end": block[:, 1], "race_turn": block[:, 3],
            "race_winner_swapped": block[:, 2]}
    for k, base in (("race_turns", 4), ("race_seat", 8), ("race_score", 12)):
        for s in range(n):
            cols[f"{k}{s + 1}"] = block[:, base + s]
    return cols


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
    Column("fight_turns", "Hero turns in fights", "turns", summary=MEAN, index="OUT_FIGHT_TURNS",
           doc="The hero's turns (offensive rolls, stunned ones included) over every fight of the game."),
    Column("most_dealt_fight", "Most damage dealt in one fight", "HP", summary=MEAN, index="OUT_MOST_DEALT",
           doc="The most HP the monsters lost in one fight of the game (0: no fight)."),
    Column("most_taken_fight", "Most damage taken in one fight", "HP", summary=MEAN, index="OUT_MOST_TAKEN",
           doc="The most HP the hero lost in one fight of the game: its hardest fight (0: no fight)."),
    Column("boss_taken", "Damage taken in the boss fight", "HP", summary=MEAN, index="OUT_BOSS_TAKEN",
           doc="HP the hero lost in the boss fight (0 when the boss was not fought)."),
    Column("death_cell", "Cell of the death", index="OUT_DEATH_CELL",
           doc="The dungeon cell (row * columns + column, from 0 at the top left) where the hero died, -1 did not "
           "die: a position of the grid (a dealt dungeon has another room there each game)."),
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

SUMMARY_KEYS = (
    SummaryKey("per_fight", "per fight", NUMBERS, "Damage dealt and taken and hero turns per fight: the sums over "
               "every fight of the run divided by the fights (`fights`), each with the delta-method interval of a "
               "ratio of sums over games (the games are the independent units), and the fights per game (t "
               "interval); the intervals in `mean_intervals`.",
               legend="per fight = totals over all fights / fights (the per-game columns sum a game's fights)"),
)

#: ``per_fight``'s ratios: label -> the per-game column summed over the games, divided by the fights
PER_FIGHT = {"dealt": "damage_dealt", "taken": "damage_taken", "hero turns": "fight_turns"}

OUTPUTS = Outputs(COLUMNS + RACE_COLUMNS + RACE_DERIVED, SUMMARY_KEYS, turn_cap=("death_cause", CAUSE_TURN_CAP),
                  joint=tuple((c, "fights") for c in PER_FIGHT.values()))  # (per_fight's intervals: sums of a x b)


def per_fight(hists: Mapping[str, tuple[np.ndarray, np.ndarray]], n: int) -> dict[str, float]:
    """``per_fight``: the run's totals over its fights, divided by the fights, from the columns' histograms over
    ``n`` games (exact integer sums)."""
    fights = hist_total(hists["fights"])
    if fights == 0:
        return {"fights/game": 0.0}
    return {"dealt": hist_total(hists["damage_dealt"]) / fights, "taken": hist_total(hists["damage_taken"]) / fights,
            "hero turns": hist_total(hists["fight_turns"]) / fights, "fights/game": fights / max(n, 1)}


def per_fight_intervals(hists: Mapping[str, tuple[np.ndarray, np.ndarray]], conf: float) -> dict[str, list[float]]:
    """The intervals (at ``conf``) of ``per_fight``'s figures: each ratio's delta-method interval over the games
    (``ratio_interval`` of the joint histogram of its column and ``fights``), the fights per game's t interval; only
    the figures ``per_fight`` gives (no ratio without a fight) and whose histograms the run has."""
    out = {"fights/game": mean_interval(hists["fights"], conf)}
    if hist_total(hists["fights"]) == 0:
        return out
    for label, column in PER_FIGHT.items():
        h = hists.get(joint_key(column, "fights"))
        if h is not None:
            out[label] = ratio_interval(h, conf)
    return {k: out[k] for k in (*PER_FIGHT, "fights/game") if k in out}  # (per_fight's order)


__all__ = ["OUTPUTS", "COLUMNS", "RACE_COLUMNS", "race_frame", "per_fight", "per_fight_intervals", "PER_FIGHT"]
