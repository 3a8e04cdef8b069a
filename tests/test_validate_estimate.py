"""``bgsim validate``'s honest default: each case sized by what it costs the reference engine, the
cases ordered so that every kind is seen early, and the time left computed from the cases still to
run at the pace each kind ran (``experiments.running.progress.remaining_seconds``).  No test here
reads a clock: the estimate is checked on constructed costs."""

from __future__ import annotations

import re

import pytest

from bgsim.cube import Rules
from bgsim.variants import DEFINITIONS, VARIANTS
from experiments.cli import main
from experiments.running.progress import remaining_seconds
from experiments.studies.validation import (GAME_COST, POSITION_COST, case_games, case_kind, chouette_cases,
                                            default_cases, game_cost, learning_order, validate)


# --- the estimate -------------------------------------------------------------------------------------


def test_with_nothing_done_the_time_left_is_the_cost_model():
    assert remaining_seconds([], [("standard", 10.0), ("dutch", 20.0)]) == pytest.approx(30.0)


def test_a_kind_already_seen_runs_at_its_pace_counted_with_one_average_case_at_the_overall_pace():
    # 100 s taken for 40 expected: overall 2.5; one average case expects 10 s.  standard:
    # (90 + 2.5 * 10) / (30 + 10) = 2.875; dutch: (10 + 25) / (10 + 10) = 1.75
    done = [("standard", 10.0, 30.0)] * 3 + [("dutch", 10.0, 10.0)]
    assert remaining_seconds(done, [("standard", 4.0), ("dutch", 4.0)]) == pytest.approx(4 * 2.875 + 4 * 1.75)


def test_a_kind_with_many_cases_runs_at_its_own_pace():
    done = [("standard", 1.0, 3.0)] * 99 + [("dutch", 1.0, 1.0)]
    assert remaining_seconds(done, [("standard", 10.0)]) == pytest.approx(30.0, rel=1e-3)


def test_one_odd_case_moves_its_kind_only_part_of_the_way():
    # the first dutch case loaded tables: 40 s for 10 expected.  overall 70 / 40 = 1.75; dutch
    # (40 + 1.75 * 10) / (10 + 10) = 2.875, not 4
    done = [("standard", 10.0, 10.0)] * 3 + [("dutch", 10.0, 40.0)]
    assert remaining_seconds(done, [("dutch", 10.0)]) == pytest.approx(28.75)


def test_a_kind_not_yet_seen_runs_at_the_pace_of_everything_done():
    # 50 s taken for 40 s modelled: this machine runs at 1.25 times the model
    done = [("standard", 10.0, 20.0), ("dutch", 30.0, 30.0)]
    assert remaining_seconds(done, [("acey-deucey, nn", 8.0)]) == pytest.approx(10.0)


def test_slow_cases_still_to_run_count_at_their_cost_not_at_the_average_case():
    # The run: quick cases done, slow ones left.  Ten standard cases of 2 s each ran as
    # modelled; five more of them and five acey-deucey cases with nn (20 s each) are left.  The
    # old estimate (elapsed / cases done * cases left) said 20 s; they take 10 + 100 s.
    done = [("standard", 2.0, 2.0)] * 10
    left = [("standard", 2.0)] * 5 + [("acey-deucey, nn", 20.0)] * 5
    flat = sum(seconds for _, _, seconds in done) / len(done) * len(left)
    assert flat == pytest.approx(20.0)
    assert remaining_seconds(done, left) == pytest.approx(110.0)


def test_nothing_left_is_no_time():
    assert remaining_seconds([("standard", 1.0, 5.0)], []) == 0.0


# --- the order ------------------------------------------------------------------------------------------


def test_cases_run_one_of_each_kind_first():
    assert learning_order(["a", "a", "b", "c", "b", "a"]) == [0, 2, 3, 1, 4, 5]
    assert learning_order([]) == []


def test_the_default_run_meets_every_kind_within_its_first_cases():
    kinds = [case_kind(*case) for case in default_cases()]
    order = learning_order(kinds)
    assert sorted(order) == list(range(len(kinds)))  # every case, once
    assert {kinds[index] for index in order[:len(set(kinds))]} == set(kinds)


# --- the kinds and their sizes -----------------------------------------------------------------------


@pytest.mark.parametrize("case, kind", [
    (("heuristic+nn", "pubeval+pipdiff", Rules(), 0), "standard"),  # nn as the cube bot only
    (("nn(bearoff=true)+isight", "random+epc", Rules(variant="dutch"), 0), "dutch, nn"),
    (("heuristic+pipdiff", "heuristic+keith(score_aware=false)", Rules(), 5), "standard, matches"),
    (("pubeval", "nn", Rules(variant="acey-deucey"), 0), "acey-deucey, nn"),
])
def test_a_case_kind_is_its_variant_matches_and_nn_checker_play(case, kind):
    assert case_kind(*case) == kind


def test_every_variant_has_a_measured_cost():
    # a new variant is measured (GAME_COST, POSITION_COST) before validate sizes its cases
    assert set(DEFINITIONS) <= set(GAME_COST) and set(VARIANTS) <= set(POSITION_COST)


def test_every_default_case_plays_at_least_one_game_and_costs_about_the_same():
    standard = case_games(60, "standard")
    assert standard == 60
    for kind in {case_kind(*case) for case in default_cases()} | {f"chouette of {len(specs)}" for specs, _, _
                                                                      in chouette_cases()}:
        games = case_games(60, kind)
        seconds = game_cost(kind)[1]
        assert games >= 1
        # as long as 60 standard money games (51 plies at 0.80 ms), within the rounding of a game
        assert abs(games * seconds - 60 * 51 * 0.80 / 1000) <= seconds / 2 + 1e-9, kind


def test_games_scales_every_case():
    for kind in GAME_COST:
        # a 1-ply search asks the reference's Python move generator of 21 rolls a ply: its case
        # plays fewer games, but never fewer at a larger --games
        fewest = 5 if kind.endswith(", ahead") else 10
        assert case_games(600, kind) >= max(fewest, case_games(60, kind)), kind
        assert abs(case_games(6000, kind) - 10 * case_games(600, kind)) <= 5, kind  # ten times, but rounding


def test_matches_and_slow_games_play_fewer_short_games_more():
    assert case_games(60, "standard, matches") < 60 < case_games(60, "hypergammon1")
    assert case_games(60, "acey-deucey, nn") < case_games(60, "acey-deucey") < 60
    assert case_games(1, "acey-deucey, nn") == 1


# --- the run --------------------------------------------------------------------------------------------


def test_validate_says_what_it_covers_and_sizes_each_case(capsys):
    cases = [("random", "racer", Rules(variant="acey-deucey"), 0), ("heuristic+pipdiff", "pubeval+pipdiff", Rules(), 0),
             ("racer+keith", "heuristic+thorp", Rules(variant="hypergammon1"), 0)]
    assert validate(cases, games=3, positions=0, jobs=1) == 0
    out = capsys.readouterr().out
    # one acey-deucey game (3 standard games cost less than one), 3 standard games, and
    # hypergammon1's short games: 3 * 51 * 0.80 / (5.2 * 0.26) = 90.5, 91 games
    assert "validating 3 cases, each as long in the reference engine as 3 standard money games" in out
    assert re.search(r"^1 games \(1 games\) identical: random vs racer, cube=False, variant=acey-deucey", out, re.M)
    assert re.search(r"^3 games \(3 games\) identical: heuristic\+pipdiff vs pubeval\+pipdiff", out, re.M)
    assert re.search(r"^91 games \(91 games\) identical: racer\+keith vs heuristic\+thorp", out, re.M)
    played = [int(plies.replace(",", "")) for plies in re.findall(r"identical: .*\[([\d,]+) plies", out)]
    assert len(played) == 3 + 4 and all(plies > 0 for plies in played[:3])  # 3 cases, 4 starts
    assert re.search(r"^validated: \d+ rows \([\d,]+ plies\)", out, re.M)
    assert len(re.findall(r"^  about .* left for ", out, re.M)) >= 3  # before, between cases, before legal plays


def test_validate_with_players_plays_exactly_the_games_asked(capsys):
    assert main(["validate", "--players", "random", "nn", "--games", "2", "--positions", "0", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "validating 1 cases, 2 games or matches each" in out
    assert re.search(r"^2 games \(2 games\) identical: random vs nn", out, re.M)
