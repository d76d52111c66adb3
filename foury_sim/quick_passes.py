"""Some of numba's steps, the same answers with less work (a cold compile's CPU and a cached start, issue 17).

A profile of a cold compile (``docs/startup.md``, "Every game, session 34" and "session 37") found numba spending
its time on work that grows with blocks x variables of a large function, or that is repeated for nothing:

- ``compute_live_map`` (``numba.core.analysis``): the variables live at each block's entry, a fixed point over
  Python sets, run after nearly every pass (``PostProcessor``). Here the same fixed point runs over integer
  bitsets (one bit per variable) and gives back the same sets.
- ``TargetConfig.__hash__`` and ``__eq__`` (the compile flags, part of the key of every overload lookup): numba
  builds a dict of every option on each call. The hash is the same number (numba's hashes the sorted option
  *names*, a constant per class), computed once; equality compares the options set explicitly in either (an
  option set in neither has its default on both sides).
- SSA reconstruction (``numba.core.ssa``): for every variable assigned more than once, numba rewrites every
  statement of the function twice. Here the blocks where that variable does not appear are copied as they are
  (numba's handlers return their statements unchanged there), so only the blocks that name it are rewritten.
- An inlined function's untyped passes (``InlineWorker.inline_function``): numba runs the callee's whole frontend
  again at every call site it inlines (one game: 235 runs for 48 functions). Here they run once per function and
  compile flags; each call site inlines a copy, as before (``inline_ir`` copies the IR it is given and leaves it
  as it was; a typed inlining, which types its copy, is left to numba). The program is the same; the inlined
  variables' names and the blocks' labels differ.
- Typing errors' markup (``HighlightColorScheme._markup``): numba formats a message for every overload that does
  not match while it types a call (tens of thousands in a compile), and wraps each in colorama's ``init`` and
  ``deinit``, which wrap and unwrap ``sys.stdout`` and ``sys.stderr``. Here the same text, without the wrapping.
- A load from the cache (``Cache.load_overload``): numba first refreshes its CPU target, importing and installing
  every typing and lowering registry it has (``CPUContext.load_additional_registries``: dozens of modules, and
  ``scipy.linalg`` for ``numba.np.arraymath``'s BLAS check), about 0.1-0.2 s of every command's start-up, though
  loading machine code types and lowers nothing. What loaded code needs of that refresh is the NRT's addresses,
  which it registers first (``rtsys.initialize``). The rest a load links to is there without it: numba's C helpers,
  the math functions (registered when the target is made), the parallel runtime (the entry's own ``reload_init``),
  and any numba module whose functions the code calls (unpickling the entry imports the module of each
  environment it holds: a string's hash brings ``numba.cpython.hashing`` and the hash secret it registers). Here a
  load does only that first step. numba's compiler still refreshes the target itself before it compiles anything
  (``CompilerBase``), as does a lowering that finds no implementation, so whatever compiles later sees every
  registry.

- A load of machine code (``CPUCodeLibrary._unserialize``, an ``"object"`` entry): numba also parses the entry's
  IR (kept as bitcode beside the machine code: the module another library links when it calls this one) and walks
  it for the names the library defines; for a game's kernel about 0.03 s of every command's start-up, though
  nothing links to a kernel. Here the bitcode is parsed when something first asks for that module
  (``_shared_module``, a property), and the names are read from the machine code's own symbol table (an ELF
  object's ``.symtab``: the same names but the private ones, constant strings and switch tables, which nothing can
  look up; another object format is loaded as numba does).
- The NRT's own functions (``rtsys.initialize``: atomic counts, the meminfo destructor), which numba compiles from
  IR in every process that loads or compiles anything, about 0.03 s of every command's start-up. Here the first
  load compiles them as numba does and keeps their machine code beside the cache's entries (keyed by numba,
  llvmlite and the CPU target); later loads load it (``initialize_nrt``).

Each replacement is checked against numba's own in ``tests/test_quick_passes.py`` (the same live sets on random
control-flow graphs and on the games' functions, the same IR after SSA, the same hash and equality of flags, the
same functions inlined, the same messages, the same games from an engine loaded without the refresh).
``FOURY_SIM_SLOW_PASSES=1`` keeps numba's (to measure the trade). A
numba whose functions differ from the ones these replace (checked by their source) is left as it is."""

from __future__ import annotations

import hashlib
import inspect
import os
from collections import defaultdict

#: ``FOURY_SIM_SLOW_PASSES=1`` keeps numba's own passes.
QUICK: bool = os.environ.get("FOURY_SIM_SLOW_PASSES", "") in ("", "0")

#: sha1 of the source of each numba function replaced here, as numba 0.68.1 ships it (another source: left as is).
_NUMBA_SOURCES = {
    "compute_live_map": "c3ebc82fe4f20a98",
    "TargetConfig.__hash__": "3c940b08558b5dfb",
    "TargetConfig.__eq__": "51c9e97af231a330",
    "_run_ssa": "22102bcc7ff17cf0",
    "_run_block_rewrite": "e6885daa20445c93",
    "InlineWorker.inline_function": "bb579ea1bb3fccf2",
    "HighlightColorScheme._markup": "d22b193421d7b769",
    "Cache.load_overload": "fcb10347535e273d",
    "CPUContext.load_additional_registries": "c897f2cbdad25343",  # (what a load needs of the refresh is read here)
    "CPUCodeLibrary._unserialize": "0540b32743c42c9e",  # (numba's, read from its file: lean_link wraps it)
    "CPUCodeLibrary._get_module_for_linking": "8019b3aa7f6b86a9",  # (reads the shared module: the property's user)
    "JitEngine._load_defined_symbols": "a80f03c84b070794",  # (the names it registers: read from the object here)
    "_Runtime.initialize": "6fb0b9cbeaa546e8",  # (``initialize_nrt`` does its work but the compile)
    "nrtdynmod": "aaddf41c7cff8ce5",  # (the NRT functions numba compiles: their kept code is theirs)
}

_INSTALLED: list[str] = []
_LOADS_DONE = False  # (``install`` ran)
_COMPILE_DONE = False  # (``install_compile`` ran)
#: numba's own functions, as found by ``install`` (the tests compare with them).
NUMBAS: dict = {}


def _digest(fn) -> str:
    if fn is None:  # not in this numba (numba's highlighting off: no colour scheme to replace)
        return ""
    return hashlib.sha1(inspect.getsource(fn).encode()).hexdigest()[:16]


def _method_digest(module, header: str) -> str:
    """``_digest`` of the block of ``module``'s source that starts with the line ``header`` (a method as numba's
    file has it, even when it is replaced: ``config.lean_link`` wraps ``CPUCodeLibrary._unserialize``); reads the
    lines Python keeps, with no parse of the file ("" if not found)."""
    import linecache

    lines = linecache.getlines(inspect.getsourcefile(module) or "")
    for i, line in enumerate(lines):
        if line.strip() == header:
            indent = len(line) - len(line.lstrip())
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
                j += 1
            return hashlib.sha1("".join(lines[i:j]).rstrip().encode()).hexdigest()[:16]
    return ""


def compute_live_map(cfg, blocks, var_use_map, var_def_map):
    """numba's ``analysis.compute_live_map`` (the variables live at the entry of each block) over bitsets."""
    topo_order = cfg.topo_order()
    index: dict[str, int] = {}

    def bits(names) -> int:
        b = 0
        for v in names:
            i = index.get(v)
            if i is None:
                i = index[v] = len(index)
            b |= 1 << i
        return b

    use = {k: bits(v) for k, v in var_use_map.items()}
    defs = {k: bits(v) for k, v in var_def_map.items()}
    succ = {o: [b for b, _ in cfg.successors(o)] for o in topo_order}
    pred = {o: [b for b, _ in cfg.predecessors(o)] for o in topo_order}
    reach: defaultdict[int, int] = defaultdict(int)  # definitions reaching each block (numba's def_reach)
    while True:
        before = dict(reach)
        for o in topo_order:
            reach[o] |= defs[o] | use[o]
            r = reach[o]
            for s in succ[o]:
                reach[s] |= r
        if before == reach:
            break
    live = {o: use[o] for o in blocks.keys()}
    while True:  # push uses backwards (numba's liveness)
        before = dict(live)
        for o in reversed(topo_order):
            lv = live[o]
            for p in pred[o]:
                live[p] |= lv & reach[p] & ~defs[p]
        if before == live:
            break
    names = list(index)
    out = {}
    for o, b in live.items():
        s = set()
        while b:
            low = b & -b
            s.add(names[low.bit_length() - 1])
            b ^= low
        out[o] = s
    return out


def _flags(TargetConfig) -> None:
    numbas_eq = TargetConfig.__eq__

    def __hash__(self):
        cls = type(self)
        h = cls.__dict__.get("_quick_hash")
        if h is None:  # numba's: hash(tuple(sorted(self.values()))), the sorted option names
            h = hash(tuple(sorted(self.options)))
            cls._quick_hash = h
        return h

    def __eq__(self, other):
        if self is other:
            return True
        if isinstance(other, TargetConfig) and type(self).options is type(other).options:
            a, b = self._values, other._values
            if a == b:
                return True
            options = type(self).options  # numba's: every option's value (as set, or its default) equal
            for k in a.keys() | b.keys():
                d = options[k].default
                if a.get(k, d) != b.get(k, d):
                    return False
            return True
        return numbas_eq(self, other)

    TargetConfig.__hash__ = __hash__
    TargetConfig.__eq__ = __eq__


def _ssa(ssa, ir) -> None:
    numbas_run_ssa, numbas_rewrite = ssa._run_ssa, ssa._run_block_rewrite
    where: list[dict[str, set]] = []  # for the function under reconstruction: variable name -> labels naming it

    def _run_block_rewrite(blocks, states, handler):
        if not where or "varname" not in states:
            return numbas_rewrite(blocks, states, handler)
        touch = where[-1].get(states["varname"], ())
        newblocks = {}
        for label, blk in blocks.items():
            newblk = ir.Block(scope=blk.scope, loc=blk.loc)
            if label in touch:
                states["label"] = label
                states["block"] = blk
                newblk.body = list(ssa._run_ssa_block_pass(states, blk, handler))
            else:  # numba's handlers give back every statement that does not name the variable
                newblk.body = list(blk.body)
            newblocks[label] = newblk
        return newblocks

    def _run_ssa(blocks):
        names: dict[str, set] = {}
        for label, blk in blocks.items():
            for stmt in blk.body:
                for v in stmt.list_vars():
                    names.setdefault(v.name, set()).add(label)
                if isinstance(stmt, ir.Assign):
                    names.setdefault(stmt.target.name, set()).add(label)
        where.append(names)
        try:
            return numbas_run_ssa(blocks)
        finally:
            where.pop()

    ssa._run_block_rewrite = _run_block_rewrite
    ssa._run_ssa = _run_ssa


def _untyped_once(InlineWorker) -> None:
    numbas = InlineWorker.inline_function
    done: dict = {}  # (function, typing context, target, flags, locals) -> its untyped IR

    def inline_function(self, caller_ir, block, i, function, arg_typs=None):
        if self._permit_update_type_and_call_maps:  # a typed inlining (it types a copy of the IR): numba's
            return numbas(self, caller_ir, block, i, function, arg_typs)
        self.flags.enable_ssa = False  # as numba's ``run_untyped_passes`` (on the caller's flags)
        try:  # the flags but ``inline`` (the caller's own option, which no untyped pass reads) and the locals
            key = (function, id(self.typingctx), type(self.targetctx),
                   tuple(sorted((k, repr(v)) for k, v in self.flags._values.items() if k != "inline")),
                   tuple(sorted((k, repr(v)) for k, v in (self.locals or {}).items())))
            hash(key)
        except TypeError:
            return numbas(self, caller_ir, block, i, function, arg_typs)
        callee_ir = done.get(key)
        if callee_ir is None:
            callee_ir = done[key] = self.run_untyped_passes(function)
        return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars, arg_typs=arg_typs)

    InlineWorker.inline_function = inline_function


def _markup(errors) -> None:
    Style, reset_terminal = errors.Style, errors.reset_terminal

    def _markup(self, msg, color=None, style=Style.BRIGHT):
        features = ""
        if color:
            features += color
        if style:
            features += style
        with reset_terminal() as mu:  # numba's, without ``ColorShell`` (colorama's init and deinit) around it
            mu += features.encode("utf-8")
            mu += (msg).encode("utf-8")
        return mu.decode("utf-8")

    errors.HighlightColorScheme._markup = _markup


def load_overload(self, sig, target_context):
    """numba's ``Cache.load_overload`` without its refresh of the target: only the NRT's addresses registered."""
    from numba.core.runtime import rtsys

    if _NRT_KEPT and not rtsys._init:
        initialize_nrt(target_context, self._cache_path)
    rtsys.initialize(target_context)
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)


_NRT_KEPT = False  # (set by ``install`` when numba's NRT start-up is the one ``initialize_nrt`` was checked against)


def _nrt_file(target_context, folder: str) -> str:
    """Where the NRT's machine code for this numba, llvmlite and CPU target is kept in ``folder``."""
    import llvmlite
    import numba

    key = repr((numba.__version__, llvmlite.__version__, target_context.codegen().magic_tuple()))
    return os.path.join(folder, f"nrt-{hashlib.sha1(key.encode()).hexdigest()[:16]}.pkl")


def initialize_nrt(target_context, folder: str) -> None:
    """numba's ``rtsys.initialize`` with the NRT's own functions (atomic counts, the meminfo destructor: numba
    compiles them in every process, about 0.03 s of a command's start-up) loaded from their machine code kept in
    ``folder`` (the cache's); the first start compiles them as numba does and keeps their code there. A file that
    cannot be read is compiled again; one that cannot be written is not kept."""
    import pickle

    from llvmlite import binding as ll
    from numba.core import config as numba_config
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.runtime import _nrt_python as _nrt
    from numba.core.runtime import nrtdynmod, rtsys

    path = _nrt_file(target_context, folder)
    try:
        with open(path, "rb") as f:
            state = pickle.load(f)
        name, kind, (obj, bitcode) = state
        if name != "nrt" or kind != "object" or not (isinstance(obj, bytes) and isinstance(bitcode, bytes)):
            state = None
    except Exception:  # (none kept yet, or a damaged file: compiled again)
        state = None
    with global_compiler_lock:
        if rtsys._init:
            return
        if numba_config.NRT_STATS:  # numba's ``initialize``, then its ``compile_nrt_functions``
            _nrt.memsys_enable_stats()
        for py_name, address in _nrt.c_helpers.items():
            ll.add_symbol(py_name if py_name.startswith("_") else "NRT_" + py_name, address)
        if state is not None:
            library = target_context.codegen().unserialize_library(state)
        else:
            ir_mod, library = nrtdynmod.create_nrt_module(target_context)
            library.enable_object_caching()  # (the machine code is kept as MCJIT makes it: the same code)
            library.add_ir_module(ir_mod)
            library.finalize()
            try:  # (atomic: a reader sees no file or a whole one)
                tmp = f"{path}.{os.getpid()}.tmp"
                with open(tmp, "wb") as f:
                    pickle.dump(library.serialize_using_object_code(), f, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, path)
            except OSError:
                pass
        rtsys._library = library
        rtsys._init = True


def elf_defined_symbols(obj: bytes) -> set[str] | None:
    """The names an ELF object (64-bit, little-endian: what numba's MCJIT makes on x86-64 Linux) defines: every
    symbol of its ``.symtab`` with a section, but sections' and files' own (None for another format)."""
    import struct

    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for k in range(size // (entsize or 24)):
            name, info, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", obj, offset + k * (entsize or 24))
            if shndx == 0 or info & 0xF in (3, 4):  # undefined; STT_SECTION, STT_FILE
                continue
            names.add(obj[strings + name:obj.index(b"\0", strings + name)].decode())
    return names


def _object_loads(codegen) -> None:
    """Install the lazy shared module (see the module's docstring) over the ``_unserialize`` in place now
    (``config.lean_link``'s, around numba's)."""
    from llvmlite import binding as ll

    current = codegen.CPUCodeLibrary._unserialize.__func__
    empty = ll.parse_assembly("").as_bitcode()

    def get_shared(self):
        d = self.__dict__
        bitcode = d.pop("_foury_shared_bitcode", None)
        if bitcode is not None:  # first asked for: another library links this one
            d["_foury_shared"] = ll.parse_bitcode(bitcode)
        return d["_foury_shared"] if "_foury_shared" in d else d.get("_shared_module")

    def set_shared(self, module):
        self.__dict__.pop("_foury_shared_bitcode", None)
        self.__dict__["_foury_shared"] = module

    def _unserialize(cls, cg, state):
        name, kind, data = state
        names = elf_defined_symbols(data[0]) if kind == "object" else None
        if names is None:
            return current(cls, cg, state)
        self = current(cls, cg, (name, kind, (data[0], empty)))  # numba's load, its IR left unparsed
        self.__dict__["_foury_shared_bitcode"] = data[1]
        cg._engine._defined_symbols |= names
        return self

    codegen.CPUCodeLibrary._shared_module = property(get_shared, set_shared)
    codegen.CPUCodeLibrary._unserialize = classmethod(_unserialize)


def install() -> list[str]:
    """Install the replacements a load uses now (``quick_load``, ``kept_nrt``, ``quick_object``) and those a compile
    uses at numba's first compile after this (``install_compile``: a command that only loads never checks or
    imports them, about 0.03 s), each only if its numba original is the one it was checked against; returns the
    names installed so far (empty without the JIT, under ``FOURY_SIM_SLOW_PASSES=1``, or on a numba whose sources
    differ). In a command line's process (``lazy.defer_unused``) it also defers numba's modules only a compile uses
    (``lazy.defer_unused_numba``) and the first compile runs them (``lazy.run_deferred``), under
    ``FOURY_SIM_SLOW_PASSES=1`` too."""
    global _LOADS_DONE, _NRT_KEPT
    from numba import config as numba_config

    if _LOADS_DONE or numba_config.DISABLE_JIT:
        return _INSTALLED
    _LOADS_DONE = True
    from numba.core import caching, codegen, cpu

    from .config import at_first_compile
    from .lazy import defer_unused_numba, run_deferred

    defer_unused_numba()  # (a command line's process: numba's modules only a compile uses, run at the first)
    at_first_compile(run_deferred)  # (the numba modules the command line deferred run before numba compiles)
    at_first_compile(install_compile)
    if not QUICK:
        return _INSTALLED
    from numba.core.runtime import nrtdynmod, rtsys

    numbas = {"Cache.load_overload": caching.Cache.load_overload,
              "CPUContext.load_additional_registries": cpu.CPUContext.load_additional_registries,
              "CPUCodeLibrary._get_module_for_linking": codegen.CPUCodeLibrary._get_module_for_linking,
              "JitEngine._load_defined_symbols": codegen.JitEngine._load_defined_symbols,
              "_Runtime.initialize": type(rtsys).initialize, "nrtdynmod": nrtdynmod}
    NUMBAS.update(numbas)
    same = {name: _digest(fn) == _NUMBA_SOURCES[name] for name, fn in numbas.items()}
    same["CPUCodeLibrary._unserialize"] = (_method_digest(codegen, "def _unserialize(cls, codegen, state):")
                                           == _NUMBA_SOURCES["CPUCodeLibrary._unserialize"])
    if same["Cache.load_overload"] and same["CPUContext.load_additional_registries"]:
        caching.Cache.load_overload = load_overload
        _INSTALLED.append("quick_load")
        if same["_Runtime.initialize"] and same["nrtdynmod"]:
            _NRT_KEPT = True
            _INSTALLED.append("kept_nrt")
    if (same["CPUCodeLibrary._unserialize"] and same["CPUCodeLibrary._get_module_for_linking"]
            and same["JitEngine._load_defined_symbols"]):
        _object_loads(codegen)
        _INSTALLED.append("quick_object")
    return _INSTALLED


def install_compile() -> list[str]:
    """Install the replacements a compile uses (``compute_live_map``, ``TargetConfig``, ``ssa``, ``untyped_once``,
    ``markup``), each only if its numba original is the one it was checked against; returns the names installed so
    far. Called at numba's first compile after ``install`` (its ``numba:compile`` event starts before any pass
    runs), or directly."""
    global _COMPILE_DONE
    from numba import config as numba_config

    if _COMPILE_DONE or not QUICK or numba_config.DISABLE_JIT:
        return _INSTALLED
    _COMPILE_DONE = True
    from numba.core import analysis, errors, inline_closurecall, ir, ir_utils, ssa, targetconfig
    from numba.parfors import parfor

    numbas = {"compute_live_map": analysis.compute_live_map,
              "TargetConfig.__hash__": targetconfig.TargetConfig.__hash__,
              "TargetConfig.__eq__": targetconfig.TargetConfig.__eq__,
              "_run_ssa": ssa._run_ssa, "_run_block_rewrite": ssa._run_block_rewrite,
              "InlineWorker.inline_function": inline_closurecall.InlineWorker.inline_function,
              "HighlightColorScheme._markup": getattr(getattr(errors, "HighlightColorScheme", None), "_markup", None)}
    NUMBAS.update(numbas)
    same = {name: _digest(fn) == _NUMBA_SOURCES[name] for name, fn in numbas.items()}
    if same["compute_live_map"]:
        for module in (analysis, ir_utils, parfor):
            module.compute_live_map = compute_live_map
        _INSTALLED.append("compute_live_map")
    if same["TargetConfig.__hash__"] and same["TargetConfig.__eq__"]:
        _flags(targetconfig.TargetConfig)
        _INSTALLED.append("TargetConfig")
    if same["_run_ssa"] and same["_run_block_rewrite"]:
        _ssa(ssa, ir)
        _INSTALLED.append("ssa")
    if same["InlineWorker.inline_function"]:
        _untyped_once(inline_closurecall.InlineWorker)
        _INSTALLED.append("untyped_once")
    if same["HighlightColorScheme._markup"]:
        _markup(errors)
        _INSTALLED.append("markup")
    return _INSTALLED
