"""A scripted Dungeon Foury policy for the rule tests (a user policy: ``scripted.py:scripted``).

Everything lives in the ``params`` vector (built by ``tests/foury_helpers.py``):

* one queue of choices per decision kind, consumed in order (a cursor per kind is stored back in
  ``params``), and a default choice per kind for when its queue is empty;
* a decision log: for every decision the kernel asks (it does not ask when there is a single
  option), the kind, the number of options, the chosen index, a snapshot of a few state values
  and a key for each of the first ``LOG_KEYS`` options.

A choice value selects the option whose key equals it:

* moves (move, extra_move, place): ``v < 1000`` the first option whose destination (O_TO) is
  ``v``; ``v >= 1000`` the option with ``(O_KIND + 1) * 1000 + O_TO == v``;
* clover: ``action * 100 + (die + 1) * 10 + value`` (0 = no clover);
* reroll: ``action * 10 + value`` (keep: the face showing, 1..6; reroll: 10; Melyra sets v: 20 + v);
* market: ``op * 100 + (a + 1) * 10 + (b + 1)`` (0 = done);
* every other kind: the option's first column (a track, an arrow, 0/1, -1 keep a cornucopia);
* ``-100`` the first option, ``-101`` the last one.

No option with that key: the policy returns -1, which the kernel counts in S_BAD_CHOICE (and then
takes option 0); the tests assert that count.
"""

from numba import njit

from foury_sim.games.foury.layout import (
    D_CLOVER,
    D_EXTRA,
    D_MARKET,
    D_MOVE,
    D_PLACE,
    D_REROLL,
    N_DECISIONS,
    O_FROM,
    O_KIND,
    O_PATH,
    O_TO,
    S_BONUS,
    S_CHESTV,
    S_DIR,
    S_KILLS_ROUND,
    S_PHASE,
    S_POS,
    S_REQ_DONE,
    S_ROUND,
    S_TURN,
)

N_KINDS = N_DECISIONS  # one queue per decision kind of the layout (a new kind cannot be forgotten here)
P_DEFAULT = 0
P_QSTART = N_KINDS
P_QLEN = 2 * N_KINDS
P_QPOS = 3 * N_KINDS
P_LOG_START = 4 * N_KINDS
P_LOG_CAP = P_LOG_START + 1
P_LOG_N = P_LOG_START + 2
HEADER = P_LOG_START + 4
# state values logged with every decision (the seven tracks first; names in foury_helpers.SNAP_NAMES)
SNAP = (0, 1, 2, 3, 4, 5, 6, S_POS, S_DIR, S_KILLS_ROUND, S_ROUND, S_PHASE, S_REQ_DONE, S_BONUS, S_CHESTV, S_TURN)
LOG_KEYS = 40
LOG_ROW = 3 + 16 + LOG_KEYS
FIRST = -100
LAST = -101


@njit(cache=False)
def is_move(kind):
    return kind == D_MOVE or kind == D_EXTRA or kind == D_PLACE


@njit(cache=False)
def option_key(kind, options, i):
    if is_move(kind):
        return ((options[i, O_KIND] * 100 + options[i, O_FROM]) * 100 + options[i, O_TO]) * 100 + options[i, O_PATH]
    if kind == D_CLOVER:
        return options[i, 0] * 100 + (options[i, 1] + 1) * 10 + options[i, 2]
    if kind == D_MARKET:
        return options[i, 0] * 100 + (options[i, 1] + 1) * 10 + (options[i, 2] + 1)
    if kind == D_REROLL:
        return options[i, 0] * 10 + options[i, 1]
    return options[i, 0]


@njit(cache=False)
def match(kind, v, options, n):
    if v == FIRST:
        return 0
    if v == LAST:
        return n - 1
    for i in range(n):
        if is_move(kind):
            if v < 1000:
                if options[i, O_TO] == v:
                    return i
            elif (options[i, O_KIND] + 1) * 1000 + options[i, O_TO] == v:
                return i
        elif option_key(kind, options, i) == v:
            return i
    return -1


@njit(cache=False)
def scripted(kind, state, options, n_options, params):
    q = int(params[P_QPOS + kind])
    if q < int(params[P_QLEN + kind]):
        v = int(params[int(params[P_QSTART + kind]) + q])
        params[P_QPOS + kind] = q + 1
    else:
        v = int(params[P_DEFAULT + kind])
    c = match(kind, v, options, n_options)
    k = int(params[P_LOG_N])
    if k < int(params[P_LOG_CAP]):
        row = int(params[P_LOG_START]) + k * LOG_ROW
        params[row] = kind
        params[row + 1] = n_options
        params[row + 2] = c
        for j in range(16):
            params[row + 3 + j] = state[SNAP[j]]
        for i in range(min(n_options, LOG_KEYS)):
            params[row + 19 + i] = option_key(kind, options, i)
        params[P_LOG_N] = k + 1
    return c
