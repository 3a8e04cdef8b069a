"""``bgsim ubgi SPEC``: bgsim's players as UBGI engines (``bots/ubgi_server.py``).

The protocol itself is tested over real pipes, on a ``bgsim ubgi`` process; what the server
decides (seeds, depths, the cube's rules) on the server object, which is what that process runs.
``tests/test_engine_check.py`` puts every shipped bot through ``bgsim check`` the same way.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from bgsim.interchange import ubgi
from bgsim.interchange.ubgi import Situation
from bgsim.interchange.xgid import ON_ROLL, OPPONENT
from bgsim.rules import legal_plays
from bots.ubgi_server import Server

START = "4HPwATDgc/ABMA"


def served(spec: str, lines: list[str], raw: bytes = b"") -> tuple[list[str], int]:
    """What ``bgsim ubgi SPEC`` writes to ``lines`` (and ``raw`` bytes after them), and its exit status."""
    script = "".join(line + "\n" for line in lines).encode() + raw
    done = subprocess.run([sys.executable, "-m", "experiments", "ubgi", spec], input=script, capture_output=True,
                          timeout=120)
    return done.stdout.decode().splitlines(), done.returncode


@pytest.fixture(scope="module")
def session():
    """One served ``random`` through every required v0.2 command, the optional ones and bad lines."""
    lines = ["ubgi", "keys", "isready", "set engine.seed 7", "get engine.seed", "newgame",
             f"position gnubgid {START}", "dice 3 1", "go", "go chequer", "go cube", "go turn", "go take",
             "bogus", "", "go sideways", "set nope 1", "set engine.seed x", "position gnubgid zzz", "dice 7 1",
             "isready", "quit", "go"]
    return served("random", lines)


def test_the_handshake_says_who_it_is_and_speaks_v02(session):
    out, _ = session
    assert out[:4] == ["id name bgsim random", "id author bgsim", "proto 0.2", "ubgiok"]


def test_keys_lists_the_seed_the_take_extension_and_the_game_keys(session):
    out, _ = session
    keys = {ubgi.parse_key(line).name: ubgi.parse_key(line) for line in out if line.startswith("key ")}
    assert {"engine.seed", ubgi.TAKE_KEY} <= set(keys) and set(ubgi.GAME_KEYS) <= set(keys)
    assert keys["engine.seed"].minor and keys[ubgi.TAKE_KEY].default is True
    assert "engine.ply" not in keys  # random has no depth


def test_every_decision_is_answered_legally_and_quit_ends_it(session):
    out, code = session
    answers = [ubgi.parse_answer(line) for line in out if not line.startswith(("id ", "key ", "proto"))]
    kinds = [type(answer).__name__ for answer in answers]
    assert kinds[:9] == ["UbgiOk", "ReadyOk", "Value", "BestMove", "BestMove", "BestCube", "BestTurn", "BestTake",
                         "Error"]
    assert out.count("value engine.seed 7") == 1
    from bgsim import Position

    for answer in (answers[3], answers[4], answers[6].move):  # go, go chequer, go turn: legal plays
        assert ubgi.read_play(Position.from_position_id(START), (3, 1), answer) is not None
    assert not answers[6].double and answers[7].word == "take"
    assert code == 0 and out[-1] == "readyok"  # nothing after quit: the last `go` was never read


def test_a_bad_line_gets_one_error_line_of_v02s_codes_and_the_engine_goes_on(session):
    out, _ = session
    errors = [line for line in out if line.startswith("error ")]
    assert [line.split()[1] for line in errors] == ["bad_command", "unsupported", "unsupported", "bad_value",
                                                     "bad_value", "bad_value"]
    assert all(line.split()[1] in ubgi.ERROR_CODES for line in errors)
    assert out[-1] == "readyok"  # the isready after them


def test_garbage_bytes_and_a_decision_out_of_order_never_end_it():
    out, code = served("racer", ["ubgi", "go", "dice 3 1", "go cube"],
                       raw=b"\xff\xfe not text\n" + b"x" * 100_000 + b"\nisready\nquit\n")
    errors = [line for line in out if line.startswith("error ")]
    assert errors[0].startswith("error bad_state missing position")
    assert errors[1].startswith("error bad_state missing position")
    assert len(errors) == 4 and out[-1] == "readyok" and code == 0


def test_a_bad_spec_is_one_line_before_any_protocol(capsys):
    from experiments import cli

    assert cli.main(["ubgi", "nosuchbot+pipdiff"]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.count("\n") == 1 and "nosuchbot" in said.err


def _plays(server: Server, seed: int, turns: int = 12) -> list[str]:
    server.handle(f"set engine.seed {seed}")
    server.handle("newgame")
    said = []
    for first, second in [(1 + turn % 6, 1 + (turn * 5) % 6) for turn in range(turns)]:
        server.handle(f"position gnubgid {START}")
        server.handle(f"dice {first} {second}")
        said += server.handle("go")
    return said


def test_the_same_seed_gives_the_same_answers_and_another_seed_others():
    first, again, other = Server("random"), Server("random"), Server("random")
    assert _plays(first, 5) == _plays(again, 5)
    assert _plays(Server("random"), 5) != _plays(other, 6)


def test_engine_ply_counts_the_root_and_sets_the_bots_depth():
    server = Server("gnubg-program+gnubg-program")
    keys = {line.split()[1]: line for line in server.handle("keys")}
    assert keys["engine.ply"].startswith("key engine.ply int 1..5 1")  # gnubg's 0-ply is UBGI's 1-ply
    assert server.handle("set engine.ply 3") == []
    assert server.player.name == "gnubg-program(plies=2)+gnubg-program(plies=2)"
    assert server.handle("get engine.ply") == ["value engine.ply 3"]
    assert server.handle("set engine.ply 9")[0].startswith("error bad_value")
    bgsage = Server("bgsage")
    assert bgsage.handle("get engine.ply") == ["value engine.ply 1"]  # bgsage counts as UBGI does


def test_the_cube_and_score_of_the_position_reach_the_bots_that_weigh_them():
    server = Server("bgsage")
    situation = Situation(legal_plays_position(), dice=(5, 2), cube_value=2, cube_owner=OPPONENT, match_to=7,
                          score=(3, 5))
    for line in situation.position_lines(xgid=True) + ["go"]:
        server.handle(line)
    told = server.player.checker.context
    assert (told.cube_value, told.cube_owner, told.score, told.match_to) == (2, OPPONENT, (3, 5), 7)


def legal_plays_position():
    from bgsim import Position

    return Position.from_points({13: 4, 8: 3, 6: 4, 5: 2, 4: 2}, {24: 2, 23: 2, 19: 3, 12: 4, 1: 2, "bar": 2})


def _decide(server: Server, situation: Situation, role: str) -> str:
    for line in situation.position_lines(xgid=True):
        assert server.handle(line) == []
    return server.handle(f"go {role}")[0]


def test_no_double_where_the_rules_forbid_one_and_a_beaver_only_where_allowed():
    doubles = Server("random+pipdiff(double=0,redouble=0,take=200)")  # doubles at every chance
    position = legal_plays_position()
    assert _decide(doubles, Situation(position), "cube") == "bestcube double"
    assert _decide(doubles, Situation(position, cube_value=2, cube_owner=ON_ROLL), "cube") == "bestcube double"
    assert _decide(doubles, Situation(position, cube_value=2, cube_owner=OPPONENT), "cube") == "bestcube nodouble"
    assert _decide(doubles, Situation(position, match_to=5, score=(2, 4), crawford=True), "cube") == "bestcube nodouble"
    beavers = Server("random+pipdiff(take=200%,beaver=150%)")  # beavers whatever the lead, where allowed
    assert _decide(beavers, Situation(position, offered=True, beaver=True), "take") == "besttake beaver"
    assert _decide(beavers, Situation(position, offered=True), "take") == "besttake take"


def test_a_roll_with_no_legal_play_is_answered_pass():
    from bgsim import Position

    closed = Position.from_points({"bar": 2, 13: 5, 8: 3, 6: 5}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3})
    assert not legal_plays(closed, (6, 6))
    server = Server("nn+nn")
    assert _decide(server, Situation(closed, dice=(6, 6)), "chequer") == "bestmove pass"
