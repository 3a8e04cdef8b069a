"""Hypergammon solved: the solution against hand-worked positions, its own recursion, GNU
Backgammon's makehyper, and the uses that read it (eval, exact in both engines, the audit,
rollouts).  Only 1- and 2-checker solutions are built (seconds, and half a minute of CPU, once a
machine in the user's cache folder as every use builds them); never the 3-checker one (half an hour)."""

from __future__ import annotations

import json
import random
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from bgsim import Position
from bgsim.cube import Rules, TurnCube
from bgsim.hypergammon import database, evaluate, number_of, reference, sides, state_of, values_of

CHECKERS = (1, 2)


@pytest.fixture(scope="module")
def solved():
    """The 1- and 2-checker solutions, from the user's cache folder as every use reads them (built
    there once a machine: seconds, and about 30 CPU-seconds; current while the kernels are)."""
    return {checkers: database.solution(checkers) for checkers in CHECKERS}


def hyper(board_points: dict[int, int], variant: str) -> Position:
    """A hypergammon position from {slot: count} (negative: the opponent's)."""
    board = [0] * 26
    for slot, count in board_points.items():
        board[slot] = count
    return Position(tuple(board), variant)


def test_positions_are_numbered_as_gnu_backgammon_numbers_them():
    from bgsim.fast import hypergammon as kernels

    for checkers in (1, 2, 3):
        counts, keys = kernels.side_positions(checkers, kernels.BINOMIALS)
        assert len(counts) == kernels.position_count(checkers) == {1: 26, 2: 351, 3: 3276}[checkers]
        assert not counts[0].any()  # number 0: every checker off
        for number in random.Random(checkers).sample(range(len(counts)), min(len(counts), 300)):
            as_list = [int(count) for count in counts[number]]
            assert number_of(as_list, checkers) == number == kernels.rank(counts[number].astype(np.int64),
                                                                          checkers, kernels.BINOMIALS)
        # a database of k checkers is the first C(25 + k, k) numbers of a larger one
        smaller = kernels.side_positions(checkers - 1, kernels.BINOMIALS)[0] if checkers > 1 else counts[:1]
        assert (counts[:len(smaller)] == smaller).all()


@lru_cache(maxsize=None)
def race(own: int, theirs: int) -> tuple[float, ...]:
    """One checker each, no contact, ``own`` pips to go for the side on roll and ``theirs`` for
    the opponent: (win, win gammon, win backgammon, lose gammon, lose backgammon) by direct
    recursion.  A lone checker moves its whole roll (four times a double's die) and is off once
    that reaches its pips; every win is a gammon (the loser has borne off nothing) and a
    backgammon when the loser's checker is still in the winner's home board (19 pips or more)."""
    total = [0.0] * 5
    for first in range(1, 7):
        for second in range(1, 7):
            move = 4 * first if first == second else first + second
            if move >= own:
                outcome = (1.0, 1.0, float(theirs >= 19), 0.0, 0.0)
            else:
                win, wg, wb, lg, lb = race(theirs, own - move)
                outcome = (1.0 - win, lg, lb, wg, wb)
            total = [t + o for t, o in zip(total, outcome)]
    return tuple(t / 36.0 for t in total)


def test_a_file_s_values_are_named_in_the_kernels_order():
    """The solution is read without the kernels (``bgsim/hypergammon/building.py``): the names
    and places it reads the values by are the kernels' own."""
    import bgsim.hypergammon as plain
    from bgsim.fast import hypergammon as kernels

    assert database.VALUES == kernels.VALUES and database.NVALUES == kernels.NVALUES
    assert (plain.CENTRED, plain.OWNED, plain.OPPONENT, plain.JACOBY) == (
        kernels.CENTRED, kernels.OWNED, kernels.OPPONENT, kernels.JACOBY)
    side = kernels.position_count(2)
    assert database.Solution(2, np.zeros((side * side, 9)), {}).positions == side


@pytest.mark.parametrize("own, theirs", [(1, 1), (3, 5), (6, 4), (8, 2), (2, 20), (5, 19), (12, 9)])
def test_one_checker_races_match_a_direct_recursion(solved, own, theirs):
    position = hyper({own: 1, 25 - theirs: -1}, "hypergammon1")
    assert position.is_race
    found = evaluate(position)
    assert found.probabilities == pytest.approx(race(own, theirs), abs=2e-7)
    # a race has no cube in the other side's hands to fear: owning the cube is worth no less
    assert found.cubeful.no_double_owned >= found.cubeful.no_double - 1e-7


def test_one_checker_hypergammon_solved_from_the_rulebook_alone(solved):
    """Optimal play of 1-checker hypergammon by plain iteration over the moves of
    ``test_hypergammon_chain`` (written from the rulebook, not from bgsim's move generator): the
    cubeless chances of the play with the best cubeless equity and the four cube states'
    equities, every state against the solution."""
    import test_hypergammon_chain as chain

    follows = {}
    for mine in range(1, 26):
        for theirs in range(1, 26):
            other = 0 if theirs == chain.BAR else 25 - theirs
            if mine != other:
                follows[(mine, theirs)] = [(chance, [("won", 3.0 if at_theirs <= 6 else 2.0) if at == chain.OFF
                                                     else (chain.BAR if at_theirs == 0 else 25 - at_theirs, at)
                                                     for at, at_theirs in sorted(chain.results(mine, other, roll))])
                                           for roll, chance in chain.rolls()]
    values = {state: reference.ZERO for state in follows}
    for _ in range(200):
        new = {}
        for state, rolls in follows.items():
            total = [0.0] * 9
            for chance, options in rolls:
                found = [reference.Values(1.0, 1.0, float(then[1] == 3.0), 0.0, 0.0, then[1], then[1], then[1], 1.0)
                         if then[0] == "won" else reference.turned(values[then]) for then in options]
                chances = max(found, key=reference.cubeless_equity)
                best = list(chances[:5]) + [max(option[k] for option in found) for k in range(5, 9)]
                total = [t + chance * b for t, b in zip(total, best)]
            new[state] = reference.Values(*total)
        change = max(abs(a - b) for state in follows for a, b in zip(new[state], values[state]))
        values = new
        if change < 1e-12:
            break
    for (mine, theirs), mine_values in values.items():
        position = hyper({mine: 1, (0 if theirs == chain.BAR else 25 - theirs): -1}, "hypergammon1")
        stored = reference.Values(*values_of(position))
        assert mine_values[5:] == pytest.approx(stored[5:], abs=3e-7), position.position_string
        assert reference.cubeless_equity(mine_values) == pytest.approx(reference.cubeless_equity(stored), abs=3e-7)


def _check_step(position: Position) -> None:
    """One step of the reference recursion on the stored values gives the stored values back
    (within their float32 rounding), the chances wherever the best cubeless play is clear."""
    def value_of(p: Position):
        return reference.Values(*values_of(p))

    step = reference.step(position, value_of)
    stored = reference.Values(*values_of(position))
    assert step[5:] == pytest.approx(stored[5:], abs=2e-6)
    assert reference.cubeless_equity(step) == pytest.approx(reference.cubeless_equity(stored), abs=2e-6)


def test_the_solution_is_a_fixed_point_of_the_reference_recursion(solved):
    for position in reference.positions(1):  # every state of 1-checker hypergammon
        _check_step(position)
    states = reference.positions(2)
    for position in random.Random(2).sample(states, 60):
        _check_step(position)
        _check_step(position.turned())  # and its mirror, the other side on roll


def test_the_reference_solver_agrees_with_the_kernels_where_the_chances_are_unique(solved):
    """1-checker hypergammon solved again in plain Python (legal_plays, no Numba)."""
    values = reference.solve(1, threshold=1e-10)
    worst = 0.0
    for position, mine in values.items():
        worst = max(worst, max(abs(a - b) for a, b in zip(mine, values_of(position))))
    assert worst < 3e-7  # the stored float32 rounding


@pytest.mark.parametrize("checkers", CHECKERS)
def test_chances_and_equities_are_bounded_and_ordered(solved, checkers):
    found = database.positions(checkers)
    states = np.concatenate([found.races, found.contact])
    values = solved[checkers].values[states].astype(np.float64)
    win, wg, wb, lg, lb, centred, owned, theirs, jacoby = values.T
    eps = 1e-6
    assert (win >= -eps).all() and (win <= 1 + eps).all()
    assert (wb <= wg + eps).all() and (wg <= win + eps).all()
    assert (lb <= lg + eps).all() and (lg <= 1 - win + eps).all()
    for equity in (centred, owned, theirs, jacoby):
        assert (np.abs(equity) <= 3 + eps).all()
    # money play: the cube in one's own hands is worth no less than centred, centred no less than
    # the opponent's (each before the cube decision; the no-double values)
    assert (owned >= centred - eps).all()
    assert (centred >= theirs - eps).all()
    if checkers == 1:  # every win is a gammon: the loser has borne off nothing
        assert np.allclose(wg, win, atol=eps)


def test_a_build_stopped_after_a_sweep_goes_on_from_it(tmp_path, monkeypatch, capsys):
    from experiments import cli

    monkeypatch.setenv("BGSIM_CACHE", str(tmp_path / "stopped"))
    monkeypatch.setenv("BGSIM_STOP_AFTER", "3")
    assert cli.main(["bearoff", "build", "--variant", "hypergammon1", "--no-progress"]) == 130
    assert "kept in" in capsys.readouterr().err
    assert database.partial_path(tmp_path / "stopped", 1).exists()
    monkeypatch.delenv("BGSIM_STOP_AFTER")
    assert cli.main(["bearoff", "build", "--variant", "hypergammon1", "--no-progress", "--json"]) == 0
    captured = capsys.readouterr()
    assert "going on from its last sweep" in captured.err
    resumed = json.loads(captured.out)
    whole = database.build(1, folder=tmp_path / "whole")
    assert resumed["sweeps"] == whole.header["sweeps"]
    kept = database.solution(1, tmp_path / "stopped")
    assert np.array_equal(kept.values, whole.values)  # a stop changes nothing in the result
    assert not database.partial_path(tmp_path / "stopped", 1).exists()


def test_one_checker_solution_matches_gnu_backgammon_s_makehyper(gnubg, solved):
    from experiments.studies.hypergammon import compare_with_gnubg

    summary = compare_with_gnubg(1, sample=40, log=lambda text: None)
    assert summary["agrees"] and summary["fixed_point"]["fixed_point"]
    assert json.loads(json.dumps(summary)) == summary  # what bgsim bearoff check --json prints
    for name in ("bgsim", "bgsim_gnubg_convention"):  # one checker is never shut out
        entry = summary[name]
        assert entry["equities_agree"] == entry["states"] == 601
        assert entry["largest_equity_difference"] < 2e-6
        assert entry["other_chances_other_equity"] == 0


def test_bearoff_check_keeps_the_sample_of_gnu_backgammon_s_values_it_checked(gnubg, solved, tmp_path, capsys):
    """`bgsim bearoff check --variant hypergammonN --keep-sample FILE` saves the states it checked
    with makehyper's values there and one roll on (how tests/data/hypergammon was made); the saved
    sample checks again without makehyper, and a FILE that exists is refused before makehyper runs."""
    from experiments import cli
    from experiments.studies.hypergammon import check_sample

    kept = tmp_path / "gnubg1_sample.npz"
    assert cli.main(["bearoff", "check", "--variant", "hypergammon1", "--positions", "12",
                     "--keep-sample", str(kept)]) == 0
    sample = dict(np.load(kept))
    assert int(sample["checkers"][0]) == 1 and len(sample["states"]) == 12
    assert set(sample["states"]) <= set(sample["known"])
    assert check_sample(sample)["fixed_point"]
    assert not list(tmp_path.glob("*.partial*")) and not list(tmp_path.glob(".*.tmp"))  # written whole
    capsys.readouterr()
    before = kept.read_bytes()
    assert cli.main(["bearoff", "check", "--variant", "hypergammon1", "--keep-sample", str(kept)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"bgsim: error: --keep-sample {kept}: exists"
    assert kept.read_bytes() == before


def test_one_step_of_makehyper_from_bgsim_s_solution_moves_only_tied_chances(gnubg, solved, tmp_path):
    """How 3 checkers are checked (makehyper's own build takes hours): one iteration of makehyper's
    recursion from bgsim's solution (its file format, bgsim's values under its convention).  From
    bgsim's 2-checker solution no equity moves by more than the files' rounding, and the chances
    only where two plays tie; a start with one value moved by 0.01 moves back by about as much."""
    from bgsim.fast.hypergammon import CENTRED
    from experiments.studies.hypergammon import compare_with_gnubg, gnubg_step, read_gnubg, write_gnubg

    summary = compare_with_gnubg(2, sample=20, log=lambda text: None, makehyper_start="bgsim")
    assert summary["agrees"] and summary["makehyper"]["iterations"] == 1
    entry = summary["bgsim_gnubg_convention"]
    assert entry["equities_agree"] == entry["states"] and entry["largest_equity_difference"] < 2e-6
    assert entry["other_chances_other_equity"] == 0 and entry["other_chances_same_equity"] > 0  # ties

    convention = database.solution(2, gnubg_dance=True)
    found = database.positions(2)
    moved = convention.values.copy()
    state = found.contact[len(found.contact) // 2]
    moved[state, CENTRED] += 0.01
    step = gnubg_step(2, tmp_path, write_gnubg(tmp_path / "moved.bd", 2, moved))
    centred = read_gnubg(Path(step["file"]), 2)[1][state, 0]  # bgsim's order: centred first
    assert step["norm_of_delta"] > 9e-3
    assert abs(centred - convention.values[state, CENTRED]) < 1e-3


def test_gnu_backgammon_s_convention_skips_the_opponent_s_cube_after_a_dance():
    """A checker on the bar against a made point: 6-6 cannot enter.  The true step values that
    roll from the opponent's cube action, GNU Backgammon's from its stored values as they are."""
    from bgsim.fast import hypergammon as kernels
    from bgsim.fast.moves import new_buffers

    found = database.positions(2)
    position = hyper({25: 1, 3: 1, 19: -2}, "hypergammon2")  # the opponent holds its 6-point (our 19)
    _, state = state_of(position)
    rng = np.random.default_rng(5)
    values = rng.uniform(-0.5, 0.5, size=(found.positions ** 2, kernels.NVALUES))
    values[:, :5] = rng.uniform(0.0, 0.3, size=(len(values), 5))
    back = number_of(sides(position)[1], 2) * found.positions + number_of(sides(position)[0], 2)
    values[back, kernels.OPPONENT] = 0.45  # the opponent would double at once: double/take 0.9
    values[back, kernels.CENTRED] = 0.2
    answers = {}
    for dance in (False, True):
        out = np.zeros(kernels.NVALUES)
        plays, keys, slots, table, order = new_buffers()
        kernels.state_values(state // found.positions, state % found.positions, values, found.counts, found.keys,
                             found.positions, 2, dance, out, np.zeros(32, dtype=np.int8), plays, keys, slots,
                             table, order)
        answers[dance] = out
    by_reference = reference.step(position, lambda p: reference.Values(*values[state_of(p)[1]]))
    assert answers[False] == pytest.approx(np.array(by_reference), abs=1e-12)
    # the 6-6 (1/36) is where they part: the opponent's 0.9 after doubling against its 0.2
    assert answers[True][kernels.CENTRED] - answers[False][kernels.CENTRED] == pytest.approx((0.9 - 0.2) / 36)
    assert answers[True][:5] == pytest.approx(answers[False][:5])


def test_a_sweep_reads_from_the_successor_table_the_plays_it_would_generate():
    """The build makes each state's plays once (the successor table, in pieces on threads) and
    every sweep reads them: a sweep over the table gives every state the values of one step that
    generates its plays now, and the table made in pieces is the table made in one."""
    from concurrent.futures import ThreadPoolExecutor

    from bgsim.fast import hypergammon as kernels
    from bgsim.fast.moves import new_buffers

    found = database.positions(2)
    rng = np.random.default_rng(11)
    values = rng.uniform(-0.5, 0.5, size=(found.positions ** 2, kernels.NVALUES))
    values[:, :5] = rng.uniform(0.0, 0.3, size=(len(values), 5))
    states = found.contact
    with ThreadPoolExecutor(2) as pool:
        table = database.successors(states, found, pool, threads=2)
        whole = database.successors(states, found, pool, threads=1)
    for name in ("starts", "roll_counts", "targets"):
        assert np.array_equal(getattr(table, name), getattr(whole, name)), name
    assert len(table.starts) == len(states) + 1 and table.starts[-1] == len(table.targets)
    swept = np.empty((len(states), kernels.NVALUES))
    out = np.zeros(kernels.NVALUES)
    plays, keys, slots, hashes, order = new_buffers()
    board = np.zeros(32, dtype=np.int8)
    for dance in (False, True):
        kernels.sweep_level(values, states, 0, len(states), 0, table.starts, table.roll_counts, table.targets,
                            found.positions, dance, swept)
        for i in rng.choice(len(states), 400, replace=False):
            state = states[i]
            kernels.state_values(state // found.positions, state % found.positions, values, found.counts,
                                 found.keys, found.positions, 2, dance, out, board, plays, keys, slots, hashes, order)
            assert np.array_equal(out, swept[i]), (dance, state)


def test_eval_answers_hypergammon_exactly_and_bad_input_in_one_line(solved, capsys):
    from experiments import cli

    start = Position.start("hypergammon2")
    assert cli.main(["eval", start.position_id, "--variant", "hypergammon2", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["source"] == "exact" and answer["variant"] == "hypergammon2"
    assert answer["win"] == pytest.approx(evaluate(start).probabilities[0])
    assert set(answer["cubeful"]) >= {"centred", "owned", "opponent", "jacoby"}
    for words, why in ((["eval", Position.start("hypergammon3").position_id, "--variant", "hypergammon2"],
                        "more than 2 (hypergammon2 has 2 a side)"),
                       (["eval", f"{start.position_id}:cAkAAAAAAAAA", "--variant", "hypergammon2"],
                        "money play"),
                       (["eval", start.position_id, "--variant", "dutch"], "hypergammon1, hypergammon2")):
        assert cli.main(words) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and why in err, err


def _cubes():
    """Every cube state the exact checker bot plays for: centred, owned, the opponent's, centred
    under the Jacoby rule, dead."""
    return (TurnCube(1, "centre", True, False), TurnCube(2, "own", True, False), TurnCube(2, "opponent", True, False),
            TurnCube(1, "centre", True, True), TurnCube(64, "own", False, False))


@pytest.mark.bot_rule("checker", "exact")
def test_exact_plays_the_best_play_for_the_cube_it_is_told(solved):
    """A 2-checker position and roll whose best play depends on who owns the cube."""
    from bgsim.rules import legal_plays
    from bots import make_checker
    from bots.exact import cube_state, play_value
    from bgsim.hypergammon import decision_table

    bot = make_checker("exact")
    table = decision_table(2)
    found = None
    for position in random.Random(4).sample(reference.positions(2), 3000):
        if position.is_race:
            continue
        plays = legal_plays(position, (6, 5))
        if len(plays) < 2:
            continue
        chosen = {}
        for cube in _cubes():
            values = [play_value(table, 2, play.result, cube_state(cube)) for play in plays]
            chosen[cube.code] = int(np.argmax(values))
        if len(set(chosen.values())) > 1:
            found = position, plays, chosen
            break
    assert found is not None
    position, plays, chosen = found
    for cube in _cubes():
        bot.see_cube(cube)
        assert bot.choose(position, (6, 5), plays, None) is plays[chosen[cube.code]]


@pytest.mark.parametrize("variant", ["hypergammon1", "hypergammon2"])
def test_both_engines_play_exact_identically_in_hypergammon(solved, variant):
    from bgsim import fast
    from bgsim.series import play_games_reference
    from bots import make_player

    doubles = 0
    for white, black, rules in (("exact+exact", "nn+pipdiff", Rules(variant=variant)),
                                ("exact+exact", "exact+exact", Rules(variant=variant, jacoby=True, beaver=True)),
                                ("pubeval+exact", "exact+nn", Rules(variant=variant, max_cube=4))):
        players = make_player(white), make_player(black)
        quick = fast.play_games(*players, 3, 30, rules, threads=1)
        slow = play_games_reference(*players, 3, 30, rules)
        assert quick.equals(slow), (white, black, rules)
        doubles += int(quick["doubles"].sum())
    assert doubles > 10  # the cube was turned, and answered, in these games


def test_cube_audit_judges_hypergammon_by_its_solution(solved):
    """The audit's judging of a block of positions and its threshold sweep, on hypergammon1's
    positions (the sampling games are the fast engine's, as in any audit)."""
    from experiments.studies import cube_audit_report as report
    from experiments.studies.cube_audit import Judging, judge_chunk, make_rules

    positions = random.Random(7).sample(reference.positions(1), 24)
    chunk = [(position.position_string, number // 3) for number, position in enumerate(positions)]
    judging = Judging("exact", None, "all", ("no jacoby", "jacoby"), 1, "hypergammon1")
    frame, truths = judge_chunk(chunk, 0, make_rules(["pipdiff", "exact", "always-take"]), judging)
    assert set(frame["kind"]) == {"contact", "race"}
    assert set(frame["judged_by"]) == {"hypergammon solution"} and set(frame["truth"]) == {"exact"}
    mine = frame[frame["rule"] == "exact"]
    assert (mine["error"] == "").all() and mine["equity_lost"].max() == 0.0  # the judge's own decisions
    assert frame[frame["rule"] == "pipdiff"]["equity_lost"].sum() > 0
    truth = truths[truths["condition"] == "jacoby"].iloc[0]
    found = evaluate(Position.from_string(truth["position_id"]))
    assert truth["no_double"] == pytest.approx(found.cubeful.no_double_jacoby)
    swept = report.sweep(truths, report.sweep_specs((8, 40), (12, 60)), log=lambda text: None)
    assert set(swept["kind"]) >= {"contact", "race"} and len(swept)
    specs = ["pipdiff", "exact", "always-take"]
    summary = report.judged_summary(frame, specs)
    text = report.markdown(frame, summary, specs, {"positions": 24, "source": "a test"}, judging, swept)
    assert text.startswith("# Cube-decision audit of hypergammon1, judged by its exact solution")


def test_the_janowski_estimate_is_charged_against_the_exact_equities(solved):
    from experiments.studies import hypergammon_estimates as estimates

    positions = random.Random(8).sample(reference.positions(1), 30)
    chunk = [(position.position_string, number // 2) for number, position in enumerate(positions)]
    frame = estimates.janowski_errors(chunk, lives=(0.0, 0.5, 0.68, 1.0))
    assert set(frame["chances"]) == {"nn", "exact chances"}
    exact = frame[(frame["chances"] == "exact chances") & (frame["life"] == 0.0)]
    # a dead cube's Janowski equity is the cubeless one; the exact chances' cubeless equity is exact
    row = exact.iloc[0]
    found = evaluate(Position.from_string(row["position_id"]))
    assert row["no_double"] == pytest.approx(found.equity, abs=1e-9)
    summary = estimates.summarise_janowski(frame)
    assert set(summary["kind"]) == {"contact", "race", "all"}
    life = estimates.best_life(frame, "all", "lost", resamples=20)
    assert life["best_life"] in (0.0, 0.5, 0.68, 1.0) and life["low"] <= life["high"]
    assert estimates.janowski_markdown(summary, __import__("pandas").DataFrame([life]))[0].startswith("## ")


def test_sampling_a_variant_s_games_gives_its_positions():
    from bots import make_player
    from experiments.studies.cube_charge import _game_positions

    player = make_player("exact+exact")  # a player of the reference engine there
    player.checker.fast_name = ""
    positions = _game_positions(player, 1, 0, "hypergammon1")
    assert positions and all(position.variant == "hypergammon1" for position in positions)
    assert positions[0] == Position.start("hypergammon1")


def test_a_rollout_of_perfect_play_estimates_the_exact_chances(solved):
    from bgsim.rollout import rollout
    from bots import make_player
    from bots.registry import BotPlayer

    position = hyper({8: 1, 25 - 20: -1}, "hypergammon1")  # in contact: each can hit the other
    assert not position.is_race
    found = rollout(position, BotPlayer(make_player("exact").checker), 720, seed=2, threads=1)
    exact = evaluate(position)
    assert abs(found.equity - exact.equity) < 4 * found.se["equity"]
    assert found.position_id == position.position_string


@pytest.mark.parametrize("checkers", [2, 3])
def test_gnu_backgammon_s_file_is_a_fixed_point_of_bgsim_s_recursion_under_its_convention(checkers):
    """A sample of makehyper's 2- and 3-checker files (its values at 150 states and at every state
    a roll leads to, tests/data/hypergammon, README there): one step of bgsim's reference
    recursion, with GNU Backgammon's convention for a roll without a play, from GNU Backgammon's
    own values gives them back, so its rules, plays and scores are bgsim's; with bgsim's own
    convention it does not."""
    from pathlib import Path

    from experiments.studies.hypergammon import check_sample

    sample = dict(np.load(Path(__file__).parent / "data" / "hypergammon" / f"gnubg{checkers}_sample.npz"))
    assert int(sample["checkers"][0]) == checkers
    found = check_sample(sample)
    assert found["fixed_point"] and found["states"] == 150, found
    assert found["largest_cubeful_residual"] < 2e-6
    assert not check_sample(sample, gnubg_dance=False)["fixed_point"]


def test_three_checkers_are_built_only_when_asked(tmp_path, monkeypatch, capsys):
    """A 3-checker solution takes half an hour: every use before `bgsim bearoff build --variant
    hypergammon3` is refused in one line, in both engines, in eval, in the audit (before it
    samples or writes anything) and in the check against makehyper, and nothing is built."""
    from bgsim import fast
    from bgsim.game import play_game
    from bots import make_player
    from experiments import cli

    monkeypatch.setenv("BGSIM_CACHE", str(tmp_path))
    rules = Rules(variant="hypergammon3")
    for spec in ("exact+exact", "nn+exact"):
        with pytest.raises(ValueError, match="hypergammon3's solution is not built yet: `bgsim bearoff build"):
            play_game(make_player(spec), make_player("racer"), 1, 0, rules)
        with pytest.raises(ValueError, match="hypergammon3's solution is not built yet"):
            fast.play_games(make_player(spec), make_player("racer"), 1, 2, rules)
    assert cli.main(["eval", Position.start("hypergammon3").position_id, "--variant", "hypergammon3"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not built yet" in err
    assert cli.main(["cube-audit", "--variant", "hypergammon3", "--positions", "4", "--no-progress",
                     "--out", str(tmp_path / "audit")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not built yet" in err
    assert not (tmp_path / "audit").exists()  # refused before sampling: nothing written

    def makehyper(*args):
        raise AssertionError("makehyper -c 3 ran for a check that cannot be made")

    monkeypatch.setattr("experiments.studies.hypergammon.make_gnubg", makehyper)
    monkeypatch.setattr("experiments.studies.hypergammon.gnubg_step", makehyper)
    assert cli.main(["bearoff", "check", "--variant", "hypergammon3"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not built yet" in err
    assert not list(tmp_path.glob("hypergammon3*"))
    for words, why in ((["--makehyper-start", "bgsim"], "--makehyper-start has no effect without --variant"),
                       (["--variant", "hypergammon2", "--makehyper-start", "zero", "--gnubg-file", "x.bd"],
                        "--makehyper-start says how makehyper makes its file: not with --gnubg-file")):
        assert cli.main(["bearoff", "check", *words]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and why in err, err
