"""``bgsim play`` (games or matches between two players) and ``bgsim bots`` (what players exist).

``play`` streams: games are played in batches of about half a second each, and every batch goes
to the output file as soon as it is played, so memory stays bounded however many games are
asked for, a progress bar can move, and Ctrl-C stops within a second keeping the finished games.
The figures printed at the end are gathered batch by batch (:class:`GameTally`).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pandas as pd

from bgsim.cube import Rules
from bgsim.series import ENGINES, engine_for, play_games
from bgsim.variants import VARIANTS
from bots import describe_bots, make_player
from experiments.files import explain, is_temporary, stop_hook, temporary_name
from experiments.machine import COMPILING, cap_threads, fast_compile_pending
from experiments.progress import Progress, duration
from experiments.summary import GameTally, format_summary, last_games, mean_interval

BATCH_SECONDS = 0.5  # a batch's target length: the longest Ctrl-C waits for the kernel
FIRST_BATCH = 32
MAX_BATCH = 200_000


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
    play.add_argument("--games", type=int, required=True, metavar="N",
                      help="games to play (with --match-to: matches)")
    play.add_argument("--seed", type=int, default=1, metavar="S",
                      help="run seed (default 1): the same seed plays the same games")
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
    play.add_argument("--variant", default="standard", metavar="NAME",
                      help=f"the game played: {', '.join(VARIANTS)} (default standard; RULES.md, "
                           "Variants; the reference engine plays every variant but the standard game)")
    play.add_argument("--double-on-acey-deucey", action="store_true",
                      help="acey-deucey: the stake doubles at each 1-2")
    play.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    play.add_argument("--no-progress", action="store_true", help="no progress bar")
    play.set_defaults(handler=run_play)

    bots = subparsers.add_parser(
        "bots", help="list every bot with its parameters and defaults",
        description="List every checker bot and cube bot with its parameters, their defaults and "
        "what they mean, and which engine can run it.")
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
        variant=args.variant,
        double_on_acey_deucey=args.double_on_acey_deucey,
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


def match_summary(frame: pd.DataFrame) -> dict:
    """Matches won by each side, from the rows of the games of those matches.

    A match's winner is the winner of its last game.
    """
    if frame.empty:
        return {"matches": 0, "white_matches": 0, "black_matches": 0}
    last = last_games(frame, ["game"])
    white_won = int((last["winner"] == "white").sum())
    return {
        "matches": len(last),
        "white_matches": white_won,
        "black_matches": len(last) - white_won,
        "games_per_match": len(frame) / len(last),
    }


def format_match_summary(summary: dict, white: str, black: str) -> str:
    matches = summary["matches"]
    if not matches:
        return "no matches played"
    share, half_width = mean_interval([1.0] * summary["white_matches"] + [0.0] * summary["black_matches"])
    ci = "n/a" if half_width != half_width else f"{100 * half_width:.1f}%"
    lines = [
        f"{matches} matches to {summary['match_to']} points, white {white} vs black {black}",
        f"  white won {summary['white_matches']}, black won {summary['black_matches']}: "
        f"white {100 * share:.1f}% ± {ci} (95% CI)   games per match {summary['games_per_match']:.2f}",
    ]
    if "white_ppg" in summary:  # a game's points beyond what its winner needed win nothing
        ppg_ci = summary["white_ppg_ci"]
        ppg_ci = "n/a" if ppg_ci != ppg_ci else f"{ppg_ci:.3f}"
        lines.append(f"  white points per game, capped at what the winner needed: "
                     f"{summary['white_ppg']:+.3f} ± {ppg_ci} (raw, uncapped {summary['white_ppg_raw']:+.3f})")
    return "\n".join(lines)


def next_batch(batch: int, seconds: float, batches: int) -> int:
    """The size of the next batch, aiming at BATCH_SECONDS: long enough to keep the threads
    busy, short enough that Ctrl-C (seen between batches in the fast engine) stops promptly.
    The first batch's time is not trusted to shrink it: it may include the compile."""
    if seconds < BATCH_SECONDS / 2:
        return min(2 * batch, MAX_BATCH)
    if seconds > BATCH_SECONDS * 2 and batches > 1:
        return max(1, int(batch * BATCH_SECONDS / seconds))
    return batch


class RowFile:
    """The output Parquet file, appended to batch by batch under a temporary name and renamed
    into place when closed, so the file a user sees is always whole."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.temporary = temporary_name(path)
        self.writer = None
        self.rows = 0

    def append(self, frame: pd.DataFrame) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pa.Table.from_pandas(frame, preserve_index=False)
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.temporary, table.schema)
            self.writer.write_table(table.cast(self.writer.schema))
        except OSError as error:
            self.discard()
            raise explain(error, self.path) from None
        self.rows += len(frame)

    def close(self) -> None:
        """Close the file and give it its name (when any row was written)."""
        if self.writer is None:
            return
        try:
            self.writer.close()
            self.writer = None
            with open(self.temporary, "rb") as handle:  # on disk before it has its name
                os.fsync(handle.fileno())
            self.temporary.replace(self.path)
        except OSError as error:
            self.discard()
            raise explain(error, self.path) from None

    def discard(self) -> None:
        if self.writer is not None:
            try:
                self.writer.close()
            except OSError:
                pass
            self.writer = None
        if is_temporary(self.temporary):
            self.temporary.unlink(missing_ok=True)


def run_play(args) -> int:
    log = _log
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
    engine = engine_for(args.engine, white, black, rules)
    threads = cap_threads(args.threads, log) if engine == "fast" else args.threads
    # Playing no game checks every argument (seed, rules, whether the engine can run both
    # players) before anything is printed or written.
    play_games(white, black, args.seed, [], rules, match_to=args.match_to, engine=args.engine, threads=threads)
    unit = "matches" if args.match_to else "games"
    log(f"playing {args.games:,} {unit}{f' to {args.match_to} points' if args.match_to else ''}: "
        f"white {white.name} vs black {black.name}, seed {args.seed}, {engine} engine → {path}")
    if engine == "fast" and fast_compile_pending((white, black)):
        log(COMPILING)

    tally = GameTally()
    rows = RowFile(path)
    bar = Progress(args.games, 0, unit, not args.no_progress)
    done, batch, batches, timed, timed_seconds = 0, FIRST_BATCH, 0, 0, 0.0
    started = time.perf_counter()
    try:
        while done < args.games:
            numbers = range(done, min(done + batch, args.games))
            before = time.perf_counter()
            frame = play_games(white, black, args.seed, numbers, rules, match_to=args.match_to,
                               engine=args.engine, threads=threads)
            seconds = time.perf_counter() - before
            rows.append(frame)
            tally.add(frame)
            done = numbers.stop
            batches += 1
            bar.update(len(numbers))
            if batches > 1:  # the first batch carries the compile and warm-up
                timed += len(numbers)
                timed_seconds += seconds
                if batches == 2 and done < args.games and timed_seconds > 0:
                    rate = timed / timed_seconds
                    log(f"about {duration((args.games - done) / rate)} to go at ~{rate:,.0f} {unit}/s "
                        "(Ctrl-C stops and keeps the finished games)")
            batch = next_batch(batch, seconds, batches)
            stop_hook(batches)
    except KeyboardInterrupt:
        bar.close()
        rows.close()
        kept = f"the {rows.rows:,} rows of the {done:,} finished {unit} are in {path}" if rows.rows \
            else "no game had finished: nothing was written"
        log(f"interrupted after {done:,} of {args.games:,} {unit}: {kept}")
        raise
    except BaseException:
        bar.close()
        rows.discard()
        raise
    bar.close()
    rows.close()
    elapsed = time.perf_counter() - started
    print(format_summary(tally.summary(), white.name, black.name))
    if args.match_to:  # points per game above are capped at what the winner needed
        summary = tally.match_summary()
        summary["match_to"] = args.match_to
        print(format_match_summary(summary, white.name, black.name))
    print(f"wrote {rows.rows} rows to {path}  ({engine} engine, {elapsed:.1f} s, "
          f"{rows.rows / max(elapsed, 1e-9):,.0f} games/s)")
    return 0


def _log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
