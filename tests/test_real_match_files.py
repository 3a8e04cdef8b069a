"""Real match files as GNU Backgammon 1.07 reads them (issue 31): what real writers do is read as
its importer reads it, with a warning saying what was read, the sound games kept, exit 0 when
there are only warnings.  The files and where they come from: tests/data/interchange/real/SOURCES.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bgsim.interchange.files import import_match
from bgsim.interchange.records import FILLED, POST_CRAWFORD, RENUMBERED, RESIGNATION, UNFINISHED
from experiments.cli import main

REAL = Path(__file__).parent / "data" / "interchange" / "real"
DATA = Path(__file__).parent / "data" / "interchange"


def warnings_of(done, kind=None):
    return [problem for problem in done.problems if not problem.rejected and (kind is None or problem.kind == kind)]


def test_a_galaxy_losses_cell_beside_the_winners_cell_is_read_past():
    _, done = import_match(REAL / "galaxy_resigned_match.txt")
    assert not done.problems
    assert [(result.winner, result.result, result.points) for result in done.games] == [(0, "resign", 3)]


def test_the_files_score_lines_not_a_tally_say_where_the_match_stands_after_a_game_left_out(tmp_path):
    # game 3 (0-6, the Crawford game) cannot be read; game 4 (1-6, post-Crawford) doubles at once
    lines = (DATA / "gnubg_match7.mat").read_text().splitlines()
    third = next(number for number, line in enumerate(lines) if line.startswith(" Game 3"))
    lines[third + 3] = "  2) 52: 13-8 13/11"
    path = tmp_path / "left_out.mat"
    path.write_text("\n".join(lines) + "\n")
    _, done = import_match(path)
    assert [result.number for result in done.games] == [1, 2, 4, 5, 6]
    assert [problem.game for problem in done.problems if problem.rejected] == [3]
    assert [result.crawford for result in done.games] == [False, False, False, False, False]
    assert any(row["action"] == "double" and row["game"] == 4 for row in done.rows)


def test_a_match_taken_up_at_5_6_with_a_double_in_its_first_game_is_post_crawford():
    _, done = import_match(REAL / "fibs_taken_up.mat")
    assert [(result.number, result.crawford, result.score) for result in done.games] == [(12, False, (5, 6))]
    assert len(warnings_of(done, POST_CRAWFORD)) == 1 and not any(problem.rejected for problem in done.problems)


def test_a_forced_play_written_blank_gets_the_only_legal_play_as_gnubg_fills_it():
    _, done = import_match(REAL / "fibs_forced_blank.mat")
    assert len(done.games) == 2 and not any(problem.rejected for problem in done.problems)
    filled = warnings_of(done, FILLED)
    assert [problem.message.split(" forced")[0] for problem in filled] == ["9", "8"]
    assert "given the only legal play" in filled[0].message


def test_a_match_winning_resignation_written_with_the_points_the_match_needed_is_kept_without_a_word():
    _, done = import_match(REAL / "match_winning_resignation.mat")
    assert not done.problems
    last = done.games[-1]
    assert (last.result, last.cube_value, last.points) == ("resign", 2, 2)


def test_gibbons_sgf_resignation_offered_rejected_then_accepted_ends_the_game():
    _, done = import_match(REAL / "gibbon_resign.sgf")
    assert not done.problems
    assert [(result.winner, result.result, result.points) for result in done.games][0] == (1, "resign", 1)
    assert len(done.games) == 2


def test_a_corrupt_resignation_value_is_clamped_to_three_times_the_cube_with_a_warning():
    _, done = import_match(REAL / "backgammon_studio_3pt.txt")
    assert [result.number for result in done.games] == [1, 2]
    assert (done.games[1].result, done.games[1].cube_value, done.games[1].points) == ("resign", 4, 12)
    clamped = warnings_of(done, RESIGNATION)
    assert len(clamped) == 1 and "4016" in clamped[0].message and "clamps" in clamped[0].message


def test_gnubgs_own_long_names_running_into_the_score_are_read():
    match, done = import_match(REAL / "gnubg_long_names.mat")
    assert match.players == ("Jean-Christophe_DE_LA_HARMANDIE", "Johan")
    assert [result.score for result in done.games] == [(0, 0), (0, 2)] and not done.problems


def test_a_truncated_log_keeps_its_partial_game_and_says_it_stops_there():
    _, done = import_match(REAL / "truncated_log.mat")
    assert len(done.games) == 2 and done.games[-1].result == "unfinished" and done.games[-1].winner is None
    stops = warnings_of(done, UNFINISHED)
    assert len(stops) == 1 and "rolled and not played" in stops[0].message and "truncated" in stops[0].message
    assert "does not play" not in " ".join(problem.message for problem in done.problems)


def test_a_file_whose_only_problems_are_warnings_exits_0(capsys):
    assert main(["import", str(REAL / "fibs_forced_blank.mat"), "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "bgsim: warning:" in captured.err and "2 of 2 games replayed" in captured.out


def test_a_game_number_given_twice_is_two_games_each_counted_once(capsys):
    assert main(["import", str(REAL / "duplicate_game_number.mat"), "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "3 of 3 games replayed" in captured.out
    _, done = import_match(REAL / "duplicate_game_number.mat")
    assert [result.number for result in done.games] == [1, 2, 3]
    assert len(warnings_of(done, RENUMBERED)) == 1


def test_a_negative_match_length_is_refused_in_one_line_not_read_as_money(capsys):
    assert main(["import", str(REAL / "negative_length.mat"), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("bgsim: error:") and "-5" in err


def test_a_utf16_file_is_read():
    match, done = import_match(REAL / "utf16.mat")
    assert match.players == ("Zoë", "Jürgen") and len(done.games) == 2 and not done.problems


@pytest.mark.parametrize("name", ["galaxy_resigned_match.txt", "backgammon_studio_3pt.txt", "gnubg_long_names.mat",
                                  "fibs_forced_blank.mat", "fibs_taken_up.mat", "match_winning_resignation.mat",
                                  "truncated_log.mat", "duplicate_game_number.mat", "gibbon_resign.sgf"])
def test_bgsim_keeps_every_game_gnubg_keeps_move_for_move(name):
    from experiments.studies.gnubg_agreement import compare_file

    result = compare_file(REAL / name, "real")
    assert result.gnubg_games and result.gnubg_sound == result.gnubg_games, result.gnubg_said
    assert result.bgsim_games == result.gnubg_games == result.agreeing, result.note


def test_a_game_1_left_out_makes_no_spurious_word_about_where_game_2_starts(tmp_path):
    lines = (DATA / "gnubg_match7.mat").read_text().splitlines()
    first = next(number for number, line in enumerate(lines) if line.startswith(" Game 1"))
    lines[first + 3] = "  2) 52: 13-8 13/11"
    path = tmp_path / "first_left_out.mat"
    path.write_text("\n".join(lines) + "\n")
    _, done = import_match(path)
    assert [(problem.game, problem.rejected) for problem in done.problems] == [(1, True)]
    assert [result.number for result in done.games] == [2, 3, 4, 5, 6]


def test_a_galaxy_row_numbered_twice_in_its_right_cell_is_read():
    _, done = import_match(REAL / "galaxy_row_numbered_twice.txt")
    assert len(done.games) == 2 and not any(problem.rejected for problem in done.problems)


def test_a_game_resigned_before_its_first_roll_is_kept_with_its_resignation():
    _, done = import_match(REAL / "galaxy_resigned_before_rolling.txt")
    assert [(result.winner, result.result, result.points, result.plies) for result in done.games] == \
        [(0, "resign", 3, 0)]
    assert [row["action"] for row in done.rows] == ["resign"] and done.rows[0]["player"] == 1


def test_the_gnubg_comparison_resumes_from_its_checkpoint_and_summarises_a_part_as_a_sample(tmp_path, capsys,
                                                                                             gnubg):
    from experiments.studies.gnubg_agreement import main

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("galaxy_resigned_match.txt", "galaxy_resigned_before_rolling.txt"):
        (corpus / name).write_bytes((REAL / name).read_bytes())
    out = tmp_path / "out"
    assert main([str(corpus), "--out", str(out)]) == 0
    whole = (out / "summary.md").read_text().splitlines()[2:]
    lines = (out / "done.jsonl").read_text().splitlines()
    (out / "done.jsonl").write_text("\n".join(lines[:2]) + "\n")  # stopped after its first file
    assert main([str(corpus), "--out", str(out)]) == 2  # an earlier run is not started over unasked
    assert main([str(corpus), "--out", str(out), "--summarise"]) == 0
    assert "1 files of the corpus's 2 (a random sample of them)" in (out / "summary.md").read_text()
    assert main([str(corpus), "--out", str(out), "--resume"]) == 0
    assert (out / "summary.md").read_text().splitlines()[2:] == whole
    assert len([line for line in (out / "done.jsonl").read_text().splitlines() if '"path"' in line]) == 2
    record = json.loads((out / "run.json").read_text())
    assert record["files"] == record["corpus_files"] == 2
    assert record["git_commit"][:12] in (out / "summary.md").read_text()


def test_a_gnubg_game_with_no_decision_is_counted_apart_not_as_a_game_bgsim_lacks(tmp_path, gnubg):
    from experiments.studies.gnubg_agreement import compare_file

    path = tmp_path / "header_only.sgf"
    path.write_text("(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:0][game:0][ws:0][bs:0]"
                    "PB[Black]PW[White]RU[])\n")
    result = compare_file(path, "here")
    assert (result.gnubg_games, result.gnubg_empty, result.gnubg_only, result.bgsim_games) == (1, 1, 0, 0)
    assert result.agrees
