"""Start-up: ``foury-sim warm``, the compile notice on stderr with a clean stdout, and two processes sharing one
kernel cache. These tests reuse the engines the suite compiles anyway (Tactics, the cheapest, and Delve's
``simulate``) or a one-line kernel: they add no compile of their own."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

from foury_sim import config


def test_warm_compiles_what_run_replay_and_odds_use_and_says_how_long(monkeypatch, capsys):
    from foury_sim import cli as cli_module
    from foury_sim.games.tactics import kernel as K
    from foury_sim.registry import get_game

    monkeypatch.setattr(sys, "argv", ["foury-sim", "warm", "tactics"])
    cli_module.main()
    out = capsys.readouterr().out.splitlines()
    n = len(get_game("tactics").policies)
    assert len(out) == 1, out
    assert re.fullmatch(rf"tactics: run \({n} policies\) \d+\.\d s, replay \d+\.\d s, odds \d+\.\d s; \d+\.\d s in "
                        r"all \(compiled \d+\.\d s, loaded \d+\.\d s\)", out[0]), out[0]
    assert all(e.compiled for e in K._ENTRIES.values())
    if not config.JIT_DISABLED and not config._USER_CACHE_DIR:
        assert all(e.cached() for e in K._ENTRIES.values())


def test_warm_reports_each_step_and_refuses_an_unknown_game_before_compiling(monkeypatch, capsys):
    from foury_sim import cli as cli_module
    from foury_sim import warm as W

    played: list[str] = []
    monkeypatch.setattr(W, "warm_game", lambda name: played.append(name) or W.WarmReport(name))
    assert [r.game for r in W.warm(["tactics", "tactics"])] == ["tactics"]
    assert played == ["tactics"]
    monkeypatch.setattr(sys, "argv", ["foury-sim", "warm", "tactics", "nogame"])
    with pytest.raises(SystemExit) as e:
        cli_module.main()
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1
    assert err[0].startswith("foury-sim: error: GAME: unknown game 'nogame'")
    assert played == ["tactics"]  # nothing warmed: the names are checked first
    from foury_sim.registry import games

    played.clear()
    assert [r.game for r in W.warm(None)] == games() == played
    r = W.WarmReport("g", [W.WarmStep("run (2 policies)", 61.23, 60.0, 0.0), W.WarmStep("odds", 0.5, 0.0, 0.25)])
    assert r.line() == "g: run (2 policies) 61.2 s, odds 0.5 s; 61.7 s in all (compiled 60.0 s, loaded 0.2 s)"
    # a step that compiled other code (a game's helper called from Python) says so: it read "compiled 0.0 s"
    r.steps.append(W.WarmStep("more", 3.0, 0.0, 0.0, 2.9))
    assert r.line().endswith("64.7 s in all (compiled 60.0 s, loaded 0.2 s; other code compiled 2.9 s)")


def test_the_compile_notice_goes_to_stderr_and_json_stdout_stays_clean(monkeypatch, capsys):
    """``run --format json`` with its engine about to compile (not a terminal: pytest captures both streams):
    the notice is one line on stderr, stdout is the JSON summary and nothing else."""
    from foury_sim import cli as cli_module
    from foury_sim.games.delve import kernel as E

    real = E._ENTRIES["simulate"]
    fresh = config.CompiledOnFirstUse(real.module, real.sig, real.fn, **real.options)
    monkeypatch.setattr(fresh, "cold", lambda: True)  # as after an install: the notice, then (here) a cache load
    monkeypatch.setitem(E._ENTRIES, "simulate", fresh)
    monkeypatch.setattr(config, "NOTICE_SINK", [config._print_notice])
    monkeypatch.setattr(sys, "argv", ["foury-sim", "run", "delve", "--games", "20", "--format", "json"])
    cli_module.main()
    cap = capsys.readouterr()
    assert json.loads(cap.out)["games"] == 20
    assert cap.err.splitlines().count(fresh.notice()) == 1
    assert fresh.notice().startswith("foury-sim: compiling the delve engine")
    assert "compiling" not in cap.out


def test_two_processes_compiling_into_one_cache_at_once_both_work_and_a_third_loads_it(tmp_path):
    """pytest-xdist's test processes (and a cluster's workers on one machine) share a kernel cache: two cold
    compiles of the same entry point at the same time both give the right kernel, and the cache they leave
    loads in a third process without compiling."""
    if config.JIT_DISABLED:
        pytest.fail("this test needs numba's JIT")
    (tmp_path / "tripmod.py").write_text("def triple(x):\n    return 3 * x\n")
    code = textwrap.dedent("""
        import os, sys, time
        sys.path.insert(0, os.path.dirname(__file__))
        from foury_sim import config
        from tripmod import triple
        e = config.CompiledOnFirstUse("foury_sim.games.delve.kernel", "int64(int64)", triple)
        cold = e.cold()
        here = os.path.dirname(__file__)
        open(os.path.join(here, "ready-" + sys.argv[1]), "w").close()
        t = time.time()  # the two compiles start together: each waits for the other to be ready
        while sys.argv[2:] and not all(os.path.exists(os.path.join(here, "ready-" + k)) for k in sys.argv[2:]):
            assert time.time() - t < 300, "the other process never started"
            time.sleep(0.01)
        print(int(e()(int(sys.argv[1]))), cold, config.FIRST_USE["compile_s"] > 0)
    """)
    script = tmp_path / "triple.py"
    script.write_text(code)
    env = {**__import__("os").environ, "FOURY_SIM_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    procs = [subprocess.Popen([sys.executable, str(script), str(k), "5", "7"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for k in (5, 7)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1] for o in outs]
    got = [o[0].split() for o in outs]
    assert [g[:2] for g in got] == [["15", "True"], ["21", "True"]]  # both announced a compile
    assert "True" in (got[0][2], got[1][2])  # at least one compiled; the other may load what the first wrote
    third = subprocess.run([sys.executable, str(script), "11"], env=env, capture_output=True, text=True, timeout=600)
    assert third.returncode == 0, third.stderr
    assert third.stdout.split() == ["33", "False", "False"]
    assert third.stderr == ""


def test_the_suite_warm_up_starts_the_longest_compile_first_and_knows_every_game():
    """``tests/conftest.py`` hands the games to its N slots longest first by the seconds last measured
    (``tests/data/warm_seconds.toml``); a game missing there counts as the longest. Every registered game is
    listed (a new game gets a measured figure, not a guess)."""
    import tomllib

    import conftest

    from foury_sim.registry import games

    secs = tomllib.loads(conftest.WARM_SECONDS.read_text())
    assert set(secs) == set(games()) and all(isinstance(v, int | float) and v > 0 for v in secs.values())
    order = conftest.warm_order(games(), secs)
    assert sorted(order) == sorted(games()) and [secs[g] for g in order] == sorted(secs.values(), reverse=True)
    assert conftest.warm_order(["a", "b", "c", "d"], {"a": 10, "b": 50, "d": 30}) == ["c", "b", "d", "a"]
    assert conftest.warm_order(["a", "b"], {"a": 5, "b": 5}) == ["a", "b"]  # ties: registry order


def test_ci_runs_the_readme_test_command_as_written():
    """``.ci/run`` (what the CI and the suite-time figure measure) runs the README's quick-start test command,
    word for word, and the Development block shows the same command."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    ci = [ln for ln in (root / ".ci" / "run").read_text().splitlines() if ln.startswith("python -m pytest")]
    readme = (root / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    shown = [ln for ln in quick.splitlines() if ln.startswith("python -m pytest")]
    dev = readme.split("## Development", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    dev_cmd = [ln.split("#")[0].strip() for ln in dev.splitlines() if ln.startswith("python -m pytest -q -n")]
    assert len(ci) == 1 and shown == ci and dev_cmd == ci, (ci, shown, dev_cmd)


def test_a_command_about_one_game_imports_that_game_alone():
    """``get_game("delve")`` imports Delve's package and not the three others (their engines' modules are start-up
    time of every Delve command: issue 17, Delve end to end); ``games()`` still lists every shipped game."""
    import subprocess
    import sys

    code = ("import sys; from foury_sim.registry import get_game, games;"
            "get_game('delve'); print(sorted(m for m in sys.modules if m.count('.') == 2"
            " and m.startswith('foury_sim.games.'))); print(games())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "['foury_sim.games.delve']"
    assert out[1] == "['delve', 'foury', 'rooms', 'tactics']"


def test_dungeon_foury_compiles_a_driver_only_when_its_games_are_played_and_warm_compiles_them_all():
    """Dungeon Foury's solo game has entry points of its own, apart from the 2-player mode's and the search
    policy's (``kernel.driver``): a first solo run (or replay) compiles neither driver (issue 17: compiling a
    game's entry points only when used), the other modes reach theirs, and ``warm_game("foury")`` leaves all four
    compiled and in the cache. In a fresh process, on the suite's warm cache (loads, not compiles)."""
    if config.JIT_DISABLED:
        pytest.fail("this test needs numba's JIT")
    code = textwrap.dedent("""
        from foury_sim import config, warm
        from foury_sim.games import foury
        from foury_sim.games.foury import kernel as K
        from foury_sim.policy import make_policy
        def used():
            return sorted(n for n, e in K._ENTRIES.items() if e.compiled)
        solo = foury.load_ruleset(None, None)
        two = foury.load_ruleset(None, ["two_player.players=2"])
        greedy = make_policy("greedy", foury.POLICIES)
        search = make_policy("search", foury.POLICIES, "rollouts=1,kinds=2")
        foury.simulate(solo, "free", greedy, 1, 0, 3)
        print(used())
        foury.play_one(solo, "free", greedy, 1, 0)
        print(used())
        foury.simulate(two, "free", greedy, 1, 0, 3)
        print(used())
        foury.simulate(solo, "free", search, 1, 0, 1)
        foury.play_one(solo, "free", search, 1, 0)
        print(used())
        warm.warm_game("foury")
        print(used())
        print(all(e.cached() for e in K._ENTRIES.values()) or config._USER_CACHE_DIR)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "['simulate']"
    assert lines[1] == "['play_one', 'simulate']"
    assert lines[2] == "['play_one', 'simulate', 'simulate_p2_search']"
    assert lines[3] == "['play_one', 'play_one_p2_search', 'simulate', 'simulate_p2_search']"
    assert lines[4] == lines[3]
    assert lines[5] == "True"


def test_dungeon_foury_picks_the_entry_point_of_its_driver():
    """``kernel.driver``: the solo game's entry points unless the 2-player mode (``two_player.players = 2``) or
    the search policy plays."""
    import numpy as np

    from foury_sim.games.foury import kernel as K
    from foury_sim.games.foury.layout import R_P2_PLAYERS
    from foury_sim.games.foury.policies import POL_SEARCH, POLICIES
    from foury_sim.policy import USER_POLICY_ID

    R = np.zeros(R_P2_PLAYERS + 1, np.int64)
    for players, pid, suffix in ((1, POLICIES["greedy"].policy_id, ""), (1, POL_SEARCH, "_p2_search"),
                                 (2, POLICIES["greedy"].policy_id, "_p2_search"), (1, USER_POLICY_ID, "")):
        R[R_P2_PLAYERS] = players
        assert K.driver(R, pid) == suffix
        assert "simulate" + suffix in K._ENTRIES and "play_one" + suffix in K._ENTRIES


def test_the_compile_notice_names_the_part_of_the_engine_an_entry_point_is():
    """An entry point that is only a part of a game's engine (Dungeon Foury's 2-player and search drivers) says so
    in its compile notice; the others name the engine."""
    from foury_sim.games.foury import kernel as K

    assert K._ENTRIES["simulate"].notice().startswith("foury-sim: compiling the foury engine (")
    for name in ("simulate_p2_search", "play_one_p2_search"):
        assert K._ENTRIES[name].notice().startswith(
            "foury-sim: compiling the foury engine's 2-player and search drivers ("), name
