"""The bots: a contract every bot keeps, the cube rules at their exact thresholds, spec parsing."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

import bots
from bgsim.board import Position
from bgsim.cube import CubeView, Response, Rules
from bgsim.dice import RandomStream
from bgsim.fast import seats
from bgsim.game import MatchContext, play_game
from bgsim.rules import legal_plays
from bgsim.series import play_games
from bots import SpecError, make_player
from bots.cube import keith_count, thorp_count
from conftest import fast_cube_answers

# Every registered bot, so a new one is held to the contract without being named here
# (tests/test_fast_registry.py holds each fast half to its layout and kernel).
CHECKER_SPECS = list(bots.checker_bots())
CUBE_SPECS = list(bots.cube_bots()) + ["pipdiff(double=0,redouble=0,take=200)", "pipdiff(race_only=true)"]


def view(centred=True, value=1, max_cube=64, beaver=False, jacoby=False) -> CubeView:
    return CubeView(value=value, centred=centred, max_cube=max_cube, beaver_allowed=beaver, jacoby=jacoby)


class Checking:
    """Wraps a player and checks every answer it gives against what it was offered."""

    def __init__(self, player, seat, log):
        self.inner, self.seat, self.log = player, seat, log
        self.name = player.name

    def choose_play(self, position, roll, plays, random):
        chosen = self.inner.choose_play(position, roll, plays, random)
        assert any(chosen is play for play in plays), f"{self.name} chose a play it was not offered"
        assert chosen.result in {play.result for play in legal_plays(position, roll)}
        return chosen

    def offer_double(self, position, cube):
        self.log.append(("offer", self.seat, cube))
        return self.inner.offer_double(position, cube)

    def respond_to_double(self, position, cube):
        answer = self.inner.respond_to_double(position, cube)
        self.log.append(("answer", self.seat, Response(answer)))
        return answer


def replay_cube(log, rules):
    """Follow the cube through the logged questions; fail on any question that was not allowed."""
    value, owner = 1, "centre"
    for kind, seat, detail in log:
        if kind == "offer":
            assert owner in ("centre", seat), f"{seat} asked to double an opponent's cube"
            assert value * 2 <= rules.max_cube, f"{seat} asked to double past the maximum"
            assert detail.value == value and detail.centred == (owner == "centre")
        elif detail is Response.TAKE:
            value, owner = value * 2, seat
        elif detail is Response.BEAVER:
            value, owner = value * 4, seat


@pytest.mark.parametrize("spec", CHECKER_SPECS)
class TestCheckerContract:
    """Every checker bot: legal plays only, the same game for the same seed."""

    def games(self, spec):
        return 2 if spec.startswith("gnubg") else 4

    def test_legal_choices_only(self, spec):
        for game in range(self.games(spec)):
            white = Checking(make_player(spec), "white", [])
            black = Checking(make_player("random"), "black", [])
            record = play_game(white, black, seed=11, game=game)
            assert record.winner in ("white", "black")

    def test_reproducible_for_the_same_seed(self, spec):
        first = play_games(make_player(spec), make_player("pubeval"), 5, self.games(spec), engine="reference")
        again = play_games(make_player(spec), make_player("pubeval"), 5, self.games(spec), engine="reference")
        assert first.equals(again)


@pytest.mark.parametrize("cube", CUBE_SPECS)
class TestCubeContract:
    """Every cube bot: asked only when a double is allowed, answers deterministic."""

    def test_asked_only_when_allowed(self, cube):
        rules = Rules(max_cube=4)
        games = 2 if cube.startswith("gnubg") else 6
        for game in range(games):
            log = []
            white = Checking(make_player(f"racer+{cube}"), "white", log)
            black = Checking(make_player(f"pubeval+{cube}"), "black", log)
            play_game(white, black, seed=21, game=game, rules=rules)
            replay_cube(log, rules)

    def test_never_asked_in_the_crawford_game(self, cube):
        log = []
        crawford = MatchContext(match_to=3, white_score=2, black_score=0, crawford=True,
                                post_crawford=False, game_in_match=1)
        white = Checking(make_player(f"racer+{cube}"), "white", log)
        black = Checking(make_player(f"racer+{cube}"), "black", log)
        play_game(white, black, seed=3, game=0, match=crawford)
        assert log == []

    def test_deterministic(self, cube):
        """The game loop hands a cube bot no random stream: its answers are a function of the
        position and the cube alone, whenever and in whatever order it is asked, and where the
        bot has a fast half they are the fast kernel's answers (the other engine's)."""
        questions = [(position, cube_view) for position in CUBE_QUESTIONS for cube_view in CUBE_VIEWS]
        # each question put to a bot that was asked nothing before
        fresh = [_answers(make_player(f"random+{cube}"), *question) for question in questions]
        player = make_player(f"random+{cube}")
        if player.cube.fast_name:
            packed = seats(player, player)
            assert [fast_cube_answers(packed, *question) for question in questions] == fresh
        # one bot asked everything twice over in a shuffled order, the global random states stirred
        order = list(range(len(questions))) * 2
        random.Random(11).shuffle(order)
        for turn, index in enumerate(order):
            random.seed(turn)
            np.random.seed(turn)
            assert _answers(player, *questions[index]) == fresh[index], (cube, index)


# positions and cubes a cube bot is asked about: races of 96 pips against 104, 105 and 108
# (either side of the 8-9-12 thresholds) and 89, the opening, contact far ahead; a centred and
# an owned cube, money and match
RACER = {6: 4, 5: 3, 8: 3, 7: 2, 4: 2, 11: 1}
CUBE_QUESTIONS = [
    Position.from_points(RACER, {19: 3, 18: 3, 17: 3, 16: 3, 20: 2, 21: 1}),
    Position.from_points(RACER, {19: 3, 18: 3, 17: 3, 16: 3, 20: 3}),
    Position.from_points(RACER, {19: 3, 18: 3, 17: 4, 16: 3, 20: 2}),
    Position.from_points({6: 5, 5: 5, 4: 5}, {19: 5, 20: 5, 21: 4, 7: 1}),
    Position.start(),
    Position.from_points({13: 2, 8: 3, 6: 5, 5: 3, 4: 2}, {1: 2, 12: 5, 17: 3, 19: 5}),
]
CUBE_VIEWS = [
    view(),
    view(centred=False, value=2),
    CubeView(value=1, centred=True, max_cube=64, beaver_allowed=False, jacoby=False, match_to=5, away=(2, 4)),
    CubeView(value=2, centred=False, max_cube=64, beaver_allowed=False, jacoby=False, match_to=7, away=(4, 2)),
]


def _answers(player, position, cube_view):
    return player.offer_double(position, cube_view), Response(player.respond_to_double(position, cube_view))


@pytest.mark.bot_rule("cube", "none")
def test_bare_checker_never_doubles_and_always_takes():
    player = make_player("heuristic")
    assert player.name == "heuristic"
    assert player.cube.fast_name == "none"
    position = race(100, 150)
    assert player.offer_double(position, view()) is False
    assert player.respond_to_double(race(10, 150), view()) is Response.TAKE


@pytest.mark.bot_rule("checker", "random")
def test_random_draws_once_from_the_seat_stream():
    position = Position.start()
    plays = legal_plays(position, (3, 1))
    stream, twin = RandomStream(9, 4, 1), RandomStream(9, 4, 1)
    chosen = make_player("random").choose_play(position, (3, 1), plays, stream)
    assert chosen is plays[twin.below(len(plays))]
    assert stream.draws == twin.draws


def test_evaluators_take_the_first_of_equal_scores():
    # A race with two checkers on the 6 and 4-2 to play: several plays leave equal pips.
    position = race_from({6: 2}, {13: 1})
    plays = legal_plays(position, (1, 1))
    player = make_player("racer")
    scores = [player.checker.score(play.result.board, position) for play in plays]
    best = max(scores)
    assert player.choose_play(position, (1, 1), plays, None) is plays[scores.index(best)]


# --- pipdiff at its thresholds ------------------------------------------------------------


def race_from(own, opponent_theirs) -> Position:
    """A race; the opponent's checkers given in its own numbering."""
    return Position.from_points(own, {25 - point: count for point, count in opponent_theirs.items()})


def race(own_pips: int, opponent_pips: int) -> Position:
    """A contact-free position with exactly these pip counts (own on 1..12, opponent beyond)."""
    def spread(pips):
        points = {12: pips // 12} if pips >= 12 else {}
        if pips % 12:
            points[pips % 12] = points.get(pips % 12, 0) + 1
        return points

    position = race_from(spread(own_pips), spread(opponent_pips))
    assert (position.pip_count, position.opponent_pip_count) == (own_pips, opponent_pips)
    assert position.is_race
    return position


@pytest.mark.bot_rule("cube", "pipdiff")
@pytest.mark.parametrize("lead, doubles", [(7, False), (8, True), (9, True)])
def test_pipdiff_first_double_at_eight_percent(lead, doubles):
    assert make_player("racer+pipdiff").offer_double(race(100, 100 + lead), view()) is doubles


@pytest.mark.parametrize("lead, doubles", [(8, False), (9, True), (10, True)])
def test_pipdiff_redouble_at_nine_percent(lead, doubles):
    assert make_player("racer+pipdiff").offer_double(race(100, 100 + lead), view(centred=False, value=2)) is doubles


@pytest.mark.parametrize("deficit, answer", [(11, Response.TAKE), (12, Response.TAKE), (13, Response.DROP)])
def test_pipdiff_takes_up_to_twelve_percent_of_the_doublers_count(deficit, answer):
    # the position is seen from the doubler, who has 100 pips
    assert make_player("racer+pipdiff").respond_to_double(race(100, 100 + deficit), view()) is answer


@pytest.mark.parametrize("lead, doubles", [(11, False), (12, True), (13, True)])
def test_pipdiff_percent_of_a_longer_race(lead, doubles):
    assert make_player("racer+pipdiff").offer_double(race(150, 150 + lead), view()) is doubles


@pytest.mark.parametrize("lead, doubles", [(9, False), (10, True), (11, True)])
def test_pipdiff_absolute_double(lead, doubles):
    player = make_player("racer+pipdiff(double=10,redouble=20,take=25)")
    assert player.offer_double(race(130, 130 + lead), view()) is doubles
    assert player.offer_double(race(130, 130 + lead + 10), view(centred=False, value=2)) is doubles


@pytest.mark.parametrize("deficit, answer", [(14, Response.TAKE), (15, Response.TAKE), (16, Response.DROP)])
def test_pipdiff_absolute_take(deficit, answer):
    player = make_player("racer+pipdiff(double=10,take=15)")
    assert player.respond_to_double(race(60, 60 + deficit), view()) is answer


def test_pipdiff_never_doubles_when_behind():
    assert make_player("racer+pipdiff(double=0)").offer_double(race(100, 99), view()) is False


def test_pipdiff_race_only():
    contact = Position.from_points({24: 2, 6: 13}, {1: 2, 13: 13})  # far ahead, but in contact
    assert not contact.is_race
    assert make_player("racer+pipdiff").offer_double(contact, view()) is True
    race_only = make_player("racer+pipdiff(race_only=true)")
    assert race_only.offer_double(contact, view()) is False
    assert race_only.respond_to_double(contact, view()) is Response.TAKE  # takes in contact
    assert race_only.offer_double(race(100, 108), view()) is True
    assert race_only.respond_to_double(race(100, 113), view()) is Response.DROP


@pytest.mark.parametrize("deficit, answer", [(-3, Response.BEAVER), (-2, Response.BEAVER), (-1, Response.TAKE)])
def test_pipdiff_beavers_when_the_doubler_trails_by_two_percent(deficit, answer):
    # -2% of the doubler's 100 pips: it trails by 2 pips or more
    player = make_player("racer+pipdiff(beaver=-2%)")
    assert player.respond_to_double(race(100, 100 + deficit), view(beaver=True)) is answer


@pytest.mark.parametrize("deficit, answer", [(4, Response.BEAVER), (5, Response.BEAVER), (6, Response.TAKE),
                                             (15, Response.TAKE), (16, Response.DROP)])
def test_pipdiff_absolute_beaver(deficit, answer):
    player = make_player("racer+pipdiff(double=10,take=15,beaver=5)")
    assert player.respond_to_double(race(60, 60 + deficit), view(beaver=True)) is answer


@pytest.mark.parametrize("lead, answer", [(3, Response.BEAVER), (4, Response.BEAVER), (5, Response.TAKE)])
def test_pipdiff_percent_beaver_of_a_longer_race(lead, answer):
    # 3% of 150 pips is 4.5: a fraction of a pip, compared exactly (100*lead <= 3*150)
    player = make_player("racer+pipdiff(beaver=3%)")
    assert player.respond_to_double(race(150, 150 + lead), view(beaver=True)) is answer


def test_pipdiff_beavers_only_where_allowed_and_in_races_when_race_only():
    close = race(100, 100)
    assert make_player("racer+pipdiff(beaver=0%)").respond_to_double(close, view(beaver=True)) is Response.BEAVER
    assert make_player("racer+pipdiff(beaver=0%)").respond_to_double(close, view(beaver=False)) is Response.TAKE
    assert make_player("racer+pipdiff").respond_to_double(close, view(beaver=True)) is Response.TAKE  # off by default
    contact = Position.from_points({24: 2, 6: 13}, {1: 2, 13: 13})
    race_only = make_player("racer+pipdiff(race_only=true,beaver=11%)")
    assert race_only.respond_to_double(contact, view(beaver=True)) is Response.TAKE
    assert race_only.respond_to_double(close, view(beaver=True)) is Response.BEAVER


def test_pipdiff_beaver_spec_and_fast_params():
    player = make_player("racer+pipdiff(beaver=-2%)")
    assert player.name == "racer+pipdiff(beaver=-2%)"
    def beaver(spec):
        params = make_player(spec).cube.fast_params()
        return params["beaver"], params["beaver_percent"], params["beaver_on"]

    assert beaver("racer+pipdiff(beaver=-2%)") == (-2.0, 1.0, 1.0)
    assert make_player("racer+pipdiff(beaver=off)").name == "racer+pipdiff"
    assert beaver("racer+pipdiff") == (0.0, 0.0, 0.0)
    assert beaver("racer+pipdiff(take=9,double=9,beaver=0)") == (0.0, 0.0, 1.0)


# --- Keith and Thorp on hand-computed races ---------------------------------------------

ROLLER = {1: 3, 2: 2, 3: 5, 6: 2}  # 34 pips; Keith 34+4+1+2+2 = 43; Thorp 34+24+3-4 = 57


def test_keith_and_thorp_counts_by_hand():
    position = race_from(ROLLER, {6: 3, 5: 3, 4: 3})
    assert keith_count(position.board) == 43
    assert keith_count(position.turned().board) == 45
    assert thorp_count(position.board) == 57
    assert thorp_count(position.turned().board) == 45 + 18 - 3


@pytest.mark.bot_rule("cube", "keith")
@pytest.mark.parametrize("opponent, double, redouble, take", [
    ({6: 3, 5: 2, 4: 3}, False, False, Response.TAKE),             # O=40: 43+6-40 = 9
    ({6: 3, 5: 3, 4: 3}, True, False, Response.TAKE),              # O=45: 43+43//7-45 = 4
    ({6: 3, 5: 3, 4: 3, 1: 1}, True, True, Response.TAKE),         # O=46: 3
    ({6: 3, 5: 3, 4: 3, 3: 1}, True, True, Response.DROP),         # O=48: 1 (<2 drops)
])
def test_keith_rule(opponent, double, redouble, take):
    position = race_from(ROLLER, opponent)
    player = make_player("racer+keith")
    assert player.offer_double(position, view()) is double
    assert player.offer_double(position, view(centred=False, value=2)) is redouble
    assert player.respond_to_double(position, view()) is take


@pytest.mark.bot_rule("cube", "thorp")
@pytest.mark.parametrize("own, opponent, double, redouble, take", [
    (ROLLER, {6: 3, 5: 3, 4: 3}, False, False, Response.TAKE),       # 11*57-10*60 = 27 > 20
    (ROLLER, {6: 3, 5: 3, 4: 3, 1: 1}, True, True, Response.TAKE),   # T=63: -3
    (ROLLER, {6: 3, 5: 3, 4: 3, 3: 2}, True, True, Response.DROP),   # T=69: -63 < -20
    ({1: 2, 2: 2}, {1: 2, 2: 1}, False, False, Response.TAKE),       # L=14 (no 10%), T=10: +4
    ({1: 2, 2: 2}, {1: 2, 2: 2}, True, True, Response.TAKE),         # L=T=14
    ({1: 2, 2: 2}, {4: 1, 1: 2}, True, False, Response.TAKE),        # T=12 -> +2: double, not redouble
    ({1: 2, 2: 2}, {1: 2, 2: 4}, True, True, Response.DROP),         # T=22 -> -8 < -2
])
def test_thorp_rule(own, opponent, double, redouble, take):
    position = race_from(own, opponent)
    player = make_player("racer+thorp")
    assert player.offer_double(position, view()) is double
    assert player.offer_double(position, view(centred=False, value=2)) is redouble
    assert player.respond_to_double(position, view()) is take


@pytest.mark.parametrize("cube", ["keith", "thorp"])
def test_race_counts_stay_out_of_contact(cube):
    contact = Position.from_points({24: 2, 6: 13}, {1: 2, 20: 13})
    player = make_player(f"racer+{cube}")
    assert player.offer_double(contact, view()) is False
    assert player.respond_to_double(contact, view()) is Response.TAKE


@pytest.mark.bot_rule("cube", "never-take")
@pytest.mark.bot_rule("cube", "always-take")
def test_never_take_and_always_take():
    position = race(100, 101)
    assert make_player("racer+never-take").respond_to_double(position, view()) is Response.DROP
    assert make_player("racer+always-take").respond_to_double(race(10, 150), view()) is Response.TAKE
    for cube in ("never-take", "always-take"):
        assert make_player(f"racer+{cube}").offer_double(race(10, 150), view()) is False


@pytest.mark.bot_rule("cube", "gnubg")
def test_gnubg_cube_judges_clear_cases():
    player = make_player("racer+gnubg")
    own = {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}
    double_take = race_from(own, {6: 4, 5: 3, 4: 3, 3: 3, 2: 2})  # 57 v 64: about 77% to win
    assert player.offer_double(double_take, view()) is True
    assert player.respond_to_double(double_take, view()) is Response.TAKE
    double_pass = race_from(own, {6: 4, 5: 4, 4: 3, 3: 2, 2: 2})  # 57 v 66: about 80%
    assert player.offer_double(double_pass, view()) is True
    assert player.respond_to_double(double_pass, view()) is Response.DROP
    assert player.offer_double(race_from(own, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}), view()) is False
    beaver = make_player("racer+gnubg").respond_to_double(race(90, 70), view(beaver=True))
    assert beaver is Response.BEAVER


def test_gnubg_cube_takes_at_the_score_what_it_passes_in_money_or_back():
    """57 v 64 in a race: a money take, a pass at 3-away 3-away (GNU Backgammon's match cube)."""
    player = make_player("racer+gnubg")
    own = {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}
    position = race_from(own, {6: 4, 5: 3, 4: 3, 3: 3, 2: 2})
    level = CubeView(1, True, 64, False, False, match_to=7, away=(3, 3))
    assert player.respond_to_double(position, view()) is Response.TAKE
    assert player.respond_to_double(position, level) is Response.DROP
    assert player.offer_double(position, level) is True


def test_a_gnubg_match_decision_leaves_this_process_in_money_play(tmp_path):
    """gnubg_nn keeps the last match score it was given and nothing sets money back, so its
    match decisions are asked in a helper process: 1-ply money chances here stay as they were."""
    import gnubg_nn
    from experiments.studies.training.train import Settings, Trainer, gnubg_boards

    # self-play positions with exploration: among them, some whose 1-ply replies follow gammons
    boards = Trainer(Settings(positions=300, hidden=8), tmp_path, log=lambda _: None).positions(0, None)
    opponent, on_roll = gnubg_boards(boards)

    def chances():
        return [gnubg_nn.probabilities([a, b], 1) for a, b in zip(opponent, on_roll)]

    before = chances()
    player = make_player("racer+gnubg")
    for away in ((1, 5), (2, 7), (5, 1)):
        player.offer_double(Position.start(), CubeView(1, True, 64, False, False, match_to=7, away=away))
    assert chances() == before


# --- specs --------------------------------------------------------------------------------


@pytest.mark.parametrize("spec, name", [
    ("heuristic", "heuristic"),
    ("heuristic+pipdiff(double=8%,redouble=9%,take=12%)", "heuristic+pipdiff"),
    ("racer+pipdiff(take=15%, double=10)", "racer+pipdiff(double=10,take=15%)"),
    ("pubeval+pipdiff(race_only=yes)", "pubeval+pipdiff(race_only=true)"),
    (" random + never-take ", "random+never-take"),
    ("gnubg(plies=1)+gnubg", "gnubg(plies=1)+gnubg"),
    ("heuristic(race=0.03)+keith(double=5)", "heuristic(race=0.03)+keith(double=5)"),
    ("random+none", "random"),
])
def test_canonical_names(spec, name):
    player = make_player(spec)
    assert player.name == name
    assert make_player(player.name).name == name


def test_parsed_parameters_reach_the_bots():
    from bgsim import layouts
    from bgsim.fast import fast_half

    player = make_player("heuristic(hit=0.5)+pipdiff(double=10,take=12.5%,race_only=true)")
    assert player.checker.fast_params()["hit"] == 0.5
    # the kernel's row: the bot's own values, then its score_aware switch (bgsim.fast.capability_values)
    packed = fast_half(player.cube, layouts.CUBE).params
    assert dict(zip(layouts.PIPDIFF.params, packed)) == {
        "double": 10.0, "double_percent": 0.0, "redouble": 9.0, "redouble_percent": 1.0,
        "take": 12.5, "take_percent": 1.0, "race_only": 1.0, "beaver": 0.0, "beaver_percent": 0.0,
        "beaver_on": 0.0, "score_aware": 1.0}


@pytest.mark.parametrize("spec, words", [
    ("nobot", "unknown checker bot 'nobot'"),
    ("random+nocube", "unknown cube bot 'nocube'"),
    ("pipdiff", "unknown checker bot 'pipdiff'"),
    ("random+pipdiff(dbl=8%)", "unknown parameter 'dbl'"),
    ("random(speed=3)", "unknown parameter 'speed'"),
    ("random+pipdiff(double=-3)", "cannot be negative"),
    ("random+pipdiff(take=-1%)", "cannot be negative"),
    ("random+pipdiff(double=abc)", "bad value for double"),
    ("random+pipdiff(double=7.5)", "whole pips"),
    ("random+pipdiff(double=10%,take=5%)", "would drop every double"),
    ("random+pipdiff(double=10,take=8)", "would drop every double"),
    ("random+pipdiff(race_only=maybe)", "true or false"),
    ("random+pipdiff(beaver=12%)", "beaver=12% must be below take=12%"),
    ("random+pipdiff(take=20,double=10,beaver=25)", "beaver=25 must be below take=20"),
    ("random+pipdiff(beaver=-2)", "beaver=-2 must be in the same units as take=12%"),
    ("random+pipdiff(double=5,take=8,beaver=2%)", "beaver=2% must be in the same units as take=8"),
    ("random+pipdiff(beaver=soon)", "bad value for beaver"),
    ("random+pipdiff(beaver=-1.5)", "whole pips"),
    ("random+keith(take=5)", "would drop"),
    ("gnubg(plies=5)", "at most 2"),
    ("random+pipdiff(double=8%", "unclosed"),
    ("random+pipdiff)double=8%(", "unbalanced"),
    ("random+pipdiff(double)", "not key=value"),
    ("random+pipdiff(double=1,double=2)", "given twice"),
    ("random+pipdiff+keith", "CHECKER or CHECKER+CUBE"),
    ("random+", "empty part"),
    ("", "empty"),
    ("Random", "not a bot name"),
    ("random+pipdiff(double=nan%)", "finite"),
])
def test_spec_errors_name_the_problem(spec, words):
    with pytest.raises(SpecError, match=re.escape(words)) as error:
        make_player(spec)
    assert isinstance(error.value, ValueError)


def test_every_bot_is_listed_with_its_parameters():
    text = bots.describe_bots()
    for name in list(bots.checker_bots()) + list(bots.cube_bots()):
        if name != "none":  # the cube of a bare CHECKER, described in the closing lines
            assert f"  {name} " in text
    assert "double=8%" in text and "redouble=9%" in text and "take=12%" in text
    assert "plies=0" in text


def test_heuristic_clearly_beats_racer():
    # Seats swapped on the same dice; results/strength.md has the large-sample figure (+0.82).
    # The fast engine plays these bots' games exactly as the reference does (tests/test_fast_engine.py
    # and bgsim validate), on the suite's shared kernels, in a fraction of the time.
    from experiments.stats import mean_interval

    cubeless = Rules(cube=False)
    heuristic_white = play_games(make_player("heuristic"), make_player("racer"), 8, 120, cubeless,
                                 engine="fast")
    racer_white = play_games(make_player("racer"), make_player("heuristic"), 8, 120, cubeless,
                             engine="fast")
    per_dice = (heuristic_white["white_points"].to_numpy() - racer_white["white_points"].to_numpy()) / 2
    mean, half_width = mean_interval(per_dice)
    assert mean - half_width > 0.3, (mean, half_width)


def test_gnubg_match_decisions_asked_from_many_threads_get_their_own_answers():
    """Games on threads share the one helper: each question gets the answer asked alone."""
    from concurrent.futures import ThreadPoolExecutor

    from bots.gnubg_bots import match_cube_decision

    own = {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}
    position = race_from(own, {6: 4, 5: 3, 4: 3, 3: 3, 2: 2})
    questions = [(position.position_id, away, opponent_away, 1, 0)
                 for away in range(2, 9) for opponent_away in range(2, 9)] * 3
    alone = [match_cube_decision(*question) for question in questions]
    assert len(set(alone)) > 10  # the scores give different answers, so a mix-up would show
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(lambda question: match_cube_decision(*question), questions)) == alone
