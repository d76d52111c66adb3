"""Rooms' odds table (``odds.odds``, the ``GameSpec.odds`` hook): exact figures beside turns measured by the fight's
own code agree within the table's verdict; exact figures against closed forms and brute-force enumeration; the
measured turns depend only on (seed, turn index)."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from foury_sim.errors import InputError
from foury_sim.games.rooms import dice as D
from foury_sim.games.rooms import layout as L
from foury_sim.games.rooms import odds as O
from foury_sim.games.rooms.ruleset import load_heroes
from foury_sim.oddstable import format_odds, verdict


@pytest.fixture(scope="module")
def rules():
    return load_heroes()


@pytest.mark.parametrize("hero", ["ranger", "berserker"])
def test_exact_and_measured_agree(rules, hero):
    t = O.odds(rules, trials=3000, seed=5, hero=hero)
    h = rules.heroes[hero]
    assert t.frame["ability"].tolist() == list(h.ability_names)
    assert verdict(t).agree and verdict(t.sections[0]).agree
    od = D.hero_odds(h)
    assert np.allclose(t.frame["exact"], [od.p(a, 3) for a in range(len(h.ability_names))])
    fired = t.sections[0].frame
    assert fired["exact"].sum() == pytest.approx(1.0) and fired["measured"].sum() == pytest.approx(1.0)
    dmg = D.ability_damage
    exact_damage = sum(fired["exact"].iloc[a] * dmg(h.abilities, a) for a in range(len(h.ability_names)))
    assert exact_damage == pytest.approx(od.p(-1, 3))  # the shares and the damage objective tell the same story
    assert f"exact {od.p(-1, 3):.3f}" in t.sections[0].notes[0]
    assert "Verdict: engine and exact odds agree" in format_odds(t)


def test_symbol_abilities_have_closed_forms(rules):
    """k of a symbol shown by s of 6 faces: the best policy keeps every die showing it, so each die shows it
    within 3 rolls with q = 1 - (1 - s/6)^3 and P = P(Binomial(5, q) >= k)."""
    t = {h: O.odds(rules, trials=200, seed=1, hero=h).frame.set_index("ability") for h in ("ranger", "berserker")}

    def p(s, k, rolls=3):
        q = 1 - (1 - s / 6) ** rolls
        return sum(comb(5, j) * q**j * (1 - q) ** (5 - j) for j in range(k, 6))

    assert t["ranger"].loc["Volley", "exact"] == pytest.approx(p(3, 3))
    assert t["ranger"].loc["Volley", "one roll"] == pytest.approx(0.5)
    assert t["ranger"].loc["Hawkeye", "exact"] == pytest.approx(p(1, 3))
    assert t["ranger"].loc["Hawkeye", "+bought"] == pytest.approx(p(1, 3, rolls=4))
    assert t["berserker"].loc["Berserk", "exact"] == pytest.approx((19 / 27) ** 5)
    assert t["berserker"].loc["Hack", "exact"] == pytest.approx(p(4, 3))


def test_one_roll_against_every_ordered_roll(rules):
    """The first-roll column against all 6^5 ordered rolls (no multisets, no multinomials)."""
    for hero in ("ranger", "alchemist", "paladin"):
        h = rules.heroes[hero]
        t = O.odds(rules, trials=100, seed=1, hero=hero).frame
        hits = np.zeros(len(h.ability_names))
        for dice in itertools.product(range(6), repeat=5):
            counts = np.bincount(np.array(dice), minlength=6).astype(np.int64)
            for a in range(len(h.ability_names)):
                hits[a] += D.ability_made(h.faces, h.abilities, a, counts)
        assert np.allclose(t["one roll"], hits / 6**5)


def test_measured_turns_depend_only_on_seed_and_index(rules):
    fx = O.measuring_fight(rules, "paladin")
    n_ab = fx.abilities.shape[0]
    for obj in (0, n_ab):
        out = np.zeros(1200, dtype=np.int64)
        dmg = np.zeros(1200, dtype=np.int64)
        O.measure(fx, obj, 9, 100, 1200, out, dmg)
        a, b = np.zeros(700, dtype=np.int64), np.zeros(500, dtype=np.int64)
        da, db = np.zeros(700, dtype=np.int64), np.zeros(500, dtype=np.int64)
        O.measure(fx, obj, 9, 100, 700, a, da)
        O.measure(fx, obj, 9, 800, 500, b, db)
        assert np.array_equal(out, np.concatenate([a, b])) and np.array_equal(dmg, np.concatenate([da, db]))
        assert out.min() >= (0 if obj < n_ab else -1)
    assert fx.combat[L.C_MAX_BOUGHT] == 0


def test_unknown_hero_is_refused(rules):
    with pytest.raises(InputError) as e:
        O.odds(rules, trials=10, hero="bard")
    assert e.value.where == "--hero" and "ranger" in str(e.value)


@pytest.mark.skipif(__import__("foury_sim.config", fromlist=["JIT_DISABLED"]).JIT_DISABLED,
                    reason="compiled code only: nothing is compiled with NUMBA_DISABLE_JIT=1")
def test_fight_entry_points_are_cacheable(rules):
    """No entry point playing fights embeds an address (a jitted function passed as a value does): numba could
    not cache it, and every process would compile the fight again (minutes)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from rooms_fight_stub import run_fight

    from foury_sim.games.rooms import combat as C

    run_fight(C.pack_fight(rules, "ranger"), [0], pid=L.P_OPTIMAL, trace_rows=0)
    fx = O.measuring_fight(rules, "ranger")
    O.measure(fx, 0, 1, 0, 10, np.zeros(10, dtype=np.int64), np.zeros(10, dtype=np.int64))
    for entry in (C.play_fight, O._ENTRIES["measure"]()):
        assert entry.overloads and not any(c.library.has_dynamic_globals for c in entry.overloads.values())


def test_odds_conf_sets_the_level_of_the_measured_damages_interval():
    """``odds rooms --conf 0.9``: the damage per turn's interval is the 90 % one, and says so (it was 1.96 and
    "95 %" whatever the level asked)."""
    import re

    from inproc import cli

    from foury_sim.stats import z_value

    at = {}
    for conf in ("0.9", "0.95"):
        r = cli("odds", "rooms", "--trials", "2000", "--conf", conf)
        assert r.returncode == 0, r.stderr
        m = re.search(r"measured (\d+\.\d+) ± (\d+\.\d+) \(([\d.]+) % normal interval over 2,000 turns\)",
                      " ".join(r.stdout.split()))  # (the note is wrapped)
        assert m, r.stdout
        assert m[3] == f"{100 * float(conf):g}"
        at[conf] = float(m[2])
    assert at["0.9"] / at["0.95"] == pytest.approx(z_value(0.9) / z_value(0.95), abs=0.01)
