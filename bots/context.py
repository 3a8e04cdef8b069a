"""The context of a checker play, for the bots that judge plays cubefully (outside engines).

The game loop asks a checker bot for a play with the position and the roll alone; GNU
Backgammon's program and bgsage weigh a play by the cube and the score too.  Such a bot is told
them by ``see(state)``, a :class:`bgsim.interchange.xgid.Xgid` whose cube, score and rules are
those of the decisions that follow (its position and dice are ignored), as a UBGI engine is
told them (``bgsim ubgi``); until told, a money game with the cube centred.  In bgsim's own
games the game loop tells them through ``BotPlayer.see_context`` (``bgsim.decisions.Player``),
which a seat has only when one of its bots sees (:func:`state_of` reads the game's context).
"""

from __future__ import annotations

from bgsim.interchange.xgid import CENTRE, ON_ROLL, OPPONENT, Xgid

MAX_LIMIT = 1 << 15  # an XGID's highest cube limit


class SeesContext:
    """The ``see`` of a bot that judges plays at the cube and score (mixed into the bot)."""

    context: Xgid | None = None

    def see(self, state: Xgid | None) -> None:
        """Judge the next decisions in ``state``'s cube, score and rules; None: a money game,
        cube centred."""
        self.context = state

    def seen(self) -> Xgid:
        return self.context if self.context is not None else Xgid()


def state_of(context) -> Xgid:
    """The cube, score and rules of a ``bgsim.game.DecisionContext`` from the seat it is told to
    (the position and dice are not the context's: left at the start)."""
    side = context.side
    owner = CENTRE if context.cube_owner == CENTRE else ON_ROLL if context.cube_owner == side else OPPONENT
    match = context.match
    rules = context.rules
    if match is not None:
        score = (match.match_to - match.away(side), match.match_to - match.away("black" if side == "white" else "white"))
        return Xgid(cube_value=context.cube_value, cube_owner=owner, score=score, match_to=match.match_to,
                    crawford=match.crawford, cube_limit=min(rules.max_cube, MAX_LIMIT))
    return Xgid(cube_value=context.cube_value, cube_owner=owner, jacoby=rules.jacoby, beaver=rules.beaver,
                cube_limit=min(rules.max_cube, MAX_LIMIT))
