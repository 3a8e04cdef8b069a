"""The ``exact`` bots: optimal money cube decisions (and, in hypergammon, checker play) where
bgsim knows them, and the best estimate it has elsewhere, saying which.

* **exact, hypergammon**: every position of 1- to 3-checker hypergammon, money play: its solution's
  cubeful equities (``bgsim.hypergammon``, read through :func:`hypergammon_equities`; the cube bot
  is shown the variant's own positions, ``sees_variants``).  The ``exact`` checker bot
  (:class:`ExactChecker`) plays the move with the best equity for the cube as it stands there,
  and ``nn``'s move with the perfect bear-off player in every other game.
* **exact**: a pure bear-off with at most ``bgsim.bearoff.default_two_sided_checkers()`` checkers a
  side (8 by default): the two-sided database's cubeful money equities (perfect play with the
  cube, both sides), so the decision is optimal.
* **estimated, one-sided**: any other pure bear-off: the one-sided database's exact cubeless
  chances, made cubeful by Janowski's formulas (:func:`bots.gnubg_bots.janowski_equities`) with
  cube efficiency 0.6, GNU Backgammon's value for one-sided bear-offs (``rOSCubeX``).
* **estimated, nn**: every other position: the ``nn`` net's cubeless probabilities, made cubeful
  by Janowski with GNU Backgammon's cube efficiency (:func:`bots.gnubg_bots.cube_efficiency`:
  0.68 in contact, ``0.55 + 0.00125 x pips`` of the side on roll within 0.6 .. 0.7 in a race).

Decisions, per unit of the current cube: no double = the centred (or owned) equity,
double/take = 2 x the equity with the opponent owning the cube, double/pass = +1; double when
``min(double/take, 1) > no double``, take when ``double/take <= 1``, beaver (where allowed)
when ``double/take < 0``.  ``tables=false`` ignores the two-sided database and hypergammon's
solution (the estimate everywhere): audited on exact positions it measures the estimate's own error;
``tables=false,estimate=nn`` measures the net's (the estimate behind most race truth).

Both engines: the fast halves (``bgsim/fast/exact.py``, ``bgsim/fast/hyper_exact.py``) make the
same decisions from the same numbers (hypergammon's: ``bgsim.hypergammon.decision_table``, handed
over only for the hypergammon the engine packs the players for).  It is handed only the tables its parameters make it read (the two-sided ones are
72 MB each at 8 checkers), and it computes the match tables' values a decision needs on demand
(bit for bit the full tables', which take hundreds of MB per score).

In a match (``score_aware=true``) the score's forced offers come first (never a cube that
cannot matter, always the free double of a side the next loss finishes).  Then, where both
sides are in the match tables (:mod:`bgsim.bearoff.match`: pure bear-offs of at most 6 checkers
a side, scores up to 25 away), the exact match decision: perfect cube and checker play for the
match, the match equity table beyond the game.  Elsewhere the decisions of
``bots.match_cube.match_equities`` (Janowski in match-winning chances) on the probabilities
above.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgsim.board import Position
from bgsim.cube import CubeView, Response, TurnCube
from bgsim.variants import ACEY_DEUCEY, CUBE_CENTRED, CUBE_CENTRED_JACOBY, CUBE_DEAD, CUBE_OWNED, CUBE_THEIRS

from . import match_cube
from .checker import CheckerBot
from .cube import SCORE_AWARE, CubeBot
from .params import Param, SpecError, parse_bool

EXACT, ONE_SIDED, NN = "exact", "estimated-one-sided", "estimated-nn"
_NOTHING = np.zeros(1, dtype=np.float64)  # a declared array the bot's parameters never read
_NO_NUMBERS = np.zeros(1, dtype=np.int64)
ONE_SIDED_EFFICIENCY = 0.6  # GNU Backgammon's rOSCubeX
TWO_SIDED_EFFICIENCY = 0.6  # GNU Backgammon's rTSCubeX (its match-play value for exact bear-offs)


@dataclass(frozen=True)
class CubeEquities:
    """Money equities of the side on roll per unit of the current cube, and where they came from."""

    centred: float      # no double, cube centred (before any cube action)
    owned: float        # no double, cube owned by the side on roll
    double_take: float  # after doubling and being taken (the opponent owns the doubled cube)
    probabilities: tuple[float, float, float, float, float]
    source: str         # EXACT, ONE_SIDED or NN
    efficiency: float   # Janowski's cube efficiency of the estimate (the match judgement's, when exact)

    def no_double(self, centred: bool) -> float:
        return self.centred if centred else self.owned

    def should_double(self, centred: bool) -> bool:
        return min(self.double_take, 1.0) > self.no_double(centred)

    def should_take(self) -> bool:
        return self.double_take <= 1.0


def hypergammon_equities(position: Position, jacoby_centred: bool = False) -> CubeEquities:
    """The exact money equities of a hypergammon position from its solution, read from the
    table both engines' ``exact`` read (``bgsim.hypergammon.decision_table``): no double centred
    (under the Jacoby rule with ``jacoby_centred``) and owned, double/take, and the chances."""
    from bgsim import hypergammon

    checkers, state = hypergammon.state_of(position)
    row = hypergammon.decision_table(checkers)[state]
    centred = float(row[3] if jacoby_centred else row[0])
    probabilities = hypergammon.values_of(position)[:5]
    return CubeEquities(centred, float(row[1]), 2.0 * float(row[2]), probabilities, EXACT, TWO_SIDED_EFFICIENCY)


def cube_equities(position: Position, tables: bool = True, jacoby_centred: bool = False,
                  estimate: str = "best") -> CubeEquities:
    """The best cubeful money equities bgsim has for ``position`` (side on roll), see the module.
    ``estimate="nn"`` asks the net even in bear-offs (with ``tables=False``: the net everywhere)."""
    from bgsim import bearoff
    from bgsim.hypergammon import checkers_of

    from .gnubg_bots import cube_efficiency, janowski_equities
    from .nn import evaluate, shipped_net

    if position.variant != "standard":
        if tables and checkers_of(position.variant) is not None:
            return hypergammon_equities(position, jacoby_centred)
        position = position.as_standard()  # the estimates know the standard game's positions

    # without the tables, no bear-off is the two-sided database's: every one is the one-sided one's
    found = bearoff.evaluate(position, None if tables else 0)
    if found is not None and found.cubeful is not None:
        cubeful = found.cubeful
        return CubeEquities(cubeful.no_double, cubeful.no_double_owned, cubeful.double_take,
                            found.probabilities, EXACT, TWO_SIDED_EFFICIENCY)
    if found is not None and estimate != "nn":
        probabilities = found.probabilities
        efficiency, source = ONE_SIDED_EFFICIENCY, ONE_SIDED
    else:  # not a bear-off, or the net asked for
        probabilities = evaluate(shipped_net(), position)
        efficiency, source = cube_efficiency(position), NN
    centred, owned, theirs = janowski_equities(probabilities, efficiency, jacoby_centred)
    return CubeEquities(centred, owned, 2.0 * theirs, tuple(probabilities), source, efficiency)


class Exact(CubeBot):
    """Optimal money cube decisions from the two-sided bear-off database, the best estimate
    elsewhere (module doc).  fast_name ``"exact"`` (``bgsim/fast/exact.py``)."""

    name = "exact"
    fast_name = "exact"
    sees_variants = True  # hypergammon's positions as they are: the variant says which solution
    description = ("optimal money cube from the two-sided bear-off database and hypergammon's solution; elsewhere "
                   "Janowski on one-sided/nn chances")
    PARAMS = (
        Param("tables", parse_bool, True, "use the two-sided database and hypergammon's solution where they "
              "hold the position (false: the estimate everywhere)"),
        Param("estimate", str, "best", "outside the two-sided table: best (one-sided database in "
              "bear-offs, else nn) or nn (the net everywhere)"),
        SCORE_AWARE,
    )

    def check(self) -> None:
        if self.estimate not in ("best", "nn"):
            raise SpecError(f"exact: estimate must be best or nn, got {self.estimate!r}")

    def fast_params(self):
        from bgsim import bearoff
        from bgsim.bearoff import match

        from .nn import shipped_net

        return {"hidden": float(shipped_net().hidden), "tables": float(self.tables),
                "estimate_nn": float(self.estimate == "nn"),
                "bearoff_checkers": float(bearoff.default_two_sided_checkers()),
                "match_checkers": float(match.default_match_checkers()),
                "hyper_checkers": float(_packed_hypergammon() if self.tables else 0)}

    def fast_arrays(self):
        """Only the tables the decisions read (the two-sided ones are 72 MB each at 8
        checkers), each the same object every call, so that the engine stores it once."""
        from bgsim import bearoff
        from bgsim.bearoff import match
        from bgsim.bearoff.player import player_tables

        from .nn import shipped_net

        arrays = {**shipped_net().named_arrays(),
                  "bearoff_one_sided": _NOTHING, "bearoff_win": _NOTHING, "rolls_centred": _NOTHING,
                  "rolls_owned": _NOTHING, "opponent_owns": _NOTHING, "match_win": _NOTHING,
                  "match_starts": _NO_NUMBERS, "match_targets": _NO_NUMBERS, "match_pips": _NO_NUMBERS,
                  "hyper_values": _hypergammon_table() if self.tables else _NOTHING}
        if self.estimate == "best":
            arrays["bearoff_one_sided"] = player_tables().one_sided
        if self.tables:
            table = bearoff.two_sided()
            arrays.update(rolls_centred=table.rolls_centred, rolls_owned=table.rolls_owned,
                          opponent_owns=table.opponent_owns)
            if self.score_aware:  # match play reads the cubeless chances and the match tables' data
                checkers = match.default_match_checkers()
                starts, targets, pips = match.successors(checkers)
                arrays.update(bearoff_win=player_tables().win, match_win=match.win_table(checkers),
                              match_starts=starts, match_targets=targets, match_pips=pips)
        return arrays

    def check_variant(self, variant: str) -> None:
        """One line when the solution of the hypergammon played is not built yet (3 checkers)."""
        _check_solution(variant, self.tables)

    def _at_score(self, cube: CubeView) -> bool:
        return bool(self.score_aware and cube.match_to and match_cube.in_table(*cube.away))

    def _exact_at_score(self, position: Position, cube: CubeView):
        """The match tables' answer (``bgsim.bearoff.match``), None where they do not hold it."""
        if not (self.tables and self._at_score(cube)):
            return None
        from bgsim.bearoff import match

        owner = match.CENTRE if cube.centred else match.ON_ROLL
        return match.match_cube(position, cube.value, owner, *cube.away, post_crawford=cube.post_crawford)

    def wants_double(self, position: Position, cube: CubeView) -> bool:
        if self._at_score(cube):  # the match tables and estimates know the standard game's positions
            position = position.as_standard()
        exact = self._exact_at_score(position, cube)
        if exact is not None:
            return exact.should_double()
        if self._at_score(cube):
            found = cube_equities(position, self.tables, estimate=self.estimate)
            no_double, double_take, double_pass = match_cube.match_equities(
                found.probabilities, found.efficiency, cube)
            return min(double_take, double_pass) > no_double
        found = cube_equities(position, self.tables, cube.jacoby and cube.centred, self.estimate)
        return found.should_double(cube.centred)

    def respond(self, position: Position, cube: CubeView) -> Response:
        if self._at_score(cube):
            position = position.as_standard()
        exact = self._exact_at_score(position, cube)
        if exact is not None:
            # a dead cube (any win already ends the match) costs the taker nothing
            return Response.DROP if exact.may_double and not exact.should_take() else Response.TAKE
        if self._at_score(cube):
            found = cube_equities(position, self.tables, estimate=self.estimate)
            _, double_take, double_pass = match_cube.match_equities(
                found.probabilities, found.efficiency, cube)
            return Response.DROP if double_take > double_pass else Response.TAKE
        found = cube_equities(position, self.tables, cube.jacoby and cube.centred, self.estimate)
        if not found.should_take():
            return Response.DROP
        if cube.beaver_allowed and found.double_take < 0.0:
            return Response.BEAVER
        return Response.TAKE


def _check_solution(variant: str, tables: bool) -> None:
    from bgsim.hypergammon import checkers_of

    checkers = checkers_of(variant)
    if tables and checkers:
        from bgsim.hypergammon.database import check_ready

        check_ready(checkers)


def _packed_hypergammon() -> int:
    """The checkers of the hypergammon the fast engine packs players for now, 0 for another game."""
    from bgsim.layouts import packing_variant
    from bgsim.hypergammon import checkers_of

    return checkers_of(packing_variant()) or 0


def _hypergammon_table():
    """The decision table of the hypergammon being packed for (the same object every call, so
    that the engine stores it once for both seats and both bots), else an empty one."""
    checkers = _packed_hypergammon()
    if not checkers:
        return _NOTHING
    from bgsim import hypergammon

    return hypergammon.decision_table(checkers)


def cube_state(cube: TurnCube | None) -> int:
    """The code of ``cube`` (``bgsim.cube.TurnCube.code``); where no cube was told, centred."""
    return CUBE_CENTRED if cube is None else cube.code


def play_value(table, checkers: int, result: Position, state: int) -> float:
    """The money equity, in the cube state ``state``, of the play leading to ``result`` (a
    hypergammon position from the side that moved): the game's points when it bears off the last
    checker (one under the Jacoby rule with the cube centred), else minus the opponent's equity
    on roll there after its best cube action, read from ``table``
    (``bgsim.hypergammon.decision_table``; a dead cube: the cubeless equity)."""
    from bgsim import hypergammon
    from bgsim.scoring import MULTIPLIER, result_of

    if result.checkers_off == checkers:
        return 1.0 if state == CUBE_CENTRED_JACOBY else float(MULTIPLIER[result_of(result)])
    _, after = hypergammon.state_of(result.turned())
    row = table[after]
    centred, owned, theirs, jacoby, cubeless = (float(value) for value in row)
    cash = min(1.0, 2.0 * theirs)
    if state == CUBE_DEAD:
        return -cubeless
    if state == CUBE_CENTRED_JACOBY:
        return -max(jacoby, cash)
    if state == CUBE_OWNED:
        return -theirs  # the opponent on roll, the cube ours
    if state == CUBE_THEIRS:
        return -max(owned, cash)  # the opponent on roll with its own cube
    return -max(centred, cash)  # centred, or nothing told


class ExactChecker(CheckerBot):
    """Perfect money checker play of hypergammon from its solution, for the cube as it stands
    (told before each play, ``see_cube``): the play with the highest equity in that cube state
    (:func:`play_value`), the first in canonical order on a tie.  In every other game, the best
    checker play bgsim has: ``nn``'s, with the perfect bear-off player.  In a match it plays the
    money solution (the solution is money play).  fast_name ``"exact"``
    (``bgsim/fast/hyper_exact.py``)."""

    name = "exact"
    fast_name = "exact"
    sees_variants = True
    description = "perfect money checker play of hypergammon from its solution; elsewhere nn with the bear-off databases"
    refused_variants = (ACEY_DEUCEY,)
    variant_note = "perfect in hypergammon (money); elsewhere nn's play with the bear-off databases"
    PARAMS = (
        Param("tables", parse_bool, True, "use hypergammon's solution in its games (false: nn's play with the "
              "bear-off databases everywhere)"),
    )

    def check(self) -> None:
        from .registry import make_checker

        self.turn: TurnCube | None = None
        self.elsewhere = make_checker("nn(bearoff=true)")

    def see_cube(self, cube: TurnCube) -> None:
        self.turn = cube

    def check_variant(self, variant: str) -> None:
        """One line when the solution of the hypergammon played is not built yet (3 checkers)."""
        _check_solution(variant, self.tables)

    def fast_params(self):
        return {**self.elsewhere.fast_params(), "perfect_bearoff": 1.0, "bearoff_size": float(_bearoff_size()),
                "hyper_checkers": float(_packed_hypergammon() if self.tables else 0)}

    def fast_arrays(self):
        from bgsim.bearoff.player import player_tables

        tables = player_tables()
        return {**self.elsewhere.fast_arrays(), "one_sided": tables.one_sided, "two_sided_win": tables.win,
                "hyper_values": _hypergammon_table() if self.tables else _NOTHING}

    def choose(self, position, roll, plays, random):
        from bgsim import hypergammon

        checkers = hypergammon.checkers_of(position.variant) if self.tables else None
        if checkers is None:
            if position.variant == "standard":
                return self.elsewhere.choose(position, roll, plays, random)
            from .registry import _as_standard, _same_index

            seen = _as_standard(plays)
            return _same_index(self.elsewhere.choose(position.as_standard(), roll, seen, random), seen, plays)
        table = hypergammon.decision_table(checkers)
        state = cube_state(self.turn)
        best, best_value = plays[0], play_value(table, checkers, plays[0].result, state)
        for play in plays[1:]:
            value = play_value(table, checkers, play.result, state)
            if value > best_value:  # strictly greater: ties keep the earlier play
                best, best_value = play, value
        return best


def _bearoff_size() -> int:
    from bgsim.bearoff.player import player_tables

    return int(player_tables().checkers)


BOTS = (Exact, ExactChecker)
