"""Delve (published as Dungeon Roll): a solo push-your-luck dice delve, registered as "delve".

Rules: ``data/rules.toml`` (data) and ``kernel.py`` (numba); policy API: ``layout.py``; docs/rules-delve.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...config import use_cache
from ...errors import InputError, did_you_mean
from ...lazy import pd
from ...outputs import MEAN_INTERVALS, SHARE_INTERVALS, hist_total, mean_interval
from ...policy import USER_POLICY_ID, Policy, PolicySpec, check_answers, user_globals
from ...registry import GameSpec, register
from ...rng import NO_SCRIPT
from ...search import RANGES as SEARCH_RANGES
from ...search import base_description, kernel_params
from ...userpolicy import clear_errors

with use_cache(__name__):  # compiled kernels are cached per version of this package's code
    from . import layout
    from .dp import dp_table
    from .kernel import TRACE_COLS, entry
    from .odds import clear_table, compute_clear_table, odds, odds_report
    from .outputs import OUTPUTS
    from .policies import RISK_PARAMS, THRESHOLD_PARAMS
    from .ruleset import DelveRules, heroes, load_ruleset
    from .trace import format_trace

POLICIES = {
    "threshold": PolicySpec(
        "threshold",
        layout.P_THRESHOLD,
        "retire when the level reached >= retire_level or fewer than min_companions companion dice remain",
        dict(THRESHOLD_PARAMS),
        ranges={"retire_level": (0.0, 1e6), "min_companions": (0.0, 1e6)},
    ),
    "risk": PolicySpec(
        "risk",
        layout.P_RISK,
        "retire unless the exact chance of clearing the next level makes going on worth "
        "more (by margin) than the XP at stake; bonus values surviving a level",
        dict(RISK_PARAMS),
        traits=frozenset({"needs_odds"}),
        ranges={"margin": (-1e9, 1e9), "bonus": (-1e9, 1e9), "min_companions": (0.0, 1e6)},
    ),
    "optimal": PolicySpec(
        "optimal",
        layout.P_OPTIMAL,
        "retire or go on as the exact dynamic programme over the dice (party, level, Lair, score, delve) "
        "maximising P(win) says; other choices as risk (docs/delve-optimal.md)",
        {},
        traits=frozenset({"needs_odds", "needs_dp"}),
    ),
    "random": PolicySpec(
        "random", layout.P_RANDOM, "a uniformly random legal option at every choice", traits=frozenset({"full_menu"})
    ),
}
POLICIES["search"] = PolicySpec(
    "search",
    layout.P_SEARCH,
    "plays every decision by Monte Carlo rollouts: each option is played out `rollouts` times with the base "
    f"policy (base: {base_description(POLICIES)}; its default parameters) on common dice; a rollout is worth "
    "win + progress x score / the win score; the base's own choice is kept unless another option beats it by "
    "more than `margin` on average, paired rollout by rollout; kinds: a bit mask of the decision kinds searched "
    "(0: all). docs/search.md",
    {"rollouts": 8.0, "base": float(layout.P_RISK), "kinds": 0.0, "margin": 0.0, "progress": 0.001},
    traits=frozenset({"needs_odds", "slow"}),
    ranges={**SEARCH_RANGES, "base": (0.0, 1e6)},
)


def columns(ruleset: DelveRules) -> list[str]:
    """The kernel's output columns for ``ruleset`` (declared in outputs.py; one level column per delve)."""
    return OUTPUTS.kernel_names(ruleset)


def wants_odds(policy: Policy) -> bool:
    """Whether the policy has the ``needs_odds`` trait: the clear table is computed for it (``S_P_NEXT``,
    ``O_P``; a second or two per ruleset and hero). Built-ins declare it in ``POLICIES`` (risk); a user's
    file with ``POLICY_TRAITS = ("needs_odds",)``, or the older spelling ``DELVE_WANTS_ODDS = True``."""
    if "needs_odds" in policy.traits:
        return True
    return policy.policy_id == USER_POLICY_ID and bool(user_globals(policy.fn).get("DELVE_WANTS_ODDS"))


def wants_dp(policy: Policy) -> bool:
    """Whether the kernel needs the DP's advice (``dp_table``): a policy with the ``needs_dp`` trait, or the
    search policy playing its rollouts with ``optimal`` as its base."""
    if "needs_dp" in policy.traits:
        return True
    if policy.policy_id == layout.P_SEARCH and policy.name in POLICIES:
        return int(dict(zip(policy.param_names, policy.params)).get("base", -1)) == layout.P_OPTIMAL
    return False


def _run(
    ruleset: DelveRules,
    hero: str,
    policy: Policy,
    seed: int,
    start: int,
    count: int,
    script: np.ndarray = NO_SCRIPT,
    trace_rows: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    if hero not in ruleset.heroes:
        raise InputError(f"unknown hero {hero!r} ({did_you_mean(hero, ruleset.heroes)}known: "
                         f"{', '.join(ruleset.heroes)})", "--hero")
    rules = ruleset.with_hero(hero)
    dp = wants_dp(policy)
    table = clear_table(rules) if wants_odds(policy) or dp else np.zeros(0, dtype=np.int32)
    if dp:
        table = np.concatenate([table, dp_table(rules)])
    out = np.empty((OUTPUTS.n_kernel(ruleset), count), dtype=np.int64)  # one row per output, a column per game
    trace = np.zeros((trace_rows, TRACE_COLS), dtype=np.int64)
    full_menu = int("full_menu" in policy.traits)
    ctl = np.array([policy.policy_id, start, count, list(ruleset.heroes).index(hero), full_menu], dtype=np.int64)
    clear_errors(policy)
    entry("simulate")(
        rules,
        table,
        ctl,
        kernel_params(policy, POLICIES) if policy.policy_id == layout.P_SEARCH and policy.name in POLICIES
        else np.ascontiguousarray(policy.params, dtype=np.float64),
        policy.kernel_fn,
        np.uint64(seed % 2**64),
        np.ascontiguousarray(script, dtype=np.int64),
        out,
        trace,
    )
    return out.T, trace  # (a view: one row per game, each output's column contiguous)


def simulate(
    ruleset: DelveRules, hero: str, policy: Policy, seed: int, start: int, count: int
) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` of stream ``seed``: one row per game (see ``columns``). A policy
    answer out of range is an error (``policy.check_answers``), as in every game."""
    out, _ = _run(ruleset, hero, policy, seed, start, count)
    cols = OUTPUTS.frame(out, ruleset)
    check_answers(int(cols["bad_answers"].sum()), policy, layout.KIND_NAMES)
    return cols


def play_one(
    ruleset: DelveRules,
    hero: str,
    policy: Policy,
    seed: int = 0,
    game: int = 0,
    script: list[int] | np.ndarray | None = None,
    trace_rows: int = 5000,
) -> tuple[dict[str, int], list[str]]:
    """One game with an optional script of forced dice (and treasure draws): its row and report. Out-of-range
    answers are counted in the row's ``bad_answers`` (and taken as option 0), not refused: a test or a
    debugging session reads the report; ``simulate`` and ``replay`` refuse them."""
    sc = NO_SCRIPT if script is None else np.asarray(script, dtype=np.int64)
    out, trace = _run(ruleset, hero, policy, seed, game, 1, sc, trace_rows)
    row = {name: int(out[0, i]) for i, name in enumerate(columns(ruleset))}
    return row, format_trace(trace, ruleset, hero)


def replay(ruleset: DelveRules, hero: str, policy: Policy, seed: int, game: int) -> list[str]:
    """The play report of game ``game`` of stream ``seed``."""
    row, lines = play_one(ruleset, hero, policy, seed, game)
    check_answers(row["bad_answers"], policy, layout.KIND_NAMES)
    name = "none (no hero)" if hero == "none" else f"{ruleset.hero_names[hero][0]} ({hero})"
    head = f"Replay of Delve, game {game} of seed {seed}: hero {name}, policy {policy.describe()}"
    result = (f"Result: {'WON' if row['win'] else 'LOST'} (rank {ruleset.rank_names[row['rank']]}), score "
              f"{row['score']} ({row['xp']} XP, {row['treasures']} treasures held), dragons slain: "
              f"{row['dragons_slain']} of {row['dragons_faced']}.")
    return [head, result] + lines


def summarize(df: pd.DataFrame, ruleset: DelveRules | None = None, conf: float = 0.95) -> dict[str, Any]:
    """Delve-specific summary: rank distribution, mean level per delve, flee and portal rates (entries
    declared in outputs.SUMMARY_KEYS), from the table's histograms (``summarize_hists``)."""
    return summarize_hists(OUTPUTS.histograms(df), len(df), ruleset, conf)


def summarize_hists(hists: dict[str, tuple[np.ndarray, np.ndarray]], n: int,
                    ruleset: DelveRules | None = None, conf: float = 0.95) -> dict[str, Any]:
    """``summarize``'s entries from the exact histograms of the columns they read (``rank``, ``fled``,
    ``portals``, ``dragons_slain``, ``master``, ``delveN_level``) over ``n`` games: a streamed run of any size
    keeps them. A mean is the exact integer sum over ``n`` (what pandas gives for these integer columns)."""
    delves = sorted((c for c in hists if c.startswith("delve") and c.endswith("_level")), key=lambda c: int(c[5:-6]))
    d = max(n, 1)

    def total(c: str) -> int:
        return hist_total(hists[c])

    def mean(c: str) -> float:
        return total(c) / n if n else float("nan")

    ranks, counts = hists["rank"]
    from ...stats import wilson_arrays

    def per_delve(c: str) -> list[float] | None:
        """A share of delves: the Wilson score interval over the games of each game's share of its delves (in
        [0, 1], so its variance is at most p(1 - p): valid whatever the delves of one game have in common, and not
        empty at 0 or 1 as a t interval of few games is)."""
        if n <= 0:
            return None
        p = total(c) / (n * max(len(delves), 1))
        lo, hi = wilson_arrays(p * n, n, conf)
        return [float(lo), float(hi)]

    return {
        "rank_share": {OUTPUTS.column("rank").category(int(r), ruleset): float(k) / d
                       for r, k in zip(ranks, counts) if k > 0},
        "mean_level": {c: mean(c) for c in delves},
        "flee_rate": float(total("fled")) / (d * max(len(delves), 1)),
        "portal_rate": float(total("portals")) / (d * max(len(delves), 1)),
        "dragons_slain_per_game": mean("dragons_slain"),
        "master_share": mean("master"),
        SHARE_INTERVALS: {k: iv for k, c in (("flee_rate", "fled"), ("portal_rate", "portals"))
                          if (iv := per_delve(c)) is not None},
        MEAN_INTERVALS: {"mean_level": {c: mean_interval(hists[c], conf) for c in delves},
                         "dragons_slain_per_game": mean_interval(hists["dragons_slain"], conf)},
    }


def warm(ruleset: DelveRules) -> None:
    """``foury-sim warm delve``'s extra step: the risk policy's clear table computed (``odds._clear_table``, an entry
    point: loaded from its shipped code, or compiled). A run of the shipped rules reads the shipped tables, but a
    ruleset of one's own (``--set``, a sweep or ``tune`` over the rules) computes its table on first use."""
    compute_clear_table(ruleset.with_hero(heroes(ruleset)[0]))


GAME = register(
    GameSpec(
        name="delve",
        title="Delve (Dungeon Roll): 3 solo delves, push your luck",
        load_ruleset=load_ruleset,
        heroes=heroes,
        policies=POLICIES,
        default_policy="risk",
        default_hero="none",
        simulate=simulate,
        replay=replay,
        summarize=summarize,
        summarize_hists=summarize_hists,
        outputs=OUTPUTS,
        odds=odds_report,
        warm=warm,
        # The kernel plays about 100,000 games/s on two cores: calls of 50,000 games (0.4 s) paid a visible share
        # of per-call costs in a long run (issue 17's end to end); 200,000 is about 2 s a call, 30 MB of rows.
        kernel_batch=200_000,
    )
)

__all__ = [
    "GAME",
    "POLICIES",
    "simulate",
    "replay",
    "play_one",
    "summarize",
    "summarize_hists",
    "odds",
    "load_ruleset",
    "heroes",
    "columns",
    "layout",
]
