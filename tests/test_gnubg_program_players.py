"""GNU Backgammon's program as a player (``bots/gnubg_program.py``) and the session it is asked
through (``bots/gnubg_process.Session``): its cube answers are its proper cube actions, its
plays are its move list's first, and its process is started, ended and started again as it
should be.  The bot contract tests (``tests/test_bots.py``) play it as they play every bot."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from bgsim.board import Position
from bgsim.cube import CubeView, Response
from bgsim.interchange.xgid import CENTRE, OPPONENT, Xgid, decode
from bgsim.rules import legal_plays
from bots import make_player
from bots import gnubg_process as program
from bots.gnubg_program import GnubgProgramCube, cube_state, play_of

DATA = Path(__file__).parent / "data" / "gnubg_cube"
RECORDED = [line.split('"')[1] for line in (DATA / "record.py").read_text().splitlines()
            if line.strip().startswith('"XGID=')]


def view_of(state: Xgid) -> CubeView:
    away = (state.match_to - state.score[0], state.match_to - state.score[1]) if state.match_to else (0, 0)
    return CubeView(state.cube_value, state.cube_owner == CENTRE, state.cube_limit, state.beaver, state.jacoby,
                    match_to=state.match_to, away=away,
                    post_crawford=bool(state.match_to and state.match_to - 1 in state.score))


@pytest.mark.bot_rule("cube", "gnubg-program")
def test_its_cube_answers_are_gnubgs_recorded_proper_actions(gnubg):
    """Sixteen positions whose 0-ply cube analysis GNU Backgammon printed (every category of
    its answer, money and match, beavers and Jacoby): the bot doubles where the words say double
    (an optional double too), and takes, passes or beavers as they say."""
    recorded = program.split_sections((DATA / "hints_0ply.out").read_text(), len(RECORDED))
    cube = GnubgProgramCube(plies=0)
    asked = 0
    for text, answer in zip(RECORDED, recorded):
        state = decode(text)
        if state.cube_owner == OPPONENT or not program.may_double(state):
            continue  # bgsim never asks a side that may not double
        words = program.parse_cube_hint(answer)
        view = view_of(state)
        assert cube_state(state.position, view) == state, text
        assert cube.wants_double(state.position, view) == (words.category in (program.DOUBLE_TAKE,
                                                                                program.DOUBLE_PASS)), text
        said = words.proper.lower().rsplit(" ", 1)[-1]
        expected = {"take": Response.TAKE, "pass": Response.DROP, "beaver": Response.BEAVER}[said]
        assert cube.respond(state.position, view) == expected, text
        asked += 1
    assert asked == 16


@pytest.mark.bot_rule("checker", "gnubg-program")
def test_its_play_is_the_first_of_gnubgs_move_list_found_by_the_position_it_makes(gnubg):
    position = Position.from_points({13: 4, 8: 3, 6: 4, 5: 2, 4: 2}, {24: 2, 23: 2, 19: 3, 12: 4, 1: 2, "bar": 2})
    roll = (6, 4)
    state = Xgid(position=position, dice=roll)
    text = program.thread_session().ask(program.play_commands(state), program.evaluation_settings(checker_plies=0))
    first = program.parse_best_play(text)
    chosen = make_player("gnubg-program").choose_play(position, roll, legal_plays(position, roll), None)
    assert chosen.result.board == play_of(position, legal_plays(position, roll), first).result.board


def test_gnubgs_notation_is_read_by_the_position_it_makes():
    position = Position.from_points({"bar": 1, 13: 6, 8: 3, 6: 5}, {24: 2, 23: 2, 21: 2, 20: 3, 19: 3, 12: 3})
    plays = legal_plays(position, (3, 6))
    assert play_of(position, plays, "bar/16").notation == "bar/16"
    assert play_of(position, plays, "bar/22 13/7").notation == "bar/22 13/7"
    assert play_of(position, plays, "13/7 bar/22").notation == "bar/22 13/7"
    assert play_of(position, plays, "24/18") is None  # no checker there
    assert play_of(position, plays, "garbage") is None


def test_a_session_starts_again_after_gnubg_dies_and_leaves_nothing_behind(gnubg):
    session = program.Session()
    first = session.ask(["show version"])
    assert "GNU Backgammon" in first
    pid = session._process.pid
    # gnubg exits in the middle of a question (it reads quit before bgsim's end mark): a known
    # point, where a kill from outside would race the next question
    with pytest.raises(program.GnubgError, match="gnubg stopped"):
        session.ask(["quit"])
    assert not session.running
    assert "GNU Backgammon" in session.ask(["show version"])  # a fresh process
    again = session._process.pid
    assert again != pid
    os.killpg(again, signal.SIGKILL)  # killed between questions, and seen dead: the next starts anew
    session._process.wait()
    assert "GNU Backgammon" in session.ask(["show version"])
    last = session._process.pid
    assert last != again
    session.close()
    assert subprocess.run(["kill", "-0", str(last)], capture_output=True).returncode != 0


def test_a_session_that_gnubg_does_not_answer_in_time_ends_it(gnubg):
    session = program.Session()
    session.ask(["show version"])
    pid = session._process.pid
    with pytest.raises(program.GnubgError, match="did not answer within 0 s"):
        session.ask(["show version"], timeout=0)
    assert not session.running
    assert subprocess.run(["kill", "-0", str(pid)], capture_output=True).returncode != 0
