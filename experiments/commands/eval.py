"""``bgsim eval``: the best answer bgsim has for a position (:mod:`experiments.analysis.evaluation`);
``bgsim bearoff``: its databases built and checked (:mod:`experiments.studies.bearoff`).
"""

from __future__ import annotations

import json
import sys

from bgsim import Position
from bgsim.interchange.xgid import xgid_of
from experiments.analysis.evaluation import SOURCES, evaluation
from experiments.commands.arguments import json_flag, positions_flag, positive, seed_flag
from experiments.studies.bearoff import build_files, compare_with_gnubg


def register(subparsers) -> None:
    evaluate = subparsers.add_parser(
        "eval",
        help="the best evaluation bgsim has for a position (exact in bear-offs)",
        description="Cubeless chances and equity of the side on roll, and in positions of the "
        "two-sided bear-off database the exact money equities with the cube and the cube action. "
        "Positions outside the bear-off databases are evaluated by the nn bot when it is installed.",
    )
    evaluate.add_argument("position_id", metavar="ID",
                          help="GNU Backgammon position ID (side on roll first) or an XGID")
    json_flag(evaluate)
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
    build.add_argument("--two-sided", type=positive, default=None, metavar="N",
                       help="checkers a side in the two-sided database, 1 to 10 (default: the one eval uses, "
                       "$BGSIM_BEAROFF_CHECKERS or 8)")
    build.add_argument("--force", action="store_true", help="rebuild even when the files are current")
    json_flag(build)
    build.set_defaults(handler=run_build)
    check = actions.add_parser(
        "check", help="compare the databases with GNU Backgammon's (gnubg-nn)",
        description="Win chances of random pure bear-offs against gnubg_nn.probabilities, and every "
        "one-sided roll distribution against gnubg_nn.bearoff_probabilities; exits 1 on a difference "
        "it cannot explain.",
    )
    positions_flag(check, "random pairs of bear-off positions whose win chances are compared", 10000, old="--pairs")
    seed_flag(check, "seed of the random pairs")
    json_flag(check)
    check.set_defaults(handler=run_check)
    tables.set_defaults(handler=lambda args: (tables.print_help(), 2)[1])


def run_eval(args) -> int:
    from bgsim.interchange.xgid import read_position_text

    position, _ = read_position_text(args.position_id)
    if position.variant != "standard":
        raise ValueError(f"bgsim eval answers for the standard game, not {position.variant}")
    answer = evaluation(position)  # a finished game is a ValueError of bgsim.bearoff.evaluate
    if args.json:
        print(json.dumps({"position_id": position.position_id, "xgid": xgid_of(position), **answer}, indent=2))
        return 0
    win = answer["win"]
    print(f"{position.position_id} ({xgid_of(position)}), side on roll -- from the {SOURCES[answer['source']]}")
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


def run_build(args) -> int:
    from bgsim.bearoff import default_two_sided_checkers

    checkers = default_two_sided_checkers() if args.two_sided is None else args.two_sided
    report = build_files(checkers, args.force, lambda text: print(text, file=sys.stderr, flush=True))
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


def run_check(args) -> int:
    summary = compare_with_gnubg(args.positions, args.seed)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"bear-off databases against GNU Backgammon (gnubg-nn), {args.positions:,} random pairs, seed {args.seed}, "
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
