"""How an output was made: the settings behind it, and commands that reproduce it.

One place turns a variant's settings (the ``KEY=VALUE`` of ``compare``/``sweep``: ``hero``, ``policy``,
``map``, ``rules``, ``param.NAME``, ruleset keys) into command-line arguments, so every "replay one with"
hint, header and JSON record spells them the same way and can be pasted.
"""

from __future__ import annotations

import shlex
from typing import Any

from . import __version__

#: settings that are options of their own (everything else is a ``--set`` ruleset override)
OPTION_KEYS = ("hero", "policy", "map", "rules")


def _show(v: Any) -> str:
    return ",".join(str(x) for x in v) if isinstance(v, (list, tuple)) else str(v)


def settings_args(settings: dict[str, Any]) -> list[str]:
    """``{"hero": "kael", "param.foe_avoid": 2, "round.monster_bonus": [0, 1]}`` ->
    ``["--hero", "kael", "--param", "foe_avoid=2", "--set", "round.monster_bonus=0,1"]``."""
    args: list[str] = []
    for k in OPTION_KEYS:
        if settings.get(k) not in (None, ""):
            args += [f"--{k}", _show(settings[k])]
    params = [f"{k[6:]}={_show(v)}" for k, v in settings.items() if k.startswith("param.")]
    if params:
        args += ["--param", ",".join(params)]
    for k, v in settings.items():
        if k not in OPTION_KEYS and not k.startswith("param."):
            args += ["--set", f"{k}={_show(v)}"]
    return args


def command(verb: str, game: str, args: list[str]) -> str:
    """A shell command that can be pasted: ``foury-sim VERB GAME ARGS`` with every argument quoted."""
    return " ".join(["foury-sim", verb, game] + [shlex.quote(a) for a in args])


def replay_command(game: str, seed: int, index: int, settings: dict[str, Any] | None = None) -> str:
    """The command that replays game ``index`` of the run with master ``seed`` under ``settings``."""
    return command("replay", game, ["--seed", str(seed), "--game", str(index)] + settings_args(settings or {}))


def version() -> str:
    return __version__
