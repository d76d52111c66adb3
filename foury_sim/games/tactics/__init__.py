"""Tactics: a lone adventurer against a Dungeon Master on a tile grid, 8 action points a turn; registered as
"tactics".

Rules: ``data/rules.toml`` (data), levels ``data/levels/`` (``level.py``), ``kernel.py`` (numba); policy API:
``layout.py``; docs/rules-tactics.md and docs/tactics-levels.md. The Dungeon Master is a policy too, chosen
with ``--dm NAME`` (parameters ``--dm-param K=V,...``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...config import use_cache
from ...errors import InputError, did_you_mean
from ...inputs import check_flags, check_param_text
from ...lazy import pd
from ...outputs import MEAN_INTERVALS, hist_count, hist_total, joint_key, mean_interval, most_common, tally
from ...policy import Policy, PolicySpec, check_answers, make_policy
from ...registry import GameOption, GameSpec, register
from ...rng import NO_SCRIPT
from ...trace_format import count
from ...userpolicy import check_errors, clear_errors, user_policy

with use_cache(__name__):  # compiled kernels are cached per version of this package's code
    from . import layout
    from .board import BOARD
    from .kernel import TRACE_COLS, entry
    from .odds import ODDS_OPTIONS, odds_report
    from .outputs import OUTPUTS
    from .policies import BY_THE_BOOK_PARAMS, RUSH_PARAMS, RUTHLESS_PARAMS, THOROUGH_PARAMS
    from .ruleset import TacticsRules, heroes
    from .ruleset import load_ruleset as _load_ruleset
    from .trace import format_trace, grid_states

POLICIES = {
    "rush": PolicySpec(
        "rush", layout.P_RUSH,
        "the shortest way to the exit (fetching the key that opens it), fighting only what stands in the way; "
        "eats or drinks at HP <= heal_below; wields/wears what it finds while bare (equip = 1); "
        "fight_adjacent = 1 also fights every awake neighbour",
        dict(RUSH_PARAMS),
        ranges={"heal_below": (0.0, 100.0), "fight_adjacent": (0.0, 1.0), "equip": (0.0, 1.0)},
    ),
    "thorough": PolicySpec(
        "thorough", layout.P_THOROUGH,
        "clears and loots: heals at HP <= heal_below, equips anything better, attacks the weakest monster within "
        "reach (sleeping ones too with hunt = 1), opens every crate, chest, sarcophagus and shrine on its way "
        "(loot = 1), then heads for the exit; with the Gambler's Die, gamble = 1 rerolls any roll not worth keeping",
        dict(THOROUGH_PARAMS),
        ranges={"heal_below": (0.0, 100.0), "loot": (0.0, 1.0), "hunt": (0.0, 1.0), "gamble": (0.0, 1.0)},
    ),
    "random": PolicySpec("random", layout.P_RANDOM, "a uniformly random legal option at every choice",
                         traits=frozenset({"full_menu"})),
}
#: The adventurers' on/off parameters, and the Dungeon Master's: 0 or 1 only (``GameSpec.flags``,
#: ``inputs.check_flags``; 0.5 was played as 1: ``> 0`` is on).
FLAGS = frozenset({"fight_adjacent", "equip", "loot", "hunt", "gamble"})
DM_FLAGS = frozenset({"spawn_near", "focus"})
#: The Dungeon Master's built-in policies (``--dm``); parameters with ``--dm-param``.
DM_POLICIES = {
    "by_the_book": PolicySpec(
        "by_the_book", layout.P_BY_THE_BOOK,
        "monsters bee-line and attack in slot order; random choices within the spawn category and among free "
        "spawn points", dict(BY_THE_BOOK_PARAMS)),
    "ruthless": PolicySpec(
        "ruthless", layout.P_RUTHLESS,
        "spawns the strongest kind of the category at the spawn point nearest the player (spawn_near = 1; 0: "
        "farthest); attacks first with the monster rolling most dice (focus = 1), then shots, revivals, then the "
        "step ending nearest the player",
        dict(RUTHLESS_PARAMS), ranges={"spawn_near": (0.0, 1.0), "focus": (0.0, 1.0)}),
}
DEFAULT_DM = "by_the_book"
#: The function a DM policy file names when ``--dm`` gives only ``FILE.py``.
DEFAULT_DM_FUNCTION = "decide"
_DM_WHERE = {"--policy": "--dm", "--param": "--dm-param"}


def _as_dm(e: InputError) -> InputError:
    """A user-policy error about the DM's file, placed at ``--dm`` / ``--dm-param`` instead of ``--policy`` /
    ``--param`` (a place in the file stays)."""
    return InputError(e.message, _DM_WHERE.get(e.where, e.where))


def dm_policy(ruleset: TacticsRules) -> Policy:
    """The Dungeon Master's policy of the run (``--dm``, ``--dm-param``; kept in ``ruleset.options``): a built-in
    (``DM_POLICIES``) or a user's ``FILE.py[:FUNCTION]`` (default function ``decide``), which answers the DM's
    decision kinds (``layout.D_SPAWN_KIND``, ``D_SPAWN_AT``, ``D_DM_ACT``) with the same signature and guard as
    a player's policy file (``userpolicy``)."""
    opts = getattr(ruleset, "options", {}) or {}
    name = opts.get("dm") or DEFAULT_DM
    params = opts.get("dm_param") or None
    if name in DM_POLICIES:
        check_param_text(params, "--dm-param")
        try:
            pol = make_policy(name, DM_POLICIES, params)
        except InputError as e:
            raise InputError(e.message, "--dm-param") from None
        check_flags(pol, DM_FLAGS, "--dm-param")
        return pol
    if name.endswith(".py") or ".py:" in name:
        check_param_text(params, "--dm-param")
        spec = name if ".py:" in name else f"{name}:{DEFAULT_DM_FUNCTION}"
        try:
            return user_policy(spec, params)
        except InputError as e:
            raise _as_dm(e) from None
    raise InputError(f"unknown Dungeon Master policy {name!r} (built-in: {', '.join(DM_POLICIES)}; or "
                     f"FILE.py[:FUNCTION])", "--dm")


def _check_answers(n_bad: int, policy: Policy, dm: Policy) -> None:
    """``policy.check_answers`` for both sides: a DM policy file's faults are reported at ``--dm``; out-of-range
    answers (counted together by the kernel) are the DM's when the player's policy is a built-in."""
    if dm.errors is not None:
        try:
            check_errors(dm, layout.KIND_NAMES, _DM_WHERE["--param"])  # (its parameters: --dm-param)
        except InputError as e:
            raise _as_dm(e) from None
        if n_bad and policy.errors is None:
            raise InputError(f"policy {dm.name!r} returned an option index out of range {n_bad} times", "--dm")
    check_answers(n_bad, policy, layout.KIND_NAMES)


def load_ruleset(rules: str | None = None, sets: list[str] | None = None, level: str | None = None,
                 **options: Any) -> TacticsRules:
    """``ruleset.load_ruleset`` and the DM options checked (``--dm``, ``--dm-param``)."""
    rs = _load_ruleset(rules, sets, level, **options)
    dm_policy(rs)
    return rs


def _run(ruleset: TacticsRules, hero: str, policy: Policy, seed: int, start: int, count: int,
         script: np.ndarray = NO_SCRIPT, trace_rows: int = 0) -> tuple[np.ndarray, np.ndarray, Policy]:
    if hero not in ruleset.hero_names:
        raise InputError(f"unknown hero {hero!r} ({did_you_mean(hero, ruleset.hero_names)}known: "
                         f"{', '.join(ruleset.hero_names)})", "--hero")
    if policy.policy_id in (layout.P_BY_THE_BOOK, layout.P_RUTHLESS):
        raise InputError(f"{policy.name!r} is a Dungeon Master policy (use --dm)", "--policy")
    dm = dm_policy(ruleset)
    out = np.empty((count, OUTPUTS.n_kernel(ruleset)), dtype=np.int64)
    trace = np.zeros((trace_rows, TRACE_COLS), dtype=np.int64)
    ctl = np.array([policy.policy_id, start, count, dm.policy_id], dtype=np.int64)
    clear_errors(policy)
    clear_errors(dm)
    entry("simulate")(
        np.ascontiguousarray(ruleset.rules, dtype=np.int64),
        np.ascontiguousarray(ruleset.monsters, dtype=np.int64),
        np.ascontiguousarray(ruleset.weapons, dtype=np.int64),
        np.ascontiguousarray(ruleset.armors, dtype=np.int64),
        np.ascontiguousarray(ruleset.charts, dtype=np.int64),
        np.ascontiguousarray(ruleset.lv, dtype=np.int64),
        ctl,
        np.ascontiguousarray(policy.params, dtype=np.float64),
        np.ascontiguousarray(dm.params, dtype=np.float64),
        policy.kernel_fn,
        dm.kernel_fn,
        np.uint64(seed % 2**64),
        np.ascontiguousarray(script, dtype=np.int64),
        out,
        trace,
    )
    return out, trace, dm


def columns(ruleset: TacticsRules) -> list[str]:
    return OUTPUTS.kernel_names(ruleset)


def simulate(ruleset: TacticsRules, hero: str, policy: Policy, seed: int, start: int, count: int
             ) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` of stream ``seed``: one row per game (see ``columns``)."""
    out, _, dm = _run(ruleset, hero, policy, seed, start, count)
    cols = OUTPUTS.frame(out, ruleset)
    _check_answers(int(cols["bad_answers"].sum()), policy, dm)
    return cols


def play_one(ruleset: TacticsRules, hero: str, policy: Policy, seed: int = 0, game: int = 0,
             script: list[int] | np.ndarray | None = None, trace_rows: int = 20000) -> tuple[dict[str, int], list[str]]:
    """One game with an optional script of forced dice: its row and report (out-of-range answers counted, not
    refused)."""
    sc = NO_SCRIPT if script is None else np.asarray(script, dtype=np.int64)
    out, trace, _ = _run(ruleset, hero, policy, seed, game, 1, sc, trace_rows)
    row = {name: int(out[0, i]) for i, name in enumerate(columns(ruleset))}
    return row, format_trace(trace, ruleset)


def grid_turns(text: str | None) -> list[int | str]:
    """``--grid-at`` as a list of turn numbers (1..the turn cap's maximum) and ``"last"``, in the order given; an
    empty item (``,,``, ``1,``) is refused (skipped, ``,,`` drew nothing and said nothing)."""
    out: list[int | str] = []
    if not (text or "").strip():
        return out
    for word in text.split(","):
        w = word.strip()
        if not w:
            raise InputError(f"{text!r} has an empty item: give turn numbers (1..1000) and 'last' separated by single "
                             "commas", "--grid-at")
        if w == "last":
            out.append(w)
        elif w.isdigit() and 1 <= int(w) <= 1000:
            out.append(int(w))
        else:
            from ...rulesfile import close_match

            hint = " (did you mean 'last'?)" if close_match(w, ["last"]) else ""
            raise InputError(f"takes turn numbers (1..1000) and 'last' separated by commas, not {w!r}{hint}",
                             "--grid-at")
    return out


def replay(ruleset: TacticsRules, hero: str, policy: Policy, seed: int, game: int, grid_at: str = "") -> list[str]:
    """The play report of game ``game`` of stream ``seed``; with ``grid_at`` (``--grid-at 1,5,last``) the level
    drawn at the start of those turns (``trace.grid_states``), after the turn's first line."""
    turns = grid_turns(grid_at)
    out, trace, dm = _run(ruleset, hero, policy, seed, game, 1, NO_SCRIPT, 20000)
    row = {name: int(out[0, i]) for i, name in enumerate(columns(ruleset))}
    lines = format_trace(trace, ruleset)
    _check_answers(row["bad_answers"], policy, dm)
    if turns:
        grids = grid_states(trace, ruleset)
        played = max(grids) if grids else 0
        wanted = sorted({played if t == "last" else t for t in turns})
        missing = [t for t in wanted if t not in grids]
        for t in reversed(wanted):
            at = next((i for i, ln in enumerate(lines) if ln.startswith(f"== turn {t}:")), None)
            if at is not None and t in grids:
                lines[at + 1:at + 1] = grids[t]
        lines += [f"(--grid-at: turn {t} was not played; the game lasted {count(played, 'turn')})" for t in missing]
    level = getattr(ruleset.level, "name", "?")
    head = (f"Replay of Tactics, game {game} of seed {seed}: level {level}, policy {policy.describe()}, "
            f"Dungeon Master {dm_policy(ruleset).describe()}")
    cause = OUTPUTS.column("death_cause").category(row["death_cause"], ruleset)
    result = (f"Result: {'WON' if row['win'] else 'LOST'} after {row['turns']} turns, {row['hp_left']} HP left"
              + ("" if row["win"] else f" ({cause})") + f", {count(row['kills'], 'monster')} slain.")
    return [head, result] + lines


def summarize(df: pd.DataFrame, ruleset: TacticsRules | None = None, conf: float = 0.95) -> dict[str, Any]:
    """Kills by kind, who dealt the last blow, AP by action, the DM's policy (declared in outputs.SUMMARY_KEYS),
    from the table's histograms (``summarize_hists``)."""
    return summarize_hists(OUTPUTS.histograms(df), len(df), ruleset, conf)


def summarize_hists(hists: dict[str, tuple[np.ndarray, np.ndarray]], n: int,
                    ruleset: TacticsRules | None = None, conf: float = 0.95) -> dict[str, Any]:
    """``summarize``'s entries from the exact histograms of the columns they read over ``n`` games (the killers
    of lost games from the joint histogram of ``win`` and ``killer``), so a streamed run of any size keeps them.
    Means are exact integer sums over ``n``; killers most lost games first, ties by code."""
    d = max(n, 1)
    out: dict[str, Any] = {}
    kills: dict[str, str] = {}  # a monster kind's label: its kills column
    if ruleset is not None:
        label = OUTPUTS.column("killer").category  # (a monster as the killer column names it: "storm golem")
        kills = {label(k, ruleset): f"kills_kind{k + 1}" for k in range(len(ruleset.monster_names))
                 if f"kills_kind{k + 1}" in hists}
        out["kills_by_kind"] = {m: hist_total(hists[c]) / n if n else float("nan") for m, c in kills.items()}
        h = hists[joint_key("win", "killer")]
        lost = h[0][:, 0] == 0
        nl = max(hist_count(h, lost), 1)
        out["killed_by"] = {label(k, ruleset): v / nl for k, v in most_common(tally(h, lost & (h[0][:, 1] >= 0)))}
        out["dm_policy"] = dm_policy(ruleset).describe()
    out["ap_by_action"] = {k: hist_total(hists[f"ap_{k}"]) / d for k in ("move", "attack", "interact", "use")
                           if f"ap_{k}" in hists}
    out[MEAN_INTERVALS] = {"ap_by_action": {k: mean_interval(hists[f"ap_{k}"], conf) for k in out["ap_by_action"]}}
    if ruleset is not None:
        out[MEAN_INTERVALS]["kills_by_kind"] = {m: mean_interval(hists[c], conf) for m, c in kills.items()}
    return out


GAME = register(
    GameSpec(
        name="tactics",
        title="Tactics: a lone adventurer against the Dungeon Master, 8 AP a turn on a tile grid",
        load_ruleset=load_ruleset,
        heroes=heroes,
        policies=POLICIES,
        default_policy="thorough",
        default_hero="adventurer",
        simulate=simulate,
        replay=replay,
        summarize=summarize,
        summarize_hists=summarize_hists,
        outputs=OUTPUTS,
        odds=odds_report,
        board=BOARD,
        flags=FLAGS,
        options=(
            GameOption("dm", ("run",), f"The Dungeon Master's policy: {', '.join(DM_POLICIES)} "
                       f"(default {DEFAULT_DM}), or a policy file FILE.py[:FUNCTION] (default function "
                       f"{DEFAULT_DM_FUNCTION}) answering the DM's decision kinds (layout.py).", str, DEFAULT_DM),
            GameOption("dm_param", ("run",), "The Dungeon Master policy's parameters, e.g. 'spawn_near=0' "
                       "(default: its own).", str, ""),
            GameOption("grid_at", ("replay",), "Draw the level at the start of these turns, e.g. '1,5,last' (the "
                       "player P, the monsters, what is opened or gone).", str, ""),
            *ODDS_OPTIONS,
        ),
    )
)

__all__ = ["GAME", "POLICIES", "DM_POLICIES", "simulate", "replay", "play_one", "summarize", "summarize_hists",
           "load_ruleset", "heroes", "columns", "layout", "dm_policy"]
