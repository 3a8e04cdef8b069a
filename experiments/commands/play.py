"""``bgsim play`` (games or matches between two players) and ``bgsim bots`` (what players exist).

The games stream to the output file batch by batch (``experiments/running/stream.py``); the
figures printed at the end are gathered batch by batch (:class:`GameTally`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from bgsim.cube import Rules
from bgsim.series import ENGINES
from bgsim.variants import VARIANTS
from experiments.commands.arguments import (engines_flag, force_flag, games_flag, match_flag, out_file_flag,
                                           progress_flag, refuse_cube_bots_without_a_cube, refuse_cube_options,
                                           refuse_threads_on_reference, rules_flags, rules_from_args, seed_flag,
                                           threads_flag)
from bots import describe_bots
from bots.ubgi import is_engine_spec
from experiments.analysis.game_export import CANNOT_HOLD, FORMATS, HOLDS, check_format, export_files, record_paths
from experiments.analysis.summary import GameTally, format_match_summary, format_summary
from experiments.running.stream import claimed_output, play_to_file

RECORD_LIMIT = 10_000  # --record replays every game with its moves: for small runs


def register(subparsers) -> None:
    play = subparsers.add_parser(
        "play",
        help="play games (or matches) between two players and write one row per game",
        description="Play games between WHITE and BLACK (player specs such as "
        "'heuristic+pipdiff(double=8%,take=12%)'; see `bgsim bots`), write one row per game "
        "to a Parquet file as the games finish, and print a summary.  Ctrl-C stops within a "
        "second and keeps the finished games.",
    )
    play.add_argument("white", metavar="WHITE", help="white's player spec, e.g. heuristic+pipdiff")
    play.add_argument("black", metavar="BLACK", help="black's player spec")
    games_flag(play, "games to play (with --match-to: matches)", required=True)
    seed_flag(play)
    out_file_flag(play)
    match_flag(play)
    play.add_argument("--engine", choices=ENGINES, default="auto",
                      help="auto: the fast engine when it can run both players, else the reference one (default auto)")
    threads_flag(play, "threads of the fast engine (the reference engine plays on one, but for games of an "
                       "external engine: that many side by side, an engine process each)")
    rules_flags(play)
    play.add_argument("--record", nargs=2, metavar=("FORMAT", "FILE"), default=None,
                      help=f"also write the games with every move as a match file: mat or sgf, and where "
                      f"(FILE-match-N per match); for runs of at most {RECORD_LIMIT:,} games or matches "
                      "(`bgsim export` takes any chosen games of a bigger one; default: no match file).  Both "
                      f"formats hold {HOLDS}; .mat cannot hold {CANNOT_HOLD['mat']}; SGF cannot hold "
                      f"{CANNOT_HOLD['sgf']}")
    play.add_argument("--variant", default="standard", metavar="NAME",
                      help=f"the game played: {', '.join(VARIANTS)} (default standard; RULES.md, "
                           "Variants; both engines play every variant)")
    play.add_argument("--double-on-acey-deucey", action="store_true",
                      help="acey-deucey: the stake doubles at each 1-2")
    force_flag(play, "FILE if it exists")
    progress_flag(play)
    engines_flag(play)
    play.set_defaults(handler=run_play)

    bots = subparsers.add_parser(
        "bots", help="list every bot with its parameters and defaults",
        description="List every checker bot and cube bot with its parameters, their defaults and "
        "what they mean, and which engine can run it.")
    bots.set_defaults(handler=run_bots)


def run_bots(args) -> int:
    print(describe_bots())
    return 0


def run_play(args) -> int:
    refuse_threads_on_reference(args.threads, args.engine, any(map(is_engine_spec, (args.white, args.black))))
    refuse_cube_options(args)
    path = Path(args.out)
    rules = rules_from_args(args)
    record = check_record(args, rules)
    # the rows and every match file --record writes are claimed together, before any game
    with claimed_output(path, args.force, *(record[2] if record else ())):
        return _play(args, path, rules, record)


def engine_log_path(path: Path) -> Path:
    """Where ``bgsim play``'s engine log goes: beside the rows, ``NAME.engines.log``."""
    return path.with_name(path.stem + ".engines.log")


def _play(args, path: Path, rules: Rules, record) -> int:
    from experiments.running.engines import (decision_times, engine_players, engine_table, format_decision_times,
                                             start_engines)

    external = any(map(is_engine_spec, (args.white, args.black)))
    log_path = engine_log_path(path)
    factory = engine_players(engine_table(args.engines), log_path if external else None)
    white = factory(args.white)
    black = factory(args.black)
    refuse_cube_bots_without_a_cube(rules, (white, black))
    tally = GameTally()
    if external:
        from bgsim.series import engine_for

        engine_for(args.engine, white, black, rules)  # --engine fast refuses an engine before it starts
        log_path.unlink(missing_ok=True)  # this run's log, not a replaced run's
        start_engines((white, black), _log)
    engine, rows, elapsed = play_to_file(white, black, args.games, args.seed, path, rules,
                                         args.match_to, args.engine, args.threads, not args.no_progress,
                                         _log, tally.add)
    print(format_summary(tally.summary(), white.name, black.name))
    for line in format_decision_times(decision_times((white, black))):
        print(line)
    if external and log_path.exists():
        print(f"the engines' forfeits and notes are in {log_path}")
    if args.match_to:  # points per game above are capped at what the winner needed
        summary = tally.match_summary()
        summary["match_to"] = args.match_to
        print(format_match_summary(summary, white.name, black.name))
    print(f"wrote {rows} rows to {path}  ({engine} engine, {elapsed:.1f} s, "
          f"{rows / max(elapsed, 1e-9):,.0f} games/s)")
    if record is not None:  # its files are claimed and checked: written over only as asked
        written, differences = export_files(path, "all", record[0], record[1], force=True)
        for difference in differences:  # pragma: no cover - a game played now replays the same
            _log(f"bgsim: warning: {difference}")
        print(f"wrote the games with their moves to {', '.join(str(name) for name in written)}")
    return 0


def check_record(args, rules: Rules):
    """``--record FORMAT FILE`` checked before any game is played: (format, path, the files it
    writes: FILE, or FILE-match-N for each of several matches) or None."""
    if args.record is None:
        return None
    fmt, target = args.record
    if fmt not in FORMATS:
        raise ValueError(f"--record {fmt}: the format is mat or sgf")
    if args.games > RECORD_LIMIT:
        raise ValueError(f"--record is for runs of at most {RECORD_LIMIT:,} games; export chosen games of "
                         "a bigger run with `bgsim export`")
    check_format(fmt, rules)
    target = Path(target)
    if target.resolve() == Path(args.out).resolve():
        raise ValueError(f"--record {target} is --out's file too: the match file would replace the rows; "
                         "give it its own name")
    return fmt, target, record_paths(target, args.games if args.match_to else None)


def _log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
