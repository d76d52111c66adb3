"""Ctrl-C: every verb exits 130 with one line saying what was kept and how to go on, within a second or two,
even while a kernel runs and even while a user's policy never returns. A policy's print() goes to stderr, so
``--format json`` stays parseable. These need a real process (signals), so they run the console script."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOOP_POLICY = '''
def loop(kind, state, options, n_options, params):
    print(-424242)
    x = kind + 1
    while x != 0:  # never 0: odd times odd stays odd, but numba cannot know
        x = (x * 6364136223846793005 + 2) | 1
    return x
'''

PRINT_POLICY = '''
def chatty(kind, state, options, n_options, params):
    print(777, kind, n_options)
    return 0
'''


#: ``python -m foury_sim`` with Ctrl-C's handler in place whatever the suite inherited: a shell starts a job it
#: runs in the background (``pytest ... &``, ``nohup``) with SIGINT ignored, and a child inherits that, so a suite
#: started that way saw these commands ignore the test's Ctrl-C (a user's background job does, rightly).
ENTRY = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "sys.argv[0] = 'foury-sim'; from foury_sim.__main__ import *")


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", ENTRY, *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def interrupt_when(p: subprocess.Popen, marker: str | None, wait_s: float) -> tuple[float, str, str]:
    """Wait for ``marker`` on the process's stderr (or ``wait_s`` seconds), send SIGINT; (seconds until it
    ended, stdout, stderr)."""
    seen = ""
    if marker is not None:
        deadline = time.monotonic() + 600
        while marker not in seen and time.monotonic() < deadline:
            line = p.stderr.readline()
            if not line:
                break
            seen += line
        assert marker in seen, seen
        time.sleep(wait_s)
    else:
        time.sleep(wait_s)
    assert p.poll() is None, "the process ended before it was interrupted"
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    return time.monotonic() - t0, out, seen + err


def test_ctrl_c_in_a_long_run_exits_130_with_one_line():
    """Ctrl-C while the games are played (a kernel running): one line, exit 130, within 5 s. The Ctrl-C is sent
    once the progress bar's first line says games were played: a fixed 8 s after the start could land in the
    user policy's compile (the games started 3 s in, idle, 8 s when foury-sim's guard compiles too; later under
    load), where a Ctrl-C waits for LLVM's pass to return (for the whole compile when llvmlite swallowed it:
    ``userpolicy._SigintWatch``), and the 5 s then measured the compile, not the answer to the Ctrl-C."""
    p = start("run", "foury", "--games", "5000000", "--seed", "3", "--policy",
              "experiments/policies/brave.py:brave", "--progress")
    took, out, err = interrupt_when(p, "games (", 0.0)  # the bar's first line: chunks were played
    assert p.returncode == 130, err
    lines = err.strip().splitlines()
    assert lines[-1] == ("foury-sim: interrupted: nothing was kept; re-run the same command: foury-sim run foury "
                         "--games 5000000 --seed 3 --policy experiments/policies/brave.py:brave --progress"), err
    assert "Traceback" not in err and out == ""
    assert took < 5, took


def test_sigterm_is_taken_as_ctrl_c_and_leaves_no_temporary_file(tmp_path):
    """`kill` (SIGTERM: a job scheduler, a container stopping) ended the command at once with no message and left a
    ``.games.csv.tmpPID`` behind; it is now Ctrl-C: one line, exit 130, the parts kept, no temporary file."""
    out = tmp_path / "o"
    p = start("run", "delve", "--games", "400000000", "--out", str(out), "--progress")
    deadline = time.monotonic() + 600
    # a part is kept once its partial (``_part-START.pkl``) is written after its table: a signal between the two
    # keeps nothing, so the test waits for the partial (waiting for the table alone failed one CI run in many); the
    # kept parts are counted in the folder (``PartWriter.kept``), so a signal just after the partial's rename counts
    # it (tests/test_cli.py::test_a_ctrl_c_just_after_a_parts_partial_is_renamed_counts_that_part_as_kept)
    while not list(out.glob("games.parquet/_part-*.pkl")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert p.poll() is None, "the run ended before it was stopped"
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    said = [ln for ln in err.splitlines() if ln.startswith("foury-sim: interrupted: ")]
    assert len(said) == 1 and said[0].endswith(f"the same command goes on from them: foury-sim run delve --games "
                                               f"400000000 --out {out} --progress"), err
    assert "Traceback" not in err
    assert not [f.name for f in out.rglob("*") if ".tmp" in f.name]


def test_a_second_run_into_the_same_out_is_refused_and_no_other_runs_files_stay(tmp_path):
    """Two runs writing one ``--out`` at once mixed their parts (both exited 0); a run into a folder of another
    game's run left that run's ``visits.csv`` beside its own files. The folder is locked while a run writes it, and
    a run starts by removing the files another run wrote there (``runner.RUN_FILES``)."""
    out = tmp_path / "o"
    out.mkdir()
    (out / "visits.csv").write_text("cell,visits\n0,1\n")  # another game's heat map (Dungeon Foury's)
    (out / "summary.json").write_text("{}")
    p = start("run", "delve", "--games", "400000000", "--out", str(out), "--progress")
    deadline = time.monotonic() + 600
    while not (out / ".lock").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        second = subprocess.run([sys.executable, "-m", "foury_sim", "run", "delve", "--games", "1000", "--seed", "5",
                                 "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert second.returncode == 2, second.stderr
        assert second.stderr.startswith(f"foury-sim: error: {out}: another run (pid {p.pid}) is writing this "
                                        "results folder"), second.stderr
        assert not (out / "visits.csv").exists() and not (out / "summary.json").exists()
    finally:
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=60)
    assert not (out / ".lock").exists()  # (released on the way out)


def test_ctrl_c_stops_a_policy_that_never_returns(tmp_path):
    f = tmp_path / "loop.py"
    f.write_text(LOOP_POLICY)
    p = start("run", "foury", "--games", "100", "--policy", f"{f}:loop")
    took, out, err = interrupt_when(p, "-424242", 1.0)
    assert p.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("foury-sim: interrupted: nothing was kept; re-run the same "
                                                   "command: foury-sim run foury --games 100"), err
    assert "Traceback" not in err
    # stopped by the Ctrl-C, not by the decision budget (60 s, runner.DECISION_BUDGET_S): a bound on what stopped
    # it, not a speed figure (6.2 s seen at load 15-20, under 5 s idle)
    assert took < 20, took


def test_a_policy_that_prints_leaves_json_clean(tmp_path):
    f = tmp_path / "chatty.py"
    f.write_text(PRINT_POLICY)
    r = subprocess.run([sys.executable, "-m", "foury_sim", "run", "foury", "--games", "30", "--format", "json",
                        "--policy", f"{f}:chatty"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["games"] == 30
    # the policy's lines ("777 KIND N") went to stderr, none to the JSON (whose commit and file hashes may hold "777")
    assert "777 " not in r.stdout and r.stderr.count("777 ") >= 30


def test_a_policy_stuck_in_one_decision_is_stopped_by_the_decision_budget(tmp_path):
    """The step budget of user policies: once a policy has started deciding, no answer for
    FOURY_SIM_DECISION_BUDGET_S seconds stops the run with one line naming the policy (exit 2), no Ctrl-C
    needed; a bad budget value is refused in one line."""
    f = tmp_path / "loop.py"
    f.write_text(LOOP_POLICY)
    env = {**os.environ, "FOURY_SIM_DECISION_BUDGET_S": "2"}
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "foury_sim", "run", "foury", "--games", "100", "--policy",
                        f"{f}:loop"], cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
    assert r.returncode == 2, r.stderr
    said = [ln for ln in r.stderr.splitlines() if ln.startswith("foury-sim:")]
    lines = [ln for ln in said if not ln.startswith("foury-sim: compiling ")]  # (the policy's compile is said)
    assert any(f"compiling loop ({f})" in ln for ln in said)
    assert lines == [f"foury-sim: error: --policy: policy '{f}:loop' answered no decision for 2 s (an endless "
                     "loop inside the policy?); the run was stopped (the budget: FOURY_SIM_DECISION_BUDGET_S)"]
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert time.perf_counter() - t0 < 600
    env["FOURY_SIM_DECISION_BUDGET_S"] = "forever"
    r = subprocess.run([sys.executable, "-m", "foury_sim", "run", "foury", "--games", "10", "--policy",
                        f"{f}:loop"], cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
    assert r.returncode == 2 and r.stderr == (
        "foury-sim: error: FOURY_SIM_DECISION_BUDGET_S: must be a number of seconds from 0.1 to 86400, not "
        "'forever'\n"), r.stderr


def test_a_ctrl_c_swallowed_in_a_ctypes_callback_is_seen_and_not_printed(capsys):
    """llvmlite calls back into Python through ctypes while numba compiles; a Ctrl-C landing in such a callback
    raises ``KeyboardInterrupt`` there, which ctypes swallows and prints with a traceback. Around a user policy's
    compile (``userpolicy._SigintWatch``) it is recorded and not printed (the command then stops with its one
    line); outside, Python's own hook prints it again."""
    import ctypes

    from foury_sim.userpolicy import _SigintWatch

    def interrupted():  # the SIGINT arrives while the callback runs: the handler raises inside it
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):
            pass

    callback = ctypes.CFUNCTYPE(None)(interrupted)
    printed: list = []  # what Python's hook would print
    old, hook = signal.signal(signal.SIGINT, signal.default_int_handler), sys.unraisablehook
    sys.unraisablehook = lambda info: printed.append(info.exc_type)
    try:
        recorder = sys.unraisablehook
        with _SigintWatch() as watch:
            callback()
        assert watch.seen and printed == []
        assert sys.unraisablehook is recorder
        callback()
        assert printed == [KeyboardInterrupt]
    finally:
        signal.signal(signal.SIGINT, old)
        sys.unraisablehook = hook
    assert capsys.readouterr().err == ""


def test_a_run_of_2_63_games_starts_in_bounded_memory():
    """``--games 9223372036854775807`` (the most a run takes) grew by about 120 MB a second (a list of 10**14
    chunks made before the first game); the plan is now made as it is read (``chunks.ChunkPlan``). The process's
    peak resident set after its first chunks stays that of a small run."""
    p = start("run", "delve", "--games", "9223372036854775807", "--progress")
    t0 = time.monotonic()
    seen = ""
    while "games (" not in seen and time.monotonic() < t0 + 120:  # the bar's first line: chunks were played
        line = p.stderr.readline()  # (the bar writes a line every 10 s or so when stderr is not a terminal)
        if not line:
            break
        seen += line
    time.sleep(3.0)
    assert p.poll() is None, seen
    status = Path(f"/proc/{p.pid}/status").read_text()
    peak_mb = int(next(x for x in status.splitlines() if x.startswith("VmHWM:")).split()[1]) / 1024
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    assert p.returncode == 130
    assert peak_mb < 400, peak_mb  # (a run of 200,000 games: about 150-200 MB)
