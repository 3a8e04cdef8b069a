"""GNU Backgammon position IDs: 14 base64 characters for 80 bits.

GNU Backgammon keeps a board as two arrays of 25 counts, each from its owner's point of view
(index 0..23 are that side's points 1..24, index 24 its bar): first the side *not* on roll, then
the side on roll.  The key walks both arrays in that order and writes, for each slot, as many 1
bits as there are checkers followed by one 0 bit.  Bits fill each byte from its lowest bit; the
10 bytes are written in standard base64 without the trailing "==".

The functions here read and write the 26 slots of a board (``Position.board``);
``Position.from_position_id`` and ``Position.position_id`` call them.
"""

from __future__ import annotations

import base64
import binascii
import re

from .slots import CHECKERS, PositionError

_ID_PATTERN = re.compile(r"[A-Za-z0-9+/]{14}")  # used with fullmatch: "$" would let a newline through
_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


class PositionIdError(PositionError):
    """A malformed GNU Backgammon position ID."""


def to_gnubg_board(position) -> tuple[list[int], list[int]]:
    """The ``(opponent, side_on_roll)`` pair of 25-count arrays GNU Backgammon uses, of a
    ``Position``."""
    board = position.board
    on_roll = [max(board[point], 0) for point in range(1, 25)] + [board[25]]
    opponent = [max(-board[25 - point], 0) for point in range(1, 25)] + [-board[0]]
    return opponent, on_roll


def from_gnubg_board(opponent, on_roll) -> tuple[int, ...]:
    """Inverse of :func:`to_gnubg_board`: the 26 slots (``Position(...)`` makes the position);
    rejects both sides on one point."""
    if len(opponent) != 25 or len(on_roll) != 25:
        raise PositionError("a GNU Backgammon board is two arrays of 25 counts")
    board = [0] * 26
    board[25] = int(on_roll[24])
    board[0] = -int(opponent[24])
    for point in range(1, 25):
        mine = int(on_roll[point - 1])
        theirs = int(opponent[24 - point])
        if mine < 0 or theirs < 0:
            raise PositionError(f"negative checker count on point {point}")
        if mine and theirs:
            raise PositionError(f"both sides have checkers on point {point}")
        board[point] = mine - theirs
    return tuple(board)


def encode(position) -> str:
    """The position ID of a ``Position``."""
    bits: list[int] = []
    for side in to_gnubg_board(position):
        for count in side:
            bits.extend([1] * count)
            bits.append(0)
    bits.extend([0] * (80 - len(bits)))
    data = bytearray(10)
    for index, bit in enumerate(bits):
        if bit:
            data[index // 8] |= 1 << (index % 8)
    return base64.b64encode(bytes(data)).decode("ascii")[:14]


def decode(text: str) -> tuple[int, ...]:
    """The 26 slots of the board a position ID names; PositionIdError when it names none."""
    if not isinstance(text, str):
        raise PositionIdError(f"a position ID is a string, got {type(text).__name__}")
    if len(text) != 14:
        raise PositionIdError(
            f"malformed position ID {text!r}: a position ID has 14 characters, got {len(text)}"
        )
    if not _ID_PATTERN.fullmatch(text):
        bad = next(char for char in text if char not in _BASE64)
        raise PositionIdError(
            f"malformed position ID {text!r}: {bad!r} is not one of A-Z, a-z, 0-9, + and /"
        )
    try:
        data = base64.b64decode(text + "==", validate=True)
    except binascii.Error as error:  # pragma: no cover - the pattern already rules this out
        raise PositionIdError(f"malformed position ID {text!r}: {error}") from None
    if _BASE64.index(text[-1]) & 0b1111:
        # 14 characters carry 84 bits; the last 4 are padding and must be zero, or two different
        # texts would name one position and the ID would not survive a round trip
        raise PositionIdError(f"position ID {text!r} has stray bits after the last slot")
    bits = [(data[index // 8] >> (index % 8)) & 1 for index in range(80)]
    sides: list[list[int]] = [[], []]
    cursor = 0
    for side in sides:
        while len(side) < 25:
            count = 0
            while cursor < 80 and bits[cursor] == 1:
                count += 1
                cursor += 1
            if cursor >= 80:
                raise PositionIdError(f"position ID {text!r} does not describe 50 slots")
            cursor += 1  # the 0 that closes the slot
            side.append(count)
        if sum(side) > CHECKERS:
            raise PositionIdError(f"position ID {text!r} gives a side {sum(side)} checkers")
    if any(bits[cursor:]):
        raise PositionIdError(f"position ID {text!r} has stray bits after the last slot")
    try:
        return from_gnubg_board(sides[0], sides[1])
    except PositionIdError:
        raise
    except PositionError as error:
        raise PositionIdError(f"position ID {text!r}: {error}") from None
