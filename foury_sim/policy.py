"""Player policies: the narrow interface every choice the rules leave to the player goes through.

A policy is one function ``decide(kind, state, options, n_options, params) -> int``:

* ``kind``: which decision (each game lists its decision kinds, e.g. ``D_MOVE``);
* ``state``: the game's state vector (int64[:]); the game documents what each index holds;
* ``options``: int64[:, :], one row per legal option (first ``n_options`` rows are valid),
  columns documented per decision kind;
* ``params``: float64[:], the policy's named parameters in order.

It returns the index of the chosen option (0 <= i < n_options). Every game's kernel applies the same
rule to an answer outside ``0 .. n_options-1``: it is counted and option 0 is taken; the game's Python
wrapper then calls ``check_answers``, which makes any such answer an error. Built-in policies are
selected by an integer id inside the kernels (a cheap switch, cached on disk); a user's policy from a
Python file (``userpolicy``) is compiled with bounds checks, wrapped in a guard that gives it copies of
the arrays and records its faults, and passed to the same kernel as a first-class function, so the
kernel is compiled once and cached for every policy.

What a game does differently for a policy (compute an odds table for it, show it every option) keys
on its declared ``TRAITS``, never on its id: built-ins list them in their ``PolicySpec``; a user's
file declares them with ``POLICY_TRAITS = ("needs_odds",)`` (for every policy in the file).
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import types
from numba.core.types.function_type import WrapperAddressProtocol
from numba.experimental import function_type as _function_type  # noqa: F401 (numba's typeof of WrapperAddressProtocol)

from . import notices  # noqa: F401 (its import installs the compile listener: every compile here is said)
from .config import JIT_DISABLED
from .errors import InputError, did_you_mean

POLICY_SIG = types.int64(types.int64, types.int64[:], types.int64[:, :], types.int64, types.float64[:])
POLICY_TYPE = types.FunctionType(POLICY_SIG)

#: Policy id that routes decisions to the user's function instead of a built-in.
USER_POLICY_ID = 99

#: Traits a policy may declare; each game reads the ones it knows.
TRAITS = {
    "needs_odds": "the game computes its exact-odds advice for this policy (a little time per ruleset and hero)",
    "needs_dp": "the game computes its dynamic-programming (optimal policy) advice for this policy (seconds per "
                "ruleset and hero)",
    "full_menu": "menus list every legal option, not only the kernel's best ones (every user policy has it)",
    "slow": "a game costs the time of many (rollouts): a run plays it in small chunks, so that its progress moves "
            "(``runner.chunk_size``)",
}
#: Traits every user policy has, whatever its file declares.
USER_TRAITS = frozenset({"full_menu"})


def check_traits(traits, where: str) -> frozenset[str]:
    """``traits`` as a frozenset, each one a known trait (``TRAITS``)."""
    if isinstance(traits, str) or not all(isinstance(t, str) for t in traits):
        raise InputError(f"policy traits must be a list of names (known: {', '.join(TRAITS)})", where)
    unknown = [t for t in traits if t not in TRAITS]
    if unknown:
        raise InputError(f"unknown policy trait {unknown[0]!r} (known: {', '.join(TRAITS)})", where)
    return frozenset(traits)


def check_answers(n_bad: int, policy: Policy, kind_names: tuple[str, ...] | None = None) -> None:
    """Every game's rule for a policy's faults, an error in one line: the kernels count answers outside
    ``0 .. n_options-1`` (and take option 0); a user policy's guard also records reads outside its
    arrays, reads past its parameters and exceptions, with the decision kind where each first happened
    (``userpolicy.check_errors``, which clears the record)."""
    if policy.errors is not None:
        from .userpolicy import check_errors

        check_errors(policy, kind_names)
    if n_bad:
        raise InputError(f"policy {policy.name!r} returned an option index out of range {n_bad} times", "--policy")


def no_user_policy(kind, state, options, n_options, params):
    """Placeholder passed when a built-in policy is used (never called: a kernel calls its policy function only
    for ``USER_POLICY_ID``). Under ``NUMBA_DISABLE_JIT`` it is passed as it is; jitted, as ``PLACEHOLDER``."""
    return 0


class _NoUserPolicy(WrapperAddressProtocol):
    """``no_user_policy`` as a first-class function of ``POLICY_SIG`` without compiling anything: numba's
    wrapper-address protocol hands a kernel the address of a native function that takes no argument and returns
    0 (a ctypes callback; the C calling convention lets a callee ignore the arguments its caller passes). So a
    first run that loads every kernel from the shipped code compiles nothing, and nothing is written next to the
    sources (a ``cache=True`` placeholder was compiled at a game's first run, into ``foury_sim/__pycache__``)."""

    _fn = None  # the ctypes callback, made when a kernel is first passed the placeholder (kept alive here)

    def __wrapper_address__(self) -> int:
        if self._fn is None:
            self._fn = ctypes.CFUNCTYPE(ctypes.c_int64)(lambda: 0)
        return ctypes.cast(self._fn, ctypes.c_void_p).value

    def signature(self):
        return POLICY_SIG


#: What a kernel is passed for a built-in policy (``Policy.kernel_fn``).
PLACEHOLDER = no_user_policy if JIT_DISABLED else _NoUserPolicy()


def placeholder() -> Callable | WrapperAddressProtocol:
    """What a kernel is passed when no user policy is used: ``PLACEHOLDER`` (not callable from Python when jitted)."""
    return PLACEHOLDER


@dataclass(frozen=True)
class PolicySpec:
    """A built-in policy: its id inside the kernels and its named parameters with defaults."""

    name: str
    policy_id: int
    description: str
    params: dict[str, float] = field(default_factory=dict)
    traits: frozenset[str] = frozenset()  # see TRAITS
    #: Valid range (low, high) of each parameter, checked by ``parse_params`` (``--param NAME`` outside: an error).
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "traits", check_traits(self.traits, f"policy {self.name!r}"))


@dataclass
class Policy:
    """A policy ready for a kernel: id, parameter vector and (for user policies) the function."""

    name: str
    policy_id: int
    params: np.ndarray
    param_names: tuple[str, ...]
    fn: Callable = no_user_policy
    traits: frozenset[str] = frozenset()  # see TRAITS
    #: A user policy's error record (see ``check_answers``); None for built-ins.
    errors: np.ndarray | None = None
    #: Whether a user policy's file declares its parameters (``POLICY_PARAMS``).
    declared_params: bool = False

    @property
    def kernel_fn(self) -> Callable | WrapperAddressProtocol:
        """What is passed to a kernel: the user's function, or ``PLACEHOLDER`` for a built-in (never called: a policy
        with ``USER_POLICY_ID`` and no function of its own is refused, so it cannot answer option 0 in silence)."""
        if self.fn is no_user_policy:
            if self.policy_id == USER_POLICY_ID:
                raise InputError(f"policy {self.name!r} has the user policies' id ({USER_POLICY_ID}) but no function",
                                 "--policy")
            return placeholder()
        return self.fn

    def describe(self) -> str:
        pars = ", ".join(f"{k}={v:g}" for k, v in zip(self.param_names, self.params))
        return f"{self.name}({pars})" if pars else self.name


def parse_params(
    text: str | None,
    defaults: dict[str, float],
    where: str = "--param",
    ranges: dict[str, tuple[float, float]] | None = None,
) -> dict[str, float]:
    """Parse ``"a=1,b=2.5"`` into a dict, checking names against ``defaults``: every value finite and,
    for a name in ``ranges``, within its (low, high)."""
    out = dict(defaults)
    if not text:
        return out
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise InputError(f"policy parameter {item!r} is not NAME=VALUE", where)
        k, v = (s.strip() for s in item.split("=", 1))
        if k not in defaults:
            from .rulesfile import close_match  # (a misspelt name: the near one, as for a ruleset key)

            close = close_match(k, defaults)
            known = ", ".join(defaults) or "none"
            hint = f"did you mean {close!r}? " if close else ""
            raise InputError(f"unknown policy parameter {k!r} ({hint}known: {known})", where)
        out[k] = _number(k, v, where, (ranges or {}).get(k))
    return out


def _number(name: str, text: str, where: str, bounds: tuple[float, float] | None = None) -> float:
    try:
        x = float(text)
    except ValueError:
        raise InputError(f"policy parameter {name}={text!r} is not a number", where) from None
    if not math.isfinite(x):
        raise InputError(f"policy parameter {name}={text} is not a finite number", where)
    if bounds is not None and not bounds[0] <= x <= bounds[1]:
        raise InputError(f"policy parameter {name}={text} is outside its range {bounds[0]:g} .. {bounds[1]:g}", where)
    return x


def user_globals(fn: Callable) -> dict:
    """The module globals of a user's policy function (where its file declares things)."""
    from .userpolicy import loaded_globals

    g = loaded_globals(fn)
    return g if g is not None else getattr(getattr(fn, "py_func", fn), "__globals__", {})


def user_traits(fn: Callable, where: str = "--policy") -> frozenset[str]:
    """The traits a user's policy file declares (``POLICY_TRAITS = ("needs_odds",)``)."""
    return check_traits(user_globals(fn).get("POLICY_TRAITS", ()), where)


def make_policy(spec: str, builtins: dict[str, PolicySpec], param_text: str | None = None) -> Policy:
    """Resolve ``--policy`` (a built-in name or FILE.py:FUNCTION, see ``userpolicy``) and ``--param``
    into a Policy."""
    if spec in builtins:
        b = builtins[spec]
        vals = parse_params(param_text, b.params, ranges=b.ranges)
        return Policy(spec, b.policy_id, np.array(list(vals.values()), dtype=np.float64), tuple(vals), traits=b.traits)
    if spec.endswith(".py") or ".py:" in spec:
        from .userpolicy import user_policy

        return user_policy(spec, param_text)
    if not spec.strip():
        raise InputError("policy name is empty", "--policy")
    known = ", ".join(builtins)
    raise InputError(f"unknown policy {spec!r} ({did_you_mean(spec, builtins)}built-in: {known}; or FILE.py:FUNCTION)",
                     "--policy")
