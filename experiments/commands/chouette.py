"""``bgsim chouette``: a session of chouette games (box against team, seats rotating), one row per
game and player, written as the games finish, with a summary per player and per seat.

The session streams as ``bgsim play`` does: games are played in batches of about half a
second, every batch goes to the output file at once (memory stays bounded), and Ctrl-C keeps
every finished game, the games of the unfinished batch included.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bgsim.chouette import CUBE_REGIMES, check_chouette_cubes, check_player_count
from bgsim.chouette_sessions import ENGINES, Session
from bots import make_player
from experiments.analysis.chouette import ChouetteTally, format_chouette_summary
from experiments.commands.arguments import (force_flag, games_flag, match_length, non_negative, out_file_flag,
                                           positive, progress_flag, rules_from_args, seed_flag)
from experiments.running.machine import compiling_message, fast_compile_pending
from experiments.running.stream import claimed_output, stream_to_file


def register(subparsers) -> None:
    chouette = subparsers.add_parser(
        "chouette",
        help="play a chouette session (one box against a team, 3 to 10 players) and write one row per game and player",
        description="Play a session of chouette games between 3 and 10 players (player specs such "
        "as 'heuristic+pipdiff'; see `bgsim bots`): seats from the seed, one player in the box "
        "against the team, whose captain moves the checkers, the seats rotating after each game "
        "(RULES.md, 'Chouette').  One row per game and player goes to a Parquet file as the games "
        "finish; a summary per player and per seat is printed.  Ctrl-C stops and keeps the "
        "finished games.",
    )
    chouette.add_argument("specs", nargs="+", metavar="SPEC", help="the players' specs, 3 to 10 of them")
    games_flag(chouette, "games to play", required=True)
    seed_flag(chouette, "session seed: the same seed seats and plays the same games")
    out_file_flag(chouette)
    chouette.add_argument("--cubes", default="team", metavar="REGIME",
                          help=f"the cube regime: {' or '.join(CUBE_REGIMES)} (default team: the team "
                          "doubles only if every member agrees; individual: every member has its own cube)")
    chouette.add_argument("--engine", default="auto", metavar="ENGINE",
                          help=f"{', '.join(ENGINES)} (default auto: the fast engine when it can seat every "
                          "player, else the reference one; both play the same games)")
    chouette.add_argument("--match-to", type=match_length, default=0, metavar="N",
                          help="not for chouettes, which are money play: any length is refused (default: money play)")
    chouette.add_argument("--no-cube", action="store_true", help="play without the doubling cube")
    chouette.add_argument("--max-cube", type=positive, default=64, metavar="V", help="maximum cube value (default 64)")
    chouette.add_argument("--jacoby", action="store_true", help="Jacoby rule, for every member's cube")
    chouette.add_argument("--beaver", action="store_true",
                          help="allow beavers (team cubes: the box's only; individual cubes: both ways)")
    chouette.add_argument("--automatic-doubles", type=non_negative, default=0, metavar="K",
                          help="automatic doubles per game on tied opening rolls (default 0)")
    force_flag(chouette, "FILE if it exists")
    progress_flag(chouette)
    chouette.set_defaults(handler=run_chouette)


def run_chouette(args) -> int:
    log = _log
    check_player_count(len(args.specs))
    check_chouette_cubes(args.cubes)
    if args.match_to:
        raise ValueError(f"--match-to {args.match_to}: a chouette is money play, it has no match length")
    path = Path(args.out)
    with claimed_output(path, args.force):
        return _session(args, path, log)


def _session(args, path: Path, log) -> int:
    players = [make_player(spec) for spec in args.specs]
    rules = rules_from_args(args)
    session = Session(players, args.seed, rules, args.cubes, engine=args.engine)  # checks everything first
    log(f"playing {args.games:,} chouette games, {len(players)} players, {args.cubes} cubes, "
        f"seed {args.seed}, {session.engine} engine → {path}")
    if session.engine == "fast" and fast_compile_pending(players, chouette=True):
        log(compiling_message(players, chouette=True))

    tally = ChouetteTally()
    count, elapsed = stream_to_file(path, args.games, "games", session.play, not args.no_progress, log, tally.add,
                                    salvage=session.salvage)
    done = count // len(players)
    print(format_chouette_summary(tally.summary(), args.cubes))
    print(f"wrote {count} rows to {path}  ({session.engine} engine, {elapsed:.1f} s, "
          f"{done / max(elapsed, 1e-9):,.1f} games/s)")
    return 0


def _log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
