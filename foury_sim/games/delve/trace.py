"""The words of Delve's trace codes (``layout.E_*``, logged by ``kernel.ev``): one table, rendered by
``trace_format``. A row is [code, delve, level, a0..a7]."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import search as S
from ...trace_format import TraceCode, TraceTable, a, count, plural
from . import layout as A
from .layout import (
    E_CLEARED,
    E_DECISION,
    E_DELVE,
    E_DRAGON,
    E_DRAW,
    E_DUNGEON,
    E_END,
    E_FLEE,
    E_MASTER,
    E_OPEN,
    E_PARTY,
    E_PORTAL,
    E_QUAFF,
    E_REROLL,
    E_RETIRE,
    E_REVIVE,
    E_SEARCH,
    E_SEARCH_OPT,
    E_SLAIN,
    E_TRANSFORM,
    E_TREASURE,
    E_ULTIMATE,
    E_USE,
    E_XP,
    FLEE_MONSTERS,
)
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
    parts = [count(int(v), n) for v, n in zip(values, names) if v]
    return ", ".join(parts) if parts else "nothing"


def _action(rs: DelveRules, hero: str, side: int, act: int, arg: int, n: int) -> str:
    name = A.ACTION_NAMES[act]
    if act == A.A_OPEN:
        return f"open {count(n, 'chest')} with {a(unit_name(rs, hero, side, arg))}"
    if act == A.A_QUAFF:
        return f"quaff the potions with {a(unit_name(rs, hero, side, arg))}, reviving {n}"
    if act == A.A_SCROLL:
        return f"reroll with {a(unit_name(rs, hero, side, arg))}"
    if act == A.A_TREASURE:
        return f"use {a(rs.treasure_names[arg].replace('_', ' '))}"
    if act == A.A_PORTAL:
        return f"escape with {a(rs.treasure_names[arg].replace('_', ' '))}"
    if act == A.A_ULTIMATE:
        return f"the hero's ultimate, {rs.ultimate_names[hero][side]}"
    if act == A.A_PICK:
        what = A.FACE_NAMES[arg] if arg < A.N_FACES else A.DUNGEON_NAMES[arg - A.N_FACES]
        return f"reroll {a(what)}"
    if act == A.A_FACE:
        return A.FACE_NAMES[arg]
    if act == A.A_RETIRE:
        return f"retire (+{n} XP)"
    if act == A.A_CONTINUE:
        return "seek glory (go one level deeper)"
    if act == A.A_DONE:
        return "done"
    return name


@dataclass
class Context:
    """What the words need besides a row: the ruleset's names, the hero, and its side (0 novice,
    1 master) since the last delve began or it mastered."""

    rules: DelveRules
    hero: str
    side: int = 0


def _hero(side: int, ctx: Context) -> str:
    return ctx.rules.hero_names[ctx.hero][side] if ctx.hero != "none" else "no hero"


KINDS = {
    "hero": _hero,
    "face": A.FACE_NAMES,
    "decision": ("the monster phase", "a reroll", "the loot phase", "a revival", "the dragon", "the regroup phase"),
    "unit": lambda u, ctx: unit_name(ctx.rules, ctx.hero, ctx.side, u),
    "treasure": lambda k, ctx: ctx.rules.treasure_names[k].replace("_", " "),
    "hoard": lambda v, ctx: "dragon's hoard" if v else "chest",
    "xp_reason": ("retiring", "the dragon", "an empty pool", "a Town Portal"),
    "flee": lambda v, ctx: "monsters" if v == FLEE_MONSTERS else "dragon",
    "rank": lambda r, ctx: ctx.rules.rank_names[r],
}
DUNGEON_SHOWN = A.DUNGEON_NAMES[:5]  # the dungeon dice in play (dragons go to the Lair)

T = TraceCode
CODES: dict[int, TraceCode] = {
    E_DELVE: T("delve", ("number", "xp", "side"), "== delve {number} (XP {xp}, {side:hero}) =="),
    E_PARTY: T("party", A.FACE_NAMES + ("graveyard",), "   party: {party}; {dead} in the graveyard",
               words=lambda f, ctx: {"party": _counts([f[n] for n in A.FACE_NAMES], A.FACE_NAMES),
                                     "dead": count(f["graveyard"], "die")}),
    E_TRANSFORM: T("transform", ("src", "dst", "count"), "   forming the party: {what}",
                   words=lambda f, ctx: {"what": (f"{count(f['count'], A.FACE_NAMES[f['src']])} "
                                                  f"{'becomes' if f['count'] == 1 else 'become'} "
                                                  + (a(A.FACE_NAMES[f['dst']]) if f["count"] == 1
                                                     else plural(A.FACE_NAMES[f["dst"]])))}),
    E_DUNGEON: T("dungeon", ("rolled",) + DUNGEON_SHOWN + ("dragons", "lair"), {
        0: "Level {level}, the dungeon now: {dungeon}; {lair_n} in the Lair",
        None: "Level {level}, the dungeon rolls {dice}: {dungeon}; {dragons_n} to the Lair ({lair_n} there)"},
        by="rolled",
        words=lambda f, ctx: {"dungeon": _counts([f[n] for n in DUNGEON_SHOWN], DUNGEON_SHOWN),
                              "dice": count(f["rolled"], "die"), "dragons_n": count(f["dragons"], "dragon"),
                              "lair_n": count(f["lair"], "dragon")}),
    E_DECISION: T("decision", ("kind", "choice", "options", "action", "arg", "count", "cost", "ok"),
                  "   decide {kind:decision} (option {number} of {options}): {what}",
                  words=lambda f, ctx: {"number": f["choice"] + 1,
                                        "what": _action(ctx.rules, ctx.hero, ctx.side, f["action"], f["arg"],
                                                        f["count"])}),
    E_USE: T("use", ("unit", "count"), "      spends {what}",
             words=lambda f, ctx: {"what": unit_name(ctx.rules, ctx.hero, ctx.side, f["unit"]) if f["unit"] >= A.U_HERO
                                   else count(f["count"], unit_name(ctx.rules, ctx.hero, ctx.side, f["unit"]))}),
    E_CLEARED: T("cleared", (), "      monsters defeated"),
    E_DRAW: T("draw", ("treasure", "left", "hoard"),
              "      treasure from the {hoard:hoard}: {treasure:a treasure} ({left} left in the pool)"),
    E_XP: T("xp", ("xp", "why", "total"), "      +{xp} XP for {why:xp_reason} (total {total})"),
    E_MASTER: T("master", ("xp",), "      the hero becomes {master} ({xp} XP)",
                words=lambda f, ctx: {"master": ctx.rules.hero_names[ctx.hero][1]}),
    E_OPEN: T("open", ("unit", "chests"), "      opens {n}", words=lambda f, ctx: {"n": count(f["chests"], "chest")}),
    E_QUAFF: T("quaff", ("unit", "potions"), "      quaffs {n}",
               words=lambda f, ctx: {"n": count(f["potions"], "potion")}),
    E_REVIVE: T("revive", ("face", "graveyard"),
                "      {face:a face} comes back from the graveyard ({n} left there)",
                words=lambda f, ctx: {"n": count(f["graveyard"], "die")}),
    E_REROLL: T("reroll", ("source",), "      rerolled:"),
    E_DRAGON: T("dragon", ("lair", "need"),
                "Level {level}, the dragon attacks ({lair_n} in the Lair): it takes {need} different companions",
                words=lambda f, ctx: {"lair_n": count(f["lair"], "dragon")}),
    E_SLAIN: T("slain", (), "      the dragon is slain; the Lair empties"),
    E_ULTIMATE: T("ultimate", ("unit", "arg"), "      ultimate: {ultimate}",
                  words=lambda f, ctx: {"ultimate": ctx.rules.ultimate_names[ctx.hero][ctx.side]}),
    E_TREASURE: T("treasure", ("treasure",), "      uses {treasure:a treasure}"),
    E_FLEE: T("flee", ("cause",), "Level {level}, the party flees from the {cause:flee}"),
    E_PORTAL: T("portal", ("treasure",), "Level {level}, the party escapes with {treasure:a treasure}"),
    E_RETIRE: T("retire", ("at",), "Level {level}, the party retires to the tavern"),
    E_SEARCH: T("search", S.DECISION_FIELDS, S.DECISION_TEMPLATE,
                words=lambda f, ctx: S.decision_words(f, A.KIND_NAMES)),
    E_SEARCH_OPT: T("search option", S.OPTION_FIELDS, S.OPTION_TEMPLATE, words=S.option_words),
    E_END: T("end", ("score", "xp", "rank"), "== end: score {score} (XP {xp}), rank {rank:rank} =="),
}


def _hero_side(ctx: Context, code: int, fields) -> list[str] | None:
    """Follow the hero's side across rows: each delve says it, mastering turns it to 1."""
    if code == E_DELVE:
        ctx.side = fields["side"]
    elif code == E_MASTER:
        ctx.side = 1
    return None


TABLE = TraceTable("delve", CODES, KINDS, common=("delve", "level"), hook=_hero_side)


def format_trace(trace: np.ndarray, rs: DelveRules, hero: str) -> list[str]:
    """One line per event of ``trace`` (row 0 holds the event count)."""
    if trace.shape[0] == 0:
        return []
    return TABLE.format(trace[1 : int(trace[0, 0]) + 1], Context(rs, hero))
