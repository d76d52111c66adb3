"""Tactics around the rules: starting equipment (``player.weapon`` / ``player.armor``), Dungeon Master policy files
(``--dm FILE.py[:FUNCTION]``), the game's run options as sweep / compare settings, and replay's ``--grid-at``.

Every game here reuses the one compiled Tactics entry point (and the shipped arena and tutorial levels, or tiny
levels drawn here): no new specialisation.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from inproc import cli

from foury_sim import provenance
from foury_sim.errors import InputError
from foury_sim.games import tactics as T
from foury_sim.games.tactics import layout as A
from foury_sim.games.tactics.level import format_state, load_level
from foury_sim.games.tactics.ruleset import R_START_ARMOR, R_START_WEAPON
from foury_sim.policy import make_policy
from foury_sim.study import compare, load_experiment

ROOT = Path(__file__).parent.parent
GOLDEN = Path(__file__).parent / "golden"
DM_FILE = "experiments/policies/tactics_dm.py"
CORRIDOR = "######\n#@S.>#\n######"


def level(tmp_path, grid: str) -> str:
    p = tmp_path / "level.txt"
    p.write_text("name: test level\n\ngrid:\n" + grid + "\n")
    return str(p)


@pytest.fixture(scope="module")
def scripted():
    return make_policy("tests/data/tactics_policies.py:scripted", T.POLICIES)


# --- starting equipment ------------------------------------------------------------------------------------
def test_player_starts_with_the_weapon_and_armour_of_the_settings(scripted, tmp_path):
    """The mace (+1, +1 more against undead) and quilted leather (+1 AP, defence 1) from the first turn: 9 AP, and
    the same dice (3 + 3 each side) give 8 to 5 against the skeleton instead of bare hands' 6 to 6."""
    params = np.array([A.A_ATTACK, 0], dtype=np.float64)
    pol = replace(scripted, params=params)
    sets = ["dm.ap=0", "game.turn_cap=1"]
    lines = {}
    for name, extra in (("bare", []), ("equipped", ["player.weapon=mace", "player.armor=quilted_leather"])):
        rs = T.load_ruleset(None, sets + extra, level(tmp_path, CORRIDOR))
        row, lines[name] = T.play_one(rs, "adventurer", pol, 0, 0, [3, 3, 3, 3, 6])
        assert row["bad_answers"] == 0
    assert lines["bare"][1] == "== turn 1: the adventurer at row 2, column 2, 10 HP, 8 AP; 1 monster awake =="
    assert lines["equipped"][1] == "== turn 1: the adventurer at row 2, column 2, 10 HP, 9 AP; 1 monster awake =="
    assert any("melee against the skeleton: 6 to 6, a tie" in ln for ln in lines["bare"])
    assert any("melee against the skeleton: 8 to 5, the adventurer wins" in ln for ln in lines["equipped"])
    rs = T.load_ruleset(None, ["player.weapon=bow", "player.armor=plate_mail"])
    assert (rs.rules[R_START_WEAPON], rs.rules[R_START_ARMOR]) == (rs.weapon_names.index("bow"),
                                                                   rs.armor_names.index("plate_mail"))
    shipped = T.load_ruleset().rules  # default "none": bare hands, no armour (today's game)
    assert (shipped[R_START_WEAPON], shipped[R_START_ARMOR]) == (0, 0)


def test_unknown_starting_weapon_is_one_line(tmp_path):
    with pytest.raises(InputError) as e:
        T.load_ruleset(None, ["player.weapon=club"])
    assert (e.value.message, e.value.where) == (
        "player.weapon: unknown weapon 'club' (known: none, mace, axe, sword, spear, bow, mage_staff)",
        "--set player.weapon=club")
    f = tmp_path / "rules.toml"
    f.write_text("[player]\narmor = \"plate\"\n")
    with pytest.raises(InputError) as e:
        T.load_ruleset(str(f))
    assert e.value.message.startswith("player.armor: unknown armour 'plate'")
    assert e.value.where == f"{f}:2:1"


# --- the Dungeon Master's policy files ---------------------------------------------------------------------
def test_dm_policy_file_choices_are_taken():
    """``first`` (always option 0) plays exactly the by_the_book games where nothing can spawn (the arena: no
    spawn point; by_the_book's monsters act in menu order too); ``idle`` never lets a monster act."""
    pol = make_policy("thorough", T.POLICIES)
    book = T.simulate(T.load_ruleset(None, None, "arena_mummy"), "adventurer", pol, 7, 0, 200)
    first = T.simulate(T.load_ruleset(None, None, "arena_mummy", dm=f"{DM_FILE}:first"), "adventurer", pol, 7, 0, 200)
    for k in book:
        assert np.array_equal(book[k], first[k]), k
    assert book["decisions"].sum() > book["turns"].sum()  # the DM did decide things
    rs = T.load_ruleset(None, None, "crypt", dm=f"{DM_FILE}:idle")
    lines = T.replay(rs, "adventurer", pol, 1, 0)
    acts = [ln for ln in lines if "the DM decides" in ln and ": spawn " not in ln and ": at row " not in ln]
    assert acts and all(ln.endswith("end the DM's turn") for ln in acts)
    assert any(": spawn " in ln for ln in lines)  # it still spawns (the first kind)
    assert not any("monster attacks" in ln or "steps to" in ln or "shoots" in ln for ln in lines)
    assert lines[0].endswith(f"Dungeon Master {DM_FILE}:idle(walk=0)")  # the file's POLICY_PARAMS


def test_bad_dm_policy_file_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    bad = tmp_path / "dm_bad.py"
    bad.write_text("def decide(kind, state, options, n_options, params):\n    return 99 if kind else 0 +\n")
    with pytest.raises(InputError) as e:
        T.load_ruleset(None, None, None, dm=str(bad))
    assert e.value.where == f"{bad}:2" and e.value.message.startswith("syntax error in policy file")
    wild = tmp_path / "dm_wild.py"
    wild.write_text("def decide(kind, state, options, n_options, params):\n    return 99\n")
    rs = T.load_ruleset(None, None, "arena_mummy", dm=str(wild))
    with pytest.raises(InputError) as e:
        T.simulate(rs, "adventurer", make_policy("rush", T.POLICIES), 1, 0, 5)
    assert e.value.where == "--dm"
    assert e.value.message.startswith(f"policy '{wild}:decide' returned an option index out of range")
    from foury_sim.cli import main

    monkeypatch.setattr(sys, "argv", ["foury-sim", "run", "tactics", "--games", "10", "--dm", str(bad)])
    capsys.readouterr()  # (what the steps above said: the wild policy's compile notice)
    with pytest.raises(SystemExit) as ex:
        main()
    err = capsys.readouterr().err
    assert ex.value.code == 2 and err.count("\n") == 1 and err.startswith("foury-sim: error: ") and str(bad) in err


def test_a_dm_policy_reading_past_its_parameters_names_dm_param(tmp_path):
    """A DM policy file that reads past its parameters is told to give them with ``--dm-param`` (its own option),
    in ``run`` and in ``replay``; it said "its --param gives", the player's option."""
    greedy = tmp_path / "dm_params.py"
    greedy.write_text("def decide(kind, state, options, n_options, params):\n    return int(params[3]) % n_options\n")
    rs = T.load_ruleset(None, None, "crypt", dm=str(greedy))
    pol = make_policy("rush", T.POLICIES)
    for play in (lambda: T.simulate(rs, "adventurer", pol, 1, 0, 3), lambda: T.replay(rs, "adventurer", pol, 1, 0)):
        with pytest.raises(InputError) as e:
            play()
        assert e.value.where == "--dm"
        assert "read past its parameters (its --dm-param gives only 0: none)" in e.value.message, e.value.message


# --- run options as sweep and compare settings ------------------------------------------------------------
def test_sweeps_and_compares_vary_the_games_run_options(tmp_path):
    f = tmp_path / "dm.toml"
    f.write_text('name = "dm"\ngame = "tactics"\ngames = 10\n[fixed]\nmap = "crypt"\ndm_param = "spawn_near=0"\n'
                 '[sweep]\ndm = ["ruthless", "by_the_book"]\n')
    with pytest.raises(InputError) as e:  # ruthless takes spawn_near, by_the_book no parameter: cell 1 is refused
        load_experiment(f)
    assert e.value.where == f"{f}:6" and "unknown policy parameter 'spawn_near'" in e.value.message
    f.write_text('name = "dm"\ngame = "tactics"\ngames = 10\n[fixed]\nmap = "crypt"\n'
                 '[sweep]\ndm = ["ruthless", "by_the_book"]\n')
    exp = load_experiment(f)
    assert [T.dm_policy(rs).name for rs, _, _ in exp.rulesets] == ["ruthless", "by_the_book"]
    f.write_text('name = "dm"\ngame = "tactics"\n[sweep]\ndm = ["ruthless", 3]\n')
    with pytest.raises(InputError) as e:
        load_experiment(f)
    assert e.value.where == f"{f}:4" and e.value.message.startswith("dm takes a text (the option --dm), not 3")
    c = compare("tactics", {"dm": "by_the_book"}, {"dm": "ruthless"}, fixed={"map": "crypt", "policy": "rush"},
                games=60, seed=3, progress=False)
    book = T.simulate(T.load_ruleset(None, None, "crypt"), "adventurer", make_policy("rush", T.POLICIES), 3, 0, 60)
    assert np.array_equal(c.df_a["win"].to_numpy(), book["win"])  # variant A is the by_the_book game, paired
    assert "--a dm=by_the_book --b dm=ruthless --fixed map=crypt --fixed policy=rush" in c.command()
    assert provenance.replay_command("tactics", 3, 5, c.settings("b")) == (
        "foury-sim replay tactics --seed 3 --game 5 --policy rush --map crypt --dm ruthless")


# --- replay --grid-at --------------------------------------------------------------------------------------
def test_replay_draws_the_grid_at_chosen_turns():
    rs = T.load_ruleset(None, None, "tutorial")
    lines = T.replay(rs, "adventurer", make_policy("thorough", T.POLICIES), 3, 1, grid_at="1,last,99")
    path = GOLDEN / "tactics_grid_tutorial_seed3_game1_thorough.txt"
    text = "\n".join(lines) + "\n"
    if os.environ.get("FOURY_SIM_REGEN_GOLDEN") == "1":
        path.write_text(text)
    assert path.read_text() == text
    lvl = load_level("tutorial")
    at = lines.index(next(ln for ln in lines if ln.startswith("== turn 1:")))
    assert lines[at + 1:at + 1 + lvl.rows + 1] == format_state(lvl, player=lvl.start)  # turn 1: as the level
    assert lines[-1].startswith("(--grid-at: turn 99 was not played; the game lasted ")
    with pytest.raises(InputError) as e:
        T.replay(rs, "adventurer", make_policy("thorough", T.POLICIES), 3, 1, grid_at="1,first")
    assert e.value.where == "--grid-at"
    assert e.value.message == "takes turn numbers (1..1000) and 'last' separated by commas, not 'first'"
    with pytest.raises(InputError) as e:  # a misspelt 'last' is named
        T.grid_turns("1,lst")
    assert e.value.message == "takes turn numbers (1..1000) and 'last' separated by commas, not 'lst' (did you mean " \
                              "'last'?)"


@pytest.mark.parametrize("text", [",,", "1,,5", "1,"])
def test_replay_refuses_a_grid_at_list_with_an_empty_item(text):
    """``--grid-at ,,`` drew nothing and said nothing (its empty items were skipped)."""
    with pytest.raises(InputError) as e:
        T.grid_turns(text)
    assert (e.value.where, e.value.message) == (
        "--grid-at", f"{text!r} has an empty item: give turn numbers (1..1000) and 'last' separated by single commas")
    r = cli("replay", "tactics", "--grid-at", text)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", f"foury-sim: error: --grid-at: {e.value.message}\n")
