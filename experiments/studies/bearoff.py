"""The bear-off databases built, timed, and checked against GNU Backgammon's.

``build_files`` builds (or rebuilds) the database files in the cache folder and says how long
each took (``bgsim bearoff build``); ``compare_with_gnubg`` compares them with GNU Backgammon's
(gnubg-nn; ``bgsim bearoff check``); ``build_times`` is what ``bgsim bench`` reports.
"""

from __future__ import annotations

import time

from bgsim import Position
from bgsim.position_id import to_gnubg_board

# bgsim.bearoff (Numba) is imported by the functions only, so that every other command starts
# without compiling or loading it.

# The build rates of the committed `bgsim bench` run (results/bench/latest.json, 2 cores): the
# one-sided database in 2.4 s, the two-sided one of 8 checkers a side (12,870**2 pairs) in 5.4 s.
ONE_SIDED_SECONDS = 2.4
TWO_SIDED_PAIRS_PER_SECOND = 12_870 ** 2 / 5.4
BENCH_CORES = 2


def pending_builds(two_sided_checkers: int | None = None) -> list[tuple[str, int, float]]:
    """The databases a command will build first (missing or stale in the cache folder), each with
    a rough estimate of its seconds here: (kind, checkers, seconds)."""
    from bgsim.bearoff import database, store
    from bgsim.fast import bearoff as kernels

    checkers = database.default_two_sided_checkers() if two_sided_checkers is None else two_sided_checkers
    folder = store.cache_dir()
    pending = []
    for kind, size, cubeful in (("one-sided", kernels.MAX_CHECKERS, False), ("two-sided", checkers, True)):
        if not store.has_header(folder / store.file_name(kind, size), store.expected_header(kind, size, cubeful)):
            pending.append((kind, size, _estimate(kind, size)))
    return pending


def announce_builds(log, two_sided_checkers: int | None = None) -> None:
    """One line per database a command is about to build (a single pass of a kernel: no bar)."""
    from experiments.running.progress import duration

    for kind, checkers, seconds in pending_builds(two_sided_checkers):
        log(f"building the {kind} bear-off database (up to {checkers} checkers a side; first use, kept in "
            f"the cache): about {duration(max(seconds, 1.0))}, no progress bar; `bgsim bearoff build` "
            "makes them ahead of time")


def _estimate(kind: str, checkers: int) -> float:
    from bgsim.fast import bearoff as kernels
    from experiments.running.machine import thread_limit

    scale = BENCH_CORES / max(1, thread_limit())
    if kind == "one-sided":
        return ONE_SIDED_SECONDS * scale
    return kernels.position_count(checkers) ** 2 / TWO_SIDED_PAIRS_PER_SECOND * scale


def build_files(two_sided_checkers: int, force: bool, log=lambda text: None) -> dict:
    """Build what is missing or stale (everything with ``force``); the seconds each took.
    ``log`` is told, before each build, what is built and roughly how long it takes."""
    from bgsim.bearoff import database, store
    from bgsim.fast import bearoff as kernels
    from experiments.running.progress import duration

    database.check_two_sided_checkers(two_sided_checkers)
    folder = store.cache_dir()
    report = {"folder": str(folder), "databases": []}
    jobs = (
        ("one-sided", kernels.MAX_CHECKERS, False, database.build_one_sided, database.one_sided, ()),
        ("two-sided", two_sided_checkers, True, lambda: database.build_two_sided(two_sided_checkers),
         database.two_sided, (two_sided_checkers,)),
    )
    for kind, checkers, cubeful, build, load, load_args in jobs:
        path = folder / store.file_name(kind, checkers)
        if force or not store.has_header(path, store.expected_header(kind, checkers, cubeful)):
            log(f"building the {kind} database ({kernels.position_count(checkers):,} positions a side): "
                f"about {duration(max(_estimate(kind, checkers), 1.0))}, a single pass (no progress bar)")
        started = time.perf_counter()
        if force:
            built = build()
            store.write(path, store.expected_header(kind, checkers, cubeful),
                        {name: getattr(built, name) for name in database.ARRAYS[kind]})
            seconds = built.build_seconds
        else:
            seconds = load(*load_args).build_seconds  # None: the file was current
        report["databases"].append({
            "kind": kind, "checkers": checkers, "positions": kernels.position_count(checkers),
            "file": str(path), "bytes": path.stat().st_size if path.exists() else None,
            "build_s": None if seconds is None else round(seconds, 3),
            "total_s": round(time.perf_counter() - started, 3),
        })
    return report


# --- bearoff check ---------------------------------------------------------------------------


def _gnubg():
    try:
        import gnubg_nn
    except ImportError:
        raise ValueError("bgsim bearoff check needs the gnubg-nn package (pip install 'bgsim[gnubg]')") from None
    return gnubg_nn


def _pair_position(own: int, opponent: int) -> Position:
    from bgsim.bearoff import database

    own_counts, opponent_counts = database.counts_of(own), database.counts_of(opponent)
    board = [0] * 26
    for point in range(1, 7):
        board[point] = own_counts[point - 1]
        board[25 - point] = -opponent_counts[point - 1]
    return Position(tuple(board))


def gnubg_distribution_check(gnubg_nn, one, tolerance: float = 1e-4) -> dict:
    """Every position's roll distribution in the one-sided database ``one`` against
    ``gnubg_nn.bearoff_probabilities`` (whose entry ``i`` is the chance of ``i + 1`` rolls,
    stored in 16 bits)."""
    import numpy as np

    from bgsim.fast import bearoff as kernels

    differ = []
    worst_mean = 0.0
    for number in range(1, len(one.mean)):
        theirs = np.zeros(kernels.MAX_ROLLS)
        values = gnubg_nn.bearoff_probabilities(number)
        theirs[1:1 + len(values)] = values
        if np.abs(theirs - one.rolls_off[number]).max() > tolerance:
            differ.append(number)
        their_mean = float(theirs @ np.arange(kernels.MAX_ROLLS)) / float(theirs.sum())
        worst_mean = max(worst_mean, abs(their_mean - float(one.mean[number])))
    return {"positions": len(one.mean) - 1, "differ": differ, "worst_mean_rolls_difference": worst_mean}


def compare_with_gnubg(pairs: int, seed: int, tolerance: float = 1e-4) -> dict:
    """Our win chances against ``gnubg_nn.probabilities`` (0-ply) on random pure bear-offs.

    Pairs are drawn with each side's number of checkers uniform in 1..15, then a position
    uniform among those with that many.  GNU Backgammon answers pairs of at most 6 checkers a
    side from its two-sided database (exact play), the others from its one-sided one; each is
    compared with ours of the same kind.  A one-sided difference is put down to GNU Backgammon
    when its own stored roll distribution of a side differs from ours (it picks plays by means
    computed from 16-bit probabilities, so near-ties can go the other way), or when it answers
    exactly 1 or 0 (a shortcut that declares a race decided when it is only almost decided)."""
    import numpy as np

    from bgsim.bearoff import database
    from bgsim.fast import bearoff as kernels

    gnubg_nn = _gnubg()
    one = database.one_sided()
    two = database.two_sided(6)
    distributions = gnubg_distribution_check(gnubg_nn, one, tolerance)
    their_differ = set(distributions["differ"])
    rng = np.random.default_rng(seed)
    summary = {
        "pairs": pairs, "seed": seed, "tolerance": tolerance,
        "one_sided_positions_with_other_distribution": len(their_differ),
        "worst_mean_rolls_difference": distributions["worst_mean_rolls_difference"],
    }
    counts = {kind: {"pairs": 0, "agree": 0, "worst": 0.0, "their_distribution": 0, "their_shortcut": 0,
                     "unexplained": []} for kind in ("two-sided", "one-sided")}
    gammon = {"pairs": 0, "agree": 0, "worst": 0.0}
    for _ in range(pairs):
        own_checkers, opponent_checkers = (int(n) for n in rng.integers(1, 16, size=2))
        own = int(rng.integers(kernels.position_count(own_checkers - 1), kernels.position_count(own_checkers)))
        opponent = int(rng.integers(kernels.position_count(opponent_checkers - 1),
                                    kernels.position_count(opponent_checkers)))
        position = _pair_position(own, opponent)
        theirs = gnubg_nn.probabilities([list(side) for side in to_gnubg_board(position)], 0)
        if own_checkers <= 6 and opponent_checkers <= 6:
            kind, ours = "two-sided", (float(two.win[own, opponent]), 0.0, 0.0, 0.0, 0.0)
        else:
            kind, ours = "one-sided", one.probabilities(own, opponent)
        entry = counts[kind]
        entry["pairs"] += 1
        difference = abs(theirs[0] - ours[0])
        entry["worst"] = max(entry["worst"], difference)
        if difference <= tolerance:
            entry["agree"] += 1
        elif kind == "one-sided" and (own in their_differ or opponent in their_differ):
            entry["their_distribution"] += 1
        elif kind == "one-sided" and theirs[0] in (0.0, 1.0):
            entry["their_shortcut"] += 1
        else:
            entry["unexplained"].append(position.position_id)
        if kind == "one-sided" and 15 in (own_checkers, opponent_checkers):
            gammon["pairs"] += 1
            worst = max(abs(theirs[1] - ours[1]), abs(theirs[3] - ours[3]))
            gammon["worst"] = max(gammon["worst"], worst)
            gammon["agree"] += worst <= tolerance
    summary.update(counts)
    summary["gammons"] = gammon
    return summary


# --- build times, for bgsim bench ------------------------------------------------------------


def build_times(two_sided_checkers: int | None = None) -> dict:
    """Seconds to build each database in memory with the kernels already compiled (a tiny
    build of each compiles them first), and the two-sided table's size."""
    from bgsim.bearoff import database
    from bgsim.fast import bearoff as kernels

    checkers = two_sided_checkers or database.default_two_sided_checkers()
    small = database._all_positions()[: kernels.position_count(2)]
    starts, targets = kernels.successors(small, kernels.ROLLS, kernels.BINOMIALS)
    kernels.one_sided(small, starts, targets, kernels.ROLL_WEIGHTS, kernels.MAX_CHECKERS)
    database.build_two_sided(2)
    one = database.build_one_sided()
    two = database.build_two_sided(checkers)
    return {
        "one_sided_build_s": round(one.build_seconds, 3),
        "two_sided_build_s": round(two.build_seconds, 3),
        "two_sided_checkers": checkers,
        "two_sided_bytes": int(sum(table.nbytes for table in (two.win, two.rolls_centred, two.rolls_owned, two.opponent_owns))),
    }
