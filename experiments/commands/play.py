"""``bgsim play`` (games or matches between two players) and ``bgsim bots`` (what players exist)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pandas as pd

from bgsim.cube import Rules
from bgsim.series import ENGINES, play_games
from bots import describe_bots, make_player
from experiments.summary import format_summary, summarize_games


def register(subparsers) -> None:
    play = subparsers.add_parser(
        "play",
        help="play games (or matches) between two players and write one row per game",
        description="Play games between WHITE and BLACK (player specs such as "
        "'heuristic+pipdiff(double=8%%,take=12%%)'; see `bgsim bots`), write one row per game "
        "to a Parquet file and print a summary.",
    )
    play.add_argument("white", metavar="WHITE", help="white's player spec")
    play.add_argument("black", metavar="BLACK", help="black's player spec")
    play.add_argument("--games", type=int, required=True, metavar="N",
                      help="games to play (with --match-to: matches)")
    play.add_argument("--seed", type=int, required=True, metavar="S", help="run seed")
    play.add_argument("--out", required=True, metavar="FILE.parquet", help="where the rows go")
    play.add_argument("--match-to", type=int, default=0, metavar="N",
                      help="play matches to N points (Crawford rule) instead of money games")
    play.add_argument("--engine", choices=ENGINES, default="auto",
                      help="auto: the fast engine when it can run both players, else the reference one")
    play.add_argument("--threads", type=int, default=None, metavar="N",
                      help="threads for the fast engine (default: all cores)")
    play.add_argument("--no-cube", action="store_true", help="play without the doubling cube")
    play.add_argument("--max-cube", type=int, default=64, metavar="V", help="maximum cube value (default 64)")
    play.add_argument("--jacoby", action="store_true", help="Jacoby rule (money games)")
    play.add_argument("--beaver", action="store_true", help="allow beavers (money games)")
    play.add_argument("--automatic-doubles", type=int, default=0, metavar="K",
                      help="automatic doubles per game on tied opening rolls (money games; default 0)")
    play.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    play.set_defaults(handler=run_play)

    bots = subparsers.add_parser("bots", help="list every bot with its parameters and defaults")
    bots.set_defaults(handler=run_bots)


def run_bots(args) -> int:
    print(describe_bots())
    return 0


def rules_from_args(args) -> Rules:
    return Rules(
        cube=not args.no_cube,
        max_cube=args.max_cube,
        jacoby=args.jacoby,
        beaver=args.beaver,
        automatic_doubles=args.automatic_doubles,
    )


def check_output(path: Path, force: bool) -> None:
    if path.suffix != ".parquet":
        raise ValueError(f"--out {path}: the rows are written as Parquet; name the file *.parquet")
    if path.exists() and not force:
        raise ValueError(f"{path} exists; pass --force to overwrite it")
    if path.exists() and path.is_dir():
        raise ValueError(f"{path} is a directory")
    if not path.parent.exists():
        raise ValueError(f"the folder {path.parent} does not exist")


def write_rows(frame: pd.DataFrame, path: Path) -> None:
    """Write to a temporary file beside ``path`` and rename it: never a half-written file."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        frame.to_parquet(temporary, index=False)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def match_summary(frame: pd.DataFrame) -> dict:
    """Matches won by each side, from the rows of the games of those matches.

    A match's winner is the winner of its last game; its final score is the score before the
    last game plus that game's points.
    """
    if frame.empty:
        return {"matches": 0, "white_matches": 0, "black_matches": 0}
    last = frame.sort_values(["game", "game_in_match"]).groupby("game").tail(1)
    white_won = int((last["winner"] == "white").sum())
    return {
        "matches": len(last),
        "white_matches": white_won,
        "black_matches": len(last) - white_won,
        "games_per_match": len(frame) / len(last),
    }


def format_match_summary(summary: dict, white: str, black: str) -> str:
    from experiments.summary import mean_interval

    matches = summary["matches"]
    if not matches:
        return "no matches played"
    share, half_width = mean_interval([1.0] * summary["white_matches"] + [0.0] * summary["black_matches"])
    ci = "n/a" if half_width != half_width else f"{100 * half_width:.1f}%"
    return "\n".join([
        f"{matches} matches to {summary['match_to']} points, white {white} vs black {black}",
        f"  white won {summary['white_matches']}, black won {summary['black_matches']}: "
        f"white {100 * share:.1f}% ± {ci} (95% CI)   games per match {summary['games_per_match']:.2f}",
    ])


def engine_used(engine: str, white, black) -> str:
    """Which engine ``play_games`` runs for ``engine`` (``auto`` picks fast when both players can)."""
    if engine != "auto":
        return engine
    from bgsim import fast

    return "fast" if fast.supports(white) and fast.supports(black) else "reference"


def run_play(args) -> int:
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    if args.threads is not None and args.threads < 1:
        raise ValueError(f"--threads must be at least 1, got {args.threads}")
    path = Path(args.out)
    check_output(path, args.force)
    white = make_player(args.white)
    black = make_player(args.black)
    rules = rules_from_args(args)
    if args.match_to:
        rules.check_for_match()
    started = time.perf_counter()
    frame = play_games(white, black, args.seed, args.games, rules,
                       match_to=args.match_to, engine=args.engine, threads=args.threads)
    elapsed = time.perf_counter() - started
    write_rows(frame, path)
    print(format_summary(summarize_games(frame), white.name, black.name))
    if args.match_to:
        summary = match_summary(frame)
        summary["match_to"] = args.match_to
        print(format_match_summary(summary, white.name, black.name))
    engine = engine_used(args.engine, white, black)
    print(f"wrote {len(frame)} rows to {path}  ({engine} engine, {elapsed:.1f} s, "
          f"{len(frame) / max(elapsed, 1e-9):,.0f} games/s)")
    return 0
