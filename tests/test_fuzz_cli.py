"""Seeded fuzz of the command line: a random verb with random values for its options (huge, negative, zero,
not numbers, empty, seeds beyond 2**63, nan/inf confidence levels, empty or unknown names, output paths that
are files or under missing folders, unknown formats, extra words). Each case must exit 0 with sane output
(JSON parses, rates within [0, 1]) or exit 2 with exactly one line on stderr naming the place; never a
traceback, never a hang. Cases run in this process through ``cli.main`` (the console script's code), so a
hundred of them take a few seconds once the kernels are cached."""

from __future__ import annotations

import json
import random
import signal
import sys
from pathlib import Path

import pytest

from foury_sim import cli

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261130
N_CASES = 100
CASE_TIMEOUT_S = 60


class Hang(Exception):
    pass


def run_main(args: list[str], capsys) -> tuple[int, str, str]:
    """``foury-sim ARGS`` in this process: (exit code, stdout, stderr)."""
    old_argv = sys.argv
    sys.argv = ["foury-sim", *args]

    def on_alarm(signum, frame):
        raise Hang(f"no answer after {CASE_TIMEOUT_S} s: {args}")

    old_handler = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(CASE_TIMEOUT_S)
    code = 0
    try:
        cli.main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old_handler)
        sys.argv = old_argv
    out = capsys.readouterr()
    return code, out.out, out.err


INTS = ["0", "-1", "-7", "1000000000000", "1e12", "abc", "", str(2**63), str(2**64 + 3), "3.5", "99999999999999999999"]
SEEDS = ["1", "0", str(2**63 - 1), str(2**62), str(2**63), "-1", "abc", "", "1e3"]
CONFS = ["0.9", "nan", "inf", "-inf", "1", "0.4", "abc", "", "0.99"]
NAMES = ["", " ", "nobody", "x" * 300]
FORMATS = ["text", "json", "x", "", "JSON"]


def _paths(tmp: Path) -> list[str]:
    a_file = tmp / "a_file.txt"
    a_file.write_text("x")
    return [str(a_file), str(tmp / "missing" / "deeper" / "out"), str(a_file / "under_a_file"), ""]


#: A third game's cases (issue 14) come from their own stream, so the first two games' cases stay as they were.
TACTICS_CASES = 30


def make_case(rng: random.Random, tmp: Path, only: str | None = None) -> tuple[list[str], list[str]]:
    """(arguments, the places an error line may name); ``only``: every case of this game."""
    verb = rng.choice(["run", "run", "run", "replay", "odds", "compare", "compare", "assumptions", "columns",
                       "map check", "map render", "report", "games", "sweep"])
    game = rng.choice(["foury", "delve"]) if verb not in ("map check", "map render") else "foury"
    game = only or game
    paths = _paths(tmp)
    base: dict[str, str] = {}
    bad: dict[str, list[str]] = {}
    if verb == "run":
        base = {"--games": "20", "--seed": "3", "--format": "json"}
        bad = {"--games": INTS, "--seed": SEEDS, "--hero": NAMES, "--policy": NAMES, "--threads": INTS,
               "--conf": CONFS, "--format": FORMATS, "--out": paths, "--rules": paths, "--param": ["", "x=nan", "1"]}
        if game == "tactics":  # the game's own options: the Dungeon Master's policy and its parameters
            bad |= {"--dm": NAMES + ["ruthless", "thorough"],
                    "--dm-param": ["", "x=1", "spawn_near=2", "focus=nan", "spawn_near=0"]}
    elif verb == "replay":
        base = {"--seed": "2", "--game": "1"}
        bad = {"--seed": SEEDS, "--game": INTS, "--hero": NAMES, "--policy": NAMES, "--rules": paths}
    elif verb == "odds":
        game = only or ("foury" if rng.random() < 0.8 else "delve")
        base = {"--trials": "50", "--format": "json"}
        bad = {"--trials": INTS, "--seed": SEEDS, "--format": FORMATS, "--rules": paths,
               "--hearts": ["0", "-3", "31", "1000000000", "nan", "abc", "", "2", "1e3"]}
        if game == "tactics":
            base |= {"--monster": "skeleton", "--weapon": "sword", "--armor": "chain_mail"}
            bad = {k: v for k, v in bad.items() if k != "--hearts"} | {
                "--monster": NAMES + ["ogre,ghoul"], "--weapon": NAMES + ["bow"], "--armor": NAMES + ["none"]}
    elif verb == "compare":
        base = {"--games": "20", "--seed": "5", "--format": "json",
                "--a": {"foury": "policy=greedy", "delve": "policy=threshold"}.get(game, "policy=thorough"),
                "--b": "policy=random" if game != "tactics" else "policy=rush"}
        bad = {"--games": INTS, "--seed": SEEDS, "--conf": CONFS, "--format": FORMATS, "--out": paths,
               "--threads": INTS}
    elif verb == "assumptions":
        base = {"--format": "json"}
        bad = {"--format": FORMATS, "--rules": paths}
    elif verb == "map render":
        base = {"-o": str(tmp / "m.png")}
        bad = {"-o": [str(tmp / "m.txt"), str(tmp / "nofolder" / "m.png"), str(tmp), "", paths[0]]}
    elif verb == "report":
        bad = {"RESULTS": [paths[0], str(tmp / "nowhere"), ""]}
    elif verb == "sweep":
        bad = {"EXPERIMENT": [str(tmp / "nowhere.toml"), str(tmp)], "--threads": INTS, "--games": INTS,
               "--heroes": NAMES + [",", "kael,,melyra"], "--policies": NAMES}
    args = verb.split()
    if verb not in ("games", "report", "sweep") and not verb.startswith("map"):
        args.append(game)
    if verb.startswith("map"):
        names = ["crypt", "lava", "no_such_map"] if game == "tactics" else ["base", "base", "no_such_map"]
        args.append(rng.choice(names))
        if game != "foury":
            args += ["--game", game]
    opts = dict(base)
    places: list[str] = []
    for opt in rng.sample(sorted(bad), k=min(len(bad), rng.choice([1, 1, 2]))):
        value = rng.choice(bad[opt])
        if opt in ("RESULTS", "EXPERIMENT"):
            args.append(value)
            places += [value, opt, "Missing argument"] if value else [opt, "Missing argument"]
            continue
        opts[opt] = value
        places += [opt, "--out"] if opt == "-o" else [opt]
        if opt in ("--rules", "--out") and value:
            places.append(value)
        if opt == "--policy" and value.strip():
            places.append("unknown policy")
    for opt, value in opts.items():
        args += [opt, value]
    if rng.random() < 0.1:
        extra = rng.choice(["extra", "--bogus", "--hearts=3"])
        args.append(extra)
        places.append(extra)
    if verb.startswith("map"):
        places += ["no_such_map", "--game"]
    if verb in ("report", "sweep"):
        places += ["results", "Missing argument"]
    return args, places


def check_sane(args: list[str], out: str) -> None:
    """Exit 0: JSON output parses, every rate is within [0, 1]."""
    if "json" not in args:
        return
    data = json.loads(out)
    if args[0] == "run":
        w = data["win"]
        assert 0 <= w["lo"] <= w["rate"] <= w["hi"] <= 1, (args, w)
        assert data["games"] == int(args[args.index("--games") + 1])
    elif args[0] == "odds":
        assert data["title"] and data["verdict"]["text"], args
        for row in data["rows"]:
            for k, v in row.items():
                if k.startswith(("p_", "measured_")):
                    assert 0 <= v <= 1, (args, k, v)
    elif args[0] == "compare":
        assert isinstance(data, dict) and data


@pytest.mark.parametrize("only, n_cases, at_least", [(None, N_CASES, (10, 50)), ("tactics", TACTICS_CASES, (4, 12))],
                         ids=["foury_delve", "tactics"])
def test_fuzz_command_line_values(tmp_path, capsys, monkeypatch, only, n_cases, at_least):
    monkeypatch.chdir(tmp_path)  # whatever a case writes stays in the test's folder
    rng = random.Random(SEED if only is None else f"{SEED}-{only}")
    seen = {0: 0, 2: 0}
    for i in range(n_cases):
        case_dir = tmp_path / f"c{i}"
        case_dir.mkdir()
        args, places = make_case(rng, case_dir, only)
        code, out, err = run_main(args, capsys)
        where = f"case {i}: foury-sim {' '.join(args)!r} -> exit {code}\nstdout: {out[-800:]}\nstderr: {err[-800:]}"
        assert "Traceback" not in out + err, where
        assert code in (0, 2), where
        seen[code] += 1
        if code == 2:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("foury-sim: error: "), where
            assert any(p and p in lines[0] for p in places), where
        else:
            check_sane(args, out)
    assert seen[0] >= at_least[0] and seen[2] >= at_least[1], seen  # both outcomes are exercised
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("c")) == []  # nothing beside --out


@pytest.mark.parametrize("args", [[], ["map"]])
def test_no_command_prints_the_help_only(args, capsys):
    code, out, err = run_main(args, capsys)
    assert code == 0 and err == ""
    assert "Usage:" in out and "Commands" in out and "Error" not in out
