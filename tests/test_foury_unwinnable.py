"""No unwinnable games by construction (issue 9, item 1.2): a property test over many compiled games.

Under the default ``rulings.reserve_entries = "rounds"`` no entry or exit may leave a round still to play
without an unused entry arrow in its sector and a different unused exit arrow; so no game may become
unwinnable right after an exit (``unwinnable_cause`` = UW_EXIT). Collapses and dead ends still can.
"""

from __future__ import annotations

import functools

import pytest

from foury_sim.games.foury import layout as L
from foury_sim.games.foury.ruleset import load_ruleset
from foury_sim.runner import run

GAMES = 3000


@functools.cache
def _rules(reserve: str):
    return load_ruleset(overrides=[f"rulings.reserve_entries={reserve}"])


@pytest.mark.parametrize("policy", ["greedy", "cautious", "random"])
def test_no_exit_leaves_a_round_unplayable(policy):
    rules = _rules("rounds")
    for hero in L.HERO_KEYS:
        df = run("foury", hero=hero, policy=policy, games=GAMES, seed=11, ruleset=rules, progress=False).df
        assert (df["unwinnable_cause"] == L.UW_EXIT).sum() == 0, (hero, policy)
        uw = df["unwinnable_at_turn"] > 0
        assert ((df["unwinnable_cause"] > 0) == uw).all()
        assert (df.loc[uw, "win"] == 0).all()  # an unwinnable game is never won
        assert (df.loc[uw, "unwinnable_at_turn"] <= df.loc[uw, "turns"]).all()


def test_sector_only_check_lets_exits_strand_a_round():
    """The old check ("sector_only") lets an exit use an arrow a later round needs: it happens."""
    df = run("foury", hero="free", policy="greedy", games=GAMES, seed=11, ruleset=_rules("sector_only"),
             progress=False).df
    assert (df["unwinnable_cause"] == L.UW_EXIT).sum() > 0
