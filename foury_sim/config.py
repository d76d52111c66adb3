"""Numba settings in one place (read by every kernel module)."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading

#: Cache compiled kernels on disk so a second process starts fast.
CACHE: bool = os.environ.get("FOURY_SIM_NO_CACHE", "") == ""
#: Kernels never use fastmath: results must not depend on the compiler's reassociation.
FASTMATH: bool = False
#: True when numba is switched off (``NUMBA_DISABLE_JIT=1``): the slow, debuggable baseline.
JIT_DISABLED: bool = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
#: Games handed to one ``prange`` iteration; scratch state is allocated once per chunk.
CHUNK: int = 256
#: Run LLVM's module passes once per entry point, not again inside every callee compiled on the way
#: (``lean_link``); ``FOURY_SIM_FULL_LINK=1`` keeps numba's default (to measure the trade).
LEAN_LINK: bool = os.environ.get("FOURY_SIM_FULL_LINK", "") in ("", "0")

#: Core modules whose code ends up inside compiled kernels.
KERNEL_CORE = ("config.py", "rng.py", "policy.py", "tracing.py", "grid.py", "search.py")


@functools.cache
def _source_hash(packages: tuple[str, ...]) -> str:
    """Hash of the core sources plus the given game packages.

    Numba checks only the timestamp of a cached function's own file, not of the functions it
    calls in other files; keying the cache directory by the sources makes stale kernels impossible.
    """
    import hashlib
    from pathlib import Path

    h = hashlib.sha1()
    root = Path(__file__).resolve().parent
    files = [root / f for f in KERNEL_CORE]
    for pkg in packages:
        files += sorted((root / pkg).rglob("*.py"))
    for p in files:
        h.update(p.relative_to(root).as_posix().encode())
        h.update(p.read_bytes())
    if not LEAN_LINK:  # the same games either way; a measure of numba's default must not load the lean code
        h.update(b"full-link")
    return h.hexdigest()[:16]


_COMPILING = threading.local()  # how deep this thread is in numba's compiles (a caller types its callees inside)


def lean_link() -> bool:
    """Optimise each compiled tree once, at its entry point (True when installed).

    numba compiles every ``@njit`` callee a caller reaches into its own library, links the callees' libraries
    into it, and runs LLVM's module passes (O3) over the whole linked module; so a function near the root paid
    for every function under it once more, and the entry point optimised them all again. This keeps LLVM's
    per-function passes on every compile and runs the module passes only on a compile started from Python (depth
    1 of numba's ``numba:compile`` events): the entry's module, which links everything, is optimised once, as
    numba does for it anyway. The code is the same program (LLVM passes keep its semantics; the games hash the
    same, ``tools/game_hashes.py``); a callee compiled on the way and later called alone from Python runs its
    function-optimised code. A numba without the private method is left as it is (False)."""
    if not LEAN_LINK or JIT_DISABLED:
        return False
    global _LEAN_INSTALLED
    if _LEAN_INSTALLED:
        return True
    try:
        from numba.core import codegen, event
    except ImportError:
        return False
    full = getattr(codegen.CPUCodeLibrary, "_optimize_final_module", None)
    if full is None:
        return False

    class Depth(event.Listener):
        def on_start(self, ev) -> None:
            _COMPILING.depth = getattr(_COMPILING, "depth", 0) + 1

        def on_end(self, ev) -> None:
            _COMPILING.depth = getattr(_COMPILING, "depth", 1) - 1

    def optimize_final_module(self) -> None:
        if getattr(_COMPILING, "depth", 0) > 1:
            return  # a callee: its code is optimised inside its entry point's module
        optimize_final_module.full(self)

    event.register("numba:compile", Depth())
    optimize_final_module.full = full  # numba's own (an attribute: a test or a measure can wrap it)
    codegen.CPUCodeLibrary._optimize_final_module = optimize_final_module
    _LEAN_INSTALLED = True
    return True


_LEAN_INSTALLED = False


def _base_dir() -> str:
    return os.environ.get("FOURY_SIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "foury-sim")


def _prune(base: str, prefix: str, keep: str, n_keep: int = 3) -> None:
    """Remove all but the newest few kernel caches of older code versions."""
    import shutil

    try:
        dirs = sorted((d for d in os.scandir(base) if d.is_dir() and d.name.startswith(prefix) and d.path != keep),
                      key=lambda d: d.stat().st_mtime, reverse=True)
        for d in dirs[n_keep:]:
            shutil.rmtree(d.path, ignore_errors=True)
    except OSError:
        pass


_USER_CACHE_DIR = os.environ.get("NUMBA_CACHE_DIR", "")


def _cache_name(packages: tuple[str, ...]) -> str:
    return "-".join(p.replace("/", "_") for p in packages) or "core"


def package_of(module: str) -> str:
    """The game package (``games/NAME``) a module belongs to: ``foury_sim.games.NAME.kernel`` ->
    ``games/NAME``. Kernel modules pass their ``__name__``, so the package is never retyped."""
    parts = module.split(".")
    if len(parts) < 3 or parts[0] != __name__.split(".")[0] or parts[1] != "games":
        raise ValueError(f"{module!r} is not a module of a game package (foury_sim.games.NAME...)")
    return f"games/{parts[2]}"


def _cache_dir(*packages: str) -> str:
    """The cache directory of kernels from ``packages``, keyed by their sources."""
    return os.path.join(_base_dir(), f"{_cache_name(packages)}-{_source_hash(tuple(packages))}")


@contextlib.contextmanager
def use_cache(module: str):
    """Decorate kernels inside this block with a cache directory keyed by the sources of the game package
    of ``module`` (pass ``__name__``)."""
    packages = (package_of(module),)
    lean_link()
    if not CACHE or _USER_CACHE_DIR:
        yield
        return
    import numba

    path = _cache_dir(*packages)
    os.makedirs(path, exist_ok=True)
    old = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = path
    try:
        yield
    finally:
        numba.config.CACHE_DIR = old
    _prune(_base_dir(), f"{_cache_name(packages)}-", path)


def cache_holds(dispatcher, sig) -> bool:
    """Whether ``dispatcher``'s on-disk cache (a numba dispatcher made with ``cache=True``, nothing compiled)
    holds a compiled version for signature ``sig`` (a string, a tuple of argument types or a ``Signature``) that
    numba would load now: the index numba keeps for this source file at this path, written by this numba version
    for the file's current contents (numba's own ``IndexDataCacheFile`` reads it; another checkout of the same
    sources has its own index)."""
    from numba.core.sigutils import normalize_signature

    def args_of(sig) -> tuple:  # an index key holds the signature as it was given: a string, types or a Signature
        try:
            return tuple(normalize_signature(sig)[0])
        except Exception:  # noqa: BLE001 - a key of another shape matches nothing
            return ()

    try:
        overloads = dispatcher._cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - an index numba cannot read is one it would not use either
        return False
    want = args_of(sig)
    return any(args_of(key[0]) == want for key in overloads)


class CompiledOnFirstUse:
    """An entry point with a signature (``njit(sig, ...)`` would compile it at import), compiled on
    its first call instead (always ``nogil=True``: the runner calls kernels from a worker thread so that the
    main thread stays free to take Ctrl-C), under the cache directory keyed by the sources of the game package of
    ``module`` (pass ``__name__``; see ``use_cache``):
    importing a game compiles nothing, and a run of one game never waits for another's kernels."""

    def __init__(self, module: str, sig, fn, **options) -> None:
        self.module, self.package = module, package_of(module)
        self.sig, self.fn, self.options = sig, fn, options
        self.dispatcher = None

    @property
    def compiled(self) -> bool:
        return self.dispatcher is not None

    def cached(self) -> bool:
        """Whether the on-disk cache of this version of the sources holds the entry point as numba would load it
        for this checkout (numba keeps one index per source path: another clone of the same sources, sharing the
        source-keyed folder, does not count)."""
        from numba import njit

        with use_cache(self.module):  # a dispatcher without a signature: it compiles nothing
            probe = njit(cache=True, nogil=True, **self.options)(self.fn)
        return cache_holds(probe, self.sig)

    def notice(self) -> str:
        game = self.package.rsplit("/", 1)[-1]
        if not CACHE:
            return (f"foury-sim: compiling the {game} engine (FOURY_SIM_NO_CACHE is set: every run compiles; "
                    "minutes on a 2-core machine)...")
        return (f"foury-sim: compiling the {game} engine (first run after an install or code change, minutes on a "
                "2-core machine; later runs load it from the cache in about a second; `foury-sim warm` does it "
                "ahead)...")

    def cold(self) -> bool:
        """Whether the first call will compile (not load from the on-disk cache): always without the cache
        (``FOURY_SIM_NO_CACHE``), never without the JIT; unknown under a user's ``NUMBA_CACHE_DIR`` (False)."""
        if JIT_DISABLED:
            return False
        if not CACHE:
            return True
        return not _USER_CACHE_DIR and not self.cached()

    def __call__(self):
        """The numba dispatcher (compiled, or loaded from the on-disk cache, on the first call).
        A cold compile is announced on stderr (``announce``); the time of the first call goes to
        ``FIRST_USE`` (compiling or loading), so that a run can tell it apart from simulating."""
        if self.dispatcher is None:
            import time

            from numba import njit

            cold = self.cold()
            if cold:
                announce(self.notice())
            t0 = time.perf_counter()
            with use_cache(self.module):
                self.dispatcher = njit(self.sig, cache=CACHE, nogil=True, **self.options)(self.fn)
            stats = getattr(self.dispatcher, "stats", None)  # None under NUMBA_DISABLE_JIT: a plain function
            if CACHE and not _USER_CACHE_DIR and stats is not None:  # what numba did, not what the index said
                cold = sum(stats.cache_misses.values()) > 0
            FIRST_USE["compile_s" if cold else "load_s"] += time.perf_counter() - t0
        return self.dispatcher


#: Seconds this process spent compiling kernels (cold first calls) and loading them from the on-disk cache.
#: Not thread-safe by design: kernels are first called by one worker at a time.
FIRST_USE: dict[str, float] = {"compile_s": 0.0, "load_s": 0.0}


def _print_notice(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


#: Where the compile notice goes: a function of the text (stderr by default; a live progress bar puts it
#: above itself, see ``runner.Progress``).
NOTICE_SINK = [_print_notice]


def announce(text: str) -> None:
    """Say on stderr (through ``NOTICE_SINK``) that a kernel is being compiled."""
    NOTICE_SINK[-1](text)
