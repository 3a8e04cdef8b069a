"""Match play in match terms: points that count, score-aware cube decisions, both engines alike."""

from __future__ import annotations

import numpy as np
import pytest

from bgsim.cube import Rules
from bgsim.series import play_games
from bots import make_player
from experiments.analysis.summary import summarize_games


@pytest.fixture(scope="module")
def match_rows():
    white, black = make_player("heuristic+pipdiff"), make_player("heuristic+keith")
    return play_games(white, black, 9, 40, Rules(), match_to=7, engine="fast")


def test_points_counted_never_exceeds_what_the_winner_needed(match_rows):
    rows = match_rows
    needed = 7 - np.where(rows["winner"] == "white", rows["white_score"], rows["black_score"])
    assert (rows["points_counted"] <= needed).all()
    assert (rows["points_counted"] <= rows["points"]).all()
    assert (rows["points_counted"] >= 1).all()
    # the cap bites in some game of 40 matches of money cube rules, or the test proves nothing
    assert (rows["points_counted"] < rows["points"]).any()
    # and each match ends exactly on its length when counted
    final = rows.groupby("game").apply(
        lambda match: (match["points_counted"] * (match["winner"] == match["winner"].iloc[-1])).sum(),
        include_groups=False)
    assert (final == 7).all()


def test_points_counted_is_the_points_in_money_games():
    player = make_player("heuristic+pipdiff")
    rows = play_games(player, player, 3, 30, Rules(), engine="fast")
    assert (rows["points_counted"] == rows["points"]).all()


def test_both_engines_count_the_same_points():
    white, black = make_player("racer+pipdiff"), make_player("heuristic+thorp")
    reference = play_games(white, black, 5, 4, Rules(), match_to=5, engine="reference")
    fast = play_games(white, black, 5, 4, Rules(), match_to=5, engine="fast")
    assert reference["points_counted"].tolist() == fast["points_counted"].tolist()


def test_match_summaries_report_capped_points(match_rows):
    summary = summarize_games(match_rows)
    counted = np.where(match_rows["winner"] == "white", match_rows["points_counted"],
                       -match_rows["points_counted"])
    assert summary["white_ppg"] == pytest.approx(counted.mean())
    assert summary["white_ppg"] != pytest.approx(match_rows["white_points"].mean())


# --- score-aware cube decisions ------------------------------------------------------------

from bgsim.board import Position  # noqa: E402
from bgsim.cube import CubeView, Response  # noqa: E402
from bgsim.fast.sameness import random_positions  # noqa: E402
from bots import cube_bots, make_cube  # noqa: E402
from bots import match_cube  # noqa: E402
from experiments.studies.validation import default_cases  # noqa: E402


def score_aware_bots() -> list[str]:
    """Every registered cube bot with the score_aware switch, from the registry."""
    return [name for name, bot in cube_bots().items()
            if any(param.key == "score_aware" for param in bot.PARAMS)]


def view(value, away, opponent_away, post_crawford=False, centred=None, match_to=7):
    return CubeView(value=value, centred=value == 1 if centred is None else centred, max_cube=64,
                    beaver_allowed=False, jacoby=False, match_to=match_to,
                    away=(away, opponent_away), post_crawford=post_crawford)


def race(own_pips_on_six: int, opponent_on_six: int) -> Position:
    """A pure race: the side on roll with checkers on its 6- and 1-points, the opponent alike."""
    board = [0] * 26
    board[6], board[1] = own_pips_on_six, 15 - own_pips_on_six
    board[19], board[24] = -opponent_on_six, -(15 - opponent_on_six)
    return Position(tuple(board))


AHEAD = race(2, 15)     # the side on roll far ahead: 27 pips against 90
BEHIND = race(15, 2)    # far behind: 90 pips against 27
EVEN = Position.start()

SCORE_AWARE = score_aware_bots()


def test_the_pip_rules_and_the_nets_are_score_aware():
    assert {"pipdiff", "keith", "thorp"} <= set(SCORE_AWARE)


@pytest.mark.parametrize("name", list(cube_bots()))
def test_a_cube_that_cannot_matter_is_never_offered(name):
    bot = make_cube(name)
    # an outside program answers each question over a pipe: fewer positions, the same scores
    count = 8 if name in ("gnubg-program", "bgsage") else 60
    positions = random_positions(count, seed=3) + [AHEAD, BEHIND, EVEN]
    for position in positions:
        for away, opponent_away, value in ((1, 5, 1), (2, 5, 2), (3, 3, 4), (1, 1, 1), (2, 9, 4)):
            for post in (False, True):
                owned = max(value, 2)  # an owned cube was turned: it shows 2 or more
                # an 11-point match holds every one of these scores (a 7-point one has no 9-away)
                assert not bot.offer_double(position, view(owned, away, opponent_away, post, centred=False,
                                                           match_to=11)), \
                    (position.position_id, away, opponent_away, owned)
                if value == 1:
                    assert not bot.offer_double(position, view(1, away, opponent_away, post, match_to=11))


@pytest.mark.parametrize("name", SCORE_AWARE)
def test_the_post_crawford_trailer_doubles_at_once_and_the_leader_never(name):
    bot = make_cube(name)
    for position in (EVEN, AHEAD, BEHIND):
        for trailer in (2, 3, 4, 6):
            assert bot.offer_double(position, view(1, trailer, 1, post_crawford=True))
            assert not bot.offer_double(position, view(1, 1, trailer, post_crawford=True))


@pytest.mark.parametrize("name", SCORE_AWARE)
def test_the_leader_uses_its_free_drop(name):
    # 1-away against 2-away after the Crawford game: a drop leaves a double-match-point game,
    # so the leader drops whenever the trailer is the favourite, and takes when it is not
    bot = make_cube(name)
    assert bot.respond(AHEAD, view(1, 2, 1, post_crawford=True)) is Response.DROP
    assert bot.respond(BEHIND, view(1, 2, 1, post_crawford=True)) is Response.TAKE


@pytest.mark.parametrize("name", ["pipdiff", "keith", "thorp"])
def test_score_blind_versions_keep_the_money_rule_in_matches(name):
    blind = make_cube(f"{name}(score_aware=false)")
    aware = make_cube(name)
    # far ahead with a cube that already wins the match: money doubles, the score says no
    dead = view(2, 2, 5, centred=False)
    assert blind.offer_double(AHEAD, dead)
    assert not aware.offer_double(AHEAD, dead)
    # a money-game view is judged alike by both
    for position in random_positions(40, seed=5) + [AHEAD, BEHIND]:
        money = view(1, 0, 0, match_to=0)
        assert blind.offer_double(position, money) == aware.offer_double(position, money)
        assert blind.respond(position, money) == aware.respond(position, money)


def test_the_score_moves_the_take_point():
    # the doubler trails 4-away against 2-away: the leader's take point is far below money's
    # 25%, so it takes what money drops; doubler 2-away against 4-away: the reverse
    for name in ("pipdiff", "keith", "thorp"):
        bot = make_cube(name)
        assert match_cube.drop_point(view(1, 4, 2)) > 0.75 > match_cube.drop_point(view(1, 2, 4))
        chances = [match_cube.race_chance(60, 60 + lead) for lead in range(0, 30)]
        assert chances == sorted(chances)
    assert match_cube.race_chance(100, 113) == pytest.approx(0.797, abs=1e-3)  # Johansen's example
    assert match_cube.race_chance(100, 106) == pytest.approx(0.688, abs=1e-3)


def test_crawford_games_see_no_double_in_either_engine():
    white, black = make_player("heuristic+pipdiff(double=2,redouble=2,take=30)"), make_player("heuristic+keith")
    for engine in ("reference", "fast"):
        rows = play_games(white, black, 4, 12, Rules(), match_to=5, engine=engine)
        assert rows["crawford"].any()
        assert (rows.loc[rows["crawford"], "doubles"] == 0).all()
        assert rows.loc[rows["crawford"], "first_double_ply"].isna().all()


def test_every_cube_bot_has_a_match_case_in_validate():
    matched = {black.split("+", 1)[1].split("(")[0] for white, black, rules, match_to in default_cases() if match_to} \
        | {white.split("+", 1)[1].split("(")[0] for white, black, rules, match_to in default_cases() if match_to}
    fast_cubes = {name for name, bot in cube_bots().items() if bot.fast_name}
    assert fast_cubes <= matched


def test_post_crawford_games_start_with_a_double_from_the_trailer():
    player = make_player("heuristic+pipdiff")
    rows = play_games(player, player, 2, 30, Rules(), match_to=5, engine="fast")
    after = rows[(rows["game_in_match"] > 0) & ~rows["crawford"]
                 & ((rows["white_score"] == 4) | (rows["black_score"] == 4))]
    after = after[after["white_score"] != after["black_score"]]
    assert len(after) > 0
    # the trailer's first turn is ply 1 or 2 (the opening roll is not a chance to double)
    assert (after["first_double_ply"] <= 3).all()


@pytest.mark.parametrize("name", ["nn", "gnubg"])
def test_the_nets_turn_the_cube_at_two_away_two_away(name):
    # 2-away against 2-away: the 2-cube decides the match, so the cube is turned at once (and
    # taken); money play never doubles the opening position
    aware, blind = make_cube(name), make_cube(f"{name}(score_aware=false)")
    assert aware.offer_double(EVEN, view(1, 2, 2))
    assert aware.respond(EVEN, view(1, 2, 2)) is Response.TAKE
    assert not blind.offer_double(EVEN, view(1, 2, 2))


def test_match_equities_of_a_sure_win_are_the_table_s():
    sure = (1.0, 0.0, 0.0, 0.0, 0.0)
    no_double, double_take, double_pass = match_cube.match_equities(sure, 0.68, view(1, 5, 3))
    assert double_pass == match_cube.equity(4, 3, False)
    assert double_take == pytest.approx(match_cube.equity(3, 3, False))
    assert no_double == pytest.approx(match_cube.equity(4, 3, False))


# --- GNU Backgammon match IDs on the command line --------------------------------------------

from bgsim.match_id import MatchState, decode, encode  # noqa: E402
from experiments.analysis.trace import turn_ids  # noqa: E402
from experiments.cli import main  # noqa: E402

START_ID = "4HPwATDgc/ABMA"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_show_prints_the_score_of_a_joined_or_separate_match_id(capsys):
    match_id = encode(MatchState(cube_value=2, cube_owner=0, on_roll=1, turn=1, match_to=7, score=(4, 2)))
    for argv in (("show", f"{START_ID}:{match_id}"), ("show", START_ID, match_id)):
        code, out, err = run(capsys, *argv)
        assert code == 0 and not err
        assert "match to 7, score 4-2; cube 2 owned by player 0; player 1 on roll" in out
        assert "X (player 1, on roll) needs 5, O (player 0) needs 3" in out


def test_show_refuses_a_bad_match_id_in_one_line(capsys):
    for argv in (("show", f"{START_ID}:nonsense"), ("show", f"{START_ID}:cAkAAAAAAAAA", "cAkAAAAAAAAA")):
        code, out, err = run(capsys, *argv)
        assert code == 2 and not out
        assert len(err.strip().splitlines()) == 1 and "match ID" in err


def test_trace_gives_both_ids_at_each_turn_following_score_and_cube():
    from bgsim.match import play_match

    white, black = make_player("heuristic+pipdiff"), make_player("heuristic+keith")
    record = play_match(white, black, 9, 2, 3, Rules(), trace=True)
    assert len(record.games) > 1
    doubled = False
    for game in record.games:
        for ply, gnubg_id in zip(game.history, turn_ids(game, Rules())):
            position_id, match_id = gnubg_id.split(":")
            assert position_id == ply.position_id
            state = decode(match_id)
            assert state.match_to == 3 and state.score == (game.match.white_score, game.match.black_score)
            assert state.on_roll == (0 if ply.side == "white" else 1)
            assert state.crawford == game.match.crawford
            doubled = doubled or state.cube_value > 1
    assert doubled  # the cube was followed through a take


def test_trace_command_prints_a_match(capsys):
    code, out, err = run(capsys, "trace", "heuristic+pipdiff", "heuristic+keith", "--match-to", "3",
                         "--seed", "9", "--game", "2")
    assert code == 0
    assert "Crawford game" in out and "wins the match to 3" in out
    assert ":" in out.splitlines()[1]


# --- a derived table from a player's own gammon rate -----------------------------------------

from bgsim import met  # noqa: E402
from experiments.studies.match_equity import compare, derived_from_player, measure_gammon_rate  # noqa: E402


def test_the_gammon_rate_is_measured_from_cubeless_self_play():
    measured = measure_gammon_rate("heuristic", games=400, seed=2)
    rows = play_games(make_player("heuristic"), make_player("heuristic"), 2, 400, Rules(cube=False))
    assert measured.rate == rows["result"].isin(["gammon", "backgammon"]).mean()
    assert 0.0 < measured.rate < 1.0 and 0.0 < measured.half_width < 0.1
    with pytest.raises(ValueError, match="games"):
        measure_gammon_rate("heuristic", games=0)


def _planted(table, pre=(), post=()):
    """A copy of ``table`` with ``(a, b, change)`` added to pre-Crawford entries and ``(n, change)``
    to post-Crawford ones (both 1-based in away)."""
    from dataclasses import replace

    planted_pre, planted_post = table.pre.copy(), table.post.copy()
    for a, b, change in pre:
        planted_pre[a - 1, b - 1] += change
    for n, change in post:
        planted_post[n - 1] += change
    return replace(table, pre=planted_pre, post=planted_post)


def test_a_derived_table_is_compared_with_the_published_one():
    published = met.published()
    # differences planted by hand: the largest, where it is, and the mean over 15 x 15 entries
    found = compare(_planted(published, pre=[(3, 5, 0.05), (5, 3, -0.02)], post=[(7, 0.01)]), published)
    assert (found.largest, found.at, found.post_crawford, found.size) == (pytest.approx(0.05), (3, 5), False, 15)
    assert found.mean == pytest.approx(0.07 / 225)
    found = compare(_planted(published, pre=[(2, 2, 0.01)], post=[(4, -0.03)]), published)
    assert (found.largest, found.at, found.post_crawford) == (pytest.approx(0.03), (4, 1), True)
    assert found.mean == pytest.approx(0.01 / 225)
    # beyond the size compared a difference does not count
    assert compare(_planted(published, pre=[(20, 2, 0.3)], post=[(20, 0.3)]), published).largest == 0.0
    assert compare(_planted(published, pre=[(20, 2, 0.3)]), published, size=25).largest == pytest.approx(0.3)
    # the player's table is the derived table of its measured rate
    table, measured = derived_from_player("racer", games=300, seed=1)
    assert f"{measured.rate:g}" in table.source
    assert np.array_equal(table.pre, met.derive(measured.rate).pre)
    distance = compare(table, published)
    assert 0.0 < distance.mean <= distance.largest < 0.2
    # a gammon rate near the experts' makes a table near the published one, closer than a
    # table with no gammons at all
    assert compare(met.derive(0.26), met.published()).largest < compare(met.derive(0.0), met.published()).largest


def test_met_from_player_on_the_command_line(capsys):
    code, out, err = run(capsys, "met", "--table", "derived", "--from-player", "racer", "--games", "200", "3", "5")
    assert code == 0
    assert "3-away vs 5-away" in out and "gammon rate of racer" in err and "kazaross-xg2" in err
    code, out, err = run(capsys, "met", "--from-player", "racer", "3", "5")
    assert code == 2 and "derived" in err


# --- experiments with a match length per condition -------------------------------------------

from experiments.running.config import Experiment, ExperimentError, load_experiment  # noqa: E402


def _experiment_file(tmp_path, conditions: str):
    path = tmp_path / "lengths.toml"
    path.write_text('players = ["heuristic+pipdiff", "heuristic+pipdiff(score_aware=false)"]\n'
                    'games = 50\nmatch_to = 7\n' + conditions, encoding="utf-8")
    return path


def test_a_condition_may_set_its_own_match_length(tmp_path):
    experiment = load_experiment(_experiment_file(
        tmp_path, "[conditions.five]\nmatch_to = 5\n[conditions.money]\nmatch_to = 0\njacoby = true\n"
                  "[conditions.default]\n"))
    assert [experiment.match_length(name) for name, _ in experiment.conditions] == [5, 0, 7]
    assert experiment.plays_matches
    again = Experiment.from_dict(experiment.to_dict())
    assert again == experiment


@pytest.mark.parametrize("conditions, words", [
    ("[conditions.five]\nmatch_to = -5\n", "conditions.five.match_to"),
    ("[conditions.five]\nmatch_to = true\n", "conditions.five.match_to"),
    ("[conditions.five]\nmatch_to = 5\njacoby = true\n", "match_to = 5"),
])
def test_a_bad_condition_match_length_is_named(tmp_path, conditions, words):
    with pytest.raises(ExperimentError, match=words):
        load_experiment(_experiment_file(tmp_path, conditions))
