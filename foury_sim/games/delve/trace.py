"""Play reports: the kernel's int64 event log (``kernel.ev``) turned into readable lines."""

from __future__ import annotations

import numpy as np

from . import kernel as E
from . import layout as A
from .ruleset import DelveRules


def unit_name(rs: DelveRules, hero: str, side: int, u: int) -> str:
    if u < A.U_TEMP:
        return f"{A.FACE_NAMES[u]} die"
    if u < A.U_TOKEN:
        return f"temporary {A.FACE_NAMES[u - A.U_TEMP]}"
    if u < A.U_HERO:
        return rs.treasure_names[u - A.U_TOKEN].replace("_", " ")
    return f"the hero ({rs.ultimate_names[hero][side]})"


def _counts(values, names) -> str:
    parts = [f"{int(v)} {n}" for v, n in zip(values, names) if v]
    return ", ".join(parts) if parts else "nothing"


def format_trace(trace: np.ndarray, rs: DelveRules, hero: str) -> list[str]:
    """One line per event of ``trace`` (row 0 holds the event count)."""
    lines: list[str] = []
    side = 0
    treasure = [t.replace("_", " ") for t in rs.treasure_names]
    for row in trace[1 : int(trace[0, 0]) + 1]:
        code, delve, level = (int(x) for x in row[:3])
        a = [int(x) for x in row[3:]]
        at = f"L{level}"
        if code == E.E_DELVE:
            side = a[2]
            lines.append(f"== delve {a[0]} (XP {a[1]}, {rs.hero_names[hero][side]}) ==")
        elif code == E.E_PARTY:
            lines.append(f"   party: {_counts(a[:6], A.FACE_NAMES)}; graveyard {a[6]}")
        elif code == E.E_TRANSFORM:
            lines.append(f"   forming: {a[2]} {A.FACE_NAMES[a[0]]} become {A.FACE_NAMES[a[1]]}")
        elif code == E.E_DUNGEON:
            what = _counts(a[1:6], A.DUNGEON_NAMES)
            lines.append(f"{at} dungeon ({a[0]} rolled, {a[6]} dragon(s) to the Lair): {what}; Lair {a[7]}")
        elif code == E.E_DECISION:
            kind, c, n, act, arg, cnt = a[:6]
            lines.append(f"   decide {A.KIND_NAMES[kind]} [{c + 1}/{n}]: {_action(rs, hero, side, act, arg, cnt)}")
        elif code == E.E_USE:
            lines.append(f"      spends {a[1]} x {unit_name(rs, hero, side, a[0])}")
        elif code == E.E_CLEARED:
            lines.append("      monsters defeated")
        elif code == E.E_DRAW:
            src = "dragon's hoard" if a[2] else "chest"
            lines.append(f"      treasure from the {src}: {treasure[a[0]]} ({a[1]} left in the pool)")
        elif code == E.E_XP:
            why = ("retiring", "the dragon", "an empty pool", "a Town Portal")[a[1]]
            lines.append(f"      +{a[0]} XP for {why} (total {a[2]})")
        elif code == E.E_MASTER:
            side = 1
            lines.append(f"      the hero becomes {rs.hero_names[hero][1]} ({a[0]} XP)")
        elif code == E.E_OPEN:
            lines.append(f"      opens {a[1]} chest(s)")
        elif code == E.E_QUAFF:
            lines.append(f"      quaffs {a[1]} potion(s)")
        elif code == E.E_REVIVE:
            lines.append(f"      a {A.FACE_NAMES[a[0]]} comes back from the graveyard ({a[1]} left there)")
        elif code == E.E_REROLL:
            lines.append("      rerolled:")
        elif code == E.E_DRAGON:
            lines.append(f"{at} the dragon attacks (Lair {a[0]}): needs {a[1]} different companions")
        elif code == E.E_SLAIN:
            lines.append("      the dragon is slain; the Lair empties")
        elif code == E.E_ULTIMATE:
            lines.append(f"      ultimate: {rs.ultimate_names[hero][side]}")
        elif code == E.E_TREASURE:
            lines.append(f"      uses {treasure[a[0]]}")
        elif code == E.E_FLEE:
            lines.append(f"{at} flees from the {'monsters' if a[0] == E.FLEE_MONSTERS else 'dragon'}")
        elif code == E.E_PORTAL:
            lines.append(f"{at} escapes through {treasure[a[0]]}")
        elif code == E.E_RETIRE:
            lines.append(f"{at} retires to the tavern")
        elif code == E.E_END:
            lines.append(f"== end: score {a[0]} (XP {a[1]}), rank {rs.rank_names[a[2]]} ==")
        else:
            lines.append(f"   event {code}: {a}")
    return lines


def _action(rs: DelveRules, hero: str, side: int, act: int, arg: int, n: int) -> str:
    name = A.ACTION_NAMES[act]
    if act in (A.A_OPEN, A.A_QUAFF):
        what = f"{n} chest(s)" if act == A.A_OPEN else f"potions, reviving {n}"
        return f"{name} {what} with {unit_name(rs, hero, side, arg)}"
    if act == A.A_SCROLL:
        return f"reroll with {unit_name(rs, hero, side, arg)}"
    if act in (A.A_TREASURE, A.A_PORTAL):
        return f"{name}: {rs.treasure_names[arg].replace('_', ' ')}"
    if act == A.A_ULTIMATE:
        return f"ultimate {rs.ultimate_names[hero][side]}"
    if act == A.A_PICK:
        what = A.FACE_NAMES[arg] if arg < A.N_FACES else A.DUNGEON_NAMES[arg - A.N_FACES]
        return f"reroll a {what}"
    if act == A.A_FACE:
        return A.FACE_NAMES[arg]
    if act == A.A_RETIRE:
        return f"retire (+{n} XP)"
    if act == A.A_CONTINUE:
        return "seek glory"
    return name
