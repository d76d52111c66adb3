"""The shared ruleset loader: ``--rules`` is merged over the shipped defaults the same way for every game."""

from __future__ import annotations

import re

import pytest

from foury_sim import rulesfile
from foury_sim.errors import InputError
from foury_sim.registry import get_game
from foury_sim.rulesfile import load_ruleset_file, whole_numbers

DEFAULTS = '[game]\nlevels = 10   # a comment\ndelves = 3\n\n[heroes.a]\nname = "A"\n'


@pytest.fixture
def files(tmp_path):
    d = tmp_path / "defaults.toml"
    d.write_text(DEFAULTS)
    u = tmp_path / "mine.toml"
    return d, u


def test_a_user_file_is_merged_over_the_defaults_and_where_names_the_file_that_set_a_key(files):
    d, u = files
    u.write_text('# mine\n[game]\nlevels = 4\n[heroes.b]\nname = "B"\n')
    rf = load_ruleset_file(d, u, ["delves=2"], open_tables=("heroes",))
    assert rf.data == {"game": {"levels": 4, "delves": 2}, "heroes": {"a": {"name": "A"}, "b": {"name": "B"}}}
    assert rf.where("game.levels") == f"{u}:3:1"
    assert rf.where("heroes.a.name") == f"{d}:6:1"
    assert rf.where("game.delves") == "--set game.delves=2"
    assert rf.shipped.path == str(d) and [f.path for f in rf.users] == [str(u)] and rf.path == str(u)


def test_without_a_user_file_the_defaults_are_read(files):
    d, _ = files
    rf = load_ruleset_file(d)
    assert rf.data["game"]["levels"] == 10 and rf.where("game.delves") == f"{d}:3:1" and rf.users == []


@pytest.mark.parametrize(
    "text, where, key",
    [
        ("[game]\nlevls = 4\n", 2, "game.levls"),
        ("[rounds]\nn = 4\n", 1, "rounds"),
        ('[heroes.b]\nname = "B"\n', 1, "heroes"),  # heroes is not an open table here
    ],
)
def test_a_key_the_defaults_do_not_have_is_an_error_at_its_line(files, text, where, key):
    d, u = files
    u.write_text(text)
    with pytest.raises(InputError, match=f"unknown ruleset key '{key}") as e:
        load_ruleset_file(d, u, open_tables=("assumptions",) if key == "heroes" else ("heroes",))
    assert e.value.where == f"{u}:{where}:1"


@pytest.mark.parametrize(
    "game, text, bad",
    [
        ("foury", "[potions]\nred = 2\n", "[potions]\nblue = 2\n"),
        ("delve", "[dragon]\nthreshold = 4\n", "[dragon]\nthreshold = 4\nfury = 2\n"),
        ("tactics", "[player]\nhp = 12\n", "[player]\nhp = 12\nmana = 2\n"),
    ],
)
def test_every_game_merges_a_partial_rules_file_and_refuses_unknown_keys(tmp_path, game, text, bad):
    spec = get_game(game)
    f = tmp_path / "mine.toml"
    f.write_text(text)
    rs = spec.load_ruleset(f, None, None)
    base = spec.load_ruleset(None, None, None)
    section, rest = text.split("]\n", 1)
    key, value = (x.strip() for x in rest.split("=", 1))
    dotted = f"{section.strip('[')}.{key}"
    assert rs.data[section.strip("[")][key] == int(value) != base.data[section.strip("[")][key]
    changed = [a.key for a in rs.assumptions if a.overridden]
    assert set(changed) <= {dotted}  # nothing else moved
    assert len(rs.assumptions) == len(base.assumptions)
    f.write_text(bad)
    with pytest.raises(InputError, match="unknown ruleset key") as e:
        spec.load_ruleset(f, None, None)
    assert e.value.where == f"{f}:{len(bad.splitlines())}:1"


# --- issue 11: one line for every bad file, every bad --set; every number has a documented valid range --------
@pytest.mark.parametrize(
    "raw, where, what",
    [
        (b"[game]\nlevels = 4\nname = \"caf\xe9\"\n", "3:12", "not UTF-8 text: byte 0xe9"),
        (b"[game]\nlevels = \xff\n", "2:10", "not UTF-8 text: byte 0xff"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "3:1", "binary file"),
        (b"", None, "empty"),
        (b"# only a comment\n\n", None, "empty"),
        (b"[game]\nlevels = 99999999999999999999\n", "2:1", "game.levels = a 20-digit number is above 30"),
        (b"[game]\nlevels = " + b"9" * 5000 + b"\n", None, "malformed TOML"),
    ],
)
def test_a_bad_rules_file_is_one_line_naming_the_file(tmp_path, raw, where, what):
    f = tmp_path / "mine.toml"
    f.write_bytes(raw)
    with pytest.raises(InputError, match=what) as e:
        get_game("delve").load_ruleset(f, None, None)
    assert e.value.where == (f"{f}:{where}" if where else str(f)) and "\n" not in str(e.value)


@pytest.mark.parametrize("raw, where, what", [
    # tomllib says "at end of document" without a line: the end of the last line is named
    (b"[game]\nlevels = ", "2:10", "Invalid value (at the end of the file)"),
    (b"[game]\nlevels = 4\n[heroes", "3:8", "Expected ']' at the end of a table declaration (at the end of the file)"),
    (b"[game]\nname = \"\"\"abc\n", "2:14", "Unterminated string (at the end of the file)"),
    (b"x = ", "1:5", "Invalid value (at the end of the file)"),
    (b"[game]\nlevels = \n", "2:10", "Invalid value"),  # (a line tomllib names itself, unchanged)
])
def test_a_toml_error_at_the_end_of_the_file_names_its_last_line(tmp_path, raw, where, what):
    f = tmp_path / "mine.toml"
    f.write_bytes(raw)
    with pytest.raises(InputError) as e:
        get_game("delve").load_ruleset(f, None, None)
    assert (e.value.where, e.value.message) == (f"{f}:{where}", f"malformed TOML: {what}")


@pytest.mark.parametrize("raw, where", [
    # an array left open: tomllib names the start of the next line that holds anything (line 3 or 5), the ']' (or
    # ',') is missing at the end of line 2
    (b"[score]\nrank_thresholds = [1, 2\nranks = 3\n", "2:24"),
    (b"[score]\nrank_thresholds = [1, 2,   # a comment\n\n# another\n[game]\nlevels = 4\n", "2:25"),
    (b"[score]\nrank_thresholds = [\n  1\n  2\n]\n", "3:4"),
    # an apostrophe in a string before the comment (not counted as a quote: the comment is left out)
    (b"[score]\nrank_thresholds = [\"Hero's\", 2  # a comment\nranks = 3\n", "2:31"),
    # an indented table header after an array left open after a ','
    (b"[score]\nrank_thresholds = [1, 2,\n  [game]\n  levels = 4\n", "2:25"),
])
def test_a_toml_error_of_an_array_left_open_names_the_line_it_is_on_not_the_next(tmp_path, raw, where):
    f = tmp_path / "mine.toml"
    f.write_bytes(raw)
    with pytest.raises(InputError) as e:
        get_game("delve").load_ruleset(f, None, None)
    assert (e.value.where, e.value.message) == (
        f"{f}:{where}", "malformed TOML: Unclosed array (a ']' or ',' is missing at the end of this line)")


def test_a_nested_arrays_bad_element_stays_on_its_line(tmp_path):
    """``  [x]`` after ``[1],`` is an element of the array, not a table header: tomllib's line, not "the line above
    lacks a ']'" (session 66's review)."""
    f = tmp_path / "mine.toml"
    f.write_bytes(b"[score]\nrank_thresholds = [\n  [1],\n  [x]\n]\n")
    with pytest.raises(InputError) as e:
        get_game("delve").load_ruleset(f, None, None)
    assert (e.value.where, e.value.message) == (f"{f}:4:4", "malformed TOML: Invalid value")


def test_a_toml_error_tomllib_places_on_its_line_stays_there(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_bytes(b"[score]\nrank_thresholds = [\n  1,\n  x,\n]\n")  # (an element that is no value: line 4)
    with pytest.raises(InputError) as e:
        get_game("delve").load_ruleset(f, None, None)
    assert (e.value.where, e.value.message) == (f"{f}:4:3", "malformed TOML: Invalid value")


def test_a_bom_is_accepted_and_a_directory_is_refused(tmp_path):
    f = tmp_path / "bom.toml"
    f.write_bytes(b"\xef\xbb\xbf[game]\nlevels = 4\n")
    assert get_game("delve").load_ruleset(f, None, None).data["game"]["levels"] == 4
    with pytest.raises(InputError, match="is a directory") as e:
        get_game("foury").load_ruleset(tmp_path, None, None)
    assert e.value.where == "--rules" and str(tmp_path) in e.value.message


@pytest.mark.parametrize(
    "game, sets, where, what",
    [
        ("foury", "heroes=1", "--set heroes", "heroes is a table: set one of its keys"),
        ("delve", "heroes=1", "--set heroes", "heroes is a table"),
        ("foury", "heroes.kael.start=3", "--set heroes.kael.start", "is a table"),
        ("foury", "potions.red={a=1}", "--set potions.red", "is a single value, not a table"),
        ("foury", "monster_bonus=0,1,2,9223372036854775807", "--set round.monster_bonus=",
         r"round.monster_bonus\[3\] = a 19-digit number is above 20"),
        ("foury", "chest_value=1,2,3,99999999999999999999", "--set round.chest_value=", "is above 20"),
        ("foury", "heroes.kael.start={ hearts = 6, shield = 2, clover = 1, weapon = 2 }",
         "--set heroes.kael.start=", "heroes.kael.start.shovel must be a whole number"),
        ("foury", "heroes.kael.start.hearts=-1", "--set heroes.kael.start.hearts=-1", "is below 0"),
        ("foury", "cap.hearts=100", "--set cap.hearts", "unknown ruleset key"),
        ("foury", "mosnter_bonus=1", "--set mosnter_bonus", "did you mean 'monster_bonus'"),
        ("delve", "levels=" + "9" * 5000, "--set game.levels=999", "must be a whole number in 1..30"),
        ("delve", "levels=nan", "--set game.levels=nan", "must be a whole number in 1..30, not nan"),
        ("delve", "levels=inf", "--set game.levels=inf", "not inf"),
        ("delve", 'levels="3"', "--set game.levels=", "not '3'"),
        ("delve", "levels=true", "--set game.levels=true", "not True"),
        ("tactics", "monsters=1", "--set monsters", "monsters is a table: set one of its keys"),
        ("tactics", "monsters.ogre.hp=-1", "--set monsters.ogre.hp=-1", r"is below 1 \(valid range 1..100\)"),
        ("tactics", "hp=1.5", "--set hp", "ambiguous: player.hp, monsters.skeleton.hp"),
        ("tactics", "rulings.ties=sometimes", "--set rulings.ties", "unknown value 'sometimes'"),
        ("tactics", 'monsters.ogre.abilities=["fly"]', "--set monsters.ogre.abilities", "unknown ability 'fly'"),
    ],
)
def test_every_set_error_is_one_line_naming_the_set(game, sets, where, what):
    with pytest.raises(InputError, match=what) as e:
        get_game(game).load_ruleset(None, [sets], None)
    assert e.value.where.startswith(where) and len(e.value.where) < 80 and "\n" not in str(e.value)


def test_a_list_of_one_length_is_named_by_that_length_not_as_a_range():
    # Dungeon Foury's 4 rounds take exactly 4 bonuses: the refusal said "a list of 4..4 whole numbers"
    with pytest.raises(InputError) as e:
        get_game("foury").load_ruleset(None, ["monster_bonus=1,2"], None)
    assert (e.value.where, e.value.message) == (
        "--set round.monster_bonus=1,2", "round.monster_bonus must be a list of 4 whole numbers in -6..20, not [1, 2]")
    rf = rulesfile.RuleFile({"x": []}, "x = []\n", "f.toml")
    with pytest.raises(InputError) as e:  # (a range of lengths stays a range)
        rulesfile.check_int_list(rf, "x", {"x[]": (0, 9)}, 1, 3)
    assert e.value.message == "x must be a list of 1..3 whole numbers in 0..9, not []"


@pytest.mark.parametrize("game, given, line", [
    # a word no key resembles gets no hint (difflib's default cutoff, 0.6, offered 'shield' for 'seed')
    ("foury", "seed=3", "--set seed: unknown ruleset key 'seed'"),
    ("foury", "threads=2", "--set threads: unknown ruleset key 'threads'"),
    ("foury", "game.seed=2", "--set game.seed: unknown ruleset key 'game.seed' (known: rounds, insert_coins, "
     "max_turns, map)"),
    # a misspelt key still gets its hint
    ("foury", "sheild=3", "--set sheild: unknown ruleset key 'sheild' (did you mean 'shield'?)"),
    ("foury", "mosnter_bonus=1", "--set mosnter_bonus: unknown ruleset key 'mosnter_bonus' (did you mean "
     "'monster_bonus'?)"),
    ("foury", "game.max_turn=2", "--set game.max_turn: unknown ruleset key 'game.max_turn' (did you mean "
     "'max_turns'?)"),
    # a built-in policy's parameter given to --set is named as one (the game's: Delve's policies have none of that name)
    ("foury", "round_order=1234", "--set round_order: unknown ruleset key 'round_order' (it is a policy parameter: "
     "--param round_order=...)"),
    ("delve", "round_order=1", "--set round_order: unknown ruleset key 'round_order'"),
])
def test_a_close_match_is_suggested_only_for_a_misspelling(game, given, line):
    with pytest.raises(InputError) as e:
        get_game(game).load_ruleset(None, [given], None)
    assert str(e.value) == line


def test_nearest_suggests_a_close_key_and_lists_the_keys_for_an_unrelated_word():
    keys = dict.fromkeys(["shield", "needs", "hearts"])
    assert rulesfile.nearest("sheild", keys) == " (did you mean 'shield'?)"
    assert rulesfile.nearest("hearst", keys) == " (did you mean 'hearts'?)"
    assert rulesfile.nearest("seed", keys) == " (known: shield, needs, hearts)"


@pytest.mark.parametrize("text, what", [
    ("heroes = 1\n", "heroes must be a table of keys"),
    ("[potions.red]\nx = 1\n", "potions.red must be a single value, not a table"),
])
def test_a_user_file_giving_a_value_where_a_table_stands_is_refused(tmp_path, text, what):
    f = tmp_path / "mine.toml"
    f.write_text(text)
    with pytest.raises(InputError, match=what) as e:
        get_game("foury").load_ruleset(f, None, None)
    assert e.value.where.startswith(f"{f}:1:1")



@pytest.mark.parametrize("game, doc", [("foury", "docs/rules.md"), ("delve", "docs/rules-delve.md"),
                                       ("tactics", "docs/rules-tactics.md"), ("rooms", "docs/rules-rooms.md")])
def test_every_number_has_a_valid_range_documented_in_the_rules_doc(game, doc):
    """Every number of the shipped ruleset has a range (and lies in it), every range names a shipped key,
    and the doc's "Valid ranges" table is exactly ``RANGES``."""
    import importlib
    from pathlib import Path

    from test_fuzz_rules import OPTIONAL, _with_optional  # keys the shipped file leaves out (strength cells)

    from foury_sim.rulesfile import load, range_of, ranges_markdown

    mod = importlib.import_module(f"foury_sim.games.{game}.ruleset")
    shipped = load(mod.DEFAULT_RULES).data
    _with_optional(shipped, OPTIONAL.get(game, {}))
    used = set()
    for key, v in whole_numbers(shipped):
        lo, hi = range_of(mod.RANGES, key)
        assert lo <= v <= hi, key
        used.add(next(p for p in mod.RANGES if _matches(p, key)))
    assert used == set(mod.RANGES)
    text = (Path(__file__).parent.parent / doc).read_text()
    table = text.split("<!-- valid-ranges:begin -->\n", 1)[1].split("<!-- valid-ranges:end -->", 1)[0]
    assert table == ranges_markdown(mod.RANGES)


def _matches(pattern, key):
    from foury_sim.rulesfile import range_of

    try:
        range_of({pattern: (0, 0)}, key)
    except KeyError:
        return False
    return True


_ODD_TOML = """\
# a comment = not a key
top = 1
[a]
x = 1  # x = 2
"y.z" = 2
inline = { p = 1, q = { r = 2, p = 3 } }
[a.b]
x = 3
  c.d = 4
[[runs]]
seed = 1
[[runs]]
seed = 2
[ c ]
late = 5
"""


def _locate_by_scan(text: str, dotted: str) -> tuple[int, int] | None:
    """``rulesfile.locate`` as it was first written, a scan of every line: the reference its index is tested
    against."""
    parts = dotted.split(".")
    table: list[str] = []
    for i, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        indent = len(line) - len(line.lstrip())
        line = line.strip()
        m = re.match(r"^\[\[?\s*([^\]]+?)\s*\]\]?$", line)
        if m:
            table = [t.strip().strip('"') for t in m.group(1).split(".")]
            if table == parts:
                return i, indent + 1
            continue
        m = re.match(r'^("?[\w\-]+"?(?:\s*\.\s*"?[\w\-]+"?)*)\s*=', line)
        if m:
            key = [k.strip().strip('"') for k in m.group(1).split(".")]
            if table + key == parts or (len(parts) > len(table) and table + key == parts[: len(table) + len(key)]):
                col = 0
                for part in parts[len(table) + len(key):]:
                    inner = re.compile(rf'(?<![\w\-"])"?{re.escape(part)}"?\s*=').search(line, col + 1)
                    if not inner:
                        break
                    col = inner.start()
                return i, indent + col + 1
    return None


def _dotted_paths(node, prefix=()) -> set[str]:
    """Every dotted key path of a parsed TOML document (tables inside arrays of tables included)."""
    out: set[str] = set()
    if isinstance(node, dict):
        for k, v in node.items():
            out |= {".".join([*prefix, str(k)])} | _dotted_paths(v, (*prefix, str(k)))
    elif isinstance(node, list):
        for v in node:
            out |= _dotted_paths(v, prefix)
    return out


def test_where_keys_stand_is_read_from_an_index_that_agrees_with_a_scan_of_every_line():
    """``locate`` reads an index built once per text; the line-by-line scan it replaced is the reference: the
    same (line, column) for every key, table, key inside an inline table and unknown key of every shipped
    ruleset, level header and a file of odd shapes."""
    import re
    import tomllib
    from pathlib import Path

    from foury_sim.rulesfile import locate

    root = Path(__file__).resolve().parent.parent
    texts = [p.read_text() for p in sorted((root / "foury_sim" / "games").glob("*/data/*.toml"))] + [_ODD_TOML]
    assert len(texts) >= 5
    checked = 0
    for text in texts:
        paths = _dotted_paths(tomllib.loads(text))
        words = sorted(set(re.findall(r"[\w\-]+", text)))[:60]
        queries = paths | {p + ".nope" for p in paths} | {f"{a}.{b}" for a in words[:12] for b in words[:12]}
        for q in sorted(queries):
            assert locate(text, q) == _locate_by_scan(text, q), q
            checked += 1
    assert checked > 2_000
    assert locate(_ODD_TOML, "a.inline.q.p") == (6, 32) and locate(_ODD_TOML, "c.late") == (15, 1)
    assert locate(_ODD_TOML, "a.b.c.d") == (9, 3) and locate(_ODD_TOML, "runs.seed") == (11, 1)


def test_a_table_only_its_entries_spell_out_is_placed_at_the_first_of_them():
    """A table a file never names itself (only ``[e.f]``, or the dotted key ``b.c.d = 4``) was placed at the file
    alone (``RuleFile.where``): ``locate`` finds no line of it. Its place is the first line inside it
    (``locate_within``); a key the file does name keeps its own line, column and layer."""
    import tomllib

    from foury_sim.rulesfile import RuleFile, locate, locate_within

    text = "top = 1\n[a]\nx = 1\n  b.c.d = 4\n[e.f]\ng = 1\n[e.h]\n"
    assert locate(text, "a.b") is None and locate_within(text, "a.b") == (4, 3)
    assert locate(text, "e") is None and locate_within(text, "e") == (5, 1)
    assert locate_within(text, "a.x") is None and locate_within(text, "zz") is None
    shipped = RuleFile(tomllib.loads(text), text, "shipped.toml")
    user_text = "[q]\nr = 1\n"
    user = RuleFile(tomllib.loads(user_text), user_text, "mine.toml")
    rf = RuleFile({}, user_text, "mine.toml", [shipped, user])
    assert rf.where("e") == "shipped.toml:5:1" and rf.where("a.b.c") == "shipped.toml:4:3"
    assert rf.where("a.x") == "shipped.toml:3:1" and rf.where("q.r") == "mine.toml:2:1"
    assert rf.where("zz") == "mine.toml"


def test_a_whole_table_given_with_its_marker_replaces_the_defaults_one(tmp_path):
    """``whole_tables``: a table whose keys depend on a marker (``kind``) is replaced whole by a user's table that
    gives the marker (the defaults' other keys are not left over); without the marker it merges key by key; a
    ``--set`` that changes the marker or names a key the table has not says to give the whole table."""
    d = tmp_path / "defaults.toml"
    d.write_text('[things.a]\nhp = 3\nmove = { kind = "walk", steps = 2 }\n')
    u = tmp_path / "mine.toml"
    u.write_text('[things.a]\nmove = { kind = "fly", height = 5 }\n')
    whole = {"things.*.move": "kind"}
    rf = load_ruleset_file(d, u, None, (), whole)
    assert rf.data == {"things": {"a": {"hp": 3, "move": {"kind": "fly", "height": 5}}}}
    assert rf.where("things.a.move.height") == f"{u}:2:24"
    u.write_text("[things.a.move]\nsteps = 4\n")
    assert load_ruleset_file(d, u, None, (), whole).data["things"]["a"]["move"] == {"kind": "walk", "steps": 4}
    for sets, what in ((["things.a.move.kind=fly"], "things.a.move.kind decides which keys things.a.move has"),
                       (["things.a.move.height=5"], "unknown ruleset key 'things.a.move.height'")):
        with pytest.raises(InputError) as e:
            load_ruleset_file(d, None, sets, (), whole)
        assert e.value.where == f"--set {sets[0].split('=')[0]}" and e.value.message.startswith(what)
        assert "give the whole table, e.g. --set 'things.a.move={kind = " in e.value.message
    rf = load_ruleset_file(d, None, ['things.a.move={kind="fly", height=5}', "things.a.move.height=6"], (), whole)
    assert rf.data["things"]["a"]["move"] == {"kind": "fly", "height": 6}


def test_a_quoted_key_with_a_space_is_placed_at_its_line():
    """A key quoted because it holds a space (a monster named "big imp") was never indexed: its faults had no line."""
    from foury_sim.rulesfile import locate

    text = ('[monsters]\nimp = { hp = 1 }\n"big imp" = { hp = 2 }\n"big imp".armour = 1\n[monsters."old troll"]\n'
            'hp = 9\n')
    assert locate(text, "monsters.big imp") == (3, 1) and locate(text, "monsters.big imp.hp") == (3, 15)
    assert locate(text, "monsters.old troll") == (5, 1) and locate(text, "monsters.old troll.hp") == (6, 1)
    assert locate(text, "monsters.imp.hp") == (2, 9)
