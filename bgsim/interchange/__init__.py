"""Games in and out: eXtreme Gammon's XGID, Jellyfish ``.mat`` files and GNU Backgammon's SGF,
and the replay of a match file through bgsim's rules.

* ``xgid``: read and write XGIDs (:class:`Xgid`; ``xgid_of``, ``position_from_xgid``);
  :func:`read_position_text` takes a position ID, ``POSITIONID:MATCHID`` or an XGID;
* ``records``: a match as a file holds it (:class:`Match`, :class:`Game`, :class:`Action`);
* ``mat`` and ``sgf``: the readers and writers; ``files``: :func:`read_match` and
  :func:`import_match` for a file of either format;
* ``replay``: :func:`replay`, one row per decision and every problem with its line;
* ``games``: bgsim's own traced games as records (:func:`match_from_records`).

This package is part of the engine layer: it imports nothing from ``bots`` or ``experiments``.
Variants: each writer has a table of GNU Backgammon's variant tags (``VARIANTS``: Nackgammon and
hypergammon 1..3 in both formats) and refuses, in one line, a variant it has no tag for (Dutch,
acey-deucey); the readers take the tags back and the replay plays the variant's start and rules.
"""

from .files import import_match, read_match
from .games import match_from_records
from .mat import read_mat, write_mat
from .records import Action, Game, Match, MatchRules, RecordError
from .replay import Problem, Replay, replay
from .sgf import read_sgf, write_sgf
from .xgid import Xgid, XgidError, position_from_xgid, read_position_text, xgid_of

__all__ = [
    "Action", "Game", "Match", "MatchRules", "Problem", "RecordError", "Replay", "Xgid", "XgidError",
    "import_match", "match_from_records", "read_mat", "read_match", "read_position_text", "read_sgf",
    "replay", "write_mat", "write_sgf",
]
