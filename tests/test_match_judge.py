"""Cube decisions judged in match-winning chances against the exact match tables
(experiments/analysis/match_judge.py): the replay finds the games that were played, exact loses nothing,
a score-blind pip rule does, and a match run reports it."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bgsim.board import Position
from bgsim.cube import Rules
from bgsim.match import play_match
from bots import make_player
from experiments import cli
from experiments.analysis import match_judge
from experiments.running import progress
from experiments.running.config import ExperimentError, experiment_from_mapping
from experiments.studies.experiment import run_experiment


def test_the_fast_replay_and_the_reference_replay_are_the_same_turns():
    white, black = make_player("nn+nn"), make_player("nn+pipdiff(score_aware=false)")
    decisions = 0
    for number in range(4):
        fast = match_judge.match_turns(white, black, 5, number, 5)
        record = play_match(white, black, 5, number, 5, trace=True)
        reference = [match_judge.Turn(i, ply.ply, ply.side, Position.from_position_id(ply.position_id).board,
                                      ply.cube_action.replace("double/", ""))
                     for i, game in enumerate(record.games) for ply in game.history]
        assert fast == reference
        games = [{"white_score": g.match.white_score, "black_score": g.match.black_score,
                  "crawford": g.match.crawford} for g in record.games]
        decisions += len(match_judge.match_decisions(fast, games, 5, Rules(), 15))
    assert decisions > 0  # 15 checkers a side: every pure bear-off is a decision to find


def decision(**changes) -> dict:
    base = {"game_in_match": 0, "ply": 9, "side": "white",
            "position_id": Position.from_points({1: 1, 3: 1}, {24: 2}).position_id,
            "away": 3, "opponent_away": 3, "post_crawford": False, "cube_value": 1, "centred": True,
            "offered": False, "answer": ""}
    return {**base, **changes}


def test_a_missed_double_and_a_wrong_take_cost_what_the_tables_say():
    from bgsim.bearoff import match

    # 2 to bear off from the 1 and 3 points (only 2-1 fails) against the opponent's 2 on its 1
    position = Position.from_points({1: 1, 3: 1}, {24: 2})
    truth = match.match_cube(position, 1, match.CENTRE, 3, 3)
    assert truth.should_double() and not truth.should_take()
    judged = match_judge.judge(pd.DataFrame([decision(), decision(offered=True, answer="take"),
                                             decision(offered=True, answer="drop")]), 6)
    assert judged["doubler_lost"].tolist() == pytest.approx(
        [truth.double_value() - truth.no_double, 0.0, 0.0], abs=1e-15)
    assert judged["taker_lost"].tolist() == pytest.approx(
        [0.0, truth.double_take - truth.double_pass, 0.0], abs=1e-15)
    assert judged["doubler_lost"].iloc[0] > 0.005 and judged["taker_lost"].iloc[1] > 0.1


def tiny(**changes):
    data = {"players": ["nn+exact", "nn+pipdiff(score_aware=false)"], "games": 14, "seed": 3, "match_to": 5,
            "engine": "fast", "chunk": 14, "judge_cube": 14, **changes}  # the engines' rows are the same
    return experiment_from_mapping(data, "tiny.toml", "tiny")


def test_exact_loses_nothing_and_a_money_rule_loses_in_a_judged_run(tmp_path, monkeypatch):
    # Bear-offs of up to 3 checkers a side: the tables of each score build in milliseconds (4
    # took ~0.7 s a score, built again by the resume), and of these 14 matches of seed 4 some
    # reach a cube decision in them: exact's, and a costly one of the money rule's (seed 3 did
    # with nn-v1's play, not with nn's: the games depend on the net).
    monkeypatch.setenv("BGSIM_MATCH_BEAROFF_CHECKERS", "3")
    result = run_experiment(tiny(seed=4), tmp_path / "run", progress=False, log=lambda text: None)
    judged = pd.read_csv(tmp_path / "run" / "cube_judge.csv")
    assert len(judged) == 28  # every deal, both seatings
    exact_white = judged["white"] == "nn+exact"
    exact_lost = pd.concat([judged.loc[exact_white, "white_lost"], judged.loc[~exact_white, "black_lost"]])
    other_lost = pd.concat([judged.loc[exact_white, "black_lost"], judged.loc[~exact_white, "white_lost"]])
    exact_decisions = judged.loc[exact_white, "white_decisions"].sum() + judged.loc[~exact_white, "black_decisions"].sum()
    assert exact_decisions > 0
    assert exact_lost.abs().max() < 1e-12
    assert other_lost.sum() > 0.01
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "Match-winning chances gained and lost by cube decisions" in summary
    assert "exact match tables" in summary
    assert result.report.judged is not None and len(result.report.judged) == 1
    row = result.report.judged.iloc[0]
    assert row["lost"] == pytest.approx(0.0, abs=1e-12) and row["gained"] > 0
    # a run stopped while judging (its rows whole, no cube_judge.csv) judges again on resume
    first = (tmp_path / "run" / "cube_judge.csv").read_text()
    (tmp_path / "run" / "cube_judge.csv").unlink()
    run_experiment(tiny(seed=4), tmp_path / "run", resume=True, progress=False, log=lambda text: None)
    assert (tmp_path / "run" / "cube_judge.csv").read_text() == first


def test_judge_cube_is_checked():
    with pytest.raises(ExperimentError, match="judge_cube"):
        tiny(judge_cube=-1)
    with pytest.raises(ExperimentError, match="needs matches"):
        tiny(match_to=0)


# --- a match run times its judging -----------------------------------------------------------

def test_a_match_run_times_its_judging_in_run_json_and_its_last_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BGSIM_MATCH_BEAROFF_CHECKERS", "2")
    monkeypatch.setattr(progress, "ESTIMATE_AFTER", 0.0)
    toml = tmp_path / "matches.toml"
    toml.write_text('name = "matches"\nplayers = ["random+pipdiff", "heuristic+pipdiff"]\nmatch_to = 3\n'
                    'games = 2\nchunk = 2\nengine = "reference"\njudge_cube = 2\n')
    assert cli.main(["run", str(toml), "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "then the cube decisions of the first 2 deals of every pairing are judged" in err  # said up front
    assert "judging: about " in err  # an estimate once the first matches are judged
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert set(run["phases"]) == {"playing", "judging", "summaries"}
    assert all(seconds >= 0 for seconds in run["phases"].values())
    last = err.strip().splitlines()[-1]
    assert last.startswith("played ") and "; judging " in last and ", summaries " in last
