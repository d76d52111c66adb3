"""Delve's per-game outputs, declared once (see ``foury_sim.outputs``).

The kernel columns are listed in the order ``kernel.write_out`` fills them (``out[A.OUT_..., g]``);
``layout`` derives the index constants from this list. Adding a column: one ``Column`` here and, for a
kernel column, the line of ``write_out`` that fills it. This module must not import the layout (the
layout imports it).
"""

from __future__ import annotations

from typing import Any

from ...outputs import MEAN, NUMBER, NUMBERS, RATE, SHARE, SHARES, Column, Outputs, SummaryKey


def rank_label(code: int, rules: Any = None) -> str:
    names = getattr(rules, "rank_names", None)
    return str(names[int(code)]) if names is not None and 0 <= int(code) < len(names) else str(code)


def _ranks(rules: Any) -> range:
    """Every rank's code (0 .. ranks - 1) of the ruleset: the ordered categories of ``rank``."""
    names = getattr(rules, "rank_names", None)
    return range(len(names) if names is not None else 0)


def _delves(rules: Any) -> int:
    from .ruleset import R_DELVES

    return int(rules.rules[R_DELVES])


COLUMNS = (
    Column("game", "Game index", index="OUT_GAME", doc="Index of the game in the stream of the seed."),
    Column("win", "Won", summary=RATE, index="OUT_WIN", doc="1 if the score reached the winning rank.",
           legend="the final score reaches the winning rank (`score.win_rank`; by default Village Hero, 16+ points)"),
    Column("score", "Final score", "points", summary=MEAN, index="OUT_SCORE", distribution=True,
           doc="Experience plus treasure points at the end.",
           legend="experience plus the points of the treasures held after the last delve"),
    Column("xp", "Experience", "XP", summary=MEAN, index="OUT_XP", doc="Experience earned (score without treasures)."),
    Column("treasures", "Treasures held at the end", "tokens", summary=MEAN, index="OUT_TREASURES"),
    Column("rank", "Rank reached", index="OUT_RANK", categories=rank_label, ordered=True, codes=_ranks, histogram=True,
           doc="Index of the rank the score reaches (`score.ranks`); labelled with the rank's name, in order."),
    Column("fled", "Delves fled", "delves", summary=MEAN, index="OUT_FLED",
           legend="delves per game in which the party fled the dungeon (losing that delve's retire XP)"),
    Column("portals", "Delves ended through a Town Portal", "delves", index="OUT_PORTALS", histogram=True),
    Column("retired", "Delves ended by retiring", "delves", index="OUT_RETIRED"),
    Column("dragons_slain", "Dragons slain", "dragons", summary=MEAN, index="OUT_SLAIN"),
    Column("dragons_faced", "Dragons faced", "dragons", index="OUT_FACED"),
    Column("chests", "Chests opened", "chests", index="OUT_CHESTS"),
    Column("treasures_won", "Treasure tokens gained", "tokens", index="OUT_TREASURES_WON"),
    Column("master", "Hero turned master", index="OUT_MASTER", histogram=True,
           doc="1 once the hero turned to its master side."),
    Column("bad_answers", "Out-of-range policy answers", index="OUT_BAD",
           doc="Answers of a policy outside its options (taken as option 0)."),
    Column("decisions", "Decisions taken", "decisions", index="OUT_DECISIONS"),
    Column("delve{n}_level", "Level reached in a delve", "level", index="OUT_DELVE_LEVEL", repeat=_delves,
           histogram=True, doc="Level reached in delve n (one column per delve of the ruleset)."),
)

SUMMARY_KEYS = (
    SummaryKey("flee_rate", "flee rate", SHARE, "Delves fled per delve played (its interval: the Wilson score interval "
               "over the games of each game's share of its delves fled; a game's delves are not independent).",
               legend="share of all delves played that the party fled"),
    SummaryKey("portal_rate", "portal rate", SHARE, "Delves ended through a Town Portal per delve played (its "
               "interval as the flee rate's).",
               legend="share of all delves ended by a Town Portal (a treasure used instead of fleeing; XP = level)"),
    SummaryKey("dragons_slain_per_game", "dragons slain/game", NUMBER, "Mean dragons slain per game."),
    SummaryKey("master_share", "master share", SHARE, "Share of games in which the hero turned master.", per="games",
               legend="games in which the hero turned to its master side (at `xp.master_at` XP)"),
    SummaryKey("rank_share", "rank share", SHARES, "Share of games by rank reached.", per="games",
               legend="games by the rank their final score reaches (`score.ranks`, `score.rank_thresholds`)"),
    SummaryKey("mean_level", "mean level", NUMBERS, "Mean level reached in each delve.",
               legend="mean dungeon level reached in each delve (delve1 = the first)"),
)

OUTPUTS = Outputs(COLUMNS, SUMMARY_KEYS)

__all__ = ["OUTPUTS", "COLUMNS", "SUMMARY_KEYS"]
