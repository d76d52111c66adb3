"""Study reports: loading a results folder, choosing and drawing figures, report.md and report.html."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from foury_sim import figures as F
from foury_sim.errors import InputError
from foury_sim.games.foury.maps import resolve_map
from foury_sim.report import Results, build_report, load_results
from foury_sim.stats import wilson

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
R_ROOT = Path(__file__).resolve().parents[1]  #: the checkout, for a subprocess


# ------------------------------------------------------------------------------ synthetic data


def _hist(values: np.ndarray) -> dict[str, list[int]]:
    v, c = np.unique(values.astype(np.int64), return_counts=True)
    return {"values": v.tolist(), "counts": c.tolist()}


def make_study(
    root: Path,
    name: str,
    settings: list[dict],
    win_rates: list[float],
    *,
    games: int | list[int] = 400,
    foury: bool = True,
    target: float | None = None,
) -> Path:
    """A results folder as ``foury-sim sweep`` writes it, with made-up but consistent numbers."""
    rng = np.random.default_rng(len(settings))
    out = root / name
    (out / "cells").mkdir(parents=True)
    swept = list(settings[0])
    games_l = games if isinstance(games, list) else [games] * len(settings)
    m = resolve_map(None) if foury else None
    rows = []
    for i, (params, p, n) in enumerate(zip(settings, win_rates, games_l)):
        wins = int(round(p * n))
        lo, hi = wilson(wins, n)
        label = ", ".join(f"{k}={v}" for k, v in params.items())
        score = rng.poisson(20 + 10 * p, n)
        rec = {"cell": i, "label": label, "params": params, "games": n, "elapsed_s": 0.1,
               "summary": {"games": n, "win": {"rate": wins / n, "lo": lo, "hi": hi, "n": n}},
               "hist": {"score": _hist(score)}}
        row = {"cell": i, "label": label, **params, "games": n, "wins": wins, "win_rate": wins / n,
               "win_lo": lo, "win_hi": hi, "score_mean": float(score.mean()), "score_lo": float(score.mean() - 1),
               "score_hi": float(score.mean() + 1)}
        if foury:
            death_round = rng.choice(5, size=n, p=[0.2 + 0.5 * p, 0.4 - 0.5 * p, 0.2, 0.1, 0.1])
            death_turn = np.where(death_round > 0, death_round * 10 - rng.integers(0, 9, n), 0)
            turns = rng.integers(20, 80, n)
            turns[: n // 50] = 400  # a few games hit the turn cap
            rounds_completed = np.where(death_round > 0, death_round - 1, 4)
            rec["hist"].update({"turns": _hist(turns), "rounds_completed": _hist(rounds_completed),
                                "death_round": _hist(death_round), "death_turn": _hist(death_turn)})
            rooms = (m.sector >= 0).astype(int)
            rec["board_cells"] = {"map": str(m.path), "visits": (rooms * rng.integers(0, 3 * n, m.n)).tolist(),
                            "deaths": (rooms * rng.integers(0, n // 20, m.n)).tolist()}
            rec["summary"].update({"first_death_rate": float((death_round > 0).mean()),
                                   "death_by_cause": {"killed by an orc": int(n * 0.3), "stuck": int(n * 0.1)}})
            row.update({"turns_mean": float(turns.mean()), "turns_lo": 0.0, "turns_hi": 0.0})
        else:
            rec["hist"]["xp"] = _hist(rng.integers(0, 30, n))
        rows.append(row)
        (out / "cells" / f"cell_{i:04d}.json").write_text(json.dumps(rec))
    df = pd.DataFrame(rows)
    df.to_parquet(out / "cells.parquet", index=False)
    df.to_csv(out / "cells.csv", index=False)
    manifest = {"name": name, "title": f"Study {name}", "description": "A made-up study for the tests.",
                "game": "foury" if foury else "delve", "seed": 1, "swept": swept, "fixed": {"policy": "greedy"},
                "cells": settings, "package_version": "0.1.0", "git_commit": "0123456789abcdef",
                "started": "2026-01-01T00:00:00", "finished": "2026-01-01T00:01:00", "elapsed_s": 60.0,
                "experiment_text": f'name = "{name}"\n[sweep]\n',
                "report": {"target": target} if target is not None else {}}
    (out / "manifest.json").write_text(json.dumps(manifest))
    return out


HERO_POLICY = [{"hero": h, "policy": p} for h in ("kael", "melyra") for p in ("greedy", "cautious")]
HERO_RATES = [0.30, 0.45, 0.12, 0.20]


@pytest.fixture(scope="module")
def foury_study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("studies")
    path = make_study(root, "heroes", HERO_POLICY, HERO_RATES, games=[400, 400, 600, 400], target=0.4)
    return path, build_report(path)


def _pngs(paths: list[Path]) -> list[Path]:
    return [p for p in paths if p.suffix == ".png"]


def _md_table_rows(md: str) -> list[list[str]]:
    """Rows of the cells table in report.md (after the header and the alignment line)."""
    lines = md.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("| Rank |"))
    rows = []
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        rows.append([c.strip() for c in ln.strip("|").split("|")])
    return rows


# --------------------------------------------------------------------------------------- reports


def test_report_files_exist_and_pngs_are_valid(foury_study: tuple[Path, list[Path]]) -> None:
    path, written = foury_study
    assert path / "report.md" in written and path / "report.html" in written
    pngs = _pngs(written)
    assert pngs and all(p.parent == path / "figures" for p in pngs)
    for p in written:
        assert p.is_file() and p.stat().st_size > 0
    for p in pngs:
        assert p.read_bytes()[:8] == PNG_SIGNATURE
    assert not [p for p in (path / "figures").iterdir() if p.name.startswith(".")]  # no temp files left


def test_report_chooses_figures_for_a_categorical_study(foury_study: tuple[Path, list[Path]]) -> None:
    path, written = foury_study
    names = {p.name for p in _pngs(written)}
    assert "difficulty_hero.png" in names  # only categorical swept keys -> bars
    assert not any(n.startswith("win_rate_vs") for n in names)
    assert {"survival_by_round.png", "survival_by_turn.png", "distribution_score.png",
            "distribution_turns.png"} <= names
    # heat maps: cell 2 has the most games (and is the hardest), cell 1 is the easiest
    assert {"heat_deaths_cell0002.png", "heat_visits_cell0002.png", "heat_deaths_cell0001.png",
            "heat_visits_cell0001.png"} <= names
    assert len([n for n in names if n.startswith("heat_")]) == 4


def test_html_embeds_every_figure_and_the_table(foury_study: tuple[Path, list[Path]]) -> None:
    path, written = foury_study
    text = (path / "report.html").read_text(encoding="utf-8")
    assert text.count("data:image/png;base64") == len(_pngs(written))
    assert '<table class="cells">' in text
    for s in HERO_POLICY:
        assert f"<td>{s['hero']}</td><td>{s['policy']}</td>" in text
    assert "Study heroes" in text and "A made-up study for the tests." in text
    assert not re.search(r"""(src|href)=["']https?://""", text)  # self-contained


def test_markdown_lists_cells_sorted_by_win_rate(foury_study: tuple[Path, list[Path]]) -> None:
    path, written = foury_study
    md = (path / "report.md").read_text(encoding="utf-8")
    rows = _md_table_rows(md)
    assert [int(r[1]) for r in rows] == [1, 0, 3, 2]  # cell ids, highest win rate first
    rates = [float(r[5].rstrip(" %")) for r in rows]
    assert rates == sorted(rates, reverse=True)
    for p in _pngs(written):
        assert f"](figures/{p.name})" in md
    assert "Easiest: `hero=kael, policy=cautious`" in md
    assert "Hardest: `hero=melyra, policy=greedy`" in md
    assert "40 % target" in md


def test_numeric_sweep_draws_win_rate_lines(tmp_path: Path) -> None:
    settings = [{"requirements.kills": k, "hero": h} for k in (1, 2, 3) for h in ("kael", "melyra")]
    rates = [0.4, 0.3, 0.35, 0.25, 0.3, 0.2]
    path = make_study(tmp_path, "kills", settings, rates)
    written = build_report(path)
    names = {p.name for p in _pngs(written)}
    assert "win_rate_vs_requirements_kills.png" in names
    assert not any(n.startswith("difficulty_") for n in names)
    md = (path / "report.md").read_text()
    assert "win rate falls as requirements.kills grows" in md
    html = (path / "report.html").read_text()
    assert html.count("data:image/png;base64") == len(_pngs(written))


def test_other_game_without_rooms_or_deaths(tmp_path: Path) -> None:
    """The report asks the game's declaration which figures apply: Delve declares no survival figures and has
    no board, so none is planned (and none is listed as not drawn)."""
    settings = [{"hero": h} for h in ("knight", "mage", "thief")]
    path = make_study(tmp_path, "delve", settings, [0.5, 0.6, 0.4], foury=False)
    written = build_report(path)
    names = {p.name for p in _pngs(written)}
    assert names == {"difficulty_hero.png", "distribution_score.png"}
    html = (path / "report.html").read_text()
    assert html.count("data:image/png;base64") == 2
    md = (path / "report.md").read_text()
    assert "Figures not drawn" not in md and "Survival by round" not in md
    assert [r[2] for r in _md_table_rows(md)] == ["mage", "knight", "thief"]
    assert "Final score (mean)" in md  # the cells table's columns come from the declaration


def test_every_rate_and_mean_of_the_cells_table_has_its_interval_at_the_studys_level(tmp_path: Path) -> None:
    """The cells table gave the win rate its interval but printed the other rates (a share such as "died at least
    once", a rate column such as "became unwinnable") and the means bare; each has its interval now, at the
    study's level, from the saved results (the cell's summary, the cells table)."""
    from foury_sim.study import run_sweep

    exp = tmp_path / "x.toml"
    exp.write_text('name = "x"\ngame = "foury"\nseed = 3\ngames = 120\nconf = 0.9\n[fixed]\npolicy = "greedy"\n'
                   '[sweep]\nhero = ["kael", "melyra"]\n')
    out = run_sweep(exp, tmp_path / "r", progress=False, report=True)
    md = (out / "report.md").read_text()
    assert "The other rates and the means have their 90 % intervals in brackets" in md
    cells = pd.read_csv(out / "cells.csv").set_index("cell")
    for row in _md_table_rows(md):
        i = int(row[1])
        s = json.loads((out / "cells" / f"cell_{i:04d}.json").read_text())["summary"]
        lo, hi = s["share_intervals"]["first_death_rate"]
        assert f"{100 * s['first_death_rate']:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]" in row
        u = s["unwinnable"]
        assert u["conf"] == 0.9 and f"{100 * u['rate']:.1f} % [{100 * u['lo']:.1f}, {100 * u['hi']:.1f}]" in row
        c = cells.loc[i]
        assert f"{c['score_mean']:.2f} [{c['score_lo']:.2f}, {c['score_hi']:.2f}]" in row


def test_report_table_and_figures_follow_a_column_registered_in_a_test(tmp_path: Path, monkeypatch) -> None:
    from foury_sim import outputs as O
    from foury_sim.registry import get_game

    spec = get_game("delve")
    monkeypatch.setattr(spec, "outputs", spec.outputs.plus(
        O.Column("luck", "Luck", "charms", summary=O.MEAN, derive=lambda df: df["score"], distribution=True)))
    path = make_study(tmp_path, "delve", [{"hero": h} for h in ("knight", "mage")], [0.5, 0.6], foury=False)
    cells = pd.read_parquet(path / "cells.parquet")
    cells["luck_mean"] = [1.5, 2.5]
    cells.to_parquet(path / "cells.parquet", index=False)
    for i in range(2):
        f = path / "cells" / f"cell_{i:04d}.json"
        rec = json.loads(f.read_text())
        rec["hist"]["luck"] = {"values": [1, 2, 3], "counts": [1, 2, 1]}
        f.write_text(json.dumps(rec))
    written = build_report(path)
    assert "distribution_luck.png" in {p.name for p in _pngs(written)}
    md = (path / "report.md").read_text()
    assert "Luck (mean)" in md and "The mean luck ranges from 1.5 charms (`hero=knight`) to 2.5 charms" in md


def test_single_cell_and_csv_only(tmp_path: Path) -> None:
    path = make_study(tmp_path, "one", [{"hero": "kael"}], [0.25])
    (path / "cells.parquet").unlink()
    res = load_results(path)
    assert len(res.cells) == 1 and res.varying == []
    written = build_report(path)
    assert (path / "report.html").read_text().count("data:image/png;base64") == len(_pngs(written))


def test_every_figure_says_how_the_study_was_made(foury_study: tuple[Path, list[Path]]) -> None:
    """At each figure's foot (``figures.made_footer``): the game, the fixed settings, the policy, seed, games per cell,
    version and commit of the manifest; below everything the figure draws (a board's legend too), inside the
    figure."""
    from foury_sim.report import _plan

    path, _ = foury_study
    want = ("game foury; fixed: policy=greedy; seed 1; 400 to 600 games per cell; foury-sim 0.1.0, commit "
            "0123456789")
    plan = _plan(load_results(path), None)
    kinds = {p.name.split("_")[0]: p for p in plan}  # one figure of each kind: bars, survival, distribution, heat
    assert {"difficulty", "survival", "distribution", "heat"} <= set(kinds)
    for spec in kinds.values():
        fig = spec.figure()
        assert F.footer_text(fig).replace("\n", " ") == want, spec.name
        r = fig.canvas.get_renderer()
        foot = next(t for t in fig.texts if t.get_gid() == F.FOOTER_GID).get_window_extent(r)
        assert foot.y0 >= 0 and all(foot.y1 <= ax.get_tightbbox(r).y0 + 1 for ax in fig.axes), spec.name
        assert fig.get_tightbbox(r).y0 >= 0, spec.name
    m = json.loads((path / "manifest.json").read_text())
    no_policy = make_study(path.parent, "nopolicy", [{"hero": "kael"}, {"hero": "melyra"}], [0.3, 0.2])
    m2 = json.loads((no_policy / "manifest.json").read_text()) | {"fixed": {}, "git_commit": None}
    (no_policy / "manifest.json").write_text(json.dumps(m2))
    assert m["git_commit"] and _plan(load_results(no_policy), None)[0].footer == (
        "game foury; fixed: nothing (the game's defaults); policy greedy (the game's default); seed 1; 400 games per "
        "cell; foury-sim 0.1.0")


def test_build_report_is_repeatable(foury_study: tuple[Path, list[Path]]) -> None:
    path, written = foury_study
    md = (path / "report.md").read_text()
    again = build_report(path)
    assert again == written
    assert (path / "report.md").read_text() == md


def _copy_study(path: Path, to: Path) -> Path:
    import shutil

    shutil.copytree(path, to, ignore=shutil.ignore_patterns("figures", "report.*"))
    return to


def test_figures_drawn_by_workers_are_the_ones_drawn_here(foury_study: tuple[Path, list[Path]], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes draw part of the figures; every file of the report is the same, byte for byte."""
    import foury_sim.report as R

    path, _ = foury_study
    here = build_report(_copy_study(path, tmp_path / "here"), workers=0)
    drawn_here: list[str] = []
    real_draw = R._draw
    monkeypatch.setattr(R, "_draw", lambda spec: drawn_here.append(spec.name) or real_draw(spec))
    both = build_report(_copy_study(path, tmp_path / "both"), workers=1)
    assert [p.name for p in both] == [p.name for p in here] and len(_pngs(here)) >= 4
    assert 0 < len(drawn_here) < len(_pngs(here))  # the worker drew the others (its own process, not counted)
    for a, b in zip(here, both):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_a_broken_drawing_pool_leaves_its_figures_to_this_process(foury_study: tuple[Path, list[Path]],
                                                                  tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that dies (here: at its start, on a matplotlib setting it refuses) costs time, not figures."""
    import foury_sim.report as R

    path, here = foury_study
    monkeypatch.setattr(R, "_worker_rc", lambda: {"lines.linewidth": "not a width"})
    both = build_report(_copy_study(path, tmp_path / "both"), workers=1)
    assert [p.name for p in both] == [p.name for p in here]
    for a, b in zip(here, both):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_drawing_workers_ignore_ctrl_c_and_stop_with_the_command(foury_study: tuple[Path, list[Path]],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C reaches the command only (one line, not a traceback a worker); an interrupt there stops the workers."""
    import multiprocessing
    import signal
    import time
    from concurrent.futures import ProcessPoolExecutor

    import foury_sim.report as R

    before = signal.getsignal(signal.SIGINT)
    with R._plain_children():
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        ignored = pool.submit(signal.getsignal, signal.SIGINT)
    assert ignored.result(timeout=120) == signal.SIG_IGN and signal.getsignal(signal.SIGINT) is before
    pool.shutdown()

    path, _ = foury_study
    res = load_results(path)
    plan = R._plan(res, R._target(res, None))
    calls = []

    def interrupted(spec: R.ReportFigure) -> bytes | str:
        calls.append(spec.name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return b""

    monkeypatch.setattr(R, "_draw", interrupted)
    with pytest.raises(KeyboardInterrupt):
        R._draw_all(res, plan, None, 1)
    t0 = time.perf_counter()
    while multiprocessing.active_children() and time.perf_counter() - t0 < 30:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_a_script_without_a_main_guard_runs_once(foury_study: tuple[Path, list[Path]], tmp_path: Path,
                                                 how: str) -> None:
    """The drawing workers do not import the calling script (multiprocessing's spawn would run its top level
    again in each worker): a designer's script without ``if __name__ == "__main__":`` runs once, from a file or
    from stdin, and its report is the one drawn in one process."""
    import subprocess

    path, here = foury_study
    folder = _copy_study(path, tmp_path / "study")
    script = (
        "import sys\n"
        "import foury_sim.report as R\n"
        "print('the script ran', flush=True)\n"
        "drawn = []\n"
        "real = R._draw\n"
        "R._draw = lambda spec: drawn.append(spec.name) or real(spec)\n"
        f"written = R.build_report({str(folder)!r}, workers=1)\n"
        "print('drawn here', len(drawn), 'of', sum(p.suffix == '.png' for p in written))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(R_ROOT)}
    if how == "file":
        (tmp_path / "make_report.py").write_text(script)
        r = subprocess.run([sys.executable, str(tmp_path / "make_report.py")], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=600)
    else:
        r = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines.count("the script ran") == 1 and r.stderr == ""
    here_n, _, total = lines[-1].removeprefix("drawn here ").partition(" of ")
    assert 0 < int(here_n) < int(total) == len(_pngs(here))  # the worker drew the others
    for p in here:
        assert (folder / p.relative_to(path)).read_bytes() == p.read_bytes(), p.name


def test_report_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """One worker per three figures beyond the first three, below the CPUs; the environment or the caller decide."""
    from foury_sim.report import WORKERS_ENV, report_workers

    monkeypatch.delenv(WORKERS_ENV, raising=False)
    assert report_workers(5, threads=8) == 0 and report_workers(6, threads=8) == 1
    assert report_workers(11, threads=8) == 2 and report_workers(11, threads=2) == 1
    assert report_workers(40, threads=1) == 0
    assert report_workers(3, workers=5) == 2 and report_workers(11, workers=0) == 0
    monkeypatch.setenv(WORKERS_ENV, "0")
    assert report_workers(11, threads=8) == 0 and report_workers(11, workers=1) == 1
    monkeypatch.setenv(WORKERS_ENV, "many")
    with pytest.raises(InputError, match="FOURY_SIM_REPORT_WORKERS='many' is not a whole number"):
        report_workers(11)


# ------------------------------------------------------------------------------------- loading


def test_load_results(foury_study: tuple[Path, list[Path]]) -> None:
    path, _ = foury_study
    res = load_results(path)
    assert isinstance(res, Results)
    assert res.swept == ["hero", "policy"] and res.varying == ["hero", "policy"]
    assert list(res.cells["cell"]) == [0, 1, 2, 3]
    assert [cj["cell"] for cj in res.cell_jsons] == [0, 1, 2, 3]
    assert res.has_board_cells and res.title == "Study heroes"


def test_load_results_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist") as e:
        load_results(tmp_path / "nope")
    assert "\n" not in str(e.value) and e.value.where == str(tmp_path / "nope")


@pytest.mark.parametrize("given", ["", "  "])
def test_report_of_an_empty_path_says_so(given: str) -> None:
    """``report ""`` reached the verb as the current folder (typer's Path of ""): 'manifest.json is missing'."""
    from inproc import cli

    r = cli("report", given)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "foury-sim: error: FOLDER: is empty: give a study's results folder, e.g. results/NAME\n"


def _edit_manifest(path: Path, **values: Any) -> None:
    m = json.loads((path / "manifest.json").read_text())
    (path / "manifest.json").write_text(json.dumps({**m, **values}))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: (p / "manifest.json").unlink(), "manifest.json is missing"),
        (lambda p: (p / "manifest.json").write_text("{not json"), "manifest.json is corrupt"),
        (lambda p: ((p / "cells.parquet").unlink(), (p / "cells.csv").unlink()), "cells table is missing"),
        (lambda p: (p / "cells.parquet").write_bytes(b"garbage"), "cells.parquet is corrupt"),
        (lambda p: (p / "cells" / "cell_0001.json").unlink(), "cell_0001.json is missing"),
        (lambda p: (p / "cells" / "cell_0002.json").write_text("[1, "), "cell_0002.json is corrupt"),
        (lambda p: _edit_manifest(p, swept=5), "'swept' is not a list of keys"),  # (was a TypeError's traceback)
        (lambda p: _edit_manifest(p, conf="abc"), "'conf' is not a number"),
        (lambda p: _edit_manifest(p, conf=1.5), "'conf' is 1.5, not a level"),
        (lambda p: _edit_manifest(p, game=3), "'game' is not a game's name"),
    ],
)
def test_load_results_damaged_folder(tmp_path: Path, damage, message: str) -> None:
    path = make_study(tmp_path, "broken", HERO_POLICY, HERO_RATES, games=50)
    damage(path)
    with pytest.raises(InputError, match=message) as e:
        load_results(path)
    assert "\n" not in e.value.message and e.value.where


def test_load_results_not_a_folder(tmp_path: Path) -> None:
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(InputError, match="not a folder"):
        load_results(f)


# ------------------------------------------------------------------------------------- figures


def _records(n: int, deaths: bool = True) -> list[dict]:
    out = []
    for i in range(n):
        rec = {"cell": i, "label": f"x={i}", "games": 100,
               "hist": {"score": {"values": [0, 10 + i, 20 + i], "counts": [20, 50, 30]}}}
        if deaths:
            rec["hist"]["death_round"] = {"values": [0, 1, 2], "counts": [50 - i, 30 + i, 20]}
            rec["hist"]["death_turn"] = {"values": [0, 5, 12], "counts": [50 - i, 30 + i, 20]}
            rec["hist"]["rounds_completed"] = {"values": [0, 1, 4], "counts": [30, 20, 50]}
        out.append(rec)
    return out


def test_survival_by_round_values() -> None:
    fig = F.survival_by_round(_records(1))
    ax = fig.get_axes()[0]
    (line,) = ax.get_lines()
    # alive at the start of rounds 1..4 and at the end: deaths in round 1 (30) and round 2 (20)
    assert np.allclose(line.get_ydata(), [100, 70, 50, 50, 50])
    assert fig.dpi == F.DPI


def test_survival_by_turn_values() -> None:
    fig = F.survival_by_turn(_records(1))
    (line,) = fig.get_axes()[0].get_lines()
    x, y = line.get_xdata(), line.get_ydata()
    assert list(x[:3]) == [0, 5, 12] and list(y[:3]) == [100, 70, 50]  # step down at each death turn
    assert y[-1] == 50 and line.get_drawstyle() == "steps-post"


def test_line_figures_draw_every_cell_in_panels() -> None:
    recs = _records(12)
    labels = [r["label"] for r in recs]
    for fn in (F.survival_by_round, F.survival_by_turn):
        fig = fn(recs, labels)
        axes = fig.get_axes()
        assert [ax.get_title(loc="left") for ax in axes] == ["cells 1–6 of 12", "cells 7–12 of 12"]
        legend = [t.get_text().split(":")[0] for ax in axes for t in ax.get_legend().get_texts()]
        assert sorted(legend) == sorted(labels)  # every cell, none left out
        assert "2 panels, every cell shown" in fig.get_suptitle()
    fig = F.distributions(recs, labels, key="score")
    assert len(fig.get_axes()) == 4 and sum(len(ax.get_lines()) for ax in fig.get_axes()[1::2]) == 12


def test_figures_skip_missing_data() -> None:
    recs = _records(2, deaths=False)
    for fn in (F.survival_by_round, F.survival_by_turn):
        with pytest.raises(F.NoData):
            fn(recs)
    with pytest.raises(F.NoData):
        F.distributions(recs, key="turns")
    with pytest.raises(F.NoData):
        F.heat_map(recs[0], "deaths")
    with pytest.raises(F.NoData):
        F.win_rate_vs(pd.DataFrame({"cell": [0], "games": [10], "wins": [1]}), "missing")


def test_heat_map_per_1000_games() -> None:
    m = resolve_map(None)
    deaths = np.zeros(m.n, dtype=int)
    deaths[int(np.flatnonzero(m.sector >= 0)[0])] = 7
    rec = {"label": "x=1", "games": 200, "board_cells": {"map": "base", "deaths": deaths.tolist(),
                                                   "visits": np.ones(m.n, dtype=int).tolist()}}
    fig = F.heat_map(rec, "deaths")
    assert isinstance(fig, Figure)
    axes = [c for ax in fig.get_axes() for c in (ax, *ax.child_axes)]
    cbar = [ax for ax in axes if ax.get_ylabel() == "first deaths per 1000 games"]
    assert cbar and cbar[0].get_ylim()[1] == pytest.approx(35.0)  # 7 deaths in 200 games


def test_win_rate_vs_and_bars() -> None:
    cells = pd.DataFrame({"cell": range(6), "games": [100] * 6, "wins": [40, 30, 35, 25, 30, 20],
                          "bonus": [1, 1, 2, 2, 3, 3], "hero": ["a", "b"] * 3})
    fig = F.win_rate_vs(cells, "bonus", hue="hero", target=0.3)
    ax = fig.get_axes()[0]
    assert [ln.get_label() for ln in ax.get_lines()][:2] == ["a", "b"]
    assert np.allclose(ax.get_lines()[0].get_ydata(), [40, 35, 30])
    assert ax.get_legend() is not None
    fig = F.win_rate_vs(cells, "hero")  # categorical x, pooled over bonus
    assert "pooled" in fig.get_axes()[0].get_title()
    fig = F.difficulty_bars(cells, "hero", hue="bonus")
    assert len(fig.get_axes()[0].patches) == 6


def test_pool_and_spread_pick() -> None:
    cells = pd.DataFrame({"games": [100, 300], "wins": [10, 50], "hero": ["a", "a"]})
    p = F.pool(cells, ["hero"])  # no per-game wins: the mean of the rates, with a bound valid for shared dice
    assert p.loc[0, "games"] == 400 and p.loc[0, "win_rate"] == pytest.approx((0.1 + 50 / 300) / 2)
    assert p.loc[0, "interval"] == "bound"
    bounds = np.array([wilson(10, 100), wilson(50, 300)])
    assert (p.loc[0, "win_lo"], p.loc[0, "win_hi"]) == pytest.approx(tuple(bounds.mean(axis=0)))
    same = pd.DataFrame({"games": [4, 4], "wins": [2, 2], "hero": ["a", "a"]})
    w = [np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0])]
    p = F.pool(same, ["hero"], wins=w, conf=0.9)
    assert p.loc[0, "interval"] == "paired" and p.loc[0, "win_rate"] == 0.5
    from foury_sim.stats import pooled_rate_ci
    assert p.loc[0, "win_lo"] == pytest.approx(pooled_rate_ci(np.vstack(w), 0.9)["lo"])
    picks = F.spread_pick([0.0, 0.01, 0.02, 0.5, 1.0, 0.99], 3)
    assert 0 in picks and 4 in picks and 3 in picks


def test_paired_difference() -> None:
    rows = pd.DataFrame({"outcome": ["win rate", "score"], "a": [0.3, 20.0], "b": [0.35, 21.0],
                         "diff": [0.05, 1.0], "lo": [0.02, -0.5], "hi": [0.08, 2.5], "significant": [True, False]})
    fig = F.paired_difference(rows)
    axes = fig.get_axes()
    assert len(axes) == 2
    assert axes[0].get_yticklabels()[0].get_text() == "Win rate (pp)"
    texts = [t.get_text() for t in axes[0].texts + axes[1].texts]
    assert any("+5.00 pp" in t and "significant" in t for t in texts)
    assert any("not significant" in t for t in texts)


# ---------------------------------------------------------------------- claims of a difference (issue 9)

_CLAIM = re.compile(r"is clear:|pairs of cells differ \(|clearly different")


def _synthetic_study(rng: np.random.Generator, cells: int, games: int, rates: list[float] | None = None, *,
                     bits: bool = True, conf: float = 0.95, share: float = 0.7) -> Results:
    """A null (or not) sweep without simulation: per-game wins of cells that share dice.

    ``share``: chance that a game's luck is the shared one (0: independent cells).
    """
    from foury_sim.study import pack_win_bits

    rates = rates or [0.3] * cells
    u = rng.random(games)  # the luck of game index g, shared by every cell
    w = np.empty((cells, games), dtype=np.int8)
    for i in range(cells):
        own = np.where(rng.random(games) < share, u, rng.random(games))
        w[i] = own < rates[i]
    k = w.sum(axis=1)
    from foury_sim.stats import wilson_arrays

    lo, hi = wilson_arrays(k, np.full(cells, games), conf)
    df = pd.DataFrame({"cell": np.arange(cells), "label": [f"hero=h{i:02d}" for i in range(cells)],
                       "hero": [f"h{i:02d}" for i in range(cells)], "games": games, "wins": k,
                       "win_rate": k / games, "win_lo": lo, "win_hi": hi})
    cjs = [{"cell": i, "label": df.loc[i, "label"]} for i in range(cells)]
    if bits:
        for i in range(cells):
            cjs[i]["win_bits"] = pack_win_bits(w[i])  # win_bits of the cell's games 0..n-1 in order
    return Results(Path("."), {"swept": ["hero"], "conf": conf}, df, cjs)


def test_pack_win_bits_is_win_bits_of_the_games_in_order() -> None:
    from foury_sim.study import pack_win_bits, read_win_bits, win_bits

    rng = np.random.default_rng(11)
    for n in (0, 1, 7, 8, 9, 1000):
        w = (rng.random(n) < 0.4).astype(np.int64)
        order = rng.permutation(n)
        text = pack_win_bits(w)
        assert win_bits(pd.DataFrame({"game": order, "win": w[order]})) == text
        assert np.array_equal(read_win_bits(text, n), w)


def _claims(res: Results) -> list[str]:
    from foury_sim.report import _findings

    return [f for f in _findings(res, None) if _CLAIM.search(f)]


@pytest.mark.parametrize("bits, share", [(True, 0.7), (True, 0.0), (False, 0.0)])
def test_null_sweep_states_no_difference_in_95_percent_of_repeats(bits: bool, share: float) -> None:
    # 200 repeats of 50 identical cells (same rate; dice shared or independent): any claim of a
    # difference is a false alarm. The old overlap rule claimed one in most repeats of independent cells.
    rng = np.random.default_rng(2024 + bits)
    false_alarms = sum(bool(_claims(_synthetic_study(rng, 50, 1000, bits=bits, share=share))) for _ in range(200))
    assert false_alarms <= 10, false_alarms  # at least 95 % of repeats state no difference
    text = " ".join(_findings_of(_synthetic_study(rng, 50, 1000, bits=bits, share=share)))
    assert "No clear gap between easiest and hardest" in text and "No pair of the 1225 pairs" in text
    assert ("exact McNemar" in text) == bits


def _findings_of(res: Results) -> list[str]:
    from foury_sim.report import _findings

    return _findings(res, None)


def test_real_differences_are_found_with_paired_tests() -> None:
    rng = np.random.default_rng(3)
    res = _synthetic_study(rng, 6, 4000, [0.30, 0.30, 0.30, 0.30, 0.30, 0.36])
    d = __import__("foury_sim.report", fromlist=["cell_differences"]).cell_differences(res)
    assert d.paired and d.holm(0, 5) < 0.05 and d.holm(0, 1) > 0.05
    text = " ".join(_findings_of(res))
    assert "is clear: Holm-adjusted p" in text and "pairs of cells differ (Benjamini" in text


def test_cells_that_never_win_are_not_apart_nor_hardest() -> None:
    rng = np.random.default_rng(4)
    res = _synthetic_study(rng, 4, 500, [0.0, 0.0, 0.3, 0.32], conf=0.9)
    f = _findings_of(res)
    text = " ".join(f)
    assert "Never won in any of their games: `hero=h00`, `hero=h01`" in text
    easy = next(x for x in f if x.startswith("Easiest"))
    assert "h00" not in easy and "h01" not in easy and "90 % interval" in easy
    from foury_sim.report import cell_differences

    assert cell_differences(res).holm(0, 1) == 1.0  # two 0.0 % [0.0, 0.0] cells: never "clearly apart"
    assert "95 %" not in text


def test_conf_of_the_experiment_reaches_every_label(tmp_path: Path) -> None:
    from foury_sim.report import _cells_table, _plan

    rng = np.random.default_rng(6)
    res = _synthetic_study(rng, 3, 300, conf=0.8)
    assert res.conf == 0.8
    headers, _, _ = _cells_table(res)
    assert "80 % interval" in headers
    plan = _plan(res, None)
    assert all("95" not in p.caption for p in plan) and "80 % intervals" in plan[0].caption
    fig = plan[0].make()
    assert "80 % interval" in fig.get_axes()[0].get_title()


@pytest.mark.parametrize("kind", ["robust", "other"])
def test_report_refuses_a_folder_of_another_kind_in_one_line(tmp_path, kind):
    (tmp_path / "manifest.json").write_text(json.dumps({"kind": kind, "name": "x", "game": "foury",
                                                        "experiment_text": ""}))
    (tmp_path / "cells.csv").write_text("point,kind,factor,cell,games,wins,win_rate\n0,baseline,,hero=free,2,1,0.5\n")
    with pytest.raises(InputError) as e:
        build_report(tmp_path)
    assert e.value.where == str(tmp_path / "manifest.json")
    assert e.value.message.startswith(f"not a `foury-sim sweep` results folder: its manifest is of kind '{kind}'")


# ------------------------------------------------------------------- degenerate cells and ties


def _counts_study(wins: list[int], games: int, *, key: str = "hero", values: list | None = None) -> Results:
    """A study of exact win counts (no per-game wins: the unpaired tests), one swept key."""
    from foury_sim.stats import wilson_arrays

    k = np.asarray(wins)
    n = np.full(len(wins), games)
    values = values or [f"h{i:02d}" for i in range(len(wins))]
    lo, hi = wilson_arrays(k, n)
    df = pd.DataFrame({"cell": np.arange(len(wins)), "label": [f"{key}={v}" for v in values], key: values,
                       "games": n, "wins": k, "win_rate": k / n, "win_lo": lo, "win_hi": hi})
    cjs = [{"cell": i, "label": df.loc[i, "label"]} for i in range(len(wins))]
    return Results(Path("."), {"swept": [key]}, df, cjs)


def test_cells_with_a_handful_of_wins_are_named_with_counts_and_not_hardest() -> None:
    res = _counts_study([0, 1, 1200, 1300, 400, 39_995], 40_000)
    f = _findings_of(res)
    assert f[0].startswith("Never won in any of their games: `hero=h00`")
    assert ("Won fewer than 10 games: `hero=h01` (won 1 of 40,000 games). They practically never win; a rate "
            "resting on a handful of games does not say how hard a cell is, so they are left out of the "
            "easiest/hardest comparison below.") in f
    assert "Lost fewer than 10 games: `hero=h05` (lost 5 of 40,000 games)." in " ".join(f)
    easy = next(x for x in f if x.startswith("Easiest"))
    assert easy.startswith("Easiest (of the 3 cells that win and lose at least 10 games): `hero=h03` wins 3.2 %")
    assert "Hardest: `hero=h04` wins 1.0 %" in easy
    assert "0.00 %" not in " ".join(f) and "100.0 %" not in " ".join(f)
    by = next(x for x in f if x.startswith("By `hero`"))
    assert "lowest at h00 (0.0 % [0.0, 0.01], 0 of 40,000 games won: never wins;" in by
    assert "highest at h05 (99.99 % [99.97, 99.99], 39,995 of 40,000 games won: practically always wins)" in by
    # every value with its interval, and what kind of interval it is
    assert by.endswith("h04: 1.0 % [0.91, 1.1], h05: 99.99 % [99.97, 99.99] (95 % intervals: Wilson).")


def test_when_every_cell_is_at_the_floor_the_ranking_says_so() -> None:
    f = _findings_of(_counts_study([0, 3, 5], 1000))
    text = " ".join(f)
    assert "ranked below all the same (fewer than two cells win and lose at least 10 games)" in text
    assert "Easiest (of the 2 cells that win and lose at least once): `hero=h02`" in text
    assert "is clear" not in text and "clearly different" not in text


def test_cells_that_never_win_tie_in_every_finding() -> None:
    f = _findings_of(_counts_study([0, 0, 0], 500))
    text = " ".join(f)
    assert "No cell both wins and loses: there is no easiest or hardest cell to name." in text
    assert "By `hero`: no value ever wins a game (no difference to test)." in text
    assert "No pair of the 3 pairs of cells differs clearly" in text
    assert not re.search(r"is clear|clearly different|highest at|lowest at", text)
    f = _findings_of(_counts_study([120, 120], 500))
    assert "By `hero`: every value has the same estimated win rate, 24.0 % (no difference to test)." in " ".join(f)


def test_identical_or_both_degenerate_cells_are_never_apart() -> None:
    from foury_sim.report import Differences

    # a test that (wrongly) calls every pair different: apart() still refuses identical results
    k, n = np.array([0, 0, 500, 500, 250, 250]), np.full(6, 500)
    i, j = np.triu_indices(6, 1)
    zero = np.zeros(i.size)
    d = Differences(0.95, False, 500, i, j, zero, zero, zero, [0, 1, 2, 3], k, n)
    assert not d.apart(0, 1) and not d.apart(2, 3) and not d.apart(4, 5) and not d.apart(4, 4)
    assert d.apart(0, 4) and d.apart(2, 4) and d.apart(0, 2)


@pytest.mark.parametrize("rate, text", [(0.0, "0.0 %"), (1 / 40_000, "0.0025 %"), (0.004, "0.40 %"),
                                        (0.3, "30.0 %"), (0.9999, "99.99 %"), (1 - 1 / 40_000, "99.997 %"),
                                        (1.0, "100.0 %")])
def test_rates_near_0_or_1_never_print_as_0_or_100(rate: float, text: str) -> None:
    from foury_sim.report import _pct

    assert _pct(rate) == text


def test_summary_findings_name_no_extreme_cell_in_a_tie() -> None:
    from foury_sim.report import _summary_findings

    res = _counts_study([100, 200], 1000)
    res.manifest["game"] = "foury"
    for cj in res.cell_jsons:
        cj["summary"] = {"first_death_rate": 1.0}
    res.cells["score_mean"] = [20.01, 19.99]
    res.cells["turns_mean"] = [40.0, 50.0]
    text = " ".join(_summary_findings(res))
    assert "The hero dies at least once in 100.0 % of games in every cell." in text
    assert "The mean final score is 20.0 points in every cell (to one decimal)." in text
    assert "The mean game length ranges from 40.0 turns (`hero=h00`) to 50.0 turns (`hero=h01`)." in text


def test_summary_findings_give_each_share_and_mean_its_interval() -> None:
    """Key findings state every rate and mean with its interval at the study's level: a share per cell (the cell's
    ``share_intervals``), a mean per cell (the cells table's t interval), and a breakdown over all cells as the mean
    of the cells' shares with the mean of their Wilson bounds (valid whatever dice the cells share)."""
    from foury_sim.report import _summary_findings
    from foury_sim.stats import wilson_arrays

    res = _counts_study([100, 200], 1000)
    res.manifest["game"] = "foury"
    causes = [{"stuck": 300, "killed by an orc": 100}, {"stuck": 500, "killed by an imp": 50}]
    for cj, rate, iv, dc in zip(res.cell_jsons, (0.9, 0.95), ([0.88, 0.92], [0.935, 0.962]), causes):
        cj["summary"] = {"games": 1000, "first_death_rate": rate, "death_by_cause": dc,
                         "share_intervals": {"first_death_rate": iv}}
    res.cells["turns_mean"] = [40.0, 50.0]
    res.cells["turns_lo"], res.cells["turns_hi"] = [39.04, 49.0], [40.96, 51.04]
    text = " ".join(_summary_findings(res))
    assert ("The hero dies at least once in 90.0 % [88.0, 92.0] (`hero=h00`) to 95.0 % [93.5, 96.2] (`hero=h01`) of "
            "games (95 % intervals, each for its cell alone).") in text
    assert ("The mean game length ranges from 40.0 [39.0, 41.0] turns (`hero=h00`) to 50.0 [49.0, 51.0] turns "
            "(`hero=h01`) (95 % intervals, each for its cell alone).") in text
    # shares of each cell's first deaths (400 and 550), not of its games: (300/400 + 500/550) / 2 = 83 %, ...
    lo, hi = wilson_arrays([[300, 100, 0], [500, 0, 50]], [[400], [550]])
    stuck = f"stuck 83 % [{100 * lo[:, 0].mean():.0f}, {100 * hi[:, 0].mean():.0f}]"
    orc = f"killed by an orc 12 % [{100 * lo[:, 1].mean():.0f}, {100 * hi[:, 1].mean():.0f}]"
    imp = f"killed by an imp 5 % [{100 * lo[:, 2].mean():.0f}, {100 * hi[:, 2].mean():.0f}]"
    assert (f"Most common causes of the first death (all cells together): {stuck}, {orc}, {imp} (95 %; shares of what "
            "each cell counts, e.g. its first deaths, meaned over the cells, each with a wide bound that holds "
            "whatever dice the cells share).") in text


def test_heat_maps_skip_cells_at_the_floor(tmp_path: Path) -> None:
    from foury_sim.report import _heat_plan

    path = make_study(tmp_path, "floor", HERO_POLICY, [0.005, 0.30, 0.45, 0.12], games=400)
    res = load_results(path)
    heads = [p.heading for p in _heat_plan(res, res.spec.board)]
    assert ("Where heroes die: the hardest cell with at least 10 wins and 10 losses (hero=melyra, policy=cautious)"
            in heads)  # not hero=kael, policy=greedy: 2 wins of 400
    assert "Where heroes go: the easiest cell with at least 10 wins and 10 losses (hero=melyra, policy=greedy)" in heads
    assert not any("hero=kael, policy=greedy" in h and "hardest" in h for h in heads)
