"""The sequential test (``bgsim sprt``, ``sprt`` in experiment files, gauntlets): its likelihood
ratio on hand-worked examples, its bounds, its error rates on a seeded simulation, and the
command: decisions, Ctrl-C and --resume, the reference engine, bad input in one line."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from experiments import cli
from experiments.errors import ExperimentError
from experiments.running.config import experiment_from_mapping
from experiments.running.plan import plan_pairings
from experiments.sequential import (DEFAULT_BATCH, FLOOR, Sprt, SprtError, SequentialTest, anytime_half_width, llr, log_likelihood,
                                    mixing, normal_llr, run_test)
from experiments.studies.experiment import run_experiment


# --- the likelihood ratio ---------------------------------------------------------------------


def test_two_values_the_plain_likelihood_ratio_is_the_binomial_one():
    # deals of +1 or -1: a mean of mu fixes the distribution, p(+1) = (1 + mu) / 2, so the
    # generalized ratio is the plain one: 60 log(1.2) + 40 log(0.8) for 60 wins and 40 losses.
    values, counts = np.array([-1.0, 1.0]), np.array([40, 60])
    assert llr(values, counts, 0.0, 0.2, adjusted=False) == pytest.approx(
        60 * math.log(1.2) + 40 * math.log(0.8), rel=1e-12)  # = 2.0136
    assert llr(values, counts, 0.0, 0.2, adjusted=False) == pytest.approx(2.01355, abs=1e-5)


def _best_on_a_grid(values, counts, mu, steps=40001):
    """The largest sum n_j log p_j of a distribution on three values with mean mu, by search."""
    (v0, v1, v2), (n0, n1, n2) = values, counts
    best = -math.inf
    for p1 in np.linspace(0.0, 1.0, steps):  # p0 + p1 + p2 = 1, v0 p0 + v1 p1 + v2 p2 = mu
        p2 = (mu - v0 - (v1 - v0) * p1) / (v2 - v0)
        p0 = 1 - p1 - p2
        if min(p0, p1, p2) > 0:
            best = max(best, n0 * math.log(p0) + n1 * math.log(p1) + n2 * math.log(p2))
    return best


def test_the_adjusted_likelihood_adds_one_deal_beyond_the_hypothesis():
    # 40 deals of -1, 60 of +1: mean 0.2, standard deviation sqrt(0.96 * 100 / 99); for mu = 0
    # the pseudo-deal sits one deviation below 0, so mu = 0 mixes -1, -0.985 and +1.
    values, counts = np.array([-1.0, 1.0]), np.array([40, 60])
    pseudo = -math.sqrt(0.96 * 100 / 99)
    best = _best_on_a_grid((-1.0, pseudo, 1.0), (40, 1, 60), 0.0)
    fitted = 40 * math.log(40 / 101) + math.log(1 / 101) + 60 * math.log(60 / 101)
    assert log_likelihood(values, counts, 0.0) == pytest.approx(best - fitted, abs=1e-6)  # = -1.8014
    # no mean is impossible any more: after deals that all favour the candidate, H0 is unlikely, not refuted
    assert 0 < llr(np.array([0.0, 1.0]), np.array([4, 1]), 0.0, 0.4) < math.inf
    assert llr(np.array([0.0, 1.0]), np.array([4, 1]), 0.0, 0.4, adjusted=False) == math.inf
    # and two hypotheses both far below every deal are still told apart, more surely with every deal
    far = [llr(np.array([2.0, 3.0]), np.array([k, k]), 0.0, 0.3) for k in (10, 20, 40)]
    assert 0 < far[0] < far[1] < far[2]


def test_three_values_the_likelihood_is_the_best_distribution_with_that_mean():
    # a pair of matches scores 0, 1 or 2 of 2 (shares 0, 1/2, 1): counts 10, 20, 10.  The best
    # distribution with mean 0.6, searched on a fine grid, against the one that fits exactly.
    values, counts, mu = np.array([0.0, 0.5, 1.0]), np.array([10, 20, 10]), 0.6
    fitted = 10 * math.log(0.25) + 20 * math.log(0.5) + 10 * math.log(0.25)
    assert log_likelihood(values, counts, mu, adjusted=False) == pytest.approx(
        _best_on_a_grid(values, counts, mu) - fitted, abs=1e-6)
    # the mean seen: the fitted distribution itself (the pseudo-deal falls on the mean, and changes nothing)
    assert log_likelihood(values, counts, 0.5, adjusted=False) == 0.0 == log_likelihood(values, counts, 0.5)


def test_in_the_plain_likelihood_a_mean_outside_the_values_seen_is_impossible():
    values, counts = np.array([-1.0, 0.0, 2.0]), np.array([3, 5, 2])
    plain = dict(adjusted=False)
    assert log_likelihood(values, counts, 2.0, **plain) == -math.inf
    assert log_likelihood(values, counts, -1.5, **plain) == -math.inf
    assert llr(values, counts, 0.0, 3.0, **plain) == -math.inf  # H1 impossible: H0 at once
    # both means beyond every deal: the normal ratio, with the variance the deals show, compares them
    mean = (-3 + 4) / 10
    variance = float((counts * (values - mean) ** 2).sum() / 9)
    assert llr(values, counts, 3.0, 2.5, **plain) == pytest.approx(normal_llr(10, 1.0, variance, 3.0, 2.5))
    assert llr(np.array([0.0]), np.array([7]), 0.0, 0.1, **plain) == -math.inf  # every deal 0: H0's mean
    assert llr(np.array([0.0]), np.array([7]), -0.1, 0.1, **plain) == 0.0  # halfway: nothing to choose
    assert llr(np.array([0.0]), np.array([7]), 0.0, 0.1) < 0  # adjusted: H0 likelier, not certain


def test_for_small_differences_the_ratio_is_the_normal_one():
    rng = np.random.default_rng(5)
    deals = np.round(rng.standard_t(6, size=20000) * 0.8 + 0.01, 1)
    values, counts = np.unique(deals, return_counts=True)
    generalized = llr(values, counts, 0.0, 0.02)
    assert generalized == pytest.approx(normal_llr(len(deals), deals.sum(), deals.var(ddof=1), 0.0, 0.02), rel=0.02)


def test_the_bounds_are_walds():
    test = Sprt(0.0, 0.05)
    assert test.upper == pytest.approx(math.log(19)) and test.lower == pytest.approx(-math.log(19))
    other = Sprt(0.0, 0.05, alpha=0.01, beta=0.2)
    assert other.upper == pytest.approx(math.log(0.8 / 0.01))
    assert other.lower == pytest.approx(math.log(0.2 / 0.99))
    assert Sprt(0.0, 0.1).fixed_deals(1.0) == math.ceil((2 * 1.6448536269514722 / 0.1) ** 2)


@pytest.mark.parametrize("kwargs, words", [
    ({"delta0": 0.05, "delta1": 0.05}, "delta1 (0.05) must be greater than delta0 (0.05)"),
    ({"delta0": 0.1, "delta1": -0.1}, "must be greater than delta0"),
    ({"delta0": 0.0, "delta1": 0.1, "alpha": 0.5}, "alpha must be between 0 and 0.5"),
    ({"delta0": 0.0, "delta1": 0.1, "alpha": 0.0}, "alpha must be between 0 and 0.5"),
    ({"delta0": 0.0, "delta1": 0.1, "beta": 0.7}, "beta must be between 0 and 0.5"),
    ({"delta0": 0.0, "delta1": math.nan}, "delta1 must be a finite number"),
    ({"delta0": 0.0, "delta1": 0.1, "floor": 1.5}, "floor must be between 0 and 1"),
])
def test_a_test_that_makes_no_sense_is_refused_in_one_line(kwargs, words):
    with pytest.raises(SprtError, match=words.replace("(", r"\(").replace(")", r"\)")):
        Sprt(**kwargs)


def test_error_rates_of_a_seeded_simulation_are_inside_their_binomial_intervals():
    """300 tests at each hypothesis on deals scoring -1, 0 or +1 (two money games without the
    cube, roughly), with the test's floor, a look every 10 deals (the fixed-size test needs 125):
    the share of wrong decisions is not above nominal beyond its binomial interval, and the tests
    use fewer deals on average than a fixed-size test of the same errors."""
    rng = np.random.default_rng(20261202)
    test, count = Sprt(0.0, 0.2), 300
    for theta, wrong in ((0.0, "H1"), (0.2, "H0")):
        p_up = (0.5 + theta) / 2  # P(0) = 1/2 and a mean of theta
        decisions, deals = [], []
        for _ in range(count):
            units = rng.choice([-1.0, 0.0, 1.0], size=2000, p=[0.5 - p_up, 0.5, p_up])
            result = run_test(test, units, batch=10)
            decisions.append(result.decision)
            deals.append(result.deals)
        assert None not in decisions
        share = decisions.count(wrong) / count
        assert share <= 0.05 + 1.96 * math.sqrt(0.05 * 0.95 / count)
        assert np.mean(deals) < test.fixed_deals(math.sqrt(0.5 - theta ** 2))


def test_no_decision_before_the_floor_share_of_the_fixed_size_tests_deals():
    units = np.array([1.0, 0.0] * 5)  # mean 1/2, sd 1/2: a fixed-size test of 0 against 0.2 needs 68
    plain, floored = SequentialTest(Sprt(0.0, 0.2, floor=0.0)), SequentialTest(Sprt(0.0, 0.2))
    for _ in range(2):
        plain.add(units)
        floored.add(units)
    assert plain.decision == "H1" and plain.deals == 20  # Wald's test decides at its bound
    assert floored.llr > floored.sprt.upper and floored.decision is None  # beyond it, under the floor
    assert floored.floor_deals == math.ceil(FLOOR * Sprt(0.0, 0.2).fixed_deals(floored.sd)) > 20
    while floored.decision is None:
        floored.add(units)
    assert floored.decision == "H1" and floored.deals == 40 >= floored.floor_deals


def test_the_floor_takes_no_decision_on_a_single_deal():
    # one deal sizes no fixed-size test: Wald's test decides on it at once (the LLR of a deal
    # at -3 against a gain of 0.05 is -inf), the floored test waits for a spread
    plain, floored = SequentialTest(Sprt(0.0, 0.05, floor=0.0)), SequentialTest(Sprt(0.0, 0.05))
    plain.add([-3.0])
    floored.add([-3.0])
    assert plain.decision == "H0" and floored.llr <= floored.sprt.lower and floored.decision is None
    floored.add([-2.5])  # a spread at last: the floor is half of the fixed-size test it sizes
    assert floored.floor_deals == math.ceil(FLOOR * Sprt(0.0, 0.05).fixed_deals(floored.sd)) > floored.deals
    assert floored.decision is None


def test_the_interval_after_stopping_holds_at_every_count_and_is_wider_than_the_naive_one():
    rho2 = mixing(1000)
    for deals in (50, 1000, 20000):
        assert anytime_half_width(1.0, deals, rho2) > 1.96 / math.sqrt(deals)
    test = SequentialTest(Sprt(0.0, 0.5))
    test.add(np.array([1.0, -1.0, 0.0, 1.0]))
    low, high = test.anytime_interval()
    naive = test.naive_interval()
    assert low < naive[0] < test.mean < naive[1] < high


# --- experiment files -------------------------------------------------------------------------


GAUNTLET = {"players": ["heuristic", "racer"], "opponents": ["random", "pubeval"], "pairings": "gauntlet",
            "games": 4, "chunk": 2, "seed": 3, "engine": "fast"}


def test_a_gauntlet_plays_each_candidate_against_each_fixed_opponent():
    experiment = experiment_from_mapping(dict(GAUNTLET), "g.toml", "g")
    assert [(p.first, p.second) for p in plan_pairings(experiment)] == [
        ("heuristic", "random"), ("heuristic", "pubeval"), ("racer", "random"), ("racer", "pubeval")]
    assert experiment.everyone == ("heuristic", "racer", "random", "pubeval")
    assert experiment.identity()["opponents"] == ["random", "pubeval"]


@pytest.mark.parametrize("changes, key, words", [
    ({"opponents": []}, "pairings", "needs opponents"),
    ({"opponent": "nn"}, "opponent", "in a list"),
    ({"opponents": ["random", "heuristic"]}, "opponents[1]", "also in players"),
    ({"opponents": ["random", "random"]}, "opponents[1]", "listed twice"),
    ({"pairings": "round-robin"}, "opponents", "a gauntlet's"),
    ({"sprt": {"delta0": 0.0}}, "sprt.delta1", "missing"),
    ({"sprt": {"delta0": 0.0, "delta1": 0.1, "gamma": 1}}, "sprt.gamma", "unknown key"),
    ({"sprt": {"delta0": 0.2, "delta1": 0.1}}, "sprt", "must be greater than delta0"),
    ({"sprt": {"delta0": 0.0, "delta1": 0.1}, "target_ci": 0.1}, "sprt", "not both"),
])
def test_a_bad_gauntlet_or_sprt_table_is_one_line_naming_the_key(changes, key, words):
    data = {**GAUNTLET, **changes}
    with pytest.raises(ExperimentError) as refused:
        experiment_from_mapping(data, "g.toml", "g")
    text = str(refused.value)
    assert text.startswith(f"g.toml: {key}: ") and words in text and "\n" not in text


def test_an_experiment_with_sprt_stops_each_pairing_when_its_test_decides(tmp_path):
    """A gauntlet with a sequential test per pairing: a pairing stops at its decision, and the
    summary's test, replayed from the rows, is the one the run stopped on."""
    data = {**GAUNTLET, "players": ["heuristic"], "opponents": ["random", "racer"], "games": 100, "chunk": 10,
            "sprt": {"delta0": 0.0, "delta1": 0.3}}
    experiment = experiment_from_mapping(data, "g.toml", "g")
    lines = []
    result = run_experiment(experiment, tmp_path / "g", progress=False, log=lines.append)
    table = result.report.sprt
    assert list(table["opponent"]) == ["random", "racer"]
    played = result.frame.groupby("pairing").size()
    for row in table.itertuples():
        assert row.decision in ("H0", "H1")
        assert played[row.pairing] == 2 * row.deals < 2 * 100  # stopped early, both seatings of each deal
    # heuristic beats random by far more than 0.3 points a game: H1, in the first look or two
    assert table.iloc[0].decision == "H1"
    assert any(line.startswith("sprt heuristic vs random: ") and "accepts H1" in line for line in lines)
    summary = (result.folder / "summary.md").read_text()
    assert "## Sequential tests" in summary and "95% after stopping" in summary
    csv = pd.read_csv(result.folder / "summary.csv")
    assert len(csv[csv["section"] == "sprt"]) == 2


# --- the command ------------------------------------------------------------------------------

TEST = ["sprt", "heuristic", "racer", "--delta0", "0", "--delta1", "0.4", "--chunk", "5", "--games", "200",
        "--seed", "3", "--no-progress"]


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """An uninterrupted ``bgsim sprt``: what an interrupted and resumed one must equal."""
    out = tmp_path_factory.mktemp("sprt") / "whole"
    assert cli.main([*TEST, "--out", str(out), "--json"]) == 0
    return out


def test_sprt_decides_and_says_it_with_the_deals_and_both_intervals(whole, capsys):
    run = json.loads((whole / "run.json").read_text())
    assert run["status"] == "finished" and run["config"]["sprt"]["delta1"] == 0.4
    rows = pd.read_parquet(whole / "games.parquet")
    assert len(rows) % 10 == 0 and len(rows) < 400  # whole batches of 5 deals, both seatings: stopped early
    capsys.readouterr()
    assert cli.main([*TEST, "--out", str(whole), "--resume"]) == 0  # finished: says so, shows the result
    out = capsys.readouterr().out
    assert out.startswith("H1 accepted: heuristic gains at least +0.400 points per game against racer")
    assert "valid after stopping" in out and "biased after optional stopping" in out


def test_sprt_stopped_by_ctrl_c_resumes_to_the_same_decision(whole, tmp_path, monkeypatch, capsys):
    out = tmp_path / "cut"
    monkeypatch.setenv("BGSIM_STOP_AFTER", "2")  # SIGINT right after the second batch is on disk
    assert cli.main([*TEST, "--out", str(out)]) == 130
    err = capsys.readouterr().err
    assert "2 finished chunks are kept" in err and "--resume" in err
    assert "sprt heuristic vs racer: 5 deals, LLR" in err  # the test's line after its first batch
    monkeypatch.delenv("BGSIM_STOP_AFTER")
    assert cli.main([*TEST, "--out", str(out), "--resume", "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    expected = pd.read_csv(whole / "summary.csv")
    expected = expected[expected["section"] == "sprt"].iloc[0]
    assert resumed["deals"] == expected["deals"] and resumed["decision"] == expected["decision"]
    assert resumed["llr"] == pytest.approx(expected["llr"], rel=1e-5)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "games.parquet"), pd.read_parquet(whole / "games.parquet"))


class _Seat:
    """A player only the reference engine can seat, as an external engine's is: plain Python
    methods, no fast kernels; it counts the plays it is asked for."""

    def __init__(self, name, inner):
        self.name, self.inner, self.plays = name, inner, 0

    def choose_play(self, position, roll, plays, random):
        self.plays += 1
        return self.inner.choose_play(position, roll, plays, random)

    def offer_double(self, position, cube):
        return self.inner.offer_double(position, cube)

    def respond_to_double(self, position, cube):
        return self.inner.respond_to_double(position, cube)


def test_sprt_takes_any_spec_its_player_factory_accepts_and_plays_it_in_the_reference_engine(tmp_path):
    # the candidate is a spec bots.make_player refuses; the factory given (as a command that seats
    # external engines passes its own) builds it, checks it before the run, and the reference
    # engine plays it (auto: no fast kernels); from Python, as the command runs it
    from bots import SpecError, make_player
    from experiments.studies.sprt import run_sprt

    with pytest.raises(SpecError):
        make_player("outside:strong")
    seats = {}

    def factory(spec):
        if spec.startswith("outside:"):
            return seats.setdefault(spec, _Seat(spec, make_player("heuristic")))
        return make_player(spec)

    result = run_sprt("outside:strong", "random", 0.0, 0.5, batch=3, games=30, out=tmp_path / "outside",
                      progress=False, log=lambda text: None, make_player=factory)
    assert result.decision == "H1" and result.row["player"] == "outside:strong" and result.deals <= 30
    assert result.anytime[0] < result.naive[0] < result.estimate < result.naive[1] < result.anytime[1]
    assert seats["outside:strong"].plays > 0
    assert json.loads((tmp_path / "outside" / "run.json").read_text())["engines_used"] == ["reference"]


@pytest.mark.parametrize("words, message", [
    (["--delta0", "0.1", "--delta1", "0.05"], "--delta1 (0.05) must be greater than --delta0 (0.1)"),
    (["--delta0", "0", "--delta1", "0.1", "--alpha", "0.6"], "--alpha must be between 0 and 0.5"),
    (["--delta0", "0", "--delta1", "0.1", "--beta", "0"], "--beta must be between 0 and 0.5"),
    (["--delta0", "0", "--delta1", "0.1", "--floor", "-1"], "--floor must be between 0 and 1"),
])
def test_sprt_bad_input_is_one_line_and_exit_2(words, message, tmp_path, capsys):
    out = tmp_path / "bad"
    assert cli.main(["sprt", "heuristic", "racer", *words, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not out.exists()


def test_sprt_of_a_player_against_itself_is_refused(tmp_path, capsys):
    assert cli.main(["sprt", "racer", "racer(hit=2)", "--delta0", "0", "--delta1", "0.1",
                     "--out", str(tmp_path / "same")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "same player" in err


@pytest.mark.parametrize("name", ["ratings_checkers", "ratings_gnubg"])
def test_the_rating_lists_experiments_say_what_they_ask_and_validate(name):
    from experiments.running.config import SHIPPED, load_experiment

    path = SHIPPED / f"{name}.toml"
    assert path.read_text().startswith("# Question:")
    experiment = load_experiment(path)
    assert experiment.duplicate and experiment.games >= 300 and "pubeval" in experiment.everyone


def test_sprt_in_match_play_scores_a_pair_of_matches_0_1_or_2(tmp_path, capsys):
    code = cli.main(["sprt", "heuristic", "random", "--match-to", "3", "--delta0", "0", "--delta1", "0.2",
                     "--chunk", "5", "--games", "60", "--out", str(tmp_path / "m"), "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    assert out.startswith("H1 accepted: heuristic wins at least 70.0% of the matches against random")
    csv = pd.read_csv(tmp_path / "m" / "summary.csv")
    row = csv[csv["section"] == "sprt"].iloc[0]
    # the deal's value is the share of its two matches won: 0, 1/2 or 1
    rows = pd.read_parquet(tmp_path / "m" / "games.parquet")
    from experiments.running.chunks import stopping_units

    units = stopping_units(rows, "heuristic")
    assert set(np.unique(units)) <= {0.0, 0.5, 1.0} and len(units) == row["deals"]
    assert row["estimate"] == pytest.approx(units.mean() - 0.5)


# --- the validation study's mechanics (results/sprt/) -----------------------------------------


def test_a_test_on_shifted_deals_with_shifted_hypotheses_is_the_same_test():
    # the study runs every true gain from one pool by moving both hypotheses: this must hold
    # for each likelihood ratio, the floor included
    rng = np.random.default_rng(7)
    units = rng.choice([-2.0, -1.0, 0.0, 1.0, 3.0], size=3000, p=[0.1, 0.3, 0.2, 0.3, 0.1])
    for method in ("gsprt", "empirical", "normal"):
        here = run_test(Sprt(0.0, 0.1), units, 50, method=method)
        moved = run_test(Sprt(0.25, 0.35), units + 0.25, 50, method=method)
        assert (here.decision, here.deals) == (moved.decision, moved.deals)
        assert here.llr == pytest.approx(moved.llr, abs=1e-6)


def test_the_studys_tests_read_disjoint_consecutive_blocks_of_the_pool():
    from experiments.studies.sprt_validation import run_tests, wilson

    rng = np.random.default_rng(8)
    units = rng.choice([-1.0, 0.0, 1.0], size=20_000, p=[0.3, 0.4, 0.3])
    rows = run_tests(units, 0.0, 0.0, 0.2, most=50)
    starts = [row["start"] for row in rows]
    assert starts[0] == 0 and all(b == a + row["deals"] for a, b, row in zip(starts, starts[1:], rows))
    assert all(row["decision"] in ("H0", "H1") for row in rows)
    low, high = wilson(0, 40)
    assert low == 0.0 < high < 0.1 and wilson(40, 40)[1] == 1.0


def test_sprt_seats_an_external_engine_from_an_engines_file(tmp_path, capsys):
    # ubgi:NAME through --engines FILE, as every command that seats engines; the fake engine
    # answers at once (tests/fake_ubgi_engine.py)
    import sys
    from pathlib import Path

    fake = Path(__file__).with_name("fake_ubgi_engine.py")
    engines = tmp_path / "engines.toml"
    engines.write_text(f"[engines.fake]\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(fake))}, \"good\"]\n")
    out = tmp_path / "ubgi"
    assert cli.main(["sprt", "ubgi:fake", "heuristic", "--delta0", "-0.5", "--delta1", "0", "--chunk", "5",
                     "--games", "20", "--engines", str(engines), "--out", str(out), "--no-progress", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["player"] == "ubgi:fake" and row["decision"] == "H0" and row["deals"] <= 20
    run = json.loads((out / "run.json").read_text())
    assert run["engines_used"] == ["reference"] and run["engines"]["fake"]["id_name"] == "fake-good"
    assert cli.main(["sprt", "ubgi:nobody", "heuristic", "--delta0", "0", "--delta1", "0.1", "--engines", str(engines),
                     "--out", str(tmp_path / "nobody")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no engine named 'nobody'" in err
