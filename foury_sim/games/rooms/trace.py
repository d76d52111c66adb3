"""The words of Rooms' trace codes (``layout.EV_*``; navigation 32..63 here, the fight's 1..31 from
``combat.TRACE_CODES`` when the fight module declares them), and ``format_trace``: the replay in words with the
dungeon drawn in text at the start of each turn. A row is [code, f1..f7]; cells are said "row R, column C"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...trace_format import TraceCode, TraceTable
from . import combat
from . import layout as L


@dataclass
class Context:
    rules: Any
    cols: int
    hero: Any = None
    cards: dict[int, int] = field(default_factory=dict)  # cell -> card, as revealed
    seen: set[int] = field(default_factory=set)
    entered: set[int] = field(default_factory=set)
    here: int = -1
    fight_rows: dict[int, int] = field(default_factory=dict)  # fight slot -> monster-table row (combat's words)
    last_dice: list[int] = field(default_factory=list)  # the last offensive roll's faces (a keep mask is over them)


def _cell(v: int, ctx: Context) -> str:
    if v < 0:
        return "nowhere"
    r, c = divmod(int(v), ctx.cols)
    return f"row {r + 1}, column {c + 1}"


def _card(v: int, ctx: Context) -> str:
    names = ctx.rules.card_names
    return names[v].replace("_", " ") if 0 <= v < len(names) else f"card {v}"


def _kind(v: int, ctx: Context) -> str:
    return L.ROOM_KINDS[v].replace("_", " ") if 0 <= v < L.N_KINDS else "unknown room"


def _item(v: int, ctx: Context) -> str:
    return L.ITEMS[v].replace("_", " ") if 0 <= v < L.N_ITEMS else f"item {v}"


def _monsters(f, ctx: Context) -> dict[str, Any]:
    names = ctx.rules.monster_names
    mons = [names[m].replace("_", " ") for m in (f["m1"], f["m2"], f["m3"]) if 0 <= m < len(names)]
    return {"who": ", ".join(mons) + (" and more" if f["n"] > 3 else "")}


def _doors(f, ctx: Context) -> dict[str, Any]:
    code = f["doors"]
    sides = []
    for s in range(4):
        d = code % 3
        code //= 3
        sides.append(f"{L.SIDES[s]} {L.DOOR_NAMES[d]}")
    return {"sides": ", ".join(sides), "red": " (red outline: a hazard)" if f["hazard"] else ""}


def _paid(f, ctx: Context) -> dict[str, Any]:
    if f["paid"] < 0:
        how = ""
    elif f["paid"] == L.PASS_ITEM:
        how = f" (spends {'a key' if f['barrier'] == L.DOOR_LOCKED else 'a bomb'})"
    else:
        how = f" (pays 1 HP instead of {'a key' if f['barrier'] == L.DOOR_LOCKED else 'a bomb'})"
    return {"how": how}


def _decision(f, ctx: Context) -> dict[str, Any]:
    kind, act, arg, cell = f["kind"], f["action"], f["arg"], f["cell"]
    if kind == L.D_ACT:
        what = L.ACT_NAMES[act] if 0 <= act < len(L.ACT_NAMES) else f"action {act}"
        if act == L.A_MOVE:
            what = f"move {L.SIDES[arg]} to {_cell(cell, ctx)}"
        elif act in (L.A_WARP, L.A_MIRROR):
            what = f"{what} to {_cell(cell, ctx)}"
        elif act == L.A_RESOLVE:
            what = "resolve the room's " + ("second" if arg else "first") + " function"
    elif kind == L.D_PASS:
        what = ("turn back", "use the key or bomb", "pay 1 HP")[act] if 0 <= act < 3 else f"answer {act}"
    elif kind == L.D_RESOLVE:
        what = "leave it for later" if act < 0 else "resolve its " + ("second" if arg else "first") + " function"
    else:
        what = "leave the shop" if act < 0 else f"buy {_item(act, ctx)} for {arg} gold"
    return {"what": what, "kind_name": L.NAV_DECISIONS[kind - L.D_ACT] if kind >= L.D_ACT else str(kind)}


_FUNCTION = ("first", "second")
#: what a resolution's amount means, by room kind
_GOT = {L.K_TREASURE: " (the chest's d6: {})", L.K_FOUNTAIN: " (+{} HP)", L.K_BLACKSMITH: " (+{} HP)"}
NAV_CODES = {
    L.EV_NAV_TURN: TraceCode("turn", ("turn", "moves", "hp", "keys", "bombs", "potions", "gold"),
                             "== turn {turn}: {moves} moves, {hp} HP, {keys} keys, {bombs} bombs, {potions} potions, "
                             "{gold} gold"),
    L.EV_DEAL: TraceCode("deal", ("dealt", "deck", "z1", "z2", "z3", "z4", "z5"),
                         "the dungeon is laid: {dealt} cards dealt face down from a deck of {deck}"),
    L.EV_REVEAL: TraceCode("reveal", ("cell", "card", "kind", "rot", "doors", "hazard", "z1"),
                           "  the card at {cell:cell} turns face up: {card:card} ({kind:kind} room), {sides}{red}",
                           words=_doors),
    L.EV_STEP: TraceCode("step", ("src", "dst", "side", "barrier", "paid", "left", "hp"),
                         "  steps {side:side} from {src:cell} to {dst:cell}{how}, {left} moves left, {hp} HP",
                         words=_paid),
    L.EV_BACK: TraceCode("back", ("src", "dst", "side", "barrier", "z1", "z2", "z3"),
                         "  turns back from the {barrier:door} {side:side} of {src:cell}"),
    L.EV_ENTER: TraceCode("enter", ("cell", "kind", "first", "hazard", "tokens", "z1", "z2"),
                          {1: "  enters the {kind:kind} room at {cell:cell} (first time)",
                           None: "  enters the {kind:kind} room at {cell:cell} again"}, by="first"),
    L.EV_RESOLVE: TraceCode("resolve", ("cell", "kind", "fn", "amount", "hp", "done", "z1"),
                            {1: "  resolves the {kind:kind} room's {fn:fn} function{got}: {hp} HP; a navigation token "
                                "covers it",
                             None: "  leaves the {kind:kind} room unresolved ({hp} HP)"}, by="done",
                            words=lambda f, c: {"got": _GOT.get(f["kind"], "").format(f["amount"])}),
    L.EV_WARP: TraceCode("warp", ("src", "dst", "counted", "z1", "z2", "z3", "z4"),
                         "  warps from {src:cell} to {dst:cell}{note}",
                         words=lambda f, c: {"note": " (a move)" if f["counted"] else " (not a move)"}),
    L.EV_MIRROR: TraceCode("mirror", ("src", "dst", "left", "counted", "z1", "z2", "z3"),
                           "  the Magic Mirror teleports the hero from {src:cell} to {dst:cell} ({left} uses left)"),
    L.EV_POTION: TraceCode("potion", ("heal", "hp", "left", "z1", "z2", "z3", "z4"),
                           "  drinks a potion: +{heal} HP, {hp} HP, {left} potions left"),
    L.EV_GAIN: TraceCode("gain", ("item", "amount", "held", "source", "z1", "z2", "z3"),
                         "  gets {item:a item} ({amount}) from the {source:kind} room, now {held}"),
    L.EV_DECIDE: TraceCode("decide", ("kind", "choice", "n", "action", "arg", "cell", "z1"),
                           "  - {kind_name}: {what} (option {choice} of {n})", words=_decision),
    L.EV_TRAP: TraceCode("trap", ("roll", "dodge", "dmg", "hp", "z1", "z2", "z3"),
                         "  the trap: a d6 of {roll} (dodged on {dodge}+): {dmg} damage, {hp} HP"),
    L.EV_ROOM_FIGHT: TraceCode("fight", ("cell", "kind", "n", "m1", "m2", "m3", "z1"),
                               "  a fight in the {kind:kind} room: {who}", words=_monsters),
    L.EV_END: TraceCode("end", ("won", "cause", "hp", "turn", "room", "z1", "z2"),
                        {1: "== the boss is defeated on turn {turn}: WON with {hp} HP",
                         None: "== LOST on turn {turn} ({cause:cause})"}, by="won"),
}

TABLE = TraceTable(
    "rooms",
    codes={**getattr(combat, "TRACE_CODES", {}), **NAV_CODES},
    kinds={"cell": _cell, "card": _card, "kind": _kind, "item": _item, "side": L.SIDES, "door": L.DOOR_NAMES,
           "fn": _FUNCTION, "cause": L.CAUSE_NAMES, **getattr(combat, "TRACE_KINDS", {})},
)

_KIND_CHAR = {L.K_START: "S", L.K_MONSTER: "M", L.K_TRAP: "T", L.K_TREASURE: "C", L.K_FOUNTAIN: "F",
              L.K_BLACKSMITH: "B", L.K_WARP: "W", L.K_BOUNTY: "H", L.K_SHOP: "$", L.K_BOSS: "X"}


def draw_dungeon(ctx: Context) -> list[str]:
    """The dungeon in text: each room as its kind's letter (S start, M monster, T trap, C chest, F fountain,
    B blacksmith, W warp, H bounty hunter, $ shop, X boss), ``?`` face down, ``.`` no room; ``*`` marks the hero,
    ``+`` a room entered before."""
    d = ctx.rules.dungeon
    lines = []
    for r in range(d.rows):
        parts = []
        for c in range(d.cols):
            cell = r * d.cols + c
            card = int(d.cells[cell, 0])
            if card == -1:
                parts.append(" .  ")
                continue
            if cell in ctx.seen and cell in ctx.cards:
                ch = _KIND_CHAR[int(ctx.rules.cards[ctx.cards[cell], L.CD_KIND])]
            elif card >= 0 and int(ctx.rules.cards[card, L.CD_KIND]) in (L.K_START, L.K_BOSS):
                ch = _KIND_CHAR[int(ctx.rules.cards[card, L.CD_KIND])]
            else:
                ch = "?"
            mark = "*" if cell == ctx.here else ("+" if cell in ctx.entered else " ")
            parts.append(f"[{ch}{mark}]")
        lines.append("    " + "".join(parts))
    return lines


def _hook(ctx: Context, code: int, f) -> list[str] | None:
    if code == L.EV_REVEAL:
        ctx.cards[f["cell"]] = f["card"]
        ctx.seen.add(f["cell"])
    elif code == L.EV_ENTER:
        ctx.entered.add(f["cell"])
        ctx.here = f["cell"]
    elif code == L.EV_NAV_TURN:
        return TABLE.format([[code, *(f[k] for k in NAV_CODES[code].fields)]], ctx) + draw_dungeon(ctx)
    return None


def format_trace(trace: np.ndarray, rules: Any, hero: Any = None) -> list[str]:
    """The replay in words: every navigation event and every fight event, the dungeon drawn each turn."""
    n = int(trace[0, 0]) if trace.shape[0] else 0  # unused: the count lives in st[S_NTRACE]
    del n
    rows = [r for r in trace[1:] if r[0] != 0]
    d = rules.dungeon
    ctx = Context(rules, d.cols, hero)
    for cell in range(d.n):
        card = int(d.cells[cell, 0])
        if card >= 0 and int(rules.cards[card, L.CD_KIND]) == L.K_START:
            ctx.here = cell
            ctx.entered.add(cell)
    out: list[str] = []
    for row in rows:
        code = int(row[0])
        spec = TABLE.codes.get(code)
        fields = dict(zip(spec.fields, (int(x) for x in row[1:]), strict=False)) if spec else {}
        got = _hook(ctx, code, fields) if spec else None
        out += got if got is not None else TABLE.format([row], ctx)
    return out
