"""``bgsim analyse``: games of a run or a play file judged by GNU Backgammon's analysis."""

from __future__ import annotations

import sys
from pathlib import Path

from experiments.analysis.game_export import groups, load_source
from experiments.analysis.gnubg_analysis import (SECONDS_PER_GAME, analyse_groups, check_analysable, format_analysis,
                                                 rough_seconds)
from experiments.commands.arguments import non_negative, progress_flag, threads_flag
from experiments.running.files import claimed_files, explain, write_text
from experiments.running.progress import Phase, duration


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "analyse",
        help="have GNU Backgammon analyse games of a run or play file: error rates per player",
        description="Export the chosen games (replayed from their seeds) as SGF, have GNU Backgammon's "
        "program (gnubg, optional: on Debian/Ubuntu apt-get install gnubg) analyse them at --plies, and "
        "report for each player its checker-play and cube error rates (gnubg's mEMG per decision: per "
        "unforced move, per close or actual cube decision) with 95%% intervals over games and gnubg's "
        "rating words.  The table is printed and written beside the rows: gnubg_analysis.md, "
        "gnubg_analysis.csv (per player) and gnubg_games.csv (per game and player) in a run's folder, "
        "FILE.gnubg_analysis.* beside a play file; an earlier analysis there is replaced only with --force.",
    )
    parser.add_argument("source", metavar="RUN_OR_FILE", help="a run's results folder or a `bgsim play` Parquet file")
    parser.add_argument("--games", default="all", metavar="SELECTION",
                        help="game numbers (match numbers for matches): all, N, A-B or a comma list (default all)")
    parser.add_argument("--plies", type=non_negative, default=0, metavar="N",
                        help="gnubg's analysis plies for checker play and cube, 0 to 4 (default 0; 2 is ~20x slower)")
    parser.add_argument("--pairing", type=non_negative, default=None, metavar="P",
                        help="only this pairing of a run (default: every pairing)")
    parser.add_argument("--leg", type=int, default=None, choices=(0, 1),
                        help="only this seating of a run (default: both)")
    threads_flag(parser, "gnubg's threads", default="gnubg's own setting")
    parser.add_argument("--force", action="store_true", help="replace an earlier analysis's files")
    progress_flag(parser)
    parser.set_defaults(handler=run_analyse)


def output_paths(source) -> dict[str, Path]:
    """Where the tables go: the run's folder, or beside the play file."""
    if source.folder is not None:
        base = source.folder
        return {"md": base / "gnubg_analysis.md", "csv": base / "gnubg_analysis.csv",
                "games": base / "gnubg_games.csv"}
    stem = source.path.with_suffix("")
    return {"md": Path(f"{stem}.gnubg_analysis.md"), "csv": Path(f"{stem}.gnubg_analysis.csv"),
            "games": Path(f"{stem}.gnubg_games.csv")}


def run_analyse(args) -> int:
    from experiments.analysis.gnubg_program import find_gnubg

    if not 0 <= args.plies <= 4:
        raise ValueError(f"--plies must be 0 to 4, got {args.plies}")
    find_gnubg()  # the install hint before any replay
    source = load_source(args.source)
    chosen = groups(source, args.games, args.pairing, args.leg)
    check_analysable(chosen)
    paths = output_paths(source)
    # claimed for the whole analysis: a second analysis of the same games stops here
    with claimed_files(paths.values(), args.force, what="analysis", replaces="replace the earlier analysis"):
        return _analyse(args, source, chosen, paths)


def _analyse(args, source, chosen, paths) -> int:
    log = (lambda text: print(text, file=sys.stderr, flush=True))
    games = sum(len(group.rows) for group in chosen)  # rows of games: matches hold several
    log(f"analysing {games:,} games at {args.plies}-ply: about {duration(rough_seconds(games, args.plies))} at the "
        f"pace of the committed analyses ({SECONDS_PER_GAME[args.plies]:g} s a game); measured as it goes")
    with Phase("analysing", games, "games", not args.no_progress, log) as bar:
        analysis, differences = analyse_groups(chosen, source, args.plies, threads=args.threads, log=log,
                                               done=bar.update)
    for difference in differences:
        print(f"bgsim: warning: {difference}", file=sys.stderr)
    text = format_analysis(analysis)
    print(text)
    for key, content in (("md", text + "\n"), ("csv", analysis.summary.to_csv(index=False, float_format="%.6g")),
                         ("games", analysis.games.to_csv(index=False, float_format="%.6g"))):
        try:
            write_text(content, paths[key])
        except OSError as error:
            raise explain(error, paths[key]) from None
    print(f"wrote {paths['md']}, {paths['csv']} and {paths['games']}")
    return 1 if differences else 0
