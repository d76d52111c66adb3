"""Every benchmark result file says how it was made (benchmarks/record.py)."""

import importlib.util
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def record_module():
    spec = importlib.util.spec_from_file_location("record", ROOT / "benchmarks" / "record.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_result_file_carries_the_command_commit_versions_and_machine(tmp_path, monkeypatch):
    import numba

    from foury_sim import __version__

    record = record_module()
    monkeypatch.setattr(sys, "argv", [str(ROOT / "benchmarks" / "bench_cluster.py"), "--game", "delve", "--games",
                                      "400000"])
    path = tmp_path / "results" / "x.json"
    record.write_result(path, {"games": 400000})
    data = json.loads(path.read_text())
    made = data["made_by"]
    assert data["games"] == 400000
    assert made["command"] == "python benchmarks/bench_cluster.py --game delve --games 400000"
    assert made["foury_sim"] == __version__ and made["numba"] == numba.__version__
    assert made["commit"] is None or re.fullmatch(r"[0-9a-f]{4,40}(-dirty)?", made["commit"])
    assert made["cores"] >= 1 and made["utc"].endswith("+00:00")
    assert not list(path.parent.glob("*.tmp*"))  # written atomically: no temporary file left


def test_every_benchmark_writes_its_results_through_write_result():
    for p in sorted((ROOT / "benchmarks").glob("*.py")):
        text = p.read_text()
        written = re.search(r"\.write_text\(json\.dump|json\.dump\(", text)
        assert not written, f"{p.name} writes a result without made_by"
        if p.name.startswith("bench_"):
            assert "write_result(" in text, p.name



def test_a_result_file_says_whether_each_engine_is_the_shipped_code(tmp_path, monkeypatch):
    """A benchmark of an engine compiled here (the suite's warm step before shipping, say) must say so."""
    from foury_sim import config, shipped_ir

    monkeypatch.setenv("FOURY_SIM_CACHE_DIR", str(tmp_path))
    record = record_module()
    assert record.engines() == {}  # no cache folder: no engine used
    folder = Path(config._cache_dir("games/rooms")) / "rooms_0123"
    folder.mkdir(parents=True)
    assert record.engines() == {}  # a folder numba made on import, without an engine in it
    (folder / "kernel.simulate-1.py311.nbi").write_bytes(b"")
    why = shipped_ir.code_applies("games/rooms")  # "" on a machine where the shipped code applies
    unseeded = why or "the cache held it before the shipped code was seeded"
    assert record.engines() == {"rooms": f"compiled here ({unseeded})"}
    shipped_ir.seed("games/rooms")
    assert record.engines() == {"rooms": f"compiled here ({why})" if why else "shipped machine code"}
