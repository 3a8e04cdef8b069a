"""The perfect bear-off player: the reference and the fast kernel make the same choices, and in
the two-sided range its choices reach the database's exact win chances."""

from __future__ import annotations

import numpy as np
import pytest

from bgsim import Position, layouts, legal_plays
from bgsim.bearoff import cubeless_equity, database
from bgsim.bearoff.player import bearoff_choice, player_tables
from bgsim.fast import bearoff as kernels
from conftest import bearoff_position

SMALL = 3


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        # the folder test_bearoff.py uses too: the one-sided table is built once per session
        patch.setenv("BGSIM_CACHE", str(tmp_path_factory.getbasetemp() / "bearoff-cache"))
        patch.setenv("BGSIM_BEAROFF_CHECKERS", str(SMALL))  # what the bots' bearoff=true reads
        yield player_tables(SMALL)



def random_number(rng, checkers):
    return int(rng.integers(kernels.position_count(checkers - 1), kernels.position_count(checkers)))


def test_both_engines_choose_the_same(tables):
    rng = np.random.default_rng(8)
    compared = 0
    for _ in range(120):
        own = random_number(rng, int(rng.integers(1, 16)))
        opponent = random_number(rng, int(rng.integers(1, 16)))
        if rng.random() < 0.4:  # plenty of two-sided positions, where ties (sure wins) are common
            own, opponent = random_number(rng, int(rng.integers(1, SMALL + 1))), random_number(rng, int(rng.integers(1, SMALL + 1)))
        position = bearoff_position(database.counts_of(own), database.counts_of(opponent))
        board = np.array(position.board, dtype=np.int8)
        for die1, die2 in kernels.ROLLS:
            plays = legal_plays(position, (int(die1), int(die2)))
            chosen = bearoff_choice(position, plays, tables)
            fast = kernels.bearoff_pick(board, die1, die2, tables.rolls, tables.first, tables.win, tables.checkers)
            assert tuple(int(c) for c in fast) == chosen.result.board, (position.position_id, die1, die2)
            compared += 1
    assert compared == 120 * 21


def test_tables_are_the_same_objects_every_time(tables):
    again = player_tables(SMALL)
    assert again.one_sided is tables.one_sided and again.win is tables.win


def test_not_covered_positions_are_left_to_the_bot(tables):
    position = Position.from_points({7: 1, 1: 2}, {19: 3})
    assert bearoff_choice(position, legal_plays(position, (3, 1)), tables) is None
    board = np.array(position.board, dtype=np.int8)
    assert len(kernels.bearoff_pick(board, 3, 1, tables.rolls, tables.first, tables.win, tables.checkers)) == 0
    assert bearoff_choice(Position.start(), legal_plays(Position.start(), (3, 1)), tables) is None


def test_two_sided_choices_reach_the_exact_chances(tables):
    size = kernels.position_count(SMALL)
    win = tables.win.reshape(size, size)
    rng = np.random.default_rng(4)
    for own, opponent in rng.integers(1, size, size=(400, 2)):
        position = bearoff_position(database.counts_of(own), database.counts_of(opponent))
        total = 0.0
        for (die1, die2), weight in zip(kernels.ROLLS, kernels.ROLL_WEIGHTS):
            chosen = bearoff_choice(position, legal_plays(position, (int(die1), int(die2))), tables)
            after = database.position_number([max(chosen.result.board[p], 0) for p in range(1, 7)])
            total += weight * (1.0 if after == 0 else 1.0 - win[opponent, after])
        assert total / 36.0 == pytest.approx(win[own, opponent], abs=1e-12)


def test_one_sided_choices_leave_the_opponent_the_least(tables):
    # a side with 15 checkers is out of the two-sided table: the one-sided equity decides,
    # here checked against OneSided.probabilities (numpy sums, not the player's loop)
    one = database.one_sided()
    rng = np.random.default_rng(9)
    for _ in range(15):
        position = bearoff_position(database.counts_of(random_number(rng, 15)),
                                    database.counts_of(random_number(rng, int(rng.integers(1, 16)))))
        opponent = database.position_number([-position.board[25 - p] for p in range(1, 7)])
        for die1, die2 in kernels.ROLLS:
            plays = legal_plays(position, (int(die1), int(die2)))
            chosen = bearoff_choice(position, plays, tables)

            def theirs(play):
                after = database.position_number([max(play.result.board[q], 0) for q in range(1, 7)])
                return cubeless_equity(one.probabilities(opponent, after))

            assert theirs(chosen) <= min(theirs(play) for play in plays) + 1e-12


# --- the bots' bearoff switch: every fast checker bot whose layout declares it ----------------

def _spec(layout: str, arguments: str = "") -> str:
    from bots.registry import layout_spec

    return layout_spec(layouts.CHECKER, layout, arguments)


# each switched layout by a spec that plays it (nn-ahead: nn's parameters, bots.registry.layout_spec)
SWITCHED = [_spec(layout.name) for layout in layouts.fast_bots(layouts.CHECKER).values() if layout.bearoff]
SWITCHED_ON = [_spec(layout.name, "bearoff=true") for layout in layouts.fast_bots(layouts.CHECKER).values()
               if layout.bearoff]
PAIRINGS = [(SWITCHED_ON[i], SWITCHED_ON[(i + 1) % len(SWITCHED_ON)]) for i in range(0, len(SWITCHED_ON), 2)]


@pytest.mark.parametrize("white, black", PAIRINGS)
def test_bots_with_the_switch_play_the_same_in_both_engines(tables, white, black):
    from bgsim.fast.sameness import compare_frames
    from bgsim.series import play_games
    from bots import make_player

    players = make_player(white), make_player(black)
    # a 1-ply search's reference games take seconds each (its Python look-ahead)
    games = 4 if any("plies=1" in spec for spec in (white, black)) else 30
    reference = play_games(*players, 21, games, engine="reference")
    fast = play_games(*players, 21, games, engine="fast")
    assert compare_frames(reference, fast) is None


def packed_seats(bot):
    """The fast kernels' seats of checker bot ``bot`` (seat 0), packed once for many choices."""
    from bgsim.fast import seats

    holder = type("Holder", (), {})()
    holder.name, holder.checker, holder.cube = bot.name, bot, None
    return seats(holder, holder)


def fast_choice(packed, position, roll, choose):
    """The board the fast dispatch ``choose`` picks for the checker bot of seat 0 of ``packed``."""
    from bgsim.fast.dice import open_stream
    from bgsim.fast.moves import BOARD_BYTES, generate, new_buffers

    plays, keys, slots, table, order = new_buffers()
    streams = np.zeros((3, 2), dtype=np.uint64)
    for stream in range(3):
        open_stream(streams, stream, 1, 0, stream)
    board = np.zeros(BOARD_BYTES, dtype=np.int8)
    board[:26] = position.board
    count = generate(board, roll[0], roll[1], plays, keys, slots, table, order)
    index = choose(packed.codes[0], packed.params[0], packed.offsets[0], packed.float64s, packed.int32s,
                   packed.int64s, board, plays, keys, count, order, streams, 1)
    return tuple(int(v) for v in plays[index, :26])


def switch_hands_bear_offs_to_the_perfect_player(tables, name, choose):
    """Both engines: ``name(bearoff=true)`` plays every pure bear-off as the perfect player, and
    ``name`` alone plays some otherwise (so the switch is what makes the difference)."""
    from bgsim.dice import RandomStream
    from bots import make_checker

    on, off = make_checker(f"{name[:-1]},bearoff=true)" if name.endswith(")") else f"{name}(bearoff=true)"), \
        make_checker(name)
    packed = packed_seats(on)
    rng = np.random.default_rng(6)
    differ = 0
    for _ in range(8 if "plies=1" in name else 40):  # a 1-ply search's reference choice: seconds
        own = random_number(rng, int(rng.integers(1, 16)))
        opponent = random_number(rng, int(rng.integers(1, 16)))
        position = bearoff_position(database.counts_of(own), database.counts_of(opponent))
        for die1, die2 in kernels.ROLLS:
            roll = (int(die1), int(die2))
            plays = legal_plays(position, roll)
            perfect = bearoff_choice(position, plays, tables)
            assert on.choose(position, roll, plays, RandomStream(1, 1, 1)) == perfect, (name, "reference")
            assert fast_choice(packed, position, roll, choose) == perfect.result.board, (name, "fast")
            differ += off.choose(position, roll, plays, RandomStream(1, 1, 1)) != perfect
    assert differ > 0  # the bot alone plays some bear-offs otherwise


@pytest.mark.parametrize("name", SWITCHED)
def test_the_switch_hands_bear_offs_to_the_perfect_player_in_both_engines(tables, name):
    from bgsim.fast.dispatch import choose

    switch_hands_bear_offs_to_the_perfect_player(tables, name, choose)


def test_the_switch_is_a_parameter_of_the_bots_whose_layouts_declare_it():
    from bots import make_player

    assert SWITCHED
    for name, switched in zip(SWITCHED, SWITCHED_ON):
        assert make_player(name).checker.bearoff is False
        on = make_player(switched)
        assert on.checker.bearoff is True and "bearoff=true" in on.name
