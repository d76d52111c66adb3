"""tools/mutation_check.py: the list loads, names real rule tests, and mutants apply exactly one edit.

The mutation run itself (minutes) is not part of the test suite: ``python tools/mutation_check.py``.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("mutation_check", ROOT / "tools" / "mutation_check.py")
MC = importlib.util.module_from_spec(_spec)
sys.modules["mutation_check"] = MC  # dataclasses look their module up
_spec.loader.exec_module(MC)


def test_the_list_loads_and_names_existing_rule_tests():
    games, mutants = MC.load()
    assert set(games) == {"foury", "delve", "tactics", "rooms"}
    assert len(mutants) >= 25
    for game in games.values():
        defined = set()
        for f in game.tests:
            defined |= set(re.findall(r"^def (test_\w+)", (ROOT / f).read_text(), re.M))
        for name in game.deselect:
            assert any(name in t for t in defined), name
        for m in (m for m in mutants if m.game == game.name):
            assert m.tests and m.rule, m.id
            for name in m.tests:
                assert any(name in t for t in defined), (m.id, name)



def test_every_mutant_follows_the_code():
    """Each listed mutant's original text stands exactly once where it says: a refactor that respells a rule
    must respell its mutant too (the check itself runs outside the suite)."""
    _, mutants = MC.load()
    for m in mutants:
        assert MC.locate(m) >= 0, m.id

def _mutant(tmp_path: Path, find: str, within: str = "") -> MC.Mutant:
    (tmp_path / "rules.py").write_text(
        "def fight(a, b):\n    if a > b:\n        return 1\n    return 0\n\n\n"
        "def other(a, b):\n    if a > b:\n        return 2\n    return 0\n"
    )
    return MC.Mutant("m", "g", "rules.py", find, find.replace("if a", "if 2 * a"), "a tie wins", ["test_x"], within)


def test_a_mutant_edits_one_place_in_its_function(tmp_path):
    m = _mutant(tmp_path, "if a > b:", within="def fight(")
    MC.apply(m, tmp_path)
    text = (tmp_path / "rules.py").read_text()
    assert text.count("if 2 * a > b:") == 1 and text.index("if 2 * a > b:") < text.index("def other(")
    assert m.line == 2


@pytest.mark.parametrize("find, within, error", [
    ("if a > b:", "", "occurs 2 times"),  # not unique without `within`
    ("if a == b:", "def fight(", "occurs 0 times"),  # the code moved on: the list must follow it
    ("if a > b:", "def missing(", "starts 0 lines"),
])
def test_a_mutant_that_does_not_follow_the_code_is_an_error(tmp_path, find, within, error):
    with pytest.raises(MC.ListError, match=error):
        MC.locate(_mutant(tmp_path, find, within), tmp_path)


@pytest.mark.parametrize("replace, tests, status, by, listed", [
    ("a >= b", ["test_tie"], "KILLED", "tests/test_r.py::test_tie", True),
    ("a > b - 0", ["test_tie"], "SURVIVED", "", False),  # the listed test, then every test: all pass
    ("a > bb", ["test_tie"], "BROKEN", "the mutant raises NameError", True),  # a typo is no rule bug
])
def test_a_mutant_is_killed_survives_or_is_broken(tmp_path, replace, tests, status, by, listed):
    snap = tmp_path / "snapshot"
    (snap / "foury_sim").mkdir(parents=True)
    (snap / "tests").mkdir()
    (snap / "foury_sim" / "rules.py").write_text("def wins(a, b):\n    return a > b\n")
    (snap / "tests" / "test_r.py").write_text(
        "from foury_sim.rules import wins\n\n\ndef test_tie():\n    assert not wins(3, 3)\n\n\n"
        "def test_win():\n    assert wins(4, 3)\n"
    )
    m = MC.Mutant("m", "g", "foury_sim/rules.py", "a > b", replace, "a tie is no win", tests)
    r = MC.check_mutant(m, MC.Game("g", ["tests/test_r.py"]), tmp_path, timeout=120)
    assert (r.status, r.by, r.listed) == (status, by, listed), r.output
    assert (snap / "foury_sim" / "rules.py").read_text().count("a > b\n") == 1  # the snapshot is untouched
