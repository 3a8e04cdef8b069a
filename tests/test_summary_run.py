"""Run summaries: intervals checked against known answers, every figure against the rows."""

import math

import numpy as np
import pandas as pd
import pytest

from experiments.analysis.summary import (
    best_responses,
    match_results,
    paired_interval,
    payoff_matrix,
    summarize_conditions,
    summarize_pairings,
    summarize_players,
    variance_ratio,
)
from experiments.stats import Z95, mean_interval


def test_interval_of_a_sample_with_known_spread():
    values = np.array([1.0, -1.0] * 50)  # mean 0, sample variance 100/99
    mean, half = mean_interval(values)
    assert mean == 0.0
    assert half == pytest.approx(Z95 * math.sqrt(100 / 99) / 10, rel=1e-12)


def test_interval_covers_the_true_share_95_percent_of_the_time():
    rng = np.random.default_rng(20260601)
    p, n, trials = 0.3, 400, 3000
    covered = 0
    for _ in range(trials):
        mean, half = mean_interval(rng.random(n) < p)
        covered += abs(mean - p) <= half
    # 3000 trials: the coverage of a correct 95% interval lies in 0.94..0.96 with ~99% chance.
    assert 0.937 <= covered / trials <= 0.963


def test_paired_interval_averages_each_deal_first():
    values = [1.0, 3.0, 2.0, 2.0, 10.0, -4.0]
    keys = [0, 0, 1, 1, 2, 2]  # units 2, 2, 3
    mean, half, units = paired_interval(values, keys)
    assert units == 3
    assert mean == pytest.approx(7 / 3)
    assert half == pytest.approx(Z95 * np.std([2, 2, 3], ddof=1) / math.sqrt(3))


def test_variance_ratio_has_the_known_value_for_orthogonal_parts():
    # leg 0 = u + v, leg 1 = u - v, u and v orthogonal with mean 0 and var(v) = 3 var(u):
    # plain variance (var u + var v) / 2N, paired variance var u / N, ratio exactly 2.
    u = np.array([1.0, -1.0] * 8)
    v = math.sqrt(3) * np.array([1.0, 1.0, -1.0, -1.0] * 4)
    values = np.concatenate([u + v, u - v])
    legs = np.repeat([0, 1], 16)
    keys = np.tile(np.arange(16), 2)
    assert variance_ratio(values, legs, keys) == pytest.approx(2.0, rel=1e-12)
    # Nothing paired: no ratio to report.
    assert math.isnan(variance_ratio(values, legs, np.arange(32)))


def _frame(rows):
    """A run frame from (leg, game, white, black, winner, result, cube, doubles) tuples."""
    data = pd.DataFrame(rows, columns=["leg", "game", "white", "black", "winner", "result",
                                       "cube_value", "doubles"])
    multiplier = data["result"].map({"single": 1, "gammon": 2, "backgammon": 3, "drop": 1})
    data["points"] = multiplier * data["cube_value"]
    data["white_points"] = np.where(data["winner"] == "white", data["points"], -data["points"])
    data["pairing"] = 0
    data["condition"] = "standard"
    data["match_to"] = 0
    data["game_in_match"] = 0
    return data


def test_pairing_summary_from_hand_made_rows():
    frame = _frame([
        (0, 0, "A", "B", "white", "gammon", 2, 1),     # A +4
        (0, 1, "A", "B", "black", "single", 1, 0),     # A -1
        (0, 2, "A", "B", "white", "drop", 2, 1),       # A +2 (B dropped)
        (1, 0, "B", "A", "white", "single", 1, 0),     # A -1
        (1, 1, "B", "A", "black", "backgammon", 1, 0),  # A +3
        (1, 2, "B", "A", "white", "drop", 1, 1),       # A -1 (A dropped)
    ])
    row = summarize_pairings(frame).iloc[0]
    assert (row["player"], row["opponent"], row["games"]) == ("A", "B", 6)
    assert row["ppg"] == pytest.approx(6 / 6)
    units = [(4 - 1) / 2, (-1 + 3) / 2, (2 - 1) / 2]
    assert row["ppg_ci"] == pytest.approx(Z95 * np.std(units, ddof=1) / math.sqrt(3))
    assert row["wins"] == pytest.approx(3 / 6)
    assert row["gammons_won"] == pytest.approx(2 / 6)  # the gammon and the backgammon
    assert row["gammons_lost"] == 0
    assert row["backgammons"] == pytest.approx(1 / 6)
    assert row["drops_won"] == pytest.approx(1 / 6)
    assert row["drops_lost"] == pytest.approx(1 / 6)
    assert row["mean_cube"] == pytest.approx(8 / 6)
    assert row["doubles_per_game"] == pytest.approx(3 / 6)

    standings = summarize_players(frame)
    assert list(standings["player"]) == ["A", "B"]
    assert standings["ppg"].tolist() == pytest.approx([1.0, -1.0])
    assert standings["gammons_lost"].tolist() == pytest.approx([0.0, 2 / 6])


def test_match_results_take_the_last_game_of_each_match():
    frame = _frame([
        (0, 0, "A", "B", "white", "single", 1, 0),
        (0, 0, "A", "B", "black", "gammon", 2, 1),
        (1, 0, "B", "A", "black", "single", 1, 0),
    ])
    frame["match_to"] = 3
    frame["game_in_match"] = [0, 1, 0]
    matches = match_results(frame)
    assert matches["winner"].tolist() == ["black", "black"]
    assert matches["games_in_match"].tolist() == [2, 1]
    row = summarize_pairings(frame).iloc[0]
    assert row["matches"] == 2
    assert row["match_wins"] == pytest.approx(0.5)  # A lost as white, won as black


def test_payoff_matrix_is_zero_sum_and_best_responses_read_columns():
    pairings = pd.DataFrame([
        {"player": "A", "opponent": "B", "ppg": 0.2},
        {"player": "A", "opponent": "C", "ppg": -0.1},
        {"player": "B", "opponent": "C", "ppg": 0.3},
    ])
    matrix = payoff_matrix(pairings)
    assert matrix.loc["B", "A"] == pytest.approx(-0.2)
    off_diagonal = ~np.eye(3, dtype=bool)
    assert np.allclose((matrix.to_numpy() + matrix.to_numpy().T)[off_diagonal], 0)
    best = best_responses(matrix).set_index("opponent")
    assert best.loc["A", "best_response"] == "C"  # C scores +0.1 against A, B only -0.2
    assert best.loc["C", "best_response"] == "B"


def test_conditions_summary_counts_points_changing_hands_and_gammons_scored():
    frame = _frame([(0, 0, "A", "B", "white", "gammon", 2, 1), (0, 1, "A", "B", "black", "single", 1, 0),
                    (0, 2, "A", "B", "black", "gammon", 1, 0)])
    frame.loc[2, ["points", "white_points"]] = [1, -1]  # Jacoby: no double, scored as a single
    frame["beavers"] = 0
    frame["automatic_doubles"] = [1, 0, 0]
    table = summarize_conditions(frame).iloc[0]
    assert table["points_per_game"] == pytest.approx(6 / 3)
    assert table["gammons"] == pytest.approx(2 / 3)
    assert table["gammons_scored"] == pytest.approx(1 / 3)
    assert table["automatic_doubles_per_game"] == pytest.approx(1 / 3)


def test_holm_adjustment_has_the_textbook_values():
    from experiments.analysis.summary import holm

    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1, then made monotone
    assert holm([0.01, 0.04, 0.03, 0.005]).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]).tolist() == pytest.approx([1.0, 1.0])


def _deals(first, second, a_points, pairing=0, condition="standard"):
    """Rows of one pairing where each deal gives ``first`` the listed points in both seatings."""
    rows = []
    for game, points in enumerate(a_points):
        for leg, (white, black) in enumerate(((first, second), (second, first))):
            a_is_white = white == first
            won = (points > 0) == a_is_white
            rows.append((leg, game, white, black, "white" if won else "black", "single", abs(points) or 1, 0))
    frame = _frame(rows)
    frame["pairing"] = pairing
    frame["condition"] = condition
    return frame


def test_pairwise_comparisons_use_the_deal_as_unit_and_say_what_is_separated():
    from experiments.analysis.summary import pairwise_comparisons, separation_sentences

    rng = np.random.default_rng(5)
    a_beats_b = rng.choice([1, 1, 1, -1], size=400)     # A clearly ahead of B
    a_ties_c = rng.choice([1, -1], size=400)            # A and C: a coin flip
    b_ties_c = rng.choice([2, -2], size=400)
    frame = pd.concat([_deals("A", "B", a_beats_b, 0), _deals("A", "C", a_ties_c, 1),
                       _deals("B", "C", b_ties_c, 2)], ignore_index=True)
    table = pairwise_comparisons(frame).set_index(["player", "opponent"])
    ab = table.loc[("A", "B")]
    mean, half = mean_interval(a_beats_b.astype(float))  # one unit per deal, not per game
    assert (ab["difference"], ab["difference_ci"], ab["deals"]) == (pytest.approx(mean), pytest.approx(half), 400)
    assert ab["separated"]
    ac = table.loc[("A", "C")]
    assert not ac["separated"]
    assert ac["deals_needed"] == math.ceil(400 * (ac["difference_ci"] / max(abs(ac["difference"]), 0.01)) ** 2)
    raw = table["p"].to_numpy()
    assert table["p_holm"].to_numpy() == pytest.approx(np.minimum(1, np.maximum.accumulate(
        (3 - np.arange(3)) * np.sort(raw)))[np.argsort(np.argsort(raw))])
    text = "\n".join(separation_sentences(pairwise_comparisons(frame), ["A", "C", "B"]))
    assert "`A` and `C` are not separated after 400 deals" in text
    assert f"about {ac['deals_needed']:,} deals would be needed to tell a" in text
    assert "`A` is ahead of `B`" not in text  # only neighbours in the standings get a sentence
    assert "pairs of players are separated" in text


def test_players_who_never_met_are_compared_through_their_common_opponent():
    from experiments.analysis.summary import pairwise_comparisons

    frame = pd.concat([_deals("A", "K", [1, 1, -1, 1], 0), _deals("B", "K", [-1, 1, -1, -1], 1)],
                      ignore_index=True)
    row = pairwise_comparisons(frame).set_index(["player", "opponent"]).loc[("A", "B")]
    a, ha = mean_interval([1.0, 1, -1, 1])
    b, hb = mean_interval([-1.0, 1, -1, -1])
    assert row["difference"] == pytest.approx(a - b) and row["via"] == "K"
    assert row["difference_ci"] == pytest.approx(math.hypot(ha, hb))  # independent dice: variances add


def test_a_common_opponent_is_found_whichever_seat_order_the_pairs_were_recorded_in():
    from experiments.analysis.summary import pairwise_comparisons

    # A met K as the first player, B met K as the second: the link is there all the same
    frame = pd.concat([_deals("A", "K", [1, 1, -1, 1], 0), _deals("K", "B", [1, -1, 1, 1], 1)],
                      ignore_index=True)
    row = pairwise_comparisons(frame).set_index(["player", "opponent"]).loc[("A", "B")]
    a, _ = mean_interval([1.0, 1, -1, 1])
    b_against_k, _ = mean_interval([-1.0, 1, -1, -1])  # B's side of its games with K
    assert row["via"] == "K"
    assert row["difference"] == pytest.approx(a - b_against_k)


def test_condition_interval_takes_the_deal_as_unit():
    # Both seatings of every deal move the same points: perfectly correlated.  Treating the
    # 2n games as independent would give a half-width smaller by sqrt(2); the deal is the unit.
    points = np.array([1, 2, 4, 1, 2, 1, 8, 1, 2, 1])
    frame = _deals("A", "B", points)
    frame["beavers"] = 0
    frame["automatic_doubles"] = 0
    row = summarize_conditions(frame).iloc[0]
    _, per_deal = mean_interval(points.astype(float))
    _, per_game = mean_interval(frame["points"].to_numpy(dtype=float))
    assert row["points_per_game_ci"] == pytest.approx(per_deal)
    assert row["points_per_game_ci"] > 1.3 * per_game  # the old formula's interval was too narrow


def test_condition_game_length_is_the_mean_of_each_deals_plies():
    frame = _deals("A", "B", np.array([1, 1, 1, 1]))
    frame["beavers"] = 0
    frame["automatic_doubles"] = 0
    frame["plies"] = [30, 50, 40, 40, 20, 60, 70, 90]  # rows go deal by deal, both seatings
    row = summarize_conditions(frame.sort_values(["game", "leg"]).reset_index(drop=True)).iloc[0]
    deal_means = frame.groupby("game")["plies"].mean().to_numpy(dtype=float)
    mean, half = mean_interval(deal_means)
    assert row["plies_per_game"] == pytest.approx(frame["plies"].mean())
    assert row["plies_per_game_ci"] == pytest.approx(half)


def test_a_neighbour_that_loses_head_to_head_is_not_called_ahead():
    """The standings rank by points against everyone; head to head the lower one may win."""
    from experiments.analysis.summary import pairwise_comparisons, separation_sentences

    frame = _deals("A", "B", np.array([1, 1, 1, -1] * 100))  # A clearly beats B
    text = "\n".join(separation_sentences(pairwise_comparisons(frame), ["B", "A"]))
    assert "`B` is ahead of `A`" not in text
    assert "`A` beats `B` head to head after 400 deals, though it stands lower in the standings: +0.500" in text
