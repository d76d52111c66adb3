"""Example Dungeon Master policies for Tactics, for ``--dm FILE.py[:FUNCTION]`` (default function ``decide``).

A DM policy has the player's signature, ``decide(kind, state, options, n_options, params) -> int`` (an option row
index), and answers the DM's decision kinds (``foury_sim/games/tactics/layout.py``):

* ``D_SPAWN_KIND``: which monster of the rolled category spawns: one row per kind (``O_ARG`` its row of the
  monster table, ``O_VALUE`` its HP x dice), then, with ``rulings.spawn_optional`` (the text's "may spawn", the
  default), a last row "no monster" (``O_ARG`` -1, ``O_VALUE`` 0) that spawns nothing;
* ``D_SPAWN_AT``: at which free spawn point: one row per point (``O_CELL`` the tile, ``O_VALUE`` its distance to
  the player);
* ``D_DM_ACT``: which awake monster does what: rows ``A_M_ATTACK`` / ``A_M_SHOOT`` (``O_VALUE`` its dice),
  ``A_M_MOVE`` (one step of its bee-line: ``O_CELL`` the tile, ``O_GOAL`` that tile's distance to the player),
  ``A_M_REVIVE``; ``O_ARG`` / ``O_MON`` the monster's slot, ``O_COST`` the DM AP; the last row, ``A_DM_END``,
  ends the DM's turn. The kernel asks again after every action until the DM ends or its AP runs out.

    foury-sim run tactics --map crypt --dm experiments/policies/tactics_dm.py              # decide: "lazy"
    foury-sim run tactics --map crypt --dm experiments/policies/tactics_dm.py:idle
    foury-sim run tactics --map crypt --dm experiments/policies/tactics_dm.py --dm-param walk=1
"""

from foury_sim.games.tactics.layout import (
    A_DM_END,
    A_M_ATTACK,
    A_M_MOVE,
    A_M_SHOOT,
    D_DM_ACT,
    D_SPAWN_AT,
    D_SPAWN_KIND,
    O_ACTION,
    O_ARG,
    O_VALUE,
)

POLICY_PARAMS = {"walk": 0.0}


def decide(kind, state, options, n_options, params):
    """A lazy DM: spawns the weakest kind at the spawn point farthest from the player; its monsters attack or
    shoot when they can but never walk towards the player (walk = 1: they do, after every attack)."""
    if kind == D_SPAWN_KIND or kind == D_SPAWN_AT:
        best = 0
        for i in range(1, n_options):
            if kind == D_SPAWN_KIND and options[i, O_ARG] < 0:
                continue  # ("no monster": this DM always spawns)
            better = options[i, O_VALUE] < options[best, O_VALUE] if kind == D_SPAWN_KIND else \
                options[i, O_VALUE] > options[best, O_VALUE]
            if better:
                best = i
        return best
    if kind == D_DM_ACT:
        for i in range(n_options):
            if options[i, O_ACTION] == A_M_ATTACK or options[i, O_ACTION] == A_M_SHOOT:
                return i
        if params[0] > 0:
            for i in range(n_options):
                if options[i, O_ACTION] == A_M_MOVE:
                    return i
    for i in range(n_options):
        if options[i, O_ACTION] == A_DM_END:
            return i
    return n_options - 1


def idle(kind, state, options, n_options, params):
    """A DM whose monsters never act: it ends its turn at once (spawns still happen: the first kind, the first
    spawn point)."""
    return n_options - 1 if kind == D_DM_ACT else 0


def first(kind, state, options, n_options, params):
    """Always the first option: on a level without spawn points the same games as ``by_the_book`` (whose monsters
    act in menu order; it draws only its spawn choices from the dice)."""
    return 0
