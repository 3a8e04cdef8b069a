"""The context of a checker play, for the bots that judge plays cubefully (outside engines).

The game loop asks a checker bot for a play with the position and the roll alone; GNU
Backgammon's program and bgsage weigh a play by the cube and the score too.  Such a bot is told
them by ``see(state)``, a :class:`bgsim.interchange.xgid.Xgid` whose cube, score and rules are
those of the decisions that follow (its position and dice are ignored), as a UBGI engine is
told them (``bgsim ubgi``); until told, a money game with the cube centred.
"""

from __future__ import annotations

from bgsim.interchange.xgid import Xgid


class SeesContext:
    """The ``see`` of a bot that judges plays at the cube and score (mixed into the bot)."""

    context: Xgid | None = None

    def see(self, state: Xgid | None) -> None:
        """Judge the next decisions in ``state``'s cube, score and rules; None: a money game,
        cube centred."""
        self.context = state

    def seen(self) -> Xgid:
        return self.context if self.context is not None else Xgid()
