"""Balance regression: save the per-game results of a named set of runs, then check a later engine (or a
rules edit) against them on the same dice.

A baseline spec (TOML, ``experiments/baselines/NAME.toml``) names runs: each a game, its settings (the
``KEY=VALUE`` of ``compare``/``sweep``: ``hero``, ``policy``, ``param.NAME``, ruleset keys, ``map``,
``rules``), a number of games, a seed, the metrics to watch and their tolerances. ``save`` plays them and
stores, per run, the summary and the per-game values of the watched metrics (``games.parquet``) with the
provenance (package version, git commit, code version of each game, hashes of the files read) in
``results/baselines/NAME/``. ``check`` plays the same game indices of the same seed again (game i on
stream (seed, i), so the same dice) and compares metric by metric with paired tests; see
``docs/balance-check.md`` for the rule that makes it fail.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import platform
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__, stats
from .errors import InputError, policy_given_at
from .files import atomic_write, to_jsonable
from .lazy import pd
from .outputs import MEAN, RATE
from .provenance import replay_command
from .registry import DEFAULT_GAME, GameSpec, get_game
from .rulesfile import locate_key
from .runner import Progress, numba_threads, play_games, summarize
from .study import (
    MAX_GAMES,
    CellRunner,
    FolderLock,
    _flatten,
    _seed,
    _where,
    _where_value,
    check_name,
    code_version,
    git_commit,
    input_files,
    parse_settings,
    read_experiment_text,
)

#: where shipped specs and stored baselines live (inside the repository's fixed top-level folders)
SPECS = Path("experiments") / "baselines"
BASELINES = Path("results") / "baselines"
SPEC_KEYS = {"name", "title", "description", "game", "seed", "games", "conf", "metrics", "tolerance", "runs"}
RUN_KEYS = {"game", "seed", "games", "metrics", "tolerance", "settings", "description"}
MAX_RUNS = 500
#: the tolerance of a metric the spec gives none for: any move that chance does not explain fails
DEFAULT_TOLERANCE = 0.0
FORMAT = 1  #: version of the stored layout (baseline.json ``format``)


@dataclass
class Run:
    """One run of a baseline: a game under settings, ``games`` games from ``seed``, and what to watch."""

    name: str
    game: str
    seed: int
    games: int
    settings: dict[str, Any]
    metrics: list[str]
    tolerance: dict[str, float]
    where: str = ""
    #: the spec names no metrics for this run: ``metrics`` are the default (win and the MEAN columns the run has)
    default: bool = False
    #: ``file:line`` of the setting that gives the run's policy (``policy = ...``, or a game's ``dm = ...``): where a
    #: user policy's fault while playing is named (``where`` when the settings give none)
    policy_where: str = ""


@dataclass
class Spec:
    name: str
    runs: list[Run]
    conf: float = 0.95
    title: str = ""
    description: str = ""
    text: str = ""
    path: str = ""


# ------------------------------------------------------------------------------------- the spec --
def metric_kind(spec: GameSpec, metric: str) -> str | None:
    """``"rate"`` (0/1 per game: paired McNemar/Newcombe) or ``"mean"`` (paired t) for a metric a game
    declares (``win``, its RATE and MEAN columns); None for anything else."""
    if metric == "win":
        return RATE
    col = spec.outputs.column(metric)
    if col is None or col.repeat is not None or col.summary not in (RATE, MEAN):
        return None
    return col.summary


def watchable(spec: GameSpec) -> list[str]:
    return ["win", *(c.name for c in spec.outputs.columns
                     if c.summary in (RATE, MEAN) and c.repeat is None and c.name != "win")]


def has_metric(spec: GameSpec, metric: str, ruleset: Any) -> bool:
    """Whether a run under ``ruleset`` has the column ``metric`` (a column declared ``only`` for a mode or a
    campaign, e.g. a 2-player mode's, exists only in the runs that play it)."""
    if metric == "win":
        return True
    col = spec.outputs.column(metric)
    return col is not None and bool(col.names(ruleset))


def default_metrics(spec: GameSpec, ruleset: Any = None) -> list[str]:
    """Win rate and the game's MEAN columns (its outputs declaration); with ``ruleset``, those a run under it
    has (not a mode's or a campaign's own columns when the run does not play it)."""
    return ["win", *(m for m in spec.outputs.mean_columns if ruleset is None or has_metric(spec, m, ruleset))]


def resolve_spec_path(arg: str | Path) -> Path:
    """A spec file, or the name of a shipped one (``experiments/baselines/NAME.toml``)."""
    p = Path(arg)
    if p.is_file() or p.suffix == ".toml" or p.is_dir():
        return p
    q = SPECS / f"{arg}.toml"
    return q if q.is_file() else p


def _metrics(value: Any, spec: GameSpec, where: str) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(m, str) for m in value):
        raise InputError("metrics must be a non-empty list of column names (e.g. [\"win\", \"score\"])", where)
    for m in value:
        if metric_kind(spec, m) is None:
            raise InputError(f"{m!r} is not a metric of {spec.name} (rates and means: "
                             f"{', '.join(watchable(spec))})", where)
    if len(set(value)) != len(value):
        raise InputError("metrics lists a column twice", where)
    return list(value)


def _tolerances(value: Any, where: str) -> dict[str, float]:
    if not isinstance(value, dict):
        raise InputError("tolerance must be a table of metric = absolute tolerance (e.g. { win = 0.01 })", where)
    out = {}
    for k, v in value.items():
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
            raise InputError(f"tolerance of {k!r} must be a finite number >= 0 (absolute: 0.01 is one "
                             f"percentage point of a rate), not {v!r}", where)
        out[k] = float(v)
    return out


def _games(v: Any, where: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not 2 <= v <= MAX_GAMES:
        raise InputError(f"games must be a whole number between 2 and {MAX_GAMES:,} (per run)", where)
    return v


def load_spec(path: str | Path) -> Spec:
    """Parse and validate a baseline spec completely (every run's ruleset, hero and policy are built),
    before anything is simulated. Errors name ``file:line``."""
    p = resolve_spec_path(path)
    if p.is_dir():
        raise InputError("is a folder, not a baseline spec (TOML)", str(p))
    if not p.is_file():
        from .inputs import not_a_file

        raise InputError(f"baseline spec {str(path)!r} {not_a_file(p)} (a TOML file, or the name of one in "
                         f"{SPECS})", "SPEC")
    data, text = read_experiment_text(p)
    ps = str(p)
    unknown = sorted(set(data) - SPEC_KEYS)
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(SPEC_KEYS))})",
                         _where(ps, text, unknown[0]))
    name = check_name(data.get("name", p.stem), _where_value(ps, text, "name") if "name" in data else ps)
    for k in ("title", "description"):
        if not isinstance(data.get(k, ""), str):
            raise InputError(f"{k} must be a text", _where_value(ps, text, k))
    conf = data.get("conf", 0.95)
    if not isinstance(conf, (int, float)) or isinstance(conf, bool) or not 0.5 <= conf < 1.0:
        raise InputError("conf must be a confidence level between 0.5 and 1 (e.g. 0.95); 1 - conf is the "
                         "family-wise error rate of the check", _where_value(ps, text, "conf"))
    d_game = data.get("game", DEFAULT_GAME)
    d_seed = _seed(data.get("seed", 1), _where_value(ps, text, "seed"))
    d_games = _games(data.get("games", 2000), _where_value(ps, text, "games"))
    d_tol = _tolerances(data.get("tolerance", {}), _where(ps, text, "tolerance"))
    runs_t = data.get("runs")
    if not isinstance(runs_t, dict) or not runs_t:
        raise InputError("a baseline needs runs: one [runs.NAME] table per run (with settings = { hero = ... })",
                         _where(ps, text, "runs") if "runs" in data else ps)
    if len(runs_t) > MAX_RUNS:
        raise InputError(f"{len(runs_t)} runs, more than the limit of {MAX_RUNS}", _where(ps, text, "runs"))
    runners: dict[str, CellRunner] = {}
    runs = []
    for rname, rt in runs_t.items():
        key = f"runs.{rname}"
        where = _where(ps, text, key)
        check_name(rname, where)
        if not isinstance(rt, dict):
            raise InputError(f"[runs.{rname}] must be a table", where)
        bad = sorted(set(rt) - RUN_KEYS)
        if bad:
            raise InputError(f"unknown run key {bad[0]!r} (known: {', '.join(sorted(RUN_KEYS))}; settings go in "
                             f"settings = {{ ... }})", _where(ps, text, f"{key}.{bad[0]}"))
        g_name = rt.get("game", d_game)
        if not isinstance(g_name, str):
            raise InputError(f"game must be a game's name (a text), not {g_name!r}",
                             _where(ps, text, f"{key}.game" if "game" in rt else "game"))
        try:
            spec = get_game(g_name)
        except InputError as e:
            raise InputError(e.message, _where(ps, text, f"{key}.game" if "game" in rt else "game")) from None
        seed = _seed(rt["seed"], _where_value(ps, text, f"{key}.seed")) if "seed" in rt else d_seed
        games = _games(rt["games"], _where_value(ps, text, f"{key}.games")) if "games" in rt else d_games
        m_where = _where(ps, text, f"{key}.metrics") if "metrics" in rt else _where(ps, text, "metrics")
        if "metrics" in rt:
            metrics: list[str] | None = _metrics(rt["metrics"], spec, m_where)
        elif "metrics" in data:
            metrics = _metrics(data["metrics"], spec, m_where)
        else:
            metrics = None
        tol_where = _where(ps, text, f"{key}.tolerance")
        tol = d_tol | _tolerances(rt.get("tolerance", {}), tol_where)
        for m in tol:
            w = tol_where if m in rt.get("tolerance", {}) else _where(ps, text, f"tolerance.{m}")
            kind = metric_kind(spec, m)
            if kind is None:
                raise InputError(f"tolerance for {m!r}, which is not a metric of {spec.name} (rates and means: "
                                 f"{', '.join(watchable(spec))})", w)
            if kind == RATE and tol[m] >= 1:  # (a rate moves by less than 1: such a metric could never fail)
                raise InputError(f"tolerance of {m!r}, a rate, must be below 1 (absolute: 0.01 is one percentage "
                                 f"point), not {tol[m]:g}", w)
        raw = rt.get("settings", {})
        s_where = _where(ps, text, f"{key}.settings")
        if isinstance(raw, list) and all(isinstance(x, str) for x in raw):
            settings = parse_settings(raw, s_where)
        elif isinstance(raw, dict):
            settings = _flatten(raw)
        else:
            raise InputError("settings must be a table (settings = { hero = \"kael\" }) or a list of "
                             "\"KEY=VALUE\" texts", s_where)
        for k, v in settings.items():
            if isinstance(v, dict):
                raise InputError(f"setting {k!r} has a table value", s_where)
        runner = runners.setdefault(spec.name, CellRunner(spec))
        rs, _, _ = runner.resolve(settings, _where(ps, text, f"{key}.settings") if "settings" in rt else where)
        default = metrics is None
        if metrics is None:
            metrics = default_metrics(spec, rs)
        for m in metrics:
            if not has_metric(spec, m, rs):
                raise InputError(f"run {rname!r} has no metric {m!r}: its settings do not play the mode or campaign "
                                 f"of {spec.name} that column belongs to (its metrics: "
                                 f"{', '.join(default_metrics(spec, rs))}; name metrics per run in [runs.{rname}])",
                                 m_where)
        runs.append(Run(rname, spec.name, seed, games, settings, metrics,
                        {m: tol.get(m, DEFAULT_TOLERANCE) for m in metrics}, where, default,
                        _policy_where(ps, text, key, settings, isinstance(raw, list),
                                      s_where if "settings" in rt else where)))
    return Spec(name, runs, float(conf), data.get("title", name), data.get("description", ""), text, ps)


def _policy_where(path: str, text: str, key: str, settings: dict[str, Any], listed: bool, fallback: str) -> str:
    """``file:line`` of the setting of run ``key`` that gives its policy: ``policy``, or a second side's (``dm``),
    the one naming a policy file first, in a settings table (inline or ``[runs.NAME.settings]``) or, ``listed``, the
    line of its item in a ``settings = ["policy=...", ...]`` list; ``fallback`` (the settings' line) when none is
    found."""
    given = sorted((k for k in ("policy", "dm") if k in settings), key=lambda k: ".py" not in str(settings[k]))
    for k in given:
        line = None
        if not listed:
            line = locate_key(text, f"{key}.settings.{k}")
        elif fallback.startswith(f"{path}:"):  # (the list's own line, then its items' lines until the next table)
            first = int(fallback[len(path) + 1:].split(":")[0])
            for i, raw in enumerate(text.splitlines()[first - 1:], start=first):
                if i > first and raw.lstrip().startswith("["):
                    break
                if re.search(rf"[\"']\s*{k}\s*=", raw):
                    line = i
                    break
        if line is not None:
            return f"{path}:{line}"
    return fallback


# ------------------------------------------------------------------------------------ playing --
def _play(run: Run, runners: dict[str, CellRunner], bar: Progress | None) -> tuple[pd.DataFrame, Any]:
    spec = get_game(run.game)
    runner = runners.setdefault(run.game, CellRunner(spec))
    rs, hero, pol = runner.resolve(run.settings, run.where)
    with policy_given_at(run.policy_where or run.where):  # (a user policy's fault: at its line, not at --policy)
        df, _ = play_games(spec, rs, hero, pol, run.seed, 0, run.games, bar)
    return df.sort_values("game", kind="stable").reset_index(drop=True), rs


def _values(spec: GameSpec, df: pd.DataFrame, metric: str) -> np.ndarray:
    x = df[metric].to_numpy()
    return (x != 0).astype(np.int8) if metric_kind(spec, metric) == RATE else x.astype(float)


def _ruleset(run: Run) -> Any:
    """The ruleset a run plays (a map its rules or campaign file names is one of its input files)."""
    return CellRunner(get_game(run.game)).resolve(run.settings, run.where)[0]


def _provenance(runs: list[Run]) -> dict[str, Any]:
    import numba

    return {"package_version": __version__, "git_commit": git_commit(),
            "code_version": {g: code_version(g) for g in dict.fromkeys(r.game for r in runs)},
            "input_files": {k: v for r in runs for k, v in input_files([r.settings], r.game, [_ruleset(r)]).items()},
            "python": platform.python_version(), "numba": numba.__version__}


def save(spec: Spec | str | Path, out_root: str | Path = BASELINES, *, progress: bool | None = None,
         threads: int | None = None) -> Path:
    """Play every run of the spec and store the baseline in ``out_root/NAME/`` (replacing an older one):
    ``games.parquet`` (per run and game index, the watched metrics) and ``baseline.json`` (the spec, each
    run's summary, provenance, and the sha256 of ``games.parquet``, written last: a baseline whose two
    files do not match is refused as damaged)."""
    if not isinstance(spec, Spec):
        spec = load_spec(spec)
    root = Path(out_root)
    if root.exists() and not root.is_dir():
        raise InputError(f"{str(root)!r} is a file, not a folder", "--out")
    out = root / spec.name
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create the baseline folder: {e.strerror}", str(out)) from None
    total = sum(r.games for r in spec.runs)
    bar = Progress(total, label="games (all runs)", enabled=progress) if progress is not False else None
    runners: dict[str, CellRunner] = {}
    frames, records = [], []
    t0 = time.time()
    with numba_threads(threads):
        for run in spec.runs:
            df, rs = _play(run, runners, bar)
            g = get_game(run.game)
            cols = {"run": run.name, "game": df["game"].to_numpy(np.int64)}
            cols |= {m: _values(g, df, m).astype(float) for m in run.metrics}  # (its settings': ``load_spec``)
            frames.append(pd.DataFrame(cols))
            records.append({"name": run.name, "game": run.game, "seed": run.seed, "games": run.games,
                            "settings": run.settings, "metrics": run.metrics, "tolerance": run.tolerance,
                            "summary": summarize(g, df, rs, spec.conf)})
    if bar is not None:
        bar.close()
    table = pd.concat(frames, ignore_index=True)
    buf = io.BytesIO()
    table.to_parquet(buf, index=False)
    data = buf.getvalue()
    manifest = {"format": FORMAT, "kind": "baseline", "name": spec.name, "title": spec.title,
                "description": spec.description, "conf": spec.conf, "spec_path": spec.path, "spec_text": spec.text,
                "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "elapsed_s": round(time.time() - t0, 3),
                "games_sha256": hashlib.sha256(data).hexdigest(), "runs": records, **_provenance(spec.runs)}
    with FolderLock(out):
        atomic_write(out / "games.parquet", data)
        atomic_write(out / "baseline.json", json.dumps(to_jsonable(manifest), indent=2) + "\n")
    return out


# ----------------------------------------------------------------------------------- checking --
@dataclass
class Baseline:
    folder: Path
    manifest: dict[str, Any]
    table: pd.DataFrame

    def run(self, name: str) -> dict[str, Any] | None:
        return next((r for r in self.manifest["runs"] if r.get("name") == name), None)


def load_baseline(folder: str | Path) -> Baseline:
    """A stored baseline, checked: both files present, readable, and belonging together."""
    folder = Path(folder)
    mpath, gpath = folder / "baseline.json", folder / "games.parquet"
    if not mpath.is_file():
        raise InputError(f"no baseline {folder.name!r} in {str(folder.parent)!r} (save it first: foury-sim "
                         f"baseline save SPEC.toml --out {folder.parent})", str(folder))
    redo = f"save it again (foury-sim baseline save SPEC.toml --out {folder.parent})"
    try:
        m = json.loads(mpath.read_text(encoding="utf-8"))
        raw = gpath.read_bytes()
    except FileNotFoundError:
        raise InputError(f"the baseline is damaged (games.parquet is missing); {redo}", str(folder)) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"the baseline is damaged ({type(e).__name__}); {redo}", str(mpath)) from None
    if not isinstance(m, dict) or m.get("kind") != "baseline" or not isinstance(m.get("runs"), list):
        raise InputError(f"not a baseline (no runs); {redo}", str(mpath))
    if m.get("format") != FORMAT:
        raise InputError(f"a baseline of another format ({m.get('format')!r}, this version reads {FORMAT}); {redo}",
                         str(mpath))
    if hashlib.sha256(raw).hexdigest() != m.get("games_sha256"):
        raise InputError(f"the baseline is damaged (games.parquet does not match baseline.json); {redo}",
                         str(gpath))
    return Baseline(folder, m, pd.read_parquet(io.BytesIO(raw)))


def decide(rows: pd.DataFrame, conf: float = 0.95) -> pd.DataFrame:
    """Verdicts for compared metrics (one row each: ``diff``, ``lo``, ``hi``, ``p_value``, ``tolerance``,
    ``identical``, ``kind``, and ``p_beyond``: :func:`stats.paired_beyond_p`, the p-value of "moved by at most
    the tolerance"; optional where every tolerance is 0, where it is ``p_value``). Every metric of every run
    is one family: ``p_adjusted`` is Holm's adjustment of ``p_value`` over ALL the rows, ``p_beyond_adjusted``
    Holm's adjustment of ``p_beyond``. A row is ``significant`` when ``p_adjusted < 1 - conf`` and its interval
    excludes 0. Verdict (``alpha = 1 - conf``):

    * ``identical``: every game gave the same value (same engine, same dice);
    * ``MOVED`` (the check fails): significant AND ``p_beyond_adjusted < alpha``: the interval at the level of
      its Holm step (``1 - alpha / (m - i + 1)`` for the i-th smallest ``p_beyond`` of m) lies wholly beyond the
      tolerance, so the chance that a check fails although every metric moved by at most its tolerance is at
      most alpha. With tolerance 0, ``p_beyond`` is ``p_value`` and the rule is "significant";
    * ``shifted``: significant, ``|diff| <= tolerance`` (a real change the spec accepts);
    * ``unresolved``: ``|diff| > tolerance`` but not MOVED: chance, or a move within the tolerance, explains
      the difference at this number of games (significant or not);
    * ``chance``: the games differ, not significant, ``|diff| <= tolerance``.
    """
    out = rows.copy()
    alpha = 1.0 - conf
    tol = out["tolerance"].to_numpy(float)
    if "p_beyond" not in out:
        if (tol[~out["identical"].to_numpy(bool)] > 0).any():
            raise ValueError("rows with a tolerance need p_beyond (stats.paired_beyond_p)")
        out["p_beyond"] = out["p_value"]
    out["p_adjusted"] = stats.adjust_pvalues(out["p_value"].to_numpy(float), "holm")
    out["p_beyond_adjusted"] = stats.adjust_pvalues(out["p_beyond"].to_numpy(float), "holm")
    excl = (out["lo"] > 0.0) | (out["hi"] < 0.0)
    out["significant"] = (out["p_adjusted"] < alpha) & excl & ~out["identical"]
    moved = out["significant"] & (out["p_beyond_adjusted"] < alpha)
    beyond = out["diff"].abs() > out["tolerance"]
    verdict = np.where(out["identical"], "identical",
                       np.where(moved, "MOVED",
                                np.where(beyond, "unresolved",
                                         np.where(out["significant"], "shifted", "chance"))))
    out["verdict"] = verdict
    return out


@dataclass
class CheckResult:
    name: str
    rows: pd.DataFrame
    conf: float
    notes: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    saved: str = ""
    folder: str = ""
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def moved(self) -> pd.DataFrame:
        return self.rows[self.rows["verdict"] == "MOVED"]

    @property
    def passed(self) -> bool:
        return self.moved.empty

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({"name": self.name, "passed": self.passed, "conf": self.conf, "baseline": self.folder,
                            "saved": self.saved, "metrics": len(self.rows), "moved": len(self.moved),
                            "rule": RULE, "notes": self.notes, "replay": self.hints, "provenance": self.provenance,
                            "rows": self.rows.drop(columns=["identical"]).to_dict(orient="records")})


RULE = ("fail when a metric moved significantly (Holm-adjusted paired p < 1 - conf over all metrics of all runs, "
        "interval excluding 0) AND beyond its tolerance (Holm-adjusted p of |diff| <= tolerance < 1 - conf: "
        "the interval at the level of its Holm step lies wholly beyond the tolerance; tolerance 0: the same test)")


def _spec_of(arg: str | Path, baselines: Path) -> tuple[Spec, Path]:
    """(spec, baseline folder): a spec file gives its name's folder; a NAME gives the folder and the spec
    stored in it (the spec as saved)."""
    p = Path(arg)
    if p.is_file() or p.suffix == ".toml" or p.is_dir():
        spec = load_spec(p)
        return spec, baselines / spec.name
    check_name(str(arg), "NAME")
    folder = baselines / str(arg)
    base = load_baseline(folder)
    text, path = base.manifest.get("spec_text"), base.manifest.get("spec_path") or f"{arg}.toml"
    if not isinstance(text, str):
        raise InputError("the baseline holds no spec; save it again", str(folder / "baseline.json"))
    import tempfile

    with tempfile.TemporaryDirectory() as d:  # the stored spec, read by the one spec reader
        tmp = Path(d) / Path(path).name
        tmp.write_text(text, encoding="utf-8")
        try:
            spec = load_spec(tmp)
        except InputError as e:
            raise InputError(f"the spec stored in the baseline no longer loads: {e.message}",
                             str(folder / "baseline.json")) from None
    spec.path = path
    return spec, folder


def check(arg: str | Path, baselines: str | Path = BASELINES, *, progress: bool | None = None,
          threads: int | None = None) -> CheckResult:
    """Re-run a baseline's runs on the same dice and compare every watched metric (see :func:`decide`)."""
    spec, folder = _spec_of(arg, Path(baselines))
    base = load_baseline(folder)
    where = str(folder / "baseline.json")
    redo = f"save the baseline again (foury-sim baseline save {spec.path} --out {folder.parent}) if that is meant"
    stored = []
    for run in spec.runs:
        b = base.run(run.name)
        if b is None:
            raise InputError(f"run {run.name!r} is not in the baseline; {redo}", where)
        if (b.get("game"), b.get("seed"), b.get("games")) != (run.game, run.seed, run.games):
            raise InputError(f"run {run.name!r}: game, seed or games differ from the baseline "
                             f"({b.get('game')}, seed {b.get('seed')}, {b.get('games')} games) so the dice are "
                             f"not the same; {redo}", where)
        missing = [m for m in run.metrics if m not in b.get("metrics", [])]
        if missing and not run.default:
            raise InputError(f"run {run.name!r}: metric {missing[0]!r} is not in the baseline; {redo}", where)
        stored.append(b)
    notes: list[str] = []
    ours = {r.name for r in spec.runs}
    extra = [r.get("name") for r in base.manifest["runs"] if r.get("name") not in ours]
    if extra:
        notes.append(f"not checked (in the baseline, not in the spec): {', '.join(map(str, extra))}")
    prov = _provenance(spec.runs)
    total = sum(r.games for r in spec.runs)
    bar = Progress(total, label="games (all runs)", enabled=progress) if progress is not False else None
    runners: dict[str, CellRunner] = {}
    rows, changed_games, first_change, resettled = [], {}, {}, set()
    with numba_threads(threads):
        for run, b in zip(spec.runs, stored):
            df, _ = _play(run, runners, bar)
            g = get_game(run.game)
            old = base.table[base.table["run"] == run.name].sort_values("game", kind="stable")
            if not np.array_equal(old["game"].to_numpy(np.int64), df["game"].to_numpy(np.int64)):
                raise InputError(f"run {run.name!r}: the stored games are not 0..{run.games - 1}; {redo}", where)
            diff_at = np.zeros(len(df), dtype=bool)
            now = run.metrics  # (those its settings have: ``load_spec``)
            # default metrics: those both sides have (a column only one side has is named, not compared)
            metrics = [m for m in now if m in b.get("metrics", [])] if run.default else now
            only_then = [m for m in b.get("metrics", []) if m not in metrics] if run.default else []
            only_now = [m for m in now if m not in metrics]
            if only_then or only_now:
                notes.append(f"run {run.name}: not compared (the default metrics of only one side): "
                             + "; ".join(x for x in (f"in the baseline only: {', '.join(only_then)}" if only_then
                                                     else "", f"now only: {', '.join(only_now)}" if only_now
                                                     else "") if x))
            for m in metrics:
                a = old[m].to_numpy(float)
                x = _values(g, df, m).astype(float)
                diff_at |= a != x
                if (a != x).any():
                    first_change[run.name, m] = int(np.flatnonzero(a != x)[0])
                rows.append(_compare(run, m, metric_kind(g, m), a, x, spec.conf))
            if diff_at.any():
                changed_games[run.name] = int(np.flatnonzero(diff_at)[0])
            if b.get("settings") != to_jsonable(run.settings):
                resettled.add(run.name)
                notes.append(f"run {run.name}: settings changed since the baseline "
                             f"({_show(b.get('settings'))} -> {_show(run.settings)})")
    if bar is not None:
        bar.close()
    res = decide(pd.DataFrame(rows), spec.conf)
    notes += _provenance_notes(base.manifest, prov, spec, res, {k: v for k, v in changed_games.items()
                                                                 if k not in resettled})
    provenance = {"baseline": {k: base.manifest.get(k) for k in prov}, "now": prov}
    hints = []
    for run in spec.runs:
        moved = res[(res["run"] == run.name) & (res["verdict"] == "MOVED")]
        if not moved.empty:  # a game whose first moved metric changed (the win when it moved)
            m = moved["metric"].iloc[0]
            i = first_change[run.name, m]
            hints.append(f"{run.name}: {m} of game {i} changed; replay it with: "
                         f"{replay_command(run.game, run.seed, i, run.settings)}")
    return CheckResult(spec.name, res, spec.conf, notes, hints, str(base.manifest.get("saved", "")), str(folder),
                       provenance)


def _show(s: Any) -> str:
    if not isinstance(s, dict) or not s:
        return "defaults"
    return ", ".join(f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in s.items())


def _compare(run: Run, metric: str, kind: str | None, a: np.ndarray, b: np.ndarray, conf: float) -> dict[str, Any]:
    if kind == RATE:
        d = stats.paired_rate_diff(a.astype(np.int8), b.astype(np.int8), conf)
        base, now, test = d["rate_a"], d["rate_b"], "exact McNemar"
    else:
        d = stats.paired_mean_diff(a, b, conf)
        base, now, test = d["mean_a"], d["mean_b"], "paired t"
    same = bool(np.array_equal(a, b))
    return {"run": run.name, "game": run.game, "metric": metric, "kind": kind, "baseline": base, "now": now,
            "diff": 0.0 if same else d["diff"], "lo": 0.0 if same else d["lo"], "hi": 0.0 if same else d["hi"],
            "p_value": 1.0 if same else d["p_value"], "test": test, "tolerance": run.tolerance[metric],
            "p_beyond": 1.0 if same else stats.paired_beyond_p(d, run.tolerance[metric]),
            "changed_games": int(np.count_nonzero(a != b)), "identical": same}


def _provenance_notes(saved: dict[str, Any], now: dict[str, Any], spec: Spec, res: pd.DataFrame,
                      changed: dict[str, int]) -> list[str]:
    notes = []
    moved_games = set(res.loc[res["verdict"] == "MOVED", "game"])
    for game, cv in now["code_version"].items():
        old = (saved.get("code_version") or {}).get(game)
        if old is not None and old != cv:
            ident = bool(res.loc[res["game"] == game, "identical"].all())
            tail = ("nothing moved: every game played the same" if ident else
                    "nothing moved beyond chance or tolerance" if game not in moved_games else
                    "and its metrics moved (above)")
            notes.append(f"code version of {game} changed since the baseline ({old} -> {cv}); {tail}")
        elif old == cv:
            same_runs = [r.name for r in spec.runs if r.game == game and r.name in changed]
            files_changed = any(p in (saved.get("input_files") or {}) and saved["input_files"][p] != h
                                for p, h in now["input_files"].items())
            if same_runs and not files_changed:
                notes.append(f"{game}: games differ although its code version is unchanged (runs "
                             f"{', '.join(same_runs)}): settings, rules files, numba or the "
                             "platform changed")
    old_files = saved.get("input_files") or {}
    for path, h in now["input_files"].items():
        if path in old_files and old_files[path] != h:
            notes.append(f"file {path} changed since the baseline")
    if saved.get("package_version") != now["package_version"]:  # (the git commit is in the JSON output)
        notes.append(f"package version: baseline {saved.get('package_version')}, now {now['package_version']}")
    return notes


# ---------------------------------------------------------------------------------- printing --
def _fmt(kind: str, x: float, signed: bool = False) -> str:
    if not math.isfinite(x):
        return "nan"
    if kind == RATE:
        return f"{100 * x:+.2f}%" if signed else f"{100 * x:.2f}%"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def format_check(r: CheckResult, every: bool = False) -> str:
    """The text ``foury-sim check`` prints: what moved (or that nothing did), then the notes."""
    n = len(r.rows)
    lvl = f"{100 * r.conf:g} %"
    moved = r.moved
    ident = int(r.rows["identical"].sum())
    n_unres = int((r.rows["verdict"] == "unresolved").sum())
    if not r.passed:
        head = f"check {r.name}: {len(moved)} of {n} metrics MOVED ({ident} identical game by game"
    elif n_unres:  # an unresolved row differs by more than its tolerance: "within tolerance" would be untrue
        head = (f"check {r.name}: none of {n} metrics moved beyond chance or tolerance ({ident} identical game "
                f"by game, {n_unres} unresolved")
    else:
        head = f"check {r.name}: all {n} metrics within tolerance ({ident} identical game by game"
    lines = [head + f"; baseline {r.folder}, saved {r.saved})",
             f"rule: {RULE}, conf {r.conf:g}", ""]
    show = r.rows if every else (moved if not r.passed else r.rows[~r.rows["identical"]])
    if not show.empty:
        w = max(12, *(len(str(x)) for x in show["run"]))
        lines.append(f"{'run':{w}s} {'metric':18s} {'baseline':>9s} {'now':>9s} {'diff':>9s}  "
                     f"{lvl + ' interval':>22s} {'p adj':>8s} {'tolerance':>9s}  verdict")
        for _, x in show.iterrows():
            k = x["kind"]
            iv = f"[{_fmt(k, x['lo'], True)}, {_fmt(k, x['hi'], True)}]"
            lines.append(f"{x['run']:{w}s} {x['metric']:18s} {_fmt(k, x['baseline']):>9s} {_fmt(k, x['now']):>9s} "
                         f"{_fmt(k, x['diff'], True):>9s}  {iv:>22s} {x['p_adjusted']:8.2g} "
                         f"{_fmt(k, x['tolerance']):>9s}  {x['verdict']}")
        lines.append("")
    if r.passed or not every:
        runs = r.rows.groupby("run", sort=False)
        if r.passed:
            w = max(12, *(len(str(x)) for x in r.rows["run"]))
            lines.append(f"{'run':{w}s} {'game':8s} {'metrics':>7s} {'identical':>9s} {'win then':>9s} "
                         f"{'win now':>9s}  verdicts")
            for name, g in runs:
                win = g[g["metric"] == "win"]
                then = _fmt(RATE, win["baseline"].iloc[0]) if len(win) else "-"
                now = _fmt(RATE, win["now"].iloc[0]) if len(win) else "-"
                counts = g["verdict"].value_counts()
                verdicts = ", ".join(f"{v} {c}" for v, c in counts.items())
                lines.append(f"{name:{w}s} {g['game'].iloc[0]:8s} {len(g):7d} {int(g['identical'].sum()):9d} "
                             f"{then:>9s} {now:>9s}  {verdicts}")
        else:
            rest = r.rows[r.rows["verdict"] != "MOVED"]
            lines.append(f"the other {len(rest)} metrics: " + ", ".join(
                f"{v} {c}" for v, c in rest["verdict"].value_counts().items()) + " (--all lists every metric)")
        lines.append("")
    unres = r.rows[r.rows["verdict"] == "unresolved"]
    if not unres.empty:
        many = len(unres) != 1
        lines.append(f"unresolved: {len(unres)} metric{'s' if many else ''} differ{'' if many else 's'} by more than "
                     f"{'their' if many else 'its'} tolerance but chance, or a move "
                     "within the tolerance, explains it at this number of games (more games in the spec would tell)")
    lines += [f"note: {x}" for x in r.notes] + r.hints
    return "\n".join(lines).rstrip()


def format_saved(folder: Path) -> str:
    base = load_baseline(folder)
    m = base.manifest
    lines = [f"baseline {m['name']}: {len(m['runs'])} runs saved -> {folder}"]
    w = max(12, *(len(r["name"]) for r in m["runs"]))
    for r in m["runs"]:
        s = r["summary"]["win"]
        lines.append(f"  {r['name']:{w}s} {r['game']:8s} {r['games']:>8,} games, seed {r['seed']}: win "
                     f"{100 * s['rate']:.2f}% [{100 * s['lo']:.2f}, {100 * s['hi']:.2f}]; watching "
                     f"{', '.join(r['metrics'])}")
    cv = ", ".join(f"{g} {v}" for g, v in m["code_version"].items())
    lines.append(f"code version: {cv}; commit {str(m.get('git_commit') or '?')[:12]}; package {m['package_version']}")
    return "\n".join(lines)
