"""Progress on stderr (runner.Progress) and the compile notice (config.CompiledOnFirstUse)."""

from __future__ import annotations

import io
import time

import pytest

from foury_sim import config
from foury_sim.runner import Progress


class Tty(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_auto_on_a_non_terminal_shows_nothing():
    s = io.StringIO()
    p = Progress(1000, enabled=None, stream=s)
    assert not p.enabled
    p.update(500)
    p.update(500)
    p.close()
    assert s.getvalue() == ""


def test_no_progress_shows_nothing_even_on_a_terminal():
    s = Tty()
    p = Progress(1000, enabled=False, stream=s)
    assert not p.enabled
    p.update(1000)
    p.close()
    assert s.getvalue() == ""


def test_forced_on_a_non_terminal_prints_plain_infrequent_lines(monkeypatch):
    s = io.StringIO()
    p = Progress(1000, label="games", enabled=True, stream=s)
    assert p.enabled
    p.update(100)  # within PLAIN_EVERY_S of the start: no line yet
    assert s.getvalue() == ""
    monkeypatch.setattr(Progress, "PLAIN_EVERY_S", 0.0)
    p.update(400)
    p.update(500)
    p.close()  # and one at the end, unless the last update said it already (it was printed twice)
    lines = s.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("foury-sim: 500 of 1,000 games (50 %), ") and "s left" in lines[0]
    assert lines[-1].startswith("foury-sim: 1,000 of 1,000 games (100 %), ")
    assert "\r" not in s.getvalue() and "\x1b" not in s.getvalue()  # no animation in a log
    q = Progress(1000, label="games", enabled=True, stream=io.StringIO())
    q.update(600)
    q.close()  # the end said once
    assert q.stream.getvalue().splitlines()[-1].startswith("foury-sim: 600 of 1,000 games (60 %)")


def test_auto_on_a_terminal_waits_before_showing_a_bar():
    s = Tty()
    p = Progress(1000, enabled=None, stream=s)
    assert p.enabled  # the runner plays in batches so that a bar could move
    p.update(1000)
    p.close()  # a job shorter than LAZY_S: no bar at all
    assert s.getvalue() == ""


def test_auto_on_a_terminal_shows_a_rich_bar_after_the_delay(monkeypatch):
    monkeypatch.setattr(Progress, "LAZY_S", 0.05)
    s = Tty()
    p = Progress(1000, label="games (all cells)", enabled=None, stream=s)
    p.update(250)
    deadline = time.monotonic() + 5
    while p._bar is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert p._bar is not None
    p.update(750)
    p.close()
    out = s.getvalue()
    assert "games (all cells)" in out and "1000/1000" in out and "100%" in out


def test_the_compile_notice_goes_above_a_live_bar_and_back_to_stderr_after(monkeypatch):
    s = Tty()
    before = list(config.NOTICE_SINK)
    p = Progress(10, enabled=True, stream=s)
    config.announce("foury-sim: compiling the test engine ...")
    p.close()
    assert "foury-sim: compiling the test engine ..." in s.getvalue()
    assert config.NOTICE_SINK == before


def _double(x):
    return 2 * x


def test_a_cold_first_call_announces_the_compile_and_a_cached_one_does_not(tmp_path, monkeypatch):
    """The notice hook with a tiny kernel: a fresh cache folder compiles (notice, compile time counted), a
    second entry point for the same function loads from the cache (no notice, load time counted)."""
    if config.JIT_DISABLED or not config.CACHE or config._USER_CACHE_DIR:
        pytest.fail("this test needs numba's JIT and foury-sim's own kernel cache")
    monkeypatch.setenv("FOURY_SIM_CACHE_DIR", str(tmp_path))
    said: list[str] = []
    monkeypatch.setattr(config, "NOTICE_SINK", [said.append])
    monkeypatch.setattr(config, "FIRST_USE", {"compile_s": 0.0, "load_s": 0.0})
    module = "foury_sim.games.delve.kernel"  # only names the cache folder (games/delve) of the entry point
    cold = config.CompiledOnFirstUse(module, "int64(int64)", _double)
    assert cold.cold()
    assert cold()(21) == 42
    assert said == [cold.notice()]
    assert said[0].startswith("foury-sim: compiling the delve engine (first run after an install or code change")
    assert config.FIRST_USE["compile_s"] > 0 and config.FIRST_USE["load_s"] == 0
    warm = config.CompiledOnFirstUse(module, "int64(int64)", _double)
    assert not warm.cold()
    assert warm()(4) == 8
    assert len(said) == 1
    assert config.FIRST_USE["load_s"] > 0


def test_no_notice_without_the_jit(monkeypatch, tmp_path):
    monkeypatch.setenv("FOURY_SIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(config, "JIT_DISABLED", True)
    assert not config.CompiledOnFirstUse("foury_sim.games.delve.kernel", "int64(int64)", _double).cold()


def test_run_tells_compile_time_apart_from_simulation_time(monkeypatch):
    """``run``'s elapsed time and speed leave out the time the engine took to compile (or load) on first use,
    and its last line says both."""
    from foury_sim import chunks, runner
    from foury_sim.cli import timing_line

    spec = runner.get_game("delve")
    played = chunks.play_local(spec, spec.load_ruleset(None, None, None), "none",
                               spec.policy("threshold"), chunks.Chunk(1, 0, 50), True)

    # runner's clock, moved by the chunk alone (it slept 0.5 s: a loaded machine, or a garbage collection in the
    # measured window, could take the time left beside the chunk over the 0.3 s bound)
    class Clock:
        now = 100.0

        def perf_counter(self) -> float:
            return self.now

        def __getattr__(self, name: str):
            return getattr(time, name)

    clock = Clock()

    def compiling(*args, **kw):  # half a second, of which 0.4 s "compiling" (the run plays one chunk)
        clock.now += 0.5
        config.FIRST_USE["compile_s"] += 0.4
        return played

    monkeypatch.setattr(runner, "time", clock)
    monkeypatch.setattr(chunks, "play_local", compiling)
    s = runner.run("delve", policy="threshold", games=50, seed=1, progress=False).summary
    assert s["compile_s"] == 0.4 and s["load_s"] == 0.0
    assert 0.09 <= s["elapsed_s"] < 0.3
    assert s["games_per_s"] > 50 / 0.3  # games per second of simulation, not of the 0.5 s in all
    assert timing_line(s) == (f"{s['elapsed_s']:.2f} s simulating, {s['games_per_s']:,} games/s; plus 0.4 s "
                              "compiling the engine (first run after an install or code change)")
    assert timing_line({"elapsed_s": 1.5, "games_per_s": 2000, "compile_s": 0.0, "load_s": 0.8}) == \
        "1.50 s simulating, 2,000 games/s; plus 0.8 s loading the compiled engine"
    assert timing_line({"elapsed_s": 1.5, "games_per_s": 2000}) == "1.50 s simulating, 2,000 games/s"
    from foury_sim.cli import format_summary

    text = format_summary(s, "Delve", runner.get_game("delve").outputs)
    assert text.count("compil") == 1 and "compile s" not in text and "load s" not in text  # said once, on the last line
