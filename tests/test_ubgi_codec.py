"""The UBGI codec (bgsim/interchange/ubgi.py): every line both ways, the key lines, v0.1's
lines, bgsim's take extension, positions with their context, and plays read back by the
position they produce in any order and notation."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bgsim import Position
from bgsim.cube import Response
from bgsim.interchange import ubgi
from bgsim.interchange.ubgi import (BestCube, BestMove, BestMoveId, BestTake, BestTurn, Dice, Error, Get, Go,
                                    Id, IllegalPlay, Info, IsReady, Key, Keys, NewGame, NewSession, Option,
                                    PositionCommand, Proto, Quit, ReadyOk, Set, SetCube, SetOption, SetScore,
                                    SetTurn, Situation, Stop, Ubgi, UbgiError, UbgiOk, Value, parse_answer,
                                    parse_command, parse_key, read_play)
from bgsim.interchange.xgid import CENTRE, ON_ROLL, OPPONENT
from bgsim.rules import legal_plays

START = Position.start()
START_ID = "4HPwATDgc/ABMA"

COMMAND_LINES = [
    ("ubgi", Ubgi()), ("isready", IsReady()), ("newgame", NewGame()), ("keys", Keys()), ("quit", Quit()),
    ("stop", Stop()),
    ("set engine.ply 2", Set("engine.ply", "2")),
    ("set engine.name deep blue", Set("engine.name", "deep blue")),
    ("get engine.ply", Get("engine.ply")),
    ("setoption name Threads value 4", SetOption("Threads", "4")),
    ("setoption name Eval Plies value 2", SetOption("Eval Plies", "2")),
    (f"position gnubgid {START_ID}", PositionCommand("gnubgid", START_ID)),
    ("position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
     PositionCommand("xgid", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")),
    ("dice 6 5", Dice(6, 5)),
    ("go chequer", Go("chequer")), ("go cube", Go("cube")), ("go turn", Go("turn")),
    ("go take", Go("take")),
    ("go role chequer", Go("chequer", legacy=True)),
    ("go role cube movetime 500 depth 2", Go("cube", legacy=True, limits=(("movetime", 500), ("depth", 2)))),
    ("newsession type match length 7 crawford on", NewSession("match", 7, None, True)),
    ("newsession type money jacoby off", NewSession("money", None, False)),
    ("setscore 3 4", SetScore(3, 4)),
    ("setcube value 2 owner p1", SetCube(2, "p1")),
    ("setturn p0", SetTurn("p0")),
]

ANSWER_LINES = [
    ("id name GNU Backgammon", Id("name", "GNU Backgammon")),
    ("id author wildbg contributors", Id("author", "wildbg contributors")),
    ("proto 0.2", Proto("0.2")), ("ubgiok", UbgiOk()), ("readyok", ReadyOk()),
    ("value engine.ply 2", Value("engine.ply", "2")),
    ("bestmove 24/18 13/12", BestMove("24/18 13/12")),
    ("bestmove pass", BestMove("pass")),
    (f"bestmoveid {START_ID}", BestMoveId(START_ID)),
    ("bestcube double", BestCube(True)), ("bestcube nodouble", BestCube(False)),
    ("bestturn cube=nodouble move=8/5 6/5", BestTurn(False, BestMove("8/5 6/5"))),
    ("bestturn cube=double", BestTurn(True)),
    ("besttake take", BestTake(Response.TAKE)), ("besttake pass", BestTake(Response.DROP)),
    ("besttake beaver", BestTake(Response.BEAVER)),
    ("info nodes 120 time_ms 3 pv 24/18 13/12", Info("nodes 120 time_ms 3 pv 24/18 13/12")),
    ("error bad_state missing position", Error("bad_state", "missing position")),
    ("error unsupported go cube", Error("unsupported", "go cube")),
    ("error unknown_command", Error("unknown_command")),
]


@pytest.mark.parametrize("line, message", COMMAND_LINES, ids=[line for line, _ in COMMAND_LINES])
def test_every_command_reads_as_written_and_writes_back(line, message):
    assert parse_command(line) == message
    assert message.line() == line
    assert parse_command(message.line()) == message


def test_a_bare_go_asks_for_the_checker_play():
    assert parse_command("go") == Go("chequer") == Go()


@pytest.mark.parametrize("line, message", ANSWER_LINES, ids=[line for line, _ in ANSWER_LINES])
def test_every_answer_reads_as_written_and_writes_back(line, message):
    assert parse_answer(line) == message
    assert message.line() == line
    assert parse_answer(message.line()) == message


@pytest.mark.parametrize("line, code", [
    ("", "bad_command"), ("fly away", "bad_command"), ("ubgi now", "bad_command"),
    ("set engine.ply", "bad_command"), ("position fen rnbq", "unsupported"),
    ("position gnubgid", "bad_command"), ("position gnubgid 4HPwATDgc/ABM!", "bad_value"),
    ("position xgid XGID=nonsense", "bad_value"), ("dice 7 1", "bad_value"), ("dice 6", "bad_command"),
    ("dice six five", "bad_value"), ("go sideways", "unsupported"), ("go role chequer movetime", "bad_command"),
    ("go role chequer budget 5", "bad_command"), ("setcube value 3x owner p0", "bad_value"),
    ("setcube value 2 owner p2", "bad_value"), ("setturn p3", "bad_value"),
    ("newsession length 5", "bad_command"), ("newsession type tournament", "bad_value"),
])
def test_a_malformed_command_is_one_error_naming_the_line_with_its_v02_code(line, code):
    with pytest.raises(UbgiError) as caught:
        parse_command(line)
    assert caught.value.code == code
    assert caught.value.code in ubgi.ERROR_CODES
    assert (line.split()[0] if line.split() else "empty") in str(caught.value) or not line


@pytest.mark.parametrize("line", [
    "", "hello engine", "ubgiok please", "bestmove", "bestmove 24/18 13/", "bestmove 24/18 garbage",
    "bestcube maybe", "besttake drop", "besttake", "bestturn cube=triple", "proto two", "error",
    "id name", "value engine.ply", "key engine.ply", "key engine.ply float 1", "key engine.ply int 1..4",
    "key engine.ply int 1..4 9", "key engine.ply int 4..1 2", "key x bool maybe", "key x enum a|b c",
    "key x enum a||b a", "option name Threads type dial", "option name Threads type spin min",
])
def test_a_malformed_answer_is_one_error_naming_it(line):
    with pytest.raises(UbgiError) as caught:
        parse_answer(line)
    assert "\n" not in str(caught.value)
    if line:
        assert line.split()[0] in str(caught.value)


def test_key_lines_of_every_type_read_their_range_default_and_minor_mark():
    ply = parse_key("key engine.ply int 1..4 1 root-inclusive decision depth")
    assert (ply.type, ply.minimum, ply.maximum, ply.default, ply.minor) == ("int", 1, 4, 1, False)
    assert ply.description == "root-inclusive decision depth"
    seed = parse_key("key engine.seed int * 42 ! rng seed")
    assert (seed.minimum, seed.maximum, seed.default, seed.minor, seed.description) == (None, None, 42, True, "rng seed")
    plain = parse_key("key engine.level int 42")
    assert (plain.default, plain.minimum, plain.ranged) == (42, None, False)
    flag = parse_key("key engine.cubeful bool true !")
    assert (flag.default, flag.minor, flag.description) == (True, True, "")
    variant = parse_key("key game.variant enum backgammon|nackgammon|hypergammon backgammon")
    assert variant.choices == ("backgammon", "nackgammon", "hypergammon") and variant.default == "backgammon"
    name = parse_key("key engine.net string * default-net the net file")
    assert (name.type, name.default, name.description) == ("string", "default-net", "the net file")
    for key in (ply, seed, plain, flag, variant, name):
        assert parse_key(key.line()) == key


def test_a_key_checks_a_value_against_its_type_and_range():
    ply = parse_key("key engine.ply int 1..4 1")
    assert ply.value_of("3") == 3 and ply.format(3) == "3"
    for bad in ("5", "0", "two", "2.5"):
        with pytest.raises(UbgiError) as caught:
            ply.value_of(bad)
        assert caught.value.code == "bad_value"
    flag = parse_key("key engine.cubeful bool false")
    assert flag.value_of("true") is True and flag.format(False) == "false"
    with pytest.raises(UbgiError):
        flag.check(1)
    variant = parse_key("key game.variant enum backgammon|nackgammon backgammon")
    with pytest.raises(UbgiError, match="backgammon|nackgammon"):
        variant.value_of("dutch")


def test_gnubg_ubgis_v01_option_lines_read_and_check_setoption_values():
    lines = ["option name Threads type spin default 4 min 1 max 256",
             "option name Deterministic type check default true",
             "option name EvalMode type combo default cubeless var cubeless var cubeful"]
    threads, deterministic, mode = (parse_answer(line) for line in lines)
    assert (threads.name, threads.minimum, threads.maximum, threads.default) == ("Threads", 1, 256, "4")
    assert threads.value_of(8) == "8" and deterministic.value_of(False) == "false"
    assert mode.choices == ("cubeless", "cubeful") and mode.value_of("cubeful") == "cubeful"
    for option, bad in ((threads, 0), (deterministic, "maybe"), (mode, "cubey")):
        with pytest.raises(UbgiError):
            option.value_of(bad)
    assert [parse_answer(line).line() for line in lines] == lines
    assert Option("Threads", "spin", "4", 1, 256).line() == lines[0]


def test_error_lines_of_a_server_use_only_v02s_four_codes():
    assert ubgi.error_line("bad_state", "missing   position") == "error bad_state missing position"
    with pytest.raises(ValueError, match="four error codes"):
        ubgi.error_line("unknown_command")
    assert parse_answer("error unsupported_feature go_role_cube").unsupported
    assert not parse_answer("error unsupported_feature x").standard


def test_the_take_extension_reads_take_pass_and_beaver_and_nothing_else():
    assert [parse_answer(f"besttake {word}").response for word in ("take", "pass", "beaver")] == \
        [Response.TAKE, Response.DROP, Response.BEAVER]
    assert BestTake(Response.DROP).line() == "besttake pass"
    for word in ("drop", "yes", "Take"):
        with pytest.raises(UbgiError):
            parse_answer(f"besttake {word}")
    assert parse_command("go take") == Go("take") and Go("take", legacy=True).line() == "go role take"
    assert ubgi.TAKE_KEY == "bgsim.take" and parse_key("key bgsim.take bool true !").name == ubgi.TAKE_KEY


# --- plays ----------------------------------------------------------------------------------


def _point(point: int) -> str:
    return "bar" if point == 25 else "off" if point == 0 else str(point)


def _positions(count: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """Positions with a roll from random games played to the end: openings, hits, the bar, races
    and bear-offs."""
    chooser = random.Random(seed)
    found = []
    while len(found) < count:
        position = START
        while not position.finished and len(found) < count:
            roll = (chooser.randint(1, 6), chooser.randint(1, 6))
            plays = legal_plays(position, roll)
            found.append((position, roll))
            if plays:
                position = chooser.choice(plays).result
            position = position.turned()
    return found


def test_every_legal_play_reads_back_from_its_notation_and_from_its_single_steps_in_any_order():
    chooser = random.Random(7)
    checked = 0
    for position, roll in _positions(220, 3):
        plays = legal_plays(position, roll)
        if not plays:
            assert read_play(position, roll, "pass", plays) is None
            continue
        for play in plays:
            steps = [f"{_point(source)}/{_point(target)}" for source, target, _ in play.moves]
            chooser.shuffle(steps)
            for text in (play.notation, " ".join(steps), " ".join(step.replace("/", "-") for step in steps)):
                assert read_play(position, roll, text, plays) is play, (position.position_id, roll, text)
            checked += 1
    assert checked > 2000


@pytest.mark.parametrize("text", ["24/13", "24/18/13", "24/18 18/13", "18/13 24/18", "24-18-13", "24 18 18 13"])
def test_one_checker_run_with_both_dice_reads_in_every_notation(text):
    assert read_play(START, (6, 5), text).notation == "24/13"


def test_bar_off_hits_and_counts_read_by_the_position_they_produce():
    # one of ours on the bar, an opponent blot on our 20-point
    position = Position.from_points({"bar": 1, 13: 5, 8: 3, 6: 5, 24: 1}, {20: 1, 1: 2, 12: 5, 17: 3, 19: 4})
    play = read_play(position, (5, 3), "bar/20* 13/10")
    assert play.notation == "bar/20* 13/10"
    assert read_play(position, (5, 3), "25/20 13/10") == play  # bar as 25, the hit unmarked
    assert read_play(position, (5, 3), "13/10 bar/20") == play  # any order
    race = Position.from_points({1: 2, 2: 3, 3: 1}, {24: 5})
    assert read_play(race, (6, 6), "3/off 2/off(3)").notation == read_play(race, (6, 6), "2/0 3/0 2/0 2/0").notation
    doubles = read_play(START, (3, 3), "8/5(2) 6/3(2)")
    assert read_play(START, (3, 3), "6/3 8/5 6/3 8/5") == doubles


def test_a_run_past_a_blot_reads_as_the_landing_that_does_not_hit_and_the_hit_when_marked():
    # an opponent blot on our 18-point: 24/13 with 6-5 may pass by 19 or hit on 18
    position = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {18: 1, 12: 4, 17: 3, 20: 5, 1: 2})
    assert read_play(position, (6, 5), "24/13").notation == "24/13"
    assert read_play(position, (6, 5), "24/18*/13").notation == "24/18*/13"
    assert read_play(position, (6, 5), "24/18 18/13").notation == "24/18*/13"


def test_a_run_that_can_only_hit_on_the_way_reads_as_that_hit_and_two_such_hits_are_ambiguous():
    only = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {18: 1, 12: 4, 17: 3, 1: 2, 19: 2, 20: 3})
    assert read_play(only, (6, 5), "24/13").notation == "24/18*/13"
    both = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {18: 1, 19: 1, 12: 5, 17: 4, 1: 2, 2: 2})
    with pytest.raises(IllegalPlay) as caught:
        read_play(both, (6, 5), "24/13")
    assert caught.value.reason == "ambiguous" and "24/18*/13" in str(caught.value)


@pytest.mark.parametrize("text, reason", [
    ("24/18 13/11", "illegal"), ("24/18 24/18", "illegal"), ("13/7 13/7 13/7", "illegal"),
    ("pass", "pass"), ("bar/19 8/7", "illegal"), ("6/off 8/7", "illegal"),
])
def test_a_play_the_rules_do_not_allow_is_illegal_with_its_reason(text, reason):
    with pytest.raises(IllegalPlay) as caught:
        read_play(START, (6, 1), text)
    assert caught.value.reason == reason
    assert "\n" not in str(caught.value)


def test_a_play_where_none_is_legal_must_be_pass():
    closed = Position.from_points({"bar": 1, 13: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3})
    assert legal_plays(closed, (6, 6)) == []
    assert read_play(closed, (6, 6), "pass") is None
    with pytest.raises(IllegalPlay) as caught:
        read_play(closed, (6, 6), "bar/19")
    assert caught.value.reason == "pass"


def test_a_play_of_the_opponent_in_its_own_numbering_is_refused_as_the_wrong_side():
    # the side on roll races home; the opponent still has its back checkers
    position = Position.from_points({6: 5, 5: 5, 4: 5}, {1: 2, 12: 5, 17: 3, 19: 5})
    theirs = legal_plays(position.turned(), (6, 5))[0]
    with pytest.raises(IllegalPlay) as caught:
        read_play(position, (6, 5), theirs.notation)
    assert caught.value.reason == "wrong_side"


def test_bestmoveid_reads_the_result_seen_from_either_side():
    play = legal_plays(START, (3, 1))[4]
    assert read_play(START, (3, 1), BestMoveId(play.result.position_id)) == play
    assert read_play(START, (3, 1), BestMoveId(play.result.turned().position_id)) == play
    with pytest.raises(IllegalPlay):
        read_play(START, (3, 1), BestMoveId(START_ID))


@pytest.mark.parametrize("text", ["", "garbage", "24/", "24/18/", "1/7", "off/3", "24/bar", "24/off/3",
                                  "8/5(5)", "8 5 6", "24/18* 13/x", "24*/18", "8/off*"])
def test_a_malformed_play_is_one_error_naming_it(text):
    with pytest.raises(UbgiError) as caught:
        read_play(START, (6, 1), text)
    assert not isinstance(caught.value, IllegalPlay)
    assert "\n" not in str(caught.value)


def test_bestmove_text_writes_bgsims_notation_and_pass():
    plays = legal_plays(START, (6, 6))
    assert ubgi.bestmove_text(plays[0]) == plays[0].notation
    assert ubgi.bestmove_text(None) == "pass"


# --- situations -----------------------------------------------------------------------------


def test_a_situation_writes_the_position_lines_with_its_cube_score_and_rules():
    position = legal_plays(START, (3, 1))[0].result.turned()
    money = Situation(position, dice=(6, 5), cube_value=2, cube_owner=ON_ROLL, jacoby=True, beaver=True)
    lines = money.position_lines(xgid=True)
    assert lines[0] == f"position gnubgid {position.position_id}"
    state = parse_command(lines[1]).xgid
    assert (state.position, state.dice, state.cube_value, state.cube_owner, state.jacoby, state.beaver) == \
        (position, (6, 5), 2, ON_ROLL, True, True)
    assert money.position_lines() == lines[:1]
    match = Situation(position, cube_value=4, cube_owner=OPPONENT, match_to=7, score=(3, 5))
    assert Situation.from_xgid(match.xgid(), max_cube=64) == match
    redouble = Situation(position, cube_value=4, cube_owner=ON_ROLL, offered=True, match_to=7, score=(3, 5))
    assert Situation.from_xgid(redouble.xgid(), max_cube=64) == redouble
    with pytest.raises(UbgiError, match="opponent owns the cube"):  # a double only from a cube one may turn
        Situation(position, cube_value=4, cube_owner=OPPONENT, offered=True, match_to=7, score=(3, 5))
    assert match.game_values() == {
        "game.variant": "backgammon", "game.match_length": "7", "game.score_self": "3",
        "game.score_opponent": "5", "game.crawford": "false", "game.cube": "4", "game.cube_owner": "opponent",
        "game.jacoby": "false", "game.beaver": "false", "game.max_cube": "64"}
    assert Situation(position).with_game_values(match.game_values()) == replace(match, offered=False)
    assert match.session_lines() == ["newsession type match length 7 crawford off", "setscore 3 5",
                                     "setcube value 4 owner p1", "setturn p0"]


def test_a_situation_refuses_what_ubgi_cannot_carry():
    with pytest.raises(UbgiError, match="checkers in hand"):
        Situation(Position.start("dutch"))
    with pytest.raises(UbgiError):
        Situation(START, crawford=True)  # a Crawford game needs a match
    with pytest.raises(UbgiError, match="game keys"):
        Situation(START).with_game_values({"game.weather": "fine"})
    nack = Situation(Position.start("nackgammon"))
    assert nack.game_values()["game.variant"] == "nackgammon"
    assert [key.name for key in nack.game_keys()] == list(ubgi.GAME_KEYS)
    assert all(parse_key(key.line()) == key for key in nack.game_keys())


def test_the_fast_position_ids_and_xgids_are_the_reference_encoders_own():
    chooser = random.Random(5)
    for position, roll in _positions(300, 11):
        assert ubgi.fast_position_id(position.board) == position.position_id
        owner = chooser.choice([CENTRE, ON_ROLL, OPPONENT])
        situation = Situation(position, dice=roll if chooser.random() < 0.5 else (0, 0),
                              cube_value=1 << chooser.randint(0 if owner == CENTRE else 1, 6),  # owned: turned
                              cube_owner=owner,
                              jacoby=chooser.random() < 0.5, beaver=chooser.random() < 0.5,
                              max_cube=chooser.choice([64, 256, 1 << 20]))
        assert situation.xgid() == situation._encode()
        crawford = chooser.random() < 0.5  # the Crawford game has no cube to offer
        match = Situation(position, offered=not crawford, match_to=7, score=(6, chooser.randint(0, 5)),
                          crawford=crawford)
        assert match.xgid() == match._encode()
