"""``bgsim play``'s games streamed to one Parquet file, batch by batch.

Games are played in batches of about half a second each, and every batch goes to the output
file as soon as it is played, so memory stays bounded however many games are asked for, a
progress bar can move, and Ctrl-C stops within a second keeping the finished games.  Whoever
plays them sees each batch (``on_batch``): ``bgsim play`` tallies its summary that way
(``experiments.analysis.summary.GameTally``).
"""

from __future__ import annotations

import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Callable

import pandas as pd

from bgsim.cube import Rules
from bgsim.series import engine_for, is_external, play_games
from bgsim.variants import STANDARD

from .files import RowFile, claim, claimed_files, stop_hook
from .machine import cap_threads, compiling_message, fast_compile_pending
from .progress import Progress, duration

BATCH_SECONDS = 0.5  # a batch's target length: the longest Ctrl-C waits for the kernel
FIRST_BATCH = 32
MAX_BATCH = 200_000


@contextmanager
def claimed_output(path: Path, force: bool, *others: Path):
    """Hold the rows file ``path`` (and ``others``, a command's other outputs) for this process
    while the block writes them (``files.claimed_files``): a second writer stops here, before any
    game."""
    with claimed_files([path], force, suffix=".parquet"):
        with claimed_files(others, force):
            yield


def check_output(path: Path, force: bool) -> None:
    """A rows file that may not be written is one line (``files.check_new_file``)."""
    from .files import check_new_file

    check_new_file(path, force, ".parquet")


def next_batch(batch: int, seconds: float, batches: int) -> int:
    """The size of the next batch, aiming at BATCH_SECONDS: long enough to keep the threads
    busy, short enough that Ctrl-C (seen between batches in the fast engine) stops promptly.
    The first batch's time is not trusted to shrink it: it may include the compile."""
    if seconds < BATCH_SECONDS / 2:
        return min(2 * batch, MAX_BATCH)
    if seconds > BATCH_SECONDS * 2 and batches > 1:
        return max(1, int(batch * BATCH_SECONDS / seconds))
    return batch


def play_to_file(white, black, games: int, seed: int, path: Path, rules: Rules, match_to: int = 0,
                 engine: str = "auto", threads: int | None = None, progress: bool = True,
                 log: Callable[[str], None] = print,
                 on_batch: Callable[[pd.DataFrame], None] = lambda frame: None) -> tuple[str, int, float]:
    """Play ``games`` games (matches with ``match_to``) into ``path``: (engine, rows, seconds)."""
    if match_to:
        rules.check_for_match()
    played_on = engine_for(engine, white, black, rules)
    external = is_external(white) or is_external(black)
    if threads is not None and played_on == "reference" and not external:
        what = (f"{rules.variant} is played" if rules.variant != STANDARD
                else f"{white.name} vs {black.name} is played")
        raise ValueError(f"--threads has no effect here: {what} by the reference engine, on one core")
    threads = cap_threads(threads, log) if played_on == "fast" else threads
    # Playing no game checks every argument (seed, rules, whether the engine can run both
    # players) before anything is printed or written.
    play_games(white, black, seed, [], rules, match_to=match_to, engine=engine, threads=threads)
    unit = "matches" if match_to else "games"
    log(f"playing {games:,} {unit}{f' to {match_to} points' if match_to else ''}: "
        f"white {white.name} vs black {black.name}, seed {seed}, {played_on} engine → {path}")
    scope = nullcontext()
    if played_on == "fast":
        from bgsim.fast import compile_only_for

        scope = compile_only_for((white, black))  # the first game compiles these two players' kernels only
    with scope:
        if played_on == "fast" and fast_compile_pending((white, black)):
            log(compiling_message((white, black)))
        count, seconds = stream_to_file(
            path, games, unit,
            lambda numbers: play_games(white, black, seed, numbers, rules, match_to=match_to,
                                       engine=engine, threads=threads),
            progress, log, on_batch,
            # an external engine's game may take minutes: its first batch is one game a thread
            first_batch=(threads or 1) if external else FIRST_BATCH)
    return played_on, count, seconds


def stream_to_file(path: Path, total: int, unit: str, play: Callable[[range], pd.DataFrame],
                   progress: bool = True, log: Callable[[str], None] = print,
                   on_batch: Callable[[pd.DataFrame], None] = lambda frame: None,
                   salvage: Callable[[], pd.DataFrame | None] = lambda: None,
                   first_batch: int = FIRST_BATCH, rows_per_unit: int = 1) -> tuple[int, float]:
    """Call ``play`` on batches of the numbers 0..total-1 and append each frame to ``path``:
    (rows written, seconds).  On Ctrl-C the finished batches are kept, with what ``salvage``
    gives of the unfinished one (a session that plays game after game has some), and the file
    is closed under its name; on any other error nothing is left behind.  ``path`` is claimed
    (``files.claim``) while it is written.  ``rows_per_unit``: the rows a game writes (a
    chouette's, one per player), so that Ctrl-C says how many whole games were kept."""
    with claim(path, "output file"):
        return _stream(path, total, unit, play, progress, log, on_batch, salvage, first_batch, rows_per_unit)


def _stream(path, total, unit, play, progress, log, on_batch, salvage, first_batch=FIRST_BATCH,
            rows_per_unit=1) -> tuple[int, float]:
    rows = RowFile(path)
    bar = Progress(total, 0, unit, progress)
    done, batch, batches, timed, timed_seconds = 0, first_batch, 0, 0, 0.0
    started = time.perf_counter()

    def write(frame: pd.DataFrame) -> None:
        rows.append(frame)
        on_batch(frame)

    try:
        while done < total:
            numbers = range(done, min(done + batch, total))
            before = time.perf_counter()
            frame = play(numbers)
            seconds = time.perf_counter() - before
            write(frame)
            done = numbers.stop
            batches += 1
            bar.update(len(numbers))
            if batches > 1:  # the first batch carries the compile and warm-up
                timed += len(numbers)
                timed_seconds += seconds
                if batches == 2 and done < total and timed_seconds > 0:
                    rate = timed / timed_seconds
                    log(f"about {duration((total - done) / rate)} to go at ~{rate:,.0f} {unit}/s "
                        "(Ctrl-C stops and keeps the finished games)")
            batch = next_batch(batch, seconds, batches)
            stop_hook(batches)
    except KeyboardInterrupt:
        bar.close()
        partial = salvage()
        if partial is not None and len(partial):
            write(partial)
        rows.close()
        games = rows.rows // rows_per_unit  # the batches' games and the unfinished batch's finished ones
        kept = f"the {rows.rows:,} rows of the {games:,} finished {unit} are in {path}" if rows.rows \
            else "no game had finished: nothing was written"
        log(f"interrupted after {games:,} of {total:,} {unit}: {kept}")
        raise
    except BaseException:
        bar.close()
        rows.discard()
        raise
    bar.close()
    rows.close()
    return rows.rows, time.perf_counter() - started
