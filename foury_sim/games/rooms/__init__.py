"""Rooms: a room-card dungeon crawl (the seed's navigation chapter) with Dice-Throne-style ability fights;
registered as "rooms".

Rules: ``data/rules.toml`` (combat dice, heroes, monsters, navigation, items, room kinds, the deck) and
``data/dungeons/`` (dungeon files, ``board.py``); the engine ``kernel.py`` (navigation) and ``combat.py`` (a
fight); policy API: ``layout.py``; docs/rules-rooms.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...config import use_cache
from ...errors import InputError, did_you_mean
from ...lazy import pd
from ...outputs import MEAN_INTERVALS
from ...policy import Policy, PolicySpec, check_answers
from ...registry import GameOption, GameSpec, board_file_read, register
from ...rng import NO_SCRIPT
from ...trace_format import count

with use_cache(__name__):  # compiled kernels are cached per version of this package's code
    from . import layout
    from . import odds as _odds  # the module stays ``rooms.odds`` (its function is the GameSpec hook)
    from .board import BOARD
    from .combat import pack_fight
    from .kernel import TRACE_COLS, entry
    from .outputs import OUTPUTS, per_fight, per_fight_intervals, race_frame
    from .policies import POLICY_PARAMS
    from .ruleset import RoomsRules, heroes, load_ruleset
    from .trace import format_trace

_RANGES = {"stop_at": (0.0, 1.0), "progress_power": (0.0, 5.0), "heal_below": (0.0, 200.0),
           "pay_hp_above": (0.0, 200.0), "loot": (0.0, 1.0), "mirror_boss": (0.0, 1.0)}
#: The navigation's on/off parameters: 0 or 1 only (``GameSpec.flags``; 0.5 was played as 1: ``> 0`` is on).
FLAGS = frozenset({"loot", "mirror_boss"})
POLICIES = {
    "optimal_reroll": PolicySpec(
        "optimal_reroll", layout.P_OPTIMAL,
        "fights with the exact damage-optimal reroll table; navigates with the heuristic: potion at HP <= "
        "heal_below, resolves what helps (loot = 1), the Mirror to the boss (mirror_boss = 1), the step nearest "
        "the boss, keys and bombs before HP (the HP cost c only when HP > c and HP - (c - 1) > pay_hp_above)",
        dict(POLICY_PARAMS), ranges=_RANGES),
    "greedy": PolicySpec(
        "greedy", layout.P_GREEDY,
        "fights keeping the dice of the best partial combo (stop_at, progress_power); navigates as optimal_reroll",
        dict(POLICY_PARAMS), ranges=_RANGES),
    "random": PolicySpec("random", layout.P_RANDOM, "a uniformly random legal option at every choice",
                         traits=frozenset({"full_menu"})),
}


def files_read(rules: RoomsRules) -> dict[str, str]:
    """The dungeon file of the user's that ``navigation.dungeon`` names (in a rules file or a ``--set``) when it is the
    dungeon played (``GameSpec.files_read``: its sha256 is recorded as a ``--map`` file's is)."""
    from .board import builtin_dungeons

    named = (rules.data.get("navigation") or {}).get("dungeon")
    return board_file_read("navigation.dungeon", named, rules.dungeon.path, builtin_dungeons())


def _run(ruleset: RoomsRules, hero: str, policy: Policy, seed: int, start: int, count: int,
         script: np.ndarray = NO_SCRIPT, trace_rows: int = 0) -> tuple[np.ndarray, np.ndarray]:
    if hero not in ruleset.hero_names:
        raise InputError(f"unknown hero {hero!r} ({did_you_mean(hero, ruleset.hero_names)}known: "
                         f"{', '.join(ruleset.hero_names)})", "--hero")
    fx = pack_fight(ruleset, hero)
    race = layout.RACE_COLS if ruleset.race_players > 1 else 0  # the race's block after the per-game columns
    out = np.zeros((count, OUTPUTS.n_kernel(ruleset) + layout.HIDDEN_COLS + race), dtype=np.int64)
    trace = np.zeros((trace_rows, TRACE_COLS), dtype=np.int64)
    ctl = np.array([policy.policy_id, start, count], dtype=np.int64)
    c = np.ascontiguousarray
    entry("simulate")(
        c(ruleset.nav, dtype=np.int64), c(ruleset.cards, dtype=np.int64), c(ruleset.deck, dtype=np.int64),
        c(ruleset.dungeon.cells, dtype=np.int64),
        *(c(a) for a in fx),
        ctl, c(policy.params, dtype=np.float64), policy.kernel_fn, np.uint64(seed % 2**64), c(script, dtype=np.int64),
        out, trace)
    return out, trace


def columns(ruleset: RoomsRules) -> list[str]:
    """The per-game columns the engine writes (with the race's under ``race.players`` >= 2)."""
    names = OUTPUTS.kernel_names(ruleset)
    if ruleset.race_players > 1:
        names += list(race_frame(np.zeros((0, layout.RACE_COLS), np.int64), ruleset))
    return names


def _frame(out: np.ndarray, ruleset: RoomsRules) -> dict[str, np.ndarray]:
    """The per-game columns (the race's after the others) from the kernel's output array."""
    nk = OUTPUTS.n_kernel(ruleset)
    cols = OUTPUTS.frame(out[:, :nk], ruleset)
    if ruleset.race_players > 1:
        cols.update(race_frame(out[:, nk + layout.HIDDEN_COLS:], ruleset))
    return cols


def visits(out: np.ndarray, ruleset: RoomsRules) -> np.ndarray:
    """Games in which the hero (seat 1 in the race) entered each cell of the dungeon, from the kernel's two entered
    masks (``layout.HIDDEN_COLS``): int64[rows * cols]."""
    nk = OUTPUTS.n_kernel(ruleset)
    masks = out[:, nk:nk + layout.HIDDEN_COLS]
    n = ruleset.dungeon.n
    bits = np.arange(n, dtype=np.int64)
    return ((masks[:, bits // 32] >> (bits % 32)) & 1).sum(axis=0).astype(np.int64)


def simulate(ruleset: RoomsRules, hero: str, policy: Policy, seed: int, start: int, count: int
             ) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` of stream ``seed``: one row per game (see ``columns``)."""
    out, _ = _run(ruleset, hero, policy, seed, start, count)
    cols = _frame(out, ruleset)
    cols["_visits"] = visits(out, ruleset)  # a run extra (runner: keys starting "_"), summed over batches
    check_answers(int(cols["bad_answers"].sum()), policy, layout.KIND_NAMES)
    return cols


def play_one(ruleset: RoomsRules, hero: str, policy: Policy, seed: int = 0, game: int = 0,
             script: list[int] | np.ndarray | None = None, trace_rows: int = 20000
             ) -> tuple[dict[str, int], list[str]]:
    """One game with an optional script of forced dice: its row and report (out-of-range answers counted)."""
    sc = NO_SCRIPT if script is None else np.asarray(script, dtype=np.int64)
    out, trace = _run(ruleset, hero, policy, seed, game, 1, sc, trace_rows)
    row = {name: int(v[0]) for name, v in _frame(out, ruleset).items()}
    return row, format_trace(trace, ruleset, hero)


def replay(ruleset: RoomsRules, hero: str, policy: Policy, seed: int, game: int) -> list[str]:
    """The play report of game ``game`` of stream ``seed``: every move, room and decision in words, the dungeon
    drawn at each turn."""
    row, lines = play_one(ruleset, hero, policy, seed, game)
    check_answers(row["bad_answers"], policy, layout.KIND_NAMES)
    head = (f"Replay of Rooms, game {game} of seed {seed}: hero {hero}, dungeon {ruleset.dungeon.name}, "
            f"policy {policy.describe()}")
    cause = OUTPUTS.column("death_cause").category(row["death_cause"], ruleset)
    result = (f"Result: {'WON' if row['win'] else 'LOST'} after {count(row['turns'], 'turn')}, {row['hp_left']} HP "
              f"left" + ("" if row["win"] else f" ({cause})") + f", {count(row['rooms_entered'], 'room')} entered.")
    if ruleset.race_players > 1:
        end = OUTPUTS.column("race_end").category(row["race_end"], ruleset)
        who = f"player {row['race_winner']} won" if row["race_winner"] else "no winner"
        head += f"; the race of {ruleset.race_players} players (each in their own dungeon, the same hero and policy)"
        result = (f"Race: {who} after round {row['race_turn']} ({end}). Player 1's own game: " + result[8:])
    legend = ("Dungeon: S start, X boss, M monster, T trap, C chest, F fountain, B blacksmith, W warp, H bounty "
              "hunter, $ shop, ? face down; * the hero, + entered before.")
    return [head, result, legend] + lines


def warm(ruleset: RoomsRules) -> None:
    """``foury-sim warm rooms``'s extra step: one fight through ``combat.play_fight`` with the scripted player (the
    entry point the fight tests and notebooks use; the same argument types as ``tests/rooms_fight_stub.py``)."""
    from ... import rng
    from . import combat as C
    from .dice import GREEDY_PARAMS

    fx = pack_fight(ruleset, GAME.default_hero)
    st = np.zeros(160, dtype=np.int64)
    C.hero_start(fx, st)
    dice = C.FightDice(rng.stream(1, 0), np.array([], dtype=np.int64), np.zeros((1, TRACE_COLS), dtype=np.int64))
    params = np.array(list(GREEDY_PARAMS.values()), dtype=np.float64)
    pol = C.ScriptPol(C.P_SCRIPT, params, fx, np.array([], dtype=np.int64), np.zeros((400, 2), dtype=np.int64),
                      np.zeros(2, dtype=np.int64))
    C.play_fight(fx, st, np.array([0], dtype=np.int64), 1, np.zeros((layout.MAX_OPTIONS, 2), dtype=np.int64), dice,
                 pol)


def summarize(df: pd.DataFrame, ruleset: RoomsRules | None = None, conf: float = 0.95) -> dict[str, Any]:
    """Rooms' own entry (outputs.SUMMARY_KEYS): damage dealt and taken per fight, from the table's histograms
    (``summarize_hists``)."""
    return summarize_hists(OUTPUTS.histograms(df), len(df), ruleset, conf)


def summarize_hists(hists: dict[str, tuple[np.ndarray, np.ndarray]], n: int,
                    ruleset: RoomsRules | None = None, conf: float = 0.95) -> dict[str, Any]:
    """``summarize``'s entry from the exact histograms of the columns it reads over ``n`` games (a streamed run of
    any size keeps it), with its intervals at ``conf`` (``mean_intervals``: docs/statistics.md)."""
    return {"per_fight": per_fight(hists, n), MEAN_INTERVALS: {"per_fight": per_fight_intervals(hists, conf)}}


GAME = register(
    GameSpec(
        name="rooms",
        title="Rooms: a room-card dungeon crawl with Dice-Throne-style ability fights",
        load_ruleset=load_ruleset,
        heroes=heroes,
        policies=POLICIES,
        default_policy="optimal_reroll",
        default_hero="ranger",
        simulate=simulate,
        replay=replay,
        summarize=summarize,
        summarize_hists=summarize_hists,
        outputs=OUTPUTS,
        odds=_odds.odds,
        warm=warm,
        flags=FLAGS,
        files_read=files_read,
        options=(GameOption("hero", ("odds",), "The hero whose abilities the odds table shows (a key of [heroes]; "
                            "default: ranger).", str, "ranger"),),
        board=BOARD,
    )
)

__all__ = ["GAME", "POLICIES", "simulate", "replay", "play_one", "summarize", "summarize_hists", "load_ruleset",
           "heroes", "columns", "layout"]
