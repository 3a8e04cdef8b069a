"""The variants in the fast engine against the reference engine: the same games, ply for ply.

Every variant case of ``bgsim validate`` (each fast checker bot in both seats, the cube bots
where there is a cube, derived from the registries) is played in both engines, a few games
each, and compared row for row; the turns that only the variants have (Dutch's entering and
first hit, acey-deucey's chained 1-2 turns and forfeited extra rolls) are found in fast traces
and replayed ply by ply in the reference; legal plays are compared on random positions of each
variant for all 21 rolls.  No timings are asserted (see ``bgsim bench``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bgsim import Position
from bgsim.cube import Rules
from bgsim.decisions import RandomPlayer
from bgsim.fast import play_games as fast_play_games
from bgsim.fast import family_of, trace_game, uses_exact
from bgsim.fast.game import TRACE_CHOSEN_DOUBLE
from bgsim.fast.sameness import (
    compare_frames, compare_legal_plays, explain_game, random_positions, start_case, traced_position,
)
from bgsim.series import play_games
from bgsim.variants import VARIANTS
from bots import make_player
from experiments.studies.validation import case_kind, variant_cases

CASES = variant_cases()
SLOW = ("dutch", "acey-deucey")  # the reference's plain search with fifteen checkers in hand


def _case_id(case):
    white, black, rules, _ = case
    return f"{rules.variant}-{white}-vs-{black}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_every_variant_case_plays_the_reference_games(case):
    white_spec, black_spec, rules, _ = case
    white, black = make_player(white_spec), make_player(black_spec)
    games = 2 if rules.variant in SLOW or case_kind(*case).endswith(", ahead") else 4
    reference = play_games(white, black, 23, games, rules, engine="reference")
    fast = play_games(white, black, 23, games, rules, engine="fast")
    assert compare_frames(reference, fast) is None
    pd.testing.assert_frame_equal(reference, fast)
    assert (fast["rule_variant"] == rules.variant).all()
    # every bot's family, the standard game's own (BGSIM_KERNELS=all, tests/conftest.py)
    assert family_of((white, black), rules).declared.name == (
        "every_bot_with_exact" if uses_exact((white, black)) else "every_bot")


def test_the_variant_cases_play_every_bot_of_every_variant_in_both_seats():
    from bgsim import layouts

    for variant in VARIANTS[1:]:
        cases = [case for case in CASES if case[2].variant == variant]
        for role in (layouts.CHECKER, layouts.CUBE):
            declared = {name for name, layout in layouts.fast_bots(role).items() if variant in layout.variants}
            for seat in (0, 1):
                played = {getattr(make_player(case[seat]), role).fast_name for case in cases}
                if role == layouts.CUBE and variant == "acey-deucey":
                    assert declared == set() and played == {"none"}  # no cube: no cube bot asked
                else:
                    assert played == declared, (variant, role, seat)


def test_acey_deucey_chained_turns_and_forfeits_play_as_the_reference_ply_by_ply():
    """A 1-2 whose double is played in full gives the same side another roll; a double not
    played in full forfeits it; a 1-2 whose dice cannot both be played gets no double.  The
    first game of each kind met in fast traces (about one game in ten has a forfeit) is replayed
    in both engines ply by ply."""
    rules = Rules(variant="acey-deucey")
    for white, black in ((RandomPlayer(), RandomPlayer()), (make_player("racer"), make_player("heuristic"))):
        first: dict[str, int] = {}
        for number in range(80):
            _, trace = trace_game(white, black, 31, number, rules)
            for step, row in enumerate(trace[:-1]):
                following = trace[step + 1]
                if row[TRACE_CHOSEN_DOUBLE]:  # the same side rolls again only after four moves
                    first.setdefault("chain" if following[2] == row[2] else "forfeit", number)
                elif sorted((int(row[4]), int(row[5]))) == [1, 2] and not following[TRACE_CHOSEN_DOUBLE]:
                    first.setdefault("no double", number)
            if len(first) == 3:
                break
        assert set(first) == {"chain", "forfeit", "no double"}, first
        for number in sorted(set(first.values())):
            assert explain_game(white, black, 31, number, rules) is None, number


def test_dutch_entering_and_the_first_hit_play_as_the_reference_ply_by_ply():
    rules = Rules(variant="dutch")
    white, black = make_player("pubeval+pipdiff"), make_player("racer+keith")
    numbers = set()
    for number in range(6):
        _, trace = trace_game(white, black, 41, number, rules)
        positions = [(traced_position(row, "dutch"), traced_position(row, "dutch", after=True)) for row in trace]
        entering = [step for step, (before, _) in enumerate(positions) if before.in_hand[0] > 0]
        hits = [step for step, (before, after) in enumerate(positions) if after.board[0] < before.board[0]]
        assert entering and entering[0] == 0 and positions[0][0].in_hand == (15, 15)
        if hits:
            first = hits[0]
            assert not positions[first][1].cannot_hit[0]  # it had come home, or came home this turn
            numbers.add(number)
    assert numbers
    for number in sorted(numbers)[:3]:
        assert explain_game(white, black, 41, number, rules) is None, number


@pytest.mark.parametrize("variant", VARIANTS[1:])
def test_variant_legal_plays_match_the_reference_on_random_positions_for_all_21_rolls(variant):
    count = 24 if variant in SLOW else 60
    positions = random_positions(count, seed=13, variant=variant)
    assert all(position.variant == variant for position in positions)
    if variant in SLOW:
        assert any(position.in_hand[0] for position in positions)
    if variant == "dutch":
        assert any(position.cannot_hit[0] for position in positions)
    compared, mismatch = compare_legal_plays(positions)
    assert mismatch is None, str(mismatch)
    assert compared == count * 21


@pytest.mark.parametrize("variant, given", [("dutch", True), ("acey-deucey", False), ("nackgammon", True)])
def test_games_from_variant_positions_play_the_reference_games(variant, given):
    white, black = make_player("heuristic+pipdiff"), make_player("pubeval+keith")
    rules = Rules(variant=variant)
    options = start_case(6, seed=3, given=given, variant=variant)
    count = len(options["start"])
    reference = play_games(white, black, 5, count, rules, engine="reference", **options)
    fast = play_games(white, black, 5, count, rules, engine="fast", **options)
    pd.testing.assert_frame_equal(reference, fast)


def test_a_start_of_another_variant_is_refused_by_the_fast_engine_in_one_line():
    player = RandomPlayer()
    with pytest.raises(ValueError, match="is a dutch position, but the rules play acey-deucey"):
        fast_play_games(player, player, 1, 2, Rules(variant="acey-deucey"), start=Position.start("dutch"))


def test_the_stake_doubles_at_every_1_2_in_both_engines():
    rules = Rules(variant="acey-deucey", double_on_acey_deucey=True)
    white, black = make_player("racer"), make_player("random")
    reference = play_games(white, black, 9, 3, rules, engine="reference")
    fast = play_games(white, black, 9, 3, rules, engine="fast")
    pd.testing.assert_frame_equal(reference, fast)
    plain = play_games(white, black, 9, 3, Rules(variant="acey-deucey"), engine="fast")
    assert (fast["cube_value"] > 1).any()
    # the same games: the stake is the only difference, a power of two times the plain points
    assert (fast["points"] == plain["points"] * fast["cube_value"]).all()


def test_a_users_evaluation_function_plays_dutch_in_both_engines_and_is_refused_acey_deucey():
    import numba

    from bgsim.fast.custom import EvalPlayer

    @numba.njit
    def prefer_home(board):
        score = 0.0
        for point in range(1, 7):
            if board[point] >= 2:
                score += 1.0
        return score - 0.01 * board[25]

    player = EvalPlayer(prefer_home, name="prefer-home")
    opponent = make_player("racer")
    rules = Rules(variant="dutch")
    reference = play_games(player, opponent, 4, 2, rules, engine="reference")
    # the fast games through trace_game: the same play_one as play_games, without compiling the
    # play_batch entry of this uncached family (LLVM optimizes the whole loop again in each entry);
    # a custom bot's play_batch is played in tests/test_fast_custom.py
    from bgsim.fast import _compact
    from bgsim.schema import frame_from_columns

    rows = np.concatenate([trace_game(player, opponent, 4, number, rules)[0] for number in range(2)])
    fast = frame_from_columns(_compact(rows), 4, player.name, opponent.name, rules)
    pd.testing.assert_frame_equal(reference, fast)
    assert family_of((player, opponent), rules).declared.name == "custom_variants"
    with pytest.raises(TypeError, match="prefer-home cannot play acey-deucey: it has no choose_double"):
        play_games(player, opponent, 4, 2, Rules(variant="acey-deucey"), engine="fast")

