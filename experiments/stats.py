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


# Independent units below which a normal-approximation interval is rough (its coverage can be
# far from 95% for skewed values): a summary says so beside the interval.
SMALL_SAMPLE = 30


def nonnegative_interval(mean: float, half: float, z: float = Z95) -> tuple[float, float]:
    """A 95% interval for the mean of values that cannot be negative (equity lost, a loss per
    decision), from the mean and the half-width of its normal interval: formed on the log scale
    (``mean * exp(+-z*se/mean)``, the delta method), so it never goes below zero and is longer
    above the mean than below, as the spread of a skewed, non-negative quantity is.  A mean of 0
    (every value 0) gives (0, 0); an unknown half-width (fewer than two units) gives NaNs."""
    if mean != mean or half != half:
        return math.nan, math.nan
    if mean < -1e-9:
        raise ValueError(f"a mean of non-negative values cannot be {mean}")
    if mean <= 0.0:  # every value 0 (or 0 give or take rounding)
        return 0.0, 0.0
    spread = math.exp(half / mean)  # half / mean = z * se / mean: the log scale's half-width
    return mean / spread, mean * spread


def proportion_interval(share: float, half: float, units: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's 95% interval for a share (an error rate), which stays within 0..1, with the
    effective sample size of a clustered estimate: ``n = p(1-p) / se**2`` from the half-width of
    its normal interval (``se = half / z``).  Where that cannot be formed (a share of exactly 0 or
    1, whose variance is 0) the ``units`` (independent draws) stand in for ``n``."""
    if share != share or half != half or units < 1:
        return math.nan, math.nan
    se = half / z
    n = share * (1 - share) / se ** 2 if se == se and se > 0 and 0 < share < 1 else float(units)
    if n != n or n <= 0:
        return math.nan, math.nan
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    width = z / (1 + z * z / n) * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
    return max(0.0, centre - width), min(1.0, centre + width)
