"""A match equity table from a player's own games: its gammon rate, measured, fed to
:func:`bgsim.met.derive`, and the table compared with the published one.

The gammon rate is the share of games that end in a gammon or a backgammon when the player plays
itself without the cube (every game has a winner, so it is also the share of won games that are
gammons, the number :func:`bgsim.met.derive` takes).  Played by the fast engine when the player
has a fast kernel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bgsim import met
from bgsim.cube import Rules
from bgsim.series import play_games

from experiments.stats import Z95


@dataclass(frozen=True)
class GammonRate:
    player: str
    games: int
    rate: float
    half_width: float  # 95% interval, normal approximation of a share


def measure_gammon_rate(spec: str, games: int = 20_000, seed: int = 1) -> GammonRate:
    """The gammon rate of ``spec`` playing itself, cubeless, over ``games`` games."""
    from bots import make_player

    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games to measure a gammon rate: a whole number from 1, got {games!r}")
    player = make_player(spec)
    rows = play_games(player, player, seed, games, Rules(cube=False))
    rate = float(rows["result"].isin(["gammon", "backgammon"]).mean())
    half = Z95 * math.sqrt(rate * (1.0 - rate) / games)
    return GammonRate(player.name, games, rate, half)


@dataclass(frozen=True)
class TableDistance:
    largest: float  # largest absolute difference of an entry, pre-Crawford and post-Crawford
    at: tuple[int, int]  # (a, b) away of the largest pre-Crawford difference, (n, 1) post-Crawford
    mean: float  # mean absolute difference over the compared pre-Crawford entries
    size: int
    post_crawford: bool = False  # the largest difference is a post-Crawford entry


def compare(table: met.MatchEquityTable, reference: met.MatchEquityTable, size: int = 15) -> TableDistance:
    """How far ``table`` lies from ``reference`` over scores 1..``size`` away."""
    size = min(size, table.length, reference.length)
    pre = np.abs(table.pre[:size, :size] - reference.pre[:size, :size])
    post = np.abs(table.post[:size] - reference.post[:size])
    a, b = np.unravel_index(int(np.argmax(pre)), pre.shape)
    largest, at, after = float(pre[a, b]), (int(a) + 1, int(b) + 1), False
    if float(post.max()) > largest:
        largest, at, after = float(post.max()), (int(np.argmax(post)) + 1, 1), True
    return TableDistance(largest, at, float(pre.mean()), size, after)


def derived_from_player(spec: str, games: int = 20_000, seed: int = 1) -> tuple[met.MatchEquityTable, GammonRate]:
    """The derived table of ``spec``'s own gammon rate, and the measurement."""
    measured = measure_gammon_rate(spec, games, seed)
    table = met.derive(measured.rate)
    return table, measured
