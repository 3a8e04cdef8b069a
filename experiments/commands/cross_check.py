"""``bgsim cross-check``: each race cube rule's cost against ``exact`` by two independent methods,
games played out and decisions judged; the run and its results folder are
:func:`experiments.studies.cross_check.run_cross_check`'s.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from experiments.commands.arguments import (check_resume_force, cube_rules_flag, positions_flag, run_folder_flags,
                                           seed_flag, threads_flag)
from experiments.running.config import split_specs
from experiments.running.folder import choose_folder
from experiments.running.progress import duration, phase_line
from experiments.stats import SMALL_SAMPLE
from experiments.studies.cross_check import CROSS_CHECK, run_cross_check


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
    positions_flag(check, "bear-off starting positions, one per sampling game", 2000, old="--starts")
    seed_flag(check, "seed of the sampling and played games")
    threads_flag(check, "processes sampling and playing the games; the results do not depend on it", old="--jobs")
    run_folder_flags(check, "a finished cross-check", "cross-check")
    check.set_defaults(handler=run)


def summary_lines(summary) -> list[str]:
    """Each rule's two methods and their difference, a line each."""
    return [f"  {row.rule:<34} A {1000 * row.played_out:+8.2f}  B {1000 * row.judged:+8.2f}  "
            f"A-B {1000 * row.difference:+7.2f} ({1000 * row.difference_low:+.2f} .. "
            f"{1000 * row.difference_high:+.2f}) thousandths a game: {row.verdict}"
            for row in summary.itertuples(index=False)]


def run(args) -> int:
    from experiments.running.machine import thread_limit

    check_resume_force(args)
    specs = split_specs(args.players)
    out = choose_folder(args.out, "cross-check", args.resume, CROSS_CHECK)
    threads = args.threads or thread_limit()
    command = ["bgsim", "cross-check", "--players", ",".join(specs), "--positions", str(args.positions),
               "--seed", str(args.seed), "--threads", str(threads), "--out", str(out)]
    log = (lambda text: print(text, file=sys.stderr, flush=True))
    check = run_cross_check(Path(out), specs, shlex.join(command), args.positions, args.seed, threads,
                            args.force, not args.no_progress, log, resume=args.resume)
    if check.already_finished:
        log(f"{check.folder} holds a finished cross-check: nothing left to play; its results:")
    print(f"{check.played:,} games ({check.starts:,} starts) in {duration(check.seconds)} "
          f"({phase_line(check.phases)}); written to {check.folder}")
    print("\n".join(summary_lines(check.summary)))
    if check.starts < SMALL_SAMPLE:
        log(f"bgsim: warning: only {check.starts} starts: the 95% intervals need about {SMALL_SAMPLE} or more "
            "to mean what they say, so read the verdicts as rough")
    return 0
