"""Where an experiment's deals start: the opening (the default), given positions, or seeded
random races.

An experiment file's ``[starts]`` table holds one of

* ``positions = ["ID", ...]``: game number ``g`` starts from ``positions[g % len(positions)]``
  (GNU Backgammon position IDs or XGIDs, white on roll before its roll; the run keeps them as
  position IDs, and an XGID's cube, dice and score are not used);
* ``race = [P, Q]`` (and optionally ``seed``, default the run's): game ``g`` starts from a random
  race, each side's pip count drawn from ``P..Q`` (see :func:`race_start`).

A start is the same for a game number in both seatings, so under duplicate dice each player
plays each side of every start with the same dice.  Games from a position are money games.
"""

from __future__ import annotations

import math

import numpy as np

from bgsim.board import CHECKERS, Position
from bgsim.interchange.xgid import read_position_text

MAX_RACE_PIPS = 12 * CHECKERS  # every checker on the 12-point: the longest race of this shape


def race_side(rng: np.random.Generator, pips: int) -> dict[int, int]:
    """One side of a random race of exactly ``pips`` pips: checkers on points 1..12 only (so two
    such sides never touch), as many as 15 (fewer for short races: the rest are off)."""
    fewest = max(1, math.ceil(pips / 12))
    checkers = int(rng.integers(fewest, min(CHECKERS, pips) + 1))
    counts = [0] * 13
    counts[1] = checkers
    total = checkers
    while total < pips:  # move a random checker one point out, until the count is reached
        movable = [point for point in range(1, 12) if counts[point]]
        weights = np.array([counts[point] for point in movable], dtype=float)
        point = movable[int(rng.choice(len(movable), p=weights / weights.sum()))]
        counts[point] -= 1
        counts[point + 1] += 1
        total += 1
    return {point: n for point, n in enumerate(counts) if n}


def race_start(seed: int, number: int, low: int, high: int) -> Position:
    """The random race of game ``number``: each side's pips drawn uniformly from ``low..high``,
    from a generator keyed by (seed, number) alone, so any chunking gives the same starts."""
    rng = np.random.default_rng([seed, number])
    white = race_side(rng, int(rng.integers(low, high + 1)))
    black = race_side(rng, int(rng.integers(low, high + 1)))
    return Position.from_points(white, {25 - point: n for point, n in black.items()})


def check_starts(table: dict, run_seed: int, fail) -> dict:
    """The ``[starts]`` table checked and made JSON-ready (``fail(key, problem)`` makes the error)."""
    known = {"positions", "race", "seed"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise fail(f"starts.{unknown[0]}", f"unknown key (known: {', '.join(sorted(known))})")
    if ("positions" in table) == ("race" in table):
        raise fail("starts", "give either positions = [\"ID\", ...] or race = [P, Q]")
    if "positions" in table:
        if "seed" in table:
            raise fail("starts.seed", "a seed is for race = [P, Q] starts only")
        ids = table["positions"]
        if not isinstance(ids, list) or not ids:
            raise fail("starts.positions", "a non-empty list of position IDs")
        positions = []
        for index, text in enumerate(ids):
            try:
                position, _ = read_position_text(str(text))
            except ValueError as error:
                raise fail(f"starts.positions[{index}]", str(error)) from None
            if position.finished:
                raise fail(f"starts.positions[{index}]", f"the game is over in {text}")
            positions.append(position.position_string)
        return {"positions": positions}
    bounds = table["race"]
    if (not isinstance(bounds, list) or len(bounds) != 2
            or any(isinstance(b, bool) or not isinstance(b, int) for b in bounds)
            or not 1 <= bounds[0] <= bounds[1] <= MAX_RACE_PIPS):
        raise fail("starts.race", f"[P, Q]: whole pip counts with 1 <= P <= Q <= {MAX_RACE_PIPS}, got {bounds!r}")
    seed = table.get("seed", run_seed)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise fail("starts.seed", f"a whole number of at least 0, got {seed!r}")
    return {"race": [int(bounds[0]), int(bounds[1])], "seed": int(seed)}


def starts_variants(starts: dict) -> set[str]:
    """The variants of the start positions (random races are standard positions)."""
    if "positions" in starts:
        return {Position.from_string(text).variant for text in starts["positions"]}
    return {"standard"}


def start_positions(starts: dict, numbers: range) -> list[Position]:
    """The start of each game number in ``numbers``."""
    if "positions" in starts:
        ids = starts["positions"]
        return [Position.from_string(ids[number % len(ids)]) for number in numbers]
    low, high = starts["race"]
    return [race_start(starts["seed"], number, low, high) for number in numbers]
