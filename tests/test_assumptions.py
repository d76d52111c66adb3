"""Assumptions in the data: declared, validated at the boundary, reported wherever numbers are shown."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from foury_sim import assumptions as assume
from foury_sim.cli import format_summary
from foury_sim.errors import InputError
from foury_sim.games.delve.ruleset import load_ruleset as load_delve
from foury_sim.games.foury.ruleset import DEFAULT_RULES, load_ruleset
from foury_sim.study import load_experiment

DATA = tomllib.loads(DEFAULT_RULES.read_text())
MAPS_DIR = DEFAULT_RULES.parent / "maps"
HEROES = ("kael", "melyra", "thalindra", "elydion")
TRAITS = ("hearts", "shield", "clover", "weapon", "shovel")


def by_key(rules) -> dict[str, assume.Assumption]:
    return {a.key: a for a in rules.assumptions}


def test_foury_declares_the_guessed_inputs():
    found = by_key(load_ruleset())
    for key in ("game.map", "enemies.spawn_table", "events.C", "die_table.faces", "character.cap",
                *(f"heroes.{h}.{part}" for h in HEROES for part in ("start", "cap")),
                "map.layout", "map.arrows"):
        assert key in found, key
        assert found[key].reason and not found[key].overridden
    assert found["game.map"].alternatives == ["base_12arrows"]
    map_lines = MAPS_DIR.joinpath("base.map").read_text().splitlines()
    arrows_line = next(i for i, t in enumerate(map_lines, 1) if t.startswith("assume-arrows:"))
    assert found["map.arrows"].value == 8 and found["map.arrows"].where.endswith(f"base.map:{arrows_line}")
    assert found["map.upper_walkways"].value == 4 and found["kills.prize_every"].value == 3
    assert found["game.max_turns"].range == [200, 1000] and not found["game.max_turns"].vary
    # printed values are not assumptions
    assert "round.monster_bonus" not in found and "events.A" not in found and "character.trait_marks" not in found



@pytest.mark.parametrize("hero", HEROES)
def test_hero_sheets_follow_the_written_derivation(hero):
    """12 marks as the free character; caps within the free sheet's boxes and start + 2 below them."""
    h, boxes = DATA["heroes"][hero], DATA["character"]["cap"]
    assert sum(h["start"][t] for t in TRAITS) == DATA["character"]["trait_marks"] == 12
    for t in TRAITS:
        assert h["cap"][t] == min(boxes[t], h["start"][t] + 2), t
    base = {"hearts": 5, "shield": 1, "clover": 1, "weapon": 2, "shovel": 1}
    extra = {t: h["start"][t] - base[t] for t in TRAITS}
    assert sum(extra.values()) == 2 and min(extra.values()) == 0
    # every alternative sheet fits under every alternative cap (a robustness study may combine them)
    a = by_key(load_ruleset())
    for start in a[f"heroes.{hero}.start"].levels():
        for cap in a[f"heroes.{hero}.cap"].levels():
            assert all(start[t] <= cap[t] for t in TRAITS)


def test_set_and_rules_file_mark_an_assumption_overridden(tmp_path):
    found = by_key(load_ruleset(None, ["heroes.kael.start.shovel=2", "spawn_table=goblin,goblin,goblin,orc,orc,imp"]))
    assert found["heroes.kael.start"].overridden
    assert found["heroes.kael.start"].value["shovel"] == 2 and found["heroes.kael.start"].default["shovel"] == 1
    assert found["enemies.spawn_table"].overridden and found["enemies.spawn_table"].where.startswith("--set")
    assert not found["game.map"].overridden and not found["heroes.melyra.start"].overridden
    f = tmp_path / "mine.toml"
    f.write_text('[game]\nmap = "base_12arrows"\n')
    found = by_key(load_ruleset(f))
    assert found["game.map"].overridden and found["game.map"].value == "base_12arrows"
    assert found["map.arrows"].value == 12


def test_assumption_naming_a_missing_key_is_an_error_with_file_and_line(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('[game]\nrounds = 4\n\n[assumptions]\n"enemies.dragon" = { reason = "there is no dragon" }\n')
    with pytest.raises(InputError) as e:
        load_ruleset(f)
    assert e.value.where == f"{f}:5" and "enemies.dragon" in e.value.message


@pytest.mark.parametrize("entry, message", [
    ('{ range = [500, 900], reason = "x" }', "outside its range"),
    ('{ range = [1, 2], alternatives = [3], reason = "x" }', "not both"),
    ('{ alternatives = [400], reason = "x" }', "is the value itself"),
    ('{ range = [1, 900] }', "needs a reason"),
    ('{ reason = "x", maybe = 1 }', "unknown field"),
    # when = "KEY OP VALUE": the mode an assumption belongs to
    ('{ reason = "x", when = "two_player.players" }', "must read 'KEY OP VALUE'"),
    ('{ reason = "x", when = "two_player.seats >= 2" }', "not a key of this ruleset"),
    ('{ reason = "x", when = "two_player.players >= two" }', "not a TOML value"),
    ('{ reason = "x", when = "two_player.players >= \\"2\\"" }', "cannot be compared"),
    ('{ reason = "x", when = 2 }', "must read 'KEY OP VALUE'"),
])
def test_malformed_assumption_entries(tmp_path, entry, message):
    f = tmp_path / "mine.toml"
    f.write_text(f'[assumptions]\n"game.max_turns" = {entry}\n')
    with pytest.raises(InputError) as e:
        load_ruleset(f)
    assert message in e.value.message and e.value.where == f"{f}:2"


def test_user_file_can_declare_its_own_assumption(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('[potions]\nred = 2\n\n[assumptions]\n"potions.red" = { range = [1, 3], reason = "house rule" }\n')
    a = by_key(load_ruleset(f))["potions.red"]
    assert a.value == 2 and a.default == 1 and a.overridden and a.range == [1, 3]


def test_map_header_assumptions_are_checked_against_the_map():
    measured = {"arrows": 8, "layout": "Tiny"}
    ok = assume.from_map("name: Tiny\nassume-arrows: 8 | range = 8..12 | reason = guessed\n+---+", "t.map", measured)
    assert ok[0].key == "map.arrows" and ok[0].range == [8, 12] and ok[0].where == "t.map:2"
    with pytest.raises(InputError, match="says '9' but the map has 8") as e:
        assume.from_map("name: Tiny\nassume-arrows: 9 | reason = guessed\n", "t.map", measured)
    assert e.value.where == "t.map:2"
    with pytest.raises(InputError, match="which the map does not have"):
        assume.from_map("name: Tiny\n\nassume-dragons: 1 | reason = guessed\n", "t.map", measured)
    with pytest.raises(InputError, match="needs a reason"):
        assume.from_map("assume-arrows: 8\n", "t.map", measured)


def test_a_map_assumptions_range_is_checked_as_a_rulesets(tmp_path):
    # (an empty range 12..8, or one the map's own value lies outside, was kept; [assumptions] refuses both)
    measured = {"arrows": 8, "layout": "Tiny"}
    with pytest.raises(InputError) as e:
        assume.from_map("name: Tiny\nassume-arrows: 8 | range = 12..8 | reason = guessed\n", "t.map", measured)
    assert (e.value.where, e.value.message) == ("t.map:2", "map assumption 'arrows': range must be LOW..HIGH with "
                                                           "LOW <= HIGH, not '12..8'")
    with pytest.raises(InputError) as e:
        assume.from_map("name: Tiny\nassume-arrows: 8 | range = 1..3 | reason = guessed\n", "t.map", measured)
    assert (e.value.where, e.value.message) == ("t.map:2", "map assumption 'arrows': the map's 8 is outside its range "
                                                           "'1..3'")


def test_delve_declares_values_the_facts_do_not_give(tmp_path):
    found = by_key(load_delve())
    assert {"score.win_rank", "dragon.hero_companion_counts", "rulings.scroll_phases"} <= set(found)
    assert "dragon.threshold" not in found and "treasures.town_portal.count" not in found  # given by the facts
    found = by_key(load_delve(None, ["win_rank=Champion"]))
    assert found["score.win_rank"].overridden and found["score.win_rank"].default == "Village Hero"
    # a user file (merged over the shipped one) declares an assumption of its own
    f = tmp_path / "d.toml"
    text = Path(load_delve().source).read_text().replace('"treasures.elixir.phases"', '"xp.empty_pool"')
    f.write_text(text.replace("alternatives = [[\"monster\", \"loot\", \"dragon\"]], reason = \"the Elixir",
                              "range = [0, 3], reason = \"the Elixir"))
    assert "xp.empty_pool" in by_key(load_delve(f))


def test_summary_names_the_assumptions_and_the_overridden_ones():
    recs = assume.records(load_ruleset(None, ["heroes.kael.start.shovel=2"]))
    s = {"games": 10, "hero": "kael", "policy": "greedy", "seed": 1, "win": {"rate": 0.5, "lo": 0.2, "hi": 0.8},
         "elapsed_s": 0.1, "games_per_s": 100, "assumptions": recs}
    text = format_summary(s, "Dungeon Foury")
    assert f"rests on {len(recs)} assumptions" in text and "1 overridden" in text
    line = next(x for x in text.splitlines() if "heroes.kael.start =" in x)
    assert "shovel=2" in line and "OVERRIDDEN (default" in line and "shovel=1" in line
    assert "  game.map = base" in text


def test_a_sweep_and_a_comparison_rest_on_the_sheets_of_the_heroes_their_cells_play(tmp_path):
    """As a run names only its hero's sheet (``records(ruleset, hero)``), a sweep's manifest and a comparison name the
    sheets of the heroes their cells play, each in its cells: they named every hero's sheet ("rests on 23
    assumptions" for a comparison of Kael and Melyra, Thalindra's and Elydion's among them)."""
    from foury_sim.study import compare

    f = tmp_path / "e.toml"
    f.write_text('name = "e"\ngames = 10\n[sweep]\nhero = ["kael", "melyra"]\n')
    exp = load_experiment(f)
    recs = {r["key"]: r for r in assume.across_cells([r[0] for r in exp.rulesets], [r[1] for r in exp.rulesets])}
    assert {k for k in recs if k.startswith("heroes.")} == {"heroes.kael.start", "heroes.kael.cap",
                                                            "heroes.melyra.start", "heroes.melyra.cap"}
    assert recs["heroes.kael.start"]["in_cells"] == [0] and recs["heroes.melyra.cap"]["in_cells"] == [1]
    c = compare("foury", {"hero": "kael"}, {"hero": "melyra"}, games=20, seed=1, progress=False, threads=1)
    assert [r["key"] for r in c.assumptions] == list(recs)


def test_sweep_manifest_records_cells_that_change_an_assumption(tmp_path):
    f = tmp_path / "e.toml"
    f.write_text('name = "e"\ngames = 10\n[sweep]\n"game.map" = ["base", "base_12arrows"]\n')
    exp = load_experiment(f)
    recs = {r["key"]: r for r in assume.across_cells([r[0] for r in exp.rulesets])}
    assert recs["game.map"]["overridden"] and recs["game.map"]["overridden_in_cells"] == [1]
    assert recs["game.map"]["value"] == "varies by cell" and recs["game.map"]["default"] == "base"
    assert not recs["events.C"]["overridden"]
    items = assume.markdown_items(list(recs.values()))
    assert any("`game.map = varies by cell` **(overridden in cells 1" in x for x in items)


def test_report_has_an_assumptions_section(tmp_path):
    from test_report import HERO_POLICY, HERO_RATES, make_study

    from foury_sim.report import build_report

    path = make_study(tmp_path, "s", HERO_POLICY, HERO_RATES)
    m = json.loads((path / "manifest.json").read_text())
    kind = "die_table.faces=nothing,chest,potion,clover,cornucopia,shovel"
    m["assumptions"] = assume.records(load_ruleset(None, [kind]))
    (path / "manifest.json").write_text(json.dumps(m))
    build_report(path)
    md = (path / "report.md").read_text()
    assert "## Assumptions" in md and "`events.C = room_behind_collapses" in md
    assert "`die_table.faces = nothing,chest,potion,clover,cornucopia,shovel` **(overridden" in md
    assert "Assumptions</h2>" in (path / "report.html").read_text()


def test_run_summary_carries_the_assumptions_of_its_hero():
    from foury_sim.runner import run

    res = run("foury", hero="kael", games=50, seed=3, sets=["events.C=monster,monster,chest,chest,nothing,nothing"],
              progress=False)
    recs = {r["key"]: r for r in res.summary["assumptions"]}
    assert "heroes.kael.start" in recs and "heroes.melyra.start" not in recs and "game.map" in recs
    assert recs["events.C"]["overridden"] and recs["events.C"]["value"][0] == "monster"
    assert not recs["game.map"]["overridden"] and "default" not in recs["game.map"]


def test_compare_names_the_assumptions_and_which_variant_overrides_one():
    from foury_sim.study import compare, format_comparison

    c = compare("foury", {}, {"kills.prize_every": 2}, fixed={"hero": "free"}, games=40, seed=3, progress=False)
    recs = {r["key"]: r for r in c.to_dict()["assumptions"]}
    assert recs["kills.prize_every"]["overridden"] is True
    assert recs["kills.prize_every"]["overridden_in_cells"] == [1]  # B only
    assert recs["game.map"]["overridden"] is False
    text = format_comparison(c)
    assert "kills.prize_every" in text and "OVERRIDDEN" in text


# --- issue 11: the valid range (what the engine accepts) contains the plausible one --------------------------------
@pytest.mark.parametrize("game", ["foury", "delve", "tactics", "rooms"])
def test_every_plausible_value_is_a_valid_value(game):
    """Every assumption's plausible range lies inside its key's valid range (``RANGES``), and every
    alternative loads: a robustness study never picks a value the engine refuses."""
    import importlib

    from foury_sim.rulesfile import range_of

    mod = importlib.import_module(f"foury_sim.games.{game}.ruleset")
    found = [a for a in mod.load_ruleset().assumptions if not a.key.startswith("map.")]
    assert len(found) >= 9
    for a in found:
        if a.range is not None:
            lo, hi = range_of(mod.RANGES, a.key)
            assert lo <= a.range[0] <= a.range[1] <= hi, a.key
        for alt in a.alternatives:
            rs = mod.load_ruleset(None, {a.key: alt})
            assert next(x for x in rs.assumptions if x.key == a.key).value == alt


def test_a_plausible_range_outside_the_valid_range_is_refused(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('[assumptions]\n"game.max_turns" = { range = [200, 1000000], reason = "r" }\n')
    with pytest.raises(InputError, match=r"range \[200, 1000000\] reaches outside the valid range 1..100000") as e:
        load_ruleset(f)
    assert e.value.where == f"{f}:2"


def test_an_assumption_of_a_mode_that_is_off_is_not_in_play():
    """``when``: the 2-player duel's loot is an assumption of the 2-player mode only; a solo run rests on it not."""
    assert "two_player.duel_loot" not in by_key(load_ruleset())
    a = by_key(load_ruleset(None, ["two_player.players=2"]))["two_player.duel_loot"]
    assert a.when == "two_player.players >= 2" and a.value == 1 and a.range == [0, 3] and not a.overridden


def test_the_rooms_race_assumptions_are_in_play_only_in_a_race():
    """Rooms' race tie-break (``race.*``) plays no part in the solo game: a solo study rests on it not, and a robust
    study of the solo game does not vary it (it did: four factors no solo game reads, fitted SRCs on noise)."""
    from foury_sim.games.rooms import ruleset as RR

    solo = {a.key for a in RR.load_ruleset(None).assumptions}
    race = {a.key for a in RR.load_ruleset(None, ["race.players=2"]).assumptions}
    keys = {"race.finish_round", "race.score_hp", "race.score_gold", "race.score_rooms"}
    assert not solo & keys and keys <= race


def test_a_user_when_keeps_a_house_rule_assumption_to_its_mode(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('[assumptions]\n"potions.red" = { range = [1, 3], when = "two_player.players == 2", reason = "h" }\n')
    assert "potions.red" not in by_key(load_ruleset(f))
    assert by_key(load_ruleset(f, ["two_player.players=2"]))["potions.red"].range == [1, 3]


def test_an_assumption_in_its_own_table_is_placed_at_that_table(tmp_path):
    """``[assumptions."key"]`` (a table per entry, as Rooms writes them): that header's line, not [assumptions]'s."""
    f = tmp_path / "mine.toml"
    f.write_text('[assumptions]\n"game.max_turns" = { range = [200, 1000], reason = "x" }\n\n'
                 '[assumptions."potions.red"]\nrange = [1, 3]\nreason = "house rule"\n')
    found = by_key(load_ruleset(f))
    assert found["potions.red"].where == f"{f}:4" and found["game.max_turns"].where == f"{f}:2"


def test_where_an_assumption_stands_is_read_from_an_index_that_agrees_with_a_scan():
    """``_entry_where`` reads an index built once per text; the scan it replaced is the reference: the same
    ``file:line`` for every assumption of every shipped ruleset, for an entry given as its own table, for a key
    with a quote in it and for a key that is not there (the ``[assumptions]`` header)."""
    import tomllib
    from pathlib import Path

    from foury_sim import assumptions as A
    from foury_sim.rulesfile import RuleFile

    root = Path(__file__).resolve().parent.parent
    odd = ('x = 1\n[assumptions]\n"x" = { reason = "r" }\n"y" = 2  # "z" = 3\n[other]\n"w" = 1\n'
           '[assumptions."w"]\nreason = "t"\n[ assumptions . "q" ]\n')
    files = [(p.read_text(), str(p)) for p in sorted((root / "foury_sim" / "games").glob("*/data/*.toml"))]
    checked = 0
    for text, path in [*files, (odd, "odd.toml")]:
        rf = RuleFile(tomllib.loads(text), text, path)
        for key in [*(rf.data.get("assumptions") or {}), "w", "q", "z", 'a"b', "nope"]:
            assert A._entry_where(rf, key) == A._entry_where_by_scan(rf, key), (path, key)
            checked += 1
    assert checked > 60
    rf = RuleFile(tomllib.loads(odd), odd, "odd.toml")
    assert [A._entry_where(rf, k) for k in ("x", "y", "w", "q", "z")] == [
        "odd.toml:3", "odd.toml:4", "odd.toml:7", "odd.toml:9", "odd.toml:2"]


def test_a_sweep_rests_on_every_cells_assumptions_each_where_it_holds(tmp_path):
    """A sweep over the campaigns: the union of the cells' assumptions (each campaign's and its map's own ones in its
    cell only, the map's layout per cell), not cell 0's list claimed for every cell."""
    f = tmp_path / "e.toml"
    f.write_text('name = "e"\ngames = 10\n[sweep]\ncampaign = ["base", "slaughter", "santa", "kraken"]\n')
    exp = load_experiment(f)
    recs = {r["key"]: r for r in assume.across_cells([r[0] for r in exp.rulesets])}
    for key, cells in (("slaughter.fury_boxes", [1]), ("santa.hourglass", [2]), ("kraken.hourglass", [3]),
                       ("map.arrows", [0]), ("map.goblins", [1]), ("map.reindeers", [2]), ("map.tunnels", [3])):
        assert recs[key]["in_cells"] == cells, key
    assert "in_cells" not in recs["game.max_turns"] and "in_cells" not in recs["map.layout"]
    layouts = [(g["value"], g["cells"]) for g in recs["map.layout"]["values"]]
    assert layouts == [("The Foury Kingdom", [0]), ("The Slaughter of Monsters", [1]), ("Santa Crash'n Foury", [2]),
                       ("Discovering the Kraken", [3])]
    assert recs["map.layout"]["value"] == "varies by cell" and not recs["map.layout"]["overridden"]
    keys = list(recs)  # each cell's own ones after the earlier cells', in the cells' order
    assert keys.index("slaughter.fury_boxes") < keys.index("santa.hourglass") < keys.index("kraken.hourglass")
    items = assume.markdown_items(list(recs.values()))
    assert "`santa.hourglass = 40` (in cell 2 only)" in items
    assert any(x.startswith("`map.layout = varies by cell` (`The Foury Kingdom` in cell 0; ") for x in items)


def test_compare_lists_the_assumptions_of_both_variants():
    from foury_sim.study import compare, format_comparison

    c = compare("foury", {"campaign": "base"}, {"campaign": "santa"}, games=20, seed=4, progress=False)
    recs = {r["key"]: r for r in c.to_dict()["assumptions"]}
    assert recs["santa.hourglass"]["in_cells"] == [1] and recs["map.arrows"]["in_cells"] == [0]
    text = format_comparison(c)
    assert f"rests on {len(recs)} assumptions" in text
    assert "  santa.hourglass = 40 (in B only)" in text.splitlines()
    assert "  map.arrows = 8 (in A only)" in text.splitlines()
    assert "  map.layout = varies by cell (The Foury Kingdom in A; Santa Crash'n Foury in B)" in text.splitlines()
    line = next(x for x in text.splitlines() if x.startswith("  enemies.spawn_table = "))
    assert "OVERRIDDEN (default goblin,goblin,orc,orc,imp,bandit)" in line and "in A; " in line and "in B)" in line


def test_a_2_player_run_rests_on_the_opponents_sheet_too():
    """The opponent's hero sheet moves a 2-player run: it is listed (and marked when overridden), where only the run's
    own hero's sheet was ('0 overridden here' with the opponent's start changed); a solo run still rests on one."""
    from foury_sim.runner import run

    sets = ["two_player.opponent=melyra", "heroes.melyra.start.hearts=7"]
    res = run("foury", hero="kael", games=40, seed=2, sets=["two_player.players=2", *sets], progress=False)
    recs = {r["key"]: r for r in res.summary["assumptions"]}
    assert {"heroes.kael.start", "heroes.melyra.start", "heroes.melyra.cap"} <= set(recs)
    assert "heroes.thalindra.start" not in recs and "heroes.elydion.cap" not in recs
    assert recs["heroes.melyra.start"]["overridden"] and recs["heroes.melyra.start"]["value"]["hearts"] == 7
    assert recs["heroes.melyra.start"]["default"]["hearts"] == 5 and not recs["heroes.kael.start"]["overridden"]
    text = format_summary(res.summary, "Dungeon Foury")
    assert "1 overridden here" in text
    assert next(x for x in text.splitlines() if x.startswith("  heroes.melyra.start = ")).count("OVERRIDDEN") == 1
    solo = run("foury", hero="kael", games=40, seed=2, sets=sets, progress=False)
    keys = {r["key"] for r in solo.summary["assumptions"]}
    assert "heroes.kael.start" in keys and not any(k.startswith("heroes.melyra.") for k in keys)
    same = run("foury", hero="kael", games=40, seed=2, sets=["two_player.players=2"], progress=False)
    assert {r["key"] for r in same.summary["assumptions"] if r["key"].startswith("heroes.")} == {
        "heroes.kael.start", "heroes.kael.cap"}
