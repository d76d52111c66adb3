"""The command line: summaries, JSON, files written, and one clear line (exit 2) for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "foury_sim.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=900)


def test_run_prints_win_rate_with_interval_and_causes():
    r = cli("run", "foury", "--games", "3000", "--seed", "4")
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


def test_odds_json():
    r = cli("odds", "foury", "--format", "json", "--trials", "2000")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    row = next(x for x in rows if x["weapon"] == 0 and x["strength"] == 0)
    assert row["p_win"] == pytest.approx(15 / 36) and abs(row["measured_win"] - 15 / 36) < 0.05


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
    (["run", "foury", "--games", "-5"], "--games", "at least 1"),
    (["run", "foury", "--set", "no_such_key=3"], "no_such_key", "unknown ruleset key"),
    (["run", "foury", "--set", "monster_bonus=x"], "monster_bonus", "whole numbers"),
    (["run", "foury", "--map", "nowhere.map"], "--map", "nowhere.map"),
    (["run", "nogame"], "GAME", "unknown game"),
    (["run", "foury", "--param", "bravery=2"], "--param", "unknown policy parameter"),
    (["run", "foury", "--threads", "0"], "--threads", "between 1"),
    (["run", "foury", "--format", "xml"], "--format", "text or json"),
    (["run", "foury", "--bogus"], "", "No such option"),
]


@pytest.mark.parametrize("args,where,what", BAD)
def test_bad_input_is_one_line_and_exit_2(args, where, what):
    r = cli(*args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert where in lines[0] and what in lines[0]
    assert "Traceback" not in r.stderr


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
    bad.write_text("name: bad\n\n+---+\n|AX.|\n+---+\n")
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
