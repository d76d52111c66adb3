"""Checks of command-line and library inputs shared by every verb: one rule per kind of value, so every
verb refuses the same bad value with the same line before anything is simulated.

The limits (README, "Limits"):

* seeds and game indices: whole numbers 0 .. 2**63-1 (the dice streams key on (seed, game index));
* ``--games`` where every game's row is kept (``ladder --games``, ``tune --max-games``, a library run with
  ``keep_rows``): 1 .. ``GAMES_MAX``, and no more than the machine's memory holds (``GAME_BYTES`` bytes per game
  and output column, checked before anything is allocated); ``run`` and ``compare`` stream
  (``runner.check_streamed_games``), and a study file's games have its verb's own limits (README, "Exit codes and
  limits");
* ``--trials``: 1 .. ``TRIALS_MAX``; ``--threads``: 1 .. the cores numba sees; ``--conf``: 0.5 <= conf < 1;
* names (``--hero``, ``--policy``) may be left out (the game's default) but never given empty; nor may policy
  parameters (``--param``, ``--dm-param``), nor any item of their comma list; a built-in policy's on/off
  parameters take 0 or 1 (``check_flags``);
* output folders (``--out``) are an existing writable folder, or a new one inside an existing writable folder;
  output files (``map render -o``) likewise, with the suffix their format needs.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import InputError

#: Master seeds are unsigned 63-bit integers (the dice streams key on (seed, game index)).
SEED_MAX = 2**63 - 1
#: Game indices (``replay --game``, first game + games of a run) share the seeds' range.
INDEX_MAX = 2**63 - 1
#: Most games of one run that keeps every game's row (``check_games``; streamed runs: ``runner.check_streamed_games``).
GAMES_MAX = 100_000_000
#: Peak bytes a run holds per game and per output column (kernel table, data frame, derived columns, the
#: sorted copies of the summary's quantiles): measured ~16 (a 1M-game run of 26 columns peaked 330 MB above a
#: 200k-game one), doubled for ``--out`` and safety; ``--games`` beyond the machine's memory is refused.
GAME_BYTES = 32
#: Most engine trials per row of an odds table (each row plays its trials in one kernel call).
TRIALS_MAX = 10_000_000


def check_seed(seed: int, where: str = "--seed") -> int:
    """``seed`` if it is a whole number in 0 .. 2**63-1, else an ``InputError`` naming ``where``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise InputError(f"must be a whole number between 0 and 2**63-1, not {seed!r}", where)
    return seed


def check_int(value: int, where: str, lo: int, hi: int) -> int:
    """``value`` if it is a whole number in ``lo .. hi``, else an ``InputError`` naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InputError(f"must be a whole number between {lo:,} and {hi:,}, not {value!r}", where)
    return value


def memory_bytes() -> int | None:
    """The machine's physical memory in bytes (None if the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_games(games: int, where: str = "--games", columns: int = 32, start: int = 0) -> int:
    """A number of games one run can hold: 1 .. ``GAMES_MAX``, within the machine's memory at ``GAME_BYTES``
    per game and output column (``columns``: the game's declared columns), and ``start + games`` within the
    game indices."""
    check_int(games, where, 1, GAMES_MAX)
    if start + games - 1 > INDEX_MAX:
        raise InputError(f"the last game index {start + games - 1} is beyond 2**63-1", where)
    mem = memory_bytes()
    need = games * max(columns, 1) * GAME_BYTES
    if mem is not None and need > mem:
        most = mem // (max(columns, 1) * GAME_BYTES)
        raise InputError(f"{games:,} games need about {need / 2**30:.1f} GiB, more than this machine's "
                         f"{mem / 2**30:.1f} GiB: at most {most:,} games at once (run several seeds instead)", where)
    return games


def check_trials(trials: int, where: str = "--trials") -> int:
    return check_int(trials, where, 1, TRIALS_MAX)


def check_game_index(index: int, where: str = "--game") -> int:
    return check_int(index, where, 0, INDEX_MAX)


def check_threads(threads: int | None, where: str = "--threads") -> int | None:
    """None (all cores) or 1 .. the threads numba can use."""
    if threads is None:
        return None
    import numba

    top = numba.config.NUMBA_NUM_THREADS
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= top:
        raise InputError(f"must be between 1 and {top}, not {threads}", where)
    return threads


def check_conf(conf: float, where: str = "--conf") -> float:
    """A confidence level: a finite number with 0.5 <= conf < 1."""
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not math.isfinite(conf) \
            or not 0.5 <= conf < 1.0:
        raise InputError(f"must be between 0.5 and 1, not {conf}", where)
    return float(conf)


def check_format(fmt: str, where: str = "--format") -> str:
    if fmt not in ("text", "json"):
        raise InputError(f"must be text or json, not {fmt!r}", where)
    return fmt


def check_name(name: str | None, where: str) -> str | None:
    """A name the user may leave out (None: the default) but not give empty: ``--hero ""`` is refused, it
    never means "the default"."""
    if name is not None and not name.strip():
        raise InputError("is empty (leave the option out for the default)", where)
    return name


def check_map_name(name: str | None, where: str) -> str | None:
    """A map given as a name or a file (``--map``, ``map check``/``render``'s MAP): never ``""`` (it was read as the
    folder ``.``). None: not given."""
    if name is not None and not str(name).strip():
        hint = " (leave --map out for the base map)" if where == "--map" else ""
        raise InputError(f"is empty: give a map file or a shipped map's name{hint}", where)
    return name


def check_param_text(text: str | None, where: str = "--param") -> str | None:
    """Policy parameters as given (``--param``, ``--dm-param``): None (the policy's own), else NAME=VALUE items
    separated by single commas, none of them empty. ``--param ,,,`` (or ``a=1,,b=2``, ``a=1,``) was read as its
    non-empty items in silence; ``--param ""`` as the defaults. A name given twice is refused (the last one won).
    The items themselves are the policy's to check (``policy.parse_params``)."""
    if text is None:
        return None
    if not text.strip():
        raise InputError("is empty (leave the option out for the policy's own parameters)", where)
    if any(not item.strip() for item in text.split(",")):
        raise InputError(f"{text!r} has an empty item: give NAME=VALUE items separated by single commas", where)
    seen: dict[str, str] = {}
    for item in text.split(","):  # (the last one won in silence, where --set refuses a key given twice)
        name, _, value = (s.strip() for s in item.partition("="))
        if name in seen:
            raise InputError(f"{name} is given twice ({seen[name]} and {value}): give it once", where)
        seen[name] = value
    return text


def check_flags(policy: Any, flags: Iterable[str], where: str = "--param") -> None:
    """A built-in policy's on/off parameters (``flags``: a game's ``GameSpec.flags``) take 0 or 1 only: their range,
    0 .. 1, let 0.5 through, and the policy played it as one of them in silence. ``policy``: a ``policy.Policy``."""
    for name in flags:
        if name in policy.param_names:
            v = float(policy.params[policy.param_names.index(name)])
            if v not in (0.0, 1.0):
                raise InputError(f"policy parameter {name}={v:.15g} is a switch: 0 (off) or 1 (on)", where)


def not_a_file(p: Path) -> str:
    """Why ``p`` cannot be read as a file: ``does not exist``, ``is a folder, not a file``, ``is a link to nothing
    (its target does not exist, or the links loop)``, ``is not a regular file`` (a device, a pipe); "" when it is
    a file. (Every "does not exist" said so whatever the reason.)"""
    if p.is_file():
        return ""
    if p.is_dir():
        return "is a folder, not a file"
    if p.is_symlink():
        return "is a link to nothing (its target does not exist, or the links loop)"
    if os.path.lexists(p):
        return "is not a regular file (a device or a pipe?)"
    return "does not exist"


def check_input_file(path: str | Path | None, where: str) -> Path | None:
    """None, or an existing readable file."""
    if path is None:
        return None
    p = Path(path)
    if not str(path).strip():
        raise InputError("is empty: an empty path names no file or folder", where)
    why = not_a_file(p)
    if why:
        raise InputError(f"{p} {why}", where)
    if not os.access(p, os.R_OK):
        raise InputError(f"{p} is not readable", where)
    return p


def _writable_dir(d: Path) -> bool:
    return os.access(d, os.W_OK | os.X_OK)


def check_out_dir(path: str | Path | None, where: str = "--out") -> Path | None:
    """None, or a folder results can be written to: an existing writable folder, or a new one whose parent
    is an existing writable folder (created when written). Checked before anything is simulated."""
    if path is None:
        return None
    if not str(path).strip():
        raise InputError("is empty: an empty path names no file or folder", where)
    p = Path(path)
    if p.exists():
        if not p.is_dir():
            raise InputError(f"{p} is a file, not a folder", where)
        if not _writable_dir(p):
            raise InputError(f"{p} is not writable", where)
        return p
    return _check_parent(p, where)


def _check_parent(p: Path, where: str) -> Path:
    """``p`` if its folder exists and is writable (a missing folder is not created: a typo is refused)."""
    parent = p.absolute().parent
    if parent.exists() and not parent.is_dir():
        raise InputError(f"{parent} is a file, not a folder", where)
    if not parent.is_dir():
        raise InputError(f"the folder {parent} does not exist (create it first)", where)
    if not _writable_dir(parent):
        raise InputError(f"the folder {parent} is not writable", where)
    return p


def check_out_file(path: str | Path, where: str, suffix: str) -> Path:
    """A file to write: with ``suffix``, not a folder, in an existing writable folder (not created: a typo in
    the folder's name is refused, not silently made)."""
    p = Path(path)
    if not str(path).strip():
        raise InputError("is empty: an empty path names no file or folder", where)
    if p.suffix.lower() != suffix:
        raise InputError(f"{p} must end in {suffix} (the file written is {suffix[1:].upper()})", where)
    if p.is_dir():
        raise InputError(f"{p} is a folder", where)
    if p.exists() and not os.access(p, os.W_OK):
        raise InputError(f"{p} is not writable", where)
    return _check_parent(p, where)
