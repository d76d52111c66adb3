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
    path, _ = cluster.worker_cache_dir({**home, "FOURY_SIM_CACHE_DIR": "/home/ann/c", "TMPDIR": "/scratch/t"}, MOUNTS)
    assert path == f"/scratch/t/foury-sim-cache-{cluster.os.getuid()}"


# --- task sizes -------------------------------------------------------------------------------------------------

def test_tasks_play_seconds_of_games_and_spread_a_short_run():
    # 100,000 games/s: a task is TASK_S (2 s) of games when the run is long
    assert cluster.task_games(100_000, 10_000_000, slots=4) == 200_000
    # a short run is spread over the 4 slots, each task still at least MIN_TASK_S (0.25 s)
    assert cluster.task_games(100_000, 400_000, slots=4) == 100_000
    assert cluster.task_games(100_000, 40_000, slots=4) == 25_000
    assert cluster.task_games(2, 30, slots=2) == 4
    assert cluster.task_games(1e-6, 3, slots=2) == 1


def test_small_chunks_are_grouped_and_large_ones_split_in_order():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class C:
        seed: int
        start: int
        count: int

    chunks = [C(1, 10 * i, 10) for i in range(7)] + [C(1, 70, 95), C(1, 165, 5), C(1, 170, 37)]
    units = cluster.split_chunks(chunks, 25)
    # 95 games (over 1.5 x 25) -> 4 pieces of 24, 24, 24, 23; 37 games (under 1.5 x 25) stays whole
    assert [(c.start, p.start, p.count) for c, p in units[7:]] == [
        (70, 70, 24), (70, 94, 24), (70, 118, 24), (70, 142, 23), (165, 165, 5), (170, 170, 37)]
    assert all(p.seed == 1 for _, p in units)
    groups = cluster.group_units(units, 25)
    assert [[p.start for _, p in g] for g in groups] == [
        [0, 10, 20], [30, 40, 50], [60, 70], [94, 118], [142, 165], [170]]
    assert cluster.group_units([], 25) == []
