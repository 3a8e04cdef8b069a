"""GNU Backgammon match IDs: 12 base64 characters for the score, cube and turn (66 bits).

A match ID goes with a position ID (gnubg writes both as ``POSITIONID:MATCHID``).  Its nine
bytes hold these fields, least significant bit first (GNU Backgammon's manual, "Match ID"):

==========  ====  ===================================================================
bits        size  field
==========  ====  ===================================================================
0-3         4     log2 of the cube value
4-5         2     cube owner: 0 or 1 a player, 3 centred
6           1     the player on roll (who owns the dice)
7           1     this is the Crawford game
8-10        3     game state: 0 no game, 1 playing, 2 over, 3 resigned, 4 ended by a drop
11          1     the player who must decide now (differs from the roller after a double)
12          1     a double is being offered
13-14       2     resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
15-17       3     first die (0 when not rolled)
18-20       3     second die
21-35       15    match length (0: money game)
36-50       15    player 0's score
51-65       15    player 1's score
66          1     the Jacoby rule is off (money games; written by current GNU Backgammon)
==========  ====  ===================================================================

72 bits in all; the last 6 are zero.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

_ID_PATTERN = re.compile(r"[A-Za-z0-9+/]{12}")
_FIELDS = (  # name, first bit, size
    ("cube_log2", 0, 4), ("cube_owner", 4, 2), ("on_roll", 6, 1), ("crawford", 7, 1),
    ("game_state", 8, 3), ("turn", 11, 1), ("doubled", 12, 1), ("resigned", 13, 2),
    ("die1", 15, 3), ("die2", 18, 3), ("match_to", 21, 15), ("score0", 36, 15),
    ("score1", 51, 15), ("no_jacoby", 66, 1),
)
CENTRED = 3
GAME_STATES = ("no game", "playing", "over", "resigned", "dropped")


class MatchIdError(ValueError):
    """A malformed GNU Backgammon match ID."""


@dataclass(frozen=True)
class MatchState:
    """What a match ID says.  Players are 0 and 1 as in GNU Backgammon; ``cube_owner`` is None
    for a centred cube; ``dice`` is (0, 0) before the roll."""

    cube_value: int = 1
    cube_owner: int | None = None
    on_roll: int = 0
    crawford: bool = False
    game_state: int = 1
    turn: int = 0
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    match_to: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = True

    def away(self, player: int) -> int:
        """Points ``player`` still needs (match play only)."""
        if not self.match_to:
            raise ValueError("a money game has no score to reach")
        return self.match_to - self.score[player]

    def describe(self) -> str:
        """One line for people: score, Crawford, cube, who is on roll."""
        if self.match_to:
            text = f"match to {self.match_to}, score {self.score[0]}-{self.score[1]}"
            if self.crawford:
                text += ", Crawford game"
            elif self.match_to > 1 and max(self.score) == self.match_to - 1:
                # a 1-point match has no Crawford game: 0-0 is just its only game
                text += ", post-Crawford"
        else:
            text = "money game" + ("" if self.jacoby else " without the Jacoby rule")
        owner = "centred" if self.cube_owner is None else f"owned by player {self.cube_owner}"
        text += f"; cube {self.cube_value} {owner}; player {self.on_roll} on roll"
        if self.dice != (0, 0):
            text += f", rolled {self.dice[0]}-{self.dice[1]}"
        if self.doubled:
            text += f"; a double is offered to player {self.turn}"
        if self.game_state != 1:
            text += f"; game {GAME_STATES[self.game_state]}"
        return text


def check_state(cube_value: int, centred: bool, match_to: int, score: tuple[int, int], crawford: bool,
                offered: bool = False, doubler_owns_no_cube: bool = False, cube_limit: int | None = None,
                money_score: bool = True) -> None:
    """The states no game reaches, refused in one line (a ValueError saying why): the rules of the
    cube and the score every position state is held to, its XGID and its match ID alike.

    An owned cube shows 2 or more; in a match a centred cube shows 1 (only a money game's automatic
    doubles turn it without an owner); no cube is above its limit; the Crawford game has a match
    longer than one point with exactly one side a point away, and no cube turned or offered in it;
    no side doubles a cube its opponent owns; a money game has no score where ``money_score`` is
    False (an XGID's; GNU Backgammon's match ID keeps a session's points there).  ``offered``: a
    double is on the table; ``doubler_owns_no_cube``: its doubler's opponent owns the cube (a
    beaver on the table hands the cube over: an XGID's beavered state is no plain offer)."""
    owned = not centred
    if owned and cube_value < 2:
        raise ValueError(f"an owned cube shows 2 or more (it was turned to be owned), got {cube_value}")
    if match_to and centred and cube_value > 1:
        raise ValueError(f"a centred cube shows 1 in a match, got {cube_value} (only a money game's automatic "
                         "doubles turn it without an owner)")
    if cube_limit is not None and cube_value > cube_limit:
        raise ValueError(f"the cube shows {cube_value}, above its limit of {cube_limit}")
    if match_to and max(score) >= match_to:
        raise ValueError(f"score {score[0]}-{score[1]} has already won a match to {match_to}")
    if not match_to and not money_score and tuple(score) != (0, 0):
        raise ValueError(f"a money game has no score, got {score[0]}-{score[1]}")
    if crawford:
        away = [match_to - points for points in score] if match_to else []
        if not match_to or match_to < 2 or away.count(1) != 1:
            where = (f"at {score[0]}-{score[1]} of a {match_to}-point match" if match_to else "in a money game")
            raise ValueError(f"no Crawford game {where}: it is the game after one side (and only one) comes "
                             "a point from a match longer than one point")
        if cube_value != 1 or owned or offered:
            raise ValueError("the Crawford game is played without the cube: it is centred on 1 and never offered")
    if offered and doubler_owns_no_cube:
        raise ValueError("a double is offered by the side whose opponent owns the cube")


def decode(text: str) -> MatchState:
    """The fields of a match ID; MatchIdError names what is wrong."""
    if not isinstance(text, str) or not _ID_PATTERN.fullmatch(text.strip()):
        raise MatchIdError(f"a match ID is 12 base64 characters, got {text!r}")
    try:
        data = base64.b64decode(text.strip(), validate=True)  # 12 characters are 9 bytes exactly
    except binascii.Error:  # pragma: no cover - the pattern admits only base64 characters
        raise MatchIdError(f"match ID {text!r} is not base64") from None
    value = int.from_bytes(data, "little")
    fields = {name: (value >> first) & ((1 << size) - 1) for name, first, size in _FIELDS}
    if value >> 67:
        raise MatchIdError(f"match ID {text!r} sets bits past the last field")
    if fields["cube_log2"] > 12:
        raise MatchIdError(f"match ID {text!r}: cube value 2^{fields['cube_log2']} is too big")
    if fields["cube_owner"] == 2:
        raise MatchIdError(f"match ID {text!r}: cube owner 2 is neither a player nor centred")
    if fields["game_state"] >= len(GAME_STATES):
        raise MatchIdError(f"match ID {text!r}: unknown game state {fields['game_state']}")
    dice = (fields["die1"], fields["die2"])
    if any(die > 6 for die in dice) or (0 in dice and dice != (0, 0)):
        raise MatchIdError(f"match ID {text!r}: dice {dice[0]}-{dice[1]} are not a roll")
    match_to, score = fields["match_to"], (fields["score0"], fields["score1"])
    owner = None if fields["cube_owner"] == CENTRED else fields["cube_owner"]
    doubler = fields["on_roll"]
    try:
        check_state(1 << fields["cube_log2"], owner is None, match_to, score, bool(fields["crawford"]),
                    offered=bool(fields["doubled"]), doubler_owns_no_cube=owner is not None and owner != doubler)
    except ValueError as error:
        raise MatchIdError(f"match ID {text!r}: {error}") from None
    return MatchState(
        cube_value=1 << fields["cube_log2"],
        cube_owner=None if fields["cube_owner"] == CENTRED else fields["cube_owner"],
        on_roll=fields["on_roll"], crawford=bool(fields["crawford"]),
        game_state=fields["game_state"], turn=fields["turn"], doubled=bool(fields["doubled"]),
        resigned=fields["resigned"], dice=dice, match_to=match_to, score=score,
        jacoby=not fields["no_jacoby"],
    )


def encode(state: MatchState) -> str:
    """The match ID of ``state`` (inverse of :func:`decode`)."""
    cube_log2 = state.cube_value.bit_length() - 1
    if state.cube_value < 1 or 1 << cube_log2 != state.cube_value:
        raise MatchIdError(f"a cube value is a power of two, got {state.cube_value}")
    fields = {
        "cube_log2": cube_log2,
        "cube_owner": CENTRED if state.cube_owner is None else state.cube_owner,
        "on_roll": state.on_roll, "crawford": int(state.crawford),
        "game_state": state.game_state, "turn": state.turn, "doubled": int(state.doubled),
        "resigned": state.resigned, "die1": state.dice[0], "die2": state.dice[1],
        "match_to": state.match_to, "score0": state.score[0], "score1": state.score[1],
        "no_jacoby": int(not state.jacoby),
    }
    value = 0
    for name, first, size in _FIELDS:
        if not 0 <= fields[name] < 1 << size:
            raise MatchIdError(f"{name} = {fields[name]} does not fit a match ID")
        value |= fields[name] << first
    return base64.b64encode(value.to_bytes(9, "little")).decode("ascii")


def split_gnubg_id(text: str) -> tuple[str, str | None]:
    """``POSITIONID:MATCHID`` (GNU Backgammon's combined form) or a bare position ID."""
    if ":" in text:
        position_id, match_id = text.split(":", 1)
        return position_id.strip(), match_id.strip()
    return text.strip(), None


__all__ = ["MatchIdError", "MatchState", "check_state", "decode", "encode", "split_gnubg_id"]
