"""Rooms' declared valid ranges cover the navigation, the items and the deck (``ruleset.RANGES``, one table as every
game's): ``range_of`` knows every shipped number, and ``sweep`` and ``tune`` refuse a value outside it in one line
(exit 2) before anything is simulated. The rules-doc table is checked by tests/test_rulesfile.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from foury_sim.games.rooms.ruleset import COMBAT_RANGES, NAV_RANGES, RANGES
from foury_sim.rulesfile import load, range_of, whole_numbers

ROOT = Path(__file__).resolve().parent.parent



def test_every_shipped_number_has_a_declared_range():
    from foury_sim.games.rooms.ruleset import DEFAULT_RULES

    assert RANGES == {**COMBAT_RANGES, **NAV_RANGES}
    keys = dict(whole_numbers(load(DEFAULT_RULES).data))
    assert "navigation.moves" in keys and "deck.rat_den.count" in keys and "items.prices.key" in keys
    for key, v in keys.items():
        lo, hi = range_of(RANGES, key)
        assert lo <= v <= hi, key


def _cli(*args):
    """``foury-sim ARGS`` in this process (``tests/inproc.py``): exit code, stdout and stderr as a new process's."""
    from inproc import cli

    return cli(*args, cwd=ROOT)


@pytest.mark.parametrize("key, value, message", [
    ("deck.rat_den.count", 21, "deck.rat_den.count = 21 is above 20 (valid range 0..20)"),
    ("navigation.turn_cap", 500, "navigation.turn_cap = 500 is above 200 (valid range 1..200)"),
])
def test_sweep_refuses_an_out_of_range_value_in_one_line(tmp_path, key, value, message):
    f = tmp_path / "bad.toml"
    f.write_text(f'name = "bad"\ngame = "rooms"\ngames = 10\n[sweep]\n"{key}" = [1, {value}]\n')
    r = _cli("sweep", str(f), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and r.stdout == ""
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"foury-sim: error: {f}:5") and message in line, line


def test_tune_refuses_an_out_of_range_end_in_one_line():
    r = _cli("tune", "rooms", "--param", "navigation.moves", "--range", "0,3", "--target", "win=0.5",
             "--tolerance", "0.02")
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert "--range" in line and "navigation.moves = 0 is below 1 (valid range 1..10)" in line, line
