"""Bots judged by GNU Backgammon: its analysis of their games, as error rates per player.

The games are exported as SGF (the rules ride in the file: a ``.mat`` file would be read under
gnubg's own Jacoby setting), analysed by the program at a chosen ply, and gnubg's statistics of
each game are read back: for each player its unforced moves and checker-play error, its close or
actual cube decisions and cube error, in EMG (equivalent money game, per unit cube).

A player's error rate is GNU Backgammon's: the error summed over its games divided by its
decisions summed over them, in mEMG (thousandths of EMG) per decision; checker play per unforced
move, the cube per close or actual cube decision, overall per both.  The 95% interval treats
games as the unit (a ratio estimate: the spread of ``error - rate * decisions`` over games), formed
on the log scale so that it never goes below zero (``experiments.stats.nonnegative_interval``).
The rating words are gnubg's for that rate (``arThrsRating`` of its analysis.c: below 2 mEMG
Supernatural, 5 World class, 8 Expert, 12 Advanced, 18 Intermediate, 26 Casual player,
35 Beginner, else Awful!).
"""

from __future__ import annotations

import math
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from .game_export import Group, Source, replay_group, write_record
from .gnubg_program import analyse_games
from experiments.analysis.summary import markdown_table
from experiments.stats import Z95, nonnegative_interval

# gnubg's rating thresholds, in EMG per decision (analysis.c), best first
RATINGS = ((0.002, "Supernatural"), (0.005, "World class"), (0.008, "Expert"), (0.012, "Advanced"),
           (0.018, "Intermediate"), (0.026, "Casual player"), (0.035, "Beginner"))
KINDS = ("checker", "cube", "overall")
GAME_COLUMNS = ("group", "game", "player", "side", "unforced_moves", "checker_error", "cube_decisions",
                "cube_error", "checker_rating", "cube_rating")


def rating(rate_memg: float) -> str:
    """gnubg's words for an error rate in mEMG per decision."""
    if rate_memg != rate_memg:
        return "n/a"
    for threshold, words in RATINGS:
        if rate_memg / 1000.0 < threshold:
            return words
    return "Awful!"


def ratio_interval(errors, decisions, z: float = Z95) -> tuple[float, float]:
    """The rate sum(errors) / sum(decisions) and its interval half-width over the games that have
    decisions (NaN with fewer than two such games, or no decisions: one game's rate alone has
    no spread to measure, and games without decisions say nothing of it)."""
    errors = np.asarray(errors, dtype=np.float64)
    decisions = np.asarray(decisions, dtype=np.float64)
    some = decisions > 0
    errors, decisions = errors[some], decisions[some]
    total = decisions.sum()
    if total <= 0:
        return math.nan, math.nan
    rate = errors.sum() / total
    games = len(errors)
    if games < 2:
        return rate, math.nan
    residual = errors - rate * decisions
    spread = math.sqrt(float((residual ** 2).sum()) / (games - 1) / games)
    return rate, z * spread / (total / games)


@dataclass
class Analysis:
    games: pd.DataFrame  # one row per game and player (GAME_COLUMNS)
    summary: pd.DataFrame  # one row per player
    plies: int
    seconds: float
    gnubg_games: int


# seconds gnubg took a game in the committed analyses (results/analyse/: 0.63 s at 0-ply, 29 s at
# 2-ply), the others in proportion to its evaluations: the estimate said before the first batch
SECONDS_PER_GAME = {0: 0.6, 1: 3.0, 2: 30.0, 3: 300.0, 4: 3000.0}
BATCH_GAMES = 8  # a money session's games go to gnubg so many at a time, each batch a step of the bar


def rough_seconds(games: int, plies: int) -> float:
    """How long gnubg's analysis of ``games`` games at ``plies`` takes at the committed pace."""
    return games * SECONDS_PER_GAME[plies]


def _batches(matches, numbers):
    """The records gnubg analyses, a money session cut into batches of BATCH_GAMES games (each
    game's number kept, so its label is found again), a match whole."""
    from dataclasses import replace

    for match, its in zip(matches, numbers):
        if match.match_to or len(match.games) <= BATCH_GAMES:
            yield match, its
            continue
        for first in range(0, len(match.games), BATCH_GAMES):
            yield replace(match, games=match.games[first:first + BATCH_GAMES]), its


def check_analysable(groups: list[Group]) -> None:
    """A ValueError for games gnubg's analysis here cannot take."""
    for group in groups:
        if group.rules.variant.startswith("hypergammon"):
            raise ValueError(f"{group.label}: {group.rules.variant} games cannot be analysed here: GNU "
                             "Backgammon's package ships no hypergammon databases, and its analysis would "
                             "build them first (a GB of memory and more); bgsim export writes them for it")


def analyse_groups(groups: list[Group], source: Source, plies: int = 0, make_player: Callable | None = None,
                   threads: int | None = None, log=None,
                   done: Callable[[int], None] = lambda games: None) -> tuple[Analysis, list[str]]:
    """Export each group's games as SGF, have gnubg analyse them, and read back each game's
    statistics; the per-player summary and the replay's differences from the stored rows.
    ``done(k)`` is told as each batch of k games is analysed (the progress bar)."""
    log = log or (lambda text: None)
    check_analysable(groups)
    rows, differences = [], []
    seconds, analysed = 0.0, 0
    with tempfile.TemporaryDirectory(prefix="bgsim-analyse-") as folder:
        for index, group in enumerate(groups):
            replayed = replay_group(group, source, make_player)
            differences.extend(replayed.differences)
            for number, (match, numbers) in enumerate(_batches(replayed.matches, replayed.numbers)):
                path = Path(folder) / f"group{index}-{number}.sgf"
                path.write_text(write_record(match, "sgf"), encoding="utf-8")
                log(f"gnubg analyses {len(match.games)} games at {plies}-ply: {group.label}")
                started = time.perf_counter()
                per_game, _ = analyse_games(path, len(match.games), plies, threads=threads)
                seconds += time.perf_counter() - started
                analysed += len(match.games)
                done(len(match.games))
                for game, stats in zip(match.games, per_game):
                    label = numbers[0] if group.match_to else numbers[game.number - 1]
                    for side, (spec, figures) in enumerate(zip((group.white, group.black), stats)):
                        rows.append({
                            "group": group.label, "game": f"{label}" + (f".{game.number}" if group.match_to else ""),
                            "player": spec, "side": ("white", "black")[side],
                            "unforced_moves": figures.unforced_moves, "checker_error": figures.checker_error,
                            "cube_decisions": figures.cube_decisions, "cube_error": figures.cube_error,
                            "checker_rating": figures.checker_rating, "cube_rating": figures.cube_rating,
                        })
    games = pd.DataFrame(rows, columns=list(GAME_COLUMNS))
    return Analysis(games, summarize(games), plies, seconds, analysed), differences


def summarize(games: pd.DataFrame) -> pd.DataFrame:
    """Per player: games, decisions, and each error rate (mEMG per decision) with its interval
    and gnubg's words for it."""
    out = []
    for player, mine in games.groupby("player", sort=True):
        row = {"player": player, "games": len(mine),
               "unforced_moves": int(mine["unforced_moves"].sum()),
               "cube_decisions": int(mine["cube_decisions"].sum())}
        parts = {
            "checker": (mine["checker_error"], mine["unforced_moves"]),
            "cube": (mine["cube_error"], mine["cube_decisions"]),
            "overall": (mine["checker_error"] + mine["cube_error"], mine["unforced_moves"] + mine["cube_decisions"]),
        }
        for kind, (errors, decisions) in parts.items():
            rate, half = ratio_interval(errors, decisions)
            low, high = nonnegative_interval(rate, half)  # an error rate: the interval stays >= 0
            row[f"{kind}_rate"] = 1000.0 * rate
            row[f"{kind}_low"] = 1000.0 * low
            row[f"{kind}_high"] = 1000.0 * high
            row[f"{kind}_rating"] = rating(1000.0 * rate)
        out.append(row)
    return pd.DataFrame(out)


def format_analysis(analysis: Analysis) -> str:
    """The per-player table, in Markdown that also reads in a terminal."""

    def cell(rate, low, high):
        if rate != rate:
            return "n/a"
        return f"{rate:.1f} ({low:.1f} .. {high:.1f})" if low == low else f"{rate:.1f} (no interval: one game)"

    headers = ["player", "games", "checker mEMG/move", "checker rating", "cube mEMG/decision",
               "cube rating", "overall mEMG", "overall rating"]
    rows = []
    for row in analysis.summary.itertuples(index=False):
        rows.append([row.player, str(row.games), cell(row.checker_rate, row.checker_low, row.checker_high),
                     row.checker_rating, cell(row.cube_rate, row.cube_low, row.cube_high), row.cube_rating,
                     cell(row.overall_rate, row.overall_low, row.overall_high), row.overall_rating])
    per_game = analysis.seconds / analysis.gnubg_games if analysis.gnubg_games else float("nan")
    return (f"GNU Backgammon's analysis at {analysis.plies}-ply of {analysis.gnubg_games} games "
            f"({analysis.seconds:.1f} s, {per_game:.2f} s per game); error rates with 95% intervals over games, "
            "checker play per unforced move, the cube per close or actual cube decision:\n\n"
            + markdown_table(headers, rows, "l" + "r" * 7))
