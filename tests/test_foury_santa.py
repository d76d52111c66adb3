"""Santa Crash'n Foury (docs/rules.md "Santa Crash'n Foury"): every rule with scripted dice and scripted choices
(``tests/foury_helpers.py``) on tiny maps, the campaign files, and the built-in policy's new decisions.

The campaign's rules are ruleset options (``[santa]``, runtime ints at ``R_SANTA*``), so the scripted games switch
them on with ``--set``-style overrides; a goblin and an orc stand in for the Grinch and the Yeti.
"""

from __future__ import annotations

import numpy as np
import pytest
from foury_helpers import QUIET_EVENTS, heuristic_decide, play

from foury_sim.errors import InputError
from foury_sim.games import foury
from foury_sim.games.foury import icons as I
from foury_sim.games.foury import layout as L
from foury_sim.games.foury.policies import CAUTIOUS, GREEDY, HEURISTIC_PARAMS
from foury_sim.games.foury.ruleset import builtin_campaigns, load_ruleset

H = L.HEARTS
NONE = {k: 0 for k in L.SANTA_KIND_KEYS}
SANTA = {**QUIET_EVENTS, "santa.on": True, "santa.grinch": "goblin", "santa.yeti": "orc", "santa.wrath_turns": 0,
         "santa.goal": NONE, "kills.prize_every": 0}


def goal(**kw) -> dict:
    return {**NONE, **kw}


def end(g) -> int:
    return g[L.S_SANTA_END] & 7


# ============================================================================ files and map
def test_santa_campaign_loads_its_rules_and_map():
    assert "santa" in builtin_campaigns()
    r = load_ruleset(campaign="santa")
    assert r.santa and r.campaign_title == "Santa Crash'n Foury" and r.map.name == "Santa Crash'n Foury"
    assert r.R[L.R_SANTA_HOURGLASS] == 40 and r.R[L.R_SANTA_STAR_STEPS] == 4 and r.R[L.R_SANTA_WRATH_TURNS] == 10
    assert r.R[L.R_COINS] == 0  # a death ends the campaign
    total = r.map.icons.sum(axis=0)
    # the whole collection grid is on the map, the sleigh, canes, a star per sector
    assert (total[I.REINDEER], total[I.RUDOLPH], total[I.GREEN_PACKAGE], total[I.BLUE_PACKAGE]) == (8, 1, 16, 16)
    assert (total[I.SLEIGH], total[I.CANDY_CANE], total[I.STAR], total[I.SAFE_ZONE]) == (1, 3, 4, 1)
    grinch, yeti = r.icons.foe("grinch"), r.icons.foe("yeti")
    assert (r.R[L.R_SANTA_GRINCH], r.R[L.R_SANTA_YETI]) == (grinch, yeti)
    assert total[grinch] == 1 and total[yeti] == 1 and yeti in r.T[L.T_SPAWN, :6] and grinch in r.T[L.T_SPAWN, :6]
    safe = int(r.R[L.R_SANTA_SAFE])
    assert r.map.icons[safe, I.SAFE_ZONE] == 1 and r.rm0[safe, L.RM_ICON + I.SAFE_ZONE] == 0  # a place, not an item
    # Santa's room is the centre (the Oracle's place); the Safe Zone a far corner
    assert r.map.sector[r.map.oracle] == I.ORACLE and r.map.distances_from(r.map.oracle)[safe] == 8
    keys = {a.key for a in r.assumptions}
    assert {"santa.hourglass", "santa.wrath_strength", "map.reindeers"} <= keys


def test_base_game_has_no_santa():
    r = load_ruleset()
    assert not r.santa and not r.R[L.R_SANTA:L.R_SANTA_WRATH_GOAL + 1].any()
    assert len(set(I.CAMPAIGN_CHARS)) == len(I.CAMPAIGN_CHARS)
    assert not set(I.CAMPAIGN_CHARS) & set(c for c in r.icons.chars[I.FOE_FIRST:I.CAMPAIGN_FIRST])


def test_santa_needs_one_safe_zone_and_known_foes(tmp_path):
    with pytest.raises(InputError, match="exactly one XMas Safe Zone"):
        load_ruleset(overrides=["santa.on=true", "santa.grinch=goblin", "santa.yeti=orc"])
    f = tmp_path / "bad.toml"
    f.write_text('[santa]\ngrinch = "scrooge"\n')
    with pytest.raises(InputError, match="santa.grinch = 'scrooge' is not an enemy") as e:
        load_ruleset(str(f), campaign="santa")
    assert "bad.toml:2" in e.value.where
    with pytest.raises(InputError, match="solo campaign"):
        load_ruleset(overrides=["two_player.players=2"], campaign="santa")


# ============================================================================ the rules
def test_start_beside_santas_room_hourglass_and_collection_goal():
    """The start is the player's choice among the rooms next to Santa's room; it is rolled and marks the first
    hourglass space; reindeer and packages are collected like items; when the last space is marked with the goal
    met, the campaign is won by the collection (no Wrath)."""
    g = play("santa_line", script=[1, 1], queues={"place": [2], "move": [3], "santa_home": [0]},
             sheet={"hearts": 5}, overrides={**SANTA, "santa.hourglass": 2, "santa.goal": goal(reindeer=1, green=1)})
    assert [sorted(m["to"] for m in d.moves()) for d in g.decisions("place")] == [[0, 2]]
    assert g.rows(L.TR_SANTA_START) == [(2, 2, 1, 5, 0)]
    assert g.rows(L.TR_SANTA_GET) == [(L.SK_REINDEER, 1, 2, 1, -1), (L.SK_GREEN, 1, 3, 1, -1)]
    assert g[L.S_SANTA_MARKS] == 2 and g[L.S_TURN] == 2 and end(g) == L.SE_COLLECTION and g[L.S_WIN] == 1
    assert g.out[L.OUT_SANTA_GOAL] == 1 and g.out[L.OUT_SANTA_FULL] == 0 and g.out[L.OUT_SANTA_REINDEER] == 1
    assert g.rows(L.TR_SANTA_END) == [(L.SE_COLLECTION, 2, -1, 0, 1)]


def test_hourglass_out_without_the_goal_brings_santas_wrath():
    """Each attack: your d6 against Santa's d6 + wrath_strength; the difference is lost in hearts; surviving
    every attack is still a loss."""
    over = {**SANTA, "santa.hourglass": 2, "santa.goal": goal(green=2), "santa.wrath_turns": 3,
            "santa.wrath_strength": 1}
    g = play("santa_line", script=[1, 1, 3, 5, 4, 2, 2, 2], queues={"place": [2], "move": [3], "santa_home": [0]},
             sheet={"hearts": 5}, overrides=over)
    assert g.rows(L.TR_SANTA_HOME)[-1] == (3, 1, 1, 0, 0)  # the Wrath begins: 3 attacks, d6+1
    assert g[H] == 5 - 3 - 1 and g[L.S_SANTA_WRATH] == 4  # 5+1-3 = 3, then 2+1-4 < 0, then 2+1-2 = 1
    assert end(g) == L.SE_WRATH_SURVIVED and g[L.S_WIN] == 0 and g[L.S_DEAD] == 0
    killed = play("santa_line", script=[1, 1, 1, 6], queues={"place": [2], "move": [3], "santa_home": [0]},
                  sheet={"hearts": 5}, overrides=over)
    assert end(killed) == L.SE_WRATH_KILLED and killed[L.S_DEAD] == 1 and killed[L.S_DEATH_CAUSE] == L.CAUSE_SANTA
    assert killed.rows(L.TR_SANTA_END)[-1][:3] == (L.SE_WRATH_KILLED, 2, 0)


def test_wrath_after_collection_ruling_and_shield():
    """santa.wrath_after_collection: the goal met does not spare the Wrath (surviving it is the collection's
    win); a shield may block an attack (D_SHIELD)."""
    over = {**SANTA, "santa.hourglass": 2, "santa.goal": goal(green=1), "santa.wrath_turns": 1,
            "santa.wrath_after_collection": True}
    g = play("santa_line", script=[1, 1, 1, 6], queues={"place": [2], "move": [3], "santa_home": [0], "shield": [1]},
             sheet={"hearts": 5, "shield": 1}, overrides=over)
    assert g.rows(L.TR_BLOCK) == [(6, 0, 0, 0, 0)] and g[H] == 5 and end(g) == L.SE_COLLECTION


def test_star_gives_free_steps_without_rolls_and_one_mark():
    """A star: "move freely for 4 additional spaces without rolling more dice ..., marking only 1 turn"."""
    g = play("santa_line", script=[1, 1, 1], sheet={"hearts": 5},
             queues={"place": [2], "move": [3, 4], "santa_home": [0, 0], "extra_move": [5, 3, 4]},
             overrides={**SANTA, "santa.hourglass": 3})
    assert g.rows(L.TR_SANTA_STAR)[0] == (4, 4, 0, 0, 0)
    assert [r[1:3] for r in g.rows(L.TR_SANTA_STAR)[1:]] == [(4, 5), (5, 4), (4, 3), (3, 4)]
    assert g[L.S_TURN] == 3 and g[L.S_SANTA_MARKS] == 3 and len(g.rows(L.TR_ROLL)) == 3 and g[L.S_POS] == 4
    assert end(g) == L.SE_COLLECTION  # (the goal is empty here); passing through the Safe Zone is not a stop
    safe = play("santa_line", script=[1, 1, 1], sheet={"hearts": 5},
                queues={"place": [2], "move": [3, 4], "santa_home": [0, 0], "extra_move": [5]},
                overrides={**SANTA, "santa.hourglass": 9, "santa.star_steps": 1})
    assert safe[L.S_POS] == 5 and end(safe) == L.SE_SAFE and safe[L.S_WIN] == 1 and safe[L.S_SANTA_MARKS] == 3


def test_die_table_star():
    """santa.die_star: that face of the DIE table shows a star."""
    g = play("santa_die", script=[1, 3], sheet={"hearts": 5},
             queues={"place": [2], "use_die": [1], "extra_move": [3]},
             overrides={**SANTA, "santa.hourglass": 1, "santa.die_star": 3, "santa.star_steps": 1})
    assert g.rows(L.TR_SANTA_STAR)[0] == (2, 1, 1, 0, 0) and g.rows(L.TR_DIE_TABLE) == [(3, L.DIE_CHEST, 3, 0, 0)]
    assert g[L.CHEST] == 0 and g[L.S_POS] == 3
    # the replay says the face gave a star, not the printed chest (the row carries the star's face)
    assert "    DIE table roll: 3 -> a star (instead of the printed outcome)" in g.report().splitlines()
    assert "gain a chest" not in g.report()
    base = play("santa_die", script=[1, 3], sheet={"hearts": 5}, queues={"place": [2], "use_die": [1]},
                overrides={**SANTA, "santa.hourglass": 1})
    assert base.rows(L.TR_SANTA_STAR) == [] and base[L.CHEST] == 1  # die_star = 0: the table as printed
    assert "    DIE table roll: 3 -> gain a chest" in base.report().splitlines()


def test_die_table_star_in_a_clover_reroll_says_a_star():
    """A clover reroll of the DIE table that lands on the star face says "a star" (the replay's words)."""
    from foury_sim.games.foury.trace import Context, format_trace

    rows = np.array([[L.TR_DIE_TABLE, 5, L.DIE_WORDS.index("clover"), 3, 0, 0],
                     [L.TR_REROLL, L.RR_DIE, 5, 3, 1, L.DIE_CHEST],
                     [L.TR_SANTA_STAR, 2, 4, 1, 0, 0]], np.int64)
    assert Context(4).die_star == 0
    lines = format_trace(rows, 4)
    assert lines[0] == "    DIE table roll: 5 -> gain a clover"
    assert lines[1] == "    clover on the DIE table roll: 5 rerolled to 3 -> a star (instead of the printed outcome)"


def test_grinch_hit_destroys_a_green_package_and_yeti_a_blue():
    """"If he wins the fight ... he will destroy a GREEN package": one per hit that costs hearts (the Yeti: BLUE).
    Beating them is a kill."""
    over = {**SANTA, "santa.hourglass": 3}
    g = play("santa_foes", script=[1, 1, 2, 4, 6, 1, 1, 1, 6, 6, 1], sheet={"hearts": 8},
             queues={"place": [2], "move": [3, 4], "santa_home": [0, 0], "fight_on": [1, 1]}, overrides=over)
    goblin, orc = g.rules.icons.foe("goblin"), g.rules.icons.foe("orc")
    lost = [r for r in g.rows(L.TR_SANTA_GET) if r[3] < 0]
    assert lost == [(L.SK_GREEN, 0, 3, -1, goblin), (L.SK_BLUE, 0, 4, -1, orc)]
    assert g[L.S_SANTA_LOST] == 2 and g[L.S_KILLS_TOTAL] == 2 and g[H] == 8 - 2 - 5
    none = play("santa_foes", script=[1, 1, 2, 4, 6, 1], sheet={"hearts": 8},
                queues={"place": [2], "move": [3], "santa_home": [0], "fight_on": [1]},
                overrides={**over, "santa.hourglass": 2, "santa.packages_per_hit": 0})
    assert none[L.S_SANTA_GOT + L.SK_GREEN] == 1 and none[L.S_SANTA_LOST] == 0


def test_candy_cane_given_or_kept():
    over = {**SANTA, "santa.hourglass": 3, "santa.grinch": "orc", "santa.yeti": ""}
    # cell 3's goblin is no Grinch now: fought; then the orc (the Grinch) in cell 4: no cane held, fought
    g = play("santa_foes", script=[1, 1, 6, 1, 1, 6, 1], sheet={"hearts": 8},
             queues={"place": [2], "move": [3, 4], "santa_home": [0, 0]}, overrides=over)
    assert g.decisions("santa_cane") == [] and g[L.S_KILLS_TOTAL] == 2


def test_candy_cane_decision():
    """A cane held: the policy chooses (D_SANTA_CANE); given, the foe leaves the room, no fight, no kill."""
    line = "santa_cane"
    over = {**SANTA, "santa.hourglass": 2}
    g = play(line, script=[1, 1], sheet={"hearts": 8}, queues={"place": [2], "move": [3], "santa_home": [0],
                                                               "santa_cane": [1]}, overrides=over)
    goblin = g.rules.icons.foe("goblin")
    assert g.rows(L.TR_SANTA_CANE) == [(goblin, 3, 0, 0, 0)] and g.icons(3, goblin) == 0
    assert g[L.S_KILLS_TOTAL] == 0 and g[L.S_SANTA_CANES_GIVEN] == 1 and g.rows(L.TR_FIGHT) == []
    fought = play(line, script=[1, 1, 6, 1], sheet={"hearts": 8},
                  queues={"place": [2], "move": [3], "santa_home": [0], "santa_cane": [0]}, overrides=over)
    assert fought[L.S_KILLS_TOTAL] == 1 and fought[L.S_SANTA_CANES] == 1


def test_an_imp_erases_a_resource_not_the_campaigns_collectibles():
    """IMP: "If there is a Resource in the room where an Imp appears, erase it": the Resources are the sheet's
    (hearts, shield, clover, weapon, shovel); a package is collected after the fight. santa.imp_erases = "all"
    (the engine before session 67) erases every item icon."""
    over = {**SANTA, "santa.hourglass": 1}
    g = play("santa_imp", script=[1, 6, 1], queues={"place": [2]}, sheet={"hearts": 5}, overrides=over)
    assert g.rows(L.TR_IMP) == [] and g[L.S_SANTA_GOT + L.SK_GREEN] == 1 and g[L.S_KILLS_TOTAL] == 1
    erased = play("santa_imp", script=[1, 6, 1], queues={"place": [2]}, sheet={"hearts": 5},
                  overrides={**over, "santa.imp_erases": "all"})
    assert erased.rows(L.TR_IMP) == [(2, I.GREEN_PACKAGE, 1, 0, 0)] and erased[L.S_SANTA_GOT + L.SK_GREEN] == 0
    assert load_ruleset(campaign="santa").R[L.R_SANTA_FLAGS] & L.SF_IMP_ALL == 0  # the text's reading by default


def test_stuck_is_a_death():
    """"If you get stuck... uh, you're dead" (the base page; "The game flow follows that of the base game"): no move
    left ends the campaign as a death, cause stuck, the goal held or not. santa.stuck = "hourglass" (the engine
    before session 67): the hourglass runs out where you stand, then the goal or the Wrath."""
    over = {**SANTA, "santa.hourglass": 5, "santa.goal": goal(reindeer=1), "events.A": ["collapse_front_behind"] * 6}
    g = play("santa_stuck", script=[1], queues={"place": [2]}, sheet={"hearts": 5}, overrides=over)
    assert g[L.S_SANTA_GOT + L.SK_REINDEER] == 1 and g[L.S_TURN] == 1  # the goal is held, no move is left
    assert g[L.S_DEAD] == 1 and g[L.S_DEATH_CAUSE] == L.CAUSE_STUCK and g[L.S_DEATH_CELL] == 2
    assert end(g) == L.SE_DIED and g[L.S_WIN] == 0 and g[L.S_SANTA_MARKS] == 1 and g.out[L.OUT_SANTA_GOAL] == 1
    old = play("santa_stuck", script=[1], queues={"place": [2]}, sheet={"hearts": 5},
               overrides={**over, "santa.stuck": "hourglass"})
    assert old[L.S_DEAD] == 0 and end(old) == L.SE_COLLECTION and old[L.S_WIN] == 1 and old[L.S_SANTA_MARKS] == 5


def test_santa_rulings_take_only_their_values(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('[santa]\nimp_erases = "some"\n')
    with pytest.raises(InputError, match="santa.imp_erases = 'some' is not one of 'resources', 'all'$") as e:
        load_ruleset(str(f), campaign="santa")
    assert "bad.toml:2" in e.value.where and "\n" not in str(e.value)
    with pytest.raises(InputError, match="santa.stuck = True is not one of 'dead', 'hourglass'$"):
        load_ruleset(overrides=["santa.stuck=true"], campaign="santa")


def test_heading_home_makes_the_safe_zone_the_goal():
    """D_SANTA_HOME (options [action, goal met, full]); once answered 1, the goal search heads for the Safe Zone
    and reaching it ends the game (won)."""
    g = play("santa_line", script=[1, 1, 1], sheet={"hearts": 5},
             queues={"place": [2], "move": [3, 4], "santa_home": [1], "extra_move": [5]},
             overrides={**SANTA, "santa.hourglass": 9, "santa.star_steps": 1, "santa.goal": goal(green=5)})
    assert g.rows(L.TR_SANTA_HOME)[0] == (8, 3, 0, 0, 0)  # 8 spaces left, 3 steps to the Safe Zone
    assert len(g.decisions("santa_home")) == 1 and g[L.S_SANTA_HOME] == 1 and end(g) == L.SE_SAFE


@pytest.mark.parametrize("params", [GREEDY, CAUTIOUS])
def test_builtin_policy_santa_decisions(params):
    p = np.array([params[k] for k in HEURISTIC_PARAMS], np.float64)
    st = np.zeros(L.STATE_SIZE, np.int64)
    opts = np.zeros((4, L.N_OCOL), np.int64)
    opts[1, 0] = 1
    st[H] = 3
    assert heuristic_decide(L.D_SANTA_CANE, st, opts, 2, p) == 1  # cane_hearts 99: always give one
    st[L.S_SANTA_SAFE_DIST] = 6
    st[L.S_SANTA_LEFT] = 6 + params["home_margin"] + 1
    assert heuristic_decide(L.D_SANTA_HOME, st, opts, 2, p) == 0
    st[L.S_SANTA_LEFT] -= 1
    assert heuristic_decide(L.D_SANTA_HOME, st, opts, 2, p) == 1  # no more slack: turn for the Safe Zone
    st[L.S_SANTA_LEFT] += 10
    opts[:2, 1] = 1  # the collection goal is met
    assert heuristic_decide(L.D_SANTA_HOME, st, opts, 2, p) == params["goal_home"]
    st[L.S_SANTA_SAFE_DIST] = -1
    assert heuristic_decide(L.D_SANTA_HOME, st, opts, 2, p) == 0  # unreachable: keep collecting


def test_replay_of_a_santa_game_reads_as_the_campaign():
    from foury_sim.policy import make_policy

    r = load_ruleset(campaign="santa")
    lines = foury.replay(r, "free", make_policy("greedy", foury.POLICIES), 1, 0)
    text = "\n".join(lines)
    assert "Santa Crash'n Foury: start at" in text and "[trace code" not in text
    assert lines[1].startswith(("Result: WON", "Result: LOST"))


def test_santas_collected_means_carry_their_t_intervals_at_the_runs_level():
    """``santa collected`` printed each collectible's mean per game bare (as Delve's and Tactics' own means were
    before session 63): each now has the t interval of its column at the run's level (``mean_intervals``), beside
    it, streamed or not."""
    from foury_sim import outputs as O
    from foury_sim import stats
    from foury_sim.cli import format_summary
    from foury_sim.runner import run

    res = run("foury", options={"campaign": "santa"}, games=300, seed=2, conf=0.9, progress=False)
    s, df = res.summary, res.df
    iv = s[O.MEAN_INTERVALS]["santa_collected"]
    assert list(iv) == list(s["santa_collected"]) == [c[len("santa_"):] for c in foury.SANTA_MEANS]
    line = next(x for x in format_summary(s, "t", foury.OUTPUTS).splitlines() if x.startswith("santa collected"))
    for key, value in s["santa_collected"].items():
        mean, lo, hi = stats.mean_ci(df[f"santa_{key}"], 0.9)
        assert value == pytest.approx(mean) and iv[key] == pytest.approx([lo, hi])
        assert f"{key}: {value:.3g} [{lo:.3g}, {hi:.3g}]" in line
    streamed = run("foury", options={"campaign": "santa"}, games=300, seed=2, conf=0.9, progress=False,
                   keep_rows=False, chunk=71).summary
    assert streamed[O.MEAN_INTERVALS]["santa_collected"] == iv
