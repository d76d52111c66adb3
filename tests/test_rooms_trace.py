"""Rooms' replay words (trace.py) on hand-made trace rows: plurals agree, the hero's HP never reads below 0, a
one-function room has no "first function", a card named after its kind is not named twice, statuses not inflicted
are not listed. No kernel runs: the rows are written here as the engine writes them (layout.EV_*)."""

from __future__ import annotations

import pytest

from foury_sim.games.rooms import layout as L
from foury_sim.games.rooms.ruleset import load_ruleset
from foury_sim.games.rooms.trace import TABLE, Context


@pytest.fixture(scope="module")
def ctx():
    rs = load_ruleset()
    c = Context(rs, rs.dungeon.cols, "ranger")
    c.fight_rows = {0: rs.monster_names.index("dragon")}
    return c


def words(ctx, code, *fields):
    row = [code, *fields, *([0] * (7 - len(fields)))]
    (line,) = TABLE.format([row], ctx)
    return line.strip()


def test_plurals_agree(ctx):
    assert words(ctx, L.EV_NAV_TURN, 2, 1, 30, 1, 0, 2, 5) == \
        "== turn 2: 1 move, 30 HP, 1 key, 0 bombs, 2 potions, 5 gold"
    assert words(ctx, L.EV_STEP, 0, 1, 1, 0, -1, 1, 30).endswith(", 1 move left, 30 HP")
    assert words(ctx, L.EV_STEP, 0, 1, 1, 0, -1, 2, 30).endswith(", 2 moves left, 30 HP")
    assert words(ctx, L.EV_MIRROR, 0, 5, 1, 0).endswith("(1 use left)")
    assert words(ctx, L.EV_POTION, 6, 20, 1).endswith("+6 HP, 20 HP, 1 potion left")
    assert words(ctx, L.EV_POISON_TICK, -1, 1, 1, 12).endswith("for 1: 12 HP, 1 stack left")
    assert words(ctx, L.EV_WON, 1, 20, 6, 0).startswith("-- the fight is won in 1 fight turn:")
    assert words(ctx, L.EV_GAIN, L.IT_KEY, 1, 2, L.K_TRAP) == "gets a key from the trap room (2 keys now)"
    assert words(ctx, L.EV_GAIN, L.IT_GOLD, 4, 4, L.K_TREASURE) == "gets 4 gold from the treasure room (4 gold now)"
    assert words(ctx, L.EV_GAIN, L.IT_BOOTS, 1, 1, L.K_SHOP) == "gets the Speed Boots from the shop room"


def test_hp_never_reads_below_zero(ctx):
    hit = words(ctx, L.EV_ATTACK, 0, 8, 0, 2, 0, 6, -3)
    assert hit.endswith("the hero loses 6 HP, 0 HP: dead, 3 damage over") and "-3" not in hit
    assert words(ctx, L.EV_ATTACK, 0, 5, 0, 0, 0, 5, 0).endswith("the hero loses 5 HP, 0 HP: dead")
    assert words(ctx, L.EV_ATTACK, 0, 2, 0, 2, 0, 0, 30).endswith("(the defensive roll blocks 2): no HP lost, 30 HP")
    assert words(ctx, L.EV_TRAP, 2, 5, 3, -1).endswith("3 damage, 0 HP: dead, 1 damage over")
    assert words(ctx, L.EV_POISON_TICK, -1, 2, 0, -1).startswith("poison hurts the hero for 2: 0 HP: dead, 1 damage")


def test_rooms_and_functions_read_well(ctx):
    names = ctx.rules.card_names
    fountain, chest = names.index("fountain"), names.index("treasure_chest")
    assert words(ctx, L.EV_REVEAL, 5, fountain, L.K_FOUNTAIN, 0, 0, 0).startswith(
        "the card at row 2, column 1 turns face up: fountain room, north open")
    assert "treasure chest (treasure room)" in words(ctx, L.EV_REVEAL, 5, chest, L.K_TREASURE, 0, 0, 0)
    assert words(ctx, L.EV_RESOLVE, 5, L.K_MONSTER, 0, 0, 30, 1).startswith("resolves the monster room: 30 HP")
    assert words(ctx, L.EV_RESOLVE, 5, L.K_BLACKSMITH, 1, 8, 30, 1).startswith(
        "resolves the blacksmith room's mend (+8 HP): 30 HP")
    assert words(ctx, L.EV_RESOLVE, 5, L.K_WARP, 1, 0, 30, 1).startswith("resolves the warp room's cache: 30 HP")
    assert words(ctx, L.EV_DECIDE, L.D_PASS, 1, 3, L.PASS_ITEM, L.DOOR_WALL, 5) == "- pass: use a bomb (option 1 of 3)"
    assert words(ctx, L.EV_DECIDE, L.D_PASS, 2, 3, L.PASS_HP, L.DOOR_LOCKED, 5) == \
        "- pass: pay 1 HP instead of a key (option 2 of 3)"
    assert words(ctx, L.EV_END, 0, 1, 0, 3, 0) == "== LOST on turn 3 (cause: a fight)"


def test_fight_words_list_only_what_happened(ctx):
    assert words(ctx, L.EV_INFLICT, 0, 1, 0, 1, 0) == "the Dragon (monster 1) inflicts 1 poison: the hero has 1 poison"
    assert words(ctx, L.EV_DEF_ROLL, -1, 2, 1 + 2 * 8, 0, 0).endswith(": blocks nothing")


def _gold_followed(lines, rs) -> int | None:
    """The hero's gold as the replay's words tell it: each turn's line, every "gets N gold", every purchase, the
    Blacksmith's costs; asserts each turn's line and each "(G gold now)" agrees with the words before it."""
    import re

    gold = None
    for line in lines:
        m = re.match(r"== turn \d+: .*, (\d+) gold$", line)
        if m:
            assert gold is None or gold == int(m.group(1)), line
            gold = int(m.group(1))
            continue
        if gold is None:
            continue
        m = re.search(r"gets (\d+) gold .*\((\d+) gold now\)", line)
        if m:
            gold += int(m.group(1))
            assert gold == int(m.group(2)), line
        m = re.search(r"buy .* for (\d+) gold", line)
        if m:
            gold -= int(m.group(1))
        if "resolves the blacksmith room's forge" in line:
            gold -= int(rs.nav[L.N_FORGE_COST])
        if "resolves the blacksmith room's mend" in line:
            gold -= int(rs.nav[L.N_MEND_COST])
    return gold


def test_the_replay_says_every_gold_a_won_fight_gives():
    """A won fight's gold (the card's ``gold``: rat dens 2, the bounty hunter 6) is said like the treasure's, so the
    replay's gold adds up: each turn's line and the game's gold_left follow from the words (it was silent: the hero
    bought armour for 6 gold it had never been said to get)."""
    from foury_sim.games import rooms as R
    from foury_sim.policy import make_policy

    rs = load_ruleset()
    pol = make_policy(R.GAME.default_policy, R.POLICIES)
    row, lines = R.play_one(rs, "paladin", pol, 1, 3)  # replay rooms --hero paladin --game 3 (seed 1)
    assert "  gets 6 gold for the fight in the bounty hunter room (6 gold now)" in lines
    assert "  gets 2 gold for the fight in the monster room (2 gold now)" in lines
    said = 0
    for hero in ("paladin", "ranger", "berserker"):
        for game in range(12):
            row, lines = R.play_one(rs, hero, pol, 0, game)
            assert _gold_followed(lines, rs) == row["gold_left"], (hero, game)
            said += sum("gold for the fight" in line for line in lines)
    assert said > 10
