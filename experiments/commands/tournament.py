"""``bgsim tournament`` and ``bgsim run FILE``: experiments from files (``bgsim report DIR``
summarises their folders again: ``experiments/commands/report.py``)."""

from __future__ import annotations

from pathlib import Path

from experiments.commands.arguments import (check_resume_force, engines_flag, positive, progress_flag,
                                            refuse_threads_on_reference, seed, threads_flag)


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


def _shared_flags(parser) -> None:
    parser.add_argument("--games", type=positive, metavar="N",
                        help="deals per pairing, each played with both seatings (default: the file's)")
    parser.add_argument("--seed", type=seed, metavar="S", help="run seed, 0 to 2**63-1 (default: the file's)")
    parser.add_argument("--out", metavar="DIR", help="results folder (default results/runs/NAME-TIMESTAMP)")
    threads_flag(parser)
    parser.add_argument("--engine", choices=("auto", "fast", "reference"), help="engine (default: the file's)")
    parser.add_argument("--chunk", type=positive, metavar="N",
                        help="deals per chunk file, the unit of resume and Dask (default: the file's)")
    parser.add_argument("--dask", metavar="ADDRESS",
                        help="play chunks on Dask: local, local:N or tcp://HOST:PORT (default: no Dask, this process)")
    parser.add_argument("--resume", action="store_true",
                        help="finish an unfinished run in --out (default: the newest unfinished one); "
                        "on a finished run, say so and show its results")
    parser.add_argument("--force", action="store_true", help="replace a finished or unfinished run in --out")
    progress_flag(parser)
    engines_flag(parser)


def run_tournament(args) -> int:
    from experiments.running.config import DEFAULT_EXPERIMENT

    return _run(DEFAULT_EXPERIMENT, args)


def run_file(args) -> int:
    from experiments.running.config import experiment_file

    return _run(experiment_file(args.file), args)


def _run(path: Path, args) -> int:
    from experiments.running.config import load_experiment
    from experiments.studies.experiment import run_experiment

    check_resume_force(args)
    overrides = {"games": args.games, "seed": args.seed, "threads": args.threads,
                 "engine": args.engine, "chunk": args.chunk}
    experiment = load_experiment(path, overrides, engines_file=args.engines)
    # the flag's engine or the file's; an external engine's games play side by side on --threads
    refuse_threads_on_reference(args.threads, experiment.engine, experiment.seats_engines)
    result = run_experiment(experiment, args.out, resume=args.resume, force=args.force, dask=args.dask,
                            progress=not args.no_progress, command=_command(args))
    print(result.report.text)
    made = "summary.md, summary.csv, games.parquet" + ("" if experiment.chouette else ", plots")
    print(f"Results: {result.folder}/ ({made})")
    return 0


def _command(args) -> list[str]:
    """The command as typed, rebuilt from the parsed flags (for run.json and resume hints)."""
    words = ["bgsim", args.command] + ([args.file] if args.command == "run" else [])
    for flag in ("games", "seed", "out", "threads", "engine", "chunk", "dask", "engines"):
        value = getattr(args, flag)
        if value is not None:
            words += [f"--{flag}", str(value)]
    words += [flag for flag in ("--resume", "--force", "--no-progress") if getattr(args, flag[2:].replace("-", "_"))]
    return words
