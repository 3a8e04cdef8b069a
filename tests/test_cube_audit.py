"""bgsim cube-audit: decisions judged against the truth, the files it writes, resuming."""

from __future__ import annotations

import json
import math
import shlex

import numpy as np
import pandas as pd
import pytest

from bgsim.board import Position
from bgsim.cube import Response
from bots.exact import cube_equities
from conftest import one_error_line, race_id
from experiments import cli
from experiments.cli import build_parser, main
from experiments.running import progress
from experiments.running.config import split_specs
from experiments.studies import cube_audit


def bearoff(own, other) -> Position:
    return Position.from_points(own, {25 - point: n for point, n in other.items()})


class Bold:
    """Doubles everything and passes everything."""

    def offer_double(self, position, cube):
        return True

    def respond(self, position, cube):
        return Response.DROP


def rows_of(position: Position, spec: str) -> dict[str, dict]:
    rules = cube_audit.make_rules([spec])
    return {row["question"]: row for row in cube_audit.judge(position.position_id, rules)}


def test_errors_cost_what_the_truth_says():
    # in the two-sided table: a strong double for the side on roll, and a pass
    strong = bearoff({1: 2, 2: 1, 4: 1}, {6: 2, 5: 1})
    truth = cube_equities(strong)
    assert truth.source == "exact" and truth.double_take > 1.0 > truth.centred
    never = rows_of(strong, "never-take")
    assert never["double"]["error"] == "missed double"
    assert never["double"]["equity_lost"] == pytest.approx(1.0 - truth.centred)
    assert never["take"]["error"] == "" and never["take"]["truth"] == "exact"
    always = rows_of(strong, "always-take")
    assert always["take"]["error"] == "wrong take"
    assert always["take"]["equity_lost"] == pytest.approx(truth.double_take - 1.0)
    # behind: no double, and a take
    weak = strong.turned()
    truth = cube_equities(weak)
    assert truth.double_take < min(truth.centred, 1.0)
    bold = {row["question"]: row for row in cube_audit.judge(weak.position_id, [cube_audit.Rule("bold", Bold())])}
    assert bold["double"]["error"] == "wrong double"
    assert bold["double"]["equity_lost"] == pytest.approx(truth.centred - truth.double_take)
    assert bold["take"]["error"] == "wrong pass"
    assert bold["take"]["equity_lost"] == pytest.approx(1.0 - truth.double_take)
    perfect = rows_of(weak, "exact")
    assert all(row["error"] == "" and row["equity_lost"] == 0.0 for row in perfect.values())


def test_buckets():
    assert [cube_audit.bucket_of(p) for p in (1, 30, 31, 60, 61, 90, 91, 167)] == \
        ["<=30", "<=30", "31-60", "31-60", "61-90", "61-90", ">90", ">90"]


def audit(tmp_path, *extra):
    return main(["cube-audit", "--players", "keith,pipdiff(take=10%),exact", "--positions", "24",
                 "--seed", "3", "--out", str(tmp_path / "audit"), "--no-progress", *extra])


def test_the_audit_writes_its_files_and_exact_loses_nothing(tmp_path, capsys):
    assert audit(tmp_path) == 0
    folder = tmp_path / "audit"
    frame = pd.read_parquet(folder / "decisions.parquet")
    assert len(frame) == 24 * 3 * 3
    assert set(frame["truth"]) <= {"exact", "estimated"}
    assert frame.groupby("position_id").size().eq(9).all()
    assert (frame[frame["rule"] == "exact"]["equity_lost"] == 0).all()
    assert all(Position.from_position_id(pid).is_race for pid in frame["position_id"].unique())
    summary = pd.read_csv(folder / "summary.csv")
    for column in ("rule", "bucket", "missed_double", "wrong_double", "wrong_take", "wrong_pass",
                   "equity_lost", "equity_lost_low", "equity_lost_high"):
        assert column in summary.columns
    assert set(summary["rule"]) == {"keith", "pipdiff(take=10%)", "exact"}
    assert set(summary["bucket"]) == {"all", "<=30", "31-60", "61-90", ">90"}
    text = (folder / "summary.md").read_text()
    assert text.startswith("# Cube-decision audit")
    # run.json as every other run's: the commit and whether the tree was clean, the version, and
    # the command even when started through cli.main (sys.argv is pytest's here)
    record = json.loads((folder / "run.json").read_text())
    assert {"git_commit", "git_dirty", "bgsim_version"} <= set(record) and "commit" not in record
    if record["git_commit"]:
        assert f"commit {record['git_commit'][:12]}" in text
    assert f"Played with bgsim {record['bgsim_version']}" in text
    words = shlex.split(record["command"])
    assert words[:2] == ["bgsim", "cube-audit"]
    again = build_parser().parse_args(words[1:])
    assert cube_audit.audit_identity(split_specs(again.players), again.positions, again.seed, again.sampler,
                                     again.per_game, again.source) == record["identity"]
    assert (folder / "cube_audit.png").stat().st_size > 0
    # a finished run is not replaced without --force, in one line
    capsys.readouterr()
    assert audit(tmp_path) == 2
    assert "finished audit" in capsys.readouterr().err.strip()
    assert audit(tmp_path, "--force") == 0


def test_an_interrupted_audit_resumes_to_the_same_rows(tmp_path, monkeypatch):
    assert main(["cube-audit", "--players", "keith,thorp", "--positions", "24", "--seed", "3",
                 "--out", str(tmp_path / "whole"), "--no-progress"]) == 0
    whole = pd.read_parquet(tmp_path / "whole" / "decisions.parquet")
    monkeypatch.setattr(cube_audit, "CHUNK_POSITIONS", 10)
    judge, calls = cube_audit.judge, []

    def interrupted(position_id, rules, *judging):
        calls.append(position_id)
        if len(calls) == 15:  # in the second block of ten
            raise KeyboardInterrupt
        return judge(position_id, rules, *judging)

    monkeypatch.setattr(cube_audit, "judge", interrupted)
    arguments = ["cube-audit", "--players", "keith,thorp", "--positions", "24", "--seed", "3",
                 "--out", str(tmp_path / "parts"), "--no-progress"]
    assert main(arguments) == 130
    assert len(list((tmp_path / "parts" / "chunks").glob("*.parquet"))) == 1
    assert main(arguments) == 2  # an unfinished run needs --resume
    monkeypatch.setattr(cube_audit, "judge", judge)
    assert main(arguments + ["--resume"]) == 0
    parts = pd.read_parquet(tmp_path / "parts" / "decisions.parquet")
    pd.testing.assert_frame_equal(parts, whole)


def test_positions_from_a_file_must_be_races(tmp_path, capsys):
    race = bearoff({6: 3, 5: 2}, {6: 4})
    contact = Position.start()
    good = tmp_path / "races.txt"
    good.write_text(f"# two races\n{race.position_id}\n{race.turned().position_id}\n")
    assert main(["cube-audit", "--players", "keith", "--from", str(good), "--out", str(tmp_path / "a"),
                 "--no-progress"]) == 0
    assert len(pd.read_parquet(tmp_path / "a" / "decisions.parquet")) == 2 * 3
    bad = tmp_path / "mixed.txt"
    bad.write_text(f"{race.position_id}\n{contact.position_id}\n")
    capsys.readouterr()
    assert main(["cube-audit", "--players", "keith", "--from", str(bad), "--out", str(tmp_path / "b"),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "line 2" in err and "not a race" in err and "\n" not in err


def test_a_bad_spec_is_one_error_line(tmp_path, capsys):
    assert main(["cube-audit", "--players", "keith,nosuchbot", "--positions", "5",
                 "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert "nosuchbot" in err and "\n" not in err
    assert not (tmp_path / "x").exists()


def test_a_kill_between_run_json_and_the_positions_resumes(tmp_path, monkeypatch, capsys):
    arguments = ["cube-audit", "--players", "keith,thorp", "--positions", "24", "--seed", "3",
                 "--out", str(tmp_path / "killed"), "--no-progress"]
    write_text = cube_audit.write_text

    def killed(text, path):
        if path.name == "positions.txt":
            raise KeyboardInterrupt  # killed once run.json is written, before the positions are
        write_text(text, path)

    monkeypatch.setattr(cube_audit, "write_text", killed)
    assert main(arguments) == 130
    folder = tmp_path / "killed"
    assert json.loads((folder / "run.json").read_text())["status"] == "running"
    assert not (folder / "positions.txt").exists()
    monkeypatch.setattr(cube_audit, "write_text", write_text)
    capsys.readouterr()
    assert main(arguments) == 2  # an unfinished run: one line naming --resume
    assert "--resume" in capsys.readouterr().err
    assert main(arguments + ["--resume"]) == 0  # samples again
    assert main([*arguments[:-3], "--out", str(tmp_path / "whole"), "--no-progress"]) == 0
    pd.testing.assert_frame_equal(pd.read_parquet(folder / "decisions.parquet"),
                                  pd.read_parquet(tmp_path / "whole" / "decisions.parquet"))


def decisions(losses: dict[str, np.ndarray], games: np.ndarray) -> pd.DataFrame:
    """Decision rows as the audit writes them: ``losses[rule]`` holds each position's three
    losses (first double, redouble, take), ``games`` each position's sampling game."""
    rows = []
    for rule, lost in losses.items():
        for index, game in enumerate(games):
            for question, value in zip(cube_audit.QUESTIONS, lost[index]):
                rows.append({"rule": rule, "question": question, "position_id": f"p{index}",
                             "position_index": index, "game": int(game), "pips": 50, "bucket": "31-60",
                             "truth": "exact", "window": True, "error": "wrong take" if value else "",
                             "equity_lost": float(value)})
    frame = pd.DataFrame(rows)
    frame["game"] = frame["game"].astype("Int64")
    return frame


def test_intervals_take_the_sampling_game_as_the_unit():
    rng = np.random.default_rng(5)
    # positions alike within a game, and a position's three questions alike: correlated losses
    games = np.repeat(np.arange(40), 3)
    level = rng.exponential(0.05, 40)[games]
    losses = {"a": np.where(rng.random((120, 3)) < 0.4, level[:, None] * rng.uniform(0.5, 1.5, (120, 3)), 0.0)}
    frame = decisions(losses, games)
    one = cube_audit.summarise(frame, ["a"]).iloc[0]
    # the same positions twice, as if the sampler had drawn each again in its game
    twice = pd.concat([frame, frame.assign(position_index=frame["position_index"] + 120)], ignore_index=True)
    two = cube_audit.summarise(twice, ["a"]).iloc[0]
    assert two["decisions"] == 2 * one["decisions"] and two["equity_lost"] == pytest.approx(one["equity_lost"])
    for column in ("equity_lost_low", "equity_lost_high", "error_rate_low", "error_rate_high"):
        assert two[column] == pytest.approx(one[column])
    # where decisions counted as independent draws, the copy would have narrowed the interval
    naive = [cube_audit.Z95 * f["equity_lost"].std(ddof=1) / math.sqrt(len(f)) for f in (frame, twice)]
    assert naive[1] == pytest.approx(naive[0] / math.sqrt(2), rel=0.01)
    half = one["equity_lost_high"] - one["equity_lost"]
    assert half > 1.5 * naive[0]  # and the correlated decisions make it wider than the naive one
    # one decision a unit: the usual standard error of a mean
    values = rng.normal(size=50)
    mean, half = cube_audit.clustered(values, np.arange(50))
    assert half == pytest.approx(cube_audit.Z95 * values.std(ddof=1) / math.sqrt(50))


def test_rules_are_compared_on_the_same_positions():
    rng = np.random.default_rng(7)
    games = np.arange(60)
    varied = rng.exponential(0.1, (60, 3))
    # b errs exactly where a does and always costs 0.002 more: the positions vary far more than
    # the difference, so two separate intervals overlap, yet the paired difference is certain
    frame = decisions({"a": varied, "b": varied + 0.002}, games)
    summary = cube_audit.summarise(frame, ["a", "b"])
    summary = summary[summary["bucket"] == cube_audit.ALL].set_index("rule")
    assert summary.loc["a", "equity_lost_high"] > summary.loc["b", "equity_lost_low"]
    found = cube_audit.paired(frame, "a", "b")
    assert found["lost_difference"] == pytest.approx(-0.002)
    assert found["lost_high"] < 0 and found["decisions"] == 180
    sentence = cube_audit._beats(frame, "a", "b")
    assert "a loses less" in sentence and "not settled" in sentence  # the error rates are equal
    assert "no difference" in cube_audit._beats(frame, "a", "a")


# --- the audit's command line: refusals, estimates, small samples ----------------------------

def test_cube_audit_refuses_sampling_options_with_from(tmp_path, capsys):
    positions = tmp_path / "races.txt"
    positions.write_text(race_id() + "\n")
    assert cli.main(["cube-audit", "--players", "keith", "--from", str(positions), "--seed", "2",
                     "--sampler", "pubeval", "--out", str(tmp_path / "a")]) == 2
    assert "--seed and --sampler have no effect with --from" in one_error_line(capsys)
    assert not (tmp_path / "a").exists()


def test_a_huge_cube_audit_says_early_how_long_it_will_take(tmp_path, capsys, monkeypatch):
    from experiments.studies import cube_audit

    monkeypatch.setattr(progress, "ESTIMATE_AFTER", 0.0)  # the estimate at the first positions found
    sample = cube_audit.sample_positions

    def stopped(sampler, count, seed, per_game, scope, found_more, *variant):
        calls = []

        def found(k):
            found_more(k)
            calls.append(k)
            if len(calls) == 3:
                raise KeyboardInterrupt  # the user gives up: the estimate was already said
        return sample(sampler, count, seed, per_game, scope, found, *variant)

    monkeypatch.setattr(cube_audit, "sample_positions", stopped)
    assert cli.main(["cube-audit", "--players", "keith", "--positions", str(10 ** 12), "--sampler", "pubeval",
                     "--out", str(tmp_path / "huge"), "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert "sampling 1,000,000,000,000 race positions" in err
    assert "sampling: about " in err and " days to go at ~" in err


def test_equity_lost_and_error_rate_intervals_never_go_below_zero():
    from experiments.studies import cube_audit

    # five sampling games, one decision each, one of them a costly error: 0.2 lost per decision
    rows = [{"rule": "r", "question": "take", "position_id": f"p{game}", "position_index": game, "game": game,
             "pips": 50, "bucket": "31-60", "truth": "exact", "window": True,
             "error": "wrong take" if game == 4 else "", "equity_lost": 1.0 if game == 4 else 0.0}
            for game in range(5)]
    frame = pd.DataFrame(rows).astype({"game": "Int64"})
    row = cube_audit.summarise(frame, ["r"]).iloc[0]
    values = np.array([0, 0, 0, 0, 1.0])
    normal_low = values.mean() - 1.959964 * values.std(ddof=1) / math.sqrt(5)
    assert normal_low < 0  # the interval the issue found: below zero for a loss
    # by hand: se = 0.2 (clustered, one decision a game), log scale 0.2 * exp(+-1.96 * 0.2 / 0.2)
    assert (row["equity_lost_low"], row["equity_lost_high"]) == pytest.approx(
        (0.2 * math.exp(-1.959964), 0.2 * math.exp(1.959964)), rel=1e-5)
    # Wilson's interval at n = p(1-p)/se**2 = 0.16 / 0.04 = 4
    z, n, p = 1.959964, 4.0, 0.2
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (row["error_rate_low"], row["error_rate_high"]) == pytest.approx((centre - half, centre + half), rel=1e-5)
    assert row["error_rate_low"] > 0 and row["equity_lost_low"] > 0
    # no loss at all: 0 .. 0, and never a negative bound
    none = cube_audit.summarise(frame.assign(equity_lost=0.0, error=""), ["r"]).iloc[0]
    assert (none["equity_lost_low"], none["equity_lost_high"]) == (0.0, 0.0) and none["error_rate_low"] == 0.0
    assert 0 < none["error_rate_high"] == pytest.approx(z * z / (5 + z * z))  # Wilson at p = 0, n = 5 units


def test_a_small_audit_says_its_intervals_are_rough(tmp_path, capsys):
    races = tmp_path / "races.txt"
    races.write_text(race_id() + "\n")
    assert cli.main(["cube-audit", "--players", "keith", "--from", str(races), "--out", str(tmp_path / "a"),
                     "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "bgsim: warning: only 1 independent units" in captured.err
    assert "(only 1 units: rough)" in (tmp_path / "a" / "summary.md").read_text()


def test_a_sampler_without_a_fast_kernel_is_refused_before_the_audit_folder_is_made(tmp_path, capsys):
    assert cli.main(["cube-audit", "--players", "keith", "--positions", "5", "--sampler", "gnubg",
                     "--out", str(tmp_path / "audit"), "--no-progress"]) == 2
    assert "the sampler 'gnubg' has no fast-engine kernel" in one_error_line(capsys)
    assert list(tmp_path.iterdir()) == []  # no folder with a run.json of an audit that never ran
