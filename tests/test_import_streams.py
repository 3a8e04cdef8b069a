"""bgsim import streams (issue 31): an archive of a thousand matches, or one big file, goes to one
Parquet file with a progress bar, an estimate of the time left and memory that does not grow with
the input; worker processes write the same rows."""

from __future__ import annotations

import shutil
import tracemalloc
from pathlib import Path

import pandas as pd
import pytest

from experiments import cli
from experiments.analysis import match_import

REAL = Path(__file__).parent / "data" / "interchange" / "real"
TINY = REAL / "galaxy_resigned_match.txt"  # one game: a roll, then a resignation


def archive(folder: Path, matches: int) -> Path:
    folder.mkdir()
    for number in range(matches):
        shutil.copy(TINY, folder / f"match{number:04d}.txt")
    return folder


def peak_while(work) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class Bar:
    """match_import's Progress, recorded."""

    made: list["Bar"] = []

    def __init__(self, total, initial=0, unit="", enabled=True):
        self.total, self.count, self.unit = total, initial, unit
        Bar.made.append(self)

    def update(self, count):
        self.count += count

    def close(self):
        pass


def test_a_1000_match_archive_imports_with_a_progress_bar_in_bounded_memory(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(match_import, "BATCH_ROWS", 50)  # the rows go out in batches, as a big archive's do
    monkeypatch.setattr(match_import, "Progress", Bar)
    Bar.made = []
    small, big = archive(tmp_path / "small", 100), archive(tmp_path / "big", 1000)
    written = []  # the size of each batch written: the rows themselves go (to the file, in a run)

    def run(folder):
        return lambda: match_import.import_files(match_import.match_files([folder]),
                                                 lambda frame: written.append(len(frame)), progress=True,
                                                 log=lambda text: None)

    peaks = [peak_while(run(folder)) for folder in (small, big)]
    assert peaks[1] < 1.5 * peaks[0] + (1 << 20), peaks  # ten times the matches, not ten times the memory
    bar = Bar.made[-1]
    assert bar.unit == "B" and bar.total == 1000 * TINY.stat().st_size and bar.count == bar.total
    assert sum(written) == 1100 * 2 and max(written) <= 52
    out = tmp_path / "rows.parquet"
    assert cli.main(["import", str(big), "--out", str(out), "--no-progress"]) == 0
    rows = pd.read_parquet(out)
    assert rows["file"].nunique() == 1000 and len(rows) == 2000
    assert "1,000 files: 1,000 of 1,000 games replayed" in capsys.readouterr().out


def test_a_big_mat_file_streams_in_flat_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(match_import, "BATCH_ROWS", 50)
    game = " Game {n}\n alice : 0                       bob : 0\n  1) 42: 8/4 6/4\n      Wins 1 point\n\n"

    def session(games: int) -> Path:
        path = tmp_path / f"session{games}.mat"
        path.write_text(" 0 point match\n\n" + "".join(game.format(n=n) for n in range(1, games + 1)))
        return path

    paths = [session(100), session(1000)]
    counts = []

    def run(path):
        return lambda: counts.append(match_import.import_files([path], lambda frame: None, progress=False,
                                                                log=lambda text: None).total("kept"))

    peaks = [peak_while(run(path)) for path in paths]
    assert counts == [100, 1000]
    assert peaks[1] < 1.5 * peaks[0] + (1 << 20), peaks


def test_import_says_how_long_once_it_knows_its_pace(tmp_path, monkeypatch):
    monkeypatch.setattr(match_import, "ESTIMATE_AFTER", 0.0)
    monkeypatch.setattr(match_import, "ESTIMATE_SHARE", 0.0)
    said = []
    match_import.import_files(match_import.match_files([archive(tmp_path / "a", 20)]), None, progress=False,
                              log=said.append)
    assert len(said) == 1 and said[0].startswith("importing 20 files (0.0 MB): about ") and "games/s" in said[0]


def test_import_on_worker_processes_writes_the_same_rows(tmp_path):
    folder = tmp_path / "files"
    folder.mkdir()
    for source in sorted(REAL.glob("*.mat")) + sorted(REAL.glob("*.txt")) + sorted(REAL.glob("*.sgf")):
        shutil.copy(source, folder / source.name)
    frames = {}
    for threads in (1, 2):
        out = tmp_path / f"rows{threads}.parquet"
        assert cli.main(["import", str(folder), "--out", str(out), "--threads", str(threads), "--no-progress"]) == 2
        frames[threads] = pd.read_parquet(out)  # the negative match length is refused: exit 2, the rest kept
    pd.testing.assert_frame_equal(frames[1], frames[2])
    assert frames[1]["file"].nunique() == len(list(folder.iterdir())) - 1
