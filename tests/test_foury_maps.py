"""Dungeon Foury map format: parser, validator, writer, shipped base map and renderer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from foury_sim.errors import InputError
from foury_sim.games.foury.icons import (
    CAMPAIGN_FIRST,
    CHEST,
    CIRCLE,
    CORNUCOPIA,
    ICON_CHARS,
    LEVER,
    N_ICONS,
    ORACLE,
    SECTOR_A,
    SECTOR_B,
    SECTOR_C,
    SECTOR_D,
    SHIPPED,
    STAIRS,
    TUNNEL,
    VOID,
    E,
    N,
    S,
    W,
)
from foury_sim.games.foury.maps import (
    UNREACHABLE,
    MapData,
    builtin_maps,
    format_map,
    load_map,
    parse_map,
    render_map,
    resolve_map,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
STATUE, GOBLIN, ORC = SHIPPED.foe("statue"), SHIPPED.foe("goblin"), SHIPPED.foe("orc")
MONSTERS = [SHIPPED.foe(k) for k in ("goblin", "orc", "imp", "bandit", "troll", "minotaur")]

# line numbers:  1 comment, 2-3 header, 4 blank, 5..11 grid
TINY = """\
# a tiny test map
name: Tiny
author: tests

+vvv+---+---+
|Ac. A..|B..<
+   +   +   +
|ATT|O**|Bgr|
+---+   +   +
|#..|A.. B..|
+---+^^^+---+
"""


def tiny_lines() -> list[str]:
    return TINY.split("\n")


def edit(line_no: int, new: str | None) -> str:
    """TINY with 1-based line ``line_no`` replaced (or removed when ``new`` is None)."""
    lines = tiny_lines()
    if new is None:
        del lines[line_no - 1]
    else:
        lines[line_no - 1] = new
    return "\n".join(lines)


def where_of(text: str) -> tuple[str, str]:
    with pytest.raises(InputError) as ei:
        parse_map(text, "t.map")
    return ei.value.where, ei.value.message


ARRAYS = ("sector", "wall", "icons", "arrow_cell", "arrow_dir", "arrow_sector", "dist")


def assert_same_map(a: MapData, b: MapData) -> None:
    assert (a.name, a.rows, a.cols, a.oracle, a.meta) == (b.name, b.rows, b.cols, b.oracle, b.meta)
    for k in ARRAYS:
        x, y = getattr(a, k), getattr(b, k)
        assert x.dtype == y.dtype, k
        np.testing.assert_array_equal(x, y, err_msg=k)


# ---------------------------------------------------------------------------------------------
# the tiny hand-written map


def test_tiny_map_arrays():
    m = parse_map(TINY, "tiny.map")
    assert (m.name, m.path, m.rows, m.cols, m.oracle) == ("Tiny", "tiny.map", 3, 3, 4)
    assert m.meta == {"author": "tests"}
    np.testing.assert_array_equal(m.sector, [0, 0, 1, 0, ORACLE, 1, VOID, 0, 1])
    assert m.sector.dtype == np.int8 and m.wall.dtype == np.int8 and m.icons.dtype == np.int8
    expected_wall = [
        [1, 0, 0, 1],  # (0,0) open east and south
        [1, 1, 0, 0],  # (0,1) wall to B, open south into the Oracle
        [1, 1, 0, 1],  # (0,2) arrow side is still a wall
        [0, 1, 1, 1],  # (1,0) rock below
        [0, 1, 0, 1],  # Oracle
        [0, 1, 0, 1],
        [1, 1, 1, 1],  # rock
        [0, 0, 1, 1],
        [0, 1, 1, 0],
    ]
    np.testing.assert_array_equal(m.wall, expected_wall)
    assert m.icons.shape == (9, N_ICONS)
    assert m.icons.sum() == 5
    assert m.icons[0, CHEST] == 1
    assert m.icons[3, STATUE] == 2
    assert m.icons[5, GOBLIN] == 1 and m.icons[5, ORC] == 1
    assert m.icons[4].sum() == 0  # '*' is decoration
    np.testing.assert_array_equal(m.arrow_cell, [0, 2, 7])
    np.testing.assert_array_equal(m.arrow_dir, [S, W, N])
    np.testing.assert_array_equal(m.arrow_sector, [SECTOR_A, SECTOR_B, SECTOR_A])
    assert m.arrow_cell.dtype == np.int64 and m.arrow_dir.dtype == np.int64


def test_tiny_map_distances():
    m = parse_map(TINY)
    assert m.dist.dtype == np.int16 and m.dist.shape == (9, 9)
    assert m.dist[0, 1] == 1
    assert m.dist[0, 3] == 1
    # the printed wall between (0,1) and (0,2) forces a detour through the Oracle and row 2
    assert m.dist[1, 2] == 5
    assert m.dist[2, 1] == 5
    assert m.dist[3, 7] == 4  # (1,0) -> (0,0) -> (0,1) -> Oracle -> (2,1)
    assert m.dist[4, 4] == 0
    assert m.dist[6, 6] == UNREACHABLE  # rock
    assert (m.dist[6] == UNREACHABLE).all() and (m.dist[:, 6] == UNREACHABLE).all()
    np.testing.assert_array_equal(m.dist, m.dist.T)


def test_neighbor():
    m = parse_map(TINY)
    assert m.neighbor(4, N) == 1 and m.neighbor(4, E) == 5 and m.neighbor(4, S) == 7 and m.neighbor(4, W) == 3
    assert m.neighbor(0, N) == -1 and m.neighbor(0, W) == -1
    assert m.neighbor(8, S) == -1 and m.neighbor(8, E) == -1
    assert m.neighbor(3, S) == 6  # rock is still a grid cell


def test_tiny_round_trip():
    m = parse_map(TINY)
    text = format_map(m)
    assert "|ATT|O**|Bgr|" in text and "+---+^^^+---+" in text
    assert_same_map(m, parse_map(text))


def test_trailing_whitespace_and_crlf_accepted():
    text = "\r\n".join(ln + "   " if ln.startswith(("+", "|")) else ln for ln in tiny_lines())
    assert_same_map(parse_map(TINY), parse_map(text))


def test_short_line_is_padded_then_checked():
    # a room line whose trailing spaces were stripped by an editor is padded; here padding reveals
    # a missing corner: the border line stops after two rooms
    where, msg = where_of(edit(7, "+   +   +"))
    assert where == "t.map:7:13"
    assert "missing '+'" in msg


def test_comment_inside_header_and_oracle_decoration():
    text = TINY.replace("author: tests\n", "# a comment in the header\nauthor: tests\n").replace("O**", "O*.")
    m = parse_map(text)
    assert m.oracle == 4 and m.icons[4].sum() == 0


# ---------------------------------------------------------------------------------------------
# errors: exact file:line:column


@pytest.mark.parametrize(
    ("line", "new", "where", "words"),
    [
        (6, "|Xc. A..|B..<", "t.map:6:2", "unknown sector character 'X'"),
        (6, "|Aq. A..|B..<", "t.map:6:3", "unknown icon character 'q'"),
        (6, "|A*. A..|B..<", "t.map:6:3", "only allowed in the Oracle"),
        (10, "|#c.|A.. B..|", "t.map:10:3", "solid rock"),
        (7, "+ x +   +   +", "t.map:7:3", "bad border character 'x'"),
        (7, "+-v-+   +   +", "t.map:7:2", "bad border slot"),
        (8, "|ATT/O**|Bgr|", "t.map:8:5", "bad separator character '/'"),
        (8, "|ATT|O**|Bgr|--", "t.map:8:14", "too long"),
        (9, "+---+   -   +", "t.map:9:9", "missing '+'"),
        (6, " Ac. A..|B..<", "t.map:6:1", "open side on the outer border"),
        (5, "+   +---+---+", "t.map:5:2", "open side on the outer border"),
        (11, "+---+^^^+   +", "t.map:11:10", "open side on the outer border"),
        (9, "+   +   +   +", "t.map:9:2", "solid rock"),
        (10, "|#.. A.. B..|", "t.map:10:5", "solid rock"),
        (7, "+vvv+   +   +", "t.map:7:2", "arrow 'vvv' in the wrong place"),
        (5, "+^^^+---+---+", "t.map:5:2", "arrow '^^^' in the wrong place"),
        (8, "|ATT>O**|Bgr|", "t.map:8:5", "arrow '>' in the wrong place"),
        (8, "<ATT|O**|Bgr|", "t.map:8:1", "arrow '<' in the wrong place"),
        (11, "+^^^+^^^+---+", "t.map:11:2", "arrow '^^^' leads into solid rock"),
        (8, "+---+   +   +", "t.map:8:1", "expected a room line but found a border line"),
        (5, None, "t.map:5:1", "top border line"),
        (9, "|ATT|O**|Bgr|", "t.map:9:1", "expected a border line"),
        (2, "title: Tiny", "t.map:1:1", "missing 'name"),
        (3, "name: again", "t.map:3:1", "given twice"),
        (3, "just some words", "t.map:3:1", "'key: value'"),
    ],
)
def test_errors_have_exact_position(line, new, where, words):
    got_where, msg = where_of(edit(line, new))
    assert got_where == where, msg
    assert words in msg


def test_a_missing_line_inside_the_grid_and_a_short_room_are_named_where_they_are():
    """A border line deleted inside the grid was reported at the grid's end ("ends with a room line", 16 lines
    later on the shipped map); a room missing a character was "unknown icon character '|'"."""
    where, msg = where_of(edit(7, None))  # the border line between the first two room lines
    assert where == "t.map:7:1" and "expected a border line" in msg and "a border line missing before it?" in msg
    where, msg = where_of(edit(6, "|Ac. A.|B..<"))
    assert where == "t.map:6:8"
    assert msg == ("room 2 of this line is short: a room is 3 characters (its sector and two icons) between walls, "
                   "and '|' stands where an icon goes")


def test_error_grid_ends_with_room_line():
    where, msg = where_of(edit(11, None))
    assert where == "t.map:11:1"
    assert "ends with a room line" in msg


def test_error_blank_line_inside_grid():
    where, msg = where_of(edit(7, ""))
    # the grid is cut at the blank line, so it ends with the room line 6
    assert where == "t.map:7:1"
    assert "ends with a room line" in msg


def test_error_text_after_grid():
    where, msg = where_of(TINY + "\n+---+\n")
    assert where == "t.map:13:1"
    assert "after the grid" in msg


def test_error_empty_file():
    where, msg = where_of("")
    assert where == "t.map:1:1" and "empty map file" in msg
    where, msg = where_of("# only a comment\n\n   \n")
    assert where == "t.map:1:1" and "empty" in msg


def test_error_header_without_grid():
    where, msg = where_of("name: nothing\n")
    assert where == "t.map:2:1"
    assert "no grid" in msg


def test_error_no_oracle():
    where, msg = where_of(TINY.replace("O**", "A.."))
    assert where == "t.map:5:1"
    assert "no Oracle room" in msg


def test_error_two_oracles():
    where, msg = where_of(edit(6, "|Ac. O**|B..<"))
    assert where == "t.map:8:6"
    assert "more than one Oracle" in msg


def test_error_arrow_into_oracle():
    text = "name: x\n\n+---+---+\n>A.. O**<\n+---+---+\n"
    where, msg = where_of(text)
    assert where == "t.map:4:9"
    assert "into the Oracle" in msg


def test_error_oracle_not_reachable():
    text = edit(7, "+   +---+   +")
    text = text.replace("+---+   +   +\n|#..", "+---+---+   +\n|#..")
    where, msg = where_of(text)
    assert where == "t.map:8:6"
    assert "Oracle's room cannot be reached" in msg


def test_error_sector_without_arrow():
    where, msg = where_of(edit(6, "|Ac. A..|B..|"))
    assert where == "t.map:6:10"
    assert "sector B (The Palace Rooms) has no entry/exit arrow" in msg


def test_error_unreachable_room():
    where, msg = where_of(edit(7, "+---+   +   +"))
    assert where == "t.map:8:2"
    assert "row 2, column 1 cannot be reached" in msg


def test_error_width_is_set_by_top_border():
    where, msg = where_of(edit(5, "+vvv+---+---+---+"))
    # the top border sets the width; the next room line is then too short (padding leaves a blank room)
    assert where == "t.map:6:14"
    assert "too short" in msg and "17" in msg


# ---------------------------------------------------------------------------------------------
# files


def test_load_map_missing_file(tmp_path):
    with pytest.raises(InputError) as ei:
        load_map(tmp_path / "nope.map")
    assert ei.value.where == "--map"
    assert "not found" in ei.value.message


def test_load_map_reports_file_path(tmp_path):
    p = tmp_path / "bad.map"
    p.write_text(edit(6, "|Xc. A..|B..<"))
    with pytest.raises(InputError) as ei:
        load_map(p)
    assert ei.value.where == f"{p}:6:2"


@pytest.mark.parametrize("new, char, campaign", [("Bx.", "x", "santa.on"), ("Bk.", "k", "santa.on"),
                                                  ("B1.", "1", "slaughter.on")])
def test_a_campaign_icon_the_rules_do_not_play_is_refused_at_its_room(tmp_path, new, char, campaign):
    """A Santa icon (star ``x``, reindeer ``k``, ...) or the Slaughter's start triangle (``1``) on a map played
    without that campaign is refused at its room's line and column: a typo of ``Bg.`` (a goblin) read as a star
    was a dead item nothing read. With the campaign on, the same letters are its icons."""
    from foury_sim.games.foury.ruleset import load_ruleset

    text = (Path(__file__).resolve().parents[1] / "experiments/maps/my_map.map").read_text().splitlines()
    row = next(i for i, line in enumerate(text) if "Bg." in line)
    text[row] = text[row].replace("Bg.", new, 1)
    board = tmp_path / "typo.map"
    board.write_text("\n".join(text) + "\n")
    with pytest.raises(InputError) as ei:
        load_ruleset(map_path=str(board))
    col = text[row].index(new) + 1
    assert ei.value.where == f"{board}:{row + 1}:{col}"
    assert ei.value.message.startswith(f"'{char}' (") and f"({campaign} = false): a typo?" in ei.value.message
    if campaign == "santa.on":  # (the Slaughter wants exactly one start triangle on its own map: not this one)
        with pytest.raises(InputError, match="XMas Safe Zone"):  # played: read as Santa's, which needs its Safe Zone
            load_ruleset(map_path=str(board), campaign="santa")


def test_resolve_map(tmp_path):
    assert "base" in builtin_maps()
    assert builtin_maps()["base"].is_file()
    assert resolve_map(None).name == resolve_map("base").name == "The Foury Kingdom"
    p = tmp_path / "tiny.map"
    p.write_text(TINY)
    m = resolve_map(str(p))
    assert m.name == "Tiny" and m.path == str(p)
    with pytest.raises(InputError) as ei:
        resolve_map("no-such-map")
    assert "no-such-map" in ei.value.message and "base" in ei.value.message
    assert ei.value.where == "--map"


# ---------------------------------------------------------------------------------------------
# the shipped base map


@pytest.fixture(scope="module")
def base() -> MapData:
    return resolve_map("base")


def _sector_icons(m: MapData, sec: int) -> np.ndarray:
    return m.icons[m.sector == sec].sum(axis=0)


def test_base_map_shape_and_arrows(base):
    assert (base.rows, base.cols) == (9, 9)
    assert base.oracle == 40 and base.sector[40] == ORACLE
    assert (base.sector == ORACLE).sum() == 1
    assert len(base.arrow_cell) == 8
    for sec in (SECTOR_A, SECTOR_B, SECTOR_C, SECTOR_D):
        assert (base.arrow_sector == sec).sum() == 2
        assert 15 <= (base.sector == sec).sum() <= 25
    np.testing.assert_array_equal(base.arrow_sector, base.sector[base.arrow_cell])
    assert len(set(base.arrow_cell.tolist())) == 8
    # every arrow stands on the matching outer border
    for cell, d in zip(base.arrow_cell, base.arrow_dir, strict=True):
        r, c = divmod(int(cell), 9)
        assert {S: r == 0, N: r == 8, E: c == 0, W: c == 8}[int(d)]


def test_base_map_connectivity(base):
    rooms = base.sector != VOID
    assert (base.dist[base.oracle][rooms] < UNREACHABLE).all()
    assert (base.wall[base.oracle] == 0).all()  # open into all four sectors
    assert {int(base.sector[base.neighbor(40, s)]) for s in range(4)} == {SECTOR_A, SECTOR_B, SECTOR_C, SECTOR_D}
    # a few internal walls, not a maze: every room is at most 4 steps beyond its grid distance
    r, c = np.divmod(np.arange(81), 9)
    manhattan = np.abs(r - 4) + np.abs(c - 4)
    assert (base.dist[40] - manhattan).max() <= 4
    interior_walls = base.wall[:, E].reshape(9, 9)[:, :8].sum() + base.wall[:, S].reshape(9, 9)[:8].sum()
    assert 20 <= interior_walls <= 60


def test_base_map_icons(base):
    total = base.icons.sum(axis=0)
    base_icons = [i for i in SHIPPED.used if i < CAMPAIGN_FIRST]  # the campaigns' items are on campaign maps only
    used = total[base_icons]  # every icon of the shipped ruleset; spare foe slots stay empty
    assert (used >= 1).all(), [ICON_CHARS[i] for i in np.flatnonzero(total == 0)]
    assert total[len(base_icons):].sum() == 0
    assert base.icons.sum(axis=1).max() <= 2
    rooms = (base.sector != VOID) & (base.sector != ORACLE)
    empty = (base.icons.sum(axis=1) == 0) & rooms
    assert 0.4 <= empty.sum() / rooms.sum() <= 0.6
    assert 2 <= total[CIRCLE] <= 3
    a, b, c, d = (_sector_icons(base, s) for s in (SECTOR_A, SECTOR_B, SECTOR_C, SECTOR_D))
    assert a[STATUE] >= 5
    assert b[list(MONSTERS)].sum() >= 6 and (b[list(MONSTERS)] > 0).sum() >= 5
    assert c[STAIRS] >= 3 and c[LEVER] >= 4
    assert d[CORNUCOPIA] >= 2 and d[TUNNEL] >= 4
    outside_b = base.icons[base.sector != SECTOR_B][:, list(MONSTERS)].sum()
    assert outside_b >= 2


def test_base_map_tunnels_form_a_chain(base):
    tunnels = np.flatnonzero(base.icons[:, TUNNEL] > 0)
    assert len(tunnels) >= 4 and (base.sector[tunnels] == SECTOR_D).all()
    sub = base.dist[np.ix_(tunnels, tunnels)] == 1
    degrees = sub.sum(axis=1)
    # a path: connected through open sides, two ends, no branching
    assert sorted(degrees.tolist())[:2] == [1, 1] and degrees.max() <= 2 and degrees.sum() == 2 * (len(tunnels) - 1)


def test_base_map_round_trip(base):
    text = format_map(base)
    again = parse_map(text, "again.map")
    assert_same_map(base, again)
    assert format_map(again) == text


# ---------------------------------------------------------------------------------------------
# rendering


def test_render_base_map_png(tmp_path, base):
    out = tmp_path / "base.png"
    fig = render_map(base, out)
    data = out.read_bytes()
    assert data[:8] == PNG_SIGNATURE and len(data) > 20_000
    w, h = fig.get_size_inches()
    assert 6 <= w <= 10 and 7 <= h <= 11


def test_render_heat_png(tmp_path, base):
    heat = base.dist[base.oracle].astype(float)
    heat[:5] = np.nan
    out = tmp_path / "heat.png"
    fig = render_map(base, out, heat=heat, heat_label="distance to the Oracle", title="Heat")
    data = out.read_bytes()
    assert data[:8] == PNG_SIGNATURE and len(data) > 20_000
    axes = fig.axes + [c for a in fig.axes for c in a.child_axes]
    labels = [a.get_ylabel() for a in axes]
    assert "distance to the Oracle" in labels
    with pytest.raises(ValueError):
        render_map(base, heat=np.zeros(3))


def test_render_into_existing_axes(tmp_path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 7))
    FigureCanvasAgg(fig)
    ax = fig.add_axes([0.05, 0.3, 0.9, 0.65])
    got = render_map(parse_map(TINY), ax=ax)
    assert got is fig
    out = tmp_path / "tiny.png"
    fig.savefig(out)
    assert out.read_bytes()[:8] == PNG_SIGNATURE


# ---------------------------------------------------------------------------------------------
# the upper level ('upper:' walkways after the grid)

# line numbers: 1 header, 2 blank, 3..7 grid, 8 blank, 9.. upper lines
UPPER = """\
name: Upper
+---+vvv+---+
|CS. CL. CSL|
+   +---+   +
|C.. O.. A..<
+---+---+---+

upper: 1,1 1,2 2
upper: 1,2 1,3 3
"""


def upper_where(extra: str) -> tuple[str, str]:
    """UPPER with one more line (line 10)."""
    return where_of(UPPER + extra + "\n")


def test_upper_lines_parsed_and_round_trip():
    from foury_sim.games.foury.maps import upper_distances

    m = parse_map(UPPER)
    assert m.upper == [(0, 1, 2), (1, 2, 3)]
    places, d = upper_distances(m)
    assert places == [0, 1, 2] and d.tolist() == [[0, 2, 5], [2, 0, 3], [5, 3, 0]]
    again = parse_map(format_map(m))
    assert again.upper == m.upper
    assert_same_map(m, again)


def test_upper_without_lines_is_one_network_at_no_cost():
    from foury_sim.games.foury.maps import upper_distances

    m = parse_map(UPPER.split("\n\nupper")[0] + "\n")
    assert m.upper is None
    places, d = upper_distances(m)
    assert places == [0, 1, 2] and not d.any()


def test_base_map_upper_level_needs_travel():
    """The base map's walkways (an assumption): two systems; no staircase reaches all four levers."""
    from foury_sim.games.foury.maps import upper_distances

    m = resolve_map("base")
    places, d = upper_distances(m)
    stairs = [i for i, p in enumerate(places) if m.icons[p, STAIRS]]
    levers = [i for i, p in enumerate(places) if m.icons[p, LEVER]]
    assert len(stairs) == 3 and len(levers) == 4
    for s in stairs:
        reach = [v for v in levers if d[s, v] < UNREACHABLE]
        assert 2 <= len(reach) < 4
        assert max(d[s, v] for v in reach) >= 2  # a second lever costs travel


@pytest.mark.parametrize(
    ("extra", "where", "words"),
    [
        ("upper: 1,1 1,2", "t.map:10:7", "found 2 item"),
        ("upper: 1,1 x 2", "t.map:10:12", "bad room 'x'"),
        ("upper: 1,1 3,1 2", "t.map:10:12", "off the map"),
        ("upper: 1,1 2,1 2", "t.map:10:12", "no staircase"),
        ("upper: 1,1 1,3 two", "t.map:10:16", "bad length"),
        ("upper: 1,1 1,1 1", "t.map:10:12", "two different rooms"),
        ("upper: 1,2 1,1 5", "t.map:10:8", "given twice"),
    ],
)
def test_upper_errors_have_exact_position(extra, where, words):
    got_where, msg = upper_where(extra)
    assert got_where == where, msg
    assert words in msg


def test_upper_lever_unreachable():
    # the lever in row 1, column 3 shares its room with a staircase: no walkway needed
    assert parse_map(UPPER.replace("upper: 1,2 1,3 3\n", "")).upper == [(0, 1, 2)]
    where, msg = where_of(UPPER.replace("CSL", "C.L").replace("upper: 1,2 1,3 3\n", ""))
    assert where == "t.map:3:10" and "cannot be reached over the upper level" in msg


def test_upper_line_inside_grid_and_unknown_text():
    m = parse_map(UPPER.replace("\n\nupper", "\nupper", 1))  # an 'upper:' line right after the grid ends it
    assert m.upper == [(0, 1, 2), (1, 2, 3)]
    where, msg = where_of(UPPER + "lower: 1,1 1,2 3\n")
    assert where == "t.map:10:1" and "upper:" in msg


def test_render_upper_level(tmp_path):
    out = tmp_path / "upper.png"
    fig = render_map(parse_map(UPPER), out)
    assert out.read_bytes()[:8] == PNG_SIGNATURE
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.texts if t.get_bbox_patch() is not None]  # the row/column numbers have none
    assert "2" in labels and "3" in labels  # the walkways' lengths
    assert len(ax.lines) == 2


def test_distances_from_match_the_all_pairs_table(base):
    """Checking and playing use one breadth-first search per source; the n x n table is built only when asked."""
    m = resolve_map("base")
    assert "dist" not in vars(m)  # not built by parsing
    for src in (m.oracle, 0, 40, int(m.arrow_cell[0])):
        np.testing.assert_array_equal(m.distances_from(src), m.dist[src])
    assert m.distances_from(m.oracle).dtype == np.int16


def test_map_positions_of_rooms_and_arrows():
    m = parse_map(TINY, "tiny.map")
    assert m.grid_line == 5 and m.room_at(4) == "tiny.map:8:6"
    assert [m.arrow_at(k) for k in range(len(m.arrow_cell))] == ["tiny.map:5:2", "tiny.map:6:13", "tiny.map:11:6"]


@pytest.mark.parametrize(("header", "label"), [("", "Oracle"), ("centre: Start\n", "Start"),
                                               ("centre: Santa Claus\n", "Santa Claus")])
def test_render_names_the_centre_room_from_the_map_header(header, label):
    text = TINY.replace("name: Tiny\n", "name: Tiny\n" + header, 1)
    assert text != TINY or not header
    m = parse_map(text)
    fig = render_map(m)
    drawn = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert drawn.count(label) == 1
    assert label == "Oracle" or "Oracle" not in drawn


def test_campaign_maps_name_their_centre():
    from pathlib import Path

    maps = Path(__file__).resolve().parents[1] / "foury_sim" / "games" / "foury" / "data" / "maps"
    centre = {}
    for f in sorted(maps.glob("*.map")):
        heads = [ln.split(":", 1)[1].strip() for ln in f.read_text().splitlines() if ln.startswith("centre:")]
        centre[f.stem] = heads[0] if heads else "Oracle"
    assert centre == {"base": "Oracle", "base_12arrows": "Oracle", "inout": "Oracle", "kraken": "Kraken",
                      "santa": "Santa Claus", "slaughter": "Start"}


@pytest.mark.parametrize("line, col", [("|ATT|O**|Bgr", 13), ("|ATT|O**|B", 11)])
def test_a_room_line_cut_short_is_named_too_short_at_its_end(line, col):
    """A room line missing its last characters was padded and refused as "open side on the outer border" at a column
    past its end: its last side is never blank (a wall or an arrow), so it is too short, said at its end."""
    where, msg = where_of(edit(8, line))
    assert where == f"t.map:8:{col}"
    assert msg == (f"room line is too short: {len(line)} characters, expected 13 (4*3+1 for 3 rooms per row, as set "
                   "by the top border)")
