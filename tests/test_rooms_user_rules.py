"""Rooms rules a user changes (``--rules``, ``--set``): a monster's attack switched between dice and a pattern (an
attack given with its ``kind`` replaces the shipped one whole); a deck the user emptied is blamed on the user's line,
not on the shipped dungeon's."""

from __future__ import annotations

import pytest

from foury_sim.errors import InputError
from foury_sim.games.rooms import layout as L
from foury_sim.games.rooms.ruleset import load_heroes, load_ruleset


def _attack(rules, name):
    row = rules.monsters[name].row
    kind = L.ATTACK_KINDS[int(row[L.M_ATK_KIND])]
    if kind == "pattern":
        return kind, row[L.M_PATTERN:L.M_PATTERN + int(row[L.M_PATTERN_LEN])].tolist()
    return kind, int(row[L.M_ATK_DICE]), row[L.M_ATK_FACE:L.M_ATK_FACE + L.N_FACES].tolist()


def test_a_users_attack_with_its_kind_replaces_the_shipped_attack_whole(tmp_path):
    """The rat (dice) given a pattern, the skeleton (a pattern) given dice: each loads as written (the shipped
    table's keys of the other kind were merged in: "has unknown key 'dice'", or blamed on the shipped file)."""
    f = tmp_path / "r.toml"
    f.write_text('[monsters.rat]\nattack = {kind = "pattern", pattern = [1, 2]}\n'
                 '[monsters.skeleton.attack]\nkind = "dice"\ndice = 1\ndamage = [0, 1, 1, 2, 2, 3]\n')
    rules = load_heroes(str(f))
    assert _attack(rules, "rat") == ("pattern", [1, 2])
    assert _attack(rules, "skeleton") == ("dice", 1, [0, 1, 1, 2, 2, 3])
    assert _attack(rules, "ogre") == ("pattern", [0, 7])  # the others stay
    assert rules.monsters["rat"].row[L.M_HP] == 6  # the rest of the rat stays
    rs = load_ruleset(str(f))  # the whole ruleset too (its own load of the file)
    assert _attack(rs.dice_rules, "rat") == ("pattern", [1, 2])
    rules = load_heroes(None, ['monsters.rat.attack={kind="pattern", pattern=[1,2]}'])
    assert _attack(rules, "rat") == ("pattern", [1, 2])


def test_a_partial_attack_of_the_other_kind_is_one_line_at_the_users_line(tmp_path):
    f = tmp_path / "r.toml"
    f.write_text("# mine\n[monsters.rat.attack]\npattern = [1, 2]\n")
    with pytest.raises(InputError) as e:
        load_heroes(str(f))
    assert e.value.where == f"{f}:3:1"
    assert "monsters.rat.attack.pattern is a key of a pattern attack" in e.value.message
    assert "give the whole attack" in e.value.message


@pytest.mark.parametrize("sets", [["monsters.rat.attack.kind=pattern", "monsters.rat.attack.pattern=1,2"],
                                  ["monsters.rat.attack.pattern=1,2"]])
def test_a_set_of_an_attacks_kind_says_to_give_the_whole_attack(sets):
    """``--set ...attack.kind`` (its keys are the old kind's) or a key of the other kind: one line at that
    ``--set`` showing the table form (it was "unknown ruleset key", or blamed the shipped file)."""
    with pytest.raises(InputError) as e:
        load_heroes(None, sets)
    assert e.value.where == f"--set {sets[0].split('=')[0]}"
    assert "give the whole table, e.g. --set 'monsters.rat.attack={kind = " in e.value.message
    assert load_heroes(None, ["monsters.rat.attack.kind=dice"]).monsters["rat"].row[L.M_ATK_DICE] == 1  # unchanged


DEALT = ("rat_den", "spider_nest", "goblin_camp", "crypt", "spike_trap", "treasure_chest", "fountain", "blacksmith",
         "warp_room", "bounty_hunter", "shop")


def test_a_deck_the_user_emptied_is_blamed_on_the_users_line_with_the_dungeons(tmp_path):
    """Every ``deck.*.count = 0`` in a rules file (or by ``--set``): the error is at the user's count, and names the
    shipped dungeon's dealt cell in its message (it was at the shipped dungeon's line only)."""
    f = tmp_path / "empty.toml"
    f.write_text("# no cards\n" + "".join(f"[deck.{n}]\ncount = 0\n" for n in DEALT))
    with pytest.raises(InputError) as e:
        load_ruleset(str(f))
    assert e.value.where == f"{f}:3:1"
    assert e.value.message.startswith("the deck holds 0 cards (deck.*.count) but ")
    assert "dungeons/dealt.txt:4:1 deals 18 cells ('?')" in e.value.message
    with pytest.raises(InputError) as e:
        load_ruleset(None, ["deck.rat_den.count=0", "deck.spike_trap.count=0", "deck.treasure_chest.count=0",
                            "deck.fountain.count=0", "deck.crypt.count=0", "deck.warp_room.count=0"])
    assert e.value.where == "--set deck.rat_den.count=0" and "deals 18 cells" in e.value.message


def test_a_users_dungeon_dealing_more_than_the_deck_stays_at_its_cell(tmp_path):
    d = tmp_path / "big.txt"
    d.write_text("start ? ? ? ? ? ?\n? ? ? ? ? ? ?\n? ? ? ? ? ? ?\n? ? ? ? ? ? dragon_lair\n")
    with pytest.raises(InputError) as e:
        load_ruleset(None, None, str(d))
    assert e.value.where == f"{d}:4:5" and "26 cells are dealt ('?') but the deck holds 22 cards" in e.value.message
