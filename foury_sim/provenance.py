"""How an output was made: the settings behind it, and commands that reproduce it.

One place turns a variant's settings (the ``KEY=VALUE`` of ``compare``/``sweep``: ``hero``, ``policy``,
``map``, ``rules``, ``param.NAME``, ruleset keys) into command-line arguments, so every "replay one with"
hint, header and JSON record spells them the same way and can be pasted.

* ``settings_args`` / ``command`` / ``replay_command``: settings -> arguments -> a pasteable command;
* ``cli_settings``: a verb's options (``--hero``, ``--set``, ``--param`` ...) -> the same settings dict;
* ``describe``: settings -> one readable line (``hero=kael, round.monster_bonus=0,1,3,4``; ``defaults``);
* ``run_record`` / ``header_lines``: what ``foury-sim run`` (and ``runner.run`` for a notebook) records
  about itself: overrides with file digests, policy and parameters, seed, games, level, version, commit
  and the command that reproduces it, and the 2-3 lines the text summary opens with;
* ``figure_note``: the line at the foot of a study's figure (sweep, tune, compare, robust, ladder): game, variants
  or fixed settings, policy, seed, games, version and commit.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

from . import __version__

#: settings that are options of their own (everything else is a ``--set`` ruleset override)
OPTION_KEYS = ("hero", "policy", "map", "rules")


def _parse(text: str) -> Any:
    from .rulesfile import _parse_value

    return _parse_value(text)


def _toml(v: Any) -> str:
    """``v`` as a TOML value (strings quoted), the form ``--set`` always reads back exactly."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml(x)}" for k, x in v.items()) + " }"
    return str(v)


def value_text(v: Any) -> str:
    """A setting's value as typed on the command line, such that ``--set KEY=TEXT`` (and ``compare``'s
    ``KEY=TEXT``) reads back the same value: ``[0, 1, 3]`` -> ``0,1,3``, ``True`` -> ``true``, a word as is,
    anything else in TOML form (``"true"`` for the word true, ``{ hearts = 6 }``)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        if v and all(isinstance(x, (int, float, str)) and not isinstance(x, bool) for x in v):
            text = ",".join(str(x) for x in v)
            if _parse(text) == list(v):
                return text
        return _toml(v)
    if isinstance(v, str):
        return v if _parse(v) == v else _toml(v)
    return _toml(v) if isinstance(v, dict) else str(v)


_show = value_text  # the earlier private name


def game_option_keys(game: str | None) -> dict[str, str]:
    """The settings that are the game's own ``run`` options (``GameSpec.options``: ``dm`` -> ``--dm``), none for
    no game or an unknown one."""
    if not game:
        return {}
    from .errors import InputError
    from .registry import get_game

    try:
        spec = get_game(game)
    except InputError:
        return {}
    return {o.name: o.flag for o in spec.options if "run" in o.commands}


def number_text(v: float) -> str:
    """A number for a command line that reads back as the same float: ``0.9``, ``2`` (``:g``), and the shortest exact
    form where ``:g``'s six digits would round it (``0.9512345``: ``:g`` gave 0.951234, another level)."""
    t = f"{v:g}"
    return t if float(t) == float(v) else repr(float(v))


def option_text(v: Any) -> str:
    """A game option's value as its flag reads it (``GameOption.parse``: the text as is, no TOML): ``--dm-param
    walk=1,x=2`` (``value_text`` quoted it as a TOML string, which the flag then read with its quotes)."""
    return number_text(v) if isinstance(v, float) else str(v)


def settings_args(settings: dict[str, Any], game: str | None = None) -> list[str]:
    """``{"hero": "kael", "param.foe_avoid": 2, "round.monster_bonus": [0, 1]}`` ->
    ``["--hero", "kael", "--param", "foe_avoid=2", "--set", "round.monster_bonus=0,1"]``; with ``game``, its own
    ``run`` options as their flags (``{"dm": "ruthless"}`` -> ``["--dm", "ruthless"]``)."""
    args: list[str] = []
    own = game_option_keys(game)
    for k in OPTION_KEYS:
        if settings.get(k) not in (None, ""):
            args += [f"--{k}", str(settings[k])]
    params = [f"{k[6:]}={value_text(v)}" for k, v in settings.items() if k.startswith("param.")]
    if params:
        args += ["--param", ",".join(params)]
    for k, v in settings.items():
        if k in own:
            args += [own[k], str(v)]
    for k, v in settings.items():
        if k not in OPTION_KEYS and not k.startswith("param.") and k not in own:
            args += ["--set", f"{k}={value_text(v)}"]
    return args


def setting_words(settings: dict[str, Any], game: str | None = None) -> list[str]:
    """Settings as ``KEY=VALUE`` words (``compare --a``/``--b``/``--fixed`` take them back); with ``game``, its
    own ``run`` options (``dm=ruthless``) as given."""
    own = game_option_keys(game)
    return [f"{k}={v if k in OPTION_KEYS or k in own else value_text(v)}" for k, v in settings.items()]


def describe(settings: dict[str, Any] | None) -> str:
    """One readable line: ``hero=kael, policy=cautious, round.monster_bonus=0,1,3,4``, or ``defaults`` when
    there are none (for headers: a replay's, the odds table's, a comparison's)."""
    return ", ".join(setting_words(settings or {})) or "defaults"


def cli_settings(*, hero: str | None = None, policy: str | None = None, params: str | None = None,
                 rules: str | Path | None = None, sets: list[str] | dict[str, Any] | None = None,
                 map: str | None = None) -> dict[str, Any]:
    """A verb's options as a settings dict (the keys ``compare`` takes): ``--param a=1,b=2`` -> ``param.a``,
    ``param.b``; ``--set KEY=VALUE`` -> ``KEY`` with its value as ``--set`` reads it. Options not given are
    left out, so ``describe(cli_settings(...))`` names only what was asked for."""
    out: dict[str, Any] = {}
    for k, v in (("hero", hero), ("policy", policy), ("map", map), ("rules", rules)):
        if v not in (None, ""):
            out[k] = str(v)
    for item in (params or "").split(","):
        if "=" in item:
            k, v = (s.strip() for s in item.split("=", 1))
            out[f"param.{k}"] = _parse(v)
    items = sets.items() if isinstance(sets, dict) else (
        (s.split("=", 1)[0].strip(), _parse(s.split("=", 1)[1].strip())) for s in sets or [] if "=" in s)
    for k, v in items:
        out[k] = v
    return out


def command(verb: str, game: str, args: list[str]) -> str:
    """A shell command that can be pasted: ``foury-sim VERB GAME ARGS`` with every argument quoted (``GAME``
    may be another first argument: an experiment file of ``sweep``/``robust``)."""
    return " ".join(["foury-sim", verb] + [shlex.quote(str(a)) for a in [game, *args]])


def replay_command(game: str, seed: int, index: int, settings: dict[str, Any] | None = None) -> str:
    """The command that replays game ``index`` of the run with master ``seed`` under ``settings``."""
    return command("replay", game, ["--seed", str(seed), "--game", str(index)] + settings_args(settings or {}, game))


def version() -> str:
    return __version__


@functools.cache
def git_commit(here: Path | None = None) -> str | None:
    """The commit of the checkout the package runs from (with ``+dirty`` when a tracked file that makes numbers
    differs from it: the package's code and data, or the checkout's ``experiments/`` scripts and study files; not
    ``results/``, whose folders a study writes, nor docs), or None outside a git checkout."""
    here = here or Path(__file__).resolve().parent  # (``here``: another package folder, for the tests)
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        commit = head.stdout.strip() if head.returncode == 0 else ""
        if not commit:
            return None
        # (--no-optional-locks: a status refreshes the checkout's index in passing, under its index.lock; a run under a
        # file-size limit, or this call's timeout, killed git mid-write and left that lock, and the user's git stopped)
        st = subprocess.run(["git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=no", "--", ".",
                             ":/experiments"], cwd=here, capture_output=True, text=True, timeout=5)
        return commit + ("+dirty" if st.returncode == 0 and st.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def file_record(path: str | Path | None) -> dict[str, str] | None:
    """``{"path": as given, "sha256": ...}`` of a file a run read (``--rules``, a map file, a user policy's
    ``FILE.py``); just the name when it is no file (a shipped map's name); None when not given."""
    if path in (None, ""):
        return None
    text = str(path)
    p = Path(text.split(".py:", 1)[0] + ".py" if ".py:" in text else text)
    try:
        if p.is_file():
            return {"path": text, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
    except OSError:
        pass
    return {"name": text}


def resolve_sets(sets: list[str] | None, data: dict[str, Any] | None) -> dict[str, Any]:
    """``--set`` items as ``{dotted key: value}``: a short key (``monster_bonus``) becomes the one dotted path
    of ``data`` (the ruleset as read) that ends in it, so a record names the value that was changed."""
    from .rulesfile import find_key

    out: dict[str, Any] = {}
    for s in sets or []:
        if "=" not in s:
            continue
        k, v = (t.strip() for t in s.split("=", 1))
        base, bracket = (k.split("[", 1)[0], "[" + k.split("[", 1)[1]) if "[" in k else (k, "")
        if "." not in base and isinstance(data, dict):
            hits = find_key(data, base)
            k = hits[0] + bracket if len(hits) == 1 else k
        out[k] = _parse(v)
    return out


def _overrides(sets: dict[str, Any] | None, rules: str | None, map: str | None, pars: dict[str, Any],
               opts: dict[str, Any], read: dict[str, str] | None = None) -> dict[str, Any]:
    """A record's ``overrides``: ``--set`` by dotted key, ``--rules`` and a map file with their sha256, ``--param``
    as given, the game's options given (with the sha256 of those that name a file: ``option_files``), and the files
    the ruleset read that a ruleset key named (``read``: ``GameSpec.files_read``; a map a rules or campaign file
    names), each with its sha256 (``read_files``: key -> {path, sha256})."""
    overrides: dict[str, Any] = {}
    if sets:
        overrides["set"] = {k: value_text(v) for k, v in sets.items()}
    if rules:
        overrides["rules"] = file_record(rules)
    if map:
        overrides["map"] = file_record(map)
    if pars:
        overrides["param"] = {k[6:]: value_text(v) for k, v in pars.items()}
    if opts:
        overrides["options"] = opts
        files = {k: f for k, v in opts.items() if isinstance(v, str) and "sha256" in (f := file_record(v) or {})}
        if files:  # an option naming a file (a designer's campaign file): its digest, as for --rules
            overrides["option_files"] = files
    read_files = read_files_record(read, [overrides.get("map"), *overrides.get("option_files", {}).values()])
    if read_files:  # a map a rules or campaign file names: its digest, as a --map file's
        overrides["read_files"] = read_files
    return overrides


def read_files_record(read: dict[str, str] | None, given: list[Any]) -> dict[str, dict[str, Any]]:
    """The files a ruleset read that no option names (``GameSpec.files_read``: a map a rules or campaign file names),
    key -> ``file_record``, but for those among the records ``given`` (``--map``'s, an option's file): said once."""
    named = {Path(f["path"]).resolve() for f in given if f and "path" in f}
    return {k: f for k, v in (read or {}).items()
            if Path(v).resolve() not in named and "sha256" in (f := file_record(v) or {})}


def read_file_words(read_files: dict[str, dict[str, Any]]) -> list[str]:
    """``(game.map PATH: sha256 0123456789ab)`` for each file of ``read_files_record``, as a header says them."""
    return [f"({k} {shlex.quote(f['path'])}: sha256 {f['sha256'][:12]})" for k, f in read_files.items()]


def run_record(game: str, *, hero: str, policy: Any, params: str | None, games: int, seed: int, conf: float,
               rules: str | None = None, sets: dict[str, Any] | None = None, map: str | None = None,
               options: dict[str, Any] | None = None, defaults: dict[str, Any] | None = None, start: int = 0,
               ruleset_given: bool = False, read_files: dict[str, str] | None = None) -> dict[str, Any]:
    """How a run was made (``summary["provenance"]``): game, hero, policy with every parameter value, seed,
    games, confidence level, each override (``--set`` by dotted key, ``--rules`` and a map file with their
    sha256, ``--param`` as given, the game's options that differ from ``defaults``, with the sha256 of those that
    name a file: ``option_files``; the files a ruleset key named, ``read_files``: ``GameSpec.files_read``, each
    with its sha256), ``defaults`` (true when
    there is none), package version, git commit and the ``command`` that plays the same games again (None
    when the command line cannot: a ruleset object or a first game other than 0 given by a library caller).
    The thread count is not recorded: game ``i`` plays on stream ``(seed, i)`` whatever the threads."""
    opts = {k: v for k, v in (options or {}).items() if (defaults or {}).get(k) != v}
    pars = cli_settings(params=params)
    overrides = _overrides(sets, rules, map, pars, opts, read_files)
    if ruleset_given:
        overrides["ruleset"] = "a ruleset object given by the caller"
    pname = getattr(policy, "name", str(policy))
    args = settings_args({"hero": hero, "policy": pname, "map": map, "rules": rules} | pars | (sets or {}))
    for k, v in opts.items():
        args += [f"--{k.replace('_', '-')}", option_text(v)]
    args += ["--games", str(games), "--seed", str(seed)] + (["--conf", number_text(conf)] if conf != 0.95 else [])
    rec: dict[str, Any] = {
        "command": None if ruleset_given or start else command("run", game, args),
        "game": game, "hero": hero, "policy": pname,
        "policy_params": dict(zip(getattr(policy, "param_names", ()), map_floats(getattr(policy, "params", ())))),
        "seed": seed, "games": games, "first_game": start, "conf": conf,
        "overrides": overrides, "defaults": not overrides,
        "version": version(), "git_commit": git_commit(),
    }
    pf = file_record(pname) if ".py" in pname else None
    if pf is not None:
        rec["policy_file"] = pf
    return rec


def odds_record(game: str, *, trials: int, seed: int, conf: float, rules: str | None = None,
                sets: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
                defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """How an odds table was made (``foury-sim odds``): game, trials, seed, level, the overrides as a run records
    them (``--set`` by dotted key, ``--rules`` with its sha256, the game's options that differ from ``defaults``),
    version, commit and the ``command`` that measures it again."""
    opts = {k: v for k, v in (options or {}).items() if (defaults or {}).get(k) != v}
    overrides = _overrides(sets, rules, None, {}, opts)
    args = settings_args({"rules": rules} if rules else {}) + settings_args(sets or {}, game)
    for k, v in opts.items():
        args += [f"--{k.replace('_', '-')}", option_text(v)]
    args += ["--trials", str(trials), "--seed", str(seed)] + (["--conf", number_text(conf)] if conf != 0.95 else [])
    return {"command": command("odds", game, args), "game": game, "trials": trials, "seed": seed, "conf": conf,
            "overrides": overrides, "defaults": not overrides, "version": version(), "git_commit": git_commit()}


def map_floats(values: Any) -> list[Any]:
    """Parameter values as plain numbers (``2`` rather than ``2.0``)."""
    return [int(v) if float(v).is_integer() else float(v) for v in values]


def overrides_text(overrides: dict[str, Any]) -> str:
    """``--set round.monster_bonus=0,1,3,4 --rules my.toml (sha256 1a2b3c4d)``; ``none (shipped defaults)``."""
    if not overrides:
        return "none (shipped defaults)"
    words: list[str] = []
    for k, v in overrides.get("set", {}).items():
        words.append(f"--set {shlex.quote(f'{k}={v}')}")
    for key in ("rules", "map"):
        f = overrides.get(key)
        if f:
            words.append(f"--{key} {shlex.quote(f.get('path', f.get('name', '')))}"
                         + (f" (sha256 {f['sha256'][:12]})" if "sha256" in f else ""))
    if overrides.get("param"):
        words.append("--param " + ",".join(f"{k}={v}" for k, v in overrides["param"].items()))
    for k, v in overrides.get("options", {}).items():
        f = overrides.get("option_files", {}).get(k)
        words.append(f"--{k.replace('_', '-')} {shlex.quote(str(v))}" + (f" (sha256 {f['sha256'][:12]})" if f else ""))
    words += read_file_words(overrides.get("read_files", {}))  # (the file a key names: not an option of its own)
    if "ruleset" in overrides:
        words.append(overrides["ruleset"])
    return " ".join(words)


def made_with(rec: dict[str, Any]) -> str:
    """``foury-sim 0.1.0, commit 1a2b3c4d5e`` (the commit when known)."""
    commit = rec.get("git_commit")
    if not commit:
        return f"foury-sim {rec.get('version', version())}"
    dirty = " (with uncommitted changes)" if commit.endswith("+dirty") else ""
    return f"foury-sim {rec.get('version', version())}, commit {commit[:10]}{dirty}"


def policy_text(rec: dict[str, Any]) -> str:
    """``greedy (default parameters)``, ``greedy (foe_avoid=2; the others at their defaults)``; the name alone
    for a policy without parameters (every value is in the record's ``policy_params``)."""
    given = (rec.get("overrides") or {}).get("param") or {}
    if not rec.get("policy_params"):
        return str(rec.get("policy"))
    if not given:
        return f"{rec.get('policy')} (default parameters)"
    rest = "; the others at their defaults" if len(given) < len(rec["policy_params"]) else ""
    return f"{rec.get('policy')} ({', '.join(f'{k}={v}' for k, v in given.items())}{rest})"


def figure_note(game: str, *, fixed: dict[str, Any] | None, seed: Any, games: str, made: dict[str, Any],
                swept: Any = (), varies: str = "swept", variants: dict[str, dict[str, Any]] | None = None) -> str:
    """The line at the foot of a study's figure (``figures.made_footer``; a sweep's report, ``tune``, ``compare``,
    ``robust`` and ``ladder`` draw it): ``game GAME; fixed: hero=HERO; policy POLICY (the game's default); seed 3;
    400 games per cell; foury-sim 0.1.0, commit 1a2b3c4d5e``. ``variants``: label -> settings of each variant the
    figure compares (``A: hero=HERO``), named before the fixed settings. The policy is named when no setting fixes
    it and not every variant names it (``swept``: the settings the figure varies, which name it themselves:
    ``policy swept``, or as ``varies`` says, ``policy per rung``); ``games`` as the caller counts them; ``made``:
    ``version`` and ``git_commit``."""
    fixed = fixed or {}
    variants = variants or {}
    parts = [f"game {game}", *(f"{label}: {describe(s)}" for label, s in variants.items()),
             "fixed: " + (describe(fixed) if fixed else "nothing (the game's defaults)")]
    named = sum("policy" in s for s in variants.values())
    if "policy" not in fixed:
        if "policy" in swept:
            parts.append(f"policy {varies}")
        elif not variants or named < len(variants):
            from .errors import InputError
            from .registry import get_game

            where = ", where a variant names none" if named else ""
            try:
                parts.append(f"policy {get_game(game).default_policy} (the game's default{where})")
            except InputError:
                pass
    return "; ".join(parts + [f"seed {seed}", games, made_with(made)])


def header_lines(rec: dict[str, Any]) -> list[str]:
    """The provenance lines of a run's text summary: the overrides (or ``none``), and the command that
    reproduces the run with the version and commit that made it."""
    lines = [f"overrides: {overrides_text(rec.get('overrides') or {})}"]
    if rec.get("command"):
        lines.append(f"reproduce: {rec['command']}")
    pf = rec.get("policy_file") or {}
    path = pf.get("path", "").split(".py:", 1)[0] + ".py" if ".py:" in pf.get("path", "") else pf.get("path", "")
    policy_file = f"; policy file {shlex.quote(path)} (sha256 {pf['sha256'][:12]})" if "sha256" in pf else ""
    lines.append(f"made with: {made_with(rec)}{policy_file}")
    return lines
