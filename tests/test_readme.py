"""The README cannot drift from the program.

Every command README.md (and notebooks/README.md) tells a user to run is read from the file at test time
and run here as written (in this test process, through `tests/inproc.py`: a new interpreter would import
numpy, pandas, numba and the game modules and load the engines for every command; the quick start's
`foury-sim run foury` alone runs as a real process, the way a newcomer types it), each in its own temporary
working folder (holding a copy of `experiments/`, an
empty `results/` as in a fresh clone, and a copy of every repository path the command names), with only
size reductions (`--games`, `--trials`, `--points`: replaced, or inserted after the verb's first
argument). Each must exit 0 within the timeout and write the files it promises. Shell lines that are not
`foury-sim` commands (installing, the test suite, lint, developer tools, Jupyter) must be ones this file
knows and says why it does not run; any other line fails the test, so a new kind of instruction in the
README gets looked at.

Also: every environment variable the program (and its notebooks, tests and tools) reads is in the
README's "Environment" table, and every verb of the CLI appears in "What you can ask".
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "notebooks/README.md")
#: Per command, against a hang: a cold compile takes minutes (over 10 on a busy 2-core machine); warm, seconds.
TIMEOUT_S = 1200

#: Commands run as a real process (the console entry point, as a newcomer types it); the others run in-process.
REAL_PROCESS = {("run", "foury")}

#: Size reductions: option -> value, per verb. Nothing else about a command is changed.
SMALLER = {
    "run": {"--games": "1000"},
    "compare": {"--games": "300"},
    "odds": {"--trials": "2000"},
    "sweep": {"--games": "200"},
    "robust": {"--games": "100", "--points": "2"},
    "ladder": {"--games": "300"},
}

#: Shell lines the README shows that are not foury-sim commands, and why this test does not run them.
NOT_RUN = {
    "pip install": "installs the package; this test runs the tree in place",
    "python -m pytest": "the test suite itself",
    "ruff check": "lint; run before every commit",
    "python tools/": "developer tools with their own tests (test_game_hashes, test_mutation_check)",
    "jupyter": "Jupyter; tests/test_notebooks.py runs the notebooks and checks jupyter-execute is installed",
    "cd notebooks": "changes folder for `jupyter lab` (interactive)",
}


@dataclass(frozen=True)
class Command:
    doc: str
    line: int
    text: str  # the command as written (comment removed)
    argv: tuple[str, ...]  # from `foury-sim` on

    @property
    def verb(self) -> str:
        return self.argv[1] if len(self.argv) > 1 else ""

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}: {self.text}"


def shell_blocks(text: str) -> list[tuple[int, list[tuple[int, str]]]]:
    """The fenced ```bash / ```sh / ```shell / ```console blocks: (line of the fence, [(line number, line)])."""
    blocks, current, start = [], None, 0
    for i, line in enumerate(text.splitlines(), 1):
        fence = re.match(r"\s*```(\w*)\s*$", line)
        if fence and current is None:
            if fence.group(1) in ("bash", "sh", "shell", "console"):
                current, start = [], i
            else:
                current, start = False, i  # another language: skip to its end
        elif fence:
            if current:
                blocks.append((start, current))
            current = None
        elif current is not None and current is not False:
            current.append((i, line))
    return blocks


def section(text: str, title: str) -> str:
    """The text of the `## title` section (up to the next heading of level 2)."""
    m = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"README.md has no '## {title}' section"
    return m.group(1)


def split_line(line: str) -> list[tuple[str, list[str]]]:
    """One shell line -> its commands (split on `&&`), each as (text, argv); comments removed."""
    words = shlex.split(line, comments=True)
    out, cur = [], []
    for w in [*words, "&&"]:
        if w == "&&":
            if cur:
                out.append((shlex.join(cur), cur))
            cur = []
        else:
            cur.append(w)
    return out


def commands(doc: str, blocks=None) -> tuple[list[Command], list[str]]:
    """The foury-sim commands of a document's shell blocks, and the lines this test does not know."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    found, unknown = [], []
    for _, block in blocks if blocks is not None else shell_blocks(text):
        for number, line in block:
            for cmd_text, argv in split_line(line):
                if argv[0] == "foury-sim":
                    found.append(Command(doc, number, cmd_text, tuple(argv)))
                    continue
                plain = " ".join(w for w in argv if not re.match(r"^[A-Z_][A-Z0-9_]*=", w))  # VAR=1 prefixes
                if not any(plain.startswith(prefix) for prefix in NOT_RUN):
                    unknown.append(f"{doc}:{number}: {cmd_text}")
    return found, unknown


def what_you_can_ask() -> list[Command]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = section(text, "What you can ask")
    offset = text[: text.index(body)].count("\n")
    blocks = [(s + offset, [(n + offset, ln) for n, ln in b]) for s, b in shell_blocks(body)]
    return commands("README.md", blocks[:1])[0]


def all_commands() -> list[Command]:
    """Every command of the documents, a command written twice (the same words after the size reductions, e.g.
    a sweep both READMEs show) once: the first place it is written (test time: each run is seconds)."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for c in (c for doc in DOCS for c in commands(doc)[0]):
        key = tuple(smaller(c.argv))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def test_a_command_written_twice_runs_once():
    every = [c for doc in DOCS for c in commands(doc)[0]]
    run = all_commands()
    assert {tuple(smaller(c.argv)) for c in every} == {tuple(smaller(c.argv)) for c in run}
    assert len(run) == len({tuple(smaller(c.argv)) for c in run}) < len(every)


def smaller(argv: tuple[str, ...]) -> list[str]:
    """The command with only its size reduced: an option already given is replaced, a missing one inserted
    after the verb's first argument (the game or the file), ahead of any game-specific option."""
    args = list(argv[1:])
    verb = args[0] if args else ""
    insert_at = 2 if len(args) > 1 and not args[1].startswith("-") else 1
    missing = []
    for opt, value in SMALLER.get(verb, {}).items():
        if opt in args:
            args[args.index(opt) + 1] = value
        else:
            missing += [opt, value]
    args[insert_at:insert_at] = missing
    return args


def workspace(tmp: Path, argv: tuple[str, ...]) -> Path:
    """A working folder as a fresh clone has it for this command: `experiments/`, an empty `results/`, and a
    copy of every other repository path the command names (e.g. the saved study `report` rebuilds)."""
    shutil.copytree(ROOT / "experiments", tmp / "experiments", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp / "results").mkdir()
    for word in argv[1:]:
        for part in word.split(":")[:1]:  # a policy is FILE:FUNCTION
            if not part or part.startswith("-") or Path(part).is_absolute() or ".." in Path(part).parts:
                continue
            src, dst = ROOT / part, tmp / part
            if src.exists() and not dst.exists() and part not in (".", "results", "experiments"):
                if src.is_dir():
                    shutil.copytree(src, dst)
                else:
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src, dst)
    return tmp


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """`foury-sim ARGS` from this tree (the installed script may point at another checkout)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    env.pop("MPLBACKEND", None)
    return subprocess.run([sys.executable, "-m", "foury_sim", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)


def option(args: list[str], *names: str) -> str | None:
    for i, a in enumerate(args):
        if a in names and i + 1 < len(args):
            return args[i + 1]
    return None


def studies(results: Path) -> list[Path]:
    return sorted(p.parent for p in results.glob("*/manifest.json"))


# ---------------------------------------------------------------------------------------------------------


def test_readme_shell_lines_are_all_known():
    """Every shell line of the READMEs is a foury-sim command (run below) or one of NOT_RUN."""
    unknown = [u for doc in DOCS for u in commands(doc)[1]]
    assert unknown == [], "README shell lines this test neither runs nor knows (add them to NOT_RUN, or fix):\n" + \
        "\n".join(unknown)


def test_what_you_can_ask_names_every_verb():
    """The "What you can ask" block shows every verb of the CLI (a new verb gets a line there)."""
    import typer.main

    from foury_sim.cli import app

    group = typer.main.get_command(app)
    verbs = set(group.commands)
    shown = {c.verb for c in what_you_can_ask()}
    assert len(what_you_can_ask()) >= len(verbs)
    assert verbs - shown == set(), f"verbs missing from README 'What you can ask': {sorted(verbs - shown)}"
    assert shown - verbs == set(), f"README 'What you can ask' shows verbs the CLI lacks: {sorted(shown - verbs)}"


def test_the_quick_start_still_runs_as_a_real_process():
    """The README's commands run in-process, but the quick start's is still among them as a real process."""
    assert {tuple(c.argv[1:]) for c in all_commands()} >= REAL_PROCESS


def test_smaller_only_changes_sizes():
    assert smaller(("foury-sim", "run", "foury", "--games", "100000", "--seed", "7")) == \
        ["run", "foury", "--games", "1000", "--seed", "7"]
    assert smaller(("foury-sim", "odds", "foury", "--hearts", "3")) == \
        ["odds", "foury", "--trials", "2000", "--hearts", "3"]
    assert smaller(("foury-sim", "sweep", "experiments/x.toml")) == ["sweep", "experiments/x.toml", "--games", "200"]
    assert smaller(("foury-sim", "robust", "r.toml")) == ["robust", "r.toml", "--games", "100", "--points", "2"]
    assert smaller(("foury-sim", "map", "render", "base", "-o", "m.png")) == ["map", "render", "base", "-o", "m.png"]
    assert smaller(("foury-sim", "games")) == ["games"]


@pytest.mark.parametrize("cmd", all_commands(), ids=str)
def test_readme_command_runs(cmd: Command, tmp_path: Path):
    """The command runs as written (sizes reduced), exits 0 and writes what the README promises."""
    args = smaller(cmd.argv)
    work = workspace(tmp_path, cmd.argv)
    verb = args[0]
    rebuilt = None
    if verb == "report":  # it must rebuild these: remove them from the copy first
        rebuilt = work / args[1]
        for name in ("report.html", "report.md"):
            (rebuilt / name).unlink(missing_ok=True)
        shutil.rmtree(rebuilt / "figures", ignore_errors=True)
    before = set(studies(work / "results"))

    if tuple(cmd.argv[1:]) in REAL_PROCESS:
        r = run_cli(args, work)
    else:
        from inproc import cli

        r = cli(*args, cwd=work)
    assert r.returncode == 0, f"{cmd}\n-> foury-sim {shlex.join(args)} exited {r.returncode}\n{r.stderr[-3000:]}"
    assert r.stdout.strip() or verb in ("sweep", "robust", "report") or (verb == "map" and args[1] == "render"), \
        f"{cmd}: printed nothing"

    if option(args, "--format") == "json":
        json.loads(r.stdout)
    out = option(args, "--out", "-o")
    if verb in ("run", "compare") and out:
        expected = {"run": ("games.parquet", "games.csv", "summary.json"), "compare": ("comparison.json",)}[verb]
        for name in expected:
            path = work / out / name
            if name == "games.parquet":  # a folder of parts, written as the games are played (one table to read)
                assert len(pd.read_parquet(path)) == int(option(args, "--games") or 10_000), f"{cmd}: {path} rows"
            else:
                assert path.is_file(), f"{cmd}: {out}/{name} not written"
        if verb == "run":
            json.loads((work / out / "summary.json").read_text())
    if verb == "map" and args[1] == "render":
        png = work / (out or "")
        assert out and png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{cmd}: no PNG at {out}"
    if verb == "map" and args[1] == "check":
        assert "rooms" in r.stdout.lower() or "ok" in r.stdout.lower(), r.stdout
    if verb in ("sweep", "robust"):
        new = [s for s in studies(work / "results") if s not in before]
        assert len(new) == 1, f"{cmd}: expected one new study folder under results/, found {new}"
        files = ("report.html", "report.md") + (("cells.csv", "cells.parquet") if verb == "sweep" else ())
        for name in files:
            assert (new[0] / name).is_file(), f"{cmd}: {new[0].name}/{name} not written"
        assert list((new[0] / "figures").glob("*.png")), f"{cmd}: no figures in {new[0].name}/figures"
    if rebuilt is not None:
        for name in ("report.html", "report.md"):
            assert (rebuilt / name).is_file(), f"{cmd}: {name} not rebuilt"
        assert list((rebuilt / "figures").glob("*.png")), f"{cmd}: no figures rebuilt"
    if verb == "games":
        from foury_sim.registry import games

        for name in games():
            assert name in r.stdout, f"{cmd}: game {name} not listed"


# ---------------------------------------------------------------------------------------------------------
# Environment variables

READS = (
    r"""environ\.get\(\s*\\?["'](\w+)""",
    r"""environ\[\s*\\?["'](\w+)""",
    r"""getenv\(\s*\\?["'](\w+)""",
    r"""numba\.config\.(NUMBA_\w+)""",
)


def variables_read() -> dict[str, str]:
    """Every environment variable read by the package, its notebooks, tests and tools -> first place read."""
    files = [*sorted((ROOT / "foury_sim").rglob("*.py")), *sorted((ROOT / "notebooks").glob("*.ipynb")),
             *sorted((ROOT / "tests").glob("*.py")), *sorted((ROOT / "tools").glob("*.py"))]
    found: dict[str, str] = {}
    for f in files:
        if f.name == Path(__file__).name:
            continue
        for pattern in READS:
            for m in re.finditer(pattern, f.read_text(encoding="utf-8")):
                found.setdefault(m.group(1), str(f.relative_to(ROOT)))
    return found


def environment_table() -> set[str]:
    body = section((ROOT / "README.md").read_text(encoding="utf-8"), "Environment")
    return {m.group(1) for m in re.finditer(r"^\|\s*`([A-Z_][A-Z0-9_]*)(?:=[^`]*)?`", body, re.M)}


def test_variables_read_are_found():
    """The scan finds what the program is known to read (so the next test cannot pass by finding nothing)."""
    found = variables_read()
    for name in ("FOURY_SIM_CACHE_DIR", "FOURY_SIM_NO_CACHE", "FOURY_SIM_DECISION_BUDGET_S", "NUMBA_DISABLE_JIT",
                 "NUMBA_NUM_THREADS", "FOURY_SIM_RESULTS", "FOURY_SIM_NOTEBOOK_GAMES"):
        assert name in found, name


def test_every_environment_variable_is_in_the_readme_table():
    found, table = variables_read(), environment_table()
    missing = {name: where for name, where in found.items() if name not in table}
    assert missing == {}, f"read by the program but not in README's Environment table: {missing}"
    extra = table - set(found)
    assert extra == set(), f"README's Environment table names variables nothing reads: {extra}"
