"""Dungeon Foury, the base game audited against the printed rule text (session 65).

Each test quotes the sentence of the rulebook text (``/work/shared/seeds/000_b5237d890c84cf9f.txt``,
line numbers approximate) it checks and asserts the exact effect the text gives, with scripted dice on a
tiny map (``tests/foury_helpers.py``; maps written to ``tmp_path`` or from ``tests/data/foury``).

Two sections:

* THE ENGINE CONTRADICTED THE TEXT: these tests failed on the engine before session 65's fix (each docstring
  says what the engine did and the fix; docs/rules.md, "Divergences from the text found and fixed").
* Rules and rulings the engine plays as written, with no scripted test until now: these pass.

Map cells are numbered ``row * cols + col``; sides and headings are N, E, S, W = 0, 1, 2, 3.
"""

from __future__ import annotations

from pathlib import Path

from foury_helpers import QUIET_EVENTS, move, play

from foury_sim.games.foury import icons as I
from foury_sim.games.foury import layout as L

GOBLIN, IMP = (I.SHIPPED.foe(k) for k in ("goblin", "imp"))
H, CH = L.HEARTS, L.CHEST
N, E, S, W = 0, 1, 2, 3
GOTO = L.MK_GOTO


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


# A Temple room with a DIE icon (cell 2) between the Oracle (cell 1) and a Palace exit arrow; the entry
# arrow leads into cell 0. Arrows: 0 cell 0 (A, heading east), 1 cell 2 (B, heading west).
DIE_EXIT = """name: a die in the exit room

+---+---+---+
>A.. O.. Bd.<
+---+---+---+
"""

# Two DIE icons in the entry room (cell 0); the Oracle below cell 2.
TWO_DICE = """name: two dice

+---+---+---+
>Add A.. A..|
+---+---+   +
|#..|#..|O..|
+---+---+---+
"""

# A chest and a DIE icon in the entry room (cell 0); the Oracle below cell 2.
CHEST_AND_DIE = """name: a chest and a die

+---+---+---+
>Acd A.. A..|
+---+---+   +
|#..|#..|O..|
+---+---+---+
"""

# Palace rooms in a row, entered from the west into cell 0; the Oracle below cell 2; a Temple room (cell 3)
# with its own arrow (a map needs one for the first round). Arrows: 0 cell 3 (A), 1 cell 0 (B, heading east).
PALACE_LINE = """name: palace line

+---+---+---+vvv+
>B.. B.. B..|A..|
+---+---+   +---+
|#..|#..|O..|#..|
+---+---+---+---+
"""


# =================================================================================================
# THE ENGINE CONTRADICTED THE TEXT: each test below failed before its fix (named in its docstring)
# =================================================================================================
def test_imp_erases_a_resource_only_when_it_appears():
    """Enemies, IMP (text l. 205): "If there is a Resource in the room where an Imp appears, erase it: the Imp
    destroys it while staring into the adventurer's eyes. Then, the fight begins."

    The erasure belongs to the imp's appearance, once. Here an imp appears in the arena's entry room (a chest and
    a potion lie there): it erases one of them (a die picks the chest), the hero loses the roll-off and flees;
    next turn he faces it again (the "face it again" move) and beats it. The imp has not appeared again, so the
    potion is still there and is collected.

    Engine before the fix: ``kernel.fight`` called ``destroy_items`` at the start of EVERY fight with the imp, so facing
    it again erased the potion too. FIXED (kernel.py, ``fight``, the line ``if foe_has(T, foe, FT_DESTROYS_ITEMS):``,
    about l. 490): erase only on the imp's first fight in that room, e.g. a room flag ``F_IMP_DONE`` set by the first
    ``destroy_items`` of the room and cleared when the imp leaves it (beaten: next to ``add_icon(rm, cell, foe, -1)``;
    or at ``spawn`` of a new imp): ``if foe_has(T, foe, FT_DESTROYS_ITEMS) and not (rm[cell, RM_FLAG] & F_IMP_DONE):``.
    (Equivalent and simpler: call ``destroy_items`` from ``spawn`` for a spawned imp and from ``enter_room`` for a
    printed one the first time the room is entered, not from ``fight``.)
    """
    script = [1, 1,  # the entry room: A face 1 (a monster), spawn face 1: an imp
              1,  # the imp's die among the two items: 1 = the chest
              1, 5,  # roll-off: 1 against 5: hit for 4, flee
              6, 1]  # facing it again: 6 against 1: beaten
    g = play("arena", script=script, sheet={"hearts": 8}, queues={"fight_on": [0], "move": [move(0, GOTO)]},
             overrides={"enemies.spawn_table": ["imp"] * 6, "max_turns": 2})
    assert g.rows(L.TR_FLEE) == [(IMP, 0, 0, 0, 0)] and g.rows(L.TR_WIN) == [(IMP, 0, 0, 0, 0)]
    assert g.rows(L.TR_IMP) == [(0, I.CHEST, 1, 0, 0)]  # erased once, when it appeared
    assert g.icons(0, I.POTION) == 0 and g[H] == 8 - 4 + 1  # the potion was collected after the win


def test_fled_die_table_monster_keeps_the_exit_shut(tmp_path):
    """Exit Space (text l. 164): "If you end your movement on an unused Entry/Exit space, treat it like any
    other space: roll 1D6, compare it to the Events, and resolve any encounters. Have you survived?
    CONGRATULATIONS, YOU HAVE COMPLETED THIS ROUND!"; Game Flow 7 (l. 144): "If you succeeded in the previous
    step, you can now Collect/Use the ELEMENTS ...; otherwise, proceed to the next step."

    The engine's own reading (``test_exit_rolled_like_any_room``): a monster fled in the exit room leaves the
    round open. A monster brought by the DIE icon of the exit room is an encounter like any other: fled, it
    stands in the room and the round is not complete.

    Engine before the fix: ``die_table`` dropped the result of its ``resolve_room``, and ``enter_room`` tested ``res ==
    1`` (the result of the room's first encounters, before the items) to leave by the exit, so the hero left the dungeon
    past the goblin he fled. FIXED (kernel.py, ``enter_room``, right after ``collect_items(...)`` and its death check,
    about l. 1160): ``if first_foe(R, rm, cell) >= 0: res = 0`` (a foe brought by an element and not beaten counts as
    fled: no exit, no extra step past it, no stairs or circle; ``flee_back`` then applies as for any flight).
    """
    m = _write(tmp_path, "die_exit.map", DIE_EXIT)
    script = [2,  # the entry room (quiet)
              2,  # the exit room entered (placed from the Oracle): its exit roll (quiet)
              1, 1,  # the DIE icon rolled: face 1 a monster; spawn: a goblin
              3, 3]  # tie: flee
    ov = dict(QUIET_EVENTS)
    ov.update({"enemies.spawn_table": ["goblin"] * 6, "max_turns": 2, "game.insert_coins": 0})
    g = play(m, script=script, sheet={"hearts": 5}, queues={"round": [0], "place": [2], "fight_on": [0]}, overrides=ov)
    assert g.rows(L.TR_ORACLE) and g.rows(L.TR_DIE_TABLE) == [(1, L.DIE_MONSTER, 0, 0, 0)]
    assert g.rows(L.TR_FLEE) == [(GOBLIN, 2, 0, 0, 0)] and g.icons(2, GOBLIN) == 1
    assert g.rows(L.TR_EXIT) == []  # the goblin fled still stands in the exit room
    assert g[L.S_WIN] == 0 and g[L.S_ROUND] == 0


def test_fled_die_table_monster_stops_the_next_die(tmp_path):
    """Game Flow 7 (text l. 144): "If you succeeded in the previous step, you can now Collect/Use the ELEMENTS
    present on the map ...; otherwise, proceed to the next step."

    The first DIE icon of the room brings a goblin; the hero ties and flees. He has not succeeded against the
    room's encounters, so the room's second DIE icon is not used now: it stays in the room.

    Engine before the fix: ``use_dice`` looped while a die lies in the room and the hero lives, whatever the fight that
    ``die_table`` started; it asked to roll the second die with the goblin standing there. FIXED (kernel.py,
    ``use_dice``, the loop head about l. 870): ``while rm[cell, RM_ICON + DIE] > 0 and st[S_DEAD] == 0 and
    first_foe(R, rm, cell) < 0:`` (together with the fix of ``test_fled_die_table_monster_keeps_the_exit_shut``).
    """
    m = _write(tmp_path, "two_dice.map", TWO_DICE)
    script = [2,  # the entry room (quiet)
              1, 1,  # the first die: face 1 a monster; spawn: a goblin
              3, 3,  # tie: flee
              3]  # (a die the engine rolls for the second DIE icon: a chest)
    ov = dict(QUIET_EVENTS)
    ov.update({"enemies.spawn_table": ["goblin"] * 6, "max_turns": 1})
    g = play(m, script=script, sheet={"hearts": 5}, queues={"fight_on": [0]}, overrides=ov, check_dice=False)
    assert g.rows(L.TR_FLEE) == [(GOBLIN, 0, 0, 0, 0)]
    assert g.rows(L.TR_DIE_TABLE) == [(1, L.DIE_MONSTER, 0, 0, 0)]  # the second die was not rolled
    assert len(g.decisions("use_die")) == 1 and g.icons(0, I.DIE) == 1 and g[CH] == 0


# =================================================================================================
# Rules and rulings the engine plays as written (no scripted test before): these pass
# =================================================================================================
def test_round_start_room_is_entered_from_outside_and_rolled_on_the_rounds_table(tmp_path):
    """Game Flow 3-5 (text l. 71-73): "Color the entry arrow of the chosen Round ... This is where you start ...
    Draw a line from the starting space to the destination space ... Roll 1d6 and compare the result with the 6
    events of the space you are moving from".

    RULING (docs/rules.md, "Entering a round", added by this audit): the arrow is the starting space, outside
    the map; the round's first turn steps into the arrow's room and rolls it on the round's (the arrow's)
    table. "The room you came from" is then none: the Palace's face 1 ("The room you came from collapses")
    collapses nothing."""
    m = _write(tmp_path, "palace_line.map", PALACE_LINE)
    g = play(m, script=[1], queues={"round": [1]}, sheet={"hearts": 5}, overrides={"max_turns": 1})
    assert g.rows(L.TR_ROUND)[0][1] == 1  # the Palace's round
    roll = g.rows(L.TR_ROLL)
    assert roll == [(1, 1, L.EV_PREV_COLLAPSE, 0, 0)]  # table B, face 1, in cell 0
    assert g.rows(L.TR_PREV_COLLAPSE) == [] and g.rows(L.TR_WALL) == []
    assert not any(g.room_state(x) & L.COLLAPSED for x in range(g.rm.shape[0]))
    assert g[L.S_TURN] == 1 and g[L.S_POS] == 0 and g[L.S_DIR] == E


def test_extra_move_after_fleeing_the_rooms_foe():
    """Round Events A6 (text l. 86): "Resolve the room, then move one additional space without rolling the die."

    RULING (docs/rules.md, added by this audit): fleeing the room's foe resolves the room (the foe stays,
    active); the extra space is still moved, from the foe's room, without a roll and without a turn. (Under
    ``rulings.flee_to = "back"`` the hero steps back instead and the extra move is lost.)"""
    g = play("line_g", script=[2, 6, 3, 3], queues={"fight_on": [0], "extra_move": [2]}, sheet={"hearts": 5},
             overrides={"max_turns": 2})
    assert g.rows(L.TR_FLEE) == [(GOBLIN, 1, 0, 0, 0)] and g.icons(1, GOBLIN) == 1
    assert sorted(m["to"] for m in g.decisions("extra_move")[0].moves()) == [0, 2]
    assert g.rows(L.TR_EXTRA) == [(2, 0, 0, 0, 0)]
    assert g.rows(L.TR_MOVE)[-1] == (1, 2, E, 1, 0)  # a free step
    assert [r[3] for r in g.rows(L.TR_ROLL)] == [0, 1] and g[L.S_POS] == 2 and g[L.S_TURN] == 2


def test_items_are_collected_before_a_die_icon_is_rolled(tmp_path):
    """Elements on the Map (text l. 49-59): items are collected; "DIE: ... Roll 1D6 and compare it with the DIE
    table"; IMP (l. 205): "If there is a Resource in the room where an Imp appears, erase it".

    RULING (docs/rules.md, added by this audit): a room's items are collected first, its DIE icons rolled last;
    so an imp brought by a DIE icon finds the room's chest already taken (and erases nothing)."""
    m = _write(tmp_path, "chest_and_die.map", CHEST_AND_DIE)
    ov = dict(QUIET_EVENTS)
    ov.update({"enemies.spawn_table": ["imp"] * 6, "max_turns": 1})
    g = play(m, script=[2, 1, 1, 6, 1], sheet={"hearts": 5}, overrides=ov)
    assert g[CH] == 1 and g.icons(0, I.CHEST) == 0
    assert g.rows(L.TR_DIE_TABLE) == [(1, L.DIE_MONSTER, 0, 0, 0)]
    assert g.rows(L.TR_IMP) == [] and g.rows(L.TR_WIN) == [(IMP, 0, 0, 0, 0)]
    gain = [i for i, r in enumerate(g.tr) if r[0] == L.TR_GAIN and r[1] == CH]
    die = [i for i, r in enumerate(g.tr) if r[0] == L.TR_DIE_TABLE]
    assert gain[0] < die[0]


def test_oracle_room_is_not_rolled_and_gives_one_chest():
    """When You Reach the Oracle's Room (text l. 152): "Do not roll the dice. If you have awakened the Oracle,
    first gain 1 CHEST" (no requirement here: the Oracle is awake from the start)."""
    g = play("line5", script=[2], sheet={"hearts": 5}, overrides={"max_turns": 2})
    assert g.dice() == 1 and [r[3] for r in g.rows(L.TR_ROLL)] == [2]  # only the entry room was rolled
    assert g.rows(L.TR_ORACLE) == [(0, 1, 0, 0, 0)] and g[CH] == 1 and g[L.S_CHESTS_GAINED] == 1
    assert g[L.S_PHASE] == 2
