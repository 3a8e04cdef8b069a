"""``bgsim cube-audit``: every listed cube rule's money decisions in race positions against the
truth (exact bear-off databases, else the labelled estimate); see ``experiments/studies/cube_audit.py``.

The run folder follows the other runs' conventions (``experiments/running/folder.py``): ``run.json``
says what was asked, by which code (``git_commit``, ``git_dirty``, ``bgsim_version``, as every
run) and whether it finished; it is written first, so a run killed at any point is one that
``--resume`` finishes.  ``positions.txt`` holds the positions (with their sampling games),
``chunks/`` the decisions of each block of positions while the run is under way (each file
written whole or not at all), and a finished run leaves ``decisions.parquet`` (one row per
position, question and rule), ``summary.csv``, ``summary.md`` and ``cube_audit.png``.
``--resume`` finishes an interrupted run; a finished one is replaced only with ``--force``.
"""

from __future__ import annotations

import hashlib
import shlex
import shutil
import sys
import time
from pathlib import Path

import pandas as pd

from experiments.running.files import is_temporary, write_json, write_table, write_text
from experiments.running.folder import CHUNK_DIR, RUN_FILE, RunError, git_state, now, read_run

CHUNK_POSITIONS = 500
POSITIONS_FILE = "positions.txt"
OUTPUTS = ("decisions.parquet", "summary.csv", "summary.md", "cube_audit.png", POSITIONS_FILE)


def register(subparsers) -> None:
    audit = subparsers.add_parser(
        "cube-audit",
        help="how often each cube rule errs in races, and what it costs",
        description="Sample race positions (no contact) from fast-engine games of --sampler, or read "
        "position IDs from --from, ask every cube rule of --players for its money decisions (first "
        "double, redouble, take) and compare them with the truth: exact in the two-sided bear-off "
        "database, else an estimate (labelled).  Writes decisions.parquet, summary.csv, summary.md "
        "and a plot to --out.",
    )
    audit.add_argument("--players", required=True, metavar="SPECS",
                       help="cube bot specs, comma-separated, e.g. pipdiff,keith,thorp,exact")
    audit.add_argument("--positions", type=int, default=10_000, metavar="N",
                       help="race positions to sample (three decisions each per rule; default 10000)")
    audit.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the sampling games")
    audit.add_argument("--sampler", default="pubeval", metavar="CHECKER",
                       help="fast checker bot whose games give the positions (default pubeval)")
    audit.add_argument("--per-game", type=int, default=3, metavar="K",
                       help="at most K race positions from each sampling game (default 3)")
    audit.add_argument("--from", dest="source", type=Path, default=None, metavar="FILE",
                       help="read position IDs (one a line) instead of sampling")
    audit.add_argument("--out", type=Path, required=True, metavar="DIR", help="results folder")
    audit.add_argument("--resume", action="store_true", help="finish an interrupted run in --out")
    audit.add_argument("--force", action="store_true", help="replace a run already in --out")
    audit.add_argument("--no-progress", action="store_true", help="no progress bar")
    audit.set_defaults(handler=run)


def _split(text: str) -> list[str]:
    """Comma-separated specs; commas inside a spec's parentheses belong to it."""
    specs, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            specs.append(current.strip())
            current = ""
            continue
        depth += (char == "(") - (char == ")")
        current += char
    specs.append(current.strip())
    if any(not spec for spec in specs):
        raise ValueError(f"--players has an empty spec: {text!r}")
    return specs


def _identity(args, specs: list[str]) -> dict:
    identity = {"players": specs, "positions": args.positions, "seed": args.seed,
                "sampler": args.sampler, "per_game": args.per_game, "source": None}
    if args.source is not None:
        try:
            digest = hashlib.sha256(Path(args.source).read_bytes()).hexdigest()[:16]
        except OSError as error:
            raise ValueError(f"cannot read --from {args.source}: {error.strerror}") from None
        identity.update(source=str(args.source), source_sha256=digest, positions=None, seed=None,
                        sampler=None, per_game=None)
    return identity


def _prepare(folder: Path, identity: dict, resume: bool, force: bool) -> dict | None:
    if folder.exists() and not folder.is_dir():
        raise RunError(f"results folder {folder} is a file, not a folder")
    stored = read_run(folder) if folder.is_dir() else None
    if resume:
        if stored is None:
            raise RunError(f"nothing to resume in {folder}: it holds no {RUN_FILE}")
        if stored.get("identity") != identity:
            raise RunError(f"cannot resume {folder}: it was started with other options; repeat its "
                           f"command with --resume: {stored.get('command')}")
        if stored.get("status") == "finished":
            raise RunError(f"{folder} holds a finished audit: nothing to resume (--force to run it again)")
        return stored
    # a temporary file is what a kill in the middle of writing run.json leaves: not a run
    if folder.is_dir() and any(not is_temporary(path) for path in folder.iterdir()):
        if stored is None or stored.get("kind") != "cube-audit":
            raise RunError(f"results folder {folder} is not empty and holds no bgsim cube audit: choose another --out")
        if not force:
            if stored.get("status") == "finished":
                raise RunError(f"results folder {folder} holds a finished audit: choose another --out, "
                               "or pass --force to replace it")
            raise RunError(f"results folder {folder} holds an unfinished audit: pass --resume to finish it, "
                           "or --force to start it again")
        for name in (RUN_FILE, *OUTPUTS):
            (folder / name).unlink(missing_ok=True)
        shutil.rmtree(folder / CHUNK_DIR, ignore_errors=True)
    return None


def _command(args, specs: list[str]) -> list[str]:
    """The command that reproduces the run, rebuilt from the parsed flags (so it is known however
    bgsim was started: the ``bgsim`` script, ``python -m experiments`` or ``cli.main``)."""
    words = ["bgsim", "cube-audit", "--players", ",".join(specs)]
    if args.source is not None:
        words += ["--from", str(args.source)]
    else:
        words += ["--positions", str(args.positions), "--seed", str(args.seed), "--sampler", args.sampler,
                  "--per-game", str(args.per_game)]
    return words + ["--out", str(args.out)]


def _read_positions_file(path: Path) -> list[tuple[str, int | None]]:
    """positions.txt: a position ID a line, then the sampling game's number where it has one."""
    positions = []
    for line in path.read_text(encoding="utf-8").splitlines():
        words = line.split()
        if words:
            positions.append((words[0], int(words[1]) if len(words) > 1 else None))
    return positions


def _version() -> str:
    import bgsim

    return bgsim.__version__


def run(args) -> int:
    from experiments.studies import cube_audit
    from experiments.running.progress import Progress, duration

    specs = _split(args.players)
    if args.positions < 1:
        raise ValueError(f"--positions must be at least 1, got {args.positions}")
    if args.per_game < 1:
        raise ValueError(f"--per-game must be at least 1, got {args.per_game}")
    rules = cube_audit.make_rules(specs)  # bad specs fail before anything is written
    identity = _identity(args, specs)
    folder = Path(args.out)
    try:
        stored = _prepare(folder, identity, args.resume, args.force)
    except RunError as error:  # one line, as every bad-input error
        raise ValueError(str(error)) from None
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    commit, dirty = git_state()
    if stored is None:
        # run.json first: a kill before positions.txt is whole leaves a run that --resume finishes
        # (it samples again), never a folder that neither a fresh run nor --resume accepts
        if args.source is not None:
            where = f"read from {args.source}"
        else:
            where = f"sampled from fast-engine {args.sampler} games, seed {args.seed}, at most {args.per_game} a game"
        stored = {"kind": "cube-audit", "status": "running", "bgsim_version": _version(),
                  "git_commit": commit, "git_dirty": dirty, "command": shlex.join(_command(args, specs)),
                  "identity": identity, "source": where, "started": now()}
        write_json(stored, folder / RUN_FILE)
    elif commit != stored.get("git_commit") or dirty:
        stored["git_dirty"] = True  # resumed on other code: the rows are not one commit's
    positions_file = folder / POSITIONS_FILE
    if positions_file.exists():
        positions = _read_positions_file(positions_file)
    else:
        shutil.rmtree(folder / CHUNK_DIR, ignore_errors=True)  # chunks of no known positions
        if args.source is not None:
            positions = [(position_id, None) for position_id in cube_audit.read_positions(args.source)]
        else:
            print(f"sampling {args.positions:,} race positions from {args.sampler} games (seed {args.seed})",
                  file=sys.stderr)
            positions = cube_audit.sample_positions(args.sampler, args.positions, args.seed, args.per_game)
        write_text("".join(f"{position_id}\n" if game is None else f"{position_id} {game}\n"
                           for position_id, game in positions), positions_file)
    (folder / CHUNK_DIR).mkdir(exist_ok=True)
    chunks = [positions[start:start + CHUNK_POSITIONS] for start in range(0, len(positions), CHUNK_POSITIONS)]
    done = {index for index in range(len(chunks)) if (folder / CHUNK_DIR / f"chunk-{index:05d}.parquet").exists()}
    progress = Progress(len(positions), sum(len(chunks[i]) for i in done), unit="positions",
                        enabled=not args.no_progress)
    try:
        for index, chunk in enumerate(chunks):
            if index in done:
                continue
            rows = []
            for offset, (position_id, game) in enumerate(chunk):
                for row in cube_audit.judge(position_id, rules):
                    rows.append({**row, "position_index": index * CHUNK_POSITIONS + offset, "game": game})
            rows = pd.DataFrame(rows)
            rows["game"] = rows["game"].astype("Int64")  # none where the positions came from a file
            write_table(rows, folder / CHUNK_DIR / f"chunk-{index:05d}.parquet")
            progress.update(len(chunk))
    finally:
        progress.close()
    frame = pd.concat([pd.read_parquet(folder / CHUNK_DIR / f"chunk-{index:05d}.parquet")
                       for index in range(len(chunks))], ignore_index=True)
    summary = cube_audit.summary_table(frame, specs)
    write_table(frame, folder / "decisions.parquet")
    write_text(summary.to_csv(index=False), folder / "summary.csv")
    info = {**stored, "positions": len(positions), "per_game": args.per_game if args.source is None else None}
    write_text(cube_audit.summary_markdown(frame, summary, specs, info), folder / "summary.md")
    cube_audit.plot(summary, folder / "cube_audit.png")
    stored.update(status="finished", finished=now())
    stored.setdefault("seconds", 0.0)
    stored["seconds"] = round(float(stored["seconds"]) + time.perf_counter() - started, 1)
    write_json(stored, folder / RUN_FILE)
    shutil.rmtree(folder / CHUNK_DIR, ignore_errors=True)
    overall = summary[summary["bucket"] == cube_audit.ALL]
    print(f"{len(frame):,} decisions ({len(positions):,} positions x 3 x {len(specs)} rules) in "
          f"{duration(time.perf_counter() - started)}; written to {folder}")
    for row in overall.itertuples(index=False):
        print(f"  {row.sample:<7} {row.rule:<24} error rate {100 * row.error_rate:6.2f}%   equity lost "
              f"{1000 * row.equity_lost:7.2f} ({1000 * row.equity_lost_low:.2f} .. "
              f"{1000 * row.equity_lost_high:.2f}) thousandths per decision")
    return 0
