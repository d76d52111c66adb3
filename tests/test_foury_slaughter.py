"""The Slaughter of Monsters (``--campaign slaughter``; docs/rules.md "The Slaughter of Monsters"): each rule with
scripted dice and scripted choices (``tests/foury_helpers.py``) on tiny maps, the campaign file and its map.

The campaign's rules are ruleset options (runtime ints in the kernel's rules array: ``slaughter.*``), so the scripted
games switch them on with ``--set``-style overrides; ``test_the_campaign_loads_its_rules_and_map`` loads the shipped
campaign file itself.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from foury_helpers import QUIET_EVENTS, heuristic_decide, play, rules

from foury_sim.errors import InputError
from foury_sim.games import foury
from foury_sim.games.foury import icons as I
from foury_sim.games.foury import layout as L
from foury_sim.games.foury.policies import CAUTIOUS, GREEDY, HEURISTIC_PARAMS
from foury_sim.games.foury.ruleset import load_ruleset

H, W, SH = L.HEARTS, L.WEAPON, L.SHIELD
#: the Slaughter's rules on a test map (the campaign file sets the same), room rolls that do nothing
SL = {**QUIET_EVENTS, "slaughter.on": True, "game.insert_coins": 0, "slaughter.fury_boxes": 10,
      "slaughter.max_enemies": 48}


def sl_play(map_name="slaughter", **kw):
    overrides = {**SL, **kw.pop("overrides", {})}
    return play(map_name, overrides=overrides, **kw)


# ================================================================================= the campaign
def test_the_campaign_loads_its_rules_and_map():
    r = load_ruleset(campaign="slaughter")
    assert r.campaign_title == "The Slaughter of Monsters" and r.map.name == "The Slaughter of Monsters"
    assert r.R[L.R_SL_ON] == 1 and r.R[L.R_FURY_BOXES] == 10 and r.R[L.R_SL_MAX_ENEMIES] == 48
    assert r.arrows.shape[0] == 0  # "All the entrances and exits have collapsed"
    centre = (r.map.rows // 2) * r.map.cols + r.map.cols // 2
    assert r.R[L.R_SL_START] == centre and r.map.icons[centre, I.START] == 1  # "at the center of the Map"
    monsters = sum(int(r.map.icons[:, f.icon].sum()) for f in r.foes if not f.has("trap"))
    assert monsters == 48  # "The maximum number of enemies you can encounter is 48"
    assert r.R[L.R_SL_CAN_SPAWN] == 0  # the dice give items: no monster can appear
    assert "monster" not in r.data["die_table"]["faces"] and "lose_heart" not in r.data["die_table"]["faces"]
    assert list(r.R[L.R_SL_FIND:L.R_SL_FIND + 6]) == [I.POTION, I.POTION, I.SHIELD, I.WEAPON, I.CLOVER,
                                                      I.YELLOW_POTION]
    assert r.R[L.R_POTION_YELLOW] == 2 and r.R[L.R_POTION_STEP] == 1  # the yellow potion: +2 hearts, a free step
    assert any(a.key == "slaughter.fury_boxes" for a in r.assumptions)


def test_the_base_game_has_every_slaughter_slot_off():
    base = load_ruleset()
    assert not base.R[L.R_SL_ON:L.R_SL_CAN_SPAWN + 1].any()
    assert I.START not in I.CAMPAIGN_ITEMS  # the start triangle is a fixture: never collected nor erased by an imp
    assert I.SHIPPED.chars[I.START] == "1" and base.map.icons[:, I.START].sum() == 0


def test_a_slaughter_map_needs_one_start_and_at_most_the_enemies():
    with pytest.raises(InputError, match="exactly one"):
        rules("potions", {"slaughter.on": True})
    with pytest.raises(InputError, match="more than slaughter.max_enemies"):
        rules("slaughter", {"slaughter.on": True, "slaughter.max_enemies": 3})
    with pytest.raises(InputError, match="slaughter.find_table"):
        rules("slaughter", {"slaughter.on": True, "slaughter.find_table": ["die"] * 6})


# ================================================================================= the rules
def test_no_rounds_no_exits_from_the_start_triangle_and_the_score_is_kills():
    """Start in the centre room (no roll: it is drawn); the step out rolls the table of the room entered (A); the
    goblin is killed; no round, requirement or exit; the turn cap ends the game."""
    g = sl_play(script=[1, 1, 6, 1], sheet={"hearts": 5}, overrides={"game.max_turns": 2})
    assert g.rows(L.TR_SL_START) == [(0, 4, 10, 0, 0)]
    assert [r[0] for r in g.rows(L.TR_ROLL)] == [0, 0] and g[L.S_TURN] == 2  # table A twice; the start is no turn
    assert g[L.S_KILLS_TOTAL] == 1 and g.out[L.OUT_SL_SCORE] == 1 and g.out[L.OUT_KILLS] == 1
    assert g.out[L.OUT_SCORE] == 1  # the `score` column is the campaign's score: kills (not the base game's sheet)
    assert g.rows(L.TR_ROUND) == [] and g.rows(L.TR_EXIT) == [] and g.rows(L.TR_REQ) == []
    assert g.out[L.OUT_SL_END] == L.SLE_CAP and g.rows(L.TR_SL_END)[0][:2] == (L.SLE_CAP, 1)


def test_a_room_roll_finds_an_item_instead_of_a_monster():
    """"rolling the die will no longer lead to encountering enemies but instead to finding useful items": the room
    roll's monster is a find roll on slaughter.find_table (face 3: a shield), collected like any item."""
    g = sl_play(script=[4, 3], sheet={"hearts": 5},
                overrides={"events.A": ["monster"] * 6, "game.max_turns": 1})
    assert g.rows(L.TR_SL_FIND) == [(1, 3, I.SHIELD, 0, 0)]
    assert g.rows(L.TR_SPAWN) == [] and g[SH] == 1 and g.icons(1, I.SHIELD) == 0


def test_a_find_face_may_give_nothing():
    g = sl_play(script=[4, 2], sheet={"hearts": 5},
                overrides={"events.A": ["monster"] * 6, "game.max_turns": 1,
                           "slaughter.find_table": ["potion", "nothing", "shield", "weapon", "clover", "shovel"]})
    assert g.rows(L.TR_SL_FIND) == [(1, 2, -1, 0, 0)] and g.rows(L.TR_GAIN) == []


@pytest.mark.parametrize("fury,hearts", [(1, 5), (0, 2)])
def test_fury_boxes_instead_of_the_hearts_of_a_hit(fury, hearts):
    """"I face a combat and lose, taking 3 damage. I can either remove 3 Life Points or black out 3 Fury spaces"."""
    g = sl_play(script=[1, 1, 1, 4], queues={"fury": [fury]}, sheet={"hearts": 5},
                overrides={"game.max_turns": 2})
    assert g[H] == hearts and g[L.S_FURY_USED] == 3 * fury and g.out[L.OUT_FURY_USED] == 3 * fury
    assert g.rows(L.TR_FURY) == ([(H, 3, 3, 10, L.FS_HIT)] if fury else [])
    ask = g.decisions("fury")[0]
    assert ask.n == 2 and ask.snap["hearts"] == 5


def test_weapon_wear_and_the_bandits_theft_take_a_fury_box_instead():
    """"Instead of removing the Weapon, I black out one Fury space"; the bandit's theft likewise (a resource you
    possess and are forced to give up)."""
    g = sl_play(script=[1, 1, 3, 1, 1, 1, 6], sheet={"hearts": 8, "weapon": 2},
                queues={"weapon": [1, 0], "fury": [1, 0, 1]}, overrides={"game.max_turns": 3})
    assert g.rows(L.TR_FURY) == [(W, 1, 1, 10, L.FS_WEAR), (-1, 1, 2, 10, L.FS_STEAL)]
    assert g[W] == 2 and g.rows(L.TR_WEAPON_WEAR) == [] and g.rows(L.TR_STEAL) == []
    assert g[H] == 3  # the bandit's hit itself was taken (fury answer 0)


def test_the_fury_boxes_for_a_wear_are_the_weapon_the_wear_would_take():
    """"Black out an equal number of Fury boxes": a wear of 3 (combat.wear) on a weapon of 1 would take 1, so 1 box
    (it blacked out 3: session 66's review)."""
    g = sl_play(script=[1, 1, 3, 1, 1, 1, 6], sheet={"hearts": 8, "weapon": 1},
                queues={"weapon": [1, 0], "fury": [1, 0, 1]}, overrides={"game.max_turns": 3, "combat.wear": 3})
    assert g.rows(L.TR_FURY) == [(W, 1, 1, 10, L.FS_WEAR), (-1, 1, 2, 10, L.FS_STEAL)]
    assert g[W] == 1 and g.rows(L.TR_WEAPON_WEAR) == []


def test_the_fury_boxes_for_a_theft_are_the_resources_it_could_take():
    """A theft of 3 (combat.theft) from a hero holding 2 resources (a weapon of 2) would take 2: 2 boxes (it
    blacked out 3)."""
    g = sl_play(script=[1, 1, 3, 1, 1, 1, 6], sheet={"hearts": 8, "weapon": 2},
                queues={"weapon": [1, 0], "fury": [1, 0, 1]}, overrides={"game.max_turns": 3, "combat.theft": 3})
    assert g.rows(L.TR_FURY) == [(W, 1, 1, 10, L.FS_WEAR), (-1, 2, 3, 10, L.FS_STEAL)]
    assert g[W] == 2 and g.rows(L.TR_STEAL) == []


def test_the_fury_track_full_erases_the_sectors_monsters_and_ends_the_game():
    """"When the line is completely blacked out ... roam the sector you are in and erase every monster. Mark them on
    the counter": 3 boxes, a hit of 5 in sector B fills them; the bandit, the orc and the goblin of B are erased and
    counted; the goblin of A killed before counts too. Not a death."""
    g = sl_play(script=[1, 1, 6, 1, 1, 1, 6], sheet={"hearts": 8}, queues={"fury": [1]},
                overrides={"slaughter.fury_boxes": 3})
    assert g.rows(L.TR_FURY) == [(H, 3, 3, 3, L.FS_HIT)] and g[H] == 8
    assert g.rows(L.TR_FURY_FULL) == [(1, 3, 1, 4, 0)]
    assert all(g.icons(c, i) == 0 for c in (3, 6, 7) for i in range(I.FOE_FIRST, I.CAMPAIGN_FIRST))
    assert g[L.S_KILLS_TOTAL] == 4 and g.out[L.OUT_FURY_KILLS] == 3 and g.out[L.OUT_SL_SCORE] == 4 == g.out[L.OUT_SCORE]
    assert g.out[L.OUT_SL_END] == L.SLE_FURY and g.out[L.OUT_END_CAUSE] == L.CAUSE_FURY
    assert g.out[L.OUT_DEATH_ROUND] == 0 and g.rows(L.TR_DEATH) == []


def test_the_fury_kills_count_ruling():
    g = sl_play(script=[1, 1, 6, 1, 1, 1, 6], sheet={"hearts": 8}, queues={"fury": [1]},
                overrides={"slaughter.fury_boxes": 3, "slaughter.fury_kills_count": False})
    assert g.rows(L.TR_FURY_FULL) == [(1, 3, 0, 1, 0)] and g[L.S_KILLS_TOTAL] == 1 and g.out[L.OUT_FURY_KILLS] == 3


def test_no_fury_box_is_offered_once_the_track_is_empty_of_room():
    g = sl_play(script=[1, 1, 1, 4], sheet={"hearts": 5}, overrides={"game.max_turns": 2, "slaughter.fury_boxes": 0})
    assert g.decisions("fury") == [] and g[H] == 2


def test_a_prize_every_three_kills_over_the_whole_game():
    """"For every three enemies, you gain a cornucopia": the kill counter is never reset (no rounds)."""
    g = sl_play(script=[1, 1, 6, 1, 1, 6, 1, 1, 6, 1, 1, 6, 1], sheet={"hearts": 8},
                overrides={"game.max_turns": 5})
    assert g[L.S_KILLS_TOTAL] == 4 and g.rows(L.TR_KILL_PRIZE) == [(3, 1, 0, 0, 0)]


def test_the_last_monster_slain_ends_the_game_and_the_die_icon_gives_items():
    """No monster left and none can appear: the score can no longer change, the game ends ("every monster
    slain"). The DIE icon on the way rolls the campaign's table (items)."""
    g = sl_play("slaughter_one", script=[1, 2, 1, 6, 1], sheet={"hearts": 5}, queues={"use_die": [1]},
                overrides={"die_table.faces": ["potion", "shield", "weapon", "clover", "cornucopia", "shovel"]})
    assert g.rows(L.TR_DIE_TABLE)[0][:2] == (2, L.DIE_WORDS.index("shield")) and g[SH] == 1
    assert g.out[L.OUT_SL_END] == L.SLE_CLEARED and g[L.S_KILLS_TOTAL] == 1 and g[L.S_TURN] == 2


def test_at_most_max_enemies_monsters_are_met():
    """A DIE table that brings a monster (a designer's table) spawns none once max_enemies were met (the map's
    one goblin counts)."""
    g = sl_play("slaughter_one", script=[1, 5], sheet={"hearts": 5}, queues={"use_die": [1]},
                overrides={"die_table.faces": ["monster"] * 6, "slaughter.max_enemies": 1, "game.max_turns": 1})
    assert g.rows(L.TR_SL_CAP) == [(1, 1, 0, 0, 0)] and g.rows(L.TR_SPAWN) == []
    assert g.rules.R[L.R_SL_CAN_SPAWN] == 1


def test_the_die_tables_lost_heart_takes_a_fury_box_instead():
    g = sl_play("slaughter_one", script=[1, 5], sheet={"hearts": 5}, queues={"use_die": [1], "fury": [1]},
                overrides={"die_table.faces": ["lose_heart"] * 6, "game.max_turns": 1})
    assert g.rows(L.TR_FURY) == [(H, 1, 1, 10, L.FS_DIE_TABLE)] and g[H] == 5


# ================================================================================= the policies
def _fury_state(hearts, track, loss, used, boxes=10):
    st = np.zeros(L.STATE_SIZE, np.int64)
    st[H] = hearts
    st[L.S_FURY_TRACK] = track
    st[L.S_FURY_LOSS] = loss
    st[L.S_FURY_USED] = used
    st[L.S_FURY_BOXES] = boxes
    return st


@pytest.mark.parametrize("name,params", [("greedy", GREEDY), ("cautious", CAUTIOUS)])
def test_builtin_policies_answer_the_fury_by_their_named_parameters(name, params):
    p = np.array([params[k] for k in HEURISTIC_PARAMS], np.float64)
    opts = np.zeros((2, L.N_OCOL), np.int64)
    opts[1, 0] = 1
    fh, fr = params["fury_hearts"], params["fury_reserve"]
    lethal = _fury_state(3, H, 3, 0)
    assert heuristic_decide(L.D_FURY, lethal, opts, 2, p) == 1  # a lethal hit: the Fury
    mild = _fury_state(int(fh) + 3, H, 1, 0)
    assert heuristic_decide(L.D_FURY, mild, opts, 2, p) == 0  # plenty of hearts: take the hit
    wear = _fury_state(8, W, 1, int(10 - fr - 2))
    assert heuristic_decide(L.D_FURY, wear, opts, 2, p) == 1  # boxes to spare: keep the weapon
    wear_late = _fury_state(8, W, 1, int(10 - fr - 1))
    assert heuristic_decide(L.D_FURY, wear_late, opts, 2, p) == 0  # keep the last boxes for hearts


def test_replay_and_summary_say_the_slaughter():
    from foury_sim.policy import make_policy

    r = load_ruleset(campaign="slaughter")
    lines = foury.replay(r, "free", make_policy("greedy", foury.POLICIES), 1, 0)
    assert "campaign The Slaughter of Monsters (slaughter)" in lines[0]
    assert lines[1].startswith("Result: ") or any(x.startswith("Result: ") and "monsters killed" in x for x in lines)
    assert any("The Slaughter of Monsters: start at the black triangle" in x for x in lines)
    df = pd.DataFrame({"slaughter_score": [3, 5, 8, 13], "fury_used": [10, 4, 10, 2], "fury_kills": [2, 0, 5, 0],
                       "slaughter_end": [2, 1, 2, 3], "rounds_completed": 0, "coins_used": 0,
                       "death_round": [0, 1, 0, 1],
                       "death_sector": [-1, 0, -1, 1], "death_cause": [0, 112, 0, 1], "win": 0,
                       "end_cause": [5, 112, 5, 1], "death_cell": [-1, 3, -1, 5]})
    s = foury.summarize(df, r)
    assert s["slaughter_score"]["score_mean"] == 7.25 and s["slaughter_score"]["score_median"] == 6.5
    assert s["slaughter_end"] == {"the Fury prevailed": 2, "died": 1, "stuck": 1}
    assert "slaughter_score" not in foury.summarize(df, load_ruleset())  # only when the campaign is on


def test_the_campaigns_own_intervals_are_at_the_runs_level():
    """``--conf`` reaches the Slaughter's score and Santa's rates (once printed at 95 % whatever the level)."""
    from foury_sim import stats
    from foury_sim.cli import format_summary

    df = pd.DataFrame({"slaughter_score": [3, 5, 8, 13, 21, 2, 9], "fury_used": 1, "fury_kills": 0,
                       "slaughter_end": 2, "rounds_completed": 0, "coins_used": 0, "death_round": 0,
                       "death_sector": -1, "death_cause": 0, "win": 0, "end_cause": 5, "death_cell": -1})
    r = load_ruleset(campaign="slaughter")
    for conf in (0.8, 0.99):
        v = foury.summarize(df, r, conf)["slaughter_score"]
        want = stats.summarize_numeric(df["slaughter_score"].to_numpy(), conf)
        assert (v["score_mean_lo"], v["score_mean_hi"]) == pytest.approx((want["mean_lo"], want["mean_hi"]))
        assert (v["score_median_lo"], v["score_median_hi"]) == (want["median_lo"], want["median_hi"])
    s = foury.summarize(df, r, 0.8)["slaughter_score"]
    assert s["score_mean_hi"] < foury.summarize(df, r)["slaughter_score"]["score_mean_hi"]  # 95 % by default
    from foury_sim.runner import run

    res = run("foury", options={"campaign": "santa"}, games=300, conf=0.9, progress=False)
    k = int((res.df["santa_end"] == L.SE_SAFE).sum())
    assert (res.summary["santa_rates"]["safe zone low"], res.summary["santa_rates"]["safe zone high"]) == \
        pytest.approx(stats.wilson(k, 300, 0.9))
    line = next(x for x in format_summary(res.summary, "t").splitlines() if x.startswith("santa rates"))
    assert line.endswith("(90 % Wilson intervals)")


def test_a_median_bound_too_few_games_cannot_give_is_null_in_json_and_inf_in_text():
    """With 4 games the median's 95 % interval has no bound on either side: ``quantile_ci`` gives -inf/inf, the
    run's JSON ``null`` (JSON has no infinity), the text ``[-inf, inf]``; docs/statistics.md says so."""
    import json
    import re
    from pathlib import Path

    from inproc import cli

    args = ("run", "foury", "--campaign", "slaughter", "--games", "4", "--seed", "1", "--no-progress")
    js = json.loads(cli(*args, "--format", "json").stdout)
    assert js["turns"]["median_lo"] is None and js["turns"]["median_hi"] is None and js["turns"]["median"] > 0
    score = js["slaughter_score"]
    assert score["score_median_lo"] is None and score["score_median_hi"] is None
    text = cli(*args).stdout
    assert re.search(rf"median {score['score_median']:g} \[-inf, inf\] \(95 % intervals\)", text), text
    doc = (Path(__file__).resolve().parents[1] / "docs" / "statistics.md").read_text()
    medians = doc.split("## Medians and other quantiles")[1].split("\n## ")[0]
    assert "writes it as `null`" in medians and "`[-inf, inf]`" in medians and "reported as $-\\infty$" not in medians


def test_compare_says_a_variant_without_victory_has_no_win_rate():
    """compare: the Slaughter has no victory (GameSpec.no_win), so no "win rate 0.00 %" row, no McNemar test in the
    Holm family, no "games won under A but lost under B"; the text says why, the JSON carries ``no_win``."""
    from foury_sim.study import compare, format_comparison

    c = compare("foury", {"campaign": "base"}, {"campaign": "slaughter"}, games=20, progress=False, keep_rows=False)
    assert "win rate" not in set(c.outcomes["outcome"]) and set(c.no_win) == {"b"}
    text = format_comparison(c)
    assert "win rate of B: none: the Slaughter of Monsters has no victory" in text
    assert "win rate of A: " in text and "0.00%" not in text and "games won under A" not in text
    assert c.to_dict()["no_win"] == {"b": c.no_win["b"]} and c.replays() == {}
    both = compare("foury", {"hero": "kael"}, {"hero": "melyra"}, games=20, progress=False, keep_rows=False)
    assert both.outcomes["outcome"].iloc[0] == "win rate" and both.no_win == {}


def test_sweep_says_a_cell_without_victory_has_no_win_rate(tmp_path):
    """sweep: the Slaughter's cell (GameSpec.no_win) is not "0.00 %", not ranked by win rate, not "never won"; the
    printed table, cells.csv (``no_win``) and the report say it has no victory; the other cells are as before."""
    from foury_sim.cli import cells_table
    from foury_sim.report import build_report
    from foury_sim.study import run_sweep

    exp = tmp_path / "slb.toml"
    exp.write_text('name = "slb"\ngame = "foury"\nseed = 3\ngames = 40\n\n[sweep]\ncampaign = ["base", "slaughter"]\n')
    out = run_sweep(exp, tmp_path / "res", progress=False, report=False)
    cells = pd.read_csv(out / "cells.csv").fillna({"no_win": ""})
    assert list(cells["no_win"] != "") == [False, True] and "no victory" in cells["no_win"].iloc[1]
    from rich.console import Console

    con = Console(width=120, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    con.print(cells_table(out / "cells.csv"))
    printed = [x for x in con.export_text().splitlines() if "slaughter" in x]
    assert len(printed) == 1 and "none" in printed[0] and "(no victory)" in printed[0] and "%" not in printed[0]
    build_report(out)
    md = (out / "report.md").read_text()
    assert "No victory, so no win rate: `campaign=slaughter`" in md and "Never won" not in md
    row = next(x for x in md.splitlines() if x.startswith("| ") and "| slaughter |" in x)
    assert row.startswith("| – | 1 |") and "none (no victory)" in row


def test_the_slaughter_score_line_reads_a_summary_back_from_its_json():
    """A summary written to JSON writes a median bound too few games give as ``null`` and a mean without spread as
    NaN: the Slaughter's own line prints them as the other numbers' lines do (it raised a TypeError on ``None``)."""
    import json

    from foury_sim.files import to_jsonable
    from foury_sim.outputs import summary_lines

    r = load_ruleset(campaign="slaughter")
    for kills, mean_part, median_part in (([7], "mean 7.00 kills (no interval from 1 game)", "median 7 [-inf, inf]"),
                                          ([3, 5, 8], "mean 5.33 kills [", "median 5 [-inf, inf]")):
        df = pd.DataFrame({"slaughter_score": kills, "fury_used": 1, "fury_kills": 0, "slaughter_end": 2,
                           "rounds_completed": 0, "coins_used": 0, "death_round": 0, "death_sector": -1,
                           "death_cause": 0, "win": 0, "end_cause": 5, "death_cell": -1})
        s = foury.summarize(df, r)
        back = json.loads(json.dumps(to_jsonable(s)))
        for summary in ({**s, "games": len(kills)}, {**back, "games": len(kills)}):
            line = next(ln for ln in summary_lines(summary, foury.OUTPUTS) if "kills" in ln)
            assert mean_part in line and median_part in line, line
