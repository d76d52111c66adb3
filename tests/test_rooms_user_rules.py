"""Rooms rules a user changes (``--rules``, ``--set``): a monster's attack switched between dice and a pattern (an
attack given with its ``kind`` replaces the shipped one whole)."""

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
