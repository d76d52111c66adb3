"""A user policy: never flee, always swing the weapon, otherwise play like the built-in greedy.

Run it with:  foury-sim run foury --policy experiments/policies/brave.py:brave
"""

from foury_sim.games.foury.layout import D_FIGHT_ON, D_WEAPON
from foury_sim.games.foury.policies import GREEDY_PARAMS, greedy_decide


def brave(kind, state, options, n_options, params):
    if kind == D_FIGHT_ON:
        return 1  # option 1: fight on
    if kind == D_WEAPON:
        return 1  # option 1: add the weapon
    return greedy_decide(kind, state, options, n_options, GREEDY_PARAMS)
