"""The chouette in the fast engine against the reference (``bgsim/chouette.py``): the same
sessions row for row, the same plies and cube answers, the same seats from batch to batch.

The cases are ``bgsim validate``'s (``experiments.studies.validation.chouette_cases``): chouettes
of 3, 4 and 10 players under both cube regimes that seat every fast cube bot of the registry,
and the money options.  No timings are asserted here (see ``bgsim bench``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bgsim import layouts
from bgsim.chouette import CUBE_REGIMES, first_seating, seating_after
from bgsim.chouette_sessions import Session, chouette_engine, play_chouettes
from bgsim.cube import Rules
from bgsim.fast import chouette as fast_chouette
from bgsim.fast import family_of, uses_exact
from bgsim.fast.sameness import compare_frames, explain_chouette
from bgsim.schema import CHOUETTE_DTYPES, CHOUETTE_ENGINE_COLUMNS
from bots import cube_bots, make_player
from bots.registry import parse_bot, split_top_level
from experiments.studies.validation import CHOUETTE_SIZES, DEALT, chouette_cases

CASES = chouette_cases()
GAMES = 8
SEED = 17


def _case_id(case):
    """Size, regime and changed rules; and the box's spec for the case of a bot registered after
    the deal (``validation.DEALT``), so that adding a bot renames no existing case."""
    specs, rules, regime = case
    changed = [name for name in rules.__dataclass_fields__ if getattr(rules, name) != getattr(Rules(), name)]
    box = [parse_bot(part)[0] for part in split_top_level(specs[0], "+")]
    new = box[0] not in DEALT["checker"] or (len(box) > 1 and box[1] not in DEALT["cube"])
    return f"{len(specs)}-{regime}" + ("-" + "-".join(changed) if changed else "") + (f"-{specs[0]}" if new else "")


@pytest.fixture(scope="module")
def fast_frames():
    """Each case's session in the fast engine, played once for the tests of this module."""
    return {index: play_chouettes([make_player(spec) for spec in specs], SEED, GAMES, rules, regime, engine="fast")
            for index, (specs, rules, regime) in enumerate(CASES)}


@pytest.mark.parametrize("index", range(len(CASES)), ids=[_case_id(case) for case in CASES])
def test_every_chouette_case_plays_the_reference_sessions_row_for_row(index, fast_frames):
    specs, rules, regime = CASES[index]
    reference = play_chouettes([make_player(spec) for spec in specs], SEED, GAMES, rules, regime,
                               engine="reference")
    fast = fast_frames[index]
    assert compare_frames(reference, fast) is None
    pd.testing.assert_frame_equal(reference, fast)
    players = [make_player(spec) for spec in specs]
    assert family_of(players, chouette=True).declared.name == (
        "chouette_with_exact" if uses_exact(players) else "chouette")


def test_the_cases_seat_every_fast_cube_bot_in_both_regimes_at_3_4_and_10_players(fast_frames):
    seatable = {name for name, layout in layouts.fast_bots(layouts.CUBE).items() if layout.chouette}
    fast_cubes = {bot.fast_name for bot in cube_bots().values() if bot.fast_name in seatable}
    seated = {"team": set(), "individual": set()}
    sizes = {"team": set(), "individual": set()}
    for specs, rules, regime in CASES:
        sizes[regime].add(len(specs))
        seated[regime] |= {make_player(spec).cube.fast_name for spec in specs}
    for regime in seated:
        assert seated[regime] == fast_cubes
        assert sizes[regime] >= set(CHOUETTE_SIZES) == {3, 4, 10}


def test_the_cases_play_every_kind_of_cube_answer(fast_frames):
    """A comparison is only as strong as what the games do: takes, drops (members leaving,
    the box dropping the team's double), blocked team doubles, beavers and automatic doubles
    all happen in both regimes' sessions."""
    frames = {"team": [], "individual": []}
    for index, (_, _, regime) in enumerate(CASES):
        frames[regime].append(fast_frames[index])
    for regime, parts in frames.items():
        rows = pd.concat(parts, ignore_index=True)
        box, members = rows[rows["seat"] == "box"], rows[rows["seat"] != "box"]
        assert members["doubles_taken"].sum() > 0 and members["dropped"].sum() > 0
        assert box["dropped"].sum() > 0 and box["doubles_taken"].sum() > 0
        assert rows["beavers"].sum() > 0 and rows["automatic_doubles"].sum() > 0
        assert (members["result"] == "drop").any() and (members["result"] != "drop").any()
        if regime == "team":
            assert members["doubles_blocked"].sum() > 0
        assert (rows.groupby("game")["points"].sum() == 0).all()


@pytest.mark.parametrize("regime", ["team", "individual"])
def test_traced_fast_games_agree_with_the_reference_ply_for_ply(regime):
    specs = ("racer+pipdiff(double=2,redouble=3,take=20,beaver=5)", "random+pipdiff(double=4%,take=25%)",
             "heuristic+keith", "pubeval+never-take")
    players = [make_player(spec) for spec in specs]
    rules = Rules(beaver=True, jacoby=True)
    seating = first_seating(SEED, len(players))
    for number in range(4):
        assert explain_chouette(players, SEED, number, seating, rules, regime) is None
        record = play_chouettes(players, SEED, range(number, number + 1), rules, regime, seating, "reference")
        seating = seating_after(record)


def test_the_ply_comparison_finds_where_the_engines_part():
    """A cube bot whose Python half doubles at every chance while its kernel never does: the
    first differing ply is the first the box could double at, and says so."""
    players = [make_player(spec) for spec in ("racer+never-take", "racer", "racer")]
    seating = first_seating(SEED, 3)
    box = players[seating.box]
    box.cube.offer_double = lambda position, cube: True  # the reference engine's half only
    found = explain_chouette(players, SEED, 0, seating, Rules(), "team")
    assert found is not None and found.side == "box"
    assert f"{seating.box} double (1)" in found.reference and f"{seating.box} no double (1)" in found.fast


def test_a_session_played_in_batches_and_chunks_is_the_session_played_at_once(monkeypatch):
    specs = ("heuristic+pipdiff", "racer+keith", "random+nn", "pubeval+always-take")
    players = [make_player(spec) for spec in specs]
    whole = play_chouettes(players, 3, 23, Rules(), "individual", engine="reference")
    monkeypatch.setattr(fast_chouette, "CHUNK_GAMES", 4)  # several kernel calls per batch
    session = Session(players, 3, Rules(), "individual", engine="fast")
    parts = [session.play(size) for size in (1, 9, 13)]
    assert session.next_game == 23 and session.seating == seating_after(whole[whole["game"] == 22])
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True).astype(CHOUETTE_DTYPES), whole)
    later = Session(players, 3, Rules(), "individual", seating_after(whole[whole["game"] == 9]), 10, "fast")
    pd.testing.assert_frame_equal(later.play(range(10, 23)), whole[whole["game"] >= 10].reset_index(drop=True))


def test_auto_seats_built_in_bots_in_the_fast_engine_and_anyone_else_in_the_reference(scripted):
    from bgsim.fast.custom import EvalPlayer

    built_in = [make_player(spec) for spec in ("nn+nn", "racer+exact", "heuristic")]
    assert chouette_engine("auto", built_in) == "fast"
    assert Session(built_in, 1).engine == "fast"
    with_gnubg = built_in[:2] + [make_player("racer+gnubg")]
    assert chouette_engine("auto", with_gnubg) == "reference"
    assert chouette_engine("auto", built_in[:2] + [scripted("someone")]) == "reference"

    def evaluate(board):  # a user's evaluation function: two-player fast games only
        return 0.0

    import numba

    custom = EvalPlayer(numba.njit(evaluate))
    assert chouette_engine("auto", built_in[:2] + [custom]) == "reference"
    with pytest.raises(ValueError, match="cube bot 'gnubg' cannot run in the fast engine"):
        chouette_engine("fast", with_gnubg)
    with pytest.raises(ValueError, match="custom evaluation function plays chouettes in the reference engine only"):
        Session(built_in[:2] + [custom], 1, engine="fast")


def test_a_bot_whose_layout_does_not_claim_a_chouette_seat_is_refused_there(monkeypatch):
    import copy

    from bgsim import layouts

    keith = copy.copy(layouts.KEITH)  # (dataclasses.replace would add its capabilities twice)
    object.__setattr__(keith, "chouette", False)
    monkeypatch.setattr(layouts, "FAST_BOTS", tuple(keith if bot is layouts.KEITH else bot for bot in layouts.FAST_BOTS))
    players = [make_player(spec) for spec in ("racer+pipdiff", "racer+keith", "racer")]
    with pytest.raises(ValueError, match=r"player 1 \(racer\+keith\): cube bot 'keith' cannot sit in a chouette"):
        fast_chouette.Table(players, Rules(), "team")
    assert chouette_engine("auto", players) == "reference"
    assert not fast_chouette.supports(players[1]) and fast_chouette.supports(players[0])


def test_the_fast_table_refuses_what_a_chouette_is_not():
    players = [make_player("racer")] * 3
    assert fast_chouette.REGIMES == CUBE_REGIMES
    assert fast_chouette.ENGINE_COLUMNS == CHOUETTE_ENGINE_COLUMNS
    with pytest.raises(ValueError, match="a chouette has 3 to 10 players, got 2"):
        fast_chouette.Table(players[:2], Rules(), "team")
    with pytest.raises(ValueError, match="unknown chouette cube regime 'shared'"):
        fast_chouette.Table(players, Rules(), "shared")
    with pytest.raises(ValueError, match="standard backgammon, not nackgammon"):
        fast_chouette.Table(players, Rules(variant="nackgammon"), "team")
    with pytest.raises(ValueError, match="standard backgammon, not nackgammon"):
        Session(players, 1, Rules(variant="nackgammon"), engine="fast")
    table = fast_chouette.Table(players, Rules(), "team")
    with pytest.raises(ValueError, match="every player number 0..2 once"):
        table.play(1, range(2), (0, 1, 3))
    columns, after = table.play(1, range(0), first_seating(1, 3).order)
    assert after == first_seating(1, 3).order and all(len(values) == 0 for values in columns.values())
    assert np.array_equal(columns["game"], np.zeros(0))
