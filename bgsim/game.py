"""The game loop: opening roll, turns, the cube, the end and its score.

``play_game`` plays one game between two players from the dice stream of (seed, game) and
returns a :class:`GameRecord`.  The loop keeps the position seen from the side on roll and
turns it after every ply.  ``Rules.variant`` chooses the game (``bgsim.variants``): its start,
its moves (carried by the positions), acey-deucey's opening and chained 1-2 turns, and its score.

Turn order, which both engines keep: the opening throw is one die for white, then one for black,
thrown again while they tie (:func:`opening_roll`), and the higher die's side plays the two (in
acey-deucey it rolls two fresh dice: :func:`play_game`); on every later turn the side on roll is
first asked whether to double (only when the rules allow it: ``bgsim.cube``), then rolls, then
plays.  A drop ends the game before the roll.  ``plies`` counts rolls.
"""

from __future__ import annotations

from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field
from typing import Sequence

from .board import Position
from .cube import CENTRE, OPPONENT, OWN, Cube, CubeView, Response, Rules, TurnCube
from .decisions import DecisionError, Forfeit, Player
from .dice import BLACK_STREAM, DICE_STREAM, STREAMS_PER_GAME, WHITE_STREAM, RandomStream, check_seed
from .rules import Play, check_roll, legal_plays
from .scoring import DROP, FORFEIT, SINGLE, acey_deucey_points, points_for, result_of
from .variants import STANDARD, variant_of

WHITE = "white"
BLACK = "black"
MAX_PLIES = 100_000  # no legal game comes near this; it guards against a broken player


def other(side: str) -> str:
    return BLACK if side == WHITE else WHITE


@dataclass(frozen=True)
class MatchContext:
    """Where a game stands in a match: the target, the score before it, the Crawford state."""

    match_to: int
    white_score: int
    black_score: int
    crawford: bool
    post_crawford: bool
    game_in_match: int

    def away(self, side: str) -> int:
        score = self.white_score if side == WHITE else self.black_score
        return self.match_to - score


@dataclass(frozen=True)
class DecisionContext:
    """What the game loop tells a player that lives outside the process before each of its
    decisions (``Player.see_context``, optional: ``bgsim.decisions``): which game of which run,
    the seat asked, the cube, the rules and the match.  ``first`` marks the call at the start of
    a game, before anything is asked; ``cube_owner`` is ``centre``, ``white`` or ``black``."""

    seed: int
    game: int
    side: str
    first: bool
    plies: int
    cube_value: int
    cube_owner: str
    rules: Rules
    match: MatchContext | None
    mirror: bool = False

    @property
    def game_in_match(self) -> int:
        return self.match.game_in_match if self.match else 0


@dataclass(frozen=True)
class PlyRecord:
    """One ply of a traced game: what the side on roll saw and did."""

    ply: int
    side: str
    position_id: str  # before the roll, seen from ``side`` (bgsim's position string in a variant)
    cube_action: str  # "", "double/take", "double/beaver" or "double/drop"
    roll: tuple[int, int] | None  # None when the game ended on a dropped double
    play: str  # notation, "" for a dance
    result_id: str  # position after the play, seen from ``side``
    # the checker moves of the play, (from, to, hit) from ``side`` (25 the bar, 0 off): the game
    # records of bgsim.interchange write each checker's move
    moves: tuple[tuple[int, int, bool], ...] = ()
    # acey-deucey: this record is the double chosen after a 1-2 (``roll`` is it, ``ply`` the 1-2's)
    chosen_double: bool = False


@dataclass
class GameRecord:
    """Everything one game produced; ``bgsim.schema`` turns these into DataFrame rows."""

    seed: int
    game: int
    winner: str
    result: str  # single, gammon, backgammon or drop
    cube_value: int  # final; for a drop, the value before the refused double
    cube_owner: str  # centre, white or black
    doubles: int  # accepted doubles (a beaver counts as one more)
    beavers: int
    automatic_doubles: int
    first_double_ply: int  # 0 when nobody doubled
    first_doubler: str  # "" when nobody doubled
    points: int  # won by the winner, options applied
    plies: int
    white_pips: int
    black_pips: int
    white_off: int
    black_off: int
    match: MatchContext | None = None
    history: list[PlyRecord] = field(default_factory=list)
    forfeit: str = ""  # the side that forfeited the game (result "forfeit"), "" when none did
    forfeit_reason: str = ""  # ``Forfeit.text``: its reason and what the player did

    @property
    def white_points(self) -> int:
        return self.points if self.winner == WHITE else -self.points

    @property
    def points_counted(self) -> int:
        """``points`` capped at what the winner still needed to win the match."""
        if self.match is None:
            return self.points
        return min(self.points, self.match.away(self.winner))


def play_game(
    white: Player,
    black: Player,
    seed: int,
    game: int,
    rules: Rules = Rules(),
    match: MatchContext | None = None,
    trace: bool = False,
    start: Position | None = None,
    rolls: Sequence[tuple[int, int]] = (),
    mirror: bool = False,
) -> GameRecord:
    """Play game ``game`` of run ``seed`` between ``white`` and ``black``.

    ``start``: instead of the opening, the game starts from this position (of ``rules.variant``),
    seen from white, with white on roll before its roll (a normal turn: the cube may be offered
    first).  ``rolls``: the dice of the first turns of such a game, given instead of drawn (the
    stream is not read for them).  ``mirror``: every die drawn from the dice stream reads 7 - d, so two games of
    the same (seed, game), one mirrored, are an antithetic pair (a 6-6 in one is a 1-1 in the
    other).  Rollouts use all three (``bgsim.rollout``).

    Acey-deucey: the opening throw decides who starts and that side rolls two fresh dice.  A
    1-2 whose dice were both played is followed by the double the player chooses
    (``Player.choose_double``) and, if that double was played four times, by another roll of the
    same side (a new ply; the dice stream simply goes on).  With ``double_on_acey_deucey`` the
    stake (kept as the cube value) doubles at every 1-2 rolled.
    """
    check_seed(seed)
    check_seed(game, "game number")
    if match is not None:
        rules.check_for_match()
    rolls = check_start(start, rolls, match is not None)
    variant = variant_of(rules.variant)
    if start is not None and start.variant != variant.name:
        raise ValueError(f"start position {start.position_string} is a {start.variant} position, "
                         f"but the rules play {variant.name}")
    check_variant_players(white, black, variant.name)
    base = STREAMS_PER_GAME * (match.game_in_match if match else 0)
    dice = RandomStream(seed, game, base + DICE_STREAM)
    choices = {WHITE: RandomStream(seed, game, base + WHITE_STREAM),
               BLACK: RandomStream(seed, game, base + BLACK_STREAM)}
    players = {WHITE: white, BLACK: black}
    crawford = match is not None and match.crawford

    cube = Cube()
    automatic = 0
    roll: tuple[int, int] | None = None
    if start is None:
        side, roll, ties = opening_roll(dice, mirror)
        for _ in range(ties):
            if rules.cube and not crawford and match is None and cube.automatic_double(rules, automatic):
                automatic += 1
        if variant.acey_deucey:
            roll = None  # the throw only decides who starts: that side rolls both dice afresh
        position = Position.start(variant.name)
    else:
        side = WHITE
        position = start
    plies = 0
    doubles = beavers = 0
    first_double_ply = 0
    first_doubler = ""
    history: list[PlyRecord] = []
    # a player outside the process is told the game's state before each decision it is asked
    hooks = {side_: getattr(players[side_], "see_context", None) for side_ in (WHITE, BLACK)}
    asked = side  # the seat asked last: the one that forfeits when its answer raises Forfeit

    def tell(who: str, first: bool = False) -> None:
        nonlocal asked
        asked = who
        hook = hooks[who]
        if hook is not None:
            hook(DecisionContext(seed, game, who, first, plies, cube.value, cube.owner, rules, match, mirror))

    def finish(winner: str, result: str, value: int, winner_view: Position, forfeit: Forfeit | None = None) -> GameRecord:
        white_view = winner_view if winner == WHITE else winner_view.turned()
        if variant.acey_deucey and forfeit is None:
            points = acey_deucey_points(winner_view, value)
        else:
            points = points_for(result, value, rules, doubles > 0, match is not None)
        return GameRecord(
            seed=seed, game=game, winner=winner, result=result, cube_value=value,
            cube_owner=cube.owner, doubles=doubles, beavers=beavers, automatic_doubles=automatic,
            first_double_ply=first_double_ply, first_doubler=first_doubler, points=points,
            plies=plies, white_pips=white_view.pip_count, black_pips=white_view.opponent_pip_count,
            white_off=white_view.checkers_off, black_off=white_view.opponent_checkers_off,
            match=match, history=history, forfeit=other(winner) if forfeit else "",
            forfeit_reason=forfeit.text if forfeit else "",
        )

    try:
        for who in (WHITE, BLACK):  # the game starts: a player outside the process hears of it first
            if hooks[who] is not None:
                tell(who, first=True)
        while plies < MAX_PLIES:
            cube_action = ""
            position_id = position.position_string if trace else ""
            if roll is None:  # every turn but the opening one starts with a chance to double
                if cube.may_double(side, rules, crawford):
                    view = cube_view(cube, rules, side, match)
                    tell(side)
                    if players[side].offer_double(position, view):
                        if first_double_ply == 0:
                            first_double_ply, first_doubler = plies + 1, side
                        tell(other(side))
                        answer = answer_to_double(players[other(side)], position, view)
                        if answer is Response.DROP:
                            if trace:
                                history.append(PlyRecord(plies + 1, side, position_id, "double/drop", None, "", ""))
                            return finish(side, DROP, cube.value, position)
                        if answer is Response.BEAVER:
                            if not view.beaver_allowed:
                                raise DecisionError(f"{players[other(side)].name} beavered where beavers are not allowed")
                            cube.beaver(other(side))
                            beavers += 1
                            doubles += 2
                            cube_action = "double/beaver"
                        elif answer is Response.TAKE:
                            cube.take(other(side))
                            doubles += 1
                            cube_action = "double/take"
                        else:  # pragma: no cover - Response has three members
                            raise DecisionError(f"unknown answer to a double: {answer!r}")
                if plies < len(rolls):
                    roll = rolls[plies]
                else:
                    first = _die(dice, mirror)
                    roll = (first, _die(dice, mirror))
            plies += 1
            one_two = variant.acey_deucey and sorted(roll) == [1, 2]
            if one_two and rules.double_on_acey_deucey:
                cube.value *= 2  # at every 1-2 rolled, whatever comes of it
            tell(side)
            tell_cube(players[side], cube, rules, side, match, crawford)
            position, notation, moves = _after(position, chosen_play(players[side], position, roll, choices[side]))
            if trace:
                history.append(PlyRecord(plies, side, position_id, cube_action, roll, notation,
                                         position.position_string, moves))
            if position.checkers_off == position.checkers:
                return finish(side, _result(variant, position), cube.value, position)
            if one_two and len(moves) == 2:  # the 1 and the 2 both played: a double of the player's choice
                double, plays = _choose_double(players[side], position, choices[side])
                before = position
                position, notation, moves = _after(position, chosen_play(players[side], position, (double, double),
                                                                         choices[side], plays))
                if trace:
                    history.append(PlyRecord(plies, side, before.position_string, "", (double, double),
                                             notation, position.position_string, moves, chosen_double=True))
                if position.checkers_off == position.checkers:
                    return finish(side, _result(variant, position), cube.value, position)
                if len(moves) == 4:  # the double played in full: the same side rolls again
                    roll = None
                    continue
            position = position.turned()
            side = other(side)
            roll = None
    except Forfeit as forfeit:
        winner = other(asked)
        return finish(winner, FORFEIT, cube.value, position if winner == side else position.turned(), forfeit)
    raise RuntimeError(f"game {game} of seed {seed} did not end within {MAX_PLIES} plies")


def _after(position: Position, chosen: Play | None):
    """(position, notation, checker moves) after ``chosen``, the same position for no play."""
    if chosen is None:
        return position, "", ()
    return chosen.result, chosen.notation, chosen.moves


class DoubleOptions(SequenceABC):
    """The legal plays of 1-1 .. 6-6 from one position, each found when first asked for (a
    random player never looks at them)."""

    def __init__(self, position: Position) -> None:
        self.position = position
        self.found: dict[int, list] = {}

    def __len__(self) -> int:
        return 6

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(6)[index]]
        index = range(6)[index]  # IndexError beyond 6, as a tuple would raise
        if index not in self.found:
            self.found[index] = legal_plays(self.position, (index + 1, index + 1))
        return self.found[index]


def _choose_double(player: Player, position: Position, random: RandomStream):
    """Acey-deucey: the double the player chooses after a 1-2, and its legal plays."""
    options = DoubleOptions(position)
    double = player.choose_double(position, options, random)
    if isinstance(double, bool) or not isinstance(double, int) or not 1 <= double <= 6:
        raise DecisionError(f"{player.name} chose {double!r} as its acey-deucey double, not 1 to 6")
    return double, options[double - 1]


def _result(variant, winner_view: Position) -> str:
    # acey-deucey scores per checker left, never a gammon: its games are singles
    return SINGLE if variant.acey_deucey else result_of(winner_view)


def check_variant_players(white: Player, black: Player, variant: str) -> None:
    """Both players can play ``variant``: a ValueError or TypeError in one line if not."""
    variant = variant_of(variant).name
    if variant == STANDARD:
        return
    for player in (white, black):
        check = getattr(player, "check_variant", None)  # optional: a player that serves only some
        if check is not None:
            check(variant)
        if variant_of(variant).acey_deucey and not callable(getattr(player, "choose_double", None)):
            raise TypeError(f"{player.name} cannot play acey-deucey: it has no choose_double "
                            f"(see bgsim.decisions.Player)")


def _die(dice: RandomStream, mirror: bool) -> int:
    value = dice.die()
    return 7 - value if mirror else value


def opening_roll(dice: RandomStream, mirror: bool = False) -> tuple[str, tuple[int, int], int]:
    """The opening throw from ``dice``: one die for white, then one for black, thrown again
    while they tie.  Returns the side that plays first, its roll (its own die first) and how
    many ties were thrown (each may be an automatic double)."""
    ties = 0
    while True:
        white_die, black_die = _die(dice, mirror), _die(dice, mirror)
        if white_die != black_die:
            break
        ties += 1
    side = WHITE if white_die > black_die else BLACK
    roll = (white_die, black_die) if side == WHITE else (black_die, white_die)
    return side, roll, ties


def chosen_play(player: Player, position: Position, roll: tuple[int, int], random: RandomStream,
                plays=None) -> Play | None:
    """The play ``player`` picks for ``roll`` (among ``plays``, its legal plays when already
    found), checked to be legal; None when no play is legal."""
    if plays is None:
        plays = legal_plays(position, roll)
    if not plays:
        return None
    chosen = player.choose_play(position, roll, plays, random)
    if not any(chosen is play or chosen == play for play in plays):
        raise DecisionError(f"{player.name} chose a play that is not legal: {chosen!r}")
    return chosen


def check_start(start, rolls, in_match: bool) -> tuple[tuple[int, int], ...]:
    """The given first rolls as a tuple; ValueError or TypeError naming what is wrong."""
    if start is None:
        if len(rolls):
            raise ValueError("rolls can only be given for a game that starts from a position (start)")
        return ()
    if not isinstance(start, Position):
        raise TypeError(f"start must be a bgsim.board.Position, got {type(start).__name__}")
    if in_match:
        raise ValueError("a game that starts from a position is a money game: it cannot be part of a match")
    if start.finished:
        raise ValueError(f"start position {start.position_string} is a finished game")
    return tuple(check_roll(roll) for roll in rolls)


def answer_to_double(player: Player, position: Position, view: CubeView) -> Response:
    """``player``'s answer to a double, checked to be one of take, drop, beaver."""
    answer = player.respond_to_double(position, view)
    try:
        return Response(answer)
    except ValueError:
        raise DecisionError(f"{player.name} answered a double with {answer!r}, "
                            f"not one of take, drop, beaver") from None


def tell_cube(player: Player, cube: Cube, rules: Rules, side: str, match: MatchContext | None,
              crawford: bool) -> None:
    """Tell ``player`` (``side``'s, about to play) the cube, if it asks (``Player.see_cube``)."""
    see = getattr(player, "see_cube", None)
    if see is None:
        return
    owner = CENTRE if cube.owner == CENTRE else OWN if cube.owner == side else OPPONENT
    see(TurnCube(cube.value, owner, rules.cube and not crawford and cube.value * 2 <= rules.max_cube,
                 rules.jacoby and match is None, match.match_to if match else 0))


def cube_view(cube: Cube, rules: Rules, side: str, match: MatchContext | None) -> CubeView:
    """What ``side``'s cube strategy and its opponent see of ``cube`` when ``side`` may double."""
    return CubeView(
        value=cube.value,
        centred=cube.owner == CENTRE,
        max_cube=rules.max_cube,
        beaver_allowed=cube.may_beaver(rules, match is not None),
        jacoby=rules.jacoby and match is None,
        match_to=match.match_to if match else 0,
        away=(match.away(side), match.away(other(side))) if match else (0, 0),
        post_crawford=bool(match and match.post_crawford),
    )
