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
#: Run LLVM's module passes and emit machine code once per entry point, not again for every callee compiled on
#: the way (``lean_link``); ``FOURY_SIM_FULL_LINK=1`` keeps numba's default (to measure the trade).
LEAN_LINK: bool = os.environ.get("FOURY_SIM_FULL_LINK", "") in ("", "0")
#: Callees linked into an entry point's module are internal to it (``internal_callees``); ``FOURY_SIM_LINKONCE=1``
#: keeps numba's ``linkonce_odr`` (to measure the trade).
INTERNAL_CALLEES: bool = os.environ.get("FOURY_SIM_LINKONCE", "") in ("", "0")
#: Copy an inlined callee's IR once per copy, not once per block (``quick_inline``); ``FOURY_SIM_SLOW_INLINE=1`` keeps
#: numba's copy (to measure the trade).
QUICK_INLINE: bool = os.environ.get("FOURY_SIM_SLOW_INLINE", "") in ("", "0")

#: A computed signed index in the project's own functions is used as it is, without numba's wraparound of a negative
#: one (``plain_indices``); ``FOURY_SIM_WRAP_INDEX=1`` keeps numba's (to measure the trade).
PLAIN_INDICES: bool = os.environ.get("FOURY_SIM_WRAP_INDEX", "") in ("", "0")

#: Seed a first run's cache from the IR shipped with each game (``shipped_ir``); ``FOURY_SIM_SHIPPED_IR=0`` compiles
#: from source (to measure).
SHIPPED_IR: bool = os.environ.get("FOURY_SIM_SHIPPED_IR", "") in ("", "1")
#: With the IR, a first run loads the entry points' machine code shipped with each game (``shipped_ir``: made for
#: x86-64-v3, on a CPU that has its features) instead of compiling them from that IR; ``FOURY_SIM_SHIPPED_CODE=0``
#: compiles them for this CPU (a cache folder of its own, ``-native``), as does ``FOURY_SIM_SHIPPED_IR=0``.
SHIPPED_CODE: bool = SHIPPED_IR and os.environ.get("FOURY_SIM_SHIPPED_CODE", "") in ("", "1")

#: Core modules whose code ends up inside compiled kernels.
KERNEL_CORE = ("config.py", "rng.py", "policy.py", "tracing.py", "grid.py", "search.py", "borrow.py")


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
    if not INTERNAL_CALLEES:  # (the same: a measure of the trade must not load the other code)
        h.update(b"linkonce")
    if not PLAIN_INDICES:
        h.update(b"wrap-index")
    if os.environ.get("NUMBA_BOUNDSCHECK", "") not in ("", "0"):  # numba's own key leaves its bounds checks out
        h.update(b"boundscheck")
    return h.hexdigest()[:16]


_COMPILING = threading.local()  # how deep this thread is in numba's compiles (a caller types its callees inside)


def lean_link() -> bool:
    """Optimise each compiled tree once per entry point, and translate it to machine code once (True when installed).

    numba compiles every ``@njit`` callee a caller reaches into a library of its own, links the callees' libraries
    into it, runs LLVM's module passes (O3) over the linked module and translates it to machine code; a ``prange``
    loop adds three more such libraries (the parfor's gufunc and two wrappers), each linking the whole tree. So a
    function deep in the tree was optimised and translated once for every level above it, though the code that
    runs is the entry point's, whose module links everything. Here, within a compile started from Python (depth 1
    of numba's ``numba:compile`` events, counted per thread), a callee's library (depth > 1) keeps LLVM's
    per-function passes only, and no library gets machine code or joins the JIT engine (``LazyEntry``; a callee is
    cached as bitcode): the entry point's compile (its own library and the parfor's) runs the module passes, and
    the function Python asked for is translated once, then cached as object code. A callee that Python calls later
    is optimised and translated then.

    A ``prange`` kernel's own library is the exception: the parfor's three libraries (its gufunc and numba's two
    wrappers) each link and optimise the whole tree, and the kernel's module, which links the last of them, is
    translated without a fourth round (``parfor_entry``).

    Before its module passes, such a library goes through the code generator's IR passes (``prepare``:
    CodeGenPrepare and the others MCJIT runs in place on every module it translates; numba's callers linked that
    prepared IR). Without them the same program ran up to a third slower (``docs/startup.md``, sessions 32 and
    33); with them it plays as fast as numba's own way, and the games hash the same (``tools/game_hashes.py``).
    A numba without these private methods is left as it is (False)."""
    if not LEAN_LINK or JIT_DISABLED:
        return False
    global _LEAN_INSTALLED
    if _LEAN_INSTALLED:
        return True
    try:
        from numba.core import caching, codegen, cpu, dispatcher, event
        numbas = (codegen.CPUCodeLibrary._optimize_final_module, codegen.CPUCodeLibrary._finalize_final_module,
                  codegen.CPUCodeLibrary._unserialize.__func__, codegen.JITCodeLibrary.get_pointer_to_function,
                  codegen.JITCodeLibrary.serialize_using_object_code, caching.CompileResultCacheImpl.rebuild,
                  cpu.CPUContext.get_executable, dispatcher.Dispatcher.add_overload, dispatcher.Dispatcher.compile)
    except (ImportError, AttributeError):
        return False

    class Depth(event.Listener):
        def on_start(self, ev) -> None:
            _COMPILING.depth = getattr(_COMPILING, "depth", 0) + 1

        def on_end(self, ev) -> None:
            _COMPILING.depth = getattr(_COMPILING, "depth", 1) - 1

    event.register("numba:compile", Depth())
    _lean_libraries(*numbas)
    _LEAN_INSTALLED = True
    return True


class LazyEntry:
    """The entry point of a function compiled inside another compile: no machine code yet (``lean_link``); its
    callers' lowering only uses it as a key."""

    __slots__ = ("ctx", "library", "fndesc", "env", "__weakref__")

    def __init__(self, ctx, library, fndesc, env) -> None:
        self.ctx, self.library, self.fndesc, self.env = ctx, library, fndesc, env


def internal_callees(module) -> int:
    """Make the callees linked into an entry point's module internal to it; returns how many.

    numba links each callee as ``linkonce_odr`` (another module may hold the same definition), so LLVM keeps its
    signature: every array argument is passed as its whole struct (meminfo, parent, size, itemsize, data, shapes,
    strides: 7 words in 1-D, 9 in 2-D), most of it on the stack, and a call of a rule with a game's board, state,
    dice and policy pushed about 130 words, copied from the caller's own arguments (17 % of the flagship's samples
    were such pushes, session 43: docs/startup.md). Under ``lean_link`` the entry point's module holds its
    whole tree and nothing else calls into it, so its callees can be internal: LLVM's O3 pipeline then drops the
    arguments a callee never reads (dead argument elimination: no reference counts under ``_nrt=False``, no strides
    for a C-contiguous array) and inlines a callee with one call site. The code is the same program, optimised
    further (``tools/game_hashes.py``: the same games)."""
    from llvmlite import binding as ll

    k = 0
    for fn in module.functions:
        if not fn.is_declaration and fn.linkage == ll.Linkage.linkonce_odr:
            fn.linkage = ll.Linkage.internal
            k += 1
    return k


def _lean_libraries(full, final, unserialize, pointer, serialize, rebuild, executable, add, compile_) -> None:
    """Install ``lean_link`` over numba's own methods (passed in)."""
    import weakref

    from llvmlite import binding as ll
    from numba.core import caching, codegen, compiler, cpu, dispatcher, sigutils

    loading = threading.local()

    def depth() -> int:
        return getattr(_COMPILING, "depth", 0)

    def lean() -> bool:  # finishing a library inside a compile (not loading numba's object code)
        return depth() > 0 and not getattr(loading, "on", False)

    def optimize_final_module(self) -> None:
        if depth() > 1:  # a callee's: optimised inside its callers' modules
            self._foury_bare = True
        elif not parfor_entry(self):
            prepared_full(self)

    def parfor_entry(self) -> bool:
        """A ``prange`` kernel's own library: it links the parfor's last wrapper, whose module already holds the
        whole tree, put through the passes in each of the parfor's three libraries; the kernel's own function
        only starts the parfor, so its module is translated as it is linked (session 38: 3 CPU s less a kernel,
        the same speed)."""
        return any(lib.name == "parallelgufuncwrapper" for lib in self._linking_libraries)

    def prepare(self) -> None:
        """The code generator's IR passes over the library's module, in place (its machine code is dropped): numba's
        MCJIT ran them on every library it translated, and callers linked that IR (see ``lean_link``)."""
        self._codegen._tm.emit_object(self._final_module)

    def prepared_full(self) -> None:
        if INTERNAL_CALLEES:
            internal_callees(self._final_module)
        optimize_final_module.prepare(self)
        optimize_final_module.full(self)

    def lazy(self) -> None:
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._foury_lazy = True
        self._finalized = True

    def finalize_final_module(self) -> None:
        return lazy(self) if lean() else final(self)

    def machine_code(self) -> None:
        """A lazy library's module passes and machine code, now (it joins the JIT engine)."""
        if getattr(self, "_foury_lazy", False):
            self._foury_lazy = False
            if getattr(self, "_foury_bare", False):
                self._foury_bare = False
                prepared_full(self)
            self._final_module._CPUCodeLibrary__library = weakref.proxy(self)  # numba's object cache hooks
            cleanup = self._codegen._add_module(self._final_module)
            if cleanup:
                weakref.finalize(self, cleanup)
            self._finalize_specific()

    def get_pointer_to_function(self, name):
        machine_code(self)
        return pointer(self, name)

    def serialize_using_object_code(self):
        return self.serialize_using_bitcode() if getattr(self, "_foury_lazy", False) else serialize(self)

    def _unserialize(cls, cg, state):
        name, kind, data = state
        if kind != "bitcode":
            loading.on, before = True, getattr(loading, "on", False)
            try:
                return unserialize(cls, cg, state)
            finally:
                loading.on = before
        self = cg.create_library(name)  # a lean library's IR
        self.enable_object_caching()
        self._final_module = ll.parse_bitcode(data)
        self._foury_bare = True
        lazy(self)
        return self

    def rebuild_(self, target_context, payload):
        if payload[0][1] == "bitcode":  # no machine code: no environment to set in it (``compile`` does, later)
            return compiler.CompileResult._rebuild(target_context, *payload[:-1], ())
        return rebuild(self, target_context, payload)

    def get_executable(self, library, fndesc, env):
        library._ensure_finalized()
        if getattr(library, "_foury_lazy", False):
            return LazyEntry(self, library, fndesc, env)
        return executable(self, library, fndesc, env)

    def add_overload(self, cres) -> None:
        if isinstance(cres.entry_point, LazyEntry):  # nothing to register with the C dispatcher yet
            self.overloads[tuple(cres.signature.args)] = cres
        else:
            add(self, cres)

    def compile(self, sig):
        entry = compile_(self, sig)
        if not isinstance(entry, LazyEntry) or depth() > 0:
            return entry
        machine_code(entry.library)  # Python asks for it: optimise and translate its tree, once
        cres = self.overloads[tuple(sigutils.normalize_signature(sig)[0])]
        entry = executable(entry.ctx, entry.library, entry.fndesc, entry.env)
        cres.target_context.insert_user_function(entry, cres.fndesc, [cres.library])
        cres = cres._replace(entry_point=entry)
        add(self, cres)
        self._cache.save_overload(sig, cres)  # as object code, over the bitcode
        return entry

    optimize_final_module.full = full  # numba's own (an attribute: a test or a measure can wrap it)
    optimize_final_module.prepare = prepare  # (an attribute: a test can wrap it)
    codegen.CPUCodeLibrary._optimize_final_module = optimize_final_module
    codegen.CPUCodeLibrary._finalize_final_module = finalize_final_module
    codegen.CPUCodeLibrary._unserialize = classmethod(_unserialize)
    codegen.JITCodeLibrary.get_pointer_to_function = get_pointer_to_function
    codegen.JITCodeLibrary.serialize_using_object_code = serialize_using_object_code
    caching.CompileResultCacheImpl.rebuild = rebuild_
    cpu.CPUContext.get_executable = get_executable
    dispatcher.Dispatcher.add_overload = add_overload
    dispatcher.Dispatcher.compile = compile


_LEAN_INSTALLED = False


_PLAIN_INDICES = False
#: The source of numba's ``fix_integer_index`` (sha1, 16 digits) that ``plain_indices`` was checked against.
_FIX_INDEX_SOURCE = "196e3a9a8cd8eca0"
#: The start of the LLVM name of every function of this package (numba's mangling of ``foury_sim.``).
_OWN_PREFIX = "_ZN9foury_sim"


def plain_indices() -> bool:
    """Leave numba's wraparound of a negative index out of the project's own functions (True when installed).

    numba gives a signed index Python's meaning: ``a[i]`` with ``i < 0`` reads ``a[len(a) + i]``, so every access
    with a computed index pays a compare, an add and a select, and the load waits for them. The rules index with
    numbers that are never negative: here an index that is not a constant is used as it is, in the functions of
    this package only (their LLVM names start ``_ZN9foury_sim``). A user's policy file, numba's own library and a
    constant index such as ``a[-1]`` keep Python's meaning. The engines play x1.03 to x1.15 the games per CPU
    second (docs/speed.md, session 53), the same games (``tools/game_hashes.py``). A negative index in a rule
    would read outside its array: ``tests/test_indices.py`` plays every game under numba's bounds checks
    (``NUMBA_BOUNDSCHECK=1``), where it raises. ``FOURY_SIM_WRAP_INDEX=1`` keeps numba's wraparound; a numba
    whose ``fix_integer_index`` differs from the one this was checked against is left as it is (False)."""
    global _PLAIN_INDICES
    if _PLAIN_INDICES or JIT_DISABLED or not PLAIN_INDICES:
        return _PLAIN_INDICES
    import hashlib
    import inspect

    from numba.core import types
    from numba.np import arrayobj

    numbas = arrayobj.fix_integer_index
    try:
        source = hashlib.sha1(inspect.getsource(numbas).encode()).hexdigest()[:16]
    except (OSError, TypeError):
        return False
    if source != _FIX_INDEX_SOURCE:
        return False
    from llvmlite import ir

    def fix_integer_index(context, builder, idxty, idx, size):
        if idxty.signed and not isinstance(idx, ir.Constant) and builder.function.name.startswith(_OWN_PREFIX):
            return context.cast(builder, idx, idxty, types.intp)
        return numbas(context, builder, idxty, idx, size)

    fix_integer_index.numbas = numbas
    arrayobj.fix_integer_index = fix_integer_index
    _PLAIN_INDICES = True
    return True


def quick_inline() -> bool:
    """Copy a callee's variables once per inlined copy, not once per block (True when installed).

    numba inlines a function (``inline=``) by deep-copying its IR block by block (``InlineWorker.inline_ir``), each
    block with a memo of its own; every block's variables point to the function's one scope, which holds every
    variable of the function, so each block's copy copied them all: blocks x variables (``play_delve``'s phases:
    hundreds of blocks, thousands of variables). Here the blocks of one copy share one memo, as the blocks they copy
    share one scope: the same IR, copied once (``tests/test_quick_inline.py`` compares the LLVM IR). The method
    also made a second copy, "an unmutated copy of the callee_ir to return", which both of numba's callers drop
    (``_, _, _, new_blocks = ...``): when they do, it is not made (``None`` in its place).
    ``FOURY_SIM_SLOW_INLINE=1`` keeps numba's copy (to measure the trade). numba's method is rewritten from its own
    source with those changes; a numba whose source differs is left as it is (False)."""
    global _QUICK_INLINE
    if _QUICK_INLINE or JIT_DISABLED or not QUICK_INLINE:
        return _QUICK_INLINE
    import inspect
    import textwrap

    from numba.core import inline_closurecall as icc

    try:
        lines, first = inspect.getsourcelines(icc.InlineWorker.inline_ir)
    except (OSError, TypeError):
        return False
    src = textwrap.dedent("".join(lines))
    old = ("        kernel_copy.blocks = {}\n"
           "        for block_label, block in the_ir.blocks.items():\n"
           "            new_block = copy.deepcopy(the_ir.blocks[block_label])\n")
    if src.count(old) != 1:
        return False
    one_memo = old.replace("{}\n", "{}\n        memo = {}\n").replace("[block_label])", "[block_label], memo)")
    src = src.replace(old, one_memo)
    unused = "callee_ir_original = copy_ir(callee_ir)\n"
    from numba.core import typed_passes, untyped_passes

    callers = inspect.getsource(untyped_passes.InlineInlinables._do_work) + inspect.getsource(
        typed_passes.InlineOverloads._run_inliner)
    if src.count(unused) == 1 and callers.count("_, _, _, new_blocks = ") == 2 \
            and callers.count(".inline_function(") + callers.count(".inline_ir(") == 2:
        src = src.replace(unused, "callee_ir_original = None  # (both callers drop it)\n")
    code: dict = {}  # compiled at numba's own line numbers, so that a traceback points into numba's file
    exec(compile("\n" * (first - 1) + src, inspect.getsourcefile(icc), "exec"), vars(icc), code)
    icc.InlineWorker.inline_ir = code["inline_ir"]
    _QUICK_INLINE = True
    return True


_QUICK_INLINE = False


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
    """The cache directory of kernels from ``packages``, keyed by their sources (and ``-native`` when the shipped
    machine code is not to be used: ``SHIPPED_CODE``)."""
    native = "" if SHIPPED_CODE else "-native"
    return os.path.join(_base_dir(), f"{_cache_name(packages)}-{_source_hash(tuple(packages))}{native}")


_AT_FIRST_COMPILE: list = []  # (the functions waiting for numba's next compile)
_LISTENING = False


def at_first_compile(fn) -> None:
    """Call ``fn()`` at the start of numba's next compile (its ``numba:compile`` event starts before any pass runs),
    once: what only a compile needs (``plain_indices``, ``quick_inline``, quick_passes' compile passes, the modules
    the command line deferred) is not done when a game is imported, so a command that only loads its engine from
    the cache never does it (about 0.03 s of its start-up, session 59). One listener serves every such function."""
    global _LISTENING
    if JIT_DISABLED:
        return
    _AT_FIRST_COMPILE.append(fn)
    if _LISTENING:
        return
    _LISTENING = True
    from numba.core import event

    class FirstCompile(event.Listener):
        def on_start(self, ev) -> None:
            while _AT_FIRST_COMPILE:
                _AT_FIRST_COMPILE.pop(0)()

        def on_end(self, ev) -> None:
            pass

    event.register("numba:compile", FirstCompile())


@contextlib.contextmanager
def use_cache(module: str):
    """Decorate kernels inside this block with a cache directory keyed by the sources of the game package
    of ``module`` (pass ``__name__``)."""
    packages = (package_of(module),)
    from . import quick_passes  # here, not at the top: config.py loads alone (tests/test_cache.py)

    lean_link()
    at_first_compile(plain_indices)  # (each returns at once when installed already)
    at_first_compile(quick_inline)
    quick_passes.install()
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


#: Every ``CompiledOnFirstUse`` made so far (a game's, once its modules are imported: ``tools/ship_ir.py`` ships their
#: machine code).
ENTRY_POINTS: list[CompiledOnFirstUse] = []


class CompiledOnFirstUse:
    """An entry point with a signature (``njit(sig, ...)`` would compile it at import), compiled on
    its first call instead (always ``nogil=True``: the runner calls kernels from a worker thread so that the
    main thread stays free to take Ctrl-C), under the cache directory keyed by the sources of the game package of
    ``module`` (pass ``__name__``; see ``use_cache``):
    importing a game compiles nothing, and a run of one game never waits for another's kernels."""

    def __init__(self, module: str, sig, fn, part: str = "", **options) -> None:
        self.module, self.package = module, package_of(module)
        self.sig, self.fn, self.options = sig, fn, options
        self.part = part  # what of the engine this is, when not all of it (the compile notice names it)
        self.dispatcher = None
        ENTRY_POINTS.append(self)

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
        engine = f"the {game} engine" + (f"'s {self.part}" if self.part else "")
        if not CACHE:
            return (f"foury-sim: compiling {engine} (FOURY_SIM_NO_CACHE is set: every run compiles; "
                    "minutes on a 2-core machine)...")
        from . import shipped_ir

        if shipped_ir.seeded(self.package):
            return (f"foury-sim: compiling {engine} (first run after an install or code change, from the engine's "
                    "shipped IR: 10-30 s on a 2-core machine; later runs load it from the cache in about a second; "
                    "`foury-sim warm` does it ahead)...")
        return (f"foury-sim: compiling {engine} (first run after an install or code change, minutes on a "
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
            if cold and CACHE and not _USER_CACHE_DIR:  # once a cache: the engine's shipped IR, where it applies
                from . import shipped_ir

                if shipped_ir.seed(self.package):
                    cold = self.cold()  # its shipped machine code: loaded, not compiled
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
