"""GNU Backgammon match IDs: bgsim's encoder and decoder against gnubg's own."""

from __future__ import annotations

import base64
import random

import pytest

from bgsim.match_id import MatchIdError, MatchState, decode, encode, split_gnubg_id


def _random_state(rng: random.Random) -> MatchState:
    """A state a game reaches (bgsim.match_id.check_state): an owned cube shows 2 or more, a
    match's centred cube 1; the Crawford game has one side (only one) a point away, and no cube."""
    match_to = rng.choice([0, 1, 3, 5, 7, 11, 25])
    score = (rng.randrange(match_to), rng.randrange(match_to)) if match_to else (0, 0)
    one_away = match_to > 1 and (score[0] == match_to - 1) != (score[1] == match_to - 1)
    crawford = one_away and rng.random() < 0.5
    rolled = rng.random() < 0.5
    on_roll = rng.randrange(2)
    owner = None if crawford else rng.choice([None, 0, 1])
    value = 1 << rng.randrange(1, 7) if owner is not None else (1 << rng.randrange(7) if not match_to else 1)
    return MatchState(
        cube_value=value,
        cube_owner=owner,
        on_roll=on_roll,
        crawford=crawford,
        game_state=1,
        turn=on_roll,  # no double pending: the roller decides
        doubled=False,
        resigned=0,
        # gnubg's posinfo stores the larger die first, so draw them that way
        dice=tuple(sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True)) if rolled else (0, 0),
        match_to=match_to,
        score=score,
        jacoby=rng.random() < 0.5,
    )


def test_match_ids_agree_with_gnu_backgammon_on_random_states():
    gnubg = pytest.importorskip("gnubg")
    rng = random.Random(12)
    for _ in range(2000):
        state = _random_state(rng)
        owner = -1 if state.cube_owner is None else state.cube_owner
        cube = gnubg.cubeinfo(state.cube_value, owner, state.on_roll, state.match_to,
                              state.score, int(state.crawford), 0)
        cube["jacoby"] = int(state.jacoby)
        position = gnubg.posinfo(state.on_roll, 0, 0, state.game_state, state.dice)
        expected = gnubg.matchid(cube, position)
        assert encode(state) == expected, state
        assert decode(expected) == state


def test_known_match_id_of_a_new_money_game():
    # gnubg's match ID with nothing set: cube 1 centred, player 0, no game
    state = decode("MAAAAAAAAAAA")
    assert state.cube_value == 1 and state.cube_owner is None and state.match_to == 0
    assert state.game_state == 0


def test_match_id_round_trip_and_description():
    state = MatchState(cube_value=2, cube_owner=1, on_roll=0, match_to=7, score=(6, 3), dice=(3, 1))
    assert decode(encode(state)) == state
    assert state.away(0) == 1 and state.away(1) == 4
    assert "match to 7, score 6-3, post-Crawford" in state.describe()
    assert "cube 2 owned by player 1" in state.describe()


@pytest.mark.parametrize("text, message", [
    ("MAAAAAAAAAA", "12 base64"),
    ("MAAAAAAAAAA!", "12 base64"),
    (base64.b64encode((1 << 70).to_bytes(9, "little")).decode(), "past the last field"),
    ("/wAAAAAAAAAA", "cube value"),
])
def test_bad_match_ids_name_the_problem(text, message):
    with pytest.raises(MatchIdError, match=message):
        decode(text)


def test_a_score_that_already_won_is_rejected():
    raw = MatchState(match_to=5, score=(4, 2))
    text = encode(raw)
    # push player 0's score to 5 (a finished match) by hand
    value = int.from_bytes(base64.b64decode(text), "little")
    value += 1 << 36
    bad = base64.b64encode(value.to_bytes(9, "little")).decode()
    with pytest.raises(MatchIdError, match="already won"):
        decode(bad)


def test_split_gnubg_id():
    assert split_gnubg_id("4HPwATDgc/ABMA:cAkAAAAAAAAA") == ("4HPwATDgc/ABMA", "cAkAAAAAAAAA")
    assert split_gnubg_id("4HPwATDgc/ABMA") == ("4HPwATDgc/ABMA", None)


def test_a_one_point_match_is_neither_crawford_nor_post_crawford():
    text = MatchState(match_to=1, score=(0, 0)).describe()
    assert "Crawford" not in text
