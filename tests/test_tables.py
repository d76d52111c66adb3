"""Outputs that explain themselves: per-game tables with readable labels (categoricals in parquet, words in
CSV), odds tables with a title, a column legend, z and an honest verdict, and run summaries with a legend."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from foury_sim import outputs as O
from foury_sim.cli import app, format_summary
from foury_sim.files import to_jsonable, write_frame
from foury_sim.oddstable import OddsTable, format_odds, odds_json, verdict, with_z, z_scores
from foury_sim.registry import get_game
from foury_sim.stats import binomial_two_sided_p as binomial_p

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


# ---------------------------------------------------------------------------------- labelled tables --
@pytest.fixture(scope="module")
def foury():
    spec = get_game("foury")
    return spec, spec.load_ruleset(None, None, None)


def _foury_rows(rules) -> pd.DataFrame:
    """Three scripted games: never died; died in round 1 in sector A to a foe; died in round 4, sector O, stuck."""
    from foury_sim.games.foury.layout import CAUSE_FOE

    goblin = list(rules.icons.names).index("goblin")
    cols = rules.map.cols
    return pd.DataFrame({
        "game": [0, 1, 2], "win": [1, 0, 0],
        "death_round": [0, 1, 4], "death_sector": [-1, 0, 4], "death_cell": [-1, 2 * cols + 3, cols],
        "death_cause": [0, CAUSE_FOE + goblin, 1], "end_cause": [0, CAUSE_FOE + goblin, 2],
        "round_order": [1243, 1, 4321], "unwinnable_cause": [0, 3, 2], "turns": [40, 5, 60],
    })


def test_written_tables_carry_the_declared_labels(foury, tmp_path):
    spec, rules = foury
    df = _foury_rows(rules)
    before = df.copy()
    write_frame(df, tmp_path / "games.parquet", outputs=spec.outputs, ruleset=rules)
    write_frame(df, tmp_path / "games.csv", outputs=spec.outputs, ruleset=rules)
    pd.testing.assert_frame_equal(df, before)  # the in-memory table keeps its codes
    pq = pd.read_parquet(tmp_path / "games.parquet")
    csv = pd.read_csv(tmp_path / "games.csv", keep_default_na=False)
    expected = {
        "death_round": ["never", "1", "4"],
        "death_sector": ["none", "A", "O"],
        "death_cell": ["none", "A (3,4)", "A (2,1)"],  # board.room_name: sector + (row, column) from 1
        "death_cause": ["none", "killed by a goblin", "stuck"],
        "end_cause": ["none", "killed by a goblin", "lost in the dungeon (turn cap)"],
        "round_order": ["A,B,D,C", "A", "D,C,B,A"],
        "unwinnable_cause": ["none", "sealed in, no coin left", "no arrows left"],
    }
    for col, words in expected.items():
        assert pq[col].tolist() == words, col
        assert csv[col].astype(str).tolist() == words, col
    # numbers stay numbers
    assert pq["turns"].tolist() == [40, 5, 60] and pq["win"].dtype == np.int64 and csv["game"].tolist() == [0, 1, 2]
    # parquet: categoricals, ordered where the order means something, every declared category listed
    assert pq["death_round"].dtype == pd.CategoricalDtype(["1", "2", "3", "4", "never"], ordered=True)
    assert pq["death_sector"].dtype == pd.CategoricalDtype(["A", "B", "C", "D", "O", "none"], ordered=True)
    assert not pq["death_cause"].cat.ordered  # causes: the codes present, by code
    assert list(pq["death_cause"].cat.categories) == ["none", "stuck", "killed by a goblin"]
    assert list(pq["end_cause"].cat.categories) == ["none", "lost in the dungeon (turn cap)", "killed by a goblin"]
    # the labels are the declaration's, code by code
    for col in expected:
        c = spec.outputs.column(col)
        assert pq[col].tolist() == [c.category(x, rules) for x in df[col]]


def test_delve_rank_is_an_ordered_categorical_of_every_rank():
    spec = get_game("delve")
    rules = spec.load_ruleset(None, None, None)
    t = spec.outputs.labelled(pd.DataFrame({"game": [0, 1, 2], "rank": [1, 0, 1]}), rules)
    assert t["rank"].tolist() == ["Village Hero", "Dragon Fodder", "Village Hero"]
    assert t["rank"].dtype == pd.CategoricalDtype(list(rules.rank_names), ordered=True)
    assert t["rank"].max() == "Village Hero"  # ordered: comparisons follow the ranks, not the alphabet


def test_labels_merge_equal_words_and_keep_unknown_codes():
    c = O.Column("x", "X", categories={0: "none", 1: "a", 2: "a"}, ordered=True)
    cat = c.labelled(np.array([2, 1, 7, 0]))
    assert cat.tolist() == ["a", "a", "7", "none"]
    assert list(cat.categories) == ["none", "a", "7"] and cat.ordered
    empty = c.labelled(np.zeros(0, dtype=np.int64))
    assert len(empty) == 0 and list(empty.categories) == ["none", "a"]


def test_run_out_and_compare_out_write_labelled_tables_that_read_back(tmp_path):
    from foury_sim.runner import run, write_run
    from foury_sim.study import compare, write_comparison

    res = run("foury", games=300, seed=4, progress=False)
    write_run(res, tmp_path / "run")
    pq = pd.read_parquet(tmp_path / "run" / "games.parquet")
    csv = pd.read_csv(tmp_path / "run" / "games.csv", keep_default_na=False)
    c = get_game("foury").outputs.column("death_cause")
    words = [c.category(x, res.ruleset) for x in res.df["death_cause"]]
    assert pq["death_cause"].tolist() == words and csv["death_cause"].tolist() == words
    assert isinstance(pq["death_sector"].dtype, pd.CategoricalDtype) and pq["death_sector"].cat.ordered
    assert res.df["death_cause"].dtype == np.int64  # in memory: codes
    assert pq["win"].sum() == res.df["win"].sum()
    cmp = compare("foury", {"hero": "free"}, {"hero": "kael"}, games=200, seed=3, progress=False)
    write_comparison(cmp, tmp_path / "cmp")
    a = pd.read_parquet(tmp_path / "cmp" / "games_a.parquet")
    assert a["death_round"].dtype == pd.CategoricalDtype(["1", "2", "3", "4", "never"], ordered=True)
    assert (a["death_round"] == "never").sum() == (cmp.df_a["death_round"] == 0).sum()


def test_sweep_per_game_tables_are_labelled_and_resume_reads_them(tmp_path):
    from foury_sim.study import run_sweep

    exp = tmp_path / "pg.toml"
    exp.write_text('name = "pg"\ngame = "foury"\ngames = 200\nseed = 3\nper_game = true\n'
                   '[sweep]\nhero = ["free", "kael"]\n')
    out = run_sweep(exp, tmp_path / "r", progress=False, report=False)
    cell = pd.read_parquet(out / "cells" / "cell_0001.parquet")
    assert cell["death_sector"].dtype == pd.CategoricalDtype(["A", "B", "C", "D", "O", "none"], ordered=True)
    from foury_sim.runner import run

    ref = run("foury", hero="kael", games=200, seed=3, progress=False)  # the same games as cell 1
    c = get_game("foury").outputs.column("death_cause")
    words = [c.category(x, ref.ruleset) for x in ref.df["death_cause"]]
    assert cell.sort_values("game")["death_cause"].tolist() == words
    before = pd.read_parquet(out / "cells.parquet")
    (out / "cells" / "cell_0001.json").unlink()  # as if interrupted: resume re-reads cell 0's labelled table
    run_sweep(exp, tmp_path / "r", resume=True, progress=False, report=False)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "cells.parquet"), before)
    from foury_sim.report import load_results

    assert len(load_results(out).cells) == 2


def test_docs_state_labels_and_units():
    md = O.markdown(["foury", "delve"])
    assert "| column | type | unit | summary | in the tables | meaning |" in md
    assert "| `death_sector` | int64 |  | none | label (ordered): `A`, `B`, `C`, `D`, `O`, `none` |" in md
    assert "| `rank` | int64 |  | none | label (ordered) (words, see meaning) |" in md
    assert "| `win` | int64 | 0/1 | rate | number |" in md and "| `turns` | int64 | turns | mean | number |" in md
    readme = (ROOT / "README.md").read_text()
    assert "docs/outputs.md" in readme.split("**Exit codes and limits.**")[0].split("`run` prints")[1]


# ----------------------------------------------------------------------------------------- odds --
def _table(rows: int, measured: float, exact: float = 0.5, trials: int = 10_000) -> OddsTable:
    df = pd.DataFrame({"case": range(rows), "exact": [exact] * rows, "measured": [exact] * rows,
                       "trials": [trials] * rows})
    df.loc[0, "measured"] = measured
    return OddsTable("Test odds", df, {"case": "which case", "exact": "exact chance", "measured": "engine share",
                                       "trials": "trials"}, (("exact", "measured"),), keys=("case",))


def test_z_is_the_binomial_z_and_infinite_where_exact_odds_rule_it_out():
    assert z_scores(0.5, 0.515, 10_000) == pytest.approx(3.0)
    assert z_scores(0.0, 0.0, 100) == 0 and z_scores(1.0, 1.0, 100) == 0
    assert z_scores(0.0, 0.01, 100) == np.inf and z_scores(1.0, 0.99, 100) == -np.inf


def test_verdict_controls_the_family():
    one = verdict(_table(1, 0.515))  # z = 3, p = 0.0027: a disagreement when it is the only comparison
    assert not one.agree and one.comparisons == 1 and one.disagreements[0].startswith("case 0: measured 0.5150")
    many = verdict(_table(140, 0.515))  # ... but not among 140 (Holm: 0.05 / 140 = 0.00036)
    assert many.agree and many.comparisons == 140 and many.max_abs_z == pytest.approx(3.0)
    assert "none of the 140 comparisons differs at the 95 % family-wise level" in many.text
    far = verdict(_table(140, 0.53))  # z = 6
    assert not far.agree and far.disagreements == ("case 0: measured 0.5300 vs exact 0.5000",)
    assert far.text.startswith("ENGINE AND EXACT ODDS DISAGREE: 1 of 140 comparisons")
    ruled_out = verdict(_table(3, 0.001, exact=0.0))
    assert not ruled_out.agree and ruled_out.max_abs_z == np.inf
    loose = verdict(_table(140, 0.53), conf=1 - 1e-12)  # the level shown is the level used
    assert loose.agree and "99.9999999999 % family-wise level" in loose.text


def test_verdict_flags_what_scipy_binomtest_and_statsmodels_holm_flag():
    """The verdict's exact tests (all at once) and its Holm step (``stats.adjust_pvalues``) decide as
    ``scipy.stats.binomtest`` one at a time and ``statsmodels``' ``multipletests(method="holm")`` do, over families
    with a few engine shares pulled away from the exact chance by various amounts."""
    from scipy.stats import binomtest
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(48)
    for rows in (5, 40, 300):
        exact = rng.uniform(0.05, 0.95, rows)
        k = rng.binomial(2_000, exact)
        off = rng.choice(rows, size=max(1, rows // 10), replace=False)
        k[off] = np.clip(k[off] + rng.integers(-160, 160, off.size), 0, 2_000)
        df = pd.DataFrame({"case": range(rows), "exact": exact, "measured": k / 2_000, "trials": 2_000})
        table = OddsTable("t", df, {c: c for c in df.columns}, (("exact", "measured"),), keys=("case",))
        p = [binomtest(int(round(f * 2_000)), 2_000, e).pvalue for f, e in zip(df.measured, df.exact)]
        want = tuple(f"case {i}: measured {df.measured[i]:.4f} vs exact {df.exact[i]:.4f}"
                     for i in np.flatnonzero(multipletests(p, alpha=0.05, method="holm")[0]))
        got = verdict(table)
        assert got.disagreements == want and got.comparisons == rows
        assert 0 < len(want) or rows == 5


def test_a_flagged_comparison_is_a_disagreement_only_when_fresh_dice_flag_it_again():
    """A correct engine shows a disagreement at the 95 % family-wise level on about 5 % of seeds (the default
    `foury-sim odds foury` did on seed 1): the comparisons a first look flags are tested again on fresh dice
    (Holm over those flagged) and only those flagged twice are a disagreement."""
    off = _table(140, 0.53)  # z = 6: flagged
    chance = verdict(off, confirm=_table(140, 0.5), confirm_seed=2)  # the same row at its exact chance again
    assert chance.agree and chance.flagged == ("case 0: measured 0.5300 vs exact 0.5000",)
    assert chance.disagreements == () and chance.confirm_seed == 2
    assert chance.text.startswith("engine and exact odds agree: the first look flagged 1 of 140 comparisons at the "
                                  "95 % family-wise level (exact binomial tests, Holm): case 0: measured 0.5300 vs "
                                  "exact 0.5000 (p adj ")
    assert "none differs again on fresh dice (seed 2)" in chance.text and "about 5 % of seeds" in chance.text
    again = verdict(off, confirm=_table(140, 0.5150), confirm_seed=2)  # z = 3 again: p = 0.0027 < 0.05 / 1
    assert not again.agree and again.disagreements == ("case 0: measured 0.5300 vs exact 0.5000",)
    assert again.text.startswith("ENGINE AND EXACT ODDS DISAGREE: 1 of 140 comparisons differ at the 95 % "
                                 "family-wise level (exact binomial tests, Holm) and again on fresh dice (seed 2) "
                                 "(Holm over the 1 flagged): case 0: measured 0.5150 vs exact 0.5000 (p adj ")
    two = _table(140, 0.53)
    two.frame.loc[1, "measured"] = 0.47
    second = _table(140, 0.5150)
    second.frame.loc[1, "measured"] = 0.5146  # p = 0.0043 alone, 0.0054 > 0.05 / 2 ... then 0.0043 <= 0.05
    v = verdict(two, confirm=second)
    p0, p1 = (binomial_p(k, 10_000, 0.5) for k in (5150, 5146))
    assert sorted([p0, p1])[0] * 2 <= 0.05 and v.flagged == ("case 0: measured 0.5300 vs exact 0.5000",
                                                              "case 1: measured 0.4700 vs exact 0.5000")
    assert len(v.disagreements) == 2  # Holm over the two flagged only (not over all 140)
    with pytest.raises(ValueError, match="the same figures"):
        verdict(off, confirm=_table(139, 0.5))
    assert verdict(off).disagreements == off_flag and not verdict(off).agree  # without fresh dice: the first look


off_flag = ("case 0: measured 0.5300 vs exact 0.5000",)


def test_the_odds_command_confirms_a_flagged_table_on_the_next_seed(monkeypatch):
    """`foury-sim odds` measures a table again on seed N+1 only when a first look flags a comparison; the text and
    JSON say which seed and the level used (`--conf`)."""
    spec = get_game("delve")
    seeds = []

    def fake(rules, trials, seed, **kw):
        seeds.append(seed)
        return _table(140, 0.53 if seed == 7 else 0.5, trials=trials)

    monkeypatch.setattr(spec, "odds", fake)
    r = cli("odds", "delve", "--trials", "10000", "--seed", "7")
    assert r.exit_code == 0, r.output
    assert seeds == [7, 8] and "none differs again on fresh dice (seed 8)" in r.stdout.splitlines()[-1]
    seeds.clear()
    j = json.loads(cli("odds", "delve", "--trials", "10000", "--seed", "3", "--conf", "0.99", "--format",
                       "json").stdout)
    assert seeds == [3] and j["conf"] == 0.99 and "99 % family-wise level" in j["verdict"]["text"]
    assert j["provenance"]["command"] == "foury-sim odds delve --trials 10000 --seed 3 --conf 0.99"
    from foury_sim.errors import InputError

    with pytest.raises(InputError, match="--conf: must be between 0.5 and 1"):  # (exit 2 in one line: test_cli)
        cli("odds", "delve", "--conf", "1.5")


def test_odds_makes_a_flagged_tables_first_look_once(monkeypatch):
    """``foury-sim odds`` asks whether a table's first look flags a comparison (``needs_confirming``), measures it
    again on fresh dice, then prints the verdict over both: the first look's exact tests were made twice."""
    import foury_sim.oddstable as ot

    first, fresh = _table(140, 0.53), _table(140, 0.5)
    monkeypatch.setattr(get_game("delve"), "odds", lambda rs, trials, seed, conf, **kw: first if seed == 1 else fresh)
    seen: list[OddsTable] = []
    real = ot._comparisons
    monkeypatch.setattr(ot, "_comparisons", lambda t: seen.append(t) or real(t))
    r = cli("odds", "delve", "--trials", "100")
    assert r.exit_code == 0 and "none differs again on fresh dice (seed 2) (Holm over those flagged)" in r.output
    assert [t is first for t in seen] == [True, False]  # the first look once, then the fresh dice


def test_odds_text_and_json_carry_title_legend_z_and_verdict():
    t = _table(2, 0.5)
    text = format_odds(t)
    lines = text.splitlines()
    assert lines[0] == "Test odds" and "Columns:" in lines
    assert "  case      which case" in lines and any(x.startswith("  z         (measured - exact)") for x in lines)
    assert lines[-1].startswith("Verdict: engine and exact odds agree: none of the 2 comparisons differs at the 95 % "
                                "family-wise level (exact binomial tests, Holm); largest |z| 0.00")
    assert list(with_z(t).columns) == ["case", "exact", "measured", "trials", "z"]
    j = odds_json(t)
    assert j["title"] == "Test odds" and j["conf"] == 0.95 and j["verdict"]["agree"] is True
    assert set(j["columns"]) == {"case", "exact", "measured", "trials", "z"} and j["rows"][0]["z"] == 0.0


def test_sections_follow_with_their_own_verdict_or_none():
    """A table's ``sections`` print after its verdict (two blank lines), each judged only when it compares
    columns; the JSON nests them under ``sections``."""
    model = pd.DataFrame({"case": [0], "model": [0.5], "measured": [0.6]})
    plain = OddsTable("Model beside engine", model, {"case": "which case", "model": "a model's chance",
                                                     "measured": "engine share"}, (), keys=("case",),
                      notes=("The model is not exact: no verdict.",))
    t = OddsTable("Test odds", _table(2, 0.5).frame, _table(2, 0.5).legend, (("exact", "measured"),), keys=("case",),
                  sections=(_table(1, 0.53), plain))
    main, judged, unjudged = format_odds(t).split("\n\n\n")
    assert main == format_odds(_table(2, 0.5))
    assert judged.splitlines()[-1].startswith("Verdict: ENGINE AND EXACT ODDS DISAGREE: 1 of 1 comparisons")
    assert unjudged.splitlines()[0] == "Model beside engine" and "Verdict" not in unjudged
    assert unjudged.splitlines()[2].split() == ["case", "model", "measured"]  # no z column
    assert unjudged.splitlines()[-1] == "The model is not exact: no verdict."
    j = odds_json(t)
    assert j["verdict"]["agree"] is True and [s["title"] for s in j["sections"]] == ["Test odds", "Model beside engine"]
    assert j["sections"][0]["verdict"]["agree"] is False and "verdict" not in j["sections"][1]
    assert set(j["sections"][1]["columns"]) == {"case", "model", "measured"}
    assert "sections" not in odds_json(_table(2, 0.5))


@pytest.mark.parametrize("game, args, title, legend", [
    ("foury", ["--hearts", "3"], "Dungeon Foury combat odds: exact (enumerated) beside the engine's frequencies; "
     "whole fights from 3 hearts (--hearts), 2,000 trials per row, seed 1",
     ["  weapon ", "  strength ", "  p_fight_won_3h ", "  measured_fight_won_3h ", "  trials ", "  z "]),
    ("delve", [], "Delve odds of the next level: exact (enumerated) beside the engine's "
     "frequencies; hero none (novice side), a freshly formed party, 2,000 trials per row, seed 1",
     ["  level ", "  lair ", "  event ", "  exact ", "  measured ", "  trials ", "  z "]),
])
def test_odds_of_every_game_explains_itself(game, args, title, legend):
    r = cli("odds", game, "--trials", "2000", *args)
    assert r.exit_code == 0, r.output
    lines = r.stdout.split("\n\n\n")[0].splitlines()  # the exact odds (further tables follow two blank lines)
    assert lines[0] == title
    assert lines[1] == f"overrides: {' '.join(args) or 'none (shipped defaults)'}"  # how it was made, as a run says
    assert lines[2] == f"reproduce: foury-sim odds {game} {' '.join(args)}{' ' if args else ''}--trials 2000 --seed 1"
    assert lines[3].startswith("made with: foury-sim ") and lines[4] == ""
    header = lines[5].split()
    assert header[-1] == "z" and "trials" in header
    for name in legend:
        assert sum(x.startswith(name) for x in lines) == 1, name
    verdict_line = lines[-1]
    j = json.loads(cli("odds", game, "--trials", "2000", *args, "--format", "json").stdout)
    m = len(j["rows"]) * (4 if game == "foury" else 1)
    assert verdict_line.startswith(f"Verdict: engine and exact odds agree: none of the {m} comparisons differs at "
                                   "the 95 % family-wise level (exact binomial tests, Holm); largest |z| ")
    assert j["title"] == title and "z" in j["columns"] and verdict_line == "Verdict: " + j["verdict"]["text"]
    assert j["verdict"]["comparisons"] == m and j["conf"] == 0.95
    assert j["provenance"]["command"] == lines[2][len("reproduce: "):] and j["provenance"]["trials"] == 2000
    assert j["verdict"]["agree"] is True  # the engine reproduces its exact odds
    if game == "foury":  # one roll-off, weapon 0 against strength 0: 15 of 36 outcomes win
        row = next(x for x in j["rows"] if x["weapon"] == 0 and x["strength"] == 0)
        assert row["p_win"] == pytest.approx(15 / 36) and abs(row["measured_win"] - 15 / 36) < 0.05


# ------------------------------------------------------------------------------------ run legend --
def _summary(game: str, **extra) -> dict:
    win = {"rate": 0.5, "lo": 0.4, "hi": 0.6, "conf": 0.95}
    return {"game": game, "games": 100, "hero": "none", "policy": "p", "seed": 1, "elapsed_s": 1.0,
            "games_per_s": 100, "win": win, **extra}


def test_delve_run_explains_its_figures():
    s = _summary("delve", flee_rate=0.1, portal_rate=0.02, master_share=0.4, dragons_slain_per_game=0.5,
                 rank_share={"Dragon Fodder": 0.5, "Village Hero": 0.5}, mean_level={"delve1_level": 4.5})
    lines = format_summary(s, "Delve").splitlines()
    i = lines.index(O.LEGEND_HEADING)
    legend = lines[i + 1:lines.index("", i)]
    names = [x[2:19].strip() for x in legend]
    assert names == ["win rate", "flee rate", "portal rate", "master share", "rank share", "mean level"]
    assert "winning rank" in legend[0] and "Village Hero" in legend[0]
    assert "Town Portal" in legend[2] and "master side" in legend[3]
    assert "rank share          Dragon Fodder: 50.0 %, Village Hero: 50.0 %" in lines
    assert all(len(x) <= 120 for x in legend)


def test_foury_run_explains_its_unclear_lines():
    rate = {"rate": 0.1, "lo": 0.05, "hi": 0.15}
    s = _summary("foury", win_without_continue=rate, unwinnable=rate, death_by_cause={"stuck": 10})
    lines = format_summary(s, "Foury").splitlines()
    legend = lines[lines.index(O.LEGEND_HEADING) + 1:]
    names = [x[2:19].strip() for x in legend if x.startswith("  ")]
    assert names == ["win rate", "without continue", "became unwinnable", "death by cause"]
    assert "stuck = walls collapsed" in legend[3]


def test_tactics_run_explains_its_death_cause_and_killer_lines():
    """Tactics printed ``death cause`` and ``killer`` with no line under "What the figures mean" (a review found
    "killer" unexplained: a share of every game, not of the lost ones, with "no monster" holding the wins)."""
    from foury_sim.registry import get_game
    from foury_sim.runner import run

    res = run("tactics", games=200, seed=1, progress=False)
    lines = format_summary(res.summary, "tactics", get_game("tactics").outputs).splitlines()
    legend = lines[lines.index(O.LEGEND_HEADING) + 1:]
    said = {x[2:20].strip(): x[20:] for x in legend if x.startswith("  ")}
    assert said["death cause"] == ("every game by how it ended: none (won), what took the adventurer's last HP, or "
                                   "the turn cap")
    assert said["killer"] == "every game by the monster that dealt the last blow (no monster: won, or lost another way)"


def test_a_summary_without_declared_legends_prints_none():
    assert O.legend_lines(_summary("x"), O.Outputs((O.Column("win", "Won", summary=O.RATE),))) == []


def test_the_win_rates_own_line_stays_under_the_win_rate_not_under_the_turn_cap():
    """Dungeon Foury's "  without continue" (won without a coin) is indented under the win rate it splits; the turn
    cap's line was printed between them, so it read as a share of the games at the turn cap."""
    rate = {"rate": 0.1, "lo": 0.05, "hi": 0.15}
    s = _summary("foury", win_without_continue=rate, unwinnable=rate, turn_cap_games=0, turn_cap_share=0.0)
    lines = format_summary(s, "Foury").splitlines()
    i = next(k for k, x in enumerate(lines) if x.startswith("win rate "))
    assert lines[i + 1].startswith("  without continue"), lines[i:i + 3]
    assert lines[i + 2].startswith("ended at turn cap "), lines[i:i + 3]


def test_one_game_at_the_turn_cap_is_one_game():
    lines = format_summary(_summary("delve", turn_cap_games=1, turn_cap_share=0.01), "Delve").splitlines()
    assert "ended at turn cap     1.00 %  (1 game)" in lines  # (it said "(1 games)")


def test_rooms_per_fight_ratios_carry_their_delta_method_intervals_at_the_runs_level():
    """Rooms' damage dealt and taken and hero turns per fight are ratios of sums over games (a game has 1-7 fights):
    each has the delta-method interval of ``stats.ratio_ci`` over the games' columns at the run's level, the fights per
    game the t interval (``mean_intervals``), printed beside them (they were printed bare); a streamed run's are the
    whole table's, bit for bit."""
    from foury_sim import stats
    from foury_sim.registry import get_game
    from foury_sim.runner import run

    res = run("rooms", games=600, seed=3, progress=False, conf=0.9)
    s, df = res.summary, res.df
    iv = s[O.MEAN_INTERVALS]["per_fight"]
    assert list(iv) == list(s["per_fight"]) == ["dealt", "taken", "hero turns", "fights/game"]
    line = next(x for x in format_summary(s, "rooms", get_game("rooms").outputs).splitlines()
                if x.startswith("per fight "))
    for label, column in (("dealt", "damage_dealt"), ("taken", "damage_taken"), ("hero turns", "fight_turns")):
        r, lo, hi = stats.ratio_ci(df[column].to_numpy(), df["fights"].to_numpy(), 0.9)
        assert s["per_fight"][label] == r and iv[label] == [lo, hi] and lo < r < hi
        assert f"{label}: {r:.3g} [{lo:.3g}, {hi:.3g}]" in line
    m, lo, hi = stats.mean_ci(df["fights"], 0.9)
    assert s["per_fight"]["fights/game"] == pytest.approx(m, rel=1e-15) and iv["fights/game"] == pytest.approx(
        [lo, hi], rel=1e-12)
    streamed = run("rooms", games=600, seed=3, progress=False, conf=0.9, keep_rows=False, chunk=97).summary
    assert streamed["per_fight"] == s["per_fight"] and streamed[O.MEAN_INTERVALS] == s[O.MEAN_INTERVALS]
    one = run("rooms", games=1, seed=3, progress=False).summary  # one game: no interval, and no "nan" printed
    assert all(math.isnan(v) for pair in one[O.MEAN_INTERVALS]["per_fight"].values() for v in pair)
    text = format_summary(one, "rooms", get_game("rooms").outputs)
    assert "nan" not in text and f"per fight           dealt: {one['per_fight']['dealt']:.3g} (no interval), " \
        "taken:" in text  # (said, as a mean's "(no interval from 1 game)": it printed no bracket and no reason)
    back = json.loads(json.dumps(to_jsonable(one)))  # (a summary read back from its JSON: null, not NaN)
    assert format_summary(back, "rooms", get_game("rooms").outputs).count("(no interval)") >= 4


@pytest.mark.parametrize("game, entry, column", [
    ("delve", "mean_level", "delve2_level"), ("delve", "dragons_slain_per_game", "dragons_slain"),
    ("tactics", "ap_by_action", "ap_attack"), ("tactics", "kills_by_kind", "kills_kind1")])
def test_a_games_own_means_per_game_carry_their_t_intervals_at_the_runs_level(game, entry, column):
    """Delve's mean level of each delve and dragons slain per game, Tactics' AP by action and kills by kind: each
    mean per game has the t interval of its column at the run's level (`mean_intervals`), printed beside it (they
    were printed bare)."""
    from foury_sim import stats
    from foury_sim.registry import get_game
    from foury_sim.runner import run

    res = run(game, games=400, seed=3, progress=False, conf=0.9)
    s, df = res.summary, res.df
    iv = s[O.MEAN_INTERVALS][entry]
    value = s[entry]
    if isinstance(value, dict):
        label = {"delve2_level": "delve2_level", "ap_attack": "attack"}.get(column) or next(iter(value))
        iv, value = iv[label], value[label]
    mean, lo, hi = stats.mean_ci(df[column], 0.9)
    assert value == pytest.approx(mean) and iv == pytest.approx([lo, hi]) and lo < hi
    label_of = {k.key: k.label for k in get_game(game).outputs.summary_keys}[entry]
    line = next(x for x in format_summary(s, game, get_game(game).outputs).splitlines() if x.startswith(label_of))
    assert f"{value:.3g} [{lo:.3g}, {hi:.3g}]" in line
    head = format_summary(s, game, get_game(game).outputs).splitlines()
    assert any("(90 % Wilson interval; every bracket below is at 90 %, Student t for a mean, order statistics for a "
               "median)" in x for x in head)
