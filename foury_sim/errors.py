"""The one exception type for bad input: the CLI prints it as a single line and exits 2."""

from __future__ import annotations

import contextlib


class InputError(ValueError):
    """Bad input from a user file or option.

    ``where`` names the place (``file:line`` or ``file:line:column`` or ``--option``).
    """

    def __init__(self, message: str, where: str | None = None):
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


def did_you_mean(name: object, known: object) -> str:
    """``"did you mean 'x'? "`` for the known name nearest to a misspelt ``name`` (``rulesfile.close_match``), else
    ``""``: the start of an unknown name's bracket, ``unknown hero 'elydoin' (did you mean 'elydion'? known: ...)``."""
    from .rulesfile import close_match  # (here: rulesfile imports this module)

    close = close_match(str(name), list(known))  # type: ignore[call-overload]
    return f"did you mean {close!r}? " if close is not None else ""


class Interrupted(Exception):
    """The user interrupted long work (Ctrl-C); ``message`` says what was kept and how to resume.
    ``same_command``: the command as typed goes on from what was kept (the CLI prints it after the message).

    The CLI prints it as one line and exits 130."""

    def __init__(self, message: str, same_command: bool = False):
        self.message = message
        self.same_command = same_command
        super().__init__(message)


@contextlib.contextmanager
def policy_given_at(where: str, prefix: str = ""):
    """A user policy's fault while playing (``runner``'s one line at ``--policy``, a DM policy file's at ``--dm``)
    named where this command took the policy (``--fixed``, an experiment file's line: ``--policy`` and ``--dm`` were
    never given); ``prefix`` leads the message."""
    try:
        yield
    except InputError as e:
        if e.where not in ("--policy", "--fixed", "--dm", "--dm-param"):
            raise
        raise InputError(prefix + e.message, where) from None
