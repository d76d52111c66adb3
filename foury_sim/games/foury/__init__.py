"""Dungeon Foury, the flagship: a solo roll-and-write crawler in four rounds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ...config import CHUNK, use_cache
from ...errors import InputError
from ...outputs import MEAN_INTERVALS, hist_count, hist_total, joint_key, mean_interval, most_common, tally
from ...policy import Policy, check_answers
from ...registry import GameOption, GameSpec, board_file_read, register
from ...search import kernel_params
from ...stats import summarize_counts, wilson
from ...userpolicy import clear_errors
from . import layout
from .board import BOARD, ROOM_CONVENTION, room_name
from .layout import HERO_KEYS, OUT_BAD
from .maps import builtin_maps
from .outputs import OUTPUTS
from .ruleset import BASE_CAMPAIGN, FouryRules, builtin_campaigns, load_ruleset
from .trace import format_trace

with use_cache(__name__):  # compiled kernels are cached per version of this package's code
    from . import kernel
    from .odds import odds_report
    from .policies import FLAGS, POL_SEARCH, POLICIES

NO_SCRIPT = np.zeros(0, dtype=np.int64)
#: Decision kinds by number (``layout.D_*``), for the one-line policy errors (``policy.check_answers``).
KIND_NAMES = tuple(k[2:].lower() for k, v in sorted(
    ((k, v) for k, v in vars(layout).items() if k.startswith("D_") and isinstance(v, int)), key=lambda kv: kv[1]))


def _kernel():
    return kernel


def _params(policy: Policy) -> np.ndarray:
    """The parameter vector the kernel reads (a search policy's carries its base's: ``search.kernel_params``)."""
    if policy.policy_id == POL_SEARCH and policy.name in POLICIES:
        return kernel_params(policy, POLICIES)
    return policy.params


def check_policy(policy: Policy) -> None:
    """A built-in heuristic's ``round_order`` (greedy's ``D_ROUND``, the Kraken player's ``D_KR_AREA``) names
    sectors: 0 (no fixed order: the nearest first), or the sectors to play first as digits 1..4 (A..D), each at
    most once (1234, 2134, 21). The kernel reads its whole part digit by digit: 1.5 was played as 1, and 5678
    (no digit a sector) or 1203 (a 0) as if unnamed, in silence. Its range, 0 .. 99,999,999, is checked before."""
    if policy.name not in POLICIES or "round_order" not in policy.param_names:
        return
    v = float(policy.params[policy.param_names.index("round_order")])
    digits = str(int(v)) if v.is_integer() else ""
    if v == 0 or (digits and set(digits) <= set("1234") and len(set(digits)) == len(digits)):
        return
    raise InputError(f"policy parameter round_order={v:.15g} is not an order of sectors: 0 (no fixed order: the "
                     "nearest first) or the sectors played first as digits 1..4 (A..D), each at most once (e.g. 1234, "
                     "2134)", "--param")


def files_read(rules: FouryRules) -> dict[str, str]:
    """The map file of the user's that ``game.map`` names (in a rules or campaign file, or a ``--set``) when it is the
    map played (``GameSpec.files_read``: its sha256 is recorded as a ``--map`` file's is)."""
    return board_file_read("game.map", (rules.data.get("game") or {}).get("map"), rules.map.path, builtin_maps())


def heroes(rules: FouryRules) -> list[str]:
    return [h for h in HERO_KEYS if h in rules.heroes]


def _check_players(rules: FouryRules, policy: Policy) -> None:
    """The 2-player mode plays both seats with one built-in or user policy; the search policy's rollouts replay
    solo games, so it is refused there."""
    if rules.players == 2 and policy.policy_id == POL_SEARCH:
        raise InputError("the search policy plays the solo game only: choose another policy for "
                         "two_player.players = 2", "--policy")


def simulate(rules: FouryRules, hero: str, policy: Policy, seed: int, start: int, count: int) -> dict[str, np.ndarray]:
    """Play games ``start .. start+count-1`` of stream ``seed``; one row per game."""
    k = _kernel()
    _check_players(rules, policy)
    R, T = rules.for_hero(hero)
    out = np.zeros((count, OUTPUTS.n_kernel(rules)), np.int64)
    n_chunks = max(1, (count + CHUNK - 1) // CHUNK)
    visits = np.zeros((n_chunks, rules.geo.shape[0]), np.int64)
    clear_errors(policy)
    if count > 0:
        k.entry("simulate" + k.driver(R, policy.policy_id))(R, T, rules.geo, rules.arrows, rules.rm0, policy.policy_id,
                                                           _params(policy), policy.kernel_fn, np.uint64(seed), start,
                                                           count, out, visits)
    check_answers(int(out[:, OUT_BAD].sum()), policy, KIND_NAMES)
    cols = OUTPUTS.frame(out, rules, first={"game": np.arange(start, start + count, dtype=np.int64)})
    cols["_visits"] = visits.sum(axis=0)
    return cols


def play_one(rules: FouryRules, hero: str, policy: Policy, seed: int, game: int,
             script: np.ndarray | None = None, trace_rows: int = 50_000):
    """One game alone (optionally with forced dice): (outputs, state, rooms, trace rows)."""
    k = _kernel()
    _check_players(rules, policy)
    R, T = rules.for_hero(hero)
    sc = NO_SCRIPT if script is None else np.ascontiguousarray(script, dtype=np.int64)
    st = np.zeros(k.STATE_SIZE, np.int64)
    rm = np.zeros_like(rules.rm0)
    tr = np.zeros((max(trace_rows, 1), k.TRACE_COLS), np.int64)
    out = np.zeros((1, OUTPUTS.n_kernel(rules)), np.int64)
    vis = np.zeros(rules.geo.shape[0], np.int64)
    clear_errors(policy)
    k.entry("play_one" + k.driver(R, policy.policy_id))(R, T, rules.geo, rules.arrows, rules.rm0, policy.policy_id,
                                                         _params(policy), policy.kernel_fn, np.uint64(seed), game, sc,
                                                         st, rm, tr, out, vis)
    return out[0], st, rm, tr[: st[k.S_TRACE_N]]


def replay(rules: FouryRules, hero: str, policy: Policy, seed: int, game: int) -> list[str]:
    """The full play report of one game: what it replays (first line), its result, how rooms are named, then
    every event."""
    out, st, rm, tr = play_one(rules, hero, policy, seed, game)
    check_answers(int(out[OUT_BAD]), policy, KIND_NAMES)
    end = [r for r in tr if r[0] == layout.TR_END]
    result = []
    if end:
        win, score, turns, rounds = (int(x) for x in end[-1][1:5])
        result = [f"Result: {'WON' if win else 'LOST'}, {rounds} of {int(rules.R[layout.R_ROUNDS])} rounds "
                  f"completed, {turns} turns, final score {score}."]
    end = [r for r in tr if r[0] == layout.TR_SL_END]
    if end:  # The Slaughter of Monsters: the score is the kills
        how, kills, fury, turns = (int(x) for x in end[-1][1:5])
        result = [f"Result: {layout.SL_END_NAMES[how] if 0 <= how < len(layout.SL_END_NAMES) else how}; score "
                  f"{kills} monsters killed, {fury} of {int(rules.R[layout.R_FURY_BOXES])} Fury boxes blacked out, "
                  f"{turns} turns."]
    santa = [r for r in tr if r[0] == layout.TR_SANTA_END]
    if santa:
        r = santa[-1]
        hourglass = int(rules.R[layout.R_SANTA_HOURGLASS])
        result = [f"Result: {layout.SE_NAMES[int(r[1])].upper()}, {int(r[2])} of {hourglass} hourglass spaces "
                  f"marked, collection goal {'met' if r[5] else 'not met'}."]
    camp = f"campaign {rules.campaign_title} ({rules.campaign}), " if rules.campaign else ""
    head = [f"Replay of Dungeon Foury, game {game} of seed {seed}: {camp}hero {rules.heroes[hero]['name']}, "
            f"policy {policy.describe()}, map {rules.map.name} ({Path(rules.map.path).name or 'shipped'})"]
    if rules.players == 2:
        seat = int(rules.R[layout.R_P2_FIRST])
        other = rules.heroes[rules.opponent(hero)]["name"]
        head[0] += (f"; 2-player mode: the hero is player {seat}, {other} player {3 - seat} (the same policy "
                    "plays both; player 1 chooses a side and moves first)")
        end = [r for r in tr if r[0] == layout.TR_P2_END]
        if end:
            w = int(end[-1][1])
            result = [f"Result: {'a draw' if w == 0 else f'player {w} won'}, "
                      f"{'the hero' if w == seat else 'the opponent' if w else 'nobody'} "
                      f"({layout.P2E_NAMES[int(end[-1][2])]})."]
    note = [f"Rooms: {ROOM_CONVENTION}, as labelled on `foury-sim map render`."]
    return head + result + note + format_trace(tr, rules.map.cols, rules.icons.names, rules.map.sector)


def _room_name(rules: FouryRules, cell: int) -> str:
    return room_name(cell, rules.map.cols, rules.map.sector)


def summarize(df, rules: FouryRules | None = None, conf: float = 0.95) -> dict[str, Any]:
    """Where and why players die, rounds completed, coins used (entries declared in outputs.SUMMARY_KEYS), from
    the table's histograms (``summarize_hists``)."""
    return summarize_hists(OUTPUTS.histograms(df), len(df), rules, conf)


def summarize_hists(hists: dict[str, tuple[np.ndarray, np.ndarray]], n: int,
                    rules: FouryRules | None = None, conf: float = 0.95) -> dict[str, Any]:
    """``summarize``'s entries from the exact histograms of the columns they read over ``n`` games (the joint ones
    of ``OUTPUTS.joint`` for games counted by two columns: first deaths by sector, cause and room, lost games by
    cause, unwinnable games by why), so a streamed run of any size keeps them. Rates and means are exact integer
    counts and sums over ``n``; breakdowns list most games first, ties by code (whatever the order of the games)."""
    col = OUTPUTS.column

    def labelled(column: str, pairs) -> dict[str, int]:
        return {col(column).category(c, rules): k for c, k in pairs}

    def first_deaths(column: str) -> dict[int, int]:  # the first deaths (death_round > 0) by ``column``
        h = hists[joint_key("death_round", column)]
        return tally(h, h[0][:, 0] > 0)

    rounds = hists["death_round"]
    died = hist_count(rounds, rounds[0] > 0)
    coins = hists["coins_used"]
    lost = hists[joint_key("win", "end_cause")]
    out: dict[str, Any] = {
        "rounds_completed_dist": tally(hists["rounds_completed"]),
        "coins_used_rate": hist_count(coins, coins[0] > 0) / n if n else 0.0,
        "first_death_rate": died / n if n else 0.0,
        "death_by_round": {c: k for c, k in tally(rounds).items() if c > 0},
        "death_by_sector": labelled("death_sector", first_deaths("death_sector").items()),
        "death_by_cause": labelled("death_cause", most_common(first_deaths("death_cause"))),
        "loss_by_cause": labelled("end_cause", most_common(tally(lost, lost[0][:, 0] == 0))),
    }
    unwin = hists.get(joint_key("unwinnable_at_turn", "unwinnable_cause"))
    if unwin is not None:
        out["unwinnable_by_cause"] = labelled("unwinnable_cause", most_common(tally(unwin, unwin[0][:, 0] > 0)))
    if rules is not None:
        cells = {f"{f.key} {k}": v for f in rules.foes if f.strength is not None for k, v in f.strength[1].items()}
        if cells:
            out["monster_strength"] = cells
    if rules is not None and rules.R[layout.R_SL_ON] == 1 and n:
        out.update(_slaughter_summary(hists, n, conf))
    if rules is not None and rules.santa and n:
        out.update(santa_summary(hists, n, rules, conf))
    if rules is not None and died:
        out["deadliest_rooms"] = {_room_name(rules, c): k for c, k in most_common(first_deaths("death_cell"), 5)}
    return out


def no_win(rules: FouryRules) -> str:
    """Why a campaign has no victory ("" when it has one): the Slaughter of Monsters is scored by its kills."""
    return ("the Slaughter of Monsters has no victory; its score is the monsters killed (slaughter score)"
            if rules.R[layout.R_SL_ON] == 1 else "")


def variant_title(rules: FouryRules) -> str:
    """A campaign's title line (``[campaign] title``); "" for the base game."""
    return f"Dungeon Foury ({rules.campaign_title})" if rules.campaign_title else ""


def _slaughter_summary(hists: dict[str, tuple[np.ndarray, np.ndarray]], n: int, conf: float = 0.95) -> dict[str, Any]:
    """The Slaughter of Monsters' outcomes (only under it): the score (kills) with intervals at ``conf``, the Fury,
    the ends."""
    score = summarize_counts(*hists["slaughter_score"], conf)
    return {"slaughter_score": {"score_mean": score["mean"], "score_mean_lo": score["mean_lo"],
                                "score_mean_hi": score["mean_hi"], "score_median": score["median"],
                                "score_median_lo": score["median_lo"], "score_median_hi": score["median_hi"],
                                "fury_used": hist_total(hists["fury_used"]) / n,
                                "fury_kills": hist_total(hists["fury_kills"]) / n},
            "slaughter_end": {OUTPUTS.column("slaughter_end").category(c): k
                              for c, k in most_common(tally(hists["slaughter_end"]))}}


#: Santa Crash'n Foury's collectibles and counters, whose means ``santa_collected`` gives
SANTA_MEANS = ("santa_reindeer", "santa_rudolph", "santa_green", "santa_blue", "santa_sleigh", "santa_marks",
               "santa_wrath_hearts", "santa_packages_lost", "santa_canes_given")


def santa_summary(hists: dict[str, tuple[np.ndarray, np.ndarray]], n: int, rules: FouryRules,
                  conf: float = 0.95) -> dict[str, Any]:
    """Santa Crash'n Foury's entries of the run summary (``outputs.SUMMARY_KEYS`` santa_*) from the histograms,
    the rates with their Wilson intervals at ``conf``, the collectibles' means per game with their t intervals
    (``mean_intervals``)."""
    end = tally(hists["santa_end"])

    def ends(*codes: int) -> int:
        return sum(end.get(c, 0) for c in codes)

    rates = {
        "safe zone": ends(layout.SE_SAFE),
        "collection": ends(layout.SE_COLLECTION),
        "hourglass ran out": ends(layout.SE_COLLECTION, layout.SE_WRATH_SURVIVED, layout.SE_WRATH_KILLED),
        "wrath survived": ends(layout.SE_WRATH_SURVIVED),
        "wrath killed": ends(layout.SE_WRATH_KILLED),
        "goal met": tally(hists["santa_goal"]).get(1, 0),
        "full collection": tally(hists["santa_full"]).get(1, 0),
    }
    shares = {}
    for k, hit in rates.items():
        lo, hi = wilson(hit, n, conf)
        shares.update({k: hit / n, f"{k} low": lo, f"{k} high": hi})
    means = {c[len("santa_"):]: hist_total(hists[c]) / n for c in SANTA_MEANS}
    means_iv = {c[len("santa_"):]: mean_interval(hists[c], conf) for c in SANTA_MEANS}
    col = OUTPUTS.column("santa_end")
    return {"santa_outcomes": {col.category(c, rules): k for c, k in most_common(end)},
            "santa_rates": shares, "santa_collected": means, MEAN_INTERVALS: {"santa_collected": means_iv}}


def _odds(rules: FouryRules, conf: float = 0.95, **kw):
    """The ``GameSpec.odds`` hook (its tables give no interval, so ``conf`` only sets the CLI's verdict)."""
    return odds_report(rules, **kw)


def warm(rules: FouryRules) -> None:
    """``foury-sim warm foury``'s extra step: ``greedy_decide`` (``policies.heuristic_decide``) as a user's policy
    calls it (README "Policies", ``experiments/policies/brave.py``): with the policy's own arguments (the policy
    signature: any-layout arrays) and with ``GREEDY_PARAMS`` or ``CAUTIOUS_PARAMS`` (a module's global array,
    which numba freezes read-only). Otherwise the first run of such a policy compiles the whole greedy player
    again (the engine's copies have other argument types; about 15 s on a 2-core machine, each). Also the replay
    of the drivers other than the solo game's (``kernel.driver``: a 2-player game, replayed), which the shipped
    rules' ``replay`` does not reach (their ``run`` does, with the search policy)."""
    from numba import types

    from ...policy import make_policy
    from .policies import heuristic_decide

    play_one(load_ruleset(None, ["two_player.players=2"]), "free", make_policy("greedy", POLICIES), 1, 0)

    i64 = types.int64
    for params in (types.float64[:], types.Array(types.float64, 1, "C", readonly=True)):
        heuristic_decide.compile((i64, i64[:], i64[:, :], i64, params))


GAME = register(GameSpec(
    name="foury",
    title="Dungeon Foury (The Ancient Story)",
    load_ruleset=load_ruleset,
    heroes=heroes,
    policies=POLICIES,
    default_policy="greedy",
    default_hero="free",
    simulate=simulate,
    replay=replay,
    summarize=summarize,
    summarize_hists=summarize_hists,
    outputs=OUTPUTS,
    odds=_odds,
    warm=warm,
    board=BOARD,
    variant_title=variant_title,
    no_win=no_win,
    check_policy=check_policy,
    flags=FLAGS,
    files_read=files_read,
    options=(GameOption("hearts", ("odds",), "Hearts at the start of a fight fought to the end.", int, 5, 1, 30),
             GameOption("campaign", ("run", "map"), "A campaign: its rules and map over the base game's "
                        f"(shipped: {', '.join(builtin_campaigns())}; or a campaign file NAME.toml, docs/rules.md "
                        f"'Campaigns'; '{BASE_CAMPAIGN}': the base game, The Ancient Story).", str, BASE_CAMPAIGN)),
))
