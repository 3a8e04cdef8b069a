"""The ``heuristic`` checker bot: a weighted sum of classic positional features.

:func:`bots.features.heuristic_features` reads the board after the play (26 ints, seen from the
mover, own checkers positive) and :func:`heuristic_score` weighs them.  Everything is
whole-number counting except the final weighted sum, so the fast engine can mirror it exactly.
"""

from __future__ import annotations

from bgsim import layouts

from .checker import BEAROFF, EvaluationBot
from .features import heuristic_features
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
