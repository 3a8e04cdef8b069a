"""``bgsim cube-audit``: every listed cube rule's money decisions against the truth: in races,
bgsim's (exact bear-off databases, else the labelled estimate); with ``--judge gnubg``, GNU
Backgammon's program in contact, races or both (bgsim's exact tables where they hold the
position).  The audit and its results folder are :func:`experiments.studies.cube_audit.run_audit`'s.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from experiments.commands.arguments import (check_resume_force, cube_rules_flag, engines_flag, gnubg_plies,
                                           non_negative,
                                           positions_flag, positive, refuse_given, run_folder_flags, seed_flag,
                                           threads_flag)
from experiments.running.config import split_specs
from experiments.running.folder import choose_folder
from experiments.running.machine import thread_limit
from experiments.running.progress import duration, phase_line
from experiments.stats import SMALL_SAMPLE
from experiments.studies.cube_audit import (ALL, ANY, AUDIT, BGSIM, CONTACT, DEFAULT_PLIES, EXACT, GNUBG, RACE,
                                            Judging, check_judge, jacoby_conditions, run_audit)

DEFAULT_SAMPLER = "nn"  # the committed audits' (results/cube_audit/, results/cube_audit_contact/)
SAMPLING = ("positions", "seed", "sampler", "per_game")
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
    positions_flag(audit, "positions to sample, three decisions each per rule and condition", 10_000)
    seed_flag(audit, "seed of the sampling games")
    audit.add_argument("--sampler", default=DEFAULT_SAMPLER, metavar="CHECKER",
                       help=f"checker bot whose self-play gives the positions (default {DEFAULT_SAMPLER}, fast "
                       "engine, as in the committed audits); with --judge gnubg also a bot without a fast "
                       "kernel, such as gnubg (GNU Backgammon's net), played in the reference engine (slow)")
    audit.add_argument("--per-game", type=positive, default=3, metavar="K",
                       help="at most K positions from each sampling game (default 3)")
    audit.add_argument("--from", dest="source", type=Path, default=None, metavar="FILE",
                       help="read position IDs (one a line) instead of sampling (default: sample)")
    audit.add_argument("--judge", default=BGSIM, metavar="JUDGE",
                       help="bgsim (exact tables, else estimates; races only; the default) or gnubg (GNU "
                       "Backgammon's program, installed as gnubg)")
    audit.add_argument("--plies", default=None, metavar="N",
                       help=f"with --judge gnubg: its evaluation depth, 0 to 4 (default {DEFAULT_PLIES}, "
                       "its world-class setting)")
    scope = audit.add_mutually_exclusive_group()
    for name, value, text in ((CONTACT, CONTACT, "positions in contact (the default with --judge gnubg)"),
                              (RACE, RACE, "race positions (the only scope of --judge bgsim)"),
                              (ALL, ANY, "every position")):
        scope.add_argument(f"--{name}", dest="scope", action="store_const", const=value, help=text)
    audit.add_argument("--jacoby", default="off", metavar="RULE",
                       help="off (default), on, or both: the Jacoby rule as a second condition")
    audit.add_argument("--variant", default=None, metavar="NAME",
                       help="hypergammon1, hypergammon2 or hypergammon3: positions of that game from --sampler's "
                       "games of it, every one judged by its exact solution (--judge exact, every position: "
                       "contact and race apart; default: the standard game)")
    audit.add_argument("--rollouts", type=non_negative, default=0, metavar="M",
                       help="with --variant: roll out M contact positions of the sample with exact and with nn and "
                       "see how often the rollouts' 95%% intervals hold the exact chances (default 0: none)")
    audit.add_argument("--rollout-games", type=positive, default=1296, metavar="N",
                       help="with --rollouts: trials a rollout (default 1296)")
    threads_flag(audit, "with --judge gnubg: its processes at once (the answers do not depend on it)")
    audit.add_argument("--sweep", action="store_true",
                       help="charge the pip rule at a grid of thresholds on the same judged positions too "
                       "(with --judge gnubg or --jacoby; default: no sweep)")
    run_folder_flags(audit, "a run already", "cube-audit")
    engines_flag(audit)
    audit.set_defaults(handler=run)
    from experiments.commands.cube_audit_games import games_flag  # real games: a module of their own

    games_flag(audit)  # --games FILE: its handler replaces run


def _command(args, specs: list[str], judging: Judging, out: Path) -> list[str]:
    """The command that reproduces the run, rebuilt from the parsed flags (so it is known however
    bgsim was started: the ``bgsim`` script, ``python -m experiments`` or ``cli.main``)."""
    words = ["bgsim", "cube-audit", "--players", ",".join(specs)]
    if args.source is not None:
        words += ["--from", str(args.source)]
    else:
        words += ["--positions", str(args.positions), "--seed", str(args.seed), "--sampler", args.sampler,
                  "--per-game", str(args.per_game)]
    if judging.variant != "standard":
        words += ["--variant", judging.variant, f"--{ALL if judging.scope == ANY else judging.scope}"]
        if judging.rollouts:
            words += ["--rollouts", str(judging.rollouts), "--rollout-games", str(judging.rollout_games)]
    if not judging.classic:
        words += ["--judge", judging.judge]
        if judging.judge == GNUBG:
            words += ["--plies", str(judging.plies), f"--{ALL if judging.scope == ANY else judging.scope}",
                      "--threads", str(judging.jobs)]
        words += ["--jacoby", judging.jacoby]
    if args.sweep:
        words.append("--sweep")
    return words + ["--out", str(out)]


def _rule_name(spec: str) -> str:
    """The name a rule's decisions go under in the audit's rows."""
    from experiments.studies.cube_audit import make_rules

    return make_rules([spec])[0].name


def overall_lines(summary) -> list[str]:
    """Each rule's error rate and equity lost over all race lengths, a line each."""
    lines = []
    for row in summary[summary["bucket"] == ALL].itertuples(index=False):
        rough = f"  (only {row.units} units: rough)" if 0 < row.units < SMALL_SAMPLE else ""
        lines.append(f"  {row.sample:<7} {row.rule:<24} error rate {100 * row.error_rate:6.2f}%   equity lost "
                     f"{1000 * row.equity_lost:7.2f} ({1000 * row.equity_lost_low:.2f} .. "
                     f"{1000 * row.equity_lost_high:.2f}) thousandths per decision{rough}")
    return lines


def judged_lines(summary) -> list[str]:
    """Each rule's error rate and equity lost in each kind of position and condition, a line each
    (an audit judged by gnubg, or under the Jacoby rule)."""
    lines = []
    for row in summary[(summary["split"] == "all") & (summary["kind"] != ALL)].itertuples(index=False):
        rough = f"  (only {row.units} units: rough)" if 0 < row.units < SMALL_SAMPLE else ""
        lines.append(f"  {row.sample:<6} {row.condition:<9} {row.kind:<7} {row.rule:<24} error rate "
                     f"{100 * row.error_rate:6.2f}%   equity lost {1000 * row.equity_lost:7.2f} "
                     f"({1000 * row.equity_lost_low:.2f} .. {1000 * row.equity_lost_high:.2f}) thousandths "
                     f"per decision{rough}")
    return lines


def small_sample_warning(summary) -> str | None:
    """A line when the audit's units are too few for its intervals."""
    overall = summary["bucket"] == ALL if "bucket" in summary else summary["split"] == "all"
    units = summary.loc[overall, "units"]
    if len(units) and 0 < units.max() < SMALL_SAMPLE:
        return (f"bgsim: warning: only {units.max()} independent units (sampling games or positions): "
                f"the 95% intervals need about {SMALL_SAMPLE} or more to mean what they say")
    return None


def judging_from_args(args) -> Judging:
    """How the audit judges, from the flags; each flag that would do nothing is refused."""
    if args.variant is not None:
        from experiments.commands.hypergammon import hypergammon_checkers

        hypergammon_checkers(args.variant)  # a game without a solution: its one line
        if args.judge not in (BGSIM, EXACT):  # BGSIM: the flag's default, not given
            raise ValueError(f"--variant {args.variant} is judged by its exact solution (--judge exact), not {args.judge}")
        if args.plies is not None:
            raise ValueError("--plies is gnubg's evaluation depth: a hypergammon audit is judged exactly")
        refuse_given(args, ["threads"], f"with --variant {args.variant}", "its solution judges in this process")
        if not args.rollouts:
            refuse_given(args, ["rollout_games"], "without --rollouts", "no position is rolled out")
        return Judging(EXACT, None, args.scope or ANY, jacoby_conditions(args.jacoby), 1, args.variant,
                       args.rollouts, args.rollout_games)
    refuse_given(args, ["rollouts", "rollout_games"], "without --variant",
                 "only hypergammon's solution knows the chances the rollouts estimate")
    if args.judge == EXACT:
        raise ValueError("--judge exact is hypergammon's solution: it needs --variant hypergammonN")
    plies = gnubg_plies(args.plies)
    scope = args.scope or (CONTACT if args.judge == GNUBG else RACE)
    check_judge(args.judge, plies, scope)
    if args.judge != GNUBG:
        if args.plies is not None:
            raise ValueError("--plies is gnubg's evaluation depth: it needs --judge gnubg")
        refuse_given(args, ["threads"], "without --judge gnubg", "bgsim judges in this process")
    conditions = jacoby_conditions(args.jacoby)
    judging = Judging(args.judge, plies, scope, conditions, args.threads or thread_limit())
    if judging.classic:
        refuse_given(args, ["sweep"], "in the race audit judged by bgsim without --jacoby",
                     "its summary has no threshold sweep (use --judge gnubg)")
    return judging


def run(args) -> int:
    check_resume_force(args)
    judging = judging_from_args(args)
    if args.source is not None:
        refuse_given(args, SAMPLING, "with --from", "the positions are read from the file, not sampled")
    if args.players is None:
        if args.judge != GNUBG and judging.judge != EXACT:
            raise ValueError("--players is required with --judge bgsim (e.g. pipdiff,keith,thorp,exact)")
        args.players = GNUBG_PLAYERS
    specs = split_specs(args.players)
    if any(spec.startswith("ubgi:") for spec in specs):  # engines judged as cube rules: declared first
        from experiments.running.engines import engine_players, engine_table

        engine_players(engine_table(args.engines))
    out = choose_folder(args.out, "cube-audit", args.resume, AUDIT)
    log = (lambda text: print(text, file=sys.stderr, flush=True))
    audit = run_audit(out, specs, shlex.join(_command(args, specs, judging, out)), args.positions, args.seed,
                      args.sampler, args.per_game, args.source, args.resume, args.force,
                      not args.no_progress, log, judging, args.sweep)
    if audit.already_finished:
        log(f"{audit.folder} holds a finished audit: nothing left to do; its results:")
    spoke = set(audit.frame["rule"].astype(str)) if len(audit.frame) else set()
    silent = [spec for spec in specs if _rule_name(spec) not in spoke]
    if silent:
        where = {CONTACT: "in contact", RACE: "in races"}.get(judging.scope, "here")
        log(f"bgsim: warning: {', '.join(silent)} gave no decision: {'it speaks' if len(silent) == 1 else 'they speak'} "
            f"in races only, and every position judged is {where}" if judging.scope == CONTACT else
            f"bgsim: warning: {', '.join(silent)} gave no decision on these positions")
    print(f"{len(audit.frame):,} decisions ({audit.positions:,} positions, {len(specs) - len(silent)} rules"
          + (f"; {len(silent)} more gave none" if silent else "") + ") in "
          f"{duration(audit.seconds)} ({phase_line(audit.phases)}); written to {audit.folder}")
    print("\n".join(overall_lines(audit.summary) if judging.classic else judged_lines(audit.summary)))
    warning = small_sample_warning(audit.summary)
    if warning:
        log(warning)
    return 0
