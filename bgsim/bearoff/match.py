"""The two-sided bear-off database at a match score: exact match-winning chances with the cube.

For money the cube scales every result alike, so one table per cube owner serves every cube
value (``bgsim.bearoff.two_sided``).  In a match a cube of ``c`` ends the game with ``c`` points,
and what those are worth depends on the score: the values are match-winning chances (MWC) read
from the published match equity table (:func:`bgsim.met.published`, Kazaross-XG2, 25 points)
once the game is over, and each cube value has its own table.  ``bgsim.fast.bearoff.
match_two_sided`` computes them all for one score (a kernel: ``building.py``): every cube value
from 1 up to the first that is dead (at least what both sides need), centred, owned or the opponent's, each side
playing its checkers and its cube perfectly for the match.

What it covers: pure bear-offs where both sides have at most ``match_checkers`` checkers
(``DEFAULT_MATCH_CHECKERS`` = 6, or ``$BGSIM_MATCH_BEAROFF_CHECKERS``), every score up to 25
away, pre- and post-Crawford and the Crawford game.  Tables take seconds per score (both
orientations of the score at once) and are kept in memory for the last few scores asked; the
numbers are the match equity table's beyond the game, so they are exact *given that table*.
No gammons: with at most 14 checkers each side has borne one off.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import met, settings
from ..board import Position
from .. import bearoff_numbering as numbering
from . import building, database

DEFAULT_MATCH_CHECKERS = settings.MATCH_BEAROFF_CHECKERS.default
CENTRE, ON_ROLL, OPPONENT = "centre", "on roll", "opponent"
OWNERS = (CENTRE, ON_ROLL, OPPONENT)
_STATE = {CENTRE: numbering.CENTRED, ON_ROLL: numbering.OWNED, OPPONENT: numbering.OPPONENT_OWNS}


def default_match_checkers() -> int:
    """``$BGSIM_MATCH_BEAROFF_CHECKERS`` if set, else ``DEFAULT_MATCH_CHECKERS``: a match table
    of 6 checkers a side takes about 50 MB per cube value and seconds per score."""
    return database.checkers_from_environment(settings.MATCH_BEAROFF_CHECKERS)


def dead_level(away: int, opponent_away: int) -> int:
    """The first cube level ``k`` (cube ``2**k``) at which any win ends the match for either side."""
    level = 0
    while (1 << level) < max(away, opponent_away):
        level += 1
    return level


@dataclass(frozen=True)
class MatchTables:
    """``values[k, state, o, a, b]`` of ``bgsim.fast.bearoff.match_two_sided`` for the score ``(first,
    second)`` away: orientation 0 has the side ``first`` away on roll.  ``win_values`` and
    ``lose_values``: the MWC of the side on roll once it has won or lost the cube ``2**k``."""

    first: int
    second: int
    post_crawford: bool
    checkers: int
    values: np.ndarray
    win_values: np.ndarray
    lose_values: np.ndarray


def _after_game(post_crawford: bool):
    """MWC of a side ``a`` away against ``b`` away once this game is over.  Before the Crawford
    game the table's 1-away row is the Crawford game's; after it, the post-Crawford row."""
    table = met.published()

    def equity(a: int, b: int) -> float:
        return table.equity(a, b, post_crawford)

    return equity


def check_score(away, opponent_away) -> None:
    length = met.published().length
    for value in (away, opponent_away):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= length:
            raise ValueError(f"a match score for the bear-off tables is 1..{length} away, got {value!r}")


def match_tables(away: int, opponent_away: int, post_crawford: bool = False,
                 checkers: int | None = None) -> MatchTables:
    """The tables of a score (built on first use, kept for the last few scores)."""
    check_score(away, opponent_away)
    if checkers is None:
        checkers = default_match_checkers()
    database.check_two_sided_checkers(checkers)
    first, second = min(away, opponent_away), max(away, opponent_away)
    # post-Crawford only means something while exactly one side is 1 away
    post = bool(post_crawford) and (first == 1) != (second == 1)
    return _match_tables(int(first), int(second), post, checkers)


@lru_cache(maxsize=3)
def _match_tables(first: int, second: int, post_crawford: bool, checkers: int) -> MatchTables:
    after = _after_game(post_crawford)
    top = dead_level(first, second)
    aways = ((first, second), (second, first))
    win_values = np.array([[after(a - (1 << k), b) for k in range(top + 1)] for a, b in aways])
    lose_values = np.array([[after(a, b - (1 << k)) for k in range(top + 1)] for a, b in aways])
    positions = database._all_positions()[: numbering.position_count(checkers)]
    kernels = building.kernels("the bear-off match tables")
    starts, targets = kernels.successors(positions, numbering.ROLLS, numbering.BINOMIALS)
    win = win_table(checkers)
    values = kernels.match_two_sided(positions, starts, targets, numbering.ROLL_WEIGHTS, win, win_values,
                                     lose_values)
    return MatchTables(first, second, post_crawford, checkers, values, win_values, lose_values)


@lru_cache(maxsize=2)
def successors(checkers: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(starts, targets, pips)`` of every position of up to ``checkers`` checkers: the
    successor lists the match tables are computed from (``bgsim.fast.bearoff.successors``), and
    each position's pips; read-only, the same array objects every call, so that the fast
    engine, which takes them as data for ``exact``'s on-demand recursion, stores them once."""
    positions = database._all_positions()[: numbering.position_count(checkers)]
    kernels = building.kernels("the bear-off match tables")
    starts, targets = kernels.successors(positions, numbering.ROLLS, numbering.BINOMIALS)
    pips = positions.astype(np.int64) @ np.arange(1, numbering.POINTS + 1, dtype=np.int64)
    for array in (starts, targets, pips):
        array.setflags(write=False)
    return starts, targets, pips


@lru_cache(maxsize=2)
def win_table(checkers: int) -> np.ndarray:
    """The two-sided cubeless win table of ``checkers`` a side: the first rows and columns of a
    larger database's (position numbers of fewer checkers come first); the same array object
    every call, so the fast engine, which takes it as data, stores it once."""
    size = numbering.position_count(checkers)
    source = database.two_sided(max(checkers, database.default_two_sided_checkers()))
    return np.ascontiguousarray(source.win[:size, :size])


@dataclass(frozen=True)
class MatchCube:
    """The side on roll's exact MWC for its cube choices at the score.

    ``no_double``: rolling without doubling; ``double_take``/``double_pass``: after doubling
    and a take (the taker owns the doubled cube) or a pass; both None where the side may not
    double (Crawford game, the opponent's cube, or a dead cube).  ``cubeless_win``: the
    database's cubeless chance to win the game."""

    no_double: float
    double_take: float | None
    double_pass: float | None
    cubeless_win: float

    @property
    def may_double(self) -> bool:
        return self.double_take is not None

    def double_value(self) -> float:
        """What doubling is worth to the doubler: the taker picks the smaller of take and pass."""
        return min(self.double_take, self.double_pass)

    def should_double(self) -> bool:
        return self.may_double and self.double_value() > self.no_double

    def should_take(self) -> bool:
        return self.double_take <= self.double_pass

    @property
    def value(self) -> float:
        """The MWC of the side on roll before its cube decision, both sides perfect."""
        return max(self.no_double, self.double_value()) if self.may_double else self.no_double


def match_cube(position: Position, cube_value: int, owner: str, away: int, opponent_away: int,
               crawford: bool = False, post_crawford: bool = False,
               checkers: int | None = None) -> MatchCube | None:
    """Exact MWC of the side on roll's cube choices in ``position`` at a match score (the side
    on roll ``away`` points from winning, its opponent ``opponent_away``), with the cube at
    ``cube_value`` owned by ``owner`` (``"centre"``, ``"on roll"`` or ``"opponent"``).  None
    where the tables do not hold the position (a checker outside its home board, more than
    ``checkers`` a side, or a score beyond the table)."""
    if owner not in OWNERS:
        raise ValueError(f"the cube's owner is one of {', '.join(OWNERS)}, got {owner!r}")
    if isinstance(cube_value, bool) or not isinstance(cube_value, (int, np.integer)) or cube_value < 1 \
            or cube_value & (cube_value - 1):
        raise ValueError(f"a cube value is a power of two, got {cube_value!r}")
    from . import home_counts

    if checkers is None:
        checkers = default_match_checkers()
    counts = home_counts(position)
    if counts is None or sum(counts[0]) > checkers or sum(counts[1]) > checkers:
        return None
    if sum(counts[0]) == 0 or sum(counts[1]) == 0:
        raise ValueError(f"the game is over in {position.position_id}")
    length = met.published().length
    if away > length or opponent_away > length:
        return None
    check_score(away, opponent_away)
    own, theirs = database.position_number(counts[0]), database.position_number(counts[1])
    win = float(win_table(checkers)[own, theirs])
    if crawford:
        after = _after_game(True)
        value = win * after(away - 1, opponent_away) + (1.0 - win) * after(away, opponent_away - 1)
        return MatchCube(value, None, None, win)
    tables = match_tables(away, opponent_away, post_crawford, checkers)
    o = 0 if away == tables.first else 1
    top = tables.values.shape[0] - 1
    level = min(int(cube_value).bit_length() - 1, top)
    no_double = float(tables.values[level, _STATE[owner], o, own, theirs])
    if owner == OPPONENT or level == top:
        return MatchCube(no_double, None, None, win)
    return MatchCube(no_double, float(tables.values[level + 1, numbering.OPPONENT_OWNS, o, own, theirs]),
                     float(tables.win_values[o, level]), win)


__all__ = ["CENTRE", "DEFAULT_MATCH_CHECKERS", "MatchCube", "MatchTables", "ON_ROLL", "OPPONENT",
           "OWNERS", "dead_level", "default_match_checkers", "match_cube", "match_tables", "win_table"]
