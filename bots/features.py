"""Board features the checker bots count, as whole numbers: exposed blots and the shots at them
(``racer`` and ``heuristic``), and the eleven features ``heuristic`` weighs.

Each reads a 26-slot board after the play, seen from the mover (own checkers positive); the fast
engine counts the same numbers (``bgsim/fast/board.py``, ``bgsim/fast/checker.py``).
"""

from __future__ import annotations

from bgsim.board import is_race, pip_counts


def shots_at(board) -> tuple[int, int]:
    """(exposed blots, rolls out of 36 that hit one), ignoring blocking points.

    A blot on point p is exposed to an opponent checker on q < p (the opponent's bar is q = 0;
    it moves up our numbering) at distance p - q.  A roll d1-d2 hits when some exposed distance
    is d1, d2 or d1 + d2; a double d-d when it is d, 2d, 3d or 4d.  The 36 ordered rolls count.
    """
    reach = [False] * 25  # reach[d]: some opponent checker is d pips below some blot
    exposed = 0
    for point in range(1, 25):
        if board[point] == 1:
            behind = False
            for source in range(0, point):
                if board[source] < 0:
                    reach[point - source] = True
                    behind = True
            if behind:
                exposed += 1
    if exposed == 0:
        return 0, 0
    shots = 0
    for first in range(1, 7):
        for second in range(1, 7):
            if first == second:
                hit = False
                for steps in range(1, 5):
                    if first * steps <= 24 and reach[first * steps]:
                        hit = True
            else:
                hit = reach[first] or reach[second] or reach[first + second]
            if hit:
                shots += 1
    return exposed, shots


def heuristic_features(board) -> tuple[int, ...]:
    """The features of ``bots.heuristic.FEATURES`` of a board, in that order.

    In a race (no contact) only ``race`` and ``off`` are counted; the others are 0.
    """
    own_pips, opponent_pips = pip_counts(board)
    on_board = 0
    for slot in range(1, 26):
        if board[slot] > 0:
            on_board += board[slot]
    race = opponent_pips - own_pips
    off = 15 - on_board
    if is_race(board):
        return (race, off, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    hit = -board[0]
    blot, shot = shots_at(board)
    home = outer = anchor = 0
    prime = run = 0
    stack = 0
    for point in range(1, 25):
        count = board[point]
        if count >= 2:
            if point <= 6:
                home += 1
            elif point <= 18:
                outer += 1
            else:
                anchor += 1
            run += 1
            if run > prime:
                prime = run
        else:
            run = 0
        if count > 3:
            stack += count - 3
    back = board[25]
    for point in range(19, 25):
        if board[point] > 0:
            back += board[point]
    return (race, off, hit, blot, shot, home, outer, anchor, prime, stack, back)


def longest_prime(board) -> int:
    """The longest run of consecutive points 1..24 holding two or more own checkers."""
    longest = run = 0
    for point in range(1, 25):
        run = run + 1 if board[point] >= 2 else 0
        longest = max(longest, run)
    return longest


def escapes(board) -> int:
    """GNU Backgammon's escapes of the own rearmost checker (the bar counts as point 25): the
    rolls of 36 whose whole move, a double as its two dice, lands on a point the opponent does
    not hold, with at least one die's own point not held either.  Only the 12 points in front
    count as held or not; beyond them, and off the board, everything is open."""
    rear = max((slot for slot in range(1, 26) if board[slot] > 0), default=0)

    def held(distance: int) -> bool:
        point = rear - distance
        return distance <= 12 and point >= 1 and board[point] <= -2

    count = 0
    for first in range(1, 7):
        for second in range(1, 7):
            if not held(first + second) and not (held(first) and held(second)):
                count += 1
    return count


def turned(board) -> tuple[int, ...]:
    """The board seen from the other side."""
    return tuple(-board[25 - slot] for slot in range(26))


def contact_inputs(board) -> tuple[int, ...]:
    """The ``nn`` net's contact inputs (``bgsim.net_format.CONTACT_INPUTS``): blots, shots,
    prime and escapes of the side on roll, then the same of the opponent."""
    values = []
    for side in (board, turned(board)):
        blots, shots = shots_at(side)
        values += [blots, shots, longest_prime(side), escapes(side)]
    return tuple(values)
