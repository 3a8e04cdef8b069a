"""The ``heuristic`` checker bot: a weighted sum of classic positional features.

:func:`heuristic_features` reads the board after the play (26 ints, seen from the mover, own
checkers positive) and :func:`heuristic_score` weighs them.  Everything is whole-number
counting except the final weighted sum, so the fast engine can mirror it exactly.
"""

from __future__ import annotations

from bgsim import layouts
from bgsim.board import is_race, pip_counts

from .checker import BEAROFF, EvaluationBot
from .params import Param, parse_float

# The features in the order of the weighted sum in heuristic_score, which is the fast layout's
# parameter order (declared once, in bgsim/layouts.py):
#   race    opponent pips - own pips
#   off     own checkers borne off
#   hit     opponent checkers on the bar
#   blot    own blots with an opponent checker behind them (able to hit, ignoring blocks)
#   shot    of the 36 rolls, how many hit at least one such blot (direct or combined)
#   home    own made points (2+) in the home board, points 1..6
#   outer   own made points on 7..18
#   anchor  own made points in the opponent's home board, 19..24
#   prime   longest run of consecutive own made points on 1..24
#   stack   own checkers beyond three on a point, summed over points 1..24
#   back    own checkers on 19..24 and on the bar
FEATURES = layouts.HEURISTIC.own_params


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
    """The :data:`FEATURES` of a board, as whole numbers.

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


def heuristic_score(board, weights) -> float:
    """``sum(weights[i] * features[i])`` in float64, in :data:`FEATURES` order, left to right."""
    features = heuristic_features(board)
    score = 0.0
    for index in range(len(FEATURES)):
        score += weights[index] * float(features[index])
    return score


class HeuristicBot(EvaluationBot):
    """A weighted evaluation of the resulting position: :func:`heuristic_score`.

    The defaults were tuned by coordinate search against ``pubeval`` (cubeless, 2 x 3,000 games
    per trial on the same dice with seats swapped): from a first guess at -0.77 points per game
    to about -0.37.  Made points matter most; an extra weight on anchors did not help beyond
    the made-point weight they already get, so ``anchor`` defaults to 0 (it stays a parameter).
    """

    name = "heuristic"
    fast_name = "heuristic"
    description = "weighted features: race, hits, exposed blots and shots, points, anchors, primes"
    PARAMS = (
        Param("race", parse_float, 0.04, "per pip of lead after the play"),
        Param("off", parse_float, 0.05, "per own checker borne off"),
        Param("hit", parse_float, 0.15, "per opponent checker on the bar"),
        Param("blot", parse_float, -0.05, "per own blot that an opponent checker could hit"),
        Param("shot", parse_float, -0.00375, "per roll (of 36) that hits one of those blots"),
        Param("home", parse_float, 0.48, "per made point in the home board"),
        Param("outer", parse_float, 0.24, "per made point on 7..18"),
        Param("anchor", parse_float, 0.0, "per made point in the opponent's home board"),
        Param("prime", parse_float, 0.1, "per point of the longest run of made points"),
        Param("stack", parse_float, -0.02, "per checker beyond three on a point"),
        Param("back", parse_float, -0.02, "per own checker in the opponent's home board or on the bar"),
        BEAROFF,
    )

    def __init__(self, **values):
        super().__init__(**values)
        self.weights = tuple(float(getattr(self, key)) for key in FEATURES)

    def score(self, board, before):
        return heuristic_score(board, self.weights)

    def fast_params(self):
        return dict(zip(FEATURES, self.weights))


BOTS = (HeuristicBot,)
