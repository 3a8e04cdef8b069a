"""GNU Backgammon's program as a player: ``gnubg-program`` checker play and cube decisions.

Where ``gnubg`` (``bots/gnubg_bots.py``) asks GNU Backgammon's net through the ``gnubg-nn``
package, these bots ask the program itself (``gnubg -t``, installed apart: ``apt-get install
gnubg``), with its move filters, its cubeful evaluations and its own cube analysis, at its
depth ``plies`` in its own numbering: 0 is the net alone (eXtreme Gammon and UBGI call that
1-ply), 2 is its "world class" setting.  Each question goes to a gnubg process kept open for the
thread that asks (``bots.gnubg_process.thread_session``): the position with its cube and score
(``set gnubgid``), then ``hint``.

* checker play: the first play of gnubg's move list, found among the legal plays by the
  position it produces; a play gnubg names that is not legal is a ``RuntimeError``;
* doubling: gnubg's proper cube action is a double (``Double, take``, ``Double, pass``, an
  optional double); too good to double, or no double, plays on;
* answering a double: the answer of gnubg's proper cube action in the doubler's position
  (``take``, ``pass``, ``beaver`` where the rules allow beavers); where gnubg says the doubler
  could not double at all (a dead cube of a match), a take.

A checker play is judged at the cube and score the bot was last told (``see``,
``bots/context.py``), else in a money game with the cube centred.  Reference engine only, the
standard game only.
"""

from __future__ import annotations

from typing import Sequence

from bgsim.board import Position
from bgsim.cube import CubeView, Response
from bgsim.interchange.records import apply_steps, parse_moves, RecordError
from bgsim.interchange.xgid import CENTRE, ON_ROLL, Xgid
from bgsim.rules import Play
from bgsim.variants import STANDARD, VARIANTS

from . import gnubg_process as program
from .checker import CheckerBot
from .context import SeesContext
from .cube import CubeBot
from .params import Param, parse_int

REFUSED_VARIANTS = tuple(name for name in VARIANTS if name != STANDARD)
VARIANT_NOTE = "the gnubg-program players play the standard game only"
PLIES = Param("plies", parse_int, 0,
              f"GNU Backgammon's own evaluation depth (0 = its net alone, UBGI's 1-ply; 2 = its world-class "
              f"setting), 0..{program.MAX_PLIES}", minimum=0, maximum=program.MAX_PLIES)


def cube_state(position: Position, cube: CubeView, offered: bool = False) -> Xgid:
    """The XGID of a cube question (``position`` from the side that may double, on roll)."""
    score = (cube.match_to - cube.away[0], cube.match_to - cube.away[1]) if cube.match_to else (0, 0)
    limit = cube.max_cube if cube.max_cube & (cube.max_cube - 1) == 0 else 1 << (cube.max_cube.bit_length() - 1)
    return Xgid(position=position, cube_value=cube.value, cube_owner=CENTRE if cube.centred else ON_ROLL,
                offered=int(offered), score=score, match_to=cube.match_to,
                jacoby=cube.jacoby and not cube.match_to, beaver=cube.beaver_allowed and not cube.match_to,
                cube_limit=min(limit, 1 << 15))


def play_of(position: Position, plays: Sequence[Play], text: str) -> Play | None:
    """The one of ``plays`` that gnubg's ``text`` (``24/18 13/11``, ``bar/20*``, ``6/off``,
    ``13/7(2)``) makes from ``position``; None when none does."""
    try:
        steps = parse_moves(text)
    except RecordError:
        return None
    after = list(position.board)
    for step in steps:
        if after[step[0]] <= 0:
            return None
        after = apply_steps(after, [step])
    after = tuple(after)
    for play in plays:
        if play.result.board == after:
            return play
    # a checker moved with both dice in one step ("24/13") passes over a blot it may have hit
    own = [max(count, 0) for count in after[1:26]]
    same = [play for play in plays if [max(count, 0) for count in play.result.board[1:26]] == own]
    return same[0] if len(same) == 1 else None


class GnubgProgramChecker(SeesContext, CheckerBot):
    """GNU Backgammon's program's checker play at ``plies`` (see the module docstring)."""

    name = "gnubg-program"
    description = ("GNU Backgammon's program (gnubg -t, installed apart): its checker play at its own "
                   "depth, plies=0 its net alone, plies=2 world class")
    refused_variants = REFUSED_VARIANTS
    variant_note = VARIANT_NOTE
    PARAMS = (PLIES,)
    ubgi_ply_offset = 1  # UBGI counts the root: its 0-ply is UBGI's 1-ply

    def pick(self, position, roll, plays, random):
        if len(plays) == 1:
            return plays[0]
        context = self.seen()
        state = Xgid(position=position, cube_value=context.cube_value, cube_owner=context.cube_owner,
                     dice=tuple(roll), score=context.score, match_to=context.match_to,
                     crawford=context.crawford, jacoby=context.jacoby, beaver=context.beaver,
                     cube_limit=context.cube_limit)
        text = program.thread_session().ask(program.play_commands(state),
                                            settings=program.evaluation_settings(checker_plies=self.plies))
        named = program.parse_best_play(text)
        play = play_of(position, plays, named)
        if play is None:
            raise RuntimeError(f"gnubg chose {named!r} from {position.position_id} with {roll[0]}-{roll[1]}, "
                               "which is not a legal play here")
        return play

    def choose_double(self, position, options, random):
        raise NotImplementedError("gnubg-program cannot play acey-deucey")


class GnubgProgramCube(CubeBot):
    """GNU Backgammon's program's cube decisions at ``plies`` (see the module docstring)."""

    name = "gnubg-program"
    description = ("GNU Backgammon's program (gnubg -t, installed apart): its own cube analysis at the "
                   "score, at its own depth")
    refused_variants = REFUSED_VARIANTS
    variant_note = VARIANT_NOTE
    PARAMS = (PLIES,)
    ubgi_ply_offset = 1  # UBGI counts the root: its 0-ply is UBGI's 1-ply

    def analysis(self, position: Position, cube: CubeView) -> program.CubeDecision:
        state = cube_state(position, cube)
        text = program.thread_session().ask(program.cube_commands(state),
                                            settings=program.evaluation_settings(cube_plies=self.plies))
        return program.parse_cube_hint(text)

    def wants_double(self, position, cube):
        decision = self.analysis(position, cube)
        return decision.category in (program.DOUBLE_TAKE, program.DOUBLE_PASS)

    def respond(self, position, cube):
        decision = self.analysis(position, cube)
        if decision.category == program.CANNOT_DOUBLE:
            return Response.TAKE
        answer = decision.proper.split("(")[0].strip().lower().rsplit(" ", 1)[-1]
        if answer == "beaver":
            return Response.BEAVER if cube.beaver_allowed else Response.TAKE
        return Response.TAKE if answer == "take" else Response.DROP


BOTS = (GnubgProgramChecker, GnubgProgramCube)
