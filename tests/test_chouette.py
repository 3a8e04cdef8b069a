"""The chouette in the reference engine (RULES.md, "Chouette", worked examples 24-30).

The board outcomes come from the dice: with players that always pick the first legal play, the
checker play does not depend on who moves, so chouette game k of seed 17 ends on the board as
the two-player game k of seed 17 does (the box throws white's dice).  Those outcomes were read
once from the two-player engine and are written down here (``BOARD``); a test checks that the
two-player engine still says so.  Every stake and every point below is worked out by hand.
"""

from __future__ import annotations

import pytest
from conftest import ScriptedPlayer

from bgsim.chouette import (
    BOX, CAPTAIN, MAX_PLAYERS, SEATING_STREAM, TEAM, CubeEvent, Seating, first_seating,
    play_chouette, play_session, seating_order,
)
from bgsim.chouette_sessions import play_chouettes
from bgsim.cube import Response, Rules
from bgsim.decisions import DecisionError
from bgsim.dice import RandomStream
from bgsim.game import play_game

TAKE, DROP, BEAVER = Response.TAKE, Response.DROP, Response.BEAVER
SEED = 17
# (seed 17, game): (winner, result, plies) with first-play players on both sides.  The box
# (white's dice) opens games 0 to 3, so there ply 2 is the team's first cube turn and ply 3
# the box's.
BOARD = {
    0: ("team", "single", 84),  # two ties on the opening throw
    1: ("team", "gammon", 120),
    2: ("team", "single", 42),  # one tie on the opening throw
    3: ("team", "gammon", 102),
    6: ("box", "single", 54),
    10: ("team", "backgammon", 131),
}
A, B, C, D = 0, 1, 2, 3


def asks(*answers, then=None):
    """offer_double answers given in order; after them ``then`` (None: any further ask fails)."""
    queue = list(answers)

    def answer(position, view, asked):
        if queue:
            return queue.pop(0)
        if then is None:
            raise AssertionError(f"an offer_double question nobody expected (value {view.value})")
        return then

    return answer


def people(count: int) -> list[ScriptedPlayer]:
    """Players named A, B, C, ... who play the first legal play, never double and take."""
    return [ScriptedPlayer(chr(ord("A") + number)) for number in range(count)]


def by_player(record) -> dict:
    return {seat.player: seat for seat in record.seats}


def test_the_board_outcomes_written_here_are_the_two_player_engines():
    for game, (winner, result, plies) in BOARD.items():
        record = play_game(ScriptedPlayer("w"), ScriptedPlayer("b"), SEED, game)
        assert ({"white": "box", "black": "team"}[record.winner], record.result, record.plies) == (winner, result, plies)


# --- seating and rotation -------------------------------------------------------------------

class Throws:
    def __init__(self, *dice):
        self.dice = list(dice)

    def die(self):
        return self.dice.pop(0)


def test_worked_example_24_the_highest_throw_is_in_the_box_the_second_is_captain():
    order = seating_order(Throws(3, 6, 5, 1), [A, B, C, D])
    seating = Seating(tuple(order))
    assert (seating.box, seating.captain, seating.team) == (B, C, (C, A, D))


def test_ties_are_thrown_again_among_the_tied_highest_group_first():
    # 4 4 2 4: A, B and D tie and throw again (5 5 1): A and B tie again (2 6): B, A; then D; then C
    throws = Throws(4, 4, 2, 4, 5, 5, 1, 2, 6)
    assert seating_order(throws, [A, B, C, D]) == [B, A, D, C]
    assert throws.dice == []


def test_seating_comes_from_the_seeds_seating_stream():
    dice = RandomStream(1, 0, SEATING_STREAM)
    assert [dice.die() for _ in range(4)] == [2, 1, 3, 4]
    assert first_seating(1, 4).order == (D, C, A, B)
    assert first_seating(1, 3).order == (C, A, B)  # 2 1 3
    # seed 2 throws 6 6 4 4; A and B throw 3 6; C and D throw 2 2, then 3 5
    dice = RandomStream(2, 0, SEATING_STREAM)
    assert [dice.die() for _ in range(10)] == [6, 6, 4, 4, 3, 6, 2, 2, 3, 5]
    assert first_seating(2, 4).order == (B, A, D, C)
    assert SEATING_STREAM == 11


def test_worked_example_28_rotation_after_a_team_win_and_after_a_box_win():
    seating = Seating((B, C, A, D))  # box B, captain C, team A, D
    assert seating.after(TEAM).order == (C, A, D, B)
    assert seating.after(BOX).order == (B, A, D, C)


def test_a_seating_is_every_player_once():
    with pytest.raises(ValueError, match="every player number"):
        Seating((0, 1, 1))
    with pytest.raises(ValueError, match="3 to 10 players"):
        Seating((0, 1))


# --- the team regime ------------------------------------------------------------------------

def test_worked_example_25_one_member_who_does_not_want_to_double_blocks_the_team():
    players = people(4)
    players[C].doubles, players[A].doubles = True, True
    players[D].doubles = False
    players[B].answers = []  # the box is never asked to answer
    record = play_chouette(players, Seating((B, C, A, D)), SEED, 1)
    seats = by_player(record)
    team_turns = len(players[D].offers_asked)
    assert team_turns > 10 and len(players[C].offers_asked) == len(players[A].offers_asked) == team_turns
    assert (seats[C].doubles_blocked, seats[A].doubles_blocked, seats[D].doubles_blocked) == (team_turns, team_turns, 0)
    assert all(seat.doubles_offered == 0 for seat in record.seats)
    assert (record.winner, record.result) == ("team", "gammon")
    assert record.points() == {B: -6, C: 2, A: 2, D: 2}


def test_the_team_doubles_when_every_member_agrees_and_the_box_answers_once_for_all():
    players = people(4)
    for member in (C, A, D):
        players[member].doubles = asks(True, then=False)
    players[B].answers = [TAKE]
    players[B].doubles = False
    record = play_chouette(players, Seating((B, C, A, D)), SEED, 1)
    assert len(players[B].responses_asked) == 1 and players[B].responses_asked[0].value == 1
    seats = by_player(record)
    assert [seats[m].doubles_offered for m in (C, A, D)] == [1, 1, 1]
    assert (seats[B].doubles_received, seats[B].doubles_taken) == (3, 3)
    assert all((seats[m].cube_value, seats[m].cube_owner) == (2, "box") for m in (C, A, D))
    assert record.points() == {B: -12, C: 4, A: 4, D: 4}  # a gammon at 2 for each


def test_worked_example_26_a_member_drops_pays_the_stake_before_the_double_and_leaves():
    players = people(4)
    players[B].doubles = asks(True)  # the box doubles from the centre at its first turn (ply 3)
    players[A].answers = [DROP]
    players[C].answers, players[D].answers = [TAKE], [TAKE]
    players[A].doubles = asks(False)  # asked once, at ply 2, before it left
    record = play_chouette(players, Seating((B, C, A, D)), SEED, 1)
    seats = by_player(record)
    assert (record.winner, record.result) == ("team", "gammon")
    assert record.points() == {B: -7, A: -1, C: 4, D: 4}
    assert (seats[A].left_ply, seats[A].dropped, seats[A].result, seats[A].cube_value) == (3, True, "drop", 1)
    assert (seats[C].cube_value, seats[C].cube_owner, seats[C].result) == (2, "team", "gammon")
    assert (seats[B].doubles_offered, seats[B].doubles_accepted) == (3, 2)
    assert players[A].answers == [] and players[C].answers == [] and players[D].answers == []


def test_worked_example_27_a_captain_who_drops_hands_the_checkers_to_the_next_member():
    players = people(4)
    players[B].doubles = asks(True)
    players[C].answers = [DROP]
    players[A].answers, players[D].answers = [TAKE], [TAKE]
    record = play_chouette(players, Seating((B, C, A, D)), SEED, 1, trace=True)
    movers = [ply.mover for ply in record.history if ply.side == TEAM]
    assert movers[0] == C  # ply 2, before the double
    assert movers[1:] == [A] * (len(movers) - 1)
    seats = by_player(record)
    assert (seats[C].plies_moved, seats[A].plies_moved, seats[D].plies_moved) == (1, len(movers) - 1, 0)
    assert seats[C].seat == CAPTAIN and seats[A].seat == "team"
    assert record.points() == {B: -7, C: -1, A: 4, D: 4}
    assert record.next_seating.order == (C, A, D, B)  # the seats were fixed when the game started


def test_worked_example_29_the_box_drops_the_teams_double_with_three_members_in():
    players = people(4)
    for member in (C, A, D):
        players[member].doubles = asks(True)
    players[B].answers = [DROP]
    record = play_chouette(players, Seating((B, C, A, D)), SEED, 1)
    assert record.points() == {B: -3, C: 1, A: 1, D: 1}
    assert (record.winner, record.result, record.plies) == ("team", "drop", 1)
    assert all(seat.left_ply == 2 for seat in record.seats[1:]) and record.seats[0].dropped


def test_every_member_dropping_ends_the_game_and_the_box_wins():
    players = people(4)
    players[B].doubles = asks(True)
    for member in (C, A, D):
        players[member].answers = [DROP]
        players[member].doubles = asks(False)
    record = play_chouette(players, Seating((B, C, A, D)), SEED, 1)
    assert (record.winner, record.result, record.plies) == ("box", "drop", 2)
    assert record.points() == {B: 3, C: -1, A: -1, D: -1}
    assert record.next_seating.order == (B, A, D, C)


def test_a_redouble_dropped_costs_the_stake_before_it():
    players = people(3)  # box B, captain C, team A
    players[C].doubles = asks(True, then=False)
    players[A].doubles = asks(True)
    players[B].doubles = asks(True)  # asked only once it owns the cube at 2
    players[B].answers = [TAKE]
    players[A].answers = [DROP]
    players[C].answers = [TAKE]
    record = play_chouette(players, Seating((B, C, A)), SEED, 1)
    seats = by_player(record)
    assert [view.value for view in players[B].offers_asked] == [2]
    assert (seats[A].points, seats[A].cube_value, seats[A].cube_owner) == (-2, 2, "box")
    assert (seats[C].cube_value, seats[C].cube_owner) == (4, "team")
    assert record.points() == {B: -6, A: -2, C: 8}  # C: a gammon at 4


def test_members_may_not_beaver_the_boxs_double_in_the_team_regime():
    players = people(3)
    players[B].doubles = asks(True)
    players[C].answers = [BEAVER]
    with pytest.raises(DecisionError, match="beaver"):
        play_chouette(players, Seating((B, C, A)), SEED, 1, Rules(beaver=True))
    assert players[C].responses_asked[0].beaver_allowed is False


def test_the_box_may_beaver_the_teams_double_for_all_of_them():
    players = people(3)
    players[C].doubles = asks(True, then=False)
    players[A].doubles = asks(True, then=False)
    players[B].answers = [BEAVER]
    record = play_chouette(players, Seating((B, C, A)), SEED, 1, Rules(beaver=True))
    seats = by_player(record)
    assert players[B].responses_asked[0].beaver_allowed is True
    assert all((seats[m].cube_value, seats[m].cube_owner) == (4, "box") for m in (C, A))
    assert seats[B].beavers == 2
    assert record.points() == {B: -16, C: 8, A: 8}


# --- the individual regime ------------------------------------------------------------------

def test_worked_example_30_individual_cubes_the_box_answers_each_members_double():
    X, Y, Z = A, B, C
    players = people(3)
    players[Y].doubles = asks(True)  # its first turn; then the box owns its cube
    players[Z].doubles = False
    players[X].answers = [TAKE]
    record = play_chouette(players, Seating((X, Y, Z)), SEED, 6, chouette_cubes="individual")
    assert (record.winner, record.result) == ("box", "single")
    assert record.points() == {X: 3, Y: -2, Z: -1}
    seats = by_player(record)
    assert (seats[Y].cube_value, seats[Y].cube_owner, seats[Z].cube_value, seats[Z].cube_owner) == (2, "box", 1, "centre")
    # the box was asked about each cube it could double, Y's (its own, at 2) and Z's (centred)
    assert {view.value for view in players[X].offers_asked} == {1, 2}


def test_the_box_dropping_one_members_double_lets_the_others_play_on():
    players = people(3)  # box A, captain B, team C
    players[B].doubles = asks(True)
    players[C].doubles = False
    players[A].answers = [DROP]
    record = play_chouette(players, Seating((A, B, C)), SEED, 1, chouette_cubes="individual", trace=True)
    seats = by_player(record)
    assert (seats[B].points, seats[B].left_ply, seats[A].dropped) == (1, 2, True)
    assert seats[B].plies_moved == 0  # it left at ply 2, before the roll
    assert [ply.mover for ply in record.history if ply.side == TEAM] == [C] * seats[C].plies_moved
    assert (record.winner, record.result) == ("team", "gammon")
    assert record.points() == {A: -3, B: 1, C: 2}


def test_members_beaver_their_own_cube_in_the_individual_regime():
    players = people(3)  # box A, captain B, team C
    players[A].doubles = asks(True, True)  # B's cube, then C's, at ply 3
    players[B].answers = [BEAVER]
    players[C].answers = [TAKE]
    record = play_chouette(players, Seating((A, B, C)), SEED, 1, Rules(beaver=True), chouette_cubes="individual")
    seats = by_player(record)
    assert (seats[B].cube_value, seats[B].cube_owner, seats[B].beavers) == (4, "team", 1)
    assert (seats[C].cube_value, seats[C].cube_owner) == (2, "team")
    assert record.points() == {A: -12, B: 8, C: 4}


# --- the money options, per member ----------------------------------------------------------

@pytest.mark.parametrize("regime", ["team", "individual"])
def test_cube_limit_no_double_beyond_the_maximum(regime):
    players = people(3)  # box B, captain C, team A
    players[C].doubles, players[A].doubles = asks(True, then=True), asks(True, then=True)
    players[B].doubles = True
    players[B].answers = [TAKE, TAKE] if regime == "individual" else [TAKE]
    record = play_chouette(players, Seating((B, C, A)), SEED, 1, Rules(max_cube=2), chouette_cubes=regime)
    assert all(view.value == 1 for player in players for view in player.offers_asked)
    assert players[B].offers_asked == []  # the team doubled first; 4 is beyond the limit
    assert [seat.cube_value for seat in record.seats[1:]] == [2, 2]
    assert record.points() == {B: -8, C: 4, A: 4}


def test_jacoby_counts_each_members_gammon_only_if_its_own_cube_was_turned():
    players = people(3)  # box A, captain B, team C; individual cubes
    players[B].doubles = asks(True)
    players[C].doubles = False
    players[A].answers = [TAKE]
    record = play_chouette(players, Seating((A, B, C)), SEED, 1, Rules(jacoby=True), chouette_cubes="individual")
    assert record.points() == {A: -5, B: 4, C: 1}  # B: a gammon at 2; C: Jacoby makes it a single
    players[B].doubles = asks(True)
    players[A].answers = [TAKE]
    record = play_chouette(players, Seating((A, B, C)), SEED, 1, chouette_cubes="individual")
    assert record.points() == {A: -6, B: 4, C: 2}


@pytest.mark.parametrize("regime", ["team", "individual"])
def test_a_backgammon_is_three_times_each_members_cube(regime):
    players = people(4)
    record = play_chouette(players, Seating((A, B, C, D)), SEED, 10, chouette_cubes=regime)
    assert (record.winner, record.result) == ("team", "backgammon")
    assert record.points() == {A: -9, B: 3, C: 3, D: 3}
    record = play_chouette(players, Seating((A, B, C, D)), SEED, 10, Rules(backgammon_as_gammon=True),
                           chouette_cubes=regime)
    assert record.points() == {A: -6, B: 2, C: 2, D: 2}


@pytest.mark.parametrize("regime", ["team", "individual"])
def test_automatic_doubles_double_every_members_cube(regime):
    players = people(3)
    record = play_chouette(players, Seating((A, B, C)), SEED, 0, Rules(automatic_doubles=1), chouette_cubes=regime)
    assert record.automatic_doubles == 1
    assert [(seat.cube_value, seat.cube_owner) for seat in record.seats[1:]] == [(2, "centre"), (2, "centre")]
    assert record.points() == {A: -4, B: 2, C: 2}  # a single at 2
    record = play_chouette(players, Seating((A, B, C)), SEED, 0, Rules(automatic_doubles=2, jacoby=True),
                           chouette_cubes=regime)
    assert record.automatic_doubles == 2 and record.points() == {A: -8, B: 4, C: 4}


def test_no_cube_means_no_question():
    players = people(3)
    for player in players:
        player.doubles = asks()
    record = play_chouette(players, Seating((A, B, C)), SEED, 1, Rules(cube=False))
    assert record.points() == {A: -4, B: 2, C: 2}


# --- zero sum and the counts, over sessions of real bots --------------------------------------

@pytest.mark.parametrize("regime", ["team", "individual"])
def test_every_game_sums_to_zero_and_the_counts_match(regime):
    from bots import make_player

    specs = ["random+pipdiff(double=0%,redouble=0%,take=30%,beaver=5%)",
             "racer+pipdiff(double=2%,redouble=2%,take=20%,beaver=0%)",
             "random+pipdiff(double=1%,redouble=1%,take=3%)", "racer+never-take",
             "random+pipdiff(double=0%,redouble=0%,take=10%)"]
    players = [make_player(spec) for spec in specs]
    rules = Rules(beaver=True, jacoby=True, max_cube=16)
    frame = play_chouettes(players, 5, 25, rules, regime)
    assert len(frame) == 25 * 5 and set(frame["players"]) == {5}
    for _, game in frame.groupby("game"):
        assert game["points"].sum() == 0
        box, members = game[game["seat"] == "box"].iloc[0], game[game["seat"] != "box"]
        assert box["doubles_offered"] == members["doubles_received"].sum()
        assert box["doubles_received"] == members["doubles_offered"].sum()
        assert box["doubles_taken"] == members["doubles_accepted"].sum()
        assert box["doubles_accepted"] == members["doubles_taken"].sum()
        assert game["plies_moved"].sum() == game["plies"].iloc[0]  # one mover a ply
        for member in members.itertuples():
            assert member.cube_value <= 16
            assert abs(member.points) in {member.cube_value * k for k in (1, 2, 3)}
    assert (frame["doubles_offered"] > 0).any() and frame["dropped"].any()
    blocked = frame["doubles_blocked"] > 0
    assert blocked.any() if regime == "team" else not blocked.any()
    if regime == "individual":  # the box's and the members' beavers, up to the limit
        assert frame["beavers"].sum() > 0 and frame["cube_value"].max() == 16


def test_the_same_seed_gives_the_same_session_and_a_session_continues_where_it_stopped():
    from bots import make_player

    players = [make_player(spec) for spec in ("random+pipdiff", "racer+keith", "random+always-take")]
    whole = list(play_session(players, 9, 8))
    again = list(play_session(players, 9, 8))
    assert [record.points() for record in whole] == [record.points() for record in again]
    rest = list(play_session(players, 9, range(5, 8), seating=whole[4].next_seating))
    assert [record.points() for record in rest] == [record.points() for record in whole[5:]]
    assert [record.seating for record in rest] == [record.seating for record in whole[5:]]
    with pytest.raises(ValueError, match="needs the seating"):
        play_session(players, 9, range(5, 8))


def test_a_random_checker_player_draws_from_its_own_stream():
    class Recorder(ScriptedPlayer):
        def choose_play(self, position, roll, plays, random):
            self.keys = getattr(self, "keys", set()) | {random.key}
            return plays[0]

    players = [Recorder(name) for name in "ABC"]
    play_chouette(players, Seating((B, C, A)), 4, 7)
    assert players[B].keys == {RandomStream(4, 7, 1 + B).key}
    assert players[C].keys == {RandomStream(4, 7, 1 + C).key}
    assert not hasattr(players[A], "keys")  # not the captain, never moved


def test_with_no_member_ever_leaving_the_chouette_plays_the_two_player_games_dice():
    players = people(3)
    for game in (0, 1, 4):
        record = play_chouette(players, Seating((B, A, C)), 3, game, trace=True)
        two = play_game(ScriptedPlayer("w"), ScriptedPlayer("b"), 3, game, trace=True)
        assert [ply.roll for ply in record.history] == [ply.roll for ply in two.history]
        assert [ply.play for ply in record.history] == [ply.play for ply in two.history]


@pytest.mark.parametrize("count", [2, MAX_PLAYERS + 1])
def test_three_to_ten_players(count):
    with pytest.raises(ValueError, match="3 to 10 players"):
        play_chouettes(people(count), 1, 1)


def test_an_unknown_regime_is_refused():
    with pytest.raises(ValueError, match="unknown chouette cube regime 'mixed'"):
        play_chouettes(people(3), 1, 1, chouette_cubes="mixed")


# --- hand-checked sessions, turn by turn ----------------------------------------------------

def script(players, **plans):
    """Each player's questions for the next game: doubles=..., answers=[...]; the rest never
    double and may not be asked to answer."""
    for player in players:
        player.doubles, player.answers = False, []
    for name, (doubles, answers) in plans.items():
        player = players["ABC".index(name)]
        player.doubles, player.answers = doubles, list(answers)


def cube_turns(record):
    return [(ply.ply, ply.side, ply.mover, [(event.player, event.action, event.value) for event in ply.cube])
            for ply in record.history if ply.cube]


def test_a_three_player_session_with_the_teams_cube_hand_checked():
    players = people(3)
    seating = first_seating(SEED, 3)
    assert seating.order == (C, A, B)
    records = []

    # game 0: nobody doubles; the team wins a single
    script(players)
    records.append(play_chouette(players, seating, SEED, 0, trace=True))
    assert records[-1].points() == {C: -2, A: 1, B: 1}
    assert cube_turns(records[-1])[:2] == [(2, TEAM, A, [(A, "no double", 1), (B, "no double", 1)]),
                                           (3, BOX, C, [(C, "no double", 1)])]

    # game 1: box A, captain B, team C.  Box doubles at ply 3: B takes, C drops; team gammon at 2
    seating = records[-1].next_seating
    assert seating.order == (A, B, C)
    script(players, A=(asks(True), []), B=(False, [TAKE]), C=(asks(False), [DROP]))
    records.append(play_chouette(players, seating, SEED, 1, trace=True))
    assert cube_turns(records[-1])[:3] == [
        (2, TEAM, B, [(B, "no double", 1), (C, "no double", 1)]),
        (3, BOX, A, [(A, "double", 1), (B, "take", 1), (C, "drop", 1)]),
        (4, TEAM, B, [(B, "no double", 2)]),
    ]
    assert records[-1].points() == {A: -3, B: 4, C: -1}

    # game 2: box B, captain C, team A.  C wants to double, A does not (blocked); the box
    # doubles at ply 3 and both drop: the game ends before the roll of ply 3, the box wins
    seating = records[-1].next_seating
    assert seating.order == (B, C, A)
    script(players, C=(asks(True), [DROP]), A=(asks(False), [DROP]), B=(asks(True), []))
    records.append(play_chouette(players, seating, SEED, 2, trace=True))
    game = records[-1]
    assert [(ply.ply, ply.side, ply.mover, ply.roll) for ply in game.history] == [
        (1, BOX, B, (5, 4)), (2, TEAM, C, (5, 5)), (3, BOX, -1, None)]
    assert cube_turns(game) == [(2, TEAM, C, [(C, "double", 1), (A, "no double", 1)]),
                                (3, BOX, -1, [(B, "double", 1), (C, "drop", 1), (A, "drop", 1)])]
    assert (game.winner, game.result, game.plies) == ("box", "drop", 2)
    assert game.points() == {B: 2, C: -1, A: -1}
    assert by_player(game)[C].doubles_blocked == 1

    # game 3: box B, captain A, team C.  Ply 2 the team doubles (both), the box takes; ply 3 the
    # box redoubles to 4: A drops (pays 2), C takes and moves the checkers; a team gammon at 4 is 8
    seating = game.next_seating
    assert seating.order == (B, A, C)
    script(players, A=(asks(True), [DROP]), C=(asks(True, then=False), [TAKE]), B=(asks(True), [TAKE]))
    records.append(play_chouette(players, seating, SEED, 3, trace=True))
    game = records[-1]
    assert cube_turns(game)[:3] == [
        (2, TEAM, A, [(A, "double", 1), (C, "double", 1), (B, "take", 1)]),
        (3, BOX, B, [(B, "double", 2), (A, "drop", 2), (C, "take", 2)]),
        (4, TEAM, C, [(C, "no double", 4)]),
    ]
    assert game.points() == {B: -6, A: -2, C: 8}
    assert game.next_seating.order == (A, C, B)  # the team won: its captain A takes the box

    totals = {player: sum(record.points()[player] for record in records) for player in (A, B, C)}
    assert totals == {A: -5, B: 1, C: 4}


def test_a_three_player_session_with_individual_cubes_hand_checked():
    players = people(3)
    seating = first_seating(SEED, 3)
    records = []

    # game 0: box C, captain A, team B.  A doubles at ply 2 and the box takes; team single
    script(players, A=(asks(True), []), C=(False, [TAKE]))
    records.append(play_chouette(players, seating, SEED, 0, trace=True, chouette_cubes="individual"))
    assert cube_turns(records[-1])[:2] == [
        (2, TEAM, A, [(A, "double", 1), (C, "take", 1), (B, "no double", 1)]),
        (3, BOX, C, [(C, "no double", 2), (C, "no double", 1)]),  # A's cube (the box's), then B's
    ]
    assert records[-1].points() == {C: -3, A: 2, B: 1}

    # game 1: box A, captain B, team C.  Ply 2: C doubles, the box drops C's double (C +1);
    # ply 3: the box doubles B, B takes; team gammon: B +4
    seating = records[-1].next_seating
    assert seating.order == (A, B, C)
    script(players, C=(asks(True), []), A=(asks(True, then=False), [DROP]), B=(False, [TAKE]))
    records.append(play_chouette(players, seating, SEED, 1, trace=True, chouette_cubes="individual"))
    assert cube_turns(records[-1])[:3] == [
        (2, TEAM, B, [(B, "no double", 1), (C, "double", 1), (A, "drop", 1)]),
        (3, BOX, A, [(A, "double", 1), (B, "take", 1)]),
        (4, TEAM, B, [(B, "no double", 2)]),
    ]
    assert records[-1].points() == {A: -5, B: 4, C: 1}

    # game 2: box B, captain C, team A.  Ply 2: C doubles, the box takes; A does not.  Ply 3:
    # the box redoubles C to 4, C drops (pays 2) and A moves from then on; the box doubles A,
    # A takes.  The team wins a single: A +2, and the box is even
    seating = records[-1].next_seating
    assert seating.order == (B, C, A)
    script(players, C=(asks(True), [DROP]), A=(False, [TAKE]), B=(asks(True, True, then=False), [TAKE]))
    records.append(play_chouette(players, seating, SEED, 2, trace=True, chouette_cubes="individual"))
    game = records[-1]
    assert cube_turns(game)[:3] == [
        (2, TEAM, C, [(C, "double", 1), (B, "take", 1), (A, "no double", 1)]),
        (3, BOX, B, [(B, "double", 2), (C, "drop", 2), (B, "double", 1), (A, "take", 1)]),
        (4, TEAM, A, [(A, "no double", 2)]),
    ]
    assert [ply.mover for ply in game.history if ply.side == TEAM][:2] == [C, A]
    assert (game.winner, game.result) == ("team", "single")
    assert game.points() == {B: 0, C: -2, A: 2}

    # game 3: box C (the captain of the won game, though it dropped), captain A, team B;
    # nobody doubles, the team wins a gammon
    seating = game.next_seating
    assert seating.order == (C, A, B)
    script(players)
    records.append(play_chouette(players, seating, SEED, 3, chouette_cubes="individual"))
    assert records[-1].points() == {C: -4, A: 2, B: 2}
    assert records[-1].next_seating.order == (A, B, C)

    totals = {player: sum(record.points()[player] for record in records) for player in (A, B, C)}
    assert totals == {A: 1, B: 7, C: -8}
