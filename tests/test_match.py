"""Match play: games to N points, the Crawford game, post-Crawford games, and the dice of a match."""

from __future__ import annotations

import pytest

from bgsim.cube import Response, Rules, RulesError
from bgsim.dice import STREAMS_PER_GAME, RandomStream
from bgsim.game import BLACK, WHITE, MatchContext, play_game
from bgsim.match import check_match_length, play_match

SEED = 77


def double_and_drop(scripted, name):
    """Doubles whenever allowed and drops every double: a game with the cube lasts two plies."""
    return scripted(name, doubles=True, answers=Response.DROP)


def expected_contexts(match_to: int, points: list[tuple[str, int]]):
    """The Crawford flags the rulebook gives for games won as listed: (crawford, post_crawford)
    for each game, from the scores alone."""
    scores = {WHITE: 0, BLACK: 0}
    flags = []
    crawford_next = crawford_seen = False
    for winner, won in points:
        flags.append((crawford_next, crawford_seen and not crawford_next))
        crawford_next = False
        before = scores[winner]
        scores[winner] += won
        if not crawford_seen and before < match_to - 1 == scores[winner]:
            crawford_next = crawford_seen = True
    return flags, scores


def check_match(record, match_to: int) -> None:
    points = [(game.winner, game.points) for game in record.games]
    flags, scores = expected_contexts(match_to, points)
    assert [(g.match.crawford, g.match.post_crawford) for g in record.games] == flags
    assert (record.white_score, record.black_score) == (scores[WHITE], scores[BLACK])
    assert max(scores.values()) >= match_to > min(scores.values())
    assert record.winner == max(scores, key=scores.get)
    running = {WHITE: 0, BLACK: 0}
    for number, game in enumerate(record.games):
        assert game.match.game_in_match == number
        assert (game.match.white_score, game.match.black_score) == (running[WHITE], running[BLACK])
        assert game.match.match_to == match_to
        running[game.winner] += game.points
        if game.match.crawford:
            assert game.doubles == 0 and game.result != "drop"
            assert all(ply.cube_action == "" for ply in game.history)


def test_double_and_drop_matches_have_a_crawford_game_and_post_crawford_games(scripted):
    seen_post_crawford = 0
    for number in range(12):
        white, black = double_and_drop(scripted, "w"), double_and_drop(scripted, "b")
        record = play_match(white, black, SEED, number, 3, trace=True)
        check_match(record, 3)
        crawford = [g for g in record.games if g.match.crawford]
        assert len(crawford) == 1  # someone always reaches 2 of 3 one point at a time
        for game in record.games:
            if not game.match.crawford:
                # the cube is back: the first chance to double is taken and dropped
                assert game.result == "drop" and game.points == 1 and game.plies == 1
        seen_post_crawford += sum(g.match.post_crawford for g in record.games)
    assert seen_post_crawford > 0


def test_the_crawford_game_asks_nobody_to_double(scripted):
    for number in range(12):
        asked = []  # every question to double, in the order asked, from either side

        def doubles(position, view, count):
            asked.append(view)
            return True

        white = scripted("w", doubles=doubles, answers=Response.DROP)
        black = scripted("b", doubles=doubles, answers=Response.DROP)
        record = play_match(white, black, SEED, number, 3)
        assert sum(game.match.crawford for game in record.games) == 1
        # one question per game with the cube (it is dropped at once), none in the Crawford game
        games_with_cube = [g for g in record.games if not g.match.crawford]
        assert len(asked) == len(games_with_cube)
        assert [view.post_crawford for view in asked] == [g.match.post_crawford for g in games_with_cube]


def test_the_cube_view_gives_the_score_away(scripted):
    white, black = double_and_drop(scripted, "w"), double_and_drop(scripted, "b")
    record = play_match(white, black, SEED, 0, 5, trace=True)
    by_side = {WHITE: iter(white.offers_asked), BLACK: iter(black.offers_asked)}
    for game in record.games:
        if game.match.crawford:
            continue
        doubler = game.winner  # the doubler wins every dropped game
        view = next(by_side[doubler])
        mine = game.match.white_score if doubler == WHITE else game.match.black_score
        theirs = game.match.black_score if doubler == WHITE else game.match.white_score
        assert view.away == (5 - mine, 5 - theirs)
        assert view.match_to == 5 and not view.jacoby and not view.beaver_allowed


def test_random_matches_follow_the_crawford_rule(random_player):
    for number, match_to in enumerate([1, 2, 3, 5, 5, 7]):
        record = play_match(random_player("w", doubles=lambda p, v, n: n % 7 == 3),
                            random_player("b", doubles=lambda p, v, n: n % 5 == 2),
                            SEED, number, match_to, trace=True)
        check_match(record, match_to)
        if match_to == 1:
            assert len(record.games) == 1 and not record.games[0].match.crawford


def test_gammons_count_in_a_match(random_player):
    for number in range(30):
        record = play_match(random_player("w"), random_player("b"), SEED, number, 7)
        gammons = [g for g in record.games if g.result in ("gammon", "backgammon")]
        if gammons:
            assert all(g.points == {"gammon": 2, "backgammon": 3}[g.result] * g.cube_value
                       for g in gammons)
            return
    raise AssertionError("no gammon in 30 random matches")


def test_game_k_of_a_match_uses_streams_4k_of_the_match_number(random_player):
    record = play_match(random_player("w"), random_player("b"), SEED, 4, 5, trace=True)
    assert len(record.games) > 1
    for k, game in enumerate(record.games):
        assert game.seed == SEED and game.game == 4
        dice = RandomStream(SEED, 4, STREAMS_PER_GAME * k)
        while True:
            white, black = dice.die(), dice.die()
            if white != black:
                break
        assert game.history[0].roll == (max(white, black), min(white, black))
        replay = play_game(random_player("w"), random_player("b"), SEED, 4, match=game.match, trace=True)
        assert replay == game


def test_a_match_is_the_same_when_replayed(random_player):
    one = play_match(random_player("w"), random_player("b"), SEED, 8, 5, trace=True)
    two = play_match(random_player("w"), random_player("b"), SEED, 8, 5, trace=True)
    assert one == two


@pytest.mark.parametrize("options", [{"jacoby": True}, {"beaver": True}, {"automatic_doubles": 1}])
def test_money_conventions_are_refused_in_a_match(scripted, options):
    with pytest.raises(RulesError, match="money-game convention"):
        play_match(scripted("w"), scripted("b"), SEED, 0, 3, Rules(**options))
    context = MatchContext(3, 0, 0, False, False, 0)
    with pytest.raises(RulesError, match="money-game convention"):
        play_game(scripted("w"), scripted("b"), SEED, 0, Rules(**options), match=context)


def test_backgammon_as_gammon_and_a_smaller_cube_are_fine_in_a_match(scripted):
    record = play_match(scripted("w"), scripted("b"), SEED, 0, 1, Rules(backgammon_as_gammon=True, max_cube=2))
    assert record.games


@pytest.mark.parametrize("match_to", [0, -3, 1000, 3.0, "5", True, None])
def test_bad_match_lengths_are_rejected(match_to):
    with pytest.raises(ValueError, match="a match is played to 1..999 points"):
        check_match_length(match_to)


def test_expected_contexts_follow_the_rulebook():
    # the helper above is itself a reading of RULES.md; pin it on hand-worked score lines.
    # To 5: white 2, then black reaches 4 exactly -> the next game is Crawford, later ones post
    flags, scores = expected_contexts(5, [(WHITE, 2), (BLACK, 4), (WHITE, 1), (WHITE, 1), (BLACK, 1)])
    assert flags == [(False, False), (False, False), (True, False), (False, True), (False, True)]
    assert scores == {WHITE: 4, BLACK: 5}
    # jumping from 2 past 4 to 6 ends the match: no Crawford game
    flags, _ = expected_contexts(5, [(WHITE, 2), (WHITE, 4)])
    assert flags == [(False, False), (False, False)]
    # reaching 4 a second time (the other side) brings no second Crawford game
    flags, _ = expected_contexts(5, [(WHITE, 4), (BLACK, 1), (BLACK, 3), (WHITE, 1)])
    assert flags == [(False, False), (True, False), (False, True), (False, True)]
