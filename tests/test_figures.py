"""Every figure of foury_sim.figures reads on its own: a title, labelled axes, every cell it was given."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from foury_sim import figures as F
from foury_sim.games.foury.maps import resolve_map
from foury_sim.stats import wilson_arrays

HEROES = ["free", "kael", "melyra", "thalindra", "elydion"]
POLICIES = ["greedy", "cautious", "random"]


def _cells() -> pd.DataFrame:
    rows = []
    for i, (h, p) in enumerate((h, p) for h in HEROES for p in POLICIES):
        k = 0 if p == "random" else 100 + 37 * i
        rows.append({"cell": i, "label": f"hero={h}, policy={p}", "hero": h, "policy": p, "games": 1000, "wins": k})
    df = pd.DataFrame(rows)
    df["win_rate"] = df["wins"] / df["games"]
    df["win_lo"], df["win_hi"] = wilson_arrays(df["wins"].to_numpy(), df["games"].to_numpy())
    return df


def _records(cells: pd.DataFrame) -> list[dict]:
    m = resolve_map(None)
    out = []
    for i, r in cells.iterrows():
        died = 700 + 10 * i
        rooms = (m.sector >= 0).astype(int)
        out.append({"cell": int(r["cell"]), "label": r["label"], "games": 1000,
                    "hist": {"death_round": {"values": [0, 1, 2, 3], "counts": [1000 - died, died - 300, 200, 100]},
                             "death_turn": {"values": [0, 4, 9, 30], "counts": [1000 - died, died - 300, 200, 100]},
                             "rounds_completed": {"values": [0, 2, 4], "counts": [300, 300, 400]},
                             "score": {"values": [3, 10 + i, 25], "counts": [200, 500, 300]},
                             "turns": {"values": [20, 40 + i, 400], "counts": [300, 690, 10]}},
                    "board_cells": {"map": str(m.path), "deaths": (rooms * (i + 1)).tolist(),
                              "visits": (rooms * 50).tolist()}})
    return out


CELLS = _cells()
RECS = _records(CELLS)
LABELS = list(CELLS["label"])
PANELS = [f"policy = {p}" for p in CELLS["policy"]]
SHORT = [f"hero={h}" for h in CELLS["hero"]]

FIGURES = {
    "win_rate_vs": lambda: F.win_rate_vs(CELLS.assign(x=CELLS["cell"] % 3), "x", "hero", 0.2),
    "win_rate_vs_categorical": lambda: F.win_rate_vs(CELLS, "policy", "hero"),
    "difficulty_bars": lambda: F.difficulty_bars(CELLS, "hero", "policy", 0.2),
    "difficulty_bars_cells": lambda: F.difficulty_bars(CELLS, "label"),
    "heat_deaths": lambda: F.heat_map(RECS[0], "deaths"),
    "heat_visits": lambda: F.heat_map(RECS[0], "visits"),
    "survival_by_round": lambda: F.survival_by_round(RECS, LABELS),
    "survival_by_round_panels": lambda: F.survival_by_round(RECS, SHORT, panels=PANELS, facet="policy"),
    "survival_by_turn": lambda: F.survival_by_turn(RECS, LABELS),
    "distributions": lambda: F.distributions(RECS, LABELS, "score"),
    "distributions_panels": lambda: F.distributions(RECS, SHORT, "turns", panels=PANELS, facet="policy"),
    "paired_difference": lambda: F.paired_difference(pd.DataFrame(
        {"outcome": ["win", "score"], "diff": [0.05, 1.2], "lo": [0.01, 0.4], "hi": [0.09, 2.0],
         "significant": [True, True], "a": [0.2, 20.0], "b": [0.25, 21.2]})),
}


def test_every_public_figure_function_is_checked() -> None:
    drawn = {name.removesuffix("_categorical").removesuffix("_cells").removesuffix("_panels")
             for name in FIGURES}
    drawn |= {"heat_map"} if {"heat_deaths", "heat_visits"} <= drawn else set()
    makers = {n for n in F.__all__ if callable(getattr(F, n)) and getattr(F, n).__annotations__.get("return") in
              ("Figure", Figure)}
    assert makers <= drawn, makers - drawn


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_has_a_title_and_labelled_axes(name: str) -> None:
    fig = FIGURES[name]()
    assert fig.get_suptitle().strip() or any(ax.get_title().strip() for ax in fig.get_axes())
    if name.startswith("heat_"):  # a picture of the board: its key is the colour bar's label
        unit = "first deaths per 1000 games" if name == "heat_deaths" else "visits per game"
        every = [a for ax in fig.get_axes() for a in (ax, *ax.child_axes)]  # the colour bar is an inset
        assert any(a.get_ylabel() == unit for a in every), name
        assert unit in fig.get_suptitle() or any(unit in ax.get_title() for ax in fig.get_axes())
        return
    data_axes = [ax for ax in fig.get_axes() if ax.has_data()]
    assert data_axes
    for ax in data_axes:
        x = ax.get_xlabel().strip() or fig.get_supxlabel().strip()
        y = ax.get_ylabel().strip() or ax.get_yticklabels()[0].get_text().strip()
        assert x, f"{name}: an axis without an x label"
        assert y, f"{name}: an axis without a y label"
        if ax.get_legend() is not None:
            assert all(t.get_text().strip() for t in ax.get_legend().get_texts())


def test_survival_shows_every_cell_one_panel_per_policy() -> None:
    fig = F.survival_by_round(RECS, SHORT, panels=PANELS, facet="policy")
    axes = fig.get_axes()
    assert [ax.get_title(loc="left") for ax in axes] == ["policy = greedy", "policy = cautious", "policy = random"]
    assert "one panel per policy" in fig.get_suptitle()
    for ax, policy in zip(axes, POLICIES):
        names = sorted(t.get_text().split(":")[0] for t in ax.get_legend().get_texts())
        assert names == sorted(f"hero={h}" for h in HEROES), policy  # Melyra and Thalindra included
        assert len(ax.get_lines()) == len(HEROES)
    assert "1,000 games per cell" in fig.get_supxlabel()


def test_fifteen_cells_without_panels_are_all_drawn() -> None:
    for fn in (F.survival_by_round, F.survival_by_turn):
        fig = fn(RECS, LABELS)
        legend = [t.get_text().split(":")[0] for ax in fig.get_axes() for t in ax.get_legend().get_texts()]
        assert sorted(legend) == sorted(LABELS)
    fig = F.distributions(RECS, LABELS, "score")
    legend = [t.get_text().split(" (mean")[0] for ax in fig.get_axes() if ax.get_legend()
              for t in ax.get_legend().get_texts()]
    assert sorted(legend) == sorted(LABELS)


def test_known_heroes_and_policies_use_a_colour_blind_safe_palette() -> None:
    okabe_ito = {"#D55E00", "#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"}
    colours = F.category_colors(HEROES + POLICIES)
    assert {colours[h] for h in ("kael", "melyra", "thalindra", "elydion")} <= okabe_ito
    assert len(set(colours.values())) == len(colours)  # no two share a colour
    assert "#d62728" not in colours.values() and "#2ca02c" not in colours.values()  # no red next to green


def test_bar_figures_name_the_games_per_point() -> None:
    fig = F.difficulty_bars(CELLS, "hero", "policy")
    assert fig.get_axes()[0].get_title().startswith("1,000 games per point; black whiskers = 95 % interval")
    assert np.isclose(fig.get_axes()[0].get_ylim()[0], 0.0)


def test_robust_figures_have_titles_labels_and_legends(tmp_path) -> None:
    from matplotlib.image import imread

    from foury_sim import robust

    summ = pd.DataFrame({"claim": ["kael > elydion", "ranking kael > elydion"], "share_holds": [0.9, 0.05],
                         "share_lo": [0.8, 0.01], "share_hi": [0.95, 0.12], "whole": [False, True],
                         "margin_at_defaults": [0.04, 0.04]})
    sens = pd.DataFrame({"claim": ["ranking kael > elydion"] * 2, "factor": ["game.map", "kills.prize_every"],
                         "oat_low": [-0.05, 0.0], "oat_high": [0.01, 0.02]})
    (tmp_path / "figures").mkdir()
    written = robust._figures(tmp_path, summ, sens, {"games": 8000, "n_design_points": 89, "conf": 0.9})
    assert [p.name for _, _, p in written] == ["shares.png", "tornado_1.png"]
    assert all(imread(p).shape[0] > 200 for _, _, p in written)
    assert "dark: a whole claim, light: one of its parts" in written[0][1]
    assert written[1][0] == "Tornado: ranking kael > elydion"


def test_bar_labels_of_tiny_rates_are_not_zero() -> None:
    cells = CELLS.copy()
    cells.loc[cells["policy"] == "random", "wins"] = [0, 0, 0, 1, 1]
    cells["win_rate"] = cells["wins"] / cells["games"]
    fig = F.difficulty_bars(cells, "hero", "policy")
    texts = [t.get_text() for t in fig.get_axes()[0].texts]
    assert texts.count("0.10%") == 2 and texts.count("0.0%") == 3  # 1 of 1,000 games is 0.10 %, 0 is 0.0 %
    assert F._bar_pct(100 / 40_000) == "0.0025%" and F._bar_pct(0.4) == "0.40%"


def _pool_by_groups(cells, keys, *, conf=0.95, wins=None):
    """``F.pool`` as it was written first, one pandas group at a time: the reference for the array version."""
    import math

    from foury_sim import stats

    keys = list(dict.fromkeys(keys))
    df = cells[[*keys, "games", "wins"]].copy().reset_index(drop=True)
    df["_row"] = np.arange(len(df))
    rows = []
    for key, grp in df.groupby(keys, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(keys, key, strict=True))
        k = grp["wins"].to_numpy(int)
        n = grp["games"].to_numpy(int)
        row.update(games=int(n.sum()), wins=int(k.sum()), n_cells=len(grp))
        w = [wins[i] if wins is not None and i < len(wins) else None for i in grp["_row"]]
        if len(grp) == 1:
            lo, hi = stats.wilson(int(k[0]), int(n[0]), conf)
            r = {"rate": k[0] / n[0] if n[0] else math.nan, "lo": lo, "hi": hi}
            how = "wilson"
        elif all(x is not None for x in w) and len({len(x) for x in w}) == 1 and len(w[0]) == n[0]:
            r, how = stats.pooled_rate_ci(np.vstack(w), conf), "paired"
        else:
            r, how = stats.pooled_rate_ci_bound(k, n, conf), "bound"
        row.update(win_rate=r["rate"], win_lo=r["lo"], win_hi=r["hi"], interval=how)
        rows.append(row)
    out = pd.DataFrame(rows)
    out["games"] = out["games"].astype(int)
    out["wins"] = out["wins"].astype(int)
    return out


def test_pool_matches_the_one_group_at_a_time_reference_exactly():
    """Pooling reads its groups from arrays; the pandas group-by-group version is the reference: the same table,
    bit for bit, for cells alone or shared, text/number/bool/missing keys, paired wins, and a cell of no games."""
    rng = np.random.default_rng(7)
    hows = set()
    for trial in range(18):
        n_cells = int(rng.integers(1, 14))
        games = int(rng.choice([0, 5, 200])) if trial % 9 == 0 else 200
        cells = pd.DataFrame({
            "hero": rng.choice(["kael", "mira", None, "zed"], n_cells),
            "hp": rng.choice([3, 4, 5], n_cells),
            "rate": rng.choice([0.25, 0.5, np.nan], n_cells),
            "flag": rng.choice([True, False], n_cells),
            "games": games,
        })
        cells["wins"] = rng.integers(0, games + 1, n_cells)
        bits = [rng.integers(0, 2, games).astype(np.int8) for _ in range(n_cells)] if trial % 2 else None
        if bits is not None and trial % 4 == 1:
            bits[0] = None
        for keys in (["hero"], ["hp"], ["hero", "hp"], ["rate"], ["flag", "rate"], ["hp", "hero", "hp"]):
            conf = 0.8 if trial % 3 == 0 else 0.95
            got = F.pool(cells, keys, conf=conf, wins=bits)
            pd.testing.assert_frame_equal(got, _pool_by_groups(cells, keys, conf=conf, wins=bits), check_exact=True)
            hows |= set(got["interval"])
    assert hows == {"wilson", "paired", "bound"}


def test_a_policy_file_is_named_by_its_file_in_a_figure_not_its_folders():
    """A swept policy file (``/home/me/my policies/mine.py:bold``) is labelled ``mine.py:bold`` in a figure: its whole
    path squeezed the bars to nothing (matplotlib: 'constrained_layout not applied because axes sizes collapsed')."""
    import warnings

    long = "/tmp/a very long folder name/for a designer's own/policies of this study/mine.py:bold"
    assert F.fmt_value(long) == "mine.py:bold"
    assert F.fmt_value(f"hero=kael, policy={long}") == "hero=kael, policy=mine.py:bold"
    assert F.fmt_value("rules=/a/b/r.toml") == "rules=/a/b/r.toml"  # (only a policy file's folders)
    cells = CELLS.assign(policy=CELLS["policy"].where(CELLS["policy"] != "cautious", long))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = F.difficulty_bars(cells, "policy")
        fig.draw_without_rendering()
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels() + fig.axes[0].get_yticklabels()]
    assert "mine.py:bold" in ticks and long not in ticks


def test_heat_scale_spans_the_finite_values_and_a_constant_layer_one_unit():
    """Both boards (a Dungeon Foury map, a Tactics level) colour their heat layer by ``figures.heat_scale``."""
    from foury_sim.figures import heat_scale

    heat, norm, cmap = heat_scale([3, np.nan, 7, np.inf], 4)
    assert heat.dtype == float and (norm.vmin, norm.vmax) == (3.0, 7.0) and cmap.name == "YlOrRd"
    assert (heat_scale([2.0, 2.0], 2)[1].vmin, heat_scale([2.0, 2.0], 2)[1].vmax) == (2.0, 3.0)
    assert (heat_scale([np.nan], 1)[1].vmin, heat_scale([np.nan], 1)[1].vmax) == (0.0, 1.0)
    with pytest.raises(ValueError, match=r"heat must have shape \(5,\), got \(3,\)"):
        heat_scale(np.zeros(3), 5)
