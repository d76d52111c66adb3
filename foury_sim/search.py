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

from .config import CACHE
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
CTL_HEAD = 16
#: Longest prefix kept; a game with more multi-option decisions plays the rest with the base policy.
MAX_PREFIX = 4096
CTL_SIZE = CTL_HEAD + MAX_PREFIX
#: Most options compared at one decision (a larger menu is played by the base policy).
MAX_BRANCH = 512

#: Parameter vector of a search policy: rollouts, base, kinds, then the base policy's own parameters.
P_ROLLOUTS, P_BASE, P_KINDS, P_BASE_PARAMS = 0, 1, 2, 3
#: ``--param`` names and defaults are each game's (its ``PolicySpec``); these are the shared ranges.
RANGES = {"rollouts": (1.0, 4096.0), "kinds": (0.0, 2.0**30)}
_SALT = np.uint64(0xA0761D6478BD642F)


def no_search() -> np.ndarray:
    """The control array of every policy but search: empty, so every hook is off."""
    return np.zeros(0, dtype=np.int64)


def kernel_params(policy, builtins: dict, where: str = "--param") -> np.ndarray:
    """The parameter vector the kernel reads for a search policy: (rollouts, base id, kinds) then the
    base policy's default parameters. ``base`` must name a built-in (not search itself); rollouts and
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
    head = [vals["rollouts"], vals["base"], vals["kinds"]]
    return np.array(head + list(base.params.values()), dtype=np.float64)


def base_description(builtins: dict, search_name: str = "search") -> str:
    """``0 random, 1 greedy, ...``: the ids ``base`` takes."""
    return ", ".join(f"{b.policy_id} {b.name}" for b in sorted(builtins.values(), key=lambda b: b.policy_id)
                     if b.name != search_name)


# --- the hooks each game's ``decide`` calls (off: an empty ``ctl``) -----------------------------------------
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


@njit(cache=CACHE, inline="always", _nrt=False)
def chosen(ctl, kind, n, c):
    """After choice ``c`` at a multi-option decision: count it, record it during a probe; True when the
    streams must switch now (this was the last forced choice of a rollout)."""
    if ctl.shape[0] == 0:
        return False
    k = ctl[C_COUNT]
    ctl[C_COUNT] = k + 1
    plen = ctl[C_PLEN]
    if k < plen:
        return ctl[C_SWITCH] == 1 and k == plen - 1
    if ctl[C_RECORD] == 1:
        if plen >= MAX_PREFIX:
            ctl[C_RECORD] = 0
        elif (ctl[C_MASK] >> kind) & 1 and n <= MAX_BRANCH:
            ctl[C_N] = n
            ctl[C_KIND] = kind
            ctl[C_BASE] = c
            ctl[C_RECORD] = 0
        else:  # a decision the search leaves to the base policy: it joins the prefix as played
            ctl[CTL_HEAD + plen] = c
            ctl[C_PLEN] = plen + 1
    return False


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
    """Set up the real game again (the prefix on the real dice, nothing recorded): for a trace."""
    ctl[C_SWITCH] = 0
    ctl[C_COUNT] = 0
    ctl[C_RECORD] = 0


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
def commit(ctl, plen, wins, ties, n):
    """Append the best option at the recorded decision: most wins, then best tie-breaker, then the base
    policy's choice, then the lowest index. Returns the choice."""
    best = ctl[C_BASE]
    for i in range(n):  # strictly better only: the base's choice wins ties, else the first of the best
        if wins[i] > wins[best] or (wins[i] == wins[best] and ties[i] > ties[best]):
            best = i
    ctl[CTL_HEAD + plen] = best
    ctl[C_PLEN] = plen + 1
    ctl[C_SEARCHED] += 1
    return best
