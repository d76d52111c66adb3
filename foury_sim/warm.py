"""``foury-sim warm [GAME...]``: compile ahead of time what a game's ``run``, ``replay`` and ``odds`` use.

A cold compile (the first run after an install or a code change) takes a minute or more per game; ``warm``
pays it up front, for CI, a cluster's workers or a notebook's first cell. It plays through the game's own
front doors (``GameSpec.simulate`` with every built-in policy, ``GameSpec.replay``, ``GameSpec.odds``), one
game and a few trials each, so that it compiles exactly what those commands compile (the engine's entry
points, the odds and table functions a policy needs) into the on-disk cache, and nothing else. Shared code:
it names no game, it asks the registry.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

#: Engine trials of the odds table ``warm`` computes (only to compile it: the figures are thrown away).
WARM_ODDS_TRIALS = 200


@dataclass
class WarmStep:
    """One thing ``warm`` did for a game: ``what`` (``run``, ``replay``, ``odds``), its wall seconds, and of
    those the seconds spent compiling entry points (cold first calls) and loading them from the cache."""

    what: str
    seconds: float
    compile_s: float
    load_s: float
    #: of those, the seconds spent compiling other code (a game's helpers called from Python: ``notices.COMPILE_S``)
    other_s: float = 0.0


@dataclass
class WarmReport:
    """What ``warm`` did for one game: its steps and the entry points (``_ENTRIES`` names) now compiled."""

    game: str
    steps: list[WarmStep] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.steps)

    def line(self) -> str:
        """One line: ``GAME: run (4 policies) 151.2 s, replay 0.3 s, odds 2.0 s; 153.5 s in all (compiled
        149.0 s, loaded 0.0 s)``, and ``; other code compiled X s`` inside the brackets when helpers compiled."""
        parts = ", ".join(f"{s.what} {s.seconds:.1f} s" for s in self.steps)
        comp = sum(s.compile_s for s in self.steps)
        load = sum(s.load_s for s in self.steps)
        other = sum(s.other_s for s in self.steps)
        more = f"; other code compiled {other:.1f} s" if other >= 0.05 else ""
        return (f"{self.game}: {parts}; {self.seconds:.1f} s in all (compiled {comp:.1f} s, loaded {load:.1f} s"
                f"{more})")


def _step(what: str, fn, report: WarmReport) -> None:
    from . import config
    from .notices import COMPILE_S

    before, other = dict(config.FIRST_USE), COMPILE_S[0]
    t0 = time.perf_counter()
    fn()
    report.steps.append(WarmStep(what, time.perf_counter() - t0, config.FIRST_USE["compile_s"] - before["compile_s"],
                                 config.FIRST_USE["load_s"] - before["load_s"], COMPILE_S[0] - other))


def warm_game(name: str) -> WarmReport:
    """Compile (or load from the cache) everything ``run``, ``replay`` and ``odds`` of game ``name`` use."""
    from .policy import make_policy
    from .registry import get_game

    spec = get_game(name)
    rs = spec.load_ruleset(None, None, None)
    hero = spec.default_hero
    report = WarmReport(name)

    def run() -> None:
        for pname in spec.policies:
            spec.simulate(rs, hero, make_policy(pname, spec.policies), 1, 0, 1)

    _step(f"run ({len(spec.policies)} policies)", run, report)
    _step("replay", lambda: spec.replay(rs, hero, make_policy(spec.default_policy, spec.policies), 1, 0), report)
    if spec.odds is not None:
        _step("odds", lambda: spec.odds(rs, trials=WARM_ODDS_TRIALS, seed=1), report)
    if spec.warm is not None:
        _step("more", lambda: spec.warm(rs), report)
    return report


def warm(games: list[str] | None = None) -> list[WarmReport]:
    """``warm_game`` of each of ``games`` (every registered game when None or empty), in order. Unknown
    names are refused (``InputError``) before anything compiles."""
    from .registry import games as all_games
    from .registry import get_game

    names = list(games) if games else all_games()
    for n in names:
        get_game(n)
    return [warm_game(n) for n in dict.fromkeys(names)]
