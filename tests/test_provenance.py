"""Every output says how it was made (issue 12): ``run``'s overrides, version and reproduce command in the
text header, ``--format json`` and ``summary.json``; ``compare``'s fixed settings in its header, JSON and
figure; every printed command (reproduce, replay) pasted back through the command line plays the same games."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foury_sim import __version__, provenance
from foury_sim.cli import app
from foury_sim.rulesfile import _parse_value

ROOT = Path(__file__).resolve().parents[1]
BASE_MAP = ROOT / "foury_sim/games/foury/data/maps/base.map"


def cli(args: list[str]) -> str:
    """Run ``foury-sim ARGS`` in this process; its standard output (exit 0 required)."""
    r = CliRunner().invoke(app, args, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.stdout


def pasted(command: str) -> list[str]:
    """A printed ``foury-sim VERB ...`` command as the shell splits it, without the program name."""
    words = shlex.split(command)
    assert words[0] == "foury-sim"
    return words[1:]


# ------------------------------------------------------------------------------------- the helper itself --
@pytest.mark.parametrize("value", [[0, 1, 3, 4], 2, 1.5, True, False, "per_rolloff", "true", "0,1", "a b",
                                   {"hearts": 6, "shield": 1}, [[1, 2], [3]], ["x", "y"]])
def test_value_text_reads_back_as_the_same_value(value):
    assert _parse_value(provenance.value_text(value)) == value


def test_settings_args_and_describe():
    s = {"hero": "kael", "policy": "cautious", "param.foe_avoid": 2, "round.monster_bonus": [0, 1, 3, 4],
         "rulings.weapon_wear": "per_rolloff"}
    assert provenance.settings_args(s) == ["--hero", "kael", "--policy", "cautious", "--param", "foe_avoid=2",
                                           "--set", "round.monster_bonus=0,1,3,4",
                                           "--set", "rulings.weapon_wear=per_rolloff"]
    assert provenance.describe(s) == ("hero=kael, policy=cautious, param.foe_avoid=2, round.monster_bonus=0,1,3,4, "
                                      "rulings.weapon_wear=per_rolloff")
    assert provenance.describe({}) == "defaults"
    assert provenance.replay_command("foury", 7, 12, {"policy": "my policies/p.py:f"}) == (
        "foury-sim replay foury --seed 7 --game 12 --policy 'my policies/p.py:f'")


def test_cli_settings_turns_a_verbs_options_into_the_same_settings():
    s = provenance.cli_settings(hero="kael", params="foe_avoid=2,flee_hearts=3", sets=["monster_bonus=0,1,3,4"],
                                rules=Path("r.toml"), map="base")
    assert s == {"hero": "kael", "map": "base", "rules": "r.toml", "param.foe_avoid": 2, "param.flee_hearts": 3,
                 "monster_bonus": [0, 1, 3, 4]}
    assert provenance.settings_args(s) == ["--hero", "kael", "--map", "base", "--rules", "r.toml", "--param",
                                           "foe_avoid=2,flee_hearts=3", "--set", "monster_bonus=0,1,3,4"]
    assert provenance.cli_settings() == {}


def test_run_record_of_the_defaults_and_of_overrides(tmp_path):
    rules = tmp_path / "r.toml"
    rules.write_text("[round]\nmonster_bonus = [0, 1, 2, 4]\n")

    class Pol:
        name, param_names, params = "greedy", ("foe_avoid", "flee_hearts"), (1.0, 2.5)

    plain = provenance.run_record("foury", hero="free", policy=Pol, params=None, games=100, seed=3, conf=0.95)
    assert plain["defaults"] is True and plain["overrides"] == {}
    assert plain["command"] == "foury-sim run foury --hero free --policy greedy --games 100 --seed 3"
    assert plain["policy_params"] == {"foe_avoid": 1, "flee_hearts": 2.5}
    assert plain["version"] == __version__
    assert provenance.header_lines(plain)[0] == "overrides: none (shipped defaults)"
    rec = provenance.run_record("foury", hero="kael", policy=Pol, params="foe_avoid=1", games=100, seed=3,
                                conf=0.9, rules=str(rules), sets={"round.monster_bonus": [0, 1, 3, 4]},
                                map="base", options={"hearts": 4}, defaults={"hearts": 5})
    sha = hashlib.sha256(rules.read_bytes()).hexdigest()
    assert rec["defaults"] is False
    assert rec["overrides"] == {"set": {"round.monster_bonus": "0,1,3,4"}, "rules": {"path": str(rules), "sha256": sha},
                                "map": {"name": "base"}, "param": {"foe_avoid": "1"}, "options": {"hearts": 4}}
    assert rec["command"] == (f"foury-sim run foury --hero kael --policy greedy --map base --rules {rules} "
                              "--param foe_avoid=1 --set round.monster_bonus=0,1,3,4 --hearts 4 --games 100 --seed 3 "
                              "--conf 0.9")
    assert provenance.header_lines(rec)[0] == (f"overrides: --set round.monster_bonus=0,1,3,4 --rules {rules} "
                                               f"(sha256 {sha[:12]}) --map base --param foe_avoid=1 --hearts 4")
    assert provenance.run_record("foury", hero="free", policy=Pol, params=None, games=9, seed=1, conf=0.95,
                                 start=5)["command"] is None  # the command line starts at game 0


def test_a_game_option_naming_a_file_is_recorded_with_its_digest(tmp_path):
    """A designer's campaign file (``--campaign my.toml``) is an input like ``--rules``: its sha256 is kept."""
    camp = tmp_path / "my camp.toml"
    camp.write_text('[campaign]\ntitle = "Mine"\n')

    class Pol:
        name, param_names, params = "greedy", (), ()

    rec = provenance.run_record("foury", hero="free", policy=Pol, params=None, games=10, seed=1, conf=0.95,
                                options={"campaign": str(camp), "hearts": 4}, defaults={"campaign": "base"})
    sha = hashlib.sha256(camp.read_bytes()).hexdigest()
    assert rec["overrides"]["option_files"] == {"campaign": {"path": str(camp), "sha256": sha}}
    assert rec["overrides"]["options"] == {"campaign": str(camp), "hearts": 4}
    assert provenance.header_lines(rec)[0] == (f"overrides: --campaign '{camp}' (sha256 {sha[:12]}) --hearts 4")


# ------------------------------------------------------------------------------------------------ run --
def test_run_records_every_override_in_text_json_and_summary_json(tmp_path):
    rules = tmp_path / "my_rules.toml"
    rules.write_text("[kills]\nprize_every = 2\n")
    board = tmp_path / "my.map"
    shutil.copy(BASE_MAP, board)
    args = ["run", "foury", "--games", "40", "--seed", "5", "--hero", "kael", "--policy", "greedy",
            "--set", "monster_bonus=0,1,3,4", "--rules", str(rules), "--map", str(board), "--param", "foe_avoid=2",
            "--no-progress"]
    text = cli(args + ["--out", str(tmp_path / "out")])
    head = text.splitlines()[:5]
    rules_sha = hashlib.sha256(rules.read_bytes()).hexdigest()
    map_sha = hashlib.sha256(board.read_bytes()).hexdigest()
    assert head[2] == (f"overrides: --set round.monster_bonus=0,1,3,4 --rules {rules} (sha256 {rules_sha[:12]}) "
                       f"--map {board} (sha256 {map_sha[:12]}) --param foe_avoid=2")
    assert head[3] == (f"reproduce: foury-sim run foury --hero kael --policy greedy --map {board} --rules {rules} "
                       "--param foe_avoid=2 --set round.monster_bonus=0,1,3,4 --games 40 --seed 5")
    assert head[4].startswith(f"made with: foury-sim {__version__}")
    js = json.loads(cli(args + ["--format", "json"]))
    saved = json.loads((tmp_path / "out" / "summary.json").read_text())
    for rec in (js["provenance"], saved["provenance"]):
        assert rec["overrides"] == {"set": {"round.monster_bonus": "0,1,3,4"},
                                    "rules": {"path": str(rules), "sha256": rules_sha},
                                    "map": {"path": str(board), "sha256": map_sha}, "param": {"foe_avoid": "2"}}
        assert rec["defaults"] is False and rec["hero"] == "kael" and rec["policy"] == "greedy"
        assert rec["policy_params"]["foe_avoid"] == 2 and rec["seed"] == 5 and rec["games"] == 40
        assert rec["version"] == __version__ and rec["command"] == head[3][len("reproduce: "):]
    for key in ("win", "hero", "policy", "seed", "games", "assumptions"):  # the keys read before stay
        assert key in js and key in saved


def test_a_map_a_rules_or_campaign_file_names_is_recorded_with_its_digest(tmp_path):
    """A map file a rules file, a campaign file or a ``--set`` names (``game.map``; Rooms' dungeon file, as
    ``navigation.dungeon``) is read as a ``--map`` file is, but only the rules or campaign file had its sha256 in
    the run's record: an edited map left the record as it was. Its digest is under ``read_files`` (by the key that
    named it) and in the header (a replay's too); a file ``--map`` names is recorded once, as ``--map``'s; a study
    lists it among its input files (``study.input_files``)."""
    from foury_sim.registry import get_game
    from foury_sim.study import CellRunner, input_files

    def sha(p: Path) -> str:
        return hashlib.sha256(p.read_bytes()).hexdigest()

    def record(*args: str) -> dict:
        return json.loads(cli(["run", "foury", "--games", "20", *args, "--format", "json", "--no-progress"]))[
            "provenance"]["overrides"]

    board = tmp_path / "my.map"
    shutil.copy(BASE_MAP, board)
    rules = tmp_path / "r.toml"
    rules.write_text(f'[game]\nmap = "{board}"\n')
    read = {"game.map": {"path": str(board), "sha256": sha(board)}}
    text = cli(["run", "foury", "--games", "20", "--rules", str(rules), "--no-progress"])
    assert text.splitlines()[2] == (f"overrides: --rules {rules} (sha256 {sha(rules)[:12]}) (game.map {board}: "
                                    f"sha256 {sha(board)[:12]})")
    assert record("--rules", str(rules)) == {"rules": {"path": str(rules), "sha256": sha(rules)}, "read_files": read}
    replay = cli(["replay", "foury", "--game", "3", "--rules", str(rules)]).splitlines()
    assert replay[1] == (f"Overrides: --rules {rules} (sha256 {sha(rules)[:12]}) (game.map {board}: sha256 "
                         f"{sha(board)[:12]})")
    assert record("--set", f"game.map={board}")["read_files"] == read
    camp = tmp_path / "camp"
    camp.mkdir()
    shutil.copy(BASE_MAP, camp / "c.map")
    (camp / "c.toml").write_text('[campaign]\ntitle = "Mine"\n\n[game]\nmap = "c.map"\n')
    assert record("--campaign", str(camp / "c.toml"))["read_files"] == {
        "game.map": {"path": str(camp / "c.map"), "sha256": sha(camp / "c.map")}}
    both = record("--rules", str(rules), "--map", str(board))  # the same file: --map's
    assert both["map"] == read["game.map"] and "read_files" not in both
    assert "read_files" not in record("--rules", str(rules), "--map", "base")  # (the rules' map is not read)
    rs = CellRunner(get_game("foury")).resolve({"rules": str(rules)})[0]
    assert input_files([{"rules": str(rules)}], "foury", [rs]) == {str(rules): sha(rules), str(board): sha(board)}
    # a ladder's results folder and a baseline list it among their input files too (a ladder's --resume kept the
    # cells of an edited map: its experiment_id did not read the map its rules file names)
    from foury_sim import baseline, ladder

    lad_file = tmp_path / "lad.toml"
    lad_file.write_text(f'game = "foury"\n[fixed]\nrules = "{rules}"\n[[rung]]\nlabel = "random"\npolicy = "random"\n'
                        '[[rung]]\nlabel = "greedy"\npolicy = "greedy"\n')
    assert ladder.ladder_files(ladder.load_ladder(lad_file)) == {str(rules): sha(rules), str(board): sha(board)}
    run = baseline.Run("r", "foury", 1, 10, {"rules": str(rules)}, ["win"], {"win": 0.02})
    assert baseline._provenance([run])["input_files"] == {str(rules): sha(rules), str(board): sha(board)}
    rooms = get_game("rooms")
    dungeon = tmp_path / "d.txt"
    shutil.copy(ROOT / "foury_sim/games/rooms/data/dungeons/dealt.txt", dungeon)
    (tmp_path / "rooms.toml").write_text(f'[navigation]\ndungeon = "{dungeon}"\n')
    assert rooms.read_files(rooms.load_ruleset(str(tmp_path / "rooms.toml"))) == {"navigation.dungeon": str(dungeon)}
    assert rooms.read_files(rooms.load_ruleset(None)) == {}  # (a shipped dungeon: the version names it)


def test_run_with_the_defaults_says_so_and_the_library_records_it_too():
    from foury_sim.runner import run

    text = cli(["run", "foury", "--games", "30", "--no-progress"])
    assert text.splitlines()[2] == "overrides: none (shipped defaults)"
    res = run("foury", games=30, seed=1, progress=False, conf=0.9)
    assert res.summary["provenance"]["defaults"] is True and res.summary["conf"] == 0.9
    assert res.summary["win"]["conf"] == 0.9
    assert res.summary["provenance"]["command"] == ("foury-sim run foury --hero free --policy greedy --games 30 "
                                                   "--seed 1 --conf 0.9")


def test_the_reproduce_line_of_run_plays_the_same_games(tmp_path):
    text = cli(["run", "foury", "--games", "60", "--seed", "11", "--hero", "melyra", "--set",
                "kills.prize_every=2", "--param", "flee_hearts=1", "--out", str(tmp_path), "--no-progress"])
    cmd = next(line for line in text.splitlines() if line.startswith("reproduce: "))[len("reproduce: "):]
    again = json.loads(cli(pasted(cmd) + ["--format", "json"]))
    first = json.loads((tmp_path / "summary.json").read_text())
    for key in ("win", "games", "hero", "policy", "seed", "death_by_cause", "rounds_completed_dist"):
        assert again[key] == first[key]
    assert again["provenance"]["command"] == cmd


# -------------------------------------------------------------------------------------------- compare --
def _outcome(replay_text: str) -> tuple[int, int]:
    """(won, final score) from a replay's last words."""
    m = re.search(r"^(WON|LOST)\b.*final score (-?\d+)", replay_text, re.M)
    assert m, replay_text[-400:]
    return int(m.group(1) == "WON"), int(m.group(2))


def test_compare_names_its_fixed_settings_and_its_replay_commands_replay_the_flipped_games(tmp_path):
    args = ["compare", "foury", "--a", "policy=greedy", "--b", "policy=cautious", "--fixed", "hero=kael",
            "--fixed", "kills.prize_every=2", "--games", "300", "--seed", "4", "--no-progress"]
    text = cli(args + ["--out", str(tmp_path)])
    lines = text.splitlines()
    assert lines[:3] == ["A: policy=greedy  (played: hero kael, policy greedy)",
                         "B: policy=cautious  (played: hero kael, policy cautious)",
                         "both (--fixed): hero=kael, kills.prize_every=2"]
    assert ("reproduce: foury-sim compare foury --a policy=greedy --b policy=cautious --fixed hero=kael "
            "--fixed kills.prize_every=2 --games 300 --seed 4") in lines
    data = json.loads((tmp_path / "comparison.json").read_text())
    assert data["fixed"] == {"hero": "kael", "kills.prize_every": 2} and data["game"] == "foury"
    assert data["settings_a"] == {"hero": "kael", "kills.prize_every": 2, "policy": "greedy"}
    assert data["provenance"]["version"] == __version__
    assert data["provenance"]["command"] in text
    import pandas as pd

    dfs = {"a": pd.read_parquet(tmp_path / "games_a.parquet"), "b": pd.read_parquet(tmp_path / "games_b.parquet")}
    assert data["replay"], "no flipped game in 300: pick other settings"
    for key, what in (("flipped_win_to_loss", "won under A, lost under B"),
                      ("flipped_loss_to_win", "lost under A, won under B")):
        r = data["replay"].get(key)
        if r is None:
            continue
        g = r["game"]
        assert g == data[key][0]
        i = lines.index(f"replay game {g} ({what}):")
        assert lines[i + 1] == f"  under A: {r['a']}" and lines[i + 2] == f"  under B: {r['b']}"
        assert r["a"] == (f"foury-sim replay foury --seed 4 --game {g} --hero kael --policy greedy "
                          "--set kills.prize_every=2")
        for v in ("a", "b"):
            won, score = _outcome(cli(pasted(r[v])))
            row = dfs[v].loc[dfs[v]["game"] == g].iloc[0]
            assert (won, score) == (int(row["win"]), int(row["score"]))
        assert _outcome(cli(pasted(r["a"])))[0] == (key == "flipped_win_to_loss")
    reproduced = json.loads(cli(pasted(data["provenance"]["command"]) + ["--format", "json"]))
    assert reproduced["win"] == data["win"] and reproduced["replay"] == data["replay"]


def test_the_comparison_figure_says_what_a_and_b_are():
    import pandas as pd

    from foury_sim import figures as F

    rows = pd.DataFrame({"outcome": ["win rate"], "a": [0.3], "b": [0.35], "diff": [0.05], "lo": [0.02],
                         "hi": [0.08], "significant": [True]})
    setup = "A: hero=kael    B: hero=elydion\nboth: policy=cautious;  Dungeon Foury, 1,000 games (seed 1)"
    fig = F.paired_difference(rows, setup=setup)
    assert fig.get_axes()[0].get_title(loc="left") == setup
    long = "A: " + ", ".join(f"round.key_{i}=1" for i in range(12))  # wrapped, not cut at the figure's edge
    shown = F.paired_difference(rows, setup=long).get_axes()[0].get_title(loc="left")
    assert shown.replace("\n", " ") == long and max(len(line) for line in shown.splitlines()) <= 95


def test_compare_figure_setup_names_fixed_settings_games_seed_and_level():
    from foury_sim.study import Comparison, comparison_setup

    c = Comparison({"hero": "kael"}, {"hero": "elydion"}, 1000, 3, {}, None, None, None, 0.9, game="foury",
                   fixed={"policy": "cautious", "round.monster_bonus": [0, 1, 3, 4]})
    assert comparison_setup(c) == ("A: hero=kael    B: hero=elydion\nboth: policy=cautious, "
                                   "round.monster_bonus=0,1,3,4\nDungeon Foury (The Ancient Story), 1,000 games "
                                   "on the same dice (seed 3), 90 % intervals")


def test_policy_text_names_only_the_parameters_given():
    rec = {"policy": "greedy", "policy_params": {"foe_avoid": 2, "flee_hearts": 1}, "overrides": {}}
    assert provenance.policy_text(rec) == "greedy (default parameters)"
    rec["overrides"] = {"param": {"foe_avoid": "2"}}
    assert provenance.policy_text(rec) == "greedy (foe_avoid=2; the others at their defaults)"
    assert provenance.policy_text({"policy": "p.py:f", "policy_params": {}}) == "p.py:f"


def test_every_printed_command_quotes_what_the_shell_would_split():
    assert provenance.command("sweep", "my experiments/x.toml", ["--resume", "--out", "r s"]) == (
        "foury-sim sweep 'my experiments/x.toml' --resume --out 'r s'")
    assert pasted(provenance.command("sweep", "my experiments/x.toml", ["--out", "r s"])) == [
        "sweep", "my experiments/x.toml", "--out", "r s"]


def test_compare_records_the_files_it_read(tmp_path):
    from foury_sim.study import compare

    rules = tmp_path / "r.toml"
    rules.write_text("[kills]\nprize_every = 2\n")
    c = compare("foury", {"hero": "kael"}, {"hero": "elydion"}, fixed={"rules": str(rules)}, games=200, seed=2,
                progress=False)
    d = c.to_dict()
    assert d["provenance"]["files"] == {str(rules): hashlib.sha256(rules.read_bytes()).hexdigest()}
    r = d["replay"]["flipped_win_to_loss"]
    assert r["b"] == f"foury-sim replay foury --seed 2 --game {r['game']} --hero elydion --rules {rules}"


def test_the_files_a_games_own_option_names_are_recorded_by_compare_and_studies(tmp_path):
    """A file a game's own option names (Tactics' ``dm`` policy file, a Foury campaign file) is recorded with its
    sha256 by ``compare`` and the studies (``study.input_files``), as ``run`` records it (``option_files``): they
    recorded rules, maps and policies only, so an edited DM file left a comparison's record unchanged."""
    from foury_sim.study import compare, input_files

    dm = tmp_path / "my dm.py"
    dm.write_text((ROOT / "experiments/policies/tactics_dm.py").read_text())
    c = compare("tactics", {"dm": str(dm)}, {"dm": "by_the_book"}, fixed={"map": "crypt"}, games=40, seed=2,
                progress=False, threads=1)
    assert c.to_dict()["provenance"]["files"] == {str(dm): hashlib.sha256(dm.read_bytes()).hexdigest()}
    camp = tmp_path / "camp.toml"
    camp.write_text("[campaign]\ntitle = 'x'\n")
    sha = hashlib.sha256(camp.read_bytes()).hexdigest()
    assert input_files([{"campaign": str(camp)}], "foury") == {str(camp): sha}
    assert input_files([{"campaign": str(camp)}]) == {}  # (no game: its options are not known)


def test_a_user_policy_file_is_recorded_with_its_digest(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text("def decide(kind, state, options, n_options, params):\n    return 0\n")

    class Pol:
        name, param_names, params = f"{f}:decide", (), ()

    rec = provenance.run_record("foury", hero="free", policy=Pol, params=None, games=10, seed=1, conf=0.95)
    assert rec["policy_file"] == {"path": f"{f}:decide", "sha256": hashlib.sha256(f.read_bytes()).hexdigest()}
    assert rec["command"] == f"foury-sim run foury --hero free --policy {f}:decide --games 10 --seed 1"
    assert provenance.policy_text(rec) == f"{f}:decide"
    # the text header names its digest too (only the JSON did): the last line says what made the run
    sha = hashlib.sha256(f.read_bytes()).hexdigest()
    assert provenance.header_lines(rec)[-1] == (f"made with: {provenance.made_with(rec)}; policy file {f} "
                                                f"(sha256 {sha[:12]})")


def test_a_game_option_is_recorded_and_its_reproduce_command_plays_the_same_games():
    """A game's own run options (Tactics' Dungeon Master, issue 14) are overrides like ``--set``: named in the
    header and the JSON, and part of the reproduce command, which plays the same games again."""
    args = ["run", "tactics", "--games", "40", "--seed", "4", "--policy", "rush", "--map", "crypt",
            "--dm", "ruthless", "--dm-param", "spawn_near=0", "--no-progress"]
    head = cli(args).splitlines()[:4]
    assert head[2] == "overrides: --map crypt --dm ruthless --dm-param spawn_near=0"
    assert head[3] == ("reproduce: foury-sim run tactics --hero adventurer --policy rush --map crypt --dm ruthless "
                       "--dm-param spawn_near=0 --games 40 --seed 4")
    js = json.loads(cli(args + ["--format", "json"]))
    rec = js["provenance"]
    assert rec["overrides"] == {"map": {"name": "crypt"}, "options": {"dm": "ruthless", "dm_param": "spawn_near=0"}}
    assert rec["defaults"] is False and rec["command"] == head[3][len("reproduce: "):]
    again = json.loads(cli(pasted(rec["command"]) + ["--format", "json", "--no-progress"]))
    assert again["win"] == js["win"] and again["turns"] == js["turns"] and again["provenance"] == rec
    plain = json.loads(cli(["run", "tactics", "--games", "40", "--seed", "4", "--policy", "rush", "--map", "crypt",
                            "--dm", "by_the_book", "--format", "json", "--no-progress"]))
    assert "options" not in plain["provenance"]["overrides"]  # the default DM is no override
    assert "--dm" not in plain["provenance"]["command"]


def test_parquet_tables_say_how_they_were_made(tmp_path):
    """A per-game or cells table read alone (parquet) carries its provenance (``attrs["foury_sim"]``: pandas keeps
    a frame's attrs in the file); a cells table has the level of its intervals as a column (a CSV has no other
    place for it)."""
    import pandas as pd

    from foury_sim.files import MADE_KEY
    from foury_sim.runner import run
    from foury_sim.study import compare, run_sweep

    run("delve", games=300, seed=4, sets=["dragon.threshold=4"], out=tmp_path / "r", keep_rows=False, progress=False)
    part = next((tmp_path / "r" / "games.parquet").glob("part-*.parquet"))
    made = pd.read_parquet(part).attrs[MADE_KEY]
    assert made["game"] == "delve" and made["seed"] == 4 and made["games"] == 300 and made["conf"] == 0.95
    assert made["overrides"] == {"set": {"dragon.threshold": "4"}} and made["command"].startswith("foury-sim run")
    assert made["version"] and "git_commit" in made
    exp = tmp_path / "s.toml"
    exp.write_text('name = "s"\ngame = "delve"\ngames = 200\nseed = 3\nconf = 0.9\n'
                   '[sweep]\nhero = ["none", "knight"]\n')
    out = run_sweep(exp, tmp_path / "sw", progress=False, report=False)
    cells = pd.read_parquet(out / "cells.parquet")
    assert list(cells["conf"]) == [0.9, 0.9] and list(pd.read_csv(out / "cells.csv")["conf"]) == [0.9, 0.9]
    m = cells.attrs[MADE_KEY]
    assert (m["kind"], m["game"], m["seed"], m["games"], m["conf"]) == ("sweep", "delve", 3, 200, 0.9)
    assert m["experiment_id"] == json.loads((out / "manifest.json").read_text())["experiment_id"]
    compare("delve", {"hero": "none"}, {"hero": "knight"}, games=100, seed=2, progress=False, out=tmp_path / "c")
    m = pd.read_parquet(next((tmp_path / "c" / "games_b.parquet").glob("part-*.parquet"))).attrs[MADE_KEY]
    assert (m["game"], m["b"], m["seed"], m["games"]) == ("delve", {"hero": "knight"}, 2, 100)
    # each variant's table says which it holds and the command (the two tables' attrs were the same)
    ma = pd.read_parquet(next((tmp_path / "c" / "games_a.parquet").glob("part-*.parquet"))).attrs[MADE_KEY]
    assert (ma["variant"], ma["settings"], m["variant"], m["settings"]) == ("a", {"hero": "none"}, "b",
                                                                           {"hero": "knight"})
    assert m["command"] == ma["command"] == ("foury-sim compare delve --a hero=none --b hero=knight --games 100 "
                                             "--seed 2")


# ---------------------------------------------------------------------------------------------- studies --
def test_a_sweep_records_the_command_that_reproduces_it(tmp_path):
    """A sweep's manifest, its report and its parquet tables name the command that makes the same cells again: the
    file and the options that changed them (a quick look's, quoted for the shell), not where they went (``--out``);
    pasted back, it plays the same cells."""
    import shutil

    import pandas as pd

    from foury_sim.files import MADE_KEY

    exp = tmp_path / "s.toml"
    exp.write_text('name = "s"\ngame = "delve"\ngames = 200\nseed = 3\n[fixed]\npolicy = "threshold"\n'
                   '[sweep]\nhero = ["none", "knight"]\n')
    mine = tmp_path / "my policies" / "pol.py"  # a path the shell would split
    mine.parent.mkdir()
    shutil.copy(ROOT / "tests" / "data" / "delve_policies.py", mine)
    cli(["sweep", str(exp), "--out", str(tmp_path / "r"), "--games", "150", "--policies", f"threshold,{mine}:scripted",
         "--no-progress", "--threads", "1"])
    (out,) = (tmp_path / "r").iterdir()  # s-quick-games150-policies-...
    m = json.loads((out / "manifest.json").read_text())
    cmd = f"foury-sim sweep {exp} --games 150 --policies 'threshold,{mine}:scripted'"
    assert m["command"] == cmd and pasted(cmd)[-1] == f"threshold,{mine}:scripted"
    assert pd.read_parquet(out / "cells.parquet").attrs[MADE_KEY]["command"] == cmd
    assert f"- Reproduce: `{cmd}`" in (out / "report.md").read_text()
    assert f"<li>Reproduce: <code>{cmd.replace(chr(39), '&#x27;')}</code></li>" in (out / "report.html").read_text()
    cli(pasted(cmd) + ["--out", str(tmp_path / "again"), "--no-report", "--no-progress"])
    again = tmp_path / "again" / out.name
    assert json.loads((again / "manifest.json").read_text())["command"] == cmd
    pd.testing.assert_frame_equal(pd.read_parquet(again / "cells.parquet"), pd.read_parquet(out / "cells.parquet"))
    from foury_sim.study import load_experiment, set_precision, sweep_command

    full = load_experiment(exp)  # the study itself: just its file; --precision on the command line is named
    assert sweep_command(full) == f"foury-sim sweep {exp}"
    set_precision(full, 0.3, 600, 300)
    assert sweep_command(full) == f"foury-sim sweep {exp} --precision 0.3 --max-games 600 --batch 300"


def test_a_robust_study_records_the_command_that_reproduces_it(tmp_path):
    """A robustness study's manifest and report name the command that makes the same results again: its file with
    its games and points (given on the command line here), not ``--out``; pasted back, it plays the same cells."""
    import pandas as pd

    tiny = ROOT / "tests" / "data" / "robust" / "tiny.toml"
    cli(["robust", str(tiny), "--out", str(tmp_path / "r"), "--games", "20", "--points", "2", "--no-progress"])
    out = tmp_path / "r" / "tiny-quick-games20-points2"  # (a quick look's own folder)
    cmd = f"foury-sim robust {tiny} --games 20 --points 2"
    assert json.loads((out / "manifest.json").read_text())["command"] == cmd
    assert f"- Reproduce: `{cmd}`" in (out / "report.md").read_text()
    assert f"<li>Reproduce: <code>{cmd}</code></li>" in (out / "report.html").read_text()
    cli(pasted(cmd) + ["--out", str(tmp_path / "again"), "--no-progress"])
    again = tmp_path / "again" / "tiny-quick-games20-points2"
    assert json.loads((again / "manifest.json").read_text())["command"] == cmd
    for table in ("cells.csv", "robustness.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(again / table), pd.read_csv(out / table))
    from foury_sim.robust import load_robust, robust_command

    assert robust_command(load_robust(tiny)) == f"foury-sim robust {tiny} --games 30 --points 4"  # the file's


# ------------------------------------------------------------------------ every figure a command writes --
def _figures_written(monkeypatch) -> list:
    """The figures ``Figure.savefig`` is asked to write from now on (each as it was when written)."""
    from matplotlib.figure import Figure

    seen: list = []
    save = Figure.savefig

    def savefig(self, *args, **kw):
        seen.append(self)
        return save(self, *args, **kw)

    monkeypatch.setattr(Figure, "savefig", savefig)
    return seen


def test_every_figure_a_command_writes_says_how_it_was_made(tmp_path, monkeypatch):
    """At the foot of every figure of ``compare``, ``robust``, ``ladder`` and ``map render`` (``sweep``/``report``
    and ``tune``: tests/test_report.py, tests/test_tune.py): the game, the variants or fixed settings, the policy,
    seed, games, version and commit (``figures.made_footer``), read from the figure's text artists; a map's
    picture, which plays no game, names the game, the map, version and commit."""
    from foury_sim import figures as F

    made = provenance.made_with({"version": __version__, "git_commit": provenance.git_commit()})
    seen = _figures_written(monkeypatch)

    def footers() -> list[str | None]:
        out = [F.footer_text(f) for f in seen]
        seen.clear()
        return [t.replace("\n", " ") if t else t for t in out]

    cli(["compare", "delve", "--a", "hero=none", "--b", "hero=spellsword", "--games", "200", "--seed", "3",
         "--out", str(tmp_path / "c1"), "--no-progress"])
    assert footers() == [f"game delve; A: hero=none; B: hero=spellsword; fixed: nothing (the game's defaults); "
                         f"policy risk (the game's default); seed 3; 200 games under A and under B, on the same "
                         f"dice; {made}"]
    cli(["compare", "delve", "--a", "hero=none", "--b", "hero=spellsword", "--fixed", "policy=threshold",
         "--games", "200", "--seed", "3", "--out", str(tmp_path / "c2"), "--no-progress"])
    assert footers() == [f"game delve; A: hero=none; B: hero=spellsword; fixed: policy=threshold; seed 3; 200 games "
                         f"under A and under B, on the same dice; {made}"]

    tiny = ROOT / "tests" / "data" / "robust" / "tiny.toml"
    cli(["robust", str(tiny), "--out", str(tmp_path / "r"), "--games", "20", "--points", "2", "--no-progress"])
    n = json.loads((tmp_path / "r" / "tiny-quick-games20-points2" / "manifest.json").read_text())["n_design_points"]
    got = footers()  # shares.png and one tornado per conclusion
    assert len(got) == 3 and set(got) == {f"game foury; fixed: policy=greedy; seed 5; 20 games per cell at each of "
                                          f"{n} design points; {made}"}

    cli(["ladder", "delve", "--hero", "knight,minstrel", "--rungs", "random,threshold", "--games", "150",
         "--out", str(tmp_path / "l"), "--no-progress"])
    assert footers() == [f"game delve; fixed: nothing (the game's defaults); policy per rung; seed 1; 150 games per "
                         f"hero and rung; {made}"]

    cli(["map", "render", "base", "-o", str(tmp_path / "m.png")])
    assert footers() == [f"game foury; map base; {made}"]
    cli(["map", "render", "santa", "--campaign", "santa", "-o", str(tmp_path / "m2.png")])
    assert footers() == [f"game foury; map santa; campaign=santa; {made}"]
    # every game with a board: Rooms' picture had no canvas to measure the footer with (a traceback, and a Rooms
    # sweep's report failed with it)
    for game, board in (("rooms", "dealt"), ("tactics", "crypt")):
        cli(["map", "render", board, "--game", game, "-o", str(tmp_path / f"{game}.png")])
        assert footers() == [f"game {game}; map {board}; {made}"] and (tmp_path / f"{game}.png").stat().st_size > 0


def test_a_figure_note_names_the_policy_that_no_variant_or_setting_names():
    """``provenance.figure_note``: the game's default policy where a variant names none; nothing where each variant
    names its own or a fixed setting does; how it varies where the figure varies it."""
    made = {"version": "0.1.0", "git_commit": None}

    def note(**kw) -> str:
        return provenance.figure_note("delve", seed=1, games="10 games", made=made, **kw)

    assert note(fixed={}, variants={"A": {"policy": "threshold"}, "B": {"hero": "knight"}}) == (
        "game delve; A: policy=threshold; B: hero=knight; fixed: nothing (the game's defaults); policy risk (the "
        "game's default, where a variant names none); seed 1; 10 games; foury-sim 0.1.0")
    assert note(fixed={"hero": "knight"}, variants={"A": {"policy": "threshold"}, "B": {"policy": "risk"}}) == (
        "game delve; A: policy=threshold; B: policy=risk; fixed: hero=knight; seed 1; 10 games; foury-sim 0.1.0")
    assert note(fixed={}, variants={"A": {}, "B": {"hero": "knight"}}).startswith(
        "game delve; A: defaults; B: hero=knight; fixed: nothing (the game's defaults); policy risk (the game's "
        "default); ")
    assert note(fixed={}, swept={"hero", "policy"}, varies="varied") == (
        "game delve; fixed: nothing (the game's defaults); policy varied; seed 1; 10 games; foury-sim 0.1.0")


@pytest.mark.parametrize("verb,args", [
    ("run", ["delve", "--games", "300", "--seed", "2"]),
    ("compare", ["delve", "--a", "hero=knight", "--b", "hero=occultist", "--games", "300", "--seed", "2"])])
def test_a_confidence_level_of_many_digits_is_recorded_whole(verb, args):
    """The recorded command gives ``--conf`` as given: ``:g`` wrote 0.9512345 as 0.951234, and the pasted command
    printed other intervals than the record it came from."""
    js = json.loads(cli([verb, *args, "--conf", "0.9512345", "--format", "json", "--no-progress"]))
    command = js["provenance"]["command"]
    assert "--conf 0.9512345" in command
    again = json.loads(cli(pasted(command) + ["--format", "json", "--no-progress"]))
    assert (again["win"], again["conf"]) == (js["win"], js["conf"])
    assert provenance.number_text(0.9) == "0.9" and provenance.number_text(2.0) == "2"  # (short numbers as before)


@pytest.mark.parametrize("args", [
    ["run", "tactics", "--games", "40", "--seed", "4", "--map", "crypt", "--dm", "ruthless",
     "--dm-param", "spawn_near=0,focus=0"],
    ["odds", "tactics", "--trials", "200", "--weapon", "bare hands,mace", "--armor", "no armour"]])
def test_a_game_option_with_a_comma_is_recorded_as_its_flag_reads_it(args):
    """A game option's value goes into the command as typed: ``value_text`` wrote ``--dm-param 'spawn_near=0,focus=0'``
    as the TOML string '"spawn_near=0,focus=0"', which the pasted command refused (the flag reads no TOML)."""
    js = json.loads(cli(args + ["--format", "json"]))
    command = js["provenance"]["command"]
    assert '"' not in command and ("--dm-param spawn_near=0,focus=0" in command
                                   or "--weapon 'bare hands,mace'" in command), command
    again = json.loads(cli(pasted(command) + ["--format", "json"]))
    assert again.get("win", again.get("rows")) == js.get("win", js.get("rows"))


def test_the_commit_is_dirty_only_when_code_or_experiments_differ(tmp_path):
    """``+dirty`` says the numbers' code differs from the commit: the package or the checkout's ``experiments/``. A
    study rewriting ``results/`` (or an edited doc) left every later study of the same batch marked "with
    uncommitted changes", as if made by other code."""
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    for f in ("pkg/code.py", "experiments/study.toml", "results/cells.csv", "README.md"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("1\n")
    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    pkg = tmp_path / "pkg"
    commit = provenance.git_commit.__wrapped__  # (uncached: a process asks once)
    clean = commit(pkg)
    assert clean and re.fullmatch(r"[0-9a-f]{40}", clean)
    for f in ("results/cells.csv", "README.md"):
        (tmp_path / f).write_text("2\n")
    assert commit(pkg) == clean
    for f in ("experiments/study.toml", "pkg/code.py"):
        (tmp_path / f).write_text("2\n")
        assert commit(pkg) == clean + "+dirty", f
        git("checkout", "--", f)
    assert commit(pkg) == clean
