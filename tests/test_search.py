"""The search policy (foury_sim/search.py, docs/search.md): its hooks, replay by forced choices, the stream
switch at decision m, determinism, and that it plays better than its base policy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import foury_sim.games.delve as D
import foury_sim.games.foury as F
from foury_sim import search as S
from foury_sim.errors import InputError
from foury_sim.policy import make_policy
from foury_sim.runner import numba_threads
from foury_sim.stats import paired_rate_diff

ROOT = Path(__file__).resolve().parent.parent
REGROUP = 1 << 5  # Delve's D_REGROUP: retire or seek glory


@pytest.fixture(scope="module")
def drs():
    return D.load_ruleset(None, [], None)


@pytest.fixture(scope="module")
def frs():
    return F.load_ruleset(None, [], None)


def _ctl(prefix=(), switch=0, record=0, mask=-1):
    ctl = np.zeros(S.CTL_SIZE, np.int64)
    ctl[S.C_PLEN] = len(prefix)
    ctl[S.CTL_HEAD : S.CTL_HEAD + len(prefix)] = prefix
    ctl[S.C_SWITCH] = switch
    ctl[S.C_RECORD] = record
    ctl[S.C_MASK] = mask
    return ctl


# --- the hooks, scripted ----------------------------------------------------------------------------------
def test_the_hooks_are_off_with_an_empty_control_array():
    off = S.no_search()
    assert S.forced(off, 5) == -1
    assert not S.chosen(off, 0, 5, 3)


def test_forced_choices_come_first_then_the_policy_decides():
    ctl = _ctl([2, 0, 1])
    seen = []
    for _ in range(5):
        seen.append(S.forced(ctl, 3))
        S.chosen(ctl, 0, 3, 0)
    assert seen == [2, 0, 1, -1, -1]
    assert ctl[S.C_COUNT] == 5


def test_the_switch_happens_exactly_after_the_last_forced_choice():
    ctl = _ctl([1, 1, 0, 1], switch=1)
    assert [bool(S.chosen(ctl, 2, 2, 0)) for _ in range(7)] == [False, False, False, True, False, False, False]
    probe = _ctl([1, 1, 0, 1], switch=0)  # a probe never switches
    assert not any(S.chosen(probe, 2, 2, 0) for _ in range(7))


def test_a_probe_appends_unsearched_decisions_and_records_the_first_searched_one():
    ctl = _ctl([3], record=1, mask=REGROUP)
    S.chosen(ctl, 0, 3, 3)  # forced
    S.chosen(ctl, 2, 4, 1)  # loot: not searched, joins the prefix as played
    S.chosen(ctl, 1, 3, 2)  # reroll: the same
    S.chosen(ctl, 5, 2, 1)  # regroup: recorded
    S.chosen(ctl, 2, 4, 0)  # after the record: nothing
    assert list(ctl[S.CTL_HEAD : S.CTL_HEAD + ctl[S.C_PLEN]]) == [3, 1, 2]
    assert (ctl[S.C_N], ctl[S.C_KIND], ctl[S.C_BASE], ctl[S.C_RECORD]) == (2, 5, 1, 0)


def test_rollout_streams_are_common_to_every_option_and_differ_by_decision_and_number():
    ctl = _ctl([0, 0], switch=1)
    ctl[S.C_SEED] = 7
    keys = {}
    for i in range(3):
        S.rollout(ctl, 2, i, 4)
        keys.setdefault("r4", set()).add(int(S.rollout_seed(ctl)))
    assert len(keys["r4"]) == 1  # option i does not enter the stream: common random numbers
    S.rollout(ctl, 2, 0, 5)
    other_r = int(S.rollout_seed(ctl))
    S.rollout(ctl, 3, 0, 4)
    other_m = int(S.rollout_seed(ctl))
    assert len({*keys["r4"], other_r, other_m}) == 3


def test_commit_takes_most_wins_then_the_tie_breaker_then_the_base_choice():
    ctl = _ctl([])
    ctl[S.C_BASE] = 2
    assert S.commit(ctl, 0, np.array([3.0, 5.0, 5.0]), np.array([0.0, 10.0, 9.0]), 3) == 1
    assert S.commit(ctl, 1, np.array([3.0, 5.0, 5.0]), np.array([0.0, 9.0, 9.0]), 3) == 2  # a full tie: the base
    ctl[S.C_BASE] = 0
    assert S.commit(ctl, 2, np.array([1.0, 4.0, 4.0]), np.array([0.0, 9.0, 9.0]), 3) == 1  # else the first best
    assert list(ctl[S.CTL_HEAD : S.CTL_HEAD + 3]) == [1, 2, 1] and ctl[S.C_SEARCHED] == 3


# --- parameters ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, message",
    [
        ("rollouts=0", "policy parameter rollouts=0 is outside its range 1 .. 4096"),
        ("rollouts=2.5", "policy parameter rollouts=2.5 is not a whole number"),
        ("base=7", "policy parameter base=7 is not a built-in policy id "
                    "(known: 0 random, 1 threshold, 2 risk, 3 optimal)"),
        ("base=50", "policy parameter base=50 is not a built-in policy id "
                    "(known: 0 random, 1 threshold, 2 risk, 3 optimal)"),
        ("kinds=-1", "policy parameter kinds=-1 is outside its range 0 .. 1.07374e+09"),
        ("budget=3", "unknown policy parameter 'budget' (known: rollouts, base, kinds)"),
    ],
)
def test_bad_search_parameters_are_refused_in_one_line(drs, text, message):
    with pytest.raises(InputError) as e:
        D.simulate(drs, "none", make_policy("search", D.POLICIES, text), 1, 0, 1)
    assert e.value.message == message and e.value.where == "--param"


def test_the_cli_refuses_a_bad_budget_in_one_line_exit_2():
    r = subprocess.run([sys.executable, "-m", "foury_sim", "run", "delve", "--policy", "search", "--param",
                        "rollouts=1.5", "--games", "10"], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1].endswith("policy parameter rollouts=1.5 is not a whole number")
    assert "Traceback" not in r.stderr


# --- Delve: replay, determinism, strength -------------------------------------------------------------------
def _rows(rs, game_mod, policy, start, count, hero="none", seed=3):
    cols = game_mod.simulate(rs, hero, policy, seed, start, count)
    return np.column_stack([np.asarray(v) for k, v in cols.items() if not k.startswith("_")])


def test_delve_search_game_is_replayed_exactly_by_its_forced_choices(drs):
    """The traced replay plays the recorded prefix of choices once more on the real dice: the same game."""
    pol = make_policy("search", D.POLICIES, "rollouts=2")
    rows = D.simulate(drs, "none", pol, 3, 0, 4)
    for g in range(4):
        row, lines = D.play_one(drs, "none", pol, seed=3, game=g)
        assert row["score"] == rows["score"][g] and row["xp"] == rows["xp"][g]
        assert row["decisions"] == rows["decisions"][g] and row["win"] == rows["win"][g]
        assert lines  # the real game's events
    head = D.replay(drs, "none", pol, 3, 1)[0]
    assert head == "Replay of Delve, game 1 of seed 3: hero none (no hero), policy search(rollouts=2, base=2, kinds=0)"


def test_delve_search_games_do_not_depend_on_batches_or_threads(drs):
    pol = make_policy("search", D.POLICIES, "rollouts=2")
    with numba_threads(1):
        whole = _rows(drs, D, pol, 0, 300)
    with numba_threads(2):
        again = _rows(drs, D, pol, 0, 300)
        tail = _rows(drs, D, pol, 260, 40)
    assert np.array_equal(whole, again)
    assert np.array_equal(whole[260:], tail)


def test_delve_search_beats_its_base_policy_on_the_same_dice(drs):
    """1,500 games of Delve, hero none: search (8 rollouts per option over risk) against risk on common dice
    (measured: +7.7 points, exact McNemar p = 8e-7; 4 rollouts per option is too noisy and loses 3 points)."""
    base = D.simulate(drs, "none", make_policy("risk", D.POLICIES), 11, 0, 1500)["win"]
    srch = D.simulate(drs, "none", make_policy("search", D.POLICIES, "rollouts=8"), 11, 0, 1500)["win"]
    res = paired_rate_diff(base, srch)
    assert res["diff"] > 0.04 and res["p_value"] < 0.01, res


def test_delve_search_without_jit_plays_the_same_games_and_switches_at_decision_m(drs):
    """NUMBA_DISABLE_JIT=1 for two games (regroup decisions searched): the same rows as compiled; and every
    rollout switched streams exactly at the decision it was searching (the count equals the prefix)."""
    script = r"""
import json, sys
import foury_sim.search as S
import foury_sim.games.delve as D
from foury_sim.policy import make_policy
seen = []
orig = S.switch
def spy(rs, ctl):
    seen.append([int(ctl[S.C_COUNT]), int(ctl[S.C_PLEN])])
    return orig(rs, ctl)
S.switch = spy
rs = D.load_ruleset(None, [], None)
cols = D.simulate(rs, "none", make_policy("search", D.POLICIES, "rollouts=2,kinds=32"), 3, 0, 2)
print(json.dumps({"score": cols["score"].tolist(), "xp": cols["xp"].tolist(), "switches": seen}))
"""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    jit = D.simulate(drs, "none", make_policy("search", D.POLICIES, "rollouts=2,kinds=32"), 3, 0, 2)
    assert got["score"] == jit["score"].tolist() and got["xp"] == jit["xp"].tolist()
    assert got["switches"] and all(count == plen for count, plen in got["switches"])


# --- Foury ---------------------------------------------------------------------------------------------------------
def test_foury_search_game_is_replayed_exactly_and_independent_of_batches(frs):
    pol = make_policy("search", F.POLICIES, "rollouts=2,kinds=2")  # the round (arrow) choices only
    cols = F.simulate(frs, "kael", pol, 5, 0, 6)
    tail = F.simulate(frs, "kael", pol, 5, 3, 3)
    for k in ("win", "score", "turns", "dice_rolled", "round_order"):
        assert cols[k][3:].tolist() == tail[k].tolist()
    for g in (0, 4):
        out, st, rm, tr = F.play_one(frs, "kael", pol, 5, g)
        assert int(out[F.layout.OUT_SCORE]) == cols["score"][g]
        assert int(out[F.layout.OUT_DICE]) == cols["dice_rolled"][g]
    head = F.replay(frs, "kael", pol, 5, 0)[0]
    assert head.startswith("Replay of Dungeon Foury, game 0 of seed 5: hero Kael")
    assert "policy search(rollouts=2, base=1, kinds=2)" in head
