"""``bgsim cross-check``: each race cube rule's cost against ``exact`` by two independent methods,
games played out and decisions judged; the run and its results folder are
:func:`experiments.studies.cross_check.run_cross_check`'s.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from bgsim.dice import check_seed
from experiments.commands.arguments import cube_rules_flag, run_folder_flags
from experiments.running.config import split_specs
from experiments.running.progress import duration
from experiments.studies.cross_check import run_cross_check


def register(subparsers) -> None:
    check = subparsers.add_parser(
        "cross-check",
        help="each race cube rule's cost against exact, played out and judged: one number twice",
        description="From pure bear-offs in the two-sided database (sampled from nn self-play), play "
        "every cube rule of --players against exact and exact against itself on the same dice, in "
        "both seatings, and compare the payoff (played out) with the equity the audit charges the "
        "rule's decisions in those games (judged).  Writes cross_check.csv, cross_check.md, "
        "games.parquet and run.json to --out.",
    )
    cube_rules_flag(check, "pipdiff,keith,thorp,rule62")
    check.add_argument("--starts", type=int, default=2000, metavar="N",
                       help="bear-off starts, one per sampling game (default 2000)")
    check.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the sampling and played games")
    check.add_argument("--jobs", type=int, default=1, metavar="J",
                       help="processes playing the games (default 1; the results do not depend on it)")
    run_folder_flags(check, "a finished cross-check", resumes=False)
    check.set_defaults(handler=run)


def run(args) -> int:
    specs = split_specs(args.players)
    if args.starts < 1:
        raise ValueError(f"--starts must be at least 1, got {args.starts}")
    check_seed(args.seed)
    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    command = ["bgsim", "cross-check", "--players", ",".join(specs), "--starts", str(args.starts),
               "--seed", str(args.seed), "--jobs", str(args.jobs), "--out", str(args.out)]
    check = run_cross_check(Path(args.out), specs, shlex.join(command), args.starts, args.seed, args.jobs,
                            args.force, not args.no_progress, lambda text: print(text, file=sys.stderr))
    print(f"{check.played:,} games ({check.starts:,} starts) in {duration(check.seconds)}; written to {check.folder}")
    for row in check.summary.itertuples(index=False):
        print(f"  {row.rule:<34} A {1000 * row.played_out:+8.2f}  B {1000 * row.judged:+8.2f}  "
              f"A-B {1000 * row.difference:+7.2f} ({1000 * row.difference_low:+.2f} .. "
              f"{1000 * row.difference_high:+.2f}) thousandths a game: {row.verdict}")
    return 0
