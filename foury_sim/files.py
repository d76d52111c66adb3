"""Writing results: every file is written atomically (temp file, fsync, rename), so a reader never sees
a half-written file and an interrupted run leaves the previous version in place.

A write that fails (disk full, file too large, no permission, a folder where a file should be) removes
its temp file and raises :class:`WriteError`, one line naming the file and the OS reason."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InputError
from .lazy import pd

#: temp files are named ``.NAME.tmpPID`` (``.NAME.tmpPID.png`` for figures); :func:`clean_temp` removes them
TMP_MARK = ".tmp"


class WriteError(InputError):
    """A results file could not be written (the CLI prints it as one line, exit 2)."""


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}{TMP_MARK}{os.getpid()}")


def _reason(e: BaseException) -> str:
    if isinstance(e, OSError):
        return e.strerror or type(e).__name__
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def _guarded(path: Path, write: Callable[[Path], None]) -> None:
    """Run ``write(tmp)`` then rename tmp to ``path``; on any failure remove tmp and raise WriteError."""
    tmp = _tmp(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        if isinstance(e, OSError):
            raise WriteError(f"cannot write results file: {_reason(e)}", str(path)) from None
        raise


def atomic_write(path: str | Path, data: bytes | str) -> None:
    """Write a file so that readers never see it half-written (temp file, fsync, rename)."""
    mode = "wb" if isinstance(data, bytes) else "w"

    def write(tmp: Path) -> None:
        with open(tmp, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())

    _guarded(Path(path), write)


#: The key of a parquet table's record of how it was made (``write_frame``'s ``made``): pandas keeps a frame's
#: ``attrs`` in the file, so ``pd.read_parquet(path).attrs[MADE_KEY]`` gives it back (pyarrow: the schema's
#: ``PANDAS_ATTRS`` metadata).
MADE_KEY = "foury_sim"


def write_frame(df: pd.DataFrame, path: str | Path, *, outputs: Any = None, ruleset: Any = None,
                made: dict[str, Any] | None = None) -> None:
    """Atomically write a table as CSV or parquet (by suffix).

    ``outputs`` (a game's ``Outputs``): a per-game table, written with readable labels instead of codes
    (``Outputs.labelled``: categoricals in parquet, ordered where the column is; words in a CSV), the labels
    of ``ruleset``. ``made``: how the table was made (a run's provenance record: game, settings, seed, games,
    level, version, commit, command), kept in a parquet file under ``attrs[MADE_KEY]`` (a CSV has no place for
    it: its folder's JSON says it). ``df`` itself is not changed."""
    path = Path(path)
    if outputs is not None:
        df = outputs.labelled(df, ruleset)
    if made is not None and path.suffix == ".parquet":
        df = df.copy(deep=False)
        df.attrs = {MADE_KEY: to_jsonable(made)}

    def write(tmp: Path) -> None:
        if path.suffix == ".parquet":
            df.to_parquet(tmp, index=False)
        else:
            df.to_csv(tmp, index=False)

    _guarded(path, write)


def save_figure(fig: Any, path: str | Path, **kw: Any) -> None:
    """Atomically save a matplotlib figure (format from ``path``'s suffix)."""
    path = Path(path)

    def write(tmp: Path) -> None:
        fig.savefig(tmp, format=path.suffix.lstrip(".") or "png", **kw)

    _guarded(path, write)


def clean_temp(folder: str | Path) -> int:
    """Remove the temp files a crashed writer left in ``folder`` and its subfolders; returns how many."""
    n = 0
    folder = Path(folder)
    if not folder.is_dir():
        return 0
    for p in folder.rglob(f".*{TMP_MARK}*"):
        if p.is_file():
            try:
                p.unlink()
                n += 1
            except OSError:
                pass
    return n


def to_jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return None if not np.isfinite(obj) else float(obj)
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    return obj


#: The package's own folder: a file inside it is a shipped one (a built-in map, level or dungeon).
PACKAGE = Path(__file__).resolve().parent


def portable_path(path: Any, shipped: Iterable[str] = (), root: str | Path | None = None) -> Any:
    """``path`` as a results file records it, the same on every machine and checkout: a shipped file (inside the
    package) whose stem is one of the ``shipped`` names -> that name (``kraken``); an absolute path inside ``root``
    (default: the working folder, the project's, that a study's own file paths are given from and a report reads
    them from) -> relative to it, with ``/``; anything else (a name, a relative path, a file elsewhere) unchanged."""
    if not isinstance(path, str | Path) or not str(path) or not Path(path).is_absolute():
        return path
    p = Path(path).resolve()
    if p.stem in set(shipped) and p.is_relative_to(PACKAGE):
        return p.stem
    try:
        return p.relative_to(Path(root if root is not None else Path.cwd()).resolve()).as_posix()
    except ValueError:
        return str(path)


def portable_board_cells(cells: dict[str, Any], shipped: Iterable[str] = ()) -> dict[str, Any]:
    """A cell record's ``board_cells`` with its ``map`` a :func:`portable_path` (a board's ``cell_record`` gives the
    map's absolute path, a shipped map's too: every results folder held its checkout's folder)."""
    return {**cells, "map": portable_path(cells["map"], shipped)} if "map" in cells else cells
