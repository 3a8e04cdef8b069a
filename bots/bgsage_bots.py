"""bgsage (Open Sage, PyPI ``bgsage``, MPL-2.0) as a player: its checker play and cube decisions.

An optional dependency (``pip install 'bgsim[bgsage]'``), imported on first use.  ``plies``
counts as bgsage and eXtreme Gammon count: 1 is its net alone (GNU Backgammon's 0-ply), each
ply more averages over the next roll and its best reply (about twenty times slower).  One
analyzer a depth, shared by every bot of that depth (bgsage's analyzers are thread-safe), on
one thread (bgsim's threads and processes are the parallelism).

* checker play: the first play of ``BgBotAnalyzer.checker_play`` (cubeful equity), found among
  the legal plays by the position it produces; a play bgsage names that is not legal is a
  ``RuntimeError``;
* cube: ``should_double`` and ``should_take`` of its cube analysis in the doubler's position
  (beaver where the rules allow it and bgsage would).  At 1-ply that analysis is the Janowski
  formulas on its net's pre-roll chances, computed here from the analyzer's own net and
  ``bgbot_cpp.cube_decision_1ply`` (``BgBotAnalyzer.cube_action`` reloads its weights on every
  call, 60 times slower); ``tests/test_bgsage_bots.py`` holds the two to the same answers.

Board: bgsage's 26 slots are bgsim's (``board[1..24]`` from the side on roll, ``[25]`` its
bar) but for ``[0]``, the opponent's bar, which bgsage counts as a positive number.  Checker
plays are judged at the cube and score the bot was last told (``see``, ``bots/context.py``),
else in a money game with the cube centred.  Reference engine only, the standard game only.
"""

from __future__ import annotations

from functools import lru_cache

from bgsim.board import Position
from bgsim.cube import CubeView, Response
from bgsim.errors import MissingDependency
from bgsim.interchange.xgid import CENTRE, ON_ROLL
from bgsim.variants import STANDARD, VARIANTS

from .checker import CheckerBot
from .context import SeesContext
from .cube import CubeBot
from .params import Param, parse_int

INSTALL_HINT = "the bgsage players need the bgsage package: pip install bgsage (or pip install 'bgsim[bgsage]')"
MAX_PLIES = 4
REFUSED_VARIANTS = tuple(name for name in VARIANTS if name != STANDARD)
VARIANT_NOTE = "bgsage plays the standard game only"
PLIES = Param("plies", parse_int, 1,
              f"bgsage's depth as it counts it: 1 = its net alone (GNU Backgammon's 0-ply), 1..{MAX_PLIES}",
              minimum=1, maximum=MAX_PLIES)


def _bgsage():
    try:
        import bgsage
    except ImportError:
        raise MissingDependency(INSTALL_HINT) from None
    return bgsage


@lru_cache(maxsize=None)
def analyzer(plies: int):
    """bgsage's analyzer at ``plies`` (its numbering), cubeful, on one thread."""
    return _bgsage().BgBotAnalyzer(eval_level=f"{plies}ply", cubeful=True, parallel_threads=1)


def sage_board(board) -> list[int]:
    """bgsim's board in bgsage's slots (the opponent's bar counted positive)."""
    out = list(board)
    out[0] = -out[0]
    return out


def bgsim_board(board) -> tuple[int, ...]:
    out = tuple(int(count) for count in board)
    return (-out[0],) + out[1:]


def _away(context) -> dict:
    """bgsage's score: the points each side still needs (0 and 0 in a money game)."""
    if not context.match_to:
        return {"away1": 0, "away2": 0}
    return {"away1": context.match_to - context.score[0], "away2": context.match_to - context.score[1]}


class BgsageChecker(SeesContext, CheckerBot):
    """bgsage's checker play at ``plies`` (see the module docstring)."""

    name = "bgsage"
    description = "bgsage (Open Sage, pip install bgsage): its checker play, plies=1 its net alone"
    refused_variants = REFUSED_VARIANTS
    variant_note = VARIANT_NOTE
    PARAMS = (PLIES,)
    ubgi_ply_offset = 0  # UBGI counts the root: bgsage already does

    def pick(self, position, roll, plays, random):
        if len(plays) == 1:
            return plays[0]
        context = self.seen()
        owner = {CENTRE: "centered", ON_ROLL: "player"}.get(context.cube_owner, "opponent")
        result = analyzer(self.plies).checker_play(
            sage_board(position.board), roll[0], roll[1], cube_value=context.cube_value, cube_owner=owner,
            is_crawford=context.crawford, jacoby=context.jacoby, beaver=context.beaver, **_away(context))
        if not result.moves:
            raise RuntimeError(f"bgsage found no play from {position.position_id} with {roll[0]}-{roll[1]}")
        board = bgsim_board(result.moves[0].board)
        for play in plays:
            if play.result.board == board:
                return play
        raise RuntimeError(f"bgsage chose the board {board} from {position.position_id} with "
                           f"{roll[0]}-{roll[1]}, which no legal play produces")

    def choose_double(self, position, options, random):
        raise NotImplementedError("bgsage cannot play acey-deucey")


class CubeAnswer:
    """What a cube analysis says, from the doubler: double?, take?, beaver?"""

    __slots__ = ("double", "take", "beaver")

    def __init__(self, double: bool, take: bool, beaver: bool) -> None:
        self.double, self.take, self.beaver = double, take, beaver


def cube_answer(position: Position, cube: CubeView, plies: int) -> CubeAnswer:
    """bgsage's cube analysis at ``plies`` of ``position`` (the doubler's, before its roll)."""
    board = sage_board(position.board)
    owner = "centered" if cube.centred else "player"
    away = {"away1": cube.away[0], "away2": cube.away[1]} if cube.match_to else {"away1": 0, "away2": 0}
    money = not cube.match_to
    jacoby, beaver = cube.jacoby and money, cube.beaver_allowed and money
    if plies == 1:
        found = _one_ply(board, cube.value, owner, away, jacoby)
        if found is not None:
            double, take, double_take = found
            return CubeAnswer(double, take, beaver and take and double_take < 0)
    result = analyzer(plies).cube_action(board, cube.value, owner, jacoby=jacoby, beaver=beaver, **away)
    return CubeAnswer(result.should_double, result.should_take, beaver and result.is_beaver)


def _one_ply(board, value: int, owner: str, away: dict, jacoby: bool):
    """(double, take, double/take equity) at 1-ply from the analyzer's own net; None where this
    bgsage does not lay its parts out so (then the caller asks ``cube_action``)."""
    import bgbot_cpp

    try:
        net = analyzer(1)._analyzer._inner._strategy_1ply
    except AttributeError:
        return None
    turned = bgbot_cpp.flip_board(board)
    # the net judges a position after a move: the opponent's, turned, is ours before the roll
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = net.evaluate_board(turned, turned)["probs"]
    chances = [1.0 - win, lose_gammon, lose_backgammon, win_gammon, win_backgammon]  # theirs, turned to ours
    own_pips, other_pips = bgbot_cpp.pip_counts(board)
    efficiency = bgbot_cpp.cube_efficiency(chances, bgbot_cpp.is_race(board), own_pips, other_pips)
    owners = {"centered": bgbot_cpp.CubeOwner.CENTERED, "player": bgbot_cpp.CubeOwner.PLAYER}
    decision = bgbot_cpp.cube_decision_1ply(chances, value, owners[owner], efficiency, is_crawford=False,
                                            jacoby=jacoby, **away)
    return bool(decision.should_double), bool(decision.should_take), float(decision.equity_dt)


class BgsageCube(CubeBot):
    """bgsage's cube decisions at ``plies`` (see the module docstring)."""

    name = "bgsage"
    description = "bgsage (Open Sage, pip install bgsage): its cube decisions at the score"
    refused_variants = REFUSED_VARIANTS
    variant_note = VARIANT_NOTE
    PARAMS = (PLIES,)
    ubgi_ply_offset = 0  # UBGI counts the root: bgsage already does

    def wants_double(self, position, cube):
        return cube_answer(position, cube, self.plies).double

    def respond(self, position, cube):
        answer = cube_answer(position, cube, self.plies)
        if not answer.take:
            return Response.DROP
        return Response.BEAVER if answer.beaver else Response.TAKE


BOTS = (BgsageChecker, BgsageCube)
