"""``bgsim cube-audit``: every listed cube rule's money decisions in race positions against the
truth (exact bear-off databases, else the labelled estimate); the audit and its results folder
are :func:`experiments.studies.cube_audit.run_audit`'s.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from experiments.commands.arguments import cube_rules_flag, run_folder_flags
from experiments.running.config import split_specs
from experiments.running.progress import duration
from experiments.studies.cube_audit import ALL, run_audit


def register(subparsers) -> None:
    audit = subparsers.add_parser(
        "cube-audit",
        help="how often each cube rule errs in races, and what it costs",
        description="Sample race positions (no contact) from fast-engine games of --sampler, or read "
        "position IDs from --from, ask every cube rule of --players for its money decisions (first "
        "double, redouble, take) and compare them with the truth: exact in the two-sided bear-off "
        "database, else an estimate (labelled).  Writes decisions.parquet, summary.csv, summary.md "
        "and a plot to --out.",
    )
    cube_rules_flag(audit, "pipdiff,keith,thorp,exact")
    audit.add_argument("--positions", type=int, default=10_000, metavar="N",
                       help="race positions to sample (three decisions each per rule; default 10000)")
    audit.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the sampling games")
    audit.add_argument("--sampler", default="pubeval", metavar="CHECKER",
                       help="fast checker bot whose games give the positions (default pubeval)")
    audit.add_argument("--per-game", type=int, default=3, metavar="K",
                       help="at most K race positions from each sampling game (default 3)")
    audit.add_argument("--from", dest="source", type=Path, default=None, metavar="FILE",
                       help="read position IDs (one a line) instead of sampling")
    run_folder_flags(audit, "a run already")
    audit.set_defaults(handler=run)
    from experiments.commands.cube_audit_games import games_flag  # real games: a module of their own

    games_flag(audit)  # --games FILE: its handler replaces run


def _command(args, specs: list[str]) -> list[str]:
    """The command that reproduces the run, rebuilt from the parsed flags (so it is known however
    bgsim was started: the ``bgsim`` script, ``python -m experiments`` or ``cli.main``)."""
    words = ["bgsim", "cube-audit", "--players", ",".join(specs)]
    if args.source is not None:
        words += ["--from", str(args.source)]
    else:
        words += ["--positions", str(args.positions), "--seed", str(args.seed), "--sampler", args.sampler,
                  "--per-game", str(args.per_game)]
    return words + ["--out", str(args.out)]


def run(args) -> int:
    specs = split_specs(args.players)
    if args.positions < 1:
        raise ValueError(f"--positions must be at least 1, got {args.positions}")
    if args.per_game < 1:
        raise ValueError(f"--per-game must be at least 1, got {args.per_game}")
    audit = run_audit(Path(args.out), specs, shlex.join(_command(args, specs)), args.positions, args.seed,
                      args.sampler, args.per_game, args.source, args.resume, args.force,
                      not args.no_progress, lambda text: print(text, file=sys.stderr))
    overall = audit.summary[audit.summary["bucket"] == ALL]
    print(f"{len(audit.frame):,} decisions ({audit.positions:,} positions x 3 x {len(specs)} rules) in "
          f"{duration(audit.seconds)}; written to {audit.folder}")
    for row in overall.itertuples(index=False):
        print(f"  {row.sample:<7} {row.rule:<24} error rate {100 * row.error_rate:6.2f}%   equity lost "
              f"{1000 * row.equity_lost:7.2f} ({1000 * row.equity_lost_low:.2f} .. "
              f"{1000 * row.equity_lost_high:.2f}) thousandths per decision")
    return 0
