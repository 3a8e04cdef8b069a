"""The solution of N-checker hypergammon, built by bgsim's kernels and kept in the cache folder.

Built by value iteration (``bgsim/fast/hypergammon.py``: the recursion, the order of the sweeps,
why races take one): the races in one pass, then sweeps over the contact states until no value
moves by ``threshold`` or more in a sweep.  Every value is computed in float64 and kept in
float32 (it rounds by at most 1.2e-7 a value, the values lying within -3 .. 3): a file of 3
checkers holds 10.7 million states at 36 bytes.

A file says what it holds (``bgsim.bearoff.store``'s layout: a header of JSON, then the tables,
checksummed): ``kind`` ``hypergammon``, ``checkers``, ``values`` (the nine names of
``bgsim.fast.hypergammon.VALUES``), ``threshold``, ``gnubg_dance`` (whether a roll without a play
follows GNU Backgammon's convention, for checks only), ``code`` (the hash of the kernels:
:func:`code_hash`), and what the build measured: ``sweeps``, ``last_change`` (the largest change
of the last sweep), ``rate`` (how fast the changes shrank over the last sweeps) and
``error_bound`` (``last_change * rate / (1 - rate)``: how far a value can still be from the
fixed point if the changes keep shrinking at that rate).  A build interrupted (Ctrl-C, a kill)
goes on from its last finished sweep: after each sweep the float64 values are kept in a
checkpoint beside the file (``.partial``), which the finished file replaces.
"""

from __future__ import annotations

import hashlib
import math
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

from .. import settings
from ..bearoff import store
from .building import kernels as _kernels

FORMAT = 1
KIND = "hypergammon"
# built on first use (seconds); a 3-checker solution takes about half an hour: it is built only when
# asked for (bgsim bearoff build --variant hypergammon3), and a use before that is refused
FIRST_USE = (1, 2)
PARTIAL = "hypergammon-partial"
DEFAULT_THRESHOLD = 1e-8
CHECKERS = (1, 2, 3)
# the nine values of a state, in the kernels' order (``bgsim.fast.hypergammon.VALUES``, which
# tests/test_hypergammon.py holds equal): named here too, so that a file is read without them
VALUES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon",
          "centred", "owned", "opponent", "jacoby")
NVALUES = len(VALUES)
SMALL_LEVEL = 2_000  # states of a level computed on one thread: below it threads cost more than they save


def check_checkers(checkers) -> int:
    if isinstance(checkers, bool) or not isinstance(checkers, int) or checkers not in CHECKERS:
        raise ValueError(f"hypergammon is played with 1, 2 or 3 checkers a side, got {checkers!r}")
    return checkers


@lru_cache(maxsize=1)
def code_hash() -> str:
    """The hash of the kernels that compute the values (``bgsim/fast/hypergammon.py``).  Their
    plays are the move generator's, which the engine's tests hold to the reference's plays, so
    an edit of the generator that changes no play leaves the files current."""
    source = (Path(__file__).resolve().parent.parent / "fast" / "hypergammon.py").read_bytes()
    return hashlib.sha256(source).hexdigest()


def file_name(checkers: int, gnubg_dance: bool = False) -> str:
    """The file of a solution built by the running code (its code hash in the name, as the
    bear-off files': two checkouts sharing a cache folder keep their own)."""
    convention = "-gnubg" if gnubg_dance else ""
    return f"hypergammon{checkers}{convention}-{code_hash()[:12]}.bin"


def expected_header(checkers: int, threshold: float, gnubg_dance: bool = False) -> dict:
    return {"format": FORMAT, "kind": KIND, "checkers": checkers, "values": list(VALUES),
            "threshold": threshold, "gnubg_dance": gnubg_dance, "code": code_hash()}


@dataclass(frozen=True)
class Positions:
    """A side's positions (``counts[number]``, ``keys[location key]``: ``bgsim.fast.hypergammon``)
    and the states to solve, races and contact apart, each by increasing total pips."""

    checkers: int
    counts: np.ndarray
    keys: np.ndarray
    races: np.ndarray
    race_starts: np.ndarray
    contact: np.ndarray
    contact_starts: np.ndarray

    @property
    def positions(self) -> int:
        return self.counts.shape[0]

    @property
    def states(self) -> int:
        return len(self.races) + len(self.contact)


@lru_cache(maxsize=None)
def positions(checkers: int) -> Positions:
    check_checkers(checkers)
    kernels = _kernels()
    counts, keys = kernels.side_positions(checkers, kernels.BINOMIALS)
    arrays = kernels.states_by_level(counts, checkers)
    found = Positions(checkers, counts, keys, *arrays)
    for array in (counts, keys, *arrays):
        array.setflags(write=False)
    return found


@dataclass(frozen=True)
class Solution:
    """The values of every state, ``values[own * positions + opponent, k]`` (float32) with ``k``
    in ``bgsim.fast.hypergammon.VALUES`` order; ``header`` what the file says of them."""

    checkers: int
    values: np.ndarray
    header: dict
    build_seconds: float | None = None

    @property
    def positions(self) -> int:
        return math.isqrt(len(self.values))  # a row for each pair of the two sides' positions


@dataclass
class Progress:
    """What a build reports after each sweep (``on_sweep``): the sweep (0: the races, then the
    contact states' from 1), the largest change of a value in it, its seconds, the contact
    sweeps' changes so far, and whether the build went on from a checkpoint."""

    sweep: int
    change: float
    seconds: float
    changes: list[float] = field(default_factory=list)
    resumed: bool = False


def rate_of(changes: list[float]) -> float:
    """How fast the sweeps' largest changes shrink: the geometric mean ratio of the last five
    (NaN with fewer than three sweeps)."""
    recent = [change for change in changes[-6:] if change > 0]
    if len(recent) < 3:
        return math.nan
    return (recent[-1] / recent[0]) ** (1.0 / (len(recent) - 1))


def sweeps_left(changes: list[float], threshold: float) -> float:
    """The sweeps still to go at the recent rate (NaN before it is known)."""
    rate = rate_of(changes)
    if not changes or not rate == rate or rate >= 1.0:
        return math.nan
    if changes[-1] < threshold:
        return 0.0
    return math.ceil(math.log(threshold / changes[-1]) / math.log(rate))


@dataclass(frozen=True)
class Successors:
    """The successor table of a kind of states (``bgsim.fast.hypergammon.successor_table``):
    every state's plays, as the states they reach, made once per build so that a sweep reads them
    from memory (3 checkers: about 115 a state, 3.4 GB for the contact states)."""

    starts: np.ndarray
    roll_counts: np.ndarray
    targets: np.ndarray

    @property
    def nbytes(self) -> int:
        return self.starts.nbytes + self.roll_counts.nbytes + self.targets.nbytes


TABLE_CHUNKS = 64  # pieces a table is made in, shared among the threads


def successors(states, found: Positions, pool, threads: int) -> Successors:
    """The successor table of ``states``, made in pieces on ``threads`` (the same table whatever
    the split)."""
    kernels = _kernels()
    pieces = max(1, min(TABLE_CHUNKS if threads > 1 else 1, len(states) // SMALL_LEVEL))
    bounds = np.linspace(0, len(states), pieces + 1).astype(np.int64)
    jobs = [pool.submit(kernels.successor_table, states, int(a), int(b), found.counts, found.keys, found.checkers)
            for a, b in zip(bounds[:-1], bounds[1:])]
    made = [job.result() for job in jobs]
    if len(made) == 1:
        return Successors(*made[0])
    offsets = np.cumsum([0] + [len(piece[2]) for piece in made])
    starts = np.concatenate([piece[0][:-1] + offset for piece, offset in zip(made, offsets)] + [offsets[-1:]])
    roll_counts = np.concatenate([piece[1] for piece in made])
    targets = np.concatenate([piece[2] for piece in made])
    return Successors(starts, roll_counts, targets)


def _sweep(values, states, starts, table: Successors, found: Positions, gnubg_dance: bool, scratch, pool,
           threads: int) -> float:
    """One pass over ``states`` level by level: each level computed from the values before it
    (split among ``threads``, which changes nothing in the result), then written."""
    kernels = _kernels()
    change = 0.0
    for level in range(len(starts) - 1):
        first, last = int(starts[level]), int(starts[level + 1])
        if first == last:
            continue
        if threads == 1 or last - first < SMALL_LEVEL:
            bounds = np.array([first, last])
        else:
            bounds = np.linspace(first, last, threads + 1).astype(np.int64)
        jobs = [pool.submit(kernels.sweep_level, values, states, int(a), int(b), 0, table.starts, table.roll_counts,
                            table.targets, found.positions, gnubg_dance, scratch[int(a) - first:])
                for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
        for job in jobs:
            job.result()
        change = max(change, kernels.write_level(values, states, first, last, scratch))
    return change


def partial_path(folder: Path, checkers: int, gnubg_dance: bool = False) -> Path:
    return folder / (file_name(checkers, gnubg_dance) + ".partial")


def _partial_header(checkers: int, threshold: float, gnubg_dance: bool) -> dict:
    return {**expected_header(checkers, threshold, gnubg_dance), "kind": PARTIAL}


def build(checkers: int, threshold: float = DEFAULT_THRESHOLD, folder: Path | None = None,
          gnubg_dance: bool = False, threads: int = 1, on_sweep: Callable[[Progress], None] | None = None,
          max_sweeps: int = 10_000, checkpoint: bool = True) -> Solution:
    """Solve ``checkers``-checker hypergammon to ``threshold`` (module doc) and return it (not
    written: :func:`solution` keeps it).  With ``checkpoint``, the float64 values are kept in
    ``folder`` after every sweep and a build finds and goes on from them: a Ctrl-C or a kill
    loses at most the sweep under way.  ``on_sweep`` is told after each sweep (a KeyboardInterrupt
    it raises stops the build with the checkpoint kept)."""
    check_checkers(checkers)
    if not (isinstance(threshold, float) and 0.0 < threshold < 1.0):
        raise ValueError(f"the convergence threshold must be a number between 0 and 1, got {threshold!r}")
    folder = Path(folder) if folder is not None else store.cache_dir()
    found = positions(checkers)
    started = time.perf_counter()
    size = found.positions * found.positions
    partial = partial_path(folder, checkers, gnubg_dance)
    changes: list[float] = []
    seconds_before = 0.0
    values = None
    if checkpoint:
        try:
            # any threshold's sweeps are sweeps towards the same fixed point: go on from them
            wanted = _partial_header(checkers, threshold, gnubg_dance)
            del wanted["threshold"]
            kept = store.read(partial, wanted)
            values = np.array(kept["values"])  # writable
            changes = [float(change) for change in kept["changes"]]
            seconds_before = float(kept["seconds"][0])
        except store.StaleDatabase:
            values = None
    resumed = values is not None
    if values is None:
        values = np.zeros((size, NVALUES), dtype=np.float64)
    biggest = int(max(np.diff(found.race_starts).max(initial=0), np.diff(found.contact_starts).max(initial=0)))
    scratch = np.empty((max(biggest, 1), NVALUES), dtype=np.float64)

    def keep() -> None:
        if checkpoint:
            store.write(partial, _partial_header(checkers, threshold, gnubg_dance),
                        {"values": values, "changes": np.array(changes, dtype=np.float64),
                         "seconds": np.array([seconds_before + time.perf_counter() - started])})

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        if not resumed:  # sweep 0: the races, exactly, in one pass; a checkpoint holds them done
            sweep_started = time.perf_counter()
            races = successors(found.races, found, pool, threads)
            change = _sweep(values, found.races, found.race_starts, races, found, gnubg_dance, scratch, pool, threads)
            del races
            keep()
            if on_sweep is not None:
                on_sweep(Progress(0, change, time.perf_counter() - sweep_started, [], False))
        contact = successors(found.contact, found, pool, threads) if not changes or changes[-1] >= threshold else None
        while not changes or changes[-1] >= threshold:
            if len(changes) >= max_sweeps:
                raise RuntimeError(f"hypergammon{checkers} did not converge to {threshold:g} in {max_sweeps} sweeps")
            sweep_started = time.perf_counter()
            changes.append(_sweep(values, found.contact, found.contact_starts, contact, found, gnubg_dance, scratch,
                                  pool, threads))
            keep()
            if on_sweep is not None:
                on_sweep(Progress(len(changes), changes[-1], time.perf_counter() - sweep_started, list(changes),
                                  resumed))
    seconds = seconds_before + time.perf_counter() - started
    rate = rate_of(changes)
    header = {**expected_header(checkers, threshold, gnubg_dance), "sweeps": len(changes),
              "last_change": changes[-1], "rate": rate,
              "error_bound": changes[-1] * rate / (1.0 - rate) if rate == rate and rate < 1.0 else None,
              "states": found.states, "contact_states": len(found.contact), "race_states": len(found.races),
              "build_seconds": round(seconds, 3)}
    return Solution(checkers, values.astype(np.float32), header, seconds)


class NotBuilt(ValueError):
    """A solution too long to build on first use (:data:`FIRST_USE`) that is not built yet."""


def check_ready(checkers: int, folder: Path | None = None, gnubg_dance: bool = False) -> None:
    """NotBuilt (one line) unless the solution is current in the cache folder or built on first use."""
    if checkers not in FIRST_USE and not is_built(checkers, folder, gnubg_dance=gnubg_dance):
        raise NotBuilt(f"hypergammon{checkers}'s solution is not built yet: `bgsim bearoff build --variant "
                       f"hypergammon{checkers}` builds it (about half an hour; a Ctrl-C keeps its last sweep), or play "
                       "exact(tables=false)")


def solution(checkers: int, folder: Path | None = None, threshold: float = DEFAULT_THRESHOLD,
             gnubg_dance: bool = False, build_now: bool = False, **build_options) -> Solution:
    """The solution of ``checkers``-checker hypergammon from the cache folder, built there first
    if it is missing or stale and built on first use (:data:`FIRST_USE`), or with ``build_now``
    (``build_options`` go to :func:`build`); NotBuilt otherwise.  Read once per process."""
    check_checkers(checkers)
    folder = Path(folder) if folder else store.cache_dir()
    if not build_now and threshold == DEFAULT_THRESHOLD:
        check_ready(checkers, folder, gnubg_dance)
    return _solution(checkers, folder, threshold, gnubg_dance, tuple(sorted(build_options.items())))


def path_of(checkers: int, folder: Path | None = None, gnubg_dance: bool = False) -> Path:
    return (Path(folder) if folder else store.cache_dir()) / file_name(checkers, gnubg_dance)


def is_built(checkers: int, folder: Path | None = None, threshold: float = DEFAULT_THRESHOLD,
             gnubg_dance: bool = False) -> bool:
    """Whether the cache folder holds the current solution (its header alone is read)."""
    return store.has_header(path_of(checkers, folder, gnubg_dance), expected_header(checkers, threshold, gnubg_dance))


def read_header(path: Path) -> dict:
    """The header of a database file (a quick look, no checksum)."""
    import json

    with open(path, "rb") as handle:
        block = handle.read(store.HEADER_BYTES)
    return json.loads(block[len(store.MAGIC):].split(b"\n", 1)[0])


@lru_cache(maxsize=None)
def _solution(checkers: int, folder: Path, threshold: float, gnubg_dance: bool, options: tuple) -> Solution:
    path = folder / file_name(checkers, gnubg_dance)
    wanted = expected_header(checkers, threshold, gnubg_dance)
    try:
        arrays = store.read(path, wanted)
        return Solution(checkers, arrays["values"], read_header(path))
    except store.StaleDatabase:
        pass
    built = build(checkers, threshold, folder, gnubg_dance, **dict(options))
    write(built, folder)
    return built


def write(built: Solution, folder: Path | None = None) -> Path:
    """Keep ``built`` in the cache folder (replacing a stale file) and drop its checkpoint; a folder
    that cannot be written only costs the next process a rebuild."""
    folder = Path(folder) if folder else store.cache_dir()
    gnubg_dance = bool(built.header.get("gnubg_dance"))
    path = folder / file_name(built.checkers, gnubg_dance)
    try:
        store.write(path, built.header, {"values": built.values})
        partial_path(folder, built.checkers, gnubg_dance).unlink(missing_ok=True)
    except OSError as error:
        warnings.warn(f"could not keep the hypergammon{built.checkers} solution in {folder} "
                      f"({error.strerror or error}): every process builds it again; set {settings.CACHE.name} "
                      "to a folder you can write", stacklevel=3)
    return path
