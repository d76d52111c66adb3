"""Mutation check: do the rule tests catch a one-line bug in each rule?

Each mutant in ``tools/mutants.toml`` changes one line of a game's engine (or its ruleset data) the way
a plausible bug would: ``>`` for ``>=``, a forgotten ``min``, the wrong table row. For every mutant this
script copies the repository to a temporary directory, applies the mutant there (the working tree is
never touched), and runs the game's rule tests with ``NUMBA_DISABLE_JIT=1`` (no compile needed): first
the tests the list names as the ones that should catch it, then, if those pass, every rule test of the
game. A mutant is KILLED when a test fails, SURVIVED when every test passes, TIMEOUT when the tests run
longer than ``--timeout`` (counted as killed, but a mutant that loops should be replaced).

    python tools/mutation_check.py                  # every mutant, 2 workers
    python tools/mutation_check.py --game delve     # one game
    python tools/mutation_check.py --only foury-tie-is-a-win --only delve-potion-revives-one-more
    python tools/mutation_check.py --list           # check the list against the code, run nothing

Exit status: 0 every mutant killed; 1 a mutant survived; 2 the list does not follow the code (a
mutant's original text is missing or not unique), the unmutated tests fail, or a mutant breaks the
import (a broken mutant, not a rule bug). Run it before resolving an issue that touches rules, and add a
mutant (and the test that kills it) with each new rule.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = Path(__file__).resolve().parent / "mutants.toml"
#: What a copy of the repository needs to run the rule tests.
COPY = ("foury_sim", "tests", "experiments", "docs", "pyproject.toml")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache")
FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)


class ListError(Exception):
    """The mutant list does not follow the code."""


@dataclass
class Game:
    name: str
    tests: list[str]
    deselect: list[str] = field(default_factory=list)


@dataclass
class Mutant:
    id: str
    game: str
    file: str
    find: str
    replace: str
    rule: str
    tests: list[str]
    within: str = ""
    line: int = 0  # 1-based line of the original text, filled in by ``locate``


@dataclass
class Result:
    mutant: Mutant | None
    status: str  # KILLED, SURVIVED, TIMEOUT, BROKEN, PASSED (baseline), FAILED (baseline)
    by: str = ""
    listed: bool = True  # killed by one of the tests the list names
    seconds: float = 0.0
    output: str = ""


# ---------------------------------------------------------------------------------------- the list
def load(path: Path = MUTANTS) -> tuple[dict[str, Game], list[Mutant]]:
    data = tomllib.loads(path.read_text())
    games = {name: Game(name, list(g["tests"]), list(g.get("deselect", []))) for name, g in data["games"].items()}
    mutants = []
    seen = set()
    for i, m in enumerate(data.get("mutant", [])):
        missing = [k for k in ("id", "game", "file", "find", "replace", "rule", "tests") if k not in m]
        if missing:
            raise ListError(f"{path}: mutant #{i + 1} ({m.get('id', '?')}): missing {', '.join(missing)}")
        unknown = set(m) - {"id", "game", "file", "find", "replace", "rule", "tests", "within"}
        if unknown:
            raise ListError(f"{path}: mutant {m['id']}: unknown keys {sorted(unknown)}")
        if m["game"] not in games:
            raise ListError(f"{path}: mutant {m['id']}: unknown game {m['game']!r}")
        if m["id"] in seen:
            raise ListError(f"{path}: mutant id {m['id']!r} used twice")
        seen.add(m["id"])
        mutants.append(Mutant(**m))
    return games, mutants


def _scope(text: str, within: str) -> tuple[int, int]:
    """Character range of ``within`` (a line starting a function, e.g. ``def fight(``) up to the next
    top-level statement; the whole text without ``within``."""
    if not within:
        return 0, len(text)
    starts = [m.start() for m in re.finditer(r"^" + re.escape(within), text, re.M)]
    if len(starts) != 1:
        raise ListError(f"{within!r} starts {len(starts)} lines (expected 1)")
    start = starts[0]
    nxt = re.compile(r"^(?:@|def |class |[A-Za-z_])", re.M).search(text, text.index("\n", start) + 1)
    return start, nxt.start() if nxt else len(text)


def locate(m: Mutant, root: Path = ROOT) -> int:
    """Offset of the mutant's original text in its file; ListError unless it occurs exactly once (in
    its ``within`` block) and both texts are one line."""
    if "\n" in m.find or "\n" in m.replace:
        raise ListError(f"{m.id}: find and replace must be one line each")
    if m.find == m.replace:
        raise ListError(f"{m.id}: the replacement is the original text")
    path = root / m.file
    if not path.is_file():
        raise ListError(f"{m.id}: no file {m.file}")
    text = path.read_text()
    try:
        lo, hi = _scope(text, m.within)
    except ListError as e:
        raise ListError(f"{m.id}: {m.file}: {e}") from None
    hits = [lo + k.start() for k in re.finditer(re.escape(m.find), text[lo:hi])]
    where = f" in {m.within!r}" if m.within else ""
    if len(hits) != 1:
        raise ListError(
            f"{m.id}: {m.file}: {m.find!r} occurs {len(hits)} times{where} (expected once): "
            "update tools/mutants.toml to follow the code"
        )
    m.line = text.count("\n", 0, hits[0]) + 1
    return hits[0]


def apply(m: Mutant, root: Path) -> None:
    path = root / m.file
    text = path.read_text()
    at = locate(m, root)
    path.write_text(text[:at] + m.replace + text[at + len(m.find) :])


# --------------------------------------------------------------------------------------- running
def copy_repo(dest: Path, src: Path = ROOT) -> None:
    """Copy what the rule tests need from ``src`` (the repository, or the run's snapshot of it)."""
    dest.mkdir(parents=True)
    for name in COPY:
        if (src / name).is_dir():
            shutil.copytree(src / name, dest / name, ignore=IGNORE)
        elif (src / name).is_file():
            shutil.copy2(src / name, dest / name)


def pytest(root: Path, files: list[str], select: str, timeout: float) -> tuple[int | None, str, float]:
    """Run pytest in the copy ``root`` without the JIT; (return code or None on timeout, output, seconds)."""
    env = dict(os.environ)
    env.update(
        NUMBA_DISABLE_JIT="1",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONPATH=str(root),
        FOURY_SIM_CACHE_DIR=str(root / ".numba-cache"),
    )
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-W",
        "ignore::RuntimeWarning",
        "-o",
        "addopts=-rfE",
        *files,
    ]
    if select:
        cmd += ["-k", select]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out, time.perf_counter() - t0
    return p.returncode, p.stdout + p.stderr, time.perf_counter() - t0


def not_deselected(game: Game) -> str:
    return " and ".join(f"not {name}" for name in game.deselect)


def run_tests(root: Path, game: Game, names: list[str], timeout: float) -> tuple[str, str, bool, float, str]:
    """(status, failing test, whether it is one of ``names``, seconds, output): the named tests first,
    then the game's other rule tests."""
    spent = 0.0
    listed = True
    for select in (
        "(" + " or ".join(names) + ")" + (" and " + not_deselected(game) if game.deselect else ""),
        not_deselected(game),
    ):
        rc, out, sec = pytest(root, game.tests, select, timeout - spent)
        spent += sec
        if rc is None:
            return "TIMEOUT", "", listed, spent, out
        if rc == 1:
            failed = FAILED.findall(out)
            return "KILLED", failed[0] if failed else "?", listed, spent, out
        if rc == 5 and listed:  # no test of that name: a stale list
            return "BROKEN", "none of the listed tests exists", listed, spent, out
        if rc != 0:
            return "BROKEN", f"pytest exit code {rc}", listed, spent, out
        listed = False
    return "SURVIVED", "", listed, spent, ""


def check_mutant(m: Mutant, game: Game, work: Path, timeout: float) -> Result:
    root = work / m.id
    copy_repo(root, work / "snapshot")
    try:
        apply(m, root)
        status, by, listed, sec, out = run_tests(root, game, m.tests, timeout)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    typo = re.search(r"^E\s+(NameError|SyntaxError|ImportError)\b", out, re.M)
    if status == "KILLED" and typo:  # a replacement that does not run is no rule bug
        status, by = "BROKEN", f"the mutant raises {typo.group(1)}"
    return Result(m, status, by, listed, sec, out)


def baseline(game: Game, work: Path, timeout: float) -> Result:
    """The unmutated rule tests of ``game`` must pass, or no mutant result means anything."""
    root = work / f"baseline-{game.name}"
    copy_repo(root, work / "snapshot")
    try:
        rc, out, sec = pytest(root, game.tests, not_deselected(game), timeout)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return Result(None, "PASSED" if rc == 0 else "FAILED", game.name, True, sec, out)


# ----------------------------------------------------------------------------------------- report
def short(test: str) -> str:
    return test.split("::", 1)[-1] if "::" in test else test


def table(results: list[Result]) -> str:
    rows = [("mutant", "where", "result", "killed by", "rule")]
    for r in results:
        m = r.mutant
        by = short(r.by) + ("" if r.listed or r.status != "KILLED" else " (not a listed test)")
        rows.append((m.id, f"{Path(m.file).name}:{m.line}", r.status, by, m.rule))
    widths = [min(max(len(row[i]) for row in rows), 60) for i in range(4)]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row[:4], widths, strict=True)) + "  " + row[4] for row in rows
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", action="append", help="only this game's mutants (repeatable)")
    ap.add_argument("--only", action="append", help="only this mutant id (repeatable)")
    ap.add_argument("--workers", type=int, default=2, help="mutants run in parallel (default 2)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant (default 600)")
    ap.add_argument("--list", action="store_true", help="check the list against the code and print it")
    ap.add_argument("--no-baseline", action="store_true", help="skip running the unmutated tests first")
    ap.add_argument("--mutants", type=Path, default=MUTANTS, help="the mutant list (default tools/mutants.toml)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the test output of survivors and errors")
    a = ap.parse_args(argv)

    try:
        games, mutants = load(a.mutants)
    except (ListError, tomllib.TOMLDecodeError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.game:
        mutants = [m for m in mutants if m.game in a.game]
    if a.only:
        unknown = set(a.only) - {m.id for m in mutants}
        if unknown:
            print(f"error: no mutant {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        mutants = [m for m in mutants if m.id in a.only]
    errors = []
    for m in mutants:
        try:
            locate(m)
        except ListError as e:
            errors.append(str(e))
    if errors:
        print("error: the mutant list does not follow the code:\n  " + "\n  ".join(errors), file=sys.stderr)
        return 2
    if a.list:
        for m in mutants:
            print(f"{m.id:34} {m.file}:{m.line}  {m.find!r} -> {m.replace!r}")
        print(f"{len(mutants)} mutants, every original text found once")
        return 0

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="foury-mutants-") as tmp, ThreadPoolExecutor(a.workers) as pool:
        work = Path(tmp)
        copy_repo(work / "snapshot")  # every run below copies this: editing the tree meanwhile is safe
        if not a.no_baseline:
            used = [games[name] for name in sorted({m.game for m in mutants})]
            for r in pool.map(lambda g: baseline(g, work, a.timeout), used):
                print(f"baseline {r.by}: rule tests {r.status.lower()} ({r.seconds:.0f} s)", flush=True)
                if r.status != "PASSED":
                    print(r.output[-3000:], file=sys.stderr)
                    print("error: the unmutated rule tests fail: fix them first", file=sys.stderr)
                    return 2
        futures = [pool.submit(check_mutant, m, games[m.game], work, a.timeout) for m in mutants]
        results = []
        for f in futures:
            r = f.result()
            results.append(r)
            print(f"  {r.status:8} {r.mutant.id} ({r.seconds:.0f} s)", flush=True)
    print()
    print(table(results))
    counts = {s: sum(r.status == s for r in results) for s in ("KILLED", "TIMEOUT", "SURVIVED", "BROKEN")}
    unlisted = sum(r.status == "KILLED" and not r.listed for r in results)
    print(
        f"\n{len(results)} mutants: {counts['KILLED']} killed ({unlisted} by a test not listed), "
        f"{counts['TIMEOUT']} timed out, {counts['SURVIVED']} survived, {counts['BROKEN']} broken; "
        f"{time.perf_counter() - t0:.0f} s with {a.workers} workers"
    )
    if a.verbose:
        for r in results:
            if r.status in ("SURVIVED", "BROKEN"):
                print(f"\n--- {r.mutant.id} ---\n{r.output[-3000:]}")
    if counts["BROKEN"]:
        return 2
    return 1 if counts["SURVIVED"] else 0


if __name__ == "__main__":
    sys.exit(main())
