"""Summaries computed from the raw rows (one per game), never from anything else.

Every figure a run prints or writes comes from these functions applied to ``games.parquet``
(or the DataFrame an engine returned), so a summary can always be recomputed and checked.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def mean_interval(values, z: float = Z95) -> tuple[float, float]:
    """Mean and the half-width of its confidence interval (normal approximation).

    With fewer than two values the half-width is NaN: nothing can be said about the spread.
    """
    values = np.asarray(values, dtype=np.float64)
    count = len(values)
    if count == 0:
        return math.nan, math.nan
    mean = float(values.mean())
    if count < 2:
        return mean, math.nan
    return mean, float(z * values.std(ddof=1) / math.sqrt(count))


def summarize_games(frame: pd.DataFrame) -> dict:
    """White's points per game with a 95% interval and the outcome shares of ``frame``."""
    count = len(frame)
    ppg, half_width = mean_interval(frame["white_points"])
    result = frame["result"]

    def share(mask) -> float:
        return float(np.mean(mask)) if count else math.nan

    return {
        "games": count,
        "white_ppg": ppg,
        "white_ppg_ci": half_width,
        "white_wins": share(frame["winner"] == "white"),
        "gammons": share(result.isin(["gammon", "backgammon"])),
        "backgammons": share(result == "backgammon"),
        "drops": share(result == "drop"),
        "mean_cube": float(frame["cube_value"].mean()) if count else math.nan,
        "doubles_per_game": float(frame["doubles"].mean()) if count else math.nan,
        "plies_per_game": float(frame["plies"].mean()) if count else math.nan,
    }


def format_summary(summary: dict, white: str, black: str) -> str:
    """A few readable lines for the terminal."""
    def pct(value: float) -> str:
        return "n/a" if math.isnan(value) else f"{100 * value:5.1f}%"

    ci = summary["white_ppg_ci"]
    ci_text = "n/a" if math.isnan(ci) else f"{ci:.3f}"
    return "\n".join([
        f"{summary['games']} games, white {white} vs black {black}",
        f"  white points per game: {summary['white_ppg']:+.3f} ± {ci_text} (95% CI)",
        f"  white wins {pct(summary['white_wins'])}   gammons {pct(summary['gammons'])}   "
        f"backgammons {pct(summary['backgammons'])}   drops {pct(summary['drops'])}",
        f"  mean final cube {summary['mean_cube']:.2f}   doubles per game {summary['doubles_per_game']:.3f}   "
        f"plies per game {summary['plies_per_game']:.1f}",
    ])
