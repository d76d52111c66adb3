"""Same per-game results whatever the threads, the batch split, or numba being on; golden
transcripts; a user policy from a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import inproc
import numba
import numpy as np
import pytest

from foury_sim.errors import InputError
from foury_sim.games import delve as D
from foury_sim.policy import Policy, make_policy, user_globals

GOLDEN = Path(__file__).parent / "golden"
CASES = [("none", "threshold", 7, 0), ("enchantress", "risk", 11, 3), ("knight", "random", 5, 2)]


@pytest.fixture(scope="module")
def rs():
    return D.load_ruleset()


def _sim(rs, hero, policy, seed, start, count):
    return D.simulate(rs, hero, make_policy(policy, D.POLICIES), seed, start, count)


@pytest.mark.parametrize("hero, policy", [("none", "threshold"), ("minstrel", "risk"), ("half_goblin", "random")])
def test_threads_do_not_change_results(rs, hero, policy):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _sim(rs, hero, policy, 3, 0, 3000)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = _sim(rs, hero, policy, 3, 0, 3000)
    finally:
        numba.set_num_threads(before)
    for k in one:
        assert np.array_equal(one[k], two[k]), k


def test_batch_split_does_not_change_results(rs):
    whole = _sim(rs, "crusader", "threshold", 9, 100, 1500)
    parts = [_sim(rs, "crusader", "threshold", 9, 100 + a, b - a) for a, b in ((0, 700), (700, 701), (701, 1500))]
    for k in whole:
        assert np.array_equal(whole[k], np.concatenate([p[k] for p in parts])), k
    assert np.array_equal(whole["game"], np.arange(100, 1600))


_NOJIT = """
import json, sys
from foury_sim.errors import InputError
from foury_sim.games import delve as D
from foury_sim.policy import Policy, make_policy, user_globals
rs = D.load_ruleset()
out = {}
for hero, policy in (("none", "threshold"), ("knight", "random"), ("mercenary", "threshold")):
    r = D.simulate(rs, hero, make_policy(policy, D.POLICIES), 21, 40, 6)
    out[hero + "/" + policy] = {k: v.tolist() for k, v in r.items()}
print(json.dumps(out))
"""


def test_jitted_equals_pure_python(rs):
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run(
        [sys.executable, "-c", _NOJIT],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).parent.parent,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    slow = json.loads(res.stdout.strip().splitlines()[-1])
    for key, cols in slow.items():
        hero, policy = key.split("/")
        fast = _sim(rs, hero, policy, 21, 40, 6)
        for k, v in cols.items():
            assert fast[k].tolist() == v, (key, k)


@pytest.mark.parametrize("hero, policy, seed, game", CASES)
def test_golden_transcripts(rs, hero, policy, seed, game):
    text = "\n".join(D.replay(rs, hero, make_policy(policy, D.POLICIES), seed, game)) + "\n"
    path = GOLDEN / f"delve_seed{seed}_game{game}.txt"
    if os.environ.get("FOURY_SIM_REGEN_GOLDEN") == "1":
        path.write_text(text)
    assert path.read_text() == text


def test_replay_is_the_simulated_game(rs):
    pol = make_policy("threshold", D.POLICIES)
    r = D.simulate(rs, "occultist", pol, 4, 0, 10)
    for g in (0, 7):
        row, lines = D.play_one(rs, "occultist", pol, 4, g)
        assert all(row[k] == r[k][g] for k in r)
        assert lines[-1].startswith(f"== end: score {r['score'][g]} ")


def test_each_output_column_is_contiguous(rs):
    """The kernel writes a row per output (a column per game): each column of a chunk is one contiguous run, so
    the summary's histograms read it in place (from rows of games they copied every column out first)."""
    r = _sim(rs, "none", "risk", 5, 100, 257)
    assert all(v.flags.c_contiguous and v.shape == (257,) for v in r.values())
    assert list(r["game"]) == list(range(100, 357))


def test_user_policy_from_a_file(rs):
    pol = make_policy("tests/data/delve_policies.py:cautious", D.POLICIES, "retire_level=3")
    r = D.simulate(rs, "none", pol, 1, 0, 5000)
    levels = np.stack([r[f"delve{d}_level"] for d in (1, 2, 3)])
    assert levels.max() == 3 and r["bad_answers"].sum() == 0
    assert r["retired"].mean() > 2.5 and 5 < r["score"].mean() < 16
    base = _sim(rs, "none", "threshold", 1, 0, 5000)
    assert r["score"].mean() < base["score"].mean() + 1  # no better than the built-in with its loot logic


def test_policies_rank_as_expected(rs):
    scores = {p: _sim(rs, "none", p, 2, 0, 4000)["score"].mean() for p in ("random", "threshold", "risk")}
    assert scores["random"] + 5 < scores["threshold"] <= scores["risk"] + 0.5


def test_registered_spec():
    spec = D.GAME
    assert spec.name == "delve" and spec.default_policy in spec.policies and spec.default_hero == "none"
    assert set(spec.policies) == {"threshold", "risk", "optimal", "random", "search"}
    assert spec.policies["threshold"].params == {"retire_level": 5.0, "min_companions": 2.0}
    s = spec.summarize(__import__("pandas").DataFrame(_sim(D.load_ruleset(), "none", "threshold", 1, 0, 500)))
    assert 0 <= s["flee_rate"] <= 1 and set(s["mean_level"]) == {"delve1_level", "delve2_level", "delve3_level"}


# --- policy traits, not ids ----------------------------------------------------------------------------
def test_builtin_policies_declare_their_traits():
    assert {k: set(p.traits) for k, p in D.POLICIES.items()} == {
        "threshold": set(),
        "risk": {"needs_odds"},
        "optimal": {"needs_odds", "needs_dp"},
        "random": {"full_menu"},
        "search": {"needs_odds", "slow"},
    }
    assert D.wants_odds(make_policy("risk", D.POLICIES)) and not D.wants_odds(make_policy("threshold", D.POLICIES))


def test_a_user_file_declares_needs_odds(rs, monkeypatch):
    """``POLICY_TRAITS = ("needs_odds",)`` gives a user policy the exact odds (``S_P_NEXT``): the probe
    retires at the first regroup where it knows them; without the trait it never does."""
    with_odds = make_policy("tests/data/delve_policies_odds.py:odds_probe", D.POLICIES)
    without = make_policy("tests/data/delve_policies.py:odds_probe", D.POLICIES)
    assert with_odds.traits == {"needs_odds", "full_menu"} and without.traits == {"full_menu"}
    r = D.simulate(rs, "none", with_odds, 6, 0, 300)
    assert set(r["delve1_level"].tolist()) <= {1} and r["retired"].min() >= 1
    r = D.simulate(rs, "none", without, 6, 0, 300)
    levels = np.stack([r[f"delve{d}_level"] for d in (1, 2, 3)])
    assert np.all(r["retired"] <= (levels == 10).sum(axis=0))  # retired only when the last level forces it
    # the older spelling still works
    monkeypatch.setitem(user_globals(without.fn), "DELVE_WANTS_ODDS", True)
    assert D.wants_odds(without)


LOOT_ODDS_PROBE = """{traits}
from foury_sim.games.delve.layout import D_LOOT, O_P, S_LEVEL, S_LEVELS


def probe(kind, state, options, n_options, params):
    \"\"\"An answer out of range (an error) at a loot choice before the last level whose rows lack O_P.\"\"\"
    if kind == D_LOOT and state[S_LEVEL] < state[S_LEVELS]:
        for i in range(n_options):
            if options[i, O_P] < 0:
                return n_options
    return 0
"""


def test_a_user_policy_with_needs_odds_reads_o_p_on_loot_rows(rs, tmp_path):
    """``O_P`` of loot rows (``kernel.advise_p``) is filled for a user's policy that declares ``needs_odds``,
    though no built-in reads it (the kernel skips it for them); without the trait it stays -1."""
    with_odds, without = tmp_path / "with_odds.py", tmp_path / "without.py"
    with_odds.write_text(LOOT_ODDS_PROBE.format(traits='POLICY_TRAITS = ("needs_odds",)'))
    without.write_text(LOOT_ODDS_PROBE.format(traits=""))
    D.simulate(rs, "none", make_policy(f"{with_odds}:probe", D.POLICIES), 4, 0, 50)
    with pytest.raises(InputError, match="out of range"):
        D.simulate(rs, "none", make_policy(f"{without}:probe", D.POLICIES), 4, 0, 50)


def test_an_unknown_trait_in_a_user_file_is_an_error(tmp_path):
    f = tmp_path / "p.py"
    f.write_text('POLICY_TRAITS = ("telepathy",)\n\n\ndef f(kind, state, options, n, params):\n    return 0\n')
    with pytest.raises(InputError, match="unknown policy trait 'telepathy'"):
        make_policy(f"{f}:f", D.POLICIES)


def test_a_builtin_without_a_retire_rule_does_not_fall_into_risk(rs):
    """A built-in id with no retire rule in ``policies.wants_retire`` (and no parameters) seeks glory to
    the last level; it reads no other policy's parameters (risk's params[2] was read for any id)."""
    r = D.simulate(rs, "none", Policy("new", 7, np.zeros(0), ()), 8, 0, 2000)
    levels = np.stack([r[f"delve{d}_level"] for d in (1, 2, 3)])
    assert np.all(r["retired"] <= (levels == 10).sum(axis=0)) and r["fled"].sum() > 0


@pytest.mark.parametrize("policy", ["random", "threshold", "risk"])
def test_every_delve_ends_by_a_rule(policy):
    """Every delve ends by retiring, fleeing or a Town Portal, for every hero, also with the rulings that
    open the most phases: a choice with no rule (``S_FAULT``) would stop a game with none of them."""
    rs = D.load_ruleset(
        None,
        [
            'treasures.elixir.phases=["monster", "loot", "dragon"]',
            'treasures.scroll.phases=["monster", "dragon"]',
            'rulings.scroll_phases=["monster", "dragon"]',
        ],
    )
    for hero in D.heroes(rs):
        r = D.simulate(rs, hero, make_policy(policy, D.POLICIES), 5, 0, 1000)
        assert np.all(r["retired"] + r["fled"] + r["portals"] == 3), hero


# --- an answer out of range: an error, as in every game ------------------------------------------------
def test_an_answer_out_of_range_is_an_error(rs):
    pol = make_policy("tests/data/delve_policies.py:out_of_range", D.POLICIES)
    with pytest.raises(InputError, match="returned an option index out of range") as e:
        D.simulate(rs, "none", pol, 1, 0, 20)
    assert e.value.where == "--policy"
    with pytest.raises(InputError, match="out of range"):
        D.replay(rs, "none", pol, 1, 0)
    row, _ = D.play_one(rs, "none", pol, 1, 0)  # a single game for debugging: counted, option 0 taken
    assert row["bad_answers"] > 0 and row["bad_answers"] == row["decisions"]


def test_an_answer_out_of_range_on_the_command_line_is_one_line_and_exit_2():
    res = inproc.cli("run", "delve", "--games", "50", "--policy", "tests/data/delve_policies.py:out_of_range",
                     cwd=Path(__file__).parent.parent)  # in this process (tests/inproc.py)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "--policy" in lines[0] and "returned an option index out of range" in lines[0]
