"""The files a command writes: one mode for every command's files, and a write that fails names the
file and what to do, leaving nothing half-written.
"""

from __future__ import annotations

import errno
import os

import pytest

from experiments import cli


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600)])
def test_play_and_run_write_files_with_the_same_mode(tmp_path, umask, mode):
    toml = tmp_path / "t.toml"
    toml.write_text('players = ["heuristic", "heuristic+pipdiff"]\ngames = 1\nengine = "reference"\n')
    old = os.umask(umask)
    try:
        assert cli.main(["play", "random", "random", "--games", "2", "--engine", "reference",
                         "--out", str(tmp_path / "p.parquet"), "--no-progress"]) == 0
        assert cli.main(["run", str(toml), "--out", str(tmp_path / "r"), "--no-progress"]) == 0
    finally:
        os.umask(old)
    written = [tmp_path / "p.parquet"] + [tmp_path / "r" / name for name in
                                           ("games.parquet", "run.json", "summary.md", "summary.csv")]
    assert {path.name: path.stat().st_mode & 0o777 for path in written} == {path.name: mode for path in written}


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "the disk is full: make room"),
                                         (errno.EROFS, "read-only: choose a writable folder")])
def test_play_names_the_file_and_what_to_do_when_it_cannot_write(tmp_path, capsys, monkeypatch, code, words):
    import pyarrow.parquet as pq

    class Failing:
        def __init__(self, *args, **kwargs):
            raise OSError(code, os.strerror(code))

    monkeypatch.setattr(pq, "ParquetWriter", Failing)
    out = tmp_path / "rows.parquet"
    assert cli.main(["play", "random", "random", "--games", "2", "--engine", "reference",
                     "--out", str(out), "--no-progress"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    error = lines[-1]  # after the line that said what would be played: one error line
    assert error.startswith("bgsim: error: ") and sum(line.startswith("bgsim") for line in lines) == 1
    assert f"cannot write {out}: {os.strerror(code)}; " in error and words in error
    assert "[Errno" not in error and not list(tmp_path.iterdir())
