"""Exact odds of the next level (enumeration) against the engine's frequencies."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from foury_sim.games import delve as D
from foury_sim.games.delve import layout as A
from foury_sim.games.delve.kernel import p_clear, scratch
from foury_sim.games.delve.odds import clear_table, exact_level, parse_party

TRIALS = 100_000


@pytest.mark.parametrize(
    "hero, party, level, lair, master",
    [
        ("none", None, 3, 0, False),
        ("none", "fighter,cleric,mage,thief,champion,scroll,scroll", 5, 2, False),
        ("spellsword", "F,F,C,S", 4, 1, False),
        ("knight", None, 6, 2, True),
        ("mercenary", "F,T,S", 2, 0, True),
    ],
)
def test_engine_frequencies_match_exact_odds(hero, party, level, lair, master):
    df = D.odds(D.load_ruleset(), hero=hero, party=party, level=level, lair=lair, master=master, trials=TRIALS, seed=11)
    assert len(df) == 3 and set(df["event"]) == {"dragon comes", "monsters defeated", "level cleared"}
    assert np.all(np.abs(df["z"]) < 4.5), df
    assert np.all(df["exact"].between(0, 1))


def test_dragon_odds_are_binomial():
    rules = D.load_ruleset().with_hero("none")
    for level, lair in ((1, 2), (4, 0), (5, 1), (9, 2)):
        n = min(level, 7 - lair)
        need = 3 - lair
        p = sum(comb(n, k) * (1 / 6) ** k * (5 / 6) ** (n - k) for k in range(need, n + 1))
        dragon, _, _ = exact_level(rules, 0, (1, 1, 1, 1, 1, 1), level, lair)
        assert float(dragon) == pytest.approx(p, abs=1e-12)


def test_a_lone_champion_clears_a_single_die():
    rules = D.load_ruleset().with_hero("none")
    _, mons, clear = exact_level(rules, 0, parse_party("champion"), 1, 0)
    assert mons == 1 and clear == 1
    _, mons, _ = exact_level(rules, 0, parse_party("scroll"), 1, 0)
    assert mons == 0.5  # chest, potion or dragon


def test_the_risk_table_is_the_exact_odds():
    rules = D.load_ruleset().with_hero("occultist")
    table = clear_table(rules)
    st = np.zeros(A.STATE_SIZE, dtype=np.int64)
    w = scratch(rules)
    for party, level, lair in (((2, 1, 0, 1, 1, 0), 4, 1), ((0, 0, 3, 0, 0, 2), 6, 0), ((1, 1, 1, 0, 0, 0), 3, 2)):
        st[A.S_LAIR] = lair
        p = p_clear(rules, table, st, np.array(party, dtype=np.int64), level, w)
        _, _, exact = exact_level(rules, 0, party, level, lair)
        assert p == round(float(exact) * 1e6)


def test_multinomial_in_integers_is_the_fraction_product():
    """``_multinomial`` (integers, one fraction at the end) is n! / prod(c!) x prod(q ** c) taken a fraction at a
    step, exactly, with zero chances and zero counts among the faces."""
    from fractions import Fraction
    from math import factorial

    from foury_sim.games.delve.odds import _multinomial, _multisets

    rng = np.random.default_rng(5)
    for _ in range(20):
        sides = int(rng.integers(1, 13))
        probs = [Fraction(int(k), sides) for k in rng.multinomial(sides, [0.25, 0.25, 0.2, 0.1, 0.1, 0.1])]
        for counts in _multisets(int(rng.integers(0, 8)), 6):
            want = Fraction(factorial(sum(counts)))
            for c, q in zip(counts, probs):
                want = want / factorial(c) * q**c
            assert _multinomial(counts, probs) == want, (counts, probs)


def test_odds_input_errors():
    from foury_sim.errors import InputError

    rs = D.load_ruleset()
    with pytest.raises(InputError):
        D.odds(rs, party="F,F,X", level=1)
    with pytest.raises(InputError):
        D.odds(rs, level=1, lair=3)


# ------------------------------------------------------------------ the optimal policy's table (odds delve) --
@pytest.fixture(scope="module")
def report():
    """``odds delve`` at a modest size: its text, its JSON and the DP it shows (hero none, 2,000 games)."""
    from foury_sim.games.delve.dp import solution
    from foury_sim.oddstable import format_odds, odds_json

    rs = D.load_ruleset()
    table = D.odds_report(rs, trials=2000, seed=1)
    return table, format_odds(table), odds_json(table), solution(rs.with_hero("none"))


def test_odds_delve_prints_the_dp_decisions_as_dp_py_takes_them(report):
    from foury_sim.games.delve.odds import typical_party

    table, text, _, sol = report
    rules = D.load_ruleset().with_hero("none")
    assert [typical_party(rules, 0, k) for k in (7, 5, 3, 1)] == [(2, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 0),
                                                                (1, 1, 1, 0, 0, 0), (1, 0, 0, 0, 0, 0)]
    decide = table.sections[0]
    assert decide.title.startswith("Delve optimal policy (dynamic programming, docs/delve-optimal.md): the regroup "
                                   "decision after each level of the first delve, score 0, hero none (novice side)")
    assert list(decide.frame.columns) == ["level", "retire", "go on 7", "go on 5", "go on 3", "go on 1",
                                          "choice (7/5/3/1 dice)"]
    lines = text.splitlines()
    head = lines.index(decide.title) + 2
    assert lines[head].split()[:3] == ["level", "retire", "go"]
    parties = [(2, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 0), (1, 1, 1, 0, 0, 0), (1, 0, 0, 0, 0, 0)]
    for lv in range(1, 11):
        printed = lines[head + lv].split()
        assert int(printed[0]) == lv
        assert float(printed[1]) == pytest.approx(sol.retire_value(1, 0, 0, lv), abs=5e-5)
        want = ["retire" if sol.retires(1, 0, 0, lv, 0, p) else "go" for p in parties]
        assert [w for w in printed if w in ("retire", "go")] == want, (lv, printed)
        for p, go in zip(parties, printed[2:6]):
            if lv < 10:
                assert float(go) == pytest.approx(sol.go_value(1, 0, 0, lv, 0, p), abs=5e-5)
            else:
                assert go == "NaN"  # no level after the last: the adventurer retires
    # the hand-checked states of tests/test_delve_dp.py: a full party goes on after level 1, everyone retires
    # after the last level, a lone die retires where a full party still goes on
    assert decide.frame["choice (7/5/3/1 dice)"].iloc[0].startswith("go on")
    assert decide.frame["choice (7/5/3/1 dice)"].iloc[-1] == "retire / retire / retire / retire"


def test_the_dps_win_chance_beside_the_engines_optimal_win_rate(report):
    table, text, j, sol = report
    whole = table.sections[1].frame.iloc[0]
    assert whole["model"] == sol.p_win() and 0.5 < whole["model"] < 0.56  # docs/delve-optimal.md: 53.1 %
    assert whole["trials"] == 2000
    # the model is a reduction, about 1.4 points pessimistic without a hero: at 2,000 games it lies inside the
    # engine's 95 % interval (a 2-point half-width)
    assert whole["lo"] <= whole["model"] <= whole["hi"] and whole["model inside"] == "yes"
    assert abs(whole["z"]) < 2
    from foury_sim.policy import make_policy

    wins = D.simulate(D.load_ruleset(), "none", make_policy("optimal", D.POLICIES), 1, 0, 2000)["win"].sum()
    assert whole["measured"] == wins / 2000
    assert "it carries no verdict" in text and text.count("Verdict:") == 1  # only the exact odds are judged
    assert [s["title"] for s in j["sections"]] == [t.title for t in table.sections]
    assert "verdict" in j and "verdict" not in j["sections"][1]
    assert j["sections"][1]["rows"][0]["model inside"] == "yes"


def test_odds_conf_sets_the_level_of_the_optimal_policys_measured_interval():
    """``odds delve --conf 0.9``: the engine's optimal win rate's interval is the 90 % Wilson one, and its legend
    says so (it was the 95 % one whatever the level asked)."""
    from foury_sim.oddstable import odds_json
    from foury_sim.stats import wilson

    table = D.odds_report(D.load_ruleset(), trials=500, seed=3, level=1, conf=0.9)
    whole = table.sections[1]
    row = whole.frame.iloc[0]
    wins = round(row["measured"] * 500)
    assert (row["lo"], row["hi"]) == pytest.approx(wilson(wins, 500, 0.9))
    assert whole.legend["lo"] == "lower end of the measured rate's 90 % Wilson interval"
    assert "90 % Wilson" in odds_json(table, 0.9)["sections"][1]["columns"]["hi"]


def _odds_module():
    import importlib

    return importlib.import_module("foury_sim.games.delve.odds")


def test_the_shipped_clear_tables_are_the_computed_ones():
    """The risk policy's tables shipped for the shipped rules (``odds.SHIPPED``, one per hero, in rules.toml's
    order) were computed from today's sources and are what ``_clear_table`` computes now (un-jitted, where a table
    takes minutes: the first hero's)."""
    import tomllib

    odds = _odds_module()
    with open(odds.SHIPPED_SOURCES, "rb") as f:
        sources = tomllib.load(f)["sources"]
    assert sources == odds.table_sources(), (
        "the shipped clear tables were computed from other sources: run `python tools/ship_tables.py`")
    rs = D.load_ruleset()
    with np.load(odds.SHIPPED) as z:
        keys, tables = z["rules"], z["tables"]
    assert [k.tobytes() for k in keys] == [rs.with_hero(h).tobytes() for h in rs.heroes]
    assert tables.dtype == np.int32
    n = 1 if odds.JIT_DISABLED else len(keys)
    for k, t in zip(keys[:n], tables[:n], strict=True):
        assert np.array_equal(odds.compute_clear_table(k), t)


def test_a_run_of_the_shipped_rules_reads_the_shipped_table(monkeypatch):
    """``clear_table`` of the shipped rules computes nothing (no compile of ``_clear_table`` on a first run); a
    ruleset of one's own, changed sources or numba off compute it."""
    odds = _odds_module()
    rules = D.load_ruleset().with_hero("knight")
    with np.load(odds.SHIPPED) as z:
        shipped = z["tables"][list(D.load_ruleset().heroes).index("knight")]
    computed = []
    monkeypatch.setattr(odds, "compute_clear_table", lambda r: computed.append(r.copy()) or shipped.copy())
    monkeypatch.setattr(odds, "disk_path", lambda r, folder: None)
    monkeypatch.setattr(odds, "_TABLES", {})
    monkeypatch.setattr(odds, "_SHIPPED", None)
    table = odds.clear_table(rules)
    assert np.array_equal(table, shipped)
    assert len(computed) == (1 if odds.JIT_DISABLED else 0)  # un-jitted, it checks the same numbers itself

    own = D.load_ruleset(overrides=["dragon.threshold=4"]).with_hero("knight")
    assert odds.shipped_table(own) is None
    odds.clear_table(own)
    assert computed and computed[-1].tobytes() == own.tobytes()

    monkeypatch.setattr(odds, "JIT_DISABLED", False)
    monkeypatch.setattr(odds, "_SHIPPED", None)
    assert np.array_equal(odds.shipped_table(rules), shipped)
    monkeypatch.setattr(odds, "table_sources", lambda: "another")  # an edit since the tables were shipped
    monkeypatch.setattr(odds, "_SHIPPED", None)
    assert odds.shipped_table(rules) is None
    monkeypatch.setattr(odds, "_TABLES", {})
    n = len(computed)
    odds.clear_table(rules)
    assert len(computed) == n + 1
