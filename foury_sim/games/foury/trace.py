"""The words of Foury's trace codes (``layout.TR_*``): one table, rendered by ``trace_format``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...trace_format import TraceCode, TraceTable
from . import icons as I
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
    TR_PREV_COLLAPSE,
    TR_REQ,
    TR_REROLL,
    TR_ROLL,
    TR_ROLLOFF,
    TR_ROUND,
    TR_SPAWN,
    TR_STEAL,
    TR_TIE,
    TR_TROLL_BACK,
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


def cause_name(cause: int, icon_names: Sequence[str] = I.ICON_NAMES) -> str:
    if cause >= CAUSE_FOE:
        name = icon_names[cause - CAUSE_FOE]
        return f"killed by {'an' if name[0] in 'aeiou' else 'a'} {name}"
    return CAUSE_NAMES.get(int(cause), str(cause))


def event_words(ev: int) -> str:
    parts = []
    sides = [w for bit, w in ((EV_LEFT, "left"), (EV_RIGHT, "right"), (EV_FRONT, "front"), (EV_BEHIND, "behind"))
             if ev & bit]
    if sides:
        parts.append("walls " + " and ".join(sides) + " collapse")
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
    """What the words need besides a row: the map's width (rooms are named (row, column)), the icon
    names, and whether the last move was a jump (its arrival is already told)."""

    cols: int
    icon_names: Sequence[str] = I.ICON_NAMES
    jumped: bool = False


def _room(c: int, ctx: Context) -> str:
    return f"({c // ctx.cols},{c % ctx.cols})" if c >= 0 else "outside"


def _side(s: int, ctx: Context) -> str:
    return SIDES[s] if 0 <= s < 4 else "-"


def _plural(n: int) -> str:
    return "s" if n > 1 else ""


KINDS = {
    "room": _room,
    "side": _side,
    "letter": I.SECTOR_CHARS,
    "sector": I.SECTOR_NAMES,
    "icon": lambda v, ctx: ctx.icon_names[v],
    "cause": lambda v, ctx: cause_name(v, ctx.icon_names),
    "track": TRACK_NAMES,
    "events": lambda v, ctx: event_words(v),
    "die": DIE_WORDS,
    "reroll": RR_NAMES,
    "requirement": REQ_WORDS,
    "unwinnable": UNWIN_NAMES,
}

T = TraceCode
_REROLLED = "    clover on the {roll:reroll} {old}: {verb} -> "
CODES: dict[int, TraceCode] = {
    TR_CREATE: T("create", ("hearts", "shield", "clover", "weapon", "shovel"),
                 "Character: hearts {hearts}, shield {shield}, clover {clover}, weapon {weapon}, shovel {shovel}."),
    TR_ROUND: T("round", ("round", "sector", "entry", "monsters", "chests"),
                "\n== Round {round}: {sector:letter} {sector:sector}, entering at {entry:room}; "
                "monsters +{monsters}, chests x{chests} =="),
    TR_MOVE: T("move", ("src", "dst", "heading", "free"), "  {how} {src:room} -> {dst:room} heading {heading:side}",
               words=lambda f, ctx: {"how": "free step" if f["free"] else "move"}),
    TR_JUMP: T("jump", ("src", "dst", "how"), {
        MK_STAIRS: "  climb the stairs at {src:room} to the upper level, come down at {dst:room}",
        None: "  magic circle {src:room} -> {dst:room}"}, by="how"),
    TR_WALK: T("walk", ("start", "end", "rooms"),
               "  walk freely over {rooms} explored room(s) {start:room} -> {end:room}"),
    TR_ROLL: T("room roll", ("table", "face", "events", "cell"),
               "    room roll on table {table:letter}: {face} -> {events:events}"),
    TR_KAEL: T("kael", ("cell",), "    Kael enters a room with an enemy: no room roll"),
    TR_WALL: T("wall", ("cell", "side"), "    wall {side:side} of {cell:room} collapses"),
    TR_PREV_COLLAPSE: T("collapse", ("cell",), "    room {cell:room} collapses: impassable"),
    TR_FLOOD: T("flood", ("cell",), "    room {cell:room} floods"),
    TR_SPAWN: T("spawn", ("cell", "foe", "roll"), "    spawn roll {roll}: a {foe:icon} appears"),
    TR_FIGHT: T("fight", ("foe", "strength", "cell"), "    face the {foe:icon} (strength d6{strength:+d})"),
    TR_FACED: T("statue faced", ("cell",), "    statue faced"),
    TR_ROLLOFF: T("roll-off", ("mine", "weapon", "theirs", "strength"),
                  "      roll-off: you {mine}{plus_weapon} = {my_total} vs {theirs}{strength:+d} = {their_total}",
                  words=lambda f, ctx: {"plus_weapon": f" + weapon {f['weapon']}" if f["weapon"] else "",
                                        "my_total": f["mine"] + f["weapon"],
                                        "their_total": f["theirs"] + f["strength"]}),
    TR_CLOVER: T("clover", ("whose", "old", "new", "action"), "      clover {verb} {who}: {old} -> {new}",
                 words=lambda f, ctx: {"who": "your die" if f["whose"] == 0 else "its die",
                                       "verb": "sets" if f["action"] == 2 else "rerolls"}),
    TR_REROLL: T("reroll", ("roll", "old", "new", "action", "effect"), {
        RR_DIE: _REROLLED + "{effect:die}",
        RR_SPAWN: _REROLLED + "a {effect:icon} instead",
        None: _REROLLED + "{effect:events}"}, by="roll",
        words=lambda f, ctx: {"verb": ("sets the face to " if f["action"] == 2 else "rerolled to ") + str(f["new"])}),
    TR_WIN: T("win", ("foe", "cell"), "      the {foe:icon} is defeated"),
    TR_TIE: T("tie", (), "      tie: nothing happens"),
    TR_HIT: T("hit", ("damage", "hearts", "source"), {
        1: "      the die table: -{damage} heart(s), {hearts} left",
        None: "      the hit: -{damage} heart(s), {hearts} left"}, by="source"),
    TR_BLOCK: T("block", ("saved", "shield"), "      shield blocks {saved} damage ({shield} shields left)"),
    TR_STEAL: T("steal", ("track", "left"), "      the bandit steals 1 {track:track} ({left} left)"),
    TR_FLEE: T("flee", ("foe", "cell"), "      flee from the {foe:icon}"),
    TR_FLEE_BACK: T("flee back", ("src", "dst"), "      flee back {src:room} -> {dst:room}"),
    TR_DIE_LEFT: T("die left", ("cell", "dice"), "    leave the die icon{s} in {cell:room} unused",
                   words=lambda f, ctx: {"s": _plural(f["dice"])}),
    TR_WEAPON_WEAR: T("weapon wear", ("weapon",), "      weapon wears to {weapon}"),
    TR_GAIN: T("gain", ("track", "got", "now", "aside"), {
        1: "    +{got} {track:track} (set aside for the Oracle)",
        None: "    +{got} {track:track} (now {now})"}, by="aside"),
    TR_LOSE: T("lose", ("track", "lost", "now", "dig"), {
        0: "    -{lost} {track:track} (now {now})",
        None: "    -{lost} {track:track} (now {now}): dig through the collapsed wall"}, by="dig"),
    TR_CAPPED: T("capped", ("track", "lost"), "    {lost} {track:track} lost: the track is full"),
    TR_DIE_TABLE: T("die table", ("face", "outcome"), "    DIE table: {face} -> {outcome:die}"),
    TR_IMP: T("imp", ("cell", "icon", "count"), "    the imp destroys {count} {icon:icon}"),
    TR_REQ: T("requirement", ("done", "need", "sector"), "    requirement: {done}/{need} {sector:requirement}"),
    TR_AWAKE: T("awake", ("sector",), "    the Oracle AWAKENS"),
    TR_LEVER: T("lever", ("cell",), "    lever at {cell:room} reached"),
    TR_UPPER: T("upper level", ("up", "down", "turns", "levers", "places"),
                "    {turns} turn(s) travelled on the upper level, {levers} lever(s) reached"),
    TR_UNWINNABLE: T("unwinnable", ("cause", "turn"),
                     "  (from turn {turn} the game can no longer be won: {cause:unwinnable})"),
    TR_KILL_PRIZE: T("kill prize", ("kills", "prize"), "    {kills} kills this round: {prize} cornucopia prize"),
    TR_EXTRA: T("extra move", ("cell",), "    extra move to {cell:room}"),
    TR_ORACLE: T("oracle", ("sector",), "    the Oracle speaks (+1 chest); now leave through another sector"),
    TR_EXIT: T("exit", ("cell", "sector", "arrow"), "  EXIT at {cell:room} (sector {sector:letter}): round complete"),
    TR_MARKET_OPEN: T("market", ("value", "chests"), "  Market (chests x{value}, {chests} chests)"),
    TR_MARKET: T("trade", ("op", "track", "other", "units"), {
        M_BUY: "    buy {units} {track:track} with a chest",
        M_SWAP: "    exchange 1 {track:track} for {other:track}",
        M_REDEEM: "    cornucopia -> 1 {track:track}"}, by="op"),
    TR_TROLL_BACK: T("enemy returns", ("cell", "returns", "icon"),
                     "  the {icon:icon} at {cell:room} regenerates ({returns} returns left)"),
    TR_DEATH: T("death", ("cause", "cell", "round"), "  DEAD in round {round} at {cell:room}: {cause:cause}"),
    TR_COIN: T("coin", ("round", "new_game"), {
        0: "  INSERT COIN: a fresh sheet, round {round} starts again",
        None: "  INSERT COIN: a fresh sheet and a fresh map: the whole game starts again"}, by="new_game"),
    TR_END: T("end", ("win", "score", "turns", "rounds"), {
        0: "\nLOST. Rounds completed {rounds}, turns {turns}, final score {score}.",
        None: "\nWON: the Oracle is fully awakened. Rounds completed {rounds}, turns {turns}, final score {score}."},
        by="win"),
}


def _after_jump(ctx: Context, code: int, fields) -> list[str] | None:
    """A jump already says where you arrive (after its levers and travel): skip the move from outside
    that follows it."""
    if code == TR_JUMP:
        ctx.jumped = True
    elif code == TR_MOVE:
        was, ctx.jumped = ctx.jumped, False
        if was and fields["src"] < 0:
            return []
    return None


TABLE = TraceTable("foury", CODES, KINDS, hook=_after_jump)


def format_trace(tr: np.ndarray, cols: int, icon_names: Sequence[str] = I.ICON_NAMES) -> list[str]:
    """One line per trace row, in plain words; rooms are named (row, column) of a map ``cols`` wide."""
    return TABLE.format(tr, Context(cols, icon_names))
