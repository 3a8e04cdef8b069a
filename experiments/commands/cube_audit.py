"""``bgsim cube-audit``: every listed cube rule's money decisions against the truth: in races,
bgsim's (exact bear-off databases, else the labelled estimate); with ``--judge gnubg``, GNU
Backgammon's program in contact, races or both (bgsim's exact tables where they hold the
position).  The audit and its results folder are :func:`experiments.studies.cube_audit.run_audit`'s.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from experiments.commands.arguments import cube_rules_flag, gnubg_plies, run_folder_flags
from experiments.running.config import split_specs
from experiments.running.progress import duration
from experiments.studies.cube_audit import (ALL, ANY, BGSIM, CONTACT, DEFAULT_PLIES, GNUBG, RACE, Judging,
                                            check_judge, jacoby_conditions, run_audit)

# every rule the audit asks in contact, then the race rules, judged where they speak
GNUBG_PLAYERS = "pipdiff,nn,exact,always-take,never-take,keith,thorp,rule62,kleinman,isight,epc"


def register(subparsers) -> None:
    audit = subparsers.add_parser(
        "cube-audit",
        help="how often each cube rule errs, and what it costs (races; contact with --judge gnubg)",
        description="Sample positions from self-play games of --sampler (or read position IDs from "
        "--from), ask every cube rule of --players for its money decisions (first double, redouble, "
        "take) and compare them with the truth.  --judge bgsim (the default): race positions, the "
        "truth exact in the two-sided bear-off database, else an estimate (labelled).  --judge gnubg: "
        "GNU Backgammon's program at --plies judges positions in contact (--contact, the default), in "
        "races (--race) or both (--all); bgsim's exact tables stay the judge where they hold the "
        "position.  Writes decisions.parquet, truths.parquet, summary.csv, summary.md and a plot to --out.",
    )
    cube_rules_flag(audit, "pipdiff,keith,thorp,exact",
                    default=f"{GNUBG_PLAYERS} with --judge gnubg; required with --judge bgsim")
    audit.add_argument("--positions", type=int, default=10_000, metavar="N",
                       help="positions to sample (three decisions each per rule and condition; default 10000)")
    audit.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the sampling games")
    audit.add_argument("--sampler", default=None, metavar="CHECKER",
                       help="checker bot whose self-play gives the positions: nn (fast engine) or gnubg "
                       "(GNU Backgammon's net, reference engine, slow); default pubeval with --judge bgsim, "
                       "nn with --judge gnubg")
    audit.add_argument("--per-game", type=int, default=3, metavar="K",
                       help="at most K positions from each sampling game (default 3)")
    audit.add_argument("--from", dest="source", type=Path, default=None, metavar="FILE",
                       help="read position IDs (one a line) instead of sampling")
    audit.add_argument("--judge", default=BGSIM, metavar="JUDGE",
                       help="bgsim (exact tables, else estimates; races only) or gnubg (GNU Backgammon's "
                       "program, installed as gnubg)")
    audit.add_argument("--plies", default=None, metavar="N",
                       help=f"gnubg's evaluation depth, 0 to 4 (default {DEFAULT_PLIES}, its world-class setting)")
    scope = audit.add_mutually_exclusive_group()
    for name, value, text in ((CONTACT, CONTACT, "positions in contact (the default with --judge gnubg)"),
                              (RACE, RACE, "race positions (the only scope of --judge bgsim)"),
                              (ALL, ANY, "every position")):
        scope.add_argument(f"--{name}", dest="scope", action="store_const", const=value, help=text)
    audit.add_argument("--jacoby", default="off", metavar="RULE",
                       help="off (default), on, or both: the Jacoby rule as a second condition")
    audit.add_argument("--jobs", type=int, default=2, metavar="J",
                       help="gnubg processes at once (default 2; the answers do not depend on it)")
    audit.add_argument("--sweep", action="store_true",
                       help="charge the pip rule at a grid of thresholds on the same judged positions too")
    run_folder_flags(audit, "a run already")
    audit.set_defaults(handler=run)


def _command(args, specs: list[str], judging: Judging, sampler: str) -> list[str]:
    """The command that reproduces the run, rebuilt from the parsed flags (so it is known however
    bgsim was started: the ``bgsim`` script, ``python -m experiments`` or ``cli.main``)."""
    words = ["bgsim", "cube-audit", "--players", ",".join(specs)]
    if args.source is not None:
        words += ["--from", str(args.source)]
    else:
        words += ["--positions", str(args.positions), "--seed", str(args.seed), "--sampler", sampler,
                  "--per-game", str(args.per_game)]
    if not judging.classic:
        words += ["--judge", judging.judge]
        if judging.judge == GNUBG:
            words += ["--plies", str(judging.plies), f"--{ALL if judging.scope == ANY else judging.scope}",
                      "--jobs", str(judging.jobs)]
        words += ["--jacoby", judging.jacoby]
    if args.sweep:
        words.append("--sweep")
    return words + ["--out", str(args.out)]


def run(args) -> int:
    plies = gnubg_plies(args.plies)
    scope = args.scope or (CONTACT if args.judge == GNUBG else RACE)
    check_judge(args.judge, plies, scope)
    if args.plies is not None and args.judge != GNUBG:
        raise ValueError("--plies is gnubg's evaluation depth: it needs --judge gnubg")
    judging = Judging(args.judge, plies, scope, jacoby_conditions(args.jacoby), args.jobs)
    if args.players is None:
        if args.judge != GNUBG:
            raise ValueError("--players is required with --judge bgsim (e.g. pipdiff,keith,thorp,exact)")
        args.players = GNUBG_PLAYERS
    specs = split_specs(args.players)
    sampler = args.sampler or ("nn" if args.judge == GNUBG else "pubeval")
    if args.positions < 1:
        raise ValueError(f"--positions must be at least 1, got {args.positions}")
    if args.per_game < 1:
        raise ValueError(f"--per-game must be at least 1, got {args.per_game}")
    audit = run_audit(Path(args.out), specs, shlex.join(_command(args, specs, judging, sampler)), args.positions,
                      args.seed, sampler, args.per_game, args.source, args.resume, args.force,
                      not args.no_progress, lambda text: print(text, file=sys.stderr), judging, args.sweep)
    print(f"{len(audit.frame):,} decisions ({audit.positions:,} positions, {len(specs)} rules) in "
          f"{duration(audit.seconds)}; written to {audit.folder}")
    if judging.classic:
        overall = audit.summary[audit.summary["bucket"] == ALL]
        for row in overall.itertuples(index=False):
            print(f"  {row.sample:<7} {row.rule:<24} error rate {100 * row.error_rate:6.2f}%   equity lost "
                  f"{1000 * row.equity_lost:7.2f} ({1000 * row.equity_lost_low:.2f} .. "
                  f"{1000 * row.equity_lost_high:.2f}) thousandths per decision")
        return 0
    overall = audit.summary[(audit.summary["split"] == "all") & (audit.summary["kind"] != ALL)]
    for row in overall.itertuples(index=False):
        print(f"  {row.sample:<6} {row.condition:<9} {row.kind:<7} {row.rule:<24} error rate {100 * row.error_rate:6.2f}%   "
              f"equity lost {1000 * row.equity_lost:7.2f} ({1000 * row.equity_lost_low:.2f} .. "
              f"{1000 * row.equity_lost_high:.2f}) thousandths per decision")
    return 0
