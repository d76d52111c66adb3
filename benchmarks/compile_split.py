"""Where a cold compile's CPU goes, in four parts: LLVM's module passes (numba's
``CPUCodeLibrary._optimize_final_module``; under ``config.lean_link`` the libraries that run them, and the code
generator's IR passes run before them), the machine code (``JITCodeLibrary._finalize_specific``), and the rest
(numba's own passes, typing, lowering to LLVM IR, per-function passes, imports and the games played).
Runs one ``foury-sim`` command in this process with timers around those steps:

    FOURY_SIM_CACHE_DIR=$(mktemp -d) python benchmarks/compile_split.py run rooms --games 2000 --format json
    FOURY_SIM_FULL_LINK=1 FOURY_SIM_CACHE_DIR=$(mktemp -d) python benchmarks/compile_split.py run rooms --games 2000

(the second with numba's default linking; docs/startup.md, "Every game, session 31").
"""

from __future__ import annotations

import sys
import time
from collections import Counter


def main(argv: list[str]) -> None:
    from numba.core import codegen
    from typer.testing import CliRunner

    from foury_sim import config
    from foury_sim.cli import app

    config.lean_link()  # installed first, so that the timer below wraps whichever method numba will call
    spent: Counter = Counter()

    def timed(cls, name: str, key: str) -> None:
        f = getattr(cls, name)

        def g(*a, **k):
            t = time.process_time()
            try:
                return f(*a, **k)
            finally:
                spent[key] += time.process_time() - t
                spent[key + " calls"] += 1

        setattr(cls, name, g)

    if config.lean_link():  # the steps lean_link runs (a library that skips them is not counted)
        lean = codegen.CPUCodeLibrary._optimize_final_module
        timed(lean, "prepare", "IR passes")
        timed(lean, "full", "module passes")
    else:
        timed(codegen.CPUCodeLibrary, "_optimize_final_module", "module passes")
    timed(codegen.JITCodeLibrary, "_finalize_specific", "machine code")
    t0 = time.process_time()
    res = CliRunner().invoke(app, argv)
    total = time.process_time() - t0
    if res.exit_code != 0:
        print(res.output[-2000:], file=sys.stderr)
        raise SystemExit(res.exit_code)
    passes, prep, code = spent["module passes"], spent["IR passes"], spent["machine code"]
    print(f"lean link {config.LEAN_LINK}: {total:.1f} CPU s in all; module passes {passes:.1f} "
          f"(in {spent['module passes calls']} libraries), the code generator's IR passes before them {prep:.1f} "
          f"(in {spent['IR passes calls']}), machine code {code:.1f} (in {spent['machine code calls']}), "
          f"the rest {total - passes - prep - code:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
