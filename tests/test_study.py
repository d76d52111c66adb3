"""Sweeps and comparisons: common random numbers, reproducibility, resume, adaptive precision, bad files."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

import inproc
import numpy as np
import pandas as pd
import pytest

from foury_sim import stats
from foury_sim.errors import InputError
from foury_sim.study import compare, format_comparison, load_experiment, run_sweep

ROOT = Path(__file__).resolve().parents[1]

SMALL = """
name = "small"
game = "foury"
seed = 5
games = 1500
per_game = true
[fixed]
policy = "greedy"
[sweep]
hero = ["free", "elydion"]
"round.monster_bonus" = [[0, 1, 2, 3], [0, 0, 0, 0]]
"""


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_sweep_writes_tables_manifest_and_is_reproducible(tmp_path):
    exp = write(tmp_path, SMALL)
    out1 = run_sweep(exp, tmp_path / "r1", progress=False, report=False)
    out2 = run_sweep(exp, tmp_path / "r2", progress=False, report=False)
    t1 = pd.read_parquet(out1 / "cells.parquet")
    t2 = pd.read_csv(out2 / "cells.csv")
    assert len(t1) == 4 and list(t1["games"]) == [1500] * 4
    assert np.allclose(t1["win_rate"], t2["win_rate"]) and np.allclose(t1["turns_mean"], t2["turns_mean"])
    m = json.loads((out1 / "manifest.json").read_text())
    assert m["seed"] == 5 and m["swept"] == ["hero", "round.monster_bonus"] and m["experiment_text"] == SMALL
    assert "package_version" in m and "elapsed_s" in m
    for i in range(4):
        rec = json.loads((out1 / "cells" / f"cell_{i:04d}.json").read_text())
        assert rec["games"] == 1500 and sum(rec["hist"]["score"]["counts"]) == 1500
        assert len(rec["board_cells"]["visits"]) == 81


def test_cells_share_dice_streams(tmp_path):
    """Common random numbers: a cell equals a plain run of the same settings, game by game."""
    from foury_sim.runner import run

    out = run_sweep(write(tmp_path, SMALL), tmp_path / "r", progress=False, report=False)
    cell = pd.read_parquet(out / "cells" / "cell_0001.parquet")  # hero=free, bonus 0,0,0,0
    ref = run("foury", hero="free", policy="greedy", games=1500, seed=5, sets=["monster_bonus=0,0,0,0"],
              progress=False).df
    assert cell["win"].tolist() == ref["win"].tolist() and cell["turns"].tolist() == ref["turns"].tolist()


def test_resume_after_interruption_gives_identical_numbers(tmp_path, capsys):
    exp = write(tmp_path, SMALL)
    full = run_sweep(exp, tmp_path / "full", progress=False, report=False)
    part = run_sweep(exp, tmp_path / "part", progress=False, report=False)
    (part / "cells" / "cell_0002.json").unlink()  # as if the run stopped before cell 2 finished
    (part / "cells" / "cell_0003.json").unlink()
    (part / "cells.parquet").unlink()
    capsys.readouterr()
    run_sweep(exp, tmp_path / "part", resume=True, progress=None, report=False)
    assert f"foury-sim: resumed: 2 of 4 cells were written before in {part}; playing the other 2" in \
        capsys.readouterr().err  # (it said nothing: a resumed sweep looked like a fresh one)
    a = pd.read_parquet(full / "cells.parquet")
    b = pd.read_parquet(part / "cells.parquet")
    pd.testing.assert_frame_equal(a, b)


def test_code_version_moves_with_the_shared_code_that_makes_the_numbers(monkeypatch):
    """A change to the dice (rng.py) or to the streamed summary (chunks.py, outputs.py) moves every game's code
    version, as a change to the game's own rules does; a file that makes no number (the CLI) does not."""
    from foury_sim import study

    base = {g: study.code_version(g) for g in ("foury", "delve")}
    real = Path.read_bytes
    for name, moves in (("rng.py", True), ("chunks.py", True), ("outputs.py", True), ("games/delve/kernel.py", None),
                        ("cli.py", False)):
        target = ROOT / "foury_sim" / name
        monkeypatch.setattr(Path, "read_bytes", lambda self, t=target: real(self) + (b"#" if self == t else b""))
        now = {g: study.code_version(g) for g in base}
        monkeypatch.setattr(Path, "read_bytes", real)
        if moves is None:  # a game's own file moves that game only
            assert now["delve"] != base["delve"] and now["foury"] == base["foury"]
        else:
            assert (now != base) is moves and (moves is False or all(now[g] != base[g] for g in base)), name


def test_resume_after_a_code_change_is_refused(tmp_path, monkeypatch):
    """Cells played by other code are not mixed with new ones: --resume after the code version moved is refused
    in one line naming the folder."""
    from foury_sim import study

    exp = write(tmp_path, SMALL.replace("games = 1500", "games = 200"))
    out = run_sweep(exp, tmp_path / "r", progress=False, report=False)
    (out / "cells" / "cell_0003.json").unlink()
    monkeypatch.setattr(study, "code_version", lambda game: "0123456789abcdef")
    with pytest.raises(InputError, match="run without --resume"):
        run_sweep(exp, tmp_path / "r", resume=True, progress=False, report=False)


def test_sweep_interrupted_by_ctrl_c_resumes(tmp_path):
    """A real interruption: kill the process after the first cells are written, then --resume. 6,000 games a
    cell (20,000 before: the resume and the fresh run played up to 140,000 games), as many as
    ``test_ctrl_c_exits_130_with_what_was_kept_and_the_resume_command`` needs to stop its sweep between the
    first and the last cell; here each cell also writes its per-game table, which makes it longer still."""
    exp = write(tmp_path, SMALL.replace("games = 1500", "games = 6000"))
    proc = subprocess.Popen([sys.executable, "-m", "foury_sim.cli", "sweep", str(exp), "--out", str(tmp_path / "r"),
                             "--no-report", "--no-progress"], cwd=ROOT)
    cells = tmp_path / "r" / "small" / "cells"
    import time

    t0 = time.time()
    while time.time() - t0 < 600 and len(list(cells.glob("cell_*.json"))) < 1:
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    done_before = len(list(cells.glob("cell_*.json")))
    assert 1 <= done_before < 4  # killed between the first and the last cell: the resume has cells to play
    r = inproc.cli("sweep", str(exp), "--out", str(tmp_path / "r"), "--no-report", "--no-progress", "--resume",
                   cwd=ROOT)  # the resume: in this process (tests/inproc.py); the kill above needs the real one
    assert r.returncode == 0, r.stderr
    resumed = pd.read_parquet(tmp_path / "r" / "small" / "cells.parquet")
    fresh = run_sweep(exp, tmp_path / "fresh", progress=False, report=False)
    pd.testing.assert_frame_equal(resumed, pd.read_parquet(fresh / "cells.parquet"))


def test_precision_target_stops_cells_when_decided(tmp_path):
    text = """
name = "prec"
game = "foury"
seed = 2
precision = 0.03
max_games = 20000
[sweep]
"round.monster_bonus" = [[0, 0, 0, 0], [6, 6, 6, 6]]
"""
    out = run_sweep(write(tmp_path, text), tmp_path / "r", progress=False, report=False)
    t = pd.read_parquet(out / "cells.parquet")
    for _, row in t.iterrows():
        assert row["win_hi"] - row["win_lo"] <= 0.03 or row["games"] == 20000
        assert row["games"] % stats.min_batch(0.03) == 0  # the default batch is the minimum
    # the hopeless cell (win rate near 0) is decided with fewer games than the open one
    assert t.loc[1, "games"] < t.loc[0, "games"]


def test_range_and_zip_modes(tmp_path):
    text = """
name = "z"
game = "foury"
games = 200
mode = "zip"
[sweep]
"param.foe_avoid" = { range = [0.0, 1.0, 0.5] }
hero = ["free", "kael", "melyra"]
"""
    exp = load_experiment(write(tmp_path, text))
    assert [c["param.foe_avoid"] for c in exp.cells] == [0.0, 0.5, 1.0]
    assert [c["hero"] for c in exp.cells] == ["free", "kael", "melyra"]


# each body follows a first line `game = "foury"`: its own lines are numbered from 2
BAD_FILES = [
    ('[sweep]\nno_such_rule = [1, 2]\n', "no_such_rule", "unknown ruleset key"),
    ('[sweep]\nhero = []\n', ":3", "empty"),
    ('[sweep]\nhero = ["free", "zorro"]\n', ":3", "unknown hero"),
    ('games = "many"\n', ":2", "whole number"),
    ('precision = 0.0001\nmax_games = 1000\n', ":2", "precision"),
    ('bogus = 1\n', ":2", "unknown experiment key"),
    ('[sweep]\n"round.monster_bonus" = [[0, 1], [0, 0, 0, 0]]\n', ":3", "monster_bonus"),
    ('mode = "zip"\n[sweep]\nhero = ["free"]\npolicy = ["greedy", "random"]\n', ":2", "equally long"),
    ('[sweep]\nhero = ', ":3:8", "malformed TOML: Invalid value (at the end of the file)"),  # (tomllib names no line)
]


@pytest.mark.parametrize("body,where,what", BAD_FILES)
def test_bad_experiment_files_are_refused_before_simulating(tmp_path, body, where, what):
    p = write(tmp_path, 'game = "foury"\n' + body)
    r = inproc.cli("sweep", str(p), "--out", str(tmp_path / "r"), cwd=ROOT)  # in this process (tests/inproc.py)
    assert r.returncode == 2, r.stdout + r.stderr
    line = r.stderr.strip().splitlines()
    assert len(line) == 1 and str(p) in line[0] and what in line[0], r.stderr
    assert where in line[0]
    assert not (tmp_path / "r").exists()  # nothing simulated, nothing written


def test_compare_is_paired_and_names_flipped_games():
    c = compare("foury", {"hero": "kael"}, {"hero": "elydion"}, games=3000, seed=8, progress=False)
    win = c.win
    a, b = c.df_a["win"].to_numpy(), c.df_b["win"].to_numpy()
    assert win["diff"] == pytest.approx(b.mean() - a.mean())
    assert sorted(win["flipped_win_to_loss"]) == np.flatnonzero((a == 1) & (b == 0)).tolist()
    assert sorted(win["flipped_loss_to_win"]) == np.flatnonzero((a == 0) & (b == 1)).tolist()
    ref = stats.paired_rate_diff(a, b)
    assert win["lo"] == pytest.approx(ref["lo"]) and win["p_value"] == pytest.approx(ref["p_value"])
    assert win["significant"] <= ref["significant"]  # Holm over the outcomes never adds a claim
    assert set(c.outcomes["outcome"]) >= {"win rate", "turns", "score"}
    # each variant's own rate has its interval too, and each arm says who played it (the defaults named)
    assert (win["lo_a"], win["hi_a"]) == pytest.approx(stats.wilson(int(a.sum()), 3000))
    assert (win["lo_b"], win["hi_b"]) == pytest.approx(stats.wilson(int(b.sum()), 3000))
    text = format_comparison(c)
    assert f"win rate of each: A {100 * a.mean():.2f} % [{100 * win['lo_a']:.2f}, " in text
    assert "(95 % Wilson intervals)" in text
    assert text.splitlines()[0] == "A: hero=kael  (played: hero kael, policy greedy)"
    d = c.to_dict()
    assert d["played_b"]["hero"] == "elydion" and d["played_b"]["policy"] == "greedy"
    assert d["played_b"]["policy_params"]["foe_avoid"] == 0.5 and d["win"]["lo_b"] == win["lo_b"]


def test_compare_identical_variants_is_exactly_zero():
    c = compare("foury", {"hero": "kael"}, {"hero": "kael"}, games=1000, seed=8, progress=False)
    assert c.win["diff"] == 0 and not c.win["significant"] and not c.win["flipped_win_to_loss"]


SAME = ("foury-sim: error: --b: --a and --b give the same variant (hero {hero}, policy greedy with the same "
        "parameters, the same rules): every game would be played the same under both; change --a or --b")


@pytest.mark.parametrize("args, hero", [
    (["--a", "hero=kael", "--b", "hero=kael"], "kael"),  # the same settings twice
    (["--a", "hero=free"], "free"),  # B is the defaults, and free is the default hero
    (["--a", "hero=kael", "--b", "hero=kael;policy=greedy;param.foe_avoid=0.5"], "kael"),  # the defaults named
    (["--fixed", "hero=kael", "--a", "policy=greedy", "--b", "param.foe_avoid=0.5"], "kael"),
])
def test_compare_command_refuses_a_variant_against_itself(tmp_path, args, hero):
    r = inproc.cli("compare", "foury", *args, "--games", "50", "--no-progress", "--out", str(tmp_path / "c"), cwd=ROOT)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [SAME.format(hero=hero)]
    assert not (tmp_path / "c").exists()  # refused before any game was played
    # one parameter moved: two variants, compared
    r = inproc.cli("compare", "foury", "--a", "hero=kael", "--b", "hero=kael;param.foe_avoid=0.4", "--games", "50",
                   "--no-progress", "--format", "json", cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["played_b"]["policy_params"]["foe_avoid"] == 0.4


def test_compare_rejects_unknown_settings():
    with pytest.raises(InputError):
        compare("foury", {"no_such_thing": 1}, {}, games=100, progress=False)


def test_precision_on_the_command_line(tmp_path):
    exp = write(tmp_path, SMALL)
    r = inproc.cli("sweep", str(exp), "--out", str(tmp_path / "r"), "--no-report", "--no-progress", "--precision",
                   "0.08", "--max-games", "4000", "--batch", "1000", cwd=ROOT)  # in this process (tests/inproc.py)
    assert r.returncode == 0, r.stderr
    t = pd.read_parquet(tmp_path / "r" / "small" / "cells.parquet")
    assert ((t["games"] % 1000) == 0).all() and (t["games"] <= 4000).all()
    assert ((t["win_hi"] - t["win_lo"] <= 0.08) | (t["games"] == 4000)).all()
    bad = inproc.cli("sweep", str(exp), "--out", str(tmp_path / "b"), "--precision", "0.00001", "--max-games", "100",
                     cwd=ROOT)
    assert bad.returncode == 2 and "--precision" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_precision_batch_below_the_minimum_is_refused(tmp_path):
    text = """
name = "prec"
game = "foury"
precision = 0.03
batch = 500
[sweep]
hero = ["free"]
"""
    with pytest.raises(InputError, match="batch >= 2614") as info:
        load_experiment(write(tmp_path, text))
    assert info.value.where.endswith(":5")  # the batch line
    exp = load_experiment(write(tmp_path, text.replace("batch = 500\n", "")))
    assert exp.precision.batch == stats.min_batch(0.03) == 2614


def test_conf_of_the_experiment_sets_every_interval(tmp_path):
    text = SMALL.replace('games = 1500', 'games = 300\nconf = 0.8')
    out = run_sweep(write(tmp_path, text), tmp_path / "r", progress=False, report=True)
    t = pd.read_parquet(out / "cells.parquet")
    for _, row in t.iterrows():
        assert (row["win_lo"], row["win_hi"]) == pytest.approx(stats.wilson(int(row["wins"]), 300, 0.8))
    man = json.loads((out / "manifest.json").read_text())
    assert man["conf"] == 0.8
    cell = json.loads((out / "cells" / "cell_0000.json").read_text())
    assert cell["conf"] == 0.8 and cell["summary"]["turns"]["mean_hi"] - cell["summary"]["turns"]["mean_lo"] > 0
    from foury_sim.study import read_win_bits

    games = pd.read_parquet(out / "cells" / "cell_0000.parquet").sort_values("game")
    np.testing.assert_array_equal(read_win_bits(cell["win_bits"], 300), games["win"].to_numpy())
    md = (out / "report.md").read_text()
    assert "80 % interval" in md and "95 %" not in md.split("## Experiment file")[0]
    assert "exact McNemar" in md
    with pytest.raises(InputError, match="conf"):
        load_experiment(write(tmp_path, SMALL.replace("games = 1500", "conf = 95"), "bad.toml"))


def test_compare_holm_adjusts_the_six_outcomes():
    c = compare("foury", {"hero": "kael"}, {"hero": "elydion"}, games=1500, seed=8, progress=False, conf=0.9)
    o = c.outcomes
    np.testing.assert_allclose(o["p_adjusted"], stats.adjust_pvalues(o["p_value"].to_numpy(float), "holm"))
    assert (o["p_adjusted"] >= o["p_value"] - 1e-15).all()
    sig = (o["p_adjusted"] < 0.1).to_numpy(copy=True)
    sig[0] = sig[0] and (o.loc[0, "lo"] > 0 or o.loc[0, "hi"] < 0)
    assert o["significant"].tolist() == sig.tolist()
    from foury_sim.study import format_comparison

    text = format_comparison(c)
    assert "90 % interval" in text and "Holm over the" in text and "95 %" not in text


def test_compare_outcomes_csv_says_the_level_of_its_intervals(tmp_path):
    """outcomes.csv had lo/hi without their level (only comparison.json said it): a conf column follows hi."""
    from foury_sim.study import write_comparison

    c = compare("delve", {"hero": "none"}, {"hero": "knight"}, games=300, seed=2, progress=False, conf=0.9)
    write_comparison(c, tmp_path)
    t = pd.read_csv(tmp_path / "outcomes.csv")
    assert list(t.columns[:7]) == ["outcome", "a", "b", "diff", "lo", "hi", "conf"]
    assert (t["conf"] == 0.9).all() and "conf" not in c.outcomes.columns


def test_run_and_compare_conf_on_the_command_line():
    r = inproc.cli("run", "foury", "--games", "300", "--conf", "0.9", cwd=ROOT)  # in this process (tests/inproc.py)
    assert r.returncode == 0, r.stderr
    assert ("(90 % Wilson interval; every bracket below is at 90 %, Student t for a mean, order statistics for a "
            "median)") in r.stdout
    r = inproc.cli("compare", "foury", "--a", "hero=kael", "--b", "hero=elydion", "--games", "300", "--conf", "0.8",
                   cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "paired 80 % intervals" in r.stdout and "p adj" in r.stdout


# ------------------------------------------------------------- results folders (issue 11) --
TINY_SWEEP = """
name = "same"
game = "foury"
seed = 3
games = 60
[fixed]
policy = "greedy"
[sweep]
hero = ["free", "kael", "melyra", "elydion"]
"""


def _cells(out: Path) -> dict[str, dict]:
    """The cell records without their timings."""
    return {f.name: {k: v for k, v in json.loads(f.read_text()).items() if k != "elapsed_s"}
            for f in sorted((out / "cells").glob("cell_*.json"))}


def test_a_folder_belongs_to_one_experiment(tmp_path):
    """Two different files with the same name: the second is refused and the first's cells stay."""
    a = write(tmp_path, TINY_SWEEP, "a.toml")
    b = write(tmp_path, TINY_SWEEP.replace("seed = 3", "seed = 4"), "b.toml")
    out = run_sweep(a, tmp_path / "r", progress=False, report=False)
    before = _cells(out)
    m = json.loads((out / "manifest.json").read_text())
    assert m["kind"] == "sweep" and len(m["experiment_id"]) == 16 and m["experiment_path"] == str(a)
    for resume in (False, True):
        with pytest.raises(InputError) as e:
            run_sweep(b, tmp_path / "r", resume=resume, progress=False, report=False)
        assert e.value.where == str(out) and "another experiment" in e.value.message
        assert f"sweep of {a}" in e.value.message and "another name or --out" in e.value.message
    assert _cells(out) == before and json.loads((out / "manifest.json").read_text()) == m
    assert not (out / ".lock").exists()
    # the same experiment again (another file, same content) is the same experiment: it may rerun
    c = write(tmp_path, TINY_SWEEP, "c.toml")
    run_sweep(c, tmp_path / "r", progress=False, report=False)
    assert _cells(out) == before


def test_the_identity_covers_the_files_a_study_reads(tmp_path):
    rules = tmp_path / "my_rules.toml"
    rules.write_text((ROOT / "foury_sim" / "games" / "foury" / "data" / "rules.toml").read_text())
    text = TINY_SWEEP.replace("[fixed]\n", f'[fixed]\nrules = "{rules}"\n')
    exp = write(tmp_path, text)
    out = run_sweep(exp, tmp_path / "r", progress=False, report=False)
    assert str(rules) in json.loads((out / "manifest.json").read_text())["input_files"]
    rules.write_text(rules.read_text() + "\n# edited\n")  # a changed ruleset file is a different experiment
    with pytest.raises(InputError, match="another experiment"):
        run_sweep(exp, tmp_path / "r", resume=True, progress=False, report=False)


def test_a_live_lock_refuses_a_second_run_and_a_stale_one_is_taken_over(tmp_path):
    exp = write(tmp_path, TINY_SWEEP)
    folder = tmp_path / "r" / "same"
    folder.mkdir(parents=True)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (folder / ".lock").write_text(f"{sleeper.pid}\n{platform.node()}\n")
        with pytest.raises(InputError) as e:
            run_sweep(exp, tmp_path / "r", progress=False, report=False)
        assert f"another run (pid {sleeper.pid})" in e.value.message and e.value.where == str(folder)
    finally:
        sleeper.kill()
        sleeper.wait()
    # the process is gone: its lock is stale and taken over; released afterwards
    out = run_sweep(exp, tmp_path / "r", progress=False, report=False)
    assert len(_cells(out)) == 4 and not (out / ".lock").exists()


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_two_runs_taking_over_one_stale_lock_leave_one_holder(tmp_path):
    """Runs A and B both read a stale lock (its process gone); A took it over and made its own, then B, acting on
    the stale pid it had read, deleted A's new lock and made its own: both wrote the folder. B now moves the lock
    aside, sees it is not the one it read, puts it back and is refused, naming A's pid."""
    from foury_sim.study import FolderLock

    (tmp_path / ".lock").write_text(f"{_dead_pid()}\n{platform.node()}\n")
    a, b = FolderLock(tmp_path), FolderLock(tmp_path)
    real = b._owner

    def owner_then_a_takes_over():
        pid = real()  # B has read the stale lock ...
        b._owner = real
        a.__enter__()  # ... and A takes it over before B acts
        return pid

    b._owner = owner_then_a_takes_over
    with pytest.raises(InputError) as e:
        b.__enter__()
    assert a.held and not b.held
    assert e.value.message.startswith(f"another run (pid {os.getpid()}) is writing this results folder")
    assert (tmp_path / ".lock").read_text() == f"{os.getpid()}\n{platform.node()}\n"
    a.__exit__(None, None, None)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # (no lock, nothing moved aside or half made left)


def test_a_lock_being_written_refuses_without_naming_this_process(tmp_path):
    """An empty lock younger than 10 s is one being written (a file system without hard links writes the pid after
    creating it): live. The refusal named this process's own pid as the other run's; it names none now. An empty
    lock older than that was left by a crash: taken over."""
    from foury_sim.study import FolderLock

    (tmp_path / ".lock").write_text("")
    with pytest.raises(InputError) as e:
        FolderLock(tmp_path).__enter__()
    assert e.value.message.startswith("another run is writing this results folder; wait for it to finish")
    old = time.time() - 60
    os.utime(tmp_path / ".lock", (old, old))
    with FolderLock(tmp_path) as lock:
        assert lock.held and (tmp_path / ".lock").read_text().split()[0] == str(os.getpid())
    assert not (tmp_path / ".lock").exists()


@pytest.mark.parametrize("damage", ["", "{\"name\": \"same\", ", "not json", "[1, 2]", "{\"name\": \"same\"}",
                                    "\xff\xfe"])
def test_a_damaged_manifest_is_refused_in_one_line(tmp_path, damage):
    exp = write(tmp_path, TINY_SWEEP)
    out = run_sweep(exp, tmp_path / "r", progress=False, report=False)
    (out / "manifest.json").write_bytes(damage.encode("latin-1"))
    for resume in (True, False):
        with pytest.raises(InputError) as e:
            run_sweep(exp, tmp_path / "r", resume=resume, progress=False, report=False)
        assert e.value.where == str(out / "manifest.json") and "manifest is damaged" in e.value.message
        assert "\n" not in str(e.value)


@pytest.mark.parametrize("damage", [b"", b'{"cell": 1, "label": "hero=kael", "summ', b"\x00\x01", b"[]",
                                    b'{"cell": 3}'])
def test_resume_recomputes_a_damaged_cell_and_cleans_temp_files(tmp_path, capsys, damage):
    exp = write(tmp_path, TINY_SWEEP)
    fresh = run_sweep(exp, tmp_path / "fresh", progress=False, report=False)
    out = run_sweep(exp, tmp_path / "r", progress=False, report=False)
    (out / "cells" / "cell_0001.json").write_bytes(damage)
    (out / "cells" / ".cell_0002.json.tmp99999").write_text("half")  # left by a crash
    (out / ".cells.csv.tmp99999").write_text("half")
    capsys.readouterr()
    run_sweep(exp, tmp_path / "r", resume=True, progress=False, report=False)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"foury-sim: warning: {out / 'cells' / 'cell_0001.json'}: damaged")
    assert "recomputing that cell" in err[0]
    pd.testing.assert_frame_equal(pd.read_parquet(out / "cells.parquet"), pd.read_parquet(fresh / "cells.parquet"))
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]


def test_out_must_be_a_folder_and_foreign_folders_are_refused(tmp_path):
    exp = write(tmp_path, TINY_SWEEP)
    f = tmp_path / "afile"
    f.write_text("x")
    with pytest.raises(InputError) as e:
        run_sweep(exp, f, progress=False, report=False)
    assert e.value.where == "--out" and "is a file" in e.value.message
    (tmp_path / "docs" / "same").mkdir(parents=True)
    (tmp_path / "docs" / "same" / "notes.txt").write_text("mine")
    with pytest.raises(InputError) as e:
        run_sweep(exp, tmp_path / "docs", progress=False, report=False)
    assert "no study's results (notes.txt)" in e.value.message
    assert (tmp_path / "docs" / "same" / "notes.txt").read_text() == "mine"


def test_a_sweep_interrupted_before_its_manifest_goes_on(tmp_path):
    """Ctrl-C right after the sweep made its folder left an empty ``cells/`` (and a manifest's temporary file)
    that every later sweep refused as "no study's results": what such a run leaves is nothing."""
    exp = write(tmp_path, TINY_SWEEP)
    first = run_sweep(exp, tmp_path / "a", progress=False, report=False)
    folder = tmp_path / "b" / first.name
    (folder / "cells" / "sub").mkdir(parents=True)
    (folder / ".manifest.json.tmp4242").write_text("{")
    (folder / "cells" / ".cell_0000.json.tmp4242").write_text("")
    again = run_sweep(exp, tmp_path / "b", progress=False, report=False)
    assert again == folder
    pd.testing.assert_frame_equal(pd.read_parquet(again / "cells.parquet"), pd.read_parquet(first / "cells.parquet"))
    (tmp_path / "c" / first.name / "cells").mkdir(parents=True)
    (tmp_path / "c" / first.name / "cells" / "mine.txt").write_text("x")  # a file of someone's: refused
    with pytest.raises(InputError, match="no study's results"):
        run_sweep(exp, tmp_path / "c", progress=False, report=False)


def test_robust_and_sweep_do_not_share_a_folder(tmp_path):
    from foury_sim.robust import run_robust

    tiny = ROOT / "tests" / "data" / "robust" / "tiny.toml"
    exp = write(tmp_path, TINY_SWEEP.replace('"same"', '"tiny"'))
    out = run_sweep(exp, tmp_path, progress=False, report=False)
    with pytest.raises(InputError) as e:
        run_robust(tiny, tmp_path, progress=False)
    assert e.value.where == str(out) and "(sweep of" in e.value.message and "this one (robust of" in e.value.message


def test_ctrl_c_exits_130_with_what_was_kept_and_the_resume_command(tmp_path):
    """SIGINT in a real sweep: exit 130, one line saying how many cells are kept and the exact command
    that resumes; that command then finishes the study with the numbers of an uninterrupted run."""
    import signal
    import time

    exp = write(tmp_path, TINY_SWEEP.replace("games = 60", "games = 6000"))
    root = tmp_path / "r"
    proc = subprocess.Popen([sys.executable, "-m", "foury_sim.cli", "sweep", str(exp), "--out", str(root),
                             "--no-report", "--no-progress"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    cells = root / "same" / "cells"
    t0 = time.time()
    while time.time() - t0 < 600 and len(list(cells.glob("cell_*.json"))) < 1:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=600)[1].strip().splitlines()
    kept = len(list(cells.glob("cell_*.json")))
    assert proc.returncode == 130 and len(err) == 1, err
    cmd = f"foury-sim sweep {exp} --resume --out {root}"
    assert err[0] == f"foury-sim: interrupted: {kept} of 4 cells written to {root / 'same'}; resume with: {cmd}"
    assert 1 <= kept < 4 and not (root / "same" / ".lock").exists()
    r = inproc.cli(*cmd.split()[1:], "--no-report", "--no-progress", cwd=ROOT)  # the printed command, in this process
    assert r.returncode == 0, r.stderr
    fresh = run_sweep(exp, tmp_path / "fresh", progress=False, report=False)
    pd.testing.assert_frame_equal(pd.read_parquet(root / "same" / "cells.parquet"),
                                  pd.read_parquet(fresh / "cells.parquet"))


def test_a_fault_inside_a_file_a_variant_names_is_reported_at_its_line(tmp_path):
    """compare's ``--a map=FILE`` and a sweep's ``map = "FILE"`` reported a fault of the map at ``--a`` or at the
    experiment's line, without the map's own file:line (``run --map`` gave it): it stays at the map's line, with
    the setting that named the file after the message."""
    shipped = ROOT / "foury_sim" / "games" / "foury" / "data" / "maps" / "base.map"
    lines = shipped.read_text().splitlines()
    i = next(k for k, x in enumerate(lines) if "Bg." in x)
    lines[i] = lines[i].replace("Bg.", "BZ.", 1)
    bad = tmp_path / "bad.map"
    bad.write_text("\n".join(lines) + "\n")
    col = lines[i].index("BZ.") + 2
    with pytest.raises(InputError) as e:
        compare("foury", {"map": str(bad)}, {"hero": "kael"}, games=10, progress=False)
    assert e.value.where == f"{bad}:{i + 1}:{col}" and e.value.message.startswith("unknown icon character 'Z'")
    assert e.value.message.endswith("(named by --a)")
    exp = write(tmp_path, f'name = "bm"\ngame = "foury"\ngames = 100\n[fixed]\nmap = "{bad}"\n'
                          '[sweep]\nhero = ["kael", "free"]\n')
    with pytest.raises(InputError) as e:
        load_experiment(exp)
    assert e.value.where == f"{bad}:{i + 1}:{col}"
    assert e.value.message.endswith(f"(named by {exp}:5, cell 0: hero=kael)")


@pytest.mark.parametrize("a, b, fixed, message", [
    (["hero=kael", "hero=melyra"], ["hero=free"], [], "--a: hero is given twice ('kael' and 'melyra'): give it once"),
    (["hero=melyra"], ["hero=free"], ["hero=kael"],
     "--a: hero is set by --fixed (for both variants) and by --a: set it in one place"),
    (["hero="], ["hero=kael"], [], "--a: hero= has no value"),
    (["=x"], ["hero=kael"], [], "--a: '=x' has no key before '='"),
])
def test_contradictory_comparison_settings_are_refused(a, b, fixed, message):
    """A comparison's settings that contradict each other ran in silence (the last of a key given twice won;
    `--fixed hero=kael --a hero=melyra` played melyra and printed that both were kael; `hero=` ran the default)."""
    from inproc import cli

    args = [x for v in a for x in ("--a", v)] + [x for v in b for x in ("--b", v)] + \
        [x for v in fixed for x in ("--fixed", v)]
    r = cli("compare", "foury", *args, "--games", "10")
    assert r.returncode == 2 and r.stderr.strip() == f"foury-sim: error: {message}"


@pytest.mark.parametrize("body, line, message", [
    ('games = 200\nprecision = 0.05\n[sweep]\nhero = ["kael", "free"]\n', 3, "games and precision both set"),
    ('games = 200\n[fixed]\nhero = "kael"\n[sweep]\nhero = ["free", "kael"]\n', 5, "hero is both fixed and swept"),
    ('games = 200\n[sweep]\nhero = ["free", "free"]\n', 5, "cells 0 and 1 have the same settings (hero=free)"),
])
def test_a_sweep_file_that_contradicts_itself_is_refused(tmp_path, body, line, message):
    """Accepted in silence before: games beside precision (games ignored), a key fixed and swept (the swept values
    won), a value listed twice (two cells playing the same games)."""
    exp = write(tmp_path, f'name = "c"\ngame = "foury"\n{body}')
    with pytest.raises(InputError, match=re.escape(message)) as e:
        load_experiment(exp)
    assert e.value.where == f"{exp}:{line}"


@pytest.mark.parametrize("body, line, message", [
    ('[fixed]\npolicy = "greedy"\n"param.foe_avoid" = "x"\n[sweep]\nhero = ["kael"]\n', 6,
     "policy parameter foe_avoid='x' is not a number"),
    ('[fixed]\npolicy = "greedy"\n[sweep]\n"param.foe_avoid" = [1, "x"]\n', 7,
     "policy parameter foe_avoid='x' is not a number"),
    ('[fixed]\npolicy = "greedy"\n"param.foe_avoidd" = 1\n[sweep]\nhero = ["kael"]\n', 6,
     "unknown policy parameter 'foe_avoidd'"),
])
def test_a_bad_policy_parameter_in_a_sweep_names_its_own_line(tmp_path, body, line, message):
    """"policy parameter NAME=..." was placed at the policy's line (the word "policy" matched first)."""
    exp = write(tmp_path, f'name = "c"\ngame = "foury"\ngames = 100\n{body}')
    with pytest.raises(InputError, match=re.escape(message)) as e:
        load_experiment(exp)
    assert e.value.where == f"{exp}:{line}"


def test_a_quick_look_at_a_precision_has_a_folder_of_its_own(tmp_path):
    """A quick look's folder left out --precision: a second quick look at another precision was refused as another
    experiment in the same folder, with advice to rename it, which a quick look cannot do."""
    from foury_sim.study import set_precision

    exp = write(tmp_path, 'name = "q"\ngame = "foury"\ngames = 100\n[sweep]\nhero = ["kael", "melyra"]\n')
    names = []
    for width, max_games, batch in ((0.3, None, None), (0.2, None, None), (0.2, 50_000, None), (0.2, None, 500)):
        e = load_experiment(exp, heroes=["kael"])
        set_precision(e, width, max_games, batch)
        names.append(e.name)
    assert names == ["q-quick-heroes-kael-precision0.3", "q-quick-heroes-kael-precision0.2",
                     "q-quick-heroes-kael-precision0.2-maxgames50000", "q-quick-heroes-kael-precision0.2-batch500"]
    full = load_experiment(exp)  # (the full study at a precision given on the command line keeps its name)
    set_precision(full, 0.2)
    assert full.name == "q"


def test_a_p_value_below_the_smallest_double_is_not_printed_as_0():
    from foury_sim.study import _p

    assert _p(0.0) == " <1e-300" and _p(0.0123) == "   0.012" and _p(3e-320) == "  3e-320"


def test_a_user_policys_fault_in_a_sweep_or_compare_names_the_setting_not_the_run_option(tmp_path):
    """A user policy answering out of range in a sweep cell said ``--policy: ...``: a sweep has no such option. It
    names the experiment's line that chose the policy and the cell; in ``compare`` the variant (``--b``)."""
    pol = tmp_path / "bad.py"
    pol.write_text("def decide(kind, state, options, n_options, params):\n    return n_options + 5\n")
    exp = tmp_path / "e.toml"
    exp.write_text(f'name = "e"\ngame = "delve"\ngames = 50\n[sweep]\npolicy = ["threshold", "{pol}:decide"]\n')
    with pytest.raises(InputError) as e:
        run_sweep(exp, tmp_path / "r", progress=False, report=False)
    assert e.value.where == f"{exp}:5"
    assert e.value.message.startswith(f"policy '{pol}:decide' returned an option index out of range ")
    assert e.value.message.endswith(f"(cell 1: policy={pol}:decide)")
    with pytest.raises(InputError) as e:
        compare("delve", {"policy": "threshold"}, {"policy": f"{pol}:decide"}, games=50, progress=False)
    assert e.value.where == "--b" and e.value.message.startswith(f"policy '{pol}:decide' returned an option index")
