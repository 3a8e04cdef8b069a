"""``bgsim export`` (games of a run or a play file as .mat or SGF) and ``bgsim import`` (a match
file replayed through the rules, one row per decision)."""

from __future__ import annotations

import sys
from pathlib import Path

from experiments.analysis.game_export import CANNOT_HOLD, FORMATS, HOLDS, check_new, export_files
from experiments.commands.arguments import engines_flag, non_negative
from experiments.running.files import explain, write_table


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
        help="read a .mat or SGF match file and replay it through the rules",
        description="Read a match file (Jellyfish .mat as GNU Backgammon or eXtreme Gammon write it, or "
        "GNU Backgammon's SGF), replay every move through bgsim's rules, and write one row per decision "
        "(game, ply, player, score, cube, GNU Backgammon position and match IDs and XGID before the "
        "decision, dice, the play or cube action, the file's line).  Every move the rules do not allow, "
        "position that cannot be reached and score that does not add up is reported with its line; "
        "a game with an illegal move is left out and the next one read.  Exits 2 when anything was "
        "reported, after writing the sound games' rows.",
    )
    read.add_argument("file", metavar="FILE", help="a .mat or .sgf match file")
    read.add_argument("--out", metavar="FILE.parquet", default=None,
                      help="output file: where the rows go (default: none, the file is only checked)")
    read.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    read.set_defaults(handler=run_import)


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
    from bgsim.interchange.files import import_match

    path = Path(args.file)
    if not path.exists():
        raise ValueError(f"{path} does not exist")
    if args.out is not None:
        out = Path(args.out)
        if out.suffix != ".parquet":
            raise ValueError(f"--out {out}: the rows are written as Parquet; name the file *.parquet")
        check_new(out, args.force)
    match, done = import_match(path)
    for problem in done.problems:
        print(f"{path}:{problem}", file=sys.stderr)
    frame = done.frame()
    moves = int((frame["action"] == "move").sum()) if len(frame) else 0
    kind = f"{match.match_to}-point match" if match.match_to else "money session"
    read = {game.number for game in match.games}
    unreadable = {problem.game for problem in done.problems if problem.rejected and problem.game not in read}
    print(f"{path}: {kind}, {match.players[0]} vs {match.players[1]}: {len(done.games)} of "
          f"{len(read) + len(unreadable)} games replayed, {moves} moves and {len(frame) - moves} "
          "cube actions and resignations")
    if args.out is not None:
        try:
            write_table(frame, out)
        except OSError as error:
            raise explain(error, out) from None
        print(f"wrote {len(frame)} rows to {out}")
    if done.problems:
        rejected = done.rejected
        print(f"bgsim: {len(done.problems)} problems in {path}"
              + (f"; {rejected} game{'s' if rejected != 1 else ''} left out" if rejected else ""), file=sys.stderr)
        return 2
    return 0


__all__ = ["export_files", "register"]
