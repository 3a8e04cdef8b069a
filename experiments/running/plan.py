"""What a run plays: pairings, their seeds, chunks of game numbers, and the task of one chunk.

A run is a list of *pairings* (two players under one rule condition).  Each pairing plays game
numbers 0..N-1 in *chunks*; a chunk is played twice, once with the pairing's first player as
white (leg 0) and once with the seats swapped (leg 1).  Under duplicate dice (the default) leg 1
replays the same game numbers, so each side is dealt exactly the dice the other had; without
it, leg 1 plays game numbers N..2N-1.

Seeds.  Pairing k (counting the pairs of players, not the conditions) plays with the seed

    pairing_seed(seed, k) = mix64(mix64(seed) + (k + 1) * GOLDEN) >> 1

that is, the (k+1)-th SplitMix64 output of a stream keyed by the run seed, cut to 63 bits.
Pairings are thus independent of each other yet fixed by the run seed alone, and game g of a
pairing is the same game however the run is chunked, threaded, resumed or spread over Dask.
A pair of players meets under every rule condition with the same seed: the conditions are
compared on common dice, so their differences are measured with less noise.

A chouette experiment plays one *table* per condition instead: one session of its players (the
seats) for game numbers 0..N-1, with the run seed itself as the session seed (every table is
dealt the same dice at game g, and ``bgsim chouette --seed S`` plays the same session).  A
session's chunks follow each other: chunk c starts from the seats the last game of chunk c - 1
left (read from that chunk's rows), so they are played in order, one table's after another's
or side by side.
"""

from __future__ import annotations

import itertools
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from pathlib import Path

from bgsim.cube import Rules
from bgsim.dice import GOLDEN, MASK64, mix64
from bgsim.series import play_games

from .config import Experiment, default_player_factory


@dataclass(frozen=True)
class Pairing:
    index: int
    first: str
    second: str
    condition: str
    rules: Rules
    seed: int


@dataclass(frozen=True)
class Table:
    """A chouette experiment's session under one condition: the players who sit at it (the seats,
    in order), its rules and cube regime, and its seed."""

    index: int
    players: tuple[str, ...]
    condition: str
    rules: Rules
    chouette_cubes: str
    seed: int


def plan_tables(experiment: Experiment) -> list[Table]:
    return [Table(index, experiment.seated(condition), condition, rules, experiment.cubes(condition),
                  experiment.seed)
            for index, (condition, rules) in enumerate(experiment.conditions)]


def plan_units(experiment: Experiment) -> list:
    """What a run plays, each unit in chunks: the pairings of a tournament, the tables of a
    chouette experiment."""
    return plan_tables(experiment) if experiment.chouette else plan_pairings(experiment)


def pairing_seed(seed: int, pair: int) -> int:
    """The seed of the ``pair``-th pair of players (see the module docstring)."""
    return mix64((mix64(seed) + (pair + 1) * GOLDEN) & MASK64) >> 1


def plan_pairings(experiment: Experiment) -> list[Pairing]:
    if experiment.pairings == "against":
        pairs = [(player, experiment.opponent) for player in experiment.players]
    else:
        pairs = list(itertools.combinations(experiment.everyone, 2))
    out = []
    for c, (condition, rules) in enumerate(experiment.conditions):
        for k, (first, second) in enumerate(pairs):
            out.append(Pairing(c * len(pairs) + k, first, second, condition, rules,
                               pairing_seed(experiment.seed, k)))
    return out


def chunk_count(experiment: Experiment) -> int:
    return -(-experiment.games // experiment.chunk)


def chunk_range(experiment: Experiment, chunk: int) -> tuple[int, int]:
    """The game numbers [start, stop) of one chunk (computed, so a billion games costs nothing)."""
    start = chunk * experiment.chunk
    return start, min(start + experiment.chunk, experiment.games)


def chunk_name(pairing: int, chunk: int) -> str:
    return f"pairing-{pairing:03d}-chunk-{chunk:04d}.parquet"


def make_task(experiment: Experiment, pairing: Pairing | Table, chunk: int, threads: int | None,
              before: Path | None = None) -> dict:
    """Everything a worker needs to play one chunk: plain data, spec strings, no objects.
    ``before``: a chouette table's chunk before this one, on disk (its last game's seats and
    winner seat this chunk's first game)."""
    start, stop = chunk_range(experiment, chunk)
    if experiment.chouette:
        seating = None
        if chunk > 0:
            from bgsim.chouette import seating_after

            if before is None:
                raise ValueError(f"chunk {chunk} of table {pairing.index} needs the chunk before it on disk")
            seating = list(seating_after(pd.read_parquet(before, columns=["game", "place", "player", "winner"])).order)
        return {
            "mode": "chouette", "pairing": pairing.index, "chunk": chunk, "condition": pairing.condition,
            "players": list(pairing.players), "seed": pairing.seed, "rules": asdict(pairing.rules),
            "chouette_cubes": pairing.chouette_cubes, "start": start, "stop": stop, "seating": seating,
            "engine": experiment.engine, "threads": threads,
        }
    return {
        "pairing": pairing.index, "chunk": chunk, "condition": pairing.condition,
        "first": pairing.first, "second": pairing.second, "seed": pairing.seed,
        "rules": asdict(pairing.rules), "start": start, "stop": stop,
        "swap_offset": 0 if experiment.duplicate else experiment.games,
        "match_to": experiment.match_length(pairing.condition), "engine": experiment.engine, "threads": threads,
        "starts": experiment.starts, "everyone": list(experiment.everyone),
    }


_PLAYERS: dict = {}


def cached_player(factory, spec: str):
    """One player object per (factory, spec) in this process: bots are built once per worker."""
    key = (factory, spec)
    if key not in _PLAYERS:
        _PLAYERS[key] = factory(spec)
    return _PLAYERS[key]


def play_chunk(task: dict, make_player: Callable[[str], Any] | None = None) -> pd.DataFrame:
    """Play one chunk, both seatings (a chouette table's: its games in order); runs in this
    process or on a Dask worker."""
    factory = make_player or default_player_factory()
    if task.get("mode") == "chouette":
        return play_chouette_chunk(task, factory)
    first, second = cached_player(factory, task["first"]), cached_player(factory, task["second"])
    rules = Rules(**task["rules"])
    scope = nullcontext()
    if task["engine"] != "reference" and task.get("everyone"):
        from bgsim.fast import compile_only_for

        # every pairing of the run on one family of kernels, compiled once (on a Dask worker too): the
        # runner's, which announced its compile (a bot the fast engine has no kernel for adds none)
        scope = compile_only_for([cached_player(factory, name) for name in task["everyone"]])
    start, stop, offset = task["start"], task["stop"], task["swap_offset"]
    common = dict(seed=task["seed"], rules=rules, match_to=task["match_to"],
                  engine=task["engine"], threads=task["threads"])
    numbers = [range(start, stop), range(start + offset, stop + offset)]
    starts = [None, None]
    if task.get("starts"):  # both seatings of a game number start from the same position
        from .starts import start_positions

        starts = [start_positions(task["starts"], leg) for leg in numbers]
    with scope:
        legs = [play_games(first, second, games=numbers[0], start=starts[0], **common),
                play_games(second, first, games=numbers[1], start=starts[1], **common)]
    for leg, frame in enumerate(legs):
        frame["pairing"] = np.int32(task["pairing"])
        frame["condition"] = pd.Series([task["condition"]] * len(frame), dtype="string")
        frame["leg"] = np.int8(leg)
    frame = pd.concat(legs, ignore_index=True)
    return frame.astype({"pairing": "int32", "leg": "int8", "condition": "string"})


def play_chouette_chunk(task: dict, factory: Callable[[str], Any]) -> pd.DataFrame:
    """A chouette table's games ``start``..``stop`` - 1, seated as the task says (the seating
    throws of the seed for the first chunk); the rows of ``bgsim.schema.CHOUETTE_COLUMNS`` with
    the table and its condition."""
    from bgsim.chouette import Seating
    from bgsim.chouette_sessions import Session

    players = [cached_player(factory, spec) for spec in task["players"]]
    seating = Seating(tuple(task["seating"])) if task["seating"] is not None else None
    session = Session(players, task["seed"], Rules(**task["rules"]), task["chouette_cubes"], seating,
                      task["start"], task["engine"])
    frame = session.play(range(task["start"], task["stop"]))
    frame["table"] = np.int32(task["pairing"])
    frame["condition"] = pd.Series([task["condition"]] * len(frame), dtype="string")
    return frame.astype({"table": "int32"})
