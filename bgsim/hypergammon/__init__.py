"""Hypergammon solved: the exact cubeless chances and cubeful money equities of every position of
1-, 2- and 3-checker hypergammon, and the one evaluation every consumer asks, :func:`evaluate`.

Where the checkers touch, this is the only truth bgsim has (the bear-off databases know races
alone).  As the bear-off databases, the solution is built by bgsim's own kernels
(``bgsim/fast/hypergammon.py``: the recursion, plain in :mod:`bgsim.hypergammon.reference`),
kept in a file that says what it holds (:mod:`bgsim.hypergammon.database`), built on first use
(or by ``bgsim bearoff build --variant hypergammonN``) and read through one function.

Money play, no limit on the cube, no beavers; the Jacoby rule as a fourth cube state.  The
numbering of positions is GNU Backgammon's (``makehyper``'s files), so that its solution can be
compared state by state (``experiments/studies/hypergammon.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..bearoff import cube_action, cubeless_equity
from ..board import Position
from ..variants import variant_of

POINTS = 25  # points 1..24 and the bar, as bgsim.fast.hypergammon numbers a side's positions
EXACT = "exact"
CENTRED, OWNED, OPPONENT, JACOBY = 5, 6, 7, 8  # bgsim.fast.hypergammon.VALUES' places


def checkers_of(variant: str) -> int | None:
    """The checkers a side of ``variant`` plays with if it is hypergammon, else None."""
    name = variant_of(variant).name
    return variant_of(name).checkers if name.startswith("hypergammon") else None


@lru_cache(maxsize=None)
def _binomial(n: int, r: int) -> int:
    from math import comb

    return comb(n, r)


def number_of(counts, checkers: int) -> int:
    """GNU Backgammon's number of a side's position, ``counts`` its 25 counts (points 1..24, then
    the bar): ``bgsim.fast.hypergammon.rank`` in plain Python."""
    j = POINTS - 1 + sum(counts)
    bits = 1 << j
    for point in range(POINTS - 1):
        j -= counts[point] + 1
        bits |= 1 << j
    n, r, number = checkers + POINTS, POINTS, 0
    while n > r:
        if bits & (1 << (n - 1)):
            number += _binomial(n - 1, r)
            r -= 1
        n -= 1
    return number


@lru_cache(maxsize=None)
def side_counts(checkers: int) -> tuple[tuple[int, ...], ...]:
    """Every position of a side with up to ``checkers`` checkers as its 25 counts, by number."""
    found: dict[int, tuple[int, ...]] = {}

    def place(left: int, highest: int, counts: list[int]) -> None:
        found[number_of(counts, checkers)] = tuple(counts)
        if left:
            for point in range(highest, -1, -1):  # each further checker no higher than the last
                counts[point] += 1
                place(left - 1, point, counts)
                counts[point] -= 1

    place(checkers, POINTS - 1, [0] * POINTS)
    return tuple(found[number] for number in range(len(found)))


def position_of(state: int, checkers: int) -> Position:
    """The hypergammon position of a state number (the inverse of :func:`state_of`)."""
    counts = side_counts(checkers)
    own, opponent = counts[state // len(counts)], counts[state % len(counts)]
    board = [0] * 26
    board[25] = own[24]
    board[0] = -opponent[24]
    for point in range(1, 25):
        if own[point - 1] and opponent[24 - point]:
            raise ValueError(f"state {state} of hypergammon{checkers} has both sides on point {point}")
        board[point] = own[point - 1] - opponent[24 - point]
    return Position(tuple(board), f"hypergammon{checkers}")


def sides(position: Position) -> tuple[list[int], list[int]]:
    """The 25 counts of the side on roll and of the opponent, each in its own numbering."""
    board = position.board
    own = [max(board[point], 0) for point in range(1, 25)] + [board[25]]
    opponent = [max(-board[25 - point], 0) for point in range(1, 25)] + [-board[0]]
    return own, opponent


def check_position(position: Position) -> int:
    """The checkers of ``position``'s hypergammon; a ValueError in one line for a position of
    another game or a finished one."""
    checkers = checkers_of(position.variant)
    if checkers is None:
        raise ValueError(f"{position.position_string} is a position of {position.variant}, not of hypergammon")
    if position.checkers_off == checkers or position.opponent_checkers_off == checkers:
        side = "the side on roll" if position.checkers_off == checkers else "the opponent"
        raise ValueError(f"the game is over in {position.position_string}: {side} has borne off every checker")
    return checkers


def state_of(position: Position) -> tuple[int, int]:
    """(checkers, state number) of a hypergammon position: ``own * positions + opponent``."""
    checkers = check_position(position)
    own, opponent = sides(position)
    positions = _binomial(POINTS + checkers, checkers)
    return checkers, number_of(own, checkers) * positions + number_of(opponent, checkers)


@dataclass(frozen=True)
class Cubeful:
    """Money equities of the side on roll per unit of the cube: after the best cube action with
    the cube centred (``centred``), owned (``owned``), owned by the opponent (``opponent``: no
    decision) and centred under the Jacoby rule (``jacoby``); and what the actions are chosen
    from: not doubling in each of those (``no_double``, ``no_double_owned``,
    ``no_double_jacoby``) and doubling, taken (``double_take``, per unit of the cube before the
    double; a pass is worth 1; the Jacoby rule no longer applies once the cube is turned)."""

    centred: float
    owned: float
    opponent: float
    jacoby: float
    no_double: float
    no_double_owned: float
    no_double_jacoby: float
    double_take: float


@dataclass(frozen=True)
class Evaluation:
    """The exact answer for a hypergammon position (side on roll): the cubeless chances (win,
    win gammon, win backgammon, lose gammon, lose backgammon; gammons include backgammons), their
    money equity, the cubeful equities and the cube actions (``bgsim.bearoff.cube_action``'s
    words) with the cube centred, owned, and centred under the Jacoby rule."""

    variant: str
    probabilities: tuple[float, float, float, float, float]
    equity: float
    cubeful: Cubeful
    action: str
    action_owned: str
    action_jacoby: str
    source: str = EXACT


def values_of(position: Position, folder=None) -> tuple[float, ...]:
    """The nine stored values of ``position`` (``bgsim.fast.hypergammon.VALUES``), as floats."""
    from . import database

    checkers, state = state_of(position)
    return tuple(float(value) for value in database.solution(checkers, folder).values[state])


def evaluate(position: Position, folder=None) -> Evaluation:
    """The exact evaluation of a position of hypergammon (1 to 3 checkers); the solution is built
    into the cache folder on first use (seconds for 1 and 2 checkers; 3, about half an hour, only when asked).  A position of
    another game, or a finished one, is a ValueError."""
    values = values_of(position, folder)
    probabilities = values[:5]
    theirs = values[OPPONENT]
    double_take = 2.0 * theirs
    cash = min(1.0, double_take)
    cubeful = Cubeful(
        centred=max(values[CENTRED], cash), owned=max(values[OWNED], cash), opponent=theirs,
        jacoby=max(values[JACOBY], cash), no_double=values[CENTRED], no_double_owned=values[OWNED],
        no_double_jacoby=values[JACOBY], double_take=double_take,
    )
    return Evaluation(position.variant, probabilities, cubeless_equity(probabilities), cubeful,
                      cube_action(values[CENTRED], double_take), cube_action(values[OWNED], double_take),
                      cube_action(values[JACOBY], double_take))


# What the exact bots read of a state, in both engines (``bots.exact``, ``bgsim/fast/hyper_exact.py``):
# the four cube states' equities and the cubeless equity of the chances, float64.
DECISION_VALUES = ("centred", "owned", "opponent", "jacoby", "cubeless")


def decision_table(checkers: int):
    """``table[state]``: :data:`DECISION_VALUES` of every state of ``checkers``-checker hypergammon
    (float64, from the stored float32 values; the cubeless equity summed term by term in
    ``bgsim.hypergammon.reference.cubeless_equity``'s order), one read-only array a process and
    cache folder."""
    from ..bearoff.store import cache_dir

    return _decision_table(checkers, cache_dir())


@lru_cache(maxsize=None)
def _decision_table(checkers: int, folder):
    import numpy as np

    from . import database

    values = database.solution(checkers, folder).values
    table = np.empty((len(values), len(DECISION_VALUES)), dtype=np.float64)
    table[:, 0] = values[:, CENTRED]
    table[:, 1] = values[:, OWNED]
    table[:, 2] = values[:, OPPONENT]
    table[:, 3] = values[:, JACOBY]
    chances = values[:, :5].astype(np.float64)
    table[:, 4] = 2.0 * chances[:, 0] - 1.0 + chances[:, 1] - chances[:, 3] + chances[:, 2] - chances[:, 4]
    table.setflags(write=False)
    return table
