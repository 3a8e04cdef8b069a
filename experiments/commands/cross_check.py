"""``bgsim cross-check``: each race cube rule's cost against ``exact`` by two independent methods,
games played out and decisions judged; with ``--contact``, whole games against ``nn``'s cube judged
by GNU Backgammon.  The runs and their results folders are
:func:`experiments.studies.cross_check.run_cross_check`'s and ``run_contact_cross_check``'s.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from experiments.commands.arguments import (check_resume_force, cube_rules_flag, gnubg_plies, positions_flag,
                                           refuse_engines, run_folder_flags, seed_flag, threads_flag)
from experiments.running.config import split_specs
from experiments.running.folder import choose_folder
from experiments.running.progress import duration, phase_line
from experiments.stats import SMALL_SAMPLE
from experiments.studies.cross_check import CONTACT_CHECK, CROSS_CHECK, run_contact_cross_check, run_cross_check


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
    positions_flag(check, "bear-off starting positions, one per sampling game (with --contact: games from "
                   "the opening)", 2000, old="--starts")
    seed_flag(check, "seed of the sampling and played games")
    threads_flag(check, "processes sampling and playing the games, or with --contact gnubg processes judging "
                 "them; the results do not depend on it", old="--jobs")
    check.add_argument("--contact", action="store_true",
                       help="whole games from the opening against nn's cube, both sides' cube decisions "
                       "judged by GNU Backgammon's program (gnubg) instead of exact (default: bear-offs "
                       "against exact)")
    check.add_argument("--plies", default=None, metavar="N",
                       help="with --contact: gnubg's evaluation depth, 0 to 4 (default 0)")
    run_folder_flags(check, "a finished cross-check", "cross-check")
    check.set_defaults(handler=run)


def _thousandths(value: float) -> float:
    """Points a game in thousandths, rounded as printed: a judged equity of -1e-15 is zero, and
    prints as +0.00, never as -0.00."""
    return round(1000 * value, 2) + 0.0


def summary_lines(summary) -> list[str]:
    """Each rule's two methods and their difference, a line each."""
    return [f"  {row.rule:<34} A {_thousandths(row.played_out):+8.2f}  B {_thousandths(row.judged):+8.2f}  "
            f"A-B {_thousandths(row.difference):+7.2f} ({_thousandths(row.difference_low):+.2f} .. "
            f"{_thousandths(row.difference_high):+.2f}) thousandths a game: {row.verdict}"
            for row in summary.itertuples(index=False)]


def run(args) -> int:
    from experiments.running.machine import thread_limit

    check_resume_force(args)
    specs = split_specs(args.players)
    refuse_engines(specs, "a cross-check plays bgsim's cube rules on the fast engine; an external engine's cube "
                   "is judged by bgsim cube-audit --players ubgi:NAME")
    log = (lambda text: print(text, file=sys.stderr, flush=True))
    threads = args.threads or thread_limit()
    if args.contact:
        if args.resume:
            raise ValueError("--resume: a contact cross-check is not resumed: run it again with --force")
        plies = gnubg_plies("0" if args.plies is None else args.plies)
        out = choose_folder(args.out, "cross-check", False, CONTACT_CHECK)
        command = ["bgsim", "cross-check", "--contact", "--plies", str(plies), "--players", ",".join(specs),
                   "--positions", str(args.positions), "--seed", str(args.seed), "--threads", str(threads),
                   "--out", str(out)]
        check = run_contact_cross_check(Path(out), specs, shlex.join(command), args.positions, args.seed,
                                        plies, threads, args.force, not args.no_progress, log)
    else:
        if args.plies is not None:
            raise ValueError("--plies is gnubg's evaluation depth: it needs --contact")
        out = choose_folder(args.out, "cross-check", args.resume, CROSS_CHECK)
        command = ["bgsim", "cross-check", "--players", ",".join(specs), "--positions", str(args.positions),
                   "--seed", str(args.seed), "--threads", str(threads), "--out", str(out)]
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
