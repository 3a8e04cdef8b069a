"""What the game loop asks of a player.  The engine itself never chooses.

A player answers three questions, and in acey-deucey a fourth (``choose_double``); the bots
package builds players from a checker bot and a cube bot, and anything else with these methods
can sit at the board too.
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

    def choose_double(
        self, position: Position, options: Sequence[Sequence[Play]], random: RandomStream
    ) -> int:
        """Acey-deucey only (a player without it cannot sit at an acey-deucey game): after
        playing both dice of a 1-2 to ``position``, the double (1..6) to play four times.
        ``options[d - 1]`` are the legal plays of d-d from ``position`` (canonical order; empty
        when d-d cannot be played).  ``random`` as in :meth:`choose_play`.  The game loop then
        asks :meth:`choose_play` for the chosen double's play."""

    # Optional: ``check_variant(variant: str) -> None`` raises a ValueError naming why this
    # player cannot play that variant; the game loop calls it before a game of any variant
    # but the standard one.
    # Optional: ``see_cube(cube: bgsim.cube.TurnCube) -> None``: the game loop tells it the
    # cube before each of its plays (a checker bot that plays for the cube, ``exact`` in
    # hypergammon); the fast engine's variant games tell their kernels the same in board bytes
    # 30 and 31 (``bgsim.fast.game``).
    #
    # Optional, for a player outside the process (an engine behind a protocol: ``bots.ubgi``):
    # ``see_context(context: bgsim.game.DecisionContext) -> None``, which the game loop calls at
    # the start of every game (``context.first``) and before every decision it asks of this
    # player, with the game's seed and number, the cube, the score and the rules; and any
    # decision (``see_context`` included) may raise :class:`Forfeit`, which ends the game as
    # lost by this player (``bgsim.scoring``: result ``forfeit``).  bgsim's own bots have
    # neither, and the game loop asks nothing more of them.


class DecisionError(ValueError):
    """A player answered something the rules do not allow."""


FORFEIT_REASONS = {
    "timeout": "no answer within the decision's time",
    "crash": "the engine's process ended, or closed its output",
    "malformed": "a line that is not UBGI, or a play that does not parse",
    "wrong_answer": "a UBGI answer, but not to what was asked",
    "error": "an error line in answer to the decision",
    "illegal": "a play, pass or beaver the rules do not allow",
    "wrong_side": "a legal play of the opponent, in its numbering",
    "ambiguous": "a play two legal plays fit",
    "start": "the engine could not be started (or started again) for the game",
}


class Forfeit(Exception):
    """Raised by a player's decision: it cannot give a legal answer (``reason``, one of
    :data:`FORFEIT_REASONS`; ``detail``, one line saying what it did).  The game loop ends the
    game there, lost by that player (``bgsim.scoring``, ``forfeit``); it is not an error of
    the run."""

    def __init__(self, reason: str, detail: str) -> None:
        if reason not in FORFEIT_REASONS:
            raise ValueError(f"a forfeit's reason is one of {', '.join(FORFEIT_REASONS)}, got {reason!r}")
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = " ".join(str(detail).split())

    @property
    def text(self) -> str:
        """``reason: detail``, as the rows' ``forfeit_reason`` holds it."""
        return f"{self.reason}: {self.detail}"


# --- the two simplest answers, for bgsim's own use (tests, bench, custom players) -----------
# The bots package builds its ``random`` bot and ``none`` cube on these, so each rule is
# written once for the reference engine (bgsim never imports bots).


def random_play(plays: Sequence[Play], random: RandomStream) -> Play:
    """The random bot's rule, as the fast engine mirrors it: one draw below ``len(plays)``."""
    return plays[random.below(len(plays))]


def random_double(random: RandomStream) -> int:
    """The random bot's acey-deucey double, uniform over 1-1 .. 6-6 whether each can be played
    or not: exactly one draw, ``1 + below(6)``."""
    return 1 + random.below(6)


class NoDoubling:
    """A cube side that never doubles and takes every double (fast name ``none``)."""

    name = "none"
    fast_name = "none"

    def fast_params(self) -> dict[str, float]:
        return {}

    def offer_double(self, position: Position, cube: CubeView) -> bool:
        return False

    def respond(self, position: Position, cube: CubeView) -> Response:
        return Response.TAKE


class RandomChecker:
    """The random checker bot without the bots package (fast name ``random``)."""

    name = "random"
    fast_name = "random"

    def fast_params(self) -> dict[str, float]:
        return {}

    def choose(self, position: Position, roll: tuple[int, int], plays: Sequence[Play],
               random: RandomStream) -> Play:
        return random_play(plays, random)

    def choose_double(self, position: Position, options: Sequence[Sequence[Play]], random: RandomStream) -> int:
        return random_double(random)


class RandomPlayer:
    """Random checker play and no cube, in both engines: enough to walk them through real games."""

    name = "random"

    def __init__(self) -> None:
        self.checker = RandomChecker()
        self.cube = NoDoubling()

    def choose_play(self, position, roll, plays, random) -> Play:
        return self.checker.choose(position, roll, plays, random)

    def choose_double(self, position, options, random) -> int:
        return self.checker.choose_double(position, options, random)

    def offer_double(self, position, cube) -> bool:
        return self.cube.offer_double(position, cube)

    def respond_to_double(self, position, cube) -> Response:
        return self.cube.respond(position, cube)


def check_players(white, black) -> None:
    """A clear TypeError for anything that is not a player, a spec string above all.

    bgsim never imports the bots package (imports flow bgsim <- bots <- experiments), so it
    cannot turn "heuristic+pipdiff" into a player itself: that is ``bots.make_player``'s job.
    """
    for seat, player in (("white", white), ("black", black)):
        check_player(seat, player)


def check_player(seat: str, player) -> None:
    """A clear TypeError when ``player`` (at ``seat``, for the message) is not a player."""
    if isinstance(player, str):
        raise TypeError(f"{seat} is the string {player!r}: bgsim takes player objects; "
                        f"build one with bots.make_player({player!r})")
    missing = [name for name in ("name", "choose_play", "offer_double", "respond_to_double")
               if not hasattr(player, name)]
    if missing:
        raise TypeError(f"{seat} ({type(player).__name__}) is not a player: it lacks "
                        f"{', '.join(missing)} (see bgsim.decisions.Player, or bots.make_player)")
