"""Tactics level files (``games/tactics/level.py``): every element of the legend, every check's exact line and
column, the writer's round trip, the packed layout the kernel reads, and the shipped levels."""

from __future__ import annotations

import numpy as np
import pytest
from plain import plain

from foury_sim.errors import InputError
from foury_sim.games.tactics import level as L

EVERYTHING = """\
# every character of the legend
name: Everything
description: one of each

grid:
##########
#@.c.o$&.#
#.+_rRbB.#
#~=^*^gG.#
#SNHMCyY.#
#OTZFK..>#
##########

# a storm golem in the water
monster: storm_golem 4,2
"""


def cell(m, row, col):
    """The cell of (row, column) counted from 1."""
    return (row - 1) * m.cols + (col - 1)


def test_every_element_parsed():
    m = L.parse_level(EVERYTHING, "e.txt")
    assert (m.name, m.rows, m.cols, m.meta) == ("Everything", 7, 10, {"description": "one of each"})
    assert m.grid_line == 6
    tiles = {(2, 2): L.T_START, (1, 1): L.T_WALL, (2, 3): L.T_FLOOR, (4, 2): L.T_WATER, (4, 3): L.T_LAVA,
             (4, 4): L.T_TELEPORT, (4, 6): L.T_TELEPORT, (4, 5): L.T_SPAWN, (6, 9): L.T_EXIT}
    for (r, c), t in tiles.items():
        assert m.tile[cell(m, r, c)] == t, (r, c)
    things = {(2, 4): (L.X_CRATE, 0), (2, 6): (L.X_BARREL, 0), (2, 7): (L.X_CHEST, 0),
              (2, 8): (L.X_MAGIC_CHEST, 0), (3, 3): (L.X_SARCOPHAGUS, 0), (3, 4): (L.X_SHRINE, 0),
              (3, 5): (L.X_KEY, L.COLOR_RED), (3, 6): (L.X_DOOR, L.COLOR_RED),
              (3, 7): (L.X_KEY, L.COLOR_BLUE), (3, 8): (L.X_DOOR, L.COLOR_BLUE),
              (4, 7): (L.X_KEY, L.COLOR_GREEN), (4, 8): (L.X_DOOR, L.COLOR_GREEN),
              (5, 7): (L.X_KEY, L.COLOR_YELLOW), (5, 8): (L.X_DOOR, L.COLOR_YELLOW)}
    for (r, c), (x, color) in things.items():
        assert (m.thing[cell(m, r, c)], m.color[cell(m, r, c)]) == (x, color), (r, c)
    assert int((m.thing != L.X_NONE).sum()) == len(things)
    # monsters stand on floor under their letters, in file order, then the 'monster:' lines
    assert m.monsters == [("skeleton", cell(m, 5, 2)), ("necromancer", cell(m, 5, 3)), ("ghoul", cell(m, 5, 4)),
                          ("mummy", cell(m, 5, 5)), ("cacodemon", cell(m, 5, 6)), ("ogre", cell(m, 6, 2)),
                          ("stone_golem", cell(m, 6, 3)), ("storm_golem", cell(m, 6, 4)),
                          ("fire_golem", cell(m, 6, 5)), ("chicken", cell(m, 6, 6)), ("storm_golem", cell(m, 4, 2))]
    assert m.tile[cell(m, 5, 2)] == L.T_FLOOR
    assert m.monster_where[0] == "e.txt:10:2" and m.monster_where[-1] == "e.txt:15:22"
    assert (m.start, m.exit, m.teleporters, m.spawns) == (11, 58, [33, 35], [34])
    assert m.warnings == [] and m.assumptions == []


def test_legend_covers_every_code():
    chars = [ch for ch, _ in L.legend()]
    assert len(chars) == len(set(chars)) == 8 + 14 + 10
    assert dict(L.legend())["R"] == "red door" and dict(L.legend())["T"] == "stone golem"
    assert set(L.TERRAIN_CHARS.values()) == set(range(L.N_TILES))
    assert {x for x, _ in L.THING_CHARS.values()} == set(range(1, L.N_THINGS))


def test_opaque_is_walls_and_doors():
    m = L.parse_level(EVERYTHING, "e.txt")
    op = m.opaque()
    assert {int(c) for c in np.flatnonzero(op) if m.tile[c] != L.T_WALL} == {
        cell(m, 3, 6), cell(m, 3, 8), cell(m, 4, 8), cell(m, 5, 8)}


def test_crlf_comments_and_trailing_spaces():
    text = "name: T\r\n# c\r\ngrid:\r\n#### \r\n#@>#\r\n####\r\n\r\n# after\r\n"
    m = L.parse_level(text, "t.txt")
    assert (m.rows, m.cols, m.start, m.exit) == (3, 4, 5, 6)


def test_ruleset_monster_names():
    text = "name: T\ngrid:\n#####\n#@.>#\n#####\n\nmonster: imp 2,3\n"
    m = L.parse_level(text, "t.txt", monster_names={"imp", "skeleton"})
    assert m.monsters == [("imp", 7)]
    with pytest.raises(InputError) as e:
        L.parse_level(text, "t.txt")
    assert e.value.where == "t.txt:7:10" and "unknown monster 'imp'" in e.value.message
    with pytest.raises(InputError) as e:
        L.parse_level("name: T\ngrid:\n#####\n#@Z>#\n#####\n", "t.txt", monster_names={"skeleton"})
    assert e.value.where == "t.txt:4:3" and "'Z' is the storm golem" in e.value.message


def test_key_without_door_is_a_warning():
    m = L.parse_level("name: T\ngrid:\n######\n#@y.>#\n######\n", "t.txt")
    assert m.warnings == ["t.txt:4:3: a yellow key but no yellow door"]


SMALL = "name: Small\ngrid:\n#######\n#@.S.>#\n#######\n"


def small_with(row: str, extra: str = "", head: str = "name: Small\n") -> str:
    return f"{head}grid:\n#######\n{row}\n#######\n{extra}"


ERRORS = [
    # the grid's characters and shape
    (small_with("#@.Q.>#"), "4:4", "unknown level character 'Q'"),
    (small_with("#@.S.>##"), "4:8", "row 2 has 8 tiles but the first row has 7"),
    (small_with("#@.S>#"), "4:7", "row 2 has 6 tiles but the first row has 7"),
    (small_with("#@.\tS>#"), "4:4", "tab character in the grid"),
    ("name: W\ngrid:\n" + "#" * 41 + "\n", "3:41", "41 tiles wide: at most 40"),
    ("name: W\ngrid:\n" + "#\n" * 41, "43:1", "41 rows: at most 40"),
    ("name: E\ngrid:\n\n#@>#\n", "3:1", "the grid is empty"),
    # header
    ("grid:\n#@>#\n", "1:1", "missing 'name: ...'"),
    ("name: \ngrid:\n#@>#\n", "1:1", "missing 'name: ...'"),
    ("name: A\ncolour: red\ngrid:\n#@>#\n", "2:1", "unknown header key 'colour'"),
    ("name: A\n.@>.\n", "2:1", "expected a 'key: value' header line (e.g. 'name: My level') or the line 'grid:'"),
    ("name: A\n#@>#\n", "3:1", "no line 'grid:' found"),  # without 'grid:' a row of walls reads as a comment
    ("name: A\n\n", "2:1", "no line 'grid:' found"),
    ("# only a comment\n", "1:1", "empty level file"),
    (small_with("#@.S.>#", head="name: Small\nassume-monsters: 2 | reason = r\n"), "2",
     "map assumption 'monsters' says '2' but the map has 1"),
    # after the grid
    (small_with("#@.S.>#", "\nwhat\n"), "7:1", "unexpected text after the grid"),
    (small_with("#@...>#", "\nmonster: skeleton\n"), "7:10", "expected 'monster: NAME ROW,COL'"),
    (small_with("#@...>#", "\nmonster: skeleton 2;3\n"), "7:19", "expected ROW,COL counted from 1"),
    (small_with("#@...>#", "\nmonster: skeleton 2,\u00b2\n"), "7:19", "expected ROW,COL counted from 1"),
    (small_with("#@...>#", "\nmonster: skeleton 4,3\n"), "7:19", "row 4, column 3 is outside the 3 x 7 grid"),
    (small_with("#@...>#", "\nmonster: skeleton 1,3\n"), "7:19", "cannot stand on the wall at row 1, column 3"),
    (small_with("#@...>#", "\nmonster: skeleton 2,2\n"), "7:19", "cannot stand on the start"),
    (small_with("#@.c.>#", "\nmonster:  ghoul   2,4\n"), "7:19", "holds a crate: a tile holds one thing or one"),
    (small_with("#@.S.>#", "\nmonster: ghoul 2,4\n"), "7:16", "two monsters on row 2, column 4 (the first at "
     "<level>:4:4)"),
    # what the level holds
    (small_with("#..S.>#"), "3:1", "the level has no start tile '@'"),
    (small_with("#@.S.@#"), "4:6", "a second start tile '@' (the first is at row 2, column 2)"),
    (small_with("#@.S..#"), "3:1", "the level has no exit tile '>'"),
    (small_with("#@>S.>#"), "4:6", "a second exit tile '>'"),
    (small_with("#@^S.>#"), "4:3", "a lone teleporter"),
    (small_with("#@^^^>#"), "4:5", "a third teleporter '^' (the pair is at row 2, column 3 and row 2, column 4)"),
    (small_with("#@.R.>#"), "4:4", "a red door with no red key anywhere"),
    (small_with("#@.Rr>#"), "4:4", "this red door can never be opened: no red key can be reached"),
    (small_with("#@.$.>#"), "4:6", "the exit at row 2, column 6 cannot be reached from the start at row 2, column 2"),
    (small_with("#@.=.>#"), "4:6", "cannot be reached"),
    (small_with("#@.#.>#"), "4:6", "cannot be reached"),
    (small_with("#@._.>#"), "4:6", "cannot be reached"),
    (small_with("#@.+.>#"), "4:6", "cannot be reached"),
    (small_with("#@.&.>#"), "4:6", "cannot be reached"),
]


@pytest.mark.parametrize("text, where, words", ERRORS, ids=[w for _, _, w in ERRORS])
def test_errors_at_their_line_and_column(text, where, words):
    with pytest.raises(InputError) as e:
        L.parse_level(text)
    assert e.value.where == f"<level>:{where}"
    assert words in e.value.message


@pytest.mark.parametrize("row", ["#@.c.>#", "#@.o.>#", "#@.S.>#", "#@.~.>#", "#@.*.>#", "#@r.R>#", "#@.y.>#"])
def test_passable_on_the_way_to_the_exit(row):
    """Crates and barrels are smashed, monsters killed, water waded, spawn points walked, keys taken, doors
    opened with their key: none of them makes the exit unreachable."""
    L.parse_level(small_with(row))


def test_teleporter_pair_reaches_the_exit():
    text = "name: T\ngrid:\n#######\n#@^#^>#\n#######\n"
    m = L.parse_level(text)
    reach, held = L.reachable(m)
    assert reach[m.exit] and held == set()
    with pytest.raises(InputError, match="cannot be reached"):
        L.parse_level(text.replace("#@^#^>#", "#@^^#>#"))


def test_keys_open_doors_in_turn():
    """The blue key lies behind the red door; the exit behind the blue one: found as a fixed point."""
    text = "name: K\ngrid:\n#########\n#@rRbB.>#\n#########\n"
    m = L.parse_level(text)
    reach, held = L.reachable(m)
    assert held == {L.COLOR_RED, L.COLOR_BLUE} and reach[m.exit]


def test_load_level_by_name_path_and_errors(tmp_path):
    assert L.load_level(None).name == L.load_level("crypt").name == "The Crypt"
    p = tmp_path / "mine.txt"
    p.write_text(SMALL, encoding="utf-8")
    assert L.load_level(str(p)).path == str(p)
    with pytest.raises(InputError) as e:
        L.load_level("nowhere")
    assert e.value.where == "--level" and "unknown level 'nowhere': not a shipped level (" in e.value.message
    with pytest.raises(InputError) as e:
        L.load_level(3, where="game.level")
    assert e.value.where == "game.level"
    p.write_bytes(b"name: x\ngrid:\n#\xff#\n")
    with pytest.raises(InputError) as e:
        L.load_level(str(p))
    assert e.value.where == f"{p}:3:2" and "not UTF-8" in e.value.message


# ------------------------------------------------------------------------------------------ round trip


@pytest.mark.parametrize("name", sorted(L.builtin_levels()))
def test_round_trip_shipped(name):
    m = L.load_level(name)
    again = L.parse_level(L.format_level(m), "again.txt")
    for a in ("name", "rows", "cols", "monsters", "meta"):
        assert getattr(again, a) == getattr(m, a), a
    for a in ("tile", "thing", "color"):
        assert (getattr(again, a) == getattr(m, a)).all(), a
    assert [x.key for x in again.assumptions] == [x.key for x in m.assumptions]


def test_round_trip_everything_text():
    m = L.parse_level(EVERYTHING, "e.txt")
    text = L.format_level(m)
    assert "monster: storm_golem 4,2\n" in text and "#OTZFK..>#" in text
    assert L.format_level(L.parse_level(text, "x")) == text


# ------------------------------------------------------------------------------------------ packing


def test_pack_level_layout():
    m = L.parse_level(EVERYTHING, "e.txt")
    kinds = {k: i for i, k in enumerate(sorted(L.DEFAULT_MONSTERS))}
    lv = L.pack_level(m, kinds)
    n = m.n
    assert lv.dtype == np.int64
    assert lv[:L.LV_HDR].tolist() == [7, 10, m.start, m.exit, 33, 35, 1, 11]
    for f in (L.lv_tile, L.lv_thing, L.lv_color, L.lv_spawn, L.lv_mon, L.lv_n):
        assert f(lv) == plain(f)(lv)
    assert L.lv_n(lv) == n
    assert lv[L.lv_tile(lv):L.lv_tile(lv) + n].tolist() == m.tile.tolist()
    assert lv[L.lv_thing(lv):L.lv_thing(lv) + n].tolist() == m.thing.tolist()
    assert lv[L.lv_color(lv):L.lv_color(lv) + n].tolist() == m.color.tolist()
    assert lv[L.lv_spawn(lv):L.lv_mon(lv)].tolist() == m.spawns
    pairs = lv[L.lv_mon(lv):].reshape(-1, 2).tolist()
    assert pairs == [[kinds[k], c] for k, c in m.monsters] and len(lv) == L.lv_mon(lv) + 2 * 11


def test_pack_level_without_teleporters_and_unknown_kind():
    m = L.parse_level(SMALL, "s.txt")
    lv = L.pack_level(m, {"skeleton": 4})
    assert (lv[L.LV_TELE_A], lv[L.LV_TELE_B], lv[L.LV_N_SPAWN], lv[L.LV_N_MON]) == (-1, -1, 0, 1)
    assert lv[L.lv_mon(lv):].tolist() == [4, 10]
    with pytest.raises(InputError) as e:
        L.pack_level(m, {"ghoul": 0})
    assert e.value.where == "s.txt:4:4" and "'skeleton' is not in the ruleset's monster table" in e.value.message


# ------------------------------------------------------------------------------------------ shipped levels

FIVE = ("tutorial", "lava", "crypt", "forge", "ogre")


def test_shipped_levels_are_there_and_valid():
    shipped = L.builtin_levels()
    assert set(FIVE) <= set(shipped) and L.DEFAULT_LEVEL == "crypt"
    for name in shipped:
        m = L.load_level(name)
        assert m.warnings == [], name
        assert [a.key for a in m.assumptions] == ["level.layout"], name  # every layout is marked invented
        assert "invented" in m.meta, name


def test_the_five_levels_use_every_element():
    levels = {name: L.load_level(name) for name in FIVE}
    tiles = set().union(*(set(m.tile.tolist()) for m in levels.values()))
    things = set().union(*({(int(x), int(c)) for x, c in zip(m.thing, m.color, strict=True)}
                           for m in levels.values()))
    kinds = {k for m in levels.values() for k, _ in m.monsters}
    assert tiles == set(range(L.N_TILES))
    assert things >= {(x, c) for x, c in L.THING_CHARS.values()}
    assert kinds == L.DEFAULT_MONSTERS - {"chicken"}  # the chicken is made by the mage staff, never placed
    crypt, forge, lava = levels["crypt"], levels["forge"], levels["lava"]
    assert 12 <= crypt.rows <= 16 and 18 <= crypt.cols <= 22
    assert {"necromancer", "mummy", "skeleton", "ghoul"} <= {k for k, _ in crypt.monsters}
    assert int((crypt.thing == L.X_SARCOPHAGUS).sum()) >= 4
    golem_tiles = {k: int(forge.tile[c]) for k, c in forge.monsters}
    assert golem_tiles["storm_golem"] == L.T_WATER and golem_tiles["fire_golem"] == L.T_LAVA
    assert ("ogre", ) == tuple(k for k, _ in levels["ogre"].monsters if k == "ogre")
    # the lava level: a causeway whose tiles have lava on both sides (knock-back into lava)
    flanked = [c for c in range(lava.n) if lava.tile[c] == L.T_FLOOR and c >= lava.cols and c < lava.n - lava.cols
               and (lava.tile[c - lava.cols] == L.T_LAVA or lava.tile[c + lava.cols] == L.T_LAVA)]
    assert len(flanked) >= 20


def test_arenas_are_one_room_with_one_monster():
    arenas = {name: L.load_level(name) for name in L.builtin_levels() if name.startswith("arena_")}
    assert {name[len("arena_"):] for name in arenas} == L.DEFAULT_MONSTERS - {"chicken"}
    ref = arenas["arena_skeleton"]
    for name, m in arenas.items():
        assert m.monsters == [(name[len("arena_"):], ref.monsters[0][1])], name
        assert (m.tile == ref.tile).all() and (m.thing == ref.thing).all(), name
        assert m.exit == m.monsters[0][1] + 1 and m.spawns == [], name


# ------------------------------------------------------------------------------------------ the board hook


def drawn(fig, gid: str) -> list:
    return [p for ax in fig.axes for p in [*ax.patches, *ax.texts] if p.get_gid() == gid]


def test_board_draws_every_tile_thing_and_monster():
    from matplotlib.colors import to_hex

    from foury_sim.games.tactics import board as B

    m = L.parse_level(EVERYTHING, "e.txt")
    fig = B.draw(m)
    tiles = drawn(fig, "tile")
    assert len(tiles) == m.n
    assert [to_hex(p.get_facecolor()) for p in tiles] == [B.TILE_COLORS[int(t)] for t in m.tile]
    assert B.TILE_COLORS[L.T_START] == "#3cb043" and B.TILE_COLORS[L.T_EXIT] == "#ffffff"  # green start, white exit
    assert B.TILE_COLORS[L.T_SPAWN] == "#000000"
    things = drawn(fig, "thing")
    assert len(things) == int((m.thing != L.X_NONE).sum()) == 14
    doors = [to_hex(p.get_facecolor()) for p in things if isinstance(p, type(tiles[0]))]
    assert sorted(doors) == sorted(B.KEY_COLORS.values())  # the four doors, one per colour
    assert len(drawn(fig, "monster")) == len(m.monsters) == 11
    # start, exit and spawn point show their characters; the teleporters too, the storm golem's water does not
    assert sorted(t.get_text() for t in drawn(fig, "mark")) == ["*", ">", "@", "^", "^"]
    assert drawn(fig, "heat") == [] and fig.axes[0].get_title() == "Everything"


def test_board_heat_layer_and_png():
    import io

    from foury_sim.games.tactics import board as B

    m = L.load_level("tutorial")
    heat = np.full(m.n, np.nan)
    heat[B.BOARD.heat_cells(m)] = 1.0
    heat[m.start] = 5.0
    fig = B.draw(m, heat=heat, heat_label="deaths per 1000 games", title="Where heroes die")
    assert len(drawn(fig, "heat")) == int(B.BOARD.heat_cells(m).sum()) == m.n - int((m.tile == L.T_WALL).sum())
    every_axes = [a for ax in fig.axes for a in (ax, *ax.child_axes)]
    assert any(a.get_ylabel() == "deaths per 1000 games" for a in every_axes)  # the colour bar
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=60)
    assert buf.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="heat must have shape"):
        B.draw(m, heat=np.zeros(3))


def test_board_check_lines():
    from foury_sim.games.tactics import board as B

    assert B.check(L.load_level("tutorial")) == [
        "Tutorial corridor: 5 x 22 tiles, start at row 2, column 2, exit at row 4, column 21",
        "terrain: floor 51, wall 57, start 1, exit 1",
        "things: crate 1, barrel 1, chest 1, red key 1, red door 1",
        "monsters: skeleton 1",
        "assumed: level.layout = Tutorial corridor (invented: the rule text prints no levels)",
    ]
    m = L.parse_level("name: T\ngrid:\n######\n#@y.>#\n######\n", "t.txt")
    assert B.check(m)[-1] == "warning: t.txt:4:3: a yellow key but no yellow door"
    assert B.check(m)[2:4] == ["things: yellow key 1", "monsters: none"]


def test_board_cell_record():
    import pandas as pd

    from foury_sim.games.tactics import board as B

    m = L.load_level("tutorial")
    rules = type("Rules", (), {"level": m})()
    df = pd.DataFrame({"death_cell": [-1, 24, 24, 30, -1]})
    rec = B.cell_record(rules, df, {})
    assert rec["map"] == m.path and len(rec["deaths"]) == m.n and "visits" not in rec
    assert rec["deaths"][24] == 2 and rec["deaths"][30] == 1 and sum(rec["deaths"]) == 3
    rec = B.cell_record(rules, df, {"visits": np.arange(m.n)})
    assert rec["visits"] == list(range(m.n))
    assert B.cell_record(rules, pd.DataFrame({"won": [1]}), {}) is None
    assert B.resolve(rec["map"]).name == m.name  # a report finds the level again from the record


def test_board_load_goes_through_the_ruleset(monkeypatch):
    """``map check`` loads the level as ``run`` does: through the ruleset's ``load_ruleset(rules, sets, level)``."""
    import sys
    import types

    from foury_sim.games.tactics import board as B

    calls = []
    fake = types.ModuleType("foury_sim.games.tactics.ruleset")

    def load_ruleset(rules, sets, level):
        calls.append((rules, sets, level))
        return types.SimpleNamespace(level=L.load_level(level, {"skeleton"}, "--map"))

    fake.load_ruleset = load_ruleset
    monkeypatch.setitem(sys.modules, "foury_sim.games.tactics.ruleset", fake)
    assert B.load("tutorial", "r.toml", ["a=1"]).name == "Tutorial corridor"
    assert calls == [("r.toml", ["a=1"], "tutorial")]
    with pytest.raises(InputError, match="'H' is the ghoul"):
        B.load("lava")


def test_map_verbs_use_the_board(monkeypatch, tmp_path):
    """``foury-sim map render/check --game G`` with G's board: what the engine's GameSpec passes
    (``board=board.BOARD``) is all these verbs need."""
    import types

    from typer.testing import CliRunner

    from foury_sim import cli, registry
    from foury_sim.games.tactics import board as B

    spec = types.SimpleNamespace(name="probe", board=B.BOARD, options_of=lambda command: {})
    monkeypatch.setattr(registry, "get_game", lambda name: spec)
    out = tmp_path / "crypt.png"
    r = CliRunner().invoke(cli.app, ["map", "render", "crypt", "--game", "probe", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # map check loads through the ruleset (tested above); without one, the board's resolve
    spec.board = registry.Board(**{**B.BOARD.__dict__, "load": None})
    r = CliRunner().invoke(cli.app, ["map", "check", "forge", "--game", "probe"])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == ("The Golem Forge: 13 x 24 tiles, start at row 2, column 2, exit at row 12, "
                                        "column 23")
    assert B.BOARD.noun == "level" and set(B.BOARD.builtin()) == set(L.builtin_levels())


def test_assume_lines_are_checked_against_the_level():
    head = ("name: Small\nassume-sarcophagi: 0 | reason = none here\n"
            "assume-skeletons: 1 | range = 0..3 | reason = one guard\n")
    m = L.parse_level(small_with("#@.S.>#", head=head), "s.txt")
    assert [(a.key, a.value, a.range, a.where) for a in m.assumptions] == [
        ("level.sarcophagi", 0, None, "s.txt:2"), ("level.skeletons", 1, [0, 3], "s.txt:3")]
    with pytest.raises(InputError) as e:
        L.parse_level(small_with("#@.S.>#", head="name: Small\nassume-dragons: 1 | reason = r\n"), "s.txt")
    assert e.value.where == "s.txt:2" and "names 'dragons', which the map does not have" in e.value.message


def test_mutated_levels_fail_in_one_line_or_parse():
    """Random edits of a shipped level (a character replaced, a line dropped or doubled) either parse or raise
    InputError at a file:line or file:line:column: never another exception."""
    import random
    import re

    texts = [L.builtin_levels()[name].read_text(encoding="utf-8") for name in ("crypt", "forge")]
    alphabet = "".join(ch for ch, _ in L.legend()) + "Qx09 \t:,\u00e9\u00b2"
    rnd = random.Random(3)
    outcomes = {"parsed": 0, "refused": 0}
    for i in range(400):
        lines = texts[i % 2].split("\n")
        for _ in range(rnd.randint(1, 3)):
            k = rnd.randrange(len(lines))
            how = rnd.random()
            if how < 0.6 and lines[k]:
                j = rnd.randrange(len(lines[k]))
                lines[k] = lines[k][:j] + rnd.choice(alphabet) + lines[k][j + 1:]
            elif how < 0.8:
                del lines[k]
            else:
                lines.insert(k, lines[k])
        try:
            L.parse_level("\n".join(lines), "m.txt")
            outcomes["parsed"] += 1
        except InputError as e:
            assert re.fullmatch(r"m\.txt:\d+(:\d+)?", e.where or ""), (e.where, e.message)
            assert "\n" not in e.message
            outcomes["refused"] += 1
    assert outcomes["parsed"] > 20 and outcomes["refused"] > 100


def test_check_lava_refuses_monsters_that_would_burn():
    m = L.load_level("forge")
    L.check_lava(m, {"fire_golem", "cacodemon"})  # the fire golem stands on the smelter's lava
    with pytest.raises(InputError) as e:
        L.check_lava(m, {"cacodemon"})
    assert e.value.where == f"{m.path}:27:21" and "a fire golem cannot stand on lava" in e.value.message


def test_format_state_draws_the_game_as_it_stands():
    m = L.load_level("tutorial")
    thing, color = m.thing.copy(), m.color.copy()
    key = int(np.flatnonzero(thing == L.X_KEY)[0])
    thing[key] = color[key] = 0  # the red key was taken
    lines = L.format_state(m, thing, color, [("skeleton", key + 1), ("imp", key + 2)], player=key - 1)
    assert lines == [
        "  1234567890123456789012",
        "1 ######################",
        "2 #@...c....#.....$....#",
        "3 #........P.S?...######",
        "4 #...o.....#.....R...>#",
        "5 ######################",
    ]
    assert L.format_state(m)[2:4] == ["2 #@...c....#.....$....#", "3 #.........r.S...######"]
