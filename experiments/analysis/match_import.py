"""``bgsim import``'s work: match files (or folders of them) replayed through the rules, their
decision rows streamed to one Parquet file.

Files are read as they are needed (:func:`bgsim.interchange.files.import_games`: a line or a
megabyte at a time) and the rows go to the output in batches (``files.RowFile``), so memory stays
flat however big a file or how many files.  With ``threads`` above one, files of up to
:data:`POOLED_BYTES` are replayed by worker processes, at most two a worker in flight, taken back
in order (the rows are the same either way); a bigger file is streamed by this process.  The
progress is the bytes read; an estimate of the time left is said once the rate is known.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from bgsim.interchange.files import SUFFIXES, import_games
from bgsim.interchange.records import RecordError
from bgsim.interchange.replay import UNFINISHED_RESULT, rows_frame
from experiments.running.progress import Progress, duration
from experiments.running.workers import worker_pool

BATCH_ROWS = 20_000  # rows gathered before they go to the file
POOLED_BYTES = 4 << 20  # files a worker process replays whole; bigger ones stream here
ESTIMATE_AFTER = 2.0  # seconds before the rate is trusted for an estimate
ESTIMATE_SHARE = 0.02  # and the share of the bytes read by then


@dataclass
class FileImport:
    """What one file gave: its counts, its problems (each with the file's name), and, when the
    file was replayed in a worker process, its rows."""

    path: str
    size: int
    matches: int = 0
    match_to: int = 0
    players: tuple[str, str] = ("", "")
    games: int = 0  # games in the file, the unreadable ones among them
    kept: int = 0  # games whose rows are written
    unfinished: int = 0
    moves: int = 0
    rows: int = 0
    problems: list = field(default_factory=list)
    error: str | None = None  # the file could not be read at all
    frame: list | None = None  # a worker's rows, handed back with its counts

    @property
    def rejected(self) -> int:
        return sum(1 for problem in self.problems if problem.rejected)


def match_files(paths) -> list[Path]:
    """The files given, a folder standing for every match file under it (by suffix, sorted);
    ValueError (one line) for a path that is neither, or a folder without match files."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            inside = sorted(item for item in path.rglob("*") if item.is_file() and item.suffix.lower() in SUFFIXES)
            if not inside:
                raise ValueError(f"{path} holds no match file ({', '.join(sorted(SUFFIXES))})")
            found.extend(inside)
        elif path.exists():
            found.append(path)
        else:
            raise ValueError(f"{path} does not exist")
    return found


def _stream_file(path: Path, emit: Callable[[list[dict]], None], read: Callable[[int], None] = lambda count: None,
                 game: Callable[[], None] = lambda: None) -> FileImport:
    """Replay one file, giving its rows to ``emit`` as each game is replayed; ``read(n)`` and
    ``game()`` are told the bytes read and each game replayed as they are (the progress of a big
    file)."""
    out = FileImport(str(path), path.stat().st_size)
    try:
        for imported in import_games(path, read):
            game()
            if imported.match_index + 1 > out.matches:
                out.matches = imported.match_index + 1
                out.match_to, out.players = imported.match.match_to, tuple(imported.match.players)
            done = imported.done
            out.games += 1
            out.problems.extend(done.problems)
            if done.result is None:
                continue
            out.kept += 1
            out.unfinished += done.result.result == UNFINISHED_RESULT
            for row in done.rows:
                row["file"] = str(path)
                row["match"] = imported.match_index
                out.moves += row["action"] == "move"
            emit(done.rows)
            out.rows += len(done.rows)
    except RecordError as error:
        text = str(error)
        out.error = text[len(f"{path}: "):] if text.startswith(f"{path}: ") else text
    except OSError as error:
        out.error = f"cannot read it: {error.strerror or error}"
    return out


def _pooled(path: str) -> FileImport:
    """A worker's file: replayed whole, its rows handed back with it."""
    rows: list[dict] = []
    out = _stream_file(Path(path), rows.extend)
    out.frame = rows
    return out


@dataclass
class ImportRun:
    files: list[FileImport]
    seconds: float

    def total(self, name: str) -> int:
        return sum(getattr(item, name) for item in self.files)


def import_files(paths: list[Path], write: Callable | None, threads: int = 1, progress: bool = True,
                 log: Callable[[str], None] = print, on_file: Callable[[FileImport], None] = lambda item: None
                 ) -> ImportRun:
    """Replay every file of ``paths`` in order; ``write(frame)`` takes each batch of rows (None:
    the files are only checked).  ``on_file`` sees each file's counts once it is done.  The bar
    counts the bytes read; once ESTIMATE_AFTER seconds and ESTIMATE_SHARE of them are behind,
    one line says how long the rest will take."""
    sizes = [path.stat().st_size for path in paths]
    total = sum(sizes)
    bar = Progress(total, 0, "B", progress)
    started = time.perf_counter()
    state = {"bytes": 0, "games": 0, "estimated": False}
    results: list[FileImport] = []
    batch: list[dict] = []  # rows of one or more files, written once BATCH_ROWS are gathered

    def emit(rows: list[dict]) -> None:
        if write is None:
            return
        batch.extend(rows)
        if len(batch) >= BATCH_ROWS:
            write(rows_frame(batch))
            batch.clear()

    def read(count: int) -> None:
        bar.update(count)
        state["bytes"] += count
        said()

    def game() -> None:
        state["games"] += 1

    def said() -> None:
        if state["estimated"] or state["bytes"] < ESTIMATE_SHARE * total or state["bytes"] >= total:
            return
        elapsed = time.perf_counter() - started
        if elapsed < ESTIMATE_AFTER:
            return
        state["estimated"] = True
        rate = state["bytes"] / elapsed
        log(f"importing {len(paths):,} file{'s' if len(paths) != 1 else ''} ({total / 1e6:,.1f} MB): about "
            f"{duration((total - state['bytes']) / rate)} to go at ~{state['games'] / elapsed:,.0f} games/s")

    def finished(item: FileImport, streamed: int) -> None:
        if item.frame:  # a worker's rows
            emit(item.frame)
        item.frame = None
        results.append(item)
        if item.size > streamed:  # the bytes a worker read, or what decoding did not count
            read(item.size - streamed)
        if streamed == 0:
            state["games"] += item.games
        on_file(item)

    try:
        if threads > 1 and len(paths) > 1:
            _in_pool(paths, sizes, threads, emit, finished, read, game)
        else:
            for path in paths:
                before = state["bytes"]
                item = _stream_file(path, emit, read, game)
                finished(item, state["bytes"] - before)
        if batch:
            write(rows_frame(batch))
    finally:
        bar.close()
    return ImportRun(results, time.perf_counter() - started)


def _in_pool(paths: list[Path], sizes: list[int], threads: int, emit, finished, read, game) -> None:
    """Small files in worker processes, in order, at most two a worker in flight; big ones here."""
    def here(path: Path) -> None:
        before = [0]

        def counted(count: int) -> None:
            before[0] += count
            read(count)

        finished(_stream_file(path, emit, counted, game), before[0])

    with worker_pool(threads) as pool:
        if pool is None:  # one core: the work runs here
            for path in paths:
                here(path)
            return
        waiting: list = []
        for path, size in zip(paths, sizes):
            if size > POOLED_BYTES:
                for future in waiting:
                    finished(future.result(), 0)
                waiting = []
                here(path)
                continue
            waiting.append(pool.submit(_pooled, str(path)))
            while len(waiting) > 2 * threads:
                finished(waiting.pop(0).result(), 0)
        for future in waiting:
            finished(future.result(), 0)


def kinds_line(problems) -> str:
    """'forced play filled in 212, resignation value read 3': the warnings by what they did."""
    counts = Counter(problem.kind for problem in problems if not problem.rejected)
    return ", ".join(f"{kind} {count:,}" for kind, count in counts.most_common())


__all__ = ["FileImport", "ImportRun", "import_files", "kinds_line", "match_files"]
