"""User policies for Rooms, loaded in the tests through ``make_policy("tests/data/rooms_policies.py:NAME")``.

A policy is ``decide(kind, state, options, n_options, params) -> int``; the names it reads come from
``foury_sim.games.rooms.layout`` (plain ints, frozen by numba at compile time).
"""

from foury_sim.games.rooms.layout import (
    A_RESOLVE,
    D_ACT,
    D_PASS,
    D_RESOLVE,
    D_SHOP,
    O_ACTION,
    O_ARG,
    O_CELL,
    S_ACTS,
    S_SEAT,
)


def scripted(kind, state, options, n_options, params):
    """Wishes, four numbers per action of the game (``params``): (action, arg, pass, resolve). The i-th action
    (D_ACT) takes the option with O_ACTION = action and O_ARG = arg (arg -1: any; for A_WARP and A_MIRROR the arg
    is the target cell, O_CELL); a D_PASS inside it takes O_ACTION = pass; a D_RESOLVE takes the function
    ``resolve`` (-1: leave it for later) and a D_SHOP buys item ``pass`` (-1: leave). Past the list: option 0
    (end the turn, turn back, leave). A wish matching no option answers -1 (counted in bad_answers). Fight
    decisions: option 0."""
    if kind < D_ACT:
        return 0
    i = state[S_ACTS]
    if 4 * i + 3 >= params.shape[0]:
        return 0
    if kind == D_ACT:
        a = params[4 * i]
        arg = params[4 * i + 1]
        for j in range(n_options):
            if options[j, O_ACTION] == a:
                if arg < 0 or (options[j, O_CELL] == arg if a == 2 or a == 3 else options[j, O_ARG] == arg):
                    return j
        return -1
    if kind == D_PASS:
        for j in range(n_options):
            if options[j, O_ACTION] == params[4 * i + 2]:
                return j
        return -1
    if kind == D_SHOP:
        for j in range(n_options):
            if options[j, O_ACTION] == params[4 * i + 2]:
                return j
        return -1
    want = params[4 * i + 3]
    if kind == D_RESOLVE:
        if want < 0:
            return 0
        for j in range(n_options):
            if options[j, O_ACTION] == A_RESOLVE and options[j, O_ARG] == want:
                return j
        return -1
    return 0


def race_scripted(kind, state, options, n_options, params):
    """``scripted`` for the race: ``params[0]`` = numbers per seat (a multiple of 4), then each seat's wishes in
    seat order (the seat read from ``state[S_SEAT]``; the solo game reads the first). Fight decisions: option 0."""
    if kind < D_ACT:
        return 0
    size = int(params[0])
    base = 1 + (max(state[S_SEAT], 1) - 1) * size  # the solo game: seat 0, the first wishes
    i = state[S_ACTS]
    if 4 * i + 3 >= size:
        return 0
    at = base + 4 * i
    if kind == D_ACT:
        for j in range(n_options):
            if options[j, O_ACTION] == params[at]:
                if params[at + 1] < 0 or options[j, O_ARG] == params[at + 1]:
                    return j
        return -1
    if kind == D_PASS or kind == D_SHOP:
        for j in range(n_options):
            if options[j, O_ACTION] == params[at + 2]:
                return j
        return -1
    if kind == D_RESOLVE:
        if params[at + 3] < 0:
            return 0
        for j in range(n_options):
            if options[j, O_ACTION] == A_RESOLVE and options[j, O_ARG] == params[at + 3]:
                return j
        return -1
    return 0
