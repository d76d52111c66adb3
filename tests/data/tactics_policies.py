"""User policies for Tactics, loaded in the tests through ``make_policy("tests/data/tactics_policies.py:NAME")``.

A policy is ``decide(kind, state, options, n_options, params) -> int``; the names it reads come from
``foury_sim.games.tactics.layout`` (plain ints, frozen by numba at compile time).
"""

from foury_sim.games.tactics.layout import A_END, D_ACTION, D_FIRST_DM, D_LAST_DM, O_ACTION, O_ARG, S_NACT


def scripted(kind, state, options, n_options, params):
    """The adventurer's i-th decision (of any of its kinds: actions, the Shrine of Freedom's door, the Gambler's
    Die; forced ones count) takes the option (action params[2i], arg params[2i+1]; arg -1: any); past the list an
    action ends the turn, any other decision takes option 0. A wish matching no option answers -1 (counted in
    bad_answers). The DM's decisions: option 0."""
    if kind >= D_FIRST_DM and kind <= D_LAST_DM:
        return 0
    i = state[S_NACT]
    if 2 * i + 1 < params.shape[0]:
        for j in range(n_options):
            arg = params[2 * i + 1]
            if options[j, O_ACTION] == params[2 * i] and (arg < 0 or options[j, O_ARG] == arg):
                return j
        return -1
    if kind != D_ACTION:
        return 0
    for j in range(n_options):
        if options[j, O_ACTION] == A_END:
            return j
    return n_options - 1
