"""Seeded fuzz of rulesets (issue 11): mutated rules.toml files and ``--set`` strings for every game.

Every case either loads and plays 30 games with sane figures (win 0/1, every per-game column finite and within
the bounds its ruleset implies), or is refused with one ``InputError`` naming the place: the file
(``file:line[:column]``) or ``--set KEY``. Never a traceback, never an out-of-range number. A second test plays
every valid range at its lowest and highest value. A failure prints its case (``random.Random(SEED)``).
"""

from __future__ import annotations

import copy
import importlib
import random
import re
from typing import Any

import numpy as np
import pytest

from foury_sim.errors import InputError
from foury_sim.rulesfile import load, range_of
from foury_sim.runner import run

SEED = 20261130
GAMES = ("foury", "delve", "tactics", "rooms")
CASES_PER_GAME = 36  # x 4 games; a quarter to a third load and play 30 games each
HUGE = [2**63, 2**63 - 1, 2**64, -(2**63) - 1, 10**20, -(10**6)]
BAD_TOKENS = ["2.7", "1e9", "nan", "inf", "-inf", "true", "false", '"3"', '""', "[1, 2]", "{ a = 1 }", "[]",
              "99999999999999999999", "-99999999999999999999", "18446744073709551616", "-1", "0", "1", "1000000"]


def _mod(game: str):
    return importlib.import_module(f"foury_sim.games.{game}.ruleset")


def _leaves(node: Any, path: str = "") -> list[str]:
    """Dotted keys of every value (not tables) of a ruleset, its assumptions left out."""
    out: list[str] = []
    if isinstance(node, dict):
        for k, v in node.items():
            if path == "" and k == "assumptions":
                continue
            out += _leaves(v, f"{path}.{k}" if path else k)
    else:
        out.append(path)
    return out


def _sane(game: str, rs: Any, case: str, games: int = 30, seed: int = 1) -> None:
    """Play ``games`` games of ruleset ``rs`` and check every figure is in range."""
    # Delve's default policy precomputes odds per ruleset (seconds at 12 party dice): the random policy keeps
    # the fuzz fast and plays every rule the ruleset sets
    res = run(game, games=games, seed=seed, ruleset=rs, progress=False, policy="random" if game == "delve" else None)
    df = res.df
    assert len(df) == games, case
    num = df.select_dtypes(include=[np.number])
    assert np.isfinite(num.to_numpy(dtype=float)).all(), case
    assert (num.abs() <= 10**7).all().all(), f"{case}: {num.abs().max().max()}"
    assert set(df["win"].unique()) <= {0, 1}, case
    w = res.summary["win"]
    rate = w["rate"] if isinstance(w, dict) and "rate" in w else float(df["win"].mean())
    assert 0.0 <= rate <= 1.0, case
    if game == "foury":
        from foury_sim.games.foury.layout import R_COINS, R_MAX_TURNS

        turn_budget = int(rs.R[R_MAX_TURNS]) * (1 + int(rs.R[R_COINS]))
        assert df["hearts_left"].between(0, 99).all() and df["turns"].between(0, turn_budget).all(), case
        assert df["rounds_completed"].between(0, 4).all() and df["kills"].ge(0).all(), case
    elif game == "delve":
        assert df["score"].ge(0).all() and df["xp"].ge(0).all() and df["treasures"].ge(0).all(), case
    elif game == "rooms":
        assert df["turns"].ge(0).all() and df["hp_left"].ge(0).all() and df["fights_won"].le(df["fights"]).all(), case
        assert ((df["win"] == 1) == (df["death_cause"] == 0)).all(), case  # won, or lost with a cause
        assert df["damage_dealt"].ge(0).all() and df["damage_taken"].ge(0).all(), case
    else:
        from foury_sim.games.tactics.ruleset import R_TURN_CAP

        cells = int(rs.level.rows) * int(rs.level.cols)
        assert df["turns"].between(0, int(rs.rules[R_TURN_CAP])).all() and df["hp_left"].ge(0).all(), case
        assert df["death_cell"].between(-1, cells - 1).all() and df["kills"].ge(0).all(), case
        assert ((df["win"] == 1) == (df["death_cause"] == 0)).all(), case  # won, or lost with a cause


def _check_where(e: InputError, case: str, place: str) -> None:
    """One line, naming ``place`` (the mutated file, with its line when the error points into it, or --set)."""
    assert "\n" not in str(e) and "Traceback" not in str(e), case
    assert e.where, case
    if re.search(r"\.(map|txt):\d+(:\d+)?$", e.where) or e.where.endswith((".map", ".txt")):
        return  # the value makes the game's map or level unplayable (an enemy letter gone, 50 statues): its place
    if place == "--set":
        assert e.where.startswith("--set"), f"{case}: {e.where}"
    else:
        assert e.where == place or re.fullmatch(re.escape(place) + r":\d+(:\d+)?", e.where) or (
            e.where.startswith("--") and place in e.message
        ), f"{case}: {e.where}: {e.message}"


def _mutate_text(rng: random.Random, text: str) -> tuple[str | bytes, str]:
    lines = text.splitlines()
    kind = rng.choice(["value", "value", "value", "delete_line", "delete_header", "unknown_key", "bytes", "table"])
    values = [i for i, t in enumerate(lines) if re.match(r"^\s*[\w\"]+[\w.\"]*\s*=", t)
              and not t.lstrip().startswith('"')]
    headers = [i for i, t in enumerate(lines) if t.startswith("[")]
    if kind == "value":
        i = rng.choice(values)
        key, _ = lines[i].split("=", 1)
        lines[i] = f"{key}= {rng.choice(BAD_TOKENS + [str(h) for h in HUGE])}"
    elif kind == "delete_line":
        i = rng.choice(values)
        del lines[i]
    elif kind == "delete_header":
        i = rng.choice(headers)
        del lines[i]
    elif kind == "unknown_key":
        i = rng.choice(headers + values)
        lines.insert(i + 1, f"{rng.choice(['bogus', 'levle', 'speed', 'colour', 'n'])} = {rng.choice(['1', '2.5'])}")
    elif kind == "table":
        i = rng.choice(values)
        key, _ = lines[i].split("=", 1)
        lines[i] = f"{key}= {{ x = 1 }}"
    else:
        raw = bytearray(("\n".join(lines) + "\n").encode())
        pos = rng.randrange(len(raw))
        raw[pos:pos + 1] = bytes([rng.choice([0x00, 0x80, 0xC3, 0xE9, 0xFF, 0xFE])])
        return bytes(raw), f"bytes at {pos}"
    return "\n".join(lines) + "\n", f"{kind} at line {i + 1}: {lines[i] if i < len(lines) else ''}"


@pytest.mark.parametrize("game", GAMES)
def test_fuzz_rules_files_and_sets(tmp_path, game):
    rng = random.Random(f"{SEED}-{game}")
    mod = _mod(game)
    shipped = load(mod.DEFAULT_RULES)
    keys = _leaves(shipped.data)
    numbers = [k for k in keys if isinstance(shipped.get(k), int) and not isinstance(shipped.get(k), bool)]
    loaded = refused = 0
    for n in range(CASES_PER_GAME):
        if n % 4 == 2:  # --set a number to a random value of its valid range (legal, often extreme)
            key = rng.choice(numbers)
            lo, hi = range_of(mod.RANGES, key)
            value = str(rng.choice([lo, hi, rng.randint(lo, hi)]))
            case, place = f"{game} --set {key}={value}", "--set"
            load_args: tuple[Any, ...] = (None, [f"{key}={value}"], None)
        elif n % 2 == 0:  # --set KEY=VALUE with a hostile value
            key = rng.choice(keys)
            short = key.rsplit(".", 1)[-1] if rng.random() < 0.3 else key
            value = rng.choice(BAD_TOKENS + [str(h) for h in HUGE] + ["0,1,2," + str(2**63 - 1)])
            case, place = f"{game} --set {short}={value}", "--set"
            load_args = (None, [f"{short}={value}"], None)
        else:  # a mutated copy of the shipped file as --rules
            data, what = _mutate_text(rng, shipped.text)
            f = tmp_path / f"case{n}.toml"
            (f.write_bytes if isinstance(data, bytes) else f.write_text)(data)
            case, place = f"{game} --rules with {what}", str(f)
            load_args = (f, None, None)
        try:
            rs = mod.load_ruleset(*load_args)
        except InputError as e:
            _check_where(e, case, place)
            refused += 1
            continue
        _sane(game, rs, case, seed=n + 1)
        loaded += 1
    print(f"{game}: {loaded} loaded and played, {refused} refused")
    assert loaded >= 8 and refused >= 15, (loaded, refused)


#: Optional keys the shipped files leave out, added before the extremes are set so that their ranges are played
#: too: an enemy's strength cells by sector and by play order (docs/rules.md "Monster strength by round").
OPTIONAL = {"foury": {"enemies": {"orc": {"strength": {"C": 2}}, "minotaur": {"strength": [0, 2, 4, 6]}}}}


def _with_optional(data: dict[str, Any], extra: dict[str, Any]) -> None:
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(data.get(k), dict):
            _with_optional(data[k], v)
        else:
            data[k] = copy.deepcopy(v)


def _extremes(mod: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """For every valid range pattern, overrides setting every shipped key it matches to its lowest, then its
    highest value. Keys that must move together (a hero's start with its cap) are moved together."""
    shipped = load(mod.DEFAULT_RULES).data
    _with_optional(shipped, OPTIONAL.get(mod.__name__.split(".")[-2], {}))
    along = {"heroes.*.start.*": "heroes.*.cap.*", "character.min_hearts": "character.cap.*",
             "character.trait_marks": "character.cap.*"}
    out = []
    for pattern, (lo, hi) in mod.RANGES.items():
        for end, v in (("min", lo), ("max", hi)):
            data = copy.deepcopy(shipped)
            touched = _set_all(data, pattern.split("."), v)
            if end == "max" and pattern in along:
                touched |= _set_all(data, along[pattern].split("."), mod.RANGES[along[pattern]][1])
            out.append((f"{pattern} at its {end} {v}", pattern, {t: _get(data, t) for t in sorted(touched)}))
    return out


def _get(data: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        data = data[part]
    return data


def _set_all(node: Any, pattern: list[str], value: int, path: tuple[str, ...] = ()) -> set[str]:
    """Set every whole number of ``node`` matching ``pattern`` (``*``, ``x[]``) to ``value``; returns the dotted
    keys to override (the number's key, or the list holding it)."""
    head, rest = pattern[0], pattern[1:]
    name, is_list = (head[:-2], True) if head.endswith("[]") else (head, False)
    touched: set[str] = set()
    if not isinstance(node, dict):
        return touched
    for k in list(node):
        if name not in ("*", k) or (is_list and not isinstance(node[k], list)):
            continue
        here = ".".join((*path, k))
        for holder, slot in ([(node[k], i) for i in range(len(node[k]))] if is_list else [(node, k)]):
            if not rest:
                if isinstance(holder[slot], int) and not isinstance(holder[slot], bool):
                    holder[slot] = value
                    touched.add(here)
            elif is_list:
                if _set_all(holder[slot], rest, value, ()):
                    touched.add(here)
            else:
                touched |= _set_all(holder[slot], rest, value, (*path, k))
    return touched


def _one_key(mod: Any, over: dict[str, Any]) -> dict[str, Any]:
    """The first key of ``over`` alone at its extreme (in a list, its first number only; the rest as shipped)."""
    key, value = next(iter(over.items()))
    if isinstance(value, list):
        value, shipped = copy.deepcopy(_get(load(mod.DEFAULT_RULES).data, key)), value
        value[0] = shipped[0]
    return {key: value}


@pytest.mark.parametrize("game", GAMES)
def test_every_key_at_its_valid_min_and_max_plays_sane_games(game):
    """Every key matching a valid-range pattern, all at once at the range's end: the games are sane, or a
    cross-check between keys refuses in one line (every hero's faces all 1: no pair ability can be made; every
    Rooms card 20 times: over the deck's limit). A pattern refused at both ends all at once must play with one
    key alone at each end."""
    mod = _mod(game)
    played: dict[str, int] = {p: 0 for p in mod.RANGES}
    alone: list[tuple[str, str, dict[str, Any]]] = []
    for case, pattern, over in _extremes(mod):
        assert over, f"{case}: the pattern matches no shipped key"
        try:
            rs = mod.load_ruleset(None, over)
        except InputError as e:  # only a cross-check between keys (min_hearts <= cap.hearts ...) may refuse
            _check_where(e, case, "--set")
            alone.append((case, pattern, over))
            continue
        _sane(game, rs, case, games=6)
        played[pattern] += 1
    for case, pattern, over in alone:
        if not played[pattern]:
            one = _one_key(mod, over)
            _sane(game, mod.load_ruleset(None, one), f"{case}, {next(iter(one))} alone", games=6)
            played[pattern] += 1
    assert all(played.values()), [p for p, n in played.items() if not n]
    assert sum(played.values()) >= 1.5 * len(mod.RANGES)

