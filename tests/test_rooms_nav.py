"""Rooms' navigation rules (the seed's chapter), one scripted test each, on tiny fixed dungeons drawn here: forced
dice (``script``: the dice in the order the kernel rolls them) and forced choices (the ``scripted`` user policy of
tests/data/rooms_policies.py: four numbers per action: action, arg, pass answer, resolve answer).

Shipped cards used (doors N E S W as printed): start oooo, dragon_lair olol, treasure_chest lolo, fountain oowo,
spike_trap oowo (hazard), blacksmith oloo, warp_room owoo, shop oooo. No test here fights: the fights are
combat.py's (tests/test_rooms_combat.py).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from foury_sim.errors import InputError
from foury_sim.games import rooms as R
from foury_sim.games.rooms import layout as L
from foury_sim.policy import make_policy

N, E, S, W = range(4)
ONE_TURN = ("navigation.turn_cap=1",)


@pytest.fixture(scope="module")
def scripted():
    return make_policy("tests/data/rooms_policies.py:scripted", R.POLICIES)


def dungeon(tmp_path, grid: str) -> str:
    p = tmp_path / "dungeon.txt"
    p.write_text(grid.strip("\n") + "\n")
    return str(p)


def play(scripted, tmp_path, grid, wishes=(), script=(), sets=ONE_TURN, bad=0):
    rs = R.load_ruleset(None, list(sets), dungeon(tmp_path, grid))
    params = np.array([x for w in wishes for x in w], dtype=np.float64)
    row, lines = R.play_one(rs, "ranger", replace(scripted, params=params), 0, 0, list(script))
    assert row["bad_answers"] == bad, "a wish matched no option:\n" + "\n".join(lines)
    return row, lines


def has(lines, *texts):
    for t in texts:
        assert any(t in line for line in lines), f"{t!r} not in:\n" + "\n".join(lines)


def hasnt(lines, text):
    assert not any(text in line for line in lines), f"{text!r} in:\n" + "\n".join(lines)


def move(side, pay=L.PASS_BACK, resolve=-1):
    return (L.A_MOVE, side, pay, resolve)


def resolve_here(f):
    return (L.A_RESOLVE, f, 0, -1)


LINE = "start  shop  shop  shop  shop  dragon_lair"


# --- moves -------------------------------------------------------------------------------------------------
def test_three_moves_a_turn(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, LINE, [move(E)] * 4)
    assert row["moves"] == 3 and row["turns"] == 1
    has(lines, "steps east from row 1, column 3 to row 1, column 4, 0 moves left",
        "- act: end the turn (option 0 of 1)")  # no fourth move offered


def test_speed_boots_give_five_moves(scripted, tmp_path):
    sets = ("navigation.turn_cap=2", "navigation.start_gold=8")
    wishes = [move(E, L.IT_BOOTS, 0), (L.A_END, 0, 0, -1), *[move(E)] * 4]  # buy the boots, then 3 shops, the lair
    row, lines = play(scripted, tmp_path, LINE, wishes, sets=sets)
    assert (row["moves"], row["gold_left"]) == (4, 0)
    has(lines, "gets the Speed Boots from the shop room", "== turn 2: 5 moves",
        "turns back from the locked door east of row 1, column 5")


# --- doors and walls ----------------------------------------------------------------------------------------
CHEST_ABOVE = """
treasure_chest  dragon_lair
start           .
"""
FOUNTAIN_ABOVE = """
fountain  dragon_lair
start     .
"""


def test_locked_door_takes_a_key(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, CHEST_ABOVE, [move(N, L.PASS_ITEM)])
    assert (row["keys_spent"], row["bombs_spent"], row["hp_spent"], row["moves"]) == (1, 0, 0, 1)
    has(lines, "locked door", "(spends a key)")


def test_wall_takes_a_bomb(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, FOUNTAIN_ABOVE, [move(N, L.PASS_ITEM)])
    assert (row["keys_spent"], row["bombs_spent"], row["hp_spent"]) == (0, 1, 0)
    has(lines, "south wall", "(spends a bomb)")


def test_one_hp_instead_of_a_key_in_hand_when_the_rules_say_so(scripted, tmp_path):
    """``navigation.hp_with_item = true``: 1 HP is offered with a key in hand too (the seed's default offers it only
    without one: test_text_audit_rooms.py)."""
    row, lines = play(scripted, tmp_path, CHEST_ABOVE, [move(N, L.PASS_HP)],
                      sets=(*ONE_TURN, "navigation.hp_with_item=true"))
    assert (row["keys_spent"], row["hp_spent"], row["hp_left"]) == (0, 1, 29)
    has(lines, "(pays 1 HP instead of a key)")


def test_one_hp_instead_of_a_bomb(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, FOUNTAIN_ABOVE, [move(N, L.PASS_HP)],
                      sets=(*ONE_TURN, "navigation.start_bombs=0"))
    assert (row["bombs_spent"], row["hp_spent"], row["hp_left"]) == (0, 1, 29)


def test_no_hp_instead_when_the_rules_say_so(scripted, tmp_path):
    """Without a key and without hp_instead, the only answer is to turn back: forced (not asked)."""
    row, lines = play(scripted, tmp_path, CHEST_ABOVE, [move(N, L.PASS_HP)],
                      sets=(*ONE_TURN, "navigation.start_keys=0", "navigation.hp_instead=false"))
    assert (row["moves"], row["hp_spent"]) == (0, 0)
    has(lines, "- pass: turn back (option 0 of 1)", "turns back from the locked door north of row 2, column 1")


def test_paying_the_last_hp_kills(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, CHEST_ABOVE, [move(N, L.PASS_HP)],
                      sets=(*ONE_TURN, "heroes.ranger.hp=1", "navigation.start_keys=0"))
    assert (row["win"], row["death_cause"], row["hp_left"], row["death_room"]) == (0, L.CAUSE_HP_PAID, 0, L.K_START)


def test_the_hp_paid_instead_is_the_rulesets_hp_cost(scripted, tmp_path):
    """``navigation.hp_cost`` (the seed's "sacrifice one HP": 1) is what the hero pays instead of a key: set to 3,
    the hero without a key passes the locked door for 3 HP (30 - 3 = 27 left) and the option offered says so."""
    row, lines = play(scripted, tmp_path, CHEST_ABOVE, [move(N, L.PASS_HP)],
                      sets=(*ONE_TURN, "navigation.start_keys=0", "navigation.hp_cost=3"))
    assert (row["hp_spent"], row["hp_left"], row["moves"]) == (3, 27, 1)
    has(lines, "(pays 3 HP instead of a key)")
    row, lines = play(scripted, tmp_path, CHEST_ABOVE, [move(N, L.PASS_HP)],
                      sets=(*ONE_TURN, "navigation.start_keys=0", "heroes.ranger.hp=3", "navigation.hp_cost=3"))
    assert (row["win"], row["death_cause"], row["hp_left"]) == (0, L.CAUSE_HP_PAID, 0)  # all of the last 3 HP


@pytest.mark.parametrize("hp, cost, above, pays", [(9, 1, 8, True), (8, 1, 8, False), (11, 3, 8, True),
                                                   (10, 3, 8, False), (3, 3, 2, False), (1, 1, 0, False),
                                                   (2, 1, 0, True)])
def test_the_built_in_navigation_never_pays_itself_to_death(hp, cost, above, pays):
    """The built-in heuristic pays the HP price (``navigation.hp_cost``, the option's O_VALUE) when HP > price and
    HP - (price - 1) > pay_hp_above: at the printed 1 HP and pay_hp_above >= 1, HP > pay_hp_above as before (the
    same games); HP 3 paying a price of 3 with pay_hp_above 2, or the last HP with pay_hp_above 0, was paid by
    the rule HP > pay_hp_above, and the hero died (session 66's review)."""
    from foury_sim.games.rooms.policies import P_PAY_HP_ABOVE, POLICY_PARAMS, nav_builtin

    st = np.zeros(L.S_SIZE, np.int64)
    st[L.S_HP] = hp
    opts = np.zeros((3, L.N_OCOLS), np.int64)
    opts[:, L.O_ACTION] = (L.PASS_BACK, L.PASS_HP, -5)
    opts[1, L.O_VALUE] = cost
    params = np.array(list(POLICY_PARAMS.values()), dtype=np.float64)
    params[P_PAY_HP_ABOVE] = above
    assert nav_builtin(L.P_GREEDY, L.D_PASS, st, opts, 2, params) == (1 if pays else 0)


@pytest.mark.parametrize("value, message", [
    ("0", "navigation.hp_cost = 0 is below 1 (valid range 1..100)"),
    ("101", "navigation.hp_cost = 101 is above 100 (valid range 1..100)"),
    ("true", "navigation.hp_cost"),
])
def test_a_bad_hp_cost_is_one_line_naming_the_key(value, message):
    with pytest.raises(InputError) as e:
        R.load_ruleset(None, [f"navigation.hp_cost={value}"], None)
    assert message in e.value.message and "\n" not in e.value.message
    assert str(e.value.where).startswith("--set navigation.hp_cost"), e.value.where


def test_turning_back_spends_no_move_and_bars_that_side_this_turn(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, CHEST_ABOVE, [move(N, L.PASS_BACK), move(N, L.PASS_ITEM)])
    assert (row["moves"], row["keys_spent"]) == (0, 0)
    # (turn back or the key: no 1 HP with a key in hand)
    has(lines, "- pass: turn back (option 0 of 2)", "turns back from the locked door north of row 2, column 1",
        "- act: end the turn (option 0 of 1)")  # north no longer offered: the only action left


BEHIND_THE_LAIR = """
shop   shop
start  dragon_lair
"""


def test_a_side_turned_back_from_bars_that_cards_side_only(scripted, tmp_path):
    """Turning back from the lair's locked door east of the start bars that door for the turn, not the east of every
    room: from the shop north of the start, east into the other shop is offered (session 67's review: the refusal
    was kept per direction); back at the start, the lair's door is still not offered."""
    row, lines = play(scripted, tmp_path, BEHIND_THE_LAIR, [move(E, L.PASS_BACK), move(N), move(E)])
    assert (row["moves"], row["keys_spent"]) == (2, 0)
    has(lines, "turns back from the locked door east of row 2, column 1",
        "steps east from row 1, column 1 to row 1, column 2")
    row, lines = play(scripted, tmp_path, BEHIND_THE_LAIR, [move(E, L.PASS_BACK), move(N), move(S),
                                                            move(E, L.PASS_ITEM)], bad=1)
    assert (row["moves"], row["keys_spent"]) == (2, 0)


OWN_WALL = """
start     dragon_lair
fountain  .
shop      .
"""
WALL_OVER_LOCK = """
start           dragon_lair
fountain        .
treasure_chest  .
"""


@pytest.mark.parametrize("grid, barrier, spent", [
    (OWN_WALL, "entered", (0, 0)), (OWN_WALL, "both", (0, 1)),
    (WALL_OVER_LOCK, "entered", (1, 0)), (WALL_OVER_LOCK, "both", (0, 1)),
], ids=["shop-entered", "shop-both", "chest-entered", "chest-both"])
def test_which_sides_bar_a_step_is_navigation_barrier(scripted, tmp_path, grid, barrier, spent):
    """South from the fountain (its own south side a wall) into a room without a token: with ``navigation.barrier =
    "entered"`` (the default) only the entered card's side bars the step (the shop's open side: free; the chest's
    locked door: a key); with "both" the harder of the two facing sides does (the fountain's wall: a bomb, for
    the chest's lock too: one payment)."""
    sets = (*ONE_TURN, f'navigation.barrier="{barrier}"')
    row, lines = play(scripted, tmp_path, grid, [move(S), move(S, L.PASS_ITEM)], sets=sets)
    assert (row["keys_spent"], row["bombs_spent"], row["moves"]) == (*spent, 2)


def test_a_room_with_a_token_is_entered_freely_through_the_heros_own_wall(scripted, tmp_path):
    """``navigation.barrier = "both"``: the seed's token ("you can enter it as if there was an open passage
    there") opens the whole passage: after bombing through the fountain's wall into the shop and back north, the
    hero steps south through the fountain's wall again for nothing."""
    sets = (*ONE_TURN, "navigation.moves=4", 'navigation.barrier="both"')
    row, lines = play(scripted, tmp_path, OWN_WALL, [move(S), move(S, L.PASS_ITEM), move(N), move(S)], sets=sets)
    assert (row["bombs_spent"], row["hp_spent"], row["moves"]) == (1, 0, 4)
    has(lines, "enters the shop room at row 3, column 1 again")


@pytest.mark.parametrize("value", ['"own"', "true"])
def test_a_bad_barrier_is_one_line_naming_the_key(value):
    with pytest.raises(InputError) as e:
        R.load_ruleset(None, [f"navigation.barrier={value}"], None)
    assert 'navigation.barrier must be "entered" or "both", not' in e.value.message
    assert "\n" not in e.value.message
    assert str(e.value.where).startswith("--set navigation.barrier"), e.value.where


# --- navigation tokens ---------------------------------------------------------------------------------------
def test_entered_room_is_reentered_freely(scripted, tmp_path):
    """Into the chest (a key), leave it for later, back to the start, into the chest again: no second key."""
    row, lines = play(scripted, tmp_path, CHEST_ABOVE, [move(N, L.PASS_ITEM, -1), move(S), move(N)],
                      sets=(*ONE_TURN, "navigation.start_keys=1", "navigation.hp_instead=false"))
    assert (row["moves"], row["keys_spent"], row["resolved_treasure"]) == (3, 1, 0)
    has(lines, "enters the treasure room at row 1, column 1 again")


def test_unresolved_room_is_resolved_later(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, CHEST_ABOVE, [move(N, L.PASS_ITEM, -1), resolve_here(0)], script=[2])
    assert row["resolved_treasure"] == 1
    has(lines, "leave it for later", "gets a bomb from the treasure room")


def test_resolved_function_is_not_offered_again(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, CHEST_ABOVE, [move(N, L.PASS_ITEM, 0), resolve_here(0)], script=[1],
                      bad=1)
    assert row["resolved_treasure"] == 1
    has(lines, "gets a key from the treasure room")


# --- hazards and room kinds ----------------------------------------------------------------------------------
TRAP_LINE = "start  spike_trap  fountain  dragon_lair"


def test_hazard_is_resolved_at_once_and_a_trap_gives_a_key(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, TRAP_LINE, [move(E)], script=[1])
    assert (row["hp_left"], row["resolved_trap"]) == (27, 1)
    has(lines, "the trap: a d6 of 1 (dodged on 5+): 3 damage, 27 HP", "gets a key from the trap room (2 keys now)")
    hasnt(lines, "- resolve:")


def test_trap_dodged_on_a_high_roll(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, TRAP_LINE, [move(E)], script=[5])
    assert (row["hp_left"], row["resolved_trap"]) == (30, 1)


def test_trap_can_kill(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, TRAP_LINE, [move(E)], script=[1], sets=(*ONE_TURN, "heroes.ranger.hp=3"))
    assert (row["death_cause"], row["death_room"], row["resolved_trap"]) == (L.CAUSE_TRAP, L.K_TRAP, 0)


def test_fountain_is_optional_and_heals(scripted, tmp_path):
    row, _ = play(scripted, tmp_path, TRAP_LINE, [move(E), move(E, resolve=0)], script=[1])
    assert (row["hp_left"], row["resolved_fountain"]) == (30, 1)
    row, _ = play(scripted, tmp_path, TRAP_LINE, [move(E), move(E, resolve=-1)], script=[1])
    assert (row["hp_left"], row["resolved_fountain"]) == (27, 0)


SMITH = "start  blacksmith  dragon_lair"


def test_blacksmith_tracks_its_two_functions_apart(scripted, tmp_path):
    sets = (*ONE_TURN, "navigation.start_gold=6")
    row, lines = play(scripted, tmp_path, SMITH, [move(E, resolve=0), resolve_here(1)], sets=sets)
    assert (row["resolved_blacksmith"], row["gold_left"], row["hp_left"]) == (2, 0, 34)  # forge 4 (armour +4), mend 2
    has(lines, "gets an armour piece from the blacksmith room", "resolves the blacksmith room's mend")


def test_blacksmith_function_needs_its_gold(scripted, tmp_path):
    row, _ = play(scripted, tmp_path, SMITH, [move(E, resolve=0)], sets=(*ONE_TURN, "navigation.start_gold=3"),
                  bad=1)
    assert row["resolved_blacksmith"] == 0


@pytest.mark.parametrize("gold, resolved, gold_left, hp_left", [(0, 0, 0, 30), (5, 1, 1, 34), (6, 2, 0, 34)])
def test_a_blacksmith_hazard_resolves_what_the_gold_pays_for(scripted, tmp_path, gold, resolved, gold_left, hp_left):
    """A blacksmith with a red outline (``rooms.blacksmith.hazard``) forges (4 gold) and mends (2 gold) at once,
    each only if the gold is there: no gold, nothing (session 67's review: it forged for gold the hero had not,
    gold -4); 5 gold, the forge (armour: 34 HP); 6, both. No question is asked."""
    sets = (*ONE_TURN, "rooms.blacksmith.hazard=true", f"navigation.start_gold={gold}")
    row, lines = play(scripted, tmp_path, SMITH, [move(E)], sets=sets)
    assert (row["resolved_blacksmith"], row["gold_left"], row["hp_left"]) == (resolved, gold_left, hp_left)
    hasnt(lines, "- resolve:")


WARPS = "warp_room@2  start  warp_room  dragon_lair"


def test_warp_travel_is_not_a_move(scripted, tmp_path):
    wishes = [move(E), move(W), move(W), (L.A_WARP, 2, 0, -1)]
    row, lines = play(scripted, tmp_path, WARPS, wishes)
    assert (row["moves"], row["warps"], row["resolved_warp"]) == (3, 1, 1)
    has(lines, "warps from row 1, column 1 to row 1, column 3 (not a move)")


def test_warp_counted_when_the_rules_say_so(scripted, tmp_path):
    wishes = [move(E), move(W), move(W), (L.A_WARP, 2, 0, -1)]
    row, _ = play(scripted, tmp_path, WARPS, wishes, sets=(*ONE_TURN, "navigation.warp_counts=true"), bad=1)
    assert (row["moves"], row["warps"]) == (3, 0)


def test_warp_cache_is_the_second_function(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, WARPS, [move(E, resolve=1)])
    assert row["resolved_warp"] == 1
    has(lines, "gets a bomb from the warp room (2 bombs now)")


def test_a_warp_hazard_gives_its_cache_once(scripted, tmp_path):
    """A warp room with a red outline (``rooms.warp.hazard``) resolves its cache at once (its travel is a move, not
    a resolution): one bomb, and the cache is not offered again (session 67's review: the hazard resolved
    function 0 as the cache and the cache was still offered, two bombs)."""
    row, lines = play(scripted, tmp_path, WARPS, [move(E), resolve_here(1)],
                      sets=(*ONE_TURN, "rooms.warp.hazard=true"), bad=1)
    assert row["resolved_warp"] == 1
    assert len([t for t in lines if "gets a bomb from the warp room" in t]) == 1
    has(lines, "gets a bomb from the warp room (2 bombs now)")
    hasnt(lines, "- resolve:")


def test_magic_mirror_teleports_anywhere_once(scripted, tmp_path):
    sets = (*ONE_TURN, "navigation.start_gold=8")
    wishes = [move(E, L.IT_MIRROR, 0), (L.A_MIRROR, 4, 0, -1), (L.A_MIRROR, 1, 0, -1)]
    row, lines = play(scripted, tmp_path, LINE, wishes, sets=sets, bad=1)
    assert (row["mirror_uses"], row["moves"], row["gold_left"]) == (1, 1, 0)
    has(lines, "gets a Magic Mirror from the shop room (1 teleport now)",
        "the Magic Mirror teleports the hero from row 1, column 2 to row 1, column 5 (0 uses left)")


def test_turn_cap_is_a_loss_reported_apart(scripted, tmp_path):
    row, lines = play(scripted, tmp_path, LINE, [], sets=("navigation.turn_cap=2",))
    assert (row["win"], row["turns"], row["death_cause"], row["death_room"]) == (0, 2, L.CAUSE_TURN_CAP, -1)


# --- dealing -------------------------------------------------------------------------------------------------
def test_dealt_cells_come_from_the_deck_in_reading_order(scripted, tmp_path):
    """Two dealt cells, a deck of 3 chests and 1 fountain (deck order: cards in rules order, count copies): the
    script picks card 4 (the fountain) for the first cell, then card 1 of the remaining 3."""
    rules = tmp_path / "deck.toml"
    text = "".join(f'[deck.{k}]\ncount = 0\nkind = "{v}"\n' for k, v in (
        ("rat_den", "monster"), ("spider_nest", "monster"), ("goblin_camp", "monster"), ("crypt", "monster"),
        ("spike_trap", "trap"), ("blacksmith", "blacksmith"), ("warp_room", "warp"), ("bounty_hunter",
                                                                                        "bounty_hunter"),
        ("shop", "shop")))
    text = text.replace('count = 0\nkind = "monster"', 'count = 0\nkind = "monster"\nmonsters = ["rat"]')
    text = text.replace('count = 0\nkind = "bounty_hunter"', 'count = 0\nkind = "bounty_hunter"\nmonsters = ["rat"]')
    rules.write_text(text + "[deck.treasure_chest]\ncount = 3\n[deck.fountain]\ncount = 1\n")
    rs = R.load_ruleset(str(rules), list(ONE_TURN), dungeon(tmp_path, "start ? ? dragon_lair"))
    row, lines = R.play_one(rs, "ranger", replace(scripted, params=np.array([1.0, 1, 0, -1, 1, 1, 0, -1])), 0, 0,
                            [4, 1])
    has(lines, "cards dealt face down from a deck of 4", "row 1, column 2 turns face up: fountain",
        "row 1, column 3 turns face up: treasure chest")


def test_dungeon_file_errors_are_one_line_with_file_line_column(tmp_path):
    for grid, msg, at in (
        ("start  ?\n?  dragon_lair  ?\n", "every row has the same number", ":2:1"),
        ("start  chset  dragon_lair\n", "unknown card 'chset'", ":1:8"),
        ("start  fountain@5  dragon_lair\n", "@0..@3", ":1:8"),
        ("start  fountain\n", "one card of kind 'boss'", ":1:1"),
        ("start  .  dragon_lair\n", "cannot be reached", ":1:11"),
        ("start\t dragon_lair\n", "tab character", ":1:6"),
    ):
        with pytest.raises(InputError) as e:
            R.load_ruleset(None, None, dungeon(tmp_path, grid))
        assert msg in e.value.message and str(e.value.where).endswith(at), (grid, e.value.message, e.value.where)


@pytest.mark.parametrize("text, line", [
    ("[deck.fountain]\ngold = 3\n", "deck.fountain.gold: a fountain room has no fight to win gold by (monster, "
                                      "bounty_hunter, boss rooms do)"),
    ("[deck.rat_den]\nvalue = 3\n", "deck.rat_den.value: a monster room has no value (a trap's damage, a "
                                     "fountain's heal, a warp room's cache item)"),
])
def test_a_card_number_its_kind_of_room_never_reads_is_refused_at_its_line(tmp_path, text, line):
    """The engine reads gold after a won fight and value in a trap, fountain or warp room: either given to another
    kind of room was played without effect, in silence."""
    f = tmp_path / "r.toml"
    f.write_text(text)
    with pytest.raises(InputError) as e:
        R.load_ruleset(str(f), None, None)
    assert (e.value.where, e.value.message) == (f"{f}:2:1", line)


def test_deck_errors_point_at_the_key():
    for sets, msg in ((["deck.shop.doors=\"oxoo\""], "4 letters"), (["deck.rat_den.monsters=[\"orc\"]"],
                                                                   "unknown monster 'orc'"),
                      (["deck.shop.kind=\"inn\""], "unknown room kind"), (["navigation.orientation=\"tilted\""],
                                                                           "printed")):
        with pytest.raises(InputError) as e:
            R.load_ruleset(None, sets, None)
        assert msg in e.value.message and str(e.value.where).startswith("--set"), (sets, e.value.message)
