"""Seeded fuzz of experiment files and results folders (issue 11): every mutant of a shipped experiment
file loads (and a tiny sweep of it gives sane numbers) or is refused with ONE line naming the file (at
line[:column] when the fault has a line); never a traceback, a hang or a huge allocation. Damaged or
foreign results folders given to ``report`` are one line too."""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from foury_sim.errors import InputError
from foury_sim.inputs import SEED_MAX
from foury_sim.robust import MAX_POINTS, load_robust
from foury_sim.study import MAX_CELLS, MAX_GAMES, check_name, load_experiment, run_sweep

ROOT = Path(__file__).resolve().parents[1]
SWEEPS = ["hero_difficulty.toml", "monster_strength.toml", "rulings_impact.toml", "delve_heroes.toml"]
ROBUST = ROOT / "tests" / "data" / "robust" / "tiny.toml"
N_CASES = 90

BAD_VALUES = ["-1", "0", "2.7", "1e400", "-1e400", "nan", "inf", "9223372036854775807", "-9223372036854775808",
              '"x"', '""', '"3"', "true", "[]", "{}", '[1, "a"]', "[[1, 2], 3]", '"../x"', '"/etc"', '".."',
              '"a/b"', '"a\\u0000b"', '"' + "n" * 500 + '"', "{ range = [0, 1e9, 1] }", "{ range = [0, 10, 0] }",
              "{ range = [0, nan, 1] }", "{ range = [1e308, -1e308, 1e-308] }", "{ range = [0, 5] }",
              "1979-05-27", "[0, 1, 2, 9223372036854775807]"]
NAMES = ['".."', '"."', '"/etc"', '"a/b"', '""', '"  x"', '"' + "x" * 101 + '"', '"a\\u0007b"', '"a\\\\b"',
         '"c:d"', '".hidden"', "7", '"ok-name_2.v1"']
BAD_BYTES = [b"\xff", b"\xe9", b"\xc3", b"\x00", b"\xed\xa0\x80", b"\x80\x80"]


def mutate(text: str, rng: random.Random) -> tuple[str, bytes]:
    """(what was done, the mutant's bytes)."""
    lines = text.splitlines()
    keyed = [i for i, ln in enumerate(lines) if re.match(r'^\s*"?[\w.\-]+"?\s*=', ln)]
    kind = rng.choice(["value", "value", "value", "delete", "duplicate", "unknown", "name", "huge", "bytes",
                       "bom", "truncate", "grid"])
    if kind == "value" and keyed:
        i = rng.choice(keyed)
        key = lines[i].split("=", 1)[0]
        lines[i] = f"{key}= {rng.choice(BAD_VALUES)}"
        what = f"line {i + 1}: {lines[i][:60]}"
    elif kind == "delete" and keyed:
        i = rng.choice(keyed)
        what = f"delete line {i + 1}: {lines[i][:60]}"
        del lines[i]
    elif kind == "duplicate" and keyed:
        i = rng.choice(keyed)
        lines.insert(i + 1, lines[i])
        what = f"duplicate line {i + 1}: {lines[i][:60]}"
    elif kind == "unknown":
        lines.insert(rng.randrange(len(keyed) and keyed[0] + 1 or 1), f"{rng.choice(['gmaes', 'seeds', 'x'])} = 1")
        what = "unknown key"
    elif kind == "name":
        v = rng.choice(NAMES)
        lines = [ln for ln in lines if not ln.startswith("name =")]
        lines.insert(0, f"name = {v}")
        what = f"name = {v[:40]}"
    elif kind in ("huge", "grid"):
        axes = ['"param.foe_avoid" = { range = [0, 1e9, 1] }'] if kind == "huge" else \
            [f'"param.p{k}" = {{ range = [0, {rng.choice([9, 99, 999])}, 1] }}' for k in range(rng.randint(2, 4))]
        if "[sweep]" not in lines:
            lines.append("[sweep]")
        j = lines.index("[sweep]") + 1
        lines[j:j] = axes
        what = f"{kind}: {axes}"
    elif kind == "bytes":
        raw = text.encode()
        at = rng.randrange(len(raw))
        b = rng.choice(BAD_BYTES)
        return f"byte {b!r} at offset {at}", raw[:at] + b + raw[at:]
    elif kind == "bom":
        return "BOM", b"\xef\xbb\xbf" + text.encode()
    elif kind == "truncate":
        raw = text.encode()
        at = rng.randrange(len(raw))
        return f"truncated at {at}", raw[:at]
    else:
        what = "unchanged"
    return what, ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def check_refusal(e: InputError, path: Path, what: str) -> None:
    where = e.where or ""
    assert "\n" not in str(e), f"{what}: more than one line: {e}"
    assert where == str(path) or re.fullmatch(re.escape(str(path)) + r":\d+(:\d+)?", where), \
        f"{what}: the error does not name {path}[:line[:col]]: {e}"


def check_loaded(exp, what: str) -> None:
    check_name(exp.name, "name")
    assert 0 <= exp.seed <= SEED_MAX, what
    cells = exp.cells if isinstance(exp.cells, list) else exp.cells()
    assert 1 <= len(cells) <= MAX_CELLS, what
    games = exp.games if exp.games is not None else exp.precision.max_games
    assert 1 <= games <= MAX_GAMES, what
    assert 0.5 <= exp.conf < 1, what


def test_fuzz_experiment_files(tmp_path):
    rng = random.Random(20261130)
    ran = 0
    for case in range(N_CASES):
        robust = case % 15 == 14
        src = ROBUST if robust else ROOT / "experiments" / rng.choice(SWEEPS)
        what, data = mutate(src.read_text(), rng)
        what = f"case {case} ({src.name}, {what})"
        path = tmp_path / f"case{case}.toml"
        path.write_bytes(data)
        try:
            exp = (load_robust if robust else load_experiment)(path)
        except InputError as e:
            check_refusal(e, path, what)
            continue
        check_loaded(exp, what)
        if robust:
            assert 0 <= exp.points <= MAX_POINTS, what
        elif exp.game == "foury" and len(exp.cells) <= 30 and ran < 3:  # a tiny sweep: sane numbers
            ran += 1
            exp.games, exp.precision = 20, None
            out = run_sweep(exp, tmp_path / "out", progress=False, report=False)
            t = pd.read_parquet(out / "cells.parquet")
            assert len(t) == len(exp.cells) and (t["games"] == 20).all(), what
            assert t["win_rate"].between(0, 1).all() and (t["win_lo"] <= t["win_rate"]).all(), what
    assert ran >= 1


SMALL = """
name = "small"
game = "foury"
seed = 2
games = 40
[fixed]
policy = "greedy"
[sweep]
hero = ["free", "kael"]
"""


@pytest.fixture(scope="module")
def study_folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    exp = root / "small.toml"
    exp.write_text(SMALL)
    return run_sweep(exp, root / "r", progress=False, report=False)


def test_fuzz_report_over_damaged_folders(study_folder, tmp_path):
    from foury_sim.report import build_report

    rng = random.Random(11)
    files = ["manifest.json", "cells.csv", "cells.parquet", "cells/cell_0000.json", "cells/cell_0001.json"]
    for case in range(12):
        f = tmp_path / f"c{case}"
        shutil.copytree(study_folder, f)
        name = rng.choice(files)
        raw = (f / name).read_bytes()
        how = rng.choice(["empty", "truncate", "garbage", "delete", "foreign"])
        if how == "empty":
            (f / name).write_bytes(b"")
        elif how == "truncate":
            (f / name).write_bytes(raw[: rng.randrange(1, len(raw))])
        elif how == "garbage":
            (f / name).write_bytes(bytes(rng.randrange(256) for _ in range(64)))
        elif how == "delete":
            (f / name).unlink()
        else:
            (f / "manifest.json").write_text(json.dumps({"kind": "robust", "name": "x"}))
        what = f"case {case}: {how} {name}"
        try:
            build_report(f)
        except InputError as e:
            assert "\n" not in str(e) and str(f) in (e.where or ""), f"{what}: {e}"
        else:  # only damage the report does not read may pass (a cell file the table does not need)
            assert (f / "report.md").is_file(), what
