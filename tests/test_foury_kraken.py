"""Discovering the Kraken (`--campaign kraken`; docs/rules.md "Discovering the Kraken"): each rule with scripted
dice and scripted choices on tiny maps (``tests/foury_helpers.py``; the rules file ``data/foury/kraken_rules.toml``
turns the campaign's rules on), and the shipped campaign's data.
"""

from __future__ import annotations

import numpy as np
import pytest
from foury_helpers import DATA, DONE, QUIET_EVENTS, market, play, rules
from numba import njit

from foury_sim.errors import InputError
from foury_sim.games import foury
from foury_sim.games.foury import icons as I
from foury_sim.games.foury import layout as L
from foury_sim.games.foury.board import load as load_board
from foury_sim.games.foury.policies import CAUTIOUS, GREEDY, KRAKEN, heuristic_decide
from foury_sim.games.foury.ruleset import load_ruleset
from foury_sim.policy import POLICY_SIG, USER_POLICY_ID, Policy

H, CH = L.HEARTS, L.CHEST
KR = str(DATA / "kraken_rules.toml")


def kplay(map_name: str, **kw):
    """A scripted game under the Kraken's rules, quiet room events; a scripted move may go unasked (a move with
    one option is not a decision), but every decision asked matched an option."""
    kw.setdefault("rules_file", KR)
    kw.setdefault("strict", False)
    kw["overrides"] = {**QUIET_EVENTS, **kw.get("overrides", {})}
    g = play(map_name, **kw)
    assert g[L.S_BAD_CHOICE] == 0, g.report()
    return g


# ====================================================================== the campaign's data
def test_kraken_campaign_loads_its_rules_map_and_kraken():
    r = load_ruleset(campaign="kraken")
    assert r.campaign == "kraken" and r.campaign_title == "Discovering the Kraken"
    assert r.R[L.R_KR_ON] == 1 and r.R[L.R_KR_FLOOD_EVERY] == 5 and r.R[L.R_KR_HOURGLASS] == 60
    assert r.R[L.R_KR_WALK_MAX] == 5 and r.R[L.R_KR_SWIM_MAX] == 5 and r.R[L.R_KR_MARKET] == 1
    assert list(r.R[L.R_KR_OPPOSITE:L.R_KR_OPPOSITE + 4]) == [2, 3, 0, 1]
    foe = r.R[L.R_KR_FOE]
    assert r.icons.names[foe] == "Kraken" and r.T[L.T_EN_TRAITS, foe] & L.FT_TRAP
    assert all(r.T[L.T_EN_STR + row, foe] == 6 for row in range(16))  # "It has Strength 6", every round
    assert r.R[L.R_COINS] == 0 and r.R[L.R_SWIM_ALL] == 1
    assert r.map.name == "Discovering the Kraken"
    # "you'll always find ... different potions, including" the yellow and the (very rare) purple
    total = r.map.icons.sum(axis=0)
    assert (total[I.YELLOW_POTION], total[I.PURPLE_POTION]) == (2, 1)
    assumed = {a.key: a.value for a in r.assumptions}
    assert (assumed["map.yellow_potions"], assumed["map.purple_potions"]) == (2, 1)
    base = load_ruleset()
    assert all(base.R[i] == 0 for i in range(L.R_KR_ON, L.R_KR_MARKET + 1))  # off in the base game


def test_no_cave_ins_only_floods():
    """"In this scenario there are no cave-ins, only floods": no room event makes a room collapse; the room
    behind floods instead (walls still collapse)."""
    r = load_ruleset(campaign="kraken")
    events = r.T[L.T_EVENTS:L.T_EVENTS + 4, :6]
    assert not (events & L.EV_PREV_COLLAPSE).any()
    assert (events & L.EV_PREV_FLOOD).sum() >= 3
    assert (load_ruleset().T[L.T_EVENTS:L.T_EVENTS + 4, :6] & L.EV_PREV_COLLAPSE).any()


def test_a_kraken_map_needs_the_coloured_potions():
    """The campaign's [campaign.map] bounds: the base map (no coloured potion) is refused at its grid line."""
    with pytest.raises(InputError, match=r"wants at least 1 yellow potion on its map .* the map has 0") as e:
        load_board("base", campaign="kraken")
    assert "base.map:" in e.value.where


def test_kraken_is_solo_and_names_an_enemy():
    with pytest.raises(InputError, match="solo campaign"):
        load_ruleset(campaign="kraken", overrides=["two_player.players=2"])
    with pytest.raises(InputError, match="kraken.foe"):
        load_ruleset(campaign="kraken", overrides=["kraken.foe=hydra"])
    with pytest.raises(InputError, match="kraken.opposite"):
        load_ruleset(campaign="kraken", overrides=["kraken.opposite=A,B,C"])
    with pytest.raises(InputError, match="kraken.flood_every"):
        load_ruleset(campaign="kraken", overrides=["kraken.flood_every=0"])
    with pytest.raises(InputError) as e:  # (played: the exit goal after the last requirement in A was A itself)
        load_ruleset(campaign="kraken", overrides=['kraken.opposite=["A", "A", "A", "A"]'])
    assert (e.value.where, e.value.message) == ('--set kraken.opposite=["A", "A", "A", "A"]',
                                                "kraken.opposite[0] = 'A': the side opposite A cannot be A itself")


# ============================================================================ the flood
def test_flood_front_spreads_and_the_water_reaching_you_brings_the_kraken():
    """Every flood_every turns each room of the Kraken's water floods one neighbour (a die picks among several);
    the water reaching the hero's room brings the Kraken. Entry cell 0 (turn 1), move to cell 1 (turn 2): the
    spread of turn 2 from the Kraken (cell 2) has two neighbours, east (3) and west (1): die 2 = west = the hero's
    room. The Kraken: 6 + weapon 2 against 1 + 6: beaten (driven back, not removed)."""
    g = kplay("kr_line", script=[1, 1, 2, 6, 1], queues={"move": [1], "weapon": [1]}, sheet={"hearts": 3, "weapon": 2},
              overrides={"kraken.flood_every": 2, "game.max_turns": 2})
    assert g.rows(L.TR_KR_FLOOD) == [(2, 1, 2, 1, 0)]  # turn 2: 1 room flooded, water of 2 rooms, reached you
    assert g.room_state(1) & L.FLOODED and not g.room_state(3) & L.FLOODED
    assert g.rows(L.TR_KR_FIGHT) == [(L.KRF_REACHED, 1, 0, 0, 0)]
    foe = g.rules.R[L.R_KR_FOE]
    assert g.rows(L.TR_FIGHT) == [(foe, 6, 1, 0, 0)] and g.rows(L.TR_WIN) == [(foe, 1, 0, 0, 0)]
    assert g.icons(1, foe) == 0 and g[L.S_KR_FIGHTS] == 1 and g[L.S_KILLS_TOTAL] == 0  # not a kill
    assert g[L.S_KR_WATER] == 2 and g[L.S_KR_NEXT_FLOOD] == 4


def test_flood_spreads_from_every_connected_room_and_a_lone_neighbour_needs_no_die():
    """Two spreads (flood_every 1, turns 1 and 2 passed at the end of turn 2): first the Kraken floods cell 3
    (die 1 = east), then the Kraken's room has one dry neighbour left (cell 1, the hero's: no die) and cell 3 one
    (cell 4: no die)."""
    g = kplay("kr_line", script=[1, 1, 1], queues={"move": [1]}, sheet={"hearts": 3},
              overrides={"kraken.flood_every": 1, "game.max_turns": 2}, check_dice=False)
    assert g.rows(L.TR_KR_FLOOD)[:2] == [(2, 1, 2, 0, 0), (2, 2, 4, 1, 0)]  # the second reaches the hero (cell 1)
    assert all(g.room_state(c) & L.FLOODED for c in (1, 2, 3, 4))


def test_water_that_joins_the_pool_you_stand_in_brings_the_kraken():
    """"If the water reaches you ... you'll have to face the Kraken": the hero swims into cell 1, a flooded tunnel
    not connected to the Kraken (cell 3); the spread of turn 2 floods cell 2 (die 2 = west), which joins the pool
    to the Kraken's water: the water has reached the hero. The Kraken: 6 + weapon 2 against 1 + 6: beaten."""
    g = kplay("kr_lake", script=[1, 2, 6, 1], queues={"move": [1], "weapon": [1]}, sheet={"hearts": 3, "weapon": 2},
              overrides={"kraken.flood_every": 2, "game.max_turns": 2})
    assert g[L.S_POS] == 1 and g.room_state(2) & L.FLOODED and g[L.S_KR_WATER] == 3
    assert g.rows(L.TR_KR_FLOOD) == [(2, 1, 3, 1, 0)]  # turn 2: 1 room flooded, water of 3 rooms, reached you
    assert g.rows(L.TR_KR_FIGHT) == [(L.KRF_REACHED, 1, 1, 0, 0)] and g[L.S_KR_FIGHTS] == 1


def test_no_flood_before_its_turn():
    g = kplay("kr_line", script=[1, 1], queues={"move": [1]}, sheet={"hearts": 3},
              overrides={"kraken.flood_every": 5, "game.max_turns": 2})
    assert g.rows(L.TR_KR_FLOOD) == [] and g[L.S_KR_WATER] == 1


# =============================================================== the Kraken's room is no Oracle
def test_a_free_step_into_the_krakens_room_after_a_requirement_is_no_oracle_visit():
    """"The Kraken is located at the center of the map in place of the Oracle": the statue of cell 1 meets area A's
    requirement, the room's extra move steps into the Kraken's room (cell 2) in the same turn. No Oracle speaks
    there (no chest, no phase 2); the turn's end sees the area done and names the exit sector, as a step the other
    way does (map ``kr_rev``: it used to give a chest and leave the game with no exit that could win)."""
    ov = {"requirements.statues": 1, "events.A": ["nothing"] * 5 + ["extra_move"], "game.max_turns": 6}
    g = kplay("kr_rev", script=[1, 6, 6, 1, 1, 1], sheet={"hearts": 5},
              queues={"move": [4], "extra_move": [2]}, overrides=ov, check_dice=False)
    assert any(r[:2] == (1, 2) and r[3] == 1 for r in g.rows(L.TR_MOVE))  # the free step into the Kraken's room
    assert g.rows(L.TR_ORACLE) == [] and g[CH] == 0
    assert g[L.S_KR_REQS] >= 1 and g[L.S_KR_EXIT_SECTOR] >= 0


# ============================================================================ swimming
def test_swimming_into_the_krakens_water_faces_the_kraken():
    """Cell 1 is a flooded tunnel connected to the Kraken: moving into it is a swim (no room roll) and the Kraken
    attacks there; lost roll-off 3 against 2 + 6 = 8: -5 hearts, then flee (the swim goes on)."""
    g = kplay("kr_pool", script=[1, 3, 2], queues={"move": [1], "fight_on": [0]}, sheet={"hearts": 6},
              overrides={"game.max_turns": 2})
    assert g.rows(L.TR_KR_FIGHT) == [(L.KRF_SWIM, 1, 1, 0, 0)]
    assert g.rows(L.TR_HIT) == [(5, 1, 0, 0, 0)] and g[L.S_POS] == 1 and g[L.S_KR_SWIMS] == 1
    assert len(g.rows(L.TR_ROLL)) == 1  # only the entry was rolled: a swim is not


def test_swimming_in_water_not_connected_to_the_kraken_is_safe():
    g = kplay("kr_lake", script=[1], queues={"move": [1]}, sheet={"hearts": 3}, overrides={"game.max_turns": 2})
    assert g.rows(L.TR_KR_FIGHT) == [] and g[L.S_KR_SWIMS] == 1 and g[L.S_POS] == 1


def test_one_swim_too_many_drowns():
    """"Swimming beyond 5 spaces means death": with swim_max 0 the first swim is one too many."""
    g = kplay("kr_lake", script=[1], queues={"move": [1]}, sheet={"hearts": 3},
              overrides={"kraken.swim_max": 0, "game.max_turns": 3})
    assert g.rows(L.TR_KR_DROWN) == [(1, 1, 0, 0, 0)]
    assert g[L.S_DEAD] == 1 and g[L.S_CAUSE] == L.CAUSE_DROWNED and g[L.S_WIN] == 0
    assert g.out[L.KR_OUT] == L.KRE_DROWNED


def test_a_move_on_dry_land_ends_the_swim():
    g = kplay("kr_lake", script=[1, 1], queues={"move": [1, 2]}, sheet={"hearts": 3},
              overrides={"kraken.swim_max": 1, "game.max_turns": 3})
    assert g[L.S_KR_SWIMS] == 0 and g[L.S_KR_SWIM_LEFT] == 1 and g[L.S_DEAD] == 1 and g[L.S_CAUSE] == L.CAUSE_TIMEOUT


# ============================================================================ movement limits
@pytest.mark.parametrize("walk_max,offered", [(3, True), (2, False)])
def test_retracing_steps_is_limited(walk_max, offered):
    """At the dead end (cell 3) the only new room (cell 4) is a step from cell 0, three explored rooms back: offered
    only when a move may retrace 3 rooms (kraken.walk_max)."""
    g = kplay("kr_walk", script=[1] * 5, queues={"move": [1, 2, 3]}, sheet={"hearts": 3},
              overrides={"kraken.walk_max": walk_max, "game.max_turns": 5}, check_dice=False)
    assert all(m["path"] <= walk_max for d in g.decisions("move") for m in d.moves())
    if offered:  # the one move left at the dead end is no decision: it is taken
        assert g[L.S_POS] == 4 and g.room_state(4) & L.EXPLORED
    else:
        assert g[L.S_CAUSE] == L.CAUSE_STUCK and g[L.S_POS] == 3


# ============================================================================ the hourglass
def test_the_hourglass_ends_the_game():
    g = kplay("kr_line", script=[1, 1], queues={"move": [1]}, sheet={"hearts": 3},
              overrides={"kraken.hourglass": 2, "game.max_turns": 10})
    assert g.rows(L.TR_KR_HOURGLASS) == [(2, 0, 0, 0, 0)]
    assert g[L.S_CAUSE] == L.CAUSE_HOURGLASS and g[L.S_TURN] == 2 and g.out[L.KR_OUT] == L.KRE_HOURGLASS


# ============================================================================ one continuous game, the exit
def test_exit_opposite_the_last_requirements_area_wins():
    """One area to play (rounds 1, no statue needed): its requirement is met at once, and after the first turn
    the way out is an arrow of the side opposite A (C): cell 2's arrow, rolled like any exit, wins."""
    g = kplay("kr_exit", script=[1, 1, 1], queues={"move": [1, 2]}, sheet={"hearts": 3})
    assert g.rows(L.TR_KR_AREA) == [(0, 1, -1, 2, 0)]
    assert g.rows(L.TR_EXIT)[0][:2] == (2, 2) and g[L.S_WIN] == 1 and g.out[L.KR_OUT] == L.KRE_WON
    assert g.out[L.KR_OUT + 1] == 1  # requirements done


def test_no_exit_on_a_side_that_is_not_opposite():
    g = kplay("kr_exit", script=[1, 1, 1], queues={"move": [1, 2]}, sheet={"hearts": 3}, strict=False,
              overrides={"kraken.opposite": ["B", "A", "D", "C"], "game.max_turns": 3})
    assert g.rows(L.TR_EXIT) == [] and g[L.S_WIN] == 0 and g[L.S_KR_EXIT_SECTOR] == 1


def test_next_area_is_chosen_where_you_stand():
    """Two areas: A's requirement (no statue) is met, so after the first turn the next area is chosen in place
    (no exit, no market): B, with the second round's monster bonus and chest value."""
    g = kplay("kr_areas", script=[1, 1], queues={"move": [1], "kraken_area": [1]}, sheet={"hearts": 3},
              overrides={"game.rounds": 2, "game.max_turns": 2})
    area = g.decisions("kraken_area")
    assert len(area) == 1 and sorted(area[0].keys) == [1, 2, 3]
    assert g.rows(L.TR_KR_AREA) == [(0, 1, 1, -1, 0)]
    assert g.rows(L.TR_ROUND)[-1] == (2, 1, 1, 1, 2)  # round 2, sector B, at cell 1, bonus +1, chests x2
    assert g[L.S_SECTOR] == 1 and g[L.S_ROUND] == 1 and g[L.S_PHASE] == 0 and g[L.S_KR_EXIT_SECTOR] == -1
    assert g.rows(L.TR_EXIT) == [] and g.rows(L.TR_MARKET_OPEN) == []


# ============================================================================ the market
def test_one_market_visit_at_an_exit_at_the_rate_of_requirements_done():
    """Standing on an arrow's room (cell 2) with 1 requirement done and a chest (found in cell 1): the player may
    visit the market once, each chest buying 1 (x1 for one requirement)."""
    g = kplay("kr_exit", script=[1, 1, 1], queues={"move": [1, 2], "kraken_market": [1], "market": [
        market(L.M_BUY, H), DONE]}, sheet={"hearts": 3}, strict=False,
        overrides={"kraken.opposite": ["B", "A", "D", "C"], "game.max_turns": 3})
    assert len(g.decisions("kraken_market")) == 1
    assert g.rows(L.TR_KR_MARKET) == [(1, 1, 0, 0, 0)] and g.rows(L.TR_MARKET_OPEN)[0][:2] == (1, 1)
    assert g[L.S_KR_MARKET] == 1 and g[CH] == 0 and g[H] == 4


def test_no_market_when_the_campaign_rule_is_off():
    g = kplay("kr_exit", script=[1, 1, 1], queues={"move": [1, 2]}, sheet={"hearts": 3}, strict=False,
              overrides={"kraken.opposite": ["B", "A", "D", "C"], "game.max_turns": 3, "kraken.market_once": False})
    assert g.decisions("kraken_market") == [] and g[CH] == 1


# ============================================================================ the Kraken player (policy "kraken")
def _rec(kind, state, options, n, params):
    """A user policy for the option-column test: logs every move option (turn, O_TO, O_KR_FRONT, O_KR_DRY) and
    takes the move to room params[0]; only the first move decision is logged."""
    pick = 0
    if kind == L.D_MOVE:
        first = params[1] == 0
        for i in range(n):
            if first and 6 + 4 * i <= params.shape[0]:
                params[2 + 4 * i] = state[L.S_TURN]
                params[3 + 4 * i] = options[i, L.O_TO]
                params[4 + 4 * i] = options[i, L.O_KR_FRONT]
                params[5 + 4 * i] = options[i, L.O_KR_DRY]
                params[1] = i + 1
            if options[i, L.O_TO] == params[0]:
                pick = i
    return pick


def test_move_options_show_the_flood_front_and_the_way_back_to_dry_land():
    """O_KR_FRONT: turns until the front can first reach the room: the Kraken (cell 7) floods a neighbour per room
    of its water every flood_every (5) turns, so cell 4 is 3 spreads away (7 -> 6 or 3 -> 5 or 2 -> 4 or 1): the
    first spread at turn 5, then 2 x 5 turns. O_KR_DRY: the swim into cell 1 is one move from dry land (back to
    cell 0); cell 4 is dry."""
    fn = njit(POLICY_SIG)(_rec)
    params = np.zeros(2 + 4 * 8, np.float64)
    params[0] = 4
    r = rules("kr_front", {**QUIET_EVENTS, "game.max_turns": 2, "kraken.flood_every": 5}, KR)
    out, st, rm, tr = foury.play_one(r, "free", Policy("rec", USER_POLICY_ID, params, (), fn), 1, 0,
                                     np.asarray([1, 1, 1, 1], np.int64))
    rows = {int(params[3 + 4 * k]): params[2 + 4 * k: 6 + 4 * k].astype(int).tolist() for k in range(int(params[1]))}
    turn = rows[4][0]
    assert sorted(rows) == [1, 4]
    assert rows[4][2:] == [5 - turn + 2 * 5, 0]
    assert rows[1][2:] == [5 - turn + 2 * 5, 1]
    assert st[L.S_POS] == 4


def _decide(kind, params, state=None, rows=()):
    """The heuristic player's choice (greedy, cautious, kraken: the same function, their parameter vectors)."""
    st = np.zeros(L.STATE_SIZE, np.int64)
    st[L.S_KR_ON] = 1
    for k, v in (state or {}).items():
        st[k] = v
    opts = np.zeros((max(len(rows), 1), L.N_OCOL), np.int64)
    for i, row in enumerate(rows):
        for k, v in row.items():
            opts[i, k] = v
    return heuristic_decide(kind, st, opts, len(rows), np.array(list(params.values()), np.float64))


def _move(**cols):
    row = {L.O_KIND: L.MK_STEP, L.O_TO: 1, L.O_FOE: -1, L.O_KR_FRONT: L.KR_FAR, L.O_KR_DRY: 0, L.O_NEW: 0}
    row.update({getattr(L, "O_" + k.upper()): v for k, v in cols.items()})
    return row


def test_kraken_player_never_starts_a_swim_it_cannot_finish():
    """Two swims left: a swim whose nearest dry room is 3 moves away (one more swim than allowed) is refused
    however close it brings the goal; greedy (and cautious) take it. A swim that can be finished (2) is taken."""
    swim = _move(kind=L.MK_SWIM, to=1, goal=0, kr_dry=3)
    walk = _move(to=2, goal=6)
    hot = {L.HEARTS: 5, L.S_KR_SWIM_LEFT: 2}
    assert _decide(L.D_MOVE, GREEDY, hot, [swim, walk]) == 0
    assert _decide(L.D_MOVE, CAUTIOUS, hot, [swim, walk]) == 0
    assert _decide(L.D_MOVE, KRAKEN, hot, [swim, walk]) == 1
    assert _decide(L.D_MOVE, KRAKEN, hot, [{**swim, L.O_KR_DRY: 2}, walk]) == 0


def test_kraken_player_keeps_ahead_of_the_flood_front():
    """A room the front can reach in 1 turn costs front_cost x (front_margin - 1) = 10: a way 3 steps longer to a
    room the front cannot reach soon is taken instead; greedy takes the shorter. Beyond the margin: no cost."""
    near = _move(to=1, goal=1, kr_front=1)
    far = _move(to=2, goal=4, kr_front=20)
    st = {L.HEARTS: 5, L.S_KR_SWIM_LEFT: 5}
    assert KRAKEN["front_margin"] == 6 and KRAKEN["front_cost"] == 2
    assert _decide(L.D_MOVE, GREEDY, st, [near, far]) == 0
    assert _decide(L.D_MOVE, KRAKEN, st, [near, far]) == 1
    assert _decide(L.D_MOVE, KRAKEN, st, [{**near, L.O_KR_FRONT: 6}, far]) == 0


def test_kraken_player_takes_the_nearest_area_next():
    """D_KR_AREA options [sector, sector, -1, distance]: greedy keeps the base game's order (A first: area A 8 rows
    and columns away), the Kraken player the nearest area (C, 1 away)."""
    rows = [{0: 0, 1: 0, 2: -1, 3: 8}, {0: 2, 1: 2, 2: -1, 3: 1}, {0: 3, 1: 3, 2: -1, 3: 4}]
    assert _decide(L.D_KR_AREA, GREEDY, {}, rows) == 0
    assert _decide(L.D_KR_AREA, KRAKEN, {}, rows) == 1


def test_kraken_player_visits_the_market_at_the_first_exit():
    """The one market visit at the rate of one requirement (x1): greedy keeps it for later (kraken_market_at 3)
    while its hearts are up; the Kraken player takes it."""
    st = {L.HEARTS: 6, L.S_KR_RATE: 1}
    rows = [{0: 0}, {0: 1}]
    assert _decide(L.D_KR_MARKET, GREEDY, st, rows) == 0
    assert _decide(L.D_KR_MARKET, KRAKEN, st, rows) == 1


def test_greedy_and_cautious_ignore_the_front_and_the_way_to_dry_land():
    """The new parameters are off in greedy and cautious (their Kraken games do not move)."""
    for p in (GREEDY, CAUTIOUS):
        assert p["front_cost"] == 0 and p["front_margin"] == 0 and p["swim_finish"] == 0
