"""Rooms (issue 15): the paired parts of the hero-balance and deck-mix studies, read from their sweeps.

    foury-sim sweep experiments/rooms_heroes.toml       # results/rooms_heroes/ (cells, report, figures)
    python experiments/rooms_studies.py heroes          # results/rooms_heroes/gap.md, gap.csv, fights.csv

    foury-sim sweep experiments/rooms_deck_mix.toml     # results/rooms_deck_mix/
    python experiments/rooms_studies.py deck            # results/rooms_deck_mix/mix.md, mix.csv

Every cell of a sweep plays game i on dice stream (seed, i), so two cells are paired game by game. The sweep
keeps each cell's wins game by game (``win_bits`` in ``cells/cell_NNNN.json``); the differences below are paired
on them: Newcombe's interval and the exact McNemar test (``stats.paired_rate_diff``), Holm over the family (the
four heroes for the policy gap; every mix x hero against the shipped mix for the deck).

``heroes`` also plays the fight-level view (unless ``--no-fights``): each hero against each fight card of the deck
(the card's monsters, the hero at full HP, a fresh fight), ``--fights`` fights per hero, card and policy, fight i on
stream (seed, i) under both policies (``combat.play_fight``, the entry point ``foury-sim warm rooms`` compiles):
the share of fights won with its Wilson interval and the mean HP lost.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from foury_sim import __version__, stats
from foury_sim.files import atomic_write, to_jsonable, write_frame
from foury_sim.study import git_commit, read_win_bits

POLICIES = ("greedy", "optimal_reroll")  # A, B: the gap is optimal_reroll - greedy


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def cells_of(folder: Path) -> list[dict]:
    cells = [json.loads(f.read_text()) for f in sorted((folder / "cells").glob("cell_*.json"))]
    if not cells:
        sys.exit(f"{folder}: no cells (run the sweep first)")
    return cells


def wins(cell: dict) -> np.ndarray:
    return read_win_bits(cell["win_bits"], int(cell["games"]))


def mean_of(cell: dict, key: str) -> tuple[float, float, float]:
    s = cell["summary"][key]
    return s["mean"], s["mean_lo"], s["mean_hi"]


def paired(a: dict, b: dict) -> dict:
    d = stats.paired_rate_diff(wins(a), wins(b))
    return {"diff": d["diff"], "lo": d["lo"], "hi": d["hi"], "p_value": d["p_value"], "a_only": d["a_only"],
            "b_only": d["b_only"]}


# ----------------------------------------------------------------------------------------------- heroes --
def hero_gaps(folder: Path) -> pd.DataFrame:
    cells = cells_of(folder)
    by = {(c["params"]["hero"], c["params"]["policy"]): c for c in cells}
    heroes = list(dict.fromkeys(c["params"]["hero"] for c in cells))
    rows = []
    for h in heroes:
        a, b = by[(h, POLICIES[0])], by[(h, POLICIES[1])]
        row = {"hero": h, "games": a["games"]}
        for pol, c in ((POLICIES[0], a), (POLICIES[1], b)):
            s = c["summary"]["win"]
            row |= {f"win_{pol}": s["rate"], f"lo_{pol}": s["lo"], f"hi_{pol}": s["hi"]}
            row |= dict(zip((f"turns_{pol}", f"turns_lo_{pol}", f"turns_hi_{pol}"), mean_of(c, "turns")))
            row |= dict(zip((f"hp_left_{pol}", f"hp_left_lo_{pol}", f"hp_left_hi_{pol}"), mean_of(c, "hp_left")))
        p = paired(a, b)
        row |= {"gap": p["diff"], "gap_lo": p["lo"], "gap_hi": p["hi"], "p_value": p["p_value"],
                "won_only_greedy": p["a_only"], "won_only_optimal": p["b_only"]}
        rows.append(row)
    df = pd.DataFrame(rows)
    df["p_holm"] = stats.adjust_pvalues(df["p_value"].to_numpy(), "holm")
    df["significant_holm_5pct"] = (df["p_holm"] < 0.05) & ((df["gap_lo"] > 0) | (df["gap_hi"] < 0))
    df["relative_gap"] = df["gap"] / df["win_optimal_reroll"]
    return df


def gap_markdown(df: pd.DataFrame) -> str:
    o, g = POLICIES[1], POLICIES[0]
    lines = ["| hero | optimal_reroll win [95 %] | greedy win [95 %] | gap optimal - greedy [95 % paired] | "
             "share of the optimal wins lost | Holm p | turns (optimal) | turns (greedy) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in df.sort_values(f"win_{o}", ascending=False).itertuples():
        d = r._asdict()
        lines.append(
            f"| {r.hero} | {pct(d[f'win_{o}'])} % [{pct(d[f'lo_{o}'])}, {pct(d[f'hi_{o}'])}] | "
            f"{pct(d[f'win_{g}'])} % [{pct(d[f'lo_{g}'])}, {pct(d[f'hi_{g}'])}] | "
            f"{100 * r.gap:+.1f} [{100 * r.gap_lo:+.1f}, {100 * r.gap_hi:+.1f}] | {pct(r.relative_gap)} % | "
            f"{f'{r.p_holm:.2g}' if r.p_holm > 0 else '< 1e-300'} | "
            f"{d[f'turns_{o}']:.2f} [{d[f'turns_lo_{o}']:.2f}, {d[f'turns_hi_{o}']:.2f}] | "
            f"{d[f'turns_{g}']:.2f} [{d[f'turns_lo_{g}']:.2f}, {d[f'turns_hi_{g}']:.2f}] |")
    return "\n".join(lines) + "\n"


def fight_table(fights: int, seed: int) -> pd.DataFrame:
    """Each hero against each fight card of the shipped deck, at full HP, under both policies (paired dice)."""
    from foury_sim import rng
    from foury_sim.games.rooms import combat as C
    from foury_sim.games.rooms import layout as L
    from foury_sim.games.rooms.dice import GREEDY_PARAMS
    from foury_sim.games.rooms.ruleset import load_ruleset

    rs = load_ruleset()
    params = np.array(list(GREEDY_PARAMS.values()), dtype=np.float64)
    pids = {"greedy": L.P_GREEDY, "optimal_reroll": L.P_OPTIMAL}
    cards = [(name, rs.cards[i]) for i, name in enumerate(rs.card_names) if rs.cards[i, L.CD_N_MON] > 0]
    rows = []
    for hero in rs.hero_names:
        fx = C.pack_fight(rs, hero)
        for name, card in cards:
            mons = np.array(card[L.CD_MON:L.CD_MON + card[L.CD_N_MON]], dtype=np.int64)
            for pol_name, pid in pids.items():
                won = np.zeros(fights, dtype=np.int8)
                lost = np.zeros(fights, dtype=np.int64)
                turns = np.zeros(fights, dtype=np.int64)
                for i in range(fights):
                    st = np.zeros(160, dtype=np.int64)
                    C.hero_start(fx, st)
                    dice = C.FightDice(rng.stream(seed, i), np.array([], dtype=np.int64),
                                       np.zeros((1, 8), dtype=np.int64))
                    pol = C.ScriptPol(pid, params, fx, np.array([], dtype=np.int64),
                                      np.zeros((400, 2), dtype=np.int64), np.zeros(2, dtype=np.int64))
                    res = C.play_fight(fx, st, mons, len(mons), np.zeros((L.MAX_OPTIONS, 2), dtype=np.int64),
                                       dice, pol)
                    won[i] = res == L.FIGHT_WON
                    lost[i] = st[L.S_TAKEN]
                    turns[i] = st[L.S_FIGHT_TURN]
                k = int(won.sum())
                lo, hi = stats.wilson(k, fights)
                m, mlo, mhi = stats.mean_ci(lost)
                rows.append({"hero": hero, "card": name, "monsters": " + ".join(rs.monster_names[j] for j in mons),
                             "policy": pol_name, "fights": fights, "won": k, "win_rate": k / fights, "lo": lo,
                             "hi": hi, "hp_lost": m, "hp_lost_lo": mlo, "hp_lost_hi": mhi,
                             "fight_turns": float(turns.mean()), "_wins": won})
                print(f"{hero:10s} {name:14s} {pol_name:15s} {pct(k / fights):>6s} % [{pct(lo)}, {pct(hi)}] "
                      f"HP lost {m:.2f}", flush=True)
    df = pd.DataFrame(rows)
    gaps = []
    for (hero, card), g in df.groupby(["hero", "card"], sort=False):
        a = g[g.policy == "greedy"].iloc[0]
        b = g[g.policy == "optimal_reroll"].iloc[0]
        d = stats.paired_rate_diff(a["_wins"], b["_wins"])
        gaps.append({"hero": hero, "card": card, "gap": d["diff"], "gap_lo": d["lo"], "gap_hi": d["hi"],
                     "p_value": d["p_value"]})
    gdf = pd.DataFrame(gaps)
    gdf["p_holm"] = stats.adjust_pvalues(gdf["p_value"].to_numpy(), "holm")
    df = df.drop(columns="_wins").merge(gdf, on=["hero", "card"])
    return df


def fight_markdown(df: pd.DataFrame, hp: dict[str, int]) -> str:
    cards = list(dict.fromkeys(df["card"]))
    heroes = list(dict.fromkeys(df["hero"]))
    out = ["Single fights at full HP (the hero's HP in brackets), a fresh fight against the card's monsters: under "
           "optimal_reroll the share won [95 % Wilson] and the mean HP lost (a lost fight counts every HP lost, "
           "overkill included); greedy: its difference in points of win rate (paired on the same fights, * = Holm "
           "p < 0.05 over the table) and its mean HP lost", "",
           "| hero | " + " | ".join(f"{c} ({df[df.card == c].monsters.iloc[0]})" for c in cards) + " |",
           "|---" * (len(cards) + 1) + "|"]
    for h in heroes:
        cells = []
        for c in cards:
            r = df[(df.hero == h) & (df.card == c) & (df.policy == "optimal_reroll")].iloc[0]
            g = df[(df.hero == h) & (df.card == c) & (df.policy == "greedy")].iloc[0]
            star = "*" if r.p_holm < 0.05 else ""
            cells.append(f"{pct(r.win_rate)} % [{pct(r.lo)}, {pct(r.hi)}], {r.hp_lost:.1f} HP lost; greedy "
                         f"{100 * (g.win_rate - r.win_rate):+.1f}{star}, {g.hp_lost:.1f} HP lost")
        out.append(f"| {h} ({hp[h]}) | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------------- deck --
MIX_KEYS = ("deck.rat_den.count", "deck.spider_nest.count", "deck.goblin_camp.count", "deck.crypt.count",
            "deck.spike_trap.count", "deck.fountain.count")


def mix_of(params: dict) -> tuple[int, int, int]:
    monsters = sum(int(params[k]) for k in MIX_KEYS[:4])
    return monsters, int(params[MIX_KEYS[4]]), int(params[MIX_KEYS[5]])


def deck_mix(folder: Path, shipped: tuple[int, int, int] = (9, 3, 2)) -> pd.DataFrame:
    cells = cells_of(folder)
    rows = []
    base = {c["params"]["hero"]: c for c in cells if mix_of(c["params"]) == shipped}
    for c in cells:
        h = c["params"]["hero"]
        m, t, f = mix_of(c["params"])
        s = c["summary"]["win"]
        row = {"hero": h, "monster_cards": m, "trap_cards": t, "fountain_cards": f, "games": c["games"],
               "win_rate": s["rate"], "lo": s["lo"], "hi": s["hi"]}
        row |= dict(zip(("turns", "turns_lo", "turns_hi"), mean_of(c, "turns")))
        if (m, t, f) != shipped:
            p = paired(base[h], c)
            row |= {"vs_shipped": p["diff"], "vs_lo": p["lo"], "vs_hi": p["hi"], "p_value": p["p_value"]}
        rows.append(row)
    df = pd.DataFrame(rows)
    has = df["p_value"].notna()
    df.loc[has, "p_holm"] = stats.adjust_pvalues(df.loc[has, "p_value"].to_numpy(), "holm")
    return df


def mix_markdown(df: pd.DataFrame) -> str:
    heroes = list(dict.fromkeys(df["hero"]))
    mixes = list(dict.fromkeys(zip(df.monster_cards, df.trap_cards, df.fountain_cards)))
    out = ["Win rate [95 % Wilson] per deck mix (monster / trap / fountain cards of the 14 the mix trades; the other "
           "8 cards and the deck size, 22, fixed) and the paired difference to the shipped mix 9 / 3 / 2 in points "
           "(* = Holm p < 0.05 over every mix x hero)", "",
           "| monster / trap / fountain | " + " | ".join(heroes) + " |", "|---" * (len(heroes) + 1) + "|"]
    for mx in mixes:
        cells = []
        for h in heroes:
            r = df[(df.hero == h) & (df.monster_cards == mx[0]) & (df.trap_cards == mx[1])
                   & (df.fountain_cards == mx[2])].iloc[0]
            vs = "" if pd.isna(r.get("p_value")) else (f"; {100 * r.vs_shipped:+.1f} [{100 * r.vs_lo:+.1f}, "
                                                       f"{100 * r.vs_hi:+.1f}]{'*' if r.p_holm < 0.05 else ''}")
            cells.append(f"{pct(r.win_rate)} % [{pct(r.lo)}, {pct(r.hi)}]{vs}")
        out.append(f"| {mx[0]} / {mx[1]} / {mx[2]} | " + " | ".join(cells) + " |")
    # a straight-line fit per hero: points of win rate per card moved, with a paired-free OLS interval (descriptive)
    out += ["", "Least-squares slope per hero (points of win rate per card; descriptive, over the mixes):", ""]
    for h in heroes:
        d = df[df.hero == h]
        X = np.column_stack([np.ones(len(d)), d.trap_cards - 3, d.fountain_cards - 2])  # monsters = 14 - t - f
        beta, *_ = np.linalg.lstsq(X, 100 * d.win_rate.to_numpy(), rcond=None)
        out.append(f"- {h}: a monster card traded for a trap card {beta[1]:+.2f} points, for a fountain card "
                   f"{beta[2]:+.2f} points")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("heroes", "deck"))
    ap.add_argument("--results", default="results")
    ap.add_argument("--fights", type=int, default=4000, help="fights per hero, card and policy (heroes)")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--no-fights", action="store_true")
    args = ap.parse_args()
    root = Path(args.results)
    meta = {"game": "rooms", "version": __version__, "git_commit": git_commit(),
            "command": shlex.join(["python", "experiments/rooms_studies.py", *sys.argv[1:]])}
    if args.what == "heroes":
        folder = root / "rooms_heroes"
        df = hero_gaps(folder)
        write_frame(df, folder / "gap.csv")
        text = ("Paired gap per hero (the same games under both policies; Newcombe's interval, exact McNemar, Holm "
                "over the four heroes)\n\n" + gap_markdown(df))
        if not args.no_fights:
            from foury_sim.games.rooms import layout as L
            from foury_sim.games.rooms.ruleset import load_ruleset

            rs = load_ruleset()
            fights = fight_table(args.fights, args.seed)
            write_frame(fights, folder / "fights.csv")
            hp = {h: int(rs.dice_rules.heroes[h].row[L.H_HP]) for h in rs.hero_names}
            text += "\n" + fight_markdown(fights, hp)
        atomic_write(folder / "gap.md", text)
        atomic_write(folder / "gap_manifest.json", json.dumps(to_jsonable(meta | {
            "fights": None if args.no_fights else args.fights, "fight_seed": args.seed,
            "test": "paired per hero from the sweep's win bits: Newcombe interval, exact McNemar, Holm over heroes; "
                    "fights: Wilson intervals, paired greedy vs optimal, Holm over hero x card"}), indent=2))
        print(text)
    else:
        folder = root / "rooms_deck_mix"
        df = deck_mix(folder)
        write_frame(df, folder / "mix.csv")
        text = mix_markdown(df)
        atomic_write(folder / "mix.md", text)
        atomic_write(folder / "mix_manifest.json", json.dumps(to_jsonable(meta | {
            "test": "paired against the shipped mix per hero from the sweep's win bits: Newcombe interval, exact "
                    "McNemar, Holm over every mix x hero"}), indent=2))
        print(text)


if __name__ == "__main__":
    main()
