"""A game record taken through the reference engine: one row per decision, and every problem.

:func:`replay` walks each game of a :class:`~bgsim.interchange.records.Match` from its start,
checks every roll's moves against :func:`bgsim.rules.legal_plays` and every cube action
against the cube's rules, and gives one row per decision (a play, a double, a beaver, a take, a
drop, a resignation) with the position before it.  A move the rules do not allow, a position it
cannot reach, a game that stops before it is over: each is a :class:`Problem` with the file's
line, that game is left out (its rows too), and the replay goes on with the next game.  A score
that does not add up, or an end that does not match the board, is a problem too, but the game's
moves are sound and its rows are kept.

Which written moves make which play: the steps are applied as written (a checker landing on a
lone opposing checker hits it), and the legal play with that result is the one.  When none has
it (a combined move such as ``61: 11/4`` that passes a blot without marking the hit, or steps
written in an order that cannot be played) the play whose own checkers end where the written
ones do is taken, if exactly one legal play does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..board import Position
from ..match_id import MatchState, encode as encode_match_id
from ..rules import Play, legal_plays
from ..cube import Rules
from ..scoring import MULTIPLIER, points_for, result_of
from . import xgid as xg
from ..variants import variant_of
from .records import (BEAVER, DOUBLE, DROP, RESIGN, ROLL, TAKE, Action, Game, Match, RecordError, apply_steps,
                      is_crawford)

MOVE = "move"  # the row's action for a roll and its play
ROW_COLUMNS = (
    "game", "ply", "decision", "player", "name", "on_roll", "action", "dice", "play", "match_to",
    "score", "opponent_score", "crawford", "cube_value", "cube_owner", "may_double",
    "position_id", "match_id", "xgid", "result_id", "line", "variant",
)


@dataclass(frozen=True)
class Problem:
    """Something in the record the rules do not allow or that does not add up.

    ``rejected``: the game was left out of the rows.
    """

    line: int
    game: int | None
    message: str
    rejected: bool = False

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "(no line)"
        game = f" (game {self.game})" if self.game is not None else ""
        tail = "; the game is left out" if self.rejected else ""
        return f"{where}{game}: {self.message}{tail}"


@dataclass(frozen=True)
class GameResult:
    """How a replayed game ended: ``result`` single, gammon, backgammon, drop or resign."""

    number: int
    winner: int
    result: str
    points: int
    cube_value: int
    plies: int
    score: tuple[int, int]
    crawford: bool


@dataclass
class Replay:
    rows: list[dict] = field(default_factory=list)
    games: list[GameResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def rejected(self) -> int:
        return sum(1 for problem in self.problems if problem.rejected)

    def frame(self):
        import pandas as pd

        frame = pd.DataFrame(self.rows, columns=list(ROW_COLUMNS))
        return frame.astype({
            "game": "int32", "ply": "int32", "decision": "int32", "player": "int8", "name": "string",
            "on_roll": "int8", "action": "category", "dice": "string", "play": "string",
            "match_to": "int16", "score": "int16", "opponent_score": "int16", "crawford": "bool",
            "cube_value": "int64", "cube_owner": "category", "may_double": "bool",
            "position_id": "string", "match_id": "string", "xgid": "string", "result_id": "string",
            "line": "int32", "variant": "string",
        })


class _Rejected(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def find_play(position: Position, dice, steps) -> tuple[Play | None, list[Play]]:
    """The legal play the written steps make (see the module docstring), and every legal play."""
    plays = legal_plays(position, dice)
    if not steps:
        return None, plays
    after = list(position.board)
    for step in steps:
        if after[step[0]] <= 0:  # no checker of the mover's there: these steps are no play
            return None, plays
        after = apply_steps(after, [step])
    for play in plays:
        if list(play.result.board) == after:
            return play, plays
    own = [max(count, 0) for count in after[1:26]]
    same = [play for play in plays if [max(count, 0) for count in play.result.board[1:26]] == own]
    if len(same) == 1:
        return same[0], plays
    return None, plays


class _GameState:
    """The cube, the turn and the position while one game is replayed."""

    def __init__(self, match: Match, game: Game, score: tuple[int, int], crawford: bool) -> None:
        self.match, self.game = match, game
        self.score, self.crawford = score, crawford
        self.cube = 1 << game.automatic_doubles
        self.owner: int | None = None
        self.on_roll: int | None = None if game.start is None else game.first
        self.position = game.start
        self.offered = 0  # 0 none, 1 a double, 2 a beaver on the table
        self.doubler: int | None = None
        self.plies = 0
        self.over: GameResult | None = None
        self.turned = False  # a double was taken: Jacoby no longer holds

    # -- views ----------------------------------------------------------------------------
    def xgid(self, dice=(0, 0)) -> str:
        rules = self.match.rules
        owner = xg.CENTRE if self.owner is None else (xg.ON_ROLL if self.owner == self.on_roll else xg.OPPONENT)
        money = not self.match.match_to
        return xg.Xgid(
            position=self.position, cube_value=self.cube, cube_owner=owner, dice=tuple(dice),
            offered=self.offered, score=self._scores(self.on_roll), match_to=self.match.match_to,
            crawford=self.crawford, jacoby=money and rules.jacoby, beaver=money and rules.beaver,
            cube_limit=rules.cube_limit or xg.DEFAULT_CUBE_LIMIT,
        ).text

    def match_id(self, dice=(0, 0)) -> str:
        money = not self.match.match_to
        state = MatchState(
            cube_value=self.cube, cube_owner=self.owner, on_roll=self.on_roll, crawford=self.crawford,
            turn=(1 - self.on_roll) if self.offered else self.on_roll, doubled=self.offered == 1,
            dice=tuple(dice), match_to=self.match.match_to,
            score=self.score if not money else (0, 0), jacoby=money and self.match.rules.jacoby,
        )
        return encode_match_id(state)

    def _scores(self, player: int) -> tuple[int, int]:
        if not self.match.match_to:
            return (0, 0)
        return (self.score[player], self.score[1 - player])

    def may_double(self, player: int) -> bool:
        rules = self.match.rules
        limit = rules.cube_limit or 1 << 15
        return (rules.cube and not self.crawford and self.owner in (None, player)
                and self.cube * 2 <= limit)

    def row(self, action: Action, player: int, kind: str, dice=(0, 0), play: Play | None = None,
            could_double: bool = False) -> dict:
        match = self.match
        owner = "centre" if self.owner is None else ("on roll" if self.owner == self.on_roll else "opponent")
        scores = self._scores(player)
        return {
            "game": self.game.number, "ply": self.plies + 1,
            "decision": 0, "player": player, "name": match.players[player], "on_roll": self.on_roll,
            "action": kind, "dice": f"{max(dice)}{min(dice)}" if kind == MOVE else "",
            "play": play.notation if play is not None else "", "match_to": match.match_to,
            "score": scores[0], "opponent_score": scores[1], "crawford": self.crawford,
            "cube_value": self.cube, "cube_owner": owner,
            "may_double": kind == DOUBLE or could_double,
            "position_id": self.position.position_id,
            "match_id": self.match_id(_high_first(dice) if kind == MOVE else (0, 0)),
            "xgid": self.xgid(_high_first(dice) if kind == MOVE else (0, 0)),
            "result_id": play.result.position_id if play is not None else "",
            "line": action.line, "variant": match.rules.variant,
        }


def _high_first(dice) -> tuple[int, int]:
    return (max(dice), min(dice))


def _end_points(result: str, cube: int, match: Match, turned: bool) -> int:
    jacoby = match.rules.jacoby and not match.match_to
    return points_for(result, cube, Rules(jacoby=jacoby), turned, bool(match.match_to))


def _replay_game(match: Match, game: Game, score: tuple[int, int], crawford: bool,
                 rows: list[dict]) -> GameResult:
    state = _GameState(match, game, score, crawford)
    names = match.players
    for index, action in enumerate(game.actions):
        player = action.side
        if state.over is not None:
            raise _Rejected(action.line, f"{names[player]} acts after the game is over: {action.text or action.kind}")
        if action.kind == RESIGN:
            return _resign(state, action, rows)
        if state.position is None:  # the opening roll decides who moves first
            if action.kind != ROLL:
                raise _Rejected(action.line, f"the game opens with {action.kind}, not a roll")
            if action.dice[0] == action.dice[1]:
                raise _Rejected(action.line, f"the opening roll {action.dice[0]}{action.dice[1]} is a double: "
                                "an opening roll is two different dice (ties are thrown again)")
            state.position, state.on_roll = Position.start(match.rules.variant), player
        elif player != state.on_roll and action.kind in (ROLL, DOUBLE):
            raise _Rejected(action.line, f"{names[player]} {action.kind}s, but it is "
                            f"{names[state.on_roll]}'s turn")
        if action.kind == ROLL:
            if state.offered:
                raise _Rejected(action.line, f"{names[player]} rolls before the double is answered")
            opening = game.start is None and state.plies == 0
            could_double = not opening and state.may_double(player)
            play, plays = find_play(state.position, action.dice, action.moves)
            if play is None and (action.moves or plays):
                if not action.moves and index == len(game.actions) - 1 and game.winner is not None:
                    continue  # rolled, then resigned (eXtreme Gammon writes "???"): no decision
                written = action.text or " ".join(f"{a}/{b}" for a, b in action.moves)
                if not action.moves:
                    raise _Rejected(action.line, f"{names[player]} does not play "
                                    f"{action.dice[0]}{action.dice[1]}, which can be played "
                                    f"from {state.position.position_id} (e.g. {plays[0].notation})")
                raise _Rejected(action.line, f"{names[player]}'s {action.dice[0]}{action.dice[1]}: "
                                f"{written!r} is not a legal play from {state.position.position_id}")
            rows.append(state.row(action, player, MOVE, action.dice, play, could_double))
            state.plies += 1
            if play is not None:
                state.position = play.result
            if state.position.finished:
                result = result_of(state.position)
                state.over = GameResult(game.number, player, result,
                                        _end_points(result, state.cube, match, state.turned),
                                        state.cube, state.plies, score, crawford)
                continue
            state.position = state.position.turned()
            state.on_roll = 1 - player
        elif action.kind == DOUBLE:
            if state.offered:
                raise _Rejected(action.line, f"{names[player]} doubles while a double is on the table")
            if not state.may_double(player):
                why = ("in the Crawford game" if state.crawford else
                       "without the cube" if not match.rules.cube else
                       f"holding no cube ({names[state.owner]} owns it)" if state.owner not in (None, player) else
                       "beyond the cube limit")
                raise _Rejected(action.line, f"{names[player]} doubles {why}")
            if action.value and action.value != state.cube * 2:
                raise _Rejected(action.line, f"{names[player]} doubles to {action.value}, but the cube is at {state.cube}")
            rows.append(state.row(action, player, DOUBLE))
            state.offered, state.doubler = 1, player
        elif action.kind == BEAVER:
            if state.offered != 1 or player == state.doubler:
                raise _Rejected(action.line, f"{names[player]} beavers, but no double was offered to it")
            if match.match_to:
                raise _Rejected(action.line, f"{names[player]} beavers in a match: beavers are for money games")
            if action.value and action.value != state.cube * 4:
                raise _Rejected(action.line, f"{names[player]} beavers to {action.value}, but the cube is at {state.cube}")
            rows.append(state.row(action, player, BEAVER))
            state.offered = 2
            nxt = game.actions[index + 1] if index + 1 < len(game.actions) else None
            if nxt is None or nxt.kind not in (TAKE, DROP):  # the doubler takes the beaver unsaid
                state.cube, state.owner, state.offered, state.turned = state.cube * 4, player, 0, True
        elif action.kind in (TAKE, DROP):
            if not state.offered:
                raise _Rejected(action.line, f"{names[player]} {action.kind}s, but no double is on the table")
            beaver = state.offered == 2
            answers = state.doubler if beaver else 1 - state.doubler
            if player != answers:
                raise _Rejected(action.line, f"{names[player]} {action.kind}s a double it made")
            rows.append(state.row(action, player, action.kind))
            if action.kind == TAKE:
                if beaver:
                    state.cube, state.owner = state.cube * 4, 1 - state.doubler
                else:
                    state.cube, state.owner = state.cube * 2, player
                state.offered, state.turned = 0, True
            else:
                points = state.cube * 2 if beaver else state.cube
                winner = player if beaver else state.doubler
                state.offered = 0
                state.over = GameResult(game.number, winner, "drop", points, state.cube, state.plies,
                                        score, crawford)
        else:  # pragma: no cover - the readers make only the kinds above
            raise _Rejected(action.line, f"unknown action {action.kind!r}")
    if state.over is None:
        if game.winner is not None:  # the record's end with the board not over: a resignation
            return _resign(state, Action(RESIGN, game.winner, value=game.points or 0,
                                         line=game.end_line or game.line), rows)
        last = game.actions[-1].line if game.actions else game.line
        raise _Rejected(last, "the game stops before it is over (a truncated record?)")
    return state.over


def _resign(state: _GameState, action: Action, rows: list[dict]) -> GameResult:
    game, match = state.game, state.match
    winner = action.side
    if state.position is None:
        raise _Rejected(action.line, "the game ends before its first roll")
    points = action.value
    cube = state.cube
    if points not in (cube, 2 * cube, 3 * cube):
        raise _Rejected(action.line, f"{match.players[winner]} wins {points} points by resignation, "
                        f"but the cube is at {cube}: a resignation is worth 1, 2 or 3 times the cube")
    rows.append(state.row(action, 1 - winner, RESIGN))
    rows[-1]["play"] = f"resigns {('single', 'gammon', 'backgammon')[points // cube - 1]}"
    return GameResult(game.number, winner, "resign", points, cube, state.plies, state.score, state.crawford)


def replay(match: Match) -> Replay:
    """Every decision of every game of ``match``, and every problem (see the module docstring).
    RecordError for a variant whose moves the records do not say (checkers in hand)."""
    variant = variant_of(match.rules.variant)
    if variant.moves_differ or variant.acey_deucey:
        raise RecordError(f"{variant.name} games cannot be replayed from a record: .mat and SGF moves "
                          "have no checkers in hand (the formats hold the standard game, Nackgammon and "
                          "hypergammon)")
    out = Replay()
    match_to = match.match_to
    running = (0, 0)  # the score the games before add up to
    crawford_done = False
    for index, game in enumerate(match.games):
        score = game.score if game.score is not None else running
        if score != running and (index or match_to):  # a session may go on from any score
            said = (f"the first game starts at {score[0]}-{score[1]}, not 0-0" if index == 0 else
                    f"the score before this game is {score[0]}-{score[1]}, but the games before "
                    f"add up to {running[0]}-{running[1]}")
            out.problems.append(Problem(game.line, game.number, said))
        if match_to and max(score) >= match_to:
            out.problems.append(Problem(game.line, game.number, (
                f"the score {score[0]}-{score[1]} has already won the match to {match_to}"), rejected=True))
            continue
        crawford = is_crawford(match_to, score, match.rules.crawford, crawford_done)
        crawford_done = crawford_done or crawford
        if game.crawford is not None and game.crawford != crawford:
            out.problems.append(Problem(game.line, game.number, (
                f"the record says this is {'' if game.crawford else 'not '}the Crawford game, but the "
                f"score {score[0]}-{score[1]} says it is{'' if crawford else ' not'}")))
        rows: list[dict] = []
        try:
            result = _replay_game(match, game, score, crawford, rows)
        except _Rejected as rejected:
            out.problems.append(Problem(rejected.line, game.number, rejected.message, rejected=True))
            # the next game's score follows the end the record states, if it states one
            running = _advance(score, game.winner, game.points) if game.winner is not None else score
            continue
        _check_end(match, game, result, out.problems)
        for number, row in enumerate(rows, 1):
            row["decision"] = number
        out.rows.extend(rows)
        out.games.append(result)
        running = _advance(score, result.winner, result.points)
    return out


def _advance(score: tuple[int, int], winner: int, points: int | None) -> tuple[int, int]:
    new = list(score)
    new[winner] += points or 0
    return (new[0], new[1])


def _check_end(match: Match, game: Game, result: GameResult, problems: list[Problem]) -> None:
    """The end the record states against the one the board and the cube give."""
    if game.winner is None:
        return
    line = game.end_line or game.line
    names = match.players
    if game.winner != result.winner:
        problems.append(Problem(line, game.number, (
            f"the record says {names[game.winner]} wins, but {names[result.winner]} won on the board")))
        return
    if game.points is None or result.result == "resign":
        return
    allowed = {result.points}
    if match.match_to:  # some writers cap the points at what the winner needed
        allowed.add(min(result.points, match.match_to - result.score[result.winner]))
    if result.result not in ("drop",) and not match.match_to:
        allowed.add(MULTIPLIER[result.result] * result.cube_value)  # written without the Jacoby rule
    if game.points not in allowed:
        problems.append(Problem(line, game.number, (
            f"the record says {names[game.winner]} wins {game.points} point{'s' if game.points != 1 else ''}, "
            f"but a {result.result} with the cube at {result.cube_value} is worth {result.points}")))
