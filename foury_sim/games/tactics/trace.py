"""The words of Tactics' trace codes (``layout.E_*``, logged by ``kernel.ev``): one table, rendered by
``trace_format``. A row is [code, turn, a0..a7]. Tiles are said as "row R, column C" (1-based)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...trace_format import TraceCode, TraceTable, count
from . import layout as A
from .ruleset import LOOT_NAMES, POTION_NAMES, R_CHICKEN_SIXES, R_TRIPLE_SIXES, SHRINE_NAMES, TacticsRules


@dataclass
class Context:
    rules: TacticsRules

    @property
    def cols(self) -> int:
        return int(self.rules.lv[A.LV_COLS])


def _cell(v: int, ctx: Context) -> str:
    if v < 0:
        return "nowhere"
    r, c = divmod(int(v), ctx.cols)
    return f"row {r + 1}, column {c + 1}"


def _mon(k: int, ctx: Context) -> str:
    names = ctx.rules.monster_names
    return names[k].replace("_", " ") if 0 <= k < len(names) else f"monster {k}"


def _weapon(r: int, ctx: Context) -> str:
    return ctx.rules.weapon_names[r].replace("_", " ")


def _armor(r: int, ctx: Context) -> str:
    return ctx.rules.armor_names[r].replace("_", " ")


def _item(f) -> str:
    return {A.IT_WEAPON: "weapon", A.IT_ARMOR: "armour", A.IT_POTION: "potion", A.IT_FOOD: "food",
            A.IT_MAGIC: "magic item"}.get(f["cat"], "item")


def _hp_after_use(f) -> int:
    """The HP once an item's use is done: the ``hp`` field is written before a gamble's loss (the ??? potion under
    ``rulings.mystery_potion = "gamble"``, a 4-6) is taken, so the line would say 9 HP for 9 - 2 = 7 (at 0, the
    Amulet of Resurrection's line follows)."""
    if f["item"] == A.U_MYSTERY and f["value"] < 0:
        return max(f["hp"] + f["value"], 0)
    return f["hp"]


def _item_name(f, ctx: Context) -> str:
    cat, k = f["cat"], f["item"]
    if cat == A.IT_WEAPON:
        return _weapon(k, ctx)
    if cat == A.IT_ARMOR:
        return _armor(k, ctx)
    if cat == A.IT_POTION:
        return f"{POTION_NAMES[k]} potion" if k < 2 else "??? potion"
    if cat == A.IT_MAGIC:
        return A.USE_NAMES[{0: A.U_BERSERK, 2: A.U_RUNE, 3: A.U_HOLY_BOLT, 5: A.U_TELEPORT, 4: A.U_GAMBLER}.get(
            k, -1)] if k != 1 else "Amulet of Resurrection"
    return "some food"


_GOT = ("kept", "a duplicate, discarded", "over the stack, discarded", "a duplicate magic item: food instead")


def _option(f, ctx: Context) -> str:
    act, arg, cell = f["action"], f["arg"], f["cell"]
    if act == A.A_MOVE:
        return f"move {A.DIR_NAMES[arg]} to {_cell(cell, ctx)} ({f['cost']} AP)"
    if act == A.A_ATTACK:
        return f"attack the monster at {_cell(cell, ctx)}"
    if act == A.A_INTERACT:
        return f"open the {A.THING_NAMES[arg]} at {_cell(cell, ctx)}" if arg != A.X_KEY else \
            f"pick up the key at {_cell(cell, ctx)}"
    if act == A.A_USE:
        return f"use the {A.USE_NAMES[arg]}"
    if act == A.A_EQUIP:
        return f"wear the {_armor(arg - A.EQ_ARMOR, ctx)}" if arg >= A.EQ_ARMOR else f"wield the {_weapon(arg, ctx)}"
    if act == A.A_REST:
        return "rest (the DM's turn is skipped)"
    if act == A.A_END:
        return "end the turn"
    if act == A.A_M_MOVE:
        return f"monster {arg} steps to {_cell(cell, ctx)} ({f['cost']} AP)"
    if act == A.A_M_ATTACK:
        return f"monster {arg} attacks ({f['cost']} AP)"
    if act == A.A_M_SHOOT:
        return f"monster {arg} shoots ({f['cost']} AP)"
    if act == A.A_M_REVIVE:
        return f"monster {f['mon']} revives the skeleton {arg} ({f['cost']} AP)"
    if act == A.A_DM_END:
        return "end the DM's turn"
    if act == A.A_SPAWN_KIND:
        return f"spawn {_mon(arg, ctx)}" if arg >= 0 else "spawn no monster"
    if act == A.A_SPAWN_AT:
        return f"at {_cell(cell, ctx)}"
    if act == A.A_OPEN_DOOR:
        return f"open the {A.COLOR_NAMES[arg] or 'locked'} door at {_cell(cell, ctx)}"
    if act == A.A_KEEP:
        return f"keep the {A.GAMBLE_ROLLS[arg]}"
    if act == A.A_REROLL:
        return f"reroll the {A.GAMBLE_ROLLS[arg]} with the Gambler's Die"
    return f"action {act}"


_NUMBERS = ("no", "one", "two", "three", "four", "five", "six")


def _sixes(ctx: Context, slot: int, two: str = "two sixes") -> str:
    """The sixes a rule needs (``abilities.chicken_sixes`` / ``triple_six_sixes`` at ``slot``) in words."""
    n = int(ctx.rules.rules[slot])
    return two if n == 2 else "one six" if n == 1 else f"{_NUMBERS[n] if 0 <= n <= 6 else n} sixes"


def _dice(f) -> str:
    faces = [f[f"d{i}"] for i in range(1, 7) if f[f"d{i}"] > 0]
    return " + ".join(str(x) for x in faces) + f" = {sum(faces)}"


def _rolloff(f, ctx: Context) -> dict:
    res = {1: "the adventurer wins", 0: "a tie", -1: "the monster wins"}[f["result"]]
    if f["mode"] >= 4:
        res += f" with a massive blow ({_sixes(ctx, R_TRIPLE_SIXES)})"
    dmg = []
    if f["dmg_mon"]:
        dmg.append(f"the {_mon(f['kind'], ctx)} loses {f['dmg_mon']} HP")
    if f["dmg_player"]:
        dmg.append(f"the adventurer loses {f['dmg_player']} HP")
    how = ("melee", "ranged shot by the adventurer", "ranged shot by the monster")[f["mode"] % 4]
    return {"res": res, "dmg": "; ".join(dmg) if dmg else "no damage", "how": how}


def _spawn_code(code: int) -> str:
    if code >= 0:
        return ("undead", "demon", "golem", "humanoid", "beast")[code] if code < 5 else str(code)
    return {-1: "nothing", -2: "any category (the DM's choice)", -3: "roll again"}.get(code, str(code))


T = TraceCode
CODES: dict[int, TraceCode] = {
    A.E_TURN: T("turn", ("hp", "ap", "cell", "awake"),
                "== turn {turn}: the adventurer at {cell:cell}, {hp} HP, {ap} AP; {awake_n} awake ==",
                words=lambda f, ctx: {"awake_n": count(f["awake"], "monster")}),
    A.E_DECISION: T("decision", ("kind", "choice", "options", "action", "arg", "cell", "cost", "mon"),
                    "   {who} (option {number} of {options}): {what}",
                    words=lambda f, ctx: {"number": f["choice"] + 1, "what": _option(f, ctx),
                                          "who": "the DM decides" if A.D_FIRST_DM <= f["kind"] <= A.D_LAST_DM
                                          else "the adventurer decides"}),
    A.E_MOVE: T("move", ("src", "dst", "cost", "ap", "dir"),
                "      moves {dir_name} to {dst:cell}: {cost} AP, {ap} left",
                words=lambda f, ctx: {"dir_name": A.DIR_NAMES[f["dir"]] if 0 <= f["dir"] < 5 else ""}),
    A.E_WAKE: T("wake", ("slot", "kind", "cell", "attacked"),
                {0: "      the {kind:mon} (monster {slot}) at {cell:cell} sees the adventurer and wakes",
                 None: "      the {kind:mon} (monster {slot}) at {cell:cell} is attacked and wakes"}, by="attacked"),
    A.E_DICE: T("dice", ("side", "d1", "d2", "d3", "d4", "d5", "d6", "n"),
                {0: "      the adventurer rolls {dice}", None: "      the monster rolls {dice}"}, by="side",
                words=lambda f, ctx: {"dice": _dice(f)}),
    A.E_ROLLOFF: T("rolloff", ("slot", "kind", "p_total", "m_total", "result", "dmg_mon", "dmg_player", "mode"),
                   "      {how} against the {kind:mon}: {p_total} to {m_total}, {res}: {dmg}", words=_rolloff),
    A.E_KILL: T("kill", ("slot", "kind", "cell", "by_player"),
                {1: "      the {kind:mon} (monster {slot}) is slain at {cell:cell}",
                 None: "      the {kind:mon} (monster {slot}) dies at {cell:cell}"}, by="by_player"),
    A.E_LOOT_ROLL: T("loot roll", ("source", "face", "code", "cell"),
                     "      loot chance ({src}): the die shows {face}: {what}",
                     words=lambda f, ctx: {"src": A.SOURCE_NAMES[f["source"]],
                                           "what": LOOT_NAMES[f["code"]].replace("_", " ")}),
    A.E_ITEM: T("item", ("cat", "item", "got", "held"), "      found {name} ({cat_name}): {got_words}",
                words=lambda f, ctx: {"name": _item_name(f, ctx), "cat_name": _item(f),
                                      "got_words": _GOT[f["got"]]}),
    A.E_USE: T("use", ("item", "value", "hp", "ap"), "      uses the {item_name} ({value:+d}): {hp_now} HP, {ap} AP",
               words=lambda f, ctx: {"item_name": A.USE_NAMES[f["item"]], "hp_now": _hp_after_use(f)}),
    A.E_RESURRECT: T("resurrect", ("slot", "kind", "hp"),
                     "      the {kind:mon} (monster {slot}) comes back to life with {hp} HP"),
    A.E_SPAWN_ROLL: T("spawn roll", ("face", "code", "again"), "   spawn roll: {face}: {what}",
                      words=lambda f, ctx: {"what": _spawn_code(f["code"])}),
    A.E_SPAWN: T("spawn", ("slot", "kind", "cell", "how"),
                 {0: "   a {kind:mon} (monster {slot}) spawns at {cell:cell}, asleep",
                  1: "      a {kind:mon} (monster {slot}) climbs out at {cell:cell}",
                  None: "      a {kind:mon} (monster {slot}) appears at {cell:cell} (Shrine of Doom)"}, by="how"),
    A.E_MON_MOVE: T("monster move", ("slot", "kind", "src", "dst", "cost", "free", "ap"),
                    {0: "      the {kind:mon} (monster {slot}) steps to {dst:cell}: {cost} AP, {ap} left",
                     None: "      the {kind:mon} (monster {slot}) advances to {dst:cell}"}, by="free"),
    A.E_DM_TURN: T("dm turn", ("ap", "awake"), "-- the Dungeon Master's turn: {ap} AP, {awake_n} awake --",
                   words=lambda f, ctx: {"awake_n": count(f["awake"], "monster")}),
    A.E_DOOR: T("door", ("cell", "color"), "      the {color_name} door at {cell:cell} opens",
                words=lambda f, ctx: {"color_name": A.COLOR_NAMES[f["color"]] or "locked"}),
    A.E_KEY: T("key", ("color", "cell"), "      takes the {color_name} key",
               words=lambda f, ctx: {"color_name": A.COLOR_NAMES[f["color"]]}),
    A.E_TRAP: T("trap", ("dmg", "hp"), "      a trap springs: -{dmg} HP ({hp} left)"),
    A.E_REST: T("rest", ("ap",), "   the adventurer rests ({ap} AP unused); the DM's turn is skipped"),
    A.E_END_TURN: T("end turn", ("ap",), "   the adventurer ends the turn ({ap} AP unused)"),
    A.E_END: T("end", ("won", "cause", "hp", "killer", "cell", "kills"), "== end: {what}; {kills_n} slain ==",
               words=lambda f, ctx: {"what": "the adventurer reaches the exit with "
                                     f"{f['hp']} HP" if f["won"] else _death(f, ctx),
                                     "kills_n": count(f["kills"], "monster")}),
    A.E_AMULET: T("amulet", ("src", "dst", "hp", "taken"),
                  {0: "      the Amulet of Resurrection brings the adventurer back at {dst:cell} with {hp} HP",
                   None: "      the Amulet of Resurrection brings the adventurer back at {dst:cell} with {hp} HP "
                         "(where they fell: a monster stands on the start)"}, by="taken"),
    A.E_SHRINE: T("shrine", ("face", "shrine"), "      the shrine's die shows {face}: Shrine of {name}",
                  words=lambda f, ctx: {"name": SHRINE_NAMES[f["shrine"]].capitalize()}),
    A.E_ELECTRIC: T("electric", ("slot", "dmg", "hit", "hp"),
                    "      the storm golem (monster {slot}) electrifies its water: the adventurer takes {dmg}, "
                    "{hit_n} hit", words=lambda f, ctx: {"hit_n": count(f["hit"], "monster")}),
    A.E_EQUIP: T("equip", ("arg", "ap"), "      now {what} ({ap} AP left)",
                 words=lambda f, ctx: {"what": f"wears the {_armor(f['arg'] - A.EQ_ARMOR, ctx)}"
                                       if f["arg"] >= A.EQ_ARMOR else f"wields the {_weapon(f['arg'], ctx)}"}),
    A.E_KNOCK: T("knock", ("slot", "kind", "src", "dst", "died"),
                 {0: "      the {kind:mon} (monster {slot}) is knocked back to {dst:cell}",
                  None: "      the {kind:mon} (monster {slot}) is knocked into the lava at {dst:cell} and dies"},
                 by="died"),
    A.E_BOLT: T("bolt", ("slot", "kind", "dmg"), "      the holy bolt strikes the {kind:mon}: {dmg} damage"),
    A.E_TELEPORT: T("teleport", ("src", "dst"), "      teleports from {src:cell} to {dst:cell}"),
    A.E_REVIVE: T("revive", ("slot", "kind", "cell", "by", "ap"),
                  "      monster {by} revives the {kind:mon} (monster {slot}) at {cell:cell} ({ap} AP left)"),
    A.E_HEAL: T("heal", ("hp", "now", "over"), "      +{hp} HP ({now} HP)"),
    A.E_NO_SPAWN: T("no spawn", ("kind", "near"), {2: "      the Dungeon Master spawns no monster",
                                                  None: "      no free tile for {what}: nothing spawns"},
                    by="near",
                    words=lambda f, ctx: {"what": "a monster" if f["kind"] < 0 else "a " + _mon(f["kind"], ctx)}),
    A.E_CHICKEN: T("chicken", ("slot", "kind"), "      {sixes}: the {kind:mon} (monster {slot}) turns into a chicken",
                   words=lambda f, ctx: {"sixes": _sixes(ctx, R_CHICKEN_SIXES, "double sixes")}),
}
def _death(f, ctx: Context) -> str:
    cause = f["cause"]
    if cause == A.CAUSE_TURN_CAP:
        return f"the turn cap is reached with {f['hp']} HP (a loss)"
    if cause == A.CAUSE_MONSTER:
        return f"the adventurer is slain by the {_mon(f['killer'], ctx)} at {_cell(f['cell'], ctx)}"
    what = {A.CAUSE_TRAP: "a chest's trap", A.CAUSE_ELECTRIC: "electrified water", A.CAUSE_LAVA: "lava",
            A.CAUSE_POTION: "the ??? potion"}.get(cause, "something")
    return f"the adventurer dies of {what} at {_cell(f['cell'], ctx)}"


KINDS = {"cell": _cell, "mon": _mon}
TABLE = TraceTable("tactics", CODES, KINDS, common=("turn",))


def format_trace(trace: np.ndarray, rs: TacticsRules) -> list[str]:
    """One line per event of ``trace`` (row 0 holds the event count)."""
    if trace.shape[0] == 0:
        return []
    return TABLE.format(trace[1 : int(trace[0, 0]) + 1], Context(rs))



def grid_states(trace: np.ndarray, rs: TacticsRules) -> dict[int, list[str]]:
    """The level at the start of every player turn of a replayed game (``--grid-at``), rebuilt from its trace:
    the things as they stand, the living monsters where they are, the player as ``P`` (``level.format_state``),
    then a key to the letters shown. Keyed by turn number."""
    from .level import MONSTER_CHARS, USED_CHAR, format_state

    lvl = rs.level
    n_rows = int(trace[0, 0]) if trace.shape[0] else 0
    thing = np.array(lvl.thing, dtype=np.int64)
    color = np.array(lvl.color, dtype=np.int64)
    names = rs.monster_names
    letters = {name: ch for ch, name in MONSTER_CHARS.items()}
    mons: dict[int, list] = {k: [rs.kind_index[name], cell, True] for k, (name, cell) in enumerate(lvl.monsters)}
    out: dict[int, list[str]] = {}
    for row in trace[1 : n_rows + 1]:
        code, turn, a = int(row[0]), int(row[1]), [int(x) for x in row[2:]]
        if code == A.E_TURN:
            live = [(names[k], c) for k, c, up in mons.values() if up]
            key = ["P adventurer"] + [f"{letters.get(k, '?')} {k.replace('_', ' ')}"
                                      for k in sorted({name for name, _ in live})]
            if (thing >= A.X_USED).any():
                key.append(f"{USED_CHAR} used")
            out[turn] = format_state(lvl, thing, color, live, a[2]) + ["  (" + ", ".join(key) + ")"]
        elif code == A.E_SPAWN or code == A.E_REVIVE:
            mons[a[0]] = [a[1], a[2], True]
        elif code == A.E_KILL:
            mons[a[0]][2] = False
        elif code == A.E_RESURRECT:
            mons[a[0]][2] = True
        elif code == A.E_MON_MOVE or code == A.E_KNOCK:
            mons[a[0]][1] = a[3]
        elif code == A.E_CHICKEN and "chicken" in rs.kind_index:
            mons[a[0]][0] = rs.kind_index["chicken"]
        elif code == A.E_DOOR:
            thing[a[0]] = A.X_NONE
        elif code == A.E_KEY:
            thing[a[1]] = A.X_NONE
        elif code == A.E_DECISION and a[3] == A.A_INTERACT:
            t = thing[a[5]]
            if t == A.X_CRATE or t == A.X_BARREL:
                thing[a[5]] = A.X_NONE
            elif t in (A.X_CHEST, A.X_MAGIC_CHEST, A.X_SARCOPHAGUS, A.X_SHRINE):
                thing[a[5]] = t + A.X_USED
    return out
