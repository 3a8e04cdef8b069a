"""``bgsim tournament``, ``bgsim run FILE`` and ``bgsim report DIR``: experiments from files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXPERIMENTS = Path(__file__).resolve().parent.parent
DEFAULT_EXPERIMENT = EXPERIMENTS / "default.toml"


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


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, got {text!r}") from None
    return value


def _shared_flags(parser) -> None:
    parser.add_argument("--games", type=_positive, metavar="N", help="deals per pairing (each is played with both seatings)")
    parser.add_argument("--seed", type=_seed, metavar="S", help="run seed (0 to 2**63-1)")
    parser.add_argument("--out", metavar="DIR", help="results folder (default results/runs/NAME-TIMESTAMP)")
    parser.add_argument("--threads", type=_positive, metavar="N", help="threads for the fast engine (default: every core)")
    parser.add_argument("--engine", choices=("auto", "fast", "reference"), help="engine (default: the file's)")
    parser.add_argument("--chunk", type=_positive, metavar="N", help="deals per chunk file (the unit of resume and Dask)")
    parser.add_argument("--dask", metavar="ADDRESS", help="play chunks on Dask: local, local:N or tcp://HOST:PORT")
    parser.add_argument("--resume", action="store_true", help="finish an interrupted run (its --out, or the latest one)")
    parser.add_argument("--force", action="store_true", help="replace a finished or unfinished run in --out")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_tournament(args) -> int:
    return _run(DEFAULT_EXPERIMENT, args)


def run_file(args) -> int:
    path = Path(args.file)
    if not path.exists() and not path.suffix and (EXPERIMENTS / f"{args.file}.toml").exists():
        path = EXPERIMENTS / f"{args.file}.toml"
    return _run(path, args)


def _run(path: Path, args) -> int:
    from experiments.running.config import load_experiment
    from experiments.running.runner import RunError, run_experiment

    if args.resume and args.force:
        raise ValueError("--resume finishes a run and --force starts it again: choose one")
    from experiments.running.machine import cap_threads

    threads = cap_threads(args.threads, lambda text: print(text, file=sys.stderr, flush=True))
    overrides = {"games": args.games, "seed": args.seed, "threads": threads,
                 "engine": args.engine, "chunk": args.chunk}
    try:
        experiment = load_experiment(path, overrides)
        result = run_experiment(experiment, args.out, resume=args.resume, force=args.force, dask=args.dask,
                                progress=not args.no_progress, command=_command(args))
    except RunError as error:
        print(f"bgsim: error: {error}", file=sys.stderr)
        return 2
    print(result.report.text)
    print(f"Results: {result.folder}/ (summary.md, summary.csv, games.parquet, plots)")
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
    from experiments.running.config import Experiment
    from experiments.running.folder import GAMES_FILE, read_run
    from experiments.analysis.report import load_rows, write_report

    folder = Path(args.folder)
    if not folder.exists():
        raise ValueError(f"{folder}: no such results folder or Parquet file")
    rows_file = folder if folder.is_file() else folder / GAMES_FILE
    if rows_file.suffix == ".parquet" and rows_file.exists():
        import pyarrow.parquet as pq

        try:
            names = pq.read_schema(rows_file).names
        except Exception as error:  # noqa: BLE001 - pyarrow's errors name no common base
            raise ValueError(f"{rows_file} is not a Parquet file bgsim can read ({error})") from None
        if "pairing" not in names:
            return _report_play(rows_file)
    if folder.is_file():
        raise ValueError(f"{folder} is neither a results folder nor the Parquet file of bgsim play")
    run = read_run(folder)
    experiment = Experiment.from_dict(run["config"]) if run and "config" in run else None
    frame = load_rows(folder)
    report = write_report(folder, frame, experiment)
    print(report.text)
    print(f"Rewrote {folder}/summary.md, summary.csv and the plots from {len(frame)} rows")
    return 0


def _report_play(path: Path) -> int:
    """The summary ``bgsim play`` printed, again, from the rows of its output file."""
    import pandas as pd

    from bgsim.schema import conform
    from .play import format_match_summary
    from experiments.analysis.summary import GameTally, format_summary

    frame = conform(pd.read_parquet(path))
    if frame.empty:
        raise ValueError(f"{path} holds no games")
    pairs = frame[["white", "black"]].drop_duplicates()
    if len(pairs) > 1:
        raise ValueError(f"{path} holds games of {len(pairs)} different pairs of players; "
                         "bgsim report summarizes one bgsim play output or one results folder")
    white, black = str(pairs["white"].iloc[0]), str(pairs["black"].iloc[0])
    tally = GameTally()
    tally.add(frame)
    print(format_summary(tally.summary(), white, black))
    match_to = int(frame["match_to"].max())
    if match_to:
        summary = tally.match_summary()
        summary["match_to"] = match_to
        print(format_match_summary(summary, white, black))
    print(f"(from the {len(frame)} rows of {path}, a bgsim play output: no summary files to rebuild)")
    return 0
