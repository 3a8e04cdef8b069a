"""Exact bear-off databases and the one evaluation every consumer asks: :func:`evaluate`.

As in GNU Backgammon (bearoff.h), each database is built by its own code (Numba kernels in
``bgsim/fast/bearoff.py``), kept in a file that says what it holds (``store.py``), and read
through one function.

* one-sided: every position of up to 15 checkers on the six home points; cubeless chances of
  any race where both sides have borne in, by convolution, and effective pip counts;
* two-sided: every pair of positions of up to ``DEFAULT_TWO_SIDED_CHECKERS`` checkers each
  (``$BGSIM_BEAROFF_CHECKERS`` chooses another size);
  exact cubeless chances and money equities with the cube centred, owned, or the opponent's,
  and the optimal cube action.

Money game without the Jacoby rule.  Jacoby (gammons count single while the cube is centred)
changes nothing in the two-sided tables: with at most 14 checkers each side has borne off a
checker, so no gammon is possible.  It matters only where a side still has all 15 checkers
(one-sided answers): there a centred cube would value a gammon as a single game.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..board import CHECKERS, Position
from .database import (
    DEFAULT_TWO_SIDED_CHECKERS,
    PIPS_PER_ROLL,
    OneSided,
    TwoSided,
    build_one_sided,
    build_two_sided,
    counts_of,
    default_two_sided_checkers,
    one_sided,
    position_number,
    two_sided,
)
from .store import cache_dir

__all__ = [
    "DEFAULT_TWO_SIDED_CHECKERS", "PIPS_PER_ROLL", "Cubeful", "Evaluation", "OneSided", "TwoSided",
    "build_one_sided", "build_two_sided", "cache_dir", "counts_of", "cube_action", "cubeless_equity",
    "default_two_sided_checkers",
    "effective_pip_counts", "evaluate", "home_counts", "one_sided", "position_number", "two_sided",
]

NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS, TOO_GOOD = "no double", "double/take", "double/pass", "too good"


@dataclass(frozen=True)
class Cubeful:
    """Money equities of the side on roll per unit of the current cube, with the cube centred,
    owned by the side on roll, or owned by the opponent, each after the best cube action; and
    the values that action is chosen from: not doubling (cube centred, or owned), and doubling
    with a take (per unit of the cube before the double; a pass is worth 1)."""

    centred: float
    owned: float
    opponent: float
    no_double: float
    no_double_owned: float
    double_take: float


@dataclass(frozen=True)
class Evaluation:
    """The best answer bgsim has for a position, from the side on roll.

    ``probabilities``: cubeless (win, win gammon, win backgammon, lose gammon, lose backgammon),
    gammons including backgammons as in GNU Backgammon; ``equity``: cubeless money equity;
    ``cubeful`` and the cube ``action`` (centred cube) and ``action_owned`` (cube owned by the
    side on roll): None where not exact; ``source``: the database that answered."""

    probabilities: tuple[float, float, float, float, float]
    equity: float
    cubeful: Cubeful | None
    action: str | None
    action_owned: str | None
    source: str


def cubeless_equity(probabilities) -> float:
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = probabilities
    return 2.0 * win - 1.0 + win_gammon - lose_gammon + win_backgammon - lose_backgammon


def cube_action(no_double: float, double_take: float) -> str:
    """The optimal money cube action from the doubler's equities of not doubling and of
    doubling with a take, per unit of the cube before the double (a pass is worth 1).

    The taker takes exactly when its equity after taking, ``-double_take``, is at least -1;
    the doubler doubles when the double (taken or passed) is worth more than not doubling.
    "too good": the opponent would pass, and playing on is worth more than the point."""
    if double_take > 1.0:
        return TOO_GOOD if no_double > 1.0 else DOUBLE_PASS
    return DOUBLE_TAKE if double_take > no_double else NO_DOUBLE


def home_counts(position: Position) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """``(own, opponent)`` checkers on points 1..6 of each side's home board, or None when a
    checker of either side is outside its home board (not a pure bear-off)."""
    board = position.board
    if any(board[slot] > 0 for slot in range(7, 26)) or any(board[slot] < 0 for slot in range(0, 19)):
        return None
    own = tuple(max(board[point], 0) for point in range(1, 7))
    opponent = tuple(max(-board[25 - point], 0) for point in range(1, 7))
    return own, opponent


def _check_not_over(position: Position) -> None:
    if position.checkers_off == CHECKERS or position.opponent_checkers_off == CHECKERS:
        side = "the side on roll" if position.checkers_off == CHECKERS else "the opponent"
        raise ValueError(f"the game is over in {position.position_id}: {side} has borne off all 15 checkers")


def effective_pip_counts(position: Position) -> tuple[float, float] | None:
    """Effective pip counts (own, opponent) of a pure bear-off, None otherwise."""
    _check_not_over(position)
    counts = home_counts(position)
    if counts is None:
        return None
    table = one_sided()
    return table.effective_pip_count(position_number(counts[0])), table.effective_pip_count(position_number(counts[1]))


def evaluate(position: Position, two_sided_checkers: int | None = None) -> Evaluation | None:
    """The exact answer for a pure bear-off (both sides' checkers all in their home boards):
    from the two-sided database when both sides have at most ``two_sided_checkers`` (default: the
    database's size; 0: never), else from the one-sided one; None when a checker is outside its home board.  A finished game is a
    ValueError.  Databases are built into the cache folder on first use (seconds)."""
    _check_not_over(position)
    counts = home_counts(position)
    if counts is None:
        return None
    if two_sided_checkers is None:
        two_sided_checkers = default_two_sided_checkers()
    own, opponent = position_number(counts[0]), position_number(counts[1])
    if sum(counts[0]) <= two_sided_checkers and sum(counts[1]) <= two_sided_checkers:
        table = two_sided(two_sided_checkers)
        win = float(table.win[own, opponent])
        no_double = float(table.rolls_centred[own, opponent])
        no_double_owned = float(table.rolls_owned[own, opponent])
        theirs = float(table.opponent_owns[own, opponent])
        double_take = 2.0 * theirs
        cubeful = Cubeful(
            centred=max(no_double, min(1.0, double_take)),
            owned=max(no_double_owned, min(1.0, double_take)),
            opponent=theirs,
            no_double=no_double,
            no_double_owned=no_double_owned,
            double_take=double_take,
        )
        probabilities = (win, 0.0, 0.0, 0.0, 0.0)
        return Evaluation(
            probabilities, cubeless_equity(probabilities), cubeful,
            cube_action(no_double, double_take), cube_action(no_double_owned, double_take), "two-sided",
        )
    probabilities = one_sided().probabilities(own, opponent)
    return Evaluation(probabilities, cubeless_equity(probabilities), None, None, None, "one-sided")
