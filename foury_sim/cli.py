"""The ``foury-sim`` command line: thin adapters over the library functions."""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from . import plain_options
from .errors import InputError, Interrupted
from .inputs import (
    SEED_MAX,
    check_conf,
    check_format,
    check_game_index,
    check_games,
    check_input_file,
    check_map_name,
    check_name,
    check_out_dir,
    check_out_file,
    check_param_text,
    check_seed,
    check_threads,
    check_trials,
)


def _no_flag_placeholder(params: list[Any]) -> list[Any]:
    """An on/off switch (``--resume``, ``--progress/--no-progress``, ``--help``) takes no value: show no
    ``<bool>`` placeholder beside it in ``--help``."""
    for p in params:
        if getattr(p, "is_flag", False) and p.metavar is None:
            p.metavar = ""
    return params


def _no_empty_path(params: list[Any]) -> list[Any]:
    """A path option or argument given as ``""`` is refused in one line (``--rules: is empty: ...``): typer made it
    the path ``.``, the current folder, and the error then spoke of a folder nobody named."""
    for p in params:
        desc = getattr(p, "type_descriptor", None)
        if desc is None or not getattr(desc, "is_path", False) or "process_value" in vars(p):
            continue

        def process_value(ctx: Any, value: Any, _p: Any = p, _base: Any = p.process_value) -> Any:
            if isinstance(value, str) and not value.strip():
                from typer._click.exceptions import BadParameter  # (typer's own click: ``main`` prints it in one line)

                raise BadParameter("is empty: an empty path names no file or folder", ctx=ctx, param=_p)
            return _base(ctx, value)

        p.process_value = process_value
    return params


class Command(TyperCommand):
    """Every verb: ``--help`` without value placeholders for switches (defaults are shown per option); an empty
    path refused."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _no_empty_path(_no_flag_placeholder(super().get_params(ctx)))


class Group(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return _no_empty_path(_no_flag_placeholder(super().get_params(ctx)))


plain_options.install()  # (typer's coercion of the options, pydantic only for values that need it)

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, cls=Group,
                  help="Monte Carlo balance analysis for dungeon-crawler board games.")
map_app = typer.Typer(no_args_is_help=True, cls=Group,
                      help="Boards of the games that have one (maps): check and draw them.")
app.add_typer(map_app, name="map")


def _default_game() -> str:
    from .registry import DEFAULT_GAME

    return DEFAULT_GAME


GameArg = typer.Argument(_default_game, show_default=False, metavar="GAME",
                         help="Game to simulate (see `foury-sim games`; default: the registry's default game).")
#: Commands that take a game's own options (``GameSpec.options``) after the common ones.
GAME_OPTIONS = {"allow_extra_args": True, "ignore_unknown_options": True}

#: The progress switch of every verb that simulates (``runner.Progress`` decides what "auto" shows).
PROGRESS_HELP = ("Progress bar on stderr. Default: a bar appears once the work has taken 2 s, if stderr is a "
                 "terminal (nothing otherwise); --progress forces it (plain lines every 10 s when stderr is not a "
                 "terminal); --no-progress: never.")
THREADS_HELP = "Numba threads (default: all cores)."
HERO_HELP = "Hero (default: the game's plain character; see `foury-sim games`)."
POLICY_HELP = "Built-in policy name (see `foury-sim games`), or FILE.py:FUNCTION (default: the game's default policy)."
PARAM_HELP = "Policy parameters, e.g. 'foe_avoid=2,flee_hearts=3' (default: the policy's own)."
MAP_HELP = "Map name or file, for games with a board (default: the game's base map)."
RULES_HELP = "Ruleset TOML, merged over the shipped defaults (default: the shipped ruleset)."
SET_HELP = "Override a ruleset value: KEY=VALUE (repeatable; see `foury-sim assumptions`; default: none)."
FORMAT_HELP = "Output format: text or json."
CLUSTER_HELP = ("Play the games on a Dask cluster: the scheduler's address (tcp://HOST:8786), or local / local:N "
                "(N worker processes on this machine); the same numbers as without it (docs/cluster.md; needs "
                "pip install -e \".\\[cluster]\"). Default: FOURY_SIM_CLUSTER, else `cluster` in "
                "~/.config/foury-sim/config.toml, else this machine.")
#: ``--cluster`` of every verb that simulates (``run``, ``sweep``, ``compare``, ``tune``): see ``executor``.
ClusterOpt = typer.Option(None, "--cluster", metavar="ADDRESS", help=CLUSTER_HELP, show_default=False)


def executor(cluster: str | None, ctx: typer.Context | None = None) -> Any:
    """The executor of ``--cluster`` (or ``FOURY_SIM_CLUSTER`` / the configuration file): a Dask executor
    (``cluster.executor_for``), or None to play on this machine. Dask is imported only when a cluster is asked
    for; without it, one line saying how to install it (exit 2). With the verb's ``ctx``, every
    ``runner.play_games`` of the verb also plays through it (``runner.executing``, for as long as the verb runs);
    a verb that hands the executor on itself (``run``, ``sweep``, ``compare``) needs no ``ctx``."""
    from .cluster import cluster_address, executor_for
    from .runner import executing

    if cluster_address(cluster) is None:
        return None
    ex = executor_for(cluster)
    if ctx is not None:
        ctx.with_resource(executing(ex))
    return ex


def _game_options(spec: Any, command: str, args: list[str], also: str | None = None) -> dict[str, Any]:
    """Parse the options only some games take (``--hearts 5``, ``--hearts=5``) from the words the command did
    not know; an option this game does not take is refused in one line (naming the games that take it). ``also``:
    a second command whose options the words may give too (``replay`` takes ``run``'s and its own)."""
    from .registry import games, get_game

    def options_of(s: Any) -> dict[str, Any]:
        return {**s.options_of(command), **(s.options_of(also) if also else {})}

    known = options_of(spec)
    out: dict[str, Any] = {}
    i = 0
    while i < len(args):
        word = args[i]
        flag, eq, value = word.partition("=")
        if not flag.startswith("--"):
            raise InputError("unexpected extra argument", word)
        if flag not in known:
            others = [g for g in games() if g != spec.name and flag in options_of(get_game(g))]
            if others:
                raise InputError(f"{flag} is an option of {', '.join(others)}, not of {spec.name}", flag)
            raise InputError(f"No such option: {flag}", flag)
        if not eq:
            i += 1
            if i >= len(args):
                raise InputError(f"{flag} needs a value", flag)
            value = args[i]
        opt = known[flag]
        out[opt.name] = opt.parse(value)
        i += 1
    return out


def format_summary(s: dict[str, Any], title: str, outputs: Any = None) -> str:
    """The text a designer reads after ``foury-sim run``: the lines follow the game's output declaration
    (``outputs``; by default the declaration of the game ``s["game"]`` names, if any)."""
    from .outputs import fmt_rate, summary_lines

    if outputs is None and s.get("game"):
        from .registry import get_game

        try:
            outputs = get_game(s["game"]).outputs
        except InputError:
            outputs = None
    from .provenance import header_lines, policy_text

    n = s["games"]
    rec = s.get("provenance")
    policy = policy_text(rec) if rec else s["policy"]
    lines = [f"{title}", f"hero {s['hero']}, policy {policy}, seed {s['seed']}, {n:,} games"]
    lines += [*(header_lines(rec) if rec else ()), ""]
    lines += [*s.get("warnings", ()), *([""] if s.get("warnings") else [])]
    # (every interval of the run is at this level)
    lvl = f"{100 * (s.get('win') or {}).get('conf', s.get('conf', 0.95)):g} %"
    if s.get("no_win"):  # a variant without a victory (registry.GameSpec.no_win): no win rate to state
        lines.append(f"win rate            none: {s['no_win']}")
        lines.append(f"intervals           every bracket below is at {lvl}: Wilson for a share, Student t for a "
                     "mean, order statistics for a median")
    else:
        lines.append(f"win rate            {fmt_rate(s['win'])}  ({lvl} Wilson interval; every bracket below is at "
                     f"{lvl}, Student t for a mean, order statistics for a median)")
    body = summary_lines(s, outputs)
    # the win rate's own indented lines (a share of the games won) stay under it, above the turn cap's
    n_sub = next((i for i, line in enumerate(body) if not line.startswith("  ")), len(body))
    lines += body[:n_sub]
    if "turn_cap_share" in s:
        k = s["turn_cap_games"]
        iv = s.get("share_intervals", {}).get("turn_cap_share")
        ci = f"  [{100 * iv[0]:.2f}, {100 * iv[1]:.2f}]" if isinstance(iv, list) and len(iv) == 2 else ""
        lines.append(f"ended at turn cap   {100 * s['turn_cap_share']:6.2f} %{ci}  ({k:,} game{'s' * (k != 1)})")
    lines += body[n_sub:]
    if s.get("assumptions"):
        from .assumptions import summary_lines as assumption_lines

        lines += [""] + assumption_lines(s["assumptions"])
    lines.append("")
    lines.append(timing_line(s))
    return "\n".join(lines)


def timing_line(s: dict[str, Any]) -> str:
    """The last line of ``run``: simulation time and speed, then (apart) the time spent compiling the engine
    (its first run after an install or code change) or loading it from the cache."""
    line = f"{s['elapsed_s']:.2f} s simulating, {s['games_per_s']:,} games/s"
    if s.get("resumed_chunks"):  # (the speed is of the games played now: the resumed ones were played before)
        line += f" (of the games played now; {s['resumed_chunks']:,} chunks resumed from the parts written before)"
    if s.get("compile_s", 0) >= 0.05:
        line += f"; plus {s['compile_s']:.1f} s compiling the engine (first run after an install or code change)"
    elif s.get("load_s", 0) >= 0.05:
        line += f"; plus {s['load_s']:.1f} s loading the compiled engine"
    return line


@app.command(cls=Command, context_settings=GAME_OPTIONS)
def run(
    ctx: typer.Context,
    game: str = GameArg,
    hero: str | None = typer.Option(None, metavar="NAME", help=HERO_HELP),
    policy: str | None = typer.Option(None, metavar="NAME", help=POLICY_HELP),
    param: str | None = typer.Option(None, metavar="K=V,...", help=PARAM_HELP),
    games: int = typer.Option(10_000, metavar="N", help="Number of games."),
    seed: int = typer.Option(1, metavar="N", help="Master seed: game i always plays on stream (seed, i)."),
    map: str | None = typer.Option(None, "--map", metavar="NAME", help=MAP_HELP),
    rules: Path | None = typer.Option(None, metavar="FILE", help=RULES_HELP),
    set_: list[str] | None = typer.Option(None, "--set", metavar="KEY=VALUE", help=SET_HELP),
    threads: int | None = typer.Option(None, metavar="N", help=THREADS_HELP),
    fmt: str = typer.Option("text", "--format", metavar="FORMAT", help=FORMAT_HELP),
    out: str | None = typer.Option(None, metavar="FOLDER", help="Also write games.parquet (a folder of parts, "
                                   "written as the games are played; the same command goes on after an "
                                   "interruption), games.csv and summary.json here (default: print only)."),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help=PROGRESS_HELP),
    conf: float = typer.Option(0.95, metavar="LEVEL", help="Confidence level of every interval printed "
                               "(e.g. 0.9, 0.99)."),
    cluster: str | None = ClusterOpt,
) -> None:
    """Simulate many games and print the win rate with its interval, and where and why players die.
    Options only some games take (see `foury-sim games`) follow the common ones."""
    from .files import to_jsonable
    from .registry import get_game
    from .runner import run as run_games
    from .runner import write_run

    spec = get_game(game)
    options = _game_options(spec, "run", ctx.args)
    check_format(fmt)
    check_conf(conf)
    check_out_dir(out)
    check_input_file(rules, "--rules")
    # streamed: the summary from chunks of games, the per-game table only written (as parquet parts) with --out
    ex = executor(cluster)
    with _out_folder(out):
        res = run_games(game, hero=hero, policy=policy, params=param, games=games, seed=seed,
                        rules=str(rules) if rules else None, sets=set_, map=map, threads=threads,
                        progress=progress, options=options, conf=conf, keep_rows=False, out=out, executor=ex)
        text = (json.dumps(to_jsonable(res.summary), indent=2) if fmt == "json"
                else format_summary(res.summary, res.summary["title"], spec.outputs))
        try:
            _write_or_say(lambda: write_run(res, out) if out is not None else None, text, out)
        except KeyboardInterrupt:
            if out is None:
                raise
            from .errors import Interrupted

            raise Interrupted(f"every game was played and its parts kept in {res.parts}; the same command writes "
                              "the tables and the summary from them", same_command=True) from None


@contextlib.contextmanager
def _out_folder(out: str | None) -> Any:
    """A run's ``--out`` while it runs: locked (``study.FolderLock``: a second run into the same folder is refused
    in one line, as a second sweep is, instead of mixing its parts with this one's), and without another run's
    ``runner.RUN_FILES`` (an interrupted run leaves only its own parts, never an older run's summary beside them)."""
    if out is None:
        yield
        return
    from .files import WriteError
    from .runner import RUN_FILES
    from .study import FolderLock

    folder = Path(out)
    try:
        folder.mkdir(exist_ok=True)  # (check_out_dir: a writable folder, or a new one in one, as far as it can tell)
    except OSError as e:  # (/proc, /sys: writable to root by their modes, and no folder can be made there)
        raise WriteError(f"cannot create the folder: {e.strerror}", str(folder)) from None
    with FolderLock(folder):
        for name in RUN_FILES:
            (folder / name).unlink(missing_ok=True)
        yield


def _write_or_say(write: Any, text: str, target: Any, result: bool = True, wrote: str = "") -> None:
    """Write a verb's files, then print ``text`` (and ``wrote``, the line naming the files written); if writing
    fails (disk full, permissions changed while simulating, /proc to root), a ``result`` is printed all the same
    (the computed numbers are not lost) but never ``wrote`` (no file is claimed that was not written), and the
    failure is one line naming the file (the one the OS names, else ``target``; exit 2)."""
    from .files import WriteError

    kept = "; the result above was not saved" if result else ""
    try:
        write()
    except OSError as e:
        if result:
            typer.echo(text)
        reason = e.strerror or type(e).__name__
        raise InputError(f"could not be written ({reason}){kept}", str(e.filename or target)) from None
    except WriteError as e:  # files' atomic writers: the OS error already in words, the file in ``where``
        if result:
            typer.echo(text)
        raise InputError(f"{e.message}{kept}", e.where) from None
    typer.echo(text)
    if wrote:
        typer.echo(wrote)


@app.command(cls=Command, context_settings=GAME_OPTIONS)
def replay(
    ctx: typer.Context,
    game: str = GameArg,
    seed: int = typer.Option(1, metavar="N", help="Master seed of the run."),
    game_index: int = typer.Option(0, "--game", metavar="INDEX", help="Index of the game in that run "
                                   "(0 is the first)."),
    hero: str | None = typer.Option(None, metavar="NAME", help=HERO_HELP),
    policy: str | None = typer.Option(None, metavar="NAME", help=POLICY_HELP),
    param: str | None = typer.Option(None, metavar="K=V,...", help=PARAM_HELP),
    map: str | None = typer.Option(None, "--map", metavar="NAME", help=MAP_HELP),
    rules: Path | None = typer.Option(None, metavar="FILE", help=RULES_HELP),
    set_: list[str] | None = typer.Option(None, "--set", metavar="KEY=VALUE", help=SET_HELP),
) -> None:
    """Print one game's full play report: every roll, event, decision and resource change. The options of `run`
    only some games take (see `foury-sim games`) follow the common ones, as in `run`, and so do the replay's own
    (e.g. `--grid-at 1,5,last`, the level drawn at the start of those turns)."""
    from .registry import get_game
    from .runner import in_worker, policy_watch, run_options

    spec = get_game(game)
    given = _game_options(spec, "run", ctx.args, also="replay")
    own = {o.name for o in spec.options if "replay" in o.commands and "run" not in o.commands}
    options = run_options(spec, "run", {k: v for k, v in given.items() if k not in own})
    shown = {k: v for k, v in given.items() if k in own}  # the replay's own options (e.g. --grid-at): how to show it
    check_seed(seed)
    check_game_index(game_index)
    check_name(hero, "--hero")
    check_name(policy, "--policy")
    check_param_text(param)
    check_input_file(rules, "--rules")
    spec.check_map(map)
    rs = spec.load_ruleset(str(rules) if rules else None, set_, map, **options)
    h = spec.check_hero(rs, spec.default_hero if hero is None else hero)
    pol = spec.policy(policy, param)
    lines = in_worker(spec.replay, rs, h, pol, seed, game_index, watch=policy_watch(pol), **shown)
    typer.echo("\n".join(lines[:1] + replay_provenance(game, seed, game_index, hero, policy, param, map, rules, set_,
                                                        given, spec.read_files(rs)) + lines[1:]))


def replay_provenance(game: str, seed: int, index: int, hero: str | None, policy: str | None, param: str | None,
                      map: str | None, rules: Path | None, sets: list[str] | None,
                      options: dict[str, Any] | None = None, read: dict[str, str] | None = None) -> list[str]:
    """The lines a replay's header adds after the game's own first line: the settings changed from the defaults
    (a file with its sha256, as a run's summary gives it; ``read``: the files a ruleset key named, as a map a rules
    file names, ``GameSpec.files_read``), the command that produced it (``provenance.command``) and the version and
    commit that made it (with a policy file's sha256), so a pasted replay says how it was made."""

    from .provenance import command, file_record, git_commit, made_with, read_file_words, read_files_record, version

    changed = []
    for opt, value in (("--map", map), ("--rules", rules)):
        if value is not None:
            changed += [opt, str(value)]
    for s in sets or []:
        changed += ["--set", s]
    choice = []
    for opt, value in (("--hero", hero), ("--policy", policy), ("--param", param)):
        if value is not None:
            choice += [opt, str(value)]
    for name, value in (options or {}).items():  # the game's own options given (e.g. a second side's policy)
        choice += [f"--{name.replace('_', '-')}", str(value)]
    args = ["--seed", str(seed), "--game", str(index)] + choice + changed
    given = changed + [w for name, value in (options or {}).items()  # (a campaign changes the rules and the map)
                       for w in (f"--{name.replace('_', '-')}", str(value))]
    def digest(value: str) -> str:
        f = file_record(value) or {}
        return f" (sha256 {f['sha256'][:12]})" if "sha256" in f else ""

    overrides = " ".join(given[i] + " " + shlex.quote(given[i + 1]) + digest(given[i + 1])
                         for i in range(0, len(given), 2))
    said = [file_record(v) for v in (map, *(options or {}).values()) if isinstance(v, str)]  # (--map's: said once)
    overrides += "".join(" " + w for w in read_file_words(read_files_record(read, said)))  # (as a run's header)
    made = made_with({"version": version(), "git_commit": git_commit()})
    if policy and ".py" in policy:
        made += f"; policy file {shlex.quote(policy.split('.py:', 1)[0] + '.py' if '.py:' in policy else policy)}" \
            + digest(policy)
    return [f"Overrides: {overrides or 'none (the shipped rules and map)'}",
            f"Command: {command('replay', game, args)}", f"Made with: {made}"]


@app.command(cls=Command, context_settings=GAME_OPTIONS)
def odds(
    ctx: typer.Context,
    game: str = GameArg,
    fmt: str = typer.Option("text", "--format", metavar="FORMAT", help=FORMAT_HELP),
    trials: int = typer.Option(20_000, metavar="N", help="Engine trials per row for the measured figures."),
    rules: Path | None = typer.Option(None, metavar="FILE", help=RULES_HELP),
    set_: list[str] | None = typer.Option(None, "--set", metavar="KEY=VALUE", help=SET_HELP),
    seed: int = typer.Option(1, metavar="N", help="Seed of the engine trials (a table that disagrees is measured "
                             "again on seed N+1: fresh dice)."),
    conf: float = typer.Option(0.95, metavar="LEVEL", help="Family-wise confidence level of the verdict (Holm over "
                               "every comparison of a table, e.g. 0.99)."),
) -> None:
    """Exact odds beside the frequencies the engine's own code produces. Options only some games take
    (e.g. `--hearts N`, see `foury-sim games`) follow the common ones."""
    from . import provenance
    from .registry import get_game
    from .runner import in_worker, run_options

    check_format(fmt)
    spec = get_game(game)
    kw = run_options(spec, "odds", _game_options(spec, "odds", ctx.args))
    if spec.odds is None:
        raise InputError(f"{game} has no odds table", "GAME")
    check_trials(trials)
    check_seed(seed)
    check_conf(conf)
    check_input_file(rules, "--rules")
    rs = spec.load_ruleset(str(rules) if rules else None, set_, None)
    table = in_worker(spec.odds, rs, trials=trials, seed=seed, conf=conf, **kw)
    from .oddstable import format_odds, needs_confirming, odds_json

    confirm, confirm_seed = None, None
    if needs_confirming(table, conf):  # fresh dice for the comparisons a first look flags (oddstable.verdict)
        confirm_seed = seed + 1 if seed < SEED_MAX else seed - 1
        confirm = in_worker(spec.odds, rs, trials=trials, seed=confirm_seed, conf=conf, **kw)
    rec = provenance.odds_record(
        game, trials=trials, seed=seed, conf=conf, rules=str(rules) if rules else None,
        sets=provenance.resolve_sets(set_, getattr(rs, "data", None)), options=kw,
        defaults={o.name: o.default for o in spec.options if "odds" in o.commands})
    if fmt == "json":  # the same title, column meanings and verdict as the text, then the rows
        typer.echo(json.dumps(odds_json(table, conf, confirm, confirm_seed, rec), indent=2))
    else:
        typer.echo(format_odds(table, conf, confirm, confirm_seed, provenance.header_lines(rec)))


@app.command(cls=Command)
def sweep(
    experiment: Path = typer.Argument(..., metavar="EXPERIMENT", help="Experiment file (TOML), e.g. "
                                      "experiments/hero_difficulty.toml."),
    out: Path = typer.Option(Path("results"), metavar="FOLDER", help="Results root; the study goes to OUT/NAME/ "
                             "(a quick look to OUT/NAME-quick-...)."),
    games: int | None = typer.Option(None, metavar="N", help="Quick look: N games per cell instead of the file's "
                                     "games or precision (default: the file's). Results go to OUT/NAME-quick-..., "
                                     "never mixed with the full study."),
    heroes: str | None = typer.Option(None, metavar="A,B,...", help="Quick look: these heroes instead of the file's "
                                      "hero axis or fixed hero (several turn a fixed hero into an axis; refused if "
                                      "the file sets no hero; default: the file's)."),
    policies: str | None = typer.Option(None, metavar="A,B,...", help="Quick look: these policies instead of the "
                                        "file's policy axis or fixed policy (as --heroes; default: the file's)."),
    resume: bool = typer.Option(False, "--resume", help="Keep cells already written and run the rest "
                                "(default: start afresh)."),
    threads: int | None = typer.Option(None, metavar="N", help=THREADS_HELP),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help=PROGRESS_HELP
                                         + " --no-progress also drops the lines about the report."),
    report: bool = typer.Option(True, "--report/--no-report", help="Build figures and reports afterwards."),
    precision: float | None = typer.Option(None, metavar="WIDTH", help="Add batches to each cell until its "
                                           "interval (at the file's conf, default 95 %) is at most this wide "
                                           "(overrides the file's games/precision; default: the file's)."),
    max_games: int | None = typer.Option(None, metavar="N", help="Cap on games per cell with --precision "
                                         "(default: the file's max_games, else 200,000)."),
    batch: int | None = typer.Option(None, metavar="N", help="Games added per batch with --precision (default and "
                                     "minimum: ceil(40 z / precision), which keeps the optional-stopping bias "
                                     "small)."),
    cluster: str | None = ClusterOpt,
) -> None:
    """Run a parameter sweep on common dice streams; write tables, manifest, figures and a report, then print
    the cells' win rates. --games/--heroes/--policies make a quick look at a smaller study."""
    from .study import load_experiment, run_sweep, set_precision

    check_threads(threads)
    if games is not None and precision is not None:
        raise InputError("--games and --precision both set the games per cell: give one", "--games")
    exp = load_experiment(experiment, games=games, heroes=_names(heroes), policies=_names(policies))
    # every error is found before anything is simulated
    if precision is not None:
        set_precision(exp, precision, max_games, batch)
    elif max_games is not None or batch is not None:
        raise InputError("--max-games and --batch go with --precision", "--max-games" if max_games is not None
                         else "--batch")
    from .files import WriteError

    try:
        path = run_sweep(exp, out, resume=resume, progress=progress, threads=threads, report=report,
                         executor=executor(cluster))
    except WriteError as e:  # (a full disk: the cells computed are printed all the same, then the one line)
        if getattr(e, "result", None) is not None:
            _echo_rich(cells_table(e.result, exp.conf))
        raise
    typer.echo(f"{len(exp.cells)} cells -> {path}")
    typer.echo(how_made(path / "manifest.json"))
    _echo_rich(cells_table(path / "cells.csv", exp.conf))
    if report:
        typer.echo(f"report: {path / 'report.html'}  summary: {path / 'report.md'}")


def _names(text: str | None) -> list[str] | None:
    """``"kael, melyra"`` -> ``["kael", "melyra"]`` (None stays None)."""
    return None if text is None else [w.strip() for w in text.split(",")]


#: Rows of the results table printed after a sweep (the rest: in cells.csv).
TABLE_ROWS = 20


def cells_table(csv: Path | Any, conf: float = 0.95, limit: int = TABLE_ROWS) -> Any:
    """The end-of-sweep table of ``cells.csv`` (or of the cells' table itself, when it could not be written): one
    row per cell in the file's (grid) order with its games, win rate and interval; at most ``limit`` rows, then a
    line saying how many more the table holds."""
    import pandas as pd
    from rich import box
    from rich.table import Table

    cells = csv if isinstance(csv, pd.DataFrame) else pd.read_csv(csv)
    t = Table(box=box.SIMPLE_HEAD, title=None, show_edge=False, pad_edge=False)
    t.add_column("cell", justify="right")
    t.add_column("settings")
    t.add_column("games", justify="right")
    t.add_column("win rate", justify="right")
    t.add_column(f"{100 * conf:g} % interval", justify="right")
    for _, r in cells.head(limit).iterrows():
        if isinstance(r.get("no_win"), str) and r["no_win"]:  # a variant with no victory (GameSpec.no_win)
            t.add_row(str(r["cell"]), str(r["label"]), f"{int(r['games']):,}", "none", "(no victory)")
            continue
        t.add_row(str(r["cell"]), str(r["label"]), f"{int(r['games']):,}", f"{100 * r['win_rate']:.2f} %",
                  f"[{100 * r['win_lo']:.2f}, {100 * r['win_hi']:.2f}] %")
    more = len(cells) - limit
    if more <= 0:
        return t
    from rich.console import Group
    from rich.text import Text

    return Group(t, Text(f"... {more} more" + ("" if isinstance(csv, pd.DataFrame) else f" in {csv}")))


def _echo_rich(renderable: Any) -> None:
    """Print a rich table on stdout: plain text (no colours) when stdout is not a terminal, never wrapped
    to a narrow default width."""
    from rich.console import Console

    tty = sys.stdout.isatty()
    Console(file=sys.stdout, width=None if tty else 200, no_color=not tty, highlight=False,
            soft_wrap=False).print(renderable)


@app.command(cls=Command)
def robust(
    experiment: Path = typer.Argument(..., metavar="EXPERIMENT", help="Robustness experiment (TOML), "
                                      "e.g. experiments/robust_hero_ranking.toml."),
    out: Path = typer.Option(Path("results"), metavar="FOLDER", help="Results root; the study goes to OUT/NAME/ "
                             "(a quick look to OUT/NAME-quick-...)."),
    games: int | None = typer.Option(None, metavar="N", help="Quick look: N games per cell and design point instead "
                                     "of the file's (default: the file's). Results go to OUT/NAME-quick-..., never "
                                     "the full study's folder."),
    points: int | None = typer.Option(None, metavar="N", help="Quick look: N joint design points instead of the "
                                      "file's (default: the file's). Results go to OUT/NAME-quick-..., never the "
                                      "full study's folder."),
    threads: int | None = typer.Option(None, metavar="N", help=THREADS_HELP),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help=PROGRESS_HELP
                                         + " --no-progress also drops the line about the report."),
) -> None:
    """Vary the assumptions (one at a time, then jointly on a Latin hypercube) on common dice; report in
    what share of the assumption space each conclusion holds and which assumptions move it most."""
    from .files import WriteError
    from .robust import load_robust, run_robust

    check_threads(threads)
    exp = load_robust(experiment, games=games, points=points)  # every error is found before anything is simulated
    try:
        path = run_robust(exp, out, progress=progress, threads=threads)
    except WriteError as e:  # (a full disk: the verdicts computed are printed all the same, then the one line)
        if getattr(e, "result", None) is not None:
            _echo_rich(claims_table(e.result, exp.conf))
        raise
    typer.echo(f"-> {path}  report: {path / 'report.md'}")
    typer.echo(how_made(path / "manifest.json"))
    _echo_rich(claims_table(path / "robustness.csv", exp.conf))


def claims_table(csv: Path | Any, conf: float | None = None) -> Any:
    """The end-of-robust table: each whole conclusion, the share of the joint points where it holds (with that
    share's Wilson interval over the points, when the table has it) and holds clearly (at the study's level
    ``conf``, named in the heading), and whether it holds at the defaults."""
    import math

    import pandas as pd
    from rich import box
    from rich.table import Table

    summ = csv if isinstance(csv, pd.DataFrame) else pd.read_csv(csv)
    lvl = "" if conf is None else f"{100 * conf:g} %"
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    t.add_column("conclusion")
    t.add_column("holds at (joint points)" + (f", {lvl} interval" if lvl else ""), justify="right")
    t.add_column("holds clearly at" + (f" ({lvl} intervals)" if lvl else ""), justify="right")
    t.add_column("at the defaults", justify="center")
    for _, r in summ[summ["whole"]].iterrows():
        lo, hi = r.get("share_lo"), r.get("share_hi")
        iv = (f" [{100 * lo:.0f}, {100 * hi:.0f}]" if lo is not None and hi is not None
              and math.isfinite(lo) and math.isfinite(hi) else "")
        t.add_row(str(r["claim"]), f"{100 * r['share_holds']:.0f} %{iv}",
                  f"{100 * r['share_holds_clearly']:.0f} %", "yes" if r["holds_at_defaults"] else "no")
    return t


@app.command(cls=Command)
def compare(
    game: str = GameArg,
    a: list[str] | None = typer.Option(None, "--a", metavar="KEY=VALUE", help="Variant A settings (repeatable): "
                                       "hero, policy, map, rules, param.NAME or a ruleset key (default: none)."),
    b: list[str] | None = typer.Option(None, "--b", metavar="KEY=VALUE", help="Variant B settings (repeatable), "
                                       "as --a (default: none)."),
    fixed: list[str] | None = typer.Option(None, "--fixed", metavar="KEY=VALUE", help="Settings for both variants "
                                           "(repeatable; default: the game's defaults)."),
    games: int = typer.Option(10_000, metavar="N", help="Games per variant (the same games under both; streamed in "
                              "chunks: any number up to 2**63-1 in memory that does not grow with it)."),
    seed: int = typer.Option(1, metavar="N", help="Master seed: game i plays on stream (seed, i) in both variants."),
    threads: int | None = typer.Option(None, metavar="N", help=THREADS_HELP),
    fmt: str = typer.Option("text", "--format", metavar="FORMAT", help=FORMAT_HELP),
    out: str | None = typer.Option(None, metavar="FOLDER", help="Write comparison.json, tables and a figure here "
                                   "(a folder; default: print only)."),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help=PROGRESS_HELP),
    conf: float = typer.Option(0.95, metavar="LEVEL", help="Confidence level of the intervals; significance is "
                               "Holm-adjusted p < 1 - conf over all outcomes."),
    cluster: str | None = ClusterOpt,
) -> None:
    """Two variants on the same dice streams: paired differences, Holm-adjusted significance, flipped games."""
    from .registry import get_game
    from .runner import check_streamed_games
    from .study import compare as run_compare
    from .study import format_comparison, parse_settings, write_comparison

    spec = get_game(game)
    check_format(fmt)
    check_streamed_games(games)
    check_seed(seed)
    check_threads(threads)
    check_conf(conf)
    check_out_dir(out)
    own = {o.name for o in spec.options if "run" in o.commands}  # the game's run options (dm=...) as typed
    va, vb = parse_settings(a, "--a", own), parse_settings(b, "--b", own)
    if not va and not vb:
        raise InputError("give at least one setting with --a or --b (e.g. --a hero=kael --b hero=elydion)", "--a")
    fx = parse_settings(fixed, "--fixed", own)
    # streamed: statistics from per-chunk sums, per-game tables written chunk by chunk as parts (with --out)
    c = run_compare(game, va, vb, fixed=fx, games=games, seed=seed, threads=threads, progress=progress, conf=conf,
                    executor=executor(cluster), keep_rows=False, out=out, allow_same=False)
    text = json.dumps(c.to_dict(), indent=2) if fmt == "json" else format_comparison(c)
    _write_or_say(lambda: write_comparison(c, out) if out is not None else None, text, out)


@app.command(cls=Command)
def report(results: str = typer.Argument(..., metavar="FOLDER", show_default=False,
                                         help="A study folder, e.g. results/hero_difficulty.")) -> None:
    """Rebuild a study's figures, report.html and report.md from saved results (no simulation)."""
    # (a str, not a Path: typer makes "" the Path ".", and report "" then said the current folder lacks a manifest)
    from .report import build_report

    for p in build_report(results):
        typer.echo(f"wrote {p}")


@app.command(cls=Command, context_settings=GAME_OPTIONS)
def assumptions(
    ctx: typer.Context,
    game: str = GameArg,
    fmt: str = typer.Option("text", "--format", metavar="FORMAT", help=FORMAT_HELP),
    map: str | None = typer.Option(None, "--map", metavar="NAME", help=MAP_HELP),
    rules: Path | None = typer.Option(None, metavar="FILE", help=RULES_HELP),
    set_: list[str] | None = typer.Option(None, "--set", metavar="KEY=VALUE", help=SET_HELP),
) -> None:
    """List the values no rulebook prints: key, value, plausible range or alternatives, reason, where. The options
    of `run` only some games take (e.g. `--campaign NAME`) follow the common ones."""
    from .assumptions import of, table
    from .registry import get_game
    from .runner import run_options

    check_format(fmt)
    spec = get_game(game)
    options = run_options(spec, "run", _game_options(spec, "run", ctx.args))
    check_input_file(rules, "--rules")
    spec.check_map(map)
    rs = spec.load_ruleset(str(rules) if rules else None, set_, map, **options)
    found = of(rs)
    if fmt == "json":
        from .files import to_jsonable

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


@app.command(cls=Command)
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
        for o in spec.options:
            # its help, its default unless the help says it (never a bare "default None"), its range
            parts = [o.help.rstrip(".")]
            if "default" not in o.help.lower() and o.default not in (None, ""):
                parts.append(f"default {o.default}")
            if o.minimum is not None:
                parts.append(f"from {o.minimum:g} to {o.maximum:g}")
            typer.echo(f"         option {o.flag} of {'/'.join(o.commands)}: {'; '.join(parts)}.")
        if spec.board is not None:
            typer.echo(f"         {spec.board.noun + 's:':9s} {', '.join(spec.board.builtin())} (or a file; "
                       f"`foury-sim map check NAME --game {name}`)")


@app.command(cls=Command, context_settings={"allow_extra_args": True}, options_metavar="[GAME...]")
def warm(ctx: typer.Context) -> None:
    """Compile ahead of time everything `run`, `replay` and `odds` of the GAMEs use (default: every game; a
    minute or more per game after an install or a code change; then every run loads it from the cache in about
    a second): for CI, a cluster's workers or a notebook's first cell. Prints per game what it compiled and how
    long it took."""
    from .warm import warm as warm_games

    for r in warm_games(list(ctx.args)):
        typer.echo(r.line())


@app.command(cls=Command)
def columns(
    game: str = GameArg,
    markdown: bool = typer.Option(False, "--markdown", help="Print the Markdown table of docs/outputs.md instead."),
) -> None:
    """List a game's per-game output columns: name, how the run summary treats it, meaning."""
    from .outputs import markdown as outputs_markdown
    from .registry import get_game

    spec = get_game(game)
    if markdown:
        typer.echo(outputs_markdown([game]), nl=False)
        return
    for c in spec.outputs.columns:
        typer.echo(f"{c.name:22s} {c.summary:8s} {c.source:7s} {c.axis_label}")


def _board(game: str | None) -> tuple[Any, Any]:
    """(spec, board hook) of a game with a board; one clear error for a game without one."""
    from .registry import get_game

    spec = get_game(game or _default_game())
    if spec.board is None:
        raise InputError(f"{spec.name} has no board: nothing to check or draw", "--game")
    return spec, spec.board


def _other_board(map_file: str, tried: str) -> str:
    """What to add to the fault of a file read as the default game's board when another game's reader takes it
    (another game's level or dungeon checked without ``--game``): that game's ``--game``; else nothing."""
    from .registry import games as all_games
    from .registry import get_game

    if not Path(map_file).is_file():
        return ""
    for name in all_games():
        board = get_game(name).board if name != tried else None
        if board is None:
            continue
        try:
            board.resolve(map_file)
        except Exception:  # noqa: BLE001 - not this game's board either
            continue
        return f" (it reads as a {name} board: add --game {name})"
    return ""


@map_app.command("render", cls=Command, context_settings=GAME_OPTIONS)
def map_render(
    ctx: typer.Context,
    map_file: str = typer.Argument(..., metavar="MAP", help="Map file or shipped map name."),
    out: str = typer.Option("map.png", "-o", "--out", metavar="FILE", help="PNG to write (its folder must exist)."),
    game: str | None = typer.Option(None, "--game", metavar="GAME", help="The game whose board it is (default: "
                                    "the default game)."),
) -> None:
    """Draw a board (map) as a picture a designer can check. Options only some games take (e.g. `--campaign NAME`:
    the map read as that campaign's rules read it) follow the common ones."""
    from .files import atomic_write

    check_map_name(map_file, "MAP")
    spec, board = _board(game)
    options = _game_options(spec, "map", ctx.args)
    check_out_file(out, "--out", ".png")
    m = board.load(map_file, None, None, **options) if options and board.load is not None else board.resolve(map_file)
    fig = board.draw(m)
    from . import provenance
    from .figures import made_footer

    # how the picture was made, at its foot: the game, the map as given, the game's options, version and commit
    made_footer(fig, "; ".join([f"game {spec.name}", f"map {map_file}",
                                *([provenance.describe(options)] if options else []),
                                provenance.made_with({"version": provenance.version(),
                                                      "git_commit": provenance.git_commit()})]))
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    _write_or_say(lambda: atomic_write(out, buf.getvalue()), f"wrote {out}", out, result=False)


@map_app.command("check", cls=Command, context_settings=GAME_OPTIONS)
def map_check(
    ctx: typer.Context,
    map_file: str = typer.Argument(..., metavar="MAP", help="Map file or shipped map name."),
    game: str | None = typer.Option(None, "--game", metavar="GAME", help="The game whose board it is (default: "
                                    "the default game)."),
    rules: Path | None = typer.Option(None, metavar="FILE", help="Check against this rules file (as `run --rules`; "
                                      "default: the shipped ruleset)."),
    set_: list[str] | None = typer.Option(None, "--set", metavar="KEY=VALUE", help="Check under these overrides "
                                          "(as `run --set`; repeatable; default: none)."),
) -> None:
    """Parse and validate a board (map) exactly as `run` would (same ruleset, same checks); print what it holds.
    Options only some games take (e.g. `--campaign NAME`: check it against that campaign's rules) follow the
    common ones."""
    check_map_name(map_file, "MAP")
    spec, board = _board(game)
    options = _game_options(spec, "map", ctx.args)
    try:
        m = (board.load(map_file, str(rules) if rules else None, set_, **options) if board.load is not None
             else board.resolve(map_file))
    except InputError as e:  # (the map is this verb's argument, not a --map option)
        hint = _other_board(map_file, spec.name) if game is None else ""
        raise InputError(e.message + hint, "MAP" if e.where == "--map" else e.where) from None
    for line in board.check(m):
        typer.echo(line)


baseline_app = typer.Typer(no_args_is_help=True, cls=Group,
                           help="Balance baselines: save the results of a named set of runs, for `foury-sim check` "
                           "to compare against.")
app.add_typer(baseline_app, name="baseline")


@baseline_app.command("save", cls=Command)
def baseline_save(
    spec: str = typer.Argument(..., metavar="SPEC", help="Baseline spec (TOML), or the name of one in "
                               "experiments/baselines/."),
    out: Path = typer.Option(Path("results/baselines"), help="Baselines folder; the baseline goes to OUT/NAME/.",
                             show_default=True),
    threads: int | None = typer.Option(None, help="Numba threads (default: all cores)."),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help="Progress bar on stderr."),
) -> None:
    """Play every run of a baseline spec and store, per run, its summary and the per-game values of the
    watched metrics, with the code version of each game (replaces an older baseline of the same name)."""
    from .baseline import format_saved, load_spec, save

    if not spec.strip():  # (it was read as the folder ".")
        raise InputError("is empty: give a baseline spec (TOML) or the name of one in experiments/baselines/", "SPEC")
    check_threads(threads)
    check_out_dir(out)
    s = load_spec(spec)  # every error is found before anything is simulated
    typer.echo(format_saved(save(s, out, progress=progress, threads=threads)))


@app.command("check", cls=Command)
def check_baseline(
    name: str = typer.Argument(..., metavar="NAME_OR_SPEC",
                               help="A saved baseline's name (its stored spec is re-run), or a spec file (TOML; "
                               "compared with the baseline of its name)."),
    baselines: Path = typer.Option(Path("results/baselines"), help="Folder holding the saved baselines.",
                                   show_default=True),
    fmt: str = typer.Option("text", "--format", help="text or json.", show_default=True),
    every: bool = typer.Option(False, "--all", help="List every metric, not only what moved.", show_default=True),
    threads: int | None = typer.Option(None, help="Numba threads (default: all cores)."),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help="Progress bar on stderr."),
) -> None:
    """Re-run a baseline's games on the same dice and compare each watched metric with paired tests (Holm
    over all metrics). Exit 0: nothing moved beyond its tolerance and chance; exit 1: a table of what moved."""
    from .baseline import check, format_check
    from .files import to_jsonable

    check_format(fmt)
    check_threads(threads)
    if Path(name).suffix == ".toml" and not Path(name).is_file():  # (it named the --baselines folder, not given)
        from .baseline import load_spec

        load_spec(name)  # (one line: the spec file is not there)
    if not baselines.is_dir():
        raise InputError(f"no baselines folder {str(baselines)!r} (save one with: foury-sim baseline save SPEC.toml "
                         f"--out {baselines})", "--baselines")
    res = check(name, baselines, progress=progress, threads=threads)
    typer.echo(json.dumps(to_jsonable(res.to_dict()), indent=2) if fmt == "json" else format_check(res, every))
    if not res.passed:
        raise typer.Exit(1)

@app.command(name="tune", cls=Command)
def tune_cmd(
    ctx: typer.Context,
    game: str = typer.Argument(_default_game, show_default=False,
                               help="Game to tune (see `foury-sim games`), or a tuning file (TOML, e.g. "
                               "experiments/tune_orc_per_hero.toml: one tuning per hero, a table of answers)."),
    param: str | None = typer.Option(None, "--param", help="The setting to tune: a ruleset key "
                                     "(enemies.orc.base), one element of a list (round.monster_bonus[2], 0-based), "
                                     "a whole list of numbers (round.monster_bonus: tuned element by element) or a "
                                     "policy parameter (param.NAME); required with a game; default: none.",
                                     show_default=False),
    target: str | None = typer.Option(None, help="METRIC=VALUE: a rate column as a fraction (win=0.30) or a "
                                      "mean column (score=20); see `foury-sim columns GAME`; for a whole list, one "
                                      "target per element: COLUMN OP i[+K]=T0,T1,... (rounds_completed>=i+1="
                                      "0.9,0.8,0.7,0.6; i the 0-based element, - keeps one); required with a game; "
                                      "default: none.", show_default=False),
    tolerance: float | None = typer.Option(None, help="Half-width of the target band, in the metric's units "
                                           "(0.02 = 2 points of win rate; required with a game; default: none).",
                                           show_default=False),
    fixed: list[str] | None = typer.Option(None, "--fixed", metavar="KEY=VALUE",
                                           help="Other settings, KEY=VALUE (repeatable): hero=kael, "
                                           "policy=cautious, any ruleset key; default: none.", show_default=False),
    range_: str | None = typer.Option(None, "--range", help="LO,HI: the values to search between (needed; "
                                      "whole-number ends search whole numbers; default: none).",
                                      show_default=False),
    integer: bool | None = typer.Option(None, "--integer/--continuous", help="Search whole numbers or any "
                                        "number (default: whole numbers when both ends of --range are).",
                                        show_default=False),
    monotone: str | None = typer.Option(None, help="For a whole list: the order its elements keep: increasing, "
                                        "decreasing, strictly-increasing, strictly-decreasing or none; each element "
                                        "is searched from the previous one's value (default: increasing for a "
                                        "list; refused for a single number).", show_default=False),
    family: str | None = typer.Option(None, help="For a whole list: tune ONE number s of a schedule family to a "
                                      "single target (win=0.30): shift (the list + s), scale (s x the list), "
                                      "shape=V0,V1,... (s x that shape), step=V0,V1,... (the list + s x step) or "
                                      "base=B0,...;step=V0,...; --range is the range of s (default: none: each "
                                      "element to its own target).", show_default=False),
    seed: int | None = typer.Option(None, help="Master seed: every candidate plays games 0, 1, ... on streams "
                                    "(seed, i) (default: 1; with a tuning file: replaces the file's seed).",
                                    show_default=False),
    conf: float | None = typer.Option(None, help="Confidence level of every interval (default: 0.95; with a "
                                      "tuning file: replaces the file's).", show_default=False),
    max_games: int | None = typer.Option(None, help="Budget: games over all candidates (default: 200000; with a "
                                         "tuning file: replaces the file's, per tuning).", show_default=False),
    first_games: int | None = typer.Option(None, help="Games per value of the first look (default: enough for "
                                           "an interval about four tolerances wide).", show_default=False),
    points: int | None = typer.Option(None, help="Values of the first look, spread over the range (default: 5; "
                                      "with a tuning file: replaces the file's).", show_default=False),
    threads: int | None = typer.Option(None, help="Numba threads (default: all cores).", show_default=False),
    fmt: str = typer.Option("text", "--format", help="text or json.", show_default=True),
    out: str | None = typer.Option(None, help="Write tune.json (record with provenance), candidates.csv and "
                                   "calibration.png here (a folder); with a file: the results root "
                                   "(OUT/NAME/; default: print only).", show_default=False),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help=PROGRESS_HELP, show_default=False),
    cluster: str | None = ClusterOpt,
) -> None:
    """Find the value of one setting that puts a win rate (or any summary metric) within a tolerance of a
    target, with common dice and more games only near the target; print a one-line answer and the candidates."""
    from . import tune as tn
    from .registry import get_game
    from .study import parse_settings

    check_format(fmt)
    if conf is not None:
        check_conf(conf)
    check_threads(threads)
    if seed is not None:
        check_seed(seed)
    if monotone is not None:
        tn.check_monotone(monotone)
    check_out_dir(out)
    executor(cluster, ctx)  # every candidate's games are played there (runner.executing, for this verb)
    if game.endswith(".toml") or Path(game).is_file():
        given = [f for f, v in (("--param", param), ("--target", target), ("--tolerance", tolerance),
                                ("--fixed", fixed), ("--range", range_), ("--integer", integer),
                                ("--first-games", first_games), ("--monotone", monotone),
                                ("--family", family)) if v]
        if given:
            raise InputError(f"{given[0]} goes in the tuning file, not on the command line with it", given[0])
        tf = tn.load_tune_file(game)
        # --seed, --conf, --max-games, --points given with a file replace the file's values (recorded)
        tf = tn.override_tune_file(tf, seed=seed, conf=conf, max_games=max_games, points=points)
        table, results = tn.run_tune_file(tf, None, threads=threads, progress=progress)
        # (what tune.json records)
        text = json.dumps(tn.file_record(tf, results, out), indent=2) if fmt == "json" else _tune_text(
            tn.format_answers(tf, table), tn.tune_file_command(tf, out))
        wrote = f"-> {Path(out) / tf.name}" if out is not None and fmt != "json" else ""
        _write_or_say(lambda: tn.write_tune_file(tf, table, results, out) if out is not None else None, text,
                      Path(out) / tf.name if out is not None else None, wrote=wrote)
        return
    spec = get_game(game)
    for flag, v in (("--param", param), ("--target", target), ("--tolerance", tolerance)):
        if v is None:
            raise InputError(f"{flag} is needed (e.g. --param enemies.orc.base --target win=0.30 --tolerance 0.02)",
                             flag)
    seed = 1 if seed is None else seed
    conf = 0.95 if conf is None else conf
    max_games = 200_000 if max_games is None else max_games
    points = 5 if points is None else points
    fx = parse_settings(fixed, "--fixed")
    if family is not None:  # a whole list through one number s: base + s x step
        if monotone is not None:
            raise InputError("--monotone orders a list tuned element by element; --family moves the whole list "
                             "with one number", "--monotone")
        if range_ is None:
            raise InputError("give the values s may take: --range LO,HI (e.g. --range 0,4)", "--range")
        metric, value = tn.parse_target(target)
        lo, hi, whole = tn.parse_range(range_)
        r = tn.tune_family(game, param, family, metric, value, tolerance, fixed=fx, lo=lo, hi=hi,
                           integer=whole if integer is None else integer, seed=seed, conf=conf, max_games=max_games,
                           first_games=first_games, points=points, threads=threads, progress=progress)
        r.extra["command"] = tn.with_out(r.extra["command"], out)  # (recorded with --out: pasted, it writes there)
        text = json.dumps(r.to_dict() | tn.made(), indent=2) if fmt == "json" else _tune_text(tn.format_family(r),
                                                                                             r.extra["command"])
        wrote = f"-> {out}/tune.json, candidates.csv, calibration.png" if out is not None and fmt != "json" else ""
        _write_or_say(lambda: tn.write_tune(r, out) if out is not None else None, text, out, wrote=wrote)
        return
    if tn.list_setting(spec, param, fx) is not None:  # a whole list: a schedule, element by element
        if range_ is None:
            raise InputError(f"give the values each element may take: --range LO,HI (e.g. --range 0,8) for {param}",
                             "--range")
        lo, hi, whole = tn.parse_range(range_)
        v = tn.tune_vector(game, param, target, tolerance, fixed=fx, lo=lo, hi=hi,
                           integer=whole if integer is None else integer, monotone=monotone or "increasing",
                           seed=seed, conf=conf, max_games=max_games, first_games=first_games, points=points,
                           threads=threads, progress=progress)
        v.extra["command"] = tn.with_out(v.extra["command"], out)
        text = json.dumps(v.to_dict() | tn.made(), indent=2) if fmt == "json" else _tune_text(tn.format_vector(v),
                                                                                             v.extra["command"])
        wrote = (f"-> {out}/tune.json, elements.csv, candidates.csv, calibration.png"
                 if out is not None and fmt != "json" else "")
        _write_or_say(lambda: tn.write_vector(v, out) if out is not None else None, text, out, wrote=wrote)
        return
    if monotone is not None:
        raise InputError(f"--monotone orders the elements of a list; {param} is a single number", "--monotone")
    metric, value = tn.parse_target(target)
    tn.metric_kind(spec, metric)
    if range_ is not None:
        lo, hi, whole = tn.parse_range(range_)
    else:
        lo, hi, whole = tn.default_range(spec, param, fx)
    r = tn.tune(game, param, metric, value, tolerance, fixed=fx, lo=lo, hi=hi,
                integer=whole if integer is None else integer, seed=seed, conf=conf, max_games=max_games,
                first_games=first_games, points=points, threads=threads, progress=progress)
    r.extra["command"] = tn.with_out(r.extra["command"], out)
    text = json.dumps(r.to_dict() | tn.made(), indent=2) if fmt == "json" else _tune_text(tn.format_result(r),
                                                                                         r.extra["command"])
    wrote = f"-> {out}/tune.json, candidates.csv, calibration.png" if out is not None and fmt != "json" else ""
    _write_or_say(lambda: tn.write_tune(r, out) if out is not None else None, text, out, wrote=wrote)


def _tune_text(text: str, cmd: str) -> str:
    """A tuning's text with how it was made at its end (``how_made``)."""
    from .provenance import git_commit, version

    return f"{text}\n\n{how_made({'command': cmd, 'version': version(), 'git_commit': git_commit()})}"


def how_made(rec: dict[str, Any] | Path) -> str:
    """How a verb's output was made, in the two lines ``run`` and ``compare`` print (``provenance.header_lines``):
    ``reproduce:`` the command of the record ``rec`` (a run's, a study's manifest, a ladder's summary, or the JSON
    file holding it) and ``made with:`` its version and commit."""
    from .provenance import made_with

    if isinstance(rec, Path):
        rec = json.loads(rec.read_text(encoding="utf-8"))

    version = rec.get("version") or rec.get("package_version")  # (a study's manifest: ``package_version``)
    return f"reproduce: {rec['command']}\nmade with: {made_with({**rec, 'version': version} if version else rec)}"


@app.command(name="ladder", cls=Command)
def ladder_cmd(
    game: str = typer.Argument(_default_game, show_default=False,
                               help="Game (see `foury-sim games`): random, then every built-in heuristic at its "
                               "defaults (and --tune rungs); or a ladder file (TOML, e.g. "
                               "experiments/ladder_delve.toml) with its own rungs."),
    hero: str | None = typer.Option(None, "--hero", metavar="A,B,...", help="Heroes to climb the ladder "
                                    "(default: every hero of the game, or the file's heroes).", show_default=False),
    rungs: str | None = typer.Option(None, "--rungs", metavar="LABEL,...", help="Only these rungs, by label, in "
                                     "ladder order (default: all).", show_default=False),
    skip_missing: bool = typer.Option(False, "--skip-missing", help="Drop rungs whose policy this build does not "
                                      "have (e.g. search, optimal), saying so (default: refuse them)."),
    tune: list[str] | None = typer.Option(None, "--tune", metavar="POLICY:NAME=LO..HI,...", help="With a game: add a "
                                          "tuned rung of POLICY searching these ranges (repeatable; default: "
                                          "none).", show_default=False),
    games: int | None = typer.Option(None, metavar="N", help="Games per (hero, rung), games 0..N-1 of the seed "
                                     "(default: 10,000, or the file's).", show_default=False),
    seed: int | None = typer.Option(None, help="Seed of the ladder's games, also the held-out seed of the tuning "
                                    "(default: 1, or the file's).", show_default=False),
    train_seed: int | None = typer.Option(None, help="Seed of the tuning's training games (default: 1001, or the "
                                          "file's tune.seed).", show_default=False),
    train_games: int | None = typer.Option(None, help="Games per CMA-ES candidate (default: 2,000, or the file's "
                                           "tune.games).", show_default=False),
    popsize: int | None = typer.Option(None, help="CMA-ES candidates per generation (default: 8, or the file's).",
                                       show_default=False),
    generations: int | None = typer.Option(None, help="CMA-ES generations (default: 8, or the file's).",
                                           show_default=False),
    weak_margin: float | None = typer.Option(None, help="A hero is weak when its top-rung interval (Bonferroni over "
                                             "the heroes) lies below the field's interval (the median hero's top "
                                             "rate) minus this (a win-rate fraction; default: 0.05, or the file's).",
                                             show_default=False),
    hard_gap: float | None = typer.Option(None, help="A hero is hard to play when top minus best heuristic (paired "
                                          "interval) lies above this (default: 0.05, or the file's).",
                                          show_default=False),
    conf: float | None = typer.Option(None, help="Confidence level of every interval and test (default: 0.95, or "
                                      "the file's).", show_default=False),
    retune: bool = typer.Option(False, "--retune", help="Tune again even where tuned.toml holds parameters for "
                                "the same settings (default: reuse them)."),
    tuned: str | None = typer.Option(None, "--tuned", metavar="FILE", help="Read tuned parameters from this "
                                     "tuned.toml (default: OUT/NAME/tuned.toml).", show_default=False),
    out: Path = typer.Option(Path("results"), metavar="FOLDER", help="Results root; the ladder goes to OUT/NAME/."),
    resume: bool = typer.Option(False, "--resume", help="Keep cells already written and run the rest "
                                "(default: start afresh)."),
    threads: int | None = typer.Option(None, metavar="N", help=THREADS_HELP),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help=PROGRESS_HELP, show_default=False),
) -> None:
    """The skill ladder: win rate (with intervals) of each hero for policies from random through the heuristics to
    tuned and search players, on the same dice; says which heroes are weak and which are hard to play."""
    from . import ladder as ld
    from .provenance import number_text

    check_threads(threads)
    if seed is not None:
        check_seed(seed)
    if train_seed is not None:
        check_seed(train_seed, "--train-seed")
    if games is not None:
        check_games(games)
    if conf is not None:
        check_conf(conf)
    for flag, v, lo, hi in (("--train-games", train_games, 1, 1_000_000), ("--popsize", popsize, 2, 200),
                            ("--generations", generations, 1, 1000)):
        if v is not None and not lo <= v <= hi:
            raise InputError(f"must be between {lo:,} and {hi:,}, not {v}", flag)
    for flag, v in (("--weak-margin", weak_margin), ("--hard-gap", hard_gap)):
        if v is not None and not 0 <= v < 1:
            raise InputError(f"is a win-rate fraction from 0 to below 1, not {v:g}", flag)
    if tuned is not None:
        check_input_file(tuned, "--tuned")
    given = {"hero": hero, "rungs": rungs, "games": games, "seed": seed, "train-seed": train_seed,
             "train-games": train_games, "popsize": popsize, "generations": generations,
             "weak-margin": weak_margin, "hard-gap": hard_gap, "conf": conf}
    args = [x for k, v in given.items() if v is not None for x in (f"--{k}", number_text(v) if isinstance(v, float)
                                                                   else str(v))]
    args += ["--skip-missing"] * skip_missing + [x for t in tune or [] for x in ("--tune", t)]
    if game.endswith(".toml") or Path(game).is_file():
        if tune:
            raise InputError("--tune goes with a game; a ladder file lists its tuned rungs", "--tune")
        lad = ld.load_ladder(game, heroes=_names(hero), rungs=_names(rungs), skip_missing=skip_missing, games=games,
                             seed=seed)
    else:
        lad = ld.game_ladder(game, heroes=_names(hero), tune=tune, seed=1 if seed is None else seed,
                             games=10_000 if games is None else games, rungs=_names(rungs))
    ld.override(lad, train_seed=train_seed, train_games=train_games, popsize=popsize, generations=generations,
                weak_margin=weak_margin, hard_gap=hard_gap, conf=conf)
    from .files import WriteError

    try:
        path = ld.run_ladder(lad, out, resume=resume, retune=retune, tuned_file=tuned, progress=progress,
                             threads=threads, cmd_args=args)
    except WriteError as e:  # (a full disk: the ladder computed is printed all the same, then the one line)
        if getattr(e, "result", None) is not None:
            typer.echo(e.result)
        raise
    typer.echo((path / "ladder.txt").read_text(encoding="utf-8"))
    tuned_note = ", tuned.toml" if (path / ld.TUNED_FILE).is_file() else ""
    typer.echo(f"-> {path} (ladder.csv, summary.json, ladder.png, README.md{tuned_note})")
    typer.echo(how_made(path / "summary.json"))


#: Exit codes (README): 0 done (also: no command given, which prints the help), 2 bad input or a file that
#: could not be written (one line naming the option or file:line[:col]), 130 interrupted (one line: what was
#: kept and how to resume).
EXIT_OK, EXIT_INPUT, EXIT_INTERRUPTED = 0, 2, 130


def interrupted_message(argv: list[str]) -> str:
    """What an interruption of ``foury-sim ARGV`` kept and how to go on (verbs that keep their finished work
    raise ``Interrupted`` with their own message)."""

    cmd = shlex.join(["foury-sim", *argv])
    verb = next((a for a in argv if not a.startswith("-")), "")
    if verb == "sweep":  # (without --resume a sweep starts afresh: it played every cell again)
        return (f"the cells written before the interruption are kept; go on with: {cmd}"
                + ("" if "--resume" in argv else " --resume"))
    if verb == "ladder":
        return (f"the cells and tunings written before the interruption are kept; go on with: {cmd}"
                + ("" if "--resume" in argv else " --resume"))
    # (a robust study keeps nothing until every point is played, and has no --resume: it said its files were kept)
    return f"nothing was kept; re-run the same command: {cmd}"


def _exit(code: int) -> None:
    """Exit; if a worker thread is stuck in a kernel call (a policy that never returns), end the process at
    once (``os._exit``: the interpreter would wait for it or crash tearing it down)."""
    runner = sys.modules.get(f"{__package__}.runner")
    if runner is not None and any(t.is_alive() for t in runner.STUCK):
        import os

        for f in (sys.stdout, sys.stderr):
            f.flush()
        os._exit(code)
    sys.exit(code)


def _check_numba_threads() -> None:
    """``NUMBA_NUM_THREADS``, when set, is a whole number from 1 (numba stopped a command at 0 with a traceback, and
    printed a warning with a traceback for a word)."""
    import os

    text = os.environ.get("NUMBA_NUM_THREADS")
    if text is not None and text.strip() and not (text.strip().isdigit() and int(text) >= 1):
        raise InputError(f"must be a whole number of threads from 1, not {text!r}", "NUMBA_NUM_THREADS")


#: The engines' on/off switches that ``config`` reads as on when unset, "" or "1" and off when "0" (its
#: ``SHIPPED_IR``, ``SHIPPED_CODE``): any other value (``2``, ``yes``, ``true``) was read as 0, in silence.
SWITCHES = ("FOURY_SIM_SHIPPED_IR", "FOURY_SIM_SHIPPED_CODE")
#: The switches that measure a compile trade, read as off (the project's way) when unset, "" or "0" and on (numba's
#: way) for any other value (``config``, ``plain_options``, ``quick_passes``): ``no`` or ``false`` turned them on.
TRADE_SWITCHES = ("FOURY_SIM_FULL_LINK", "FOURY_SIM_LINKONCE", "FOURY_SIM_SLOW_INLINE", "FOURY_SIM_WRAP_INDEX",
                  "FOURY_SIM_TYPER_COERCION", "FOURY_SIM_SLOW_PASSES")


def _check_switches() -> None:
    """Each of ``SWITCHES`` and ``TRADE_SWITCHES``, when set, is 1 or 0 (or empty: the default). Checked here, at the
    command's start-up: ``config`` is part of the engines' source (an edit there moves every engine's cache key)."""
    import os

    for names, default in ((SWITCHES, "1"), (TRADE_SWITCHES, "0")):
        for name in names:
            text = os.environ.get(name)
            if text is not None and text not in ("", "0", "1"):
                other = "0" if default == "1" else "1"
                raise InputError(f"must be {default} (the default) or {other}, not {text!r}", name)


def _where_what(line: str) -> str:
    """click's ``Invalid value for '--games': Input should be a valid integer, unable to parse string as an
    integer`` in the form of every other error: ``--games: takes a whole number, not '1e3'``."""
    import re

    m = re.match(r"Invalid value for '([^']+)': (.*)$", line)
    if m is None:
        return line
    where, what = m.groups()
    given = next((a.split("=", 1)[1] if "=" in a else None for a in sys.argv if a.startswith(where + "=")), None)
    if given is None and where in sys.argv[:-1]:
        given = sys.argv[sys.argv.index(where) + 1]
    kinds = (("valid integer", "a whole number"), ("valid number", "a number"), ("valid boolean", "true or false"))
    kind = next((w for k, w in kinds if k in what), None)
    if kind is None:
        return f"{where}: {what}"
    return f"{where}: takes {kind}" + (f", not {given!r}" if given is not None else "")


def main() -> None:
    """Entry point: bad input is one line on stderr and exit code 2, never a traceback; Ctrl-C is one line
    and exit code 130; no command prints the help (exit 0)."""
    argv = sys.argv[1:]
    try:
        _check_numba_threads()
        _check_switches()
        rv = app(standalone_mode=False)
    except InputError as e:
        typer.echo(f"foury-sim: error: {e}", err=True)
        _exit(EXIT_INPUT)
    except Interrupted as e:  # (a run's kept parts: the command that goes on from them, as the README says)
        typer.echo(f"foury-sim: interrupted: {e.message}" + (f": {shlex.join(['foury-sim', *argv])}"
                                                             if e.same_command else ""), err=True)
        _exit(EXIT_INTERRUPTED)
    except KeyboardInterrupt:
        typer.echo(f"foury-sim: interrupted: {interrupted_message(argv)}", err=True)
        _exit(EXIT_INTERRUPTED)
    except Exception as e:  # click's usage errors (typer vendors its own click): one line, exit 2
        name = type(e).__name__
        if name == "NoArgsIsHelpError":  # building the error rendered the help (rich prints it at once)
            msg = e.format_message() if hasattr(e, "format_message") else ""
            if msg.strip():  # plain click: the help is the message
                typer.echo(msg)
            _exit(EXIT_OK)
        if name == "Abort":  # end of input (EOF) at a prompt, or Ctrl-C seen by click itself
            typer.echo(f"foury-sim: interrupted: {interrupted_message(argv)}", err=True)
            _exit(EXIT_INTERRUPTED)
        if hasattr(e, "format_message") and hasattr(e, "exit_code"):
            msg = e.format_message().strip().splitlines()
            typer.echo(f"foury-sim: error: {_where_what(msg[0]) if msg else name}", err=True)
            _exit(EXIT_INPUT)
        raise
    if rv == EXIT_INTERRUPTED:  # typer turns Ctrl-C into a returned 130 (standalone_mode=False)
        typer.echo(f"foury-sim: interrupted: {interrupted_message(argv)}", err=True)
        _exit(EXIT_INTERRUPTED)
    if isinstance(rv, int) and rv:
        _exit(rv)


#: Young objects between two garbage collections in a command's process (Python's default is 700). A command's
#: start-up (numpy, pandas, numba and its registries, the game) leaves about 300,000 tracked objects, almost all
#: alive to the end (1 % of them cyclic garbage): at 700, the collector went over them again and again, 0.25 of
#: a short command's 2 CPU s (session 34). Above the start-up's count, the start-up collects nothing; later the
#: collector still runs, every half a million new objects.
GC_YOUNG = 500_000


def _terminated(signum: int, frame: Any) -> None:
    """SIGTERM (``kill``, a job scheduler or a container stopping the command) is taken as Ctrl-C: the same
    one line saying what was kept and how to go on, exit code 130, no temporary file left behind."""
    raise KeyboardInterrupt


def entry() -> None:
    """The process's entry point (the ``foury-sim`` script, ``python -m foury_sim``): ``main``, run with
    ``GC_YOUNG``; then the process ends without tearing the interpreter down (freeing every module's objects one by
    one and collecting them: about 0.4 s of a short command), once the exit handlers have run and both streams are
    flushed. Under a profiler or a debugger (``python -m cProfile -m foury_sim ...`` writes its figures after the
    command), with a thread left running (not a daemon), a code that is not a number, or streams that cannot be
    flushed (a closed pipe), the process exits as Python does. In-process callers (the tests) call ``main``. numpy's
    submodules that a command never uses are loaded only if used (``lazy.defer_unused``)."""
    import gc
    import signal

    from .lazy import defer_unused

    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
    defer_unused()
    signal.signal(signal.SIGTERM, _terminated)  # (a job scheduler's stop, `kill`: as Ctrl-C)
    try:
        main()
        code = EXIT_OK
    except SystemExit as e:
        if not isinstance(e.code, int | None):
            raise
        code = e.code or EXIT_OK
    import atexit
    import os
    import threading

    if sys.getprofile() is not None or sys.gettrace() is not None:  # a profiler (cProfile) or debugger writes last
        sys.exit(code)
    if any(t.is_alive() and not t.daemon and t is not threading.main_thread() for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        for f in (sys.stdout, sys.stderr):
            f.flush()
    except (OSError, ValueError):  # a closed pipe or stream: Python's own exit reports it as it always did
        sys.exit(code)
    os._exit(code)


if __name__ == "__main__":
    entry()
