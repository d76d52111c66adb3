"""Balance regression (`foury-sim baseline save` / `foury-sim check`): shipped baselines, the decision rule,
rules changes, and one-line errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import inproc
import numpy as np
import pandas as pd
import pytest

from foury_sim import baseline, stats
from foury_sim.errors import InputError
from foury_sim.registry import games as all_games
from foury_sim.stats import adjust_pvalues

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "results" / "baselines"


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``foury-sim ARGS`` in this process (tests/inproc.py: exit code, stdout, stderr as a subprocess gives them;
    the real entry point is tests/test_cli.py's)."""
    return inproc.cli(*args, cwd=cwd)


def one_line_error(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("foury-sim: error: "), r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


# ------------------------------------------------------------------------------ shipped baselines --
@pytest.mark.parametrize("name", ["foury", "delve", "tactics", "rooms"])
def test_shipped_baseline_still_holds(name):
    """The project's own regression check: the engine as it is now against the stored baseline (an engine
    change that moves the balance fails here, and the message is the table of what moved)."""
    r = cli("check", name, "--baselines", str(SHIPPED))
    assert r.returncode == 0, f"the balance moved:\n{r.stdout}\n{r.stderr}"
    n = sum(len(run["metrics"]) for run in json.loads((SHIPPED / name / "baseline.json").read_text())["runs"])
    assert r.stdout.startswith((f"check {name}: all {n} metrics within tolerance",
                                f"check {name}: none of {n} metrics moved beyond chance or tolerance"))


def test_every_registered_game_has_a_shipped_baseline():
    covered = set()
    for p in sorted((ROOT / "experiments" / "baselines").glob("*.toml")):
        spec = baseline.load_spec(p)
        stored = baseline.load_baseline(SHIPPED / spec.name)
        assert [r["name"] for r in stored.manifest["runs"]] == [r.name for r in spec.runs]
        assert stored.manifest["spec_text"] == p.read_text(encoding="utf-8")
        covered |= {r.game for r in spec.runs}
        for r in spec.runs:
            assert r.games <= 2000  # small enough for the test suite
    assert covered == set(all_games())


# ----------------------------------------------------------------------------------- the rule --
def _rows(p, diff, lo, hi, tol, identical=None, p_beyond=None):
    n = len(p)
    out = pd.DataFrame({"run": [f"r{i}" for i in range(n)], "game": ["g"] * n, "metric": ["win"] * n,
                        "kind": ["rate"] * n, "p_value": p, "diff": diff, "lo": lo, "hi": hi, "tolerance": tol,
                        "identical": identical if identical is not None else [False] * n})
    if p_beyond is not None:
        out["p_beyond"] = p_beyond
    return out


def test_holm_over_all_metrics_and_the_verdicts_on_constructed_data():
    rows = _rows(p=[0.001, 0.01, 0.02, 0.03, 0.5],
                 diff=[0.005, 0.05, 0.05, 0.002, 0.05],
                 lo=[0.002, 0.02, 0.01, 0.001, -0.02],
                 hi=[0.008, 0.09, 0.09, 0.003, 0.12],
                 tol=[0.01, 0.01, 0.01, 0.01, 0.01],
                 p_beyond=[1.0, 0.01, 0.03, 1.0, 0.7])
    out = baseline.decide(rows, conf=0.95)
    # Holm: sorted p times (5, 4, 3, 2, 1), running maximum
    assert out["p_adjusted"].tolist() == pytest.approx([0.005, 0.04, 0.06, 0.06, 0.5])
    assert out["p_adjusted"].tolist() == pytest.approx(adjust_pvalues(rows["p_value"], "holm").tolist())
    assert out["significant"].tolist() == [True, True, False, False, False]
    assert out["p_beyond_adjusted"].tolist() == pytest.approx(adjust_pvalues(rows["p_beyond"], "holm").tolist())
    # significant within tolerance; significant beyond; p 0.02 < 0.05 alone but not after Holm (beyond the
    # tolerance: unresolved); not significant within tolerance; chance explains a large move
    assert out["verdict"].tolist() == ["shifted", "MOVED", "unresolved", "chance", "unresolved"]


def test_a_point_beyond_the_tolerance_fails_only_when_the_adjusted_interval_is_wholly_beyond_it():
    """MOVED needs the Holm-adjusted p of |diff| <= tolerance below 1 - conf, not only the point estimate beyond
    the tolerance (a move within the tolerance failed a check far more often than 1 - conf)."""
    rows = _rows(p=[1e-6, 1e-6, 1e-6, 1e-6],
                 diff=[0.05, 0.012, 0.05, 0.05],
                 lo=[0.03, 0.006, 0.03, 0.03],
                 hi=[0.07, 0.018, 0.07, 0.07],
                 tol=[0.01, 0.01, 0.01, 0.01],
                 # beyond at its Holm level; the interval holds the tolerance; 0.02 < 0.05 alone, but Holm
                 # multiplies it by 3 (0.06); 0.001 * 4
                 p_beyond=[0.001, 0.4, 0.02, 0.001])
    out = baseline.decide(rows, conf=0.95)
    assert out["significant"].all()
    assert out["p_beyond_adjusted"].tolist() == pytest.approx([0.004, 0.4, 0.04, 0.004])
    assert out["verdict"].tolist() == ["MOVED", "unresolved", "MOVED", "MOVED"]
    # at conf 0.99 the third (0.04 after Holm) is no longer wholly beyond at its level
    assert baseline.decide(rows, conf=0.99)["verdict"].tolist() == ["MOVED", "unresolved", "unresolved", "MOVED"]
    with pytest.raises(ValueError, match="p_beyond"):  # a tolerance needs its test
        baseline.decide(rows.drop(columns=["p_beyond"]), conf=0.95)


def test_with_tolerance_0_the_rule_is_significance_as_before():
    rng = np.random.default_rng(5)
    p = rng.random(40) ** 3
    diff = rng.normal(0, 0.02, 40)
    half = rng.random(40) * 0.03
    rows = _rows(p=p, diff=diff, lo=diff - half, hi=diff + half, tol=[0.0] * 40)
    out = baseline.decide(rows, conf=0.95)
    assert out["p_beyond"].tolist() == p.tolist()
    sig = (out["p_adjusted"] < 0.05) & ((out["lo"] > 0) | (out["hi"] < 0))
    assert 0 < sig.sum() < 40
    assert out["verdict"].tolist() == np.where(sig, "MOVED", np.where(diff != 0, "unresolved", "chance")).tolist()
    # and the test of |diff| <= 0 is the paired test itself
    a, b = rng.random(500) < 0.4, rng.random(500) < 0.5
    for d in (stats.paired_rate_diff(a, b), stats.paired_mean_diff(a * 3.0, b * 2.0)):
        assert stats.paired_beyond_p(d, 0.0) == d["p_value"]


def test_the_check_headline_does_not_call_unresolved_rows_within_tolerance():
    """An unresolved row differs by more than its tolerance: a passing check with one says that nothing moved
    beyond chance or tolerance and counts them, not "all N metrics within tolerance"."""
    rows = _rows(p=[1.0, 1.0, 0.3, 0.4], diff=[0.0, 0.0, 0.05, 0.002], lo=[0.0, 0.0, -0.02, -0.01],
                 hi=[0.0, 0.0, 0.12, 0.014], tol=[0.01] * 4, identical=[True, True, False, False],
                 p_beyond=[1.0, 1.0, 0.6, 1.0])
    rows["baseline"], rows["now"] = 0.4, rows["diff"] + 0.4
    res = baseline.CheckResult("t", baseline.decide(rows), 0.95, saved="then", folder="store/t")
    assert res.passed and res.rows["verdict"].tolist() == ["identical", "identical", "unresolved", "chance"]
    text = baseline.format_check(res)
    assert text.splitlines()[0] == ("check t: none of 4 metrics moved beyond chance or tolerance (2 identical "
                                    "game by game, 1 unresolved; baseline store/t, saved then)")
    assert "within tolerance" not in text and "unresolved: 1 metric differs by more than its tolerance" in text
    rows.loc[2, ["diff", "hi"]] = [0.005, 0.07]  # within the tolerance: the headline says so
    res = baseline.CheckResult("t", baseline.decide(rows), 0.95, saved="then", folder="store/t")
    assert baseline.format_check(res).startswith("check t: all 4 metrics within tolerance (2 identical game by "
                                                 "game; baseline store/t, saved then)")


@pytest.mark.parametrize("kind", ["rate", "mean"])
def test_the_beyond_p_is_the_interval_inverted(kind):
    """p_beyond < a exactly when the interval at 1 - a lies wholly beyond the tolerance."""
    rng = np.random.default_rng(11)
    a = rng.random(3000) < 0.3
    b = np.where(rng.random(3000) < 0.7, a, rng.random(3000) < 0.42)
    tol = 0.02
    for level in (0.5, 0.9, 0.95, 0.96, 0.97, 0.99, 0.999):
        if kind == "rate":
            d = stats.paired_rate_diff(a, b, level)
        else:
            d = stats.paired_mean_diff(a * 1.0, b * 1.0, level)
        p = stats.paired_beyond_p(d, tol)
        assert 0.0 < p < 1.0
        beyond = d["lo"] > tol or d["hi"] < -tol
        assert beyond == (p < 1.0 - level), (level, p, d["lo"])
    assert stats.paired_beyond_p(d, abs(d["diff"])) == 1.0  # a point within the tolerance


def test_a_move_within_the_tolerance_fails_the_check_at_most_1_minus_conf_of_the_time():
    """Seeded simulation: the engine changed (the games reshuffled) and moved a 30 % win rate by 0.8 and by
    1.0 tolerance (1 point) with 20,000 games. The point-estimate rule failed the first in about 30 % of the
    checks; the check may fail a move within its tolerance at most 1 - conf = 5 % of the time (at the edge,
    one side of a 95 % interval: about 2.5 %)."""
    n, tol, reps = 20_000, 0.01, 200
    for shift in (0.008, 0.010):
        fails = 0
        for s in range(reps):
            rng = np.random.default_rng([17, s])
            a = rng.random(n) < 0.30
            b = rng.random(n) < 0.30 + shift
            rows = []
            for d, kind in ((stats.paired_rate_diff(a, b), "rate"),
                            (stats.paired_mean_diff(a * 1.0, b * 1.0), "mean")):
                rows.append({"kind": kind, "diff": d["diff"], "lo": d["lo"], "hi": d["hi"],
                             "p_value": d["p_value"], "tolerance": tol, "identical": False,
                             "p_beyond": stats.paired_beyond_p(d, tol)})
            fails += bool((baseline.decide(pd.DataFrame(rows), 0.95)["verdict"] == "MOVED").any())
        assert fails / reps <= 0.05, (shift, fails)


def test_identical_metrics_count_in_the_family_and_never_fail():
    rows = _rows(p=[0.01, 1.0, 1.0], diff=[0.05, 0.0, 0.0], lo=[0.02, 0.0, 0.0], hi=[0.08, 0.0, 0.0],
                 tol=[0.0, 0.0, 0.0], identical=[False, True, True])
    out = baseline.decide(rows, conf=0.95)
    assert out["p_adjusted"].tolist() == pytest.approx([0.03, 1.0, 1.0])
    assert out["verdict"].tolist() == ["MOVED", "identical", "identical"]
    # at conf 0.99 the same move is within what chance explains after Holm (0.03 > 0.01)
    assert baseline.decide(rows, conf=0.99)["verdict"].tolist() == ["unresolved", "identical", "identical"]


def test_a_significant_p_with_an_interval_holding_zero_is_not_a_move():
    out = baseline.decide(_rows(p=[0.001], diff=[0.02], lo=[-0.001], hi=[0.04], tol=[0.0]), conf=0.95)
    assert out["verdict"].tolist() == ["unresolved"]


# ------------------------------------------------------------------------------ save and check --
SPEC = """name = "{name}"
game = "delve"
seed = 3
games = 600
metrics = ["win", "score"]

[runs.knight]
settings = {{ hero = "knight", policy = "threshold"{extra} }}
{tolerance}
[runs.plain]
settings = ["hero=none", "policy=risk"]
"""


def write_spec(folder: Path, extra: str = "", tolerance: str = "", name: str = "t") -> Path:
    p = folder / f"{name}.toml"
    p.write_text(SPEC.format(name=name, extra=extra, tolerance=tolerance), encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("baselines")
    spec = write_spec(d)
    r = cli("baseline", "save", str(spec), "--out", str(d / "store"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"baseline t: 2 runs saved -> {d / 'store' / 't'}")
    return d, spec


def test_save_stores_per_game_values_summaries_and_provenance(saved):
    d, spec = saved
    b = baseline.load_baseline(d / "store" / "t")
    m = b.manifest
    assert [r["name"] for r in m["runs"]] == ["knight", "plain"]
    assert m["runs"][1]["settings"] == {"hero": "none", "policy": "risk"}
    assert m["code_version"] == {"delve": baseline.code_version("delve")}
    assert m["package_version"] and "git_commit" in m and m["spec_text"] == spec.read_text()
    assert list(b.table.columns) == ["run", "game", "win", "score"]
    k = b.table[b.table["run"] == "knight"]
    assert k["game"].tolist() == list(range(600))
    s = m["runs"][0]["summary"]
    assert s["games"] == 600 and int(k["win"].sum()) == round(s["win"]["rate"] * 600)
    assert k["score"].mean() == pytest.approx(s["score"]["mean"])


def test_an_identical_rerun_passes(saved):
    d, spec = saved
    r = cli("check", str(spec), "--baselines", str(d / "store"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("check t: all 4 metrics within tolerance (4 identical game by game")
    by_name = cli("check", "t", "--baselines", str(d / "store"), "--format", "json")
    assert by_name.returncode == 0, by_name.stderr
    res = json.loads(by_name.stdout)
    assert res["passed"] and res["moved"] == 0 and {x["verdict"] for x in res["rows"]} == {"identical"}


def test_a_rules_change_fails_with_exit_1_and_names_the_metric(saved, tmp_path):
    d, _ = saved
    changed = write_spec(tmp_path, extra=', "game.party_dice" = 5')
    r = cli("check", str(changed), "--baselines", str(d / "store"))
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("check t: 2 of 4 metrics MOVED")
    header = next(i for i, x in enumerate(lines) if x.startswith("run "))
    assert "baseline" in lines[header] and "p adj" in lines[header] and "tolerance" in lines[header]
    moved = [x.split() for x in lines[header + 1:header + 3]]
    assert [(x[0], x[1], x[-1]) for x in moved] == [("knight", "win", "MOVED"), ("knight", "score", "MOVED")]
    assert "run knight: settings changed since the baseline" in r.stdout
    assert "replay it with: foury-sim replay delve --seed 3 --game" in r.stdout
    assert "--set game.party_dice=5" in r.stdout


def test_a_tolerance_wide_enough_accepts_the_same_change(saved, tmp_path):
    d, _ = saved
    changed = write_spec(tmp_path, extra=', "game.party_dice" = 5', tolerance="tolerance = { win = 0.5, score = 100 }")
    r = cli("check", str(changed), "--baselines", str(d / "store"), "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads(r.stdout)
    verdicts = {(x["run"], x["metric"]): x["verdict"] for x in res["rows"]}
    assert verdicts == {("knight", "win"): "shifted", ("knight", "score"): "shifted", ("plain", "win"): "identical",
                        ("plain", "score"): "identical"}


def test_a_designers_rules_file_edit_is_seen(tmp_path):
    rules = tmp_path / "my_rules.toml"
    rules.write_text("[game]\nparty_dice = 7\n", encoding="utf-8")
    spec = tmp_path / "mine.toml"
    spec.write_text(f'game = "delve"\ngames = 400\n[runs.own]\nsettings = {{ rules = "{rules.as_posix()}" }}\n',
                    encoding="utf-8")
    baseline.save(spec, tmp_path / "store", progress=False)
    stored = baseline.load_baseline(tmp_path / "store" / "mine").manifest
    assert list(stored["input_files"]) == [str(rules)]
    assert baseline.check(spec, tmp_path / "store", progress=False).passed
    rules.write_text("[game]\nparty_dice = 4\n", encoding="utf-8")
    res = baseline.check("mine", tmp_path / "store", progress=False)  # by name: the stored spec, the edited file
    assert not res.passed and "win" in set(res.moved["metric"])
    assert f"file {rules} changed since the baseline" in res.notes


def test_a_changed_code_version_with_nothing_moved_is_reported(saved, tmp_path):
    d, spec = saved
    import shutil

    store = tmp_path / "store"
    shutil.copytree(d / "store", store)
    m = json.loads((store / "t" / "baseline.json").read_text())
    m["code_version"]["delve"] = "0123456789abcdef"
    (store / "t" / "baseline.json").write_text(json.dumps(m))
    res = baseline.check(spec, store, progress=False)
    assert res.passed
    assert (f"code version of delve changed since the baseline (0123456789abcdef -> {baseline.code_version('delve')}"
            "); nothing moved: every game played the same") in res.notes


# ----------------------------------------------------------------------------------- bad input --
def test_missing_baseline_is_one_line(tmp_path):
    line = one_line_error(cli("check", "nosuch", "--baselines", str(tmp_path)))
    assert "no baseline 'nosuch'" in line and "baseline save" in line
    spec = write_spec(tmp_path, name="unsaved")
    line = one_line_error(cli("check", str(spec), "--baselines", str(tmp_path)))
    assert "no baseline 'unsaved'" in line


def test_missing_spec_is_one_line(tmp_path):
    line = one_line_error(cli("baseline", "save", str(tmp_path / "none.toml"), "--out", str(tmp_path)))
    assert "does not exist" in line
    # check of a spec file that is not there, without --baselines: it said "--baselines: no baselines folder
    # 'results/baselines'" (an option not given) and never that the file is missing
    r = cli("check", str(tmp_path / "none.toml"), cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == (f"foury-sim: error: SPEC: baseline spec '{tmp_path / 'none.toml'}' does not exist (a TOML "
                        "file, or the name of one in experiments/baselines)\n")


@pytest.mark.parametrize("text, where, words", [
    ('game = "delve"\nbogus = 1\n[runs.a]\n', ":2", "unknown key 'bogus'"),
    ('game = "delve"\n[runs.a]\nmetrics = ["win", "nope"]\n', ":3", "'nope' is not a metric of delve"),
    ('game = "delve"\n[tolerance]\nwin = -0.1\n[runs.a]\n', ":2", "must be a finite number >= 0"),
    # a rate's tolerance of 1 or more (5 meant as 5 points): no move of the rate could ever fail the check
    ('game = "delve"\n[tolerance]\nwin = 5\n[runs.a]\n', ":3",
     "tolerance of 'win', a rate, must be below 1 (absolute: 0.01 is one percentage point), not 5"),
    ('game = "delve"\n[runs.a]\ntolerance = { win = 1 }\n', ":3", "tolerance of 'win', a rate, must be below 1"),
    ('game = "delve"\ngames = 1\n[runs.a]\n', ":2:9", "games must be a whole number between 2"),
    ('game = "delve"\n[runs.a]\nsettings = { hero = "nobody" }\n', ":3", "nobody"),
    ('game = "delve"\n[runs.a]\nhero = "knight"\n', ":3", "unknown run key 'hero'"),
    ('game = "delve"\n', "", "a baseline needs runs"),
    ('game = "delve"\n[runs.a\n', ":2", "malformed TOML"),
    ('game = "nogame"\n[runs.a]\n', ":1", "nogame"),
])
def test_bad_spec_is_refused_at_file_line(tmp_path, text, where, words):
    p = tmp_path / "bad.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as e:
        baseline.load_spec(p)
    assert e.value.where == f"{p}{where}" or e.value.where.startswith(f"{p}{where}:"), e.value.where
    assert words in e.value.message


def test_fuzzed_specs_load_or_are_refused_as_input_errors(tmp_path):
    """Mutations of a valid spec (values swapped for other types and out-of-range numbers, keys renamed, lines
    dropped or cut): each loads, or is refused with an InputError naming the file; nothing else escapes."""
    import random

    rng = random.Random(13)
    good = SPEC.format(name="t", extra=', "param.retire_level" = 4', tolerance="tolerance = { win = 0.01 }")
    values = ['"x"', "-1", "0", "1.5", "nan", "[]", "[1, 2]", '["win", 3]', "{}", "{ a = 1 }", "true", '""',
              "1979-05-27", '"knight"', '"delve"', "99999999999999999999", '"hero=none"']
    p = tmp_path / "f.toml"
    p.write_text(good, encoding="utf-8")
    assert baseline.load_spec(p).runs[0].settings["param.retire_level"] == 4
    loaded = refused = 0
    for _ in range(150):
        lines = good.splitlines()
        for _ in range(rng.choice([1, 1, 2, 3])):
            i = rng.randrange(len(lines))
            op = rng.random()
            if "=" in lines[i] and op < 0.6:
                k, _, v = lines[i].partition("=")
                if v.strip().startswith("{") and rng.random() < 0.5:  # a value inside an inline table
                    inner = v.strip()[1:-1].split(",")
                    j = rng.randrange(len(inner))
                    ik, _, _ = inner[j].partition("=")
                    inner[j] = f"{ik}= {rng.choice(values)}"
                    lines[i] = f"{k}= {{{','.join(inner)} }}"
                else:
                    lines[i] = f"{k}= {rng.choice(values)}"
            elif op < 0.75:
                lines[i] = lines[i].replace("knight", rng.choice(["", "Knight", "knight.x", "runs"]))
            elif op < 0.9:
                del lines[i]
            else:
                lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        try:
            baseline.load_spec(p)
            loaded += 1
        except InputError as e:
            assert str(e).startswith(f"{p}"), (str(e), lines)
            refused += 1
    assert loaded and refused


def test_bad_spec_on_the_command_line_is_one_line_exit_2(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('game = "delve"\n[runs.a]\nmetrics = ["win", "nope"]\n', encoding="utf-8")
    for args in (("baseline", "save", str(p), "--out", str(tmp_path)), ("check", str(p), "--baselines", str(tmp_path))):
        assert f"{p}:3: 'nope' is not a metric of delve" in one_line_error(cli(*args))


def test_a_spec_whose_dice_differ_from_the_baseline_is_refused(saved, tmp_path):
    d, _ = saved
    p = tmp_path / "t.toml"
    p.write_text(SPEC.format(name="t", extra="", tolerance="").replace("seed = 3", "seed = 4"), encoding="utf-8")
    line = one_line_error(cli("check", str(p), "--baselines", str(d / "store")))
    assert "run 'knight': game, seed or games differ from the baseline" in line


def test_a_damaged_baseline_is_refused(saved, tmp_path):
    d, spec = saved
    import shutil

    store = tmp_path / "store"
    shutil.copytree(d / "store", store)
    df = pd.read_parquet(store / "t" / "games.parquet")
    df.loc[0, "win"] = 1 - df.loc[0, "win"]
    df.to_parquet(store / "t" / "games.parquet", index=False)
    line = one_line_error(cli("check", "t", "--baselines", str(store)))
    assert "games.parquet does not match baseline.json" in line
    (store / "t" / "games.parquet").unlink()
    assert "games.parquet is missing" in one_line_error(cli("check", "t", "--baselines", str(store)))


def test_rate_metrics_are_stored_as_0_1_and_compared_with_mcnemar(saved):
    d, spec = saved
    res = baseline.check(spec, d / "store", progress=False)
    win = res.rows[res.rows["metric"] == "win"]
    assert set(win["test"]) == {"exact McNemar"}
    assert set(res.rows[res.rows["metric"] == "score"]["test"]) == {"paired t"}
    t = baseline.load_baseline(d / "store" / "t").table
    assert set(np.unique(t["win"])) <= {0.0, 1.0}


# ------------------------------------------------------------- metrics of a mode or a campaign --
MODES = """name = "modes"
game = "foury"
seed = 5
games = 40

[runs.base]
settings = {{ hero = "kael" }}

[runs.duel]
settings = {{ hero = "kael", "two_player.players" = {players} }}

[runs.santa]
settings = {{ campaign = "santa" }}

[runs.kraken]
settings = {{ campaign = "kraken" }}
"""


def test_default_metrics_are_the_mean_columns_each_run_has(tmp_path):
    """A spec without metrics watches win and the MEAN columns each run has: a 2-player mode's and the Kraken's own
    columns only in the runs that play them (every MEAN column of the game for every run was a KeyError traceback)."""
    spec = tmp_path / "modes.toml"
    spec.write_text(MODES.format(players=2), encoding="utf-8")
    r = cli("baseline", "save", str(spec), "--out", str(tmp_path / "store"))
    assert r.returncode == 0, r.stdout + r.stderr
    from foury_sim.registry import get_game

    means = get_game("foury").outputs.mean_columns
    runs = {x["name"]: x for x in baseline.load_baseline(tmp_path / "store" / "modes").manifest["runs"]}
    common = ["win", "rounds_completed", "hearts_left", "turns", "score", "kills"]
    assert runs["base"]["metrics"] == runs["santa"]["metrics"] == common
    assert set(runs["duel"]["metrics"]) - set(common) == {m for m in means if m.startswith("p2_")} | {"first_seat_edge"}
    assert set(runs["kraken"]["metrics"]) - set(common) == {m for m in means if m.startswith("kr_")}
    assert all(set(x["tolerance"]) == set(x["metrics"]) for x in runs.values())
    r = cli("check", str(spec), "--baselines", str(tmp_path / "store"))
    n = sum(len(x["metrics"]) for x in runs.values())
    assert r.returncode == 0 and r.stdout.startswith(f"check modes: all {n} metrics within tolerance ({n} identical")
    # the duel played alone now: the metrics both sides have are compared, the others named in a note
    spec.write_text(MODES.format(players=1), encoding="utf-8")
    res = baseline.check(spec, tmp_path / "store", progress=False)
    assert set(res.rows.loc[res.rows["run"] == "duel", "metric"]) == set(common)
    assert any(x.startswith("run duel: not compared") and "p2_turns_first" in x for x in res.notes), res.notes


@pytest.mark.parametrize("where, metrics", [("file", 'metrics = ["win", "kr_fights"]\n'), ("run", "")])
def test_a_named_metric_a_run_does_not_have_is_one_line(tmp_path, where, metrics):
    text = MODES.format(players=2).replace("games = 40\n", "games = 40\n" + metrics)
    if where == "run":
        text = text.replace('[runs.santa]\n', '[runs.santa]\nmetrics = ["win", "p2_duels"]\n')
    p = tmp_path / "bad.toml"
    p.write_text(text, encoding="utf-8")
    line = one_line_error(cli("baseline", "save", str(p), "--out", str(tmp_path / "store")))
    name, metric, at = ("base", "kr_fights", 5) if where == "file" else ("santa", "p2_duels", 13)
    assert line.startswith(f"foury-sim: error: {p}:{at}: run {name!r} has no metric {metric!r}"), line
    assert not (tmp_path / "store").exists()


BAD_POLICY = "def bad(kind, state, options, n_options, params):\n    return n_options + 3\n"


@pytest.mark.parametrize("settings, line", [
    ('settings = {{ hero = "knight", policy = "{pol}" }}', 7),
    ('[runs.a.settings]\nhero = "knight"\n\npolicy = "{pol}"', 10),
    ('settings = [\n  "hero=knight",\n  "policy={pol}",\n]', 9),
])
def test_a_user_policys_fault_is_named_at_the_line_that_gives_the_policy(tmp_path, settings, line):
    """A user policy that answers out of range in a baseline's run was named at the run's [runs.NAME] line, not
    where the policy is given."""
    pol = tmp_path / "p.py"
    pol.write_text(BAD_POLICY)
    spec = tmp_path / "b.toml"
    text = ('name = "b"\ngame = "delve"\ngames = 10\n\n[runs.a]\nseed = 2\n' + settings.format(pol=f"{pol}:bad")
            + '\n\n[runs.b]\nsettings = ["hero=knight"]\n')
    spec.write_text(text)
    assert "policy" in text.splitlines()[line - 1]
    with pytest.raises(InputError) as e:
        baseline.save(baseline.load_spec(spec), tmp_path / "store", progress=False)
    assert e.value.where == f"{spec}:{line}" and "out of range" in e.value.message and f"{pol}:bad" in e.value.message
