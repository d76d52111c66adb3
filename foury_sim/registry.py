"""Games as data plus a registry: each game module describes itself and registers a GameSpec.

The runner, CLI and studies only speak to this interface, so a new game plugs in by
registering one more spec.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InputError
from .policy import Policy, PolicySpec


@dataclass
class GameSpec:
    """What a game gives the runner.

    * ``load_ruleset(rules_path | None, overrides, map_path | None) -> ruleset`` validates the
      inputs (raising ``InputError``) and returns the game's ruleset object (opaque here; it must
      have ``.describe() -> dict`` for manifests).
    * ``simulate(ruleset, hero, policy, seed, start, count) -> dict[str, np.ndarray]``: one row per
      game, games ``start .. start+count-1`` of the stream ``seed``. Columns must include
      ``game`` and ``win`` (0/1); the runner adds nothing game-specific.
    * ``replay(ruleset, hero, policy, seed, game) -> list[str]``: one game's play report.
    * ``summarize(df) -> dict``: game-specific parts of a run summary (death causes, ...).
    * ``odds(ruleset, **kw) -> pandas.DataFrame``: exact odds beside measured ones.
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
    odds: Callable[..., Any] | None = None
    #: numeric per-game columns the generic summary reports as means with intervals
    mean_columns: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def check_hero(self, ruleset: Any, hero: str) -> str:
        heroes = self.heroes(ruleset)
        if hero not in heroes:
            raise InputError(f"unknown hero {hero!r} for {self.name} (known: {', '.join(heroes)})", "--hero")
        return hero


_GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> GameSpec:
    _GAMES[spec.name] = spec
    return spec


#: Game packages shipped with foury-sim; importing one registers it.
BUILTIN_GAMES = ("foury", "delve")


def _load_builtin_games() -> None:
    import importlib

    for name in BUILTIN_GAMES:
        importlib.import_module(f"foury_sim.games.{name}")


def get_game(name: str) -> GameSpec:
    """The registered game called ``name``."""
    if not _GAMES:
        _load_builtin_games()
    if name not in _GAMES:
        raise InputError(f"unknown game {name!r} (known: {', '.join(sorted(_GAMES))})", "GAME")
    return _GAMES[name]


def games() -> list[str]:
    if not _GAMES:
        _load_builtin_games()
    return sorted(_GAMES)


__all__ = ["GameSpec", "Policy", "register", "get_game", "games"]
