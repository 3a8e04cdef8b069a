"""``bgsim eval``: the best answer bgsim has for a position; ``bgsim bearoff``: its databases.

``eval`` asks ``bgsim.bearoff.evaluate`` (exact, for pure bear-offs) and, for any other
position, the ``nn`` checker bot's evaluation when that bot is installed: the fallback lives
here, not in bgsim, because bgsim never imports bots.

``bearoff build`` builds (or rebuilds) the database files in the cache folder and says how
long each took; ``bearoff check`` compares them with GNU Backgammon's (gnubg-nn).
"""

from __future__ import annotations

import json
import sys
import time

from bgsim import Position
from bgsim.position_id import to_gnubg_board

# bgsim.bearoff (Numba) is imported by the handlers only, so that every other command starts
# without compiling or loading it.

KEYS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
SOURCES = {
    "two-sided": "two-sided bear-off database (exact, perfect play with the cube)",
    "one-sided": "one-sided bear-off database (exact convolution of both sides' roll counts)",
    "nn": "nn checker bot's neural net (an estimate, not exact)",
}


def register(subparsers) -> None:
    evaluate = subparsers.add_parser(
        "eval",
        help="the best evaluation bgsim has for a position (exact in bear-offs)",
        description="Cubeless chances and equity of the side on roll, and in positions of the "
        "two-sided bear-off database the exact money equities with the cube and the cube action. "
        "Positions outside the bear-off databases are evaluated by the nn bot when it is installed.",
    )
    evaluate.add_argument("position_id", metavar="ID", help="GNU Backgammon position ID, side on roll first")
    evaluate.add_argument("--json", action="store_true", help="print machine-readable JSON")
    evaluate.set_defaults(handler=run_eval)

    tables = subparsers.add_parser(
        "bearoff",
        help="build or check the bear-off databases",
        description="The exact bear-off databases bgsim eval reads: one-sided (up to 15 checkers) and "
        "two-sided with the cube.  They are kept in $BGSIM_CACHE, else the user cache folder, and built "
        "on first use; build makes them now (timed), check compares them with GNU Backgammon's.",
    )
    actions = tables.add_subparsers(dest="bearoff_action", metavar="ACTION", help="build or check")
    build = actions.add_parser(
        "build", help="build the databases into the cache folder, timed",
        description="Build whatever bear-off database is missing or stale (all of them with --force) "
        "and say how long each took and how big its file is.",
    )
    build.add_argument("--two-sided", type=int, default=None, metavar="N",
                       help="checkers a side in the two-sided database (default: the one eval uses)")
    build.add_argument("--force", action="store_true", help="rebuild even when the files are current")
    build.add_argument("--json", action="store_true", help="print machine-readable JSON")
    build.set_defaults(handler=run_build)
    check = actions.add_parser(
        "check", help="compare the databases with GNU Backgammon's (gnubg-nn)",
        description="Win chances of random pure bear-offs against gnubg_nn.probabilities, and every "
        "one-sided roll distribution against gnubg_nn.bearoff_probabilities; exits 1 on a difference "
        "it cannot explain.",
    )
    check.add_argument("--pairs", type=int, default=10000, metavar="N", help="random position pairs")
    check.add_argument("--seed", type=int, default=1, metavar="S")
    check.add_argument("--json", action="store_true", help="print machine-readable JSON")
    check.set_defaults(handler=run_check)
    tables.set_defaults(handler=lambda args: (tables.print_help(), 2)[1])


# --- eval ------------------------------------------------------------------------------------


def _nn_evaluate(position: Position):
    """The nn bot's cubeless probabilities, or None when that bot (or its net) is not installed."""
    try:
        from bots.registry import make_checker

        bot = make_checker("nn")
    except (ImportError, ValueError, OSError):
        return None
    evaluate = getattr(bot, "evaluate", None)
    return tuple(float(p) for p in evaluate(position)) if evaluate else None


def evaluation(position: Position) -> dict:
    """The answer of ``bgsim eval`` as a dict (the JSON keys); ValueError when there is none."""
    from bgsim import bearoff

    found = bearoff.evaluate(position)
    if found is not None:
        cubeful = found.cubeful
        epc = bearoff.effective_pip_counts(position)
        return {
            **dict(zip(KEYS, found.probabilities)),
            "equity": found.equity,
            "cubeful": None if cubeful is None else
            {"centred": cubeful.centred, "owned": cubeful.owned, "opponent": cubeful.opponent},
            "action": found.action,
            "source": found.source,
            "effective_pip_counts": {"own": epc[0], "opponent": epc[1]},
        }
    probabilities = _nn_evaluate(position)
    if probabilities is None:
        raise ValueError(
            f"no evaluation for {position.position_id}: only pure bear-offs are exact, and the nn "
            "bot that estimates other positions is not installed"
        )
    return {
        **dict(zip(KEYS, probabilities)),
        "equity": bearoff.cubeless_equity(probabilities),
        "cubeful": None,
        "action": None,
        "source": "nn",
        "effective_pip_counts": None,
    }


def run_eval(args) -> int:
    position = Position.from_string(args.position_id)
    if position.variant != "standard":
        raise ValueError(f"bgsim eval answers for the standard game, not {position.variant}")
    answer = evaluation(position)  # a finished game is a ValueError of bgsim.bearoff.evaluate
    if args.json:
        print(json.dumps({"position_id": position.position_id, **answer}, indent=2))
        return 0
    win = answer["win"]
    print(f"{position.position_id}, side on roll -- from the {SOURCES[answer['source']]}")
    print(f"  win  {100 * win:7.3f}%  gammon {100 * answer['win_gammon']:7.3f}%  "
          f"backgammon {100 * answer['win_backgammon']:7.3f}%")
    print(f"  lose {100 * (1 - win):7.3f}%  gammon {100 * answer['lose_gammon']:7.3f}%  "
          f"backgammon {100 * answer['lose_backgammon']:7.3f}%")
    print(f"  cubeless equity {answer['equity']:+.5f}")
    if answer["cubeful"]:
        cubeful = answer["cubeful"]
        print(f"  money equity with the cube: centred {cubeful['centred']:+.5f}, owned {cubeful['owned']:+.5f}, "
              f"opponent's {cubeful['opponent']:+.5f}")
        print(f"  cube action (centred cube): {answer['action']}")
    if answer["effective_pip_counts"]:
        epc = answer["effective_pip_counts"]
        print(f"  effective pip counts: {epc['own']:.2f} on roll, {epc['opponent']:.2f} opponent "
              f"(pip counts {position.pip_count}, {position.opponent_pip_count})")
    return 0


# --- bearoff build ---------------------------------------------------------------------------


def build_files(two_sided_checkers: int, force: bool) -> dict:
    """Build what is missing or stale (everything with ``force``); the seconds each took."""
    from bgsim.bearoff import database, store
    from bgsim.fast import bearoff as kernels

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


def run_build(args) -> int:
    from bgsim.bearoff import default_two_sided_checkers

    checkers = default_two_sided_checkers() if args.two_sided is None else args.two_sided
    report = build_files(checkers, args.force)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"bear-off databases in {report['folder']}")
    for entry in report["databases"]:
        how = "current, not rebuilt" if entry["build_s"] is None else f"built in {entry['build_s']:.1f} s"
        size = f"{entry['bytes'] / 2**20:.1f} MiB" if entry["bytes"] else "not written"
        print(f"  {entry['kind']:9} up to {entry['checkers']:2} checkers, {entry['positions']:,} positions a side: "
              f"{how}, {size}  {entry['file']}")
    return 0


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


def run_check(args) -> int:
    if args.pairs < 1:
        raise ValueError(f"--pairs must be at least 1, got {args.pairs}")
    summary = compare_with_gnubg(args.pairs, args.seed)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"bear-off databases against GNU Backgammon (gnubg-nn), {args.pairs:,} random pairs, seed {args.seed}, "
          f"tolerance {summary['tolerance']:g}")
    print(f"  one-sided roll distributions: {summary['one_sided_positions_with_other_distribution']} of 54,263 "
          f"positions differ (near-tie plays); mean rolls within {summary['worst_mean_rolls_difference']:.1e}")
    for kind in ("two-sided", "one-sided"):
        entry = summary[kind]
        print(f"  {kind} win chances: {entry['agree']:,} of {entry['pairs']:,} agree, largest difference "
              f"{entry['worst']:.1e}; GNU Backgammon's other distribution {entry['their_distribution']}, "
              f"its decided-race shortcut {entry['their_shortcut']}, unexplained {len(entry['unexplained'])}")
    gammon = summary["gammons"]
    print(f"  gammon chances (a side with 15 checkers): {gammon['agree']:,} of {gammon['pairs']:,} agree, "
          f"largest difference {gammon['worst']:.1e}")
    unexplained = summary["one-sided"]["unexplained"] + summary["two-sided"]["unexplained"]
    if unexplained:
        print(f"  unexplained differences: {' '.join(unexplained[:20])}", file=sys.stderr)
        return 1
    return 0


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
