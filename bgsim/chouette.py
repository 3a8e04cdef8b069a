"""The chouette (RULES.md, "Chouette"): one player in the box against a team, in the reference engine.

Three to ten players play one money game at a time.  The box plays alone; the captain's checker
player moves the team's checkers; every team member has a cube strategy of its own and answers
for itself.  A session is N games with the seats rotating after each game.  Players are the
objects of :class:`bgsim.decisions.Player` (a checker bot and a cube bot each), numbered by
their place in the list a session is given: *player i*.

This module is the definition the fast engine must replicate, game for game.  Everything it
must do the same way is written here.

Random streams (``bgsim.dice``: counter-based streams of (seed, game, stream))
----------------------------------------------------------------------------
* Game k of a session is game number k.  Stream 0 of (seed, k) deals its dice exactly as in a
  two-player money game, the box throwing white's die of the opening roll and the team black's:
  the opening throw is one die for the box, then one for the team, thrown again while they tie
  (each tie may be an automatic double); the higher die plays both as its first roll (its own
  die first); every later roll is two dice drawn in order.  So a chouette in which no member
  ever leaves is dealt the dice of ``play_game(box, captain, seed, k)``.
* Player i's own random choices in game k (a ``random`` checker bot) draw from stream
  ``1 + i`` of (seed, k) (:data:`PLAYER_STREAM` + i; streams 1..10), whatever seat it holds:
  a pure function of (seed, game, player).  A member who takes over the team's checkers draws
  from its own stream.
* The seating throws draw from stream 11 (:data:`SEATING_STREAM`) of (seed, game 0), a stream
  no game uses.

Seating (:func:`seating_order`)
-------------------------------
Every player throws one die, in player order (player 0 first).  The throws sort the players
highest first.  Each group of players who tied throws again among themselves, in the same order
(lowest player number first), and is sorted in place by the new throws the same way, at once
(depth first): a tie among the highest throwers is settled, rethrows included, before any draw
for a lower tie.  The first of the order is in the box, the second is the captain, the rest
form the team behind the captain in that order.

Rotation (:meth:`Seating.after`)
--------------------------------
The team wins the game: the captain goes into the box, the box takes the last place in the
team and the next member becomes captain.  The box wins: the box stays, the captain takes the
last place and the next member becomes captain.  The seats of a game are fixed when it starts
(a captain who dropped is still that game's captain).  Who won the game: the side whose
checkers were borne off first; or, when the game ended because no member was left in it, the
side that was on roll (it doubled and every member still in dropped, or in the team regime the
box dropped the team's double; in the individual regime, the box dropped the last doubles).

The turn and the questions asked, in order
------------------------------------------
The opening roll is played without a cube action.  On every later turn the side on roll first
has its cube actions (below), then, if any member is still in the game, rolls and plays; a
game with no member left ends before the roll.  ``plies`` counts rolls.  The box's checker
player moves the box's checkers; the team's are moved by the first member still in the game in
team order (the captain until it leaves).  Positions are seen from the side on roll, as in a
two-player game, and a cube strategy always sees the board from the doubler's side, before the
roll.  Every :class:`~bgsim.cube.CubeView` is a money game's (``match_to`` 0, ``away`` (0, 0)),
built by :func:`bgsim.game.cube_view` from the cube in question.

``chouette_cubes = "team"`` (the rulebook's):
  The members still in the game share one cube: every one of them holds the same value and
  owner (``centre``, ``box`` or ``team``).
  * The box on roll, when the cube is in the centre or the box's and doubling stays within the
    limit: the box's cube bot is asked ``offer_double`` with the view V of that cube, but with
    ``beaver_allowed`` False.  If it doubles, every member still in, in team order (captain
    first), is asked ``respond_to_double`` with the same V.  A take doubles that member's
    cube, now the team's; a drop costs that member the value before the double and takes it out
    of the game; a beaver is refused (:class:`~bgsim.decisions.DecisionError`).
  * The team on roll, when the cube is in the centre or the team's and doubling stays within the
    limit: every member still in, in team order, is asked ``offer_double`` with V
    (``beaver_allowed`` as in a two-player game: beavers on and the value times four within the
    limit); all of them are asked, whatever the earlier ones said.  Only if every one wants to,
    the box is asked ``respond_to_double`` once with V, and its answer applies to every member's
    cube: take (doubled, the box's), beaver (times four, the box's) or drop (every member wins
    the value before the double and leaves: the game ends).  A member who wanted to double when
    another did not has a blocked double.
  Beavers: only the box's, against the team's double: the box answers once for all, so the
  team's one cube stays one cube.  A member's beaver would give the members who took different
  stakes under the one cube the takers own together, so members never beaver in this regime.

``chouette_cubes = "individual"`` (club practice):
  Every member has its own cube against the box, a two-player cube in every respect (beavers
  both ways when the rules allow them).  On each turn, for every member still in, in team order,
  one after the other: if that member's cube may be doubled by the side on roll, the doubler
  (the box's cube bot, or the member's) is asked ``offer_double`` with that cube's view, and if
  it doubles the other side (the member, or the box) is asked ``respond_to_double`` with the
  same view, before the next member's cube is looked at.  A drop takes that member out of the
  game (losing the value before the double if it dropped, winning it if the box dropped).

Automatic doubles double every member's cube alike (it stays in the centre).

``chouette_cubes`` is a rule option of the chouette alone, passed beside the
:class:`~bgsim.cube.Rules` of the money options rather than made a field of them: a field
would enter every two-player run's rules (its ``run.json``, the rules rebuilt from rows).

Scoring
-------
A member who left on a drop won or lost the value of its cube before the refused double.  When
the checkers finish, every member still in wins (the team's checkers won) or loses the result
(single, gammon, backgammon) times the value of its own cube, every money option applied as in
a two-player money game (:func:`bgsim.scoring.points_for`), Jacoby per member: its gammon
counts only if a double was taken on its own cube.  The box's result is minus the sum of the
members', so every game sums to zero.

Rows (:mod:`bgsim.schema`, ``CHOUETTE_COLUMNS``): one per game and player, in seat order (the
box, the captain, then the team), counted per member's cube: the box's double to three members
is three doubles offered by the box and one received by each member, the team's double is one
offered by each member and as many received by the box.

Engines
-------
``bgsim/fast/chouette.py`` plays the same games in the Numba engine, step for step as written
here.  ``bgsim/chouette_sessions.py`` (``Session``, ``play_chouettes``) plays a session batch by
batch in the engine ``chouette_engine`` chooses as ``bgsim play`` does (``auto``: the fast engine
when it can seat every player, else this module); both engines give the same rows.  This module
never loads the fast engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterator, Sequence

from .board import Position
from .cube import Cube, CubeView, Response, Rules
from .decisions import DecisionError, Player, check_player
from .dice import DICE_STREAM, RandomStream, check_seed
from .game import MAX_PLIES, WHITE, answer_to_double, chosen_play, cube_view, opening_roll
from .scoring import DROP, points_for, result_of

BOX = "box"
TEAM = "team"
CAPTAIN = "captain"
SEATS = (BOX, CAPTAIN, TEAM)
CUBE_REGIMES = ("team", "individual")
MIN_PLAYERS = 3
MAX_PLAYERS = 10
PLAYER_STREAM = 1  # player i draws its own choices from stream PLAYER_STREAM + i of (seed, game)
SEATING_STREAM = PLAYER_STREAM + MAX_PLAYERS  # of (seed, game 0): after every player's stream


def other_side(side: str) -> str:
    return TEAM if side == BOX else BOX


def check_chouette_cubes(chouette_cubes: str) -> str:
    if chouette_cubes not in CUBE_REGIMES:
        raise ValueError(f"unknown chouette cube regime {chouette_cubes!r}: choose from {', '.join(CUBE_REGIMES)}")
    return chouette_cubes


def check_player_count(count: int) -> int:
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise ValueError(f"a chouette has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {count}")
    return count


def check_players(players: Sequence[Player]) -> list[Player]:
    """The players as a list, each checked to be a player; ValueError or TypeError naming the problem."""
    if isinstance(players, (str, bytes)):
        raise TypeError("players is a list of player objects (bots.make_player builds them from specs)")
    players = list(players)
    check_player_count(len(players))
    for number, player in enumerate(players):
        check_player(f"player {number}", player)
    return players


@dataclass(frozen=True)
class Seating:
    """The seats of one game: player numbers, the box first, then the captain, then the team."""

    order: tuple[int, ...]

    def __post_init__(self) -> None:
        check_player_count(len(self.order))
        if sorted(self.order) != list(range(len(self.order))):
            raise ValueError(f"a seating is every player number 0..{len(self.order) - 1} once, got {self.order}")

    @property
    def box(self) -> int:
        return self.order[0]

    @property
    def captain(self) -> int:
        return self.order[1]

    @property
    def team(self) -> tuple[int, ...]:
        """The team in order, the captain first."""
        return self.order[1:]

    def seat(self, place: int) -> str:
        """``box``, ``captain`` or ``team`` for place 0, 1, 2.. of :attr:`order`."""
        return SEATS[min(place, 2)]

    def after(self, winner: str) -> "Seating":
        """The seats of the next game when ``winner`` (``box`` or ``team``) won this one."""
        box, captain, rest = self.order[0], self.order[1], self.order[2:]
        if winner == TEAM:
            return Seating((captain, *rest, box))
        if winner == BOX:
            return Seating((box, *rest, captain))
        raise ValueError(f"the winner of a chouette game is box or team, got {winner!r}")


def seating_after(rows) -> Seating:
    """The seats of the game after the last game of ``rows`` (a session's DataFrame,
    ``bgsim.schema.CHOUETTE_COLUMNS``): that game's seats and its winner say them.  A session
    continued from its rows on disk starts there."""
    last = rows[rows["game"] == rows["game"].max()].sort_values("place")
    if last.empty:
        raise ValueError("no games in these rows: the seats of the next game come from the seating throws")
    return Seating(tuple(int(player) for player in last["player"])).after(str(last["winner"].iloc[0]))


def seating_order(throws, players: Sequence[int]) -> list[int]:
    """``players`` ordered by their throws of one die each from ``throws`` (anything with
    ``die()``), highest first, ties thrown again among the tied (see the module text)."""
    dice = [throws.die() for _ in players]
    order: list[int] = []
    for value in sorted(set(dice), reverse=True):
        tied = [player for player, die in zip(players, dice) if die == value]
        order += tied if len(tied) == 1 else seating_order(throws, tied)
    return order


def first_seating(seed: int, players: int) -> Seating:
    """The seats of a session's first game, from the seating throws of ``seed``."""
    check_seed(seed)
    check_player_count(players)
    return Seating(tuple(seating_order(RandomStream(seed, 0, SEATING_STREAM), list(range(players)))))


@dataclass
class SeatRecord:
    """One player's part in one game: one row of a chouette frame."""

    player: int
    seat: str  # box, captain or team
    place: int  # 0 the box, 1 the captain, 2.. the team in order
    cube_value: int = 0  # of this member's cube at the end (before a refused double); 0 for the box
    cube_owner: str = ""  # centre, box or team; "" for the box
    left_ply: int = 0  # the ply whose cube action took this member out of the game; 0 if none
    dropped: bool = False  # refused a double (the box: any member's or the team's)
    result: str = ""  # single, gammon, backgammon, or drop when this member left on a drop
    doubles_offered: int = 0
    doubles_accepted: int = 0  # of its offers, those taken or beavered
    doubles_received: int = 0
    doubles_taken: int = 0  # a beaver counts here too
    beavers: int = 0
    doubles_blocked: int = 0  # team regime: it wanted to double, another member did not
    plies_moved: int = 0  # plies at which it moved the checkers
    points: int = 0  # won (+) or lost (-)


@dataclass(frozen=True)
class CubeEvent:
    """One answer in a traced game: ``player`` said ``action`` (double, no double, take, drop,
    beaver) about a cube of ``value`` before the double."""

    player: int
    action: str
    value: int


@dataclass(frozen=True)
class ChouettePly:
    """One turn of a traced game."""

    ply: int
    side: str  # box or team, on roll
    mover: int  # the player who moved the checkers; -1 when the game ended before the roll
    position_id: str  # before the roll, seen from the side on roll
    cube: tuple[CubeEvent, ...]
    roll: tuple[int, int] | None
    play: str


@dataclass
class ChouetteRecord:
    """Everything one chouette game produced; ``bgsim.schema`` turns it into rows."""

    seed: int
    game: int
    seating: Seating
    winner: str  # box or team: decides the rotation
    result: str  # how the game ended: single, gammon, backgammon, or drop
    plies: int
    automatic_doubles: int
    seats: list[SeatRecord]  # in seat order: the box, the captain, the team
    history: list[ChouettePly] = field(default_factory=list)

    @property
    def next_seating(self) -> Seating:
        return self.seating.after(self.winner)

    def points(self) -> dict[int, int]:
        """Points won by each player number."""
        return {seat.player: seat.points for seat in self.seats}


@dataclass
class _Member:
    """A team member during a game: its cube against the box and whether it is still in."""

    player: Player
    record: SeatRecord
    cube: Cube
    turned: bool = False  # a double on its cube was taken: its gammons count under Jacoby
    in_game: bool = True


class _Game:
    def __init__(self, players, seating, seed, game, rules, chouette_cubes, trace) -> None:
        self.players = players
        self.seating = seating
        self.seed = seed
        self.game = game
        self.rules = rules
        self.regime = chouette_cubes
        self.trace = trace
        self.dice = RandomStream(seed, game, DICE_STREAM)
        self.streams = {number: RandomStream(seed, game, PLAYER_STREAM + number) for number in seating.order}
        self.box_player = players[seating.box]
        self.box = SeatRecord(seating.box, BOX, 0)
        self.members: list[_Member] = []
        self.plies = 0
        self.automatic = 0
        self.events: list[CubeEvent] = []
        self.history: list[ChouettePly] = []

    def members_in(self) -> list[_Member]:
        return [member for member in self.members if member.in_game]

    def play(self) -> ChouetteRecord:
        opener, roll, ties = opening_roll(self.dice)  # the box throws white's die
        side = BOX if opener == WHITE else TEAM
        start = Cube()
        for _ in range(ties):
            if self.rules.cube and start.automatic_double(self.rules, self.automatic):
                self.automatic += 1
        for place, number in enumerate(self.seating.team, start=1):
            record = SeatRecord(number, self.seating.seat(place), place)
            self.members.append(_Member(self.players[number], record, Cube(start.value)))
        position = Position.start()
        while self.plies < MAX_PLIES:
            self.events = []
            position_id = position.position_id if self.trace else ""
            if roll is None:
                self.cube_actions(side, position)
                if not self.members_in():
                    self.note(side, -1, position_id, None, "")
                    return self.finish(side, DROP)
                roll = self.dice.roll()
            self.plies += 1
            mover = self.box if side == BOX else self.members_in()[0].record
            chosen = chosen_play(self.players[mover.player], position, roll, self.streams[mover.player])
            mover.plies_moved += 1
            if chosen is not None:
                position = chosen.result
            self.note(side, mover.player, position_id, roll, chosen.notation if chosen else "")
            if position.checkers_off == 15:
                return self.finish(side, result_of(position))
            position = position.turned()
            side = other_side(side)
            roll = None
        raise RuntimeError(f"chouette game {self.game} of seed {self.seed} did not end within {MAX_PLIES} plies")

    # --- the cube -------------------------------------------------------------------------

    def cube_actions(self, side: str, position: Position) -> None:
        if self.regime == "team":
            if side == BOX:
                self.box_doubles_the_team(position)
            else:
                self.team_doubles_the_box(position)
            return
        for member in self.members_in():
            if side == BOX:
                self.box_doubles_a_member(member, position)
            else:
                self.member_doubles_the_box(member, position)

    def box_doubles_the_team(self, position: Position) -> None:
        members = self.members_in()
        cube = members[0].cube  # every member still in holds the same cube
        if not cube.may_double(BOX, self.rules):
            return
        view = replace(cube_view(cube, self.rules, BOX, None), beaver_allowed=False)
        if not self.asked_to_double(self.box_player, self.box.player, position, view):
            return
        for member in members:
            self.settle(member, BOX, view, self.answer(member.player, member.record.player, position, view))

    def team_doubles_the_box(self, position: Position) -> None:
        members = self.members_in()
        cube = members[0].cube
        if not cube.may_double(TEAM, self.rules):
            return
        view = cube_view(cube, self.rules, TEAM, None)
        wanting = [member for member in members
                   if self.asked_to_double(member.player, member.record.player, position, view)]
        if len(wanting) < len(members):  # not unanimous: the team does not double
            for member in wanting:
                member.record.doubles_blocked += 1
            return
        answer = self.answer(self.box_player, self.box.player, position, view)
        for member in members:
            self.settle(member, TEAM, view, answer)

    def box_doubles_a_member(self, member: _Member, position: Position) -> None:
        if not member.cube.may_double(BOX, self.rules):
            return
        view = cube_view(member.cube, self.rules, BOX, None)
        if self.asked_to_double(self.box_player, self.box.player, position, view):
            self.settle(member, BOX, view, self.answer(member.player, member.record.player, position, view))

    def member_doubles_the_box(self, member: _Member, position: Position) -> None:
        if not member.cube.may_double(TEAM, self.rules):
            return
        view = cube_view(member.cube, self.rules, TEAM, None)
        if self.asked_to_double(member.player, member.record.player, position, view):
            self.settle(member, TEAM, view, self.answer(self.box_player, self.box.player, position, view))

    def asked_to_double(self, player: Player, number: int, position: Position, view: CubeView) -> bool:
        wants = bool(player.offer_double(position, view))
        self.events.append(CubeEvent(number, "double" if wants else "no double", view.value))
        return wants

    def answer(self, player: Player, number: int, position: Position, view: CubeView) -> Response:
        answer = answer_to_double(player, position, view)
        if answer is Response.BEAVER and not view.beaver_allowed:
            raise DecisionError(f"{player.name} beavered where beavers are not allowed")
        self.events.append(CubeEvent(number, answer.value, view.value))
        return answer

    def settle(self, member: _Member, doubler_side: str, view: CubeView, answer: Response) -> None:
        """Apply ``answer`` to the double of ``member``'s cube that ``doubler_side`` offered."""
        doubler, taker = (self.box, member.record) if doubler_side == BOX else (member.record, self.box)
        doubler.doubles_offered += 1
        taker.doubles_received += 1
        if answer is Response.DROP:
            taker.dropped = True
            member.in_game = False
            member.record.left_ply = self.plies + 1
            member.record.result = DROP
            member.record.points = view.value if doubler_side == TEAM else -view.value
            return
        if answer is Response.BEAVER:
            member.cube.beaver(other_side(doubler_side))
            taker.beavers += 1
        else:
            member.cube.take(other_side(doubler_side))
        taker.doubles_taken += 1
        doubler.doubles_accepted += 1
        member.turned = True

    # --- the end --------------------------------------------------------------------------

    def finish(self, winner: str, result: str) -> ChouetteRecord:
        for member in self.members_in():  # none left after a drop
            points = points_for(result, member.cube.value, self.rules, member.turned, False)
            member.record.points = points if winner == TEAM else -points
            member.record.result = result
        for member in self.members:
            member.record.cube_value = member.cube.value
            member.record.cube_owner = member.cube.owner
        self.box.result = result
        self.box.points = -sum(member.record.points for member in self.members)
        return ChouetteRecord(
            seed=self.seed, game=self.game, seating=self.seating, winner=winner, result=result,
            plies=self.plies, automatic_doubles=self.automatic,
            seats=[self.box] + [member.record for member in self.members], history=self.history,
        )

    def note(self, side, mover, position_id, roll, play) -> None:
        if self.trace:
            self.history.append(ChouettePly(self.plies if roll else self.plies + 1, side, mover,
                                            position_id, tuple(self.events), roll, play))


def play_chouette(
    players: Sequence[Player],
    seating: Seating,
    seed: int,
    game: int,
    rules: Rules = Rules(),
    chouette_cubes: str = "team",
    trace: bool = False,
) -> ChouetteRecord:
    """Play game ``game`` of session ``seed`` with ``players`` (player i is ``players[i]``)
    seated as ``seating`` says, under ``rules`` (money play) and the cube regime
    ``chouette_cubes`` (``team`` or ``individual``)."""
    players = check_players(players)
    check_seed(seed)
    check_seed(game, "game number")
    check_chouette_cubes(chouette_cubes)
    if not isinstance(seating, Seating):
        raise TypeError(f"seating must be a bgsim.chouette.Seating, got {type(seating).__name__}")
    if len(seating.order) != len(players):
        raise ValueError(f"the seating has {len(seating.order)} seats for {len(players)} players")
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a bgsim.cube.Rules, got {type(rules).__name__}")
    return _Game(players, seating, seed, game, rules, chouette_cubes, trace).play()


def session_games(games: int | range) -> range:
    """``games`` (a count N, meaning games 0..N-1, or a range of consecutive game numbers) as a range."""
    if isinstance(games, bool) or not isinstance(games, (int, range)):
        raise TypeError(f"games must be a whole number of games or a range of game numbers, got {games!r}")
    if isinstance(games, int):
        if games < 0:
            raise ValueError(f"the number of games cannot be negative, got {games}")
        games = range(games)
    if games.step != 1:
        raise ValueError("the games of a session follow each other: a range with step 1")
    if len(games):
        check_seed(games[0], "game number")
        check_seed(games[-1], "game number")
    return games


def play_session(
    players: Sequence[Player],
    seed: int,
    games: int | range,
    rules: Rules = Rules(),
    chouette_cubes: str = "team",
    seating: Seating | None = None,
) -> Iterator[ChouetteRecord]:
    """The games of session ``seed`` one after the other, the seats rotating after each.

    ``games``: N (games 0..N-1) or a range of consecutive game numbers.  ``seating``: the seats
    of the first of them; by default the seating throws of ``seed``, which only a session that
    starts at game 0 may use (a later start continues from the ``next_seating`` of the game
    before it).  Everything is checked before the first game is played.
    """
    players = check_players(players)
    check_seed(seed)
    numbers = session_games(games)
    check_chouette_cubes(chouette_cubes)
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a bgsim.cube.Rules, got {type(rules).__name__}")
    if seating is None:
        if len(numbers) and numbers[0] != 0:
            raise ValueError(f"a session continued at game {numbers[0]} needs the seating of that game "
                             "(the next_seating of the game before it)")
        seating = first_seating(seed, len(players))
    elif len(seating.order) != len(players):
        raise ValueError(f"the seating has {len(seating.order)} seats for {len(players)} players")
    return _session(players, seed, numbers, rules, chouette_cubes, seating)


def _session(players, seed, numbers, rules, chouette_cubes, seating) -> Iterator[ChouetteRecord]:
    for number in numbers:
        record = _Game(players, seating, seed, number, rules, chouette_cubes, False).play()
        yield record
        seating = record.next_seating


def session_frame(records: Sequence[ChouetteRecord], players: Sequence[Player], rules: Rules,
                  chouette_cubes: str):
    """The rows of ``records`` (games of one session) as a DataFrame (``bgsim.schema``)."""
    from .schema import chouette_columns_from_records, chouette_frame_from_columns, empty_chouette_frame

    if not records:
        return empty_chouette_frame()
    return chouette_frame_from_columns(chouette_columns_from_records(records), records[0].seed,
                                       [player.name for player in players], rules, chouette_cubes)
