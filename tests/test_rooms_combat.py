"""Rooms' fights (docs/rules-rooms.md, "A fight"): every rule, effect, status and decision of ``combat.fight``
exercised through whole fights whose every die the script decides (a hand is written as face indices 0..5, the
script holds face + 1), with the exact HP / CP / status effects asserted; the built-in answers against the dice
tables; a one-turn kill rate against its exact probability."""

from __future__ import annotations

import numpy as np
import pytest
from rooms_fight_stub import ST_SIZE, events, make_pol, run_fight

from foury_sim.games.rooms import combat as C
from foury_sim.games.rooms import dice as D
from foury_sim.games.rooms import layout as L
from foury_sim.games.rooms.ruleset import load_heroes

ALL = 31  #: keep every die (stop rolling)
RAT, SPIDER, GOBLIN, SKELETON, OGRE, DRAGON = range(6)
# ranger's abilities (sheet order)
VOLLEY, TRICK_SHOT, RUNNING_FIRE, RAIN, HAWKEYE = range(5)


@pytest.fixture(scope="module")
def rules():
    return load_heroes()


@pytest.fixture(scope="module")
def ranger(rules):
    return C.pack_fight(rules, "ranger")


def h(*faces):
    """Script entries for dice showing these face indices."""
    return [f + 1 for f in faces]


def with_monster(fx, row, **cols):
    m = fx.monsters.copy()
    for k, v in cols.items():
        col = getattr(L, k)
        if isinstance(v, list | tuple):
            m[row, col: col + len(v)] = v
        else:
            m[row, col] = v
    return fx._replace(monsters=m)


def with_combat(fx, **cols):
    c = fx.combat.copy()
    for k, v in cols.items():
        c[getattr(L, k)] = v
    return fx._replace(combat=c)


def check_scripted(st, pol, dice, script):
    """Every die came from the script, every scripted answer was an option."""
    assert int(dice.rs[3]) == len(script), "dice rolled beyond the script (or the script was not used up)"
    assert pol.pos[1] == 0, "a scripted answer was not among the options"


def asked(pol):
    return [tuple(int(x) for x in r) for r in pol.asked[: pol.pos[0]]]


def test_layout_fits_the_contract():
    assert L.S_NTRACE == 0 and 1 <= L.S_HP and L.S_FIGHT_END <= 128
    assert L.D_TARGET <= 7 and L.EV_EXHAUSTED <= 31 and L.MIN_OPTIONS <= 64


def test_keep_options_are_the_distinct_keeps():
    """D_KEEP lists each distinct kept multiset once, keep-all first, keep-none last, canonical masks."""
    st = np.zeros(ST_SIZE, dtype=np.int64)
    opts = np.zeros((64, 2), dtype=np.int64)
    counts = np.zeros(6, dtype=np.int64)
    keep = np.zeros(6, dtype=np.int64)
    for hand, n_distinct in (((0, 0, 3, 4, 5), 24), ((0, 1, 2, 3, 4), 32), ((2, 2, 2, 2, 2), 6), ((1, 1, 4, 4, 4), 12)):
        st[L.S_N_DICE] = 5
        st[L.S_DICE: L.S_DICE + 5] = hand
        C.st_counts(st, counts)
        n = C.keep_options(st, opts, counts, keep)
        masks = opts[:n, L.O_ACTION].tolist()
        assert n == n_distinct and masks[0] == ALL and masks[-1] == 0 and len(set(masks)) == n
        kept = {tuple(sorted(hand[i] for i in range(5) if m >> i & 1)) for m in masks}
        assert len(kept) == n  # distinct multisets
        every = {tuple(sorted(hand[i] for i in range(5) if m >> i & 1)) for m in range(32)}
        assert kept == every
        assert [int(opts[i, L.O_ARG]) for i in range(n)] == [bin(m).count("1") for m in masks]


def test_one_turn_kill_with_a_large_straight(ranger):
    """Stop at once (keep all), fire the chosen ability; overkill is not counted as damage dealt; a dead monster
    does not attack."""
    script = h(0, 1, 2, 3, 4)
    res, st, pol, dice = run_fight(ranger, [RAT], script, answers=[ALL, RAIN])
    check_scripted(st, pol, dice, script)
    assert res == L.FIGHT_WON and st[L.S_FIGHT_TURN] == 1 and st[L.S_FIGHTS_WON] == 1
    assert st[L.S_DEALT] == 6 and st[L.S_HP] == 30 and st[L.S_CP] == 2 + 1
    assert asked(pol) == [(L.D_KEEP, 32), (L.D_ABILITY, 3)]  # volley, running fire, rain of arrows
    assert st[L.S_FIRED + RAIN] == 1 and st[L.S_FIRED: L.S_FIRED + 5].sum() == 1
    assert events(dice, st, L.EV_FIRE) == [(L.EV_FIRE, RAIN, 0, 9, 0, 0, 6, 0)]


def test_every_combo_kind_fires_through_a_fight(rules):
    """n of a kind (4 and 5: Cleave, Bloodbath), full house (Judgement, with its stun), as the final dice make
    them; the other kinds (straights, two pair, symbols) fire in the tests below."""
    fx = C.pack_fight(rules, "berserker")
    script = h(2, 2, 2, 2, 4)  # 3 3 3 3 5: four axes (Hack) and four of a kind (Cleave)
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL, 1])
    check_scripted(st, pol, dice, script)
    assert asked(pol)[-1] == (L.D_ABILITY, 2) and st[L.S_FIRED + 1] == 1 and st[L.S_DEALT] == 6
    script = h(3, 3, 3, 3, 3)  # five 4s: Hack, Cleave, Bloodbath
    res, st, pol, dice = run_fight(fx, [SKELETON], script, answers=[ALL, 2])
    check_scripted(st, pol, dice, script)  # 15 unblockable: no defensive roll
    assert asked(pol)[-1] == (L.D_ABILITY, 3) and st[L.S_FIRED + 2] == 1 and res == L.FIGHT_WON
    fx = C.pack_fight(rules, "paladin")
    full_house = h(0, 0, 0, 5, 5)  # 1 1 1 6 6: Strike, Lay on Hands, Judgement
    script = full_house + [1] + full_house + [1]
    res, st, pol, dice = run_fight(fx, [SKELETON], script, answers=[ALL, 4, ALL, 4])
    check_scripted(st, pol, dice, script)
    assert asked(pol)[1] == (L.D_ABILITY, 3) and st[L.S_FIRED + 4] == 2 and res == L.FIGHT_WON
    assert not events(dice, st, L.EV_ATTACK) and len(events(dice, st, L.EV_STUNNED)) == 1


def test_reroll_rerolls_exactly_the_unkept_dice(ranger):
    script = h(0, 0, 3, 4, 5) + h(2)
    res, st, pol, dice = run_fight(ranger, [RAT], script, answers=[0b11101, ALL])
    check_scripted(st, pol, dice, script)
    assert events(dice, st, L.EV_ROLL) == [(L.EV_ROLL, 1, 0, 0, 3, 4, 5, -1), (L.EV_ROLL, 2, 0, 2, 3, 4, 5, 0b11101)]
    # only Running Fire (3-4-5-6) is made: the choice is not asked
    assert asked(pol) == [(L.D_KEEP, 24), (L.D_KEEP, 32)]
    assert st[L.S_FIRED + RUNNING_FIRE] == 1 and res == L.FIGHT_WON


def test_two_free_rerolls_then_a_bought_one(ranger):
    """After combat.rolls - 1 free rerolls, one more costs reroll_cost CP (asked only when affordable)."""
    nothing = h(0, 1, 3, 3, 5)  # 1 2 4 4 6: two arrows, one pair, no straight
    script = nothing + h(5) + h(5) + h(2)
    res, st, pol, dice = run_fight(ranger, [RAT], script, answers=[0b01111, 0b01111, 1, 0b01111, RUNNING_FIRE])
    check_scripted(st, pol, dice, script)
    assert [k for k, _ in asked(pol)] == [L.D_KEEP, L.D_KEEP, L.D_BUY_REROLL, L.D_KEEP, L.D_ABILITY]
    assert st[L.S_CP] == 3 - 2 and st[L.S_BOUGHT] == 1
    assert events(dice, st, L.EV_BUY) == [(L.EV_BUY, 2, 1, 0, 0, 0, 0, 0)]
    assert st[L.S_FIRED + RUNNING_FIRE] == 1 and res == L.FIGHT_WON
    # with too few CP the purchase is not offered; the final dice make nothing
    fx = with_combat(ranger, C_CP_START=0)
    script = nothing + h(5) + h(5) + h(0) + h(0, 1, 2, 3, 4)  # rat's d6: 1 (no damage)
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[0b01111, 0b01111, ALL, RAIN])
    check_scripted(st, pol, dice, script)
    assert [k for k, _ in asked(pol)] == [L.D_KEEP, L.D_KEEP, L.D_KEEP, L.D_ABILITY]
    assert st[L.S_NOTHING] == 1 and len(events(dice, st, L.EV_NOTHING)) == 1 and st[L.S_BOUGHT] == 0
    assert events(dice, st, L.EV_ATTACK) == [(L.EV_ATTACK, 0, 0, 0, 0, 0, 0, 30)]  # no defensive roll for 0
    # no bought reroll at all when max_bought_rerolls = 0
    fx = with_combat(ranger, C_MAX_BOUGHT=0)
    script = nothing + h(5) + h(5) + h(0) + h(0, 1, 2, 3, 4)
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[0b01111, 0b01111, ALL, RAIN])
    check_scripted(st, pol, dice, script)
    assert L.D_BUY_REROLL not in [k for k, _ in asked(pol)]


def test_monster_dice_attack_meets_the_defensive_roll(ranger):
    """The rat rolls 1 d6 (6: 2 damage); the ranger's 2 defence dice block 0 (faces 1, 1) or 3 (faces 6, 4)."""
    fx = with_monster(ranger, RAT, M_HP=4)
    nothing = h(0, 1, 3, 3, 5)
    script = nothing + [6] + h(0, 0) + h(0, 1, 2, 3, 3)
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL, ALL, VOLLEY])
    check_scripted(st, pol, dice, script)
    assert st[L.S_HP] == 28 and st[L.S_TAKEN] == 2 and res == L.FIGHT_WON and st[L.S_DEALT] == 4
    assert events(dice, st, L.EV_ATTACK) == [(L.EV_ATTACK, 0, 2, 0, 0, 0, 2, 28)]
    assert events(dice, st, L.EV_DEF_ROLL) == [(L.EV_DEF_ROLL, -1, 2, 1 + (1 << 3), 0, 0, 0, 0)]
    script = nothing + [6] + h(5, 3) + h(0, 1, 2, 3, 3)
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL, ALL, VOLLEY])
    check_scripted(st, pol, dice, script)
    assert st[L.S_HP] == 30 and st[L.S_TAKEN] == 0
    assert events(dice, st, L.EV_ATTACK) == [(L.EV_ATTACK, 0, 2, 0, 3, 0, 0, 30)]


def test_goblin_rolls_two_dice(ranger):
    """A two-dice attack sums both faces (goblin archer: 0 0 1 1 2 2; faces 5 and 6: 4 damage)."""
    fx = with_monster(ranger, GOBLIN, M_HP=4)
    script = h(0, 1, 3, 3, 5) + [5, 6] + h(0, 0) + h(0, 1, 2, 3, 3)
    res, st, pol, dice = run_fight(fx, [GOBLIN], script, answers=[ALL, ALL, VOLLEY])
    check_scripted(st, pol, dice, script)
    assert st[L.S_HP] == 26 and events(dice, st, L.EV_ATTACK)[0][2] == 4


def test_counter_damage_from_the_defensive_roll(rules):
    """The berserker's defence die: face 6 blocks 1 and counters 2 (unblockable, on the attacker)."""
    fx = C.pack_fight(rules, "berserker")
    hack = h(0, 1, 2, 4, 5)  # three axes, two rage: only Hack (3)
    script = hack + [6] + h(5) + hack
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL, ALL])
    check_scripted(st, pol, dice, script)
    assert res == L.FIGHT_WON and st[L.S_HP] == 26 - 1 and st[L.S_DEALT] == 6
    assert events(dice, st, L.EV_ATTACK) == [(L.EV_ATTACK, 0, 2, 0, 1, 2, 1, 25)]
    assert st[L.S_FIRED] == 2 and st[L.S_FIGHT_TURN] == 2


def test_pattern_attack_cycles_and_monster_defence_blocks_damage(ranger):
    """The skeleton attacks 3, 2, 4, 3, ... and rolls 1 d6 of defence (4-6 block 1) against damage."""
    nothing = h(0, 1, 3, 3, 5)
    script = h(0, 1, 2, 3, 3) + [4] + h(0, 0)  # volley 4, blocked 1; skeleton 3
    for _ in range(3):
        script += nothing + h(0, 0)
    script += h(0, 1, 2, 3, 4) + [1]  # rain of arrows 9, blocked 0
    answers = [ALL, VOLLEY, ALL, ALL, ALL, ALL, RAIN]
    res, st, pol, dice = run_fight(ranger, [SKELETON], script, answers=answers)
    check_scripted(st, pol, dice, script)
    assert [e[2] for e in events(dice, st, L.EV_ATTACK)] == [3, 2, 4, 3]
    assert st[L.S_HP] == 30 - 12 and res == L.FIGHT_WON
    assert events(dice, st, L.EV_FIRE)[0] == (L.EV_FIRE, VOLLEY, 0, 4, 1, 0, 3, 0)
    assert st[L.S_DEALT] == 10


def test_unblockable_and_stun(ranger):
    """Hawkeye's 5 unblockable damage skip the skeleton's defensive roll; its stun skips the skeleton's attack
    (the pattern does not advance)."""
    eyes = h(0, 1, 5, 5, 5)
    script = eyes + eyes
    res, st, pol, dice = run_fight(ranger, [SKELETON], script, answers=[ALL, ALL])
    check_scripted(st, pol, dice, script)
    assert res == L.FIGHT_WON and st[L.S_HP] == 30 and st[L.S_FIRED + HAWKEYE] == 2
    assert events(dice, st, L.EV_STUNNED) == [(L.EV_STUNNED, 0, 0, 0, 0, 0, 0, 0)]
    assert st[C.mon(0, L.MON_ATTACKS)] == 0 and not events(dice, st, L.EV_ATTACK)
    assert events(dice, st, L.EV_FIRE)[0] == (L.EV_FIRE, HAWKEYE, 0, 0, 0, 5, 5, 0)


def test_monster_poison_on_the_hero_ticks_decays_and_caps(ranger):
    """The spider's hit adds poison (capped at statuses.poison.max_stacks); at the start of the hero's turn
    poison deals damage per stack, then decay stacks fall off."""
    nothing = h(0, 1, 3, 3, 5)
    script = nothing + [6] + h(0, 0) + h(0, 1, 2, 3, 4)
    res, st, pol, dice = run_fight(ranger, [SPIDER], script, answers=[ALL, ALL, RAIN])
    check_scripted(st, pol, dice, script)
    assert st[L.S_HP] == 30 - 3 - 1 and st[L.S_TAKEN] == 4 and st[L.S_POISON] == 0
    assert events(dice, st, L.EV_POISON_TICK) == [(L.EV_POISON_TICK, -1, 1, 0, 26, 0, 0, 0)]
    fx = with_monster(ranger, SPIDER, M_POISON=5)
    res, st, pol, dice = run_fight(fx, [SPIDER], script, answers=[ALL, ALL, RAIN])
    assert events(dice, st, L.EV_INFLICT) == [(L.EV_INFLICT, 0, 5, 0, 3, 0, 0, 0)]
    assert events(dice, st, L.EV_POISON_TICK) == [(L.EV_POISON_TICK, -1, 3, 2, 24, 0, 0, 0)]
    fx = with_combat(fx, C_POISON_DECAY=0, C_POISON_DAMAGE=2)
    res, st, pol, dice = run_fight(fx, [SPIDER], script, answers=[ALL, ALL, RAIN])
    assert events(dice, st, L.EV_POISON_TICK) == [(L.EV_POISON_TICK, -1, 6, 3, 21, 0, 0, 0)]


def test_a_blocked_hit_inflicts_nothing(ranger):
    """A hit fully blocked by the defensive roll costs no HP and inflicts no poison."""
    script = h(0, 1, 3, 3, 5) + [2] + h(5, 0) + h(0, 1, 2, 3, 4)
    res, st, pol, dice = run_fight(ranger, [SPIDER], script, answers=[ALL, ALL, RAIN])
    check_scripted(st, pol, dice, script)
    assert st[L.S_HP] == 30 and not events(dice, st, L.EV_INFLICT) and not events(dice, st, L.EV_POISON_TICK)


def test_ogre_stuns_the_hero(ranger):
    """The ogre's 7 (second attack) stuns: the hero skips its next offensive roll (no dice rolled)."""
    fx = with_monster(ranger, OGRE, M_HP=9)
    nothing = h(0, 1, 3, 3, 5)
    script = nothing + nothing + h(0, 0) + h(0, 1, 2, 3, 4)  # turn 3 stunned: no dice; ogre's 0 again
    res, st, pol, dice = run_fight(fx, [OGRE], script, answers=[ALL, ALL, ALL, RAIN])
    check_scripted(st, pol, dice, script)
    assert st[L.S_HP] == 23 and st[L.S_STUNNED] == 1 and st[L.S_FIGHT_TURN] == 4 and res == L.FIGHT_WON
    assert events(dice, st, L.EV_STUNNED) == [(L.EV_STUNNED, -1, 0, 0, 0, 0, 0, 0)]
    assert [e[2] for e in events(dice, st, L.EV_ATTACK)] == [0, 7, 0]


def test_block_token_heal_cap_and_strike(rules):
    """Paladin: Shield Bash's block 3 absorbs the rat's 2 (no defensive roll, the token is spent whole); Lay on
    Hands heals 4 but not past the most HP."""
    fx = C.pack_fight(rules, "paladin")
    st = np.zeros(ST_SIZE, dtype=np.int64)
    C.hero_start(fx, st)
    st[L.S_HP] = 32
    script = h(0, 2, 3, 4, 5) + [6] + h(0, 1, 2, 5, 5) + [1] + h(0, 0, 1, 2, 3)
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL, ALL, ALL], st=st)
    check_scripted(st, pol, dice, script)
    assert events(dice, st, L.EV_ATTACK) == [(L.EV_ATTACK, 0, 2, 2, 0, 0, 0, 32), (L.EV_ATTACK, 0, 0, 0, 0, 0, 0, 34)]
    assert st[L.S_BLOCK] == 0 and st[L.S_HP] == 34 and res == L.FIGHT_WON
    assert [e[1] for e in events(dice, st, L.EV_FIRE)] == [1, 3, 0]  # shield bash, lay on hands, strike


def test_cp_effect_and_cap(ranger):
    script = h(0, 0, 3, 3, 5)  # 1 1 4 4 6: Trick Shot (3 damage, 1 CP)
    fx = with_monster(ranger, RAT, M_HP=3)
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL])
    check_scripted(st, pol, dice, script)
    assert st[L.S_CP] == 2 + 1 + 1 and st[L.S_FIRED + TRICK_SHOT] == 1
    res, st, pol, dice = run_fight(with_combat(fx, C_CP_MAX=3), [RAT], script, answers=[ALL])
    assert st[L.S_CP] == 3


def test_poison_on_a_monster_ticks_at_its_turn(rules):
    """Alchemist's Toxin: 2 damage and 2 poison; the rat loses 2, then 1 at the start of its turns (decay 1)."""
    fx = C.pack_fight(rules, "alchemist")
    toxin = h(0, 2, 2, 3, 4)
    nothing = h(0, 0, 2, 4, 4)  # 2 flask, 1 skull, 2 flame
    script = toxin + [1] + nothing + [1] + toxin
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL, ALL, ALL])
    check_scripted(st, pol, dice, script)
    assert events(dice, st, L.EV_POISON_TICK) == [(L.EV_POISON_TICK, 0, 2, 1, 2, 0, 0, 0),
                                                  (L.EV_POISON_TICK, 0, 1, 0, 1, 0, 0, 0)]
    assert st[L.S_DEALT] == 6 and res == L.FIGHT_WON and st[L.S_NOTHING] == 1


def test_several_monsters_and_the_target_decision(ranger):
    """With two monsters alive the target is asked (O_ARG = HP); with one, it is not. Dead monsters skip."""
    volley = h(0, 1, 2, 4, 4)  # 1 2 3 5 5: Volley only
    script = h(0, 1, 2, 3, 4) + [1] + volley + [1] + volley
    res, st, pol, dice = run_fight(ranger, [RAT, GOBLIN], script, answers=[ALL, RAIN, 1, ALL, ALL])
    check_scripted(st, pol, dice, script)
    assert (L.D_TARGET, 2) in asked(pol) and [k for k, _ in asked(pol)].count(L.D_TARGET) == 1
    assert [e[1] for e in events(dice, st, L.EV_MON_DEAD)] == [1, 0] and st[L.S_MON_LEFT] == 0
    assert st[L.S_DEALT] == 7 + 6 and res == L.FIGHT_WON
    assert len(events(dice, st, L.EV_ATTACK)) == 2  # the rat alone attacked, twice (the goblin died first)


def test_hero_death_records_the_killer(ranger):
    st = np.zeros(ST_SIZE, dtype=np.int64)
    C.hero_start(ranger, st)
    st[L.S_HP] = 2
    script = h(0, 1, 3, 3, 5) + [1, 6] + h(0, 0)  # the goblin (slot 0) attacks first: 0 + 2; the rat never does
    res, st, pol, dice = run_fight(ranger, [GOBLIN, RAT], script, answers=[ALL], st=st)
    check_scripted(st, pol, dice, script)
    assert res == L.FIGHT_DIED and st[L.S_KILLER] == 1 + GOBLIN and len(events(dice, st, L.EV_ATTACK)) == 1
    st = np.zeros(ST_SIZE, dtype=np.int64)
    C.hero_start(ranger, st)
    st[L.S_HP] = 2
    script = h(0, 1, 3, 3, 5) + [6] + h(0, 0)
    res, st, pol, dice = run_fight(ranger, [RAT], script, answers=[ALL], st=st)
    check_scripted(st, pol, dice, script)
    assert res == L.FIGHT_DIED and st[L.S_HP] == 0 and st[L.S_KILLER] == 1 + RAT
    assert events(dice, st, L.EV_DIED)[0][:3] == (L.EV_DIED, 1, 1 + RAT)
    # poison kills at the start of the hero's turn, before any roll
    st = np.zeros(ST_SIZE, dtype=np.int64)
    C.hero_start(ranger, st)
    st[L.S_HP] = 2
    script = h(0, 1, 3, 3, 5) + [2] + h(0, 0)
    res, st, pol, dice = run_fight(ranger, [SPIDER], script, answers=[ALL], st=st)
    check_scripted(st, pol, dice, script)
    assert res == L.FIGHT_DIED and st[L.S_KILLER] == L.KILLED_BY_POISON and st[L.S_HP] == 0


def test_hp_persists_and_fight_state_resets(ranger):
    """HP carries from fight to fight; CP, statuses and the per-fight counters start afresh; totals add up."""
    st = np.zeros(ST_SIZE, dtype=np.int64)
    C.hero_start(ranger, st)
    fx = with_monster(ranger, RAT, M_HP=4)
    script = h(0, 1, 3, 3, 5) + [6] + h(0, 0) + h(0, 1, 2, 3, 3)
    run_fight(fx, [RAT], script, answers=[ALL, ALL, VOLLEY], st=st)
    res, st, pol, dice = run_fight(fx, [RAT], script, answers=[ALL, ALL, VOLLEY], st=st)
    assert st[L.S_HP] == 26 and st[L.S_TAKEN] == 2 and st[L.S_TAKEN_TOTAL] == 4 and st[L.S_DEALT_TOTAL] == 8
    assert st[L.S_FIGHTS] == 2 and st[L.S_FIGHTS_WON] == 2 and st[L.S_TURNS_TOTAL] == 4 and st[L.S_CP] == 2 + 2


def test_a_fight_that_cannot_end_is_cut(ranger):
    """A hero whose abilities deal no damage against a harmless monster dies of exhaustion after
    combat.max_fight_turns turns (a guard; no shipped sheet can do this)."""
    ab = ranger.abilities.copy()
    ab[:, L.AB_EFFECT:] = 0
    ab[:, L.AB_EFFECT + L.E_HEAL] = 1
    fx = with_monster(ranger._replace(abilities=ab), SKELETON, M_PATTERN=[0, 0, 0])
    res, st, pol, dice = run_fight(fx, [SKELETON], pid=L.P_OPTIMAL, trace_rows=0)
    assert res == L.FIGHT_DIED and st[L.S_FIGHT_TURN] == fx.combat[L.C_MAX_FIGHT_TURNS] == 100 and st[L.S_HP] == 0


def test_the_packed_menus_are_keep_options_and_ability_made(rules):
    """The fight copies D_KEEP menus and reads the abilities made from ``Fight.menu`` (built once per hero): each
    outcome's row is ``keep_options``' options of those dice, and its MENU_MADE bits are ``dice.ability_made``."""
    sp = D.space(5)
    st = np.zeros(ST_SIZE, dtype=np.int64)
    opts = np.zeros((64, 2), dtype=np.int64)
    counts = np.zeros(6, dtype=np.int64)
    keep = np.zeros(6, dtype=np.int64)
    for hero in ("ranger", "alchemist"):
        fx = C.pack_fight(rules, hero)
        assert fx.menu.shape == (sp.n_out, C.MENU_COLS)
        st[L.S_N_DICE] = 5
        for o in range(sp.n_out):
            st[L.S_DICE: L.S_DICE + 5] = np.repeat(np.arange(6), sp.outs[o])
            assert fx.code_index[C.dice_code(st, 5)] == o
            C.st_counts(st, counts)
            n = C.keep_options(st, opts, counts, keep)
            row = fx.menu[o]
            assert row[C.MENU_N] == n
            assert row[C.MENU_MASK: C.MENU_MASK + n].tolist() == opts[:n, L.O_ACTION].tolist()
            assert row[C.MENU_KEPT: C.MENU_KEPT + n].tolist() == opts[:n, L.O_ARG].tolist()
            made = [ab for ab in range(fx.abilities.shape[0]) if D.ability_made(fx.faces, fx.abilities, ab, counts)]
            assert [ab for ab in range(fx.abilities.shape[0]) if row[C.MENU_MADE] >> ab & 1] == made
            n = C.ability_options(fx, st, opts, counts)
            assert opts[:n, L.O_ACTION].tolist() == made


def test_builtin_answers_follow_the_tables(rules):
    """optimal_reroll keeps what the damage table says (every outcome, every rerolls-left); greedy keeps what
    dice.greedy_keep says; buying follows the table's value; abilities by most damage; targets by least HP."""
    sp = D.space(5)
    opts = np.zeros((64, 2), dtype=np.int64)
    counts = np.zeros(6, dtype=np.int64)
    keep = np.zeros(6, dtype=np.int64)
    params = np.array(list(D.GREEDY_PARAMS.values()))
    for hero in ("ranger", "alchemist"):
        fx = C.pack_fight(rules, hero)
        st = np.zeros(ST_SIZE, dtype=np.int64)
        st[L.S_N_DICE] = 5
        for o in range(sp.n_out):
            st[L.S_DICE: L.S_DICE + 5] = np.repeat(np.arange(6), sp.outs[o])
            C.st_counts(st, counts)
            n = C.keep_options(st, opts, counts, keep)
            for r in (1, 2):
                st[L.S_REROLLS_LEFT] = r
                i = C.builtin_fight(L.P_OPTIMAL, L.D_KEEP, st, opts, n, params, fx)
                assert opts[i, L.O_ACTION] == fx.keep[-1, r, o]
            i = C.builtin_fight(L.P_GREEDY, L.D_KEEP, st, opts, n, params, fx)
            assert opts[i, L.O_ACTION] == D.greedy_keep(fx.faces, fx.abilities, -1, sp.outs[o], params, keep)
            buy = C.builtin_fight(L.P_OPTIMAL, L.D_BUY_REROLL, st, opts, 2, params, fx)
            assert buy == int(fx.value[1, o] > fx.value[0, o] + 1e-9)
    opts[:3, L.O_ACTION] = [0, 2, 3]
    opts[:3, L.O_ARG] = [4, 6, 6]
    assert C.builtin_fight(L.P_OPTIMAL, L.D_ABILITY, st, opts, 3, params, fx) == 1
    opts[:3, L.O_ARG] = [7, 3, 3]
    assert C.builtin_fight(L.P_GREEDY, L.D_TARGET, st, opts, 3, params, fx) == 1


def test_one_turn_kill_rate_is_the_exact_probability(ranger):
    """optimal_reroll through whole fights: P(a 9-HP, harmless, defenceless monster dies on turn 1) = P(the
    damage-optimal keeps end on damage >= 9) under 3 rolls (no bought reroll), from the exact tables."""
    fx = with_combat(with_monster(ranger, RAT, M_HP=9, M_ATK_KIND=L.ATK_PATTERN, M_PATTERN_LEN=1, M_PATTERN=[0]),
                     C_MAX_BOUGHT=0)
    sp = D.space(5)
    rows = np.arange(sp.n_out)
    dist = D.first_roll(sp).copy()
    for r in (2, 1):
        dist = dist @ sp.prob[sp.mask_kept[rows, fx.keep[-1, r]]]
    od = D.hero_odds(load_heroes().heroes["ranger"])
    exact = float(dist[od.damage >= 9].sum())
    assert 0.15 < exact < 0.3
    n = 3000
    wins = 0
    for g in range(n):
        st = np.zeros(ST_SIZE, dtype=np.int64)
        C.hero_start(fx, st)
        res, st, pol, dice = run_fight(fx, [RAT], pid=L.P_OPTIMAL, seed=7, game=g, st=st, trace_rows=0)
        wins += st[L.S_FIGHT_TURN] == 1
    se = (exact * (1 - exact) / n) ** 0.5
    assert abs(wins / n - exact) < 4 * se


def test_make_pol_defaults():
    pol = make_pol(None)
    assert pol.params.tolist() == list(D.GREEDY_PARAMS.values())


JIT_OFF = """
import hashlib, sys
import numpy as np
sys.path.insert(0, {tests!r})
from rooms_fight_stub import ST_SIZE, run_fight
from foury_sim.games.rooms import combat as C
from foury_sim.games.rooms import layout as L
from foury_sim.games.rooms.ruleset import load_heroes
rules = load_heroes()
digest = hashlib.sha256()
for k, hero in enumerate(rules.heroes):
    fx = C.pack_fight(rules, hero)
    for pid in (L.P_RANDOM, L.P_GREEDY, L.P_OPTIMAL):
        st = np.zeros(ST_SIZE, dtype=np.int64)
        C.hero_start(fx, st)
        for g in range(3):
            res, st, pol, dice = run_fight(fx, [g, 5 - g, 2], pid=pid, seed=11, game=100 * k + 10 * pid + g, st=st)
            digest.update(np.int64(res).tobytes() + st.tobytes() + dice.trace.tobytes())
            st[L.S_HP] = st[L.S_HP_MAX]
print(digest.hexdigest())
"""


def test_jit_off_gives_the_same_fights(capsys):
    """Whole fights (every hero, random / greedy / optimal_reroll, three monsters, traces on) are the same with
    NUMBA_DISABLE_JIT=1 as compiled."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).resolve().parent
    script = JIT_OFF.format(tests=str(here))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(here.parent)}
    off = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    exec(compile(script, "jit_on", "exec"), {})
    on = capsys.readouterr().out
    assert off.stdout.strip() == on.strip() and len(on.strip()) == 64
