"""A chouette session in either engine: :class:`Session` plays it batch by batch, the seats
carried from one batch to the next, in the engine :func:`chouette_engine` chooses.

The games are ``bgsim/chouette.py``'s (the reference engine, the contract) or
``bgsim/fast/chouette.py``'s (the same games in Numba); this module sits above both engines
(``tests/test_imports.py``) and loads the fast one only when it plays there
(``bgsim/fast_loader.py``).
"""

from __future__ import annotations

from typing import Sequence

from . import fast_loader
from .chouette import (
    ChouetteRecord, Seating, _Game, check_chouette_cubes, check_players, first_seating, session_frame,
    session_games,
)
from .cube import Rules
from .decisions import Player
from .dice import check_seed

ENGINES = ("auto", "reference", "fast")


def chouette_engine(engine: str, players: Sequence[Player] = ()) -> str:
    """The engine a chouette of ``players`` runs in for ``engine``, as ``bgsim play`` chooses:
    ``auto`` is the fast engine when it can seat every player, else the reference engine;
    ``fast`` is checked to seat every one (a ValueError in one line names the first it cannot)."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: choose from {', '.join(ENGINES)}")
    if engine == "reference":
        return engine
    fast = fast_loader.load("chouette")
    if engine == "fast":
        fast.Table(players, Rules(), "team")  # the players' checks, one line for the first that fails
        return engine
    return "fast" if all(fast.supports(player) for player in players) else "reference"


class Session:
    """A session played a batch of games at a time in one engine, the seats carried from one
    batch to the next: what ``bgsim chouette`` streams and an experiment's chunks play.

    ``first_game``: the session's first game number; a session that starts later than game 0
    needs that game's ``seating`` (the ``next_seating`` of the game before it).  Everything is
    checked when the session is made.
    """

    def __init__(self, players: Sequence[Player], seed: int, rules: Rules = Rules(),
                 chouette_cubes: str = "team", seating: Seating | None = None, first_game: int = 0,
                 engine: str = "auto") -> None:
        self.players = check_players(players)
        self.seed = check_seed(seed)
        self.first_game = check_seed(first_game, "game number")
        self.chouette_cubes = check_chouette_cubes(chouette_cubes)
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a bgsim.cube.Rules, got {type(rules).__name__}")
        self.rules = rules
        if seating is None:
            if first_game != 0:
                raise ValueError(f"a session continued at game {first_game} needs the seating of that game "
                                 "(the next_seating of the game before it)")
            seating = first_seating(seed, len(self.players))
        elif not isinstance(seating, Seating):
            raise TypeError(f"seating must be a bgsim.chouette.Seating, got {type(seating).__name__}")
        elif len(seating.order) != len(self.players):
            raise ValueError(f"the seating has {len(seating.order)} seats for {len(self.players)} players")
        self.seating = seating  # of the next game to play
        self.next_game = first_game
        self.engine = chouette_engine(engine, self.players)
        self._table = None
        if self.engine == "fast":
            self._table = fast_loader.load("chouette").Table(self.players, rules, chouette_cubes)
        self._finished: list[ChouetteRecord] = []  # the reference engine's games of the batch under way

    def play(self, games: int | range):
        """The next games as a DataFrame (``bgsim.schema.CHOUETTE_COLUMNS``): ``games`` of them,
        or the range of game numbers that starts at the next game."""
        numbers = session_games(range(self.next_game, self.next_game + games) if isinstance(games, int)
                                and not isinstance(games, bool) else games)
        if numbers.start != self.next_game and len(numbers):
            raise ValueError(f"the session's next game is {self.next_game}, not {numbers.start}")
        if self._table is not None:
            from .schema import chouette_frame_from_columns

            columns, order = self._table.play(self.seed, numbers, self.seating.order)
            self.seating = Seating(order)
            self.next_game = numbers.stop
            return chouette_frame_from_columns(columns, self.seed, [player.name for player in self.players],
                                               self.rules, self.chouette_cubes)
        self._finished = []
        for number in numbers:
            record = _Game(self.players, self.seating, self.seed, number, self.rules, self.chouette_cubes,
                           False).play()
            self._finished.append(record)
            self.seating = record.next_seating
            self.next_game = number + 1
        records, self._finished = self._finished, []
        return session_frame(records, self.players, self.rules, self.chouette_cubes)

    def salvage(self):
        """After an interrupted :meth:`play`: the rows of the games it finished, or None (the fast
        engine plays a batch in one call: none of it is finished)."""
        if not self._finished:
            return None
        return session_frame(self._finished, self.players, self.rules, self.chouette_cubes)


def play_chouettes(
    players: Sequence[Player],
    seed: int,
    games: int | range,
    rules: Rules = Rules(),
    chouette_cubes: str = "team",
    seating: Seating | None = None,
    engine: str = "auto",
):
    """The games of session ``seed`` (see :func:`play_session`) as one DataFrame, one row per
    game and player (``bgsim.schema.CHOUETTE_COLUMNS``), played in ``engine`` (``auto``: the
    fast engine when it can seat every player; both give the same rows)."""
    numbers = session_games(games)
    session = Session(players, seed, rules, chouette_cubes, seating, numbers.start if len(numbers) else 0,
                      engine)
    return session.play(numbers) if len(numbers) else session_frame([], players, rules, chouette_cubes)
