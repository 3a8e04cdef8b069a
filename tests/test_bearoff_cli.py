"""The bear-off databases on the command line: ``bgsim bearoff``'s flags, a cache that cannot be
written, and building that says first what and how long.
"""

from __future__ import annotations

from bgsim.board import Position
from conftest import one_error_line
from experiments import cli


def test_bearoff_check_with_a_negative_seed_names_seed(capsys):
    assert cli.main(["bearoff", "check", "--seed", "-1", "--positions", "2"]) == 2
    assert "--seed must be a whole number from 0 to 2**63-1, got -1" in one_error_line(capsys)


def test_an_unwritable_cache_is_one_warning_line_per_database(tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BGSIM_CACHE", str(blocker / "cache"))  # cannot be created: its parent is a file
    monkeypatch.setenv("BGSIM_BEAROFF_CHECKERS", "2")
    board = [0] * 26
    board[1], board[24] = 1, -1  # one checker each on its 1-point: the side on roll is off at once
    assert cli.main(["eval", Position(tuple(board)).position_id]) == 0
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert lines and all(line.startswith("bgsim: warning: could not keep the ") for line in lines), lines
    assert all("set BGSIM_CACHE to a folder you can write" in line for line in lines)
    assert "UserWarning" not in captured.err and "warnings.warn" not in captured.err
    assert "win  100.000%" in captured.out  # and the answer is printed


def test_building_the_bear_off_databases_says_first_what_and_how_long(tmp_path, capsys, monkeypatch):
    from experiments.studies import bearoff

    monkeypatch.setenv("BGSIM_CACHE", str(tmp_path))  # nothing built yet
    monkeypatch.setenv("BGSIM_BEAROFF_CHECKERS", "2")
    assert [kind for kind, _, _ in bearoff.pending_builds()] == ["one-sided", "two-sided"]
    said = []
    bearoff.announce_builds(said.append)  # what cube-audit and cross-check say before their work
    assert [line.split(" (")[0] for line in said] == ["building the one-sided bear-off database",
                                                      "building the two-sided bear-off database"]
    assert all(": about " in line and "`bgsim bearoff build`" in line for line in said)
    assert cli.main(["bearoff", "build"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in err] == ["building the one-sided database", "building the two-sided database"]
    assert all(": about " in line for line in err)
    assert bearoff.pending_builds() == []  # built and kept: the next command says nothing
    assert cli.main(["bearoff", "build"]) == 0
    assert "building" not in capsys.readouterr().err
