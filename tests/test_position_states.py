"""A position's state travels with it (issue 31): an XGID's or a match ID's score, match length,
cube, its owner, the Crawford game and the dice reach every command that takes a position, and
a state no game reaches is refused in one line."""

from __future__ import annotations

import json

import pytest

from bgsim.board import Position
from bgsim.interchange.xgid import ON_ROLL, OPPONENT, Xgid, decode
from bgsim.match_id import MatchIdError, MatchState, decode as decode_match_id, encode as encode_match_id
from experiments.cli import main

START = Position.start()
BOARD = "-b----E-C---eE---c-e----B-"  # the starting position in an XGID


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("bgsim: error: "), err
    return err


@pytest.mark.parametrize("fields, words", [
    ("0:1:1:00:0:0:0:0:10", "an owned cube shows 2 or more"),
    ("1:0:1:00:0:0:0:7:10", "a centred cube shows 1 in a match"),
    ("7:1:1:00:0:0:0:0:6", "above its limit of 64"),
    ("0:0:1:00:6:6:1:7:10", "no Crawford game at 6-6 of a 7-point match"),
    ("0:0:1:00:0:0:1:1:10", "no Crawford game at 0-0 of a 1-point match"),
    ("1:1:1:00:6:3:1:7:10", "the Crawford game is played without the cube"),
    ("0:0:1:00:2:3:0:0:10", "a money game has no score, got 2-3"),
    ("1:-1:1:D:0:0:0:0:10", "offered by the side whose opponent owns the cube"),
])
def test_an_impossible_xgid_is_refused_in_one_line(capsys, fields, words):
    for command in (["show"], ["eval"]):
        assert main([*command, f"XGID={BOARD}:{fields}"]) == 2
        assert words in one_error_line(capsys)


def test_an_impossible_match_id_is_refused_in_one_line(capsys):
    owned_one = encode_match_id(MatchState(cube_value=1, cube_owner=0, match_to=7))
    with pytest.raises(MatchIdError, match="an owned cube shows 2 or more"):
        decode_match_id(owned_one)
    assert main(["show", f"{START.position_id}:{owned_one}"]) == 2
    assert "an owned cube shows 2 or more" in one_error_line(capsys)
    session = encode_match_id(MatchState(score=(2, 3)))  # GNU Backgammon keeps a session's points
    assert decode_match_id(session).score == (2, 3)


def eval_json(capsys, text: str, *more) -> dict:
    capsys.readouterr()
    assert main(["eval", text, "--json", *more]) == 0
    return json.loads(capsys.readouterr().out)


def test_eval_of_an_xgid_answers_at_its_score_and_cube_not_for_a_centred_money_cube(capsys):
    money = eval_json(capsys, f"XGID={BOARD}:0:0:1:00:0:0:0:0:10")
    assert money["at_state"] is None and money["nn_cube"] is not None  # the plain state: as before
    match = eval_json(capsys, f"XGID={BOARD}:1:1:1:00:2:4:0:7:10")
    assert match["state"] == {**match["state"], "match_to": 7, "score": [2, 4], "cube_value": 2,
                              "cube_owner": ON_ROLL}
    assert match["xgid"].endswith(":1:1:1:00:2:4:0:7:10") and "nn_cube" not in match
    from experiments.studies.cube_audit_games import situation, truth_of

    position, _, cube = situation({"xgid": match["xgid"]})
    truth = truth_of(position, cube)  # the cube audit's truth at that state
    assert match["at_state"]["no_double"] == pytest.approx(truth.no_double_value)
    assert match["at_state"]["double_take"] == pytest.approx(truth.double_take)
    theirs = eval_json(capsys, f"XGID={BOARD}:1:-1:1:00:0:0:0:0:10")
    assert theirs["at_state"]["action"] == "cannot double" and "opponent owns" in theirs["at_state"]["why"]


def test_eval_of_a_position_and_match_id_carries_its_score(capsys):
    state = Xgid(position=START, match_to=7, score=(2, 4))
    match_id = encode_match_id(MatchState(match_to=7, score=(0, 0), on_roll=0))
    found = eval_json(capsys, f"{START.position_id}:{match_id}")
    assert found["state"]["match_to"] == 7 and found["at_state"] is not None
    assert decode(state.text).score == (2, 4)


def test_eval_judge_gnubg_asks_gnubg_at_the_xgids_state(capsys, gnubg):
    from experiments.analysis.gnubg_program import cube_decisions

    text = f"XGID={BOARD}:0:0:1:00:4:3:0:7:10"
    found = eval_json(capsys, text, "--judge", "gnubg", "--plies", "0")
    theirs, = cube_decisions([decode(text)], 0)
    assert found["gnubg"]["at this state"]["no_double"] == theirs.no_double
    assert found["gnubg"]["at this state"]["double_take"] == theirs.double_take
    assert "centred" not in found["gnubg"]  # not the money cube's answer


def test_eval_of_an_xgid_with_its_dice_ranks_the_plays_of_those_dice(capsys):
    # both sides with two checkers left; the side on roll has 6-5 to bear off with
    race = Position.from_points({6: 1, 5: 1}, {19: 1, 20: 1})
    found = eval_json(capsys, Xgid(position=race, dice=(6, 5)).text)
    assert found["state"]["dice"] == [6, 5] and "at_state" not in found
    assert found["plays"][0]["play"] == "6/off 5/off" and found["plays"][0]["equity"] == 1.0


def test_rollout_of_an_xgid_with_its_dice_plays_them_first(capsys):
    from bgsim import legal_plays
    from bots import make_player

    race = Position.from_points({6: 2, 5: 1}, {19: 2, 24: 1})
    words = ["--games", "36", "--player", "racer", "--threads", "1", "--json", "--no-progress"]
    capsys.readouterr()
    assert main(["rollout", Xgid(position=race, dice=(6, 1)).text, *words]) == 0
    found = json.loads(capsys.readouterr().out)
    plays = legal_plays(race, (6, 1))
    chosen = make_player("racer").choose_play(race, (6, 1), plays, None)
    assert found["played"] == chosen.notation
    assert main(["rollout", chosen.result.turned().position_id, *words]) == 0
    theirs = json.loads(capsys.readouterr().out)  # the same trials, from the opponent's turn
    assert found["win"] == pytest.approx(1 - theirs["win"]) and found["equity"] == pytest.approx(-theirs["equity"])
    assert found["position_id"] == race.position_id


def test_show_of_an_xgid_in_a_variant_is_refused_not_drawn_as_standard(capsys):
    assert main(["show", f"XGID={BOARD}:0:0:1:00:0:0:0:0:10", "--variant", "hypergammon1"]) == 2
    assert "describes a position of the standard game, not of hypergammon1" in one_error_line(capsys)


@pytest.mark.parametrize("variant", ["nackgammon", "hypergammon2", "dutch", "acey-deucey"])
def test_trace_plays_every_variant(capsys, variant):
    assert main(["trace", "random", "random", "--variant", variant]) == 0
    out = capsys.readouterr().out
    assert f".{variant}" in out and " wins " in out


def test_cube_audit_from_reads_xgid_lines_and_refuses_a_match_score(tmp_path, capsys):
    race = Position.from_points({6: 3, 5: 3, 4: 2}, {19: 3, 20: 3, 21: 2})
    lines = tmp_path / "positions.txt"
    lines.write_text(f"{Xgid(position=race).text}\n{race.turned().position_id}\n")
    out = tmp_path / "audit"
    assert main(["cube-audit", "--players", "keith", "--from", str(lines), "--out", str(out), "--no-progress"]) == 0
    assert "2 positions" in capsys.readouterr().out
    match = tmp_path / "match.txt"
    match.write_text(Xgid(position=race, match_to=7, score=(3, 2)).text + "\n")
    assert main(["cube-audit", "--players", "keith", "--from", str(match), "--out", str(tmp_path / "m"),
                 "--no-progress"]) == 2
    assert "is a position of a 7-point match" in one_error_line(capsys)
    assert not (tmp_path / "m").exists()


def test_cube_audit_from_a_bad_file_leaves_no_run_behind_and_the_corrected_rerun_runs(tmp_path, capsys):
    race = Position.from_points({6: 3, 5: 3, 4: 2}, {19: 3, 20: 3, 21: 2})
    lines = tmp_path / "positions.txt"
    lines.write_text(f"{race.position_id}\nnot a position\n")
    out = tmp_path / "audit"
    assert main(["cube-audit", "--players", "keith", "--from", str(lines), "--out", str(out), "--no-progress"]) == 2
    assert "line 2" in one_error_line(capsys)
    assert not out.exists() or not any(out.iterdir())
    lines.write_text(f"{race.position_id}\n")
    assert main(["cube-audit", "--players", "keith", "--from", str(lines), "--out", str(out), "--no-progress"]) == 0
