"""bgsim's own games as game records: a traced :class:`~bgsim.game.GameRecord` to a
:class:`~bgsim.interchange.records.Game`, and a list of them to a
:class:`~bgsim.interchange.records.Match`.

White is player 0 (the left column of a ``.mat`` file, SGF's White), black player 1.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..board import Position
from ..cube import Rules
from ..game import WHITE, GameRecord
from .records import BEAVER, DOUBLE, DROP, ROLL, TAKE, Action, Game, Match, MatchRules, RecordError

PLAYER = {"white": 0, "black": 1}


def game_from_record(record: GameRecord, number: int, start: Position | None = None) -> Game:
    """The game record of a traced game (``play_game(..., trace=True)``).  ``start``: the
    position the game started from (white on roll), when not the opening."""
    if getattr(record, "forfeit", ""):
        raise RecordError(f"game {record.game} of seed {record.seed} was forfeited by {record.forfeit} "
                          f"({record.forfeit_reason.split(':')[0]}): a match file has no forfeit; choose the "
                          "other games with --games")
    if not record.history:
        raise RecordError(f"game {record.game} of seed {record.seed} was not traced: "
                          "play it with trace=True to record its moves")
    actions: list[Action] = []
    cube = 1 << record.automatic_doubles
    for ply in record.history:
        side = PLAYER[ply.side]
        other = 1 - side
        if ply.cube_action:
            actions.append(Action(DOUBLE, side, value=cube * 2))
            answer = ply.cube_action.split("/")[1]
            if answer == "take":
                actions.append(Action(TAKE, other))
                cube *= 2
            elif answer == "beaver":
                actions.append(Action(BEAVER, other, value=cube * 4))
                actions.append(Action(TAKE, side))
                cube *= 4
            else:
                actions.append(Action(DROP, other))
                break
        if ply.roll is None:  # pragma: no cover - only a drop comes without a roll
            break
        if ply.play and not ply.moves:
            raise RecordError(f"game {record.game} of seed {record.seed} was traced without its moves")
        actions.append(Action(ROLL, side, dice=tuple(ply.roll),
                              moves=tuple((source, target) for source, target, _ in ply.moves)))
    match = record.match
    score = (match.white_score, match.black_score) if match else None
    return Game(
        number=number, score=score, crawford=bool(match.crawford) if match else None,
        actions=actions, winner=PLAYER[record.winner], points=record.points,
        automatic_doubles=record.automatic_doubles, start=start, first=0,
    )


def match_rules(rules: Rules) -> MatchRules:
    """The record's rules of bgsim's rule options (backgammons counted as gammons cannot be
    written: :func:`check_writable` refuses them)."""
    return MatchRules(cube=rules.cube, crawford=True, jacoby=rules.jacoby, beaver=rules.beaver,
                      cube_limit=rules.max_cube, variant=rules.variant)


def match_from_records(records: Iterable[GameRecord], white: str, black: str, rules: Rules = Rules(),
                       match_to: int = 0, starts: Sequence[Position | None] | None = None,
                       tags: dict[str, str] | None = None) -> Match:
    """A match (``match_to`` > 0: the games of one match, in order) or a money session of
    bgsim's traced games.  In a session each game's score is the running total of the points
    won before it, as GNU Backgammon keeps a session's score."""
    records = list(records)
    starts = list(starts) if starts is not None else [None] * len(records)
    games = []
    running = [0, 0]
    for index, (record, start) in enumerate(zip(records, starts)):
        game = game_from_record(record, index + 1, start)
        if not match_to:
            game.score = (running[0], running[1])
            running[PLAYER[record.winner]] += record.points
        games.append(game)
    return Match(players=(white, black), match_to=match_to, rules=match_rules(rules), games=games,
                 tags=dict(tags or {}))


def check_writable(rules: Rules) -> None:
    """Refuse rule options neither file format can say (one clear line)."""
    if rules.backgammon_as_gammon:
        raise RecordError("neither .mat nor SGF can say that a backgammon counts as a gammon "
                          "(rule backgammon_as_gammon): these games cannot be written")


__all__ = ["PLAYER", "WHITE", "check_writable", "game_from_record", "match_from_records", "match_rules"]
