"""Replays read well: the clover line follows the roll it changes, articles and plurals agree, rooms are
named as the rendered map labels them, and the header says what is replayed, how, and with what result."""

from __future__ import annotations

import hashlib
import shlex
from pathlib import Path

import numpy as np
import pytest
from foury_helpers import clover, play
from typer.testing import CliRunner

from foury_sim import __version__
from foury_sim.cli import app, replay_provenance
from foury_sim.games import delve as D
from foury_sim.games import foury as F
from foury_sim.games.delve import layout as DL
from foury_sim.games.delve import trace as DT
from foury_sim.games.foury import layout as FL
from foury_sim.games.foury import trace as FT
from foury_sim.games.foury.board import ROOM_CONVENTION, room_name
from foury_sim.games.foury.maps import _LABEL_OFF, render_map
from foury_sim.provenance import git_commit, made_with
from foury_sim.trace_format import a, count, plural

ROOT = Path(__file__).resolve().parent.parent

#: every enemy of the shipped Foury ruleset with its article (a new enemy must be added here)
FOURY_ENEMIES = {"statue": "a statue", "goblin": "a goblin", "orc": "an orc", "imp": "an imp", "bandit": "a bandit",
                 "troll": "a troll", "minotaur": "a minotaur"}
#: Delve's monsters, companions and treasures with their article
DELVE_NAMES = {"goblin": "a goblin", "skeleton": "a skeleton", "ooze": "an ooze", "chest": "a chest",
               "potion": "a potion", "dragon": "a dragon", "fighter": "a fighter", "cleric": "a cleric",
               "mage": "a mage", "thief": "a thief", "champion": "a champion", "scroll": "a scroll",
               "vorpal sword": "a vorpal sword", "talisman": "a talisman", "scepter of power": "a scepter of power",
               "thieves tools": "some thieves tools", "ring of invisibility": "a ring of invisibility",
               "dragon scales": "some dragon scales", "elixir": "an elixir", "dragon bait": "a dragon bait",
               "town portal": "a town portal"}


@pytest.fixture(scope="module")
def rules():
    return F.load_ruleset()


# --- the helpers --------------------------------------------------------------------------------
def test_article_helper():
    assert [a(w) for w in ("orc", "imp", "elixir", "goblin", "unicorn", "hour", "Oracle")] == [
        "an orc", "an imp", "an elixir", "a goblin", "a unicorn", "an hour", "an Oracle"]
    assert a("the dragon") == "the dragon" and a("2 orcs") == "2 orcs" and a("dragon scales") == "some dragon scales"


def test_count_and_plural_helpers():
    assert [count(1, "hearts"), count(2, "heart"), count(0, "shield"), count(3, "ooze"), count(2, "fighter die"),
            count(2, "thief"), count(1, "explored room")] == [
        "1 heart", "2 hearts", "0 shields", "3 oozes", "2 fighter dice", "2 thieves", "1 explored room"]
    assert plural("box") == "boxes" and plural("hearts") == "hearts"


def test_every_foury_enemy_gets_its_article(rules):
    names = [f.name for f in rules.foes]
    assert set(names) == set(FOURY_ENEMIES)
    for name in names:
        foe = list(rules.icons.names).index(name)
        tr = np.array([[FL.TR_SPAWN, 0, foe, 3, 0, 0],
                       [FL.TR_REROLL, FL.RR_SPAWN, 3, 4, 1, foe]], np.int64)
        assert FT.format_trace(tr, rules.map.cols, rules.icons.names) == [
            f"    spawn roll 3: {FOURY_ENEMIES[name]} appears",
            f"    clover on the spawn roll: 3 rerolled to 4 -> {FOURY_ENEMIES[name]} instead"]
        # the summary's cause of death (and the replay's DEAD line) says it the same way
        assert FT.cause_name(FL.CAUSE_FOE + foe, rules.icons.names) == f"killed by {FOURY_ENEMIES[name]}"


def test_every_delve_name_gets_its_article():
    rs = D.load_ruleset()
    names = list(DL.DUNGEON_NAMES) + list(DL.FACE_NAMES) + [t.replace("_", " ") for t in rs.treasure_names]
    assert set(names) == set(DELVE_NAMES)
    for name in names:
        assert a(name) == DELVE_NAMES[name]
    for k, t in enumerate(rs.treasure_names):
        tr = np.zeros((3, DL.TRACE_COLS), np.int64)
        tr[0, 0] = 1
        tr[1, :6] = [DL.E_DRAW, 1, 2, k, 5, 0]
        assert DT.format_trace(tr, rs, "none") == [
            f"      treasure from the chest: {DELVE_NAMES[t.replace('_', ' ')]} (5 left in the pool)"]
    tr = np.zeros((3, DL.TRACE_COLS), np.int64)
    tr[0, 0] = 1
    tr[1, :9] = [DL.E_DECISION, 1, 3, 1, 0, 3, DL.A_PICK, DL.N_FACES + DL.DUNGEON_NAMES.index("ooze"), 1]
    assert DT.format_trace(tr, rs, "none") == ["   decide a reroll (option 1 of 3): reroll an ooze"]


# --- the clover line follows the roll it changes ------------------------------------------------
def _combat_lines(g) -> list[str]:
    lines = FT.format_trace(g.tr, g.rules.map.cols, g.rules.icons.names, g.rules.map.sector)
    return [ln for ln in lines if ln.startswith("      ")]


def test_clover_line_comes_after_the_roll_it_rerolls():
    """Scripted dice (the arena: face 1 spawns an orc; strength d6+2): you 4 against 3+2 loses, a clover
    rerolls your die to 6, and the roll-off as kept follows the clover line."""
    g = play("arena", script=[1, 1, 4, 3, 6], sheet={"hearts": 5, "clover": 2}, queues={"clover": [clover(1, 0)]},
             overrides={"enemies.spawn_table": ["orc"] * 6, "round.monster_bonus": [2] * 4, "max_turns": 1})
    assert _combat_lines(g)[:4] == [
        "      roll-off: you 4 against 3 + strength 2 = 5",
        "      clover rerolls your die: 4 -> 6",
        "      after the clover: you 6 against 3 + strength 2 = 5",
        "      the orc is defeated",
    ]


def test_melyra_clover_sets_the_enemy_die_after_the_roll():
    g = play("arena", script=[1, 1, 2, 6], hero="melyra", queues={"weapon": [0], "clover": [clover(2, 1, 1)]},
             overrides={"enemies.spawn_table": ["orc"] * 6, "round.monster_bonus": [0] * 4, "max_turns": 1})
    lines = _combat_lines(g)
    assert lines[:4] == [
        "      roll-off: you 2 against 6 + strength 0 = 6",
        "      clover sets the enemy's die: 6 -> 1",
        "      after the clover: you 2 against 1 + strength 0 = 1",
        "      the orc is defeated",
    ]


def test_no_clover_no_second_rolloff_line():
    g = play("arena", script=[1, 1, 6, 3], sheet={"hearts": 5},
             overrides={"enemies.spawn_table": ["orc"] * 6, "round.monster_bonus": [2] * 4, "max_turns": 1})
    assert _combat_lines(g)[:2] == ["      roll-off: you 6 against 3 + strength 2 = 5", "      the orc is defeated"]


# --- rooms: named as the rendered map labels them --------------------------------------------------
def test_room_names_are_sector_and_row_column_from_one(rules):
    m = rules.map
    assert room_name(0, m.cols, m.sector) == "A (1,1)"
    assert room_name(1 * m.cols + 7, m.cols, m.sector) == "B (2,8)"  # row 2, column 8 on the rendered map
    assert room_name(4 * m.cols + 4, m.cols, m.sector) == "O (5,5)"  # the Oracle in the centre
    assert room_name(m.n - 1, m.cols) == f"({m.rows},{m.cols})"
    assert ROOM_CONVENTION.startswith("B (2,8) is the room of sector B at row 2, column 8, counted from 1")
    tr = np.array([[FL.TR_MOVE, 0, 1, 1, 0, 0], [FL.TR_EXIT, 1 * m.cols + 8, 1, 0, 0, 0]], np.int64)
    assert FT.format_trace(tr, m.cols, rules.icons.names, m.sector) == [
        "  move A (1,1) -> A (1,2), heading east", "  EXIT at B (2,9) (sector B's arrow): round complete"]


def test_rendered_map_numbers_rows_and_columns_from_one(rules):
    m = rules.map
    fig = render_map(m)
    ax = fig.axes[0]
    texts = {(t.get_text(), round(t.get_position()[0], 2), round(t.get_position()[1], 2)) for t in ax.texts}
    for r in range(m.rows):  # left and right of the map, on the row's centre
        assert (str(r + 1), round(-_LABEL_OFF, 2), r + 0.5) in texts
        assert (str(r + 1), round(m.cols + _LABEL_OFF, 2), r + 0.5) in texts
    for c in range(m.cols):  # above and below
        assert (str(c + 1), c + 0.5, round(-_LABEL_OFF, 2)) in texts
        assert (str(c + 1), c + 0.5, round(m.rows + _LABEL_OFF, 2)) in texts
    legend = [t.get_text() for a_ in fig.axes for child in a_.child_axes for t in child.texts]
    assert any("texts name a room B (2,8): sector B, row 2, column 8" in t for t in legend)


def test_deadliest_rooms_use_the_map_names(rules):
    import pandas as pd

    df = pd.DataFrame({"death_round": [1, 1, 1, 0], "death_sector": [1, 1, 0, -1],
                       "death_cell": [16, 16, 0, -1], "death_cause": [1, 1, 1, 0], "rounds_completed": [0, 0, 0, 4],
                       "coins_used": [0, 0, 0, 0], "end_cause": [1, 1, 1, 0], "win": [0, 0, 0, 1]})
    assert F.summarize(df, rules)["deadliest_rooms"] == {"B (2,8)": 2, "A (1,1)": 1}


# --- the header --------------------------------------------------------------------------------
def test_replay_header_says_what_how_and_the_result(rules):
    args = ["replay", "foury", "--seed", "7", "--game", "3", "--hero", "kael", "--policy", "cautious",
            "--set", "monster_bonus=0,1,3,4"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("Replay of Dungeon Foury, game 3 of seed 7: hero Kael, the Guardian of Virtues, "
                               "policy cautious(")
    assert lines[0].endswith("map The Foury Kingdom (base.map)")
    assert lines[1] == "Overrides: --set monster_bonus=0,1,3,4"
    assert lines[2] == ("Command: foury-sim replay foury --seed 7 --game 3 --hero kael --policy cautious "
                        "--set monster_bonus=0,1,3,4")
    end = [ln for ln in lines if ln.startswith(("LOST.", "WON:"))]
    assert len(end) == 1
    won = end[0].startswith("WON")
    rounds, turns, score = (int(x.rstrip(".").split()[-1]) for x in end[0].split(", ")[-3:])
    assert lines[3].startswith(f"Made with: foury-sim {__version__}")
    assert lines[4] == (f"Result: {'WON' if won else 'LOST'}, {rounds} of 4 rounds completed, {turns} turns, "
                        f"final score {score}.")
    assert lines[5] == f"Rooms: {ROOM_CONVENTION}, as labelled on `foury-sim map render`."


def test_replay_provenance_lines_without_overrides():
    made = f"Made with: {made_with({'version': __version__, 'git_commit': git_commit()})}"
    assert replay_provenance("delve", 5, 2, None, None, None, None, None, None) == [
        "Overrides: none (the shipped rules and map)",
        "Command: foury-sim replay delve --seed 5 --game 2", made]
    assert replay_provenance("foury", 1, 0, "melyra", "greedy", "foe_avoid=2", "my map.map", None, ["a.b=1"]) == [
        "Overrides: --map 'my map.map' --set a.b=1",  # (quoted as in the command: it was not)
        "Command: foury-sim replay foury --seed 1 --game 0 --hero melyra --policy greedy --param foe_avoid=2 "
        "--map 'my map.map' --set a.b=1", made]
    assert replay_provenance("foury", 1, 0, None, None, None, None, None, None, {"campaign": "my camp.toml"})[0] \
        == "Overrides: --campaign 'my camp.toml'"  # (a campaign's rules and map: it said none)


def test_replay_header_names_the_version_and_the_files_read_by_their_digests(tmp_path):
    """A replay says how it was made as a run's summary does: the version and commit, and the sha256 of each file it
    read (a rules file, a policy file); it named the files by path only and no version, so a replay kept beside a
    report could not tell which rules file or which engine made it."""
    rules = tmp_path / "my rules.toml"
    rules.write_text("[round]\nmonster_bonus = [0, 1, 1, 2]\n")
    policy = tmp_path / "my pol.py"
    policy.write_text((ROOT / "experiments/policies/brave.py").read_text())
    lines = replay_provenance("foury", 1, 0, None, f"{policy}:brave", None, None, rules, None)
    sha = {p: hashlib.sha256(p.read_bytes()).hexdigest()[:12] for p in (rules, policy)}
    assert lines[0] == f"Overrides: --rules {shlex.quote(str(rules))} (sha256 {sha[rules]})"
    assert lines[2] == (f"Made with: {made_with({'version': __version__, 'git_commit': git_commit()})}; "
                        f"policy file {shlex.quote(str(policy))} (sha256 {sha[policy]})")


def test_kraken_area_chosen_where_you_stand_reads_as_an_area_not_an_entrance(rules):
    """The round row after a Kraken area change (``TR_KR_AREA`` with a next area) starts that area where you
    stand: "Area N ... starting where you stand"; the first round, and a round after the last area (no next
    area), read as before."""
    cols = rules.map.cols
    tr = np.array([[FL.TR_ROUND, 1, 0, 4, 0, 1],
                   [FL.TR_KR_AREA, 0, 1, 1, -1, 0],
                   [FL.TR_ROUND, 2, 1, cols + 1, 1, 2],
                   [FL.TR_KR_AREA, 1, 4, -1, 3, 0],
                   [FL.TR_ROUND, 3, 2, 5, 2, 3]], np.int64)
    lines = [ln for ln in FT.format_trace(tr, cols, rules.icons.names, rules.map.sector) if ln.startswith("==")]
    assert [ln.split(":")[0] for ln in lines] == ["== Round 1", "== Area 2", "== Round 3"]
    assert "entering at" in lines[0] and "entering at" in lines[2]
    assert "starting where you stand, " in lines[1] and "entering at" not in lines[1]
