"""bgsim: backgammon simulation and bot evaluation.

The reference engine (plain Python, the source of truth) lives in this package:
``board`` (the one position encoding), ``position_id`` (GNU Backgammon IDs), ``rules`` (move
legality), ``dice`` (the random streams), ``cube`` (the doubling cube and money options),
``scoring``, ``game`` (the game loop), ``match`` (match play), ``decisions`` (what a player
must answer), ``series`` (many games, either engine).  The Numba engine is ``bgsim.fast``,
which the reference never imports: the modules that play in either engine load it through
``fast_loader`` (docs/ARCHITECTURE.md).  ``settings`` declares every environment variable bgsim
reads.
"""

from .board import Position, PositionError
from .position_id import PositionIdError
from .rules import Play, RollError, legal_plays

__version__ = "0.1.0"

__all__ = [
    "Play",
    "Position",
    "PositionError",
    "PositionIdError",
    "RollError",
    "legal_plays",
    "__version__",
]
