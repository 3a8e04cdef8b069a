"""Four more published race rules as cube bots: Trice's Rule 62, the Kleinman metric, the Isight
method and the effective pip count (EPC) with Trice's thresholds.

Each rule reduces the position (seen from the doubler, on roll) to two counts, the doubler's
``own`` and the taker's ``other``, and a threshold per question: the taker's count at which the
rule just doubles, just redoubles, or is just still a take.  Every rule doubles when
``other >= threshold("double")`` (``"redouble"`` with an owned cube) and takes when
``other <= threshold("take")``; Kleinman's thresholds are winning chances instead (below).

Like ``keith`` and ``thorp``: in contact (``not position.is_race``) no rule applies, so the bot
never doubles and takes every double; none ever beavers; in matches (``score_aware=true``, the
default) they follow ``bots/match_cube.py`` as the other pip rules do: the score's forced offers
first, then the rule's thresholds read as Kleinman winning chances of the two counts and moved
by the score's take point.  The fast engine mirrors every rule in ``bgsim/fast/race_rules.py``.

Sources (the definitions as published):

* Rule 62, Walter Trice (Backgammon Boot Camp; summarised as "the Trice number" at
  boardgamestrategy.blogspot.com, March 2011): the trailer's point of last take is a deficit of
  10% of the leader's count plus 2 pips, rounded up, when the leader has at least 62 pips, and
  ``(leader - 5) / 7``, rounded up, below; take up to that deficit; double when within 3 pips
  of it, redouble when within 2.
* Kleinman metric, Danny Kleinman, with the win-probability formula of Øystein Johansen and
  Chuck Bower (rec.games.backgammon, 22 February 2001): ``D = other - own + 4``,
  ``S = own + other - 4``, ``K = D²/S``; the chance is ``0.5 + 0.267 √K`` below ``K = 1`` and
  ``0.76 + 0.114 ln K`` above; key values K = 0.5 a double, 0.7 a redouble, 1.2 the borderline
  take.  The rule doubles when the chance reaches that of ``K = 0.5`` (with the doubler ahead,
  ``D > 0``), redoubles at ``K = 0.7``, takes up to ``K = 1.2``.
* Isight, from the Isight PDF, p. 28, as summarised by Taper_Mike (bgonline.org, 10 December
  2014): adjust each pip count by +1 per checker on the board more than the opponent has, +2 per
  checker beyond 2 on the 1-point, +1 per checker beyond 2 on the 2-point, +1 per checker beyond
  3 on the 3-point, +1 per empty 4-, 5- or 6-point where the opponent has a checker on its
  corresponding point, +1 per crossover more than the opponent needs to bring every checker
  home; then ``P = 80 - L/3 + 2(T - L)`` (leader ``L``, trailer ``T``): double at ``P >= 68``,
  redouble at ``P >= 70``, take up to ``P <= 76``.
* EPC: Walter Trice's effective pip count, expected rolls to bear off times 49/6, from bgsim's
  one-sided bear-off database (``bgsim.bearoff``), with Rule 62's thresholds on the effective
  counts (Trice's own refinement).  The database holds only bear-offs: a side with checkers
  outside its home board counts its pips plus the wastage (EPC less pips) of the bear-off it
  would have with every such checker brought to its 6-point (bgsim's extension, not Trice's).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Mapping

import numpy as np

from bgsim.board import Position
from bgsim.cube import CubeView, Response

from . import match_cube
from .cube import SCORE_AWARE, CubeBot
from .params import Param, SpecError, parse_float

OFFER, REDOUBLE, TAKE = "double", "redouble", "take"


class _RaceRule(CubeBot):
    """Shared by the four rules: two counts and a taker's-count threshold per question."""

    def counts(self, position: Position) -> tuple[float, float]:
        """(the doubler's count, the taker's)."""
        raise NotImplementedError

    def threshold(self, own: float, question: str) -> float:
        """The taker's count at which the rule just offers (``double``/``redouble``) or just
        still takes (``take``)."""
        raise NotImplementedError

    def reached(self, position: Position, question: str) -> bool:
        """Money: the doubler's edge is at least the question's threshold."""
        own, other = self.counts(position)
        return other >= self.threshold(own, question)

    def check(self) -> None:
        # thresholds on one scale, a stronger position higher: a take below an offer would drop
        # the doubles the player offers itself (Rule 62's deficits override this)
        if self.take < self.double or self.take < self.redouble:
            raise SpecError(f"{self.name}: take={self.take:g} is below double or redouble: "
                            "the player would drop the doubles it offers itself")

    def threshold_chance(self, own: float, question: str) -> float:
        """The question's threshold as a Kleinman winning chance (matches)."""
        return match_cube.race_chance(own, self.threshold(own, question))

    def wants_double(self, position: Position, cube: CubeView) -> bool:
        if not position.is_race:
            return False
        question = OFFER if cube.centred else REDOUBLE
        if self.score_aware and cube.match_to:
            own, other = self.counts(position)
            return match_cube.race_chance(own, other) >= \
                self.threshold_chance(own, question) + match_cube.shift(cube)
        return self.reached(position, question)

    def respond(self, position: Position, cube: CubeView) -> Response:
        if not position.is_race:
            return Response.TAKE
        if self.score_aware and cube.match_to:
            own, other = self.counts(position)
            if match_cube.race_chance(own, other) > self.threshold_chance(own, TAKE) + match_cube.shift(cube):
                return Response.DROP
            return Response.TAKE
        return Response.DROP if self.beyond_take(position) else Response.TAKE

    def beyond_take(self, position: Position) -> bool:
        own, other = self.counts(position)
        return other > self.threshold(own, TAKE)

    def fast_params(self) -> Mapping[str, float]:
        return {"double": float(self.double), "redouble": float(self.redouble), "take": float(self.take)}


def point_of_last_take(leader: float) -> float:
    """Trice's point of last take: the trailer's largest deficit that is still a take."""
    if leader >= 62.0:
        return float(math.ceil((leader + 20.0) / 10.0))
    return float(math.ceil((leader - 5.0) / 7.0))


class _TriceThresholds(_RaceRule):
    """Rule 62's thresholds on some count: offer within ``double`` (``redouble``) pips of the
    point of last take, take up to ``take`` pips beyond it."""

    def check(self) -> None:
        if self.take < -self.double or self.take < -self.redouble:
            raise SpecError(f"{self.name}: take={self.take:g} is below -double or -redouble: "
                            "the player would drop the doubles it offers itself")

    def threshold(self, own, question):
        last = own + point_of_last_take(own)
        if question == OFFER:
            return last - self.double
        if question == REDOUBLE:
            return last - self.redouble
        return last + self.take


TRICE_PARAMS = (
    Param("double", parse_float, 3.0, "double when the deficit is within this many pips of the point of last take"),
    Param("redouble", parse_float, 2.0, "redouble within this many pips of it"),
    Param("take", parse_float, 0.0, "take up to this many pips beyond the point of last take"),
    SCORE_AWARE,
)


class Rule62(_TriceThresholds):
    """Walter Trice's Rule 62 on plain pip counts (see the module's sources)."""

    name = "rule62"
    fast_name = "rule62"
    description = "Trice's Rule 62: point of last take 10%+2 (>= 62 pips) or (L-5)/7; double within 3, redouble 2"
    PARAMS = TRICE_PARAMS

    def counts(self, position):
        return float(position.pip_count), float(position.opponent_pip_count)


class EffectivePips(_TriceThresholds):
    """Rule 62's thresholds on effective pip counts from the one-sided database."""

    name = "epc"
    fast_name = "epc"
    description = "Rule 62 on effective pip counts (one-sided bear-off database; outside checkers: pips + wastage)"
    PARAMS = TRICE_PARAMS

    def counts(self, position):
        return effective_pips(position.board), effective_pips(position.turned().board)

    def fast_arrays(self):
        return {"epc": epc_table()}


@lru_cache(maxsize=1)
def epc_table() -> np.ndarray:
    """Effective pip count of every one-sided bear-off position, by GNU Backgammon's number
    (the SAME array object every call, so the fast engine stores it once)."""
    from bgsim import bearoff

    table = np.ascontiguousarray(bearoff.one_sided().effective_pip_counts(), dtype=np.float64)
    table.setflags(write=False)
    return table


def effective_pips(board) -> float:
    """EPC of the side whose checkers are positive in ``board`` (26 ints), see the module."""
    from bgsim.bearoff import position_number

    counts = [max(board[point], 0) for point in range(1, 7)]
    outside_pips = 0
    for point in range(7, 26):
        if board[point] > 0:
            counts[5] += board[point]
            outside_pips += (point - 6) * board[point]
    if sum(counts) == 0:
        return 0.0
    return float(epc_table()[position_number(counts)]) + outside_pips


class Kleinman(_RaceRule):
    """The Kleinman metric on plain pip counts; thresholds are values of ``K`` (module doc)."""

    name = "kleinman"
    fast_name = "kleinman"
    description = "Kleinman metric K = D²/S: double at K >= 0.5, redouble 0.7, take up to 1.2 (as winning chances)"
    PARAMS = (
        Param("double", parse_float, 0.5, "double when Kleinman's K reaches this (doubler ahead)"),
        Param("redouble", parse_float, 0.7, "redouble when K reaches this"),
        Param("take", parse_float, 1.2, "take while K is at most this"),
        SCORE_AWARE,
    )

    def check(self) -> None:
        for key in ("double", "redouble", "take"):
            if getattr(self, key) <= 0.0:
                raise SpecError(f"kleinman: {key} must be above 0, got {getattr(self, key):g}")
        super().check()

    def counts(self, position):
        return float(position.pip_count), float(position.opponent_pip_count)

    def threshold_chance(self, own, question):
        return 0.5 + match_cube.kleinman_half(getattr(self, question))

    def reached(self, position, question):
        own, other = self.counts(position)
        return match_cube.race_chance(own, other) >= self.threshold_chance(own, question)

    def beyond_take(self, position):
        own, other = self.counts(position)
        return match_cube.race_chance(own, other) > self.threshold_chance(own, TAKE)


def isight_counts(board) -> tuple[int, int]:
    """(the side on roll's, the opponent's) Isight-adjusted pip counts of ``board`` (26 ints)."""
    sides = []
    for sign in (1, -1):
        points = [0] * 26  # points[p]: this side's checkers on its own point p (25: the bar)
        for point in range(1, 26):
            slot = point if sign == 1 else 25 - point
            points[point] = max(sign * board[slot], 0)
        sides.append(points)
    adjusted = []
    for me, them in ((sides[0], sides[1]), (sides[1], sides[0])):
        count = sum(point * me[point] for point in range(1, 26))
        count += max(sum(me[1:]) - sum(them[1:]), 0)
        count += 2 * max(me[1] - 2, 0) + max(me[2] - 2, 0) + max(me[3] - 3, 0)
        count += sum(1 for point in (4, 5, 6) if me[point] == 0 and them[point] > 0)
        count += max(_crossovers(me) - _crossovers(them), 0)
        adjusted.append(count)
    return adjusted[0], adjusted[1]


def _crossovers(points) -> int:
    # a checker on 7..12 crosses one quarter to get home, 13..18 two, 19..24 three, the bar four
    return sum(((point - 1) // 6) * points[point] for point in range(7, 26))


class Isight(_RaceRule):
    """The Isight method (module doc); thresholds are values of its metric ``P``."""

    name = "isight"
    fast_name = "isight"
    description = "Isight method: P = 80 - L/3 + 2(T-L) on adjusted counts; double at 68, redouble 70, take up to 76"
    PARAMS = (
        Param("double", parse_float, 68.0, "double when the Isight metric P reaches this"),
        Param("redouble", parse_float, 70.0, "redouble when P reaches this"),
        Param("take", parse_float, 76.0, "take while P is at most this"),
        SCORE_AWARE,
    )

    def counts(self, position):
        own, other = isight_counts(position.board)
        return float(own), float(other)

    def threshold(self, own, question):
        # P = 80 - L/3 + 2 (T - L) reaches the threshold at T = L + (threshold - 80 + L/3) / 2
        return own + (getattr(self, question) - 80.0 + own / 3.0) / 2.0

    def reached(self, position, question):
        # 3P compared with three times the threshold: whole numbers, exact in float64
        own, other = self.counts(position)
        return 240.0 - own + 6.0 * (other - own) >= 3.0 * getattr(self, question)

    def beyond_take(self, position):
        own, other = self.counts(position)
        return 240.0 - own + 6.0 * (other - own) > 3.0 * self.take


BOTS = (Rule62, Kleinman, Isight, EffectivePips)
