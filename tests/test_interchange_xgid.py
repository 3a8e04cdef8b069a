"""eXtreme Gammon's XGID: hand-worked IDs, round trips over every cube state, and GNU
Backgammon's own reading of bgsim's XGIDs (``set xgid``) against bgsim's position and match IDs."""

from __future__ import annotations

import random

import pytest

from bgsim import Position
from bgsim.cube import Rules
from bgsim.game import play_game
from bgsim.interchange.xgid import (CENTRE, ON_ROLL, OPPONENT, Xgid, XgidError, decode, encode,
                                    from_match_state, read_position_text, to_match_state)
from bgsim.match_id import MatchState, decode as decode_match_id, encode as encode_match_id
from bgsim.interchange.xgid import xgid_of, position_from_xgid
from conftest import ScriptedPlayer, random_pick

START = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_the_starting_position_has_eXtreme_Gammons_starting_xgid():
    assert xgid_of(Position.start()) == START
    assert encode(Xgid()) == START
    assert decode(START) == Xgid()
    assert position_from_xgid(START) == Position.start()


def test_a_published_match_xgid_reads_as_worked_by_hand():
    # a blog's 9-point match position: the bottom player on roll, cube 2 on its side, 4-3
    state = decode("XGID=---ABBA------------bbaa---:1:1:1:00:4:3:0:9:10")
    assert state.position == Position.from_points({3: 1, 4: 2, 5: 2, 6: 1}, {19: 2, 20: 2, 21: 1, 22: 1})
    assert (state.cube_value, state.cube_owner, state.score, state.match_to) == (2, ON_ROLL, (4, 3), 9)
    assert (state.dice, state.offered, state.crawford) == ((0, 0), 0, False)


def test_an_xgid_with_the_top_player_on_roll_is_read_from_that_player():
    # the same match later: the top player (3 points) on roll, owning a 4-cube
    state = decode("XGID=----AA--------------aa-a--:2:-1:-1:00:4:3:0:9:10")
    # top's checkers (lowercase) on bottom's 20, 21 and 23 are its own 5-, 4- and 2-points
    assert state.position == Position.from_points({5: 1, 4: 1, 2: 1}, {21: 1, 20: 1})
    assert (state.cube_value, state.cube_owner, state.score) == (4, ON_ROLL, (3, 4))
    # bgsim writes it with the side on roll at the bottom
    assert state.text == "XGID=--A-AA--------------aa----:2:1:1:00:3:4:0:9:10"


@pytest.mark.parametrize("text, state", [
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:3:0:8",
     Xgid(offered=1, jacoby=True, beaver=True, cube_limit=256)),
    ("XGID=-b----E-C---eE---c-e----B-:3:-1:1:B:0:0:2:0:10",
     Xgid(cube_value=8, cube_owner=OPPONENT, offered=2, beaver=True)),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:65:6:2:1:7:10",
     Xgid(dice=(6, 5), score=(6, 2), match_to=7, crawford=True)),
    ("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0", Xgid()),  # no prefix, no cube limit
])
def test_xgid_fields_as_worked_by_hand(text, state):
    assert decode(text) == state


def _positions(count: int, seed: int) -> list[Position]:
    """Positions of random games, before a roll, from the side on roll."""
    player = ScriptedPlayer("random", pick=random_pick)
    out = []
    game = 0
    while len(out) < count:
        record = play_game(player, player, seed, game, Rules(cube=False), trace=True)
        out.extend(Position.from_position_id(ply.position_id) for ply in record.history[1:])
        game += 1
    rng = random.Random(seed)
    return rng.sample(out, count)


def _states(count: int, seed: int) -> list[Xgid]:
    """Random positions under every cube state, money and match, dice or not."""
    rng = random.Random(seed)
    states = []
    for index, position in enumerate(_positions(count, seed)):
        owner = (CENTRE, ON_ROLL, OPPONENT)[index % 3]
        value = 1 if owner == CENTRE and index % 2 else 1 << rng.randrange(1, 7)
        if index % 4 < 2:  # a match, its score, sometimes the Crawford game
            match_to = rng.choice((3, 5, 7, 11))
            score = (rng.randrange(match_to), rng.randrange(match_to))
            # the Crawford game: exactly one side a point away (bgsim.match_id.check_state)
            crawford = (score[0] == match_to - 1) != (score[1] == match_to - 1) and index % 3 == 0
            extra = dict(match_to=match_to, score=score, crawford=crawford)
            if owner == CENTRE or crawford:  # a match turns the cube only by doubles, never in the Crawford game
                value, owner = 1, (CENTRE if crawford else owner)
        else:
            extra = dict(jacoby=bool(index % 2), beaver=bool(index % 3))
        dice = (rng.randint(1, 6), rng.randint(1, 6)) if index % 5 == 0 else (0, 0)
        offered = 1 if index % 7 == 0 and dice == (0, 0) and not extra.get("crawford") else 0
        if offered and owner == OPPONENT:  # no side doubles a cube its opponent owns
            owner = ON_ROLL
        states.append(Xgid(position=position, cube_value=value, cube_owner=owner, dice=dice,
                           offered=offered, **extra))
    return states


def _as_top_on_roll(text: str) -> str:
    """The same XGID written with the side on roll at the top: the board read backwards with
    the cases swapped, the owner and turn negated, the scores swapped (worked out from the
    format, independently of bgsim's writer)."""
    fields = text[len("XGID="):].split(":")
    fields[0] = "".join(c.swapcase() for c in reversed(fields[0]))
    fields[2] = str(-int(fields[2]))
    fields[3] = "-1"
    fields[5], fields[6] = fields[6], fields[5]
    return "XGID=" + ":".join(fields)


def test_xgid_round_trips_on_random_positions_and_every_cube_state():
    for state in _states(300, 5):
        text = encode(state)
        assert decode(text) == state, text
        assert decode(_as_top_on_roll(text)) == state, text


def test_xgid_and_gnubgs_match_id_say_the_same():
    for state in _states(200, 6):
        if state.offered:
            continue
        for on_roll in (0, 1):
            match_state = to_match_state(state, on_roll)
            assert decode_match_id(encode_match_id(match_state)) == match_state
            assert from_match_state(state.position, match_state, beaver=state.beaver,
                                    cube_limit=state.cube_limit) == state


@pytest.mark.parametrize("text, message", [
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0", "has 8 fields"),
    ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "26 characters"),
    ("XGID=-b----E-C---eE---c-e----Bz:0:0:1:00:0:0:0:0:10", "not 'z'"),
    ("XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", "cube owner"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10", "turn"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", "dice"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:0:0:7:10", "already won"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:1:0:1:7:10", "Crawford"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:7:10", "Crawford/Jacoby"),
    ("XGID=-b----O-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "checkers"),
])
def test_a_malformed_xgid_is_one_clear_error(text, message):
    with pytest.raises(XgidError, match=message):
        decode(text)


def test_read_position_text_takes_every_form():
    start = Position.start()
    assert read_position_text("4HPwATDgc/ABMA") == (start, None)
    position, state = read_position_text("4HPwATDgc/ABMA:cAkAAAAAAAAA")
    assert position == start and state.jacoby and state.cube_owner == CENTRE
    assert read_position_text(START) == (start, Xgid())


def test_gnubg_reads_bgsims_xgids_as_bgsims_own_ids(gnubg):
    """GNU Backgammon's ``set xgid`` of each XGID, both ways of writing it (side on roll at the
    bottom and at the top), against bgsim's position ID and match ID of the same state."""
    from experiments.analysis.gnubg_program import run_sections

    states = [state for state in _states(60, 7) if not state.offered]
    sections, texts = [], []
    for state in states:
        for text in (encode(state), _as_top_on_roll(encode(state))):
            sections.append([f"set xgid {text}", "show board"])
            texts.append(text)
    outputs = run_sections(sections, timeout=300, setup=(
        "set confirm new off", "set automatic game off", "set automatic roll off",
        "set player 0 human", "set player 1 human", "new match 3"))
    assert len(outputs) == 2 * len(states)
    for index, (text, output) in enumerate(zip(texts, outputs)):
        state = states[index // 2]
        position_id = output.split("Position ID:")[-1].split()[0]
        match_id = output.split("Match ID   :")[-1].split()[0]
        theirs = decode_match_id(match_id)
        mover = theirs.on_roll
        assert position_id == state.position.position_id, text
        owner = CENTRE if theirs.cube_owner is None else (ON_ROLL if theirs.cube_owner == mover else OPPONENT)
        assert (theirs.cube_value, owner) == (state.cube_value, state.cube_owner), text
        assert (theirs.score[mover], theirs.score[1 - mover]) == state.score, text
        assert (theirs.match_to, theirs.crawford) == (state.match_to, state.crawford), text
        assert sorted(theirs.dice) == sorted(state.dice), text  # gnubg puts the higher die first
        if not state.match_to:
            assert theirs.jacoby == state.jacoby, text
