"""Helpers for the Dungeon Foury rule tests: tiny maps, a scripted policy, decoded traces.

``play(...)`` runs one game through ``foury_sim.games.foury.play_one`` with forced dice (``script``)
and the scripted user policy in ``tests/data/foury/scripted.py`` (queues of choices per decision
kind), and returns a :class:`Game` with the final state, the rooms, the trace rows and the policy's
decision log.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit
from plain import plain

from foury_sim.games import foury
from foury_sim.games.foury import layout as L
from foury_sim.games.foury.ruleset import load_ruleset
from foury_sim.games.foury.trace import format_trace
from foury_sim.policy import POLICY_SIG, USER_POLICY_ID, Policy

DATA = Path(__file__).parent / "data" / "foury"
POLICY_FILE = DATA / "scripted.py"

_spec = importlib.util.spec_from_file_location("foury_scripted_policy_layout", POLICY_FILE)
SP = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(SP)  # the policy module's constants (params layout)

KIND = {name: i for i, name in enumerate(L.DECISION_NAMES)}
TRACKS = {name: i for i, name in enumerate(L.TRACK_NAMES)}
NEVER = 987654  # a choice no option has: an unscripted decision shows up as a bad choice
MOVE_KINDS = (L.D_MOVE, L.D_EXTRA, L.D_PLACE)
SNAP_NAMES = ("hearts", "shield", "clover", "weapon", "shovel", "chest", "cornucopia", "pos", "dir",
              "kills_round", "round", "phase", "req_done", "bonus", "chestv", "turn")
assert len(SNAP_NAMES) == len(SP.SNAP)

# one round, no statue or lever requirement: tiny maps load; tests switch these back when needed
BASE_OVERRIDES = {"game.rounds": 1, "requirements.statues": 0, "requirements.levers": 0}
NOTHING = ["nothing"] * 6
QUIET_EVENTS = {f"events.{s}": NOTHING for s in "ABCD"}


@functools.lru_cache(maxsize=1)
def policy_fn():
    """The scripted policy compiled with the policy signature (once per process). Test harness only: it is
    compiled directly, not through ``userpolicy`` (whose guard gives a policy copies), because it keeps
    its queue positions and decision log in ``params`` (the test reads them back)."""
    return njit(POLICY_SIG)(plain(SP.scripted))


@functools.lru_cache(maxsize=1)
def _heuristic_as_user():
    from foury_sim.games.foury.policies import heuristic_decide as decide

    def heuristic_as_user(kind, state, options, n, params):
        return decide(kind, state, options, n, params)

    return njit(POLICY_SIG)(heuristic_as_user)


def heuristic_decide(kind: int, state: np.ndarray, options: np.ndarray, n: int, params: np.ndarray) -> int:
    """``policies.heuristic_decide`` (the greedy/cautious player) called as a user's policy calls it
    (``greedy_decide`` with the policy's own arguments: the policy signature), the argument types
    ``foury-sim warm foury`` compiles it for: called straight from Python (C-contiguous arrays) it would be
    one more specialisation of the whole player, compiled in the test process (about 10 s)."""
    return int(_heuristic_as_user()(kind, state, options, n, params))


def map_path(name: str) -> str:
    p = DATA / f"{name}.map"
    assert p.is_file(), p
    return str(p)


def _freeze(v):
    if isinstance(v, dict):
        return ("dict", tuple(sorted((k, _freeze(x)) for k, x in v.items())))
    if isinstance(v, list):
        return ("list", tuple(_freeze(x) for x in v))
    return v


def _thaw(v):
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "dict":
        return {k: _thaw(x) for k, x in v[1]}
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "list":
        return [_thaw(x) for x in v[1]]
    return v


@functools.cache
def _rules(map_name: str, frozen: tuple, rules_file: str | None):
    where = map_name if map_name.endswith(".map") else map_path(map_name)
    return load_ruleset(rules_file, overrides={k: _thaw(v) for k, v in frozen}, map_path=where)


def rules(map_name: str, overrides: dict | None = None, rules_file: str | None = None):
    """The shipped ruleset with ``BASE_OVERRIDES`` and ``overrides`` (``--set`` style), on a test map
    (a name in tests/data/foury or a ``.map`` path), merged with a ruleset file ``rules_file`` if given."""
    merged = dict(BASE_OVERRIDES)
    merged.update(overrides or {})
    return _rules(map_name, tuple(sorted((k, _freeze(v)) for k, v in merged.items())), rules_file)


# --------------------------------------------------------------------------------- policy params
def move(cell: int, kind: int | None = None) -> int:
    """A move choice: the option into ``cell`` (of move kind ``kind`` if given)."""
    return cell if kind is None else (kind + 1) * 1000 + cell


def clover(action: int, die: int = -1, value: int = 0) -> int:
    return action * 100 + (die + 1) * 10 + value


def reroll(action: int, value: int = 0) -> int:
    """A D_REROLL choice: ``reroll(0, face)`` keep the face showing, ``reroll(1)`` spend a clover to reroll,
    ``reroll(2, v)`` Melyra sets the face to v."""
    return action * 10 + value


def market(op: int, a: int = -1, b: int = -1) -> int:
    return op * 100 + (a + 1) * 10 + (b + 1)


DONE = market(L.M_DONE)


def make_params(queues: dict | None = None, defaults: dict | None = None, log_cap: int = 300) -> np.ndarray:
    queues = {KIND[k] if isinstance(k, str) else k: list(v) for k, v in (queues or {}).items()}
    dflt = [SP.FIRST] * SP.N_KINDS
    for k in MOVE_KINDS:
        dflt[k] = NEVER
    for k, v in (defaults or {}).items():
        dflt[KIND[k] if isinstance(k, str) else k] = v
    body: list[float] = []
    starts, lens = [0] * SP.N_KINDS, [0] * SP.N_KINDS
    for k in range(SP.N_KINDS):
        q = queues.get(k, [])
        starts[k] = SP.HEADER + len(body)
        lens[k] = len(q)
        body.extend(q)
    log_start = SP.HEADER + len(body)
    p = np.zeros(log_start + log_cap * SP.LOG_ROW, np.float64)
    p[SP.P_DEFAULT:SP.P_DEFAULT + SP.N_KINDS] = dflt
    p[SP.P_QSTART:SP.P_QSTART + SP.N_KINDS] = starts
    p[SP.P_QLEN:SP.P_QLEN + SP.N_KINDS] = lens
    p[SP.P_LOG_START] = log_start
    p[SP.P_LOG_CAP] = log_cap
    p[SP.HEADER:log_start] = body
    return p


@dataclass
class Decision:
    kind: int
    n: int
    choice: int
    snap: dict
    keys: list

    @property
    def name(self) -> str:
        return L.DECISION_NAMES[self.kind]

    def moves(self) -> list[dict]:
        """Move options decoded from their keys (kind, from, to, path)."""
        out = []
        for k in self.keys:
            path = k % 100
            to = (k // 100) % 100
            frm = (k // 10_000) % 100
            kind = k // 1_000_000
            out.append({"kind": kind, "from": frm, "to": to, "path": path})
        return out


def decode_log(params: np.ndarray) -> list[Decision]:
    start, n = int(params[SP.P_LOG_START]), int(params[SP.P_LOG_N])
    out = []
    for i in range(n):
        r = params[start + i * SP.LOG_ROW: start + (i + 1) * SP.LOG_ROW].astype(np.int64)
        kind, n_opt, c = int(r[0]), int(r[1]), int(r[2])
        snap = dict(zip(SNAP_NAMES, (int(x) for x in r[3:19]), strict=True))
        keys = [int(x) for x in r[19:19 + min(n_opt, SP.LOG_KEYS)]]
        out.append(Decision(kind, n_opt, c, snap, keys))
    return out


# ---------------------------------------------------------------------------------------- games
@dataclass
class Game:
    rules: object
    out: np.ndarray
    st: np.ndarray
    rm: np.ndarray
    tr: np.ndarray
    params: np.ndarray
    script: list
    log: list = field(default_factory=list)

    def __getitem__(self, idx: int) -> int:
        return int(self.st[idx])

    def report(self) -> str:
        return "\n".join(format_trace(self.tr, self.rules.map.cols, self.rules.icons.names))

    def rows(self, code: int) -> list[tuple]:
        """Trace rows with this code, as (a, b, c, d, e) tuples."""
        return [tuple(int(x) for x in r[1:]) for r in self.tr if r[0] == code]

    def codes(self) -> list[int]:
        return [int(r[0]) for r in self.tr]

    def decisions(self, kind: str | int) -> list[Decision]:
        k = KIND[kind] if isinstance(kind, str) else kind
        return [d for d in self.log if d.kind == k]

    def dice(self) -> int:
        return int(self.out[L.OUT_DICE])

    def walls(self, cell: int) -> list[int]:
        return [int(x) for x in self.rm[cell, L.RM_WALL:L.RM_WALL + 4]]

    def icons(self, cell: int, icon: int) -> int:
        return int(self.rm[cell, L.RM_ICON + icon])

    def room_state(self, cell: int) -> int:
        return int(self.rm[cell, L.RM_STATE])

    def queue_left(self) -> dict:
        p = self.params
        left = {}
        for k in range(SP.N_KINDS):
            rest = int(p[SP.P_QLEN + k]) - int(p[SP.P_QPOS + k])
            if rest:
                left[L.DECISION_NAMES[k]] = rest
        return left


def sheet_queue(sheet: dict) -> list[int]:
    """Trait marks for the free character: hearts first (min_hearts), then the other tracks."""
    q: list[int] = []
    for name in ("hearts", "shield", "clover", "weapon", "shovel"):
        q += [TRACKS[name]] * sheet.get(name, 0)
    return q


def play(map_name: str, *, script=(), queues: dict | None = None, defaults: dict | None = None,
         overrides: dict | None = None, hero: str = "free", sheet: dict | None = None, seed: int = 1,
         game: int = 0, strict: bool = True, check_dice: bool = True, rules_file: str | None = None) -> Game:
    """One scripted game. ``sheet`` places the free character's marks (and sets trait_marks).

    ``strict``: every scripted choice was used and every decision matched an option;
    ``check_dice``: the game rolled exactly the scripted dice (none random).
    """
    overrides = dict(overrides or {})
    queues = dict(queues or {})
    if sheet is not None:
        assert hero == "free"
        q = sheet_queue(sheet)
        overrides.setdefault("character.trait_marks", len(q))
        queues["trait"] = q + list(queues.get("trait", []))
    r = rules(map_name, overrides, rules_file)
    params = make_params(queues, defaults)
    pol = Policy("scripted", USER_POLICY_ID, params, (), policy_fn())
    out, st, rm, tr = foury.play_one(r, hero, pol, seed, game, np.asarray(list(script), np.int64))
    g = Game(r, out.copy(), st.copy(), rm.copy(), tr.copy(), params, list(script), decode_log(params))
    if strict:
        assert g.st[L.S_BAD_CHOICE] == 0, f"{g.st[L.S_BAD_CHOICE]} unmatched choices\n{g.report()}\n{g.log}"
        assert not g.queue_left(), f"scripted choices not used: {g.queue_left()}\n{g.report()}"
    if check_dice:
        assert g.dice() == len(script), f"rolled {g.dice()} dice, scripted {len(script)}\n{g.report()}"
    return g


def relative_side(heading: int, which: str) -> int:
    """The absolute side (N, E, S, W) of a room that is ``which`` of someone heading ``heading``.

    Heading north: left is west, right is east, front is north, behind is south.
    """
    turn = {"front": 0, "right": 1, "behind": 2, "left": 3}[which]
    return (heading + turn) % 4


# ----------------------------------------------------------------------------- engine loops
def _loops():
    """Njit loops over the engine's own ``fight`` and ``steal`` with random dice (compiled on first use).

    Their arrays have the engine's own types (C-contiguous, as the kernel hands them to ``fight`` and ``steal``),
    so that ``fight`` and ``steal`` (and everything they call) load from the kernel cache ``foury-sim warm
    foury`` wrote, and only these two small loops compile here (a few seconds). With any-layout arrays
    (``i64[:]``) they were a second specialisation of the whole combat tree, compiled in the test process:
    about 60 s of a cold suite (the ``fight`` with ``Board(array(int64, 1d, A), ...)`` in the cache)."""
    from numba import njit, types

    from foury_sim.games.foury import kernel as K
    from foury_sim.policy import POLICY_TYPE
    from foury_sim.rng import seed_stream

    i64, u64 = types.int64, types.uint64
    I1, I2, F1 = i64[::1], i64[:, ::1], types.float64[::1]  # the kernel's own array types (games/foury/combat.py)
    sig = types.void(I1, I2, I2, I2, F1, POLICY_TYPE, u64, i64, i64, i64, i64, I2)

    @njit(sig)
    def rolloffs(R, T, geo, rm0, params, fn, seed, weapon, bonus, foe, cell, out):
        """One fight per row of ``out`` (the policy adds the weapon and flees after one roll-off):
        out[g] = (fight result, hearts lost)."""
        st = np.zeros(K.STATE_SIZE, np.int64)
        rm = rm0.copy()
        opts = np.zeros((64, K.N_OCOL), np.int64)
        rs = np.zeros(4, np.uint64)
        ps = np.zeros(4, np.uint64)
        script = np.zeros(0, np.int64)
        tr = np.zeros((1, K.TRACE_COLS), np.int64)
        board = K.Board(R, T, geo, np.zeros((0, 3), np.int64))  # no arrows (C-contiguous, as the kernel's)
        dice = K.Dice(rs, ps, script, tr)
        pol = K.Pol(USER_POLICY_ID, params, fn, np.zeros(0, np.int64), rs)  # the search hooks off
        for g in range(out.shape[0]):
            seed_stream(rs, seed, g)
            seed_stream(ps, seed + np.uint64(1), g)
            for i in range(st.shape[0]):
                st[i] = 0
            for t in range(K.N_TRACKS):
                st[K.S_CAP + t] = 1000
            st[K.HEARTS] = 100
            st[K.WEAPON] = weapon
            st[K.S_BONUS] = bonus
            T[K.T_EN_STR, foe] = T[K.T_EN_BASE, foe] + T[K.T_EN_MULT, foe] * bonus  # row state[S_STR_ROW] = 0
            st[K.S_PHASE] = 1
            K.add_icon(rm, cell, foe, 1 - rm[cell, K.RM_ICON + foe])
            r = K.fight(board, st, rm, opts, dice, pol, cell, foe)
            K.add_icon(rm, cell, foe, -rm[cell, K.RM_ICON + foe])
            out[g, 0] = r
            out[g, 1] = 100 - st[K.HEARTS]

    ssig = types.void(I1, F1, POLICY_TYPE, u64, I1, i64, I1)

    @njit(ssig)
    def steals(R, params, fn, seed, held, trials, counts):
        """The bandit's theft ``trials`` times from a sheet holding 1 of each track in ``held``;
        counts[t] = how often track t was taken."""
        st = np.zeros(K.STATE_SIZE, np.int64)
        opts = np.zeros((64, K.N_OCOL), np.int64)
        rs = np.zeros(4, np.uint64)
        ps = np.zeros(4, np.uint64)
        script = np.zeros(0, np.int64)
        tr = np.zeros((1, K.TRACE_COLS), np.int64)
        dice = K.Dice(rs, ps, script, tr)
        pol = K.Pol(USER_POLICY_ID, params, fn, np.zeros(0, np.int64), rs)  # the search hooks off
        for t in range(counts.shape[0]):
            counts[t] = 0
        for g in range(trials):
            seed_stream(rs, seed, g)
            for t in range(K.N_TRACKS):
                st[t] = 0
            for k in range(held.shape[0]):
                st[held[k]] = 1
            K.steal(R, st, opts, dice, pol)
            for t in range(K.N_TRACKS):
                if st[t] == 0:
                    for k in range(held.shape[0]):
                        if held[k] == t:
                            counts[t] += 1

    return rolloffs, steals


@functools.lru_cache(maxsize=1)
def engine_loops():
    return _loops()
