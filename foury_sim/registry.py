"""Games as data plus a registry: each game module describes itself and registers a GameSpec.

The runner, CLI and studies only speak to this interface, so a new game plugs in by
registering one more spec.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InputError, did_you_mean
from .inputs import check_flags, check_map_name
from .outputs import Outputs
from .policy import Policy, PolicySpec, make_policy


@dataclass(frozen=True)
class Board:
    """A game's board, for ``foury-sim map check/render`` and the heat maps of a study report.

    * ``resolve(name_or_path | None) -> board``: a shipped board by name (None: the default) or a file
      (``InputError`` if bad); ``builtin() -> list[str]``: the shipped names.
    * ``check(board) -> list[str]``: what ``map check`` prints; ``draw(board, heat=None, heat_label="",
      title=None) -> Figure``: the picture (``heat``: float per cell, NaN = none), also ``map render``'s.
    * ``heat_cells(board) -> bool array``: the cells that take heat (the rooms, tiles...; heat is drawn only there).
    * ``cell_record(ruleset, df, extras) -> dict | None``: per-room numbers of a sweep cell
      (``{"map": name or path, "visits": [...], "deaths": [...]}``, one entry per cell of the board).
    * ``load(name_or_path, rules, sets, **options) -> board``: the board as ``run`` takes it under that ruleset
      (rules file and ``--set``s; None: the shipped rules; ``options``: the game's options of ``map``, e.g. a
      campaign), refused with the same line as ``run``; ``map check`` uses it (None: ``resolve``).
    """

    resolve: Callable[[str | None], Any]
    builtin: Callable[[], list[str]]
    check: Callable[[Any], list[str]]
    draw: Callable[..., Any]
    heat_cells: Callable[[Any], np.ndarray]
    cell_record: Callable[[Any, Any, dict[str, np.ndarray]], dict[str, Any] | None]
    noun: str = "map"
    load: Callable[[str, str | None, list[str] | None], Any] | None = None


def board_file_read(key: str, named: Any, read: str | Path, shipped: Any) -> dict[str, str]:
    """``{key: named}`` when the ruleset key ``key`` names a board file of the user's (``named``: its value; not one
    of the ``shipped`` boards' names) that is the board the ruleset read (``read``: its path; a ``--map`` given reads
    another), else ``{}``: a game's ``GameSpec.files_read``."""
    if not isinstance(named, str) or not named or named in shipped:
        return {}
    try:
        same = Path(named).is_file() and Path(named).resolve() == Path(read).resolve()
    except OSError:
        return {}
    return {key: named} if same else {}


def deaths_per_cell(df: Any, n: int) -> list[int]:
    """First deaths per cell of a board (``Board.cell_record``'s ``deaths``): the per-game column ``death_cell``
    (-1: no death) of a table or a dict of its columns, counted over cells 0..n-1."""
    cells = np.asarray(df["death_cell"]).astype(np.int64)
    return np.bincount(cells[cells >= 0], minlength=n)[:n].tolist()


@dataclass(frozen=True)
class GameOption:
    """An option of a command that only some games take (``--hearts`` of ``odds``, say).

    ``commands``: the commands taking it: ``"odds"`` (its value is a keyword argument of ``spec.odds``),
    ``"run"`` (a keyword argument of ``spec.load_ruleset``) or ``"map"`` (of ``board.load``: ``map check`` and
    ``map render``). Given to a game that does not declare
    it, the command line refuses it in one line.
    ``minimum`` .. ``maximum``: the documented range of a number (both required for ``int`` and ``float``
    options: a value has a range so that no option can ask for minutes of work or wrap around).
    """

    name: str
    commands: tuple[str, ...]
    help: str
    type: type = int
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None

    def __post_init__(self) -> None:
        if self.type in (int, float) and (self.minimum is None or self.maximum is None):
            raise ValueError(f"game option {self.name!r}: a number option declares its minimum and maximum")

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def range_text(self) -> str:
        return "" if self.minimum is None else f"{self.minimum:g} and {self.maximum:g}"

    def parse(self, text: str) -> Any:
        what = {int: "a whole number", float: "a number"}.get(self.type, f"a {self.type.__name__}")
        if not text.strip():  # (``--campaign ""`` ran the base game and recorded an empty campaign)
            raise InputError("is empty: give a value", self.flag)
        try:
            v = self.type(text.strip())
        except (ValueError, OverflowError):
            raise InputError(f"takes {what}, not {text!r}", self.flag) from None
        if self.type is float and not math.isfinite(v):
            raise InputError(f"takes {what}, not {text!r}", self.flag)
        if self.minimum is not None and not self.minimum <= v <= self.maximum:
            raise InputError(f"must be between {self.range_text}, not {text.strip()}", self.flag)
        return v


@dataclass
class GameSpec:
    """What a game gives the runner (shared code never names a game: it asks the spec).

    * ``load_ruleset(rules_path | None, overrides, map_path | None) -> ruleset`` validates the
      inputs (raising ``InputError``) and returns the game's ruleset object (opaque here).
    * ``simulate(ruleset, hero, policy, seed, start, count) -> dict[str, np.ndarray]``: one row per
      game, games ``start .. start+count-1`` of the stream ``seed``: the columns ``outputs`` declares
      (kernel and driver columns; derived ones are added by ``runner.play_games``), and run-level
      extras under names starting with ``_`` (e.g. ``_visits``).
    * ``replay(ruleset, hero, policy, seed, game) -> list[str]``: one game's play report; its first line names
      the game, seed, hero and policy (the CLI inserts the overrides and the command after it).
    * ``summarize(df, ruleset=None, conf=0.95) -> dict``: the game's own summary entries (declared in
      ``outputs.summary_keys``; any interval at level ``conf``, the run's ``--conf``), the same signature for every
      game.
    * ``summarize_hists(hists, n, ruleset=None, conf=0.95) -> dict``, or None: the same entries as ``summarize``,
      number for number, from the exact histograms of the columns a summary reads (``Outputs.histograms``: the
      summarised ones, those declared ``histogram`` and the joint ones of ``Outputs.joint``) over ``n`` games. A game
      that has it needs no per-game rows for its own entries: a streamed run of any size keeps them (without it they
      come from the rows kept up to ``FOURY_SIM_KEEP_ROWS_MB``). Every shipped game has it.
    * ``outputs``: the per-game columns and summary entries (``foury_sim.outputs.Outputs``).
    * ``odds(ruleset, trials=, seed=, conf=, **options) -> oddstable.OddsTable``: exact odds beside measured ones
      (title, table, what each column means, the compared columns; ``foury-sim odds`` adds z and the verdict;
      ``conf``: ``odds --conf``, the level of any interval the table prints).
    * ``board``: the game's board (``map`` verbs, heat maps), or None; ``options``: options of
      commands only this game takes.
    * ``variant_title(ruleset) -> str``, or None: the title of the variant a ruleset plays, in place of
      ``title`` ("" for the game itself; Dungeon Foury's campaigns); ``title_of`` gives the one that applies.
    * ``no_win(ruleset) -> str``, or None: why the variant a ruleset plays has no victory ("" when it has one;
      Dungeon Foury's Slaughter of Monsters): its run summary says so in place of a win rate of 0, ``compare``
      leaves the win rate out of its outcomes (``Comparison.no_win``), and a sweep's cells say so (the ``no_win``
      column of cells.csv; the printed table and the report: "none (no victory)", not ranked or drawn by win rate).
    * ``warm(ruleset)``, or None: compiles the game's other entry points (say, fights played outside the engine by
      its tests and tools); ``foury-sim warm`` calls it after ``simulate``, ``replay`` and ``odds``.
    * ``check_policy(policy)``, or None: the game's own check of a policy's parameters beyond their ranges
      (``PolicySpec.ranges``), raising ``InputError`` at ``--param``; ``policy`` makes every policy a command plays
      through it (Dungeon Foury: a ``round_order`` names sectors).
    * ``files_read(ruleset) -> {key: path}``, or None: the user's files a ruleset read that no option names, by the
      ruleset key that named them (a board file named as ``game.map`` in a rules or campaign file, or by ``--set``;
      ``board_file_read``): a run's record keeps their sha256 beside the rules file's (``provenance.run_record``'s
      ``read_files``), a study's among its ``input_files``. Shipped files are left out (the version and commit
      name them).
    * ``flags``: the on/off parameters of the game's built-in policies (``PolicySpec.params``; their range 0 .. 1):
      ``policy`` takes 0 or 1 only for them (``inputs.check_flags``), wherever the parameters come from
      (``--param``, a sweep's or a comparison's settings, a ladder's rung).
    * ``kernel_batch``: the most games of one kernel call of a local run (``runner.chunk_size``), or None for
      ``runner.KERNEL_BATCH``: a game whose kernel plays far faster than the others takes bigger calls, so that each
      call's fixed costs (the tail where one thread waits for the other, the chunk's tables) stay small.
    """

    name: str
    title: str
    load_ruleset: Callable[..., Any]
    heroes: Callable[[Any], list[str]]
    policies: dict[str, PolicySpec]
    default_policy: str
    default_hero: str
    simulate: Callable[..., dict[str, np.ndarray]]
    replay: Callable[..., list[str]]
    summarize: Callable[..., dict[str, Any]]
    outputs: Outputs
    odds: Callable[..., Any] | None = None
    board: Board | None = None
    options: tuple[GameOption, ...] = ()
    warm: Callable[[Any], None] | None = None
    variant_title: Callable[[Any], str] | None = None
    no_win: Callable[[Any], str] | None = None
    kernel_batch: int | None = None
    summarize_hists: Callable[..., dict[str, Any]] | None = None
    check_policy: Callable[[Policy], None] | None = None
    flags: frozenset[str] = frozenset()
    files_read: Callable[[Any], dict[str, str]] | None = None

    def read_files(self, ruleset: Any) -> dict[str, str]:
        """``files_read(ruleset)``, or ``{}`` for a game without the hook or no ruleset."""
        return self.files_read(ruleset) if self.files_read is not None and ruleset is not None else {}

    def title_of(self, ruleset: Any) -> str:
        """The title of what ``ruleset`` plays: its variant's (a campaign) when it is one, else the game's."""
        variant = self.variant_title(ruleset) if self.variant_title is not None else ""
        return variant or self.title

    @property
    def mean_columns(self) -> tuple[str, ...]:
        """The per-game columns summarised as means (declared in ``outputs``)."""
        return self.outputs.mean_columns

    @property
    def own_entries_need_rows(self) -> bool:
        """Whether the game's own summary entries are computed from per-game rows (no ``summarize_hists``)."""
        return self.summarize_hists is None

    @property
    def batch(self) -> int:
        """The most games of one kernel call (``kernel_batch``, default ``runner.KERNEL_BATCH``)."""
        from .runner import KERNEL_BATCH

        return self.kernel_batch or KERNEL_BATCH

    def policy(self, name: str | None, params: str | None = None) -> Policy:
        """``--policy NAME`` (None: the game's default) with ``--param`` text as a Policy (``policy.make_policy``),
        a built-in's switches 0 or 1 (``flags``) and its parameters checked by the game's own rule (``check_policy``)
        before anything is played."""
        pol = make_policy(self.default_policy if name is None else name, self.policies, params)
        if pol.name in self.policies:
            check_flags(pol, self.flags)
        if self.check_policy is not None:
            self.check_policy(pol)
        return pol

    def check_hero(self, ruleset: Any, hero: str) -> str:
        heroes = self.heroes(ruleset)
        if hero not in heroes:
            raise InputError(f"unknown hero {hero!r} for {self.name} ({did_you_mean(hero, heroes)}known: "
                             f"{', '.join(heroes)})", "--hero")
        return hero

    def options_of(self, command: str) -> dict[str, GameOption]:
        """``{flag: option}`` of the game's options of ``command``."""
        return {o.flag: o for o in self.options if command in o.commands}

    def check_map(self, map_path: str | None) -> None:
        """A ``--map`` for a game without a board is refused in one line."""
        if map_path is not None and self.board is None:
            raise InputError(f"{self.name} has no board: --map does not apply", "--map")
        check_map_name(map_path, "--map")


_GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> GameSpec:
    spec.load_ruleset = _hint_policy_parameters(spec, spec.load_ruleset)
    _GAMES[spec.name] = spec
    return spec


def _hint_policy_parameters(spec: GameSpec, load: Callable[..., Any]) -> Callable[..., Any]:
    """``load_ruleset`` whose "unknown ruleset key" error says so when the key is a parameter of one of the game's
    built-in policies (``--set round_order=...`` meant ``--param round_order=...``)."""
    import functools
    import re

    params = {k for p in spec.policies.values() for k in p.params}

    @functools.wraps(load)
    def load_ruleset(*args: Any, **kwargs: Any) -> Any:
        try:
            return load(*args, **kwargs)
        except InputError as e:
            m = re.fullmatch(r"unknown ruleset key '([^']+)'", e.message)
            if m is None or m[1] not in params:
                raise
            raise InputError(f"{e.message} (it is a policy parameter: --param {m[1]}=...)", e.where) from None

    return load_ruleset


#: Game packages shipped with foury-sim; importing one registers it. The registry is the one shared module
#: that names games: everything else asks a GameSpec.
BUILTIN_GAMES = ("foury", "delve", "tactics", "rooms")
#: The game a command means when it names none (``foury-sim run``, an experiment file without ``game``).
DEFAULT_GAME = BUILTIN_GAMES[0]


_loaded = False


def _load_builtin_games() -> None:
    """Import every shipped game package once (importing one game alone registers only that one)."""
    global _loaded
    if _loaded:
        return
    import importlib

    for name in BUILTIN_GAMES:
        importlib.import_module(f"foury_sim.games.{name}")
    _loaded = True


def get_game(name: str) -> GameSpec:
    """The registered game called ``name`` (a shipped game is imported alone: a command about one game does not
    import the others' engines)."""
    if name not in _GAMES and name in BUILTIN_GAMES:
        import importlib

        importlib.import_module(f"foury_sim.games.{name}")
    if name not in _GAMES:
        _load_builtin_games()
    if name not in _GAMES:
        raise InputError(f"unknown game {name!r} (known: {', '.join(sorted(_GAMES))})", "GAME")
    return _GAMES[name]


def games() -> list[str]:
    _load_builtin_games()
    return sorted(_GAMES)


__all__ = ["GameSpec", "Board", "GameOption", "Policy", "register", "get_game", "games", "DEFAULT_GAME",
           "board_file_read"]
