"""Array indices in the engines (``config.plain_indices``): the project's own functions use a computed index as it is,
without numba's wraparound of a negative one; a user's policy and a constant index keep Python's meaning; and every
game plays the recorded games with numba's bounds checks on, where a negative index would raise."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from foury_sim import config
from foury_sim.registry import games, get_game

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
def at(a, i):
    return a[i]

def last(a):
    return a[-1]
"""


def _compiled(module: str):
    """``at`` and ``last`` of ``PROBE``, compiled as functions of module ``module``."""
    from numba import njit

    mod = types.ModuleType(module)
    exec(compile(PROBE, f"<{module}>", "exec"), mod.__dict__)
    return njit(mod.at), njit(mod.last)


def test_an_own_function_indexes_as_given_a_users_function_wraps_around():
    installed = config.plain_indices()
    assert installed == (not config.JIT_DISABLED)
    base = np.arange(10, dtype=np.int64)
    view = base[5:]  # view[-1] is base[9]; the element just before the view is base[4]
    own_at, own_last = _compiled("foury_sim._index_probe")
    user_at, user_last = _compiled("foury_sim_user_policy_123")  # the name userpolicy gives a policy file
    assert own_at(view, np.int64(2)) == user_at(view, np.int64(2)) == 7
    assert user_at(view, np.int64(-1)) == 9  # Python's meaning, in a user's code
    assert own_last(view) == user_last(view) == 9  # a constant index keeps it everywhere
    # in the project's own functions the index is used as it is: one before the view (numba off: Python's)
    assert own_at(view, np.int64(-1)) == (9 if config.JIT_DISABLED else 4)


def test_plain_indices_is_part_of_the_cache_key(monkeypatch):
    """Code compiled with numba's wraparound, or with its bounds checks, is kept apart (numba's own key has neither)."""
    key = config._source_hash.__wrapped__(("games/delve",))
    monkeypatch.setattr(config, "PLAIN_INDICES", False)
    wrap = config._source_hash.__wrapped__(("games/delve",))
    monkeypatch.setattr(config, "PLAIN_INDICES", True)
    monkeypatch.setenv("NUMBA_BOUNDSCHECK", "1")
    checked = config._source_hash.__wrapped__(("games/delve",))
    assert len({key, wrap, checked}) == 3


#: Run in a fresh process with numba's bounds checks on: a probe that must raise (the checks are on, and a negative
#: index in an own function is out of bounds), then the game's hashed cells (``tools/game_hashes.py``, 100 games
#: each, against the recorded baseline), then two games of the search policy (not in the hashed cells).
CHECK = """
import sys, types
import numpy as np
from numba import njit
from foury_sim import config
assert config.plain_indices()
mod = types.ModuleType("foury_sim._index_probe")
exec(compile({probe!r}, "<probe>", "exec"), mod.__dict__)
try:
    njit(mod.at)(np.arange(4), np.int64(-1))
except IndexError:
    print("probe raised")
sys.path.insert(0, {tools!r})
import game_hashes
from foury_sim.policy import make_policy
from foury_sim.registry import get_game
rc = game_hashes.main(["--games", "100", "--only", {game!r}])
spec = get_game({game!r})
if "search" in spec.policies:
    rs = spec.load_ruleset(None, None, None)
    spec.simulate(rs, spec.default_hero, make_policy("search", spec.policies, "rollouts=2"), 1, 0, 2)
    print("search played")
sys.exit(rc)
"""


@pytest.mark.skipif(config.JIT_DISABLED, reason="numba's bounds checks need the JIT (numba off wraps like Python)")
@pytest.mark.parametrize("game", games())
def test_every_game_plays_the_recorded_games_under_bounds_checks(game, tmp_path):
    """Each game compiled from source with ``NUMBA_BOUNDSCHECK=1`` (a cache folder of its own): no index of any rule
    is out of bounds in the hashed cells, negative ones included, and the games are the recorded ones."""
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", FOURY_SIM_CACHE_DIR=str(tmp_path), FOURY_SIM_SHIPPED_IR="0")
    code = CHECK.format(probe=PROBE, tools=str(ROOT / "tools"), game=game)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT, timeout=1500)
    out = r.stdout + r.stderr[-3000:]
    assert r.returncode == 0, out
    assert "probe raised" in r.stdout, out
    assert " 0 moved, 0 new" in r.stdout, out
    if "search" in get_game(game).policies:
        assert "search played" in r.stdout, out
