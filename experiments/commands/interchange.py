"""``bgsim export`` (games of a run or a play file as .mat or SGF) and ``bgsim import`` (a match
file replayed through the rules, one row per decision)."""

from __future__ import annotations

import sys
from pathlib import Path

from experiments.analysis.game_export import CANNOT_HOLD, FORMATS, HOLDS, export_files
from experiments.commands.arguments import engines_flag, non_negative, progress_flag, threads_flag


def register(subparsers) -> None:
    export = subparsers.add_parser(
        "export",
        help="write games of a run or a `bgsim play` file as a .mat or SGF match file",
        description="Play the chosen games of a run folder or a `bgsim play` Parquet file again from "
        "their seeds, with every move and cube action, and write them as a Jellyfish .mat file or an SGF "
        "record in GNU Backgammon's dialect: money games as a session (a '0 point match'), each match "
        "as a match with its length and Crawford game, the players named by their specs (white is the "
        "left column of a .mat file and SGF's White).  A file holds one pairing in one seating: choose "
        "with --pairing and --leg when the games hold several; several matches go to one file each.  "
        "Says so when a replay does not reproduce its stored row.  Both formats hold "
        f"{HOLDS}, each under GNU Backgammon's tag.  What a format cannot hold is "
        f"refused: .mat cannot hold {CANNOT_HOLD['mat']}; SGF cannot hold {CANNOT_HOLD['sgf']}.",
    )
    export.add_argument("source", metavar="RUN_OR_FILE", help="a run's results folder or a `bgsim play` Parquet file")
    export.add_argument("--games", default="all", metavar="SELECTION",
                        help="game numbers (match numbers for matches): all, N, A-B or a comma list (default all)")
    export.add_argument("--format", choices=FORMATS, required=True, help="mat (Jellyfish) or sgf (GNU Backgammon's SGF)")
    export.add_argument("--out", required=True, metavar="FILE", help="output file: the match file (FILE-match-N.EXT per match)")
    export.add_argument("--pairing", type=non_negative, default=None, metavar="P",
                        help="a run's pairing to export (default: the only one; required when it has several)")
    export.add_argument("--leg", type=int, default=None, choices=(0, 1),
                        help="a run's seating, 0 or 1 (default: the only one; required when there are two)")
    export.add_argument("--force", action="store_true", help="overwrite files that exist")
    engines_flag(export)  # games of ubgi:NAME replay with the engine: the same rows only if it is seeded
    export.set_defaults(handler=run_export)

    read = subparsers.add_parser(
        "import",
        help="read .mat or SGF match files and replay them through the rules",
        description="Read match files (Jellyfish .mat as GNU Backgammon, eXtreme Gammon, FIBS clients, "
        "BackgammonGalaxy and others write it, or SGF as GNU Backgammon and Gibbon write it; a folder "
        "stands for every match file under it), replay every move through bgsim's rules, and write one "
        "row per decision (file, match, game, ply, player, score, cube, GNU Backgammon position and match "
        "IDs and XGID before the decision, dice, the play or cube action, the file's line).  Where the "
        "match stands is the file's own score lines.  What real writers do is read as GNU Backgammon "
        "reads it, with a warning saying what was read (a forced play left blank, a resignation's "
        "value, a truncated game kept unfinished, a game number given twice); a game with a move the "
        "rules do not allow is left out, with its line, and the next one read.  Files of any size are "
        "read a line at a time and the rows streamed to --out.  Exit status 0 when every game was "
        "kept (warnings or not), 2 when a game or a file was left out (after writing the sound games' "
        "rows).",
    )
    read.add_argument("files", nargs="+", metavar="FILE", help="a .mat, .txt, .gam or .sgf match file, or a folder of them")
    read.add_argument("--out", metavar="FILE.parquet", default=None,
                      help="output file: where the rows go (default: none, the files are only checked)")
    read.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    threads_flag(read, "worker processes replaying files at once (the rows are the same)")
    progress_flag(read)
    read.set_defaults(handler=run_import)


WARNINGS_SHOWN = 40  # warning lines printed in full; the rest are counted by kind


def run_export(args) -> int:
    from experiments.running.engines import engine_players, engine_table

    engine_players(engine_table(args.engines))  # the engines the replay's ubgi:NAME players find
    out = Path(args.out)
    paths, differences = export_files(args.source, args.games, args.format, out, args.pairing, args.leg,
                                      args.force)
    for difference in differences:
        print(f"bgsim: warning: {difference}", file=sys.stderr)
    for path in paths:
        print(f"wrote {path}")
    if differences:
        print(f"bgsim: {len(differences)} replayed games differ from their stored rows: the files hold "
              "the games as this code plays them, not as the rows were played", file=sys.stderr)
        return 1
    return 0


def run_import(args) -> int:
    from experiments.analysis.match_import import import_files, kinds_line, match_files
    from experiments.running.files import RowFile, claimed_files

    if args.force and args.out is None:
        raise ValueError("--force has no effect without --out: nothing is written")
    paths = match_files(args.files)
    threads = args.threads or 1
    log = (lambda text: print(text, file=sys.stderr, flush=True))
    shown = {"warnings": 0}
    every_file = len(paths) <= 10

    def said(item) -> None:
        name = item.path
        if item.error is not None:
            if len(paths) == 1:  # the one file given cannot be read: bad input, one line
                raise ValueError(f"{name}: {item.error}")
            print(f"bgsim: error: {name}: {item.error}; the file is left out", file=sys.stderr)
            return
        for problem in item.problems:
            if problem.rejected:
                print(f"{name}:{problem}", file=sys.stderr)
            elif shown["warnings"] < WARNINGS_SHOWN:
                print(f"bgsim: warning: {name}:{problem}", file=sys.stderr)
                shown["warnings"] += 1
        if every_file:
            kind = f"{item.match_to}-point match" if item.match_to else "money session"
            if item.matches > 1:
                kind = f"{item.matches} matches"
            unfinished = f" ({item.unfinished} unfinished)" if item.unfinished else ""
            print(f"{name}: {kind}, {item.players[0]} vs {item.players[1]}: {item.kept} of {item.games} games "
                  f"replayed{unfinished}, {item.moves} moves and {item.rows - item.moves} cube actions and "
                  "resignations")

    if args.out is None:
        done = import_files(paths, None, threads, not args.no_progress, log, said)
    else:
        out = Path(args.out)
        with claimed_files([out], args.force, suffix=".parquet"):
            rows = RowFile(out)
            try:
                done = import_files(paths, rows.append, threads, not args.no_progress, log, said)
            except BaseException:
                rows.discard()
                raise
            rows.close()
    files, refused = len(done.files), sum(item.error is not None for item in done.files)
    games, kept = done.total("games"), done.total("kept")
    problems = [problem for item in done.files for problem in item.problems]
    warnings = [problem for problem in problems if not problem.rejected]
    rejected = len(problems) - len(warnings)
    if not every_file or files > 1:
        print(f"{files:,} files{f' ({refused} unreadable)' if refused else ''}: {kept:,} of {games:,} games "
              f"replayed, {done.total('moves'):,} moves, {done.total('rows'):,} decisions, in {done.seconds:.1f} s")
    if args.out is not None:
        print(f"wrote {done.total('rows')} rows to {args.out}")
    if warnings:
        more = len(warnings) - min(len(warnings), WARNINGS_SHOWN)
        print(f"bgsim: {len(warnings):,} warning{'s' if len(warnings) != 1 else ''} (read as GNU Backgammon reads "
              f"them, the games kept): {kinds_line(warnings)}" + (f"; {more:,} not shown above" if more else ""),
              file=sys.stderr)
    if rejected or refused:
        where = paths[0].as_posix() if files == 1 else f"{files} files"
        lost = [f"{rejected} game{'s' if rejected != 1 else ''} left out"] if rejected else []
        lost += [f"{refused} file{'s' if refused != 1 else ''} unreadable"] if refused else []
        print(f"bgsim: {' and '.join(lost)} in {where}", file=sys.stderr)
        return 2
    return 0


__all__ = ["export_files", "register"]
