"""Dungeon Foury's per-game outputs, declared once (see ``foury_sim.outputs``).

The kernel columns are listed in the order ``kernel.write_out`` fills them; ``layout`` derives the
kernel's index constants (``OUT_WIN`` ...) from this list. Adding a column: one ``Column`` here and,
for a kernel column, the line of ``write_out`` that fills it. This module must not import the
layout (the layout imports it); labels that live there are looked up when needed.
"""

from __future__ import annotations

from typing import Any

from ...outputs import (
    CATEGORY,
    COUNTS,
    MEAN,
    NUMBERS,
    RATE,
    SHARE,
    Column,
    Outputs,
    SummaryKey,
    interval_text,
    mean_bracket,
    median_bracket,
)

SECTOR_LABELS = {0: "A", 1: "B", 2: "C", 3: "D", 4: "O", -1: "none"}
#: ``death_round``: the round of the first death, in order; 0 (never died) last
ROUND_LABELS = {1: "1", 2: "2", 3: "3", 4: "4", 0: "never"}


def cause_label(code: int, rules: Any = None) -> str:
    """Why a hero died or a game ended (``CAUSE_*``; a foe's code is ``CAUSE_FOE`` + its icon); 0: none."""
    from .trace import cause_name

    name = cause_name(int(code)) if rules is None else cause_name(int(code), rules.icons.names)
    return name or "none"


def unwinnable_label(code: int, rules: Any = None) -> str:
    from .layout import UNWIN_NAMES

    return (UNWIN_NAMES[int(code)] or "none") if 0 <= int(code) < len(UNWIN_NAMES) else str(code)


def room_label(code: int, rules: Any = None) -> str:
    """A room of the first death as the summary names it (``(row,column)``); -1: none."""
    if int(code) < 0:
        return "none"
    if rules is None:
        return str(int(code))
    from . import _room_name

    return _room_name(rules, int(code))


def _two_player(rules: Any) -> bool:
    """The 2-player mode's columns exist under ``two_player.players = 2`` only."""
    return rules is not None and getattr(rules, "players", 1) == 2


#: A 2-player game's winner, by seat (``p2_winner``, ``p2_winner_swapped``)
SEAT_LABELS = {1: "first player", 2: "second player", 0: "draw", -1: "not played"}


def p2_end_label(code: int, rules: Any = None) -> str:
    from .layout import P2E_NAMES

    return (P2E_NAMES[int(code)] or "none") if 0 <= int(code) < len(P2E_NAMES) else str(code)


def slaughter_end_label(code: int, rules: Any = None) -> str:
    from .layout import SL_END_NAMES

    return (SL_END_NAMES[int(code)] or "none") if 0 <= int(code) < len(SL_END_NAMES) else str(code)


def _level(s: dict[str, Any]) -> str:
    """The run's interval level as printed (``--conf``; 95 % when the summary does not say)."""
    return f"{100 * float(s.get('conf', 0.95)):g} %"


def _slaughter_score_text(v: dict[str, float], s: dict[str, Any]) -> str:
    """The Slaughter's score line; a bound the games cannot give (one game, too few for the median) is said as on
    every other number's line, also from a summary read back from its JSON (``null``)."""
    mean_iv = mean_bracket(v["score_mean_lo"], v["score_mean_hi"], s.get("games"))
    median_iv = median_bracket(v, "score_median_lo", "score_median_hi")
    return (f"mean {v['score_mean']:.2f} kills {mean_iv}, median {v['score_median']:g}{median_iv} ({_level(s)} "
            f"intervals); "
            f"Fury boxes used {v['fury_used']:.2f}, monsters the Fury erased {v['fury_kills']:.2f} (means)")


def _first_edge(df: Any) -> Any:
    w, s = df["p2_winner"], df["p2_winner_swapped"]
    return (w == 1).astype(int) - (w == 2).astype(int) + (s == 1).astype(int) - (s == 2).astype(int)


def santa_end_label(code: int, rules: Any = None) -> str:
    from .layout import SE_NAMES

    return (SE_NAMES[int(code)] or "none") if 0 <= int(code) < len(SE_NAMES) else str(code)


def _kraken(rules: Any) -> bool:
    """The Kraken's columns exist when the campaign's rules are on (``kraken.on``)."""
    if rules is None or not hasattr(rules, "R"):
        return False
    from .layout import R_KR_ON
    return int(rules.R[R_KR_ON]) == 1


def _kraken_end_label(code: int, rules: Any = None) -> str:
    from .layout import KRE_NAMES
    return KRE_NAMES[int(code)] if 0 <= int(code) < len(KRE_NAMES) else "not a Kraken game"


def order_label(code: int, rules: Any = None) -> str:
    """The sectors in the order played (``round_order`` 1243 -> ``A,B,D,C``); 0: none."""
    digits = str(int(code)) if int(code) > 0 else ""
    if not digits.isdigit():
        return str(code)
    return ",".join(SECTOR_LABELS.get(int(d) - 1, d) for d in digits) or "none"


def _strength_text(v: dict[str, int], s: dict[str, Any]) -> str:
    """``orc C=1, minotaur 3=5 (round A..D = the round played in that sector; 1..4 = the k-th round played)``."""
    shown = ", ".join(f"{k}={n}" for k, n in v.items())
    kinds = {k.rsplit(" ", 1)[1].isdigit() for k in v}
    means = []
    if False in kinds:
        means.append("A..D = the round played in that sector, whatever its place in the order")
    if True in kinds:
        means.append("1..4 = the k-th round played, whatever its sector")
    return f"{shown}  (round {'; '.join(means)})"


def _santa_rate_text(v: dict[str, float], s: dict[str, Any]) -> str:
    """``santa_rates``: each outcome's share with its Wilson interval at the run's level (``KEY low``, ``KEY high``)."""
    return "; ".join(f"{k} {100 * x:.1f} % [{100 * v[k + ' low']:.1f}, {100 * v[k + ' high']:.1f}]"
                     for k, x in v.items() if not k.endswith((" low", " high"))) + f"  ({_level(s)} Wilson intervals)"


#: What ``win`` means in a run's legend, by campaign (``--campaign``; None: a campaign file of a designer's own).
_WIN_LEGENDS = {
    "base": "games in which the hero completed all four rounds (continues allowed)",
    "inout": "games in which the hero completed all four rounds (continues allowed)",
    "slaughter": "none: the Slaughter has no victory, its score is the monsters killed (slaughter score)",
    "santa": "the XMas Safe Zone reached, or the collection goal held when the hourglass ran out",
    "kraken": "every requirement done and out by the exit opposite the last area, within the hourglass",
    None: "games won by the campaign's own victory (its campaign file and docs/rules.md)",
}


def _campaign_of(s: dict[str, Any]) -> str | None:
    """The campaign a run summary was played under (``base`` when none; None for a campaign file's path)."""
    name = s.get("provenance", {}).get("overrides", {}).get("options", {}).get("campaign", "base")
    return name if name in _WIN_LEGENDS else None


def _two_player_run(s: dict[str, Any]) -> bool:
    """A run summary of the 2-player mode: its own entries (the columns ``only=_two_player``) are there."""
    return "p2_winner" in s or "opponent_win" in s


#: What ``win`` and ``clean_win`` mean in the 2-player mode (docs/rules.md "2-player mode": one adventure each, no
#: continue; ``win`` is the run's hero's)
_P2_WIN_LEGEND = ("games the run's hero won: one adventure, no continue; the hero exited with the treasures before the "
                  "opponent (or in fewer turns), or outlived them")
_P2_CLEAN_LEGEND = "the same games as the win rate: the 2-player mode has no continue"


def _win_legend(s: dict[str, Any]) -> str:
    if _two_player_run(s):
        return _P2_WIN_LEGEND
    return _WIN_LEGENDS.get(_campaign_of(s), _WIN_LEGENDS[None])


def _clean_legend(s: dict[str, Any]) -> str:
    return _P2_CLEAN_LEGEND if _two_player_run(s) else "won without inserting a coin (a continue after a death)"


def _died_text(v: float, s: dict[str, Any]) -> str:
    return (f"{100 * v:.1f} %{interval_text(s, 'first_death_rate')} of games (continue used in "
            f"{100 * s.get('coins_used_rate', 0.0):.1f} %{interval_text(s, 'coins_used_rate')})")


COLUMNS = (
    Column("game", "Game index", doc="Index of the game in the stream of the seed (replay it with `--game`).",
           driver=True),
    Column("win", "Won", summary=RATE, index="OUT_WIN", doc="1 if the hero completed every round (a campaign: its own "
           "victory, docs/rules.md; the 2-player mode: the run's hero won).", legend=_win_legend),
    Column("clean_win", "Won without a continue", summary=RATE, index="OUT_CLEAN", key="win_without_continue",
           text="  without continue", doc="1 if won without inserting a coin.",
           legend=_clean_legend),
    Column("rounds_completed", "Rounds completed", summary=MEAN, index="OUT_ROUNDS"),
    Column("coins_used", "Continues used", "coins", histogram=True, index="OUT_COINS",
           doc="Coins inserted (continues after a death)."),
    Column("hearts_left", "Hearts left at the end", "hearts", summary=MEAN, index="OUT_HEARTS", report=False),
    Column("turns", "Game length", "turns", summary=MEAN, index="OUT_TURNS", distribution=True),
    Column("score", "Final score", "points", summary=MEAN, index="OUT_SCORE", distribution=True,
           doc="Final score: the sheet's elements at the end weighted by the `[score]` table; under the Slaughter of "
           "Monsters the campaign's own score, the monsters killed (= `slaughter_score`; `[score]` unused)."),
    Column("kills", "Monsters killed", "foes", summary=MEAN, index="OUT_KILLS", report=False),
    Column("chests_gained", "Chests gained", "chests", index="OUT_CHESTS"),
    Column("death_round", "Round of the first death", histogram=True, index="OUT_DEATH_ROUND",
           categories=ROUND_LABELS, ordered=True,
           doc="Round (1..4) of the first death; 0 = never died."),
    Column("death_sector", "Sector of the first death", index="OUT_DEATH_SECTOR", categories=SECTOR_LABELS,
           ordered=True, doc="Sector (A..D, O the Oracle) of the room of the first death; -1 = never died."),
    Column("death_cell", "Room of the first death", index="OUT_DEATH_CELL", categories=room_label,
           doc="Cell index (row * columns + column) of the room of the first death; -1 = never died. Labelled "
           "`(row,column)` as in the run summary's deadliest rooms."),
    Column("death_cause", "Cause of the first death", index="OUT_DEATH_CAUSE", categories=cause_label,
           doc="Cause of the first death: 0 none, 1 stuck, 2 turn cap, 3 die table, 100 + foe icon: that foe. "
           "Labelled with the cause in words (`stuck`, `killed by a goblin`, ...)."),
    Column("end_cause", "Why a lost game ended", index="OUT_END_CAUSE", categories=cause_label,
           doc="Cause that ended a lost game (codes and labels as `death_cause`; 0 none, for a win)."),
    Column("round_order", "Order of the sectors played", index="OUT_ORDER", categories=order_label,
           doc="Sectors in the order played, as digits 1..4 = A..D (e.g. 1243); labelled `A,B,D,C`."),
    *(Column(f"turns_r{r}", f"Turns of round {r}", "turns", index=f"OUT_TURNS_R{r}",
             doc=f"Turns of the {r}{('st', 'nd', 'rd', 'th')[r - 1]} completed round (0 = not completed).")
      for r in range(1, 5)),
    Column("dice_rolled", "Dice rolled", "dice", index="OUT_DICE", doc="Dice drawn from the game's stream."),
    Column("bad_choices", "Out-of-range policy answers", index="OUT_BAD", doc="Answers of a user policy outside "
           "its options (taken as option 0; any makes the run an error)."),
    Column("death_turn", "Turn of the first death", index="OUT_DEATH_TURN", doc="Game turn of the first death; 0 = "
           "never died."),
    Column("unwinnable_at_turn", "Turn the game became unwinnable", "turns", index="OUT_UNWIN_TURN",
           doc="First turn from which no sequence of legal moves wins (0 = never)."),
    Column("unwinnable_cause", "Why the game became unwinnable", index="OUT_UNWIN_CAUSE",
           categories=unwinnable_label, doc="0 none, 1 no arrows left right after an exit, 2 no arrows left, "
           "3 sealed in with no coin left."),
    # The Slaughter of Monsters (--campaign slaughter; docs/rules.md): 0 in every other game
    Column("slaughter_score", "Slaughter score (monsters killed)", "kills", histogram=True, index="OUT_SL_SCORE",
           doc="The Slaughter of Monsters: the score, monsters killed (those a full Fury track erased included); "
           "0 in other games."),
    Column("fury_used", "Fury boxes blacked out", "boxes", histogram=True, index="OUT_FURY_USED",
           doc="The Slaughter of Monsters: Fury boxes blacked out instead of losses (0 in other games)."),
    Column("fury_kills", "Monsters the Fury erased", "kills", histogram=True, index="OUT_FURY_KILLS",
           doc="The Slaughter of Monsters: monsters erased when the Fury track filled (0 in other games)."),
    Column("slaughter_end", "How the Slaughter ended", histogram=True, index="OUT_SL_END",
           categories=slaughter_end_label,
           doc="The Slaughter of Monsters: 1 died, 2 the Fury prevailed (track full), 3 stuck, 4 every monster "
           "slain, 5 turn cap; 0 in other games."),
    # Santa Crash'n Foury (santa.on, --campaign santa; docs/rules.md "Santa Crash'n Foury"): 0 in the base game,
    # summarised (SUMMARY_KEYS santa_*) only when the campaign is on
    Column("santa_end", "How the Santa campaign ended", histogram=True, index="OUT_SANTA_END",
           categories=santa_end_label,
           doc="Santa Crash'n Foury: 0 not played (the base game), 1 won by reaching the XMas Safe Zone, 2 won "
           "by the collection goal (met when the hourglass ran out), 3 lost: survived Santa's Wrath, 4 lost: "
           "killed by Santa's Wrath, 5 lost: died in the dungeon."),
    Column("santa_goal", "Collection goal met", histogram=True, index="OUT_SANTA_GOAL",
           doc="Santa Crash'n Foury: 1 if the collection held the goal (santa.goal) at the end."),
    Column("santa_full", "Full collection", histogram=True, index="OUT_SANTA_FULL",
           doc="Santa Crash'n Foury: 1 if the collection grid was complete at the end (santa.full: the true Hero "
           "of Christmas)."),
    *(Column(f"santa_{key}", f"{name} collected", unit, histogram=True, index=f"OUT_SANTA_{key.upper()}",
             doc=f"Santa Crash'n Foury: {name} held at the end.")
      for key, name, unit in (("reindeer", "Reindeer", "reindeer"), ("rudolph", "Rudolph", "Rudolph"),
                              ("green", "Green packages", "packages"), ("blue", "Blue packages", "packages"),
                              ("sleigh", "Sleigh", "sleigh"))),
    Column("santa_marks", "Hourglass spaces marked", "turns", histogram=True, index="OUT_SANTA_MARKS",
           doc="Santa Crash'n Foury: hourglass spaces marked (one per turn, the start's included)."),
    Column("santa_wrath_hearts", "Hearts lost to Santa's Wrath", "hearts", histogram=True, index="OUT_SANTA_WRATH",
           doc="Santa Crash'n Foury: hearts Santa's attacks took after the hourglass ran out."),
    Column("santa_packages_lost", "Packages destroyed", "packages", histogram=True, index="OUT_SANTA_LOST",
           doc="Santa Crash'n Foury: packages the Grinch and the Yeti destroyed."),
    Column("santa_canes_given", "Candy canes given", "canes", histogram=True, index="OUT_SANTA_CANES",
           doc="Santa Crash'n Foury: candy canes given to the Grinch or the Yeti (each leaves the map, no kill)."),
    # the 2-player mode (two_player.players = 2; docs/rules.md "2-player mode"): the columns above describe the
    # run's hero (--hero), these the game of both players
    Column("p2_winner", "Winner (seat)", index="OUT_P2_WINNER", summary=CATEGORY, categories=SEAT_LABELS,
           only=_two_player, doc="2-player mode: the seat that won (1 first player, 2 second player, 0 draw)."),
    Column("p2_end", "How the 2-player game ended", index="OUT_P2_END", summary=CATEGORY, categories=p2_end_label,
           only=_two_player, doc="2-player mode: 1 a player exited with the treasures, 2 a player outlived the "
           "other, 3 both exited in the same round of turns (fewer turns wins), 4 both died in it, 5 turn cap."),
    Column("p2_turns_first", "Turns of the first player", "turns", index="OUT_P2_TURNS1", summary=MEAN,
           only=_two_player, doc="2-player mode: hourglass marks of the player in seat 1."),
    Column("p2_turns_second", "Turns of the second player", "turns", index="OUT_P2_TURNS2", summary=MEAN,
           only=_two_player, doc="2-player mode: hourglass marks of the player in seat 2."),
    Column("p2_chests_first", "Chests of the first player", "chests", index="OUT_P2_CHESTS1", summary=MEAN,
           only=_two_player, doc="2-player mode: chests (treasures) the first player holds at the end."),
    Column("p2_chests_second", "Chests of the second player", "chests", index="OUT_P2_CHESTS2", summary=MEAN,
           only=_two_player, doc="2-player mode: chests (treasures) the second player holds at the end."),
    Column("p2_duels", "Duels", "duels", index="OUT_P2_DUELS", summary=MEAN, only=_two_player,
           doc="2-player mode: duels between the players in the game."),
    Column("opponent_win", "Opponent won", index="OUT_P2_OPP_WIN", summary=RATE, only=_two_player,
           doc="2-player mode: 1 if the opponent (two_player.opponent) won; `win` is the run's hero's.",
           legend="games the opponent won (the rest of the games not won by the hero are draws)"),
    Column("p2_winner_swapped", "Winner with the seats swapped", index="OUT_P2_SWAPPED", categories=SEAT_LABELS,
           only=_two_player, doc="2-player mode: the seat that won the same game index (the same dice) played "
           "with the players' seats swapped (two_player.swap_seats; -1 not played)."),
    # Discovering the Kraken (kraken.on; docs/rules.md "Discovering the Kraken"): the campaign's own outcomes, in
    # the kernel's array only in a Kraken game, right after the columns every game has (layout.KR_OUT)
    Column("kr_end", "How the Kraken game ended", summary=CATEGORY, categories=_kraken_end_label,
           only=_kraken, doc="Discovering the Kraken: 0 won, 1 drowned (one swim too many), 2 killed by the Kraken, "
           "3 the hourglass ran out, 4 another death (a foe, the DIE table, stuck, the turn cap)."),
    Column("kr_requirements", "Requirements done", "requirements", summary=MEAN, only=_kraken,
           doc="Discovering the Kraken: areas whose requirement was completed (0..4)."),
    Column("kr_flood", "Rooms of the Kraken's water at the end", "rooms", summary=MEAN,
           only=_kraken, doc="Discovering the Kraken: flooded rooms connected to the Kraken (its own room "
           "included) when the game ended."),
    Column("kr_fights", "Kraken fights", "fights", summary=MEAN, only=_kraken,
           doc="Discovering the Kraken: times the hero faced the Kraken (swimming in its water, or reached by it)."),
    Column("kr_market", "Rate of the market visit", "x", summary=MEAN, only=_kraken,
           doc="Discovering the Kraken: the rate (requirements done) of the one market visit; 0 = no visit."),
    Column("unwinnable", "Became unwinnable", summary=RATE, text="became unwinnable",
           note="no entry/exit left for a round, or sealed in", derive=lambda df: df["unwinnable_at_turn"] > 0,
           derive_arrays=True,
           doc="1 if the game reached a state from which no sequence of legal moves wins.",
           legend="from some turn on, no sequence of legal moves could win any more (the game played on to its loss)"),
    Column("first_seat_edge", "First-seat edge over the swapped pair", summary=MEAN, only=_two_player,
           derive=_first_edge, derive_arrays=True,
           doc="2-player mode: over the game and its seat-swapped twin (same dice), wins of "
           "the first seat minus wins of the second (-2..2); its mean / 2 is the first-player advantage.",
           legend=""),
)

SUMMARY_KEYS = tuple(SummaryKey(k, k.replace("_", " "), COUNTS, doc) for k, doc in (
    ("rounds_completed_dist", "Games by rounds completed."),
    ("death_by_round", "First deaths by round: 1..4 = the 1st..4th round played (play order; "
     "`death_by_sector` names the sector)."),
    ("death_by_sector", "First deaths by sector."),
)) + (
    SummaryKey("death_by_cause", "death by cause", COUNTS, "First deaths by cause.",
               finding="Most common causes of the first death (all cells together)",
               legend="shares of all games; stuck = walls collapsed around the hero, no way out"),
    *(SummaryKey(k, k.replace("_", " "), COUNTS, doc) for k, doc in (
        ("loss_by_cause", "Lost games by the cause that ended them."),
        ("unwinnable_by_cause", "Games that became unwinnable, by why."),
        ("deadliest_rooms", "The five rooms with the most first deaths, named as on the rendered map: sector "
         "letter and (row,column) counted from 1 at the top left, e.g. B (2,8)."),
    )),
    SummaryKey("first_death_rate", "died at least once", SHARE, "Share of games in which the hero died at "
               "least once.", text=_died_text, report="Died at least once", per="games",
               finding="The hero dies at least once in"),
    SummaryKey("coins_used_rate", "continue used", SHARE, "Share of games with a continue.", hidden=True,
               per="games"),
    SummaryKey("slaughter_score", "slaughter score", NUMBERS, "The Slaughter of Monsters (only then): the score "
               "(monsters killed) per game, mean with its t interval and median with its order-statistic interval "
               "(at the run's level, `--conf`: 95 % by default), and the means of Fury boxes blacked out and "
               "monsters the Fury erased.",
               text=_slaughter_score_text),
    SummaryKey("slaughter_end", "slaughter ended", COUNTS, "The Slaughter of Monsters (only then): games by how "
               "they ended (died, the Fury prevailed, stuck, every monster slain, turn cap)."),
    # Santa Crash'n Foury (only when the campaign is on: santa.on)
    SummaryKey("santa_outcomes", "santa outcomes", COUNTS, "Santa Crash'n Foury: games by how the campaign ended "
               "(the Safe Zone, the collection goal, Santa's Wrath survived or not, died in the dungeon).",
               finding="Most common ends of the Santa campaign"),
    SummaryKey("santa_rates", "santa rates", NUMBERS, "Santa Crash'n Foury: share of games [Wilson interval "
               "at the run's level, `--conf`: 95 % by default] won by the Safe Zone, won by the collection goal, "
               "ended by the hourglass (the Wrath survived or not), with the goal met and with the full collection "
               "at the end; `KEY low` / `KEY high`: the interval's ends.",
               text=_santa_rate_text),
    SummaryKey("santa_collected", "santa collected", NUMBERS, "Santa Crash'n Foury: mean of each collectible held "
               "at the end, hourglass spaces marked, hearts lost to the Wrath, packages destroyed, canes given; "
               "the means' t intervals in `mean_intervals`."),
    SummaryKey("monster_strength", "monster strength", NUMBERS, "The strength cells the ruleset sets "
               "(`enemies.X.strength`), e.g. `orc C` = 1: the key A..D names the round played in that sector, 1..4 "
               "the k-th round played (docs/rules.md, \"Monster strength by round\"); only when some are set.",
               text=_strength_text),
)

OUTPUTS = Outputs(
    COLUMNS, SUMMARY_KEYS,
    figures=(("survival_by_round", "death_round"), ("survival_by_turn", "death_turn")),
    turn_cap=("end_cause", 2),  # layout.CAUSE_TIMEOUT (checked by tests/test_outputs.py)
    # the own entries counting games by two columns (``summarize_hists``): first deaths by sector, cause and room,
    # lost games by cause, unwinnable games by why
    joint=(("death_round", "death_sector"), ("death_round", "death_cause"), ("death_round", "death_cell"),
           ("win", "end_cause"), ("unwinnable_at_turn", "unwinnable_cause")),
)

__all__ = ["OUTPUTS", "COLUMNS", "SUMMARY_KEYS"]
