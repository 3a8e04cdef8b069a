"""How a finished game is scored: single, gammon or backgammon, times the cube.

A game an external player forfeits (``bgsim.decisions.Forfeit``: an illegal or missing answer,
a timeout, a crash) ends there, result ``forfeit``, and scores as the most the game could have
cost the forfeiter: a backgammon at the cube's value, the rule options applied (a gammon with
``backgammon_as_gammon``, a single under the Jacoby rule before a double was taken); in a match,
``points_counted`` caps it at what the winner needed, as for any game.
"""

from __future__ import annotations

from .board import Position
from .cube import Rules

SINGLE = "single"
GAMMON = "gammon"
BACKGAMMON = "backgammon"
DROP = "drop"
FORFEIT = "forfeit"

MULTIPLIER = {SINGLE: 1, GAMMON: 2, BACKGAMMON: 3, DROP: 1, FORFEIT: 3}


def result_of(position: Position) -> str:
    """The result of a finished game, ``position`` seen from the winner (all its checkers off:
    15, or the hypergammon count).

    Gammon: the loser has borne off none.  Backgammon: and it still has a checker on the bar
    or in the winner's home board (the winner's points 1..6, or the bar at slot 0); in Dutch
    backgammon a checker still in hand counts as on the bar.  (Acey-deucey knows neither:
    :func:`acey_deucey_points`.)
    """
    if position.checkers_off != position.checkers:
        raise ValueError("the game is not over: the winner still has checkers on the board")
    if position.opponent_checkers_off > 0:
        return SINGLE
    if position.in_hand[1] > 0 or any(position.board[slot] < 0 for slot in range(0, 7)):
        return BACKGAMMON
    return GAMMON


def acey_deucey_points(position: Position, stake: int) -> int:
    """Acey-deucey: the loser pays the stake per checker it has not borne off (in hand, on the
    bar or on the board); ``position`` seen from the winner."""
    return stake * (position.checkers - position.opponent_checkers_off)


def points_for(result: str, cube_value: int, rules: Rules, cube_turned: bool, match: bool) -> int:
    """Points the winner scores.  A drop scores the cube value before the refused double."""
    if result == DROP:
        return cube_value
    if result == FORFEIT:
        result = BACKGAMMON  # the most a game can cost, scored as one (module docstring)
    if result == BACKGAMMON and rules.backgammon_as_gammon:
        result = GAMMON
    if rules.jacoby and not match and not cube_turned:
        result = SINGLE
    return MULTIPLIER[result] * cube_value
