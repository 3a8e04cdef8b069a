""".mat and SGF files: the writers against hand-written files, the reader on files GNU
Backgammon wrote and on hand-written files in its and eXtreme Gammon's layouts (one per quirk,
every move legal), bad input reported with its line, and round trips of bgsim's own games."""

from __future__ import annotations

from pathlib import Path

import pytest

from bgsim.cube import Rules
from bgsim.game import play_game
from bgsim.interchange.files import file_format, import_match, read_match
from bgsim.interchange.games import match_from_records
from bgsim.interchange.mat import read_mat, write_mat
from bgsim.interchange.records import (BEAVER, DOUBLE, DROP, ROLL, TAKE, Action, Game, Match, MatchRules,
                                       RecordError, parse_moves)
from bgsim.interchange.replay import replay
from bgsim.interchange.sgf import read_sgf, write_sgf
from bgsim.match import play_match

DATA = Path(__file__).parent / "data" / "interchange"
EXPECTED = DATA / "expected"


def roll(side, dice, text):
    return Action(ROLL, side, dice=dice, moves=parse_moves(text))


def double(side, value):
    return Action(DOUBLE, side, value=value)


# --- the games of the hand-written expected files --------------------------------------------

def money_session() -> Match:
    """A dropped double, then a game Black opens, doubles, and wins by resignation."""
    return Match(players=("Alice", "Bob Smith"), games=[
        Game(1, score=(0, 0), actions=[roll(0, (3, 1), "8/5 6/5"), roll(1, (5, 2), "13/11 13/8"),
                                       double(0, 2), Action(DROP, 1)], winner=0, points=1),
        Game(2, score=(1, 0), actions=[roll(1, (4, 1), "24/23 13/9"), roll(0, (6, 5), "24/18 18/13"),
                                       double(1, 2), Action(TAKE, 0), roll(1, (3, 2), "13/10 13/11")],
             winner=1, points=2, resigned=True),
    ])


def crawford_match() -> Match:
    """To 3: white wins 2 (a take, then a resignation), the Crawford game (no cube) to black's
    resigned gammon, then a post-Crawford double dropped."""
    return Match(players=("white", "black"), match_to=3, games=[
        Game(1, score=(0, 0), crawford=False, actions=[
            roll(0, (3, 1), "8/5 6/5"), roll(1, (5, 2), "13/11 13/8"), double(0, 2), Action(TAKE, 1),
            roll(0, (6, 4), "24/18 13/9")], winner=0, points=2, resigned=True),
        Game(2, score=(2, 0), crawford=True, actions=[
            roll(1, (6, 3), "24/18 13/10"), roll(0, (4, 2), "8/4 6/4"), roll(1, (2, 1), "13/11 6/5")],
             winner=1, points=2, resigned=True),
        Game(3, score=(2, 2), crawford=False, actions=[
            roll(0, (2, 1), "13/11 6/5"), roll(1, (1, 1), "8/7 8/7 6/5 6/5"), double(0, 2), Action(DROP, 1)],
             winner=0, points=1),
    ])


def beaver_game() -> Match:
    return Match(players=("Alice", "Bob Smith"), rules=MatchRules(beaver=True), games=[
        Game(1, score=(0, 0), actions=[
            roll(0, (3, 1), "8/5 6/5"), roll(1, (5, 2), "13/11 13/8"), double(0, 2),
            Action(BEAVER, 1, value=4), Action(TAKE, 0), roll(0, (6, 4), "24/18 13/9"),
            roll(1, (4, 1), "24/23 13/9")], winner=1, points=4, resigned=True),
    ])


def dance_game() -> Match:
    """White's 6-6 from the bar against Black's 6-point cannot be played."""
    return Match(players=("Alice", "Bob Smith"), games=[
        Game(1, score=(0, 0), actions=[
            roll(0, (2, 1), "13/11 6/5"), roll(1, (6, 4), "24/20 24/18"), roll(0, (6, 6), ""),
            roll(1, (3, 1), "8/5 6/5"), roll(0, (4, 3), "25/21 13/10"), double(1, 2), Action(DROP, 0)],
             winner=1, points=1),
    ])


GAMES = {"money_session": money_session, "crawford_match": crawford_match, "beaver": beaver_game,
         "dance": dance_game}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_mat_writer_writes_the_hand_written_file(name):
    assert write_mat(GAMES[name]()) == (EXPECTED / f"{name}.mat").read_text()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_sgf_writer_writes_the_hand_written_file(name):
    assert write_sgf(GAMES[name](), application="bgsim:test") == (EXPECTED / f"{name}.sgf").read_text()


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("ext", ["mat", "sgf"])
def test_the_hand_written_files_replay_legally_to_their_stated_ends(name, ext):
    match, done = import_match(EXPECTED / f"{name}.{ext}")
    assert done.problems == []
    assert [(result.winner, result.points) for result in done.games] == \
        [(game.winner, game.points) for game in GAMES[name]().games]


def test_the_dance_row_is_a_move_without_a_play():
    _, done = import_match(EXPECTED / "dance.mat")
    dance = [row for row in done.rows if row["dice"] == "66"]
    assert len(dance) == 1 and dance[0]["play"] == "" and dance[0]["action"] == "move"


def test_the_crawford_game_is_known_and_has_no_cube():
    _, done = import_match(EXPECTED / "crawford_match.mat")
    assert [result.crawford for result in done.games] == [False, True, False]
    assert not any(row["may_double"] for row in done.rows if row["game"] == 2)
    assert any(row["may_double"] for row in done.rows if row["game"] == 3 and row["action"] == "double")


def test_a_beaver_leaves_the_cube_at_four_with_the_beaverer():
    _, done = import_match(EXPECTED / "beaver.mat")
    after = [row for row in done.rows if row["ply"] == 3 and row["action"] == "move"][0]
    assert (after["cube_value"], after["cube_owner"], after["player"]) == (4, "opponent", 0)


def test_writing_what_a_format_cannot_hold_is_refused_in_one_line():
    from bgsim import Position

    game = money_session()
    game.games[0].start = Position.start()
    with pytest.raises(RecordError, match="set position"):
        write_mat(game)
    automatic = money_session()
    automatic.games[0].automatic_doubles = 1
    with pytest.raises(RecordError, match="automatic doubles"):
        write_mat(automatic)
    variant = money_session()
    variant.rules = MatchRules(variant="hypergammon")
    for writer in (write_mat, write_sgf):
        with pytest.raises(RecordError, match="variant"):
            writer(variant)


# --- the reader on real and hand-written files -----------------------------------------------

QUIRKS = {
    # file: (players, match length, games, first game's end)
    "xg_layout.mat": (("Jake Jacobs", "Hosaka Noriyuki"), 3, 3, (0, "resign", 2)),
    "comments_and_tags.mat": (("Alice", "Bob Smith"), 0, 1, (0, "drop", 1)),
    "beavers_taken.mat": (("Alice", "Bob Smith"), 0, 1, (1, "resign", 4)),
    "cannot_move_and_resign.mat": (("Alice", "Bob Smith"), 0, 1, (0, "resign", 1)),
    "combined_moves.mat": (("Alice", "Bob Smith"), 0, 1, (1, "drop", 1)),
    "gnubg_match7.mat": (("gnubg", "root"), 7, 6, (1, "resign", 2)),
    "gnubg_match7.sgf": (("gnubg", "root"), 7, 6, (1, "resign", 2)),
    "gnubg_2ply_v_0ply_7.mat": (("gnubg-2ply", "gnubg-0ply"), 7, 8, (1, "drop", 1)),
    "gnubg_session.mat": (("gnubg", "root"), 0, 6, (1, "drop", 2)),
    "gnubg_session.sgf": (("gnubg", "root"), 0, 6, (1, "drop", 2)),
    "gnubg_money_resign.mat": (("gnubg", "root"), 0, 4, (0, "drop", 2)),
    "gnubg_money_resign.sgf": (("gnubg", "root"), 0, 4, (0, "drop", 2)),
}


@pytest.mark.parametrize("name", sorted(QUIRKS))
def test_the_reader_replays_every_move_of_real_and_hand_written_files(name):
    players, match_to, games, first = QUIRKS[name]
    match, done = import_match(DATA / name)
    assert done.problems == []
    assert (match.players, match.match_to, len(done.games)) == (players, match_to, games)
    assert (done.games[0].winner, done.games[0].result, done.games[0].points) == first


def test_a_byte_order_mark_and_crlf_lines_are_read():
    raw = (DATA / "xg_layout.mat").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    match, _ = read_match(DATA / "xg_layout.mat")
    assert match.tags["Site"] == "eXtreme Gammon" and match.rules.crawford


def test_the_combined_move_is_the_one_legal_way_round():
    _, done = import_match(DATA / "combined_moves.mat")
    # 13/6 with 6-1: 13/7/6 is open, 13/12/6 is not (White holds Black's 12-point)
    assert [row["play"] for row in done.rows if row["action"] == "move"] == ["13/7 8/7", "13/6", "8/5(2) 6/3(2)"]


def test_gnubgs_mat_and_sgf_of_one_match_give_the_same_rows():
    def rows(name):
        _, done = import_match(DATA / name)
        return [{key: value for key, value in row.items() if key not in ("line",)} for row in done.rows]

    assert rows("gnubg_match7.mat") == rows("gnubg_match7.sgf")
    assert rows("gnubg_session.mat") == rows("gnubg_session.sgf")


def test_the_crawford_game_of_a_real_match_is_found():
    _, done = import_match(DATA / "gnubg_match7.mat")
    assert [result.crawford for result in done.games] == [False, False, True, False, False, False]


# --- bad input ---------------------------------------------------------------------------------

def _two_games() -> str:
    return (EXPECTED / "money_session.mat").read_text()


def test_an_illegal_move_is_reported_with_its_line_and_only_its_game_is_left_out(tmp_path):
    text = _two_games().replace("41: 24/23 13/9", "41: 24/20 13/9")  # two 4s for a 4-1
    path = tmp_path / "bad.mat"
    path.write_text(text)
    _, done = import_match(path)
    lines = text.splitlines()
    bad_line = next(number for number, line in enumerate(lines, 1) if "24/20 13/9" in line)
    assert [(problem.line, problem.game, problem.rejected) for problem in done.problems] == [(bad_line, 2, True)]
    assert "not a legal play" in done.problems[0].message
    assert [result.number for result in done.games] == [1]
    assert {row["game"] for row in done.rows} == {1}


def test_a_score_that_does_not_add_up_is_reported_with_its_line(tmp_path):
    text = _two_games().replace(" Alice : 1 ", " Alice : 3 ")
    path = tmp_path / "score.mat"
    path.write_text(text)
    _, done = import_match(path)
    line = next(number for number, row in enumerate(text.splitlines(), 1) if row.startswith(" Game 2"))
    assert len(done.problems) == 1 and done.problems[0].line == line
    assert "ends at 1-0: the score line is followed" in done.problems[0].message
    assert not done.problems[0].rejected and len(done.games) == 2  # the moves are sound: the game is kept


def test_a_truncated_file_keeps_the_finished_games_and_the_unfinished_one_as_gnubg_does(tmp_path):
    text = (DATA / "gnubg_match7.mat").read_text()
    lines = text.splitlines()
    cut = next(number for number, line in enumerate(lines) if line.startswith(" Game 3")) + 10
    path = tmp_path / "cut.mat"
    path.write_text("\n".join(lines[:cut]) + "\n")
    _, done = import_match(path)
    assert [result.number for result in done.games] == [1, 2, 3]
    assert done.games[2].result == "unfinished" and done.games[2].winner is None
    assert len(done.problems) == 1 and not done.problems[0].rejected and done.problems[0].game == 3
    assert done.problems[0].line == cut and "before it is over" in done.problems[0].message
    assert done.problems[0].kind == "unfinished game kept"


def test_an_sgf_file_truncated_in_game_3_keeps_games_1_and_2_and_what_game_3_has(tmp_path):
    text = (EXPECTED / "crawford_match.sgf").read_text()
    path = tmp_path / "cut.sgf"
    path.write_text(text[: text.index("MI[length:3][game:2]") + 5])
    whole, _ = import_match(EXPECTED / "crawford_match.sgf")
    match, done = import_match(path)
    assert [result.number for result in done.games][:2] == [1, 2]
    assert [result.result for result in done.games[:2]] == [result.result for result in
                                                           import_match(EXPECTED / "crawford_match.sgf")[1].games[:2]]
    assert all(not problem.rejected for problem in done.problems)
    assert any("truncated" in problem.message for problem in done.problems)


def test_an_unknown_format_is_one_clear_error(tmp_path):
    path = tmp_path / "notes.xyz"
    path.write_text("hello\nthis is no match file\n")
    with pytest.raises(RecordError, match="unknown format"):
        read_match(path)
    assert file_format("x.txt", "") == "mat" and file_format("x", "(;FF[4]GM[6]") == "sgf"


def test_a_move_that_is_no_move_is_reported_with_its_line():
    text = _two_games().replace("52: 13/11 13/8 ", "52: 13/11 13-8 ")
    match, problems = read_mat(text)
    line = next(number for number, row in enumerate(text.splitlines(), 1) if "13-8" in row)
    assert [(problem.line, problem.rejected) for problem in problems] == [(line, True)]
    assert [game.number for game in match.games] == [2]


@pytest.mark.parametrize("text, message", [
    ("bar/22 6/off 13/7*/5", None),
    ("24/18(2)", None),
    ("7/9", "forward"),
    ("13-7", "not a checker move"),
    ("6/5 6/5 6/5 6/5 6/5", "at most 4"),
])
def test_move_notation(text, message):
    if message is None:
        assert parse_moves(text)
    else:
        with pytest.raises(RecordError, match=message):
            parse_moves(text)
    if text == "bar/22 6/off 13/7*/5":
        assert parse_moves(text) == ((25, 22), (6, 0), (13, 7), (7, 5))


# --- round trips -------------------------------------------------------------------------------

def _strip(rows):
    return [{key: value for key, value in row.items() if key != "line"} for row in rows]


def _players():
    from bots import make_player

    return [
        (make_player("heuristic+pipdiff"), make_player("random+keith")),
        (make_player("racer+pipdiff(double=2,redouble=3,take=20,beaver=5)"),
         make_player("heuristic+pipdiff(double=4%,redouble=5%,take=25%,beaver=8%)")),
        (make_player("pubeval+thorp"), make_player("random+pipdiff")),
    ]


def _bgsim_matches() -> list[tuple[Match, list]]:
    """bgsim's own games, money (with beavers, Jacoby) and matches, as records: a sample in which
    every kind of game end and cube action occurs (the round-trip test asserts that it does)."""
    out = []
    for index, (white, black) in enumerate(_players()):
        rules = Rules(beaver=index == 1, jacoby=index == 2)
        records = [play_game(white, black, 40 + index, number, rules, trace=True) for number in range(20)]
        out.append((match_from_records(records, white.name, black.name, rules), records))
        for number in range(4):
            games = play_match(white, black, 50 + index, number, (3, 5, 7)[number % 3], trace=True).games
            out.append((match_from_records(games, white.name, black.name, Rules(), games[0].match.match_to), games))
    return out


@pytest.fixture(scope="module")
def bgsim_matches():
    return _bgsim_matches()


def test_round_trips_of_bgsims_games_give_back_the_same_games(bgsim_matches):
    games = 0
    seen = set()
    for match, records in bgsim_matches:
        done = replay(match)
        assert done.problems == []
        assert [(result.winner, result.points) for result in done.games] == \
            [(0 if record.winner == "white" else 1, record.points) for record in records]
        assert [result.result for result in done.games] == [record.result for record in records]
        for text, reader in ((write_mat(match), read_mat), (write_sgf(match), read_sgf)):
            again, problems = reader(text)
            assert problems == []
            for mine, theirs in zip(match.games, again.games):
                assert len(mine.actions) == len(theirs.actions)
                assert all(a.same_as(b) for a, b in zip(mine.actions, theirs.actions))
                assert (mine.winner, mine.points, mine.score) == (theirs.winner, theirs.points, theirs.score)
            redone = replay(again)
            expected = _strip(done.rows)
            if reader is read_mat:  # GNU Backgammon reads a comma in a .mat name as a rating: ';' instead
                for row in expected:
                    row["name"] = row["name"].replace(",", ";")
            assert redone.problems == [] and _strip(redone.rows) == expected
        games += len(records)
        for record in records:
            seen |= {record.result} | {ply.cube_action for ply in record.history if ply.cube_action}
            if record.doubles >= 2:
                seen.add("redouble")
            if match.rules.jacoby and record.result in ("gammon", "backgammon") and record.points == 1:
                seen.add("gammon cancelled by the Jacoby rule")
            if record.match is not None:
                seen |= {"crawford"} if record.match.crawford else set()
                seen |= {"post-crawford"} if record.match.post_crawford else set()
    assert games >= 80
    assert seen >= {"single", "gammon", "backgammon", "drop", "double/take", "double/beaver", "double/drop",
                    "redouble", "gammon cancelled by the Jacoby rule", "crawford", "post-crawford"}, seen


def test_exporting_an_imported_file_imports_to_the_same_rows():
    for name in ("gnubg_match7.mat", "gnubg_session.sgf", "gnubg_money_resign.mat", "xg_layout.mat",
                 "beavers_taken.mat", "cannot_move_and_resign.mat", "combined_moves.mat"):
        match, done = import_match(DATA / name)
        for text, reader in ((write_mat(match), read_mat), (write_sgf(match), read_sgf)):
            again, problems = reader(text)
            redone = replay(again)
            assert problems == [] and redone.problems == [], name
            assert _strip(redone.rows) == _strip(done.rows), name
