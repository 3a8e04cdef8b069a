"""How wrong bgsim's estimates are where hypergammon's solution knows the truth.

Two estimates, each on positions sampled from games of the variant (``sample``: the cube audit's
sampling, :func:`experiments.studies.cube_charge.sample_positions`), contact and races apart:

* **the Janowski cube** (:func:`janowski_errors`): the cubeful money equities Janowski's formulas
  give (:func:`bots.gnubg_bots.janowski_equities`: no double with the cube centred and owned,
  double/take) against the exact ones, on two sets of cubeless chances: the ``nn`` net's, which
  the ``nn`` cube plays on with its cube life 0.68, and the exact chances, which leave the
  formulas alone to blame, at every cube life of a grid.  Per position and cube life: each
  equity's error, and what the formulas' decisions (double, redouble, take) give up against the
  exact equities (:func:`experiments.studies.cube_charge.double_verdict` and ``take_verdict``,
  the audit's charge).  The cube life that fits the exact equities best is read from the grid,
  with a 95% interval from resampling the sampling games (:func:`best_life`).
* **rollouts** (:func:`rollout_coverage`): ``bgsim.rollout`` of each position, the side's
  cubeless equity and chance to win with their 95% intervals (mean ± 1.96 standard errors), and
  whether each interval holds the exact value.  A rollout by perfect cubeless play (the ``exact``
  checker bot, whose cube is dead in a rollout) estimates the exact values themselves, so its
  intervals should hold them 95% of the time; ``nn``'s estimate its own play's, and miss by its
  bias too.

Every interval takes the sampling game as the unit, as the audit does
(:func:`experiments.studies.cube_charge.clustered`).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import pandas as pd

from bgsim.board import Position

from .cube_charge import ANY, Z95, clustered, double_verdict, kind_of, sample_positions, take_verdict

LIVES = tuple(round(0.05 * k, 2) for k in range(21))  # cube lives 0 .. 1
NN_LIFE = 0.68  # the nn cube's (bots.nn.NNCube)
EQUITIES = ("no_double", "no_double_owned", "double_take")


def sample(variant: str, positions: int, seed: int, sampler: str = "nn", per_game: int = 3,
           found_more: Callable[[int], None] = lambda count: None) -> list[tuple[str, int]]:
    """``positions`` positions of ``variant`` (its position strings) with their sampling games."""
    return sample_positions(sampler, positions, seed, per_game, ANY, found_more, variant)


def _charges(exact, estimated) -> tuple[float, float, float, int]:
    """What decisions by ``estimated`` (CubeEquities) give up against ``exact``: the first
    double, the redouble and the take, each in points per unit of the cube, and how many of
    the three are wrong."""
    lost, wrong = [], 0
    for centred in (True, False):
        offered = estimated.should_double(centred)
        _, error, cost = double_verdict(exact, centred, offered)
        lost.append(cost)
        wrong += error != ""
    _, error, cost = take_verdict(exact, estimated.should_take())
    lost.append(cost)
    wrong += error != ""
    return lost[0], lost[1], lost[2], wrong


def janowski_errors(samples: list[tuple[str, int]], lives=LIVES, log: Callable[[str], None] = print) -> pd.DataFrame:
    """One row per position, estimate (``nn`` chances at the nn cube's life, or the exact chances
    at each life of ``lives``) and life: the exact equities, the estimated ones, their errors and
    the decisions' charges (module doc)."""
    from bots.exact import CubeEquities, hypergammon_equities
    from bots.gnubg_bots import janowski_equities
    from bots.nn import evaluate, shipped_net

    net = shipped_net()
    rows = []
    for index, (text, game) in enumerate(samples):
        position = Position.from_string(text)
        exact = hypergammon_equities(position)
        common = {"position_index": index, "position_id": text, "game": game, "kind": kind_of(position),
                  "pips": position.pip_count, "win": exact.probabilities[0],
                  "exact_no_double": exact.centred, "exact_no_double_owned": exact.owned,
                  "exact_double_take": exact.double_take}
        estimates = [("nn", NN_LIFE, tuple(float(p) for p in evaluate(net, position.as_standard())))]
        estimates += [("exact chances", life, exact.probabilities) for life in lives]
        for chances, life, probabilities in estimates:
            centred, owned, theirs = janowski_equities(probabilities, life)
            estimated = CubeEquities(centred, owned, 2.0 * theirs, probabilities, chances, life)
            double, redouble, take, wrong = _charges(exact, estimated)
            rows.append({**common, "chances": chances, "life": life, "no_double": centred,
                         "no_double_owned": owned, "double_take": 2.0 * theirs,
                         **{f"error_{name}": value - common[f"exact_{name}"]
                            for name, value in zip(EQUITIES, (centred, owned, 2.0 * theirs))},
                         "lost_double": double, "lost_redouble": redouble, "lost_take": take,
                         "lost": (double + redouble + take) / 3.0, "wrong": wrong / 3.0})
    frame = pd.DataFrame(rows)
    frame["game"] = frame["game"].astype("Int64")
    return frame


def _mean(values, units) -> tuple[float, float, float]:
    mean, half = clustered(values, units)
    return mean, mean - half, mean + half


def summarise_janowski(frame: pd.DataFrame) -> pd.DataFrame:
    """Per kind (contact, race, all), chances and life: the mean absolute error of each equity
    and the mean decision charge and error share per decision, each with its 95% interval."""
    from experiments.stats import nonnegative_interval

    rows = []
    for kind in ("contact", "race", "all"):
        part = frame if kind == "all" else frame[frame["kind"] == kind]
        for (chances, life), group in part.groupby(["chances", "life"], sort=False):
            units = group["game"].astype("Float64").fillna(-1.0 - group["position_index"])
            row = {"kind": kind, "chances": chances, "life": life, "positions": len(group),
                   "units": int(units.nunique())}
            for name in EQUITIES:
                mean, half = clustered(group[f"error_{name}"].abs(), units)
                low, high = nonnegative_interval(mean, half)
                row.update({f"abs_error_{name}": mean, f"abs_error_{name}_low": low, f"abs_error_{name}_high": high})
                bias, bias_half = clustered(group[f"error_{name}"], units)
                row.update({f"bias_{name}": bias, f"bias_{name}_low": bias - bias_half,
                            f"bias_{name}_high": bias + bias_half})
            mean, half = clustered(group["lost"], units)
            low, high = nonnegative_interval(mean, half)
            row.update(lost=mean, lost_low=low, lost_high=high)
            rate, rate_half = clustered(group["wrong"], units)
            row.update(wrong=rate, wrong_low=max(0.0, rate - rate_half), wrong_high=min(1.0, rate + rate_half))
            rows.append(row)
    return pd.DataFrame(rows)


def best_life(frame: pd.DataFrame, kind: str, measure: str = "abs_error_no_double", resamples: int = 400,
              seed: int = 1) -> dict:
    """The cube life of the grid at which Janowski's formulas on the exact chances fit the exact
    equities best in positions of ``kind`` (``measure``: the mean absolute error of the centred
    no-double equity, or ``lost``, the decisions' charge), with a 95% interval from resampling the
    sampling games (the percentile interval of the best life over ``resamples`` resamples)."""
    part = frame[(frame["chances"] == "exact chances") & ((frame["kind"] == kind) if kind != "all" else True)]
    column = "lost" if measure == "lost" else f"error_{measure.removeprefix('abs_error_')}"
    values = part[column].abs() if measure != "lost" else part[column]
    table = pd.DataFrame({"unit": part["game"].astype("Float64").fillna(-1.0 - part["position_index"]).to_numpy(),
                          "life": part["life"].to_numpy(), "value": values.to_numpy()})
    sums = table.pivot_table(index="unit", columns="life", values="value", aggfunc="sum")
    counts = table.pivot_table(index="unit", columns="life", values="value", aggfunc="count")
    lives = sums.columns.to_numpy(dtype=float)
    best = float(lives[np.argmin(sums.sum().to_numpy() / counts.sum().to_numpy())])
    rng = np.random.default_rng(seed)
    draws = []
    s, c = sums.to_numpy(), counts.to_numpy()
    for _ in range(resamples):
        chosen = rng.integers(0, len(s), size=len(s))
        draws.append(lives[np.argmin(s[chosen].sum(axis=0) / c[chosen].sum(axis=0))])
    return {"kind": kind, "measure": measure, "best_life": best, "low": float(np.percentile(draws, 2.5)),
            "high": float(np.percentile(draws, 97.5)), "units": int(len(s)), "resamples": resamples}


def rollout_coverage(samples: list[tuple[str, int]], player: str, games: int, seed: int = 1,
                     threads: int | None = None, progress: Callable[[int], None] = lambda count: None) -> pd.DataFrame:
    """One row per position: the exact cubeless equity and chance to win, ``player``'s rollout of
    ``games`` trials (seed ``seed + index``) with its standard errors, and whether each 95%
    interval holds the exact value."""
    from bgsim.hypergammon import evaluate
    from bgsim.rollout import rollout
    from bots import make_player
    from bots.registry import BotPlayer

    bot = BotPlayer(make_player(player).checker)
    rows = []
    for index, (text, game) in enumerate(samples):
        position = Position.from_string(text)
        truth = evaluate(position)
        found = rollout(position, bot, games, seed + index, threads=threads)
        row = {"position_index": index, "position_id": text, "game": game, "kind": kind_of(position),
               "player": player, "games": found.games, "exact_equity": truth.equity,
               "exact_win": truth.probabilities[0], "equity": found.equity, "equity_se": found.se["equity"],
               "win": found.probabilities["win"], "win_se": found.se["win"]}
        for name, exact in (("equity", truth.equity), ("win", truth.probabilities[0])):
            half = Z95 * row[f"{name}_se"]
            row[f"{name}_covered"] = bool(abs(row[name] - exact) <= half) if half == half else False
            row[f"{name}_z"] = (row[name] - exact) / row[f"{name}_se"] if row[f"{name}_se"] > 0 else math.nan
        rows.append(row)
        progress(1)
    frame = pd.DataFrame(rows)
    frame["game"] = frame["game"].astype("Int64")
    return frame


def summarise_coverage(frame: pd.DataFrame) -> pd.DataFrame:
    """Per player and kind: the share of 95% intervals that hold the exact equity (and the exact
    chance to win), with Wilson's interval over the positions (each position is rolled out
    apart, so the positions are the units), the mean error and the spread of the z-scores."""
    from experiments.stats import proportion_interval

    rows = []
    for (player, kind), group in pd.concat([frame, frame.assign(kind="all")]).groupby(["player", "kind"], sort=False):
        row = {"player": player, "kind": kind, "positions": len(group), "games": int(group["games"].iloc[0])}
        for name in ("equity", "win"):
            share = float(group[f"{name}_covered"].mean())
            half = Z95 * math.sqrt(share * (1 - share) / len(group)) if len(group) else math.nan
            low, high = proportion_interval(share, half, len(group))
            error = group[name] - group[f"exact_{name}"]
            row.update({f"{name}_coverage": share, f"{name}_coverage_low": low, f"{name}_coverage_high": high,
                        f"{name}_mean_error": float(error.mean()),
                        f"{name}_mean_error_half": float(Z95 * error.std(ddof=1) / math.sqrt(len(group)))
                        if len(group) > 1 else math.nan,
                        f"{name}_z_sd": float(group[f"{name}_z"].std(ddof=1)) if len(group) > 1 else math.nan})
        rows.append(row)
    return pd.DataFrame(rows)


def _interval(mean: float, low: float, high: float, scale: float = 1000.0, digits: int = 1) -> str:
    return f"{scale * mean:.{digits}f} ({scale * low:.{digits}f} .. {scale * high:.{digits}f})"


def janowski_markdown(summary: pd.DataFrame, lives: pd.DataFrame) -> list[str]:
    """summary.md's section on the Janowski cube against the exact equities."""
    lines = ["## The Janowski cube against the exact equities", "",
             "Janowski's formulas (`bots.gnubg_bots.janowski_equities`) on the `nn` net's cubeless chances at "
             f"the `nn` cube's life {NN_LIFE} (what the `nn` cube plays), and on the exact chances at every cube "
             "life of a grid (the formulas alone to blame).  Mean absolute error of the no-double equity (cube "
             "centred, and owned) and of double/take against the exact ones, and what the formulas' three "
             "decisions (double, redouble, take) give up a decision, in thousandths of a point, 95% intervals "
             "over sampling games:", "",
             "| positions | chances | cube life | positions | no double | no double (owned) | double/take | "
             "lost a decision | wrong decisions |", "|---|---|---:|---:|---|---|---|---|---|"]
    for row in summary.itertuples(index=False):
        if row.chances == "exact chances" and row.life not in (0.0, 0.5, NN_LIFE, 0.7, 1.0):
            life = lives[(lives["kind"] == row.kind) & (lives["measure"] == "lost")]
            if life.empty or row.life != life["best_life"].iloc[0]:
                continue
        lines.append(f"| {row.kind} | {row.chances} | {row.life:g} | {row.positions:,} | "
                     f"{_interval(row.abs_error_no_double, row.abs_error_no_double_low, row.abs_error_no_double_high)} | "
                     f"{_interval(row.abs_error_no_double_owned, row.abs_error_no_double_owned_low, row.abs_error_no_double_owned_high)} | "
                     f"{_interval(row.abs_error_double_take, row.abs_error_double_take_low, row.abs_error_double_take_high)} | "
                     f"{_interval(row.lost, row.lost_low, row.lost_high)} | "
                     f"{100 * row.wrong:.1f}% ({100 * row.wrong_low:.1f} .. {100 * row.wrong_high:.1f}) |")
    lines += ["", "The cube life at which the formulas on the exact chances fit best (95% interval from "
              "resampling the sampling games):", ""]
    for row in lives.itertuples(index=False):
        what = ("the smallest mean absolute error of the centred no-double equity" if row.measure != "lost"
                else "the least equity lost by their decisions")
        lines.append(f"- {row.kind}: {what} at {row.best_life:g} ({row.low:g} .. {row.high:g}; {row.units:,} games)")
    return lines + [""]


def coverage_markdown(covered: pd.DataFrame) -> list[str]:
    """summary.md's section on the rollouts' intervals against the exact chances."""
    lines = ["## Rollouts against the exact chances", "",
             "`bgsim rollout` of contact positions of the sample (cubeless; stratified first two rolls, mirrored "
             "pairs), each with its 95% interval (mean ± 1.96 standard errors) of the cubeless equity and of the "
             "chance to win; the share of intervals that hold the exact value, with Wilson's interval over the "
             "positions.  `exact` plays perfect cubeless checker play (its rollout estimates the exact values "
             "themselves); `nn` its own play (its intervals miss by its bias too):", "",
             "| player | positions | rolled out | trials | equity: covered | mean error (1/1000) | sd of z | "
             "win: covered | sd of z |", "|---|---|---:|---:|---|---|---:|---|---:|"]
    for row in covered.itertuples(index=False):
        lines.append(f"| {row.player} | {row.kind} | {row.positions:,} | {row.games:,} | "
                     f"{100 * row.equity_coverage:.1f}% ({100 * row.equity_coverage_low:.1f} .. "
                     f"{100 * row.equity_coverage_high:.1f}) | {1000 * row.equity_mean_error:+.1f} ± "
                     f"{1000 * row.equity_mean_error_half:.1f} | {row.equity_z_sd:.2f} | "
                     f"{100 * row.win_coverage:.1f}% ({100 * row.win_coverage_low:.1f} .. "
                     f"{100 * row.win_coverage_high:.1f}) | {row.win_z_sd:.2f} |")
    return lines + [""]
