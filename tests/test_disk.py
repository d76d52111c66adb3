"""A disk that fills or a write that fails (issue 11): one line naming the file and the OS reason, no
temp file left behind, every cell already written kept, and --resume finishes the study."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from foury_sim import files, study
from foury_sim.files import WriteError, atomic_write, clean_temp, write_frame
from foury_sim.study import run_sweep

ROOT = Path(__file__).resolve().parents[1]

SWEEP = """
name = "disk"
game = "foury"
seed = 9
games = 80
[fixed]
policy = "greedy"
[sweep]
hero = ["free", "kael", "melyra", "elydion"]
"""


def _no_temp(folder: Path) -> bool:
    return not [p for p in folder.rglob("*") if ".tmp" in p.name]


def _enospc(*a, **k):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_atomic_write_on_a_full_disk_removes_its_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "sub" / "a.json"
    atomic_write(target, "old")
    monkeypatch.setattr(files.os, "fsync", _enospc)
    for data in ("new", b"new"):
        with pytest.raises(WriteError) as e:
            atomic_write(target, data)
        assert e.value.where == str(target) and e.value.message == "cannot write results file: No space left on device"
    assert target.read_text() == "old" and _no_temp(tmp_path)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_write_frame_on_a_full_disk_removes_its_temp_file(tmp_path, monkeypatch, suffix):
    df = pd.DataFrame({"a": range(1000)})

    def half(self, path, *a, **k):  # writes part of the file, then the disk is full
        Path(path).write_text("a\n1\n2\n")
        _enospc()

    monkeypatch.setattr(pd.DataFrame, "to_csv" if suffix == ".csv" else "to_parquet", half)
    with pytest.raises(WriteError) as e:
        write_frame(df, tmp_path / f"t{suffix}")
    assert e.value.where == str(tmp_path / f"t{suffix}") and "No space left on device" in e.value.message
    assert list(tmp_path.iterdir()) == []


def test_a_folder_in_the_way_is_one_line(tmp_path):
    (tmp_path / "x.csv").mkdir()
    with pytest.raises(WriteError) as e:
        write_frame(pd.DataFrame({"a": [1]}), tmp_path / "x.csv")
    assert e.value.where == str(tmp_path / "x.csv") and "Is a directory" in e.value.message
    assert [p.name for p in tmp_path.iterdir()] == ["x.csv"]


def test_clean_temp_removes_only_temp_files(tmp_path):
    for name in (".a.json.tmp12", "sub/.b.csv.tmp3", ".c.png.tmp4.png", "keep.json", ".lock"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x")
    assert clean_temp(tmp_path) == 3
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()) == [".lock", "keep.json"]


def test_a_sweep_keeps_the_cells_written_before_the_disk_filled(tmp_path, monkeypatch):
    exp = tmp_path / "disk.toml"
    exp.write_text(SWEEP)
    fresh = run_sweep(exp, tmp_path / "fresh", progress=False, report=False)
    real = study.atomic_write

    def full_at_cell_2(path, data):
        if Path(path).name == "cell_0002.json":
            tmp = Path(path).with_name(f".{Path(path).name}.tmp{os.getpid()}")
            tmp.write_text("partial")
            raise WriteError("cannot write results file: No space left on device", str(path))
        real(path, data)

    monkeypatch.setattr(study, "atomic_write", full_at_cell_2)
    with pytest.raises(WriteError) as e:
        run_sweep(exp, tmp_path / "r", progress=False, report=False)
    out = tmp_path / "r" / "disk"
    assert e.value.where == str(out / "cells" / "cell_0002.json")
    assert e.value.message == (f"cannot write results file: No space left on device; 2 of 4 cells written to {out}: "
                               f"free space, then resume with: foury-sim sweep {exp} --resume --out {tmp_path / 'r'}")
    assert _no_temp(out) and not (out / ".lock").exists()
    monkeypatch.setattr(study, "atomic_write", real)
    run_sweep(exp, tmp_path / "r", resume=True, progress=False, report=False)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "cells.parquet"), pd.read_parquet(fresh / "cells.parquet"))


LIMITED = """
import resource, sys
from foury_sim.cli import main
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
sys.argv = ["foury-sim", *sys.argv[2:]]
main()
"""


def test_file_size_limit_in_a_real_process(tmp_path):
    """RLIMIT_FSIZE makes writes beyond the limit fail with EFBIG (Python ignores SIGXFSZ), like a full
    disk: the cells (small files) are written, the report's figures (larger) are not; one line, exit 2, no
    temp file; --resume then finishes the study without recomputing a cell."""
    exp = tmp_path / "disk.toml"
    exp.write_text(SWEEP)
    out = tmp_path / "r" / "disk"
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", LIMITED, "20000", "sweep", str(exp), "--out", str(tmp_path / "r"),
                        "--no-progress"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("foury-sim: error: ") and "File too large" in lines[0], lines
    assert f"all 4 cells are kept in {out}" in lines[0] and "--resume" in lines[0]
    assert len(list((out / "cells").glob("cell_*.json"))) == 4 and _no_temp(out) and not (out / ".lock").exists()
    r = subprocess.run([sys.executable, "-m", "foury_sim.cli", "sweep", str(exp), "--out", str(tmp_path / "r"),
                        "--no-progress", "--resume", "--no-report"], cwd=ROOT, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    fresh = run_sweep(exp, tmp_path / "fresh", progress=False, report=False)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "cells.parquet"), pd.read_parquet(fresh / "cells.parquet"))


ROBUST = """
name = "disk_robust"
game = "delve"
seed = 3
games = 60
points = 2
vary = ["score.win_rank"]
[fixed]
policy = "threshold"
[[conclusions]]
kind = "ranking"
over = "hero"
values = ["knight", "minstrel"]
"""


@pytest.mark.parametrize("verb", ["ladder", "robust"])
def test_a_full_disk_still_prints_a_ladders_or_a_robust_studys_result(tmp_path, verb):
    """A ladder or a robust study whose files could not be written (the figure, larger than the limit) printed
    nothing but the error line: the ladder computed and a whole study's verdicts were lost. Now the result is printed
    on stdout, then the one line (exit 2) says it was not saved; a ladder's cells are kept and --resume writes the
    same ladder as a fresh run, without playing a game."""
    if verb == "ladder":
        args = ["ladder", "delve", "--hero", "knight,minstrel", "--rungs", "random,threshold", "--games", "200"]
    else:
        exp = tmp_path / "disk_robust.toml"
        exp.write_text(ROBUST)
        args = ["robust", str(exp)]
    r = subprocess.run([sys.executable, "-c", LIMITED, "30000", *args, "--out", str(tmp_path / "r"),
                        "--no-progress"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("foury-sim: error: ") and "File too large" in lines[0], lines
    assert _no_temp(tmp_path / "r") and not list((tmp_path / "r").rglob(".lock"))
    if verb == "robust":
        assert "ranking minstrel > knight" in r.stdout and "at the defaults" in r.stdout, r.stdout
        return
    assert "knight       threshold" in r.stdout and "minstrel     random" in r.stdout, r.stdout
    assert "the ladder above was not saved (its cells are)" in lines[0] and "--resume" in lines[0]
    again = subprocess.run([sys.executable, "-m", "foury_sim.cli", *args, "--out", str(tmp_path / "r"),
                            "--no-progress", "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    fresh = subprocess.run([sys.executable, "-m", "foury_sim.cli", *args, "--out", str(tmp_path / "fresh"),
                            "--no-progress"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and fresh.returncode == 0, again.stderr + fresh.stderr
    assert again.stdout.replace(str(tmp_path / "r"), "OUT") == fresh.stdout.replace(str(tmp_path / "fresh"), "OUT")
    assert r.stdout.strip() in again.stdout


GIT_LIMITED = """
import resource
import sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
from foury_sim import provenance
print(provenance.git_commit(Path(sys.argv[1])))
"""


def test_a_run_under_a_file_size_limit_leaves_no_lock_in_the_users_checkout(tmp_path):
    """``provenance.git_commit`` ran ``git status``, which refreshes the checkout's index in passing under
    ``.git/index.lock``: under a file-size limit (or the call's timeout) git was killed mid-write and left the lock,
    so every later git command in the user's checkout failed ("index.lock: File exists"). A checkout of its own (an
    index over the limit: 60 files), a file touched so that a status would rewrite the index, the commit asked
    under a 1,000-byte file-size limit: the commit comes back and no lock is left."""
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    for i in range(60):
        (tmp_path / "pkg" / f"module_{i:02d}.py").parent.mkdir(exist_ok=True)
        (tmp_path / "pkg" / f"module_{i:02d}.py").write_text(f"X = {i}\n")
    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    later = (tmp_path / "pkg" / "module_00.py").stat().st_mtime + 5
    os.utime(tmp_path / "pkg" / "module_00.py", (later, later))  # (its stat no longer the index's)
    r = subprocess.run([sys.executable, "-c", GIT_LIMITED, str(tmp_path / "pkg")], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and re.fullmatch(r"[0-9a-f]{40}", r.stdout.strip()), r.stdout + r.stderr
    assert not (tmp_path / ".git" / "index.lock").exists()


@pytest.mark.parametrize("full_at", ["cells.parquet", "cell_0002.json"])
def test_a_full_disk_still_prints_the_cells_a_sweep_computed(tmp_path, monkeypatch, full_at):
    """A sweep whose files could not be written printed nothing but the error line: the cells it computed were
    lost from sight. Now their table is printed on stdout (every cell when the cells' table could not be written,
    the cells written before the disk filled otherwise), then the one line, exit 2."""
    from inproc import cli

    exp = tmp_path / "disk.toml"
    exp.write_text(SWEEP)
    fresh = cli("sweep", str(exp), "--out", str(tmp_path / "fresh"), "--no-progress", "--no-report")
    assert fresh.returncode == 0, fresh.stderr

    def rows(text: str) -> list[str]:  # the table's heading and rows, spaces collapsed (its rule's width varies)
        return [" ".join(line.split()) for line in text.splitlines() if line.strip("─")]

    table = rows("\n".join(fresh.stdout.splitlines()[3:]))  # (after the folder, how it was made)
    assert len(table) == 1 + 4 and table[1].startswith("0 hero=free 80 ")
    real_frame, real_write = study.write_frame, study.atomic_write

    def full(path: Path) -> None:
        if Path(path).name == full_at:
            raise WriteError("cannot write results file: No space left on device", str(path))

    monkeypatch.setattr(study, "write_frame", lambda df, path, **k: full(path) or real_frame(df, path, **k))
    monkeypatch.setattr(study, "atomic_write", lambda path, data: full(path) or real_write(path, data))
    r = cli("sweep", str(exp), "--out", str(tmp_path / "r"), "--no-progress", "--no-report")
    out = tmp_path / "r" / "disk"
    assert r.returncode == 2
    if full_at == "cells.parquet":
        assert rows(r.stdout) == table
        assert r.stderr == (f"foury-sim: error: {out / 'cells.parquet'}: cannot write results file: No space left on "
                            f"device; all 4 cells are kept in {out}: free space, then finish with: foury-sim sweep "
                            f"{exp} --resume --out {tmp_path / 'r'}\n")
    else:
        assert rows(r.stdout) == table[:3]
        assert r.stderr == (f"foury-sim: error: {out / 'cells' / 'cell_0002.json'}: cannot write results file: No "
                            f"space left on device; 2 of 4 cells written to {out}: free space, then resume with: "
                            f"foury-sim sweep {exp} --resume --out {tmp_path / 'r'}\n")
