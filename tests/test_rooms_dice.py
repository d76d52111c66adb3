"""Rooms' combat dice (docs/rules-rooms.md, "Combat dice"): hero sheets, the combo recognisers, the exact keep
transitions, the reroll programme against brute force and Monte Carlo, the greedy heuristic, bad sheets."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from foury_sim import rng
from foury_sim.errors import InputError
from foury_sim.games.rooms import dice as D
from foury_sim.games.rooms import layout as L
from foury_sim.games.rooms.ruleset import load_heroes

NO_SCRIPT = np.zeros(0, dtype=np.int64)


@pytest.fixture(scope="module")
def rules():
    return load_heroes()


def faces_table(numbers, symbols):
    f = np.zeros((L.N_FACES, L.F_COLS), dtype=np.int64)
    f[:, L.F_NUMBER] = numbers
    f[:, L.F_SYMBOL] = symbols
    return f


def ability_table(*abilities):
    """Rows from ([(kind, a, b), ...], damage) pairs."""
    rows = np.full((len(abilities), L.AB_COLS), -1, dtype=np.int64)
    for i, (needs, damage) in enumerate(abilities):
        rows[i, L.AB_N_REQ] = len(needs)
        for q, need in enumerate(needs):
            rows[i, L.AB_REQ + q * L.RQ_COLS: L.AB_REQ + (q + 1) * L.RQ_COLS] = need
        rows[i, L.AB_EFFECT:] = 0
        rows[i, L.AB_EFFECT + L.E_DAMAGE] = damage
    return rows


#: A die with a repeated number and symbols that split equal numbers: faces differ by index, not number.
ODD_FACES = faces_table([1, 1, 2, 3, 3, 6], [0, L.NO_SYMBOL, 0, 1, L.NO_SYMBOL, 1])


def naive_need(numbers, symbols, need, dice):
    """An independent recogniser over the dice's numbers and symbols."""
    kind, a, b = need
    nums = [numbers[f] for f in dice]
    cnt = Counter(nums)
    vals = sorted(cnt.values(), reverse=True) + [0, 0]
    if kind == L.CK_KIND:
        return vals[0] >= a
    if kind == L.CK_SMALL_STRAIGHT:
        return any(set(range(s, s + 4)) <= set(nums) for s in (1, 2, 3))
    if kind == L.CK_LARGE_STRAIGHT:
        return any(set(range(s, s + 5)) <= set(nums) for s in (1, 2))
    if kind == L.CK_FULL_HOUSE:
        return (vals[0] >= 3 and vals[1] >= 2) or (a == 1 and vals[0] >= 5)
    if kind == L.CK_TWO_PAIR:
        return (vals[0] >= 2 and vals[1] >= 2) or (a == 1 and vals[0] >= 4)
    return sum(symbols[f] == a for f in dice) >= b


ALL_NEEDS = [(L.CK_KIND, n, -1) for n in (2, 3, 4, 5)] + [
    (L.CK_SMALL_STRAIGHT, -1, -1), (L.CK_LARGE_STRAIGHT, -1, -1), (L.CK_FULL_HOUSE, 0, -1), (L.CK_TWO_PAIR, 0, -1),
    (L.CK_FULL_HOUSE, 1, -1), (L.CK_TWO_PAIR, 1, -1),
] + [(L.CK_SYMBOL, s, k) for s in (0, 1) for k in (1, 2, 3, 5)]


# ------------------------------------------------------------------------------ hero sheets --
def test_shipped_heroes_and_monsters_are_packed(rules):
    assert list(rules.heroes) == ["ranger", "alchemist", "paladin", "berserker"]
    r = rules.heroes["ranger"]
    assert r.symbols == ("arrow", "step", "eye")
    assert r.faces[:, L.F_NUMBER].tolist() == [1, 2, 3, 4, 5, 6]
    assert r.faces[:, L.F_SYMBOL].tolist() == [0, 0, 0, 1, 1, 2]
    volley = r.abilities[r.ability_keys.index("volley")]
    assert volley[L.AB_N_REQ] == 1
    assert volley[L.AB_REQ: L.AB_REQ + 3].tolist() == [L.CK_SYMBOL, 0, 3]
    assert volley[L.AB_EFFECT:].tolist() == [4, 0, 0, 0, 0, 0, 0]
    opus = rules.heroes["alchemist"].abilities[5]
    assert opus[L.AB_N_REQ] == 3 and opus[L.AB_REQ: L.AB_REQ + 9].tolist() == [5, 0, 2, 5, 1, 2, 5, 2, 1]
    pal = rules.heroes["paladin"].row
    assert pal[L.H_DEF_DICE] == 4 and pal[L.H_DEF_BLOCK: L.H_DEF_BLOCK + 6].tolist() == [0, 0, 1, 1, 1, 2]
    skel = rules.monsters["skeleton"].row
    assert skel[L.M_ATK_KIND] == L.ATK_PATTERN and skel[L.M_PATTERN_LEN] == 3
    assert skel[L.M_PATTERN: L.M_PATTERN + 3].tolist() == [3, 2, 4]
    spider = rules.monsters["giant_spider"].row
    assert spider[L.M_ATK_KIND] == L.ATK_DICE and spider[L.M_POISON] == 1
    assert rules.combat[L.C_ROLLS] == 3 and rules.combat[L.C_DICE] == 5
    assert {a.key for a in rules.assumptions} >= {"heroes.ranger", "heroes.berserker", "combat.reroll_cost"}


def _bad_file(tmp_path, text):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    return str(p)


HERO_HEAD = """[heroes.bad]
hp = 20
numbers = [1, 2, 3, 4, 5, 6]
symbols = ["x", "x", "x", "", "", "y"]
[heroes.bad.abilities.one]
"""


@pytest.mark.parametrize("text, message, line", [
    (HERO_HEAD + 'needs = [{ combo = "straight" }]\ndamage = 3\n', "unknown combo 'straight'", 6),
    (HERO_HEAD + 'needs = [{ combo = "symbol", symbol = "z", k = 2 }]\ndamage = 3\n',
     "unknown symbol 'z' (this hero's dice show: x, y)", 6),
    (HERO_HEAD + 'needs = [{ combo = "kind", n = 6 }]\ndamage = 3\n', "needs[0].n = 6 is above 5", 6),
    (HERO_HEAD + 'needs = [{ combo = "kind", n = 3 }]\n', "heroes.bad.abilities.one has no effect", 5),
    (HERO_HEAD + 'needs = [{ combo = "kind", n = 3 }]\ndamage = -1\n', "damage = -1 is below 0", 7),
    (HERO_HEAD + 'needs = [{ combo = "kind" }]\ndamage = 1\n', "a kind combo needs 'n'", 6),
    (HERO_HEAD + 'needs = []\ndamage = 1\n', "needs must be a list of 1..3 combos", 6),
    (HERO_HEAD.replace("hp = 20", "hitpoints = 20") + 'needs = [{ combo = "two_pair" }]\ndamage = 1\n',
     "heroes.bad has unknown key 'hitpoints'", 2),
    (HERO_HEAD.replace('"y"]', '"y", "z"]') + 'needs = [{ combo = "two_pair" }]\ndamage = 1\n',
     "symbols must be a list of 6 texts", 4),
    (HERO_HEAD.replace("4, 5, 6]", "4, 5, 7]") + 'needs = [{ combo = "two_pair" }]\ndamage = 1\n',
     "numbers[5] = 7 is above 6", 3),
    (HERO_HEAD.replace("4, 5, 6]", "3, 5, 6]") + 'needs = [{ combo = "small_straight" }]\ndamage = 1\n',
     "a small_straight can never be made: the faces show the numbers 1 2 3 5 6", 6),
    (HERO_HEAD.replace("2, 3, 4, 5, 6]", "1, 1, 1, 1, 1]") + 'needs = [{ combo = "full_house" }]\ndamage = 1\n',
     "a full_house needs two different numbers, every face shows 1", 6),
    ('[monsters.blob]\nhp = 5\nattack = { kind = "bite", dice = 1 }\n', 'attack.kind must be "dice" or "pattern"', 3),
    ('[monsters.blob]\nhp = 5\nattack = { kind = "pattern", pattern = [1,2,3,4,5,6,7,8,9] }\n',
     "pattern must be a list of 1..8 whole numbers", 3),
])
def test_bad_sheets_are_refused_in_one_line(tmp_path, text, message, line):
    path = _bad_file(tmp_path, text)
    with pytest.raises(InputError) as e:
        load_heroes(path)
    assert message in e.value.message
    assert "\n" not in str(e.value)
    assert re.fullmatch(rf"{re.escape(path)}:{line}:\d+", e.value.where), e.value.where


@pytest.mark.parametrize("sets, message", [
    (["combat.dice=3"], "heroes.ranger.abilities.trick_shot.needs[0]: a two_pair needs 4 dice, the hero rolls 3"),
    (["combat.max_bought_rerolls=3"], "combat.rolls - 1 + combat.max_bought_rerolls must be at most 4 rerolls"),
    (["heroes.paladin.defense.dice=6"], "heroes.paladin.defense.dice = 6 is above 5"),
    # faces set so that a shipped ability can never be made: the --set is the cause, not the ability's line
    (["heroes.ranger.numbers=1,1,1,1,1,1"],
     "heroes.ranger.abilities.trick_shot.needs[0]: a two_pair needs two different numbers, every face shows 1"),
])
def test_bad_sets_are_refused_in_one_line(sets, message):
    with pytest.raises(InputError) as e:
        load_heroes(None, sets)
    assert message in e.value.message
    assert e.value.where.startswith(f"--set {sets[0]}") and "\n" not in str(e.value)


def test_odds_script_prints_the_tables(rules, capsys):
    assert D.main(["--hero", "berserker"]) == 0
    assert capsys.readouterr().out == "\n".join(D.odds_lines(rules, "berserker")) + "\n"
    assert D.main(["--monsters"]) == 0
    assert capsys.readouterr().out == "\n".join(D.monster_lines(rules)) + "\n"
    assert D.main(["--hero", "paladin", "--set", "rulings.full_house_five_of_a_kind=true"]) == 0
    assert re.search(r"\nJudgement +full house +3\.94% +36\.61% ", capsys.readouterr().out)  # 3.86%, 36.29% without


def test_odds_script_exit_2_on_bad_input(capsys):
    assert D.main(["--set", "combat.rolls=9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "combat.rolls = 9 is above 5" in err
    assert D.main(["--hero", "nobody"]) == 2
    assert "unknown hero 'nobody' (known: ranger, alchemist, paladin, berserker)" in capsys.readouterr().err


# ------------------------------------------------------------------------------ recognisers --
@pytest.mark.parametrize("numbers, symbols", [([1, 2, 3, 4, 5, 6], [0, 0, 0, 1, 1, L.NO_SYMBOL]),
                                              ([1, 1, 2, 3, 3, 6], [0, L.NO_SYMBOL, 0, 1, L.NO_SYMBOL, 1])])
def test_recognisers_on_drawn_dice(numbers, symbols):
    """Every combo kind against an independent recogniser, on 600 hands drawn from the per-game dice streams."""
    faces = faces_table(numbers, symbols)
    counts = np.zeros(L.N_FACES, dtype=np.int64)
    hits = Counter()
    for g in range(600):
        rs = rng.stream(2026, g)
        hand = [rng.roll(rs, NO_SCRIPT, 6) - 1 for _ in range(5)]
        counts[:] = np.bincount(hand, minlength=6)
        for need in ALL_NEEDS:
            got = D.need_met(faces, need[0], need[1], need[2], counts)
            assert got == naive_need(numbers, symbols, need, hand), (need, hand)
            hits[need] += got
    if numbers == [1, 2, 3, 4, 5, 6]:  # every kind was seen made and missed
        assert all(0 < hits[n] < 600 for n in ALL_NEEDS if n not in ((L.CK_KIND, 5, -1), (L.CK_SYMBOL, 1, 5),
                                                                     (L.CK_SYMBOL, 0, 5)))
        assert hits[L.CK_TWO_PAIR, 1, -1] > hits[L.CK_TWO_PAIR, 0, -1]  # four of a kind was drawn


@pytest.mark.parametrize("hand, made", [
    ([0, 1, 2, 3, 5], {"small_straight"}),  # 1 2 3 4 6
    ([1, 2, 3, 4, 5], {"small_straight", "large_straight"}),  # 2 3 4 5 6
    ([1, 1, 2, 2, 2], {"full_house", "two_pair", "kind3"}),  # 2 2 3 3 3
    ([3, 3, 3, 3, 3], {"kind3", "kind5"}),  # five 4s: no full house, no two pair
    ([0, 0, 4, 4, 2], {"two_pair"}),
])
def test_recognisers_on_scripted_hands(hand, made):
    faces = faces_table([1, 2, 3, 4, 5, 6], [L.NO_SYMBOL] * 6)
    counts = np.bincount(hand, minlength=6).astype(np.int64)
    names = {"kind3": (L.CK_KIND, 3, -1), "kind5": (L.CK_KIND, 5, -1), "small_straight": (L.CK_SMALL_STRAIGHT, -1, -1),
             "large_straight": (L.CK_LARGE_STRAIGHT, -1, -1), "full_house": (L.CK_FULL_HOUSE, 0, -1),
             "two_pair": (L.CK_TWO_PAIR, 0, -1)}
    assert {k for k, n in names.items() if D.need_met(faces, *n, counts)} == made
    # rulings: one number on all the dice counts as a full house / two pair (RQ_A = 1)
    five = hand == [3, 3, 3, 3, 3]
    assert D.need_met(faces, L.CK_FULL_HOUSE, 1, -1, counts) == ("full_house" in made or five)
    assert D.need_met(faces, L.CK_TWO_PAIR, 1, -1, counts) == ("two_pair" in made or five)


def test_full_house_ruling_is_data(rules):
    """rulings.full_house_five_of_a_kind = true packs RQ_A = 1 into Judgement: its odds rise by the Yahtzees."""
    pal = rules.heroes["paladin"]
    j = pal.ability_keys.index("judgement")
    assert pal.abilities[j, L.AB_REQ + L.RQ_A] == 0
    alt = load_heroes(None, ["rulings.full_house_five_of_a_kind=true"]).heroes["paladin"]
    assert alt.abilities[j, L.AB_REQ + L.RQ_A] == 1
    p0, p1 = D.hero_odds(pal).p(j, 3), D.hero_odds(alt).p(j, 3)
    assert p0 == pytest.approx(0.3629, abs=5e-5) and p1 == pytest.approx(0.3661, abs=5e-5)
    with pytest.raises(InputError, match="rulings.two_pair_four_of_a_kind must be true or false, not 'yes'"):
        load_heroes(None, ["rulings.two_pair_four_of_a_kind=yes"])


def test_abilities_need_every_requirement_and_fire_the_most_damage():
    abilities = ability_table(([(L.CK_SYMBOL, 0, 2)], 2), ([(L.CK_SYMBOL, 0, 2), (L.CK_KIND, 3, -1)], 7),
                              ([(L.CK_SYMBOL, 1, 1)], 3))
    counts = np.bincount([0, 0, 2, 5, 4], minlength=6).astype(np.int64)  # 1 1 2 6 3: x x x y -, numbers 1 1 2 6 3
    assert [D.ability_made(ODD_FACES, abilities, a, counts) for a in range(3)] == [True, False, True]
    assert D.best_fire(ODD_FACES, abilities, counts) == 2
    counts = np.bincount([0, 1, 1, 2, 5], minlength=6).astype(np.int64)  # three 1s, symbol 0 on three dice
    assert D.best_fire(ODD_FACES, abilities, counts) == 1


# ------------------------------------------------------------------------------ transitions --
def test_outcome_space_sizes():
    assert [D.space(n).n_out for n in (1, 2, 3, 5)] == [6, 21, 56, 252]
    sp = D.space(5)
    assert sp.kept.shape[0] == 462
    for o in (0, 100, 251):
        distinct = (sp.choice_kept[o] >= 0).sum()
        assert distinct == np.prod(sp.outs[o] + 1)  # keep 0..c_f of each face
        assert sp.choice_kept[o, 0] == sp.kept_index[D.counts_code(sp.outs[o])]  # keep all comes first
        assert sp.choice_mask[o, 0] == 31


def test_transitions_match_enumeration_of_every_reroll():
    """Every kept multiset of 5 dice: the exact counts of all 6^m ordered rerolls of the other m dice."""
    sp = D.space(5)
    for k, kc in enumerate(sp.kept):
        m = 5 - int(kc.sum())
        assert sp.denom[k] == 6**m
        ways = np.zeros(sp.n_out, dtype=np.int64)
        for reroll in itertools.product(range(6), repeat=m):
            oc = kc + np.bincount(np.array(reroll, dtype=np.int64), minlength=6)
            ways[sp.code_index[D.counts_code(oc)]] += 1
        assert np.array_equal(ways, sp.numer[k]), kc
    assert np.allclose(sp.prob.sum(axis=1), 1.0, atol=1e-15)


def test_keep_masks_name_the_kept_dice():
    sp = D.space(5)
    o = sp.code_index[D.counts_code(np.array([2, 0, 1, 0, 2, 0]))]  # dice 0 0 2 4 4
    kept = sp.kept[sp.mask_kept[o, 0b10011]]  # positions 0, 1, 4: faces 0, 0, 4
    assert kept.tolist() == [2, 0, 0, 0, 1, 0]
    assert D.keep_mask(sp.outs[o], np.array([1, 0, 1, 0, 1, 0])) == 0b01101  # first of each run


def _space_by_loops(n_dice):
    """``D.space``'s arrays by a loop over every keep and reroll and every mask of every outcome (the code before
    session 50's vectorised one, about 0.25 s a process at 5 dice): counts by ``bincount``, orderings by
    factorials."""
    from math import factorial

    def multisets(size):
        rows = [np.bincount(np.array(d, dtype=np.int64), minlength=6)
                for d in itertools.combinations_with_replacement(range(6), size)]
        return np.array(rows, dtype=np.int64).reshape(-1, 6)

    def orderings(r):
        out = factorial(int(r.sum()))
        for x in r:
            out //= factorial(int(x))
        return out

    def code(counts):  # a row's or each row's counts code, as D.counts_code
        return counts @ D.BASE ** np.arange(6)

    outs = multisets(n_dice)
    kept = np.concatenate([multisets(k) for k in range(n_dice + 1)])
    code_index = np.full(D.N_CODES, -1, dtype=np.int64)
    code_index[code(outs)] = np.arange(len(outs))
    kept_index = np.full(D.N_CODES, -1, dtype=np.int64)
    kept_index[code(kept)] = np.arange(len(kept))
    numer = np.zeros((len(kept), len(outs)), dtype=np.int64)
    denom = np.zeros(len(kept), dtype=np.int64)
    for k, kc in enumerate(kept):
        m = n_dice - int(kc.sum())
        denom[k] = 6**m
        for r in multisets(m):
            numer[k, code_index[code(kc + r)]] += orderings(r)
    mask_kept = np.full((len(outs), L.N_MASKS), -1, dtype=np.int64)
    choice_kept = np.full((len(outs), L.N_MASKS), -1, dtype=np.int64)
    for o, oc in enumerate(outs):
        dice = np.repeat(np.arange(6), oc)
        for mask in range(1 << n_dice):
            kc = np.bincount(dice[[i for i in range(n_dice) if mask >> i & 1]], minlength=6)
            mask_kept[o, mask] = kept_index[code(kc)]
        distinct = sorted(set(mask_kept[o, : 1 << n_dice].tolist()), key=lambda k: (-int(kept[k].sum()), k))
        for j, k in enumerate(distinct):
            choice_kept[o, j] = k
    return {"outs": outs, "kept": kept, "code_index": code_index, "kept_index": kept_index, "numer": numer,
            "denom": denom, "mask_kept": mask_kept, "choice_kept": choice_kept}


@pytest.mark.parametrize("n_dice", [1, 2, 3, 4, 5])
def test_outcome_space_is_the_loop_over_every_keep_and_reroll(n_dice):
    """The vectorised space: every array the loops give, equal, with the same dtype (and ``prob`` from them)."""
    sp = D.space(n_dice)
    for name, want in _space_by_loops(n_dice).items():
        got = getattr(sp, name)
        assert got.dtype == want.dtype and np.array_equal(got, want), name
    assert np.array_equal(sp.prob, sp.numer / sp.denom[:, None])


# -------------------------------------------------------------------------- the programme --
def brute_ordered(n, rolls, final):
    """Expectimax over ordered dice tuples and every subset of positions (no multisets, no multinomials): the
    best expected value of ``final`` within ``rolls`` rolls."""
    memo = {}
    last = {t: final(t) for t in itertools.product(range(6), repeat=n)}

    def best(t, left):
        if left == 0:
            return last[t]
        if (t, left) in memo:
            return memo[t, left]
        v = 0.0
        for keep in range(1 << n):
            free = [i for i in range(n) if not keep >> i & 1]
            total = 0.0
            for reroll in itertools.product(range(6), repeat=len(free)):
                u = list(t)
                for i, x in zip(free, reroll, strict=True):
                    u[i] = x
                total += best(tuple(u), left - 1)
            v = max(v, total / 6 ** len(free))
        memo[t, left] = v
        return v

    return sum(best(t, rolls - 1) for t in itertools.product(range(6), repeat=n)) / 6**n


SMALL_CASES = [
    (2, 3, ability_table(([(L.CK_KIND, 2, -1)], 1)), 0),
    (2, 3, ability_table(([(L.CK_SYMBOL, 1, 2)], 1)), 0),
    (3, 3, ability_table(([(L.CK_KIND, 3, -1)], 1)), 0),
    (3, 2, ability_table(([(L.CK_KIND, 2, -1), (L.CK_SYMBOL, 0, 2)], 1)), 0),
    (3, 3, ability_table(([(L.CK_KIND, 3, -1)], 5), ([(L.CK_SYMBOL, 1, 2)], 2), ([(L.CK_SYMBOL, 0, 1)], 1)), -1),
]


@pytest.mark.parametrize("n, rolls, abilities, obj", SMALL_CASES)
def test_programme_matches_brute_force_small(n, rolls, abilities, obj):
    sp = D.space(n)
    made = np.zeros((abilities.shape[0], sp.n_out), dtype=np.bool_)
    fire = np.zeros(sp.n_out, dtype=np.int64)
    damage = np.zeros(sp.n_out)
    D.classify(ODD_FACES, abilities, sp.outs, made, fire, damage)
    final_v = made[obj].astype(float) if obj >= 0 else damage
    value, masks = D.optimise(sp, final_v, rolls - 1)
    exact = D.first_roll(sp) @ value[rolls - 1]

    def final(t):
        c = np.bincount(np.array(t, dtype=np.int64), minlength=6)
        return float(final_v[sp.code_index[D.counts_code(c)]])

    assert exact == pytest.approx(brute_ordered(n, rolls, final), abs=1e-12)
    # the stored keep masks reach the value (policy evaluation of the table = the programme's value)
    assert np.allclose(D.evaluate(sp, final_v, masks), value, atol=1e-12)


def test_every_strategy_of_one_die_three_rolls():
    """One die, 3 rolls, objective "shows symbol 1" (faces 3 and 5): all 2^6 x 2^6 stop/reroll strategies."""
    sp = D.space(1)
    abilities = ability_table(([(L.CK_SYMBOL, 1, 1)], 1))
    made = np.zeros((1, 6), dtype=np.bool_)
    D.classify(ODD_FACES, abilities, sp.outs, made, np.zeros(6, dtype=np.int64), np.zeros(6))
    goal = made[0].astype(float)
    best = 0.0
    for s1, s2 in itertools.product(range(64), repeat=2):  # bit f: keep the die when it shows face f
        p2 = np.array([1.0 if s2 >> f & 1 else 0.0 for f in range(6)])
        v1 = np.where(p2 > 0, goal, goal.mean())  # one reroll left
        v2 = np.array([v1[f] if s1 >> f & 1 else v1.mean() for f in range(6)])
        best = max(best, v2.mean())
    value, _ = D.optimise(sp, goal, 2)
    assert D.first_roll(sp) @ value[2] == pytest.approx(best, abs=1e-15)
    assert best == pytest.approx(1 - (4 / 6) ** 3)


def test_five_of_a_kind_within_three_rolls_is_the_known_value(rules):
    od = D.hero_odds(rules.heroes["berserker"])
    assert od.p(2, 3) == pytest.approx(2783176 / 60466176, abs=1e-12)  # Yahtzee in three rolls: 4.6029%
    assert od.p(2, 1) == pytest.approx(6 / 6**5)


def test_optimal_is_never_worse_than_greedy_and_lookup_agrees(rules):
    sp = D.space(5)
    for h in rules.heroes.values():
        od = D.hero_odds(h)
        assert np.all(od.value >= od.greedy_value - 1e-12)
        assert np.all(np.diff(od.value, axis=1) >= -1e-12)  # a reroll more never hurts
    counts = sp.outs[137].copy()
    for r in range(4):
        assert D.table_keep(od.keep, 1, r, counts, sp.code_index) == od.keep[1, r, 137]


@pytest.mark.parametrize("hero, obj", [("ranger", 2), ("alchemist", 5), ("paladin", -1), ("berserker", -1)])
def test_tables_against_monte_carlo(rules, hero, obj):
    """The optimal table (and the live greedy heuristic) played on the per-game dice streams: the measured
    success rate / mean damage lies within 4 standard errors of the exact value."""
    h = rules.heroes[hero]
    od = D.hero_odds(h)
    sp = od.space
    n = 20000
    params = np.array(list(D.GREEDY_PARAMS.values()))
    for greedy in (0, 1):
        out = np.zeros(n)
        D.simulate_turns(7, 0, n, 5, 2, h.faces, h.abilities, obj, od.keep, sp.code_index, greedy, params, NO_SCRIPT,
                         out)
        exact = od.p(obj, 3, greedy=bool(greedy))
        se = out.std() / np.sqrt(n)
        assert abs(out.mean() - exact) < 4 * se, (greedy, out.mean(), exact, se)
    again = np.zeros(100)
    D.simulate_turns(7, 0, 100, 5, 2, h.faces, h.abilities, obj, od.keep, sp.code_index, 1, params, NO_SCRIPT, again)
    assert np.array_equal(again, out[:100])  # same streams, same turns


def test_scripted_turn_follows_the_table(rules):
    """A scripted turn: 1 2 3 4 6 with one reroll left keeps the small straight for Running Fire (stop)."""
    h = rules.heroes["ranger"]
    od = D.hero_odds(h)
    dice = np.zeros(5, dtype=np.int64)
    counts = np.zeros(6, dtype=np.int64)
    keep = np.zeros(6, dtype=np.int64)
    rs = rng.stream(1, 0)
    script = np.array([1, 2, 3, 4, 6], dtype=np.int64)
    params = np.array(list(D.GREEDY_PARAMS.values()))
    D.play_turn(rs, script, 5, 2, h.faces, h.abilities, 2, od.keep, od.space.code_index, 0, params, dice, counts, keep)
    assert dice.tolist() == [0, 1, 2, 3, 5] and rs[3] == 5  # no die rerolled
    # chasing the large straight from 1 1 3 4 5: keep 1 3 4 5, reroll one 1 into a 2
    rs = rng.stream(1, 0)
    script = np.array([1, 1, 3, 4, 5, 2], dtype=np.int64)
    D.play_turn(rs, script, 5, 2, h.faces, h.abilities, 3, od.keep, od.space.code_index, 0, params, dice, counts, keep)
    assert dice.tolist() == [0, 1, 2, 3, 4] and rs[3] == 6


def test_greedy_keeps_the_best_partial_combo(rules):
    h = rules.heroes["ranger"]
    keep = np.zeros(6, dtype=np.int64)
    params = np.array(list(D.GREEDY_PARAMS.values()))
    counts = np.bincount([0, 0, 2, 3, 5], minlength=6).astype(np.int64)  # 1 1 3 4 6
    # small straight: the window 3-6 has 3 of 4 numbers (1-4 also has 3: the first wins) -> keep 1 3 4
    assert D.greedy_keep(h.faces, h.abilities, 2, counts, params, keep) == 0b01101
    # two pair: keep the pair of 1s and one more single (the highest: 6)
    assert D.greedy_keep(h.faces, h.abilities, 1, counts, params, keep) == 0b10011
    # three arrows (faces 1-3) are made by 1 1 3: keep all; Hawkeye (three eyes, face 6): keep the one 6
    assert D.greedy_keep(h.faces, h.abilities, 0, counts, params, keep) == 0b11111
    assert D.greedy_keep(h.faces, h.abilities, 4, counts, params, keep) == 0b10000
    made = np.bincount([0, 1, 2, 3, 5], minlength=6).astype(np.int64)  # 1 2 3 4 6: small straight made
    assert D.greedy_keep(h.faces, h.abilities, 2, made, params, keep) == 0b11111
    # damage: Running Fire (6) is made but < stop_at 0.7 x 9 (Rain of Arrows); Rain's progress is 4/5 and
    # 9 x 0.8 > 6 x 1: chase it, keeping 1 2 3 4; with stop_at = 0.5, 6 >= 4.5: stop
    assert D.GREEDY_PARAMS == {"stop_at": 0.7, "progress_power": 1.0}
    assert D.greedy_keep(h.faces, h.abilities, -1, made, params, keep) == 0b01111
    assert D.greedy_keep(h.faces, h.abilities, -1, made, np.array([0.5, 1.0]), keep) == 0b11111
    # progress_power 2: 9 x 0.64 < 6: Running Fire is the best chase, and it is made: stop
    assert D.greedy_keep(h.faces, h.abilities, -1, made, np.array([0.7, 2.0]), keep) == 0b11111


JIT_OFF = """
import hashlib, numpy as np
from foury_sim.games.rooms import dice as D
from foury_sim.games.rooms.ruleset import load_heroes
h = load_heroes().heroes["alchemist"]
od = D.hero_odds(h)
params = np.array(list(D.GREEDY_PARAMS.values()))
outs = []
for greedy in (0, 1):
    out = np.zeros(150)
    D.simulate_turns(11, 40, 150, 5, 2, h.faces, h.abilities, -1, od.keep, od.space.code_index, greedy, params,
                     np.zeros(0, dtype=np.int64), out)
    outs.append(out)
print(hashlib.sha1(od.keep.tobytes() + od.greedy_keep.tobytes() + np.concatenate(outs).tobytes()).hexdigest())
"""


def test_jit_off_gives_the_same_tables_and_turns(capsys):
    """The same tables and turns with NUMBA_DISABLE_JIT=1 (the slow, debuggable baseline) as compiled (here)."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(root)}
    off = subprocess.run([sys.executable, "-c", JIT_OFF], env=env, capture_output=True, text=True, check=True)
    exec(compile(JIT_OFF, "jit_on", "exec"), {})  # the same script in this (compiled) process
    on = capsys.readouterr().out
    assert off.stdout.strip() == on.strip() and len(on.strip()) == 40


def test_rules_doc_is_current(rules):
    """docs/rules-rooms.md holds exactly the valid ranges (``RANGES``) and the odds table the script prints."""
    from foury_sim.games.rooms.ruleset import RANGES
    from foury_sim.rulesfile import ranges_markdown

    text = (Path(__file__).resolve().parents[1] / "docs" / "rules-rooms.md").read_text()
    table = text.split("<!-- valid-ranges:begin -->\n", 1)[1].split("<!-- valid-ranges:end -->", 1)[0]
    assert table == ranges_markdown(RANGES)
    odds = "\n\n".join("\n".join(D.odds_lines(rules, h)) for h in rules.heroes)
    assert f"```\n{odds}\n```" in text
    assert "```\n" + "\n".join(D.monster_lines(rules)) + "\n```" in text


def test_the_odds_tables_print_from_the_package_without_a_warning(rules):
    """``python -m foury_sim.games.rooms --monsters`` prints the monsters' table the doc holds, and nothing on stderr
    (``python -m foury_sim.games.rooms.dice`` ran a module the package had imported: runpy's RuntimeWarning)."""
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    r = subprocess.run([sys.executable, "-m", "foury_sim.games.rooms", "--monsters"], env=env, capture_output=True,
                       text=True, cwd=Path(__file__).resolve().parents[1])
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == "\n".join(D.monster_lines(rules)) + "\n"


def test_defensive_rolls_and_monster_attacks_in_numbers(rules):
    assert np.allclose(D.sum_distribution(2, np.array([0, 0, 1, 1, 2, 2])), np.array([1, 2, 3, 2, 1]) / 9)
    assert D.sum_distribution(0, np.zeros(6, dtype=np.int64)).tolist() == [1.0]
    assert D.defence_line(rules.heroes["berserker"]) == ("defensive roll: 1 die, expected block 0.33 (nothing "
                                                         "blocked 66.7%, at most 1), expected counter 0.50")
    rows = {line.split("  ")[0].strip(): line for line in D.monster_lines(rules)[2:]}
    assert rows["Skeleton"].split()[-5:] == ["3.00", "4", "0.0%", "0.50", "-"]
    assert "pattern 3, 2, 4" in rows["Skeleton"] and " 3.00 " in rows["Skeleton"]
    assert "3 d6: 0 1 2 2 3 4" in rows["Dragon"] and " 6.00    12    0.5%   1.33  -" in rows["Dragon"]
    assert rows["Giant Spider"].endswith("poison 1") and rows["Ogre"].endswith("stun 1")
