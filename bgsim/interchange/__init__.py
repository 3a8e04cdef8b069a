"""Games in and out: eXtreme Gammon's XGID, Jellyfish ``.mat`` files and GNU Backgammon's SGF,
and the replay of a match file through bgsim's rules.

* ``xgid``: read and write XGIDs (:class:`Xgid`; ``xgid_of``, ``position_from_xgid``);
  :func:`read_position_text` takes a position ID, ``POSITIONID:MATCHID`` or an XGID;
* ``records``: a match as a file holds it (:class:`Match`, :class:`Game`, :class:`Action`);
* ``mat`` and ``sgf``: the readers and writers; ``files``: :func:`read_match` and
  :func:`import_match` for a file of either format;
* ``replay``: its :func:`replay.replay`, one row per decision and every problem with its line;
* ``games``: bgsim's own traced games as records (:func:`match_from_records`).

This package is part of the engine layer: it imports nothing from ``bots`` or ``experiments``.
Variants: each writer has a table of GNU Backgammon's variant tags (``VARIANTS``: Nackgammon and
hypergammon 1..3 in both formats) and refuses, in one line, a variant it has no tag for (Dutch,
acey-deucey); the readers take the tags back and the replay plays the variant's start and rules.
"""

from importlib import import_module

# Each name is loaded from its module when first asked for (PEP 562): a bot that needs the XGID
# codec alone does not import the match-file readers and the replay with it.  The replay
# function is bgsim.interchange.replay.replay: the package's ``replay`` is that module.
_HOMES = {
    "import_match": "files", "read_match": "files", "match_from_records": "games",
    "read_mat": "mat", "write_mat": "mat", "Action": "records", "Game": "records", "Match": "records",
    "MatchRules": "records", "RecordError": "records", "Problem": "replay", "Replay": "replay",
    "read_sgf": "sgf", "write_sgf": "sgf", "Xgid": "xgid", "XgidError": "xgid",
    "position_from_xgid": "xgid", "read_position_text": "xgid", "xgid_of": "xgid",
}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


__all__ = sorted(_HOMES)
