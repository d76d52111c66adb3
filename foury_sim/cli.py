"""The ``foury-sim`` command line: thin adapters over the library functions."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from .errors import InputError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Monte Carlo balance analysis for dungeon-crawler board games.")
map_app = typer.Typer(no_args_is_help=True, help="Dungeon Foury maps: check and draw them.")
app.add_typer(map_app, name="map")

GameArg = typer.Argument("foury", help="Game to simulate (see `foury-sim games`).")


def _pct(r: dict[str, Any]) -> str:
    return f"{100 * r['rate']:6.2f} %  [{100 * r['lo']:.2f}, {100 * r['hi']:.2f}]"


def _num(r: dict[str, Any]) -> str:
    return (f"mean {r['mean']:8.2f} [{r['mean_lo']:.2f}, {r['mean_hi']:.2f}]  median {r['median']:g}  "
            f"range {r['min']:g}..{r['max']:g}")


def _shares(d: dict[Any, int], n: int, top: int = 8) -> str:
    items = list(d.items())[:top]
    return ", ".join(f"{k}: {100 * v / n:.1f} %" for k, v in items) if n else "-"


#: summary tables printed as shares of games
_SHARE_KEYS = ("rounds_completed_dist", "death_by_round", "death_by_sector", "death_by_cause", "loss_by_cause",
               "unwinnable_by_cause", "deadliest_rooms", "rank", "rank_dist")


def format_summary(s: dict[str, Any], title: str) -> str:
    """The text a designer reads after ``foury-sim run``."""
    n = s["games"]
    lines = [f"{title}", f"hero {s['hero']}, policy {s['policy']}, seed {s['seed']}, {n:,} games", ""]
    lines += [*s.get("warnings", ()), *([""] if s.get("warnings") else [])]
    lines.append(f"win rate            {_pct(s['win'])}  ({100 * s['win'].get('conf', 0.95):g} % Wilson interval)")
    if "turn_cap_share" in s:
        lines.append(f"ended at turn cap   {100 * s['turn_cap_share']:6.2f} %  ({s['turn_cap_games']:,} games)")
    if "win_without_continue" in s:
        lines.append(f"  without continue  {_pct(s['win_without_continue'])}")
    if "unwinnable" in s:
        lines.append(f"became unwinnable   {_pct(s['unwinnable'])}  (no entry/exit left for a round, or sealed in)")
    for key, val in s.items():
        if isinstance(val, dict) and "mean" in val and "median" in val:
            lines.append(f"{key.replace('_', ' '):19s} {_num(val)}")
    for key in _SHARE_KEYS:
        if key in s and isinstance(s[key], dict) and s[key]:
            lines.append(f"{key.replace('_', ' '):19s} {_shares(s[key], n)}")
    if "first_death_rate" in s:
        lines.append(f"died at least once  {100 * s['first_death_rate']:.1f} % of games "
                     f"(continue used in {100 * s['coins_used_rate']:.1f} %)")
    for key, val in s.items():  # other game-specific scalars
        if key in ("games", "seed", "elapsed_s", "games_per_s", "first_death_rate", "coins_used_rate", "conf",
                   "turn_cap_games", "turn_cap_share"):
            continue
        if isinstance(val, (int, float)) and not isinstance(val, bool):
            lines.append(f"{key.replace('_', ' '):19s} {val:g}")
    for key, val in s.items():  # other game-specific tables of numbers (e.g. Delve's rank_share, mean_level)
        if (key in _SHARE_KEYS or not isinstance(val, dict) or not val or "rate" in val or "mean" in val
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in val.values())):
            continue
        fmt = (lambda v: f"{100 * v:.1f} %") if key.endswith("_share") else (lambda v: f"{v:.3g}")
        lines.append(f"{key.replace('_', ' '):19s} " + ", ".join(f"{k}: {fmt(v)}" for k, v in val.items()))
    if s.get("assumptions"):
        from .assumptions import summary_lines

        lines += [""] + summary_lines(s["assumptions"])
    lines.append("")
    lines.append(f"{s['elapsed_s']:.2f} s, {s['games_per_s']:,} games/s")
    return "\n".join(lines)


@app.command()
def run(
    game: str = GameArg,
    hero: str | None = typer.Option(None, help="Hero (default: the game's plain character)."),
    policy: str | None = typer.Option(None, help="Built-in policy name, or FILE.py:FUNCTION."),
    param: str | None = typer.Option(None, help="Policy parameters, e.g. 'foe_avoid=2,flee_hearts=3'."),
    games: int = typer.Option(10_000, help="Number of games."),
    seed: int = typer.Option(1, help="Master seed: game i always plays on stream (seed, i)."),
    map: str | None = typer.Option(None, "--map", help="Map name or file (Dungeon Foury)."),
    rules: Path | None = typer.Option(None, help="Ruleset TOML (merged over the shipped defaults)."),
    set_: list[str] | None = typer.Option(None, "--set", help="Override a ruleset value: KEY=VALUE (repeatable)."),
    threads: int | None = typer.Option(None, help="Numba threads (default: all cores)."),
    fmt: str = typer.Option("text", "--format", help="text or json."),
    out: Path | None = typer.Option(None, help="Also write games.parquet/csv and summary.json here."),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help="Progress bar on stderr."),
    conf: float = typer.Option(0.95, help="Confidence level of every interval printed (e.g. 0.9, 0.99)."),
) -> None:
    """Simulate many games and print the win rate with its interval, and where and why players die."""
    from .registry import get_game
    from .runner import run as run_games
    from .runner import to_jsonable, write_run

    _check_format(fmt)
    if not 0.5 <= conf < 1.0:
        raise InputError(f"must be between 0.5 and 1, not {conf}", "--conf")
    res = run_games(game, hero=hero, policy=policy, params=param, games=games, seed=seed,
                    rules=str(rules) if rules else None, sets=set_, map=map, threads=threads,
                    progress=None if progress is None and games >= 50_000 else bool(progress))
    if conf != 0.95:  # the intervals again, at the level asked for
        from .runner import summarize

        res.summary.update(summarize(get_game(game), res.df, res.ruleset, conf))
    res.summary["conf"] = conf
    if out is not None:
        write_run(res, out)
    if fmt == "json":
        typer.echo(json.dumps(to_jsonable(res.summary), indent=2))
    else:
        typer.echo(format_summary(res.summary, get_game(game).title))


def _check_format(fmt: str) -> None:
    if fmt not in ("text", "json"):
        raise InputError(f"--format must be text or json, not {fmt!r}", "--format")


@app.command()
def replay(
    game: str = GameArg,
    seed: int = typer.Option(1, help="Master seed of the run."),
    game_index: int = typer.Option(0, "--game", help="Index of the game in that run."),
    hero: str | None = typer.Option(None),
    policy: str | None = typer.Option(None),
    param: str | None = typer.Option(None),
    map: str | None = typer.Option(None, "--map"),
    rules: Path | None = typer.Option(None),
    set_: list[str] | None = typer.Option(None, "--set"),
) -> None:
    """Print one game's full play report: every roll, event, decision and resource change."""
    from .policy import make_policy
    from .registry import get_game

    spec = get_game(game)
    if game_index < 0:
        raise InputError(f"--game must be >= 0, not {game_index}", "--game")
    rs = spec.load_ruleset(str(rules) if rules else None, set_, map)
    h = spec.check_hero(rs, hero or spec.default_hero)
    pol = make_policy(policy or spec.default_policy, spec.policies, param)
    typer.echo("\n".join(spec.replay(rs, h, pol, seed, game_index)))


@app.command()
def odds(
    game: str = GameArg,
    fmt: str = typer.Option("text", "--format", help="text or json."),
    trials: int = typer.Option(20_000, help="Engine trials per row for the measured figures."),
    rules: Path | None = typer.Option(None),
    set_: list[str] | None = typer.Option(None, "--set"),
    seed: int = typer.Option(1),
    hearts: int = typer.Option(5, help="Hearts at the start of a fight fought to the end (Dungeon Foury)."),
) -> None:
    """Exact odds beside the frequencies the engine's own code produces."""
    from .registry import get_game

    _check_format(fmt)
    spec = get_game(game)
    if spec.odds is None:
        raise InputError(f"{game} has no odds table", "GAME")
    if trials < 1:
        raise InputError("--trials must be at least 1", "--trials")
    rs = spec.load_ruleset(str(rules) if rules else None, set_, None)
    kw = {"hearts": hearts} if game == "foury" else {}
    if hearts < 1:
        raise InputError("--hearts must be at least 1", "--hearts")
    table = spec.odds(rs, trials=trials, seed=seed, **kw)
    if fmt == "json":
        typer.echo(table.to_json(orient="records", indent=2))
    else:
        import pandas as pd

        with pd.option_context("display.max_rows", 500, "display.width", 200, "display.float_format", "{:.4f}".format):
            typer.echo(table.to_string(index=False))


@app.command()
def sweep(
    experiment: Path = typer.Argument(..., help="Experiment file (TOML), e.g. experiments/hero_difficulty.toml."),
    out: Path = typer.Option(Path("results"), help="Results root; the study goes to OUT/NAME/."),
    resume: bool = typer.Option(False, "--resume", help="Keep cells already written and run the rest."),
    threads: int | None = typer.Option(None, help="Numba threads (default: all cores)."),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help="Progress bar on stderr."),
    report: bool = typer.Option(True, "--report/--no-report", help="Build figures and reports afterwards."),
    precision: float | None = typer.Option(None, help="Add batches to each cell until its interval (at the "
                                           "file's conf, default 95 %) is at most this wide (overrides the "
                                           "file's games/precision)."),
    max_games: int | None = typer.Option(None, help="Cap on games per cell with --precision."),
    batch: int | None = typer.Option(None, help="Games added per batch with --precision (default and minimum: "
                                     "ceil(40 z / precision), which keeps the optional-stopping bias small)."),
) -> None:
    """Run a parameter sweep on common dice streams; write tables, manifest, figures and a report."""
    from .study import load_experiment, run_sweep, set_precision

    exp = load_experiment(experiment)  # every error is found before anything is simulated
    if precision is not None:
        set_precision(exp, precision, max_games, batch)
    elif max_games is not None or batch is not None:
        raise InputError("--max-games and --batch go with --precision", "--max-games")
    path = run_sweep(exp, out, resume=resume, progress=progress, threads=threads, report=report)
    typer.echo(f"{len(exp.cells)} cells -> {path}")
    if report:
        typer.echo(f"report: {path / 'report.html'}  summary: {path / 'report.md'}")


@app.command()
def robust(
    experiment: Path = typer.Argument(..., help="Robustness experiment (TOML), "
                                      "e.g. experiments/robust_hero_ranking.toml."),
    out: Path = typer.Option(Path("results"), help="Results root; the study goes to OUT/NAME/."),
    games: int | None = typer.Option(None, help="Games per cell and design point (overrides the file)."),
    points: int | None = typer.Option(None, help="Joint design points (overrides the file)."),
    threads: int | None = typer.Option(None, help="Numba threads (default: all cores)."),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help="Progress bar on stderr."),
) -> None:
    """Vary the assumptions (one at a time, then jointly on a Latin hypercube) on common dice; report in
    what share of the assumption space each conclusion holds and which assumptions move it most."""
    from .robust import load_robust, run_robust

    exp = load_robust(experiment)  # every error is found before anything is simulated
    for name, v, lo in (("--games", games, 2), ("--points", points, 0)):
        if v is not None and v < lo:
            raise InputError(f"must be at least {lo}, not {v}", name)
    if games is not None:
        exp.games = games
        exp.text += f"\n# command line: --games {games}\n"
    if points is not None:
        exp.points = points
        exp.text += f"\n# command line: --points {points}\n"
    path = run_robust(exp, out, progress=progress, threads=threads)
    typer.echo(f"-> {path}  report: {path / 'report.md'}")
    import pandas as pd

    summ = pd.read_csv(path / "robustness.csv")
    for _, r in summ[summ["whole"]].iterrows():
        typer.echo(f"{r['claim']}: holds at {100 * r['share_holds']:.0f} % of the joint points "
                   f"({100 * r['share_holds_clearly']:.0f} % clearly); at the defaults: "
                   f"{'yes' if r['holds_at_defaults'] else 'no'}")


@app.command()
def compare(
    game: str = GameArg,
    a: list[str] | None = typer.Option(None, "--a", help="Variant A settings: KEY=VALUE (repeatable)."),
    b: list[str] | None = typer.Option(None, "--b", help="Variant B settings: KEY=VALUE (repeatable)."),
    fixed: list[str] | None = typer.Option(None, "--fixed", help="Settings for both variants."),
    games: int = typer.Option(10_000),
    seed: int = typer.Option(1),
    threads: int | None = typer.Option(None),
    fmt: str = typer.Option("text", "--format", help="text or json."),
    out: Path | None = typer.Option(None, help="Write comparison.json, tables and a figure here."),
    progress: bool | None = typer.Option(None, "--progress/--no-progress"),
    conf: float = typer.Option(0.95, help="Confidence level of the intervals; significance is Holm-adjusted "
                               "p < 1 - conf over all outcomes."),
) -> None:
    """Two variants on the same dice streams: paired differences, Holm-adjusted significance, flipped games."""
    from .study import compare as run_compare
    from .study import format_comparison, parse_settings, write_comparison

    _check_format(fmt)
    va, vb = parse_settings(a, "--a"), parse_settings(b, "--b")
    if not va and not vb:
        raise InputError("give at least one setting with --a or --b (e.g. --a hero=kael --b hero=elydion)", "--a")
    c = run_compare(game, va, vb, fixed=parse_settings(fixed, "--fixed"), games=games, seed=seed,
                    threads=threads, progress=progress, conf=conf)
    if out is not None:
        write_comparison(c, out)
    typer.echo(json.dumps(c.to_dict(), indent=2) if fmt == "json" else format_comparison(c))


@app.command()
def report(results: Path = typer.Argument(..., help="A study folder, e.g. results/hero_difficulty.")) -> None:
    """Rebuild a study's figures, report.html and report.md from saved results (no simulation)."""
    from .report import build_report

    for p in build_report(results):
        typer.echo(f"wrote {p}")


@app.command()
def assumptions(
    game: str = GameArg,
    fmt: str = typer.Option("text", "--format", help="text or json."),
    map: str | None = typer.Option(None, "--map", help="Map name or file (Dungeon Foury)."),
    rules: Path | None = typer.Option(None, help="Ruleset TOML (merged over the shipped defaults)."),
    set_: list[str] | None = typer.Option(None, "--set", help="Override a ruleset value: KEY=VALUE (repeatable)."),
) -> None:
    """List the values no rulebook prints: key, value, plausible range or alternatives, reason, where."""
    from .assumptions import of, table
    from .registry import get_game

    _check_format(fmt)
    rs = get_game(game).load_ruleset(str(rules) if rules else None, set_, map)
    found = of(rs)
    if fmt == "json":
        from .runner import to_jsonable

        typer.echo(json.dumps(to_jsonable([a.to_dict() for a in found]), indent=2))
        return
    rows = table(found)
    if not rows:
        typer.echo(f"{game}: no assumptions declared")
        return
    wk, wv, wp = (min(max(len(r[c]) for r in rows), 44) for c in ("key", "value", "plausible"))
    typer.echo(f"{'key':{wk}s}  {'value':{wv}s}  {'plausible':{wp}s}  vary  reason")
    for r in rows:
        typer.echo(f"{r['key']:{wk}s}  {r['value']:{wv}s}  {r['plausible']:{wp}s}  {r['vary']:4s}  {r['reason']}")
        typer.echo(f"{'':{wk}s}  at {r['where']}")
    n_over = sum(a.overridden for a in found)
    typer.echo(f"\n{len(found)} assumptions, {n_over} overridden; varied by `foury-sim robust`: "
               f"{sum(r['vary'] == 'yes' for r in rows)}")


@app.command()
def games() -> None:
    """List the registered games with their heroes and policies."""
    from .registry import games as all_games
    from .registry import get_game

    for name in all_games():
        spec = get_game(name)
        rs = spec.load_ruleset(None, None, None)
        typer.echo(f"{name:8s} {spec.title}")
        typer.echo(f"         heroes:   {', '.join(spec.heroes(rs))}")
        for p in spec.policies.values():
            pars = ", ".join(f"{k}={v:g}" for k, v in p.params.items())
            typer.echo(f"         policy {p.name}: {p.description}" + (f" ({pars})" if pars else ""))


@map_app.command("render")
def map_render(
    map_file: str = typer.Argument(..., help="Map file or shipped map name."),
    out: Path = typer.Option(Path("map.png"), "-o", "--out", help="PNG to write."),
) -> None:
    """Draw a map as a picture a designer can check."""
    from .games.foury.maps import render_map, resolve_map

    m = resolve_map(map_file)
    render_map(m, out, title=m.name)
    typer.echo(f"wrote {out}")


@map_app.command("check")
def map_check(map_file: str = typer.Argument(..., help="Map file or shipped map name.")) -> None:
    """Parse and validate a map; print what it holds."""
    from .games.foury import icons as I
    from .games.foury.maps import resolve_map

    m = resolve_map(map_file)
    total = m.icons.sum(axis=0)
    rooms = int((m.sector >= 0).sum())
    typer.echo(f"{m.name}: {m.rows}x{m.cols}, {rooms} rooms, {len(m.arrow_cell)} arrows")
    typer.echo(", ".join(f"{I.ICON_NAMES[i]} {int(total[i])}" for i in range(I.N_ICONS) if total[i]))


def main() -> None:
    """Entry point: bad input is one line on stderr and exit code 2, never a traceback."""
    try:
        app(standalone_mode=False)
    except InputError as e:
        typer.echo(f"foury-sim: error: {e}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("foury-sim: interrupted", err=True)
        sys.exit(130)
    except Exception as e:  # click's usage errors (typer vendors its own click): one line, exit 2
        if type(e).__name__ == "Abort":
            typer.echo("foury-sim: interrupted", err=True)
            sys.exit(130)
        if hasattr(e, "format_message") and hasattr(e, "exit_code"):
            msg = e.format_message().strip().splitlines()
            typer.echo(f"foury-sim: error: {msg[0] if msg else type(e).__name__}", err=True)
            sys.exit(2)
        raise


if __name__ == "__main__":
    main()
