"""Seeded fuzz of the newer verbs' files (session 65): tuning files, ladder files, baseline specs and robustness
studies, mutated as ``test_fuzz_experiments`` mutates sweeps (a bad value, a deleted or doubled line, an unknown key,
a bad name, bad bytes, a truncation), each loaded as its verb loads it: it loads, or it is refused with ONE line
naming the file (at line[:column] when the fault has a line); never a traceback. Then the classes the fuzz found,
one test each: a ``game`` that is no text, a conclusion ``kind`` that is no text, a hero/policy/rules/map setting
that is no text or empty (a traceback, or the default played in silence under the empty name), and a robustness
study's ``[factors]`` whose value at the defaults was taken from its first alternative (so the study's "defaults"
were not the defaults, and a factor a conclusion sets varied nothing)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from test_fuzz_experiments import check_refusal, mutate

from foury_sim.baseline import load_spec
from foury_sim.errors import InputError
from foury_sim.ladder import load_ladder
from foury_sim.robust import load_robust
from foury_sim.study import load_experiment
from foury_sim.tune import load_tune_file

ROOT = Path(__file__).resolve().parents[1]
SEED = 20260265
N_CASES = 120
LOADERS = {
    "tune": (load_tune_file, ["experiments/tune_orc_per_hero.toml", "experiments/tune_schedule.toml"]),
    "ladder": (load_ladder, ["experiments/ladder_delve.toml", "experiments/ladder_foury.toml"]),
    "baseline": (load_spec, ["experiments/baselines/foury.toml", "experiments/baselines/delve.toml",
                             "experiments/baselines/rooms.toml", "experiments/baselines/tactics.toml"]),
    "robust": (load_robust, ["tests/data/robust/tiny.toml", "tests/data/robust/delve_tiny.toml",
                             "experiments/robust_campaign_santa.toml", "experiments/rooms_robust_heroes.toml"]),
}


def test_fuzz_tune_ladder_baseline_and_robust_files(tmp_path):
    rng = random.Random(SEED)
    outcomes = {"loaded": 0, "refused": 0}
    for i in range(N_CASES):
        kind = rng.choice(sorted(LOADERS))
        load, files = LOADERS[kind]
        src = ROOT / rng.choice(files)
        what, data = mutate(src.read_text(), rng)
        path = tmp_path / f"{kind}_{i}.toml"
        path.write_bytes(data)
        what = f"case {i}: {kind} {src.name}: {what}"
        try:
            load(path)
        except InputError as e:
            check_refusal(e, path, what)
            outcomes["refused"] += 1
        else:
            outcomes["loaded"] += 1
    assert outcomes["loaded"] >= 10 and outcomes["refused"] >= 50, outcomes


SWEEP = 'name = "s"\ngame = "foury"\ngames = 10\n\n[fixed]\n{fixed}\n\n[sweep]\n{sweep}\n'
TUNE = ('name = "t"\ngame = "foury"\nparam = "enemies.orc.base"\ntarget = "win=0.2"\ntolerance = 0.05\n'
        'range = [-2, 4]\nmax_games = 1000\n\n[fixed]\n{fixed}\n')
ROBUST = 'name = "r"\ngame = "delve"\ngames = 10\npoints = 2\n\n[fixed]\n{fixed}\n\n[[conclusions]]\n{conclusion}\n'
RANKING = 'kind = "ranking"\nover = "hero"\nvalues = ["knight", "minstrel"]'
BASELINE = 'name = "b"\ngame = "foury"\ngames = 10\n\n[runs.a]\nsettings = {{ {fixed} }}\n'


@pytest.mark.parametrize("value", ["3", '""', '" "', '["greedy"]', "true", "{ a = 1 }"])
@pytest.mark.parametrize("key", ["policy", "rules", "hero"])
@pytest.mark.parametrize("verb", ["sweep", "tune", "robust", "baseline"])
def test_a_name_setting_that_is_no_text_or_empty_is_one_line_at_its_place(tmp_path, verb, key, value):
    """``policy = 3`` (or ``rules = ["a"]``, ``policy = true``) in ``[fixed]`` was a traceback in sweep, tune and
    robust; ``policy = ""`` and ``hero = ""`` played the game's default under the empty name, exit 0."""
    line = f"{key} = {value}"
    if verb == "sweep":
        text = SWEEP.format(fixed=line if key != "hero" else "", sweep='hero = ["free", "kael"]' if key != "hero"
                            else f"hero = [{value}, \"kael\"]")
        load = load_experiment
    elif verb == "tune":
        text, load = TUNE.format(fixed=line), load_tune_file
    elif verb == "robust":
        text, load = ROBUST.format(fixed=line if key != "hero" else 'policy = "threshold"',
                                   conclusion=RANKING if key != "hero" else RANKING.replace('"minstrel"', value)), \
            load_robust
    else:
        text, load = BASELINE.format(fixed=line), load_spec
    path = tmp_path / f"{verb}.toml"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        load(path)
    check_refusal(e.value, path, line)
    assert ":" in (e.value.where or "")[len(str(path)):], e.value  # at its line
    assert key in e.value.message or "hero" in e.value.message or "list" in e.value.message, e.value


@pytest.mark.parametrize("verb, load", [("sweep", load_experiment), ("tune", load_tune_file),
                                        ("robust", load_robust), ("ladder", load_ladder)])
@pytest.mark.parametrize("value", ['["foury"]', "{ a = 1 }", "3"])
def test_a_game_that_is_no_text_is_one_line_at_its_line(tmp_path, verb, load, value):
    path = tmp_path / "g.toml"
    path.write_text(f'name = "g"\ngame = {value}\n')
    with pytest.raises(InputError) as e:
        load(path)
    assert e.value.where == f"{path}:2" and "game" in e.value.message, e.value


@pytest.mark.parametrize("value", ["[]", "{ a = 1 }", "3"])
def test_a_conclusion_kind_that_is_no_text_is_one_line(tmp_path, value):
    """A bad ``kind`` is reported at its own line (10), not at the ``[[conclusions]]`` header (9)."""
    path = tmp_path / "r.toml"
    path.write_text(ROBUST.format(fixed='policy = "threshold"', conclusion=RANKING.replace('"ranking"', value)))
    with pytest.raises(InputError) as e:
        load_robust(path)
    assert e.value.where == f"{path}:10" and "kind must be" in e.value.message, e.value


def _factors(tmp_path, factors: str, fixed: str = 'policy = "threshold"', conclusion: str = RANKING):
    path = tmp_path / "r.toml"
    path.write_text(ROBUST.format(fixed=fixed, conclusion=conclusion) + "\n[factors]\n" + factors + "\n")
    return path, {f.key: f for f in load_robust(path).factors}


def test_a_factor_starts_from_its_value_at_the_defaults(tmp_path):
    """The first alternative listed stood for the defaults when the key was no ruleset path: ``policy = ["random"]``
    with ``[fixed] policy = "threshold"`` played random at "the defaults" and never threshold; a policy parameter
    started at the first value listed, not at the policy's own; a short ruleset key (``party_dice``) had no value at
    the defaults and was refused as ``--set game.party_dice=None``; ``rules = ["r.toml"]`` played the file at "the
    defaults"."""
    from foury_sim.registry import get_game

    rules = tmp_path / "r.toml.rules"
    rules.write_text("[game]\nparty_dice = 6\n")
    retire = dict(zip(*(lambda p: (p.param_names, p.params))(get_game("delve").policy("threshold"))))["retire_level"]
    _, f = _factors(tmp_path, 'policy = ["random"]')
    assert f["policy"].levels == ["threshold", "random"]
    _, f = _factors(tmp_path, f'"param.retire_level" = [1, 5]\nparty_dice = {{ range = [5, 7] }}\n'
                              f'rules = ["{rules}"]\n"param.min_companions" = {{ range = [0, 3] }}')
    assert f["param.retire_level"].default == retire and f["param.retire_level"].levels[0] == retire
    assert f["party_dice"].default == 7 and f["party_dice"].oat() == [5]
    assert f["rules"].levels == [None, str(rules)] and f["rules"].oat() == [str(rules)]
    assert isinstance(f["param.min_companions"].default, float)


@pytest.mark.parametrize("factors, words", [
    ('hero = ["knight"]', "is set by conclusion 1"),
    ('party_dice = { range = ["a", 12] }', "range must be [LO, HI]"),
    ('party_dice = { range = [5, nan] }', "range must be [LO, HI]"),
    ('party_dice = { range = [5, 99] }', "above 12"),
    ('"param.nope" = [1, 2]', "unknown policy parameter 'nope'"),
    ('"heroes.knight.hp" = [1, 2]', "unknown ruleset key"),
    ('policy = ["random", 7]', "must be a name or a path"),
    ('rules = ["/nonexistent.toml"]', "does not exist"),
    ('policy = { range = [1, 2] }', "only for a number"),
    ('policy = ["random"]\n"param.retire_level" = [1, 5]', "unknown policy parameter 'retire_level'"),
])
def test_a_bad_factor_is_one_line_at_its_own_line(tmp_path, factors, words):
    path = tmp_path / "r.toml"
    path.write_text(ROBUST.format(fixed='policy = "threshold"', conclusion=RANKING) + "\n[factors]\n" + factors + "\n")
    with pytest.raises(InputError) as e:
        load_robust(path)
    assert e.value.where == f"{path}:15" and words in e.value.message, e.value
    assert "--set" not in str(e.value) and "--param" not in str(e.value), e.value


def test_a_policy_factor_plays_the_fixed_policy_at_the_defaults(tmp_path):
    from foury_sim.robust import run_robust

    path, _ = _factors(tmp_path, 'policy = ["random"]')
    out = run_robust(load_robust(path), tmp_path / "out", progress=False)
    import pandas as pd

    design = pd.read_csv(out / "design.csv")
    assert list(design.loc[design["kind"] != "oat", "policy"].unique()[:1]) == ["threshold"]
    assert sorted(design["policy"].unique()) == ["random", "threshold"]
    m = json.loads((out / "manifest.json").read_text())
    assert [f["levels"] for f in m["factors"] if f["key"] == "policy"] == [["threshold", "random"]]


BAD_POLICY = "def bad(kind, state, options, n_options, params):\n    return n_options + 3\n"


@pytest.mark.parametrize("verb", ["tune", "baseline", "robust", "ladder"])
def test_a_user_policys_fault_is_named_where_the_file_gives_the_policy(tmp_path, verb):
    """A user policy that answers out of range, given by a tuning file, a baseline spec, a robust study or a ladder
    file, was refused at ``--policy`` (an option never given); a sweep's was at its file's line. Now at the file's
    line (a ladder: the file and the rung)."""
    from foury_sim import baseline, ladder, robust, tune

    pol = tmp_path / "p.py"
    pol.write_text(BAD_POLICY)
    spec = f"{pol}:bad"
    path = tmp_path / f"{verb}.toml"
    if verb == "tune":
        path.write_text(TUNE.format(fixed=f'policy = "{spec}"'))
        play = lambda: tune.run_tune_file(load_tune_file(path), threads=1, progress=False)  # noqa: E731
        line = 10
    elif verb == "baseline":
        path.write_text(BASELINE.format(fixed=f'policy = "{spec}"'))
        play = lambda: baseline.save(load_spec(path), tmp_path / "b", progress=False)  # noqa: E731
        line = 6  # (the settings' line, which gives the policy: it was [runs.a]'s, line 5)
    elif verb == "robust":
        path.write_text(ROBUST.format(fixed=f'policy = "{spec}"', conclusion=RANKING)
                        + '\n[factors]\n"game.party_dice" = [6]\n')
        play = lambda: robust.run_robust(load_robust(path), tmp_path / "r", progress=False)  # noqa: E731
        line = 7
    else:
        path.write_text(f'name = "l"\ngame = "delve"\ngames = 20\nheroes = ["knight"]\n\n[[rung]]\nlabel = "random"\n'
                        f'policy = "random"\n\n[[rung]]\nlabel = "mine"\npolicy = "{spec}"\n')
        play = lambda: ladder.run_ladder(load_ladder(path), tmp_path / "l", progress=False)  # noqa: E731
        line = None
    with pytest.raises(InputError) as e:
        play()
    assert "out of range" in e.value.message and spec in e.value.message, e.value
    assert e.value.where == (f"{path}:{line}" if line else str(path)), e.value
    if verb == "ladder":
        assert e.value.message.startswith("rung 'mine': ")


def test_a_dm_policy_files_fault_in_tune_is_named_at_fixed(tmp_path):
    """Tactics says a DM policy file's faults at ``--dm``; ``tune`` has no ``--dm``: the fault is named where tune took
    the DM, ``--fixed`` (as a player policy's, and as a sweep names any option it does not have)."""
    from inproc import cli

    dm = tmp_path / "baddm.py"
    dm.write_text(BAD_POLICY)
    r = cli("tune", "tactics", "--param", "player.hp", "--range", "5,15", "--target", "win=0.3", "--tolerance",
            "0.05", "--fixed", f"dm={dm}:bad", "--max-games", "2000", "--no-progress")
    assert r.returncode == 2, r.stdout + r.stderr
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("foury-sim: error: --fixed: ") and "out of range" in line, r.stderr
