"""bgsim cube-audit: decisions judged against the truth, the files it writes, resuming."""

from __future__ import annotations

import pandas as pd
import pytest

import experiments.commands.cube_audit as command
from bgsim.board import Position
from bgsim.cube import Response
from bots.exact import cube_equities
from experiments import cube_audit
from experiments.cli import main


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
    assert (folder / "summary.md").read_text().startswith("# Cube-decision audit")
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
    monkeypatch.setattr(command, "CHUNK_POSITIONS", 10)
    judge, calls = cube_audit.judge, []

    def interrupted(position_id, rules):
        calls.append(position_id)
        if len(calls) == 15:  # in the second block of ten
            raise KeyboardInterrupt
        return judge(position_id, rules)

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
