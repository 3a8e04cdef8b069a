"""Match play: games to N points with the Crawford rule.

When a side first reaches exactly N-1 points by winning a game, the next game (the Crawford
game) is played without the cube; the games after it (post-Crawford) use the cube again.
Game k of match m uses the dice of game number m, streams 4k.. (see ``bgsim.dice``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cube import Rules
from .decisions import Player
from .game import WHITE, GameRecord, MatchContext, play_game


@dataclass
class MatchRecord:
    seed: int
    match: int
    match_to: int
    winner: str
    white_score: int
    black_score: int
    games: list[GameRecord] = field(default_factory=list)


def check_match_length(match_to) -> int:
    if not isinstance(match_to, int) or isinstance(match_to, bool) or not 1 <= match_to <= 999:
        raise ValueError(f"a match is played to 1..999 points, got {match_to!r}")
    return match_to


def play_match(
    white: Player,
    black: Player,
    seed: int,
    match: int,
    match_to: int,
    rules: Rules = Rules(),
    trace: bool = False,
) -> MatchRecord:
    """Play match number ``match`` of run ``seed`` to ``match_to`` points."""
    check_match_length(match_to)
    rules.check_for_match()
    white_score = black_score = 0
    crawford_next = crawford_done = False
    games: list[GameRecord] = []
    while white_score < match_to and black_score < match_to:
        crawford = crawford_next
        crawford_next = False
        context = MatchContext(
            match_to=match_to, white_score=white_score, black_score=black_score,
            crawford=crawford, post_crawford=crawford_done and not crawford,
            game_in_match=len(games),
        )
        record = play_game(white, black, seed, match, rules, match=context, trace=trace)
        games.append(record)
        if record.winner == WHITE:
            white_score += record.points
            new_score = white_score
        else:
            black_score += record.points
            new_score = black_score
        if not crawford_done and new_score == match_to - 1:
            crawford_next = crawford_done = True
    winner = WHITE if white_score >= match_to else "black"
    return MatchRecord(seed, match, match_to, winner, white_score, black_score, games)
