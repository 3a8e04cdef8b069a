"""Hypergammon's recursion in plain Python: the source of truth the kernels of
``bgsim/fast/hypergammon.py`` follow, and a solver small enough for 1 checker a side (2 take
minutes).

The values of a position, from the side on roll, per unit of the cube (:class:`Values`): the
cubeless chances, each roll played for the cubeless money equity (the first such play in the
canonical order of ``bgsim.legal_plays`` on a tie, within :data:`TIE`: equal plays often differ
in their chances, and their equities come out of arithmetic a rounding apart), and the money equities of not doubling with the
cube centred, with the cube owned by the side on roll, of rolling with the cube owned by the
opponent, and of not doubling with the cube centred under the Jacoby rule, each playing its own
best play.  After its best cube action the side on roll has :func:`with_cube_action`.

One step (:func:`step`): the mean over the 36 rolls of the best play's values, each play's read
from the position it leaves with the opponent on roll (:func:`turned`); bearing off the last
checker scores the game (:func:`won`); a roll with no play hands the opponent the roll at the
same position, with its own cube decision.  :func:`solve` repeats steps over every position
until none moves by ``threshold``.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from ..board import Position
from ..rules import legal_plays
from ..scoring import BACKGAMMON, GAMMON, MULTIPLIER, result_of
from ..variants import variant_of

# plays whose cubeless equities differ by at most this are tied (bgsim.fast.hypergammon.TIE)
TIE = 1e-12
ROLLS = tuple((first, second) for first in range(1, 7) for second in range(1, first + 1))


class Values(NamedTuple):
    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float
    centred: float  # no double, cube centred
    owned: float  # no double, cube owned by the side on roll
    opponent: float  # cube owned by the opponent (no cube decision)
    jacoby: float  # no double, cube centred, the Jacoby rule


ZERO = Values(*([0.0] * 9))


def cubeless_equity(values: Values) -> float:
    """Cubeless money equity of the chances (gammons include backgammons)."""
    return (2.0 * values.win - 1.0 + values.win_gammon - values.lose_gammon + values.win_backgammon
            - values.lose_backgammon)


def with_cube_action(no_double: float, opponent: float) -> float:
    """The side on roll's equity after its best cube action: not doubling (``no_double``), or
    doubling, taken at twice the equity with the cube the taker's (``opponent``) or passed for 1."""
    return max(no_double, min(1.0, 2.0 * opponent))


def won(winner_view: Position) -> Values:
    """The values of a game the side that just moved has won (``winner_view`` from it)."""
    result = result_of(winner_view)
    points = float(MULTIPLIER[result])
    gammon = result in (GAMMON, BACKGAMMON)
    return Values(1.0, float(gammon), float(result == BACKGAMMON), 0.0, 0.0, points, points, points, 1.0)


def turned(theirs: Values) -> Values:
    """Our values after a play that leaves the opponent on roll with ``theirs``: its chances
    turned, and each cube state's equity negated after the opponent's own cube action (our cube
    is the opponent's opponent-owned one; its own is our opponent-owned one)."""
    return Values(
        1.0 - theirs.win, theirs.lose_gammon, theirs.lose_backgammon, theirs.win_gammon, theirs.win_backgammon,
        -with_cube_action(theirs.centred, theirs.opponent),
        -theirs.opponent,
        -with_cube_action(theirs.owned, theirs.opponent),
        -with_cube_action(theirs.jacoby, theirs.opponent),
    )


def gnubg_turned(theirs: Values) -> Values:
    """GNU Backgammon's makehyper (1.07) after a roll without a play: the opponent's values
    negated as they are, no cube decision for it (``bgsim.fast.hypergammon``, ``gnubg_dance``);
    for checking its files, never bgsim's own recursion."""
    return Values(1.0 - theirs.win, theirs.lose_gammon, theirs.lose_backgammon, theirs.win_gammon,
                  theirs.win_backgammon, -theirs.centred, -theirs.owned, -theirs.opponent, -theirs.jacoby)


def step(position: Position, value_of: Callable[[Position], Values], plays_of=legal_plays,
         gnubg_dance: bool = False) -> Values:
    """One step of the recursion for ``position`` (a hypergammon position, the game not over):
    ``value_of(p)`` gives the values of a position ``p`` with its side on roll, ``plays_of`` the
    legal plays of a position and roll; ``gnubg_dance``: GNU Backgammon's convention for a roll
    without a play (:func:`gnubg_turned`)."""
    checkers = variant_of(position.variant).checkers
    total = [0.0] * 9
    for roll in ROLLS:
        weight = 1.0 if roll[0] == roll[1] else 2.0
        options = []
        for play in plays_of(position, roll):
            if play.result.checkers_off == checkers:
                options.append(won(play.result))
            else:
                options.append(turned(value_of(play.result.turned())))
        if not options:
            options.append((gnubg_turned if gnubg_dance else turned)(value_of(position.turned())))
        top = max(cubeless_equity(option) for option in options)
        chances = next(option for option in options if cubeless_equity(option) >= top - TIE)
        best = list(chances[:5]) + [max(option[k] for option in options) for k in range(5, 9)]
        for k in range(9):
            total[k] += weight * best[k]
    return Values(*(value / 36.0 for value in total))


def positions(checkers: int) -> list[Position]:
    """Every position of ``checkers``-checker hypergammon with the game not over: each side has a
    checker left and no point holds checkers of both."""
    variant = f"hypergammon{checkers}"
    places = range(26)  # 0: off, 1..24: points, 25: the bar

    def sides(count):
        if count == 0:
            yield ()
            return
        for first in places:
            for rest in sides(count - 1):
                if not rest or first >= rest[0]:
                    yield (first,) + rest

    found = []
    for own in sides(checkers):
        for theirs in sides(checkers):
            if all(place == 0 for place in own) or all(place == 0 for place in theirs):
                continue
            board = [0] * 26
            clash = False
            for place in own:
                if place:
                    board[place] += 1
            for place in theirs:
                if place:
                    slot = 0 if place == 25 else 25 - place
                    if board[slot] > 0:
                        clash = True
                    board[slot] -= 1
            if not clash:
                found.append(Position(tuple(board), variant))
    return found


def solve(checkers: int, threshold: float = 1e-12, max_sweeps: int = 1000) -> dict[Position, Values]:
    """Every position's values by repeated steps in place (Gauss-Seidel) until no value moves by
    ``threshold``; the legal plays of each position and roll found once."""
    found = positions(checkers)
    values = {position: ZERO for position in found}
    plays = {}

    def plays_of(position: Position, roll) -> list:
        if (position, roll) not in plays:
            plays[(position, roll)] = legal_plays(position, roll)
        return plays[(position, roll)]

    for _ in range(max_sweeps):
        change = 0.0
        for position in found:
            new = step(position, values.__getitem__, plays_of)
            change = max(change, max(abs(a - b) for a, b in zip(new, values[position])))
            values[position] = new
        if change < threshold:
            return values
    raise RuntimeError(f"hypergammon{checkers} did not converge to {threshold:g} in {max_sweeps} sweeps")
