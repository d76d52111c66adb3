"""Rooms engine: the same per-game results whatever the threads, the batch split or numba being on; a golden
replay; the spec's shape; the layout agrees with the outputs and the trace words; bad inputs at the CLI."""

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
from foury_sim.games import rooms as R
from foury_sim.games.rooms import layout as L
from foury_sim.games.rooms.outputs import CAUSE_LABELS, CAUSE_TURN_CAP
from foury_sim.games.rooms.trace import TABLE
from foury_sim.policy import make_policy

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def rs():
    return R.load_ruleset()


def _sim(rs, policy, seed, start, count, hero="ranger"):
    return R.simulate(rs, hero, make_policy(policy, R.POLICIES), seed, start, count)


def test_threads_do_not_change_results(rs):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _sim(rs, "greedy", 3, 0, 400)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = _sim(rs, "greedy", 3, 0, 400)
    finally:
        numba.set_num_threads(before)
    for k in one:
        assert np.array_equal(one[k], two[k]), k


def test_batch_split_does_not_change_results(rs):
    whole = _sim(rs, "random", 9, 100, 500)
    parts = [_sim(rs, "random", 9, 100 + a, b - a) for a, b in ((0, 200), (200, 201), (201, 500))]
    for k in whole:
        if k.startswith("_"):  # a run extra (the visits per cell): summed over the batches
            assert np.array_equal(whole[k], sum(p[k] for p in parts)), k
            continue
        assert np.array_equal(whole[k], np.concatenate([p[k] for p in parts])), k
    assert np.array_equal(whole["game"], np.arange(100, 600))


_NOJIT = """
import json
from foury_sim.games import rooms as R
from foury_sim.policy import make_policy
out = {}
for policy, hero in (("greedy", "ranger"), ("optimal_reroll", "paladin"), ("random", "berserker")):
    r = R.simulate(R.load_ruleset(), hero, make_policy(policy, R.POLICIES), 21, 40, 3)
    out[policy + "/" + hero] = {k: v.tolist() for k, v in r.items()}
print(json.dumps(out))
"""


def test_jitted_equals_pure_python(rs):
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", _NOJIT], env=env, capture_output=True, text=True, timeout=600,
                         cwd=ROOT)
    assert res.returncode == 0, res.stderr[-3000:]
    slow = json.loads(res.stdout.strip().splitlines()[-1])
    for key, cols in slow.items():
        policy, hero = key.split("/")
        fast = R.simulate(rs, hero, make_policy(policy, R.POLICIES), 21, 40, 3)
        for k, v in cols.items():
            assert fast[k].tolist() == v, (key, k)


@pytest.mark.parametrize("dungeon, hero, policy, seed, game", [("crossroads", "ranger", "greedy", 2, 1)])
def test_golden_replay(dungeon, hero, policy, seed, game):
    rs = R.load_ruleset(None, None, dungeon)
    text = "\n".join(R.replay(rs, hero, make_policy(policy, R.POLICIES), seed, game)) + "\n"
    path = GOLDEN / f"rooms_{dungeon}_seed{seed}_game{game}_{hero}_{policy}.txt"
    if os.environ.get("FOURY_SIM_REGEN_GOLDEN") == "1":
        path.write_text(text)
    assert path.read_text() == text


def test_replay_is_the_simulated_game(rs):
    pol = make_policy("greedy", R.POLICIES)
    r = R.simulate(rs, "alchemist", pol, 4, 0, 10)
    for g in (0, 7):
        row, lines = R.play_one(rs, "alchemist", pol, 4, g)
        assert all(row[k] == r[k][g] for k in r if not k.startswith("_"))  # "_visits": a run extra
        assert lines[-1].startswith("== ")


def test_every_game_ends_and_counts_agree(rs):
    r = _sim(rs, "random", 5, 0, 300)
    assert r["bad_answers"].sum() == 0
    capped = r["death_cause"] == CAUSE_TURN_CAP
    assert np.all(r["win"][capped] == 0) and np.all(r["turns"] <= rs.nav[L.N_TURN_CAP])
    died = (r["win"] == 0) & ~capped
    assert np.all((r["death_room"] >= 0) == died) and np.all(r["hp_left"][died] == 0)
    assert np.all(r["resolved_boss"] == r["win"])
    assert np.all(r["fights_won"] <= r["fights"])


def test_the_heuristic_beats_random(rs):
    assert _sim(rs, "greedy", 6, 0, 400)["win"].mean() > _sim(rs, "random", 6, 0, 400)["win"].mean() + 0.1


def test_registered_spec_and_layout(rs):
    spec = R.GAME
    assert spec.name == "rooms" and spec.default_policy in spec.policies and spec.default_hero in rs.hero_names
    assert spec.heroes(rs) == list(rs.hero_names) and spec.board is not None
    assert L.CAUSE_NAMES == CAUSE_LABELS and L.CAUSE_TURN_CAP == CAUSE_TURN_CAP
    assert 128 <= L.S_TURN and L.S_REFUSED + L.MAX_CELLS == L.S_SIZE and L.S_FIRED + L.MAX_ABILITIES <= 128
    assert L.MAX_OPTIONS >= 64 and L.MAX_OPTIONS >= L.MIN_OPTIONS
    names = R.columns(rs)
    assert names[L.OUT_RESOLVED:L.OUT_RESOLVED + L.N_KINDS] == [f"resolved_{k}" for k in L.ROOM_KINDS]
    assert names[L.OUT_FIRED:] == [f"fired{n + 1}" for n in range(rs.max_abilities)]
    events = [v for k, v in vars(L).items() if k.startswith("EV_") and 1 <= v <= 63]
    assert len([e for e in events if e < 32]) == 16 and all(e in TABLE.codes for e in events)


def test_navigation_ranges_are_the_games_declared_ranges():
    """The navigation, items and deck numbers are in the game's one ``RANGES`` (the rules-doc range test of
    tests/test_rulesfile.py checks that table against the shipped file and docs/rules-rooms.md), so
    ``rulesfile.range_of`` knows them and a sweep or tune value outside them is refused in one line."""
    from foury_sim.games.rooms.ruleset import NAV_RANGES, RANGES
    from foury_sim.rulesfile import range_of

    assert NAV_RANGES.items() <= RANGES.items()
    assert range_of(RANGES, "navigation.moves") == (1, 10)
    assert range_of(RANGES, "deck.rat_den.count") == (0, 20)
    assert range_of(RANGES, "items.prices.key") == (0, 100)
    with pytest.raises(InputError, match=r"navigation.moves = 11 is above 10 \(valid range 1..10\)"):
        R.load_ruleset(None, {"navigation.moves": 11})


def _cli(*args):
    """``foury-sim ARGS`` in this process (tests/inproc.py; the real entry point is tests/test_cli.py's)."""
    return inproc.cli(*args, cwd=ROOT)


def test_cli_bad_dungeon_and_deck_are_one_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("start  chset  dragon_lair\n")
    r = _cli("run", "rooms", "--map", str(bad), "--games", "10")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"{bad}:1:8" in r.stderr and "unknown card 'chset'" in r.stderr
    r = _cli("run", "rooms", "--set", "deck.shop.doors=\"oxo\"", "--games", "10")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "4 letters" in r.stderr, r.stderr
    r = _cli("map", "check", "nowhere", "--game", "rooms")
    assert r.returncode == 2 and "no dungeon 'nowhere'" in r.stderr, r.stderr


def test_a_dungeon_file_that_is_not_utf8_names_the_line_of_its_first_bad_byte(tmp_path):
    """It said "cannot read the dungeon file ...: 'utf-8' codec can't decode byte 0xe9 in position 201", at --map."""
    shipped = (ROOT / "foury_sim/games/rooms/data/dungeons/crossroads.txt").read_bytes()
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"# a dungeon\n# caf\xe9 and rooms\n" + shipped)
    r = _cli("run", "rooms", "--map", str(bad), "--games", "10")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == (f"foury-sim: error: {bad}:2:6: not UTF-8 text: byte 0xe9 cannot be read (save the dungeon as "
                        "UTF-8)\n")
    r = _cli("map", "check", str(bad), "--game", "rooms")
    assert r.returncode == 2 and r.stderr.startswith(f"foury-sim: error: {bad}:2:6: not UTF-8 text"), r.stderr


def test_a_dungeon_file_with_a_byte_order_mark_plays_as_without(tmp_path):
    """It said "unknown card '\\ufeff': a cell is ..." (a rules file and a Tactics level drop the mark)."""
    shipped = (ROOT / "foury_sim/games/rooms/data/dungeons/crossroads.txt").read_bytes()
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf" + shipped)
    r = _cli("map", "check", str(bom), "--game", "rooms")
    assert r.returncode == 0 and r.stdout.startswith("bom: 4 x 5 cells, 13 rooms"), r.stderr + r.stdout


def test_dungeon_check_and_picture():
    """``map check`` words and ``map render``'s picture: one card per room, a bar per locked door or wall."""
    from foury_sim.games.rooms.board import BOARD

    d = BOARD.resolve("crossroads")
    assert BOARD.check(d)[0].startswith("crossroads: 4 x 5 cells, 13 rooms (0 dealt from the deck)")
    assert int(BOARD.heat_cells(d).sum()) == 13
    fig = BOARD.draw(d)
    ax = fig.axes[0]
    cards = [p for p in ax.patches if p.get_gid() == "card"]
    doors = [ln for ln in ax.lines if ln.get_gid() == "door"]
    rs = R.load_ruleset()
    sides = rs.cards[:, L.CD_DOOR:L.CD_DOOR + 4]
    shut = sum(int((sides[c] != L.DOOR_OPEN).sum()) for c in d.cells[:, 0] if c >= 0)
    assert len(cards) == 13 and len(doors) == shut


@pytest.mark.skipif(__import__("foury_sim.config", fromlist=["JIT_DISABLED"]).JIT_DISABLED,
                    reason="compiled code only: nothing is compiled with NUMBA_DISABLE_JIT=1")
def test_the_engine_is_cacheable(rs):
    """The engine's entry point embeds no address (a jitted function passed as a value would: numba could not cache
    it, and every process would compile the engine again, minutes); the fights reach ``policies.decide`` through
    ``combat.register_decide``."""
    from foury_sim.games.rooms.kernel import entry

    _sim(rs, "greedy", 1, 0, 2)
    d = entry("simulate")
    assert d.overloads and not any(c.library.has_dynamic_globals for c in d.overloads.values())
