"""The statistics every layer counts with: a mean and its 95% interval, a match's last game.

Sequential stopping (``experiments/running/chunks.py``), every summary (``experiments/analysis/``)
and the studies use these, so they live below all of them.
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


def last_games(frame: pd.DataFrame, match: list[str]) -> pd.DataFrame:
    """The last game of each match, the columns ``match`` naming a match (e.g. ``["game"]``).

    A match's winner is the winner of its last game.
    """
    ordered = frame.sort_values([*match, "game_in_match"], kind="mergesort")
    return ordered.groupby(match, sort=False).tail(1)
