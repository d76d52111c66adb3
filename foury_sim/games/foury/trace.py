"""Turn a kernel trace (rows of integers) into a play report a designer reads."""

from __future__ import annotations

import numpy as np

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


def cause_name(cause: int) -> str:
    if cause >= CAUSE_FOE:
        name = I.ICON_NAMES[cause - CAUSE_FOE]
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


def format_trace(tr: np.ndarray, cols: int) -> list[str]:
    """One line per trace row, in plain words; rooms are named (row, column)."""

    def room(c: int) -> str:
        c = int(c)
        return f"({c // cols},{c % cols})" if c >= 0 else "outside"

    out: list[str] = []
    jumped = False
    for row in tr:
        code, a, b, c, d, e = (int(x) for x in row)
        if code == TR_JUMP:
            jumped = True
        elif code == TR_MOVE:
            was, jumped = jumped, False
            if a < 0 and was:
                continue  # the jump already said where you arrive (after its levers and travel)
        if code == TR_CREATE:
            out.append(f"Character: hearts {a}, shield {b}, clover {c}, weapon {d}, shovel {e}.")
        elif code == TR_ROUND:
            out.append("")
            out.append(f"== Round {a}: {'ABCD'[b]} {I.SECTOR_NAMES[b]}, entering at {room(c)}; "
                       f"monsters +{d}, chests x{e} ==")
        elif code == TR_MOVE:
            how = "free step" if d else "move"
            out.append(f"  {how} {room(a)} -> {room(b)} heading {SIDES[c] if 0 <= c < 4 else '-'}")
        elif code == TR_JUMP:
            if c == MK_STAIRS:
                out.append(f"  climb the stairs at {room(a)} to the upper level, come down at {room(b)}")
            else:
                out.append(f"  magic circle {room(a)} -> {room(b)}")
        elif code == TR_WALK:
            out.append(f"  walk freely over {c} explored room(s) {room(a)} -> {room(b)}")
        elif code == TR_ROLL:
            out.append(f"    room roll on table {'ABCD'[a]}: {b} -> {event_words(c)}")
        elif code == TR_KAEL:
            out.append("    Kael enters a room with an enemy: no room roll")
        elif code == TR_WALL:
            out.append(f"    wall {SIDES[b]} of {room(a)} collapses")
        elif code == TR_PREV_COLLAPSE:
            out.append(f"    room {room(a)} collapses: impassable")
        elif code == TR_FLOOD:
            out.append(f"    room {room(a)} floods")
        elif code == TR_SPAWN:
            out.append(f"    spawn roll {c}: a {I.ICON_NAMES[b]} appears")
        elif code == TR_FIGHT:
            out.append(f"    face the {I.ICON_NAMES[a]} (strength d6{b:+d})")
        elif code == TR_FACED:
            out.append("    statue faced")
        elif code == TR_ROLLOFF:
            w = f" + weapon {b}" if b else ""
            out.append(f"      roll-off: you {a}{w} = {a + b} vs {c}{d:+d} = {c + d}")
        elif code == TR_CLOVER:
            who = "your die" if a == 0 else "its die"
            verb = "sets" if d == 2 else "rerolls"
            out.append(f"      clover {verb} {who}: {b} -> {c}")
        elif code == TR_REROLL:
            if a == RR_DIE:
                what = DIE_WORDS[e]
            elif a == RR_SPAWN:
                what = f"a {I.ICON_NAMES[e]} instead"
            else:
                what = event_words(e)
            verb = f"sets the face to {c}" if d == 2 else f"rerolled to {c}"
            out.append(f"    clover on the {RR_NAMES[a]} {b}: {verb} -> {what}")
        elif code == TR_WIN:
            out.append(f"      the {I.ICON_NAMES[a]} is defeated")
        elif code == TR_TIE:
            out.append("      tie: nothing happens")
        elif code == TR_HIT:
            src = "the die table" if c == 1 else "the hit"
            out.append(f"      {src}: -{a} heart(s), {b} left")
        elif code == TR_BLOCK:
            out.append(f"      shield blocks {a} damage ({b} shields left)")
        elif code == TR_STEAL:
            out.append(f"      the bandit steals 1 {TRACK_NAMES[a]} ({b} left)")
        elif code == TR_FLEE:
            out.append(f"      flee from the {I.ICON_NAMES[a]}")
        elif code == TR_FLEE_BACK:
            out.append(f"      flee back {room(a)} -> {room(b)}")
        elif code == TR_DIE_LEFT:
            out.append(f"    leave the die icon{'s' if b > 1 else ''} in {room(a)} unused")
        elif code == TR_WEAPON_WEAR:
            out.append(f"      weapon wears to {a}")
        elif code == TR_GAIN:
            note = " (set aside for the Oracle)" if d == 1 else ""
            out.append(f"    +{b} {TRACK_NAMES[a]}{note}" + ("" if d == 1 else f" (now {c})"))
        elif code == TR_LOSE:
            out.append(f"    -{b} {TRACK_NAMES[a]} (now {c})" + (": dig through the collapsed wall" if d else ""))
        elif code == TR_CAPPED:
            out.append(f"    {b} {TRACK_NAMES[a]} lost: the track is full")
        elif code == TR_DIE_TABLE:
            out.append(f"    DIE table: {a} -> {DIE_WORDS[b]}")
        elif code == TR_IMP:
            out.append(f"    the imp destroys {c} {I.ICON_NAMES[b]}")
        elif code == TR_REQ:
            out.append(f"    requirement: {a}/{b} {REQ_WORDS[c]}")
        elif code == TR_AWAKE:
            out.append("    the Oracle AWAKENS")
        elif code == TR_LEVER:
            out.append(f"    lever at {room(a)} reached")
        elif code == TR_UPPER:
            out.append(f"    {c} turn(s) travelled on the upper level, {d} lever(s) reached")
        elif code == TR_UNWINNABLE:
            out.append(f"  (from turn {b} the game can no longer be won: {UNWIN_NAMES[a]})")
        elif code == TR_KILL_PRIZE:
            out.append(f"    {a} kills this round: {b} cornucopia prize")
        elif code == TR_EXTRA:
            out.append(f"    extra move to {room(a)}")
        elif code == TR_ORACLE:
            out.append("    the Oracle speaks (+1 chest); now leave through another sector")
        elif code == TR_EXIT:
            out.append(f"  EXIT at {room(a)} (sector {'ABCD'[b]}): round complete")
        elif code == TR_MARKET_OPEN:
            out.append(f"  Market (chests x{a}, {b} chests)")
        elif code == TR_MARKET:
            if a == M_BUY:
                out.append(f"    buy {d} {TRACK_NAMES[b]} with a chest")
            elif a == M_SWAP:
                out.append(f"    exchange 1 {TRACK_NAMES[b]} for {TRACK_NAMES[c]}")
            elif a == M_REDEEM:
                out.append(f"    cornucopia -> 1 {TRACK_NAMES[b]}")
        elif code == TR_TROLL_BACK:
            out.append(f"  the troll at {room(a)} regenerates ({b} returns left)")
        elif code == TR_DEATH:
            out.append(f"  DEAD in round {c} at {room(b)}: {cause_name(a)}")
        elif code == TR_COIN:
            if b:
                out.append("  INSERT COIN: a fresh sheet and a fresh map: the whole game starts again")
            else:
                out.append(f"  INSERT COIN: a fresh sheet, round {a} starts again")
        elif code == TR_END:
            res = "WON: the Oracle is fully awakened" if a else "LOST"
            out.append("")
            out.append(f"{res}. Rounds completed {d}, turns {c}, final score {b}.")
        else:  # never lose an event: a code without words (a new rule's) is still shown, raw
            out.append(f"  [trace code {code}: {a} {b} {c} {d} {e}]")
    return out

