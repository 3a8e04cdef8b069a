"""The plots of a run, drawn from its summaries (which come from its rows) with matplotlib.

Each takes ``report``, an ``experiments.analysis.report.Report``: report.py draws the plots, so
this module does not import it back.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: a run must draw on a machine without a display

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from experiments.running.files import write_atomic  # noqa: E402


def draw_all(folder: Path, report, experiment=None) -> list[str]:
    folder = Path(folder)
    paths = [payoff_heatmap(folder / "payoff_matrix.png", report),
             standings_plot(folder / "points_per_game.png", report)]
    if report.sweep is not None and experiment is not None and experiment.grid_keys:
        paths.append(sweep_plot(folder / "payoff_vs_threshold.png", report, experiment))
    if len(report.conditions) > 1:
        paths.append(conditions_plot(folder / "conditions.png", report))
    return [str(path) for path in paths]


def _save(fig, path: Path) -> Path:
    try:
        write_atomic(path, lambda temporary: fig.savefig(temporary, format="png", dpi=110, bbox_inches="tight"),
                     sync=False)
    finally:
        plt.close(fig)
    return path


def payoff_heatmap(path: Path, report) -> Path:
    is_match = "match_wins" in report.pairings
    panels = list(report.matrices.items())
    size = len(panels[0][1])
    cols = min(len(panels), 3)
    rows = math.ceil(len(panels) / cols)
    cell = 0.55 if size > 8 else 0.8
    fig, axes = plt.subplots(rows, cols, figsize=(max(5.5, cell * size + 3) * cols, max(4.5, cell * size + 2) * rows),
                             squeeze=False)
    labels = report.labels
    for ax, (condition, matrix) in zip(axes.flat, panels):
        values = matrix.to_numpy(dtype=float)
        if is_match:  # shares: even at 50%
            low, high = 0.0, 1.0
        else:  # points: even at zero, symmetric so the colour says who wins
            finite = np.abs(values[np.isfinite(values)])
            limit = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
            low, high = -limit, limit
        image = ax.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=low, vmax=high)
        names = [labels.get(name, name) for name in matrix.columns]
        ax.set_xticks(range(size), names, rotation=60, ha="right", fontsize=8)
        ax.set_yticks(range(size), names, fontsize=8)
        if size <= 14:
            for i in range(size):
                for j in range(size):
                    if np.isfinite(values[i, j]):
                        text = f"{100 * values[i, j]:.0f}" if is_match else f"{values[i, j]:+.2f}"
                        ax.text(j, i, text, ha="center", va="center", fontsize=7 if size > 8 else 8)
        title = "match-winning share of row vs column (%)" if is_match else "row's points per game vs column"
        ax.set_title(title + (f"\n{condition}" if len(panels) > 1 else ""), fontsize=10)
        fig.colorbar(image, ax=ax, shrink=0.8)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    return _save(fig, path)


def standings_plot(path: Path, report) -> Path:
    is_match = "match_wins" in report.pairings
    key, ci = ("match_wins", "match_wins_ci") if is_match else ("ppg", "ppg_ci")
    panels = list(report.standings.items())
    size = max(len(table) for _, table in panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 0.38 * size + 1.8), squeeze=False)
    for ax, (condition, table) in zip(axes.flat, panels):
        table = table.iloc[::-1]
        labels = report.labels
        y = np.arange(len(table))
        values = table[key].to_numpy(dtype=float)
        errors = np.nan_to_num(table[ci].to_numpy(dtype=float))
        ax.errorbar(values, y, xerr=errors, fmt="o", capsize=3, color="tab:blue")
        ax.axvline(0.5 if is_match else 0.0, color="grey", linewidth=0.8)
        ax.set_yticks(y, [labels.get(name, name) for name in table["player"]], fontsize=8)
        ax.set_xlabel("share of matches won (95% CI)" if is_match else "points per game (95% CI)")
        ax.set_title(condition if len(panels) > 1 else "standings", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def sweep_plot(path: Path, report, experiment) -> Path:
    sweep = report.sweep
    x_key = experiment.grid_keys[0]
    others = list(experiment.grid_keys[1:])
    has_opp = "ppg_opponent" in sweep
    fig, axes = plt.subplots(1, 2 if has_opp else 1, figsize=(12 if has_opp else 6.5, 4.5), squeeze=False)
    series = [("ppg_field", "ppg_field_ci", "against the whole field")]
    if has_opp:
        opp = report.labels.get(experiment.opponent, experiment.opponent)
        series.append(("ppg_opponent", "ppg_opponent_ci", f"against {opp}"))
    groups = sweep.groupby(others, sort=True) if others else [((), sweep)]
    for ax, (key, ci, title) in zip(axes.flat, series):
        for group, rows in groups:
            rows = rows.sort_values(x_key)
            group = group if isinstance(group, tuple) else (group,)
            label = ", ".join(f"{k}={v}" for k, v in zip(others, group)) or None
            ax.errorbar(rows[x_key], rows[key], yerr=np.nan_to_num(rows[ci].to_numpy(dtype=float)),
                        marker="o", capsize=3, label=label)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xlabel(x_key)
        ax.set_ylabel("points per game (95% CI)")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
        if others:
            ax.legend(fontsize=8)
    return _save(fig, path)


def conditions_plot(path: Path, report) -> Path:
    table = report.conditions
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    x = np.arange(len(table))
    names = list(table["condition"])
    axes[0].bar(x, table["points_per_game"], yerr=np.nan_to_num(table["points_per_game_ci"].to_numpy(dtype=float)),
                capsize=3, color="tab:blue")
    axes[0].set_title("points changing hands per game", fontsize=10)
    axes[1].bar(x - 0.27, 100 * table["gammons"], width=0.27, label="gammons played", color="tab:orange")
    axes[1].bar(x, 100 * table["gammons_scored"], width=0.27, label="gammons scored", color="tab:brown")
    axes[1].bar(x + 0.27, 100 * table["backgammons"], width=0.27, label="backgammons", color="tab:red")
    axes[1].set_title("share of games (%)", fontsize=10)
    axes[1].legend(fontsize=7, loc="lower right", framealpha=0.9)
    axes[2].bar(x, table["mean_cube"], color="tab:green")
    axes[2].set_title("mean final cube", fontsize=10)
    for ax in axes:
        ax.set_xticks(x, names, rotation=30, ha="right", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)
