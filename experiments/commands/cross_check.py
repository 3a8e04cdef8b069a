"""``bgsim cross-check``: each race cube rule's cost against ``exact`` by two independent methods,
games played out and decisions judged; see ``experiments/studies/cross_check.py``.

``run.json`` says what was asked and by which code (``git_commit``, ``git_dirty``,
``bgsim_version``, as every run) and is written first; a finished run leaves ``starts.txt``
(the starts and their sampling games), ``games.parquet`` (one row per start, rule and seating),
``cross_check.csv`` and ``cross_check.md``.  A folder holding a finished cross-check is replaced
only with ``--force``; an unfinished one (a killed run) is started again.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path


from .cube_audit import _split
from experiments.running.files import is_temporary, write_json, write_table, write_text
from experiments.running.folder import RUN_FILE, git_state, now, read_run

KIND = "cross-check"
STARTS_FILE = "starts.txt"
OUTPUTS = ("games.parquet", "cross_check.csv", "cross_check.md", STARTS_FILE)


def register(subparsers) -> None:
    check = subparsers.add_parser(
        "cross-check",
        help="each race cube rule's cost against exact, played out and judged: one number twice",
        description="From pure bear-offs in the two-sided database (sampled from nn self-play), play "
        "every cube rule of --players against exact and exact against itself on the same dice, in "
        "both seatings, and compare the payoff (played out) with the equity the audit charges the "
        "rule's decisions in those games (judged).  Writes cross_check.csv, cross_check.md, "
        "games.parquet and run.json to --out.",
    )
    check.add_argument("--players", required=True, metavar="SPECS",
                       help="cube bot specs, comma-separated, e.g. pipdiff,keith,thorp,rule62")
    check.add_argument("--starts", type=int, default=2000, metavar="N",
                       help="bear-off starts, one per sampling game (default 2000)")
    check.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the sampling and played games")
    check.add_argument("--jobs", type=int, default=1, metavar="J",
                       help="processes playing the games (default 1; the results do not depend on it)")
    check.add_argument("--out", type=Path, required=True, metavar="DIR", help="results folder")
    check.add_argument("--force", action="store_true", help="replace a finished cross-check in --out")
    check.add_argument("--no-progress", action="store_true", help="no progress bar")
    check.set_defaults(handler=run)


def _prepare(folder: Path, force: bool) -> None:
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"results folder {folder} is a file, not a folder")
    if not folder.is_dir() or all(is_temporary(path) for path in folder.iterdir()):
        return
    stored = read_run(folder)
    if stored is None or stored.get("kind") != KIND:
        raise ValueError(f"results folder {folder} is not empty and holds no bgsim cross-check: choose another --out")
    if stored.get("status") == "finished" and not force:
        raise ValueError(f"results folder {folder} holds a finished cross-check: choose another --out, "
                         "or pass --force to replace it")
    for name in (RUN_FILE, *OUTPUTS):
        (folder / name).unlink(missing_ok=True)


def run(args) -> int:
    import bgsim
    from bgsim.bearoff import default_two_sided_checkers
    from bgsim.dice import check_seed
    from experiments.studies import cross_check, cube_audit
    from experiments.running.progress import Progress, duration

    specs = _split(args.players)
    if args.starts < 1:
        raise ValueError(f"--starts must be at least 1, got {args.starts}")
    check_seed(args.seed)
    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    rules = cube_audit.make_rules(specs)  # bad specs fail before anything is written
    folder = Path(args.out)
    _prepare(folder, args.force)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    commit, dirty = git_state()
    command = ["bgsim", "cross-check", "--players", ",".join(specs), "--starts", str(args.starts),
               "--seed", str(args.seed), "--jobs", str(args.jobs), "--out", str(args.out)]
    stored = {"kind": KIND, "status": "running", "bgsim_version": bgsim.__version__,
              "git_commit": commit, "git_dirty": dirty, "command": shlex.join(command),
              "identity": {"players": specs, "starts": args.starts, "seed": args.seed},
              "started": now()}
    write_json(stored, folder / RUN_FILE)
    print(f"sampling {args.starts:,} bear-off starts from {cross_check.SAMPLER} games (seed {args.seed})",
          file=sys.stderr)
    starts = cross_check.sample_starts(args.starts, args.seed, args.jobs)
    write_text("".join(f"{position_id} {game}\n" for position_id, game in starts), folder / STARTS_FILE)
    progress = Progress(len(starts), unit="starts", enabled=not args.no_progress)
    try:
        games = cross_check.play_starts(starts, args.seed, specs, args.jobs, progress.update)
    finally:
        progress.close()
    summary = cross_check.summarise(games, specs)
    sampled = (f"the first pure bear-off of each fast-engine {cross_check.SAMPLER} self-play game (seed "
               f"{args.seed}) where both sides are in the two-sided database (at most "
               f"{default_two_sided_checkers()} checkers a side), kept where the side on roll's exact "
               f"cubeless chance is within {cube_audit.WINDOW[0]:.0%} .. {cube_audit.WINDOW[1]:.0%} "
               f"({starts[-1][1] + 1:,} sampling games)")
    info = {**stored, "starts": len(starts), "source": sampled, "checkers": default_two_sided_checkers()}
    write_table(games, folder / "games.parquet")
    write_text(summary.to_csv(index=False), folder / "cross_check.csv")
    write_text(cross_check.markdown(summary, info), folder / "cross_check.md")
    seconds = time.perf_counter() - started
    stored.update(status="finished", finished=now(), seconds=round(seconds, 1), source=sampled)
    write_json(stored, folder / RUN_FILE)
    played = len(starts) * (1 + 2 * len(specs))  # exact against itself once, each rule twice
    print(f"{played:,} games ({len(starts):,} starts) in {duration(seconds)}; written to {folder}")
    for row in summary.itertuples(index=False):
        print(f"  {row.rule:<34} A {1000 * row.played_out:+8.2f}  B {1000 * row.judged:+8.2f}  "
              f"A-B {1000 * row.difference:+7.2f} ({1000 * row.difference_low:+.2f} .. "
              f"{1000 * row.difference_high:+.2f}) thousandths a game: {row.verdict}")
    return 0
