"""A match as a game record holds it: players, rules, and per game the actions in order.

This is what the readers return and the writers take, whatever the file format: nothing here
checks a move against the rules (``bgsim.interchange.replay`` does).  Players are numbered as
GNU Backgammon numbers them: player 0 is the left column of a ``.mat`` file and SGF's White
(bgsim's white), player 1 the right column and SGF's Black (bgsim's black).

A checker move is ``(from, to)`` in the mover's own numbering: 24..1 the points, 25 the bar,
0 off.  A roll's moves are the steps as written (``13/7*/5`` is two steps, 13/7 and 7/5); hits
are not stored, as the board decides them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..board import Position

# what a player can do on a turn
ROLL = "roll"  # a roll and its moves (none when the roll cannot be played)
DOUBLE = "double"  # the cube is offered
BEAVER = "beaver"  # the taker takes and at once redoubles, keeping the cube
TAKE = "take"
DROP = "drop"
RESIGN = "resign"  # the game ends: ``side`` wins ``value`` points (the readers give a file's end in
# Game.winner and Game.points instead: the replay tells a resignation from the board)
KINDS = (ROLL, DOUBLE, BEAVER, TAKE, DROP, RESIGN)

STANDARD = "standard"


class RecordError(ValueError):
    """A game record that cannot be written or read (the message names where and why)."""


# What a problem did to its game, for the summary of an import: each warning names what the
# reader or the replay changed or noted; only REJECTED leaves the game out.
REJECTED = "left out"
FILLED = "forced play filled in"
RESIGNATION = "resignation value read"
SCORE_LINE = "score line followed"
TAKEN_UP = "match taken up mid-way"
POST_CRAWFORD = "post-Crawford by a double"
UNFINISHED = "unfinished game kept"
RENUMBERED = "game renumbered"
END_POINTS = "points written differ"
CRAWFORD_FLAG = "Crawford flag"
NOTE = "note"


@dataclass(frozen=True)
class Problem:
    """Something in the record the rules do not allow, that does not add up, or that the reader
    changed to read it (``kind``: one of the words above).

    ``rejected``: the game was left out of the rows; every other problem is a warning: the game is
    kept, and the message says what was read and why.
    """

    line: int
    game: int | None
    message: str
    rejected: bool = False
    kind: str = NOTE

    def __post_init__(self) -> None:
        if self.rejected and self.kind != REJECTED:
            object.__setattr__(self, "kind", REJECTED)

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "(no line)"
        game = f" (game {self.game})" if self.game is not None else ""
        tail = "; the game is left out" if self.rejected else ""
        return f"{where}{game}: {self.message}{tail}"


@dataclass(frozen=True)
class Action:
    """One thing a player did: a roll and its moves, a cube action, or the end by resignation.

    ``side`` is the player who acted (0 or 1); ``value`` is the cube value a double or beaver
    turns the cube to, or the points won for RESIGN (``side`` is then the winner); ``line`` is
    the line of the file it was read from (0 when it was not read from a file).
    """

    kind: str
    side: int
    dice: tuple[int, int] | None = None
    moves: tuple[tuple[int, int], ...] = ()
    value: int = 0
    line: int = 0
    text: str = ""  # as the file wrote it, for messages

    def same_as(self, other: "Action") -> bool:
        """The same action, wherever it was read from (the order of the dice and of the steps
        written carries no meaning)."""
        dice = sorted(self.dice) if self.dice else None
        other_dice = sorted(other.dice) if other.dice else None
        return (self.kind, self.side, dice, self.value) == (other.kind, other.side, other_dice, other.value) \
            and sorted(self.moves) == sorted(other.moves)


@dataclass
class Game:
    """One game of a match or session, as the record holds it.

    ``score`` is the score before the game as the file states it (None when the file does not
    say); ``crawford`` likewise (None: follow from the score).  ``rejected``: why the reader
    could not read the game (it stays in the match, so that the games after it still know the
    score and the Crawford game); ``problems``: what the reader changed or noted in it.  ``winner`` and ``points``: the
    end the file states (None when it states none).  ``start`` is the position the game starts
    from, seen from ``first`` (the side that moves first) before its roll, when it is not the
    opening: then there is no opening roll and ``first`` may double first.
    """

    number: int  # 1, 2, ... as the file counts
    score: tuple[int, int] | None = None
    crawford: bool | None = None
    actions: list[Action] = field(default_factory=list)
    winner: int | None = None
    points: int | None = None
    resigned: bool = False
    automatic_doubles: int = 0
    start: Position | None = None
    first: int = 0
    line: int = 0  # where the game starts in the file
    end_line: int = 0  # where the file states its end
    rejected: "Problem | None" = None
    problems: list = field(default_factory=list)
    written: int | None = None  # the number the file gives the game, where it differs from ``number``


@dataclass(frozen=True)
class MatchRules:
    """The rules a record says its games were played under."""

    cube: bool = True
    crawford: bool = True  # matches only
    jacoby: bool = False  # money only
    beaver: bool = False  # money only
    cube_limit: int = 0  # 0: unstated
    variant: str = STANDARD


@dataclass
class Match:
    """A match (``match_to`` > 0) or a money session (``match_to`` == 0) of games."""

    players: tuple[str, str] = ("player 0", "player 1")
    match_to: int = 0
    rules: MatchRules = MatchRules()
    games: list[Game] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)  # event, site, date, ... as read
    comments: list[str] = field(default_factory=list)


def first_match(matches) -> tuple[Match, list[Problem]] | None:
    """The first ``(match, games)`` a reader's ``iter_mat`` / ``iter_sgf`` yields, read whole:
    the match with its sound games in ``match.games`` (a game with a ``rejected`` problem is
    left out) and every problem met, in line order; None where it yields no match."""
    for match, games in matches:
        problems: list[Problem] = []
        kept = []
        for game in games:
            problems.extend(game.problems)
            if game.rejected is not None:
                problems.append(game.rejected)
            else:
                kept.append(game)
        match.games = kept
        return match, sorted(problems, key=lambda problem: problem.line)
    return None


def is_crawford(match_to: int, score: tuple[int, int], crawford_rule: bool, crawford_done: bool) -> bool:
    """Whether a game at ``score`` is the Crawford game: the first game of a match (longer than one
    point, under the Crawford rule) that a side starts one point from winning."""
    return bool(match_to) and crawford_rule and match_to > 1 and not crawford_done and match_to - 1 in score


def crawford_flags(match: Match) -> list[bool]:
    """Which games of ``match`` are the Crawford game, from the scores the record states (a
    game without one continues the score of the games before it)."""
    flags, done, running = [], False, (0, 0)
    for game in match.games:
        score = game.score if game.score is not None else running
        flag = is_crawford(match.match_to, score, match.rules.crawford, done)
        flags.append(flag)
        done = done or flag
        if game.winner is not None and game.points is not None:
            new = list(score)
            new[game.winner] += game.points
            running = (new[0], new[1])
    return flags


# --- move text ------------------------------------------------------------------------------

_POINT = r"(?:bar|off|b|o|\d{1,2})"
_STEP = re.compile(rf"({_POINT})((?:/{_POINT}\*?)+)(?:\((\d)\))?", re.IGNORECASE)
_WORD = re.compile(r"\S+")


def point_number(text: str) -> int:
    text = text.lower()
    if text in ("bar", "b"):
        return 25
    if text in ("off", "o"):
        return 0
    number = int(text)
    if not 0 <= number <= 25:
        raise RecordError(f"{text} is not a point (0..25, bar or off)")
    return number


def parse_moves(text: str) -> tuple[tuple[int, int], ...]:
    """The steps of a play written in the usual notation: ``13/7* 8/7``, ``24/18(2)``,
    ``bar/22``, ``6/off``, ``25/20 20/15*``, ``13/7*/5`` (one checker, two steps), ``11/4``
    (one checker, both dice: one step here, the replay finds its dice).  RecordError on
    anything else."""
    steps: list[tuple[int, int]] = []
    for word in _WORD.findall(text.replace(",", " ")):
        found = _STEP.fullmatch(word)
        if not found:
            raise RecordError(f"{word!r} is not a checker move (such as 13/7*, bar/22, 6/off)")
        points = [point_number(found.group(1))] + [
            point_number(part.rstrip("*")) for part in found.group(2).split("/")[1:]]
        repeat = int(found.group(3) or 1)
        path = list(zip(points, points[1:]))
        for source, target in path:
            if source == 0 or target == 25 or target >= source:
                raise RecordError(f"{word!r} does not move a checker forward (from 25..1 to 24..0)")
        steps.extend(path * repeat)
    if len(steps) > 4:
        raise RecordError(f"{text.strip()!r} moves {len(steps)} times; a roll moves at most 4 checkers")
    return tuple(steps)


def format_steps(steps, board) -> list[str]:
    """Each step as ``from/to`` with ``*`` on a hit, GNU Backgammon's plain style: the board
    (26 slots from the mover, ``bgsim.board``) says which steps hit; it is not changed."""
    board = list(board)
    out = []
    for source, target in steps:
        hit = 1 <= target <= 24 and board[target] == -1
        out.append(f"{source}/{target}{'*' if hit else ''}")
        board[source] -= 1
        if 1 <= target <= 24:
            if hit:
                board[target] = 0
                board[0] -= 1
            board[target] += 1
    return out


def apply_steps(board, steps) -> list[int]:
    """The board after the steps, each landing on a lone opposing checker hitting it; no legality
    is checked beyond the squares being there (the replay compares with the legal plays)."""
    after = list(board)
    for source, target in steps:
        after[source] -= 1
        if 1 <= target <= 24:
            if after[target] == -1:
                after[target] = 0
                after[0] -= 1
            after[target] += 1
    return after
