"""User policies from Python files: loaded, checked, compiled with bounds checks and guarded.

The kernels call a user's ``decide(kind, state, options, n_options, params)`` through ``_guard``: it
plays on fresh copies of the three arrays (its writes never reach the game), compiled with
``boundscheck=True``; a read outside the arrays, a read past the parameters or an exception is caught
(numba does not carry exceptions out of a first-class function call into the kernel), recorded in the
policy's error record and answered with -1, which every kernel counts as an out-of-range answer; the
game's wrapper then calls ``policy.check_answers``, which turns the record into one line. Built-in
policies never go through here: their cost is unchanged.

This module is not part of the kernels' cache key (``config.KERNEL_CORE``): the guard is compiled per
policy, in every process (about a second).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib.util
import inspect
import math
import re
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import carray, njit, types
from numba.core.dispatcher import Dispatcher
from numba.extending import intrinsic

from .config import CACHE, JIT_DISABLED
from .errors import InputError
from .policy import (
    POLICY_SIG,
    POLICY_TYPE,
    TRAITS,
    USER_POLICY_ID,
    USER_TRAITS,
    Policy,
    _number,
    check_traits,
    parse_params,
)


@intrinsic
def _int64_ptr(typingctx, addr):
    """An int64 pointer from an address (the guard's error record, owned by the Policy)."""
    sig = types.CPointer(types.int64)(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(types.CPointer(types.int64)))

    return sig, codegen


#: Slots of a user policy's error record (written by its guard, read and cleared by ``check_errors``);
#: the record holds a count per slot, then the decision kind where each slot first happened (-1: never).
E_OUTSIDE, E_PARAMS, E_RAISED, E_ANSWER = 0, 1, 2, 3
N_ERR_SLOTS = 4
#: After the counts and first kinds: decisions started and decisions answered (the watchdog of
#: ``runner.in_worker`` reads them: started > answered with no change for the decision budget = stuck).
E_STARTED, E_ANSWERED = 2 * N_ERR_SLOTS, 2 * N_ERR_SLOTS + 1
ERR_SIZE = 2 * N_ERR_SLOTS + 2
_ERR_TEXT = {
    E_OUTSIDE: "indexed outside its state or options array",
    E_PARAMS: "read past its parameters",
    E_RAISED: "raised an exception (or indexed far outside its arrays)",
    E_ANSWER: "returned an option index out of range",
}


def _kind_name(kind: int, kind_names) -> str:
    if kind_names and 0 <= kind < len(kind_names):
        return f"{kind} ({kind_names[kind]})"
    return str(kind)


def clear_errors(policy: Policy) -> None:
    """Forget a user policy's recorded faults (before a run; ``check_errors`` also clears them)."""
    if policy.errors is not None:
        policy.errors[:N_ERR_SLOTS] = 0
        policy.errors[N_ERR_SLOTS:E_STARTED] = -1
        policy.errors[E_STARTED:] = 0


def decision_counts(policy: Policy) -> tuple[int, int] | None:
    """(decisions started, decisions answered) by a user policy's guard so far, or None for a built-in
    (whose decisions are not watched: they always return). Read while the kernel runs."""
    err = getattr(policy, "errors", None)
    if err is None or err.shape[0] < ERR_SIZE:
        return None
    return int(err[E_STARTED]), int(err[E_ANSWERED])


def check_errors(policy: Policy, kind_names: tuple[str, ...] | None = None, param_option: str = "--param") -> None:
    """The faults a user policy's guard recorded, as one error naming the policy (where: ``--policy``),
    the fault, how often and the decision kind where it first happened. Clears the record. ``param_option``: the
    option that gives this policy its parameters, named by a read past them (``--param``, as ``policy.check_answers``
    calls it; a game's second policy has its own option)."""
    err = policy.errors
    counts = err[:N_ERR_SLOTS].copy()
    kinds = err[N_ERR_SLOTS:E_STARTED].copy()
    clear_errors(policy)
    for slot in (E_PARAMS, E_OUTSIDE, E_RAISED, E_ANSWER):
        if counts[slot]:
            what = _ERR_TEXT[slot]
            if slot == E_PARAMS:
                declared = "POLICY_PARAMS declares" if policy.declared_params else f"{param_option} gives"
                names = ", ".join(policy.param_names) or "none"
                what += f" (its {declared} only {len(policy.params)}: {names})"
            raise InputError(
                f"policy {policy.name!r} {what} {int(counts[slot])} times, first at decision kind "
                f"{_kind_name(int(kinds[slot]), kind_names)}",
                "--policy",
            )


#: Extra entries (and option columns) the guard's second try gives each array, to tell which one a
#: failing read overran (small: it runs at every faulty decision).
_PAD = 256
_PAD_COLS = 32
_ARGTYPES = (types.int64, types.int64[:], types.int64[:, :], types.int64, types.float64[:])


def _guarded_call(user, err, kind, state, options, n_options, params):
    """The guard's body (``_guard``; compiled once for every policy, which it calls as a first-class
    function): the answer, or -1 with the fault recorded in ``err``."""
    err[E_STARTED] += 1
    slot = -1
    c = np.int64(-1)
    rows = min(max(n_options, 1), options.shape[0])  # the valid option rows (the rest is stale scratch)
    try:
        c = np.int64(user(kind, state.copy(), options[:rows].copy(), n_options, params.copy()))
    except Exception:  # noqa: BLE001  (numba matches no finer class)
        slot = E_RAISED
    if slot == E_RAISED:
        pa2 = np.zeros(params.shape[0] + _PAD)
        pa2[: params.shape[0]] = params
        try:
            user(kind, state.copy(), options[:rows].copy(), n_options, pa2)
            slot = E_PARAMS
        except Exception:  # noqa: BLE001
            st2 = np.zeros(state.shape[0] + _PAD, dtype=np.int64)
            st2[: state.shape[0]] = state
            op2 = np.zeros((rows + _PAD, options.shape[1] + _PAD_COLS), dtype=np.int64)
            op2[:rows, : options.shape[1]] = options[:rows]
            try:
                user(kind, st2, op2, n_options, pa2)
                slot = E_OUTSIDE
            except Exception:  # noqa: BLE001
                slot = E_RAISED
        c = np.int64(-1)
    elif c < 0 or c >= n_options:
        slot = E_ANSWER
    if slot >= 0:
        err[slot] += 1
        if err[N_ERR_SLOTS + slot] < 0:
            err[N_ERR_SLOTS + slot] = kind
    err[E_ANSWERED] += 1
    return c


@functools.cache
def _guarded_call_compiled():
    """``_guarded_call`` compiled for every policy (a first-class function of ``POLICY_TYPE``), on the first use
    of a user policy, not at import: its try/except takes about 10 s to compile on a 2-core machine, which a
    fresh install's first run of a built-in policy never needs (then loaded from numba's cache)."""
    return njit(types.int64(POLICY_TYPE, types.int64[::1], *_ARGTYPES), cache=CACHE)(_guarded_call)


def _guard(user, errors: np.ndarray):
    """The function the kernels call for a user policy: the policy plays on fresh copies of the state,
    options and parameters (its writes never reach the game), compiled with bounds checks; a read
    outside the arrays or an exception is caught, recorded in ``errors`` (which array: tried again on
    padded copies) and answered with -1, which every kernel counts as an out-of-range answer (option 0
    taken). The compiled guard reaches ``errors`` by its address: the Policy keeps the array alive."""
    if JIT_DISABLED:
        def guarded(kind, state, options, n_options, params):
            return _guarded_call(user, errors, kind, state, options, n_options, params)

        return guarded
    addr = errors.ctypes.data
    size = errors.shape[0]
    call = _guarded_call_compiled()

    @njit(POLICY_SIG)
    def guarded(kind, state, options, n_options, params):  # small: about half a second to compile
        err = carray(_int64_ptr(addr), (size,))
        return call(user, err, kind, state, options, n_options, params)

    return guarded


@dataclass
class UserPolicy:
    """A user's policy function, compiled and guarded: the function the kernels call, its error
    record, its module's globals and its declared parameters (``None``: it declares none)."""

    fn: Callable
    errors: np.ndarray
    module_globals: dict
    params: dict[str, float] | None
    traits: frozenset[str]


_LOADED: dict[tuple, UserPolicy] = {}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: What numba's global random generators compile to (a policy must draw from ``state``, see README).
_GLOBAL_RANDOM = ("numba_get_np_random_state", "numba_get_py_random_state", "numba_get_internal_random_state")


def _numba_message(e: Exception, path_s: str) -> tuple[str, str]:
    """A numba compile error as one line, and the place in the user's file it names (or the file)."""
    text = _ANSI.sub("", str(e))
    where = path_s
    for m in re.finditer(r'File "([^"]+)", line (\d+)', text):
        if Path(m.group(1)).name == Path(path_s).name:
            where = f"{path_s}:{m.group(2)}"
            break
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    skip = ("Failed in ", "During:", "File ", "raised from", "There are ", ">>>")
    useful = [ln for ln in lines if not ln.startswith(skip) and not ln.startswith("^")]
    return (useful[0] if useful else (lines[0] if lines else type(e).__name__)), where


def _import_user_module(path: Path, path_s: str):
    mod_name = f"foury_sim_user_policy_{abs(hash(path.resolve()))}"
    spec_ = importlib.util.spec_from_file_location(mod_name, path)
    if spec_ is None or spec_.loader is None:
        raise InputError("policy file cannot be loaded as a Python module", path_s)
    mod = importlib.util.module_from_spec(spec_)
    sys.modules[mod_name] = mod
    try:
        with contextlib.redirect_stdout(sys.stderr):  # a print() at import must not corrupt --format json
            spec_.loader.exec_module(mod)
    except KeyboardInterrupt:
        raise
    except SyntaxError as e:
        raise InputError(f"syntax error in policy file: {e.msg}", f"{path_s}:{e.lineno}") from None
    except BaseException as e:  # the user's module failed at import (also SystemExit): one line
        tb = e.__traceback__
        line = None
        while tb is not None:
            if Path(tb.tb_frame.f_code.co_filename).resolve() == path.resolve():
                line = tb.tb_lineno
            tb = tb.tb_next
        where = f"{path_s}:{line}" if line else path_s
        raise InputError(f"policy file failed to import: {type(e).__name__}: {e}", where) from None
    return mod


def _binding(path: Path, name: str) -> tuple[int, ast.expr | None] | None:
    """The line of the last statement at the top of the file (or in its if/try/with/for blocks) that binds
    ``name``, with the value it assigns (None for a def, a class or an import); None if none is found."""
    try:
        tree = ast.parse(path.read_bytes(), str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    found: tuple[int, ast.expr | None] | None = None

    def visit(stmts: list[ast.stmt]) -> None:
        nonlocal found
        for st in stmts:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if st.name == name:
                    found = (st.lineno, None)
                continue
            if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in st.targets):
                found = (st.lineno, st.value)
            elif isinstance(st, (ast.AnnAssign, ast.AugAssign)) and isinstance(st.target, ast.Name) \
                    and st.target.id == name:
                found = (st.lineno, st.value if isinstance(st, ast.AnnAssign) else None)
            elif isinstance(st, (ast.Import, ast.ImportFrom)) and any(
                    (a.asname or a.name.split(".")[0]) == name for a in st.names):
                found = (st.lineno, None)
            for block in ("body", "orelse", "finalbody"):
                inner = getattr(st, block, None)
                if isinstance(inner, list):
                    visit(inner)
            for handler in getattr(st, "handlers", ()):
                visit(handler.body)

    visit(tree.body)
    return found


def _where_bound(path: Path, path_s: str, name: str, item: object = ...) -> str:
    """``FILE:LINE`` where the file binds ``name`` (``POLICY_PARAMS = {...}``) or, given ``item``, the line of that
    key of its dict or element of its list, tuple or set when the value is written out there; ``FILE`` if neither
    is found (the name is made some other way)."""
    at = _binding(path, name)
    if at is None:
        return path_s
    line, value = at
    if item is not ...:
        if isinstance(value, ast.Dict):
            items: list[ast.expr | None] = list(value.keys)
        elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            items = list(value.elts)
        else:
            items = []
        line = next((e.lineno for e in items if isinstance(e, ast.Constant) and e.value == item), line)
    return f"{path_s}:{line}"


def _declared_params(g: dict, path: Path, path_s: str) -> dict[str, float] | None:
    """The file's ``POLICY_PARAMS`` (names to default numbers), or None; a fault at its line (the key's, when the
    dict is written out)."""
    decl = g.get("POLICY_PARAMS")
    if decl is None:
        return None
    what = "POLICY_PARAMS must be a dict of parameter names to default numbers"
    if not isinstance(decl, dict):
        raise InputError(what, _where_bound(path, path_s, "POLICY_PARAMS"))
    bad = next((k for k in decl if not (isinstance(k, str) and k.isidentifier())), None)
    if bad is not None:
        raise InputError(f"{what}: {bad!r} is not a parameter name", _where_bound(path, path_s, "POLICY_PARAMS", bad))
    out = {}
    for k, v in decl.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InputError(f"POLICY_PARAMS[{k!r}] = {v!r} is not a finite number",
                             _where_bound(path, path_s, "POLICY_PARAMS", k))
        out[k] = float(v)
    return out


def _declared_traits(g: dict, path: Path, path_s: str) -> frozenset[str]:
    """The file's ``POLICY_TRAITS`` (``policy.check_traits``) with every user policy's; a fault at its line (the
    unknown trait's, when the list is written out)."""
    traits = g.get("POLICY_TRAITS", ())
    listed = isinstance(traits, (list, tuple, set, frozenset))
    try:
        if not listed:  # (a number was iterated: a traceback)
            raise InputError(f"policy traits must be a list of names (known: {', '.join(TRAITS)})", path_s)
        return USER_TRAITS | check_traits(traits, path_s)
    except InputError as e:
        bad = next((t for t in traits if not isinstance(t, str) or t not in TRAITS), ...) if listed else ...
        raise InputError(e.message, _where_bound(path, path_s, "POLICY_TRAITS", bad)) from None


def _use_line(path: Path, function: str, used: str) -> int | None:
    """The first line of the function ``function`` of the file that reads the name ``used`` (a global numba could
    not find: its error names no line)."""
    try:
        tree = ast.parse(path.read_bytes(), str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            lines = [n.lineno for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == used
                     and isinstance(n.ctx, ast.Load)]
            return min(lines) if lines else None
    return None


class _SigintWatch:
    """Whether a Ctrl-C (SIGINT) came while the block ran, even one whose ``KeyboardInterrupt`` never got out.

    numba compiles through llvmlite, which calls back into Python through ctypes; a ``KeyboardInterrupt``
    raised in such a callback is printed ("Exception ignored on calling ctypes callback function") and
    swallowed, and numba then fails with an unrelated error ("no compiled object yet"). Inside the block the
    SIGINT handler first records the signal, then does what the handler it replaced does (Python's default
    raises ``KeyboardInterrupt``); afterwards the old handler is back. Only the main thread can install a
    handler, and only a Python handler is wrapped: elsewhere (another thread, SIGINT ignored or left to the
    system) nothing is watched and ``seen`` stays False. While a handler is wrapped, such a swallowed
    ``KeyboardInterrupt`` is not printed either (``sys.unraisablehook``: the caller stops with its one line)."""

    def __init__(self) -> None:
        self.seen = False
        self._old = None
        self._hook = None

    def _handler(self, signum, frame):
        self.seen = True
        self._old(signum, frame)

    def _unraisable(self, info) -> None:
        if not (self.seen and isinstance(info.exc_value, KeyboardInterrupt)):
            self._hook(info)

    def __enter__(self) -> _SigintWatch:
        if threading.current_thread() is threading.main_thread():
            old = signal.getsignal(signal.SIGINT)
            if callable(old):
                self._old = old
                signal.signal(signal.SIGINT, self._handler)
                self._hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
        return self

    def __exit__(self, *exc) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            sys.unraisablehook = self._hook
            self._old = self._hook = None


def _check_compiled(user, name: str, path_s: str, where: str) -> None:
    """Compile the policy for its argument types: it must compile, return an integer (not a float, a
    bool, None or a tuple) and not draw from numba's global random generators."""
    try:
        user.compile(_ARGTYPES)
    except Exception as e:
        msg, at = _numba_message(e, path_s)
        if at == path_s:  # numba named no line of the file: the name it could not find, else the function's
            missing = re.match(r"NameError: name '(\w+)' is not defined", msg)
            line = _use_line(Path(path_s), name, missing[1]) if missing else None
            at = f"{path_s}:{line}" if line else where
        raise InputError(f"policy {name!r} does not compile with numba: {msg}", at) from None
    rt = user.overloads[_ARGTYPES].signature.return_type
    if isinstance(rt, types.NoneType):  # (no return reached: only raises, loops for ever, or falls off its end)
        raise InputError(f"policy {name!r} returns no option index: every path through it raises, loops for "
                         "ever, returns None or ends without `return`", where)
    if not isinstance(rt, types.Integer):
        raise InputError(f"policy {name!r} must return an integer option index, not {rt}", where)
    if any(s in user.inspect_llvm(_ARGTYPES) for s in _GLOBAL_RANDOM):
        raise InputError(
            f"policy {name!r} uses a global random generator (np.random/random); draw from state[S_RAND] "
            "or the game's dice instead, so that every game stays reproducible", where
        )
    if rt != types.int64:
        user.compile(POLICY_SIG)  # the guard calls it with this exact signature (any integer is cast)


def load_user_policy(spec: str) -> UserPolicy:
    """Load ``path/to/file.py:function``: import the file (its prints go to stderr), check the function
    takes the five policy arguments and returns an integer for them, compile it (and the jitted helpers
    its file defines) with bounds checks, refuse numba's global random generators, and guard it
    (``_guard``). Loaded once per process and version of the file."""
    if ":" not in spec:
        raise InputError(f"policy {spec!r}: a user policy is FILE.py:FUNCTION", "--policy")
    path_s, name = spec.rsplit(":", 1)
    path = Path(path_s)
    if not name.isidentifier():
        raise InputError(f"policy {spec!r}: {name!r} is not a function name", "--policy")
    if not path.is_file():
        from .inputs import not_a_file

        raise InputError(f"policy file {path_s!r} {not_a_file(path)}", "--policy")
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, name)
    if key in _LOADED:
        return _LOADED[key]
    mod = _import_user_module(path, path_s)
    g = vars(mod)
    fn = g.get(name)
    if fn is None:
        raise InputError(f"policy file has no function {name!r}", path_s)
    py = getattr(fn, "py_func", fn)
    if not inspect.isfunction(py):
        raise InputError(f"{name!r} is not a function", _where_bound(path, path_s, name))
    where = f"{path_s}:{py.__code__.co_firstlineno}"
    try:
        inspect.signature(py).bind(0, 0, 0, 0, 0)
    except TypeError:
        raise InputError(
            f"policy {name!r} must take 5 arguments (kind, state, options, n_options, params)", where
        ) from None
    # what the file declares, before the compiles (seconds): a fault at its line
    traits = _declared_traits(g, path, path_s)
    params = _declared_params(g, path, path_s)
    # The file's own jitted helpers are compiled again with bounds checks (foury_sim's are trusted).
    for k, v in list(g.items()):
        if isinstance(v, Dispatcher) and getattr(v.py_func, "__globals__", None) is g:
            opts = {k2: v2 for k2, v2 in v.targetoptions.items() if k2 != "nopython"}
            g[k] = njit(**{**opts, "boundscheck": True})(v.py_func)
    user = njit(boundscheck=True)(py)
    errors = np.zeros(ERR_SIZE, dtype=np.int64)
    errors[N_ERR_SLOTS:E_STARTED] = -1
    # A Ctrl-C during the compiles is a Ctrl-C (KeyboardInterrupt: exit 130), even when llvmlite swallowed
    # it and numba then failed because of it (which would read as "does not compile with numba": exit 2).
    with _SigintWatch() as watch:
        try:
            if not JIT_DISABLED:  # (without numba the checks below cannot run: the function stays Python)
                _check_compiled(user, name, path_s, where)
            guarded = _guard(user, errors)
        except Exception:
            if watch.seen:
                raise KeyboardInterrupt from None
            raise
    if watch.seen:  # interrupted, and the KeyboardInterrupt was swallowed on the way: stop all the same
        raise KeyboardInterrupt
    loaded = UserPolicy(guarded, errors, g, params, traits)
    _LOADED[key] = loaded
    return loaded


def loaded_globals(fn: Callable) -> dict | None:
    """The module globals of the file of a loaded user policy (``fn`` its guarded function), or None."""
    for up in _LOADED.values():
        if up.fn is fn:
            return up.module_globals
    return None


def user_policy(spec: str, param_text: str | None = None) -> Policy:
    """The Policy for ``--policy FILE.py:FUNCTION`` and ``--param``. A file declares its parameters with
    ``POLICY_PARAMS = {"name": default, ...}``: ``--param`` names are checked against them (unknown: an
    error; missing: the default) and the vector holds exactly those, in order. A file that declares none
    gets the ``--param`` values given, in order (names free). Every value must be finite. The items' form
    (NAME=NUMBER) is checked first, in one line before the file is compiled (seconds); their names after."""
    items = []  # (position, name as given, value)
    for i, item in enumerate((param_text or "").split(",")):
        if item.strip():
            k, eq, v = item.partition("=")
            if not eq:
                raise InputError(f"policy parameter {item.strip()!r} is not NAME=NUMBER", "--param")
            items.append((i, k.strip(), _number(k.strip(), v.strip(), "--param")))
    up = load_user_policy(spec)
    if up.params is not None:
        vals = parse_params(param_text, up.params)
    else:
        vals = {}
        for i, k, x in items:
            k = k or f"p{i}"
            if k in vals:
                raise InputError(f"policy parameter {k!r} given twice", "--param")
            vals[k] = x
    pol = Policy(spec, USER_POLICY_ID, np.array(list(vals.values()), dtype=np.float64), tuple(vals), up.fn,
                 up.traits, up.errors, up.params is not None)
    clear_errors(pol)
    return pol
