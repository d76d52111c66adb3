"""Where a game's kernel spends its time: perf samples of the machine code a user loads, by function and instruction.

    python benchmarks/profile_kernel.py GAME [--policy P] [--hero H] [--games N] [--repeats R] [--top K] [--out DIR]
        [--lines]

Runs the game's ``simulate`` on 1 thread under ``perf record`` (software clock, 4,999 Hz) after a warm-up, then maps
every sample's address onto the kernel's object code: the entry point's object (numba's cache entry, the one the
process loaded) is found in the process's executable memory by its code, relocations aside, and each sample is given
to the function whose symbol starts before it (``objdump -t`` of the object; the callees are internal to the entry
point's module, so a function inlined into another counts as that other). Prints the share of each function and the
hottest instructions (``objdump -d`` of the object at the same offsets). Needs ``perf`` and ``objdump``. The kernel is
what the process loads: the shipped machine code in an empty cache, or whatever this checkout's cache holds (say
``FOURY_SIM_CACHE_DIR=$(mktemp -d)`` to be sure it is the shipped code: docs/speed.md, session 53).
"""

from __future__ import annotations

import argparse
import bisect
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _child_source() -> str:
    """The profiled process's script (run under ``perf record``): warm up, save the loaded kernel object and where
    its code lies in memory, then play."""
    return '''
import sys, time
from collections import Counter
import numba
numba.set_num_threads(1)
from foury_sim import config
from foury_sim.policy import make_policy
from foury_sim.registry import get_game
from foury_sim.shipped_ir import text_section
game, hero, policy, games, repeats, out = sys.argv[1:7]
spec = get_game(game)
rs = spec.load_ruleset(None, None, None)
pol = make_policy(policy or spec.default_policy, spec.policies)
hero = hero or spec.default_hero
spec.simulate(rs, hero, pol, 0, 0, 2000)
entries = [e for e in config.ENTRY_POINTS if e.dispatcher is not None and e.package == f"games/{game}"]
best = None
for e in entries:
    cache = e.dispatcher._cache
    index = cache._cache_file._load_index()
    for name in index.values():
        data = cache._cache_file._load_data(name)
        try:
            obj = data[0][2][0]
        except (TypeError, IndexError, KeyError):
            continue
        if isinstance(obj, bytes) and obj[:4] == b"\\x7fELF" and (best is None or len(obj) > len(best[1])):
            best = (e.fn.__qualname__, obj)
if best is None:
    sys.exit("no entry point of this game was loaded as object code (FOURY_SIM_NO_CACHE? NUMBA_DISABLE_JIT?)")
name, obj = best
text = text_section(obj)
base = None
with open("/proc/self/maps") as f, open("/proc/self/mem", "rb") as mem:
    for line in f:
        parts = line.split()
        if "x" not in parts[1] or len(parts) > 5:
            continue
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        if hi - lo < len(text):
            continue
        try:
            mem.seek(lo)
            region = mem.read(hi - lo)
        except OSError:
            continue
        votes = Counter()
        for off in range(0, len(text) - 16, 64):  # short pieces: the relocated words differ, the rest is the same
            i = region.find(text[off:off + 12])
            if i >= 0:
                votes[lo + i - off] += 1
        if votes:
            at, n = votes.most_common(1)[0]
            if n > len(text) // 64 // 4 and (base is None or n > base[1]):
                base = (at, n)
if base is None:
    sys.exit(f"the code of {name} was not found in this process's memory")
with open(f"{out}/kernel.o", "wb") as f:
    f.write(obj)
with open(f"{out}/where", "w") as f:
    f.write(f"{base[0]} {len(text)} {name}\\n")
t = time.perf_counter()
for r in range(int(repeats)):
    spec.simulate(rs, hero, pol, r + 1, 0, int(games))
print(f"{int(games) * int(repeats) / (time.perf_counter() - t):,.0f} games/s on 1 thread (under perf)", flush=True)
'''


def _symbols(obj: Path) -> list[tuple[int, str]]:
    """(offset in ``.ltext``, name) of every symbol of the object's code, by offset."""
    out = subprocess.run(["objdump", "-t", str(obj)], capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        p = line.split()
        if len(p) >= 6 and p[-3] == ".ltext":
            syms.append((int(p[0], 16), p[-1]))
    return sorted(syms)


def _demangle(name: str) -> str:
    """``foury_sim.games.delve.kernel.play_delve`` from numba's mangled name (the rest of it dropped)."""
    m = re.search(r"_ZN(?:\d+[A-Za-z_][A-Za-z0-9_]*)+", name)
    if not m:
        return name[:80]
    parts, s = [], m.group(0)[3:]
    while s and s[0].isdigit():
        n = int(re.match(r"\d+", s).group(0))
        s = s[len(str(n)):]
        parts.append(s[:n])
        s = s[n:]
    head = name[: m.start()]
    return (head + ".".join(parts)) if parts else name[:80]


def _ips(out: Path) -> list[str]:
    """Every sample's address (hex) in ``out/perf.data``."""
    return subprocess.run(["perf", "script", "-i", str(out / "perf.data"), "-F", "ip"], capture_output=True,
                          text=True, check=True).stdout.split()


def lines(out: Path, top: int) -> str:
    """The hottest source lines of a profile in ``out``, from the object's line table (``addr2line``): only an engine
    compiled with one has it (an empty cache, ``FOURY_SIM_SHIPPED_IR=0 NUMBA_DEBUGINFO=1 NUMBA_BOUNDSCHECK=0``; that
    build inlines less and runs slower, so its lines are a guide to the shipped code, not its measure)."""
    heads = subprocess.run(["objdump", "-h", str(out / "kernel.o")], capture_output=True, text=True).stdout
    if ".debug_line" not in heads or shutil.which("addr2line") is None:
        return "no line table in the kernel's object (or no addr2line): see --lines in --help"
    base, size, _ = open(out / "where").read().split()
    base, size = int(base), int(size)
    at = collections.Counter(a for a in (int(h, 16) - base for h in _ips(out)) if 0 <= a < size)
    found = subprocess.run(["addr2line", "-e", str(out / "kernel.o"), "-j", ".ltext", "-a"],
                           input="".join(f"{a:#x}\n" for a in at), capture_output=True, text=True).stdout.split("\n")
    by_line: collections.Counter = collections.Counter()
    for i in range(0, len(found) - 1, 2):  # an address, then its file:line
        by_line["/".join(found[i + 1].split("/")[-2:])] += at[int(found[i], 16)]
    total = max(sum(at.values()), 1)
    return "\n".join(["share  line (innermost; '?' has no line)"]
                     + [f"{n / total:6.1%}  {where}" for where, n in by_line.most_common(top)])


def analyse(out: Path, top: int) -> str:
    """The report of a profile written into ``out`` (``perf.data``, ``kernel.o``, ``where``)."""
    base, size, entry = open(out / "where").read().split()
    base, size = int(base), int(size)
    syms = _symbols(out / "kernel.o")
    starts = [s[0] for s in syms]
    ips = _ips(out)
    by_fn: collections.Counter = collections.Counter()
    by_inst: collections.Counter = collections.Counter()
    for h in ips:
        a = int(h, 16) - base
        if 0 <= a < size:
            i = bisect.bisect_right(starts, a) - 1
            by_fn[syms[i][1] if i >= 0 else "?"] += 1
            by_inst[a] += 1
    inside = sum(by_fn.values())
    lines = [f"{len(ips):,} samples, {inside:,} in the kernel of {entry} ({inside / max(len(ips), 1):.1%}; the rest: "
             "the interpreter, the summaries, the kernel's set-up)", "", "share  samples  function"]
    lines += [f"{n / inside:6.1%} {n:7d}  {_demangle(name)}" for name, n in by_fn.most_common(25)]
    asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "intel", "--section=.ltext",
                          str(out / "kernel.o")], capture_output=True, text=True, check=True).stdout
    text = {}
    for ln in asm.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*)", ln)
        if m:
            text[int(m.group(1), 16)] = re.sub(r"<[^>]*>", "", m.group(2)).strip()
    on_inst = sum(n for a, n in by_inst.items() if a in text)
    lines += ["", f"hottest instructions ({on_inst / max(inside, 1):.0%} of the samples fall on an instruction's "
              "first byte; far less means the code was not found where it runs):",
              "share  offset  function: instruction"]
    for a, n in by_inst.most_common(top):
        i = bisect.bisect_right(starts, a) - 1
        fn = _demangle(syms[i][1]).rsplit(".", 1)[-1] if i >= 0 else "?"
        lines.append(f"{n / inside:6.1%} {a:7x}  {fn}: {text.get(a, '?')}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--policy", default="", help="a built-in policy (default: the game's)")
    ap.add_argument("--hero", default="", help="default: the game's")
    ap.add_argument("--games", type=int, default=400_000, help="games a repeat (default 400,000)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--top", type=int, default=30, help="hottest instructions to list")
    ap.add_argument("--out", type=Path, default=None, help="keep perf.data and the object here (default: a temp dir)")
    ap.add_argument("--lines", action="store_true",
                    help="also the hottest source lines: needs an engine with a line table, compiled into an empty "
                    "cache with FOURY_SIM_SHIPPED_IR=0 NUMBA_DEBUGINFO=1 NUMBA_BOUNDSCHECK=0 (it inlines less and "
                    "runs slower: a guide only)")
    a = ap.parse_args()
    missing = [t for t in ("perf", "objdump") if shutil.which(t) is None]
    if missing:
        print(f"profile_kernel.py: {' and '.join(missing)} not found on PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = a.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", "4999", "-o", str(out / "perf.data"), sys.executable,
               "-c", _child_source(), a.game, a.hero, a.policy, str(a.games), str(a.repeats), str(out)]
        r = subprocess.run(cmd, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True)
        if r.returncode != 0:
            print(f"profile_kernel.py: the profiled run failed: {(r.stderr.strip().splitlines() or ['?'])[-1]}",
                  file=sys.stderr)
            return 2
        print(r.stdout.strip())
        print(analyse(out, a.top))
        if a.lines:
            print()
            print(lines(out, a.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
