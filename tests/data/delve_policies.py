"""User policies for Delve, loaded in the tests through ``make_policy("tests/data/delve_policies.py:NAME")``.

A policy is ``decide(kind, state, options, n_options, params) -> int``; the names it reads come
from ``foury_sim.games.delve.layout`` (plain ints, frozen by numba at compile time).
"""

from foury_sim.games.delve.layout import (
    A_CONTINUE,
    A_RETIRE,
    D_REGROUP,
    O_ACTION,
    O_ARG,
    O_N,
    S_LEVEL,
    S_NDEC_KIND,
    S_P_NEXT,
)


def cautious(kind, state, options, n_options, params):
    """Take the kernel's best-first option, and retire once the level reached is params[0]."""
    if kind == D_REGROUP:
        want = A_RETIRE if state[S_LEVEL] >= params[0] else A_CONTINUE
        for i in range(n_options):
            if options[i, O_ACTION] == want:
                return i
    return 0


def scripted(kind, state, options, n_options, params):
    """Follow wishes (kind, nth decision of that kind, action, arg or -1, O_N or -1) in params;
    any other decision takes option 0 (the best fight, DONE, retire...)."""
    i = 0
    while i + 4 < params.shape[0]:
        if params[i] == kind and params[i + 1] == state[S_NDEC_KIND + kind]:
            for j in range(n_options):
                if (
                    options[j, O_ACTION] == params[i + 2]
                    and (params[i + 3] < 0 or options[j, O_ARG] == params[i + 3])
                    and (params[i + 4] < 0 or options[j, O_N] == params[i + 4])
                ):
                    return j
            return -1  # a wish that matches nothing is a test bug: counted in bad_answers
        i += 5
    return 0


def out_of_range(kind, state, options, n_options, params):
    """A broken policy: answers one past the last option (an error for every game: ``check_answers``)."""
    return n_options


def odds_probe(kind, state, options, n_options, params):
    """Retire at the first regroup where the exact odds of the next level are known (``S_P_NEXT`` >= 0),
    else seek glory: without the ``needs_odds`` trait every delve goes on (see delve_policies_odds.py)."""
    if kind == D_REGROUP:
        want = A_RETIRE if state[S_P_NEXT] >= 0 else A_CONTINUE
        for i in range(n_options):
            if options[i, O_ACTION] == want:
                return i
    return 0
