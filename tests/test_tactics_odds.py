"""Tactics combat: the one roll-off and exchange (scripted dice), the move cost, and the exact odds against brute
force (every die enumerated), the Markov chain against an absorbing-chain linear solve, and the engine's
frequencies against the exact figures."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from foury_sim.games.tactics import combat as C
from foury_sim.games.tactics import odds as O
from foury_sim.games.tactics import ruleset as R
from foury_sim.oddstable import verdict
from foury_sim.rng import stream


@pytest.fixture(scope="module")
def rs():
    return R.load_ruleset()


def _terms(p_dice=2, p_mod=0, m_dice=2, m_mod=0, p_dmg=1, m_dmg=1, blow=3, chicken=0, triple=0, drain=0,
           chicken_sixes=2, triple_sixes=3):
    t = C.new_terms()
    t[:] = (p_dice, p_mod, m_dice, m_mod, p_dmg, m_dmg, blow, chicken, triple, drain, chicken_sixes, triple_sixes)
    return t


def _script(*faces):
    return np.array(faces, dtype=np.int64)


# --- the roll-off and the exchange, scripted ------------------------------------------------------------------
def test_rolloff_rolls_player_dice_first_and_compares_totals():
    out = C.new_out()
    res = C.rolloff(stream(1, 0), _script(3, 4, 2, 2, 2), 2, 1, 3, 0, R.TIES_NOBODY, out)
    assert res == C.RO_WIN and out[C.X_P_TOTAL] == 8 and out[C.X_M_TOTAL] == 6
    assert list(out[C.X_P_DICE:C.X_P_DICE + 3]) == [3, 4, 0] and list(out[C.X_M_DICE:C.X_M_DICE + 3]) == [2, 2, 2]
    assert C.rolloff(stream(1, 0), _script(1, 1, 6, 6), 2, 0, 2, -11, R.TIES_NOBODY, out) == C.RO_WIN
    assert C.rolloff(stream(1, 0), _script(6, 6, 1, 1), 2, 0, 2, 11, R.TIES_NOBODY, out) == C.RO_LOSE


@pytest.mark.parametrize("ties, result", [(R.TIES_NOBODY, C.RO_TIE), (R.TIES_PLAYER, C.RO_WIN),
                                          (R.TIES_MONSTER, C.RO_LOSE)])
def test_a_tie_follows_the_ruling(ties, result):
    out = C.new_out()
    assert C.rolloff(stream(1, 0), _script(3, 4, 5, 2), 2, 0, 2, 0, ties, out) == result
    assert out[C.X_REROLLS] == 0


def test_reroll_ties_roll_both_sides_again():
    out = C.new_out()
    res = C.rolloff(stream(1, 0), _script(3, 4, 5, 2, 1, 1, 1, 1, 6, 6, 1, 2), 2, 0, 2, 0, R.TIES_REROLL, out)
    assert res == C.RO_WIN and out[C.X_REROLLS] == 2 and (out[C.X_P_SUM], out[C.X_M_SUM]) == (12, 3)


def test_exchange_melee_the_loser_takes_damage_ranged_only_the_target():
    out = C.new_out()
    t = _terms(p_dmg=2, m_dmg=1)
    assert C.exchange(stream(1, 0), _script(6, 5, 1, 1), t, 0, C.MELEE, 1, out) == C.RO_WIN
    assert (out[C.X_DMG_MON], out[C.X_DMG_PLAYER]) == (2, 0)
    C.exchange(stream(1, 0), _script(1, 1, 6, 5), t, 0, C.MELEE, 1, out)
    assert (out[C.X_DMG_MON], out[C.X_DMG_PLAYER]) == (0, 1)
    C.exchange(stream(1, 0), _script(1, 1, 6, 5), t, 0, C.PLAYER_RANGED, 1, out)  # the player's shot missed
    assert (out[C.X_DMG_MON], out[C.X_DMG_PLAYER]) == (0, 0)
    C.exchange(stream(1, 0), _script(6, 5, 1, 1), t, 0, C.MONSTER_RANGED, 0, out)  # the monster's shot missed
    assert (out[C.X_DMG_MON], out[C.X_DMG_PLAYER]) == (0, 0)
    C.exchange(stream(1, 0), _script(1, 1, 6, 5), t, 0, C.MONSTER_RANGED, 0, out)
    assert (out[C.X_DMG_MON], out[C.X_DMG_PLAYER]) == (0, 1)


def test_ogre_three_sixes_is_a_blow_whatever_the_totals():
    out = C.new_out()
    t = _terms(p_dice=2, p_mod=9, m_dice=3, triple=1, blow=3)
    assert C.exchange(stream(1, 0), _script(6, 6, 6, 6, 6), t, 0, C.MELEE, 0, out) == C.RO_LOSE
    assert out[C.X_BLOW] == 1 and out[C.X_DMG_PLAYER] == 3 and out[C.X_DMG_MON] == 0
    res = C.exchange(stream(1, 0), _script(1, 1, 6, 6, 5), t, 0, C.MELEE, 0, out)  # two sixes: a plain loss
    assert res == C.RO_LOSE and out[C.X_BLOW] == 0 and out[C.X_DMG_PLAYER] == 1


def test_staff_two_sixes_make_a_chicken_and_no_damage():
    out = C.new_out()
    t = _terms(p_dice=2, m_dice=3, chicken=1, triple=1)
    C.exchange(stream(1, 0), _script(6, 6, 6, 6, 6), t, 0, C.MELEE, 0, out)
    assert out[C.X_CHICKEN] == 1 and out[C.X_BLOW] == 0 and out[C.X_DMG_MON] == 0 and out[C.X_DMG_PLAYER] == 0


def test_the_chicken_needs_the_sixes_the_ruleset_says():
    """``abilities.chicken_sixes`` (the staff's printed "double sixes": 2) is the count of sixes among the player's
    dice that makes the chicken: set to 3, two sixes are a plain win and three make the chicken (berserk's 3d6)."""
    rs = R.load_ruleset(None, ["abilities.chicken_sixes=3"])
    assert rs.rules[R.R_CHICKEN_SIXES] == 3 and R.load_ruleset().rules[R.R_CHICKEN_SIXES] == 2
    staff, skel = rs.weapon_names.index("mage_staff"), rs.kind_index["skeleton"]
    t = O.terms_for(rs, skel, staff, 0, berserk=True)
    assert t[C.T_CHICKEN] == 1 and t[C.T_CHICKEN_SIXES] == 3 and t[C.T_P_DICE] == 3
    out = C.new_out()
    res = C.exchange(stream(1, 0), _script(6, 6, 1, 1, 1), t, 0, C.MELEE, 0, out)  # two sixes: a win, no chicken
    assert res == C.RO_WIN and out[C.X_CHICKEN] == 0 and out[C.X_DMG_MON] == 1
    C.exchange(stream(1, 0), _script(6, 6, 6, 1, 1), t, 0, C.MELEE, 0, out)  # three sixes: the chicken
    assert out[C.X_CHICKEN] == 1 and out[C.X_DMG_MON] == 0
    ex = O.exact_exchange(t)  # the exact odds read the same key: P(3 sixes of 3) = 1/216
    assert ex["chicken"] == Fraction(1, 216)


def test_the_blow_needs_the_sixes_the_ruleset_says():
    """``abilities.triple_six_sixes`` (the ogre's printed "three sixes": 3) is the count of sixes among the monster's
    dice that makes the massive blow: set to 2, two sixes are a blow however the totals stand."""
    rs = R.load_ruleset(None, ["abilities.triple_six_sixes=2"])
    assert rs.rules[R.R_TRIPLE_SIXES] == 2 and R.load_ruleset().rules[R.R_TRIPLE_SIXES] == 3
    t = O.terms_for(rs, rs.kind_index["ogre"], 0, 0, might=9)
    assert t[C.T_TRIPLE] == 1 and t[C.T_TRIPLE_SIXES] == 2 and t[C.T_M_DICE] == 3
    out = C.new_out()
    res = C.exchange(stream(1, 0), _script(5, 5, 6, 6, 1), t, 0, C.MELEE, 0, out)  # 10 + 9 against 13: a blow
    assert res == C.RO_LOSE and out[C.X_BLOW] == 1 and out[C.X_DMG_PLAYER] == 3
    res = C.exchange(stream(1, 0), _script(5, 5, 6, 1, 1), t, 0, C.MELEE, 0, out)  # one six: the player wins
    assert res == C.RO_WIN and out[C.X_BLOW] == 0
    # the exact odds read the same key: P(two or more sixes of 3) = 16/216, all of it a blow
    assert O.exact_exchange(t)["blow"] == Fraction(16, 216)


def test_storm_golem_drains_ap_only_when_the_player_loses_on_their_turn():
    out = C.new_out()
    t = _terms(drain=1)
    C.exchange(stream(1, 0), _script(1, 1, 6, 6), t, 0, C.MELEE, 1, out)
    assert out[C.X_AP_LOST] == 1
    C.exchange(stream(1, 0), _script(1, 1, 6, 6), t, 0, C.MELEE, 0, out)
    assert out[C.X_AP_LOST] == 0
    C.exchange(stream(1, 0), _script(6, 6, 1, 1), t, 0, C.MELEE, 1, out)
    assert out[C.X_AP_LOST] == 0


def test_combat_terms_follow_the_modifier_ruling(rs):
    ogre, skel, chicken = rs.kind_index["ogre"], rs.kind_index["skeleton"], rs.kind_index["chicken"]
    mace, axe, plate, robes = 1, 2, 4, 1
    t = O.terms_for(rs, skel, mace, plate, might=1)
    assert list(t) == [2, 3, 2, -4, 1, 1, 3, 0, 0, 0, 2, 3]  # mace +1, +1 vs undead, might +1; plate -4
    t = O.terms_for(rs, ogre, axe, robes, berserk=True)
    assert list(t) == [3, 2, 3, 0, 1, 1, 3, 0, 1, 0, 2, 3]
    dmg = R.load_ruleset(None, ["rulings.modifier=damage"])
    t = O.terms_for(dmg, skel, mace, plate, might=1)
    assert list(t) == [2, 0, 2, 0, 4, 0, 0, 0, 0, 0, 2, 3]  # a win deals 1 + 3, plate stops the skeleton's 1
    t = O.terms_for(dmg, chicken, 0, 0)
    assert list(t[[C.T_P_DMG, C.T_M_DMG]]) == [1, 0]  # the chicken's -2 leaves it no damage
    t = O.terms_for(rs, rs.kind_index["storm_golem"], 6, 0)
    assert t[C.T_DRAIN] == 1 and t[C.T_CHICKEN] == 1 and t[C.T_P_MOD] == 2


@pytest.mark.parametrize("sets, armor, combat, water, cost", [
    ([], 0, 0, 0, 1), ([], 0, 1, 0, 2), ([], 0, 0, 1, 2), ([], 0, 1, 1, 4),
    ([], 4, 0, 0, 2), ([], 4, 1, 0, 3), ([], 4, 0, 1, 4), ([], 4, 1, 1, 6),
    (["rulings.water=plate_printed"], 4, 0, 1, 8), (["rulings.water=plate_printed"], 4, 1, 1, 8),
    (["rulings.water=plate_printed"], 3, 0, 1, 2),
    (["armors.plate_mail.move_pct=200"], 4, 1, 0, 4),
])
def test_move_cost(sets, armor, combat, water, cost):
    r = R.load_ruleset(None, sets)
    assert C.move_cost(r.rules, r.armors, armor, combat, water) == cost


@pytest.mark.parametrize("name, water, lava, cost", [
    ("skeleton", 0, 0, 1), ("skeleton", 1, 0, 2), ("skeleton", 0, 1, -1), ("ogre", 1, 0, 8),
    ("cacodemon", 1, 0, 2), ("cacodemon", 0, 1, 2), ("fire_golem", 0, 1, -1), ("fire_golem", 1, 0, 4),
    ("storm_golem", 1, 0, 4), ("storm_golem", 0, 1, -1),
])
def test_monster_move_cost(rs, name, water, lava, cost):
    assert C.monster_move_cost(rs.rules, rs.monsters, rs.kind_index[name], water, lava) == cost


def test_the_lava_immune_walk_on_lava_only_by_the_ruling():
    """``rulings.lava_walk = "immune_too"``: the fire golem (lava-immune, not flying) steps onto lava at its ap_move;
    the storm golem (neither) still cannot; the default ("flyers") lets only the cacodemon."""
    rs = R.load_ruleset(None, ["rulings.lava_walk=immune_too"])
    cost = {n: C.monster_move_cost(rs.rules, rs.monsters, rs.kind_index[n], 0, 1)
            for n in ("fire_golem", "storm_golem", "cacodemon")}
    assert cost == {"fire_golem": 2, "storm_golem": -1, "cacodemon": 2}


# --- exact odds against brute force -----------------------------------------------------------------------
def _brute_rolloff(p_dice, p_mod, m_dice, m_mod, ties):
    n = 6 ** (p_dice + m_dice)
    w = t = lo = 0
    for faces in itertools.product(range(1, 7), repeat=p_dice + m_dice):
        d = sum(faces[:p_dice]) + p_mod - sum(faces[p_dice:]) - m_mod
        w, t, lo = w + (d > 0), t + (d == 0), lo + (d < 0)
    if ties == R.TIES_REROLL:
        return Fraction(w, w + lo), Fraction(0), Fraction(lo, w + lo)
    if ties == R.TIES_PLAYER:
        return Fraction(w + t, n), Fraction(0), Fraction(lo, n)
    if ties == R.TIES_MONSTER:
        return Fraction(w, n), Fraction(0), Fraction(lo + t, n)
    return Fraction(w, n), Fraction(t, n), Fraction(lo, n)


@pytest.mark.parametrize("p_dice, p_mod, m_dice, m_mod", [(2, 0, 1, 0), (2, 0, 2, 0), (2, 2, 3, 0), (3, 1, 3, -4),
                                                          (2, 0, 1, -2), (1, 0, 3, 5)])
@pytest.mark.parametrize("ties", [R.TIES_NOBODY, R.TIES_REROLL, R.TIES_PLAYER, R.TIES_MONSTER])
def test_exact_rolloff_equals_brute_force(p_dice, p_mod, m_dice, m_mod, ties):
    assert O.exact_rolloff(p_dice, p_mod, m_dice, m_mod, ties) == _brute_rolloff(p_dice, p_mod, m_dice, m_mod, ties)


def test_two_d6_against_two_d6_is_the_known_figure():
    assert O.exact_rolloff(2, 0, 2, 0) == (Fraction(575, 1296), Fraction(146, 1296), Fraction(575, 1296))


@pytest.mark.parametrize("ties", [R.TIES_NOBODY, R.TIES_REROLL, R.TIES_MONSTER])
@pytest.mark.parametrize("p_dice, p_mod, m_dice, m_mod, chicken, triple", [
    (2, 2, 3, 0, 1, 1), (3, 2, 3, -4, 1, 1), (2, 0, 3, 0, 0, 1), (2, 1, 2, 0, 1, 0)])
def test_exact_exchange_equals_brute_force_with_chicken_and_blow(p_dice, p_mod, m_dice, m_mod, chicken, triple,
                                                                  ties):
    want = dict.fromkeys(O.OUTCOMES, 0)
    tie_total = 0
    for faces in itertools.product(range(1, 7), repeat=p_dice + m_dice):
        p, m = faces[:p_dice], faces[p_dice:]
        d = sum(p) + p_mod - sum(m) - m_mod
        if d == 0 and ties == R.TIES_REROLL:
            tie_total += 1
            continue
        if chicken and p.count(6) >= 2:
            want["chicken"] += 1
        elif triple and m.count(6) >= 3:
            want["lose"] += 1
            want["blow"] += 1
        elif d > 0:
            want["win"] += 1
        elif d < 0 or ties == R.TIES_MONSTER:
            want["lose"] += 1
        else:
            want["tie"] += 1
    n = 6 ** (p_dice + m_dice) - tie_total
    t = _terms(p_dice, p_mod, m_dice, m_mod, chicken=chicken, triple=triple)
    assert O.exact_exchange(t, ties) == {k: Fraction(v, n) for k, v in want.items()}


def _absorbing_solve(terms, hp, budget, ties, chicken_terms=None, chicken_hp=1):
    """The kill chance by an independent method: the absorbing Markov chain over every (who, h, k) state,
    B = (I - Q)^-1 R solved with numpy."""
    states = [(0, h, k) for h in range(1, hp + 1) for k in range(1, budget + 1)]
    if chicken_terms is not None:
        states += [(1, h, k) for h in range(1, chicken_hp + 1) for k in range(1, budget + 1)]
    index = {s: i for i, s in enumerate(states)}
    n = len(states)
    Q = np.zeros((n, n))
    win = np.zeros(n)
    for (who, h, k), i in index.items():
        tm = terms if who == 0 else chicken_terms
        o = {a: float(b) for a, b in O.exact_exchange(tm, ties).items()}
        moves = [(o["win"], h - int(tm[C.T_P_DMG]), k), (o["lose"] - o["blow"], h, k - int(tm[C.T_M_DMG])),
                 (o["blow"], h, k - int(tm[C.T_BLOW])), (o["tie"], h, k)]
        for p, h2, k2 in moves:
            if h2 <= 0:
                win[i] += p
            elif k2 > 0:
                Q[i, index[(who, h2, k2)]] += p
        if o["chicken"]:
            Q[i, index[(1, chicken_hp, k)]] += o["chicken"]
    x = np.linalg.solve(np.eye(n) - Q, win)
    return x[index[(0, hp, budget)]]


@pytest.mark.parametrize("case", [
    dict(terms=_terms(2, 0, 2, 0), hp=2, budget=10),  # skeleton, bare hands
    dict(terms=_terms(2, 1, 3, 0, triple=1, blow=3), hp=10, budget=10),  # ogre with a +1 weapon
    dict(terms=_terms(2, 0, 3, 0, p_dmg=2, m_dmg=1), hp=5, budget=6),  # "damage" modifiers
    dict(terms=_terms(2, 2, 3, 0, chicken=1, triple=1), hp=10, budget=8, chicken=_terms(2, 2, 1, -2, chicken=1),
         chicken_hp=1),
    dict(terms=_terms(2, 2, 2, 0, chicken=1), hp=4, budget=5, chicken=_terms(2, 2, 1, -2, chicken=1), chicken_hp=3),
])
@pytest.mark.parametrize("ties", [R.TIES_NOBODY, R.TIES_REROLL])
def test_kill_chance_equals_an_absorbing_chain_solve(case, ties):
    ct, chp = case.get("chicken"), case.get("chicken_hp", 1)
    exact = O.kill_chance(case["terms"], case["hp"], case["budget"], ties, ct, chp, exact=True)
    assert isinstance(exact, Fraction)
    assert float(exact) == pytest.approx(_absorbing_solve(case["terms"], case["hp"], case["budget"], ties, ct, chp),
                                         abs=1e-12)
    assert float(exact) == pytest.approx(O.kill_chance(case["terms"], case["hp"], case["budget"], ties, ct, chp,
                                                       exact=False), abs=1e-12)


def test_kill_chance_small_cases_by_hand():
    # 1 HP each side, no ties possible: the first exchange decides
    t = _terms(1, 0, 1, 0)
    assert O.kill_chance(t, 1, 1, R.TIES_NOBODY) == Fraction(15, 36) / Fraction(30, 36)
    # nobody can be hurt: never a kill
    assert O.kill_chance(_terms(2, 0, 2, 0, p_dmg=0, m_dmg=0), 3, 3, R.TIES_NOBODY) == 0


# --- the engine's frequencies ---------------------------------------------------------------------------------
def test_engine_frequencies_agree_with_exact_odds(rs):
    table = O.odds_report(rs, trials=20_000, seed=7, monster="skeleton,ogre", weapon="bare hands,mage_staff",
                          armor="no armour,plate_mail")
    df = table.frame
    assert len(df) == 8 and list(df["trials"].unique()) == [20_000]
    row = df[(df.monster == "skeleton") & (df.weapon == "bare hands") & (df.armor == "no armour")].iloc[0]
    assert row["exact_win"] == pytest.approx(575 / 1296) and row["exact_tie"] == pytest.approx(146 / 1296)
    assert row["dice"] == "2d6+0 vs 2d6+0"
    ogre = df[(df.monster == "ogre") & (df.weapon == "bare hands") & (df.armor == "no armour")].iloc[0]
    assert ogre["exact_blow"] == pytest.approx(1 / 216)
    for e, m in table.compared:
        p, f = df[e].to_numpy(), df[m].to_numpy()
        se = np.sqrt(np.maximum(p * (1 - p), 1e-12) / 20_000)
        assert (np.abs(f - p) <= 5 * se + 1e-12).all(), (e, list(zip(p, f)))
    assert verdict(table).agree


def test_rows_alike_are_computed_once_and_are_each_row_computed_alone(rs, monkeypatch):
    """Rows whose combat terms, chicken and monster HP are the same share one computation (the same dice streams
    would measure the same counts); every row equals the table of that row alone."""
    calls = []
    measure = O.measure
    monkeypatch.setattr(O, "measure", lambda *a: (calls.append(a[0].tobytes()), measure(*a)))
    kw = dict(trials=300, seed=5, monster="skeleton,ghoul,ogre", weapon="bare hands,mace,axe,mage_staff",
              armor="no armour,tattered_robes,plate_mail")
    df = O.odds_frame(rs, **kw)
    keys = {(O.terms_for(rs, rs.kind_index[r.monster], rs.weapon_names.index(r.weapon),
                         rs.armor_names.index(r.armor)).tobytes(), r.monster_hp) for r in df.itertuples()}
    assert len(df) == 36 and len(calls) == len(keys) < len(df)  # (tattered robes: the terms of no armour)
    for i in (0, 1, 7, 35):
        r = df.iloc[i]
        alone = O.odds_frame(rs, trials=300, seed=5, monster=r.monster, weapon=r.weapon, armor=r.armor)
        assert alone.iloc[0].to_dict() == r.to_dict()


def test_odds_report_refuses_an_unknown_monster(rs):
    from foury_sim.errors import InputError

    with pytest.raises(InputError) as e:
        O.odds_report(rs, trials=10, monster="dragon")
    assert e.value.where == "--monster" and "unknown monster 'dragon'" in str(e.value)


@pytest.mark.parametrize("option, value, message", [
    ("monster", "skeleton,skeleton", "monster 'skeleton' is given twice: give it once"),
    ("weapon", "bare hands, bare hands", "weapon 'bare hands' is given twice: give it once"),
])
def test_odds_report_refuses_a_name_given_twice(rs, option, value, message):
    """Its rows were computed and printed twice."""
    from foury_sim.errors import InputError

    with pytest.raises(InputError) as e:
        O.odds_report(rs, trials=10, **{option: value})
    assert (e.value.where, e.value.message) == (f"--{option}", message)


def test_odds_options_berserk_might_and_hp(rs):
    import inspect

    df = O.odds_report(rs, trials=200, monster="ogre", weapon="axe", armor="chain_mail", hp=3, might=1,
                       berserk=1).frame
    row = df.iloc[0]
    assert len(df) == 1 and row["dice"] == "3d6+3 vs 3d6-2" and row["hp"] == 3 and row["monster_hp"] == 10
    t = O.terms_for(rs, rs.kind_index["ogre"], 2, 3, might=1, berserk=True)
    assert row["exact_kill"] == pytest.approx(float(O.kill_chance(t, 10, 3, R.TIES_NOBODY)))
    total = sum(row[f"exact_{k}"] for k in ("win", "tie", "lose", "chicken"))
    assert total == pytest.approx(1.0) and row["exact_blow"] == pytest.approx(1 / 216)
    params = inspect.signature(O.odds_report).parameters
    assert all(o.name in params and o.commands == ("odds",) for o in O.ODDS_OPTIONS)


def test_measured_table_puts_outside_counts_beside_the_exact_rows(rs):
    exact = O.odds_frame(rs, trials=10, monster="skeleton", weapon="mace", armor="no armour")
    counts = np.array([[50, 10, 40, 0, 0, 99]])
    df = O.measured_table(exact, counts, 100)
    assert list(df.loc[0, [f"measured_{k}" for k in (*O.OUTCOMES, "kill")]]) == [0.5, 0.1, 0.4, 0.0, 0.0, 0.99]
    assert df.loc[0, "trials"] == 100 and df.loc[0, "exact_win"] == exact.loc[0, "exact_win"]


@pytest.mark.parametrize("by", ["weapon", "armor"])
def test_the_rules_doc_kill_tables_are_the_exact_ones(rs, by):
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "rules-tactics.md").read_text()
    table = text.split(f"<!-- kill-by-{by}:begin -->\n", 1)[1].split(f"<!-- kill-by-{by}:end -->", 1)[0]
    assert table == O.kill_matrix_markdown(rs, by)
    m = O.kill_matrix(rs, by)
    assert m.shape == (10, 7) and m.loc["chicken"].min() == pytest.approx(1.0, abs=1e-9)
    if by == "weapon":  # the sword's extra +1 against demons, the axe's against the (humanoid) ogre
        assert m.loc["cacodemon", "sword"] > m.loc["cacodemon", "mace"] == m.loc["cacodemon", "axe"]
        assert m.loc["ogre", "axe"] > m.loc["ogre", "sword"] == m.loc["ogre", "mace"]


def test_a_certain_kill_is_exactly_one(rs):
    dmg = R.load_ruleset(None, ["rulings.modifier=damage", "rulings.ties=reroll"])
    df = O.odds_frame(dmg, trials=50, monster="ogre", weapon="axe,mage_staff", armor="plate_mail")
    assert list(df["exact_kill"]) == [1.0, 1.0] and list(df["measured_kill"]) == [1.0, 1.0]  # plate stops the ogre
