"""GNU Backgammon as a player: its neural net for checker play and its cube decisions.

Reference-engine only: these bots have no ``fast_name``.  ``gnubg-nn`` and ``gnubg`` are
optional dependencies, imported on first use so that the rest of bgsim works without them.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading

from bgsim.board import Position
from bgsim.cube import CubeView, Response
from bgsim.position_id import to_gnubg_board
from bgsim.variants import ACEY_DEUCEY, DUTCH

from .checker import CheckerBot
from . import match_cube
from .cube import SCORE_AWARE, CubeBot
from .params import Param, parse_int

# GNU Backgammon plays these; it has no checkers in hand (Dutch backgammon, acey-deucey).
REFUSED_VARIANTS = (DUTCH, ACEY_DEUCEY)
VARIANT_NOTE = ("GNU Backgammon knows no checkers in hand: it plays the standard game, nackgammon "
                "and hypergammon only (its net is trained on the standard game)")


def _gnubg_nn():
    try:
        import gnubg_nn
    except ImportError as error:  # pragma: no cover - the test extra installs it
        raise ImportError("the gnubg bots need the gnubg-nn package (pip install 'bgsim[gnubg]')") from error
    return gnubg_nn


# The helper's whole program: it reads "position_id away opponent_away cube_value plies" lines
# and answers each with gnubg_nn's decision tuple, space-separated, on one line.
_MATCH_HELPER_PROGRAM = """
import sys
import gnubg_nn as nn
for line in sys.stdin:
    position_id, away, opponent_away, cube_value, plies = line.split()
    nn.set.score(int(away), int(opponent_away))  # the side asked about first
    nn.set.cube(int(cube_value), b"o")  # 1: centred; above 1 the doubler owns it
    decision = nn.evaluate_cube_decision(position_id, n=int(plies), s=b"o", i=1)
    print(*decision, flush=True)
"""

_MATCH_HELPER: list = []  # [helper process, the pid that started it], from the first match decision
_MATCH_LOCK = threading.Lock()  # one question at a time on its pipe (games may run on threads)


def _stop_match_helper() -> None:
    if _MATCH_HELPER and _MATCH_HELPER[1] == os.getpid():
        helper = _MATCH_HELPER[0]
        if helper.poll() is None:
            helper.stdin.close()  # its loop ends at the end of its input
            try:
                helper.wait(timeout=5)
            except subprocess.TimeoutExpired:
                helper.kill()  # never left running after this process
    _MATCH_HELPER.clear()


def match_cube_decision(position_id: str, away: int, opponent_away: int, cube_value: int,
                        plies: int) -> tuple:
    """``gnubg_nn.evaluate_cube_decision`` at a match score, asked in a helper process.

    Why a helper: gnubg_nn keeps the score it is given, and ``set.score(0, 0)`` does not bring
    money play back (its later 1-ply evaluations still weigh gammons as at the last score), so a
    match decision asked here would change every later money evaluation of this process.  The
    helper is a plain ``python -c`` child that imports gnubg_nn alone (no ``__main__`` re-import,
    allowed in daemonic workers too).
    """
    _gnubg_nn()  # one clear line where gnubg-nn is missing
    with _MATCH_LOCK:
        return _ask_match_helper(position_id, away, opponent_away, cube_value, plies)


def _ask_match_helper(position_id: str, away: int, opponent_away: int, cube_value: int, plies: int) -> tuple:
    # a forked child starts its own: two processes on one pipe would mix their questions
    if not _MATCH_HELPER or _MATCH_HELPER[1] != os.getpid() or _MATCH_HELPER[0].poll() is not None:
        _MATCH_HELPER[:] = [subprocess.Popen(
            [sys.executable, "-c", _MATCH_HELPER_PROGRAM], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, start_new_session=True),  # Ctrl-C is ours
            os.getpid()]
    helper = _MATCH_HELPER[0]
    helper.stdin.write(f"{position_id} {away} {opponent_away} {cube_value} {plies}\n")
    helper.stdin.flush()
    answer = helper.stdout.readline().split()
    if not answer:
        raise RuntimeError(f"gnubg's match cube helper gave no answer for {position_id} at "
                           f"{away}-away, {opponent_away}-away (exit status {helper.poll()})")
    return tuple(int(word) if word.lstrip("-").isdigit() else float(word) for word in answer)


atexit.register(_stop_match_helper)


def apply_gnubg_moves(board, moves) -> tuple[int, ...]:
    """Our board after GNU Backgammon's 1-based (from, to) moves: 25 is the bar, 0 or less is off."""
    after = list(board)
    for source, target in moves:
        after[source] -= 1
        if target >= 1:
            if after[target] == -1:  # a blot is hit and goes to the opponent's bar
                after[target] = 0
                after[0] -= 1
            after[target] += 1
    return tuple(after)


class GnubgChecker(CheckerBot):
    """GNU Backgammon's neural net through ``gnubg_nn.best_move`` at ``plies`` (0 = the net alone)."""

    name = "gnubg"
    description = "GNU Backgammon's neural net (gnubg-nn), 0-ply by default"
    refused_variants = REFUSED_VARIANTS
    variant_note = VARIANT_NOTE
    PARAMS = (
        Param("plies", parse_int, 0, "look-ahead plies of the gnubg evaluation (0..2)", minimum=0, maximum=2),
    )
    ubgi_ply_offset = 1  # UBGI counts the root: GNU Backgammon's 0-ply is UBGI's 1-ply

    def pick(self, position, roll, plays, random):
        if len(plays) == 1:
            return plays[0]
        nn = _gnubg_nn()
        opponent, on_roll = to_gnubg_board(position)
        moves = nn.best_move([opponent, on_roll], roll[0], roll[1], n=self.plies)
        result = apply_gnubg_moves(position.board, moves)
        for play in plays:
            if play.result.board == result:
                return play
        raise RuntimeError(
            f"gnubg chose {moves} from {position.position_id} with {roll}, which is not a legal play here"
        )

    def choose_double(self, position, options, random):
        raise NotImplementedError("gnubg cannot play acey-deucey: GNU Backgammon knows no checkers in hand")


def janowski_equities(probabilities, efficiency: float, jacoby_centred: bool = False):
    """Money-game cubeful equities of the side on roll, per unit of the current cube.

    Rick Janowski's model ("Take-points in money games", 1993), the one GNU Backgammon uses to
    turn cubeless 0-ply outputs into cubeful ones: each equity is
    ``x * live + (1 - x) * dead`` with cube efficiency ``x``.  With ``p`` the chance to win,
    ``W`` and ``L`` the average values of a win and a loss (gammons included), ``S = W + L + 1/2``:

    * dead (cubeless): ``p*W - (1-p)*L``;
    * live, we own the cube: ``min(1, p*S - L)``;
    * live, they own it: ``max(-1, p*S - L - 1/2)``;
    * live, centred: -1 below our take point ``(L - 1/2)/S``, +1 above our cash point
      ``(L + 1)/S``, linear in between.

    Returns ``(centred, owned, opponent_owns)``.  With ``jacoby_centred`` the centred equity
    counts gammons as singles (the Jacoby rule while the cube has not been turned).
    """
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = probabilities
    p = min(max(win, 0.0), 1.0)
    w = 1.0 + (win_gammon + win_backgammon) / p if p > 1e-7 else 1.0
    l = 1.0 + (lose_gammon + lose_backgammon) / (1.0 - p) if p < 1.0 - 1e-7 else 1.0

    x = efficiency
    centred, owned, theirs = match_cube.janowski(p, w, l, x, x, x)
    if jacoby_centred:
        centred = match_cube.janowski(p, 1.0, 1.0, x, x, x)[0]
    return centred, owned, theirs


def janowski_offer(equities, cube: CubeView) -> bool:
    """Double when ``min(double/take, double/pass) > no double``, per unit of the current cube:
    no double = the centred (or owned) equity, double/take = 2 x the equity with the opponent
    owning the cube, double/pass = +1.  So a position too good to double plays on."""
    centred, owned, theirs = equities
    no_double = centred if cube.centred else owned
    return min(2.0 * theirs, 1.0) > no_double


def janowski_response(equities, cube: CubeView) -> Response:
    """Take while double/take (2 x the equity with the taker owning the cube, from the doubler)
    is at most +1; beaver (where allowed) when it is below 0."""
    double_take = 2.0 * equities[2]
    if double_take > 1.0:
        return Response.DROP
    if cube.beaver_allowed and double_take < 0.0:
        return Response.BEAVER
    return Response.TAKE


def cube_efficiency(position: Position) -> float:
    """GNU Backgammon's default cube efficiency: 0.68 in contact; in a race
    ``0.55 + 0.00125 * pips`` of the side on roll, kept within 0.6 .. 0.7."""
    if not position.is_race:
        return 0.68
    return min(0.7, max(0.6, 0.55 + 0.00125 * position.pip_count))


class GnubgCube(CubeBot):
    """GNU Backgammon's cube judgement for money play.

    ``gnubg_nn.evaluate_cube_decision`` is not implemented for money games, and the ``gnubg``
    package's ``evaluate`` returns cubeless equity here, so this bot does what GNU Backgammon
    does at 0 ply: it takes the net's cubeless probabilities for the side on roll
    (``gnubg_nn.probabilities`` at ``plies``) and turns them into cubeful equities with
    Janowski's formulas and GNU Backgammon's cube efficiency (:func:`janowski_equities`,
    :func:`cube_efficiency`).  Then, per unit of the current cube:

    * no double = the centred (or owned) equity; double/take = 2 x the equity with the opponent
      owning the cube; double/pass = +1;
    * double when ``min(double/take, double/pass) > no double`` (so "too good" positions play on);
    * take when ``double/take <= 1``; beaver (where allowed) when ``double/take < 0``.

    In a match (``score_aware=true``, the default) it asks GNU Backgammon's own match cube
    decision, ``gnubg_nn.evaluate_cube_decision`` at the score (``gnubg_nn.set.score(own away,
    opponent's away)``, ``gnubg_nn.set.cube(value, b"o")``, the side on roll being ``b"o"`` for a
    bgsim position ID; asked in a helper process, :func:`match_cube_decision`), after the rules
    the score decides alone (``bots.match_cube.forced_offer``: no cube that cannot matter, the
    free double at once).  Beyond GNU Backgammon's 25 points, and with ``score_aware=false``, the
    money judgement above.  Reference engine only.
    """

    name = "gnubg"
    description = "GNU Backgammon: its match cube decision at the score, Janowski money formulas in money play"
    refused_variants = REFUSED_VARIANTS
    variant_note = VARIANT_NOTE
    PARAMS = (
        Param("plies", parse_int, 0, "look-ahead plies of the probabilities (0..2)", minimum=0, maximum=2),
        SCORE_AWARE,
    )
    ubgi_ply_offset = 1  # UBGI counts the root: GNU Backgammon's 0-ply is UBGI's 1-ply

    def _match_decision(self, position: Position, cube: CubeView) -> tuple[int, ...] | None:
        """GNU Backgammon's (double?, take?, ...) at the score, or None outside its table."""
        if not (self.score_aware and cube.match_to and match_cube.in_table(*cube.away)):
            return None
        away, opponent_away = cube.away
        return match_cube_decision(position.position_id, away, opponent_away, cube.value, self.plies)

    def _equities(self, position: Position, cube: CubeView):
        nn = _gnubg_nn()
        opponent, on_roll = to_gnubg_board(position)
        probabilities = nn.probabilities([opponent, on_roll], self.plies)
        jacoby = cube.jacoby and cube.centred
        return janowski_equities(probabilities, cube_efficiency(position), jacoby)

    def wants_double(self, position: Position, cube: CubeView) -> bool:
        decision = self._match_decision(position, cube)
        if decision is not None:
            return decision[0] == 1
        return janowski_offer(self._equities(position, cube), cube)

    def respond(self, position: Position, cube: CubeView) -> Response:
        decision = self._match_decision(position, cube)
        if decision is not None:
            return Response.TAKE if decision[1] == 1 else Response.DROP
        return janowski_response(self._equities(position, cube), cube)


BOTS = (GnubgChecker, GnubgCube)
