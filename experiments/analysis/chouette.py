"""Summaries of a chouette session, from its rows alone (``bgsim.schema.CHOUETTE_COLUMNS``).

Points per game, per player and per seat (box, captain, team), each with a 95% interval by
**batch means**: the games, in session order, are cut into batches of consecutive games; each
batch's mean is one observation, and the interval is Student's t over the batch means.

Why batch means.  A session's games are not independent draws for a player: the seats rotate
by results (a box that wins keeps the box, so a player's seats, and with them its results, run
in streaks), and the rows of one game are tied together (every member shares the same checkers,
the box pays what the team wins).  A batch of many consecutive games holds the streaks inside
it, so batch means are close to independent where single games are not; and the values are
taken per game before batching (a player's points in the game; for the team seat, the mean of
the team members' points in that game), so the correlation inside a game never counts as
independent evidence.  Batch means need no random resampling (a block bootstrap would), so
the same rows always give the same interval, and they can be gathered batch by batch in
bounded memory while the games stream to disk.

The batches: ``2**j`` consecutive games each, ``2**j`` the smallest size that makes at most
:data:`MAX_BATCHES` batches of the session's games (the last one may be short; its mean is
weighted by its games).  With 32 games or fewer every game is a batch of its own, and the
interval is then the plain one over games, which does not allow for streaks: read short
sessions with that in mind.  The variance of the mean is ``k/(k-1) * sum((n_j/N)**2 *
(m_j - m)**2)`` over the k batches (n_j games, mean m_j; m the mean of all N games), which is
``s**2 / k`` of the batch means when the batches are equal; the half-width is the t quantile
with k - 1 degrees of freedom times its square root.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bgsim.schema import CHOUETTE_SEAT_CODES
from experiments.analysis.summary import _fmt_ci, markdown_table

MAX_BATCHES = 32
# Student's t, two-sided 95% (the 0.975 quantile), for 1..31 degrees of freedom.
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042, 2.040)


class BatchMeans:
    """Per-game values of several units (columns), added in game order, kept as sums over
    batches of ``size`` consecutive games; never more than :data:`MAX_BATCHES` batches."""

    def __init__(self, units: int) -> None:
        self.size = 1
        self.games = 0
        self.sums = np.zeros((MAX_BATCHES, units))
        self.counts = np.zeros(MAX_BATCHES, dtype=np.int64)

    def add(self, values) -> None:
        """``values``: one row per game, in game order, one column per unit."""
        values = np.asarray(values, dtype=np.float64)
        while len(values):
            batch = self.games // self.size
            if batch == MAX_BATCHES:  # all full: pairs merge and batches double in size
                self.sums[:MAX_BATCHES // 2] = self.sums[0::2] + self.sums[1::2]
                self.sums[MAX_BATCHES // 2:] = 0
                self.counts[:MAX_BATCHES // 2] = self.counts[0::2] + self.counts[1::2]
                self.counts[MAX_BATCHES // 2:] = 0
                self.size *= 2
                continue
            take = min(len(values), (batch + 1) * self.size - self.games)
            self.sums[batch] += values[:take].sum(axis=0)
            self.counts[batch] += take
            self.games += take
            values = values[take:]

    def intervals(self) -> tuple[np.ndarray, np.ndarray, int]:
        """Each unit's mean per game, the half-width of its 95% interval (NaN with fewer than
        two batches), and the number of batches."""
        used = self.counts > 0
        counts, sums = self.counts[used], self.sums[used]
        batches = len(counts)
        if not batches:
            nan = np.full(self.sums.shape[1], math.nan)
            return nan, nan.copy(), 0
        mean = sums.sum(axis=0) / self.games
        if batches < 2:
            return mean, np.full_like(mean, math.nan), batches
        batch_means = sums / counts[:, None]
        weights = (counts / self.games)[:, None]
        variance = batches / (batches - 1) * (weights ** 2 * (batch_means - mean) ** 2).sum(axis=0)
        return mean, T975[batches - 2] * np.sqrt(variance), batches


SEAT_UNITS = CHOUETTE_SEAT_CODES  # box, captain, team (the team: per member, the mean in each game)
COUNTED = ("dropped", "doubles_offered", "doubles_accepted", "doubles_received", "doubles_taken",
           "beavers", "doubles_blocked")


class ChouetteTally:
    """What :func:`summarize_chouette` reports, gathered from frames of whole games in session
    order, so that a long session needs no frame of all its rows."""

    def __init__(self) -> None:
        self.specs: list[str] = []
        self.players: BatchMeans | None = None
        self.seats = BatchMeans(len(SEAT_UNITS))
        self.counts: np.ndarray | None = None  # players x (games per seat, then COUNTED)
        self.rows = 0
        self.last_game: int | None = None
        self.unbalanced = 0  # games whose points do not sum to zero (there should be none)

    def add(self, frame: pd.DataFrame) -> None:
        if frame.empty:
            return
        frame = frame.sort_values(["game", "place"], kind="mergesort")
        games = frame["game"].to_numpy()
        if self.last_game is not None and games[0] <= self.last_game:
            raise ValueError("a chouette tally takes the games in session order, each once")
        players = int(frame["players"].iloc[0])
        if self.players is None:
            self.specs = [""] * players
            self.players = BatchMeans(players)
            self.counts = np.zeros((players, len(SEAT_UNITS) + len(COUNTED)), dtype=np.int64)
        numbers = np.unique(games)
        if len(frame) != len(numbers) * players:
            raise ValueError(f"a chouette of {players} players has {players} rows a game: "
                             f"got {len(frame)} rows for {len(numbers)} games")
        player = frame["player"].to_numpy(dtype=np.int64)
        points = frame["points"].to_numpy(dtype=np.float64).reshape(len(numbers), players)
        by_player = np.zeros((len(numbers), players))
        by_player[np.arange(len(numbers)).repeat(players), player] = points.ravel()
        self.players.add(by_player)
        team = points[:, 2:].mean(axis=1)
        self.seats.add(np.column_stack([points[:, 0], points[:, 1], team]))
        self.unbalanced += int((points.sum(axis=1) != 0).sum())
        seat = frame["seat"].cat.codes.to_numpy()
        for index, _ in enumerate(SEAT_UNITS):
            np.add.at(self.counts[:, index], player[seat == index], 1)
        for index, column in enumerate(COUNTED, start=len(SEAT_UNITS)):
            np.add.at(self.counts[:, index], player, frame[column].to_numpy(dtype=np.int64))
        for number, spec in zip(player[:players], frame["spec"].iloc[:players]):
            self.specs[number] = spec
        self.rows += len(frame)
        self.last_game = int(games[-1])

    @property
    def games(self) -> int:
        return self.seats.games

    def summary(self) -> dict:
        """``players``: a table with one row per player; ``seats``: one per seat; and the
        number of games, of batches and of games in a batch."""
        seat_mean, seat_half, batches = self.seats.intervals()
        seats = pd.DataFrame({"seat": list(SEAT_UNITS), "ppg": seat_mean, "ppg_ci": seat_half})
        players = pd.DataFrame(columns=["player", "spec", "games", "ppg", "ppg_ci"])
        if self.players is not None:
            mean, half, _ = self.players.intervals()
            games = max(self.games, 1)
            players = pd.DataFrame({"player": range(len(self.specs)), "spec": self.specs,
                                    "games": self.games, "ppg": mean, "ppg_ci": half})
            for index, seat in enumerate(SEAT_UNITS):
                players[f"{seat}_share"] = self.counts[:, index] / games
            for index, column in enumerate(COUNTED, start=len(SEAT_UNITS)):
                players[f"{column}_per_game"] = self.counts[:, index] / games
        return {"games": self.games, "batches": batches, "batch_size": self.seats.size,
                "players": players, "seats": seats, "unbalanced_games": self.unbalanced}


def summarize_chouette(frame: pd.DataFrame) -> dict:
    """The summary of a session's rows (see :class:`ChouetteTally`)."""
    tally = ChouetteTally()
    tally.add(frame)
    return tally.summary()


def format_chouette_summary(summary: dict, chouette_cubes: str, gap: str = "\n") -> str:
    """Tables for the terminal: per player, per seat (``gap="\n\n"``: blank lines between the
    parts, as Markdown wants them)."""
    games, batches = summary["games"], summary["batches"]
    if not games:
        return "no games played"
    size = summary["batch_size"]
    method = (f"batch means over {batches} batches of {size} consecutive games" if size > 1
              else f"one game a batch ({batches} games: too few to allow for streaks)")
    lines = [f"{games} games of a {len(summary['players'])}-player chouette, {chouette_cubes} cubes; "
             f"points per game with a 95% interval by {method}"]
    headers = ["player", "spec", "points/game (95% CI)", "box", "captain", "team", "doubles/game",
               "blocked/game", "takes/game", "drops/game"]
    rows = []
    for row in summary["players"].itertuples(index=False):
        rows.append([str(row.player), row.spec, _fmt_ci(row.ppg, row.ppg_ci),
                     f"{100 * row.box_share:.0f}%", f"{100 * row.captain_share:.0f}%",
                     f"{100 * row.team_share:.0f}%", f"{row.doubles_offered_per_game:.3f}",
                     f"{row.doubles_blocked_per_game:.3f}", f"{row.doubles_taken_per_game:.3f}",
                     f"{row.dropped_per_game:.3f}"])
    lines.append(markdown_table(headers, rows, "rl" + "r" * (len(headers) - 2)))
    seat_rows = [[row.seat + (" (per member)" if row.seat == "team" else ""), _fmt_ci(row.ppg, row.ppg_ci)]
                 for row in summary["seats"].itertuples(index=False)]
    lines.append(markdown_table(["seat", "points/game (95% CI)"], seat_rows, "lr"))
    if summary["unbalanced_games"]:
        lines.append(f"warning: {summary['unbalanced_games']} games whose points do not sum to zero")
    return gap.join(lines)
