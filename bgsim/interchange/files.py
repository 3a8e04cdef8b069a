"""Reading match files of either format, whole or as a stream, and taking them through the replay.

A file is read as it is needed, a line (``.mat``) or a megabyte (SGF) at a time, so a file of any
size is read in flat memory: :func:`iter_file` gives each match and its games as they come,
:func:`import_games` each game replayed.  The text is UTF-8, else Latin-1 line by line (older
``.mat`` files), or UTF-16 / UTF-32 where a byte-order mark (or UTF-16's zero bytes) says so.
"""

from __future__ import annotations

import codecs
import io
from dataclasses import dataclass
from pathlib import Path

from .mat import iter_mat
from .records import Match, Problem, RecordError
from .replay import GameReplay, Replay, check_variant, replay_games
from .sgf import CHUNK, iter_sgf

SUFFIXES = {".mat": "mat", ".txt": "mat", ".gam": "mat", ".sgf": "sgf"}
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


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


def encoding_of(head: bytes) -> str | None:
    """The encoding the first bytes of a file say it is in (a byte-order mark, or UTF-16's zero
    bytes); None: UTF-8, else Latin-1."""
    for mark, name in _BOMS:
        if head.startswith(mark):
            return name
    if len(head) >= 4 and head[1] == 0 and head[3] == 0 and head[0] and head[2]:
        return "utf-16-le"
    if len(head) >= 4 and head[0] == 0 and head[2] == 0 and head[1] and head[3]:
        return "utf-16-be"
    return None


def _decoded(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("latin-1")


def _nothing(count: int) -> None:
    pass


def iter_lines(path: str | Path, read=_nothing):
    """The file's lines as text, one at a time (see the module docstring); ``read(n)`` is told
    the bytes each line took (a progress bar)."""
    with open(path, "rb") as handle:
        encoding = encoding_of(handle.read(4))
        handle.seek(0)
        if encoding is not None:
            width = 4 if encoding.startswith("utf-32") else 2
            for line in io.TextIOWrapper(handle, encoding=encoding, errors="replace", newline=None):
                read(width * len(line))
                yield line.rstrip("\r\n")
            return
        first = True
        for line in handle:
            read(len(line))
            text = _decoded(line).rstrip("\r\n")
            if first and text.startswith("\ufeff"):
                text = text[1:]
            first = False
            yield text


def iter_chunks(path: str | Path, read=_nothing):
    """The file's text a megabyte at a time (``read``: as for :func:`iter_lines`)."""
    with open(path, "rb") as handle:
        encoding = encoding_of(handle.read(4)) or "utf-8-sig"
        handle.seek(0)
        reader = io.TextIOWrapper(handle, encoding=encoding, errors="replace", newline=None)
        while True:
            piece = reader.read(CHUNK)
            if not piece:
                return
            read(len(piece))
            yield piece


def read_text(path: str | Path) -> str:
    """The file's whole text (see :func:`iter_lines`)."""
    return "\n".join(iter_lines(path)) + "\n"


def _head(path: Path) -> str:
    with open(path, "rb") as handle:
        data = handle.read(4096)
    encoding = encoding_of(data[:4])
    return data.decode(encoding or "utf-8", errors="replace")


def iter_file(path: str | Path, read=_nothing):
    """Each match of a ``.mat`` or ``.sgf`` file as ``(match, games)``, the games read as they are
    needed (the unreadable ones among them, ``game.rejected`` saying why); ``read(n)`` is told
    the bytes read as they are.  RecordError when the file is neither, or its header cannot be
    read."""
    path = Path(path)
    if file_format(path, _head(path)) == "sgf":
        yield from iter_sgf(iter_chunks(path, read))
    else:
        yield from iter_mat(iter_lines(path, read))


def read_match(path: str | Path) -> tuple[Match, list[Problem]]:
    """The (first) match a ``.mat`` or ``.sgf`` file holds and the problems met reading it; the
    games the reader could not read are left out of ``match.games``."""
    for match, games in iter_file(path):
        problems: list[Problem] = []
        for game in games:
            problems.extend(game.problems)
            if game.rejected is not None:
                problems.append(game.rejected)
            else:
                match.games.append(game)
        return match, sorted(problems, key=lambda problem: problem.line)
    raise RecordError(f"{path}: no match in the file")  # pragma: no cover - the readers raise first


@dataclass
class Imported:
    """One game of a file taken through the replay: which match of the file (0, 1, ...), the
    match (its players, length and rules), and the game replayed."""

    match_index: int
    match: Match
    done: GameReplay


def import_games(path: str | Path, read=_nothing):
    """Every game of the file replayed, one at a time (:class:`Imported` each), in flat memory
    (``read``: as for :func:`iter_file`).  RecordError when the file cannot be read at all, or
    holds a variant with checkers in hand."""
    for index, (match, games) in enumerate(iter_file(path, read)):
        check_variant(match)
        for done in replay_games(match, games):
            yield Imported(index, match, done)


def import_match(path: str | Path) -> tuple[Match, Replay]:
    """Read ``path`` and replay every game: one row per decision of every sound game, and every
    problem of reading and replaying in the order of the file's lines (the first match of a file
    that holds several; :func:`import_games` reads them all)."""
    out = Replay()
    found: Match | None = None
    for imported in import_games(path):
        if imported.match_index:
            break
        found = imported.match
        out.rows.extend(imported.done.rows)
        out.problems.extend(imported.done.problems)
        if imported.done.result is not None:
            out.games.append(imported.done.result)
            found.games.append(imported.done.game)
    if found is None:
        found = next(iter(iter_file(path)))[0]
    out.problems.sort(key=lambda problem: problem.line)
    return found, out


__all__ = ["Imported", "RecordError", "encoding_of", "file_format", "import_games", "import_match", "iter_file",
           "iter_lines", "read_match", "read_text"]
