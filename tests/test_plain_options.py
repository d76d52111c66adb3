"""typer's coercion of the options without pydantic for plain values (``foury_sim.plain_options``): the same values
and the same errors as typer's own, on every option of every command."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import typer
from inproc import real_entry

from foury_sim import plain_options
from foury_sim.cli import app

SAMPLES = [None, "", "0", "7", "2000000", "007", "-3", "+4", " 12", "12 ", "12.0", "1_000", "1e3", "abc", "json",
           "0.9", "99999999999999999999", "١٢", 0, 10_000, 0.95, True, False, ("a", "b"), ["x=1"]]


def _commands(group=None, prefix=""):
    from typer.main import get_command

    group = group or get_command(app)
    for name, cmd in sorted(group.commands.items()):
        if hasattr(cmd, "commands"):
            yield from _commands(cmd, f"{prefix}{name} ")
        else:
            yield f"{prefix}{name}", cmd


def _outcome(runtime, value, param, ctx):
    try:
        out = runtime.coerce(value, param=param, ctx=ctx)
        return ("value", type(out).__name__, repr(out))
    except Exception as e:  # (the error typer would report: its type and message)
        return ("error", type(e).__name__, str(e))


def test_installed_on_the_typer_it_was_checked_against():
    installed = plain_options.install()
    if typer.__version__ == "0.29.2" and plain_options.PLAIN:  # the sources recorded in _TYPER_SOURCES
        assert installed == ["plain_options"]


def test_every_option_of_every_command_coerces_as_typers_own():
    """For every option of every command and values of every kind (unset, words, digits, signs, decimals,
    underscores, other digits, defaults, flags, lists), ``PlainRuntimeParam`` gives typer's own answer (value and
    type) or raises typer's own error (type and message)."""
    from typer._click import Context
    from typer._coercion import build_runtime_param

    checked = plain = 0
    for name, cmd in _commands():
        ctx = Context(cmd, info_name=name)
        for param in cmd.params:
            if not hasattr(param, "type_descriptor"):
                continue
            typers = build_runtime_param(param.type_descriptor)
            ours = plain_options.PlainRuntimeParam(param)
            for value in SAMPLES:
                assert _outcome(ours, value, param, ctx) == _outcome(typers, value, param, ctx), (name, param.name,
                                                                                                 value)
                checked += 1
                plain += value is not None and not (param.multiple or param.nargs == -1) and ours.plain(value)
    assert checked > 2000 and plain > 300  # (the plain path is taken: words, digits, defaults)


def test_a_command_coerces_its_options_without_pydantic_and_says_typers_errors():
    """A run's options (a word, digits, the defaults) are coerced without importing pydantic; a value that needs
    typer's own coercion gets it, with typer's message (the same line as under ``FOURY_SIM_TYPER_COERCION=1``)."""
    said = "print('pydantic' in sys.modules, file=sys.stderr, flush=True)"
    ok = real_entry("run", "delve", "--games", "300", "--format", "json", at_exit=said)
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert ok.stderr.strip().splitlines()[-1] == "False"
    bad = ["run", "delve", "--games", "3.5", "--format", "json"]
    runs = [real_entry(*bad, at_exit=said, env=dict(os.environ, FOURY_SIM_TYPER_COERCION=keep)) for keep in ("0", "1")]
    for r in runs:
        assert r.returncode == 2 and r.stderr.strip().splitlines()[-1] == "True"
    assert runs[0].stderr == runs[1].stderr and "--games" in runs[0].stderr


@pytest.mark.parametrize("args", [["--games", "2000"], ["--seed", "0"], ["--conf", "0.9"], ["--hero", "none"],
                                  ["--set", "dragon.threshold=4", "--set", "game.delves=2"]])
def test_a_run_reads_its_options_as_typers_own(args):
    """The options reach the command as typer's own coercion gives them (the run's record of its settings)."""
    import json

    from typer.testing import CliRunner

    env = {"FOURY_SIM_TYPER_COERCION": "1"}
    base = ["run", "delve", "--games", "200", "--format", "json"]
    ours = CliRunner().invoke(app, [*base, *args])
    code = ("import sys\n"
            "from foury_sim.cli import main\n"
            "sys.argv = ['foury-sim', *sys.argv[1:]]\n"
            "main()\n")
    typers = subprocess.run([sys.executable, "-c", code, *base, *args], capture_output=True, text=True,
                            env=dict(os.environ, **env))
    assert ours.exit_code == 0 and typers.returncode == 0, (ours.output, typers.stderr[-2000:])
    a, b = json.loads(ours.stdout), json.loads(typers.stdout)
    for rec in (a, b):
        for k in ("elapsed_s", "games_per_s", "compile_s", "load_s"):
            rec.pop(k, None)
    assert a == b
