"""``bgsim ratings``: rating lists recovered from constructed runs with known answers, the
likelihood of superiority, the flag on results that are not transitive, the Elo and FIBS
scales of match play, and bad input (an anchor not in the runs, runs under different rules)."""

from __future__ import annotations

import itertools
import json
import math
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

from experiments import cli
from experiments.analysis.ratings import chi2_sf, fit_points, rate, rate_runs
from experiments.running.config import experiment_from_mapping

TRUE = {"pubeval": 0.0, "nn": 0.55, "heuristic": -0.45, "racer": -0.9, "ubgi:gnubg-program(plies=0)": 0.65}
Z = 1.959963984540054


def pairing_rows(truth: dict, half: float = 0.02, rng=None, skip=(), games: int = 4000) -> pd.DataFrame:
    """summary.csv's pairing rows for a round robin whose means are the true differences (plus
    noise of the stated 95% half-width where ``rng`` is given)."""
    rows = []
    for k, (a, b) in enumerate(itertools.combinations(truth, 2)):
        if (a, b) in skip:
            continue
        noise = rng.normal(0.0, half / Z) if rng is not None else 0.0
        rows.append({"section": "pairing", "condition": "standard", "player": a, "opponent": b, "pairing": k,
                     "games": games, "ppg": truth[a] - truth[b] + noise, "ppg_ci": half})
    return pd.DataFrame(rows)


def write_run(folder, rows: pd.DataFrame, match_to: int = 0, rules: dict | None = None, players=None):
    """A finished run folder as bgsim leaves it, without its rows: run.json and summary.csv."""
    players = players or list(dict.fromkeys([*rows["player"], *rows["opponent"]]))
    table = {"players": players, "games": 10, "match_to": match_to, "rules": rules or {}}
    experiment = experiment_from_mapping(table, "constructed", "constructed", make_player=False)
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"status": "finished", "config": experiment.to_dict()}))
    rows.to_csv(folder / "summary.csv", index=False)
    return folder


def test_ratings_of_exact_differences_are_those_differences():
    ratings = rate(pairing_rows(TRUE).assign(run="x"), anchor="pubeval")
    got = dict(zip(ratings.table["player"], ratings.table["rating"]))
    for player, value in TRUE.items():
        assert got[player] == pytest.approx(value, abs=1e-9)
    assert list(ratings.table["player"]) == sorted(TRUE, key=TRUE.get, reverse=True)
    assert ratings.chi2 == pytest.approx(0.0, abs=1e-9) and ratings.tau == 0.0
    assert not ratings.flagged.size


def test_ratings_from_noisy_pairings_cover_the_truth_at_about_95_percent():
    rng = np.random.default_rng(7)
    covered, total = 0, 0
    for _ in range(150):
        fit = fit_points(pairing_rows(TRUE, 0.05, rng).assign(run="x"), anchor="pubeval")
        half = Z * np.sqrt(np.diag(fit["covariance"]))
        for player, rating, width in zip(fit["players"], fit["ratings"], half):
            if player != "pubeval":
                covered += abs(rating - TRUE[player]) <= width
                total += 1
    assert 0.92 < covered / total < 0.98  # 600 intervals: 95% within its binomial noise


def test_without_an_anchor_the_ratings_average_zero_and_keep_their_differences():
    ratings = rate(pairing_rows(TRUE).assign(run="x"))
    got = dict(zip(ratings.table["player"], ratings.table["rating"]))
    assert sum(got.values()) == pytest.approx(0.0, abs=1e-9)
    assert got["nn"] - got["racer"] == pytest.approx(TRUE["nn"] - TRUE["racer"])


def test_a_player_met_only_through_others_is_placed_by_them_with_a_wider_interval():
    rows = pairing_rows(TRUE, skip={("pubeval", "racer"), ("nn", "racer"), ("racer", "ubgi:gnubg-program(plies=0)")})
    ratings = rate(rows.assign(run="x"), anchor="pubeval")
    racer = ratings.table.set_index("player").loc["racer"]
    nn = ratings.table.set_index("player").loc["nn"]
    assert racer.rating == pytest.approx(TRUE["racer"]) and racer.opponents == 1
    assert racer.half > nn.half


def test_likelihood_of_superiority_is_a_probability_each_way():
    ratings = rate(pairing_rows(TRUE, 0.3).assign(run="x"), anchor="pubeval")
    sup = ratings.superiority
    for a, b in itertools.permutations(sup.index, 2):
        assert sup.loc[a, b] + sup.loc[b, a] == pytest.approx(1.0)
    assert sup.loc["nn", "racer"] > 0.999  # 1.45 points a game apart, each pairing +-0.3
    # a full round robin of P players, every pairing of variance s**2: var(r_a - r_b) = 2 s**2 / P
    se = math.sqrt(2 * (0.3 / Z) ** 2 / len(TRUE))
    engine = "ubgi:gnubg-program(plies=0)"
    assert sup.loc[engine, "nn"] == pytest.approx(NormalDist().cdf(0.1 / se))  # = 0.85: not told apart


def test_a_cycle_is_flagged_as_not_transitive_and_widens_the_intervals():
    rows = pairing_rows(TRUE)
    rock = (rows["player"] == "heuristic") & (rows["opponent"] == "racer")
    rows.loc[rock, "ppg"] = -0.5  # heuristic loses to racer, though it beats everyone racer loses to
    ratings = rate(rows.assign(run="x"), anchor="pubeval")
    flagged = ratings.flagged
    assert len(flagged) >= 1
    assert ("heuristic", "racer") in set(zip(flagged["player"], flagged["opponent"]))
    assert ratings.p_fit < 0.05 and ratings.tau > 0
    assert "Not transitive" in ratings.markdown


def test_match_play_gives_elo_from_matches_won_beside_the_fibs_reading():
    """Match shares made from known Elo ratings are recovered; the FIBS rating difference at N
    points is 5 Elo / sqrt(N): the same odds read with FIBS's formula."""
    elo = {"pubeval": 0.0, "nn": 150.0, "heuristic": -100.0, "racer": -250.0}
    rows = pairing_rows({p: 0.01 * v for p, v in elo.items()})
    share = [1 / (1 + 10 ** (-(elo[a] - elo[b]) / 400)) for a, b in zip(rows["player"], rows["opponent"])]
    rows["match_wins"], rows["matches"] = share, 20000
    rows["match_wins_ci"] = [Z * math.sqrt(p * (1 - p) / 20000) for p in share]
    ratings = rate(rows.assign(run="x"), anchor="pubeval", match_to=7)
    table = ratings.table.set_index("player")
    for player, value in elo.items():
        assert table.loc[player, "elo"] == pytest.approx(value, abs=1e-6)
        fibs = table.loc[player, "fibs"]
        # FIBS: P(win an N-point match) = 1 / (1 + 10 ** (-D sqrt(N) / 2000))
        assert 1 / (1 + 10 ** (-fibs * math.sqrt(7) / 2000)) == pytest.approx(table.loc[player, "wins_vs_anchor"])
    assert table.loc["nn", "elo_low"] < 150 < table.loc["nn", "elo_high"]
    assert "FIBS rating at 7 points" in ratings.markdown


def test_chi_squared_tail_matches_known_values():
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, rel=1e-6)
    assert chi2_sf(18.307038053275146, 10) == pytest.approx(0.05, rel=1e-6)
    assert chi2_sf(124.34211340400407, 100) == pytest.approx(0.05, rel=1e-5)


def test_ratings_read_run_folders_of_any_players_external_engines_too(tmp_path, capsys):
    """Two runs, one of an external engine (its name as its runs record it), linked by a player
    they share: one list, anchored, written as files and printed."""
    rows = pairing_rows(TRUE)
    engine = "ubgi:gnubg-program(plies=0)"
    internal = rows[(rows["player"] != engine) & (rows["opponent"] != engine)]
    external = rows[(rows["player"] == engine) | (rows["opponent"] == engine)]
    first = write_run(tmp_path / "checkers", internal)
    second = write_run(tmp_path / "engines", external)
    out = tmp_path / "ratings"
    assert cli.main(["ratings", str(first), str(second), "--anchor", "pubeval", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert engine in printed and "anchored at `pubeval`" in printed
    table = pd.read_csv(out / "ratings.csv")
    assert table.set_index("player").loc[engine, "rating"] == pytest.approx(TRUE[engine])
    assert {"summary.md", "ratings.csv", "superiority.csv", "ratings.png", "run.json"} <= {p.name for p in out.iterdir()}
    assert json.loads((out / "run.json").read_text())["anchor"] == "pubeval"
    assert cli.main(["ratings", str(first), "--out", str(out)]) == 2  # written files are not overwritten
    assert "--force" in capsys.readouterr().err
    ratings = rate_runs([first, second], anchor="pubeval")  # from Python, the same list
    assert list(ratings.table["player"]) == list(table["player"])


@pytest.mark.parametrize("case, message", [
    ("anchor", "--anchor 'gnubg' is not a player of these runs"),
    ("rules", "were played under different rules (jacoby False against True)"),
    ("length", "were played under different rules (match length money against 7)"),
    ("apart", "groups that never met"),
    ("missing", "no such run folder"),
])
def test_ratings_bad_input_is_one_line_and_exit_2(case, message, tmp_path, capsys):
    rows = pairing_rows(TRUE)
    first = write_run(tmp_path / "a", rows)
    runs, extra = [str(first)], []
    if case == "anchor":
        extra = ["--anchor", "gnubg"]
    elif case == "rules":
        runs.append(str(write_run(tmp_path / "b", rows, rules={"jacoby": True})))
    elif case == "length":
        runs.append(str(write_run(tmp_path / "b", rows.assign(matches=10, match_wins=0.5, match_wins_ci=0.3),
                                  match_to=7)))
    elif case == "apart":
        runs.append(str(write_run(tmp_path / "b", pd.DataFrame([{
            "section": "pairing", "condition": "standard", "player": "x", "opponent": "y", "pairing": 0,
            "games": 100, "ppg": 0.1, "ppg_ci": 0.1}]))))
    else:
        runs.append(str(tmp_path / "nowhere"))
    assert cli.main(["ratings", *runs, *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_ratings_refuse_a_run_of_several_conditions_without_one_chosen(tmp_path, capsys):
    rows = pd.concat([pairing_rows(TRUE), pairing_rows(TRUE).assign(condition="jacoby")])
    table = {"players": list(TRUE), "games": 10, "conditions": {"standard": {}, "jacoby": {"jacoby": True}}}
    experiment = experiment_from_mapping(table, "constructed", "constructed", make_player=False)
    folder = tmp_path / "two"
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps({"status": "finished", "config": experiment.to_dict()}))
    rows.to_csv(folder / "summary.csv", index=False)
    assert cli.main(["ratings", str(folder)]) == 2
    assert "choose one with --condition" in capsys.readouterr().err
    assert cli.main(["ratings", str(folder), "--condition", "jacoby", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rules"]["jacoby"] is True and len(out["ratings"]) == len(TRUE)


def test_pairings_that_spread_beyond_their_errors_give_tau_and_no_pairing_outweighs_the_rest():
    """Eight players, every pairing off its two ratings by a draw of spread 0.1 and measured to
    0.01: the spread is found (DerSimonian-Laird), and the ratings' intervals cover the truth as
    often as a fit that knew it."""
    rng = np.random.default_rng(11)
    truth = {f"p{k}": 0.2 * k for k in range(8)}
    taus, covered, total = [], 0, 0
    for _ in range(40):
        rows = pairing_rows(truth, half=0.01 * Z, rng=rng)
        rows["ppg"] += rng.normal(0.0, 0.1, len(rows))
        ratings = rate(rows.assign(run="x"), anchor="p0")
        taus.append(ratings.tau)
        for row in ratings.table.itertuples():
            if row.player != "p0":
                covered += row.low <= truth[row.player] <= row.high
                total += 1
    assert 0.08 < np.mean(taus) < 0.12
    assert covered / total > 0.9  # without tau the intervals (0.01 a pairing) would cover a third of them
