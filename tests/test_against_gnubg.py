"""The legal plays of bgsim against GNU Backgammon's own move generator (the ``gnubg-nn`` package).

For every (position, roll) pair the *set of resulting positions* must be the same: GNU
Backgammon lists one position key per distinct legal result (``gnubg_nn.moves``), bgsim lists
one ``Play`` per distinct result.  The pairs come from two sources:

* random games, driven by GNU Backgammon's generator (so bgsim's own move logic never decides
  which positions get tested), and
* arbitrary legal placements built to be nasty: checkers on the bar against closed boards,
  bear-offs with contact, one straggler outside home while bearing off, primes that block the
  larger die, a handful of checkers left, and so on.

Doubles are over-sampled because they are where move generators usually go wrong.  The counts of
every kind of pair are asserted (so a generator that quietly stops making, say, dances fails) and
printed in the terminal summary.
"""

from __future__ import annotations

import random
import re
import sys

import gnubg_nn
import pytest

from bgsim import Position, legal_plays
from bgsim.position_id import from_gnubg_board, to_gnubg_board

RANDOM_GAME_PAIRS = 8_000
PLACEMENT_PAIRS = 14_000
RANDOM_GAME_SEED = 20_261_129
PLACEMENT_SEED = 1_729


def gnubg_key(position: Position) -> str:
    return gnubg_nn.key_of_board(to_gnubg_board(position))


def gnubg_results(position: Position, roll: tuple[int, int]) -> set[str]:
    return set(gnubg_nn.moves(to_gnubg_board(position), *roll))


def random_roll(rng: random.Random, doubles_share: float) -> tuple[int, int]:
    if rng.random() < doubles_share:
        die = rng.randint(1, 6)
        return die, die
    first = rng.randint(1, 6)
    second = rng.choice([d for d in range(1, 7) if d != first])
    return first, second


# --- pairs from random games --------------------------------------------------------------


def random_game_pairs(count: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """Positions met in random games; GNU Backgammon picks the play, uniformly among its list."""
    rng = random.Random(seed)
    pairs: list[tuple[Position, tuple[int, int]]] = []
    while len(pairs) < count:
        position = Position.start()
        while len(pairs) < count:
            roll = random_roll(rng, 1 / 6)
            pairs.append((position, roll))
            keys = sorted(gnubg_nn.moves(to_gnubg_board(position), *roll))
            if keys:
                opponent, mover = gnubg_nn.board_from_position_key(rng.choice(keys))
                position = Position(from_gnubg_board(opponent, mover))
            if position.checkers_off == 15:
                break
            position = position.turned()
    return pairs


# --- arbitrary placements -----------------------------------------------------------------


class Placement:
    """A board being filled, in the numbering of the side on roll (own > 0, opponent < 0)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.board = [0] * 26
        self.own = 0
        self.opponent = 0

    def free_for(self, sign: int, points) -> list[int]:
        return [p for p in points if self.board[p] * sign >= 0]

    def put(self, sign: int, point: int, count: int) -> None:
        assert self.board[point] * sign >= 0, "both sides on one point"
        self.board[point] += sign * count
        if sign > 0:
            self.own += count
        else:
            self.opponent += count

    def left(self, sign: int) -> int:
        return 15 - (self.own if sign > 0 else self.opponent)

    def scatter(self, sign: int, count: int, points, stack: float = 0.3) -> None:
        """Drop up to ``count`` checkers on ``points`` (stacking some) where the other side is not."""
        count = min(count, self.left(sign))
        while count > 0:
            free = self.free_for(sign, points)
            if not free:
                return
            point = self.rng.choice(free)
            lump = min(count, self.rng.randint(2, 4) if self.rng.random() < stack else 1)
            self.put(sign, point, lump)
            count -= lump

    def close(self, sign: int, points) -> None:
        """Make a point (two or three checkers) on each of ``points`` where the other side is not."""
        for point in points:
            if self.left(sign) < 2:
                return
            if self.board[point] * sign >= 0:
                self.put(sign, point, min(self.left(sign), self.rng.choice((2, 2, 3))))

    def bar(self, sign: int, count: int) -> None:
        count = min(count, self.left(sign))
        if sign > 0:
            self.board[25] += count
            self.own += count
        else:
            self.board[0] -= count
            self.opponent += count

    def position(self) -> Position:
        return Position(tuple(self.board))


OWN, OPP = 1, -1
EVERYWHERE = range(1, 25)
OWN_HOME = range(1, 7)
OUTSIDE_HOME = range(7, 25)
ENTRY_POINTS = range(19, 25)  # where the side on roll enters: 25 - die


def on_the_bar_against_points(rng: random.Random) -> Position:
    """One to four (sometimes many more) of ours on the bar, several entry points closed."""
    place = Placement(rng)
    place.bar(OWN, rng.choice((1, 1, 2, 2, 3, 4, rng.randint(5, 15))))
    closed = rng.sample(list(ENTRY_POINTS), rng.randint(0, 6))
    place.close(OPP, closed)
    place.scatter(OPP, rng.randint(0, 3), ENTRY_POINTS, stack=0.0)  # blots to hit on entry
    place.bar(OPP, rng.choice((0, 0, 1, 2)))
    place.scatter(OWN, rng.randint(0, place.left(OWN)), EVERYWHERE)
    place.scatter(OPP, rng.randint(0, place.left(OPP)), EVERYWHERE)
    return place.position()


def closed_board(rng: random.Random) -> Position:
    """All six entry points closed (or five, leaving one gap): most rolls dance or half-dance."""
    place = Placement(rng)
    points = list(ENTRY_POINTS)
    if rng.random() < 0.5:
        points.remove(rng.choice(points))
    place.close(OPP, points)
    place.bar(OWN, rng.randint(1, 4))
    place.scatter(OWN, rng.randint(0, place.left(OWN)), EVERYWHERE)
    place.scatter(OPP, place.left(OPP), EVERYWHERE)
    return place.position()


def bear_off_with_contact(rng: random.Random) -> Position:
    """All ours home (some off), opponent checkers sitting in our home board or on its bar."""
    place = Placement(rng)
    place.scatter(OPP, rng.randint(1, 6), OWN_HOME, stack=0.4)
    place.bar(OPP, rng.choice((0, 0, 1, 2)))
    place.scatter(OWN, rng.randint(1, 15), OWN_HOME, stack=0.5)
    place.scatter(OPP, rng.randint(0, place.left(OPP)), EVERYWHERE)
    return place.position()


def straggler_outside_home(rng: random.Random) -> Position:
    """Bearing off but for one checker outside (or on the bar): it must come home first."""
    place = Placement(rng)
    place.scatter(OPP, rng.randint(0, 5), OWN_HOME, stack=0.5)
    if rng.random() < 0.25:
        place.bar(OWN, 1)
    else:
        outside = place.free_for(OWN, range(7, rng.choice((9, 13, 25))))
        if outside:
            place.put(OWN, rng.choice(outside), 1)
    place.scatter(OWN, rng.randint(1, 14), OWN_HOME, stack=0.5)
    place.scatter(OPP, rng.randint(0, place.left(OPP)), EVERYWHERE)
    return place.position()


def behind_a_prime(rng: random.Random) -> Position:
    """Our back checkers behind four to six consecutive closed points: big dice are blocked."""
    place = Placement(rng)
    length = rng.randint(4, 6)
    top = rng.randint(length + 1, 23)
    place.close(OPP, range(top - length + 1, top + 1))
    behind = place.free_for(OWN, range(top + 1, 25))
    for _ in range(rng.randint(1, 4)):
        if behind:
            place.put(OWN, rng.choice(behind), 1)
    if rng.random() < 0.3:
        place.bar(OWN, rng.randint(1, 2))
    place.scatter(OWN, rng.randint(0, place.left(OWN)), range(1, top - length + 1), stack=0.5)
    place.scatter(OPP, rng.randint(0, place.left(OPP)), EVERYWHERE)
    return place.position()


def last_few_checkers(rng: random.Random) -> Position:
    """One to three checkers a side anywhere: where the larger-die and bear-off rules bite."""
    place = Placement(rng)
    place.scatter(OPP, rng.randint(1, 3), EVERYWHERE, stack=0.0)
    if rng.random() < 0.5:
        place.scatter(OWN, rng.randint(1, 3), OWN_HOME, stack=0.3)
    else:
        place.scatter(OWN, rng.randint(1, 3), range(1, rng.randint(7, 24)), stack=0.3)
    return place.position()


def anything(rng: random.Random) -> Position:
    """Any number of checkers a side anywhere, bars included."""
    place = Placement(rng)
    place.bar(OWN, rng.choice((0, 0, 0, 1, 2)))
    place.bar(OPP, rng.choice((0, 0, 0, 1, 2)))
    for _ in range(rng.randint(1, 3)):
        place.scatter(OWN, rng.randint(0, 8), EVERYWHERE, stack=0.4)
        place.scatter(OPP, rng.randint(0, 8), EVERYWHERE, stack=0.4)
    return place.position()


PLACEMENTS = (
    on_the_bar_against_points,
    closed_board,
    bear_off_with_contact,
    straggler_outside_home,
    behind_a_prime,
    last_few_checkers,
    anything,
)


def placement_pairs(count: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    rng = random.Random(seed)
    pairs: list[tuple[Position, tuple[int, int]]] = []
    while len(pairs) < count:
        position = rng.choice(PLACEMENTS)(rng)
        if position.checkers_off == 15:
            continue  # nothing left to move: the game is over
        for _ in range(3):
            pairs.append((position, random_roll(rng, 1 / 3)))
    return pairs[:count]


# --- the comparison -----------------------------------------------------------------------

SUMMARY: dict[str, dict[str, int]] = {}


def compare(pairs) -> dict[str, int]:
    """Compare every pair and count the kinds met; the first mismatches go into the failure."""
    counts = dict.fromkeys(
        ("pairs", "doubles", "on the bar", "several on the bar", "no legal play",
         "bear-off with contact", "one die or less played", "a hit possible", "plays listed"), 0)
    mismatches = []
    for position, roll in pairs:
        plays = legal_plays(position, roll)
        ours = [gnubg_key(play.result) for play in plays]
        theirs = gnubg_results(position, roll)
        if len(ours) != len(set(ours)) or set(ours) != theirs:
            mismatches.append(
                f"{position.position_id} {roll[0]}-{roll[1]}: bgsim {len(set(ours))}/{len(ours)}, "
                f"gnubg {len(theirs)}; only bgsim {sorted(set(ours) - theirs)[:3]}, "
                f"only gnubg {sorted(theirs - set(ours))[:3]}"
            )
        board = position.board
        counts["pairs"] += 1
        counts["doubles"] += roll[0] == roll[1]
        counts["on the bar"] += board[25] > 0
        counts["several on the bar"] += board[25] > 1
        counts["no legal play"] += not theirs
        counts["bear-off with contact"] += position.all_home and not position.is_race
        counts["plays listed"] += len(theirs)
        # judged from GNU Backgammon's results alone: the mover's pips fell by one die only
        before = position.pip_count
        if theirs and roll[0] != roll[1]:
            moved = {before - _pips_of(key) for key in theirs}
            counts["one die or less played"] += max(moved) <= max(roll)
        counts["a hit possible"] += any(_opponent_bar_of(key) > -board[0] for key in theirs)
    assert not mismatches, f"{len(mismatches)} of {len(pairs)} pairs differ:\n" + "\n".join(mismatches[:10])
    return counts


def _pips_of(key: str) -> int:
    _, mover = gnubg_nn.board_from_position_key(key)
    return sum((index + 1) * count for index, count in enumerate(mover))


def _opponent_bar_of(key: str) -> int:
    opponent, _ = gnubg_nn.board_from_position_key(key)
    return opponent[24]


@pytest.mark.parametrize("count", [RANDOM_GAME_PAIRS], ids=lambda n: f"{n}_pairs")
def test_random_game_plays_equal_gnubg(count):
    counts = compare(random_game_pairs(count, seed=RANDOM_GAME_SEED))
    SUMMARY["random games"] = counts
    assert counts["pairs"] == count
    assert counts["doubles"] > count // 10
    assert counts["on the bar"] > count // 50
    assert counts["no legal play"] > 0
    assert counts["a hit possible"] > count // 10


@pytest.mark.parametrize("count", [PLACEMENT_PAIRS], ids=lambda n: f"{n}_pairs")
def test_nasty_placement_plays_equal_gnubg(count):
    counts = compare(placement_pairs(count, seed=PLACEMENT_SEED))
    SUMMARY["nasty placements"] = counts
    assert counts["pairs"] == count
    assert counts["doubles"] > count // 4
    assert counts["on the bar"] > count // 4
    assert counts["several on the bar"] > count // 10
    assert counts["no legal play"] > count // 20
    assert counts["bear-off with contact"] > count // 10
    assert counts["one die or less played"] > count // 50
    assert counts["a hit possible"] > count // 10


def test_at_least_twenty_thousand_pairs_are_compared(monkeypatch):
    # distinct pairs, told apart by GNU Backgammon's own position key: the random games meet the
    # opening again and again and a placement is thrown three rolls, which may repeat
    pairs = (random_game_pairs(RANDOM_GAME_PAIRS, seed=RANDOM_GAME_SEED)
             + placement_pairs(PLACEMENT_PAIRS, seed=PLACEMENT_SEED))
    distinct = {(gnubg_key(position), tuple(sorted(roll))) for position, roll in pairs}
    assert len(distinct) >= 20_000, len(distinct)
    # and each pair is compared: one play lost or listed twice, in one pair of a sample, fails it
    sample = pairs[:40] + pairs[-40:]
    assert compare(sample)["pairs"] == len(sample)
    module, bgsim_plays = sys.modules[__name__], legal_plays
    target, target_roll = next((position, roll) for position, roll in sample
                               if len(bgsim_plays(position, roll)) > 1)
    for change in (lambda plays: plays[:-1], lambda plays: plays + plays[:1]):
        def planted(position, roll, change=change):
            plays = list(bgsim_plays(position, roll))
            return change(plays) if position is target and roll == target_roll else plays

        monkeypatch.setattr(module, "legal_plays", planted)
        with pytest.raises(AssertionError, match=f"^1 of {len(sample)} pairs differ"):
            compare(sample)
        monkeypatch.undo()


def test_the_placements_are_legal_positions():
    # every generator must give 15 or fewer checkers a side and never share a point: the
    # Position constructor checks the counts, this checks the generators cover what they claim
    rng = random.Random(7)
    for make in PLACEMENTS:
        for _ in range(200):
            position = make(rng)
            opponent, mover = to_gnubg_board(position)
            assert sum(opponent) <= 15 and sum(mover) <= 15
            assert all(not (mover[p - 1] and opponent[24 - p]) for p in range(1, 25))
    for _ in range(200):
        assert closed_board(rng).board[25] >= 1
        assert on_the_bar_against_points(rng).board[25] >= 1
        position = bear_off_with_contact(rng)
        assert position.all_home and any(position.board[p] < 0 for p in range(0, 7))


# --- notation against GNU Backgammon's formatter ----------------------------------------------

NOTATION_PAIRS = 3_000
_TOKEN = re.compile(r"^(.*?)(?:\((\d)\))?$")


def _read_notation(text: str) -> tuple[list[str], set[str]]:
    """The moves of a notation, one ``from/to`` entry per checker, and the points hit.

    GNU Backgammon counts one hitting and two plain checkers on the same path as ``6/2*(3)``
    (``20/14*/8(2)``) where bgsim writes ``6/2* 6/2(2)`` (``20/14*/8 20/8``); with the hits
    taken apart the two read the same.
    """
    moves, hits = [], set()
    for token in text.split():
        path, count = _TOKEN.match(token).groups()
        stops = path.split("/")
        hits |= {stop[:-1] for stop in stops if stop.endswith("*")}
        moves += [stops[0] + "/" + stops[-1].rstrip("*")] * int(count or 1)
    return sorted(moves), hits


def test_notation_reads_like_gnubgs():
    """bgsim's notation of each play against ``gnubg.movetupletostring`` of the same moves:
    the same checker paths (joined the same way) and the same hits."""
    import gnubg

    pairs = random_game_pairs(NOTATION_PAIRS // 2, seed=31) + placement_pairs(NOTATION_PAIRS // 2, seed=37)
    compared = 0
    differ = []
    for position, roll in pairs:
        board = to_gnubg_board(position)
        for play in legal_plays(position, roll):
            # GNU Backgammon's move tuple: from and to per move, points 1..24, 25 the bar, 0 off
            moves = tuple(point for source, target, _ in play.moves for point in (source, target))
            theirs = gnubg.movetupletostring(moves, board).strip()
            compared += 1
            if _read_notation(theirs) != _read_notation(play.notation):
                differ.append(f"{position.position_id} {roll}: bgsim {play.notation!r}, gnubg {theirs!r}")
    SUMMARY["notation"] = {"pairs": len(pairs), "plays written": compared}
    assert not differ, f"{len(differ)} of {compared} differ:\n" + "\n".join(differ[:10])
