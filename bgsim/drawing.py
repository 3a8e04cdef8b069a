"""The position drawn as text, for ``bgsim show``."""

from __future__ import annotations

from .variants import STANDARD

ROWS = 5  # checkers drawn per point; a taller stack shows its count in the last row


def draw(position) -> str:
    """A board diagram of ``position`` (a ``bgsim.board.Position``, whose ``str`` this is) from
    the side on roll, X, against O.

    The points carry X's numbers: X moves from its 24-point (top right) round to its 1-point
    (bottom right), so X's home board is bottom right and O's top right.  Checkers on the bar
    are drawn in the middle column, O's in the top half and X's in the bottom half.
    """
    board = position.board

    def stack(count: int, mark: str, row: int) -> str:
        if count == 0:
            return " . " if row == 0 else "   "
        if row >= min(count, ROWS):
            return "   "
        if row == ROWS - 1 and count > ROWS:
            return f"{count:>2} "
        return f" {mark} "

    def cell(point: int, row: int) -> str:
        count = board[point]
        return stack(abs(count), "X" if count > 0 else "O", row)

    def bar_cell(count: int, mark: str, row: int) -> str:
        return "   " if count == 0 else stack(count, mark, row)

    def line(points: list[int], row: int, bar: str) -> str:
        left = "".join(cell(p, row) for p in points[:6])
        right = "".join(cell(p, row) for p in points[6:])
        return f" {left}|{bar}|{right}"

    def numbers(points: list[int]) -> str:
        return " " + "".join(f"{p:^3}" for p in points[:6]) + "|   |" + "".join(f"{p:^3}" for p in points[6:])

    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    opponent_bar, own_bar = -board[0], board[25]
    lines = [
        "X is on roll. Points are numbered for X, who moves 24 -> 1 (home board bottom right);",
        "O moves the other way (home board top right).",
        "",
        numbers(top),
    ]
    lines += [line(top, row, bar_cell(opponent_bar, "O", row)) for row in range(ROWS)]
    lines.append(" " + " " * 18 + "|BAR|")
    lines += [line(bottom, row, bar_cell(own_bar, "X", row)) for row in reversed(range(ROWS))]
    lines.append(numbers(bottom))
    lines.append("")
    hand = position.variant_rules.hand > 0
    for side, (label, pips, bar, off) in enumerate((
            ("X (on roll)", position.pip_count, own_bar, position.checkers_off),
            ("O          ", position.opponent_pip_count, opponent_bar, position.opponent_checkers_off))):
        text = f"{label}: pips {pips:>3}, on the bar {bar:>2}, borne off {off:>2}"
        if hand:
            text += f", in hand {position.in_hand[side]:>2}"
        if position.cannot_hit[side]:
            text += "; may not hit yet"
        lines.append(text)
    if position.variant == STANDARD:
        lines.append(f"Position ID: {position.position_id}")
    else:
        lines.append(f"Variant: {position.variant} ({position.variant_rules.description})")
        lines.append(f"Position: {position.position_string}")
        lines.append(f"GNU Backgammon position ID: {position.position_id}"
                     + (" (the board alone: no checkers in hand)" if hand else ""))
    return "\n".join(lines)
