"""Rooms' odds (``foury-sim odds rooms --hero NAME``): per ability of the hero, the exact probability of making it
within ``combat.rolls`` rolls under the reroll policy that maximises that chance, and, under the policy that
maximises the expected damage per turn, how often each ability is the one fired and the expected damage; beside
the frequencies of turns played by the fight's own code (``combat.offensive_roll`` / ``combat.hero_turn``) on the
per-(seed, turn) dice streams.

The exact figures come from ``dice.hero_odds`` (the programme over the 252 outcomes; docs/rules-rooms.md). The
measured turns use the same keep tables, looked up in the kernel as ``optimal_reroll`` does, with no bought
reroll (the exact figures are "within combat.rolls rolls"); the "+bought" column is the exact figure with
``max_bought_rerolls`` more rerolls, shown, not compared.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange, types

from ...config import CACHE, CompiledOnFirstUse, use_cache
from ...errors import InputError, did_you_mean
from ...lazy import pd
from ...oddstable import ODDS_CONF, OddsTable, level_text
from ...rng import seed_stream
from ...stats import z_value
from . import combat as C
from . import dice as D
from . import layout as L

#: Turns one task of the measuring driver plays (scratch state is allocated per block, not per turn).
BLOCK = 512
ST_SIZE = 256  #: the state a measured turn uses (the fight section and room to spare)
DUMMY_HP = 1 << 40  #: the measured turns hit a monster that cannot die, block or attack


def _jit(**kw):
    def wrap(fn):
        with use_cache(f"{__package__}.odds"):
            return njit(cache=CACHE, **kw)(fn)

    return wrap


class OddsPol(NamedTuple):
    """The measuring turns' player: keeps by the table of objective ``obj`` (an ability, or the damage objective)."""

    obj: int
    fx: C.Fight
    params: np.ndarray


@_jit()
def odds_decide(kind, st, opts, n, pol, dice):
    """The measuring turns' player: keeps by the table of objective ``pol.obj``, every other choice as
    ``optimal_reroll``; never buys a reroll."""
    obj = pol.obj
    fx = pol.fx
    params = pol.params
    if kind == L.D_KEEP:
        o = fx.code_index[C.dice_code(st, st[L.S_N_DICE])]
        return C.find_action(opts, n, fx.keep[obj, st[L.S_REROLLS_LEFT], o])
    if kind == L.D_BUY_REROLL:
        return 0
    return C.builtin_fight(L.P_OPTIMAL, kind, st, opts, n, params, fx)


C.register_decide(OddsPol, odds_decide)


def measure(fx, obj, seed, first, trials, out, dmg):
    """Play ``trials`` turns, turn t on the dice stream (seed, first + t). ``obj`` < n_abilities: chase ability
    ``obj`` with its table, ``out[t]`` = 1 if the final dice make it. ``obj`` = n_abilities: a whole hero turn
    (``combat.hero_turn``) under the damage-optimal keeps against a monster that cannot die: ``out[t]`` = the
    ability fired (-1: none), ``dmg[t]`` = the damage it dealt."""
    _ENTRIES["measure"]()(*fx, int(obj), int(seed), int(first), int(trials), out, dmg)


def _measure(combat, hero, faces, abilities, monsters, keep_table, value, code_index, menu, obj, seed, first, trials,
             out, dmg):
    """``measure`` over blocks of BLOCK turns in parallel (a parallel loop takes arrays, not the ``Fight`` tuple:
    each block builds its own)."""
    n_ab = abilities.shape[0]
    mons = np.zeros(1, dtype=np.int64)
    for b in prange((trials + BLOCK - 1) // BLOCK):
        fx = C.Fight(combat, hero, faces, abilities, monsters, keep_table, value, code_index, menu)
        pol = OddsPol(obj, fx, np.zeros(2))
        st = np.zeros(ST_SIZE, dtype=np.int64)
        opts = np.zeros((L.MIN_OPTIONS, 2), dtype=np.int64)
        counts = np.zeros(L.N_FACES, dtype=np.int64)
        keep = np.zeros(L.N_FACES, dtype=np.int64)
        dice = C.FightDice(np.zeros(4, dtype=np.uint64), np.zeros(0, dtype=np.int64), np.zeros((1, 8), dtype=np.int64))
        for t in range(b * BLOCK, min(trials, (b + 1) * BLOCK)):
            seed_stream(dice.rs, np.uint64(seed), np.uint64(first + t))
            st[:] = 0
            C.hero_start(fx, st)
            if obj < n_ab:
                C.offensive_roll(fx, st, opts, dice, pol, counts, keep)
                out[t] = 1 if D.ability_made(faces, abilities, obj, counts) else 0
                continue
            C.start_fight(fx, st, mons, 1, dice)
            C.hero_turn(fx, st, opts, dice, pol, counts, keep)
            out[t] = -1
            for a in range(n_ab):
                if st[L.S_FIRED + a] > 0:
                    out[t] = a
            dmg[t] = st[L.S_DEALT]


_I1, _I2 = types.int64[::1], types.int64[:, ::1]
#: The odds' entry point, built on first use (``config.CompiledOnFirstUse``: shipped as machine code with the
#: engine's, so a first ``foury-sim odds rooms`` compiles nothing).
_ENTRIES = {
    "measure": CompiledOnFirstUse(
        f"{__package__}.odds",
        types.void(_I1, _I1, _I2, _I2, _I2, types.int64[:, :, ::1], types.float64[:, ::1], _I1, _I2, types.int64,
                   types.int64, types.int64, types.int64, _I1, _I1),
        _measure, part="odds", parallel=True),
}


def _rules_of(ruleset):
    return getattr(ruleset, "dice_rules", ruleset)


def measuring_fight(ruleset, hero: str) -> C.Fight:
    """The hero's ``Fight`` for measured turns: no bought reroll, one monster that cannot die, block or attack."""
    fx = C.pack_fight(ruleset, hero)
    combat = fx.combat.copy()
    combat[L.C_MAX_BOUGHT] = 0
    dummy = np.zeros((1, L.M_COLS), dtype=np.int64)
    dummy[0, L.M_HP] = DUMMY_HP
    dummy[0, L.M_ATK_KIND] = L.ATK_PATTERN
    dummy[0, L.M_PATTERN_LEN] = 1
    return fx._replace(combat=combat, monsters=dummy)


def fired_shares(od: D.HeroOdds, rolls: int) -> np.ndarray:
    """The exact distribution of the final dice under the damage-optimal keeps within ``rolls`` rolls."""
    sp = od.space
    dist = D.first_roll(sp).copy()
    rows = np.arange(sp.n_out)
    for r in range(rolls - 1, 0, -1):
        dist = dist @ sp.prob[sp.mask_kept[rows, od.keep[-1, r]]]
    return dist


def odds(ruleset, trials: int = 20_000, seed: int = 1, hero: str | None = None, conf: float = ODDS_CONF) -> OddsTable:
    """The ``GameSpec.odds`` hook: exact odds of each ability and of the damage per turn beside measured turns
    (``conf``: the level of the measured damage's normal interval, ``odds --conf``)."""
    rules = _rules_of(ruleset)
    hero = hero or next(iter(rules.heroes))
    if hero not in rules.heroes:
        raise InputError(f"unknown hero {hero!r} ({did_you_mean(hero, rules.heroes)}known: {', '.join(rules.heroes)})",
                         "--hero")
    h = rules.heroes[hero]
    od = D.hero_odds(h, rules.dice)
    rolls = rules.rolls
    extra = rolls + int(rules.combat[L.C_MAX_BOUGHT])
    fx = measuring_fight(ruleset, hero)
    n_ab = len(h.ability_names)
    rows = []
    out = np.zeros(trials, dtype=np.int64)
    dmg = np.zeros(trials, dtype=np.int64)
    for a, name in enumerate(h.ability_names):
        measure(fx, a, seed, a * trials, trials, out, dmg)
        rows.append({"ability": name, "combo": h.combo_text(a), "effects": h.effect_text(a),
                     "one roll": od.p(a, 1), "greedy": od.p(a, rolls, greedy=True), "+bought": od.p(a, extra),
                     "exact": od.p(a, rolls), "measured": float(out.mean()), "trials": trials})
    frame = pd.DataFrame(rows)
    measure(fx, n_ab, seed, n_ab * trials, trials, out, dmg)
    dist = fired_shares(od, rolls)
    fired = []
    for a, name in enumerate([*h.ability_names, "nothing"]):
        a_ = a if a < n_ab else -1
        fired.append({"fired": name, "exact": float(dist[od.fire == a_].sum()), "measured": float((out == a_).mean()),
                      "trials": trials})
    mean = float(dmg.mean())
    half = z_value(conf) * float(dmg.std(ddof=1)) / np.sqrt(trials) if trials > 1 else float("nan")
    exact_dmg = od.p(-1, rolls)
    section = OddsTable(
        f"Which ability the damage-optimal player fires ({rolls} rolls, no bought reroll)",
        pd.DataFrame(fired),
        {"fired": "the ability fired at the end of the turn (nothing: the final dice make none)",
         "exact": "exact share of turns under the keeps maximising the expected damage, firing the most damage",
         "measured": "share of the measured turns (combat.hero_turn, optimal_reroll answers)",
         "trials": "turns measured"},
        (("exact", "measured"),), ("fired",),
        notes=(f"damage per turn (damage + unblockable of the ability fired): exact {exact_dmg:.3f}, measured "
               f"{mean:.3f} ± {half:.3f} ({level_text(conf)} normal interval over {trials:,} turns); greedy's exact "
               f"{od.p(-1, rolls, greedy=True):.3f}; with {extra - rolls} bought reroll(s) {od.p(-1, extra):.3f}",
               D.defence_line(h)),
    )
    legend = {
        "ability": "the hero's ability (sheet order)",
        "combo": "what the final dice must make (every need on the same dice)",
        "effects": "what firing it does",
        "one roll": "exact P(made) on the first roll alone",
        "greedy": f"exact P(made) within {rolls} rolls when greedy chases it",
        "+bought": f"exact P(made) within {extra} rolls ({extra - rolls} bought reroll(s)), the optimal keeps",
        "exact": f"exact P(made) within {rolls} rolls under the keeps maximising that ability's chance",
        "measured": "share of measured turns (combat.offensive_roll with that ability's keep table) that made it",
        "trials": "turns measured",
    }
    title = (f"Rooms odds: {h.name} ({hero}), {rules.dice} dice, {rolls} rolls; exact reroll programme beside "
             f"{trials:,} turns per row played by the fight's code (seed {seed})")
    return OddsTable(title, frame, legend, (("exact", "measured"),), ("ability",), notes=(
        "faces: " + " ".join(f"{n}{'/' + h.symbols[s] if s >= 0 else ''}" for n, s in h.faces),
        "exact: dice.hero_odds, a dynamic programme over the sorted outcomes and the rolls left (docs/rules-rooms.md)",
    ), sections=(section,))
