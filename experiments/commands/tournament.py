"""``bgsim tournament``, ``bgsim run FILE`` and ``bgsim report DIR``: experiments from files."""

from __future__ import annotations

import sys
from pathlib import Path

from experiments.commands.arguments import positive, seed


def register(subparsers) -> None:
    tournament = subparsers.add_parser(
        "tournament", help="run the default cube-strategy tournament (experiments/default.toml)",
        description="Run the default experiment: the pip-difference cube rule against its variants.")
    _shared_flags(tournament)
    tournament.set_defaults(handler=run_tournament)

    run = subparsers.add_parser(
        "run", help="run an experiment file (experiments/NAME.toml)",
        description="Run the experiment in FILE (a TOML file, or the NAME of one shipped in experiments/).")
    run.add_argument("file", metavar="FILE", help="an experiment file (TOML), or the NAME of one in experiments/")
    _shared_flags(run)
    run.set_defaults(handler=run_file)

    report = subparsers.add_parser(
        "report", help="rebuild a finished run's summaries and plots from its games.parquet",
        description="Rebuild summary.md, summary.csv and the plots of a finished run (a `bgsim run` "
        "or `bgsim tournament` results folder) from its games.parquet alone; given the Parquet "
        "file of `bgsim play`, print its summary.")
    report.add_argument("folder", metavar="DIR-or-FILE",
                        help="a results folder, or a .parquet file written by bgsim play")
    report.set_defaults(handler=run_report)


def _shared_flags(parser) -> None:
    parser.add_argument("--games", type=positive, metavar="N", help="deals per pairing (each is played with both seatings)")
    parser.add_argument("--seed", type=seed, metavar="S", help="run seed (0 to 2**63-1)")
    parser.add_argument("--out", metavar="DIR", help="results folder (default results/runs/NAME-TIMESTAMP)")
    parser.add_argument("--threads", type=positive, metavar="N", help="threads for the fast engine (default: every core)")
    parser.add_argument("--engine", choices=("auto", "fast", "reference"), help="engine (default: the file's)")
    parser.add_argument("--chunk", type=positive, metavar="N", help="deals per chunk file (the unit of resume and Dask)")
    parser.add_argument("--dask", metavar="ADDRESS", help="play chunks on Dask: local, local:N or tcp://HOST:PORT")
    parser.add_argument("--resume", action="store_true", help="finish an interrupted run (its --out, or the latest one)")
    parser.add_argument("--force", action="store_true", help="replace a finished or unfinished run in --out")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_tournament(args) -> int:
    from experiments.running.config import DEFAULT_EXPERIMENT

    return _run(DEFAULT_EXPERIMENT, args)


def run_file(args) -> int:
    from experiments.running.config import experiment_file

    return _run(experiment_file(args.file), args)


def _run(path: Path, args) -> int:
    from experiments.running.config import load_experiment
    from experiments.running.machine import cap_threads
    from experiments.studies.experiment import run_experiment

    if args.resume and args.force:
        raise ValueError("--resume finishes a run and --force starts it again: choose one")
    threads = cap_threads(args.threads, lambda text: print(text, file=sys.stderr, flush=True))
    overrides = {"games": args.games, "seed": args.seed, "threads": threads,
                 "engine": args.engine, "chunk": args.chunk}
    experiment = load_experiment(path, overrides)
    result = run_experiment(experiment, args.out, resume=args.resume, force=args.force, dask=args.dask,
                            progress=not args.no_progress, command=_command(args))
    print(result.report.text)
    made = "summary.md, summary.csv, games.parquet" + ("" if experiment.chouette else ", plots")
    print(f"Results: {result.folder}/ ({made})")
    return 0


def _command(args) -> list[str]:
    """The command as typed, rebuilt from the parsed flags (for run.json and resume hints)."""
    words = ["bgsim", args.command] + ([args.file] if args.command == "run" else [])
    for flag in ("games", "seed", "out", "threads", "engine", "chunk", "dask"):
        value = getattr(args, flag)
        if value is not None:
            words += [f"--{flag}", str(value)]
    words += [flag for flag in ("--resume", "--force", "--no-progress") if getattr(args, flag[2:].replace("-", "_"))]
    return words


def run_report(args) -> int:
    from experiments.analysis.report import report_again

    print(report_again(Path(args.folder)))
    return 0
