"""Reading a match file of either format, and taking it through the replay."""

from __future__ import annotations

from pathlib import Path

from .mat import read_mat
from .records import Match, RecordError
from .replay import Problem, Replay, replay
from .sgf import read_sgf

SUFFIXES = {".mat": "mat", ".txt": "mat", ".gam": "mat", ".sgf": "sgf"}


def file_format(path: str | Path, text: str) -> str:
    """``mat`` or ``sgf``, by the name, else by the text; RecordError for anything else."""
    suffix = Path(path).suffix.lower()
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith("(;"):
        return "sgf"
    if " point match" in text.lower() or "\n game 1" in text.lower():
        return "mat"
    raise RecordError(f"{path}: unknown format (neither a Jellyfish .mat match file nor an SGF record)")


def read_text(path: str | Path) -> str:
    """The file's text: UTF-8, else Latin-1 (older .mat files are not UTF-8)."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_match(path: str | Path) -> tuple[Match, list[Problem]]:
    """The match a ``.mat`` or ``.sgf`` file holds and the problems met reading it."""
    text = read_text(path)
    if file_format(path, text) == "sgf":
        return read_sgf(text)
    return read_mat(text)


def import_match(path: str | Path) -> tuple[Match, Replay]:
    """Read ``path`` and replay every game: one row per decision of every sound game, and every
    problem of reading and replaying in the order of the file's lines."""
    match, problems = read_match(path)
    done = replay(match)
    done.problems = sorted(problems + done.problems, key=lambda problem: problem.line)
    return match, done


__all__ = ["RecordError", "file_format", "import_match", "read_match", "read_text"]
