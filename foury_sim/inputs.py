"""Checks of command-line and library inputs shared by every verb: one rule per kind of value, so every
verb refuses the same bad value with the same line before anything is simulated."""

from __future__ import annotations

from .errors import InputError

#: Master seeds are unsigned 63-bit integers (the dice streams key on (seed, game index)).
SEED_MAX = 2**63 - 1


def check_seed(seed: int, where: str = "--seed") -> int:
    """``seed`` if it is a whole number in 0 .. 2**63-1, else an ``InputError`` naming ``where``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise InputError(f"must be a whole number between 0 and 2**63-1, not {seed!r}", where)
    return seed
