"""``bgsim cube-audit --games FILE``: the cube decisions of real games judged as the audit judges
a rule's (:mod:`experiments.studies.cube_audit_games`).

The flag joins ``bgsim cube-audit``'s own (:func:`games_flag`); given, it hands the command to
:func:`run_games` instead of the sampling audit, so the audit's module needs only the one line
that adds it.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from experiments.running.config import split_specs
from experiments.running.progress import duration


# the flags the games audit reads; every other flag of cube-audit belongs to the sampling audit
GAMES_FLAGS = {"games", "players", "out", "force", "resume", "no_progress", "handler", "command"}
FLAG_NAMES = {"source": "--from", "scope": "--contact, --race or --all"}  # flags named unlike their dest


class _GamesAction(argparse.Action):
    """Store the file and make the games audit the command's handler; remember the command's
    own defaults, so that a sampling flag given beside --games is refused, not ignored."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, Path(values))
        namespace.handler = run_games
        namespace.sampling_defaults = {dest: value for dest, value in vars(
            parser.parse_args(["--players", "-", "--out", "-"])).items() if dest not in GAMES_FLAGS}


def games_flag(parser) -> None:
    from experiments.studies.cube_audit_games import DEFAULT_RULES

    parser.add_argument(
        "--games", action=_GamesAction, default=None, metavar="FILE",
        help="audit the cube decisions of real games instead: a .mat or SGF match file (replayed through "
        "the rules) or the rows of `bgsim import --out` (.parquet); each decision judged as a rule's "
        "(money: exact two-sided bear-offs, else labelled estimates; matches: the exact match tables, "
        "else estimates at the score, in EMG), with what each rule of --players "
        f"(e.g. {','.join(DEFAULT_RULES)}) would have done beside it; the players' error rates and "
        "equity lost with 95%% intervals over games (default: no file, the audit of sampled positions)")


def _command(args, specs: list[str], out: Path) -> list[str]:
    return ["bgsim", "cube-audit", "--games", str(args.games), "--players", ",".join(specs), "--out", str(out)]


def run_games(args) -> int:
    from experiments.running.folder import choose_folder
    from experiments.studies.cube_audit_games import DEFAULT_RULES, GAMES_AUDIT, run_games_audit, span

    if getattr(args, "resume", False):
        raise ValueError("--resume: an audit of games is not resumed (it takes seconds): run it again with --force")
    for dest, default in getattr(args, "sampling_defaults", {}).items():
        if getattr(args, dest, default) != default:
            flag = FLAG_NAMES.get(dest, f"--{dest.replace('_', '-')}")
            raise ValueError(f"{flag} belongs to the audit of sampled positions: it means nothing with --games")
    specs = split_specs(args.players) if args.players else list(DEFAULT_RULES)
    out = choose_folder(args.out, "cube-audit", False, GAMES_AUDIT)  # run_folder_flags: --out may be left out
    audit = run_games_audit(args.games, out, specs, shlex.join(_command(args, specs, out)), args.force)
    for problem in audit.games.problems:
        print(problem, file=sys.stderr)
    players = audit.summary[(audit.summary["role"] == "player") & (audit.summary["part"] == "all")]
    unit = "EMG" if audit.games.match_to else "points"
    decisions = int(players["decisions"].sum())
    print(f"{decisions:,} cube decisions in {audit.frame['game'].nunique()} of {audit.games.rows['game'].nunique()} "
          "games judged in "
          f"{duration(audit.seconds)}; written to {audit.folder}")
    for row in audit.summary[audit.summary["part"] == "all"].itertuples(index=False):
        print(f"  {row.role:<6} {row.decider:<24} {row.decisions:5,} decisions  error rate "
              f"{100 * row.error_rate:5.1f}% ({span(row.error_rate_low, row.error_rate_high, 100)})  lost "
              f"{1000 * row.equity_lost:6.1f} ({span(row.equity_lost_low, row.equity_lost_high, 1000)}) "
              f"thousandths of {unit} per decision")
    if audit.games.problems:
        print(f"bgsim: {len(audit.games.problems)} problems in {args.games}: the sound games were audited",
              file=sys.stderr)
        return 2
    return 0


__all__ = ["games_flag", "run_games"]
