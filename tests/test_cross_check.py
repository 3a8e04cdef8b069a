"""bgsim cross-check: the audit's charge per decision, played out against exact."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bgsim import bearoff
from bgsim.board import Position
from bgsim.cube import CENTRE, Cube
from bgsim.game import BLACK, WHITE, PlyRecord, other, play_game
from bgsim.rules import legal_plays
from bots import make_player
from bots.exact import cube_equities
from bots.registry import BotPlayer, make_checker
from conftest import one_error_line
from experiments import cli
from experiments.cli import main
from experiments.studies import cross_check, cube_audit

# the side on roll bears off 4 checkers against 3 far back: a double the opponent must pass
STRONG = Position.from_points({1: 2, 2: 1, 4: 1}, {25 - 6: 2, 25 - 5: 1})


def database_equities(position: Position) -> tuple[float, float, float]:
    """Centred, owned and double/take per unit of cube, read from the table itself."""
    own, other = (bearoff.position_number(counts) for counts in bearoff.home_counts(position))
    table = bearoff.two_sided(bearoff.default_two_sided_checkers())
    return (float(table.rolls_centred[own, other]), float(table.rolls_owned[own, other]),
            2.0 * float(table.opponent_owns[own, other]))


def ply(number: int, side: str, action: str = "") -> PlyRecord:
    return PlyRecord(number, side, STRONG.position_id, action, (1, 2), "", "")


def test_each_decision_costs_what_the_database_says_times_the_cube():
    centred, owned, double_take = database_equities(STRONG)
    assert double_take > 1.0 > owned >= centred  # double, and pass
    history = [
        ply(1, WHITE),                 # white may double the centred cube and does not: 1 - centred
        ply(2, BLACK, "double/take"),  # white takes a pass: double_take - 1, at a cube of 1
        ply(3, WHITE),                 # white owns the 2-cube and does not redouble: 2 x (1 - owned)
        ply(4, BLACK),                 # black may not double white's cube: no decision of white's
    ]
    judged = cross_check.judge_game(history, WHITE)
    assert judged.decisions == 3 and judged.errors == 3
    assert judged.lost == pytest.approx((1.0 - centred) + (double_take - 1.0) + 2 * (1.0 - owned))
    # black's decisions in the same game: it doubled right (and white's answers are not black's)
    assert cross_check.judge_game(history, BLACK) == cross_check.Judged(1, 0, 0.0)
    # the audit's own functions give the same charges
    truth = cube_audit.judge(STRONG.position_id, cube_audit.make_rules(["none"]))
    charged = {row["question"]: row["equity_lost"] for row in truth}
    assert charged["double"] == pytest.approx(1.0 - centred)
    assert charged["redouble"] == pytest.approx(1.0 - owned)
    assert charged["take"] == pytest.approx(double_take - 1.0)


def test_a_double_of_a_cube_the_side_may_not_turn_is_refused():
    history = [ply(1, WHITE, "double/take"), ply(2, BLACK), ply(3, WHITE, "double/take")]
    with pytest.raises(ValueError, match="may not turn"):
        cross_check.judge_game(history, WHITE)


def before_cube_action(position: Position, cube: Cube, side: str) -> float:
    """The database's value of ``side`` on roll before its cube action, in points."""
    truth = cube_equities(position)
    if cube.owner == side or cube.owner == CENTRE:
        return max(truth.no_double(cube.owner == CENTRE), min(truth.double_take, 1.0)) * cube.value
    return truth.double_take / 2 * cube.value


def changes(history, side: str) -> dict[str, float]:
    """Every change of white's database value in a game, by cause: each side's cube decisions
    (``side``'s as ``"rule"``), the dice (``"luck"``) and checker play short of the database's
    best (``"play"``), and the start's value and the result.  Written apart from
    ``judge_game``: the rule's changes must be minus its charge, exact's nothing."""
    cube = Cube()
    found = {"rule": 0.0, "exact": 0.0, "luck": 0.0, "play": 0.0}
    for ply in history:
        sign = 1 if ply.side == WHITE else -1
        position = Position.from_position_id(ply.position_id)
        truth = cube_equities(position)
        value = before_cube_action(position, cube, ply.side)
        found.setdefault("start", sign * value)
        doubler, taker = ("rule", "exact") if ply.side == side else ("exact", "rule")
        if cube.may_double(ply.side, cross_check.RULES):
            if ply.cube_action:
                doubled = min(truth.double_take, 1.0) * cube.value
                found[doubler] += sign * (doubled - value)
                answered = cube.value if ply.cube_action == "double/drop" else truth.double_take * cube.value
                found[taker] += sign * (answered - doubled)
                if ply.cube_action == "double/drop":
                    found["result"] = sign * cube.value
                    return found
                cube.take(other(ply.side))
                value = answered
            else:
                no_double = truth.no_double(cube.owner == CENTRE) * cube.value
                found[doubler] += sign * (no_double - value)
                value = no_double
        after = {}
        for play in legal_plays(position, ply.roll):
            result = play.result
            after[result.position_id] = (cube.value if result.checkers_off == 15 else
                                         -before_cube_action(result.turned(), cube, other(ply.side)))
        best = max(after.values(), default=-before_cube_action(position.turned(), cube, other(ply.side)))
        found["luck"] += sign * (best - value)
        found["play"] += sign * (after.get(ply.result_id, best) - best)
        if ply.result_id and Position.from_position_id(ply.result_id).checkers_off == 15:
            found["result"] = sign * cube.value
            return found
    raise AssertionError("the game did not end")


def test_every_point_of_a_game_is_accounted_for():
    # a game's result is its start's value plus the changes of each cause, ply by ply: the
    # rule's cube decisions change it by exactly minus judge_game's charge, exact's by nothing
    specs = ["none", "rule62", "kleinman"]
    rules = cube_audit.make_rules(specs)
    checker = make_checker(cross_check.CHECKER)
    exact = make_player(f"{cross_check.CHECKER}+exact")
    charged = 0.0
    for index, (position_id, _) in enumerate(cross_check.sample_starts(8, 9)):
        start = Position.from_position_id(position_id)
        for rule in rules:
            player = BotPlayer(checker, rule.bot)
            for side in (WHITE, BLACK):
                white, black = (player, exact) if side == WHITE else (exact, player)
                record = play_game(white, black, 9, index, cross_check.RULES, start=start, trace=True)
                found = changes(record.history, side)
                assert found["result"] == record.white_points
                causes = found["rule"] + found["exact"] + found["luck"] + found["play"]
                assert found["start"] + causes == pytest.approx(record.white_points, abs=1e-9)
                assert found["exact"] == pytest.approx(0.0, abs=1e-12)
                lost = cross_check.judge_game(record.history, side).lost
                assert (1 if side == WHITE else -1) * found["rule"] == pytest.approx(-lost, abs=1e-9)
                charged += lost
    assert charged > 1.0  # the rules erred, so the check had something to check


@pytest.fixture(scope="module")
def never_doubles():
    """The ``none`` cube (never doubles, takes everything) against exact from 160 starts."""
    starts = cross_check.sample_starts(160, 5)
    games = cross_check.play_starts(starts, 5, ["none", "exact"])
    return starts, games, cross_check.summarise(games, ["none", "exact"]).set_index("rule")


def test_the_starts_are_bear_offs_in_the_database_and_the_window(never_doubles):
    starts, _, _ = never_doubles
    assert len(starts) == 160 and len({game for _, game in starts}) == 160  # one start a game
    for position_id, _ in starts[:40]:
        position = Position.from_position_id(position_id)
        assert cross_check.covered(position)
        assert 0.05 <= cube_equities(position).probabilities[0] <= 0.95
    assert cross_check.sample_starts(20, 5) == starts[:20]  # seeded


def test_exact_loses_nothing_by_either_method(never_doubles):
    _, games, summary = never_doubles
    for rule in (cross_check.SANITY, "exact"):
        mine = games[games["rule"] == rule]
        assert len(mine) == 2 * 160 and (mine["lost"] == 0.0).all() and (mine["points"] == mine["baseline"]).all()
        assert summary.loc[rule, "verdict"] == "agree exactly"
    assert games[games["rule"] == "exact"]["decisions"].sum() > 160  # it was asked


def test_a_rule_that_never_doubles_loses_and_both_methods_say_how_much(never_doubles):
    _, _, summary = never_doubles
    row = summary.loc["none"]
    assert row["judged_high"] < -0.05 and row["played_out_high"] < -0.05  # clearly a loss, both ways
    assert row["difference_low"] <= 0.0 <= row["difference_high"]
    assert row["verdict"] == "agree within the interval"


def run_cli(tmp_path, *extra, players="keith,none"):
    return main(["cross-check", "--players", players, "--positions", "6", "--seed", "3", "--threads", "1",
                 "--out", str(tmp_path / "check"), "--no-progress", *extra])


def test_the_command_writes_its_files_and_refuses_to_overwrite_them(tmp_path, capsys):
    assert run_cli(tmp_path) == 0
    folder = tmp_path / "check"
    summary = pd.read_csv(folder / "cross_check.csv")
    assert list(summary["rule"]) == [cross_check.SANITY, "keith", "none"]
    assert (summary["starts"] == 6).all()
    text = (folder / "cross_check.md").read_text()
    assert "| keith |" in text and "win-maximising" in text
    run = json.loads((folder / "run.json").read_text())
    assert run["kind"] == "cross-check" and run["status"] == "finished"
    assert "git_commit" in run and "git_dirty" in run
    assert len(pd.read_parquet(folder / "games.parquet")) == 6 * 2 * 3
    capsys.readouterr()
    before = (folder / "cross_check.csv").read_text()
    assert run_cli(tmp_path) == 2
    err = capsys.readouterr().err.strip()
    assert "finished cross-check" in err and "\n" not in err
    assert (folder / "cross_check.csv").read_text() == before
    # two processes play the same games
    assert run_cli(tmp_path, "--force", "--threads", "2") == 0
    assert (folder / "cross_check.csv").read_text() == before


def test_bad_input_is_one_error_line(tmp_path, capsys):
    for extra, players, word in (((), "keith,nosuchbot", "nosuchbot"), (("--threads", "0"), "keith", "--threads")):
        assert run_cli(tmp_path, *extra, players=players) == 2
        err = capsys.readouterr().err.strip()
        assert word in err and "\n" not in err
    assert not (tmp_path / "check").exists()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    assert main(["cross-check", "--players", "keith", "--positions", "2", "--out", str(tmp_path / "other")]) == 2
    assert "holds no bgsim cross-check" in capsys.readouterr().err


# --- in contact, judged by GNU Backgammon (0-ply, two games from the opening) ----------------


@pytest.fixture(scope="module")
def contact_games(gnubg):
    return cross_check.play_contact_block([0, 1], 7, ["nn", "pipdiff"], plies=0, jobs=2)


def test_nn_against_its_own_cube_is_the_baseline_game_by_both_methods(contact_games):
    mine = contact_games[contact_games["rule"] == "nn"]
    assert len(mine) == 2 * 2  # two starts, two seatings
    assert (mine["points"] == mine["baseline"]).all()
    # the same games: its charge and its opponent's cancel against the baseline's exactly
    assert (mine["own_lost"] == mine["baseline_own_lost"]).all()
    assert (mine["opponent_lost"] == mine["baseline_opponent_lost"]).all() and (mine["lost"] == 0.0).all()


def test_contact_games_charge_both_sides_in_both_games(contact_games):
    rows = contact_games[contact_games["rule"] == "pipdiff"]
    assert len(rows) == 4 and (rows["decisions"] > 0).all() and (rows["judged_by_gnubg"] > 0).all()
    net = (rows["own_lost"] - rows["opponent_lost"]) - (rows["baseline_own_lost"] - rows["baseline_opponent_lost"])
    assert (rows["lost"] == net).all()
    # the two seatings of a start share the dice, so the baseline is one game seen from each side
    for _, start in rows.groupby("start"):
        first, second = start.sort_values("seating").itertuples(index=False)
        assert first.baseline == -second.baseline
        assert first.baseline_own_lost == second.baseline_opponent_lost


def test_the_contact_command_writes_its_table_and_refuses_bad_depths(tmp_path, capsys, gnubg):
    assert main(["cross-check", "--contact", "--plies", "0", "--players", "always-take", "--positions", "2",
                 "--seed", "3", "--threads", "2", "--out", str(tmp_path / "contact"), "--no-progress"]) == 0
    text = (tmp_path / "contact" / "cross_check.md").read_text()
    assert text.startswith("# Cube rules against `nn`'s cube in contact") and "| always-take |" in text
    record = json.loads((tmp_path / "contact" / "run.json").read_text())
    assert record["identity"]["contact"] and record["identity"]["plies"] == 0
    assert record["command"].startswith("bgsim cross-check --contact --plies 0 ")
    capsys.readouterr()
    for extra, message in (((("--contact", "--plies", "9")), "--plies must be a whole number from 0 to 4"),
                           (("--contact", "--plies", "deep"), "--plies must be a whole number from 0 to 4"),
                           (("--plies", "2"), "it needs --contact"),
                           (("--plies", "0"), "it needs --contact"),  # even the default depth
                           (("--contact", "--resume"), "a contact cross-check is not resumed")):
        assert main(["cross-check", *extra, "--players", "pipdiff", "--positions", "2",
                     "--out", str(tmp_path / "bad")]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and "\n" not in err
    assert not (tmp_path / "bad").exists()


# --- the cross-check's command line: resume, Ctrl-C, small samples ---------------------------

def test_cross_check_refuses_a_folder_left_running_and_resumes_it(tmp_path, capsys, monkeypatch):
    words = ["cross-check", "--players", "keith", "--positions", "6", "--seed", "3", "--threads", "1",
             "--no-progress"]
    monkeypatch.setenv("BGSIM_STOP_AFTER", "2")  # Ctrl-C once two blocks of starts are played
    assert cli.main(words + ["--out", str(tmp_path / "parts")]) == 130
    err = capsys.readouterr().err
    assert "interrupted: 2 of 6 blocks of starts are played and kept" in err and "--resume" in err
    monkeypatch.delenv("BGSIM_STOP_AFTER")
    before = (tmp_path / "parts" / "run.json").read_text()
    assert cli.main(words + ["--out", str(tmp_path / "parts")]) == 2  # never overwritten silently
    assert "holds an unfinished cross-check: pass --resume" in one_error_line(capsys)
    assert (tmp_path / "parts" / "run.json").read_text() == before
    assert cli.main(words + ["--out", str(tmp_path / "parts"), "--resume"]) == 0
    assert cli.main(words + ["--out", str(tmp_path / "whole")]) == 0
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "parts" / "games.parquet"),
                                  pd.read_parquet(tmp_path / "whole" / "games.parquet"))
    err = capsys.readouterr().err
    assert "bgsim: warning: only 6 starts" in err  # and the small sample is said
    verdicts = pd.read_csv(tmp_path / "whole" / "cross_check.csv")["verdict"]
    assert all("exactly" in verdict or "only 6 starts: too few" in verdict for verdict in verdicts)


def test_a_cross_check_stopped_by_ctrl_c_ends_its_workers_without_a_traceback(tmp_path, capfd, monkeypatch):
    words = ["cross-check", "--players", "keith", "--positions", "6", "--seed", "3", "--threads", "2",
             "--out", str(tmp_path / "parts"), "--no-progress"]
    monkeypatch.setenv("BGSIM_STOP_AFTER", "1")  # Ctrl-C once the first block of starts is kept
    assert cli.main(words) == 130
    err = capfd.readouterr().err  # the workers' own stderr too: they share this process's
    assert "interrupted: 1 of 6 blocks of starts are played and kept" in err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err and "BrokenProcessPool" not in err
    assert len(list((tmp_path / "parts" / "chunks").glob("block-*.parquet"))) == 1
    monkeypatch.delenv("BGSIM_STOP_AFTER")
    assert cli.main(words + ["--resume"]) == 0  # and the workers started again finish it


def test_a_cross_check_of_ten_starts_never_says_disagree_without_saying_too_few():
    from experiments.stats import SMALL_SAMPLE
    from experiments.studies.cross_check import verdict

    assert verdict(0.01, 0.05, 10) == "disagree (only 10 starts: too few for the interval to be trusted)"
    assert verdict(-0.01, 0.05, 10).endswith("(only 10 starts: too few for the interval to be trusted)")
    assert verdict(0.01, 0.05, SMALL_SAMPLE) == "disagree"  # enough starts: the plain verdict
    assert verdict(0.0, 0.0, 10) == "agree exactly"  # no interval to doubt
