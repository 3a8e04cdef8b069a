"""eXtreme Gammon's position IDs (XGID): the board, the cube, the dice, the score and the rules.

An XGID is ``XGID=`` and ten fields joined by colons::

    XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10

1. the board, 26 characters seen from the *bottom* player (who moves from its 24-point down to
   its 1-point): character 0 is the top player's bar, 1..24 the bottom player's points 1..24,
   25 the bottom player's bar; ``-`` is an empty slot, ``A``..``O`` one to fifteen of the bottom
   player's checkers, ``a``..``o`` the top player's.  This is bgsim's own layout
   (``bgsim.board``) with the bottom player as the side on roll;
2. the cube value as a power of two (``0`` for 1, ``1`` for 2, ...);
3. who owns the cube: ``0`` centred, ``1`` the bottom player, ``-1`` the top player;
4. who is on roll: ``1`` the bottom player, ``-1`` the top player;
5. the dice: ``00`` before the roll, two digits once rolled, ``D`` when the side on roll has
   offered a double (``B`` beavered, ``R`` raccooned);
6. and 7. the bottom and the top player's scores;
8. in a match ``1`` for the Crawford game, else ``0``; in a money game the Jacoby rule (1) plus
   beavers (2);
9. the match length, ``0`` for a money game;
10. the cube limit as a power of two (``10``: 1024).

bgsim writes every XGID with the side on roll at the bottom (field 4 is ``1``), as it draws
every position from the side on roll; it reads both.  Field 10 may be missing in older IDs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..board import CHECKERS, Position, PositionError
from ..variants import STANDARD, variant_of

CENTRE = "centre"
ON_ROLL = "on roll"
OPPONENT = "opponent"
OWNERS = (CENTRE, ON_ROLL, OPPONENT)
DEFAULT_CUBE_LIMIT = 1024  # eXtreme Gammon's, field 10 = 10
_OFFERS = {"D": 1, "B": 2, "R": 3}  # a double offered, then beavered, then raccooned
_PREFIX = "XGID="


class XgidError(PositionError):
    """A malformed eXtreme Gammon position ID (a ValueError, as all bad input)."""


@dataclass(frozen=True)
class Xgid:
    """What an XGID says, seen from the side on roll.

    ``cube_owner`` is ``"centre"``, ``"on roll"`` or ``"opponent"``; ``score`` is (side on roll,
    opponent); ``offered`` counts the doubles on the table before the answer: 0 none, 1 a double
    (``D``), 2 a beaver (``B``), 3 a raccoon (``R``); ``dice`` is (0, 0) before the roll.
    ``crawford`` is for matches, ``jacoby`` and ``beaver`` for money games.
    """

    position: Position = field(default_factory=Position.start)
    cube_value: int = 1
    cube_owner: str = CENTRE
    dice: tuple[int, int] = (0, 0)
    offered: int = 0
    score: tuple[int, int] = (0, 0)
    match_to: int = 0
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    cube_limit: int = DEFAULT_CUBE_LIMIT

    def __post_init__(self) -> None:
        _check(self)

    @property
    def text(self) -> str:
        return encode(self)

    def __str__(self) -> str:
        return encode(self)

    def describe(self) -> str:
        """One line for people: the game, the score, the cube and the dice."""
        if self.match_to:
            text = f"match to {self.match_to}, side on roll {self.score[0]}, opponent {self.score[1]}"
            if self.crawford:
                text += ", Crawford game"
        else:
            rules = [name for name, on in (("Jacoby", self.jacoby), ("beavers", self.beaver)) if on]
            text = "money game" + (f" ({', '.join(rules)})" if rules else "")
        owner = {CENTRE: "centred", ON_ROLL: "owned by the side on roll",
                 OPPONENT: "owned by the opponent"}[self.cube_owner]
        text += f"; cube {self.cube_value} {owner}"
        if self.offered:
            text += "; " + ("a double", "a beaver", "a raccoon")[self.offered - 1] + " is offered"
        elif self.dice != (0, 0):
            text += f"; rolled {self.dice[0]}-{self.dice[1]}"
        return text


def _check(state: Xgid) -> None:
    if not isinstance(state.position, Position):
        raise XgidError(f"an XGID's position is a bgsim Position, got {type(state.position).__name__}")
    value = state.cube_value
    if not isinstance(value, int) or value < 1 or value & (value - 1) or value > 1 << 15:
        raise XgidError(f"a cube value is a power of two from 1 to 32768, got {value!r}")
    if state.cube_owner not in OWNERS:
        raise XgidError(f"the cube owner is one of {', '.join(OWNERS)}, got {state.cube_owner!r}")
    dice = tuple(state.dice)
    if dice != (0, 0) and not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        raise XgidError(f"the dice are two numbers from 1 to 6, or (0, 0) before the roll, got {state.dice!r}")
    if state.offered not in (0, 1, 2, 3):
        raise XgidError(f"offered is 0 (none), 1 (double), 2 (beaver) or 3 (raccoon), got {state.offered!r}")
    if state.offered and dice != (0, 0):
        raise XgidError("a double is offered before the roll: the dice cannot show a roll then")
    if not isinstance(state.match_to, int) or state.match_to < 0:
        raise XgidError(f"a match length is 0 (money) or more, got {state.match_to!r}")
    for score in state.score:
        if not isinstance(score, int) or score < 0:
            raise XgidError(f"a score is a whole number of at least 0, got {score!r}")
    if state.match_to and (state.jacoby or state.beaver):
        raise XgidError("the Jacoby rule and beavers are money-game rules, not match rules")
    limit = state.cube_limit
    if not isinstance(limit, int) or limit < 1 or limit & (limit - 1) or limit > 1 << 15:
        raise XgidError(f"a cube limit is a power of two from 1 to 32768, got {limit!r}")
    from ..match_id import check_state  # the rules of cube and score, once for every kind of ID

    try:
        check_state(value, state.cube_owner == CENTRE, state.match_to, tuple(state.score), state.crawford,
                    offered=bool(state.offered), doubler_owns_no_cube=state.offered == 1 and state.cube_owner == OPPONENT,
                    cube_limit=limit, money_score=False)
    except ValueError as error:
        raise XgidError(str(error)) from None


def _slot_char(count: int) -> str:
    if count == 0:
        return "-"
    if count > 0:
        return chr(ord("A") + count - 1)
    return chr(ord("a") - count - 1)


_SLOT_CHARS = {count: _slot_char(count) for count in range(-15, 16)}


def _board_text(board) -> str:
    return "".join([_SLOT_CHARS[count] for count in board])


def encode(state: Xgid) -> str:
    """The XGID of ``state``, with the side on roll at the bottom."""
    owner = {CENTRE: 0, ON_ROLL: 1, OPPONENT: -1}[state.cube_owner]
    if state.offered:
        dice = "DBR"[state.offered - 1]
    else:
        dice = f"{state.dice[0]}{state.dice[1]}"
    if state.match_to:
        rules = int(state.crawford)
    else:
        rules = int(state.jacoby) + 2 * int(state.beaver)
    fields = [
        _board_text(state.position.board),
        str(state.cube_value.bit_length() - 1),
        str(owner),
        "1",
        dice,
        str(state.score[0]),
        str(state.score[1]),
        str(rules),
        str(state.match_to),
        str(state.cube_limit.bit_length() - 1),
    ]
    return _PREFIX + ":".join(fields)


_BOARD = re.compile(r"[-A-Oa-o]{26}")


def _integer(text: str, name: str, xgid: str) -> int:
    if not re.fullmatch(r"-?\d{1,5}", text):
        raise XgidError(f"XGID {xgid!r}: the {name} field is {text!r}, not a whole number")
    return int(text)


def decode(text: str) -> Xgid:
    """What the XGID ``text`` says (with or without ``XGID=``); XgidError names what is wrong."""
    if not isinstance(text, str):
        raise XgidError(f"an XGID is a string, got {type(text).__name__}")
    original = text
    text = text.strip()
    if text.upper().startswith(_PREFIX):
        text = text[len(_PREFIX):]
    fields = text.split(":")
    if len(fields) not in (9, 10):
        raise XgidError(f"XGID {original!r} has {len(fields)} fields; an XGID has 10 "
                        "(board:cube:owner:turn:dice:score:score:rules:length:limit)")
    board_text = fields[0]
    if not _BOARD.fullmatch(board_text):
        bad = next((char for char in board_text if not re.fullmatch(r"[-A-Oa-o]", char)), None)
        raise XgidError(f"XGID {original!r}: the board is 26 characters of -, A-O and a-o"
                        + (f", not {bad!r}" if bad else f", got {len(board_text)}"))
    board = []
    for slot, char in enumerate(board_text):
        if char == "-":
            board.append(0)
        elif char.isupper():
            board.append(ord(char) - ord("A") + 1)
        else:
            board.append(-(ord(char) - ord("a") + 1))
    if board[25] < 0 or board[0] > 0:
        raise XgidError(f"XGID {original!r}: a bar holds the other side's checkers "
                        "(character 0 is the top player's bar, 25 the bottom player's)")
    try:
        bottom = Position(tuple(board))
    except PositionError as error:
        raise XgidError(f"XGID {original!r}: {error}") from None
    cube_log2 = _integer(fields[1], "cube", original)
    owner = _integer(fields[2], "cube owner", original)
    turn = _integer(fields[3], "turn", original)
    if not 0 <= cube_log2 <= 15:
        raise XgidError(f"XGID {original!r}: cube 2^{cube_log2} is not a cube")
    if owner not in (-1, 0, 1):
        raise XgidError(f"XGID {original!r}: the cube owner is 0, 1 or -1, got {owner}")
    if turn not in (-1, 1):
        raise XgidError(f"XGID {original!r}: the turn is 1 (bottom) or -1 (top), got {turn}")
    dice_text = fields[4].upper()
    offered, dice = 0, (0, 0)
    if dice_text in _OFFERS:
        offered = _OFFERS[dice_text]
    elif re.fullmatch(r"00|[1-6][1-6]", dice_text):
        dice = (int(dice_text[0]), int(dice_text[1]))
    else:
        raise XgidError(f"XGID {original!r}: the dice are 00, two dice 1-6, D, B or R, got {fields[4]!r}")
    bottom_score = _integer(fields[5], "bottom score", original)
    top_score = _integer(fields[6], "top score", original)
    rules = _integer(fields[7], "Crawford/Jacoby", original)
    match_to = _integer(fields[8], "match length", original)
    limit_log2 = _integer(fields[9], "cube limit", original) if len(fields) == 10 else 10
    if not 0 <= limit_log2 <= 15:
        raise XgidError(f"XGID {original!r}: cube limit 2^{limit_log2} is not a cube")
    if not 0 <= rules <= 3 or (match_to and rules > 1):
        raise XgidError(f"XGID {original!r}: the Crawford/Jacoby field is 0 or 1 in a match, "
                        f"0 to 3 in a money game, got {rules}")
    position = bottom if turn == 1 else bottom.turned()
    if position.checkers_off == CHECKERS and position.opponent_checkers_off == CHECKERS:
        raise XgidError(f"XGID {original!r}: both sides have borne off all 15 checkers")
    owners = {0: CENTRE, turn: ON_ROLL, -turn: OPPONENT}
    score = (bottom_score, top_score) if turn == 1 else (top_score, bottom_score)
    try:
        return Xgid(
            position=position, cube_value=1 << cube_log2, cube_owner=owners[owner], dice=dice,
            offered=offered, score=score, match_to=match_to,
            crawford=bool(match_to and rules & 1), jacoby=bool(not match_to and rules & 1),
            beaver=bool(not match_to and rules & 2), cube_limit=1 << limit_log2,
        )
    except XgidError as error:
        raise XgidError(f"XGID {original!r}: {error}") from None


def xgid_of(position: Position) -> str:
    """``position``'s XGID: the side on roll at the bottom, before its roll, cube centred, money."""
    return Xgid(position=position).text


def position_from_xgid(text: str) -> Position:
    """The position of an XGID, seen from the side on roll."""
    return decode(text).position


def looks_like_xgid(text: str) -> bool:
    """Whether ``text`` is meant as an XGID (it may still be malformed)."""
    text = text.strip()
    return text.upper().startswith(_PREFIX) or (":" in text and len(text.split(":")[0]) == 26)


# --- GNU Backgammon's match state -----------------------------------------------------------


def to_match_state(state: Xgid, on_roll: int = 0):
    """GNU Backgammon's view of ``state`` (:class:`bgsim.match_id.MatchState`), the side on
    roll being player ``on_roll``.  A beaver or raccoon on the table has no match ID: refused."""
    from ..match_id import MatchState

    if state.offered > 1:
        raise XgidError("a GNU Backgammon match ID cannot hold a beaver or raccoon on the table")
    other = 1 - on_roll
    owner = {CENTRE: None, ON_ROLL: on_roll, OPPONENT: other}[state.cube_owner]
    score = [0, 0]
    score[on_roll], score[other] = state.score
    return MatchState(
        cube_value=state.cube_value, cube_owner=owner, on_roll=on_roll, crawford=state.crawford,
        turn=other if state.offered else on_roll, doubled=bool(state.offered), dice=state.dice,
        match_to=state.match_to, score=(score[0], score[1]), jacoby=state.jacoby,
    )


def from_match_state(position: Position, match_state, beaver: bool = False,
                     cube_limit: int = DEFAULT_CUBE_LIMIT) -> Xgid:
    """The XGID of a GNU Backgammon position ID and match state (the position from the side on
    roll, as GNU Backgammon gives it)."""
    on_roll = match_state.on_roll
    if match_state.cube_owner is None:
        owner = CENTRE
    else:
        owner = ON_ROLL if match_state.cube_owner == on_roll else OPPONENT
    score = (match_state.score[on_roll], match_state.score[1 - on_roll])
    money = not match_state.match_to
    return Xgid(
        position=position, cube_value=match_state.cube_value, cube_owner=owner,
        dice=tuple(match_state.dice), offered=int(match_state.doubled), score=score,
        match_to=match_state.match_to, crawford=match_state.crawford,
        jacoby=money and match_state.jacoby, beaver=money and beaver, cube_limit=cube_limit,
    )




def read_position_text(text: str, variant: str | None = None) -> tuple[Position, Xgid | None]:
    """A position given as a GNU Backgammon position ID (or bgsim's position string, which adds a
    variant's state: ``bgsim.position_id``), ``POSITIONID:MATCHID`` or an XGID: the position from
    the side on roll, and the cube, dice and score when the text gives them.  ``variant``: the
    variant a bare position ID is read in (``Position.from_string``); an XGID and a match ID
    describe standard positions only."""
    from ..match_id import decode as decode_match_id, split_gnubg_id

    if not isinstance(text, str):
        raise XgidError(f"a position is a GNU Backgammon ID or an XGID, got {type(text).__name__}")
    position_id, match_id = split_gnubg_id(text)
    if match_id is None and not looks_like_xgid(text):
        return Position.from_string(position_id, variant), None
    if variant is not None and variant_of(variant).name != STANDARD:
        raise XgidError(f"{text!r} describes a position of the standard game, not of {variant}: give a "
                        "bgsim position string (bgsim.position_id)")
    if looks_like_xgid(text):
        state = decode(text)
        return state.position, state
    position = Position.from_position_id(position_id)
    return position, from_match_state(position, decode_match_id(match_id))


__all__ = ["CENTRE", "ON_ROLL", "OPPONENT", "Xgid", "XgidError", "decode", "encode",
           "from_match_state", "looks_like_xgid", "read_position_text", "to_match_state"]
