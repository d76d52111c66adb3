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
Python file is compiled with this signature and passed to the same kernel as a first-class function,
so the kernel is compiled once and cached for every policy.

What a game does differently for a policy (compute an odds table for it, show it every option) keys
on its declared ``TRAITS``, never on its id: built-ins list them in their ``PolicySpec``; a user's
file declares them with ``POLICY_TRAITS = ("needs_odds",)`` (for every policy in the file).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit, types

from .config import CACHE
from .errors import InputError

POLICY_SIG = types.int64(types.int64, types.int64[:], types.int64[:, :], types.int64, types.float64[:])
POLICY_TYPE = types.FunctionType(POLICY_SIG)

#: Policy id that routes decisions to the user's function instead of a built-in.
USER_POLICY_ID = 99

#: Traits a policy may declare; each game reads the ones it knows.
TRAITS = {
    "needs_odds": "the game computes its exact-odds advice for this policy (a little time per ruleset and hero)",
    "full_menu": "menus list every legal option, not only the kernel's best ones (every user policy has it)",
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


def check_answers(n_bad: int, policy: Policy) -> None:
    """Every game's rule for out-of-range answers (the kernels count them and take option 0): an error."""
    if n_bad:
        raise InputError(f"policy {policy.name!r} returned an option index out of range {n_bad} times", "--policy")


@njit(POLICY_SIG, cache=CACHE)
def no_user_policy(kind, state, options, n_options, params):
    """Placeholder passed when a built-in policy is used (never called)."""
    return 0


@dataclass(frozen=True)
class PolicySpec:
    """A built-in policy: its id inside the kernels and its named parameters with defaults."""

    name: str
    policy_id: int
    description: str
    params: dict[str, float] = field(default_factory=dict)
    traits: frozenset[str] = frozenset()  # see TRAITS

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

    def describe(self) -> str:
        pars = ", ".join(f"{k}={v:g}" for k, v in zip(self.param_names, self.params))
        return f"{self.name}({pars})" if pars else self.name


def parse_params(text: str | None, defaults: dict[str, float], where: str = "--param") -> dict[str, float]:
    """Parse ``"a=1,b=2.5"`` into a dict, checking names against ``defaults``."""
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
            known = ", ".join(defaults) or "none"
            raise InputError(f"unknown policy parameter {k!r} (known: {known})", where)
        try:
            out[k] = float(v)
        except ValueError:
            raise InputError(f"policy parameter {k}={v!r} is not a number", where) from None
    return out


def load_user_policy(spec: str) -> Callable:
    """Load ``path/to/file.py:function`` and compile it with the policy signature."""
    if ":" not in spec:
        raise InputError(f"policy {spec!r}: a user policy is FILE.py:FUNCTION", "--policy")
    path_s, name = spec.rsplit(":", 1)
    path = Path(path_s)
    if not path.is_file():
        raise InputError(f"policy file {path_s!r} does not exist", "--policy")
    mod_name = f"foury_sim_user_policy_{abs(hash(path.resolve()))}"
    try:
        spec_ = importlib.util.spec_from_file_location(mod_name, path)
        assert spec_ is not None and spec_.loader is not None
        mod = importlib.util.module_from_spec(spec_)
        sys.modules[mod_name] = mod
        spec_.loader.exec_module(mod)
    except SyntaxError as e:
        raise InputError(f"syntax error in policy file: {e.msg}", f"{path_s}:{e.lineno}") from None
    except Exception as e:  # the user's module failed at import: report it in one line
        raise InputError(f"policy file failed to import: {type(e).__name__}: {e}", path_s) from None
    fn = getattr(mod, name, None)
    if fn is None:
        raise InputError(f"policy file has no function {name!r}", path_s)
    py = getattr(fn, "py_func", fn)
    if not callable(py):
        raise InputError(f"{name!r} is not a function", path_s)
    try:
        return njit(POLICY_SIG)(py)
    except Exception as e:
        raise InputError(f"policy {name!r} does not compile with numba: {str(e).splitlines()[0]}", path_s) from None


def user_globals(fn: Callable) -> dict:
    """The module globals of a user's policy function (where its file declares things)."""
    return getattr(getattr(fn, "py_func", fn), "__globals__", {})


def user_traits(fn: Callable, where: str = "--policy") -> frozenset[str]:
    """The traits a user's policy file declares (``POLICY_TRAITS = ("needs_odds",)``)."""
    return check_traits(user_globals(fn).get("POLICY_TRAITS", ()), where)


def make_policy(spec: str, builtins: dict[str, PolicySpec], param_text: str | None = None) -> Policy:
    """Resolve ``--policy`` (a built-in name or FILE.py:FUNCTION) and ``--param`` into a Policy."""
    if spec in builtins:
        b = builtins[spec]
        vals = parse_params(param_text, b.params)
        return Policy(spec, b.policy_id, np.array(list(vals.values()), dtype=np.float64), tuple(vals), traits=b.traits)
    if spec.endswith(".py") or ".py:" in spec:
        fn = load_user_policy(spec)
        vals: dict[str, float] = {}
        if param_text:
            for i, item in enumerate(param_text.split(",")):
                k, _, v = item.partition("=")
                try:
                    vals[k.strip() or f"p{i}"] = float(v)
                except ValueError:
                    raise InputError(f"policy parameter {item!r} is not NAME=NUMBER", "--param") from None
        return Policy(spec, USER_POLICY_ID, np.array(list(vals.values()), dtype=np.float64), tuple(vals), fn,
                      USER_TRAITS | user_traits(fn, spec))
    known = ", ".join(builtins)
    raise InputError(f"unknown policy {spec!r} (built-in: {known}; or FILE.py:FUNCTION)", "--policy")
