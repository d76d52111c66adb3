"""The 8 base heroes, both sides: each specialty and each ultimate with scripted dice.

The master side is tested with ``xp.master_at=0`` (the hero starts as master)."""

from __future__ import annotations

import pytest
from test_delve_rules import CHEST, DRAGON, GOB, OOZE, POS, POTION, SKEL, cont, has, party, run, wish

from foury_sim.errors import InputError
from foury_sim.games import delve as D
from foury_sim.games.delve import layout as A
from foury_sim.policy import make_policy

MASTER = ["xp.master_at=0"]
ALL_SCROLLS = party(*["S"] * 7)


@pytest.fixture(scope="module")
def scripted():
    return make_policy("tests/data/delve_policies.py:scripted", D.POLICIES)


def test_every_base_hero_is_defined():
    rs = D.load_ruleset()
    assert D.heroes(rs) == [
        "none",
        "spellsword",
        "mercenary",
        "knight",
        "half_goblin",
        "minstrel",
        "enchantress",
        "occultist",
        "crusader",
    ]
    assert rs.hero_names["minstrel"] == ("Minstrel", "Bard")


@pytest.mark.parametrize(
    "hero, face, monster, sets",
    [
        ("spellsword", "F", OOZE, []),
        ("spellsword", "M", GOB, MASTER),
        ("minstrel", "T", OOZE, []),
        ("occultist", "C", OOZE, []),
        ("occultist", "M", SKEL, MASTER),
        ("crusader", "F", SKEL, []),
        ("crusader", "C", GOB, MASTER),
    ],
)
def test_act_as_specialties(scripted, hero, face, monster, sets):
    """The cheaper die acting as another type sweeps two monsters a plain party needs the champion for."""
    script = party(face, "Ch", "S", "S", "S", "S", "S") + [CHEST] + [monster, monster]
    name = {"F": "fighter", "C": "cleric", "M": "mage", "T": "thief"}[face]
    row, lines = run(scripted, script, cont(0), hero=hero, sets=sets)
    has(lines, f"spends 1 {name} die", "monsters defeated")
    row, lines = run(scripted, script, cont(0), hero="none")
    has(lines, "spends 1 champion die")


def test_minstrel_mages_open_every_chest_as_thieves(scripted):
    script = party("M", "S", "S", "S", "S", "S", "S") + [DRAGON] + [CHEST, CHEST]
    for sets in ([], MASTER):
        row, lines = run(scripted, script, cont(0) + [wish(A.D_LOOT, 0, A.A_OPEN, A.MAGE)], hero="minstrel", sets=sets)
        has(lines, "open 2 chests with a mage die")
    row, lines = run(scripted, script, cont(0) + [wish(A.D_LOOT, 0, A.A_OPEN, A.MAGE)])
    has(lines, "open 1 chest with a mage die")


@pytest.mark.parametrize("hero, name", [("spellsword", "Arcane Blade"), ("crusader", "Holy Strike")])
def test_hero_acts_as_a_companion(scripted, hero, name):
    row, lines = run(scripted, ALL_SCROLLS + [GOB], hero=hero)
    has(lines, f"spends the hero ({name})", "monsters defeated")
    row, lines = run(scripted, ALL_SCROLLS + [GOB] + [CHEST], hero=hero, sets=["rulings.scroll_phases=[]"])
    has(lines, f"spends the hero ({name})")


def test_battlemage_arcane_fury_discards_everything(scripted):
    script = party("F", "F", "F", "F", "F", "F", "F") + [DRAGON] + [DRAGON, SKEL]
    wishes = cont(0) + [wish(A.D_MONSTER, 1, A.A_ULTIMATE)]
    row, lines = run(scripted, script, wishes, hero="spellsword", sets=MASTER)
    has(lines, "ultimate: Arcane Fury", "Level 2, the dungeon now: nothing; 0 dragons in the Lair")
    assert row["fled"] == 0 and row["dragons_faced"] == 0


def test_mercenary_rerolls_when_forming(scripted):
    script = party("S", "S", "F", "F", "F", "C", "M") + party("Ch", "T") + [CHEST]
    wishes = [wish(A.D_REROLL, 0, A.A_PICK, A.SCROLL), wish(A.D_REROLL, 1, A.A_PICK, A.SCROLL)]
    for sets in ([], MASTER):
        row, lines = run(scripted, script, wishes, hero="mercenary", sets=sets)
        has(lines, "   party: 3 fighters, 1 cleric, 1 mage, 1 thief, 1 champion; 0 dice in the graveyard")


def test_mercenary_calculated_strike(scripted):
    script = ALL_SCROLLS + [CHEST] + [GOB, SKEL]
    wishes = cont(0) + [wish(A.D_MONSTER, 0, A.A_ULTIMATE, 0, 2)]
    row, lines = run(scripted, script, wishes, hero="mercenary", sets=["rulings.scroll_phases=[]"])
    has(lines, "ultimate: Calculated Strike", "Level 2, the dungeon now: nothing; 0 dragons in the Lair")
    assert row["fled"] == 0 and row["xp"] == 2


def test_calculated_strike_may_target_dragons_as_a_ruling(scripted):
    script = ALL_SCROLLS + [DRAGON] + [DRAGON, GOB]
    wishes = cont(0) + [wish(A.D_MONSTER, 1, A.A_ULTIMATE, 2, 3)]
    sets = [
        "rulings.scroll_phases=[]",
        "heroes.mercenary.novice.ultimate.n=3",
        'heroes.mercenary.novice.ultimate.monsters=["goblin","skeleton","ooze","dragon"]',
    ]
    row, lines = run(scripted, script, wishes, hero="mercenary", sets=sets)
    has(lines, "ultimate: Calculated Strike", "Level 2, the dungeon now: nothing; 0 dragons in the Lair")


def test_commander_fighters_defeat_an_extra_monster(scripted):
    script = party("F", "S", "S", "S", "S", "S", "S") + [CHEST] + [SKEL, OOZE]
    row, lines = run(scripted, script, cont(0), hero="mercenary", sets=MASTER)
    has(lines, "spends 1 fighter die", "monsters defeated")
    row, lines = run(scripted, script, cont(0) + [wish(A.D_MONSTER, 1, A.A_FLEE)], hero="mercenary")
    has(lines, "flees from the monsters")


def test_commander_battlefield_presence_rerolls(scripted):
    script = party("F", "F", "F", "F", "F", "F", "F") + [GOB] + [CHEST]
    wishes = [wish(A.D_MONSTER, 0, A.A_ULTIMATE), wish(A.D_REROLL, 1, A.A_PICK, A.N_FACES)]  # 0: forming
    row, lines = run(scripted, script, wishes, hero="mercenary", sets=MASTER)
    has(lines, "ultimate: Battlefield Presence", "Level 1, the dungeon rolls 1 die: 1 chest")


def test_knight_scrolls_become_champions(scripted):
    for sets in ([], MASTER):
        row, lines = run(scripted, party("S", "S", "F", "F", "F", "C", "M") + [CHEST], hero="knight", sets=sets)
        has(lines, "forming the party: 2 scrolls become champions",
            "   party: 3 fighters, 1 cleric, 1 mage, 2 champions")


def test_knight_battlecry_sends_monsters_to_the_lair(scripted):
    script = party("F", "F", "F", "F", "F", "F", "F") + [CHEST] + [GOB, SKEL]
    for sets in ([], MASTER):
        row, lines = run(scripted, script, cont(0) + [wish(A.D_MONSTER, 0, A.A_ULTIMATE)], hero="knight", sets=sets)
        has(lines, "ultimate: Battlecry", "Level 2, the dungeon now: nothing; 2 dragons in the Lair")


def test_dragon_slayer_needs_two_types(scripted):
    script = party("F", "C", "F", "F", "F", "F", "F") + [DRAGON] + [DRAGON, DRAGON, POS["vorpal"]]
    row, lines = run(scripted, script, cont(0), hero="knight", sets=MASTER)
    has(lines, "it takes 2 different companions", "the dragon is slain")
    row, lines = run(scripted, script, cont(0), hero="knight")
    has(lines, "flees from the dragon")


def test_half_goblin_loots_during_the_monster_phase(scripted):
    script = party("Ch", "S", "S", "S", "S", "S", "S") + [CHEST] + [GOB, POTION]
    wishes = cont(0) + [wish(A.D_MONSTER, 1, A.A_QUAFF, A.SCROLL), wish(A.D_REVIVE, 0, A.A_FACE, A.FIGHTER)]
    for sets in ([], MASTER):
        row, lines = run(scripted, script, wishes, hero="half_goblin", sets=sets)
        i = next(i for i, line in enumerate(lines) if "decide the monster phase (option" in line and "done" not in line)
        assert "quaff the potions with a scroll die, reviving 1" in lines[i]
        has(lines, "a fighter comes back", "monsters defeated")


@pytest.mark.parametrize("sets, goblins, turned", [([], 2, 1), (MASTER, 3, 2)])
def test_half_goblin_goblins_become_thieves(scripted, sets, goblins, turned):
    script = ALL_SCROLLS + [CHEST] + [GOB, GOB] if goblins == 2 else ALL_SCROLLS + [CHEST] + [CHEST, CHEST] + [GOB] * 3
    wishes = cont(0, 1) + [wish(A.D_MONSTER, 0, A.A_ULTIMATE, 0, turned)]
    row, lines = run(scripted, script, wishes, hero="half_goblin", sets=["rulings.scroll_phases=[]", *sets])
    has(lines, "spends 1 temporary thief", "monsters defeated")
    assert row["fled"] == 0


def test_bard_song_discards_the_lair(scripted):
    script = party("F", "F", "F", "F", "F", "F", "F") + [DRAGON] + [DRAGON, DRAGON]
    for sets in ([], MASTER):
        row, lines = run(scripted, script, cont(0), hero="minstrel", sets=sets)
        has(lines, "ultimate: Bard Song")
        assert row["fled"] == 0 and row["dragons_slain"] == 0


def test_bard_song_with_an_empty_lair_is_offered_and_spends_the_ultimate_for_nothing(scripted):
    """A ruling (docs/rules-delve.md): the text lets the Bard "discard all Lair dice" and forbids it nowhere, so it
    is offered with an empty Lair too; it discards nothing and spends the ultimate (a policy that picks it then wastes
    it)."""
    row, lines = run(scripted, party("F", "F", "F", "F", "F", "F", "F") + [GOB], [wish(A.D_MONSTER, 0, A.A_ULTIMATE)],
                     hero="minstrel")
    has(lines, "0 dragons to the Lair (0 dragons there)", "the hero's ultimate, Bard Song", "ultimate: Bard Song",
        "Level 1, the dungeon now: 1 goblin; 0 dragons in the Lair", "decide the monster phase (option 1 of 1): fight")
    assert row["bad_answers"] == 0 and row["dragons_slain"] == 0


def test_bard_champions_defeat_an_extra_monster(scripted):
    script = party("Ch", "S", "S", "S", "S", "S", "S") + [CHEST] + [GOB, SKEL]
    row, lines = run(scripted, script, cont(0), hero="minstrel", sets=MASTER)
    has(lines, "spends 1 champion die", "monsters defeated")
    row, lines = run(scripted, script, cont(0) + [wish(A.D_MONSTER, 1, A.A_FLEE)], hero="minstrel")
    has(lines, "flees")


def test_enchantress_scrolls_act_as_any_companion(scripted):
    for sets in ([], MASTER):
        row, lines = run(scripted, ALL_SCROLLS + [GOB], hero="enchantress", sets=sets)
        has(lines, "spends 1 scroll die", "monsters defeated")


@pytest.mark.parametrize("sets, n, after", [([], 1, "1 skeleton, 1 potion"), (MASTER, 2, "2 potions")])
def test_enchantress_charms_monsters_into_potions(scripted, sets, n, after):
    script = party("F", "F", "F", "F", "F", "F", "F") + [CHEST] + [SKEL, OOZE]
    wishes = cont(0) + [wish(A.D_MONSTER, 0, A.A_ULTIMATE, 0, n)]
    row, lines = run(scripted, script, wishes, hero="enchantress", sets=sets)
    has(lines, f"Level 2, the dungeon now: {after}; 0 dragons in the Lair")


@pytest.mark.parametrize("sets, skeletons", [([], 1), (MASTER, 2)])
def test_occultist_skeletons_become_fighters(scripted, sets, skeletons):
    script = ALL_SCROLLS + [CHEST] + [SKEL] * skeletons + [GOB] * (2 - skeletons)
    wishes = cont(0) + [wish(A.D_MONSTER, 0, A.A_ULTIMATE, 0, skeletons)]
    row, lines = run(scripted, script, wishes, hero="occultist", sets=["rulings.scroll_phases=[]", *sets])
    if skeletons == 1:
        has(lines, "spends 1 temporary fighter", "monsters defeated")
    else:
        has(lines, "ultimate: Command Dead", "Level 2, the dungeon now: nothing")
    assert row["fled"] == 0


def test_paladin_divine_intervention(scripted):
    script = party("Ch", "S", "S", "S", "S", "S", "S") + [CHEST, POS["vorpal"]] + [GOB, SKEL]
    wishes = [wish(A.D_LOOT, 0, A.A_OPEN, A.CHAMPION)] + cont(0) + [wish(A.D_MONSTER, 0, A.A_ULTIMATE)]
    row, lines = run(scripted, script, wishes, hero="crusader", sets=["rulings.scroll_phases=[]", *MASTER])
    has(lines, "ultimate: Divine Intervention", "Level 2, the dungeon now: nothing; 0 dragons in the Lair")
    assert (row["treasures"], row["fled"]) == (0, 0)


def test_paladin_divine_intervention_on_a_level_without_monsters(scripted):
    """rulings.empty_monster_phase: level 3 rolls no monster, 2 chests and the third dragon; Divine Intervention
    (the Vorpal Sword discarded) opens both chests and empties the Lair in the monster phase. Level 2 (2 dragons,
    the sword in hand) asks too: "done" goes on."""
    script = party("Ch", "S", "S", "S", "S", "S", "S") + [CHEST, POS["vorpal"]] + [DRAGON, DRAGON]
    script += [DRAGON, CHEST, CHEST] + [POS["scales"], POS["scales"]]
    wishes = [wish(A.D_LOOT, 0, A.A_OPEN, A.CHAMPION)] + cont(0, 1) + [wish(A.D_MONSTER, 1, A.A_ULTIMATE, 0)]
    row, lines = run(scripted, script, wishes, hero="crusader", sets=["rulings.scroll_phases=[]", *MASTER])
    has(lines, "ultimate: Divine Intervention", "Level 3, the dungeon now: nothing; 0 dragons in the Lair")
    assert (row["fled"], row["dragons_faced"], row["chests"], row["treasures"]) == (0, 0, 3, 2)


def test_paladin_divine_intervention_in_the_dragon_phase(scripted):
    """Divine Intervention empties the Lair in the dragon phase too (heroes.crusader.master.ultimate.phases, an
    ASSUMPTION): 1 champion and 6 scrolls cannot fight the dragon; the Dragon Scales (1 point) are discarded, the
    Lair empties, nothing is won, the party goes on. With the phases ["monster"] (before session 67) it flees.
    The monster phases ask nothing (rulings.empty_monster_phase=false)."""
    script = party("Ch", "S", "S", "S", "S", "S", "S") + [CHEST, POS["scales"]] + [CHEST, CHEST] + [DRAGON] * 3
    wishes = [wish(A.D_LOOT, 0, A.A_OPEN, A.CHAMPION)] + cont(0, 1) + [wish(A.D_DRAGON, 0, A.A_ULTIMATE, 6)]
    sets = ["rulings.scroll_phases=[]", "rulings.empty_monster_phase=false", *MASTER]
    row, lines = run(scripted, script, wishes, hero="crusader", sets=sets)
    has(lines, "ultimate: Divine Intervention", "Level 3, the dungeon now: nothing; 0 dragons in the Lair")
    assert (row["fled"], row["dragons_faced"], row["dragons_slain"], row["treasures"], row["xp"]) == (0, 1, 0, 0, 3)
    row, lines = run(scripted, script, wishes[:3], hero="crusader",
                     sets=[*sets, 'heroes.crusader.master.ultimate.phases=["monster"]'])
    assert (row["fled"], row["treasures"]) == (1, 1)


def test_ultimate_phases_are_validated():
    """Divine Intervention may name the dragon phase; no ultimate the loot phase but the hero companion."""
    D.load_ruleset(None, ['heroes.crusader.master.ultimate.phases=["monster","dragon"]'])
    D.load_ruleset(None, ['heroes.crusader.master.ultimate.phases=["dragon"]'])
    with pytest.raises(InputError, match="cannot be used in the loot phase"):
        D.load_ruleset(None, ['heroes.crusader.master.ultimate.phases=["loot"]'])


def test_master_at_five_xp_and_ultimate_once_per_delve(scripted):
    rs = D.load_ruleset()
    r = D.simulate(rs, "knight", make_policy("threshold", D.POLICIES), 9, 0, 2000)
    assert set(r["master"]) <= {0, 1} and r["master"][r["xp"] >= 5].min() == 1
    assert r["master"][r["xp"] < 5].max(initial=0) == 0
    # once per delve: a second Calculated Strike is not offered after the first
    script = ALL_SCROLLS + [GOB] + [GOB]
    wishes = cont(0) + [wish(A.D_MONSTER, 0, A.A_ULTIMATE, 0, 1), wish(A.D_MONSTER, 1, A.A_ULTIMATE)]
    row, lines = run(scripted, script, wishes[:2], hero="mercenary", sets=["rulings.scroll_phases=[]"])
    assert "decide the monster phase (option 1 of 1): flee" in lines[-6:][0] or row["fled"] == 1
    assert row["fled"] == 1 and sum("ultimate:" in line for line in lines) == 1
