"""Which chunks of a run are on disk, which to play next, where sequential stopping stands, and
the chunks joined into the run's ``games.parquet``.

Nothing here is proportional to the number of chunks a run *could* have: the next chunk of a
pairing is found from a cursor, so a run of a billion games starts playing at once.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.errors import RunError
from experiments.sequential import SequentialTest
from experiments.stats import last_games, mean_interval

from .config import Experiment
from .files import explain, is_temporary, write_atomic
from .folder import CHUNK_DIR, GAMES_FILE, load_rows
from .plan import Pairing, chunk_count, chunk_range, plan_pairings

CHUNK_NAME = re.compile(r"^pairing-(\d+)-chunk-(\d+)\.parquet$")


def finished_chunks(folder: Path) -> dict[tuple[int, int], Path]:
    """The chunk files on disk; leftovers of interrupted writes are removed."""
    chunks = Path(folder) / CHUNK_DIR
    found = {}
    if not chunks.is_dir():
        return found
    for path in chunks.iterdir():
        if is_temporary(path):
            path.unlink(missing_ok=True)
            continue
        match = CHUNK_NAME.match(path.name)
        if match:
            found[(int(match.group(1)), int(match.group(2)))] = path
    return found


class Chunks:
    """The chunks of one run: on disk, being played, still to play; and sequential stopping.

    Under sequential stopping (``target_ci``, or ``sprt``: a sequential test per pairing,
    ``experiments/sequential.py``, one look per chunk) a pairing plays one chunk at a time,
    because whether the next is needed depends on this one, and a chunk counts only once every
    chunk before it is in.  A chouette table plays one chunk at a time too: each starts from the seats
    the one before it left.
    """

    def __init__(self, experiment: Experiment, pairings: list[Pairing], folder: Path) -> None:
        self.experiment = experiment
        self.pairings = pairings
        self.by_index = {p.index: p for p in pairings}
        self.count = chunk_count(experiment)
        self.sequential = experiment.sequential
        self.ordered = self.sequential or experiment.chouette  # one chunk of a pairing at a time
        self.on_disk: dict[tuple[int, int], Path] = {}
        self.in_flight: set[tuple[int, int]] = set()
        self.cursor = {p.index: 0 for p in pairings}  # every chunk below it is on disk or in flight
        self.units: dict[int, list[np.ndarray]] = {p.index: [] for p in pairings}
        self.stopped: dict[int, int] = {}  # pairing -> the chunk it stopped after
        self.tests: dict[int, SequentialTest] = {}  # pairing -> its sequential test (``sprt``)
        if experiment.sprt is not None:
            self.tests = {p.index: SequentialTest(experiment.sprt, experiment.match_length(p.condition) > 0,
                                                  limit=experiment.games)
                          for p in pairings}
        self.done_units = 0
        known = finished_chunks(folder)
        if self.sequential:
            for pairing in pairings:
                chunk = 0
                while (pairing.index, chunk) in known and chunk < self.count:
                    path = known[(pairing.index, chunk)]
                    self._keep(pairing.index, chunk, path)
                    if self._add_units(pairing, chunk, pd.read_parquet(path)):
                        break
                    chunk += 1
        else:
            for (index, chunk), path in sorted(known.items()):
                if index in self.by_index and chunk < self.count:
                    self._keep(index, chunk, path)

    def _keep(self, index: int, chunk: int, path: Path) -> None:
        self.on_disk[(index, chunk)] = path
        start, stop = chunk_range(self.experiment, chunk)
        self.done_units += self.experiment.legs * (stop - start)

    def _add_units(self, pairing: Pairing, chunk: int, frame: pd.DataFrame) -> bool:
        """Sequential stopping: add the chunk's units; True once the pairing has stopped."""
        if not self.sequential:
            return False
        units = stopping_units(frame, pairing.first)
        if pairing.index in self.tests:
            if self.tests[pairing.index].add(units) is not None:
                self.stopped[pairing.index] = chunk
                return True
            return False
        self.units[pairing.index].append(units)
        _, half = mean_interval(np.concatenate(self.units[pairing.index]))
        if half == half and half <= self.experiment.target_ci:  # NaN (too few units) never stops
            self.stopped[pairing.index] = chunk
            return True
        return False

    def record(self, pairing_index: int, chunk: int, path: Path, frame: pd.DataFrame) -> None:
        self.on_disk[(pairing_index, chunk)] = path
        self.in_flight.discard((pairing_index, chunk))
        self._add_units(self.by_index[pairing_index], chunk, frame)

    def ready_tasks(self, limit: int | None = None) -> list[tuple[Pairing, int]]:
        """Up to ``limit`` chunks that may be played now (and are not being played)."""
        out = []
        for pairing in self.pairings:
            if pairing.index in self.stopped:
                continue
            chunk = self.cursor[pairing.index]
            while chunk < self.count and (pairing.index, chunk) in self.on_disk:
                chunk += 1
            self.cursor[pairing.index] = chunk
            while chunk < self.count:
                if limit is not None and len(out) >= limit:
                    return out
                key = (pairing.index, chunk)
                if self.ordered:
                    if key not in self.in_flight and key not in self.on_disk:
                        out.append((pairing, chunk))
                    break
                if key not in self.on_disk and key not in self.in_flight:
                    out.append((pairing, chunk))
                chunk += 1
        return out

    def next_task(self) -> tuple[Pairing, int] | None:
        ready = self.ready_tasks(limit=1)
        return ready[0] if ready else None

    def before(self, pairing: Pairing, chunk: int) -> Path | None:
        """The chunk before ``chunk`` of ``pairing``, when it is on disk."""
        return self.on_disk.get((pairing.index, chunk - 1))

    def mark_in_flight(self, pairing: Pairing, chunk: int) -> None:
        self.in_flight.add((pairing.index, chunk))

    def plan(self) -> list[tuple[int, list[Path]]]:
        """Per pairing, the chunk files that make up the run, in order."""
        out = []
        for pairing in self.pairings:
            last = self.stopped.get(pairing.index, self.count - 1)
            paths = [self.on_disk.get((pairing.index, chunk)) for chunk in range(last + 1)]
            if any(path is None for path in paths):
                missing = [c for c, path in enumerate(paths) if path is None]
                raise RunError(f"pairing {pairing.index} lacks chunk {missing[0]} after the run: nothing was assembled")
            out.append((pairing.index, paths))
        return out


def stopping_units(frame: pd.DataFrame, first: str) -> np.ndarray:
    """The independent units of a chunk for sequential stopping: per deal, the first player's
    mean points over the two seatings (per match, its mean share of matches won)."""
    if len(frame) and int(frame["match_to"].max()) > 0:
        last = last_games(frame, ["leg", "game"])
        won = ((last["winner"] == "white").to_numpy() == (last["white"] == first).to_numpy()).astype(float)
        return pd.Series(won).groupby(last["game"].to_numpy()).mean().to_numpy()
    white_points = frame["white_points"].to_numpy(dtype=np.float64)
    points = np.where(frame["white"].to_numpy() == first, white_points, -white_points)
    return pd.Series(points).groupby(frame["game"].to_numpy()).mean().to_numpy()


def sequential_tests(frame: pd.DataFrame, experiment: Experiment) -> dict[int, SequentialTest]:
    """Each pairing's sequential test (``sprt``) again from the run's rows, chunk by chunk as
    the run looked: the test the run stopped on, from ``games.parquet`` alone."""
    tests = {}
    for pairing in plan_pairings(experiment):
        rows = frame[frame["pairing"] == pairing.index]
        if rows.empty:
            continue
        numbers = rows["game"].to_numpy()
        if not experiment.duplicate:  # the second seating plays game numbers games..2*games-1
            numbers = np.where(rows["leg"].to_numpy() == 1, numbers - experiment.games, numbers)
        chunk_of = numbers // experiment.chunk
        test = SequentialTest(experiment.sprt, experiment.match_length(pairing.condition) > 0, limit=experiment.games)
        for chunk in np.unique(chunk_of):
            if test.add(stopping_units(rows[chunk_of == chunk], pairing.first)) is not None:
                break
        tests[pairing.index] = test
    return tests


def assemble(folder: Path, plan: list[tuple[int, list[Path]]], order=("leg", "game", "game_in_match")) -> pd.DataFrame:
    """Join the chunk files into ``games.parquet`` in canonical order and read it back.

    Canonical order: pairing, then seating (leg), then game number, then game within the match
    (a chouette's: table, game, place), so the file is the same however the run was chunked,
    resumed or spread over workers.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = Path(folder)

    def write(temporary: Path) -> None:
        writer = None
        try:
            for _, paths in plan:
                frame = pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)
                frame = frame.sort_values(list(order), kind="mergesort")
                table = pa.Table.from_pandas(frame, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(temporary, table.schema)
                writer.write_table(table.cast(writer.schema))
            if writer is None:
                raise ValueError("the run has no games to assemble")
        finally:
            if writer is not None:
                writer.close()

    target = folder / GAMES_FILE
    try:
        write_atomic(target, write)
    except OSError as error:
        raise explain(error, target, "and finish with --resume (the chunk files are kept)") from None
    return load_rows(folder)
