"""Rules of docs/rules-delve.md that had no test of their own (the rule-coverage audit): one scripted game each,
with the dice forced through ``script`` and the choices through the ``scripted`` user policy, as in
tests/test_delve_rules.py (its helpers and script values are reused). Every expected number is worked out in the
docstring from the rule as the doc writes it, citing its section."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_delve_rules import CHEST, DRAGON, GOB, OOZE, POS, POTION, SKEL, cont, has, party, run, wish

from foury_sim.games import delve as D
from foury_sim.games.delve import layout as A
from foury_sim.policy import make_policy

NO_SCROLLS = ["rulings.scroll_phases=[]"]  # keeps scroll options out of the menus the test does not look at
ALL_SCROLLS = party(*"SSSSSSS")
#: Every treasure kind of the shipped rules at count 0: an empty treasure pool.
EMPTY_POOL = [f"treasures.{k}.count=0" for k in
              tomllib.loads((Path(D.__file__).parent / "data" / "rules.toml").read_text())["treasures"]]


@pytest.fixture(scope="module")
def scripted():
    return make_policy("tests/data/delve_policies.py:scripted", D.POLICIES)


def run_counting(pol, script, wishes=(), hero="none", sets=()):
    """``run`` without its check on unmatched wishes: returns the row (``bad_answers`` counts the wishes that
    matched no option, i.e. options the menu did not offer) and the report."""
    rs = D.load_ruleset(None, ["delves=1", *sets])
    params = np.array([x for w in wishes for x in w], dtype=np.float64)
    return D.play_one(rs, hero, replace(pol, params=params), 0, 0, script)


def count(lines, text):
    return sum(text in line for line in lines)


# --- the game table ------------------------------------------------------------------------------------------------
def test_leftover_chests_and_potions_are_discarded(scripted):
    """"The game", Leftovers: unused chests and potions are discarded. Level 1 rolls 1 chest, left unopened (DONE);
    level 2 rolls a chest and a potion. A thief opens "any number" of chests (Loot: chests), so had level 1's chest
    stayed it would open 2; it opens exactly 1, draws 1 token, and the row counts 1 chest."""
    script = party("F", "C", "M", "T", "Ch", "S", "S") + [CHEST] + [POTION, CHEST, POS["vorpal"]]
    row, lines = run(scripted, script, cont(0) + [wish(A.D_LOOT, 1, A.A_OPEN, A.THIEF)])
    has(lines, "Level 2, the dungeon rolls 2 dice: 1 chest, 1 potion", "open 1 chest with a thief die")
    assert count(lines, "treasure from the chest") == 1
    assert (row["chests"], row["treasures"], row["xp"]) == (1, 1, 2)


def test_a_champion_opens_every_chest(scripted):
    """"The game", Loot: chests: "thief/champion any number; 1 random token each". Two chests, one champion: both
    open, two tokens drawn (the two vorpal swords scripted), 2 tokens worth 1 point each + 2 XP for retiring at
    level 2 = score 4."""
    script = party("F", "C", "M", "T", "Ch", "S", "S") + [POTION] + [CHEST, CHEST, POS["vorpal"], POS["vorpal"]]
    row, lines = run(scripted, script, cont(0) + [wish(A.D_LOOT, 1, A.A_OPEN, A.CHAMPION)])
    has(lines, "open 2 chests with a champion die", "spends 1 champion die")
    assert count(lines, "treasure from the chest: a vorpal sword") == 2
    assert (row["chests"], row["treasures"], row["score"]) == (2, 2, 2 + 2)


@pytest.mark.parametrize("face, name", [(A.CLERIC, "cleric"), (A.MAGE, "mage")])
def test_cleric_and_mage_open_one_chest(scripted, face, name):
    """"The game", Loot: chests: "fighter/cleric/mage open 1 chest". Of two chests the cleric (or mage) opens 1:
    one token, one chest counted."""
    script = party("F", "C", "M", "T", "Ch", "S", "S") + [POTION] + [CHEST, CHEST, POS["vorpal"]]
    row, lines = run(scripted, script, cont(0) + [wish(A.D_LOOT, 1, A.A_OPEN, face)])
    has(lines, f"open 1 chest with a {name} die")
    assert (row["chests"], row["treasures"]) == (1, 1)


def test_companion_tokens_count_against_the_dragon(scripted):
    """"The game", Dragon phase: "3 companions of 3 different types (scrolls never; companion tokens do)"; win: 1
    treasure, 1 XP. The party holds a fighter and a cleric (no mage) and, from level 1's chest, a Scepter of Power
    (Treasures: "a ... mage ... counts for the dragon"). Level 3 brings the Lair to 3: fighter + cleric + scepter
    are 3 types, the dragon is slain: +1 XP and one token from the hoard; retiring at level 3: +3 XP, total 4."""
    script = (party("F", "C", "T", "S", "S", "S", "S") + [CHEST, POS["scepter"]] + [DRAGON, DRAGON]
              + [DRAGON, CHEST, CHEST, POS["vorpal"]])
    row, lines = run(scripted, script, [wish(A.D_LOOT, 0, A.A_OPEN, A.THIEF)] + cont(0, 1))
    has(lines, "Level 3, the dragon attacks (3 dragons in the Lair)", "spends 1 scepter of power",
        "the dragon is slain", "+1 XP for the dragon", "treasure from the dragon's hoard: a vorpal sword")
    assert (row["dragons_slain"], row["fled"], row["xp"], row["treasures"]) == (1, 0, 1 + 3, 1)


def test_temporary_companions_leave_at_the_regroup(scripted):
    """"The game", Regroup: "temporary companions leave"; Heroes: monsters turned into companions "leave at the
    next regroup (they never go to the Graveyard)". The Occultist's Animate Dead turns level 2's skeleton into a
    fighter, unused there (no monster left). At level 3 three goblins meet a party of 7 scrolls (scrolls defeat
    nothing; scroll rerolls switched off): a fighter would defeat all goblins, but it has left, so the only
    option is to flee. Score 0: fleeing loses the retire XP, no XP was earned."""
    script = ALL_SCROLLS + [CHEST] + [SKEL, CHEST] + [GOB, GOB, GOB]
    row, lines = run(scripted, script, cont(0, 1) + [wish(A.D_MONSTER, 0, A.A_ULTIMATE)], hero="occultist",
                     sets=NO_SCROLLS)
    has(lines, "ultimate: Animate Dead", "Level 2, the dungeon now: 1 chest",
        "decide the monster phase (option 1 of 1): flee", "Level 3, the party flees from the monsters")
    assert count(lines, "temporary fighter") == 0
    assert (row["fled"], row["score"]) == (1, 0)


def test_a_spent_temporary_companion_does_not_go_to_the_graveyard(scripted):
    """Heroes: a temporary companion acts "like a party die of that face" but "never go[es] to the Graveyard".
    Animate Dead turns the skeleton into a fighter, which defeats the goblin (Companions: a fighter defeats all
    goblins); the Graveyard stays empty (a party fighter would have put 1 die there)."""
    script = ALL_SCROLLS + [CHEST] + [SKEL, GOB]
    row, lines = run(scripted, script, cont(0) + [wish(A.D_MONSTER, 0, A.A_ULTIMATE)], hero="occultist",
                     sets=NO_SCROLLS)
    has(lines, "spends 1 temporary fighter", "monsters defeated", "   party: 7 scrolls; 0 dice in the graveyard")
    assert row["fled"] == 0


def test_the_ultimate_is_refreshed_when_a_delve_starts(scripted):
    """"The game", Ultimate: "once per delve (refreshed when a delve starts)"; Delves: the score is kept across.
    The Mercenary's Calculated Strike defeats the lone goblin of level 1 in delve 1, and again in delve 2 (a party
    of scrolls, scroll rerolls off: without the ultimate only fleeing is left). XP: 1 for retiring at level 1 in
    each delve = 2, still below xp.master_at 5 (the novice side both times)."""
    rs_sets = [*NO_SCROLLS, "delves=2"]
    rs = D.load_ruleset(None, rs_sets)
    wishes = [wish(A.D_MONSTER, 0, A.A_ULTIMATE), wish(A.D_MONSTER, 1, A.A_ULTIMATE)]
    params = np.array([x for w in wishes for x in w], dtype=np.float64)
    row, lines = D.play_one(rs, "mercenary", replace(scripted, params=params), 0, 0,
                            ALL_SCROLLS + [GOB] + ALL_SCROLLS + [GOB])
    assert row["bad_answers"] == 0, "\n".join(lines)
    assert count(lines, "ultimate: Calculated Strike") == 2
    assert (row["retired"], row["fled"], row["xp"], row["master"]) == (2, 0, 2, 0)


def test_mercenary_forming_reroll_is_one_reroll_and_the_transform_follows_it(scripted):
    """Rulings, "Mercenary's forming reroll": "one reroll of any number of dice; the Knight's transform applies
    after it". A hero given both specialties (form_reroll and the Knight's scroll -> champion) forms F S F F F C
    M, rerolls one fighter into a scroll; the transform then turns both scrolls (the rolled one and the rerolled
    one) into champions: 3 fighters, 1 cleric, 1 mage, 2 champions. One reroll: a single 'rerolled' step, no
    second reroll menu after it."""
    sets = ['heroes.knight.novice.specialty=[{power="form_reroll"},'
            '{power="form_transform",face="scroll",to="champion"}]']
    script = party("F", "S", "F", "F", "F", "C", "M") + party("S") + [CHEST]
    row, lines = run(scripted, script, [wish(A.D_REROLL, 0, A.A_PICK, A.FIGHTER)], hero="knight", sets=sets)
    first_level = next(i for i, line in enumerate(lines) if line.startswith("Level 1"))
    forming = lines[:first_level]
    assert count(forming, "rerolled:") == 1 and count(forming, "decide a reroll") == 2  # pick one, then done
    has(forming, "forming the party: 2 scrolls become champions",
        "   party: 3 fighters, 1 cleric, 1 mage, 2 champions; 0 dice in the graveyard")


# --- the treasures --------------------------------------------------------------------------------------------------
def test_town_portal_in_the_dragon_phase(scripted):
    """Treasures, Town Portal: phases monster and dragon; "instead of fleeing: XP = level, the delve ends" (and no
    2 points once used). Only a champion and scrolls: it opens level 1's chest (a Town Portal); at level 3 the
    dragon comes (3 in the Lair) and the party of scrolls cannot fight it, so the portal is offered instead of
    fleeing: XP 3 (level 3 x xp.portal_per_level 1), score 3, not a flight."""
    script = (party("Ch", "S", "S", "S", "S", "S", "S") + [CHEST, POS["portal"]] + [DRAGON, DRAGON]
              + [DRAGON, CHEST, CHEST])
    wishes = [wish(A.D_LOOT, 0, A.A_OPEN, A.CHAMPION)] + cont(0, 1) + [wish(A.D_DRAGON, 0, A.A_PORTAL)]
    row, lines = run(scripted, script, wishes)
    has(lines, "Level 3, the party escapes with a town portal", "+3 XP for a Town Portal")
    assert (row["portals"], row["fled"], row["xp"], row["score"], row["treasures"]) == (1, 0, 3, 3, 0)


# --- the rulings ------------------------------------------------------------------------------------------------------
def test_a_scroll_does_not_reroll_against_the_dragon_by_default(scripted):
    """Rulings, "When may a scroll reroll?": "monster phase only". F F C and 4 scrolls meet the dragon (3 in the
    Lair): only 2 types, and the scrolls may not reroll a fighter into a mage, so the dragon menu holds one option,
    to flee (a one-option decision is not asked, the report still shows its menu size)."""
    script = party("F", "F", "C", "S", "S", "S", "S") + [DRAGON] + [DRAGON, DRAGON]
    row, lines = run(scripted, script, cont(0))
    has(lines, "decide the dragon (option 1 of 1): flee", "Level 2, the party flees from the dragon")
    assert (row["fled"], row["dragons_slain"]) == (1, 0)


def test_a_scroll_rerolls_party_dice_against_the_dragon_when_the_ruling_says_so(scripted):
    """Rulings, scroll_phases = ["monster", "dragon"]: "party dice before the dragon fight". The same party rerolls
    a fighter into a mage: fighter, cleric, mage are 3 types, the dragon is slain (+1 XP, 1 token), and retiring at
    level 2 gives 2 more: XP 3. The scroll goes to the Graveyard (Graveyard), the rerolled fighter does not."""
    script = party("F", "F", "C", "S", "S", "S", "S") + [DRAGON] + [DRAGON, DRAGON] + party("M") + [POS["vorpal"]]
    wishes = cont(0) + [wish(A.D_DRAGON, 0, A.A_SCROLL), wish(A.D_REROLL, 0, A.A_PICK, A.FIGHTER)]
    row, lines = run(scripted, script, wishes, sets=['rulings.scroll_phases=["monster","dragon"]'])
    has(lines, "reroll with a scroll die", "   party: 1 fighter, 1 cleric, 1 mage, 3 scrolls; 1 die in the graveyard",
        "the dragon is slain")
    assert (row["dragons_slain"], row["fled"], row["xp"]) == (1, 0, 3)


def test_tokens_act_as_their_companion_for_specialties(scripted):
    """Rulings, "Do 'X may be used as Y' specialties cover tokens ...?": yes (rulings.specialty_applies_to_all).
    The Minstrel's thieves may act as mages; Thieves' Tools are a thief. Against 2 oozes (a mage defeats all oozes,
    a thief 1) the tools defeat both; with the ruling false they defeat 1 only, no fight defeats the level and
    the party flees, keeping the tools (1 point)."""
    script = party("Ch", "S", "S", "S", "S", "S", "S") + [CHEST, POS["tools"]] + [OOZE, OOZE]
    wishes = [wish(A.D_LOOT, 0, A.A_OPEN, A.CHAMPION)] + cont(0)
    row, lines = run(scripted, script, wishes, hero="minstrel", sets=NO_SCROLLS)
    has(lines, "spends 1 thieves tool", "monsters defeated")
    assert (row["fled"], row["xp"], row["treasures"]) == (0, 2, 0)
    wishes += [wish(A.D_MONSTER, 1, A.A_FLEE)]
    row, lines = run(scripted, script, wishes, hero="minstrel",
                     sets=[*NO_SCROLLS, "rulings.specialty_applies_to_all=false"])
    has(lines, "Level 2, the party flees from the monsters")
    assert (row["fled"], row["xp"], row["treasures"], row["score"]) == (1, 0, 1, 1)


@pytest.mark.parametrize("counts, slain, xp", [("true", 1, 1 + 2), ("false", 0, 0)])
def test_a_hero_acting_as_a_companion_counts_against_the_dragon(scripted, counts, slain, xp):
    """Rulings, "Does a hero acting as a companion count against the dragon?": yes (dragon.hero_companion_counts).
    The Spellsword's Arcane Blade is the hero as a fighter or a mage; a fighter, a cleric and scrolls meet the
    dragon: with the hero as mage that is 3 types (slain: 1 XP, + 2 for retiring at level 2); with the ruling
    false only 2 types count and the party flees (no XP)."""
    script = party("F", "C", "S", "S", "S", "S", "S") + [DRAGON] + [DRAGON, DRAGON, POS["vorpal"]]
    row, lines = run(scripted, script, cont(0), hero="spellsword",
                     sets=[*NO_SCROLLS, f"dragon.hero_companion_counts={counts}"])
    assert (row["dragons_slain"], row["fled"], row["xp"]) == (slain, 1 - slain, xp)
    if slain:
        has(lines, "spends the hero (Arcane Blade)", "the dragon is slain")


@pytest.mark.parametrize("gives, xp", [("true", 1 + 1 + 2), ("false", 1 + 2)])
def test_a_slain_dragon_with_an_empty_pool_gives_xp(scripted, gives, xp):
    """Rulings, "A slain dragon with an empty pool": 1 XP, as for a chest (xp.empty_pool_dragon). Every treasure
    count 0; F C M slay the dragon at level 2: +1 XP for the dragon, +1 for the empty hoard (none when the ruling
    is false), then +2 for retiring at level 2."""
    script = party("F", "C", "M", "S", "S", "S", "S") + [DRAGON] + [DRAGON, DRAGON]
    row, lines = run(scripted, script, cont(0), sets=[*EMPTY_POOL, f"xp.empty_pool_dragon={gives}"])
    assert count(lines, "+1 XP for an empty pool") == (1 if gives == "true" else 0)
    assert (row["dragons_slain"], row["xp"], row["treasures"]) == (1, xp, 0)


@pytest.mark.parametrize("refresh", ["false", "true"])
def test_turning_master_mid_delve_keeps_a_used_ultimate_used(scripted, refresh):
    """Rulings, "Turning master mid-delve with the ultimate used": it stays used until the next delve
    (xp.master_refreshes_ultimate); Master: "as soon as it has" xp.master_at XP (2 here). The Mercenary spends
    Calculated Strike at level 1, turns Commander at level 2 on the 2 XP of two chests opened from an empty pool;
    at level 3 (goblin, skeleton, ooze; only scrolls left, scroll rerolls off) the Commander's Battlefield
    Presence is not offered: fleeing is the only option. With the ruling true it is offered."""
    script = party("Ch", "S", "S", "S", "S", "S", "S") + [GOB] + [CHEST, CHEST] + [GOB, SKEL, OOZE]
    wishes = [wish(A.D_MONSTER, 0, A.A_ULTIMATE), wish(A.D_LOOT, 0, A.A_OPEN, A.CHAMPION)] + cont(0, 1)
    sets = [*NO_SCROLLS, *EMPTY_POOL, "xp.master_at=2", f"xp.master_refreshes_ultimate={refresh}"]
    row, lines = run(scripted, script, wishes + [wish(A.D_MONSTER, 1, A.A_ULTIMATE)] * (refresh == "true"),
                     hero="mercenary", sets=sets)
    has(lines, "ultimate: Calculated Strike", "the hero becomes Commander (2 XP)")
    if refresh == "false":
        has(lines, "decide the monster phase (option 1 of 1): flee")
        assert count(lines, "Battlefield Presence") == 0
    else:
        has(lines, "ultimate: Battlefield Presence")
    assert (row["master"], row["fled"], row["xp"]) == (1, 1, 2)


def test_battlefield_presence_rerolls_in_the_dragon_phase(scripted):
    """Rulings, "Ultimates' phases": "discard, reroll: also the dragon phase". The Commander (xp.master_at=0) with 6
    fighters and a cleric meets the dragon (2 types); Battlefield Presence rerolls a fighter into a mage: 3 types,
    the dragon is slain (+1 XP), retiring at level 2 +2: XP 3. Dragons are never rerolled (Dragons), so the reroll
    menu holds only done, fighter, cleric."""
    script = party("F", "F", "C", "F", "F", "F", "F") + [DRAGON] + [DRAGON, DRAGON] + party("M") + [POS["vorpal"]]
    wishes = cont(0) + [wish(A.D_DRAGON, 0, A.A_ULTIMATE), wish(A.D_REROLL, 1, A.A_PICK, A.FIGHTER)]
    row, lines = run(scripted, script, wishes, hero="mercenary", sets=["xp.master_at=0"])
    has(lines, "ultimate: Battlefield Presence", "decide a reroll (option 2 of 3): reroll a fighter",
        "   party: 5 fighters, 1 cleric, 1 mage; 0 dice in the graveyard", "the dragon is slain")
    assert (row["dragons_slain"], row["fled"], row["xp"]) == (1, 0, 3)


def test_fleeing_is_not_offered_when_a_fight_exists(scripted):
    """Rulings, "Fleeing when a fight exists": "not offered: flee and Town Portal appear only when no allocation
    defeats the monsters". A fighter defeats the lone goblin: a wish to flee matches no option (counted as a bad
    answer; option 0, the fight, is taken). Against a goblin and a skeleton a lone fighter cannot win (it defeats
    all goblins or 1 skeleton), so fleeing is offered and taken."""
    script = party("F", "S", "S", "S", "S", "S", "S") + [GOB]
    row, lines = run_counting(scripted, script, [wish(A.D_MONSTER, 0, A.A_FLEE)])
    assert (row["bad_answers"], row["fled"], row["xp"]) == (1, 0, 1)
    has(lines, "monsters defeated")
    script = party("F", "S", "S", "S", "S", "S", "S") + [CHEST] + [GOB, SKEL]
    row, lines = run_counting(scripted, script, cont(0) + [wish(A.D_MONSTER, 0, A.A_FLEE)], sets=NO_SCROLLS)
    assert (row["bad_answers"], row["fled"]) == (0, 1)
    has(lines, "Level 2, the party flees from the monsters")


# --- master, score and rank at their thresholds (one scripted game each) -------------------------------------------
RANKS = ["Dragon Fodder", "Village Hero", "Seasoned Explorer", "Champion", "Hero of Ages"]  # score.ranks
FIGHTERS = party(*"FFFFFFF")  # a party that never meets a monster: every level below rolls only chests


def chest_delves(*retire_at):
    """Script and wishes for delves that roll only chests (level L: min(L, 7) dungeon dice, none to the Lair; the
    chests are left unopened: option 0, DONE) and retire at the given levels: a continue at every regroup but the
    last (the regroup after level 10 is forced, not asked, so not counted)."""
    script, wishes, nth = [], [], 0
    for r in retire_at:
        script += FIGHTERS
        for level in range(1, r + 1):
            script += [CHEST] * min(level, 7)
        wishes += cont(*range(nth, nth + r - 1))
        nth += min(r, 9)
    return script, wishes


def test_the_hero_turns_master_as_soon_as_it_has_five_xp(scripted):
    """"The game", Master: "the hero turns master as soon as it has 5 XP" (xp.master_at 5); Regroup: retire for XP =
    level. The Spellsword retires at level 4 in delve 1: 4 XP, still the novice when delve 2 starts; it retires at
    level 1 in delve 2: 4 + 1 = 5 XP, and turns Battlemage at once (5 XP)."""
    script, wishes = chest_delves(4, 1)
    row, lines = run(scripted, script, wishes, hero="spellsword", delves=2)
    turned = [i for i, line in enumerate(lines) if "the hero becomes Battlemage" in line]
    second = lines.index("== delve 2 (XP 4, Spellsword) ==")
    assert len(turned) == 1 and turned[0] > second, "\n".join(lines)
    has(lines, "+1 XP for retiring (total 5)", "the hero becomes Battlemage (5 XP)",
        "== end: score 5 (XP 5), rank Dragon Fodder ==")
    assert (row["xp"], row["master"], row["retired"]) == (5, 1, 2)
    row, lines = run(scripted, chest_delves(4)[0], chest_delves(4)[1], hero="spellsword")
    assert (row["xp"], row["master"]) == (4, 0)


@pytest.mark.parametrize("retire_at, score, rank, win", [
    ((5, 5, 5), 15, 0, 0), ((5, 5, 6), 16, 1, 1),
    ((8, 8, 7), 23, 1, 1), ((8, 8, 8), 24, 2, 1),
    ((10, 10, 9), 29, 2, 1), ((10, 10, 10), 30, 3, 1),
])
def test_score_and_rank_at_the_thresholds(scripted, retire_at, score, rank, win):
    """"The game", Score, rank: score = XP + token points; ranks by score.rank_thresholds [0, 16, 24, 30, 35]
    (Dragon Fodder, Village Hero, Seasoned Explorer, Champion, Hero of Ages: a score >= a threshold earns its rank);
    Delves: 3 delves, the score kept across; Regroup: XP = the level retired at; Rulings, "What is a 'win'?": the
    rank Village Hero, score >= 16. No token is drawn (every chest left unopened), so the score is the sum of the
    three retire levels: one below and one at each of the thresholds 16, 24 and 30."""
    script, wishes = chest_delves(*retire_at)
    row, lines = run(scripted, script, wishes, delves=3)
    assert (row["xp"], row["treasures"], row["retired"]) == (sum(retire_at), 0, 3)
    assert (row["score"], row["rank"], row["win"]) == (score, rank, win)
    has(lines, f"== end: score {score} (XP {score}), rank {RANKS[rank]} ==")


@pytest.mark.parametrize("tokens, rank", [(4, 3), (5, 4)])
def test_the_last_ranks_at_thirty_and_thirty_five(scripted, tokens, rank):
    """"The game", Score, rank: score = XP + token points (a Vorpal Sword is worth 1: treasures.vorpal_sword.points);
    Champion at 30, Hero of Ages at 35 (score.rank_thresholds). Three delves retired at level 10 give 30 XP. In delve
    1 the party holds a champion, which opens "any number" of chests (Loot: chests): at level 4 (4 chests) or 5 (5
    chests) it opens them all, each drawing the pool's first token, a Vorpal Sword: 30 + 4 = 34 is Champion, 30 + 5
    = 35 Hero of Ages."""
    script, wishes = chest_delves(10, 10, 10)
    script[0] = party("Ch")[0]  # delve 1's party: a champion and 6 fighters
    draws_at = 7 + sum(range(1, tokens + 1))  # after the dungeon dice of levels 1 .. tokens
    script[draws_at:draws_at] = [POS["vorpal"]] * tokens
    wishes = [wish(A.D_LOOT, tokens - 1, A.A_OPEN, A.CHAMPION)] + wishes
    row, lines = run(scripted, script, wishes, delves=3)
    has(lines, f"open {tokens} chests with a champion die")
    assert (row["xp"], row["treasures"], row["score"], row["rank"]) == (30, tokens, 30 + tokens, rank)
    has(lines, f"rank {RANKS[rank]} ==")
