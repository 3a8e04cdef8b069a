"""GNU Backgammon's program (``gnubg``) reading bgsim's exports: its statistics of a match.

The process itself (finding it, batch scripts split at marks, the persistent session, its cube
analysis and checker plays) is ``bots/gnubg_process.py``, a layer down so that the
``gnubg-program`` players can use it; its names are handed on from here for the judges and
commands that always imported them from this module.

Here: :func:`check_import` (gnubg imports a ``.mat`` or SGF file, saves it back as SGF, analyses
it and reports its statistics: the counts of games, moves and cube actions it read and anything
it complained about) and :func:`analyse_games` (per-game error statistics at a chosen ply).
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bots.gnubg_process import (  # noqa: F401  (handed on: see the docstring)
    CATEGORIES, CANNOT_DOUBLE, COMPLAINTS, DEBIAN_PATH, DOUBLE_PASS, DOUBLE_TAKE, INSTALL_HINT, MARK,
    MAX_PLIES, NO_DOUBLE, OPTIONAL, QUIET_SETUP, TOO_GOOD_PASS, TOO_GOOD_TAKE, CubeDecision,
    GnubgError, answer_within, category_of, check_plies, complaints, cube_decisions, cube_setup, find_gnubg,
    may_double, parse_cube_hint, read_proper, run_script, run_sections, split_sections,
)


# --- statistics ------------------------------------------------------------------------------

_FLOAT = re.compile(r"[-+]?\d+\.\d+")
_INT = re.compile(r"(?<![\d.])-?\d+(?![\d.])")
SECTIONS = {"Chequerplay statistics": "checker", "Luck statistics": "luck",
            "Cube statistics": "cube", "Overall statistics": "overall"}


@dataclass(frozen=True)
class PlayerStatistics:
    """One player's figures from ``show statistics``: counts, and errors in EMG (positive: lost).

    ``checker_error`` is over ``unforced_moves``, ``cube_error`` over ``cube_decisions`` (close
    or actual cube decisions), as GNU Backgammon divides them for its error rates; ``*_rating``
    are its words.
    """

    name: str
    total_moves: int
    unforced_moves: int
    checker_error: float
    checker_rating: str
    cube_decisions_total: int
    cube_decisions: int
    doubles: int
    takes: int
    passes: int
    cube_error: float
    cube_rating: str
    overall_rating: str


def parse_statistics(text: str) -> tuple[PlayerStatistics, PlayerStatistics]:
    """Both players' figures from the output of ``show statistics match`` (or ``game``)."""
    section = None
    names: list[str] | None = None
    values: dict[tuple[str, str], list[str]] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped in SECTIONS:
            section = SECTIONS[stripped]
            continue
        if stripped.startswith("Player ") and names is None:
            names = [line[41:65].strip(), line[65:].strip()]  # gnubg's columns start at 41 and 65
            continue
        if section is None or not stripped:
            continue
        label, _, rest = stripped.partition("  ")
        values[(section, label.strip())] = [part.strip() for part in re.split(r"\s{2,}", rest.strip()) if part.strip()]
    if names is None:
        raise GnubgError(f"no statistics in gnubg's output: {text.strip()[-400:]!r}")

    def number(section: str, prefix: str, player: int, kind=int):
        for (where, label), parts in values.items():
            if where == section and label.startswith(prefix):
                found = (_INT if kind is int else _FLOAT).findall(" ".join(parts))
                step = len(found) // 2
                if step == 0:
                    break
                return kind(found[player * step])
        raise GnubgError(f"gnubg's statistics lack {prefix!r} ({section})")

    def words(section: str, prefix: str, player: int) -> str:
        for (where, label), parts in values.items():
            if where == section and label.startswith(prefix) and len(parts) == 2:
                return parts[player]
        return ""

    out = []
    for player in (0, 1):
        out.append(PlayerStatistics(
            name=names[player],
            total_moves=number("checker", "Total moves", player),
            unforced_moves=number("checker", "Unforced moves", player),
            checker_error=abs(number("checker", "Error total", player, float)),
            checker_rating=words("checker", "Chequerplay rating", player),
            cube_decisions_total=number("cube", "Total cube decisions", player),
            cube_decisions=number("cube", "Close or actual", player),
            doubles=number("cube", "Doubles", player),
            takes=number("cube", "Takes", player),
            passes=number("cube", "Passes", player),
            cube_error=abs(number("cube", "Error total", player, float)),
            cube_rating=words("cube", "Cube decision rating", player),
            overall_rating=words("overall", "Overall rating", player),
        ))
    return out[0], out[1]


# --- (a) reading bgsim's exports -------------------------------------------------------------


@dataclass(frozen=True)
class SgfCounts:
    """What an SGF file GNU Backgammon saved holds: games, rolls (dances included), cube actions."""

    games: int
    moves: int
    doubles: int
    takes: int
    drops: int


def count_sgf(text: str) -> SgfCounts:
    nodes = re.findall(r";[WB]\[([^\]]*)\]", text)
    return SgfCounts(
        games=len(re.findall(r"\(;", text)),
        moves=sum(1 for value in nodes if re.fullmatch(r"[1-6][1-6][a-z]*", value)),
        doubles=sum(1 for value in nodes if value == "double"),
        takes=sum(1 for value in nodes if value == "take"),
        drops=sum(1 for value in nodes if value == "drop"),
    )


@dataclass(frozen=True)
class ImportCheck:
    """What gnubg made of a file: the counts of its own save, its complaints, its statistics."""

    counts: SgfCounts
    complaints: list[str]
    statistics: tuple[PlayerStatistics, PlayerStatistics] | None
    output: str


def _import_command(path: Path) -> str:
    # gnubg 1.07 reads SGF with `load match` (it has no `import sgf`)
    return f"load match {path}" if path.suffix.lower() == ".sgf" else f"import mat {path}"


def check_import(path: str | Path, analyse: bool = True, plies: int = 0, rules_setup: list[str] = (),
                 timeout: float | None = 600) -> ImportCheck:
    """Have gnubg import ``path`` (``.mat`` or ``.sgf``), save what it read as SGF, and (with
    ``analyse``) analyse it at ``plies`` and show the match statistics."""
    path = Path(path).resolve()
    with tempfile.TemporaryDirectory(prefix="bgsim-gnubg-") as folder:
        saved = Path(folder) / "saved.sgf"
        first = [*rules_setup, _import_command(path), f"save match {saved}"]
        sections = [first]
        if analyse:
            sections.append([f"set analysis chequerplay evaluation plies {plies}",
                             f"set analysis cubedecision evaluation plies {plies}",
                             "analyse match", "show statistics match"])
        outputs = run_sections(sections, timeout)
        if not saved.exists():
            raise GnubgError(f"gnubg did not read {path}: {' '.join(complaints(outputs[0]))[:400]}")
        counts = count_sgf(saved.read_text(encoding="utf-8", errors="replace"))
    statistics = parse_statistics(outputs[1]) if analyse else None
    said = complaints(outputs[0])
    return ImportCheck(counts, said, statistics, "".join(outputs))


def analyse_games(path: str | Path, games: int, plies: int = 0, threads: int | None = None,
                  timeout: float | None = None) -> tuple[list[tuple[PlayerStatistics, PlayerStatistics]], str]:
    """gnubg's statistics of each of the ``games`` games in ``path`` after ``analyse match`` at
    ``plies`` (checker play and cube), and all it said."""
    path = Path(path).resolve()
    setup = [f"set analysis chequerplay evaluation plies {plies}",
             f"set analysis cubedecision evaluation plies {plies}"]
    if threads:
        setup.append(f"set threads {threads}")
    sections = [setup + [_import_command(path), "analyse match"]]
    for game in range(games):
        sections.append(["first game" if game == 0 else "next game", "show statistics game"])
    outputs = run_sections(sections, timeout)
    return [parse_statistics(text) for text in outputs[1:]], outputs[0]


__all__ = [
    "CubeDecision", "GnubgError", "INSTALL_HINT", "ImportCheck", "PlayerStatistics", "SgfCounts",
    "analyse_games", "check_import", "complaints", "count_sgf", "cube_decisions", "find_gnubg",
    "parse_cube_hint", "parse_statistics", "run_script", "run_sections", "CATEGORIES", "category_of",
    "answer_within", "check_plies", "cube_setup", "may_double", "read_proper", "split_sections",
]
