"""The per-game output registry and the GameSpec hooks: one declaration per column reaches the kernel's
indices, the run summary (text and JSON), the sweep tables and the docs; shared code names no game."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from inproc import cli as foury_sim_cli
from typer.testing import CliRunner

from foury_sim import outputs as O
from foury_sim.cli import app
from foury_sim.registry import DEFAULT_GAME, games, get_game

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


# ------------------------------------------------------------------------------ declarations --
def test_docs_outputs_md_is_current():
    """docs/outputs.md is generated from the registry (`python -m foury_sim.outputs --markdown`)."""
    assert (ROOT / "docs" / "outputs.md").read_text() == O.markdown()


def test_kernel_indices_come_from_the_declaration():
    from foury_sim.games.delve import layout as DL
    from foury_sim.games.foury import layout as L

    foury = get_game("foury").outputs
    assert L.OUT_COLUMNS == tuple(foury.kernel_names())
    assert L.N_OUT == len(L.OUT_COLUMNS) == 24 + 4 + 12  # + Slaughter, Santa
    for i, c in enumerate(foury.kernel_columns):
        assert getattr(L, c.index) == i if c.index else c.only is not None  # the Kraken's: written at L.KR_OUT + j
    assert (L.OUT_WIN, L.OUT_CLEAN, L.OUT_DICE, L.OUT_BAD, L.OUT_UNWIN_CAUSE) == (0, 1, 19, 20, 23)
    assert foury.turn_cap == ("end_cause", L.CAUSE_TIMEOUT)
    delve = get_game("delve").outputs
    assert [c.name for c in delve.kernel_columns][:2] == ["game", "win"] and DL.OUT_GAME == 0
    rs = get_game("delve").load_ruleset(None, None, None)
    names = delve.kernel_names(rs)
    assert names[DL.OUT_DELVE_LEVEL:] == ["delve1_level", "delve2_level", "delve3_level"]
    assert delve.column("delve2_level").name == "delve{n}_level"


def test_every_game_declares_win_and_its_columns_once():
    for g in games():
        o = get_game(g).outputs
        assert o.columns[0].name == "game" and o.column("win").summary == O.RATE
        names = [c.name for c in o.columns]
        assert len(names) == len(set(names))


def test_declaration_errors():
    with pytest.raises(ValueError, match="summary must be one of"):
        O.Column("x", "X", summary="median")
    with pytest.raises(ValueError, match="derived column"):
        O.Column("x", "X", index="OUT_X", derive=lambda df: df["win"])
    with pytest.raises(ValueError, match="declared twice"):
        O.Outputs((O.Column("x", "X"), O.Column("x", "X")))
    with pytest.raises(ValueError, match="derived ones after"):
        O.Outputs((O.Column("y", "Y", derive=lambda df: df["x"]), O.Column("x", "X")))


def test_derived_columns_and_summary_of_each_kind():
    out = O.Outputs((O.Column("game", "Game", driver=True), O.Column("win", "Won", summary=O.RATE, index="OUT_WIN"),
                     O.Column("score", "Score", summary=O.MEAN, index="OUT_SCORE"),
                     O.Column("why", "Why", summary=O.CATEGORY, index="OUT_WHY", categories=("none", "dragon")),
                     O.Column("big", "Big score", summary=O.RATE, derive=lambda df: df["score"] >= 10)))
    arr = np.array([[1, 12, 0], [0, 3, 1], [1, 10, 1], [0, 0, 1]], np.int64)
    df = pd.DataFrame(out.frame(arr, first={"game": np.arange(4)}))
    assert list(df.columns) == ["game", "win", "score", "why"]
    out.add_derived(df)
    assert df["big"].tolist() == [1, 0, 1, 0]
    s = out.summarize(df)
    assert s["win"]["rate"] == s["big"]["rate"] == 0.5 and s["score"]["mean"] == 6.25
    assert s["why"] == {"dragon": 3, "none": 1}
    assert out.kernel_indices() == {"OUT_WIN": 0, "OUT_SCORE": 1, "OUT_WHY": 2}


# ------------------------------------------------------------------- a column added in a test --
SCORE_PER_TURN = O.Column("score_per_turn", "Score per turn", "points", summary=O.MEAN, dtype="float64",
                          derive=lambda df: df["score"] / df["turns"].clip(lower=1))


@pytest.fixture
def with_test_column(monkeypatch):
    """Foury with a TEST-ONLY derived column: one declaration, no kernel edit."""
    spec = get_game("foury")
    monkeypatch.setattr(spec, "outputs", spec.outputs.plus(SCORE_PER_TURN))
    return spec


def test_a_column_registered_in_a_test_reaches_the_run_summary(with_test_column, tmp_path):
    r = cli("run", "foury", "--games", "300", "--seed", "4", "--format", "json", "--out", str(tmp_path))
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    df = pd.read_parquet(tmp_path / "games.parquet")
    expected = (df["score"] / df["turns"].clip(lower=1)).mean()
    assert s["score_per_turn"]["mean"] == pytest.approx(expected) and s["score_per_turn"]["n"] == 300
    assert df["score_per_turn"].tolist() == pytest.approx((df["score"] / df["turns"].clip(lower=1)).tolist())
    text = cli("run", "foury", "--games", "300", "--seed", "4").stdout
    line = next(x for x in text.splitlines() if x.startswith("score per turn"))
    assert f"mean {expected:8.2f}" in line
    # printed among the means, before the game's own breakdowns
    lines = text.splitlines()
    assert lines.index(line) < next(i for i, x in enumerate(lines) if x.startswith("death by cause"))


def test_a_column_registered_in_a_test_reaches_the_sweep_table_and_compare(with_test_column, tmp_path):
    from foury_sim.study import compare, run_sweep

    exp = tmp_path / "tiny.toml"
    exp.write_text('name = "tiny"\ngame = "foury"\ngames = 200\nseed = 3\n[sweep]\nhero = ["free", "kael"]\n')
    out = run_sweep(exp, tmp_path / "results", progress=False, report=False)
    cells = pd.read_csv(out / "cells.csv")
    assert {"score_per_turn_mean", "score_per_turn_lo", "score_per_turn_hi"} <= set(cells.columns)
    rec = json.loads((out / "cells" / "cell_0001.json").read_text())
    assert cells.loc[1, "score_per_turn_mean"] == pytest.approx(rec["summary"]["score_per_turn"]["mean"])
    assert "score_per_turn" not in rec["hist"]  # a float column: summarised, but not kept as an integer histogram
    c = compare("foury", {"hero": "free"}, {"hero": "kael"}, games=200, seed=3, progress=False)
    assert "score_per_turn" in set(c.outcomes["outcome"])
    assert "score_per_turn" in c.df_a


# ------------------------------------------------------------------------------ GameSpec hooks --
def test_default_game_comes_from_the_registry():
    assert DEFAULT_GAME in games()
    r = cli("columns")
    assert r.exit_code == 0 and r.output.splitlines()[0].split()[0] == "game"


def test_map_verbs_take_the_game_and_a_game_without_board_is_one_error(tmp_path):
    r = cli("map", "check", "base", "--game", "foury")
    assert r.exit_code == 0 and "statue 7" in r.output
    p = foury_sim_cli("map", "check", "base", "--game", "delve")  # in this process (tests/inproc.py)
    assert p.returncode == 2 and p.stderr.strip().count("\n") == 0
    assert "delve has no board" in p.stderr


@pytest.mark.parametrize("args,what", [
    (["odds", "delve", "--hearts", "3"], "--hearts is an option of foury, not of delve"),
    (["odds", "foury", "--hearts", "0"], "--hearts: must be between 1 and 30, not 0"),
    (["odds", "foury", "--hearts", "x"], "--hearts: takes a whole number, not 'x'"),
    (["run", "delve", "--map", "base"], "delve has no board: --map does not apply"),
    (["run", "foury", "--bogus", "3"], "No such option: --bogus"),
])
def test_game_options_are_refused_for_games_that_do_not_take_them(args, what):
    p = foury_sim_cli(*args)  # the command's exit code and stderr, in this process (tests/inproc.py)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and what in p.stderr


def test_games_lists_each_games_options_and_board():
    r = cli("games")
    assert r.exit_code == 0
    assert "option --hearts of odds: Hearts at the start of a fight fought to the end; default 5; from 1 to 30." \
        in r.output
    assert "maps:" in r.output and "base" in r.output and r.output.count("maps:") == 1


def test_games_says_each_options_default_once():
    """An option whose help names its default was followed by a second one ("(default: ranger). (default ranger)"),
    and one without a default by "(default None)" or "(default )"; the boards' line stands under the heroes' line."""
    out = cli("games").output
    assert "(default None)" not in out and "(default )" not in out
    assert "(a key of [heroes]; default: ranger). (default" not in out
    assert "option --hp of odds: HP the player may lose before a straight-melee fight is lost (default: player.hp); " \
        "from 1 to 100." in out  # (it said "(default: player.hp)., from 1 to 100")
    for noun in ("maps", "dungeons", "levels"):
        assert f"\n         {noun + ':':9s} " in out, noun


def test_odds_takes_the_game_option():
    r = cli("odds", "foury", "--format", "json", "--trials", "200", "--hearts=2")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)


def test_every_game_summarize_has_the_same_signature():
    import inspect

    for g in games():
        spec = get_game(g)
        for fn in (spec.summarize, spec.summarize_hists):
            params = inspect.signature(fn).parameters
            names = list(params)
            assert len(names) == len(("df",) if fn is spec.summarize else ("hists", "n")) + 2
            assert params[names[-2]].default is None and names[-1] == "conf" and params["conf"].default == 0.95


# ------------------------------------------------------------------------------ the grep rule --
def test_shared_modules_name_no_game():
    """`grep -i 'foury\\|delve' foury_sim/*.py` finds a game's name only in the registry (the package and
    program names foury_sim / foury-sim aside): shared code asks a GameSpec instead."""
    names = games()
    word = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b", re.IGNORECASE)
    found = []
    for f in sorted((ROOT / "foury_sim").glob("*.py")):
        if f.name == "registry.py":
            continue
        for i, line in enumerate(f.read_text().splitlines(), 1):
            bare = re.sub(r"foury[_-]sim", "", line, flags=re.IGNORECASE)
            if word.search(bare) or re.search(r"games\.(" + "|".join(names) + r")\b", line):
                found.append(f"{f.name}:{i}: {line.strip()}")
    assert not found, "\n".join(found)


# ------------------------------------------------------------------------- intervals of shares
def _wilson(k, n, conf):
    from statsmodels.stats.proportion import proportion_confint

    return list(proportion_confint(k, n, alpha=1 - conf, method="wilson"))


@pytest.mark.parametrize("conf", [0.95, 0.9])
def test_every_share_of_games_has_its_wilson_interval_and_the_text_its_widest_side(conf):
    """A CATEGORY column and a COUNTS entry (each game under one label) get a Wilson interval per label over all
    games; a SHARE/SHARES entry over what its ``per`` says (Tactics' killers: over the lost games); the printed line
    says its widest side at the run's level."""
    from foury_sim import runner

    res = runner.run("foury", games=3000, seed=2, progress=False, conf=conf)
    s, df = res.summary, res.df
    n = len(df)
    iv = s["share_intervals"]
    causes = s["death_by_cause"]
    assert iv["death_by_cause"] == {k: pytest.approx(_wilson(v, n, conf), abs=1e-12) for k, v in causes.items()}
    died = int((df["death_round"] > 0).sum())
    assert iv["first_death_rate"] == pytest.approx(_wilson(died, n, conf), abs=1e-12)
    text = "\n".join(O.summary_lines(s, get_game("foury").outputs))
    widest = max(max(v / n - iv["death_by_cause"][k][0], iv["death_by_cause"][k][1] - v / n)
                 for k, v in list(causes.items())[:8])
    assert f"  (each ±{100 * widest:.1f} points or less, {100 * conf:g} %)" in text
    lo, hi = iv["first_death_rate"]
    assert f"died at least once  {100 * s['first_death_rate']:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}] of games" in text

    t = runner.run("tactics", games=1500, seed=2, progress=False, conf=conf).summary
    lost = t["games"] - round(t["win"]["rate"] * t["games"])
    for killer, share in t["killed_by"].items():
        assert t["share_intervals"]["killed_by"][killer] == pytest.approx(_wilson(round(share * lost), lost, conf),
                                                                           abs=1e-12)
    assert t["share_intervals"]["death_cause"] == {
        k: pytest.approx(_wilson(v, t["games"], conf), abs=1e-12) for k, v in t["death_cause"].items()}


def test_a_mean_of_one_game_says_it_has_no_interval_instead_of_nan():
    """``run --games 1`` printed ``mean 14.00 [nan, nan]``; a mean of one game has no t interval and says so."""
    from foury_sim import runner

    s = runner.run("delve", games=1, seed=3, progress=False).summary
    text = "\n".join(O.summary_lines(s, get_game("delve").outputs))
    assert "nan" not in text
    assert f"score               mean {s['score']['mean']:8.2f} (no interval from 1 game)  median" in text
    two = runner.run("delve", games=2, seed=3, progress=False).summary["score"]
    assert O.fmt_numeric(two).startswith(f"mean {two['mean']:8.2f} [{two['mean_lo']:.2f}, {two['mean_hi']:.2f}]")


@pytest.mark.parametrize("game", ["foury", "delve", "rooms", "tactics"])
def test_every_printed_median_has_its_order_statistic_interval_at_the_runs_level(game):
    """The run text printed ``median 3`` alone while the JSON had the median's interval; each median line now has
    the interval of ``stats.quantile_ci`` at the run's ``--conf``, the level said on the win-rate line."""
    from foury_sim import runner, stats
    from foury_sim.cli import format_summary

    res = runner.run(game, games=300, seed=4, progress=False, conf=0.8)
    s, df = res.summary, res.df
    text = format_summary(s, "t", get_game(game).outputs).splitlines()
    assert any(line.startswith("win rate") and "every bracket below is at 80 %, Student t for a mean, order "
               "statistics for a median)" in line for line in text)
    cols = [c for c in get_game(game).outputs.of(O.MEAN) if c.summary_key in s]
    assert cols
    for c in cols:
        med, lo, hi = stats.quantile_ci(df[c.name].to_numpy(), 0.5, 0.8)
        assert math.isfinite(lo) and math.isfinite(hi)  # (300 games bound the median at 80 %)
        line = next(x for x in text if x.startswith(f"{c.text_label:{O.LABEL_WIDTH}s} mean "))
        assert f"  median {med:g} [{lo:g}, {hi:g}]  range " in line, line


def test_a_median_too_few_games_cannot_bound_prints_no_bound_not_nan():
    """4 games cannot bound a median at 95 % (``quantile_ci``: -inf, inf; the JSON: null): the text says ``[-inf, inf]``
    (docs/statistics.md), also for a summary read back from its JSON, and never ``nan``."""
    from foury_sim import runner
    from foury_sim.files import to_jsonable

    s = runner.run("delve", games=4, seed=3, progress=False).summary
    assert (s["score"]["median_lo"], s["score"]["median_hi"]) == (-math.inf, math.inf)
    back = json.loads(json.dumps(to_jsonable(s)))
    assert back["score"]["median_lo"] is None and back["score"]["median_hi"] is None
    for summary in (s, back):
        text = "\n".join(O.summary_lines(summary, get_game("delve").outputs))
        assert "nan" not in text
        assert f"score               mean {s['score']['mean']:8.2f} [" in text
        assert f"  median {s['score']['median']:g} [-inf, inf]  range {s['score']['min']:g}..{s['score']['max']:g}" \
            in text
    one = runner.run("delve", games=1, seed=3, progress=False).summary["score"]
    assert O.fmt_numeric(one) == (f"mean {one['mean']:8.2f} (no interval from 1 game)  median {one['median']:g} "
                                  f"[-inf, inf]  range {one['min']:g}..{one['max']:g}")
    assert O.median_bracket({"median_lo": math.nan, "median_hi": math.nan}) == ""  # no games: no interval at all
    assert O.median_bracket({"median_lo": 2.0, "median_hi": None}) == " [2, inf]"  # one side bounded


def test_a_share_per_delve_has_the_wilson_interval_over_games_of_each_games_share():
    """Delve's flee and portal rates are shares of delves (three a game, not independent): their interval is the
    Wilson score interval over the games of each game's share of its delves (a share in [0, 1] has variance at most
    p(1 - p)), not one over the delves; never empty at 0 (a t interval of 8 games with no flight said [0.0, 0.0])."""
    from foury_sim import runner

    for n_games, seed in ((4000, 3), (8, 1), (1, 1)):
        res = runner.run("delve", games=n_games, seed=seed, progress=False)
        s, df = res.summary, res.df
        delves = len([c for c in df.columns if c.startswith("delve") and c.endswith("_level")])
        for key, col in (("flee_rate", "fled"), ("portal_rate", "portals")):
            x = df[col].to_numpy(float) / delves
            assert s[key] == pytest.approx(x.mean(), abs=1e-15)
            assert s["share_intervals"][key] == pytest.approx(_wilson(x.sum(), len(x), 0.95), abs=1e-12)
            lo, hi = s["share_intervals"][key]
            assert lo < hi and lo <= s[key] <= hi
    text = "\n".join(O.summary_lines(s, get_game("delve").outputs))
    lo, hi = s["share_intervals"]["flee_rate"]
    assert f"flee rate           {100 * s['flee_rate']:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]" in text


def test_a_summary_key_says_what_its_share_is_of():
    O.SummaryKey("x", "x", O.SHARE, per="games")
    O.SummaryKey("x", "x", O.SHARES, per="lost games")
    with pytest.raises(ValueError, match="per must be one of"):
        O.SummaryKey("x", "x", O.SHARE, per="delves")
    with pytest.raises(ValueError, match="per must be one of"):
        O.SummaryKey("x", "x", O.NUMBERS, per="games")


def test_the_share_of_games_at_the_turn_cap_has_its_interval():
    """"ended at turn cap" is a share of games like the others: its Wilson interval in ``share_intervals`` and on its
    line (it printed the share and the count alone)."""
    from foury_sim import runner
    from foury_sim.cli import format_summary

    res = runner.run("foury", games=600, seed=4, progress=False, sets=["game.max_turns=40"])
    s = res.summary
    k = int((res.df["end_cause"] == 2).sum())  # (layout.CAUSE_TIMEOUT: the turn cap ended the game)
    assert s["turn_cap_games"] == k > 0
    assert s["share_intervals"]["turn_cap_share"] == pytest.approx(_wilson(k, 600, 0.95), abs=1e-12)
    lo, hi = s["share_intervals"]["turn_cap_share"]
    line = f"ended at turn cap   {100 * k / 600:6.2f} %  [{100 * lo:.2f}, {100 * hi:.2f}]  ({k:,} games)"
    assert line in format_summary(s, "t")


def test_a_breakdown_past_eight_labels_says_how_many_more_and_their_share():
    """A text breakdown showed its first 8 labels and dropped the rest without a word (Tactics' killer line summed
    to 97.1 %; the JSON had the ninth): the rest is named by count and share."""
    counts = {f"label{i}": 10 - i for i in range(10)}  # 10 labels, 55 games
    text = O._shares(counts, 55)
    assert text.startswith("label0: 18.2 %, label1: 16.4 %") and text.count(": ") == 9
    assert text.endswith("label7: 5.5 %, 2 more: 5.5 %")  # (label8 2 and label9 1 game: 3 of 55)
    assert O._shares(dict(list(counts.items())[:8]), 55).endswith("label7: 5.5 %")
