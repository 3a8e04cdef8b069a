"""The one board encoding of bgsim, always seen from the side on roll.

A position is 26 small integers, ``board[0..25]``:

* ``board[p]`` for ``p`` in 1..24 is point ``p`` *in the numbering of the side on roll*
  (it moves from its 24-point towards its 1-point): a positive count is that many of its own
  checkers, a negative count is that many of the opponent's.
* ``board[25]`` is the number of the side on roll's checkers on the bar (zero or positive):
  a checker on the bar is 25 pips from home, so it sits just beyond the 24-point.
* ``board[0]`` is minus the number of the opponent's checkers on the bar (zero or negative):
  the opponent enters towards our 24-point, so its bar is "point 0" in our numbering.

Checkers borne off are not stored: each side has 15 and the rest are off.  Turning the board to
the other side is ``new[i] = -old[25 - i]``.  The same layout is used by the fast engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

CHECKERS = 15
BAR = 25
OPPONENT_BAR = 0
HOME = range(1, 7)


class PositionError(ValueError):
    """An impossible or malformed position."""


def _zobrist_table() -> tuple[tuple[int, ...], ...]:
    # A fixed table of 64-bit numbers, one per (slot, count), drawn from SplitMix64 so that the
    # fast engine can build the very same table.  The key orders plays canonically (see rules.py).
    from .dice import mix64, GOLDEN, MASK64

    state = 0x62672D73696D  # "bg-sim"
    table = []
    for _slot in range(26):
        row = []
        for _count in range(2 * CHECKERS + 1):
            state = (state + GOLDEN) & MASK64
            row.append(mix64(state))
        table.append(tuple(row))
    return tuple(table)


ZOBRIST = _zobrist_table()


def pip_counts(board) -> tuple[int, int]:
    """(own pips, opponent pips) of a 26-slot board; a checker on the bar is 25 pips away."""
    own = sum(point * count for point, count in enumerate(board) if count > 0)
    opponent = sum((25 - point) * -count for point, count in enumerate(board) if count < 0)
    return own, opponent


def is_race(board) -> bool:
    """No contact on a 26-slot board: every own checker (bar = 25) is below every opponent
    checker (bar = 0), so neither side can hit the other again."""
    own = [slot for slot in range(1, 26) if board[slot] > 0]
    opponent = [slot for slot in range(0, 25) if board[slot] < 0]
    if not own or not opponent:
        return True  # a side with everything off cannot be hit nor hit
    return max(own) < min(opponent)


@dataclass(frozen=True)
class Position:
    """A backgammon position seen from the side on roll; see the module docstring."""

    board: tuple[int, ...]

    def __post_init__(self) -> None:
        board = self.board
        if not isinstance(board, tuple):
            object.__setattr__(self, "board", tuple(board))
            board = self.board
        if len(board) != 26:
            raise PositionError(f"a board has 26 slots (bar, 24 points, bar), got {len(board)}")
        for slot, count in enumerate(board):
            if not isinstance(count, int) or isinstance(count, bool):
                raise PositionError(f"slot {slot} holds {count!r}, not a whole number of checkers")
        if board[BAR] < 0:
            raise PositionError(f"the side on roll cannot have {board[BAR]} checkers on the bar")
        if board[OPPONENT_BAR] > 0:
            raise PositionError("the opponent's bar count must be zero or negative")
        own = sum(count for count in board[1:] if count > 0)
        opponent = -sum(count for count in board[:25] if count < 0)
        if own > CHECKERS:
            raise PositionError(f"the side on roll has {own} checkers, more than {CHECKERS}")
        if opponent > CHECKERS:
            raise PositionError(f"the opponent has {opponent} checkers, more than {CHECKERS}")

    # --- construction -------------------------------------------------------------------

    @classmethod
    def start(cls) -> "Position":
        """The starting position (either side on roll: it is symmetric)."""
        return cls.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5})

    @classmethod
    def from_points(
        cls, own: Mapping[int | str, int], opponent: Mapping[int | str, int]
    ) -> "Position":
        """Build a position from two short literals, both in the numbering of the side on roll.

        Keys are points 1..24 or ``"bar"``; values are checker counts.  Checkers not placed are off.
        ``Position.from_points({"bar": 1, 6: 14}, {7: 1})`` has one of ours on the bar and a
        lone opponent checker on our 7-point.
        """
        board = [0] * 26
        for side, sign in ((own, 1), (opponent, -1)):
            for where, count in side.items():
                if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                    raise PositionError(f"checker count {count!r} at {where!r} is not a count")
                if where == "bar":
                    slot = BAR if sign > 0 else OPPONENT_BAR
                elif isinstance(where, int) and not isinstance(where, bool) and 1 <= where <= 24:
                    slot = where
                else:
                    raise PositionError(f"{where!r} is not a point (1..24) or 'bar'")
                if board[slot] * sign < 0:
                    raise PositionError(f"both sides have checkers on point {where}")
                board[slot] += sign * count
        return cls(tuple(board))

    @classmethod
    def from_position_id(cls, text: str) -> "Position":
        """Decode a GNU Backgammon position ID (14 characters)."""
        from .position_id import decode

        return decode(text)

    @classmethod
    def from_xgid(cls, text: str) -> "Position":
        """The position of an eXtreme Gammon XGID, seen from the side on roll."""
        from .interchange.xgid import decode

        return decode(text).position

    # --- views --------------------------------------------------------------------------

    @property
    def position_id(self) -> str:
        """The GNU Backgammon position ID of this position, same side on roll."""
        from .position_id import encode

        return encode(self)

    @property
    def xgid(self) -> str:
        """This position's XGID: the side on roll at the bottom, before its roll, cube centred."""
        from .interchange.xgid import Xgid

        return Xgid(position=self).text

    def turned(self) -> "Position":
        """The same position seen from the other side (the opponent now on roll)."""
        return Position(tuple(-self.board[25 - slot] for slot in range(26)))

    @property
    def pip_count(self) -> int:
        """Pips the side on roll needs to bear off everything (a bar checker counts 25)."""
        return pip_counts(self.board)[0]

    @property
    def opponent_pip_count(self) -> int:
        return pip_counts(self.board)[1]

    @property
    def checkers_off(self) -> int:
        return CHECKERS - sum(count for count in self.board if count > 0)

    @property
    def opponent_checkers_off(self) -> int:
        return CHECKERS - sum(-count for count in self.board if count < 0)

    @property
    def all_home(self) -> bool:
        """True when every checker of the side on roll is in its home board or off."""
        return all(count <= 0 for count in self.board[7:26])

    @property
    def is_race(self) -> bool:
        """True when contact is over: every own checker is past every opponent checker."""
        return is_race(self.board)

    @property
    def key(self) -> int:
        """A 64-bit Zobrist hash of the board: the canonical order of plays sorts on it."""
        key = 0
        for slot, count in enumerate(self.board):
            key ^= ZOBRIST[slot][count + CHECKERS]
        return key

    def __str__(self) -> str:
        from .drawing import draw

        return draw(self)
