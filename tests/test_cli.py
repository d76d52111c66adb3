"""The command line: summaries, JSON, files written, and one clear line (exit 2) for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from inproc import cli, real_entry  # foury-sim ARGS here (tests/inproc.py); the real entry point: process_cli

ROOT = Path(__file__).resolve().parents[1]


def process_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``python -m foury_sim.cli ARGS`` in a new interpreter: the real entry point."""
    return subprocess.run([sys.executable, "-m", "foury_sim.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=900)


def test_run_prints_win_rate_with_interval_and_causes():
    r = process_cli("run", "foury", "--games", "3000", "--seed", "4")  # the real entry point, a whole run
    assert r.returncode == 0, r.stderr
    assert "win rate" in r.stdout and "95 % Wilson interval" in r.stdout
    assert "death by cause" in r.stdout and "death by sector" in r.stdout


def test_run_json_and_out_dir(tmp_path):
    r = cli("run", "foury", "--games", "2000", "--seed", "4", "--hero", "kael", "--format", "json",
            "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["games"] == 2000 and s["hero"] == "kael"
    assert 0 <= s["win"]["lo"] <= s["win"]["rate"] <= s["win"]["hi"] <= 1
    df = pd.read_parquet(tmp_path / "games.parquet")
    assert len(df) == 2000 and list(df["game"]) == list(range(2000))
    assert df["win"].sum() == round(s["win"]["rate"] * 2000)
    assert json.loads((tmp_path / "summary.json").read_text())["games"] == 2000
    assert pd.read_csv(tmp_path / "games.csv").shape == df.shape


def test_same_seed_same_numbers_different_seed_different_numbers():
    a = json.loads(cli("run", "foury", "--games", "1500", "--seed", "9", "--format", "json").stdout)
    b = json.loads(cli("run", "foury", "--games", "1500", "--seed", "9", "--format", "json").stdout)
    c = json.loads(cli("run", "foury", "--games", "1500", "--seed", "10", "--format", "json").stdout)
    assert a["win"] == b["win"] and a["turns"] == b["turns"]
    assert a["turns"] != c["turns"]


def test_set_override_changes_the_game():
    easy = json.loads(cli("run", "foury", "--games", "3000", "--format", "json", "--set",
                          "monster_bonus=0,0,0,0").stdout)
    hard = json.loads(cli("run", "foury", "--games", "3000", "--format", "json", "--set",
                          "monster_bonus=3,4,5,6").stdout)
    assert easy["win"]["rate"] > hard["win"]["rate"]


def test_replay_reads_like_a_play_report():
    r = cli("replay", "foury", "--seed", "3", "--game", "5")
    assert r.returncode == 0, r.stderr
    assert "== Round 1:" in r.stdout and "room roll on table" in r.stdout
    assert ("WON" in r.stdout) or ("LOST" in r.stdout)


# `odds foury --format json` (one roll-off's exact odds in the JSON rows): tests/test_tables.py, in process


def test_map_render_and_check(tmp_path):
    out = tmp_path / "m.png"
    r = cli("map", "render", "base", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = cli("map", "check", "base")
    assert r.returncode == 0 and "statue 7" in r.stdout


def test_user_policy_on_the_command_line():
    r = cli("run", "foury", "--games", "500", "--policy", "experiments/policies/brave.py:brave", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert "brave.py:brave" in json.loads(r.stdout)["policy"]


BAD = [
    (["run", "foury", "--hero", "nobody"], "--hero", "unknown hero"),
    (["run", "foury", "--policy", "nope"], "--policy", "unknown policy"),
    (["run", "foury", "--policy", "missing.py:f"], "--policy", "does not exist"),
    (["run", "foury", "--games", "-5"], "--games", "between 1 and"),
    (["run", "foury", "--set", "no_such_key=3"], "no_such_key", "unknown ruleset key"),
    (["run", "foury", "--set", "monster_bonus=x"], "monster_bonus", "whole numbers"),
    (["run", "foury", "--set", "enemies.orc.strength.E=1"], "--set enemies.orc.strength.E=1",
     "unknown round 'E': A..D name the round played in that sector, 1..4 the k-th round played"),
    (["run", "foury", "--set", "enemies.orc.strength.C=1", "--set", "enemies.orc.strength.2=1"],
     "--set enemies.orc.strength", "mixes sector rounds (A..D) and play-order rounds (1..4)"),
    (["run", "foury", "--set", "enemies.ork.strength.C=1"], "--set enemies.ork.strength.C", "unknown enemy 'ork'"),
    (["run", "delve", "--set", "level_dice.7=31"], "--set level_dice.7=31", "level_dice.7 = 31 is above 30"),
    (["run", "foury", "--map", "nowhere.map"], "--map", "nowhere.map"),
    (["run", "nogame"], "GAME", "unknown game"),
    (["run", "foury", "--param", "bravery=2"], "--param", "unknown policy parameter 'bravery' (known: trait_hearts"),
    (["run", "foury", "--param", "round_ordr=12"], "--param",
     "unknown policy parameter 'round_ordr' (did you mean 'round_order'? known: trait_hearts"),
    (["run", "foury", "--threads", "0"], "--threads", "between 1"),
    (["run", "foury", "--format", "xml"], "--format", "text or json"),
    (["run", "foury", "--bogus"], "--bogus", "No such option"),
    (["run", "foury", "--hero", ""], "--hero", "is empty"),
    (["run", "foury", "--policy", ""], "--policy", "is empty"),
    (["run", "foury", "--games", "10000000000000000000"], "--games", "between 1 and 9,223,372,036,854,775,807"),
    (["run", "foury", "--games", "1e12"], "--games", "takes a whole number, not '1e12'"),
    (["run", "foury", "--seed", str(2**63)], "--seed", "between 0 and 2**63-1"),
    (["replay", "foury", "--seed", str(2**63)], "--seed", "between 0 and 2**63-1"),
    (["replay", "foury", "--hero", ""], "--hero", "is empty"),
    (["compare", "foury", "--seed", "-1", "--a", "hero=kael"], "--seed", "between 0 and 2**63-1"),
    (["compare", "foury", "--conf", "nan", "--a", "hero=kael"], "--conf", "between 0.5 and 1"),
    (["odds", "foury", "--seed", str(2**63)], "--seed", "between 0 and 2**63-1"),
    (["odds", "foury", "--hearts", "1000000000"], "--hearts", "between 1 and 30"),
    (["odds", "foury", "--trials", str(10**9)], "--trials", "between 1 and 10,000,000"),
    (["run", "foury", "--conf", "nan"], "--conf", "between 0.5 and 1"),
    (["run", "foury", "--out", "README.md"], "--out", "is a file"),
    (["run", "foury", "--out", "no_such_folder/run1"], "--out", "does not exist"),
    (["compare", "foury", "--a", "hero=kael", "--out", "README.md"], "--out", "is a file"),
    (["map", "render", "base", "-o", "x.txt"], "--out", "must end in .png"),
    (["map", "render", "base", "-o", "no_such_folder/x.png"], "--out", "does not exist"),
    (["run", "foury", "--rules", "tests"], "--rules", "is a folder, not a file"),
    (["run", "foury", "--out", ""], "--out", "is empty"),
    (["compare", "foury", "--a", "hero=kael", "--out", ""], "--out", "is empty"),
    (["map", "render", "base", "-o", ""], "--out", "is empty"),
    (["run", "tactics", "--dm", "nasty"], "--dm", "unknown Dungeon Master policy 'nasty'"),
    (["run", "tactics", "--dm", "ruthless", "--dm-param", "cruelty=2"], "--dm-param", "unknown policy parameter"),
    (["run", "tactics", "--policy", "ruthless"], "--policy", "unknown policy 'ruthless'"),
    (["odds", "tactics", "--hearts", "3"], "--hearts", "--hearts is an option of foury, not of tactics"),
    (["run", "foury", "--campaign", "atlantis"], "--campaign", "unknown campaign 'atlantis'"),
    (["run", "foury", "--campaign", ""], "--campaign", "is empty: give a value"),
    (["run", "delve", "--set", "dragon.threshold=3", "--set", "dragon.threshold=4"], "--set dragon.threshold",
     "given twice (3 and 4): give it once"),
    # (one key under two names: the last one won in silence)
    (["run", "delve", "--set", "game.party_dice=7", "--set", "party_dice=8"], "--set party_dice",
     "game.party_dice is given twice (game.party_dice=7 and party_dice=8): give it once"),
    (["run", "foury", "--set", "round.monster_bonus[1]=2", "--set", "monster_bonus[1]=3"], "--set monster_bonus[1]",
     "round.monster_bonus[1] is given twice (round.monster_bonus[1]=2 and monster_bonus[1]=3): give it once"),
    (["replay", "foury", "--campaign", "README.md"], "--campaign", "must end in .toml"),
    (["map", "check", "base", "--campaign", "nope"], "--campaign", "unknown campaign 'nope'"),
    (["map", "check", "base", "--campaign", "inout"], "base.map", "wants at least 1 yellow potion"),
    (["map", "check", "nosuch"], "MAP: ", "unknown map 'nosuch'"),  # (was blamed on --map, an option it lacks)
    (["ladder", "delve", "--tune", "risk:margin=5..1"], "--tune: ", "range of margin must be [LO, HI]"),
    (["sweep", "experiments/hero_difficulty.toml", "--batch", "0"], "--batch: ", "go with --precision"),
    (["map", "render", "base", "--campaign", "nope"], "--campaign", "unknown campaign 'nope'"),
    (["run", "delve", "--campaign", "inout"], "--campaign", "--campaign is an option of foury, not of delve"),
    (["assumptions", "foury", "--campaign", "nope"], "--campaign", "unknown campaign 'nope'"),
    (["odds", "rooms", "--hero", "nobody"], "--hero", "unknown hero 'nobody'"),
    # (a fault of the settings both variants share is --fixed's: it was blamed on --a)
    (["compare", "foury", "--a", "policy=greedy", "--b", "policy=cautious", "--fixed", "hero=kael,melyra"], "--fixed",
     "unknown hero 'kael,melyra'"),
    (["compare", "foury", "--a", "policy=cautious", "--fixed", "param.foe_avod=2"], "--fixed",
     "unknown policy parameter 'foe_avod'"),
    # (another game's board checked without --game: the default game's reader's fault, then which --game reads it)
    (["map", "check", "foury_sim/games/tactics/data/levels/tutorial.txt"], "tutorial.txt:15:1: ",
     "no grid found after the header (the grid starts with a border line '+---+...') (it reads as a tactics board: "
     "add --game tactics)"),
    (["map", "check", "foury_sim/games/rooms/data/dungeons/crossroads.txt"], "crossroads.txt:3:1: ",
     "(it reads as a rooms board: add --game rooms)"),
]


@pytest.mark.parametrize("args,where,what", BAD)
def test_bad_input_is_one_line_and_exit_2(args, where, what):
    r = cli(*args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert where in lines[0] and what in lines[0]
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("args,line", [
    (["run", "foury", "--games", "10", "--param", ",,,"],
     "--param: ',,,' has an empty item: give NAME=VALUE items separated by single commas"),
    (["run", "foury", "--games", "10", "--param", "foe_avoid=2,,flee_hearts=3"],
     "--param: 'foe_avoid=2,,flee_hearts=3' has an empty item: give NAME=VALUE items separated by single commas"),
    (["run", "foury", "--games", "10", "--param", "foe_avoid=2,"],
     "--param: 'foe_avoid=2,' has an empty item: give NAME=VALUE items separated by single commas"),
    (["run", "foury", "--games", "10", "--param", " "],
     "--param: is empty (leave the option out for the policy's own parameters)"),
    (["replay", "foury", "--param", ",,,"],
     "--param: ',,,' has an empty item: give NAME=VALUE items separated by single commas"),
    (["run", "tactics", "--games", "10", "--dm", "ruthless", "--dm-param", ","],
     "--dm-param: ',' has an empty item: give NAME=VALUE items separated by single commas"),
])
def test_policy_parameters_with_an_empty_item_are_refused_in_one_line(args, line):
    """An empty item of a comma list was skipped in silence (``--param ,,,`` played the defaults)."""
    r = cli(*args)
    assert (r.returncode, r.stderr, r.stdout) == (2, f"foury-sim: error: {line}\n", "")


@pytest.mark.parametrize("args,line", [
    (["run", "delve", "--games", "10", "--policy", "risk", "--param", "margin=1,margin=2"],
     "--param: margin is given twice (1 and 2): give it once"),
    (["replay", "delve", "--policy", "risk", "--param", "margin=1, margin=2"],
     "--param: margin is given twice (1 and 2): give it once"),
    (["run", "tactics", "--games", "10", "--dm-param", "spawn_near=0,spawn_near=1"],
     "--dm-param: spawn_near is given twice (0 and 1): give it once"),
])
def test_a_policy_parameter_given_twice_is_refused_in_one_line(args, line):
    """The last one won in silence (``--param margin=1,margin=2`` played margin 2); ``--set`` refuses a key given
    twice."""
    r = cli(*args)
    assert (r.returncode, r.stderr, r.stdout) == (2, f"foury-sim: error: {line}\n", "")


@pytest.mark.parametrize("args,line", [
    (["run", "foury", "--games", "10", "--hero", "elydoin"], "--hero: unknown hero 'elydoin' for foury (did you mean "
     "'elydion'? known: free, kael, melyra, thalindra, elydion)"),
    (["run", "delve", "--games", "10", "--hero", "knigt"], "--hero: unknown hero 'knigt' for delve (did you mean "
     "'knight'? known: none, spellsword, mercenary, knight, half_goblin, minstrel, enchantress, occultist, crusader)"),
    (["run", "foury", "--games", "10", "--policy", "gredy"], "--policy: unknown policy 'gredy' (did you mean "
     "'greedy'? built-in: random, greedy, cautious, kraken, search; or FILE.py:FUNCTION)"),
    (["compare", "foury", "--games", "10", "--a", "hero=elydoin"], "--a: unknown hero 'elydoin' for foury (did you "
     "mean 'elydion'? known: free, kael, melyra, thalindra, elydion)"),
    (["ladder", "delve", "--games", "10", "--hero", "knight,minstrl"], "--hero: unknown hero 'minstrl' for delve (did "
     "you mean 'minstrel'? known: none, spellsword, mercenary, knight, half_goblin, minstrel, enchantress, occultist, "
     "crusader)"),
    # (nothing near: the known names only, as before)
    (["run", "foury", "--games", "10", "--hero", "zzzz"], "--hero: unknown hero 'zzzz' for foury (known: free, kael, "
     "melyra, thalindra, elydion)"),
])
def test_a_mistyped_hero_or_policy_is_offered_the_nearest_name(args, line):
    """A misspelt --hero or --policy (or a hero in --a/--fixed) names the nearest known name, then the known ones."""
    r = cli(*args)
    assert (r.returncode, r.stderr, r.stdout) == (2, f"foury-sim: error: {line}\n", "")


def test_a_notebooks_mistyped_hero_or_policy_is_offered_the_nearest_name_too():
    """The hint is in the error each place raises (``errors.did_you_mean``), not added by the CLI: a notebook calling
    the library, or a game's own check (Delve's odds), gets it too."""
    from foury_sim.errors import InputError
    from foury_sim.games.delve.odds import odds
    from foury_sim.registry import get_game
    from foury_sim.runner import run

    with pytest.raises(InputError, match=r"^--hero: unknown hero 'knigt' for delve \(did you mean 'knight'\? known: "):
        run("delve", hero="knigt", games=10)
    with pytest.raises(InputError, match=r"^--policy: unknown policy 'gredy' \(did you mean 'greedy'\? built-in: "):
        run("foury", policy="gredy", games=10)
    ruleset = get_game("delve").load_ruleset(None, None, None)
    with pytest.raises(InputError, match=r"^--hero: unknown hero 'knigt' \(did you mean 'knight'\? known: none, "):
        odds(ruleset, hero="knigt")


def test_compare_names_its_outcomes_as_run_does(tmp_path):
    """compare's table named its outcomes by their column names (rounds_completed, hearts_left); now as run's summary
    names them (rounds completed, hearts left), while outcomes.csv keeps the column names."""
    import re

    r = cli("compare", "foury", "--a", "hero=kael", "--b", "hero=elydion", "--games", "200", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("outcome "))
    rows = [re.split(r"\s{2,}", line)[0] for line in lines[at + 1:at + 7]]
    assert rows == ["win rate", "rounds completed", "hearts left", "turns", "score", "kills"]
    assert lines[at + 7].startswith("win rate of each: ")
    run = cli("run", "foury", "--hero", "kael", "--games", "200").stdout.splitlines()
    assert all(any(line.startswith(f"{name} ") for line in run) for name in rows)
    assert pd.read_csv(tmp_path / "outcomes.csv")["outcome"].tolist() == ["win rate", "rounds_completed",
                                                                          "hearts_left", "turns", "score", "kills"]


ROUND_ORDER = ("is not an order of sectors: 0 (no fixed order: the nearest first) or the sectors played first as "
               "digits 1..4 (A..D), each at most once (e.g. 1234, 2134)")


@pytest.mark.parametrize("value", ["5678", "1.5", "1123", "1203", "12345"])
def test_foury_round_order_must_name_sectors(value):
    """The kernel reads round_order's digits as sectors (1..4 = A..D): 5678 named none (played as 0) and 1.5 was
    played as 1, in silence."""
    r = cli("run", "foury", "--games", "10", "--param", f"round_order={value}")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == f"foury-sim: error: --param: policy parameter round_order={value} {ROUND_ORDER}\n"


def test_foury_round_order_is_checked_by_replay_and_in_an_experiment_file_at_its_line(tmp_path):
    r = cli("replay", "foury", "--policy", "kraken", "--param", "round_order=9")
    assert (r.returncode, r.stderr) == (2, f"foury-sim: error: --param: policy parameter round_order=9 {ROUND_ORDER}\n")
    exp = tmp_path / "exp.toml"
    exp.write_text('name = "order"\ngame = "foury"\ngames = 20\n[sweep]\n"param.round_order" = [1234, 5678]\n')
    r = cli("sweep", str(exp), "--out", str(tmp_path / "r"))
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"foury-sim: error: {exp}:5") and f"round_order=5678 {ROUND_ORDER}" in r.stderr


@pytest.mark.parametrize("policy, value", [("greedy", "0"), ("greedy", "2134"), ("kraken", "21"), ("cautious", "4")])
def test_foury_round_orders_that_name_sectors_are_played(policy, value):
    r = cli("run", "foury", "--games", "10", "--policy", policy, "--param", f"round_order={value}")
    assert r.returncode == 0, r.stderr


#: BAD's kinds of refusal through the real entry point (a new interpreter): a value of ours (InputError), a
#: usage error of click's (an unknown option, a number it cannot parse), an unknown game, a bad file.
REAL_BAD = [b for b in BAD if b[0] in (["run", "foury", "--hero", "nobody"], ["run", "foury", "--bogus"],
                                       ["run", "foury", "--games", "1e12"], ["run", "nogame"],
                                       ["run", "foury", "--map", "nowhere.map"])]


@pytest.mark.parametrize("args,where,what", REAL_BAD)
def test_the_real_entry_point_refuses_bad_input_in_one_line_with_exit_2(args, where, what):
    assert len(REAL_BAD) == 5
    r = process_cli(*args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert where in lines[0] and what in lines[0]
    assert "Traceback" not in r.stderr


def test_the_real_entry_point_runs_the_exit_handlers_and_prints_everything_before_it_ends():
    """``cli.entry`` ends the process without the interpreter's teardown (``os._exit``), after the exit handlers
    (a Dask cluster's shutdown is one) and with both streams flushed: the JSON is whole, the exit code kept."""
    r = real_entry("run", "delve", "--games", "300", "--format", "json",
                   at_exit="print('exit handler ran', file=sys.stderr)", cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["games"] == 300 and "exit handler ran" in r.stderr
    r = real_entry("run", "delve", "--games", "0", at_exit="print('exit handler ran', file=sys.stderr)", cwd=ROOT,
                   timeout=900)
    assert r.returncode == 2 and "--games" in r.stderr and "exit handler ran" in r.stderr


def test_malformed_rules_file_points_at_line_and_column(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[round]\nmonster_bonus = [0, 1,\n")
    r = cli("run", "foury", "--rules", str(bad))
    assert r.returncode == 2 and f"{bad}:" in r.stderr and "malformed TOML" in r.stderr


def test_impossible_value_in_rules_file_points_at_its_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[heroes.kael]\nstart = { hearts = 6, shield = 2, clover = 1, weapon = 2, shovel = 1 }\n"
                   "cap = { hearts = 5, shield = 4, clover = 3, weapon = 4, shovel = 2 }\n")
    r = cli("run", "foury", "--rules", str(bad))
    assert r.returncode == 2 and f"{bad}:3" in r.stderr and "below the starting value" in r.stderr


def test_malformed_map_points_at_line_and_column(tmp_path):
    bad = tmp_path / "bad.map"
    bad.write_text("name: bad\n\n+---+\n|AW.|\n+---+\n")
    r = cli("run", "foury", "--map", str(bad))
    assert r.returncode == 2 and f"{bad}:4:3" in r.stderr


def test_text_summary_prints_game_specific_tables():
    """Tables a game adds to its summary (Delve's rank_share, mean_level) reach the printed summary."""
    from foury_sim.cli import format_summary

    s = {"games": 100, "hero": "none", "policy": "risk", "seed": 1, "elapsed_s": 0.1, "games_per_s": 1000,
         "win": {"rate": 0.5, "lo": 0.4, "hi": 0.6, "n": 100, "conf": 0.95},
         "rank_share": {0: 0.25, 1: 0.75}, "mean_level": {"delve1_level": 4.5}}
    text = format_summary(s, "Delve")
    assert "rank share          0: 25.0 %, 1: 75.0 %" in text
    assert "mean level          delve1_level: 4.5" in text
    assert text.count("win rate") == 1  # rate tables are not printed twice


def test_odds_accepts_every_seed_run_accepts():
    r = cli("odds", "foury", "--format", "json", "--trials", "200", "--seed", str(2**62))
    assert r.returncode == 0, r.stderr
    assert all(0 <= row["measured_win"] <= 1 for row in json.loads(r.stdout)["rows"])


@pytest.mark.parametrize("args", [[], ["map"], ["baseline"]])
def test_no_command_prints_the_help_once_and_exits_0(args):
    r = process_cli(*args)  # the help as a new interpreter renders it
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.count("Usage:") == 1 and "NoArgsIsHelpError" not in r.stdout


def _run_out_with_disk_full(tmp_path, monkeypatch, capsys, full_at):
    """``run foury --games 50 --format json --out DIR`` with the disk full for the files ``full_at(path)`` names
    (through the real atomic writer, ``files._guarded``): (exit code, stdout, stderr)."""
    import errno

    from foury_sim import cli as cli_module
    from foury_sim import files

    real = files._guarded

    def guarded(path, write):
        if full_at(Path(path)):
            return real(path, lambda tmp: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left on device")))
        return real(path, write)

    monkeypatch.setattr(files, "_guarded", guarded)
    monkeypatch.setattr(sys, "argv", ["foury-sim", "run", "foury", "--games", "50", "--format", "json",
                                      "--out", str(tmp_path / "run")])
    with pytest.raises(SystemExit) as e:
        cli_module.main()
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def test_a_failed_write_still_prints_the_summary(tmp_path, monkeypatch, capsys):
    """Disk full while writing --out after the games (summary.json): the summary is printed, then one line naming
    the file, exit 2."""
    code, out, err = _run_out_with_disk_full(tmp_path, monkeypatch, capsys, lambda p: p.name == "summary.json")
    assert code == 2
    assert json.loads(out)["games"] == 50
    assert err.strip() == (f"foury-sim: error: {tmp_path / 'run' / 'summary.json'}: cannot write results file: "
                           "No space left on device; the result above was not saved")


def test_a_failed_part_write_stops_the_run_in_one_line(tmp_path, monkeypatch, capsys):
    """Disk full while writing a part of the per-game table as the games are played: one line naming the part,
    exit 2, no traceback (the parts already written are kept for the same command to go on from)."""
    code, out, err = _run_out_with_disk_full(tmp_path, monkeypatch, capsys, lambda p: p.suffix == ".parquet")
    assert code == 2 and out == ""
    part = tmp_path / "run" / "games.parquet" / ("part-" + "0" * 19 + ".parquet")
    assert err.strip() == f"foury-sim: error: {part}: cannot write results file: No space left on device"


#: A bad value of every option of every verb (the meta-test below fails when a verb gains an option that has
#: no entry here). Verbs' experiment/results arguments are given valid; flags (on/off) take no value.
BAD_VALUE = {
    "run": {"--hero": "", "--policy": "", "--param": "bravery=2", "--games": "0", "--seed": "-1",
            "--map": "nowhere.map", "--rules": "nowhere.toml", "--set": "no_such_key=3", "--threads": "0",
            "--format": "x", "--out": "README.md", "--conf": "1.5", "--cluster": "local:0"},
    "replay": {"--seed": str(2**63), "--game": "-1", "--hero": "", "--policy": "", "--param": "bravery=2",
               "--map": "nowhere.map", "--rules": "nowhere.toml", "--set": "no_such_key=3"},
    "odds": {"--format": "x", "--trials": "0", "--rules": "nowhere.toml", "--set": "no_such_key=3", "--seed": "-1",
             "--conf": "1.5"},
    "compare": {"--a": "nokey", "--b": "nokey", "--fixed": "nokey", "--games": "0", "--seed": "-1",
                "--threads": "0", "--format": "x", "--out": "README.md", "--conf": "nan", "--cluster": "local:0"},
    "assumptions": {"--format": "x", "--map": "nowhere.map", "--rules": "nowhere.toml", "--set": "no_such_key=3"},
    "columns": {},
    "games": {},
    "report": {},
    "sweep": {"--threads": "0", "--precision": "-1", "--max-games": "5", "--batch": "0", "--games": "0",
              "--heroes": "nobody", "--policies": "nope", "--cluster": "local:0"},
    "robust": {"--games": "1", "--points": "-1", "--threads": "0"},
    "map check": {"--game": "nogame", "--rules": "nowhere.toml", "--set": "no_such_key=3"},
    "map render": {"--out": "x.txt", "--game": "nogame"},
    "baseline save": {"--out": "README.md", "--threads": "0"},
    "check": {"--baselines": "nowhere", "--format": "x", "--threads": "0"},
    "tune": {"--param": "hero", "--target": "win", "--tolerance": "-1", "--fixed": "nokey", "--range": "4,0",
             "--monotone": "up", "--family": "stretch",
             "--seed": "-1", "--conf": "1.5", "--max-games": "5", "--first-games": "1", "--points": "1",
             "--threads": "0", "--format": "x", "--out": "README.md", "--cluster": "local:0"},
    "ladder": {"--hero": "nobody", "--rungs": "nope", "--tune": "threshold", "--games": "0", "--seed": "-1",
               "--train-seed": "-1", "--train-games": "0", "--popsize": "1", "--generations": "0",
               "--weak-margin": "2", "--hard-gap": "-1", "--conf": "1.5", "--tuned": "nowhere.toml",
               "--out": "README.md", "--threads": "0"},
}
#: Options whose checks belong to another part of the code (the study's own --out rules).
NOT_HERE = {("sweep", "--out"), ("robust", "--out")}
#: Arguments each verb is given so that only the option under test is wrong.
VALID_ARGS = {"run": ["foury"], "replay": ["foury"], "odds": ["foury"], "compare": ["foury", "--a", "hero=kael"],
              "assumptions": ["foury"], "columns": ["foury"], "games": [], "report": ["results"],
              "sweep": ["experiments/hero_difficulty.toml"], "robust": ["experiments/robust_hero_ranking.toml"],
              "map check": ["base"], "map render": ["base"],
              "baseline save": ["experiments/baselines/delve.toml"], "check": ["delve"],
              "tune": ["foury", "--param", "enemies.orc.base", "--target", "win=0.3", "--tolerance", "0.02",
                       "--range", "0,4"],
              "ladder": ["delve"]}


def _verbs():
    import typer.main

    from foury_sim.cli import app

    group = typer.main.get_command(app)
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):
            for sub, c in cmd.commands.items():
                yield f"{name} {sub}", c
        else:
            yield name, cmd


def test_every_option_of_every_verb_has_a_bad_value_case():
    missing = []
    for verb, cmd in _verbs():
        for p in cmd.params:
            if p.param_type_name != "option" or p.is_flag or p.name == "help":
                continue
            flag = max(p.opts, key=len)
            if (verb, flag) not in NOT_HERE and flag not in BAD_VALUE.get(verb, {"?": 0}):
                missing.append(f"{verb} {flag}")
    assert missing == []


CASES = [(verb, opt, v) for verb, opts in BAD_VALUE.items() for opt, v in opts.items()]


@pytest.mark.parametrize("verb,option,value", CASES, ids=[f"{v}{o}" for v, o, _ in CASES])
def test_each_bad_option_is_one_line_naming_it(verb, option, value, monkeypatch, capsys):
    from foury_sim import cli as cli_module

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", ["foury-sim", *verb.split(), *VALID_ARGS[verb], option, value])
    with pytest.raises(SystemExit) as e:
        cli_module.main()
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert e.value.code == 2 and len(lines) == 1, out.err
    named = {"--set": "no_such_key", "--map": "nowhere.map", "--rules": "nowhere.toml", "--game": "nogame"}
    assert option in lines[0] or named.get(option, option) in lines[0], lines[0]
    assert "Traceback" not in out.err


def test_a_failed_picture_write_is_one_line_and_claims_nothing(tmp_path, monkeypatch, capsys):
    import errno

    from foury_sim import cli as cli_module
    from foury_sim import files

    def full(path, data):
        raise OSError(errno.EFBIG, "File too large")

    monkeypatch.setattr(files, "atomic_write", full)
    out = tmp_path / "m.png"
    monkeypatch.setattr(sys, "argv", ["foury-sim", "map", "render", "base", "-o", str(out)])
    with pytest.raises(SystemExit) as e:
        cli_module.main()
    cap = capsys.readouterr()
    assert e.value.code == 2 and cap.out == ""
    assert cap.err.strip() == f"foury-sim: error: {out}: could not be written (File too large)"


QUICK = """name = "quick_t"
game = "foury"
seed = 3
games = 300

[fixed]
policy = "greedy"

[sweep]
hero = ["free", "kael", "melyra"]
"""


def test_sweep_quick_look_overrides_the_file_and_never_mixes_with_the_full_study(tmp_path):
    exp = tmp_path / "q.toml"
    exp.write_text(QUICK)
    out = tmp_path / "r"
    full = cli("sweep", str(exp), "--out", str(out), "--no-progress", "--no-report")
    assert full.returncode == 0, full.stderr
    manifest = (out / "quick_t" / "manifest.json").read_text()
    r = cli("sweep", str(exp), "--out", str(out), "--games", "200", "--heroes", "kael, melyra", "--policies",
            "cautious", "--no-progress", "--no-report")
    assert r.returncode == 0, r.stderr
    folder = out / "quick_t-quick-games200-heroes-kael+melyra-policies-cautious"
    m = json.loads((folder / "manifest.json").read_text())
    assert m["overrides"] == {"games": 200, "hero": ["kael", "melyra"], "policy": ["cautious"]}
    assert m["games"] == 200 and m["fixed"] == {"policy": "cautious"} and m["swept"] == ["hero"]
    assert m["experiment_text"].endswith("# command line (quick look): --games 200 --heroes kael,melyra "
                                         "--policies cautious\n")
    cells = pd.read_csv(folder / "cells.csv")
    assert list(cells["hero"]) == ["kael", "melyra"] and list(cells["games"]) == [200, 200]
    assert (out / "quick_t" / "manifest.json").read_text() == manifest  # the full study is untouched
    assert pd.read_csv(out / "quick_t" / "cells.csv")["games"].tolist() == [300, 300, 300]
    assert r.stdout.splitlines()[0] == f"2 cells -> {folder}"
    for _, c in cells.iterrows():  # the end table: one row per cell, grid order, rate and interval
        row = next(line for line in r.stdout.splitlines() if f"hero={c['hero']} " in line)
        assert f"{100 * c['win_rate']:.2f} %" in row and f"[{100 * c['win_lo']:.2f}, {100 * c['win_hi']:.2f}] %" in row
    assert "95 % interval" in r.stdout


@pytest.mark.parametrize("verb", ["sweep", "robust", "ladder"])
def test_a_study_prints_the_command_that_reproduces_it(tmp_path, verb):
    """sweep, robust and ladder print how their results were made, as run and compare do: the command their folder
    records (reproduce:), then the version and commit (made with:), below the line naming the folder."""
    from foury_sim.provenance import git_commit, made_with, version

    made = f"made with: {made_with({'version': version(), 'git_commit': git_commit()})}"
    if verb == "sweep":
        exp = tmp_path / "q.toml"
        exp.write_text(QUICK)
        r = cli("sweep", str(exp), "--out", str(tmp_path), "--games", "100", "--no-progress", "--no-report")
        head = [f"3 cells -> {tmp_path / 'quick_t-quick-games100'}", f"reproduce: foury-sim sweep {exp} --games 100",
                made]
    elif verb == "robust":
        exp = ROOT / "tests" / "data" / "robust" / "tiny.toml"
        r = cli("robust", str(exp), "--out", str(tmp_path), "--games", "20", "--points", "2", "--no-progress")
        folder = tmp_path / "tiny-quick-games20-points2"
        head = [f"-> {folder}  report: {folder / 'report.md'}",
                f"reproduce: foury-sim robust {exp} --games 20 --points 2", made]
    else:
        r = cli("ladder", "delve", "--hero", "knight", "--rungs", "random,threshold", "--games", "100", "--out",
                str(tmp_path), "--no-progress")
        folder = tmp_path / "ladder-delve-knight-random+threshold-games100"
        head = [f"-> {folder} (ladder.csv, summary.json, ladder.png, README.md)",
                f"reproduce: foury-sim ladder delve --out {tmp_path} --hero knight --rungs random,threshold "
                "--games 100",
                made]
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    at = lines.index(head[0])
    assert lines[at:at + 3] == head


def test_sweep_quick_look_turns_a_fixed_setting_given_several_values_into_an_axis(tmp_path):
    exp = tmp_path / "q.toml"
    exp.write_text(QUICK)
    r = cli("sweep", str(exp), "--out", str(tmp_path), "--games", "100", "--heroes", "kael", "--policies",
            "greedy,cautious")  # stderr is no terminal: no bar, but the lines about the report
    assert r.returncode == 0, r.stderr
    folder = tmp_path / "quick_t-quick-games100-heroes-kael-policies-greedy+cautious"
    cells = pd.read_csv(folder / "cells.csv")
    assert list(cells["label"]) == ["hero=kael, policy=greedy", "hero=kael, policy=cautious"]
    # after the bar it says what it is doing (stderr), and the report is there
    assert f"foury-sim: building the report (figures, report.md, report.html) in {folder} ..." in r.stderr
    n_fig = len(list((folder / "figures").glob("*.png")))
    assert f"foury-sim: report built: {n_fig} figures, report.md and report.html (" in r.stderr
    assert r.stdout.splitlines()[-1] == f"report: {folder / 'report.html'}  summary: {folder / 'report.md'}"


QUICK_REFUSED = [
    ('game = "foury"\ngames = 100\n[sweep]\npolicy = ["greedy", "cautious"]\n', ["--heroes", "kael"], "--heroes",
     "the experiment has no hero setting ([sweep] or [fixed])"),
    ('game = "foury"\ngames = 100\n[fixed]\nhero = "kael"\n', ["--policies", "greedy"], "--policies",
     "the experiment has no policy setting"),
    ('game = "foury"\ngames = 100\nmode = "zip"\n[sweep]\nhero = ["kael", "melyra"]\npolicy = ["greedy", "cautious"]\n',
     ["--heroes", "kael"], "--heroes", "mode = 'zip'"),
    ('game = "foury"\ngames = 100\n[sweep]\nhero = ["kael", "melyra"]\n', ["--heroes", "kael,,melyra"], "--heroes",
     "separated by commas"),
    ('game = "foury"\ngames = 100\n[sweep]\nhero = ["kael", "melyra"]\n', ["--games", "100", "--precision", "0.1"],
     "--games", "give one"),
]


@pytest.mark.parametrize("text,args,where,what", QUICK_REFUSED, ids=["no-hero", "no-policy", "zip", "empty", "prec"])
def test_sweep_quick_look_refused_where_it_does_not_apply(tmp_path, text, args, where, what):
    exp = tmp_path / "e.toml"
    exp.write_text(text)
    r = cli("sweep", str(exp), "--out", str(tmp_path / "r"), *args, "--no-progress", "--no-report")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"foury-sim: error: {where}: ") and what in lines[0], r.stderr
    assert not (tmp_path / "r").exists()


def test_the_end_of_sweep_table_shows_at_most_twenty_rows_then_says_how_many_more(tmp_path):
    import io

    from rich.console import Console

    from foury_sim.cli import cells_table

    csv = tmp_path / "cells.csv"
    pd.DataFrame({"cell": range(25), "label": [f"x={i}" for i in range(25)], "games": 1000,
                  "win_rate": [i / 100 for i in range(25)], "win_lo": [i / 100 - 0.01 for i in range(25)],
                  "win_hi": [i / 100 + 0.01 for i in range(25)]}).to_csv(csv, index=False)
    buf = io.StringIO()
    Console(file=buf, width=200, no_color=True).print(cells_table(csv, conf=0.9))
    lines = buf.getvalue().splitlines()
    rows = [line for line in lines if "x=" in line]
    assert [line.split()[1] for line in rows] == [f"x={i}" for i in range(20)]  # grid order, 20 rows
    assert "24.00 %" not in buf.getvalue() and "19.00 %" in buf.getvalue() and "90 % interval" in lines[0]
    assert lines[-1].strip() == f"... 5 more in {csv}"
    assert rows[3].split()[2:] == ["1,000", "3.00", "%", "[2.00,", "4.00]", "%"]


def test_the_end_of_robust_table_lists_each_whole_conclusion(tmp_path):
    import io

    from rich.console import Console

    from foury_sim.cli import claims_table

    csv = tmp_path / "robustness.csv"
    pd.DataFrame({"claim": ["ranking", "kael > free", "free wins >= 15 %"], "whole": [True, False, True],
                  "share_holds": [0.734, 0.9, 1.0], "share_holds_clearly": [0.5, 0.8, 0.96],
                  "holds_at_defaults": [True, True, False]}).to_csv(csv, index=False)
    buf = io.StringIO()
    Console(file=buf, width=200, no_color=True).print(claims_table(csv))
    lines = buf.getvalue().splitlines()
    assert "conclusion" in lines[0] and "holds at (joint points)" in lines[0] and "at the defaults" in lines[0]
    rows = [line.split() for line in lines[2:] if line.strip()]
    assert rows == [["ranking", "73", "%", "50", "%", "yes"], ["free", "wins", ">=", "15", "%", "100", "%", "96", "%",
                                                                 "no"]]


def test_the_end_of_robust_table_gives_each_share_its_interval_and_says_the_level(tmp_path):
    """The table gave the share of the joint points without its interval and "holds clearly" without the level
    of the intervals that decide it."""
    import io

    from rich.console import Console

    from foury_sim.cli import claims_table

    csv = tmp_path / "robustness.csv"
    pd.DataFrame({"claim": ["ranking"], "whole": [True], "share_holds": [0.75], "share_lo": [0.4812],
                  "share_hi": [0.9073], "share_holds_clearly": [0.5], "holds_at_defaults": [True]}).to_csv(csv,
                                                                                                      index=False)
    buf = io.StringIO()
    Console(file=buf, width=200, no_color=True).print(claims_table(csv, 0.9))
    lines = buf.getvalue().splitlines()
    assert "holds at (joint points), 90 % interval" in lines[0] and "holds clearly at (90 % intervals)" in lines[0]
    assert [line.split() for line in lines[2:] if line.strip()] == [["ranking", "75", "%", "[48,", "91]", "50", "%",
                                                                     "yes"]]


def _run_delve_into(out: Path, monkeypatch, capsys) -> tuple[int, str]:
    """``foury-sim run delve --games 50 --out OUT`` through the CLI's entry in this process, expected to stop
    (``SystemExit``): its exit code and stderr."""
    from foury_sim import cli as cli_module

    monkeypatch.setattr(sys, "argv", ["foury-sim", "run", "delve", "--games", "50", "--out", str(out)])
    with pytest.raises(SystemExit) as e:
        cli_module.main()
    return e.value.code, capsys.readouterr().err


def test_ctrl_c_while_the_tables_are_written_says_the_parts_are_kept(tmp_path, monkeypatch, capsys):
    """A Ctrl-C (or SIGTERM) after the last game, while the CSV and the summary are written, said "nothing was
    kept" though every part was on disk: it says the parts are kept and the same command writes the rest."""
    from foury_sim import cli as cli_module
    from foury_sim import files

    real = files._guarded

    def guarded(path, write):
        if Path(path).name == "games.csv":
            raise KeyboardInterrupt
        return real(path, write)

    monkeypatch.setattr(files, "_guarded", guarded)
    out = tmp_path / "run"
    code, err = _run_delve_into(out, monkeypatch, capsys)
    assert code == 130
    assert err.strip() == (f"foury-sim: interrupted: every game was played and its parts kept in "
                           f"{out / 'games.parquet'}; the same command writes the tables and the summary from them: "
                           f"foury-sim run delve --games 50 --out {out}")
    assert not (out / ".lock").exists() and not (out / "summary.json").exists()
    monkeypatch.setattr(files, "_guarded", real)
    cli_module.main()  # (a command that succeeds returns)
    assert (out / "games.csv").exists() and "resumed_chunks" in (out / "summary.json").read_text()


def test_a_ctrl_c_just_after_a_parts_partial_is_renamed_counts_that_part_as_kept(tmp_path, monkeypatch, capsys):
    """A chunk is kept once its partial (``_part-START.pkl``) is renamed into place; a Ctrl-C (or SIGTERM) landing
    after that rename but before the run counted the chunk said "nothing was kept; re-run". The kept parts are
    counted in the folder (``PartWriter.kept``): the message names them, and the same command goes on from them."""
    from foury_sim import cli as cli_module
    from foury_sim import files

    real = files.atomic_write

    def atomic_write(path, data, *a, **k):
        out = real(path, data, *a, **k)
        if Path(path).name.startswith("_part-"):
            raise KeyboardInterrupt  # (after the rename: the part and its partial are on disk)
        return out

    monkeypatch.setattr(files, "atomic_write", atomic_write)
    out = tmp_path / "run"
    code, err = _run_delve_into(out, monkeypatch, capsys)
    assert code == 130
    assert err.strip() == (f"foury-sim: interrupted: 1 of 1 parts kept in {out / 'games.parquet'}; the same "
                           f"command goes on from them: foury-sim run delve --games 50 --out {out}")
    monkeypatch.setattr(files, "atomic_write", real)
    cli_module.main()
    assert '"resumed_chunks": 1' in (out / "summary.json").read_text()


@pytest.mark.parametrize("value", ["0", "abc", "-2"])
def test_a_bad_numba_num_threads_is_one_line(value):
    """numba stopped a command at ``NUMBA_NUM_THREADS=0`` with a traceback (and printed a warning with a traceback
    for a word): one line naming the variable, exit 2, before numba is imported."""
    r = subprocess.run([sys.executable, "-m", "foury_sim", "run", "delve", "--games", "50", "--format", "json"],
                       capture_output=True, text=True, timeout=600, env={**os.environ, "NUMBA_NUM_THREADS": value})
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == (f"foury-sim: error: NUMBA_NUM_THREADS: must be a whole number of threads from 1, not "
                        f"{value!r}\n")


@pytest.mark.parametrize("name", ["FOURY_SIM_SHIPPED_IR", "FOURY_SIM_SHIPPED_CODE", "FOURY_SIM_FULL_LINK",
                                  "FOURY_SIM_SLOW_PASSES", "FOURY_SIM_TYPER_COERCION"])
@pytest.mark.parametrize("value", ["2", "yes", " 1"])
def test_a_shipped_switch_takes_1_or_0_only(monkeypatch, name, value):
    """``FOURY_SIM_SHIPPED_IR=2`` (any value but "", 0 and 1) was read as 0 in silence (``config.SHIPPED_IR``): the
    engines compiled from source, minutes of a first run nobody asked for; ``FOURY_SIM_FULL_LINK=no`` and the other
    switches of a compile trade turned numba's way on. One line naming the variable, exit 2."""
    monkeypatch.setenv(name, value)
    r = cli("games")
    assert (r.returncode, r.stdout) == (2, "")
    said = "1 (the default) or 0" if "SHIPPED" in name else "0 (the default) or 1"
    assert r.stderr == f"foury-sim: error: {name}: must be {said}, not {value!r}\n"
    for fine in ("", "0", "1"):
        monkeypatch.setenv(name, fine)
        assert cli("games").returncode == 0


def test_an_interrupted_sweep_says_how_to_go_on_with_its_cells():
    """The command a Ctrl-C of a sweep prints resumes it: without --resume a sweep starts afresh (it played every
    cell again after a Ctrl-C in its report step)."""
    from foury_sim.cli import interrupted_message

    said = interrupted_message(["sweep", "experiments/hero_difficulty.toml", "--games", "2000"])
    assert said == ("the cells written before the interruption are kept; go on with: foury-sim sweep "
                    "experiments/hero_difficulty.toml --games 2000 --resume")
    assert interrupted_message(["sweep", "e.toml", "--resume"]).endswith("go on with: foury-sim sweep e.toml --resume")
    assert interrupted_message(["run", "delve"]) == "nothing was kept; re-run the same command: foury-sim run delve"
    # a robust study keeps nothing before its last point (it said its files were kept, before its own handler ran);
    # a ladder's --resume is not given twice
    assert interrupted_message(["robust", "e.toml"]) == ("nothing was kept; re-run the same command: "
                                                          "foury-sim robust e.toml")
    assert interrupted_message(["ladder", "delve", "--resume"]).endswith("go on with: foury-sim ladder delve --resume")


def test_a_path_that_is_no_file_says_what_it_is(tmp_path):
    """Every path that could not be read as a file was said not to exist: a folder, a device, a link loop, and an
    --out under a file (its "folder" exists, as a file)."""
    from foury_sim.inputs import not_a_file

    (tmp_path / "pol.py").mkdir()
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "afile").write_text("x")
    assert not_a_file(tmp_path / "afile") == "" and not_a_file(tmp_path / "nothing") == "does not exist"
    cases = [
        (["run", "foury", "--policy", f"{tmp_path / 'pol.py'}:p"],
         f"--policy: policy file '{tmp_path / 'pol.py'}' is a folder, not a file"),
        (["sweep", "/dev/null"], "EXPERIMENT: experiment file '/dev/null' is not a regular file (a device or a pipe?)"),
        (["run", "foury", "--rules", str(tmp_path / "loop1")],
         f"--rules: {tmp_path / 'loop1'} is a link to nothing (its target does not exist, or the links loop)"),
        (["run", "foury", "--out", str(tmp_path / "afile" / "sub")],
         f"--out: {tmp_path / 'afile'} is a file, not a folder"),
    ]
    for args, said in cases:
        r = cli(*args, "--games", "5") if args[0] == "run" else cli(*args)
        assert r.returncode == 2 and r.stderr.strip() == f"foury-sim: error: {said}", r.stderr


def test_a_negative_keep_rows_mb_is_refused_before_any_game(monkeypatch):
    """``FOURY_SIM_KEEP_ROWS_MB=-1`` was taken as 0, and only by a run that needed rows."""
    from foury_sim.errors import InputError
    from foury_sim.runner import run

    monkeypatch.setenv("FOURY_SIM_KEEP_ROWS_MB", "-1")
    with pytest.raises(InputError, match="must be a number of megabytes from 0, not '-1'") as e:
        run("delve", games=10, progress=False)
    assert e.value.where == "FOURY_SIM_KEEP_ROWS_MB"


@pytest.mark.parametrize("args, where, what", [
    (["sweep", ""], "EXPERIMENT", "is empty: an empty path names no file or folder"),
    (["robust", ""], "EXPERIMENT", "is empty: an empty path names no file or folder"),
    (["run", "foury", "--games", "5", "--rules", ""], "--rules", "is empty: an empty path names no file or folder"),
    (["replay", "foury", "--rules", " "], "--rules", "is empty: an empty path names no file or folder"),
    (["run", "foury", "--games", "5", "--map", ""], "--map",
     "is empty: give a map file or a shipped map's name (leave --map out for the base map)"),
    (["map", "check", ""], "MAP", "is empty: give a map file or a shipped map's name"),
    (["map", "render", ""], "MAP", "is empty: give a map file or a shipped map's name"),
    (["baseline", "save", ""], "SPEC", "is empty: give a baseline spec (TOML) or the name of one in "
     "experiments/baselines/"),
])
def test_an_empty_path_is_refused_where_it_is_given(args, where, what):
    """A path given as "" was read as the current folder: 'EXPERIMENT: .: is a folder, not an experiment file'."""
    r = cli(*args)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == f"foury-sim: error: {where}: {what}\n"


def test_a_run_out_folder_that_cannot_be_made_is_one_line(tmp_path, monkeypatch):
    """``run --out`` in a place where no folder can be made, though it looks writable (``/proc`` to root), ended
    in a traceback (exit 1) from the folder's ``mkdir``: one line naming the folder, exit 2."""
    from foury_sim import cli as cli_module
    from foury_sim import inputs

    def let_through(path, where="--out"):  # (in-process cli only)
        return Path(path)

    monkeypatch.setattr(inputs, "check_out_dir", let_through)
    monkeypatch.setattr(cli_module, "check_out_dir", let_through)  # (the name cli bound when first imported)
    target = tmp_path / "file" / "folder"
    (tmp_path / "file").write_text("a file, not a folder")
    r = cli("run", "delve", "--games", "10", "--out", str(target))
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith(f"foury-sim: error: {target}: cannot create the folder: ") and r.stderr.count("\n") == 1
