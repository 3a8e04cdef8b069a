"""``bgsim bench``: how fast the engines are, side by side in one process and one run; what is
measured and how is :mod:`experiments.studies.bench`'s.
"""

from __future__ import annotations

from experiments.commands.arguments import positive, refuse_given, seed_flag
from experiments.studies import bench
from experiments.studies.bench import RUNS


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="games/s and plies/s of both engines, move generations/s, compile times",
        description=bench.__doc__.split("\n\n")[0],
    )
    parser.add_argument("--games", type=positive, default=20000, metavar="N",
                        help="fast-engine games per measurement, at least 100 (others scale down; default 20000)")
    parser.add_argument("--rounds", type=positive, default=3, metavar="R",
                        help="interleaved rounds, best kept (default 3)")
    seed_flag(parser)
    parser.add_argument("--no-compile", action="store_true", help="skip the cold-compile and cached-start runs")
    parser.add_argument("--compile-only", action="store_true",
                        help="only the cold compile and cached start, of every standard run "
                             "(random, heuristic+pipdiff, nn+pipdiff vs heuristic), with --against's beside")
    parser.add_argument("--out", default=str(RUNS), metavar="DIR",
                        help=f"results folder of this run's JSON (default {RUNS}, which git ignores)")
    parser.add_argument("--compare", action="store_true",
                        help="compare with the committed results/bench/baseline.json and exit 1 on a slowdown beyond --margin")
    parser.add_argument("--margin", type=float, default=0.30, metavar="F",
                        help="allowed slowdown as a fraction for --compare (default 0.30)")
    parser.add_argument("--write-baseline", action="store_true", help="also write the committed results/bench/baseline.json")
    parser.add_argument("--profile", action="store_true",
                        help="also take the game loop apart by phase and the cold compile by kernel "
                             "(profile-<time>.md beside the JSON)")
    parser.add_argument("--against", metavar="PYTHON",
                        help="another checkout's Python (its .venv/bin/python): its engine in the same rounds "
                             "(default: this checkout alone)")
    parser.set_defaults(handler=run_bench)


def run_bench(args) -> int:
    if args.games < 100:
        raise ValueError(f"--games must be at least 100, got {args.games}")
    if not args.compare:
        refuse_given(args, ("margin",), "without --compare", "it is the slowdown --compare allows")
    if not 0 < args.margin < 1:
        raise ValueError(f"--margin is a fraction between 0 and 1, got {args.margin}")
    if args.compile_only:
        if args.no_compile:
            raise ValueError("--compile-only and --no-compile ask for opposite things: give one")
        refuse_given(args, ("games", "rounds", "compare", "write_baseline", "profile"), "with --compile-only",
                     "no game is timed")
        return bench.run_compile_bench(args.out, args.against)
    return bench.run_bench(args.games, args.rounds, args.seed, not args.no_compile, args.out, args.compare,
                           args.margin, args.write_baseline, args.profile, args.against)
