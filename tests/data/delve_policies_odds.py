"""A user policy file that declares a trait: ``needs_odds`` makes Delve compute the exact chance of
clearing the next level for it (``S_P_NEXT``, ``O_P``), as for the built-in ``risk``."""

from foury_sim.games.delve.layout import A_CONTINUE, A_RETIRE, D_REGROUP, O_ACTION, S_P_NEXT

POLICY_TRAITS = ("needs_odds",)


def odds_probe(kind, state, options, n_options, params):
    """Retire at the first regroup where the odds are known (``S_P_NEXT`` >= 0), else seek glory."""
    if kind == D_REGROUP:
        want = A_RETIRE if state[S_P_NEXT] >= 0 else A_CONTINUE
        for i in range(n_options):
            if options[i, O_ACTION] == want:
                return i
    return 0
