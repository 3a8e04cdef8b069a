"""The fast engine against the reference: the same dice, the same plays, the same games.

Every case of ``bgsim validate`` (each registered fast bot in both seats, derived from the
registries, and every rule option) is played in both engines (a few games each) and compared
row for row; legal plays are compared on random positions for all 21 rolls.  No timings are
asserted here (see ``bgsim bench``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bgsim import Position, legal_plays
from bgsim.cube import Rules
from bgsim.dice import RandomStream, stream_key
from bgsim.fast import family_of, legal_plays_fast, play_columns, supports, trace_game, uses_exact
from bgsim.fast.sameness import (
    FastRandomPlayer, compare_frames, compare_legal_plays, explain_game, random_positions,
)
from bgsim.series import play_games
from bots import make_player
from experiments.studies.validation import case_kind, default_cases

# the standard game's cases; the variants' are played by tests/test_fast_variants.py, fewer games
# each (the reference engine takes seconds a game with fifteen checkers in hand)
DEFAULT_CASES = [case for case in default_cases() if case[2].variant == "standard"]


def _case_id(case):
    white, black, rules, match_to = case
    changed = [name for name in rules.__dataclass_fields__ if getattr(rules, name) != getattr(Rules(), name)]
    return f"{white}-vs-{black}" + ("-" + "-".join(changed) if changed else "") + (f"-match{match_to}" if match_to else "")


@pytest.mark.parametrize("case", DEFAULT_CASES, ids=_case_id)
def test_every_pairing_and_rule_option_plays_the_reference_games(case):
    white_spec, black_spec, rules, match_to = case
    white, black = make_player(white_spec), make_player(black_spec)
    # a 1-ply search asks the reference's Python move generator of 21 rolls a ply: fewer games
    games = 2 if case_kind(*case).endswith(", ahead") else 6 if match_to else 12
    reference = play_games(white, black, 17, games, rules, match_to=match_to, engine="reference")
    fast = play_games(white, black, 17, games, rules, match_to=match_to, engine="fast")
    assert compare_frames(reference, fast) is None
    pd.testing.assert_frame_equal(reference, fast)
    # played on every bot's family (BGSIM_KERNELS=all, tests/conftest.py)
    assert family_of((white, black), rules).declared.name == (
        "every_bot_with_exact" if uses_exact((white, black)) else "every_bot")


def test_the_cases_cover_every_registered_fast_bot_in_both_seats_and_every_rule_option():
    from bgsim import layouts
    from bots import checker_bots, cube_bots

    seats = {"white": (set(), set()), "black": (set(), set())}
    for white, black, rules, match_to in DEFAULT_CASES:
        for seat, spec in (("white", white), ("black", black)):
            player = make_player(spec)
            seats[seat][0].add(player.checker.fast_name)
            seats[seat][1].add(player.cube.fast_name)
    # a bot's own layout and those its parameters take (fast_alternatives)
    checkers = {name for bot in checker_bots().values() if bot.fast_name
                for name in (bot.fast_name, *bot.fast_alternatives)}
    cubes = {name for bot in cube_bots().values() if bot.fast_name for name in (bot.fast_name, *bot.fast_alternatives)}
    assert checkers == set(layouts.fast_bots(layouts.CHECKER))
    assert cubes == set(layouts.fast_bots(layouts.CUBE))
    for seat_checkers, seat_cubes in seats.values():
        assert seat_checkers == checkers and seat_cubes == cubes
    rules = [case[2] for case in DEFAULT_CASES]
    assert any(not r.cube for r in rules) and any(r.jacoby for r in rules) and any(r.beaver for r in rules)
    assert any(r.automatic_doubles for r in rules) and any(r.backgammon_as_gammon for r in rules)
    assert any(r.max_cube != 64 for r in rules) and any(case[3] for case in DEFAULT_CASES)


def test_legal_plays_match_the_reference_on_random_positions_for_all_21_rolls():
    positions = random_positions(120, seed=5)
    compared, mismatch = compare_legal_plays(positions)
    assert mismatch is None, str(mismatch)
    assert compared == 120 * 21


@pytest.mark.parametrize("roll", [(3, 1), (6, 5), (1, 1), (6, 6), (5, 5), (2, 1)])
def test_legal_plays_in_canonical_order_on_rule_corners(roll):
    corners = [
        Position.start(),
        Position.from_points({"bar": 2, 6: 13}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}),  # dancing
        Position.from_points({"bar": 1, 8: 14}, {21: 2, 20: 1}),
        Position.from_points({7: 1, 6: 4, 5: 4, 2: 6}, {19: 15}),  # one checker outside
        Position.from_points({5: 1, 3: 1}, {20: 15}),  # bear-off with larger dice
        Position.from_points({5: 1, 3: 2, 2: 1, 1: 1}, {24: 2}),
        Position.from_points({24: 1, 12: 1}, {18: 2, 17: 2, 16: 2, 15: 2, 14: 2, 13: 2, 6: 1}),  # blocked
    ]
    for position in corners:
        reference = [play.result.board for play in legal_plays(position, roll)]
        fast = [tuple(int(v) for v in row) for row in legal_plays_fast(position, roll)]
        assert fast == reference, position.position_id


def test_dice_streams_and_draws_below_n_match_the_reference():
    from bgsim.fast.dice import below, open_stream, stream_key as fast_key

    for seed, game, stream in [(0, 0, 0), (1, 2, 3), (2**63 - 1, 2**63 - 1, 7), (12345, 99, 1)]:
        assert int(fast_key(seed, game, stream)) == stream_key(seed, game, stream)
        reference = RandomStream(seed, game, stream)
        streams = np.zeros((1, 2), dtype=np.uint64)
        open_stream(streams, 0, seed, game, stream)
        # 1 and powers of two accept every draw; 3 and 2**62+1 reject some
        for n in [1, 2, 6, 3, 64, 2**62 + 1, 21, 2**63 - 1, 1000003, 6, 5]:
            assert below(streams, 0, n) == reference.below(n)
        assert int(streams[0, 1]) == reference.draws


def test_matches_and_rollout_trials_cut_among_threads_are_the_ones_thread_plays():
    # each thread plays its own slice of the numbers into its own slice of the rows (a match
    # has several rows a number, a rollout trial a final board)
    from bgsim.fast import play_trials

    white, black = make_player("heuristic+pipdiff"), make_player("random+keith")
    alone = play_games(white, black, 4, 13, match_to=3, engine="fast", threads=1)
    pd.testing.assert_frame_equal(play_games(white, black, 4, 13, match_to=3, engine="fast", threads=2), alone)
    assert alone["game"].nunique() == 13 and len(alone) > 13
    player, numbers = make_player("heuristic"), np.arange(30, dtype=np.int64)
    one = play_trials(player, 8, numbers, Position.start(), None, False, True, threads=1)
    three = play_trials(player, 8, numbers, Position.start(), None, False, True, threads=3)
    assert np.array_equal(one[0], three[0]) and np.array_equal(one[1], three[1])
    assert one[1].any()  # games stopped at the bear-off and left their boards


def test_zobrist_keys_match_position_key():
    from bgsim.fast.moves import board_key

    for position in random_positions(30, seed=9):
        assert int(board_key(np.array(position.board, dtype=np.int8))) == position.key


def test_results_do_not_depend_on_batch_threads_or_chunks():
    white, black = make_player("heuristic+pipdiff"), make_player("random+pipdiff(double=4,take=20)")
    whole = play_games(white, black, 3, range(40), engine="fast", threads=1)
    part = play_games(white, black, 3, range(25, 40), engine="fast", threads=2)
    pd.testing.assert_frame_equal(whole.iloc[25:].reset_index(drop=True), part)
    chunks = list(play_columns(white, black, 3, range(40), chunk_rows=7))
    assert len(chunks) == 6
    games = np.concatenate([chunk["game"] for chunk in chunks])
    assert games.tolist() == list(range(40))
    points = np.concatenate([chunk["points"] for chunk in chunks])
    assert points.tolist() == whole["points"].tolist()


def test_matches_stream_in_chunks_without_splitting_a_match():
    white, black = make_player("heuristic+pipdiff"), make_player("pubeval+keith")
    reference = play_games(white, black, 8, 5, match_to=3, engine="reference")
    parts = list(play_columns(white, black, 8, 5, match_to=3, chunk_rows=10))
    games = np.concatenate([part["game"] for part in parts])
    assert games.tolist() == reference["game"].tolist()


def test_trace_follows_the_game():
    white, black = make_player("pubeval+pipdiff"), make_player("heuristic+pipdiff")
    rows, trace = trace_game(white, black, 4, 2)
    assert len(rows) == 1 and len(trace) >= rows[0, 11] >= 1
    dropped = trace[-1, 3] == 3  # a dropped double is traced as the ply after the last roll
    assert trace[-1, 1] == rows[0, 11] + (1 if dropped else 0)
    assert tuple(trace[0, 8:34]) == Position.start().board
    assert explain_game(white, black, 4, 2) is None


class _Bot:
    def __init__(self, fast_name, name=None):
        self.fast_name = fast_name
        self.name = name or fast_name

    def fast_params(self):
        return {}


class FirstPlayButClaimsRandom:
    """Plays the first legal play in the reference engine but claims to be `random`: a fake
    difference that the sameness checks must catch."""

    name = "first-play"

    def __init__(self):
        self.checker = _Bot("random")
        self.cube = _Bot("none")

    def choose_play(self, position, roll, plays, random):
        random.below(len(plays))
        return plays[0]

    def offer_double(self, position, cube):
        return False

    def respond_to_double(self, position, cube):
        return "take"


def test_the_checks_catch_a_difference_and_name_the_ply():
    liar, honest = FirstPlayButClaimsRandom(), FastRandomPlayer()
    reference = play_games(liar, honest, 1, 5, engine="reference")
    fast = play_games(liar, honest, 1, 5, engine="fast")
    mismatch = compare_frames(reference, fast)
    assert mismatch is not None and mismatch.row == 0
    ply = explain_game(liar, honest, 1, mismatch.game)
    assert ply is not None and ply.side == "white" and ply.roll is not None
    assert ply.reference != ply.fast
    assert Position.from_position_id(ply.position_id)


def test_reference_only_bots_are_refused_clearly():
    gnubg = make_player("gnubg")
    assert not supports(gnubg)
    assert supports(make_player("heuristic+keith"))
    with pytest.raises(ValueError, match="gnubg.*cannot run in the fast engine"):
        play_games(gnubg, make_player("random"), 1, 1, engine="fast")

    class Unknown(FirstPlayButClaimsRandom):
        name = "mystery"

        def __init__(self):
            self.checker = _Bot("alphazero")
            self.cube = _Bot("none")

    with pytest.raises(ValueError, match="alphazero.*cannot run in the fast engine"):
        play_games(Unknown(), make_player("random"), 1, 1, engine="fast")
    assert not supports(object())


def test_bad_input_is_refused():
    player = make_player("random")
    with pytest.raises(ValueError):
        play_games(player, player, -1, 3, engine="fast")
    with pytest.raises(ValueError):
        play_games(player, player, 1, -3, engine="fast")
    with pytest.raises(ValueError):
        play_games(player, player, 1, 3, engine="fast", threads=0)
    with pytest.raises(ValueError):
        play_games(player, player, 1, 3, Rules(jacoby=True), match_to=5, engine="fast")
    assert play_games(player, player, 1, 0, engine="fast").empty
