"""Cube bots: when to offer a double and how to answer one.

Every built-in cube bot decides from the position and the :class:`~bgsim.cube.CubeView` only,
deterministically, so the fast engine can mirror it.  ``offer_double`` sees the position from the
side that may double (it is on roll, before rolling); ``respond`` sees the position from the
*doubler* too, as the game loop passes it.  The engine asks only when a double is allowed
(cube centred or owned, below the maximum, not the Crawford game), so no bot checks that again.

A "first double" is a double from the centred cube (even if automatic doubles have raised it);
a "redouble" is a double of a cube the doubler owns.

A bot implements ``wants_double`` and ``respond``; ``offer_double`` (what a player asks) applies
the ``score_aware`` capability first (:data:`SCORE_AWARE`, the switch: what the match score
decides alone, ``bots.match_cube.forced_offer``; the capability contract is ``bgsim/layouts.py``'s).

Match play: ``pipdiff``, ``keith`` and ``thorp`` judge at the score (``score_aware=true``, the
default; see ``bots/match_cube.py``): no cube that cannot matter, the free double at once, their
thresholds read as winning chances and moved by the score's take point from the match equity
table.  ``score_aware=false`` keeps the money rule in matches too.  Money play is the same either
way.  The engine keeps every bot out of the Crawford game.  Only ``pipdiff`` with a ``beaver``
threshold ever beavers (and only where the CubeView allows it); the others never do.
"""

from __future__ import annotations

from typing import Mapping

from bgsim.board import Position
from bgsim.cube import CubeView, Response

from . import match_cube
from .params import (
    Bot, Param, SpecError, Threshold, parse_bool, parse_float, parse_signed_threshold_or_off,
    parse_threshold,
)


SCORE_AWARE = Param("score_aware", parse_bool, True,
                    "in matches, judge at the score from the match equity table (false: money rule)")


class CubeBot(Bot):
    # True for a rule that speaks only in races (in contact it never doubles and takes every
    # double): studies judge such a rule only in races (pipdiff's race_only parameter sets it)
    race_only = False

    def offer_double(self, position: Position, cube: CubeView) -> bool:
        """Whether to double: what the match score decides alone where the bot's ``score_aware``
        switch is on (``bots.match_cube.forced_offer``), else :meth:`wants_double`."""
        if getattr(self, "score_aware", False) and cube.match_to:
            forced = match_cube.forced_offer(cube)
            if forced is not None:
                return forced
        return self.wants_double(position, cube)

    def wants_double(self, position: Position, cube: CubeView) -> bool:
        """The bot's own judgement of whether to double (seen from the doubler, on roll)."""
        raise NotImplementedError

    def respond(self, position: Position, cube: CubeView) -> Response:
        raise NotImplementedError


class NeverDoubles(CubeBot):
    """The shared half of the three bots that never offer a double; they differ in the answer."""

    def wants_double(self, position, cube):
        return False


class AlwaysTake(NeverDoubles):
    """Never doubles and takes every double."""

    name = "always-take"
    fast_name = "always-take"
    description = "never doubles, takes every double"

    def respond(self, position, cube):
        return Response.TAKE


class NoCube(AlwaysTake):
    """The cube side of a bare CHECKER spec: never doubles, always takes.

    It plays exactly as ``always-take`` but keeps its own name, so a bare CHECKER's spec stays
    bare.
    """

    name = "none"
    fast_name = "none"
    description = "no cube play: never doubles, takes every double (what a bare CHECKER spec uses)"


class NeverTake(NeverDoubles):
    """Never doubles and drops every double."""

    name = "never-take"
    fast_name = "never-take"
    description = "never doubles, drops every double"

    def respond(self, position, cube):
        return Response.DROP


class PipDiff(CubeBot):
    """The pip-difference rule: double on a big enough pip lead, take a small enough deficit.

    With the position seen from the doubler (on roll): ``own = position.pip_count``,
    ``opp = position.opponent_pip_count``, ``lead = opp - own`` (the doubler's lead, may be
    negative), and the taker's deficit is the same number.

    * offer a first double (cube centred) when ``double.reached(lead, own)``;
    * offer a redouble (cube owned) when ``redouble.reached(lead, own)``;
    * take when ``take.within(lead, own)``, else drop;
    * beaver instead of taking when ``cube.beaver_allowed`` and ``beaver.within(lead, own)``
      (``beaver`` is off by default: the bot then never beavers).

    ``Threshold.reached``/``within`` compare exactly (float64, no rounding):

    * absolute ``double=10``: ``lead >= 10``; take ``take=12``: ``lead <= 12``;
    * percent ``double=8%``: ``100.0 * lead >= 8 * own``, i.e. the lead is at least 8% of the
      **doubler's** own pip count; ``take=12%``: ``100.0 * lead <= 12 * own``.  Percent is
      always of the doubler's count, for the taker as well (the 8-9-12 rule's convention).
    * ``beaver`` may be negative: ``beaver=-2%`` is ``100.0 * lead <= -2 * own``, a beaver when
      the doubler *trails* by at least 2% of its own count; ``beaver=0``: ``lead <= 0``.

    Defaults are the well-known 8-9-12 race rule (popularised by Walter Trice): double with a
    lead of at least 8% of your own count, redouble with 9%, take when down by at most 12% of
    the doubler's count.

    ``race_only=true``: doubles only when ``position.is_race``; asked to take a double in a
    position with contact it always takes (its pip rule says nothing about contact positions,
    and a take keeps the game going rather than conceding a position it cannot judge).
    Without race_only the rule is applied in contact too: this is the crude rule under study.
    With race_only it never beavers in contact either (it only takes there).

    ``beaver`` must be in the same units as ``take`` and below it, so a beaver is always a
    position the bot would take (a beaver is a take that at once redoubles).

    ``fast_params()`` gives each threshold as a number (8.0 for ``8%``, 10.0 for ``10``, -2.0
    for ``-2%``) with a 0.0/1.0 ``_percent`` flag; with beaver off, beaver_on and both beaver
    values are 0.0.
    """

    name = "pipdiff"
    fast_name = "pipdiff"
    description = "pip-count rule: double on a lead, take a small enough deficit (default 8-9-12%)"
    PARAMS = (
        Param("double", parse_threshold, Threshold(8.0, True),
              "first double when the pip lead is at least this (pips, or % of own count)"),
        Param("redouble", parse_threshold, Threshold(9.0, True),
              "redouble (owned cube) when the pip lead is at least this"),
        Param("take", parse_threshold, Threshold(12.0, True),
              "take when the pip deficit is at most this (% of the doubler's count)"),
        Param("race_only", parse_bool, False,
              "double only in pure races (and take every double in contact)"),
        Param("beaver", parse_signed_threshold_or_off, None,
              "beaver (if allowed) when the lead is at most this, e.g. -2% = trails by 2%+ "
              "(units of take, below it)"),
        SCORE_AWARE,
    )

    def check(self) -> None:
        for key in ("double", "redouble", "take"):
            if not isinstance(getattr(self, key), Threshold):
                raise SpecError(f"pipdiff: {key} must be a threshold, got {getattr(self, key)!r}")
        if self.beaver is not None:
            self._check_beaver()
        # Same units and take < double: this player would drop every double it offers itself,
        # which is no cube strategy at all.
        for key in ("double", "redouble"):
            offer = getattr(self, key)
            if offer.percent == self.take.percent and self.take.value < offer.value:
                raise SpecError(
                    f"pipdiff: take={self.take} is below {key}={offer}: the player would drop "
                    f"every {key} it offers itself"
                )

    def _check_beaver(self) -> None:
        beaver, take = self.beaver, self.take
        if not isinstance(beaver, Threshold):
            raise SpecError(f"pipdiff: beaver must be a threshold or off, got {beaver!r}")
        # Percent and pips cannot be ordered for every pip count, and a beaver where the same
        # player would drop is no cube strategy: demand the units of take and a smaller value.
        if beaver.percent != take.percent:
            raise SpecError(
                f"pipdiff: beaver={beaver} must be in the same units as take={take} "
                f"({'percent' if take.percent else 'pips'})"
            )
        if not beaver.value < take.value:
            raise SpecError(
                f"pipdiff: beaver={beaver} must be below take={take}: the player would beaver "
                f"doubles it should only take (or drop)"
            )

    def wants_double(self, position: Position, cube: CubeView) -> bool:
        if self.race_only and not position.is_race:
            return False
        own = position.pip_count
        lead = position.opponent_pip_count - own
        threshold = self.double if cube.centred else self.redouble
        if self.score_aware and cube.match_to:
            return match_cube.race_chance(own, own + lead) >= \
                match_cube.race_chance(own, own + _lead_of(threshold, own)) + match_cube.shift(cube)
        return threshold.reached(lead, own)

    def respond(self, position: Position, cube: CubeView) -> Response:
        if self.race_only and not position.is_race:
            return Response.TAKE
        own = position.pip_count
        lead = position.opponent_pip_count - own
        if self.score_aware and cube.match_to:  # no beaver in a match
            if match_cube.race_chance(own, own + lead) > \
                    match_cube.race_chance(own, own + _lead_of(self.take, own)) + match_cube.shift(cube):
                return Response.DROP
            return Response.TAKE
        if not self.take.within(lead, own):
            return Response.DROP
        if self.beaver is not None and cube.beaver_allowed and self.beaver.within(lead, own):
            return Response.BEAVER
        return Response.TAKE

    def fast_params(self) -> Mapping[str, float]:
        beaver = self.beaver
        return {
            "double": float(self.double.value), "double_percent": float(self.double.percent),
            "redouble": float(self.redouble.value), "redouble_percent": float(self.redouble.percent),
            "take": float(self.take.value), "take_percent": float(self.take.percent),
            "race_only": float(self.race_only),
            "beaver": float(beaver.value) if beaver is not None else 0.0,
            "beaver_percent": float(beaver.percent) if beaver is not None else 0.0,
            "beaver_on": float(beaver is not None),
        }


def _lead_of(threshold: Threshold, own: int) -> float:
    """The pip lead at which ``threshold`` is just reached, for a doubler with ``own`` pips."""
    if threshold.percent:
        return threshold.value * own / 100.0
    return threshold.value


def keith_count(board) -> int:
    """Tom Keith's count of the side whose checkers are positive in ``board`` (26 ints).

    pip count + 2 for each checker beyond one on the 1-point + 1 for each checker beyond one on
    the 2-point + 1 for each checker beyond three on the 3-point + 1 for each of the 4-, 5- and
    6-points with none of its checkers.
    """
    count = 0
    for point in range(1, 26):
        if board[point] > 0:
            count += point * board[point]
    count += 2 * max(board[1] - 1, 0)
    count += max(board[2] - 1, 0)
    count += max(board[3] - 3, 0)
    for point in (4, 5, 6):
        if board[point] <= 0:
            count += 1
    return count


def thorp_count(board) -> int:
    """Edward Thorp's count of the side whose checkers are positive in ``board`` (26 ints).

    pip count + 2 for each checker still on the board (bar included) + 1 for each checker on the
    1-point - 1 for each of the home points 1..6 it occupies.
    """
    pips = 0
    on_board = 0
    for point in range(1, 26):
        if board[point] > 0:
            pips += point * board[point]
            on_board += board[point]
    occupied = 0
    for point in range(1, 7):
        if board[point] > 0:
            occupied += 1
    return pips + 2 * on_board + max(board[1], 0) - occupied


class _RaceCount(CubeBot):
    """Shared by keith and thorp: a race formula, compared against three margins.

    In contact (``not position.is_race``) the race formulas do not apply: the bot never doubles
    and takes every double.
    """

    race_only = True

    def excess_at_most(self, position: Position, margin: float) -> bool:
        raise NotImplementedError

    def counts(self, position: Position) -> tuple[int, int]:
        """(the doubler's count, the taker's)."""
        raise NotImplementedError

    def threshold_count(self, own: int, margin: float) -> float:
        """The taker's count at which the doubler's excess is exactly ``margin``."""
        raise NotImplementedError

    def wants_double(self, position: Position, cube: CubeView) -> bool:
        if not position.is_race:
            return False
        margin = self.double if cube.centred else self.redouble
        if self.score_aware and cube.match_to:
            own, other = self.counts(position)
            return match_cube.race_chance(own, other) >= \
                match_cube.race_chance(own, self.threshold_count(own, margin)) + match_cube.shift(cube)
        return self.excess_at_most(position, margin)

    def respond(self, position: Position, cube: CubeView) -> Response:
        if not position.is_race:
            return Response.TAKE
        if self.score_aware and cube.match_to:
            own, other = self.counts(position)
            if match_cube.race_chance(own, other) > \
                    match_cube.race_chance(own, self.threshold_count(own, self.take)) + match_cube.shift(cube):
                return Response.DROP
            return Response.TAKE
        return Response.TAKE if self.excess_at_least(position, self.take) else Response.DROP

    def check(self) -> None:
        if self.take > self.double or self.take > self.redouble:
            raise SpecError(
                f"{self.name}: take={self.take:g} is above double={self.double:g} or "
                f"redouble={self.redouble:g}: the player would drop the doubles it offers itself"
            )

    def fast_params(self) -> Mapping[str, float]:
        return {"double": float(self.double), "redouble": float(self.redouble), "take": float(self.take)}


class Keith(_RaceCount):
    """The Keith count (Tom Keith, 2004), for races.

    Each side's count is :func:`keith_count`; the roller's (the doubler's) count is increased by
    one seventh, rounded down, as the published rule says ("Increase the count of the player on
    roll by one-seventh (rounding down)", bgonline.org/keith.html; bkgm.com glossary, "Keith
    count").  With ``R`` the doubler's count and ``O`` the opponent's, the excess is
    ``R + R // 7 - O`` (a whole number), and the published rule is:

    * double if the excess is at most 4, redouble if it is at most 3;
    * take if the excess is at least 2 (i.e. drop when the doubler's adjusted count exceeds the
      taker's by less than 2).

    The margins are parameters.  In contact: never doubles, always takes.
    """

    name = "keith"
    fast_name = "keith"
    description = "Keith count for races (double if excess <= 4, redouble <= 3, take >= 2)"
    PARAMS = (
        Param("double", parse_float, 4.0, "double when the roller's adjusted count exceeds the opponent's by at most this"),
        Param("redouble", parse_float, 3.0, "redouble when the excess is at most this"),
        Param("take", parse_float, 2.0, "take when the doubler's excess is at least this"),
        SCORE_AWARE,
    )

    def counts(self, position):
        return keith_count(position.board), keith_count(position.turned().board)

    def threshold_count(self, own, margin):
        return float(own + own // 7) - margin

    @staticmethod
    def excess(position: Position) -> int:
        roller = keith_count(position.board)
        return roller + roller // 7 - keith_count(position.turned().board)

    def excess_at_most(self, position, margin):
        return self.excess(position) <= margin

    def excess_at_least(self, position, margin):
        return self.excess(position) >= margin


class Thorp(_RaceCount):
    """The Thorp count (Edward O. Thorp), for races.

    Each side's count is :func:`thorp_count`.  ``L`` is the doubler's (the leader's) count and
    ``T`` the other side's.  If ``L > 30`` the leader's count is increased by 10%.  Then:

    * double if ``L <= T + 2``, redouble if ``L <= T + 1``;
    * take if ``L >= T - 2`` (the doubler's count is not more than 2 below the taker's).

    Written as an excess ``L' - T`` against margins double=2, redouble=1, take=-2, and computed
    without fractions: when ``L > 30``, ``11*L - 10*T`` is compared with ``10*margin``;
    otherwise ``L - T`` with ``margin`` (float64; exact for whole-number margins).  In contact:
    never doubles, always takes.
    """

    name = "thorp"
    fast_name = "thorp"
    description = "Thorp count for races (double if L <= T+2, redouble <= T+1, take if L >= T-2)"
    PARAMS = (
        Param("double", parse_float, 2.0, "double when the leader's adjusted count exceeds the trailer's by at most this"),
        Param("redouble", parse_float, 1.0, "redouble when the excess is at most this"),
        Param("take", parse_float, -2.0, "take when the doubler's excess is at least this"),
        SCORE_AWARE,
    )

    def counts(self, position):
        return self._counts(position)

    def threshold_count(self, own, margin):
        if own > 30:
            return (11.0 * own - 10.0 * margin) / 10.0
        return own - margin

    @staticmethod
    def _counts(position: Position) -> tuple[int, int]:
        return thorp_count(position.board), thorp_count(position.turned().board)

    def excess_at_most(self, position, margin):
        leader, trailer = self._counts(position)
        if leader > 30:
            return 11.0 * leader - 10.0 * trailer <= 10.0 * margin
        return float(leader - trailer) <= margin

    def excess_at_least(self, position, margin):
        leader, trailer = self._counts(position)
        if leader > 30:
            return 11.0 * leader - 10.0 * trailer >= 10.0 * margin
        return float(leader - trailer) >= margin


BOTS = (PipDiff, Keith, Thorp, AlwaysTake, NeverTake, NoCube)  # in the order `bgsim bots` lists them
