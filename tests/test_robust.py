"""Robustness studies: designs reproducible from the seed, shares and sensitivities on known answers,
and a tiny real study through both paths (one at a time and Latin hypercube) on common dice."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from inproc import cli  # foury-sim ARGS in this process (tests/inproc.py)

from foury_sim.errors import InputError
from foury_sim.robust import (
    Conclusion,
    Factor,
    RobustExperiment,
    _cell_key,
    design_points,
    evaluate,
    load_robust,
    run_robust,
    sensitivity,
    share_summary,
    unit_design,
)

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "data" / "robust" / "tiny.toml"


@pytest.mark.parametrize("kind", ["lhs", "sobol"])
def test_design_is_reproducible_from_the_seed(kind):
    a, b, c = unit_design(3, 16, 7, kind), unit_design(3, 16, 7, kind), unit_design(3, 16, 8, kind)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert a.shape == (16, 3) and ((a >= 0) & (a < 1)).all()


def test_latin_hypercube_puts_one_point_in_each_stratum():
    u = unit_design(4, 10, 3)
    for col in u.T:
        assert sorted(np.floor(col * 10).astype(int)) == list(range(10))


def test_factor_values_and_one_at_a_time_points():
    f = Factor("k", 2, range=[1, 4])
    assert [f.value(x) for x in (0.0, 0.24, 0.25, 0.99)] == [1, 1, 2, 4]
    assert f.oat() == [1, 4] and f.integer
    g = Factor("m", "base", levels=["base", "x", "y"])
    assert [g.value(x) for x in (0.0, 0.34, 0.7)] == ["base", "x", "y"] and g.oat() == ["x", "y"]
    assert g.code("y") == 2.0
    pts, u = design_points([f, g], 5, 1)
    assert [p["kind"] for p in pts] == ["baseline"] + ["oat"] * 4 + ["lhs"] * 5
    assert pts[0]["values"] == {"k": 2, "m": "base"}
    assert pts[1]["values"] == {"k": 1, "m": "base"} and pts[4]["values"] == {"k": 2, "m": "y"}
    again, _ = design_points([f, g], 5, 1)
    assert again == pts


def _synthetic(n_points: int = 10, games: int = 1000):
    """Known answer: cell 'a' wins at rate x (x over 0..1, default 0.8), cell 'b' at 0.5; z is irrelevant."""
    fx, fz = Factor("x", 0.8, range=[0.0, 1.0]), Factor("z", 0.5, range=[0.0, 1.0])
    ranking = Conclusion("rank", "ranking", [{"hero": "a"}, {"hero": "b"}], "hero", ["a", "b"])
    target = Conclusion("a >= 30 %", "target", [{"hero": "a"}], target=0.3)
    exp = RobustExperiment("syn", "foury", 1, games, n_points, "lhs", {}, [fx, fz], [ranking, target], [])
    points, u = design_points(exp.factors, n_points, seed=11)
    wins = {}
    for i, p in enumerate(points):
        for cell, rate in (({"hero": "a"}, p["values"]["x"]), ({"hero": "b"}, 0.5)):
            w = np.zeros(games, np.int8)
            w[: int(round(rate * games))] = 1
            wins[(i, _cell_key(cell))] = w
    return exp, points, u, wins


def test_shares_on_a_known_answer():
    exp, points, u, wins = _synthetic()
    ev = evaluate(exp, points, wins)
    summ = share_summary(ev, "lhs").set_index("claim")
    # one point per tenth of x: the target (x > 0.3) holds at exactly 7 of 10, the ranking (x > 0.5) at 5
    assert summ.loc["a >= 30 %", "share_holds"] == pytest.approx(0.7)
    assert summ.loc["ranking a > b", "share_holds"] == pytest.approx(0.5)
    assert summ.loc["a > b", "share_holds"] == pytest.approx(0.5)
    assert summ.loc["a >= 30 %", "holds_at_defaults"] and summ.loc["a >= 30 %", "margin_at_defaults"] == \
        pytest.approx(0.5)
    assert summ.loc["a >= 30 %", "oat_holds"] == "3/4"  # x = 0 fails; x = 1, z = 0 and z = 1 hold
    assert summ.loc["a >= 30 %", "share_lo"] < 0.7 < summ.loc["a >= 30 %", "share_hi"]
    # with 1000 games a gap of 10 points is clear either way; "clearly" never contradicts the estimate
    x = np.array([p["values"]["x"] for p in points if p["kind"] == "lhs"])
    rank = ev[(ev["claim"] == "ranking a > b") & (ev["kind"] == "lhs")]
    assert list(rank["holds_clearly"].to_numpy()[np.abs(x - 0.5) > 0.1]) == list(x[np.abs(x - 0.5) > 0.1] > 0.5)
    assert list(rank["fails_clearly"].to_numpy()[np.abs(x - 0.5) > 0.1]) == list(x[np.abs(x - 0.5) > 0.1] < 0.5)
    assert not (rank["holds_clearly"] & ~rank["holds"]).any() and not (rank["fails_clearly"] & rank["holds"]).any()


def test_a_ranking_fails_clearly_only_at_the_level_of_the_family_of_its_pairs():
    """A ranking's "fails clearly" is drawn from all its pairs: b below c by a margin the 95 % interval of that
    pair alone excludes 0 for, but the family's (Bonferroni over the 3 pairs) does not, is no clear failure of the
    ranking (it was: any pair at 95 %, a family error up to three times the level); the pair's own row keeps 95 %."""
    from foury_sim import stats

    n = 1000
    ranking = Conclusion("rank", "ranking", [{"hero": h} for h in "abc"], "hero", list("abc"))
    exp = RobustExperiment("syn", "foury", 1, n, 1, "lhs", {}, [Factor("x", 0.8, range=[0.0, 1.0])], [ranking], [])
    points = [{"kind": "baseline", "factor": "", "values": {}}, {"kind": "lhs", "factor": "", "values": {}}]

    def first(k):
        w = np.zeros(n, np.int8)
        w[:k] = 1
        return w

    b, c = first(410), np.zeros(n, np.int8)
    c[:400] = 1
    c[410:433] = 1  # b and c share 400 wins; b alone wins 10, c alone 23
    def key(h):  # (a cell's key in ``wins``, as the study makes it)
        return _cell_key({"hero": h})

    wins = {(0, key("a")): first(900), (0, key("b")): first(500), (0, key("c")): first(300),
            (1, key("a")): first(900), (1, key("b")): b, (1, key("c")): c}
    assert stats.paired_rate_diff(c, b, 0.95)["hi"] < 0 < stats.paired_rate_diff(c, b, 1 - 0.05 / 3)["hi"]
    ev = evaluate(exp, points, wins).set_index(["claim", "point"])
    assert ev.loc[("b > c", 1), "fails_clearly"]  # the pair on its own, at 95 %
    whole = ev.loc[("ranking a > b > c", 1)]
    assert not whole["holds"] and not whole["holds_clearly"] and not whole["fails_clearly"]
    c[433:460] = 1  # c well above b: the ranking fails clearly at the family's level too
    assert evaluate(exp, points, wins).set_index(["claim", "point"]).loc[("ranking a > b > c", 1), "fails_clearly"]


def test_sensitivity_finds_the_assumption_that_matters():
    exp, points, u, wins = _synthetic(n_points=40)
    ev = evaluate(exp, points, wins)
    sens = sensitivity(ev, points, exp.factors, "lhs").set_index(["claim", "factor"])
    assert sens.loc[("a >= 30 %", "x"), "src"] == pytest.approx(1.0, abs=0.01)
    assert abs(sens.loc[("a >= 30 %", "z"), "src"]) < 0.02
    assert sens.loc[("a >= 30 %", "x"), "spearman"] == pytest.approx(1.0, abs=0.01)
    assert sens.loc[("a >= 30 %", "x"), "r2"] == pytest.approx(1.0, abs=0.001)
    # one at a time: x from 0.8 to 0 lowers the margin by 0.8, to 1 raises it by 0.2; z changes nothing
    assert sens.loc[("a >= 30 %", "x"), "oat_low"] == pytest.approx(-0.8)
    assert sens.loc[("a >= 30 %", "x"), "oat_high"] == pytest.approx(0.2)
    assert sens.loc[("a >= 30 %", "z"), "oat_low"] == sens.loc[("a >= 30 %", "z"), "oat_high"] == 0


@pytest.mark.parametrize("extra, kind, key", [
    ('metric = "score"\n', "target", "metric"),  # (judged the win rate: metric was dropped)
    ('over = "hero"\n', "target", "over"),
    ('targett = 0.3\n', "ranking", "targett"),
])
def test_a_conclusion_key_its_kind_does_not_read_is_refused_at_its_own_conclusion(tmp_path, extra, kind, key):
    f = tmp_path / "bad.toml"
    ranking = '[[conclusions]]\nkind = "ranking"\nover = "hero"\nvalues = ["kael", "melyra"]\n'
    target = '[[conclusions]]\nkind = "target"\ntarget = 0.2\n'
    text = 'game = "foury"\n' + ranking + (extra if kind == "ranking" else "") + target + (extra if kind == "target"
                                                                                           else "")
    f.write_text(text)
    with pytest.raises(InputError) as e:
        load_robust(f)
    n = 1 if kind == "ranking" else 2  # (each at its own conclusion's key: all were at the first's header)
    head = [i for i, x in enumerate(text.splitlines(), 1) if x == "[[conclusions]]"][n - 1]
    line = next(i for i, x in enumerate(text.splitlines(), 1) if i > head and x == extra.strip())
    keys = "kind, name, over, values, settings" if kind == "ranking" else "kind, name, settings, target, direction"
    assert (e.value.where, e.value.message) == (f"{f}:{line}", f"conclusion {n}: a {kind} takes {keys}, not {key!r}")


def test_a_ranking_of_a_value_against_itself_is_refused(tmp_path):
    f = tmp_path / "bad.toml"  # (it was played and reported: the ranking of kael, kael)
    f.write_text('game = "foury"\n[[conclusions]]\nkind = "ranking"\nover = "hero"\nvalues = ["kael", "kael"]\n')
    with pytest.raises(InputError) as e:
        load_robust(f)
    assert (e.value.where, e.value.message) == (f"{f}:5", "conclusion 1: values lists 'kael' twice (a ranking orders "
                                                          "different values)")


@pytest.mark.parametrize("conclusion, message", [
    ('kind = "target"\nname = "x"\nsettings = { hero = "free" }\ntarget = 1.5\n',
     "target must be a win rate between 0 and 1"),
    ('kind = "target"\ntarget = 0.2\n# the direction\ndirection = "above"\n',
     "direction must be 'at_least' or 'at_most'"),
    ('kind = "target"\ntarget = 0.2\nsettings = 3\n', "settings must be a table"),
    ('kind = "ranking"\nover = "hero"\nvalues = ["kael"]\n', "a ranking needs over = KEY and values = [at least 2]"),
])
def test_a_bad_key_of_the_second_conclusion_is_reported_at_its_own_line(tmp_path, conclusion, message):
    """A bad ``target = 1.5`` was reported at its [[conclusions]] header, not at the target's line."""
    f = tmp_path / "bad.toml"
    text = ('game = "foury"\n[[conclusions]]\nkind = "target"\ntarget = 0.2\n\n[[conclusions]]\n' + conclusion
            + '\n[fixed]\nhero = "kael"\n')
    f.write_text(text)
    with pytest.raises(InputError) as e:
        load_robust(f)
    line = len(text.splitlines()) - 3  # the conclusion's last line, the key at fault
    assert (e.value.where, e.value.message) == (f"{f}:{line}", f"conclusion 2: {message}")


@pytest.mark.parametrize("fixed, conclusion, line, message", [
    # (they named --hero / --set KEY, never given, "(at the defaults, cell ...)", and no line of the file)
    ("", 'kind = "ranking"\nover = "hero"\nvalues = ["kael", "kaell"]\n', 2,
     "unknown hero 'kaell' for foury (did you mean 'kael'? known: free, kael, melyra, thalindra, elydion)"),
    ("", 'kind = "target"\ntarget = 0.2\nsettings = { "round.monster_bonuss" = 1 }\n', 2,
     "unknown ruleset key 'round.monster_bonuss' (did you mean 'monster_bonus'?)"),
    ('[fixed]\n"game.max_turnss" = 9\n', 'kind = "target"\ntarget = 0.2\n', 3,
     "unknown ruleset key 'game.max_turnss' (did you mean 'max_turns'?)"),
    ('[fixed]\npolicy = "greedyy"\n', 'kind = "target"\ntarget = 0.2\n', 2,
     "unknown policy 'greedyy' (did you mean 'greedy'? built-in: random, greedy, cautious, kraken, search; "
     "or FILE.py:FUNCTION)"),
])
def test_a_bad_setting_of_a_conclusion_or_of_fixed_names_its_line(tmp_path, fixed, conclusion, line, message):
    f = tmp_path / "bad.toml"
    f.write_text('game = "foury"\n' + fixed + '[[conclusions]]\n' + conclusion)
    with pytest.raises(InputError) as e:
        load_robust(f)
    assert (e.value.where, e.value.message) == (f"{f}:{line}", message)


def test_experiment_errors_point_at_the_file(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('game = "foury"\nvary = ["heroes.kael.start", "round.monster_bonus"]\n'
                 '[[conclusions]]\nkind = "target"\ntarget = 0.2\n')
    with pytest.raises(InputError, match="not a declared assumption") as e:
        load_robust(f)
    assert e.value.where == f"{f}:2"
    f.write_text('game = "foury"\n[[conclusions]]\nkind = "ranking"\nover = "hero"\nvalues = ["kael"]\n')
    with pytest.raises(InputError, match="at least 2"):
        load_robust(f)
    f.write_text('game = "foury"\nvary = ["game.max_turns"]\n[factors]\n"game.map" = "base"\n'
                 '[[conclusions]]\nkind = "target"\ntarget = 0.2\n')
    with pytest.raises(InputError, match="must be a list"):
        load_robust(f)
    f.write_text('game = "foury"\nvary = []\n[[conclusions]]\nkind = "target"\ntarget = 0.2\n')
    with pytest.raises(InputError, match="nothing to vary") as e:  # (it ran the whole study, then a KeyError)
        load_robust(f)
    assert e.value.where == f"{f}:2"


def test_shipped_experiment_loads():
    exp = load_robust(ROOT / "experiments" / "robust_hero_ranking.toml")
    keys = [f.key for f in exp.factors]
    assert "game.map" in keys and "heroes.elydion.start" in keys and "game.max_turns" not in keys
    points, _ = design_points(exp.factors, exp.points, exp.seed, exp.design)
    assert len(exp.cells()) == 6 and len(points) == 1 + sum(len(f.oat()) for f in exp.factors) + exp.points


def test_the_readmes_hero_finding_states_only_what_holds_at_every_point():
    """README (a) Hero difficulty: the bullet headed "Finding (holds, clearly, at every one-at-a-time point and at
    100 % of the joint points)" names exactly the pairwise claims of the shipped robustness study that hold so;
    a claim that holds at fewer of the joint points (the free character over Elydion, 91 %) is conditional."""
    import re

    rows = pd.read_csv(ROOT / "results" / "robust_hero_ranking" / "robustness.csv")
    pairs = rows[rows["claim"].str.fullmatch(r"\w+ > \w+")]
    every = pairs[(pairs["share_holds_clearly"] == 1.0) & pairs["oat_holds"].map(lambda x: len(set(x.split("/"))) == 1)]
    assert set(every["claim"]) == {"kael > free", "kael > elydion", "melyra > free", "melyra > elydion"}
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    head = "* **Finding** (holds, clearly, at every one-at-a-time point and at 100 % of the joint points):"
    assert text.count(head) == 1
    bullet = text[text.index(head) + len(head):].split("\n* ", 1)[0]
    assert re.findall(r"\d+(?:\.\d+)? %", bullet) == []  # no share below 100 % inside a finding
    assert "Kael and\n  Melyra are stronger than the free character and than Elydion." in bullet
    cond = text[text.index("* **Conditional**: the free character beats Elydion"):].split("\n* ", 1)[0]
    share = rows.loc[rows["claim"] == "free > elydion", "share_holds"].item()
    assert f"{100 * share:.0f} % of the joint" in cond.replace("\n  ", " ")


def test_a_campaign_in_fixed_varies_the_campaigns_assumptions():
    """`campaign` in [fixed] is the run option (not a ruleset key): the campaign's own assumptions (Santa's Wrath,
    only declared when [santa] is on) can be varied, and every cell plays the campaign."""
    exp = load_robust(ROOT / "experiments" / "robust_campaign_santa.toml")
    keys = [f.key for f in exp.factors]
    assert "santa.wrath_strength" in keys and "game.map" not in keys
    assert exp.fixed["campaign"] == "santa" and len(exp.cells()) == 4


def test_a_map_a_design_point_switches_to_is_among_the_studys_input_files(tmp_path):
    """A factor's alternative that names a user's map (``[factors] "game.map" = [...]``) or a rules file naming
    one is read by the design points that take it: its sha256 is among the study's input files (the manifest's,
    and the ``experiment_id`` a ``--resume`` checks), as the defaults' files are. Before, only the cells at the
    defaults were read, so an edited map left the record as it was."""
    import hashlib
    import shutil

    board = tmp_path / "my.map"
    shutil.copy(ROOT / "foury_sim/games/foury/data/maps/base.map", board)
    rules = tmp_path / "r.toml"
    rules.write_text(f'[game]\nmap = "{board}"\n')
    text = TINY.read_text().replace('vary = ["game.map", "heroes.kael.start"]', 'vary = ["heroes.kael.start"]')
    exp_file = tmp_path / "maps.toml"
    exp_file.write_text(text + f'\n[factors]\n"game.map" = ["base", "{board}"]\n')
    sha = hashlib.sha256(board.read_bytes()).hexdigest()
    out = run_robust(load_robust(exp_file, games=10, points=1), tmp_path / "out", progress=False)
    assert json.loads((out / "manifest.json").read_text())["input_files"] == {str(board): sha}
    from foury_sim.robust import robust_files

    exp_file.write_text(text + f'\n[factors]\nrules = ["{rules}"]\n')
    assert robust_files(load_robust(exp_file)) == {
        str(rules): hashlib.sha256(rules.read_bytes()).hexdigest(), str(board): sha}
    assert robust_files(load_robust(TINY)) == {}  # (shipped maps by name: the version names them)


def test_tiny_study_runs_on_common_dice(tmp_path):
    from foury_sim.runner import run

    out = run_robust(TINY, tmp_path, progress=False)
    cells = pd.read_csv(out / "cells.csv")
    design = pd.read_csv(out / "design.csv")
    assert list(design["kind"]) == ["baseline", "oat", "oat", "lhs", "lhs", "lhs", "lhs"]
    assert len(cells) == 7 * 2 and (cells["games"] == 30).all()
    # the defaults are exactly what `foury-sim run` gives on the same seed (common dice)
    kael = run("foury", hero="kael", policy="greedy", games=30, seed=5, progress=False)
    base = cells[(cells["kind"] == "baseline") & (cells["cell"] == "hero=kael")]
    assert int(base["wins"].iloc[0]) == int(kael.df["win"].sum())
    # a point that equals the defaults plays the same games
    same = design[(design["kind"] == "lhs") & (design["game.map"] == "base")
                  & (design["heroes.kael.start"] == design["heroes.kael.start"].iloc[0])]
    for p in same["point"]:
        assert list(cells.loc[cells["point"] == p, "wins"]) == list(cells.loc[cells["point"] == 0, "wins"])
    summ = pd.read_csv(out / "robustness.csv")
    assert set(summ.loc[summ["whole"], "claim"]) == {"ranking free > kael", "hero=kael wins >= 0 %"} or \
        set(summ.loc[summ["whole"], "claim"]) == {"ranking kael > free", "hero=kael wins >= 0 %"}
    m = json.loads((out / "manifest.json").read_text())
    assert m["kind"] == "robust" and len(m["factors"]) == 2 and any(a["key"] == "events.C" for a in m["assumptions"])
    md = (out / "report.md").read_text()
    assert "## Verdicts" in md and "## Assumptions of the defaults" in md and "Latin hypercube" in md
    assert f"- Made with: foury-sim {m['package_version']}" in md and m["experiment_id"] in md  # (it had no version)
    assert (out / "figures" / "shares.png").stat().st_size > 1000 and (out / "figures" / "tornado_1.png").exists()
    assert "<table>" in (out / "report.html").read_text()


def test_a_quick_look_has_its_own_folder_beside_the_full_study(tmp_path):
    """``robust --games/--points`` (a quick look) wrote the full study's ``OUT/NAME/``: run first, it was taken for the
    full study there, and the full study was then refused (another experiment in its folder). It goes to
    ``OUT/NAME-quick-games20-points2/``, as a sweep's quick look; the full study's folder is its own."""
    r = cli("robust", str(TINY), "--out", str(tmp_path), "--games", "20", "--points", "2", "--no-progress")
    assert r.returncode == 0, r.stderr
    quick = tmp_path / "tiny-quick-games20-points2"
    assert sorted(p.name for p in tmp_path.iterdir()) == [quick.name]
    m = json.loads((quick / "manifest.json").read_text())
    assert (m["name"], m["games"], m["points"]) == ("tiny-quick-games20-points2", 20, 2)
    assert m["experiment_text"].endswith("\n# command line (quick look): --games 20 --points 2\n")
    r = cli("robust", str(TINY), "--out", str(tmp_path), "--no-progress")  # the full study, the file's 30 games
    assert r.returncode == 0, r.stderr
    full = json.loads((tmp_path / "tiny" / "manifest.json").read_text())
    assert (full["name"], full["games"], full["points"]) == ("tiny", 30, 4)
    assert json.loads((quick / "manifest.json").read_text())["experiment_id"] == m["experiment_id"]  # untouched
    assert load_robust(TINY, points=1).name == "tiny-quick-points1" and load_robust(TINY).name == "tiny"
    # the full study's own command (its manifest's, report's and resume hint's) names the file's games and points:
    # it makes the full study again, not a quick look of the same size
    assert full["command"].endswith("--games 30 --points 4") and load_robust(TINY, games=30, points=4).name == "tiny"
    assert load_robust(TINY, games=30, points=2).name == "tiny-quick-points2"
    with pytest.raises(InputError) as e:
        load_robust(TINY, games=1)
    assert (e.value.where, e.value.message) == ("--games", "must be at least 2, not 1")


@pytest.fixture(scope="module")
def few_points_report(tmp_path_factory):
    """The tiny study with too few joint points for a fit (2 points, 2 assumptions), at 90 %."""
    import dataclasses

    exp = dataclasses.replace(load_robust(TINY), points=2, conf=0.9)
    out = run_robust(exp, tmp_path_factory.mktemp("few"), progress=False)
    return out, (out / "report.md").read_text()


def test_report_says_n_a_not_nan_when_too_few_joint_points(few_points_report):
    """The sensitivity table said "+nan" for every assumption; it says n/a and why."""
    _, md = few_points_report
    assert "nan" not in md
    assert "No SRC or Spearman correlation (n/a below)" in md and "(2 points, 2 assumptions)" in md
    assert "| `game.map` | n/a | n/a |" in md


def test_report_gives_the_defaults_win_rates_with_intervals_at_the_studys_level(few_points_report):
    """The defaults' win rates had no interval; they have the study's level's Wilson interval."""
    from foury_sim import stats

    out, md = few_points_report
    assert "| cell | win rate | 90 % interval | lowest / highest over all points |" in md
    cells = pd.read_csv(out / "cells.csv")
    for _, r in cells[cells["kind"] == "baseline"].iterrows():
        lo, hi = stats.wilson(int(r["wins"]), int(r["games"]), 0.9)
        assert f"| {r['cell']} | {100 * r['win_rate']:.1f} % | {100 * lo:.1f}–{100 * hi:.1f} % |" in md
    assert "The share's 90 % Wilson interval" in md


def test_weak_src_warning_only_between_too_few_points_for_a_fit_and_two_per_assumption():
    from foury_sim.robust import weak_src_warning

    assert weak_src_warning(24, 16) == (
        "the SRCs are weak: 24 joint points for 16 assumptions varied (fewer than 2 per assumption), so the linear "
        "fit has nearly as many coefficients as points and follows the noise; trust the one-at-a-time changes, or "
        "raise --points to 32 or more")
    assert [weak_src_warning(p, 3) is None for p in (4, 5, 6)] == [True, False, True]  # (4: no fit at all)
    assert weak_src_warning(32, 16) is None and weak_src_warning(5, 0) is None


def test_a_study_with_fewer_than_two_joint_points_per_assumption_warns_its_srcs_are_weak(tmp_path):
    """A fit of 3 assumptions on 5 joint points printed its SRCs as if they meant something (the reviewers' study:
    16 assumptions on 24 points); the report and stderr say they are weak."""
    text = TINY.read_text().replace('vary = ["game.map", "heroes.kael.start"]',
                                    'vary = ["game.map", "heroes.kael.start", "events.C"]')
    exp_file = tmp_path / "tiny3.toml"
    exp_file.write_text(text.replace("points = 4", "points = 5"))
    r = cli("robust", str(exp_file), "--out", str(tmp_path), "--no-progress")
    assert r.returncode == 0, r.stderr
    warning = ("the SRCs are weak: 5 joint points for 3 assumptions varied (fewer than 2 per assumption), so the "
               "linear fit has nearly as many coefficients as points and follows the noise; trust the one-at-a-time "
               "changes, or raise --points to 6 or more")
    assert f"foury-sim: warning: tiny: {warning} (said in report.md)" in r.stderr.splitlines()
    md = (tmp_path / "tiny" / "report.md").read_text()
    assert md.count(f"**Warning**: {warning}") == 2  # (under the verdicts' SRC column and atop Sensitivity)
    assert f"<strong>Warning</strong>: {warning}" in (tmp_path / "tiny" / "report.html").read_text()
    text6 = text.replace("points = 4", "points = 6").replace('name = "tiny"', 'name = "tiny6"')
    exp_file.write_text(text6)
    r = cli("robust", str(exp_file), "--out", str(tmp_path), "--no-progress")
    assert r.returncode == 0 and "weak" not in r.stderr
    assert "Warning" not in (tmp_path / "tiny6" / "report.md").read_text()


def test_delve_experiment_varies_its_assumptions_and_extra_factors():
    exp = load_robust(ROOT / "tests" / "data" / "robust" / "delve_tiny.toml")
    f = {x.key: x for x in exp.factors}
    assert f["score.win_rank"].levels == ["Village Hero", "Seasoned Explorer", "Champion"]
    assert f["dragon.threshold"].range == [3, 4] and f["dragon.threshold"].default == 3
    assert "heroes.mercenary.master" not in f  # declared with vary = false
    points, _ = design_points(exp.factors, exp.points, exp.seed)
    assert len(points) == 1 + sum(len(x.oat()) for x in exp.factors) + 8 and len(exp.cells()) == 3
