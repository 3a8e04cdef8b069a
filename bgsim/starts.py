"""Which games to play and where each one starts, as both engines take them.

``game_numbers`` reads a count or a list of game numbers; ``game_starts`` turns a start position
(or one per game), given first rolls and mirrored dice into the arrays the kernels take
(``Starts``), with ``OPENING`` for games from the opening.  ``bgsim.series`` (the reference
engine's many games) and ``bgsim.fast`` (the kernels' wrapper) both read them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from .board import Position
from .dice import check_seed
from .game import check_start
from .variants import STANDARD


def game_numbers(games: int | range | Iterable[int]) -> list[int]:
    """``games`` as a list of game numbers: an int N means games 0..N-1."""
    if isinstance(games, bool) or isinstance(games, (float, str, bytes)):
        raise TypeError(f"games must be a whole number of games or an iterable of game numbers, got {games!r}")
    if isinstance(games, int):
        if games < 0:
            raise ValueError(f"the number of games cannot be negative, got {games}")
        return list(range(games))
    try:
        numbers = [int(g) for g in games]
    except TypeError:
        raise TypeError(f"games must be a whole number of games or an iterable of game numbers, "
                        f"got {type(games).__name__}") from None
    for number in numbers:
        check_seed(number, "game number")
    return numbers


@dataclass(frozen=True)
class Starts:
    """Where each game starts, as the kernels take it: ``boards`` int8 (games, 26) from white,
    white on roll (games, 30 for positions of a variant: its state bytes after the board, see
    ``bgsim.variants``), and ``setups`` int64 (games, 2 + 2 * given rolls): mirror, given rolls,
    dice; both with no rows for games from the opening."""

    boards: np.ndarray
    setups: np.ndarray


OPENING = Starts(np.zeros((0, 26), dtype=np.int8), np.zeros((0, 2), dtype=np.int64))


def game_starts(count: int, start=None, rolls=None, mirror=False, variant: str = STANDARD) -> Starts:
    """``start`` (a Position, a sequence of them, or int arrays (26,) or (games, 26)), ``rolls``
    (the first rolls, (k, 2) for every game or (games, k, 2)) and ``mirror`` (a bool, or one per
    game) as the kernels take them; ValueError or TypeError naming what is wrong.  Positions of
    ``variant`` (other than the standard game) keep their state: 30 columns a board."""
    if start is None:
        if rolls is not None and len(rolls):
            check_start(None, rolls, False)
        if np.any(mirror):
            raise ValueError("mirror is for games that start from a position (start)")
        return OPENING
    if isinstance(start, Position):
        boards = np.array([start.board], dtype=np.int64)
        positions = [start]
    elif isinstance(start, np.ndarray):
        boards = np.asarray(start, dtype=np.int64).reshape(-1, 26) if start.ndim in (1, 2) and start.shape[-1] == 26 else None
        if boards is None:
            raise ValueError(f"start boards must have shape (26,) or (games, 26), got {start.shape}")
    else:
        positions = list(start)
        for position in positions:
            check_start(position, (), False)
        boards = np.array([position.board for position in positions], dtype=np.int64).reshape(-1, 26)
    if not isinstance(start, np.ndarray):
        for position in positions:
            if position.variant != variant:
                raise ValueError(f"start position {position.position_string} is a {position.variant} "
                                 f"position, but the rules play {variant}")
        if variant != STANDARD:  # checked one by one above; the state rides after the board
            boards = np.array([position.search_slots for position in positions], dtype=np.int64)
    elif variant != STANDARD:
        raise ValueError(f"start boards of {variant} are Positions (with their checkers in hand), "
                         f"not arrays")
    if variant == STANDARD:
        for board in np.unique(boards, axis=0):  # few distinct boards in a rollout: check each once
            check_start(Position(tuple(int(v) for v in board)), (), False)
    if len(boards) == 1:
        boards = np.repeat(boards, count, axis=0)
    if len(boards) != count:
        raise ValueError(f"{len(boards)} start positions for {count} games: give one, or one per game")
    given = np.zeros((count, 0, 2), dtype=np.int64)
    if rolls is not None and len(rolls):
        given = np.asarray(rolls, dtype=np.int64)
        if given.ndim == 2:
            given = np.repeat(given[None], count, axis=0)
        if given.ndim != 3 or given.shape[0] != count or given.shape[2] != 2:
            raise ValueError(f"rolls must have shape (k, 2) or ({count}, k, 2), got {given.shape}")
        if given.size and (given.min() < 1 or given.max() > 6):
            raise ValueError("a die is a whole number from 1 to 6")
    flags = np.broadcast_to(np.asarray(mirror, dtype=bool), (count,))
    setups = np.zeros((count, 2 + 2 * given.shape[1]), dtype=np.int64)
    setups[:, 0] = flags
    setups[:, 1] = given.shape[1]
    setups[:, 2:] = given.reshape(count, -1)
    return Starts(boards.astype(np.int8), setups)
