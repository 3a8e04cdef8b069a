"""A game record taken through the reference engine: one row per decision, and every problem.

:func:`replay` walks each game of a :class:`~bgsim.interchange.records.Match` from its start,
checks every roll's moves against :func:`bgsim.rules.legal_plays` and every cube action
against the cube's rules, and gives one row per decision (a play, a double, a beaver, a take, a
drop, a resignation) with the position before it.  A move the rules do not allow or a position it
cannot reach is a :class:`Problem` with the file's line: that game is left out (its rows too), and
the replay goes on with the next game.  Everything else is a warning, and the game is kept: a
score that does not add up, an end that does not match the board, and what the replay reads as
GNU Backgammon 1.07's importer reads it (import.c), each said with its line:

* where the match stands is the file's own score lines, not a tally of the games replayed (a game
  left out, or a match taken up in the middle, does not move the score of the games after it);
  the Crawford game is the first game whose score line puts exactly one side a point from the
  match (a game the file marks, SGF's ``CrawfordGame``, is that game) -- but the first game of a
  match taken up mid-way at such a score, with a double in it, is post-Crawford: the Crawford
  game was played before the file starts;
* a roll written without its play (FIBS leaves forced plays blank) is given the only legal play
  when there is one; with several it is a rolled-then-resigned roll at the end of a game that
  states its end, the end of a truncated record, or else an illegal record;
* a resignation is worth what its ``Wins N`` says as GNU Backgammon reads it: a single when N is
  at most the cube, a gammon at most twice it, else a backgammon (a corrupt ``Wins 4016`` is
  clamped to three times the cube; a match-winning resignation written with the points the match
  needed is no warning);
* a game that stops before it is over (the end of a truncated file) keeps its decisions.

:func:`replay_games` replays games one at a time as a reader gives them (the import of a file of
any size): :class:`MatchTally` says where the match stands before each game, from the lines
alone, so each game's replay (:func:`replay_game`) is independent of the others.

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
from .records import (BEAVER, CRAWFORD_FLAG, DOUBLE, DROP, END_POINTS, FILLED, POST_CRAWFORD, RESIGN, RESIGNATION,
                      ROLL, SCORE_LINE, TAKE, TAKEN_UP, UNFINISHED, Action, Game, Match, Problem, RecordError,
                      apply_steps)

MOVE = "move"  # the row's action for a roll and its play
ROW_COLUMNS = (
    "file", "match", "game", "ply", "decision", "player", "name", "on_roll", "action", "dice", "play", "match_to",
    "score", "opponent_score", "crawford", "cube_value", "cube_owner", "may_double",
    "position_id", "match_id", "xgid", "result_id", "line", "variant",
)
# the columns rows written before a file held several matches have: readers of rows ask for these
CORE_COLUMNS = tuple(name for name in ROW_COLUMNS if name not in ("file", "match"))
UNFINISHED_RESULT = "unfinished"


@dataclass(frozen=True)
class GameResult:
    """How a replayed game ended: ``result`` single, gammon, backgammon, drop, resign, or
    unfinished (the record stops first: ``winner`` None, no points)."""

    number: int
    winner: int | None
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
        return rows_frame(self.rows)


def rows_frame(rows: list[dict]):
    """The decision rows as a DataFrame with the columns' types (the Parquet schema of ``bgsim
    import``)."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=list(ROW_COLUMNS))
    return frame.astype({
        "file": "string", "match": "int32", "game": "int32", "ply": "int32", "decision": "int32",
        "player": "int8", "name": "string", "on_roll": "int8", "action": "category", "dice": "string",
        "play": "string", "match_to": "int16", "score": "int16", "opponent_score": "int16", "crawford": "bool",
        "cube_value": "int64", "cube_owner": "category", "may_double": "bool", "position_id": "string",
        "match_id": "string", "xgid": "string", "result_id": "string", "line": "int32", "variant": "string",
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
            "file": "", "match": 0, "game": self.game.number, "ply": self.plies + 1,
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
                 rows: list[dict], notes: list[Problem]) -> GameResult:
    state = _GameState(match, game, score, crawford)
    names = match.players
    filled: list[tuple[int, str]] = []  # (line, play) of each forced play the record left blank
    actions = game.actions
    for index, action in enumerate(actions):
        player = action.side
        if state.over is not None:
            raise _Rejected(action.line, f"{names[player]} acts after the game is over: {action.text or action.kind}")
        if action.kind == RESIGN:
            _note_filled(game, filled, notes)
            return _resign(state, action, rows, notes)
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
                written = action.text or " ".join(f"{a}/{b}" for a, b in action.moves)
                if action.moves:
                    raise _Rejected(action.line, f"{names[player]}'s {action.dice[0]}{action.dice[1]}: "
                                    f"{written!r} is not a legal play from {state.position.position_id}")
                if len(plays) == 1:  # a forced play left blank (FIBS plays it for the player)
                    play = plays[0]
                    filled.append((action.line, play.notation))
                elif index == len(actions) - 1 and game.winner is not None:
                    continue  # rolled, then resigned (eXtreme Gammon writes "???"): no decision
                elif index == len(actions) - 1:
                    _note_filled(game, filled, notes)
                    return _unfinished(state, action.line, notes, (
                        f"the record stops at line {action.line} with {action.dice[0]}{action.dice[1]} rolled "
                        "and not played (a truncated record?)"))
                else:
                    raise _Rejected(action.line, f"{names[player]} does not play "
                                    f"{action.dice[0]}{action.dice[1]}, which can be played "
                                    f"from {state.position.position_id} (e.g. {plays[0].notation})")
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
            nxt = actions[index + 1] if index + 1 < len(actions) else None
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
    _note_filled(game, filled, notes)
    if state.over is None:
        if game.winner is not None:  # the record's end with the board not over: a resignation
            return _resign(state, Action(RESIGN, game.winner, value=game.points or 0,
                                         line=game.end_line or game.line), rows, notes)
        last = actions[-1].line if actions else game.line
        return _unfinished(state, last, notes, "the game stops before it is over (a truncated record?)")
    return state.over


def _note_filled(game: Game, filled: list[tuple[int, str]], notes: list[Problem]) -> None:
    if not filled:
        return
    lines = ", ".join(str(line) for line, _ in filled[:6]) + (", ..." if len(filled) > 6 else "")
    first = filled[0][1]
    notes.append(Problem(filled[0][0], game.number, (
        f"{len(filled)} forced play{'s' if len(filled) > 1 else ''} written blank (line{'s' if len(filled) > 1 else ''} "
        f"{lines}) given the only legal play ({first}{', ...' if len(filled) > 1 else ''}), as GNU Backgammon does"),
        kind=FILLED))
    filled.clear()


def _unfinished(state: _GameState, line: int, notes: list[Problem], why: str) -> GameResult | None:
    if state.position is None:  # a game header and nothing after it: nothing to keep, nothing wrong
        notes.append(Problem(line, state.game.number, "the game holds no roll and no end: nothing of it to keep",
                             kind=UNFINISHED))
        return None
    if not any(problem.kind == UNFINISHED for problem in state.game.problems):  # the reader said it first
        notes.append(Problem(line, state.game.number, (
            f"{why}: its decisions are kept, the game unfinished, as GNU Backgammon keeps it"), kind=UNFINISHED))
    return GameResult(state.game.number, None, UNFINISHED_RESULT, 0, state.cube, state.plies, state.score,
                      state.crawford)


LEVELS = ("single", "gammon", "backgammon")


def _resign(state: _GameState, action: Action, rows: list[dict], notes: list[Problem]) -> GameResult:
    """The game ends by resignation: the written points read as GNU Backgammon reads them (a
    single when at most the cube, a gammon when at most twice it, else a backgammon)."""
    game, match = state.game, state.match
    winner = action.side
    if state.position is None:  # resigned before the opening roll: the loser resigns the start
        state.position, state.on_roll = game.start or Position.start(match.rules.variant), 1 - winner
    if state.offered:
        raise _Rejected(action.line, "the game ends by resignation while a double is on the table")
    written, cube = action.value, state.cube
    level = 1 if written <= cube else 2 if written <= 2 * cube else 3
    points = level * cube
    needed = match.match_to - state.score[winner] if match.match_to else 0
    if written != points and not (match.match_to and written == needed < points):
        clamped = written > 3 * cube
        notes.append(Problem(action.line, game.number, (
            f"{match.players[winner]} wins {written} point{'s' if written != 1 else ''} by resignation with the cube "
            f"at {cube}: read as a {LEVELS[level - 1]}, {points} point{'s' if points != 1 else ''}"
            + (", the most a resignation is worth, as GNU Backgammon clamps it" if clamped else
               ", as GNU Backgammon reads it")), kind=RESIGNATION))
    rows.append(state.row(action, 1 - winner, RESIGN))
    rows[-1]["play"] = f"resigns {LEVELS[level - 1]}"
    return GameResult(game.number, winner, "resign", points, cube, state.plies, state.score, state.crawford)


# --- where the match stands ------------------------------------------------------------------


@dataclass(frozen=True)
class Context:
    """Where a match stands before a game, as the file's own lines say: the score, whether this
    is the Crawford game, and what was noted in working it out; ``over``: the score has already
    won the match (the game is left out, as GNU Backgammon ignores such games)."""

    score: tuple[int, int]
    crawford: bool
    notes: tuple[Problem, ...] = ()
    over: Problem | None = None


class MatchTally:
    """Where a match stands before each of its games, from the file's lines alone (see the
    module docstring): call :meth:`next` with each game in the file's order, read or not."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.index = 0
        self.crawford_done = False
        self.previous: tuple[Game, tuple[int, int]] | None = None  # the game before and its score
        self.replayed_end: tuple[int, int] | None = None  # where the game before ended, where it states none

    def next(self, game: Game) -> Context:
        match = self.match
        match_to = match.match_to
        notes: list[Problem] = []
        stated_before = self._after_previous()
        score = game.score if game.score is not None else (stated_before or (0, 0))
        if self.index == 0:
            if match_to and score != (0, 0):
                notes.append(Problem(game.line, game.number, (
                    f"the match is taken up at {score[0]}-{score[1]}: the file holds none of the games "
                    "before"), kind=TAKEN_UP))
        elif game.score is not None and stated_before is not None and score != stated_before:
            before, _ = self.previous
            notes.append(Problem(game.line, game.number, (
                f"the score line says {score[0]}-{score[1]}, but the game before (line {before.line}) ends at "
                f"{stated_before[0]}-{stated_before[1]}: the score line is followed"), kind=SCORE_LINE))
        self.index += 1
        self.previous, self.replayed_end = (game, score), None
        if match_to and max(score) >= match_to:
            return Context(score, False, tuple(notes), Problem(game.line, game.number, (
                f"the score {score[0]}-{score[1]} has already won the match to {match_to} (GNU Backgammon "
                "stops reading there too)"), rejected=True))
        eligible = (match_to > 1 and match.rules.crawford
                    and (score[0] == match_to - 1) != (score[1] == match_to - 1))
        crawford = eligible and not self.crawford_done
        if game.crawford is not None and game.crawford != crawford:
            if game.crawford and not eligible:
                notes.append(Problem(game.line, game.number, (
                    f"the record marks this the Crawford game, but at {score[0]}-{score[1]} no side is one point "
                    "away alone: it is not"), kind=CRAWFORD_FLAG))
            else:
                crawford = game.crawford  # the file says it, where the score allows either
        elif (crawford and self.index == 1 and score != (0, 0) and game.crawford is None
              and any(action.kind in (DOUBLE, BEAVER) for action in game.actions)):
            crawford = False
            notes.append(Problem(game.line, game.number, (
                f"the match is taken up at {score[0]}-{score[1]} with a double in this game: the Crawford game "
                "was played before the file starts, and this game is read as post-Crawford"), kind=POST_CRAWFORD))
        self.crawford_done = self.crawford_done or eligible
        return Context(score, crawford, tuple(notes))

    def ended(self, result: GameResult | None) -> None:
        """How the game just replayed ended, for a game after it without a score line."""
        if result is not None and result.winner is not None and self.previous is not None:
            self.replayed_end = _advance(self.previous[1], result.winner, result.points)

    def _after_previous(self) -> tuple[int, int] | None:
        """The score after the game before, as its stated end (else its replayed end) says."""
        if self.previous is None:
            return (0, 0) if self.index == 0 else None
        before, score = self.previous
        if before.winner is not None and before.points is not None:
            return _advance(score, before.winner, before.points)
        return self.replayed_end


@dataclass
class GameReplay:
    """One game replayed: its rows (none when it is left out), how it ended (None: left out) and
    every problem in it, warnings and the reason it was left out."""

    game: Game
    rows: list[dict]
    result: GameResult | None
    problems: list[Problem]


def replay_game(match: Match, game: Game, context: Context) -> GameReplay:
    """Replay ``game`` of ``match`` from where ``context`` says the match stands."""
    problems = list(game.problems) + list(context.notes)
    if game.rejected is not None:
        return GameReplay(game, [], None, problems + [game.rejected])
    if context.over is not None:
        return GameReplay(game, [], None, problems + [context.over])
    if not game.actions and any(problem.kind == UNFINISHED for problem in game.problems):
        return GameReplay(game, [], None, problems)  # cut before its first roll: nothing to keep
    rows: list[dict] = []
    notes: list[Problem] = []
    try:
        result = _replay_game(match, game, context.score, context.crawford, rows, notes)
    except _Rejected as rejected:
        return GameReplay(game, [], None, problems + [Problem(rejected.line, game.number, rejected.message,
                                                              rejected=True)])
    problems.extend(notes)
    if result is None:
        return GameReplay(game, [], None, problems)
    _check_end(match, game, result, problems)
    for number, row in enumerate(rows, 1):
        row["decision"] = number
    return GameReplay(game, rows, result, problems)


def check_variant(match: Match) -> None:
    """RecordError for a variant whose moves the records do not say (checkers in hand)."""
    variant = variant_of(match.rules.variant)
    if variant.moves_differ or variant.acey_deucey:
        raise RecordError(f"{variant.name} games cannot be replayed from a record: .mat and SGF moves "
                          "have no checkers in hand (the formats hold the standard game, Nackgammon and "
                          "hypergammon)")


def replay_games(match: Match, games):
    """Each game of ``games`` (a reader's, in the file's order, the unreadable ones among them)
    replayed as it comes: a :class:`GameReplay` each."""
    check_variant(match)
    tally = MatchTally(match)
    for game in games:
        done = replay_game(match, game, tally.next(game))
        tally.ended(done.result)
        yield done


def replay(match: Match) -> Replay:
    """Every decision of every game of ``match``, and every problem (see the module docstring).
    RecordError for a variant whose moves the records do not say (checkers in hand)."""
    out = Replay()
    for done in replay_games(match, match.games):
        out.rows.extend(done.rows)
        out.problems.extend(done.problems)
        if done.result is not None:
            out.games.append(done.result)
    return out


def _advance(score: tuple[int, int], winner: int, points: int | None) -> tuple[int, int]:
    new = list(score)
    new[winner] += points or 0
    return (new[0], new[1])


def _check_end(match: Match, game: Game, result: GameResult, problems: list[Problem]) -> None:
    """The end the record states against the one the board and the cube give."""
    if game.winner is None or result.winner is None:
        return
    line = game.end_line or game.line
    names = match.players
    if game.winner != result.winner:
        problems.append(Problem(line, game.number, (
            f"the record says {names[game.winner]} wins, but {names[result.winner]} won on the board"),
            kind=END_POINTS))
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
            f"but a {result.result} with the cube at {result.cube_value} is worth {result.points}"), kind=END_POINTS))
