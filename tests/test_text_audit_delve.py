"""Delve against its printed rule text (shared/seeds/001_0041a4206fd4d620.txt, Portuguese, with delve-facts.md):
the text audit of session 65. No sentence of the text was found contradicted by the engine; this file pins a
reading that no scripted test checked, recorded as a ruling in docs/rules-delve.md ("What may a Scroll reroll?").
Helpers and script values as tests/test_delve_rules.py.
"""

from __future__ import annotations

import pytest
from test_delve_rules import CHEST, GOB, POTION, cont, has, party, run, wish

from foury_sim.games import delve as D
from foury_sim.games.delve import layout as A
from foury_sim.policy import make_policy


@pytest.fixture(scope="module")
def scripted():
    return make_policy("tests/data/delve_policies.py:scripted", D.POLICIES)


def test_a_scroll_rerolls_a_chest_die_too(scripted):
    """Text, monster phase: "O aventureiro pode usar um pergaminho para fazer a rerolagem de qualquer número de
    dados do grupo e/ou da masmorra" (any party and/or dungeon dice; delve-facts.md: "not dragons"). Level 2
    rolls a goblin and a chest; the scroll die (to the Graveyard first) rerolls the chest, which comes up a
    potion: the goblin stays, the chest is gone."""
    script = party("S", "Ch", "Ch", "Ch", "Ch", "Ch", "Ch") + [GOB] + [GOB, CHEST] + [POTION]
    wishes = cont(0) + [wish(A.D_MONSTER, 2, A.A_SCROLL, A.U_PARTY + A.SCROLL),
                        wish(A.D_REROLL, 0, A.A_PICK, A.N_FACES + 3)]
    row, lines = run(scripted, script, wishes)
    has(lines, "Level 2, the dungeon rolls 2 dice: 1 goblin, 1 chest", "reroll a chest",
        "party: 5 champions; 2 dice in the graveyard", "the dungeon rolls 1 die: 1 goblin, 1 potion")
