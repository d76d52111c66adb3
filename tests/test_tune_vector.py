"""``foury-sim tune`` on a list setting: one element (``KEY[i]``, 0-based) and a whole schedule tuned element by
element under a monotone order (``search_vector``); ``--set KEY[i]=V`` everywhere ``--set`` works; a tuning
file's ``--seed/--conf/--max-games/--points`` from the command line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import inproc
import numpy as np
import pytest

from foury_sim.errors import InputError
from foury_sim.tune import (
    BETWEEN,
    CONSTRAINED,
    HIT,
    KEPT,
    PINNED,
    ElementMetric,
    format_vector,
    lift,
    load_tune_file,
    override_tune_file,
    parse_vector_target,
    search_vector,
    tune,
    tune_vector,
    vector_answer_line,
    vector_figure,
)

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str) -> subprocess.CompletedProcess:
    """``foury-sim ARGS`` in this process (tests/inproc.py: exit code, stdout, stderr as a subprocess gives them;
    the real entry point is tests/test_cli.py's)."""
    return inproc.cli(*args, cwd=ROOT)


def element_response(p, seed: int = 5, calls: list | None = None):
    """Element i's metric under a schedule: game g counts when u_g < p(i, schedule[i]) (common dice: one u_g for
    every schedule and element)."""
    u = np.random.default_rng(seed).random(1_000_000)

    def evaluate(i, schedule, start, count):
        if calls is not None:
            calls.append((i, list(schedule), start, count))
        return (u[start:start + count] < p(i, schedule[i])).astype(float)

    return evaluate


def linear(roots, slope=-0.08):
    """p(i, v) = 0.5 + slope * (v - roots[i]), clipped: element i hits 0.5 exactly at roots[i]."""
    return lambda i, v: float(np.clip(0.5 + slope * (v - roots[i]), 0.0, 1.0))


# ------------------------------------------------------------------------------------------ synthetic --
def test_each_element_finds_its_known_monotone_root():
    roots = [1, 3, 4, 7]
    v = search_vector(element_response(linear(roots)), targets=[0.5] * 4, tolerance=0.03, lo=0, hi=10,
                      base=[0, 0, 0, 0], integer=True, monotone="increasing", max_games=200_000)
    assert v.schedule == roots
    assert v.statuses == [HIT] * 4
    for i, r in enumerate(v.elements):
        row = r.row(roots[i])
        assert 0.47 <= row["lo"] and row["hi"] <= 0.53
        # the values consistent with 0.5 ± 0.03: the root, bounded by the candidates shown outside the band (the
        # neighbours at 0.42 and 0.58 are, but their intervals on a quarter of the games may reach into it)
        assert r.interval[0] <= roots[i] <= r.interval[1]
        outside = r.table[(r.table["hi"] < 0.47) | (r.table["lo"] > 0.53)]["value"]
        assert not any(r.interval[0] <= x <= r.interval[1] for x in outside), (r.interval, list(outside))
    assert v.games == sum(r.games for r in v.elements) <= 200_000
    assert v.bounds == [(0, 10), (1, 10), (3, 10), (4, 10)]  # each element searched from the previous value


def test_an_unconstrained_root_before_the_previous_element_is_reported_at_the_bound():
    # element 2's own root (2) lies below element 1's (5): increasing, it can only be 5, and says so
    roots = [1, 5, 2, 8]
    free = search_vector(element_response(linear(roots)), targets=[0.5] * 4, tolerance=0.03, lo=0, hi=12,
                         base=[0] * 4, integer=True, monotone="none", max_games=200_000)
    assert free.schedule == roots and free.statuses == [HIT] * 4  # the unconstrained answer breaks the order
    v = search_vector(element_response(linear(roots)), targets=[0.5] * 4, tolerance=0.03, lo=0, hi=12,
                      base=[0] * 4, integer=True, monotone="increasing", max_games=200_000)
    assert v.schedule == [1, 5, 5, 8]
    assert v.statuses == [HIT, HIT, CONSTRAINED, HIT]
    row = v.elements[2].row(5)
    assert row["hi"] < 0.5 - 0.03  # measured at the bound: 0.26, clearly below the target
    assert v.bounds[2] == (5, 12)
    assert any("[2]" in w and "order binds" in w for w in v.warnings)
    assert "[2] = 5: m 2" not in vector_answer_line(v) and "constrained" in vector_answer_line(v)


def test_strictly_increasing_searches_from_the_previous_value_plus_one_and_lifts_later_elements():
    roots = [4, 4, 6]
    calls: list = []
    v = search_vector(element_response(linear(roots), calls=calls), targets=[0.5] * 3, tolerance=0.03, lo=0,
                      hi=10, base=[0, 1, 2], integer=True, monotone="strictly-increasing", max_games=150_000)
    assert v.schedule[0] == 4 and v.schedule[1] == 5 and v.statuses[1] == CONSTRAINED
    assert v.bounds[1] == (5, 10)
    # every schedule played keeps the strict order (later elements lifted just enough)
    assert all(all(b > a for a, b in zip(s[:-1], s[1:])) for _, s, _, _ in calls)
    assert lift([3, 1, 9], 0, "strictly-increasing", True) == [3, 4, 9]
    assert lift([3, 5, 1], 0, "decreasing", True) == [3, 3, 1]


def test_decreasing_order_searches_up_to_the_previous_value():
    roots = [8, 6, 7]  # element 2 wants 7 > 6: decreasing binds it at 6
    v = search_vector(element_response(linear(roots, slope=0.08)), targets=[0.5] * 3, tolerance=0.03, lo=0,
                      hi=10, base=[9, 9, 9], integer=True, monotone="decreasing", max_games=150_000)
    assert v.schedule == [8, 6, 6] and v.statuses == [HIT, HIT, CONSTRAINED]
    assert v.bounds == [(0, 10), (0, 8), (0, 6)]


def test_a_kept_element_and_a_pinned_one():
    roots = [10, 3, 10]
    v = search_vector(element_response(linear(roots)), targets=[0.5, None, 0.5], tolerance=0.03, lo=0, hi=10,
                      base=[0, 2, 0], integer=True, monotone="increasing", max_games=100_000)
    assert v.statuses == [HIT, PINNED, PINNED] or v.statuses[:2] == [HIT, KEPT]
    assert v.statuses[1] == KEPT and v.elements[1] is None
    assert v.schedule == [10, 10, 10]  # the kept element is lifted to keep the order; the last has one value
    w = search_vector(element_response(linear([4, 6])), targets=[None, 0.5], tolerance=0.03, lo=2, hi=10,
                      base=[0, 0], integer=True, max_games=50_000)
    assert w.schedule == [0, 6] and w.statuses == [KEPT, HIT]  # a kept element outside the range stays
    assert v.statuses[2] == PINNED and v.elements[2].games > 0


def test_every_element_plays_games_from_0_on_common_dice():
    calls: list = []
    search_vector(element_response(linear([2, 4]), calls=calls), targets=[0.5, 0.5], tolerance=0.03, lo=0, hi=8,
                  base=[0, 0], integer=True, max_games=50_000)
    for i in (0, 1):
        by_value: dict = {}
        for e, s, start, count in calls:
            if e == i:
                assert start == by_value.get(s[i], 0)  # each value's games extend the prefix 0 .. n-1
                by_value[s[i]] = start + count


def test_integer_element_with_no_value_in_the_band_names_both_neighbours():
    p = lambda i, v: 0.2 + 0.1 * v  # noqa: E731  (0.45 lies between 2 and 3)
    v = search_vector(element_response(p), targets=[0.45], tolerance=0.02, lo=0, hi=6, base=[0], integer=True,
                      max_games=200_000)
    assert v.statuses == [BETWEEN] and v.schedule[0] in (2, 3)
    line = vector_answer_line(v)
    other = 3 if v.schedule[0] == 2 else 2
    assert f"between; {other} gives" in line


def test_text_and_figure_of_a_vector_result():
    v = search_vector(element_response(linear([1, 5, 2])), targets=[0.5] * 3, tolerance=0.03, lo=0, hi=8,
                      base=[0, 1, 2], integer=True, monotone="increasing", max_games=100_000, param="round.bonus",
                      metric=ElementMetric("rounds_completed", ">=", 1))
    text = format_vector(v)
    assert text.startswith("round.bonus = [1, 5, 5] (increasing; was [0, 1, 2]; ± 3 %, 0-based): [0] = 1: "
                           "rounds_completed>=1 ")
    assert "rounds_completed>=3" in text and "constrained" in text and "0-based" in text
    fig = vector_figure(v)
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert titles[2].startswith("[2] = 5 (constrained;")
    assert len(titles) == 3


@pytest.mark.parametrize("text, msg", [
    ("win=0.3", "is not COLUMN OP i"),
    ("rounds_completed>=i+1=0.9,x", "'x' is not a number"),
    ("rounds_completed>=i+1=0.9,1.5", "fraction from 0 to 1"),
    ("rounds_completed>=i+1=-,-", "every element is kept"),
])
def test_vector_target_refuses_bad_text(text, msg):
    with pytest.raises(InputError, match=msg) as e:
        parse_vector_target(text)
    assert e.value.where == "--target"


def test_vector_target_parses_offset_and_kept_elements():
    em, t = parse_vector_target("rank >= i-1 = -, 0.6,0.3")
    assert (em.column, em.op, em.offset) == ("rank", ">=", -1) and t == [None, 0.6, 0.3]
    assert em.name() == "rank>=i-1" and em.name(2) == "rank>=1"


# ------------------------------------------------------------------------------- list elements, real --
def test_set_one_element_reaches_the_kernel_for_both_games():
    from foury_sim.registry import get_game

    f = get_game("foury").load_ruleset(None, ["round.monster_bonus[2]=7"], None)
    from foury_sim.games.foury.layout import T_BONUS

    assert list(f.T[T_BONUS][:4]) == [0, 1, 7, 3]
    d = get_game("delve").load_ruleset(None, {"score.rank_thresholds[1]": 20}, None)
    assert d.data["score"]["rank_thresholds"] == [0, 20, 24, 30, 35]
    from foury_sim.games.delve.ruleset import R_RANKS

    assert list(d.rules[R_RANKS:R_RANKS + 5]) == [0, 20, 24, 30, 35]  # the array the kernel reads


@pytest.mark.parametrize("override, where, msg", [
    ("round.monster_bonus[4]=1", "--set round.monster_bonus[4]", r"has 4 elements \(\[0\]..\[3\], 0-based\)"),
    ("game.rounds[0]=1", "--set game.rounds[0]", "is a single value (4), not a list"),
    ("round.monster_bonus[-1]=1", "--set round.monster_bonus[-1]", "index must be a whole number from 0"),
    ("round.monster_bonus[1]=1,2", "--set round.monster_bonus[1]", "is one element: give a single value"),
    ("round.monster_bonus[2]=99", "--set round.monster_bonus[2]=99", "is above 20"),
])
def test_set_element_errors_name_the_option(override, where, msg):
    from foury_sim.registry import get_game

    with pytest.raises(InputError) as e:
        get_game("foury").load_ruleset(None, [override], None)
    assert e.value.where == where
    assert msg in e.value.message or __import__("re").search(msg, e.value.message)


def test_set_element_on_the_command_line_run_and_compare():
    r = cli("run", "foury", "--games", "200", "--threads", "1", "--set", "monster_bonus[3]=5", "--format", "json")
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    assert rec["provenance"]["overrides"]["set"] == {"round.monster_bonus[3]": "5"}
    assert "--set 'round.monster_bonus[3]=5'" in rec["provenance"]["command"]
    bad = cli("run", "foury", "--games", "10", "--set", "round.monster_bonus[9]=1")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--set round.monster_bonus[9]" in bad.stderr
    c = cli("compare", "foury", "--a", "round.monster_bonus[3]=3", "--b", "round.monster_bonus[3]=6", "--games",
            "300", "--threads", "1", "--format", "json")
    assert c.returncode == 0, c.stderr


def test_param_one_element_tunes_that_element_only():
    seen = []
    from foury_sim import tune as tn

    real = tn.engine_evaluator

    def spy(spec, param, metric, fixed, seed, threads=None):
        ev = real(spec, param, metric, fixed, seed, threads)

        def evaluate(value, start, count):
            from foury_sim.study import CellRunner

            rs, _, _ = CellRunner(spec).resolve(dict(fixed) | {param: value})
            seen.append((value, list(rs.data["round"]["monster_bonus"])))
            return ev(value, start, count)
        return evaluate

    tn.engine_evaluator = spy
    try:
        r = tune("foury", "round.monster_bonus[3]", "win", 0.2, 0.05, fixed={"hero": "kael"}, lo=0, hi=8,
                 max_games=3000, threads=1, progress=False)
    finally:
        tn.engine_evaluator = real
    assert r.param == "round.monster_bonus[3]" and isinstance(r.value, int)
    assert all(b == [0, 1, 2, int(v)] for v, b in seen) and len({v for v, _ in seen}) >= 2


@pytest.mark.parametrize("param, where, msg", [
    ("round.monster_bonus[4]", "--param", "has 4 elements"),
    ("game.rounds[0]", "--param", "not a list"),
    ("round.monster_bonus[x]", "--param", "index must be a whole number"),
])
def test_param_element_errors_name_param(param, where, msg):
    r = cli("tune", "foury", "--param", param, "--target", "win=0.3", "--tolerance", "0.02", "--range", "0,4")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert where in r.stderr and msg in r.stderr


# ---------------------------------------------------------------------------------- a real schedule --
def test_real_foury_schedule_round_by_round(tmp_path):
    """Dungeon Foury's round.monster_bonus for the chance to complete round k (1-based) = 0.80, 0.65, 0.50,
    0.35 (element i judged on rounds_completed >= i+1), increasing, at a small size."""
    v = tune_vector("foury", "round.monster_bonus", "rounds_completed>=i+1=0.8,0.65,0.5,0.35", 0.04,
                    fixed={"hero": "kael"}, lo=0, hi=8, monotone="increasing", seed=3, max_games=16_000, threads=1,
                    progress=False)
    assert v.param == "round.monster_bonus" and len(v.schedule) == 4
    assert all(isinstance(x, int) for x in v.schedule)
    assert all(b >= a for a, b in zip(v.schedule[:-1], v.schedule[1:]))
    assert v.games <= 16_000 and v.games == sum(r.games for r in v.elements)
    for i, r in enumerate(v.elements):
        assert r.metric == f"rounds_completed>={i + 1}"
        assert v.bounds[i][0] == (0 if i == 0 else v.schedule[i - 1])
        if v.statuses[i] == HIT:
            row = r.row(v.schedule[i])
            assert v.targets[i] - 0.04 <= row["lo"] and row["hi"] <= v.targets[i] + 0.04
    assert "--monotone increasing" in v.extra["command"] and "round.monster_bonus" in v.extra["command"]
    # the rounds completed are a property of the dice: replaying the chosen schedule gives the reported rate
    from foury_sim.runner import run

    r0 = v.elements[0]
    n0 = int(r0.row(v.schedule[0])["games"])
    sets = [f"round.monster_bonus={','.join(map(str, v.schedule))}"]
    df = run("foury", hero="kael", sets=sets, games=n0, seed=3, progress=False, threads=1).df
    assert (df["rounds_completed"] >= 1).mean() == pytest.approx(r0.row(v.schedule[0])["estimate"])


def test_cli_vector_tune_writes_its_files(tmp_path):
    out = tmp_path / "sched"
    r = cli("tune", "foury", "--param", "monster_bonus", "--target", "rounds_completed>=i+1=0.8,-,-,0.35",
            "--tolerance", "0.05", "--range", "0,8", "--fixed", "hero=kael", "--max-games", "6000", "--threads",
            "1", "--no-progress", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("round.monster_bonus = [")
    assert "[1] = 1 kept" in r.stdout.splitlines()[0] or "kept" in r.stdout.splitlines()[0]
    assert {p.name for p in out.iterdir()} == {"tune.json", "elements.csv", "candidates.csv", "calibration.png"}
    rec = json.loads((out / "tune.json").read_text())
    assert rec["index"] == "0-based" and rec["statuses"][1] == "kept" and rec["monotone"] == "increasing"
    assert rec["version"] and "git_commit" in rec


@pytest.mark.parametrize("args, where, msg", [
    (["--param", "round.monster_bonus", "--target", "win=0.3"], "--target", "is not COLUMN OP i"),
    (["--param", "round.monster_bonus", "--target", "rounds_completed>=i+1=0.8,0.6"], "--target",
     "has 4 elements ([0]..[3]): give 4 targets"),
    (["--param", "round.monster_bonus", "--target", "nocol>=i=0.8,0.6,0.5,0.4"], "--target", "no per-game column"),
    (["--param", "enemies.orc.base", "--target", "win=0.3", "--monotone", "increasing"], "--monotone",
     "is a single number"),
    (["--param", "round.monster_bonus", "--target", "rounds_completed>=i+1=0.8,0.6,0.5,0.4", "--monotone", "up"],
     "--monotone", "must be one of"),
])
def test_vector_bad_input_is_one_line(args, where, msg):
    r = cli("tune", "foury", *args, "--tolerance", "0.02", "--range", "0,4")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert where in r.stderr and msg in r.stderr


# ------------------------------------------------------------------------------------- tuning files --
def test_tuning_file_takes_seed_conf_budget_points_from_the_command_line():
    tf = load_tune_file(ROOT / "experiments" / "tune_orc_per_hero.toml")
    t2 = override_tune_file(tf, seed=9, conf=0.9, max_games=5000, points=3)
    assert (t2.seed, t2.conf, t2.max_games, t2.points) == (9, 0.9, 5000, 3)
    assert t2.overridden["seed"] == {"file": tf.seed, "used": 9}
    assert override_tune_file(tf) is tf
    with pytest.raises(InputError) as e:
        override_tune_file(tf, points=1)
    assert e.value.where == "--points"
    with pytest.raises(InputError) as e:
        override_tune_file(tf, max_games=50)
    assert e.value.where == "--max-games"


def test_shipped_schedule_file_loads_as_a_vector_tuning():
    tf = load_tune_file(ROOT / "experiments" / "tune_schedule.toml")
    assert tf.vector == "rounds_completed>=i+1=0.80,0.65,0.50,0.35" and tf.monotone == "increasing"
    assert tf.param == "round.monster_bonus" and [c["hero"] for c in tf.cells] == ["kael", "melyra"]
    assert (tf.lo, tf.hi, tf.integer) == (-4, 8, True)


@pytest.mark.parametrize("extra, line, msg", [
    ('monotone = "up"\n', 7, "must be one of none, increasing"),
    ('target = "rounds_completed>=i+1=0.8,0.6"\n', 3, "has 4 elements: give 4 targets"),
])
def test_bad_schedule_file_is_one_line_naming_the_line(tmp_path, extra, line, msg):
    f = tmp_path / "s.toml"
    body = ('game = "foury"\nparam = "round.monster_bonus"\ntarget = "rounds_completed>=i+1=0.8,0.6,0.5,0.4"\n'
            'tolerance = 0.03\nrange = [0, 8]\nseed = 1\n')
    if extra.startswith("target"):
        body = body.replace('target = "rounds_completed>=i+1=0.8,0.6,0.5,0.4"\n', extra)
    else:
        body += extra
    f.write_text(body)
    with pytest.raises(InputError) as e:
        load_tune_file(f)
    assert e.value.where == f"{f}:{line}" or e.value.where.startswith(f"{f}:{line}:")
    assert msg in e.value.message


def test_monotone_in_a_file_with_a_single_number_is_refused(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('game = "foury"\nparam = "enemies.orc.base"\ntarget = "win=0.3"\ntolerance = 0.03\n'
                 'range = [0, 8]\nmonotone = "increasing"\n')
    with pytest.raises(InputError, match="is a single number") as e:
        load_tune_file(f)
    assert e.value.where.startswith(f"{f}:6")


def test_schedule_file_runs_one_schedule_per_cell_and_takes_command_line_overrides(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('name = "sched"\ngame = "foury"\nparam = "round.monster_bonus"\n'
                 'target = "rounds_completed>=i+1=0.8,-,-,0.35"\ntolerance = 0.05\nrange = [0, 8]\nseed = 4\n'
                 'max_games = 100000\n[fixed]\nhero = "kael"\n')
    r = cli("tune", str(f), "--max-games", "3000", "--seed", "5", "--threads", "1", "--no-progress", "--out",
            str(tmp_path / "res"))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("sched: round.monster_bonus (increasing, elements 0-based) for "
                               "rounds_completed>=i+1=0.8,-,-,0.35 ± 0.05 (seed 5, 95 % intervals)")
    assert lines[1] == ("from the command line, in place of the file's values: --seed 5 (file: 4), "
                        "--max-games 3000 (file: 100000)")
    assert lines[3].startswith("all: round.monster_bonus = [")
    rec = json.loads((tmp_path / "res" / "sched" / "tune.json").read_text())
    assert rec["overridden"]["seed"] == {"file": 4, "used": 5}
    t = rec["tunings"][0]
    assert t["games"] <= 3000 and t["statuses"][1:3] == ["kept", "kept"] and "--seed 5" in t["command"]
    assert (tmp_path / "res" / "sched" / "00_all_calibration.png").is_file()


def test_real_delve_rank_thresholds_element_by_element():
    """Delve's list setting score.rank_thresholds: element i judged on "reached rank i" (rank >= i), the first
    kept; the rates reported are those a plain run of the chosen thresholds gives on the same games."""
    v = tune_vector("delve", "score.rank_thresholds", "rank>=i=-,0.6,0.3,0.15,0.05", 0.04, lo=1, hi=60,
                    monotone="increasing", seed=2, max_games=6000, threads=1, progress=False)
    assert v.schedule[0] == 0 and v.statuses[0] == KEPT
    assert all(b >= a for a, b in zip(v.schedule[:-1], v.schedule[1:])) and v.games <= 6000
    from foury_sim.runner import run

    sets = [f"score.rank_thresholds={','.join(map(str, v.schedule))}"]
    for i in (1, 4):
        row = v.elements[i].row(v.schedule[i])
        df = run("delve", sets=sets, games=int(row["games"]), seed=2, progress=False, threads=1).df
        assert (df["rank"] >= i).mean() == pytest.approx(row["estimate"])
