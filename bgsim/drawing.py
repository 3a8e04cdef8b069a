"""The position drawn as text, for ``bgsim show``."""

from __future__ import annotations

from .board import Position


def draw(position: Position) -> str:
    """A board diagram from the side on roll (X, moving from 24 to 1) against O."""
    board = position.board

    def cell(point: int, row: int) -> str:
        count = board[point]
        mark = "X" if count > 0 else "O"
        count = abs(count)
        if count == 0 or row >= min(count, 5):
            return " . " if row == 0 and count == 0 else "   "
        if row == 4 and count > 5:
            return f"{count:>2} "
        return f" {mark} "

    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    lines = [" " + "".join(f"{p:>3}" for p in top[:6]) + " |   | " + "".join(f"{p:>3}" for p in top[6:])]
    for row in range(5):
        lines.append(" " + "".join(cell(p, row) for p in top[:6]) + " |   | " + "".join(cell(p, row) for p in top[6:]))
    lines.append(" " + " " * 18 + " |BAR| ")
    for row in reversed(range(5)):
        lines.append(" " + "".join(cell(p, row) for p in bottom[:6]) + " |   | " + "".join(cell(p, row) for p in bottom[6:]))
    lines.append(" " + "".join(f"{p:>3}" for p in bottom[:6]) + " |   | " + "".join(f"{p:>3}" for p in bottom[6:]))
    lines.append("")
    lines.append(f"X (on roll): pips {position.pip_count:>3}, on the bar {board[25]}, off {position.checkers_off}")
    lines.append(f"O          : pips {position.opponent_pip_count:>3}, on the bar {-board[0]}, off {position.opponent_checkers_off}")
    lines.append(f"Position ID: {position.position_id}")
    return "\n".join(lines)
