"""Your own checker bot in the fast engine: an ``@njit`` evaluation function of a board.

    import numba
    from bgsim.fast.custom import EvalPlayer

    @numba.njit
    def prefer_home(board):            # board: int8[26] after the play, seen from the mover
        score = 0.0
        for point in range(1, 7):
            if board[point] >= 2:
                score += 1.0
        return score

    player = EvalPlayer(prefer_home, name="prefer-home")   # optionally cube=<a cube bot>
    bgsim.series.play_games(player, make_player("pubeval"), seed=1, games=10_000)

The board is the one encoding of ``bgsim.board`` (own checkers positive, ``board[25]`` own
bar, ``board[0]`` minus the opponent's bar), after the play and *not* turned; in a variant with
checkers in hand they are on the bar (``Position.as_standard``).  The bot picks the
highest score; a tie goes to the play first in canonical order, like every built-in evaluation
bot.  The same function scores plays in the reference engine (called from Python), so
``bgsim validate``-style comparisons hold for it too.  Keep it deterministic (no random numbers,
no fastmath) or the two engines will part.

Each distinct pair of evaluation functions compiles its own copy of the game kernels, with the
kernels of the two players' built-in bots alone (the ``custom`` families of
``bgsim/fast/families.py``, not cached on disk: Numba's index of a cached kernel cannot tell one
user's function from another); the built-in bots are unaffected.
"""

from __future__ import annotations

import numba
import numpy as np

from ..decisions import NoDoubling
from .moves import play_before

CUSTOM_WHITE = 100  # checker codes that the specialised kernels route to the user's functions
CUSTOM_BLACK = 101
_OPTIONS = dict(nogil=True, error_model="numpy", boundscheck=False)


class EvalBot:
    """A checker bot scoring each play with ``evaluate(board) -> float`` (an ``@njit`` function)."""

    fast_name = "custom"

    def __init__(self, evaluate, name: str) -> None:
        if not isinstance(evaluate, numba.core.registry.CPUDispatcher):
            raise TypeError("a custom bot's evaluation must be a @numba.njit function of a board")
        self.evaluate = evaluate
        self.name = name

    def fast_params(self) -> dict[str, float]:
        return {}

    def choose(self, position, roll, plays, random):
        # in a variant the board a bot sees is the standard one (checkers in hand on the bar)
        best = plays[0]
        best_score = float(self.evaluate(np.array(best.result.as_standard().board, dtype=np.int8)))
        for play in plays[1:]:
            value = float(self.evaluate(np.array(play.result.as_standard().board, dtype=np.int8)))
            if value > best_score:  # ties keep the earlier play in canonical order
                best, best_score = play, value
        return best


class EvalPlayer:
    """A player (both engines) from an evaluation function and, optionally, a cube bot."""

    def __init__(self, evaluate, name: str = "custom", cube=None) -> None:
        self.checker = EvalBot(evaluate, name)
        self.cube = cube if cube is not None else NoDoubling()
        self.name = name if isinstance(self.cube, NoDoubling) else f"{name}+{getattr(self.cube, 'name', 'cube')}"

    def choose_play(self, position, roll, plays, random):
        return self.checker.choose(position, roll, plays, random)

    def offer_double(self, position, cube):
        return bool(self.cube.offer_double(position, cube))

    def respond_to_double(self, position, cube):
        return self.cube.respond(position, cube)


def _default_evaluate(board):
    return 0.0


# one dispatcher for every unused seat: a fresh one per call would miss the families' memo and
# compile the whole game again for each call with a built-in opponent
_DEFAULT_EVALUATE = numba.njit(_default_evaluate)
_CHOOSING: dict = {}


def choosing(builtin_choose, white_evaluate, black_evaluate):
    """The checker dispatch of the ``custom`` families (``bgsim/fast/families.py``): the users'
    evaluation functions (None: unused) for the codes ``CUSTOM_WHITE`` and ``CUSTOM_BLACK``, every
    other code handed to ``builtin_choose``.  Not kept on disk (module doc)."""
    white_evaluate = white_evaluate or _DEFAULT_EVALUATE
    black_evaluate = black_evaluate or _DEFAULT_EVALUATE
    key = (builtin_choose, white_evaluate, black_evaluate)
    if key in _CHOOSING:
        return _CHOOSING[key]

    @numba.njit(**_OPTIONS)
    def choose(code, params, offsets, float64s, int32s, int64s, board, plays, keys, count, order,
               streams, row):
        if code == CUSTOM_WHITE or code == CUSTOM_BLACK:
            best = -1
            best_score = 0.0
            for index in range(count):
                if code == CUSTOM_WHITE:
                    value = float(white_evaluate(plays[index, :26]))
                else:
                    value = float(black_evaluate(plays[index, :26]))
                if best < 0 or value > best_score or (
                        value == best_score and play_before(plays, keys, index, best)):
                    best = index
                    best_score = value
            return best
        return builtin_choose(code, params, offsets, float64s, int32s, int64s, board, plays, keys,
                              count, order, streams, row)

    _CHOOSING[key] = choose
    return choose
