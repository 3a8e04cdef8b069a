"""One claim-and-write path for every command that writes a file (issue 31): ``import``,
``export``, ``analyse`` and ``play --record`` check their outputs, claim them and only then
write, so that no output of another writer, nor of an earlier run, is lost without --force."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from experiments import cli
from experiments.running.files import _start_time, claim_name

REAL = Path(__file__).parent / "data" / "interchange" / "real"
MATCH = REAL / "fibs_forced_blank.mat"


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("bgsim: error: "), err
    return err


@pytest.fixture
def other_writer():
    """A live process of another bgsim holding a claim on a path (its claim file, as ``claim``
    writes one); the process ends after the test."""
    process = subprocess.Popen(["sleep", "600"])
    claimed = []

    def hold(path: Path) -> int:
        import socket

        claim_name(path).write_text(json.dumps({"pid": process.pid, "host": socket.gethostname(),
                                                "started": _start_time(process.pid)}))
        claimed.append(path)
        return process.pid

    yield hold
    process.kill()
    process.wait()
    for path in claimed:
        claim_name(path).unlink(missing_ok=True)


@pytest.fixture(scope="module")
def play_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("played") / "games.parquet"
    assert cli.main(["play", "random", "random", "--games", "2", "--engine", "reference", "--out", str(out),
                     "--no-progress"]) == 0
    return out


def test_import_stops_at_an_out_another_bgsim_is_writing_and_changes_nothing(tmp_path, capsys, other_writer):
    out = tmp_path / "rows.parquet"
    out.write_bytes(b"the other writer's")
    pid = other_writer(out)
    assert cli.main(["import", str(MATCH), "--out", str(out), "--force", "--no-progress"]) == 2
    assert f"another bgsim (process {pid}) is writing" in one_error_line(capsys)
    assert out.read_bytes() == b"the other writer's"


def test_import_refuses_an_existing_out_without_force_and_force_without_out(tmp_path, capsys):
    out = tmp_path / "rows.parquet"
    out.write_bytes(b"precious")
    assert cli.main(["import", str(MATCH), "--out", str(out), "--no-progress"]) == 2
    assert "exists; pass --force" in one_error_line(capsys) and out.read_bytes() == b"precious"
    assert cli.main(["import", str(MATCH), "--force", "--no-progress"]) == 2
    assert "--force has no effect without --out" in one_error_line(capsys)


@pytest.mark.parametrize("command", [
    ["import", str(MATCH)],
    ["play", "random", "random", "--games", "1", "--engine", "reference"],
])
def test_an_out_that_is_a_folder_is_named_a_folder_with_or_without_force(tmp_path, capsys, command):
    folder = tmp_path / "x.parquet"
    folder.mkdir()
    for force in ([], ["--force"]):
        assert cli.main([*command, "--out", str(folder), "--no-progress", *force]) == 2
        assert f"--out {folder} is a folder: name a file" in one_error_line(capsys)


def test_export_to_a_folder_is_named_a_folder(tmp_path, capsys, play_file):
    folder = tmp_path / "x.mat"
    folder.mkdir()
    assert cli.main(["export", str(play_file), "--format", "mat", "--out", str(folder)]) == 2
    assert "is a folder" in one_error_line(capsys)


def test_play_record_onto_its_own_out_is_refused_before_any_game(tmp_path, capsys):
    out = tmp_path / "x.parquet"
    assert cli.main(["play", "random", "random", "--games", "2", "--engine", "reference", "--out", str(out),
                     "--record", "sgf", str(out), "--no-progress"]) == 2
    assert "is --out's file too" in one_error_line(capsys)
    assert list(tmp_path.iterdir()) == []


def test_play_record_does_not_overwrite_a_match_file_of_an_earlier_run_without_force(tmp_path, capsys):
    earlier = tmp_path / "m-match-1.mat"
    earlier.write_text("an earlier run's match")
    words = ["play", "random", "random", "--games", "2", "--match-to", "1", "--engine", "reference",
             "--out", str(tmp_path / "m.parquet"), "--record", "mat", str(tmp_path / "m.mat"), "--no-progress"]
    assert cli.main(words) == 2
    assert f"{earlier} exists; pass --force" in one_error_line(capsys)
    assert earlier.read_text() == "an earlier run's match" and not (tmp_path / "m.parquet").exists()
    assert cli.main(words + ["--force"]) == 0
    assert earlier.read_text().startswith(";") and (tmp_path / "m-match-0.mat").exists()


def test_analyse_does_not_replace_an_earlier_analysis_without_force(tmp_path, capsys, play_file, gnubg):
    table = play_file.with_name(f"{play_file.stem}.gnubg_analysis.md")
    table.write_text("an earlier analysis")
    try:
        assert cli.main(["analyse", str(play_file), "--no-progress"]) == 2
        assert "pass --force to replace the earlier analysis" in one_error_line(capsys)
        assert table.read_text() == "an earlier analysis"
    finally:
        table.unlink()


def test_analyse_stops_while_another_analysis_of_the_same_games_runs(tmp_path, capsys, play_file, gnubg,
                                                                     other_writer):
    table = play_file.with_name(f"{play_file.stem}.gnubg_analysis.csv")
    pid = other_writer(table)
    assert cli.main(["analyse", str(play_file), "--no-progress"]) == 2
    assert f"another bgsim (process {pid}) is writing this analysis" in one_error_line(capsys)
    assert not table.exists()


@pytest.mark.parametrize("selection, words", [
    ("", "--games '': give all, N, A-B"),
    ("1-5", "games 2-5 are not in"),
])
def test_export_refuses_games_the_file_does_not_hold(tmp_path, capsys, play_file, selection, words):
    out = tmp_path / "x.mat"
    assert cli.main(["export", str(play_file), "--games", selection, "--format", "mat", "--out", str(out)]) == 2
    assert words in one_error_line(capsys)
    assert not out.exists()


def test_a_claim_left_behind_by_a_dead_import_is_taken_over(tmp_path, capsys):
    out = tmp_path / "rows.parquet"
    dead = subprocess.Popen(["true"])
    dead.wait()
    claim_name(out).write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname(), "started": None}))
    assert cli.main(["import", str(MATCH), "--out", str(out), "--no-progress"]) == 0
    assert out.exists() and not claim_name(out).exists()
