"""Seeded fuzz of hostile user policies (issue 11): for both games, generated policies write to their
arrays at random places (in and out of range), read at random places, return wild answers (negative,
n_options, huge, a float) and read past their declared parameters. Each run either succeeds with sane
figures (and, for a policy that only writes to its arrays, exactly the games of the same policy
without the writes: writes never reach the game), or is refused with ONE line naming the policy file
or the option; never a traceback, a crash or a hang.

The cases come from ``random.Random(SEED)``: a failure names its case and reproduces.
"""

from __future__ import annotations

import random
import textwrap

import numpy as np
import pytest

from foury_sim import runner
from foury_sim.errors import InputError

SEED = 1111
GAMES = 40
N_CASES = 10  # per game, besides the base policy and the exact cases below

#: Each game's base policy (a sensible player) and the imports it needs.
BASES = {
    "foury": (
        "from foury_sim.games.foury.policies import GREEDY_PARAMS, greedy_decide\n",
        "greedy_decide(kind, state, options, n_options, GREEDY_PARAMS)",
    ),
    "delve": ("", "0"),
}


def _case(rng: random.Random, i: int) -> tuple[str, str, str]:
    """(function name, body lines after ``c = base``, expectation: "same", "ok" or "error")."""
    kind = rng.choice(["write", "write", "write_out", "read", "answer", "params", "float"])
    name = f"p{i}_{kind}"
    if kind == "write":  # in-range writes after deciding: harmless, the same games as the base
        lines = []
        for _ in range(rng.randint(1, 4)):
            v = rng.choice([0, -1, 7, 10**9, -(2**62), 2**62])
            arr = rng.choice(["state", "options", "params"])
            if arr == "state":
                lines.append(f"state[{rng.randint(-5, 300)} % state.shape[0]] = {v}")
            elif arr == "options":
                lines.append(f"options[{rng.randint(0, 99)} % options.shape[0], {rng.randint(0, 40)} % "
                             f"options.shape[1]] = {v}")
            else:
                lines.append(f"params[{rng.randint(0, 5)} % params.shape[0]] = {float(v)}")
        return name, "\n".join(lines), "same"
    if kind == "write_out":
        arr = rng.choice(["state", "params"])
        return name, f"{arr}[{arr}.shape[0] + {rng.randint(0, 10**6)}] = 1", "error"
    if kind == "read":  # in range (also negative, which counts from the end as in Python) or not
        arr = rng.choice(["state", "options"])
        if arr == "state":
            idx = rng.choice([rng.randint(0, 40), -rng.randint(1, 40), 10**3 + rng.randint(0, 10**6)])
            ok = idx < 256
            return name, f"if state[{idx}] == -123456789:\n    c = 0", "ok" if ok else "error"
        row = rng.choice([0, 1, 10**4 + rng.randint(0, 10**6)])
        return name, f"if options[{row}, 0] == -123456789:\n    c = 0", "ok" if row < 10**4 else "error"
    if kind == "answer":
        v = rng.choice(["-1", "n_options", str(2**62), str(-(2**40)), "n_options + 3"])
        return name, f"c = {v}", "error"
    if kind == "params":  # the file declares two parameters
        return name, f"if params[{rng.randint(2, 40)}] == -1.5:\n    c = 0", "error"
    return name, "c = c + 0.5", "error"  # a float answer: refused when the file loads


def _write_file(tmp_path, game: str, cases) -> str:
    imports, base = BASES[game]
    src = [imports, 'POLICY_PARAMS = {"a": 1.0, "b": 2.0}\n\n']
    src.append(f"def base(kind, state, options, n_options, params):\n    return {base}\n\n")
    for name, body, _ in cases:
        src.append(f"def {name}(kind, state, options, n_options, params):\n    c = {base}\n"
                   f"{textwrap.indent(body, '    ')}\n    return c\n\n")
    path = tmp_path / f"fuzz_{game}.py"
    path.write_text("\n".join(src))
    return str(path)


def _sane(game: str, res) -> None:
    df = res.df
    assert len(df) == GAMES
    vals = df.select_dtypes("number").to_numpy(dtype=np.float64)
    assert np.isfinite(vals).all() and np.abs(vals).max() < 10**6
    assert 0 <= res.summary["win"]["rate"] <= 1
    assert df["win"].isin([0, 1]).all()


@pytest.mark.parametrize("game", ["foury", "delve"])
def test_hostile_user_policies_are_harmless_or_refused_in_one_line(tmp_path, game):
    rng = random.Random(f"{SEED}-{game}")
    cases = [_case(rng, i) for i in range(N_CASES)]
    # Policies that would keep a game going if the rules let them: always the last option (fight on,
    # pick another die to reroll, loot again...) and always the first; every game still ends.
    cases += [("last", "c = n_options - 1", "ok"), ("first", "c = 0", "ok")]
    path = _write_file(tmp_path, game, cases)
    base = runner.run(game, policy=f"{path}:base", games=GAMES, seed=3, progress=False)
    _sane(game, base)
    for name, body, expect in cases:
        case = f"{game} {name}: {body!r} (expect {expect})"
        try:
            res = runner.run(game, policy=f"{path}:{name}", games=GAMES, seed=3, progress=False)
        except InputError as e:
            line = str(e)
            assert expect == "error", f"{case}: refused: {line}"
            assert "\n" not in line and (path in line or e.where == "--policy" and name in line), case
            continue
        assert expect != "error", f"{case}: accepted"
        _sane(game, res)
        if expect == "same":
            assert res.df.equals(base.df), f"{case}: writes changed the games"
