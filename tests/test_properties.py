"""Properties every play of every position must have, on positions hypothesis makes up."""

from __future__ import annotations

import re
from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from bgsim import Position, legal_plays
from bgsim.dice import RandomStream
from bgsim.position_id import to_gnubg_board

SETTINGS = settings(max_examples=150, deadline=None)

dice = st.integers(min_value=1, max_value=6)
rolls = st.tuples(dice, dice)


@st.composite
def positions(draw, home_only: bool = False) -> Position:
    """Up to 15 checkers a side; the opponent skips points we hold; bars included.

    ``home_only`` keeps the side on roll in its home board (plus, sometimes, one straggler or
    one on the bar) so that bear-offs, with or without contact, come up often.
    """
    board = [0] * 26
    if home_only:
        own = draw(st.lists(st.integers(1, 6), min_size=1, max_size=15))
        straggler = draw(st.sampled_from([None, None, 25] + list(range(7, 25))))
        if straggler is not None and len(own) < 15:
            own.append(straggler)
    else:
        own = draw(st.lists(st.integers(1, 25), max_size=15))
    for slot in own:
        board[slot] += 1
    for slot in draw(st.lists(st.integers(0, 24), min_size=0 if own else 1, max_size=15)):
        if slot == 0 or board[slot] <= 0:
            board[slot] -= 1
    if not any(board):
        board[0] = -1  # no game has both sides borne off; the opponent keeps one on the bar
    return Position(tuple(board))


any_position = st.one_of(positions(), positions(home_only=True))


def dice_fit(moves, roll) -> bool:
    """Whether each move can be given its own die of the roll: a move travels its die's full
    distance, or less only when it bears the checker off."""
    available = [roll[0]] * 4 if roll[0] == roll[1] else list(roll)
    for dice in permutations(available, len(moves)):
        if all(source - target == die or (target == 0 and source - target < die)
               for (source, target, _), die in zip(moves, dice)):
            return True
    return False


def pips_played(play) -> int:
    """The distance each checker travelled: from-point minus to-point (off is 0, the bar 25)."""
    return sum(source - target for source, target, _ in play.moves)


@SETTINGS
@given(any_position, rolls)
def test_every_play_keeps_the_checkers_and_its_pips_add_up(position, roll):
    plays = legal_plays(position, roll)
    bar_before = -position.board[0]
    for play in plays:
        result = play.result
        moved_off = result.checkers_off - position.checkers_off
        on_board_before = 15 - position.checkers_off
        # checkers conserved: every own checker is still on the board or was borne off just now
        assert 15 - result.checkers_off + moved_off == on_board_before
        assert moved_off == sum(1 for _, target, _ in play.moves if target == 0)
        # the opponent never loses a checker, it only goes to the bar
        assert result.opponent_checkers_off == position.opponent_checkers_off
        # the mover's pips fall by exactly the pips played
        assert position.pip_count - result.pip_count == pips_played(play)
        # every move uses one die: its full value, or less only when it bears a checker off
        assert len(play.moves) <= (4 if roll[0] == roll[1] else 2)
        assert dice_fit(play.moves, roll), play.moves
        # a hit sends the checker to the bar and adds its pips: one on our p is 25 - p from home
        hits = [target for _, target, hit in play.moves if hit]
        assert -result.board[0] == bar_before + len(hits)
        assert result.opponent_pip_count - position.opponent_pip_count == sum(hits)


@SETTINGS
@given(any_position, rolls)
def test_every_listed_play_is_distinct_and_in_canonical_order(position, roll):
    plays = legal_plays(position, roll)
    assert len({play.result for play in plays}) == len(plays)
    assert all(play.result != position for play in plays)
    keys = [(play.result.key, play.result.board) for play in plays]
    assert keys == sorted(keys)
    assert [play.result for play in legal_plays(position, roll[::-1])] == [p.result for p in plays]


@SETTINGS
@given(any_position, rolls)
def test_notation_read_back_gives_the_result(position, roll):
    for play in legal_plays(position, roll):
        assert apply_notation(position, play.notation) == play.result, play.notation


@SETTINGS
@given(any_position)
def test_position_id_round_trips(position):
    text = position.position_id
    assert len(text) == 14
    assert Position.from_position_id(text) == position
    assert Position.from_position_id(position.turned().position_id) == position.turned()


@SETTINGS
@given(any_position)
def test_turning_twice_is_identity_and_swaps_the_sides(position):
    turned = position.turned()
    assert turned.turned() == position
    assert turned.pip_count == position.opponent_pip_count
    assert turned.checkers_off == position.opponent_checkers_off
    opponent, on_roll = to_gnubg_board(position)
    assert to_gnubg_board(turned) == (on_roll, opponent)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**63 - 1), st.integers(0, 2**63 - 1), st.integers(0, 8))
def test_a_stream_is_a_pure_function_of_seed_game_and_number(seed, game, number):
    first = RandomStream(seed, game, number)
    again = RandomStream(seed, game, number)
    draws = [first.die() for _ in range(20)]
    assert draws == [again.die() for _ in range(20)]
    assert all(1 <= die <= 6 for die in draws)
    assert all(0 <= first.below(n) < n for n in (1, 2, 3, 7, 21, 1000))


# --- reading notation back -------------------------------------------------------------------

TOKEN = re.compile(r"^(bar|\d+)((?:/\d+\*?)+|(?:/\d+\*?)*/off)(?:\((\d)\))?$")


def apply_notation(position: Position, text: str) -> Position:
    """Move checkers as the notation says, knowing no rules: each token moves its checker(s) from
    its first point to its last, and every ``*`` sends the opponent's blot there to the bar."""
    board = list(position.board)
    arrivals = []
    # hits first: in "24/19 20/19*" the blot on 19 is hit whichever checker is read first
    for token in text.split(" "):
        match = TOKEN.match(token)
        assert match, f"{token!r} is not standard notation"
        source = 25 if match.group(1) == "bar" else int(match.group(1))
        stops = match.group(2).split("/")[1:]
        for _ in range(int(match.group(3) or 1)):
            board[source] -= 1
            for stop in stops:
                if stop.endswith("*"):
                    point = int(stop[:-1])
                    assert board[point] == -1, f"{token}: no blot to hit on {point}"
                    board[point] = 0
                    board[0] -= 1
            arrivals.append(stops[-1].rstrip("*"))
    for target in arrivals:
        if target != "off":
            board[int(target)] += 1
    return Position(tuple(board))
