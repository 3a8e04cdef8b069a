"""bgsim cube-audit --games: the cube decisions of real games, judged as the audit judges a rule's.

The charges of the hand-written games are worked by hand: in a bear-off where the side on roll
(White) wins only with 66 (three checkers on its 6-point against one on Black's ace), and one
where it wins at once (one checker on its ace).  Which decisions there are is GNU Backgammon's
count of cube decisions in its statistics of the same files."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from experiments.cli import main
from experiments.studies.cube_audit import make_rules
from experiments.studies.cube_audit_games import cube_decisions, judge_games, read_games

DATA = Path(__file__).parent / "data" / "interchange"
# White three on its 6-point, Black one on its ace; White one on its ace, Black three on its 6
LONG_SHOT = ";PL[W]AE[a:y]AW[f][f][f]AB[x]"
SURE_WIN = ";PL[W]AE[a:y]AW[a]AB[s][s][s]"


def _game(index: int, length: int, score: tuple[int, int], result: str, setup: str, moves: str) -> str:
    return (f"(;FF[4]GM[6]CA[UTF-8]AP[hand]MI[length:{length}][game:{index}][ws:{score[0]}][bs:{score[1]}]"
            f"PW[Alice]PB[Bob]{'RU[Crawford]' if length else ''}RE[{result}]\n{setup}\n{moves})\n")


MONEY = (_game(0, 0, (0, 0), "W+1", LONG_SHOT, ";W[double]\n;B[drop]")
         + _game(1, 0, (1, 0), "W+2", SURE_WIN, ";W[double]\n;B[take]\n;W[21az]")
         + _game(2, 0, (3, 0), "W+1", SURE_WIN, ";W[21az]"))
MATCH = _game(0, 5, (0, 0), "W+2", SURE_WIN, ";W[double]\n;B[take]\n;W[21az]")


@pytest.fixture()
def small_match_tables(monkeypatch):
    # the exact match tables of 3 checkers a side hold these bear-offs and take milliseconds a score
    monkeypatch.setenv("BGSIM_MATCH_BEAROFF_CHECKERS", "3")


def _judged(tmp_path, text: str, name: str) -> pd.DataFrame:
    path = tmp_path / name
    path.write_text(text)
    return judge_games(read_games(path), make_rules(["pipdiff", "keith", "exact"]))


def _row(frame, game, question, rule):
    found = frame[(frame["game"] == game) & (frame["question"] == question) & (frame["rule"] == rule)]
    assert len(found) == 1
    return found.iloc[0]


def test_a_money_sessions_decisions_cost_what_the_hand_worked_equities_say(tmp_path):
    frame = _judged(tmp_path, MONEY, "money.sgf")
    # long shot: White wins 1/36; not doubling is worth -34/36 (Black cashes later), a taken
    # double -68/36, so the double gives up 34/36 and Black's pass gives up 1 + 68/36
    double = _row(frame, 1, "double", "Alice")
    assert (double["answer"], double["error"], double["truth"]) == ("double", "wrong double", "exact")
    assert double["equity_lost"] == pytest.approx(34 / 36, abs=1e-6)
    drop = _row(frame, 1, "take", "Bob")
    assert (drop["answer"], drop["best"], drop["error"]) == ("pass", "take", "wrong pass")
    assert drop["equity_lost"] == pytest.approx(1 + 68 / 36, abs=1e-6)
    # sure win: doubling and rolling on are both +1 (no error either way); the take loses 2, not 1
    assert _row(frame, 2, "double", "Alice")["error"] == _row(frame, 3, "double", "Alice")["error"] == ""
    assert _row(frame, 3, "double", "Alice")["answer"] == "no double"
    take = _row(frame, 2, "take", "Bob")
    assert (take["error"], take["equity_lost"]) == ("wrong take", pytest.approx(1.0, abs=1e-6))
    # beside each, the rules: pipdiff and keith count pips (no double trailing by 17, take leading;
    # double leading by 17, pass trailing), and each is charged by the same truth
    assert _row(frame, 1, "double", "pipdiff")["answer"] == _row(frame, 1, "double", "keith")["answer"] == "no double"
    assert _row(frame, 1, "take", "pipdiff")["answer"] == _row(frame, 1, "take", "keith")["answer"] == "take"
    assert _row(frame, 2, "take", "pipdiff")["answer"] == _row(frame, 2, "take", "keith")["answer"] == "pass"
    assert _row(frame, 1, "double", "pipdiff")["equity_lost"] == 0.0
    assert set(frame.loc[frame["role"] == "rule", "rule"]) == {"pipdiff", "keith", "exact"}


def test_a_match_decision_is_charged_in_emg_at_the_score(tmp_path, small_match_tables):
    from bgsim import met

    frame = _judged(tmp_path, MATCH, "match.sgf")
    table = met.published().pre  # [away - 1, opponent away - 1], the side `away` to win

    def emg(value):  # on the money scale at 5-away each, cube 1: a single win +1, a single loss -1
        win, lose = table[3, 4], 1.0 - table[3, 4]
        return 2 * (value - lose) / (win - lose) - 1

    take = _row(frame, 1, "take", "Bob")
    assert take["truth"] == "exact" and take["estimator"] == "exact match tables"
    # taken, the sure winner is 3-away: the take gives up what that is worth beyond the pass (+1)
    assert take["double_take"] == pytest.approx(emg(table[2, 4]), abs=1e-9)
    assert (take["error"], take["equity_lost"]) == ("wrong take", pytest.approx(emg(table[2, 4]) - 1, abs=1e-9))
    double = _row(frame, 1, "double", "Alice")
    assert double["no_double"] == pytest.approx(1.0, abs=1e-9) and double["error"] == ""


@pytest.mark.parametrize("name", ["gnubg_session.sgf", "gnubg_money_resign.mat", "gnubg_match7.sgf",
                                  "gnubg_2ply_v_0ply_7.mat"])
def test_the_decisions_found_are_the_ones_gnubg_counts(gnubg, name):
    """GNU Backgammon's statistics count each player's cube decisions (every turn it could use the
    cube, every answer) and its doubles, takes and passes: the audit finds the same, in a match
    leaving out the turns where the cube is dead for the doubler, as gnubg does."""
    from experiments.analysis.gnubg_program import check_import

    statistics = check_import(DATA / name).statistics
    decisions = pd.DataFrame(cube_decisions(read_games(DATA / name).rows))
    for player, figures in enumerate(statistics):
        mine = decisions[decisions["player"] == player]
        assert len(mine) == figures.cube_decisions_total
        assert (mine["answer"] == "double").sum() == figures.doubles
        assert (mine["answer"] == "take").sum() == figures.takes
        assert (mine["answer"] == "pass").sum() == figures.passes


def test_the_command_writes_its_folder_and_says_the_players_rates(tmp_path, capsys):
    games = tmp_path / "money.sgf"
    games.write_text(MONEY)
    out = tmp_path / "audit"
    assert main(["cube-audit", "--games", str(games), "--players", "pipdiff,keith,exact", "--out", str(out),
                 "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "5 cube decisions in 3 of 3 games" in printed and "Alice" in printed and "keith" in printed
    assert {path.name for path in out.iterdir()} == {"run.json", "decisions.parquet", "decisions.csv", "summary.csv",
                                                      "summary.md"}
    run = json.loads((out / "run.json").read_text())
    assert run["kind"] == "cube-audit-games" and run["status"] == "finished"
    summary = pd.read_csv(out / "summary.csv")
    alice = summary[(summary["decider"] == "Alice") & (summary["part"] == "all")].iloc[0]
    assert (alice["decisions"], alice["errors"]) == (3, 1)
    assert alice["equity_lost_total"] == pytest.approx(34 / 36, abs=1e-5)
    wide = pd.read_csv(out / "decisions.csv")
    assert len(wide) == 5 and {"pipdiff: answer", "keith: answer", "exact: answer"} <= set(wide.columns)
    text = (out / "summary.md").read_text()
    assert "Alice v pipdiff" in text and "exact 5" in text
    # a finished audit is not overwritten without --force
    assert main(["cube-audit", "--games", str(games), "--players", "pipdiff", "--out", str(out)]) == 2
    assert "--force" in capsys.readouterr().err


def test_one_games_audit_says_it_has_no_interval_instead_of_printing_nan(tmp_path, capsys):
    # the intervals take the game as their unit: a single game gives none
    out = tmp_path / "audit"
    assert main(["cube-audit", "--games", str(DATA / "beavers_taken.mat"), "--players", "pipdiff", "--out",
                 str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    text = (out / "summary.md").read_text()
    assert "in 1 of 1 games" in printed
    assert "nan" not in printed.lower() and "nan" not in text.lower()
    assert printed.count("(none from one game)") == 2 * printed.count(" decisions  error rate ") > 0
    assert "95% interval none from one game" in text


@pytest.mark.parametrize("flag", [["--positions", "50"], ["--seed", "3"], ["--from", "ids.txt"]])
def test_a_sampling_flag_beside_games_is_refused_not_ignored(tmp_path, capsys, flag):
    games = tmp_path / "money.sgf"
    games.write_text(MONEY)
    out = tmp_path / "audit"
    assert main(["cube-audit", "--games", str(games), "--players", "pipdiff", "--out", str(out), *flag]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{flag[0]} belongs to the audit of sampled positions" in err
    assert not out.exists()


def test_imported_rows_give_the_same_audit_as_the_file(tmp_path, capsys):
    games, rows = tmp_path / "money.sgf", tmp_path / "rows.parquet"
    games.write_text(MONEY)
    assert main(["import", str(games), "--out", str(rows)]) == 0
    capsys.readouterr()
    rules = make_rules(["pipdiff"])
    from_file = judge_games(read_games(games), rules)
    from_rows = judge_games(read_games(rows), rules)
    columns = ["game", "question", "rule", "answer", "error", "equity_lost"]
    pd.testing.assert_frame_equal(from_file[columns], from_rows[columns])


def test_what_cannot_be_audited_is_one_line_and_writes_nothing(tmp_path, capsys):
    played = tmp_path / "played.parquet"
    assert main(["play", "random", "random", "--games", "2", "--out", str(played), "--engine", "reference",
                 "--no-progress"]) == 0
    capsys.readouterr()
    hyper, hyper_rows = tmp_path / "hyper.sgf", tmp_path / "hyper.parquet"
    hyper.write_text(MONEY.replace("AP[hand]", "AP[hand]RU[Hypergammon3]"))
    # in hypergammon the sure win's loser has borne off none of its 3: a gammon the file does not say
    assert main(["import", str(hyper), "--out", str(hyper_rows)]) == 2 and hyper_rows.exists()
    capsys.readouterr()
    for source, words in ((played, "not the decision rows of `bgsim import`"), (hyper, "hypergammon3 games"),
                          (hyper_rows, "hypergammon3 games"), (tmp_path / "missing.mat", "no such file")):
        out = tmp_path / f"out-{source.stem}"
        assert main(["cube-audit", "--games", str(source), "--players", "pipdiff", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err
        assert not out.exists()


def test_report_summarises_a_games_audit_folder_and_its_decisions(tmp_path, capsys):
    games = tmp_path / "money.sgf"
    games.write_text(MONEY)
    out = tmp_path / "audit"
    assert main(["cube-audit", "--games", str(games), "--players", "pipdiff,keith", "--out", str(out),
                 "--no-progress"]) == 0
    capsys.readouterr()
    for path in (out, out / "decisions.parquet"):  # issue 23: report reads every folder bgsim writes
        assert main(["report", str(path)]) == 0
        printed = capsys.readouterr().out
        assert printed.startswith("cube audit of games: 5 decisions in 3 games, the players and 2 rules")
        # Alice's row as the audit's summary.csv has it: 3 decisions, 1 error in 3 games
        assert re.search(r"\| Alice +\| +3 \| +3 \| .* \| +1 \| +33\.3 \(", printed), printed
        assert "keith" in printed and "pipdiff" in printed


# --- honest intervals ------------------------------------------------------------------------

def test_a_games_audit_s_intervals_never_go_below_zero():
    from experiments.studies import cube_audit_games

    # five games of real play, one take each, one of them a costly error: as the audit's test above
    rows = [{"rule": "gnubg", "role": "player", "question": "take", "game": game, "truth": "exact",
             "error": "wrong take" if game == 4 else "", "equity_lost": 1.0 if game == 4 else 0.0}
            for game in range(5)]
    row = cube_audit_games.summarise(pd.DataFrame(rows), ["gnubg"]).iloc[0]
    assert row["equity_lost"] == pytest.approx(0.2)
    # by hand: se = 0.2 (one decision a game), the log scale 0.2 * exp(+-1.96 * 0.2 / 0.2)
    assert (row["equity_lost_low"], row["equity_lost_high"]) == pytest.approx(
        (0.2 * math.exp(-1.959964), 0.2 * math.exp(1.959964)), rel=1e-5)
    z, n, p = 1.959964, 4.0, 0.2  # Wilson's interval at n = p(1-p)/se**2 = 4
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (row["error_rate_low"], row["error_rate_high"]) == pytest.approx((centre - half, centre + half), rel=1e-5)
    assert row["error_rate_low"] > 0 and row["equity_lost_low"] > 0  # the normal interval's would be -0.19
