"""What the game loop asks of a player.  The engine itself never chooses.

A player answers three questions; the bots package builds players from a checker bot and a
cube bot, and anything else with these methods can sit at the board too.
"""

from __future__ import annotations

from typing import Protocol, Sequence

from .board import Position
from .cube import CubeView, Response
from .dice import RandomStream
from .rules import Play


class Player(Protocol):
    name: str

    def choose_play(
        self, position: Position, roll: tuple[int, int], plays: Sequence[Play], random: RandomStream
    ) -> Play:
        """Pick one of ``plays`` (never empty, in canonical order) for ``roll`` from ``position``.

        ``random`` is this seat's own stream for this game: draw from it, never from elsewhere,
        so that the game can be replayed and the fast engine can make the same choice.
        """

    def offer_double(self, position: Position, cube: CubeView) -> bool:
        """Double now?  Asked only when the rules allow it; ``position`` is seen from this player."""

    def respond_to_double(self, position: Position, cube: CubeView) -> Response:
        """Take, drop or beaver.  ``position`` is seen from the *doubler*, who is on roll."""


class DecisionError(ValueError):
    """A player answered something the rules do not allow."""
