"""Hypergammon with one checker a side, played uniformly at random: the exact outcome shares.

With one checker each no point is ever closed, so the game is a Markov chain over where the two
checkers stand: (the mover's checker, the other's), each on a point 1..24 or the bar, at most
25 x 25 positions.  The chain below is written from the rulebook alone (RULES.md: moving,
hitting, entering, bearing off, the maximum-dice and larger-die rules, the standard opening
roll, hypergammon's gammon), not from bgsim's move generator, and solved by plain iteration:
``V <- T(V)`` from zero until nothing changes.  A uniformly random player picks each distinct
resulting position with the same chance, which is what the ``random`` bot does.

One checker a side means the loser never has borne off a checker: every game is a gammon or a
backgammon (the loser's checker on the bar or in the winner's home board).
"""

from __future__ import annotations

import math
from functools import lru_cache

import pytest

from bgsim.cube import Rules
from bgsim.decisions import RandomPlayer
from bgsim.game import play_game

BAR = 25
OFF = 0
GAMES = 8_000
Z99 = 2.5758  # two-sided 99% normal quantile


def rolls():
    """The 21 rolls with their chances."""
    for first in range(1, 7):
        for second in range(first, 7):
            yield (first, second), (1 if first == second else 2) / 36


def results(mine: int, theirs: int, roll) -> set[tuple[int, int]]:
    """The distinct (mine, theirs) after the mover plays ``roll``; both in the mover's numbering
    (mine: 1..24 or BAR, OFF once borne off; theirs: 1..24, or 0 on its bar)."""
    first, second = roll
    orders = [(first,) * 4] if first == second else [(first, second), (second, first)]
    found = []  # (dice played, first die, final position)
    for dice in orders:
        at, other, played = mine, theirs, 0
        for die in dice:
            if at == OFF:
                break  # nothing left to move: the other dice are not played
            target = at - die  # from the bar (25) a die d enters on 25 - d
            if target >= 1:
                if target == other:
                    other = 0  # a lone checker is hit and goes to its bar
                at = target
            elif at <= 6:
                at = OFF  # home: a die of the point or more bears the only checker off
            else:
                break
            played += 1
        found.append((played, dice[0], (at, other)))
    most = max(played for played, _, _ in found)
    kept = [(die, result) for played, die, result in found if played == most]
    if first != second and most == 1 and any(die == max(roll) for die, _ in kept):
        kept = [(die, result) for die, result in kept if die == max(roll)]  # the larger die
    return {result for _, result in kept}


def transitions(mine: int, other: int, roll) -> list[tuple[float, tuple]]:
    """(chance, what follows) for each distinct result of ``roll``, chosen uniformly: a win
    ``("gammon" | "backgammon")`` or the next position ``(its mover's checker, the other's)``,
    each in its own numbering."""
    options = results(mine, other, roll)
    following = []
    for at, theirs in sorted(options):
        if at == OFF:  # a backgammon: the loser is on the bar or in the winner's home board
            following.append((1 / len(options), "backgammon" if theirs <= 6 else "gammon"))
        else:  # the other side is on roll: its checker at 25 - theirs (the bar when hit), ours at `at`
            following.append((1 / len(options), (BAR if theirs == 0 else 25 - theirs, at)))
    return following


def step(values, moves) -> tuple[float, float, float, float]:
    """The mover's (win gammon, win backgammon, lose gammon, lose backgammon) over ``moves``:
    (chance, what follows) pairs."""
    total = [0.0, 0.0, 0.0, 0.0]
    for chance, then in moves:
        if then == "gammon":
            total[0] += chance
        elif then == "backgammon":
            total[1] += chance
        else:
            win_g, win_bg, lose_g, lose_bg = values[then]
            total = [total[0] + chance * lose_g, total[1] + chance * lose_bg,
                     total[2] + chance * win_g, total[3] + chance * win_bg]
    return tuple(total)


@lru_cache(maxsize=1)
def solve() -> dict:
    """V[(mine, theirs)] for the side on roll, each checker in its owner's numbering, by plain
    iteration from zero."""
    chain = {}
    for mine in range(1, 26):
        for theirs in range(1, 26):
            other = 0 if theirs == BAR else 25 - theirs
            if mine != other:  # both on one point is never reached
                chain[(mine, theirs)] = [(chance * share, then) for roll, chance in rolls()
                                         for share, then in transitions(mine, other, roll)]
    values = {state: (0.0, 0.0, 0.0, 0.0) for state in chain}
    for _ in range(10_000):
        new = {state: step(values, moves) for state, moves in chain.items()}
        change = max(abs(a - b) for state in chain for a, b in zip(new[state], values[state]))
        values = new
        if change < 1e-15:
            return values
    raise AssertionError("the iteration did not settle")


@lru_cache(maxsize=1)
def solve_length() -> dict:
    """L[(mine, theirs)]: the expected rolls to the end of the game, this one included."""
    chain = {}
    for mine in range(1, 26):
        for theirs in range(1, 26):
            other = 0 if theirs == BAR else 25 - theirs
            if mine != other:
                chain[(mine, theirs)] = [(chance * share, then) for roll, chance in rolls()
                                         for share, then in transitions(mine, other, roll)]
    lengths = {state: 0.0 for state in chain}
    for _ in range(10_000):
        new = {state: 1.0 + sum(chance * lengths[then] for chance, then in moves if isinstance(then, tuple))
               for state, moves in chain.items()}
        change = max(abs(new[state] - lengths[state]) for state in chain)
        lengths = new
        if change < 1e-12:
            return lengths
    raise AssertionError("the iteration did not settle")


def opening_length() -> float:
    """Expected plies of a game (the opening roll is the first)."""
    lengths = solve_length()
    total = 0.0
    for (first, second), _ in rolls():
        if first != second:
            moves = transitions(24, 1, (first, second))
            total += (1.0 + sum(chance * lengths[then] for chance, then in moves if isinstance(then, tuple))) / 15
    return total


def opening_shares() -> tuple[float, float]:
    """(gammon, backgammon) shares of a game: the opening roll is one of the 15 non-doubles,
    each as likely, played by whoever won the throw from 24 against 24."""
    values = solve()
    gammon = backgammon = 0.0
    for (first, second), _ in rolls():
        if first != second:
            win_g, win_bg, lose_g, lose_bg = step(values, transitions(24, 1, (first, second)))
            gammon += (win_g + lose_g) / 15
            backgammon += (win_bg + lose_bg) / 15
    return gammon, backgammon


def test_the_chain_is_a_probability_and_every_game_is_a_gammon_or_backgammon():
    gammon, backgammon = opening_shares()
    assert gammon + backgammon == pytest.approx(1.0, abs=1e-12)
    assert 0.0 < backgammon < 1.0


def test_the_one_checker_rules_of_the_chain():
    # hand-checked cases of the chain's own move rules
    assert results(24, 18, (6, 5)) == {(13, 0), (13, 18)}  # via 18 hits, via 19 does not
    assert results(3, 20, (6, 1)) == {(OFF, 20)}
    assert results(25, 0, (1, 1)) == {(21, 0)}  # enters on 24 and moves on
    assert results(8, 2, (6, 6)) == {(OFF, 0)}  # 8/2* then off: the blot on 2 was hit


def test_random_hypergammon1_shares_equal_the_exact_chain():
    gammon, backgammon = opening_shares()
    player = RandomPlayer()
    rules = Rules(variant="hypergammon1")
    records = [play_game(player, player, 18, number, rules) for number in range(GAMES)]
    assert {record.result for record in records} <= {"gammon", "backgammon"}
    share = sum(record.result == "backgammon" for record in records) / GAMES
    half_width = Z99 * math.sqrt(backgammon * (1 - backgammon) / GAMES)
    assert abs(share - backgammon) <= half_width, (
        f"backgammons {share:.4f} in {GAMES} games, exactly {backgammon:.4f} ± {half_width:.4f} (99%)")
    plies = [record.plies for record in records]
    mean = sum(plies) / GAMES
    spread = math.sqrt(sum((n - mean) ** 2 for n in plies) / (GAMES - 1))
    expected = opening_length()
    assert abs(mean - expected) <= Z99 * spread / math.sqrt(GAMES), (
        f"mean plies {mean:.3f} in {GAMES} games, exactly {expected:.3f}")


FAST_GAMES = 200_000


def test_fast_engine_random_hypergammon1_shares_equal_the_exact_chain():
    """The fast engine's uniform random play over many games: the backgammon share and the mean
    game length within their 99% intervals of the chain's exact values."""
    from bgsim.fast import play_games

    gammon, backgammon = opening_shares()
    player = RandomPlayer()
    frame = play_games(player, player, 18, FAST_GAMES, Rules(variant="hypergammon1"))
    assert set(frame["result"]) <= {"gammon", "backgammon"}
    share = float((frame["result"] == "backgammon").mean())
    half_width = Z99 * math.sqrt(backgammon * (1 - backgammon) / FAST_GAMES)
    assert abs(share - backgammon) <= half_width, (
        f"backgammons {share:.5f} in {FAST_GAMES} games, exactly {backgammon:.5f} ± {half_width:.5f} (99%)")
    plies = frame["plies"].to_numpy(dtype=float)
    expected = opening_length()
    assert abs(plies.mean() - expected) <= Z99 * plies.std(ddof=1) / math.sqrt(FAST_GAMES), (
        f"mean plies {plies.mean():.4f} in {FAST_GAMES} games, exactly {expected:.4f}")
    assert (frame["points"] == frame["result"].map({"gammon": 2, "backgammon": 3}).astype(int)).all()
