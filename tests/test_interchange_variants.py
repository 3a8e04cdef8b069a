"""Variants in the match files: Nackgammon and hypergammon under GNU Backgammon's own tags, Dutch,
acey-deucey and chouettes refused in one line, and GNU Backgammon reading what bgsim writes.

The tags are GNU Backgammon's (1.07): a ``.mat`` file's ``; [Variation "NackGammon"]`` and
``; [Variation "HyperGammon (N)"]`` header (export.c, ExportMatchMat; import.c,
ImportMatVariation), SGF's ``RU[...:Nackgammon]`` and ``Hypergammon1..3`` (sgf.c).
``gnubg_nackgammon3.*`` is a 3-point Nackgammon match GNU Backgammon played against itself and
wrote in both formats (``set variation nackgammon``, ``new match 3``, ``save match``, ``export
match mat``)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from bgsim.cube import Rules
from bgsim.game import play_game
from bgsim.interchange.files import import_match
from bgsim.interchange.games import match_from_records
from bgsim.interchange.mat import read_mat, write_mat
from bgsim.interchange.records import DOUBLE, DROP, ROLL, TAKE, RecordError
from bgsim.interchange.replay import replay
from bgsim.interchange.sgf import read_sgf, write_sgf
from experiments.cli import main

DATA = Path(__file__).parent / "data" / "interchange"
# each variant's tags, as GNU Backgammon's sources write them
MAT_TAGS = {"nackgammon": '; [Variation "NackGammon"]', "hypergammon1": '; [Variation "HyperGammon (1)"]',
            "hypergammon2": '; [Variation "HyperGammon (2)"]', "hypergammon3": '; [Variation "HyperGammon (3)"]'}
SGF_RULES = {"nackgammon": "Nackgammon", "hypergammon1": "Hypergammon1", "hypergammon2": "Hypergammon2",
             "hypergammon3": "Hypergammon3"}


def played(variant: str, games: int = 4, match_to: int = 0):
    """bgsim's traced games of ``variant`` (reference engine), as records and as a match."""
    from bots import make_player

    white, black = make_player("heuristic+pipdiff"), make_player("random+pipdiff")
    rules = Rules(variant=variant)
    records = [play_game(white, black, 7, number, rules, trace=True) for number in range(games)]
    return records, match_from_records(records, white.name, black.name, rules)


@pytest.mark.parametrize("variant", sorted(MAT_TAGS))
def test_each_variant_is_written_with_gnubgs_tag(variant):
    _, match = played(variant, games=1)
    assert MAT_TAGS[variant] in write_mat(match).splitlines()
    found = re.search(r"RU\[([^\]]*)\]", write_sgf(match))
    assert SGF_RULES[variant] in found.group(1).split(":")


@pytest.mark.parametrize("variant", sorted(MAT_TAGS))
@pytest.mark.parametrize("writer, reader", [(write_mat, read_mat), (write_sgf, read_sgf)], ids=["mat", "sgf"])
def test_variant_games_come_back_from_both_formats_as_they_were_played(variant, writer, reader):
    records, match = played(variant)
    back, problems = reader(writer(match))
    done = replay(back)
    assert problems == [] and done.problems == []
    assert back.rules.variant == variant
    assert [(("white", "black")[game.winner], game.result, game.points) for game in done.games] == \
        [(record.winner, record.result, record.points) for record in records]
    for mine, theirs in zip(match.games, back.games):
        assert len(mine.actions) == len(theirs.actions)
        assert all(a.same_as(b) for a, b in zip(mine.actions, theirs.actions))


def test_gnubgs_own_nackgammon_match_replays_from_the_nackgammon_start():
    from_mat, done_mat = import_match(DATA / "gnubg_nackgammon3.mat")
    from_sgf, done_sgf = import_match(DATA / "gnubg_nackgammon3.sgf")
    assert done_mat.problems == [] and done_sgf.problems == []
    assert from_mat.rules.variant == from_sgf.rules.variant == "nackgammon"
    assert (from_mat.players, from_mat.match_to, len(done_mat.games)) == (("gnubg-A", "gnubg-B"), 3, 2)

    def strip(rows):
        return [{key: value for key, value in row.items() if key != "line"} for row in rows]

    assert strip(done_mat.rows) == strip(done_sgf.rows)
    # the first roll, 51: 13/8 23/22, cannot be played from the standard start: the tag decides
    untagged = (DATA / "gnubg_nackgammon3.mat").read_text().replace('; [Variation "NackGammon"]\n', "")
    match, problems = read_mat(untagged)
    assert problems == [] and match.rules.variant == "standard"
    assert replay(match).rejected == 2


@pytest.mark.parametrize("variant", ["dutch", "acey-deucey"])
def test_dutch_and_acey_deucey_are_refused_by_both_writers_in_one_line(variant):
    records, match = played(variant, games=1)
    for writer, name in ((write_mat, ".mat file"), (write_sgf, "SGF record")):
        with pytest.raises(RecordError, match=f"{name} cannot hold the variant {variant}") as found:
            writer(match)
        assert "\n" not in str(found.value)


def test_an_unknown_variation_tag_is_one_error_with_its_line():
    text = '; [Site "x"]\n; [Variation "Plakoto"]\n\n 0 point match\n\n Game 1\n a : 0   b : 0\n'
    with pytest.raises(RecordError, match=r"line 2: .*'Plakoto' is not one bgsim replays"):
        read_mat(text)


# --- the command line -------------------------------------------------------------------------


def test_play_record_of_variants_writes_their_tags_and_imports_to_the_played_rows(tmp_path, capsys):
    for variant, fmt in (("hypergammon2", "sgf"), ("nackgammon", "mat")):
        rows, record = tmp_path / f"{variant}.parquet", tmp_path / f"{variant}.{fmt}"
        assert main(["play", "racer+pipdiff", "heuristic+keith", "--games", "3", "--seed", "4", "--out", str(rows),
                     "--variant", variant, "--no-progress", "--record", fmt, str(record)]) == 0
        text = record.read_text()
        assert (MAT_TAGS[variant] in text) if fmt == "mat" else (SGF_RULES[variant] in text)
        imported = tmp_path / f"{variant}-rows.parquet"
        assert main(["import", str(record), "--out", str(imported)]) == 0
        capsys.readouterr()
        stored, decisions = pd.read_parquet(rows), pd.read_parquet(imported)
        assert decisions[decisions["action"] == "move"].groupby("game").size().tolist() == stored["plies"].tolist()


@pytest.mark.parametrize("variant", ["dutch", "acey-deucey"])
@pytest.mark.parametrize("fmt", ["mat", "sgf"])
def test_play_record_refuses_dutch_and_acey_deucey_before_playing(tmp_path, capsys, variant, fmt):
    rows, record = tmp_path / "p.parquet", tmp_path / f"p.{fmt}"
    assert main(["play", "random", "random", "--games", "2", "--out", str(rows), "--variant", variant,
                 "--no-progress", "--record", fmt, str(record)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot hold the variant {variant}" in err
    assert not rows.exists() and not record.exists()


def test_export_of_a_dutch_run_is_refused_and_writes_nothing(tmp_path, capsys):
    rows, target = tmp_path / "d.parquet", tmp_path / "d.sgf"
    assert main(["play", "heuristic", "random", "--games", "2", "--out", str(rows), "--variant", "dutch",
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["export", str(rows), "--format", "sgf", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot hold the variant dutch" in err and not target.exists()


def test_export_and_analyse_refuse_chouette_rows_in_one_line(tmp_path, capsys):
    rows = tmp_path / "chouette.parquet"
    assert main(["chouette", "random", "random", "random", "--games", "1", "--out", str(rows),
                 "--no-progress"]) == 0
    capsys.readouterr()
    target = tmp_path / "c.mat"
    assert main(["export", str(rows), "--format", "mat", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "chouette" in err and not target.exists()
    assert main(["analyse", str(rows)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "chouette" in err


def test_analyse_refuses_hypergammon_in_one_line(tmp_path, capsys):
    rows = tmp_path / "h.parquet"
    assert main(["play", "heuristic", "random", "--games", "2", "--out", str(rows), "--variant", "hypergammon1",
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["analyse", str(rows)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hypergammon databases" in err


@pytest.mark.parametrize("command", [["export"], ["play"]])
def test_help_says_which_variants_and_chouettes_a_format_cannot_hold(capsys, command):
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Dutch and acey-deucey" in text and "chouettes" in text and "Nackgammon and hypergammon" in text


# --- GNU Backgammon reads them ------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["mat", "sgf"])
def test_gnubg_imports_bgsims_nackgammon_export_as_nackgammon_and_analyses_it(gnubg, tmp_path, fmt):
    from experiments.analysis.gnubg_program import check_import, run_sections

    _, match = played("nackgammon", games=6)
    kinds = [action.kind for game in match.games for action in game.actions]
    assert kinds.count(DOUBLE) and kinds.count(DROP)
    path = tmp_path / f"nack.{fmt}"
    path.write_text(write_mat(match) if fmt == "mat" else write_sgf(match))
    checked = check_import(path)
    assert checked.complaints == []
    assert (checked.counts.games, checked.counts.moves) == (len(match.games), kinds.count(ROLL))
    assert (checked.counts.doubles, checked.counts.takes, checked.counts.drops) == \
        (kinds.count(DOUBLE), kinds.count(TAKE), kinds.count(DROP))
    assert sum(player.total_moves for player in checked.statistics) == kinds.count(ROLL)
    saved = tmp_path / "saved.sgf"
    run_sections([["import mat " + str(path) if fmt == "mat" else f"load match {path}", f"save match {saved}"]])
    assert all("Nackgammon" in rules.split(":") for rules in re.findall(r"RU\[([^\]]*)\]", saved.read_text()))


def test_gnubg_reads_bgsims_hypergammon_and_writes_it_back_as_bgsim_wrote_it(gnubg, tmp_path):
    """GNU Backgammon loads bgsim's SGF (no analysis: the package ships no hypergammon databases)
    and writes the match with its own writers; bgsim reads both back to the same games."""
    from experiments.analysis.gnubg_program import run_sections

    _, match = played("hypergammon3", games=5)
    path, saved, exported = tmp_path / "hyper.sgf", tmp_path / "saved.sgf", tmp_path / "exported.mat"
    path.write_text(write_sgf(match))
    (said,) = run_sections([[f"load match {path}", f"save match {saved}", f"export match mat {exported}"]])
    assert '; [Variation "HyperGammon (3)"]' in exported.read_text().splitlines()
    for name in (saved, exported):
        back, done = import_match(name)
        assert done.problems == [] and back.rules.variant == "hypergammon3", said
        for mine, theirs in zip(match.games, back.games):
            assert [action.kind for action in mine.actions] == [action.kind for action in theirs.actions]
            assert all(a.same_as(b) for a, b in zip(mine.actions, theirs.actions) if a.kind == ROLL)
        assert len(back.games) == len(match.games)
