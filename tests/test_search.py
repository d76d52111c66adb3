"""The search policy (foury_sim/search.py, docs/search.md): its hooks, replay by forced choices, the stream
switch at decision m, determinism, and that it plays better than its base policy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import inproc
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


_ST = np.zeros(8, np.int64)  # a stand-in state and options table for the hooks' fingerprints
_OPTS = np.zeros((4, 2), np.int64)


def _ch(ctl, kind, n, c, st=_ST, opts=_OPTS):
    return S.chosen(ctl, kind, n, c, st, -1, opts)


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
    assert not _ch(off, 0, 3, 2)


def test_forced_choices_come_first_then_the_policy_decides():
    ctl = _ctl([2, 0, 1])
    seen = []
    for _ in range(5):
        seen.append(S.forced(ctl, 3))
        _ch(ctl, 0, 3, 0)
    assert seen == [2, 0, 1, -1, -1]
    assert ctl[S.C_COUNT] == 5


def test_the_switch_happens_exactly_after_the_last_forced_choice():
    ctl = _ctl([1, 1, 0, 1], switch=1)
    assert [bool(_ch(ctl, 2, 2, 0)) for _ in range(7)] == [False, False, False, True, False, False, False]
    probe = _ctl([1, 1, 0, 1], switch=0)  # a probe never switches
    assert not any(_ch(probe, 2, 2, 0) for _ in range(7))


def test_a_probe_appends_unsearched_decisions_and_records_the_first_searched_one():
    ctl = _ctl([3], record=1, mask=REGROUP)
    _ch(ctl, 0, 3, 3)  # forced
    _ch(ctl, 2, 4, 1)  # loot: not searched, joins the prefix as played
    _ch(ctl, 1, 3, 2)  # reroll: the same
    _ch(ctl, 5, 2, 1)  # regroup: recorded
    _ch(ctl, 2, 4, 0)  # after the record: nothing
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


def _acc(diffs, vals=None, wins=None):
    n = len(diffs)
    acc = np.zeros((S.ACC_ROWS, S.MAX_BRANCH))
    acc[S.A_DIFF, :n] = diffs
    acc[S.A_VAL, :n] = vals if vals is not None else diffs
    acc[S.A_WIN, :n] = wins if wins is not None else 0
    return acc


def test_select_keeps_the_base_choice_unless_another_beats_it_by_the_paired_margin():
    """Sums over 4 rollouts of each option's paired difference from the base's choice (option 1): option 2 is
    ahead by 0.75 / 4 = 0.1875 per rollout, option 0 by 0.5 / 4 = 0.125."""
    acc = _acc([0.5, 0.0, 0.75])
    assert S.select(1, acc, 3, 4, 0.0) == 2  # no margin: the best mean paired difference
    assert S.select(1, acc, 3, 4, 0.15) == 2  # 0.1875 > 0.15
    assert S.select(1, acc, 3, 4, 0.1875) == 1  # not strictly above the margin: the base's choice stays
    assert S.select(1, acc, 3, 4, 0.2) == 1
    assert S.select(1, _acc([0.5, 0.0, 0.5]), 3, 4, 0.1) == 0  # equals: the lowest index
    assert S.select(1, _acc([-0.5, 0.0, -0.25]), 3, 4, 0.0) == 1  # every other option worse: the base's


def test_commit_appends_the_selected_option_and_keeps_its_figures_for_a_trace():
    ctl = np.zeros(S.CTL_SIZE + 64, np.int64)
    ctl[S.C_VTOP] = S.CTL_SIZE
    ctl[S.C_BASE] = 1
    acc = _acc([0.5, 0.0, 0.75], vals=[1.5, 1.0, 1.75], wins=[1, 1, 1])
    assert S.commit(ctl, 0, acc, 3, 4, 0.15) == 2
    assert ctl[S.CTL_HEAD] == 2 and ctl[S.C_PLEN] == 1 and ctl[S.C_SEARCHED] == 1
    v = ctl[S.CTL_VAT] - 1
    assert v == S.CTL_SIZE
    assert list(ctl[v: v + 4 + 9]) == [3, 4, 1, 2, 1, 375, 125, 1, 250, 0, 1, 438, 188]
    assert S.commit(ctl, 1, acc, 3, 4, 0.2) == 1 and ctl[S.CTL_HEAD + 1] == 1
    small = np.zeros(S.CTL_SIZE, np.int64)  # no value area (a simulation): nothing kept
    small[S.C_VTOP] = S.CTL_SIZE
    small[S.C_BASE] = 1
    assert S.commit(small, 0, acc, 3, 4, 0.0) == 2 and small[S.CTL_VAT] == 0


def test_a_forced_decision_that_differs_from_its_record_is_a_replay_fault():
    """A probe records each decision's fingerprint (kind, options, state, option rows); a later play that
    forces it checks it: the same decision passes, any change (a state word, an option row, the number of
    options) is counted in C_FAULT."""
    st = np.arange(8, dtype=np.int64)
    opts = np.arange(8, dtype=np.int64).reshape(4, 2)
    ctl = _ctl([], record=1, mask=1 << 3)
    _ch(ctl, 0, 3, 1, st, opts)  # not searched: joins the prefix with its fingerprint
    _ch(ctl, 3, 4, 2, st, opts)  # searched: recorded
    assert ctl[S.C_PLEN] == 1 and ctl[S.C_N] == 4
    S.rollout(ctl, 1, 0, 0)  # replay both, forced
    _ch(ctl, 0, 3, 1, st, opts)
    _ch(ctl, 3, 4, 0, st, opts)
    assert (ctl[S.C_CHECKED], ctl[S.C_FAULT]) == (2, 0)
    for change in ("state", "option", "n"):
        S.rollout(ctl, 1, 0, 0)
        st2, opts2, n = st.copy(), opts.copy(), 3
        if change == "state":
            st2[5] += 1
        elif change == "option":
            opts2[2, 1] = -7
        else:
            n = 2
        _ch(ctl, 0, n, 1, st2, opts2)
        _ch(ctl, 3, 4, 0, st, opts)
    assert (ctl[S.C_CHECKED], ctl[S.C_FAULT]) == (8, 3)
    skip = S.fingerprint(0, 3, st, 5, opts)  # the skipped slot (a trace count) does not count
    st[5] = 99
    assert S.fingerprint(0, 3, st, 5, opts) == skip and S.fingerprint(0, 3, st, -1, opts) != skip


def test_the_fingerprint_is_a_weighted_sum_with_odd_weights_mod_2_64():
    """The reference formula in Python integers (the compiled loop and the NUMBA_DISABLE_JIT vectorized form
    both give it): kind and n, then every state word but the skipped one and the n option rows, word k
    weighted by 0x1B873593 + k x 0x3C6EF372FE94F82A."""
    rng = np.random.default_rng(7)
    st = rng.integers(-(2**62), 2**62, 12)
    opts = rng.integers(-5, 10**12, (6, 3))
    words = [int(x) for x in st] + [int(x) for x in opts[:4].ravel()]
    words[2] = 0
    h = 4 * 0x632BE59BD9B4E019 + 4 * 0x2545F4914F6CDD1D
    h += sum(x * (0x1B873593 + k * 0x3C6EF372FE94F82A) for k, x in enumerate(words))
    h %= 2**64
    assert int(S.fingerprint(3, 4, st, 2, opts)) == (h - 2**64 if h >= 2**63 else h)


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
        ("margin=-0.1", "policy parameter margin=-0.1 is outside its range 0 .. 100"),
        ("progress=101", "policy parameter progress=101 is outside its range 0 .. 100"),
        ("budget=3", "unknown policy parameter 'budget' (known: rollouts, base, kinds, margin, progress)"),
    ],
)
def test_bad_search_parameters_are_refused_in_one_line(drs, text, message):
    with pytest.raises(InputError) as e:
        D.simulate(drs, "none", make_policy("search", D.POLICIES, text), 1, 0, 1)
    assert e.value.message == message and e.value.where == "--param"


def test_the_cli_refuses_a_bad_budget_in_one_line_exit_2():
    r = inproc.cli("run", "delve", "--policy", "search", "--param", "rollouts=1.5", "--games", "10",
                   cwd=ROOT)  # in this process (tests/inproc.py)
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
    assert head == ("Replay of Delve, game 1 of seed 3: hero none (no hero), policy search(rollouts=2, base=2, "
                    "kinds=0, margin=0, progress=0.001)")


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
    (measured: +3.9 points, exact McNemar p = 0.016; 4 rollouts per option is too noisy and loses 3 points). Before
    session 67's ``rulings.empty_monster_phase`` it gained +7.7 points (p = 8e-7), as it still does with that ruling
    off (3,000 games: +7.7 [5.6, 9.8] against +3.8 [1.6, 5.9] with it on): with margin 0 its rollouts sometimes
    take the new optional question's scroll or ultimate over "done" on noise."""
    base = D.simulate(drs, "none", make_policy("risk", D.POLICIES), 11, 0, 1500)["win"]
    srch = D.simulate(drs, "none", make_policy("search", D.POLICIES, "rollouts=8"), 11, 0, 1500)["win"]
    res = paired_rate_diff(base, srch)
    assert res["diff"] > 0.02 and res["p_value"] < 0.05, res


def test_delve_search_without_jit_plays_the_same_games_and_switches_at_decision_m(drs, tmp_path):
    """NUMBA_DISABLE_JIT=1 for two games (regroup decisions searched): the same rows as compiled; and every
    rollout switched streams exactly at the decision it was searching (the count equals the prefix). The
    uninterpreted run reads the clear-level table the compiled run computed (the same numbers; interpreted it takes
    a minute, and tests/test_delve_odds.py checks it), so this test times the search, not the odds."""
    table = tmp_path / "clear.npy"
    np.save(table, D.clear_table(drs.with_hero("none")))
    script = r"""
import json, sys
import numpy as np
import foury_sim.search as S
import foury_sim.games.delve as D
from foury_sim.policy import make_policy
D.clear_table = lambda rules: np.load(sys.argv[1])
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
    r = subprocess.run([sys.executable, "-c", script, str(table)], capture_output=True, text=True, cwd=ROOT, env=env,
                       timeout=900)
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
    assert "policy search(rollouts=2, base=1, kinds=2, margin=0.3, progress=1)" in head


def test_foury_search_replays_without_a_fault_with_every_move_searched(frs):
    """Every forced decision of every play (probes, rollouts, the final replay) is checked against the
    fingerprint recorded when it was first met (kind, options, state, option rows): 0 faults over 200 Melyra
    games with the moves searched (kinds = D_MOVE), where the search was weakest."""
    pol = make_policy("search", F.POLICIES, f"rollouts=1,kinds={1 << F.layout.D_MOVE}")
    faults = []
    for g in range(200):
        out, st, rm, tr = F.play_one(frs, "melyra", pol, 1, g, trace_rows=2)
        faults.append(int(st[F.layout.S_SEARCH_FAULT]))
    assert sum(faults) == 0


def _search_blocks(lines):
    """(decision line, option lines) of each searched decision in a replay."""
    blocks = []
    for i, line in enumerate(lines):
        if line.startswith("  search at the "):
            n = int(line.split(": ", 1)[1].split(" options")[0])
            blocks.append((line, lines[i + 1 : i + 1 + n]))
    return blocks


def test_foury_replay_shows_each_searched_decision_with_its_rollout_means(frs):
    """Kael, seed 5, game 0, the round's arrow searched with 2 rollouts per option: the first searched
    decision exactly, and in every block the option taken is the one the paired margin (0.1) selects."""
    pol = make_policy("search", F.POLICIES, "rollouts=2,kinds=2,margin=0.1")
    lines = F.replay(frs, "kael", pol, 5, 0)
    blocks = _search_blocks(lines)
    assert len(blocks) == 4  # one per round
    head, opts = blocks[0]
    assert head == ("  search at the round decision: 8 options x 2 rollouts on common dice; option 1 taken "
                    "(overrides the base policy's choice, option 4)")
    assert opts[:4] == [
        "    option 1: 1 won, mean value 1.250, paired vs the base's choice +0.125  <- taken",
        "    option 2: 0 won, mean value 0.500, paired vs the base's choice -0.625",
        "    option 3: 0 won, mean value 0.375, paired vs the base's choice -0.750",
        "    option 4: 1 won, mean value 1.125, paired vs the base's choice +0.000  (the base's choice, not taken)",
    ]
    for head, opts in blocks:
        diffs = [float(o.split("choice ")[1].split()[0]) for o in opts]
        base = next(i for i, o in enumerate(opts) if "the base's choice" in o.split("choice ", 1)[1])
        taken = next(i for i, o in enumerate(opts) if "<- taken" in o)
        acc = _acc(np.array(diffs) * 2)
        assert taken == S.select(base, acc, len(opts), 2, 0.1)
        assert ("keeps" in head) == (taken == base)
    other = F.replay(frs, "kael", make_policy("greedy", F.POLICIES), 5, 0)
    assert not any(line.startswith("  search at") or "    option " in line for line in other)


def test_delve_replay_shows_the_search_rows_before_each_searched_decision(drs):
    """Delve, seed 3, game 7, the regroups searched with 2 rollouts: 7 searched decisions, each followed by
    its decision row; the one where the search overrides risk (it retires on the rollouts' evidence) exactly.
    (Game 1 until session 67: the monster phase of a level without monsters changed its dice.)"""
    lines = D.replay(drs, "none", make_policy("search", D.POLICIES, "rollouts=2,kinds=32"), 3, 7)
    blocks = _search_blocks(lines)
    assert len(blocks) == 7
    i = lines.index("  search at the regroup decision: 2 options x 2 rollouts on common dice; option 1 taken "
                    "(overrides the base policy's choice, option 2)")
    assert lines[i + 1 : i + 4] == [
        "    option 1: 2 won, mean value 1.001, paired vs the base's choice +0.500  <- taken",
        "    option 2: 1 won, mean value 0.501, paired vs the base's choice +0.000  (the base's choice, not taken)",
        "   decide the regroup phase (option 1 of 2): retire (+1 XP)",
    ]
    assert not any("search at" in line for line in D.replay(drs, "none", make_policy("risk", D.POLICIES), 3, 7))


def test_a_search_run_plays_in_small_chunks_with_the_same_games():
    """A game of the search policy costs the time of many (trait ``slow``): a run plays a hundredth of its games a
    kernel call (1 to ``SLOW_BATCH``), so its bar moves (1,000 Dungeon Foury games sat at 0 % for 5 minutes in one
    call); the games are those of one call."""
    import pandas as pd

    from foury_sim.registry import get_game
    from foury_sim.runner import SLOW_BATCH, chunk_size, run

    for game in ("delve", "foury"):
        assert "slow" in get_game(game).policies["search"].traits
    assert [chunk_size(n, None, 50_000, slow=True) for n in (1, 99, 1_000, 10**6)] == [1, 1, 10, SLOW_BATCH]
    assert chunk_size(1_000, None, 50_000) == 1_000  # (no bar, not slow: one call)
    calls = []
    spec = get_game("delve")
    real = spec.simulate

    def counted(*a):
        calls.append(a[-1])
        return real(*a)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(spec, "simulate", counted)
        small = run("delve", policy="search", games=300, progress=False)
    assert calls == [3] * 100
    whole = run("delve", policy="search", games=300, progress=False, chunk=300)
    pd.testing.assert_frame_equal(small.df, whole.df)
