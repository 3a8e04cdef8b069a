"""Nackgammon and hypergammon against GNU Backgammon: their starts and their legal plays.

GNU Backgammon plays both.  Its ``gnubg`` module is told each variant as its program is
(``set variation nackgammon``, ``set variation 3-chequer-hypergammon``, then ``new session``)
and its board is the variant's start; one process asks it for all four, with both players
human so that nothing is evaluated (the package ships no hypergammon bear-off databases).  The
moves of both variants are the standard game's, so GNU Backgammon's move generator
(``gnubg_nn.moves``: one key per distinct legal result) is compared with bgsim's on positions
of the variant: every one of the 21 rolls on each position met in random games from the
variant's start, GNU Backgammon choosing each play uniformly among its own list (so bgsim's
move logic never decides which positions are tested).

Both engines answer: the fast engine's generator every pair (at least 20,000 a variant, in a
second or two), the reference's ``legal_plays`` every tenth position's pairs, whose plays must
also be the fast engine's in the same canonical order.  (All 20,000 of Nackgammon's pairs took
the reference's plain-Python search half a minute and more.)
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from functools import lru_cache

import gnubg_nn
import numpy as np
import pytest

from bgsim import Position, legal_plays
from bgsim.fast import legal_plays_fast
from bgsim.position_id import from_gnubg_board, to_gnubg_board

GNUBG_VARIATIONS = {
    "nackgammon": "nackgammon",
    "hypergammon1": "1-chequer-hypergammon",
    "hypergammon2": "2-chequer-hypergammon",
    "hypergammon3": "3-chequer-hypergammon",
}
PAIRS = 20_000
REFERENCE_EVERY = 10  # the reference's legal_plays answers every tenth position's pairs too
ROLLS = [(first, second) for first in range(1, 7) for second in range(first, 7)]
SUMMARY: dict[str, dict[str, int]] = {}


@lru_cache(maxsize=1)
def gnubg_starts() -> dict[str, list[list[int]]]:
    """GNU Backgammon's start of each variation, all from one process."""
    # both players human: otherwise GNU Backgammon may move (and evaluate) at once after the
    # opening roll, which now and then never returns
    lines = ["import gnubg, json",
             "gnubg.command('set player 0 human')",
             "gnubg.command('set player 1 human')"]
    for variation in GNUBG_VARIATIONS.values():
        lines += [f"gnubg.command('set variation {variation}')",
                  "gnubg.command('new session')",
                  f"print('BOARD', {variation!r}, json.dumps(gnubg.board()), flush=True)"]
    done = subprocess.run([sys.executable, "-c", "\n".join(lines) + "\n"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)
    boards = {}
    for line in done.stdout.splitlines():
        if line.startswith("BOARD "):
            _, variation, board = line.split(" ", 2)
            boards[variation] = json.loads(board)
    assert set(boards) == set(GNUBG_VARIATIONS.values()), done.stderr[-2000:]
    return boards


@pytest.mark.parametrize("variant", GNUBG_VARIATIONS)
def test_the_variant_starts_where_gnubg_starts_it(variant):
    theirs = gnubg_starts()[GNUBG_VARIATIONS[variant]]
    assert [list(side) for side in to_gnubg_board(Position.start(variant))] == theirs


def random_game_positions(variant: str, count: int, seed: int) -> list[Position]:
    """Positions (side on roll) met in random games from the variant's start."""
    rng = random.Random(seed)
    positions: list[Position] = []
    while len(positions) < count:
        position = Position.start(variant)
        while len(positions) < count:
            positions.append(position)
            roll = (rng.randint(1, 6), rng.randint(1, 6))
            keys = sorted(gnubg_nn.moves(to_gnubg_board(position), *roll))
            if keys:
                opponent, mover = gnubg_nn.board_from_position_key(rng.choice(keys))
                position = Position(from_gnubg_board(opponent, mover), variant)
            if position.finished:
                break
            position = position.turned()
    return positions


def gnubg_keys(results: np.ndarray) -> list:
    """GNU Backgammon's key of each result board (rows of 26 slots, the mover's), as
    ``key_of_board(to_gnubg_board(...))`` makes it, the boards turned into its two lists at once."""
    on_roll = np.zeros((len(results), 25), dtype=np.int64)
    opponent = np.zeros((len(results), 25), dtype=np.int64)
    on_roll[:, :24] = np.maximum(results[:, 1:25], 0)
    on_roll[:, 24] = results[:, 25]
    opponent[:, :24] = np.maximum(-results[:, 24:0:-1], 0)
    opponent[:, 24] = -results[:, 0]
    return [gnubg_nn.key_of_board([theirs, ours]) for theirs, ours in zip(opponent.tolist(), on_roll.tolist())]


def compare(positions) -> dict[str, int]:
    counts = dict.fromkeys(("pairs", "distinct pairs", "on the bar", "no legal play", "a hit possible",
                            "bear-off", "plays listed", "pairs the reference answered"), 0)
    seen = set()
    mismatches = []
    for number, position in enumerate(positions):
        for roll in ROLLS:
            fast = legal_plays_fast(position, roll).astype(np.int64)
            ours = gnubg_keys(fast)
            theirs = set(gnubg_nn.moves(to_gnubg_board(position), *roll))
            if len(ours) != len(set(ours)) or set(ours) != theirs:
                mismatches.append(f"{position.position_string} {roll[0]}-{roll[1]}: bgsim {sorted(ours)[:3]}, "
                                  f"gnubg {sorted(theirs)[:3]}")
            if number % REFERENCE_EVERY == 0:
                plays = legal_plays(position, roll)
                assert all(play.result.variant == position.variant for play in plays)
                reference = [play.result.board for play in plays]
                if reference != [tuple(row) for row in fast.tolist()]:
                    mismatches.append(f"{position.position_string} {roll[0]}-{roll[1]}: the reference's plays "
                                      f"are not the fast engine's (or not in its order)")
                counts["pairs the reference answered"] += 1
            counts["pairs"] += 1
            seen.add((position, roll))
            counts["on the bar"] += position.board[25] > 0
            counts["no legal play"] += not theirs
            counts["a hit possible"] += bool(len(fast)) and bool((fast[:, 0] < position.board[0]).any())
            counts["bear-off"] += position.all_home
            counts["plays listed"] += len(theirs)
    counts["distinct pairs"] = len(seen)
    assert not mismatches, f"{len(mismatches)} pairs differ:\n" + "\n".join(mismatches[:10])
    return counts


@pytest.mark.parametrize("variant", GNUBG_VARIATIONS)
def test_random_game_plays_of_the_variant_equal_gnubg(variant):
    positions = random_game_positions(variant, -(-PAIRS // len(ROLLS)), seed=18)
    counts = compare(positions)
    SUMMARY[variant] = counts
    assert counts["pairs"] >= PAIRS and counts["pairs the reference answered"] >= PAIRS // REFERENCE_EVERY
    assert counts["on the bar"] > 0 and counts["a hit possible"] > 0 and counts["bear-off"] > 0
    if variant == "nackgammon":
        assert counts["no legal play"] > 0


def test_every_hypergammon1_position_plays_as_gnubg_says():
    """One checker a side: every placement (a point or the bar each, never one point), all 21 rolls."""
    positions = []
    for mine in range(1, 26):
        for theirs in range(0, 25):
            if mine != theirs:
                board = [0] * 26
                board[mine] += 1
                board[theirs] -= 1
                positions.append(Position(tuple(board), "hypergammon1"))
    counts = compare(positions)
    assert counts["distinct pairs"] == (25 * 25 - 24) * 21  # the bar for each, 24 shared points excluded
