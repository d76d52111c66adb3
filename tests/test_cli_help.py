"""Every verb's --help: a help text for every option, no <bool> placeholder beside a switch, defaults shown."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from foury_sim.cli import app


def _commands() -> list[tuple[list[str], Any]]:
    """(words, click command) of every verb and sub-verb (``map render``, ``map check``)."""
    root = typer.main.get_command(app)
    out: list[tuple[list[str], Any]] = []
    todo: list[tuple[list[str], Any]] = [([], root)]
    while todo:
        words, cmd = todo.pop()
        subs = getattr(cmd, "commands", None)
        if subs:
            todo += [([*words, name], sub) for name, sub in subs.items()]
        else:
            out.append((words, cmd))
    return sorted(out, key=lambda wc: wc[0])


COMMANDS = _commands()


def test_the_walk_finds_every_verb_and_the_map_sub_verbs():
    names = {" ".join(w) for w, _ in COMMANDS}
    assert {"run", "replay", "odds", "sweep", "robust", "compare", "report", "assumptions", "games", "columns",
            "map render", "map check"} <= names


@pytest.mark.parametrize("words,cmd", COMMANDS, ids=[" ".join(w) for w, _ in COMMANDS])
def test_every_option_has_help_and_its_default_is_said(words, cmd):
    ctx = cmd.make_context(" ".join(words), ["--help"], resilient_parsing=True)
    for p in cmd.get_params(ctx):
        if p.param_type_name != "option":
            continue
        name = p.opts[-1]
        assert (p.help or "").strip(), f"{' '.join(words)} {name}: no help text"
        shown = p.show_default and p.default is not None and not (p.is_flag and p.default is False
                                                                    and not p.secondary_opts)
        assert shown or "default" in p.help.lower() or name == "--help" or p.is_flag, \
            f"{' '.join(words)} {name}: default neither shown nor said"


@pytest.mark.parametrize("words", [w for w, _ in COMMANDS] + [[], ["map"]],
                         ids=[" ".join(w) for w, _ in COMMANDS] + ["(app)", "map"])
def test_help_shows_no_bool_placeholder(words):
    r = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "<bool>" not in r.output and "<list" not in r.output
    assert "Show this message and exit." in r.output


def test_sweep_help_names_the_quick_look_and_its_defaults():
    r = CliRunner().invoke(app, ["sweep", "--help"], env={"COLUMNS": "200"})
    out = " ".join(r.output.split())
    assert "--games" in out and "--heroes" in out and "--policies" in out
    assert "NAME-quick-" in out and "[default: results]" in out
    assert "a bar appears once the work has taken 2 s" in out


@pytest.mark.parametrize("verb", ["run", "sweep", "compare", "tune"])
def test_the_cluster_extra_is_named_in_the_help(verb):
    """Rich's markup took ``[cluster]`` of ``pip install -e ".[cluster]"`` for a style tag and dropped it: the help
    told a user to install the package without the extra Dask needs."""
    out = CliRunner().invoke(app, [verb, "--help"], env={"COLUMNS": "200", "TERM": "dumb"}).output
    assert 'pip install -e ".[cluster]"' in " ".join(out.replace("│", " ").split())
