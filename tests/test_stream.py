"""Runs streamed in chunks (foury_sim/chunks.py): the summary from chunks is the summary of the whole table, the
per-game table is written as parquet parts and a re-run goes on from them, memory does not grow with games."""

from __future__ import annotations

import json
import math
import pickle
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from foury_sim import chunks as ch
from foury_sim import runner, stats
from foury_sim.files import to_jsonable
from foury_sim.registry import get_game

DATA = Path(__file__).parent / "data" / "stream"
TIMING = ("elapsed_s", "games_per_s", "compile_s", "load_s")
#: games per game in the tests: a few thousand where a game is fast, fewer for Tactics
GAMES = {"delve": 3000, "foury": 1500, "tactics": 300}


def _plain(summary: dict) -> dict:
    s = to_jsonable({k: v for k, v in summary.items() if k not in TIMING})
    for k in ("git_commit", "package_version", "version"):
        s.get("provenance", {}).pop(k, None)
    return s


@pytest.mark.parametrize("game", ["delve", "foury", "tactics"])
def test_streamed_summary_is_the_in_memory_summary_field_by_field(game):
    n = GAMES[game]
    whole = runner.run(game, games=n, seed=5, progress=False)
    streamed = runner.run(game, games=n, seed=5, progress=False, keep_rows=False, chunk=n // 7 + 3)
    assert streamed.df is None and len(whole.df) == n
    spec = get_game(game)
    in_memory = runner.summarize(spec, whole.df, whole.ruleset)
    a, b = _plain(whole.summary), _plain(streamed.summary)
    assert a == b
    for key, value in to_jsonable(in_memory).items():
        assert b[key] == value, key
    # the same as before streaming (main's JSON of `foury-sim run GAME --games N --seed 5`), apart from the last
    # bits of the sd and the mean's interval (now from exact integer sums)
    before = json.loads((DATA / f"before_{game}.json").read_text())
    for k in ("git_commit", "package_version", "version"):
        before["provenance"].pop(k, None)
    for k in ("kills_by_kind", "killed_by"):  # Tactics' monsters as its killer column names them since session 61
        if k in before:
            before[k] = {name.replace("_", " "): v for name, v in before[k].items()}
    if game == "tactics":  # the killer of a game no monster ended, "none" until session 62
        before["killer"] = {("no monster" if k == "none" else k): v for k, v in before["killer"].items()}
        # session 65's text audit added the assumption rulings.lava_walk (the same games: no fire golem on these)
        assert [a["key"] for a in b["assumptions"] if a["key"] not in {x["key"] for x in before["assumptions"]}] \
            == ["rulings.lava_walk"]
        b = {**b, "assumptions": [a for a in b["assumptions"] if a["key"] != "rulings.lava_walk"]}
    assert set(before) <= set(b)
    for key, old in before.items():
        new = b[key]
        if isinstance(old, dict) and "sd" in old:
            for f, v in old.items():
                if f in ("sd", "mean_lo", "mean_hi") and v is not None:
                    assert new[f] == pytest.approx(v, rel=1e-12, abs=1e-12), (key, f)
                else:
                    assert new[f] == v, (key, f)
        else:
            assert new == old, key


def _without_summarize_hists(monkeypatch, name: str):
    """Register ``name`` again without ``summarize_hists``: a game whose own entries need the per-game rows (a
    designer's game may be one; every shipped game has them from its histograms)."""
    import dataclasses

    from foury_sim import registry

    spec = dataclasses.replace(get_game(name), summarize_hists=None)
    monkeypatch.setitem(registry._GAMES, name, spec)
    assert spec.own_entries_need_rows
    return spec


def test_game_entries_dropped_past_the_row_budget_and_the_rest_unchanged(monkeypatch):
    """A game whose own entries need the rows (no ``summarize_hists``) leaves them out past the budget, with a
    note; every other entry stays."""
    spec = _without_summarize_hists(monkeypatch, "foury")
    whole = runner.run("foury", games=1500, seed=5, progress=False)
    monkeypatch.setenv("FOURY_SIM_KEEP_ROWS_MB", "0.1")  # 100 kB: a few hundred games of Dungeon Foury
    streamed = runner.run("foury", games=1500, seed=5, progress=False, keep_rows=False, chunk=400)
    a, b = _plain(whole.summary), _plain(streamed.summary)
    own = {k.key for k in spec.outputs.summary_keys} & set(a)
    assert own and not own & set(b)
    assert b.pop("warnings") == [
        "NOTE: the game's own entries (" + ", ".join(k.key for k in spec.outputs.summary_keys)
        + ") need every game's row; this run of 1,500 games kept them only up to 0 MB (FOURY_SIM_KEEP_ROWS_MB), "
        "so they are left out"]
    # the intervals of the entries left out are left out with them, and only theirs
    iv = a.pop("share_intervals")
    assert own & set(iv) and b.pop("share_intervals") == {k: v for k, v in iv.items() if k not in own}
    assert {k: v for k, v in a.items() if k not in own} == b


def _most_common(counts, top=None):
    """``(code, games)`` most games first, ties by code: the order of the shipped games' breakdowns."""
    return sorted(((int(k), int(v)) for k, v in counts.items()), key=lambda kv: (-kv[1], kv[0]))[:top]


def _entries_by_pandas(game, df, rs):
    """The games' own entries as pandas computes them from the whole table (the implementations before
    ``summarize_hists``, with ties ordered by code)."""
    spec = get_game(game)
    col = spec.outputs.column
    n = len(df)
    if game == "delve":
        delves = [c for c in df.columns if c.startswith("delve") and c.endswith("_level")]
        assert len(delves) == 3
        return {"rank_share": {col("rank").category(int(k), rs): float(v) / n
                               for k, v in df["rank"].value_counts().sort_index().items()},
                "mean_level": {c: float(df[c].mean()) for c in delves},
                "flee_rate": float(df["fled"].sum()) / (n * 3), "portal_rate": float(df["portals"].sum()) / (n * 3),
                "dragons_slain_per_game": float(df["dragons_slain"].mean()),
                "master_share": float(df["master"].mean())}
    if game == "rooms":
        fights = float(df["fights"].sum())
        return {"per_fight": {"dealt": float(df["damage_dealt"].sum()) / fights,
                              "taken": float(df["damage_taken"].sum()) / fights,
                              "hero turns": float(df["fight_turns"].sum()) / fights, "fights/game": fights / n}}
    if game == "tactics":
        names = [n.replace("_", " ") for n in rs.monster_names]  # (as the killer column names them)
        lost = df[(df["win"] == 0) & (df["killer"] >= 0)]
        nl = max(int((df["win"] == 0).sum()), 1)
        return {"kills_by_kind": {names[k]: float(df[f"kills_kind{k + 1}"].mean()) for k in range(len(names))},
                "killed_by": {names[k]: v / nl for k, v in _most_common(lost["killer"].value_counts())},
                "dm_policy": get_game("tactics").summarize(df.iloc[:0], rs)["dm_policy"],
                "ap_by_action": {k: float(df[f"ap_{k}"].sum()) / n for k in ("move", "attack", "interact", "use")}}
    died = df[df["death_round"] > 0]

    def by(column, values, top=None):
        return {col(column).category(k, rs): v for k, v in _most_common(values.value_counts(), top)}

    from foury_sim.games.foury import _room_name

    return {"rounds_completed_dist": {int(k): int(v) for k, v in df["rounds_completed"].value_counts().sort_index()
                                      .items()},
            "coins_used_rate": float((df["coins_used"] > 0).mean()), "first_death_rate": len(died) / n,
            "death_by_round": {int(k): int(v) for k, v in died["death_round"].value_counts().sort_index().items()},
            "death_by_sector": {col("death_sector").category(int(k), rs): int(v)
                                for k, v in died["death_sector"].value_counts().sort_index().items()},
            "death_by_cause": by("death_cause", died["death_cause"]),
            "loss_by_cause": by("end_cause", df.loc[df["win"] == 0, "end_cause"]),
            "unwinnable_by_cause": by("unwinnable_cause", df.loc[df["unwinnable_at_turn"] > 0, "unwinnable_cause"]),
            "deadliest_rooms": {_room_name(rs, k): v for k, v in _most_common(died["death_cell"].value_counts(), 5)}}


@pytest.mark.parametrize("game", ["delve", "foury", "tactics", "rooms"])
def test_own_entries_come_from_the_histograms_past_any_row_budget(monkeypatch, game):
    """Every shipped game's own entries come from the chunks' histograms (``GameSpec.summarize_hists``: single
    columns, and joint ones for games counted by two columns, ``Outputs.joint``): a streamed run keeps no rows at
    all and still has them, number for number the whole table's (``summarize``, which is ``summarize_hists`` of the
    table's) and pandas' over the table."""
    spec = get_game(game)
    assert not spec.own_entries_need_rows
    n = {"delve": 3000, "foury": 1500, "tactics": 300, "rooms": 1500}[game]
    whole = runner.run(game, games=n, seed=5, progress=False)
    monkeypatch.setenv("FOURY_SIM_KEEP_ROWS_MB", "0.001")  # 1 kB: not one chunk's rows
    seen = []
    real = ch.Partial.merge
    monkeypatch.setattr(ch.Partial, "merge", lambda self, other, limit=None: seen.append(other.rows) or real(
        self, other, limit))
    streamed = runner.run(game, games=n, seed=5, progress=False, keep_rows=False, chunk=n // 7 + 1)
    assert len(seen) >= 7 and all(rows is None for rows in seen)  # no chunk's partial carried rows
    a, b = _plain(whole.summary), _plain(streamed.summary)
    assert "warnings" not in b and a == b and json.dumps(a) == json.dumps(b)  # the order of the entries too
    own = {k.key for k in spec.outputs.summary_keys if k.key != "monster_strength"}
    assert own <= set(b) or game == "foury"  # (Foury's campaign entries exist under their campaign only)
    expect = _entries_by_pandas(game, whole.df, whole.ruleset)
    assert to_jsonable({k: whole.summary[k] for k in expect}) == to_jsonable(expect)
    for k, v in expect.items():  # the order of a breakdown's labels too (most games first, ties by code)
        if isinstance(v, dict):
            assert list(whole.summary[k]) == list(v), k


def test_joint_histograms_merge_as_the_whole_tables():
    """``Outputs.joint``: the joint histogram of two columns over chunks, merged in any order, is the whole
    table's (rows in increasing order), on a small range (bincount) and a wide one (rows sorted)."""
    from foury_sim.outputs import histogram, merge_histograms

    rng = np.random.default_rng(4)
    for hi in (5, 10**9):
        x = np.stack([rng.integers(-2, 3, 5000), rng.integers(-1, hi, 5000)], axis=1)
        v, k = np.unique(x, axis=0, return_counts=True)
        whole = histogram(x)
        assert np.array_equal(whole[0], v) and np.array_equal(whole[1], k) and whole[0].dtype == np.int64
        parts = [histogram(x[i:i + 700]) for i in range(0, 5000, 700)]
        for order in (parts, parts[::-1]):
            m = order[0]
            for p in order[1:]:
                m = merge_histograms(m, p)
            assert np.array_equal(m[0], v) and np.array_equal(m[1], k)
    empty = histogram(np.zeros((0, 2), np.int64))
    assert empty[0].shape == (0, 2) and empty[1].shape == (0,)
    wide = histogram(np.array([[-2**62, 0], [2**62, 0], [2**62, 0]]))  # a range past int64 (rows sorted)
    assert wide[0].tolist() == [[-2**62, 0], [2**62, 0]] and wide[1].tolist() == [1, 2]


def test_parts_written_chunk_by_chunk_and_a_rerun_goes_on(tmp_path):
    spec = get_game("delve")
    whole = runner.run("delve", games=2000, seed=3, progress=False)
    res = runner.run("delve", games=2000, seed=3, progress=False, keep_rows=False, out=tmp_path, chunk=600)
    folder = tmp_path / "games.parquet"
    parts = sorted(p.name for p in folder.glob("part-*.parquet"))
    assert parts == [f"part-{s:019d}.parquet" for s in (0, 600, 1200, 1800)]
    table = pd.read_parquet(folder)
    expect = spec.outputs.labelled(whole.df, whole.ruleset)
    assert list(table["game"]) == list(range(2000))
    pd.testing.assert_frame_equal(table.astype(str), expect.astype(str))
    runner.write_run(res, tmp_path)
    assert pd.read_csv(tmp_path / "games.csv").shape == (2000, whole.df.shape[1])
    # an interrupted run: the last two chunks missing; the same settings again play only those
    for s in (1200, 1800):
        (folder / f"part-{s:019d}.parquet").unlink()
    played: list[int] = []

    def executor(fn, todo):
        played.extend(c.start for c in todo)
        return ch.local_executor()(fn, todo)

    again = runner.run("delve", games=2000, seed=3, progress=False, keep_rows=False, out=tmp_path, chunk=600,
                       executor=executor)
    assert played == [1200, 1800] and again.summary["resumed_chunks"] == 2
    # the speed is of the 800 games played now (it counted the 1,200 resumed ones: 28 million games/s seen)
    assert again.summary["games_per_s"] == round(800 / max(again.elapsed, 1e-9))
    from foury_sim.cli import timing_line

    assert "(of the games played now; 2 chunks resumed from the parts written before)" in timing_line(again.summary)
    assert _plain({k: v for k, v in again.summary.items() if k != "resumed_chunks"}) == _plain(res.summary)
    pd.testing.assert_frame_equal(pd.read_parquet(folder).astype(str), expect.astype(str))
    # other settings: the old parts are removed, every chunk played
    played.clear()
    runner.run("delve", games=1000, seed=4, progress=False, keep_rows=False, out=tmp_path, chunk=600,
               executor=executor)
    assert played == [0, 600] and len(list(folder.glob("part-*.parquet"))) == 2


def test_a_run_out_goes_on_from_its_parts_with_or_without_a_progress_bar(tmp_path, capsys):
    """``run --out``'s chunk plan does not depend on whether progress is shown: a run interrupted in a pipe (no bar)
    goes on from its parts with ``--progress`` (and so on a terminal), playing only the chunks missing."""
    first = runner.run("delve", games=10_000, seed=5, progress=False, keep_rows=False, out=tmp_path)
    folder = tmp_path / "games.parquet"
    starts = sorted(int(p.name[5:-8]) for p in folder.glob("part-*.parquet"))
    assert starts == [0, 2000, 4000, 6000, 8000]  # (runner.PROGRESS_BATCH games a part, bar or not)
    for s in (6000, 8000):
        (folder / f"part-{s:019d}.parquet").unlink()
    played: list[int] = []

    def executor(fn, todo):
        played.extend(c.start for c in todo)
        return ch.local_executor()(fn, todo)

    again = runner.run("delve", games=10_000, seed=5, progress=True, keep_rows=False, out=tmp_path,
                       executor=executor)
    assert played == [6000, 8000] and again.summary["resumed_chunks"] == 3
    assert _plain({k: v for k, v in again.summary.items() if k != "resumed_chunks"}) == _plain(first.summary)
    capsys.readouterr()


def test_a_parts_partial_keeps_the_boards_numbers_when_its_rows_are_dropped(tmp_path, monkeypatch):
    """``--out``'s sidecar partial of a chunk (``_part-START.pkl``) drops the rows past the row budget, not the board's
    per-cell numbers (visits, deaths) of its games: a resumed chunk brings them back as a played one does."""
    monkeypatch.setenv("FOURY_SIM_KEEP_ROWS_MB", "0.001")
    res = runner.run("foury", games=600, seed=3, progress=False, keep_rows=False, out=tmp_path, chunk=300)
    spec = get_game("foury")
    for start in (0, 300):
        kept = pickle.loads((tmp_path / "games.parquet" / f"_part-{start:019d}.pkl").read_bytes())
        played = ch.play_local(spec, res.ruleset, res.hero, res.policy, ch.Chunk(3, start, 300)).partial
        assert kept.rows is None and kept.board is not None
        assert to_jsonable(kept.board) == to_jsonable(played.board)


def test_a_games_kernel_batch_sets_the_chunks_of_a_run(monkeypatch):
    """A run without ``chunk`` plays kernel calls of the game's ``GameSpec.batch`` games (Delve's kernel_batch),
    and the summary is the one of any other split."""
    import dataclasses

    from foury_sim import registry

    spec = get_game("delve")
    assert spec.batch == spec.kernel_batch > runner.KERNEL_BATCH  # Delve's fast kernel takes bigger calls
    assert get_game("tactics").batch == runner.KERNEL_BATCH
    small = dataclasses.replace(spec, kernel_batch=300)
    monkeypatch.setitem(registry._GAMES, "delve", small)
    played = []

    def executor(fn, todo):
        played.extend((c.start, c.count) for c in todo)
        return ch.local_executor()(fn, todo)

    res = runner.run("delve", games=1000, seed=5, progress=False, keep_rows=False, executor=executor)
    assert played == [(0, 300), (300, 300), (600, 300), (900, 100)]
    other = runner.run("delve", games=1000, seed=5, progress=False, keep_rows=False, chunk=1000)
    assert _plain(res.summary) == _plain(other.summary)


def test_chunk_job_is_picklable_and_plays_the_same_games():
    job = ch.job_for("delve", hero="none", policy="risk", params=None, rules=None, sets=["game.levels=9"],
                     map=None, options=None, keep_rows=True)
    job = pickle.loads(pickle.dumps(job))
    res = ch.play_chunk(job, ch.Chunk(7, 100, 50))
    res = pickle.loads(pickle.dumps(res))
    ref = runner.run("delve", games=150, seed=7, sets=["game.levels=9"], progress=False)
    pd.testing.assert_frame_equal(res.rows.reset_index(drop=True), ref.df.iloc[100:].reset_index(drop=True))
    assert res.partial.n == 50
    assert ch.plan_chunks(7, 100, 50, 20) == [ch.Chunk(7, 100, 20), ch.Chunk(7, 120, 20), ch.Chunk(7, 140, 10)]


def test_reducer_merges_in_chunk_order_whatever_the_arrival_order():
    spec = get_game("delve")
    ref = runner.run("delve", games=900, seed=2, progress=False)
    plan = ch.plan_chunks(2, 0, 900, 250)
    parts = [ch.ChunkResult(c, ch.Partial.of(spec.outputs, ref.df.iloc[c.start:c.start + c.count]
                                             .reset_index(drop=True))) for c in plan]
    a = ch.summary(spec, ch.reduce(parts, plan), ref.ruleset)
    b = ch.summary(spec, ch.reduce(parts[::-1], plan), ref.ruleset)
    assert to_jsonable(a) == to_jsonable(b) == to_jsonable(runner.summarize(spec, ref.df, ref.ruleset))


def test_memory_of_a_streamed_run_does_not_grow_with_games(monkeypatch):
    """tracemalloc's peak (numpy's arrays included) of 300,000 games in chunks of 10,000 is within 1.5x of 30,000
    games once the rows kept for the game's own entries are past their budget (here 1 MB): the table of 300,000
    games alone would be ten times larger than the smaller run's peak."""
    monkeypatch.setenv("FOURY_SIM_KEEP_ROWS_MB", "1")
    peaks = {}
    runner.run("delve", games=2000, progress=False, keep_rows=False)  # compiled or loaded before measuring
    for n in (30_000, 300_000):
        tracemalloc.start()
        res = runner.run("delve", games=n, seed=1, progress=False, keep_rows=False, chunk=10_000)
        peaks[n] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert res.summary["games"] == n
    assert peaks[300_000] <= 1.5 * peaks[30_000], peaks
    assert peaks[300_000] < 300_000 * 8 * len(get_game("delve").outputs.columns), peaks  # < the whole table


def test_the_kernel_calls_of_a_run_share_one_worker_thread():
    """``runner.in_worker`` keeps its worker thread between calls: a new thread for every kernel call could get a
    malloc arena of its own that kept the freed pages of its chunk's arrays (a streamed run's resident set grew with
    its chunks, docs/speed.md "Session 52"). A call inside a call, or a caller beside another, gets another worker;
    an error reaches the caller and leaves the worker usable."""
    import threading

    here = threading.get_ident()
    first, second = runner.in_worker(threading.get_ident), runner.in_worker(threading.get_ident)
    assert first == second != here
    outer, inner = runner.in_worker(lambda: (threading.get_ident(), runner.in_worker(threading.get_ident)))
    assert outer != inner and here not in (outer, inner)
    with pytest.raises(ZeroDivisionError):
        runner.in_worker(lambda: 1 // 0)
    assert runner.in_worker(threading.get_ident) in (outer, inner)
    gate = threading.Barrier(2, timeout=10)  # two callers at once: each call waits for the other to be running
    got: list[int] = []

    def meet() -> int:
        gate.wait()
        return threading.get_ident()

    side = threading.Thread(target=lambda: got.append(runner.in_worker(meet)))
    side.start()
    mine = runner.in_worker(meet)
    side.join(10)
    assert len(got) == 1 and got[0] != mine
    res = runner.run("delve", games=4000, seed=1, progress=False, keep_rows=False, chunk=1000)
    assert res.summary["games"] == 4000 and not runner.STUCK


RSS_PROBE = """
import json, resource, sys
from foury_sim import chunks as ch
from foury_sim import runner

scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
peaks = []
reduce = ch.reduce

def counted(results, plan, on_result=None, initial=None):
    def each(r):
        peaks.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20)
        if on_result is not None:
            on_result(r)
    return reduce(results, plan, each, initial)

ch.reduce = counted
res = runner.run("delve", games=1_600_000, seed=1, progress=False, keep_rows=False, chunk=200_000)
print(json.dumps({"games": res.summary["games"], "peaks": peaks}))
"""


def test_the_resident_set_of_a_streamed_run_does_not_grow_with_its_chunks():
    """The peak resident set of a fresh process (what ``bench_end_to_end.py --memory`` compares, and what
    tracemalloc above cannot see: pages glibc keeps outside Python's allocator) after the second of eight chunks
    of 200,000 games and at the end: within 30 MB. Before the run's kernel calls shared one worker thread it grew
    by about 90 MB over those chunks (208 → 299 MB; docs/speed.md "Session 52"); now by under 1 MB."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", RSS_PROBE], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["games"] == 1_600_000 and len(got["peaks"]) == 8, got
    assert got["peaks"][-1] - got["peaks"][1] < 30, got["peaks"]


def test_a_forked_child_gets_a_worker_of_its_own():
    """A process forked after a run (a designer's ``multiprocessing`` pool) has none of its parent's worker threads:
    its calls take a new one instead of waiting for one that is not there."""
    import os
    import threading
    import warnings

    assert runner.in_worker(threading.get_ident) != threading.get_ident()  # a worker waits in the parent
    with warnings.catch_warnings():  # (Python 3.12 warns of any fork of a process with threads)
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: answer within the parent's timeout, whatever happens
        code = 1
        try:
            code = 0 if runner.in_worker(lambda: 7) == 7 else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert done[0] == pid and os.waitstatus_to_exitcode(done[1]) == 0, done


@pytest.mark.parametrize("q", [0.5, 0.05, 0.95, 0.001])
def test_exact_ranks_on_a_window_are_the_full_ranks(monkeypatch, q):
    """The ranks found by bisection in the window are those the full arrays of all n + 1 values give."""
    for n in (100_001, 333_333):
        for conf in (0.8, 0.9, 0.99, 0.999999):
            window = stats._order_stat_ranks(n, q, conf)
            monkeypatch.setattr(stats, "RANK_WINDOW_FROM", 10**12)
            full = stats._order_stat_ranks(n, q, conf)
            monkeypatch.undo()
            assert window == full


def test_summarize_counts_is_summarize_numeric_of_the_sample():
    rng = np.random.default_rng(3)
    for _ in range(40):
        x = rng.integers(-3, int(rng.integers(1, 40)), int(rng.integers(1, 2000)))
        a = stats.summarize_numeric(x)
        b = stats.summarize_counts(*np.unique(x, return_counts=True))
        for f, v in a.items():
            if f in ("sd", "mean_lo", "mean_hi"):
                assert b[f] == pytest.approx(v, rel=1e-12, nan_ok=True)
            else:
                assert b[f] == v or (math.isnan(v) and math.isnan(b[f])), f
    assert stats.summarize_counts([1, 2], [3, 1])["sd"] == 0.5  # sd of 1,1,1,2: sqrt(0.25)


def test_wilson_is_statsmodels_bit_for_bit():
    from statsmodels.stats.proportion import proportion_confint

    rng = np.random.default_rng(0)
    n = rng.integers(1, 10**7, 400).astype(float)
    k = np.floor(n * rng.uniform(0, 1, 400))
    for conf in (0.8, 0.9, 0.95, 0.99, 0.999):
        a = proportion_confint(k, n, alpha=1 - conf, method="wilson")
        b = stats._wilson_statsmodels(k, n, 1 - conf)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


# ------------------------------------------------------------------ sweeps (study.CellStream) --
def _cell_record_before(spec, cell, swept, ruleset, df, extras, conf=0.95):
    """A sweep cell's record as main wrote it before cells streamed (the whole per-game table in memory)."""
    from foury_sim.files import portable_board_cells
    from foury_sim.study import hist_columns, label, win_bits

    def hist(x):
        v, k = np.unique(np.asarray(x, dtype=np.int64), return_counts=True)
        return {"values": v.tolist(), "counts": k.tolist()}

    rec = {"cell": 0, "label": label(cell, swept), "params": cell, "games": len(df),
           "summary": runner.summarize(spec, df, ruleset, conf)}
    rec["hist"] = {c: hist(df[c].to_numpy()) for c in hist_columns(spec)
                   if c in df and pd.api.types.is_integer_dtype(df[c])}
    rec["conf"] = float(conf)
    bits = win_bits(df)
    if bits is not None:
        rec["win_bits"] = bits
    rooms = spec.board.cell_record(ruleset, df, extras) if spec.board is not None else None
    if rooms is not None:  # (its map as a results file records it: a shipped map by name, since the ladder review)
        rec["board_cells"] = portable_board_cells({"game": spec.name, **rooms}, spec.board.builtin())
    return rec


def _streamed_cell(spec, rs, hero, pol, n, size):
    from foury_sim.study import CellStream

    stream = CellStream(spec, ruleset=rs)
    for s in range(0, n, size):
        df, ex = runner.play_games(spec, rs, hero, pol, 5, s, min(size, n - s))
        stream.add(df, ex)
    return stream


@pytest.mark.parametrize("game", ["delve", "foury", "tactics"])
def test_streamed_sweep_cell_is_the_in_memory_cell_field_by_field(game):
    from foury_sim.study import CellRunner, stream_record

    spec = get_game(game)
    n = GAMES[game]
    rs, hero, pol = CellRunner(spec).resolve({})
    df, extras = runner.play_games(spec, rs, hero, pol, 5, 0, n)
    before = to_jsonable(_cell_record_before(spec, {}, [], rs, df, extras))
    stream = _streamed_cell(spec, rs, hero, pol, n, n // 7 + 3)  # odd chunks, the last one shorter
    new = to_jsonable(stream_record(spec, 0, {}, [], rs, stream, 0.0))
    assert new.pop("elapsed_s") == 0.0
    assert set(new) == set(before)
    for key, value in before.items():
        assert new[key] == value, key
    assert stream.wins == int(df["win"].sum()) and stream.n == n
    assert "board_cells" in new or game != "foury"


@pytest.mark.parametrize("game", ["foury", "tactics"])
@pytest.mark.parametrize("hists", [True, False])
def test_streamed_sweep_cell_past_the_row_budget_leaves_out_only_the_game_entries(monkeypatch, game, hists):
    """The board's per-cell visits and deaths are reduced chunk by chunk (``chunks.Partial.board``): a cell past
    ``FOURY_SIM_KEEP_ROWS_MB`` keeps its heat maps, the same numbers as from the whole table; and its game's own
    entries, from the histograms (``summarize_hists``), or left out with a note for a game without them."""
    from foury_sim.study import CellRunner, stream_record

    spec = get_game(game) if hists else _without_summarize_hists(monkeypatch, game)
    n = GAMES[game]
    rs, hero, pol = CellRunner(spec).resolve({})
    df, extras = runner.play_games(spec, rs, hero, pol, 5, 0, n)
    before = to_jsonable(_cell_record_before(spec, {}, [], rs, df, extras))
    monkeypatch.setenv("FOURY_SIM_KEEP_ROWS_MB", "0.01")
    stream = _streamed_cell(spec, rs, hero, pol, n, n // 7 + 1)
    assert stream.partial.rows is None
    new = to_jsonable(stream_record(spec, 0, {}, [], rs, stream, 0.0))
    assert "board_cells_left_out" not in new
    assert new["board_cells"] == before["board_cells"] and (sum(before["board_cells"]["deaths"]) > 0 or game != "foury")
    own = {k.key for k in spec.outputs.summary_keys}
    summary = new.pop("summary")
    if hists:
        assert summary == before.pop("summary") and own & set(summary)
    else:
        assert summary.pop("warnings")[-1].startswith("NOTE: the game's own entries (")
        whole = before.pop("summary")
        iv = whole.pop("share_intervals")  # (the intervals of the entries left out go with them)
        whole.pop("mean_intervals", None)  # (the t intervals of the game's own means: the game's own entry)
        assert summary.pop("share_intervals") == {k: v for k, v in iv.items() if k not in own}
        assert summary == {k: v for k, v in whole.items() if k not in own and k != "warnings"}
    new.pop("elapsed_s")
    assert new == before


def test_sweep_cells_in_odd_chunks_are_the_cells_in_one_chunk(tmp_path, monkeypatch):
    from foury_sim import study

    exp = tmp_path / "exp.toml"
    exp.write_text('name = "s"\ngame = "delve"\nseed = 3\ngames = 1000\n[sweep]\nhero = ["none", "spellsword"]\n')
    whole = study.run_sweep(exp, tmp_path / "a", progress=False, report=False)
    monkeypatch.setattr(study, "CELL_CHUNK", 97)
    chunked = study.run_sweep(exp, tmp_path / "b", progress=False, report=False)
    for i in (0, 1):
        a = json.loads((whole / "cells" / f"cell_{i:04d}.json").read_text())
        b = json.loads((chunked / "cells" / f"cell_{i:04d}.json").read_text())
        a.pop("elapsed_s"), b.pop("elapsed_s")
        assert a == b


def test_streamed_sweep_cells_take_more_games_than_kept_tables(tmp_path):
    from foury_sim.errors import InputError
    from foury_sim.study import MAX_GAMES, MAX_STREAMED_GAMES, load_experiment

    assert MAX_GAMES == 10_000_000 and MAX_STREAMED_GAMES == 1_000_000_000
    exp = tmp_path / "exp.toml"
    exp.write_text('name = "s"\ngame = "delve"\ngames = 50000000\n[sweep]\nhero = ["none"]\n')
    assert load_experiment(exp).games == 50_000_000
    exp.write_text('name = "s"\ngame = "delve"\ngames = 50000000\nper_game = true\n[sweep]\nhero = ["none"]\n')
    with pytest.raises(InputError, match="games must be a whole number between 1 and 10,000,000"):
        load_experiment(exp)
    exp.write_text('name = "s"\ngame = "delve"\ngames = 1000000001\n[sweep]\nhero = ["none"]\n')
    with pytest.raises(InputError, match="games must be a whole number between 1 and 1,000,000,000"):
        load_experiment(exp)


# ---------------------------------------------------------- compare (stats.PairedRate / PairedMean) --
@pytest.mark.parametrize("game", ["delve", "foury", "tactics"])
def test_streamed_comparison_counts_are_the_in_memory_comparison(game):
    from foury_sim.study import CellRunner, compare

    spec = get_game(game)
    hero = spec.heroes(CellRunner(spec).resolve({})[0])
    hero = list(hero)[:2] if len(hero) >= 2 else [hero[0], hero[0]]
    n = GAMES[game]
    c = compare(game, {"hero": hero[0]}, {"hero": hero[1]}, games=n, seed=5, progress=False)
    rate = stats.PairedRate(keep=7)
    means = {col: stats.PairedMean() for col in spec.outputs.mean_columns if col in c.df_a}
    size = n // 7 + 3
    for s in range(0, n, size):
        a, b = c.df_a.iloc[s:s + size], c.df_b.iloc[s:s + size]
        rate.add(a["win"].to_numpy(), b["win"].to_numpy())
        for col, m in means.items():
            m.add(a[col].to_numpy(), b[col].to_numpy())
    win = rate.result(c.conf)
    for key in ("n", "both", "a_only", "b_only", "neither", "rate_a", "rate_b", "diff", "lo", "hi", "phi",
                "p_value"):
        assert win[key] == c.win[key], key
    assert win["flipped_win_to_loss"].tolist() == c.win["flipped_win_to_loss"][:7]
    assert win["flipped_loss_to_win"].tolist() == c.win["flipped_loss_to_win"][:7]
    rows = {r["outcome"]: r for r in c.outcomes.to_dict(orient="records")}
    assert set(means) == set(rows) - {"win rate"}
    for col, m in means.items():
        d = m.result(c.conf)
        full = stats.paired_mean_diff(c.df_a[col].to_numpy(float), c.df_b[col].to_numpy(float), c.conf)
        assert (d["n"], d["mean_a"], d["mean_b"], d["diff"]) == (full["n"], rows[col]["a"], rows[col]["b"],
                                                                  rows[col]["diff"]), col
        for f in ("lo", "hi", "sd_diff", "t", "p_value"):
            assert d[f] == pytest.approx(full[f], rel=1e-9, abs=1e-12, nan_ok=True), (col, f)
        assert d["significant"] == full["significant"], col


def test_paired_sums_exact_on_integers_and_edge_cases():
    m = stats.PairedMean()
    big = np.array([2**40, 3, -5], dtype=np.int64)
    m.add(big, big + 1)
    m.add(np.array([7]), np.array([8]))
    r = m.result()
    assert m.sums == [2**40 + 5, 2**40 + 9, 4, 4] and r["sd_diff"] == 0.0
    assert (r["t"], r["p_value"], r["diff"]) == (math.inf, 0.0, 1.0)
    assert stats.paired_mean_sums(1, 2, 3, 1, 1)["p_value"] != stats.paired_mean_sums(1, 2, 3, 1, 1)["p_value"]
    empty = stats.PairedRate().result()
    assert empty["n"] == 0 and empty["p_value"] == 1.0 and empty["flipped_win_to_loss"].tolist() == []
    r = stats.PairedRate(keep=2)
    r.add([1, 1, 0, 1], [0, 0, 1, 0])
    r.add([1, 0], [0, 1])
    assert (r.w2l, r.l2w, r.a_only, r.b_only) == ([0, 1], [2, 5], 4, 2)


def test_streamed_compare_is_the_in_memory_compare(monkeypatch, tmp_path):
    """Kept tables or not, in one chunk or odd ones: the same comparison, number for number (the statistics come
    from the per-chunk sums of the paired differences, exact integers)."""
    from foury_sim import study

    kw = dict(games=3000, seed=5, progress=False)
    whole = study.compare("delve", {"hero": "none"}, {"hero": "spellsword"}, **kw)
    monkeypatch.setattr(study, "CELL_CHUNK", 431)
    monkeypatch.setattr(study, "FLIPPED_KEEP", 60)
    streamed = study.compare("delve", {"hero": "none"}, {"hero": "spellsword"}, keep_rows=False, **kw)
    assert streamed.df_a is None and streamed.df_b is None
    a, b = whole.to_dict(), streamed.to_dict()
    assert a == b  # win counts, interval, McNemar p, flipped games (first 50), replays, every outcome row
    assert streamed.win["flipped_win_to_loss"] == whole.win["flipped_win_to_loss"][:60]
    flipped = np.flatnonzero(whole.df_a["win"].to_numpy() & ~whole.df_b["win"].to_numpy())
    assert whole.win["flipped_win_to_loss"] == flipped[:1000].tolist()
    for col in get_game("delve").outputs.mean_columns:  # the means are the tables' means (exact sums, one rounding)
        row = whole.outcomes.set_index("outcome").loc[col]
        xa, xb = whole.df_a[col].to_numpy(), whole.df_b[col].to_numpy()
        assert row["a"] == int(xa.sum()) / len(xa) and row["diff"] == (int(xb.sum()) - int(xa.sum())) / len(xa)
        full = stats.paired_mean_diff(xa, xb, whole.conf)  # numpy's float path: the same up to the last bits
        assert row["lo"] == pytest.approx(full["lo"], rel=1e-9, abs=1e-12)
        assert row["p_value"] == pytest.approx(full["p_value"], rel=1e-9, abs=1e-12)
    assert study.format_comparison(whole) == study.format_comparison(streamed)
    paths = study.write_comparison(streamed, tmp_path)
    assert [p.name for p in paths] == ["comparison.json", "outcomes.csv", "comparison.png"]


def test_memory_of_a_streamed_compare_does_not_grow_with_games(monkeypatch):
    """tracemalloc's peak of a streamed comparison of 200,000 games in chunks of 5,000 is within 1.5x of 20,000
    games (the two tables of 200,000 games alone would be many times the smaller one's peak)."""
    from foury_sim import study

    monkeypatch.setattr(study, "CELL_CHUNK", 5_000)
    args = ("delve", {"hero": "none"}, {"hero": "spellsword"})
    study.compare(*args, games=2000, progress=False, keep_rows=False)  # compiled or loaded before measuring
    peaks = {}
    for n in (20_000, 200_000):
        tracemalloc.start()
        c = study.compare(*args, games=n, seed=1, progress=False, keep_rows=False)
        peaks[n] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert c.win["n"] == n
    assert peaks[200_000] <= 1.5 * peaks[20_000], peaks
    assert peaks[200_000] < 2 * 200_000 * 8 * len(get_game("delve").outputs.columns) / 10, peaks


def test_compare_out_writes_the_per_game_tables_as_parts_while_it_plays(monkeypatch, tmp_path):
    from foury_sim import study

    kw = dict(games=2000, seed=3, progress=False)
    whole = study.compare("delve", {"hero": "none"}, {"hero": "spellsword"}, **kw)
    monkeypatch.setattr(study, "CELL_CHUNK", 333)
    (tmp_path / "games_a.parquet").write_text("an old file in the way")
    c = study.compare("delve", {"hero": "none"}, {"hero": "spellsword"}, keep_rows=False, out=tmp_path, **kw)
    assert c.df_a is None and c.to_dict() == whole.to_dict()
    paths = study.write_comparison(c, tmp_path)
    assert [p.name for p in paths] == ["comparison.json", "outcomes.csv", "games_a.parquet", "games_b.parquet",
                                       "comparison.png"]
    assert len(list((tmp_path / "games_a.parquet").glob("part-*.parquet"))) == 7
    for name, df in (("games_a.parquet", whole.df_a), ("games_b.parquet", whole.df_b)):
        back = pd.read_parquet(tmp_path / name)
        assert back["game"].tolist() == df["game"].tolist() and back["win"].tolist() == df["win"].tolist()


def test_cli_compare_streams_past_the_old_limit_of_kept_tables(tmp_path):
    from typer.testing import CliRunner

    from foury_sim.cli import app
    from foury_sim.errors import InputError

    r = CliRunner().invoke(app, ["compare", "delve", "--a", "hero=none", "--b", "hero=spellsword", "--games",
                                 str(2**63), "--no-progress"])
    assert isinstance(r.exception, InputError) and r.exception.where == "--games"  # main(): one line, exit 2
    assert "between 1 and 9,223,372,036,854,775,807" in r.exception.message
    r = CliRunner().invoke(app, ["compare", "delve", "--a", "hero=none", "--b", "hero=spellsword", "--games", "1500",
                                 "--seed", "3", "--format", "json", "--no-progress", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    from foury_sim import study

    whole = study.compare("delve", {"hero": "none"}, {"hero": "spellsword"}, games=1500, seed=3, progress=False)
    assert json.loads(r.stdout) == json.loads(json.dumps(whole.to_dict()))
    assert (tmp_path / "games_b.parquet").is_dir() and len(pd.read_parquet(tmp_path / "games_b.parquet")) == 1500


# -------------------------------------------------- robust cells and tune candidates on the chunk path --
def test_stream_rows_are_play_games_in_any_chunks_with_only_the_columns_asked():
    from foury_sim.study import CellRunner

    spec = get_game("delve")
    rs, hero, pol = CellRunner(spec).resolve({"hero": "spellsword"})
    df, extras = runner.play_games(spec, rs, hero, pol, 9, 100, 2500)
    got, ex = ch.stream_rows(spec, rs, hero, pol, 9, 100, 2500, size=377)
    pd.testing.assert_frame_equal(df, got)
    assert extras.keys() == ex.keys() and all(np.array_equal(extras[k], ex[k]) for k in extras)
    wins, _ = ch.stream_rows(spec, rs, hero, pol, 9, 100, 2500, columns=("win",), size=600)
    assert list(wins.columns) == ["win"] and wins["win"].tolist() == df["win"].tolist()


def test_tune_candidates_and_robust_cells_play_the_games_of_before(monkeypatch):
    from foury_sim import robust, tune
    from foury_sim.study import CellRunner

    spec = get_game("delve")
    evaluate = tune.engine_evaluator(spec, "param.margin", "win", {"hero": "none"}, seed=4)
    rs, hero, pol = CellRunner(spec).resolve({"hero": "none", "param.margin": 3})
    df, _ = runner.play_games(spec, rs, hero, pol, 4, 700, 900)
    assert evaluate(3, 700, 900).tolist() == df["win"].to_numpy(float).tolist()

    class Exp:  # the fields of a robust experiment that play_points reads
        game, seed, games, fixed, path, text = "delve", 4, 900, {}, None, ""

        def cells(self):
            return [{"hero": "none", "param.margin": 3}]

    monkeypatch.setattr(robust, "CELL_CHUNK", 211)
    wins = robust.play_points(Exp(), [{"values": {}}], progress=False)
    whole, _ = runner.play_games(spec, rs, hero, pol, 4, 0, 900)
    assert list(wins.values())[0].tolist() == whole["win"].astype(np.int8).tolist()


# ------------------------------------------------------------ one job type, progress with an executor --
def test_a_built_job_and_a_command_line_job_are_one_type_and_play_the_same_games():
    from foury_sim.policy import make_policy

    spec = get_game("delve")
    rs = spec.load_ruleset(None, ["game.levels=9"], None)
    pol = make_policy("risk", spec.policies, None)
    built = ch.job_of(spec, rs, "none", pol, keep_rows=True)
    given = ch.job_for("delve", hero="none", policy="risk", params=None, rules=None, sets=["game.levels=9"],
                       map=None, options=None, keep_rows=True)
    assert type(built) is type(given) is ch.ChunkJob and isinstance(built.ruleset_source, ch.BuiltRuleset)
    again = pickle.loads(pickle.dumps(built))
    assert again == built and hash(again) == hash(built)
    a, b = ch.play_chunk(again, ch.Chunk(7, 100, 50)), ch.play_chunk(given, ch.Chunk(7, 100, 50))
    pd.testing.assert_frame_equal(a.rows, b.rows)
    assert not built.game_rows and given.game_rows  # a built job's rows travel once (as its table)
    assert a.partial.rows is None and b.partial.rows is None  # and Delve's own entries need none (summarize_hists)


class _Pool:
    """An executor playing the chunks in this process in reverse order (as a pool may finish them)."""

    def __init__(self):
        self.calls = 0

    def __call__(self, fn, chunks):
        self.calls += 1
        for c in reversed(chunks):
            yield fn(c)


class _Bar:
    enabled = True

    def __init__(self):
        self.moves = []

    def update(self, n):
        self.moves.append(n)

    def close(self):
        pass


def test_the_progress_bar_moves_with_the_results_of_any_executor(monkeypatch):
    from foury_sim import study

    bars = []
    monkeypatch.setattr(runner, "Progress", lambda *a, **k: bars.append(_Bar()) or bars[-1])
    pool = _Pool()
    here = runner.run("delve", games=2000, seed=2, progress=False, chunk=300)
    there = runner.run("delve", games=2000, seed=2, progress=True, chunk=300, executor=pool)
    assert pool.calls == 1 and bars[-1].moves == [200] + [300] * 6
    assert {k: v for k, v in here.summary.items() if k not in TIMING} == \
        {k: v for k, v in there.summary.items() if k not in TIMING}
    monkeypatch.setattr(study, "Progress", lambda *a, **k: bars.append(_Bar()) or bars[-1])
    monkeypatch.setattr(study, "CELL_CHUNK", 700)
    c = study.compare("delve", {"hero": "none"}, {"hero": "spellsword"}, games=1500, seed=2, progress=True,
                      executor=pool, keep_rows=False)
    assert sorted(bars[-1].moves) == [200, 1400, 1400] and pool.calls == 2
    assert c.to_dict() == study.compare("delve", {"hero": "none"}, {"hero": "spellsword"}, games=1500, seed=2,
                                        progress=False).to_dict()


@pytest.mark.parametrize("game, sets", [("delve", []), ("foury", []), ("foury", ["two_player.players=2"]),
                                        ("rooms", []), ("rooms", ["race.players=2"]), ("tactics", [])])
def test_a_chunk_summarised_from_its_columns_is_the_one_from_its_table(game, sets):
    """A chunk whose rows nobody keeps is reduced from the kernel's columns (a dict of arrays: no pandas table is
    built, session 49), the derived columns (Dungeon Foury's 2-player edge, Rooms' race edge) and the board's
    numbers included: the same partial, histogram by histogram, as from the table a kept chunk builds."""
    spec = get_game(game)
    res = runner.run(game, games=10, seed=3, progress=False, sets=sets)
    chunk = ch.Chunk(3, 0, GAMES.get(game, 1000) // 3)
    from_columns = ch.play_local(spec, res.ruleset, res.hero, res.policy, chunk, game_rows=False)
    from_table = ch.play_local(spec, res.ruleset, res.hero, res.policy, chunk, keep_rows=True, game_rows=False)
    assert from_columns.rows is None and isinstance(from_table.rows, pd.DataFrame)
    a, b = from_columns.partial, from_table.partial
    assert a.n == b.n == chunk.count and a.hists.keys() == b.hists.keys()
    derived = [c.name for c in spec.outputs.columns if c.derive is not None and c.name in from_table.rows]
    assert derived or not sets  # (a derived column in the variants)
    assert all(c in a.hists for c in derived if c in spec.outputs.summarized_names(list(from_table.rows)))
    for k, (v, n) in b.hists.items():
        np.testing.assert_array_equal(a.hists[k][0], v, err_msg=k)
        np.testing.assert_array_equal(a.hists[k][1], n, err_msg=k)
    assert to_jsonable(a.board) == to_jsonable(b.board) and (a.board is not None) == (spec.board is not None)
    assert to_jsonable(a.extras) == to_jsonable(b.extras)


@pytest.mark.parametrize("game", ["delve", "rooms"])
def test_a_runs_summary_imports_no_pandas(game):
    """`foury-sim run GAME --format json` reduces its chunks from plain arrays: pandas (about 0.4 s of every start)
    is not imported (``foury_sim.lazy``); a table asked for (``--out``, a report) imports it then."""
    code = ("import sys\nfrom foury_sim.cli import main\n"
            f"sys.argv = ['foury-sim', 'run', '{game}', '--games', '300', '--format', 'json']\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "print('pandas' in sys.modules, file=sys.stderr)\n")
    assert _run_300_games(code) == "False"


def _run_300_games(code: str) -> str:
    """Run ``code`` (a command of 300 games, JSON on standard output) in a fresh interpreter; its last line on
    standard error."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout)["games"] == 300
    return out.stderr.strip().splitlines()[-1]


def test_a_command_defers_the_modules_it_does_not_use_until_used():
    """The entry point defers ``numpy.f2py``, ``numpy.testing``, ``numpy.ma``, ``yaml``, ``importlib.metadata``,
    ``scipy.special``, ``asyncio`` and ``numba.np.arrayobj`` (``lazy.defer_unused``): a run (numba's config imports
    yaml; pydantic imports importlib.metadata and asyncio's coroutines; the engine's cached environments name
    numba.np.arrayobj; the summary loads scipy.special's compiled functions only) executes none of f2py, yaml's
    constructor, importlib.metadata's email parsing, asyncio's event loops (and ssl), numba's array lowering (and
    its string modules) or scipy.special's wrappers (and scipy's array-API layer), and each still works when used,
    whole and the same object through its parent's attribute and ``sys.modules``; scipy.special's array-API
    layer, which copies numpy's namespace, still runs no f2py."""
    code = ("import sys, atexit\n"
            "def after():\n"
            "    import numpy as np\n"
            "    ran = [m for m in ('numpy.f2py.crackfortran', 'yaml.constructor', 'email.message',\n"
            "                       'numba.cpython.charseq', 'asyncio.base_events', 'ssl') if m in sys.modules]\n"
            "    if 'make_array' in vars(sys.modules['numba.np.arrayobj']):\n"
            "        ran.append('numba.np.arrayobj')\n"
            "    if 'gammaln' in vars(sys.modules['scipy.special']):\n"
            "        ran.append('scipy.special')\n"
            "    layer = 'scipy._lib.array_api_compat.numpy' in sys.modules\n"
            "    import numba.np, numba.np.arrayobj as ao, scipy.special\n"
            "    if not (callable(ao.make_array) and numba.np.arrayobj is ao is sys.modules['numba.np.arrayobj']):\n"
            "        ran.append('arrayobj not whole')\n"
            "    if not (abs(scipy.special.gammaln(5.0) - np.log(24.0)) < 1e-12\n"
            "            and scipy.special.ndtri is sys.modules['scipy.special._ufuncs'].ndtri\n"
            "            and 'scipy._lib.array_api_compat.numpy' in sys.modules\n"
            "            and 'numpy.f2py.crackfortran' not in sys.modules):\n"
            "        ran.append('scipy.special not whole')\n"
            "    np.testing.assert_array_equal(np.arange(3), [0, 1, 2])\n"
            "    m = np.ma.masked_array([1, 2, 3], mask=[0, 1, 0])\n"
            "    import numpy.f2py, yaml, importlib, importlib.metadata as md, asyncio\n"
            "    async def hearts():\n"
            "        return 5\n"
            "    if asyncio.run(hearts()) != 5 or asyncio is not sys.modules['asyncio']:\n"
            "        ran.append('asyncio not whole')\n"
            "    ok = (callable(numpy.f2py.run_main) and np.f2py is sys.modules['numpy.f2py'] and m.sum() == 4\n"
            "          and yaml.safe_load('a: [1, 2]') == {'a': [1, 2]} and yaml is sys.modules['yaml']\n"
            "          and md.version('numpy') == np.__version__ and importlib.metadata is md\n"
            "          and md is sys.modules['importlib.metadata'])\n"
            "    print(ran, layer, ok, file=sys.stderr, flush=True)\n"
            "atexit.register(after)\n"
            "from foury_sim.cli import entry\n"
            "sys.argv = ['foury-sim', 'run', 'delve', '--games', '300', '--format', 'json']\n"
            "entry()\n")
    assert _run_300_games(code) == "[] False True"


def test_a_command_that_compiles_runs_what_it_deferred_first():
    """A command whose run compiles (a policy file of the user's) runs the modules the entry point deferred before
    numba compiles (``lazy.run_deferred`` at numba's first compile: ``numba.np.arrayobj`` registers the array
    lowering numba's compiler needs) and prints what the same command prints in a process that deferred nothing."""
    import subprocess
    import sys

    from typer.testing import CliRunner

    from foury_sim.cli import app

    args = ["run", "delve", "--policy", "tests/data/delve_policies.py:cautious", "--param", "retire_level=3",
            "--games", "300", "--format", "json"]
    code = ("import sys\n"
            "from foury_sim.cli import entry\n"
            f"sys.argv = ['foury-sim', *{args!r}]\n"
            "entry()\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert out.returncode == 0, out.stderr[-2000:]
    here = CliRunner().invoke(app, args)
    assert here.exit_code == 0, here.output

    def untimed(rec: dict) -> dict:
        return {k: v for k, v in rec.items() if k not in ("elapsed_s", "games_per_s", "compile_s", "load_s")}

    assert untimed(json.loads(out.stdout)) == untimed(json.loads(here.stdout))


def test_deaths_per_cell_counts_first_deaths_of_a_table_or_of_its_columns():
    """``registry.deaths_per_cell`` (every board's ``cell_record``): -1 is no death, cells past the board's ``n``
    are not counted, cells without a death are 0; a table and a dict of its columns give the same list."""
    from foury_sim.registry import deaths_per_cell

    col = np.array([-1, 2, 0, 2, -1, 2, 4], np.int32)
    assert deaths_per_cell({"death_cell": col}, 4) == [1, 0, 3, 0]
    assert deaths_per_cell(pd.DataFrame({"death_cell": col}), 6) == [1, 0, 3, 0, 1, 0]
    assert deaths_per_cell({"death_cell": np.full(3, -1)}, 2) == [0, 0]
