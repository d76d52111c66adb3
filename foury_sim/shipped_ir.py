"""The engine's typed IR, shipped with each game, so that a first run compiles only the entry points.

A cold compile spends about two thirds of its time in numba's Python frontend (typing and lowering a hundred rule
functions) and the rest in LLVM. Under ``config.lean_link`` a rule function reached inside an entry point's compile
is cached as LLVM bitcode (its per-function passes done; its callees linked in): IR with nothing of a CPU in it
(no ``target-cpu``, no target features, no intrinsic of a CPU feature; only the x86-64 triple and data layout).
``tools/ship_ir.py`` compiles it for ``CODE_CPU`` (``NUMBA_CPU_NAME``), whose cost model the per-function passes
consult, so any machine makes the same IR (and the same machine code from it as from source under that name).
Each game ships the bitcode cache entries its entry points load (``games/NAME/data/engine_ir.xz``, written by
``tools/ship_ir.py``). When an entry point is about to compile (``config.CompiledOnFirstUse``), ``seed`` writes them
into the game's cache directory under this machine's key, when this machine's numba, llvmlite, Python and target
are the bundle's and the sources hash as the bundle's (``config._source_hash``: the cache directory's own key).
The entry points then compile from them: their own typing, the parfor, the module passes and the machine code for
this CPU. Anything else (an edited engine, another numba, ``FOURY_SIM_SHIPPED_IR=0``) compiles from source.

numba checks every seeded entry as it checks its own: the index's stamp (the hash of the function's source file),
the key's hash of the function's bytecode and the numba version in the index.

Each game also ships its entry points' machine code (``games/NAME/data/engine_code.xz``), compiled from that IR for
``CODE_CPU`` (x86-64-v3) and no further features. Where the IR applies, the CPU has ``CODE_FEATURES`` and the user
names no CPU (``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES``), ``seed`` writes it too, under this machine's key: a first
run then loads its entry point instead of compiling it (0.1 s, not 17-40 s on a slow 2-core machine), at the
price of code tuned for no CPU in particular (x0.98 to x1.03 the games per CPU second of code for this CPU, measured
on a Zen 1; docs/startup.md). ``FOURY_SIM_SHIPPED_CODE=0`` compiles the entry points for this CPU from the IR instead,
into a cache folder of its own (``config._cache_dir``).
"""

from __future__ import annotations

import hashlib
import lzma
import os
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path

#: The bundle's file in a game package.
BUNDLE = "data/engine_ir.xz"
#: The shipped machine code of a game's entry points (``tools/ship_ir.py``), seeded with the IR where it applies.
CODE_BUNDLE = "data/engine_code.xz"
#: The CPU the machine code is made for: the x86-64-v3 level (Intel from Haswell, 2013; AMD from Zen, 2017), so
#: that a machine with these features (llvmlite's names) loads it; any other compiles from the IR for itself.
CODE_CPU = "x86-64-v3"
CODE_FEATURES = frozenset({"cmov", "cx8", "fxsr", "mmx", "sse", "sse2",  # x86-64
                           "cx16", "sahf", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3",  # v2
                           "avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"})  # v3
#: The file in a seeded cache directory that says which bundle was written there (``_marker``: one per checkout).
MARKER = "shipped-ir"
_ROOT = Path(os.path.abspath(os.path.dirname(__file__)))  # as numba's locator names a module's folder (no resolve)


@dataclass(frozen=True)
class Entry:
    """One cached function: its source file (relative to the package root), numba's index and data file names,
    the index key's signature and bytecode hashes (the key less this machine's part), and the data."""

    file: str
    index: str
    sig: object
    code: tuple
    name: str
    data: bytes

    def machine_code(self) -> bytes:
        """The ``.ltext`` of an entry of kind ``object`` (``text_section``)."""
        return text_section(pickle.loads(self.data)[0][2][0])


def bundle_path(package: str) -> Path:
    """The shipped IR of game package ``package`` (``games/NAME``)."""
    return _ROOT / package / BUNDLE


def code_path(package: str) -> Path:
    """The shipped machine code of game package ``package``."""
    return _ROOT / package / CODE_BUNDLE


def environment() -> dict[str, str]:
    """What a bundle is valid for: numba, llvmlite, Python's bytecode, the target triple and data layout, and the
    compile settings the bundle was made with (the defaults)."""
    import llvmlite
    import numba
    from numba.core.registry import cpu_target

    from . import config

    cg = cpu_target.target_context.codegen()
    return {"numba": numba.__version__, "llvmlite": llvmlite.__version__, "python": sys.implementation.cache_tag,
            "triple": cg._llvm_module.triple, "data_layout": str(cg.target_data),
            "settings": f"lean={config.LEAN_LINK} quick={config.QUICK_INLINE}"}


def read(package: str, code: bool = False) -> dict | None:
    """The bundle of ``package`` (``{"meta": ..., "entries": [Entry, ...]}``; its machine code with ``code``), or
    None when it ships none."""
    path = code_path(package) if code else bundle_path(package)
    if not path.exists():
        return None
    with lzma.open(path, "rb") as f:
        return pickle.load(f)


def applies(package: str) -> str:
    """Why the bundle of ``package`` is not used here ("" when it is)."""
    return _usable(package)[1]


def _usable(package: str) -> tuple[dict | None, str]:
    """The bundle of ``package`` when it applies here, else None and why not."""
    from . import config

    if not config.SHIPPED_IR:
        return None, "FOURY_SIM_SHIPPED_IR=0"
    if config.JIT_DISABLED or not config.CACHE or config._USER_CACHE_DIR or not config.lean_link():
        return None, "no on-disk cache of this project's own (or numba off)"
    try:
        bundle = read(package)
        meta = bundle["meta"] if bundle is not None else None
    except Exception as e:  # noqa: BLE001 - a damaged bundle (truncated, a Git LFS pointer): compile from source
        return None, f"its file cannot be read ({type(e).__name__}: {bundle_path(package)})"
    if bundle is None:
        return None, "no shipped IR"
    if meta["sources"] != config._source_hash((package,)):
        game = package.rsplit("/", 1)[-1]
        return None, f"the sources changed since it was made (run python tools/ship_ir.py {game})"
    here = environment()
    off = [k for k in here if meta["environment"].get(k) != here[k]]
    if off:
        return None, "made for another " + ", ".join(f"{k} ({meta['environment'].get(k)}, here {here[k]})"
                                                      for k in off)
    return bundle, ""


def code_applies(package: str) -> str:
    """Why the shipped machine code of ``package`` is not used here ("" when it is)."""
    return _code_usable(package)[1]


def _code_usable(package: str, ir: dict | None = None) -> tuple[dict | None, str]:
    """The machine code bundle of ``package`` when it applies here (the IR's conditions, this CPU has
    ``CODE_FEATURES``, no CPU of the user's choosing), else None and why not; ``ir``: the IR bundle, already found
    usable (``seed``)."""
    import numba
    from llvmlite import binding as ll

    from . import config

    if not config.SHIPPED_CODE:
        return None, "FOURY_SIM_SHIPPED_CODE=0 (or FOURY_SIM_SHIPPED_IR=0)"
    if ir is None:
        ir, why = _usable(package)
        if ir is None:
            return None, why
    if numba.config.CPU_NAME is not None or numba.config.CPU_FEATURES is not None:
        return None, "NUMBA_CPU_NAME or NUMBA_CPU_FEATURES is set"
    host = ll.get_host_cpu_features()
    lacking = sorted(f for f in CODE_FEATURES if not host.get(f, False))
    if lacking:
        return None, f"this CPU lacks {', '.join(lacking)} ({CODE_CPU})"
    try:
        bundle = read(package, code=True)
    except Exception as e:  # noqa: BLE001 - a damaged bundle: compile from the IR
        return None, f"its file cannot be read ({type(e).__name__}: {code_path(package)})"
    if bundle is None:
        return None, "no shipped machine code"
    meta = bundle["meta"]
    if meta["sources"] != ir["meta"]["sources"] or meta["environment"] != ir["meta"]["environment"] \
            or meta["cpu"] != CODE_CPU:
        game = package.rsplit("/", 1)[-1]
        return None, f"it was made for other sources or settings (run python tools/ship_ir.py {game})"
    return bundle, ""


def text_section(obj: bytes, name: str = ".ltext") -> bytes:
    """A section of an ELF64 object (numba's machine code of an entry point keeps its code in ``.ltext``); b""
    when it has none. The rest of a cache entry names this process's addresses: compiles compare by this."""
    import struct

    shoff, = struct.unpack_from("<Q", obj, 0x28)
    size, n, names = struct.unpack_from("<HHH", obj, 0x3A)

    def head(i: int) -> tuple:
        return struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * size)

    base = head(names)[4]
    for i in range(n):
        h = head(i)
        if obj[base + h[0]:obj.index(b"\0", base + h[0])].decode() == name:
            return obj[h[4]:h[4] + h[5]]
    return b""


def _put(path: str | Path, data: bytes) -> None:
    """Write a file whole or not at all (a temporary file renamed over it): another process may be reading the
    cache."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _index_dir(cache_dir: str, file: str) -> str:
    """numba's folder for the functions of source ``file`` in ``cache_dir`` (its ``UserProvidedCacheLocator``)."""
    from numba.core.caching import _CacheLocator

    return os.path.join(cache_dir, _CacheLocator.get_suitable_cache_subpath(str(_ROOT / file)))


def _marker(cache_dir: str) -> str:
    """The marker of a seeding for this checkout: numba keeps a folder of indexes per source path, so a second
    checkout of the same sources, sharing the source-keyed cache directory, is seeded into its own folders too."""
    from numba.core.caching import _CacheLocator

    return os.path.join(cache_dir, f"{MARKER}-{_CacheLocator.get_suitable_cache_subpath(str(_ROOT))}")


def seed(package: str) -> int:
    """Write the shipped IR of ``package`` (and its entry points' machine code, ``code_applies``) into its cache
    directory, once, when it applies here; the number of functions written (an index numba already keeps is left
    alone)."""
    from . import config

    cache_dir = config._cache_dir(package)
    marker = _marker(cache_dir)
    if os.path.exists(marker):
        return 0
    bundle, _ = _usable(package)
    if bundle is None:
        return 0
    code, _ = _code_usable(package, bundle)
    if code is not None:
        bundle = {"meta": dict(bundle["meta"], digest=bundle["meta"]["digest"] + "+" + code["meta"]["digest"]),
                  "entries": bundle["entries"] + code["entries"]}
    try:
        return _write(bundle, cache_dir, marker)
    except OSError:  # a cache that cannot be written: the engine compiles from source, as without the bundle
        return 0


def _write(bundle: dict, cache_dir: str, marker: str) -> int:
    """``seed``'s writes: each function's data, then its index under this machine's key, then the marker."""
    import numba
    from numba.core.registry import cpu_target

    os.makedirs(cache_dir, exist_ok=True)
    magic = cpu_target.target_context.codegen().magic_tuple()
    groups: dict[tuple[str, str], list[Entry]] = {}
    for e in bundle["entries"]:
        groups.setdefault((e.file, e.index), []).append(e)
    written = 0
    for (file, index), entries in groups.items():
        folder = _index_dir(cache_dir, file)
        os.makedirs(folder, exist_ok=True)
        if os.path.exists(os.path.join(folder, index)):
            continue
        for e in entries:
            _put(os.path.join(folder, e.name), e.data)
        stamp = hashlib.sha256((_ROOT / file).read_bytes()).digest()  # numba's stamp: the source file's hash
        overloads = {(e.sig, magic, e.code): e.name for e in entries}
        _put(os.path.join(folder, index),
             pickle.dumps(numba.__version__, protocol=-1) + pickle.dumps((stamp, overloads), protocol=-1))
        written += len(entries)
    _put(marker, bundle["meta"]["digest"].encode())
    return written


def record_loads() -> list[str]:
    """From now on, the name of every data file numba's cache loads in this process, in a list (for
    ``tools/ship_ir.py`` and the tests: which entries a compile took from the cache)."""
    from numba.core import caching

    loaded: list[str] = []
    load = caching.IndexDataCacheFile._load_data

    def logged(self, name):
        loaded.append(name)
        return load(self, name)

    caching.IndexDataCacheFile._load_data = logged
    return loaded


def seeded(package: str) -> bool:
    """Whether the shipped IR of ``package`` was written into its cache directory here (for this checkout)."""
    from . import config

    return os.path.exists(_marker(config._cache_dir(package)))


def collect(cache_dir: str, package: str, names: set[str] | None = None, kind: str = "bitcode") -> list[Entry]:
    """The bitcode entries (``kind="object"``: machine code) of ``package``'s functions in ``cache_dir`` (a game's
    cache directory filled by a compile); only the data files in ``names`` when given."""
    from numba.core.caching import _CacheLocator

    folders = {}
    for src in [_ROOT / f for f in _core_files()] + sorted((_ROOT / package).rglob("*.py")):
        folders.setdefault(_CacheLocator.get_suitable_cache_subpath(str(src)), {})[src.stem] = src
    out = []
    for sub, stems in sorted(folders.items()):
        folder = os.path.join(cache_dir, sub)
        if not os.path.isdir(folder):
            continue
        for index in sorted(f for f in os.listdir(folder) if f.endswith(".nbi")):
            src = stems.get(index.split(".", 1)[0])
            if src is None:
                continue
            with open(os.path.join(folder, index), "rb") as f:
                pickle.load(f)
                _stamp, overloads = pickle.loads(f.read())
            for key, name in sorted(overloads.items(), key=lambda kv: kv[1]):
                if names is not None and name not in names:
                    continue
                data = Path(folder, name).read_bytes()
                if pickle.loads(data)[0][1] != kind:  # (an entry point's machine code, or a callee's bitcode)
                    continue
                out.append(Entry(src.relative_to(_ROOT).as_posix(), index, key[0], key[2], name, data))
    return out


def _core_files() -> list[str]:
    """The project's core modules (a kernel's cache directory also holds the core functions compiled in it)."""
    return sorted(f for f in os.listdir(_ROOT) if f.endswith(".py"))


def write(package: str, entries: list[Entry], code: bool = False) -> bool:
    """Write the bundle of ``package`` (``tools/ship_ir.py``; its machine code with ``code``, made for
    ``CODE_CPU``); False when the shipped one already holds the same functions' bitcode (or machine code) for the
    same sources and environment (left as it is: a cache entry's other fields, numba's type annotation text, name
    this process's addresses, so a compile never gives the same bytes twice)."""
    from . import config

    h = hashlib.sha256()
    for e in entries:
        payload = pickle.loads(e.data)[0][2]
        h.update(e.file.encode() + e.name.encode() + (payload[0] if code else payload))
    meta = {"sources": config._source_hash((package,)), "environment": environment(), "digest": h.hexdigest()[:16],
            "functions": [f"{e.file}:{e.index}" for e in entries], "cpu": CODE_CPU}
    old = read(package, code)
    if old is not None and old["meta"] == meta:
        return False
    _put(code_path(package) if code else bundle_path(package),
         lzma.compress(pickle.dumps({"meta": meta, "entries": entries}, protocol=4), preset=9))
    return True
