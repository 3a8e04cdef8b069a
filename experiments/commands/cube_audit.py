"""``bgsim cube-audit``: every listed cube rule's money decisions in race positions against the
truth (exact bear-off databases, else the labelled estimate); the audit and its results folder
are :func:`experiments.studies.cube_audit.run_audit`'s.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from experiments.commands.arguments import (check_resume_force, cube_rules_flag, positions_flag, positive,
                                           refuse_given, run_folder_flags, seed_flag)
from experiments.running.config import split_specs
from experiments.running.folder import choose_folder
from experiments.running.progress import duration, phase_line
from experiments.stats import SMALL_SAMPLE
from experiments.studies.cube_audit import ALL, AUDIT, run_audit

DEFAULT_SAMPLER = "nn"  # the committed audit's (results/cube_audit/)
SAMPLING = ("positions", "seed", "sampler", "per_game")


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
    positions_flag(audit, "race positions to sample, three decisions each per rule", 10_000)
    seed_flag(audit, "seed of the sampling games")
    audit.add_argument("--sampler", default=DEFAULT_SAMPLER, metavar="CHECKER",
                       help=f"fast checker bot whose self-play gives the positions (default {DEFAULT_SAMPLER}, "
                       "as in results/cube_audit/)")
    audit.add_argument("--per-game", type=positive, default=3, metavar="K",
                       help="at most K race positions from each sampling game (default 3)")
    audit.add_argument("--from", dest="source", type=Path, default=None, metavar="FILE",
                       help="read position IDs (one a line) instead of sampling (default: sample)")
    run_folder_flags(audit, "a run already", "cube-audit")
    audit.set_defaults(handler=run)
    from experiments.commands.cube_audit_games import games_flag  # real games: a module of their own

    games_flag(audit)  # --games FILE: its handler replaces run


def _command(args, specs: list[str], out: Path) -> list[str]:
    """The command that reproduces the run, rebuilt from the parsed flags (so it is known however
    bgsim was started: the ``bgsim`` script, ``python -m experiments`` or ``cli.main``)."""
    words = ["bgsim", "cube-audit", "--players", ",".join(specs)]
    if args.source is not None:
        words += ["--from", str(args.source)]
    else:
        words += ["--positions", str(args.positions), "--seed", str(args.seed), "--sampler", args.sampler,
                  "--per-game", str(args.per_game)]
    return words + ["--out", str(out)]


def overall_lines(summary) -> list[str]:
    """Each rule's error rate and equity lost over all race lengths, a line each."""
    lines = []
    for row in summary[summary["bucket"] == ALL].itertuples(index=False):
        rough = f"  (only {row.units} units: rough)" if 0 < row.units < SMALL_SAMPLE else ""
        lines.append(f"  {row.sample:<7} {row.rule:<24} error rate {100 * row.error_rate:6.2f}%   equity lost "
                     f"{1000 * row.equity_lost:7.2f} ({1000 * row.equity_lost_low:.2f} .. "
                     f"{1000 * row.equity_lost_high:.2f}) thousandths per decision{rough}")
    return lines


def small_sample_warning(summary) -> str | None:
    """A line when the audit's units are too few for its intervals."""
    units = summary.loc[summary["bucket"] == ALL, "units"]
    if len(units) and 0 < units.max() < SMALL_SAMPLE:
        return (f"bgsim: warning: only {units.max()} independent units (sampling games or positions): "
                f"the 95% intervals need about {SMALL_SAMPLE} or more to mean what they say")
    return None


def run(args) -> int:
    check_resume_force(args)
    if args.source is not None:
        refuse_given(args, SAMPLING, "with --from", "the positions are read from the file, not sampled")
    specs = split_specs(args.players)
    out = choose_folder(args.out, "cube-audit", args.resume, AUDIT)
    log = (lambda text: print(text, file=sys.stderr, flush=True))
    audit = run_audit(out, specs, shlex.join(_command(args, specs, out)), args.positions, args.seed,
                      args.sampler, args.per_game, args.source, args.resume, args.force,
                      not args.no_progress, log)
    if audit.already_finished:
        log(f"{audit.folder} holds a finished audit: nothing left to do; its results:")
    print(f"{len(audit.frame):,} decisions ({audit.positions:,} positions x 3 x {len(specs)} rules) in "
          f"{duration(audit.seconds)} ({phase_line(audit.phases)}); written to {audit.folder}")
    print("\n".join(overall_lines(audit.summary)))
    warning = small_sample_warning(audit.summary)
    if warning:
        log(warning)
    return 0
