"""Maps, fuzzed and at their limits (issue 11): `map check` and `run` take or refuse the same maps with the
same one line naming file:line[:col]; sizes have limits checked before anything large is built; a map
that is taken plays sane games. Cases come from ``random.Random(SEED)``: a failure prints its case."""

from __future__ import annotations

import contextlib
import gc
import io
import random
import re
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from foury_sim.cli import main
from foury_sim.errors import InputError
from foury_sim.games.foury.maps import MAPS_DIR, MAX_COLS, MAX_ROWS
from foury_sim.games.foury.ruleset import load_ruleset
from foury_sim.grid import MAX_FILE_BYTES, MAX_HEADER_LINES

SEED = 11
BASE = (MAPS_DIR / "base.map").read_text(encoding="utf-8")


def cli_main(*args: str) -> tuple[int, str, str]:
    """``foury-sim ARGS`` in this process with ``main()``'s semantics: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["foury-sim", *args]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
                code = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
    finally:
        sys.argv = argv
    return code, out.getvalue(), err.getvalue()


def run_load(path: Path, sets: list[str] | None = None) -> str | None:
    """The ruleset load of ``run`` with this map: None if taken, else the line ``main()`` prints."""
    try:
        load_ruleset(None, sets, str(path))
    except InputError as e:
        return f"foury-sim: error: {e}"
    return None


def big_map(rows: int, cols: int, name: str = "Big", icons: dict | None = None, arrows: str = "corners") -> str:
    """A legal map of rows x cols rooms: sector quadrants (A B / C D), every inner side open, the Oracle in the
    middle, an arrow at each corner (``arrows="all"``: on every outer side), the shipped requirements' icons."""

    def sec(r: int, c: int) -> str:
        if (r, c) == (rows // 2, cols // 2):
            return "O"
        return "AB"[c >= cols // 2] if r < rows // 2 else "CD"[c >= cols // 2]

    put = {(0, 1): "TT", (0, 2): "T.", (rows - 1, 1): "LS", (rows - 1, 2): "L.", (rows - 1, cols - 2): "u.",
           (0, cols - 2): "gg", (0, cols - 3): "gr"}
    put.update(icons or {})
    every = arrows == "all"
    out = [f"name: {name}", ""]
    for r in range(rows + 1):
        b = ["+"]
        for c in range(cols):
            if r in (0, rows):
                t = ("vvv" if r == 0 else "^^^") if every or c in (0, cols - 1) else "---"
            else:
                t = "   "
            b.append(t + "+")
        out.append("".join(b))
        if r == rows:
            break
        line = []
        for c in range(cols):
            line.append((">" if every else "|") if c == 0 else " ")
            s = sec(r, c)
            line.append(s + put.get((r, c), "**" if s == "O" else ".."))
        line.append("<" if every else "|")
        out.append("".join(line))
    return "\n".join(out) + "\n"


ONE_LINE = re.compile(r"^foury-sim: error: (?P<where>\S+?):(?P<line>\d+)(:(?P<col>\d+))?: \S.*$")


def assert_agree(path: Path, case: str, sets: list[str] | None = None) -> bool:
    """`map check` and `run`'s ruleset load agree on ``path``; a refusal is one line at path:line[:col].
    Returns whether the map was taken."""
    extra = [a for s in sets or [] for a in ("--set", s)]
    t0 = time.perf_counter()
    code, out, err = cli_main("map", "check", str(path), *extra)
    took = time.perf_counter() - t0
    # a bound on runaway work (a damaged map that makes the check sweep without end), not a speed figure: wide
    # enough for a loaded 2-core machine (6.3 s seen at load 15-20, under 1 s idle)
    assert took < 30, f"{case}: map check took {took:.1f} s"
    assert "Traceback" not in err + out, f"{case}: {err}"
    refused = run_load(path, sets)
    if code == 0:
        assert refused is None, f"{case}: map check took it, run refuses: {refused}"
        assert err == "" and out.count("\n") == 2, f"{case}: {out!r} {err!r}"
        return True
    assert code == 2, f"{case}: exit {code}: {err}"
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0] == refused, f"{case}: map check says {lines}, run says {refused!r}"
    m = ONE_LINE.match(lines[0])
    assert m and m["where"] == str(path), f"{case}: not one line at {path}:line[:col]: {lines[0]!r}"
    return False


# ----------------------------------------------------------------------------------------------- mutations
GRID_CHARS = "ABCDO#.*TgrbtMiSLocpswhfud~|<>^v-+ xé?"


def _grid_rows(lines: list[str]) -> list[int]:
    return [k for k, ln in enumerate(lines) if ln and ln[0] in "+|>"]


def mutate(rng: random.Random, i: int) -> tuple[str, bytes]:
    """One mutant of the base map: (what was done, the file's bytes)."""
    lines = BASE.split("\n")
    kind = rng.choice(["flip", "flip", "icons", "icons", "delete", "duplicate", "cut", "grow", "header", "bytes",
                       "text"])
    grid = _grid_rows(lines)
    if kind == "icons":  # another icon (or none) in a few rooms: mostly still a legal map, a different game
        done = []
        for _ in range(rng.randint(1, 4)):
            k = rng.choice([g for g in grid if lines[g][0] != "+"])
            col = 4 * rng.randrange(9) + rng.choice((2, 3))
            ch = rng.choice(".cpswhfudo~grbtMi")
            lines[k] = lines[k][:col] + ch + lines[k][col + 1:]
            done.append(f"{k + 1}:{col + 1}={ch!r}")
        return f"icons {' '.join(done)}", "\n".join(lines).encode()
    if kind == "flip":
        done = []
        for _ in range(rng.randint(1, 3)):
            k = rng.choice(grid)
            col = rng.randrange(len(lines[k]))
            ch = rng.choice(GRID_CHARS)
            lines[k] = lines[k][:col] + ch + lines[k][col + 1:]
            done.append(f"{k + 1}:{col + 1}={ch!r}")
        return f"flip {' '.join(done)}", "\n".join(lines).encode()
    if kind == "delete":
        k = rng.randrange(len(lines))
        del lines[k]
        return f"delete line {k + 1}", "\n".join(lines).encode()
    if kind == "duplicate":
        k = rng.randrange(len(lines))
        lines.insert(k, lines[k])
        return f"duplicate line {k + 1}", "\n".join(lines).encode()
    if kind == "cut":
        n = rng.randrange(len(BASE.encode()))
        return f"cut at byte {n}", BASE.encode()[:n]
    if kind == "grow":
        how = rng.choice(["rows", "cols", "big", "bigger", "huge", "long-line"])
        if how == "rows":  # repeat the grid's middle rows: taller than the base, maybe past the limit
            k = rng.randint(1, 40)
            mid = [lines[grid[1]], lines[grid[2]]] * k
            lines[grid[0] + 1:grid[0] + 1] = mid
            return f"grow rows x{k}", "\n".join(lines).encode()
        if how == "cols":  # widen every grid line
            k = rng.randint(1, 70)
            for g in grid:
                ln = lines[g]
                lines[g] = ln[:-1] + (ln[1:4] + ln[4]) * k + ln[-1] if ln[0] == "+" else ln + ("A.. " * k)[:4 * k]
            return f"grow cols +{k}", "\n".join(lines).encode()
        if how in ("big", "bigger"):
            r, c = (rng.randint(MAX_ROWS - 2, MAX_ROWS), rng.randint(MAX_COLS - 2, MAX_COLS)) if how == "big" else \
                (rng.randint(MAX_ROWS - 1, MAX_ROWS + 40), rng.randint(MAX_COLS - 1, MAX_COLS + 40))
            return f"grow to {r}x{c}", big_map(r, c).encode()
        if how == "huge":
            return "grow past the file size limit", (BASE + "#" * (MAX_FILE_BYTES + rng.randint(-10, 10))).encode()
        return "a long header line", BASE.replace("source: ", "source: " + "x" * rng.randint(900, 5000)).encode()
    if kind == "header":
        how = rng.choice(["dup-name", "no-name", "assume", "many", "empty-name", "bad-key", "upper", "upper"])
        if how == "upper":  # a walkway line's values: huge, negative, non-ASCII digits, missing, extra
            val = rng.choice(["9" * 5000, "-1", "\u0663", "6,6", "0,0", "99,99", "6,8", "6,6 6,8", "100", "2 2"])
            k = rng.randrange(3)
            words = ["6,6", "6,8", "2"]
            words[k] = val
            text = BASE.replace("upper: 6,6 6,8 2", "upper: " + " ".join(words))
            return f"upper word {k} = {val[:12]!r}", text.encode()
        if how == "dup-name":
            return "name given twice", BASE.replace("source:", "name: again\nsource:").encode()
        if how == "no-name":
            return "no name", BASE.replace("name: The Foury Kingdom\n", "").encode()
        if how == "assume":
            k = rng.choice(["arrows: 8", "statues: 7", "cornucopias: 2", "upper_walkways: 4", "layout: The"])
            new = rng.choice(["arrows: 9", "statues: x", "dragons: 1", "cornucopias: 2 | range 1..4", k + "7"])
            return f"assume {k!r} -> {new!r}", BASE.replace("assume-" + k, "assume-" + new, 1).encode()
        if how == "many":
            n = rng.randint(MAX_HEADER_LINES - 10, MAX_HEADER_LINES + 10)
            extra = "".join(f"note{j}: {j}\n" for j in range(n))
            return f"{n} more header lines", BASE.replace("source:", extra + "source:").encode()
        if how == "empty-name":
            return "empty name", BASE.replace("name: The Foury Kingdom", "name:").encode()
        return "bad header key", BASE.replace("source:", "9source:").encode()
    if kind == "bytes":  # random bytes anywhere: bad UTF-8, control characters, NULs
        data = bytearray(BASE.encode())
        done = []
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(data))
            b = rng.randrange(256)
            data[k] = b
            done.append(f"@{k}=0x{b:02x}")
        return f"bytes {' '.join(done)}", bytes(data)
    how = rng.choice(["bom", "crlf", "cr", "tab", "junk", "empty", "blank", "bom-mid"])
    text = {"bom": "\ufeff" + BASE, "crlf": BASE.replace("\n", "\r\n"), "cr": BASE.replace("\n", "\r"),
            "tab": BASE.replace("|A.. AT.|", "|A..\tAT.|"), "junk": BASE + "and then some\n", "empty": "",
            "blank": "\n \n\t\n", "bom-mid": BASE.replace("source:", "\ufeffsource:")}[how]
    return how, text.encode()


def test_fuzz_map_check_and_run_agree(tmp_path):
    """~100 mutants of the base map: both refuse with the same one line, or both take it and it plays sane
    games; none takes long or allocates much."""
    from foury_sim import runner

    rng = random.Random(SEED)
    taken = refused = played = large = 0
    for i in range(100):
        case, data = mutate(rng, i)
        case = f"case {i} ({case})"
        path = tmp_path / f"case{i}.map"
        path.write_bytes(data)
        ok = assert_agree(path, case)
        if len(data) > 20_000:  # a large file: loading it (map check's and run's path) allocates little
            tracemalloc.start()
            try:
                run_load(path)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert peak < 32 * 2**20, f"{case}: loading it allocated {peak / 2**20:.0f} MiB"
            large += 1
        taken += ok
        refused += not ok
        if ok and played < 12:
            res = runner.run("foury", games=20, seed=i + 1, map=str(path), progress=False)
            s = res.summary
            assert s["games"] == 20 and 0 <= s["win"]["rate"] <= 1, case
            assert 0 <= s["turns"]["min"] <= s["turns"]["max"] <= 400, case
            assert 0 <= s["rounds_completed"]["min"] <= s["rounds_completed"]["max"] <= 4, case
            assert s["hearts_left"]["min"] >= 0, case
            played += 1
    assert taken >= 10 and refused >= 50 and large >= 3, (taken, refused, large)


# ------------------------------------------------------------------------- maps `map check` used to pass
def _no(text: str, *chars: str) -> str:
    """``text`` with the icon characters ``chars`` dropped from its rooms."""
    lines = text.split("\n")
    for k, ln in enumerate(lines):
        if ln[:1] in "|>":
            for ch in chars:
                ln = ln.replace(ch, ".")
            lines[k] = ln
    return "\n".join(lines)


CORPUS = {  # name: (map text, words of the one line)
    "33+ arrows": (big_map(10, 10, arrows="all"), "too many arrows: at most 32"),
    "64 staircase rooms": (big_map(12, 12, icons={(r, c): "S." for r in range(6, 12) for c in range(0, 11)}),
                           "too many rooms with a stone staircase: at most 63"),
    "64 magic-circle rooms": (big_map(12, 12, icons={(r, c): "o." for r in range(6) for c in range(11)}),
                              "too many rooms with a magic circle: at most 63"),
    "22 staircase rooms": (big_map(12, 12, icons={(6 + k // 6, k % 6): "S." for k in range(22)}),
                           "the upper level's places): at most 21"),
    "9 lever rooms": (big_map(12, 12, icons={(11, c): "L." for c in range(1, 10)}),
                      "too many rooms with a lever: at most 8"),
    "no statues": (_no(BASE, "T"), "the Temple needs 3 statues (requirements.statues) but the map has 0"),
    "one lever": (big_map(10, 10, icons={(9, 2): ".."}), "needs 2 levers (requirements.levers) and a staircase"),
    "no staircase": (big_map(10, 10, icons={(9, 1): "L."}), "the map has 2 levers and 0 staircases"),
    "no sector D": (big_map(10, 10).replace("D", "C"), "no sector D (The Waterways) with an entry arrow"),
    "assumption off": (BASE.replace("assume-arrows: 8", "assume-arrows: 9"), "says '9' but the map has 8"),
    "unknown assumption": (BASE.replace("assume-arrows: 8", "assume-dragons: 8"), "the map does not have"),
    "no upper walkway to a lever": (BASE.replace("upper: 9,6 8,5 2\n", ""), "cannot be reached over the upper"),
}


@pytest.mark.parametrize("name", list(CORPUS))
def test_map_check_refuses_what_run_refuses_with_the_same_line(tmp_path, name):
    text, words = CORPUS[name]
    path = tmp_path / "bad.map"
    path.write_text(text, encoding="utf-8")
    assert not assert_agree(path, name)
    code, out, err = cli_main("run", "foury", "--map", str(path), "--games", "5")
    assert code == 2 and out == "" and err == run_load(path) + "\n", (name, err)
    assert words in err, (name, err)


def test_map_check_under_rules_and_sets(tmp_path):
    """`map check --set/--rules` checks against that ruleset, as `run` would."""
    statueless, dless = tmp_path / "statueless.map", tmp_path / "dless.map"
    statueless.write_text(big_map(10, 10, icons={(0, 1): "..", (0, 2): ".."}))
    dless.write_text(big_map(10, 10).replace("D", "C"))
    assert assert_agree(statueless, "no statues, none needed", ["requirements.statues=0"])
    assert assert_agree(dless, "no D, three rounds", ["game.rounds=3"])
    rules = tmp_path / "r.toml"
    rules.write_text("[requirements]\nstatues = 0\n")
    code, out, err = cli_main("map", "check", str(statueless), "--rules", str(rules))
    assert code == 0 and out.startswith("Big: 10x10"), err
    # a map using a ruleset's own enemy: refused under the shipped rules, taken under that ruleset
    wraith = tmp_path / "wraith.map"
    wraith.write_text(BASE.replace("|Bi.|", "|BW.|"))
    rules.write_text('[enemies]\nwraith = { char = "W", base = 1, mult = 1, traits = [] }\n')
    code, _, err = cli_main("map", "check", str(wraith))
    assert code == 2 and f"{wraith}:53:23: unknown icon character 'W'" in err
    code, out, err = cli_main("map", "check", str(wraith), "--rules", str(rules))
    assert code == 0 and "wraith 1" in out, err


# ------------------------------------------------------------------------------------------- size limits
def test_largest_legal_map_checks_fast_and_one_more_is_refused(tmp_path):
    big = tmp_path / "big.map"
    big.write_text(big_map(MAX_ROWS, MAX_COLS))
    # the check's own work: the CPU time of this thread (the check runs in it), not the wall time a loaded machine
    # stretches (0.05 s idle, 0.3 s beside three busy processes), and no full collection of the test process's
    # heap in the window (one, collected here first, took 0.4 s under that load for a small heap)
    gc.collect()
    t0 = time.thread_time()
    code, out, err = cli_main("map", "check", str(big))
    took = time.thread_time() - t0
    assert code == 0 and out.startswith(f"Big: {MAX_ROWS}x{MAX_COLS}, {MAX_ROWS * MAX_COLS} rooms"), err
    assert took < 2, took
    wide, tall = tmp_path / "wide.map", tmp_path / "tall.map"
    wide.write_text(big_map(4, MAX_COLS + 1))
    tall.write_text(big_map(MAX_ROWS + 1, 4))
    assert cli_main("map", "check", str(wide))[2] == (
        f"foury-sim: error: {wide}:3:258: the map is 65 rooms wide (its top border is 261 characters): at most 64 "
        "rooms per row, 257 characters\n")
    assert cli_main("map", "check", str(tall))[2] == (
        f"foury-sim: error: {tall}:132:1: the map has 65 rows of rooms: at most 64\n")


def test_file_size_limit_is_checked_before_reading_further(tmp_path):
    p = tmp_path / "huge.map"
    p.write_bytes(b"# x\n" * (3 * MAX_FILE_BYTES // 4))  # 3 MiB of comment lines
    code, _, err = cli_main("map", "check", str(p))
    line = MAX_FILE_BYTES // 4 + 1
    assert code == 2 and err == (f"foury-sim: error: {p}:{line}:1: map file is larger than {MAX_FILE_BYTES} bytes "
                                 "(1 MiB): a map has at most 64 x 64 rooms\n")


def test_header_line_limits(tmp_path):
    p = tmp_path / "h.map"
    p.write_text(BASE.replace("source:", "".join(f"k{j}: v\n" for j in range(MAX_HEADER_LINES)) + "source:"))
    assert cli_main("map", "check", str(p))[2] == (
        f"foury-sim: error: {p}:{38 + MAX_HEADER_LINES}:1: too many header lines: at most 100 'key: value' lines\n")
    p.write_text(BASE.replace("source: ", "source: " + "x" * 1000))
    n = len(BASE.split("\n")[38]) + 1000
    assert cli_main("map", "check", str(p))[2] == (
        f"foury-sim: error: {p}:39:1001: line is too long: {n} characters; a header or comment line has at most "
        "1000\n")


# ---------------------------------------------------------------------------------------------- bad text
BAD_TEXT = [
    ("latin-1 byte", BASE.replace("The Foury Kingdom", "The Foury Königdom").encode("latin-1"), "38:18",
     "not UTF-8 text: byte 0xf6 cannot be read (save the map as UTF-8)"),
    ("bad byte after a multi-byte character", "name: é\xff".encode("utf-8", "surrogateescape")[:-2] + b"\xff",
     "1:8", "byte 0xff"),
    ("UTF-16", BASE.encode("utf-16"), "1:1", "byte 0xff"),
    ("BOM inside", BASE.replace("source:", "\ufeffsource:").encode(), "39:1", "byte-order mark inside the file"),
    ("tab in the grid", BASE.replace("|A.. AT.|", "|A..\tAT.|").encode(), "51:5", "tab character in the grid"),
    ("old Mac line ends", BASE.replace("\n", "\r").encode(), "1:69", "carriage return inside a line"),
    ("NUL", BASE.replace("A.. A.. A.. AT.", "A.. A\x00. A.. AT.").encode(), "49:11", "control character '\\x00'"),
    ("escape in the name", BASE.replace("name: The", "name: \x1b[31mThe").encode(), "38:7",
     "control character '\\x1b' (U+001B)"),
    ("5000-digit walkway length", BASE.replace("upper: 6,6 6,8 2", "upper: 6,6 6,8 " + "9" * 5000).encode(), "69:16",
     "bad length '99999999999999999999': the walkway's length in turns is a whole number 0..99"),
    ("5000-digit walkway row", BASE.replace("upper: 6,6", "upper: " + "6" * 5000 + ",6").encode(), "69:8",
     "bad room '66666666666666666666': write ROW,COL"),
    ("junk after the grid", (BASE + "and then some\n").encode(), "74:1", "unexpected text after the grid"),
    ("empty", b"", "1:1", "empty map file"),
    ("only blanks", b"\n  \n\n", "1:1", "empty map file"),
    ("name twice", BASE.replace("source:", "  name: again\nsource:").encode(), "39:3",
     "header key 'name' given twice (first at line 38)"),
]


@pytest.mark.parametrize("name, data, where, words", BAD_TEXT, ids=[c[0] for c in BAD_TEXT])
def test_bad_text_is_one_line_with_line_and_column(tmp_path, name, data, where, words):
    p = tmp_path / "bad.map"
    p.write_bytes(data)
    assert not assert_agree(p, name)
    err = run_load(p)
    assert err.startswith(f"foury-sim: error: {p}:{where}: ") and words in err, (name, err)


def test_bom_and_crlf_are_read_as_plain_text(tmp_path):
    p = tmp_path / "windows.map"
    p.write_bytes(("\ufeff" + BASE.replace("\n", "\r\n")).encode())
    assert assert_agree(p, "BOM + CRLF")
    assert load_ruleset(None, None, str(p)).map.name == "The Foury Kingdom"


def test_a_folder_or_a_missing_file_is_one_line(tmp_path):
    assert cli_main("map", "check", str(tmp_path))[2] == (  # (map check's MAP is an argument, not --map)
        f"foury-sim: error: MAP: {tmp_path} is a folder, not a map file\n")
    assert cli_main("run", "foury", "--map", str(tmp_path))[2] == (
        f"foury-sim: error: --map: {tmp_path} is a folder, not a map file\n")
    assert cli_main("map", "check", str(tmp_path / "no.map"))[0] == 2
    code, _, err = cli_main("run", "foury", "--set", f"game.map={tmp_path}")
    shown = str(tmp_path) if len(str(tmp_path)) <= 40 else str(tmp_path)[:37] + "..."  # --set values are shortened
    assert code == 2 and err == f"foury-sim: error: --set game.map={shown}: {tmp_path} is a folder, not a map file\n"
