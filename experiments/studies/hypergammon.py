"""Hypergammon's solution built with a progress bar, and checked against GNU Backgammon's.

``build_solution`` builds (or finds current) the solution of N-checker hypergammon in the cache
folder (``bgsim bearoff build --variant hypergammonN``); ``announce_build`` is the line a command
prints before a first use builds it.  ``compare_with_gnubg`` reads a file of GNU Backgammon's
``makehyper`` (``read_gnubg``; ``make_gnubg`` runs it) and compares it with bgsim's solution
state by state (``bgsim bearoff check --variant hypergammonN``); ``time_builds`` times the two
builds side by side.

GNU Backgammon's makehyper (1.07) treats a roll without a legal play in its own way: it takes
the opponent's stored values as they are (no cube decision for the opponent, and its owned and
opponent-owned values swapped back unchanged).  So bgsim's true solution differs from its files
wherever a side can be shut out, and the check compares GNU Backgammon's files with bgsim's
solution built under that convention too (``gnubg_dance``, the same kernels), which must agree
within the two thresholds.  The chances differ besides where two plays have the same cubeless
equity but other chances: GNU Backgammon keeps the last such play it generates, bgsim the first
in canonical order; the check counts those (their cubeless equities agree).
"""

from __future__ import annotations

import math
import os
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

# bgsim.hypergammon.database (Numba) is imported by the functions only, so that every other
# command starts without it.

MAKEHYPER = "/usr/games/makehyper"
GNUBG_HEADER = 40  # bytes: "gnubg-H<N>xxx...\n"
GNUBG_RECORD = 28  # 5 chances and 4 equities of 3 bytes each, and a byte of padding
GNUBG_THRESHOLD = 1e-5  # makehyper's default convergence threshold
# GNU Backgammon's equities in its file's order, and where each is in bgsim's VALUES
GNUBG_EQUITIES = ("owned", "centred", "jacoby", "opponent")
# The pace of the committed build (results/hypergammon/: CPU seconds a state on one core of the
# 2-core machine to make its successor table, once per build, and to sweep it, and the sweeps each
# size took to the default threshold), for the estimate said before a build starts; the build
# measures its own pace after its first sweep.
TABLE_SECONDS = {1: 3.0e-6, 2: 9.0e-6, 3: 1.9e-5}
STATE_SECONDS = {1: 3.0e-7, 2: 1.5e-6, 3: 3.3e-6}
SWEEPS = {1: 15, 2: 43, 3: 62}


def _database():
    from bgsim.hypergammon import database

    return database


def estimated_seconds(checkers: int, threads: int = 1) -> float:
    """Rough seconds to build the solution of ``checkers`` here, before any sweep is measured."""
    database = _database()
    found = database.positions(checkers)
    tables = found.states * TABLE_SECONDS[checkers]
    sweeps = (len(found.races) + SWEEPS[checkers] * len(found.contact)) * STATE_SECONDS[checkers]
    return (tables + sweeps) / max(1, threads)


def announce_build(checkers: int, log: Callable[[str], None], threads: int = 1) -> None:
    """One line when a command is about to build the solution (first use, kept in the cache)."""
    from experiments.running.progress import duration

    database = _database()
    if checkers in database.FIRST_USE and not database.is_built(checkers):
        log(f"building the hypergammon{checkers} solution (first use, kept in the cache): about "
            f"{duration(max(1.0, estimated_seconds(checkers, threads)))}; `bgsim bearoff build --variant "
            f"hypergammon{checkers}` makes it ahead of time, with a progress bar, and goes on after a Ctrl-C")


class _Bar:
    """A bar over the sweeps a build is expected to take (re-estimated after each sweep from the
    pace the changes shrink at), one line with the time left after the third contact sweep."""

    def __init__(self, checkers: int, threshold: float, progress: bool, log, threads: int) -> None:
        from experiments.running.progress import Progress

        self.checkers, self.threshold, self.log, self.threads = checkers, threshold, log, threads
        self.total = SWEEPS[checkers] + 1
        self.bar = Progress(self.total, 0, "sweeps", progress)
        self.said = False
        self.sweeps = 0

    def __call__(self, found) -> None:
        from experiments.running.files import stop_hook
        from experiments.running.progress import duration

        database = _database()
        left = database.sweeps_left(found.changes, self.threshold)
        done = found.sweep + 1
        if left == left:
            total = done + int(left)
            if self.bar.bar is not None and total != self.bar.bar.total:
                self.bar.bar.total = total
                self.bar.bar.refresh()
        self.bar.update(1)
        if not self.said and len(found.changes) >= 3 and left == left:
            self.said = True
            self.log(f"hypergammon{self.checkers}: sweep {found.sweep} changed a value by {found.change:.1e} at "
                     f"most; about {int(left)} more sweeps to {self.threshold:g}, {duration(left * found.seconds)} "
                     "at this pace")
        self.sweeps += 1
        stop_hook(self.sweeps)  # tests: BGSIM_STOP_AFTER=K interrupts after the K-th sweep of this session

    def close(self) -> None:
        self.bar.close()


def build_solution(checkers: int, force: bool = False, threads: int = 1, progress: bool = True,
                   log: Callable[[str], None] = print, folder: Path | None = None) -> dict:
    """Build the solution of ``checkers``-checker hypergammon into the cache folder unless it is
    current (always with ``force``); what the file holds and how long the build took.  A Ctrl-C
    keeps the last sweep: the next build goes on from it (and says so)."""
    from bgsim.bearoff.store import cache_dir
    from experiments.running.progress import duration

    database = _database()
    database.check_checkers(checkers)
    folder = Path(folder) if folder is not None else cache_dir()
    path = database.path_of(checkers, folder)
    seconds = None
    if force or not database.is_built(checkers, folder):
        partial = database.partial_path(folder, checkers)
        found = database.positions(checkers)
        going_on = partial.exists() and not force
        if force:
            partial.unlink(missing_ok=True)
        log(f"building the hypergammon{checkers} solution ({found.states:,} states, {len(found.contact):,} in "
            f"contact) to a threshold of {database.DEFAULT_THRESHOLD:g}"
            + (", going on from its last sweep" if going_on else "")
            + f": about {duration(max(1.0, estimated_seconds(checkers, threads)))} from the start; a Ctrl-C keeps "
            "the last sweep")
        bar = _Bar(checkers, database.DEFAULT_THRESHOLD, progress, log, threads)
        try:
            built = database.build(checkers, folder=folder, threads=threads, on_sweep=bar)
        except KeyboardInterrupt:
            bar.close()
            log(f"interrupted: the sweeps done are kept in {partial}; `bgsim bearoff build --variant "
                f"hypergammon{checkers}` goes on from the last one")
            raise
        bar.close()
        database.write(built, folder)
        seconds = built.build_seconds
    header = database.read_header(path)
    return {"variant": f"hypergammon{checkers}", "file": str(path), "bytes": path.stat().st_size,
            "states": header.get("states"), "contact_states": header.get("contact_states"),
            "threshold": header.get("threshold"), "sweeps": header.get("sweeps"),
            "last_change": header.get("last_change"), "rate": header.get("rate"),
            "error_bound": header.get("error_bound"), "build_s": seconds,
            "total_build_s": header.get("build_seconds")}


# --- GNU Backgammon's files -------------------------------------------------------------------


def read_gnubg(path: Path, checkers: int) -> tuple[np.ndarray, np.ndarray]:
    """A makehyper file: ``(chances, equities)``, ``chances[state]`` the five cubeless chances and
    ``equities[state]`` the four equities in bgsim's order (centred, owned, opponent, Jacoby), the
    states numbered as bgsim numbers them (GNU Backgammon's own numbering)."""
    from bgsim.fast.hypergammon import position_count

    positions = position_count(checkers)
    data = Path(path).read_bytes()
    expected = GNUBG_HEADER + positions * positions * GNUBG_RECORD
    if not data.startswith(f"gnubg-H{checkers}".encode()) or len(data) != expected:
        raise ValueError(f"{path} is not GNU Backgammon's {checkers}-checker hypergammon file "
                         f"({expected:,} bytes, starting gnubg-H{checkers})")
    raw = np.frombuffer(data, dtype=np.uint8, offset=GNUBG_HEADER).reshape(positions * positions, GNUBG_RECORD)
    raw = raw.astype(np.uint32)

    def number(column: int) -> np.ndarray:
        return (raw[:, column] | (raw[:, column + 1] << 8) | (raw[:, column + 2] << 16)) / 16777215.0

    chances = np.stack([number(3 * k) for k in range(5)], axis=1)
    theirs = {name: (number(15 + 3 * k) - 0.5) * 6.0 for k, name in enumerate(GNUBG_EQUITIES)}
    equities = np.stack([theirs[name] for name in ("centred", "owned", "opponent", "jacoby")], axis=1)
    return chances, equities


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_makehyper(checkers: int, folder: Path, options: list[str]):
    """makehyper ``-c checkers -n`` with ``options``, writing ``folder/hyper<N>.bd``: what it
    printed, the file, and its wall and CPU seconds (RuntimeError if it failed)."""
    if not Path(MAKEHYPER).exists() and not shutil.which("makehyper"):
        raise ValueError("the check needs GNU Backgammon's makehyper (Debian/Ubuntu: apt-get install gnubg)")
    program = MAKEHYPER if Path(MAKEHYPER).exists() else shutil.which("makehyper")
    path = Path(folder) / f"hyper{checkers}.bd"
    cpu, wall = _cpu_of_children(), time.perf_counter()
    finished = subprocess.run([program, "-c", str(checkers), "-n", *options, "-f", str(path)], cwd=folder,
                              capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall, _cpu_of_children() - cpu
    if finished.returncode != 0 or not path.exists():
        raise RuntimeError(f"makehyper -c {checkers} {' '.join(options)} failed: {finished.stderr.strip()[-300:]}")
    return finished.stdout.replace("\r", "\n").splitlines(), path, round(wall, 2), round(cpu, 2)


def make_gnubg(checkers: int, folder: Path) -> dict:
    """Run GNU Backgammon's makehyper for ``checkers`` into ``folder``: the file, and its wall and
    CPU seconds."""
    lines, path, wall, cpu = _run_makehyper(checkers, folder, [])
    iterations = sum(1 for line in lines if line.startswith("*** Iteration"))
    return {"file": str(path), "wall_s": wall, "cpu_s": cpu, "iterations": iterations}


def _quantized(numbers: np.ndarray) -> np.ndarray:
    """Numbers within 0..1 as makehyper's three little-endian bytes, truncated as makehyper
    writes them."""
    units = np.clip(np.floor(numbers * 16777215.0), 0, 16777215).astype(np.uint32)
    return np.stack([units & 0xFF, (units >> 8) & 0xFF, (units >> 16) & 0xFF], axis=-1).astype(np.uint8)


def write_gnubg(path: Path, checkers: int, values: np.ndarray) -> Path:
    """``values`` (bgsim's nine a state, every state numbered as :func:`read_gnubg` numbers them)
    as a makehyper file, which makehyper can start from (``-r``).  The finished games (a side with
    no checker left) hold what makehyper gives them, from bgsim's scoring: the side with none left
    won 1, 2 (the loser bore off none) or 3 points (and has one on the bar or in the winner's home
    board), 1 with the Jacoby rule; a state where both sides hold a point, none (makehyper skips
    it, as its own files do: nought); the rest bgsim's values."""
    from bgsim.fast.hypergammon import (BINOMIALS, CENTRED, JACOBY, OPPONENT, OWNED, position_count,
                                        side_positions)

    positions = position_count(checkers)
    if values.shape != (positions * positions, 9):
        raise ValueError(f"{checkers}-checker hypergammon has {positions * positions:,} states of 9 values, "
                         f"got an array of shape {values.shape}")
    counts, _ = side_positions(checkers, BINOMIALS)
    chances = np.array(values[:, :5], dtype=np.float64)
    equities = np.array(values[:, [OWNED, CENTRED, JACOBY, OPPONENT]], dtype=np.float64)  # the file's order
    on = counts.sum(axis=1)
    back = counts[:, 18:].sum(axis=1) > 0  # points 19..24 of its own count (the winner's home) or the bar
    points = np.where(on < checkers, 1.0, np.where(back, 3.0, 2.0))  # the loser's position: what it loses
    bits = np.int64(1) << np.arange(24, dtype=np.int64)
    held = (counts[:, :24] > 0).astype(np.int64) @ bits  # its points 1..24
    mirrored = (counts[:, 23::-1] > 0).astype(np.int64) @ bits  # the same, in the other side's numbering
    for own in range(positions):
        rows = slice(own * positions, (own + 1) * positions)
        clash = (held[own] & mirrored) != 0  # our point k is its point 25 - k
        chances[rows][clash] = 0.0
        equities[rows][clash] = 0.0
        if own == 0:  # the side on roll has none left: it has won (both none: as makehyper, a loss of 1)
            chances[rows] = 0.0
            chances[rows, 0] = 1.0
            chances[rows, 1] = points >= 2
            chances[rows, 2] = points >= 3
            equities[rows] = points[:, None]
            equities[rows, 2] = 1.0
            chances[0] = 0.0
            equities[0] = -1.0
        else:  # the opponent has none left (state own * positions): it has won
            chances[own * positions] = [0.0, 0.0, 0.0, points[own] >= 2, points[own] >= 3]
            equities[own * positions] = -points[own]
            equities[own * positions, 2] = -1.0
    records = np.zeros((positions * positions, GNUBG_RECORD), dtype=np.uint8)
    records[:, :15] = _quantized(chances).reshape(-1, 15)
    records[:, 15:27] = _quantized(equities / 6.0 + 0.5).reshape(-1, 12)
    path = Path(path)
    with open(path, "wb") as handle:
        handle.write(f"gnubg-H{checkers}".encode().ljust(GNUBG_HEADER - 1, b"x") + b"\n")
        handle.write(records.tobytes())
    return path


def gnubg_step(checkers: int, folder: Path, start: Path) -> dict:
    """One iteration of makehyper's recursion from ``start`` (a makehyper file,
    :func:`write_gnubg`), into a file in ``folder``: makehyper restarted from it with a threshold of
    1, which its first iteration meets unless some value moves by more than 1.  Its largest change
    of a value in that iteration (its "norm of delta"), the file, and its wall and CPU seconds."""
    lines, path, wall, cpu = _run_makehyper(checkers, folder, ["-t", "1", "-r", str(start)])
    norms = [float(line.split(":", 1)[1]) for line in lines if line.startswith("norm of delta:")]
    if not norms:
        raise RuntimeError(f"makehyper -c {checkers} -r {start} printed no iteration")
    return {"file": str(path), "start": "bgsim", "iterations": len(norms), "norm_of_delta": norms[0],
            "wall_s": wall, "cpu_s": cpu}


def _cubeless(chances: np.ndarray) -> np.ndarray:
    return 2.0 * chances[:, 0] - 1.0 + chances[:, 1] - chances[:, 3] + chances[:, 2] - chances[:, 4]


def _differences(ours: np.ndarray, theirs_chances: np.ndarray, theirs_equities: np.ndarray,
                 states: np.ndarray, tolerance: float) -> dict:
    """How ``ours`` (bgsim's nine values) and GNU Backgammon's differ on ``states``."""
    from bgsim.fast.hypergammon import CENTRED, JACOBY, OPPONENT, OWNED, VALUES

    ours = ours[states].astype(np.float64)
    chances, equities = theirs_chances[states], theirs_equities[states]
    ours_equities = ours[:, [CENTRED, OWNED, OPPONENT, JACOBY]]
    chance_gap = np.abs(ours[:, :5] - chances)
    equity_gap = np.abs(ours_equities - equities)
    cubeless_gap = np.abs(_cubeless(ours[:, :5]) - _cubeless(chances))
    other_chances = chance_gap.max(axis=1) > tolerance
    return {
        "states": int(len(states)),
        "largest": {name: float(gap) for name, gap in zip(VALUES, [*chance_gap.max(axis=0), *equity_gap.max(axis=0)])},
        "equities_agree": int((equity_gap.max(axis=1) <= tolerance).sum()),
        "largest_equity_difference": float(equity_gap.max()),
        "chances_agree": int((~other_chances).sum()),
        "cubeless_equity_largest_difference": float(cubeless_gap.max()),
        # other chances at the same cubeless equity: a tie between plays, broken the other way
        "other_chances_same_equity": int((other_chances & (cubeless_gap <= tolerance)).sum()),
        "other_chances_other_equity": int((other_chances & (cubeless_gap > tolerance)).sum()),
    }


def compare_with_gnubg(checkers: int, gnubg_file: Path | None = None, sample: int = 200, seed: int = 1,
                       log: Callable[[str], None] = print, folder: Path | None = None,
                       convention: bool | None = None, makehyper_start: str | None = None,
                       keep_sample: Path | None = None) -> dict:
    """bgsim's solution of ``checkers`` against GNU Backgammon's file (``gnubg_file``, else made
    now by makehyper in a temporary folder), state by state: the largest difference of each value
    and how many states agree within the tolerance (the thresholds and the files' rounding), for
    the true solution and, with ``convention`` (default: always but with a 3-checker file given),
    for bgsim's solution under GNU Backgammon's convention for a roll without a play (module doc).
    And on ``sample`` random states, whether GNU Backgammon's own values are a fixed point of
    bgsim's recursion under that convention (:func:`check_sample`); with ``keep_sample``, that
    sample (:func:`gnubg_sample`) is saved there as well, for the tests.

    makehyper makes its file from its own start (``makehyper_start`` ``"zero"``, the default up
    to 2 checkers: seconds, a minute) or, for 3 checkers, whose build takes makehyper hours, by one
    iteration of its recursion from bgsim's solution under its convention (``"bgsim"``, the
    default there: :func:`gnubg_step`, minutes).  Then the differences are how far one step of
    GNU Backgammon's recursion moves bgsim's values: bgsim's solution is GNU Backgammon's fixed
    point within them (a value moved by 0.01 moves back by about as much: tests/test_hypergammon.py),
    but for the chances where two plays tie (makehyper keeps the last such play it generates,
    bgsim the first in canonical order), which ``other_chances_same_equity`` counts.
    """
    from bgsim.fast.hypergammon import VALUES

    database = _database()
    database.check_checkers(checkers)
    database.check_ready(checkers, folder)  # 3 checkers not built: its line before hours of makehyper
    makehyper_start = makehyper_start or ("bgsim" if checkers == 3 else "zero")
    if makehyper_start not in ("zero", "bgsim"):
        raise ValueError(f"makehyper starts from zero or from bgsim's solution, not {makehyper_start!r}")
    convention = (checkers <= 2 or gnubg_file is None) if convention is None else convention
    summary: dict = {"variant": f"hypergammon{checkers}", "values": list(VALUES)}
    with tempfile.TemporaryDirectory(prefix="bgsim-makehyper-") as temporary:
        if gnubg_file is None and makehyper_start == "bgsim":
            start = write_gnubg(Path(temporary) / f"bgsim{checkers}.bd", checkers,
                                _convention_solution(checkers, folder, log).values)
            log(f"running one iteration of GNU Backgammon's makehyper -c {checkers} from bgsim's solution under its "
                "convention")
            summary["makehyper"] = made = gnubg_step(checkers, Path(temporary), start)
            gnubg_file = Path(made["file"])
        elif gnubg_file is None:
            log(f"running GNU Backgammon's makehyper -c {checkers} (its threshold {GNUBG_THRESHOLD:g})")
            summary["makehyper"] = made = make_gnubg(checkers, Path(temporary))
            gnubg_file = Path(made["file"])
        chances, equities = read_gnubg(gnubg_file, checkers)
        log(f"GNU Backgammon's values at {sample} random states against one step of bgsim's recursion")
        kept = gnubg_sample(gnubg_file, checkers, sample, seed)
        summary["fixed_point"] = check_sample(kept)
        if keep_sample is not None:
            save_sample(kept, Path(keep_sample))
            summary["sample_file"] = str(keep_sample)
    found = database.positions(checkers)
    states = np.concatenate([found.races, found.contact])
    # the thresholds bound the changes of a sweep, not the distance to the fixed point: the
    # tolerance takes ten times GNU Backgammon's, and its 24-bit rounding of equities within +-3
    tolerance = 10 * GNUBG_THRESHOLD + 6.0 / 2 ** 24
    summary["tolerance"] = tolerance
    for name, dance in (("bgsim", False), ("bgsim_gnubg_convention", True)) if convention else (("bgsim", False),):
        solved = database.solution(checkers, folder, gnubg_dance=dance) if not dance else \
            _convention_solution(checkers, folder, log)
        summary[name] = {"header": {key: solved.header.get(key) for key in
                                    ("threshold", "sweeps", "last_change", "error_bound", "gnubg_dance", "code")},
                         **_differences(solved.values, chances, equities, states, tolerance)}
    agrees = bool(summary["fixed_point"]["fixed_point"])
    if convention:
        entry = summary["bgsim_gnubg_convention"]
        agrees = agrees and entry["equities_agree"] == entry["states"] and entry["other_chances_other_equity"] == 0
    summary["agrees"] = agrees
    return summary


def _convention_solution(checkers: int, folder: Path | None, log: Callable[[str], None]):
    """bgsim's solution under GNU Backgammon's convention, built now if it is not (3 checkers:
    about as long as the true one's build, said before it starts)."""
    from experiments.running.progress import duration

    database = _database()
    if checkers not in database.FIRST_USE and not database.is_built(checkers, folder, gnubg_dance=True):
        log(f"building hypergammon{checkers}'s solution under GNU Backgammon's convention first (about "
            f"{duration(estimated_seconds(checkers))}; a Ctrl-C keeps its last sweep)")
    return database.solution(checkers, folder, gnubg_dance=True, build_now=True)


def time_builds(checkers: int = 2, rounds: int = 2, log: Callable[[str], None] = print) -> dict:
    """bgsim's build of ``checkers`` against makehyper's, side by side in this process, ``rounds``
    times each in turns (bgsim first, then makehyper): CPU and wall seconds of each, at
    makehyper's threshold and at bgsim's.  bgsim on one thread, its kernels compiled first (a
    1-checker build), no checkpoint (makehyper writes none either, ``-n``)."""
    database = _database()
    database.build(1, checkpoint=False)  # compiles the kernels: not the build's time
    runs = {"bgsim_gnubg_threshold": [], "bgsim": [], "makehyper": []}
    with tempfile.TemporaryDirectory(prefix="bgsim-makehyper-") as temporary:
        for round_ in range(rounds):
            for name, threshold in (("bgsim_gnubg_threshold", GNUBG_THRESHOLD), ("bgsim", database.DEFAULT_THRESHOLD)):
                cpu, wall = time.process_time(), time.perf_counter()
                built = database.build(checkers, threshold=threshold, checkpoint=False)
                runs[name].append({"cpu_s": round(time.process_time() - cpu, 2),
                                   "wall_s": round(time.perf_counter() - wall, 2), "sweeps": built.header["sweeps"]})
                log(f"round {round_ + 1}: bgsim to {threshold:g}: {runs[name][-1]}")
            made = make_gnubg(checkers, Path(temporary))
            runs["makehyper"].append({key: made[key] for key in ("cpu_s", "wall_s", "iterations")})
            log(f"round {round_ + 1}: makehyper: {runs['makehyper'][-1]}")

    def mean(name: str, key: str) -> float:
        return float(np.mean([run[key] for run in runs[name]]))

    report = {"checkers": checkers, "rounds": rounds, "runs": runs, "cores": os.cpu_count(),
              "load_average": os.getloadavg()}
    for name in ("bgsim_gnubg_threshold", "bgsim"):
        report[f"{name}_cpu_ratio"] = mean(name, "cpu_s") / mean("makehyper", "cpu_s")
        report[f"{name}_wall_ratio"] = mean(name, "wall_s") / mean("makehyper", "wall_s")
    return report


def error_bound_note(header: dict) -> str:
    bound = header.get("error_bound")
    return "unknown" if bound is None or (isinstance(bound, float) and math.isnan(bound)) else f"{bound:.1e}"


# --- a sample of GNU Backgammon's file, and the recursion checked on it -------------------------


def gnubg_sample(gnubg_file: Path, checkers: int, count: int, seed: int = 1) -> dict[str, np.ndarray]:
    """``count`` random states of a makehyper file (contact and races alike) with GNU Backgammon's
    values there and at every state one roll can lead to, so that one step of the recursion can
    be checked on them without the rest of the file (:func:`check_sample`): ``checkers``,
    ``states`` (the sample), ``known`` (the states whose values are kept, sorted) and their
    ``chances`` and ``equities`` (bgsim's order, :func:`read_gnubg`)."""
    from bgsim.hypergammon import position_of, state_of
    from bgsim.hypergammon.reference import ROLLS
    from bgsim.rules import legal_plays

    database = _database()
    chances, equities = read_gnubg(gnubg_file, checkers)
    found = database.positions(checkers)
    states = np.sort(np.random.default_rng(seed).choice(np.concatenate([found.races, found.contact]), size=count,
                                                        replace=False))
    known = set(int(state) for state in states)
    for state in states:
        position = position_of(int(state), checkers)
        known.add(state_of(position.turned())[1])
        for roll in ROLLS:
            for play in legal_plays(position, roll):
                if play.result.checkers_off < checkers:
                    known.add(state_of(play.result.turned())[1])
    known = np.array(sorted(known), dtype=np.int64)
    return {"checkers": np.array([checkers]), "states": states.astype(np.int64), "known": known,
            "chances": chances[known].astype(np.float32), "equities": equities[known].astype(np.float32)}


def save_sample(sample: dict[str, np.ndarray], path: Path) -> Path:
    """``sample`` (:func:`gnubg_sample`) as a compressed .npz at ``path``, written whole or not at
    all."""
    from experiments.running.files import write_npz

    write_npz(path, sample, compressed=True)
    return path


def check_sample(sample: dict, tolerance: float = 5e-5, gnubg_dance: bool = True) -> dict:
    """One step of bgsim's recursion under GNU Backgammon's convention for a roll without a play
    (``bgsim.hypergammon.reference.step``, ``gnubg_dance``), from GNU Backgammon's own values,
    at every sampled state: GNU Backgammon's file is its fixed point (within ``tolerance``: its
    threshold and rounding) if bgsim's rules, plays and scores are GNU Backgammon's.  The cubeful
    equities are compared, and the cubeless equity (the chances of tied plays differ).  With
    ``gnubg_dance`` false, bgsim's own convention: where a side can be shut out it must differ."""
    from bgsim.hypergammon import position_of
    from bgsim.hypergammon import reference

    checkers = int(sample["checkers"][0])
    known = {int(state): index for index, state in enumerate(sample["known"])}
    chances, equities = sample["chances"].astype(np.float64), sample["equities"].astype(np.float64)

    def value_of(position):
        from bgsim.hypergammon import state_of

        index = known[state_of(position)[1]]
        return reference.Values(*chances[index], *equities[index])

    worst = {"cubeful": 0.0, "cubeless": 0.0}
    for state in sample["states"]:
        position = position_of(int(state), checkers)
        step = reference.step(position, value_of, gnubg_dance=gnubg_dance)
        stored = value_of(position)
        worst["cubeful"] = max(worst["cubeful"], max(abs(a - b) for a, b in zip(step[5:], stored[5:])))
        worst["cubeless"] = max(worst["cubeless"], abs(reference.cubeless_equity(step)
                                                       - reference.cubeless_equity(stored)))
    return {"checkers": checkers, "states": int(len(sample["states"])), "tolerance": tolerance,
            "largest_cubeful_residual": float(worst["cubeful"]), "largest_cubeless_residual": float(worst["cubeless"]),
            "fixed_point": bool(max(worst.values()) <= tolerance)}


# --- results/hypergammon/summary.md -----------------------------------------------------------


def results_summary(folder: Path) -> str:
    """summary.md of a results folder holding ``build_N.json`` (``bgsim bearoff build --variant
    hypergammonN --json``), ``gnubg_check_N.json`` (``bgsim bearoff check ... --json``),
    ``timing.json`` (:func:`time_builds`) and ``run.json`` (the commit): the tables of the
    solution's build, its check against GNU Backgammon and the two builds' times."""
    import json

    folder = Path(folder)
    record = json.loads((folder / "run.json").read_text())
    lines = ["# Hypergammon solved: the build and its check against GNU Backgammon", "",
             f"Generated on commit {record['git_commit'][:12]} (clean tree: {not record['git_dirty']}); the commands "
             "in `run.json`.", "", "## The solution", "",
             "| variant | states | in contact | sweeps | threshold | last change | error bound | build (s) | file (MiB) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for path in sorted(folder.glob("build_*.json")):
        build = json.loads(path.read_text())
        lines.append(f"| {build['variant']} | {build['states']:,} | {build['contact_states']:,} | {build['sweeps']} | "
                     f"{build['threshold']:g} | {build['last_change']:.1e} | {build['error_bound']:.1e} | "
                     f"{build['total_build_s']:.1f} | {build['bytes'] / 2**20:.1f} |")
    lines += ["", "## Against GNU Backgammon's makehyper", "",
              "GNU's file: makehyper's own build from its zero start, or (3 checkers, whose own build takes "
              "hours) one iteration of its recursion from bgsim's solution under its convention, where the "
              "differences are how far that step moves bgsim's values (`gnubg_step`).", "",
              "| variant | GNU's file | states | GNU's values a fixed point of bgsim's recursion (its convention) | "
              "solution | equities agree | largest equity difference | chances agree | other chances, same equity | "
              "other chances, other equity |", "|---|---|---:|---|---|---:|---:|---:|---:|---:|"]
    for path in sorted(folder.glob("gnubg_check_*.json")):
        check = json.loads(path.read_text())
        made = check.get("makehyper", {})
        if made.get("start") == "bgsim":
            source = f"one step from bgsim's (norm of delta {made['norm_of_delta']:.1e})"
        elif made:
            source = f"its build ({made['iterations']} iterations)"
        else:
            source = "given"
        point = check["fixed_point"]
        residual = max(point["largest_cubeful_residual"], point["largest_cubeless_residual"])
        for name, what in (("bgsim_gnubg_convention", "bgsim, GNU's convention for a roll without a play"),
                           ("bgsim", "bgsim, the true recursion")):
            if name not in check:
                continue
            entry = check[name]
            lines.append(f"| {check['variant']} | {source} | {entry['states']:,} | {'yes' if point['fixed_point'] else 'no'} "
                         f"({point['states']} states, residual {residual:.1e}) | {what} | {entry['equities_agree']:,} | "
                         f"{entry['largest_equity_difference']:.1e} | {entry['chances_agree']:,} | "
                         f"{entry['other_chances_same_equity']:,} | {entry['other_chances_other_equity']:,} |")
    timing = folder / "timing.json"
    if timing.exists():
        found = json.loads(timing.read_text())
        lines += ["", "## The 2-checker build, side by side", "",
                  f"{found['rounds']} rounds in turns in one process (bgsim on one thread, its kernels compiled "
                  f"first; makehyper with no checkpoint), {found['cores']} cores, load average "
                  f"{', '.join(f'{load:.1f}' for load in found['load_average'])}:", "",
                  "| build | threshold | sweeps | CPU s (each round) | wall s (each round) |", "|---|---:|---:|---|---|"]
        for name, threshold in (("bgsim_gnubg_threshold", GNUBG_THRESHOLD), ("bgsim", _database().DEFAULT_THRESHOLD),
                                ("makehyper", GNUBG_THRESHOLD)):
            runs = found["runs"][name]
            sweeps = runs[0].get("sweeps", runs[0].get("iterations"))
            lines.append(f"| {name.replace('_gnubg_threshold', '')} | {threshold:g} | {sweeps} | "
                         f"{', '.join(str(run['cpu_s']) for run in runs)} | {', '.join(str(run['wall_s']) for run in runs)} |")
        lines += ["", f"CPU time of bgsim against makehyper: {found['bgsim_gnubg_threshold_cpu_ratio']:.2f} at makehyper's "
                  f"threshold, {found['bgsim_cpu_ratio']:.2f} at bgsim's (wall: "
                  f"{found['bgsim_gnubg_threshold_wall_ratio']:.2f} and {found['bgsim_wall_ratio']:.2f})."]
    return "\n".join(lines) + "\n"
