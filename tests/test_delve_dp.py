"""Delve's optimal push-your-luck policy (games/delve/dp.py): the dynamic programme against a brute force,
its decisions on hand-picked states, the kernel's advice, and the engine's paired check against risk."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import numba
import numpy as np
import pytest

from foury_sim.games import delve as D
from foury_sim.games.delve import dp
from foury_sim.games.delve import layout as A
from foury_sim.games.delve.kernel import party_index, party_rank, scratch
from foury_sim.games.delve.policies import wants_retire
from foury_sim.games.delve.ruleset import (
    R_DELVES,
    R_DRAGON_AT,
    R_DRAGON_TREASURES,
    R_DRAGON_XP,
    R_DUNGEON_DICE,
    R_DUNGEON_FACES,
    R_DUNGEON_SIDES,
    R_HERO,
    R_LEVEL_DICE,
    R_LEVELS,
    R_MASTER_AT,
    R_PARTY_DICE,
    R_PARTY_FACES,
    R_PARTY_SIDES,
    R_RETIRE_XP,
    R_WIN_SCORE,
)
from foury_sim.policy import make_policy
from foury_sim.stats import paired_rate_diff

#: A tiny Delve: 2 delves of 3 levels, 3 party and 3 dungeon dice, the dragon at 2 Lair dice needing 2 types,
#: master at 2, a win at 4 points.
TINY = ["game.delves=2", "game.levels=3", "game.party_dice=3", "game.dungeon_dice=3", "dragon.threshold=2",
        "dragon.types_needed=2", "xp.master_at=2", "score.rank_thresholds=[0,4,5,6,7]"]


@pytest.fixture(scope="module")
def rs():
    return D.load_ruleset()


@pytest.fixture(scope="module")
def plain(rs):
    return dp.solution(rs.with_hero("none"), note=False)


def _brute_force(rules):
    """The same model as dp.py, enumerated another way: every ordered roll of the dice (each face 1/sides),
    recursion over the game's regroups, no party ranks, no multisets, no shared tables."""
    delves, levels, nd, at = (int(rules[k]) for k in (R_DELVES, R_LEVELS, R_DUNGEON_DICE, R_DRAGON_AT))
    target, rx, master_at = int(rules[R_WIN_SCORE]), int(rules[R_RETIRE_XP]), int(rules[R_MASTER_AT])
    dgain = int(rules[R_DRAGON_XP] + rules[R_DRAGON_TREASURES])
    dfaces = [int(rules[R_DUNGEON_FACES + i]) for i in range(int(rules[R_DUNGEON_SIDES]))]
    pfaces = [int(rules[R_PARTY_FACES + i]) for i in range(int(rules[R_PARTY_SIDES]))]
    w = D.kernel.scratch(rules)
    opts = np.zeros((A.MAX_OPTIONS + 1, A.N_OCOLS), dtype=np.int64)
    st = np.zeros(A.STATE_SIZE, dtype=np.int64)
    trace = np.zeros((0, A.TRACE_COLS), dtype=np.int64)

    def master(side, s):
        return 1 if side == 1 or s >= master_at else 0

    @cache
    def start(d, s, side):
        if s >= target:
            return 1.0
        if d == delves:
            return 0.0
        h = R_HERO + side * A.H_COLS
        a, b = int(rules[h + A.H_FORM_FROM]), int(rules[h + A.H_FORM_TO])
        seqs = list(itertools.product(pfaces, repeat=int(rules[R_PARTY_DICE])))
        total = 0.0
        for seq in seqs:
            party = [seq.count(f) for f in range(A.N_FACES)]
            if a >= 0:
                party[b] += party[a]
                party[a] = 0
            total += go(d, s, side, 0, 0, tuple(party))
        return total / len(seqs)

    @cache
    def regroup(d, s, side, lv, lair, party):
        if s >= target:
            return 1.0
        s3 = s + lv * rx
        retire = start(d + 1, s3, master(side, s3))
        return retire if lv == levels else max(retire, go(d, s, side, lv, lair, party))

    @cache
    def go(d, s, side, lv, lair, party):
        n = min(int(rules[R_LEVEL_DICE + lv]), nd - lair)  # level lv + 1 rolls level_dice.(lv+1)
        seqs = list(itertools.product(dfaces, repeat=n))
        total = 0.0
        for seq in seqs:
            g, sk, o = seq.count(A.GOBLIN), seq.count(A.SKELETON), seq.count(A.OOZE)
            lair2 = lair + seq.count(A.DRAGON)
            dragon = lair2 >= at
            arr = np.array(party, dtype=np.int64)
            if not dp.after_level(rules, side, arr, g, sk, o, dragon, w, opts, st, trace):
                total += start(d + 1, s, side)  # fled: the score stays
                continue
            left = st[A.S_PARTY : A.S_PARTY + A.N_FACES].copy()
            s2 = s + dp.chest_points(rules, side, left, seq.count(A.CHEST)) + (dgain if dragon else 0)
            total += regroup(d, s2, master(side, s2), lv + 1, 0 if dragon else lair2, tuple(int(x) for x in left))
        return total / len(seqs)

    return start, go


@pytest.mark.parametrize("hero,extra", [("none", []), ("knight", []), ("occultist", []),
                                        ("none", ["level_dice.1=2", "level_dice.3=1"])])
def test_dp_equals_brute_force_on_a_tiny_ruleset(hero, extra):
    """Also with dungeon dice per level set (``level_dice``): the DP rolls what the engine rolls."""
    rules = D.load_ruleset(overrides=TINY + extra).with_hero(hero)
    assert [int(rules[R_LEVEL_DICE + i]) for i in range(3)] == ([2, 2, 1] if extra else [1, 2, 3])
    sol = dp.solution(rules, note=False)
    start, go = _brute_force(rules)
    assert sol.p_win() == pytest.approx(start(0, 0, 0), abs=1e-12)
    assert 0.0 < sol.p_win() < 1.0
    checked = 0
    for party in sol.parties:
        for d, s, side, lv, lair in itertools.product(range(2), range(4), range(2), range(1, 3), range(2)):
            want = go(d, s, side, lv, lair, tuple(int(x) for x in party))
            assert sol.cont[d, s, side, lv, lair, party_rank(party, 3)] == pytest.approx(want, abs=1e-12)
            checked += 1
    assert checked == len(sol.parties) * 2 * 4 * 2 * 2 * 2


@pytest.mark.parametrize("total", [1, 3, 7, 12])
def test_party_ranks_number_the_parties_in_order(total):
    """``party_rank`` numbers every party of at most ``total`` dice 0, 1, 2... in ``party_list``'s order (the
    first face's count, then the second's...), and the kernel's ``party_index`` (its terms in the scratch) agrees."""
    rules = D.load_ruleset(overrides=[f"game.party_dice={total}"]).with_hero("none")
    w = scratch(rules)
    parties = dp.party_list(total)
    assert len(parties) == len({tuple(p) for p in parties})
    assert [tuple(p) for p in parties] == sorted(tuple(p) for p in parties)
    for r, party in enumerate(parties):
        assert sum(party) <= total and party_rank(party, total) == r == party_index(w, party, total)


def test_hand_picked_decisions(plain):
    full = (2, 1, 1, 1, 1, 1)
    empty = (0, 0, 0, 0, 0, 0)
    scrolls = (0, 0, 0, 0, 0, 2)
    # after the last level: retire (no choice)
    assert plain.retires(1, 0, 0, 10, 0, full)
    # no companion left at level 9 of the first delve: retire (going on is near-certain flight)
    assert plain.retires(1, 0, 0, 9, 0, empty)
    assert plain.retires(1, 0, 0, 3, 0, scrolls)
    # the last delve with 10 points: retiring at level 6 wins, so retire even with a full party
    assert plain.retire_value(3, 10, 0, 6) == 1.0
    assert plain.retires(3, 10, 0, 6, 0, full)
    # the last delve with nothing: retiring at level 5 cannot win (5 < 16), so go on (P(win), not XP)
    assert plain.retire_value(3, 0, 0, 5) == 0.0
    assert not plain.retires(3, 0, 0, 5, 0, full)
    # the first delve at level 1 with a full party: going on is worth more
    assert not plain.retires(1, 0, 0, 1, 0, full)


def test_win_chance_grows_with_the_score_and_is_a_probability(plain):
    win = plain.win[:-1]
    assert np.all(np.diff(win, axis=1) >= -1e-12)  # more points never hurt
    assert np.all((plain.cont >= 0.0) & (plain.cont <= 1.0 + 1e-12))
    assert np.all(plain.win[-1] == 0.0)  # after the last delve, below the target: lost
    assert 0.3 < plain.p_win() < 0.8


def test_the_kernel_reads_the_dp_advice(rs, plain):
    """S_DP_GO / S_DP_RETIRE in the engine are the DP's values (x 1e6) for the state at the regroup."""
    rules = rs.with_hero("none")
    table = np.concatenate([D.clear_table(rules), dp.dp_table(rules)])
    st = np.zeros(A.STATE_SIZE, dtype=np.int64)
    w = scratch(rules)
    for delve, xp, level, lair, party in [(1, 0, 3, 1, (1, 1, 1, 1, 0, 0)), (2, 7, 6, 2, (0, 0, 1, 1, 0, 1)),
                                          (3, 12, 2, 0, (2, 1, 1, 1, 1, 1))]:
        st[:] = 0
        st[A.S_DELVE], st[A.S_XP], st[A.S_LEVEL], st[A.S_LAIR] = delve, xp, level, lair
        st[A.S_MASTER] = 1 if xp >= 5 else 0
        st[A.S_PARTY : A.S_PARTY + A.N_FACES] = party
        D.kernel.dp_advice(rules, table, st, w)
        assert st[A.S_DP_GO] == round(plain.go_value(delve, xp, st[A.S_MASTER], level, lair, party) * 1e6)
        assert st[A.S_DP_RETIRE] == round(plain.retire_value(delve, xp, st[A.S_MASTER], level) * 1e6)
    D.kernel.dp_advice(rules, D.clear_table(rules), st, w)  # no DP table: -1
    assert st[A.S_DP_GO] == -1 and st[A.S_DP_RETIRE] == -1


def test_optimal_retires_when_the_dp_says_so():
    """The optimal policy's regroup rule: retire iff S_DP_RETIRE >= S_DP_GO (ties retire); without a table
    (-1), the threshold defaults (level >= 5 or fewer than 2 companions)."""
    st = np.zeros(A.STATE_SIZE, dtype=np.int64)
    st[A.S_LEVELS], st[A.S_LEVEL] = 10, 3
    st[A.S_PARTY : A.S_PARTY + A.N_FACES] = (1, 1, 1, 0, 0, 0)
    params = np.zeros(0)
    for go, retire, want in [(600_000, 599_999, False), (600_000, 600_000, True), (600_000, 600_001, True),
                             (0, 0, True), (1, 0, False)]:
        st[A.S_DP_GO], st[A.S_DP_RETIRE] = go, retire
        assert wants_retire(A.P_OPTIMAL, st, params) is want
    st[A.S_DP_GO] = st[A.S_DP_RETIRE] = -1
    assert wants_retire(A.P_OPTIMAL, st, params) is False
    st[A.S_LEVEL] = 5
    assert wants_retire(A.P_OPTIMAL, st, params) is True
    st[A.S_LEVEL] = 10  # the last level: always
    st[A.S_DP_GO], st[A.S_DP_RETIRE] = 1, 0
    assert wants_retire(A.P_OPTIMAL, st, params) is True


def test_optimal_beats_risk_on_the_same_dice(rs):
    """Paired (same seeds) engine check: optimal wins at least as often as risk, one-sided at 5%."""
    a = D.simulate(rs, "none", make_policy("risk", D.POLICIES), 7, 0, 6000)["win"]
    b = D.simulate(rs, "none", make_policy("optimal", D.POLICIES), 7, 0, 6000)["win"]
    res = paired_rate_diff(a, b, conf=0.90)  # two-sided 90% = one-sided 95% lower bound
    assert res["lo"] > 0.0, res


def test_threads_do_not_change_optimal_results(rs):
    pol = make_policy("optimal", D.POLICIES)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = D.simulate(rs, "minstrel", pol, 3, 0, 2000)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = D.simulate(rs, "minstrel", pol, 3, 0, 2000)
    finally:
        numba.set_num_threads(before)
    for k in one:
        assert np.array_equal(one[k], two[k]), k


_NOJIT = f"""
import json
import numpy as np
from foury_sim.games import delve as D
from foury_sim.games.delve import dp
from foury_sim.policy import make_policy
rs = D.load_ruleset(overrides={TINY!r})
sol = dp.solution(rs.with_hero("knight"), note=False)
out = D.simulate(rs, "knight", make_policy("optimal", D.POLICIES), 21, 40, 20)
print(json.dumps({{"p": sol.p_win(), "cont": sol.cont.ravel().tolist(), "win": out["win"].tolist(),
                  "score": out["score"].tolist()}}))
"""


def test_jitted_equals_pure_python():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", _NOJIT], env=env, capture_output=True, text=True, timeout=600,
                         cwd=Path(__file__).parent.parent)
    assert res.returncode == 0, res.stderr[-3000:]
    slow = json.loads(res.stdout.strip().splitlines()[-1])
    rs = D.load_ruleset(overrides=TINY)
    sol = dp.solution(rs.with_hero("knight"), note=False)
    assert slow["p"] == sol.p_win()
    assert slow["cont"] == sol.cont.ravel().tolist()
    out = D.simulate(rs, "knight", make_policy("optimal", D.POLICIES), 21, 40, 20)
    assert out["win"].tolist() == slow["win"]
    assert out["score"].tolist() == slow["score"]


def test_search_over_optimal_gets_the_dp_advice():
    """``search`` with ``base=optimal`` has the DP's table (``wants_dp``); searching a decision kind that never
    occurs leaves every decision to the base, so its games are exactly ``optimal``'s."""
    from foury_sim.runner import run

    pol = make_policy("search", D.POLICIES, f"base={A.P_OPTIMAL},kinds=1024,rollouts=1")
    assert D.wants_dp(pol) and not D.wants_dp(make_policy("search", D.POLICIES, "base=2"))
    kw = {"hero": "knight", "games": 300, "seed": 5, "progress": False}
    a = run("delve", policy="search", params=f"base={A.P_OPTIMAL},kinds=1024,rollouts=1", **kw).df
    b = run("delve", policy="optimal", **kw).df
    r = run("delve", policy="risk", **kw).df
    assert a.equals(b) and not a.equals(r)


def test_the_tables_kept_on_disk_are_the_computed_ones(tmp_path, monkeypatch):
    """A second process loads the DP from the Delve cache folder: the same arrays, bit for bit; a damaged or
    missing file is computed again and rewritten (atomically)."""
    rules = D.load_ruleset(overrides=TINY).with_hero("knight")
    path = str(tmp_path / "dp" / "tiny.npz")
    monkeypatch.setattr(dp, "disk_path", lambda r: path)
    monkeypatch.setattr(dp, "_SOLUTIONS", {})
    computed = dp.solution(rules, note=False)  # nothing on disk: computed, then written
    assert os.path.isfile(path) and not [p for p in os.listdir(tmp_path / "dp") if p.endswith(".tmp")]
    monkeypatch.setattr(dp, "_SOLUTIONS", {})  # a fresh process
    loaded = dp.solution(rules, note=False)
    assert loaded is not computed
    for name in dp._SAVED:
        a, b = getattr(computed, name), getattr(loaded, name)
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), name
    assert loaded.p_win() == computed.p_win() and loaded.target == computed.target
    assert np.array_equal(dp.dp_table(rules), D.kernel.advice(np.concatenate([computed.cont.ravel(),
                                                                               computed.win.ravel()])))
    with open(path, "wb") as f:
        f.write(b"not a table")
    assert dp._load(rules, path) is None
    monkeypatch.setattr(dp, "_SOLUTIONS", {})
    again = dp.solution(rules, note=False)
    assert again.win.tobytes() == computed.win.tobytes() and dp._load(rules, path) is not None


def test_kept_arrays_come_back_in_their_own_types(tmp_path):
    """``keep_arrays`` stores integers narrowed and compressed; ``kept_arrays`` gives back the same values in the
    same types; a truncated file reads as none."""
    rng = np.random.default_rng(5)
    arrays = {"trans": rng.integers(-1, 1716, size=(2, 1716, 8), dtype=np.int64),
              "small": np.arange(-3, 100, dtype=np.int64), "wide": np.array([2**40, -5], dtype=np.int64),
              "bytes": np.arange(200, dtype=np.uint8), "cont": rng.random((16, 2, 10)), "flags": rng.random(9) < 0.5,
              "empty": np.zeros(0, dtype=np.int64)}
    path = str(tmp_path / "a.npz")
    dp.keep_arrays(path, arrays)
    back = dp.kept_arrays(path, tuple(arrays))
    for k, a in arrays.items():
        assert back[k].dtype == a.dtype and back[k].shape == a.shape and back[k].tobytes() == a.tobytes(), k
    with np.load(path) as z:  # stored narrower where the values allow
        assert z["trans"].dtype == np.int16 and z["small"].dtype == np.int8 and z["wide"].dtype == np.int64
        assert z["bytes"].dtype == np.uint8
    raw = sum(a.nbytes for a in arrays.values())
    assert os.path.getsize(path) < 0.5 * raw
    with open(path, "rb") as f:
        head = f.read(os.path.getsize(path) // 2)
    with open(path, "wb") as f:
        f.write(head)
    assert dp.kept_arrays(path, tuple(arrays)) is None


def test_a_folder_of_kept_tables_keeps_the_most_recently_used(tmp_path, monkeypatch):
    """Past ``KEEP_FILES`` files the least recently used (written or read) are removed."""
    monkeypatch.setattr(dp, "KEEP_FILES", 3)
    paths = [str(tmp_path / f"t{i}.npz") for i in range(5)]
    for i, path in enumerate(paths[:3]):
        dp.keep_arrays(path, {"a": np.arange(i + 1)})
        os.utime(path, (1000.0 + i, 1000.0 + i))  # written in this order, a second apart
    assert dp.kept_arrays(paths[0], ("a",))["a"].tolist() == [0]  # read now: the most recently used
    dp.keep_arrays(paths[3], {"a": np.arange(4)})
    assert sorted(os.listdir(tmp_path)) == ["t0.npz", "t2.npz", "t3.npz"]  # t1, the least recently used, went
    (tmp_path / "notes.txt").write_text("not a table")
    dp.keep_arrays(paths[4], {"a": np.arange(5)})
    assert sorted(os.listdir(tmp_path)) == ["notes.txt", "t0.npz", "t3.npz", "t4.npz"]


def test_the_disk_tables_follow_the_rules_and_the_switches(monkeypatch):
    a = D.load_ruleset(overrides=TINY).with_hero("knight")
    b = D.load_ruleset(overrides=TINY).with_hero("none")
    pa, pb = dp.disk_path(a), dp.disk_path(b)
    if dp.CACHE and not dp.JIT_DISABLED:
        assert pa != pb and pa == dp.disk_path(a.copy()) and pa.endswith(".npz")
    monkeypatch.setattr(dp, "CACHE", False)
    assert dp.disk_path(a) is None


def test_the_risk_policys_clear_table_kept_on_disk_is_the_computed_one(tmp_path, monkeypatch):
    """``odds.clear_table`` is kept on disk like the DP (``dp.disk_path(rules, "odds")``): a fresh process loads
    the same floats, bit for bit; a damaged or wrong-sized file is computed again and rewritten."""
    import importlib

    odds = importlib.import_module("foury_sim.games.delve.odds")
    rules = D.load_ruleset(overrides=TINY).with_hero("knight")
    path = str(tmp_path / "odds" / "tiny.npz")
    monkeypatch.setattr(odds, "disk_path", lambda r, folder: path if folder == "odds" else None)
    monkeypatch.setattr(odds, "_TABLES", {})
    computed = odds.clear_table(rules)
    assert os.path.isfile(path) and not [p for p in os.listdir(tmp_path / "odds") if p.endswith(".tmp")]
    monkeypatch.setattr(odds, "_TABLES", {})  # a fresh process
    loaded = odds.clear_table(rules)
    assert loaded is not computed and loaded.dtype == computed.dtype and loaded.tobytes() == computed.tobytes()
    for damage in (b"not a table", None):
        if damage is None:
            dp.keep_arrays(path, {"table": computed[:-1]})  # the wrong size
        else:
            with open(path, "wb") as f:
                f.write(damage)
        monkeypatch.setattr(odds, "_TABLES", {})
        assert odds.clear_table(rules).tobytes() == computed.tobytes()
        assert dp.kept_arrays(path, ("table",))["table"].tobytes() == computed.tobytes()  # rewritten
    if dp.CACHE and not dp.JIT_DISABLED:
        a = dp.disk_path(rules, "odds")
        assert a != dp.disk_path(rules) and a.endswith(".npz") and "odds" in a
