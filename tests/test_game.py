"""The game loop: opening roll, turn order, the cube in play, the end and its score, replay."""

from __future__ import annotations

import pytest

from bgsim import Position, legal_plays
from bgsim.cube import Response, Rules
from bgsim.decisions import DecisionError
from bgsim.dice import RandomStream, stream_key
from bgsim.game import BLACK, WHITE, play_game
from bgsim.scoring import result_of

SEED = 2026


def opening_from_stream(seed: int, game: int, stream: int = 0):
    """The opening as the dice contract deals it: one die each (white first), ties thrown again.

    Returns (ties, side that opens, its roll with its own die first, the stream after it).
    """
    dice = RandomStream(seed, game, stream)
    ties = 0
    while True:
        white, black = dice.die(), dice.die()
        if white != black:
            break
        ties += 1
    side = WHITE if white > black else BLACK
    return ties, side, (max(white, black), min(white, black)), dice


def find_game(predicate, white, black, rules=Rules(), seed=SEED, limit=400):
    """The first game number whose record satisfies ``predicate`` (players rebuilt each time)."""
    for game in range(limit):
        record = play_game(white(), black(), seed, game, rules, trace=True)
        if predicate(record):
            return game, record
    raise AssertionError("no such game among the first games of the seed")


# --- the opening roll and the dice -------------------------------------------------------------


def test_the_opening_roll_is_never_a_double_and_the_higher_die_opens(scripted):
    for game in range(300):
        # the second side doubles and the opener drops: each game is its opening ply and no more
        white = scripted("w", doubles=True, answers=Response.DROP)
        black = scripted("b", doubles=True, answers=Response.DROP)
        record = play_game(white, black, SEED, game, trace=True)
        first = record.history[0]
        ties, side, roll, _ = opening_from_stream(SEED, game)
        assert first.roll[0] != first.roll[1]
        assert (first.side, first.roll) == (side, roll)
        assert first.position_id == Position.start().position_id


def test_ties_on_the_opening_roll_are_thrown_again(random_player):
    game = next(g for g in range(500) if opening_from_stream(SEED, g)[0] > 0)
    record = play_game(random_player("w"), random_player("b"), SEED, game, trace=True)
    _, side, roll, _ = opening_from_stream(SEED, game)
    assert (record.history[0].side, record.history[0].roll) == (side, roll)
    assert record.cube_value == 1 and record.automatic_doubles == 0  # off by default


def test_every_roll_comes_from_the_dice_stream_in_order(random_player):
    for game in range(10):
        record = play_game(random_player("w"), random_player("b"), SEED, game, trace=True)
        _, side, roll, dice = opening_from_stream(SEED, game)
        expected = [roll] + [dice.roll() for _ in record.history[1:]]
        assert [ply.roll for ply in record.history] == expected
        sides = [ply.side for ply in record.history]
        assert sides == [side if n % 2 == 0 else ({WHITE, BLACK} - {side}).pop()
                         for n in range(len(sides))]


def test_the_dice_do_not_depend_on_the_choices(scripted, random_player):
    first_play = play_game(scripted("w"), scripted("b"), SEED, 3, trace=True)
    random_play = play_game(random_player("w"), random_player("b"), SEED, 3, trace=True)
    shorter = min(first_play.plies, random_play.plies)
    assert [p.roll for p in first_play.history[:shorter]] == [p.roll for p in random_play.history[:shorter]]
    assert [p.play for p in first_play.history] != [p.play for p in random_play.history]


def test_each_seat_draws_from_its_own_stream(scripted):
    keys = {}

    def remember(name):
        def pick(plays, random):
            keys.setdefault(name, random.key)
            return plays[0]
        return pick

    play_game(scripted("w", pick=remember("w")), scripted("b", pick=remember("b")), SEED, 9)
    assert keys == {"w": stream_key(SEED, 9, 1), "b": stream_key(SEED, 9, 2)}


def test_the_random_bot_choice_is_one_draw_below_the_number_of_plays(random_player):
    record = play_game(random_player("w"), random_player("b"), SEED, 4, trace=True)
    streams = {WHITE: RandomStream(SEED, 4, 1), BLACK: RandomStream(SEED, 4, 2)}
    for ply in record.history:
        position = Position.from_position_id(ply.position_id)
        plays = legal_plays(position, ply.roll)
        if plays:
            chosen = plays[streams[ply.side].below(len(plays))]
            assert (chosen.notation, chosen.result.position_id) == (ply.play, ply.result_id)
        else:
            assert (ply.play, ply.result_id) == ("", ply.position_id)


# --- replay -----------------------------------------------------------------------------------


def test_the_same_seed_and_game_give_the_same_record(random_player):
    one = play_game(random_player("w"), random_player("b"), SEED, 17, trace=True)
    two = play_game(random_player("w"), random_player("b"), SEED, 17, trace=True)
    assert one == two


def test_a_game_is_the_same_whatever_else_runs(random_player):
    white, black = random_player("w"), random_player("b")
    for game in range(5):
        play_game(white, black, SEED, game)
    after_others = play_game(white, black, SEED, 5, trace=True)
    alone = play_game(random_player("w"), random_player("b"), SEED, 5, trace=True)
    assert after_others == alone


def test_other_seeds_and_games_give_other_games(random_player):
    base = play_game(random_player("w"), random_player("b"), SEED, 0, trace=True)
    assert play_game(random_player("w"), random_player("b"), SEED + 1, 0, trace=True).history != base.history
    assert play_game(random_player("w"), random_player("b"), SEED, 1, trace=True).history != base.history


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, "1", True])
def test_bad_seeds_are_rejected(scripted, seed):
    with pytest.raises(ValueError, match="seed"):
        play_game(scripted("w"), scripted("b"), seed, 0)


@pytest.mark.parametrize("game", [-1, 2**63, None])
def test_bad_game_numbers_are_rejected(scripted, game):
    with pytest.raises(ValueError, match="game number"):
        play_game(scripted("w"), scripted("b"), SEED, game)


# --- the course of a game ---------------------------------------------------------------------


def test_plies_count_the_rolls_and_the_record_adds_up(random_player):
    for game in range(8):
        record = play_game(random_player("w"), random_player("b"), SEED, game, trace=True)
        assert record.plies == len(record.history)
        assert all(ply.ply == n + 1 for n, ply in enumerate(record.history))
        last = Position.from_position_id(record.history[-1].result_id)
        assert last.checkers_off == 15 and record.history[-1].side == record.winner
        assert record.result == result_of(last)
        winner_off = record.white_off if record.winner == WHITE else record.black_off
        loser_off = record.black_off if record.winner == WHITE else record.white_off
        assert winner_off == 15 and loser_off == last.opponent_checkers_off
        assert (record.white_pips if record.winner == WHITE else record.black_pips) == 0
        assert record.points == {"single": 1, "gammon": 2, "backgammon": 3}[record.result]
        for before, after in zip(record.history, record.history[1:]):
            # the next side sees the last result turned round
            assert Position.from_position_id(after.position_id) == \
                Position.from_position_id(before.result_id).turned()


def test_a_dance_is_a_ply_with_no_play(random_player):
    game, record = find_game(lambda r: any(p.play == "" for p in r.history),
                             lambda: random_player("w"), lambda: random_player("b"))
    dance = next(p for p in record.history if p.play == "")
    assert legal_plays(Position.from_position_id(dance.position_id), dance.roll) == []
    assert dance.result_id == dance.position_id


def test_a_player_choosing_an_illegal_play_is_stopped(scripted):
    def cheat(plays, random):
        return plays[0].__class__(plays[0].moves, Position.from_points({}, {1: 1}))

    with pytest.raises(DecisionError, match="not legal"):
        play_game(scripted("cheat", pick=cheat), scripted("cheat", pick=cheat), SEED, 0)


# --- the cube in a game -----------------------------------------------------------------------


def test_no_double_is_offered_before_the_opening_roll(scripted):
    white, black = scripted("w", doubles=True), scripted("b", doubles=True)
    record = play_game(white, black, SEED, 0, trace=True)
    opener = record.history[0]
    assert opener.cube_action == "" and opener.roll is not None
    # the second ply is the first chance to double, and it goes to the other side
    assert record.history[1].side != opener.side
    assert record.first_double_ply == 2 and record.first_doubler == record.history[1].side


def test_a_drop_ends_the_game_before_the_roll_at_the_value_before_the_double(scripted):
    white = scripted("w", doubles=True, answers=Response.DROP)
    black = scripted("b", doubles=True, answers=Response.DROP)
    record = play_game(white, black, SEED, 0, trace=True)
    doubler = record.history[-1].side
    assert record.result == "drop" and record.winner == doubler
    assert record.points == 1 and record.cube_value == 1 and record.cube_owner == "centre"
    assert record.plies == 1  # only the opening roll was thrown
    assert record.history[-1].cube_action == "double/drop" and record.history[-1].roll is None


def test_a_drop_of_a_redouble_costs_2(scripted):
    # the opener takes the first double (the other side has the first chance to double), then
    # that side drops the redouble
    opener = opening_from_stream(SEED, 0)[1]
    white = scripted("w", doubles=True, answers=[Response.TAKE if opener == WHITE else Response.DROP])
    black = scripted("b", doubles=True, answers=[Response.TAKE if opener == BLACK else Response.DROP])
    record = play_game(white, black, SEED, 0, trace=True)
    actions = [(p.side, p.cube_action) for p in record.history if p.cube_action]
    first, second = actions
    assert first[1] == "double/take" and second[1] == "double/drop" and first[0] != second[0]
    assert record.result == "drop" and record.winner == second[0]
    assert record.points == 2 and record.cube_value == 2
    assert record.doubles == 1


def test_only_the_owner_is_asked_to_redouble(scripted):
    white = scripted("w", doubles=True, answers=Response.TAKE)
    black = scripted("b", doubles=True, answers=Response.TAKE)
    record = play_game(white, black, SEED, 1, Rules(max_cube=16), trace=True)
    takes = [p.side for p in record.history if p.cube_action == "double/take"]
    assert len(takes) == 4  # 1 -> 2 -> 4 -> 8 -> 16, then the maximum stops it
    assert all(a != b for a, b in zip(takes, takes[1:]))  # the doubler alternates
    assert record.cube_value == 16 and record.doubles == 4
    asked = white.offers_asked + black.offers_asked
    assert len(asked) == 4  # nobody is asked once the cube is dead at the maximum
    assert [view.value for view in sorted(asked, key=lambda v: v.value)] == [1, 2, 4, 8]
    assert [v.centred for v in asked].count(True) == 1
    assert record.points == 16 * {"single": 1, "gammon": 2, "backgammon": 3}[record.result]


def test_the_side_that_doubled_is_not_asked_again_while_the_taker_holds_the_cube(scripted):
    # white would double every turn; black takes and never redoubles, so white's one double
    # leaves the cube on black's side for the rest of the game
    white = scripted("w", doubles=True)
    black = scripted("b", doubles=False, answers=Response.TAKE)
    record = play_game(white, black, SEED, 2, trace=True)
    assert len(white.offers_asked) == 1 and white.offers_asked[0].centred
    assert record.doubles == 1 and record.cube_owner == BLACK and record.cube_value == 2
    assert black.offers_asked and not any(view.centred for view in black.offers_asked[1:])
    assert all(view.value == 2 for view in black.offers_asked if not view.centred)


def test_nobody_is_asked_with_the_cube_off(scripted):
    white, black = scripted("w", doubles=True), scripted("b", doubles=True)
    record = play_game(white, black, SEED, 0, Rules(cube=False))
    assert white.offers_asked == [] and black.offers_asked == []
    assert record.cube_value == 1 and record.doubles == 0


def test_a_beaver_quadruples_the_cube_for_the_taker(scripted):
    white = scripted("w", doubles=lambda position, view, asked: view.centred, answers=Response.BEAVER)
    black = scripted("b", doubles=lambda position, view, asked: view.centred, answers=Response.BEAVER)
    record = play_game(white, black, SEED, 0, Rules(beaver=True), trace=True)
    [action] = [p for p in record.history if p.cube_action]
    assert action.cube_action == "double/beaver"
    assert record.cube_value == 4 and record.cube_owner != action.side
    assert record.beavers == 1 and record.doubles == 2


def test_a_beaver_where_beavers_are_not_allowed_is_stopped(scripted):
    white = scripted("w", doubles=True, answers=Response.BEAVER)
    black = scripted("b", doubles=True, answers=Response.BEAVER)
    with pytest.raises(DecisionError, match="beaver"):
        play_game(white, black, SEED, 0)


def test_an_answer_that_is_no_response_is_stopped(scripted):
    white = scripted("w", doubles=True, answers="perhaps")
    black = scripted("b", doubles=True, answers="perhaps")
    with pytest.raises(DecisionError, match="perhaps"):
        play_game(white, black, SEED, 0)


def test_the_cube_view_tells_a_money_game(scripted):
    white = scripted("w", doubles=False)
    black = scripted("b", doubles=False)
    play_game(white, black, SEED, 0, Rules(jacoby=True, max_cube=32))
    view = (white.offers_asked + black.offers_asked)[0]
    assert view.value == 1 and view.centred and view.max_cube == 32 and view.jacoby
    assert view.match_to == 0 and view.away == (0, 0) and not view.beaver_allowed


# --- options that change the score --------------------------------------------------------------


def _gammon_game(random_player, result="gammon"):
    return find_game(lambda r: r.result == result, lambda: random_player("w"),
                     lambda: random_player("b"))


def test_jacoby_scores_an_undoubled_gammon_as_a_single(random_player):
    game, plain = _gammon_game(random_player)
    assert plain.points == 2
    jacoby = play_game(random_player("w"), random_player("b"), SEED, game, Rules(jacoby=True))
    assert jacoby.result == "gammon" and jacoby.points == 1


def test_jacoby_counts_the_gammon_once_a_double_was_accepted(random_player):
    game, plain = _gammon_game(random_player)

    def double_once(position, view, asked):
        return view.centred and asked == 1

    white = random_player("w", doubles=double_once, answers=Response.TAKE)
    black = random_player("b", doubles=double_once, answers=Response.TAKE)
    doubled = play_game(white, black, SEED, game, Rules(jacoby=True), trace=True)
    assert doubled.history[-1].result_id == plain.history[-1].result_id  # the same game
    assert doubled.doubles == 1 and doubled.result == "gammon" and doubled.points == 4


def test_backgammon_counts_as_gammon_when_switched_on(random_player):
    game, plain = _gammon_game(random_player, "backgammon")
    assert plain.points == 3
    option = play_game(random_player("w"), random_player("b"), SEED, game,
                       Rules(backgammon_as_gammon=True))
    assert option.result == "backgammon" and option.points == 2


def _game_with_ties(ties: int) -> int:
    return next(g for g in range(5000) if opening_from_stream(SEED, g)[0] >= ties)


def test_automatic_doubles_double_the_centred_cube_on_each_tie(random_player):
    game = _game_with_ties(2)
    ties = opening_from_stream(SEED, game)[0]
    record = play_game(random_player("w"), random_player("b"), SEED, game, Rules(automatic_doubles=9))
    assert record.automatic_doubles == ties and record.cube_value == 2**ties
    assert record.cube_owner == "centre" and record.doubles == 0


def test_automatic_doubles_keep_to_the_limit_and_the_maximum(random_player):
    game = _game_with_ties(2)
    limited = play_game(random_player("w"), random_player("b"), SEED, game, Rules(automatic_doubles=1))
    assert limited.automatic_doubles == 1 and limited.cube_value == 2
    capped = play_game(random_player("w"), random_player("b"), SEED, game,
                       Rules(automatic_doubles=5, max_cube=2))
    assert capped.automatic_doubles == 1 and capped.cube_value == 2
    plain = play_game(random_player("w"), random_player("b"), SEED, game)
    assert limited.history == plain.history  # the cube never changes the dice
    points = {"single": 1, "gammon": 2, "backgammon": 3}[plain.result]
    assert limited.points == 2 * points


def test_an_automatic_double_leaves_the_cube_in_the_centre_for_either_side(scripted):
    game = _game_with_ties(1)
    white, black = scripted("w", doubles=False), scripted("b", doubles=False)
    play_game(white, black, SEED, game, Rules(automatic_doubles=1))
    views = white.offers_asked[:1] + black.offers_asked[:1]
    assert len(views) == 2 and all(v.centred and v.value == 2 for v in views)


def test_the_automatic_double_does_not_turn_the_cube_for_jacoby(random_player):
    for game in range(200):
        if opening_from_stream(SEED, game)[0] >= 1:
            record = play_game(random_player("w"), random_player("b"), SEED, game,
                               Rules(automatic_doubles=1, jacoby=True))
            if record.result == "gammon":
                assert record.points == 2  # a single, times the cube of 2
                return
    raise AssertionError("no gammon after a tied opening among the games searched")


# --- the dice stream definition both engines share ---------------------------------------------


def test_draws_are_splitmix64():
    # the first three outputs of SplitMix64 started from state 0, as published with the
    # reference implementation (Vigna, splitmix64.c)
    stream = RandomStream(0, 0, 0)
    stream.key = 0
    assert [stream.next64() for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_the_stream_key_mixes_seed_game_and_stream_number():
    from bgsim.dice import mix64

    for seed, game, number in [(0, 0, 0), (2026, 5, 1), (2**63 - 1, 12345, 8)]:
        assert stream_key(seed, game, number) == mix64(mix64(mix64(seed) ^ game) ^ number)
    assert len({stream_key(1, 0, 0), stream_key(0, 1, 0), stream_key(0, 0, 1)}) == 3


def test_a_die_throws_away_the_draws_that_would_favour_low_numbers():
    class Scripted(RandomStream):
        def __init__(self, draws):
            self.draws_left = list(draws)

        def next64(self):
            return self.draws_left.pop(0)

    top = (1 << 64) - 1  # 2**64 is 4 more than a multiple of 6: the top 4 values are refused
    assert Scripted([top, top - 3, 13]).die() == 13 % 6 + 1
    assert Scripted([top - 4]).die() == (top - 4) % 6 + 1
