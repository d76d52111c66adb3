"""The words of Foury's trace codes (``layout.TR_*``): one table, rendered by ``trace_format``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ... import search as S
from ...trace_format import TraceCode, TraceTable, a, count, singular
from . import icons as I
from . import layout as L
from .board import room_name
from .layout import (
    CAUSE_FOE,
    CAUSE_NAMES,
    DIE_WORDS,
    EV_BEHIND,
    EV_CHEST,
    EV_EXTRA,
    EV_FRONT,
    EV_LEFT,
    EV_MONSTER,
    EV_PREV_COLLAPSE,
    EV_PREV_FLOOD,
    EV_RIGHT,
    M_BUY,
    M_REDEEM,
    M_SWAP,
    MK_STAIRS,
    MK_SWIM,
    RR_DIE,
    RR_NAMES,
    RR_SPAWN,
    TR_AWAKE,
    TR_BLOCK,
    TR_CAPPED,
    TR_CLOVER,
    TR_COIN,
    TR_CREATE,
    TR_DEATH,
    TR_DIE_LEFT,
    TR_DIE_TABLE,
    TR_END,
    TR_EXIT,
    TR_EXTRA,
    TR_FACED,
    TR_FIGHT,
    TR_FLEE,
    TR_FLEE_BACK,
    TR_FLOOD,
    TR_GAIN,
    TR_HIT,
    TR_IMP,
    TR_JUMP,
    TR_KAEL,
    TR_KILL_PRIZE,
    TR_LEVER,
    TR_LOSE,
    TR_MARKET,
    TR_MARKET_OPEN,
    TR_MOVE,
    TR_ORACLE,
    TR_POTION_STEP,
    TR_PREV_COLLAPSE,
    TR_REQ,
    TR_REROLL,
    TR_ROLL,
    TR_ROLLOFF,
    TR_ROUND,
    TR_SEARCH,
    TR_SEARCH_OPT,
    TR_SPAWN,
    TR_STEAL,
    TR_TIE,
    TR_TROLL_BACK,
    TR_TURN_MARKET,
    TR_UNWINNABLE,
    TR_UPPER,
    TR_WALK,
    TR_WALL,
    TR_WEAPON_WEAR,
    TR_WIN,
    TRACK_NAMES,
    UNWIN_NAMES,
)

SIDES = ("north", "east", "south", "west")
REQ_WORDS = ("statues faced", "monsters killed", "levers reached", "cornucopias set aside")
#: the trace's words for a track (``layout.TRACK_NAMES``), singular: ``count`` makes the plural
TRACK_WORDS = tuple(singular(t) for t in TRACK_NAMES)
#: what each DIE-table outcome (``layout.DIE_WORDS``) does, in words
DIE_PHRASES = {"nothing": "nothing", "monster": "a monster appears", "lose_heart": "lose a heart",
               "chest": "gain a chest", "potion": "gain a potion", "shovel": "gain a shovel", "weapon": "gain a weapon",
               "shield": "gain a shield", "clover": "gain a clover", "cornucopia": "gain a cornucopia"}
DIE_OUTCOMES = tuple(DIE_PHRASES.get(w, w.replace("_", " ")) for w in DIE_WORDS)
#: what a cause of death means, where its name alone does not say it (``layout.CAUSE_NAMES``)
CAUSE_WORDS = {"stuck": "stuck (no way out of the room)"}


#: Decision kinds by number (``layout.D_*``), for the search rows.
_KIND_NAMES = tuple(k[2:].lower() for k, v in sorted(
    ((k, v) for k, v in vars(L).items() if k.startswith("D_") and isinstance(v, int)), key=lambda kv: kv[1]))

def cause_name(cause: int, icon_names: Sequence[str] = I.ICON_NAMES) -> str:
    """A cause of death or loss in words ("killed by an orc", "stuck")."""
    if cause >= CAUSE_FOE:
        return f"killed by {a(icon_names[cause - CAUSE_FOE])}"
    return CAUSE_NAMES.get(int(cause), str(cause))


def event_words(ev: int) -> str:
    """A room event's effects in words ("the left and front walls collapse; you find a chest")."""
    parts = []
    sides = [w for bit, w in ((EV_LEFT, "left"), (EV_RIGHT, "right"), (EV_FRONT, "front")) if ev & bit]
    if sides and ev & EV_BEHIND:
        parts.append(f"the {' and '.join(sides)} wall{_plural(len(sides))} and the wall behind collapse")
    elif sides:
        parts.append(f"the {' and '.join(sides)} wall{_plural(len(sides))} collapse{'' if len(sides) > 1 else 's'}")
    elif ev & EV_BEHIND:
        parts.append("the wall behind collapses")
    if ev & EV_PREV_COLLAPSE:
        parts.append("the room you came from collapses")
    if ev & EV_PREV_FLOOD:
        parts.append("the room you came from floods")
    if ev & EV_MONSTER:
        parts.append("you encounter a monster")
    if ev & EV_CHEST:
        parts.append("you find a chest")
    if ev & EV_EXTRA:
        parts.append("resolve the room, then move one more space without rolling")
    return "; ".join(parts) if parts else "nothing happens"


@dataclass
class Context:
    """What the words need besides a row: the map's width and each room's sector (rooms are named as on
    the rendered map: sector letter and (row, column) counted from 1, ``board.room_name``), the icon names,
    and the last jump (its arrival is already told)."""

    cols: int
    icon_names: Sequence[str] = I.ICON_NAMES
    sectors: Sequence[int] | None = None
    jumped: tuple[int, int] | None = None
    #: the Kraken's next area was just chosen (``TR_KR_AREA``): the round row that follows starts it where you
    #: stand, not at an entrance; ``area_here`` is what that row is told
    area_next: bool = False
    area_here: bool = False
    #: the star face of the last DIE-table row (Santa's ``santa.die_star``; 0 without): a reroll to it gives a star
    die_star: int = 0


def _room(c: int, ctx: Context) -> str:
    return room_name(c, ctx.cols, ctx.sectors) if c >= 0 else "outside"


def _side(s: int, ctx: Context) -> str:
    return SIDES[s] if 0 <= s < 4 else "-"


def _plural(n: int) -> str:
    return "s" if n != 1 else ""


KINDS = {
    "room": _room,
    "side": _side,
    "letter": I.SECTOR_CHARS,
    "sector": I.SECTOR_NAMES,
    "icon": lambda v, ctx: ctx.icon_names[v],
    "cause": lambda v, ctx: CAUSE_WORDS.get(cause_name(v, ctx.icon_names), cause_name(v, ctx.icon_names)),
    "track": TRACK_WORDS,
    "events": lambda v, ctx: event_words(v),
    "die": DIE_OUTCOMES,
    "reroll": RR_NAMES,
    "requirement": REQ_WORDS,
    "unwinnable": UNWIN_NAMES,
    "hero": lambda v, ctx: L.HERO_KEYS[v].capitalize() if 0 <= v < len(L.HERO_KEYS) else str(v),
    "seat": lambda v, ctx: f"player {v}" if v > 0 else "nobody",
    "santa": lambda v, ctx: _santa_kind(v),
    "p2end": lambda v, ctx: L.P2E_NAMES[v] if 0 <= v < len(L.P2E_NAMES) else str(v),
    "slend": lambda v, ctx: L.SL_END_NAMES[v] if 0 <= v < len(L.SL_END_NAMES) else str(v),
    "fsite": lambda v, ctx: L.FURY_SITE_NAMES[v] if 0 <= v < len(L.FURY_SITE_NAMES) else str(v),
}


def _n(field: str, noun: str | None = None, track: str | None = None):
    """A ``words`` function: ``{n}`` = the count of ``field`` with its noun (or with the track named by field
    ``track``) in the right number."""
    def words(f, ctx):
        what = noun if track is None else TRACK_WORDS[f[track]] if 0 <= f[track] < len(TRACK_WORDS) else \
            f"<track {f[track]}>"
        return {"n": count(f[field], what)}
    return words


def _rolloff(f, ctx) -> dict[str, object]:
    mine = f"{f['mine']} + weapon {f['weapon']} = {f['mine'] + f['weapon']}" if f["weapon"] else str(f["mine"])
    return {"you": mine, "it": f"{f['theirs']} + strength {f['strength']} = {f['theirs'] + f['strength']}"}


def _die_effect(face: int, outcome: int, star: int) -> str:
    """A DIE-table face's effect in words: Santa's star face (``santa.die_star``, logged in the DIE-table row; 0
    without) gives a star instead of the printed outcome."""
    if star > 0 and face == star:
        return "a star (instead of the printed outcome)"
    return DIE_OUTCOMES[outcome] if 0 <= outcome < len(DIE_OUTCOMES) else f"<die {outcome}>"


def _swim_words(f, ctx) -> dict[str, str]:
    """Why a swim is not rolled (``rulings.roll_after_swim``; the row's ``table``: -1 no roll)."""
    if f["how"] != MK_SWIM:
        return {}
    return {"why": (" (a swim through flooded rooms: swimming is free, no room roll)" if f["table"] < 0 else
                    " (a swim into an unexplored room: rolled, rulings.roll_after_swim)")}


T = TraceCode
_REROLLED = "    clover on the {roll:reroll}: {how} -> "
CODES: dict[int, TraceCode] = {
    TR_CREATE: T("create", ("hearts", "shield", "clover", "weapon", "shovel"),
                 "Character sheet: hearts {hearts}, shield {shield}, clover {clover}, weapon {weapon}, "
                 "shovel {shovel}."),
    TR_ROUND: T("round", ("round", "sector", "entry", "monsters", "chests"),
                "\n== {what} {round}: sector {sector:letter} ({sector:sector}), {how} {entry:room}; "
                "monster strength +{monsters}, chests worth x{chests} ==",
                words=lambda f, ctx: ({"what": "Area", "how": "starting where you stand,"} if ctx.area_here
                                      else {"what": "Round", "how": "entering at"})),
    TR_MOVE: T("move", ("src", "dst", "heading", "free"), {
        0: "  move {src:room} -> {dst:room}, heading {heading:side}",
        None: "  free step {src:room} -> {dst:room}, heading {heading:side}"}, by="free"),
    TR_JUMP: T("jump", ("src", "dst", "how", "table", "heading"), {
        MK_STAIRS: "  climb the stairs at {src:room} to the upper level, come down at {dst:room}",
        MK_SWIM: "  swim {src:room} -> {dst:room}, heading {heading:side}{why}",
        None: "  magic circle {src:room} -> {dst:room}"}, by="how", words=_swim_words),
    TR_WALK: T("walk", ("start", "end", "rooms"), "  walk freely over {n} {start:room} -> {end:room}",
               words=_n("rooms", "explored room")),
    TR_ROLL: T("room roll", ("table", "face", "events", "cell"),
               "    room roll on table {table:letter}: {face} -> {events:events}"),
    TR_KAEL: T("kael", ("cell",), "    Kael enters a room with an enemy: no room roll"),
    TR_WALL: T("wall", ("cell", "side"), "    the {side:side} wall of {cell:room} collapses"),
    TR_PREV_COLLAPSE: T("collapse", ("cell",), "    {cell:room} collapses: impassable from now on"),
    TR_FLOOD: T("flood", ("cell",), "    {cell:room} floods"),
    TR_SPAWN: T("spawn", ("cell", "foe", "roll"), "    spawn roll {roll}: {foe:a icon} appears"),
    TR_FIGHT: T("fight", ("foe", "strength", "cell"), "    face the {foe:icon} (strength d6{strength:+d})"),
    TR_FACED: T("statue faced", ("cell",), "    statue faced"),
    TR_ROLLOFF: T("roll-off", ("mine", "weapon", "theirs", "strength", "stage"), {
        0: "      roll-off: you {you} against {it}",
        None: "      after the clover: you {you} against {it}"}, by="stage", words=_rolloff),
    TR_CLOVER: T("clover", ("whose", "old", "new", "action"), "      clover {verb} {who}: {old} -> {new}",
                 words=lambda f, ctx: {"who": "your die" if f["whose"] == 0 else "the enemy's die",
                                       "verb": "sets" if f["action"] == 2 else "rerolls"}),
    TR_REROLL: T("reroll", ("roll", "old", "new", "action", "effect"), {
        RR_DIE: _REROLLED + "{die_effect}",
        RR_SPAWN: _REROLLED + "{effect:a icon} instead",
        None: _REROLLED + "{effect:events}"}, by="roll",
        words=lambda f, ctx: {"how": (f"{f['old']} set to {f['new']}" if f["action"] == 2
                                      else f"{f['old']} rerolled to {f['new']}"),
                              "die_effect": _die_effect(f["new"], f["effect"], ctx.die_star)}),
    TR_WIN: T("win", ("foe", "cell"), "      the {foe:icon} is defeated"),
    TR_TIE: T("tie", (), "      tie: nothing happens"),
    TR_HIT: T("hit", ("damage", "hearts", "source"), {
        1: "      DIE table: -{n}, {hearts} left",
        None: "      hit: -{n}, {hearts} left"}, by="source", words=_n("damage", "heart")),
    TR_BLOCK: T("block", ("saved", "shield"), "      the shield blocks {saved} damage ({n} left)",
                words=_n("shield", "shield")),
    TR_STEAL: T("steal", ("track", "left"), "      the bandit steals 1 {track:track} ({left} left)"),
    TR_FLEE: T("flee", ("foe", "cell"), "      flee from the {foe:icon}"),
    TR_FLEE_BACK: T("flee back", ("src", "dst"), "      flee back {src:room} -> {dst:room}"),
    TR_DIE_LEFT: T("die left", ("cell", "dice"), "    leave the DIE icon{s} in {cell:room} unused",
                   words=lambda f, ctx: {"s": _plural(f["dice"])}),
    TR_WEAPON_WEAR: T("weapon wear", ("weapon",), "      the weapon wears to {weapon}"),
    TR_GAIN: T("gain", ("track", "got", "now", "aside"), {
        1: "    +{n} (set aside for the Oracle)",
        None: "    +{n} (now {now})"}, by="aside", words=_n("got", track="track")),
    TR_LOSE: T("lose", ("track", "lost", "now", "dig"), {
        0: "    -{n} (now {now})",
        None: "    -{n} (now {now}): dig through the collapsed wall"}, by="dig", words=_n("lost", track="track")),
    TR_CAPPED: T("capped", ("track", "lost"), "    {n} lost: the track is full", words=_n("lost", track="track")),
    TR_SEARCH: T("search", S.DECISION_FIELDS, S.DECISION_TEMPLATE,
                 words=lambda f, ctx: S.decision_words(f, _KIND_NAMES)),
    TR_SEARCH_OPT: T("search option", S.OPTION_FIELDS, S.OPTION_TEMPLATE, words=S.option_words),
    TR_DIE_TABLE: T("die table", ("face", "outcome", "star"), "    DIE table roll: {face} -> {effect}",
                    words=lambda f, ctx: {"effect": _die_effect(f["face"], f["outcome"], f["star"])}),
    TR_IMP: T("imp", ("cell", "icon", "count"), "    the imp destroys {n}",
              words=lambda f, ctx: {"n": count(f["count"], ctx.icon_names[f["icon"]])}),
    TR_REQ: T("requirement", ("done", "need", "sector"), "    requirement: {done}/{need} {sector:requirement}"),
    TR_AWAKE: T("awake", ("sector",), "    requirement met: the Oracle awakens"),
    TR_LEVER: T("lever", ("cell",), "    lever at {cell:room} reached"),
    TR_UPPER: T("upper level", ("up", "down", "turns", "levers", "places"),
                "    {n} travelled on the upper level, {levers_n} reached",
                words=lambda f, ctx: {"n": count(f["turns"], "turn"), "levers_n": count(f["levers"], "lever")}),
    TR_UNWINNABLE: T("unwinnable", ("cause", "turn"),
                     "  (from turn {turn} the game can no longer be won: {cause:unwinnable})"),
    TR_KILL_PRIZE: T("kill prize", ("kills", "prize"), "    {kills} kills this round: {n} as the kill prize",
                     words=_n("prize", "cornucopia")),
    TR_EXTRA: T("extra move", ("cell",), "    extra move to {cell:room}"),
    TR_POTION_STEP: T("potion step", ("cell", "to", "pending"), "    the potion's free step: to {to:room}"),
    TR_TURN_MARKET: T("turn market", ("turn", "value"), "  end of turn {turn}: the market is open (each chest buys "
                      "{value})"),
    TR_ORACLE: T("oracle", ("sector", "chests"), "    the Oracle speaks (+{n}); now leave through another sector",
                 words=_n("chests", "chest")),
    TR_EXIT: T("exit", ("cell", "sector", "arrow"), "  EXIT at {cell:room} (sector {sector:letter}'s arrow): round "
               "complete"),
    TR_MARKET_OPEN: T("market", ("value", "chests"), "  Market: {n} to spend, each buys {value}",
                      words=_n("chests", "chest")),
    TR_MARKET: T("trade", ("op", "track", "other", "units"), {
        M_BUY: "    buy {n} with a chest",
        M_SWAP: "    exchange 1 {track:track} for 1 {other:track}",
        M_REDEEM: "    redeem a cornucopia for 1 {track:track}"}, by="op", words=_n("units", track="track")),
    TR_TROLL_BACK: T("enemy returns", ("cell", "returns", "icon"),
                     "  the {icon:icon} at {cell:room} regenerates ({n} left)", words=_n("returns", "return")),
    TR_DEATH: T("death", ("cause", "cell", "round"), "  DEAD in round {round} at {cell:room}: {cause:cause}"),
    TR_COIN: T("coin", ("round", "new_game"), {
        0: "  INSERT COIN: a fresh sheet, round {round} starts again",
        None: "  INSERT COIN: a fresh sheet and a fresh map: the whole game starts again"}, by="new_game"),
    TR_END: T("end", ("win", "score", "turns", "rounds"), {
        0: "\nLOST. Rounds completed {rounds}, turns {turns}, final score {score}.",
        None: "\nWON: the Oracle is fully awakened. Rounds completed {rounds}, turns {turns}, final score {score}."},
        by="win"),
    # Discovering the Kraken
    L.TR_KR_FLOOD: T("kraken flood", ("turn", "added", "water", "reached"), {
        0: "  turn {turn}: the flood front spreads ({n} flooded; the Kraken's water is {water_n})",
        None: "  turn {turn}: the flood front spreads ({n} flooded; the Kraken's water is {water_n}): the water "
              "reaches you"}, by="reached",
        words=lambda f, ctx: {"n": count(f["added"], "room"), "water_n": count(f["water"], "room")}),
    L.TR_KR_FIGHT: T("kraken", ("why", "cell", "swims"), {
        L.KRF_SWIM: "    you swim into the Kraken's water at {cell:room}: the Kraken attacks",
        None: "    the Kraken comes with the water at {cell:room}"}, by="why"),
    L.TR_KR_AREA: T("kraken area", ("area", "done", "next", "exit"), {
        -1: "  requirement of area {area:letter} complete ({done}/4): now leave by an arrow of sector {exit:letter} "
            "(the opposite side)",
        None: "  requirement of area {area:letter} complete ({done}/4): on to area {next:letter}"}, by="next"),
    L.TR_KR_MARKET: T("kraken market", ("rate", "chests"), "  the one market visit, at an exit: each chest buys "
                      "{rate} ({n})", words=_n("chests", "chest")),
    L.TR_KR_DROWN: T("drowned", ("cell", "swims"), "    {swims} swims in a row: drowned in {cell:room}"),
    L.TR_KR_HOURGLASS: T("hourglass", ("turn",), "  turn {turn}: the last hourglass box is crossed off: time is up"),
    # the 2-player mode: whose turn it is heads every row after it
    L.TR_P2_SIDE: T("side", ("seat", "arrow", "sector", "cell"),
                    "Player {seat} chooses to start from sector {sector:letter} at {cell:room}."),
    L.TR_P2_TURN: T("turn", ("seat", "hero", "turn", "cell", "chests"),
                    "\n-- Player {seat} ({hero:hero}), turn {turn}, {n} --",
                    words=lambda f, ctx: {"n": count(f["chests"], "chest")}),
    L.TR_P2_DUEL: T("duel", ("seat", "cell", "walk"),
                    "  player {seat} walks {n} along the explored line to the other player in {cell:room}: DUEL",
                    words=_n("walk", "room")),
    L.TR_P2_DUEL_ROLL: T("duel roll", ("a_die", "a_add", "b_die", "b_add"),
                         "      duel roll-off: attacker {a_die} + weapon {a_add}, defender {b_die} + weapon {b_add}"),
    L.TR_P2_DUEL_END: T("duel end", ("seat", "damage", "hearts", "chests", "shield"), {
        0: "      duel tie: nothing happens",
        None: "      {seat:seat} wins the duel: the loser takes {damage} damage ({hearts} hearts left{blocked}), "
              "{n} taken"}, by="seat",
        words=lambda f, ctx: {"n": count(f["chests"], "chest"),
                              "blocked": ", a shield used" if f["shield"] else ""}),
    L.TR_P2_END: T("2-player end", ("winner", "how", "turns1", "turns2"), {
        0: "\nDRAW ({how:p2end}). Turns: player 1 {turns1}, player 2 {turns2}.",
        None: "\nPLAYER {winner} WINS ({how:p2end}). Turns: player 1 {turns1}, player 2 {turns2}."}, by="winner"),
    # The Slaughter of Monsters
    L.TR_SL_START: T("slaughter start", ("cell", "monsters", "boxes"),
                     "\n== The Slaughter of Monsters: start at the black triangle in {cell:room}; {monsters} monsters "
                     "on the map, a Fury track of {n} ==", words=_n("boxes", "box")),
    L.TR_SL_FIND: T("find", ("cell", "face", "item"), {
        -1: "    find roll {face}: nothing (no monster: this campaign's dice give items)",
        None: "    find roll {face}: {item:a icon} instead of a monster"}, by="item"),
    L.TR_FURY: T("fury", ("track", "boxes", "used", "track_boxes", "site"),
                 "      FURY: {n} blacked out instead of {site:fsite} ({used} of {track_boxes} black)",
                 words=_n("boxes", "Fury box")),
    L.TR_FURY_FULL: T("fury full", ("sector", "erased", "counted", "kills"),
                      "  THE FURY PREVAILS: you roam {where} and erase {n}{how}; kills now {kills}",
                      words=lambda f, ctx: {
                          "n": count(f["erased"], "monster"),
                          "how": " (marked on the kill counter)" if f["counted"] else " (not counted)",
                          "where": (f"sector {I.SECTOR_CHARS[f['sector']]} ({I.SECTOR_NAMES[f['sector']]})"
                                    if 0 <= f["sector"] < 4 else "the centre")}),
    L.TR_SL_CAP: T("enemy cap", ("cell", "met"), "    no monster appears: {met} met already, the most there can be"),
    L.TR_SL_END: T("slaughter end", ("how", "kills", "fury", "turns"),
                   "\nTHE SLAUGHTER ENDS ({how:slend}): score {kills} monsters killed, {n}, {turns} turns.",
                   words=_n("fury", "Fury box")),
    # Santa Crash'n Foury (santa.on)
    L.TR_SANTA_START: T("santa start", ("cell", "hourglass", "home", "safe"),
                        "\n== Santa Crash'n Foury: start at {cell:room}, beside Santa's room {home:room}; {hourglass} "
                        "hourglass spaces; the XMas Safe Zone is {safe:room} =="),
    L.TR_SANTA_GET: T("santa item", ("kind", "now", "cell", "change", "foe"), {
        1: "    +1 {kind:santa} (now {now})",
        None: "      the {foe:icon} destroys {n} ({now} left)"}, by="change",
        words=lambda f, ctx: {"n": count(-f["change"], _santa_kind(f["kind"]))}),
    L.TR_SANTA_CANE: T("candy cane", ("foe", "cell", "left"),
                       "    give the {foe:icon} a candy cane: off to a remote corner, no fight ({n} left)",
                       words=_n("left", "candy cane")),
    L.TR_SANTA_HOME: T("santa home", ("left", "dist", "wrath"), {
        0: "  head for the XMas Safe Zone: {n} left, {dist} steps away",
        None: "\n== The hourglass has run out: SANTA'S WRATH, {left} attacks (your d6 against his d6{dist:+d}) =="},
        by="wrath", words=_n("left", "hourglass space")),
    L.TR_SANTA_STAR: T("star", ("cell", "steps", "src", "left"), {
        -1: "    star step {steps:room} -> {src:room} ({left} left)",
        None: "    a STAR{how}: {steps} free steps without room rolls"}, by="cell",
        words=lambda f, ctx: {"how": " on the DIE table" if f["src"] == 1 else ""}),
    L.TR_SANTA_END: T("santa end", ("how", "marks", "survived", "wrath", "goal"), {
        L.SE_SAFE: "\nWON: the XMas Safe Zone reached ({marks} hourglass spaces marked).",
        L.SE_COLLECTION: "\nWON: the hourglass ran out with the collection goal met{after}.",
        L.SE_WRATH_SURVIVED: "\nLOST: the hourglass ran out; Santa's Wrath survived ({n} lost). This Christmas will "
                             "be without presents.",
        L.SE_WRATH_KILLED: "\nLOST: the hourglass ran out; killed by Santa's Wrath after {survived} attacks.",
        None: "\nLOST: died in the dungeon ({marks} hourglass spaces marked)."}, by="how",
        words=lambda f, ctx: {"n": count(f["wrath"], "heart"),
                              "after": " (and Santa's Wrath survived)" if f["survived"] >= 0 else ""}),
}


def _santa_kind(k: int) -> str:
    return (*L.SANTA_KIND_NAMES, "candy cane")[k] if 0 <= k <= len(L.SANTA_KIND_NAMES) else f"<kind {k}>"


def _after_jump(ctx: Context, code: int, fields) -> list[str] | None:
    """A jump (or a swim) already says where you arrive (after its levers and travel): skip the move that follows it
    (from outside, or the same rooms again). A move that stays in its room says so. A Kraken area chosen
    where you stand makes the round row that follows read "Area N ... starting where you stand"."""
    if code == L.TR_KR_AREA:
        ctx.area_next = fields["next"] >= 0
    elif code == TR_ROUND:
        ctx.area_here, ctx.area_next = ctx.area_next, False
    if code == TR_DIE_TABLE:
        ctx.die_star = fields["star"]
    if code == TR_JUMP:
        ctx.jumped = (fields["src"], fields["dst"])
    elif code == TR_MOVE:
        was, ctx.jumped = ctx.jumped, None
        if was is not None and (fields["src"] < 0 or (fields["src"], fields["dst"]) == was):
            return []
        if fields["src"] < 0:
            return [f"  enter {_room(fields['dst'], ctx)} from outside, heading {_side(fields['heading'], ctx)}"]
        if fields["src"] == fields["dst"]:
            return [f"  stay in {_room(fields['dst'], ctx)}"]
    return None


TABLE = TraceTable("foury", CODES, KINDS, hook=_after_jump)


def format_trace(tr: np.ndarray, cols: int, icon_names: Sequence[str] = I.ICON_NAMES,
                 sectors: Sequence[int] | None = None) -> list[str]:
    """One line per trace row, in plain words; rooms are named as on the rendered map (``board.room_name``:
    sector letter from ``sectors`` and (row, column) counted from 1 of a map ``cols`` wide)."""
    return TABLE.format(tr, Context(cols, icon_names, sectors))
