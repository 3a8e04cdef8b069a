"""GNU Backgammon position IDs: 14 base64 characters for 80 bits.

GNU Backgammon keeps a board as two arrays of 25 counts, each from its owner's point of view
(index 0..23 are that side's points 1..24, index 24 its bar): first the side *not* on roll, then
the side on roll.  The key walks both arrays in that order and writes, for each slot, as many 1
bits as there are checkers followed by one 0 bit.  Bits fill each byte from its lowest bit; the
10 bytes are written in standard base64 without the trailing "==".

**bgsim's position string** holds what the ID cannot, the variant and its state
(``bgsim.variants``)::

    ID                                  a position of the standard game
    ID.VARIANT[.handX-O][.nohit-SIDES]  a position of another variant

``ID`` is the GNU Backgammon position ID of the 26 slots (checkers in hand are not in it).
``handX-O``: X checkers in hand of the side on roll, O of the opponent (``bgsim show`` draws the
side on roll as X), written when either is not 0.  ``nohit-x``, ``nohit-o`` or ``nohit-xo``: the
sides that may not hit yet (Dutch), written when there is one.  Examples: the Dutch start
``AAAAAAAAAAAAAA.dutch.hand15-15.nohit-xo``, the acey-deucey start
``AAAAAAAAAAAAAA.acey-deucey.hand15-15``, the Nackgammon start ``4Dl4ADbgOXgANg.nackgammon``.
The fields must come in this order and say something (``hand0-0`` is not written and not read);
checkers on the board, on the bar and in hand must not exceed the variant's (15, or 1..3 in
hypergammon).  ``ID.standard`` is read as the bare ``ID``.
"""

from __future__ import annotations

import base64
import binascii
import re

from .slots import CHECKERS, PositionError
from .variants import STANDARD, variant_of

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
    """The position ID of a ``Position``: each side's 25 counts (opponent first), a count of
    ``n`` written as ``n`` one-bits and a zero, in 80 bits from the lowest up, in base64."""
    bits, shift = 0, 0
    for side in to_gnubg_board(position):
        for count in side:
            bits |= ((1 << count) - 1) << shift
            shift += count + 1
    return base64.b64encode(bits.to_bytes(10, "little")).decode("ascii")[:14]


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


# --- bgsim's position string: the ID and a variant's state ---------------------------------

_HAND_FIELD = re.compile(r"hand(\d{1,2})-(\d{1,2})")
_SIDES = {"x": (True, False), "o": (False, True), "xo": (True, True)}


def encode_string(position) -> str:
    """The position string of a ``Position`` (the bare ID in the standard game)."""
    text = encode(position)
    if position.variant == STANDARD:
        return text
    text += "." + position.variant
    own, opponent = position.in_hand
    if own or opponent:
        text += f".hand{own}-{opponent}"
    if any(position.cannot_hit):
        text += ".nohit-" + "x" * position.cannot_hit[0] + "o" * position.cannot_hit[1]
    return text


def decode_string(text: str, variant: str | None = None):
    """(board slots, variant, in hand, cannot hit) of a position string (``Position.from_string``
    makes the position); ``variant``, when given, is the variant a bare ID is read in, and one the
    string names must agree with it.  PositionIdError names what is wrong."""
    if not isinstance(text, str):
        raise PositionIdError(f"a position string is a string, got {type(text).__name__}")
    if variant is not None:
        variant = _variant(variant, text)
    position_id, *fields = text.strip().split(".")
    board = decode(position_id)
    named = _variant(fields.pop(0), text) if fields else None
    if named is not None and variant is not None and named != variant:
        raise PositionIdError(f"position {text!r} is a {named} position, not {variant}")
    variant = named or variant or STANDARD
    in_hand, cannot_hit = (0, 0), (False, False)
    if fields and fields[0].startswith("hand"):
        found = _HAND_FIELD.fullmatch(fields.pop(0))
        if not found or found.groups() == ("0", "0"):
            raise PositionIdError(f"position {text!r}: write checkers in hand as handX-O, e.g. hand15-15 "
                                  "(X on roll, O the opponent; left out when both are 0)")
        in_hand = (int(found.group(1)), int(found.group(2)))
    if fields and fields[0].startswith("nohit-"):
        sides = fields.pop(0)[len("nohit-"):]
        if sides not in _SIDES:
            raise PositionIdError(f"position {text!r}: nohit- names x, o or xo (the sides that may not hit yet)")
        cannot_hit = _SIDES[sides]
    if fields:
        raise PositionIdError(f"position {text!r}: {'.'.join(fields)!r} is not handX-O or nohit-SIDES "
                              "(in that order, after the variant)")
    return board, variant, in_hand, cannot_hit


def _variant(name: str, text: str) -> str:
    try:
        return variant_of(name).name
    except ValueError as error:
        raise PositionIdError(f"position {text!r}: {error}") from None
