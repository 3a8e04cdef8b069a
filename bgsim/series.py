"""Many games or matches between two players, as one DataFrame with one row per game.

``play_games`` is the public entry point for both engines.  Game ``g`` of seed ``s`` is the same
game however many games run and in whatever order, because its dice depend only on (s, g).

This module sits above both engines (``tests/test_imports.py``): it plays the reference engine's
games itself and loads the fast engine only when a run asks for it (``bgsim/fast_loader.py``), so
``engine="reference"`` runs where Numba cannot be imported.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .board import Position
from .cube import Rules
from . import fast_loader
from .decisions import Player, check_player, check_players  # noqa: F401 (public names)
from .dice import check_seed
from .game import check_variant_players, play_game
from .match import check_match_length, play_match
from .schema import columns_from_records, empty_frame, frame_from_columns
from .starts import OPENING, Starts, game_numbers, game_starts  # noqa: F401 (public names)
from .variants import STANDARD

ENGINES = ("auto", "fast", "reference")


def play_games_reference(
    white: Player, black: Player, seed: int, games, rules: Rules = Rules(), match_to: int = 0,
    start=None, rolls=None, mirror=False,
) -> pd.DataFrame:
    """The reference engine: plain Python, one game after another."""
    check_players(white, black)
    check_seed(seed)
    numbers = game_numbers(games)
    records = []
    if start is not None and not isinstance(start, (Position, np.ndarray)):
        start = list(start)  # read twice below
    variant_starts = _variant_starts(start, len(numbers))
    if variant_starts is not None:  # checked (and their setups made) as the standard boards they show
        starts = game_starts(len(numbers), [position.as_standard() for position in variant_starts], rolls, mirror)
    else:
        starts = game_starts(len(numbers), start, rolls, mirror)
    if start is not None:
        if match_to:
            raise ValueError("a game that starts from a position is a money game: it cannot be part of a match")
        for index, (number, board, setup) in enumerate(zip(numbers, starts.boards, starts.setups)):
            given = [(int(setup[2 + 2 * k]), int(setup[3 + 2 * k])) for k in range(int(setup[1]))]
            position = (variant_starts[index] if variant_starts is not None
                        else Position(tuple(int(v) for v in board)))
            records.append(play_game(white, black, seed, number, rules, start=position, rolls=given,
                                     mirror=bool(setup[0])))
    elif match_to:
        check_match_length(match_to)
        for number in numbers:
            records.extend(play_match(white, black, seed, number, match_to, rules).games)
    else:
        records = [play_game(white, black, seed, number, rules) for number in numbers]
    if not records:
        return empty_frame()
    return frame_from_columns(columns_from_records(records), seed, white.name, black.name, rules)


def _variant_starts(start, count: int) -> list[Position] | None:
    """One start Position per game when ``start`` holds positions of a variant, else None."""
    if isinstance(start, Position):
        return [start] * count if start.variant != STANDARD else None
    if start is None or isinstance(start, np.ndarray):
        return None
    positions = list(start)
    if not any(isinstance(position, Position) and position.variant != STANDARD for position in positions):
        return None
    return positions * count if len(positions) == 1 else positions


def engine_for(engine: str, white: Player, black: Player, rules: Rules | None = None) -> str:
    """The engine ``play_games`` runs for ``engine``: ``auto`` is fast when both players can run
    there (every variant plays in both engines; ``rules`` is kept for the callers that pass it)."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: choose from {', '.join(ENGINES)}")
    if engine != "auto":
        return engine
    fast = fast_loader.load()
    variant = rules.variant if rules is not None else STANDARD
    return "fast" if fast.supports(white, variant) and fast.supports(black, variant) else "reference"


def play_games(
    white: Player,
    black: Player,
    seed: int,
    games,
    rules: Rules = Rules(),
    match_to: int = 0,
    engine: str = "auto",
    threads: int | None = None,
    start=None,
    rolls=None,
    mirror=False,
) -> pd.DataFrame:
    """Play ``games`` (a count, or game numbers) between two players; one row per game.

    With ``match_to`` > 0 each number is a whole match to that many points and every game of
    it gets a row.  ``engine`` is ``"fast"``, ``"reference"`` or ``"auto"`` (fast whenever
    both players can run there).  ``start`` (a position from white, white on roll before its
    roll; one for all games or one per game), ``rolls`` (the first rolls, given) and ``mirror``
    (dice read as 7 - d): games from a position instead of the opening, money games only (see
    ``bgsim.game.play_game``).
    """
    check_players(white, black)
    if isinstance(rules, Rules):
        check_variant_players(white, black, rules.variant)
    if engine_for(engine, white, black, rules) == "reference":
        return play_games_reference(white, black, seed, games, rules, match_to, start, rolls, mirror)
    return fast_loader.load().play_games(white, black, seed, games, rules, match_to=match_to, threads=threads,
                                         start=start, rolls=rolls, mirror=mirror)
