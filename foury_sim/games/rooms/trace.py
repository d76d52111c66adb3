"""The words of Rooms' trace codes (``layout.EV_*``: the fight's 1..31, navigation's 32..63), and ``format_trace``:
the replay in words with the dungeon drawn in text at the start of each turn. A row is [code, f1..f7]; cells are said
"row R, column C"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...trace_format import TraceCode, TraceTable, count
from . import layout as L
from .combat import _rules_of


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
    seat: int = 0  # the race: the seat whose events follow (0: the solo game)
    seats: dict[int, tuple] = field(default_factory=dict)  # the race: each seat's (cards, seen, entered, here)
    gold: int | None = None  # the hero's gold as the replay has followed it (from each turn's line; None: not yet)


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


def _card_and_kind(f, ctx: Context) -> str:
    """``rat den (monster room)``; a card named after its kind is named once (``fountain room``, not
    ``fountain (fountain room)``)."""
    card, kind = _card(f["card"], ctx), _kind(f["kind"], ctx)
    if card in (kind, f"{kind} room"):
        return f"{kind} room"
    return f"{card} ({kind} room)"


#: the names of the two functions of a two-function room (the seed's Blacksmith and Warp Room), by room kind
_FUNCTIONS = {L.K_BLACKSMITH: ("forge", "mend"), L.K_WARP: ("warp travel", "cache")}


def _function(kind: int, fn: int) -> str:
    """A two-function room's function by name; a one-function room has no name for it (None)."""
    names = _FUNCTIONS.get(int(kind))
    return names[fn] if names is not None and 0 <= fn < 2 else None


def _hp(v: int) -> str:
    """The hero's HP after a loss: ``3 HP``; ``0 HP: dead``; ``0 HP: dead, 3 damage over`` below 0 (the state keeps
    the negative number; the words do not)."""
    return f"{v} HP" if v > 0 else ("0 HP: dead" if v == 0 else f"0 HP: dead, {-v} damage over")


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
    return {"sides": ", ".join(sides), "red": " (red outline: a hazard)" if f["hazard"] else "",
            "what": _card_and_kind(f, ctx)}


def _paid(f, ctx: Context) -> dict[str, Any]:
    left, hp = count(f["left"], "move"), _hp(f["hp"])
    if f["paid"] < 0:
        how = ""
    elif f["paid"] == L.PASS_ITEM:
        how = f" (spends {'a key' if f['barrier'] == L.DOOR_LOCKED else 'a bomb'})"
    else:
        cost = int(ctx.rules.nav[L.N_HP_COST])
        how = f" (pays {cost} HP instead of {'a key' if f['barrier'] == L.DOOR_LOCKED else 'a bomb'})"
    return {"how": how, "left_moves": left, "hp_text": hp}


def _card_at(cell: int, ctx: Context) -> int:
    """The card at ``cell`` as the replay has seen it (-1 unknown)."""
    card = ctx.cards.get(cell)
    if card is None and 0 <= cell < ctx.rules.dungeon.n:
        card = int(ctx.rules.dungeon.cells[cell, 0])
    return card if card is not None and card >= 0 else -1


def _kind_at(cell: int, ctx: Context) -> int:
    """The room kind of the card at ``cell`` as the replay has seen it (-1 unknown)."""
    card = _card_at(cell, ctx)
    return int(ctx.rules.cards[card, L.CD_KIND]) if card >= 0 else -1


def _decision(f, ctx: Context) -> dict[str, Any]:
    kind, act, arg, cell = f["kind"], f["action"], f["arg"], f["cell"]
    if kind == L.D_ACT:
        what = L.ACT_NAMES[act] if 0 <= act < len(L.ACT_NAMES) else f"action {act}"
        if act == L.A_MOVE:
            what = f"move {L.SIDES[arg]} to {_cell(cell, ctx)}"
        elif act == L.A_WARP:
            what = f"warp to {_cell(cell, ctx)}"
        elif act == L.A_MIRROR:
            what = f"use the Magic Mirror to go to {_cell(cell, ctx)}"
        elif act == L.A_RESOLVE:
            fn = _function(_kind_at(cell, ctx), arg)
            what = f"resolve the room's {fn}" if fn else "resolve the room"
    elif kind == L.D_PASS:
        item = "a key" if arg == L.DOOR_LOCKED else "a bomb"
        what = ("turn back", f"use {item}", f"pay 1 HP instead of {item}")[act] if 0 <= act < 3 else f"answer {act}"
    elif kind == L.D_RESOLVE:
        fn = _function(_kind_at(cell, ctx), arg)
        what = "leave it for later" if act < 0 else (f"resolve its {fn}" if fn else "resolve it")
    else:
        what = "leave the shop" if act < 0 else f"buy {_item(act, ctx)} for {arg} gold"
    return {"what": what, "kind_name": L.NAV_DECISIONS[kind - L.D_ACT] if kind >= L.D_ACT else str(kind)}


_FUNCTION = ("first", "second")


def _gain(f, ctx: Context) -> dict[str, Any]:
    """``gets a bomb from the warp room (2 bombs now)``, ``gets 4 gold (...)``, ``gets the Speed Boots``."""
    item, n, held = f["item"], f["amount"], f["held"]
    if item == L.IT_GOLD:
        return {"got": f"{n} gold", "now": f" ({held} gold now)"}
    if item == L.IT_BOOTS:
        return {"got": "the Speed Boots", "now": ""}
    if item == L.IT_MIRROR:
        return {"got": "a Magic Mirror", "now": f" ({count(held, 'teleport')} now)"}
    noun = {L.IT_ARMOR: "armour piece"}.get(item, _item(item, ctx))
    got = ("an " + noun if noun[0] in "aeiou" else "a " + noun) if n == 1 else count(n, noun)
    return {"got": got, "now": f" ({count(held, noun)} now)"}
#: what a resolution's amount means, by room kind
_GOT = {L.K_TREASURE: " (the chest's d6: {})", L.K_FOUNTAIN: " (+{} HP)", L.K_BLACKSMITH: " (+{} HP)"}
NAV_CODES = {
    L.EV_NAV_TURN: TraceCode("turn", ("turn", "moves", "hp", "keys", "bombs", "potions", "gold"),
                             "== turn {turn}: {n_moves}, {hp} HP, {n_keys}, {n_bombs}, {n_potions}, {gold} gold",
                             words=lambda f, c: {"n_moves": count(f["moves"], "move"),
                                                 "n_keys": count(f["keys"], "key"),
                                                 "n_bombs": count(f["bombs"], "bomb"),
                                                 "n_potions": count(f["potions"], "potion")}),
    L.EV_DEAL: TraceCode("deal", ("dealt", "deck", "z1", "z2", "z3", "z4", "z5"),
                         "the dungeon is laid: {dealt} cards dealt face down from a deck of {deck}"),
    L.EV_REVEAL: TraceCode("reveal", ("cell", "card", "kind", "rot", "doors", "hazard", "z1"),
                           "  the card at {cell:cell} turns face up: {what}, {sides}{red}",
                           words=_doors),
    L.EV_STEP: TraceCode("step", ("src", "dst", "side", "barrier", "paid", "left", "hp"),
                         "  steps {side:side} from {src:cell} to {dst:cell}{how}, {left_moves} left, {hp_text}",
                         words=_paid),
    L.EV_BACK: TraceCode("back", ("src", "dst", "side", "barrier", "z1", "z2", "z3"),
                         "  turns back from the {barrier:door} {side:side} of {src:cell}"),
    L.EV_ENTER: TraceCode("enter", ("cell", "kind", "first", "hazard", "tokens", "z1", "z2"),
                          {1: "  enters the {kind:kind} room at {cell:cell} (first time)",
                           None: "  enters the {kind:kind} room at {cell:cell} again"}, by="first"),
    L.EV_RESOLVE: TraceCode("resolve", ("cell", "kind", "fn", "amount", "hp", "done", "z1"),
                            {1: "  resolves the {kind:kind} room{fn_name}{got}: {hp} HP; a navigation token covers "
                                "it",
                             None: "  leaves the {kind:kind} room unresolved ({hp} HP)"}, by="done",
                            words=lambda f, c: {"got": _GOT.get(f["kind"], "").format(f["amount"]),
                                                "fn_name": (f"'s {_function(f['kind'], f['fn'])}"
                                                            if _function(f["kind"], f["fn"]) else "")}),
    L.EV_WARP: TraceCode("warp", ("src", "dst", "counted", "z1", "z2", "z3", "z4"),
                         "  warps from {src:cell} to {dst:cell}{note}",
                         words=lambda f, c: {"note": " (a move)" if f["counted"] else " (not a move)"}),
    L.EV_MIRROR: TraceCode("mirror", ("src", "dst", "left", "counted", "z1", "z2", "z3"),
                           "  the Magic Mirror teleports the hero from {src:cell} to {dst:cell} ({uses} left)",
                           words=lambda f, c: {"uses": count(f["left"], "use")}),
    L.EV_POTION: TraceCode("potion", ("heal", "hp", "left", "z1", "z2", "z3", "z4"),
                           "  drinks a potion: +{heal} HP, {hp} HP, {potions} left",
                           words=lambda f, c: {"potions": count(f["left"], "potion")}),
    L.EV_GAIN: TraceCode("gain", ("item", "amount", "held", "source", "z1", "z2", "z3"),
                         "  gets {got} from the {source:kind} room{now}", words=_gain),
    L.EV_DECIDE: TraceCode("decide", ("kind", "choice", "n", "action", "arg", "cell", "z1"),
                           "  - {kind_name}: {what} (option {choice} of {n})", words=_decision),
    L.EV_TRAP: TraceCode("trap", ("roll", "dodge", "dmg", "hp", "z1", "z2", "z3"),
                         "  the trap: a d6 of {roll} (dodged on {dodge}+): {dmg} damage, {hp_text}",
                         words=lambda f, c: {"hp_text": _hp(f["hp"])}),
    L.EV_ROOM_FIGHT: TraceCode("fight", ("cell", "kind", "n", "m1", "m2", "m3", "z1"),
                               "  a fight in the {kind:kind} room: {who}", words=_monsters),
    L.EV_END: TraceCode("end", ("won", "cause", "hp", "turn", "room", "z1", "z2"),
                        {1: "== the boss is defeated on turn {turn}: WON with {hp} HP",
                         None: "== LOST on turn {turn} (cause: {cause:cause})"}, by="won"),
}

# ---------------------------------------------------------------------- the trace in words --
# Fight events 1..16 (``layout.EV_*``) in words, for the table below. The formatting context (``trace.Context``)
# gives the ruleset (``rules``) and the hero's key (``hero``); the words below also keep, on the context, the dice of
# the last offensive roll (a keep mask is over them) and the monster in each slot of the fight.


def _sheet(ctx):
    rules = getattr(ctx, "rules", None)
    hero = getattr(ctx, "hero", None)
    heroes = getattr(_rules_of(rules), "heroes", None) if rules is not None else None
    return heroes.get(hero) if heroes and hero in heroes else None


def face_text(face: int, ctx) -> str:
    """A hero die's face in words: its number and symbol (``4 step``), or ``face N`` without a sheet."""
    h = _sheet(ctx)
    if h is None or not 0 <= face < L.N_FACES:
        return f"face {face + 1}"
    sym = int(h.faces[face, L.F_SYMBOL])
    num = int(h.faces[face, L.F_NUMBER])
    return f"{num} {h.symbols[sym]}" if sym != L.NO_SYMBOL else str(num)


def _dice_text(faces, ctx) -> str:
    return "[" + ", ".join(face_text(f, ctx) for f in faces) + "]"


def _monster_name(row: int, ctx) -> str:
    rules = getattr(ctx, "rules", None)
    if rules is not None and 0 <= row < len(_rules_of(rules).monsters):
        return list(_rules_of(rules).monsters.values())[row].name
    return f"monster kind {row}"


def _slot_name(slot: int, ctx) -> str:
    """``the Goblin (monster 2)``: the monster in fight slot ``slot`` (as the fight's first event named it)."""
    rows = getattr(ctx, "fight_rows", {}) if ctx is not None else {}
    row = rows.get(slot)
    return f"the {_monster_name(row, ctx)} (monster {slot + 1})" if row is not None else f"monster {slot + 1}"


def _remember(ctx, **kw) -> None:
    if ctx is not None:
        for k, v in kw.items():
            setattr(ctx, k, v)


def _remember_row(ctx, slot: int, row: int) -> dict:
    if ctx is not None:
        rows = getattr(ctx, "fight_rows", None)
        if rows is None:
            rows = {}
            ctx.fight_rows = rows
        rows[slot] = row
    return {}


def _w_fight(f, ctx):
    rows = [f[k] for k in ("m1", "m2", "m3") if f[k] >= 0]
    _remember(ctx, fight_rows=dict(enumerate(rows)), last_dice=[])
    who = [f"{_monster_name(r, ctx)} (monster {i + 1})" for i, r in enumerate(rows)]
    if f["n"] > len(rows):
        who.append(f"{f['n'] - len(rows)} more")
    return {"who": ", ".join(who) or "nobody"}


def _w_turn(f, ctx):
    st = [f"{f['poison']} poison" if f["poison"] else "", f"{f['stun']} stun" if f["stun"] else "",
          f"a block token of {f['block']}" if f["block"] else ""]
    st = [s for s in st if s]
    return {"status": (", " + ", ".join(st)) if st else ""}


def _w_roll(f, ctx):
    dice = [f[k] for k in ("d1", "d2", "d3", "d4", "d5") if f[k] >= 0]
    prev = list(getattr(ctx, "last_dice", []) or []) if ctx is not None else []
    _remember(ctx, last_dice=dice)
    if f["mask"] < 0:
        return {"text": f"rolls {count(len(dice), 'die')}: {_dice_text(dice, ctx)}"}
    kept = [d for i, d in enumerate(prev) if (f["mask"] >> i) & 1]
    held = f"holds {_dice_text(kept, ctx)}" if kept else "holds nothing"
    return {"text": f"{held}, rerolls {count(len(dice) - len(kept), 'die')}: {_dice_text(dice, ctx)}"}


def _w_fire(f, ctx):
    h = _sheet(ctx)
    ab = f["ability"]
    name = f"{h.ability_names[ab]} ({h.combo_text(ab)})" if h is not None and 0 <= ab < len(h.ability_names) \
        else f"ability {ab + 1}"
    parts = []
    if f["damage"]:
        blocked = f" ({f['blocked']} blocked by its defensive roll)" if f["blocked"] else ""
        parts.append(f"{f['damage']} damage{blocked}")
    if f["unblockable"]:
        parts.append(f"{f['unblockable']} unblockable")
    if f["target"] >= 0:
        hit = f" on {_slot_name(f['target'], ctx)}: " + (" + ".join(parts) + ", " if parts else "") + \
            f"{f['dealt']} HP dealt"
    else:
        hit = ""
    return {"name": name, "hit": hit}


def _w_effect(f, ctx):
    parts = []
    if f["heal"]:
        parts.append(f"heals {f['heal']}")
    if f["block"]:
        parts.append(f"a block token of {f['block']}")
    if f["poison"]:
        parts.append(f"{f['poison']} poison on the target")
    if f["stun"]:
        parts.append(f"{f['stun']} stun on the target")
    if f["cp"]:
        parts.append(f"+{f['cp']} CP")
    return {"text": ", ".join(parts)}


def _who(v: int, ctx) -> str:
    return "the hero" if v < 0 else _slot_name(v, ctx)


def _w_attack(f, ctx):
    if f["attack"] <= 0:
        return {"text": "attacks for nothing"}
    parts = []
    if f["token"]:
        parts.append(f"the block token stops {f['token']}")
    if f["block"]:
        parts.append(f"the defensive roll blocks {f['block']}")
    if f["counter"]:
        parts.append(f"counters {f['counter']}")
    how = (" (" + ", ".join(parts) + ")") if parts else ""
    lost = f"the hero loses {f['lost']} HP, {_hp(f['hp'])}" if f["lost"] else f"no HP lost, {f['hp']} HP"
    return {"text": f"attacks for {f['attack']}{how}: {lost}"}


def _w_died(f, ctx):
    k = f["killer"]
    if k == L.KILLED_BY_POISON:
        by = "poison"
    elif k > 0:
        by = "the " + _monster_name(k - 1, ctx)
    else:
        by = "exhaustion"
    return {"by": by}


def _w_def(f, ctx):
    code = f["faces"]
    faces = [((code >> (3 * i)) & 7) - 1 for i in range(f["dice"])]
    counter = f", counters {f['counter']}" if f["counter"] else ""
    return {"rolled": _dice_text(faces, ctx), "counter": counter, "blocks": f"blocks {f['block']}" if f["block"]
            else "blocks nothing"}


def _w_inflict(f, ctx):
    """Only the statuses inflicted (and held), not ``0 stun``."""
    what = [f"{f['poison']} poison" if f["poison"] else "", f"{f['stun']} stun" if f["stun"] else ""]
    has = [f"{f['hero_poison']} poison" if f["hero_poison"] else "", f"{f['hero_stun']} stun" if f["hero_stun"] else ""]
    return {"what": " and ".join(w for w in what if w) or "nothing", "has": ", ".join(h for h in has if h) or "none"}


_Z = ("z1", "z2", "z3", "z4", "z5", "z6")
#: The words of the fight's trace codes (``trace.py`` merges them with the navigation's).
FIGHT_CODES = {
    L.EV_FIGHT: TraceCode("fight_start", ("n", "m1", "m2", "m3", "hp", "cp", "z1"),
                          "  -- the fight begins: {who}; the hero has {hp} HP, {cp} CP", words=_w_fight),
    L.EV_TURN: TraceCode("fight_turn", ("turn", "hp", "cp", "poison", "stun", "block", "z1"),
                         "   fight turn {turn}: {hp} HP, {cp} CP{status}", words=_w_turn),
    L.EV_ROLL: TraceCode("roll", ("roll", "d1", "d2", "d3", "d4", "d5", "mask"),
                         "    roll {roll}: {text}", words=_w_roll),
    L.EV_BUY: TraceCode("buy_reroll", ("paid", "cp", *_Z[:5]),
                        "    buys a reroll for {paid} CP ({cp} CP left)"),
    L.EV_FIRE: TraceCode("fire", ("ability", "target", "damage", "blocked", "unblockable", "dealt", "z1"),
                         "    fires {name}{hit}", words=_w_fire),
    L.EV_NOTHING: TraceCode("nothing", _Z[:6] + ("z7",), "    the dice make no ability: nothing is fired"),
    L.EV_EFFECT: TraceCode("effect", ("heal", "block", "poison", "stun", "cp", "hp", "z1"),
                           "      and {text}: the hero has {hp} HP", words=_w_effect),
    L.EV_POISON_TICK: TraceCode("poison", ("who", "damage", "left", "hp", *_Z[:3]),
                                "    poison hurts {who:who} for {damage}: {hp_text}, {stacks} left",
                                words=lambda f, c: {"hp_text": _hp(f["hp"]), "stacks": count(f["left"], "stack")}),
    L.EV_STUNNED: TraceCode("stunned", ("who", "left", *_Z[:5]),
                            {-1: "    the hero is stunned and skips the turn ({left} stun left)",
                             None: "    {who:who} is stunned and skips its attack ({left} stun left)"}, by="who"),
    L.EV_ATTACK: TraceCode("attack", ("slot", "attack", "token", "block", "counter", "lost", "hp"),
                           "    {slot:who} {text}", words=_w_attack),
    L.EV_MON_DEAD: TraceCode("monster_dies", ("slot", "row", *_Z[:5]), "    {slot:who} dies",
                             words=lambda f, c: _remember_row(c, f["slot"], f["row"])),
    L.EV_WON: TraceCode("fight_won", ("turns", "hp", "dealt", "taken", *_Z[:3]),
                        "  -- the fight is won in {fight_turns}: {hp} HP left, {dealt} damage dealt, {taken} taken",
                        words=lambda f, c: {"fight_turns": count(f["turns"], "fight turn")}),
    L.EV_DIED: TraceCode("fight_lost", ("turns", "killer", "dealt", "taken", *_Z[:3]),
                         "  -- the hero dies in fight turn {turns}, killed by {by} ({dealt} damage dealt, "
                         "{taken} taken)", words=_w_died),
    L.EV_DEF_ROLL: TraceCode("defence", ("who", "dice", "faces", "block", "counter", "z1", "z2"),
                             "    the hero's defensive roll {rolled}: {blocks}{counter}", words=_w_def),
    L.EV_INFLICT: TraceCode("inflict", ("slot", "poison", "stun", "hero_poison", "hero_stun", "z1", "z2"),
                            "    {slot:who} inflicts {what}: the hero has {has}", words=_w_inflict),
    L.EV_EXHAUSTED: TraceCode("exhausted", ("turns", *_Z), "  -- {turns} fight turns and the monsters still stand: "
                              "the hero is exhausted (combat.max_fight_turns)"),
}
#: field formatters the fight's words use (``trace.py`` adds them to its table's)
FIGHT_KINDS = {"who": _who}


# The race (race.players >= 2): whose turn it is, and how the race was decided.
RACE_CODES = {
    L.EV_SEAT: TraceCode("seat", ("seat", "players", "turn", "hp", "z1", "z2", "z3"),
                         {0: "==== Player {seat} of {players}: their own dungeon is laid",
                          None: "==== Player {seat}'s turn {turn} ({hp} HP)"}, by="turn"),
    L.EV_RACE_END: TraceCode("race_end", ("winner", "end", "turn", "swapped", "score", "on", "z1"),
                             {1: "==== the race is decided after round {turn}: {winner:seatw} ({end:race_end}); "
                                 "with the seats reversed, {swapped:seatw}. Player 1 plays on alone to the end of "
                                 "their game (the per-game columns)",
                              None: "==== the race is decided after round {turn}: {winner:seatw} ({end:race_end}); "
                                    "with the seats reversed, {swapped:seatw}"}, by="on"),
}

TABLE = TraceTable(
    "rooms",
    codes={**FIGHT_CODES, **NAV_CODES, **RACE_CODES},
    kinds={"cell": _cell, "card": _card, "kind": _kind, "item": _item, "side": L.SIDES, "door": L.DOOR_NAMES,
           "fn": _FUNCTION, "cause": L.CAUSE_NAMES, **FIGHT_KINDS,
           "seatw": lambda v, c: "no winner" if v == 0 else f"player {v} wins",
           "race_end": L.RACE_END_NAMES},
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


def _start_here(ctx: Context) -> None:
    d = ctx.rules.dungeon
    for cell in range(d.n):
        card = int(d.cells[cell, 0])
        if card >= 0 and int(ctx.rules.cards[card, L.CD_KIND]) == L.K_START:
            ctx.here = cell
            ctx.entered.add(cell)


def _seat(ctx: Context, seat: int) -> None:
    """The race: the dungeon view (cards, seen, entered, here) of ``seat`` from now on."""
    if seat == ctx.seat:
        return
    ctx.seats[ctx.seat] = (ctx.cards, ctx.seen, ctx.entered, ctx.here)
    if seat in ctx.seats:
        ctx.cards, ctx.seen, ctx.entered, ctx.here = ctx.seats[seat]
    else:
        ctx.cards, ctx.seen, ctx.entered, ctx.here = {}, set(), set(), -1
        _start_here(ctx)
    ctx.seat = seat


#: the room kinds whose resolution is a fight (won: the card's gold; ``kernel.room_fight``)
_FIGHT_KINDS = (L.K_MONSTER, L.K_BOUNTY, L.K_BOSS)


def _follow_gold(ctx: Context, code: int, f) -> list[str] | None:
    """Follow the hero's gold through a turn (the kernel's every change of ``S_GOLD``: the turn's line, a gain, a
    purchase, the Blacksmith's cost, a won fight's reward), and say a won fight's gold, which no event of its own
    carries: the card's ``gold``, added when the fight is won, before the room's resolution (the line before it)."""
    if code == L.EV_NAV_TURN:
        ctx.gold = f["gold"]
    elif code == L.EV_GAIN and f["item"] == L.IT_GOLD:
        ctx.gold = f["held"]
    elif code == L.EV_DECIDE and f["kind"] == L.D_SHOP and f["action"] >= 0 and ctx.gold is not None:
        ctx.gold -= f["arg"]
    elif code == L.EV_RESOLVE and f["done"] and f["kind"] == L.K_BLACKSMITH and ctx.gold is not None:
        ctx.gold -= int(ctx.rules.nav[L.N_FORGE_COST if f["fn"] == 0 else L.N_MEND_COST])
    elif code == L.EV_RESOLVE and f["done"] and f["kind"] in _FIGHT_KINDS:
        card = _card_at(f["cell"], ctx)
        won = int(ctx.rules.cards[card, L.CD_GOLD]) if card >= 0 else 0
        if won:
            now = ""
            if ctx.gold is not None:
                ctx.gold += won
                now = f" ({ctx.gold} gold now)"
            return [f"  gets {won} gold for the fight in the {_kind(f['kind'], ctx)} room{now}"]
    return None


def _hook(ctx: Context, code: int, f) -> list[str] | None:
    if code == L.EV_SEAT:
        _seat(ctx, f["seat"])
    elif code == L.EV_RACE_END:
        _seat(ctx, 1)
    elif code == L.EV_REVEAL:
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
        out += (_follow_gold(ctx, code, fields) or []) if spec else []
        got = _hook(ctx, code, fields) if spec else None
        out += got if got is not None else TABLE.format([row], ctx)
    return out
