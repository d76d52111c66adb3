"""--cluster: chunks of games on Dask give the local numbers bit for bit (a run, a sweep, a compare, a worker
killed mid-run), and everything around it (the address, the worker's cache, task sizes, Dask missing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from foury_sim import cluster
from foury_sim.errors import InputError

ROOT = Path(__file__).resolve().parents[1]


# --- the address -----------------------------------------------------------------------------------------------

def test_address_from_option_then_environment_then_config_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv(cluster.ENV, raising=False)
    assert cluster.cluster_address(None) is None  # no file: this machine
    cfg = tmp_path / "foury-sim" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text('cluster = "tcp://sched:8786"\n')
    assert cluster.cluster_address(None) == "tcp://sched:8786"
    monkeypatch.setenv(cluster.ENV, "tcp://env:8786")
    assert cluster.cluster_address(None) == "tcp://env:8786"
    assert cluster.cluster_address("local:3") == "local:3"
    monkeypatch.setenv(cluster.ENV, "")  # an empty variable: this machine, the file is not read
    assert cluster.cluster_address(None) is None
    assert cluster.cluster_address("  ") is None


def test_bad_addresses_and_config_files_are_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv(cluster.ENV, raising=False)
    with pytest.raises(InputError, match="local:N takes a number of workers from 1 to 256, not 'x'") as e:
        cluster.cluster_address("local:x")
    assert e.value.where == "--cluster"
    with pytest.raises(InputError, match="from 1 to 256, not '0'") as e:
        monkeypatch.setenv(cluster.ENV, "local:0")
        cluster.cluster_address(None)
    assert e.value.where == cluster.ENV
    monkeypatch.delenv(cluster.ENV)
    cfg = tmp_path / "foury-sim" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text("cluster = 8786\n")
    with pytest.raises(InputError, match="cluster must be a text") as e:
        cluster.cluster_address(None)
    assert e.value.where == f"{cfg}: cluster"
    cfg.write_text("cluster = \n")
    with pytest.raises(InputError, match="not valid TOML: .*line 1") as e:
        cluster.cluster_address(None)
    assert e.value.where == str(cfg)
    assert cluster.local_workers("local") == 2 and cluster.local_workers("local:5") == 5


def test_an_unreachable_address_names_where_it_came_from(tmp_path, monkeypatch):
    # the address of FOURY_SIM_CLUSTER or the configuration file was blamed on --cluster, which was not given
    distributed = pytest.importorskip("distributed")

    def refusing_client(address, **kw):  # (what distributed.Client raises for it, without starting an event loop:
        raise ValueError(f"missing port number in address {address!r}")  # a real one hung a loaded CI once)

    monkeypatch.setattr(distributed, "Client", refusing_client)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv(cluster.ENV, "nohost")
    msg = "cannot reach the Dask scheduler at 'nohost': missing port number in address 'nohost'"
    with pytest.raises(InputError, match=msg) as e:
        cluster.executor_for(None)
    assert e.value.where == cluster.ENV
    with pytest.raises(InputError, match=msg) as e:
        cluster.executor_for("nohost")
    assert e.value.where == "--cluster"
    monkeypatch.delenv(cluster.ENV)
    cfg = tmp_path / "foury-sim" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text('cluster = "nohost"\n')
    with pytest.raises(InputError, match=msg) as e:
        cluster.executor_for(None)
    assert e.value.where == f"{cfg}: cluster"


def test_without_dask_the_option_is_one_line_saying_what_to_install(monkeypatch):
    from foury_sim.cli import executor

    monkeypatch.delenv(cluster.ENV, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent")
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(InputError) as e:
        executor("tcp://sched:8786")
    assert e.value.message == 'running on a cluster needs Dask, which is not installed: pip install -e ".[cluster]"'
    assert e.value.where == "--cluster"
    assert executor(None) is None  # no cluster asked for: Dask is never needed


def test_the_command_line_and_library_import_without_dask():
    code = ("import sys; sys.modules.update(dask=None, distributed=None); "  # importing Dask now fails
            "import foury_sim.cli, foury_sim.runner, foury_sim.study, foury_sim.tune, foury_sim.cluster; "
            "print(sorted(m for m in ('dask', 'distributed') if sys.modules[m] is not None))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- the workers' cache -----------------------------------------------------------------------------------------

MOUNTS = """sysfs /sys sysfs rw 0 0
/dev/sda1 / ext4 rw,relatime 0 0
server:/export/home /home nfs4 rw,vers=4.2 0 0
/dev/nvme0n1 /scratch xfs rw 0 0
tmpfs /tmp tmpfs rw 0 0
"""


def test_filesystem_of_a_path_is_its_longest_mount_point():
    assert cluster.fs_type("/home/ann/.cache/foury-sim", MOUNTS) == "nfs4"
    assert cluster.fs_type("/homework", MOUNTS) == "ext4"  # not under /home
    assert cluster.fs_type("/scratch/x", MOUNTS) == "xfs"
    assert cluster.is_network_fs("/home", MOUNTS) and not cluster.is_network_fs("/tmp/x", MOUNTS)


def test_worker_cache_never_on_a_network_filesystem():
    home = {"HOME": "/home/ann"}
    path, why = cluster.worker_cache_dir(home, MOUNTS, tmp="/tmp")
    assert (path, why) == (f"/tmp/foury-sim-cache-{cluster.os.getuid()}",
                           "the default cache is on nfs4: a local directory instead")
    path, why = cluster.worker_cache_dir({**home, "FOURY_SIM_CACHE_DIR": "/scratch/fs"}, MOUNTS)
    assert (path, why) == ("/scratch/fs", "FOURY_SIM_CACHE_DIR (local)")
    path, why = cluster.worker_cache_dir({**home, "XDG_CACHE_HOME": "/scratch/c"}, MOUNTS)
    assert (path, why) == ("/scratch/c/foury-sim", "the default cache (local)")
    path, _ = cluster.worker_cache_dir({**home, "FOURY_SIM_CACHE_DIR": "/home/ann/c"}, MOUNTS, tmp="/scratch/t")
    assert path == f"/scratch/t/foury-sim-cache-{cluster.os.getuid()}"


# --- task sizes -------------------------------------------------------------------------------------------------

def test_tasks_are_a_few_per_worker_thread_and_at_most_task_s_of_games():
    # 100,000 games/s a thread, 4 threads: a long run in tasks of at most TASK_S (2 s), a multiple of 4 of them
    assert cluster.task_count(100_000, 10_000_000, slots=4) == 52  # 50 would do; 52 leaves no thread alone at the end
    # a short run: TASKS_PER_SLOT (4) tasks a thread, a slow worker then plays fewer of them
    assert cluster.task_count(100_000, 4_000_000, slots=4) == 20
    assert cluster.task_count(150_000, 400_000, slots=2) == 8
    # ... but none much under MIN_TASK_S (0.25 s, 25,000 games here)
    assert cluster.task_count(100_000, 400_000, slots=4) == 16
    assert cluster.task_count(100_000, 200_000, slots=4) == 8
    assert cluster.task_count(100_000, 40_000, slots=4) == 2
    assert cluster.task_count(100_000, 10_000, slots=4) == 1
    # never more tasks than games, never none
    assert cluster.task_count(1e6, 3, slots=2, min_task_s=0) == 3
    assert cluster.task_count(1e-6, 3, slots=2) == 3
    assert cluster.task_count(1e-6, 0, slots=2) == 1


def test_the_games_are_cut_into_equal_tasks_across_chunks_in_order():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class C:
        seed: int
        start: int
        count: int

    chunks = [C(1, 10 * i, 10) for i in range(7)] + [C(1, 70, 95), C(2, 0, 0), C(1, 165, 5), C(1, 170, 49)]
    groups = cluster.cut_tasks(chunks, 5)  # 219 games: tasks of 43, 44, 44, 44, 44
    assert [sum(p.count for _, p in g) for g in groups] == [43, 44, 44, 44, 44]
    assert [[(c.start, p.start, p.count) for c, p in g] for g in groups] == [
        [(0, 0, 10), (10, 10, 10), (20, 20, 10), (30, 30, 10), (40, 40, 3)],
        [(40, 43, 7), (50, 50, 10), (60, 60, 10), (70, 70, 17)],
        [(70, 87, 44)],
        [(70, 131, 34), (165, 165, 5), (170, 170, 5)],
        [(170, 175, 44)]]
    assert all(p.seed == 1 for g in groups for _, p in g)  # the empty chunk of seed 2 plays nothing
    assert all(p is c for g in groups for c, p in g if p.count == c.count)  # a chunk inside one task: played whole
    # the pieces of every chunk are its games, once, in order
    for c in chunks:
        pieces = [p for g in groups for d, p in g if d is c]
        assert [p.start for p in pieces] == [c.start + sum(q.count for q in pieces[:i]) for i in range(len(pieces))]
        assert sum(p.count for p in pieces) == c.count
    assert len(cluster.cut_tasks(chunks, 1000)) == 219  # never more tasks than games
    assert cluster.cut_tasks([], 4) == [] and cluster.cut_tasks([C(1, 0, 0)], 4) == []


# --- on a LocalCluster of two worker processes ------------------------------------------------------------------
# The workers inherit FOURY_SIM_CACHE_DIR and load the kernels the local run of each test compiled or loaded: no
# test compiles a kernel the rest of the suite does not (Foury, its default hero and policy, built-in policies).

TIMING = ("elapsed_s", "games_per_s", "compile_s", "load_s")


@pytest.fixture(scope="module")
def dask_address():
    import distributed

    lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        yield lc.scheduler_address
    finally:
        cluster.close_clients()
        lc.close()


def executor(address, **kw):
    # tasks of a few hundred games: a run of thousands is many tasks on both workers
    return cluster.dask_executor(address, task_s=kw.pop("task_s", 0.05), min_task_s=0.01, **kw)


def untimed(summary):
    return {k: v for k, v in summary.items() if k not in TIMING}


def test_a_run_on_the_cluster_gives_the_local_numbers_and_workers_load_the_cached_kernel(dask_address):
    import os

    import pandas as pd

    from foury_sim.runner import run

    here = run("foury", games=3000, seed=11, progress=False)
    ex = executor(dask_address)
    there = run("foury", games=3000, seed=11, progress=False, executor=ex)
    pd.testing.assert_frame_equal(here.df, there.df)
    assert untimed(here.summary) == untimed(there.summary)
    workers = ex.last["workers"]
    assert len(workers) == 2 and os.getpid() not in {w["pid"] for w in workers}
    assert all(w["compile_s"] == 0 for w in workers)  # loaded from the cache this process filled
    assert all(w["digest"] == cluster.code_digest() for w in workers)
    assert ex.last["tasks"] >= 2


def test_a_sweep_on_the_cluster_writes_the_local_cells(dask_address, tmp_path):
    import json

    from foury_sim.study import run_sweep

    exp = tmp_path / "exp.toml"
    exp.write_text('name = "small"\ngame = "foury"\nseed = 5\ngames = 1200\n[fixed]\npolicy = "greedy"\n'
                   '[sweep]\n"round.monster_bonus" = [[0, 1, 2, 3], [0, 0, 0, 0]]\n')
    here = run_sweep(exp, tmp_path / "here", progress=False, report=False)
    there = run_sweep(exp, tmp_path / "there", progress=False, report=False, executor=executor(dask_address))
    assert (here / "cells.csv").read_text() == (there / "cells.csv").read_text()
    for f in sorted((here / "cells").glob("cell_*.json")):
        a, b = json.loads(f.read_text()), json.loads((there / "cells" / f.name).read_text())
        assert {k: v for k, v in a.items() if k != "elapsed_s"} == {k: v for k, v in b.items() if k != "elapsed_s"}


def test_a_compare_on_the_cluster_gives_the_local_comparison(dask_address):
    from foury_sim.study import compare

    here = compare("foury", {"hero": "free"}, {"hero": "elydion"}, games=1500, seed=4, progress=False)
    there = compare("foury", {"hero": "free"}, {"hero": "elydion"}, games=1500, seed=4, progress=False,
                    executor=executor(dask_address))
    assert here.to_dict() == there.to_dict()


def _die_once(play, marker, start, chunk):
    """Plays ``chunk``; the first worker to reach the piece starting at ``start`` dies (os._exit) instead."""
    import os

    if chunk.start == start and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return play(chunk)


def test_a_worker_killed_mid_run_is_replaced_and_the_numbers_stay(dask_address, tmp_path):
    import functools
    import os

    import cloudpickle
    import pandas as pd

    from foury_sim.runner import run

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers do not import this test file
    ex = cluster.dask_executor(dask_address, games_per_task=250)  # 12 tasks of 250 games
    marker = tmp_path / "died"

    def killing(play, chunks):  # the first worker to play games 750..999 (the fourth task) dies
        return ex(functools.partial(_die_once, play, str(marker), 750), chunks)

    here = run("foury", games=3000, seed=12, progress=False)
    pids = set(ex.client.run(os.getpid).values())
    there = run("foury", games=3000, seed=12, progress=False, executor=killing)
    assert marker.exists() and ex.last["tasks"] == 12  # a worker did die in the middle of the run
    pd.testing.assert_frame_equal(here.df, there.df)
    assert untimed(here.summary) == untimed(there.summary)
    ex.client.wait_for_workers(2, timeout=120)
    assert len(set(ex.client.run(os.getpid).values()) - pids) == 1  # Dask started a new worker process


def test_tune_with_the_cluster_option_gives_the_local_answer(dask_address, monkeypatch):
    """``tune --cluster`` plays every candidate's chunks on the cluster (through the verb's context: typer's own,
    which ``click.get_current_context`` does not see in a typer that vendors click) and gives the local answer."""
    import json

    from typer.testing import CliRunner

    from foury_sim import chunks, runner
    from foury_sim.cli import app

    where: list[str] = []
    current = chunks.current_executor
    monkeypatch.setattr(chunks, "current_executor", lambda: where.append(type(current()).__name__) or current())
    args = ["tune", "foury", "--param", "enemies.orc.base", "--target", "win=0.15", "--tolerance", "0.04",
            "--range", "-2,6", "--fixed", "hero=kael", "--seed", "3", "--max-games", "4000", "--points", "3",
            "--format", "json", "--no-progress"]
    here = CliRunner().invoke(app, args)
    assert set(where) == {"NoneType"}
    where.clear()
    there = CliRunner().invoke(app, [*args, "--cluster", dask_address])
    assert set(where) == {"DaskExecutor"}, where
    assert here.exit_code == 0 and there.exit_code == 0, (here.output, there.output)
    assert runner._EXECUTOR.get() is None  # the verb's executor ends with the verb
    a, b = json.loads(here.stdout), json.loads(there.stdout)
    for rec in (a, b):
        for c in rec["candidates"]:
            c.pop("elapsed_s", None)
    assert a == b and len(a["candidates"]) >= 3


def test_a_user_policy_travels_by_content_and_is_compiled_where_it_plays(tmp_path):
    from dataclasses import replace

    import pandas as pd

    from foury_sim.chunks import Chunk, ChunkJob, job_objects, play_chunk
    from foury_sim.policy import make_policy
    from foury_sim.registry import get_game
    from foury_sim.runner import play_games

    spec = get_game("foury")
    rs = spec.load_ruleset(None, None, None)
    pol = make_policy(str(ROOT / "experiments/policies/brave.py") + ":brave", spec.policies, None)
    here, _ = play_games(spec, rs, "free", pol, 4, 0, 200)
    job = cluster.job_of(spec, rs, "free", pol)
    assert isinstance(job, ChunkJob)  # one job type: a built run's job is the command line's
    assert job.policy.file_text == (ROOT / "experiments/policies/brave.py").read_text()
    # a worker without the file (another machine): the policy is built from the text it was sent
    gone = str(tmp_path / "elsewhere" / "brave.py") + ":brave"
    job = replace(job, policy=replace(job.policy, name=gone))
    there = play_chunk(job, Chunk(4, 0, 200))
    _, _, built = job_objects(job)
    assert built.name.endswith("brave.py:brave") and built.name != gone and "foury-sim-policy-" in built.name
    pd.testing.assert_frame_equal(here, there.rows)
