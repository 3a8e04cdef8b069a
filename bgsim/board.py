"""The one board encoding of bgsim, always seen from the side on roll.

A position is 26 small integers, ``board[0..25]``:

* ``board[p]`` for ``p`` in 1..24 is point ``p`` *in the numbering of the side on roll*
  (it moves from its 24-point towards its 1-point): a positive count is that many of its own
  checkers, a negative count is that many of the opponent's.
* ``board[25]`` is the number of the side on roll's checkers on the bar (zero or positive):
  a checker on the bar is 25 pips from home, so it sits just beyond the 24-point.
* ``board[0]`` is minus the number of the opponent's checkers on the bar (zero or negative):
  the opponent enters towards our 24-point, so its bar is "point 0" in our numbering.

Checkers borne off are not stored: each side has 15 and the rest are off.  Turning the board to
the other side is ``new[i] = -old[25 - i]``.  The same layout is used by the fast engine.

A variant (``bgsim.variants``) adds state beside the board: checkers in hand (not yet entered,
not borne off) and, in Dutch backgammon, whether each side may hit yet.  A position of the
standard game carries the neutral state (nothing in hand, both sides may hit) and its equality,
hash and key are those of its 26 slots alone.  Off = the variant's checkers (15, or 1..3 in
hypergammon) - on the board - on the bar - in hand.  The fast engine keeps the state in bytes
26..29 of its 32-byte board; the search of ``bgsim.rules`` works on the same 30 slots
(:data:`HAND`, :data:`OPPONENT_HAND`, :data:`NO_HIT`, :data:`OPPONENT_NO_HIT`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .slots import BAR, CHECKERS, HOME, OPPONENT_BAR, PositionError  # noqa: F401 (public names)
from .variants import STANDARD, Variant, variant_of

# The variant state's slots after the 26 of the board (bytes 26..29 of the fast board).
HAND = 26  # checkers in hand of the side on roll: a move from here enters as from the bar
OPPONENT_HAND = 27
NO_HIT = 28  # 1 while the side on roll may not hit yet (Dutch)
OPPONENT_NO_HIT = 29
SEARCH_SLOTS = 30
NEUTRAL_HAND = (0, 0)
NEUTRAL_HITS = (False, False)


def _zobrist_table() -> tuple[tuple[int, ...], ...]:
    # A fixed table of 64-bit numbers, one per (slot, count), drawn from SplitMix64 so that the
    # fast engine can build the very same table.  The key orders plays canonically (see rules.py).
    # Rows 0..25 are the board's slots; rows 26..29, drawn after them so that no board slot's
    # number moved, are the variant state's (HAND .. OPPONENT_NO_HIT).
    from .dice import mix64, GOLDEN, MASK64

    state = 0x62672D73696D  # "bg-sim"
    table = []
    for _slot in range(SEARCH_SLOTS):
        row = []
        for _count in range(2 * CHECKERS + 1):
            state = (state + GOLDEN) & MASK64
            row.append(mix64(state))
        table.append(tuple(row))
    return tuple(table)


_TABLE = _zobrist_table()
ZOBRIST = _TABLE[:26]
# A state slot holding 0 adds nothing to a key, so every standard position keeps its key.
STATE_ZOBRIST = _TABLE[26:]


def pip_counts(board) -> tuple[int, int]:
    """(own pips, opponent pips) of a 26-slot board; a checker on the bar is 25 pips away."""
    own = sum(point * count for point, count in enumerate(board) if count > 0)
    opponent = sum((25 - point) * -count for point, count in enumerate(board) if count < 0)
    return own, opponent


def is_race(board) -> bool:
    """No contact on a 26-slot board: every own checker (bar = 25) is below every opponent
    checker (bar = 0), so neither side can hit the other again."""
    own = [slot for slot in range(1, 26) if board[slot] > 0]
    opponent = [slot for slot in range(0, 25) if board[slot] < 0]
    if not own or not opponent:
        return True  # a side with everything off cannot be hit nor hit
    return max(own) < min(opponent)


@dataclass(frozen=True)
class Position:
    """A backgammon position seen from the side on roll; see the module docstring.

    ``variant`` names the game (``bgsim.variants``); ``in_hand`` is (side on roll, opponent)
    checkers in hand; ``cannot_hit`` is (side on roll, opponent): True while that side may not
    hit yet (Dutch).  Equality compares all four; the hash is the board's alone, as it always was.
    """

    board: tuple[int, ...]
    variant: str = STANDARD
    in_hand: tuple[int, int] = NEUTRAL_HAND
    cannot_hit: tuple[bool, bool] = NEUTRAL_HITS

    def __post_init__(self) -> None:
        board = self.board
        if not isinstance(board, tuple):
            object.__setattr__(self, "board", tuple(board))
            board = self.board
        if len(board) != 26:
            raise PositionError(f"a board has 26 slots (bar, 24 points, bar), got {len(board)}")
        for slot, count in enumerate(board):
            if not isinstance(count, int) or isinstance(count, bool):
                raise PositionError(f"slot {slot} holds {count!r}, not a whole number of checkers")
        if board[BAR] < 0:
            raise PositionError(f"the side on roll cannot have {board[BAR]} checkers on the bar")
        if board[OPPONENT_BAR] > 0:
            raise PositionError("the opponent's bar count must be zero or negative")
        own = sum(count for count in board[1:] if count > 0)
        opponent = -sum(count for count in board[:25] if count < 0)
        if self.in_hand != NEUTRAL_HAND or self.cannot_hit != NEUTRAL_HITS:
            limit = self._check_variant_state(own, opponent)
        elif self.variant == STANDARD:
            limit = CHECKERS
        else:
            try:
                limit = variant_of(self.variant).checkers
            except ValueError as error:
                raise PositionError(str(error)) from None
        if own > limit or opponent > limit:
            side, count = ("the side on roll", own) if own > limit else ("the opponent", opponent)
            game = "" if self.variant == STANDARD else f" ({self.variant} has {limit} a side)"
            raise PositionError(f"{side} has {count} checkers, more than {limit}{game}")

    def _check_variant_state(self, own: int, opponent: int) -> int:
        """Check the state a variant adds; the checkers a side may have on the board and bar."""
        try:
            rules = variant_of(self.variant)
        except ValueError as error:
            raise PositionError(str(error)) from None
        object.__setattr__(self, "in_hand", _pair(self.in_hand, "in_hand", _is_count))
        object.__setattr__(self, "cannot_hit", _pair(self.cannot_hit, "cannot_hit", _is_flag))
        in_hand, cannot_hit = self.in_hand, self.cannot_hit
        if in_hand != NEUTRAL_HAND and not rules.hand:
            raise PositionError(f"{rules.name} has no checkers in hand, got {in_hand[0]} and {in_hand[1]}")
        if cannot_hit != NEUTRAL_HITS and not rules.hits_after_home:
            raise PositionError(f"only Dutch backgammon bars a side from hitting, not {rules.name}")
        for side, on_board, hand in (("the side on roll", own, in_hand[0]), ("the opponent", opponent, in_hand[1])):
            if on_board + hand > rules.checkers:
                raise PositionError(
                    f"{side} has {on_board} checkers on the board and bar and {hand} in hand: "
                    f"{rules.name} has {rules.checkers} a side")
        board = self.board
        if cannot_hit[0] and (own + in_hand[0] < rules.checkers or any(board[p] > 0 for p in HOME)):
            raise PositionError("the side on roll has a checker home or borne off: it has reached its home "
                                "board, so it may hit")
        if cannot_hit[1] and (opponent + in_hand[1] < rules.checkers or any(board[25 - p] < 0 for p in HOME)):
            raise PositionError("the opponent has a checker home or borne off: it has reached its home "
                                "board, so it may hit")
        return rules.checkers

    # --- construction -------------------------------------------------------------------

    @classmethod
    def start(cls, variant: str = STANDARD) -> "Position":
        """The starting position of ``variant`` (either side on roll: it is symmetric)."""
        rules = variant_of(variant)
        own = dict(rules.start)
        board = [0] * 26
        for point, count in own.items():
            board[point] = count
            board[25 - point] = -count
        if rules.name == STANDARD:
            return cls(tuple(board))
        hits = (True, True) if rules.hits_after_home else NEUTRAL_HITS
        return cls(tuple(board), rules.name, (rules.hand, rules.hand), hits)

    @classmethod
    def from_points(
        cls, own: Mapping[int | str, int], opponent: Mapping[int | str, int]
    ) -> "Position":
        """Build a position from two short literals, both in the numbering of the side on roll.

        Keys are points 1..24 or ``"bar"``; values are checker counts.  Checkers not placed are off.
        ``Position.from_points({"bar": 1, 6: 14}, {7: 1})`` has one of ours on the bar and a
        lone opponent checker on our 7-point.  (A variant's state: ``dataclasses.replace`` the
        result, e.g. ``replace(position, variant="dutch", in_hand=(2, 0))``.)
        """
        board = [0] * 26
        for side, sign in ((own, 1), (opponent, -1)):
            for where, count in side.items():
                if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                    raise PositionError(f"checker count {count!r} at {where!r} is not a count")
                if where == "bar":
                    slot = BAR if sign > 0 else OPPONENT_BAR
                elif isinstance(where, int) and not isinstance(where, bool) and 1 <= where <= 24:
                    slot = where
                else:
                    raise PositionError(f"{where!r} is not a point (1..24) or 'bar'")
                if board[slot] * sign < 0:
                    raise PositionError(f"both sides have checkers on point {where}")
                board[slot] += sign * count
        return cls(tuple(board))

    @classmethod
    def from_position_id(cls, text: str) -> "Position":
        """Decode a GNU Backgammon position ID (14 characters)."""
        from .position_id import decode

        return cls(decode(text))

    @classmethod
    def from_string(cls, text: str, variant: str | None = None) -> "Position":
        """Decode a bgsim position string: a GNU Backgammon position ID, with the variant and its
        state after it for a variant position (``bgsim.position_id.decode_string``)."""
        from .position_id import PositionIdError, decode_string

        board, variant, in_hand, cannot_hit = decode_string(text, variant)
        try:
            return cls(board, variant, in_hand, cannot_hit)
        except PositionError as error:
            raise PositionIdError(f"position {text!r}: {error}") from None

    @classmethod
    def from_search(cls, slots, variant: str = STANDARD) -> "Position":
        """The position of the 26 (standard) or 30 slots of the move search (``bgsim.rules``)."""
        if len(slots) == 26:
            return cls(tuple(slots), variant)
        return cls(tuple(slots[:26]), variant, (slots[HAND], slots[OPPONENT_HAND]),
                   (slots[NO_HIT] > 0, slots[OPPONENT_NO_HIT] > 0))

    # --- views --------------------------------------------------------------------------

    @property
    def variant_rules(self) -> Variant:
        """The :class:`bgsim.variants.Variant` this position is played under."""
        return variant_of(self.variant)

    @property
    def has_state(self) -> bool:
        """Checkers in hand or a side barred from hitting: more than the 26 slots to carry."""
        return self.in_hand != NEUTRAL_HAND or self.cannot_hit != NEUTRAL_HITS

    @property
    def search_slots(self) -> list[int]:
        """The 30 slots of the move search: the board, then HAND .. OPPONENT_NO_HIT."""
        return [*self.board, self.in_hand[0], self.in_hand[1], int(self.cannot_hit[0]), int(self.cannot_hit[1])]

    @property
    def position_id(self) -> str:
        """The GNU Backgammon position ID of this position's board, same side on roll (checkers
        in hand are not in it: see :attr:`position_string`)."""
        from .position_id import encode

        return encode(self)

    @property
    def position_string(self) -> str:
        """bgsim's position string: the GNU Backgammon position ID, and for a variant position
        the variant and its state after it (``bgsim.position_id.encode_string``)."""
        if self.variant == STANDARD:
            return self.position_id
        from .position_id import encode_string

        return encode_string(self)

    def turned(self) -> "Position":
        """The same position seen from the other side (the opponent now on roll)."""
        board = tuple(-self.board[25 - slot] for slot in range(26))
        if self.variant == STANDARD:
            return Position(board)
        return Position(board, self.variant, self.in_hand[::-1], self.cannot_hit[::-1])

    def as_standard(self) -> "Position":
        """This position as one of the standard game, for players that know only that game:
        checkers in hand on the bar (they are 25 pips away and enter the same way), no bar on
        hitting, and a hypergammon side's missing checkers off.  A standard position is itself."""
        if self.variant == STANDARD:
            return self
        board = list(self.board)
        board[BAR] += self.in_hand[0]
        board[OPPONENT_BAR] -= self.in_hand[1]
        return Position(tuple(board))

    @property
    def pip_count(self) -> int:
        """Pips the side on roll needs to bear off everything (a bar checker counts 25, as does
        one in hand)."""
        return pip_counts(self.board)[0] + 25 * self.in_hand[0]

    @property
    def opponent_pip_count(self) -> int:
        return pip_counts(self.board)[1] + 25 * self.in_hand[1]

    @property
    def checkers(self) -> int:
        """Checkers each side plays with: 15, or 1 to 3 in hypergammon."""
        return CHECKERS if self.variant == STANDARD else variant_of(self.variant).checkers

    @property
    def checkers_off(self) -> int:
        return self.checkers - sum(count for count in self.board if count > 0) - self.in_hand[0]

    @property
    def opponent_checkers_off(self) -> int:
        return self.checkers - sum(-count for count in self.board if count < 0) - self.in_hand[1]

    @property
    def finished(self) -> bool:
        """A side has borne off every checker: the game is over."""
        return self.checkers_off == self.checkers or self.opponent_checkers_off == self.checkers

    @property
    def all_home(self) -> bool:
        """True when every checker of the side on roll is in its home board or off."""
        return all(count <= 0 for count in self.board[7:26]) and self.in_hand[0] == 0

    @property
    def is_race(self) -> bool:
        """True when contact is over: every own checker is past every opponent checker."""
        return is_race(self.as_standard().board)

    @property
    def key(self) -> int:
        """A 64-bit Zobrist hash of the board: the canonical order of plays sorts on it.  The
        variant state adds to it only where it is not neutral (``bgsim.variants``)."""
        key = 0
        for slot, count in enumerate(self.board):
            key ^= ZOBRIST[slot][count + CHECKERS]
        if self.variant != STANDARD:
            for row, value in enumerate(self.search_slots[26:]):
                if value:
                    key ^= STATE_ZOBRIST[row][value + CHECKERS]
        return key

    def __hash__(self) -> int:
        # The board's hash alone, as before variants: sets of standard positions keep their
        # order, and a variant's name (a str) would make hashes differ between processes.
        return hash((self.board,))

    def __str__(self) -> str:
        from .drawing import draw

        return draw(self)


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= CHECKERS


def _is_flag(value) -> bool:
    return isinstance(value, bool)


def _pair(value, name: str, check) -> tuple:
    try:
        first, second = value
    except (TypeError, ValueError):
        raise PositionError(f"{name} is a pair (side on roll, opponent), got {value!r}") from None
    if not (check(first) and check(second)):
        wanted = "counts of 0 to 15 checkers" if check is _is_count else "True or False"
        raise PositionError(f"{name} holds {wanted}, got {value!r}")
    return first, second
