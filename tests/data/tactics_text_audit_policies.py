"""A Dungeon Master for tests/test_text_audit_tactics.py, loaded through
``make_policy("tests/data/tactics_text_audit_policies.py:declines_spawns", T.DM_POLICIES)``.

The rule text: "the dungeon master *may* spawn one monster from the designated category". A DM who declines
answers the spawn question (``D_SPAWN_KIND``) with a row whose monster (``O_ARG``) is -1, "no monster", if the
engine offers one; otherwise (and for every other decision) option 0.
"""

from foury_sim.games.tactics.layout import D_SPAWN_KIND, O_ARG


def declines_spawns(kind, state, options, n_options, params):
    if kind == D_SPAWN_KIND:
        for j in range(n_options):
            if options[j, O_ARG] < 0:
                return j
    return 0
