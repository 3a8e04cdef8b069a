"""Rollouts: the stratified, mirrored design; agreement with the exact bear-off values, with
honest intervals over many seeds; truncation at the databases; Ctrl-C; the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgsim import Position
from bgsim.bearoff import evaluate
from bgsim.rollout import KEYS, design, estimate, rollout
from bots import make_player
from experiments.cli import main
from conftest import bearoff_position

TWO_SIDED = 5  # checkers a side in the two-sided table of these tests (built in about a second)


@pytest.fixture(scope="module")
def bearoff_player(tmp_path_factory):
    """A player whose bear-off play is the databases' (exact perfect play in the two-sided range)."""
    with pytest.MonkeyPatch.context() as patch:
        # the folder of test_bearoff.py and test_bearoff_player.py: the one-sided table, the
        # costly one, is built once per session (worker), whichever module comes first
        patch.setenv("BGSIM_CACHE", str(tmp_path_factory.getbasetemp() / "bearoff-cache"))
        patch.setenv("BGSIM_BEAROFF_CHECKERS", str(TWO_SIDED))
        yield make_player("racer(bearoff=true)")



# five checkers each, three to five rolls to bear off: much is left to chance after two rolls
CLOSE_RACE = bearoff_position((0, 1, 0, 1, 1, 2), (1, 0, 1, 1, 0, 2))


# --- the design --------------------------------------------------------------------------------


def test_every_first_roll_has_its_exact_share_and_every_two_roll_pair_once():
    numbers, mirror, rolls = design(seed=7, first=0, count=1296)
    first, second = rolls[:, 0], rolls[:, 1]
    for block in range(36):  # each block of 36 trials holds each first roll once
        assert sorted(first[36 * block:36 * block + 36]) == list(range(36))
    assert len(set(zip(first.tolist(), second.tolist()))) == 1296
    # pairs: one dice stream (game number), the second trial mirrored in every die
    assert (numbers[0::2] == numbers[1::2]).all() and (numbers[0::2] == np.arange(648)).all()
    assert not mirror[0::2].any() and mirror[1::2].all()
    assert (rolls[1::2] == 35 - rolls[0::2]).all()


def test_a_shorter_rollout_is_the_start_of_a_longer_one_and_seeds_differ():
    whole = design(3, 0, 2600)
    part = design(3, 1000, 600)
    for a, b in zip(whole, part):
        assert (a[1000:1600] == b).all()
    assert not (design(4, 0, 1296)[2] == whole[2][:1296]).all()
    # past 1,296 trials the next super-block starts again with every pair once
    assert len(set(map(tuple, whole[2][1296:2592].tolist()))) == 1296


def test_the_engine_plays_the_designed_first_rolls(bearoff_player):
    from bgsim.fast import play_trials
    from bgsim.fast.game import COL_PLIES
    from bgsim.fast import trace_game

    position = Position.start()
    numbers, mirror, rolls = design(5, 0, 6)
    dice = np.stack((rolls // 6 + 1, rolls % 6 + 1), axis=-1)
    player = make_player("heuristic")
    for k in range(6):
        _, trace = trace_game(player, player, 5, int(numbers[k]), start=position, rolls=dice[k],
                              mirror=bool(mirror[k]))
        assert [tuple(row[4:6]) for row in trace[:2]] == [tuple(d) for d in dice[k]]
    rows, _ = play_trials(player, 5, numbers, position, dice, mirror, False)
    assert (rows[:, COL_PLIES] >= 2).all()


def test_the_stratified_error_is_the_per_stratum_formula():
    rng = np.random.default_rng(1)
    classes = np.repeat(np.arange(18), 4)
    pairs = np.arange(72)
    values = rng.normal(size=(72, 1)) + classes[:, None]  # strata differ by their means only
    mean, se = estimate(values, classes, pairs)
    parts = [values[classes == h, 0] for h in range(18)]
    assert mean[0] == pytest.approx(np.mean([p.mean() for p in parts]))
    assert se[0] == pytest.approx(np.sqrt(sum(p.var(ddof=1) / 4 for p in parts)) / 18)
    # ignoring the strata would count their spread of means as noise: a far wider interval
    assert se[0] < 0.5 * values.std(ddof=1) / np.sqrt(72)


# --- against the exact values -----------------------------------------------------------------


def test_rollouts_of_database_positions_agree_with_the_exact_values(bearoff_player):
    positions = [CLOSE_RACE, bearoff_position((0, 0, 2, 1, 1, 1), (3, 0, 0, 1, 0, 0)),
                 bearoff_position((1, 1, 1, 1, 1, 0), (0, 0, 0, 0, 2, 3))]
    for position in positions:
        exact = evaluate(position)
        assert exact.source == "two-sided"
        result = rollout(position, bearoff_player, 1296, seed=11)
        assert result.games == 1296
        for key, value in zip(KEYS, exact.probabilities):
            assert abs(result.probabilities[key] - value) <= 3.5 * result.se[key] + 1e-12, (position, key)
        assert abs(result.equity - exact.equity) <= 3.5 * result.se["equity"]
        assert result.se["win"] > 0


def test_the_95_percent_intervals_cover_the_exact_value_as_often_as_they_claim(bearoff_player):
    exact = evaluate(CLOSE_RACE).probabilities[0]
    estimates, errors = [], []
    for seed in range(40):
        result = rollout(CLOSE_RACE, bearoff_player, 216, seed=seed)
        estimates.append(result.probabilities["win"])
        errors.append(result.se["win"])
    estimates, errors = np.array(estimates), np.array(errors)
    covered = int((np.abs(estimates - exact) <= 1.96 * errors).sum())
    # Binomial(40, 0.95): 34 or more with probability 99.7 %
    assert covered >= 34, covered
    # and not honest by being too wide: the claimed error matches the seeds' spread
    assert 0.7 <= errors.mean() / estimates.std(ddof=1) <= 1.45


def test_truncation_takes_the_exact_value_at_the_databases(bearoff_player):
    inside = rollout(CLOSE_RACE, bearoff_player, 72, seed=2, truncate=True)
    assert inside.probabilities["win"] == pytest.approx(evaluate(CLOSE_RACE).probabilities[0], abs=1e-12)
    assert inside.se["win"] == 0.0
    # a race still to bear in: played out, or stopped at the databases, the same answer
    race = _race()
    played = rollout(race, bearoff_player, 1296, seed=3)
    truncated = rollout(race, bearoff_player, 1296, seed=3, truncate=True)
    for key in ("win", "win_gammon", "lose_gammon"):
        both = np.hypot(played.se[key], truncated.se[key])
        assert abs(played.probabilities[key] - truncated.probabilities[key]) <= 4 * both + 1e-9, key
    assert truncated.se["win"] < played.se["win"]  # the exact tail adds no noise


def _race() -> Position:
    board = [0] * 26
    board[6], board[8], board[9], board[10] = 5, 4, 3, 3  # own: bearing in
    board[19], board[17], board[15], board[14] = -5, -4, -3, -3  # opponent: the same, mirrored
    return Position(tuple(board))


# --- stopping, errors, the command ------------------------------------------------------------


def test_should_stop_keeps_the_trials_done(bearoff_player):
    seen = []
    result = rollout(CLOSE_RACE, bearoff_player, 720, seed=1, batch=144,
                     on_batch=seen.append, should_stop=lambda: len(seen) == 2)
    assert seen == [144, 288]
    assert result.games == 288 and result.requested == 720 and result.interrupted
    full = rollout(CLOSE_RACE, bearoff_player, 288, seed=1, batch=144)
    assert full.probabilities == result.probabilities


def test_bad_rollouts_are_one_clear_error(bearoff_player):
    finished = Position(tuple([0] * 19 + [-3, 0, 0, 0, 0, 0, 0]))  # the side on roll is off
    with pytest.raises(ValueError, match="finished game"):
        rollout(finished, bearoff_player, 10)
    with pytest.raises(ValueError, match="whole number of games"):
        rollout(CLOSE_RACE, bearoff_player, 0)


def test_cli_json_and_ctrl_c(bearoff_player, monkeypatch, capsys):
    race_id = _race().position_id
    assert main(["rollout", race_id, "--games", "144", "--seed", "2", "--player", "heuristic",
                 "--json", "--no-progress", "--threads", "1"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert set(KEYS) | {"equity", "se", "games"} <= set(answer)
    assert set(answer["se"]) == set(KEYS) | {"equity"} and answer["games"] == 144
    # SIGINT after the first batch (144 trials a thread): the trials done are reported
    monkeypatch.setenv("BGSIM_STOP_AFTER", "1")
    assert main(["rollout", race_id, "--games", "1440", "--player", "heuristic", "--json",
                 "--no-progress", "--threads", "1"]) == 130  # interrupted, what was done reported
    captured = capsys.readouterr()
    assert json.loads(captured.out)["games"] == 144
    assert "interrupted: reporting the 144 of 1440 trials done" in captured.err


@pytest.mark.parametrize("position_id, message", [
    ("xyz", "malformed position ID"),
    (Position(tuple([0] * 19 + [-3, 0, 0, 0, 0, 0, 0])).position_id, "finished game"),
])
def test_cli_bad_ids_are_one_line_and_exit_2(position_id, message, capsys):
    assert main(["rollout", position_id, "--games", "10", "--player", "heuristic", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_bot_the_fast_engine_cannot_run_is_one_line(capsys):
    assert main(["rollout", Position.start().position_id, "--player", "gnubg", "--games", "10",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "rollouts run on the fast engine only" in err and len(err.strip().splitlines()) == 1
