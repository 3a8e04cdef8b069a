"""``bgsim report DIR-or-FILE``: the summary of anything bgsim writes, from its rows.

A results folder is told by its ``run.json`` (``kind``: an experiment run, a cube audit, a
cross-check), a Parquet file by its columns (the rows of ``bgsim play``, a chouette session,
``bgsim import``, a run, a cube audit's decisions, a cross-check's games).  Each is summarised
from its rows; a file bgsim writes that holds no rows to summarise (a summary, a plot, a match
file, a chunk of an unfinished run, a trained net) gets one line saying what it is and which
command reads it.  A damaged file is an error that names it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from experiments.errors import RunError
from experiments.running.folder import GAMES_FILE, RUN_FILE, read_run


def register(subparsers) -> None:
    report = subparsers.add_parser(
        "report", help="the summary of a results folder or a file bgsim wrote, from its rows",
        description="Summarise what bgsim wrote, from its rows: a `bgsim run` or `bgsim tournament` "
        "results folder (its summary.md, summary.csv and plots are rewritten from games.parquet), a "
        "cube-audit or cross-check folder (or its decisions.parquet / games.parquet), and the Parquet "
        "files of `bgsim play`, `bgsim chouette` and `bgsim import`.  Any other file bgsim writes gets "
        "one line saying what it is and which command reads it.")
    report.add_argument("folder", metavar="DIR-or-FILE",
                        help="a results folder, or a file bgsim wrote (.parquet rows, run.json, ...)")
    report.set_defaults(handler=run_report)


def run_report(args) -> int:
    print(report(Path(args.folder)))
    return 0


# What a file is, by its name, when it holds no rows to summarise: (what it is, who reads it).
NOT_ROWS = {
    "summary.md": ("a summary bgsim wrote", "`bgsim report` on its folder rewrites it from the rows"),
    "summary.csv": ("a summary table bgsim wrote", "`bgsim report` on its folder rewrites it from the rows"),
    "cross_check.md": ("a cross-check's summary", "`bgsim report` on its folder prints it again from the games"),
    "cross_check.csv": ("a cross-check's table", "`bgsim report` on its folder prints it again from the games"),
    "cube_judge.csv": ("a match run's judged cube decisions", "`bgsim report` on its folder reads it"),
    "positions.txt": ("the positions of a cube audit (an ID and its sampling game a line)",
                      "`bgsim cube-audit --resume` reads it; `bgsim report` on its folder summarises the audit"),
    "starts.txt": ("the starts of a cross-check (an ID and its sampling game a line)",
                   "`bgsim cross-check --resume` reads it; `bgsim report` on its folder summarises the check"),
}
BY_SUFFIX = {
    ".mat": ("a match file (Jellyfish .mat)", "`bgsim import` reads it"),
    ".sgf": ("a match file (SGF)", "`bgsim import` reads it"),
    ".png": ("a plot bgsim drew", "`bgsim report` on its folder draws it again"),
    ".npz": ("a net of the nn bot (`bgsim train`)", "play it with nn(weights=FILE)"),
    ".toml": ("an experiment file", "`bgsim run` plays it"),
}


def report(path: Path) -> str:
    if not path.exists():
        raise ValueError(f"{path}: no such results folder or file")
    if path.is_dir():
        return _folder(path)
    if path.name == RUN_FILE:
        return _folder(path.parent)
    if path.suffix == ".parquet":
        return _rows_file(path)
    if path.name in NOT_ROWS or path.name.startswith(("payoff_matrix", "gnubg_")) or path.suffix in BY_SUFFIX:
        what, reader = NOT_ROWS.get(path.name) or BY_SUFFIX.get(path.suffix) or (
            "a table bgsim wrote beside its rows", "`bgsim report` or `bgsim analyse` on the rows rewrites it")
        raise ValueError(f"{path} is {what}, not rows to summarise: {reader}")
    if path.suffix == ".json":
        raise ValueError(f"{path} is not a run's {RUN_FILE}" + (
            ": it is a record of `bgsim bench`, which writes and compares them" if _bench_record(path) else ""))
    raise ValueError(f"{path} is not a file bgsim report reads: give a results folder or the .parquet rows "
                     "of play, chouette, import, a run, a cube audit or a cross-check")


def _bench_record(path: Path) -> bool:
    try:
        return "measurements" in json.loads(path.read_text(encoding="utf-8")) or "machine" in json.loads(
            path.read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return False


def _folder(folder: Path) -> str:
    run = read_run(folder)  # a damaged run.json is an error naming it
    kind = run.get("kind") if run else None
    if run is not None and kind is not None:
        finished = run.get("status") == "finished"
        if not finished:
            again = run.get("command") or "its command"
            raise RunError(f"{folder} holds an unfinished {kind} run: finish it with {again} --resume")
        if kind == "cube-audit":
            return _audit(folder / "decisions.parquet", run)
        if kind == "cross-check":
            return _cross_check(folder / GAMES_FILE, run)
        if kind == "cube-audit-games":
            return _games_audit(folder / "decisions.parquet", run)
        raise ValueError(f"{folder} holds a bgsim {kind} run, which bgsim report does not summarise")
    if not (folder / GAMES_FILE).exists():
        if run is not None:  # an experiment run that has not finished
            raise RunError(f"{folder} holds an unfinished run: finish it with "
                           f"{run.get('command') or 'its command'} --resume")
        raise ValueError(f"{folder} holds no results bgsim wrote (no {RUN_FILE}, no {GAMES_FILE})")
    names = _columns(folder / GAMES_FILE)
    if "pairing" not in names and "table" not in names:  # a chouette run's rows have tables
        return _rows_file(folder / GAMES_FILE)
    from experiments.analysis.report import report_again

    return report_again(folder)


def _columns(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(path).names
    except Exception as error:  # noqa: BLE001 - pyarrow's errors name no common base
        raise ValueError(f"{path} is not a Parquet file bgsim can read ({error})") from None


def _read(path: Path) -> pd.DataFrame:
    try:
        return pd.read_parquet(path)
    except Exception as error:  # noqa: BLE001 - pyarrow's errors name no common base
        raise ValueError(f"{path} is not a Parquet file bgsim can read ({error})") from None


def _rows_file(path: Path) -> str:
    """A Parquet file, told by its columns."""
    from bgsim.interchange.replay import CORE_COLUMNS
    from bgsim.schema import CHOUETTE_COLUMNS

    names = set(_columns(path))
    if path.parent.name == "chunks" and "pairing" in names:
        folder = path.parent.parent
        run = read_run(folder) or {}
        raise ValueError(f"{path} is a chunk of the unfinished run in {folder}: "
                         f"{run.get('command') or 'its command'} --resume finishes it")
    if "pairing" in names:  # a run's games.parquet given as a file
        if path.name == GAMES_FILE and (path.parent / RUN_FILE).exists():
            return _folder(path.parent)
        from experiments.analysis.report import build_report

        frame = _read(path)
        return f"{build_report(frame).text}\n(from the {len(frame)} rows of {path}, a run's games)"
    if {"rule", "role", "question", "equity_lost"} <= names:  # the decisions of real games
        return _games_audit(path, read_run(path.parent) if path.name == "decisions.parquet" else None)
    if {"rule", "question", "equity_lost"} <= names:
        run = read_run(path.parent) if path.name == "decisions.parquet" else None
        return _audit(path, run)
    if {"start", "rule", "seating", "lost"} <= names:
        return _cross_check(path, read_run(path.parent))
    if set(CHOUETTE_COLUMNS) <= names and "table" in names:  # a chouette run's games.parquet given as a file
        if path.name == GAMES_FILE and (path.parent / RUN_FILE).exists():
            return _folder(path.parent)
        from experiments.analysis.chouette_report import build_chouette_report

        frame = _read(path)
        return f"{build_chouette_report(frame).text}\n(from the {len(frame)} rows of {path}, a chouette run's games)"
    if set(CHOUETTE_COLUMNS) <= names:
        return _chouette(path)
    if set(CORE_COLUMNS) <= names:
        return _imported(path)
    if {"white", "black", "game", "white_points"} <= names:
        from experiments.analysis.report import play_report

        return play_report(path)
    raise ValueError(f"{path} holds no rows bgsim writes (its columns: {', '.join(sorted(names)[:8])}...)")


def _audit(path: Path, run: dict | None) -> str:
    from experiments.commands.cube_audit import overall_lines
    from experiments.studies.cube_audit import summary_table

    frame = _read(path)
    rules = list((run or {}).get("identity", {}).get("players") or dict.fromkeys(frame["rule"].astype(str)))
    summary = summary_table(frame, rules)
    positions = frame["position_index"].nunique() if "position_index" in frame else frame["position_id"].nunique()
    head = f"cube audit: {len(frame):,} decisions ({positions:,} positions, {len(rules)} rules)"
    return "\n".join([head, *overall_lines(summary),
                      f"(from {path}; the folder's summary.md has every table)"])


def _games_audit(path: Path, run: dict | None) -> str:
    from experiments.studies.cube_audit_games import PLAYER, summarise, summary_lines

    frame = _read(path)
    players = list(dict.fromkeys(frame.loc[frame["role"] == PLAYER, "rule"].astype(str)))
    rules = list((run or {}).get("identity", {}).get("players") or
                 dict.fromkeys(frame.loc[frame["role"] != PLAYER, "rule"].astype(str)))
    unit = "EMG" if "match_to" in frame and frame["match_to"].max() > 0 else "points"
    head = (f"cube audit of games: {len(frame[frame['role'] == PLAYER]):,} decisions in "
            f"{frame['game'].nunique()} games, the players and {len(rules)} rules")
    return "\n".join([head, *summary_lines(summarise(frame, players + rules), unit),
                      f"(from {path}; the folder's summary.md has every table)"])


def _cross_check(path: Path, run: dict | None) -> str:
    from experiments.commands.cross_check import summary_lines
    from experiments.studies.cross_check import SANITY, summarise

    games = _read(path)
    rules = list((run or {}).get("identity", {}).get("players") or
                 [rule for rule in dict.fromkeys(games["rule"].astype(str)) if rule != SANITY])
    summary = summarise(games, rules)
    head = f"cross-check: {games['start'].nunique():,} starts, {len(games):,} games"
    return "\n".join([head, *summary_lines(summary), f"(from {path})"])


def _chouette(path: Path) -> str:
    from bgsim.schema import CHOUETTE_DTYPES, conform
    from experiments.analysis.chouette import format_chouette_summary, summarize_chouette

    frame = conform(_read(path), CHOUETTE_DTYPES)
    if frame.empty:
        raise ValueError(f"{path} holds no games")
    cubes = str(frame["rule_chouette_cubes"].iloc[0])
    return (format_chouette_summary(summarize_chouette(frame), cubes)
            + f"\n(from the {len(frame)} rows of {path}, a bgsim chouette session)")


def _imported(path: Path) -> str:
    frame = _read(path)
    if frame.empty:
        raise ValueError(f"{path} holds no decisions")
    moves = int((frame["action"] == "move").sum())
    players = list(dict.fromkeys(frame["name"].astype(str)))
    length = int(frame["match_to"].max())
    kind = f"{length}-point match" if length else "money session"
    keys = [name for name in ("file", "match", "game") if name in frame.columns]  # several files or matches
    games = len(frame.drop_duplicates(keys))
    files = frame["file"].nunique() if "file" in frame.columns else 1
    where = f"{files} files, " if files > 1 else ""
    return (f"{path}: the rows of `bgsim import` ({where}{kind}, {' vs '.join(players[:6])}"
            f"{' ...' if len(players) > 6 else ''}): {games} games, {len(frame)} decisions, {moves} moves and "
            f"{len(frame) - moves} cube actions and resignations")
