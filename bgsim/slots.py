"""The 26 slots of a board: which slot is which, how many checkers a side has, and the error an
impossible board raises.

``bgsim.board`` (the ``Position``) and ``bgsim.position_id`` (its GNU Backgammon ID, which
``Position`` reads and writes) both build on these, so neither needs the other's names.
"""

CHECKERS = 15
BAR = 25
OPPONENT_BAR = 0
HOME = range(1, 7)


class PositionError(ValueError):
    """An impossible or malformed position."""
