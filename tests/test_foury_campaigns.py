"""Dungeon Foury campaigns (docs/rules.md "Campaigns"): the campaign machinery and each campaign's rules, with
scripted dice and scripted choices (``tests/foury_helpers.py``).

A campaign's rules are ruleset options (runtime ints in the kernel's rules array), so the scripted games below
switch them on with ``--set``-style overrides on tiny maps; the tests of the machinery load the shipped
campaign files themselves.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from foury_helpers import DONE, QUIET_EVENTS, market, play

from foury_sim.errors import InputError
from foury_sim.games import foury
from foury_sim.games.foury import icons as I
from foury_sim.games.foury import layout as L
from foury_sim.games.foury.board import load as load_board
from foury_sim.games.foury.ruleset import builtin_campaigns, load_ruleset

H, CH = L.HEARTS, L.CHEST
N, E, S, W = 0, 1, 2, 3
INOUT = {"rulings.hero_caps": "scale", "rulings.market_every_turn": "purchases"}


# ============================================================================ the machinery
def test_campaign_icons_leave_the_base_icons_where_they_were():
    """The campaigns' items come after the foe slots: no icon number of the base game moves."""
    assert I.FOE_FIRST == len(I.FIXED_CHARS) == 12
    assert I.YELLOW_POTION == I.FOE_FIRST + I.MAX_FOES and I.PURPLE_POTION == I.YELLOW_POTION + 1
    assert I.SHIPPED.chars[I.YELLOW_POTION] == "y" and I.SHIPPED.chars[I.PURPLE_POTION] == "v"
    assert not I.is_foe(I.YELLOW_POTION) and I.is_foe(I.CAMPAIGN_FIRST - 1)
    base = load_ruleset()
    assert base.map.icons[:, I.CAMPAIGN_FIRST:].sum() == 0  # no base map holds one
    for idx in (L.R_HERO_CAPS_SCALE, L.R_MARKET_EVERY_TURN):
        assert base.R[idx] == 0  # the base game's values
    assert base.campaign == "" and L.STATE_SIZE >= 240 and L.R_SIZE >= 160


def test_inout_campaign_loads_its_rules_and_map():
    assert "inout" in builtin_campaigns()
    r = load_ruleset(campaign="inout")
    assert r.campaign == "inout" and r.campaign_title == "In and Out with Your Strength"
    assert r.map.name == "In and Out with Your Strength"
    assert (r.R[L.R_HERO_CAPS_SCALE], r.R[L.R_MARKET_EVERY_TURN], r.R[L.R_POTION_STEP]) == (1, 1, 1)
    assert r.R[L.R_TURN_MARKET_SWAPS] == 0  # purchases only
    assert (r.R[L.R_POTION_YELLOW], r.R[L.R_POTION_PURPLE]) == (2, 3)
    total = r.map.icons.sum(axis=0)
    base_total = load_ruleset().map.icons.sum(axis=0)
    items = [I.CHEST, I.POTION, I.SHOVEL, I.WEAPON, I.SHIELD, I.CLOVER, I.DIE]
    assert total[items].sum() < base_total[items].sum() / 3  # "far fewer resources"
    assert total[I.YELLOW_POTION] == 4 and total[I.PURPLE_POTION] == 1
    # the same rooms, walls, arrows and foes as the base map: only the items differ
    assert np.array_equal(r.map.wall, load_ruleset().map.wall)
    assert np.array_equal(r.map.icons[:, I.FOE_FIRST:I.CAMPAIGN_FIRST], load_ruleset().map.icons[:, I.FOE_FIRST:
                                                                                                  I.CAMPAIGN_FIRST])
    assert any("inout.toml" in s for s in r.sources)


def test_campaign_overlay_sits_under_the_users_rules_and_set(tmp_path):
    """defaults < campaign < --rules < --set: a user may change a campaign rule back."""
    f = tmp_path / "mine.toml"
    f.write_text("[potions]\nyellow = 1\n")
    r = load_ruleset(str(f), ["rulings.market_every_turn=off"], campaign="inout")
    assert r.R[L.R_POTION_YELLOW] == 1 and r.R[L.R_MARKET_EVERY_TURN] == 0 and r.R[L.R_HERO_CAPS_SCALE] == 1


@pytest.mark.parametrize("hero", ["kael", "melyra", "thalindra", "elydion"])
def test_inout_hero_caps_are_the_scale(hero):
    """"eliminating the Extra slots previously reserved for heroes. You can now accumulate resources up to the
    maximum scale for each": the hero keeps the sheet's start, the caps become character.cap."""
    base, camp = load_ruleset(), load_ruleset(campaign="inout")
    scale = [base.data["character"]["cap"][n] for n in L.TRACK_NAMES[:L.N_TRAITS]]
    sheet = [base.data["heroes"][hero]["cap"][n] for n in L.TRACK_NAMES[:L.N_TRAITS]]
    start = [base.data["heroes"][hero]["start"][n] for n in L.TRACK_NAMES[:L.N_TRAITS]]
    assert list(base.for_hero(hero)[1][L.T_CAP, :L.N_TRAITS]) == sheet
    _, T = camp.for_hero(hero)
    assert list(T[L.T_CAP, :L.N_TRAITS]) == scale and list(T[L.T_START, :L.N_TRAITS]) == start
    assert scale != sheet  # every shipped hero has a blacked-out box somewhere


def test_unknown_campaign_is_one_line():
    with pytest.raises(InputError, match="unknown campaign 'atlantis'.*inout") as e:
        load_ruleset(campaign="atlantis")
    assert e.value.where == "--campaign"


def test_a_campaigns_map_without_its_campaign_names_map_and_the_campaign():
    # it blamed the shipped santa.map ("santa.map:28:35: unknown icon character 'z'"), as if the file were broken
    with pytest.raises(InputError) as e:
        load_ruleset(map_path="santa")
    assert e.value.where == "--map"
    assert e.value.message.startswith("'santa' is the map of the campaign 'santa': play it with --campaign santa "
                                      "(this game refuses it: ")
    assert "santa.map:28:35: unknown icon character 'z'" in e.value.message
    with pytest.raises(InputError, match="play it with --campaign slaughter") as e:
        load_ruleset(map_path="slaughter", campaign="kraken")
    assert load_ruleset(map_path="santa", campaign="santa").campaign == "santa"
    assert load_ruleset(map_path="kraken").campaign == ""  # (a campaign's map the base game takes plays on)


def test_a_requirement_the_shipped_map_cannot_meet_is_the_settings_fault(tmp_path):
    # it blamed the shipped base.map (base.map:48:1), which the user did not write or choose
    with pytest.raises(InputError) as e:
        load_ruleset(overrides=["requirements.statues=50"])
    assert (e.value.where, e.value.message) == ("--set requirements.statues=50", "the Temple needs 50 statues "
                                                "(requirements.statues) but the map has 7 (the map base)")
    f = tmp_path / "r.toml"
    f.write_text("[requirements]\nlevers = 9\n")
    with pytest.raises(InputError) as e:
        load_ruleset(str(f))
    assert e.value.where == f"{f}:2:1" and e.value.message.startswith("the Castle Cliff needs 9 levers")
    with pytest.raises(InputError) as e:  # a map file of one's own: still the map's line
        load_ruleset(str(f), map_path=str(foury.maps.builtin_maps()["base"]))
    assert e.value.where.endswith("base.map:48:1")


def test_campaign_file_errors_point_at_the_file(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text("[game]\nmap = \"base\"\n")
    with pytest.raises(InputError, match=r"\[campaign\] table with a title"):
        load_ruleset(campaign=str(f))
    f.write_text("[campaign]\ntitle = \"x\"\n\n[rulings]\nmarket_every_tur = true\n")
    with pytest.raises(InputError, match="unknown ruleset key 'rulings.market_every_tur'") as e:
        load_ruleset(campaign=str(f))
    assert e.value.where == f"{f}:5:1"


def test_map_check_validates_a_map_against_the_campaign(tmp_path):
    """`map check MAP --campaign NAME`: the campaign's [campaign.map] bounds, at the map's grid line."""
    assert load_board("inout", campaign="inout").name == "In and Out with Your Strength"
    with pytest.raises(InputError, match=r"wants at least 1 yellow potion on its map .* the map has 0") as e:
        load_board("base", campaign="inout")
    assert "base.map:" in e.value.where
    m = tmp_path / "rich.map"
    text = Path(load_board("inout").path).read_text()
    m.write_text(text.replace("Bcb", "Bcc").replace("B.M", "BcM").replace("assume-chests: 1", "assume-chests: 3"))
    with pytest.raises(InputError, match=r"wants at most 2 chest on its map .* the map has 3") as e:
        load_board(str(m), campaign="inout")
    assert load_board("base").name  # the base game asks nothing of it


def test_blank_map_campaign_example_loads():
    """The example blank-map campaign shipped in experiments/ (a campaign file and its map beside it)."""
    root = Path(__file__).resolve().parents[1]
    camp = root / "experiments" / "campaigns" / "blank_example.toml"
    r = load_ruleset(campaign=str(camp))
    assert r.campaign_title and Path(r.map.path).parent == camp.parent
    assert r.map.icons[:, I.YELLOW_POTION].sum() >= 1


# =============================================================== In and Out with Your Strength
def test_coloured_potions_heal_and_give_a_free_step():
    """Yellow +2 hearts, purple +3, each followed by one step without a roll (no turn): the policy picks the room
    (as for the extra move). Cell 0 yellow -> step to 1 (purple) -> step to 2 (a chest, collected)."""
    g = play("potions", script=[1], queues={"extra_move": [2]}, sheet={"hearts": 2},
             overrides={**QUIET_EVENTS, "game.max_turns": 1})
    assert g.rows(L.TR_GAIN)[:2] == [(H, 2, 4, 0, 0), (H, 3, 7, 0, 0)]
    assert g.rows(L.TR_POTION_STEP) == [(0, 1, 0, 0, 0), (1, 2, 0, 0, 0)]
    steps = g.decisions("extra_move")  # the first step had one room to go to (no question asked)
    assert [sorted(m["to"] for m in d.moves()) for d in steps] == [[0, 2]]
    assert len(g.rows(L.TR_ROLL)) == 1 and g[L.S_TURN] == 1  # only the entry was rolled and counted
    assert g[L.S_POS] == 2 and g[CH] == 1 and g.icons(0, I.YELLOW_POTION) == g.icons(1, I.PURPLE_POTION) == 0


def test_coloured_potion_hearts_are_ruleset_values_and_the_step_an_option():
    g = play("potions", script=[1], queues={"extra_move": []}, sheet={"hearts": 2},
             overrides={**QUIET_EVENTS, "game.max_turns": 1, "potions.yellow": 5, "potions.coloured_step": False})
    assert g.rows(L.TR_GAIN) == [(H, 5, 7, 0, 0)]
    assert g.rows(L.TR_POTION_STEP) == [] and g[L.S_POS] == 0


def test_coloured_potion_is_capped_like_any_heal():
    g = play("potions", script=[1], queues={"extra_move": [2]}, sheet={"hearts": 7},
             overrides={**QUIET_EVENTS, "game.max_turns": 1, "potions.coloured_step": True})
    assert g.rows(L.TR_CAPPED)[0] == (H, 1, 0, 0, 0) and g[H] >= 8


def test_market_at_the_end_of_every_turn():
    """Cell 0 gives nothing, cell 1... the chest of cell 2 is bought with at the end of that turn, at the round's
    chest value; the base game opens no market inside a round."""
    queues = {"move": [1, 2], "market": [market(L.M_BUY, H), DONE], "extra_move": [1, 2]}
    g = play("potions", script=[1], queues=queues, sheet={"hearts": 2},
             overrides={**QUIET_EVENTS, **INOUT, "game.max_turns": 2, "potions.coloured_step": True},
             strict=False, check_dice=False)
    opened = g.rows(L.TR_TURN_MARKET)
    assert opened and opened[0] == (1, 1, 0, 0, 0)  # end of turn 1, a chest buys 1 (round 1: x1)
    assert (L.M_BUY, H, -1, 1, 0) in g.rows(L.TR_MARKET) and g[CH] == 0
    base = play("potions", script=[1], queues={"extra_move": [1, 2]}, sheet={"hearts": 2},
                overrides={**QUIET_EVENTS, "game.max_turns": 2}, strict=False, check_dice=False)
    assert base.rows(L.TR_TURN_MARKET) == [] and base.rows(L.TR_MARKET_OPEN) == []


@pytest.mark.parametrize("ruling,swaps", [("purchases", False), ("all", True)])
def test_turn_market_offers_swaps_only_when_the_ruling_says_so(ruling, swaps):
    """"purchase additional resources": a chest and a cornucopia are spent; swapping resources is the between-rounds
    market's, unless ``market_every_turn = "all"``."""
    queues = {"market": [DONE], "extra_move": [2]}
    g = play("potions", script=[1], queues=queues, sheet={"hearts": 2, "shield": 2},
             overrides={**QUIET_EVENTS, **INOUT, "rulings.market_every_turn": ruling, "game.max_turns": 2},
             strict=False, check_dice=False)
    first = g.decisions("market")[0]
    ops = {k // 100 for k in first.keys}
    assert L.M_BUY in ops and (L.M_SWAP in ops) == swaps


def test_turn_market_stays_shut_with_nothing_to_spend():
    g = play("potions", script=[1], sheet={"hearts": 2},
             overrides={**QUIET_EVENTS, **INOUT, "game.max_turns": 2, "potions.coloured_step": False},
             strict=False, check_dice=False)
    assert g[L.S_TURN] == 2 and g[CH] == 0
    assert g.rows(L.TR_TURN_MARKET) == []


def test_inout_replay_and_summary_say_the_campaign():
    from foury_sim.policy import make_policy

    r = load_ruleset(campaign="inout")
    lines = foury.replay(r, "free", make_policy("greedy", foury.POLICIES), 1, 0)
    assert "campaign In and Out with Your Strength (inout)" in lines[0]
    assert any("Market" in x or "market" in x for x in lines)


def test_a_campaign_run_is_titled_by_its_campaign():
    """The summary's title line names the campaign played, not the base game's story."""
    from foury_sim.cli import format_summary
    from foury_sim.registry import get_game
    from foury_sim.runner import run

    res = run("foury", games=20, seed=3, progress=False, options={"campaign": "inout"})
    assert res.summary["title"] == "Dungeon Foury (In and Out with Your Strength)"
    assert format_summary(res.summary, res.summary["title"]).splitlines()[0] == res.summary["title"]
    assert run("foury", games=20, seed=3, progress=False).summary["title"] == get_game("foury").title


def test_the_slaughter_summary_states_no_win_rate_and_the_others_do():
    """The Slaughter has no victory: its run summary says so where a win rate stands (not "0.00 %"); a campaign
    with a victory, and the base game, print their win rate with its interval."""
    from foury_sim.cli import format_summary
    from foury_sim.runner import run

    for campaign, wins in (("slaughter", False), ("inout", True), (None, True)):
        res = run("foury", games=20, seed=3, progress=False, options={"campaign": campaign} if campaign else None)
        line = next(x for x in format_summary(res.summary, res.summary["title"]).splitlines()
                    if x.startswith("win rate"))
        assert ("Wilson interval" in line) == wins and ("no_win" in res.summary) != wins
        if not wins:
            assert line == "win rate            none: the Slaughter of Monsters has no victory; its score is the " \
                           "monsters killed (slaughter score)"


@pytest.mark.parametrize("campaign, words", [
    ("base", "completed all four rounds"), ("slaughter", "has no victory"), ("santa", "XMas Safe Zone"),
    ("kraken", "opposite the last area"), ("my/own.toml", "the campaign's own victory")])
def test_the_win_legend_says_what_a_win_is_in_the_campaign_played(campaign, words):
    from foury_sim.outputs import legend_lines
    from foury_sim.registry import get_game

    s = {"win": {"rate": 0.5}, "provenance": {"overrides": {"options": {"campaign": campaign}}}}
    win = next(line for line in legend_lines(s, get_game("foury").outputs) if line.strip().startswith("win rate"))
    assert words in win
