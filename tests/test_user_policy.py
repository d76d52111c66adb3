"""What a user policy may and may not do (README "Policies"): its file is checked when it loads (one line
naming the file, and the line where it can), its parameters are declared and checked, its faults while
playing are refused in one line naming the policy, and built-in parameters have documented ranges."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from inproc import cli  # foury-sim ARGS in this process (tests/inproc.py)

from foury_sim import registry, runner
from foury_sim.errors import InputError
from foury_sim.games import delve as D
from foury_sim.games.foury.policies import POLICIES as FOURY_POLICIES
from foury_sim.policy import make_policy, parse_params

HEAD = "import numpy as np\nfrom numba import njit\n"


def _file(tmp_path, src: str, name: str = "pol.py") -> str:
    p = tmp_path / name
    p.write_text(HEAD + textwrap.dedent(src))
    return str(p)


def _refused(spec: str, params: str | None = None) -> InputError:
    with pytest.raises(InputError) as e:
        make_policy(spec, D.POLICIES, params)
    assert "\n" not in str(e.value)
    return e.value


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("return 1.7", "must return an integer option index, not float64"),
        ("return True", "must return an integer option index, not "),
        ("return None", "returns no option index: every path through it raises, loops for ever, returns None"),
        ("raise ValueError('boom')", "returns no option index"),  # (was "must return an integer ..., not none")
        ("while True:\n        pass", "returns no option index"),
        ("return (1, 2)", "must return an integer option index, not "),
        ("return np.random.randint(0, n_options)", "uses a global random generator"),
    ],
)
def test_a_policy_that_does_not_return_an_integer_or_draws_global_dice_is_refused_at_load(tmp_path, body, message):
    path = _file(tmp_path, f"def f(kind, state, options, n_options, params):\n    {body}\n")
    e = _refused(f"{path}:f")
    assert message in e.message and e.where == f"{path}:3"


def test_wrong_arguments_uncompilable_and_import_faults_are_one_line_naming_the_file(tmp_path):
    path = _file(tmp_path, "def f(kind, state):\n    return 0\n")
    assert "must take 5 arguments" in _refused(f"{path}:f").message
    path = _file(tmp_path, "import os\ndef f(kind, state, options, n_options, params):\n    return len(os.getcwd())\n",
                 "os.py")
    e = _refused(f"{path}:f")
    assert "does not compile with numba" in e.message and e.where.startswith(path)
    path = _file(tmp_path, "x = 1\nraise RuntimeError('boom')\n", "raises.py")
    e = _refused(f"{path}:f")
    assert e.message == "policy file failed to import: RuntimeError: boom" and e.where == f"{path}:4"
    path = _file(tmp_path, "import sys\nsys.exit(3)\n", "exits.py")
    assert "SystemExit" in _refused(f"{path}:f").message


OK_F = "def f(kind, state, options, n_options, params):\n    return 0\n"


@pytest.mark.parametrize(("src", "line", "message"), [
    ("x = 1\nPOLICY_PARAMS = [1, 2]\n" + OK_F, 4,
     "POLICY_PARAMS must be a dict of parameter names to default numbers"),
    ('POLICY_PARAMS = {\n    "a": 1.0,\n    "b": float("nan"),\n}\n' + OK_F, 5,
     "POLICY_PARAMS['b'] = nan is not a finite number"),
    ('POLICY_PARAMS = {\n    "a": 1.0,\n    "a b": 2.0,\n}\n' + OK_F, 5,
     "POLICY_PARAMS must be a dict of parameter names to default numbers: 'a b' is not a parameter name"),
    ('if True:\n    POLICY_PARAMS = {"a": True}\n' + OK_F, 4, "POLICY_PARAMS['a'] = True is not a finite number"),
    ('POLICY_TRAITS = (\n    "needs_odds",\n    "telepathy",\n)\n' + OK_F, 5,
     "unknown policy trait 'telepathy' (known: needs_odds, needs_dp, full_menu, slow)"),
    ("x = 1\nPOLICY_TRAITS = 3\n" + OK_F, 4, "policy traits must be a list of names (known: needs_odds, needs_dp, "
     "full_menu, slow)"),
    ("x = 1\nf = 3\n", 4, "'f' is not a function"),
    ("x = 1\nclass f:\n    pass\n", 4, "'f' is not a function"),
    ("def f(kind, state, options, n_options, params):\n    y = 1\n    return undefined_thing + y\n", 5,
     "policy 'f' does not compile with numba: NameError: name 'undefined_thing' is not defined"),
])
def test_a_fault_of_a_policy_file_names_its_line(tmp_path, capsys, src, line, message):
    """A policy file's faults name the line they stand on: POLICY_PARAMS and POLICY_TRAITS (the key or element at
    fault when written out), a name that is no function, a global numba cannot find (its error names no line) were
    refused at the file alone; POLICY_TRAITS at ``FILE:FUNCTION``, as if the function's name were a line. The
    declarations are checked before the policy compiles (seconds)."""
    path = _file(tmp_path, src)
    e = _refused(f"{path}:f")
    assert (e.where, e.message) == (f"{path}:{line}", message)
    if "POLICY_" in src:
        assert "compiling" not in capsys.readouterr().err


def test_a_print_at_import_goes_to_stderr(tmp_path, capsys):
    path = _file(tmp_path, "print('hello')\ndef f(kind, state, options, n_options, params):\n    return 0\n")
    make_policy(f"{path}:f", D.POLICIES)
    out = capsys.readouterr()
    assert out.out == "" and "hello" in out.err


def test_declared_parameters_are_checked_defaulted_and_bounded(tmp_path):
    path = _file(tmp_path, """
        POLICY_PARAMS = {"foe_avoid": 1.0, "depth": 3}
        def f(kind, state, options, n_options, params):
            return 0 if params[1] >= 0 else 1
        def greedy_reader(kind, state, options, n_options, params):
            return 0 if params[2] >= 0 else 1
        """)
    pol = make_policy(f"{path}:f", D.POLICIES, "depth=5")
    assert pol.param_names == ("foe_avoid", "depth") and list(pol.params) == [1.0, 5.0]
    assert "unknown policy parameter 'bogus' (known: foe_avoid, depth)" in _refused(f"{path}:f", "bogus=1").message
    for bad in ("nan", "inf", "-inf"):
        e = _refused(f"{path}:f", f"foe_avoid={bad}")
        assert e.where == "--param" and "is not a finite number" in e.message
    with pytest.raises(InputError) as e:
        runner.run("delve", policy=f"{path}:greedy_reader", games=20, progress=False)
    assert e.value.where == "--policy" and "read past its parameters (its POLICY_PARAMS declares only 2: " \
        "foe_avoid, depth)" in e.value.message and "first at decision kind" in e.value.message


def test_an_undeclared_file_gets_exactly_the_params_given_and_a_read_past_them_is_an_error(tmp_path):
    path = _file(tmp_path, "def f(kind, state, options, n_options, params):\n    return 0 if params[0] >= 0 else 1\n")
    assert runner.run("delve", policy=f"{path}:f", params="x=1", games=20, progress=False).summary["games"] == 20
    with pytest.raises(InputError, match=r"read past its parameters \(its --param gives only 0: none\)"):
        runner.run("delve", policy=f"{path}:f", games=20, progress=False)
    assert "is not a finite number" in _refused(f"{path}:f", "x=nan").message


@pytest.mark.parametrize("params, message", [
    ("1,2", "policy parameter '1' is not NAME=NUMBER"),
    ("x=1,y", "policy parameter 'y' is not NAME=NUMBER"),
    ("x=abc", "policy parameter x='abc' is not a number"),
    ("x=inf", "policy parameter x=inf is not a finite number"),
])
def test_a_user_policys_param_syntax_is_refused_before_its_file_is_compiled(tmp_path, monkeypatch, params, message):
    """``--param 1,2`` with a user policy compiled the file (seconds) before saying it is not NAME=NUMBER."""
    from foury_sim import userpolicy

    path = _file(tmp_path, "def f(kind, state, options, n_options, params):\n    return 0\n")

    def compiled(spec):
        raise AssertionError("the policy file was compiled before its --param was checked")

    monkeypatch.setattr(userpolicy, "load_user_policy", compiled)
    e = _refused(f"{path}:f", params)
    assert (e.where, e.message) == ("--param", message)


def test_writes_never_reach_the_game_and_reads_outside_are_refused(tmp_path):
    path = _file(tmp_path, """
        def honest(kind, state, options, n_options, params):
            return 0
        def cheat(kind, state, options, n_options, params):
            for i in range(state.shape[0]):
                state[i] = 10**9
            options[0, 0] = -1
            return 0
        def peek(kind, state, options, n_options, params):
            return 0 if state[10**9] == 0 else 0
        @njit
        def helper(state):
            return state[state.shape[0] + 3]
        def via_helper(kind, state, options, n_options, params):
            return 0 if helper(state) == 0 else 0
        """)
    honest = runner.run("delve", policy=f"{path}:honest", games=200, progress=False)
    cheat = runner.run("delve", policy=f"{path}:cheat", games=200, progress=False)
    assert cheat.df.equals(honest.df)
    for name in ("peek", "via_helper"):
        with pytest.raises(InputError) as e:
            runner.run("delve", policy=f"{path}:{name}", games=20, progress=False)
        assert e.value.where == "--policy" and name in e.value.message
        assert "indexed" in e.value.message and "first at decision kind" in e.value.message


def test_builtin_parameters_have_ranges_and_must_be_finite():
    with pytest.raises(InputError, match="outside its range 0 .. 1e\\+06") as e:
        make_policy("greedy", FOURY_POLICIES, "patience=-1")
    assert e.value.where == "--param"
    with pytest.raises(InputError, match="not a finite number"):
        make_policy("risk", D.POLICIES, "margin=nan")
    with pytest.raises(InputError, match="outside its range"):
        make_policy("threshold", D.POLICIES, "min_companions=-2")
    assert parse_params("a=1e300", {"a": 0.0}) == {"a": 1e300}


@pytest.mark.parametrize("game", registry.games())
def test_every_builtin_parameter_of_every_game_has_a_range_holding_its_default(game):
    from foury_sim.games.tactics import DM_POLICIES

    spec = registry.get_game(game)
    for b in [*spec.policies.values(), *(DM_POLICIES.values() if game == "tactics" else ())]:
        assert set(b.ranges) == set(b.params), b.name
        assert all(lo <= b.params[k] <= hi for k, (lo, hi) in b.ranges.items()), b.name


def test_tactics_gamble_is_a_switch_from_0_to_1():
    from foury_sim.games.tactics import POLICIES as TACTICS_POLICIES

    with pytest.raises(InputError) as e:
        make_policy("thorough", TACTICS_POLICIES, "gamble=2")
    assert (e.value.where, e.value.message) == ("--param", "policy parameter gamble=2 is outside its range 0 .. 1")
    assert make_policy("thorough", TACTICS_POLICIES, "gamble=1").params[3] == 1.0


@pytest.mark.parametrize("game", registry.games())
def test_every_declared_switch_is_a_builtin_parameter_from_0_to_1_whose_default_is_0_or_1(game):
    from foury_sim.games.tactics import DM_FLAGS, DM_POLICIES

    spec = registry.get_game(game)
    for flags, policies in ((spec.flags, spec.policies), *(((DM_FLAGS, DM_POLICIES),) if game == "tactics" else ())):
        for name in flags:
            having = [b for b in policies.values() if name in b.params]
            assert having and all(b.ranges[name] == (0.0, 1.0) and b.params[name] in (0.0, 1.0) for b in having)
    assert (spec.flags != frozenset()) == (game != "delve")


def test_a_switch_takes_0_or_1_wherever_its_value_is_given(tmp_path):
    """A built-in policy's on/off parameter (``GameSpec.flags``) took 0.5, which its range 0 .. 1 let through, and
    played it as 0 (Dungeon Foury: ``>= 1`` is on) or as 1 (Rooms, Tactics: ``> 0``) in silence. Refused in one line
    naming the parameter and where the value came from, before any game; a tuning that would play the values
    between 0 and 1 is refused before it starts."""
    sweep = tmp_path / "sw.toml"
    sweep.write_text('name = "flags"\ngame = "foury"\ngames = 100\n\n[sweep]\n"param.goal_home" = [0, 0.5]\n')
    ladder = tmp_path / "lad.toml"
    ladder.write_text('name = "lad"\ngame = "foury"\ngames = 100\nheroes = ["kael"]\n[tune]\nseed = 1001\n'
                      '[[rung]]\nlabel = "greedy"\npolicy = "greedy"\n[[rung]]\nlabel = "tuned greedy"\n'
                      'policy = "greedy"\ntuned = true\nranges = { foe_avoid = [0.0, 6.0], goal_home = [0, 1] }\n')
    switch = "policy parameter {}=0.5 is a switch: 0 (off) or 1 (on)"
    cases = [
        (["run", "foury", "--param", "goal_home=0.5"], f"--param: {switch.format('goal_home')}"),
        (["run", "foury", "--policy", "kraken", "--param", "swim_finish=0.5"],
         f"--param: {switch.format('swim_finish')}"),
        (["run", "rooms", "--param", "mirror_boss=0.5"], f"--param: {switch.format('mirror_boss')}"),
        (["run", "tactics", "--param", "hunt=0.5"], f"--param: {switch.format('hunt')}"),
        (["run", "tactics", "--dm", "ruthless", "--dm-param", "focus=0.5"], f"--dm-param: {switch.format('focus')}"),
        (["compare", "foury", "--a", "param.goal_home=0.5", "--b", "param.goal_home=1"],
         f"--a: {switch.format('goal_home')}"),
        (["sweep", str(sweep), "--out", str(tmp_path)], f"{sweep}:6: {switch.format('goal_home')} (cell 1: "
                                                          "goal_home=0.5)"),
        (["ladder", str(ladder), "--out", str(tmp_path)], f"{ladder}:10: rung 'tuned greedy': range of goal_home "
                                                            "[0, 1]: the tuning plays the values between its ends, and "
                                                            f"{switch.format('goal_home')}"),
        (["tune", "foury", "--param", "param.goal_home", "--target", "win=0.3", "--tolerance", "0.02", "--range",
          "0,1", "--continuous"], "--range: the search plays the values between 0 and 1, and param.goal_home = 0.5 is "
          f"refused: --param: {switch.format('goal_home')}"),
    ]
    for args, said in cases:
        r = cli(*args, "--games", "10") if args[0] in ("run", "compare") else cli(*args)
        assert (r.returncode, r.stderr) == (2, f"foury-sim: error: {said}\n"), args
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lad.toml", "sw.toml"]  # (nothing played, nothing written)
    pol = registry.get_game("foury").policy("greedy", "goal_home=1,swim_finish=0.0")
    assert (pol.params[pol.param_names.index("goal_home")], pol.params[pol.param_names.index("swim_finish")]) == (1, 0)


def test_an_empty_policy_name_is_refused():
    e = _refused("")
    assert e.where == "--policy" and e.message == "policy name is empty"


def test_a_valid_user_policy_plays_the_same_games_as_before(tmp_path):
    """brave.py (delegating to greedy) plays the games it always did: the guard changes nothing for it."""
    res = runner.run("foury", policy="experiments/policies/brave.py:brave", games=300, seed=4, progress=False)
    assert len(res.df) == 300 and np.isfinite(res.summary["win"]["rate"])


def _interrupted_compile(monkeypatch, target: str, fail: bool) -> list[str]:
    """Make the compile of the user function named ``target`` meet a Ctrl-C as the suite once saw it (no timing:
    the SIGINT is raised, not sent): it lands in one of llvmlite's ctypes callbacks, where the
    ``KeyboardInterrupt`` is printed ("Exception ignored on calling ctypes callback function") and swallowed;
    then numba fails for it (``fail``: "no compiled object yet", as it did) or, as may also happen, goes on
    and compiles. Returns a list that records each interrupted compile."""
    import ctypes
    import signal

    from numba.core.dispatcher import Dispatcher

    real = Dispatcher.compile
    seen: list[str] = []

    def compile_(self, sig):
        if self.py_func.__name__ == target and not seen:
            seen.append(target)
            ctypes.CFUNCTYPE(None)(lambda: signal.raise_signal(signal.SIGINT))()  # a swallowed Ctrl-C
            if fail:
                raise RuntimeError("no compiled object yet for <Library 'user_policy' at 0x7f00>")
        return real(self, sig)

    monkeypatch.setattr(Dispatcher, "compile", compile_)
    return seen


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the swallowed interrupt, on purpose
@pytest.mark.parametrize("fail", [True, False], ids=["compile-failed", "compile-went-on"])
def test_a_ctrl_c_swallowed_while_the_policy_compiles_is_an_interruption_not_a_bad_policy(tmp_path, monkeypatch,
                                                                                          fail):
    """The flake of ``test_interrupt.py::test_ctrl_c_in_a_long_run_exits_130_with_one_line``: a Ctrl-C during a
    user policy's compile was swallowed by llvmlite, numba failed, and the loader said "does not compile with
    numba" (exit 2). A SIGINT received during the compile is a Ctrl-C: ``KeyboardInterrupt`` (the CLI: exit 130
    and its one line), whether numba then failed or not; the same file loads normally afterwards."""
    path = _file(tmp_path, "def interruptible(kind, state, options, n_options, params):\n    return 0\n")
    seen = _interrupted_compile(monkeypatch, "interruptible", fail)
    with pytest.raises(KeyboardInterrupt):
        make_policy(f"{path}:interruptible", D.POLICIES)
    assert seen == ["interruptible"]
    import signal

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the watch put the handler back
    assert make_policy(f"{path}:interruptible", D.POLICIES).fn is not None  # not interrupted: it loads


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_run_whose_policy_compile_is_interrupted_exits_130_with_the_interrupted_line(tmp_path, monkeypatch):
    from inproc import cli

    path = _file(tmp_path, "def interruptible(kind, state, options, n_options, params):\n    return 0\n")
    _interrupted_compile(monkeypatch, "interruptible", True)
    r = cli("run", "delve", "--games", "10", "--policy", f"{path}:interruptible")
    assert r.returncode == 130, r.stderr
    assert r.stderr.strip().splitlines()[-1] == (
        f"foury-sim: interrupted: nothing was kept; re-run the same command: foury-sim run delve --games 10 "
        f"--policy {path}:interruptible"), r.stderr
    assert "does not compile" not in r.stderr and "Traceback" not in r.stderr and r.stdout == ""
