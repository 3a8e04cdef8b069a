"""Shared pieces of the tests: scripted players, positions, the one-error-line check of a
command, and the GNU Backgammon count summary."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

import pytest

# Every run of the suite plays on every bot's kernels, compiled once, instead of a family of
# kernels per set of bots (about twenty sets here, 15 to 25 s of compile each on a clean
# clone's empty cache): BGSIM_KERNELS in bgsim/settings.py.  The tests of the families ask for
# them with the fixture below; subprocesses inherit whichever the test set.
os.environ.setdefault("BGSIM_KERNELS", "all")


@pytest.fixture
def each_run_its_kernels(monkeypatch):
    """Runs compile their own bots' kernels only, as they do for a user (BGSIM_KERNELS=run)."""
    monkeypatch.setenv("BGSIM_KERNELS", "run")

from bgsim.cube import CubeView, Response


class ScriptedPlayer:
    """A player whose every answer is written down in advance, and who remembers what it was asked.

    ``pick`` chooses among the legal plays (default: the first, in canonical order).
    ``doubles`` answers offer_double: a bool for every time, or a callable(position, view, asked).
    ``answers`` answers respond_to_double: one Response for every time, or a list taken in order.
    """

    def __init__(
        self,
        name: str,
        pick: Callable[[Sequence, object], object] | None = None,
        doubles: bool | Callable = False,
        answers: Response | list[Response] = Response.TAKE,
    ) -> None:
        self.name = name
        self.pick = pick or (lambda plays, random: plays[0])
        self.doubles = doubles
        self.answers = answers
        self.offers_asked: list[CubeView] = []
        self.responses_asked: list[CubeView] = []
        self.rolls_seen: list[tuple[int, int]] = []

    def choose_play(self, position, roll, plays, random):
        self.rolls_seen.append(roll)
        return self.pick(plays, random)

    def offer_double(self, position, cube):
        self.offers_asked.append(cube)
        if callable(self.doubles):
            return self.doubles(position, cube, len(self.offers_asked))
        return self.doubles

    def respond_to_double(self, position, cube):
        self.responses_asked.append(cube)
        if isinstance(self.answers, list):
            return self.answers.pop(0)
        return self.answers


def random_pick(plays, random):
    """The random bot of the architecture notes: one draw from the seat's own stream."""
    return plays[random.below(len(plays))]


@pytest.fixture
def scripted():
    return ScriptedPlayer


@pytest.fixture
def random_player():
    def make(name: str, **options) -> ScriptedPlayer:
        return ScriptedPlayer(name, pick=random_pick, **options)

    return make


def bearoff_position(own, opponent):
    """A pure bear-off: own counts on points 1..6, the opponent's on its points 1..6 (our
    24..19), each listed from the 1-point."""
    from bgsim.board import Position

    board = [0] * 26
    for point in range(1, 7):
        board[point] = own[point - 1]
        board[25 - point] = -opponent[point - 1]
    return Position(tuple(board))


def race_id() -> str:
    """The position ID of a small race (both sides borne in, eight checkers each)."""
    from bgsim.board import Position

    board = [0] * 26
    board[6], board[5], board[4] = 3, 3, 2
    board[19], board[20], board[21] = -3, -3, -2
    return Position(tuple(board)).position_id


def one_error_line(capsys) -> str:
    """What a command wrote to stderr: exactly one line, ``bgsim: error: ...``."""
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("bgsim: error: "), err
    return err


_GNUBG_CHECKS = ("test_against_gnubg", "test_variants_against_gnubg")
_WORKER_SUMMARIES: dict = {}  # gathered from pytest-xdist's workers by the controller


def _gnubg_summary() -> dict:
    summary = {}
    for name in _GNUBG_CHECKS:
        summary.update(getattr(sys.modules.get(name), "SUMMARY", None) or {})
    return summary


def pytest_sessionfinish(session):
    """Under pytest-xdist the checks run in workers: each hands its counts to the controller."""
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["gnubg_summary"] = _gnubg_summary()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    for source, counts in (getattr(node, "workeroutput", None) or {}).get("gnubg_summary", {}).items():
        merged = _WORKER_SUMMARIES.setdefault(source, {})
        for name, value in counts.items():
            merged[name] = merged.get(name, 0) + value if isinstance(value, int) else value


def pytest_terminal_summary(terminalreporter):
    """Print how many (position, roll) pairs were checked against GNU Backgammon, by kind."""
    summary = _gnubg_summary() or _WORKER_SUMMARIES
    if not summary:
        return
    terminalreporter.section("bgsim against GNU Backgammon's move generator")
    for source, counts in summary.items():
        text = ", ".join(f"{name} {value}" for name, value in counts.items())
        terminalreporter.write_line(f"{source}: {text}")
    total = sum(counts["pairs"] for source, counts in summary.items() if source != "notation")
    terminalreporter.write_line(f"total (position, roll) pairs equal to gnubg: {total}")


def fast_cube_answers(packed, position, cube, dispatch=None):
    """(offers, answer) of the fast kernel of the first cube seat of ``packed``
    (``bgsim.fast.seats``), asked as the game loop asks, through the dispatch that knows every
    cube bot (``exact`` included), or through ``dispatch``'s ``offer_double`` and ``respond``."""
    import numpy as np

    from bgsim.cube import Response
    from bgsim.fast.cube import BEAVER, DOUBLE, DROP, NO_DOUBLE, TAKE
    from bgsim.fast.dispatch import offer_double_with_exact, respond_with_exact

    if dispatch is not None:
        offer_double_with_exact, respond_with_exact = dispatch.offer_double, dispatch.respond
    from bgsim.fast.match_cube import VIEW_SIZE
    from bgsim.fast.moves import BOARD_BYTES

    responses = {TAKE: Response.TAKE, DROP: Response.DROP, BEAVER: Response.BEAVER}
    seat = 2  # the first cube seat
    args = (packed.codes[seat], packed.params[seat], packed.offsets[seat], packed.float64s,
            packed.int32s, packed.int64s)
    board = np.zeros(BOARD_BYTES, dtype=np.int8)
    board[:26] = position.board
    view = np.zeros(VIEW_SIZE, dtype=np.int64)
    away, opponent_away = cube.away
    view[:] = (cube.value, cube.centred, cube.max_cube, cube.beaver_allowed, cube.jacoby, cube.match_to,
               away, opponent_away, cube.post_crawford)
    offered = offer_double_with_exact(*args, board, view)
    answer = respond_with_exact(*args, board, view)
    assert offered in (DOUBLE, NO_DOUBLE) and answer in responses
    return offered == DOUBLE, responses[answer]


@pytest.fixture(scope="session")
def gnubg():
    """GNU Backgammon's program.  A test that needs it fails with the install hint when it is
    missing (CI installs it), instead of skipping."""
    from experiments.analysis.gnubg_program import find_gnubg
    from experiments.errors import MissingDependency

    try:
        return find_gnubg()
    except MissingDependency as error:
        pytest.fail(str(error))
