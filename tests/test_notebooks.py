"""The notebooks in notebooks/ run from top to bottom and print their computed findings.

Each notebook is executed with nbclient in a fresh ``python3`` kernel started in ``notebooks/``.
``FOURY_SIM_NOTEBOOK_GAMES=300`` makes the notebooks ignore any saved study and re-run their
experiment small (300 games per cell) into a temporary folder, so the test does not depend on
``results/`` and takes seconds once the kernels are compiled.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SMALL_GAMES = 300


def execute(name: str, monkeypatch: pytest.MonkeyPatch) -> nbformat.NotebookNode:
    """Run a notebook in small mode; the kernel inherits the environment set here."""
    monkeypatch.setenv("FOURY_SIM_NOTEBOOK_GAMES", str(SMALL_GAMES))
    monkeypatch.delenv("FOURY_SIM_RESULTS", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()  # raises CellExecutionError if any cell fails
    return nb


def text_of(nb: nbformat.NotebookNode) -> str:
    """Everything the code cells printed (streams and plain-text results)."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append(out["text"])
            elif "data" in out:
                parts.append(out["data"].get("text/plain", ""))
    return "\n".join(parts)


def n_images(nb: nbformat.NotebookNode) -> int:
    return sum("image/png" in out.get("data", {}) for cell in nb.cells for out in cell.get("outputs", []))


@pytest.mark.parametrize("name", ["hero_difficulty.ipynb", "monster_tuning.ipynb"])
def test_saved_notebooks_are_clean(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert nb.cells[0].cell_type == "markdown"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, "outputs must be cleared before saving"
    params = next(c.source for c in nb.cells if c.cell_type == "code")
    assert "FOURY_SIM_RESULTS" in params and "FOURY_SIM_NOTEBOOK_GAMES" in params


def test_hero_difficulty_notebook(monkeypatch):
    nb = execute("hero_difficulty.ipynb", monkeypatch)
    text = text_of(nb)
    assert f"SMALL RE-RUN: {SMALL_GAMES} games per cell" in text
    assert re.search(r"Under greedy the easiest hero is \w+ at [\d.]+ % \[[\d.]+ %, [\d.]+ %\]", text), text
    # the random policy (practically) never wins: it ranks nothing and is never "clearly apart"
    assert re.search(r"Under random fewer than two heroes win and lose at least 10 games \((\w+ \d+ of 300 games"
                     r"(, )?){5}\): this policy cannot rank the heroes\.", text), text
    assert "Rulebook check under random: fewer than two named heroes win and lose at least 10 games" in text
    assert not re.search(r"Under random the easiest hero", text)
    verdict = r"Rulebook check under greedy: the labels are (CONFIRMED|CONSISTENT|CONTRADICTED|UNDECIDED) \(\d of 5"
    assert re.search(verdict, text), text
    paired = r"Paired comparison under greedy, 300 games: win rate of \w+ minus \w+ = [-+][\d.]+ percentage points"
    assert re.search(paired + r" \[[-+][\d.]+, [-+][\d.]+\] \(McNemar p [=<] [\d.e+-]+: (NOT )?significant", text), text
    assert re.search(r"Flipped games: \d+ won by \w+ but lost by \w+", text), text
    # every share it prints carries its interval (the survival and heat-map lines printed bare shares)
    assert re.search(r"\w+: never dies in [\d.]+ % \[[\d.]+ %, [\d.]+ %\] of games; most first deaths in round \d "
                     r"\([\d.]+ % \[[\d.]+ %, [\d.]+ %\] of games\)", text), text
    assert re.search(r"dies at least once in [\d.]+ % \[[\d.]+ %, [\d.]+ %\] of games; main causes of the first "
                     r"death \(shares of the first deaths\): [\w ]+ [\d.]+ % \[[\d.]+ %, [\d.]+ %\]", text), text
    assert "fixed settings none." in text
    assert n_images(nb) >= 4  # difficulty bars, paired differences, survival, heat map


def test_monster_tuning_notebook(monkeypatch):
    nb = execute("monster_tuning.ipynb", monkeypatch)
    text = text_of(nb)
    assert f"SMALL RE-RUN: {SMALL_GAMES} games per cell" in text
    heroes = ["free", "kael", "melyra", "thalindra", "elydion"]
    for hero in heroes:  # every hero gets a computed answer
        assert re.search(rf"^{hero}: (the strongest schedule that reaches|no schedule reaches) the 15\.0 % target",
                         text, re.M), text
    assert re.search(r"paired interval \[[-+][\d.]+, [-+][\d.]+\] \(width [\d.]+\) vs", text), text
    assert re.search(r"pairing is worth about [\d.]+ times as many games", text), text
    assert re.search(r"kael, schedule 0,1,2,3: mean score [\d.]+", text), text
    pm = r"[\d.]+ % \[[\d.]+ %, [\d.]+ %\]"  # a rate with its interval
    assert re.search(rf"kael, schedule 0,1,2,3: .* win rate {pm} \(95 % intervals", text), text
    assert re.search(rf"kael, 300 games: schedule [\d,]+ wins {pm}, [\d,]+ wins {pm} \(95 % Wilson", text), text
    assert "fixed settings policy=greedy." in text  # (it printed the dict: {'policy': 'greedy'})
    assert n_images(nb) >= 3  # win rate against the schedule, score and turn distributions


def test_the_named_tool_comes_with_the_dev_extra():
    """notebooks/README.md and README.md tell a user to run the notebooks with `jupyter-execute`: the console
    script is installed (by nbclient), loads, and nbclient is in the `dev` extra that the quick start installs."""
    import tomllib
    from importlib.metadata import entry_points

    for doc in ("notebooks/README.md", "README.md"):
        assert "jupyter-execute notebooks/" in (ROOT / doc).read_text(encoding="utf-8"), doc
    (script,) = entry_points(group="console_scripts", name="jupyter-execute")
    assert callable(script.load())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dev = project["optional-dependencies"]["dev"]
    assert script.dist.name.lower() in {re.split(r"[<>=!~\[ ]", req)[0].lower() for req in dev}
