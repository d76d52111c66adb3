"""The shared ruleset loader: ``--rules`` is merged over the shipped defaults the same way for every game."""

from __future__ import annotations

import pytest

from foury_sim.errors import InputError
from foury_sim.registry import get_game
from foury_sim.rulesfile import load_ruleset_file

DEFAULTS = '[game]\nlevels = 10   # a comment\ndelves = 3\n\n[heroes.a]\nname = "A"\n'


@pytest.fixture
def files(tmp_path):
    d = tmp_path / "defaults.toml"
    d.write_text(DEFAULTS)
    u = tmp_path / "mine.toml"
    return d, u


def test_a_user_file_is_merged_over_the_defaults_and_where_names_the_file_that_set_a_key(files):
    d, u = files
    u.write_text('# mine\n[game]\nlevels = 4\n[heroes.b]\nname = "B"\n')
    rf = load_ruleset_file(d, u, ["delves=2"], open_tables=("heroes",))
    assert rf.data == {"game": {"levels": 4, "delves": 2}, "heroes": {"a": {"name": "A"}, "b": {"name": "B"}}}
    assert rf.where("game.levels") == f"{u}:3"
    assert rf.where("heroes.a.name") == f"{d}:6"
    assert rf.where("game.delves") == "--set game.delves=2"
    assert rf.shipped.path == str(d) and [f.path for f in rf.users] == [str(u)] and rf.path == str(u)


def test_without_a_user_file_the_defaults_are_read(files):
    d, _ = files
    rf = load_ruleset_file(d)
    assert rf.data["game"]["levels"] == 10 and rf.where("game.delves") == f"{d}:3" and rf.users == []


@pytest.mark.parametrize(
    "text, where, key",
    [
        ("[game]\nlevls = 4\n", 2, "game.levls"),
        ("[rounds]\nn = 4\n", 1, "rounds"),
        ('[heroes.b]\nname = "B"\n', 1, "heroes"),  # heroes is not an open table here
    ],
)
def test_a_key_the_defaults_do_not_have_is_an_error_at_its_line(files, text, where, key):
    d, u = files
    u.write_text(text)
    with pytest.raises(InputError, match=f"unknown ruleset key '{key}") as e:
        load_ruleset_file(d, u, open_tables=("assumptions",) if key == "heroes" else ("heroes",))
    assert e.value.where == f"{u}:{where}"


@pytest.mark.parametrize(
    "game, text, bad",
    [
        ("foury", "[potions]\nred = 2\n", "[potions]\nblue = 2\n"),
        ("delve", "[dragon]\nthreshold = 4\n", "[dragon]\nthreshold = 4\nfury = 2\n"),
    ],
)
def test_every_game_merges_a_partial_rules_file_and_refuses_unknown_keys(tmp_path, game, text, bad):
    spec = get_game(game)
    f = tmp_path / "mine.toml"
    f.write_text(text)
    rs = spec.load_ruleset(f, None, None)
    base = spec.load_ruleset(None, None, None)
    section, rest = text.split("]\n", 1)
    key, value = (x.strip() for x in rest.split("=", 1))
    dotted = f"{section.strip('[')}.{key}"
    assert rs.data[section.strip("[")][key] == int(value) != base.data[section.strip("[")][key]
    changed = [a.key for a in rs.assumptions if a.overridden]
    assert set(changed) <= {dotted}  # nothing else moved
    assert len(rs.assumptions) == len(base.assumptions)
    f.write_text(bad)
    with pytest.raises(InputError, match="unknown ruleset key") as e:
        spec.load_ruleset(f, None, None)
    assert e.value.where == f"{f}:{len(bad.splitlines())}"
