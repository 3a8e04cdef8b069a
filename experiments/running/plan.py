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
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

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


def make_task(experiment: Experiment, pairing: Pairing, chunk: int, threads: int | None) -> dict:
    """Everything a worker needs to play one chunk: plain data, spec strings, no objects."""
    start, stop = chunk_range(experiment, chunk)
    return {
        "pairing": pairing.index, "chunk": chunk, "condition": pairing.condition,
        "first": pairing.first, "second": pairing.second, "seed": pairing.seed,
        "rules": asdict(pairing.rules), "start": start, "stop": stop,
        "swap_offset": 0 if experiment.duplicate else experiment.games,
        "match_to": experiment.match_length(pairing.condition), "engine": experiment.engine, "threads": threads,
        "starts": experiment.starts,
    }


_PLAYERS: dict = {}


def cached_player(factory, spec: str):
    """One player object per (factory, spec) in this process: bots are built once per worker."""
    key = (factory, spec)
    if key not in _PLAYERS:
        _PLAYERS[key] = factory(spec)
    return _PLAYERS[key]


def play_chunk(task: dict, make_player: Callable[[str], Any] | None = None) -> pd.DataFrame:
    """Play one chunk, both seatings; runs in this process or on a Dask worker."""
    factory = make_player or default_player_factory()
    first, second = cached_player(factory, task["first"]), cached_player(factory, task["second"])
    rules = Rules(**task["rules"])
    start, stop, offset = task["start"], task["stop"], task["swap_offset"]
    common = dict(seed=task["seed"], rules=rules, match_to=task["match_to"],
                  engine=task["engine"], threads=task["threads"])
    numbers = [range(start, stop), range(start + offset, stop + offset)]
    starts = [None, None]
    if task.get("starts"):  # both seatings of a game number start from the same position
        from .starts import start_positions

        starts = [start_positions(task["starts"], leg) for leg in numbers]
    legs = [play_games(first, second, games=numbers[0], start=starts[0], **common),
            play_games(second, first, games=numbers[1], start=starts[1], **common)]
    for leg, frame in enumerate(legs):
        frame["pairing"] = np.int32(task["pairing"])
        frame["condition"] = pd.Series([task["condition"]] * len(frame), dtype="string")
        frame["leg"] = np.int8(leg)
    frame = pd.concat(legs, ignore_index=True)
    return frame.astype({"pairing": "int32", "leg": "int8", "condition": "string"})
