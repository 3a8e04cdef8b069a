"""Many games or matches between two players, as one DataFrame with one row per game.

``play_games`` is the public entry point for both engines.  Game ``g`` of seed ``s`` is the same
game however many games run and in whatever order, because its dice depend only on (s, g).
"""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from .cube import Rules
from .decisions import Player
from .dice import check_seed
from .game import play_game
from .match import check_match_length, play_match
from .schema import columns_from_records, empty_frame, frame_from_columns

ENGINES = ("auto", "fast", "reference")


def game_numbers(games: int | range | Iterable[int]) -> list[int]:
    """``games`` as a list of game numbers: an int N means games 0..N-1."""
    if isinstance(games, bool):
        raise ValueError(f"games must be a count or a range of game numbers, got {games!r}")
    if isinstance(games, int):
        if games < 0:
            raise ValueError(f"the number of games cannot be negative, got {games}")
        return list(range(games))
    numbers = [int(g) for g in games]
    for number in numbers:
        check_seed(number, "game number")
    return numbers


def play_games_reference(
    white: Player, black: Player, seed: int, games, rules: Rules = Rules(), match_to: int = 0
) -> pd.DataFrame:
    """The reference engine: plain Python, one game after another."""
    check_seed(seed)
    numbers = game_numbers(games)
    records = []
    if match_to:
        check_match_length(match_to)
        for number in numbers:
            records.extend(play_match(white, black, seed, number, match_to, rules).games)
    else:
        records = [play_game(white, black, seed, number, rules) for number in numbers]
    if not records:
        return empty_frame()
    return frame_from_columns(columns_from_records(records), seed, white.name, black.name, rules)


def engine_for(engine: str, white: Player, black: Player) -> str:
    """The engine ``play_games`` runs for ``engine``: ``auto`` is fast when both players can run there."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: choose from {', '.join(ENGINES)}")
    if engine != "auto":
        return engine
    from . import fast

    return "fast" if fast.supports(white) and fast.supports(black) else "reference"


def play_games(
    white: Player,
    black: Player,
    seed: int,
    games,
    rules: Rules = Rules(),
    match_to: int = 0,
    engine: str = "auto",
    threads: int | None = None,
) -> pd.DataFrame:
    """Play ``games`` (a count, or game numbers) between two players; one row per game.

    With ``match_to`` > 0 each number is a whole match to that many points and every game of
    it gets a row.  ``engine`` is ``"fast"``, ``"reference"`` or ``"auto"`` (fast whenever
    both players can run there).
    """
    if engine_for(engine, white, black) == "reference":
        return play_games_reference(white, black, seed, games, rules, match_to)
    from . import fast

    return fast.play_games(white, black, seed, games, rules, match_to=match_to, threads=threads)
