"""``foury-sim tune --family``: a whole list moved by one number s (schedule = base + s x step, rounded for a
whole-number list), tuned to a single target with the scalar search (``search_family``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import inproc
import numpy as np
import pytest

from foury_sim.errors import InputError
from foury_sim.tune import BETWEEN, HIT, Family, format_family, parse_family, search_family, tune_family

ROOT = Path(__file__).resolve().parents[1]
U = np.random.default_rng(3).random(1_000_000)  # game g counts when U[g] < p(schedule): common dice


def response(p, calls: list | None = None):
    def evaluate(schedule, start, count):
        if calls is not None:
            calls.append((list(schedule), start, count))
        return (U[start:start + count] < p(schedule)).astype(float)

    return evaluate


def cli(*args: str) -> subprocess.CompletedProcess:
    """``foury-sim ARGS`` in this process (tests/inproc.py: exit code, stdout, stderr as a subprocess gives them;
    the real entry point is tests/test_cli.py's)."""
    return inproc.cli(*args, cwd=ROOT)


def test_the_spellings_of_a_family():
    cur = [0, 1, 2, 3]
    assert parse_family("shift", cur) == Family("shift", (0, 1, 2, 3), (1, 1, 1, 1), True)
    assert parse_family("scale", cur) == Family("scale", (0, 0, 0, 0), (0, 1, 2, 3), True)
    assert parse_family("shape=1,1,2,2", cur).schedule(1.5) == [2, 2, 3, 3]  # 1.5 -> 2 (halves away from zero)
    assert parse_family("step=0,0,1,2", cur).schedule(2) == [0, 1, 4, 7]
    assert parse_family("base=1,1,1,1;step=0,1,1,1", cur).schedule(-1.5) == [1, -1, -1, -1]  # -0.5 -> -1
    assert parse_family("scale", [0.5, 1.0]).schedule(0.3) == pytest.approx([0.15, 0.3])  # not whole: no rounding


@pytest.mark.parametrize("text, msg", [
    ("shape=1,2", "shape has 2 numbers; the list has 4"),
    ("stretch", "is not a family: shift (the current list + s), scale"),
    ("shape=0,1,x,3", "not a list of numbers"),
    ("step=0,0,0,0", "every step is 0"),
    ("shape=0,1,2,3;step=1,1,1,1", "give it alone"),
    ("base=0,0,0,0", "gives no step"),
    ("step=1,1,1,1;step=1,1,1,1", "step is given twice"),
    ("step=1,1,inf,1", "must be finite"),
])
def test_a_bad_family_is_refused(text, msg):
    with pytest.raises(InputError) as e:
        parse_family(text, [0, 1, 2, 3])
    assert msg in e.value.message and e.value.where == "--family"


def test_the_spelling_is_checked_before_the_list_is_known():
    assert parse_family("step=0,1,2", None).step == (0, 1, 2)  # lengths are checked once the list is known
    with pytest.raises(InputError, match="is not a family"):
        parse_family("stretch", None)
    with pytest.raises(InputError, match="is not a family"):  # tune_family checks the spelling first
        tune_family("foury", "enemies.orc.base", "stretch", "win", 0.3, 0.02, lo=0, hi=4)


def test_the_distinct_schedules_along_s_and_where_they_change():
    pieces = parse_family("scale", [0, 1, 2, 3]).pieces(0, 1)
    edges = [(a, b) for a, b, _ in pieces]
    assert edges == pytest.approx([(0, 1 / 6), (1 / 6, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 5 / 6), (5 / 6, 1)])
    assert [s for _, _, s in pieces] == [[0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 1], [0, 1, 1, 2], [0, 1, 2, 2],
                                         [0, 1, 2, 3]]


def test_a_continuous_family_finds_its_known_root():
    """scale of [0.5, 1, 1.5, 2]: p = 0.9 - 0.2 x mean(schedule) = 0.9 - 0.25 s, so 40 % is hit at s = 2."""
    calls: list = []
    fam = parse_family("scale", [0.5, 1.0, 1.5, 2.0])
    r = search_family(response(lambda sch: 0.9 - 0.2 * float(np.mean(sch)), calls), fam, target=0.40,
                      tolerance=0.02, lo=0, hi=3, integer=False, param="x", was=[0.5, 1.0, 1.5, 2.0])
    assert r.status == HIT and r.param == "s"
    assert r.interval[0] <= 2.0 <= r.interval[1] and abs(r.value - 2.0) < 0.2
    row = r.row(r.value)
    assert row["lo"] >= 0.38 and row["hi"] <= 0.42
    assert r.extra["family"]["schedule"] == pytest.approx(fam.schedule(r.value))
    assert row["schedule"] == ",".join(f"{x:g}" for x in fam.schedule(r.value))
    assert all(start == 0 or any(c[0] == sch and c[1] + c[2] == start for c in calls) for sch, start, _ in calls)


def test_a_whole_number_list_searches_its_distinct_schedules_as_integers():
    """shape 0,1,2,3, s in 0..3: p = 0.9 - 0.05 x sum(schedule); only [0, 1, 2, 4] (sum 7, s in [7/6, 1.25)) gives
    55 %, its neighbours [0, 1, 2, 3] and [0, 1, 3, 4] give 60 % and 50 %."""
    p = lambda sch: 0.9 - 0.05 * sum(sch)  # noqa: E731
    fam = parse_family("shape=0,1,2,3", [0, 1, 2, 3])
    r = search_family(response(p), fam, target=0.55, tolerance=0.02, lo=0, hi=3, integer=False,
                      param="round.monster_bonus", was=[0, 1, 2, 3])
    assert r.status == HIT and r.param == "k" and r.integer
    assert r.extra["family"]["schedule"] == [0, 1, 2, 4] and r.row(r.value)["s"] == "1.167 to 1.25"
    assert r.extra["family"]["pieces"] == 16
    text = format_family(r)
    assert text.splitlines()[1].endswith("round.monster_bonus = [0, 1, 2, 4] (s 1.167 to 1.25)")
    assert "16 distinct schedules along s" in text.splitlines()[0]
    # no schedule in the band: the two neighbours, with their schedules
    r = search_family(response(p), fam, target=0.575, tolerance=0.01, lo=0, hi=3, integer=False,
                      param="round.monster_bonus", was=[0, 1, 2, 3])
    assert r.status == BETWEEN and r.extra["family"]["schedule"] is not None
    a, b = r.neighbours
    assert {r.row(a)["schedule"], r.row(b)["schedule"]} == {"0,1,2,3", "0,1,2,4"}
    assert "round.monster_bonus = [0, 1, 2, 3] (s 0.8333 to 1.167) or round.monster_bonus = [0, 1, 2, 4]" \
        in format_family(r).splitlines()[1]


def test_a_range_of_s_with_one_schedule_is_refused():
    with pytest.raises(InputError) as e:
        search_family(response(lambda sch: 0.5), parse_family("scale", [0, 1, 2, 3]), target=0.5, tolerance=0.02,
                      lo=0, hi=0.1, integer=False)
    assert e.value.where == "--range" and "gives one schedule only ([0, 0, 0, 0]): widen --range" in e.value.message


def test_an_integer_s_is_searched_directly():
    """shift of [0, 1, 2, 3] by whole s: p = 0.8 - 0.1 s; 50 % at s = 3."""
    fam = parse_family("shift", [0, 1, 2, 3])
    r = search_family(response(lambda sch: 0.8 - 0.1 * (sch[0])), fam, target=0.5, tolerance=0.03, lo=-2, hi=6,
                      integer=True, param="round.monster_bonus", was=[0, 1, 2, 3])
    assert r.status == HIT and r.value == 3 and r.extra["family"]["schedule"] == [3, 4, 5, 6]
    assert not r.extra["family"]["indexed"]


@pytest.mark.parametrize("args, where, msg", [
    (["--family", "shape=1,2"], "--family", "shape has 2 numbers; the list has 4"),
    (["--family", "shift", "--monotone", "increasing"], "--monotone", "moves the whole list with one number"),
])
def test_a_bad_family_on_the_command_line_is_one_line(args, where, msg):
    r = cli("tune", "foury", "--param", "round.monster_bonus", "--target", "win=0.2", "--tolerance", "0.02",
            "--range", "0,3", *args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith(f"foury-sim: error: {where}") and msg in r.stderr, r.stderr


def test_real_foury_family_writes_its_record(tmp_path):
    r = cli("tune", "foury", "--param", "round.monster_bonus", "--family", "shift", "--target", "win=0.15",
            "--tolerance", "0.03", "--range", "-1,3", "--fixed", "hero=kael", "--max-games", "3000", "--threads", "1",
            "--no-progress", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    rec = json.loads((tmp_path / "tune.json").read_text())
    fam = rec["family"]
    assert fam["param"] == "round.monster_bonus" and fam["was"] == [0, 1, 2, 3] and fam["step"] == [1, 1, 1, 1]
    assert rec["param"] == "s" and (tmp_path / "calibration.png").stat().st_size > 0
    # Kael wins 27 % with the shipped schedule (s = 0) and 5 % one stronger everywhere (s = 1): no shift hits 15 %
    assert rec["status"] == "between" and rec["neighbours"] == [0, 1]
    assert fam["schedule"] == [int(rec["value"]) + i for i in range(4)]
    assert r.stdout.splitlines()[1].endswith("round.monster_bonus = [0, 1, 2, 3] (s 0) or round.monster_bonus = "
                                             "[1, 2, 3, 4] (s 1)")
    assert "--family shift" in rec["command"] and r.stdout.splitlines()[0].startswith(
        "round.monster_bonus = base [0, 1, 2, 3] + s x step [1, 1, 1, 1]")
