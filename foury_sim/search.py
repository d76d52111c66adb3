"""The search policy: every decision played by Monte Carlo rollouts inside the jitted engine.

A game's kernel is procedural (``play_game`` calls the rules, which ask ``decide`` deep in the stack), so a
decision's continuation cannot be copied. The search needs no copy and no recursion: it **clones a state by
replaying it**. A play of the game can be given

* a prefix of *forced choices*: the first ``len(prefix)`` multi-option decisions (``n > 1``) take them;
* a *switch*: right after the last forced choice, the dice stream (and the policy's own stream) are re-keyed
  to a fresh rollout stream keyed by (seed, game, decision index, rollout number), and the base policy plays
  on: a rollout from that decision;
* a *record*: the number of options, the kind and the base policy's choice at the first free decision of a
  searched kind (free decisions of other kinds before it are appended to the prefix as the base played them).

Replaying the prefix on the game's own dice reconstructs the position exactly (the dice and the choices are
all there is), so the driver in each game's kernel is, for one game::

    prefix = []
    loop:
        probe: play with the prefix on the real dice (recording the next searched decision)
        if no searched decision is left: that play IS the real game; stop
        for r < rollouts, for every option i: play prefix + [i], switch to rollout stream r -> value
        append the option with the best value (common random numbers: stream r is the same for every option)

The algorithm is here (``begin``, ``probe``, ``rollout``, ``commit``, and the two hooks ``forced`` / ``chosen``
that each game's ``decide`` calls); the game supplies the play (its ``play_game``) and the value of a finished
rollout: (win 0/1, a tie-breaker the game declares). The best option has the most rollout wins; among
equals, the best tie-breaker total; among equals, the base policy's own choice, else the lowest index.

All hooks are off for every other policy (an empty control array): no decision changes, nothing is drawn.
Costs and the meaning of the budget: ``docs/search.md``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from .config import CACHE, JIT_DISABLED
from .errors import InputError
from .rng import _splitmix64, seed_stream

# --- the control array (int64), one per chunk of games --------------------------------------------------
C_PLEN = 0  # forced choices: the first C_PLEN multi-option decisions take ctl[CTL_HEAD + k]
C_SWITCH = 1  # 1: right after the last forced choice, switch to the rollout streams
C_COUNT = 2  # multi-option decisions met so far in this play
C_N = 3  # options at the recorded decision (0: no searched decision was met)
C_KIND = 4  # its kind
C_BASE = 5  # the base policy's choice there
C_ROLL = 6  # rollout stream number r
C_SEED = 7  # the run's seed (its 64 bits)
C_GAME = 8  # the game's index
C_MASK = 9  # decision kinds searched (bit k: kind k)
C_RECORD = 10  # 1 during a probe until the next searched decision is recorded
C_PLAYS = 11  # plays of the game so far (the probes and rollouts: the cost)
C_SEARCHED = 12  # decisions searched
C_FAULT = 13  # replay faults: a forced decision whose (kind, options, state) fingerprint differs from its record
C_CHECKED = 14  # forced decisions checked against their recorded fingerprint
C_TRACE = 15  # 1 while the real game is replayed into a trace (the search rows are written)
C_VTOP = 16  # next free word of the value area (searched decisions' rollout figures, for the trace)
CTL_HEAD = 24
#: Longest prefix kept; a game with more multi-option decisions plays the rest with the base policy.
MAX_PREFIX = 4096
CTL_FP = CTL_HEAD + MAX_PREFIX  # the fingerprint of decision k as first met (kind, n, state, options)
CTL_VAT = CTL_FP + MAX_PREFIX  # 1 + where decision k's search figures start in the value area (0: not searched)
CTL_SIZE = CTL_VAT + MAX_PREFIX
#: Words of value area a traced replay adds after ``CTL_SIZE`` (a simulation has none: nothing is kept).
VALUE_ROOM = 1 << 18
#: Most options compared at one decision (a larger menu is played by the base policy).
MAX_BRANCH = 512
#: Rows of the accumulator ``acc`` a driver passes to ``score``/``paired``/``commit``: wins, value sums,
#: paired differences against the base's choice, this rollout's values.
A_WIN, A_VAL, A_DIFF, A_NOW = 0, 1, 2, 3
ACC_ROWS = 4
#: Fixed-point scale of the figures kept for the trace (means x 1000).
FIX = 1000

#: Parameter vector of a search policy: rollouts, base, kinds, margin, progress, then the base's parameters.
P_ROLLOUTS, P_BASE, P_KINDS, P_MARGIN, P_PROGRESS, P_BASE_PARAMS = 0, 1, 2, 3, 4, 5
#: ``--param`` names and defaults are each game's (its ``PolicySpec``); these are the shared ranges.
RANGES = {"rollouts": (1.0, 4096.0), "kinds": (0.0, 2.0**30), "margin": (0.0, 100.0), "progress": (0.0, 100.0)}
_SALT = np.uint64(0xA0761D6478BD642F)


def no_search() -> np.ndarray:
    """The control array of every policy but search: empty, so every hook is off."""
    return np.zeros(0, dtype=np.int64)


def kernel_params(policy, builtins: dict, where: str = "--param") -> np.ndarray:
    """The parameter vector the kernel reads for a search policy: (rollouts, base id, kinds, margin,
    progress) then the base policy's default parameters. ``base`` must name a built-in (not search itself); rollouts and
    kinds must be whole numbers. Bad values: ``InputError`` (one line)."""
    vals = dict(zip(policy.param_names, (float(x) for x in policy.params)))
    for name in ("rollouts", "base", "kinds"):
        if vals[name] != int(vals[name]):
            raise InputError(f"policy parameter {name}={vals[name]:g} is not a whole number", where)
    bases = {b.policy_id: b for b in builtins.values() if b.name != policy.name and b.policy_id != policy.policy_id}
    base = bases.get(int(vals["base"]))
    if base is None:
        known = ", ".join(f"{i} {b.name}" for i, b in sorted(bases.items()))
        raise InputError(f"policy parameter base={vals['base']:g} is not a built-in policy id (known: {known})", where)
    head = [vals["rollouts"], vals["base"], vals["kinds"], vals["margin"], vals["progress"]]
    return np.array(head + list(base.params.values()), dtype=np.float64)


def base_description(builtins: dict, search_name: str = "search") -> str:
    """``0 random, 1 greedy, ...``: the ids ``base`` takes."""
    return ", ".join(f"{b.policy_id} {b.name}" for b in sorted(builtins.values(), key=lambda b: b.policy_id)
                     if b.name != search_name)


# --- the hooks each game's ``decide`` calls (off: an empty ``ctl``) -----------------------------------------
@njit(cache=CACHE, inline="always", _nrt=False)
def settings(params, searching, pid):
    """A driver's reading of its ``params``: (the id of the policy that decides, the length of that policy's own
    parameters at the end of ``params``, rollouts, kinds, margin, progress). Without the search (``searching``
    false) the policy is ``pid``, every parameter is its own and the search's settings are zeros. Read them before a
    ``prange`` loop: inside it numba hoists these loads out of their branch, and they read past the end of another
    policy's shorter ``params``."""
    if searching:
        return (np.int64(params[P_BASE]), np.int64(params.shape[0] - P_BASE_PARAMS), np.int64(params[P_ROLLOUTS]),
                np.int64(params[P_KINDS]), params[P_MARGIN], params[P_PROGRESS])
    return np.int64(pid), np.int64(params.shape[0]), np.int64(0), np.int64(0), 0.0, 0.0


@njit(cache=CACHE, inline="always", _nrt=False)
def forced(ctl, n):
    """At a multi-option decision, after the policy was asked (so it draws what it always draws, and a
    replay of the prefix consumes the same dice): the forced choice, or -1 (keep the policy's)."""
    if ctl.shape[0] == 0:
        return -1
    k = ctl[C_COUNT]
    if k < ctl[C_PLEN]:
        c = ctl[CTL_HEAD + k]
        return c if c < n else 0
    return -1


@njit(cache=CACHE, _nrt=False)
def fingerprint(kind, n, st, skip, opts):
    """A 64-bit fingerprint of a decision: its kind, its number of options, the state vector (but slot
    ``skip``: a count that differs between a traced and a quiet play; -1 none) and the ``n`` option rows.
    A weighted sum with odd weights: a change of any one word changes it."""
    h = np.int64(kind + 1) * np.int64(0x632BE59BD9B4E019) + np.int64(n) * np.int64(0x2545F4914F6CDD1D)
    w = np.int64(0x1B873593)
    step = np.int64(0x3C6EF372FE94F82A)  # even: every weight stays odd
    for i in range(st.shape[0]):
        if i != skip:
            h += st[i] * w
        w += step
    for r in range(n):
        for j in range(opts.shape[1]):
            h += opts[r, j] * w
            w += step
    return h


if JIT_DISABLED:  # the same sum, vectorized: a Python loop per decision would slow NUMBA_DISABLE_JIT runs

    def fingerprint(kind, n, st, skip, opts):  # noqa: F811
        vals = np.concatenate((st, opts[:n].ravel())).astype(np.int64)
        if skip >= 0:
            vals[skip] = 0
        w = np.int64(0x1B873593) + np.arange(vals.shape[0], dtype=np.int64) * np.int64(0x3C6EF372FE94F82A)
        h = np.int64(kind + 1) * np.int64(0x632BE59BD9B4E019) + np.int64(n) * np.int64(0x2545F4914F6CDD1D)
        return np.int64(h + (vals * w).sum())


@njit(cache=CACHE, inline="always", _nrt=False)
def chosen(ctl, kind, n, c, st, skip, opts):
    """After choice ``c`` at a multi-option decision: count it, check a forced decision against the
    fingerprint recorded when it was first met (a mismatch is a replay fault, ``C_FAULT``), record it
    during a probe; True when the streams must switch now (this was the last forced choice of a rollout)."""
    if ctl.shape[0] == 0:
        return False
    k = ctl[C_COUNT]
    ctl[C_COUNT] = k + 1
    plen = ctl[C_PLEN]
    if k < plen:
        ctl[C_CHECKED] += 1
        if fingerprint(kind, n, st, skip, opts) != ctl[CTL_FP + k]:
            ctl[C_FAULT] += 1
        return ctl[C_SWITCH] == 1 and k == plen - 1
    if ctl[C_RECORD] == 1:
        if plen >= MAX_PREFIX:
            ctl[C_RECORD] = 0
        elif (ctl[C_MASK] >> kind) & 1 and n <= MAX_BRANCH:
            ctl[C_N] = n
            ctl[C_KIND] = kind
            ctl[C_BASE] = c
            ctl[C_RECORD] = 0
            ctl[CTL_FP + plen] = fingerprint(kind, n, st, skip, opts)
        else:  # a decision the search leaves to the base policy: it joins the prefix as played
            ctl[CTL_HEAD + plen] = c
            ctl[CTL_FP + plen] = fingerprint(kind, n, st, skip, opts)
            ctl[CTL_VAT + plen] = 0
            ctl[C_PLEN] = plen + 1
    return False


@njit(cache=CACHE, inline="always", _nrt=False)
def traced_search(ctl):
    """Where the search figures of the decision just taken start in the value area (for the trace rows
    of a traced replay), or -1: not tracing, or not a searched decision, or no room was left."""
    if ctl.shape[0] == 0 or ctl[C_TRACE] == 0:
        return -1
    k = ctl[C_COUNT] - 1
    if k < 0 or k >= ctl[C_PLEN]:
        return -1
    return ctl[CTL_VAT + k] - 1


@njit(cache=CACHE, _nrt=False)
def rollout_seed(ctl):
    """The master seed of rollout stream r at decision m (the last forced choice): a function of (seed,
    m, r) only, so every option at m is played out on the same dice (common random numbers)."""
    k = _splitmix64(uint64(ctl[C_SEED]) ^ _SALT)
    k = _splitmix64(k ^ (uint64(ctl[C_PLEN] - 1) * uint64(0x9E3779B97F4A7C15)))
    return _splitmix64(k ^ (uint64(ctl[C_ROLL]) * uint64(0xBF58476D1CE4E5B9) + uint64(1)))


@njit(cache=CACHE, _nrt=False)
def switch(rs, ctl):
    """Re-key the dice stream ``rs`` to the rollout stream (forced dice of a test script end here too)."""
    seed_stream(rs, rollout_seed(ctl), ctl[C_GAME])
    rs[2] = uint64(1) << uint64(62)


@njit(cache=CACHE, _nrt=False)
def switch_policy(ps, ctl):
    """Re-key a policy's own stream ``ps`` (a game that has one) to the rollout's."""
    seed_stream(ps, rollout_seed(ctl) ^ _SALT, ctl[C_GAME])


# --- the driver's steps ------------------------------------------------------------------------------------------
@njit(cache=CACHE, _nrt=False)
def begin(ctl, seed, game, kinds, n_kinds):
    """A new game: empty prefix; ``kinds`` 0 searches every decision kind, else a bit mask of kinds."""
    for i in range(CTL_HEAD):
        ctl[i] = 0
    ctl[C_SEED] = np.int64(seed)
    ctl[C_GAME] = game
    ctl[C_MASK] = kinds if kinds > 0 else (1 << n_kinds) - 1
    ctl[C_VTOP] = CTL_SIZE


@njit(cache=CACHE, _nrt=False)
def probe(ctl):
    """Set up a play of the prefix on the real dice that records the next searched decision."""
    ctl[C_SWITCH] = 0
    ctl[C_COUNT] = 0
    ctl[C_N] = 0
    ctl[C_RECORD] = 1
    ctl[C_PLAYS] += 1


@njit(cache=CACHE, _nrt=False)
def replay_final(ctl):
    """Set up the real game again (the prefix on the real dice, nothing recorded): for a trace, with the
    search rows of each searched decision."""
    ctl[C_SWITCH] = 0
    ctl[C_COUNT] = 0
    ctl[C_RECORD] = 0
    ctl[C_TRACE] = 1


@njit(cache=CACHE, _nrt=False)
def rollout(ctl, plen, i, r):
    """Set up rollout r of option i at the recorded decision (prefix length ``plen``)."""
    ctl[CTL_HEAD + plen] = i
    ctl[C_PLEN] = plen + 1
    ctl[C_SWITCH] = 1
    ctl[C_COUNT] = 0
    ctl[C_RECORD] = 0
    ctl[C_ROLL] = r
    ctl[C_PLAYS] += 1


@njit(cache=CACHE, _nrt=False)
def clear(acc, n):
    """Zero the accumulator of a decision with ``n`` options."""
    for j in range(ACC_ROWS):
        for i in range(n):
            acc[j, i] = 0.0


@njit(cache=CACHE, inline="always", _nrt=False)
def score(acc, i, win, frac, progress):
    """Count rollout r of option i: a win (0/1) and how far it got (``frac``, the game's measure of
    progress, 0..1 for a lost game); its value is ``win + progress x frac``."""
    v = win + progress * frac
    acc[A_WIN, i] += win
    acc[A_VAL, i] += v
    acc[A_NOW, i] = v


@njit(cache=CACHE, _nrt=False)
def paired(ctl, acc, n):
    """After rollout r of every option (common dice): add each option's difference from the base
    policy's choice on this rollout."""
    b = ctl[C_BASE]
    for i in range(n):
        acc[A_DIFF, i] += acc[A_NOW, i] - acc[A_NOW, b]


@njit(cache=CACHE, _nrt=False)
def select(base, acc, n, rollouts, margin):
    """The option to take: the base policy's choice, unless another option's mean paired difference from
    it (over the rollouts, on common dice) exceeds ``margin``: then the option with the largest such
    difference (ties: the lowest index)."""
    best = base
    top = margin * rollouts
    for i in range(n):
        if i != base and acc[A_DIFF, i] > top:
            best = i
            top = acc[A_DIFF, i]
    return best


@njit(cache=CACHE, _nrt=False)
def commit(ctl, plen, acc, n, rollouts, margin):
    """Append the option ``select`` takes at the recorded decision; keep its figures for a trace when the
    control array has a value area (a traced replay). Returns the choice."""
    best = select(ctl[C_BASE], acc, n, rollouts, margin)
    ctl[CTL_HEAD + plen] = best
    ctl[CTL_VAT + plen] = 0
    top = ctl[C_VTOP]
    if top >= CTL_SIZE and top + 4 + 3 * n <= ctl.shape[0]:
        ctl[top] = n
        ctl[top + 1] = rollouts
        ctl[top + 2] = ctl[C_BASE]
        ctl[top + 3] = best
        for i in range(n):
            ctl[top + 4 + 3 * i] = np.int64(acc[A_WIN, i])
            ctl[top + 5 + 3 * i] = np.int64(np.floor(acc[A_VAL, i] * FIX / rollouts + 0.5))
            ctl[top + 6 + 3 * i] = np.int64(np.floor(acc[A_DIFF, i] * FIX / rollouts + 0.5))
        ctl[CTL_VAT + plen] = top + 1
        ctl[C_VTOP] = top + 4 + 3 * n
    ctl[C_PLEN] = plen + 1
    ctl[C_SEARCHED] += 1
    return best


# --- the words of the trace rows (each game's ``trace.py`` names its codes and fields the same way) ----------
# Options are numbered from 1 in the words ("option 2 of 5"), as in the decision rows of the traces.
def decision_words(f, kind_names) -> dict[str, str]:
    """Words of a searched decision's row (fields kind, options, rollouts, base, taken)."""
    k = f["kind"]
    return {"what": kind_names[k] if 0 <= k < len(kind_names) else f"kind {k}",
            "each": f"{f['rollouts']} rollout{'s' if f['rollouts'] != 1 else ''}",
            "taken_n": f["taken"] + 1,
            "verdict": ("keeps the base policy's choice" if f["taken"] == f["base"]
                        else f"overrides the base policy's choice, option {f['base'] + 1}")}


def option_words(f, ctx=None) -> dict[str, str]:
    """Words of one option's row (fields option, won, value, diff, flags)."""
    marks = {1: "  <- taken", 2: "  (the base's choice, not taken)", 3: "  <- taken (the base's choice)"}
    return {"number": f["option"] + 1, "value_": f"{f['value'] / FIX:.3f}", "diff_": f"{f['diff'] / FIX:+.3f}",
            "mark": marks.get(f["flags"], "")}


#: The templates both games use (their ``trace.py``: ``TraceCode(name, fields, template, words=...)``).
DECISION_FIELDS = ("kind", "options", "rollouts", "base", "taken")
DECISION_TEMPLATE = ("  search at the {what} decision: {options} options x {each} on common dice; "
                     "option {taken_n} taken ({verdict})")
OPTION_FIELDS = ("option", "won", "value", "diff", "flags")
OPTION_TEMPLATE = "    option {number}: {won} won, mean value {value_}, paired vs the base's choice {diff_}{mark}"
